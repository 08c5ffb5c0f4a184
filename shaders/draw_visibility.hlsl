// One register, two resources: t0 is what the vertex program's root parameter binds in
// the vertex program and what the pixel program's binds in the pixel program
// (D3D12_SHADER_VISIBILITY_VERTEX / _PIXEL). A full-screen triangle from SV_VertexID;
// target 0 gets the vertex program's t0[0], target 1 the pixel program's.
// build: vs_5_0 vs_main draw_visibility
// build: ps_5_0 ps_main draw_visibility
Buffer<float4> data : register(t0);

struct VsOut {
    float4 pos : SV_Position;
    nointerpolation float4 seen : SEEN;
};

VsOut vs_main(uint id : SV_VertexID)
{
    VsOut o;
    float x = float(id & 1) * 4.0 - 1.0;
    float y = 1.0 - float(id & 2) * 2.0;
    o.pos = float4(x, y, 0.0, 1.0);
    o.seen = data[0];
    return o;
}

struct PsOut {
    float4 vertex : SV_Target0;
    float4 pixel : SV_Target1;
};

PsOut ps_main(VsOut i)
{
    PsOut o;
    o.vertex = i.seen;
    o.pixel = data[0];
    return o;
}
