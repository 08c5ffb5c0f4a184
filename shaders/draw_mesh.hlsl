// A lit, textured, depth-tested mesh: positions, normals and texture coordinates from a
// vertex buffer, a transform and a light from a constant buffer shared by both stages.
// build: vs_5_0 vs_main draw_mesh
// build: ps_5_0 ps_main draw_mesh
// The examples run the compiled programs; the IR twins (.vs.ir, .ps.ir: the same
// programs in the IR's text form) draw the same images (tests/all/draw.rs).
cbuffer Scene : register(b0)
{
    float4 clip_row[4];   // clip = (dot(clip_row[0], p), …, dot(clip_row[3], p))
    float4 normal_row[3]; // world normal = (dot(normal_row[0].xyz, n), …)
    float4 light;         // xyz: direction towards the light (unit), w: ambient
};

Texture2D albedo : register(t0);
SamplerState linear_wrap : register(s0);

struct VsIn {
    float3 pos : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD;
};

struct VsOut {
    float4 pos : SV_Position;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD;
};

VsOut vs_main(VsIn i)
{
    float4 p = float4(i.pos, 1.0);
    VsOut o;
    o.pos = float4(dot(clip_row[0], p), dot(clip_row[1], p), dot(clip_row[2], p), dot(clip_row[3], p));
    o.normal = float3(dot(normal_row[0].xyz, i.normal), dot(normal_row[1].xyz, i.normal), dot(normal_row[2].xyz, i.normal));
    o.uv = i.uv;
    return o;
}

float4 ps_main(VsOut i) : SV_Target
{
    float3 n = i.normal * rsqrt(dot(i.normal, i.normal));
    float diffuse = max(dot(n, light.xyz), 0.0);
    float shade = light.w + (1.0 - light.w) * diffuse;
    float4 c = albedo.Sample(linear_wrap, i.uv);
    return float4(c.rgb * shade, 1.0);
}
