// A triangle's colour, interpolated: position and colour from a vertex buffer.
// build: vs_5_0 vs_main draw_color
// build: ps_5_0 ps_main draw_color
// The examples run the compiled programs; the IR twins (.vs.ir, .ps.ir: the same
// programs in the IR's text form) draw the same images (tests/all/draw.rs).
struct VsIn {
    float2 pos : POSITION;
    float4 color : COLOR;
};

struct VsOut {
    float4 pos : SV_Position;
    float4 color : COLOR;
};

VsOut vs_main(VsIn i)
{
    VsOut o;
    o.pos = float4(i.pos, 0.0, 1.0);
    o.color = i.color;
    return o;
}

float4 ps_main(VsOut i) : SV_Target
{
    return i.color;
}
