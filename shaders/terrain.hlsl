// build: vs_5_0 vs_main terrain
// build: hs_5_0 hs_main terrain
// build: ds_5_0 ds_main terrain
// build: ps_5_0 ps_main terrain
//
// A tessellated, displaced terrain (examples/terrain.toml): 8 × 8 quad patches of one
// unit over x in [-4, 4], z in [0, 8], their corners made by the vertex program from
// SV_VertexID (no vertex buffer). The hull program's patch-constant function gives each
// edge a fractional_odd factor from the camera's distance to the edge's midpoint, so
// the two patches sharing an edge compute it from the same two corners (a + b is b + a
// in floating point) and agree: no cracks. The domain program places each point
// bilinearly over the corners, lifts it by a height function and projects it; the
// pixel program lights it (one directional light) and colours it by height.

struct ControlPoint
{
    float3 pos : POSITION;
};

struct PatchConstants
{
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
};

struct DomainOut
{
    float4 pos : SV_Position;
    float3 normal : NORMAL;
    float height : HEIGHT;
};

static const float3 eye = float3(0.0, 3.0, -2.0);
static const float3 look_at = float3(0.0, 0.0, 3.5);

ControlPoint vs_main(uint id : SV_VertexID)
{
    // Corner c of patch p: (0, 0), (1, 0), (1, 1), (0, 1) in (u, v), u along x, v along z.
    uint p = id / 4;
    uint c = id % 4;
    float2 corner = float2(c == 1 || c == 2 ? 1.0 : 0.0, c >= 2 ? 1.0 : 0.0);
    ControlPoint o;
    o.pos = float3(-4.0 + float(p % 8) + corner.x, 0.0, float(p / 8) + corner.y);
    return o;
}

// The factor of the edge from a to b: 20 over the camera's distance to its midpoint,
// within fractional_odd's range.
float edge_factor(float3 a, float3 b)
{
    return clamp(20.0 / length((a + b) * 0.5 - eye), 1.0, 63.0);
}

PatchConstants patch_constants(InputPatch<ControlPoint, 4> patch)
{
    PatchConstants pc;
    // D3D's quad edges: 0 is u = 0, 1 is v = 0, 2 is u = 1, 3 is v = 1.
    pc.edges[0] = edge_factor(patch[0].pos, patch[3].pos);
    pc.edges[1] = edge_factor(patch[0].pos, patch[1].pos);
    pc.edges[2] = edge_factor(patch[1].pos, patch[2].pos);
    pc.edges[3] = edge_factor(patch[3].pos, patch[2].pos);
    // Inside factor 0 runs along u (as edges 1 and 3 do), 1 along v.
    pc.inside[0] = max(pc.edges[1], pc.edges[3]);
    pc.inside[1] = max(pc.edges[0], pc.edges[2]);
    return pc;
}

[domain("quad")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(4)]
[patchconstantfunc("patch_constants")]
ControlPoint hs_main(InputPatch<ControlPoint, 4> patch, uint i : SV_OutputControlPointID)
{
    return patch[i];
}

float height(float2 xz)
{
    return 0.6 * sin(0.9 * xz.x) * cos(0.7 * xz.y) + 0.25 * sin(1.7 * xz.x + 0.9 * xz.y);
}

[domain("quad")]
DomainOut ds_main(PatchConstants pc, float2 uv : SV_DomainLocation,
        const OutputPatch<ControlPoint, 4> patch)
{
    float3 p = lerp(lerp(patch[0].pos, patch[1].pos, uv.x),
            lerp(patch[3].pos, patch[2].pos, uv.x), uv.y);
    float x = p.x, z = p.z;
    p.y = height(p.xz);
    // The height's slopes, for the normal.
    float dx = 0.54 * cos(0.9 * x) * cos(0.7 * z) + 0.425 * cos(1.7 * x + 0.9 * z);
    float dz = -0.42 * sin(0.9 * x) * sin(0.7 * z) + 0.225 * cos(1.7 * x + 0.9 * z);

    // The camera: looking from eye to look_at, 60° vertical field of view, aspect 3:2,
    // depth from 0.1 to 20.
    float3 f = normalize(look_at - eye);
    float3 r = normalize(cross(float3(0, 1, 0), f));
    float3 u = cross(f, r);
    float3 v = p - eye;
    float3 view = float3(dot(v, r), dot(v, u), dot(v, f));
    const float cot = 1.7320508;            // 1 / tan(30°)
    DomainOut o;
    o.pos = float4(view.x * cot / 1.5, view.y * cot,
            view.z * (20.0 / 19.9) - 0.1 * 20.0 / 19.9, view.z);
    o.normal = float3(-dx, 1.0, -dz);
    o.height = p.y;
    return o;
}

float4 ps_main(float4 pos : SV_Position, float3 normal : NORMAL, float height : HEIGHT) : SV_Target
{
    float3 n = normalize(normal);
    float3 light = normalize(float3(0.5, 0.8, -0.4));
    float lit = 0.25 + 0.75 * saturate(dot(n, light));
    float3 grass = float3(0.25, 0.55, 0.2);
    float3 rock = float3(0.5, 0.45, 0.4);
    float3 snow = float3(0.95, 0.95, 1.0);
    float3 albedo = lerp(grass, rock, saturate((height + 0.1) * 2.5));
    albedo = lerp(albedo, snow, saturate((height - 0.55) * 6.0));
    return float4(albedo * lit, 1.0);
}
