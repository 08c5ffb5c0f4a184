// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 structured stride=4 = 3e9 -5.5 0x7fc00000 65520.0 1e10 inf -inf 1e-5 -2.5 1.0 3e9 -5.5 0x7fc00000
// resource: t1 structured stride=4 = 0xfffffffb 0xffffffff 0x3c00 0x7bff 0x0001 0xfc00
// resource: u0 raw size=96
//
// Conversions: ftoi and ftou saturate and send NaN to 0; itof and utof round to
// nearest; f32tof16 rounds toward zero the way WARP's legacy conversion does (finite
// values past the half range give the largest half, infinities stay infinite, NaN gives
// 0x7fff, 1e-5 becomes the denormal half 167); f16tof32 is exact, denormal halves
// included.
//
// expect: u0[0] = 0x7fffffff -5 0 0x80000000    (int of 3e9, -5.5, NaN, -3e9)
// expect: u0[4] = 3000000000 0 0                 (uint of 3e9, -5.5, NaN)
// expect: u0[7] = -5.0 4294967296.0              (itof(-5), utof(0xffffffff))
// expect: u0[9] = 0x7bff 0x7bff 0x7c00 0xfc00 0x7fff 167 0xc100 0x3c00  (f32tof16 of 65520, 1e10, inf, -inf, NaN, 1e-5, -2.5, 1)
// expect: u0[17] = 1.0 65504.0 0x33800000 -inf   (f16tof32 of 0x3c00, 0x7bff, 0x0001, 0xfc00)

StructuredBuffer<float> input : register(t0);
StructuredBuffer<uint> bits : register(t1);
RWByteAddressBuffer output : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float big = input[0], neg = input[1], nan = input[2];
    output.Store(0, (uint)(int)big);
    output.Store(4, (uint)(int)neg);
    output.Store(8, (uint)(int)nan);
    output.Store(12, (uint)(int)(-big));
    output.Store(16, (uint)input[10]);
    output.Store(20, (uint)input[11]);
    output.Store(24, (uint)input[12]);
    output.Store(28, asuint((float)(int)bits[0]));
    output.Store(32, asuint((float)bits[1]));
    output.Store(36, f32tof16(input[3]));
    output.Store(40, f32tof16(input[4]));
    output.Store(44, f32tof16(input[5]));
    output.Store(48, f32tof16(input[6]));
    output.Store(52, f32tof16(nan));
    output.Store(56, f32tof16(input[7]));
    output.Store(60, f32tof16(input[8]));
    output.Store(64, f32tof16(input[9]));
    output.Store(68, asuint(f16tof32(bits[2])));
    output.Store(72, asuint(f16tof32(bits[3])));
    output.Store(76, asuint(f16tof32(bits[4])));
    output.Store(80, asuint(f16tof32(bits[5])));
}
