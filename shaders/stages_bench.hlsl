// build: vs_5_0 terrain_vs stages_bench_terrain
// build: hs_5_0 terrain_hs stages_bench_terrain
// build: ds_5_0 terrain_ds stages_bench_terrain
// build: ps_5_0 shade_ps stages_bench_terrain
// build: vs_5_0 particle_vs stages_bench_particles
// build: gs_5_0 particle_gs stages_bench_particles
// build: ps_5_0 shade_ps stages_bench_particles
//
// The two scenes of benches/stages_vs_lavapipe.rs, built from SV_VertexID alone (no
// vertex buffer, no constants), so that dxlane and the D3D12 peer run the same programs
// with nothing else bound:
//
// - terrain: a 32 x 32 grid of quad patches over x, z in [-1, 1], 8 instances of 128; the hull program sets
//   every factor to 16 with fractional_odd partitioning; the domain program places each
//   point bilinearly, lifts it by a sum of sines and projects it with a fixed tilted
//   perspective; the pixel program shades by height.
// - particles: 100,000 points at hashed positions; the geometry program expands each
//   into a camera-facing quad (a four-vertex strip) 6 pixels wide at 1080p.

#define GRID 32

struct ControlPoint
{
    float3 pos : POSITION;
};

struct PatchConstants
{
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
};

struct Shaded
{
    float4 pos : SV_Position;
    float4 color : COLOR;
};

// Vertex id 4q + c of instance i is corner c of patch p = 128 i + q (row p / GRID,
// column p % GRID), corners in the order (0, 0) (1, 0) (1, 1) (0, 1). The grid is drawn
// as 8 instances of 128 patches: lavapipe numbers a draw's domain points with 16 bits
// (tests/d3d12_peer/README.md), and 128 patches of 18 x 18 points stay below 65,536.
ControlPoint terrain_vs(uint id : SV_VertexID, uint instance : SV_InstanceID)
{
    uint patch = id / 4 + instance * 128;
    uint corner = id % 4;
    float2 c = float2(corner == 1 || corner == 2, corner >= 2);
    float2 cell = float2(patch % GRID, patch / GRID) + c;
    ControlPoint o;
    o.pos = float3(cell.x * (2.0 / GRID) - 1.0, 0.0, cell.y * (2.0 / GRID) - 1.0);
    return o;
}

PatchConstants terrain_constants(InputPatch<ControlPoint, 4> ip)
{
    PatchConstants o;
    o.edges[0] = o.edges[1] = o.edges[2] = o.edges[3] = 16.0;
    o.inside[0] = o.inside[1] = 16.0;
    return o;
}

[domain("quad")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(4)]
[patchconstantfunc("terrain_constants")]
ControlPoint terrain_hs(InputPatch<ControlPoint, 4> ip, uint i : SV_OutputControlPointID)
{
    return ip[i];
}

[domain("quad")]
Shaded terrain_ds(PatchConstants pc, float2 uv : SV_DomainLocation,
        const OutputPatch<ControlPoint, 4> p)
{
    float3 a = lerp(p[0].pos, p[1].pos, uv.x);
    float3 b = lerp(p[3].pos, p[2].pos, uv.x);
    float3 w = lerp(a, b, uv.y);
    float h = 0.12 * sin(w.x * 7.0) * cos(w.z * 5.0) + 0.05 * sin((w.x + w.z) * 17.0);
    // Tilted perspective: the far edge (z = 1) is higher on screen and smaller.
    float depth = 2.0 + w.z;
    Shaded o;
    o.pos = float4(w.x * 2.2, (h + w.z * 0.9) * 2.0 - 0.3, depth * 0.5, depth);
    float t = saturate(h * 4.0 + 0.5);
    o.color = float4(0.2 + 0.6 * t, 0.5 + 0.3 * t, 0.3 - 0.2 * t, 1.0);
    return o;
}

float4 shade_ps(Shaded i) : SV_Target
{
    return i.color;
}

// A hash of the vertex id: a position in [-1, 1]^2 and a colour.
float4 particle_vs(uint id : SV_VertexID) : POSITION
{
    uint h = id * 747796405u + 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    h = (h >> 22u) ^ h;
    uint g = h * 747796405u + 2891336453u;
    g = ((g >> ((g >> 28u) + 4u)) ^ g) * 277803737u;
    g = (g >> 22u) ^ g;
    return float4((h & 0xffffu) / 32767.5 - 1.0, (g & 0xffffu) / 32767.5 - 1.0,
            (h >> 16) / 65535.0, (g >> 16) / 65535.0);
}

[maxvertexcount(4)]
void particle_gs(point float4 v[1] : POSITION, inout TriangleStream<Shaded> s)
{
    // 6 pixels of 1920 x 1080: half-sizes 3 / 960 and 3 / 540 in clip space.
    float2 d = float2(3.0 / 960.0, 3.0 / 540.0);
    Shaded o;
    o.color = float4(v[0].z, v[0].w, 1.0 - v[0].z, 1.0);
    o.pos = float4(v[0].xy + float2(-d.x, -d.y), 0.5, 1.0);
    s.Append(o);
    o.pos = float4(v[0].xy + float2(-d.x, d.y), 0.5, 1.0);
    s.Append(o);
    o.pos = float4(v[0].xy + float2(d.x, -d.y), 0.5, 1.0);
    s.Append(o);
    o.pos = float4(v[0].xy + float2(d.x, d.y), 0.5, 1.0);
    s.Append(o);
}
