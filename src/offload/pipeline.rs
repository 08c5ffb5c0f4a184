//! The offload test suite's pipeline description (`Pipeline.h` / `Pipeline.cpp` in
//! `llvm/offload-test-suite`), read from YAML into [`Pipeline`], with each buffer's
//! `Data` turned into bytes by its `Format`.
//!
//! Every key of the schema is known here, including those dxlane does not use (Vulkan
//! bindings, specialization constants): an unknown key is an error naming it and its
//! line, as a typo should be. Three generations of the schema are read: a top-level
//! `DispatchSize`, a `DispatchSize` per shader, and `DispatchParameters:
//! DispatchGroupCount`; `ZeroInitSize` (older) and `FillSize`/`FillValue` (newer); the
//! rule names `BufferFuzzy` (older, = ULP), `BufferFuzzyULP`/`BufferFuzzyEpsilon` and
//! `BufferFloatULP`/`BufferFloatEpsilon` (newer).

use serde::Deserialize;
use serde_norway::Value;

/// A pipeline description.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Pipeline {
    /// The programs, in the order their files are given on the command line.
    #[serde(default)]
    pub shaders: Vec<Shader>,
    /// The older schema's dispatch size.
    pub dispatch_size: Option<[u32; 3]>,
    /// Runtime settings (Direct3D's root parameters).
    pub runtime_settings: Option<RuntimeSettings>,
    /// The buffers (also textures, render targets, expected results).
    pub buffers: Vec<Buffer>,
    /// Samplers.
    #[serde(default)]
    pub samplers: Vec<Sampler>,
    /// The result rules.
    #[serde(default)]
    pub results: Vec<ResultRule>,
    /// Descriptor sets of resources.
    pub descriptor_sets: Vec<DescriptorSet>,
    /// Vertex input and render target of a graphics pipeline.
    pub bindings: Option<IoBindings>,
    /// Vulkan push constants (not used by Direct3D programs).
    pub push_constants: Option<Value>,
    /// Ray tracing acceleration structures.
    pub acceleration_structures: Option<Value>,
    /// Ray tracing pipeline configuration.
    pub ray_tracing_pipeline_config: Option<Value>,
    /// Ray tracing hit groups.
    pub hit_groups: Option<Value>,
    /// Ray tracing shader binding table.
    pub shader_binding_table: Option<Value>,
    /// The newer schema's dispatch parameters.
    pub dispatch_parameters: Option<DispatchParameters>,
}

/// One program.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Shader {
    /// `Compute`, `Vertex`, `Pixel`, …
    pub stage: String,
    /// The entry point's name.
    pub entry: String,
    /// The middle schema's dispatch size.
    pub dispatch_size: Option<[u32; 3]>,
    /// Vulkan specialization constants (not used by Direct3D programs).
    pub specialization_constants: Option<Value>,
}

/// The newer schema's dispatch parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct DispatchParameters {
    /// Thread groups of a compute dispatch.
    pub dispatch_group_count: Option<[u32; 3]>,
    /// Vertices of a draw.
    pub vertex_count: Option<u32>,
}

/// A buffer as the file gives it (see [`Buffer::bytes`] for its contents).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Buffer {
    /// Its name.
    pub name: String,
    /// The element format.
    pub format: DataFormat,
    /// Elements per entry (a `float4` is 4 channels).
    #[serde(default = "one")]
    pub channels: u32,
    /// A structure's stride in bytes (0: `channels` × the format's size).
    #[serde(default)]
    pub stride: u32,
    /// Buffers of a resource array.
    #[serde(default = "one")]
    pub array_size: u32,
    /// The contents: one list, or one list per array element.
    pub data: Option<Value>,
    /// Bytes of `FillValue` elements (newer schema).
    pub fill_size: Option<u64>,
    /// The fill element.
    pub fill_value: Option<Value>,
    /// Zero bytes (older schema).
    pub zero_init_size: Option<u64>,
    /// A texture's or render target's dimensions.
    pub output_props: Option<OutputProps>,
    /// A counter (output only; accepted on input).
    pub counter: Option<u32>,
}

fn one() -> u32 {
    1
}

/// A texture's dimensions.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct OutputProps {
    /// Height in texels.
    pub height: u32,
    /// Width in texels.
    pub width: u32,
    /// Depth (1 for 2D).
    pub depth: u32,
    /// Mip levels.
    #[serde(default = "one")]
    pub mip_levels: u32,
    /// Array slices.
    #[serde(default = "one")]
    pub array_slices: u32,
    /// Samples of a render target (the older generation's place for it; the newer
    /// one's is `Bindings: SampleCount`).
    pub sample_count: Option<u32>,
}

/// A sampler.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Sampler {
    /// Its name.
    pub name: String,
    /// `Sampler` or `SamplerComparison`.
    pub kind: Option<String>,
    /// `Nearest` or `Linear`.
    pub min_filter: Option<String>,
    /// `Nearest` or `Linear`.
    pub mag_filter: Option<String>,
    /// `Clamp`, `Repeat`, `Mirror`, `Border`, `MirrorOnce`.
    pub address: Option<String>,
    /// Minimum LOD.
    #[serde(rename = "MinLOD")]
    pub min_lod: Option<f32>,
    /// Maximum LOD.
    #[serde(rename = "MaxLOD")]
    pub max_lod: Option<f32>,
    /// LOD bias.
    #[serde(rename = "MipLODBias")]
    pub mip_lod_bias: Option<f32>,
    /// The comparison of a comparison sampler.
    pub comparison_op: Option<String>,
}

/// A result rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct ResultRule {
    /// The rule's name.
    pub result: String,
    /// `BufferExact`, `BufferFloatULP`, `BufferFloatEpsilon` (and the older names).
    pub rule: String,
    /// The buffer the run wrote.
    pub actual: String,
    /// The buffer it must match.
    pub expected: String,
    /// ULP tolerance.
    #[serde(rename = "ULPT")]
    pub ulpt: Option<u64>,
    /// Absolute tolerance.
    pub epsilon: Option<f64>,
    /// `Any`, `FTZ` or `Preserve`.
    pub denorm_mode: Option<String>,
    /// Accepted and unused (a newer key of the ULP rule).
    pub zero_tolerance: Option<f64>,
}

/// A descriptor set (one descriptor table).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct DescriptorSet {
    /// Its resources.
    pub resources: Vec<Resource>,
}

/// One resource of a descriptor set.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Resource {
    /// The buffer (or sampler) it views.
    pub name: String,
    /// `RWBuffer`, `StructuredBuffer`, `ConstantBuffer`, `Texture2D`, `Sampler`, …
    pub kind: String,
    /// Whether a UAV carries a counter.
    #[serde(default)]
    pub has_counter: bool,
    /// The Direct3D register and space.
    pub direct_x_binding: Option<DirectXBinding>,
    /// The Vulkan binding (unused).
    pub vulkan_binding: Option<Value>,
    /// A descriptor heap index instead of a binding.
    pub heap_index: Option<u32>,
    /// Tiled resources (unsupported).
    pub tiles_mapped: Option<Value>,
    /// Reserved resources (unsupported).
    pub is_reserved: Option<bool>,
}

/// A Direct3D register binding.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct DirectXBinding {
    /// The register number.
    pub register: u32,
    /// The register space.
    pub space: u32,
}

/// A graphics pipeline's input and output.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct IoBindings {
    /// The vertex buffer's name.
    pub vertex_buffer: Option<String>,
    /// Its attributes.
    #[serde(default)]
    pub vertex_attributes: Vec<VertexAttribute>,
    /// The render target's name.
    pub render_target: Option<String>,
    /// The topology.
    pub topology: Option<String>,
    /// Control points of a patch list.
    pub patch_control_points: Option<u32>,
    /// Viewports (default: one covering the render target).
    pub viewports: Option<Vec<Viewport>>,
    /// Scissor rectangles, one per viewport (default: the whole render target).
    pub scissors: Option<Vec<Scissor>>,
    /// Samples per pixel of the render target (newer generation; the older one gives
    /// it in the target's `OutputProps`).
    pub sample_count: Option<u32>,
}

/// One viewport (`Pipeline.cpp`: X and Y default 0, depth range 0 to 1).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Viewport {
    /// Left edge.
    #[serde(default)]
    pub x: f32,
    /// Top edge.
    #[serde(default)]
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Nearest depth.
    #[serde(default)]
    pub min_depth: f32,
    /// Farthest depth.
    #[serde(default = "one_f32")]
    pub max_depth: f32,
}

fn one_f32() -> f32 {
    1.0
}

/// One scissor rectangle (`Pipeline.cpp`: X and Y default 0).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Scissor {
    /// Left edge.
    #[serde(default)]
    pub x: i32,
    /// Top edge.
    #[serde(default)]
    pub y: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// `RuntimeSettings`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeSettings {
    /// Direct3D's settings.
    #[serde(rename = "DirectX")]
    pub direct_x: Option<DirectXSettings>,
}

/// `RuntimeSettings: DirectX`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct DirectXSettings {
    /// The root parameters, in root-signature order.
    #[serde(default)]
    pub root_parameters: Vec<RootParameter>,
}

/// One root parameter (`Pipeline.cpp`'s `RootParameter`): `Kind: Constant` with the
/// buffer `Name` holding its values, `Kind: RootDescriptor` with its `Resource`, or
/// `Kind: DescriptorTable` (the next descriptor set).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct RootParameter {
    /// `Constant`, `DescriptorTable` or `RootDescriptor`.
    pub kind: String,
    /// A root constant's buffer.
    pub name: Option<String>,
    /// A root descriptor's buffer and view kind.
    pub resource: Option<RootResource>,
}

/// The buffer and view kind of a root descriptor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct RootResource {
    /// The buffer.
    pub name: String,
    /// `ConstantBuffer`, `StructuredBuffer`, `RWStructuredBuffer`, `ByteAddressBuffer` or
    /// `RWByteAddressBuffer`.
    pub kind: String,
}

/// One vertex attribute.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct VertexAttribute {
    /// The element format.
    pub format: DataFormat,
    /// Channels.
    pub channels: u32,
    /// Byte offset in the vertex.
    pub offset: u32,
    /// The semantic name.
    pub name: String,
}

/// The element formats of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[allow(missing_docs)] // the schema's own names
pub enum DataFormat {
    Hex8,
    Hex16,
    Hex32,
    Hex64,
    UInt16,
    UInt32,
    UInt64,
    Int16,
    Int32,
    Int64,
    Float16,
    Float32,
    Float64,
    Depth32,
    Bool,
}

impl DataFormat {
    /// Bytes of one element (a `Bool` is 4, as HLSL stores it).
    pub fn size(self) -> u32 {
        use DataFormat::*;
        match self {
            Hex8 => 1,
            Hex16 | UInt16 | Int16 | Float16 => 2,
            Hex32 | UInt32 | Int32 | Float32 | Depth32 | Bool => 4,
            Hex64 | UInt64 | Int64 | Float64 => 8,
        }
    }

    /// The schema's name.
    pub fn name(self) -> &'static str {
        use DataFormat::*;
        match self {
            Hex8 => "Hex8",
            Hex16 => "Hex16",
            Hex32 => "Hex32",
            Hex64 => "Hex64",
            UInt16 => "UInt16",
            UInt32 => "UInt32",
            UInt64 => "UInt64",
            Int16 => "Int16",
            Int32 => "Int32",
            Int64 => "Int64",
            Float16 => "Float16",
            Float32 => "Float32",
            Float64 => "Float64",
            Depth32 => "Depth32",
            Bool => "Bool",
        }
    }

    /// Whether the rules' float comparisons apply (`isFloatingPointFormat`).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataFormat::Float16 | DataFormat::Float32 | DataFormat::Float64
        )
    }

    /// One element's bytes from a YAML scalar, or why it is not one.
    pub fn element(self, v: &Value) -> Result<Vec<u8>, String> {
        use DataFormat::*;
        let int = |lo: i128, hi: i128| -> Result<i128, String> {
            let n = match v {
                Value::Number(n) => n
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from)),
                Value::Bool(b) => Some(i128::from(*b)),
                Value::String(s) => parse_int(s),
                _ => None,
            }
            .ok_or_else(|| format!("`{}` is not an integer", scalar_text(v)))?;
            if n < lo || n > hi {
                return Err(format!(
                    "{n} does not fit a {} element ({lo}..={hi})",
                    self.name()
                ));
            }
            Ok(n)
        };
        let float = || -> Result<f64, String> {
            match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => parse_float(s),
                _ => None,
            }
            .ok_or_else(|| format!("`{}` is not a number", scalar_text(v)))
        };
        Ok(match self {
            Hex8 => vec![int(0, 0xff)? as u8],
            Hex16 | Float16 => (int(0, 0xffff)? as u16).to_le_bytes().to_vec(),
            UInt16 => (int(0, 0xffff)? as u16).to_le_bytes().to_vec(),
            Int16 => (int(-0x8000, 0x7fff)? as i16).to_le_bytes().to_vec(),
            Hex32 | UInt32 | Bool => (int(0, 0xffff_ffff)? as u32).to_le_bytes().to_vec(),
            Int32 => (int(-0x8000_0000, 0x7fff_ffff)? as i32)
                .to_le_bytes()
                .to_vec(),
            Hex64 | UInt64 => (int(0, u64::MAX as i128)? as u64).to_le_bytes().to_vec(),
            Int64 => (int(i64::MIN as i128, i64::MAX as i128)? as i64)
                .to_le_bytes()
                .to_vec(),
            Float32 | Depth32 => (float()? as f32).to_le_bytes().to_vec(),
            Float64 => float()?.to_le_bytes().to_vec(),
        })
    }
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_norway::to_string(other)
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let n = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -n } else { n })
}

/// A float as `strtod` reads the suite's values: decimal, `inf`, `nan`, `.inf`, `.nan`.
fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    match lower.trim_start_matches(['+', '-']) {
        "inf" | ".inf" | "infinity" => {
            return Some(if lower.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        "nan" | ".nan" => {
            return Some(if lower.starts_with('-') {
                -f64::NAN
            } else {
                f64::NAN
            });
        }
        _ => {}
    }
    t.parse::<f64>().ok()
}

/// The most bytes a buffer may declare (all its array elements), so a hostile
/// `FillSize` or `ArraySize` cannot make the reader allocate without bound; the
/// pipeline's buffers together may hold at most [`MAX_PIPELINE_BYTES`].
pub const MAX_BUFFER_BYTES: u64 = 64 << 20;

/// The most bytes all of a pipeline's buffers may hold together.
pub const MAX_PIPELINE_BYTES: u64 = 256 << 20;

impl Buffer {
    /// The element size: `Stride`, else channels × the format's size.
    pub fn element_size(&self) -> u32 {
        if self.stride > 0 {
            self.stride
        } else {
            self.format.size().saturating_mul(self.channels)
        }
    }

    /// The contents, one block per array element, each the same size.
    pub fn bytes(&self) -> Result<Vec<Vec<u8>>, String> {
        if self.array_size == 0 {
            return Err("`ArraySize`: 0; give at least 1".into());
        }
        if self.stride != 0 && self.channels != 1 {
            return Err("a structure `Stride` and more than one `Channels` together".into());
        }
        if let Some(n) = self.zero_init_size {
            if n > 0 {
                self.check_size(n)?;
                return Ok(vec![vec![0; n as usize]; self.array_size as usize]);
            }
        }
        let elem = self.format.size() as u64;
        if let Some(n) = self.fill_size.filter(|&n| n > 0) {
            // The suite fills `FillSize` elements (its vector is `FillSize` long) and then
            // takes `FillSize` bytes of them: the buffer is `FillSize` bytes.
            self.check_size(n)?;
            let value = match &self.fill_value {
                Some(v) => self
                    .format
                    .element(v)
                    .map_err(|e| format!("`FillValue`: {e}"))?,
                None => vec![0; elem as usize],
            };
            let block: Vec<u8> = value.iter().copied().cycle().take(n as usize).collect();
            return Ok(vec![block; self.array_size as usize]);
        }
        if self.fill_value.is_some() {
            return Err("`FillValue` without `FillSize`".into());
        }
        let data = self
            .data
            .as_ref()
            .ok_or("no `Data`, `FillSize` or `ZeroInitSize`")?;
        let list = |v: &Value, at: &str| -> Result<Vec<u8>, String> {
            let Value::Sequence(items) = v else {
                return Err(format!("`Data{at}`: a list of values"));
            };
            self.check_size((items.len() as u64).saturating_mul(elem))?;
            let mut out = Vec::with_capacity(items.len() * elem as usize);
            for (i, item) in items.iter().enumerate() {
                out.extend(
                    self.format
                        .element(item)
                        .map_err(|e| format!("`Data{at}[{i}]`: {e}"))?,
                );
            }
            Ok(out)
        };
        if self.array_size == 1 {
            return Ok(vec![list(data, "")?]);
        }
        let Value::Sequence(blocks) = data else {
            return Err("`Data`: a list of lists, one per array element".into());
        };
        if blocks.len() != self.array_size as usize {
            return Err(format!(
                "`Data`: {} lists for `ArraySize` {}",
                blocks.len(),
                self.array_size
            ));
        }
        let out = blocks
            .iter()
            .enumerate()
            .map(|(i, b)| list(b, &format!("[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        if out.iter().any(|b| b.len() != out[0].len()) {
            return Err("`Data`: the array's buffers differ in size".into());
        }
        Ok(out)
    }

    fn check_size(&self, bytes: u64) -> Result<(), String> {
        let total = bytes.saturating_mul(self.array_size as u64);
        if total > MAX_BUFFER_BYTES {
            return Err(format!(
                "{total} bytes; the most a buffer may hold here is {MAX_BUFFER_BYTES}"
            ));
        }
        Ok(())
    }
}

/// Reads a pipeline description; a syntax error or an unknown key names its line.
pub fn parse(text: &str) -> Result<Pipeline, (usize, String)> {
    serde_norway::from_str::<Pipeline>(text).map_err(|e| {
        let line = e.location().map_or(0, |l| l.line());
        // The line is reported in front; the message's own "at line L column C" goes.
        let mut m = e.to_string();
        if let Some(i) = m.rfind(" at line ") {
            m.truncate(i);
        }
        (line, m)
    })
}

/// The 1-based line of the first `Name: name` entry in `text` (0 if none): where an error
/// about a named buffer, sampler or resource points.
pub fn line_of_name(text: &str, name: &str) -> usize {
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ").trim();
            t.strip_prefix("Name:")
                .is_some_and(|rest| rest.trim().trim_matches(['"', '\'']) == name)
        })
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIMPLE: &str = "---
Shaders:
  - Stage: Compute
    Entry: main
    DispatchSize: [1, 1, 1]
Buffers:
  - Name: In
    Format: Float32
    Channels: 4
    Data: [ 2, 4, 6, 8]
  - Name: Out
    Format: Float32
    Channels: 4
    ZeroInitSize: 16
DescriptorSets:
  - Resources:
    - Name: In
      Kind: RWBuffer
      DirectXBinding:
        Register: 0
        Space: 0
      VulkanBinding:
        Binding: 0
    - Name: Out
      Kind: RWBuffer
      DirectXBinding:
        Register: 1
        Space: 0
...
";

    /// The suite's `simple.test` pipeline (middle schema: `DispatchSize` per shader,
    /// `ZeroInitSize`) reads, and its data becomes little-endian floats.
    #[test]
    fn reads_the_middle_schema() {
        let p = parse(SIMPLE).unwrap();
        assert_eq!(p.shaders[0].dispatch_size, Some([1, 1, 1]));
        let b = p.buffers[0].bytes().unwrap();
        assert_eq!(b[0][..4], 2.0f32.to_le_bytes());
        assert_eq!(b[0].len(), 16);
        assert_eq!(p.buffers[1].bytes().unwrap()[0], vec![0; 16]);
        assert_eq!(line_of_name(SIMPLE, "Out"), 11);
    }

    /// `Pipeline.cpp`: `FillSize` bytes of `FillValue` elements; `FillValue` alone is an
    /// error; an unknown key names its line.
    #[test]
    fn fill_and_unknown_keys() {
        let b: Buffer =
            serde_norway::from_str("Name: A\nFormat: Int32\nFillSize: 8\nFillValue: -1\n").unwrap();
        assert_eq!(b.bytes().unwrap()[0], vec![0xff; 8]);
        let b: Buffer = serde_norway::from_str("Name: A\nFormat: Int32\nFillValue: 3\n").unwrap();
        assert!(b.bytes().unwrap_err().contains("FillValue"));
        let (line, msg) =
            parse("Shaders: []\nBuffers: []\nDescriptorSets: []\nBufers: []\n").unwrap_err();
        assert_eq!(line, 4, "{msg}");
        assert!(msg.contains("Bufers"), "{msg}");
    }

    /// Out-of-range elements, hostile sizes and array mismatches are errors, not panics.
    #[test]
    fn bad_data_is_refused() {
        let b: Buffer = serde_norway::from_str("Name: A\nFormat: UInt16\nData: [70000]\n").unwrap();
        assert!(b.bytes().unwrap_err().contains("does not fit"));
        let b: Buffer =
            serde_norway::from_str("Name: A\nFormat: Int32\nFillSize: 99999999999\n").unwrap();
        assert!(b.bytes().unwrap_err().contains("most a buffer"));
        let b: Buffer =
            serde_norway::from_str("Name: A\nFormat: Int32\nArraySize: 2\nData: [[1, 2], [3]]\n")
                .unwrap();
        assert!(b.bytes().unwrap_err().contains("differ"));
        let b: Buffer =
            serde_norway::from_str("Name: A\nFormat: Hex32\nData: [0x3f800000, nan]\n").unwrap();
        assert!(b.bytes().unwrap_err().contains("Data[1]"));
    }
}
