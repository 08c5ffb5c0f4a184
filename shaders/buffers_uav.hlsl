// build: cs_5_0 main
//
// Buffers and UAVs: typed, raw and structured loads and stores, every atomic and interlocked form, a typed texture UAV, and device-
// and group-wide barriers. (vkd3d's HLSL has no Append/ConsumeStructuredBuffer,
// globallycoherent, IncrementCounter or RWByteAddressBuffer.Interlocked*; the corpora
// cover those.)

struct Item
{
    float4 value;
    uint id;
    uint flags;
};

Buffer<float4> typed_in : register(t0);
ByteAddressBuffer raw_in : register(t1);
StructuredBuffer<Item> items_in : register(t2);
RWBuffer<uint> typed_out : register(u0);
RWByteAddressBuffer raw_out : register(u1);
RWStructuredBuffer<Item> items_out : register(u2);
RWTexture2D<float4> image : register(u5);
RWStructuredBuffer<uint> counters : register(u6);
RWTexture2D<uint> atomics : register(u7);

groupshared uint group_total;

[numthreads(16, 4, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 tid : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        group_total = 0;
    GroupMemoryBarrierWithGroupSync();
    uint old;
    InterlockedAdd(group_total, id.x, old);
    InterlockedMax(group_total, old);
    float4 t = typed_in.Load(id.x);
    uint4 raw = raw_in.Load4(id.x * 16);
    uint2 raw2 = raw_in.Load2(id.y * 8);
    Item item = items_in[id.x];
    item.value += t + (float4)raw;
    item.id = raw2.x + raw2.y;
    items_out[id.x] = item;
    raw_out.Store4(id.x * 16, raw + 1);
    raw_out.Store(id.y * 4, raw2.x);
    typed_out[id.x] = (uint)t.x;
    uint prev;
    InterlockedAdd(typed_out[id.y], 2, prev);
    InterlockedMin(counters[1], prev);
    InterlockedMax(counters[2], prev, prev);
    InterlockedAnd(atomics[id.xy], prev);
    InterlockedOr(atomics[id.yx], prev, prev);
    InterlockedXor(typed_out[0], prev);
    InterlockedCompareStore(counters[3], 0, prev);
    uint exchanged;
    InterlockedExchange(atomics[tid.xy], id.x, exchanged);
    InterlockedCompareExchange(counters[4], exchanged, id.y, prev);
    InterlockedAdd(typed_out[1], prev);
    uint slot = counters[5];
    image[id.xy] = float4(t.xy, (float)slot, 1.0);
    AllMemoryBarrierWithGroupSync();
    DeviceMemoryBarrier();
    image[tid.xy] += image[id.xy + 1];
}
