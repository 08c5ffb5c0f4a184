// build: ps_5_0 main
//
// Pixel-shader inputs and outputs: interpolation modes, coarse and fine derivatives,
// system values (front face, sample index) and depth and coverage outputs.
// (vkd3d's HLSL has no EvaluateAttribute* no `sample` modifier and no SV_Coverage input: eval_*, sample
// interpolation and vCoverage input are covered by hand-assembled tokens in the decoder's unit tests.)

struct Input
{
    float4 pos : SV_Position;
    linear float4 color : COLOR0;
    centroid float2 uv : TEXCOORD0;
    noperspective float3 normal : NORMAL;
    float4 sampled : TEXCOORD1;
    noperspective centroid float2 ndc : TEXCOORD2;
    nointerpolation uint id : TEXCOORD3;
    bool front : SV_IsFrontFace;
    uint sample_index : SV_SampleIndex;
};

struct Output
{
    float4 color : SV_Target0;
    float4 extra : SV_Target1;
    float depth : SV_Depth;
    uint mask : SV_Coverage;
};

Output main(Input input)
{
    Output o;
    float4 c = input.color;
    c.xy += ddx_coarse(input.uv) + ddy_coarse(input.uv);
    c.xy += ddx_fine(input.uv) + ddy_fine(input.uv);
    c.xyz += ddx(input.normal) * ddy(input.normal);
    c += input.sampled;
    c.xy += input.ndc;
    if (!input.front)
        c = -c;
    o.color = c;
    o.extra = float4((float)input.id, (float)input.sample_index, 0.0, 1.0);
    o.depth = saturate(input.pos.z * 0.5);
    o.mask = input.id & 0x5;
    return o;
}
