// build: ps_5_0 main
//
// Texture access across dimensions: sample, sample_l, sample_b, sample_d, sample_c,
// sample_c_lz, gather4 variants, ld, ld2dms, resinfo, sampleinfo, lod, with immediate
// texel offsets. (vkd3d's HLSL has no CalculateLevelOfDetail or
// GetSamplePosition; `lod` and `samplepos` come from the corpora.)

Texture1D<float4> tex1d : register(t0);
Texture1DArray<float4> tex1darray : register(t1);
Texture2D<float4> tex2d : register(t2);
Texture2DArray<float4> tex2darray : register(t3);
Texture3D<float4> tex3d : register(t4);
TextureCube<float4> texcube : register(t5);
TextureCubeArray<float4> texcubearray : register(t6);
Texture2DMS<float4, 4> tex2dms : register(t7);
Texture2D<float> shadow : register(t8);
Buffer<uint4> typed : register(t9);
Texture2D<int4> itex : register(t10);

SamplerState linear_sampler : register(s0);
SamplerComparisonState cmp_sampler : register(s1);

float4 main(float4 pos : SV_Position, float3 uv : TEXCOORD0, float ref : TEXCOORD1) : SV_Target
{
    float4 r = tex1d.Sample(linear_sampler, uv.x);
    r += tex1darray.Sample(linear_sampler, uv.xy);
    r += tex2d.Sample(linear_sampler, uv.xy, int2(1, -1));
    r += tex2darray.SampleLevel(linear_sampler, uv, 2.0);
    r += tex3d.SampleBias(linear_sampler, uv, -0.5);
    r += texcube.SampleGrad(linear_sampler, uv, ddx(uv), ddy(uv));
    r += texcubearray.Sample(linear_sampler, float4(uv, 1.0));
    r += shadow.SampleCmp(cmp_sampler, uv.xy, ref);
    r += shadow.SampleCmpLevelZero(cmp_sampler, uv.xy, ref);
    r += tex2d.Gather(linear_sampler, uv.xy);
    r += tex2d.GatherGreen(linear_sampler, uv.xy, int2(1, 1));
    r += shadow.GatherCmp(cmp_sampler, uv.xy, ref);
    int2 ip = int2(pos.xy);
    r += tex2d.Load(int3(ip, 0));
    r += tex3d.Load(int4(ip, 1, 0));
    r += tex2d.Load(int3(ip, 1), int2(-1, 2));
    r += tex2dms.Load(ip, 2);
    r += (float4)typed.Load(ip.x);
    r += (float4)itex.Load(int3(ip, 1));
    uint w, h, levels;
    tex2d.GetDimensions(0, w, h, levels);
    float fw, fh, fd, fl;
    tex3d.GetDimensions(1, fw, fh, fd, fl);
    uint ms_w, ms_h, ms_samples;
    tex2dms.GetDimensions(ms_w, ms_h, ms_samples);
    r.x += (float)(w + h + levels + ms_samples) + fw + fh + fd + fl;
    return r;
}
