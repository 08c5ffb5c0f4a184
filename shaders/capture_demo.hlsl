// build: cs_5_0 main
// dispatch: 2 2 1
// resource: u0 structured stride=4 size=1024
// resource: u1 texture2d format=R8G8B8A8_UNORM width=16 height=16
//
// The capture example (examples/capture_demo.toml): a polynomial in x and y by Horner's
// rule, each step a multiply-add, over a 16 × 16 grid of threads. Fused into FMA (WARP
// 1.0.14 and later) and unfused (before), most results differ in their last bits, so a
// capture recorded under one profile and compared under the other shows where, by how
// much, and which rule explains it. The floats go to u0; an 8-bit picture to u1: red
// the value, green its last bits magnified (frac(p × 2^20)), blue x.
//
// expect: u0[0] = 0xbef3da7c      (p at x = y = 1/32, fused)

RWStructuredBuffer<float> values : register(u0);
RWTexture2D<float4> image : register(u1);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float x = (id.x + 0.5) / 16.0;
    float y = (id.y + 0.5) / 16.0;
    float p = mad(x, 0.1234567, 0.7654321);
    p = mad(p, x, 0.3333333);
    p = mad(p, y, 0.1428571);
    p = mad(p, p, -0.5);
    values[id.y * 16 + id.x] = p;
    image[id.xy] = float4(p + 0.5, frac(p * 1048576.0), x, 1.0);
}
