// The slices of a texture array side by side (examples/lists/render_target_array.toml):
// each pixel of a full-screen draw loads texel (x mod 64, y) of slice x / 64.
// build: ps_5_0 ps_main array_composite
Texture2DArray<float4> layers : register(t0);

float4 ps_main(float4 pos : SV_Position) : SV_Target
{
    uint2 p = uint2(pos.xy);
    return layers.Load(int4(p.x % 64, p.y, p.x / 64, 0));
}
