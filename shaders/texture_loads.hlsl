// build: cs_5_0 main
// dispatch: 1 1 1
// resource: t0 texture2d format=R32_FLOAT width=4 height=4 mips=2 = 0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0 12.0 13.0 14.0 15.0 100.0 101.0 102.0 103.0
// resource: t1 texture2darray format=R32_UINT width=2 height=2 array=3 = 0 1 2 3 10 11 12 13 20 21 22 23
// resource: t2 texture3d format=R32_UINT width=2 height=2 depth=2 = 0 1 2 3 4 5 6 7
// resource: s0 sampler filter=point address=clamp
// resource: u0 raw size=64
//
// Texture reads in compute: integer loads (`ld`) of a 2D texture at mips 0 and 1, with
// an immediate texel offset, and past the edge (0); of a 2D array slice and of a 3D
// texture; point-sampled reads at an explicit level (`sample_l`, mips 0 and 1); and a
// gather of the red channel (`gather4`: the 2 x 2 texels around (0.5, 0.5), in D3D's
// order (left, bottom), (right, bottom), (right, top), (left, top)). Texel (x, y) of mip 0
// holds 4y + x, of mip 1 100 + 2y + x; slice s of the array 10s + 2y + x; the 3D texel
// 4z + 2y + x.
//
// expect: u0[0] = 9.0 103.0 7.0 0.0            (Load (1, 2, 0), (1, 1, 1), (0, 0, 0) offset (3, 1), (4, 0, 0))
// expect: u0[4] = 21 7                         (array Load (1, 0, 2), 3D Load (1, 1, 1))
// expect: u0[6] = 9.0 102.0                    (SampleLevel (0.375, 0.625) at 0 and 1)
// expect: u0[8] = 9.0 10.0 6.0 5.0             (GatherRed (0.5, 0.5))

Texture2D<float> image : register(t0);
Texture2DArray<uint> layers : register(t1);
Texture3D<uint> volume : register(t2);
SamplerState point_clamp : register(s0);
RWByteAddressBuffer output : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int z = (int)id.x;
    output.Store(0, asuint(image.Load(int3(1, 2, z))));
    output.Store(4, asuint(image.Load(int3(1, 1, z + 1))));
    output.Store(8, asuint(image.Load(int3(z, z, z), int2(3, 1))));
    output.Store(12, asuint(image.Load(int3(4 + z, 0, 0))));
    output.Store(16, layers.Load(int4(1, z, 2, 0)));
    output.Store(20, volume.Load(int4(1, 1, 1 + z, 0)));
    float2 uv = float2(0.375, 0.625) + (float)id.x;
    output.Store(24, asuint(image.SampleLevel(point_clamp, uv, 0)));
    output.Store(28, asuint(image.SampleLevel(point_clamp, uv, 1)));
    output.Store4(32, asuint(image.GatherRed(point_clamp, float2(0.5, 0.5) + (float)id.x)));
}
