// build: gs_5_0 main
// build: gs_4_0 main
//
// A geometry program: triangle input, a triangle-strip output, vertex emission and
// strip cuts, the primitive id and a loop over the input vertices.

struct VertexIn
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
};

struct VertexOut
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    uint layer : SV_RenderTargetArrayIndex;
};

cbuffer Constants : register(b0)
{
    float4 offset;
};

[maxvertexcount(6)]
void main(triangle VertexIn input[3], uint prim : SV_PrimitiveID, inout TriangleStream<VertexOut> stream)
{
    VertexOut v;
    [unroll]
    for (uint i = 0; i < 3; ++i)
    {
        v.pos = input[i].pos;
        v.uv = input[i].uv;
        v.layer = prim & 1;
        stream.Append(v);
    }
    stream.RestartStrip();
    [unroll]
    for (uint j = 0; j < 3; ++j)
    {
        v.pos = input[j].pos + offset;
        v.uv = input[j].uv * 0.5;
        v.layer = prim;
        stream.Append(v);
    }
}
