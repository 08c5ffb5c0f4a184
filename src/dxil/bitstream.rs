//! The LLVM bitstream container format: blocks, abbreviations and records.
//!
//! Owns: the magic (`BC\xC0\xDE`, after the optional bitcode wrapper header), reading
//! fixed-width and variable-width (VBR) fields, abbreviation definitions (literal, fixed,
//! VBR, array, char6, blob), the BLOCKINFO block (SETBID and the abbreviations it gives
//! other blocks; block and record names are ignored), entering and leaving blocks (32-bit
//! alignment and the block length word), unabbreviated and abbreviated records with
//! their operands and blobs.
//!
//! Readers walk a block with a [`BlockReader`]: it yields the block's records and nested
//! blocks (each with its own reader) and ends at END_BLOCK; the abbreviations and BLOCKINFO
//! are applied underneath, and a nested block its caller leaves unread is skipped.
//!
//! Does not own: what any block or record means. It knows nothing of LLVM modules (see
//! [`crate::dxil::llvm`]).
//!
//! The format is LLVM's "LLVM Bitcode File Format" document (sections "Bitstream
//! Format", "Abbreviations", "Standard Blocks"). Every count read from the input (block
//! length, array length, blob length, operand count) is checked against the bits that
//! remain in the enclosing block before anything is allocated or skipped, and every
//! error carries the bit offset where the offending field starts.
//!
//! Speed: fields are read from a 64-bit buffer refilled eight bytes at a time, so a
//! field costs a mask and a shift; there is no loop over single bits.

use std::rc::Rc;

pub mod write;

/// The bitcode magic, the first four bytes of a raw bitcode stream.
pub const BITCODE_MAGIC: [u8; 4] = *b"BC\xC0\xDE";

/// The magic word of the optional bitcode wrapper header (little-endian `0x0B17C0DE`).
pub const WRAPPER_MAGIC: u32 = 0x0B17_C0DE;

/// The size of the bitcode wrapper header: magic, version, offset, size, CPU type.
pub const WRAPPER_HEADER_SIZE: usize = 20;

/// Blocks nest at most this deep. LLVM modules nest four deep (module → function →
/// constants/metadata/symbol table); the limit bounds the scope stack.
pub const MAX_BLOCK_DEPTH: usize = 64;

/// The widest abbreviation id width a block may declare (LLVM's limit).
pub const MAX_ABBREV_WIDTH: u32 = 32;

/// The widest fixed-width field an abbreviation may declare.
pub const MAX_FIXED_WIDTH: u32 = 64;

/// The widest VBR chunk an abbreviation may declare.
pub const MAX_VBR_WIDTH: u32 = 32;

/// Id of the BLOCKINFO block.
pub const BLOCKINFO_BLOCK_ID: u32 = 0;

/// Abbreviation id 0: END_BLOCK.
const END_BLOCK: u64 = 0;
/// Abbreviation id 1: ENTER_SUBBLOCK.
const ENTER_SUBBLOCK: u64 = 1;
/// Abbreviation id 2: DEFINE_ABBREV.
const DEFINE_ABBREV: u64 = 2;
/// Abbreviation id 3: UNABBREV_RECORD.
const UNABBREV_RECORD: u64 = 3;
/// The first abbreviation id that names a defined abbreviation.
const FIRST_APPLICATION_ABBREV: u64 = 4;

/// BLOCKINFO record SETBID.
const BLOCKINFO_CODE_SETBID: u32 = 1;

/// An error reading the bitstream; every variant carries the bit offset (from the
/// start of the bitcode, after any wrapper header) where the bad field starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BitstreamError {
    /// The stream does not start with `BC\xC0\xDE` (nor with a wrapper header).
    #[error("not LLVM bitcode: magic is {found:02x?}, expected 42 43 c0 de")]
    BadMagic {
        /// The first bytes found.
        found: [u8; 4],
    },
    /// The bitcode wrapper header points outside the input.
    #[error("bitcode wrapper states {size} bytes at byte {offset}, outside the {len} bytes given")]
    BadWrapper {
        /// Stated offset of the bitcode.
        offset: u32,
        /// Stated size of the bitcode.
        size: u32,
        /// Bytes available.
        len: usize,
    },
    /// The stream length is not a multiple of four bytes.
    #[error("bitcode of {len} bytes is not a whole number of 32-bit words")]
    NotWordAligned {
        /// Bytes in the stream.
        len: usize,
    },
    /// A field runs past the end of the stream or of its block.
    #[error("truncated bitstream at bit {bit}: {what} needs {need} bits, {have} remain")]
    Truncated {
        /// Where the field starts.
        bit: u64,
        /// What was being read.
        what: &'static str,
        /// Bits needed.
        need: u64,
        /// Bits left.
        have: u64,
    },
    /// A count or length is larger than the bits that remain could hold.
    #[error("{what} of {count} at bit {bit} cannot fit in the {have} bits that remain")]
    TooLong {
        /// Where the count was read.
        bit: u64,
        /// What was counted.
        what: &'static str,
        /// The stated count.
        count: u64,
        /// Bits left in the enclosing block.
        have: u64,
    },
    /// A field has a value the format does not allow.
    #[error("invalid {what} {value} at bit {bit}")]
    Invalid {
        /// Where the field starts.
        bit: u64,
        /// What the field is.
        what: &'static str,
        /// The value found.
        value: u64,
    },
}

/// Shorthand for this layer's results.
pub type Result<T> = std::result::Result<T, BitstreamError>;

/// The low `width` bits set (`width` in 0..=64).
#[inline]
fn mask(width: u32) -> u64 {
    if width == 0 {
        0
    } else {
        u64::MAX.wrapping_shr(64u32.wrapping_sub(width))
    }
}

/// Reads bit fields, least significant bit first, from a byte slice.
///
/// A 64-bit buffer holds the next bits; it is refilled eight bytes at a time (fewer at
/// the end of the input).
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// The next byte to load into `cur`.
    next: usize,
    /// Buffered bits, lowest first.
    cur: u64,
    /// Number of valid bits in `cur`.
    avail: u32,
}

impl<'a> BitReader<'a> {
    /// A reader at bit 0 of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            next: 0,
            cur: 0,
            avail: 0,
        }
    }

    /// The bytes read.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The current bit offset.
    #[inline]
    pub fn bit(&self) -> u64 {
        (self.next as u64)
            .wrapping_mul(8)
            .wrapping_sub(u64::from(self.avail))
    }

    /// The number of bits in the input.
    #[inline]
    pub fn total_bits(&self) -> u64 {
        (self.data.len() as u64).saturating_mul(8)
    }

    /// Loads the buffer (which must be empty) with up to eight bytes.
    #[inline]
    fn refill(&mut self) {
        let end = self.next.saturating_add(8);
        if let Some(chunk) = self.data.get(self.next..end) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.cur = u64::from_le_bytes(word);
            self.avail = 64;
            self.next = end;
        } else {
            let rest = self.data.get(self.next..).unwrap_or_default();
            let mut word = [0u8; 8];
            for (d, s) in word.iter_mut().zip(rest) {
                *d = *s;
            }
            self.cur = u64::from_le_bytes(word);
            self.avail = u32::try_from(rest.len().saturating_mul(8)).unwrap_or(0);
            self.next = self.data.len();
        }
    }

    /// Reads a `width`-bit field (`width` ≤ 64).
    #[inline]
    pub fn read(&mut self, width: u32, what: &'static str) -> Result<u64> {
        if width <= self.avail {
            let v = self.cur & mask(width);
            self.cur = self.cur.checked_shr(width).unwrap_or(0);
            self.avail = self.avail.wrapping_sub(width);
            return Ok(v);
        }
        self.read_slow(width, what)
    }

    #[cold]
    fn read_slow(&mut self, width: u32, what: &'static str) -> Result<u64> {
        let start = self.bit();
        if width > 64 {
            return Err(BitstreamError::Invalid {
                bit: start,
                what: "field width",
                value: width.into(),
            });
        }
        let low = self.cur;
        let low_bits = self.avail;
        let need = width.wrapping_sub(low_bits);
        self.refill();
        if self.avail < need {
            let have = self.total_bits().saturating_sub(start);
            // Leave the reader where it was so the error position stays meaningful.
            return Err(BitstreamError::Truncated {
                bit: start,
                what,
                need: width.into(),
                have,
            });
        }
        let high = self.cur & mask(need);
        self.cur = self.cur.checked_shr(need).unwrap_or(0);
        self.avail = self.avail.wrapping_sub(need);
        Ok(low | high.checked_shl(low_bits).unwrap_or(0))
    }

    /// Reads a variable-width integer made of `width`-bit chunks (`2 ≤ width ≤ 32`); the
    /// top bit of each chunk says another chunk follows. Values that do not fit in 64
    /// bits are refused.
    #[inline]
    pub fn vbr(&mut self, width: u32, what: &'static str) -> Result<u64> {
        let chunk = self.read(width, what)?;
        let hi = 1u64.wrapping_shl(width.wrapping_sub(1));
        if chunk & hi == 0 {
            return Ok(chunk);
        }
        self.vbr_rest(chunk, width, what)
    }

    fn vbr_rest(&mut self, first: u64, width: u32, what: &'static str) -> Result<u64> {
        let start = self.bit().saturating_sub(width.into());
        let payload = width.saturating_sub(1);
        let hi = 1u64.wrapping_shl(payload);
        let pmask = hi.wrapping_sub(1);
        let mut result = first & pmask;
        let mut shift = payload;
        loop {
            let chunk = self.read(width, what)?;
            let piece = chunk & pmask;
            if shift.saturating_add(payload) <= 64 {
                result |= piece.wrapping_shl(shift);
            } else if piece != 0 {
                // The piece must fit entirely below bit 64.
                let fits = shift < 64
                    && piece.checked_shl(shift).and_then(|v| v.checked_shr(shift)) == Some(piece);
                if !fits {
                    return Err(BitstreamError::Invalid {
                        bit: start,
                        what: "VBR value wider than 64 bits",
                        value: 0,
                    });
                }
                result |= piece.wrapping_shl(shift);
            }
            shift = shift.saturating_add(payload);
            if chunk & hi == 0 {
                return Ok(result);
            }
            if shift > 64u32.saturating_add(width) {
                return Err(BitstreamError::Invalid {
                    bit: start,
                    what: "VBR value wider than 64 bits",
                    value: 0,
                });
            }
        }
    }

    /// Moves to bit `bit` (at most the end of the input).
    pub fn seek(&mut self, bit: u64) -> Result<()> {
        if bit > self.total_bits() {
            return Err(BitstreamError::Truncated {
                bit: self.bit(),
                what: "seek",
                need: bit.saturating_sub(self.bit()),
                have: self.total_bits().saturating_sub(self.bit()),
            });
        }
        let byte = usize::try_from(bit / 8).unwrap_or(usize::MAX);
        self.next = byte.min(self.data.len());
        self.avail = 0;
        self.cur = 0;
        let skip = u32::try_from(bit % 8).unwrap_or(0);
        if skip > 0 {
            self.read(skip, "seek")?;
        }
        Ok(())
    }

    /// Skips to the next multiple of 32 bits.
    #[inline]
    pub fn align32(&mut self) -> Result<()> {
        let rem = u32::try_from(self.bit() % 32).unwrap_or(0);
        if rem != 0 {
            self.read(32u32.wrapping_sub(rem), "alignment padding")?;
        }
        Ok(())
    }
}

/// One operand encoding of an abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbbrevOp {
    /// A constant value, not stored in the stream.
    Literal(u64),
    /// A fixed-width field of this many bits (1..=64).
    Fixed(u32),
    /// A VBR field with chunks of this many bits (2..=32).
    Vbr(u32),
    /// A VBR6 count followed by that many elements encoded by the next operand.
    Array,
    /// A 6-bit character (`a-z A-Z 0-9 . _`).
    Char6,
    /// A VBR6 byte count, 32-bit alignment, the bytes, and 32-bit alignment again.
    Blob,
}

impl AbbrevOp {
    /// The fewest bits one value of this encoding takes in the stream.
    fn min_bits(self) -> u64 {
        match self {
            AbbrevOp::Literal(_) | AbbrevOp::Array | AbbrevOp::Blob => 0,
            AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => w.into(),
            AbbrevOp::Char6 => 6,
        }
    }
}

/// An abbreviation: the encodings of a record's code and operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abbrev {
    /// The operand encodings; an [`AbbrevOp::Array`] is followed by its element
    /// encoding and nothing else, an [`AbbrevOp::Blob`] comes last.
    pub ops: Vec<AbbrevOp>,
}

/// Decodes a char6 value.
#[inline]
pub fn char6(v: u64) -> u8 {
    // v < 64: the reader reads exactly 6 bits.
    let v = (v & 63) as u8;
    match v {
        0..=25 => b'a'.wrapping_add(v),
        26..=51 => b'A'.wrapping_add(v.wrapping_sub(26)),
        52..=61 => b'0'.wrapping_add(v.wrapping_sub(52)),
        62 => b'.',
        _ => b'_',
    }
}

/// One entry of a block, as [`Bitstream::next_entry`] returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'r, 'a> {
    /// A nested block starts; its entries follow until the matching [`Entry::End`]
    /// (unless it is skipped with [`Bitstream::skip_block`]).
    Enter {
        /// The block id.
        id: u32,
        /// The stated length of the block's body in 32-bit words.
        length_words: u32,
        /// Bit offset of the ENTER_SUBBLOCK abbreviation id.
        bit: u64,
    },
    /// The current block ends.
    End,
    /// A record of the current block.
    Record(Record<'r, 'a>),
    /// The end of the stream (only at the top level).
    Eof,
}

/// What [`Bitstream::advance`] reached: an [`Entry`] without the borrow of its record.
#[derive(Debug, Clone, Copy)]
enum Step {
    Enter {
        id: u32,
        length_words: u32,
        bit: u64,
    },
    End,
    Record {
        code: u32,
        abbrev: Option<u32>,
        bit: u64,
    },
    Eof,
}

/// A record: its code, operands, and optional blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'r, 'a> {
    /// The record code.
    pub code: u32,
    /// The operands after the code (char6 operands decoded to their characters).
    pub ops: &'r [u64],
    /// The blob operand, if the abbreviation has one.
    pub blob: Option<&'a [u8]>,
    /// The abbreviation id used (`None` for an unabbreviated record).
    pub abbrev: Option<u32>,
    /// Bit offset of the record's abbreviation id.
    pub bit: u64,
}

/// One open block.
#[derive(Debug, Clone)]
struct Scope {
    id: u32,
    width: u32,
    /// Abbreviations BLOCKINFO gave this block id when it was entered.
    inherited: Rc<Vec<Abbrev>>,
    /// Abbreviations defined inside the block.
    local: Vec<Abbrev>,
    /// Bit offset just past the block.
    end: u64,
}

impl Scope {
    fn abbrev(&self, index: usize) -> Option<&Abbrev> {
        match index.checked_sub(self.inherited.len()) {
            None => self.inherited.get(index),
            Some(i) => self.local.get(i),
        }
    }
}

/// A streaming reader of a bitstream: [`Bitstream::next_entry`] returns the entries of the
/// current block one at a time; BLOCKINFO blocks are read and applied transparently.
#[derive(Debug, Clone)]
pub struct Bitstream<'a> {
    r: BitReader<'a>,
    scopes: Vec<Scope>,
    blockinfo: Vec<(u32, Rc<Vec<Abbrev>>)>,
    ops: Vec<u64>,
    /// Set while a record's blob is held.
    blob: Option<&'a [u8]>,
}

impl<'a> Bitstream<'a> {
    /// Opens a bitcode stream: strips a wrapper header if present, checks the length is
    /// a whole number of words and the magic `BC\xC0\xDE`.
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let bytes = strip_wrapper(bytes)?;
        let mut first = [0u8; 4];
        for (d, s) in first.iter_mut().zip(bytes) {
            *d = *s;
        }
        if first != BITCODE_MAGIC {
            return Err(BitstreamError::BadMagic { found: first });
        }
        if bytes.len() % 4 != 0 {
            return Err(BitstreamError::NotWordAligned { len: bytes.len() });
        }
        let mut r = BitReader::new(bytes);
        r.read(32, "magic")?;
        let end = r.total_bits();
        Ok(Bitstream {
            r,
            scopes: vec![Scope {
                id: u32::MAX,
                width: 2,
                inherited: Rc::new(Vec::new()),
                local: Vec::new(),
                end,
            }],
            blockinfo: Vec::new(),
            ops: Vec::with_capacity(64),
            blob: None,
        })
    }

    /// The current bit offset.
    pub fn bit(&self) -> u64 {
        self.r.bit()
    }

    /// The id of the innermost open block (`None` at the top level).
    pub fn block_id(&self) -> Option<u32> {
        if self.scopes.len() > 1 {
            self.scopes.last().map(|s| s.id)
        } else {
            None
        }
    }

    /// How many blocks are open.
    pub fn depth(&self) -> usize {
        self.scopes.len().saturating_sub(1)
    }

    /// Bits left before the end of the innermost open block.
    pub fn bits_left(&self) -> u64 {
        self.scopes
            .last()
            .map_or(0, |s| s.end.saturating_sub(self.r.bit()))
    }

    fn top(&self) -> Result<&Scope> {
        self.scopes.last().ok_or(BitstreamError::Invalid {
            bit: self.r.bit(),
            what: "scope stack",
            value: 0,
        })
    }

    /// Skips the rest of the block just entered (or the current block), leaving the
    /// stream after its end.
    pub fn skip_block(&mut self) -> Result<()> {
        if self.scopes.len() <= 1 {
            return Err(BitstreamError::Invalid {
                bit: self.r.bit(),
                what: "skip at top level",
                value: 0,
            });
        }
        let end = self.top()?.end;
        self.r.seek(end)?;
        self.scopes.pop();
        Ok(())
    }

    /// Reads the next entry of the current block.
    #[inline]
    pub fn next_entry(&mut self) -> Result<Entry<'_, 'a>> {
        Ok(match self.advance()? {
            Step::Record { code, abbrev, bit } => Entry::Record(self.record(code, abbrev, bit)),
            Step::Enter {
                id,
                length_words,
                bit,
            } => Entry::Enter {
                id,
                length_words,
                bit,
            },
            Step::End => Entry::End,
            Step::Eof => Entry::Eof,
        })
    }

    /// Reads up to the next entry of the current block; a record's operands are left in
    /// `self.ops` and `self.blob` for [`Bitstream::record`]. Holds no borrow, so that a
    /// caller may go on to use the stream whichever entry it is.
    // Inlined (with the abbreviated-record reader) into `next_entry` and the block
    // reader's two calls, so that an entry costs one call.
    #[inline(always)]
    fn advance(&mut self) -> Result<Step> {
        loop {
            let (width, end, top_level) = {
                let s = self.top()?;
                (s.width, s.end, self.scopes.len() == 1)
            };
            let bit = self.r.bit();
            if top_level && bit >= end {
                return Ok(Step::Eof);
            }
            if bit.saturating_add(width.into()) > end {
                return Err(BitstreamError::Truncated {
                    bit,
                    what: "abbreviation id",
                    need: width.into(),
                    have: end.saturating_sub(bit),
                });
            }
            let id = self.r.read(width, "abbreviation id")?;
            match id {
                END_BLOCK => {
                    if top_level {
                        return Err(BitstreamError::Invalid {
                            bit,
                            what: "END_BLOCK at top level",
                            value: 0,
                        });
                    }
                    self.r.align32()?;
                    if self.r.bit() != end {
                        return Err(BitstreamError::Invalid {
                            bit,
                            what: "block end (bit offset) stated",
                            value: end,
                        });
                    }
                    self.scopes.pop();
                    return Ok(Step::End);
                }
                ENTER_SUBBLOCK => {
                    let (block, length_words) = self.enter(bit)?;
                    if block == BLOCKINFO_BLOCK_ID {
                        self.read_blockinfo()?;
                        continue;
                    }
                    return Ok(Step::Enter {
                        id: block,
                        length_words,
                        bit,
                    });
                }
                DEFINE_ABBREV => {
                    let a = self.read_abbrev_def()?;
                    match self.scopes.last_mut() {
                        Some(s) => s.local.push(a),
                        None => {
                            return Err(BitstreamError::Invalid {
                                bit,
                                what: "scope stack",
                                value: 0,
                            });
                        }
                    }
                }
                UNABBREV_RECORD => {
                    self.read_unabbrev(bit, end)?;
                    return Ok(Step::Record {
                        code: self.record_code(bit)?,
                        abbrev: None,
                        bit,
                    });
                }
                _ => {
                    self.read_abbreviated(bit, id, end)?;
                    return Ok(Step::Record {
                        code: self.record_code(bit)?,
                        abbrev: u32::try_from(id).ok(),
                        bit,
                    });
                }
            }
        }
    }

    /// The record [`Bitstream::advance`] read last.
    #[inline]
    fn record(&self, code: u32, abbrev: Option<u32>, bit: u64) -> Record<'_, 'a> {
        Record {
            code,
            // The code is `ops[0]` (see `record_code`).
            ops: self.ops.get(1..).unwrap_or_default(),
            blob: self.blob,
            abbrev,
            bit,
        }
    }

    /// The code of the record just read: its first value, which must fit 32 bits.
    #[inline]
    fn record_code(&self, bit: u64) -> Result<u32> {
        let code = *self.ops.first().ok_or(BitstreamError::Invalid {
            bit,
            what: "empty record",
            value: 0,
        })?;
        u32::try_from(code).map_err(|_| BitstreamError::Invalid {
            bit,
            what: "record code",
            value: code,
        })
    }

    /// Reads ENTER_SUBBLOCK's fields and opens the scope; returns (block id, length).
    fn enter(&mut self, bit: u64) -> Result<(u32, u32)> {
        let id = self.r.vbr(8, "block id")?;
        let id = u32::try_from(id).map_err(|_| BitstreamError::Invalid {
            bit,
            what: "block id",
            value: id,
        })?;
        let width = self.r.vbr(4, "abbreviation width")?;
        if width == 0 || width > MAX_ABBREV_WIDTH.into() {
            return Err(BitstreamError::Invalid {
                bit,
                what: "abbreviation width",
                value: width,
            });
        }
        self.r.align32()?;
        let len_bit = self.r.bit();
        let words = self.r.read(32, "block length")?;
        let parent_end = self.top()?.end;
        let have = parent_end.saturating_sub(self.r.bit());
        let body = words.saturating_mul(32);
        if body > have {
            return Err(BitstreamError::TooLong {
                bit: len_bit,
                what: "block length (32-bit words)",
                count: words,
                have,
            });
        }
        if self.scopes.len() > MAX_BLOCK_DEPTH {
            return Err(BitstreamError::Invalid {
                bit,
                what: "block nesting depth",
                value: self.scopes.len() as u64,
            });
        }
        let inherited = self
            .blockinfo
            .iter()
            .find(|(b, _)| *b == id)
            .map(|(_, a)| Rc::clone(a))
            .unwrap_or_else(|| Rc::new(Vec::new()));
        let end = self.r.bit().saturating_add(body);
        // `width` ≤ 32 and `words` < 2^32 were checked above.
        self.scopes.push(Scope {
            id,
            width: u32::try_from(width).unwrap_or(MAX_ABBREV_WIDTH),
            inherited,
            local: Vec::new(),
            end,
        });
        Ok((id, u32::try_from(words).unwrap_or(u32::MAX)))
    }

    /// Reads a DEFINE_ABBREV body.
    fn read_abbrev_def(&mut self) -> Result<Abbrev> {
        let bit = self.r.bit();
        let n = self.r.vbr(5, "abbreviation operand count")?;
        let have = self.bits_left();
        // Each operand takes at least one bit (the literal flag).
        if n > have || n == 0 {
            return Err(BitstreamError::TooLong {
                bit,
                what: "abbreviation operand count",
                count: n,
                have,
            });
        }
        let mut ops = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(64));
        let mut i = 0u64;
        while i < n {
            let op_bit = self.r.bit();
            let literal = self.r.read(1, "abbreviation operand")?;
            if literal == 1 {
                ops.push(AbbrevOp::Literal(self.r.vbr(8, "literal")?));
            } else {
                let enc = self.r.read(3, "abbreviation encoding")?;
                let op = match enc {
                    1 | 2 => {
                        let w = self.r.vbr(5, "field width")?;
                        let max = if enc == 1 {
                            MAX_FIXED_WIDTH
                        } else {
                            MAX_VBR_WIDTH
                        };
                        if w > max.into() || (enc == 2 && w == 1) {
                            return Err(BitstreamError::Invalid {
                                bit: op_bit,
                                what: "abbreviation field width",
                                value: w,
                            });
                        }
                        let w = u32::try_from(w).unwrap_or(0);
                        // LLVM reads a zero-width field as the literal 0.
                        if w == 0 {
                            AbbrevOp::Literal(0)
                        } else if enc == 1 {
                            AbbrevOp::Fixed(w)
                        } else {
                            AbbrevOp::Vbr(w)
                        }
                    }
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => AbbrevOp::Blob,
                    _ => {
                        return Err(BitstreamError::Invalid {
                            bit: op_bit,
                            what: "abbreviation encoding",
                            value: enc,
                        });
                    }
                };
                ops.push(op);
            }
            i = i.saturating_add(1);
        }
        check_abbrev(&ops, bit)?;
        Ok(Abbrev { ops })
    }

    fn read_unabbrev(&mut self, bit: u64, end: u64) -> Result<()> {
        self.blob = None;
        self.ops.clear();
        let code = self.r.vbr(6, "record code")?;
        let n = self.r.vbr(6, "record operand count")?;
        let have = end.saturating_sub(self.r.bit());
        if n.saturating_mul(6) > have {
            return Err(BitstreamError::TooLong {
                bit,
                what: "record operand count",
                count: n,
                have,
            });
        }
        let n = usize::try_from(n).unwrap_or(0);
        self.ops.reserve(n.saturating_add(1));
        self.ops.push(code);
        for _ in 0..n {
            let v = self.r.vbr(6, "record operand")?;
            self.ops.push(v);
        }
        Ok(())
    }

    #[inline(always)]
    fn read_abbreviated(&mut self, bit: u64, id: u64, end: u64) -> Result<()> {
        self.blob = None;
        self.ops.clear();
        let index = id.wrapping_sub(FIRST_APPLICATION_ABBREV);
        let scope = self.scopes.last().ok_or(BitstreamError::Invalid {
            bit,
            what: "scope stack",
            value: 0,
        })?;
        let abbrev = usize::try_from(index)
            .ok()
            .and_then(|i| scope.abbrev(i))
            .ok_or(BitstreamError::Invalid {
                bit,
                what: "abbreviation id",
                value: id,
            })?;
        let r = &mut self.r;
        let ops = &mut self.ops;
        let mut iter = abbrev.ops.iter();
        while let Some(op) = iter.next() {
            match *op {
                AbbrevOp::Literal(v) => ops.push(v),
                AbbrevOp::Fixed(w) => ops.push(r.read(w, "record operand")?),
                AbbrevOp::Vbr(w) => ops.push(r.vbr(w, "record operand")?),
                AbbrevOp::Char6 => ops.push(u64::from(char6(r.read(6, "record operand")?))),
                AbbrevOp::Array => {
                    let len_bit = r.bit();
                    let n = r.vbr(6, "array length")?;
                    let elt = iter.next().copied().ok_or(BitstreamError::Invalid {
                        bit,
                        what: "array without element",
                        value: 0,
                    })?;
                    let have = end.saturating_sub(r.bit());
                    if n.saturating_mul(elt.min_bits()) > have {
                        return Err(BitstreamError::TooLong {
                            bit: len_bit,
                            what: "array length",
                            count: n,
                            have,
                        });
                    }
                    let n = usize::try_from(n).unwrap_or(0);
                    ops.reserve(n);
                    match elt {
                        AbbrevOp::Fixed(w) => {
                            for _ in 0..n {
                                ops.push(r.read(w, "array element")?);
                            }
                        }
                        AbbrevOp::Vbr(w) => {
                            for _ in 0..n {
                                ops.push(r.vbr(w, "array element")?);
                            }
                        }
                        AbbrevOp::Char6 => {
                            for _ in 0..n {
                                ops.push(u64::from(char6(r.read(6, "array element")?)));
                            }
                        }
                        _ => {
                            return Err(BitstreamError::Invalid {
                                bit,
                                what: "array element encoding",
                                value: 0,
                            });
                        }
                    }
                }
                AbbrevOp::Blob => {
                    let len_bit = r.bit();
                    let n = r.vbr(6, "blob length")?;
                    r.align32()?;
                    let have = end.saturating_sub(r.bit());
                    if n.saturating_mul(8) > have {
                        return Err(BitstreamError::TooLong {
                            bit: len_bit,
                            what: "blob length (bytes)",
                            count: n,
                            have,
                        });
                    }
                    let start = usize::try_from(r.bit() / 8).unwrap_or(usize::MAX);
                    let len = usize::try_from(n).unwrap_or(usize::MAX);
                    let data = r.data();
                    let blob = start
                        .checked_add(len)
                        .and_then(|e| data.get(start..e))
                        .ok_or(BitstreamError::TooLong {
                            bit: len_bit,
                            what: "blob length (bytes)",
                            count: n,
                            have,
                        })?;
                    r.seek(r.bit().saturating_add(n.saturating_mul(8)))?;
                    r.align32()?;
                    self.blob = Some(blob);
                }
            }
        }
        if self.r.bit() > end {
            return Err(BitstreamError::Truncated {
                bit,
                what: "record",
                need: self.r.bit().saturating_sub(bit),
                have: end.saturating_sub(bit),
            });
        }
        Ok(())
    }

    /// Reads a BLOCKINFO block (already entered) and records the abbreviations it
    /// defines for other blocks. Names (BLOCKNAME, SETRECORDNAME) are ignored; nested
    /// blocks are skipped.
    fn read_blockinfo(&mut self) -> Result<()> {
        let mut current: Option<u32> = None;
        loop {
            let (width, end) = {
                let s = self.top()?;
                (s.width, s.end)
            };
            let bit = self.r.bit();
            if bit.saturating_add(width.into()) > end {
                return Err(BitstreamError::Truncated {
                    bit,
                    what: "BLOCKINFO entry",
                    need: width.into(),
                    have: end.saturating_sub(bit),
                });
            }
            match self.r.read(width, "abbreviation id")? {
                END_BLOCK => {
                    self.r.align32()?;
                    if self.r.bit() != end {
                        return Err(BitstreamError::Invalid {
                            bit,
                            what: "block end (bit offset) stated",
                            value: end,
                        });
                    }
                    self.scopes.pop();
                    return Ok(());
                }
                ENTER_SUBBLOCK => {
                    self.enter(bit)?;
                    self.skip_block()?;
                }
                DEFINE_ABBREV => {
                    let a = self.read_abbrev_def()?;
                    let target = current.ok_or(BitstreamError::Invalid {
                        bit,
                        what: "BLOCKINFO abbreviation before SETBID",
                        value: 0,
                    })?;
                    match self.blockinfo.iter_mut().find(|(b, _)| *b == target) {
                        Some((_, list)) => Rc::make_mut(list).push(a),
                        None => self.blockinfo.push((target, Rc::new(vec![a]))),
                    }
                }
                UNABBREV_RECORD => {
                    self.read_unabbrev(bit, end)?;
                    if let [code, rest @ ..] = self.ops.as_slice()
                        && *code == u64::from(BLOCKINFO_CODE_SETBID)
                    {
                        let id = rest.first().copied().ok_or(BitstreamError::Invalid {
                            bit,
                            what: "SETBID without block id",
                            value: 0,
                        })?;
                        current = Some(u32::try_from(id).map_err(|_| BitstreamError::Invalid {
                            bit,
                            what: "SETBID block id",
                            value: id,
                        })?);
                    }
                }
                id => {
                    return Err(BitstreamError::Invalid {
                        bit,
                        what: "abbreviated record in BLOCKINFO",
                        value: id,
                    });
                }
            }
        }
    }
}

/// One entry of a block, as [`BlockReader::next_entry`] yields it.
#[derive(Debug)]
pub enum BlockEntry<'r, 'a> {
    /// A record of the block.
    Record(Record<'r, 'a>),
    /// A nested block, entered: its reader yields its entries. A nested block left
    /// unread (or half read) is skipped by the next call on its parent's reader.
    Block(BlockReader<'r, 'a>),
}

/// Reads the entries of one block (or of the stream's top level) up to its end: the one
/// loop every reader of blocks runs. Abbreviation definitions and BLOCKINFO blocks are
/// applied by the [`Bitstream`] underneath and never yielded.
#[derive(Debug)]
pub struct BlockReader<'s, 'a> {
    bs: &'s mut Bitstream<'a>,
    /// The block id (`None` for the top level).
    id: Option<u32>,
    /// Bit offset of the block's ENTER_SUBBLOCK abbreviation id (0 at the top level).
    start: u64,
    /// The stream's open scopes (the top level counts as one) while this block's own
    /// entries are read: more means a nested block is left to skip, fewer that this
    /// block has ended. One comparison decides both before each entry.
    open: usize,
}

impl<'s, 'a> BlockReader<'s, 'a> {
    /// The stream's top level: its blocks in order, up to the end of the stream.
    pub fn top(bs: &'s mut Bitstream<'a>) -> Self {
        let open = bs.scopes.len();
        BlockReader {
            bs,
            id: None,
            start: 0,
            open,
        }
    }

    /// The block id (`u32::MAX` for the top level, which has none).
    pub fn id(&self) -> u32 {
        self.id.unwrap_or(u32::MAX)
    }

    /// Bit offset of the block's ENTER_SUBBLOCK abbreviation id.
    pub fn start_bit(&self) -> u64 {
        self.start
    }

    /// The stream's current bit offset (after the block's END_BLOCK once it has ended).
    pub fn bit(&self) -> u64 {
        self.bs.bit()
    }

    /// Skips what is left of nested blocks the caller did not read to their end; false
    /// once this block has ended.
    #[cold]
    fn settle(&mut self) -> Result<bool> {
        while self.bs.scopes.len() > self.open {
            self.bs.skip_block()?;
        }
        Ok(self.bs.scopes.len() == self.open)
    }

    /// Bits left before the end of the block, at the next entry.
    pub fn bits_left(&mut self) -> Result<u64> {
        if self.bs.scopes.len() != self.open {
            self.settle()?;
        }
        Ok(self.bs.bits_left())
    }

    /// What the end of the stream means here: the end of the top level; inside a block
    /// (where the bitstream never reports it), an error.
    #[cold]
    fn eof<T>(&self) -> Result<Option<T>> {
        match self.id {
            None => Ok(None),
            Some(id) => Err(BitstreamError::Invalid {
                bit: self.bs.bit(),
                what: "end of stream inside block",
                value: id.into(),
            }),
        }
    }

    /// The next entry of the block; `None` once it has ended.
    pub fn next_entry(&mut self) -> Result<Option<BlockEntry<'_, 'a>>> {
        if self.bs.scopes.len() != self.open && !self.settle()? {
            return Ok(None);
        }
        match self.bs.advance()? {
            Step::Record { code, abbrev, bit } => {
                Ok(Some(BlockEntry::Record(self.bs.record(code, abbrev, bit))))
            }
            Step::Enter { id, bit, .. } => {
                let open = self.bs.scopes.len();
                Ok(Some(BlockEntry::Block(BlockReader {
                    bs: &mut *self.bs,
                    id: Some(id),
                    start: bit,
                    open,
                })))
            }
            // The scope is closed, so later calls see the block ended.
            Step::End => Ok(None),
            Step::Eof => self.eof(),
        }
    }

    /// The next record of the block, nested blocks skipped; `None` once it has ended.
    pub fn next_record(&mut self) -> Result<Option<Record<'_, 'a>>> {
        loop {
            if self.bs.scopes.len() != self.open && !self.settle()? {
                return Ok(None);
            }
            match self.bs.advance()? {
                Step::Record { code, abbrev, bit } => {
                    return Ok(Some(self.bs.record(code, abbrev, bit)));
                }
                // A nested block: skipped on the next turn.
                Step::Enter { .. } => {}
                Step::End => return Ok(None),
                Step::Eof => return self.eof(),
            }
        }
    }
}

/// Checks an abbreviation's shape: an array is followed by exactly one scalar element
/// encoding and ends the abbreviation, a blob comes last, and the first operand (the
/// record code) is neither.
fn check_abbrev(ops: &[AbbrevOp], bit: u64) -> Result<()> {
    let bad = |what| {
        Err(BitstreamError::Invalid {
            bit,
            what,
            value: ops.len() as u64,
        })
    };
    if matches!(ops.first(), Some(AbbrevOp::Array | AbbrevOp::Blob)) {
        return bad("abbreviation whose code is an array or blob");
    }
    for (i, op) in ops.iter().enumerate() {
        let last = i.saturating_add(1) == ops.len();
        match op {
            AbbrevOp::Array => {
                if i.saturating_add(2) != ops.len() {
                    return bad("abbreviation array not second to last");
                }
                match ops.get(i.saturating_add(1)) {
                    Some(AbbrevOp::Fixed(_) | AbbrevOp::Vbr(_) | AbbrevOp::Char6) => {}
                    _ => return bad("abbreviation array element encoding"),
                }
                return Ok(());
            }
            AbbrevOp::Blob if !last => return bad("abbreviation blob not last"),
            _ => {}
        }
    }
    Ok(())
}

/// Strips the bitcode wrapper header (magic `0x0B17C0DE`, version, offset, size, CPU
/// type) when present, returning the bitcode it points to.
pub fn strip_wrapper(bytes: &[u8]) -> Result<&[u8]> {
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at.checked_add(4)?)?;
        let mut w = [0u8; 4];
        w.copy_from_slice(b);
        Some(u32::from_le_bytes(w))
    };
    if word(0) != Some(WRAPPER_MAGIC) {
        return Ok(bytes);
    }
    let offset = word(8).unwrap_or(u32::MAX);
    let size = word(12).unwrap_or(u32::MAX);
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    start
        .checked_add(usize::try_from(size).unwrap_or(usize::MAX))
        .filter(|_| bytes.len() >= WRAPPER_HEADER_SIZE)
        .and_then(|end| bytes.get(start..end))
        .ok_or(BitstreamError::BadWrapper {
            offset,
            size,
            len: bytes.len(),
        })
}

/// A block read whole: its id, and its records and nested blocks in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The block id.
    pub id: u32,
    /// Bit offset of the ENTER_SUBBLOCK abbreviation id.
    pub bit: u64,
    /// The block's contents.
    pub items: Vec<Item>,
}

/// One item of a [`Block`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A record.
    Record(OwnedRecord),
    /// A nested block.
    Block(Block),
}

/// A record with owned operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedRecord {
    /// The record code.
    pub code: u32,
    /// The operands after the code.
    pub ops: Vec<u64>,
    /// The blob, if any.
    pub blob: Option<Vec<u8>>,
    /// The abbreviation id used (`None` if unabbreviated).
    pub abbrev: Option<u32>,
    /// Bit offset of the record.
    pub bit: u64,
}

impl From<Record<'_, '_>> for OwnedRecord {
    fn from(r: Record<'_, '_>) -> Self {
        OwnedRecord {
            code: r.code,
            ops: r.ops.to_vec(),
            blob: r.blob.map(<[u8]>::to_vec),
            abbrev: r.abbrev,
            bit: r.bit,
        }
    }
}

/// Reads a whole bitstream into a tree of blocks (the top-level blocks, in order).
/// Top-level records are refused (LLVM streams hold only blocks at the top level).
pub fn read_tree(bytes: &[u8]) -> Result<Vec<Block>> {
    let mut bs = Bitstream::new(bytes)?;
    let mut top = BlockReader::top(&mut bs);
    let mut blocks = Vec::new();
    loop {
        let bit = top.bit();
        match top.next_entry()? {
            None => return Ok(blocks),
            Some(BlockEntry::Block(b)) => blocks.push(read_block(b)?),
            Some(BlockEntry::Record(r)) => {
                return Err(BitstreamError::Invalid {
                    bit,
                    what: "record at top level",
                    value: r.code.into(),
                });
            }
        }
    }
}

/// Reads one block whole. Recursion is bounded: the stream refuses blocks nested deeper
/// than [`MAX_BLOCK_DEPTH`].
fn read_block(mut blk: BlockReader<'_, '_>) -> Result<Block> {
    let mut block = Block {
        id: blk.id(),
        bit: blk.start_bit(),
        items: Vec::new(),
    };
    while let Some(entry) = blk.next_entry()? {
        block.items.push(match entry {
            BlockEntry::Record(r) => Item::Record(r.into()),
            BlockEntry::Block(b) => Item::Block(read_block(b)?),
        });
    }
    Ok(block)
}

#[cfg(test)]
mod tests;
