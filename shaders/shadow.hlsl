// A shadow-mapped scene (examples/lists/shadow.toml): a depth-only pass renders the
// scene from the light into a depth texture, then the lighting pass projects each pixel
// into the light's view and tests it against that depth with a comparison sampler.
// build: vs_5_0 vs_depth shadow_depth
// build: vs_5_0 vs_main shadow
// build: ps_5_0 ps_main shadow
cbuffer Scene : register(b0)
{
    float4 light_row[4];  // the light's clip space: (dot(light_row[0], p), …)
    float4 camera_row[4]; // the camera's clip space
};

Texture2D<float> shadow_map : register(t0);
SamplerComparisonState shadow_cmp : register(s0);

struct VsIn {
    float3 pos : POSITION;
    float3 color : COLOR;
};

struct VsOut {
    float4 pos : SV_Position;
    float4 light : LIGHTPOS;
    float3 color : COLOR;
};

float4 vs_depth(VsIn i) : SV_Position
{
    float4 p = float4(i.pos, 1.0);
    return float4(dot(light_row[0], p), dot(light_row[1], p), dot(light_row[2], p), dot(light_row[3], p));
}

VsOut vs_main(VsIn i)
{
    float4 p = float4(i.pos, 1.0);
    VsOut o;
    o.pos = float4(dot(camera_row[0], p), dot(camera_row[1], p), dot(camera_row[2], p), dot(camera_row[3], p));
    o.light = float4(dot(light_row[0], p), dot(light_row[1], p), dot(light_row[2], p), dot(light_row[3], p));
    o.color = i.color;
    return o;
}

float4 ps_main(VsOut i) : SV_Target
{
    // Light clip space to the shadow map's texture coordinates (y points down).
    float2 uv = float2(i.light.x * 0.5 + 0.5, 0.5 - i.light.y * 0.5);
    // 1 where this pixel is no farther from the light than what the light sees.
    float lit = shadow_map.SampleCmpLevelZero(shadow_cmp, uv, i.light.z - 0.005);
    return float4(i.color * (0.35 + 0.65 * lit), 1.0);
}
