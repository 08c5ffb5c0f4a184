// build: ps_5_0 main
//
// Pixel-program family: bit operations — and/or/xor/not, shifts (logical and
// arithmetic; counts use their low 5 bits, so 36 shifts by 4: D3D11.3 `ishl`),
// countbits, firstbithigh (DXBC firstbit_hi counts from the MSB; HLSL's index from the
// LSB is 31 - it, and firstbithigh(0) = 0xffffffff), firstbitlow, and field extraction by
// shift and mask. Shader Model 5 only (countbits and firstbit need it).
//
// The 2×2 quad at (2, 4): (x, y) = (2, 4), (3, 4), (2, 5), (3, 5) (ftou of SV_Position).
// quad: 2 4
// resource: b0 cbuffer = 0xf0f0f0f0 0x12345678 0x80000001 36
// o0 = (m.x & m.y, m.x | x, m.y ^ m.x, ~m.x)
// expect: o0 at 2 4 = 0x10305070 0xf0f0f0f2 0xe2c4a688 0x0f0f0f0f
// expect: o0 at 3 4 = 0x10305070 0xf0f0f0f3 0xe2c4a688 0x0f0f0f0f
// expect: o0 at 2 5 = 0x10305070 0xf0f0f0f2 0xe2c4a688 0x0f0f0f0f
// expect: o0 at 3 5 = 0x10305070 0xf0f0f0f3 0xe2c4a688 0x0f0f0f0f
// o1 = (m.y << x, m.y >> y, int(0x80000001) >> 1, m.y << 36)
// expect: o1 at 2 4 = 0x48d159e0 0x01234567 0xc0000000 0x23456780
// expect: o1 at 3 4 = 0x91a2b3c0 0x01234567 0xc0000000 0x23456780
// expect: o1 at 2 5 = 0x48d159e0 0x0091a2b3 0xc0000000 0x23456780
// expect: o1 at 3 5 = 0x91a2b3c0 0x0091a2b3 0xc0000000 0x23456780
// o2 = (countbits(0x12345678), firstbithigh(0x12345678), firstbitlow(0xf0f0f0f0), firstbithigh(x - 2))
// expect: o2 at 2 4 = 13 28 4 0xffffffff
// expect: o2 at 3 4 = 13 28 4 0
// expect: o2 at 2 5 = 13 28 4 0xffffffff
// expect: o2 at 3 5 = 13 28 4 0
// o3 = ((m.y >> 8) & 0xff, (m.y >> 4x) & 0xf, m.z >> 31, int(m.z << 31) >> 31)
// expect: o3 at 2 4 = 0x56 6 1 0xffffffff
// expect: o3 at 3 4 = 0x56 5 1 0xffffffff
// expect: o3 at 2 5 = 0x56 6 1 0xffffffff
// expect: o3 at 3 5 = 0x56 5 1 0xffffffff

cbuffer Constants : register(b0)
{
    uint4 m;
};

struct Out
{
    uint4 o0 : SV_Target0;
    uint4 o1 : SV_Target1;
    uint4 o2 : SV_Target2;
    uint4 o3 : SV_Target3;
};

Out main(float4 pos : SV_Position)
{
    uint x = (uint)pos.x;
    uint y = (uint)pos.y;
    Out o;
    o.o0 = uint4(m.x & m.y, m.x | x, m.y ^ m.x, ~m.x);
    o.o1 = uint4(m.y << x, m.y >> y, (uint)((int)m.z >> 1), m.y << m.w);
    o.o2 = uint4(countbits(m.y), firstbithigh(m.y), firstbitlow(m.x), firstbithigh(x - 2));
    o.o3 = uint4((m.y >> 8) & 0xffu, (m.y >> (x * 4)) & 0xfu, m.z >> 31, (uint)((int)(m.z << 31) >> 31));
    return o;
}
