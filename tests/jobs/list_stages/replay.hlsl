// build: vs_5_0 vs_main replay
//
// Draws again what a tessellated draw of tests/jobs/gs_after_ds/gs_after_ds.hlsl
// streamed out: each record (SV_Position, DATA) of its geometry program's points comes
// back as a vertex, moved down by 1.0 in y (four rows of an 8 × 8 target) with 100
// added to DATA.x, for gs_after_ds's pixel program to write. tests/all/list_stages.rs
// checks every texel by hand.

struct Replayed
{
    float4 pos : SV_Position;
    nointerpolation uint4 data : DATA;
};

Replayed vs_main(float4 pos : POSITION, uint4 data : DATA)
{
    Replayed o;
    o.pos = pos - float4(0.0, 1.0, 0.0, 0.0);
    o.data = data + uint4(100, 0, 0, 0);
    return o;
}
