// build: cs_5_0 main
//
// The program an ExecuteIndirect dispatches: thread i writes i × 3 + 1 to slot i.
// examples/lists/indirect.toml dispatches it with the group count indirect_args.hlsl
// wrote (4 groups of 64 threads):
// expect: u0[0] = 1 4 7 10

RWStructuredBuffer<uint> values : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    values[id.x] = id.x * 3 + 1;
}
