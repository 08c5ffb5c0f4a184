//! The fxc-style listing of a decoded [`Program`]: the text `fxc /dumpbin` prints for a
//! program's instructions (without fxc's comment header of signatures and resources).
//!
//! Owns: fxc's spellings — the profile line (`cs_5_0`), `dcl_*` lines, mnemonics with
//! their suffixes (`_sat`, `_z`/`_nz`, `_aoffimmi(u,v,w)`, `_indexable(dim)(types)`,
//! `_uint`, `[precise(xy)]`, `sync_g_t`), operands (`r0.xyzw`, `cb0[1].x`,
//! `x0[r1.x + 2].y`, `-|r1.x|`, `vThreadID.xy`), immediates printed by the type of the
//! operand slot, the immediate constant buffer block, hull-shader phases, and two
//! spaces of indentation per open `if`/`loop`/`switch`.
//!
//! Does not own: decoding (see [`super::decode`]). It is fed a decoded program, not raw
//! bytes, so the decoder lints that forbid unchecked arithmetic are relaxed here.
//!
//! Where fxc's exact spelling is not known from real listings, the choice is written
//! next to the code that makes it.

// Printing a decoded program: no untrusted lengths reach this module.
#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use std::fmt::Write;

use super::decl::{
    BindingRange, CustomData, Declaration, GlobalFlags, HullPhase, Primitive, ReturnType, UavFlags,
};
use super::decode::{Executable, InfoReturnType, InstructionKind, Program, Test};
use super::opcode::{Opcode, OperandType};
use super::operand::{
    Components, Index, MinPrecision, Operand, OperandModifier, RegisterType, RelativeRegister,
};

/// The listing of `program`, one instruction per line, ending with a newline.
pub fn listing(program: &Program) -> String {
    let mut out = String::with_capacity(program.instructions.len() * 40 + 16);
    write_listing(program, &mut out);
    out
}

/// Appends the listing of `program` to `out`.
pub fn write_listing(program: &Program, out: &mut String) {
    let p = Printer {
        program,
        sm51: program.is_sm51(),
    };
    let _ = writeln!(out, "{}", program.version);
    let mut indent = 0usize;
    for inst in &program.instructions {
        match &inst.kind {
            InstructionKind::Declaration(d) => {
                line_start(out, indent);
                p.declaration(out, d);
            }
            InstructionKind::CustomData(cd) => {
                line_start(out, indent);
                p.custom_data(out, cd);
            }
            InstructionKind::HullPhase(phase) => {
                indent = 0;
                out.push_str(match phase {
                    HullPhase::Declarations => "hs_decls",
                    HullPhase::ControlPoint => "hs_control_point_phase",
                    HullPhase::Fork => "hs_fork_phase",
                    HullPhase::Join => "hs_join_phase",
                });
            }
            InstructionKind::Executable(e) => {
                let (before, after) = match e.opcode {
                    Opcode::If | Opcode::Loop | Opcode::Switch => (0, 1),
                    Opcode::Else => (1, 0),
                    Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => {
                        indent = indent.saturating_sub(1);
                        (0, 0)
                    }
                    _ => (0, 0),
                };
                line_start(out, indent.saturating_sub(before));
                p.executable(out, e);
                indent += after;
            }
        }
        out.push('\n');
    }
}

fn line_start(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

struct Printer<'a> {
    program: &'a Program,
    sm51: bool,
}

impl Printer<'_> {
    /// An executable instruction: mnemonic, word suffixes, `[precise]`, parenthesized
    /// modifiers, return-type suffix, then operands.
    ///
    /// Order of suffixes, from real fxc listings: `sample_c_lz_aoffimmi_indexable(-1,-1,0)
    /// (texture2d)(float,float,float,float)`, `resinfo_indexable(texture2d)(float,float,
    /// float,float)_uint`, `ld_structured_indexable(structured_buffer, stride=4)(mixed,…)`,
    /// `mov [precise(xy)] r1.xy, v1.xyxx`. `_sat` follows the mnemonic (`mad_sat`).
    fn executable(&self, out: &mut String, e: &Executable) {
        let info = e.opcode.info();
        out.push_str(info.mnemonic);
        if let Some(sync) = e.sync {
            for (set, name) in [
                (sync.uav_memory_global, "_uglobal"),
                (sync.uav_memory_group, "_ugroup"),
                (sync.group_shared_memory, "_g"),
                (sync.threads_in_group, "_t"),
            ] {
                if set {
                    out.push_str(name);
                }
            }
        }
        match e.test {
            Some(Test::Zero) => out.push_str("_z"),
            Some(Test::NonZero) => out.push_str("_nz"),
            None => {}
        }
        if e.saturate {
            out.push_str("_sat");
        }
        if e.texel_offsets.is_some() {
            out.push_str("_aoffimmi");
        }
        if e.resource_dimension.is_some() {
            out.push_str("_indexable");
        }
        if e.precise.0 != 0 {
            if e.precise.0 == 0xf {
                out.push_str(" [precise]");
            } else {
                let _ = write!(out, " [precise({})]", e.precise);
            }
        }
        if let Some([u, v, w]) = e.texel_offsets {
            let _ = write!(out, "({u},{v},{w})");
        }
        if let Some(dim) = e.resource_dimension {
            if dim == super::decl::ResourceDimension::StructuredBuffer {
                let _ = write!(out, "({}, stride={})", dim.fxc_name(), e.structure_stride);
            } else {
                let _ = write!(out, "({})", dim.fxc_name());
            }
        }
        if let Some(types) = e.resource_return_types {
            return_types(out, &types);
        }
        match (e.opcode, e.return_type) {
            (_, Some(InfoReturnType::Uint)) => out.push_str("_uint"),
            (_, Some(InfoReturnType::RcpFloat)) => out.push_str("_rcpFloat"),
            _ => {}
        }
        let operands = e.operands(self.program);
        for (i, op) in operands.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let ty = info.types.get(i).copied().unwrap_or(OperandType::Untyped);
            if e.opcode == Opcode::InterfaceCall && op.register == RegisterType::Interface {
                self.register(out, op);
                let _ = write!(out, "[{}]", e.function_index.unwrap_or(0));
                self.operand_tail(out, op);
            } else {
                self.operand(out, op, ty);
            }
        }
    }

    /// An operand with its modifier, components, minimum precision and non-uniform mark:
    /// `-|r0.xyxx|`, `cb0[1].x`, `r0.x {min16f}`.
    ///
    /// fxc writes min precision as ` {min16f}` after the operand (vkd3d writes the same);
    /// where it goes relative to `|…|` is not known, so it follows the whole operand here.
    /// The non-uniform mark is written ` {nonuniform}` (vkd3d's spelling; fxc's is not known).
    fn operand(&self, out: &mut String, op: &Operand, ty: OperandType) {
        match op.modifier {
            OperandModifier::None => {}
            OperandModifier::Neg => out.push('-'),
            OperandModifier::Abs => out.push('|'),
            OperandModifier::AbsNeg => out.push_str("-|"),
        }
        match op.register {
            RegisterType::Immediate32 => immediate32(out, op.immediate32(), ty),
            RegisterType::Immediate64 => {
                out.push_str("d(");
                for (i, v) in op.immediate64().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{}l", fixed6(f64::from_bits(v)));
                }
                out.push(')');
            }
            _ => {
                self.register(out, op);
                components(out, &op.components);
            }
        }
        if matches!(op.modifier, OperandModifier::Abs | OperandModifier::AbsNeg) {
            out.push('|');
        }
        self.operand_tail(out, op);
    }

    /// The minimum-precision and non-uniform marks.
    fn operand_tail(&self, out: &mut String, op: &Operand) {
        match op.min_precision {
            MinPrecision::Default => {}
            MinPrecision::Float16 => out.push_str(" {min16f}"),
            MinPrecision::Float2_8 => out.push_str(" {min2_8f}"),
            MinPrecision::Sint16 => out.push_str(" {min16i}"),
            MinPrecision::Uint16 => out.push_str(" {min16u}"),
        }
        if op.non_uniform {
            out.push_str(" {nonuniform}");
        }
    }

    /// The register name with its indices, without components.
    fn register(&self, out: &mut String, op: &Operand) {
        use RegisterType as R;
        let idx = op.indices();
        let named = match op.register {
            R::InputPrimitiveId => Some("vPrim"),
            R::OutputDepth => Some("oDepth"),
            R::Null => Some("null"),
            R::Rasterizer => Some("rasterizer"),
            R::OutputCoverageMask => Some("oMask"),
            R::OutputControlPointId => Some("vOutputControlPointID"),
            R::InputForkInstanceId => Some("vForkInstanceID"),
            R::InputJoinInstanceId => Some("vJoinInstanceID"),
            R::InputDomainPoint => Some("vDomain"),
            R::InputThreadId => Some("vThreadID"),
            R::InputThreadGroupId => Some("vThreadGroupID"),
            R::InputThreadIdInGroup => Some("vThreadIDInGroup"),
            R::InputCoverageMask => Some("vCoverage"),
            R::InputThreadIdInGroupFlattened => Some("vThreadIDInGroupFlattened"),
            R::InputGsInstanceId => Some("vGSInstanceID"),
            R::OutputDepthGreaterEqual => Some("oDepthGE"),
            R::OutputDepthLessEqual => Some("oDepthLE"),
            R::CycleCounter => Some("vCycleCounter"),
            R::OutputStencilRef => Some("oStencilRef"),
            R::InnerCoverage => Some("vInnerCoverage"),
            _ => None,
        };
        if let Some(name) = named {
            out.push_str(name);
            for i in idx {
                self.bracketed(out, i);
            }
            return;
        }
        // Shader Model 5.1 names bindings in upper case: `T0[2]`, `CB0[0][3]`, and in
        // declarations `T0[0:3]` (from real fxc 5.1 listings).
        let (prefix, first_bare) = match op.register {
            R::Temp => ("r", true),
            R::Input => ("v", idx.len() == 1),
            R::Output => ("o", idx.len() == 1),
            R::IndexableTemp => ("x", true),
            R::Sampler => (if self.sm51 { "S" } else { "s" }, true),
            R::Resource => (if self.sm51 { "T" } else { "t" }, true),
            R::UnorderedAccessView => (if self.sm51 { "U" } else { "u" }, true),
            R::ConstantBuffer => (if self.sm51 { "CB" } else { "cb" }, true),
            R::ImmediateConstantBuffer => ("icb", false),
            R::Label => ("l", true),
            R::Stream => ("m", true),
            R::FunctionBody => ("fb", true),
            R::FunctionTable => ("ft", true),
            R::Interface => ("fp", true),
            R::FunctionInput => ("fi", true),
            R::FunctionOutput => ("fo", true),
            R::InputControlPoint => ("vicp", idx.len() == 1),
            R::OutputControlPoint => ("vocp", idx.len() == 1),
            R::InputPatchConstant => ("vpc", idx.len() == 1),
            R::ThisPointer => ("this", false),
            R::ThreadGroupSharedMemory => ("g", true),
            _ => ("?", false),
        };
        out.push_str(prefix);
        for (n, i) in idx.iter().enumerate() {
            match (n, i) {
                (0, Index::Immediate(v)) if first_bare => {
                    let _ = write!(out, "{v}");
                }
                _ => self.bracketed(out, i),
            }
        }
    }

    /// `[5]` or `[r0.x + 5]`.
    fn bracketed(&self, out: &mut String, i: &Index) {
        match i {
            Index::Immediate(v) => {
                let _ = write!(out, "[{v}]");
            }
            Index::Relative { offset, register } => {
                out.push('[');
                self.relative(out, register);
                let _ = write!(out, " + {offset}]");
            }
        }
    }

    /// The register of a relative index: `r0.x`, `x1[2].y`.
    fn relative(&self, out: &mut String, r: &RelativeRegister) {
        let mut op = Operand::new(r.register, Components::Select(r.component));
        op.index_count = r.index_count;
        for (slot, v) in op.indices.iter_mut().zip(r.indices()) {
            *slot = Index::Immediate(*v);
        }
        op.min_precision = r.min_precision;
        self.register(out, &op);
        if !r.scalar {
            let _ = write!(out, ".{}", r.component.letter());
        }
    }

    /// A declaration line.
    fn declaration(&self, out: &mut String, d: &Declaration) {
        use Declaration as D;
        match d {
            D::GlobalFlags(flags) => {
                out.push_str("dcl_globalFlags ");
                global_flags(out, *flags);
            }
            D::Resource {
                register,
                range,
                dimension,
                sample_count,
                return_types: types,
            } => {
                let _ = write!(out, "dcl_resource_{}", dimension.fxc_name());
                if matches!(
                    dimension,
                    super::decl::ResourceDimension::Texture2DMS
                        | super::decl::ResourceDimension::Texture2DMSArray
                ) {
                    let _ = write!(out, "({sample_count})");
                }
                out.push(' ');
                return_types(out, types);
                out.push(' ');
                self.binding(out, register, range);
            }
            D::ResourceRaw { register, range } => {
                out.push_str("dcl_resource_raw ");
                self.binding(out, register, range);
            }
            D::ResourceStructured {
                register,
                range,
                stride,
            } => {
                out.push_str("dcl_resource_structured ");
                self.binding_then(out, register, range, &format!(", {stride}"));
            }
            D::UavTyped {
                register,
                range,
                dimension,
                return_types: types,
                flags,
            } => {
                let _ = write!(out, "dcl_uav_typed_{}", dimension.fxc_name());
                uav_flags(out, flags);
                out.push(' ');
                return_types(out, types);
                out.push(' ');
                self.binding(out, register, range);
            }
            D::UavRaw {
                register,
                range,
                flags,
            } => {
                out.push_str("dcl_uav_raw");
                uav_flags(out, flags);
                out.push(' ');
                self.binding(out, register, range);
            }
            D::UavStructured {
                register,
                range,
                stride,
                flags,
            } => {
                out.push_str("dcl_uav_structured");
                uav_flags(out, flags);
                out.push(' ');
                self.binding_then(out, register, range, &format!(", {stride}"));
            }
            D::ConstantBuffer {
                register,
                range,
                size,
                dynamic_indexed,
            } => {
                let access = if *dynamic_indexed {
                    "dynamicIndexed"
                } else {
                    "immediateIndexed"
                };
                if self.sm51 {
                    // `dcl_constantbuffer CB0[0:0][1], immediateIndexed, space=0`.
                    out.push_str("dcl_constantbuffer ");
                    self.range_name(out, register, range);
                    let _ = write!(out, "[{size}], {access}, space={}", range.space);
                } else {
                    let _ = write!(out, "dcl_constantbuffer cb{}[{size}], {access}", range.id);
                }
            }
            D::Sampler {
                register,
                range,
                mode,
            } => {
                out.push_str("dcl_sampler ");
                self.binding_then(out, register, range, &format!(", {}", mode.fxc_name()));
            }
            D::Input { register } => self.dcl_reg(out, "dcl_input", register, None),
            D::InputSgv { register, name } => {
                self.dcl_reg(out, "dcl_input_sgv", register, Some(name.fxc_name()))
            }
            D::InputSiv { register, name } => {
                self.dcl_reg(out, "dcl_input_siv", register, Some(name.fxc_name()))
            }
            D::InputPs {
                register,
                interpolation,
            } => {
                let _ = write!(out, "dcl_input_ps {} ", interpolation.fxc_name());
                self.operand(out, register, OperandType::Untyped);
            }
            D::InputPsSgv { register, name } => {
                self.dcl_reg(out, "dcl_input_ps_sgv", register, Some(name.fxc_name()))
            }
            D::InputPsSiv {
                register,
                interpolation,
                name,
            } => {
                let _ = write!(out, "dcl_input_ps_siv {} ", interpolation.fxc_name());
                self.operand(out, register, OperandType::Untyped);
                let _ = write!(out, ", {}", name.fxc_name());
            }
            D::Output { register } => self.dcl_reg(out, "dcl_output", register, None),
            D::OutputSgv { register, name } => {
                self.dcl_reg(out, "dcl_output_sgv", register, Some(name.fxc_name()))
            }
            D::OutputSiv { register, name } => {
                self.dcl_reg(out, "dcl_output_siv", register, Some(name.fxc_name()))
            }
            D::Temps { count } => {
                let _ = write!(out, "dcl_temps {count}");
            }
            D::IndexableTemp {
                index,
                size,
                components,
            } => {
                let _ = write!(out, "dcl_indexableTemp x{index}[{size}], {components}");
            }
            D::IndexRange { register, count } => {
                out.push_str("dcl_indexrange ");
                self.operand(out, register, OperandType::Untyped);
                let _ = write!(out, " {count}");
            }
            D::GsInputPrimitive(prim) => {
                out.push_str("dcl_inputprimitive ");
                match prim {
                    Primitive::Undefined => out.push_str("undefined"),
                    Primitive::Point => out.push_str("point"),
                    Primitive::Line => out.push_str("line"),
                    Primitive::Triangle => out.push_str("triangle"),
                    Primitive::LineAdj => out.push_str("lineadj"),
                    Primitive::TriangleAdj => out.push_str("triangleadj"),
                    Primitive::Patch(n) => {
                        let _ = write!(out, "patch{n}");
                    }
                }
            }
            D::GsOutputTopology(t) => {
                let _ = write!(out, "dcl_outputtopology {}", t.fxc_name());
            }
            D::MaxOutputVertexCount(n) => {
                let _ = write!(out, "dcl_maxout {n}");
            }
            D::GsInstanceCount(n) => {
                let _ = write!(out, "dcl_gsinstances {n}");
            }
            D::Stream { register } => self.dcl_reg(out, "dcl_stream", register, None),
            D::InputControlPointCount(n) => {
                let _ = write!(out, "dcl_input_control_point_count {n}");
            }
            D::OutputControlPointCount(n) => {
                let _ = write!(out, "dcl_output_control_point_count {n}");
            }
            D::TessDomain(v) => {
                let _ = write!(out, "dcl_tessellator_domain {}", v.fxc_name());
            }
            D::TessPartitioning(v) => {
                let _ = write!(out, "dcl_tessellator_partitioning {}", v.fxc_name());
            }
            D::TessOutputPrimitive(v) => {
                let _ = write!(out, "dcl_tessellator_output_primitive {}", v.fxc_name());
            }
            D::HsMaxTessFactor(f) => {
                let _ = write!(out, "dcl_hs_max_tessfactor l({})", fixed6(f64::from(*f)));
            }
            D::HsForkPhaseInstanceCount(n) => {
                let _ = write!(out, "dcl_hs_fork_phase_instance_count {n}");
            }
            D::HsJoinPhaseInstanceCount(n) => {
                let _ = write!(out, "dcl_hs_join_phase_instance_count {n}");
            }
            D::ThreadGroup { x, y, z } => {
                let _ = write!(out, "dcl_thread_group {x}, {y}, {z}");
            }
            D::TgsmRaw {
                register,
                byte_count,
            } => {
                out.push_str("dcl_tgsm_raw ");
                self.register(out, register);
                let _ = write!(out, ", {byte_count}");
            }
            D::TgsmStructured {
                register,
                stride,
                count,
            } => {
                out.push_str("dcl_tgsm_structured ");
                self.register(out, register);
                let _ = write!(out, ", {stride}, {count}");
            }
            D::FunctionBody(id) => {
                let _ = write!(out, "dcl_function_body fb{id}");
            }
            D::FunctionTable { id, bodies } => {
                let _ = write!(out, "dcl_function_table ft{id} = {{");
                list(out, bodies, "fb");
                out.push('}');
            }
            D::Interface(i) => {
                out.push_str("dcl_interface");
                if i.dynamically_indexed {
                    out.push_str("_dynamicindexed");
                }
                let _ = write!(
                    out,
                    " fp{}[{}][{}] = {{",
                    i.id, i.array_length, i.type_count
                );
                list(out, &i.tables, "ft");
                out.push('}');
            }
        }
    }

    /// `dcl_input v1.xy` / `dcl_output_siv o0.xyzw, position`.
    fn dcl_reg(&self, out: &mut String, name: &str, register: &Operand, value: Option<&str>) {
        out.push_str(name);
        out.push(' ');
        self.operand(out, register, OperandType::Untyped);
        if let Some(v) = value {
            let _ = write!(out, ", {v}");
        }
    }

    /// The register of a resource, sampler or UAV declaration: `t3` up to Shader Model 5.0;
    /// `T3[0:3], space=0` in 5.1 (the space after everything else).
    fn binding(&self, out: &mut String, register: &Operand, range: &BindingRange) {
        self.binding_then(out, register, range, "");
    }

    /// Like [`Self::binding`], with `rest` written between the register and the space.
    fn binding_then(&self, out: &mut String, register: &Operand, range: &BindingRange, rest: &str) {
        if self.sm51 {
            self.range_name(out, register, range);
            let _ = write!(out, "{rest}, space={}", range.space);
        } else {
            self.register(out, register);
            out.push_str(rest);
        }
    }

    /// `T3[0:3]`, `T3[0:*]` for an unbounded range (vkd3d's spelling; fxc's is not known).
    fn range_name(&self, out: &mut String, register: &Operand, range: &BindingRange) {
        let prefix = match register.register {
            RegisterType::Sampler => "S",
            RegisterType::Resource => "T",
            RegisterType::UnorderedAccessView => "U",
            _ => "CB",
        };
        if range.is_unbounded() {
            let _ = write!(out, "{prefix}{}[{}:*]", range.id, range.lower);
        } else {
            let _ = write!(out, "{prefix}{}[{}:{}]", range.id, range.lower, range.upper);
        }
    }

    /// A custom-data block. The immediate constant buffer is printed as fxc does:
    /// `dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},` with later rows aligned under
    /// the first; other blocks, which fxc does not print, as comments.
    fn custom_data(&self, out: &mut String, cd: &CustomData) {
        match cd {
            CustomData::ImmediateConstantBuffer(rows) => {
                const HEAD: &str = "dcl_immediateConstantBuffer { ";
                out.push_str(HEAD);
                for (n, row) in rows.iter().enumerate() {
                    if n > 0 {
                        out.push_str(",\n");
                        out.push_str(&" ".repeat(HEAD.len()));
                    }
                    out.push_str("{ ");
                    for (i, v) in row.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        untyped(out, *v);
                    }
                    out.push('}');
                }
                out.push_str(" }");
            }
            CustomData::Comment(w) => comment_block(out, "comment", w.len()),
            CustomData::DebugInfo(w) => comment_block(out, "debug info", w.len()),
            CustomData::Opaque(w) => comment_block(out, "opaque data", w.len()),
            CustomData::ClipPlaneConstantMappings(w) => {
                comment_block(out, "clip plane constant mappings", w.len())
            }
            CustomData::Other { class, words } => {
                let _ = write!(out, "// custom data class {class}, {} words", words.len());
            }
            CustomData::ShaderMessage(m) => {
                let kind = if m.format == 1 { "printf" } else { "text" };
                let _ = write!(
                    out,
                    "// shader message 0x{:08x} ({kind}): {:?}",
                    m.id, m.text
                );
                for op in &m.operands {
                    out.push_str(", ");
                    self.operand(out, op, OperandType::Untyped);
                }
            }
        }
    }
}

fn comment_block(out: &mut String, what: &str, words: usize) {
    let _ = write!(out, "// {what} block, {words} words");
}

fn list(out: &mut String, ids: &[u32], prefix: &str) {
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{prefix}{id}");
    }
}

/// `_glc`, `_opc`, `_rov` after a UAV declaration's name (vkd3d's spellings for the
/// globally-coherent, order-preserving-counter and rasterizer-ordered flags).
fn uav_flags(out: &mut String, flags: &UavFlags) {
    if flags.globally_coherent {
        out.push_str("_glc");
    }
    if flags.has_counter {
        out.push_str("_opc");
    }
    if flags.rasterizer_ordered {
        out.push_str("_rov");
    }
}

/// `refactoringAllowed | allResourcesBound` (fxc joins flags with ` | `); bits with no
/// name are printed in hex.
fn global_flags(out: &mut String, flags: GlobalFlags) {
    let mut first = true;
    let mut rest = flags.0;
    for (bit, name) in GlobalFlags::NAMES {
        if flags.contains(bit) {
            if !first {
                out.push_str(" | ");
            }
            out.push_str(name);
            first = false;
            rest &= !bit;
        }
    }
    if rest != 0 || first {
        if !first {
            out.push_str(" | ");
        }
        let _ = write!(out, "0x{:x}", rest << 11);
    }
}

/// `(float,float,float,float)`.
fn return_types(out: &mut String, types: &[ReturnType; 4]) {
    out.push('(');
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(t.fxc_name());
    }
    out.push(')');
}

/// `.xy` (mask), `.xyxx` (swizzle), `.x` (select); nothing for scalars and empty masks.
fn components(out: &mut String, c: &Components) {
    match c {
        Components::Mask(m) if m.0 != 0 => {
            let _ = write!(out, ".{m}");
        }
        Components::Swizzle(s) => {
            let _ = write!(out, ".{s}");
        }
        Components::Select(c) => {
            out.push('.');
            out.push(c.letter());
        }
        _ => {}
    }
}

/// An `l(...)` immediate, each word printed by the slot's type.
///
/// From real fxc listings: float slots print `%f` (`l(0.500000, 0.500000, 0.000000,
/// 0.000000)`); integer slots print decimal, large values in hex (`l(1023, 0x20000000, 8,
/// 0x01000000)`, `l(-1)`); untyped slots (`mov`, `movc`, stores) guess per word and join
/// without spaces (`l(1.000000,0,1.000000,1.000000)`, `l(0,0,-1,0)`).
fn immediate32(out: &mut String, words: &[u32], ty: OperandType) {
    out.push_str("l(");
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(if ty == OperandType::Untyped || ty == OperandType::Double {
                ","
            } else {
                ", "
            });
        }
        match ty {
            OperandType::Float => out.push_str(&fixed6(f64::from(f32::from_bits(*w)))),
            OperandType::Int => signed(out, *w),
            OperandType::Uint => {
                if *w <= SMALL_INT as u32 {
                    let _ = write!(out, "{w}");
                } else {
                    let _ = write!(out, "0x{w:08x}");
                }
            }
            OperandType::Untyped | OperandType::Double => untyped(out, *w),
        }
    }
    out.push(')');
}

/// Integers of at most this magnitude print in decimal, larger ones in hex (the threshold
/// RenderDoc and vkd3d use to imitate fxc; fxc's own is not documented).
const SMALL_INT: i32 = 10000;

fn signed(out: &mut String, w: u32) {
    let v = w as i32;
    if (-SMALL_INT..=SMALL_INT).contains(&v) {
        let _ = write!(out, "{v}");
    } else {
        let _ = write!(out, "0x{w:08x}");
    }
}

/// A word of unknown type: a float when its exponent is neither 0 nor 255 (a normal
/// float), otherwise a small signed integer in decimal or hex.
fn untyped(out: &mut String, w: u32) {
    let exponent = (w >> 23) & 0xff;
    if exponent != 0 && exponent != 0xff {
        out.push_str(&fixed6(f64::from(f32::from_bits(w))));
    } else {
        signed(out, w);
    }
}

/// C's `%f`: six decimals; `inf`, `-inf`, `nan` for the non-finite.
fn fixed6(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".to_string()
        } else {
            "-inf".to_string()
        }
    } else {
        format!("{v:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imm(words: &[u32], ty: OperandType) -> String {
        let mut s = String::new();
        immediate32(&mut s, words, ty);
        s
    }

    // Immediates as real fxc listings print them.
    #[test]
    fn immediates_by_type() {
        assert_eq!(
            imm(&[0x3f00_0000, 0x3f00_0000, 0, 0], OperandType::Float),
            "l(0.500000, 0.500000, 0.000000, 0.000000)"
        );
        assert_eq!(
            imm(&[1023, 0x2000_0000, 8, 0x0100_0000], OperandType::Uint),
            "l(1023, 0x20000000, 8, 0x01000000)"
        );
        assert_eq!(imm(&[0xffff_ffff], OperandType::Int), "l(-1)");
        assert_eq!(
            imm(
                &[0x3f80_0000, 0, 0x3f80_0000, 0x3f80_0000],
                OperandType::Untyped
            ),
            "l(1.000000,0,1.000000,1.000000)"
        );
        assert_eq!(
            imm(&[0, 0, 0xffff_ffff, 0], OperandType::Untyped),
            "l(0,0,-1,0)"
        );
        assert_eq!(imm(&[0x7f80_0000], OperandType::Untyped), "l(0x7f800000)");
        assert_eq!(imm(&[0x7f80_0000], OperandType::Float), "l(inf)");
    }

    #[test]
    fn flags_and_types() {
        let mut s = String::new();
        global_flags(
            &mut s,
            GlobalFlags(GlobalFlags::REFACTORING_ALLOWED | GlobalFlags::ALL_RESOURCES_BOUND),
        );
        assert_eq!(s, "refactoringAllowed | allResourcesBound");
        let mut s = String::new();
        return_types(&mut s, &[ReturnType::Float; 4]);
        assert_eq!(s, "(float,float,float,float)");
    }
}
