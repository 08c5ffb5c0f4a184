//! The program in its own terms: the listing, the line of each source instruction, and
//! the registers and values the program names (DXBC `r3.x`, `vThreadID.y`; DXIL `%42`,
//! `%name`), each mapped to the IR registers that hold it by the lowering's source map
//! (`ir::SourceVar`).
//!
//! Three kinds of program: DXBC (the fxc-style listing of `dxlane disasm`: line `i + 2`
//! is instruction `i`, declarations included), DXIL (the dxc-style listing of the
//! module's `DXIL` part; lines as `dxlane disasm` numbers them when the container has no
//! `ILDB` debug module), and the IR's own text form (a job whose program is a `.ir`
//! file: every IR instruction is a step and IR registers are the names).

use std::collections::HashMap;

use super::format::Ty;
use crate::dxbc::{InstructionKind, Opcode};
use crate::exec::At;
use crate::ir::{Shader, SourceLoc, VarKey};

/// What the program was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Shader Model 4–5 tokens.
    Dxbc,
    /// Shader Model 6 LLVM bitcode.
    Dxil,
    /// The IR's text form.
    Ir,
}

/// Where a step is in the source: `(function, index)` — DXBC: the subroutine (0 for the
/// main program, `k` for the k-th `label` body) and the instruction index; DXIL: the
/// function and its instruction index; IR: 0 and the IR position (`2 × instruction`,
/// terminators between a block's last instruction and the next block).
pub type Key = (u32, u32);

/// A stop the program itself asks for, at one of its instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramBreak {
    /// DXIL `DebugBreak()` (SM 6.10) or DXBC `debug_break`: a breakpoint.
    DebugBreak,
    /// DXBC `abort`: the invocation ends there.
    Abort,
}

impl ProgramBreak {
    /// How the program spells it.
    pub fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (ProgramBreak::DebugBreak, Lang::Dxil) => "DebugBreak()",
            (ProgramBreak::DebugBreak, _) => "debug_break",
            (ProgramBreak::Abort, _) => "abort",
        }
    }
}

/// A program value and its registers.
#[derive(Debug, Clone)]
pub struct Var {
    /// As the program spells it (`r3`, `vThreadID`, `%42`).
    pub name: String,
    /// One IR register per component or leaf ([`u32::MAX`] where none).
    pub regs: Vec<u32>,
    /// The type of each component, when the program states one (DXIL); DXBC registers
    /// are typed by the instruction that last wrote them.
    pub ty: Vec<Ty>,
    /// Components are `x y z w` (DXBC) rather than `[0] [1] …` (DXIL aggregates).
    pub xyzw: bool,
    /// DXIL: the instruction that defines the value.
    pub def: Option<u32>,
    /// DXIL: the value's id.
    pub value: Option<u32>,
}

impl Var {
    /// The name of component `c` (`r3.y`, `%4`, `%4[1]`).
    pub fn component_name(&self, c: usize) -> String {
        if self.xyzw {
            format!(
                "{}.{}",
                self.name,
                b"xyzw".get(c).map_or('?', |&b| b as char)
            )
        } else if self.regs.len() == 1 {
            self.name.clone()
        } else {
            format!("{}[{c}]", self.name)
        }
    }
}

/// The listing and the names of a program.
#[derive(Debug, Clone)]
pub struct SourceView {
    /// The language.
    pub lang: Lang,
    /// The listing, one entry per line (line `n` is `lines[n - 1]`).
    pub lines: Vec<String>,
    /// The line of each source position.
    pub key_line: HashMap<Key, u32>,
    /// The program's values.
    pub vars: Vec<Var>,
    by_name: HashMap<String, usize>,
    reg_vars: HashMap<u32, Vec<(usize, usize)>>,
    /// DXBC: first instruction index of each subroutine body (`label` + 1), in order.
    subroutines: Vec<(u32, u32)>,
    /// DXBC: the opcode of each instruction index (declarations: `None`).
    opcodes: Vec<Option<Opcode>>,
    /// DXIL: the value operands of each instruction of the function the view names
    /// (the entry function, or the one [`SourceView::focus_dxil_function`] chose).
    pub operands: HashMap<u32, Vec<u32>>,
    /// DXIL: per function with values in the lowered program (in the order it was
    /// lowered: a hull program's entry, then its patch-constant function), its values
    /// and its instructions' operands. Each function numbers its values from its own
    /// start, so the view names one function's at a time.
    dxil_functions: Vec<DxilNames>,
    /// Local arrays by name (`x0`, an alloca's name).
    pub locals: Vec<String>,
    /// The HLSL debug info (DXIL `-Zi`, DXBC `SPDB`), when the program carries it and
    /// it reads.
    pub hlsl: Option<std::sync::Arc<super::hlsl::Hlsl>>,
    /// Why debug info the program carries is not used (malformed): the session
    /// steps the listing and says so.
    pub hlsl_note: Option<String>,
    /// The instructions that stop the debugger by themselves, in program order.
    pub breaks: Vec<(Key, ProgramBreak)>,
}

/// One DXIL function's names: its values and its instructions' value operands.
#[derive(Debug, Clone)]
struct DxilNames {
    function: u32,
    vars: Vec<Var>,
    operands: HashMap<u32, Vec<u32>>,
}

impl SourceView {
    fn new(lang: Lang, lines: Vec<String>) -> SourceView {
        SourceView {
            lang,
            lines,
            key_line: HashMap::new(),
            vars: Vec::new(),
            by_name: HashMap::new(),
            reg_vars: HashMap::new(),
            subroutines: Vec::new(),
            opcodes: Vec::new(),
            operands: HashMap::new(),
            dxil_functions: Vec::new(),
            locals: Vec::new(),
            hlsl: None,
            hlsl_note: None,
            breaks: Vec::new(),
        }
    }

    fn add_var(&mut self, v: Var) {
        let k = self.vars.len();
        for (c, r) in v.regs.iter().enumerate() {
            if *r != u32::MAX {
                self.reg_vars.entry(*r).or_default().push((k, c));
            }
        }
        self.by_name.insert(v.name.clone(), k);
        self.vars.push(v);
    }

    /// The view of a DXBC program and its unoptimised lowering.
    pub fn dxbc(program: &crate::dxbc::Program, shader: &Shader) -> SourceView {
        let text = crate::dxbc::listing(program);
        let mut v = SourceView::new(Lang::Dxbc, text.lines().map(str::to_string).collect());
        let mut sub = 0u32;
        for (i, inst) in program.instructions.iter().enumerate() {
            let op = match &inst.kind {
                InstructionKind::Executable(e) => Some(e.opcode),
                _ => None,
            };
            if op == Some(Opcode::Label) {
                sub += 1;
                v.subroutines.push((i as u32, sub));
            }
            v.opcodes.push(op);
        }
        for i in 0..program.instructions.len() as u32 {
            let key = (v.function_of(i), i);
            v.key_line.insert(key, i + 2);
            match v.opcodes.get(i as usize) {
                Some(Some(Opcode::DebugBreak)) => v.breaks.push((key, ProgramBreak::DebugBreak)),
                Some(Some(Opcode::Abort)) => v.breaks.push((key, ProgramBreak::Abort)),
                _ => {}
            }
        }
        let mut vars: Vec<&crate::ir::SourceVar> = shader.vars.iter().collect();
        vars.sort_by(|a, b| a.key.cmp(&b.key));
        for sv in vars {
            let name = match &sv.key {
                VarKey::DxbcTemp(n) => format!("r{n}"),
                VarKey::DxbcInput(s) => s.clone(),
                VarKey::DxilValue { .. } => continue,
            };
            let mut regs: Vec<u32> = sv.regs.iter().map(|r| r.0).collect();
            // `vThreadIDInGroupFlattened` is one value the lowering lists per component.
            if regs.windows(2).all(|w| w[0] == w[1]) {
                regs.truncate(1);
            }
            let n = regs.len();
            v.add_var(Var {
                name,
                regs,
                ty: vec![Ty::Untyped; n],
                xyzw: true,
                def: None,
                value: None,
            });
        }
        v.locals = shader.locals.iter().map(|x| x.name.clone()).collect();
        v
    }

    /// Reads a DXBC container's `SPDB` part (fxc's `/Zi` PDB) into the HLSL debug info,
    /// for a program whose view this is (`shader`: its unoptimised lowering). A part
    /// that does not read leaves the listing, and the note says what was wrong.
    pub fn use_program_database(
        &mut self,
        bytes: &[u8],
        program: &crate::dxbc::Program,
        shader: &Shader,
    ) {
        let Ok(c) = crate::container::Container::parse(bytes) else {
            return;
        };
        let Some(part) = c.part(crate::container::spdb::SPDB) else {
            return;
        };
        let runs = shader
            .locs
            .iter()
            .chain(shader.blocks.iter().map(|b| &b.term_loc))
            .filter_map(|l| match *l {
                SourceLoc::Dxbc { index, .. } => Some(index),
                _ => None,
            })
            .collect();
        let read = crate::container::spdb::read(part.data)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                super::hlsl::Hlsl::from_spdb(&s, program, self, shader, runs)
                    .map(|h| (h, s.warnings))
            });
        match read {
            Ok((h, warnings)) => {
                if !warnings.is_empty() {
                    self.hlsl_note = Some(format!("SPDB: {}", warnings.join("; ")));
                }
                self.hlsl = Some(std::sync::Arc::new(h))
            }
            Err(e) => {
                self.hlsl_note = Some(format!(
                    "the SPDB part is not used ({e}): stepping by the listing"
                ))
            }
        }
    }

    /// Completes the HLSL debug info with a container's `SRCI` part (its sources, when
    /// the debug module carries none). A part that does not read leaves the sources out
    /// and says why in the note; stepping by HLSL line is unaffected.
    pub fn use_source_info(&mut self, bytes: &[u8]) {
        let Some(h) = self.hlsl.as_mut() else { return };
        let Ok(c) = crate::container::Container::parse(bytes) else {
            return;
        };
        let Some(part) = c.part(crate::container::srci::SRCI) else {
            return;
        };
        match crate::container::srci::read(part.data) {
            Ok(info) => std::sync::Arc::make_mut(h).use_source_info(&info),
            Err(e) => {
                self.hlsl_note = Some(format!(
                    "the SRCI part does not read ({e}): the HLSL text is not shown"
                ))
            }
        }
    }

    /// The view of a DXIL module (its listing and line map, as
    /// `dxil::listing::disassemble_with_lines` gives them) and its unoptimised lowering;
    /// `debug_module` is the container's `ILDB` debug module, whose debug info is used
    /// when the module run carries none.
    pub fn dxil(
        text: &str,
        lines: &[(u32, u32, u32)],
        module: &crate::dxil::llvm::Module,
        shader: &Shader,
        debug_module: Option<&crate::dxil::llvm::Module>,
    ) -> SourceView {
        use crate::dxil::llvm::{Type, ValueId};
        let mut v = SourceView::new(Lang::Dxil, text.lines().map(str::to_string).collect());
        for &(f, i, l) in lines {
            v.key_line.insert((f, i), l);
        }
        let function = shader.vars.iter().find_map(|sv| match sv.key {
            VarKey::DxilValue { function, .. } => Some(function),
            _ => None,
        });
        let body = function
            .and_then(|f| module.functions.get(f as usize))
            .and_then(|f| f.body.as_ref());
        let Some(body) = body else {
            return v;
        };
        let own =
            crate::dxil::debuginfo::kind(module) != crate::dxil::debuginfo::DebugInfoKind::None;
        // Nothing to read (the common case) costs nothing more.
        if let Some(f) = function.filter(|_| own || debug_module.is_some()) {
            let runs = shader
                .locs
                .iter()
                .chain(shader.blocks.iter().map(|b| &b.term_loc))
                .filter_map(|l| match *l {
                    SourceLoc::Dxil { function, inst } if function == f => Some(inst),
                    _ => None,
                })
                .collect();
            let read = match debug_module {
                Some(d) if !own => super::hlsl::Hlsl::read_split(d, module, f, runs)
                    .map_err(|e| format!("ILDB: {e}")),
                // The module's own debug info first; the debug module when that fails.
                Some(d) => super::hlsl::Hlsl::read(module, f, runs.clone())
                    .or_else(|e| super::hlsl::Hlsl::read_split(d, module, f, runs).map_err(|_| e)),
                None => super::hlsl::Hlsl::read(module, f, runs),
            };
            match read {
                Ok(h) => v.hlsl = h.map(std::sync::Arc::new),
                Err(e) => {
                    v.hlsl_note = Some(format!(
                        "the program's debug info is not used ({e}): stepping by the listing"
                    ))
                }
            }
        }
        if let Some(f) = function {
            for k in 0..u32::try_from(body.instructions.len()).unwrap_or(u32::MAX) {
                // A call that does not decode was refused by the lowering already.
                if let Ok(Some(c)) = crate::dxil::dxop::decode_call(module, f, body, k)
                    && c.op() == crate::dxil::dxop::DxOp::DebugBreak
                {
                    v.breaks.push(((f, k), ProgramBreak::DebugBreak));
                }
            }
        }
        let leaf_ty = |t: &Type| match t {
            Type::Float => Ty::Float,
            Type::Half => Ty::Half,
            Type::Double => Ty::Double,
            Type::Integer(1) => Ty::Bool,
            Type::Integer(64) => Ty::I64,
            Type::Integer(_) => Ty::Int,
            _ => Ty::Untyped,
        };
        // Every function the lowering took values from, in its order.
        let mut functions: Vec<u32> = Vec::new();
        for sv in &shader.vars {
            if let VarKey::DxilValue { function: f, .. } = sv.key
                && !functions.contains(&f)
            {
                functions.push(f);
            }
        }
        for f in functions {
            let Some(body) = module
                .functions
                .get(f as usize)
                .and_then(|x| x.body.as_ref())
            else {
                continue;
            };
            let names = crate::dxil::listing::asm::AsmWriter::value_names(module, body);
            let mut n = DxilNames {
                function: f,
                vars: Vec::new(),
                operands: HashMap::new(),
            };
            for (k, inst) in body.instructions.iter().enumerate() {
                n.operands.insert(
                    k as u32,
                    inst.kind.value_operands().iter().map(|x| x.0).collect(),
                );
            }
            for sv in &shader.vars {
                let VarKey::DxilValue { value, function } = sv.key else {
                    continue;
                };
                if function != f {
                    continue;
                }
                let id = ValueId(value);
                let Some(name) = names.get(&id) else { continue };
                let val = module.value(Some(body), id);
                let def = val.and_then(|x| match x.kind {
                    crate::dxil::llvm::ValueKind::Instruction(i) => Some(i),
                    _ => None,
                });
                let tys: Vec<Ty> = match val.and_then(|x| module.ty(x.ty)) {
                    Some(Type::Vector { element, .. }) | Some(Type::Array { element, .. }) => {
                        let e = module.ty(*element).map_or(Ty::Untyped, leaf_ty);
                        vec![e; sv.regs.len()]
                    }
                    Some(t) => vec![leaf_ty(t); sv.regs.len()],
                    None => vec![Ty::Untyped; sv.regs.len()],
                };
                n.vars.push(Var {
                    name: name.clone(),
                    regs: sv.regs.iter().map(|r| r.0).collect(),
                    ty: tys,
                    xyzw: false,
                    def,
                    value: Some(value),
                });
            }
            v.dxil_functions.push(n);
        }
        if let Some(first) = v.dxil_functions.first().map(|n| n.function) {
            v.focus_dxil_function(first);
        }
        v.locals = shader.locals.iter().map(|x| x.name.clone()).collect();
        v
    }

    /// The view of a program written in the IR's text form: its own listing, IR
    /// registers as names.
    pub fn ir(shader: &Shader) -> SourceView {
        let mut lines = vec![format!("shader {}", shader.stage)];
        let mut v = SourceView::new(Lang::Ir, Vec::new());
        for (b, block) in shader.blocks.iter().enumerate() {
            lines.push(format!("block{b}:"));
            for i in block.start..block.end {
                lines.push(format!("    {}", shader.insts[i as usize]));
                v.key_line.insert((0, 2 * i), lines.len() as u32);
            }
            lines.push(format!("    {}", block.term));
            v.key_line
                .insert((0, (2 * block.end).wrapping_sub(1)), lines.len() as u32);
        }
        v.lines = lines;
        for r in shader.consts.len() as u32..shader.num_regs {
            v.add_var(Var {
                name: format!("r{r}"),
                regs: vec![r],
                ty: vec![Ty::Untyped],
                xyzw: false,
                def: None,
                value: None,
            });
        }
        v.locals = shader.locals.iter().map(|x| x.name.clone()).collect();
        v
    }

    /// The subroutine a DXBC instruction index belongs to (0: the main program).
    fn function_of(&self, index: u32) -> u32 {
        let k = self
            .subroutines
            .partition_point(|&(start, _)| start <= index);
        k.checked_sub(1)
            .and_then(|k| self.subroutines.get(k))
            .map_or(0, |&(_, s)| s)
    }

    /// The source position of a step (`None`: made by the lowering, part of the step
    /// before it).
    pub fn key(&self, shader: &Shader, at: At) -> Option<Key> {
        let loc = match at {
            At::Inst(i) => {
                if self.lang == Lang::Ir {
                    return Some((0, 2 * i.0));
                }
                shader.locs.get(i.index()).copied().unwrap_or_default()
            }
            At::Terminator(b) => {
                let block = shader.blocks.get(b.index())?;
                if self.lang == Lang::Ir {
                    return Some((0, (2 * block.end).wrapping_sub(1)));
                }
                block.term_loc
            }
        };
        match loc {
            SourceLoc::None => None,
            SourceLoc::Dxbc { index, .. } => Some((self.function_of(index), index)),
            SourceLoc::Dxil { function, inst } => Some((function, inst)),
        }
    }

    /// The listing line of a source position.
    pub fn line(&self, key: Key) -> Option<u32> {
        self.key_line.get(&key).copied()
    }

    /// The text of a line (trimmed).
    pub fn text(&self, line: u32) -> &str {
        line.checked_sub(1)
            .and_then(|l| self.lines.get(l as usize))
            .map_or("", |s| s.trim())
    }

    /// The positions on a listing line.
    pub fn keys_on_line(&self, line: u32) -> Vec<Key> {
        let mut v: Vec<Key> = self
            .key_line
            .iter()
            .filter(|(_, l)| **l == line)
            .map(|(k, _)| *k)
            .collect();
        v.sort_unstable();
        v
    }

    /// Whether the DXBC instruction at `index` is a `call` or `callc`.
    pub fn is_call(&self, index: u32) -> bool {
        matches!(
            self.opcodes.get(index as usize),
            Some(Some(Opcode::Call | Opcode::Callc))
        )
    }

    /// DXIL: names the values of function `f` (its `%N`, the operands of its
    /// instructions) from now on. A hull program's patch-constant function numbers its
    /// values as the entry function does, so a patch-constant lane's view names that
    /// function's. `false` (the view unchanged) when the program has no values of `f`.
    pub fn focus_dxil_function(&mut self, f: u32) -> bool {
        let Some(n) = self
            .dxil_functions
            .iter()
            .find(|n| n.function == f)
            .cloned()
        else {
            return false;
        };
        self.vars.clear();
        self.by_name.clear();
        self.reg_vars.clear();
        for var in n.vars {
            self.add_var(var);
        }
        self.operands = n.operands;
        true
    }

    /// DXIL: the functions whose values the view can name ([`Self::focus_dxil_function`]),
    /// in the order the lowering took them (a hull program: the entry function, then
    /// the patch-constant function).
    pub fn dxil_functions(&self) -> Vec<u32> {
        self.dxil_functions.iter().map(|n| n.function).collect()
    }

    /// A value by name.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.by_name.get(name).map(|&k| &self.vars[k])
    }

    /// The program values register `r` holds, as (variable, component).
    pub fn names_of(&self, r: u32) -> &[(usize, usize)] {
        self.reg_vars.get(&r).map_or(&[], Vec::as_slice)
    }

    /// The name to show for register `r` at DXIL instruction `inst` (an operand of it
    /// or its result when several values share the register); `None` for registers the
    /// program does not name (constants, the lowering's scratch).
    pub fn name_for(&self, r: u32, inst: Option<u32>, write: bool) -> Option<(usize, usize)> {
        let cands = self.names_of(r);
        if cands.len() <= 1 || self.lang != Lang::Dxil {
            return cands.first().copied();
        }
        if let Some(i) = inst {
            if write && let Some(c) = cands.iter().find(|(v, _)| self.vars[*v].def == Some(i)) {
                return Some(*c);
            }
            if let Some(ops) = self.operands.get(&i)
                && let Some(c) = cands
                    .iter()
                    .find(|(v, _)| self.vars[*v].value.is_some_and(|x| ops.contains(&x)))
            {
                return Some(*c);
            }
        }
        cands.first().copied()
    }
}
