//! dxc's comments after instructions (`DxcAssemblyAnnotationWriter::printInfoComment`
//! in DirectXShaderCompiler's `dxcdisassembler.cpp`): a source location, and after a
//! `dx.op` call the operation's name and parameter names, with a decoded
//! `%dx.types.ResourceProperties` after `AnnotateHandle`.
//!
//! Owns: the parameter-name table and the comment text. Does not own: the operation
//! table itself (see [`crate::dxil::dxop_table`]).

use std::fmt::Write as _;

use crate::dxil::dxop::{self, DxOp};
use crate::dxil::llvm::{
    Constant, FunctionBody, InstKind, Instruction, Module, Operand, ValueId, ValueKind,
};

/// Appends dxc's comment for `inst` to `s`: ` ; line:L col:C` when the instruction has
/// a location with a non-zero line, then for a call to a `dx.op.*` function whose
/// first argument is a constant integer `  ; Name(params)` (or
/// `  ; invalid DXIL opcode #N` past the operation table, but for the experimental
/// operations [`EXPERIMENTAL_NAMED`] names), and after `AnnotateHandle`
/// `  resource: …`.
pub fn info_comment(s: &mut String, m: &Module, body: &FunctionBody, inst: &Instruction) {
    if let Some(loc) = inst.debug_loc
        && loc.line != 0
    {
        let _ = write!(s, " ; line:{} col:{}", loc.line, loc.column);
    }
    let InstKind::Call { callee, args, .. } = &inst.kind else {
        return;
    };
    let Some(f) = m.function_of_value(*callee) else {
        return;
    };
    if args.is_empty() || !f.name.starts_with(dxop::DX_OP_PREFIX) {
        return;
    }
    let Some(opcode) = args.first().and_then(|a| const_u32(m, body, *a)) else {
        return;
    };
    let Some(info) = dxop::op_info(opcode)
        .filter(|i| i.opcode < dxop::EXPERIMENTAL_BASE || EXPERIMENTAL_NAMED.contains(&i.op))
    else {
        let _ = write!(s, "  ; invalid DXIL opcode #{opcode}");
        return;
    };
    s.push_str("  ; ");
    s.push_str(info.name);
    if let Some(p) = OP_PARAMS.get(opcode as usize) {
        s.push_str(p);
    } else if EXPERIMENTAL_NAMED.contains(&info.op) {
        // Neither takes an operand but the opcode (DXIL.rst's table).
        s.push_str("()");
    }
    // dxc decodes the resource properties after AnnotateHandle's comment.
    if info.op == DxOp::AnnotateHandle
        && let Some(Operand::Value(props)) = args.get(2)
        && let Some(words) = props_words(m, body, *props)
    {
        s.push_str("  resource: ");
        s.push_str(&resource_properties(words));
    }
}

/// The experimental operations (opcodes from `0x80000000`, DXIL.rst's experimental
/// table) the listing names as it names the others: SM 6.10's `DebugBreak()` and
/// `IsDebuggingEnabled()` (HLSL specifications, proposal 0039 "Debugging
/// Intrinsics"), which dxc's SM 6.10 lowering emits. The other experimental
/// operations keep dxc 1.8's `invalid DXIL opcode` comment.
const EXPERIMENTAL_NAMED: [DxOp; 2] = [DxOp::DebugBreak, DxOp::IsDebuggingEnabled];

fn const_u32(m: &Module, body: &FunctionBody, a: Operand) -> Option<u32> {
    let Operand::Value(v) = a else { return None };
    match &m.value(Some(body), v)?.kind {
        ValueKind::Constant(c) => c.as_int().map(|i| i as u32),
        _ => None,
    }
}

/// The two words of a `%dx.types.ResourceProperties` constant
/// (`resource_helper::loadPropsFromConstant`): a structure of two `i32`, or
/// `zeroinitializer`.
fn props_words(m: &Module, body: &FunctionBody, v: ValueId) -> Option<[u32; 2]> {
    match &m.value(Some(body), v)?.kind {
        ValueKind::Constant(Constant::Null) => Some([0, 0]),
        ValueKind::Constant(Constant::Aggregate(e)) => {
            let w = |i: usize| -> Option<u32> {
                match &m.value(Some(body), *e.get(i)?)?.kind {
                    ValueKind::Constant(c) => c.as_int().map(|x| x as u32),
                    _ => None,
                }
            };
            Some([w(0)?, w(1)?])
        }
        _ => None,
    }
}

/// dxc's `PrintResourceProperties`: the resource a `%dx.types.ResourceProperties`
/// describes. Word 0: byte 0 the resource kind, bits 8–11 the base alignment, bit 12
/// UAV, bit 13 rasterizer ordered, bit 14 globally coherent, bit 15 sampler comparison
/// or structured-buffer counter. Word 1: a typed resource's component type (byte 0)
/// and component count (byte 1), or a structured buffer's stride, or a feedback
/// texture's type (`DxilResourceProperties.h`).
pub fn resource_properties(w: [u32; 2]) -> String {
    let kind = w[0] & 0xff;
    let uav = w[0] & (1 << 12) != 0;
    let rov = w[0] & (1 << 13) != 0;
    let gc = w[0] & (1 << 14) != 0;
    let cmp_or_counter = w[0] & (1 << 15) != 0;
    match kind {
        13 => return "CBuffer".into(),
        15 if !uav => return "TBuffer".into(),
        14 => {
            return if cmp_or_counter {
                "SamplerComparisonState"
            } else {
                "SamplerState"
            }
            .into();
        }
        _ => {}
    }
    let rw = if uav {
        if rov { "ROV" } else { "RW" }
    } else {
        ""
    };
    let gc = if uav && gc { "globallycoherent " } else { "" };
    match kind {
        1..=10 => {
            let count = (w[1] >> 8) & 0xff;
            let count = if count > 1 {
                format!("{count}x")
            } else {
                String::new()
            };
            format!(
                "{gc}{rw}{}<{count}{}>",
                resource_kind_name(kind),
                comp_type_name(w[1] & 0xff)
            )
        }
        11 => format!("{gc}{rw}{}", resource_kind_name(kind)),
        12 => {
            let counter = if uav && cmp_or_counter {
                ", counter"
            } else {
                ""
            };
            format!(
                "{gc}{rw}{}<stride={}{counter}>",
                resource_kind_name(kind),
                w[1]
            )
        }
        16 => resource_kind_name(kind).to_owned(),
        17 | 18 => {
            let t = match w[1] {
                0 => "MinMip",
                1 => "MipRegionUsed",
                _ => "<invalid sampler feedback type>",
            };
            format!("{}<{t}>", resource_kind_name(kind))
        }
        _ => "<invalid resource properties>".into(),
    }
}

/// dxc's `ResourceKindToString`.
fn resource_kind_name(kind: u32) -> &'static str {
    match kind {
        1 => "Texture1D",
        2 => "Texture2D",
        3 => "Texture2DMS",
        4 => "Texture3D",
        5 => "TextureCube",
        6 => "Texture1DArray",
        7 => "Texture2DArray",
        8 => "Texture2DMSArray",
        9 => "TextureCubeArray",
        10 => "TypedBuffer",
        11 => "ByteAddressBuffer",
        12 => "StructuredBuffer",
        13 => "CBuffer",
        14 => "Sampler",
        15 => "TBuffer",
        16 => "RTAccelerationStructure",
        17 => "FeedbackTexture2D",
        18 => "FeedbackTexture2DArray",
        _ => "<invalid ResourceKind>",
    }
}

/// dxc's `CompTypeToString` (DXIL `ComponentType` numbers).
fn comp_type_name(t: u32) -> &'static str {
    match t {
        1 => "I1",
        2 => "I16",
        3 => "U16",
        4 => "I32",
        5 => "U32",
        6 => "I64",
        7 => "U64",
        8 => "F16",
        9 => "F32",
        10 => "F64",
        11 => "SNormF16",
        12 => "UNormF16",
        13 => "SNormF32",
        14 => "UNormF32",
        15 => "SNormF64",
        16 => "UNormF64",
        _ => "<invalid CompType>",
    }
}

/// Each operation's parameter names, by opcode, as dxc's disassembler prints them
/// after the operation's name (`OpCodeSignatures`, generated in DirectXShaderCompiler
/// from `utils/hct/hctdb.py`; the spelling `compareVale` is the table's). Opcodes
/// 0–225 (through Shader Model 6.7); later operations are printed by name alone.
const OP_PARAMS: &[&str] = &[
    "(index)",                                                                      // 0
    "(index,value)",                                                                // 1
    "(regIndex,index,component)",                                                   // 2
    "(regIndex,index,component,value)",                                             // 3
    "(inputSigId,rowIndex,colIndex,gsVertexAxis)",                                  // 4
    "(outputSigId,rowIndex,colIndex,value)",                                        // 5
    "(value)",                                                                      // 6
    "(value)",                                                                      // 7
    "(value)",                                                                      // 8
    "(value)",                                                                      // 9
    "(value)",                                                                      // 10
    "(value)",                                                                      // 11
    "(value)",                                                                      // 12
    "(value)",                                                                      // 13
    "(value)",                                                                      // 14
    "(value)",                                                                      // 15
    "(value)",                                                                      // 16
    "(value)",                                                                      // 17
    "(value)",                                                                      // 18
    "(value)",                                                                      // 19
    "(value)",                                                                      // 20
    "(value)",                                                                      // 21
    "(value)",                                                                      // 22
    "(value)",                                                                      // 23
    "(value)",                                                                      // 24
    "(value)",                                                                      // 25
    "(value)",                                                                      // 26
    "(value)",                                                                      // 27
    "(value)",                                                                      // 28
    "(value)",                                                                      // 29
    "(value)",                                                                      // 30
    "(value)",                                                                      // 31
    "(value)",                                                                      // 32
    "(value)",                                                                      // 33
    "(value)",                                                                      // 34
    "(a,b)",                                                                        // 35
    "(a,b)",                                                                        // 36
    "(a,b)",                                                                        // 37
    "(a,b)",                                                                        // 38
    "(a,b)",                                                                        // 39
    "(a,b)",                                                                        // 40
    "(a,b)",                                                                        // 41
    "(a,b)",                                                                        // 42
    "(a,b)",                                                                        // 43
    "(a,b)",                                                                        // 44
    "(a,b)",                                                                        // 45
    "(a,b,c)",                                                                      // 46
    "(a,b,c)",                                                                      // 47
    "(a,b,c)",                                                                      // 48
    "(a,b,c)",                                                                      // 49
    "(a,b,c)",                                                                      // 50
    "(a,b,c)",                                                                      // 51
    "(a,b,c)",                                                                      // 52
    "(width,offset,value,replacedValue)",                                           // 53
    "(ax,ay,bx,by)",                                                                // 54
    "(ax,ay,az,bx,by,bz)",                                                          // 55
    "(ax,ay,az,aw,bx,by,bz,bw)",                                                    // 56
    "(resourceClass,rangeId,index,nonUniformIndex)",                                // 57
    "(handle,byteOffset,alignment)",                                                // 58
    "(handle,regIndex)",                                                            // 59
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,clamp)",      // 60
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,bias,clamp)", // 61
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,LOD)",        // 62
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,ddx0,ddx1,ddx2,ddy0,ddy1,ddy2,clamp)", // 63
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,compareValue,clamp)", // 64
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,compareValue)",       // 65
    "(srv,mipLevelOrSampleCount,coord0,coord1,coord2,offset0,offset1,offset2)",             // 66
    "(srv,coord0,coord1,coord2,value0,value1,value2,value3,mask)",                          // 67
    "(srv,index,wot)",                                                                      // 68
    "(uav,coord0,coord1,value0,value1,value2,value3,mask)",                                 // 69
    "(uav,inc)",                                                                            // 70
    "(status)",                                                                             // 71
    "(handle,mipLevel)",                                                                    // 72
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,channel)",                    // 73
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,channel,compareVale)",        // 74
    "(srv,index)",                                                                          // 75
    "(index)",                                                                              // 76
    "()",                                                                                   // 77
    "(handle,atomicOp,offset0,offset1,offset2,newValue)",                                   // 78
    "(handle,offset0,offset1,offset2,compareValue,newValue)",                               // 79
    "(barrierMode)",                                                                        // 80
    "(handle,sampler,coord0,coord1,coord2,clamped)",                                        // 81
    "(condition)",                                                                          // 82
    "(value)",                                                                              // 83
    "(value)",                                                                              // 84
    "(value)",                                                                              // 85
    "(value)",                                                                              // 86
    "(inputSigId,inputRowIndex,inputColIndex,offsetX,offsetY)",                             // 87
    "(inputSigId,inputRowIndex,inputColIndex,sampleIndex)",                                 // 88
    "(inputSigId,inputRowIndex,inputColIndex)",                                             // 89
    "()",                                                                                   // 90
    "()",                                                                                   // 91
    "()",                                                                                   // 92
    "(component)",                                                                          // 93
    "(component)",                                                                          // 94
    "(component)",                                                                          // 95
    "()",                                                                                   // 96
    "(streamId)",                                                                           // 97
    "(streamId)",                                                                           // 98
    "(streamId)",                                                                           // 99
    "()",                                                                                   // 100
    "(lo,hi)",                                                                              // 101
    "(value)",                                                                              // 102
    "(inputSigId,row,col,index)",                                                           // 103
    "(inputSigId,row,col)",                                                                 // 104
    "(component)",                                                                          // 105
    "(outputSigID,row,col,value)",                                                          // 106
    "()",                                                                                   // 107
    "()",                                                                                   // 108
    "()",                                                                                   // 109
    "()",                                                                                   // 110
    "()",                                                                                   // 111
    "()",                                                                                   // 112
    "(cond)",                                                                               // 113
    "(cond)",                                                                               // 114
    "(value)",                                                                              // 115
    "(cond)",                                                                               // 116
    "(value,lane)",                                                                         // 117
    "(value)",                                                                              // 118
    "(value,op,sop)",                                                                       // 119
    "(value,op)",                                                                           // 120
    "(value,op,sop)",                                                                       // 121
    "(value,quadLane)",                                                                     // 122
    "(value,op)",                                                                           // 123
    "(value)",                                                                              // 124
    "(value)",                                                                              // 125
    "(value)",                                                                              // 126
    "(value)",                                                                              // 127
    "(value)",                                                                              // 128
    "(value)",                                                                              // 129
    "(value)",                                                                              // 130
    "(value)",                                                                              // 131
    "(value)",                                                                              // 132
    "(value)",                                                                              // 133
    "(value)",                                                                              // 134
    "(value)",                                                                              // 135
    "(value)",                                                                              // 136
    "(inputSigId,inputRowIndex,inputColIndex,VertexID)",                                    // 137
    "()",                                                                                   // 138
    "(srv,index,elementOffset,mask,alignment)",                                             // 139
    "(uav,index,elementOffset,value0,value1,value2,value3,mask,alignment)",                 // 140
    "()",                                                                                   // 141
    "()",                                                                                   // 142
    "()",                                                                                   // 143
    "()",                                                                                   // 144
    "(col)",                                                                                // 145
    "(col)",                                                                                // 146
    "(col)",                                                                                // 147
    "(col)",                                                                                // 148
    "(col)",                                                                                // 149
    "(col)",                                                                                // 150
    "(row,col)",                                                                            // 151
    "(row,col)",                                                                            // 152
    "()",                                                                                   // 153
    "()",                                                                                   // 154
    "()",                                                                                   // 155
    "()",                                                                                   // 156
    "(AccelerationStructure,RayFlags,InstanceInclusionMask,RayContributionToHitGroupIndex,MultiplierForGeometryContributionToShaderIndex,MissShaderIndex,Origin_X,Origin_Y,Origin_Z,TMin,Direction_X,Direction_Y,Direction_Z,TMax,payload)", // 157
    "(THit,HitKind,Attributes)",                               // 158
    "(ShaderIndex,Parameter)",                                 // 159
    "(Resource)",                                              // 160
    "()",                                                      // 161
    "(acc,ax,ay,bx,by)",                                       // 162
    "(acc,a,b)",                                               // 163
    "(acc,a,b)",                                               // 164
    "(value)",                                                 // 165
    "(value,mask0,mask1,mask2,mask3,op,sop)",                  // 166
    "(value,mask0,mask1,mask2,mask3)",                         // 167
    "(numVertices,numPrimitives)",                             // 168
    "(PrimitiveIndex,VertexIndex0,VertexIndex1,VertexIndex2)", // 169
    "()",                                                      // 170
    "(outputSigId,rowIndex,colIndex,value,vertexIndex)",       // 171
    "(outputSigId,rowIndex,colIndex,value,primitiveIndex)",    // 172
    "(threadGroupCountX,threadGroupCountY,threadGroupCountZ,payload)", // 173
    "(feedbackTex,sampledTex,sampler,c0,c1,c2,c3,clamp)",      // 174
    "(feedbackTex,sampledTex,sampler,c0,c1,c2,c3,bias,clamp)", // 175
    "(feedbackTex,sampledTex,sampler,c0,c1,c2,c3,lod)",        // 176
    "(feedbackTex,sampledTex,sampler,c0,c1,c2,c3,ddx0,ddx1,ddx2,ddy0,ddy1,ddy2,clamp)", // 177
    "(constRayFlags)",                                         // 178
    "(rayQueryHandle,accelerationStructure,rayFlags,instanceInclusionMask,origin_X,origin_Y,origin_Z,tMin,direction_X,direction_Y,direction_Z,tMax)", // 179
    "(rayQueryHandle)",                                          // 180
    "(rayQueryHandle)",                                          // 181
    "(rayQueryHandle)",                                          // 182
    "(rayQueryHandle,t)",                                        // 183
    "(rayQueryHandle)",                                          // 184
    "(rayQueryHandle)",                                          // 185
    "(rayQueryHandle,row,col)",                                  // 186
    "(rayQueryHandle,row,col)",                                  // 187
    "(rayQueryHandle,row,col)",                                  // 188
    "(rayQueryHandle,row,col)",                                  // 189
    "(rayQueryHandle)",                                          // 190
    "(rayQueryHandle)",                                          // 191
    "(rayQueryHandle)",                                          // 192
    "(rayQueryHandle,component)",                                // 193
    "(rayQueryHandle,component)",                                // 194
    "(rayQueryHandle)",                                          // 195
    "(rayQueryHandle,component)",                                // 196
    "(rayQueryHandle,component)",                                // 197
    "(rayQueryHandle)",                                          // 198
    "(rayQueryHandle)",                                          // 199
    "(rayQueryHandle)",                                          // 200
    "(rayQueryHandle)",                                          // 201
    "(rayQueryHandle)",                                          // 202
    "(rayQueryHandle)",                                          // 203
    "(rayQueryHandle)",                                          // 204
    "(rayQueryHandle,component)",                                // 205
    "(rayQueryHandle,component)",                                // 206
    "(rayQueryHandle)",                                          // 207
    "(rayQueryHandle)",                                          // 208
    "(rayQueryHandle)",                                          // 209
    "(rayQueryHandle)",                                          // 210
    "(rayQueryHandle,component)",                                // 211
    "(rayQueryHandle,component)",                                // 212
    "()",                                                        // 213
    "(rayQueryHandle)",                                          // 214
    "(rayQueryHandle)",                                          // 215
    "(res,props)",                                               // 216
    "(bind,index,nonUniformIndex)",                              // 217
    "(index,samplerHeap,nonUniformIndex)",                       // 218
    "(unpackMode,pk)",                                           // 219
    "(packMode,x,y,z,w)",                                        // 220
    "()",                                                        // 221
    "(cond,op)",                                                 // 222
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1)", // 223
    "(srv,sampler,coord0,coord1,coord2,coord3,offset0,offset1,offset2,compareValue,lod)", // 224
    "(srv,coord0,coord1,coord2,value0,value1,value2,value3,mask,sampleIdx)", // 225
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `PrintResourceProperties` (dxcdisassembler.cpp) on the layouts of
    /// `DxilResourceProperties.h`.
    #[test]
    fn resource_properties_as_dxc_prints_them() {
        assert_eq!(resource_properties([13, 32]), "CBuffer");
        assert_eq!(resource_properties([14, 0]), "SamplerState");
        assert_eq!(
            resource_properties([14 | 1 << 15, 0]),
            "SamplerComparisonState"
        );
        assert_eq!(resource_properties([2, 0x409]), "Texture2D<4xF32>");
        assert_eq!(
            resource_properties([10 | 1 << 12, 0x105]),
            "RWTypedBuffer<U32>"
        );
        assert_eq!(
            resource_properties([12 | 1 << 12, 4]),
            "RWStructuredBuffer<stride=4>"
        );
        assert_eq!(resource_properties([11, 0]), "ByteAddressBuffer");
    }

    #[test]
    fn parameter_table_covers_the_first_226_operations() {
        assert_eq!(OP_PARAMS.len(), 226);
        assert_eq!(
            OP_PARAMS[57],
            "(resourceClass,rangeId,index,nonUniformIndex)"
        );
        assert_eq!(OP_PARAMS[216], "(res,props)");
    }
}
