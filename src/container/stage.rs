//! Pipeline-state enumerations that `STAT` and `PSV0` both store: geometry input
//! primitives, output topologies and tessellator settings.
//!
//! The numbers are the token format's (`D3D10_SB_PRIMITIVE`,
//! `D3D10_SB_PRIMITIVE_TOPOLOGY`, `D3D11_SB_TESSELLATOR_*`; seed `002_…txt`), which DXIL
//! keeps (`DXIL::InputPrimitive`, `DXIL::PrimitiveTopology`, `DXIL::TessellatorDomain`,
//! `DXIL::TessellatorOutputPrimitive`, `DXIL::TessellatorPartitioning` in
//! DirectXShaderCompiler's `DxilConstants.h`).

use super::codes::code_enum;

/// The name of a geometry program's input primitive (`D3D10_SB_PRIMITIVE`): 0
/// undefined, 1 point, 2 line, 3 triangle, 6 line with adjacency, 7 triangle with
/// adjacency, 8..=39 a patch of 1..=32 control points.
pub fn input_primitive_name(value: u32) -> String {
    match value {
        0 => "undefined".into(),
        1 => "point".into(),
        2 => "line".into(),
        3 => "triangle".into(),
        6 => "line_adj".into(),
        7 => "triangle_adj".into(),
        8..=39 => format!("patch{}", value.saturating_sub(7)),
        other => format!("unknown({other})"),
    }
}

code_enum! {
    /// A primitive topology (`D3D10_SB_PRIMITIVE_TOPOLOGY`): a geometry program's output.
    pub enum PrimitiveTopology: u32 {
        Undefined = 0 => "undefined",
        PointList = 1 => "pointlist",
        LineList = 2 => "linelist",
        LineStrip = 3 => "linestrip",
        TriangleList = 4 => "trianglelist",
        TriangleStrip = 5 => "trianglestrip",
        LineListAdj = 10 => "linelist_adj",
        LineStripAdj = 11 => "linestrip_adj",
        TriangleListAdj = 12 => "trianglelist_adj",
        TriangleStripAdj = 13 => "trianglestrip_adj",
    }
}

code_enum! {
    /// The tessellator domain (`D3D11_SB_TESSELLATOR_DOMAIN`).
    pub enum TessellatorDomain: u32 {
        Undefined = 0 => "undefined",
        Isoline = 1 => "isoline",
        Triangle = 2 => "tri",
        Quad = 3 => "quad",
    }
}

code_enum! {
    /// The tessellator's output primitive (`D3D11_SB_TESSELLATOR_OUTPUT_PRIMITIVE`).
    pub enum TessellatorOutputPrimitive: u32 {
        Undefined = 0 => "undefined",
        Point = 1 => "point",
        Line = 2 => "line",
        TriangleCw = 3 => "triangle_cw",
        TriangleCcw = 4 => "triangle_ccw",
    }
}

code_enum! {
    /// The tessellator's partitioning (`D3D11_SB_TESSELLATOR_PARTITIONING`).
    pub enum TessellatorPartitioning: u32 {
        Undefined = 0 => "undefined",
        Integer = 1 => "integer",
        Pow2 = 2 => "pow2",
        FractionalOdd = 3 => "fractional_odd",
        FractionalEven = 4 => "fractional_even",
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity
)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(input_primitive_name(3), "triangle");
        assert_eq!(input_primitive_name(8), "patch1");
        assert_eq!(input_primitive_name(39), "patch32");
        assert_eq!(input_primitive_name(40), "unknown(40)");
        assert_eq!(PrimitiveTopology::from_code(5).to_string(), "trianglestrip");
        assert_eq!(TessellatorDomain::from_code(3), TessellatorDomain::Quad);
    }
}
