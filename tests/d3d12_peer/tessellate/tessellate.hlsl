// build: vs_5_0 vs_main tess_vs
// build: ds_5_0 ds_tri tess_ds_tri
// build: ds_5_0 ds_quad tess_ds_quad
// build: ds_5_0 ds_isoline tess_ds_isoline
// build: hs_5_0 hs_tri_integer_point tess_hs_tri_integer_point
// build: hs_5_0 hs_tri_integer_triangle_cw tess_hs_tri_integer_triangle_cw
// build: hs_5_0 hs_tri_integer_triangle_ccw tess_hs_tri_integer_triangle_ccw
// build: hs_5_0 hs_tri_pow2_point tess_hs_tri_pow2_point
// build: hs_5_0 hs_tri_pow2_triangle_cw tess_hs_tri_pow2_triangle_cw
// build: hs_5_0 hs_tri_pow2_triangle_ccw tess_hs_tri_pow2_triangle_ccw
// build: hs_5_0 hs_tri_fractional_odd_point tess_hs_tri_fractional_odd_point
// build: hs_5_0 hs_tri_fractional_odd_triangle_cw tess_hs_tri_fractional_odd_triangle_cw
// build: hs_5_0 hs_tri_fractional_odd_triangle_ccw tess_hs_tri_fractional_odd_triangle_ccw
// build: hs_5_0 hs_tri_fractional_even_point tess_hs_tri_fractional_even_point
// build: hs_5_0 hs_tri_fractional_even_triangle_cw tess_hs_tri_fractional_even_triangle_cw
// build: hs_5_0 hs_tri_fractional_even_triangle_ccw tess_hs_tri_fractional_even_triangle_ccw
// build: hs_5_0 hs_quad_integer_point tess_hs_quad_integer_point
// build: hs_5_0 hs_quad_integer_triangle_cw tess_hs_quad_integer_triangle_cw
// build: hs_5_0 hs_quad_integer_triangle_ccw tess_hs_quad_integer_triangle_ccw
// build: hs_5_0 hs_quad_pow2_point tess_hs_quad_pow2_point
// build: hs_5_0 hs_quad_pow2_triangle_cw tess_hs_quad_pow2_triangle_cw
// build: hs_5_0 hs_quad_pow2_triangle_ccw tess_hs_quad_pow2_triangle_ccw
// build: hs_5_0 hs_quad_fractional_odd_point tess_hs_quad_fractional_odd_point
// build: hs_5_0 hs_quad_fractional_odd_triangle_cw tess_hs_quad_fractional_odd_triangle_cw
// build: hs_5_0 hs_quad_fractional_odd_triangle_ccw tess_hs_quad_fractional_odd_triangle_ccw
// build: hs_5_0 hs_quad_fractional_even_point tess_hs_quad_fractional_even_point
// build: hs_5_0 hs_quad_fractional_even_triangle_cw tess_hs_quad_fractional_even_triangle_cw
// build: hs_5_0 hs_quad_fractional_even_triangle_ccw tess_hs_quad_fractional_even_triangle_ccw
// build: hs_5_0 hs_isoline_integer_point tess_hs_isoline_integer_point
// build: hs_5_0 hs_isoline_integer_line tess_hs_isoline_integer_line
// build: hs_5_0 hs_isoline_pow2_point tess_hs_isoline_pow2_point
// build: hs_5_0 hs_isoline_pow2_line tess_hs_isoline_pow2_line
// build: hs_5_0 hs_isoline_fractional_odd_point tess_hs_isoline_fractional_odd_point
// build: hs_5_0 hs_isoline_fractional_odd_line tess_hs_isoline_fractional_odd_line
// build: hs_5_0 hs_isoline_fractional_even_point tess_hs_isoline_fractional_even_point
// build: hs_5_0 hs_isoline_fractional_even_line tess_hs_isoline_fractional_even_line
//
// The fixed-function tessellator through an independent D3D12 (tests/all/d3d12_peer.rs,
// `tessellator_matches_the_peer`): one patch per case, of one control point that holds
// the case's number (from a vertex buffer); the patch-constant function reads the case's
// factors from constant buffer b0 (edges at factors[2 * n], inside factors at
// factors[2 * n + 1]) and writes them unchanged; the domain program outputs the bits of
// SV_DomainLocation and the case's number, which stream output captures. One hull
// program per domain × partitioning × output primitive, since those are the hull
// program's declarations. The case's number comes from a vertex buffer rather than from
// SV_VertexID or SV_PrimitiveID so that it does not depend on how a draw's first vertex
// reaches those counters.

struct ControlPoint
{
    uint n : CASE;
};

cbuffer Factors : register(b0)
{
    float4 factors[4096];
};

ControlPoint vs_main(uint n : CASE)
{
    ControlPoint c;
    c.n = n;
    return c;
}

struct TriFactors
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
};

struct QuadFactors
{
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
};

struct IsolineFactors
{
    // [0] the line density, [1] the line detail.
    float edges[2] : SV_TessFactor;
};

TriFactors pc_tri(InputPatch<ControlPoint, 1> patch)
{
    uint id = patch[0].n;
    TriFactors f;
    float4 e = factors[2 * id];
    f.edges[0] = e.x;
    f.edges[1] = e.y;
    f.edges[2] = e.z;
    f.inside = factors[2 * id + 1].x;
    return f;
}

QuadFactors pc_quad(InputPatch<ControlPoint, 1> patch)
{
    uint id = patch[0].n;
    QuadFactors f;
    float4 e = factors[2 * id];
    float4 i = factors[2 * id + 1];
    f.edges[0] = e.x;
    f.edges[1] = e.y;
    f.edges[2] = e.z;
    f.edges[3] = e.w;
    f.inside[0] = i.x;
    f.inside[1] = i.y;
    return f;
}

IsolineFactors pc_isoline(InputPatch<ControlPoint, 1> patch)
{
    uint id = patch[0].n;
    IsolineFactors f;
    float4 e = factors[2 * id];
    f.edges[0] = e.x;
    f.edges[1] = e.y;
    return f;
}

#define HULL(NAME, DOMAIN, PARTITIONING, OUTPUT, FACTORS) \
    [domain(DOMAIN)] \
    [partitioning(PARTITIONING)] \
    [outputtopology(OUTPUT)] \
    [outputcontrolpoints(1)] \
    [patchconstantfunc(FACTORS)] \
    ControlPoint NAME(InputPatch<ControlPoint, 1> patch, uint i : SV_OutputControlPointID) \
    { \
        return patch[i]; \
    }

HULL(hs_tri_integer_point, "tri", "integer", "point", "pc_tri")
HULL(hs_tri_integer_triangle_cw, "tri", "integer", "triangle_cw", "pc_tri")
HULL(hs_tri_integer_triangle_ccw, "tri", "integer", "triangle_ccw", "pc_tri")
HULL(hs_tri_pow2_point, "tri", "pow2", "point", "pc_tri")
HULL(hs_tri_pow2_triangle_cw, "tri", "pow2", "triangle_cw", "pc_tri")
HULL(hs_tri_pow2_triangle_ccw, "tri", "pow2", "triangle_ccw", "pc_tri")
HULL(hs_tri_fractional_odd_point, "tri", "fractional_odd", "point", "pc_tri")
HULL(hs_tri_fractional_odd_triangle_cw, "tri", "fractional_odd", "triangle_cw", "pc_tri")
HULL(hs_tri_fractional_odd_triangle_ccw, "tri", "fractional_odd", "triangle_ccw", "pc_tri")
HULL(hs_tri_fractional_even_point, "tri", "fractional_even", "point", "pc_tri")
HULL(hs_tri_fractional_even_triangle_cw, "tri", "fractional_even", "triangle_cw", "pc_tri")
HULL(hs_tri_fractional_even_triangle_ccw, "tri", "fractional_even", "triangle_ccw", "pc_tri")
HULL(hs_quad_integer_point, "quad", "integer", "point", "pc_quad")
HULL(hs_quad_integer_triangle_cw, "quad", "integer", "triangle_cw", "pc_quad")
HULL(hs_quad_integer_triangle_ccw, "quad", "integer", "triangle_ccw", "pc_quad")
HULL(hs_quad_pow2_point, "quad", "pow2", "point", "pc_quad")
HULL(hs_quad_pow2_triangle_cw, "quad", "pow2", "triangle_cw", "pc_quad")
HULL(hs_quad_pow2_triangle_ccw, "quad", "pow2", "triangle_ccw", "pc_quad")
HULL(hs_quad_fractional_odd_point, "quad", "fractional_odd", "point", "pc_quad")
HULL(hs_quad_fractional_odd_triangle_cw, "quad", "fractional_odd", "triangle_cw", "pc_quad")
HULL(hs_quad_fractional_odd_triangle_ccw, "quad", "fractional_odd", "triangle_ccw", "pc_quad")
HULL(hs_quad_fractional_even_point, "quad", "fractional_even", "point", "pc_quad")
HULL(hs_quad_fractional_even_triangle_cw, "quad", "fractional_even", "triangle_cw", "pc_quad")
HULL(hs_quad_fractional_even_triangle_ccw, "quad", "fractional_even", "triangle_ccw", "pc_quad")
HULL(hs_isoline_integer_point, "isoline", "integer", "point", "pc_isoline")
HULL(hs_isoline_integer_line, "isoline", "integer", "line", "pc_isoline")
HULL(hs_isoline_pow2_point, "isoline", "pow2", "point", "pc_isoline")
HULL(hs_isoline_pow2_line, "isoline", "pow2", "line", "pc_isoline")
HULL(hs_isoline_fractional_odd_point, "isoline", "fractional_odd", "point", "pc_isoline")
HULL(hs_isoline_fractional_odd_line, "isoline", "fractional_odd", "line", "pc_isoline")
HULL(hs_isoline_fractional_even_point, "isoline", "fractional_even", "point", "pc_isoline")
HULL(hs_isoline_fractional_even_line, "isoline", "fractional_even", "line", "pc_isoline")

// The domain location's bits (w = 1 - u - v for tri, 0 otherwise) and the case's number.

[domain("tri")]
uint4 ds_tri(TriFactors f, float3 location : SV_DomainLocation,
        const OutputPatch<ControlPoint, 1> patch) : LOCATION
{
    return uint4(asuint(location.x), asuint(location.y), asuint(location.z), patch[0].n);
}

[domain("quad")]
uint4 ds_quad(QuadFactors f, float2 location : SV_DomainLocation,
        const OutputPatch<ControlPoint, 1> patch) : LOCATION
{
    return uint4(asuint(location.x), asuint(location.y), 0, patch[0].n);
}

[domain("isoline")]
uint4 ds_isoline(IsolineFactors f, float2 location : SV_DomainLocation,
        const OutputPatch<ControlPoint, 1> patch) : LOCATION
{
    return uint4(asuint(location.x), asuint(location.y), 0, patch[0].n);
}
