// A full-screen pixel program: one triangle made from SV_VertexID covers the target,
// the pixel program draws a pattern from SV_Position.
// build: vs_5_0 vs_main draw_fullscreen
// build: ps_5_0 ps_main draw_fullscreen
// The examples run the compiled programs; the IR twins (.vs.ir, .ps.ir: the same
// programs in the IR's text form) draw the same images (tests/all/draw.rs).
float4 vs_main(uint id : SV_VertexID) : SV_Position
{
    float x = float(id & 1) * 4.0 - 1.0;
    float y = 1.0 - float(id & 2) * 2.0;
    return float4(x, y, 0.0, 1.0);
}

float4 ps_main(float4 pos : SV_Position) : SV_Target
{
    float2 p = pos.xy / 16.0;
    float2 f = frac(p);
    float ring = frac(sqrt(dot(pos.xy - 64.0, pos.xy - 64.0)) / 12.0);
    return float4(f.x, f.y, ring, 1.0);
}
