// build: cs_5_0 main
//
// Writes the arguments of a later ExecuteIndirect: one D3D12_DISPATCH_ARGUMENTS record
// (thread-group counts x, y, z) with enough groups of 64 threads to cover `count` items,
// `count` being a root constant. examples/lists/indirect.toml runs it with count = 200:
// expect: u0[0] = 4 1 1

cbuffer Params : register(b0)
{
    uint count;
};

RWByteAddressBuffer args : register(u0);

[numthreads(1, 1, 1)]
void main()
{
    args.Store3(0, uint3((count + 63) / 64, 1, 1));
}
