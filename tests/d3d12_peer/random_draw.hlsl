// The programs of the random draws: a clip-space position, a colour and the triangle's
// number per vertex. Target 0 takes the colour (blended as the draw says); target 1, an
// R32_UINT target never blended, the number of the last triangle that wrote each sample,
// so coverage and the depth and stencil tests compare exactly whatever blending does.
// build: vs_5_0 vs_main random_draw
// build: ps_5_0 ps_main random_draw
struct VsIn {
    float4 pos : POSITION;
    float4 color : COLOR;
    uint id : TRIANGLE;
};

struct VsOut {
    float4 pos : SV_Position;
    float4 color : COLOR;
    nointerpolation uint id : TRIANGLE;
};

struct PsOut {
    float4 color : SV_Target0;
    uint id : SV_Target1;
};

VsOut vs_main(VsIn i)
{
    VsOut o;
    o.pos = i.pos;
    o.color = i.color;
    o.id = i.id;
    return o;
}

PsOut ps_main(VsOut i)
{
    PsOut o;
    o.color = i.color;
    o.id = i.id;
    return o;
}
