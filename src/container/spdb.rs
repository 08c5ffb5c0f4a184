//! `SPDB`: the debug part fxc writes with `/Zi` — a whole PDB (an MSF file), read with
//! the `pdb` crate. This module takes from it what a source-level debugger needs, in the
//! container's terms (byte offsets into the program part, register types as numbers);
//! mapping them to the program's registers is the debugger's (`debug::hlsl::spdb`).
//!
//! What fxc puts where (LLVM's PDB documentation `llvm/docs/PDB/*.rst` for the MSF,
//! the PDB info stream and its named-stream map, the DBI stream and module streams;
//! Microsoft's `cvinfo.h` in the microsoft-pdb repository for the records; RenderDoc's
//! `dxbc_spdb.cpp` for fxc's use of them):
//!
//! - the HLSL text of each file in a named stream `/src/files/<name>` (the name as fxc
//!   lower-cases it);
//! - the line table in the module's C13 line subsection, its file names in the string
//!   table (`/names`) through the file-checksum subsection. A line entry's offset is a
//!   byte offset into the program part's data (`SHEX`/`SHDR`: the version token at 0,
//!   the length token at 4, the first declaration at 8) — the offsets
//!   `D3DGetTraceInstructionOffsets` reports — and holds until the next entry;
//! - the entry point as an `S_GPROC32` procedure, each HLSL variable as an `S_LOCAL`
//!   followed by the `S_DEFRANGE_HLSL` records saying which register holds which bytes
//!   of it over which instruction range.
//!
//! The crate parses the MSF, the streams, the line program and the symbols it knows;
//! `S_DEFRANGE_HLSL` (which it does not parse) is decoded here from the record's raw
//! bytes ([`decode_defrange`]), and fxc's `LF_VECTOR` type records from the type
//! stream's raw record ([`vector_type`]), since the crate neither parses nor exposes
//! them.
//!
//! Untrusted: the crate reads through [`Bounded`], which refuses any read outside the
//! part or larger than it, so no length read from the part sizes an allocation beyond
//! the part's own size; every field decoded here is bounds-checked, and an error names
//! the stream or record and the byte.

use std::borrow::Cow;
use std::io;

use pdb::FallibleIterator;

use super::FourCc;

/// The tag.
pub const SPDB: FourCc = FourCc(*b"SPDB");

/// The largest part read (fxc's PDBs are tens of kilobytes).
pub const MAX_PART_BYTES: usize = 64 << 20;

/// `S_GPROC32` (`cvinfo.h`).
const S_GPROC32: u16 = 0x1110;
/// `S_LPROC32`.
const S_LPROC32: u16 = 0x110f;
/// `S_LOCAL`.
const S_LOCAL: u16 = 0x113e;
/// `S_DEFRANGE_HLSL`.
const S_DEFRANGE_HLSL: u16 = 0x1150;
/// `S_INLINESITE`: the start of code inlined from another function.
const S_INLINESITE: u16 = 0x114d;
/// `S_INLINESITE2`: the same, with an invocation count.
const S_INLINESITE2: u16 = 0x115d;
/// `S_INLINESITE_END`.
const S_INLINESITE_END: u16 = 0x114e;
/// The deepest nesting of inline sites read (a deeper one is not a frame of its own).
pub const MAX_INLINE_DEPTH: usize = 64;
/// `LF_VECTOR`: fxc's HLSL vector type record.
const LF_VECTOR: u16 = 0x151b;
/// `LF_MATRIX`: fxc's HLSL matrix type record.
const LF_MATRIX: u16 = 0x151c;
/// The deepest nesting of structures and arrays read (a type that refers to itself
/// through its members would otherwise never end).
pub const MAX_TYPE_DEPTH: u32 = 16;
/// The most 32-bit scalars one variable's type is read into; a larger type (a huge
/// array count) does not read, so no count in the part sizes an allocation.
pub const MAX_TYPE_SCALARS: u32 = 4096;
/// The type stream's fixed number (the MSF's stream 2).
const TPI_STREAM: u16 = 2;

/// An error reading an `SPDB` part: what was being read and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpdbError {
    /// The part is larger than [`MAX_PART_BYTES`].
    #[error("the SPDB part is {0} bytes, more than the {MAX_PART_BYTES} read")]
    TooLarge(usize),
    /// The crate refused a structure.
    #[error("the SPDB part's {what} does not read: {error}")]
    Pdb {
        /// The structure (`MSF directory`, `DBI stream`, …).
        what: &'static str,
        /// The crate's error.
        error: String,
    },
    /// A record decoded here is malformed.
    #[error("the SPDB part's {record} record at byte 0x{offset:x} of its module: {what}")]
    Record {
        /// The record kind.
        record: &'static str,
        /// Its offset in the module's symbol stream.
        offset: u32,
        /// What is wrong.
        what: String,
    },
}

fn pdb_err(what: &'static str) -> impl Fn(pdb::Error) -> SpdbError {
    move |e| SpdbError::Pdb {
        what,
        error: e.to_string(),
    }
}

/// One HLSL source file fxc embedded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Its name as the named stream spells it (after `/src/files/`).
    pub name: String,
    /// Its text.
    pub text: String,
}

/// One line-table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Byte offset into the program part's data where the entry starts.
    pub offset: u32,
    /// Bytes it covers, when the table says; else up to the next entry.
    pub length: Option<u32>,
    /// The file, as the string table names it.
    pub file: String,
    /// The line (1-based).
    pub line: u32,
    /// The column (0 when not given).
    pub column: u32,
}

/// How a scalar's bits read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// IEEE float.
    Float,
    /// Two's complement integer.
    Int,
    /// Unsigned integer.
    UInt,
    /// `bool`.
    Bool,
}

/// A variable's type, as far as it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarType {
    /// A 32-bit scalar.
    Scalar(ScalarKind),
    /// A vector of 32-bit scalars (`LF_VECTOR`), 1 to 4 elements.
    Vector(ScalarKind, u32),
    /// A matrix of 32-bit scalars (`LF_MATRIX`), 1 to 4 rows and columns.
    Matrix {
        /// The element kind.
        kind: ScalarKind,
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// The elements are stored row after row (`row_major`); else column after column.
        row_major: bool,
    },
    /// A structure (`LF_STRUCTURE` and its `LF_FIELDLIST`): its data members.
    Struct(Vec<Field>),
    /// An array (`LF_ARRAY`): `count` elements `stride` bytes apart.
    Array {
        /// The element type.
        element: Box<VarType>,
        /// Elements.
        count: u32,
        /// Bytes from one element to the next.
        stride: u32,
    },
    /// A type that does not read: its type index and why.
    Unreadable(u32, String),
}

/// A data member of a structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its byte offset in the structure.
    pub offset: u32,
    /// Its type.
    pub ty: VarType,
}

impl VarType {
    /// Its size in bytes (32-bit scalars; `None` for a type that does not read).
    pub fn bytes(&self) -> Option<u32> {
        match self {
            VarType::Scalar(_) => Some(4),
            VarType::Vector(_, n) => n.checked_mul(4),
            VarType::Matrix { rows, cols, .. } => rows.checked_mul(*cols)?.checked_mul(4),
            VarType::Struct(fields) => fields
                .iter()
                .map(|f| f.offset.checked_add(f.ty.bytes()?))
                .try_fold(0u32, |a, b| Some(a.max(b?))),
            VarType::Array { count, stride, .. } => count.checked_mul(*stride),
            VarType::Unreadable(..) => None,
        }
    }
}

/// An `S_DEFRANGE_HLSL` record: bytes of a variable held in a register over a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterRange {
    /// The register type (`CV_HLSLREG_e`, the same numbers as the DXBC operand type:
    /// 0 temp, 1 input, 2 output, 3 indexable temp, 0x20… the compute system values).
    pub register_type: u16,
    /// The register's offset in bytes in its register file (index × 16 + component ×
    /// 4); for an indexable temp the array's number.
    pub register_offset: u32,
    /// The second dimension, when the record has two (an indexable temp's element).
    pub second: Option<u32>,
    /// The variable's first byte the register holds.
    pub offset_in_parent: u16,
    /// Bytes held.
    pub size_in_parent: u16,
    /// The program bytes over which it holds: `[start, end)`, offsets as [`Line::offset`].
    pub start: u32,
    /// See `start`.
    pub end: u32,
    /// Sub-ranges of `[start, end)` where it does not hold.
    pub gaps: Vec<(u32, u32)>,
}

/// An HLSL variable (`S_LOCAL`) and where its bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// A parameter of the function.
    pub parameter: bool,
    /// Its type.
    pub ty: VarType,
    /// Its register ranges.
    pub ranges: Vec<RegisterRange>,
    /// The inline site ([`Spdb::inline_sites`]) it is declared in: its `S_LOCAL` comes
    /// after the site's `S_INLINESITE` and before its `S_INLINESITE_END`; `None`: the
    /// procedure's own.
    pub site: Option<usize>,
}

/// Code of an inlined function inside the procedure (`S_INLINESITE` … `S_INLINESITE_END`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineSite {
    /// The inlined function's name (its `LF_FUNC_ID` in the IPI stream).
    pub function: String,
    /// The inline site it is nested in, when it is inlined into inlined code.
    pub parent: Option<usize>,
    /// The lines of the inlined function its binary annotations give, by offset: each
    /// covers `[offset, offset + length)` of the program's bytes.
    pub lines: Vec<Line>,
}

/// What an `SPDB` part says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spdb {
    /// The embedded HLSL files, in the order of the named-stream map.
    pub files: Vec<SourceFile>,
    /// The entry function's name (`S_GPROC32`), when given.
    pub function: Option<String>,
    /// The line table, by offset.
    pub lines: Vec<Line>,
    /// The variables, in record order.
    pub variables: Vec<Variable>,
    /// The inline sites, in record order.
    pub inline_sites: Vec<InlineSite>,
    /// What does not read but leaves the rest of the part usable (an inline site that
    /// is not shown as a frame), each naming the record.
    pub warnings: Vec<String>,
}

/// The part's bytes as the crate's source: every read is checked to lie inside the
/// data, and no view is larger than the data, so the crate never allocates from a
/// length the part states beyond the part's own size.
#[derive(Debug)]
pub struct Bounded {
    data: Vec<u8>,
}

impl Bounded {
    /// The part's bytes, zero-padded to the 4096-byte first page the crate reads whole
    /// (an MSF with smaller pages may be shorter).
    pub fn new(part: &[u8]) -> Bounded {
        let mut data = part.to_vec();
        if data.len() < 4096 {
            data.resize(4096, 0);
        }
        Bounded { data }
    }
}

#[derive(Debug)]
struct View(Vec<u8>);

impl pdb::SourceView<'_> for View {
    fn as_slice(&self) -> &[u8] {
        &self.0
    }
}

impl<'s> pdb::Source<'s> for Bounded {
    fn view(
        &mut self,
        slices: &[pdb::SourceSlice],
    ) -> Result<Box<dyn pdb::SourceView<'s>>, io::Error> {
        let outside = || io::Error::new(io::ErrorKind::UnexpectedEof, "read outside the SPDB part");
        let total = slices
            .iter()
            .try_fold(0usize, |a, s| a.checked_add(s.size))
            .filter(|t| *t <= self.data.len())
            .ok_or_else(outside)?;
        let mut out = Vec::with_capacity(total);
        for s in slices {
            let start = usize::try_from(s.offset).map_err(|_| outside())?;
            let end = start.checked_add(s.size).ok_or_else(outside)?;
            out.extend_from_slice(self.data.get(start..end).ok_or_else(outside)?);
        }
        Ok(Box::new(View(out)))
    }
}

/// Reads an `SPDB` part's contents.
///
/// The `pdb` crate (0.8) can panic on a malformed part: it slices with lengths it has
/// not checked (a module's symbol and line sizes against its stream, a stream name's
/// offset in the named-stream map) and asserts, in debug builds, that line entries come
/// in order; the read is therefore run under
/// `catch_unwind` and such a panic is reported as the part not reading, without the
/// panic's message on stderr (see [`quietly`]).
pub fn read(part: &[u8]) -> Result<Spdb, SpdbError> {
    if part.len() > MAX_PART_BYTES {
        return Err(SpdbError::TooLarge(part.len()));
    }
    quietly(|| std::panic::catch_unwind(|| read_unguarded(part))).unwrap_or_else(|_| {
        Err(SpdbError::Pdb {
            what: "structure",
            error: "the pdb crate stopped on a length that does not fit its stream".into(),
        })
    })
}

thread_local! {
    /// Set while this thread reads a part whose panics [`read`] turns into an error.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the panic message of this thread suppressed: a malformed part is an
/// error the caller reports, and a "thread panicked" line on stderr would read as a
/// crash. The hook is installed once, wraps whatever hook was there, and stays silent
/// only for the thread inside `quietly`, so panics elsewhere print as before.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = f();
    QUIET.with(|q| q.set(was));
    out
}

fn read_unguarded(part: &[u8]) -> Result<Spdb, SpdbError> {
    let mut pdb = pdb::PDB::open(Bounded::new(part)).map_err(pdb_err("MSF superblock"))?;
    let mut out = Spdb::default();

    // The sources: named streams `/src/files/<name>`.
    let info = pdb
        .pdb_information()
        .map_err(pdb_err("PDB information stream"))?;
    let names = info.stream_names().map_err(pdb_err("named-stream map"))?;
    let mut files: Vec<(String, pdb::StreamIndex)> = Vec::new();
    for n in names.iter() {
        let name = n.name.to_string();
        if let Some(file) = name.strip_prefix("/src/files/") {
            files.push((file.to_string(), n.stream_id));
        }
    }
    drop(names);
    drop(info);
    for (name, id) in files {
        let Some(s) = pdb.raw_stream(id).map_err(pdb_err("source file stream"))? else {
            continue;
        };
        let text = String::from_utf8_lossy(s.as_slice());
        out.files.push(SourceFile {
            name,
            text: text.trim_end_matches('\0').to_string(),
        });
    }

    // The file names of the line table (a PDB without a string table has none).
    let strings = pdb.string_table().ok();
    // Each variable's type index, resolved once the symbols are read.
    let mut type_of: Vec<u32> = Vec::new();
    // Each inline site's inlinee (an IPI index), named once the symbols are read.
    let mut inlinee_of: Vec<u32> = Vec::new();

    let dbi = pdb.debug_information().map_err(pdb_err("DBI stream"))?;
    let mut modules = dbi.modules().map_err(pdb_err("DBI module list"))?;
    while let Some(m) = modules.next().map_err(pdb_err("DBI module list"))? {
        let Some(mi) = pdb.module_info(&m).map_err(pdb_err("module stream"))? else {
            continue;
        };
        let program = mi.line_program().map_err(pdb_err("C13 line subsection"))?;
        let mut lines = program.lines();
        while let Some(l) = lines.next().map_err(pdb_err("C13 line subsection"))? {
            let file = program
                .get_file_info(l.file_index)
                .map_err(pdb_err("C13 file checksums"))?;
            let name: Cow<'_, str> = match &strings {
                Some(t) => file
                    .name
                    .to_string_lossy(t)
                    .map_err(pdb_err("string table"))?,
                None => Cow::Borrowed(""),
            };
            out.lines.push(Line {
                offset: l.offset.offset,
                length: l.length,
                file: name.into_owned(),
                line: l.line_start,
                column: l.column_start.unwrap_or(0),
            });
        }
        // The inlinee line records (start line and file of each inlined function); a
        // subsection that does not read leaves every inline site unread.
        let inlinees: Vec<pdb::Inlinee<'_>> = match mi.inlinees().and_then(|i| i.collect()) {
            Ok(v) => v,
            Err(e) => {
                out.warnings.push(format!(
                    "the C13 inlinee-lines subsection does not read ({e}): inlined functions are not frames"
                ));
                Vec::new()
            }
        };
        // The open inline sites, innermost last (`None`: one that does not read, kept
        // so that its S_INLINESITE_END still closes it).
        let mut open: Vec<Option<usize>> = Vec::new();
        let mut proc_offset = pdb::PdbInternalSectionOffset::default();
        let mut symbols = mi.symbols().map_err(pdb_err("module symbols"))?;
        while let Some(sym) = symbols.next().map_err(pdb_err("module symbols"))? {
            match sym.raw_kind() {
                S_GPROC32 | S_LPROC32 => {
                    if let Ok(pdb::SymbolData::Procedure(p)) = sym.parse()
                        && out.function.is_none()
                    {
                        out.function = Some(p.name.to_string().into_owned());
                        proc_offset = p.offset;
                    }
                }
                S_INLINESITE | S_INLINESITE2 => {
                    let at = sym.index().0;
                    let parent = open.iter().rev().find_map(|x| *x);
                    let site = if open.len() >= MAX_INLINE_DEPTH {
                        Err(format!(
                            "it is nested deeper than {MAX_INLINE_DEPTH} inline sites"
                        ))
                    } else {
                        inline_site(&sym, &inlinees, proc_offset, &program, strings.as_ref())
                    };
                    match site {
                        Ok((inlinee, lines)) => {
                            inlinee_of.push(inlinee);
                            open.push(Some(out.inline_sites.len()));
                            out.inline_sites.push(InlineSite {
                                function: String::new(),
                                parent,
                                lines,
                            });
                        }
                        Err(why) => {
                            out.warnings.push(format!(
                                "the S_INLINESITE record at byte 0x{at:x} of its module is not used ({why}): its code shows as its caller's"
                            ));
                            open.push(None);
                        }
                    }
                }
                // The guard closes the innermost open site; with none open, it warns.
                S_INLINESITE_END if open.pop().is_none() => {
                    out.warnings.push(format!(
                        "the S_INLINESITE_END record at byte 0x{:x} of its module closes no inline site: ignored",
                        sym.index().0
                    ));
                }
                S_LOCAL => {
                    let pdb::SymbolData::Local(l) = sym.parse().map_err(pdb_err("S_LOCAL"))? else {
                        continue;
                    };
                    type_of.push(l.type_index.0);
                    out.variables.push(Variable {
                        name: l.name.to_string().into_owned(),
                        parameter: l.flags.isparam,
                        ty: VarType::Unreadable(l.type_index.0, "not read yet".into()),
                        ranges: Vec::new(),
                        site: open.iter().rev().find_map(|x| *x),
                    });
                }
                S_DEFRANGE_HLSL => {
                    let r = decode_defrange(sym.raw_bytes()).map_err(|what| SpdbError::Record {
                        record: "S_DEFRANGE_HLSL",
                        offset: sym.index().0,
                        what,
                    })?;
                    // A range belongs to the S_LOCAL before it.
                    if let Some(v) = out.variables.last_mut() {
                        v.ranges.push(r);
                    }
                }
                _ => {}
            }
        }
        if !open.is_empty() {
            out.warnings.push(format!(
                "{} S_INLINESITE record(s) of the module have no S_INLINESITE_END: they end with the module",
                open.len()
            ));
        }
    }
    out.lines.sort_by_key(|l| l.offset);
    name_inlinees(&mut pdb, &mut out, &inlinee_of);
    read_types(&mut pdb, &mut out.variables, &type_of);
    Ok(out)
}

/// An `S_INLINESITE` record's inlinee (its IPI index) and the lines of the inlined
/// function its binary annotations give (`cvinfo.h`'s `BinaryAnnotationOpcode`; LLVM's
/// CodeView documentation): the annotations run from the procedure's start
/// (`proc_offset`) and from the inlinee's line and file in the module's inlinee-lines
/// subsection; the crate parses the record and runs the line program. Why it does not
/// read otherwise.
fn inline_site(
    sym: &pdb::Symbol<'_>,
    inlinees: &[pdb::Inlinee<'_>],
    proc_offset: pdb::PdbInternalSectionOffset,
    program: &pdb::LineProgram<'_>,
    strings: Option<&pdb::StringTable<'_>>,
) -> Result<(u32, Vec<Line>), String> {
    let site = match sym.parse() {
        Ok(pdb::SymbolData::InlineSite(s)) => s,
        Ok(_) => return Err("it is not an inline site".into()),
        Err(e) => return Err(format!("it does not read: {e}")),
    };
    // The annotations must read to their end within the record.
    if let Err(e) = site.annotations.iter().count() {
        return Err(format!("its binary annotations run past the record: {e}"));
    }
    let inlinee = inlinees
        .iter()
        .find(|i| i.index() == site.inlinee)
        .ok_or_else(|| {
            format!(
                "its inlinee 0x{:x} has no record in the inlinee-lines subsection",
                site.inlinee.0
            )
        })?;
    // The crate adds offsets and lines without checking; a program that overflows them
    // does not read (the panic is the crate's, caught here; see `read`).
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        inlinee.lines(proc_offset, &site).collect::<Vec<_>>()
    }));
    let lines = match run {
        Ok(Ok(l)) => l,
        Ok(Err(e)) => return Err(format!("its binary annotations do not read: {e}")),
        Err(_) => return Err("its binary annotations overflow an offset or a line".into()),
    };
    let mut out = Vec::new();
    for l in lines {
        let file = program
            .get_file_info(l.file_index)
            .map_err(|e| format!("its file 0x{:x} does not read: {e}", l.file_index.0))?;
        let name = match strings {
            Some(t) => file
                .name
                .to_string_lossy(t)
                .map_err(|e| format!("its file's name does not read: {e}"))?
                .into_owned(),
            None => String::new(),
        };
        out.push(Line {
            offset: l.offset.offset,
            length: l.length,
            file: name,
            line: l.line_start,
            column: l.column_start.unwrap_or(0),
        });
    }
    out.sort_by_key(|l| l.offset);
    Ok((site.inlinee.0, out))
}

/// Names each inline site's function from its `LF_FUNC_ID` (or `LF_MFUNC_ID`) in the
/// IPI stream (`inlinee_of[k]` is site `k`'s index). A site whose inlinee does not read
/// (an index past the stream, another kind of record) is not used: its lines are
/// dropped, so its code shows as its caller's, and a warning says so.
fn name_inlinees(pdb: &mut pdb::PDB<'_, Bounded>, out: &mut Spdb, inlinee_of: &[u32]) {
    if inlinee_of.is_empty() {
        return;
    }
    let ipi = pdb.id_information();
    let mut finder = ipi.as_ref().ok().map(|t| t.finder());
    if let (Ok(t), Some(f)) = (&ipi, finder.as_mut()) {
        let mut iter = t.iter();
        while let Ok(Some(_)) = iter.next() {
            f.update(&iter);
        }
    }
    for (site, &index) in out.inline_sites.iter_mut().zip(inlinee_of) {
        let name = match (&ipi, &finder) {
            (Err(e), _) => Err(format!("the IPI stream does not read: {e}")),
            (_, None) => Err("the IPI stream does not read".into()),
            (Ok(_), Some(f)) => match f.find(pdb::IdIndex(index)).map(|i| i.parse()) {
                Ok(Ok(pdb::IdData::Function(x))) => Ok(x.name.to_string().into_owned()),
                Ok(Ok(pdb::IdData::MemberFunction(x))) => Ok(x.name.to_string().into_owned()),
                Ok(Ok(_)) => Err(format!("IPI record 0x{index:x} is not a function id")),
                Ok(Err(e)) => Err(format!("IPI record 0x{index:x} does not read: {e}")),
                Err(_) => Err(format!(
                    "its inlinee 0x{index:x} is past the IPI stream's records"
                )),
            },
        };
        match name {
            Ok(n) => site.function = n,
            Err(why) => {
                out.warnings.push(format!(
                    "an S_INLINESITE record is not used ({why}): its code shows as its caller's"
                ));
                site.lines.clear();
                site.function = "?".into();
            }
        }
    }
}

/// Resolves the variables' types (`type_of[k]` is variable `k`'s type index). A type
/// stream that does not read leaves only the primitive types readable.
fn read_types(pdb: &mut pdb::PDB<'_, Bounded>, variables: &mut [Variable], type_of: &[u32]) {
    let tpi = pdb.type_information().ok();
    let mut finder = tpi.as_ref().map(|t| t.finder());
    if let (Some(t), Some(f)) = (&tpi, finder.as_mut()) {
        let mut iter = t.iter();
        // The finder learns each record's position as the iterator passes it; a record
        // that does not read ends what it learns.
        while let Ok(Some(_)) = iter.next() {
            f.update(&iter);
        }
    }
    let raw = pdb.raw_stream(pdb::StreamIndex(TPI_STREAM)).ok().flatten();
    let reader = TypeReader {
        finder: finder.as_ref(),
        raw: raw
            .as_ref()
            .map(|s| raw_hlsl_types(s.as_slice()))
            .unwrap_or_default(),
    };
    for (v, &index) in variables.iter_mut().zip(type_of) {
        v.ty = reader.get(index);
    }
}

/// Reads variables' types: primitive types, structures (`LF_STRUCTURE`/`LF_CLASS`,
/// their `LF_FIELDLIST` and `LF_MEMBER`s), arrays (`LF_ARRAY`) and `const` modifiers
/// through the crate's type iterator and finder; fxc's `LF_VECTOR` and `LF_MATRIX`
/// records, which the crate neither parses nor exposes, from the type stream's raw
/// records ([`raw_hlsl_types`]).
struct TypeReader<'a, 't> {
    finder: Option<&'a pdb::TypeFinder<'t>>,
    /// `(type index, leaf kind, record)` of each `LF_VECTOR` and `LF_MATRIX`.
    raw: Vec<(u32, u16, &'a [u8])>,
}

impl TypeReader<'_, '_> {
    /// The type of index `index`; a type that does not read says why.
    fn get(&self, index: u32) -> VarType {
        let mut budget = MAX_TYPE_SCALARS;
        self.read(index, 0, &mut budget)
            .unwrap_or_else(|why| VarType::Unreadable(index, why))
    }

    fn read(&self, index: u32, depth: u32, budget: &mut u32) -> Result<VarType, String> {
        if depth > MAX_TYPE_DEPTH {
            return Err(format!(
                "type 0x{index:x} is nested deeper than {MAX_TYPE_DEPTH} (a type that contains itself?)"
            ));
        }
        let take = |budget: &mut u32, n: u32| -> Result<(), String> {
            *budget = budget.checked_sub(n).ok_or_else(|| {
                format!("type 0x{index:x} holds more than the {MAX_TYPE_SCALARS} scalars read")
            })?;
            Ok(())
        };
        if index < 0x1000 {
            let k = self.scalar(index)?;
            take(budget, 1)?;
            return Ok(VarType::Scalar(k));
        }
        if let Some(&(_, leaf, rec)) = self.raw.iter().find(|(i, _, _)| *i == index) {
            let t = self.hlsl_type(index, leaf, rec)?;
            take(budget, t.bytes().unwrap_or(0) / 4)?;
            return Ok(t);
        }
        let finder = self.finder.ok_or("the type stream does not read")?;
        let item = finder
            .find(pdb::TypeIndex(index))
            .map_err(|_| format!("type index 0x{index:x} is past the type stream's records"))?;
        let data = item
            .parse()
            .map_err(|e| format!("type record 0x{index:x} does not read: {e}"))?;
        match data {
            pdb::TypeData::Modifier(m) => {
                self.read(m.underlying_type.0, depth.saturating_add(1), budget)
            }
            pdb::TypeData::Class(c) => {
                let Some(fields) = c.fields else {
                    return Err(format!(
                        "structure 0x{index:x} ({}) has no field list",
                        c.name
                    ));
                };
                self.fields(fields.0, depth.saturating_add(1), budget)
                    .map(VarType::Struct)
            }
            pdb::TypeData::Array(a) => {
                // The element's scalars are counted once per element below.
                let mut own = MAX_TYPE_SCALARS;
                let element = self.read(a.element_type.0, depth.saturating_add(1), &mut own)?;
                let stride = element
                    .bytes()
                    .filter(|b| *b > 0)
                    .ok_or_else(|| format!("array 0x{index:x}'s element has no size"))?;
                // The first dimension is the array's size in bytes (cvinfo.h's lfArray).
                let bytes = a.dimensions.first().copied().unwrap_or(0);
                let count = bytes.checked_div(stride).unwrap_or(0);
                let scalars = u64::from(count).saturating_mul(u64::from(stride.div_ceil(4)));
                let n = u32::try_from(scalars).map_err(|_| {
                    format!("array 0x{index:x} of {count} elements is too large to read")
                })?;
                take(budget, n).map_err(|_| {
                    format!(
                        "array 0x{index:x} of {count} elements holds more than the {MAX_TYPE_SCALARS} scalars read"
                    )
                })?;
                Ok(VarType::Array {
                    element: Box::new(element),
                    count,
                    stride,
                })
            }
            other => Err(format!(
                "type record 0x{index:x} (kind 0x{:04x}) is not a kind read: {}",
                item.raw_kind(),
                kind_name(&other)
            )),
        }
    }

    /// The data members of field list `index`, following its continuations
    /// (`LF_INDEX`); a list that continues into one already read is refused.
    fn fields(&self, index: u32, depth: u32, budget: &mut u32) -> Result<Vec<Field>, String> {
        let finder = self.finder.ok_or("the type stream does not read")?;
        let mut out = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        let mut next = Some(index);
        while let Some(fi) = next {
            if seen.contains(&fi) || seen.len() > MAX_TYPE_DEPTH as usize {
                return Err(format!("field list 0x{fi:x} continues into itself"));
            }
            seen.push(fi);
            let item = finder.find(pdb::TypeIndex(fi)).map_err(|_| {
                format!("field list index 0x{fi:x} is past the type stream's records")
            })?;
            let pdb::TypeData::FieldList(list) = item
                .parse()
                .map_err(|e| format!("field list 0x{fi:x} does not read: {e}"))?
            else {
                return Err(format!("type 0x{fi:x} is not a field list"));
            };
            for f in &list.fields {
                let pdb::TypeData::Member(m) = f else {
                    continue;
                };
                let name = m.name.to_string().into_owned();
                let offset = u32::try_from(m.offset)
                    .map_err(|_| format!("member {name}'s offset {} is too large", m.offset))?;
                // The outermost member names the path; inner ones would repeat it.
                let ty = self
                    .read(m.field_type.0, depth.saturating_add(1), budget)
                    .map_err(|why| {
                        if why.starts_with("member ") {
                            why
                        } else {
                            format!("member {name}: {why}")
                        }
                    })?;
                out.push(Field { name, offset, ty });
            }
            next = list.continuation.map(|c| c.0);
        }
        Ok(out)
    }

    /// The scalar kind of primitive type `index` (the 32-bit kinds fxc uses).
    fn scalar(&self, index: u32) -> Result<ScalarKind, String> {
        use pdb::PrimitiveKind as P;
        let not = || format!("primitive type 0x{index:x} is not a 32-bit scalar");
        let finder = self.finder.ok_or("the type stream does not read")?;
        let Ok(pdb::TypeData::Primitive(p)) = finder
            .find(pdb::TypeIndex(index))
            .map_err(|_| not())?
            .parse()
        else {
            return Err(not());
        };
        if p.indirection.is_some() {
            return Err(not());
        }
        Ok(match p.kind {
            P::F32 | P::F32PP => ScalarKind::Float,
            P::I32 | P::Long => ScalarKind::Int,
            P::U32 | P::ULong => ScalarKind::UInt,
            P::Bool32 => ScalarKind::Bool,
            _ => return Err(not()),
        })
    }

    /// An `LF_VECTOR` (`lfVector`: element type u32, count u32) or `LF_MATRIX`
    /// (`lfMatrix`: element type u32, rows u32, columns u32, major stride u32, then the
    /// attribute byte whose bit 0 is `row_major`) record, the leaf kind first
    /// (`cvinfo.h`). Every field is bounds-checked.
    fn hlsl_type(&self, index: u32, leaf: u16, rec: &[u8]) -> Result<VarType, String> {
        let short = || format!("type record 0x{index:x} is cut short");
        let u32_at = |at: usize| -> Result<u32, String> {
            rec.get(at..at.saturating_add(4))
                .and_then(|s| s.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(short)
        };
        let kind = self.scalar(u32_at(2)?)?;
        let dim = |n: u32, what: &str| {
            if (1..=4).contains(&n) {
                Ok(n)
            } else {
                Err(format!(
                    "type record 0x{index:x} has {n} {what}, not 1 to 4"
                ))
            }
        };
        if leaf == LF_VECTOR {
            return Ok(VarType::Vector(kind, dim(u32_at(6)?, "elements")?));
        }
        let rows = dim(u32_at(6)?, "rows")?;
        let cols = dim(u32_at(10)?, "columns")?;
        let attr = rec.get(18).copied().ok_or_else(short)?;
        Ok(VarType::Matrix {
            kind,
            rows,
            cols,
            row_major: attr & 1 == 1,
        })
    }
}

/// A type record's kind, for an error.
fn kind_name(t: &pdb::TypeData<'_>) -> &'static str {
    match t {
        pdb::TypeData::Pointer(_) => "a pointer",
        pdb::TypeData::Union(_) => "a union",
        pdb::TypeData::Enumeration(_) => "an enumeration",
        pdb::TypeData::Procedure(_) | pdb::TypeData::MemberFunction(_) => "a function",
        pdb::TypeData::Primitive(_) => "a primitive",
        _ => "another kind",
    }
}

/// fxc's `LF_VECTOR` and `LF_MATRIX` records in the type stream: the TPI header's size
/// at byte 4 and first type index at byte 8, then records of a u16 length and that many
/// bytes, the first two the leaf kind. At most one entry per 4 bytes of the stream.
fn raw_hlsl_types(tpi: &[u8]) -> Vec<(u32, u16, &[u8])> {
    let mut out = Vec::new();
    let u32_at = |b: &[u8], at: usize| -> Option<u32> {
        let s = b.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes(s.try_into().ok()?))
    };
    let (Some(header), Some(first)) = (u32_at(tpi, 4), u32_at(tpi, 8)) else {
        return out;
    };
    let mut at = header as usize;
    let mut index = first;
    while let Some(&[lo, hi]) = tpi.get(at..at.saturating_add(2)) {
        let len = usize::from(u16::from_le_bytes([lo, hi]));
        let start = at.saturating_add(2);
        let Some(rec) = start.checked_add(len).and_then(|end| tpi.get(start..end)) else {
            return out;
        };
        if let Some(&[a, b]) = rec.get(..2) {
            let kind = u16::from_le_bytes([a, b]);
            if kind == LF_VECTOR || kind == LF_MATRIX {
                out.push((index, kind, rec));
            }
        }
        at = start.saturating_add(len);
        index = index.saturating_add(1);
    }
    out
}

/// Decodes an `S_DEFRANGE_HLSL` record from its raw bytes (the record kind first, the
/// length prefix not included). Layout (`cvinfo.h`, `DEFRANGESYMHLSL`): kind u16,
/// register type u16, flags u16 (bits 0–1: the number of register dimensions; bit 2: a
/// spilled member; bits 3–6: the memory space), offset in parent u16, size in parent
/// u16, the range (`CV_LVAR_ADDR_RANGE`: start u32, section u16, length u16), then the
/// gaps (`CV_LVAR_ADDR_GAP`: start from the range's start u16, length u16) and last the
/// register offset of each dimension (u32 each).
pub fn decode_defrange(raw: &[u8]) -> Result<RegisterRange, String> {
    let u16_at = |at: usize| -> Result<u16, String> {
        raw.get(at..at.saturating_add(2))
            .and_then(|s| s.try_into().ok())
            .map(u16::from_le_bytes)
            .ok_or_else(|| format!("truncated at byte {at} of {}", raw.len()))
    };
    let u32_at = |at: usize| -> Result<u32, String> {
        raw.get(at..at.saturating_add(4))
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| format!("truncated at byte {at} of {}", raw.len()))
    };
    let register_type = u16_at(2)?;
    let flags = u16_at(4)?;
    let dims = usize::from(flags & 3);
    let offset_in_parent = u16_at(6)?;
    let size_in_parent = u16_at(8)?;
    let start = u32_at(10)?;
    let length = u16_at(16)?;
    if dims == 0 {
        return Err("no register dimension".into());
    }
    let tail = raw.len().saturating_sub(18);
    let dim_bytes = dims.saturating_mul(4);
    let gap_bytes = tail
        .checked_sub(dim_bytes)
        .filter(|g| g % 4 == 0)
        .ok_or_else(|| {
            format!("{tail} bytes after the range do not hold gaps and {dims} register offsets")
        })?;
    let n_gaps = gap_bytes / 4;
    let mut gaps = Vec::with_capacity(n_gaps);
    for g in 0..n_gaps {
        let at = 18usize.saturating_add(g.saturating_mul(4));
        let gs = start.saturating_add(u32::from(u16_at(at)?));
        gaps.push((
            gs,
            gs.saturating_add(u32::from(u16_at(at.saturating_add(2))?)),
        ));
    }
    let regs_at = 18usize.saturating_add(n_gaps.saturating_mul(4));
    let register_offset = u32_at(regs_at)?;
    let second = if dims > 1 {
        Some(u32_at(regs_at.saturating_add(4))?)
    } else {
        None
    };
    Ok(RegisterRange {
        register_type,
        register_offset,
        second,
        offset_in_parent,
        size_in_parent,
        start,
        end: start.saturating_add(u32::from(length)),
        gaps,
    })
}
