//! Memory: allocas, globals, `getelementptr`, loads, stores and atomics, and the
//! analysis that finds, before any code is made, which memory every pointer points into
//! and which resource every handle names.
//!
//! Owns: the byte layout of per-lane arrays (`alloca`, non-constant globals of address
//! space 0), group shared memory (address space 3 globals, placed one after another at
//! their alignment) and constant arrays (constant globals with an initializer), and the
//! offsets a GEP computes. Does not own: what handles do (see `ops`).
//!
//! A pointer must point into one memory known before the program runs: a phi or select
//! of pointers into two different arrays is refused, naming the value.

use super::func::{FnLower, Ptr, R, Root, Val, at};
use super::layout::{self, Leaf};
use super::resources::{HandleKind, from_properties};
use crate::dxil::dxop::{self, DxOp};
use crate::dxil::llvm::{
    CastOp, Constant, InstKind, Instruction, RmwOp, Type, TypeId, ValueId, ValueKind,
};
use crate::ir::{AtomicOp, ConstArray, ICond, Inst, LocalArray, LocalId, Reg, Width};

/// The most bytes of per-lane arrays a shader may declare (D3D's indexable temps
/// allow 4096 × 16 bytes; DXIL's allocas are held to four times that).
pub const MAX_LOCAL_BYTES: u64 = 256 * 1024;

/// The most bytes of group shared memory (D3D allows 32 KiB; this leaves room).
pub const MAX_SHARED_BYTES: u64 = 1 << 20;

/// The most bytes of constant arrays.
pub const MAX_CONST_BYTES: u64 = 1 << 24;

impl<'m> FnLower<'m> {
    // ---- analysis -------------------------------------------------------------------

    /// Finds the memory of every pointer and the resource of every handle, iterating
    /// over the reachable blocks (in reverse post-order) until nothing changes (phis in
    /// loops see their back-edge values on the next round). Each value's fact is set once;
    /// two different facts for one value are refused.
    pub fn analyse(&mut self, rpo: &[u32]) -> R<()> {
        loop {
            let mut changed = false;
            for &b in rpo {
                let Some(bb) = self.body.blocks.get(b as usize) else {
                    continue;
                };
                for (k, inst) in self
                    .body
                    .block_instructions(crate::dxil::llvm::BlockId(b))
                    .iter()
                    .enumerate()
                {
                    let idx = bb
                        .start
                        .saturating_add(u32::try_from(k).unwrap_or(u32::MAX));
                    self.at_inst(idx);
                    changed |= self.analyse_inst(inst)?;
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    fn set_root(&mut self, v: Option<ValueId>, r: Option<Root>) -> R<bool> {
        let (Some(v), Some(r)) = (v, r) else {
            return Ok(false);
        };
        match self.roots.get(&v) {
            Some(old) if *old == r => Ok(false),
            Some(_) => Err(self.unsupported(format!(
                "pointer {} that may point into two different arrays",
                self.name_of(v)
            ))),
            None => {
                self.roots.insert(v, r);
                Ok(true)
            }
        }
    }

    fn set_handle(&mut self, v: Option<ValueId>, h: Option<HandleKind>) -> R<bool> {
        let (Some(v), Some(h)) = (v, h) else {
            return Ok(false);
        };
        match self.handles.get(&v) {
            Some(old) if *old == h => Ok(false),
            Some(old) => Err(self.unsupported(format!(
                "handle {} that may name resources of different kinds ({} and {})",
                self.name_of(v),
                old.kind,
                h.kind
            ))),
            None => {
                self.handles.insert(v, h);
                Ok(true)
            }
        }
    }

    fn is_ptr_ty(&self, t: TypeId) -> bool {
        matches!(self.m.ty(t), Some(Type::Pointer { .. }))
    }

    fn is_handle_ty(&self, t: TypeId) -> bool {
        Leaf::of(self.m, t) == Some(Leaf::Handle)
    }

    fn analyse_inst(&mut self, inst: &'m Instruction) -> R<bool> {
        let res = inst.result;
        Ok(match &inst.kind {
            InstKind::Alloca {
                allocated, size, ..
            } => {
                let Some(v) = res else { return Ok(false) };
                if self.allocas.contains_key(&v) {
                    return Ok(false);
                }
                let (bytes, _) = self.inv(self.dl.size_align(self.m, *allocated))?;
                let count = match self.const_int(*size) {
                    Some(n) if n >= 1 => n as u64,
                    _ => return Err(self.unsupported("alloca of a variable element count")),
                };
                let bytes = bytes.saturating_mul(count);
                let name = self
                    .value(v)?
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("alloca{}", self.inst));
                let x = self.new_local(bytes, name)?;
                self.allocas.insert(v, x);
                self.set_root(res, Some(Root::Local(x)))?
            }
            InstKind::Gep { base, .. } => {
                let r = self.root_of(*base)?;
                self.set_root(res, r)?
            }
            InstKind::Cast {
                op: CastOp::BitCast | CastOp::AddrSpaceCast,
                value,
            } if self.is_ptr_ty(inst.ty) => {
                let r = self.root_of(*value)?;
                self.set_root(res, r)?
            }
            InstKind::Phi { incoming } => {
                let mut changed = false;
                for (v, _) in incoming {
                    if self.is_undef(*v) {
                        continue;
                    }
                    if self.is_ptr_ty(inst.ty) {
                        let r = self.root_of(*v)?;
                        changed |= self.set_root(res, r)?;
                    } else if self.is_handle_ty(inst.ty) {
                        let h = self.handles.get(v).copied();
                        changed |= self.set_handle(res, h)?;
                    }
                }
                changed
            }
            InstKind::Select {
                if_true, if_false, ..
            } => {
                let mut changed = false;
                for v in [*if_true, *if_false] {
                    if self.is_ptr_ty(inst.ty) {
                        let r = self.root_of(v)?;
                        changed |= self.set_root(res, r)?;
                    } else if self.is_handle_ty(inst.ty) {
                        let h = self.handles.get(&v).copied();
                        changed |= self.set_handle(res, h)?;
                    }
                }
                changed
            }
            InstKind::Load { ptr, .. } => {
                let r = self.root_of(*ptr)?;
                if let Some(Root::Resource(i)) = r
                    && self.is_handle_ty(inst.ty)
                {
                    let h = self.ranges.get(i).map(|r| r.handle);
                    self.set_handle(res, h)?
                } else {
                    false
                }
            }
            InstKind::Store { ptr, .. }
            | InstKind::AtomicRmw { ptr, .. }
            | InstKind::CmpXchg { ptr, .. } => {
                // Makes the storage of a global that is only accessed directly.
                self.root_of(*ptr)?;
                false
            }
            InstKind::Call { .. } => {
                let Some(call) = dxop::decode_call(self.m, self.fi, self.body, self.inst)
                    .map_err(|e| self.invalid(e.what))?
                else {
                    return Ok(false);
                };
                if call.op() == DxOp::GetMeshPayload {
                    // The payload is group shared memory (`mesh`).
                    return self.set_root(res, Some(Root::Shared));
                }
                let h = match call.op() {
                    DxOp::CreateHandle | DxOp::CreateHandleFromBinding => {
                        Some(self.binding_range(&call)?.1)
                    }
                    DxOp::AnnotateHandle => {
                        let props = call
                            .arg(1)
                            .ok_or_else(|| self.invalid("annotateHandle without properties"))?;
                        let (w0, w1) = self.properties(props)?;
                        Some(from_properties(w0, w1).map_err(|e| self.unsupported(e))?)
                    }
                    DxOp::CreateHandleForLib => {
                        let a = call.arg(0).ok_or_else(|| self.invalid("missing operand"))?;
                        self.lib_resource(a)?
                            .and_then(|i| self.ranges.get(i))
                            .map(|r| r.handle)
                    }
                    _ => None,
                };
                self.set_handle(res, h)?
            }
            _ => false,
        })
    }

    /// The library resource a `createHandleForLib` operand loads, if known.
    fn lib_resource(&mut self, v: ValueId) -> R<Option<usize>> {
        let Some(ValueKind::Instruction(i)) = self.m.value(Some(self.body), v).map(|x| &x.kind)
        else {
            return Ok(None);
        };
        let Some(InstKind::Load { ptr, .. }) =
            self.body.instructions.get(*i as usize).map(|x| &x.kind)
        else {
            return Ok(None);
        };
        Ok(match self.root_of(*ptr)? {
            Some(Root::Resource(i)) => Some(i),
            _ => None,
        })
    }

    /// The two words of a `%dx.types.ResourceProperties` constant.
    pub fn properties(&self, v: ValueId) -> R<(u32, u32)> {
        let words: Vec<u32> = match self.constant(v) {
            Some(Constant::Aggregate(ids)) => ids
                .iter()
                .map(|i| self.const_int(*i).unwrap_or(0) as u32)
                .collect(),
            Some(Constant::Data(d)) => d.iter().map(|x| *x as u32).collect(),
            Some(Constant::Null) => vec![0, 0],
            _ => return Err(self.unsupported("resource properties that are not a constant")),
        };
        Ok((
            words.first().copied().unwrap_or(0),
            words.get(1).copied().unwrap_or(0),
        ))
    }

    /// The memory a pointer value points into, if known yet.
    pub fn root_of(&mut self, v: ValueId) -> R<Option<Root>> {
        if let Some(r) = self.roots.get(&v) {
            return Ok(Some(*r));
        }
        let val = self.value(v)?;
        match &val.kind {
            ValueKind::Global(_) => Ok(Some(self.global_ptr(v)?.root)),
            ValueKind::Constant(Constant::Gep { operands, .. }) => match operands.first() {
                Some(b) => self.root_of(*b),
                None => Err(self.invalid("constant getelementptr without a base")),
            },
            ValueKind::Constant(Constant::Cast {
                op: CastOp::BitCast | CastOp::AddrSpaceCast,
                value,
            }) => self.root_of(*value),
            _ => Ok(None),
        }
    }

    // ---- storage ------------------------------------------------------------------------

    /// Declares a per-lane array of `bytes` bytes (rounded up to 4).
    pub fn new_local(&mut self, bytes: u64, name: String) -> R<LocalId> {
        let bytes = layout::align_to(bytes.max(4), 4);
        let total: u64 = self
            .b
            .shader()
            .locals
            .iter()
            .map(|l| u64::from(l.bytes))
            .sum::<u64>()
            .saturating_add(bytes);
        if total > MAX_LOCAL_BYTES {
            return Err(self.unsupported(format!(
                "{total} bytes of thread-local arrays (more than {MAX_LOCAL_BYTES})"
            )));
        }
        let s = self.b.shader_mut();
        let id = LocalId(u32::try_from(s.locals.len()).unwrap_or(u32::MAX));
        s.locals.push(LocalArray {
            bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
            name,
        });
        Ok(id)
    }

    /// The pointer of a global variable, making its storage on first use: group shared
    /// memory for address space 3, a constant array for a constant with an initializer,
    /// a per-lane array (initialised at entry) for other globals of address space 0, the
    /// resource range for a library's resource global.
    pub fn global_ptr(&mut self, v: ValueId) -> R<Ptr> {
        if let Some(p) = self.globals.get(&v) {
            return Ok(*p);
        }
        let Some(ValueKind::Global(gi)) = self.m.values.get(v.index()).map(|x| &x.kind) else {
            return Err(self.invalid(format!("{v} is not a global")));
        };
        let g = self
            .m
            .globals
            .get(*gi as usize)
            .ok_or_else(|| self.invalid(format!("global {gi} does not exist")))?;
        let name = g.name.trim_start_matches('\u{1}').to_owned();
        // A resource record names its global directly or through a constant bitcast to
        // the resource's type (dxc's libraries do the latter).
        let m = self.m;
        let global_of = |sym: ValueId| {
            let mut x = sym;
            for _ in 0..4 {
                match m.values.get(x.index()).map(|y| &y.kind) {
                    Some(ValueKind::Constant(Constant::Cast {
                        op: CastOp::BitCast | CastOp::AddrSpaceCast,
                        value,
                    })) => x = *value,
                    _ => break,
                }
            }
            x
        };
        let ptr = if let Some(i) = self
            .ranges
            .iter()
            .position(|r| r.symbol.map(global_of) == Some(v))
        {
            Ptr {
                root: Root::Resource(i),
                reg: None,
                off: 0,
            }
        } else if g.address_space == 3 {
            let (size, align) = self.inv(self.dl.size_align(self.m, g.value_ty))?;
            let align = align.max(g.align).max(4);
            let top = u64::from(self.b.shader().groupshared_bytes);
            let at = layout::align_to(top, align);
            let end = at.saturating_add(size);
            if end > MAX_SHARED_BYTES {
                return Err(self.unsupported(format!(
                    "{end} bytes of group shared memory (more than {MAX_SHARED_BYTES})"
                )));
            }
            self.b.shader_mut().groupshared_bytes =
                u32::try_from(layout::align_to(end, 4)).unwrap_or(u32::MAX);
            Ptr {
                root: Root::Shared,
                reg: None,
                off: u32::try_from(at).unwrap_or(u32::MAX),
            }
        } else if g.address_space == 0 {
            let (size, _) = self.inv(self.dl.size_align(self.m, g.value_ty))?;
            let limit = if g.is_const {
                MAX_CONST_BYTES
            } else {
                MAX_LOCAL_BYTES
            };
            if size > limit {
                return Err(self.unsupported(format!(
                    "global @{name} of {size} bytes (more than {limit})"
                )));
            }
            let mut bytes = vec![0u8; usize::try_from(layout::align_to(size, 4)).unwrap_or(0)];
            if let Some(init) = g.initializer {
                self.const_bytes(init, g.value_ty, &mut bytes, 0)?;
            }
            let words: Vec<u32> = bytes
                .chunks(4)
                .map(|c| {
                    let mut w = [0u8; 4];
                    for (d, s) in w.iter_mut().zip(c) {
                        *d = *s;
                    }
                    u32::from_le_bytes(w)
                })
                .collect();
            if g.is_const {
                if g.initializer.is_none() {
                    return Err(
                        self.unsupported(format!("constant global @{name} without a value"))
                    );
                }
                let total: u64 = self
                    .b
                    .shader()
                    .const_arrays
                    .iter()
                    .map(|c| c.words.len() as u64 * 4)
                    .sum::<u64>()
                    .saturating_add(size);
                if total > MAX_CONST_BYTES {
                    return Err(self.unsupported(format!(
                        "{total} bytes of constant arrays (more than {MAX_CONST_BYTES})"
                    )));
                }
                let s = self.b.shader_mut();
                let id =
                    crate::ir::ConstId(u32::try_from(s.const_arrays.len()).unwrap_or(u32::MAX));
                s.const_arrays.push(ConstArray { words, name });
                Ptr {
                    root: Root::Const(id),
                    reg: None,
                    off: 0,
                }
            } else {
                let x = self.new_local(size, name)?;
                // The array starts zeroed; the initializer's other words are stored at
                // entry, four at a time.
                let zero = self.b.konst(0);
                let mut i = 0usize;
                while i < words.len() {
                    let chunk: Vec<u32> = words.iter().skip(i).take(4).copied().collect();
                    if chunk.iter().any(|w| *w != 0) {
                        let mut src = [Reg::NONE; 4];
                        for (s, w) in src.iter_mut().zip(&chunk) {
                            *s = self.b.konst(*w);
                        }
                        let mask = (1u8 << chunk.len()).wrapping_sub(1);
                        self.global_inits.push(Inst::LocalStore {
                            width: Width::B32,
                            mask,
                            array: x,
                            addr: zero,
                            offset: u32::try_from(i.saturating_mul(4)).unwrap_or(u32::MAX),
                            src,
                        });
                    }
                    i = i.saturating_add(4);
                }
                Ptr {
                    root: Root::Local(x),
                    reg: None,
                    off: 0,
                }
            }
        } else {
            return Err(self.unsupported(format!(
                "global @{name} in address space {}",
                g.address_space
            )));
        };
        self.globals.insert(v, ptr);
        Ok(ptr)
    }

    /// Writes a constant's bytes at `at` (little-endian, by the data layout).
    fn const_bytes(&self, v: ValueId, ty: TypeId, out: &mut [u8], at: u64) -> R<()> {
        let c = self
            .constant(v)
            .ok_or_else(|| self.unsupported("a global initializer that is not a constant"))?;
        let put = |out: &mut [u8], at: u64, bits: u64, n: u64| {
            for k in 0..n.min(8) {
                if let Some(b) = usize::try_from(at.saturating_add(k))
                    .ok()
                    .and_then(|i| out.get_mut(i))
                {
                    *b = (bits >> (8 * k)) as u8;
                }
            }
        };
        let elem = |t: TypeId, i: u64| -> R<(TypeId, u64)> {
            match self.typ(t)? {
                Type::Array { element, .. } | Type::Vector { element, .. } => {
                    let (s, _) = self.inv(self.dl.size_align(self.m, *element))?;
                    Ok((*element, s.saturating_mul(i)))
                }
                Type::Struct { elements, .. } => {
                    let e = *elements
                        .get(usize::try_from(i).unwrap_or(usize::MAX))
                        .ok_or_else(|| self.invalid("initializer past its struct"))?;
                    Ok((e, self.inv(self.dl.field_offset(self.m, t, i))?))
                }
                _ => Err(self.invalid("initializer elements for a scalar")),
            }
        };
        match c {
            Constant::Null | Constant::Undef => {}
            Constant::Int(i) => {
                let n = self.dl.store_size(self.m, ty).unwrap_or(4);
                let bits = if matches!(self.typ(ty)?, Type::Integer(1)) {
                    (*i as u64) & 1
                } else {
                    *i as u64
                };
                put(out, at, bits, n);
            }
            Constant::Float(bits) => {
                let n = self.dl.store_size(self.m, ty).unwrap_or(4);
                put(out, at, *bits, n);
            }
            Constant::Aggregate(ids) => {
                for (k, id) in ids.iter().enumerate() {
                    let (et, off) = elem(ty, k as u64)?;
                    self.const_bytes(*id, et, out, at.saturating_add(off))?;
                }
            }
            Constant::Data(words) => {
                for (k, w) in words.iter().enumerate() {
                    let (et, off) = elem(ty, k as u64)?;
                    let n = self.dl.store_size(self.m, et).unwrap_or(4);
                    put(out, at.saturating_add(off), *w, n);
                }
            }
            Constant::String(bytes) | Constant::CString(bytes) => {
                for (k, b) in bytes.iter().enumerate() {
                    let (_, off) = elem(ty, k as u64)?;
                    put(out, at.saturating_add(off), u64::from(*b), 1);
                }
            }
            _ => {
                return Err(self.unsupported("a global initializer holding a constant expression"));
            }
        }
        Ok(())
    }

    // ---- pointers -------------------------------------------------------------------------

    /// The pointer a value is: lowered pointers, globals, and constant expressions
    /// (`getelementptr`, `bitcast`, `addrspacecast` of a global).
    pub fn ptr_of(&mut self, v: ValueId) -> R<Ptr> {
        match self.vals.get(&v) {
            Some(Val::Ptr(p)) => return Ok(*p),
            Some(_) => return Err(self.invalid(format!("{} is not a pointer", self.name_of(v)))),
            None => {}
        }
        let val = self.value(v)?;
        match &val.kind {
            ValueKind::Global(_) => self.global_ptr(v),
            ValueKind::Constant(Constant::Gep {
                operands,
                source_ty,
                ..
            }) => {
                let (base, indices) = operands
                    .split_first()
                    .ok_or_else(|| self.invalid("constant getelementptr without a base"))?;
                let bp = self.ptr_of(*base)?;
                let src_ty = match source_ty {
                    Some(t) => *t,
                    None => self.pointee(self.ty(*base)?)?,
                };
                self.gep(bp, src_ty, indices)
            }
            ValueKind::Constant(Constant::Cast {
                op: CastOp::BitCast | CastOp::AddrSpaceCast,
                value,
            }) => self.ptr_of(*value),
            ValueKind::Constant(Constant::Null) => {
                Err(self.unsupported(format!("null pointer {}", self.name_of(v))))
            }
            _ => Err(self.unsupported(format!(
                "pointer {} whose memory is not known",
                self.name_of(v)
            ))),
        }
    }

    /// The pointee type of a pointer type.
    fn pointee(&self, t: TypeId) -> R<TypeId> {
        match self.typ(t)? {
            Type::Pointer { pointee, .. } => Ok(*pointee),
            _ => Err(self.invalid("not a pointer type")),
        }
    }

    /// The byte offset of a pointer in one register.
    pub fn materialize(&mut self, p: Ptr) -> Reg {
        match (p.reg, p.off) {
            (None, off) => self.b.konst(off),
            (Some(r), 0) => r,
            (Some(r), off) => {
                let k = self.b.konst(off);
                self.op2(|dst| Inst::IAdd { dst, a: r, b: k })
            }
        }
    }

    /// `getelementptr`: the first index steps over whole `source_ty`s, later ones into
    /// struct fields (constant), array and vector elements; each step is the element's
    /// allocation size by the data layout (vectors by dxc's rule, see `layout`).
    /// Constant indices fold into the pointer's constant offset; a variable one adds
    /// `index × step` (an `imad`) to its register.
    pub fn gep(&mut self, base: Ptr, source_ty: TypeId, indices: &[ValueId]) -> R<Ptr> {
        let mut p = base;
        let mut cur = source_ty;
        for (n, idx) in indices.iter().enumerate() {
            let step_ty = if n == 0 {
                cur
            } else {
                match self.typ(cur)? {
                    Type::Struct { .. } => {
                        let field = self
                            .const_int(*idx)
                            .ok_or_else(|| self.invalid("a struct index that is not a constant"))?;
                        let off = self.inv(self.dl.field_offset(self.m, cur, field as u64))?;
                        p.off = p.off.wrapping_add(off as u32);
                        cur = match self.typ(cur)? {
                            Type::Struct { elements, .. } => *elements
                                .get(usize::try_from(field).unwrap_or(usize::MAX))
                                .ok_or_else(|| self.invalid("struct index out of range"))?,
                            _ => cur,
                        };
                        continue;
                    }
                    Type::Array { element, .. } | Type::Vector { element, .. } => {
                        cur = *element;
                        *element
                    }
                    _ => return Err(self.invalid("getelementptr into a scalar")),
                }
            };
            let (step, _) = self.inv(self.dl.size_align(self.m, step_ty))?;
            let step = step as u32;
            if let Some(c) = self.const_int(*idx) {
                p.off = p.off.wrapping_add((c as u32).wrapping_mul(step));
            } else if self.is_undef(*idx) {
                continue;
            } else {
                let l = self.leaf(self.ty(*idx)?)?;
                let mut r = self.reg(*idx)?;
                if matches!(l, Leaf::I16 | Leaf::I8) {
                    // GEP indices are signed.
                    r = self.sext(r, if l == Leaf::I16 { 16 } else { 8 });
                }
                let k = self.b.konst(step);
                p.reg = Some(match p.reg {
                    Some(acc) => self.op2(|dst| Inst::IMad {
                        dst,
                        a: r,
                        b: k,
                        c: acc,
                    }),
                    None if step == 1 => r,
                    None => self.op2(|dst| Inst::IMul { dst, a: r, b: k }),
                });
            }
        }
        Ok(p)
    }

    /// The scalar pieces of a type in memory: each leaf with its byte offset.
    fn pieces(&self, ty: TypeId, at: u64, out: &mut Vec<(Leaf, u64)>, depth: u32) -> R<()> {
        if depth > 64 || out.len() > layout::MAX_LEAVES {
            return Err(self.unsupported("a memory access of too many values"));
        }
        if let Some(l) = Leaf::of(self.m, ty) {
            out.push((l, at));
            return Ok(());
        }
        match self.typ(ty)? {
            Type::Array { len, element } | Type::Vector { len, element } => {
                let (s, _) = self.inv(self.dl.size_align(self.m, *element))?;
                let mut one = Vec::new();
                self.pieces(*element, 0, &mut one, depth + 1)?;
                let total = (one.len() as u64).saturating_mul(*len);
                if total.saturating_add(out.len() as u64) > layout::MAX_LEAVES as u64 {
                    return Err(self.unsupported("a memory access of too many values"));
                }
                if one.is_empty() {
                    return Ok(());
                }
                for i in 0..*len {
                    let base = at.saturating_add(s.saturating_mul(i));
                    out.extend(one.iter().map(|(l, o)| (*l, base.saturating_add(*o))));
                }
            }
            Type::Struct { elements, .. } => {
                for (i, e) in elements.iter().enumerate() {
                    let off = self.inv(self.dl.field_offset(self.m, ty, i as u64))?;
                    self.pieces(*e, at.saturating_add(off), out, depth + 1)?;
                }
            }
            other => return Err(self.unsupported(format!("memory of type {other:?}"))),
        }
        Ok(())
    }

    /// The access width of a leaf in memory: 16-bit values take 2 bytes, booleans and
    /// 8-bit values a 4-byte slot (DXIL's layout gives `i1` and, without 16-bit types,
    /// `i8` an alignment of 4; an `i8` packed tighter is refused).
    fn width_of(&self, l: Leaf) -> R<Width> {
        Ok(match l {
            Leaf::I16 | Leaf::F16 => Width::B16,
            Leaf::I64 | Leaf::F64 => Width::B64,
            Leaf::I32 | Leaf::F32 | Leaf::Bool => Width::B32,
            Leaf::I8 => {
                let i8t = self
                    .m
                    .types
                    .iter()
                    .position(|t| *t == Type::Integer(8))
                    .map(|i| TypeId(u32::try_from(i).unwrap_or(u32::MAX)));
                let ok =
                    i8t.is_some_and(|t| self.dl.size_align(self.m, t).is_ok_and(|(s, _)| s >= 4));
                if !ok {
                    return Err(self.unsupported("8-bit memory access"));
                }
                Width::B32
            }
            Leaf::Handle | Leaf::Ptr => {
                return Err(self.unsupported("a handle or pointer stored in memory"));
            }
        })
    }

    /// Groups pieces into accesses of up to four components of one width at
    /// consecutive addresses: (width, byte offset, piece indices).
    fn group(&self, pieces: &[(Leaf, u64)]) -> R<Vec<(Width, u64, Vec<usize>)>> {
        let mut out: Vec<(Width, u64, Vec<usize>)> = Vec::new();
        for (i, (l, off)) in pieces.iter().enumerate() {
            let w = self.width_of(*l)?;
            let size = match w {
                Width::B16 => 2,
                Width::B32 => 4,
                Width::B64 => 8,
            };
            if let Some(last) = out.last_mut()
                && last.0 == w
                && last.2.len() < 4
                && last.1.saturating_add(size * last.2.len() as u64) == *off
            {
                last.2.push(i);
                continue;
            }
            out.push((w, *off, vec![i]));
        }
        Ok(out)
    }

    /// A load or store of one group.
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        p: Ptr,
        w: Width,
        off: u64,
        regs: [Reg; 4],
        mask: u8,
        store: bool,
    ) -> R<()> {
        let addr = p.reg.unwrap_or_else(|| self.b.konst(0));
        let offset = p.off.wrapping_add(off as u32);
        let inst = match (p.root, store) {
            (Root::Local(array), false) => Inst::LocalLoad {
                width: w,
                mask,
                dst: regs,
                array,
                addr,
                offset,
            },
            (Root::Local(array), true) => Inst::LocalStore {
                width: w,
                mask,
                array,
                addr,
                offset,
                src: regs,
            },
            (Root::Shared, false) => Inst::SharedLoad {
                width: w,
                mask,
                dst: regs,
                addr,
                offset,
            },
            (Root::Shared, true) => Inst::SharedStore {
                width: w,
                mask,
                addr,
                offset,
                src: regs,
            },
            (Root::Const(array), false) => Inst::ConstLoad {
                width: w,
                mask,
                dst: regs,
                array,
                addr,
                offset,
            },
            (Root::Const(_), true) => {
                return Err(self.unsupported("a store to a constant global"));
            }
            (Root::Resource(_), _) => {
                return Err(self.unsupported("a load or store of a library resource's memory"));
            }
        };
        self.emit(inst);
        Ok(())
    }

    // ---- instructions ----------------------------------------------------------------------

    /// Lowers `alloca`, `getelementptr`, `load`, `store`, `atomicrmw` and `cmpxchg`.
    pub fn memory(&mut self, inst: &'m Instruction) -> R<()> {
        let res = inst.result;
        match &inst.kind {
            InstKind::Alloca { .. } => {
                let v = res.ok_or_else(|| self.invalid("alloca without a result"))?;
                let x = *self
                    .allocas
                    .get(&v)
                    .ok_or_else(|| self.invalid("alloca not seen by the analysis"))?;
                self.define(
                    res,
                    Val::Ptr(Ptr {
                        root: Root::Local(x),
                        reg: None,
                        off: 0,
                    }),
                );
            }
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                let bp = self.ptr_of(*base)?;
                let p = self.gep(bp, *source_ty, indices)?;
                self.define(res, Val::Ptr(p));
            }
            InstKind::Load { ptr, atomic, .. } => {
                if atomic.is_some() {
                    return Err(self.unsupported("atomic load"));
                }
                let p = self.ptr_of(*ptr)?;
                if let Root::Resource(i) = p.root {
                    if Leaf::of(self.m, inst.ty) == Some(Leaf::Handle) {
                        let range = crate::ir::RangeId(u32::try_from(i).unwrap_or(u32::MAX));
                        let index = self.b.konst(0);
                        let dst = self.op2(|dst| Inst::Handle { dst, range, index });
                        self.define(res, Val::Regs(vec![dst]));
                    } else {
                        self.define(res, Val::Resource(i));
                    }
                    return Ok(());
                }
                let mut pieces = Vec::new();
                self.pieces(inst.ty, 0, &mut pieces, 0)?;
                let mut out: Vec<Reg> = pieces.iter().map(|(l, _)| self.fresh(*l)).collect();
                for (w, off, idx) in self.group(&pieces)? {
                    let mut regs = [Reg::NONE; 4];
                    for (slot, i) in regs.iter_mut().zip(&idx) {
                        *slot = self.inv(at(&out, *i))?;
                    }
                    let mask = (1u8 << idx.len()).wrapping_sub(1);
                    self.access(p, w, off, regs, mask, false)?;
                }
                // Booleans are stored as 0/1 words: make them IR booleans.
                for (i, (l, _)) in pieces.iter().enumerate() {
                    if *l == Leaf::Bool
                        && let Some(r) = out.get(i).copied()
                    {
                        let b = self.ne_zero(r);
                        if let Some(slot) = out.get_mut(i) {
                            *slot = b;
                        }
                    }
                }
                self.define(res, Val::Regs(out));
            }
            InstKind::Store {
                ptr, value, atomic, ..
            } => {
                if atomic.is_some() {
                    return Err(self.unsupported("atomic store"));
                }
                let p = self.ptr_of(*ptr)?;
                let ty = self.ty(*value)?;
                let mut pieces = Vec::new();
                self.pieces(ty, 0, &mut pieces, 0)?;
                let mut src = self.regs(*value)?;
                for (i, (l, _)) in pieces.iter().enumerate() {
                    if *l == Leaf::Bool
                        && let Some(r) = src.get(i).copied()
                    {
                        let one = self.and_k(r, 1);
                        if let Some(slot) = src.get_mut(i) {
                            *slot = one;
                        }
                    }
                }
                for (w, off, idx) in self.group(&pieces)? {
                    let mut regs = [Reg::NONE; 4];
                    for (slot, i) in regs.iter_mut().zip(&idx) {
                        *slot = self.inv(at(&src, *i))?;
                    }
                    let mask = (1u8 << idx.len()).wrapping_sub(1);
                    self.access(p, w, off, regs, mask, true)?;
                }
            }
            InstKind::AtomicRmw { op, ptr, value, .. } => {
                let p = self.ptr_of(*ptr)?;
                if p.root != Root::Shared {
                    return Err(self.unsupported("atomicrmw outside group shared memory"));
                }
                let aop = match op {
                    RmwOp::Xchg => AtomicOp::Exchange,
                    RmwOp::Add => AtomicOp::Add,
                    RmwOp::Sub => AtomicOp::Sub,
                    RmwOp::And => AtomicOp::And,
                    RmwOp::Or => AtomicOp::Or,
                    RmwOp::Xor => AtomicOp::Xor,
                    RmwOp::Max => AtomicOp::IMax,
                    RmwOp::Min => AtomicOp::IMin,
                    RmwOp::UMax => AtomicOp::UMax,
                    RmwOp::UMin => AtomicOp::UMin,
                    RmwOp::Nand => return Err(self.unsupported("atomicrmw nand")),
                };
                let l = self.leaf(self.ty(*value)?)?;
                let addr = self.materialize(p);
                let src = self.reg(*value)?;
                let dst = match l {
                    Leaf::I32 => self.op2(|dst| Inst::SharedAtomic {
                        op: aop,
                        dst,
                        addr,
                        src,
                    }),
                    Leaf::I64 => self.op64(|dst| Inst::SharedAtomic64 {
                        op: aop,
                        dst,
                        addr,
                        src,
                    }),
                    _ => return Err(self.unsupported(format!("atomicrmw on {l:?}"))),
                };
                self.define(res, Val::Regs(vec![dst]));
            }
            InstKind::CmpXchg { ptr, cmp, new, .. } => {
                let p = self.ptr_of(*ptr)?;
                if p.root != Root::Shared {
                    return Err(self.unsupported("cmpxchg outside group shared memory"));
                }
                let l = self.leaf(self.ty(*cmp)?)?;
                let addr = self.materialize(p);
                let c = self.reg(*cmp)?;
                let s = self.reg(*new)?;
                let (old, ok) = match l {
                    Leaf::I32 => {
                        let old = self.op2(|dst| Inst::SharedCmpXchg {
                            dst,
                            addr,
                            cmp: c,
                            src: s,
                        });
                        let ok = self.op2(|dst| Inst::ICmp {
                            cond: ICond::Eq,
                            dst,
                            a: old,
                            b: c,
                        });
                        (old, ok)
                    }
                    Leaf::I64 => {
                        let old = self.op64(|dst| Inst::SharedCmpXchg64 {
                            dst,
                            addr,
                            cmp: c,
                            src: s,
                        });
                        let ok = self.op2(|dst| Inst::I64Cmp {
                            cond: ICond::Eq,
                            dst,
                            a: old,
                            b: c,
                        });
                        (old, ok)
                    }
                    _ => return Err(self.unsupported(format!("cmpxchg on {l:?}"))),
                };
                self.define(res, Val::Regs(vec![old, ok]));
            }
            _ => return Err(self.invalid("not a memory instruction")),
        }
        Ok(())
    }
}
