// build: ps_5_0 main
//
// Pixel-program family: conversions — ftou/ftoi truncate toward zero, saturate and send
// NaN to 0 (D3D11.3 §3.2); itof/utof round to nearest even (0xffffffff → 2^32, 16777219
// → 16777220, 16777217 → 16777216); f32tof16 rounds toward zero, gives the largest half
// past the range and keeps denormal halves (WARP's rule, seed 000: 65520 → 0x7bff, 1e-5 →
// 0xa7); f16tof32 reads the low 16 bits exactly. Shader Model 5 only: for ps_4_0 vkd3d
// replaces f32tof16 with its own integer sequence, whose rounding is not WARP's.
//
// The 2×2 quad at (2, 4): SV_Position.xy = (2.5, 4.5), (3.5, 4.5), (2.5, 5.5), (3.5, 5.5).
// quad: 2 4
// resource: b0 cbuffer = 0x7fc00000 3e9 65520.0 1e-5 0xffffffff 16777219 16777217 0 0x3c00 0xc000 0x7c00 0x12340001
//   (f = (NaN, 3e9, 65520, 1e-5), k = (0xffffffff, 16777219, 16777217, 0), h = halves)
// o0 = (ftou(1.5 p.x), ftoi(-p.y), ftou(NaN), ftoi(3e9))
// expect: o0 at 2 4 = 3 0xfffffffc 0 0x7fffffff
// expect: o0 at 3 4 = 5 0xfffffffc 0 0x7fffffff
// expect: o0 at 2 5 = 3 0xfffffffb 0 0x7fffffff
// expect: o0 at 3 5 = 5 0xfffffffb 0 0x7fffffff
// o1 = (itof(ix), utof(0xffffffff), utof(16777219), utof(16777217))
// expect: o1 at 2 4 = 2.0 4294967296.0 16777220.0 16777216.0
// expect: o1 at 3 4 = 3.0 4294967296.0 16777220.0 16777216.0
// expect: o1 at 2 5 = 2.0 4294967296.0 16777220.0 16777216.0
// expect: o1 at 3 5 = 3.0 4294967296.0 16777220.0 16777216.0
// o2 = (f32tof16(p.x), f32tof16(65520), f32tof16(1e-5), f32tof16(1000 p.y): 4500 = 2^12 (1 + 101/1024), 5500 = 2^12 (1 + 351/1024), both exact)
// expect: o2 at 2 4 = 0x4100 0x7bff 0xa7 0x6c65
// expect: o2 at 3 4 = 0x4300 0x7bff 0xa7 0x6c65
// expect: o2 at 2 5 = 0x4100 0x7bff 0xa7 0x6d5f
// expect: o2 at 3 5 = 0x4300 0x7bff 0xa7 0x6d5f
// o3 = f16tof32 of 0x3c00, 0xc000, 0x7c00, 0x12340001 (low half 1: 2^-24)
// expect: o3 at all = 1.0 -2.0 inf 0x33800000

cbuffer Constants : register(b0)
{
    float4 f;
    uint4 k;
    uint4 h;
};

struct Out
{
    uint4 o0 : SV_Target0;
    float4 o1 : SV_Target1;
    uint4 o2 : SV_Target2;
    float4 o3 : SV_Target3;
};

Out main(float4 pos : SV_Position)
{
    float2 p = pos.xy;
    int ix = (int)p.x;
    Out o;
    o.o0 = uint4((uint)(p.x * 1.5), (uint)(int)(-p.y), (uint)f.x, (uint)(int)f.y);
    o.o1 = float4((float)ix, (float)k.x, (float)k.y, (float)k.z);
    o.o2 = uint4(f32tof16(p.x), f32tof16(f.z), f32tof16(f.w), f32tof16(p.y * 1000.0));
    o.o3 = float4(f16tof32(h.x), f16tof32(h.y), f16tof32(h.z), f16tof32(h.w));
    return o;
}
