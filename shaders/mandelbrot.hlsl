// build: cs_5_0 main
// dispatch: 65 65 1
// resource: u0 structured stride=4 size=4194304
//
// The Mandelbrot set over [-2, 1] x [-1.5, 1.5] on a 1024 x 1024 grid, one thread per
// point in 8 x 8 groups, storing how many of up to 256 iterations each point takes to
// escape (the benchmark dispatches all 128 x 128 groups; the test the 65 x 65 groups
// that hold the points below). vkd3d emits separate `mul` and `add` (no `mad`), so each
// value is the float32 rounding of one operation: the counts below follow the same
// sequence of roundings (cx = ((x / 1024) * 3) - 2, …), point by point.
//
// expect: u0[0] = 1                      (0, 0): c = -2 - 1.5i escapes at once
// expect: u0[7175] = 1                   (7, 7)
// expect: u0[205100] = 3                 (300, 200)
// expect: u0[524628] = 256               (340, 512): in the main cardioid
// expect: u0[524800] = 256               (512, 512): c = -0.5
// expect: u0[409856] = 24                (256, 400)
// expect: u0[409860] = 17                (260, 400)
// expect: u0[450852] = 62                (292, 440)
// expect: u0[491732] = 30                (212, 480)
// expect: u0[307568] = 5                 (368, 300)

RWStructuredBuffer<uint> result : register(u0);

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
    result[id.y * 1024 + id.x] = i;
}
