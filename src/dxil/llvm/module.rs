//! The module and its global parts: globals, functions, aliases, attribute groups and
//! lists, metadata, and function bodies.

use super::bitstream::OwnedRecord;
use super::{
    BlockId, Instruction, MdId, Metadata, MetadataKind, NamedMetadata, Type, TypeId, Value, ValueId,
};

/// Linkage as stored in GLOBALVAR/FUNCTION records (LLVM bitcode `getDecodedLinkage`:
/// 0 external, 2 appending, 3 internal, 7 extern_weak, 8 common, 9 private,
/// 12 available_externally, 16/1 weak, 17/10 weak_odr, 18/4 linkonce, 19/11 linkonce_odr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Linkage(pub u32);

impl Linkage {
    /// The LLVM assembly keyword (empty for external).
    pub fn name(self) -> &'static str {
        match self.0 {
            0 | 5 | 6 | 15 => "",
            2 => "appending",
            3 => "internal",
            7 => "extern_weak",
            8 => "common",
            9 | 13 | 14 => "private",
            12 => "available_externally",
            1 | 16 => "weak",
            10 | 17 => "weak_odr",
            4 | 18 => "linkonce",
            11 | 19 => "linkonce_odr",
            _ => "?",
        }
    }
}

/// A global variable (GLOBALVAR record).
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalVar {
    /// The name from the symbol table.
    pub name: String,
    /// The global's value id.
    pub value: ValueId,
    /// The type of the variable's contents.
    pub value_ty: TypeId,
    /// Its pointer type (the value's type).
    pub ptr_ty: TypeId,
    /// The address space (0 default, 3 group shared).
    pub address_space: u32,
    /// `constant` (vs `global`).
    pub is_const: bool,
    /// The initializer, if any.
    pub initializer: Option<ValueId>,
    /// Linkage.
    pub linkage: Linkage,
    /// Alignment in bytes (0 when unstated).
    pub align: u64,
    /// Section: index into [`Module::section_names`].
    pub section: Option<u32>,
    /// Visibility (0 default, 1 hidden, 2 protected).
    pub visibility: u32,
    /// Thread-local mode (0 none).
    pub thread_local: u32,
    /// `unnamed_addr`.
    pub unnamed_addr: bool,
    /// `externally_initialized`.
    pub externally_initialized: bool,
    /// DLL storage class.
    pub dll_storage: u32,
    /// Comdat (as stored).
    pub comdat: u64,
    /// Bit offset of the record.
    pub bit: u64,
}

/// A function, declared or defined (FUNCTION record and, for definitions, its body).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The name from the symbol table.
    pub name: String,
    /// The function's value id.
    pub value: ValueId,
    /// The function type.
    pub ty: TypeId,
    /// The pointer-to-function type (the value's type).
    pub ptr_ty: TypeId,
    /// Calling convention.
    pub calling_conv: u32,
    /// A declaration (no body).
    pub is_declaration: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Attribute list: 1-based index into [`Module::attribute_lists`], 0 for none
    /// (record operand 4, seed `000_…`: "a function names its attribute list … by a
    /// 1-based index in operand 4").
    pub attributes: u32,
    /// Alignment in bytes (0 when unstated).
    pub align: u64,
    /// Section: index into [`Module::section_names`].
    pub section: Option<u32>,
    /// Visibility.
    pub visibility: u32,
    /// GC: index into [`Module::gc_names`].
    pub gc: Option<u32>,
    /// `unnamed_addr`.
    pub unnamed_addr: bool,
    /// Prologue data (value id + 1, 0 none) as stored.
    pub prologue: u64,
    /// DLL storage class.
    pub dll_storage: u32,
    /// Comdat as stored.
    pub comdat: u64,
    /// Prefix data (value id + 1, 0 none) as stored.
    pub prefix: u64,
    /// Personality function (value id + 1, 0 none) as stored.
    pub personality: u64,
    /// The body, for a definition.
    pub body: Option<FunctionBody>,
    /// Bit offset of the FUNCTION record.
    pub bit: u64,
}

/// A function's body: values, blocks, instructions, local metadata and attachments.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionBody {
    /// The first local value id (= the number of module-level values).
    pub first_value: u32,
    /// The local values, by id − `first_value`: arguments, constants, instruction
    /// results.
    pub values: Vec<Value>,
    /// The arguments' value ids.
    pub args: Vec<ValueId>,
    /// The basic blocks in order.
    pub blocks: Vec<BasicBlock>,
    /// The instructions, in order; metadata attachments count them from 0.
    pub instructions: Vec<Instruction>,
    /// The first function-local metadata id (= the number of module-level metadata).
    pub first_metadata: u32,
    /// Function-local metadata (values wrapped as metadata), by id − `first_metadata`.
    pub metadata: Vec<Metadata>,
    /// Attachments to the function itself (kind, node).
    pub attachments: Vec<(u32, MdId)>,
    /// USELIST records of the body, kept as stored.
    pub uselists: Vec<OwnedRecord>,
    /// Bit offset of the FUNCTION_BLOCK.
    pub bit: u64,
}

/// A basic block: a name and a run of instructions ending with a terminator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicBlock {
    /// The name from the symbol table (BBENTRY), if any.
    pub name: Option<String>,
    /// Index of the first instruction in [`FunctionBody::instructions`].
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
}

impl FunctionBody {
    /// The instructions of block `b`.
    pub fn block_instructions(&self, b: BlockId) -> &[Instruction] {
        self.blocks
            .get(b.index())
            .and_then(|bb| self.instructions.get(bb.start as usize..bb.end as usize))
            .unwrap_or_default()
    }

    /// A local value.
    pub fn local(&self, id: ValueId) -> Option<&Value> {
        id.0.checked_sub(self.first_value)
            .and_then(|i| self.values.get(i as usize))
    }
}

/// An alias (ALIAS record), kept with its operands.
#[derive(Debug, Clone, PartialEq)]
pub struct Alias {
    /// The name.
    pub name: String,
    /// The alias's value id.
    pub value: ValueId,
    /// Its type.
    pub ty: TypeId,
    /// The record as stored.
    pub record: Vec<u64>,
}

/// One attribute of a group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// An enum attribute by LLVM 3.7 kind number (see [`attribute_kind_name`]).
    Flag(u32),
    /// An integer attribute (align, dereferenceable, …): kind and value.
    Int(u32, u64),
    /// A string attribute: key and optional value (`"fp32-denorm-mode"="preserve"`).
    String(String, Option<String>),
}

/// An attribute group (PARAMATTR_GRP_CODE_ENTRY).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeGroup {
    /// The group id (`#N` in listings).
    pub id: u32,
    /// The slot: 0xFFFFFFFF the function, 0 the return value, n the n-th parameter.
    pub slot: u32,
    /// The attributes.
    pub attrs: Vec<Attribute>,
}

/// An attribute list (PARAMATTR_CODE_ENTRY): the groups it combines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeList {
    /// Group ids.
    pub groups: Vec<u32>,
}

/// The name LLVM 3.7 gives an enum attribute kind (LLVMBitCodes.h `AttributeKindCodes`).
pub fn attribute_kind_name(kind: u32) -> Option<&'static str> {
    const NAMES: [&str; 46] = [
        "",
        "align",
        "alwaysinline",
        "byval",
        "inlinehint",
        "inreg",
        "minsize",
        "naked",
        "nest",
        "noalias",
        "nobuiltin",
        "nocapture",
        "noduplicate",
        "noimplicitfloat",
        "noinline",
        "nonlazybind",
        "noredzone",
        "noreturn",
        "nounwind",
        "optsize",
        "readnone",
        "readonly",
        "returned",
        "returns_twice",
        "signext",
        "alignstack",
        "ssp",
        "sspreq",
        "sspstrong",
        "sret",
        "sanitize_address",
        "sanitize_thread",
        "sanitize_memory",
        "uwtable",
        "zeroext",
        "builtin",
        "cold",
        "optnone",
        "inalloca",
        "nonnull",
        "jumptable",
        "dereferenceable",
        "dereferenceable_or_null",
        "convergent",
        "safestack",
        "argmemonly",
    ];
    NAMES.get(kind as usize).copied().filter(|n| !n.is_empty())
}

/// The IDENTIFICATION block: producer string and epoch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Identification {
    /// The producer (`LLVM3.7…`).
    pub producer: String,
    /// The epoch.
    pub epoch: Option<u64>,
}

/// An LLVM 3.7 module as decoded, checked for self-consistency.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    /// The IDENTIFICATION block, when present.
    pub identification: Option<Identification>,
    /// MODULE_CODE_VERSION (1: relative value ids in function bodies).
    pub version: u64,
    /// The target triple.
    pub triple: Option<String>,
    /// The data layout string.
    pub datalayout: Option<String>,
    /// Module-level inline assembly.
    pub asm: Option<String>,
    /// The source file name (MODULE_CODE_SOURCE_FILENAME), when present.
    pub source_filename: Option<String>,
    /// The type table, by [`TypeId`]. Types past [`Module::stated_type_count`] were
    /// added by the reader (pointer types the stream implies but does not list).
    pub types: Vec<Type>,
    /// The number of types the type table stated.
    pub stated_type_count: u32,
    /// Attribute groups in PARAMATTR_GROUP record order.
    pub attribute_groups: Vec<AttributeGroup>,
    /// Attribute lists in PARAMATTR record order (functions and calls refer to them
    /// 1-based).
    pub attribute_lists: Vec<AttributeList>,
    /// Section names (MODULE_CODE_SECTIONNAME) in order.
    pub section_names: Vec<String>,
    /// GC names (MODULE_CODE_GCNAME) in order.
    pub gc_names: Vec<String>,
    /// Global variables in record order.
    pub globals: Vec<GlobalVar>,
    /// Functions in record order.
    pub functions: Vec<Function>,
    /// Aliases in record order.
    pub aliases: Vec<Alias>,
    /// Module-level values (globals, functions, aliases, constants), by [`ValueId`].
    pub values: Vec<Value>,
    /// Module-level metadata, by [`MdId`].
    pub metadata: Vec<Metadata>,
    /// Named metadata in record order.
    pub named_metadata: Vec<NamedMetadata>,
    /// Instruction metadata kinds in record order.
    pub metadata_kinds: Vec<MetadataKind>,
    /// Module-level USELIST records, kept as stored.
    pub uselists: Vec<OwnedRecord>,
}

impl Module {
    /// A type.
    pub fn ty(&self, id: TypeId) -> Option<&Type> {
        self.types.get(id.index())
    }

    /// A value, seen from inside `body` (module-level values from anywhere).
    pub fn value<'m>(&'m self, body: Option<&'m FunctionBody>, id: ValueId) -> Option<&'m Value> {
        match self.values.get(id.index()) {
            Some(v) => Some(v),
            None => body.and_then(|b| b.local(id)),
        }
    }

    /// A metadata entry, seen from inside `body`.
    pub fn md<'m>(&'m self, body: Option<&'m FunctionBody>, id: MdId) -> Option<&'m Metadata> {
        match self.metadata.get(id.index()) {
            Some(m) => Some(m),
            None => body.and_then(|b| {
                id.0.checked_sub(b.first_metadata)
                    .and_then(|i| b.metadata.get(i as usize))
            }),
        }
    }

    /// The function with this name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The function a value id names, if it is one.
    pub fn function_of_value(&self, id: ValueId) -> Option<&Function> {
        match self.values.get(id.index())?.kind {
            super::ValueKind::Function(i) => self.functions.get(i as usize),
            _ => None,
        }
    }

    /// The named metadata with this name.
    pub fn named(&self, name: &str) -> Option<&NamedMetadata> {
        self.named_metadata.iter().find(|n| n.name == name)
    }

    /// The id of an instruction metadata kind by name.
    pub fn metadata_kind(&self, name: &str) -> Option<u32> {
        self.metadata_kinds
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.id)
    }

    /// The attribute groups of a 1-based attribute list index (0: none).
    pub fn attribute_list_groups(&self, list: u32) -> impl Iterator<Item = &AttributeGroup> {
        let groups: &[u32] = list
            .checked_sub(1)
            .and_then(|i| self.attribute_lists.get(i as usize))
            .map_or(&[], |l| l.groups.as_slice());
        groups
            .iter()
            .filter_map(|g| self.attribute_groups.iter().find(|a| a.id == *g))
    }

    /// A function's string attribute on the function slot (`"fp32-denorm-mode"`).
    pub fn function_string_attribute(&self, f: &Function, key: &str) -> Option<Option<&str>> {
        self.attribute_list_groups(f.attributes)
            .filter(|g| g.slot == u32::MAX)
            .find_map(|g| {
                g.attrs.iter().find_map(|a| match a {
                    Attribute::String(k, v) if k == key => Some(v.as_deref()),
                    _ => None,
                })
            })
    }
}
