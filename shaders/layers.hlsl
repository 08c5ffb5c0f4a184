// build: gs_5_0 gs_main layers
// build: vs_5_0 vs_main layers
//
// Routing primitives to render-target slices and viewports. The geometry program emits
// each input triangle three times, copy k with SV_RenderTargetArrayIndex = k + route.x
// and SV_ViewportArrayIndex = k + route.y (after a cut: three separate triangles). The
// vertex program writes both from the triangle's number (SV_VertexID / 3) plus route,
// which D3D12 takes from a vertex program feeding the rasterizer
// (VPAndRTArrayIndexFromAnyShaderFeedingRasterizer). Both read draw_color's vertices;
// draw_color's pixel program shades them (tests/all/command_list.rs).
struct VsIn
{
    float2 pos : POSITION;
    float4 color : COLOR;
};

struct GsIn
{
    float4 pos : SV_Position;
    float4 color : COLOR;
};

struct Routed
{
    float4 pos : SV_Position;
    float4 color : COLOR;
    uint layer : SV_RenderTargetArrayIndex;
    uint viewport : SV_ViewportArrayIndex;
};

cbuffer Route : register(b0)
{
    uint4 route;
};

[maxvertexcount(9)]
void gs_main(triangle GsIn input[3], inout TriangleStream<Routed> stream)
{
    Routed v;
    [unroll]
    for (uint k = 0; k < 3; ++k)
    {
        [unroll]
        for (uint i = 0; i < 3; ++i)
        {
            v.pos = input[i].pos;
            v.color = input[i].color;
            v.layer = k + route.x;
            v.viewport = k + route.y;
            stream.Append(v);
        }
        stream.RestartStrip();
    }
}

Routed vs_main(VsIn i, uint vid : SV_VertexID)
{
    Routed o;
    o.pos = float4(i.pos, 0.0, 1.0);
    o.color = i.color;
    o.layer = vid / 3 + route.x;
    o.viewport = vid / 3 + route.y;
    return o;
}
