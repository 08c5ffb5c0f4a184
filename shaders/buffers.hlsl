// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 typed format=R32G32B32A32_FLOAT elements=2 = 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0
// resource: t1 typed format=R8G8B8A8_UNORM elements=1 = 0xff003300
// resource: t2 raw size=32 = 10 11 12 13 14 15 16 17
// resource: t3 structured stride=16 size=32 = 1.5 2.5 3.5 7 4.5 5.5 6.5 8
// resource: u0 typed format=R32G32_FLOAT elements=2
// resource: u1 raw size=48
// resource: u2 structured stride=16 size=32
//
// Buffer loads and stores: typed SRV loads (R32G32B32A32_FLOAT; R8G8B8A8_UNORM reads
// 0x33 as 51/255 rounded to float, 0xff as 1.0), raw loads of 1 to 4 words at byte
// offsets, structured loads of a member at its byte offset and of an element past the
// end (0), a typed store of two components, raw stores of 2, 3 and 4 words, structured
// stores of single members, and a store past a structured buffer's end (dropped).
//
// expect: u0[0] = 6.0 8.0 0.0 0.2                 (t0[1].yw, t1[0].xy = (0, 51/255))
// expect: u1[0] = 11 12 13 14 15 10 11 12 13 16 17 0    (Load2(4), Load3(12), Load4(16) - 4, then words 6, 7 and one past the end)
// expect: u2[0] = 2.5 3.5 0.0 7 0 0 0 0              (t3[0].a.yz, 0, t3[0].b; t3[2] past the end reads 0)

struct Item
{
    float3 a;
    uint b;
};

Buffer<float4> floats : register(t0);
Buffer<float4> unorms : register(t1);
ByteAddressBuffer raw_in : register(t2);
StructuredBuffer<Item> items : register(t3);
RWBuffer<float2> pairs : register(u0);
RWByteAddressBuffer raw_out : register(u1);
RWStructuredBuffer<Item> items_out : register(u2);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 f = floats[id.x + 1];
    pairs[0] = f.yw;
    pairs[1] = unorms[id.x].xy;
    uint2 two = raw_in.Load2(4);
    uint3 three = raw_in.Load3(12);
    uint4 four = raw_in.Load4(16);
    raw_out.Store2(0, two);
    raw_out.Store3(8, three);
    raw_out.Store4(20, uint4(four.x - 4, four.yzw - 4));
    raw_out.Store3(36, uint3(four.zw, raw_in.Load(28 + id.x * 4 + 4)));
    Item it = items[id.x];
    Item past = items[id.x + 2];
    Item o;
    o.a = float3(it.a.yz, 0);
    o.b = it.b;
    items_out[0] = o;
    o.a = past.a;
    o.b = past.b;
    items_out[1] = o;
    items_out[id.x + 2] = it;
}
