//! Reading a FUNCTION_BLOCK: instructions (LLVM 3.7 `parseFunctionBody`), the
//! function's constants, local metadata, attachments, symbol table and use lists.
//!
//! With module version 1 an operand is stored relative to the next value id
//! (`id = next − op`, 32-bit wrapping); an operand that refers forward (to a value not
//! yet defined) is followed by its type. Phi operands are signed relative values.

use super::bitstream::{BlockEntry, BlockReader, Record};
use super::reader::{Check, Ops, Reader, decode_align, read_records};
use super::{
    BasicBlock, BinOp, BlockId, CastOp, DebugLoc, FunctionBody, InstKind, Instruction, LlvmError,
    MdId, Metadata, Operand, Ordering, Predicate, RmwOp, Type, TypeId, Value, ValueId, ValueKind,
    block, decode_signed,
};

/// Function-body reader state.
struct Body<'r> {
    r: &'r mut Reader,
    name: String,
    base: u32,
    values: Vec<Value>,
    insts: Vec<Instruction>,
    blocks: Vec<BasicBlock>,
    declared_blocks: Option<u32>,
    checks: Vec<Check>,
    md: Vec<Metadata>,
    md_checks: Vec<(u32, u64)>,
    md_base: u32,
    attachments: Vec<(u32, MdId)>,
    uselists: Vec<super::bitstream::OwnedRecord>,
    last_loc: Option<DebugLoc>,
    relative: bool,
    ret_ty: TypeId,
    /// Block names from the symbol table: (block, name, bit).
    bb_names: Vec<(u32, String, u64)>,
    names: Vec<(u32, String, u64)>,
    void_ty: Option<TypeId>,
    bool_ty: Option<TypeId>,
}

pub(super) fn read_body(
    r: &mut Reader,
    blk: BlockReader<'_, '_>,
    index: u32,
) -> Result<FunctionBody, LlvmError> {
    let bit = blk.start_bit();
    let f =
        r.m.functions
            .get(index as usize)
            .ok_or_else(|| LlvmError::Invalid {
                bit,
                block: "FUNCTION",
                what: "no function".into(),
            })?;
    let fty = f.ty;
    let name =
        r.m.values
            .get(f.value.index())
            .and_then(|v| v.name.clone())
            .unwrap_or_else(|| format!("<function {index}>"));
    let (ret_ty, params) = match r.m.types.get(fty.index()) {
        Some(Type::Function { ret, params, .. }) => (*ret, params.clone()),
        _ => {
            return Err(LlvmError::Invalid {
                bit,
                block: "FUNCTION",
                what: "function without a function type".into(),
            });
        }
    };
    let base = u32::try_from(r.m.values.len()).map_err(|_| LlvmError::Invalid {
        bit,
        block: "FUNCTION",
        what: "too many values".into(),
    })?;
    let md_base = u32::try_from(r.m.metadata.len()).unwrap_or(u32::MAX);
    let relative = r.m.version >= 1;
    let void_ty =
        r.m.types
            .iter()
            .position(|t| *t == Type::Void)
            .and_then(|i| u32::try_from(i).ok())
            .map(TypeId);
    let mut b = Body {
        r,
        name,
        base,
        values: Vec::with_capacity(params.len().saturating_add(64)),
        insts: Vec::new(),
        blocks: Vec::new(),
        declared_blocks: None,
        checks: Vec::new(),
        md: Vec::new(),
        md_checks: Vec::new(),
        md_base,
        attachments: Vec::new(),
        uselists: Vec::new(),
        last_loc: None,
        relative,
        ret_ty,
        bb_names: Vec::new(),
        names: Vec::new(),
        void_ty,
        bool_ty: None,
    };
    let mut args = Vec::with_capacity(params.len());
    for (i, p) in params.iter().enumerate() {
        args.push(ValueId(
            base.saturating_add(u32::try_from(i).unwrap_or(u32::MAX)),
        ));
        b.values.push(Value {
            ty: *p,
            kind: ValueKind::Argument(u32::try_from(i).unwrap_or(u32::MAX)),
            name: None,
        });
    }
    b.read(blk)?;
    b.finish(bit, args)
}

impl Body<'_> {
    fn err(&self, bit: u64, what: impl Into<String>) -> LlvmError {
        LlvmError::Function {
            function: self.name.clone(),
            inst: u32::try_from(self.insts.len()).unwrap_or(u32::MAX),
            bit,
            what: what.into(),
        }
    }

    fn next_id(&self) -> u32 {
        self.base
            .saturating_add(u32::try_from(self.values.len()).unwrap_or(u32::MAX))
    }

    fn vty(&self, id: u32) -> Option<TypeId> {
        match id.checked_sub(self.base) {
            None => self.r.m.values.get(id as usize).map(|v| v.ty),
            Some(i) => self.values.get(i as usize).map(|v| v.ty),
        }
    }

    fn ty(&self, t: TypeId, bit: u64) -> Result<&Type, LlvmError> {
        self.r
            .m
            .types
            .get(t.index())
            .ok_or_else(|| self.err(bit, format!("type index {} out of range", t.0)))
    }

    fn type_id(&self, v: u64, bit: u64) -> Result<TypeId, LlvmError> {
        match u32::try_from(v) {
            Ok(i) if (i as usize) < self.r.m.types.len() => Ok(TypeId(i)),
            _ => Err(self.err(
                bit,
                format!(
                    "type index {v} out of range ({} types)",
                    self.r.m.types.len()
                ),
            )),
        }
    }

    fn void(&mut self) -> TypeId {
        match self.void_ty {
            Some(t) => t,
            None => {
                let t = self.r.intern(Type::Void);
                self.void_ty = Some(t);
                t
            }
        }
    }

    fn i1(&mut self) -> TypeId {
        match self.bool_ty {
            Some(t) => t,
            None => {
                let t = self.r.intern(Type::Integer(1));
                self.bool_ty = Some(t);
                t
            }
        }
    }

    /// The absolute id of a stored (possibly relative) operand.
    fn abs(&self, v: u64, bit: u64) -> Result<u32, LlvmError> {
        let v = u32::try_from(v)
            .map_err(|_| self.err(bit, format!("value operand {v} out of range")))?;
        Ok(if self.relative {
            self.next_id().wrapping_sub(v)
        } else {
            v
        })
    }

    /// A value whose type the record implies (LLVM `getValue`/`popValue`).
    fn val(
        &mut self,
        o: &Ops<'_>,
        i: &mut usize,
        ty: TypeId,
        what: &'static str,
    ) -> Result<ValueId, LlvmError> {
        let id = self.abs(o.get(*i)?, o.bit)?;
        *i = i.saturating_add(1);
        self.use_value(id, ty, o.bit, what)
    }

    fn use_value(
        &mut self,
        id: u32,
        ty: TypeId,
        bit: u64,
        what: &'static str,
    ) -> Result<ValueId, LlvmError> {
        match self.vty(id) {
            Some(t) if t != ty => {
                return Err(self.err(
                    bit,
                    format!("{what}: value {id} has type {t}, {ty} is required"),
                ));
            }
            Some(_) => {}
            None => self.checks.push(Check {
                id,
                ty: Some(ty),
                bit,
                what,
            }),
        }
        Ok(ValueId(id))
    }

    /// A value followed by its type when it is a forward reference (LLVM
    /// `getValueTypePair`).
    fn val_ty(
        &mut self,
        o: &Ops<'_>,
        i: &mut usize,
        what: &'static str,
    ) -> Result<(ValueId, TypeId), LlvmError> {
        let id = self.abs(o.get(*i)?, o.bit)?;
        *i = i.saturating_add(1);
        if id < self.next_id() {
            let t = self
                .vty(id)
                .ok_or_else(|| self.err(o.bit, format!("{what}: value {id} does not exist")))?;
            Ok((ValueId(id), t))
        } else {
            let t = self.type_id(o.get(*i)?, o.bit)?;
            *i = i.saturating_add(1);
            self.checks.push(Check {
                id,
                ty: Some(t),
                bit: o.bit,
                what,
            });
            Ok((ValueId(id), t))
        }
    }

    fn block_ref(&self, v: u64, bit: u64) -> Result<BlockId, LlvmError> {
        let n = self.declared_blocks.unwrap_or(0);
        match u32::try_from(v) {
            Ok(b) if b < n => Ok(BlockId(b)),
            _ => Err(self.err(bit, format!("branch to block {v} of {n}"))),
        }
    }

    fn read(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        loop {
            // DECLAREBLOCKS is bounded by the bits left before its record.
            let left = blk.bits_left()?;
            let Some(entry) = blk.next_entry()? else {
                return Ok(());
            };
            match entry {
                BlockEntry::Block(b) => match b.id() {
                    block::CONSTANTS => {
                        let base = self.next_id();
                        let mut values = std::mem::take(&mut self.values);
                        let mut checks = std::mem::take(&mut self.checks);
                        let res = self.r.read_constants(
                            b,
                            &mut values,
                            base,
                            &mut checks,
                            Some(&self.name),
                        );
                        self.values = values;
                        self.checks = checks;
                        res?;
                    }
                    block::METADATA => {
                        let base = self
                            .md_base
                            .saturating_add(u32::try_from(self.md.len()).unwrap_or(u32::MAX));
                        let mut md = std::mem::take(&mut self.md);
                        let mut mdc = std::mem::take(&mut self.md_checks);
                        let mut checks = std::mem::take(&mut self.checks);
                        let res =
                            self.r
                                .read_metadata(b, &mut md, base, &mut mdc, &mut checks, false);
                        self.md = md;
                        self.md_checks = mdc;
                        self.checks = checks;
                        res?;
                    }
                    block::METADATA_ATTACHMENT => self.read_attachments(b)?,
                    block::VALUE_SYMTAB => self.read_vst(b)?,
                    block::USELIST => {
                        let recs = read_records(b)?;
                        self.uselists.extend(recs);
                    }
                    // Other blocks are skipped.
                    _ => {}
                },
                BlockEntry::Record(rec) => {
                    self.record(&rec, left)?;
                }
            }
        }
    }

    fn record(&mut self, rec: &Record<'_, '_>, bits_left: u64) -> Result<(), LlvmError> {
        let o = Ops::new(rec, "FUNCTION_BLOCK");
        match rec.code {
            1 => {
                // DECLAREBLOCKS: [n]. Each block needs at least one record of at least
                // two bits, so n is bounded by the bits left in the function block.
                let n = o.get(0)?;
                if self.declared_blocks.is_some() {
                    return Err(self.err(o.bit, "second DECLAREBLOCKS"));
                }
                if n == 0 || n > bits_left.saturating_add(2) / 2 {
                    return Err(self.err(o.bit, format!("{n} blocks declared")));
                }
                let n32 = u32::try_from(n).map_err(|_| self.err(o.bit, "block count"))?;
                self.declared_blocks = Some(n32);
                self.blocks.reserve(usize::try_from(n).unwrap_or(0));
                self.blocks.push(BasicBlock {
                    name: None,
                    start: 0,
                    end: 0,
                });
                Ok(())
            }
            35 => {
                // DEBUG_LOC: [line, col, scope + 1, inlined-at + 1]
                let md = |v: u64, s: &mut Self| -> Result<Option<MdId>, LlvmError> {
                    if v == 0 {
                        return Ok(None);
                    }
                    let id = u32::try_from(v.saturating_sub(1))
                        .map_err(|_| s.err(o.bit, "metadata id"))?;
                    s.md_checks.push((id, o.bit));
                    Ok(Some(MdId(id)))
                };
                let loc = DebugLoc {
                    line: o.u32(0)?,
                    column: o.u32(1)?,
                    scope: md(o.get(2)?, self)?,
                    inlined_at: md(o.opt(3), self)?,
                };
                let last = self.insts.last_mut().ok_or_else(|| LlvmError::Function {
                    function: String::new(),
                    inst: 0,
                    bit: o.bit,
                    what: "DEBUG_LOC before any instruction".into(),
                })?;
                last.debug_loc = Some(loc);
                self.last_loc = Some(loc);
                Ok(())
            }
            33 => {
                let loc = self.last_loc;
                let last = self.insts.last_mut();
                match (last, loc) {
                    (Some(i), Some(l)) => {
                        i.debug_loc = Some(l);
                        i.debug_loc_again = true;
                        Ok(())
                    }
                    _ => Err(self.err(
                        o.bit,
                        "DEBUG_LOC_AGAIN without a previous location or instruction",
                    )),
                }
            }
            55 => Ok(()),
            _ => self.instruction(&o, rec.code),
        }
    }

    fn instruction(&mut self, o: &Ops<'_>, code: u32) -> Result<(), LlvmError> {
        let n = self
            .declared_blocks
            .ok_or_else(|| self.err(o.bit, "instruction before DECLAREBLOCKS"))?;
        if self.blocks.len() > n as usize
            || (self.blocks.len() == n as usize && self.block_closed())
        {
            return Err(self.err(o.bit, "instruction after the last declared block"));
        }
        let bit = o.bit;
        let mut i = 0usize;
        let (kind, ty) = match code {
            2 => {
                // BINOP: [lhs+ty, rhs, opcode, flags?]
                let (lhs, t) = self.val_ty(o, &mut i, "binary operand")?;
                let rhs = self.val(o, &mut i, t, "binary operand")?;
                let op = BinOp::from_code(o.get(i)?)
                    .ok_or_else(|| self.err(bit, "unknown binary operator"))?;
                i = i.saturating_add(1);
                let tt = self.scalar_of(t, bit)?;
                let (tt_float, tt_int) = (tt.is_float(), tt.is_integer());
                if tt_float {
                    if !op.allows_float() {
                        return Err(self.err(bit, format!("{} on float operands", op.name(false))));
                    }
                } else if !tt_int {
                    return Err(self.err(bit, "binary operator on non-numeric operands"));
                }
                let flags =
                    u8::try_from(o.opt(i)).map_err(|_| self.err(bit, "binary operator flags"))?;
                if o.len() > i.saturating_add(1) {
                    return Err(self.err(bit, "extra operands"));
                }
                i = o.len();
                (
                    InstKind::Binary {
                        op,
                        lhs,
                        rhs,
                        flags,
                    },
                    t,
                )
            }
            3 => {
                // CAST: [opval+ty, destty, castopc]
                let (value, from) = self.val_ty(o, &mut i, "cast operand")?;
                let to = self.type_id(o.get(i)?, bit)?;
                let op = CastOp::from_code(o.get(i.saturating_add(1))?)
                    .ok_or_else(|| self.err(bit, "unknown cast"))?;
                i = i.saturating_add(2);
                self.check_cast(op, from, to, bit)?;
                (InstKind::Cast { op, value }, to)
            }
            9 | 28 => {
                // CMP / CMP2: [lhs+ty, rhs, pred, flags?]
                let (lhs, t) = self.val_ty(o, &mut i, "comparison operand")?;
                let rhs = self.val(o, &mut i, t, "comparison operand")?;
                let p = u8::try_from(o.get(i)?).map_err(|_| self.err(bit, "predicate"))?;
                i = i.saturating_add(1);
                let pred = Predicate(p);
                let st = self.scalar_of(t, bit)?;
                let ok = (pred.is_float() && st.is_float())
                    || (pred.is_int() && (st.is_integer() || st.is_pointer()));
                if !ok {
                    return Err(self.err(bit, format!("predicate {p} on operands of type {t}")));
                }
                let flags = u8::try_from(o.opt(i)).unwrap_or(0);
                i = o.len();
                let rt = self.bool_like(t, bit)?;
                (
                    InstKind::Cmp {
                        pred,
                        lhs,
                        rhs,
                        flags,
                    },
                    rt,
                )
            }
            29 => {
                // VSELECT: [t+ty, f, cond+ty]
                let (if_true, t) = self.val_ty(o, &mut i, "select operand")?;
                let if_false = self.val(o, &mut i, t, "select operand")?;
                let (cond, ct) = self.val_ty(o, &mut i, "select condition")?;
                let ok = match self.ty(ct, bit)? {
                    Type::Integer(1) => true,
                    Type::Vector { element, .. } => {
                        matches!(self.ty(*element, bit)?, Type::Integer(1))
                    }
                    _ => false,
                };
                if !ok {
                    return Err(self.err(bit, "select condition is not i1"));
                }
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    t,
                )
            }
            5 => {
                // SELECT (old): [ty, opval, opval, opval]
                let (if_true, t) = self.val_ty(o, &mut i, "select operand")?;
                let if_false = self.val(o, &mut i, t, "select operand")?;
                let b1 = self.i1();
                let cond = self.val(o, &mut i, b1, "select condition")?;
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    t,
                )
            }
            6 => {
                let (vector, vt) = self.val_ty(o, &mut i, "extractelement vector")?;
                let (index, it) = self.val_ty(o, &mut i, "extractelement index")?;
                let et = self.vector_element(vt, bit)?;
                if !self.ty(it, bit)?.is_integer() {
                    return Err(self.err(bit, "extractelement index is not an integer"));
                }
                (InstKind::ExtractElement { vector, index }, et)
            }
            7 => {
                let (vector, vt) = self.val_ty(o, &mut i, "insertelement vector")?;
                let et = self.vector_element(vt, bit)?;
                let element = self.val(o, &mut i, et, "insertelement element")?;
                let (index, it) = self.val_ty(o, &mut i, "insertelement index")?;
                if !self.ty(it, bit)?.is_integer() {
                    return Err(self.err(bit, "insertelement index is not an integer"));
                }
                (
                    InstKind::InsertElement {
                        vector,
                        element,
                        index,
                    },
                    vt,
                )
            }
            8 => {
                let (a, vt) = self.val_ty(o, &mut i, "shufflevector operand")?;
                let et = self.vector_element(vt, bit)?;
                let b = self.val(o, &mut i, vt, "shufflevector operand")?;
                let (mask, mt) = self.val_ty(o, &mut i, "shufflevector mask")?;
                let len = match self.ty(mt, bit)? {
                    Type::Vector { len, .. } => *len,
                    _ => return Err(self.err(bit, "shufflevector mask is not a vector")),
                };
                let rt = self.r.intern(Type::Vector { len, element: et });
                (InstKind::ShuffleVector { a, b, mask }, rt)
            }
            26 => {
                let (aggregate, at) = self.val_ty(o, &mut i, "extractvalue aggregate")?;
                let indices = self.indices(o, i, bit)?;
                i = o.len();
                let rt = self.member_type(at, &indices, bit)?;
                (InstKind::ExtractValue { aggregate, indices }, rt)
            }
            27 => {
                let (aggregate, at) = self.val_ty(o, &mut i, "insertvalue aggregate")?;
                let (value, vt) = self.val_ty(o, &mut i, "insertvalue value")?;
                let indices = self.indices(o, i, bit)?;
                i = o.len();
                let mt = self.member_type(at, &indices, bit)?;
                if mt != vt {
                    return Err(self.err(bit, "insertvalue value does not match the member type"));
                }
                (
                    InstKind::InsertValue {
                        aggregate,
                        value,
                        indices,
                    },
                    at,
                )
            }
            16 => {
                // PHI: [ty, (signed value, block)*]
                let t = self.type_id(o.get(0)?, bit)?;
                if !self.ty(t, bit)?.is_first_class() {
                    return Err(self.err(bit, "phi of a non-first-class type"));
                }
                if o.len() % 2 != 1 {
                    return Err(self.err(bit, "phi with an odd number of incoming operands"));
                }
                let mut incoming = Vec::with_capacity(o.len() / 2);
                let mut k = 1usize;
                while k < o.len() {
                    let rel = decode_signed(o.get(k)?);
                    let id = if self.relative {
                        i64::from(self.next_id()).checked_sub(rel)
                    } else {
                        Some(rel)
                    };
                    let id = id
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| self.err(bit, "phi value id out of range"))?;
                    let v = self.use_value(id, t, bit, "phi incoming value")?;
                    let bb = self.block_ref(o.get(k.saturating_add(1))?, bit)?;
                    incoming.push((v, bb));
                    k = k.saturating_add(2);
                }
                i = o.len();
                (InstKind::Phi { incoming }, t)
            }
            11 => {
                // BR: [bb] or [bb, bb, cond]
                let v = self.void();
                if o.len() == 1 {
                    i = 1;
                    (
                        InstKind::Br {
                            target: self.block_ref(o.get(0)?, bit)?,
                        },
                        v,
                    )
                } else {
                    let if_true = self.block_ref(o.get(0)?, bit)?;
                    let if_false = self.block_ref(o.get(1)?, bit)?;
                    let b1 = self.i1();
                    i = 2;
                    let cond = self.val(o, &mut i, b1, "branch condition")?;
                    (
                        InstKind::CondBr {
                            cond,
                            if_true,
                            if_false,
                        },
                        v,
                    )
                }
            }
            12 => {
                // SWITCH: [opty, cond, default, (case value id, block)*]
                let t = self.type_id(o.get(0)?, bit)?;
                if !self.ty(t, bit)?.is_integer() {
                    return Err(self.err(bit, "switch on a non-integer"));
                }
                i = 1;
                let cond = self.val(o, &mut i, t, "switch condition")?;
                let default = self.block_ref(o.get(i)?, bit)?;
                i = i.saturating_add(1);
                if (o.len().saturating_sub(i)) % 2 != 0 {
                    return Err(self.err(bit, "switch with an odd number of case operands"));
                }
                let mut cases = Vec::with_capacity(o.len().saturating_sub(i) / 2);
                while i < o.len() {
                    let id = o.u32(i)?;
                    self.checks.push(Check {
                        id,
                        ty: Some(t),
                        bit,
                        what: "switch case value",
                    });
                    let bb = self.block_ref(o.get(i.saturating_add(1))?, bit)?;
                    cases.push((ValueId(id), bb));
                    i = i.saturating_add(2);
                }
                let v = self.void();
                (
                    InstKind::Switch {
                        cond,
                        default,
                        cases,
                    },
                    v,
                )
            }
            10 => {
                // RET: [] or [value+ty]
                let v = self.void();
                let value = if o.len() == 0 {
                    if !matches!(self.ty(self.ret_ty, bit)?, Type::Void) {
                        return Err(
                            self.err(bit, "ret without a value in a function that returns one")
                        );
                    }
                    None
                } else {
                    let (val, t) = self.val_ty(o, &mut i, "return value")?;
                    if t != self.ret_ty {
                        return Err(self.err(
                            bit,
                            format!("ret of type {t} in a function returning {}", self.ret_ty),
                        ));
                    }
                    Some(val)
                };
                (InstKind::Ret { value }, v)
            }
            15 => (InstKind::Unreachable, self.void()),
            34 => self.call(o, &mut i)?,
            19 => {
                // ALLOCA: [instty, opty, op (absolute), align]
                let t = self.type_id(o.get(0)?, bit)?;
                let size_ty = self.type_id(o.get(1)?, bit)?;
                let size = o.u32(2)?;
                let size = self.use_value(size, size_ty, bit, "alloca size")?;
                let raw = o.get(3)?;
                let inalloca = raw & (1 << 5) != 0;
                let explicit = raw & (1 << 6) != 0;
                let allocated = if explicit {
                    t
                } else {
                    match self.ty(t, bit)? {
                        Type::Pointer { pointee, .. } => *pointee,
                        _ => return Err(self.err(bit, "alloca type is not a pointer")),
                    }
                };
                if !self.ty(allocated, bit)?.is_first_class() {
                    return Err(self.err(bit, "alloca of a type that cannot be stored"));
                }
                let align =
                    decode_align(raw & 0x1f).ok_or_else(|| self.err(bit, "alloca alignment"))?;
                i = o.len();
                let rt = self.r.pointer_to(allocated, 0);
                (
                    InstKind::Alloca {
                        allocated,
                        size,
                        align,
                        inalloca,
                        raw_align: raw,
                    },
                    rt,
                )
            }
            20 | 41 => {
                // LOAD: [ptr+ty, ty?, align, vol]; LOADATOMIC adds ordering, scope.
                let (ptr, pt) = self.val_ty(o, &mut i, "load pointer")?;
                let tail = if code == 20 { 2 } else { 4 };
                let pointee = self.pointee(pt, bit)?;
                let t = if o.len() == i.saturating_add(tail).saturating_add(1) {
                    let t = self.type_id(o.get(i)?, bit)?;
                    i = i.saturating_add(1);
                    t
                } else {
                    pointee
                };
                if t != pointee {
                    return Err(
                        self.err(bit, format!("load of {t} through a pointer to {pointee}"))
                    );
                }
                if !self.ty(t, bit)?.is_first_class() {
                    return Err(self.err(bit, "load of a type that cannot be loaded"));
                }
                let align =
                    decode_align(o.get(i)?).ok_or_else(|| self.err(bit, "load alignment"))?;
                let volatile = o.get(i.saturating_add(1))? != 0;
                let atomic = if code == 41 {
                    Some(self.ordering(o, i.saturating_add(2))?)
                } else {
                    None
                };
                i = o.len();
                (
                    InstKind::Load {
                        ptr,
                        align,
                        volatile,
                        atomic,
                    },
                    t,
                )
            }
            44 | 45 | 24 | 42 => {
                // STORE: [ptr+ty, val+ty, align, vol]; STORE_OLD: [ptr+ty, val, align, vol];
                // STOREATOMIC adds ordering, scope.
                let (ptr, pt) = self.val_ty(o, &mut i, "store pointer")?;
                let pointee = self.pointee(pt, bit)?;
                let value = if code == 44 || code == 45 {
                    let (v, vt) = self.val_ty(o, &mut i, "stored value")?;
                    if vt != pointee {
                        return Err(
                            self.err(bit, format!("store of {vt} through a pointer to {pointee}"))
                        );
                    }
                    v
                } else {
                    self.val(o, &mut i, pointee, "stored value")?
                };
                let align =
                    decode_align(o.get(i)?).ok_or_else(|| self.err(bit, "store alignment"))?;
                let volatile = o.get(i.saturating_add(1))? != 0;
                let atomic = if code == 45 || code == 42 {
                    Some(self.ordering(o, i.saturating_add(2))?)
                } else {
                    None
                };
                i = o.len();
                let v = self.void();
                (
                    InstKind::Store {
                        ptr,
                        value,
                        align,
                        volatile,
                        atomic,
                    },
                    v,
                )
            }
            43 | 4 | 30 => self.gep(o, code, &mut i)?,
            38 => {
                // ATOMICRMW: [ptr+ty, val, op, vol, ordering, scope]
                let (ptr, pt) = self.val_ty(o, &mut i, "atomicrmw pointer")?;
                let t = self.pointee(pt, bit)?;
                if !self.ty(t, bit)?.is_integer() {
                    return Err(self.err(bit, "atomicrmw on a non-integer"));
                }
                let value = self.val(o, &mut i, t, "atomicrmw operand")?;
                let op = RmwOp::from_code(o.get(i)?)
                    .ok_or_else(|| self.err(bit, "unknown atomicrmw operation"))?;
                let volatile = o.get(i.saturating_add(1))? != 0;
                let (ordering, scope) = self.ordering(o, i.saturating_add(2))?;
                i = o.len();
                (
                    InstKind::AtomicRmw {
                        op,
                        ptr,
                        value,
                        volatile,
                        ordering,
                        scope,
                    },
                    t,
                )
            }
            46 | 37 => {
                // CMPXCHG: [ptr+ty, cmp+ty, new, vol, success, scope, failure, weak]
                let (ptr, pt) = self.val_ty(o, &mut i, "cmpxchg pointer")?;
                let t = self.pointee(pt, bit)?;
                let cmp = if code == 46 {
                    let (c, ct) = self.val_ty(o, &mut i, "cmpxchg comparand")?;
                    if ct != t {
                        return Err(self.err(bit, "cmpxchg comparand does not match the pointee"));
                    }
                    c
                } else {
                    self.val(o, &mut i, t, "cmpxchg comparand")?
                };
                let new = self.val(o, &mut i, t, "cmpxchg new value")?;
                let volatile = o.get(i)? != 0;
                let (success, scope) = self.ordering(o, i.saturating_add(1))?;
                let failure = Ordering(u8::try_from(o.opt(i.saturating_add(3))).unwrap_or(0));
                let weak = o.opt(i.saturating_add(4)) != 0;
                i = o.len();
                let rt = if code == 46 {
                    let b1 = self.i1();
                    self.r.intern(Type::Struct {
                        name: None,
                        packed: false,
                        elements: vec![t, b1],
                        opaque: false,
                    })
                } else {
                    t
                };
                (
                    InstKind::CmpXchg {
                        ptr,
                        cmp,
                        new,
                        volatile,
                        success,
                        scope,
                        failure,
                        weak,
                    },
                    rt,
                )
            }
            36 => {
                let (ordering, scope) = self.ordering(o, 0)?;
                i = o.len();
                let v = self.void();
                (InstKind::Fence { ordering, scope }, v)
            }
            c => return Err(self.err(bit, format!("unsupported instruction record {c}"))),
        };
        if i != o.len() {
            return Err(self.err(
                bit,
                format!(
                    "instruction record has {} operands, {i} were expected",
                    o.len()
                ),
            ));
        }
        let index =
            u32::try_from(self.insts.len()).map_err(|_| self.err(bit, "too many instructions"))?;
        let result = if matches!(self.ty(ty, bit)?, Type::Void) {
            None
        } else {
            let id = self.next_id();
            self.values.push(Value {
                ty,
                kind: ValueKind::Instruction(index),
                name: None,
            });
            Some(ValueId(id))
        };
        let terminator = kind.is_terminator();
        self.insts.push(Instruction {
            kind,
            ty,
            result,
            debug_loc: None,
            debug_loc_again: false,
            attachments: Vec::new(),
            bit,
        });
        if terminator {
            let end = u32::try_from(self.insts.len()).unwrap_or(u32::MAX);
            if let Some(b) = self.blocks.last_mut() {
                b.end = end;
            }
            if self.blocks.len() < n as usize {
                self.blocks.push(BasicBlock {
                    name: None,
                    start: end,
                    end,
                });
            }
        }
        Ok(())
    }

    /// Whether the last block has its terminator.
    fn block_closed(&self) -> bool {
        match (self.blocks.last(), self.insts.last()) {
            (Some(b), Some(i)) => {
                b.end > b.start && i.kind.is_terminator() && b.end as usize == self.insts.len()
            }
            _ => false,
        }
    }

    fn ordering(&self, o: &Ops<'_>, i: usize) -> Result<(Ordering, u8), LlvmError> {
        let ord = o.get(i)?;
        let scope = o.get(i.saturating_add(1))?;
        if ord > 6 || scope > 1 {
            return Err(self.err(o.bit, format!("atomic ordering {ord} / scope {scope}")));
        }
        Ok((
            Ordering(u8::try_from(ord).unwrap_or(0)),
            u8::try_from(scope).unwrap_or(0),
        ))
    }

    fn indices(&self, o: &Ops<'_>, from: usize, bit: u64) -> Result<Vec<u32>, LlvmError> {
        let v = (from..o.len())
            .map(|k| o.u32(k))
            .collect::<Result<Vec<_>, _>>()?;
        if v.is_empty() {
            return Err(self.err(bit, "aggregate operation without indices"));
        }
        Ok(v)
    }

    fn member_type(&self, mut t: TypeId, indices: &[u32], bit: u64) -> Result<TypeId, LlvmError> {
        for &k in indices {
            t = match self.ty(t, bit)? {
                Type::Struct { elements, .. } => *elements
                    .get(k as usize)
                    .ok_or_else(|| self.err(bit, format!("struct index {k} out of range")))?,
                Type::Array { len, element } => {
                    if u64::from(k) >= *len {
                        return Err(self.err(bit, format!("array index {k} out of range")));
                    }
                    *element
                }
                _ => return Err(self.err(bit, "index into a non-aggregate")),
            };
        }
        Ok(t)
    }

    /// The element type of a vector, or the type itself.
    fn scalar_of(&self, t: TypeId, bit: u64) -> Result<&Type, LlvmError> {
        match self.ty(t, bit)? {
            Type::Vector { element, .. } => self.ty(*element, bit),
            other => Ok(other),
        }
    }

    fn vector_element(&self, t: TypeId, bit: u64) -> Result<TypeId, LlvmError> {
        match self.ty(t, bit)? {
            Type::Vector { element, .. } => Ok(*element),
            _ => Err(self.err(bit, "vector operation on a non-vector")),
        }
    }

    fn pointee(&self, t: TypeId, bit: u64) -> Result<TypeId, LlvmError> {
        match self.ty(t, bit)? {
            Type::Pointer { pointee, .. } => Ok(*pointee),
            _ => Err(self.err(bit, format!("{t} is not a pointer"))),
        }
    }

    /// `i1`, or `<n x i1>` for a vector operand.
    fn bool_like(&mut self, t: TypeId, bit: u64) -> Result<TypeId, LlvmError> {
        let len = match self.ty(t, bit)? {
            Type::Vector { len, .. } => Some(*len),
            _ => None,
        };
        let b1 = self.i1();
        Ok(match len {
            Some(len) => self.r.intern(Type::Vector { len, element: b1 }),
            None => b1,
        })
    }

    /// Cast operand and result kinds (LLVM `CastInst::castIsValid`, simplified to the
    /// scalar/vector kind and width rules).
    fn check_cast(&self, op: CastOp, from: TypeId, to: TypeId, bit: u64) -> Result<(), LlvmError> {
        let len = |t: &Type| match t {
            Type::Vector { len, .. } => Some(*len),
            _ => None,
        };
        let (ft, tt) = (self.ty(from, bit)?, self.ty(to, bit)?);
        if len(ft) != len(tt) && op != CastOp::BitCast {
            return Err(self.err(bit, "cast between vectors of different lengths"));
        }
        let (fs, ts) = (self.scalar_of(from, bit)?, self.scalar_of(to, bit)?);
        use CastOp::*;
        let ok = match op {
            Trunc => matches!((fs.int_width(), ts.int_width()), (Some(a), Some(b)) if a > b),
            ZExt | SExt => matches!((fs.int_width(), ts.int_width()), (Some(a), Some(b)) if a < b),
            FpToUi | FpToSi => fs.is_float() && ts.is_integer(),
            UiToFp | SiToFp => fs.is_integer() && ts.is_float(),
            FpTrunc => matches!((fs.float_bits(), ts.float_bits()), (Some(a), Some(b)) if a > b),
            FpExt => matches!((fs.float_bits(), ts.float_bits()), (Some(a), Some(b)) if a < b),
            PtrToInt => fs.is_pointer() && ts.is_integer(),
            IntToPtr => fs.is_integer() && ts.is_pointer(),
            BitCast => {
                (fs.is_pointer() && ts.is_pointer())
                    || (!fs.is_pointer()
                        && !ts.is_pointer()
                        && ft.is_first_class()
                        && tt.is_first_class()
                        && {
                            let bits = |t: &Type, s: &Type| {
                                let per = s.int_width().or_else(|| s.float_bits()).map(u64::from);
                                per.map(|p| p.saturating_mul(len(t).unwrap_or(1)))
                            };
                            bits(ft, fs).is_some() && bits(ft, fs) == bits(tt, ts)
                        })
            }
            AddrSpaceCast => fs.is_pointer() && ts.is_pointer(),
        };
        if ok {
            Ok(())
        } else {
            Err(self.err(
                bit,
                format!("{} from {from} to {to} is not a valid cast", op.name()),
            ))
        }
    }

    /// CALL: [paramattrs, cc, fmf?, fnty?, callee+ty, args…] (LLVM 3.7: cc bit 15 says the
    /// function type is explicit, bit 17 that fast-math flags follow; bits 0 and 14 are
    /// tail and musttail).
    fn call(&mut self, o: &Ops<'_>, i: &mut usize) -> Result<(InstKind, TypeId), LlvmError> {
        let bit = o.bit;
        let attributes = o.u32(0)?;
        if attributes as usize > self.r.m.attribute_lists.len() {
            return Err(self.err(
                bit,
                format!(
                    "call attribute list {attributes} of {}",
                    self.r.m.attribute_lists.len()
                ),
            ));
        }
        let cc = o.get(1)?;
        *i = 2;
        let flags = if cc & (1 << 17) != 0 {
            let f = u8::try_from(o.get(*i)?).map_err(|_| self.err(bit, "fast-math flags"))?;
            *i = i.saturating_add(1);
            f
        } else {
            0
        };
        let explicit_type = cc & (1 << 15) != 0;
        let explicit = if explicit_type {
            let t = self.type_id(o.get(*i)?, bit)?;
            *i = i.saturating_add(1);
            Some(t)
        } else {
            None
        };
        let (callee, ct) = self.val_ty(o, i, "callee")?;
        let pointee = self.pointee(ct, bit)?;
        let fn_ty = explicit.unwrap_or(pointee);
        if fn_ty != pointee {
            return Err(self.err(
                bit,
                "call's explicit function type differs from the callee's",
            ));
        }
        let (ret, params, vararg) = match self.ty(fn_ty, bit)? {
            Type::Function {
                ret,
                params,
                vararg,
            } => (*ret, params.len(), *vararg),
            _ => return Err(self.err(bit, "call of a non-function")),
        };
        let nparams = params;
        let mut args = Vec::with_capacity(nparams);
        for pk in 0..nparams {
            let p = match self.r.m.types.get(fn_ty.index()) {
                Some(Type::Function { params, .. }) => params.get(pk).copied(),
                _ => None,
            }
            .ok_or_else(|| self.err(bit, "call of a non-function"))?;
            let p = &p;
            if *i >= o.len() {
                return Err(self.err(
                    bit,
                    format!(
                        "call with {} arguments to a function of {}",
                        args.len(),
                        nparams
                    ),
                ));
            }
            let arg = match self.ty(*p, bit)? {
                Type::Label => Operand::Block(self.block_ref(o.get(*i)?, bit)?),
                Type::Metadata => {
                    let id = self.abs(o.get(*i)?, bit)?;
                    self.md_checks.push((id, bit));
                    Operand::Metadata(MdId(id))
                }
                _ => {
                    let mut k = *i;
                    let v = self.val(o, &mut k, *p, "call argument")?;
                    Operand::Value(v)
                }
            };
            *i = i.saturating_add(1);
            args.push(arg);
        }
        if vararg {
            while *i < o.len() {
                let (v, _) = self.val_ty(o, i, "variadic argument")?;
                args.push(Operand::Value(v));
            }
        } else if *i != o.len() {
            return Err(self.err(
                bit,
                format!(
                    "call with {} arguments to a function of {}",
                    o.len().saturating_sub(*i).saturating_add(args.len()),
                    nparams
                ),
            ));
        }
        let calling_conv = u32::try_from((cc >> 1) & 0x1fff).unwrap_or(0);
        let tail = u8::from(cc & 1 != 0)
            | (u8::from(cc & (1 << 14) != 0) << 1)
            | (u8::from(cc & (1 << 16) != 0) << 2);
        Ok((
            InstKind::Call {
                callee,
                fn_ty,
                args,
                attributes,
                calling_conv,
                tail,
                flags,
                explicit_type,
            },
            ret,
        ))
    }

    /// GEP: [inbounds, source type, base+ty, (index+ty)*]; the old forms (4, 30) have no
    /// flag and no type.
    fn gep(
        &mut self,
        o: &Ops<'_>,
        code: u32,
        i: &mut usize,
    ) -> Result<(InstKind, TypeId), LlvmError> {
        let bit = o.bit;
        let (inbounds, explicit) = if code == 43 {
            let inb = o.get(0)? != 0;
            let t = self.type_id(o.get(1)?, bit)?;
            *i = 2;
            (inb, Some(t))
        } else {
            (code == 30, None)
        };
        let (base, bt) = self.val_ty(o, i, "getelementptr base")?;
        let (pointee, space) = match self.ty(bt, bit)? {
            Type::Pointer {
                pointee,
                address_space,
            } => (*pointee, *address_space),
            _ => return Err(self.err(bit, "getelementptr base is not a pointer")),
        };
        let source_ty = explicit.unwrap_or(pointee);
        if source_ty != pointee {
            return Err(self.err(
                bit,
                "getelementptr source type differs from the base's pointee",
            ));
        }
        let mut indices = Vec::new();
        while *i < o.len() {
            let (v, t) = self.val_ty(o, i, "getelementptr index")?;
            if !self.scalar_of(t, bit)?.is_integer() {
                return Err(self.err(bit, "getelementptr index is not an integer"));
            }
            indices.push(v);
        }
        let mut t = source_ty;
        for idx in indices.iter().skip(1) {
            let next = match self.ty(t, bit)? {
                Type::Struct { elements, .. } => {
                    let k = self
                        .const_int(*idx)
                        .ok_or_else(|| self.err(bit, "struct index is not a constant"))?;
                    usize::try_from(k)
                        .ok()
                        .and_then(|k| elements.get(k))
                        .copied()
                        .ok_or_else(|| self.err(bit, format!("struct index {k} out of range")))?
                }
                Type::Array { element, .. } | Type::Vector { element, .. } => *element,
                _ => return Err(self.err(bit, "getelementptr indexes into a non-aggregate")),
            };
            t = next;
        }
        let rt = self.r.pointer_to(t, space);
        Ok((
            InstKind::Gep {
                inbounds,
                source_ty,
                base,
                indices,
                explicit_type: explicit.is_some(),
            },
            rt,
        ))
    }

    fn const_int(&self, id: ValueId) -> Option<i64> {
        let v = match id.0.checked_sub(self.base) {
            None => self.r.m.values.get(id.index()),
            Some(i) => self.values.get(i as usize),
        }?;
        match &v.kind {
            ValueKind::Constant(c) => c.as_int(),
            _ => None,
        }
    }

    /// METADATA_ATTACHMENT: [inst, (kind, node)*] or, with an even count, [(kind, node)*]
    /// for the function itself.
    fn read_attachments(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        while let Some(rec) = blk.next_record()? {
            if rec.code != 11 {
                continue;
            }
            let o = Ops::new(&rec, "METADATA_ATTACHMENT");
            let (target, from) = if o.len() % 2 == 1 {
                (Some(o.u32(0)?), 1usize)
            } else {
                (None, 0usize)
            };
            let mut pairs = Vec::with_capacity(o.len() / 2);
            let mut k = from;
            while k < o.len() {
                let kind = o.u32(k)?;
                let node = o.u32(k.saturating_add(1))?;
                self.md_checks.push((node, o.bit));
                pairs.push((kind, MdId(node)));
                k = k.saturating_add(2);
            }
            match target {
                Some(t) => {
                    let n = self.insts.len();
                    let inst =
                        self.insts
                            .get_mut(t as usize)
                            .ok_or_else(|| LlvmError::Function {
                                function: String::new(),
                                inst: t,
                                bit: o.bit,
                                what: format!("attachment to instruction {t} of {n}"),
                            })?;
                    inst.attachments.extend(pairs);
                }
                None => self.attachments.extend(pairs),
            }
        }
        Ok(())
    }

    /// VALUE_SYMTAB in a function: ENTRY [value id, name…], BBENTRY [block, name…].
    fn read_vst(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, "VALUE_SYMTAB");
            match rec.code {
                1 => self.names.push((o.u32(0)?, o.string_from(1)?, o.bit)),
                2 => self.bb_names.push((o.u32(0)?, o.string_from(1)?, o.bit)),
                _ => {}
            }
        }
        Ok(())
    }

    fn finish(mut self, bit: u64, args: Vec<ValueId>) -> Result<FunctionBody, LlvmError> {
        let n = self
            .declared_blocks
            .ok_or_else(|| self.err(bit, "function body without DECLAREBLOCKS"))?;
        if self.blocks.len() != n as usize || !self.block_closed() {
            return Err(self.err(
                bit,
                format!(
                    "{n} blocks declared, {} ended with a terminator",
                    self.blocks
                        .len()
                        .saturating_sub(usize::from(!self.block_closed()))
                ),
            ));
        }
        let total = self.next_id();
        for c in std::mem::take(&mut self.checks) {
            let t = self.vty(c.id).ok_or_else(|| LlvmError::Function {
                function: self.name.clone(),
                inst: 0,
                bit: c.bit,
                what: format!(
                    "{} refers to value {}, which never exists ({} values)",
                    c.what, c.id, total
                ),
            })?;
            if let Some(want) = c.ty
                && want != t
            {
                return Err(LlvmError::Function {
                    function: self.name.clone(),
                    inst: 0,
                    bit: c.bit,
                    what: format!(
                        "{}: value {} has type {t}, {want} is required",
                        c.what, c.id
                    ),
                });
            }
        }
        let md_total = self
            .md_base
            .saturating_add(u32::try_from(self.md.len()).unwrap_or(u32::MAX));
        for &(id, b) in &self.md_checks {
            if id >= md_total {
                return Err(LlvmError::Function {
                    function: self.name.clone(),
                    inst: 0,
                    bit: b,
                    what: format!("reference to metadata {id} of {md_total}"),
                });
            }
        }
        for (id, name, b) in std::mem::take(&mut self.names) {
            let v = id
                .checked_sub(self.base)
                .and_then(|i| self.values.get_mut(i as usize))
                .ok_or_else(|| LlvmError::Function {
                    function: String::new(),
                    inst: 0,
                    bit: b,
                    what: format!("name for value {id}, which is not local"),
                })?;
            v.name = Some(name);
        }
        for (bb, name, b) in std::mem::take(&mut self.bb_names) {
            let blk = self
                .blocks
                .get_mut(bb as usize)
                .ok_or_else(|| LlvmError::Function {
                    function: String::new(),
                    inst: 0,
                    bit: b,
                    what: format!("name for block {bb} of {n}"),
                })?;
            blk.name = Some(name);
        }
        Ok(FunctionBody {
            first_value: self.base,
            values: self.values,
            args,
            blocks: self.blocks,
            instructions: self.insts,
            first_metadata: self.md_base,
            metadata: self.md,
            attachments: self.attachments,
            uselists: self.uselists,
            bit,
        })
    }
}
