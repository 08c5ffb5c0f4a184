//! The IR's text form, read back: used by tests to write shaders by hand.
//!
//! The grammar is what [`Shader`]'s `Display` prints (see `print.rs`): a header of
//! `key value…` lines, then `blockN:` labels each followed by instructions (a mnemonic
//! and comma-separated operands) and one terminator. `;` starts a comment.

use super::ids::{BlockId, Reg};
use super::inst::Inst;
use super::io::{
    DomainState, GeometryState, GsInput, GsOutput, HullState, Interp, IoElement, MeshState,
    MeshTopology, NO_REGISTER, RayState, SysValue, TessDomain, TessOutput, TessPartitioning,
    parse_mask,
};
use super::operand::Operand;
use super::shader::{
    Block, ComponentType, ConstArray, DenormMode, LocalArray, ResourceClass, ResourceKind,
    ResourceRange, Shader, SourceLoc, Stage, Terminator, WaveSizeReq,
};

/// A parse error with its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A token stream over one line of the text form.
pub struct Tokens<'a> {
    words: Vec<&'a str>,
    pos: usize,
    line: usize,
}

impl<'a> Tokens<'a> {
    /// Splits a line into words and punctuation (`[ ] ( ) , : =`); quoted strings stay whole.
    pub fn new(text: &'a str, line: usize) -> Self {
        let mut words = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b';' {
                break;
            } else if c.is_ascii_whitespace() {
                i += 1;
            } else if b"[](),:=".contains(&c) {
                words.push(&text[i..i + 1]);
                i += 1;
            } else if c == b'"' {
                let end = text[i + 1..]
                    .find('"')
                    .map(|e| i + 2 + e)
                    .unwrap_or(text.len());
                words.push(&text[i..end]);
                i = end;
            } else {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !b"[](),:=;\"".contains(&bytes[i])
                {
                    i += 1;
                }
                words.push(&text[start..i]);
            }
        }
        Tokens {
            words,
            pos: 0,
            line,
        }
    }

    /// An error at this line.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            message: message.into(),
        }
    }

    /// The next word.
    pub fn word(&mut self) -> Result<&'a str, ParseError> {
        let w = self
            .words
            .get(self.pos)
            .copied()
            .ok_or_else(|| self.error("unexpected end of line"))?;
        self.pos += 1;
        Ok(w)
    }

    /// The next word without taking it.
    pub fn peek(&self) -> Option<&'a str> {
        self.words.get(self.pos).copied()
    }

    /// Whether every word was taken.
    pub fn at_end(&self) -> bool {
        self.pos >= self.words.len()
    }

    /// Takes the next word, which must be `w`.
    pub fn expect(&mut self, w: &str) -> Result<(), ParseError> {
        let got = self.word()?;
        if got == w {
            Ok(())
        } else {
            Err(self.error(format!("expected `{w}`, found `{got}`")))
        }
    }

    /// Parses `<prefix><number>` (`r12`, `block3`).
    pub fn indexed(&self, w: &str, prefix: &str) -> Result<u32, ParseError> {
        w.strip_prefix(prefix)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| self.error(format!("expected `{prefix}N`, found `{w}`")))
    }

    /// Parses a number: decimal, `0x` hex, or a float written with a `.`/exponent
    /// (its bits), or `-` prefixed.
    pub fn number(&mut self) -> Result<u32, ParseError> {
        let w = self.word()?;
        parse_number(w).ok_or_else(|| self.error(format!("expected a number, found `{w}`")))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let w = self.word()?;
        w.strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .map(str::to_string)
            .ok_or_else(|| self.error(format!("expected a quoted string, found `{w}`")))
    }

    fn end(&self) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(w) => Err(self.error(format!("unexpected `{w}`"))),
        }
    }
}

fn parse_number(w: &str) -> Option<u32> {
    if let Some(h) = w.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).ok();
    }
    if w.contains(['.', 'e', 'E']) || w == "inf" || w == "-inf" || w == "nan" {
        return w.parse::<f32>().ok().map(f32::to_bits);
    }
    if let Some(n) = w.strip_prefix('-') {
        return n.parse::<u32>().ok().map(|v| v.wrapping_neg());
    }
    w.parse().ok()
}

fn parse_kind(t: &mut Tokens<'_>) -> Result<ResourceKind, ParseError> {
    let w = t.word()?;
    Ok(match w {
        "raw_buffer" => ResourceKind::RawBuffer,
        "structured_buffer" => {
            t.expect("(")?;
            t.expect("stride")?;
            let stride = t.number()?;
            t.expect(")")?;
            ResourceKind::StructuredBuffer { stride }
        }
        "cbuffer" => {
            t.expect("(")?;
            t.expect("size")?;
            let size = t.number()?;
            t.expect(")")?;
            ResourceKind::ConstantBuffer { size }
        }
        "sampler" => {
            if t.peek() == Some("(") {
                t.expect("(")?;
                t.expect("comparison")?;
                t.expect(")")?;
                ResourceKind::Sampler { comparison: true }
            } else {
                ResourceKind::Sampler { comparison: false }
            }
        }
        "typed_buffer" => ResourceKind::TypedBuffer,
        "texture1d" => ResourceKind::Texture1D,
        "texture1darray" => ResourceKind::Texture1DArray,
        "texture2d" => ResourceKind::Texture2D,
        "texture2darray" => ResourceKind::Texture2DArray,
        "texture2dms" => ResourceKind::Texture2DMS,
        "texture2dmsarray" => ResourceKind::Texture2DMSArray,
        "texture3d" => ResourceKind::Texture3D,
        "texturecube" => ResourceKind::TextureCube,
        "texturecubearray" => ResourceKind::TextureCubeArray,
        "acceleration_structure" => ResourceKind::AccelerationStructure,
        "feedback_texture2d" | "feedback_texture2darray" => {
            t.expect("(")?;
            let mip_region_used = match t.word()? {
                "min_mip" => false,
                "mip_region_used" => true,
                f => return Err(t.error(format!("unknown sampler feedback type `{f}`"))),
            };
            t.expect(")")?;
            if w == "feedback_texture2d" {
                ResourceKind::FeedbackTexture2D { mip_region_used }
            } else {
                ResourceKind::FeedbackTexture2DArray { mip_region_used }
            }
        }
        _ => return Err(t.error(format!("unknown resource kind `{w}`"))),
    })
}

fn parse_terminator(mnemonic: &str, t: &mut Tokens<'_>) -> Result<Option<Terminator>, ParseError> {
    let block = |t: &mut Tokens<'_>| -> Result<BlockId, ParseError> {
        let w = t.word()?;
        t.indexed(w, BlockId::PREFIX).map(BlockId)
    };
    Ok(Some(match mnemonic {
        "jump" => Terminator::Jump(block(t)?),
        "branch" => {
            let cond = Reg::parse(t)?;
            t.expect(",")?;
            let then_ = block(t)?;
            t.expect(",")?;
            let else_ = block(t)?;
            Terminator::Branch { cond, then_, else_ }
        }
        "switch" => {
            let sel = Reg::parse(t)?;
            t.expect(",")?;
            t.expect("[")?;
            let mut cases = Vec::new();
            while t.peek() != Some("]") {
                let v = t.number()?;
                t.expect(":")?;
                cases.push((v, block(t)?));
                if t.peek() == Some(",") {
                    t.word()?;
                }
            }
            t.expect("]")?;
            t.expect(",")?;
            let default = block(t)?;
            Terminator::Switch {
                sel,
                cases,
                default,
            }
        }
        "return" => Terminator::Return,
        "unreachable" => Terminator::Unreachable,
        _ => return Ok(None),
    }))
}

/// `"TEXCOORD" 1 sv none reg 1 rows 1 mask xy float interp linear slot 4` (see
/// `IoElement`'s `Display`).
fn parse_io(t: &mut Tokens<'_>) -> Result<IoElement, ParseError> {
    let semantic = t.string()?;
    let semantic_index = t.number()?;
    t.expect("sv")?;
    let sv = SysValue::parse(t)?;
    t.expect("reg")?;
    let register = if t.peek() == Some("none") {
        t.word()?;
        NO_REGISTER
    } else {
        t.number()?
    };
    t.expect("rows")?;
    let rows = t.number()?;
    t.expect("mask")?;
    let m = t.word()?;
    let mask = parse_mask(m).ok_or_else(|| t.error(format!("bad component mask `{m}`")))?;
    let component = ComponentType::parse(t)?;
    t.expect("interp")?;
    let interp = Interp::parse(t)?;
    t.expect("slot")?;
    let slot = t.number()?;
    Ok(IoElement {
        semantic,
        semantic_index,
        sv,
        register,
        rows,
        mask,
        component,
        interp,
        slot,
    })
}

/// The rest of a `hull …` header line (see the printer for its order).
fn parse_hull(t: &mut Tokens<'_>) -> Result<HullState, ParseError> {
    t.expect("domain")?;
    let domain = TessDomain::parse(t)?;
    t.expect("partitioning")?;
    let partitioning = TessPartitioning::parse(t)?;
    t.expect("output")?;
    let output = TessOutput::parse(t)?;
    let n = |t: &mut Tokens<'_>, key: &str| -> Result<u32, ParseError> {
        t.expect(key)?;
        t.number()
    };
    let input_points = n(t, "input_points")?;
    let output_points = n(t, "output_points")?;
    t.expect("max_factor")?;
    let w = t.word()?;
    let max_factor: f32 = w
        .parse()
        .map_err(|_| t.error(format!("`{w}` is not a number")))?;
    let point_words = n(t, "point_words")?;
    let output_point_words = n(t, "output_point_words")?;
    let ocp_word = n(t, "ocp_word")?;
    let vpc_word = n(t, "vpc_word")?;
    let phase_word = n(t, "phase_word")?;
    let join = n(t, "join")? != 0;
    let pass_through = n(t, "pass_through")? != 0;
    t.expect("factor_words")?;
    // Six words joined by commas, which the tokenizer gives as words of their own.
    let mut factor_words = [NO_REGISTER; 6];
    let mut parts: Vec<&str> = vec![t.word()?];
    while t.peek() == Some(",") {
        t.word()?;
        parts.push(t.word()?);
    }
    if parts.len() != 6 {
        return Err(t.error("factor_words lists six words"));
    }
    for (slot, p) in factor_words.iter_mut().zip(parts) {
        if p != "none" {
            *slot = p
                .parse()
                .map_err(|_| t.error(format!("`{p}` is not a word number")))?;
        }
    }
    Ok(HullState {
        domain,
        partitioning,
        output,
        input_points,
        output_points,
        max_factor,
        point_words,
        output_point_words,
        ocp_word,
        vpc_word,
        phase_word,
        join,
        pass_through,
        factor_words,
    })
}

/// Parses a shader from its text form. The result is not validated; call
/// [`crate::ir::validate`](fn@crate::ir::validate).
pub fn parse_shader(text: &str) -> Result<Shader, ParseError> {
    let mut shader = Shader::new(Stage::Compute);
    shader.blocks.clear();
    shader.thread_group = [1, 1, 1];
    let mut open: Option<(u32, u32)> = None; // (block index, first inst)
    let mut max_reg: u32 = 0;
    for (n, line) in text.lines().enumerate() {
        let mut t = Tokens::new(line, n + 1);
        let Some(first) = t.peek() else { continue };
        if let Some(num) = first.strip_prefix(BlockId::PREFIX)
            && t.words.get(1) == Some(&":")
        {
            let id: u32 = num
                .parse()
                .map_err(|_| t.error(format!("bad block label `{first}`")))?;
            if open.is_some() {
                return Err(t.error("block label before the previous block's terminator"));
            }
            if id as usize != shader.blocks.len() {
                return Err(t.error(format!(
                    "expected block{}, found {first}",
                    shader.blocks.len()
                )));
            }
            open = Some((id, shader.insts.len() as u32));
            continue;
        }
        let w = t.word()?;
        if let Some((_, start)) = open {
            if let Some(term) = parse_terminator(w, &mut t)? {
                t.end()?;
                if let Some(r) = term.reg() {
                    max_reg = max_reg.max(r.0.saturating_add(1));
                }
                shader.blocks.push(Block {
                    start,
                    end: shader.insts.len() as u32,
                    term,
                    term_loc: SourceLoc::None,
                });
                open = None;
                continue;
            }
            let inst = Inst::parse_operands(w, &mut t)?;
            t.end()?;
            inst.visit_regs(&mut |role, r| {
                let top = if role.is_wide() {
                    r.0.saturating_add(2)
                } else {
                    r.0.saturating_add(1)
                };
                max_reg = max_reg.max(top);
            });
            shader.insts.push(inst);
            shader.locs.push(SourceLoc::None);
            continue;
        }
        match w {
            "shader" => {
                let stage = t.word()?;
                shader.stage = Stage::ALL
                    .iter()
                    .copied()
                    .find(|s| s.word() == stage)
                    .ok_or_else(|| t.error(format!("unknown stage `{stage}`")))?;
            }
            "entry" => shader.entry = t.string()?,
            "group" => {
                t.expect("[")?;
                for a in &mut shader.thread_group {
                    *a = t.number()?;
                }
                t.expect("]")?;
            }
            "wave_size" => {
                let min = t.number()?;
                let max = t.number()?;
                let preferred = t.number()?;
                shader.wave_size = Some(WaveSizeReq {
                    min,
                    max,
                    preferred,
                });
            }
            "fp32" => shader.fp32_denorm = DenormMode::parse(&mut t)?,
            "regs" => shader.num_regs = t.number()?,
            "const" => {
                let r = Reg::parse(&mut t)?;
                t.expect("=")?;
                let v = t.number()?;
                if r.index() != shader.consts.len() {
                    return Err(t.error(format!(
                        "constants must be numbered in order: expected r{}",
                        shader.consts.len()
                    )));
                }
                shader.consts.push(v);
            }
            "local" => {
                let w = t.word()?;
                let id = t.indexed(w, "x")?;
                if id as usize != shader.locals.len() {
                    return Err(t.error("locals must be numbered in order"));
                }
                let bytes = t.number()?;
                let name = if t.at_end() {
                    w.to_string()
                } else {
                    t.string()?
                };
                shader.locals.push(LocalArray { bytes, name });
            }
            "constarray" => {
                let w = t.word()?;
                let id = t.indexed(w, "icb")?;
                if id as usize != shader.const_arrays.len() {
                    return Err(t.error("constant arrays must be numbered in order"));
                }
                t.expect("[")?;
                let mut words = Vec::new();
                while t.peek() != Some("]") {
                    words.push(t.number()?);
                }
                t.expect("]")?;
                shader.const_arrays.push(ConstArray {
                    words,
                    name: w.to_string(),
                });
            }
            "groupshared" => shader.groupshared_bytes = t.number()?,
            "heap" => match t.word()? {
                "resource" => shader.uses_resource_heap = true,
                "sampler" => shader.uses_sampler_heap = true,
                h => return Err(t.error(format!("unknown heap `{h}`"))),
            },
            "resource" => {
                // resource rangeN = <class> space S lower L count C <kind> <component> [flags…] "name"
                let w = t.word()?;
                let id = t.indexed(w, "range")?;
                if id as usize != shader.resources.len() {
                    return Err(t.error("resource ranges must be numbered in order"));
                }
                t.expect("=")?;
                let class = ResourceClass::parse(&mut t)?;
                t.expect("space")?;
                let space = t.number()?;
                t.expect("lower")?;
                let lower = t.number()?;
                t.expect("count")?;
                let count = match t.peek() {
                    Some("unbounded") => {
                        t.word()?;
                        ResourceRange::UNBOUNDED
                    }
                    _ => t.number()?,
                };
                let kind = parse_kind(&mut t)?;
                let component = ComponentType::parse(&mut t)?;
                let mut r = ResourceRange {
                    class,
                    space,
                    lower,
                    count,
                    kind,
                    component,
                    name: String::new(),
                    counter: false,
                    globally_coherent: false,
                    rasterizer_ordered: false,
                };
                while let Some(w) = t.peek() {
                    match w {
                        "counter" => r.counter = true,
                        "globallycoherent" => r.globally_coherent = true,
                        "rov" => r.rasterizer_ordered = true,
                        _ => break,
                    }
                    t.word()?;
                }
                if !t.at_end() {
                    r.name = t.string()?;
                }
                shader.resources.push(r);
            }
            "io_words" => {
                t.expect("in")?;
                shader.input_words = t.number()?;
                t.expect("out")?;
                shader.output_words = t.number()?;
            }
            "input" => shader.inputs.push(parse_io(&mut t)?),
            "output" => shader.outputs.push(parse_io(&mut t)?),
            "early_depth_stencil" => shader.early_depth_stencil = true,
            "wave_ops_include_helpers" => shader.wave_ops_include_helpers = true,
            "hull" => shader.hull = Some(parse_hull(&mut t)?),
            "domain" => {
                t.expect("domain")?;
                let domain = TessDomain::parse(&mut t)?;
                t.expect("input_points")?;
                let input_points = t.number()?;
                t.expect("point_words")?;
                let point_words = t.number()?;
                t.expect("patch_word")?;
                let patch_word = t.number()?;
                t.expect("location_word")?;
                let location_word = t.number()?;
                shader.domain = Some(DomainState {
                    domain,
                    input_points,
                    point_words,
                    patch_word,
                    location_word,
                });
            }
            "geometry" => {
                t.expect("input")?;
                let input = GsInput::parse(&mut t)?;
                t.expect("output")?;
                let output = GsOutput::parse(&mut t)?;
                t.expect("max_vertices")?;
                let max_vertices = t.number()?;
                t.expect("instances")?;
                let instances = t.number()?;
                t.expect("vertex_words")?;
                let vertex_words = t.number()?;
                shader.geometry = Some(GeometryState {
                    input,
                    output,
                    max_vertices,
                    instances,
                    vertex_words,
                });
            }
            "primitive_output" => shader.primitive_outputs.push(parse_io(&mut t)?),
            "stream_output" => {
                let stream = t.number()?;
                shader.stream_outputs.push((stream, parse_io(&mut t)?));
            }
            "mesh" => {
                t.expect("topology")?;
                let topology = MeshTopology::parse(&mut t)?;
                t.expect("max_vertices")?;
                let max_vertices = t.number()?;
                t.expect("max_primitives")?;
                let max_primitives = t.number()?;
                t.expect("payload_bytes")?;
                let payload_bytes = t.number()?;
                t.expect("primitive_words")?;
                let primitive_words = t.number()?;
                shader.mesh = Some(MeshState {
                    topology,
                    max_vertices,
                    max_primitives,
                    payload_bytes,
                    primitive_words,
                });
            }
            "ray" => {
                let mut r = RayState {
                    payload: None,
                    attributes: None,
                };
                while let Some(which) = t.peek() {
                    t.word()?;
                    let x = crate::ir::LocalId::parse(&mut t)?;
                    t.expect("bytes")?;
                    let bytes = t.number()?;
                    match which {
                        "payload" => r.payload = Some((x, bytes)),
                        "attributes" => r.attributes = Some((x, bytes)),
                        other => {
                            return Err(t.error(format!(
                                "`{other}` where `payload` or `attributes` belongs"
                            )));
                        }
                    }
                }
                shader.ray = Some(r);
            }
            _ => return Err(t.error(format!("unknown header line `{w}`"))),
        }
        t.end()?;
    }
    if open.is_some() {
        return Err(ParseError {
            line: text.lines().count(),
            message: "last block has no terminator".into(),
        });
    }
    if shader.blocks.is_empty() {
        return Err(ParseError {
            line: 1,
            message: "no blocks".into(),
        });
    }
    shader.num_regs = shader.num_regs.max(max_reg).max(shader.consts.len() as u32);
    Ok(shader)
}
