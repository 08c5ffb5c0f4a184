// build: cs_5_0 main
//
// Inclusive prefix sums within each group of 64 values, through group-shared memory with
// a barrier after every step (Hillis–Steele: log2(64) = 6 steps, ping-ponging between
// two halves of one array), and each group's total.
//
// examples/prefix_sum.toml runs it over input[i] = i for 256 values (4 groups);
// u0[64g + j] is the sum of input[64g] … input[64g + j]:
// expect: u0[0] = 0 1 3 6 10 15
// expect: u0[64] = 64 129 195
// expect: u1[0] = 2016 6112 10208 14304

StructuredBuffer<uint> input : register(t0);
RWStructuredBuffer<uint> sums : register(u0);
RWStructuredBuffer<uint> totals : register(u1);

groupshared uint scan[128];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex, uint3 group : SV_GroupID)
{
    scan[gi] = input[id.x];
    GroupMemoryBarrierWithGroupSync();
    uint src = 0;
    for (uint offset = 1; offset < 64; offset *= 2)
    {
        uint v = scan[src + gi];
        if (gi >= offset)
            v += scan[src + gi - offset];
        scan[64 - src + gi] = v;
        GroupMemoryBarrierWithGroupSync();
        src = 64 - src;
    }
    sums[id.x] = scan[src + gi];
    if (gi == 63)
        totals[group.x] = scan[src + gi];
}
