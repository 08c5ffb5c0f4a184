//! Unit tests of the DXBC lowering: hand-assembled programs.
