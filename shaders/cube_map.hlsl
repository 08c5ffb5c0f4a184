// build: ps_5_0 ps_main cube_map
//
// The cube-map frame (examples/frames/cube_map.toml): after six draws filled the faces
// of a cube texture slice by slice, this full-screen pixel program (with
// draw_fullscreen.vs) samples the cube as a TextureCube and lays it out as a cross of
// 32 × 32 cells, 4 wide and 3 tall:
//
//         +Y
//     -X  +Z  +X  -Z
//         -Y
//
// Each pixel of a face's cell looks along the direction through the centre of the
// face's texel at that place (D3D's cube addressing: the face of the major axis, then
// s and t over it), so point sampling returns the texel the draw wrote; cells off the
// cross keep the background.

TextureCube<float4> cube : register(t0);
SamplerState point_clamp : register(s0);

float4 ps_main(float4 pos : SV_Position) : SV_Target
{
    uint2 cell = uint2(pos.xy) / 32;
    float2 st = (fmod(pos.xy, 32.0) / 32.0) * 2 - 1;   // texel centres: exact in binary
    float s = st.x, t = st.y;
    float3 dir;
    if (cell.y == 0 && cell.x == 1)
        dir = float3(s, 1, t);          // +Y
    else if (cell.y == 2 && cell.x == 1)
        dir = float3(s, -1, -t);        // -Y
    else if (cell.y == 1 && cell.x == 0)
        dir = float3(-1, -t, s);        // -X
    else if (cell.y == 1 && cell.x == 1)
        dir = float3(s, -t, 1);         // +Z
    else if (cell.y == 1 && cell.x == 2)
        dir = float3(1, -t, -s);        // +X
    else if (cell.y == 1 && cell.x == 3)
        dir = float3(-s, -t, -1);       // -Z
    else
        return float4(0.1, 0.1, 0.12, 1);
    return cube.Sample(point_clamp, dir);
}
