//! What a name in a command means at a position: the registers and values the program
//! names (`r3.xy`, `%42`), inputs (`v1.x`, `SV_Position.y`), arrays (`x0[1]`), constant
//! buffers (`cb0[2].y`), UAV and SRV elements (`u0[5]`, `t1[3]`) and group shared words
//! (`gs[7]`), with the type each is shown as; and the conditions breakpoints test.

use std::fmt::Write as _;

use crate::exec::{Binding, WriteTarget};
use crate::ir::{Inst, ResourceClass};
use crate::resources::Descriptor;

use super::Debugger;
use crate::debug::DebugError;
use crate::debug::expr::{self, Cond, Number, Operand, PlaceText, Scalar};
use crate::debug::format::{self, Ty};
use crate::debug::record::Slot;
use crate::debug::source::Lang;

/// A place resolved against the program.
#[derive(Debug, Clone)]
pub(super) enum Resolved {
    /// Register-like slots: (name, slot, declared type).
    Slots(Vec<(String, Slot, Ty)>),
    /// Constant-buffer words: (name, bits).
    Constant(Vec<(String, u32)>),
    /// Group shared word.
    Shared(u64),
    /// A resource element's bytes.
    Resource {
        name: String,
        binding: Binding,
        addr: u64,
        bytes: u64,
    },
}

impl Debugger {
    /// The type lane `l`'s register `r` has before wave step `t`: the declared type, or
    /// the type of the instruction that last wrote it (through bit copies).
    pub(super) fn type_of(&self, r: u32, t: usize, declared: Ty) -> Ty {
        if declared != Ty::Untyped {
            return declared;
        }
        let (mut r, mut t) = (r, t);
        for _ in 0..16 {
            let Some(s) = self.rec.last_lane_write(Slot::Reg(r), t, self.lane) else {
                return Ty::Untyped;
            };
            let Some(inst) = self.inst_at(s) else {
                return Ty::Untyped;
            };
            match inst {
                Inst::Mov { src, .. } => {
                    r = src.0;
                    t = s;
                    if self.target.program.debug_shader.is_const(*src) {
                        return Ty::Untyped;
                    }
                }
                i => return format::written_type(i),
            }
        }
        Ty::Untyped
    }

    pub(super) fn reg_name(&self, r: u32, inst: Option<u32>, write: bool) -> Option<(String, Ty)> {
        let view = &self.target.program.view;
        let (v, c) = view.name_for(r, inst, write)?;
        let var = &view.vars[v];
        Some((
            var.component_name(c),
            var.ty.get(c).copied().unwrap_or(Ty::Untyped),
        ))
    }

    /// The program's name of input or output word `word` of a graphics stage (DXBC
    /// `v1.x`, `o0.y`; otherwise the semantic, `TEXCOORD0.x`), with its declared type.
    pub(super) fn io_name(&self, input: bool, word: u32) -> Option<(String, Ty)> {
        // An input vertex's, control point's or patch constant's word, named as the
        // listing indexes it.
        if input && let Some(n) = self.chain_input_name(word) {
            return Some(n);
        }
        let sh = &self.target.program.debug_shader;
        let dxbc = self.target.program.view.lang == Lang::Dxbc;
        let elems = if input { &sh.inputs } else { &sh.outputs };
        let e = elems
            .iter()
            .find(|e| word >= e.slot && u64::from(word - e.slot) < 4 * u64::from(e.rows))?;
        let (r, c) = ((word - e.slot) / 4, (word - e.slot) % 4);
        let comp = ['x', 'y', 'z', 'w'][c as usize];
        let ty = match e.component {
            crate::ir::ComponentType::Float => Ty::Float,
            crate::ir::ComponentType::SInt => Ty::Int,
            _ => Ty::UInt,
        };
        // An element without a register (SV_DomainLocation's vDomain,
        // SV_OutputControlPointID, …) has no `v#` to name it by: its semantic names it.
        let named = dxbc
            && e.register != crate::ir::io::NO_REGISTER
            && !matches!(
                e.sv,
                crate::ir::SysValue::Depth
                    | crate::ir::SysValue::DepthGreaterEqual
                    | crate::ir::SysValue::DepthLessEqual
                    | crate::ir::SysValue::Coverage
                    | crate::ir::SysValue::StencilRef
                    | crate::ir::SysValue::VertexId
                    | crate::ir::SysValue::InstanceId
                    | crate::ir::SysValue::PrimitiveId
                    | crate::ir::SysValue::IsFrontFace
                    | crate::ir::SysValue::SampleIndex
            );
        let name = if named {
            format!("{}{}.{comp}", if input { 'v' } else { 'o' }, e.register + r)
        } else if e.rows > 1 {
            format!("{}[{r}].{comp}", e.semantic_name())
        } else {
            format!("{}.{comp}", e.semantic_name())
        };
        Some((name, ty))
    }

    /// Input word of a name the program uses (`v1.x` in DXBC, `TEXCOORD0.x`, `SV_Position.y`).
    fn input_slots(&self, base: &str, comps: &[usize]) -> Option<Vec<(String, Slot, Ty)>> {
        let words = self.io_words(true, base, comps)?;
        Some(
            words
                .into_iter()
                .map(|(name, word, ty)| (name, Slot::Input(word), ty))
                .collect(),
        )
    }

    /// The input (`input`) or output words of the element row whose name's stem is
    /// `base` (`v1`, `TEXCOORD0`, `o0`, `SV_Target0`), components `comps` (every declared
    /// one when empty), with their names and declared types; `None` when no row has that
    /// name.
    pub(super) fn io_words(
        &self,
        input: bool,
        base: &str,
        comps: &[usize],
    ) -> Option<Vec<(String, u32, Ty)>> {
        let sh = &self.target.program.debug_shader;
        let elements = if input { &sh.inputs } else { &sh.outputs };
        for e in elements {
            for r in 0..e.rows {
                let w0 = e.word(r, 0);
                let Some((n0, _)) = self.io_name(input, w0 + (e.mask.trailing_zeros() & 3)) else {
                    continue;
                };
                let stem = n0.rsplit_once('.').map_or(n0.as_str(), |(a, _)| a);
                if !stem.eq_ignore_ascii_case(base) {
                    continue;
                }
                let want: Vec<usize> = if comps.is_empty() {
                    (0..4).filter(|c| e.mask >> c & 1 == 1).collect()
                } else {
                    comps.to_vec()
                };
                let mut out = Vec::new();
                for c in want {
                    let word = w0 + c as u32;
                    if let Some((name, ty)) = self.io_name(input, word) {
                        out.push((name, word, ty));
                    }
                }
                return Some(out);
            }
        }
        None
    }

    pub(super) fn local_name(&self, array: u32, word: u32) -> String {
        let view = &self.target.program.view;
        let name = view
            .locals
            .get(array as usize)
            .cloned()
            .unwrap_or_else(|| format!("x{array}"));
        if view.lang == Lang::Dxbc {
            format!(
                "{name}[{}].{}",
                word / 4,
                ['x', 'y', 'z', 'w'][(word % 4) as usize]
            )
        } else {
            format!("{name}[{word}]")
        }
    }

    pub(super) fn memory_name(&self, target: WriteTarget, addr: u64, bytes: u32) -> String {
        match target {
            WriteTarget::GroupShared => format!("gs[{}] (byte {addr})", addr / 4),
            WriteTarget::Local(a) => self.local_name(a, (addr / 4) as u32),
            WriteTarget::Resource(b) => {
                let name = self.binding_name(b);
                format!("{name} bytes {addr}..{}", addr + u64::from(bytes))
            }
        }
    }

    pub(super) fn binding_name(&self, b: Binding) -> String {
        let sh = &self.target.program.shader;
        match b {
            Binding::Range { range, element } => sh.resources.get(range as usize).map_or_else(
                || format!("range {range}"),
                |r| {
                    let mut s = format!("{}{}", r.class.letter(), r.lower + element);
                    if r.space != 0 {
                        let _ = write!(s, ", space{}", r.space);
                    }
                    s
                },
            ),
            Binding::ResourceHeap(i) => format!("heap[{i}]"),
        }
    }

    fn unknown(&self, name: &str) -> DebugError {
        let view = &self.target.program.view;
        let mut known: Vec<&str> = view.vars.iter().map(|v| v.name.as_str()).take(8).collect();
        if view.vars.len() > 8 {
            known.push("…");
        }
        DebugError::Command(format!(
            "unknown register or value `{name}` (this program has {}{})",
            known.join(", "),
            match view.lang {
                Lang::Dxbc => "; also cb#[row], x#[i], u#[i], t#[i], gs[word]",
                Lang::Dxil => "; also u#[i], t#[i], gs[word]",
                Lang::Ir => "; also u#[i], gs[word]",
            }
        ))
    }

    pub(super) fn resolve(&self, p: &PlaceText) -> Result<Resolved, DebugError> {
        let view = &self.target.program.view;
        let var_slots =
            |var: &crate::debug::source::Var, comps: &[usize]| -> Result<Resolved, DebugError> {
                let mut out = Vec::new();
                for &c in comps {
                    let r = *var.regs.get(c).ok_or_else(|| {
                        DebugError::Command(format!("{} has no component {c}", var.name))
                    })?;
                    if r == u32::MAX {
                        return Err(DebugError::Command(format!(
                            "{} is not held in registers",
                            var.component_name(c)
                        )));
                    }
                    out.push((
                        var.component_name(c),
                        Slot::Reg(r),
                        var.ty.get(c).copied().unwrap_or(Ty::Untyped),
                    ));
                }
                Ok(Resolved::Slots(out))
            };
        if p.index.is_none() {
            if let Some(v) = view.var(&p.name) {
                let all: Vec<usize> = (0..v.regs.len()).collect();
                return var_slots(v, &all);
            }
            if let Some((base, comps)) = expr::split_swizzle(&p.name)
                && let Some(v) = view.var(base)
            {
                return var_slots(v, &comps);
            }
            let (base, comps) = match expr::split_swizzle(&p.name) {
                Some((b, c)) => (b.to_string(), c),
                None => (p.name.clone(), Vec::new()),
            };
            if let Some(slots) = self.input_slots(&base, &comps) {
                return Ok(Resolved::Slots(slots));
            }
            if view.lang == Lang::Dxil && p.name.starts_with('%') {
                return Err(DebugError::Command(format!(
                    "{} has no registers in the lowered program (a pointer, or a value nothing with an effect reads)",
                    p.name
                )));
            }
            return Err(self.unknown(&p.name));
        }
        let index = p.index.unwrap_or(0);
        if let Some(v) = view.var(&p.name) {
            return var_slots(v, &[index as usize]);
        }
        if p.name == "gs" {
            let words = u64::from(self.target.program.shader.groupshared_bytes).div_ceil(4);
            if index >= words {
                return Err(DebugError::Command(format!(
                    "gs[{index}]: the program has {words} words of group shared memory"
                )));
            }
            return Ok(Resolved::Shared(index));
        }
        if let Some(a) = view.locals.iter().position(|n| *n == p.name) {
            let words = self.rec.local_words.get(a).copied().unwrap_or(0) as u64;
            let dxbc = view.lang == Lang::Dxbc;
            let comps: Vec<usize> = match (&p.swizzle, dxbc) {
                (Some(c), _) => c.clone(),
                (None, true) => vec![0, 1, 2, 3],
                (None, false) => vec![0],
            };
            let mut out = Vec::new();
            for c in comps {
                let word = if dxbc {
                    index * 4 + c as u64
                } else {
                    index + c as u64
                };
                if word >= words {
                    return Err(DebugError::Command(format!(
                        "{}[{index}] is past the end of {} ({words} words)",
                        p.name, p.name
                    )));
                }
                out.push((
                    self.local_name(a as u32, word as u32),
                    Slot::Local(a as u32, word as u32),
                    Ty::Untyped,
                ));
            }
            return Ok(Resolved::Slots(out));
        }
        let (class, num) = match (
            p.name.get(..1),
            p.name.get(1..).and_then(|n| n.parse::<u32>().ok()),
        ) {
            (Some("u"), Some(n)) => (ResourceClass::Uav, n),
            (Some("t"), Some(n)) => (ResourceClass::Srv, n),
            (Some("b"), Some(n)) => (ResourceClass::Cbv, n),
            _ if p.name.starts_with("cb") => (
                ResourceClass::Cbv,
                p.name[2..]
                    .parse::<u32>()
                    .map_err(|_| self.unknown(&p.name))?,
            ),
            _ => return Err(self.unknown(&p.name)),
        };
        let sh = &self.target.program.shader;
        let (k, r) = sh
            .resources
            .iter()
            .enumerate()
            .find(|(_, r)| {
                r.class == class
                    && r.space == 0
                    && num >= r.lower
                    && u64::from(num - r.lower) < u64::from(r.count)
            })
            .ok_or_else(|| {
                DebugError::Command(format!(
                    "the program declares no {}{num} (it declares {})",
                    class.letter(),
                    sh.resources
                        .iter()
                        .map(|r| r.binding_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let element = num - r.lower;
        let desc = self
            .target
            .bindings
            .ranges
            .get(k)
            .and_then(|v| v.get(element as usize))
            .ok_or_else(|| DebugError::Command(format!("{} is not bound", p.name)))?;
        let binding = Binding::Range {
            range: k as u32,
            element,
        };
        match desc {
            Descriptor::ConstantBuffer {
                memory,
                offset,
                size,
            } => {
                let comps = p.swizzle.clone().unwrap_or_else(|| vec![0, 1, 2, 3]);
                let mut out = Vec::new();
                for c in comps {
                    let b = index * 16 + c as u64 * 4;
                    if b + 4 > *size {
                        return Err(DebugError::Command(format!(
                            "{}[{index}] is past the end of the constant buffer ({size} bytes)",
                            p.name
                        )));
                    }
                    let bits = memory.load_u32(offset + b).unwrap_or(0);
                    out.push((
                        format!("{}[{index}].{}", p.name, ['x', 'y', 'z', 'w'][c]),
                        bits,
                    ));
                }
                Ok(Resolved::Constant(out))
            }
            Descriptor::Buffer { view: bv, .. } => {
                let es = bv.element_size();
                if index >= bv.num_elements {
                    return Err(DebugError::Command(format!(
                        "{}[{index}]: the view has {} elements",
                        p.name, bv.num_elements
                    )));
                }
                let addr = bv.byte_offset() + index * es;
                Ok(Resolved::Resource {
                    name: format!("{}[{index}]", p.name),
                    binding,
                    addr,
                    bytes: es,
                })
            }
            Descriptor::Texture(tv) => {
                let [w, h, _] = tv.mip_size(0);
                let (w, h) = (u64::from(w.max(1)), u64::from(h.max(1)));
                let xyz = [
                    (index % w) as u32,
                    ((index / w) % h) as u32,
                    (index / (w * h)) as u32,
                ];
                let addr = tv.texel_addr_at(0, 0, xyz).ok_or_else(|| {
                    DebugError::Command(format!("{}[{index}] is outside the texture", p.name))
                })?;
                Ok(Resolved::Resource {
                    name: format!("{}[{index}]", p.name),
                    binding,
                    addr,
                    bytes: u64::from(tv.format.bytes_per_texel()),
                })
            }
            _ => Err(DebugError::Command(format!(
                "{} is a sampler or a null descriptor: it has no elements",
                p.name
            ))),
        }
    }

    pub(super) fn resolve_text(&self, t: &str) -> Result<Resolved, DebugError> {
        if let Some(r) = self.chain_input_slots(t) {
            return r.map(Resolved::Slots);
        }
        let p = expr::parse_place(t).map_err(DebugError::Command)?;
        self.resolve(&p)
    }

    pub(super) fn resource_bytes(&self, binding: Binding, addr: u64, bytes: u64) -> Vec<u8> {
        let Binding::Range { range, element } = binding else {
            return Vec::new();
        };
        let mem = match self
            .target
            .bindings
            .ranges
            .get(range as usize)
            .and_then(|v| v.get(element as usize))
        {
            Some(Descriptor::Buffer { view, .. }) => view.memory.clone(),
            Some(Descriptor::Texture(v)) => v.texture.memory().clone(),
            _ => return Vec::new(),
        };
        let mut out = vec![0u8; bytes.min(64) as usize];
        mem.read_bytes(addr, &mut out);
        out
    }

    /// A scalar value of a place at position `q` (for conditions): an HLSL variable's
    /// scalar when the program's debug info has one of that spelling, else a place of
    /// the program.
    fn scalar(&self, p: &PlaceText, q: usize) -> Result<Scalar, DebugError> {
        if let Some(v) = self.hlsl_scalar(&p.spelling, q) {
            return v;
        }
        if p.hlsl_only {
            return Err(DebugError::Command(format!(
                "`{}` names no HLSL variable here",
                p.spelling
            )));
        }
        let t = self.t(q);
        let r = self.resolve(p)?;
        let (bits, ty) = match r {
            Resolved::Slots(v) => {
                if v.len() != 1 {
                    return Err(DebugError::Command(format!(
                        "`{}` has {} components; a condition compares one (`{}.x`)",
                        p.name,
                        v.len(),
                        p.name
                    )));
                }
                let (_, slot, decl) = &v[0];
                let bits = self.rec.value(*slot, t, self.lane);
                let ty = match slot {
                    Slot::Reg(r) => self.type_of(*r, t, *decl),
                    Slot::Local(..) => Ty::Untyped,
                    Slot::Input(_) => *decl,
                };
                (bits, ty)
            }
            Resolved::Constant(v) => {
                if v.len() != 1 {
                    return Err(DebugError::Command(
                        "a condition compares one constant-buffer component (`cb0[1].x`)".into(),
                    ));
                }
                (v[0].1, Ty::Untyped)
            }
            Resolved::Shared(w) => (self.rec.shared_word(w, t), Ty::Untyped),
            Resolved::Resource { .. } => {
                return Err(DebugError::Command(
                    "a condition cannot read a UAV or SRV element (its value at a step is not recorded); watch it instead".into(),
                ));
            }
        };
        let ty = if ty == Ty::Untyped {
            format::guess(bits)
        } else {
            ty
        };
        Ok(match ty {
            Ty::Float => Scalar {
                bits: u64::from(bits),
                float: true,
                signed: false,
            },
            Ty::Half => Scalar {
                bits: u64::from(half::f16::from_bits(bits as u16).to_f32().to_bits()),
                float: true,
                signed: false,
            },
            Ty::Int => Scalar {
                bits: bits as i32 as i64 as u64,
                float: false,
                signed: true,
            },
            _ => Scalar {
                bits: u64::from(bits),
                float: false,
                signed: false,
            },
        })
    }

    fn operand(&self, o: &Operand, q: usize) -> Result<Scalar, DebugError> {
        match o {
            Operand::Number(n) => Ok(Scalar::number(*n)),
            Operand::Place(p) => self.scalar(p, q),
        }
    }

    /// Checks that every place of condition `c` names something the lane can read: an
    /// HLSL scalar (its value may not be held yet) or a place of the program.
    pub(super) fn check_cond(&self, c: &Cond) -> Result<(), DebugError> {
        let place = |o: &Operand| -> Result<(), DebugError> {
            let Operand::Place(p) = o else { return Ok(()) };
            if let Some(r) = self.hlsl_names_scalar(&p.spelling) {
                return r;
            }
            self.scalar(p, self.pos).map(|_| ())
        };
        match c {
            Cond::Cmp(a, _, b) => place(a).and_then(|()| place(b)),
            Cond::Truthy(a) => place(a),
            Cond::And(a, b) | Cond::Or(a, b) => {
                self.check_cond(a).and_then(|()| self.check_cond(b))
            }
            Cond::Not(a) => self.check_cond(a),
        }
    }

    /// Whether condition `c` holds at source step `q` (the lane about to run it). A
    /// place that has no value there (an HLSL scalar optimised out) is an error.
    pub(super) fn eval(&self, c: &Cond, q: usize) -> Result<bool, DebugError> {
        Ok(match c {
            Cond::Cmp(a, op, b) => expr::compare(*op, self.operand(a, q)?, self.operand(b, q)?),
            Cond::Truthy(a) => {
                let v = self.operand(a, q)?;
                expr::compare(expr::CmpOp::Ne, v, Scalar::number(Number::Int(0)))
            }
            Cond::And(a, b) => self.eval(a, q)? && self.eval(b, q)?,
            Cond::Or(a, b) => self.eval(a, q)? || self.eval(b, q)?,
            Cond::Not(a) => !self.eval(a, q)?,
        })
    }
}
