// build: vs_5_0 vs_main tessellation_patch
// build: hs_5_0 hs_main tessellation_patch
// build: ds_5_0 ds_main tessellation_patch
// build: ps_5_0 ps_main tessellation_patch
//
// A displaced quad patch: four control points pass through the vertex and hull
// programs; the patch-constant function sets uneven fractional_odd factors; the domain
// program places each domain point bilinearly over the corners, lifts it by a sine bump
// and gives it a colour from its (u, v), kept flat so each triangle of the tessellation
// shows on its own (examples/tessellation.toml).

struct ControlPoint
{
    float3 pos : POSITION;
};

struct PatchConstants
{
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
};

struct DomainOut
{
    float4 pos : SV_Position;
    nointerpolation float3 colour : COLOR;
};

ControlPoint vs_main(ControlPoint cp)
{
    return cp;
}

PatchConstants patch_constants(InputPatch<ControlPoint, 4> patch)
{
    PatchConstants pc;
    pc.edges[0] = 2.5;
    pc.edges[1] = 5.0;
    pc.edges[2] = 7.5;
    pc.edges[3] = 3.2;
    pc.inside[0] = 6.0;
    pc.inside[1] = 4.4;
    return pc;
}

[domain("quad")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(4)]
[patchconstantfunc("patch_constants")]
ControlPoint hs_main(InputPatch<ControlPoint, 4> patch, uint i : SV_OutputControlPointID)
{
    return patch[i];
}

[domain("quad")]
DomainOut ds_main(PatchConstants pc, float2 uv : SV_DomainLocation,
        const OutputPatch<ControlPoint, 4> patch)
{
    float3 a = lerp(patch[0].pos, patch[1].pos, uv.x);
    float3 b = lerp(patch[3].pos, patch[2].pos, uv.x);
    float3 p = lerp(a, b, uv.y);
    p.y += 0.2 * sin(uv.x * 3.14159265) * sin(uv.y * 3.14159265);
    DomainOut o;
    o.pos = float4(p.xy, 0.5, 1.0);
    o.colour = float3(uv.x, uv.y, frac((uv.x + uv.y) * 3.7));
    return o;
}

float4 ps_main(float4 pos : SV_Position, nointerpolation float3 colour : COLOR) : SV_Target
{
    return float4(colour, 1.0);
}
