// build: vs_5_0 main
// build: vs_4_0 main
// build: vs_4_1 main
//
// A vertex program: a matrix transform from a constant buffer, per-vertex and
// per-instance system values, clip distances and several outputs.

cbuffer Camera : register(b0)
{
    float4x4 view_projection;
    float4 light;
};

cbuffer Object : register(b1)
{
    float4x4 world;
    float4 tint[4];
};

struct In
{
    float3 pos : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
    uint vertex_id : SV_VertexID;
    uint instance_id : SV_InstanceID;
};

struct Out
{
    float4 pos : SV_Position;
    float4 color : COLOR0;
    float2 uv : TEXCOORD0;
    float clip : SV_ClipDistance0;
};

Out main(In input)
{
    Out o;
    float4 world_pos = mul(world, float4(input.pos, 1.0));
    o.pos = mul(view_projection, world_pos);
    float3 n = normalize(mul((float3x3)world, input.normal));
    float lit = saturate(dot(n, light.xyz));
    o.color = tint[input.instance_id & 3] * lit;
    o.uv = input.uv + (float)(input.vertex_id % 4) * 0.25;
    o.clip = world_pos.y;
    return o;
}
