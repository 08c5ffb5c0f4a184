//! Operands: register type, component selection, indices (immediate or relative),
//! immediate values, and the modifiers of an extended operand token.
//!
//! Owns: the typed [`Operand`] and reading one from an instruction's tokens (seed 002,
//! "Instruction Operand Format" and "Extended Instruction Operand Format"), including the
//! index dimensions each register type allows.
//!
//! Does not own: which operands an instruction has (see [`super::decode`]) or what a
//! declaration's operand means (see [`super::decl`]).

use std::fmt;

use super::decode::Cursor;
use super::error::DxbcError;
use super::token::{ExtendedOperandToken, OperandToken};

macro_rules! register_types {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $name:literal, $dims:expr;)*) => {
        /// A register type (`D3D10_SB_OPERAND_TYPE`, bits `[19:12]` of an operand token).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum RegisterType {
            $($(#[$doc])* $variant = $code,)*
        }

        impl RegisterType {
            /// The register type for a code; `None` for codes the format does not define.
            pub const fn from_code(code: u8) -> Option<RegisterType> {
                match code {
                    $($code => Some(RegisterType::$variant),)*
                    _ => None,
                }
            }

            /// The name used in error messages (the header's name, lower case).
            pub const fn name(self) -> &'static str {
                match self {
                    $(RegisterType::$variant => $name,)*
                }
            }

            /// The index dimensions (lowest, highest) an operand of this type may have,
            /// declarations included (seed 002 and the D3D11.3 functional spec's register
            /// tables; Shader Model 5.1 adds a dimension to t#, s#, u# and cb#).
            pub const fn index_dimensions(self) -> (u8, u8) {
                match self {
                    $(RegisterType::$variant => $dims,)*
                }
            }
        }
    };
}

register_types! {
    /// `r#`: temporary registers.
    Temp = 0, "temp", (1, 1);
    /// `v#`, `v[#][#]`: inputs (2D for geometry and hull control-point inputs).
    Input = 1, "input", (1, 2);
    /// `o#`: outputs.
    Output = 2, "output", (1, 2);
    /// `x#[#]`: indexable temporaries.
    IndexableTemp = 3, "indexable temp", (2, 2);
    /// `l(...)`: 32-bit immediates.
    Immediate32 = 4, "immediate32", (0, 0);
    /// `d(...)`: 64-bit immediates.
    Immediate64 = 5, "immediate64", (0, 0);
    /// `s#`: samplers.
    Sampler = 6, "sampler", (1, 3);
    /// `t#`: shader resource views.
    Resource = 7, "resource", (1, 3);
    /// `cb#[#]`: constant buffers.
    ConstantBuffer = 8, "constant buffer", (2, 3);
    /// `icb[#]`: the immediate constant buffer.
    ImmediateConstantBuffer = 9, "immediate constant buffer", (1, 1);
    /// `l#`: labels of subroutines.
    Label = 10, "label", (1, 1);
    /// `vPrim`: the input primitive id.
    InputPrimitiveId = 11, "input primitive id", (0, 0);
    /// `oDepth`: output depth.
    OutputDepth = 12, "output depth", (0, 0);
    /// `null`: discards a result.
    Null = 13, "null", (0, 0);
    /// `rasterizer`: the render target and depth/stencil (sample info).
    Rasterizer = 14, "rasterizer", (0, 0);
    /// `oMask`: output coverage mask.
    OutputCoverageMask = 15, "output coverage mask", (0, 0);
    /// `m#`: geometry-shader output streams.
    Stream = 16, "stream", (1, 1);
    /// `fb#`: function bodies (class linkage).
    FunctionBody = 17, "function body", (1, 1);
    /// `ft#`: function tables.
    FunctionTable = 18, "function table", (1, 1);
    /// `fp#[#][#]`: interface pointers.
    Interface = 19, "interface", (1, 3);
    /// Function input parameters.
    FunctionInput = 20, "function input", (1, 1);
    /// Function output parameters.
    FunctionOutput = 21, "function output", (1, 1);
    /// `vOutputControlPointID`.
    OutputControlPointId = 22, "output control point id", (0, 0);
    /// `vForkInstanceID`.
    InputForkInstanceId = 23, "input fork instance id", (0, 0);
    /// `vJoinInstanceID`.
    InputJoinInstanceId = 24, "input join instance id", (0, 0);
    /// `vicp[#][#]`: input control points of hull fork/join phases and domain shaders.
    InputControlPoint = 25, "input control point", (1, 2);
    /// `vocp[#][#]`: output control points of hull fork/join phases.
    OutputControlPoint = 26, "output control point", (1, 2);
    /// `vpc#`: patch constants of domain shaders and hull join phases.
    InputPatchConstant = 27, "input patch constant", (1, 2);
    /// `vDomain`: the domain point.
    InputDomainPoint = 28, "input domain point", (0, 0);
    /// `this[#]`: an interface's this pointer.
    ThisPointer = 29, "this pointer", (1, 1);
    /// `u#`: unordered access views.
    UnorderedAccessView = 30, "unordered access view", (1, 3);
    /// `g#`: thread-group shared memory.
    ThreadGroupSharedMemory = 31, "thread group shared memory", (1, 1);
    /// `vThreadID`.
    InputThreadId = 32, "input thread id", (0, 0);
    /// `vThreadGroupID`.
    InputThreadGroupId = 33, "input thread group id", (0, 0);
    /// `vThreadIDInGroup`.
    InputThreadIdInGroup = 34, "input thread id in group", (0, 0);
    /// `vCoverage`: the pixel's input coverage mask.
    InputCoverageMask = 35, "input coverage mask", (0, 0);
    /// `vThreadIDInGroupFlattened`.
    InputThreadIdInGroupFlattened = 36, "input thread id in group flattened", (0, 0);
    /// `vGSInstanceID`.
    InputGsInstanceId = 37, "input gs instance id", (0, 0);
    /// `oDepthGE`: depth output forced greater than or equal.
    OutputDepthGreaterEqual = 38, "output depth greater equal", (0, 0);
    /// `oDepthLE`: depth output forced less than or equal.
    OutputDepthLessEqual = 39, "output depth less equal", (0, 0);
    /// `vCycleCounter`: the cycle counter.
    CycleCounter = 40, "cycle counter", (0, 0);
    /// `oStencilRef`: the pixel's output stencil reference.
    OutputStencilRef = 41, "output stencil ref", (0, 0);
    /// `vInnerCoverage`: the pixel's inner coverage.
    InnerCoverage = 42, "inner coverage", (0, 0);
}

/// One of the four components of a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Component {
    /// x (0).
    X = 0,
    /// y (1).
    Y = 1,
    /// z (2).
    Z = 2,
    /// w (3).
    W = 3,
}

impl Component {
    /// The component for the low two bits of `v` (`D3D10_SB_4_COMPONENT_NAME`).
    pub const fn from_bits(v: u8) -> Component {
        match v & 3 {
            0 => Component::X,
            1 => Component::Y,
            2 => Component::Z,
            _ => Component::W,
        }
    }

    /// The index 0–3.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter: `x`, `y`, `z` or `w`.
    pub const fn letter(self) -> char {
        match self {
            Component::X => 'x',
            Component::Y => 'y',
            Component::Z => 'z',
            Component::W => 'w',
        }
    }
}

/// A write mask: bit 0 = x … bit 3 = w.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ComponentMask(pub u8);

impl ComponentMask {
    /// All four components.
    pub const XYZW: ComponentMask = ComponentMask(0xf);

    /// Whether component `c` is written.
    pub const fn contains(self, c: Component) -> bool {
        self.0 & (1 << c as u8) != 0
    }

    /// The number of components written.
    pub const fn count(self) -> u32 {
        (self.0 & 0xf).count_ones()
    }

    /// The components written, in order.
    pub fn components(self) -> impl Iterator<Item = Component> {
        [Component::X, Component::Y, Component::Z, Component::W]
            .into_iter()
            .filter(move |c| self.contains(*c))
    }
}

impl fmt::Display for ComponentMask {
    /// The letters of the mask: `xyz` (empty for an empty mask).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.components() {
            write!(f, "{}", c.letter())?;
        }
        Ok(())
    }
}

/// A swizzle: the source component read for destination components x, y, z, w.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [Component; 4]);

impl Swizzle {
    /// `.xyzw`: no reordering.
    pub const IDENTITY: Swizzle = Swizzle([Component::X, Component::Y, Component::Z, Component::W]);
}

impl fmt::Display for Swizzle {
    /// Four letters: `xyxx`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0 {
            write!(f, "{}", c.letter())?;
        }
        Ok(())
    }
}

/// How an operand selects components (bits `[11:00]` of the operand token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Components {
    /// No components (samplers in most uses, `null`, labels, streams).
    Zero,
    /// One component (scalar registers such as `vPrim`, `oDepth`, scalar immediates).
    One,
    /// Four components written through a mask (destinations, declarations).
    Mask(ComponentMask),
    /// Four components read through a swizzle (sources).
    Swizzle(Swizzle),
    /// One of four components, replicated (`r0.x` as a source).
    Select(Component),
    /// Four components with no selection: a 4-component immediate `l(a, b, c, d)`.
    Vec4,
}

impl Components {
    /// The components read, per destination component (x, y, z, w): a swizzle gives its
    /// four sources, a select replicates its component, a mask reads each component it
    /// names in place (others `None`), a scalar reads x.
    pub fn read_components(&self) -> [Option<Component>; 4] {
        use Component::*;
        match *self {
            Components::Zero => [None; 4],
            Components::One => [Some(X), None, None, None],
            Components::Mask(m) => [X, Y, Z, W].map(|c| m.contains(c).then_some(c)),
            Components::Swizzle(s) => s.0.map(Some),
            Components::Select(c) => [Some(c); 4],
            Components::Vec4 => [Some(X), Some(Y), Some(Z), Some(W)],
        }
    }
}

/// A source modifier of an extended operand token (`D3D10_SB_OPERAND_MODIFIER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OperandModifier {
    /// No modifier.
    #[default]
    None,
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// `-|x|`.
    AbsNeg,
}

/// The minimum precision an operand may be computed at (`D3D11_SB_OPERAND_MIN_PRECISION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MinPrecision {
    /// The shader model's default (32 bits).
    #[default]
    Default,
    /// `min16f`: at least 16-bit float.
    Float16,
    /// `min2_8f` (HLSL `min10float`): at least 2.8 fixed point.
    Float2_8,
    /// `min16i`: at least 16-bit signed integer.
    Sint16,
    /// `min16u`: at least 16-bit unsigned integer.
    Uint16,
}

impl MinPrecision {
    /// The precision for its 3-bit code; `None` for undefined codes (3, 6, 7).
    pub const fn from_code(code: u8) -> Option<MinPrecision> {
        match code {
            0 => Some(MinPrecision::Default),
            1 => Some(MinPrecision::Float16),
            2 => Some(MinPrecision::Float2_8),
            4 => Some(MinPrecision::Sint16),
            5 => Some(MinPrecision::Uint16),
            _ => None,
        }
    }
}

/// The register that supplies a relative index (`r0.x` in `x1[r0.x + 2]`): a register
/// with immediate indices only, read at one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RelativeRegister {
    /// The register type (`r#`, `x#[#]`, `v#`, …).
    pub register: RegisterType,
    /// How many of `indices` are used (0–2).
    pub index_count: u8,
    /// The register's immediate indices (`[1, 0]` for `x1`; `[3, 0]` for `r3`).
    pub indices: [u32; 2],
    /// The component read (x for a one-component register).
    pub component: Component,
    /// The register is a one-component register (`vOutputControlPointID`) rather than one
    /// component selected from four (`r0.y`).
    pub scalar: bool,
    /// Its minimum precision.
    pub min_precision: MinPrecision,
}

impl RelativeRegister {
    /// The immediate indices used.
    pub fn indices(&self) -> &[u32] {
        self.indices
            .get(..usize::from(self.index_count))
            .unwrap_or(&[])
    }
}

/// One index of an operand (`D3D10_SB_OPERAND_INDEX_REPRESENTATION`). The token format's
/// five representations reduce to two: 32- and 64-bit immediates become [`Index::Immediate`]
/// (64-bit values must fit in 32 bits), and relative indices with or without an immediate
/// part become [`Index::Relative`] (offset 0 when there is none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    /// A constant index.
    Immediate(u32),
    /// `register + offset`, computed per lane.
    Relative {
        /// The immediate part (0 for a purely relative index).
        offset: u32,
        /// The register read.
        register: RelativeRegister,
    },
}

impl Index {
    /// The constant index, if this index is immediate.
    pub fn immediate(&self) -> Option<u32> {
        match *self {
            Index::Immediate(v) => Some(v),
            Index::Relative { .. } => None,
        }
    }
}

/// An operand: a register (or immediate) with its component selection, indices and
/// modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The register type.
    pub register: RegisterType,
    /// The component selection.
    pub components: Components,
    /// How many of `indices` are used (the index dimension, 0–3).
    pub index_count: u8,
    /// The indices, outermost first (`cb0[5]` is `[0, 5]`; `v[2][1]` is `[2, 1]`).
    pub indices: [Index; 3],
    /// The 32-bit words of an immediate: one or four for `l(...)`, two or four (one or two
    /// doubles, low word first) for `d(...)`; zero otherwise.
    pub values: [u32; 4],
    /// The source modifier.
    pub modifier: OperandModifier,
    /// The minimum precision.
    pub min_precision: MinPrecision,
    /// Marked non-uniform (Shader Model 5.1 `NonUniformResourceIndex`).
    pub non_uniform: bool,
}

impl Operand {
    /// An operand of register type `register` with no indices and no modifiers.
    pub const fn new(register: RegisterType, components: Components) -> Operand {
        Operand {
            register,
            components,
            index_count: 0,
            indices: [Index::Immediate(0); 3],
            values: [0; 4],
            modifier: OperandModifier::None,
            min_precision: MinPrecision::Default,
            non_uniform: false,
        }
    }

    /// The indices used.
    pub fn indices(&self) -> &[Index] {
        self.indices
            .get(..usize::from(self.index_count))
            .unwrap_or(&[])
    }

    /// Index `i`, if present.
    pub fn index(&self, i: usize) -> Option<&Index> {
        self.indices().get(i)
    }

    /// The first index when it is immediate: the register number of `r3`, `cb3[..]`,
    /// `t3`, the variable id of Shader Model 5.1 `T3[..]`.
    pub fn register_number(&self) -> Option<u32> {
        self.index(0).and_then(Index::immediate)
    }

    /// The number of immediate values (`l(...)` words or `d(...)` doubles); 0 for registers.
    pub fn immediate_count(&self) -> usize {
        match (self.register, self.components) {
            (RegisterType::Immediate32, Components::One) => 1,
            (RegisterType::Immediate32, _) => 4,
            (RegisterType::Immediate64, Components::One) => 1,
            (RegisterType::Immediate64, _) => 2,
            _ => 0,
        }
    }

    /// The 32-bit immediate words of an `l(...)` operand (empty otherwise).
    pub fn immediate32(&self) -> &[u32] {
        if self.register == RegisterType::Immediate32 {
            self.values.get(..self.immediate_count()).unwrap_or(&[])
        } else {
            &[]
        }
    }

    /// The 64-bit immediates of a `d(...)` operand, low word first in the tokens.
    pub fn immediate64(&self) -> impl Iterator<Item = u64> + '_ {
        let n = if self.register == RegisterType::Immediate64 {
            self.immediate_count()
        } else {
            0
        };
        self.values.chunks_exact(2).take(n).map(|w| match w {
            [lo, hi] => u64::from(*lo) | (u64::from(*hi) << 32),
            _ => 0,
        })
    }

    /// The write mask of a destination (`None` unless the operand is in mask mode; a
    /// scalar register writes x).
    pub fn write_mask(&self) -> Option<ComponentMask> {
        match self.components {
            Components::Mask(m) => Some(m),
            Components::One => Some(ComponentMask(1)),
            _ => None,
        }
    }
}

/// Reads one operand at the cursor: the operand token, its extended operand tokens, its
/// immediate values, then its indices (seed 002: "Other tokens expected for the operand,
/// such as immediate values or relative address operands ... always follow OperandToken0
/// AND OperandToken1..n").
///
/// Refuses: an undefined register type, component count N, selection mode 3, an index
/// dimension the register type does not allow, an undefined index representation, an
/// undefined extended operand type, modifier or minimum precision, a 64-bit index past
/// 32 bits, and a relative index whose register is itself relatively indexed or does not
/// select exactly one component.
pub(super) fn read_operand(c: &mut Cursor<'_>) -> Result<Operand, DxbcError> {
    let mut op = Operand::new(RegisterType::Null, Components::Zero);
    read_operand_into(c, &mut op)?;
    Ok(op)
}

/// [`read_operand`] into `op`, which must be [`Operand::new`]'s default (no indices, no
/// modifiers, zero values); on error `op` is left partly written. Used to decode an
/// instruction's operands in place in the program's operand list.
pub(super) fn read_operand_into(c: &mut Cursor<'_>, op: &mut Operand) -> Result<(), DxbcError> {
    let at = c.location();
    let tok = OperandToken(c.next("operand token")?);
    let register =
        RegisterType::from_code(tok.operand_type()).ok_or_else(|| DxbcError::BadField {
            what: "register type",
            value: u32::from(tok.operand_type()),
            at,
        })?;
    let immediate = matches!(
        register,
        RegisterType::Immediate32 | RegisterType::Immediate64
    );
    let components = match tok.num_components() {
        0 => Components::Zero,
        1 => Components::One,
        2 if immediate => Components::Vec4,
        2 => match tok.selection_mode() {
            0 => Components::Mask(ComponentMask(tok.mask())),
            1 => Components::Swizzle(Swizzle(tok.swizzle().map(Component::from_bits))),
            2 => Components::Select(Component::from_bits(tok.select1())),
            m => {
                return Err(DxbcError::BadField {
                    what: "component selection mode",
                    value: u32::from(m),
                    at,
                });
            }
        },
        n => {
            return Err(DxbcError::BadField {
                what: "component count (N-component)",
                value: u32::from(n),
                at,
            });
        }
    };
    let dims = tok.index_dimension();
    let (lo, hi) = register.index_dimensions();
    if dims < lo || dims > hi {
        return Err(DxbcError::BadIndexDimension {
            register: register.name(),
            found: dims,
            expected: dims_words(lo, hi),
            at,
        });
    }
    op.register = register;
    op.components = components;
    if tok.extended() {
        read_extended_operand(c, op)?;
    }
    if immediate {
        let words = match (register, components) {
            (RegisterType::Immediate32, Components::One) => 1,
            (RegisterType::Immediate64, Components::One) => 2,
            (_, Components::Vec4) => 4,
            _ => {
                return Err(DxbcError::BadField {
                    what: "immediate component count",
                    value: u32::from(tok.num_components()),
                    at,
                });
            }
        };
        for slot in op.values.iter_mut().take(words) {
            *slot = c.next("immediate value")?;
        }
    }
    op.index_count = dims;
    for (dim, slot) in (0u32..).zip(op.indices.iter_mut().take(usize::from(dims))) {
        *slot = read_index(c, tok.index_representation(dim), at)?;
    }
    Ok(())
}

/// The expected index dimensions in words, for errors.
fn dims_words(lo: u8, hi: u8) -> &'static str {
    match (lo, hi) {
        (0, 0) => "0",
        (1, 1) => "1",
        (2, 2) => "2",
        (1, 2) => "1 or 2",
        (2, 3) => "2 or 3",
        (1, 3) => "1 to 3",
        _ => "another number",
    }
}

/// Reads the chain of extended operand tokens into `op` (seed 002: `[05:00]` type;
/// modifier `[13:06]`, min precision `[16:14]`, non-uniform `[17]`; `[31]` chains).
fn read_extended_operand(c: &mut Cursor<'_>, op: &mut Operand) -> Result<(), DxbcError> {
    loop {
        let at = c.location();
        let ext = ExtendedOperandToken(c.next("extended operand token")?);
        match ext.kind() {
            0 => {}
            1 => {
                op.modifier = match ext.modifier() {
                    0 => OperandModifier::None,
                    1 => OperandModifier::Neg,
                    2 => OperandModifier::Abs,
                    3 => OperandModifier::AbsNeg,
                    m => {
                        return Err(DxbcError::BadField {
                            what: "operand modifier",
                            value: u32::from(m),
                            at,
                        });
                    }
                };
                op.min_precision =
                    MinPrecision::from_code(ext.min_precision()).ok_or(DxbcError::BadField {
                        what: "minimum precision",
                        value: u32::from(ext.min_precision()),
                        at,
                    })?;
                op.non_uniform = ext.non_uniform();
            }
            k => {
                return Err(DxbcError::BadField {
                    what: "extended operand type",
                    value: u32::from(k),
                    at,
                });
            }
        }
        if !ext.extended() {
            return Ok(());
        }
    }
}

/// Reads one index of representation `rep` (`D3D10_SB_OPERAND_INDEX_REPRESENTATION`:
/// 0 imm32, 1 imm64 (HI32:LO32), 2 relative, 3 imm32 + relative, 4 imm64 + relative).
fn read_index(
    c: &mut Cursor<'_>,
    rep: u8,
    operand_at: super::error::Location,
) -> Result<Index, DxbcError> {
    let imm = match rep {
        0 | 3 => c.next("index")?,
        1 | 4 => {
            let at = c.location();
            let hi = c.next("index (high word)")?;
            let lo = c.next("index (low word)")?;
            let v = (u64::from(hi) << 32) | u64::from(lo);
            u32::try_from(v).map_err(|_| DxbcError::IndexTooWide { value: v, at })?
        }
        2 => 0,
        r => {
            return Err(DxbcError::BadField {
                what: "index representation",
                value: u32::from(r),
                at: operand_at,
            });
        }
    };
    if matches!(rep, 0 | 1) {
        return Ok(Index::Immediate(imm));
    }
    Ok(Index::Relative {
        offset: imm,
        register: read_relative(c)?,
    })
}

/// Reads the operand that supplies a relative index. It must select one component and
/// carry only immediate indices (D3D11.3 functional spec: the index is a scalar component
/// of a register such as `r#` or `x#[n]`).
fn read_relative(c: &mut Cursor<'_>) -> Result<RelativeRegister, DxbcError> {
    let at = c.location();
    let tok = OperandToken(c.next("relative index operand token")?);
    let register = RegisterType::from_code(tok.operand_type()).ok_or(DxbcError::BadField {
        what: "register type",
        value: u32::from(tok.operand_type()),
        at,
    })?;
    if matches!(
        register,
        RegisterType::Immediate32 | RegisterType::Immediate64
    ) {
        return Err(DxbcError::BadRelativeIndex {
            reason: "an immediate as index register",
            at,
        });
    }
    let (component, scalar) = match (tok.num_components(), tok.selection_mode()) {
        (1, _) => (Component::X, true),
        (2, 2) => (Component::from_bits(tok.select1()), false),
        _ => {
            return Err(DxbcError::BadRelativeIndex {
                reason: "index register does not select one component",
                at,
            });
        }
    };
    let dims = tok.index_dimension();
    let (lo, hi) = register.index_dimensions();
    if dims < lo || dims > hi || dims > 2 {
        return Err(DxbcError::BadIndexDimension {
            register: register.name(),
            found: dims,
            expected: dims_words(lo, hi.min(2)),
            at,
        });
    }
    let mut inner = Operand::new(register, Components::One);
    if tok.extended() {
        read_extended_operand(c, &mut inner)?;
        if inner.modifier != OperandModifier::None {
            return Err(DxbcError::BadRelativeIndex {
                reason: "source modifier on an index register",
                at,
            });
        }
    }
    let mut rel = RelativeRegister {
        register,
        index_count: dims,
        indices: [0; 2],
        component,
        scalar,
        min_precision: inner.min_precision,
    };
    for (dim, slot) in (0u32..).zip(rel.indices.iter_mut().take(usize::from(dims))) {
        *slot = match read_index(c, tok.index_representation(dim), at)? {
            Index::Immediate(v) => v,
            Index::Relative { .. } => {
                return Err(DxbcError::BadRelativeIndex {
                    reason: "index register is itself relatively indexed",
                    at,
                });
            }
        };
    }
    Ok(rel)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crate::container::FourCc;
    use crate::dxbc::token::encode;

    fn read(tokens: &[u32]) -> Result<(Operand, usize), DxbcError> {
        let mut c = Cursor::new(tokens, FourCc::SHEX, 0, "test");
        let op = read_operand(&mut c)?;
        Ok((op, c.used()))
    }

    // Seed 002, operand token: mask mode, 1D imm32 index — `r2.xz` as a destination.
    #[test]
    fn temp_destination_with_mask() {
        let (op, used) =
            read(&[encode::operand(0, 2, encode::mask(0b0101), 1, [0; 3]), 2]).unwrap();
        assert_eq!(used, 2);
        assert_eq!(op.register, RegisterType::Temp);
        assert_eq!(op.components, Components::Mask(ComponentMask(0b0101)));
        assert_eq!(op.indices(), &[Index::Immediate(2)]);
        assert_eq!(op.write_mask(), Some(ComponentMask(0b0101)));
    }

    // Seed 002: "[01:00] == 1_COMPONENT ... [11:02] Ignored"; 0D index (vPrim).
    #[test]
    fn scalar_zero_dimension_register() {
        let (op, used) = read(&[encode::operand(11, 1, 0, 0, [0; 3])]).unwrap();
        assert_eq!(used, 1);
        assert_eq!(op.register, RegisterType::InputPrimitiveId);
        assert_eq!(op.components, Components::One);
        assert!(op.indices().is_empty());
    }

    // Seed 002: immediate32 with 4 components is followed by 4 DWORDs.
    #[test]
    fn immediate32_vector_and_scalar() {
        let (op, used) = read(&[
            encode::operand(4, 2, 0, 0, [0; 3]),
            0x3f80_0000,
            0,
            2,
            0xffff_ffff,
        ])
        .unwrap();
        assert_eq!(used, 5);
        assert_eq!(op.components, Components::Vec4);
        assert_eq!(op.immediate32(), &[0x3f80_0000, 0, 2, 0xffff_ffff]);
        let (op, used) = read(&[encode::operand(4, 1, 0, 0, [0; 3]), 7]).unwrap();
        assert_eq!(used, 2);
        assert_eq!(op.immediate32(), &[7]);
    }

    // Immediate64 ("64bit/comp.imm.val(s) HI:LO"): two doubles in four DWORDs, low word first.
    #[test]
    fn immediate64_vector() {
        let one = 1.0f64.to_bits();
        let two = 2.0f64.to_bits();
        let toks = [
            encode::operand(5, 2, 0, 0, [0; 3]),
            one as u32,
            (one >> 32) as u32,
            two as u32,
            (two >> 32) as u32,
        ];
        let (op, used) = read(&toks).unwrap();
        assert_eq!(used, 5);
        assert_eq!(
            op.immediate64().map(f64::from_bits).collect::<Vec<_>>(),
            vec![1.0, 2.0]
        );
    }

    // Seed 002: swizzle and select-1 modes.
    #[test]
    fn swizzle_and_select() {
        let (op, _) = read(&[
            encode::operand(1, 2, encode::swizzle([0, 1, 0, 0]), 1, [0; 3]),
            1,
        ])
        .unwrap();
        assert_eq!(
            op.components,
            Components::Swizzle(Swizzle([
                Component::X,
                Component::Y,
                Component::X,
                Component::X
            ]))
        );
        let (op, _) = read(&[encode::operand(8, 2, encode::select1(3), 2, [0; 3]), 0, 4]).unwrap();
        assert_eq!(op.components, Components::Select(Component::W));
        assert_eq!(op.indices(), &[Index::Immediate(0), Index::Immediate(4)]);
        assert_eq!(op.components.read_components(), [Some(Component::W); 4]);
    }

    // Index representation 3 (imm32 + relative): `x1[r0.y + 2]`; the relative operand is a
    // complete operand after the immediate part.
    #[test]
    fn relative_index_with_offset() {
        let rel = encode::operand(0, 2, encode::select1(1), 1, [0; 3]);
        let toks = [
            encode::operand(3, 2, encode::mask(0xf), 2, [0, 3, 0]),
            1,
            2,
            rel,
            0,
        ];
        let (op, used) = read(&toks).unwrap();
        assert_eq!(used, 5);
        assert_eq!(op.register, RegisterType::IndexableTemp);
        let Index::Relative { offset, register } = op.indices()[1] else {
            panic!("relative")
        };
        assert_eq!(offset, 2);
        assert_eq!(register.register, RegisterType::Temp);
        assert_eq!(register.indices(), &[0]);
        assert_eq!(register.component, Component::Y);
    }

    // Representation 2 (relative) and 1/4 (imm64, HI32:LO32).
    #[test]
    fn relative_and_64_bit_indices() {
        let rel = encode::operand(0, 2, encode::select1(0), 1, [0; 3]);
        let (op, _) = read(&[
            encode::operand(9, 2, encode::swizzle([0, 1, 2, 3]), 1, [2, 0, 0]),
            rel,
            5,
        ])
        .unwrap();
        assert!(matches!(op.indices()[0], Index::Relative { offset: 0, .. }));
        let (op, used) =
            read(&[encode::operand(0, 2, encode::mask(1), 1, [1, 0, 0]), 0, 9]).unwrap();
        assert_eq!((op.indices(), used), (&[Index::Immediate(9)][..], 3));
        let err = read(&[encode::operand(0, 2, encode::mask(1), 1, [1, 0, 0]), 1, 9]).unwrap_err();
        assert!(
            matches!(
                err,
                DxbcError::IndexTooWide {
                    value: 0x1_0000_0009,
                    ..
                }
            ),
            "{err}"
        );
        let (op, used) = read(&[
            encode::operand(3, 2, encode::mask(1), 2, [0, 4, 0]),
            0,
            0,
            3,
            rel,
            1,
        ])
        .unwrap();
        assert_eq!(used, 6);
        assert!(matches!(op.indices()[1], Index::Relative { offset: 3, .. }));
    }

    // Seed 002, extended operand: modifier [13:06], min precision [16:14], non-uniform [17].
    #[test]
    fn extended_operand_modifiers() {
        let tok = encode::operand(0, 2, encode::swizzle([0; 4]), 1, [0; 3]) | 0x8000_0000;
        let (op, used) = read(&[tok, 1 | (3 << 6) | (1 << 14) | (1 << 17), 1]).unwrap();
        assert_eq!(used, 3);
        assert_eq!(op.modifier, OperandModifier::AbsNeg);
        assert_eq!(op.min_precision, MinPrecision::Float16);
        assert!(op.non_uniform);
        let err = read(&[tok, 1 | (4 << 6), 1]).unwrap_err();
        assert!(
            matches!(
                err,
                DxbcError::BadField {
                    what: "operand modifier",
                    ..
                }
            ),
            "{err}"
        );
        let err = read(&[tok, 1 | (3 << 14), 1]).unwrap_err();
        assert!(
            matches!(
                err,
                DxbcError::BadField {
                    what: "minimum precision",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn refuses_bad_operands() {
        // Register type 0x7f is undefined.
        assert!(matches!(
            read(&[encode::operand(0x7f, 0, 0, 0, [0; 3])]),
            Err(DxbcError::BadField {
                what: "register type",
                ..
            })
        ));
        // N-component operands are undefined.
        assert!(matches!(
            read(&[encode::operand(0, 3, 0, 1, [0; 3]), 0]),
            Err(DxbcError::BadField { .. })
        ));
        // Selection mode 3.
        assert!(matches!(
            read(&[encode::operand(0, 2, 3 << 2, 1, [0; 3]), 0]),
            Err(DxbcError::BadField { .. })
        ));
        // A temp needs exactly one index.
        assert!(matches!(
            read(&[encode::operand(0, 2, 0, 2, [0; 3]), 0, 0]),
            Err(DxbcError::BadIndexDimension { found: 2, .. })
        ));
        // Index representation 5.
        assert!(matches!(
            read(&[encode::operand(0, 2, 0, 1, [5, 0, 0]), 0]),
            Err(DxbcError::BadField {
                what: "index representation",
                ..
            })
        ));
        // The operand's index runs past the instruction.
        assert!(matches!(
            read(&[encode::operand(0, 2, 0, 1, [0; 3])]),
            Err(DxbcError::Truncated { .. })
        ));
        // A relative index inside a relative index.
        let inner = encode::operand(0, 2, encode::select1(0), 1, [2, 0, 0]);
        let toks = [encode::operand(0, 2, 0, 1, [2, 0, 0]), inner, inner, 0];
        assert!(matches!(
            read(&toks),
            Err(DxbcError::BadRelativeIndex { .. })
        ));
        // An index register read through a swizzle.
        let swz = encode::operand(0, 2, encode::swizzle([0; 4]), 1, [0; 3]);
        assert!(matches!(
            read(&[encode::operand(0, 2, 0, 1, [2, 0, 0]), swz, 0]),
            Err(DxbcError::BadRelativeIndex { .. })
        ));
    }
}
