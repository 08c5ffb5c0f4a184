//! DXIL debug info: the HLSL a program was compiled from (`-Zi`), where each instruction
//! came from, and which values hold the pieces of each HLSL variable.
//!
//! Owns reading the debug metadata of a decoded [`Module`] into HLSL terms: the sources
//! (`dx.source.contents`, `dx.source.mainFileName`, `dx.source.args` named metadata, as
//! DXIL.rst's "Debug info" section and dxc write them: `!{!"name", !"text"}` pairs, the
//! main file's name, the compiler's arguments), the frames of each instruction's location
//! (a `DILocation`'s scope walked up through `DILexicalBlock`/`DILexicalBlockFile` to its
//! `DISubprogram` and `DIFile`, then its `inlinedAt` chain: one frame per inlined call),
//! the variables (`DILocalVariable` with its type flattened into leaves through
//! `DIBasicType`, `DIDerivedType` members and typedefs, `DICompositeType` structs, classes
//! such as `vector<float, 4>` and arrays with `DISubrange`) and the `llvm.dbg.value` /
//! `llvm.dbg.declare` calls binding values to them, with `DIExpression`'s
//! `DW_OP_bit_piece offset, size` naming the bits of the variable a value holds (and
//! `DW_OP_plus` the bytes a declared address is moved by; `DW_OP_deref` making a
//! `llvm.dbg.value`'s value the variable's address). Record
//! layouts are LLVM 3.7's (`BitcodeWriter.cpp`, `LLVMBitCodes.h`): a debug record's first
//! operand is `distinct`, operands naming metadata hold id + 1 (0 for null).
//!
//! Does not own decoding the bitstream (`dxil::llvm` keeps these records as they are
//! stored) nor stepping (`debug`). Debug info is untrusted: [`DebugInfo::read`] returns an
//! error saying what is malformed and where (the metadata id), and the debugger then falls
//! back to the listing; every walk is bounded ([`MAX_DEPTH`], [`MAX_LEAVES`]).

use std::collections::HashMap;

use super::llvm::{InstKind, MdId, Metadata, Module, Operand, ValueId};

/// The deepest scope, type or `inlinedAt` chain followed (a cycle or a deeper chain is
/// malformed debug info).
pub const MAX_DEPTH: usize = 64;

/// The most leaves one variable's type flattens into.
pub const MAX_LEAVES: usize = 4096;

/// Metadata record codes of LLVM 3.7's `LLVMBitCodes.h`.
mod code {
    pub const SUBRANGE: u32 = 13;
    pub const BASIC_TYPE: u32 = 15;
    pub const FILE: u32 = 16;
    pub const DERIVED_TYPE: u32 = 17;
    pub const COMPOSITE_TYPE: u32 = 18;
    pub const SUBPROGRAM: u32 = 21;
    pub const LEXICAL_BLOCK: u32 = 22;
    pub const LEXICAL_BLOCK_FILE: u32 = 23;
    pub const LOCAL_VAR: u32 = 28;
    pub const EXPRESSION: u32 = 29;
}

/// DWARF tags and operations the reader interprets (DWARF 4, §7.5 and §7.7).
mod dw {
    pub const TAG_ARRAY_TYPE: u64 = 0x01;
    pub const TAG_MEMBER: u64 = 0x0d;
    pub const TAG_ARG_VARIABLE: u64 = 0x101;
    pub const OP_DEREF: u64 = 0x06;
    pub const OP_PLUS: u64 = 0x22;
    pub const OP_BIT_PIECE: u64 = 0x9d;
    pub const ATE_BOOLEAN: u64 = 0x02;
    pub const ATE_FLOAT: u64 = 0x04;
    pub const ATE_SIGNED: u64 = 0x05;
}

/// Which debug info a program carries (`dxlane info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugInfoKind {
    /// None.
    None,
    /// DXIL debug metadata (LLVM 3.7 `DI*` records, locations, `dx.source.*`).
    DxilMetadata,
}

/// A source file the program carries (`dx.source.contents`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The name as the compiler saw it.
    pub name: String,
    /// The text.
    pub text: String,
}

/// One frame of an instruction's location: innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The HLSL function (the `DISubprogram`'s name).
    pub function: String,
    /// The file (`DIFile`'s file name).
    pub file: String,
    /// Line (1-based).
    pub line: u32,
    /// Column (0 when not given).
    pub column: u32,
}

/// How a leaf's bits read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// IEEE float.
    Float,
    /// Two's complement.
    Signed,
    /// Unsigned integer.
    Unsigned,
    /// `bool`.
    Bool,
}

/// One scalar of a variable: its place in the variable's bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// The path below the variable (`""`, `.x`, `.pos.y`, `[2]`).
    pub path: String,
    /// Bit offset in the variable.
    pub offset: u64,
    /// Bits.
    pub size: u64,
    /// How the bits read.
    pub encoding: Encoding,
    /// An element of an HLSL matrix: the path ends in its `[row][column]`.
    pub matrix: bool,
}

/// An HLSL local variable or parameter (`DILocalVariable`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// The function it belongs to.
    pub function: String,
    /// Declared on this line.
    pub line: u32,
    /// A parameter (`DW_TAG_arg_variable`) rather than a local.
    pub parameter: bool,
    /// The scalars, in bit order.
    pub leaves: Vec<Leaf>,
}

/// What a `DIExpression` says: the piece (`DW_OP_bit_piece` offset and size), the bytes
/// its `DW_OP_plus` operations add, and whether it has a `DW_OP_deref`.
type Expression = (Option<(u64, u64)>, u64, bool);

/// One `llvm.dbg.value` / `llvm.dbg.declare` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The function holding the call (index into [`Module::functions`]).
    pub function: usize,
    /// The call's instruction index.
    pub inst: u32,
    /// The variable (index into [`DebugInfo::variables`]).
    pub variable: usize,
    /// The value bound.
    pub value: ValueId,
    /// The variable's bits the value holds (`DW_OP_bit_piece`: offset, size); `None`: all.
    pub piece: Option<(u64, u64)>,
    /// `llvm.dbg.declare` (the value is the variable's address) rather than a value.
    pub declare: bool,
    /// Bytes the expression's `DW_OP_plus` operations add to a declared address (the
    /// piece starts that far into the memory).
    pub offset: u64,
}

/// Where a leaf of a variable lives at some point of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafValue {
    /// In this value, from this bit of it.
    Value(ValueId, u64),
    /// In the memory this value (a `llvm.dbg.declare`'s address) points to, from this
    /// bit of it.
    Memory(ValueId, u64),
    /// Nothing holds it ("optimised out").
    OptimisedOut,
}

/// A module's debug info in HLSL terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DebugInfo {
    /// `dx.source.mainFileName`.
    pub main_file: Option<String>,
    /// `dx.source.contents`.
    pub sources: Vec<SourceFile>,
    /// `dx.source.args`.
    pub args: Vec<String>,
    /// The frames of each located instruction: `(function index, instruction)` → frames,
    /// innermost first.
    pub frames: HashMap<(usize, u32), Vec<Frame>>,
    /// The variables.
    pub variables: Vec<Variable>,
    /// The bindings, in function and instruction order.
    pub bindings: Vec<Binding>,
}

/// The kind of debug info a module carries.
pub fn kind(m: &Module) -> DebugInfoKind {
    let named = m
        .named_metadata
        .iter()
        .any(|n| n.name.starts_with("dx.source.") || n.name == "llvm.dbg.cu");
    let records = m
        .metadata
        .iter()
        .any(|md| matches!(md, Metadata::Location { .. } | Metadata::Debug { .. }));
    let located = m
        .functions
        .iter()
        .filter_map(|f| f.body.as_ref())
        .any(|b| b.instructions.iter().any(|i| i.debug_loc.is_some()));
    if named || records || located {
        DebugInfoKind::DxilMetadata
    } else {
        DebugInfoKind::None
    }
}

/// What is wrong with the debug info, and where.
type Bad = String;

struct Reader<'m> {
    m: &'m Module,
    /// Type nodes visited so far: bounds the work of flattening types that share nodes.
    visits: std::cell::Cell<usize>,
}

/// The most type nodes visited while reading one module's variables.
const MAX_TYPE_VISITS: usize = 1 << 18;

impl<'m> Reader<'m> {
    fn md(&self, id: MdId) -> Result<&'m Metadata, Bad> {
        self.m
            .metadata
            .get(id.index())
            .ok_or_else(|| format!("{id}: no such metadata"))
    }

    /// A debug record's operand `i` naming metadata (id + 1, 0 null).
    fn op_md(ops: &[u64], i: usize, at: MdId) -> Result<Option<MdId>, Bad> {
        let v = *ops
            .get(i)
            .ok_or_else(|| format!("{at}: operand {i} missing"))?;
        match v.checked_sub(1) {
            None => Ok(None),
            Some(x) => u32::try_from(x)
                .map(|x| Some(MdId(x)))
                .map_err(|_| format!("{at}: operand {i} names no metadata")),
        }
    }

    fn op(ops: &[u64], i: usize, at: MdId) -> Result<u64, Bad> {
        ops.get(i)
            .copied()
            .ok_or_else(|| format!("{at}: operand {i} missing"))
    }

    fn debug(&self, id: MdId) -> Result<(u32, &'m [u64]), Bad> {
        match self.md(id)? {
            Metadata::Debug { code, ops, .. } => Ok((*code, ops)),
            _ => Err(format!("{id}: not a debug-info record")),
        }
    }

    fn string(&self, id: Option<MdId>) -> Result<String, Bad> {
        let Some(id) = id else {
            return Ok(String::new());
        };
        match self.md(id)? {
            Metadata::String(b) => Ok(String::from_utf8_lossy(b).into_owned()),
            _ => Err(format!("{id}: not a string")),
        }
    }

    fn file_name(&self, id: Option<MdId>) -> Result<String, Bad> {
        let Some(id) = id else {
            return Ok(String::new());
        };
        match self.debug(id)? {
            (code::FILE, ops) => self.string(Self::op_md(ops, 1, id)?),
            _ => Err(format!("{id}: not a DIFile")),
        }
    }

    /// The function and file of a scope: up through lexical blocks to the subprogram.
    fn scope(&self, mut id: MdId) -> Result<(String, String), Bad> {
        let mut file: Option<String> = None;
        for _ in 0..MAX_DEPTH {
            let (c, ops) = self.debug(id)?;
            match c {
                code::SUBPROGRAM => {
                    let name = self.string(Self::op_md(ops, 2, id)?)?;
                    let f = match file {
                        Some(f) => f,
                        None => self.file_name(Self::op_md(ops, 4, id)?)?,
                    };
                    return Ok((name, f));
                }
                code::LEXICAL_BLOCK | code::LEXICAL_BLOCK_FILE => {
                    if file.is_none() {
                        file = Some(self.file_name(Self::op_md(ops, 2, id)?)?);
                    }
                    id = Self::op_md(ops, 1, id)?
                        .ok_or_else(|| format!("{id}: a lexical block without a scope"))?;
                }
                _ => return Err(format!("{id}: record {c} is not a scope")),
            }
        }
        Err(format!("{id}: a scope chain deeper than {MAX_DEPTH}"))
    }

    fn frames(
        &self,
        line: u32,
        column: u32,
        scope: Option<MdId>,
        inlined_at: Option<MdId>,
        cache: &mut HashMap<MdId, (String, String)>,
    ) -> Result<Vec<Frame>, Bad> {
        let (mut line, mut column, mut scope, mut next) = (line, column, scope, inlined_at);
        let mut out = Vec::new();
        for _ in 0..MAX_DEPTH {
            let s = scope.ok_or("a location without a scope")?;
            let (function, file) = match cache.get(&s) {
                Some(x) => x.clone(),
                None => {
                    let x = self.scope(s)?;
                    cache.insert(s, x.clone());
                    x
                }
            };
            out.push(Frame {
                function,
                file,
                line,
                column,
            });
            let Some(at) = next else {
                return Ok(out);
            };
            match self.md(at)? {
                Metadata::Location {
                    line: l,
                    column: c,
                    scope: sc,
                    inlined_at: i,
                    ..
                } => (line, column, scope, next) = (*l, *c, Some(*sc), *i),
                _ => return Err(format!("{at}: inlinedAt is not a DILocation")),
            }
        }
        Err(format!("an inlinedAt chain deeper than {MAX_DEPTH}"))
    }

    /// Flattens a type into leaves at `base` bits, under `path`.
    fn leaves(
        &self,
        ty: Option<MdId>,
        base: u64,
        path: &str,
        depth: usize,
        out: &mut Vec<Leaf>,
    ) -> Result<(), Bad> {
        let Some(id) = ty else {
            return Err(format!("a variable of no type at {path:?}"));
        };
        self.visits.set(self.visits.get().saturating_add(1));
        if self.visits.get() > MAX_TYPE_VISITS {
            return Err(format!("{id}: types of more than {MAX_TYPE_VISITS} nodes"));
        }
        if depth > MAX_DEPTH {
            return Err(format!("{id}: a type nested deeper than {MAX_DEPTH}"));
        }
        if out.len() >= MAX_LEAVES {
            return Err(format!("{id}: a type of more than {MAX_LEAVES} scalars"));
        }
        let (c, ops) = self.debug(id)?;
        match c {
            code::BASIC_TYPE => {
                // [distinct, tag, name, size, align, encoding]
                let size = Self::op(ops, 3, id)?;
                let encoding = match Self::op(ops, 5, id)? {
                    dw::ATE_FLOAT => Encoding::Float,
                    dw::ATE_SIGNED => Encoding::Signed,
                    dw::ATE_BOOLEAN => Encoding::Bool,
                    _ => Encoding::Unsigned,
                };
                out.push(Leaf {
                    path: path.to_string(),
                    offset: base,
                    size,
                    encoding,
                    matrix: false,
                });
                Ok(())
            }
            code::DERIVED_TYPE => {
                // [distinct, tag, name, file, line, scope, baseType, size, align, offset, …]
                let tag = Self::op(ops, 1, id)?;
                let under = Self::op_md(ops, 6, id)?;
                if tag == dw::TAG_MEMBER {
                    let name = self.string(Self::op_md(ops, 2, id)?)?;
                    let off = Self::op(ops, 9, id)?;
                    let at = base
                        .checked_add(off)
                        .ok_or_else(|| format!("{id}: member offset overflows"))?;
                    self.leaves(
                        under,
                        at,
                        &format!("{path}.{name}"),
                        depth.saturating_add(1),
                        out,
                    )
                } else {
                    // typedef, const, volatile, …: the type below.
                    self.leaves(under, base, path, depth.saturating_add(1), out)
                }
            }
            code::COMPOSITE_TYPE => {
                // [distinct, tag, name, file, line, scope, baseType, size, align, offset,
                //  flags, elements, …]
                let tag = Self::op(ops, 1, id)?;
                let elements = match Self::op_md(ops, 11, id)? {
                    Some(e) => match self.md(e)? {
                        Metadata::Node { ops, .. } => ops.clone(),
                        _ => return Err(format!("{e}: elements are not a node")),
                    },
                    None => Vec::new(),
                };
                if tag == dw::TAG_ARRAY_TYPE {
                    let under = Self::op_md(ops, 6, id)?;
                    let total = Self::op(ops, 7, id)?;
                    let mut counts = Vec::new();
                    for e in elements.into_iter().flatten() {
                        match self.debug(e)? {
                            (code::SUBRANGE, o) => counts.push(Self::op(o, 1, e)?),
                            _ => {
                                return Err(format!("{e}: an array dimension is not a DISubrange"));
                            }
                        }
                    }
                    let n: u64 = counts
                        .iter()
                        .try_fold(1u64, |a, &c| a.checked_mul(c))
                        .filter(|&n| n > 0 && n <= MAX_LEAVES as u64)
                        .ok_or_else(|| format!("{id}: array dimensions {counts:?}"))?;
                    let stride = total.checked_div(n).unwrap_or(0);
                    for k in 0..n {
                        // Row-major indices, as HLSL and DWARF order them.
                        let mut rest = k;
                        let mut idx = vec![0; counts.len()];
                        for (slot, &c) in idx.iter_mut().zip(&counts).rev() {
                            *slot = rest.checked_rem(c).unwrap_or(0);
                            rest = rest.checked_div(c).unwrap_or(0);
                        }
                        let p: String = idx.iter().map(|i| format!("[{i}]")).collect();
                        let at = base
                            .checked_add(k.saturating_mul(stride))
                            .ok_or_else(|| format!("{id}: element offset overflows"))?;
                        self.leaves(
                            under,
                            at,
                            &format!("{path}{p}"),
                            depth.saturating_add(1),
                            out,
                        )?;
                    }
                    Ok(())
                } else {
                    // struct, class (vector<float, 4>, matrix<…>), union: its members.
                    let name = self.string(Self::op_md(ops, 2, id)?)?;
                    let matrix = name.starts_with("matrix<");
                    for e in elements.into_iter().flatten() {
                        match self.debug(e)? {
                            (code::DERIVED_TYPE, o) if Self::op(o, 1, e)? == dw::TAG_MEMBER => {
                                let member = self.string(Self::op_md(o, 2, e)?)?;
                                match matrix_element(&member).filter(|_| matrix) {
                                    // dxc names a matrix's elements `_11` … `_44` (row,
                                    // column, from 1) at their row-major offsets,
                                    // whatever the storage order: read as `[r][c]`.
                                    Some((r, c)) => {
                                        let off = Self::op(o, 9, e)?;
                                        let at = base.checked_add(off).ok_or_else(|| {
                                            format!("{e}: member offset overflows")
                                        })?;
                                        let first = out.len();
                                        self.leaves(
                                            Self::op_md(o, 6, e)?,
                                            at,
                                            &format!("{path}[{r}][{c}]"),
                                            depth.saturating_add(1),
                                            out,
                                        )?;
                                        for l in out.iter_mut().skip(first) {
                                            l.matrix = true;
                                        }
                                    }
                                    None => self.leaves(
                                        Some(e),
                                        base,
                                        path,
                                        depth.saturating_add(1),
                                        out,
                                    )?,
                                }
                            }
                            // Methods, template parameters, inheritance: hold no bits.
                            _ => {}
                        }
                    }
                    Ok(())
                }
            }
            _ => Err(format!("{id}: record {c} is not a type")),
        }
    }

    fn variable(&self, id: MdId) -> Result<Variable, Bad> {
        // [distinct, tag, scope, name, file, line, type, arg, flags]
        let (c, ops) = self.debug(id)?;
        if c != code::LOCAL_VAR {
            return Err(format!("{id}: not a DILocalVariable"));
        }
        let scope = Self::op_md(ops, 2, id)?.ok_or_else(|| format!("{id}: no scope"))?;
        let (function, _) = self.scope(scope)?;
        let name = self.string(Self::op_md(ops, 3, id)?)?;
        let line = u32::try_from(Self::op(ops, 5, id)?).unwrap_or(u32::MAX);
        let mut leaves = Vec::new();
        self.leaves(Self::op_md(ops, 6, id)?, 0, "", 0, &mut leaves)?;
        Ok(Variable {
            name,
            function,
            line,
            parameter: Self::op(ops, 1, id)? == dw::TAG_ARG_VARIABLE,
            leaves,
        })
    }

    /// A `DIExpression`'s piece, if any, the bytes its `DW_OP_plus` operations add, and
    /// whether it has a `DW_OP_deref` (the value bound is the address of the variable).
    fn piece(&self, id: MdId) -> Result<Expression, Bad> {
        let (c, ops) = self.debug(id)?;
        if c != code::EXPRESSION {
            return Err(format!("{id}: not a DIExpression"));
        }
        let mut piece = None;
        let mut plus = 0u64;
        let mut deref = false;
        let mut i = 1;
        while let Some(&op) = ops.get(i) {
            match op {
                dw::OP_BIT_PIECE => {
                    piece = Some((
                        Self::op(ops, i.saturating_add(1), id)?,
                        Self::op(ops, i.saturating_add(2), id)?,
                    ));
                    i = i.saturating_add(3);
                }
                dw::OP_PLUS => {
                    let n = Self::op(ops, i.saturating_add(1), id)?;
                    plus = plus
                        .checked_add(n)
                        .ok_or_else(|| format!("{id}: DW_OP_plus offsets overflow"))?;
                    i = i.saturating_add(2);
                }
                dw::OP_DEREF => {
                    deref = true;
                    i = i.saturating_add(1);
                }
                _ => {
                    return Err(format!(
                        "{id}: DWARF operation {op:#x} is not one DIExpression has"
                    ));
                }
            }
        }
        Ok((piece, plus, deref))
    }
}

impl DebugInfo {
    /// Reads the module's debug info; `Ok(None)` when it carries none.
    pub fn read(m: &Module) -> Result<Option<DebugInfo>, String> {
        if kind(m) == DebugInfoKind::None {
            return Ok(None);
        }
        let r = Reader {
            m,
            visits: std::cell::Cell::new(0),
        };
        let mut d = DebugInfo::default();
        let strings = |name: &str| -> Result<Vec<Vec<String>>, Bad> {
            let Some(n) = m.named(name) else {
                return Ok(Vec::new());
            };
            n.ops
                .iter()
                .map(|&id| match r.md(id)? {
                    Metadata::Node { ops, .. } => ops.iter().map(|&o| r.string(o)).collect(),
                    Metadata::String(_) => Ok(vec![r.string(Some(id))?]),
                    _ => Err(format!("{name}: {id} is not a node of strings")),
                })
                .collect()
        };
        for pair in strings("dx.source.contents")? {
            match pair.as_slice() {
                [name, text] => d.sources.push(SourceFile {
                    name: name.clone(),
                    text: text.clone(),
                }),
                _ => {
                    return Err("dx.source.contents: an entry that is not a name and a text".into());
                }
            }
        }
        d.main_file = strings("dx.source.mainFileName")?
            .into_iter()
            .flatten()
            .next();
        d.args = strings("dx.source.args")?.into_iter().flatten().collect();

        let mut scopes = HashMap::new();
        let mut vars: HashMap<MdId, usize> = HashMap::new();
        let dbg_fn = |callee: ValueId| {
            m.functions
                .iter()
                .find(|f| f.value == callee)
                .map(|f| f.name.as_str())
        };
        for (fi, f) in m.functions.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            for (k, inst) in body.instructions.iter().enumerate() {
                let k = u32::try_from(k).map_err(|_| "too many instructions")?;
                if let Some(loc) = inst.debug_loc {
                    let fr = r
                        .frames(loc.line, loc.column, loc.scope, loc.inlined_at, &mut scopes)
                        .map_err(|e| format!("function {}, instruction {k}: {e}", f.name))?;
                    d.frames.insert((fi, k), fr);
                }
                let InstKind::Call { callee, args, .. } = &inst.kind else {
                    continue;
                };
                let declare = match dbg_fn(*callee) {
                    Some("llvm.dbg.value") => false,
                    Some("llvm.dbg.declare") => true,
                    _ => continue,
                };
                let at = |e: String| format!("function {}, instruction {k}: {e}", f.name);
                // dbg.value(metadata V, i64 offset, metadata var, metadata expr);
                // dbg.declare(metadata V, metadata var, metadata expr).
                let (v, var, expr) = match (declare, args.as_slice()) {
                    (
                        false,
                        [
                            Operand::Metadata(v),
                            _,
                            Operand::Metadata(var),
                            Operand::Metadata(e),
                        ],
                    )
                    | (
                        true,
                        [
                            Operand::Metadata(v),
                            Operand::Metadata(var),
                            Operand::Metadata(e),
                        ],
                    ) => (*v, *var, *e),
                    _ => return Err(at("a llvm.dbg call of the wrong operands".into())),
                };
                let value = match m.md(Some(body), v) {
                    Some(Metadata::Value { value, .. }) => *value,
                    // A binding to nothing (`metadata !{}`, undef dropped): no value.
                    Some(Metadata::Node { ops, .. }) if ops.is_empty() => continue,
                    _ => return Err(at(format!("{v} is not a value"))),
                };
                let variable = match vars.get(&var) {
                    Some(&i) => i,
                    None => {
                        let i = d.variables.len();
                        d.variables.push(r.variable(var).map_err(at)?);
                        vars.insert(var, i);
                        i
                    }
                };
                let (piece, offset, deref) = r.piece(expr).map_err(at)?;
                // `DW_OP_deref` (DWARF 4 §2.5.1.3, as LLVM 3.7's `DIExpression` uses it):
                // the value bound is the variable's address, read through memory — a
                // `llvm.dbg.value` of a pointer then binds as a declare does. A declare
                // whose address would be dereferenced once more (a pointer to a pointer
                // to the variable, which dxc does not write) binds nothing.
                let declare = match (declare, deref) {
                    (true, true) => continue,
                    (d, x) => d || x,
                };
                d.bindings.push(Binding {
                    function: fi,
                    inst: k,
                    variable,
                    value,
                    piece,
                    declare,
                    offset,
                });
            }
        }
        Ok(Some(d))
    }

    /// The innermost frame of an instruction.
    pub fn location(&self, function: usize, inst: u32) -> Option<&Frame> {
        self.frames.get(&(function, inst)).and_then(|f| f.first())
    }

    /// The instructions of `function` whose innermost location is `file:line` (the file
    /// matched by [`same_file`]).
    pub fn instructions_at(&self, function: usize, file: &str, line: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .frames
            .iter()
            .filter(|((f, _), fr)| {
                *f == function
                    && fr
                        .first()
                        .is_some_and(|x| x.line == line && same_file(&x.file, file))
            })
            .map(|((_, k), _)| *k)
            .collect();
        v.sort_unstable();
        v
    }

    /// The first variable (parameter or local, of any function) of this name.
    pub fn variable(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }

    /// Where each leaf of `variable` lives once the bindings `done` says have run have
    /// run: `done(b)` is the position at which the lane ran binding `b` (`None`: not yet).
    /// The latest binding whose piece covers a leaf holds it: a `llvm.dbg.value` in its
    /// value's bits, a `llvm.dbg.declare` in the memory its address points to (the
    /// piece's first bit at the address plus the expression's offset).
    pub fn assemble(
        &self,
        variable: usize,
        done: impl Fn(&Binding) -> Option<u64>,
    ) -> Vec<(Leaf, LeafValue)> {
        let Some(var) = self.variables.get(variable) else {
            return Vec::new();
        };
        var.leaves
            .iter()
            .map(|leaf| {
                let best = self
                    .bindings
                    .iter()
                    .filter(|b| b.variable == variable)
                    .filter_map(|b| {
                        let (off, size) = b.piece.unwrap_or((0, u64::MAX));
                        let end = off.saturating_add(size);
                        let covers =
                            leaf.offset >= off && leaf.offset.saturating_add(leaf.size) <= end;
                        covers.then(|| done(b).map(|p| (p, b, leaf.offset.saturating_sub(off))))?
                    })
                    .max_by_key(|(p, b, _)| (*p, b.inst));
                let v = best.map_or(LeafValue::OptimisedOut, |(_, b, bit)| {
                    if b.declare {
                        LeafValue::Memory(b.value, bit.saturating_add(b.offset.saturating_mul(8)))
                    } else {
                        LeafValue::Value(b.value, bit)
                    }
                });
                (leaf.clone(), v)
            })
            .collect()
    }
}

/// The zero-based (row, column) of a matrix element dxc names `_RC` (from 1).
pub fn matrix_element(member: &str) -> Option<(u32, u32)> {
    let d = member.strip_prefix('_')?.as_bytes();
    match d {
        [r @ b'1'..=b'4', c @ b'1'..=b'4'] => Some((
            u32::from(r.saturating_sub(b'1')),
            u32::from(c.saturating_sub(b'1')),
        )),
        _ => None,
    }
}

/// Two file names name the same file: their last path components (after `/` or `\`)
/// are equal, ignoring ASCII case (dxc keeps the name as given, often a Windows path).
pub fn same_file(a: &str, b: &str) -> bool {
    let last = |s: &str| s.rsplit(['/', '\\']).next().unwrap_or(s).to_string();
    last(a).eq_ignore_ascii_case(&last(b))
}

#[cfg(test)]
pub(crate) mod tests;
