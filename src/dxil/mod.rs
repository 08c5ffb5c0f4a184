//! Shader Model 6 programs: the LLVM 3.7 bitstream and module, the `dx.op` table, DXIL
//! metadata and the dxc-style listing.
