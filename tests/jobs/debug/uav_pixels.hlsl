// A pixel program every pixel of which writes a UAV: a counter all pixels add to, and two
// words the pixels of even and of odd columns overwrite. The debugger's memory watches
// inside draws are tested on it (tests/all/debug.rs, uav_pixels.toml). Compiled with
// vkd3d's HLSL compiler, as shaders/build.sh does:
//     vkd3d-compiler -p ps_5_0 -e main -x hlsl -b dxbc-tpf -o uav_pixels.ps_5_0.dxbc uav_pixels.hlsl
// build: ps_5_0 main uav_pixels
RWStructuredBuffer<uint> cells : register(u1);

float4 main(float4 pos : SV_Position) : SV_Target
{
    uint x = uint(pos.x);
    uint y = uint(pos.y);
    InterlockedAdd(cells[0], 1);
    cells[1 + (x & 1)] = x + 8 * y;
    return float4(pos.xy / 8.0, 0.0, 1.0);
}
