// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 structured stride=4 = 7 0xfffffffd 0x80000000 0 37 0xf0f0f0f0 5 0xffffffff
// resource: u0 raw size=136
//
// Integer and bit instructions on values read from a buffer: iadd, ineg, imul, imad,
// udiv (quotient and remainder; by zero both are 0xffffffff), imin/imax/umin/umax,
// shifts (the count is masked to 5 bits: 37 shifts by 5, 33 by 1), and/or/xor/not,
// countbits, firstbit_hi/lo/shi (0 gives 0xffffffff), signed and unsigned comparisons,
// and signed division as vkd3d expands it (udiv of the magnitudes, multi-component
// imax/ineg with overlapping swizzles). Inputs: a = 7, b = -3, s = 0x80000000, z = 0,
// e = 37, f = 0xf0f0f0f0, g = 5, m = 0xffffffff.
//
// expect: u0[0] = 4 3 -21 46                   (a+b, -b, a*b, mad(a, a, b))
// expect: u0[4] = 5 2 0xffffffff 0xffffffff    (e/a, e%a, e/0, e%0)
// expect: u0[8] = -3 7 7 0xfffffffd            (imin, imax, umin, umax of a, b)
// expect: u0[12] = 224 -2 1                    (a << 37, b >> 33, s >> 31)
// expect: u0[15] = 0 0xf0f0f0f5 0x0f0f0f0f 0xfffffff8  (f&g, f|g, f^m, ~a)
// expect: u0[19] = 16 5 0 1 0xffffffff 0xffffffff  (countbits(f), firstbithigh(e), firstbitlow(e), firstbithigh(b), of 0)
// expect: u0[25] = 0 1 1 0 1 1                 (a<b signed, unsigned, a==7, b>=a signed, unsigned, a!=g)
// expect: u0[31] = 0 -3                        (b / a, b % a, signed)

StructuredBuffer<uint> input : register(t0);
RWByteAddressBuffer output : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint a = input[0], b = input[1], s = input[2], z = input[3];
    uint e = input[4], f = input[5], g = input[6], m = input[7];
    int ia = (int)a, ib = (int)b;
    output.Store(0, (uint)(ia + ib));
    output.Store(4, (uint)(-ib));
    output.Store(8, (uint)(ia * ib));
    output.Store(12, (uint)mad(ia, ia, ib));
    output.Store(16, e / a);
    output.Store(20, e % a);
    output.Store(24, e / z);
    output.Store(28, e % z);
    output.Store(32, (uint)min(ia, ib));
    output.Store(36, (uint)max(ia, ib));
    output.Store(40, min(a, b));
    output.Store(44, max(a, b));
    output.Store(48, a << e);
    output.Store(52, (uint)(ib >> (e - 4)));
    output.Store(56, s >> (e - 6));
    output.Store(60, f & g);
    output.Store(64, f | g);
    output.Store(68, f ^ m);
    output.Store(72, ~a);
    output.Store(76, countbits(f));
    output.Store(80, firstbithigh(e));
    output.Store(84, firstbitlow(e));
    output.Store(88, firstbithigh(ib));
    output.Store(92, firstbithigh(z));
    output.Store(96, firstbitlow(z));
    output.Store(100, ia < ib ? 1u : 0u);
    output.Store(104, a < b ? 1u : 0u);
    output.Store(108, a == 7 ? 1u : 0u);
    output.Store(112, ib >= ia ? 1u : 0u);
    output.Store(116, b >= a ? 1u : 0u);
    output.Store(120, a != g ? 1u : 0u);
    output.Store(124, (uint)(ib / ia));
    output.Store(128, (uint)(ib % ia));
}
