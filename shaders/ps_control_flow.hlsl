// build: ps_5_0 main
// build: ps_4_0 main
//
// Pixel-program family: control flow whose lanes diverge within the quad — discard, an
// if/else with a loop inside, a loop with continue and a data-dependent break, a switch
// with a default, a while loop with a per-pixel trip count, and an if/else-if chain in a
// loop; every lane reconverges before the outputs. The bottom-right pixel discards and
// writes nothing.
//
// The 2×2 quad at (2, 4): (ix, iy) = (2, 4), (3, 4), (2, 5), (3, 5); n = 5, sel = 2,
// limit = 3.0.
// quad: 2 4
// resource: b0 cbuffer = 5 2 3.0
// a: p.x < 3 → 5 added ix times (10), else 20. sum: i from 0 below n + ix, skipping 2,
// until sum > 3 ix: 0 + 1 + 3 + 4 = 8 (> 6); 0 + 1 + 3 + 4 + 5 = 13 (> 9). s: ix + iy =
// 6 → 100, 7 → 200. k: ix added until ≥ iy: 4, 6, 6.
// bits: for j in 0..3, bit j when ix + j is odd, else when j ≥ iy - 3 bit 8 and j × 0x1000:
// (2, 4): bits 1, 3, then j = 2 adds 0x100 + 0x2000 → 0x210a; (3, 4): bits 0, 2, j = 1
// adds 0x100 + 0x1000, j = 3 adds 0x3000 → 0x4105; (2, 5): j = 2 adds 0x100 + 0x2000 →
// 0x210a.
// expect: o0 at 2 4 = 10.0 8.0 100.0 4.0
// expect: o0 at 3 4 = 20.0 13.0 200.0 6.0
// expect: o0 at 2 5 = 10.0 8.0 200.0 6.0
// expect: o1 at 2 4 = 0x210a 16 101 7
// expect: o1 at 3 4 = 0x4105 26 201 7
// expect: o1 at 2 5 = 0x210a 16 201 7
// expect: discarded at 3 5

cbuffer Constants : register(b0)
{
    int n;
    int sel;
    float limit;
};

struct Out
{
    float4 o0 : SV_Target0;
    uint4 o1 : SV_Target1;
};

Out main(float4 pos : SV_Position)
{
    int ix = (int)pos.x;
    int iy = (int)pos.y;
    if (ix == 3 && iy == 5)
        discard;
    float a = 0.0;
    if (pos.x < limit)
    {
        [loop]
        for (int t = 0; t < ix; ++t)
            a += 5.0;
    }
    else
    {
        a = 20.0;
    }
    int sum = 0;
    [loop]
    for (int i = 0; i < n + ix; ++i)
    {
        if (i == sel)
            continue;
        sum += i;
        if (sum > 3 * ix)
            break;
    }
    uint s;
    switch (ix + iy)
    {
    case 6:
        s = 100;
        break;
    case 7:
        s = 200;
        break;
    default:
        s = 300;
        break;
    }
    int k = 0;
    [loop]
    while (k < iy)
        k += ix;
    uint bits = 0;
    [loop]
    for (int j = 0; j < 4; ++j)
    {
        if (((ix + j) & 1) != 0)
        {
            bits |= 1u << j;
        }
        else if (j >= iy - 3)
        {
            bits |= 0x100u;
            [loop]
            for (int q = 0; q < j; ++q)
                bits += 0x1000u;
        }
    }
    Out o;
    o.o0 = float4(a, (float)sum, (float)s, (float)k);
    o.o1 = uint4(bits, (uint)sum * 2u, s + 1u, 7u);
    return o;
}
