//! DXIL's named metadata as typed structs: `dx.version`, `dx.valver`,
//! `dx.shaderModel`, `dx.entryPoints` (signatures, resources, properties),
//! `dx.resources`, `dx.typeAnnotations`, `dx.viewIdState`, and the entry function's
//! `"fp32-denorm-mode"` attribute.
//!
//! Owns: reading those records from a decoded [`Module`] (DXIL.rst sections "Entry
//! points", "Shader Properties and Capabilities", "Signature element record", "Metadata
//! resource records", "Type annotations"; seed `000_…` for the tags it observes).
//!
//! Does not own: the module (see [`super::llvm`]) or cross-checks with PSV0.

use super::llvm::{Constant, MdId, Metadata, Module, Type, TypeId, ValueId, ValueKind};

/// An error reading DXIL metadata: the path to the bad operand and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {what}")]
pub struct MetaError {
    /// Where: `dx.entryPoints[0].signatures.inputs[2] operand 3`.
    pub path: String,
    /// What is wrong.
    pub what: String,
}

/// `dx.shaderModel`: `!{!"cs", i32 6, i32 0}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderModel {
    /// The kind (`ps`, `vs`, `gs`, `hs`, `ds`, `cs`, `lib`, `ms`, `as`).
    pub kind: String,
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// One signature element (11 operands; DXIL.rst "Signature element record").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureElement {
    /// Element id (operand 0).
    pub id: u32,
    /// Semantic name (1).
    pub name: String,
    /// Component type (2): DXIL `ComponentType` (5 u32, 4 i32, 9 f32, …).
    pub component_type: u32,
    /// Semantic kind (3): DXIL `SemanticKind` (0 arbitrary, 3 position, …).
    pub semantic_kind: u32,
    /// Semantic indices (4), one per row.
    pub semantic_indices: Vec<u32>,
    /// Interpolation mode (5).
    pub interpolation: u32,
    /// Rows (6).
    pub rows: u32,
    /// Columns (7).
    pub cols: u32,
    /// Start row (8), −1 when not allocated.
    pub start_row: i32,
    /// Start column (9), −1 when not allocated.
    pub start_col: i32,
    /// Tag 0: the output stream.
    pub stream: Option<u32>,
    /// Tag 2: the dynamically indexed components.
    pub dynamic_index_mask: Option<u32>,
    /// Tag 3: the components used, counted from the element's first column.
    pub usage_mask: Option<u32>,
    /// Other tags, as (tag, integer value).
    pub other_tags: Vec<(u32, i64)>,
}

/// An entry point's signatures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Signatures {
    /// Input elements.
    pub inputs: Vec<SignatureElement>,
    /// Output elements.
    pub outputs: Vec<SignatureElement>,
    /// Patch-constant elements.
    pub patch_constants: Vec<SignatureElement>,
}

/// The class of a resource record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceClass {
    /// Shader resource view (`t`).
    Srv,
    /// Unordered access view (`u`).
    Uav,
    /// Constant buffer (`b`).
    Cbv,
    /// Sampler (`s`).
    Sampler,
}

/// One resource record (DXIL.rst "Metadata resource records").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Which list it is in.
    pub class: ResourceClass,
    /// Record id (0), the range id `createHandle` uses.
    pub id: u32,
    /// The global symbol (1), when it is a value.
    pub symbol: Option<ValueId>,
    /// The symbol's type (the resource's pointer type).
    pub symbol_ty: Option<TypeId>,
    /// Name (2), empty when reflection is stripped.
    pub name: String,
    /// Register space (3).
    pub space: u32,
    /// Lower bound (4).
    pub lower_bound: u32,
    /// Range size (5); u32::MAX for an unbounded array.
    pub range_size: u32,
    /// SRV/UAV shape (6): DXIL `ResourceKind` (1 Texture1D … 11 raw, 12 structured, …).
    pub shape: Option<u32>,
    /// SRV sample count (7).
    pub sample_count: Option<u32>,
    /// UAV globally coherent (7).
    pub globally_coherent: bool,
    /// UAV hidden counter (8).
    pub has_counter: bool,
    /// UAV rasterizer ordered (9).
    pub rasterizer_ordered: bool,
    /// CBV size in bytes (6).
    pub size: Option<u32>,
    /// Sampler kind (6): 0 default, 1 comparison, 2 mono.
    pub sampler_kind: Option<u32>,
    /// Tag 0: the element type (DXIL `ComponentType`).
    pub element_type: Option<u32>,
    /// Tag 1: the structure stride in bytes.
    pub struct_stride: Option<u32>,
    /// Tag 3: target of a 64-bit atomic.
    pub atomic64: bool,
    /// Other tags, as (tag, integer value).
    pub other_tags: Vec<(u32, i64)>,
}

/// The four resource lists.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resources {
    /// Shader resource views.
    pub srvs: Vec<Resource>,
    /// Unordered access views.
    pub uavs: Vec<Resource>,
    /// Constant buffers.
    pub cbvs: Vec<Resource>,
    /// Samplers.
    pub samplers: Vec<Resource>,
}

impl Resources {
    /// Every record, SRVs, UAVs, CBVs, samplers in that order.
    pub fn all(&self) -> impl Iterator<Item = &Resource> {
        self.srvs
            .iter()
            .chain(&self.uavs)
            .chain(&self.cbvs)
            .chain(&self.samplers)
    }
}

/// The value of one entry-point property.
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    /// 0: shader flags.
    Flags(u64),
    /// 1: geometry state (input primitive, max vertex count, stream mask, output
    /// topology, instance count, as dxc writes it).
    Geometry(Vec<i64>),
    /// 2: domain state (tessellator domain, input control points).
    Domain(Vec<i64>),
    /// 3: hull state: patch-constant function, then input and output control points,
    /// domain, partitioning, output primitive, max tessellation factor (as bits).
    Hull {
        /// The patch-constant function.
        patch_constant_function: Option<ValueId>,
        /// The remaining operands (the factor as its float bits).
        values: Vec<i64>,
    },
    /// 4: thread group size.
    NumThreads([u32; 3]),
    /// 5: automatic binding space.
    AutoBindingSpace(u32),
    /// 6: ray payload size in bytes.
    RayPayloadSize(u32),
    /// 7: ray attribute size in bytes.
    RayAttributeSize(u32),
    /// 8: shader kind (DXIL `ShaderKind`).
    ShaderKind(u32),
    /// 9: mesh state: thread group, max vertices, max primitives, output topology,
    /// payload size.
    Mesh {
        /// Thread group size.
        num_threads: [u32; 3],
        /// The other operands.
        values: Vec<i64>,
    },
    /// 10: amplification state: thread group and payload size.
    Amplification {
        /// Thread group size.
        num_threads: [u32; 3],
        /// The other operands.
        values: Vec<i64>,
    },
    /// 11: required wave size (one value, or min/max/preferred for a range).
    WaveSize(Vec<i64>),
    /// Any other tag: its value node's integers, or the single integer.
    Other {
        /// The tag.
        tag: u32,
        /// Integers found in the value (flattened).
        values: Vec<i64>,
    },
}

/// An entry point (`dx.entryPoints` record).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPoint {
    /// The entry function's value, `None` for a library's module-wide record.
    pub function: Option<ValueId>,
    /// The function's name in the module, when it is one.
    pub function_name: Option<String>,
    /// The entry point's name.
    pub name: String,
    /// Its signatures.
    pub signatures: Option<Signatures>,
    /// Its resources.
    pub resources: Option<Resources>,
    /// Its properties, in record order.
    pub properties: Vec<(u32, Property)>,
    /// The function's `"fp32-denorm-mode"` attribute (`any`, `preserve`, `ftz`).
    pub fp32_denorm_mode: Option<String>,
}

impl EntryPoint {
    /// The thread group size, from tag 4, 9 or 10.
    pub fn num_threads(&self) -> Option<[u32; 3]> {
        self.properties.iter().find_map(|(_, p)| match p {
            Property::NumThreads(n) => Some(*n),
            Property::Mesh { num_threads, .. } | Property::Amplification { num_threads, .. } => {
                Some(*num_threads)
            }
            _ => None,
        })
    }

    /// The shader flags (tag 0).
    pub fn flags(&self) -> Option<u64> {
        self.properties.iter().find_map(|(_, p)| match p {
            Property::Flags(f) => Some(*f),
            _ => None,
        })
    }
}

/// A field annotation (DXIL.rst "Field Annotation").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldAnnotation {
    /// Tag 6: the field's name.
    pub name: Option<String>,
    /// Tag 3: byte offset in a constant buffer.
    pub offset: Option<u32>,
    /// Tag 7: component type.
    pub component_type: Option<u32>,
    /// Tag 2: matrix rows, columns and orientation (1 row major, 2 column major).
    pub matrix: Option<(u32, u32, u32)>,
    /// Tag 0 / 1: snorm / unorm.
    pub snorm: bool,
    /// Tag 1.
    pub unorm: bool,
    /// Tag 4: semantic.
    pub semantic: Option<String>,
    /// Tag 5: interpolation mode.
    pub interpolation: Option<u32>,
    /// Tag 8: precise.
    pub precise: bool,
    /// Other tags, as (tag, integer value or 0).
    pub other_tags: Vec<(u32, i64)>,
}

/// A structure's annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructAnnotation {
    /// The structure type.
    pub ty: Option<TypeId>,
    /// Size in bytes.
    pub size: u32,
    /// The fields in order.
    pub fields: Vec<FieldAnnotation>,
}

/// A function parameter's annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamAnnotation {
    /// Input/output qualifier (0 in, 1 out, 2 inout, …).
    pub qualifier: u32,
    /// The field annotation of the parameter.
    pub field: FieldAnnotation,
    /// Semantic indices.
    pub semantic_indices: Vec<u32>,
}

/// A function's annotation: return value first, then the parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionAnnotation {
    /// The function.
    pub function: Option<ValueId>,
    /// Return then parameters.
    pub params: Vec<ParamAnnotation>,
}

/// Everything DXIL's named metadata states.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DxilMetadata {
    /// `dx.version` (major, minor).
    pub dxil_version: Option<(u32, u32)>,
    /// `dx.valver` (major, minor).
    pub validator_version: Option<(u32, u32)>,
    /// `dx.shaderModel`.
    pub shader_model: Option<ShaderModel>,
    /// `dx.entryPoints`.
    pub entry_points: Vec<EntryPoint>,
    /// `dx.resources`.
    pub resources: Option<Resources>,
    /// `dx.typeAnnotations`: structures.
    pub struct_annotations: Vec<StructAnnotation>,
    /// `dx.typeAnnotations`: functions.
    pub function_annotations: Vec<FunctionAnnotation>,
    /// `dx.viewIdState`: the packed dependency words.
    pub view_id_state: Option<Vec<u64>>,
}

/// Reads metadata nodes of a module.
struct Reader<'m> {
    m: &'m Module,
}

type R<T> = Result<T, MetaError>;

/// Where in the metadata a value is, spelled only when an error is reported (a string,
/// or a closure that formats it).
trait PathLike: Copy {
    fn get(self) -> String;
}

impl PathLike for &str {
    fn get(self) -> String {
        self.to_owned()
    }
}

impl PathLike for &String {
    fn get(self) -> String {
        self.clone()
    }
}

impl<F: Fn() -> String + Copy> PathLike for F {
    fn get(self) -> String {
        self()
    }
}

fn err<T>(path: &str, what: impl Into<String>) -> R<T> {
    Err(MetaError {
        path: path.to_owned(),
        what: what.into(),
    })
}

impl<'m> Reader<'m> {
    fn md(&self, id: MdId) -> Option<&'m Metadata> {
        self.m.metadata.get(id.index())
    }

    fn node(&self, id: Option<MdId>, path: impl PathLike) -> R<&'m [Option<MdId>]> {
        match id.and_then(|i| self.md(i)) {
            Some(Metadata::Node { ops, .. }) => Ok(ops),
            _ => err(&path.get(), "not a metadata node"),
        }
    }

    fn opt_node(&self, id: Option<MdId>, path: impl PathLike) -> R<Option<&'m [Option<MdId>]>> {
        if id.is_none() {
            Ok(None)
        } else {
            self.node(id, path).map(Some)
        }
    }

    fn int(&self, id: Option<MdId>, path: impl PathLike) -> R<i64> {
        if let Some(Metadata::Value { value, .. }) = id.and_then(|i| self.md(i))
            && let Some(v) = self.m.values.get(value.index())
            && let ValueKind::Constant(c) = &v.kind
            && let Some(i) = c.as_int()
        {
            let width = self.m.ty(v.ty).and_then(Type::int_width).unwrap_or(64);
            // Integers are stored sign-extended; metadata integers are read unsigned
            // at their width (an i1 true reads 1).
            return Ok(if width < 64 {
                i & (1i64.wrapping_shl(width).wrapping_sub(1))
            } else {
                i
            });
        }
        err(&path.get(), "not an integer constant")
    }

    fn u32(&self, id: Option<MdId>, path: impl PathLike) -> R<u32> {
        let v = self.int(id, path)?;
        u32::try_from(v & 0xffff_ffff).or_else(|_| err(&path.get(), "out of range"))
    }

    /// An integer of at most 32 bits read signed at its width (an `i8 -1` reads −1).
    fn signed32(&self, id: Option<MdId>, path: impl PathLike) -> R<i32> {
        if let Some(Metadata::Value { value, .. }) = id.and_then(|i| self.md(i))
            && let Some(v) = self.m.values.get(value.index())
            && let ValueKind::Constant(c) = &v.kind
            && let Some(i) = c.as_int()
        {
            let width = self.m.ty(v.ty).and_then(Type::int_width).unwrap_or(64);
            let shift = 64u32.saturating_sub(width.min(64));
            // Keep the low `width` bits and extend their sign.
            let x = i.wrapping_shl(shift).wrapping_shr(shift);
            return i32::try_from(x).or_else(|_| err(&path.get(), "out of range"));
        }
        err(&path.get(), "not an integer constant")
    }

    fn string(&self, id: Option<MdId>, path: impl PathLike) -> R<String> {
        match id.and_then(|i| self.md(i)) {
            Some(Metadata::String(s)) => Ok(String::from_utf8_lossy(s).into_owned()),
            _ => err(&path.get(), "not a metadata string"),
        }
    }

    fn value(&self, id: Option<MdId>) -> Option<(ValueId, TypeId)> {
        match id.and_then(|i| self.md(i)) {
            Some(Metadata::Value { value, ty }) => Some((*value, *ty)),
            _ => None,
        }
    }

    fn pair(&self, name: &str) -> R<Option<(u32, u32)>> {
        let Some(n) = self.m.named(name) else {
            return Ok(None);
        };
        let node = self.node(n.ops.first().copied(), name)?;
        Ok(Some((
            self.u32(node.first().copied().flatten(), name)?,
            self.u32(node.get(1).copied().flatten(), name)?,
        )))
    }

    /// All integers under a node (one level of nested nodes flattened).
    fn ints(&self, id: Option<MdId>, path: impl PathLike) -> Vec<i64> {
        match id.and_then(|i| self.md(i)) {
            Some(Metadata::Node { ops, .. }) => ops
                .iter()
                .flat_map(|o| match o.and_then(|i| self.md(i)) {
                    Some(Metadata::Node { .. }) => self.ints(*o, path),
                    _ => self.int(*o, path).into_iter().collect(),
                })
                .collect(),
            _ => self.int(id, path).into_iter().collect(),
        }
    }

    fn three(&self, id: Option<MdId>, path: impl PathLike) -> R<[u32; 3]> {
        let n = self.node(id, path)?;
        if n.len() != 3 {
            return err(
                &path.get(),
                format!("{} values where 3 are required", n.len()),
            );
        }
        Ok([
            self.u32(n.first().copied().flatten(), path)?,
            self.u32(n.get(1).copied().flatten(), path)?,
            self.u32(n.get(2).copied().flatten(), path)?,
        ])
    }

    /// A signature element record: 11 operands.
    fn element(&self, id: Option<MdId>, path: impl PathLike) -> R<SignatureElement> {
        let path = &path.get();
        let n = self.node(id, path)?;
        if n.len() != 11 {
            return err(
                &path.get(),
                format!("{} operands where 11 are required", n.len()),
            );
        }
        let op = |i: usize| n.get(i).copied().flatten();
        let p = |i: usize| format!("{path} operand {i}");
        let semantic_indices = match self.opt_node(op(4), || p(4))? {
            Some(list) => list
                .iter()
                .map(|x| self.u32(*x, || p(4)))
                .collect::<R<Vec<_>>>()?,
            None => Vec::new(),
        };
        let mut e = SignatureElement {
            id: self.u32(op(0), || p(0))?,
            name: self.string(op(1), || p(1))?,
            component_type: self.u32(op(2), || p(2))?,
            semantic_kind: self.u32(op(3), || p(3))?,
            semantic_indices,
            interpolation: self.u32(op(5), || p(5))?,
            rows: self.u32(op(6), || p(6))?,
            cols: self.u32(op(7), || p(7))?,
            // The start row is an i32 and the start column an i8 (DXIL.rst "Signature
            // element record"), both −1 when the element is not allocated: read signed
            // at their width.
            start_row: self.signed32(op(8), || p(8))?,
            start_col: self.signed32(op(9), || p(9))?,
            stream: None,
            dynamic_index_mask: None,
            usage_mask: None,
            other_tags: Vec::new(),
        };
        if let Some(tags) = self.opt_node(op(10), || p(10))? {
            for (tag, val) in self.tag_pairs(tags, || p(10))? {
                match tag {
                    0 => e.stream = Some(self.u32(val, || p(10))?),
                    2 => e.dynamic_index_mask = Some(self.u32(val, || p(10))?),
                    3 => e.usage_mask = Some(self.u32(val, || p(10))?),
                    t => e.other_tags.push((t, self.int(val, || p(10)).unwrap_or(0))),
                }
            }
        }
        Ok(e)
    }

    fn tag_pairs(&self, list: &[Option<MdId>], path: impl PathLike) -> R<Vec<(u32, Option<MdId>)>> {
        if list.len() % 2 != 0 {
            return err(&path.get(), "tag list of odd length");
        }
        list.chunks(2)
            .map(|c| {
                Ok((
                    self.u32(c.first().copied().flatten(), path)?,
                    c.get(1).copied().flatten(),
                ))
            })
            .collect()
    }

    fn elements(&self, id: Option<MdId>, path: impl PathLike) -> R<Vec<SignatureElement>> {
        let path = &path.get();
        match self.opt_node(id, path)? {
            None => Ok(Vec::new()),
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, e)| self.element(*e, || format!("{path}[{i}]")))
                .collect(),
        }
    }

    fn resource(&self, class: ResourceClass, id: Option<MdId>, path: impl PathLike) -> R<Resource> {
        let path = &path.get();
        let n = self.node(id, path)?;
        let want = match class {
            ResourceClass::Srv => 9,
            ResourceClass::Uav => 11,
            ResourceClass::Cbv | ResourceClass::Sampler => 8,
        };
        if n.len() < want.min(8) {
            return err(
                path,
                format!("{} operands where {want} are required", n.len()),
            );
        }
        let op = |i: usize| n.get(i).copied().flatten();
        let p = |i: usize| format!("{path} operand {i}");
        let sym = self.value(op(1));
        let mut r = Resource {
            class,
            id: self.u32(op(0), || p(0))?,
            symbol: sym.map(|s| s.0),
            symbol_ty: sym.map(|s| s.1),
            name: self.string(op(2), || p(2))?,
            space: self.u32(op(3), || p(3))?,
            lower_bound: self.u32(op(4), || p(4))?,
            range_size: self.u32(op(5), || p(5))?,
            shape: None,
            sample_count: None,
            globally_coherent: false,
            has_counter: false,
            rasterizer_ordered: false,
            size: None,
            sampler_kind: None,
            element_type: None,
            struct_stride: None,
            atomic64: false,
            other_tags: Vec::new(),
        };
        let tags_at = match class {
            ResourceClass::Srv => {
                r.shape = Some(self.u32(op(6), || p(6))?);
                r.sample_count = Some(self.u32(op(7), || p(7))?);
                8
            }
            ResourceClass::Uav => {
                r.shape = Some(self.u32(op(6), || p(6))?);
                r.globally_coherent = self.int(op(7), || p(7))? != 0;
                r.has_counter = self.int(op(8), || p(8))? != 0;
                r.rasterizer_ordered = self.int(op(9), || p(9))? != 0;
                10
            }
            ResourceClass::Cbv => {
                r.size = Some(self.u32(op(6), || p(6))?);
                7
            }
            ResourceClass::Sampler => {
                r.sampler_kind = Some(self.u32(op(6), || p(6))?);
                7
            }
        };
        if let Some(tags) = self.opt_node(op(tags_at), || p(tags_at))? {
            for (tag, val) in self.tag_pairs(tags, || p(tags_at))? {
                match tag {
                    0 => r.element_type = Some(self.u32(val, || p(tags_at))?),
                    1 => r.struct_stride = Some(self.u32(val, || p(tags_at))?),
                    3 => r.atomic64 = self.int(val, || p(tags_at))? != 0,
                    t => r
                        .other_tags
                        .push((t, self.int(val, || p(tags_at)).unwrap_or(0))),
                }
            }
        }
        Ok(r)
    }

    fn resources(&self, id: Option<MdId>, path: impl PathLike) -> R<Option<Resources>> {
        let path = &path.get();
        let Some(lists) = self.opt_node(id, path)? else {
            return Ok(None);
        };
        if lists.len() != 4 {
            return err(
                path,
                format!("{} resource lists where 4 are required", lists.len()),
            );
        }
        let mut out = Resources::default();
        let classes = [
            ResourceClass::Srv,
            ResourceClass::Uav,
            ResourceClass::Cbv,
            ResourceClass::Sampler,
        ];
        for (k, (list, class)) in lists.iter().zip(classes).enumerate() {
            let Some(records) = self.opt_node(*list, || format!("{path}[{k}]"))? else {
                continue;
            };
            let v = records
                .iter()
                .enumerate()
                .map(|(i, r)| self.resource(class, *r, || format!("{path}[{k}][{i}]")))
                .collect::<R<Vec<_>>>()?;
            match class {
                ResourceClass::Srv => out.srvs = v,
                ResourceClass::Uav => out.uavs = v,
                ResourceClass::Cbv => out.cbvs = v,
                ResourceClass::Sampler => out.samplers = v,
            }
        }
        Ok(Some(out))
    }

    fn property(&self, tag: u32, val: Option<MdId>, path: impl PathLike) -> R<Property> {
        let path = &path.get();
        Ok(match tag {
            0 => Property::Flags(self.int(val, path)? as u64),
            1 => Property::Geometry(self.ints(val, path)),
            2 => Property::Domain(self.ints(val, path)),
            3 => {
                let n = self.node(val, path)?;
                Property::Hull {
                    patch_constant_function: self.value(n.first().copied().flatten()).map(|v| v.0),
                    values: n.iter().skip(1).map(|o| self.float_or_int(*o)).collect(),
                }
            }
            4 => Property::NumThreads(self.three(val, path)?),
            5 => Property::AutoBindingSpace(match self.opt_node(val, path) {
                Ok(Some(n)) => self.u32(n.first().copied().flatten(), path)?,
                _ => self.u32(val, path)?,
            }),
            6 => Property::RayPayloadSize(self.u32(val, path)?),
            7 => Property::RayAttributeSize(self.u32(val, path)?),
            8 => Property::ShaderKind(self.u32(val, path)?),
            9 | 10 => {
                let n = self.node(val, path)?;
                let num_threads = self.three(n.first().copied().flatten(), path)?;
                let values = n.iter().skip(1).flat_map(|o| self.ints(*o, path)).collect();
                if tag == 9 {
                    Property::Mesh {
                        num_threads,
                        values,
                    }
                } else {
                    Property::Amplification {
                        num_threads,
                        values,
                    }
                }
            }
            11 => Property::WaveSize(self.ints(val, path)),
            t => Property::Other {
                tag: t,
                values: self.ints(val, path),
            },
        })
    }

    /// An integer, or a float's bits.
    fn float_or_int(&self, id: Option<MdId>) -> i64 {
        if let Some(Metadata::Value { value, .. }) = id.and_then(|i| self.md(i))
            && let Some(v) = self.m.values.get(value.index())
            && let ValueKind::Constant(c) = &v.kind
        {
            return match c {
                Constant::Float(b) => *b as i64,
                c => c.as_int().unwrap_or(0),
            };
        }
        0
    }

    fn entry(&self, id: Option<MdId>, path: impl PathLike) -> R<EntryPoint> {
        let path = &path.get();
        let n = self.node(id, path)?;
        if n.len() != 5 {
            return err(
                &path.get(),
                format!("{} operands where 5 are required", n.len()),
            );
        }
        let op = |i: usize| n.get(i).copied().flatten();
        let function = self.value(op(0)).map(|v| v.0);
        let func = function.and_then(|f| self.m.function_of_value(f));
        let signatures = match self.opt_node(op(2), || format!("{path}.signatures"))? {
            None => None,
            Some(s) => {
                if s.len() != 3 {
                    return err(&format!("{path}.signatures"), "not three signature lists");
                }
                Some(Signatures {
                    inputs: self.elements(s.first().copied().flatten(), || {
                        format!("{path}.signatures.inputs")
                    })?,
                    outputs: self.elements(s.get(1).copied().flatten(), || {
                        format!("{path}.signatures.outputs")
                    })?,
                    patch_constants: self.elements(s.get(2).copied().flatten(), || {
                        format!("{path}.signatures.patch_constants")
                    })?,
                })
            }
        };
        let mut properties = Vec::new();
        if let Some(props) = self.opt_node(op(4), || format!("{path}.properties"))? {
            for (tag, val) in self.tag_pairs(props, || format!("{path}.properties"))? {
                properties.push((
                    tag,
                    self.property(tag, val, || format!("{path}.properties tag {tag}"))?,
                ));
            }
        }
        Ok(EntryPoint {
            function,
            function_name: func.map(|f| f.name.clone()),
            name: self.string(op(1), || format!("{path}.name"))?,
            signatures,
            resources: self.resources(op(3), || format!("{path}.resources"))?,
            properties,
            fp32_denorm_mode: func
                .and_then(|f| self.m.function_string_attribute(f, "fp32-denorm-mode"))
                .flatten()
                .map(str::to_owned),
        })
    }

    fn field(&self, id: Option<MdId>, path: impl PathLike) -> R<FieldAnnotation> {
        let path = &path.get();
        let n = self.node(id, path)?;
        let mut f = FieldAnnotation::default();
        for (tag, val) in self.tag_pairs(n, path)? {
            match tag {
                0 => f.snorm = self.int(val, path)? != 0,
                1 => f.unorm = self.int(val, path)? != 0,
                2 => {
                    let m = self.node(val, path)?;
                    let g = |i: usize| self.u32(m.get(i).copied().flatten(), path);
                    f.matrix = Some((g(0)?, g(1)?, g(2)?));
                }
                3 => f.offset = Some(self.u32(val, path)?),
                4 => f.semantic = Some(self.string(val, path)?),
                5 => f.interpolation = Some(self.u32(val, path)?),
                6 => f.name = Some(self.string(val, path)?),
                7 => f.component_type = Some(self.u32(val, path)?),
                8 => f.precise = self.int(val, path)? != 0,
                t => f.other_tags.push((t, self.int(val, path).unwrap_or(0))),
            }
        }
        Ok(f)
    }

    fn annotations(&self, out: &mut DxilMetadata) -> R<()> {
        let Some(named) = self.m.named("dx.typeAnnotations") else {
            return Ok(());
        };
        for (k, id) in named.ops.iter().enumerate() {
            let path = format!("dx.typeAnnotations[{k}]");
            let n = self.node(Some(*id), &path)?;
            let kind = self.u32(n.first().copied().flatten(), &path)?;
            let rest = n.get(1..).unwrap_or_default();
            if rest.len() % 2 != 0 {
                return err(&path, "annotation list of odd length");
            }
            for pair in rest.chunks(2) {
                let (target, body) = (
                    pair.first().copied().flatten(),
                    pair.get(1).copied().flatten(),
                );
                let v = self.value(target);
                match kind {
                    0 => {
                        let b = self.node(body, &path)?;
                        let size = self.u32(b.first().copied().flatten(), &path)?;
                        // A node past the structure's fields is its template-argument
                        // annotation (`!{i32 0, !{…}}`, DxilMetadataHelper
                        // `LoadDxilStructAnnotation`), not a field.
                        let nfields = v
                            .and_then(|v| self.m.ty(v.1))
                            .and_then(|t| match t {
                                Type::Struct { elements, .. } => Some(elements.len()),
                                _ => None,
                            })
                            .unwrap_or(usize::MAX);
                        let fields = b
                            .iter()
                            .skip(1)
                            .take(nfields)
                            .map(|f| self.field(*f, &path))
                            .collect::<R<Vec<_>>>()?;
                        out.struct_annotations.push(StructAnnotation {
                            ty: v.map(|v| v.1),
                            size,
                            fields,
                        });
                    }
                    1 => {
                        let b = self.node(body, &path)?;
                        let mut params = Vec::new();
                        for p in b {
                            let pn = self.node(*p, &path)?;
                            let qualifier = self.u32(pn.first().copied().flatten(), &path)?;
                            let field = self.field(pn.get(1).copied().flatten(), &path)?;
                            let semantic_indices =
                                match self.opt_node(pn.get(2).copied().flatten(), &path)? {
                                    Some(l) => l
                                        .iter()
                                        .map(|x| self.u32(*x, &path))
                                        .collect::<R<Vec<_>>>()?,
                                    None => Vec::new(),
                                };
                            params.push(ParamAnnotation {
                                qualifier,
                                field,
                                semantic_indices,
                            });
                        }
                        out.function_annotations.push(FunctionAnnotation {
                            function: v.map(|v| v.0),
                            params,
                        });
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

impl DxilMetadata {
    /// Reads DXIL's named metadata from a module. Absent records are `None`/empty;
    /// malformed ones are errors naming the record and operand.
    pub fn read(m: &Module) -> Result<DxilMetadata, MetaError> {
        let r = Reader { m };
        let mut out = DxilMetadata {
            dxil_version: r.pair("dx.version")?,
            validator_version: r.pair("dx.valver")?,
            ..DxilMetadata::default()
        };
        if let Some(n) = m.named("dx.shaderModel") {
            let node = r.node(n.ops.first().copied(), "dx.shaderModel")?;
            let op = |i: usize| node.get(i).copied().flatten();
            out.shader_model = Some(ShaderModel {
                kind: r.string(op(0), "dx.shaderModel")?,
                major: r.u32(op(1), "dx.shaderModel")?,
                minor: r.u32(op(2), "dx.shaderModel")?,
            });
        }
        if let Some(n) = m.named("dx.resources") {
            out.resources = r.resources(n.ops.first().copied(), "dx.resources")?;
        }
        if let Some(n) = m.named("dx.entryPoints") {
            for (i, e) in n.ops.iter().enumerate() {
                out.entry_points
                    .push(r.entry(Some(*e), || format!("dx.entryPoints[{i}]"))?);
            }
        }
        r.annotations(&mut out)?;
        if let Some(n) = m.named("dx.viewIdState") {
            let node = r.node(n.ops.first().copied(), "dx.viewIdState")?;
            if let Some((v, _)) = r.value(node.first().copied().flatten())
                && let Some(val) = m.values.get(v.index())
            {
                out.view_id_state = Some(match &val.kind {
                    ValueKind::Constant(Constant::Data(d)) => d.clone(),
                    ValueKind::Constant(Constant::Aggregate(a)) => a
                        .iter()
                        .map(|x| {
                            m.values
                                .get(x.index())
                                .and_then(|v| {
                                    if let ValueKind::Constant(c) = &v.kind {
                                        c.as_int()
                                    } else {
                                        None
                                    }
                                })
                                .unwrap_or(0) as u64
                        })
                        .collect(),
                    _ => Vec::new(),
                });
            }
        }
        Ok(out)
    }
}
