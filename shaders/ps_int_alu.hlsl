// build: ps_5_0 main
// build: ps_4_0 main
//
// Pixel-program family: 32-bit integer arithmetic — wrapping add, sub and mul, imad,
// signed division and remainder (which vkd3d builds from udiv on magnitudes), unsigned
// division and remainder including by zero (0xffffffff for both: D3D11.3 `udiv`),
// signed and unsigned min/max and compares, abs and negation of INT_MIN. Values come
// from SV_Position truncated to integers (ftoi) and the constant buffer.
//
// The 2×2 quad at (2, 4): (ix, iy) = (2, 4), (3, 4), (2, 5), (3, 5).
// quad: 2 4
// resource: b0 cbuffer = -7 3 100 0x80000000 0xffffffff 5 0 16
//   (i = (-7, 3, 100, INT_MIN), u = (0xffffffff, 5, 0, 16))
// o0 = (ix + i.x, iy * i.y, 100 / ix, 100 % (ix + 5))
// expect: o0 at 2 4 = 0xfffffffb 12 50 2
// expect: o0 at 3 4 = 0xfffffffc 12 33 4
// expect: o0 at 2 5 = 0xfffffffb 15 50 2
// expect: o0 at 3 5 = 0xfffffffc 15 33 4
// o1 = (5 / ix, 5 % iy, 0xffffffff / 0, 5 % 0)
// expect: o1 at 2 4 = 2 1 0xffffffff 0xffffffff
// expect: o1 at 3 4 = 1 1 0xffffffff 0xffffffff
// expect: o1 at 2 5 = 2 0 0xffffffff 0xffffffff
// expect: o1 at 3 5 = 1 0 0xffffffff 0xffffffff
// o2 = (imin(ix, -7), imax(iy, 3), umin(0xffffffff, 16), umax(ix, 5))
// expect: o2 at 2 4 = 0xfffffff9 4 16 5
// expect: o2 at 3 4 = 0xfffffff9 4 16 5
// expect: o2 at 2 5 = 0xfffffff9 5 16 5
// expect: o2 at 3 5 = 0xfffffff9 5 16 5
// o3 = (ix * iy + 3, ix < 3 ? 1 : 2, 0xfffffff9 <u 5, abs(-7))
// expect: o3 at 2 4 = 11 1 0 7
// expect: o3 at 3 4 = 15 2 0 7
// expect: o3 at 2 5 = 13 1 0 7
// expect: o3 at 3 5 = 18 2 0 7
// o4 = (INT_MIN - 1 (wraps), -INT_MIN = INT_MIN, 0xffffffff + 5, iy * 0xffffffff)
// expect: o4 at 2 4 = 0x7fffffff 0x80000000 4 0xfffffffc
// expect: o4 at 3 4 = 0x7fffffff 0x80000000 4 0xfffffffc
// expect: o4 at 2 5 = 0x7fffffff 0x80000000 4 0xfffffffb
// expect: o4 at 3 5 = 0x7fffffff 0x80000000 4 0xfffffffb

cbuffer Constants : register(b0)
{
    int4 i;
    uint4 u;
};

struct Out
{
    uint4 o0 : SV_Target0;
    uint4 o1 : SV_Target1;
    uint4 o2 : SV_Target2;
    uint4 o3 : SV_Target3;
    uint4 o4 : SV_Target4;
};

Out main(float4 pos : SV_Position)
{
    int ix = (int)pos.x;
    int iy = (int)pos.y;
    Out o;
    o.o0 = uint4(ix + i.x, iy * i.y, i.z / ix, i.z % (ix + 5));
    o.o1 = uint4(u.y / (uint)ix, u.y % (uint)iy, u.x / u.z, u.y % u.z);
    o.o2 = uint4(min(ix, i.x), max(iy, i.y), min(u.x, u.w), max((uint)ix, u.y));
    o.o3 = uint4(ix * iy + i.y, (ix < i.y) ? 1 : 2, (uint)i.x < u.y, abs(i.x));
    o.o4 = uint4(i.w - 1, -i.w, u.x + u.y, (uint)iy * u.x);
    return o;
}
