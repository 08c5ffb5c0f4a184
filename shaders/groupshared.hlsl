// build: cs_5_0 main
// dispatch: 2 1 1
// resource: u0 structured stride=4 size=8
// resource: u1 structured stride=16 size=2048
//
// Group shared memory and barriers: a tree reduction over a 64-thread group (a loop of
// halving steps, each ending at a group barrier), and a float4 array each thread writes
// and then reads at its neighbour's slot after a barrier. Thread t of group g holds
// 64g + t + 1, so the group sums are 1 + … + 64 = 2080 and 65 + … + 128 = 6176; thread t
// reads slot (t + 1) & 63, which holds (t', 2t', 3t', 4t') for t' = (t + 1) & 63.
//
// expect: u0[0] = 2080 6176
// expect: u1[0] = 1.0 2.0 3.0 4.0 2.0 4.0 6.0 8.0        (threads 0 and 1)
// expect: u1[252] = 0.0 0.0 0.0 0.0 1.0 2.0 3.0 4.0     (thread 63 of group 0, thread 0 of group 1)

RWStructuredBuffer<uint> sums : register(u0);
RWStructuredBuffer<float4> neighbours : register(u1);

groupshared uint partial[64];
groupshared float4 cache[64];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint gi : SV_GroupIndex)
{
    partial[gi] = id.x + 1;
    float t = (float)gi;
    cache[gi] = float4(t, 2.0 * t, 3.0 * t, 4.0 * t);
    GroupMemoryBarrierWithGroupSync();
    neighbours[id.x] = cache[(gi + 1) & 63];
    [loop] for (uint step = 32; step > 0; step >>= 1)
    {
        if (gi < step)
            partial[gi] += partial[gi + step];
        GroupMemoryBarrierWithGroupSync();
    }
    if (gi == 0)
        sums[group.x] = partial[0];
}
