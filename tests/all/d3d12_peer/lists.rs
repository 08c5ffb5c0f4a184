//! Whole command lists on the peer: a list job's named resources declared once with
//! their starting contents, every command written in order as the plan's statement
//! for the same D3D12 call, and every named resource read back after the list and
//! compared with dxlane's bytes after the same list.
//!
//! The plan is written from both halves of a prepared list job: the prepared commands
//! (`pipeline::commands::Command`: the resolved state, views and bindings, whose
//! storage is the named resources' own, so a view's resource is found by its memory)
//! and the job file's `[[command]]` entries (the program files the peer loads, and the
//! mip and slices a render-target or depth view names).
//!
//! What a plan cannot say is refused with the command's number and the reason
//! ([`Unexpressible`]): multisampled resources, geometry, tessellation and mesh stages,
//! SM 6.6 descriptor heaps, UAV counters and rays inside a list (their single-command
//! forms have peer tests of their own), and an indirect dispatch with a count buffer,
//! which vkd3d 1.2 skips ([`PEER_NO_DISPATCH_COUNT`]). Every list example and frame
//! without a geometry program or variable-rate shading (vkd3d 1.2 has none) is
//! expressible and compared
//! ([`list_examples_match_the_peer`]; those with one by [`super::stages`]); `tests/jobs/` holds no
//! list job files (its list tests write their jobs inline).
//!
//! On Mesa 22.3.6 lavapipe with vkd3d 1.2 (5 December 2026), 2,000 random lists
//! (`DXLANE_PEER_LIST_CASES=2000`, 646 s; 9 resources each): 17,051 resources
//! identical, 949 within the rules (colour by 1 code, [`Rule::Interpolation`]; depth by
//! [`Rule::DepthInterpolation`]), none failing. The list examples: every buffer
//! identical; `render_target_array`'s off-grid triangles within 1 code
//! ([`Rule::UnsnappedSetup`]), the deferred frame's depth within 2 ulps.

use super::*;
use dxlane::ir::Shader;
use dxlane::job::list::CommandEntry;
use dxlane::pipeline::commands::{Command, IndirectWork};
use dxlane::pipeline::query::{PredicationOp, QueryHeap, QueryHeapType};
use dxlane::pipeline::{DrawWork, Work};
use dxlane::resources::Descriptor;

/// Why a list cannot be written as a plan: the command (1-based, as job errors number
/// them) and the reason.
#[derive(Debug)]
pub(super) struct Unexpressible {
    command: usize,
    why: String,
}

impl std::fmt::Display for Unexpressible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[[command]] #{}: {}", self.command, self.why)
    }
}

/// A named resource of the list as the plan declares it.
struct Declared {
    /// The job's name.
    job_name: String,
    /// The plan's name.
    plan_name: String,
    memory: Memory,
    /// The texture, for a texture.
    texture: Option<Texture>,
}

/// The plan being written for one list, with its named resources.
struct ListPlan<'j> {
    plan: Plan,
    job: &'j Job,
    declared: Vec<Declared>,
}

/// The typeless format a depth texture is made in, so that its depth-stencil views
/// and shader-resource views (`R32_FLOAT` of `D32_FLOAT`) can both be made: D3D12 lets
/// a view differ from its resource's format only in a typeless resource.
fn depth_typeless(format: Format) -> Option<Format> {
    Some(match format {
        Format::D32_FLOAT => Format::R32_TYPELESS,
        Format::D16_UNORM => Format::R16_TYPELESS,
        Format::D24_UNORM_S8_UINT => Format::R24G8_TYPELESS,
        Format::D32_FLOAT_S8X24_UINT => Format::R32G8X24_TYPELESS,
        _ => return None,
    })
}

/// D3D12's subresource index (`D3D12CalcSubresource`, one plane).
fn subresource(t: &Texture, mip: u32, slice: u32) -> u32 {
    mip + slice * t.desc().mips
}

impl ListPlan<'_> {
    /// The plan name of the named resource whose storage is `m`.
    fn name(&self, m: &Memory) -> Option<String> {
        self.declared
            .iter()
            .find(|d| d.memory == *m)
            .map(|d| d.plan_name.clone())
    }

    /// The plan name of the job's resource `job_name`.
    fn by_job_name(&self, job_name: &str) -> Result<&Declared, String> {
        self.declared
            .iter()
            .find(|d| d.job_name == job_name)
            .ok_or_else(|| format!("no named resource \"{job_name}\""))
    }

    /// The binding lines of one program's bindings (`shader.resources[i]` bound to
    /// `ranges[i]`), naming the list's resources; constant data of the command's own
    /// (`{ reg = "b0", u32 = [..] }`) becomes a buffer of the plan.
    fn bindings(&mut self, shader: &Shader, b: &Bindings) -> Result<Vec<String>, String> {
        let mut lines = Vec::new();
        if !b.resource_heap.is_empty() || !b.sampler_heap.is_empty() {
            return Err("descriptor heaps (SM 6.6) are not written to plans".into());
        }
        for (range, descriptors) in shader.resources.iter().zip(&b.ranges) {
            for (k, d) in descriptors.iter().enumerate() {
                let r = format!("{}{}", range.class.letter(), range.lower + k as u32);
                let space = if range.space != 0 {
                    format!(" space={}", range.space)
                } else {
                    String::new()
                };
                let kind = match range.class.letter() {
                    't' => "srv",
                    'u' => "uav",
                    'b' => "cbv",
                    _ => "sampler",
                };
                match d {
                    Descriptor::ConstantBuffer {
                        memory,
                        offset,
                        size,
                    } => {
                        let name = match self.name(memory) {
                            Some(n) => n,
                            None => buffer(&mut self.plan, &memory.to_bytes(), 256, false),
                        };
                        lines.push(format!(
                            "cbv {r}{space} resource={name} offset={offset} size={size}"
                        ));
                    }
                    Descriptor::Buffer { view, counter } => {
                        if counter.is_some() {
                            return Err(format!("{r}: UAV counters are not written to plans"));
                        }
                        let name = self
                            .name(&view.memory)
                            .ok_or_else(|| format!("{r}: a buffer the list does not name"))?;
                        let extra = buffer_view_options(view.kind);
                        lines.push(format!(
                            "{kind} {r}{space} resource={name} dim=buffer first={} count={} {extra}",
                            view.first_element, view.num_elements
                        ));
                    }
                    Descriptor::Texture(v) => {
                        let name = self
                            .name(v.texture.memory())
                            .ok_or_else(|| format!("{r}: a texture the list does not name"))?;
                        lines.push(texture_view_line(kind, &r, &space, &name, v));
                    }
                    Descriptor::Sampler(s) => lines.push(sampler_line(&r, &space, s)),
                    Descriptor::Null(_) | Descriptor::Unbound(_) => {
                        lines.push(format!(
                            "{kind} {r}{space} resource=null dim={}",
                            range.kind.job_name()
                        ));
                    }
                    Descriptor::AccelerationStructure(_)
                    | Descriptor::AccelerationStructureBuffer(_) => {
                        return Err(format!(
                            "{r}: acceleration structures are not written to plans"
                        ));
                    }
                    Descriptor::Feedback(_) => {
                        return Err(format!(
                            "{r}: sampler feedback maps are not written to plans"
                        ));
                    }
                }
            }
        }
        Ok(lines)
    }

    /// A compute pipeline for `shader` (file `cs`) with its bindings; set as the
    /// current pipeline.
    fn compute(&mut self, cs: &Path, shader: &Shader, b: &Bindings) -> Result<(), String> {
        let lines = self.bindings(shader, b)?;
        let cs = self.plan.shader(cs);
        let rs = self.plan.name("rs");
        let pso = self.plan.name("pso");
        self.plan.line(format!("root_signature {rs} compute"));
        self.plan.line("table all");
        for l in lines {
            self.plan.line(l);
        }
        self.plan.line("end");
        self.plan.line(format!("pipeline {pso} compute"));
        self.plan.line(format!("root_signature {rs}"));
        self.plan.line(format!("cs {cs}"));
        self.plan.line("end");
        self.plan.line(format!("set_pipeline {pso}"));
        Ok(())
    }

    /// A render-target or depth view of subresources of a named texture.
    fn view(
        &mut self,
        dsv: bool,
        t: &Declared,
        format: Format,
        mip: u32,
        slices: [u32; 2],
        read_only: bool,
    ) -> String {
        let v = self.plan.name("view");
        let texture = t.texture.as_ref().expect("a texture");
        let range = match texture.desc().dim {
            TextureDim::Tex3D => format!(" wslices={}+{}", slices[0], slices[1]),
            _ => format!(" slices={}+{}", slices[0], slices[1]),
        };
        let ro = if read_only {
            let stencil = if format.channels().len() > 1 {
                " read_only_stencil=1"
            } else {
                ""
            };
            format!(" read_only_depth=1{stencil}")
        } else {
            String::new()
        };
        self.plan.line(format!(
            "{} {v} resource={} format={} mip={mip}{range}{ro}",
            if dsv { "dsv" } else { "rtv" },
            t.plan_name,
            format.name()
        ));
        v
    }

    /// A draw's pipeline, targets and dynamic state, set for the commands that follow;
    /// `e` is its `[[command]]` entry.
    fn draw_setup(&mut self, e: &CommandEntry, w: &DrawWork) -> Result<(), String> {
        if w.gs.is_some() || w.hs.is_some() || w.mesh.is_some() {
            return Err(
                "geometry, tessellation and mesh stages are compared by their own tests".into(),
            );
        }
        let s = w.state();
        let vs_file = self
            .job
            .resolve(e.vs.as_ref().ok_or("a draw without `vs`")?);
        let ps_file = e.ps.as_ref().map(|p| self.job.resolve(p));
        let mut tables = Vec::new();
        let vs_lines = self.bindings(&w.vs, &w.vs_bindings)?;
        if !vs_lines.is_empty() {
            tables.push(("vertex", vs_lines));
        }
        if let Some(ps) = &w.ps {
            let ps_lines = self.bindings(ps, &w.ps_bindings)?;
            if !ps_lines.is_empty() {
                tables.push(("pixel", ps_lines));
            }
        }
        let vs = self.plan.shader(&vs_file);
        let ps = ps_file.map(|p| self.plan.shader(&p));
        // Targets: views of named textures at the entry's mip and slices.
        let mut rtvs = Vec::new();
        let mut size = None;
        let mut samples = 1;
        for (i, t) in e.render_targets.iter().flatten().enumerate() {
            let d = self.by_job_name(&t.resource)?;
            let (name, tex) = (d.job_name.clone(), d.texture.clone());
            let tex = tex.ok_or_else(|| format!("render target {i}: \"{name}\" is no texture"))?;
            let desc = *tex.desc();
            if desc.samples > 1 {
                return Err("multisampled targets in lists are not written to plans".into());
            }
            let mip = t.mip.unwrap_or(0);
            let [w, h, _] = desc.mip_size(mip);
            size.get_or_insert((w, h));
            samples = desc.samples.max(1);
            let d = self.by_job_name(&t.resource)?;
            let d = Declared {
                job_name: d.job_name.clone(),
                plan_name: d.plan_name.clone(),
                memory: d.memory.clone(),
                texture: d.texture.clone(),
            };
            rtvs.push(self.view(
                false,
                &d,
                desc.format,
                mip,
                t.slices.unwrap_or([0, 1]),
                false,
            ));
        }
        let mut dsv = None;
        if let Some(ds) = &e.depth_stencil {
            let d = self.by_job_name(&ds.resource)?;
            let d = Declared {
                job_name: d.job_name.clone(),
                plan_name: d.plan_name.clone(),
                memory: d.memory.clone(),
                texture: d.texture.clone(),
            };
            let tex = d.texture.clone().ok_or("the depth buffer is no texture")?;
            let desc = *tex.desc();
            if desc.samples > 1 {
                return Err("multisampled depth in lists is not written to plans".into());
            }
            let mip = ds.mip.unwrap_or(0);
            let [w, h, _] = desc.mip_size(mip);
            size.get_or_insert((w, h));
            dsv = Some(self.view(
                true,
                &d,
                desc.format,
                mip,
                ds.slices.unwrap_or([0, 1]),
                ds.read_only.unwrap_or(false),
            ));
        }
        let (w, h) = size.ok_or("a draw without render targets or depth")?;
        let pso = graphics_pipeline(&mut self.plan, &s, &vs, ps.as_deref(), tables, samples)?;
        let p = &mut self.plan;
        p.line(format!("set_pipeline {pso}"));
        let depth = dsv.map(|d| format!(" depth={d}")).unwrap_or_default();
        p.line(format!("set_render_targets {}{depth}", rtvs.join(" ")));
        let vps: Vec<Viewport> = if s.viewports.is_empty() {
            vec![Viewport::full(w, h)]
        } else {
            s.viewports.clone()
        };
        let vps: Vec<String> = vps
            .iter()
            .map(|v| {
                format!(
                    "{},{},{},{},{},{}",
                    f(v.top_left_x),
                    f(v.top_left_y),
                    f(v.width),
                    f(v.height),
                    f(v.min_depth),
                    f(v.max_depth)
                )
            })
            .collect();
        p.line(format!("set_viewports {}", vps.join(" ")));
        let scs: Vec<Rect> = if s.scissors.is_empty() {
            vec![Rect {
                left: 0,
                top: 0,
                right: w as i32,
                bottom: h as i32,
            }]
        } else {
            s.scissors.clone()
        };
        let scs: Vec<String> = scs
            .iter()
            .map(|r| format!("{},{},{},{}", r.left, r.top, r.right, r.bottom))
            .collect();
        p.line(format!("set_scissors {}", scs.join(" ")));
        p.line(format!("set_stencil_ref {}", s.stencil_ref));
        let bf = s.blend_factor;
        p.line(format!(
            "set_blend_factor {} {} {} {}",
            f(bf[0]),
            f(bf[1]),
            f(bf[2]),
            f(bf[3])
        ));
        p.line(format!("set_topology {}", s.topology.name()));
        for (slot, v) in s.vertex_buffers.iter().enumerate() {
            if let Some(v) = v {
                let name = self
                    .name(&v.data)
                    .ok_or("a vertex buffer the list does not name")?;
                let size = v.size.map(|n| format!(" size={n}")).unwrap_or_default();
                self.plan.line(format!(
                    "set_vertex_buffer {slot} resource={name} stride={} offset={}{size}",
                    v.stride, v.offset
                ));
            }
        }
        if let Some(b) = &s.index_buffer {
            let name = self
                .name(&b.data)
                .ok_or("an index buffer the list does not name")?;
            let format = if b.format == IndexFormat::U16 {
                "R16_UINT"
            } else {
                "R32_UINT"
            };
            let size = b.size.map(|n| format!(" size={n}")).unwrap_or_default();
            self.plan.line(format!(
                "set_index_buffer resource={name} format={format} offset={}{size}",
                b.offset
            ));
        }
        Ok(())
    }

    /// Declares `heap` to the peer (a repeated declaration is ignored there). Timestamps
    /// are not compared: their values are times, different on each side.
    fn query_heap(&mut self, heap: &QueryHeap) -> Result<(), String> {
        if heap.kind == QueryHeapType::Timestamp {
            return Err("timestamps are times, different on each side: not compared".into());
        }
        self.plan.line(format!(
            "query_heap {} {} {}",
            heap.name,
            heap.kind.name().to_ascii_lowercase(),
            heap.count()
        ));
        Ok(())
    }

    /// Writes command `c` (its entry `e`).
    fn command(&mut self, e: &CommandEntry, c: &Command) -> Result<(), String> {
        match c {
            Command::Work(Work::Dispatch(d)) => {
                let cs = self
                    .job
                    .resolve(e.cs.as_ref().ok_or("a dispatch without `cs`")?);
                self.compute(&cs, &d.shader, &d.bindings)?;
                let [x, y, z] = d.groups;
                self.plan.line(format!("dispatch {x} {y} {z}"));
            }
            Command::Work(Work::Draw(w)) => {
                self.draw_setup(e, w)?;
                let a = w.args;
                if w.state().index_buffer.is_some() {
                    self.plan.line(format!(
                        "draw_indexed {} instances={} start_index={} base_vertex={} start_instance={}",
                        a.vertex_count,
                        a.instance_count,
                        a.start_vertex,
                        a.base_vertex,
                        a.start_instance
                    ));
                } else {
                    self.plan.line(format!(
                        "draw {} instances={} start_vertex={} start_instance={}",
                        a.vertex_count, a.instance_count, a.start_vertex, a.start_instance
                    ));
                }
            }
            Command::Work(_) => return Err("rays are not written to plans".into()),
            Command::ClearRenderTarget {
                texture,
                mip,
                slice,
                color,
            } => {
                let d = self.declared_of(texture.memory())?;
                let v = self.view(false, &d, texture.desc().format, *mip, [*slice, 1], false);
                self.plan.line(format!(
                    "clear_render_target {v} {} {} {} {}",
                    f(color[0]),
                    f(color[1]),
                    f(color[2]),
                    f(color[3])
                ));
            }
            Command::ClearDepthStencil {
                texture,
                mip,
                slice,
                depth,
                stencil,
            } => {
                let d = self.declared_of(texture.memory())?;
                let v = self.view(true, &d, texture.desc().format, *mip, [*slice, 1], false);
                let depth = depth
                    .map(|z| format!(" depth={}", f(z)))
                    .unwrap_or_default();
                let stencil = stencil.map(|s| format!(" stencil={s}")).unwrap_or_default();
                self.plan
                    .line(format!("clear_depth_stencil {v}{depth}{stencil}"));
            }
            Command::ClearBufferWords {
                memory,
                first,
                count,
                ..
            } => {
                let name = self.name(memory).ok_or("an unnamed buffer")?;
                let values = clear_values(e)?;
                self.plan.line(format!(
                    "clear_unordered_access {values} resource={name} dim=buffer format=R32_TYPELESS raw=1 first={first} count={count}"
                ));
            }
            Command::ClearTypedBuffer {
                memory,
                format,
                first,
                count,
                ..
            } => {
                let name = self.name(memory).ok_or("an unnamed buffer")?;
                let values = clear_values(e)?;
                self.plan.line(format!(
                    "clear_unordered_access {values} resource={name} dim=buffer format={} first={first} count={count}",
                    format.name()
                ));
            }
            Command::ClearTexture {
                texture,
                mip,
                slice,
                ..
            } => {
                let d = self.declared_of(texture.memory())?;
                let desc = *texture.desc();
                let values = clear_values(e)?;
                let (dim, range) = match desc.dim {
                    TextureDim::Tex1D => ("texture1d", String::new()),
                    TextureDim::Tex3D => ("texture3d", String::new()),
                    TextureDim::Tex1DArray => ("texture1darray", format!(" slices={slice}+1")),
                    TextureDim::Tex2D => ("texture2d", String::new()),
                    _ => ("texture2darray", format!(" slices={slice}+1")),
                };
                self.plan.line(format!(
                    "clear_unordered_access {values} resource={} dim={dim} format={} mips={mip}{range}",
                    d.plan_name,
                    desc.format.name()
                ));
            }
            Command::CopyResource { dst, src } => {
                let (d, s) = (self.name(dst), self.name(src));
                let (d, s) = d.zip(s).ok_or("a copy of an unnamed resource")?;
                self.plan.line(format!("copy_resource {d} {s}"));
            }
            Command::CopyBufferRegion {
                dst,
                dst_offset,
                src,
                src_offset,
                bytes,
            } => {
                let (d, s) = (self.name(dst), self.name(src));
                let (d, s) = d.zip(s).ok_or("a copy of an unnamed resource")?;
                self.plan.line(format!(
                    "copy_buffer_region {d} {dst_offset} {s} {src_offset} {bytes}"
                ));
            }
            Command::CopyTextureRegion(t) => {
                let (d, s) = (self.name(t.dst.memory()), self.name(t.src.memory()));
                let (d, s) = d.zip(s).ok_or("a copy of an unnamed resource")?;
                let [x, y, z] = t.dst_at;
                let b = t.src_box;
                self.plan.line(format!(
                    "copy_texture_region {d} {} {x} {y} {z} {s} {} box={},{},{},{},{},{}",
                    subresource(&t.dst, t.dst_mip, t.dst_slice),
                    subresource(&t.src, t.src_mip, t.src_slice),
                    b[0],
                    b[1],
                    b[2],
                    b[3],
                    b[4],
                    b[5]
                ));
            }
            Command::ResolveSubresource { .. } => {
                return Err("multisampled resources in lists are not written to plans".into());
            }
            // vkd3d 1.2's ResolveSubresourceRegion is a stub ("stub!"): nothing to compare.
            Command::ResolveRegion(_) => {
                return Err("ResolveSubresourceRegion: vkd3d 1.2's is a stub".into());
            }
            Command::ExecuteIndirect(ind) => {
                let kind = match &ind.work {
                    IndirectWork::Dispatch(d) => {
                        if ind.count.is_some() {
                            return Err(PEER_NO_DISPATCH_COUNT.into());
                        }
                        let cs = self
                            .job
                            .resolve(e.cs.as_ref().ok_or("an indirect dispatch without `cs`")?);
                        self.compute(&cs, &d.shader, &d.bindings)?;
                        "dispatch"
                    }
                    IndirectWork::Draw(w) => {
                        self.draw_setup(e, w)?;
                        "draw"
                    }
                    IndirectWork::DrawIndexed(w) => {
                        self.draw_setup(e, w)?;
                        "draw_indexed"
                    }
                    IndirectWork::DispatchMesh(_) => {
                        return Err("the peer draws no mesh pipelines".into());
                    }
                };
                let args = self
                    .name(&ind.arguments)
                    .ok_or("an unnamed argument buffer")?;
                let count = match &ind.count {
                    Some((m, off)) => format!(
                        " count={} count_offset={off}",
                        self.name(m).ok_or("an unnamed count buffer")?
                    ),
                    None => String::new(),
                };
                self.plan.line(format!(
                    "execute_indirect {kind} {} arguments={args} offset={} stride={}{count}",
                    ind.max_count, ind.offset, ind.stride
                ));
            }
            Command::BeginQuery { heap, index } | Command::EndQuery { heap, index, .. } => {
                let kind = e
                    .query
                    .as_deref()
                    .ok_or("a query command without `query`")?
                    .to_ascii_lowercase();
                self.query_heap(heap)?;
                let verb = if matches!(c, Command::BeginQuery { .. }) {
                    "begin_query"
                } else {
                    "end_query"
                };
                self.plan
                    .line(format!("{verb} {} {kind} {index}", heap.name));
            }
            Command::ResolveQueryData(r) => {
                self.query_heap(&r.heap)?;
                let b = self.name(&r.buffer).ok_or("an unnamed query buffer")?;
                self.plan.line(format!(
                    "resolve_query_data {} {} {} {} {b} {}",
                    r.heap.name,
                    r.kind.name().to_ascii_lowercase(),
                    r.first,
                    r.count,
                    r.offset
                ));
            }
            Command::SetPredication(None) => self.plan.line("set_predication none"),
            Command::SetPredication(Some(p)) => {
                let b = self.name(&p.buffer).ok_or("an unnamed predicate buffer")?;
                let op = match p.op {
                    PredicationOp::EqualZero => "equal_zero",
                    PredicationOp::NotEqualZero => "not_equal_zero",
                };
                self.plan
                    .line(format!("set_predication {b} {} {op}", p.offset));
            }
            // The predicate and the open queries are the plan's own state, set by the
            // lines before: the command is written as it is.
            Command::Gated(g) => self.command(e, &g.command)?,
            Command::DrawAuto(_) => {
                return Err("DrawAuto is not written to plans".into());
            }
            Command::CopyFootprint(c) => {
                let (tex, buf) = (self.name(c.texture.memory()), self.name(&c.buffer));
                let (tex, buf) = tex.zip(buf).ok_or("a copy of an unnamed resource")?;
                let f = &c.footprint;
                // The footprint's format is copy-compatible with the texture's (checked
                // by the job), so the texture's own format describes the same bytes.
                let footprint = format!(
                    "{},{},{},{},{},{}",
                    f.offset,
                    c.texture.desc().format.name(),
                    f.width,
                    f.height,
                    f.depth,
                    f.row_pitch
                );
                let sub = subresource(&c.texture, c.mip, c.slice).to_string();
                let (d, dw, s, sw) = if c.to_texture {
                    (tex, sub, buf, footprint)
                } else {
                    (buf, footprint, tex, sub)
                };
                let [x, y, z] = c.dst_at;
                let b = c.src_box;
                self.plan.line(format!(
                    "copy_texture_region {d} {dw} {x} {y} {z} {s} {sw} box={},{},{},{},{},{}",
                    b[0], b[1], b[2], b[3], b[4], b[5]
                ));
            }
            Command::ClearFeedback(_) | Command::TranscodeFeedback(_) => {
                return Err("sampler feedback maps are not written to plans".into());
            }
            Command::BuildAccelerationStructure(_) | Command::Late(_) => {
                return Err("ray-tracing commands are not written to plans".into());
            }
        }
        Ok(())
    }

    /// A copy of the declaration whose storage is `m`.
    fn declared_of(&self, m: &Memory) -> Result<Declared, String> {
        let d = self
            .declared
            .iter()
            .find(|d| d.memory == *m)
            .ok_or("a resource the list does not name")?;
        Ok(Declared {
            job_name: d.job_name.clone(),
            plan_name: d.plan_name.clone(),
            memory: d.memory.clone(),
            texture: d.texture.clone(),
        })
    }
}

/// vkd3d 1.2 skips an indirect dispatch with a count buffer ("Count buffers not
/// supported for indirect dispatch"): D3D12's `ExecuteIndirect` takes one for every
/// argument type, so such a command is the peer's limitation, not sent.
const PEER_NO_DISPATCH_COUNT: &str =
    "vkd3d 1.2 runs no indirect dispatch with a count buffer (it skips the command)";

/// A `clear_unordered_access` command's values as the plan writes them.
fn clear_values(e: &CommandEntry) -> Result<String, String> {
    if let Some(u) = e.uint {
        Ok(format!("uint {},{},{},{}", u[0], u[1], u[2], u[3]))
    } else if let Some(v) = &e.float {
        let v: Vec<String> = v.iter().map(|x| f(f32::from_bits(x.bits()))).collect();
        Ok(format!("float {}", v.join(",")))
    } else {
        Err("a clear without `uint` or `float`".into())
    }
}

/// One named resource after the list on both sides.
pub(super) struct ListResult {
    /// The job's name.
    pub name: String,
    /// The texture (`None`: a buffer).
    pub texture: Option<Texture>,
    /// dxlane's bytes.
    pub ours: Vec<u8>,
    /// The peer's bytes (the same length).
    pub theirs: Vec<u8>,
}

/// Writes the list job `job` as a plan, runs it on the peer and dxlane; returns every
/// named resource on both sides, `Ok(None)` when the test skips, or what the plan
/// cannot express.
pub(super) fn list_on_both(
    test: &str,
    exe: &Path,
    job_path: &Path,
    tag: &str,
) -> Result<Option<Vec<ListResult>>, Unexpressible> {
    let job = Job::load(job_path).unwrap_or_else(|e| panic!("{}: {e}", job_path.display()));
    let entries = job.file.commands.clone();
    let job_copy = Job::load(job_path).unwrap();
    let p = dxlane::job::prepare(job, &common::run_options())
        .unwrap_or_else(|e| panic!("{}: {e}", job_path.display()));
    let Work::List(commands) = &p.work else {
        panic!("{}: not a command list", job_path.display());
    };
    assert_eq!(commands.len(), entries.len(), "one command per entry");
    let mut lp = ListPlan {
        plan: Plan::new(tag),
        job: &job_copy,
        declared: Vec::new(),
    };
    let at0 = |why: String| Unexpressible { command: 0, why };
    // Named resources, with what the commands make of them (D3D12's ALLOW_* flags).
    assert_eq!(
        p.bound.resources.len(),
        job_copy.file.resources.len(),
        "one bound entry per [[resource]]"
    );
    for (i, (e, entry)) in p
        .bound
        .resources
        .iter()
        .zip(&job_copy.file.resources)
        .enumerate()
    {
        let plan_name = format!("r{i}");
        let job_name = entry.name.clone().unwrap_or_else(|| e.name.clone());
        match &e.storage {
            dxlane::job::bind::Storage::Buffer(m) => {
                let mut bytes = m.to_bytes();
                bytes.resize(bytes.len().max(1).next_multiple_of(256), 0);
                let data = lp.plan.data(&bytes);
                lp.plan.line(format!(
                    "buffer {plan_name} size={} uav=1 data={data}",
                    bytes.len()
                ));
                lp.declared.push(Declared {
                    job_name: job_name.clone(),
                    plan_name,
                    memory: m.clone(),
                    texture: None,
                });
            }
            dxlane::job::bind::Storage::Texture(t) => {
                let desc = *t.desc();
                if desc.samples > 1 {
                    return Err(at0(format!(
                        "\"{job_name}\": multisampled resources in lists are not written to plans"
                    )));
                }
                let named = |c: &CommandEntry, rt: bool| {
                    if rt {
                        c.render_targets
                            .iter()
                            .flatten()
                            .any(|v| v.resource == job_name)
                            || (c.kind == "clear_render_target"
                                && c.resource.as_deref() == Some(job_name.as_str()))
                    } else {
                        c.bind.iter().any(|b| {
                            b.reg.starts_with('u') && b.resource.as_ref() == Some(&job_name)
                        }) || (c.kind == "clear_unordered_access"
                            && c.resource.as_deref() == Some(job_name.as_str()))
                    }
                };
                let rtv = entries.iter().any(|c| named(c, true));
                let uav = entries.iter().any(|c| named(c, false));
                let (format, flags) = match depth_typeless(desc.format) {
                    Some(typeless) => (typeless, "dsv=1".to_string()),
                    None => (
                        desc.format,
                        [(rtv, "rtv=1"), (uav, "uav=1")]
                            .iter()
                            .filter(|(on, _)| *on)
                            .map(|(_, s)| *s)
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                };
                let data = lp.plan.data(&subresources(t));
                lp.plan.line(texture_line(
                    &plan_name,
                    &desc,
                    format,
                    &format!("{flags} data={data}"),
                ));
                lp.declared.push(Declared {
                    job_name: job_name.clone(),
                    plan_name,
                    memory: t.memory().clone(),
                    texture: Some(t.clone()),
                });
            }
            dxlane::job::bind::Storage::None => {}
        }
    }
    for (i, (e, c)) in entries.iter().zip(commands).enumerate() {
        lp.command(e, c).map_err(|why| Unexpressible {
            command: i + 1,
            why,
        })?;
    }
    for d in &lp.declared {
        lp.plan
            .line(format!("readback {} {}.bin", d.plan_name, d.plan_name));
    }
    let path = lp.plan.finish();
    if run_plan(test, exe, &path).is_none() {
        return Ok(None);
    }
    p.run(None, dxlane::pipeline::Hooks::default())
        .unwrap_or_else(|e| panic!("{}: {e}", job_path.display()));
    let out = lp
        .declared
        .iter()
        .map(|d| {
            let ours = match &d.texture {
                Some(t) => t.to_bytes(),
                None => d.memory.to_bytes(),
            };
            let mut theirs = lp.plan.read(&format!("{}.bin", d.plan_name));
            theirs.truncate(ours.len());
            std::fs::write(
                lp.plan.dir.join(format!("dxlane-{}.bin", d.plan_name)),
                &ours,
            )
            .unwrap();
            ListResult {
                name: d.job_name.clone(),
                texture: d.texture.clone(),
                ours,
                theirs,
            }
        })
        .collect();
    Ok(Some(out))
}

/// The list examples and frames (`examples/lists/*.toml`, `examples/frames/*.toml`),
/// each on both sides, every named resource compared after the whole list by [`judge`];
/// a list a plan cannot express fails, naming the command and the reason.
#[test]
fn list_examples_match_the_peer() {
    let test = "d3d12_peer::list_examples_match_the_peer";
    let Some(exe) = peer(test) else { return };
    let mut jobs: Vec<PathBuf> = ["examples/lists", "examples/frames"]
        .iter()
        .flat_map(|d| std::fs::read_dir(common::root().join(d)).unwrap().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // Lists with a geometry program (the one-pass cube map, the particles) are
        // compared by `stages`, from plans written by hand.
        .filter(|p| !std::fs::read_to_string(p).unwrap().contains("\ngs = "))
        // The variable-rate shading frame is not sent: vkd3d 1.2 has no
        // `ID3D12GraphicsCommandList5`, so neither `RSSetShadingRate` nor
        // `RSSetShadingRateImage` (docs/pipeline.md, "Variable-rate shading").
        .filter(|p| {
            !std::fs::read_to_string(p)
                .unwrap()
                .contains("\nshading_rate")
        })
        .collect();
    jobs.sort();
    assert!(jobs.len() >= 6, "the list examples are missing");
    let mut failures = Vec::new();
    let mut compared = 0;
    for job in &jobs {
        let stem = job.file_stem().unwrap().to_string_lossy().to_string();
        let results = match list_on_both(test, exe, job, &format!("list-{stem}")) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(why) => {
                eprintln!("{stem}: not sent to the peer: {why}");
                failures.push(format!("{stem}: {why}"));
                continue;
            }
        };
        for r in results {
            compared += 1;
            match judge(&r, None) {
                Ok(how) => eprintln!("{stem}: \"{}\" ({} bytes): {how}", r.name, r.ours.len()),
                Err(why) => failures.push(format!("{stem}: \"{}\": {why}", r.name)),
            }
        }
    }
    eprintln!("{compared} resources compared over {} lists", jobs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Queries and predication against the peer: three rectangles whose edges lie on pixel
/// boundaries (so no rasterization rule decides a pixel) drawn inside occlusion and
/// binary-occlusion queries, resolved into a buffer, and `set_predication` on the
/// resolved values skipping or running draws, under both operations. The
/// resolved bytes are compared exactly (`ResolveQueryData`: occlusion is "the number of
/// samples that passed", exact; vkd3d asks Vulkan for precise occlusion queries), and so
/// is every other resource. Pipeline statistics have their own list, one that leaves
/// their rules no room (`pipeline_statistics_match_the_peer_where_the_rules_fix_them`).
#[test]
fn queries_and_predication_match_the_peer() {
    let test = "d3d12_peer::queries_and_predication_match_the_peer";
    let Some(exe) = peer(test) else { return };
    let shaders = common::root().join("shaders");
    let prog = |f: &str| format!("{:?}", shaders.join(f).display().to_string());
    let draw_with = |first: u32, func: &str| {
        format!(
            r#"
[[command]]
type = "draw"
vertex_count = 6
start_vertex = {first}
vs = {}
ps = {}
vertex_buffers = [{{ slot = 0, resource = "verts", stride = 24 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32_FLOAT" }},
    {{ semantic = "COLOR", format = "R32G32B32A32_FLOAT" }},
]
render_targets = [{{ resource = "color" }}]
depth_stencil = {{ resource = "depth", depth_func = "{func}" }}
rasterizer = {{ cull = "NONE" }}
"#,
            prog("draw_color.vs_5_0.dxbc"),
            prog("draw_color.ps_5_0.dxbc")
        )
    };
    let draw = |first: u32| draw_with(first, "LESS");
    let query = |verb: &str, index: u32, kind: &str| {
        format!(
            "\n[[command]]\ntype = \"{verb}\"\nheap = \"occ\"\nindex = {index}\nquery = \"{kind}\"\n"
        )
    };
    let resolve = |kind: &str, first: u32, count: u32, offset: u32| {
        format!(
            "\n[[command]]\ntype = \"resolve_query_data\"\nheap = \"occ\"\nquery = \"{kind}\"\nfirst = {first}\ncount = {count}\nbuffer = \"results\"\noffset = {offset}\n"
        )
    };
    let predicate = |offset: u32, op: &str| {
        format!(
            "\n[[command]]\ntype = \"set_predication\"\nbuffer = \"results\"\noffset = {offset}\noperation = \"{op}\"\n"
        )
    };
    let clear = |c: &str| {
        format!(
            "\n[[command]]\ntype = \"clear_render_target\"\nresource = \"color\"\ncolor = [{c}]\n"
        )
    };
    // A: x in [-1, 0], every row (128 pixels); B: x in [-0.5, 0.5], y in [-1, 0.5]
    // (96 pixels, 48 of them behind A); C: x in [-1, -0.5], wholly behind A; D: the
    // whole target (z = 0 fails LESS where A or B wrote, passes elsewhere).
    let mut text = String::from(
        r#"
[[resource]]
name = "verts"
kind = "raw_buffer"
data = { f32 = [
    -1, -1, 1, 0, 0, 1,   -1, 1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,
    -1, -1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,    0, -1, 1, 0, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   -0.5, 0.5, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,    0.5, -1, 0, 1, 0, 1,
    -1, -1, 0, 0, 1, 1,   -1, 1, 0, 0, 1, 1,   -0.5, 1, 0, 0, 1, 1,
    -1, -1, 0, 0, 1, 1,   -0.5, 1, 0, 0, 1, 1,  -0.5, -1, 0, 0, 1, 1,
    -1, -1, 1, 1, 0, 1,   -1, 1, 1, 1, 0, 1,   1, 1, 1, 1, 0, 1,
    -1, -1, 1, 1, 0, 1,   1, 1, 1, 1, 0, 1,    1, -1, 1, 1, 0, 1,
] }

[[resource]]
name = "color"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[[resource]]
name = "depth"
kind = "texture2d"
format = "D32_FLOAT"
width = 16
height = 16

[[resource]]
name = "results"
kind = "raw_buffer"
size = 256

[[query_heap]]
name = "occ"
type = "OCCLUSION"
count = 4

[[command]]
type = "clear_depth_stencil"
resource = "depth"
depth = 1.0
"#,
    );
    text += &clear("0, 0, 0, 1");
    text +=
        &(query("begin_query", 0, "OCCLUSION") + &draw(0) + &query("end_query", 0, "OCCLUSION"));
    text +=
        &(query("begin_query", 1, "OCCLUSION") + &draw(6) + &query("end_query", 1, "OCCLUSION"));
    text += &(query("begin_query", 2, "BINARY_OCCLUSION")
        + &draw(12)
        + &query("end_query", 2, "BINARY_OCCLUSION"));
    text += &(query("begin_query", 3, "BINARY_OCCLUSION")
        + &draw(6)
        + &query("end_query", 3, "BINARY_OCCLUSION"));
    text += &resolve("OCCLUSION", 0, 2, 0);
    text += &resolve("BINARY_OCCLUSION", 2, 2, 16);
    // Predicated draws, each visible if it runs. C's binary value is 0, A's count 128:
    // EQUAL_ZERO on 0 skips C drawn with ALWAYS; EQUAL_ZERO on 128 runs D (it fills
    // the pixels A and B left); NOT_EQUAL_ZERO on 128 skips C again; NOT_EQUAL_ZERO on
    // 0 runs B with ALWAYS (B's whole rectangle turns green).
    text += &(predicate(16, "EQUAL_ZERO") + &draw_with(12, "ALWAYS"));
    text += &(predicate(0, "EQUAL_ZERO") + &draw(18));
    text += &(predicate(0, "NOT_EQUAL_ZERO") + &draw_with(12, "ALWAYS"));
    text += &(predicate(16, "NOT_EQUAL_ZERO") + &draw_with(6, "ALWAYS"));
    text += "\n[[command]]\ntype = \"set_predication\"\n";
    // Clears stay out of the predicated commands: in a trial of this list vkd3d 1.2 ran
    // a ClearDepthStencilView that D3D12 predicates off (seen, its cause not examined);
    // `tests/all/queries.rs` holds the D3D12 rule for clears.
    let dir = common::scratch().join("d3d12_peer_queries");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("queries.toml");
    std::fs::write(&job, text).unwrap();
    let results = match list_on_both(test, exe, &job, "list-queries") {
        Ok(Some(r)) => r,
        Ok(None) => return,
        Err(why) => panic!("not sent to the peer: {why}"),
    };
    let mut failures = Vec::new();
    for r in &results {
        match judge(r, None) {
            Ok(how) => eprintln!("queries: \"{}\": {how}", r.name),
            Err(why) => failures.push(format!("\"{}\": {why}", r.name)),
        }
        if r.name == "results" {
            let words: Vec<u64> = r.ours[..32]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            // Hand-derived (`tests/all/queries.rs`'s rules): A 128, B 48, C 0, B again 0.
            assert_eq!(words, [128, 48, 0, 0], "dxlane's resolved queries");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Judges one resource after a list: buffers and integer textures exactly; colour
/// textures of one mip (their slices taken as the draw comparison takes samples) under
/// the draw comparison's rules (`check_colour`: [`Rule::UnsnappedSetup`] and its
/// tolerance); D32_FLOAT depth under `check_depth_f32` (the lists clear depth to 1.0).
/// `Ok` says how they compare; `Err` what differs beyond the rules. `on_grid`: every
/// draw's vertices lie on the 1/16-pixel grid and its viewport covers depth 0 to 1 (the
/// random lists), which leaves only the rules of the arithmetic's order; it gives the
/// largest depth-plane term at a pixel.
fn judge(r: &ListResult, on_grid: Option<&dyn Fn(u32, u32) -> f32>) -> Result<String, String> {
    if r.ours == r.theirs {
        return Ok("identical".into());
    }
    let Some(t) = &r.texture else {
        let first = r
            .ours
            .iter()
            .zip(&r.theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(r.ours.len());
        return Err(format!(
            "buffers differ from byte {first} (dxlane {:02x?}, peer {:02x?})",
            &r.ours[first..(first + 8).min(r.ours.len())],
            &r.theirs[first..(first + 8).min(r.theirs.len())]
        ));
    };
    let d = *t.desc();
    let m = mismatches(t, &r.ours, &r.theirs);
    let first = m.first().map(|m| {
        format!(
            "first at ({}, {}) slice {}: dxlane {:02x?} peer {:02x?}",
            m.x, m.y, m.sample, m.ours, m.theirs
        )
    });
    let integer = d
        .format
        .channels()
        .iter()
        .any(|c| matches!(c.num, Num::UInt | Num::SInt));
    if d.mips != 1 || integer || (d.format.is_depth() && d.format != Format::D32_FLOAT) {
        return Err(format!(
            "{} texels differ, compared exactly: {}",
            m.len(),
            first.unwrap_or_default()
        ));
    }
    let target = Target {
        what: r.name.clone(),
        texture: t.clone(),
        read: Read::Copy(String::new()),
        resolved: None,
    };
    let v = if let Some(depth_scale) = on_grid {
        // Vertices on the 1/16-pixel grid of viewports of [0, 1] depth: only the
        // arithmetic's order is left, [`Rule::Interpolation`] (1 code of a UNORM8
        // colour) and [`Rule::DepthInterpolation`] (16 ulps of the plane's largest
        // term: the viewport's largest depth, 1.0, or the slopes times the coordinates
        // of a depth-writing triangle over the sample, `depth_scale`).
        let mut v = Verdict::default();
        for m in m {
            v.differing += 1;
            let diff = channel_diff(d.format, &m.ours, &m.theirs);
            v.worst = v.worst.max(diff);
            if d.format == Format::D32_FLOAT {
                if depth_within(d.format, &m.ours, &m.theirs, depth_scale(m.x, m.y)) {
                    v.explain(Rule::DepthInterpolation);
                } else {
                    v.not_explained(&m, format!("{diff} ulps"));
                }
            } else if diff <= 1 && d.format == Format::R8G8B8A8_UNORM {
                v.explain(Rule::Interpolation);
            } else {
                v.not_explained(&m, format!("{diff} codes"));
            }
        }
        v
    } else if d.format == Format::D32_FLOAT {
        check_depth_f32(&target, &r.ours, &r.theirs, 1.0)
    } else {
        check_colour(&target, &r.ours, &r.theirs, &|_, _| true)
    };
    if v.unexplained.is_empty() {
        Ok(v.summary())
    } else {
        Err(format!(
            "{}: {}",
            v.summary(),
            v.unexplained
                .iter()
                .filter(|u| !u.is_empty())
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ))
    }
}

// ------------------------------------------------------------------ random lists

/// Random lists per run (`DXLANE_PEER_LIST_CASES`; default 20).
fn list_case_count() -> u64 {
    std::env::var("DXLANE_PEER_LIST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// Vertices in a random list's vertex buffer (24 triangles).
const LIST_VERTICES: u32 = 72;

/// A random list job (TOML) for `seed`: a colour target and an R32_UINT target of the
/// triangle numbers (`random_draw.hlsl`) shared by every draw, a D32_FLOAT depth buffer,
/// a vertex buffer, and 3 to 10 commands drawn from: clears of each target,
/// `clear_unordered_access` of a raw and of a typed buffer, draws of random triangles
/// with or without the depth test, a copy of a box of the colour target into another
/// texture, copies of boxes through a placed footprint in a buffer (target to buffer,
/// buffer to texture), a copy between buffers, and — always — a dispatch (`random_list.hlsl`)
/// writing the vertices a later draw reads as its vertex buffer. Positions lie on the
/// 1/16-pixel grid of a power-of-two target, so that only the draw comparison's rules
/// can move a sample.
fn random_list_job(seed: u64) -> (String, Vec<[[f64; 3]; 3]>, u32) {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    for _ in 0..4 {
        r.next();
    }
    let size = r.pick(&[16u32, 32]);
    // Room for a footprint of `size` rows of 256 bytes at offset 0 or 512.
    let staged = 512 + 256 * size;
    let dir = common::root().join("tests/d3d12_peer");
    let prog = |f: &str| format!("{:?}", dir.join(f).display().to_string());
    let (vs, ps, cs) = (
        prog("random_draw.vs_5_0.dxbc"),
        prog("random_draw.ps_5_0.dxbc"),
        prog("random_list.cs_5_0.dxbc"),
    );
    let mut words = Vec::new();
    for i in 0..LIST_VERTICES {
        let sx = r.below(u64::from(size) * 16 + 1) as f32 / 16.0;
        let sy = r.below(u64::from(size) * 16 + 1) as f32 / 16.0;
        let nx = sx * 2.0 / size as f32 - 1.0;
        let ny = 1.0 - sy * 2.0 / size as f32;
        let z = r.below(65) as f32 / 64.0;
        words.extend([nx, ny, z, 1.0].map(f32::to_bits));
        words.extend([0, 1, 2, 3].map(|_| (r.below(256) as f32 / 255.0).to_bits()));
        words.push(i / 3 + 1);
    }
    let list = |w: &[u32]| {
        w.iter()
            .map(|x| format!("{x:#x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let bytes = LIST_VERTICES * 36;
    let mut t = String::new();
    let _ = write!(
        t,
        r#"[[resource]]
name = "verts"
kind = "raw_buffer"
data = {{ u32 = [{}] }}

[[resource]]
name = "gen"
kind = "raw_buffer"
size = {bytes}

[[resource]]
name = "saved"
kind = "raw_buffer"
size = {bytes}

[[resource]]
name = "staged"
kind = "raw_buffer"
size = {staged}

[[resource]]
name = "words"
kind = "raw_buffer"
size = 256

[[resource]]
name = "floats"
kind = "typed_buffer"
format = "R32_FLOAT"
size = 256

[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = {size}
height = {size}
data = {{ fill_u32 = {:#x} }}

[[resource]]
name = "ids"
kind = "texture2d"
format = "R32_UINT"
width = {size}
height = {size}

[[resource]]
name = "depth"
kind = "texture2d"
format = "D32_FLOAT"
width = {size}
height = {size}
data = {{ fill_u32 = 0x3f800000 }}

[[resource]]
name = "snap"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = {size}
height = {size}
"#,
        list(&words),
        r.next() as u32
    );
    let n = 3 + r.below(8);
    let dispatch_at = r.below(n);
    let gen_draw_at = dispatch_at + 1 + r.below(n - dispatch_at);
    let mut dispatched = false;
    let mut flip_x = 1.0f64;
    let mut writers = Vec::new();
    for k in 0..=n {
        let what = if k == dispatch_at {
            99
        } else if k == gen_draw_at {
            98
        } else {
            r.below(10)
        };
        t.push_str("\n[[command]]\n");
        match what {
            0 => {
                let c = [0, 1, 2, 3].map(|_| f(r.below(256) as f32 / 255.0));
                let _ = writeln!(
                    t,
                    "type = \"clear_render_target\"\nresource = \"rt\"\ncolor = [{}]",
                    c.join(", ")
                );
            }
            1 => {
                let _ = writeln!(
                    t,
                    "type = \"clear_depth_stencil\"\nresource = \"depth\"\ndepth = 1.0"
                );
            }
            2 => {
                let (w, h) = (1 + r.below(u64::from(size)), 1 + r.below(u64::from(size)));
                let (l, top) = (
                    r.below(u64::from(size) - w + 1),
                    r.below(u64::from(size) - h + 1),
                );
                let (x, y) = (
                    r.below(u64::from(size) - w + 1),
                    r.below(u64::from(size) - h + 1),
                );
                let _ = writeln!(
                    t,
                    "type = \"copy_texture_region\"\ndst = \"snap\"\nsrc = \"rt\"\ndst_at = [{x}, {y}, 0]\nsrc_box = [{l}, {top}, 0, {}, {}, 1]",
                    l + w,
                    top + h
                );
            }
            3 => {
                let len = 4 * (1 + r.below(u64::from(bytes) / 4 - 1));
                let (so, d) = (
                    4 * r.below((u64::from(bytes) - len) / 4 + 1),
                    4 * r.below((u64::from(bytes) - len) / 4 + 1),
                );
                let src = if dispatched { "gen" } else { "verts" };
                let _ = writeln!(
                    t,
                    "type = \"copy_buffer_region\"\ndst = \"saved\"\nsrc = \"{src}\"\nsrc_offset = {so}\ndst_offset = {d}\nbytes = {len}"
                );
            }
            4 => {
                let _ = writeln!(
                    t,
                    "type = \"clear_unordered_access\"\nresource = \"words\"\nuint = [{:#x}, 0, 0, 0]",
                    r.next() as u32
                );
            }
            5 => {
                let v = f((r.below(2048) as f32 - 1024.0) / 64.0);
                let _ = writeln!(
                    t,
                    "type = \"clear_unordered_access\"\nresource = \"floats\"\nfloat = [{v}, 0, 0, 0]"
                );
            }
            6 | 7 => {
                // A box of the target to a placed footprint in `staged`, or a box of
                // that footprint to `snap` (D3D12_PLACED_SUBRESOURCE_FOOTPRINT: offset a
                // multiple of 512, row pitch of 256).
                let (w, h) = (1 + r.below(u64::from(size)), 1 + r.below(u64::from(size)));
                let (l, top) = (
                    r.below(u64::from(size) - w + 1),
                    r.below(u64::from(size) - h + 1),
                );
                let (x, y) = (
                    r.below(u64::from(size) - w + 1),
                    r.below(u64::from(size) - h + 1),
                );
                let footprint = format!(
                    "{{ offset = {}, format = \"R8G8B8A8_UNORM\", width = {size}, height = {size}, row_pitch = 256 }}",
                    512 * r.below(2)
                );
                let (dst, src, key) = if what == 6 {
                    ("staged", "rt", "dst_footprint")
                } else {
                    ("snap", "staged", "src_footprint")
                };
                let _ = writeln!(
                    t,
                    "type = \"copy_texture_region\"\ndst = \"{dst}\"\nsrc = \"{src}\"\n{key} = {footprint}\ndst_at = [{x}, {y}, 0]\nsrc_box = [{l}, {top}, 0, {}, {}, 1]",
                    l + w,
                    top + h
                );
            }
            99 => {
                dispatched = true;
                let negative = r.chance(50);
                flip_x = if negative { -1.0 } else { 1.0 };
                let flip = if negative { "0xbf800000" } else { "0x3f800000" };
                let _ = writeln!(
                    t,
                    "type = \"dispatch\"\ncs = {cs}\ngroups = [{}, 1, 1]\nbind = [\n    {{ reg = \"t0\", resource = \"verts\" }},\n    {{ reg = \"u0\", resource = \"gen\" }},\n    {{ reg = \"b0\", u32 = [{LIST_VERTICES}, 100, {flip}] }},\n]",
                    LIST_VERTICES.div_ceil(32)
                );
            }
            _ => {
                let source = if what == 98 { "gen" } else { "verts" };
                let triangles = 1 + r.below(6);
                let start = 3 * r.below(u64::from(LIST_VERTICES) / 3 - triangles + 1);
                let depth = if r.chance(60) {
                    let func = r.pick(&["LESS", "LESS_EQUAL", "GREATER", "ALWAYS"]);
                    let write = r.chance(70);
                    if write {
                        let flip = if source == "gen" { flip_x } else { 1.0 };
                        for v in (start as usize..).step_by(3).take(triangles as usize) {
                            writers.push([0, 1, 2].map(|k| {
                                let w = &words[(v + k) * 9..];
                                let c = |i: usize| f64::from(f32::from_bits(w[i]));
                                [
                                    (c(0) * flip + 1.0) * f64::from(size) / 2.0,
                                    (1.0 - c(1)) * f64::from(size) / 2.0,
                                    c(2),
                                ]
                            }));
                        }
                    }
                    format!(
                        "depth_stencil = {{ resource = \"depth\", depth_func = \"{func}\", depth_write = {write} }}\n"
                    )
                } else {
                    String::new()
                };
                let _ = write!(
                    t,
                    r#"type = "draw"
vs = {vs}
ps = {ps}
vertex_count = {}
start_vertex = {start}
vertex_buffers = [{{ slot = 0, resource = "{source}", stride = 36 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32B32A32_FLOAT" }},
    {{ semantic = "COLOR", format = "R32G32B32A32_FLOAT" }},
    {{ semantic = "TRIANGLE", format = "R32_UINT" }},
]
render_targets = [{{ resource = "rt" }}, {{ resource = "ids" }}]
{depth}rasterizer = {{ cull = "NONE" }}
"#,
                    triangles * 3
                );
            }
        }
    }
    (t, writers, size)
}

/// The largest term of the depth plane of a depth-writing triangle whose bounds (one
/// pixel wider) hold pixel (`x`, `y`), at least 1.0 (the viewport's largest depth): the
/// scale of [`Rule::DepthInterpolation`]'s tolerance, as `plane_terms` computes it for
/// the random draws.
fn depth_scale(writers: &[[[f64; 3]; 3]], size: u32, x: u32, y: u32) -> f32 {
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    let side = f64::from(size);
    writers
        .iter()
        .filter(|t| {
            let (lo_x, hi_x) = t
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v[0]), b.max(v[0])));
            let (lo_y, hi_y) = t
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v[1]), b.max(v[1])));
            px >= lo_x - 1.0 && px <= hi_x + 1.0 && py >= lo_y - 1.0 && py <= hi_y + 1.0
        })
        .map(|[p, q, r]| {
            let (ux, uy, uz) = (q[0] - p[0], q[1] - p[1], q[2] - p[2]);
            let (vx, vy, vz) = (r[0] - p[0], r[1] - p[1], r[2] - p[2]);
            let area = ux * vy - uy * vx;
            if area == 0.0 {
                return 0.0;
            }
            let a = (uz * vy - vz * uy) / area;
            let b = (vz * ux - uz * vx) / area;
            let reach = [p, q, r]
                .iter()
                .fold(side, |m, v| m.max(v[0].abs()).max(v[1].abs()));
            ((a.abs() + b.abs()) * reach) as f32
        })
        .fold(1.0f32, f32::max)
}

/// Random lists ([`random_list_job`]) on both sides, every named resource judged by
/// [`judge`]. `DXLANE_PEER_LIST_CASES` sets how many (default 20);
/// `DXLANE_PEER_LIST_SEED=N` replays one. A failure names its seed and the folder of
/// its job and plan.
#[test]
fn random_lists_match_the_peer() {
    let test = "d3d12_peer::random_lists_match_the_peer";
    let Some(exe) = peer(test) else { return };
    let seeds: Vec<u64> = match std::env::var("DXLANE_PEER_LIST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(seed) => vec![seed],
        None => (1..=list_case_count()).collect(),
    };
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut identical = 0;
    let mut resources = 0;
    for &seed in &seeds {
        let dir = common::scratch()
            .join("d3d12_peer_lists")
            .join(seed.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let job = dir.join("job.toml");
        let (text, writers, size) = random_list_job(seed);
        std::fs::write(&job, text).unwrap();
        let tag = format!("random-list-{seed}");
        let results = match list_on_both(test, exe, &job, &tag) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(why) => panic!("seed {seed} ({}): {why}", job.display()),
        };
        for r in results {
            resources += 1;
            match judge(&r, Some(&|x, y| depth_scale(&writers, size, x, y))) {
                Ok(how) => identical += usize::from(how == "identical"),
                Err(why) => failures.push(format!(
                    "seed {seed} ({}, plan {}): \"{}\": {why}",
                    job.display(),
                    common::scratch().join("d3d12_peer").join(&tag).display(),
                    r.name
                )),
            }
        }
    }
    eprintln!(
        "{} random lists, {resources} resources: {identical} identical, {} within the rules, {} failing; {:.1} s",
        seeds.len(),
        resources - identical - failures.len(),
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pipeline statistics (`D3D12_QUERY_DATA_PIPELINE_STATISTICS`) against the peer, the
/// counters whose D3D12 rule leaves no room for this list compared exactly: two
/// rectangles of two triangles each, non-indexed (so no post-transform cache can share
/// a vertex: every one of the 6 vertices of a draw is read and shaded once, D3D12's
/// `IAVertices` and `VSInvocations`), every primitive inside the viewport (`IAPrimitives`
/// = `CInvocations` = `CPrimitives` = 2: nothing to clip or cull), no geometry,
/// tessellation or compute stage (their five counters 0). The rectangles' edges lie on
/// even pixel coordinates, so every 2×2 quad is covered whole and no helper lane runs:
/// `PSInvocations` is the covered pixel count (A: 8 × 16 = 128; B: 8 × 12 = 96, early
/// depth off since the draw has no depth buffer). Where a counter's rule leaves room —
/// a post-transform cache (`VSInvocations` of indexed draws), helper lanes
/// (`PSInvocations` of partly covered quads), clipping's split primitives
/// (`CPrimitives`, which counts what the clipper outputs and D3D12 leaves to the
/// implementation) — this list gives it none to take. Ten counters agree exactly; the
/// peer's `PSInvocations` is lavapipe's, counted in whole 4 × 4 blocks (below).
#[test]
fn pipeline_statistics_match_the_peer_where_the_rules_fix_them() {
    let test = "d3d12_peer::pipeline_statistics_match_the_peer_where_the_rules_fix_them";
    let Some(exe) = peer(test) else { return };
    let shaders = common::root().join("shaders");
    let prog = |f: &str| format!("{:?}", shaders.join(f).display().to_string());
    let draw = |first: u32| {
        format!(
            r#"
[[command]]
type = "begin_query"
heap = "stats"
index = {q}
query = "PIPELINE_STATISTICS"

[[command]]
type = "draw"
vertex_count = 6
start_vertex = {first}
vs = {}
ps = {}
vertex_buffers = [{{ slot = 0, resource = "verts", stride = 24 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32_FLOAT" }},
    {{ semantic = "COLOR", format = "R32G32B32A32_FLOAT" }},
]
render_targets = [{{ resource = "color" }}]
rasterizer = {{ cull = "NONE" }}

[[command]]
type = "end_query"
heap = "stats"
index = {q}
query = "PIPELINE_STATISTICS"
"#,
            prog("draw_color.vs_5_0.dxbc"),
            prog("draw_color.ps_5_0.dxbc"),
            q = first / 6,
        )
    };
    // A: x in [-1, 0], every row; B: x in [-0.5, 0.5], y in [-1, 0.5].
    let mut text = String::from(
        r#"
[[resource]]
name = "verts"
kind = "raw_buffer"
data = { f32 = [
    -1, -1, 1, 0, 0, 1,   -1, 1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,
    -1, -1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,    0, -1, 1, 0, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   -0.5, 0.5, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,    0.5, -1, 0, 1, 0, 1,
] }

[[resource]]
name = "color"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[[resource]]
name = "results"
kind = "raw_buffer"
size = 176

[[query_heap]]
name = "stats"
type = "PIPELINE_STATISTICS"
count = 2

[[command]]
type = "clear_render_target"
resource = "color"
color = [0, 0, 0, 1]
"#,
    );
    text += &draw(0);
    text += &draw(6);
    text += "\n[[command]]\ntype = \"resolve_query_data\"\nheap = \"stats\"\nquery = \"PIPELINE_STATISTICS\"\nfirst = 0\ncount = 2\nbuffer = \"results\"\noffset = 0\n";
    let dir = common::scratch().join("d3d12_peer_statistics");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("statistics.toml");
    std::fs::write(&job, text).unwrap();
    let results = match list_on_both(test, exe, &job, "list-statistics") {
        Ok(Some(r)) => r,
        Ok(None) => return,
        Err(why) => panic!("not sent to the peer: {why}"),
    };
    // D3D12_QUERY_DATA_PIPELINE_STATISTICS's order.
    const NAMES: [&str; 11] = [
        "IAVertices",
        "IAPrimitives",
        "VSInvocations",
        "GSInvocations",
        "GSPrimitives",
        "CInvocations",
        "CPrimitives",
        "PSInvocations",
        "HSInvocations",
        "DSInvocations",
        "CSInvocations",
    ];
    let counters = |b: &[u8]| -> Vec<u64> {
        b[..176]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let mut failures = Vec::new();
    for r in &results {
        if r.name != "results" {
            if let Err(why) = judge(r, None) {
                failures.push(format!("\"{}\": {why}", r.name));
            }
            continue;
        }
        let (ours, theirs) = (counters(&r.ours), counters(&r.theirs));
        // Hand-derived from the rules above.
        let expected: [[u64; 11]; 2] = [
            [6, 2, 6, 0, 0, 2, 2, 128, 0, 0, 0],
            [6, 2, 6, 0, 0, 2, 2, 96, 0, 0, 0],
        ];
        assert_eq!(ours, expected.concat(), "dxlane's counters");
        for (q, (a, b)) in ours.chunks(11).zip(theirs.chunks(11)).enumerate() {
            for (k, name) in NAMES.iter().enumerate() {
                // lavapipe counts fragment-shader invocations in whole 4 × 4 blocks: each
                // triangle counts all 16 pixels of every block it partly covers, so the
                // blocks along the rectangle's diagonal count twice (seen: 192 and 160
                // for 128 and 96; Vulkan leaves the count to the implementation). The
                // peer's count is then dxlane's plus whole blocks.
                if *name == "PSInvocations" {
                    if b[k] < a[k] || (b[k] - a[k]) % 16 != 0 {
                        failures.push(format!(
                            "query {q} {name}: dxlane {}, peer {}: not dxlane's plus whole 4 × 4 blocks",
                            a[k], b[k]
                        ));
                    }
                    continue;
                }
                if a[k] != b[k] {
                    failures.push(format!("query {q} {name}: dxlane {}, peer {}", a[k], b[k]));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
