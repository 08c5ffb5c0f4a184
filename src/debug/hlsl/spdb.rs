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
//! - Ranges in registers the debugger does not name (outputs `o#`, inputs `v#` other
//!   than the compute system values, indexable temps `x#[i]`) hold nothing: their pieces
//!   read as optimised out.
//! - A variable whose type record is not read (matrices, structures, arrays) shows one
//!   unsigned 32-bit piece per 4 bytes its ranges cover, named by index.

use std::collections::{HashMap, HashSet};

use super::{Held, Hlsl, Live};
use crate::container::spdb::{RegisterRange, ScalarKind, Spdb, VarType};
use crate::debug::source::SourceView;
use crate::dxbc::{InstructionKind, Opcode, RegisterType};
use crate::dxil::debuginfo::{Binding, DebugInfo, Encoding, Frame, Leaf, SourceFile, Variable};
use crate::dxil::llvm::ValueId;

impl Hlsl {
    /// The debug info of a DXBC program from its `SPDB` part, for stepping its main
    /// program, whose instructions `runs` are those the lowering made IR for; `view`
    /// names the registers. An error when no instruction has a line.
    pub fn from_spdb(
        spdb: &Spdb,
        program: &crate::dxbc::Program,
        view: &SourceView,
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
            info.frames.insert(
                (0, i),
                vec![Frame {
                    function: function.clone(),
                    file: l.file.clone(),
                    line: l.line,
                    column: l.column,
                }],
            );
        }
        let mut held = Vec::new();
        let mut live = Vec::new();
        for (vi, v) in spdb.variables.iter().enumerate() {
            info.variables.push(Variable {
                name: v.name.clone(),
                function: function.clone(),
                line: 0,
                parameter: v.parameter,
                leaves: leaves(v.ty, &v.ranges),
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
                    held.push(register(view, r, u).map_or(Held::Nothing, Held::Reg));
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
        };
        if h.located_lines().is_empty() {
            return Err("no instruction of the main program has a line in its table".into());
        }
        Ok(h)
    }
}

/// The leaves of a variable of type `ty` (32-bit scalars).
fn leaves(ty: VarType, ranges: &[RegisterRange]) -> Vec<Leaf> {
    let enc = |k: ScalarKind| match k {
        ScalarKind::Float => Encoding::Float,
        ScalarKind::Int => Encoding::Signed,
        ScalarKind::UInt => Encoding::Unsigned,
        ScalarKind::Bool => Encoding::Bool,
    };
    let leaf = |path: String, k: u64, encoding| Leaf {
        path,
        offset: 32 * k,
        size: 32,
        encoding,
        matrix: false,
    };
    match ty {
        VarType::Scalar(k) => vec![leaf(String::new(), 0, enc(k))],
        VarType::Vector(k, n) => (0..u64::from(n.min(4)))
            .map(|c| leaf(format!(".{}", ["x", "y", "z", "w"][c as usize]), c, enc(k)))
            .collect(),
        VarType::Unknown(_) => {
            let bytes = ranges
                .iter()
                .map(|r| u64::from(r.offset_in_parent) + u64::from(r.size_in_parent))
                .max()
                .unwrap_or(0);
            // At most a 4×4 matrix's or a small array's words: the type is not read.
            (0..(bytes / 4).min(64))
                .map(|k| leaf(format!("[{k}]"), k, Encoding::Unsigned))
                .collect()
        }
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

/// The IR register holding unit `u` (the u-th 4 bytes) of a range, when the debugger
/// names its register: `r#` and the compute system values.
fn register(view: &SourceView, r: &RegisterRange, u: u32) -> Option<u32> {
    let ty = RegisterType::from_code(u8::try_from(r.register_type).ok()?)?;
    let component = (r.register_offset % 16) / 4 + u;
    let name = match ty {
        RegisterType::Temp => format!("r{}", r.register_offset / 16),
        RegisterType::InputThreadId => "vThreadID".into(),
        RegisterType::InputThreadGroupId => "vThreadGroupID".into(),
        RegisterType::InputThreadIdInGroup => "vThreadIDInGroup".into(),
        RegisterType::InputThreadIdInGroupFlattened => "vThreadIDInGroupFlattened".into(),
        _ => return None,
    };
    view.var(&name)?
        .regs
        .get(component as usize)
        .copied()
        .filter(|r| *r != u32::MAX)
}
