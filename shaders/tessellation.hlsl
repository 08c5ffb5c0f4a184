// build: hs_5_0 hs_main tessellation
// build: ds_5_0 ds_main tessellation
// build: vs_5_0 vs_main tessellation
//
// A tessellation pipeline on triangle patches: the vertex program passes control points
// through, the hull program's control-point phase and patch-constant function (fork
// phases) set the tessellation factors, the domain program interpolates.

struct ControlPoint
{
    float4 pos : POSITION;
    float2 uv : TEXCOORD0;
};

struct PatchConstants
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
    float3 center : CENTER;
};

cbuffer Constants : register(b0)
{
    float4x4 transform;
    float factor;
};

ControlPoint vs_main(ControlPoint cp)
{
    return cp;
}

PatchConstants patch_constants(InputPatch<ControlPoint, 3> patch, uint id : SV_PrimitiveID)
{
    PatchConstants pc;
    pc.edges[0] = factor;
    pc.edges[1] = factor * 2.0;
    pc.edges[2] = factor + (float)(id & 3);
    pc.inside = (pc.edges[0] + pc.edges[1] + pc.edges[2]) / 3.0;
    pc.center = (patch[0].pos.xyz + patch[1].pos.xyz + patch[2].pos.xyz) / 3.0;
    return pc;
}

[domain("tri")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("patch_constants")]
ControlPoint hs_main(InputPatch<ControlPoint, 3> patch, uint i : SV_OutputControlPointID)
{
    ControlPoint cp = patch[i];
    cp.uv *= 2.0;
    return cp;
}

[domain("tri")]
float4 ds_main(PatchConstants pc, float3 bary : SV_DomainLocation, const OutputPatch<ControlPoint, 3> patch) : SV_Position
{
    float4 p = patch[0].pos * bary.x + patch[1].pos * bary.y + patch[2].pos * bary.z;
    p.xyz += pc.center * pc.inside;
    return mul(transform, p);
}
