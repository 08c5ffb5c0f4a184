//! Unit tests of the bitcode writer: encodings, and modules built by hand read back.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::dxil::llvm::decode_signed;

#[test]
fn signed_encoding_inverts_the_reader() {
    // LLVM `emitSignedInt64` / `decodeSignRotatedValue`: bit 0 is the sign.
    for v in [0, 1, -1, 5, -5, i64::MAX, i64::MIN, i64::MIN + 1] {
        assert_eq!(decode_signed(encode_signed(v)), v, "{v}");
    }
    assert_eq!(encode_signed(-1), 3);
    assert_eq!(encode_signed(i64::MIN), 1);
}
