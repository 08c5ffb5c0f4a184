// build: vs_5_0 gbuffer_vs deferred_gbuffer
// build: ps_5_0 gbuffer_ps deferred_gbuffer
// build: ps_5_0 lighting_ps deferred_lighting
// build: cs_5_0 tonemap deferred_tonemap
//
// A deferred-shading frame (examples/frames/deferred.toml) in three passes of one
// command list:
// 1. the G-buffer: a draw of the scene's quads writes albedo (target 0), the normal
//    (target 1) and the depth as a colour (target 2);
// 2. lighting: a full-screen draw (draw_fullscreen.vs) loads the three targets at its
//    pixel — the sky where the depth is still the cleared 1.0 — and lights the surface
//    with two directional lights into a float target, which may hold values above 1;
// 3. a compute pass tonemaps the float target (c / (1 + c)) into an 8-bit picture.

struct GbufIn
{
    float3 pos : POSITION;     // clip space, w = 1
    float3 normal : NORMAL;
    float3 albedo : COLOR;
};

// Each quad has one normal and one albedo: passed flat, so the G-buffer holds them
// exactly, whatever order an implementation interpolates in.
struct GbufVs
{
    float4 pos : SV_Position;
    nointerpolation float3 normal : NORMAL;
    nointerpolation float3 albedo : COLOR;
};

struct Gbuf
{
    float4 albedo : SV_Target0;
    float4 normal : SV_Target1;
    float depth : SV_Target2;
};

GbufVs gbuffer_vs(GbufIn v)
{
    GbufVs o;
    o.pos = float4(v.pos, 1);
    o.normal = v.normal;
    o.albedo = v.albedo;
    return o;
}

Gbuf gbuffer_ps(GbufVs i)
{
    Gbuf o;
    o.albedo = float4(i.albedo, 1);
    o.normal = float4(i.normal, 1);
    o.depth = i.pos.z;
    return o;
}

Texture2D<float4> albedo : register(t0);
Texture2D<float4> normals : register(t1);
Texture2D<float> depths : register(t2);

cbuffer lights : register(b0)
{
    float4 dir0;       // towards the light, w unused
    float4 colour0;
    float4 dir1;
    float4 colour1;
    float4 ambient;
    float4 sky;
};

float4 lighting_ps(float4 pos : SV_Position) : SV_Target
{
    int3 at = int3(pos.xy, 0);
    // The cleared depth (1.0) where no surface is: every surface lies nearer.
    if (depths.Load(at) >= 1)
        return sky;
    float3 n = normals.Load(at).xyz;
    float3 a = albedo.Load(at).rgb;
    float3 light = ambient.rgb
        + max(dot(n, dir0.xyz), 0) * colour0.rgb
        + max(dot(n, dir1.xyz), 0) * colour1.rgb;
    return float4(a * light, 1);
}

Texture2D<float4> hdr : register(t0);
RWTexture2D<unorm float4> picture : register(u0);

[numthreads(8, 8, 1)]
void tonemap(uint3 id : SV_DispatchThreadID)
{
    float3 c = hdr.Load(int3(id.xy, 0)).rgb;
    picture[id.xy] = float4(c / (1 + c), 1);
}
