//! A hand-built module for tests: types, constants, functions, blocks and instructions
//! pushed one by one, so rules that need exact inputs (a lowering, a feature bit) are
//! tested on programs written here rather than only on the corpora.
//!
//! Public so that programs no compiler on hand can write are built the same way outside
//! the crate: the meshlet example's programs (`examples/make_meshlets.rs`) are modules
//! built here, written with [`super::write`] and wrapped by [`crate::container::write`].

#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use super::{
    BasicBlock, BinOp, BlockId as LBlock, CastOp, Constant, Function, FunctionBody, InstKind,
    Instruction, Linkage, MdId, Module, Operand, Predicate, Type, TypeId, Value, ValueId,
    ValueKind,
};
use crate::dxil::dxop::DxOp;

/// The first local value id of hand-built bodies (module values stay below it).
pub const FIRST: u32 = 100_000;

/// The first function-local metadata id of hand-built bodies (module metadata stays
/// below it).
pub const FIRST_MD: u32 = 50_000;

/// The metadata naming a finished module's one entry point, in dxc's shape: the
/// `dx.entryPoints` record `!{fn, name, signatures, resources, properties}` and the
/// named metadata `dx.version`, `dx.shaderModel`, `dx.resources` (each when given) and
/// `dx.entryPoints`, in that order (DXIL.rst, "Shader Properties and Capabilities").
pub struct EntryPoint<'a> {
    /// The entry's name (`main`, or a library export's).
    pub name: &'a str,
    /// The `dx.version` node.
    pub version: Option<MdId>,
    /// The `dx.shaderModel` node.
    pub shader_model: Option<MdId>,
    /// The signatures node, the record's third operand.
    pub signatures: Option<MdId>,
    /// The resources node of the record, its fourth operand (a library export's
    /// record has none).
    pub resources: Option<MdId>,
    /// The module's resources node, `dx.resources`.
    pub module_resources: Option<MdId>,
    /// The properties node (tag/value pairs), the record's fifth operand.
    pub properties: Option<MdId>,
}

impl EntryPoint<'_> {
    /// Appends the entry's metadata to `m`, whose function `fi` is the entry, and sets
    /// its named metadata (replacing any).
    pub fn declare(&self, m: &mut Module, fi: usize) {
        let f = &m.functions[fi];
        let value = super::Metadata::Value {
            ty: f.ptr_ty,
            value: f.value,
        };
        let mut push = |x: super::Metadata| {
            m.metadata.push(x);
            MdId(m.metadata.len() as u32 - 1)
        };
        let main = push(value);
        let name = push(super::Metadata::String(self.name.as_bytes().to_vec()));
        let entry = push(super::Metadata::Node {
            distinct: false,
            ops: vec![
                Some(main),
                Some(name),
                self.signatures,
                self.resources,
                self.properties,
            ],
        });
        m.named_metadata = [
            ("dx.version", self.version),
            ("dx.shaderModel", self.shader_model),
            ("dx.resources", self.module_resources),
            ("dx.entryPoints", Some(entry)),
        ]
        .into_iter()
        .filter_map(|(name, node)| {
            node.map(|n| super::NamedMetadata {
                name: name.into(),
                ops: vec![n],
            })
        })
        .collect();
    }
}

/// Builds a module with one entry function `main`, instruction by instruction.
pub struct Mb {
    /// The module being built (types, module values, metadata).
    pub m: Module,
    insts: Vec<Instruction>,
    vals: Vec<Value>,
    blocks: Vec<BasicBlock>,
    fn_types: std::collections::HashMap<ValueId, TypeId>,
    local_md: Vec<super::Metadata>,
    params: Vec<(ValueId, TypeId)>,
}

impl Mb {
    /// A module with data layout `datalayout` and nothing else.
    pub fn new(datalayout: &str) -> Mb {
        Mb {
            m: Module {
                datalayout: Some(datalayout.into()),
                ..Module::default()
            },
            insts: Vec::new(),
            vals: Vec::new(),
            blocks: Vec::new(),
            fn_types: Default::default(),
            local_md: Vec::new(),
            params: Vec::new(),
        }
    }

    /// Adds a parameter of type `ty` to `main` (in order; before any instruction is
    /// pushed) and returns its value: a library export's payload or attributes pointer.
    pub fn param(&mut self, ty: TypeId) -> ValueId {
        self.vals.push(Value {
            ty,
            kind: ValueKind::Argument(self.params.len() as u32),
            name: None,
        });
        let v = ValueId(FIRST + self.vals.len() as u32 - 1);
        self.params.push((v, ty));
        v
    }

    /// The id of type `t`, added to the type table on first use.
    pub fn t(&mut self, t: Type) -> TypeId {
        if let Some(i) = self.m.types.iter().position(|x| *x == t) {
            return TypeId(i as u32);
        }
        self.m.types.push(t);
        TypeId(self.m.types.len() as u32 - 1)
    }

    /// The `i<bits>` type.
    pub fn int(&mut self, bits: u32) -> TypeId {
        self.t(Type::Integer(bits))
    }

    /// The named struct type `name` of `elements`.
    pub fn named(&mut self, name: &str, elements: Vec<TypeId>) -> TypeId {
        self.t(Type::Struct {
            name: Some(name.into()),
            packed: false,
            elements,
            opaque: false,
        })
    }

    /// `%dx.types.Handle` (a struct of one `i8*`).
    pub fn handle_ty(&mut self) -> TypeId {
        let i8t = self.int(8);
        let p = self.t(Type::Pointer {
            pointee: i8t,
            address_space: 0,
        });
        self.named("dx.types.Handle", vec![p])
    }

    /// A module constant `c` of type `ty`.
    pub fn c(&mut self, ty: TypeId, c: Constant) -> ValueId {
        self.m.values.push(Value {
            ty,
            kind: ValueKind::Constant(c),
            name: None,
        });
        ValueId(self.m.values.len() as u32 - 1)
    }

    /// The `i<bits>` constant `v`.
    pub fn ci(&mut self, bits: u32, v: i64) -> ValueId {
        let t = self.int(bits);
        self.c(t, Constant::Int(v))
    }

    /// `undef` of type `ty`.
    pub fn undef(&mut self, ty: TypeId) -> ValueId {
        self.c(ty, Constant::Undef)
    }

    /// Declares a function `name` of type `ret (params)`.
    pub fn func(&mut self, name: &str, ret: TypeId, params: Vec<TypeId>) -> ValueId {
        let ty = self.t(Type::Function {
            vararg: false,
            ret,
            params,
        });
        let ptr_ty = self.t(Type::Pointer {
            pointee: ty,
            address_space: 0,
        });
        let v = ValueId(self.m.values.len() as u32);
        self.m.values.push(Value {
            ty: ptr_ty,
            kind: ValueKind::Function(self.m.functions.len() as u32),
            name: Some(name.into()),
        });
        self.m.functions.push(Function {
            name: name.into(),
            value: v,
            ty,
            ptr_ty,
            calling_conv: 0,
            is_declaration: true,
            linkage: Linkage(0),
            attributes: 0,
            align: 0,
            section: None,
            visibility: 0,
            gc: None,
            unnamed_addr: false,
            prologue: 0,
            dll_storage: 0,
            comdat: 0,
            prefix: 0,
            personality: 0,
            body: None,
            bit: 0,
        });
        self.fn_types.insert(v, ty);
        v
    }

    /// Starts a new block (the previous one ends at the current instruction).
    pub fn block(&mut self) -> LBlock {
        let at = self.insts.len() as u32;
        if let Some(b) = self.blocks.last_mut() {
            b.end = at;
        }
        self.blocks.push(BasicBlock {
            name: None,
            start: at,
            end: at,
        });
        LBlock(self.blocks.len() as u32 - 1)
    }

    /// Appends an instruction; returns its result value (for non-void types).
    pub fn push(&mut self, kind: InstKind, ty: TypeId) -> ValueId {
        let index = self.insts.len() as u32;
        let has_result = self.m.ty(ty) != Some(&Type::Void);
        let result = has_result.then(|| {
            self.vals.push(Value {
                ty,
                kind: ValueKind::Instruction(index),
                name: None,
            });
            ValueId(FIRST + self.vals.len() as u32 - 1)
        });
        self.insts.push(Instruction {
            kind,
            ty,
            result,
            debug_loc: None,
            debug_loc_again: false,
            attachments: Vec::new(),
            bit: 0,
        });
        result.unwrap_or(ValueId(u32::MAX))
    }

    /// The `void` type.
    pub fn void(&mut self) -> TypeId {
        self.t(Type::Void)
    }

    /// A binary operator (`fadd` etc. on float types).
    pub fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId, ty: TypeId) -> ValueId {
        self.push(
            InstKind::Binary {
                op,
                lhs: a,
                rhs: b,
                flags: 0,
            },
            ty,
        )
    }

    /// A cast of `v` to `ty`.
    pub fn cast(&mut self, op: CastOp, v: ValueId, ty: TypeId) -> ValueId {
        self.push(InstKind::Cast { op, value: v }, ty)
    }

    /// An integer compare with LLVM predicate `pred` (32 `eq` … 41 `sle`).
    pub fn icmp(&mut self, pred: u8, a: ValueId, b: ValueId) -> ValueId {
        let i1 = self.int(1);
        self.push(
            InstKind::Cmp {
                pred: Predicate(pred),
                lhs: a,
                rhs: b,
                flags: 0,
            },
            i1,
        )
    }

    /// The vector type `<len x element>`.
    pub fn vector(&mut self, len: u64, element: TypeId) -> TypeId {
        self.t(Type::Vector { len, element })
    }

    /// A compare with LLVM predicate `pred` (0–15 `fcmp`, 32–41 `icmp`) whose result
    /// is `i1`, or `<n x i1>` for vector operands.
    pub fn cmp(&mut self, pred: u8, a: ValueId, b: ValueId) -> ValueId {
        let i1 = self.int(1);
        let ty = match self.m.ty(self.ty_of(a)) {
            Some(Type::Vector { len, .. }) => {
                let len = *len;
                self.vector(len, i1)
            }
            _ => i1,
        };
        self.push(
            InstKind::Cmp {
                pred: Predicate(pred),
                lhs: a,
                rhs: b,
                flags: 0,
            },
            ty,
        )
    }

    /// `select cond, a, b` (of `a`'s type).
    pub fn select(&mut self, cond: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.ty_of(a);
        self.push(
            InstKind::Select {
                cond,
                if_true: a,
                if_false: b,
            },
            ty,
        )
    }

    /// `extractvalue agg, index` of type `ty`.
    pub fn extract_value(&mut self, agg: ValueId, index: u32, ty: TypeId) -> ValueId {
        self.push(
            InstKind::ExtractValue {
                aggregate: agg,
                indices: vec![index],
            },
            ty,
        )
    }

    /// `extractelement v, index` (of `v`'s element type).
    pub fn extract_element(&mut self, v: ValueId, index: ValueId) -> ValueId {
        let ty = match self.m.ty(self.ty_of(v)) {
            Some(Type::Vector { element, .. }) => *element,
            _ => self.ty_of(v),
        };
        self.push(InstKind::ExtractElement { vector: v, index }, ty)
    }

    /// `insertelement v, element, index`.
    pub fn insert_element(&mut self, v: ValueId, element: ValueId, index: ValueId) -> ValueId {
        let ty = self.ty_of(v);
        self.push(
            InstKind::InsertElement {
                vector: v,
                element,
                index,
            },
            ty,
        )
    }

    /// `shufflevector a, b, mask` (`mask` a constant vector of `i32`).
    pub fn shuffle(&mut self, a: ValueId, b: ValueId, mask: &[i64]) -> ValueId {
        let i32t = self.int(32);
        let mt = self.vector(mask.len() as u64, i32t);
        let ids: Vec<ValueId> = mask.iter().map(|&k| self.ci(32, k)).collect();
        let len = mask.len() as u64;
        let mask = self.c(mt, Constant::Aggregate(ids));
        let element = match self.m.ty(self.ty_of(a)) {
            Some(Type::Vector { element, .. }) => *element,
            _ => self.ty_of(a),
        };
        let ty = self.vector(len, element);
        self.push(InstKind::ShuffleVector { a, b, mask }, ty)
    }

    /// A phi of `incoming` (value, predecessor block) pairs.
    pub fn phi(&mut self, ty: TypeId, incoming: Vec<(ValueId, LBlock)>) -> ValueId {
        self.push(InstKind::Phi { incoming }, ty)
    }

    /// Adds the incoming pair (`value`, `from`) to phi `phi` (for a value defined after
    /// it, like a loop's next iteration).
    pub fn add_incoming(&mut self, phi: ValueId, value: ValueId, from: LBlock) {
        let Some(ValueKind::Instruction(i)) = phi
            .0
            .checked_sub(FIRST)
            .and_then(|k| self.vals.get(k as usize))
            .map(|v| &v.kind)
        else {
            return;
        };
        if let Some(InstKind::Phi { incoming }) =
            self.insts.get_mut(*i as usize).map(|x| &mut x.kind)
        {
            incoming.push((value, from));
        }
    }

    /// An unconditional branch.
    pub fn br(&mut self, target: LBlock) {
        let v = self.void();
        self.push(InstKind::Br { target }, v);
    }

    /// A conditional branch: `t` when `cond`, else `f`.
    pub fn cond_br(&mut self, cond: ValueId, t: LBlock, f: LBlock) {
        let v = self.void();
        self.push(
            InstKind::CondBr {
                cond,
                if_true: t,
                if_false: f,
            },
            v,
        );
    }

    /// `ret void`.
    pub fn ret(&mut self) {
        let v = self.void();
        self.push(InstKind::Ret { value: None }, v);
    }

    /// Calls `dx.op.<name>` with the opcode of `op` and `args`, declaring it on first use.
    pub fn dx(&mut self, name: &str, op: DxOp, args: &[ValueId], ret: TypeId) -> ValueId {
        let i32t = self.int(32);
        let mut params = vec![i32t];
        for a in args {
            params.push(self.ty_of(*a));
        }
        let full = format!("dx.op.{name}");
        let callee = match self.m.functions.iter().position(|f| f.name == full) {
            Some(i) => self.m.functions[i].value,
            None => self.func(&full, ret, params),
        };
        let opv = self.ci(32, op.code().into());
        let mut ops = vec![Operand::Value(opv)];
        ops.extend(args.iter().map(|a| Operand::Value(*a)));
        let fn_ty = self.fn_types[&callee];
        self.push(
            InstKind::Call {
                callee,
                fn_ty,
                args: ops,
                attributes: 0,
                calling_conv: 0,
                tail: 0,
                flags: 0,
                explicit_type: true,
            },
            ret,
        )
    }

    /// Adds module-level metadata.
    pub fn md(&mut self, x: super::Metadata) -> super::MdId {
        self.m.metadata.push(x);
        super::MdId(self.m.metadata.len() as u32 - 1)
    }

    /// Adds function-local metadata (a local value wrapped as metadata).
    pub fn local_md(&mut self, x: super::Metadata) -> super::MdId {
        self.local_md.push(x);
        super::MdId(FIRST_MD + self.local_md.len() as u32 - 1)
    }

    /// Gives the last instruction a source location.
    pub fn at(&mut self, loc: super::DebugLoc) {
        self.insts.last_mut().unwrap().debug_loc = Some(loc);
    }

    /// Calls the function `name` (declaring it on first use) with `args`.
    pub fn call(&mut self, name: &str, ret: TypeId, params: Vec<TypeId>, args: Vec<Operand>) {
        let callee = match self.m.functions.iter().position(|f| f.name == name) {
            Some(i) => self.m.functions[i].value,
            None => self.func(name, ret, params),
        };
        let fn_ty = self.fn_types[&callee];
        self.push(
            InstKind::Call {
                callee,
                fn_ty,
                args,
                attributes: 0,
                calling_conv: 0,
                tail: 0,
                flags: 0,
                explicit_type: true,
            },
            ret,
        );
    }

    /// Declares a global variable of `ty` in address space `space`.
    pub fn global(&mut self, name: &str, ty: TypeId, space: u32, init: Option<ValueId>) -> ValueId {
        let ptr_ty = self.t(Type::Pointer {
            pointee: ty,
            address_space: space,
        });
        let v = ValueId(self.m.values.len() as u32);
        self.m.values.push(Value {
            ty: ptr_ty,
            kind: ValueKind::Global(self.m.globals.len() as u32),
            name: Some(name.into()),
        });
        self.m.globals.push(crate::dxil::llvm::GlobalVar {
            name: name.into(),
            value: v,
            value_ty: ty,
            ptr_ty,
            address_space: space,
            is_const: init.is_some() && space == 0 && name.starts_with("const"),
            initializer: init,
            linkage: Linkage(3),
            align: 4,
            section: None,
            visibility: 0,
            thread_local: 0,
            unnamed_addr: false,
            externally_initialized: false,
            dll_storage: 0,
            comdat: 0,
            bit: 0,
        });
        v
    }

    /// A 4-byte-aligned load of `ty` from `ptr`.
    pub fn load(&mut self, ptr: ValueId, ty: TypeId) -> ValueId {
        self.push(
            InstKind::Load {
                ptr,
                align: 4,
                volatile: false,
                atomic: None,
            },
            ty,
        )
    }

    /// A 4-byte-aligned store of `value` to `ptr`.
    pub fn store(&mut self, ptr: ValueId, value: ValueId) {
        let void = self.void();
        self.push(
            InstKind::Store {
                ptr,
                value,
                align: 4,
                volatile: false,
                atomic: None,
            },
            void,
        );
    }

    /// The type of value `v` (module or local).
    pub fn ty_of(&self, v: ValueId) -> TypeId {
        match self.m.values.get(v.index()) {
            Some(x) => x.ty,
            None => self.vals[(v.0 - FIRST) as usize].ty,
        }
    }

    /// A handle to range `id` of class `class` (createHandle, SM 6.0).
    pub fn handle(&mut self, class: i64, id: i64, index: i64) -> ValueId {
        let h = self.handle_ty();
        let c = self.ci(8, class);
        let i = self.ci(32, id);
        let x = self.ci(32, index);
        let f = self.ci(1, 0);
        self.dx("createHandle", DxOp::CreateHandle, &[c, i, x, f], h)
    }

    /// `rawBufferStore.i32(h, addr, undef, v, undef, undef, undef, 1, 4)`.
    pub fn store_word(&mut self, h: ValueId, addr: ValueId, v: ValueId) {
        let i32t = self.int(32);
        let u = self.undef(i32t);
        let mask = self.ci(8, 1);
        let align = self.ci(32, 4);
        let void = self.void();
        self.dx(
            "rawBufferStore.i32",
            DxOp::RawBufferStore,
            &[h, addr, u, v, u, u, u, mask, align],
            void,
        );
    }

    /// Defines a function `name` of no parameters returning `void` by the instructions
    /// pushed so far, and starts an empty body for the next function: a hull program's
    /// patch-constant function is a second body beside `main` (DXIL.rst "Hull shader
    /// representation"). Returns the function's index in the module.
    pub fn define(&mut self, name: &str) -> usize {
        if let Some(b) = self.blocks.last_mut() {
            b.end = self.insts.len() as u32;
        }
        let void = self.void();
        self.func(name, void, Vec::new());
        let fi = self.m.functions.len() - 1;
        let f = &mut self.m.functions[fi];
        f.is_declaration = false;
        f.body = Some(FunctionBody {
            first_value: FIRST,
            values: std::mem::take(&mut self.vals),
            args: Vec::new(),
            blocks: std::mem::take(&mut self.blocks),
            instructions: std::mem::take(&mut self.insts),
            first_metadata: FIRST_MD,
            metadata: std::mem::take(&mut self.local_md),
            attachments: Vec::new(),
            uselists: Vec::new(),
            bit: 0,
        });
        fi
    }

    /// Finishes the module: `main` defined by the instructions pushed.
    pub fn finish(mut self) -> (Module, usize) {
        if let Some(b) = self.blocks.last_mut() {
            b.end = self.insts.len() as u32;
        }
        let void = self.void();
        let params = self.params.iter().map(|p| p.1).collect();
        let main = self.func("main", void, params);
        let fi = self.m.functions.len() - 1;
        let f = &mut self.m.functions[fi];
        f.is_declaration = false;
        f.body = Some(FunctionBody {
            first_value: FIRST,
            values: self.vals,
            args: self.params.iter().map(|p| p.0).collect(),
            blocks: self.blocks,
            instructions: self.insts,
            first_metadata: FIRST_MD,
            metadata: self.local_md,
            attachments: Vec::new(),
            uselists: Vec::new(),
            bit: 0,
        });
        let _ = main;
        #[cfg(test)]
        crate::dxil::llvm::write::tests::check_built(&self.m);
        (self.m, fi)
    }
}
