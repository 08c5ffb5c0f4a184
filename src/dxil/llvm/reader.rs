//! Reading the module-level blocks: types, attributes, globals, functions, constants,
//! metadata, symbol tables. Function bodies are read by [`super::body`].

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiplicative hasher for the type caches (keys are type ids and shapes
/// built by this reader; no adversary chooses collisions that matter for speed here
/// beyond the module's own, bounded, type count).
#[derive(Default, Clone, Copy)]
pub(super) struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.add(u64::from(*b));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

use super::bitstream::{Bitstream, BlockEntry, BlockReader, OwnedRecord, Record};
use super::module::{
    Alias, Attribute, AttributeGroup, AttributeList, Function, GlobalVar, Identification, Linkage,
};
use super::{
    BinOp, CastOp, Constant, LlvmError, MdId, Metadata, MetadataKind, Module, NamedMetadata,
    Predicate, Type, TypeId, Value, ValueId, ValueKind, block, decode_signed, limits,
};

/// A deferred check: value `id` must exist (and have type `ty` when given).
#[derive(Debug, Clone, Copy)]
pub(super) struct Check {
    pub id: u32,
    pub ty: Option<TypeId>,
    pub bit: u64,
    pub what: &'static str,
}

/// A record's operands with bounds-checked accessors that produce errors naming the
/// record's bit offset.
#[derive(Clone, Copy)]
pub(super) struct Ops<'r> {
    pub ops: &'r [u64],
    pub bit: u64,
    pub block: &'static str,
}

impl<'r> Ops<'r> {
    pub fn new(r: &Record<'r, '_>, block: &'static str) -> Self {
        Ops {
            ops: r.ops,
            bit: r.bit,
            block,
        }
    }

    pub fn err(&self, what: impl Into<String>) -> LlvmError {
        LlvmError::Invalid {
            bit: self.bit,
            block: self.block,
            what: what.into(),
        }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn get(&self, i: usize) -> Result<u64, LlvmError> {
        self.ops.get(i).copied().ok_or_else(|| {
            self.err(format!(
                "record has {} operands, needs operand {i}",
                self.ops.len()
            ))
        })
    }

    pub fn opt(&self, i: usize) -> u64 {
        self.ops.get(i).copied().unwrap_or(0)
    }

    pub fn u32(&self, i: usize) -> Result<u32, LlvmError> {
        let v = self.get(i)?;
        u32::try_from(v).map_err(|_| self.err(format!("operand {i} ({v}) does not fit 32 bits")))
    }

    /// Operands from `i` on as bytes (characters of a name or string).
    pub fn string_from(&self, i: usize) -> Result<String, LlvmError> {
        let bytes = self.bytes_from(i)?;
        Ok(String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    pub fn bytes_from(&self, i: usize) -> Result<Vec<u8>, LlvmError> {
        let ops = self.ops.get(i..).unwrap_or_default();
        let mut out = Vec::with_capacity(ops.len());
        for &c in ops {
            match u8::try_from(c) {
                Ok(b) => out.push(b),
                Err(_) => return Err(self.err(format!("character {c} out of range"))),
            }
        }
        Ok(out)
    }
}

/// Alignment from its stored form (log2 + 1; 0 for none) — LLVM `parseAlignmentValue`.
pub(super) fn decode_align(exp: u64) -> Option<u64> {
    if exp == 0 {
        Some(0)
    } else if exp > limits::MAX_ALIGN_EXPONENT {
        None
    } else {
        1u64.checked_shl(u32::try_from(exp.saturating_sub(1)).ok()?)
    }
}

/// The module being built plus reader state.
pub(super) struct Reader {
    pub m: Module,
    /// Pointer types by (pointee, address space), for the types values imply.
    ptr_cache: FxMap<(TypeId, u32), TypeId>,
    /// Other types looked up by shape.
    type_cache: FxMap<Type, TypeId>,
    /// Checks on module-level value references, resolved at the end of the module.
    pub checks: Vec<Check>,
    /// Metadata references (id, bit) to check at the end of the module.
    md_checks: Vec<(u32, u64)>,
    /// Indices of functions with bodies, in record order; bodies follow this order.
    with_body: Vec<u32>,
    next_body: usize,
    /// Names from the module symbol table (value id → name).
    names: Vec<(u32, String, u64)>,
    types_done: bool,
}

pub(super) fn read_module(bitcode: &[u8]) -> Result<Module, LlvmError> {
    let mut bs = Bitstream::new(bitcode)?;
    let mut r = Reader {
        m: Module::default(),
        ptr_cache: FxMap::default(),
        type_cache: FxMap::default(),
        checks: Vec::new(),
        md_checks: Vec::new(),
        with_body: Vec::new(),
        next_body: 0,
        names: Vec::new(),
        types_done: false,
    };
    let mut seen_module = false;
    let mut top = BlockReader::top(&mut bs);
    while let Some(entry) = top.next_entry()? {
        match entry {
            BlockEntry::Block(b) if b.id() == block::IDENTIFICATION => r.read_identification(b)?,
            BlockEntry::Block(b) if b.id() == block::MODULE => {
                if seen_module {
                    return Err(LlvmError::Invalid {
                        bit: b.start_bit(),
                        block: "top level",
                        what: "second module block".into(),
                    });
                }
                seen_module = true;
                r.read_module_block(b)?;
            }
            // Other blocks are skipped.
            BlockEntry::Block(_) => {}
            BlockEntry::Record(rec) => {
                return Err(LlvmError::Invalid {
                    bit: rec.bit,
                    block: "top level",
                    what: "record outside any block".into(),
                });
            }
        }
    }
    if !seen_module {
        return Err(LlvmError::NoModule);
    }
    Ok(r.m)
}

impl Reader {
    pub fn ty(&self, id: TypeId, bit: u64, block: &'static str) -> Result<&Type, LlvmError> {
        self.m
            .types
            .get(id.index())
            .ok_or_else(|| LlvmError::Invalid {
                bit,
                block,
                what: format!(
                    "type index {} out of range ({} types)",
                    id.0,
                    self.m.types.len()
                ),
            })
    }

    pub fn type_id(&self, v: u64, bit: u64, block: &'static str) -> Result<TypeId, LlvmError> {
        match u32::try_from(v) {
            Ok(i) if (i as usize) < self.m.types.len() => Ok(TypeId(i)),
            _ => Err(LlvmError::Invalid {
                bit,
                block,
                what: format!("type index {v} out of range ({} types)", self.m.types.len()),
            }),
        }
    }

    /// The type id for `t`, appending it to the table when the table lacks it.
    pub fn intern(&mut self, t: Type) -> TypeId {
        if let Type::Pointer {
            pointee,
            address_space,
        } = t
            && let Some(&id) = self.ptr_cache.get(&(pointee, address_space))
        {
            return id;
        }
        if let Some(&id) = self.type_cache.get(&t) {
            return id;
        }
        if matches!(
            t,
            Type::Struct {
                name: None,
                opaque: false,
                ..
            }
        ) && let Some(i) = self.m.types.iter().position(|x| *x == t)
        {
            return TypeId(u32::try_from(i).unwrap_or(u32::MAX));
        }
        let id = TypeId(u32::try_from(self.m.types.len()).unwrap_or(u32::MAX));
        self.remember(&t, id);
        self.m.types.push(t);
        id
    }

    fn remember(&mut self, t: &Type, id: TypeId) {
        match t {
            Type::Pointer {
                pointee,
                address_space,
            } => {
                self.ptr_cache
                    .entry((*pointee, *address_space))
                    .or_insert(id);
            }
            // Only the small shapes instructions imply are cached; others are found
            // by a scan in `intern`.
            Type::Integer(_) | Type::Vector { .. } | Type::Void | Type::Array { .. } => {
                self.type_cache.entry(t.clone()).or_insert(id);
            }
            _ => {}
        }
    }

    pub fn pointer_to(&mut self, pointee: TypeId, address_space: u32) -> TypeId {
        self.intern(Type::Pointer {
            pointee,
            address_space,
        })
    }

    fn read_identification(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        let mut id = Identification::default();
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, "IDENTIFICATION");
            match rec.code {
                1 => id.producer = o.string_from(0)?,
                2 => id.epoch = Some(o.get(0)?),
                _ => {}
            }
        }
        self.m.identification = Some(id);
        Ok(())
    }

    fn read_module_block(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        while let Some(entry) = blk.next_entry()? {
            let b = match entry {
                BlockEntry::Record(rec) => {
                    self.module_record(&rec)?;
                    continue;
                }
                BlockEntry::Block(b) => b,
            };
            let bit = b.start_bit();
            match b.id() {
                block::TYPE_NEW => self.read_types(b)?,
                block::PARAMATTR_GROUP => self.read_attr_groups(b)?,
                block::PARAMATTR => self.read_attr_lists(b)?,
                block::CONSTANTS => {
                    let mut values = std::mem::take(&mut self.m.values);
                    let mut checks = std::mem::take(&mut self.checks);
                    let r = self.read_constants(b, &mut values, 0, &mut checks, None);
                    self.m.values = values;
                    self.checks = checks;
                    r?;
                }
                block::METADATA => {
                    let mut md = std::mem::take(&mut self.m.metadata);
                    let mut checks = std::mem::take(&mut self.md_checks);
                    let mut vchecks = std::mem::take(&mut self.checks);
                    let r = self.read_metadata(b, &mut md, 0, &mut checks, &mut vchecks, true);
                    self.m.metadata = md;
                    self.md_checks = checks;
                    self.checks = vchecks;
                    r?;
                }
                block::METADATA_KIND => self.read_metadata_kinds(b)?,
                block::VALUE_SYMTAB => self.read_module_vst(b)?,
                block::FUNCTION => {
                    let index = self.with_body.get(self.next_body).copied().ok_or_else(|| {
                        LlvmError::Invalid {
                            bit,
                            block: "MODULE",
                            what: "function block without a function definition".into(),
                        }
                    })?;
                    self.next_body = self.next_body.saturating_add(1);
                    self.finish_module_values(bit)?;
                    let body = super::body::read_body(self, b, index)?;
                    if let Some(f) = self.m.functions.get_mut(index as usize) {
                        f.body = Some(body);
                    }
                }
                block::USELIST => {
                    let recs = read_records(b)?;
                    self.m.uselists.extend(recs);
                }
                // Other blocks are skipped.
                _ => {}
            }
        }
        let end = blk.bit();
        self.finish_module_values(end)?;
        if self.next_body != self.with_body.len() {
            return Err(LlvmError::Invalid {
                bit: end,
                block: "MODULE",
                what: format!(
                    "{} functions are defined but {} bodies were given",
                    self.with_body.len(),
                    self.next_body
                ),
            });
        }
        self.apply_names()?;
        self.check_metadata_refs()?;
        Ok(())
    }

    fn module_record(&mut self, rec: &Record<'_, '_>) -> Result<(), LlvmError> {
        let o = Ops::new(rec, "MODULE");
        match rec.code {
            1 => self.m.version = o.get(0)?,
            2 => self.m.triple = Some(o.string_from(0)?),
            3 => self.m.datalayout = Some(o.string_from(0)?),
            4 => self.m.asm = Some(o.string_from(0)?),
            5 => self.m.section_names.push(o.string_from(0)?),
            11 => self.m.gc_names.push(o.string_from(0)?),
            16 => self.m.source_filename = Some(o.string_from(0)?),
            7 => self.global_var(&o)?,
            8 => self.function(&o)?,
            9 | 14 => self.alias(&o, rec.code)?,
            _ => {}
        }
        Ok(())
    }

    fn next_value_id(&self, o: &Ops<'_>) -> Result<ValueId, LlvmError> {
        u32::try_from(self.m.values.len())
            .map(ValueId)
            .map_err(|_| o.err("too many values"))
    }

    /// GLOBALVAR: [type, isconst | explicit-type << 1 | addrspace << 2, initid + 1,
    /// linkage, alignment, section, visibility, threadlocal, unnamed_addr,
    /// externally_initialized, dllstorageclass, comdat] (LLVM 3.7 `parseModule`).
    fn global_var(&mut self, o: &Ops<'_>) -> Result<(), LlvmError> {
        self.need_types(o)?;
        let ty = self.type_id(o.get(0)?, o.bit, o.block)?;
        let flags = o.get(1)?;
        let is_const = flags & 1 != 0;
        let (value_ty, address_space) = if flags & 2 != 0 {
            (
                ty,
                u32::try_from(flags >> 2).map_err(|_| o.err("address space out of range"))?,
            )
        } else {
            match self.ty(ty, o.bit, o.block)? {
                Type::Pointer {
                    pointee,
                    address_space,
                } => (*pointee, *address_space),
                _ => return Err(o.err("global variable type is not a pointer")),
            }
        };
        let vt = self.ty(value_ty, o.bit, o.block)?;
        if matches!(
            vt,
            Type::Void | Type::Label | Type::Metadata | Type::Function { .. }
        ) {
            return Err(o.err("global variable of a type that cannot be stored"));
        }
        let init = o.get(2)?;
        let initializer = if init == 0 {
            None
        } else {
            let id = u32::try_from(init.saturating_sub(1))
                .map_err(|_| o.err("initializer id out of range"))?;
            self.checks.push(Check {
                id,
                ty: Some(value_ty),
                bit: o.bit,
                what: "global initializer",
            });
            Some(ValueId(id))
        };
        let align = decode_align(o.opt(4)).ok_or_else(|| o.err("alignment out of range"))?;
        let section = match o.opt(5) {
            0 => None,
            s => {
                let s = u32::try_from(s.saturating_sub(1))
                    .map_err(|_| o.err("section out of range"))?;
                if s as usize >= self.m.section_names.len() {
                    return Err(o.err(format!("section {s} not declared")));
                }
                Some(s)
            }
        };
        let ptr_ty = self.pointer_to(value_ty, address_space);
        let value = self.next_value_id(o)?;
        let index = u32::try_from(self.m.globals.len()).map_err(|_| o.err("too many globals"))?;
        self.m.values.push(Value {
            ty: ptr_ty,
            kind: ValueKind::Global(index),
            name: None,
        });
        self.m.globals.push(GlobalVar {
            name: String::new(),
            value,
            value_ty,
            ptr_ty,
            address_space,
            is_const,
            initializer,
            linkage: Linkage(u32::try_from(o.get(3)?).map_err(|_| o.err("linkage out of range"))?),
            align,
            section,
            visibility: u32::try_from(o.opt(6)).unwrap_or(u32::MAX),
            thread_local: u32::try_from(o.opt(7)).unwrap_or(u32::MAX),
            unnamed_addr: o.opt(8) != 0,
            externally_initialized: o.opt(9) != 0,
            dll_storage: u32::try_from(o.opt(10)).unwrap_or(u32::MAX),
            comdat: o.opt(11),
            bit: o.bit,
        });
        Ok(())
    }

    /// FUNCTION: [type, callingconv, isproto, linkage, paramattr, alignment, section,
    /// visibility, gc, unnamed_addr, prologuedata, dllstorageclass, comdat, prefixdata,
    /// personalityfn] (LLVM 3.7 `parseModule`).
    fn function(&mut self, o: &Ops<'_>) -> Result<(), LlvmError> {
        self.need_types(o)?;
        let mut ty = self.type_id(o.get(0)?, o.bit, o.block)?;
        if let Type::Pointer { pointee, .. } = self.ty(ty, o.bit, o.block)? {
            ty = *pointee;
        }
        if !matches!(self.ty(ty, o.bit, o.block)?, Type::Function { .. }) {
            return Err(o.err("function record's type is not a function type"));
        }
        let attributes = o.u32(4)?;
        if attributes as usize > self.m.attribute_lists.len() {
            return Err(o.err(format!(
                "attribute list {attributes} of {} (1-based)",
                self.m.attribute_lists.len()
            )));
        }
        let align = decode_align(o.opt(5)).ok_or_else(|| o.err("alignment out of range"))?;
        let section = match o.opt(6) {
            0 => None,
            s => Some(
                u32::try_from(s.saturating_sub(1)).map_err(|_| o.err("section out of range"))?,
            ),
        };
        let gc = match o.opt(8) {
            0 => None,
            s => Some(u32::try_from(s.saturating_sub(1)).map_err(|_| o.err("gc out of range"))?),
        };
        let is_declaration = o.get(2)? != 0;
        let ptr_ty = self.pointer_to(ty, 0);
        let value = self.next_value_id(o)?;
        let index =
            u32::try_from(self.m.functions.len()).map_err(|_| o.err("too many functions"))?;
        self.m.values.push(Value {
            ty: ptr_ty,
            kind: ValueKind::Function(index),
            name: None,
        });
        if !is_declaration {
            self.with_body.push(index);
        }
        self.m.functions.push(Function {
            name: String::new(),
            value,
            ty,
            ptr_ty,
            calling_conv: o.u32(1)?,
            is_declaration,
            linkage: Linkage(o.u32(3)?),
            attributes,
            align,
            section,
            visibility: u32::try_from(o.opt(7)).unwrap_or(u32::MAX),
            gc,
            unnamed_addr: o.opt(9) != 0,
            prologue: o.opt(10),
            dll_storage: u32::try_from(o.opt(11)).unwrap_or(u32::MAX),
            comdat: o.opt(12),
            prefix: o.opt(13),
            personality: o.opt(14),
            body: None,
            bit: o.bit,
        });
        Ok(())
    }

    /// ALIAS: [alias type, addrspace, aliasee id, linkage, …] (14) or the older form (9);
    /// kept with its operands.
    fn alias(&mut self, o: &Ops<'_>, _code: u32) -> Result<(), LlvmError> {
        self.need_types(o)?;
        let ty = self.type_id(o.get(0)?, o.bit, o.block)?;
        let value = self.next_value_id(o)?;
        let index = u32::try_from(self.m.aliases.len()).map_err(|_| o.err("too many aliases"))?;
        self.m.values.push(Value {
            ty,
            kind: ValueKind::Alias(index),
            name: None,
        });
        self.m.aliases.push(Alias {
            name: String::new(),
            value,
            ty,
            record: o.ops.to_vec(),
        });
        Ok(())
    }

    fn need_types(&self, o: &Ops<'_>) -> Result<(), LlvmError> {
        if self.types_done {
            Ok(())
        } else {
            Err(o.err("record before the type table"))
        }
    }

    /// Checks the module-level value references gathered so far (global initializers,
    /// constant operands, metadata values).
    fn finish_module_values(&mut self, bit: u64) -> Result<(), LlvmError> {
        for c in std::mem::take(&mut self.checks) {
            let v = self
                .m
                .values
                .get(c.id as usize)
                .ok_or_else(|| LlvmError::Invalid {
                    bit: c.bit,
                    block: "MODULE",
                    what: format!(
                        "{} refers to value {} of {}",
                        c.what,
                        c.id,
                        self.m.values.len()
                    ),
                })?;
            if let Some(t) = c.ty
                && v.ty != t
            {
                return Err(LlvmError::Invalid {
                    bit: c.bit,
                    block: "MODULE",
                    what: format!(
                        "{} value {} has type {} where {} is required",
                        c.what, c.id, v.ty, t
                    ),
                });
            }
        }
        let _ = bit;
        Ok(())
    }

    fn check_metadata_refs(&mut self) -> Result<(), LlvmError> {
        let n = self.m.metadata.len();
        for &(id, bit) in &self.md_checks {
            if id as usize >= n {
                return Err(LlvmError::Invalid {
                    bit,
                    block: "METADATA",
                    what: format!("reference to metadata {id} of {n}"),
                });
            }
        }
        for nm in &self.m.named_metadata {
            if let Some(bad) = nm.ops.iter().find(|i| i.index() >= n) {
                return Err(LlvmError::Invalid {
                    bit: 0,
                    block: "METADATA",
                    what: format!("!{} refers to metadata {} of {n}", nm.name, bad.0),
                });
            }
        }
        Ok(())
    }

    fn apply_names(&mut self) -> Result<(), LlvmError> {
        for (id, name, bit) in std::mem::take(&mut self.names) {
            let v = self
                .m
                .values
                .get_mut(id as usize)
                .ok_or_else(|| LlvmError::Invalid {
                    bit,
                    block: "VALUE_SYMTAB",
                    what: format!("name for value {id}, which does not exist"),
                })?;
            match v.kind {
                ValueKind::Global(i) => {
                    if let Some(g) = self.m.globals.get_mut(i as usize) {
                        g.name.clone_from(&name);
                    }
                }
                ValueKind::Function(i) => {
                    if let Some(f) = self.m.functions.get_mut(i as usize) {
                        f.name.clone_from(&name);
                    }
                }
                ValueKind::Alias(i) => {
                    if let Some(a) = self.m.aliases.get_mut(i as usize) {
                        a.name.clone_from(&name);
                    }
                }
                _ => {}
            }
            v.name = Some(name);
        }
        Ok(())
    }

    /// TYPE_BLOCK_ID_NEW (LLVM 3.7 `parseTypeTableBody`). Only named structs (and opaque
    /// ones) may be referred to before their record.
    fn read_types(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        const B: &str = "TYPE_BLOCK";
        let block_bit = blk.start_bit();
        if self.types_done {
            return Err(LlvmError::Invalid {
                bit: block_bit,
                block: B,
                what: "second type table".into(),
            });
        }
        let mut stated: Option<u64> = None;
        let mut pending_name: Option<String> = None;
        // Forward references: (referenced index, bit).
        let mut forward: Vec<(u64, u64)> = Vec::new();
        loop {
            // The type count is bounded by the bits left before its record.
            let left = blk.bits_left()?;
            let Some(rec) = blk.next_record()? else {
                break;
            };
            let o = Ops::new(&rec, B);
            let here = self.m.types.len() as u64;
            let count = stated.unwrap_or(0);
            let mut tref = |v: u64| -> Result<TypeId, LlvmError> {
                if v >= count {
                    return Err(o.err(format!("type index {v} out of range ({count} types)")));
                }
                if v >= here {
                    forward.push((v, o.bit));
                }
                Ok(TypeId(u32::try_from(v).map_err(|_| o.err("type index"))?))
            };
            let t = match rec.code {
                1 => {
                    let n = o.get(0)?;
                    if stated.is_some() || n > left {
                        return Err(o.err(format!("type count {n}")));
                    }
                    stated = Some(n);
                    continue;
                }
                2 => Type::Void,
                3 => Type::Float,
                4 => Type::Double,
                5 => Type::Label,
                10 => Type::Half,
                13 => Type::X86Fp80,
                14 => Type::Fp128,
                15 => Type::PpcFp128,
                16 => Type::Metadata,
                17 => Type::X86Mmx,
                22 => Type::Token,
                7 => {
                    let w = o.get(0)?;
                    if w == 0 || w > limits::MAX_INT_BITS {
                        return Err(o.err(format!("integer width {w}")));
                    }
                    Type::Integer(u32::try_from(w).unwrap_or(0))
                }
                8 => Type::Pointer {
                    pointee: tref(o.get(0)?)?,
                    address_space: u32::try_from(o.opt(1)).map_err(|_| o.err("address space"))?,
                },
                11 | 12 => {
                    let len = o.get(0)?;
                    let element = tref(o.get(1)?)?;
                    if rec.code == 11 {
                        Type::Array { len, element }
                    } else {
                        Type::Vector { len, element }
                    }
                }
                21 | 9 => {
                    // FUNCTION: [vararg, retty, paramty...]; FUNCTION_OLD: [vararg, attrid, retty, paramty...]
                    let skip = if rec.code == 9 { 1 } else { 0 };
                    let vararg = o.get(0)? != 0;
                    let ret = tref(o.get(1usize.saturating_add(skip))?)?;
                    let params = o
                        .ops
                        .get(2usize.saturating_add(skip)..)
                        .unwrap_or_default()
                        .iter()
                        .map(|&p| tref(p))
                        .collect::<Result<Vec<_>, _>>()?;
                    Type::Function {
                        vararg,
                        ret,
                        params,
                    }
                }
                18 | 20 => {
                    let packed = o.get(0)? != 0;
                    let elements = o
                        .ops
                        .get(1..)
                        .unwrap_or_default()
                        .iter()
                        .map(|&p| tref(p))
                        .collect::<Result<Vec<_>, _>>()?;
                    let name = if rec.code == 20 {
                        pending_name.take()
                    } else {
                        None
                    };
                    Type::Struct {
                        name,
                        packed,
                        elements,
                        opaque: false,
                    }
                }
                19 => {
                    pending_name = Some(o.string_from(0)?);
                    continue;
                }
                6 => Type::Struct {
                    name: pending_name.take(),
                    packed: false,
                    elements: Vec::new(),
                    opaque: true,
                },
                c => return Err(o.err(format!("unknown type record {c}"))),
            };
            if here >= count {
                return Err(o.err(format!("more types than the {count} stated")));
            }
            self.m.types.push(t);
        }
        let count = stated.unwrap_or(0);
        if self.m.types.len() as u64 != count {
            return Err(LlvmError::Invalid {
                bit: block_bit,
                block: B,
                what: format!("{} types read, {count} stated", self.m.types.len()),
            });
        }
        for (v, bit) in forward {
            match self.m.types.get(usize::try_from(v).unwrap_or(usize::MAX)) {
                Some(Type::Struct { name: Some(_), .. } | Type::Struct { opaque: true, .. }) => {}
                _ => {
                    return Err(LlvmError::Invalid {
                        bit,
                        block: B,
                        what: format!("forward reference to type {v}, which is not a named struct"),
                    });
                }
            }
        }
        self.check_type_shapes(block_bit)?;
        self.m.stated_type_count = u32::try_from(count).unwrap_or(u32::MAX);
        for i in 0..self.m.types.len() {
            let t = self.m.types.get(i).cloned();
            if let Some(t) = t {
                self.remember(&t, TypeId(u32::try_from(i).unwrap_or(u32::MAX)));
            }
        }
        self.types_done = true;
        Ok(())
    }

    /// Element, pointee and parameter types must be ones LLVM accepts there.
    fn check_type_shapes(&self, bit: u64) -> Result<(), LlvmError> {
        let get = |t: TypeId| self.m.types.get(t.index());
        let bad = |i: usize, what: &str| LlvmError::Invalid {
            bit,
            block: "TYPE_BLOCK",
            what: format!("type {i}: {what}"),
        };
        for (i, t) in self.m.types.iter().enumerate() {
            match t {
                Type::Pointer { pointee, .. } => {
                    if matches!(
                        get(*pointee),
                        Some(Type::Void | Type::Label | Type::Metadata | Type::Token)
                    ) {
                        return Err(bad(i, "pointer to void, label, metadata or token"));
                    }
                }
                Type::Array { element, .. }
                    if !get(*element)
                        .is_some_and(|e| e.is_first_class() && !matches!(e, Type::Token)) =>
                {
                    return Err(bad(i, "array of a type that cannot be an element"));
                }
                Type::Vector { element, len }
                    if *len == 0
                        || !get(*element)
                            .is_some_and(|e| e.is_integer() || e.is_float() || e.is_pointer()) =>
                {
                    return Err(bad(i, "vector of length 0 or of a non-scalar element"));
                }
                Type::Struct { elements, .. }
                    if elements.iter().any(|e| {
                        !get(*e).is_some_and(|e| e.is_first_class() && !matches!(e, Type::Token))
                    }) =>
                {
                    return Err(bad(i, "struct with an element that cannot be one"));
                }
                Type::Function { ret, params, .. } => {
                    if matches!(
                        get(*ret),
                        Some(Type::Label | Type::Metadata | Type::Function { .. })
                    ) {
                        return Err(bad(i, "function returning label, metadata or a function"));
                    }
                    if params
                        .iter()
                        .any(|p| matches!(get(*p), Some(Type::Void | Type::Function { .. })))
                    {
                        return Err(bad(i, "function with a void or function parameter"));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// PARAMATTR_GROUP_BLOCK: GRP_CODE_ENTRY [grpid, slot, (kind, …)…] with kind 0 an
    /// enum attribute, 1 an integer attribute, 3 a string key, 4 a string key and value
    /// (LLVM 3.7 `parseAttributeGroupBlock`).
    fn read_attr_groups(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        const B: &str = "PARAMATTR_GROUP";
        while let Some(rec) = blk.next_record()? {
            if rec.code != 3 {
                continue;
            }
            let o = Ops::new(&rec, B);
            let id = o.u32(0)?;
            let slot = o.u32(1)?;
            let mut attrs = Vec::new();
            let mut i = 2usize;
            while i < o.len() {
                let kind = o.get(i)?;
                i = i.saturating_add(1);
                match kind {
                    0 => {
                        attrs.push(Attribute::Flag(o.u32(i)?));
                        i = i.saturating_add(1);
                    }
                    1 => {
                        attrs.push(Attribute::Int(o.u32(i)?, o.get(i.saturating_add(1))?));
                        i = i.saturating_add(2);
                    }
                    3 | 4 => {
                        let (key, next) = cstr(&o, i)?;
                        i = next;
                        let value = if kind == 4 {
                            let (v, next) = cstr(&o, i)?;
                            i = next;
                            Some(v)
                        } else {
                            None
                        };
                        attrs.push(Attribute::String(key, value));
                    }
                    k => return Err(o.err(format!("unknown attribute encoding {k}"))),
                }
            }
            self.m
                .attribute_groups
                .push(AttributeGroup { id, slot, attrs });
        }
        Ok(())
    }

    /// PARAMATTR_BLOCK: ENTRY [grpid…] (code 2). The pre-3.3 form (code 1) is kept as an
    /// empty list so later indices stay right.
    fn read_attr_lists(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        const B: &str = "PARAMATTR";
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, B);
            match rec.code {
                2 => {
                    let groups = (0..o.len())
                        .map(|i| o.u32(i))
                        .collect::<Result<Vec<_>, _>>()?;
                    if let Some(g) = groups
                        .iter()
                        .find(|g| !self.m.attribute_groups.iter().any(|a| a.id == **g))
                    {
                        return Err(o.err(format!(
                            "attribute list names group {g}, which is not defined"
                        )));
                    }
                    self.m.attribute_lists.push(AttributeList { groups });
                }
                1 => self
                    .m
                    .attribute_lists
                    .push(AttributeList { groups: Vec::new() }),
                _ => {}
            }
        }
        Ok(())
    }

    /// VALUE_SYMTAB at module level: ENTRY [valueid, name…], FNENTRY [valueid, offset,
    /// name…].
    fn read_module_vst(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        const B: &str = "VALUE_SYMTAB";
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, B);
            match rec.code {
                1 => self.names.push((o.u32(0)?, o.string_from(1)?, o.bit)),
                3 => self.names.push((o.u32(0)?, o.string_from(2)?, o.bit)),
                _ => {}
            }
        }
        Ok(())
    }

    fn read_metadata_kinds(&mut self, mut blk: BlockReader<'_, '_>) -> Result<(), LlvmError> {
        const B: &str = "METADATA_KIND";
        while let Some(rec) = blk.next_record()? {
            if rec.code == 6 {
                let o = Ops::new(&rec, B);
                self.m.metadata_kinds.push(MetadataKind {
                    id: o.u32(0)?,
                    name: o.string_from(1)?,
                });
            }
        }
        Ok(())
    }

    /// CONSTANTS_BLOCK (LLVM 3.7 `parseConstants`): each record but SETTYPE defines the
    /// next value, of the current type. Operand ids are absolute; references are
    /// checked by the caller once every value is known.
    pub fn read_constants(
        &mut self,
        mut blk: BlockReader<'_, '_>,
        values: &mut Vec<Value>,
        base: u32,
        checks: &mut Vec<Check>,
        function: Option<&str>,
    ) -> Result<(), LlvmError> {
        const B: &str = "CONSTANTS";
        let _ = function;
        let mut cur: Option<TypeId> = None;
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, B);
            if rec.code == 1 {
                let t = self.type_id(o.get(0)?, o.bit, B)?;
                if matches!(
                    self.ty(t, o.bit, B)?,
                    Type::Void | Type::Label | Type::Metadata | Type::Function { .. }
                ) {
                    return Err(o.err("constants of type void, label, metadata or function"));
                }
                cur = Some(t);
                continue;
            }
            let ty = cur.ok_or_else(|| o.err("constant before SETTYPE"))?;
            let t = self.ty(ty, o.bit, B)?;
            // Only the shape matters here: clone cheaply (elements are not needed
            // except for aggregates, handled by reference below).
            let t = match t {
                Type::Struct { .. } | Type::Function { .. } => Type::Struct {
                    name: None,
                    packed: false,
                    elements: Vec::new(),
                    opaque: true,
                },
                other => other.clone(),
            };
            let mut refs: Vec<(u64, Option<TypeId>)> = Vec::new();
            let c = match rec.code {
                2 => Constant::Null,
                3 => Constant::Undef,
                4 => {
                    if !t.is_integer() {
                        return Err(o.err("integer constant of a non-integer type"));
                    }
                    Constant::Int(decode_signed(o.get(0)?))
                }
                5 => {
                    let w = t
                        .int_width()
                        .ok_or_else(|| o.err("wide integer of a non-integer type"))?;
                    if (o.len() as u64).saturating_mul(64) < u64::from(w) || o.len() == 0 {
                        return Err(o.err("wide integer with too few words"));
                    }
                    Constant::WideInt(o.ops.iter().map(|&v| decode_signed(v)).collect())
                }
                6 => {
                    let bits = t
                        .float_bits()
                        .ok_or_else(|| o.err("float constant of a non-float type"))?;
                    let v = o.get(0)?;
                    if bits < 64 && v >> bits != 0 {
                        return Err(o.err("float constant wider than its type"));
                    }
                    Constant::Float(v)
                }
                7 => {
                    let full = self.ty(ty, o.bit, B)?.clone();
                    let elems = self.aggregate_element_types(&full, o.len(), &o)?;
                    for (&v, et) in o.ops.iter().zip(elems) {
                        refs.push((v, Some(et)));
                    }
                    Constant::Aggregate(
                        o.ops
                            .iter()
                            .map(|&v| ValueId(u32::try_from(v).unwrap_or(u32::MAX)))
                            .collect(),
                    )
                }
                8 | 9 => {
                    let (len, elt) = match &t {
                        Type::Array { len, element } | Type::Vector { len, element } => {
                            (*len, *element)
                        }
                        _ => return Err(o.err("string constant of a non-array type")),
                    };
                    if !matches!(self.ty(elt, o.bit, B)?, Type::Integer(8)) {
                        return Err(o.err("string constant whose elements are not i8"));
                    }
                    let bytes = o.bytes_from(0)?;
                    let stored = if rec.code == 9 {
                        (bytes.len() as u64).saturating_add(1)
                    } else {
                        bytes.len() as u64
                    };
                    if stored != len {
                        return Err(
                            o.err(format!("string of {stored} bytes for an array of {len}"))
                        );
                    }
                    if rec.code == 8 {
                        Constant::String(bytes)
                    } else {
                        Constant::CString(bytes)
                    }
                }
                22 => {
                    let (len, elt) = match &t {
                        Type::Array { len, element } | Type::Vector { len, element } => {
                            (*len, *element)
                        }
                        _ => return Err(o.err("data constant of a non-array type")),
                    };
                    let et = self.ty(elt, o.bit, B)?;
                    if !(et.is_integer() || et.is_float()) {
                        return Err(o.err("data constant of non-scalar elements"));
                    }
                    if o.len() as u64 != len {
                        return Err(o.err(format!("{} elements for an array of {len}", o.len())));
                    }
                    Constant::Data(o.ops.to_vec())
                }
                10 => {
                    // CE_BINOP: [opcode, lhs, rhs, flags?]
                    let op = BinOp::from_code(o.get(0)?)
                        .ok_or_else(|| o.err("unknown binary operator"))?;
                    if t.is_float() && !op.allows_float() {
                        return Err(o.err("integer operator on float operands"));
                    }
                    refs.push((o.get(1)?, Some(ty)));
                    refs.push((o.get(2)?, Some(ty)));
                    Constant::Binary {
                        op,
                        lhs: vid(o.get(1)?),
                        rhs: vid(o.get(2)?),
                        flags: o.opt(3),
                    }
                }
                11 => {
                    // CE_CAST: [opcode, opty, opval]
                    let op = CastOp::from_code(o.get(0)?).ok_or_else(|| o.err("unknown cast"))?;
                    let from = self.type_id(o.get(1)?, o.bit, B)?;
                    refs.push((o.get(2)?, Some(from)));
                    Constant::Cast {
                        op,
                        value: vid(o.get(2)?),
                    }
                }
                12 | 20 => {
                    // CE_GEP / CE_INBOUNDS_GEP: [pointee type]? then (type, value) pairs.
                    let mut i = 0usize;
                    let source_ty = if o.len() % 2 == 1 {
                        i = 1;
                        Some(self.type_id(o.get(0)?, o.bit, B)?)
                    } else {
                        None
                    };
                    let mut operands = Vec::new();
                    while i < o.len() {
                        let t = self.type_id(o.get(i)?, o.bit, B)?;
                        let v = o.get(i.saturating_add(1))?;
                        refs.push((v, Some(t)));
                        operands.push(vid(v));
                        i = i.saturating_add(2);
                    }
                    if operands.is_empty() {
                        return Err(o.err("getelementptr without a base"));
                    }
                    Constant::Gep {
                        inbounds: rec.code == 20,
                        source_ty,
                        operands,
                    }
                }
                13 => {
                    refs.push((o.get(1)?, Some(ty)));
                    refs.push((o.get(2)?, Some(ty)));
                    refs.push((o.get(0)?, None));
                    Constant::Select {
                        cond: vid(o.get(0)?),
                        if_true: vid(o.get(1)?),
                        if_false: vid(o.get(2)?),
                    }
                }
                14 => {
                    // CE_EXTRACTELT: [opty, opval, idxty, idxval]
                    let vt = self.type_id(o.get(0)?, o.bit, B)?;
                    refs.push((o.get(1)?, Some(vt)));
                    let idx = if o.len() >= 4 { o.get(3)? } else { o.get(2)? };
                    refs.push((idx, None));
                    Constant::ExtractElement {
                        vector: vid(o.get(1)?),
                        index: vid(idx),
                    }
                }
                15 => {
                    refs.push((o.get(0)?, Some(ty)));
                    let idx = if o.len() >= 4 { o.get(3)? } else { o.get(2)? };
                    refs.push((o.get(1)?, None));
                    refs.push((idx, None));
                    Constant::InsertElement {
                        vector: vid(o.get(0)?),
                        element: vid(o.get(1)?),
                        index: vid(idx),
                    }
                }
                16 => {
                    refs.push((o.get(0)?, Some(ty)));
                    refs.push((o.get(1)?, Some(ty)));
                    refs.push((o.get(2)?, None));
                    Constant::ShuffleVector {
                        a: vid(o.get(0)?),
                        b: vid(o.get(1)?),
                        mask: vid(o.get(2)?),
                    }
                }
                19 => {
                    let vt = self.type_id(o.get(0)?, o.bit, B)?;
                    refs.push((o.get(1)?, Some(vt)));
                    refs.push((o.get(2)?, Some(vt)));
                    refs.push((o.get(3)?, None));
                    Constant::ShuffleVector {
                        a: vid(o.get(1)?),
                        b: vid(o.get(2)?),
                        mask: vid(o.get(3)?),
                    }
                }
                17 => {
                    // CE_CMP: [opty, lhs, rhs, pred]
                    let ot = self.type_id(o.get(0)?, o.bit, B)?;
                    refs.push((o.get(1)?, Some(ot)));
                    refs.push((o.get(2)?, Some(ot)));
                    let p = u8::try_from(o.get(3)?).map_err(|_| o.err("predicate"))?;
                    let pred = Predicate(p);
                    if !(pred.is_float() || pred.is_int()) {
                        return Err(o.err(format!("predicate {p}")));
                    }
                    Constant::Cmp {
                        pred,
                        lhs: vid(o.get(1)?),
                        rhs: vid(o.get(2)?),
                    }
                }
                21 => {
                    refs.push((o.get(1)?, None));
                    Constant::BlockAddress {
                        function: vid(o.get(1)?),
                        block: o.u32(2)?,
                    }
                }
                18 | 23 => Constant::Raw {
                    code: rec.code,
                    ops: o.ops.to_vec(),
                },
                c => return Err(o.err(format!("unknown constants record {c}"))),
            };
            for (v, t) in refs {
                let id =
                    u32::try_from(v).map_err(|_| o.err(format!("value id {v} out of range")))?;
                checks.push(Check {
                    id,
                    ty: t,
                    bit: o.bit,
                    what: "constant operand",
                });
            }
            let _ = base;
            values.push(Value {
                ty,
                kind: ValueKind::Constant(c),
                name: None,
            });
        }
        Ok(())
    }

    fn aggregate_element_types(
        &self,
        t: &Type,
        n: usize,
        o: &Ops<'_>,
    ) -> Result<Vec<TypeId>, LlvmError> {
        match t {
            Type::Struct { elements, .. } => {
                if elements.len() != n {
                    return Err(o.err(format!("{n} elements for a struct of {}", elements.len())));
                }
                Ok(elements.clone())
            }
            Type::Array { len, element } | Type::Vector { len, element } => {
                if *len != n as u64 {
                    return Err(o.err(format!("{n} elements for an array or vector of {len}")));
                }
                Ok(vec![*element; n])
            }
            _ => Err(o.err("aggregate constant of a non-aggregate type")),
        }
    }

    /// METADATA_BLOCK (LLVM 3.7 `parseMetadata`): strings, values, nodes, locations,
    /// debug-info records, names and kinds.
    pub fn read_metadata(
        &mut self,
        mut blk: BlockReader<'_, '_>,
        md: &mut Vec<Metadata>,
        base: u32,
        md_checks: &mut Vec<(u32, u64)>,
        checks: &mut Vec<Check>,
        module_level: bool,
    ) -> Result<(), LlvmError> {
        const B: &str = "METADATA";
        let mut pending_name: Option<String> = None;
        while let Some(rec) = blk.next_record()? {
            let o = Ops::new(&rec, B);
            if pending_name.is_some() && rec.code != 10 {
                return Err(o.err("METADATA_NAME not followed by METADATA_NAMED_NODE"));
            }
            let mdref = |v: u64, checks: &mut Vec<(u32, u64)>| -> Result<MdId, LlvmError> {
                let id =
                    u32::try_from(v).map_err(|_| o.err(format!("metadata id {v} out of range")))?;
                checks.push((id, o.bit));
                Ok(MdId(id))
            };
            let entry = match rec.code {
                1 => Metadata::String(o.bytes_from(0)?),
                2 => {
                    let ty = self.type_id(o.get(0)?, o.bit, B)?;
                    if matches!(self.ty(ty, o.bit, B)?, Type::Void | Type::Metadata) {
                        return Err(o.err("metadata value of type void or metadata"));
                    }
                    let id = o.u32(1)?;
                    checks.push(Check {
                        id,
                        ty: Some(ty),
                        bit: o.bit,
                        what: "metadata value",
                    });
                    Metadata::Value {
                        ty,
                        value: ValueId(id),
                    }
                }
                3 | 5 => {
                    let mut ops = Vec::with_capacity(o.len());
                    for &v in o.ops {
                        ops.push(if v == 0 {
                            None
                        } else {
                            Some(mdref(v.saturating_sub(1), md_checks)?)
                        });
                    }
                    Metadata::Node {
                        distinct: rec.code == 5,
                        ops,
                    }
                }
                4 => {
                    pending_name = Some(o.string_from(0)?);
                    continue;
                }
                10 => {
                    let name = pending_name
                        .take()
                        .ok_or_else(|| o.err("METADATA_NAMED_NODE without a name"))?;
                    let mut ops = Vec::with_capacity(o.len());
                    for &v in o.ops {
                        ops.push(mdref(v, md_checks)?);
                    }
                    self.m.named_metadata.push(NamedMetadata { name, ops });
                    continue;
                }
                6 => {
                    self.m.metadata_kinds.push(MetadataKind {
                        id: o.u32(0)?,
                        name: o.string_from(1)?,
                    });
                    continue;
                }
                7 => {
                    let scope = mdref(o.get(3)?, md_checks)?;
                    let ia = o.opt(4);
                    Metadata::Location {
                        distinct: o.get(0)? != 0,
                        line: o.u32(1)?,
                        column: o.u32(2)?,
                        scope,
                        inlined_at: if ia == 0 {
                            None
                        } else {
                            Some(mdref(ia.saturating_sub(1), md_checks)?)
                        },
                    }
                }
                8 | 9 | 12..=34 => Metadata::Debug {
                    code: rec.code,
                    distinct: o.opt(0) & 1 != 0,
                    ops: o.ops.to_vec(),
                },
                _ => continue,
            };
            let _ = (base, module_level);
            md.push(entry);
        }
        if pending_name.is_some() {
            return Err(LlvmError::Invalid {
                bit: blk.bit(),
                block: B,
                what: "METADATA_NAME without a named node".into(),
            });
        }
        Ok(())
    }
}

/// A NUL-terminated string from operands starting at `i`; returns it and the index after
/// the NUL.
fn cstr(o: &Ops<'_>, i: usize) -> Result<(String, usize), LlvmError> {
    let rest = o.ops.get(i..).unwrap_or_default();
    let end = rest
        .iter()
        .position(|&c| c == 0)
        .ok_or_else(|| o.err("attribute string without its NUL"))?;
    let bytes = rest
        .get(..end)
        .unwrap_or_default()
        .iter()
        .map(|&c| u8::try_from(c).map_err(|_| o.err("attribute character out of range")))
        .collect::<Result<Vec<u8>, _>>()?;
    Ok((
        String::from_utf8_lossy(&bytes).into_owned(),
        i.saturating_add(end).saturating_add(1),
    ))
}

fn vid(v: u64) -> ValueId {
    ValueId(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Reads the records of a block as stored, skipping nested blocks.
pub(super) fn read_records(mut blk: BlockReader<'_, '_>) -> Result<Vec<OwnedRecord>, LlvmError> {
    let mut out = Vec::new();
    while let Some(r) = blk.next_record()? {
        out.push(r.into());
    }
    Ok(out)
}
