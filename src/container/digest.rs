//! The container digest: Direct3D's variant of MD5 over the bytes after the digest
//! field.
//!
//! Owns: the MD5 compression function (RFC 1321, section 3.4) and the container's own
//! final-block layout. Does not own: deciding what to do with a mismatch — a wrong
//! digest is reported, never refused, because the digest is an integrity check and not
//! an authenticity check (the runtime refuses unsigned programs; this tool reads them).

use serde::Serialize;

/// MD5's initial chaining state (RFC 1321, section 3.3).
const MD5_INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// Per-step left-rotation amounts, four per round (RFC 1321, section 3.4).
const SHIFTS: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// The additive constants `floor(abs(sin(i + 1)) * 2^32)` (RFC 1321, section 3.4).
const SINES: [u32; 64] = [
    0xd76a_a478,
    0xe8c7_b756,
    0x2420_70db,
    0xc1bd_ceee,
    0xf57c_0faf,
    0x4787_c62a,
    0xa830_4613,
    0xfd46_9501,
    0x6980_98d8,
    0x8b44_f7af,
    0xffff_5bb1,
    0x895c_d7be,
    0x6b90_1122,
    0xfd98_7193,
    0xa679_438e,
    0x49b4_0821,
    0xf61e_2562,
    0xc040_b340,
    0x265e_5a51,
    0xe9b6_c7aa,
    0xd62f_105d,
    0x0244_1453,
    0xd8a1_e681,
    0xe7d3_fbc8,
    0x21e1_cde6,
    0xc337_07d6,
    0xf4d5_0d87,
    0x455a_14ed,
    0xa9e3_e905,
    0xfcef_a3f8,
    0x676f_02d9,
    0x8d2a_4c8a,
    0xfffa_3942,
    0x8771_f681,
    0x6d9d_6122,
    0xfde5_380c,
    0xa4be_ea44,
    0x4bde_cfa9,
    0xf6bb_4b60,
    0xbebf_bc70,
    0x289b_7ec6,
    0xeaa1_27fa,
    0xd4ef_3085,
    0x0488_1d05,
    0xd9d4_d039,
    0xe6db_99e5,
    0x1fa2_7cf8,
    0xc4ac_5665,
    0xf429_2244,
    0x432a_ff97,
    0xab94_23a7,
    0xfc93_a039,
    0x655b_59c3,
    0x8f0c_cc92,
    0xffef_f47d,
    0x8584_5dd1,
    0x6fa8_7e4f,
    0xfe2c_e6e0,
    0xa301_4314,
    0x4e08_11a1,
    0xf753_7e82,
    0xbd3a_f235,
    0x2ad7_d2bb,
    0xeb86_d391,
];

/// The MD5 compression function: folds one 64-byte block into `state`
/// (RFC 1321, section 3.4; all arithmetic is modulo 2^32).
pub fn md5_compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *word = bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for (i, (&k, round_shifts)) in SINES
        .iter()
        .zip(SHIFTS.iter().flat_map(|r| std::iter::repeat_n(r, 16)))
        .enumerate()
    {
        let round = i / 16;
        let (f, g) = match round {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), i.wrapping_mul(5).wrapping_add(1) % 16),
            2 => (b ^ c ^ d, i.wrapping_mul(3).wrapping_add(5) % 16),
            _ => (c ^ (b | !d), i.wrapping_mul(7) % 16),
        };
        let shift = round_shifts.get(i % 4).copied().unwrap_or(0);
        let word = m.get(g).copied().unwrap_or(0);
        let rotated = a
            .wrapping_add(f)
            .wrapping_add(k)
            .wrapping_add(word)
            .rotate_left(shift);
        (a, b, c, d) = (d, b.wrapping_add(rotated), b, c);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

/// Serialises an MD5 state as the 16 digest bytes (each word little-endian).
fn state_bytes(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// Byte offset where the digested bytes start: after the magic (4) and the digest (16).
pub const DIGEST_START: usize = 20;

/// The digest a container stores in bytes 4..20, computed over `container[20..]` (the
/// whole container as given; pass exactly the stated total size).
///
/// Direct3D's variant of MD5: the standard compression function over the full 64-byte
/// blocks, then a final block laid out differently from RFC 1321's padding. With `n`
/// the byte count and `bits = 8n` (modulo 2^32):
///
/// - when fewer than 56 bytes remain, the last block is `bits` (little-endian u32), the
///   remaining bytes, `0x80`, zeros, and in its last word `(bits >> 2) | 1`;
/// - otherwise the remaining bytes, `0x80` and zeros form one block, followed by a block
///   of `bits`, zeros and `(bits >> 2) | 1`.
///
/// There is no standard length suffix. The digest is the final state, each word
/// little-endian. Sources: vkd3d-shader's `vkd3d_compute_dxbc_checksum`
/// (`libs/vkd3d-shader/checksum.c`), and the `dxcontainer` crate's description of the
/// same layout; checked against every corpus container (`tests/all/container.rs`).
/// Inputs shorter than 20 bytes digest as empty.
pub fn compute_digest(container: &[u8]) -> [u8; 16] {
    let data = container.get(DIGEST_START..).unwrap_or_default();
    // The count is kept modulo 2^32 bits, as the reference implementations keep it.
    let bits = u32::try_from((data.len() as u64).wrapping_mul(8) & u64::from(u32::MAX))
        .unwrap_or_default();
    let mut state = MD5_INIT;
    let mut blocks = data.chunks_exact(64);
    for block in blocks.by_ref() {
        if let Ok(block) = <&[u8; 64]>::try_from(block) {
            md5_compress(&mut state, block);
        }
    }
    let rest = blocks.remainder();
    let mut last = [0u8; 64];
    if rest.len() < 56 {
        if let Some(dst) = last.get_mut(4..4usize.saturating_add(rest.len())) {
            dst.copy_from_slice(rest);
        }
        if let Some(b) = last.get_mut(4usize.saturating_add(rest.len())) {
            *b = 0x80;
        }
    } else {
        let mut first = [0u8; 64];
        if let Some(dst) = first.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
        }
        if let Some(b) = first.get_mut(rest.len()) {
            *b = 0x80;
        }
        md5_compress(&mut state, &first);
    }
    if let Some(dst) = last.get_mut(..4) {
        dst.copy_from_slice(&bits.to_le_bytes());
    }
    if let Some(dst) = last.get_mut(60..) {
        dst.copy_from_slice(&((bits >> 2) | 1).to_le_bytes());
    }
    md5_compress(&mut state, &last);
    state_bytes(state)
}

/// What the stored digest says about the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DigestCheck {
    /// The stored digest equals the computed one.
    Matches {
        /// The digest.
        #[serde(serialize_with = "hex16")]
        digest: [u8; 16],
    },
    /// The stored digest differs from the computed one (the container was edited after
    /// it was signed, or is damaged).
    Mismatch {
        /// The digest in bytes 4..20.
        #[serde(serialize_with = "hex16")]
        stored: [u8; 16],
        /// The digest of the bytes.
        #[serde(serialize_with = "hex16")]
        computed: [u8; 16],
    },
    /// The stored digest is all zero: the container was never signed (a compiler run
    /// without signing, or a tool that cleared it).
    Unsigned {
        /// The digest of the bytes.
        #[serde(serialize_with = "hex16")]
        computed: [u8; 16],
    },
}

impl DigestCheck {
    /// Compares a stored digest with the digest of `container` (see [`compute_digest`]).
    pub fn check(stored: [u8; 16], container: &[u8]) -> Self {
        let computed = compute_digest(container);
        if stored == computed {
            DigestCheck::Matches { digest: stored }
        } else if stored == [0; 16] {
            DigestCheck::Unsigned { computed }
        } else {
            DigestCheck::Mismatch { stored, computed }
        }
    }

    /// Whether the stored digest matches.
    pub fn matches(&self) -> bool {
        matches!(self, DigestCheck::Matches { .. })
    }
}

/// The 16 digest bytes as 32 lowercase hex digits.
pub fn hex_digest(d: &[u8; 16]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex16<S: serde::Serializer>(d: &[u8; 16], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex_digest(d))
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity
)]
mod tests {
    use super::*;
    use md5::Digest;

    /// Standard MD5 (RFC 1321 padding: 0x80, zeros, 64-bit little-endian bit count)
    /// built on [`md5_compress`], to check the compression function against `md-5`.
    fn standard_md5(data: &[u8]) -> [u8; 16] {
        let mut padded = data.to_vec();
        padded.push(0x80);
        while padded.len() % 64 != 56 {
            padded.push(0);
        }
        padded.extend_from_slice(&((data.len() as u64) * 8).to_le_bytes());
        let mut state = MD5_INIT;
        for block in padded.chunks_exact(64) {
            md5_compress(&mut state, block.try_into().unwrap());
        }
        state_bytes(state)
    }

    #[test]
    fn compress_matches_md5_crate() {
        // RFC 1321, appendix A.5 test suite, plus lengths around the block boundaries.
        assert_eq!(
            hex_digest(&standard_md5(b"")),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(
            hex_digest(&standard_md5(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300] {
            let expected: [u8; 16] = md5::Md5::digest(&data[..n]).into();
            assert_eq!(standard_md5(&data[..n]), expected, "length {n}");
        }
    }

    /// The final-block layout, spelled out independently for a short and a long tail
    /// (vkd3d-shader `checksum.c`: bit count first, `(bits >> 2) | 1` last).
    #[test]
    fn final_block_layout() {
        for tail in [0usize, 3, 55, 56, 60, 63] {
            let mut container = vec![0xaau8; 20];
            container.extend((0..64 + tail).map(|i| i as u8));
            let data = &container[20..];
            let bits = (data.len() * 8) as u32;
            let mut state = MD5_INIT;
            md5_compress(&mut state, data[..64].try_into().unwrap());
            let rest = &data[64..];
            let mut last = [0u8; 64];
            if rest.len() < 56 {
                last[4..4 + rest.len()].copy_from_slice(rest);
                last[4 + rest.len()] = 0x80;
            } else {
                let mut first = [0u8; 64];
                first[..rest.len()].copy_from_slice(rest);
                first[rest.len()] = 0x80;
                md5_compress(&mut state, &first);
            }
            last[..4].copy_from_slice(&bits.to_le_bytes());
            last[60..].copy_from_slice(&((bits >> 2) | 1).to_le_bytes());
            md5_compress(&mut state, &last);
            assert_eq!(
                compute_digest(&container),
                state_bytes(state),
                "tail {tail}"
            );
        }
    }

    #[test]
    fn verdicts() {
        let bytes = vec![1u8; 100];
        let d = compute_digest(&bytes);
        assert!(DigestCheck::check(d, &bytes).matches());
        assert!(matches!(
            DigestCheck::check([0; 16], &bytes),
            DigestCheck::Unsigned { .. }
        ));
        assert!(matches!(
            DigestCheck::check([1; 16], &bytes),
            DigestCheck::Mismatch { .. }
        ));
        // Short input digests as empty rather than panicking.
        assert_eq!(compute_digest(&[0; 5]), compute_digest(&[0; 20]));
    }
}
