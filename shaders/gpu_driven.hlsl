// build: cs_5_0 cull gpu_driven
// build: vs_5_0 vs_main gpu_driven
// build: ps_5_0 ps_main gpu_driven
//
// A GPU-driven frame (examples/frames/gpu_driven.toml): a compute program culls 64
// instances against a circle and writes one D3D12_DRAW_ARGUMENTS record per instance it
// keeps, packed in instance order (a prefix count in group-shared memory, so the records'
// order does not depend on scheduling), and the number of records to a count buffer;
// an ExecuteIndirect then draws the records, each instance a square from an
// instance-rate vertex buffer (StartInstanceLocation picks its element).

StructuredBuffer<float4> instances : register(t0);   // x, y, half size, hue
RWByteAddressBuffer args : register(u0);
RWByteAddressBuffer count : register(u1);

cbuffer view : register(b0)
{
    float2 centre;
    float radius;
};

groupshared uint visible[64];

[numthreads(64, 1, 1)]
void cull(uint i : SV_GroupIndex)
{
    float4 inst = instances[i];
    float2 d = inst.xy - centre;
    bool keep = dot(d, d) < radius * radius;
    visible[i] = keep ? 1 : 0;
    GroupMemoryBarrierWithGroupSync();
    uint slot = 0;
    for (uint j = 0; j < i; ++j)
        slot += visible[j];
    if (keep)
        args.Store4(slot * 16, uint4(6, 1, 0, i));   // 6 vertices, 1 instance, from instance i
    if (i == 63)
        count.Store(0, slot + visible[63]);
}

struct VsIn
{
    float2 corner : CORNER;
    float4 inst : INSTANCE;
};

struct VsOut
{
    float4 pos : SV_Position;
    nointerpolation float3 colour : COLOR;
};

VsOut vs_main(VsIn v)
{
    VsOut o;
    o.pos = float4(v.inst.xy + v.corner * v.inst.z, 0.5, 1);
    o.colour = float3(v.inst.w, 1 - v.inst.w, 0.6);
    return o;
}

float4 ps_main(VsOut i) : SV_Target
{
    return float4(i.colour, 1);
}
