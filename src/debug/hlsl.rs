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
//! - `llvm.dbg.declare` bindings give an address (a local array), not a value: their
//!   leaves print as optimised out rather than guessing the memory layout.

use std::collections::{BTreeSet, HashMap};

use super::source::Key;
use crate::dxil::debuginfo::{self, DebugInfo, Encoding, Frame, Leaf, LeafValue, SourceFile};
use crate::dxil::llvm::{Constant, Module, ValueId, ValueKind};

/// What holds a bound value, in the entry function's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// The result of this instruction of the entry function.
    Def(u32),
    /// A constant's bits.
    Const(u64),
    /// Nothing the debugger can read (a parameter, an undefined value).
    Nothing,
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
    /// The debug info of `module` for stepping its function `function`; `Ok(None)` when
    /// the module carries none. Malformed debug info is an error saying what and where.
    pub fn read(module: &Module, function: u32) -> Result<Option<Hlsl>, String> {
        let Some(info) = DebugInfo::read(module)? else {
            return Ok(None);
        };
        let body = module
            .functions
            .get(function as usize)
            .and_then(|f| f.body.as_ref())
            .ok_or_else(|| format!("function {function} has no body"))?;
        let mut block_of = vec![0u32; body.instructions.len()];
        for (b, bl) in body.blocks.iter().enumerate() {
            for k in bl.start..bl.end {
                if let Some(x) = block_of.get_mut(k as usize) {
                    *x = u32::try_from(b).unwrap_or(u32::MAX);
                }
            }
        }
        let held = info
            .bindings
            .iter()
            .map(|b| {
                if b.function != function as usize || b.declare {
                    return Held::Nothing;
                }
                held_by(module, body, b.value)
            })
            .collect();
        let h = Hlsl {
            info,
            function,
            block_of,
            held,
        };
        if h.located_lines().is_empty() {
            return Err(format!(
                "no instruction of the entry function ({}) has a debug location",
                module
                    .functions
                    .get(function as usize)
                    .map_or("?", |f| f.name.as_str())
            ));
        }
        Ok(Some(h))
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
            .filter(|((f, _), _)| *f == self.function as usize)
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
        for (q, key) in ran.iter().enumerate().rev() {
            if done.len() == wanted.len() {
                break;
            }
            let Some((f, i)) = *key else { continue };
            if f != self.function {
                continue;
            }
            let block = self.block_of.get(i as usize);
            for &b in &wanted {
                let bd = &self.info.bindings[b];
                if done.contains_key(&b) {
                    continue;
                }
                if i > bd.inst && block.is_some() && block == self.block_of.get(bd.inst as usize)
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
                LeafValue::Value(value, bit) => {
                    let held = self
                        .info
                        .bindings
                        .iter()
                        .position(|bd| bd.value == value && bd.variable == variable)
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
        self.info
            .bindings
            .iter()
            .position(|x| std::ptr::eq(x, bd))
    }
}

/// What holds value `v` of the entry function's body.
fn held_by(m: &Module, body: &crate::dxil::llvm::FunctionBody, v: ValueId) -> Held {
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

#[cfg(test)]
pub(crate) mod tests;
