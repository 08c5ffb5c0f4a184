// build: ps_5_0 main
// build: ps_4_0 main
//
// Pixel-program family: 32-bit float arithmetic (add, mul, div, min/max, sqrt, frc, the
// four roundings, abs/neg/saturate, compares and selects, dot products, exp2/log2, rsq,
// cos) and D3D11.3 §3.1's rules: min/max return the other operand of a NaN, denormals
// flush to zero, x / -0 = -inf, saturate(NaN) = 0, NaN != NaN. Values come from
// SV_Position (pixel centres at .5) and the constant buffer; every expected value is
// exact in float32, so fused or unfused multiply-adds give the same bits.
//
// The 2×2 quad with its top-left pixel at (2, 4): SV_Position.xy = (2.5, 4.5), (3.5,
// 4.5), (2.5, 5.5), (3.5, 5.5); z = 0.5, w = 1.
// quad: 2 4
// resource: b0 cbuffer = 1.5 -2.25 0.75 4.0 0.5 3.0 -1.0 2.0 0x7fc00000 inf -0.0 1e-40
//   (a = (1.5, -2.25, 0.75, 4), b = (0.5, 3, -1, 2), c = (NaN, inf, -0, a denormal))
// o0 = (p.x + a.x, p.y * a.y, p.x - p.y, p.x / b.w)
// expect: o0 at 2 4 = 4.0 -10.125 -2.0 1.25
// expect: o0 at 3 4 = 5.0 -10.125 -1.0 1.75
// expect: o0 at 2 5 = 4.0 -12.375 -3.0 1.25
// expect: o0 at 3 5 = 5.0 -12.375 -2.0 1.75
// o1 = (min(p.x, 4), max(p.y, 2 * 2.5), sqrt(4), frac(p.x / 4))
// expect: o1 at 2 4 = 2.5 5.0 2.0 0.625
// expect: o1 at 3 4 = 3.5 5.0 2.0 0.875
// expect: o1 at 2 5 = 2.5 5.5 2.0 0.625
// expect: o1 at 3 5 = 3.5 5.5 2.0 0.875
// o2 = (floor(-p.x), ceil(p.y), round_ne(p.x): 2.5 → 2, 3.5 → 4, trunc(-p.y))
// expect: o2 at 2 4 = -3.0 5.0 2.0 -4.0
// expect: o2 at 3 4 = -4.0 5.0 4.0 -4.0
// expect: o2 at 2 5 = -3.0 6.0 2.0 -5.0
// expect: o2 at 3 5 = -4.0 6.0 4.0 -5.0
// o3 = (|a.y|, saturate(p.x - 3): -0.5 → +0, p.x < 3 ? 1 : -1, -|a.z|)
// expect: o3 at 2 4 = 2.25 0.0 1.0 -0.75
// expect: o3 at 3 4 = 2.25 0.5 -1.0 -0.75
// expect: o3 at 2 5 = 2.25 0.0 1.0 -0.75
// expect: o3 at 3 5 = 2.25 0.5 -1.0 -0.75
// o4 = (dot(a.xy, p), dot(a.xyz, b.xyz) = 0.75 - 6.75 - 0.75, dot(a, b) = -6.75 + 8, exp2(p.x - 0.5))
// expect: o4 at 2 4 = -6.375 -6.75 1.25 4.0
// expect: o4 at 3 4 = -4.875 -6.75 1.25 8.0
// expect: o4 at 2 5 = -8.625 -6.75 1.25 4.0
// expect: o4 at 3 5 = -7.125 -6.75 1.25 8.0
// o5 = (log2(4), rsqrt(4), 1 / 2, p.x * p.y)
// expect: o5 at 2 4 = 2.0 0.5 0.5 11.25
// expect: o5 at 3 4 = 2.0 0.5 0.5 15.75
// expect: o5 at 2 5 = 2.0 0.5 0.5 13.75
// expect: o5 at 3 5 = 2.0 0.5 0.5 19.25
// o6 = (min(NaN, p.x) = p.x, max(-inf, p.y) = p.y, denormal * 2 → +0, cos(0))
// expect: o6 at 2 4 = 2.5 4.5 0.0 1.0
// expect: o6 at 3 4 = 3.5 4.5 0.0 1.0
// expect: o6 at 2 5 = 2.5 5.5 0.0 1.0
// expect: o6 at 3 5 = 3.5 5.5 0.0 1.0
// o7 = (saturate(NaN) = 0, 1 / -0 = -inf, NaN != NaN, NaN < 1)
// expect: o7 at all = 0.0 -inf 1.0 0.0

cbuffer Constants : register(b0)
{
    float4 a;
    float4 b;
    float4 c;
};

struct Out
{
    float4 o0 : SV_Target0;
    float4 o1 : SV_Target1;
    float4 o2 : SV_Target2;
    float4 o3 : SV_Target3;
    float4 o4 : SV_Target4;
    float4 o5 : SV_Target5;
    float4 o6 : SV_Target6;
    float4 o7 : SV_Target7;
};

Out main(float4 pos : SV_Position)
{
    float2 p = pos.xy;
    Out o;
    o.o0 = float4(p.x + a.x, p.y * a.y, p.x - p.y, p.x / b.w);
    o.o1 = float4(min(p.x, a.w), max(p.y, b.w * 2.5), sqrt(a.w), frac(p.x * 0.25));
    o.o2 = float4(floor(-p.x), ceil(p.y), round(p.x), trunc(-p.y));
    o.o3 = float4(abs(a.y), saturate(p.x - 3.0), (p.x < 3.0) ? 1.0 : -1.0, -abs(a.z));
    o.o4 = float4(dot(a.xy, p), dot(a.xyz, b.xyz), dot(a, b), exp2(p.x - 0.5));
    o.o5 = float4(log2(a.w), rsqrt(a.w), 1.0 / b.w, p.x * p.y);
    o.o6 = float4(min(c.x, p.x), max(-c.y, p.y), c.w * 2.0, cos(a.x - 1.5));
    o.o7 = float4(saturate(c.x), 1.0 / c.z, (c.x != c.x) ? 1.0 : 0.0, (c.x < 1.0) ? 1.0 : 0.0);
    return o;
}
