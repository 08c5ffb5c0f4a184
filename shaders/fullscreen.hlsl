// build: vs_5_0 main
// build: vs_4_0 main
//
// A full-screen triangle from SV_VertexID alone (no vertex buffer): vertices 0, 1, 2 at
// clip-space (-1, 1), (3, 1), (-1, -3), which covers the whole viewport, at depth 0.5;
// TEXCOORD0 is the matching (u, v), (0, 0) at the viewport's top-left corner and (1, 1)
// at its bottom-right. Draw it with vertex_count = 3 to run a pixel program once per
// pixel (the pixel families above use only SV_Position, so they run under it as they
// run in the tests).
//
// vertices: 3
// o0 = SV_Position, o1 = TEXCOORD0
// expect: o0 at vertex 0 = -1.0 1.0 0.5 1.0
// expect: o1 at vertex 0 = 0.0 0.0
// expect: o0 at vertex 1 = 3.0 1.0 0.5 1.0
// expect: o1 at vertex 1 = 2.0 0.0
// expect: o0 at vertex 2 = -1.0 -3.0 0.5 1.0
// expect: o1 at vertex 2 = 0.0 2.0

struct Out
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
};

Out main(uint id : SV_VertexID)
{
    Out o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * float2(2.0, -2.0) + float2(-1.0, 1.0), 0.5, 1.0);
    o.uv = uv;
    return o;
}
