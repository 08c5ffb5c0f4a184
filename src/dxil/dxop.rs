//! `dx.op` calls: DXIL's operations beyond core LLVM, written as calls to external
//! functions `dx.op.<class>[.<overload>]` whose first argument is the constant opcode
//! (DXIL.rst, "Operations via external functions").
//!
//! Owns: the operations by name ([`DxOp`]), their properties ([`DxOpInfo`]; both
//! generated into [`super::dxop_table`]) and decoding a call into a [`DxOpCall`], checked against the table: the opcode exists,
//! the callee's class is the operation's class, the argument count and types fit the
//! operation's parameters where the table states them.
//!
//! Does not own: what an operation does (lowering and execution), or the module itself
//! (see [`super::llvm`]).

pub use super::dxop_table::DxOp;
use super::dxop_table::{CORE_OPS, EXPERIMENTAL_OPS};
use super::llvm::{
    Constant, FunctionBody, InstKind, Module, Operand, Type, TypeId, ValueId, ValueKind,
};

/// The first experimental opcode (DXIL.rst "Opcode Table ExperimentalOps").
pub const EXPERIMENTAL_BASE: u32 = 0x8000_0000;

/// The prefix of every operation's function name.
pub const DX_OP_PREFIX: &str = "dx.op.";

/// The function attribute an operation's declaration carries (beside `nounwind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpAttr {
    /// `readnone`: reads and writes no memory.
    ReadNone,
    /// `readonly`: reads memory only.
    ReadOnly,
    /// No memory attribute: may read and write memory.
    None,
    /// `noduplicate` (barriers); may read and write memory.
    NoDuplicate,
    /// `noreturn` (ray-tracing hit terminators).
    NoReturn,
    /// `argmemonly`: touches only memory its arguments point to.
    ArgMemOnly,
    /// Not known for this operation.
    Unknown,
}

/// How an operation touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryAccess {
    /// Reads and writes nothing.
    None,
    /// Reads only.
    Read,
    /// May read and write.
    ReadWrite,
    /// Not known.
    Unknown,
}

impl OpAttr {
    /// How the operation touches memory.
    pub fn memory(self) -> MemoryAccess {
        match self {
            OpAttr::ReadNone => MemoryAccess::None,
            OpAttr::ReadOnly => MemoryAccess::Read,
            OpAttr::None | OpAttr::NoDuplicate | OpAttr::NoReturn | OpAttr::ArgMemOnly => {
                MemoryAccess::ReadWrite
            }
            OpAttr::Unknown => MemoryAccess::Unknown,
        }
    }
}

/// The properties of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DxOpInfo {
    /// The operation.
    pub op: DxOp,
    /// The opcode.
    pub opcode: u32,
    /// The name (`CreateHandle`, `FAbs`, …).
    pub name: &'static str,
    /// DXIL.rst's one-line description.
    pub description: &'static str,
    /// The operation class: the function name after `dx.op.` (`unary`, `createHandle`).
    pub class: Option<&'static str>,
    /// Overload letters (h half, f float, d double, 1 i1, 8 i8, w i16, i i32, l i64,
    /// u user type, o object, v none; `<` vector overloads).
    pub overloads: &'static str,
    /// The function attribute.
    pub attr: OpAttr,
    /// Return and parameter type codes after the opcode (see `tools/gen-dxop-table.py`),
    /// where known.
    pub signature: Option<(&'static str, &'static [&'static str])>,
}

impl DxOp {
    /// The operation with opcode `code`; `None` for a code DXIL.rst does not list.
    #[inline]
    pub fn from_code(code: u32) -> Option<DxOp> {
        op_info(code).map(|i| i.op)
    }

    /// The opcode.
    #[inline]
    pub const fn code(self) -> u32 {
        self as u32
    }
}

impl std::fmt::Display for DxOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The properties of an opcode.
pub fn op_info(opcode: u32) -> Option<&'static DxOpInfo> {
    match opcode.checked_sub(EXPERIMENTAL_BASE) {
        None => CORE_OPS.get(opcode as usize),
        Some(i) => EXPERIMENTAL_OPS.get(i as usize),
    }
}

/// An error decoding a `dx.op` call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("function @{function}, instruction {inst}: {what}")]
pub struct DxOpError {
    /// The function holding the call.
    pub function: String,
    /// The instruction index within it.
    pub inst: u32,
    /// What is wrong.
    pub what: String,
}

/// A decoded `dx.op` call, borrowing from the module.
#[derive(Debug, Clone, PartialEq)]
pub struct DxOpCall<'m> {
    /// The operation.
    pub info: &'static DxOpInfo,
    /// The callee's full name (`dx.op.unary.f32`).
    pub callee: &'m str,
    /// The arguments after the opcode.
    pub args: &'m [Operand],
    /// The call's result value, if it has one.
    pub result: Option<ValueId>,
    /// The result type.
    pub ty: TypeId,
    /// Index of the function in [`Module::functions`].
    pub function: u32,
    /// Index of the instruction in the function.
    pub inst: u32,
}

impl<'m> DxOpCall<'m> {
    /// The callee's name after `dx.op.` and before the overload (`unary`).
    pub fn class(&self) -> &'m str {
        let rest = self
            .callee
            .strip_prefix(DX_OP_PREFIX)
            .unwrap_or(self.callee);
        match self.info.class {
            Some(c) if rest.starts_with(c) => rest.get(..c.len()).unwrap_or(rest),
            _ => rest.split('.').next().unwrap_or(rest),
        }
    }

    /// The overload suffix of the callee's name (`f32`, `i32`), if any.
    pub fn overload(&self) -> Option<&'m str> {
        let rest = self
            .callee
            .strip_prefix(DX_OP_PREFIX)
            .unwrap_or(self.callee);
        rest.get(self.class().len()..)
            .and_then(|r| r.strip_prefix('.'))
    }

    /// The operation's name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The opcode.
    pub fn opcode(&self) -> u32 {
        self.info.opcode
    }

    /// The operation.
    pub fn op(&self) -> DxOp {
        self.info.op
    }

    /// Argument `i` (after the opcode) as a value id.
    pub fn arg(&self, i: usize) -> Option<ValueId> {
        self.args.get(i).and_then(|a| a.value())
    }
}

/// Whether a function name is a `dx.op` function.
pub fn is_dx_op(name: &str) -> bool {
    name.starts_with(DX_OP_PREFIX)
}

/// Decodes instruction `inst` of function `function` if it is a call to a `dx.op`
/// function: `Ok(None)` for any other instruction, an error for a `dx.op` call that
/// does not fit the table (unknown or non-constant opcode, wrong class for the opcode,
/// wrong argument count or types).
pub fn decode_call<'m>(
    m: &'m Module,
    function: u32,
    body: &'m FunctionBody,
    inst: u32,
) -> Result<Option<DxOpCall<'m>>, DxOpError> {
    let fname = || {
        m.functions
            .get(function as usize)
            .map(|f| f.name.clone())
            .unwrap_or_default()
    };
    let err = |what: String| DxOpError {
        function: fname(),
        inst,
        what,
    };
    let Some(i) = body.instructions.get(inst as usize) else {
        return Err(err("no such instruction".into()));
    };
    let InstKind::Call {
        callee,
        fn_ty,
        args,
        ..
    } = &i.kind
    else {
        return Ok(None);
    };
    let Some(callee_fn) = m.function_of_value(*callee) else {
        return Ok(None);
    };
    let Some(rest) = callee_fn.name.strip_prefix(DX_OP_PREFIX) else {
        return Ok(None);
    };
    let Some(Operand::Value(first)) = args.first() else {
        return Err(err(format!(
            "call to @{} without an opcode argument",
            callee_fn.name
        )));
    };
    let opcode = match m.value(Some(body), *first).map(|v| (&v.kind, m.ty(v.ty))) {
        Some((ValueKind::Constant(c), Some(Type::Integer(32)))) => c
            .as_int()
            .and_then(|v| u32::try_from(v & 0xffff_ffff).ok())
            .ok_or_else(|| err("opcode is not an integer constant".into()))?,
        Some((ValueKind::Constant(Constant::Undef), _)) | Some(_) | None => {
            return Err(err(format!(
                "call to @{} whose opcode is not an i32 constant",
                callee_fn.name
            )));
        }
    };
    let info = op_info(opcode).ok_or_else(|| {
        err(format!(
            "unknown dx.op opcode {opcode} (@{})",
            callee_fn.name
        ))
    })?;
    if let Some(c) = info.class {
        let ok = rest == c || rest.strip_prefix(c).is_some_and(|r| r.starts_with('.'));
        if !ok {
            return Err(err(format!(
                "opcode {opcode} ({}) is of class {c}, but is called through @{}",
                info.name, callee_fn.name
            )));
        }
    }
    let (ret, params): (TypeId, &[TypeId]) = match m.ty(*fn_ty) {
        Some(Type::Function { ret, params, .. }) => (*ret, params),
        _ => return Err(err("callee without a function type".into())),
    };
    if let Some((sig_ret, sig_params)) = info.signature {
        if params.len() != sig_params.len().saturating_add(1) {
            return Err(err(format!(
                "{} takes {} arguments after the opcode, @{} has {}",
                info.name,
                sig_params.len(),
                callee_fn.name,
                params.len().saturating_sub(1)
            )));
        }
        let mut overload_ty: Option<TypeId> = None;
        // Position 0 is the result, k the k-th argument after the opcode.
        let codes = std::iter::once(sig_ret).chain(sig_params.iter().copied());
        let types = std::iter::once(ret).chain(params.iter().skip(1).copied());
        // A native-vector overload (SM 6.9): the overload type is `<N x T>`, and a
        // result of a fixed scalar type (isSpecialFloat's i1, unaryBits' i32) is a
        // vector of N of them (DirectX-Specs 0030 "DXIL Vectors", elementwise overloads).
        let vector_at = codes
            .clone()
            .zip(types.clone())
            .find(|(c, t)| *c == "o" && matches!(m.ty(*t), Some(Type::Vector { .. })));
        let vector_len = match vector_at {
            Some((_, t)) => Some(
                vector_overload(m, info, t)
                    .map_err(|what| err(format!("{what} (@{})", callee_fn.name)))?,
            ),
            _ => None,
        };
        for (k, (code, t)) in codes.zip(types).enumerate() {
            let fits = match (k, vector_len, m.ty(t)) {
                (0, Some(n), Some(Type::Vector { len, element })) if code != "o" => {
                    *len == n && type_fits(m, code, *element, &mut None)
                }
                _ => type_fits(m, code, t, &mut overload_ty),
            };
            if !fits {
                let what = if k == 0 {
                    "result".to_owned()
                } else {
                    format!("argument {k}")
                };
                return Err(err(format!(
                    "{} {what}: type {} does not fit `{code}`",
                    info.name,
                    type_name(m, t)
                )));
            }
        }
    }
    Ok(Some(DxOpCall {
        info,
        callee: &callee_fn.name,
        args: args.get(1..).unwrap_or_default(),
        result: i.result,
        ty: i.ty,
        function,
        inst,
    }))
}

/// The most elements a native vector may have: HLSL's long vectors hold 1 to 1024
/// (DirectX-Specs proposal 0026 "HLSL Long Vectors"), which DXIL 1.9 carries as LLVM
/// vectors (proposal 0030 "DXIL Vectors").
pub const MAX_VECTOR_LEN: u64 = 1024;

/// hctdb.py's overload letter of a scalar type.
fn overload_letter(t: &Type) -> Option<char> {
    Some(match t {
        Type::Half => 'h',
        Type::Float => 'f',
        Type::Double => 'd',
        Type::Integer(1) => '1',
        Type::Integer(8) => '8',
        Type::Integer(16) => 'w',
        Type::Integer(32) => 'i',
        Type::Integer(64) => 'l',
        _ => return None,
    })
}

/// Checks a native-vector overload `t` of an operation and returns its length: the
/// operation has vector overloads (`<` in its letters), the element is one of its
/// overload types, and the length is 2 to [`MAX_VECTOR_LEN`] (0030: a single-element
/// vector is a scalar in DXIL outside library exports). The error says which rule fails.
pub fn vector_overload(m: &Module, info: &DxOpInfo, t: TypeId) -> Result<u64, String> {
    let Some(Type::Vector { len, element }) = m.ty(t) else {
        return Err(format!(
            "{} needs a vector overload, got {}",
            info.name,
            type_name(m, t)
        ));
    };
    let Some((scalars, _)) = info.overloads.split_once('<') else {
        return Err(format!(
            "{} has no vector overloads, but is called on {}",
            info.name,
            type_name(m, t)
        ));
    };
    let letter = m.ty(*element).and_then(overload_letter);
    if !letter.is_some_and(|c| scalars.contains(c)) {
        return Err(format!(
            "{} has no vector overload of {} elements (its element types: {scalars})",
            info.name,
            type_name(m, *element)
        ));
    }
    if !(2..=MAX_VECTOR_LEN).contains(len) {
        return Err(format!(
            "{} on a vector of {len} elements (DXIL vectors hold 2 to {MAX_VECTOR_LEN})",
            info.name
        ));
    }
    Ok(*len)
}

/// Whether type `t` fits the signature code `code`; the first `o` fixes the overload
/// type, later ones must equal it.
fn type_fits(m: &Module, code: &str, t: TypeId, overload: &mut Option<TypeId>) -> bool {
    let Some(ty) = m.ty(t) else { return false };
    let named =
        |prefix: &str| matches!(ty, Type::Struct { name: Some(n), .. } if n.starts_with(prefix));
    match code {
        "v" => matches!(ty, Type::Void),
        "i1" => *ty == Type::Integer(1),
        "i8" => *ty == Type::Integer(8),
        "i16" => *ty == Type::Integer(16),
        "i32" => *ty == Type::Integer(32),
        "i64" => *ty == Type::Integer(64),
        "f16" => *ty == Type::Half,
        "f32" => *ty == Type::Float,
        "f64" => *ty == Type::Double,
        "pf32" => matches!(ty, Type::Pointer { .. }),
        "res" => named("dx.types.Handle"),
        "rrt" => named("dx.types.ResRet"),
        "cbrt" => named("dx.types.CBufRet"),
        "dim" => named("dx.types.Dimensions"),
        "pos" => named("dx.types.SamplePos"),
        "2i32" => named("dx.types.twoi32"),
        "i32c" => named("dx.types.i32c"),
        "sdt" => named("dx.types.splitdouble"),
        "4i32" => named("dx.types.fouri32"),
        "prop" => named("dx.types.ResourceProperties"),
        "bind" => named("dx.types.ResBind"),
        // Four of the overload: dxc spells it as the named struct `%dx.types.fouri32` or
        // (SM 6.6 `Unpack4x8` to 16 bits) `%dx.types.fouri16`.
        "v4o" => matches!(ty, Type::Vector { len: 4, .. }) || named("dx.types.four"),
        "o" => match overload {
            Some(o) => *o == t,
            None => {
                *overload = Some(t);
                true
            }
        },
        // udt, obj: a user type, by pointer or by value.
        _ => true,
    }
}

/// A short spelling of a type for messages.
fn type_name(m: &Module, t: TypeId) -> String {
    match m.ty(t) {
        Some(Type::Integer(w)) => format!("i{w}"),
        Some(Type::Half) => "half".into(),
        Some(Type::Float) => "float".into(),
        Some(Type::Double) => "double".into(),
        Some(Type::Void) => "void".into(),
        Some(Type::Struct { name: Some(n), .. }) => format!("%{n}"),
        Some(Type::Vector { len, element }) => format!("<{len} x {}>", type_name(m, *element)),
        Some(other) => format!("{other:?}"),
        None => format!("{t}"),
    }
}

/// Decodes every `dx.op` call of the module, in function and instruction order.
pub fn decode_all(m: &Module) -> Result<Vec<DxOpCall<'_>>, DxOpError> {
    let mut out = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let fi = u32::try_from(fi).unwrap_or(u32::MAX);
        for ii in 0..body.instructions.len() {
            let ii = u32::try_from(ii).unwrap_or(u32::MAX);
            if let Some(c) = decode_call(m, fi, body, ii)? {
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_dense_and_matches_dxil_rst() {
        // DXIL.rst "Opcode Table CoreOps": opcodes are a dense range from 0.
        for (i, op) in CORE_OPS.iter().enumerate() {
            assert_eq!(op.opcode as usize, i);
        }
        let ch = op_info(57).unwrap();
        assert_eq!(
            (ch.name, ch.class, ch.attr),
            ("CreateHandle", Some("createHandle"), OpAttr::ReadOnly)
        );
        // hctdb.py: Barrier is noduplicate, Sin is readnone with half/float overloads.
        assert_eq!(op_info(80).unwrap().attr, OpAttr::NoDuplicate);
        assert_eq!(op_info(13).unwrap().name, "Sin");
        assert_eq!(op_info(13).unwrap().attr.memory(), MemoryAccess::None);
        assert_eq!(op_info(130).unwrap().name, "LegacyF32ToF16");
        assert_eq!(op_info(EXPERIMENTAL_BASE).unwrap().name, "ExperimentalNop");
        assert!(op_info(100_000).is_none());
    }

    /// The enum and the table are one list: every row's operation has the row's opcode
    /// and name, and the checked conversion finds it again.
    #[test]
    fn named_operations_are_the_table_rows() {
        let rows = CORE_OPS.iter().chain(EXPERIMENTAL_OPS);
        for row in rows {
            assert_eq!(row.op.code(), row.opcode, "{}", row.name);
            assert_eq!(row.op.name(), row.name);
            assert_eq!(row.op.to_string(), row.name);
            assert_eq!(DxOp::from_code(row.opcode), Some(row.op));
        }
        assert_eq!(DxOp::from_code(130), Some(DxOp::LegacyF32ToF16));
        assert_eq!(DxOp::Sample.code(), 60);
        assert_eq!(
            DxOp::from_code(EXPERIMENTAL_BASE),
            Some(DxOp::ExperimentalNop)
        );
        let past_core = u32::try_from(CORE_OPS.len()).unwrap();
        assert_eq!(DxOp::from_code(past_core), None);
        let past_experimental = EXPERIMENTAL_BASE + u32::try_from(EXPERIMENTAL_OPS.len()).unwrap();
        assert_eq!(DxOp::from_code(past_experimental), None);
    }
}
