// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 texture2d format=R8G8B8A8_UNORM width=8 height=4 mips=3
// resource: t1 texture2darray format=R32_FLOAT width=4 height=2 array=5
// resource: t2 texture3d format=R32_UINT width=4 height=4 depth=2
// resource: u0 raw size=96
//
// Size queries: `resinfo` of textures (width, height, depth or array size, mip count)
// as integers and as floats, at a mip level and past the last one (dimensions 0, the mip
// count unchanged). (vkd3d cannot query buffers or UAV textures; `bufinfo` is tested
// on hand-assembled programs.)
//
// expect: u0[0] = 4 2 3                    (t0 at mip 1: width, height, mips)
// expect: u0[3] = 0 0 3                    (t0 at mip 5)
// expect: u0[6] = 4.0 2.0 3.0              (t0 at mip 1, as floats)
// expect: u0[9] = 4 2 5                    (t1: width, height, array size)
// expect: u0[12] = 4 4 2                   (t2)

Texture2D<float4> image : register(t0);
Texture2DArray<float> layers : register(t1);
Texture3D<uint> volume : register(t2);
RWByteAddressBuffer output : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint w, h, d, levels;
    image.GetDimensions(1 + id.x, w, h, levels);
    output.Store3(0, uint3(w, h, levels));
    image.GetDimensions(5 + id.x, w, h, levels);
    output.Store3(12, uint3(w, h, levels));
    float fw, fh, flevels;
    image.GetDimensions(1 + id.x, fw, fh, flevels);
    output.Store3(24, asuint(float3(fw, fh, flevels)));
    layers.GetDimensions(w, h, d);
    output.Store3(36, uint3(w, h, d));
    volume.GetDimensions(w, h, d);
    output.Store3(48, uint3(w, h, d));
}
