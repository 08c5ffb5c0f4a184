// A triangle's colour, interpolated: position and colour from a vertex buffer.
// build: vs_5_0 vs_main draw_color
// build: ps_5_0 ps_main draw_color
// The examples run the IR twins draw_color.vs.ir and draw_color.ps.ir (the same
// programs in the interpreter IR's text form) until the DXBC lowering reads vertex and
// pixel programs.
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
