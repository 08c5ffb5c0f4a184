// build: vs_5_0 vs_main gs_after_ds
// build: hs_5_0 hs_main gs_after_ds
// build: ds_5_0 ds_main gs_after_ds
// build: gs_5_0 gs_main gs_after_ds
// build: ps_5_0 ps_main gs_after_ds
//
// A geometry program after the domain program: triangle patches of three control
// points, tessellated with every factor 1 (integer partitioning, triangle_cw), so each
// patch makes one triangle of the three corner points; the domain program places each
// point at u·P0 + v·P1 + w·P2 (so each lands on a control point) and passes its
// location on; the geometry program emits each input vertex as a point carrying its
// SV_PrimitiveID, its place in the input primitive and its (u, v) bits, which the pixel
// program writes to an R32G32B32A32_UINT target. tests/all/tessellation_stages.rs checks
// every texel by hand.

struct ControlPoint
{
    float3 pos : POSITION;
};

struct PatchConstants
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
};

struct DomainOut
{
    float4 pos : SV_Position;
    float3 loc : LOC;
};

struct GsOut
{
    float4 pos : SV_Position;
    nointerpolation uint4 data : DATA;
};

ControlPoint vs_main(ControlPoint cp)
{
    return cp;
}

PatchConstants patch_constants(InputPatch<ControlPoint, 3> patch)
{
    PatchConstants pc;
    pc.edges[0] = 1.0;
    pc.edges[1] = 1.0;
    pc.edges[2] = 1.0;
    pc.inside = 1.0;
    return pc;
}

[domain("tri")]
[partitioning("integer")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("patch_constants")]
ControlPoint hs_main(InputPatch<ControlPoint, 3> patch, uint i : SV_OutputControlPointID)
{
    return patch[i];
}

[domain("tri")]
DomainOut ds_main(PatchConstants pc, float3 uvw : SV_DomainLocation,
        const OutputPatch<ControlPoint, 3> patch)
{
    DomainOut o;
    float3 p = uvw.x * patch[0].pos + uvw.y * patch[1].pos + uvw.z * patch[2].pos;
    o.pos = float4(p, 1.0);
    o.loc = uvw;
    return o;
}

[maxvertexcount(3)]
void gs_main(triangle DomainOut input[3], uint prim : SV_PrimitiveID,
        inout PointStream<GsOut> stream)
{
    for (uint i = 0; i < 3; ++i)
    {
        GsOut o;
        o.pos = input[i].pos;
        o.data = uint4(prim, i, asuint(input[i].loc.x), asuint(input[i].loc.y));
        stream.Append(o);
    }
}

uint4 ps_main(float4 pos : SV_Position, nointerpolation uint4 data : DATA) : SV_Target
{
    return data;
}
