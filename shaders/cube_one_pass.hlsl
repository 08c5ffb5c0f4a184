// build: vs_5_0 vs_main cube_one_pass
// build: gs_5_0 gs_main cube_one_pass
//
// A cube map in one draw (examples/frames/cube_map_one_pass.toml): the geometry program
// emits each triangle six times (a loop over the faces: vkd3d's compiler has no
// [instance(n)]), copy k into face k through SV_RenderTargetArrayIndex, moved right by
// k / 16 so that each face gets
// the triangle examples/frames/cube_map.toml draws into it one face at a time (the
// offsets are multiples of 1/16: the sums are exact, the two frames equal bit for bit).
// draw_color's pixel program shades it.

struct VsIn
{
    float2 pos : POSITION;
    float4 color : COLOR;
};

struct GsIn
{
    float4 pos : SV_Position;
    float4 color : COLOR;
};

struct Face
{
    float4 pos : SV_Position;
    float4 color : COLOR;
    uint face : SV_RenderTargetArrayIndex;
};

GsIn vs_main(VsIn i)
{
    GsIn o;
    o.pos = float4(i.pos, 0.0, 1.0);
    o.color = i.color;
    return o;
}

[maxvertexcount(18)]
void gs_main(triangle GsIn input[3], inout TriangleStream<Face> stream)
{
    Face v;
    [unroll]
    for (uint k = 0; k < 6; ++k)
    {
        [unroll]
        for (uint i = 0; i < 3; ++i)
        {
            v.pos = input[i].pos + float4(k * 0.0625, 0, 0, 0);
            v.color = input[i].color;
            v.face = k;
            stream.Append(v);
        }
        stream.RestartStrip();
    }
}
