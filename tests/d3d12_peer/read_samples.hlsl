// Every sample of a multisampled texture into a buffer: a copy cannot read a
// multisampled resource back, so plans load its samples with these programs. Sample s
// of texel (x, y) goes to bytes 16 × ((s × height + y) × width + x) of u0, the four
// components as 32-bit words: the layout dxlane keeps samples in, so a test compares
// them in place.
// build: cs_5_0 read_uint read_samples_uint
// build: cs_5_0 read_float read_samples_float
// read_uint takes a UINT view (the texture created TYPELESS), so the words are the
// stored bits; read_float takes a FLOAT or UNORM view (depth planes have no UINT view)
// and stores the bits of what the view returns.
Texture2DMS<uint4> samples_uint : register(t0);
Texture2DMS<float4> samples_float : register(t0);
RWByteAddressBuffer words : register(u0);

[numthreads(8, 8, 1)]
void read_uint(uint3 id : SV_DispatchThreadID)
{
    uint w, h, n;
    samples_uint.GetDimensions(w, h, n);
    if (id.x >= w || id.y >= h)
        return;
    for (uint s = 0; s < n; ++s)
        words.Store4(((s * h + id.y) * w + id.x) * 16, samples_uint.Load(int2(id.xy), s));
}

[numthreads(8, 8, 1)]
void read_float(uint3 id : SV_DispatchThreadID)
{
    uint w, h, n;
    samples_float.GetDimensions(w, h, n);
    if (id.x >= w || id.y >= h)
        return;
    for (uint s = 0; s < n; ++s)
        words.Store4(((s * h + id.y) * w + id.x) * 16, asuint(samples_float.Load(int2(id.xy), s)));
}
