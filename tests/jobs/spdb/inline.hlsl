// The program tests/jobs/spdb/inline.toml wraps with a hand-written SPDB part holding an
// inline site for `spread` (src/debug/hlsl/tests/spdb_inline.rs): compiled with
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p cs_5_0 -o inline_plain.cs_5_0.dxbc inline.hlsl
RWByteAddressBuffer output : register(u0);

float2 spread(float v)
{
    float twice = v * 2.0;
    return float2(twice, v + 1.0);
}

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float x = (float)id.x;
    float2 p = spread(x);
    float s = p.x + p.y;
    output.Store(id.x * 4, asuint(s));
}
