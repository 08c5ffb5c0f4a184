// build: ps_5_0 main
//
// Pixel-program family: derivatives in a quad and implicit-LOD sampling. v = x · y
// over the quad (11.25, 15.75 / 13.75, 19.25). Coarse derivatives (and the unqualified
// ddx/ddy, which are coarse: the `deriv_rtx` reference page) take the top row and the
// left column: d/dx = 4.5, d/dy = 2.5 everywhere; fine ones take each pixel's own row
// (4.5 top, 5.5 bottom) and column (2.5 left, 3.5 right). The bottom-right lane is a
// helper: it runs, its values feed the others' derivatives, its outputs are not checked.
// The texture has 4 mips (8×8 … 1×1) holding 10, 11, 12, 13; with point filtering a
// sample picks the nearest mip to its LOD, log2 of the texels per pixel: uv = 0.125 p
// moves one texel per pixel (LOD 0), uv = 0.25 p two (LOD 1), a bias of 1 makes it 2,
// SampleLevel(3) is mip 3.
//
// quad: 2 4 helper 3 5
// resource: b0 cbuffer = 0.125 0.25
// resource: t0 texture2d format=R32_FLOAT width=8 height=8 mips=4 = 64*10.0 16*11.0 4*12.0 13.0
// resource: s0 sampler filter=point address=clamp
// expect: o0 at 2 4 = 4.5 2.5 4.5 2.5
// expect: o0 at 3 4 = 4.5 2.5 4.5 3.5
// expect: o0 at 2 5 = 4.5 2.5 5.5 2.5
// o1 = (ddx_coarse(x) = 1, ddy_coarse(y) = 1, ddx(y) = 0, fwidth(v) = 4.5 + 2.5)
// expect: o1 at 2 4 = 1.0 1.0 0.0 7.0
// expect: o1 at 3 4 = 1.0 1.0 0.0 7.0
// expect: o1 at 2 5 = 1.0 1.0 0.0 7.0
// expect: o2 at 2 4 = 10.0 11.0 12.0 13.0
// expect: o2 at 3 4 = 10.0 11.0 12.0 13.0
// expect: o2 at 2 5 = 10.0 11.0 12.0 13.0

cbuffer Constants : register(b0)
{
    float scale0;
    float scale1;
};

Texture2D<float4> tex : register(t0);
SamplerState point_sampler : register(s0);

struct Out
{
    float4 o0 : SV_Target0;
    float4 o1 : SV_Target1;
    float4 o2 : SV_Target2;
};

Out main(float4 pos : SV_Position)
{
    float v = pos.x * pos.y;
    float2 uv0 = pos.xy * scale0;
    float2 uv1 = pos.xy * scale1;
    Out o;
    o.o0 = float4(ddx(v), ddy(v), ddx_fine(v), ddy_fine(v));
    o.o1 = float4(ddx_coarse(pos.x), ddy_coarse(pos.y), ddx(pos.y), fwidth(v));
    o.o2 = float4(tex.Sample(point_sampler, uv0).x, tex.Sample(point_sampler, uv1).x,
                  tex.SampleBias(point_sampler, uv1, 1.0).x, tex.SampleLevel(point_sampler, uv1, 3.0).x);
    return o;
}
