//! Hand-built bit patterns for the bitstream reader. The encodings follow LLVM's
//! "LLVM Bitcode File Format" document, section "Bitstream Format".

#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use super::*;

/// Writes bit fields, least significant bit first (the test's own encoder).
#[derive(Default)]
struct W {
    bits: Vec<bool>,
}

impl W {
    fn new() -> Self {
        let mut w = W::default();
        for b in BITCODE_MAGIC {
            w.fixed(b.into(), 8);
        }
        w
    }
    fn fixed(&mut self, v: u64, width: u32) {
        for i in 0..width {
            self.bits.push((v >> i) & 1 == 1);
        }
    }
    fn vbr(&mut self, mut v: u64, width: u32) {
        let hi = 1u64 << (width - 1);
        loop {
            if v < hi {
                self.fixed(v, width);
                return;
            }
            self.fixed((v & (hi - 1)) | hi, width);
            v >>= width - 1;
        }
    }
    fn align32(&mut self) {
        while self.bits.len() % 32 != 0 {
            self.bits.push(false);
        }
    }
    /// ENTER_SUBBLOCK with the current width `cw`; returns the length word's position.
    fn enter(&mut self, cw: u32, id: u64, width: u64) -> usize {
        self.fixed(1, cw);
        self.vbr(id, 8);
        self.vbr(width, 4);
        self.align32();
        let at = self.bits.len();
        self.fixed(0, 32);
        at
    }
    /// END_BLOCK and back-patches the length word at `at`.
    fn end(&mut self, cw: u32, at: usize) {
        self.fixed(0, cw);
        self.align32();
        let words = ((self.bits.len() - at - 32) / 32) as u64;
        for i in 0..32 {
            self.bits[at + i] = (words >> i) & 1 == 1;
        }
    }
    fn unabbrev(&mut self, cw: u32, code: u64, ops: &[u64]) {
        self.fixed(3, cw);
        self.vbr(code, 6);
        self.vbr(ops.len() as u64, 6);
        for &o in ops {
            self.vbr(o, 6);
        }
    }
    fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.bits.len().div_ceil(8)];
        for (i, &b) in self.bits.iter().enumerate() {
            if b {
                out[i / 8] |= 1 << (i % 8);
            }
        }
        out
    }
}

fn records(bytes: &[u8]) -> Result<Vec<OwnedRecord>> {
    let tree = read_tree(bytes)?;
    let mut out = Vec::new();
    fn walk(b: &Block, out: &mut Vec<OwnedRecord>) {
        for it in &b.items {
            match it {
                Item::Record(r) => out.push(r.clone()),
                Item::Block(b) => walk(b, out),
            }
        }
    }
    for b in &tree {
        walk(b, &mut out);
    }
    Ok(out)
}

#[test]
fn refuses_bad_magic() {
    assert!(matches!(
        Bitstream::new(b"BC\xC0\xDF"),
        Err(BitstreamError::BadMagic { .. })
    ));
    assert!(matches!(
        Bitstream::new(b""),
        Err(BitstreamError::BadMagic { .. })
    ));
}

#[test]
fn unabbreviated_records_and_wide_vbr() {
    // LLVM bitcode format: UNABBREV_RECORD is [3, code vbr6, numops vbr6, ops vbr6...].
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.unabbrev(3, 7, &[1, 31, 32, u64::MAX]);
    w.end(3, at);
    let r = records(&w.bytes()).unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, 7);
    assert_eq!(r[0].ops, vec![1, 31, 32, u64::MAX]);
    assert_eq!(r[0].abbrev, None);
}

#[test]
fn abbreviations_literal_fixed_vbr_char6_array_blob() {
    let mut w = W::new();
    let at = w.enter(2, 9, 4);
    // DEFINE_ABBREV: [literal 5, fixed 3, vbr 4, array of char6]
    w.fixed(2, 4);
    w.vbr(5, 5);
    w.fixed(1, 1);
    w.vbr(5, 8);
    w.fixed(0, 1);
    w.fixed(1, 3);
    w.vbr(3, 5);
    w.fixed(0, 1);
    w.fixed(2, 3);
    w.vbr(4, 5);
    w.fixed(0, 1);
    w.fixed(3, 3);
    w.fixed(0, 1);
    w.fixed(4, 3);
    // Record with abbreviation 4.
    w.fixed(4, 4);
    w.fixed(6, 3);
    w.vbr(100, 4);
    w.vbr(3, 6);
    for c in [0u64, 26, 63] {
        w.fixed(c, 6);
    }
    // DEFINE_ABBREV: [literal 9, blob]
    w.fixed(2, 4);
    w.vbr(2, 5);
    w.fixed(1, 1);
    w.vbr(9, 8);
    w.fixed(0, 1);
    w.fixed(5, 3);
    w.fixed(5, 4);
    w.vbr(3, 6);
    w.align32();
    w.fixed(0x41, 8);
    w.fixed(0x42, 8);
    w.fixed(0x43, 8);
    w.align32();
    w.end(4, at);
    let r = records(&w.bytes()).unwrap();
    assert_eq!(r[0].code, 5);
    assert_eq!(
        r[0].ops,
        vec![6, 100, b'a' as u64, b'A' as u64, b'_' as u64]
    );
    assert_eq!(r[0].abbrev, Some(4));
    assert_eq!(r[1].code, 9);
    assert_eq!(r[1].blob.as_deref(), Some(&b"ABC"[..]));
}

#[test]
fn blockinfo_gives_abbreviations_to_later_blocks() {
    // Standard block BLOCKINFO (id 0): SETBID then DEFINE_ABBREV applies to that block id.
    let mut w = W::new();
    let bi = w.enter(2, 0, 2);
    w.unabbrev(2, 1, &[17]);
    w.fixed(2, 2);
    w.vbr(2, 5);
    w.fixed(1, 1);
    w.vbr(21, 8);
    w.fixed(0, 1);
    w.fixed(1, 3);
    w.vbr(8, 5);
    w.end(2, bi);
    let at = w.enter(2, 17, 3);
    w.fixed(4, 3);
    w.fixed(200, 8);
    w.end(3, at);
    let tree = read_tree(&w.bytes()).unwrap();
    assert_eq!(tree.len(), 1, "BLOCKINFO is consumed by the reader");
    assert_eq!(tree[0].id, 17);
    let Item::Record(r) = &tree[0].items[0] else {
        panic!()
    };
    assert_eq!((r.code, r.ops.as_slice()), (21, &[200u64][..]));
}

#[test]
fn block_length_past_end_is_refused_before_reading() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.unabbrev(3, 1, &[1]);
    w.end(3, at);
    let mut b = w.bytes();
    // Overwrite the length word with a huge count.
    b[at / 8..at / 8 + 4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    assert!(matches!(
        read_tree(&b),
        Err(BitstreamError::TooLong {
            what: "block length (32-bit words)",
            ..
        })
    ));
}

#[test]
fn stated_block_length_must_match_end_block() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.unabbrev(3, 1, &[1]);
    w.end(3, at);
    w.fixed(0, 32);
    let mut b = w.bytes();
    let words = u32::from_le_bytes(b[at / 8..at / 8 + 4].try_into().unwrap());
    b[at / 8..at / 8 + 4].copy_from_slice(&(words + 1).to_le_bytes());
    assert!(matches!(read_tree(&b), Err(BitstreamError::Invalid { .. })));
}

#[test]
fn huge_operand_and_array_counts_are_refused() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.fixed(3, 3);
    w.vbr(1, 6);
    w.vbr(1 << 40, 6);
    w.end(3, at);
    assert!(matches!(
        read_tree(&w.bytes()),
        Err(BitstreamError::TooLong {
            what: "record operand count",
            ..
        })
    ));

    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.fixed(2, 3);
    w.vbr(2, 5);
    w.fixed(0, 1);
    w.fixed(3, 3);
    w.fixed(0, 1);
    w.fixed(1, 3);
    w.vbr(8, 5);
    w.fixed(4, 3);
    w.vbr(1 << 30, 6);
    w.end(3, at);
    let e = read_tree(&w.bytes()).unwrap_err();
    assert!(
        matches!(
            e,
            BitstreamError::Invalid { .. } | BitstreamError::TooLong { .. }
        ),
        "{e}"
    );
}

#[test]
fn array_length_checked_against_block() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    // [literal 1, array fixed 8]
    w.fixed(2, 3);
    w.vbr(3, 5);
    w.fixed(1, 1);
    w.vbr(1, 8);
    w.fixed(0, 1);
    w.fixed(3, 3);
    w.fixed(0, 1);
    w.fixed(1, 3);
    w.vbr(8, 5);
    w.fixed(4, 3);
    w.vbr(1000, 6);
    w.end(3, at);
    assert!(matches!(
        read_tree(&w.bytes()),
        Err(BitstreamError::TooLong {
            what: "array length",
            ..
        })
    ));
}

#[test]
fn vbr_wider_than_64_bits_is_refused() {
    let mut r = BitReader::new(&[0xff; 16]);
    assert!(matches!(r.vbr(6, "x"), Err(BitstreamError::Invalid { .. })));
}

#[test]
fn undefined_abbreviation_id_is_refused() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.fixed(5, 3);
    w.end(3, at);
    assert!(matches!(
        read_tree(&w.bytes()),
        Err(BitstreamError::Invalid {
            what: "abbreviation id",
            bit: 96,
            ..
        })
    ));
}

#[test]
fn fixed_width_over_64_and_vbr_over_32_are_refused() {
    for (enc, width) in [(1u64, 65u64), (2, 33)] {
        let mut w = W::new();
        let at = w.enter(2, 8, 3);
        w.fixed(2, 3);
        w.vbr(2, 5);
        w.fixed(1, 1);
        w.vbr(1, 8);
        w.fixed(0, 1);
        w.fixed(enc, 3);
        w.vbr(width, 5);
        w.end(3, at);
        assert!(matches!(
            read_tree(&w.bytes()),
            Err(BitstreamError::Invalid {
                what: "abbreviation field width",
                ..
            })
        ));
    }
}

#[test]
fn abbreviation_width_zero_is_refused() {
    let mut w = W::new();
    let at = w.enter(2, 8, 0);
    w.end(1, at);
    assert!(matches!(
        read_tree(&w.bytes()),
        Err(BitstreamError::Invalid {
            what: "abbreviation width",
            ..
        })
    ));
}

#[test]
fn skip_block_jumps_past_the_block() {
    let mut w = W::new();
    let outer = w.enter(2, 8, 3);
    let inner = w.enter(3, 12, 4);
    w.unabbrev(4, 1, &[1, 2, 3]);
    w.end(4, inner);
    w.unabbrev(3, 2, &[9]);
    w.end(3, outer);
    let b = w.bytes();
    let mut bs = Bitstream::new(&b).unwrap();
    assert!(matches!(
        bs.next_entry().unwrap(),
        Entry::Enter { id: 8, .. }
    ));
    assert!(matches!(
        bs.next_entry().unwrap(),
        Entry::Enter { id: 12, .. }
    ));
    bs.skip_block().unwrap();
    match bs.next_entry().unwrap() {
        Entry::Record(r) => assert_eq!((r.code, r.ops), (2, &[9u64][..])),
        e => panic!("{e:?}"),
    }
    assert_eq!(bs.next_entry().unwrap(), Entry::End);
    assert_eq!(bs.next_entry().unwrap(), Entry::Eof);
}

#[test]
fn wrapper_header_is_stripped() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.end(3, at);
    let inner = w.bytes();
    let mut b = Vec::new();
    for v in [WRAPPER_MAGIC, 0, 20, inner.len() as u32, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&inner);
    assert_eq!(read_tree(&b).unwrap().len(), 1);
    b[12] = 0xff;
    assert!(matches!(
        read_tree(&b),
        Err(BitstreamError::BadWrapper { .. })
    ));
}

#[test]
fn truncation_reports_bit_offset() {
    let mut w = W::new();
    let at = w.enter(2, 8, 3);
    w.unabbrev(3, 1, &[1, 2, 3, 4, 5, 6, 7, 8]);
    w.end(3, at);
    let b = w.bytes();
    for cut in (8..b.len()).step_by(4) {
        assert!(read_tree(&b[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn reads_across_buffer_refills() {
    let data: Vec<u8> = (0..64u8).collect();
    let mut r = BitReader::new(&data);
    let mut got = Vec::new();
    for _ in 0..(64 * 8 / 13) {
        got.push(r.read(13, "x").unwrap());
    }
    let mut expect = Vec::new();
    for i in 0..got.len() {
        let mut v = 0u64;
        for j in 0..13 {
            let bit = i * 13 + j;
            v |= (((data[bit / 8] >> (bit % 8)) & 1) as u64) << j;
        }
        expect.push(v);
    }
    assert_eq!(got, expect);
    let mut r = BitReader::new(&data);
    r.read(3, "x").unwrap();
    assert_eq!(
        r.read(64, "x").unwrap(),
        u64::from_le_bytes(data[0..8].try_into().unwrap()) >> 3 | (data[8] as u64) << 61
    );
}

/// Block 8 holding: record 1, block 12 (record 2, block 13 (record 3)), record 4,
/// block 14 (records 5 and 6).
fn nested_blocks() -> Vec<u8> {
    let mut w = W::new();
    let b8 = w.enter(2, 8, 3);
    w.unabbrev(3, 1, &[1]);
    let b12 = w.enter(3, 12, 4);
    w.unabbrev(4, 2, &[2]);
    let b13 = w.enter(4, 13, 5);
    w.unabbrev(5, 3, &[3]);
    w.end(5, b13);
    w.end(4, b12);
    w.unabbrev(3, 4, &[4]);
    let b14 = w.enter(3, 14, 4);
    w.unabbrev(4, 5, &[5]);
    w.unabbrev(4, 6, &[6]);
    w.end(4, b14);
    w.end(3, b8);
    w.bytes()
}

/// The code of a record entry, or the id of a block entry as `1000 + id`.
fn code_of(e: &BlockEntry<'_, '_>) -> u32 {
    match e {
        BlockEntry::Record(r) => r.code,
        BlockEntry::Block(b) => 1000 + b.id(),
    }
}

#[test]
fn block_reader_skips_what_its_caller_leaves_unread() {
    let b = nested_blocks();
    let mut bs = Bitstream::new(&b).unwrap();
    let mut top = BlockReader::top(&mut bs);
    let Some(BlockEntry::Block(mut b8)) = top.next_entry().unwrap() else {
        panic!("no block at the top level")
    };
    assert_eq!((b8.id(), b8.start_bit()), (8, 32));
    let mut seen = Vec::new();
    while let Some(e) = b8.next_entry().unwrap() {
        seen.push(code_of(&e));
        match e {
            // Block 12 and the block inside it are left unread.
            BlockEntry::Block(b12) if b12.id() == 12 => {}
            // Block 14 is read halfway.
            BlockEntry::Block(mut b14) => {
                let r = b14.next_record().unwrap().unwrap();
                assert_eq!((r.code, r.ops), (5, &[5u64][..]));
            }
            BlockEntry::Record(_) => {}
        }
    }
    assert_eq!(seen, [1, 1012, 4, 1014]);
    // Past the end of block 8 it stays ended; the stream's top level ends next.
    assert!(b8.next_entry().unwrap().is_none());
    assert!(top.next_entry().unwrap().is_none());
    assert!(top.next_entry().unwrap().is_none());
}

#[test]
fn block_reader_records_skip_nested_blocks() {
    let b = nested_blocks();
    let mut bs = Bitstream::new(&b).unwrap();
    let mut top = BlockReader::top(&mut bs);
    let Some(BlockEntry::Block(mut b8)) = top.next_entry().unwrap() else {
        panic!("no block at the top level")
    };
    let left = b8.bits_left().unwrap();
    let mut codes = Vec::new();
    while let Some(r) = b8.next_record().unwrap() {
        codes.push(r.code);
    }
    assert_eq!(codes, [1, 4]);
    // The body starts at bit 96: the magic, the ENTER fields padded to bit 64, the
    // length word.
    assert_eq!(left, b8.bit() - 96);
    assert!(top.next_entry().unwrap().is_none());
}

#[test]
fn block_reader_applies_blockinfo_and_never_yields_it() {
    // As `blockinfo_gives_abbreviations_to_later_blocks`, read through a BlockReader.
    let mut w = W::new();
    let bi = w.enter(2, 0, 2);
    w.unabbrev(2, 1, &[17]);
    w.fixed(2, 2);
    w.vbr(2, 5);
    w.fixed(1, 1);
    w.vbr(21, 8);
    w.fixed(0, 1);
    w.fixed(1, 3);
    w.vbr(8, 5);
    w.end(2, bi);
    let at = w.enter(2, 17, 3);
    w.fixed(4, 3);
    w.fixed(200, 8);
    w.end(3, at);
    let b = w.bytes();
    let mut bs = Bitstream::new(&b).unwrap();
    let mut top = BlockReader::top(&mut bs);
    let Some(BlockEntry::Block(mut b17)) = top.next_entry().unwrap() else {
        panic!("BLOCKINFO was yielded")
    };
    assert_eq!(b17.id(), 17);
    let r = b17.next_record().unwrap().unwrap();
    assert_eq!((r.code, r.ops, r.abbrev), (21, &[200u64][..], Some(4)));
    assert!(b17.next_record().unwrap().is_none());
    assert!(top.next_entry().unwrap().is_none());
}

#[test]
fn block_reader_yields_a_top_level_record_to_its_caller() {
    let mut w = W::new();
    w.unabbrev(2, 7, &[1]);
    w.align32();
    let b = w.bytes();
    let mut bs = Bitstream::new(&b).unwrap();
    let mut top = BlockReader::top(&mut bs);
    // The top level yields the record; what a top-level record means is the caller's.
    assert!(matches!(top.next_entry().unwrap(), Some(BlockEntry::Record(r)) if r.code == 7));
}

#[test]
fn tree_refuses_a_top_level_record_where_its_entry_starts() {
    // LLVM streams hold only blocks at the top level ("Bitstream Format"); the error
    // names the bit where the entry (here the record's abbreviation id) starts.
    let mut w = W::new();
    w.unabbrev(2, 7, &[1]);
    w.align32();
    assert_eq!(
        read_tree(&w.bytes()),
        Err(BitstreamError::Invalid {
            bit: 32,
            what: "record at top level",
            value: 7,
        })
    );
}

#[test]
fn tree_holds_nested_blocks_in_stream_order() {
    let tree = read_tree(&nested_blocks()).unwrap();
    let [b8] = tree.as_slice() else {
        panic!("{tree:?}")
    };
    let shape: Vec<String> = b8
        .items
        .iter()
        .map(|it| match it {
            Item::Record(r) => format!("r{}", r.code),
            Item::Block(b) => format!("b{}:{}", b.id, b.items.len()),
        })
        .collect();
    assert_eq!(shape, ["r1", "b12:2", "r4", "b14:2"]);
    assert_eq!(b8.bit, 32);
}
