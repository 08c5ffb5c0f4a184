// build: vs_4_0 vs_main geometry_sprites
// build: gs_4_0 gs_main geometry_sprites
// build: gs_5_0 gs_main geometry_sprites
// build: ps_4_0 ps_main geometry_sprites
//
// Point sprites: the vertex program projects each point (a camera at the origin looking
// down +z, clip w = z), the geometry program expands it into a camera-facing quad of
// four vertices (one triangle strip: two triangles, the second odd and so reordered to
// keep the winding), and the pixel program draws a round sprite, discarding the corners.
// examples/sprites.toml draws them; tests/all/geometry.rs checks them by hand.

struct VsIn
{
    float3 pos : POSITION;
    float4 color : COLOR;
    float size : PSIZE;
};

struct GsIn
{
    float4 pos : SV_Position;
    float4 color : COLOR;
    float size : PSIZE;
};

struct PsIn
{
    float4 pos : SV_Position;
    float4 color : COLOR;
    float2 uv : TEXCOORD0;
};

GsIn vs_main(VsIn v)
{
    GsIn o;
    o.pos = float4(v.pos.x, v.pos.y, v.pos.z * 0.5, v.pos.z);
    o.color = v.color;
    o.size = v.size;
    return o;
}

[maxvertexcount(4)]
void gs_main(point GsIn p[1], inout TriangleStream<PsIn> s)
{
    PsIn o;
    o.color = p[0].color;
    // Corners in clip space around the point, top-left, top-right, bottom-left,
    // bottom-right: offsets at the point's w make the quad shrink with distance.
    o.pos = p[0].pos + float4(-p[0].size, p[0].size, 0, 0);
    o.uv = float2(0, 0);
    s.Append(o);
    o.pos = p[0].pos + float4(p[0].size, p[0].size, 0, 0);
    o.uv = float2(1, 0);
    s.Append(o);
    o.pos = p[0].pos + float4(-p[0].size, -p[0].size, 0, 0);
    o.uv = float2(0, 1);
    s.Append(o);
    o.pos = p[0].pos + float4(p[0].size, -p[0].size, 0, 0);
    o.uv = float2(1, 1);
    s.Append(o);
}

float4 ps_main(PsIn i) : SV_Target
{
    float2 d = i.uv * 2 - 1;
    float r2 = dot(d, d);
    clip(1 - r2);
    return float4(i.color.rgb * (1.25 - 0.5 * r2), 1);
}
