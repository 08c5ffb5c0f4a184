//! Writing a bitstream: fixed and VBR fields, blocks with their length word, and
//! unabbreviated records.
//!
//! Owns: the encoding side of the "LLVM Bitcode File Format" document's "Bitstream
//! Format" section, as far as a writer that defines no abbreviations needs it: the
//! magic, ENTER_SUBBLOCK (block id, abbreviation width, 32-bit alignment, the length
//! word patched at END_BLOCK), END_BLOCK, and UNABBREV_RECORD (code, operand count and
//! operands as 6-bit VBR). Every record the reader accepts in abbreviated form it also
//! accepts unabbreviated, so no abbreviation or BLOCKINFO is written.
//!
//! Does not own: what the blocks and records mean (see [`crate::dxil::llvm::write`]).

use super::BITCODE_MAGIC;

/// Abbreviation id width at the top level (LLVM's fixed starting width).
const TOP_ABBREV_WIDTH: u32 = 2;

/// Abbreviation id of END_BLOCK.
const END_BLOCK: u64 = 0;
/// Abbreviation id of ENTER_SUBBLOCK.
const ENTER_SUBBLOCK: u64 = 1;
/// Abbreviation id of UNABBREV_RECORD.
const UNABBREV_RECORD: u64 = 3;

/// A bitstream under construction: bits are packed least significant first into
/// little-endian bytes.
#[derive(Debug, Clone)]
pub struct BitWriter {
    out: Vec<u8>,
    /// Bits not yet flushed to `out` (the low `pending` bits of `acc`).
    acc: u64,
    pending: u32,
    /// Open blocks: the byte offset of each one's length word and the enclosing
    /// abbreviation width.
    open: Vec<(usize, u32)>,
    width: u32,
}

impl Default for BitWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl BitWriter {
    /// A stream that starts with the bitcode magic (`BC\xC0\xDE`).
    pub fn new() -> Self {
        BitWriter {
            out: BITCODE_MAGIC.to_vec(),
            acc: 0,
            pending: 0,
            open: Vec::new(),
            width: TOP_ABBREV_WIDTH,
        }
    }

    /// Writes the low `width` bits of `v` (`width` at most 32).
    pub fn fixed(&mut self, v: u64, width: u32) {
        let width = width.min(32);
        let mask = (1u64 << width).wrapping_sub(1);
        self.acc |= (v & mask) << self.pending;
        self.pending = self.pending.saturating_add(width);
        while self.pending >= 8 {
            self.out.push(self.acc.to_le_bytes()[0]);
            self.acc >>= 8;
            self.pending = self.pending.saturating_sub(8);
        }
    }

    /// Writes `v` as a VBR field of `width`-bit chunks (`width` 2 to 32).
    pub fn vbr(&mut self, mut v: u64, width: u32) {
        let width = width.clamp(2, 32);
        let shift = width.saturating_sub(1);
        let hi = 1u64 << shift;
        while v >= hi {
            self.fixed((v & hi.wrapping_sub(1)) | hi, width);
            v >>= shift;
        }
        self.fixed(v, width);
    }

    /// Pads with zero bits to the next 32-bit boundary.
    fn align32(&mut self) {
        if self.pending > 0 {
            self.fixed(0, 8u32.saturating_sub(self.pending));
        }
        while self.out.len() % 4 != 0 {
            self.out.push(0);
        }
    }

    /// Enters block `id`, whose abbreviation ids take `abbrev_width` bits.
    pub fn enter(&mut self, id: u32, abbrev_width: u32) {
        self.fixed(ENTER_SUBBLOCK, self.width);
        self.vbr(id.into(), 8);
        self.vbr(abbrev_width.into(), 4);
        self.align32();
        self.open.push((self.out.len(), self.width));
        self.out.extend_from_slice(&[0; 4]);
        self.width = abbrev_width;
    }

    /// Leaves the innermost block, filling in its length in 32-bit words. Does nothing
    /// when no block is open.
    pub fn exit(&mut self) {
        let Some((at, width)) = self.open.pop() else {
            return;
        };
        self.fixed(END_BLOCK, self.width);
        self.align32();
        self.width = width;
        let words = self.out.len().saturating_sub(at).saturating_sub(4) / 4;
        let words = u32::try_from(words).unwrap_or(u32::MAX).to_le_bytes();
        if let Some(slot) = self.out.get_mut(at..at.saturating_add(4)) {
            slot.copy_from_slice(&words);
        }
    }

    /// Writes an unabbreviated record.
    pub fn record(&mut self, code: u32, ops: &[u64]) {
        self.fixed(UNABBREV_RECORD, self.width);
        self.vbr(code.into(), 6);
        self.vbr(ops.len() as u64, 6);
        for &op in ops {
            self.vbr(op, 6);
        }
    }

    /// The bytes written, with every open block closed.
    pub fn finish(mut self) -> Vec<u8> {
        while !self.open.is_empty() {
            self.exit();
        }
        self.align32();
        self.out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::super::{Item, read_tree};
    use super::*;

    #[test]
    fn blocks_and_records_read_back() {
        // "Bitstream Format": a block's length word counts the 32-bit words after it,
        // END_BLOCK's alignment included; operands are 6-bit VBR.
        let mut w = BitWriter::new();
        w.enter(8, 3);
        w.record(1, &[2]);
        w.enter(17, 4);
        w.record(7, &[32, u64::from(u32::MAX), 1 << 40]);
        w.exit();
        w.exit();
        let bytes = w.finish();
        assert_eq!(&bytes[..4], b"BC\xC0\xDE");
        assert_eq!(bytes.len() % 4, 0);
        let tree = read_tree(&bytes).unwrap();
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].id, 8);
        let Item::Record(r) = &tree[0].items[0] else {
            panic!("a record first")
        };
        assert_eq!((r.code, r.ops.as_slice()), (1, &[2u64][..]));
        let Item::Block(inner) = &tree[0].items[1] else {
            panic!("then a block")
        };
        assert_eq!(inner.id, 17);
        let Item::Record(r) = &inner.items[0] else {
            panic!("a record")
        };
        assert_eq!(r.ops, vec![32, u64::from(u32::MAX), 1 << 40]);
    }
}
