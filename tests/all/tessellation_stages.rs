//! The hull and domain stages: DXBC hull programs' phases run through `pipeline::hs`
//! (control-point phase, fork instances, pass-through), draws through hull program,
//! tessellator and domain program, patch culling, and bad input refused by name.

use dxlane::exec::{DescriptorTable, Limits, Profile, StageProgram};
use dxlane::ir::Shader;
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::hs::{self, HullJob, HullOutputs};
use dxlane::pipeline::vs::VertexOutputs;

use super::common;
use super::draw::run_text;

/// The lowered program of a corpus or `shaders/` file by its display name.
fn program(name: &str) -> Shader {
    let path = common::dxbc_programs()
        .into_iter()
        .find(|p| common::display_name(p) == name)
        .unwrap_or_else(|| panic!("{name} is missing"));
    let bytes = std::fs::read(&path).unwrap();
    lower::load(&bytes, &LoadOptions::default()).unwrap().shader
}

/// Runs hull program `s` over `patches` patches of 3 control points: vertex `v`'s word
/// `k` (of `words`) is the float `10·k + v`.
fn run_hull(s: &Shader, patches: u32, words: usize) -> (HullOutputs, VertexOutputs) {
    let table = DescriptorTable::new(s, &[], &[], &[]).unwrap();
    let p = StageProgram::new(s, table, Profile::default(), Limits::default(), 8).unwrap();
    let n = patches * 3;
    let vertices = VertexOutputs {
        words: (0..n)
            .flat_map(|v| (0..words).map(move |k| (10.0 * k as f32 + v as f32).to_bits()))
            .collect(),
        stride: words,
    };
    let points: Vec<u32> = (0..n).collect();
    let ids: Vec<u32> = (0..patches).collect();
    let sources: Vec<Option<u32>> = (0..words as u32).map(Some).collect();
    let job = HullJob {
        points: &points,
        ids: &ids,
        vertices: &vertices,
        sources: &sources,
    };
    let mut out = HullOutputs::default();
    hs::shade(&p, &job, &mut out, &|_| Ok(())).unwrap();
    (out, vertices)
}

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// D3D11.3 §10 "Hull Shader Stage": the control-point phase runs once per output control
/// point with `SV_OutputControlPointID` (here reading `v[vOutputControlPointID][0]`, a
/// control point chosen at run time); a fork phase of `dcl_hs_fork_phase_instance_count
/// 3` runs three instances with `vForkInstanceID` 0, 1, 2 (here each writes
/// `icb[i].y` to its own edge factor); the other fork phases read the input control
/// points and `SV_PrimitiveID`.
#[test]
fn hull_phases_control_points_and_fork_instances() {
    let s = program("dxbc-reader/hull_phases.hs.dxbc");
    let h = s.hull.expect("hull state");
    assert_eq!((h.input_points, h.output_points), (3, 3));
    assert!(!h.pass_through && !h.join);
    let (out, _) = run_hull(&s, 2, 4);
    for p in 0..2u32 {
        // o0 = (id, id / 2, 0.25, 0) + v[id][0], v = 3p + id.
        for k in 0..3u32 {
            let v = (3 * p + k) as f32;
            let cp = 3 * p + k;
            let got: Vec<f32> = (0..4).map(|c| f(out.points.word(cp, c))).collect();
            assert_eq!(
                got,
                vec![k as f32 + v, k as f32 * 0.5 + 10.0 + v, 20.25 + v, 30.0 + v],
                "patch {p}, control point {k}"
            );
        }
        let (edges, inside) = hs::factors(&h, &out, p);
        assert_eq!(
            edges,
            [2.0, 3.0, 4.0, 0.0],
            "fork instances 0, 1, 2: icb[i].y"
        );
        assert_eq!(inside, [5.0, 0.0]);
        // o4.x = vicp[2][0].x + vicp[0][0].x + vPrim; o4.w from the w components.
        let base = (3 * p) as f32;
        assert_eq!(f(out.constants.word(p, 16)), 2.0 * base + 2.0 + p as f32);
        assert_eq!(f(out.constants.word(p, 19)), 2.0 * (30.0 + base) + 2.0);
    }
}

/// A hull program without a control-point phase passes its input control points
/// through (output control point k is input control point k), and its fork phases run.
#[test]
fn hull_without_control_point_phase_passes_control_points_through() {
    let s = program("dxbc-reader/min16_patch.hs.dxbc");
    let h = s.hull.expect("hull state");
    assert!(h.pass_through);
    let words = h.point_words as usize;
    assert_eq!(h.output_point_words as usize, words);
    let (out, vertices) = run_hull(&s, 2, words);
    assert_eq!(out.points.words, vertices.words);
    let (edges, inside) = hs::factors(&h, &out, 1);
    assert_eq!((edges, inside), ([2.0, 2.0, 2.0, 0.0], [2.0, 0.0]));
    // o4 = (vicp[0][1].xyz, 1): control point 0 of patch 1 is vertex 3.
    let o4: Vec<f32> = (16..20).map(|w| f(out.constants.word(1, w))).collect();
    assert_eq!(o4, vec![43.0, 53.0, 63.0, 1.0]);
}

/// Every hull and domain program of the corpora and `shaders/` lowers and validates.
#[test]
fn every_hull_and_domain_program_lowers() {
    let (mut hulls, mut domains) = (0, 0);
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        let kind = dxlane::dxbc::Program::from_bytes(&bytes)
            .unwrap()
            .version
            .kind;
        if !matches!(
            kind,
            dxlane::container::ProgramKind::Hull | dxlane::container::ProgramKind::Domain
        ) {
            continue;
        }
        let s = lower::load(&bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .shader;
        dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
        if s.hull.is_some() {
            hulls += 1;
        } else {
            assert!(s.domain.is_some(), "{name}: no domain state");
            domains += 1;
        }
    }
    assert!(hulls >= 7 && domains >= 6, "{hulls} hull, {domains} domain");
}

fn example() -> String {
    std::fs::read_to_string(common::root().join("examples/tessellation.toml")).unwrap()
}

fn err(name: &str, t: &str) -> String {
    match run_text(name, t, 1) {
        Ok(_) => panic!("{name}: drew"),
        Err(e) => e.to_string(),
    }
}

/// Bad input, each an error naming what is wrong and where: a hull program without a
/// domain program and the other way round, a topology that is not a patch list (or a
/// patch list without a hull program), a patch list of another size than the hull
/// program's input control points (D3D12 refuses all of these), a domain program of
/// another domain than the hull program's.
#[test]
fn tessellation_bad_input_is_refused_by_name() {
    let text = example();
    let ds_line = "ds = \"../shaders/tessellation_patch.ds_5_0.dxbc\"\n";
    let hs_line = "hs = \"../shaders/tessellation_patch.hs_5_0.dxbc\"\n";
    let e = err("tess-no-ds", &text.replace(ds_line, ""));
    assert!(
        e.contains("[program]") && e.contains("`hs` without `ds`"),
        "{e}"
    );
    let e = err("tess-no-hs", &text.replace(hs_line, ""));
    assert!(
        e.contains("[program]") && e.contains("`ds` without `hs`"),
        "{e}"
    );
    let e = err(
        "tess-topology",
        &text.replace("\"4_control_point_patchlist\"", "\"triangle_list\""),
    );
    assert!(
        e.contains("4_control_point_patchlist, not triangle_list"),
        "{e}"
    );
    let e = err(
        "tess-count",
        &text.replace(
            "\"4_control_point_patchlist\"",
            "\"3_control_point_patchlist\"",
        ),
    );
    assert!(
        e.contains("patches of 4 control points") && e.contains("not 3_control_point_patchlist"),
        "{e}"
    );
    let e = err(
        "tess-no-stages",
        &text.replace(ds_line, "").replace(hs_line, ""),
    );
    assert!(
        e.contains("makes patches, which only a hull program reads"),
        "{e}"
    );
    // The tri domain program reads a constant buffer: bind one, so that the domains
    // are what is refused.
    let e = err(
        "tess-domain",
        &(text.replace(ds_line, "ds = \"../shaders/tessellation.ds_5_0.dxbc\"\n")
            + "\n[[resource]]\nreg = \"b0\"\nkind = \"cbuffer\"\nsize = 80\n"),
    );
    assert!(
        e.contains("domain is quad but the domain program's is tri"),
        "{e}"
    );
}

/// A draw of `n` triangle patches through `shaders/tessellation.hlsl`, whose edge
/// factors are the constant `factor`, `2·factor` and `factor + (id & 3)`.
fn tri_patches(n: usize, factor: &str, max_memory: Option<u64>) -> String {
    let verts: Vec<String> = (0..n * 3)
        .map(|i| {
            let x = (i % 3) as f32 * 0.3 - 0.5;
            let y = (i / 3 % 5) as f32 * 0.1 - 0.5 + if i % 3 == 2 { 0.3 } else { 0.0 };
            format!("{x}, {y}, 0.0, 1.0, 0.0, 0.0")
        })
        .collect();
    let options = max_memory.map_or(String::new(), |m| {
        format!("[options]\nmax_memory = {m}\n\n")
    });
    format!(
        r#"{options}[program]
vs = "../shaders/tessellation.vs_5_0.dxbc"
hs = "../shaders/tessellation.hs_5_0.dxbc"
ds = "../shaders/tessellation.ds_5_0.dxbc"

[draw]
topology = "3_control_point_patchlist"
vertex_count = {count}

[[draw.vertex_buffer]]
slot = 0
stride = 24
data = {{ f32 = [{verts}] }}

[[draw.input_element]]
semantic = "POSITION"
format = "R32G32B32A32_FLOAT"

[[draw.input_element]]
semantic = "TEXCOORD"
format = "R32G32_FLOAT"

[draw.rasterizer]
cull = "NONE"

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 32
height = 32
output = "out/tess-cull.png"

[[resource]]
reg = "b0"
kind = "cbuffer"
size = 80
data = {{ f32 = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1,  {factor}, 0, 0, 0] }}
"#,
        count = n * 3,
        verts = verts.join(", ")
    )
}

/// D3D11.3 §11.7.12: a patch with an edge factor ≤ 0 or NaN is culled — nothing of it
/// reaches the domain program; with factor 1 each patch's factors are 1, 2 and
/// 1 + (id & 3) (fractional_odd), every patch is tessellated and drawn.
#[test]
fn patches_with_a_factor_at_or_below_zero_or_nan_are_culled() {
    for (factor, culled) in [("0", 4), ("-1", 4), ("\"NaN\"", 4), ("1", 0)] {
        let r = run_text("tess-cull", &tri_patches(4, factor, None), 1)
            .unwrap_or_else(|e| panic!("factor {factor}: {e}"));
        let d = &r.summary.draw;
        assert_eq!(d.primitives, 4, "factor {factor}: patches assembled");
        assert_eq!(d.patches_culled, culled, "factor {factor}");
        if culled == 4 {
            assert_eq!((d.domain_points, d.primitives_rasterized), (0, 0));
            assert_eq!(d.ds_lane_instructions, 0, "factor {factor}");
        } else {
            assert!(
                d.domain_points > 4 * 3 && d.primitives_rasterized > 4,
                "{d:?}"
            );
        }
    }
}

/// The budgets cover tessellation amplification: factor 64 on many patches ends in the
/// tessellator's budget error, naming the patch, not in exhausted memory.
#[test]
fn tessellation_amplification_hits_the_budget_cleanly() {
    let e = err("tess-budget", &tri_patches(400, "64", Some(8 << 20)));
    assert!(
        e.contains("tessellation budget exhausted") && e.contains("patch"),
        "{e}"
    );
}

/// Two triangle patches through `tests/jobs/gs_after_ds/gs_after_ds.hlsl` (vs → hs →
/// tessellator → ds → gs → ps), the control points of patch `p` at the centres of
/// pixels (0, p), (1, p), (2, p) of an 8 × 8 target; `extra` is appended to the job.
pub(crate) fn gs_after_ds_job(extra: &str) -> String {
    let centre =
        |x: f32, y: f32| format!("{}, {}, 0.5", (x + 0.5) / 4.0 - 1.0, 1.0 - (y + 0.5) / 4.0);
    let verts: Vec<String> = (0..2)
        .flat_map(|p| (0..3).map(move |x| (x as f32, p as f32)))
        .map(|(x, y)| centre(x, y))
        .collect();
    format!(
        r#"[program]
vs = "../tests/jobs/gs_after_ds/gs_after_ds.vs_5_0.dxbc"
hs = "../tests/jobs/gs_after_ds/gs_after_ds.hs_5_0.dxbc"
ds = "../tests/jobs/gs_after_ds/gs_after_ds.ds_5_0.dxbc"
gs = "../tests/jobs/gs_after_ds/gs_after_ds.gs_5_0.dxbc"
ps = "../tests/jobs/gs_after_ds/gs_after_ds.ps_5_0.dxbc"

[draw]
topology = "3_control_point_patchlist"
vertex_count = 6

[[draw.vertex_buffer]]
slot = 0
stride = 12
data = {{ f32 = [{verts}] }}

[[draw.input_element]]
semantic = "POSITION"
format = "R32G32B32_FLOAT"

[draw.rasterizer]
cull = "NONE"

[[draw.render_target]]
format = "R32G32B32A32_UINT"
width = 8
height = 8
clear = [7, 7, 7, 7]
{extra}"#,
        verts = verts.join(", ")
    )
}

/// A geometry program after the domain program. With every factor 1 (integer
/// partitioning) the tessellator makes one triangle per tri patch from the three corner
/// points, in its order (D3D11.3 §11.7.5 "Tessellation Pattern"; `dxlane tessellate
/// --domain tri --partitioning integer --output triangle_cw --edges 1,1,1 --inside 1`):
/// point 0 (u, v) = (0, 1), point 1 (0, 0), point 2 (1, 0), triangle (0, 1, 2). The
/// domain outputs of that triangle are the geometry program's input vertices in that
/// order (§13.2: the geometry shader reads the primitives the stage before it makes),
/// and its `SV_PrimitiveID` is the patch's (§8.17: with tessellation, the primitive ID
/// counts patches). The domain program puts point (u, v, w) at u·P0 + v·P1 + w·P2, so
/// point 0 lands on P1 (pixel 1), point 1 on P2 (pixel 2), point 2 on P0 (pixel 0); the
/// geometry program emits each as a point whose texel holds (SV_PrimitiveID, its index
/// in the input primitive, u bits, v bits).
#[test]
fn a_geometry_program_reads_the_tessellators_primitives() {
    let r = run_text("gs-after-ds", &gs_after_ds_job(""), 1).unwrap_or_else(|e| panic!("{e}"));
    let d = &r.summary.draw;
    assert_eq!((d.primitives, d.domain_points), (2, 6), "{d:?}");
    assert_eq!(d.primitives_rasterized, 6, "three points per patch");
    let bytes = r.targets[0].view.texture.to_bytes();
    let texel = |x: usize, y: usize| -> [u32; 4] {
        let at = (y * 8 + x) * 16;
        std::array::from_fn(|c| {
            u32::from_le_bytes(bytes[at + 4 * c..at + 4 * c + 4].try_into().unwrap())
        })
    };
    let one = 1f32.to_bits();
    for p in 0..2u32 {
        let y = p as usize;
        assert_eq!(
            texel(0, y),
            [p, 2, one, 0],
            "patch {p}: point 2 (1, 0) at P0"
        );
        assert_eq!(
            texel(1, y),
            [p, 0, 0, one],
            "patch {p}: point 0 (0, 1) at P1"
        );
        assert_eq!(texel(2, y), [p, 1, 0, 0], "patch {p}: point 1 (0, 0) at P2");
        assert_eq!(texel(3, y), [7; 4], "patch {p}: nothing else drawn");
    }
    assert_eq!(texel(0, 2), [7; 4]);
}

/// The geometry program after the domain program must read what the tessellator makes:
/// a `point` program after triangle_cw output is refused, naming both (D3D12 refuses
/// such a pipeline state).
#[test]
fn a_geometry_program_of_another_primitive_after_the_domain_program_is_refused() {
    let text = gs_after_ds_job("").replace(
        "gs = \"../tests/jobs/gs_after_ds/gs_after_ds.gs_5_0.dxbc\"",
        "gs = \"../shaders/geometry_streams.gs_5_0.dxbc\"",
    );
    let e = err("gs-after-ds-kind", &text);
    assert!(
        e.contains("triangle_cw makes triangle primitives") && e.contains("reads point"),
        "{e}"
    );
}

/// `[draw] rasterized_stream = "none"` (`D3D12_SO_NO_RASTERIZED_STREAM`, D3D11.3 §14:
/// the rasterizer is off) after the geometry program: every stage before runs, nothing
/// reaches the target.
#[test]
fn no_rasterized_stream_draws_nothing() {
    let text = gs_after_ds_job("").replace(
        "vertex_count = 6\n",
        "vertex_count = 6\nrasterized_stream = \"none\"\n",
    );
    let r = run_text("gs-after-ds-none", &text, 1).unwrap_or_else(|e| panic!("{e}"));
    let d = &r.summary.draw;
    assert_eq!((d.primitives, d.domain_points), (2, 6), "{d:?}");
    assert!(d.gs_lane_instructions > 0);
    assert_eq!((d.primitives_rasterized, d.pixels_shaded), (0, 0));
    let bytes = r.targets[0].view.texture.to_bytes();
    assert!(bytes.chunks_exact(4).all(|c| c == [7, 0, 0, 0]));
}

/// `why` in a domain lane names `SV_DomainLocation` by its semantic (DXBC's `vDomain`
/// has no `v#` register; it used to print as `v4294967295`) and gives its value: the
/// tessellation example's domain program copies (u, v) into COLOR's x and y (`o1`), and
/// domain point 4 of its patch (quad, fractional_odd, edges 2.5, 5, 7.5, 3.2, inside 6,
/// 4.4) is (0.19999695, 0) (`dxlane tessellate --domain quad --partitioning
/// fractional_odd --output triangle_cw --edges 2.5,5,7.5,3.2 --inside 6,4.4`: point 4;
/// D3D11.3 §11.7.5's fixed-point placement, 0x3e4ccc00), so `why o1.x` ends at
/// `SV_DomainLocation.x = 0.19999695 (0x3e4ccc00)` and `why o1.y` at
/// `SV_DomainLocation.y = 0.0`.
#[test]
fn why_in_a_domain_lane_names_sv_domain_location() {
    use dxlane::debug::{self, DebugOptions, Debugger, LaneSelect};
    let path = common::root().join("examples/tessellation.toml");
    let job = dxlane::job::Job::load(&path).unwrap();
    let p = dxlane::job::draw_run::prepare_draw(job, &common::run_options()).unwrap();
    let target = debug::from_job(&p).unwrap();
    let lane = LaneSelect::Domain {
        patch: 0,
        point: 4,
        instance: 0,
    };
    let mut d = Debugger::open(target, lane, DebugOptions::default()).unwrap();
    d.execute("continue").unwrap();
    let x = d.execute("why o1.x").unwrap();
    assert!(
        x.contains("SV_DomainLocation.x = 0.19999695 (0x3e4ccc00): an input of the lane"),
        "{x}"
    );
    let y = d.execute("why o1.y").unwrap();
    assert!(
        y.contains("SV_DomainLocation.y = 0.0 (0x00000000): an input of the lane"),
        "{y}"
    );
    assert!(!x.contains("v4294967295") && !y.contains("v4294967295"));
}

/// The folder of the hand-built DXIL hull and domain programs and their job.
const HS_LOADS: &str = "tests/jobs/hs_loads";

/// dxc's data layout (without 16-bit types).
const DXC_LAYOUT: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// A signature element of a hand-built program: id, name, semantic kind (DXIL.rst
/// "Signature Element": 0 arbitrary, 3 position, 25 `TessFactor`, 26
/// `InsideTessFactor`), rows, columns, start row and column; always `float` (9).
struct SigEl(i64, &'static str, i64, i64, i64, i64, i64);

/// The metadata writer of a hand-built program's entry point.
struct Meta<'a>(&'a mut dxlane::dxil::llvm::build::Mb);

impl Meta<'_> {
    fn int(&mut self, bits: u32, v: i64) -> Option<dxlane::dxil::llvm::MdId> {
        use dxlane::dxil::llvm::Metadata;
        let c = self.0.ci(bits, v);
        let t = self.0.int(bits);
        Some(self.0.md(Metadata::Value { ty: t, value: c }))
    }

    fn string(&mut self, s: &str) -> Option<dxlane::dxil::llvm::MdId> {
        let s = dxlane::dxil::llvm::Metadata::String(s.as_bytes().to_vec());
        Some(self.0.md(s))
    }

    fn node(
        &mut self,
        ops: Vec<Option<dxlane::dxil::llvm::MdId>>,
    ) -> Option<dxlane::dxil::llvm::MdId> {
        Some(self.0.md(dxlane::dxil::llvm::Metadata::Node {
            distinct: false,
            ops,
        }))
    }

    /// A signature's element list; a patch constant's interpolation is undefined (0),
    /// a control point's linear (2).
    fn sig(&mut self, els: &[SigEl], interp: i64) -> Option<dxlane::dxil::llvm::MdId> {
        let mut list = Vec::new();
        for e in els {
            let idx: Vec<_> = (0..e.3).map(|i| self.int(32, i)).collect();
            let idx = self.node(idx);
            let ops = vec![
                self.int(32, e.0),
                self.string(e.1),
                self.int(8, 9),
                self.int(8, e.2),
                idx,
                self.int(8, interp),
                self.int(32, e.3),
                self.int(8, e.4),
                self.int(32, e.5),
                self.int(8, e.6),
                None,
            ];
            list.push(self.node(ops));
        }
        self.node(list)
    }
}

/// The patch-constant signature both hand-built programs share: the three edge factors
/// (rows 0–2, column 3), the inside factor (row 3, column 0) and `SUM` (row 0, column
/// 0), as dxc packs a tri domain's (the corpus's `tessellation.hs`).
const HS_LOADS_PATCH: [SigEl; 3] = [
    SigEl(0, "SV_TessFactor", 25, 3, 1, 0, 3),
    SigEl(1, "SV_InsideTessFactor", 26, 1, 1, 3, 0),
    SigEl(2, "SUM", 0, 1, 1, 0, 0),
];

/// Finishes `mb` (whose `main` body is pushed) as a `kind` 6.0 entry point with the
/// input, output and patch-constant signatures and the stage's property (`tag`,
/// `values`; a hull state's first value is its patch-constant function, `patch`), in a
/// container of its DXIL part.
fn hs_loads_container(
    mut mb: dxlane::dxil::llvm::build::Mb,
    kind: dxlane::container::ProgramKind,
    sigs: [&[SigEl]; 2],
    patch: Option<usize>,
    tag: i64,
    values: &[i64],
) -> Vec<u8> {
    use dxlane::container::write::{dxil_part, write_container};
    use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
    use dxlane::dxil::llvm::build::EntryPoint;
    use dxlane::dxil::llvm::write::write_module;
    use dxlane::dxil::llvm::{Constant, Metadata, Type};
    mb.ret();
    let f32t = mb.t(Type::Float);
    let max = mb.c(f32t, Constant::Float(u64::from(64.0f32.to_bits())));
    let mut md = Meta(&mut mb);
    let version = [md.int(32, 1), md.int(32, 0)];
    let version = md.node(version.to_vec());
    let profile = if matches!(kind, ProgramKind::Hull) {
        "hs"
    } else {
        "ds"
    };
    let sm = [md.string(profile), md.int(32, 6), md.int(32, 0)];
    let sm = md.node(sm.to_vec());
    let ins = md.sig(sigs[0], 2);
    let outs = md.sig(sigs[1], 2);
    let pcs = md.sig(&HS_LOADS_PATCH, 0);
    let signatures = md.node(vec![ins, outs, pcs]);
    let mut state = Vec::new();
    if let Some(fi) = patch {
        let f = &md.0.m.functions[fi];
        let (ty, value) = (f.ptr_ty, f.value);
        state.push(Some(md.0.md(Metadata::Value { ty, value })));
    }
    for v in values {
        state.push(md.int(32, *v));
    }
    if patch.is_some() {
        state.push(Some(md.0.md(Metadata::Value {
            ty: f32t,
            value: max,
        })));
    }
    let state = md.node(state);
    let tag = md.int(32, tag);
    let props = md.node(vec![tag, state]);
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures,
        resources: None,
        module_resources: None,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind,
        major: 6,
        minor: 0,
    };
    let dxil = dxil_part(program, (1, 0), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// `hs_loads.hs.dxil`, an `hs_6_0` program (tri domain, integer partitioning,
/// triangle_cw, 3 control points in and out, max factor 64). Control-point phase:
/// output control point `i` is input control point `i`'s `POSITION` with x halved
/// (`OutputControlPointID`, `LoadInput`, `StoreOutput`). Patch-constant function: reads
/// the output control points (`LoadOutputControlPoint`, DXIL.rst opcode 103) and
/// writes (`StorePatchConstant`) edge factor `r` = output control point `r`'s w, the
/// inside factor = output control point 0's w, and `SUM` = (x0 + x1) + x2 of the output
/// control points.
fn hs_loads_hull() -> Vec<u8> {
    use dxlane::container::ProgramKind;
    use dxlane::dxil::dxop::DxOp;
    use dxlane::dxil::llvm::build::Mb;
    use dxlane::dxil::llvm::{BinOp, Constant, Type};
    let mut mb = Mb::new(DXC_LAYOUT);
    let f32t = mb.t(Type::Float);
    let i32t = mb.int(32);
    let void = mb.void();
    let half = mb.c(f32t, Constant::Float(u64::from(0.5f32.to_bits())));
    // The patch-constant function, defined first as dxc does.
    mb.block();
    let ocp = |mb: &mut Mb, col: i64, k: i64| {
        let (sig, row, col, k) = (mb.ci(32, 0), mb.ci(32, 0), mb.ci(8, col), mb.ci(32, k));
        mb.dx(
            "loadOutputControlPoint.f32",
            DxOp::LoadOutputControlPoint,
            &[sig, row, col, k],
            f32t,
        )
    };
    let x: Vec<_> = (0..3).map(|k| ocp(&mut mb, 0, k)).collect();
    let w: Vec<_> = (0..3).map(|k| ocp(&mut mb, 3, k)).collect();
    let s = mb.bin(BinOp::Add, x[0], x[1], f32t);
    let sum = mb.bin(BinOp::Add, s, x[2], f32t);
    let store = |mb: &mut Mb, sig: i64, row: i64, v| {
        let (sig, row, col) = (mb.ci(32, sig), mb.ci(32, row), mb.ci(8, 0));
        mb.dx(
            "storePatchConstant.f32",
            DxOp::StorePatchConstant,
            &[sig, row, col, v],
            void,
        );
    };
    for (r, wr) in w.iter().enumerate() {
        store(&mut mb, 0, r as i64, *wr);
    }
    store(&mut mb, 1, 0, w[0]);
    store(&mut mb, 2, 0, sum);
    mb.ret();
    let patch = mb.define("patch");
    // The control-point phase, `main`.
    mb.block();
    let id = mb.dx(
        "outputControlPointID.i32",
        DxOp::OutputControlPointID,
        &[],
        i32t,
    );
    for c in 0..4 {
        let (sig, row, col) = (mb.ci(32, 0), mb.ci(32, 0), mb.ci(8, c));
        let v = mb.dx("loadInput.f32", DxOp::LoadInput, &[sig, row, col, id], f32t);
        let v = if c == 0 {
            mb.bin(BinOp::Mul, v, half, f32t)
        } else {
            v
        };
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[sig, row, col, v],
            void,
        );
    }
    let point = [SigEl(0, "POSITION", 0, 1, 4, 0, 0)];
    hs_loads_container(
        mb,
        ProgramKind::Hull,
        [&point, &point],
        Some(patch),
        3,
        &[3, 3, 2, 1, 3],
    )
}

/// `hs_loads.ds.dxil`, a `ds_6_0` program (tri domain, 3 control points): with the
/// domain location (u, v, w) (`DomainLocation`), `SV_Position` = (u·p0 + v·p1) + w·p2
/// of the control points' `POSITION` (`LoadInput`), and `COLOR` = (`SUM` + u, u, v, w)
/// with `SUM` read by `LoadPatchConstant` (DXIL.rst opcode 104).
fn hs_loads_domain() -> Vec<u8> {
    use dxlane::container::ProgramKind;
    use dxlane::dxil::dxop::DxOp;
    use dxlane::dxil::llvm::build::Mb;
    use dxlane::dxil::llvm::{BinOp, Type};
    let mut mb = Mb::new(DXC_LAYOUT);
    let f32t = mb.t(Type::Float);
    let void = mb.void();
    mb.block();
    let loc: Vec<_> = (0..3)
        .map(|c| {
            let c = mb.ci(8, c);
            mb.dx("domainLocation.f32", DxOp::DomainLocation, &[c], f32t)
        })
        .collect();
    let (sig, row, col) = (mb.ci(32, 2), mb.ci(32, 0), mb.ci(8, 0));
    let sum = mb.dx(
        "loadPatchConstant.f32",
        DxOp::LoadPatchConstant,
        &[sig, row, col],
        f32t,
    );
    let out = |mb: &mut Mb, sig: i64, col: i64, v| {
        let (sig, row, col) = (mb.ci(32, sig), mb.ci(32, 0), mb.ci(8, col));
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[sig, row, col, v],
            void,
        );
    };
    for c in 0..4 {
        let p: Vec<_> = (0..3)
            .map(|k| {
                let (sig, row, col, k) = (mb.ci(32, 0), mb.ci(32, 0), mb.ci(8, c), mb.ci(32, k));
                mb.dx("loadInput.f32", DxOp::LoadInput, &[sig, row, col, k], f32t)
            })
            .collect();
        let a = mb.bin(BinOp::Mul, loc[0], p[0], f32t);
        let b = mb.bin(BinOp::Mul, loc[1], p[1], f32t);
        let a = mb.bin(BinOp::Add, a, b, f32t);
        let b = mb.bin(BinOp::Mul, loc[2], p[2], f32t);
        let v = mb.bin(BinOp::Add, a, b, f32t);
        out(&mut mb, 0, c, v);
    }
    let first = mb.bin(BinOp::Add, sum, loc[0], f32t);
    out(&mut mb, 1, 0, first);
    for c in 0..3 {
        out(&mut mb, 1, c + 1, loc[c as usize]);
    }
    let input = [SigEl(0, "POSITION", 0, 1, 4, 0, 0)];
    let output = [
        SigEl(0, "SV_Position", 3, 1, 4, 0, 0),
        SigEl(1, "COLOR", 0, 1, 4, 1, 0),
    ];
    hs_loads_container(mb, ProgramKind::Domain, [&input, &output], None, 2, &[2, 3])
}

/// The containers of `tests/jobs/hs_loads/`, by file name.
fn hs_loads_containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("hs_loads.hs.dxil", hs_loads_hull()),
        ("hs_loads.ds.dxil", hs_loads_domain()),
    ]
}

#[test]
fn the_hs_loads_containers_are_regenerated_unchanged() {
    common::check_built_files(HS_LOADS, hs_loads_containers());
}

/// DXIL.rst `LoadOutputControlPoint` (opcode 103) and `LoadPatchConstant` (104) through
/// a whole draw (vs → hs → tessellator → ds → ps, `tests/jobs/hs_loads/hs_loads.toml`):
/// the patch-constant function reads the output control points the control-point phase
/// wrote (D3D11.3 §10: it runs after every control point is computed), its factors and
/// `SUM` come from them, and the domain program reads `SUM` back. The streamed-out
/// positions and colours, and the counter, are derived by hand in the job; a wrong read
/// of either op changes a factor (the patch is culled or split) or a colour.
#[test]
fn dxil_hull_and_domain_programs_read_the_hulls_outputs() {
    use dxlane::exec::jit::Engine;
    let path = common::root().join(HS_LOADS).join("hs_loads.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    for engine in [Engine::Interp, Engine::Jit] {
        let dir = common::scratch().join("hs_loads").join(engine.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let job = dxlane::job::Job::from_text(&text, &path).unwrap();
        let opts = dxlane::job::RunOptions {
            engine: Some(engine),
            out_dir: Some(dir),
            ..common::run_options()
        };
        let r = dxlane::job::run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{e}"));
        let e = &r.summary.expectations;
        let failures: Vec<String> = e
            .results
            .iter()
            .filter(|x| !x.passed)
            .flat_map(|x| x.mismatch_lines())
            .collect();
        assert!(failures.is_empty(), "{engine}: {}", failures.join("\n"));
        assert_eq!((e.passed, e.failed), (2, 0), "{engine}");
    }
}
