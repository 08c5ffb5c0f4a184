//! Writing a [`Module`] as LLVM 3.7 bitcode, the form a `DXIL` part carries.
//!
//! Owns: laying the module out in the blocks and records LLVM 3.7's `BitcodeWriter.cpp`
//! writes and [`Module::parse`] reads, in dxc's order — MODULE_BLOCK with VERSION, the
//! attribute groups and lists, the type table, triple and data layout, the global,
//! function and alias records, the module's constants, metadata and metadata kinds, the
//! module symbol table, use lists, then one FUNCTION_BLOCK per definition (its block
//! count, constants, function-local metadata, instructions with their DEBUG_LOC records,
//! symbol table, metadata attachments and use lists). Operands of instructions are
//! relative to the next value id when the module's VERSION is 1 (absolute when 0), a
//! forward reference is followed by its type, phi operands are signed relative values,
//! as the reader expects.
//!
//! Numbering: module values are written globals, functions and aliases first (in value
//! order), then constants; function-local values are the arguments, then the function's
//! constants, then the instruction results in order. A module the reader produced is
//! already numbered that way, so reading the written bitcode gives back the same ids;
//! a hand-built module (any ids, local values from any base) is renumbered.
//!
//! Does not write: abbreviations or BLOCKINFO (every record is unabbreviated, which the
//! reader and LLVM accept alike), the bitcode wrapper header or an IDENTIFICATION block
//! unless the module has one (dxc writes neither), a module-level VST offset or function
//! offsets (LLVM 3.8's), or blobs. Records kept as stored ([`Metadata::Debug`], use
//! lists, aliases, [`Constant::Raw`]) are written back as stored: their operands are not
//! renumbered.
//!
//! Refuses, with what and where: a value, type, block or metadata id that does not
//! exist, an alignment that is not a power of two, a function whose declaration flag
//! and body disagree, and module values whose kinds are out of order.

use super::bitstream::write::BitWriter;
use super::{
    Attribute, Constant, FunctionBody, InstKind, Instruction, MdId, Metadata, Module, Operand,
    Type, TypeId, ValueId, ValueKind, block,
};

/// Abbreviation id width of every block written (ids 0–3 need 2; 3 as dxc's blocks).
const ABBREV_WIDTH: u32 = 3;

/// An error writing a module: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// A module-level part (type, global, function, constant, metadata) is inconsistent.
    #[error("{place}: {what}")]
    Module {
        /// Where: `type 12`, `global @g`, `constant v30`, `metadata !4`, …
        place: String,
        /// What is wrong.
        what: String,
    },
    /// An instruction of a function body is inconsistent.
    #[error("function @{function}, instruction {inst}: {what}")]
    Function {
        /// The function's name.
        function: String,
        /// The instruction index.
        inst: usize,
        /// What is wrong.
        what: String,
    },
}

fn merr(place: impl Into<String>, what: impl Into<String>) -> WriteError {
    WriteError::Module {
        place: place.into(),
        what: what.into(),
    }
}

/// Writes `m` as raw LLVM 3.7 bitcode (starting with `BC\xC0\xDE`).
pub fn write_module(m: &Module) -> Result<Vec<u8>, WriteError> {
    let mut w = Writer::new(m)?;
    w.module()?;
    Ok(w.out.finish())
}

/// LLVM's sign-rotated encoding (`emitSignedInt64`): the magnitude shifted left, the
/// sign in bit 0; `i64::MIN` is "-0".
pub fn encode_signed(v: i64) -> u64 {
    if v >= 0 {
        v.unsigned_abs() << 1
    } else if v == i64::MIN {
        1
    } else {
        (v.unsigned_abs() << 1) | 1
    }
}

/// Alignment in bytes as stored (log2 + 1, 0 for none).
fn encode_align(align: u64, place: impl Fn() -> String) -> Result<u64, WriteError> {
    if align == 0 {
        Ok(0)
    } else if align.is_power_of_two() {
        Ok(u64::from(align.trailing_zeros()).saturating_add(1))
    } else {
        Err(merr(
            place(),
            format!("alignment {align} is not a power of two"),
        ))
    }
}

fn chars(s: &[u8]) -> impl Iterator<Item = u64> + '_ {
    s.iter().map(|&b| u64::from(b))
}

/// How the values of one function body are renumbered.
struct Locals {
    /// The body's first local id as given.
    first: u32,
    /// New id of each local value, by old id − `first` (`None`: not written).
    new: Vec<Option<u32>>,
    /// The first function-local metadata id as given.
    first_md: u32,
    /// The number of function-local metadata entries.
    md_len: u32,
}

struct Writer<'m> {
    m: &'m Module,
    out: BitWriter,
    /// New id of each module value, by index.
    module_ids: Vec<u32>,
    /// Module values in the order written: records first, then constants.
    order: Vec<usize>,
    /// The number of module values.
    module_count: u32,
    /// The number of module-level metadata entries.
    md_count: u32,
    relative: bool,
}

impl<'m> Writer<'m> {
    fn new(m: &'m Module) -> Result<Self, WriteError> {
        let count = u32::try_from(m.values.len()).map_err(|_| merr("module", "too many values"))?;
        let mut order: Vec<usize> = (0..m.values.len())
            .filter(|&i| {
                m.values
                    .get(i)
                    .is_some_and(|v| !matches!(v.kind, ValueKind::Constant(_)))
            })
            .collect();
        order.extend((0..m.values.len()).filter(|&i| {
            m.values
                .get(i)
                .is_some_and(|v| matches!(v.kind, ValueKind::Constant(_)))
        }));
        let mut module_ids = vec![0u32; m.values.len()];
        for (new, &old) in order.iter().enumerate() {
            if let Some(slot) = module_ids.get_mut(old) {
                *slot = u32::try_from(new).unwrap_or(u32::MAX);
            }
        }
        Ok(Writer {
            m,
            out: BitWriter::new(),
            module_ids,
            order,
            module_count: count,
            md_count: u32::try_from(m.metadata.len())
                .map_err(|_| merr("module", "too much metadata"))?,
            relative: m.version >= 1,
        })
    }

    fn ty_of(&self, t: TypeId) -> Option<&'m Type> {
        self.m.types.get(t.index())
    }

    fn type_op(&self, t: TypeId, place: &dyn Fn() -> String) -> Result<u64, WriteError> {
        if t.index() < self.m.types.len() {
            Ok(t.0.into())
        } else {
            Err(merr(
                place(),
                format!("type {} of {}", t.0, self.m.types.len()),
            ))
        }
    }

    /// The new id of a value seen from `locals` (module values from anywhere).
    fn vid(&self, id: ValueId, locals: Option<&Locals>) -> Option<u32> {
        if let Some(l) = locals
            && id.0 >= l.first
        {
            return l
                .new
                .get(id.0.wrapping_sub(l.first) as usize)
                .copied()
                .flatten();
        }
        self.module_ids.get(id.index()).copied()
    }

    /// The type of a value seen from `body`.
    fn vty(&self, id: ValueId, body: Option<&FunctionBody>) -> Option<TypeId> {
        match body {
            Some(b) if id.0 >= b.first_value => b.local(id).map(|v| v.ty),
            _ => self.m.values.get(id.index()).map(|v| v.ty),
        }
    }

    /// The new id of a metadata entry seen from `locals`.
    fn mdid(&self, id: MdId, locals: Option<&Locals>) -> Option<u32> {
        if id.0 < self.md_count {
            return Some(id.0);
        }
        let l = locals?;
        let k = id.0.checked_sub(l.first_md)?;
        (k < l.md_len).then(|| self.md_count.saturating_add(k))
    }

    fn module(&mut self) -> Result<(), WriteError> {
        let m = self.m;
        if let Some(id) = &m.identification {
            self.out.enter(block::IDENTIFICATION, ABBREV_WIDTH);
            let s: Vec<u64> = chars(id.producer.as_bytes()).collect();
            self.out.record(1, &s);
            if let Some(e) = id.epoch {
                self.out.record(2, &[e]);
            }
            self.out.exit();
        }
        self.out.enter(block::MODULE, ABBREV_WIDTH);
        self.out.record(1, &[m.version]);
        self.attributes();
        self.types()?;
        for (code, s) in [(2, &m.triple), (3, &m.datalayout), (4, &m.asm)] {
            if let Some(s) = s {
                let ops: Vec<u64> = chars(s.as_bytes()).collect();
                self.out.record(code, &ops);
            }
        }
        for s in &m.section_names {
            let ops: Vec<u64> = chars(s.as_bytes()).collect();
            self.out.record(5, &ops);
        }
        for s in &m.gc_names {
            let ops: Vec<u64> = chars(s.as_bytes()).collect();
            self.out.record(11, &ops);
        }
        if let Some(s) = &m.source_filename {
            let ops: Vec<u64> = chars(s.as_bytes()).collect();
            self.out.record(16, &ops);
        }
        self.global_records()?;
        let constants: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&i| {
                m.values
                    .get(i)
                    .is_some_and(|v| matches!(v.kind, ValueKind::Constant(_)))
            })
            .collect();
        self.constants(&constants, None, None)?;
        self.metadata(&m.metadata, None, None)?;
        // Kinds go in a block of their own, as LLVM 3.7's `WriteModuleMetadataStore`
        // writes them.
        if !m.metadata_kinds.is_empty() {
            self.out.enter(block::METADATA, ABBREV_WIDTH);
            for k in &m.metadata_kinds {
                let mut ops = vec![u64::from(k.id)];
                ops.extend(chars(k.name.as_bytes()));
                self.out.record(6, &ops);
            }
            self.out.exit();
        }
        self.module_symbols();
        if !m.uselists.is_empty() {
            self.out.enter(block::USELIST, ABBREV_WIDTH);
            for r in &m.uselists {
                self.out.record(r.code, &r.ops);
            }
            self.out.exit();
        }
        for f in &m.functions {
            match (&f.body, f.is_declaration) {
                (Some(body), false) => self.function(f.name.as_str(), f.ty, body)?,
                (None, true) => {}
                _ => {
                    return Err(merr(
                        format!("function @{}", f.name),
                        "declaration flag and body disagree",
                    ));
                }
            }
        }
        self.out.exit();
        Ok(())
    }

    /// PARAMATTR_GROUP_BLOCK and PARAMATTR_BLOCK.
    fn attributes(&mut self) {
        let m = self.m;
        if !m.attribute_groups.is_empty() {
            self.out.enter(block::PARAMATTR_GROUP, ABBREV_WIDTH);
            for g in &m.attribute_groups {
                let mut ops = vec![u64::from(g.id), u64::from(g.slot)];
                for a in &g.attrs {
                    match a {
                        Attribute::Flag(k) => ops.extend([0, u64::from(*k)]),
                        Attribute::Int(k, v) => ops.extend([1, u64::from(*k), *v]),
                        Attribute::String(k, v) => {
                            ops.push(if v.is_some() { 4 } else { 3 });
                            ops.extend(chars(k.as_bytes()));
                            ops.push(0);
                            if let Some(v) = v {
                                ops.extend(chars(v.as_bytes()));
                                ops.push(0);
                            }
                        }
                    }
                }
                self.out.record(3, &ops);
            }
            self.out.exit();
        }
        if !m.attribute_lists.is_empty() {
            self.out.enter(block::PARAMATTR, ABBREV_WIDTH);
            for l in &m.attribute_lists {
                let ops: Vec<u64> = l.groups.iter().map(|&g| u64::from(g)).collect();
                self.out.record(2, &ops);
            }
            self.out.exit();
        }
    }

    /// TYPE_BLOCK_ID_NEW: every type of the table, the ones the reader added included.
    fn types(&mut self) -> Result<(), WriteError> {
        let m = self.m;
        let mut records: Vec<(u32, Vec<u64>)> = vec![(1, vec![m.types.len() as u64])];
        for (i, t) in m.types.iter().enumerate() {
            let place = || format!("type {i}");
            let tref = |t: &TypeId| self.type_op(*t, &place);
            let (code, ops): (u32, Vec<u64>) = match t {
                Type::Void => (2, vec![]),
                Type::Float => (3, vec![]),
                Type::Double => (4, vec![]),
                Type::Label => (5, vec![]),
                Type::Half => (10, vec![]),
                Type::X86Fp80 => (13, vec![]),
                Type::Fp128 => (14, vec![]),
                Type::PpcFp128 => (15, vec![]),
                Type::Metadata => (16, vec![]),
                Type::X86Mmx => (17, vec![]),
                Type::Token => (22, vec![]),
                Type::Integer(w) => (7, vec![u64::from(*w)]),
                Type::Pointer {
                    pointee,
                    address_space,
                } => (8, vec![tref(pointee)?, u64::from(*address_space)]),
                Type::Array { len, element } => (11, vec![*len, tref(element)?]),
                Type::Vector { len, element } => (12, vec![*len, tref(element)?]),
                Type::Function {
                    vararg,
                    ret,
                    params,
                } => {
                    let mut ops = vec![u64::from(*vararg), tref(ret)?];
                    for p in params {
                        ops.push(tref(p)?);
                    }
                    (21, ops)
                }
                Type::Struct {
                    name,
                    packed,
                    elements,
                    opaque,
                } => {
                    if let Some(n) = name {
                        records.push((19, chars(n.as_bytes()).collect()));
                    }
                    if *opaque {
                        (6, vec![0])
                    } else {
                        let mut ops = vec![u64::from(*packed)];
                        for e in elements {
                            ops.push(tref(e)?);
                        }
                        (if name.is_some() { 20 } else { 18 }, ops)
                    }
                }
            };
            records.push((code, ops));
        }
        self.out.enter(block::TYPE_NEW, ABBREV_WIDTH);
        for (code, ops) in records {
            self.out.record(code, &ops);
        }
        self.out.exit();
        Ok(())
    }

    /// GLOBALVAR, FUNCTION and ALIAS records, in value order.
    fn global_records(&mut self) -> Result<(), WriteError> {
        let m = self.m;
        let (mut g, mut f, mut a) = (0u32, 0u32, 0u32);
        for &i in &self.order {
            let Some(v) = m.values.get(i) else { continue };
            let next = |n: &mut u32, k: u32, what: &str| -> Result<(), WriteError> {
                if *n != k {
                    return Err(merr(
                        format!("value {i}"),
                        format!("{what} {k} out of order (expected {what} {n})"),
                    ));
                }
                *n = n.saturating_add(1);
                Ok(())
            };
            match v.kind {
                ValueKind::Global(k) => {
                    next(&mut g, k, "global")?;
                    let gv = m
                        .globals
                        .get(k as usize)
                        .ok_or_else(|| merr(format!("value {i}"), format!("no global {k}")))?;
                    let place = || format!("global @{}", gv.name);
                    let init =
                        match gv.initializer {
                            None => 0,
                            Some(id) => u64::from(self.vid(id, None).ok_or_else(|| {
                                merr(place(), format!("initializer {id} missing"))
                            })?)
                            .saturating_add(1),
                        };
                    let ops = vec![
                        self.type_op(gv.value_ty, &place)?,
                        (u64::from(gv.address_space) << 2) | 2 | u64::from(gv.is_const),
                        init,
                        u64::from(gv.linkage.0),
                        encode_align(gv.align, place)?,
                        gv.section.map_or(0, |s| u64::from(s).saturating_add(1)),
                        u64::from(gv.visibility),
                        u64::from(gv.thread_local),
                        u64::from(gv.unnamed_addr),
                        u64::from(gv.externally_initialized),
                        u64::from(gv.dll_storage),
                        gv.comdat,
                    ];
                    self.out.record(7, &ops);
                }
                ValueKind::Function(k) => {
                    next(&mut f, k, "function")?;
                    let func = m
                        .functions
                        .get(k as usize)
                        .ok_or_else(|| merr(format!("value {i}"), format!("no function {k}")))?;
                    let place = || format!("function @{}", func.name);
                    let ops = vec![
                        self.type_op(func.ty, &place)?,
                        u64::from(func.calling_conv),
                        u64::from(func.is_declaration),
                        u64::from(func.linkage.0),
                        u64::from(func.attributes),
                        encode_align(func.align, place)?,
                        func.section.map_or(0, |s| u64::from(s).saturating_add(1)),
                        u64::from(func.visibility),
                        func.gc.map_or(0, |s| u64::from(s).saturating_add(1)),
                        u64::from(func.unnamed_addr),
                        func.prologue,
                        u64::from(func.dll_storage),
                        func.comdat,
                        func.prefix,
                        func.personality,
                    ];
                    self.out.record(8, &ops);
                }
                ValueKind::Alias(k) => {
                    next(&mut a, k, "alias")?;
                    let al = m
                        .aliases
                        .get(k as usize)
                        .ok_or_else(|| merr(format!("value {i}"), format!("no alias {k}")))?;
                    self.out.record(14, &al.record);
                }
                ValueKind::Constant(_) => {}
                ValueKind::Argument(_) | ValueKind::Instruction(_) => {
                    return Err(merr(
                        format!("value {i}"),
                        "an argument or instruction result among the module's values",
                    ));
                }
            }
        }
        if g as usize != m.globals.len()
            || f as usize != m.functions.len()
            || a as usize != m.aliases.len()
        {
            return Err(merr(
                "module",
                "globals, functions or aliases without a value",
            ));
        }
        Ok(())
    }

    /// A CONSTANTS_BLOCK of the values `which` (indices into the module's values, or
    /// into `body`'s local values).
    fn constants(
        &mut self,
        which: &[usize],
        body: Option<&FunctionBody>,
        locals: Option<&Locals>,
    ) -> Result<(), WriteError> {
        if which.is_empty() {
            return Ok(());
        }
        self.out.enter(block::CONSTANTS, ABBREV_WIDTH);
        let mut cur: Option<TypeId> = None;
        for &i in which {
            let v = match body {
                Some(b) => b.values.get(i),
                None => self.m.values.get(i),
            };
            let Some(v) = v else { continue };
            let ValueKind::Constant(c) = &v.kind else {
                continue;
            };
            let place = || match body {
                Some(b) => format!(
                    "constant v{}",
                    (i as u64).saturating_add(b.first_value.into())
                ),
                None => format!("constant v{i}"),
            };
            if cur != Some(v.ty) {
                let t = self.type_op(v.ty, &place)?;
                self.out.record(1, &[t]);
                cur = Some(v.ty);
            }
            let id = |x: &ValueId| -> Result<u64, WriteError> {
                self.vid(*x, locals)
                    .map(u64::from)
                    .ok_or_else(|| merr(place(), format!("operand {x} does not exist")))
            };
            let tyof = |x: &ValueId| -> Result<u64, WriteError> {
                let t = self
                    .vty(*x, body)
                    .ok_or_else(|| merr(place(), format!("operand {x} does not exist")))?;
                Ok(t.0.into())
            };
            let (code, ops): (u32, Vec<u64>) = match c {
                Constant::Null => (2, vec![]),
                Constant::Undef => (3, vec![]),
                Constant::Int(x) => (4, vec![encode_signed(*x)]),
                Constant::WideInt(ws) => (5, ws.iter().map(|&x| encode_signed(x)).collect()),
                Constant::Float(bits) => (6, vec![*bits]),
                Constant::Aggregate(ids) => (7, ids.iter().map(id).collect::<Result<_, _>>()?),
                Constant::String(b) => (8, chars(b).collect()),
                Constant::CString(b) => (9, chars(b).collect()),
                Constant::Data(d) => (22, d.clone()),
                Constant::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                } => {
                    let mut ops = vec![op.code(), id(lhs)?, id(rhs)?];
                    if *flags != 0 {
                        ops.push(*flags);
                    }
                    (10, ops)
                }
                Constant::Cast { op, value } => (11, vec![op.code(), tyof(value)?, id(value)?]),
                Constant::Gep {
                    inbounds,
                    source_ty,
                    operands,
                } => {
                    let mut ops = Vec::new();
                    if let Some(t) = source_ty {
                        ops.push(self.type_op(*t, &place)?);
                    }
                    for x in operands {
                        ops.push(tyof(x)?);
                        ops.push(id(x)?);
                    }
                    (if *inbounds { 20 } else { 12 }, ops)
                }
                Constant::Select {
                    cond,
                    if_true,
                    if_false,
                } => (13, vec![id(cond)?, id(if_true)?, id(if_false)?]),
                Constant::ExtractElement { vector, index } => (
                    14,
                    vec![tyof(vector)?, id(vector)?, tyof(index)?, id(index)?],
                ),
                Constant::InsertElement {
                    vector,
                    element,
                    index,
                } => (
                    15,
                    vec![id(vector)?, id(element)?, tyof(index)?, id(index)?],
                ),
                Constant::ShuffleVector { a, b, mask } => {
                    if self.vty(*a, body) == Some(v.ty) {
                        (16, vec![id(a)?, id(b)?, id(mask)?])
                    } else {
                        (19, vec![tyof(a)?, id(a)?, id(b)?, id(mask)?])
                    }
                }
                Constant::Cmp { pred, lhs, rhs } => {
                    (17, vec![tyof(lhs)?, id(lhs)?, id(rhs)?, u64::from(pred.0)])
                }
                Constant::BlockAddress { function, block } => {
                    (21, vec![tyof(function)?, id(function)?, u64::from(*block)])
                }
                Constant::Raw { code, ops } => (*code, ops.clone()),
            };
            self.out.record(code, &ops);
        }
        self.out.exit();
        Ok(())
    }

    /// A METADATA_BLOCK of `entries` (and, at module level, the named metadata).
    fn metadata(
        &mut self,
        entries: &[Metadata],
        body: Option<&FunctionBody>,
        locals: Option<&Locals>,
    ) -> Result<(), WriteError> {
        let named = &self.m.named_metadata;
        if entries.is_empty() && (body.is_some() || named.is_empty()) {
            return Ok(());
        }
        self.out.enter(block::METADATA, ABBREV_WIDTH);
        let base = match body {
            Some(_) => self.md_count,
            None => 0,
        };
        for (k, e) in entries.iter().enumerate() {
            let place = || format!("metadata !{}", (k as u64).saturating_add(base.into()));
            let md = |x: &MdId| -> Result<u64, WriteError> {
                self.mdid(*x, locals)
                    .map(u64::from)
                    .ok_or_else(|| merr(place(), format!("reference to {x}, which does not exist")))
            };
            let (code, ops): (u32, Vec<u64>) = match e {
                Metadata::String(b) => (1, chars(b).collect()),
                Metadata::Value { ty, value } => {
                    let v = self
                        .vid(*value, locals)
                        .ok_or_else(|| merr(place(), format!("value {value} does not exist")))?;
                    (2, vec![self.type_op(*ty, &place)?, v.into()])
                }
                Metadata::Node { distinct, ops } => {
                    let mut out = Vec::with_capacity(ops.len());
                    for o in ops {
                        out.push(match o {
                            None => 0,
                            Some(x) => md(x)?.saturating_add(1),
                        });
                    }
                    (if *distinct { 5 } else { 3 }, out)
                }
                Metadata::Location {
                    distinct,
                    line,
                    column,
                    scope,
                    inlined_at,
                } => (
                    7,
                    vec![
                        u64::from(*distinct),
                        u64::from(*line),
                        u64::from(*column),
                        md(scope)?,
                        match inlined_at {
                            None => 0,
                            Some(x) => md(x)?.saturating_add(1),
                        },
                    ],
                ),
                Metadata::Debug { code, ops, .. } => (*code, ops.clone()),
            };
            self.out.record(code, &ops);
        }
        if body.is_none() {
            for n in named {
                let name: Vec<u64> = chars(n.name.as_bytes()).collect();
                self.out.record(4, &name);
                let mut ops = Vec::with_capacity(n.ops.len());
                for x in &n.ops {
                    ops.push(self.mdid(*x, None).map(u64::from).ok_or_else(|| {
                        merr(
                            format!("!{}", n.name),
                            format!("reference to {x}, which does not exist"),
                        )
                    })?);
                }
                self.out.record(10, &ops);
            }
        }
        self.out.exit();
        Ok(())
    }

    /// The module's VALUE_SYMTAB: an ENTRY for every named module value.
    fn module_symbols(&mut self) {
        let m = self.m;
        let mut entries = Vec::new();
        for (i, v) in m.values.iter().enumerate() {
            if let (Some(name), Some(&new)) = (&v.name, self.module_ids.get(i)) {
                let mut ops = vec![u64::from(new)];
                ops.extend(chars(name.as_bytes()));
                entries.push(ops);
            }
        }
        if entries.is_empty() {
            return;
        }
        self.out.enter(block::VALUE_SYMTAB, ABBREV_WIDTH);
        for ops in entries {
            self.out.record(1, &ops);
        }
        self.out.exit();
    }

    /// A FUNCTION_BLOCK.
    fn function(
        &mut self,
        name: &str,
        fn_ty: TypeId,
        body: &FunctionBody,
    ) -> Result<(), WriteError> {
        let ferr = |inst: usize, what: String| WriteError::Function {
            function: name.to_owned(),
            inst,
            what,
        };
        let nparams = match self.ty_of(fn_ty) {
            Some(Type::Function { params, .. }) => params.len(),
            _ => return Err(ferr(0, "the function's type is not a function type".into())),
        };
        if body.args.len() != nparams {
            return Err(ferr(
                0,
                format!("{} arguments for {nparams} parameters", body.args.len()),
            ));
        }
        // Renumber: arguments, constants, instruction results.
        let base = self.module_count;
        let mut new = vec![None; body.values.len()];
        let local_index = |id: ValueId| -> Option<usize> {
            id.0.checked_sub(body.first_value).map(|k| k as usize)
        };
        let mut next = base;
        for a in &body.args {
            let slot = local_index(*a)
                .and_then(|k| new.get_mut(k))
                .ok_or_else(|| ferr(0, format!("argument {a} is not a local value")))?;
            *slot = Some(next);
            next = next.saturating_add(1);
        }
        let consts: Vec<usize> = body
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v.kind, ValueKind::Constant(_)))
            .map(|(k, _)| k)
            .collect();
        for &k in &consts {
            if let Some(slot) = new.get_mut(k) {
                *slot = Some(next);
                next = next.saturating_add(1);
            }
        }
        let first_result = next;
        for (n, inst) in body.instructions.iter().enumerate() {
            if let Some(r) = inst.result {
                let slot = local_index(r)
                    .and_then(|k| new.get_mut(k))
                    .ok_or_else(|| ferr(n, format!("result {r} is not a local value")))?;
                *slot = Some(next);
                next = next.saturating_add(1);
            }
        }
        let locals = Locals {
            first: body.first_value,
            new,
            first_md: body.first_metadata,
            md_len: u32::try_from(body.metadata.len()).unwrap_or(u32::MAX),
        };
        self.out.enter(block::FUNCTION, ABBREV_WIDTH);
        self.out.record(1, &[body.blocks.len() as u64]);
        self.constants(&consts, Some(body), Some(&locals))?;
        self.metadata(&body.metadata, Some(body), Some(&locals))?;
        // Blocks must tile the instructions, each ending with its terminator.
        let mut at = 0u32;
        for (b, bb) in body.blocks.iter().enumerate() {
            if bb.start != at || bb.end <= bb.start {
                return Err(ferr(
                    at as usize,
                    format!(
                        "block {b} spans {}..{}, expected to start at {at}",
                        bb.start, bb.end
                    ),
                ));
            }
            at = bb.end;
        }
        if at as usize != body.instructions.len() {
            return Err(ferr(
                at as usize,
                "instructions after the last block".into(),
            ));
        }
        let mut next = first_result;
        let mut last_loc = None;
        for (n, inst) in body.instructions.iter().enumerate() {
            let enc = InstEncoder {
                w: self,
                body,
                locals: &locals,
                next,
                n,
                name,
            };
            let (code, ops) = enc.encode(inst)?;
            self.out.record(code, &ops);
            if inst.result.is_some() {
                next = next.saturating_add(1);
            }
            if let Some(loc) = inst.debug_loc {
                if inst.debug_loc_again && last_loc == Some(loc) {
                    self.out.record(33, &[]);
                } else {
                    let md = |x: Option<MdId>| -> Result<u64, WriteError> {
                        match x {
                            None => Ok(0),
                            Some(x) => self
                                .mdid(x, Some(&locals))
                                .map(|v| u64::from(v).saturating_add(1))
                                .ok_or_else(|| {
                                    ferr(n, format!("location names {x}, which does not exist"))
                                }),
                        }
                    };
                    let ops = [
                        u64::from(loc.line),
                        u64::from(loc.column),
                        md(loc.scope)?,
                        md(loc.inlined_at)?,
                    ];
                    self.out.record(35, &ops);
                    last_loc = Some(loc);
                }
            }
        }
        self.function_symbols(body, &locals);
        self.attachments(body, &locals, name)?;
        if !body.uselists.is_empty() {
            self.out.enter(block::USELIST, ABBREV_WIDTH);
            for r in &body.uselists {
                self.out.record(r.code, &r.ops);
            }
            self.out.exit();
        }
        self.out.exit();
        Ok(())
    }

    /// A function's VALUE_SYMTAB: named local values (absolute ids) and blocks.
    fn function_symbols(&mut self, body: &FunctionBody, locals: &Locals) {
        let mut entries: Vec<(u32, Vec<u64>)> = Vec::new();
        for (k, v) in body.values.iter().enumerate() {
            if let (Some(name), Some(Some(new))) = (&v.name, locals.new.get(k)) {
                let mut ops = vec![u64::from(*new)];
                ops.extend(chars(name.as_bytes()));
                entries.push((1, ops));
            }
        }
        for (b, bb) in body.blocks.iter().enumerate() {
            if let Some(name) = &bb.name {
                let mut ops = vec![b as u64];
                ops.extend(chars(name.as_bytes()));
                entries.push((2, ops));
            }
        }
        if entries.is_empty() {
            return;
        }
        self.out.enter(block::VALUE_SYMTAB, ABBREV_WIDTH);
        for (code, ops) in entries {
            self.out.record(code, &ops);
        }
        self.out.exit();
    }

    /// METADATA_ATTACHMENT: the function's own, then each instruction's.
    fn attachments(
        &mut self,
        body: &FunctionBody,
        locals: &Locals,
        name: &str,
    ) -> Result<(), WriteError> {
        let any = !body.attachments.is_empty()
            || body.instructions.iter().any(|i| !i.attachments.is_empty());
        if !any {
            return Ok(());
        }
        let pairs = |list: &[(u32, MdId)], inst: usize| -> Result<Vec<u64>, WriteError> {
            let mut ops = Vec::with_capacity(list.len().saturating_mul(2));
            for (kind, node) in list {
                ops.push(u64::from(*kind));
                ops.push(
                    self.mdid(*node, Some(locals))
                        .map(u64::from)
                        .ok_or_else(|| WriteError::Function {
                            function: name.to_owned(),
                            inst,
                            what: format!("attachment of {node}, which does not exist"),
                        })?,
                );
            }
            Ok(ops)
        };
        let mut records = Vec::new();
        if !body.attachments.is_empty() {
            records.push(pairs(&body.attachments, 0)?);
        }
        for (n, inst) in body.instructions.iter().enumerate() {
            if !inst.attachments.is_empty() {
                let mut ops = vec![n as u64];
                ops.extend(pairs(&inst.attachments, n)?);
                records.push(ops);
            }
        }
        self.out.enter(block::METADATA_ATTACHMENT, ABBREV_WIDTH);
        for ops in records {
            self.out.record(11, &ops);
        }
        self.out.exit();
        Ok(())
    }
}

/// Encodes one instruction's record.
struct InstEncoder<'w, 'm> {
    w: &'w Writer<'m>,
    body: &'w FunctionBody,
    locals: &'w Locals,
    /// The id the instruction's result takes (operands are relative to it).
    next: u32,
    n: usize,
    name: &'w str,
}

impl InstEncoder<'_, '_> {
    fn err(&self, what: impl Into<String>) -> WriteError {
        WriteError::Function {
            function: self.name.to_owned(),
            inst: self.n,
            what: what.into(),
        }
    }

    fn new_id(&self, id: ValueId) -> Result<u32, WriteError> {
        self.w
            .vid(id, Some(self.locals))
            .ok_or_else(|| self.err(format!("operand {id} does not exist")))
    }

    fn rel(&self, new: u32) -> u64 {
        if self.w.relative {
            self.next.wrapping_sub(new).into()
        } else {
            new.into()
        }
    }

    /// A value whose type the record implies.
    fn v(&self, ops: &mut Vec<u64>, id: ValueId) -> Result<(), WriteError> {
        let new = self.new_id(id)?;
        ops.push(self.rel(new));
        Ok(())
    }

    /// A value followed by its type when it is a forward reference.
    fn vt(&self, ops: &mut Vec<u64>, id: ValueId) -> Result<(), WriteError> {
        let new = self.new_id(id)?;
        ops.push(self.rel(new));
        if new >= self.next {
            let t = self
                .w
                .vty(id, Some(self.body))
                .ok_or_else(|| self.err(format!("operand {id} has no type")))?;
            ops.push(t.0.into());
        }
        Ok(())
    }

    fn ty(&self, t: TypeId) -> Result<u64, WriteError> {
        if t.index() < self.w.m.types.len() {
            Ok(t.0.into())
        } else {
            Err(self.err(format!("type {} does not exist", t.0)))
        }
    }

    fn align(&self, a: u64) -> Result<u64, WriteError> {
        encode_align(a, String::new).map_err(|_| self.err(format!("alignment {a}")))
    }

    fn encode(&self, inst: &Instruction) -> Result<(u32, Vec<u64>), WriteError> {
        let mut o = Vec::new();
        let code = match &inst.kind {
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                self.vt(&mut o, *lhs)?;
                self.v(&mut o, *rhs)?;
                o.push(op.code());
                if *flags != 0 {
                    o.push((*flags).into());
                }
                2
            }
            InstKind::Cast { op, value } => {
                self.vt(&mut o, *value)?;
                o.push(self.ty(inst.ty)?);
                o.push(op.code());
                3
            }
            InstKind::Cmp {
                pred,
                lhs,
                rhs,
                flags,
            } => {
                self.vt(&mut o, *lhs)?;
                self.v(&mut o, *rhs)?;
                o.push(pred.0.into());
                if *flags != 0 {
                    o.push((*flags).into());
                }
                28
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                self.vt(&mut o, *if_true)?;
                self.v(&mut o, *if_false)?;
                self.vt(&mut o, *cond)?;
                29
            }
            InstKind::ExtractElement { vector, index } => {
                self.vt(&mut o, *vector)?;
                self.vt(&mut o, *index)?;
                6
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                self.vt(&mut o, *vector)?;
                self.v(&mut o, *element)?;
                self.vt(&mut o, *index)?;
                7
            }
            InstKind::ShuffleVector { a, b, mask } => {
                self.vt(&mut o, *a)?;
                self.v(&mut o, *b)?;
                self.vt(&mut o, *mask)?;
                8
            }
            InstKind::ExtractValue { aggregate, indices } => {
                self.vt(&mut o, *aggregate)?;
                o.extend(indices.iter().map(|&k| u64::from(k)));
                26
            }
            InstKind::InsertValue {
                aggregate,
                value,
                indices,
            } => {
                self.vt(&mut o, *aggregate)?;
                self.vt(&mut o, *value)?;
                o.extend(indices.iter().map(|&k| u64::from(k)));
                27
            }
            InstKind::Phi { incoming } => {
                o.push(self.ty(inst.ty)?);
                for (v, bb) in incoming {
                    let new = self.new_id(*v)?;
                    let rel = if self.w.relative {
                        i64::from(self.next).wrapping_sub(i64::from(new))
                    } else {
                        i64::from(new)
                    };
                    o.push(encode_signed(rel));
                    o.push(bb.0.into());
                }
                16
            }
            InstKind::Br { target } => {
                o.push(target.0.into());
                11
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                o.push(if_true.0.into());
                o.push(if_false.0.into());
                self.v(&mut o, *cond)?;
                11
            }
            InstKind::Switch {
                cond,
                default,
                cases,
            } => {
                let t = self
                    .w
                    .vty(*cond, Some(self.body))
                    .ok_or_else(|| self.err(format!("switch condition {cond} does not exist")))?;
                o.push(self.ty(t)?);
                self.v(&mut o, *cond)?;
                o.push(default.0.into());
                for (v, bb) in cases {
                    o.push(self.new_id(*v)?.into());
                    o.push(bb.0.into());
                }
                12
            }
            InstKind::Ret { value } => {
                if let Some(v) = value {
                    self.vt(&mut o, *v)?;
                }
                10
            }
            InstKind::Unreachable => 15,
            InstKind::Call {
                callee,
                fn_ty,
                args,
                attributes,
                calling_conv,
                tail,
                flags,
                explicit_type,
            } => {
                let cc = (u64::from(*calling_conv & 0x1fff) << 1)
                    | u64::from(tail & 1)
                    | (u64::from((tail >> 1) & 1) << 14)
                    | (u64::from(*explicit_type) << 15)
                    | (u64::from((tail >> 2) & 1) << 16)
                    | (u64::from(*flags != 0) << 17);
                o.push((*attributes).into());
                o.push(cc);
                if *flags != 0 {
                    o.push((*flags).into());
                }
                if *explicit_type {
                    o.push(self.ty(*fn_ty)?);
                }
                self.vt(&mut o, *callee)?;
                let nparams = match self.w.ty_of(*fn_ty) {
                    Some(Type::Function { params, .. }) => params.len(),
                    _ => return Err(self.err("call of a non-function type")),
                };
                for (k, a) in args.iter().enumerate() {
                    match a {
                        Operand::Value(v) if k < nparams => self.v(&mut o, *v)?,
                        Operand::Value(v) => self.vt(&mut o, *v)?,
                        Operand::Block(b) => o.push(b.0.into()),
                        Operand::Metadata(md) => {
                            let new = self
                                .w
                                .mdid(*md, Some(self.locals))
                                .ok_or_else(|| self.err(format!("metadata operand {md}")))?;
                            o.push(self.rel(new));
                        }
                    }
                }
                34
            }
            InstKind::Alloca {
                allocated,
                size,
                raw_align,
                ..
            } => {
                let explicit = raw_align & (1 << 6) != 0;
                o.push(self.ty(if explicit { *allocated } else { inst.ty })?);
                let st = self
                    .w
                    .vty(*size, Some(self.body))
                    .ok_or_else(|| self.err(format!("alloca size {size} does not exist")))?;
                o.push(self.ty(st)?);
                o.push(self.new_id(*size)?.into());
                o.push(*raw_align);
                19
            }
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            } => {
                self.vt(&mut o, *ptr)?;
                o.push(self.ty(inst.ty)?);
                o.push(self.align(*align)?);
                o.push(u64::from(*volatile));
                if let Some((ord, scope)) = atomic {
                    o.push(ord.0.into());
                    o.push((*scope).into());
                    41
                } else {
                    20
                }
            }
            InstKind::Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            } => {
                self.vt(&mut o, *ptr)?;
                self.vt(&mut o, *value)?;
                o.push(self.align(*align)?);
                o.push(u64::from(*volatile));
                if let Some((ord, scope)) = atomic {
                    o.push(ord.0.into());
                    o.push((*scope).into());
                    45
                } else {
                    44
                }
            }
            InstKind::Gep {
                inbounds,
                source_ty,
                base,
                indices,
                explicit_type,
            } => {
                if *explicit_type {
                    o.push(u64::from(*inbounds));
                    o.push(self.ty(*source_ty)?);
                }
                self.vt(&mut o, *base)?;
                for x in indices {
                    self.vt(&mut o, *x)?;
                }
                match (*explicit_type, *inbounds) {
                    (true, _) => 43,
                    (false, true) => 30,
                    (false, false) => 4,
                }
            }
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
            } => {
                self.vt(&mut o, *ptr)?;
                self.v(&mut o, *value)?;
                o.push(op.code());
                o.push(u64::from(*volatile));
                o.push(ordering.0.into());
                o.push((*scope).into());
                38
            }
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                success,
                scope,
                failure,
                weak,
            } => {
                let pair = matches!(self.w.ty_of(inst.ty), Some(Type::Struct { .. }));
                self.vt(&mut o, *ptr)?;
                if pair {
                    self.vt(&mut o, *cmp)?;
                } else {
                    self.v(&mut o, *cmp)?;
                }
                self.v(&mut o, *new)?;
                o.extend([
                    u64::from(*volatile),
                    success.0.into(),
                    (*scope).into(),
                    failure.0.into(),
                    u64::from(*weak),
                ]);
                if pair { 46 } else { 37 }
            }
            InstKind::Fence { ordering, scope } => {
                o.push(ordering.0.into());
                o.push((*scope).into());
                36
            }
        };
        Ok((code, o))
    }
}

#[cfg(test)]
pub(crate) mod tests;
