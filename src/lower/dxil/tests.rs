//! Unit tests of the DXIL lowering.
