// build: ps_5_0 main
// build: ps_4_0 main
//
// Float arithmetic: the unary and binary ALU operations, modifiers (neg, abs, saturate),
// comparisons and selects, dot products, rounding, transcendental functions.

cbuffer Constants : register(b0)
{
    float4 a;
    float4 b;
    float4 c;
    float4x4 m;
};

float4 main(float4 pos : SV_Position, float4 uv : TEXCOORD0, nointerpolation float4 flat : TEXCOORD1) : SV_Target
{
    float4 r = a * b + c;
    r += a / b;
    r += min(a, b) + max(a, c);
    r += abs(a) - (-b);
    r += -abs(c);
    r += saturate(a * 2.5);
    r += sqrt(abs(a)) + rsqrt(abs(b) + 1.0);
    r += rcp(c + 1.0);
    r += exp2(a) + log2(abs(b) + 1.0);
    r += sin(a) + cos(b);
    r += frac(c) + floor(a) + ceil(b) + round(c) + trunc(a);
    r.x += dot(a.xy, b.xy) + dot(a.xyz, b.xyz) + dot(a, b);
    r += mul(m, uv);
    r += (a < b) ? c : -c;
    r += (a >= c) ? 1.0 : 0.5;
    r += (a == b) ? uv : flat;
    r += (a != c) ? 0.25 : 0.75;
    r += lerp(a, b, 0.3) + smoothstep(0.0, 1.0, c);
    r += pos.xyxy * 0.001;
    return r;
}
