// build: cs_5_0 main
//
// A first compute program: each thread doubles its index, accumulates a small sum
// through group-shared memory and writes typed, raw and structured results.

cbuffer Params : register(b0)
{
    uint count;
    float scale;
};

RWStructuredBuffer<uint> results : register(u0);
RWByteAddressBuffer raw : register(u1);
RWBuffer<float> floats : register(u2);

groupshared uint shared_sum[64];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex, uint3 group : SV_GroupID)
{
    shared_sum[gi] = id.x;
    GroupMemoryBarrierWithGroupSync();
    uint total = 0;
    for (uint i = 0; i < 4; ++i)
        total += shared_sum[(gi + i) & 63];
    if (id.x < count)
    {
        results[id.x] = id.x * 2;
        raw.Store(id.x * 4, total + group.x);
        floats[id.x] = (float)total * scale;
    }
}
