//! The HLSL of a DXBC program whose container carries fxc's `SPDB` part (read by
//! `container::spdb`), in the session's terms: the line of each instruction of the main
//! program, the embedded sources, and each variable's pieces in the registers the
//! debugger shows (`r3.y`, `vThreadID.x`).
//!
//! Decisions, where the PDB leaves the debugger free:
//!
//! - An instruction is on the line of the last line-table entry at or before its byte
//!   offset (entries hold up to the next one, or for their stated length). A
//!   declaration before the first entry that the lowering made steps for (the compute
//!   system values of `dcl_input`) is on the first entry's line, the function's entry;
//!   other instructions before it, and those of subroutine bodies (class linkage, which
//!   fxc inlines otherwise), have no line.
//! - A register range holds a piece of its variable while the step about to run is an
//!   instruction inside the range and outside its gaps; where no range holds a piece it
//!   is "optimised out". Of two ranges holding the same piece, the one starting later
//!   wins (an inner function's variable of the same name).
//! - A range's register type is `CV_HLSLREG_e` (Microsoft's DIA SDK reference and
//!   `cvinfo.h`), whose numbers are the DXBC operand types (`D3D10_SB_OPERAND_TYPE`).
//!   Each piece reads where the debugger already shows that register: `r#` and the
//!   compute system values from their IR registers; `v#` (and the system-value inputs
//!   `vPrim`, `vCoverage`, `vInnerCoverage`, `vGSInstanceID`, `vDomain`) from the lane's
//!   input word; `o#` (and `oDepth`, `oMask`, `oStencilRef`) from the lane's output
//!   word as its last output write before the step left it, "not written yet" before
//!   any; `x#[i]` from the indexable temp's element. A record of one register dimension
//!   gives the register's byte offset (index × 16 + component × 4); of two (`x#`), the
//!   array's number first and the byte offset in the array second (`cvinfo.h` does not
//!   say; the layout the one-dimension records use, one level down).
//! - A register past those the program declares, and registers that hold no variable's
//!   bytes the session reads (constant buffers, control points, resources), read as
//!   unreadable with the reason.
//! - A variable's type is read to its scalars: vectors, matrices (row by row, each
//!   element at its row- or column-major offset), structures (members at their offsets)
//!   and arrays (elements at the element type's size); a type that does not read shows
//!   the variable as unreadable with the type reader's reason.

use std::collections::{HashMap, HashSet};

use super::{Held, Hlsl, Live};
use crate::container::spdb::{RegisterRange, ScalarKind, Spdb, VarType};
use crate::debug::source::SourceView;
use crate::dxbc::{InstructionKind, Opcode, RegisterType};
use crate::dxil::debuginfo::{Binding, DebugInfo, Encoding, Frame, Leaf, SourceFile, Variable};
use crate::dxil::llvm::ValueId;
use crate::ir::{IoElement, Shader, SysValue};

impl Hlsl {
    /// The debug info of a DXBC program from its `SPDB` part, for stepping its main
    /// program, whose instructions `runs` are those the lowering made IR for; `view`
    /// names the registers. An error when no instruction has a line.
    pub fn from_spdb(
        spdb: &Spdb,
        program: &crate::dxbc::Program,
        view: &SourceView,
        shader: &Shader,
        runs: HashSet<u32>,
    ) -> Result<Hlsl, String> {
        let function = spdb.function.clone().unwrap_or_else(|| "main".into());
        // The main program: the instructions before the first subroutine's `label`.
        let main: Vec<(u32, u32)> = program
            .instructions
            .iter()
            .take_while(|inst| {
                !matches!(&inst.kind, InstructionKind::Executable(e) if e.opcode == Opcode::Label)
            })
            .enumerate()
            .map(|(i, inst)| (i as u32, inst.offset.saturating_mul(4)))
            .collect();
        let mut info = DebugInfo {
            main_file: spdb.lines.first().map(|l| l.file.clone()),
            sources: spdb
                .files
                .iter()
                .map(|f| SourceFile {
                    name: f.name.clone(),
                    text: f.text.clone(),
                })
                .collect(),
            ..DebugInfo::default()
        };
        for &(i, off) in &main {
            let k = spdb.lines.partition_point(|l| l.offset <= off);
            let l = match k.checked_sub(1) {
                Some(k) => spdb.lines.get(k),
                // A declaration the lowering made steps for (a system value's): the
                // function's entry, the first line.
                None if runs.contains(&i) => spdb.lines.first(),
                None => None,
            };
            let Some(l) = l else { continue };
            if l.length.is_some_and(|n| off >= l.offset.saturating_add(n)) || l.file.is_empty() {
                continue;
            }
            let mut frames = inlined_frames(spdb, off);
            frames.push(Frame {
                function: function.clone(),
                file: l.file.clone(),
                line: l.line,
                column: l.column,
            });
            info.frames.insert((0, i), frames);
        }
        let mut held = Vec::new();
        let mut live = Vec::new();
        let mut unreadable = HashMap::new();
        for (vi, v) in spdb.variables.iter().enumerate() {
            if let VarType::Unreadable(index, why) = &v.ty {
                unreadable.insert(vi, format!("its type 0x{index:x} does not read: {why}"));
            }
            // A variable declared inside an inline site is the inlined function's.
            let owner = v
                .site
                .and_then(|k| spdb.inline_sites.get(k))
                .map_or(&function, |s| &s.function);
            info.variables.push(Variable {
                name: v.name.clone(),
                function: owner.clone(),
                line: 0,
                parameter: v.parameter,
                leaves: leaves(&v.ty),
            });
            for r in &v.ranges {
                let spans = spans(&main, r);
                let start = spans.first().map_or(u32::MAX, |s| s.0);
                for u in 0..u32::from(r.size_in_parent / 4) {
                    let b = u32::try_from(info.bindings.len()).unwrap_or(u32::MAX);
                    let bit = (u64::from(r.offset_in_parent) + 4 * u64::from(u)) * 8;
                    info.bindings.push(Binding {
                        function: 0,
                        inst: start,
                        variable: vi,
                        value: ValueId(b),
                        piece: Some((bit, 32)),
                        declare: false,
                        offset: 0,
                    });
                    held.push(register(view, shader, r, u));
                    live.push(Live::Within(spans.clone()));
                }
            }
        }
        let h = Hlsl {
            info,
            function: 0,
            block_of: Vec::new(),
            held,
            live,
            runs,
            allocas: HashMap::new(),
            unreadable,
        };
        if h.located_lines().is_empty() {
            return Err("no instruction of the main program has a line in its table".into());
        }
        Ok(h)
    }
}

/// The inlined frames at program byte `off`, innermost first: the deepest inline site
/// one of whose lines covers `off`, then each site it is nested in, on its line at
/// `off` (the call's; its last line before `off` when none covers it). Empty outside
/// every inline site.
fn inlined_frames(spdb: &Spdb, off: u32) -> Vec<Frame> {
    let covering = |k: usize| {
        spdb.inline_sites.get(k)?.lines.iter().rev().find(|l| {
            l.offset <= off
                && match l.length {
                    Some(n) => off < l.offset.saturating_add(n),
                    None => off == l.offset,
                }
        })
    };
    let depth = |mut k: usize| {
        let mut d = 0;
        while let Some(p) = spdb.inline_sites.get(k).and_then(|s| s.parent) {
            // Parents come before their children in record order, so this ends; the
            // bound keeps a malformed chain from running on.
            if p >= k || d >= crate::container::spdb::MAX_INLINE_DEPTH {
                break;
            }
            k = p;
            d += 1;
        }
        d
    };
    let Some(inner) = (0..spdb.inline_sites.len())
        .filter(|&k| covering(k).is_some() && !spdb.inline_sites[k].function.is_empty())
        .max_by_key(|&k| (depth(k), k))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut k = Some(inner);
    while let Some(s) = k.and_then(|k| spdb.inline_sites.get(k).map(|s| (k, s))) {
        let line = covering(s.0).or_else(|| s.1.lines.iter().rev().find(|l| l.offset <= off));
        if let Some(l) = line {
            out.push(Frame {
                function: s.1.function.clone(),
                file: l.file.clone(),
                line: l.line,
                column: l.column,
            });
        }
        k = s.1.parent.filter(|p| *p < s.0);
        if out.len() > crate::container::spdb::MAX_INLINE_DEPTH {
            break;
        }
    }
    out
}

/// The leaves of a variable of type `ty` (32-bit scalars; none for a type that does
/// not read).
fn leaves(ty: &VarType) -> Vec<Leaf> {
    let mut out = Vec::new();
    flatten(ty, String::new(), 0, &mut out);
    out
}

/// Appends the leaves of `ty` at byte `at` of the variable, under `path`. The type
/// reader bounds the scalars a type holds, so this never outgrows it.
fn flatten(ty: &VarType, path: String, at: u64, out: &mut Vec<Leaf>) {
    let enc = |k: ScalarKind| match k {
        ScalarKind::Float => Encoding::Float,
        ScalarKind::Int => Encoding::Signed,
        ScalarKind::UInt => Encoding::Unsigned,
        ScalarKind::Bool => Encoding::Bool,
    };
    let leaf = |path: String, byte: u64, encoding, matrix| Leaf {
        path,
        offset: 8 * byte,
        size: 32,
        encoding,
        matrix,
    };
    match ty {
        VarType::Scalar(k) => out.push(leaf(path, at, enc(*k), false)),
        VarType::Vector(k, n) => {
            for c in 0..u64::from((*n).min(4)) {
                let name = ["x", "y", "z", "w"].get(c as usize).copied().unwrap_or("?");
                out.push(leaf(format!("{path}.{name}"), at + 4 * c, enc(*k), false));
            }
        }
        VarType::Matrix {
            kind,
            rows,
            cols,
            row_major,
        } => {
            let (rows, cols) = (u64::from(*rows), u64::from(*cols));
            for r in 0..rows {
                for c in 0..cols {
                    let k = if *row_major {
                        r * cols + c
                    } else {
                        c * rows + r
                    };
                    out.push(leaf(
                        format!("{path}[{r}][{c}]"),
                        at + 4 * k,
                        enc(*kind),
                        true,
                    ));
                }
            }
        }
        VarType::Struct(fields) => {
            for f in fields {
                flatten(
                    &f.ty,
                    format!("{path}.{}", f.name),
                    at + u64::from(f.offset),
                    out,
                );
            }
        }
        VarType::Array {
            element,
            count,
            stride,
        } => {
            for i in 0..u64::from(*count) {
                flatten(
                    element,
                    format!("{path}[{i}]"),
                    at + i * u64::from(*stride),
                    out,
                );
            }
        }
        VarType::Unreadable(..) => {}
    }
}

/// The main program's instruction index spans `[a, b)` whose byte offsets lie in the
/// range and outside its gaps.
fn spans(main: &[(u32, u32)], r: &RegisterRange) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &(i, off) in main {
        let inside =
            off >= r.start && off < r.end && !r.gaps.iter().any(|&(a, b)| off >= a && off < b);
        if !inside {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == i => last.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// Where unit `u` (the u-th 4 bytes) of a range is held (see the module doc).
fn register(view: &SourceView, shader: &Shader, r: &RegisterRange, u: u32) -> Held {
    use RegisterType as T;
    let Some(ty) = u8::try_from(r.register_type)
        .ok()
        .and_then(RegisterType::from_code)
    else {
        return Held::Unreadable("unreadable: its range names no DXBC register type");
    };
    let offset = r.register_offset.saturating_add(u.saturating_mul(4));
    let (index, component) = (offset / 16, (offset % 16) / 4);
    let reg = |name: &str, component: u32| {
        view.var(name)
            .and_then(|v| v.regs.get(component as usize).copied())
            .filter(|r| *r != u32::MAX)
    };
    // An element's word: by its register (`v#`, `o#`) or, for those without one, its
    // system value.
    let io = |elems: &[IoElement], register: Option<u32>, sv: &[SysValue], c: u32| {
        elems.iter().find_map(|e| {
            let row = match register {
                Some(n) => {
                    if e.register == crate::ir::io::NO_REGISTER || n < e.register {
                        return None;
                    }
                    Some(n - e.register).filter(|row| *row < e.rows)?
                }
                None if sv.contains(&e.sv) => 0,
                None => return None,
            };
            (e.mask >> c & 1 == 1).then(|| e.word(row, c))
        })
    };
    let system = |sv: &[SysValue], input: bool| {
        let elems = if input {
            &shader.inputs
        } else {
            &shader.outputs
        };
        // A system value's components from its first (`vDomain`'s u, v, w).
        match io(elems, None, sv, component) {
            Some(w) if input => Held::Input(w),
            Some(w) => Held::Output(w),
            None => Held::Unreadable("unreadable: the program does not declare that system value"),
        }
    };
    match ty {
        T::Temp => reg(&format!("r{index}"), component).map_or(
            Held::Unreadable("unreadable: its range names a temp register past the program's dcl_temps"),
            Held::Reg,
        ),
        T::InputThreadId | T::InputThreadGroupId | T::InputThreadIdInGroup => {
            let name = match ty {
                T::InputThreadId => "vThreadID",
                T::InputThreadGroupId => "vThreadGroupID",
                _ => "vThreadIDInGroup",
            };
            reg(name, offset / 4).map_or(
                Held::Unreadable("unreadable: the program does not declare that system value"),
                Held::Reg,
            )
        }
        T::InputThreadIdInGroupFlattened => reg("vThreadIDInGroupFlattened", 0).map_or(
            Held::Unreadable("unreadable: the program does not declare that system value"),
            Held::Reg,
        ),
        T::Input => io(&shader.inputs, Some(index), &[], component).map_or(
            Held::Unreadable("unreadable: its range names an input register or component the program does not declare"),
            Held::Input,
        ),
        T::Output => io(&shader.outputs, Some(index), &[], component).map_or(
            Held::Unreadable("unreadable: its range names an output register or component the program does not declare"),
            Held::Output,
        ),
        T::IndexableTemp => {
            let name = format!("x{}", r.register_offset);
            let word = r.second.unwrap_or(0).saturating_add(u.saturating_mul(4)) / 4;
            match shader.locals.iter().position(|l| l.name == name) {
                Some(a) if word < shader.locals[a].bytes / 4 => {
                    Held::LocalWord(u32::try_from(a).unwrap_or(u32::MAX), word)
                }
                Some(_) => Held::Unreadable(
                    "unreadable: its range names an element past the end of its indexable temp",
                ),
                None => Held::Unreadable(
                    "unreadable: its range names an indexable temp the program does not declare",
                ),
            }
        }
        T::InputPrimitiveId => system(&[SysValue::PrimitiveId], true),
        T::InputCoverageMask => system(&[SysValue::Coverage], true),
        T::InnerCoverage => system(&[SysValue::InnerCoverage], true),
        T::InputGsInstanceId => system(&[SysValue::GsInstanceId], true),
        T::InputDomainPoint => system(&[SysValue::DomainLocation], true),
        T::OutputDepth | T::OutputDepthGreaterEqual | T::OutputDepthLessEqual => system(
            &[
                SysValue::Depth,
                SysValue::DepthGreaterEqual,
                SysValue::DepthLessEqual,
            ],
            false,
        ),
        T::OutputCoverageMask => system(&[SysValue::Coverage], false),
        T::OutputStencilRef => system(&[SysValue::StencilRef], false),
        // Two dimensions: the buffer's (or control point's) number, then the byte in it.
        T::ConstantBuffer => match r.second {
            Some(b) => Held::Constant(r.register_offset, b.saturating_add(u.saturating_mul(4))),
            None => Held::Unreadable(
                "unreadable: its constant-buffer range has one register dimension, not the buffer's number and the byte in it",
            ),
        },
        T::InputControlPoint | T::OutputControlPoint => match r.second {
            Some(b) => {
                let b = b.saturating_add(u.saturating_mul(4));
                if ty == T::InputControlPoint {
                    Held::InputPoint(r.register_offset, b)
                } else {
                    Held::OutputPoint(r.register_offset, b)
                }
            }
            None => Held::Unreadable(
                "unreadable: its control-point range has one register dimension, not the control point and the byte in it",
            ),
        },
        T::InputPatchConstant => Held::PatchConstant(offset),
        T::ImmediateConstantBuffer => Held::Unreadable(
            "unreadable: its range names the immediate constant buffer, which holds no variable",
        ),
        _ => Held::Unreadable("unreadable: its range names a register type that holds no variable's bytes"),
    }
}
