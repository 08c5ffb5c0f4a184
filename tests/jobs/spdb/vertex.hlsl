// The vertex program tests/jobs/spdb/vertex.toml wraps with a hand-written SPDB part
// (src/debug/hlsl/tests/spdb_vertex.rs): compiled with
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p vs_5_0 -o vertex_plain.vs_5_0.dxbc vertex.hlsl
struct VsOut
{
    float4 pos : SV_Position;
    float4 colour : COLOR;
};

VsOut main(float2 p : POSITION, float4 c : COLOR)
{
    float a[3] = { p.x, p.y, c.x };
    float k = a[(uint)(c.w * 2.0) % 3];
    float2x2 m = float2x2(p.x, p.y, c.y, c.z);
    VsOut o;
    o.pos = float4(p, 0.0, 1.0);
    o.colour = float4(mul(m, float2(k, 1.0)), c.z, 1.0);
    return o;
}
