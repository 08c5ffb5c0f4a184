// build: cs_5_0 main
//
// Integer and bit operations: signed and unsigned arithmetic, division and remainder,
// shifts, logic, bit counts and scans, half-float packing, conversions.

cbuffer Constants : register(b0)
{
    int4 si;
    uint4 ui;
    float4 f;
};

RWByteAddressBuffer output : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int s = si.x * si.y + si.z - id.x;
    s += si.w / (si.x | 1);
    s += si.y % 7;
    s = max(s, si.z);
    s = min(s, 1000);
    s += -s >> 3;
    s += abs(si.w);
    uint u = ui.x * ui.y + id.x;
    u += ui.z / (ui.w | 1);
    u += ui.x % (ui.y | 1);
    u = max(u, ui.z) ^ min(u, ui.w);
    u |= (u << 4) & 0xff00ff00;
    u += ~u >> 5;
    uint bits = 0;
    bits += countbits(u) + firstbithigh(u) + firstbitlow(u);
    bits += (uint)firstbithigh(s);
    bits += f32tof16(f.x) + (uint)f16tof32(ui.x);
    float g = (float)s + (float)u + f.y;
    int fi = (int)f.z;
    uint fu = (uint)f.w;
    bool flag = s < (int)u && u >= fu && s != fi;
    output.Store(id.x * 16, u + bits);
    output.Store(id.x * 16 + 4, (uint)s);
    output.Store(id.x * 16 + 8, asuint(g));
    output.Store(id.x * 16 + 12, flag ? fu : (uint)fi);
}
