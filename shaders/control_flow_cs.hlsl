// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 structured stride=4 = 6 4
// resource: u0 structured stride=4 size=32
//
// Control flow in compute, with loop bounds read from a buffer so the loops stay loops:
// a switch with shared case labels, a case that returns early (thread 5 writes
// nothing), a loop that skips one iteration per thread (`continue`), a nested loop left
// by `break` when j > i, and an outer `break` once the sum passes 20. Per thread x:
// v = 10, 21, 22 for x = 0, 1, 2, else 99; the inner loop adds 1 + … + (min(i, 3) + 1)
// for each i < 6 other than x until the total exceeds 20; the result is v * 100 + total.
// For x = 0: 3, 9, 19, 29 (i = 1..4) → 1029; x = 1: 1, 7, 17, 27 → 2127; x = 2: 1, 4,
// 14, 24 → 2224; x = 3: 1, 4, 10, 20, 30 (i = 4 adds 10 to reach 20, i = 5 to 30) →
// 9930; x = 4, 6, 7: 1, 4, 10, 20, 30 → 9930.
//
// expect: u0[0] = 1029 2127 2224 9930 9930 0 9930 9930

StructuredBuffer<uint> limits : register(t0);
RWStructuredBuffer<uint> result : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = 0;
    switch (id.x)
    {
    case 0:
        v = 10;
        break;
    case 1:
    case 2:
        v = 20 + id.x;
        break;
    case 5:
        return;
    default:
        v = 99;
        break;
    }
    uint n = limits[0];
    uint m = limits[1];
    uint acc = 0;
    [loop] for (uint i = 0; i < n; ++i)
    {
        if (i == id.x)
            continue;
        [loop] for (uint j = 0; j < m; ++j)
        {
            if (j > i)
                break;
            acc += j + 1;
        }
        if (acc > 20)
            break;
    }
    result[id.x] = v * 100 + acc;
}
