//! Lowering DXBC programs and DXIL modules to the interpreter IR.
