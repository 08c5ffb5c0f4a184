//! The IR's text form: `Display` for [`Shader`], read back by `parse.rs`.
//!
//! ```text
//! shader compute
//! entry "main"
//! group [8 1 1]
//! fp32 ftz
//! regs 6
//! const r0 = 0x3                      ; 3
//! resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint "out"
//! block0:
//!     sysval thread_id, 0, r1
//!     imul r2, r1, r0
//!     return
//! ```

use std::fmt;

use super::ids::{BlockId, LocalId, Reg};
use super::io::NO_REGISTER;
use super::shader::{ResourceRange, Shader, SourceLoc, Terminator};

impl fmt::Display for Terminator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Terminator::Jump(b) => write!(f, "jump {b}"),
            Terminator::Branch { cond, then_, else_ } => {
                write!(f, "branch {cond}, {then_}, {else_}")
            }
            Terminator::Switch {
                sel,
                cases,
                default,
            } => {
                write!(f, "switch {sel}, [")?;
                for (i, (v, b)) in cases.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}: {b}")?;
                }
                write!(f, "], {default}")
            }
            Terminator::Return => f.write_str("return"),
            Terminator::Unreachable => f.write_str("unreachable"),
        }
    }
}

fn write_range(f: &mut fmt::Formatter<'_>, i: usize, r: &ResourceRange) -> fmt::Result {
    write!(
        f,
        "resource range{i} = {} space {} lower {} count ",
        r.class, r.space, r.lower
    )?;
    if r.count == ResourceRange::UNBOUNDED {
        f.write_str("unbounded")?;
    } else {
        write!(f, "{}", r.count)?;
    }
    write!(f, " {} {}", r.kind, r.component)?;
    if r.counter {
        f.write_str(" counter")?;
    }
    if r.globally_coherent {
        f.write_str(" globallycoherent")?;
    }
    if r.rasterizer_ordered {
        f.write_str(" rov")?;
    }
    if !r.name.is_empty() {
        write!(f, " {:?}", r.name)?;
    }
    writeln!(f, "    ; {}", r.binding_name())
}

/// Prints a shader with each instruction's source location as a trailing comment.
pub struct WithLocs<'a>(pub &'a Shader);

impl fmt::Display for WithLocs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(self.0, f, true)
    }
}

impl fmt::Display for Shader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(self, f, false)
    }
}

fn print(s: &Shader, f: &mut fmt::Formatter<'_>, locs: bool) -> fmt::Result {
    writeln!(f, "shader {}", s.stage)?;
    writeln!(f, "entry {:?}", s.entry)?;
    let [x, y, z] = s.thread_group;
    writeln!(f, "group [{x} {y} {z}]")?;
    if let Some(w) = s.wave_size {
        writeln!(f, "wave_size {} {} {}", w.min, w.max, w.preferred)?;
    }
    writeln!(f, "fp32 {}", s.fp32_denorm)?;
    writeln!(f, "regs {}", s.num_regs)?;
    for (i, v) in s.consts.iter().enumerate() {
        let fl = f32::from_bits(*v);
        if fl.is_finite() && fl != 0.0 && fl.abs() >= 1e-6 && fl.abs() < 1e9 {
            writeln!(
                f,
                "const {} = 0x{v:x}    ; {} {fl:?}",
                Reg(i as u32),
                *v as i32
            )?;
        } else {
            writeln!(f, "const {} = 0x{v:x}    ; {}", Reg(i as u32), *v as i32)?;
        }
    }
    for (i, x) in s.locals.iter().enumerate() {
        writeln!(f, "local {} {} {:?}", LocalId(i as u32), x.bytes, x.name)?;
    }
    for (i, c) in s.const_arrays.iter().enumerate() {
        write!(f, "constarray icb{i} [")?;
        for (j, w) in c.words.iter().enumerate() {
            if j > 0 {
                f.write_str(" ")?;
            }
            write!(f, "0x{w:x}")?;
        }
        writeln!(f, "]")?;
    }
    if s.groupshared_bytes > 0 {
        writeln!(f, "groupshared {}", s.groupshared_bytes)?;
    }
    if s.uses_resource_heap {
        writeln!(f, "heap resource")?;
    }
    if s.uses_sampler_heap {
        writeln!(f, "heap sampler")?;
    }
    for (i, r) in s.resources.iter().enumerate() {
        write_range(f, i, r)?;
    }
    if s.input_words > 0 || s.output_words > 0 {
        writeln!(f, "io_words in {} out {}", s.input_words, s.output_words)?;
    }
    for e in &s.inputs {
        writeln!(f, "input {e}")?;
    }
    for e in &s.outputs {
        writeln!(f, "output {e}")?;
    }
    if s.early_depth_stencil {
        writeln!(f, "early_depth_stencil")?;
    }
    if s.wave_ops_include_helpers {
        writeln!(f, "wave_ops_include_helpers")?;
    }
    if let Some(g) = s.geometry {
        writeln!(
            f,
            "geometry input {} output {} max_vertices {} instances {} vertex_words {}",
            g.input, g.output, g.max_vertices, g.instances, g.vertex_words
        )?;
    }
    if let Some(m) = s.mesh {
        writeln!(
            f,
            "mesh topology {} max_vertices {} max_primitives {} payload_bytes {} primitive_words {}",
            m.topology, m.max_vertices, m.max_primitives, m.payload_bytes, m.primitive_words
        )?;
    }
    if let Some(r) = s.ray {
        f.write_str("ray")?;
        if let Some((x, bytes)) = r.payload {
            write!(f, " payload {x} bytes {bytes}")?;
        }
        if let Some((x, bytes)) = r.attributes {
            write!(f, " attributes {x} bytes {bytes}")?;
        }
        writeln!(f)?;
    }
    for e in &s.primitive_outputs {
        writeln!(f, "primitive_output {e}")?;
    }
    for (stream, e) in &s.stream_outputs {
        writeln!(f, "stream_output {stream} {e}")?;
    }
    if let Some(h) = s.hull {
        writeln!(
            f,
            "hull domain {} partitioning {} output {} input_points {} output_points {} max_factor {} point_words {} output_point_words {} ocp_word {} vpc_word {} phase_word {} join {} pass_through {} factor_words {}",
            h.domain,
            h.partitioning,
            h.output,
            h.input_points,
            h.output_points,
            h.max_factor,
            h.point_words,
            h.output_point_words,
            h.ocp_word,
            h.vpc_word,
            h.phase_word,
            u8::from(h.join),
            u8::from(h.pass_through),
            h.factor_words
                .iter()
                .map(|w| if *w == NO_REGISTER {
                    "none".to_string()
                } else {
                    w.to_string()
                })
                .collect::<Vec<_>>()
                .join(",")
        )?;
    }
    if let Some(d) = s.domain {
        writeln!(
            f,
            "domain domain {} input_points {} point_words {} patch_word {} location_word {}",
            d.domain, d.input_points, d.point_words, d.patch_word, d.location_word
        )?;
    }
    for (b, block) in s.blocks.iter().enumerate() {
        writeln!(f, "{}:", BlockId(b as u32))?;
        for i in block.start..block.end {
            let inst = &s.insts[i as usize];
            match (locs, s.locs.get(i as usize)) {
                (true, Some(loc)) if *loc != SourceLoc::None => {
                    writeln!(f, "    {inst}    ; {loc}")?
                }
                _ => writeln!(f, "    {inst}")?,
            }
        }
        match (locs, block.term_loc) {
            (true, loc) if loc != SourceLoc::None => writeln!(f, "    {}    ; {loc}", block.term)?,
            _ => writeln!(f, "    {}", block.term)?,
        }
    }
    Ok(())
}
