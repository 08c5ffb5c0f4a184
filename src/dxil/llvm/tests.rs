//! Unit tests of the LLVM layer on small facts of the encoding.

use super::*;

#[test]
fn signed_vbr_decoding() {
    // LLVM BitcodeReader decodeSignRotatedValue: bit 0 is the sign.
    assert_eq!(decode_signed(0), 0);
    assert_eq!(decode_signed(2), 1);
    assert_eq!(decode_signed(3), -1);
    assert_eq!(decode_signed(1), i64::MIN);
}

#[test]
fn attribute_kind_numbers_follow_llvm_3_7() {
    // Seed 000_…: "9 noalias, 11 nocapture, 12 noduplicate, 17 noreturn, 18 nounwind,
    // 20 readnone, 21 readonly and 39 nonnull".
    for (k, n) in [
        (9, "noalias"),
        (11, "nocapture"),
        (12, "noduplicate"),
        (17, "noreturn"),
        (18, "nounwind"),
        (20, "readnone"),
        (21, "readonly"),
        (39, "nonnull"),
    ] {
        assert_eq!(attribute_kind_name(k), Some(n));
    }
}

#[test]
fn garbage_is_refused() {
    assert!(Module::parse(b"BC\xC0\xDE").is_err());
    assert!(Module::parse(&[]).is_err());
}
