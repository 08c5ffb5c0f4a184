// build: gs_5_0 main
//
// Shader Model 5 geometry features: point input, several output streams and
// per-stream emission. (vkd3d cannot compile [instance(n)]; dcl_gsinstances and
// vGSInstanceID come from hand-assembled tokens in the decoder's unit tests.)

struct Point
{
    float4 pos : SV_Position;
    float size : PSIZE;
};

struct Out
{
    float4 pos : SV_Position;
    float value : TEXCOORD0;
};

[maxvertexcount(4)]
void main(point Point input[1], inout PointStream<Out> s0, inout PointStream<Out> s1)
{
    Out o;
    o.pos = input[0].pos + float4(1, 0, 0, 0);
    o.value = input[0].size;
    s0.Append(o);
    o.value *= 2.0;
    s1.Append(o);
    s1.RestartStrip();
}
