//! LLVM types: the module's type table (TYPE_BLOCK_ID_NEW).

use std::fmt;

/// Index into [`crate::dxil::llvm::Module::types`]. `Display` prints `type12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

impl TypeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "type{}", self.0)
    }
}

/// One LLVM 3.7 type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`.
    Void,
    /// `half` (IEEE binary16).
    Half,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `x86_fp80` (never in DXIL; kept so a module that states it still decodes).
    X86Fp80,
    /// `fp128`.
    Fp128,
    /// `ppc_fp128`.
    PpcFp128,
    /// `x86_mmx`.
    X86Mmx,
    /// `label` (basic blocks).
    Label,
    /// `metadata`.
    Metadata,
    /// `token`.
    Token,
    /// `iN`.
    Integer(u32),
    /// `<pointee> addrspace(n)*`.
    Pointer {
        /// The pointee type.
        pointee: TypeId,
        /// The address space (0 default, 3 group shared in DXIL).
        address_space: u32,
    },
    /// A function type.
    Function {
        /// Whether the function takes `...`.
        vararg: bool,
        /// The return type.
        ret: TypeId,
        /// The parameter types.
        params: Vec<TypeId>,
    },
    /// A structure: named (`%name = type {…}`) or literal (`{…}`); opaque when it has no
    /// body.
    Struct {
        /// The name (STRUCT_NAME record before it), if any.
        name: Option<String>,
        /// `<{…}>` packed layout.
        packed: bool,
        /// Element types (empty for an opaque struct).
        elements: Vec<TypeId>,
        /// No body was given (OPAQUE record).
        opaque: bool,
    },
    /// `[n x element]`.
    Array {
        /// Element count.
        len: u64,
        /// Element type.
        element: TypeId,
    },
    /// `<n x element>`.
    Vector {
        /// Element count.
        len: u64,
        /// Element type.
        element: TypeId,
    },
}

impl Type {
    /// Whether this is `half`, `float`, `double` or another floating-point type.
    pub fn is_float(&self) -> bool {
        matches!(
            self,
            Type::Half | Type::Float | Type::Double | Type::X86Fp80 | Type::Fp128 | Type::PpcFp128
        )
    }

    /// Whether this is an integer type.
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Integer(_))
    }

    /// The width of an integer type.
    pub fn int_width(&self) -> Option<u32> {
        match self {
            Type::Integer(w) => Some(*w),
            _ => None,
        }
    }

    /// Whether this is a pointer type.
    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer { .. })
    }

    /// Whether values of this type can be operands and results of instructions (every
    /// type but `void`, `label`, `metadata` and function types).
    pub fn is_first_class(&self) -> bool {
        !matches!(
            self,
            Type::Void | Type::Label | Type::Metadata | Type::Function { .. }
        )
    }

    /// The bit width of a floating-point type.
    pub fn float_bits(&self) -> Option<u32> {
        match self {
            Type::Half => Some(16),
            Type::Float => Some(32),
            Type::Double => Some(64),
            Type::X86Fp80 => Some(80),
            Type::Fp128 | Type::PpcFp128 => Some(128),
            _ => None,
        }
    }
}
