// The program tests/jobs/spdb/ wraps with hand-written SPDB parts
// (src/debug/hlsl/tests/spdb.rs): compiled with
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p cs_5_0 -o plain.cs_5_0.dxbc shader.hlsl
RWByteAddressBuffer output : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float x = (float)id.x;
    float2 p = float2(x * 2.0, x + 1.0);
    float s = p.x + p.y;
    output.Store(id.x * 4, asuint(s));
}
