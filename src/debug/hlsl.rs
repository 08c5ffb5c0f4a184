//! The HLSL a DXIL program was compiled from, as the session sees it: the debug
//! location of every source step (file, line, column and the inlined frames), the
//! sources to list, and the values that hold each HLSL variable's pieces.
//!
//! Owns turning [`DebugInfo`] (read by `dxil::debuginfo`) into the session's terms: it
//! is keyed by the same source positions ([`Key`]: function and instruction index) the
//! lowering's source map (`ir::Shader::locs`) gives every IR instruction, so the IR rows
//! stay as they are and a program without debug info costs nothing. Does not own
//! reading the metadata (`dxil::debuginfo`) or stepping (`session`).
//!
//! Decisions, where DXIL.rst and LLVM leave the debugger free:
//!
//! - A *line* is a run of source steps whose innermost frame has the same file and line
//!   and whose caller frames (the `inlinedAt` chain) are the same; source steps without
//!   a location (the lowering's own, or an instruction the compiler left unlocated) belong
//!   to no line and are stepped over.
//! - A `llvm.dbg.value` binding takes effect once the lane has run past it: when it has
//!   reached an instruction of the same DXIL block after the call. Of the bindings that
//!   cover a leaf of a variable, the one that took effect last holds it; a leaf none
//!   covers yet is "optimised out" (DWARF's wording, which dxc's users see in PIX).
//! - A `llvm.dbg.declare` binding gives an `alloca`'s address: the variable is in the
//!   lane's local array the lowering made for that `alloca`, each leaf at its DWARF bit
//!   offset from the start of the array (plus the expression's `DW_OP_plus` bytes; a
//!   `DW_OP_bit_piece` says which of the variable's bits the array holds). The layouts
//!   agree: dxc's debug types give the offsets its data layout gives, which the lowering
//!   places the array by. It takes effect like a `llvm.dbg.value`, once the lane has run
//!   past it. A `llvm.dbg.value` whose expression has `DW_OP_deref` binds its value as
//!   such an address. The address may point into the `alloca` (through `bitcast`s and
//!   `getelementptr`s of constant indices, whose bytes move the variable's start); an
//!   address that does not lead to an `alloca` so holds nothing.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::source::Key;
use crate::dxil::debuginfo::{self, DebugInfo, Encoding, Frame, Leaf, LeafValue, SourceFile};
use crate::dxil::llvm::{
    CastOp, Constant, FunctionBody, InstKind, Module, Type, TypeId, ValueId, ValueKind,
};
use crate::lower::dxil::layout::DataLayout;

/// What holds a bound value, in the entry function's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// The result of this instruction of the entry function.
    Def(u32),
    /// A constant's bits.
    Const(u64),
    /// The memory of this `alloca` instruction of the entry function (the lane's local
    /// array [`Hlsl::alloca_name`] names).
    Local(u32),
    /// This IR register (a DXBC register's component an `SPDB` range names).
    Reg(u32),
    /// This input word of the lane (a `v#` component an `SPDB` range names).
    Input(u32),
    /// This output word of the lane, as its last output write left it (an `o#`
    /// component an `SPDB` range names).
    Output(u32),
    /// Word `.1` of the lane's local array `.0` (an `x#[i]` component an `SPDB` range
    /// names).
    LocalWord(u32, u32),
    /// Byte `.1` of constant buffer `cb.0` as bound for the lane (a `cb#[i]` component
    /// an `SPDB` range names).
    Constant(u32, u32),
    /// Byte `.1` of the lane's input control point `.0` (`vicp[k][r]`).
    InputPoint(u32, u32),
    /// Byte `.1` of the lane's output control point `.0` (`vocp[k][r]`).
    OutputPoint(u32, u32),
    /// Byte `.0` of the lane's patch constants (`vpc#`).
    PatchConstant(u32),
    /// Nothing the debugger can read, and why (a register past those declared).
    Unreadable(&'static str),
    /// Nothing the debugger can read (a parameter, an undefined value).
    Nothing,
}

/// When a binding holds its variable's piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Live {
    /// From the block and the first instruction of it after the `llvm.dbg` call on
    /// (`None`: never, for the entry function's steps).
    After(Option<(u32, u32)>),
    /// While the step about to run is one of these instructions (`[start, end)`
    /// instruction indices of the main program): an `SPDB` register range.
    Within(Vec<(u32, u32)>),
}

/// A program's HLSL debug info, keyed by source position.
#[derive(Debug, Clone)]
pub struct Hlsl {
    /// What the module says.
    pub info: DebugInfo,
    /// The entry function's index (the only function the session steps).
    function: u32,
    /// The DXIL block of each instruction of the entry function.
    block_of: Vec<u32>,
    /// What each binding's value is ([`DebugInfo::bindings`] order).
    held: Vec<Held>,
    /// When each binding holds.
    live: Vec<Live>,
    /// The entry function's instructions the lowering made IR for (the others, such as
    /// `llvm.dbg.value` calls, are never a step, and their lines hold no code).
    runs: HashSet<u32>,
    /// The local array's name the lowering gives each `alloca` of the entry function a
    /// `llvm.dbg.declare` binds (its value's name, else `alloca` and its index).
    allocas: HashMap<u32, String>,
    /// The variables (by index) that do not read as a whole, and why (an `SPDB` type).
    unreadable: HashMap<usize, String>,
}

/// One leaf of a variable at a position, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeafAt {
    /// The leaf (path, bits, encoding).
    pub leaf: Leaf,
    /// Where it is held.
    pub held: Held,
    /// The bit of the holding value the leaf starts at.
    pub bit: u64,
}

impl Hlsl {
    /// The debug info of `module` for stepping its function `function`, whose
    /// instructions `runs` are those the lowering made IR for; `Ok(None)` when the module
    /// carries none. Malformed debug info is an error saying what and where.
    pub fn read(
        module: &Module,
        function: u32,
        runs: HashSet<u32>,
    ) -> Result<Option<Hlsl>, String> {
        let Some(info) = DebugInfo::read(module)? else {
            return Ok(None);
        };
        let body = body_of(module, function)?;
        let n = u32::try_from(body.instructions.len()).unwrap_or(u32::MAX);
        let same: Vec<Option<u32>> = (0..n).map(Some).collect();
        Hlsl::keyed(info, module, function, module, function, &same, runs)
    }

    /// The debug info of the `ILDB` debug module dxc writes with `-Zi` beside the
    /// stripped `DXIL` part, for stepping function `function` of the `DXIL` part's
    /// module `run`. The two modules' instructions are the same but for the debug
    /// module's `llvm.dbg.*` calls, which stripping removes (dxc's `StripDebugInfo`);
    /// that is checked, instruction by instruction, and a mismatch is an error.
    pub fn read_split(
        debug: &Module,
        run: &Module,
        function: u32,
        runs: HashSet<u32>,
    ) -> Result<Option<Hlsl>, String> {
        let Some(info) = DebugInfo::read(debug)? else {
            return Ok(None);
        };
        let body = body_of(run, function)?;
        let name = run
            .functions
            .get(function as usize)
            .map_or("", |f| f.name.as_str());
        let dfi = debug
            .functions
            .iter()
            .position(|f| f.name == name && f.body.is_some())
            .ok_or_else(|| format!("the ILDB module has no function {name}"))?;
        let dbody = body_of(debug, u32::try_from(dfi).unwrap_or(u32::MAX))?;
        let mut map = Vec::with_capacity(dbody.instructions.len());
        let mut next = 0usize;
        for (k, inst) in dbody.instructions.iter().enumerate() {
            if is_dbg_call(debug, inst) {
                map.push(None);
                continue;
            }
            let kept = body.instructions.get(next).ok_or_else(|| {
                format!("the ILDB module's {name} has more instructions than the DXIL part's")
            })?;
            if std::mem::discriminant(&kept.kind) != std::mem::discriminant(&inst.kind) {
                return Err(format!(
                    "instruction {k} of the ILDB module's {name} is not instruction {next} of the DXIL part's"
                ));
            }
            map.push(u32::try_from(next).ok());
            next = next.saturating_add(1);
        }
        if next != body.instructions.len() {
            return Err(format!(
                "the ILDB module's {name} has fewer instructions than the DXIL part's"
            ));
        }
        Hlsl::keyed(
            info,
            debug,
            u32::try_from(dfi).unwrap_or(u32::MAX),
            run,
            function,
            &map,
            runs,
        )
    }

    /// The debug info of function `dfi` of module `debug`, keyed by the instructions of
    /// function `function` of module `run`: `map[k]` is the run's instruction for the
    /// debug module's `k` (`None`: a `llvm.dbg.*` call the run does not have).
    fn keyed(
        mut info: DebugInfo,
        debug: &Module,
        dfi: u32,
        run: &Module,
        function: u32,
        map: &[Option<u32>],
        runs: HashSet<u32>,
    ) -> Result<Option<Hlsl>, String> {
        let body = body_of(run, function)?;
        let dbody = body_of(debug, dfi)?;
        let mut block_of = vec![0u32; body.instructions.len()];
        for (b, bl) in body.blocks.iter().enumerate() {
            for k in bl.start..bl.end {
                if let Some(x) = block_of.get_mut(k as usize) {
                    *x = u32::try_from(b).unwrap_or(u32::MAX);
                }
            }
        }
        // The run's first instruction after debug instruction `k` (in the same block, as
        // a block ends with its terminator, which is never a llvm.dbg call).
        let after =
            |k: u32| -> Option<u32> { map.iter().skip(k as usize).skip(1).find_map(|x| *x) };
        let frames = std::mem::take(&mut info.frames);
        info.frames = frames
            .into_iter()
            .filter(|((f, _), _)| *f == dfi as usize)
            .filter_map(|((_, k), fr)| {
                let i = (*map.get(k as usize)?)?;
                Some(((function as usize, i), fr))
            })
            .collect();
        let mut held = Vec::with_capacity(info.bindings.len());
        let mut live = Vec::with_capacity(info.bindings.len());
        let mut allocas = HashMap::new();
        let dl = DataLayout::parse(run.datalayout.as_deref());
        for b in &mut info.bindings {
            if b.function != dfi as usize {
                held.push(Held::Nothing);
                live.push(Live::After(None));
                continue;
            }
            let h = match held_by(debug, dbody, b.value) {
                Held::Def(k) => map
                    .get(k as usize)
                    .copied()
                    .flatten()
                    .map_or(Held::Nothing, Held::Def),
                h => h,
            };
            // A declare (or a `DW_OP_deref`'d value) binds an address: the memory of the
            // alloca it points into holds the variable, from the address's byte on.
            let h = match (b.declare, h) {
                (true, Held::Def(i)) => match pointee(run, body, &dl, i)
                    .and_then(|(a, off)| Some((a, off, alloca_name(run, body, a)?)))
                {
                    Some((a, off, name)) => {
                        allocas.insert(a, name);
                        b.offset = b.offset.saturating_add(off);
                        Held::Local(a)
                    }
                    None => Held::Nothing,
                },
                (true, _) => Held::Nothing,
                (false, h) => h,
            };
            held.push(h);
            let anchor = after(b.inst).and_then(|i| Some((*block_of.get(i as usize)?, i)));
            live.push(Live::After(anchor));
            b.function = function as usize;
        }
        let h = Hlsl {
            info,
            function,
            block_of,
            held,
            live,
            runs,
            allocas,
            unreadable: HashMap::new(),
        };
        if h.located_lines().is_empty() {
            return Err(format!(
                "no instruction of the entry function ({}) has a debug location",
                run.functions
                    .get(function as usize)
                    .map_or("?", |f| f.name.as_str())
            ));
        }
        Ok(Some(h))
    }

    /// Takes the sources from a container's `SRCI` part (newer dxc keeps the HLSL there
    /// rather than in the debug module's `dx.source.contents`) when the module carries
    /// none; the first file is the main file unless `dx.source.mainFileName` says.
    pub fn use_source_info(&mut self, srci: &crate::container::srci::SourceInfo) {
        if !self.info.sources.is_empty() {
            return;
        }
        self.info.sources = srci
            .files
            .iter()
            .map(|f| SourceFile {
                name: f.name.clone(),
                text: f.text.clone(),
            })
            .collect();
        if self.info.main_file.is_none() {
            self.info.main_file = srci.files.first().map(|f| f.name.clone());
        }
        if self.info.args.is_empty() {
            self.info.args = srci
                .args
                .iter()
                .map(|(o, v)| match (o.is_empty(), v.is_empty()) {
                    (true, _) => v.clone(),
                    (false, true) => format!("-{o}"),
                    (false, false) => format!("-{o} {v}"),
                })
                .collect();
        }
    }

    /// The name of the local array the lowering made for `alloca` instruction `inst` of
    /// the entry function, when a `llvm.dbg.declare` binds it.
    pub fn alloca_name(&self, inst: u32) -> Option<&str> {
        self.allocas.get(&inst).map(String::as_str)
    }

    /// Why variable `v` does not read as a whole (its type record does not read).
    pub fn unreadable(&self, v: usize) -> Option<&str> {
        self.unreadable.get(&v).map(String::as_str)
    }

    /// The frames of a source position, innermost first (`None`: no location).
    pub fn frames(&self, key: Option<Key>) -> Option<&[Frame]> {
        let (f, i) = key?;
        if f != self.function {
            return None;
        }
        self.info
            .frames
            .get(&(f as usize, i))
            .map(Vec::as_slice)
            .filter(|x| !x.is_empty())
    }

    /// The file breakpoints without a file name mean: `dx.source.mainFileName`, else the
    /// first source, else the entry's own file.
    pub fn main_file(&self) -> String {
        if let Some(m) = &self.info.main_file {
            return m.clone();
        }
        if let Some(s) = self.info.sources.first() {
            return s.name.clone();
        }
        self.info
            .frames
            .values()
            .filter_map(|f| f.last())
            .map(|f| f.file.clone())
            .next()
            .unwrap_or_default()
    }

    /// The source text of a file (matched by [`debuginfo::same_file`]) and its index.
    pub fn source(&self, file: &str) -> Option<(usize, &SourceFile)> {
        self.info
            .sources
            .iter()
            .enumerate()
            .find(|(_, s)| debuginfo::same_file(&s.name, file))
    }

    /// Every `(file, line)` an instruction of the entry function is located on (its
    /// innermost frame).
    pub fn located_lines(&self) -> BTreeSet<(String, u32)> {
        self.info
            .frames
            .iter()
            .filter(|((f, i), _)| *f == self.function as usize && self.runs.contains(i))
            .filter_map(|(_, fr)| fr.first())
            .map(|f| (f.file.clone(), f.line))
            .collect()
    }

    /// The first line at or after `line` of `file` that holds an instruction, with the
    /// file's name as the program spells it.
    pub fn line_with_code(&self, file: &str, line: u32) -> Option<(String, u32)> {
        self.located_lines()
            .into_iter()
            .filter(|(f, l)| debuginfo::same_file(f, file) && *l >= line)
            .min_by_key(|(_, l)| *l)
    }

    /// The variables of a name, those of `functions` (innermost frame first) before the
    /// others.
    pub fn variables_named(&self, name: &str, functions: &[&str]) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.info.variables.len())
            .filter(|&k| self.info.variables[k].name == name)
            .collect();
        v.sort_by_key(|&k| {
            let f = self.info.variables[k].function.as_str();
            functions
                .iter()
                .position(|x| *x == f)
                .unwrap_or(functions.len())
        });
        v
    }

    /// The variables of function `function`, in declaration order (line, then name).
    pub fn variables_of(&self, function: &str) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.info.variables.len())
            .filter(|&k| self.info.variables[k].function == function)
            .collect();
        v.sort_by(|&a, &b| {
            let (x, y) = (&self.info.variables[a], &self.info.variables[b]);
            (!x.parameter, x.line, &x.name).cmp(&(!y.parameter, y.line, &y.name))
        });
        v
    }

    /// Where each leaf of `variable` is held once the lane has run the source steps
    /// `ran` (positions in order, with their source positions; the last one is the
    /// step about to run, which a binding before it in its block has passed).
    pub fn assemble(&self, variable: usize, ran: &[Option<Key>]) -> Vec<LeafAt> {
        // The latest position at which each binding of the variable had taken effect.
        let mut done: HashMap<usize, u64> = HashMap::new();
        let wanted: Vec<usize> = (0..self.info.bindings.len())
            .filter(|&b| self.info.bindings[b].variable == variable)
            .collect();
        // A register range holds while the step about to run is in it.
        let now = ran
            .iter()
            .enumerate()
            .rev()
            .find_map(|(q, k)| Some((q, (*k)?)));
        for &b in &wanted {
            if let (Some(Live::Within(spans)), Some((q, (f, i)))) = (self.live.get(b), now)
                && f == self.function
                && spans.iter().any(|&(a, e)| a <= i && i < e)
            {
                done.insert(b, q as u64);
            }
        }
        for (q, key) in ran.iter().enumerate().rev() {
            if done.len() == wanted.len() {
                break;
            }
            let Some((f, i)) = *key else { continue };
            if f != self.function {
                continue;
            }
            let Some(&block) = self.block_of.get(i as usize) else {
                continue;
            };
            for &b in &wanted {
                if done.contains_key(&b) {
                    continue;
                }
                if let Some(Live::After(Some((ab, ai)))) = self.live.get(b)
                    && *ab == block
                    && i >= *ai
                {
                    done.insert(b, q as u64);
                }
            }
        }
        self.info
            .assemble(variable, |bd| {
                let b = self.binding_index(bd)?;
                done.get(&b).copied()
            })
            .into_iter()
            .map(|(leaf, v)| match v {
                LeafValue::Value(value, bit) | LeafValue::Memory(value, bit) => {
                    let declare = matches!(v, LeafValue::Memory(..));
                    let held = self
                        .info
                        .bindings
                        .iter()
                        .position(|bd| {
                            bd.value == value && bd.variable == variable && bd.declare == declare
                        })
                        .and_then(|b| self.held.get(b).copied())
                        .unwrap_or(Held::Nothing);
                    LeafAt { leaf, held, bit }
                }
                LeafValue::OptimisedOut => LeafAt {
                    leaf,
                    held: Held::Nothing,
                    bit: 0,
                },
            })
            .collect()
    }

    fn binding_index(&self, bd: &debuginfo::Binding) -> Option<usize> {
        self.info.bindings.iter().position(|x| std::ptr::eq(x, bd))
    }
}

fn body_of(m: &Module, function: u32) -> Result<&FunctionBody, String> {
    m.functions
        .get(function as usize)
        .and_then(|f| f.body.as_ref())
        .ok_or_else(|| format!("function {function} has no body"))
}

/// Whether an instruction is a call of `llvm.dbg.value` or `llvm.dbg.declare`.
fn is_dbg_call(m: &Module, inst: &crate::dxil::llvm::Instruction) -> bool {
    let InstKind::Call { callee, .. } = &inst.kind else {
        return false;
    };
    m.functions
        .iter()
        .any(|f| f.value == *callee && f.name.starts_with("llvm.dbg."))
}

/// The name the lowering gives the local array of instruction `i` of `body` when it is
/// an `alloca` (its value's name, else `alloca` and the instruction's index).
fn alloca_name(m: &Module, body: &FunctionBody, i: u32) -> Option<String> {
    let inst = body.instructions.get(i as usize)?;
    if !matches!(inst.kind, InstKind::Alloca { .. }) {
        return None;
    }
    let named = inst
        .result
        .and_then(|v| m.value(Some(body), v))
        .and_then(|v| v.name.clone());
    Some(named.unwrap_or_else(|| format!("alloca{i}")))
}

/// The `alloca` instruction an address (the result of instruction `i`) points into and
/// the byte offset it points at: through `bitcast`s and `getelementptr`s of constant
/// indices (each index steps over its type's allocation size by the module's data
/// layout, a struct index to its field's offset — LLVM's `getelementptr` rules, the
/// layout the lowering places the local array by). `None` for anything else (a
/// variable index: the address moves at run time).
fn pointee(m: &Module, body: &FunctionBody, dl: &DataLayout, mut i: u32) -> Option<(u32, u64)> {
    let mut off = 0u64;
    // A chain longer than this is not what a compiler writes; it ends unread.
    for _ in 0..64 {
        let inst = body.instructions.get(i as usize)?;
        let next = match &inst.kind {
            InstKind::Alloca { .. } => return Some((i, off)),
            InstKind::Cast {
                op: CastOp::BitCast,
                value,
            } => *value,
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                off = off.checked_add(gep_offset(m, body, dl, *source_ty, indices)?)?;
                *base
            }
            _ => return None,
        };
        match m.value(Some(body), next)?.kind {
            ValueKind::Instruction(k) => i = k,
            _ => return None,
        }
    }
    None
}

/// The byte offset a `getelementptr` of constant `indices` over `source_ty` adds.
fn gep_offset(
    m: &Module,
    body: &FunctionBody,
    dl: &DataLayout,
    source_ty: TypeId,
    indices: &[ValueId],
) -> Option<u64> {
    let konst = |v: ValueId| match m.value(Some(body), v)?.kind {
        ValueKind::Constant(Constant::Int(x)) => u64::try_from(x).ok(),
        ValueKind::Constant(Constant::Null) => Some(0),
        _ => None,
    };
    let mut off = 0u64;
    let mut cur = source_ty;
    for (n, idx) in indices.iter().enumerate() {
        let k = konst(*idx)?;
        if n > 0 {
            match m.ty(cur)? {
                Type::Struct { elements, .. } => {
                    off = off.checked_add(dl.field_offset(m, cur, k).ok()?)?;
                    cur = *elements.get(usize::try_from(k).ok()?)?;
                    continue;
                }
                Type::Array { element, .. } | Type::Vector { element, .. } => cur = *element,
                _ => return None,
            }
        }
        let (step, _) = dl.size_align(m, cur).ok()?;
        off = off.checked_add(k.checked_mul(step)?)?;
    }
    Some(off)
}

/// What holds value `v` of the entry function's body.
fn held_by(m: &Module, body: &FunctionBody, v: ValueId) -> Held {
    let Some(val) = m.value(Some(body), v) else {
        return Held::Nothing;
    };
    match &val.kind {
        ValueKind::Instruction(i) => Held::Def(*i),
        ValueKind::Constant(c) => match c {
            Constant::Int(x) => Held::Const(*x as u64),
            // A float's, half's or double's bits, at their own width.
            Constant::Float(b) => Held::Const(*b),
            Constant::Null => Held::Const(0),
            _ => Held::Nothing,
        },
        _ => Held::Nothing,
    }
}

/// How a leaf's bits print: its encoding and size as the session's type.
pub fn leaf_ty(leaf: &Leaf) -> super::format::Ty {
    use super::format::Ty;
    match (leaf.encoding, leaf.size) {
        (Encoding::Float, 16) => Ty::Half,
        (Encoding::Float, 64) => Ty::Double,
        (Encoding::Float, _) => Ty::Float,
        (Encoding::Signed, 64) | (Encoding::Unsigned, 64) => Ty::I64,
        (Encoding::Signed, _) => Ty::Int,
        (Encoding::Unsigned, _) => Ty::UInt,
        (Encoding::Bool, _) => Ty::Bool,
    }
}

/// Two positions are on the same line (see the module doc).
pub fn same_line(a: &[Frame], b: &[Frame]) -> bool {
    match (a.split_first(), b.split_first()) {
        (Some((x, xs)), Some((y, ys))) => x.line == y.line && x.file == y.file && xs == ys,
        _ => false,
    }
}

/// `b` is in the same frame as `a` (same callers), or in one of its callers.
pub fn same_frame(a: &[Frame], b: &[Frame]) -> bool {
    a.len() == b.len() && a.get(1..) == b.get(1..)
}

mod spdb;

#[cfg(test)]
pub(crate) mod tests;
