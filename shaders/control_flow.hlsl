// build: ps_5_0 main
// build: ps_4_1 main
//
// Control flow: if/else, loops with break and continue, switch with case, default and
// fallthrough-free cases, discard, and nested structures.

cbuffer Constants : register(b0)
{
    int mode;
    int count;
    float threshold;
    float4 tint;
};

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 color = tint;
    if (uv.x < threshold)
        discard;
    if (uv.y > 0.5)
        color.r += 0.25;
    else
        color.g += 0.25;
    [loop]
    for (int i = 0; i < count; ++i)
    {
        if (i == 3)
            continue;
        color.b += 0.125;
        if (color.b > 2.0)
            break;
    }
    switch (mode)
    {
    case 0:
        color *= 0.5;
        break;
    case 1:
    case 2:
        color += 1.0;
        break;
    default:
        color = -color;
        break;
    }
    int k = 0;
    [loop]
    while (k < count && color.a < 4.0)
    {
        color.a += pos.x * 0.01;
        ++k;
    }
    return color;
}
