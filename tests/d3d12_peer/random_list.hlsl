// The compute program of the random command lists: it writes vertices a later draw of
// the list reads as its vertex buffer. Each vertex is random_draw.hlsl's input (float4
// position, float4 colour, uint triangle number: 36 bytes); thread i copies vertex i of
// t0 to u0 with x multiplied by `flip` (±1, so positions stay on the 1/16-pixel grid),
// the colour's channels reversed and `id_offset` added to the triangle number.
// build: cs_5_0 main random_list
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer dst : register(u0);

cbuffer constants : register(b0)
{
    uint count;
    uint id_offset;
    float flip;
};

[numthreads(32, 1, 1)]
void main(uint3 t : SV_DispatchThreadID)
{
    if (t.x >= count)
        return;
    uint at = t.x * 36;
    float4 p = asfloat(src.Load4(at));
    p.x *= flip;
    dst.Store4(at, asuint(p));
    dst.Store4(at + 16, src.Load4(at + 16).wzyx);
    dst.Store(at + 32, src.Load(at + 32) + id_offset);
}
