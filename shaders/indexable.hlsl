// build: cs_5_0 main
// build: cs_4_0 main
//
// Dynamic indexing: a local array in indexable temps (x#), a static constant table in
// the immediate constant buffer (icb), and a dynamically indexed constant buffer.

static const float4 table[6] =
{
    float4(1, 0, 0, 0), float4(0, 1, 0, 0), float4(0, 0, 1, 0),
    float4(0, 0, 0, 1), float4(2, 1, -1, 1), float4(0.5, 0.25, 0.125, 3),
};

cbuffer Constants : register(b0)
{
    float4 weights[8];
    uint index;
};

RWStructuredBuffer<float4> output : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 local[5];
    for (uint i = 0; i < 5; ++i)
        local[i] = weights[(i + id.x) & 7];
    local[id.x % 5] += table[index % 6];
    output[id.x] = local[(id.x + index) % 5] + table[id.x % 6] + weights[index & 7];
}
