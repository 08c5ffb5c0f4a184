// build: cs_5_0 main histogram_atomics
//
// A histogram with atomics and an append list. Each thread hashes its index to a byte
// (Knuth's multiplicative hash, the top 8 bits of index × 2654435761), counts it in one
// of 16 bins of a group-shared histogram (InterlockedAdd), and after a barrier the group
// adds its bins to the global histogram. Bytes of 240 and above are also appended to a
// list through the list's UAV counter.
//
// vkd3d's HLSL has no IncrementCounter or AppendStructuredBuffer, so the slot comes from
// `InterlockedAdd(list[0], 1, slot)` in histogram_atomics.cs_5_0.dxbc, and
// shaders/add_counter.py rewrites that one instruction into `imm_atomic_alloc` (what fxc
// emits for IncrementCounter) and marks u1 as having a counter, giving
// histogram.cs_5_0.dxbc:
//
//     python3 shaders/add_counter.py shaders/histogram_atomics.cs_5_0.dxbc \
//         shaders/histogram.cs_5_0.dxbc
//
// examples/histogram.toml dispatches 16 groups (1024 values); u1's counter ends at 64,
// and u1[0..64] holds the 64 bytes >= 240 in the order the threads appended them (which
// depends on how groups were scheduled):
// expect: u0[0] = 64 65 64 65 63 64 64 63 65 64 64 64 64 64 63 64

RWStructuredBuffer<uint> histogram : register(u0);
RWStructuredBuffer<uint> list : register(u1);

groupshared uint bins[16];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi < 16)
        bins[gi] = 0;
    GroupMemoryBarrierWithGroupSync();
    uint v = (id.x * 2654435761u) >> 24;
    InterlockedAdd(bins[v >> 4], 1);
    if (v >= 240)
    {
        uint slot;
        InterlockedAdd(list[0], 1, slot);
        list[slot] = v;
    }
    GroupMemoryBarrierWithGroupSync();
    if (gi < 16)
        InterlockedAdd(histogram[gi], bins[gi]);
}
