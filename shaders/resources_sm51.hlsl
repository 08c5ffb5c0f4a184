// build: ps_5_1 main
// build: cs_5_1 cs_main resources_sm51
//
// Shader Model 5.1 bindings: ranged declarations (`T1[2:2]`) with register spaces, and
// 3-index constant-buffer operands. (vkd3d cannot compile 5.1 resource arrays; arrays
// and unbounded ranges are covered by hand-assembled tokens in the decoder's tests.)

Texture2D<float4> colors : register(t2, space1);
Texture2D<float4> single : register(t0);
SamplerState smp : register(s1, space2);
RWStructuredBuffer<uint> out_buffer : register(u3, space4);

cbuffer Constants : register(b5, space3)
{
    uint which;
    float4 scale;
};

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 c = colors.Sample(smp, uv);
    c += single.Sample(smp, uv) * scale;
    return c * (float)which;
}

[numthreads(8, 1, 1)]
void cs_main(uint3 id : SV_DispatchThreadID)
{
    out_buffer[id.x] = which + id.x + (uint)colors.Load(int3(id.xy, 0)).x;
}
