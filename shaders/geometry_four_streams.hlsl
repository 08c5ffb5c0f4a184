// build: gs_5_0 main
//
// A geometry program emitting one point on each of the four streams, each moved right by
// a quarter of the clip space per stream and carrying the stream's number, so the pixel
// a rasterized stream lights and the words stream output writes tell the streams apart.
// The same program is built as DXIL by hand in the pipeline's unit tests (there is no
// DXIL compiler here); the two must give identical results.

struct In
{
    float4 pos : SV_Position;
};

struct Out
{
    float4 pos : SV_Position;
    float4 color : COLOR0;
};

Out at(float4 pos, float k)
{
    Out o;
    o.pos = pos + float4(0.25 * k, 0, 0, 0);
    o.color = float4(k + 1, pos.y, 0, 1);
    return o;
}

[maxvertexcount(4)]
void main(point In input[1], inout PointStream<Out> s0, inout PointStream<Out> s1,
          inout PointStream<Out> s2, inout PointStream<Out> s3)
{
    float4 p = input[0].pos;
    s0.Append(at(p, 0));
    s1.Append(at(p, 1));
    s1.RestartStrip();
    s2.Append(at(p, 2));
    s3.Append(at(p, 3));
    s3.RestartStrip();
}
