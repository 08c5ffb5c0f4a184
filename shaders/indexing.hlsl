// build: cs_5_0 main
// build: cs_4_0 main
// dispatch: 1 1 1
// resource: b0 cbuffer = 1.0 2.0 3.0 4.0 11.0 12.0 13.0 14.0 21.0 22.0 23.0 24.0 31.0 32.0 33.0 34.0 4
// resource: u0 structured stride=16 size=64
//
// Dynamic indexing: a local array (indexable temporary x#, written and read at per-thread
// indices), a static table (vkd3d also keeps it in an indexable temporary), and a
// constant buffer read at a per-thread row. weights[k] = (10k + 1, …, 10k + 4), index = 4.
// Thread x: local[i] = weights[(i + x) & 3]; local[x] += table[(4 + x) % 3]; the result is
// local[(x + 4) & 3] + weights[4 & 3].wzyx = weights[2x & 3] + table[(x + 1) % 3] + (4, 3, 2, 1).
//
// expect: u0[0] = 10.0 11.0 12.0 13.0 34.0 35.0 36.0 37.0 6.0 7.0 8.0 9.0 30.0 31.0 32.0 33.0

static const float4 table[3] =
{
    float4(1, 2, 3, 4), float4(5, 6, 7, 8), float4(9, 10, 11, 12),
};

cbuffer Constants : register(b0)
{
    float4 weights[4];
    uint index;
};

RWStructuredBuffer<float4> output : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 local[4];
    for (uint i = 0; i < 4; ++i)
        local[i] = weights[(i + id.x) & 3];
    local[id.x] += table[(index + id.x) % 3];
    output[id.x] = local[(id.x + index) & 3] + weights[index & 3].wzyx;
}
