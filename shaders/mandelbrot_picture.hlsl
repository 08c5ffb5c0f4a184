// build: cs_5_0 main
//
// The Mandelbrot set of mandelbrot.hlsl (the same points, the same loop) as a picture:
// each point's escape count is coloured and stored to an RWTexture2D, which
// examples/mandelbrot_picture.toml writes as a .png. Points that never escape are black;
// the others run from deep blue through orange to white with the count.

RWTexture2D<unorm float4> image : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float cx = id.x / 1024.0 * 3.0 - 2.0;
    float cy = id.y / 1024.0 * 3.0 - 1.5;
    float x = 0.0;
    float y = 0.0;
    uint i;
    for (i = 0; i < 256; i++)
    {
        float x2 = x * x;
        float y2 = y * y;
        if (x2 + y2 > 4.0)
            break;
        y = 2.0 * x * y + cy;
        x = x2 - y2 + cx;
    }
    float t = sqrt(i / 256.0);
    float4 c = float4(saturate(3.0 * t - 0.8), saturate(2.2 * t - 0.5), saturate(0.5 + 2.0 * t - 2.6 * t * t), 1.0);
    image[id.xy] = i == 256 ? float4(0.0, 0.0, 0.0, 1.0) : c;
}
