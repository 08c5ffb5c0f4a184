//! The interpreter IR that both DXBC and DXIL programs are lowered to.
