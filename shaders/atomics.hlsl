// build: cs_5_0 main
// dispatch: 1 1 1
// resource: u0 structured stride=4 size=72 = 0 1000 0 0xffffffff 0 0 0 0
// resource: u1 typed format=R32_UINT elements=4
// resource: u2 texture2d format=R32_UINT width=4 height=4
// resource: u3 structured stride=4 size=8 = 0 -100
//
// Atomics whose results do not depend on the order the 16 threads run in: add, min,
// max, and, or, xor on a structured buffer (unsigned and signed), add on a typed buffer,
// or and max on a 2D texture, exchange (the final value plus the sum of the values
// replaced is 1 + … + 16 whatever the order), compare-exchange (exactly one thread
// swaps 0 out), compare-store, add returning the old value (the old values are 0 … 15,
// summing to 120), and add and min on group shared memory.
//
// expect: u0[0] = 136 85 45 0xffff0000 0x00ffff00 0x0000ffff       (add, min, max, and, or, xor)
// expect: u0[10] = 136 1 5 16 120 120 0                            (exchange check, one swap, compare-store, counter, old values, shared add, shared min)
// expect: u1[0] = 4 4 4 4
// expect: u2[0] = 7 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
// expect: u3[0] = -8 0

RWStructuredBuffer<uint> words : register(u0);
RWBuffer<uint> typed : register(u1);
RWTexture2D<uint> image : register(u2);
RWStructuredBuffer<int> signed_words : register(u3);

groupshared uint shared_sum;
groupshared uint shared_min;

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    if (t == 0)
    {
        shared_sum = 0;
        shared_min = 0xffffffff;
    }
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(words[0], t + 1);
    InterlockedMin(words[1], 100 - t);
    InterlockedMax(words[2], t * 3);
    InterlockedAnd(words[3], ~(1u << t));
    InterlockedOr(words[4], 1u << (t + 8));
    InterlockedXor(words[5], 1u << t);
    uint old;
    InterlockedExchange(words[6], t + 1, old);
    InterlockedAdd(words[8], old);
    uint orig;
    InterlockedCompareExchange(words[7], 0, t + 1, orig);
    InterlockedAdd(words[11], orig == 0 ? 1u : 0u);
    InterlockedCompareStore(words[12], 0, 5);
    uint prev;
    InterlockedAdd(words[13], 1, prev);
    InterlockedAdd(words[14], prev);
    InterlockedAdd(typed[t & 3], 1);
    InterlockedOr(image[uint2(t & 3, t >> 2)], t);
    InterlockedMax(image[uint2(0, 0)], 7);
    InterlockedMin(signed_words[0], (int)t - 8);
    InterlockedMax(signed_words[1], -(int)t);
    InterlockedAdd(shared_sum, t);
    uint before;
    InterlockedMin(shared_min, t, before);
    AllMemoryBarrierWithGroupSync();
    if (t == 0)
    {
        words[10] = words[6] + words[8];
        words[15] = shared_sum;
        words[16] = shared_min;
    }
}
