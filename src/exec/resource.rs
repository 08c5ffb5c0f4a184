//! Resource access: the per-dispatch descriptor table, handles, buffer and texture loads,
//! stores and atomics, counters, constant buffers, dimensions and sample positions.
//!
//! # Handles
//!
//! A handle is a lane value: an index into the dispatch's [`DescriptorTable`] (the
//! declared ranges' descriptors, then the resource heap, then the sampler heap, after four
//! null descriptors at indices 0–3). `handle` and `heap_handle` compute it per lane; an
//! index past a range or heap gives a null descriptor. Handlers look a handle up once when
//! it is the same in every active lane and per lane otherwise.
//!
//! # Rules
//!
//! Every access is robust (D3D11.3's out-of-bounds rules for resource access): reads outside a view
//! give 0 in every component, writes there are dropped, null descriptors read 0 and drop
//! writes. A descriptor of the wrong kind for an instruction (only possible through the
//! descriptor heaps; declared ranges are checked before the run) behaves as null. Raw
//! buffer addresses are used as given, at byte granularity (D3D leaves unaligned
//! addresses undefined). Helper lanes never write and never run atomics or counters.
//! Atomics and counter updates of a wave run in lane order.

use crate::ir::{AtomicOp, Reg, ResourceClass, ResourceKind, ResourceRange, Shader, Width};
use crate::resources::texture::standard_sample_position;
use crate::resources::{BufferKind, Descriptor, RmwOp, TextureDim, ViewClass};

use super::Ctx;
use super::budget::ExecError;
use super::wave::{Exec, Wave, lanes};

/// Table index of the null descriptor of each class.
const NULL_BUFFER: u32 = 0;
const NULL_TEXTURE: u32 = 1;
const NULL_CB: u32 = 2;
const NULL_SAMPLER: u32 = 3;

/// Every descriptor a dispatch can reach, and where each declared range and heap starts.
#[derive(Debug, Clone)]
pub struct DescriptorTable {
    descs: Vec<Descriptor>,
    /// `(first index, count of stored elements, null index)` of each declared range;
    /// elements past the stored ones are null.
    ranges: Vec<(u32, u32, u32)>,
    resource_heap: (u32, u32),
    sampler_heap: (u32, u32),
    /// Handles of unbound range elements (`Descriptor::Unbound`) and their names
    /// (`t3, space1`), sorted by handle.
    unbound: Vec<(u32, String)>,
}

fn null_of(class: ViewClass) -> u32 {
    match class {
        ViewClass::Buffer => NULL_BUFFER,
        ViewClass::Texture => NULL_TEXTURE,
        ViewClass::ConstantBuffer => NULL_CB,
        ViewClass::Sampler => NULL_SAMPLER,
        // A null acceleration structure behaves as any null descriptor: a ray query
        // through it sees no structure and misses.
        ViewClass::AccelerationStructure => NULL_BUFFER,
        // A null feedback map: writes to it have no effect ("Null feedback map binding
        // is permitted").
        ViewClass::Feedback => NULL_TEXTURE,
    }
}

/// The class a declared range's descriptors must have.
fn range_class(r: &ResourceRange) -> ViewClass {
    match r.kind {
        ResourceKind::ConstantBuffer { .. } => ViewClass::ConstantBuffer,
        ResourceKind::Sampler { .. } => ViewClass::Sampler,
        ResourceKind::AccelerationStructure => ViewClass::AccelerationStructure,
        ResourceKind::FeedbackTexture2D { .. } | ResourceKind::FeedbackTexture2DArray { .. } => {
            ViewClass::Feedback
        }
        k if k.is_texture() => ViewClass::Texture,
        _ => match r.class {
            ResourceClass::Cbv => ViewClass::ConstantBuffer,
            ResourceClass::Sampler => ViewClass::Sampler,
            _ => ViewClass::Buffer,
        },
    }
}

fn texture_dim(k: ResourceKind) -> Option<TextureDim> {
    Some(match k {
        ResourceKind::Texture1D => TextureDim::Tex1D,
        ResourceKind::Texture1DArray => TextureDim::Tex1DArray,
        ResourceKind::Texture2D => TextureDim::Tex2D,
        ResourceKind::Texture2DArray => TextureDim::Tex2DArray,
        ResourceKind::Texture2DMS => TextureDim::Tex2DMS,
        ResourceKind::Texture2DMSArray => TextureDim::Tex2DMSArray,
        ResourceKind::Texture3D => TextureDim::Tex3D,
        ResourceKind::TextureCube => TextureDim::Cube,
        ResourceKind::TextureCubeArray => TextureDim::CubeArray,
        _ => return None,
    })
}

/// Whether descriptor `d` may be bound to range `r`; the reason when not.
fn check_fit(r: &ResourceRange, d: &Descriptor) -> Result<(), String> {
    let want = range_class(r);
    if d.class() != want {
        return Err(format!(
            "declared {} but bound to a {} descriptor",
            r.kind.job_name(),
            d.class().name()
        ));
    }
    match (r.kind, d) {
        (_, Descriptor::Null(_) | Descriptor::Unbound(_)) => Ok(()),
        (ResourceKind::RawBuffer, Descriptor::Buffer { view, .. }) => match view.kind {
            BufferKind::Raw => Ok(()),
            _ => Err("declared raw_buffer but bound to a structured or typed view".into()),
        },
        (ResourceKind::StructuredBuffer { .. }, Descriptor::Buffer { view, .. }) => match view.kind
        {
            BufferKind::Structured { stride } if stride > 0 => Ok(()),
            _ => Err("declared structured_buffer but bound to a view without a stride".into()),
        },
        (ResourceKind::TypedBuffer, Descriptor::Buffer { view, .. }) => match view.kind {
            BufferKind::Typed { format } if format.is_supported() => Ok(()),
            BufferKind::Typed { format } => {
                Err(format!("format {format} cannot be read by a typed buffer"))
            }
            _ => Err("declared typed_buffer but bound to a raw or structured view".into()),
        },
        (k, Descriptor::Texture(view)) => {
            view.validate().map_err(|e| e.to_string())?;
            match texture_dim(k) {
                Some(dim) if dim == view.dim => Ok(()),
                Some(dim) => Err(format!(
                    "declared {} but bound to a {} view",
                    dim.name(),
                    view.dim.name()
                )),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// The binding name of element `k` of a range (`u3`, `t0, space2`).
fn element_name(r: &ResourceRange, k: u32) -> String {
    let mut s = format!("{}{}", r.class.letter(), r.lower.saturating_add(k));
    if r.space != 0 {
        s.push_str(&format!(", space{}", r.space));
    }
    s
}

impl DescriptorTable {
    /// Builds the table for `shader` from one list of descriptors per declared range
    /// (element `k` binds register `lower + k`) and the two heaps. Checks every declared
    /// binding: a range with no descriptor at all, or a descriptor of the wrong kind, is an
    /// [`ExecError::Binding`]. A bounded range given fewer descriptors than it declares
    /// has its missing elements null.
    pub fn new(
        shader: &Shader,
        ranges: &[Vec<Descriptor>],
        resource_heap: &[Descriptor],
        sampler_heap: &[Descriptor],
    ) -> Result<DescriptorTable, ExecError> {
        let mut descs = vec![
            Descriptor::Null(ViewClass::Buffer),
            Descriptor::Null(ViewClass::Texture),
            Descriptor::Null(ViewClass::ConstantBuffer),
            Descriptor::Null(ViewClass::Sampler),
        ];
        let mut table_ranges = Vec::with_capacity(shader.resources.len());
        let mut unbound = Vec::new();
        for (i, r) in shader.resources.iter().enumerate() {
            let given = ranges.get(i).map(Vec::as_slice).unwrap_or(&[]);
            if given.is_empty() {
                return Err(ExecError::Binding {
                    binding: r.binding_name(),
                    message: format!("declared {} but not bound", r.kind.job_name()),
                });
            }
            for (k, d) in given.iter().enumerate() {
                check_fit(r, d).map_err(|message| ExecError::Binding {
                    binding: element_name(r, k as u32),
                    message,
                })?;
            }
            // Only the given elements are stored: a bounded range's missing elements
            // (up to its declared count, which the program controls — a billion is
            // legal text) resolve to the class's null descriptor in `handle`, as a
            // stored null would.
            let count = if r.count == ResourceRange::UNBOUNDED {
                given.len()
            } else {
                given.len().min(r.count as usize)
            };
            let base = descs.len() as u32;
            let null = null_of(range_class(r));
            for (k, d) in given[..count].iter().enumerate() {
                let d = d.clone();
                if let Descriptor::Unbound(_) = d {
                    unbound.push((descs.len() as u32, element_name(r, k as u32)));
                }
                descs.push(d);
            }
            table_ranges.push((base, count as u32, null));
        }
        let rh = (descs.len() as u32, resource_heap.len() as u32);
        for (k, d) in resource_heap.iter().enumerate() {
            if let Descriptor::Texture(v) = d {
                v.validate().map_err(|e| ExecError::Binding {
                    binding: format!("resource heap [{k}]"),
                    message: e.to_string(),
                })?;
            }
        }
        descs.extend(resource_heap.iter().cloned());
        let sh = (descs.len() as u32, sampler_heap.len() as u32);
        descs.extend(sampler_heap.iter().cloned());
        Ok(DescriptorTable {
            descs,
            ranges: table_ranges,
            resource_heap: rh,
            sampler_heap: sh,
            unbound,
        })
    }

    /// Whether any declared range has unbound elements (then accesses are checked).
    #[inline(always)]
    pub fn has_unbound(&self) -> bool {
        !self.unbound.is_empty()
    }

    /// The name of the unbound range element handle `h` selects, if it selects one.
    pub fn unbound_name(&self, h: u32) -> Option<&str> {
        self.unbound
            .binary_search_by_key(&h, |(k, _)| *k)
            .ok()
            .map(|i| self.unbound[i].1.as_str())
    }

    /// The descriptor of handle `h` (null past the table).
    #[inline(always)]
    pub fn get(&self, h: u32) -> &Descriptor {
        self.descs.get(h as usize).unwrap_or(&self.descs[0])
    }

    /// The handle of element `index` of declared range `range` (null past it).
    #[inline(always)]
    pub fn handle(&self, range: usize, index: u32) -> u32 {
        match self.ranges.get(range) {
            Some(&(base, count, null)) => {
                if index < count {
                    base + index
                } else {
                    null
                }
            }
            None => NULL_BUFFER,
        }
    }

    /// The handle of heap entry `index` (resource heap, or sampler heap when `sampler`).
    #[inline(always)]
    pub fn heap_handle(&self, sampler: bool, index: u32) -> u32 {
        let (base, count) = if sampler {
            self.sampler_heap
        } else {
            self.resource_heap
        };
        if index < count {
            base + index
        } else if sampler {
            NULL_SAMPLER
        } else {
            NULL_BUFFER
        }
    }

    /// Which binding handle `h` names: a declared range's element or a resource heap
    /// entry; `None` for null descriptors and samplers.
    pub fn locate(&self, h: u32) -> Option<super::observe::Binding> {
        use super::observe::Binding;
        for (k, &(base, count, _)) in self.ranges.iter().enumerate() {
            if h >= base && h - base < count {
                return Some(Binding::Range {
                    range: k as u32,
                    element: h - base,
                });
            }
        }
        let (base, count) = self.resource_heap;
        (h >= base && h - base < count).then(|| Binding::ResourceHeap(h - base))
    }

    /// The memory behind a binding (buffer or texture storage), if it has any.
    pub fn memory_of(&self, b: super::observe::Binding) -> Option<&crate::resources::Memory> {
        use super::observe::Binding;
        let h = match b {
            Binding::Range { range, element } => {
                let &(base, count, _) = self.ranges.get(range as usize)?;
                if element >= count {
                    return None;
                }
                base + element
            }
            Binding::ResourceHeap(i) => {
                let (base, count) = self.resource_heap;
                if i >= count {
                    return None;
                }
                base + i
            }
        };
        match self.descs.get(h as usize)? {
            Descriptor::Buffer { view, .. } => Some(&view.memory),
            Descriptor::Texture(view) => Some(view.texture.memory()),
            Descriptor::ConstantBuffer { memory, .. } => Some(memory),
            _ => None,
        }
    }

    /// Number of descriptors (nulls, ranges and heaps).
    pub fn len(&self) -> usize {
        self.descs.len()
    }

    /// Whether the table is empty (never: it always holds its null descriptors).
    pub fn is_empty(&self) -> bool {
        self.descs.is_empty()
    }
}

/// The IR's atomic operation as a memory operation.
pub fn rmw(op: AtomicOp) -> RmwOp {
    match op {
        AtomicOp::Add => RmwOp::Add,
        AtomicOp::Sub => RmwOp::Sub,
        AtomicOp::And => RmwOp::And,
        AtomicOp::Or => RmwOp::Or,
        AtomicOp::Xor => RmwOp::Xor,
        AtomicOp::IMin => RmwOp::IMin,
        AtomicOp::IMax => RmwOp::IMax,
        AtomicOp::UMin => RmwOp::UMin,
        AtomicOp::UMax => RmwOp::UMax,
        AtomicOp::Exchange => RmwOp::Exchange,
    }
}

/// Bytes per component of a width.
pub fn width_bytes(w: Width) -> u32 {
    match w {
        Width::B16 => 2,
        Width::B32 => 4,
        Width::B64 => 8,
    }
}

/// Register values of `r`, or zeros for `_`.
#[inline(always)]
pub fn reg_or_zero<const W: usize>(regs: &[[u32; W]], r: Reg) -> [u32; W] {
    if r.is_none() { [0; W] } else { regs[r.index()] }
}

/// The descriptor of each lane's handle: one lookup when the handle is uniform.
struct Lookup<'t, const W: usize> {
    table: &'t DescriptorTable,
    handles: [u32; W],
    uniform: Option<&'t Descriptor>,
}

impl<'t, const W: usize> Lookup<'t, W> {
    #[inline(always)]
    fn new(table: &'t DescriptorTable, regs: &[[u32; W]], ex: &Exec<W>, handle: Reg) -> Self {
        let handles = regs[handle.index()];
        let uniform = ex.first().and_then(|f| {
            let h = handles[f];
            lanes(ex.mask)
                .all(|l| handles[l] == h)
                .then(|| table.get(h))
        });
        Lookup {
            table,
            handles,
            uniform,
        }
    }

    #[inline(always)]
    fn at(&self, l: usize) -> &'t Descriptor {
        self.uniform
            .unwrap_or_else(|| self.table.get(self.handles[l]))
    }
}

/// Stores up to four components (pairs for 64-bit widths) of per-lane results.
fn store_components<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    dst: &[Reg; 4],
    wide: bool,
    out: &[[u64; W]; 4],
) {
    for (i, d) in dst.iter().enumerate() {
        if d.is_none() {
            continue;
        }
        if wide {
            ex.store64(regs, *d, &out[i]);
        } else {
            let mut r = [0u32; W];
            for l in 0..W {
                r[l] = out[i][l] as u32;
            }
            ex.store(regs, *d, &r);
        }
    }
}

/// Reads component `i`'s source value (64-bit for `b64`).
#[inline(always)]
fn src_value<const W: usize>(regs: &[[u32; W]], r: Reg, wide: bool, l: usize) -> u64 {
    if r.is_none() {
        return 0;
    }
    let lo = u64::from(regs[r.index()][l]);
    if wide {
        lo | (u64::from(regs[r.hi().index()][l]) << 32)
    } else {
        lo
    }
}

/// `handle`: per-lane handles of a declared range's elements.
pub fn handle<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, dst: Reg, range: usize, index: Reg) {
    let zero = [0u32; W];
    // Read in place (`_` reads 0), not copied.
    let idx = if index.is_none() {
        &zero
    } else {
        &w.regs[index.index()]
    };
    // The index is almost always the same in every lane (a constant): one lookup then.
    // Whether it is, as one OR over all lanes (which the compiler does several at once).
    let mut differ = 0u32;
    for &i in idx {
        differ |= i ^ idx[0];
    }
    let r = if differ == 0 {
        [cx.table.handle(range, idx[0]); W]
    } else {
        let mut r = [0u32; W];
        for l in 0..W {
            r[l] = cx.table.handle(range, idx[l]);
        }
        r
    };
    w.ex.store(&mut w.regs, dst, &r);
}

/// `heap_handle`: per-lane handles of descriptor heap entries.
pub fn heap_handle<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: Reg,
    sampler: bool,
    index: Reg,
) {
    let idx = reg_or_zero(&w.regs, index);
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = cx.table.heap_handle(sampler, idx[l]);
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// `raw_load`: byte-address loads of each component in `mask` at `addr + i × size`.
pub fn raw_load<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    handle: Reg,
    addr: Reg,
) {
    let n = width_bytes(width);
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let a = reg_or_zero(&w.regs, addr);
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        if let Descriptor::Buffer { view, .. } = look.at(l) {
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    out[i as usize][l] = view.read(u64::from(a[l]) + u64::from(i * n), n);
                }
            }
        }
    }
    store_components(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `raw_store`: byte-address stores of each component in `mask`.
pub fn raw_store<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    width: Width,
    mask: u8,
    handle: Reg,
    addr: Reg,
    src: &[Reg; 4],
) {
    let n = width_bytes(width);
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let a = reg_or_zero(&w.regs, addr);
    for l in lanes(w.ex.mask & !w.helper) {
        if let Descriptor::Buffer { view, .. } = look.at(l) {
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    let v = src_value(&w.regs, src[i as usize], width == Width::B64, l);
                    view.write(u64::from(a[l]) + u64::from(i * n), n, v);
                }
            }
        }
    }
}

/// `struct_load`: components at byte `offset + i × size` of structured element `index`.
#[allow(clippy::too_many_arguments)]
pub fn struct_load<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    handle: Reg,
    index: Reg,
    offset: Reg,
) {
    let n = width_bytes(width);
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let idx = reg_or_zero(&w.regs, index);
    let off = reg_or_zero(&w.regs, offset);
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        if let Descriptor::Buffer { view, .. } = look.at(l) {
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    let o = u64::from(off[l]) + u64::from(i * n);
                    if let Some(vo) = view.struct_offset(u64::from(idx[l]), o, u64::from(n)) {
                        out[i as usize][l] = view.read(vo, n);
                    }
                }
            }
        }
    }
    store_components(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `struct_store`: the components in `mask` into structured element `index`.
#[allow(clippy::too_many_arguments)]
pub fn struct_store<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    width: Width,
    mask: u8,
    handle: Reg,
    index: Reg,
    offset: Reg,
    src: &[Reg; 4],
) {
    let n = width_bytes(width);
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let idx = reg_or_zero(&w.regs, index);
    let off = reg_or_zero(&w.regs, offset);
    // One structured view for the whole wave and 32-bit words: its bounds once.
    if let (Width::B32, Some(Descriptor::Buffer { view, .. })) = (width, look.uniform)
        && let Some(words) = view.structured_words()
    {
        // The components written: byte offset and source register (`_` stores 0).
        let mut comps = [(0u64, None); 4];
        let mut n = 0;
        for (i, r) in src.iter().enumerate() {
            if mask & (1 << i) != 0 {
                comps[n] = (4 * i as u64, (!r.is_none()).then(|| r.index()));
                n += 1;
            }
        }
        // Lane after lane, each lane's components in order, as the general path below:
        // where lanes' words overlap, the last one written stays.
        for l in lanes(w.ex.mask & !w.helper) {
            for &(add, r) in &comps[..n] {
                let v = r.map_or(0, |r| w.regs[r][l]);
                words.store(idx[l], u64::from(off[l]) + add, v);
            }
        }
        return;
    }
    for l in lanes(w.ex.mask & !w.helper) {
        if let Descriptor::Buffer { view, .. } = look.at(l) {
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    let o = u64::from(off[l]) + u64::from(i * n);
                    if let Some(vo) = view.struct_offset(u64::from(idx[l]), o, u64::from(n)) {
                        let v = src_value(&w.regs, src[i as usize], width == Width::B64, l);
                        view.write(vo, n, v);
                    }
                }
            }
        }
    }
}

/// Integer texel coordinates of a lane (`_` reads 0), with immediate offsets added to the
/// texel axes of the view's shape.
pub(crate) fn texel_coord<const W: usize>(
    c: &[[u32; W]; 3],
    offset: [i8; 3],
    dim: TextureDim,
    l: usize,
) -> [u32; 3] {
    let axes = match dim {
        TextureDim::Cube | TextureDim::CubeArray => 2,
        d => d.coord_count(),
    };
    let mut out = [c[0][l], c[1][l], c[2][l]];
    for k in 0..axes {
        out[k] = out[k].wrapping_add(offset[k] as i32 as u32);
    }
    out
}

/// `typed_load`: a typed buffer element or a texel, converted by the view's format.
#[allow(clippy::too_many_arguments)]
pub fn typed_load<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: &[Reg; 4],
    handle: Reg,
    coord: &[Reg; 3],
    mip: Reg,
    sample: Reg,
    offset: [i8; 3],
    status: Reg,
) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let c = [
        reg_or_zero(&w.regs, coord[0]),
        reg_or_zero(&w.regs, coord[1]),
        reg_or_zero(&w.regs, coord[2]),
    ];
    let m = reg_or_zero(&w.regs, mip);
    let s = reg_or_zero(&w.regs, sample);
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        let v = match look.at(l) {
            Descriptor::Buffer { view, .. } => view.typed_load(u64::from(c[0][l])),
            Descriptor::Texture(view) => {
                view.load(texel_coord(&c, offset, view.dim, l), m[l], s[l])
            }
            _ => None,
        };
        if let Some(v) = v {
            for i in 0..4 {
                out[i][l] = u64::from(v[i]);
            }
        }
    }
    store_components(&mut w.regs, &w.ex, dst, false, &out);
    if !status.is_none() {
        // Resources here are never tiled: every access is "fully mapped".
        w.ex.store(&mut w.regs, status, &[1; W]);
    }
}

/// `typed_store`: the components in `mask`, converted to the view's format.
pub fn typed_store<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    handle: Reg,
    coord: &[Reg; 3],
    sample: Reg,
    src: &[Reg; 4],
    mask: u8,
) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let c = [
        reg_or_zero(&w.regs, coord[0]),
        reg_or_zero(&w.regs, coord[1]),
        reg_or_zero(&w.regs, coord[2]),
    ];
    let s = reg_or_zero(&w.regs, sample);
    let v = [
        reg_or_zero(&w.regs, src[0]),
        reg_or_zero(&w.regs, src[1]),
        reg_or_zero(&w.regs, src[2]),
        reg_or_zero(&w.regs, src[3]),
    ];
    for l in lanes(w.ex.mask & !w.helper) {
        let value = [v[0][l], v[1][l], v[2][l], v[3][l]];
        match look.at(l) {
            Descriptor::Buffer { view, .. } => {
                view.typed_store(u64::from(c[0][l]), value, mask);
            }
            Descriptor::Texture(view) => {
                view.store(texel_coord(&c, [0; 3], view.dim, l), s[l], value, mask);
            }
            _ => {}
        }
    }
}

/// The view-relative byte offset an atomic addresses in a buffer view (raw: `coord[0]`
/// bytes; structured: element `coord[0]`, byte `coord[1]`; typed: element `coord[0]`).
pub(crate) fn atomic_offset(
    view: &crate::resources::BufferView,
    c: [u32; 3],
    n: u64,
) -> Option<u64> {
    match view.kind {
        BufferKind::Raw => Some(u64::from(c[0])),
        BufferKind::Structured { .. } => view.struct_offset(u64::from(c[0]), u64::from(c[1]), n),
        BufferKind::Typed { format } => {
            (u64::from(format.bytes_per_texel()) == n).then(|| u64::from(c[0]) * n)
        }
    }
}

/// What an atomic does: a read-modify-write or a compare-exchange.
#[derive(Clone, Copy)]
pub enum Rmw {
    /// `op` with the source.
    Op(RmwOp),
    /// Compare with the first value, store the second.
    CmpXchg,
}

/// `res_atomic` / `res_cmpxchg` (32-bit or, with `wide`, 64-bit) on a UAV; `dst` gets
/// the old value (0 out of bounds).
#[allow(clippy::too_many_arguments)]
pub fn res_atomic<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    kind: Rmw,
    wide: bool,
    dst: Reg,
    handle: Reg,
    coord: &[Reg; 3],
    cmp: Reg,
    src: Reg,
) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let c = [
        reg_or_zero(&w.regs, coord[0]),
        reg_or_zero(&w.regs, coord[1]),
        reg_or_zero(&w.regs, coord[2]),
    ];
    let n = if wide { 8 } else { 4 };
    let mut out = [0u64; W];
    for l in lanes(w.ex.mask & !w.helper) {
        let cl = [c[0][l], c[1][l], c[2][l]];
        let s = src_value(&w.regs, src, wide, l);
        let k = src_value(&w.regs, cmp, wide, l);
        let old = match look.at(l) {
            Descriptor::Buffer { view, .. } => {
                atomic_offset(view, cl, n).and_then(|o| match (kind, wide) {
                    (Rmw::Op(op), false) => view.atomic(o, op, s as u32).map(u64::from),
                    (Rmw::CmpXchg, false) => {
                        view.compare_exchange(o, k as u32, s as u32).map(u64::from)
                    }
                    (Rmw::Op(op), true) => view.atomic64(o, op, s),
                    (Rmw::CmpXchg, true) => view.compare_exchange64(o, k, s),
                })
            }
            Descriptor::Texture(view) => {
                let tc = texel_coord(&[c[0], c[1], c[2]], [0; 3], view.dim, l);
                match (kind, wide) {
                    (Rmw::Op(op), false) => view.atomic(tc, op, s as u32).map(u64::from),
                    (Rmw::CmpXchg, false) => {
                        view.compare_exchange(tc, k as u32, s as u32).map(u64::from)
                    }
                    (Rmw::Op(op), true) => view.atomic64(tc, op, s),
                    (Rmw::CmpXchg, true) => view.compare_exchange64(tc, k, s),
                }
            }
            _ => None,
        };
        out[l] = old.unwrap_or(0);
    }
    if !dst.is_none() {
        if wide {
            w.ex.store64(&mut w.regs, dst, &out);
        } else {
            let mut r = [0u32; W];
            for l in 0..W {
                r[l] = out[l] as u32;
            }
            w.ex.store(&mut w.regs, dst, &r);
        }
    }
}

/// `counter_inc` (value before) / `counter_dec` (value after) of a UAV's hidden counter;
/// 0 without a counter.
pub fn counter<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, dst: Reg, handle: Reg, inc: bool) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let mut r = [0u32; W];
    for l in lanes(w.ex.mask & !w.helper) {
        if let Descriptor::Buffer {
            counter: Some(c), ..
        } = look.at(l)
        {
            r[l] = if inc { c.increment() } else { c.decrement() };
        }
    }
    if !dst.is_none() {
        w.ex.store(&mut w.regs, dst, &r);
    }
}

/// Reads `n` bytes at byte `addr` of a constant buffer; 0 past its size.
fn cb_read(d: &Descriptor, addr: u64, n: u32) -> u64 {
    let Descriptor::ConstantBuffer {
        memory,
        offset,
        size,
    } = d
    else {
        return 0;
    };
    if addr.checked_add(u64::from(n)).is_none_or(|e| e > *size) {
        return 0;
    }
    let Some(a) = offset.checked_add(addr) else {
        return 0;
    };
    match n {
        2 => memory.load_u16(a).map(u64::from),
        8 => memory.load_u64(a),
        _ => memory.load_u32(a).map(u64::from),
    }
    .unwrap_or(0)
}

/// `cb_load`: constant buffer components at `addr + offset + i × size`.
#[allow(clippy::too_many_arguments)]
pub fn cb_load<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    handle: Reg,
    addr: Reg,
    offset: u32,
) {
    let n = width_bytes(width);
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let a = reg_or_zero(&w.regs, addr);
    let mut out = [[0u64; W]; 4];
    if let (Some(d), true) = (look.uniform, a.iter().all(|&x| x == a[0])) {
        // Uniform address and buffer (the common case): read once.
        for i in 0..4u32 {
            if mask & (1 << i) != 0 {
                let v = cb_read(d, u64::from(a[0]) + u64::from(offset) + u64::from(i * n), n);
                out[i as usize] = [v; W];
            }
        }
    } else {
        for l in lanes(w.ex.mask) {
            let d = look.at(l);
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    out[i as usize][l] =
                        cb_read(d, u64::from(a[l]) + u64::from(offset) + u64::from(i * n), n);
                }
            }
        }
    }
    store_components(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `dimensions`: `GetDimensions` per DXIL.rst's table; buffers give their element count
/// (bytes for raw views) and stride; nulls give zeros.
pub fn dimensions<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: &[Reg; 4],
    handle: Reg,
    mip: Reg,
) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let m = reg_or_zero(&w.regs, mip);
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        let v: [u32; 4] = match look.at(l) {
            Descriptor::Buffer { view, .. } => {
                let n = view.num_elements.min(u64::from(u32::MAX)) as u32;
                match view.kind {
                    BufferKind::Raw => [n.saturating_mul(4), 0, 0, 0],
                    BufferKind::Structured { stride } => [n, stride, 0, 0],
                    BufferKind::Typed { .. } => [n, 0, 0, 0],
                }
            }
            Descriptor::Texture(view) => view.dimensions(m[l]),
            Descriptor::ConstantBuffer { size, .. } => {
                [(*size).min(u64::from(u32::MAX)) as u32, 0, 0, 0]
            }
            _ => [0; 4],
        };
        for i in 0..4 {
            out[i][l] = u64::from(v[i]);
        }
    }
    store_components(&mut w.regs, &w.ex, dst, false, &out);
}

/// `sample_count`: samples of a multisampled texture, 0 otherwise.
pub fn sample_count<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, dst: Reg, handle: Reg) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let mut r = [0u32; W];
    for l in lanes(w.ex.mask) {
        if let Descriptor::Texture(v) = look.at(l)
            && v.dim.is_multisampled()
        {
            r[l] = v.texture.desc().samples;
        }
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// `sample_pos`: the standard position of sample `index` (D3D11.3 standard multisample
/// patterns), in pixels from the centre; 0 for an index past the count or a texture that
/// is not multisampled.
pub fn sample_pos<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: &[Reg; 2],
    handle: Reg,
    index: Reg,
) {
    let look = Lookup::new(cx.table, &w.regs, &w.ex, handle);
    let idx = reg_or_zero(&w.regs, index);
    let mut x = [0u32; W];
    let mut y = [0u32; W];
    for l in lanes(w.ex.mask) {
        if let Descriptor::Texture(v) = look.at(l)
            && v.dim.is_multisampled()
            && let Some([px, py]) = standard_sample_position(v.texture.desc().samples, idx[l])
        {
            x[l] = (f32::from(px) / 16.0).to_bits();
            y[l] = (f32::from(py) / 16.0).to_bits();
        }
    }
    if !dst[0].is_none() {
        w.ex.store(&mut w.regs, dst[0], &x);
    }
    if !dst[1].is_none() {
        w.ex.store(&mut w.regs, dst[1], &y);
    }
}
