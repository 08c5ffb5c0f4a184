// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 structured stride=4 = 2.0 3.0 -1.5 0.25 16.0 0x7fc00000 0.75 8.0 0x00400000
// resource: u0 raw size=160
//
// 32-bit float arithmetic on values read from a buffer (so nothing is folded at compile
// time): add, mul, div, mad, min/max with a NaN operand (the other operand wins), dp2,
// dp3, dp4, frc, the four roundings, sqrt, rsq, rcp, exp, log, sincos (each result
// alone), comparisons, movc, mov_sat (NaN saturates to 0), |x| and -|x| modifiers on a
// stored value, -x on a mul operand, and denormals: a float multiply flushes a denormal
// input to zero, a load and store keep its bits. Inputs: a = 2, b = 3, c = -1.5,
// d = 0.25, e = 16, n = NaN, g = 0.75, h = 8, den = 0x00400000 (a denormal).
//
// expect: u0[0] = 5.0 6.0 1.5 4.5          (a+b, a*b, b/a, mad(a, b, c))
// expect: u0[4] = -1.5 2.0 3.0             (min(c, d), max(a, n), min(n, b))
// expect: u0[7] = -2.25 15.25 0.9375       (dp2, dp3, dp4)
// expect: u0[10] = 0.5 2.0 -2.0 -1.0 -1.0  (frc(c), round_ne(2.5), round_ni/pi/z(c))
// expect: u0[15] = 4.0 0.25 4.0 8.0 3.0    (sqrt(e), rsq(e), rcp(d), exp(b), log(h))
// expect: u0[20] = 0.0 1.0                 (sin(0), cos(0))
// expect: u0[22] = 1 0 1                   (a < b, c >= d, n != n)
// expect: u0[25] = 1.0 0.0 0.0             (saturate(b), saturate(c), saturate(n))
// expect: u0[28] = 1.5 -1.5 2.0 1.125      (|c|, -|c|, c < 0 ? a : b, -c * g)
// expect: u0[32] = 0 0x00400000            (den * b flushed, den kept)

StructuredBuffer<float> input : register(t0);
RWByteAddressBuffer output : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = input[0], b = input[1], c = input[2], d = input[3];
    float e = input[4], n = input[5], g = input[6], h = input[7];
    float den = input[8];
    output.Store(0, asuint(a + b));
    output.Store(4, asuint(a * b));
    output.Store(8, asuint(b / a));
    output.Store(12, asuint(mad(a, b, c)));
    output.Store(16, asuint(min(c, d)));
    output.Store(20, asuint(max(a, n)));
    output.Store(24, asuint(min(n, b)));
    output.Store(28, asuint(dot(float2(a, b), float2(c, d))));
    output.Store(32, asuint(dot(float3(a, b, c), float3(a, b, c))));
    output.Store(36, asuint(dot(float4(a, b, c, d), float4(d, d, d, d))));
    output.Store(40, asuint(frac(c)));
    output.Store(44, asuint(round(a + 0.5)));
    output.Store(48, asuint(floor(c)));
    output.Store(52, asuint(ceil(c)));
    output.Store(56, asuint(trunc(c)));
    output.Store(60, asuint(sqrt(e)));
    output.Store(64, asuint(rsqrt(e)));
    output.Store(68, asuint(rcp(d)));
    output.Store(72, asuint(exp2(b)));
    output.Store(76, asuint(log2(h)));
    float s, co;
    sincos(a - a, s, co);
    output.Store(80, asuint(s));
    output.Store(84, asuint(co));
    output.Store(88, a < b ? 1u : 0u);
    output.Store(92, c >= d ? 1u : 0u);
    output.Store(96, n != n ? 1u : 0u);
    output.Store(100, asuint(saturate(b)));
    output.Store(104, asuint(saturate(c)));
    output.Store(108, asuint(saturate(n)));
    output.Store(112, asuint(abs(c)));
    output.Store(116, asuint(-abs(c)));
    output.Store(120, asuint(c < 0 ? a : b));
    output.Store(124, asuint(-c * g));
    output.Store(128, asuint(den * b));
    output.Store(132, asuint(den));
}
