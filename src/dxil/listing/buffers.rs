//! The `; Buffer Definitions:` and `; Resource Bindings:` blocks of a listing, as
//! dxc's `dxcdisassembler.cpp` prints them from the reflection module
//! (`PrintBufferDefinitions`, `PrintStructLayout`, `PrintFieldLayout`,
//! `PrintResourceBindings`).
//!
//! Owns: the layout text of constant buffers, texture buffers and structured buffers,
//! and the binding table. Does not own: the type annotations (see
//! [`crate::dxil::meta`]) or type sizes (see [`super::layout`]).

use std::fmt::Write as _;

use super::layout::DataLayout;
use crate::dxil::llvm::{Module, Type, TypeId};
use crate::dxil::meta::{DxilMetadata, FieldAnnotation, Resource, ResourceClass, StructAnnotation};

/// The column field names are padded to in buffer definitions (`offsetIndent = 50`).
const OFFSET_INDENT: usize = 50;

/// DXIL `ResourceKind` numbers the printer tests for.
mod kind {
    pub const TEXTURE_2D_MS: u32 = 3;
    pub const TEXTURE_2D_MS_ARRAY: u32 = 8;
    pub const TYPED_BUFFER: u32 = 10;
    pub const RAW_BUFFER: u32 = 11;
    pub const STRUCTURED_BUFFER: u32 = 12;
    pub const TBUFFER: u32 = 15;
}

/// What the printers need of the reflection module.
pub struct Reflection<'m> {
    /// The module (the `STAT` part's, or the program's own).
    pub m: &'m Module,
    /// Its DXIL metadata.
    pub meta: &'m DxilMetadata,
    /// Whether field types are named by their minimum-precision HLSL names
    /// (`min16float`): true unless the shader flags state native low precision
    /// (bit 23).
    pub min_precision: bool,
}

/// `left_justify(s, width)`: `s` then spaces up to `width` (never truncated).
pub fn left(s: &str, width: usize) -> String {
    format!("{s:<width$}")
}

/// `right_justify(s, width)`: spaces then `s` up to `width` (never truncated).
pub fn right(s: &str, width: usize) -> String {
    format!("{s:>width$}")
}

impl<'m> Reflection<'m> {
    fn annotation(&self, ty: TypeId) -> Option<&'m StructAnnotation> {
        self.meta
            .struct_annotations
            .iter()
            .find(|a| a.ty == Some(ty))
    }

    fn struct_name(&self, ty: TypeId) -> &'m str {
        match self.m.ty(ty) {
            Some(Type::Struct { name: Some(n), .. }) => n,
            _ => "",
        }
    }

    /// The pointee of a resource's symbol type (its HLSL type), arrays stripped.
    fn hlsl_type(&self, r: &Resource) -> Option<TypeId> {
        let p = r.symbol_ty?;
        let mut t = match self.m.ty(p)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return None,
        };
        while let Some(Type::Array { element, .. }) = self.m.ty(t) {
            t = *element;
        }
        Some(t)
    }

    /// `PrintBufferDefinitions`.
    pub fn buffer_definitions(&self, out: &mut String) {
        out.push_str(";\n; Buffer Definitions:\n;\n");
        let Some(res) = &self.meta.resources else {
            return;
        };
        for cb in &res.cbvs {
            self.cbuffer(out, cb, "cbuffer");
        }
        let dl = DataLayout::of(self.m);
        for r in &res.srvs {
            match r.shape {
                Some(kind::STRUCTURED_BUFFER) => self.structured(out, r, &dl),
                Some(kind::TBUFFER) => self.cbuffer(out, r, "tbuffer"),
                _ => {}
            }
        }
        for r in &res.uavs {
            if r.shape == Some(kind::STRUCTURED_BUFFER) {
                self.structured(out, r, &dl);
            }
        }
    }

    /// `PrintCBufferDefinition` / `PrintTBufferDefinition`.
    fn cbuffer(&self, out: &mut String, r: &Resource, word: &str) {
        let _ = write!(out, "; {word} {}\n; {{\n;\n", r.name);
        let ty = self.hlsl_type(r);
        let ann = ty.and_then(|t| self.annotation(t));
        match (ty, ann) {
            (Some(ty), Some(ann)) => {
                let size = if word == "tbuffer" {
                    ann.size
                } else {
                    r.size.unwrap_or(0)
                };
                self.struct_layout(out, ty, None, &r.name, 0, 3, OFFSET_INDENT, size);
            }
            _ => {
                if word == "tbuffer" {
                    out.push_str(";   (type annotation not present)\n;\n");
                } else {
                    let _ = write!(
                        out,
                        ";   [{} x i8] (type annotation not present)\n;\n",
                        r.size.unwrap_or(0)
                    );
                }
            }
        }
        out.push_str("; }\n;\n");
    }

    /// `PrintStructBufferDefinition`.
    fn structured(&self, out: &mut String, r: &Resource, dl: &DataLayout) {
        let _ = write!(out, "; Resource bind info for {}\n; {{\n;\n", r.name);
        let Some(st) = self.hlsl_type(r) else {
            out.push_str("; }\n;\n");
            return;
        };
        let ret = match self.m.ty(st) {
            Some(Type::Struct { elements, .. }) => elements.first().copied(),
            _ => None,
        };
        let ret_is_struct = ret.is_some_and(|t| {
            matches!(self.m.ty(t), Some(Type::Struct { .. })) && !self.is_hl_matrix(t)
        });
        match ret {
            Some(ret) if ret_is_struct => match self.annotation(ret) {
                None => {
                    let _ = writeln!(
                        out,
                        ";   [{} x i8] (type annotation not present)",
                        dl.alloc_size(self.m, ret)
                    );
                }
                Some(_) => self.struct_layout(
                    out,
                    ret,
                    Some(dl),
                    "$Element",
                    0,
                    3,
                    OFFSET_INDENT,
                    dl.alloc_size(self.m, ret) as u32,
                ),
            },
            _ => {
                match (ret, self.annotation(st)) {
                    (Some(ret), Some(ann)) => {
                        let mut field = ann.fields.first().cloned().unwrap_or_default();
                        field.name = Some("$Element".into());
                        self.field_layout(
                            out,
                            ret,
                            &field,
                            None,
                            0,
                            3,
                            OFFSET_INDENT,
                            dl.alloc_size(self.m, st) as u32,
                        );
                    }
                    _ => {
                        let _ = writeln!(
                            out,
                            ";   [{} x i8] (type annotation not present)",
                            dl.alloc_size(self.m, st)
                        );
                    }
                }
                out.push_str(";\n");
            }
        }
        out.push_str("; }\n;\n");
    }

    /// Whether a type is the front end's matrix structure (`class.matrix.*`), which
    /// dxc's printer treats as a matrix, not a structure (`HLMatrixType::isa`).
    fn is_hl_matrix(&self, t: TypeId) -> bool {
        self.struct_name(t).starts_with("class.matrix.")
    }

    /// `PrintStructLayout`. `dl` is `None` for constant-buffer layout (offsets from
    /// the annotations), `Some` for a structured buffer (offsets from the data
    /// layout).
    #[allow(clippy::too_many_arguments)]
    fn struct_layout(
        &self,
        out: &mut String,
        st: TypeId,
        dl: Option<&DataLayout>,
        var_name: &str,
        offset: u32,
        indent: usize,
        offset_indent: usize,
        size: u32,
    ) {
        let pad = " ".repeat(indent);
        let _ = writeln!(out, ";{pad}struct {}", self.struct_name(st));
        let _ = writeln!(out, ";{pad}{{");
        out.push_str(";\n");
        let field_indent = indent + 4;
        match self.annotation(st) {
            None => {
                let fpad = " ".repeat(field_indent);
                if size == 0 {
                    let _ = writeln!(out, ";{fpad}/* empty struct */");
                } else {
                    let _ = writeln!(out, ";{fpad}[{size} x i8] (type annotation not present)");
                }
            }
            Some(ann) => {
                let elements = match self.m.ty(st) {
                    Some(Type::Struct { elements, .. }) => elements.clone(),
                    _ => Vec::new(),
                };
                let offsets = dl.map(|d| d.struct_offsets(self.m, st));
                for (i, et) in elements.iter().enumerate() {
                    let default = FieldAnnotation::default();
                    let f = ann.fields.get(i).unwrap_or(&default);
                    let field_offset = match &offsets {
                        None => offset.wrapping_add(f.offset.unwrap_or(0)),
                        Some(o) => offset.wrapping_add(o.get(i).copied().unwrap_or(0) as u32),
                    };
                    self.field_layout(
                        out,
                        *et,
                        f,
                        dl,
                        field_offset,
                        field_indent,
                        offset_indent.saturating_sub(4),
                        0,
                    );
                }
            }
        }
        let _ = writeln!(out, ";{pad}");
        let name = format!("{var_name};");
        let _ = write!(
            out,
            ";{pad}}} {}; Offset:{}",
            left(&name, offset_indent.saturating_sub(2)),
            right(&offset.to_string(), 5)
        );
        if size != 0 {
            let _ = write!(out, " Size: {}", right(&size.to_string(), 5));
        }
        out.push('\n');
        out.push_str(";\n");
    }

    /// `PrintFieldLayout`.
    #[allow(clippy::too_many_arguments)]
    fn field_layout(
        &self,
        out: &mut String,
        ty: TypeId,
        f: &FieldAnnotation,
        dl: Option<&DataLayout>,
        offset: u32,
        indent: usize,
        offset_indent: usize,
        size: u32,
    ) {
        let name = f.name.as_deref().unwrap_or("");
        let is_struct = matches!(self.m.ty(ty), Some(Type::Struct { .. }));
        if is_struct && f.matrix.is_none() {
            self.struct_layout(out, ty, dl, name, offset, indent, offset_indent, 0);
            return;
        }
        let mut elt = ty;
        let mut array_size = 0u64;
        let mut array_level = 0u32;
        if !self.is_hl_matrix(elt) && matches!(self.m.ty(elt), Some(Type::Array { .. })) {
            array_size = 1;
            while let Some(Type::Array { len, element }) = self.m.ty(elt) {
                if self.is_hl_matrix(elt) {
                    break;
                }
                array_size = array_size.saturating_mul(*len);
                elt = *element;
                array_level += 1;
            }
        }
        if let Some((rows, cols, orientation)) = f.matrix {
            match orientation {
                1 => array_size /= u64::from(rows.max(1)),
                2 => array_size /= u64::from(cols.max(1)),
                _ => {}
            }
            if let Some(Type::Vector { element, .. }) = self.m.ty(elt) {
                elt = *element;
            }
            if array_level == 1 {
                array_size = 0;
            }
        }
        if !self.is_hl_matrix(elt) && matches!(self.m.ty(elt), Some(Type::Struct { .. })) {
            // dxc appends ';' here and again in PrintStructLayout.
            let mut n = name.to_owned();
            if array_size != 0 {
                let _ = write!(n, "[{array_size}]");
            }
            n.push(';');
            self.struct_layout(out, elt, dl, &n, offset, indent, offset_indent, 0);
            return;
        }
        let type_and_name = self.type_and_name(ty, f, array_size);
        let _ = write!(
            out,
            ";{}{}; Offset:{}",
            " ".repeat(indent),
            left(&type_and_name, offset_indent),
            right(&offset.to_string(), 5)
        );
        if size != 0 {
            let _ = write!(out, " Size: {}", right(&size.to_string(), 5));
        }
        out.push('\n');
    }

    /// `PrintTypeAndName`: `float4 a;`, `row_major float4x4 m;`, `uint x[4];`.
    fn type_and_name(&self, ty: TypeId, f: &FieldAnnotation, array_size: u64) -> String {
        let mut t = ty;
        while let Some(Type::Array { element, .. }) = self.m.ty(t) {
            t = *element;
        }
        let comp = hlsl_type_name(f.component_type.unwrap_or(0), self.min_precision);
        let mut s = String::new();
        if let Some((rows, cols, orientation)) = f.matrix {
            match orientation {
                1 => s.push_str("row_major "),
                2 => s.push_str("column_major "),
                _ => {}
            }
            let _ = write!(s, "{comp}{rows}x{cols}");
        } else if let Some(Type::Vector { len, .. }) = self.m.ty(t) {
            let _ = write!(s, "{comp}{len}");
        } else {
            s.push_str(comp);
        }
        s.push(' ');
        s.push_str(f.name.as_deref().unwrap_or(""));
        if array_size != 0 {
            let _ = write!(s, "[{array_size}]");
        }
        s.push(';');
        s
    }

    /// `PrintResourceBindings`: constant buffers, samplers, SRVs, UAVs.
    pub fn resource_bindings(&self, out: &mut String) {
        out.push_str(";\n; Resource Bindings:\n;\n");
        out.push_str(
            "; Name                                 Type  Format         Dim      ID      HLSL Bind  Count\n",
        );
        out.push_str(
            "; ------------------------------ ---------- ------- ----------- ------- -------------- ------\n",
        );
        if let Some(res) = &self.meta.resources {
            for r in res
                .cbvs
                .iter()
                .chain(&res.samplers)
                .chain(&res.srvs)
                .chain(&res.uavs)
            {
                binding_line(out, r);
            }
        }
        out.push_str(";\n");
    }
}

/// One line of the binding table (`PrintResourceBinding`).
fn binding_line(out: &mut String, r: &Resource) {
    let (class, id_prefix, bind_prefix) = match r.class {
        ResourceClass::Srv => ("texture", "T", "t"),
        ResourceClass::Uav => ("UAV", "U", "u"),
        ResourceClass::Cbv => ("cbuffer", "CB", "cb"),
        ResourceClass::Sampler => ("sampler", "S", "s"),
    };
    let view = matches!(r.class, ResourceClass::Srv | ResourceClass::Uav);
    let shape = r.shape.unwrap_or(0);
    let format = if !view {
        "NA".to_owned()
    } else {
        match shape {
            kind::RAW_BUFFER => "byte".to_owned(),
            kind::STRUCTURED_BUFFER => "struct".to_owned(),
            _ => comp_type_name(r.element_type.unwrap_or(0)).to_owned(),
        }
    };
    let dim = if !view {
        "NA".to_owned()
    } else {
        match shape {
            kind::RAW_BUFFER | kind::STRUCTURED_BUFFER => {
                if r.class == ResourceClass::Srv {
                    "r/o".to_owned()
                } else if r.has_counter {
                    "r/w+cnt".to_owned()
                } else {
                    "r/w".to_owned()
                }
            }
            kind::TYPED_BUFFER => "buf".to_owned(),
            kind::TEXTURE_2D_MS | kind::TEXTURE_2D_MS_ARRAY => {
                let mut d = dim_name(shape).to_owned();
                if let Some(n) = r.sample_count.filter(|n| *n != 0) {
                    let _ = write!(d, "{n}");
                }
                d
            }
            _ => dim_name(shape).to_owned(),
        }
    };
    let mut bind = format!("{bind_prefix}{}", r.lower_bound);
    if r.space != 0 {
        let _ = write!(bind, ",space{}", r.space);
    }
    let count = if r.range_size == u32::MAX {
        "unbounded".to_owned()
    } else {
        r.range_size.to_string()
    };
    let _ = writeln!(
        out,
        "; {}{}{}{}{}{}{}",
        left(&r.name, 31),
        right(class, 10),
        right(&format, 8),
        right(&dim, 12),
        right(&format!("{id_prefix}{}", r.id), 8),
        right(&bind, 15),
        right(&count, 6)
    );
}

/// `DxilResourceBase::GetResDimName`, by DXIL `ResourceKind`.
fn dim_name(kind: u32) -> &'static str {
    const NAMES: [&str; 21] = [
        "invalid",
        "1d",
        "2d",
        "2dMS",
        "3d",
        "cube",
        "1darray",
        "2darray",
        "2darrayMS",
        "cubearray",
        "buf",
        "rawbuf",
        "structbuf",
        "cbuffer",
        "sampler",
        "tbuffer",
        "ras",
        "fbtex2d",
        "fbtex2darray",
        "structbufwithcounter",
        "samplercomparison",
    ];
    NAMES.get(kind as usize).copied().unwrap_or("invalid")
}

/// `CompType::GetName`, by DXIL `ComponentType` (packed types read as `u32`, as
/// `DxilResource::SetCompType` records them).
pub fn comp_type_name(t: u32) -> &'static str {
    const NAMES: [&str; 19] = [
        "invalid",
        "i1",
        "i16",
        "u16",
        "i32",
        "u32",
        "i64",
        "u64",
        "f16",
        "f32",
        "f64",
        "snorm_f16",
        "unorm_f16",
        "snorm_f32",
        "unorm_f32",
        "snorm_f64",
        "unorm_f64",
        "u32",
        "u32",
    ];
    NAMES.get(t as usize).copied().unwrap_or("invalid")
}

/// `CompType::GetHLSLName`, by DXIL `ComponentType`.
pub fn hlsl_type_name(t: u32, min_precision: bool) -> &'static str {
    const NAMES: [&str; 19] = [
        "unknown",
        "bool",
        "int16_t",
        "uint16_t",
        "int",
        "uint",
        "int64_t",
        "uint64_t",
        "half",
        "float",
        "double",
        "snorm_half",
        "unorm_half",
        "snorm_float",
        "unorm_float",
        "snorm_double",
        "unorm_double",
        "int8_t_packed",
        "uint8_t_packed",
    ];
    const MIN: [&str; 19] = [
        "unknown",
        "bool",
        "min16i",
        "min16ui",
        "int",
        "uint",
        "int64_t",
        "uint64_t",
        "min16float",
        "float",
        "double",
        "snorm_min16f",
        "unorm_min16f",
        "snorm_float",
        "unorm_float",
        "snorm_double",
        "unorm_double",
        "int8_t_packed",
        "uint8_t_packed",
    ];
    let table = if min_precision { &MIN } else { &NAMES };
    table.get(t as usize).copied().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PrintResourceBinding` columns (dxcdisassembler.cpp): name 31 left, type 10,
    /// format 8, dim 12, id 8, bind 15, count 6, right-justified, never truncated.
    #[test]
    fn binding_lines_have_dxc_columns() {
        let r = Resource {
            class: ResourceClass::Uav,
            id: 0,
            symbol: None,
            symbol_ty: None,
            name: "st".into(),
            space: 0,
            lower_bound: 4,
            range_size: 1,
            shape: Some(2),
            sample_count: None,
            globally_coherent: false,
            has_counter: false,
            rasterizer_ordered: false,
            size: None,
            sampler_kind: None,
            element_type: Some(14),
            struct_stride: None,
            atomic64: false,
            other_tags: Vec::new(),
        };
        let mut s = String::new();
        binding_line(&mut s, &r);
        // The line of a real `dxc -dumpbin` listing (DirectXShaderCompiler tests).
        assert_eq!(
            s,
            "; st                                    UAVunorm_f32          2d      U0             u4     1\n"
        );
    }
}
