// The hull program tests/jobs/spdb/hull.toml wraps with a hand-written SPDB part
// (src/debug/hlsl/tests/spdb_domain.rs): its patch-constant function reads an output
// control point. Compiled with
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p hs_5_0 -e main -o hull_plain.hs_5_0.dxbc hull.hlsl
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p vs_5_0 -e vs_main -o hull.vs_5_0.dxbc hull.hlsl
//   vkd3d-compiler -x hlsl -b dxbc-tpf -p ds_5_0 -e ds_main -o hull.ds_5_0.dxbc hull.hlsl
struct ControlPoint
{
    float4 pos : POSITION;
};

struct PatchConstants
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
    float lift : LIFT;
};

ControlPoint vs_main(ControlPoint cp)
{
    return cp;
}

PatchConstants patch_constants(const OutputPatch<ControlPoint, 3> cps)
{
    PatchConstants pc;
    pc.edges[0] = 1.0;
    pc.edges[1] = 1.0;
    pc.edges[2] = 1.0;
    pc.inside = 1.0;
    pc.lift = cps[1].pos.y;
    return pc;
}

[domain("tri")]
[partitioning("integer")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("patch_constants")]
ControlPoint main(InputPatch<ControlPoint, 3> patch, uint i : SV_OutputControlPointID)
{
    ControlPoint cp = patch[i];
    cp.pos.y *= 2.0;
    return cp;
}

[domain("tri")]
float4 ds_main(PatchConstants pc, float3 bary : SV_DomainLocation,
        const OutputPatch<ControlPoint, 3> patch) : SV_Position
{
    float4 p = patch[0].pos * bary.x + patch[1].pos * bary.y + patch[2].pos * bary.z;
    p.y += pc.lift;
    return p;
}
