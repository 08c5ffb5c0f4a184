// build: cs_5_0 main
//
// A conversion table: each thread converts one float to a half with f32tof16 (round
// toward zero, WARP's rule), and back with f16tof32.
//
// examples/f32tof16.toml feeds it edge values — 1 + 0x1fff × 2^-23, its negative,
// 65520, 1e10, -65520, 1e-5, the NaN 0x7fc00000, inf, -inf — and checks the halves WARP
// gives (observed: WARP through Direct3D 11 and 12 rounds f32tof16 toward zero):
// expect: u0[0] = 0x3c00 0xbc00 0x7bff 0x7bff 0xfbff 0xa7 0x7fff 0x7c00 0xfc00

StructuredBuffer<float> input : register(t0);
RWStructuredBuffer<uint> halves : register(u0);
RWStructuredBuffer<float> round_trip : register(u1);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint h = f32tof16(input[id.x]);
    halves[id.x] = h;
    round_trip[id.x] = f16tof32(h);
}
