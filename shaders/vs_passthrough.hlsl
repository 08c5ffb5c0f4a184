// build: vs_5_0 main
// build: vs_4_0 main
//
// A passthrough vertex program: position, texture coordinates and colour go out
// unchanged, and SV_VertexID and SV_InstanceID come out as a nointerpolation uint2
// (tests/all/lower_dxbc_stage.rs feeds it eight vertices and checks every output word).

struct In
{
    float4 pos : POSITION;
    float2 uv : TEXCOORD0;
    float4 color : COLOR0;
    uint vertex_id : SV_VertexID;
    uint instance_id : SV_InstanceID;
};

struct Out
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    float4 color : COLOR0;
    nointerpolation uint2 ids : TEXCOORD1;
};

Out main(In i)
{
    Out o;
    o.pos = i.pos;
    o.uv = i.uv;
    o.color = i.color;
    o.ids = uint2(i.vertex_id, i.instance_id);
    return o;
}
