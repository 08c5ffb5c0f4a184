// build: cs_4_0 main
// build: cs_4_1 main
//
// Compute on Shader Model 4: one raw UAV, structured input, group-shared memory.

StructuredBuffer<float4> input : register(t0);
RWByteAddressBuffer output : register(u0);

groupshared float4 cache[32];

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 tid : SV_GroupThreadID)
{
    cache[tid.x] = input[id.x];
    GroupMemoryBarrierWithGroupSync();
    float4 sum = cache[tid.x] + cache[(tid.x + 1) & 31];
    output.Store4(id.x * 16, asuint(sum));
}
