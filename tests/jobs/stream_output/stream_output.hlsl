// build: vs_5_0 vs_id stream_output
// build: vs_5_0 vs_pass stream_output_pass
// build: gs_5_0 gs_streams stream_output
// build: ps_5_0 ps_value stream_output
//
// Programs of the stream-output tests (tests/all/stream_output.rs), every value they
// write worked out by hand there:
// - vs_id: a vertex program writing its POSITION as SV_Position and SV_VertexID as ID;
// - vs_pass: passes SV_Position and TEXCOORD0 through (before a geometry program);
// - gs_streams: one point in, one point out on each of streams 0 to 3, the point of
//   stream s at the centre of pixel (s, SV_PrimitiveID) of an 8 × 8 target, its VALUE
//   10 · SV_PrimitiveID + s;
// - ps_value: writes VALUE to an R32_UINT target.

struct IdOut
{
    float4 pos : SV_Position;
    uint id : ID;
};

IdOut vs_id(float2 pos : POSITION, uint id : SV_VertexID)
{
    IdOut o;
    o.pos = float4(pos, 0.5, 1.0);
    o.id = id;
    return o;
}

struct V
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
};

V vs_pass(V v)
{
    return v;
}

struct P
{
    float4 pos : SV_Position;
    nointerpolation uint value : VALUE;
};

P at(uint s, uint prim)
{
    P p;
    p.pos = float4((s + 0.5) / 4.0 - 1.0, 1.0 - (prim + 0.5) / 4.0, 0.5, 1.0);
    p.value = 10 * prim + s;
    return p;
}

[maxvertexcount(4)]
void gs_streams(point V input[1], uint prim : SV_PrimitiveID,
        inout PointStream<P> s0, inout PointStream<P> s1,
        inout PointStream<P> s2, inout PointStream<P> s3)
{
    s0.Append(at(0, prim));
    s1.Append(at(1, prim));
    s2.Append(at(2, prim));
    s3.Append(at(3, prim));
}

uint ps_value(float4 pos : SV_Position, nointerpolation uint value : VALUE) : SV_Target
{
    return value;
}
