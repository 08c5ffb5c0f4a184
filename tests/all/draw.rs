//! Draws: every example scene against its golden image, identical images for any worker
//! count, the pipeline's rules through small jobs of IR programs, and bad input.
//!
//! `DXLANE_BLESS=1 cargo test draw` rewrites the goldens in `goldens/` (review the images
//! before committing them). A failing comparison writes `NAME.diff.png` beside the output:
//! differing pixels red, the rest the golden darkened.

use std::path::{Path, PathBuf};

use dxlane::job::{self, DrawResult, Job, JobError, RunOptions};

use super::common;

fn out_dir(what: &str) -> PathBuf {
    let d = common::scratch().join("draw").join(what);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a job file's text as if it were `examples/NAME.toml`, its outputs and summary
/// under the test's own folder.
pub(crate) fn run_text(name: &str, text: &str, threads: usize) -> Result<DrawResult, JobError> {
    let dir = out_dir(&format!("{name}-{threads}"));
    let examples = common::root().join("examples");
    // Paths in the job are relative to examples/; outputs go to the test folder
    // (`--out-dir`).
    let job = Job::from_text(text, &examples.join(format!("{name}.toml")))?;
    let opts = RunOptions {
        threads: Some(threads),
        summary: Some(dir.join("summary.json")),
        out_dir: Some(dir),
        ..crate::common::run_options()
    };
    job::run_draw_job(job, &opts)
}

fn draw_examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| std::fs::read_to_string(p).unwrap().contains("\n[draw]"))
        .collect();
    v.sort();
    v
}

fn bless() -> bool {
    std::env::var_os("DXLANE_BLESS").is_some()
}

/// Compares `actual` (a PNG) with `goldens/NAME`; returns a message when they differ,
/// after writing the diff image next to `actual`.
pub(crate) fn compare_golden(actual: &Path, name: &str) -> Option<String> {
    let golden = common::root().join("goldens").join(name);
    if bless() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::copy(actual, &golden).unwrap();
        return None;
    }
    let a = image::open(actual).unwrap().to_rgba8();
    let Ok(g) = image::open(&golden) else {
        return Some(format!(
            "{name}: no golden at {} (bless with DXLANE_BLESS=1)",
            golden.display()
        ));
    };
    let g = g.to_rgba8();
    if a.dimensions() != g.dimensions() {
        return Some(format!(
            "{name}: {:?} against a golden of {:?}",
            a.dimensions(),
            g.dimensions()
        ));
    }
    let mut diff = image::RgbaImage::new(a.width(), a.height());
    let mut n = 0;
    for (x, y, p) in a.enumerate_pixels() {
        let q = g.get_pixel(x, y);
        if p != q {
            n += 1;
            diff.put_pixel(x, y, image::Rgba([255, 0, 0, 255]));
        } else {
            diff.put_pixel(x, y, image::Rgba([q[0] / 3, q[1] / 3, q[2] / 3, 255]));
        }
    }
    if n == 0 {
        return None;
    }
    let d = actual.with_extension("diff.png");
    diff.save(&d).unwrap();
    Some(format!(
        "{name}: {n} pixels differ from the golden; see {}",
        d.display()
    ))
}

/// Every draw example renders its golden image, bit for bit, and its expectations hold.
#[test]
fn draw_examples_match_goldens() {
    let examples = draw_examples();
    assert!(examples.len() >= 5, "{examples:?}");
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &examples {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        match run_text(&stem, &text, 2) {
            Ok(r) => {
                if r.summary.expectations.failed > 0 {
                    failures.push(format!("{stem}: {:#?}", r.summary.expectations));
                }
                if !r.summary.warnings.is_empty() {
                    failures.push(format!("{stem}: warnings {:?}", r.summary.warnings));
                }
                for o in r
                    .summary
                    .outputs
                    .iter()
                    .filter(|o| o.path.ends_with(".png"))
                {
                    let file = Path::new(&o.path)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    compared += 1;
                    if let Some(m) = compare_golden(Path::new(&o.path), &file) {
                        failures.push(m);
                    }
                }
            }
            Err(e) => failures.push(format!("{stem}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= examples.len(), "compared {compared} images");
}

/// DESIGN "Graphics pipeline": tiles on worker threads give the same image for any
/// worker count.
#[test]
fn draws_are_identical_for_any_thread_count() {
    for name in ["mesh", "blend", "msaa"] {
        let text =
            std::fs::read_to_string(common::root().join(format!("examples/{name}.toml"))).unwrap();
        let images: Vec<Vec<u8>> = [1, 2, 3]
            .iter()
            .map(|&t| {
                let r = run_text(name, &text, t).unwrap_or_else(|e| panic!("{name}: {e}"));
                r.targets[0].view.texture.to_bytes()
            })
            .collect();
        assert!(images.windows(2).all(|w| w[0] == w[1]), "{name}");
    }
}

/// D3D11.3 §3.5 (the output merger sees primitives in the order the API gave them):
/// setup and binning split a draw's primitives into contiguous ranges, one per worker,
/// and merge the tiles' lists in range order, so the same draw on 1, 2, 3 and 8 workers
/// writes the same bytes. 20,000 triangles (enough for every worker to take a range)
/// from tiny to a few hundred pixels, some crossing the viewport's sides and the near
/// plane (clipped into polygons), some back faces (culled), at three depths so that the
/// depth test (`LESS`) keeps whichever came first, each writing its `SV_PrimitiveID` and
/// depth into a float target whose width and height are not multiples of the tile size.
#[test]
fn setup_and_binning_on_any_number_of_workers_keep_draw_order() {
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::state::{
        CullMode, DepthStencilView, DrawArgs, DrawState, InputElementDesc, InputLayout,
        RenderTargetView, VertexBufferView,
    };
    use dxlane::pipeline::{Bindings, DrawOptions, Plan, draw};
    use dxlane::resources::{Format, Memory, Texture, TextureDesc};
    const VS: &str = "shader vertex\nregs 3\nconst r0 = 0x3f800000\nio_words in 4 out 4\ninput \"POSITION\" 0 sv none reg 0 rows 1 mask xyz float interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r1, 0\n    output 0, r1\n    input r1, 1\n    output 1, r1\n    input r1, 2\n    output 2, r1\n    output 3, r0\n    return\n";
    const PS: &str = "shader pixel\nregs 6\nconst r0 = 0x3f800000\nio_words in 12 out 4\ninput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0\ninput \"SV_PrimitiveID\" 0 sv primitive_id reg none rows 1 mask x uint interp constant slot 8\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r1, 8\n    utof r2, r1\n    input r3, 2\n    output 0, r2\n    output 1, r3\n    output 2, r0\n    output 3, r0\n    return\n";
    let vs = parse_shader(VS).expect("vs");
    let ps = parse_shader(PS).expect("ps");
    let (w, h) = (300u32, 200u32);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f32 / (1u64 << 53) as f32
    };
    let mut verts: Vec<f32> = Vec::new();
    for k in 0..20_000 {
        // Sizes in pixels: mostly a few, one in 50 up to 400.
        let size = if k % 50 == 0 { 400.0 } else { 8.0 } * next();
        let (sx, sy) = (size * 2.0 / w as f32, size * 2.0 / h as f32);
        // Centres a little past the viewport on every side.
        let (cx, cy) = (next() * 2.4 - 1.2, next() * 2.4 - 1.2);
        let z = [0.25f32, 0.5, 0.75][k % 3];
        // One in 40 has a vertex behind the near plane.
        let z0 = if k % 40 == 1 { -0.5 } else { z };
        let tri = [
            [cx, cy, z0],
            [cx + sx, cy - sy * next(), z],
            [cx + sx * next(), cy - sy, z],
        ];
        // One in 7 winds the other way (a back face).
        let order = if k % 7 == 3 { [0, 2, 1] } else { [0, 1, 2] };
        for i in order {
            verts.extend_from_slice(&tri[i]);
        }
    }
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let none = Bindings::default();
    let run = |threads: usize| {
        let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, w, h)).unwrap();
        let depth = Texture::new(TextureDesc::tex2d(Format::D32_FLOAT, w, h)).unwrap();
        depth
            .memory()
            .write_bytes(0, &1.0f32.to_le_bytes().repeat((w * h) as usize));
        let mut st = DrawState::new(&vs, Some(&ps), &none, &none);
        st.input_layout = InputLayout {
            elements: vec![InputElementDesc {
                semantic: "POSITION".into(),
                semantic_index: 0,
                format: Format::R32G32B32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 0,
                instance_data_step_rate: 0,
            }],
        };
        st.vertex_buffers = vec![Some(VertexBufferView {
            data: Memory::from_bytes(&bytes).unwrap(),
            stride: 12,
            offset: 0,
            size: None,
        })];
        st.rasterizer.cull_mode = CullMode::Back;
        st.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        st.depth_stencil_view = Some(DepthStencilView {
            texture: depth.clone(),
        });
        let args = DrawArgs {
            vertex_count: (verts.len() / 3) as u32,
            ..DrawArgs::default()
        };
        let opts = DrawOptions {
            plan: Plan {
                threads,
                ..Plan::default()
            },
            ..DrawOptions::default()
        };
        let r = draw(&st, &args, &opts).unwrap();
        (
            rt.to_bytes(),
            depth.to_bytes(),
            [r.primitives, r.primitives_rasterized, r.pixels_shaded],
        )
    };
    let one = run(1);
    // Something of each kind was drawn: clipping made more primitives than culling
    // removed or the other way round, but neither left the draw empty.
    assert_eq!(one.2[0], 20_000);
    assert!(one.2[1] > 10_000 && one.2[1] != 20_000, "{:?}", one.2);
    assert!(one.2[2] > 10_000, "{:?}", one.2);
    for threads in [2, 3, 8] {
        let other = run(threads);
        assert_eq!(other.2, one.2, "{threads} workers: counts");
        assert!(
            other.0 == one.0,
            "{threads} workers: the render target differs"
        );
        assert!(
            other.1 == one.1,
            "{threads} workers: the depth buffer differs"
        );
    }
}

/// The output merger's whole-wave direct path (`om::tile::OutputMerger::merge_direct`: a quad row with
/// both pixels live as one 8-byte store, the other live lanes one texel each) writes the
/// bytes of its lane-by-lane merge, which a draw takes whenever a `MergeObserver` watches
/// (the unwatched draw also writes its one-sample UNORM8 targets in place, the watched one
/// through tile copies, `om::tile::in_place_targets`): every example draw, and the triangle and full-screen examples on odd-sized targets
/// (quads cut by the right and bottom edges), at wave sizes 4, 8 and 32, draw the same
/// targets both ways.
#[test]
fn direct_merge_writes_what_the_lane_by_lane_merge_writes() {
    use dxlane::job::draw_run::prepare_draw;
    use dxlane::pipeline::{MergeObserver, MergeTarget, PixelLane};
    struct Watch;
    impl MergeObserver for Watch {
        fn write(&self, _: MergeTarget, _: u32, _: u32, _: u32, _: &PixelLane) {}
    }
    let mut jobs: Vec<(String, String)> = draw_examples()
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    for name in ["triangle", "fullscreen"] {
        let text =
            std::fs::read_to_string(common::root().join(format!("examples/{name}.toml"))).unwrap();
        // The expectations name pixels of the 128 × 128 target.
        let text = text.split("\n[[expect]]").next().unwrap();
        let odd = text
            .replace("width = 128", "width = 37")
            .replace("height = 128", "height = 23");
        assert_ne!(odd, text, "{name}");
        jobs.push((name.to_string(), odd));
    }
    for (name, text) in &jobs {
        for wave in [4, 8, 32] {
            let targets = |watch: Option<&dyn MergeObserver>| {
                let path = common::root().join(format!("examples/{name}.toml"));
                let job = Job::from_text(text, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut p = prepare_draw(job, &crate::common::run_options())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                p.plan.wave_size = Some(wave);
                p.plan.threads = 1;
                let hooks = dxlane::pipeline::Hooks {
                    merges: watch,
                    ..dxlane::pipeline::Hooks::default()
                };
                p.run(None, hooks).unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut m: Vec<Vec<u8>> = p
                    .targets
                    .iter()
                    .map(|t| t.view.texture.to_bytes())
                    .collect();
                m.extend(p.depth.iter().map(|d| d.view.texture.to_bytes()));
                m
            };
            let direct = targets(None);
            assert!(direct.iter().any(|t| t.iter().any(|&b| b != 0)), "{name}");
            assert!(direct == targets(Some(&Watch)), "{name}, wave {wave}");
        }
    }
}

/// A pixel program that reads its own render target (bound to it as a texture too, a
/// hazard D3D leaves undefined) sees the target as it was before the draw reached the
/// pixel's tile, as with tile copies: such a target is never written in place
/// (`om::tile::in_place_targets`). Two instances of one full-screen triangle each add 0.25
/// to what they read; both read the cleared 64, so every byte becomes 128 (64 / 255 +
/// 0.25, rounded, D3D11.3 §3.2.3.6), where a target written in place would give the
/// second instance the first's 128 to read, and 192. Targets of 70 × 40 pixels: two
/// tiles across, one cut by the edge; one and two workers.
#[test]
fn a_target_the_pixel_program_reads_is_not_written_in_place() {
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::{
        Bindings, CullMode, DrawArgs, DrawOptions, DrawState, RenderTargetView, draw,
    };
    use dxlane::resources::{Descriptor, Format, Texture, TextureDesc, TextureView};
    let ps = parse_shader(
        r#"shader pixel
regs 12
const r0 = 0x0
const r1 = 0x3e800000    ; 0.25
io_words in 4 out 4
input "SV_Position" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
resource range0 = srv space 0 lower 0 count 1 texture2d float "t"    ; t0
block0:
    handle r2, range0, r0
    input r3, 0
    input r4, 1
    ftou r3, r3
    ftou r4, r4
    typed_load [r5 r6 r7 r8], r2, [r3 r4 _], r0, _, (0 0 0), _
    fadd r5, r5, r1
    fadd r6, r6, r1
    fadd r7, r7, r1
    fadd r8, r8, r1
    output 0, r5
    output 1, r6
    output 2, r7
    output 3, r8
    return
"#,
    )
    .unwrap();
    let vs = parse_shader(&vertex_program_for(&ps)).unwrap();
    let (w, h) = (70, 40);
    for threads in [1, 2] {
        let rt = Texture::from_bytes(
            TextureDesc::tex2d(Format::R8G8B8A8_UNORM, w, h),
            &vec![64u8; (w * h * 4) as usize],
        )
        .unwrap();
        let psb = Bindings {
            ranges: vec![vec![Descriptor::Texture(TextureView::whole(rt.clone()))]],
            ..Bindings::default()
        };
        let vsb = Bindings::default();
        let mut st = DrawState::new(&vs, Some(&ps), &vsb, &psb);
        st.rasterizer.cull_mode = CullMode::None;
        st.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        let args = DrawArgs {
            vertex_count: 3,
            instance_count: 2,
            ..DrawArgs::default()
        };
        let opts = DrawOptions {
            plan: dxlane::pipeline::Plan {
                threads,
                ..crate::common::plan()
            },
            ..crate::common::draw_options()
        };
        let r = draw(&st, &args, &opts).unwrap();
        assert_eq!(r.pixels_shaded, 2 * u64::from(w * h));
        let bytes = rt.to_bytes();
        let wrong = bytes.iter().position(|&b| b != 128);
        assert_eq!(
            wrong,
            None,
            "{threads} workers: {:?}",
            wrong.map(|i| bytes[i])
        );
    }
}

const VS_POS: &str = r#"shader vertex
regs 3
const r0 = 0x0
const r1 = 0x3f800000
io_words in 4 out 4
input "POSITION" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0
output "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    output 0, r2
    input r2, 1
    output 1, r2
    input r2, 2
    output 2, r2
    input r2, 3
    output 3, r2
    return
"#;

/// A job of `VS_POS` and a pixel program, in a fresh folder, with `draw` as the rest of
/// the job.
fn job_with(name: &str, ps: &str, rest: &str) -> Result<DrawResult, JobError> {
    job_with_vs(name, VS_POS, ps, rest)
}

fn job_with_vs(name: &str, vs: &str, ps: &str, rest: &str) -> Result<DrawResult, JobError> {
    let dir = out_dir(name);
    std::fs::write(dir.join("vs.ir"), vs).unwrap();
    std::fs::write(dir.join("ps.ir"), ps).unwrap();
    let text = format!("[program]\nvs = \"vs.ir\"\nps = \"ps.ir\"\n{rest}");
    let job = Job::from_text(&text, &dir.join("job.toml"))?;
    job::run_draw_job(
        job,
        &RunOptions {
            threads: Some(2),
            ..crate::common::run_options()
        },
    )
}

const PS_RED: &str = r#"shader pixel
regs 2
const r0 = 0x3f800000
const r1 = 0x0
io_words in 0 out 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    output 0, r0
    output 1, r1
    output 2, r1
    output 3, r0
    return
"#;

fn positions(v: &[[f32; 4]]) -> String {
    // TOML spells the non-finite floats `nan`, `inf`, `-inf`.
    let f: Vec<String> = v
        .iter()
        .flatten()
        .map(|x| {
            if x.is_nan() {
                "nan".into()
            } else {
                format!("{x:?}")
            }
        })
        .collect();
    format!(
        "[[draw.vertex_buffer]]\nslot = 0\nstride = 16\ndata = {{ f32 = [{}] }}\n[[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n",
        f.join(", ")
    )
}

const RT8: &str = "[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 8\n";

fn covered(r: &DrawResult) -> usize {
    r.targets[0]
        .view
        .texture
        .to_bytes()
        .chunks(4)
        .filter(|p| p[0] == 255)
        .count()
}

/// A pixel output of another type than its target's class (uint or sint into a float
/// target, float into an integer one) keeps its 32 bits when the target's channels are
/// 32 bits wide: D3D12 stores them uninterpreted (vkd3d's `rt-format-mismatch` test,
/// which passes on WARP: uint4(0, 22, 0xfeedcafe, ~0) into R32G32B32A32_FLOAT reads back
/// those bits, float4(22, -22, 1e100, -1e100) into R32G32B32A32_UINT the float bits,
/// +inf and -inf for the two that overflow float). Into narrower channels it is refused
/// (`bad_draws_name_their_field`).
#[test]
fn other_output_types_keep_their_bits_in_32_bit_targets() {
    let tri = positions(&[
        [-1.0, 1.0, 0.5, 1.0],
        [3.0, 1.0, 0.5, 1.0],
        [-1.0, -3.0, 0.5, 1.0],
    ]);
    let ps = |ty: &str, bits: [u32; 4]| {
        format!(
            "shader pixel\nregs 4\nconst r0 = {:#x}\nconst r1 = {:#x}\nconst r2 = {:#x}\nconst r3 = {:#x}\nio_words in 0 out 4\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw {ty} interp undefined slot 0\nblock0:\n    output 0, r0\n    output 1, r1\n    output 2, r2\n    output 3, r3\n    return\n",
            bits[0], bits[1], bits[2], bits[3]
        )
    };
    let uints = [0, 22, 0xfeed_cafe, 0xffff_ffff];
    let floats = [22.0f32, -22.0, f32::INFINITY, f32::NEG_INFINITY].map(f32::to_bits);
    let ints = [0, 22, (-22i32) as u32, (-1000i32) as u32];
    for (ty, bits) in [("uint", uints), ("float", floats), ("sint", ints)] {
        for format in [
            "R32G32B32A32_FLOAT",
            "R32G32B32A32_UINT",
            "R32G32B32A32_SINT",
        ] {
            let rt =
                format!("[[draw.render_target]]\nformat = \"{format}\"\nwidth = 4\nheight = 4\n");
            let name = format!("bits-{ty}-{format}");
            let r = job_with(
                &name,
                &ps(ty, bits),
                &format!("[draw]\nvertex_count = 3\n{tri}{rt}"),
            )
            .unwrap_or_else(|e| panic!("{ty} into {format}: {e}"));
            let bytes = r.targets[0].view.texture.to_bytes();
            for px in bytes.chunks_exact(16) {
                let got: Vec<u32> = px
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                assert_eq!(got, bits, "{ty} into {format}");
            }
        }
    }
    // A uint output into 16-bit float channels is not a copy: refused, naming the target.
    let rt = "[[draw.render_target]]\nformat = \"R16G16B16A16_FLOAT\"\nwidth = 4\nheight = 4\n";
    let e = job_with(
        "bits-narrow",
        &ps("uint", uints),
        &format!("[draw]\nvertex_count = 3\n{tri}{rt}"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("SV_Target0"), "{e}");
}

/// Bad input is refused with the job field named, or handled as D3D handles it — never a
/// panic (the issue's "Bad input" list).
#[test]
fn bad_draws_name_their_field() {
    let tri = positions(&[
        [-1.0, 1.0, 0.5, 1.0],
        [3.0, 1.0, 0.5, 1.0],
        [-1.0, -3.0, 0.5, 1.0],
    ]);
    let ok = job_with(
        "ok",
        PS_RED,
        &format!("[draw]\nvertex_count = 3\n{tri}{RT8}"),
    )
    .unwrap();
    assert_eq!(covered(&ok), 64, "a full-target triangle");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "zero viewport",
            format!("[draw]\nvertex_count = 3\nviewport = [0, 0, 0, 8, 0, 1]\n{tri}{RT8}"),
            "[draw]: `viewport`",
        ),
        (
            "no target",
            format!("[draw]\nvertex_count = 3\n{tri}"),
            "needs a render target",
        ),
        ("uint output to unorm", String::new(), "SV_Target0"),
        (
            "unknown topology",
            format!("[draw]\ntopology = \"triangle_fan\"\nvertex_count = 3\n{tri}{RT8}"),
            "`topology`",
        ),
        (
            "bad blend",
            format!(
                "[draw]\nvertex_count = 3\n{tri}{RT8}[[draw.blend]]\nenable = true\nsrc = \"SRC_ALPA\"\n"
            ),
            "did you mean SRC_ALPHA",
        ),
        (
            "missing attribute",
            format!("[draw]\nvertex_count = 3\n{RT8}"),
            "the input layout does not provide",
        ),
        (
            "bad depth format",
            format!(
                "[draw]\nvertex_count = 3\n{tri}{RT8}[draw.depth_stencil]\nformat = \"R32_FLOAT\"\n"
            ),
            "not a depth format",
        ),
        (
            "index count without buffer",
            format!("[draw]\nindex_count = 3\n{tri}{RT8}"),
            "needs a [draw.index_buffer]",
        ),
    ];
    for (what, text, want) in cases {
        let e = if what == "uint output to unorm" {
            let ps = PS_RED.replace("mask xyzw float", "mask xyzw uint");
            job_with(what, &ps, &format!("[draw]\nvertex_count = 3\n{tri}{RT8}")).unwrap_err()
        } else {
            job_with(what, PS_RED, &text).unwrap_err()
        };
        assert!(e.to_string().contains(want), "{what}: {e}");
    }
    // A pixel program reading what the vertex program does not write.
    let ps = PS_RED.replace(
        "io_words in 0 out 4\n",
        "io_words in 4 out 4\ninput \"TEXCOORD\" 0 sv none reg 1 rows 1 mask x float interp linear slot 0\n",
    );
    let e = job_with(
        "link",
        &ps,
        &format!("[draw]\nvertex_count = 3\n{tri}{RT8}"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("[program]: the programs do not link"),
        "{e}"
    );
    // NaN, infinite and enormous positions draw what D3D would (nothing, or a clipped
    // triangle), never panic.
    for v in [f32::NAN, f32::INFINITY, 1e30, -1e38] {
        let t = positions(&[
            [-1.0, 1.0, 0.5, 1.0],
            [v, 1.0, 0.5, 1.0],
            [-1.0, -3.0, 0.5, 1.0],
        ]);
        job_with(
            "huge",
            PS_RED,
            &format!("[draw]\nvertex_count = 3\n{t}{RT8}"),
        )
        .unwrap();
    }
    // An enormous triangle (guard band) still covers the target exactly.
    let t = positions(&[
        [-1.0, 1.0, 0.5, 1.0],
        [1e7, 1.0, 0.5, 1.0],
        [-1.0, -1e7, 0.5, 1.0],
    ]);
    assert_eq!(
        covered(
            &job_with(
                "guard",
                PS_RED,
                &format!("[draw]\nvertex_count = 3\n{t}{RT8}")
            )
            .unwrap()
        ),
        64
    );
    // Indices past the vertex buffer read zeros: the third vertex is (0, 0, 0, 0), which
    // clipping at w > 0 handles.
    let r = job_with(
        "index past end",
        PS_RED,
        &format!("[draw]\nindex_count = 3\n[draw.index_buffer]\nformat = \"R16_UINT\"\ndata = {{ hex = \"0000 0100 6400\" }}\n{tri}{RT8}"),
    )
    .unwrap();
    assert_eq!(r.summary.draw.vertices_shaded, 3);
    // A draw whose vertex outputs would pass the memory budget is refused before it runs.
    let e = job_with(
        "budget",
        PS_RED,
        &format!("[options]\nmax_memory = 1000000\n[draw]\nvertex_count = 4000000000\n{tri}{RT8}"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    // A vertex buffer slot with no buffer reads (0, 0, 0, 0) (D3D11.3 §8.20), and a
    // four-component element past the end of its buffer reads (0, 0, 0, 0) too
    // (§8.19.2 "Addressing Bounds": no component is missing; `pipeline::ia`): a position
    // of w = 0 is clipped away, nothing is drawn, nothing fails.
    let r = job_with(
        "no buffer",
        PS_RED,
        &format!(
            "[draw]\nvertex_count = 3\n{}{RT8}",
            tri.replace(
                "format = \"R32G32B32A32_FLOAT\"\n",
                "format = \"R32G32B32A32_FLOAT\"\nslot = 1\n"
            )
        ),
    )
    .unwrap();
    assert_eq!(covered(&r), 0, "an unbound slot reads zeros");
    let r = job_with(
        "past the end",
        PS_RED,
        &format!(
            "[draw]\nvertex_count = 3\n{}{RT8}",
            tri.replace(
                "format = \"R32G32B32A32_FLOAT\"\n",
                "format = \"R32G32B32A32_FLOAT\"\noffset = 48\n"
            )
        ),
    )
    .unwrap();
    assert_eq!(
        covered(&r),
        0,
        "an element past the buffer's end reads zeros"
    );
    // A format the input assembler cannot read names its element.
    let e = job_with(
        "bc format",
        PS_RED,
        &format!(
            "[draw]\nvertex_count = 3\n{}{RT8}",
            tri.replace("R32G32B32A32_FLOAT", "BC1_UNORM")
        ),
    )
    .unwrap_err();
    assert!(e.to_string().contains("[[draw.input_element]] #1"), "{e}");
    // A degenerate (zero-area) triangle covers nothing (D3D11.3 §15.11.1 "Degenerate
    // Behavior", §3.4.2).
    let flat = positions(&[
        [-1.0, 1.0, 0.5, 1.0],
        [0.0, 0.0, 0.5, 1.0],
        [1.0, -1.0, 0.5, 1.0],
    ]);
    let r = job_with(
        "degenerate",
        PS_RED,
        &format!("[draw]\nvertex_count = 3\n[draw.rasterizer]\ncull = \"NONE\"\n{flat}{RT8}"),
    )
    .unwrap();
    assert_eq!(covered(&r), 0, "a degenerate triangle");
    // An endless vertex program ends with the budget error too: the budget covers every
    // stage, not only the pixel stage.
    let vs = VS_POS.replace(
        "block0:\n",
        "block0:\n    jump block1\nblock1:\n    jump block1\nblock2:\n",
    );
    let e = job_with_vs(
        "endless vs",
        &vs,
        PS_RED,
        &format!("[options]\nmax_lane_instructions = 1000\n[draw]\nvertex_count = 3\n{tri}{RT8}"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("budget"), "{e}");
    // An endless pixel program ends with the budget error naming the pixel.
    let ps = "shader pixel\nregs 1\nio_words in 0 out 4\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    jump block1\nblock1:\n    jump block1\n";
    let e = job_with(
        "endless",
        ps,
        &format!("[options]\nmax_lane_instructions = 1000\n[draw]\nvertex_count = 3\n{tri}{RT8}"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("pixel (0, 0), sample 0: the budget"),
        "{e}"
    );
    // The pixel named is the one that ran out, wherever it lies in its wave: only the
    // pixel centred at (5.5, 6.5) loops here (the pipeline names pixel lanes through the
    // wave's `PixelContext`, not ids written into the wave).
    let ps = "shader pixel\nregs 6\nconst r0 = 0x40b00000\nconst r1 = 0x40d00000\nio_words in 4 out 4\ninput \"SV_Position\" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r2, 0\n    input r3, 1\n    fcmp eq, r4, r2, r0\n    fcmp eq, r5, r3, r1\n    and r4, r4, r5\n    branch r4, block1, block2\nblock1:\n    jump block1\nblock2:\n    output 0, r2\n    output 1, r2\n    output 2, r2\n    output 3, r2\n    return\n";
    let e = job_with(
        "endless one pixel",
        ps,
        &format!("[options]\nmax_lane_instructions = 1000\n[draw]\nvertex_count = 3\n{tri}{RT8}"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("pixel (5, 6), sample 0: the budget"),
        "{e}"
    );
}

/// The IR declaration of a vertex-program output that feeds pixel-program input `e`: the
/// same semantic, register, rows, mask and type, at the register's own slot.
pub(crate) fn output_matching(e: &dxlane::ir::IoElement) -> String {
    let sv = if e.sv == dxlane::ir::SysValue::None {
        "none".to_string()
    } else {
        e.sv.to_string()
    };
    format!(
        "output {:?} {} sv {sv} reg {} rows {} mask {} {} interp undefined slot {}\n",
        e.semantic,
        e.semantic_index,
        e.register,
        e.rows,
        dxlane::ir::io::mask_letters(e.mask),
        e.component,
        4 * e.register
    )
}

/// A vertex program for `ps`: a full-screen triangle from `SV_VertexID`, and every
/// register the pixel program reads written with the semantic, mask and type it expects
/// (floats `0.25 + 0.5 × vertex`, integers `vertex + 1`), `SV_Position` at a register of
/// its own.
pub(crate) fn vertex_program_for(ps: &dxlane::ir::Shader) -> String {
    use dxlane::ir::{ComponentType, io::NO_REGISTER};
    let inputs: Vec<_> = ps
        .inputs
        .iter()
        .filter(|e| e.register != NO_REGISTER && !e.sv.made_by_rasterizer())
        .collect();
    let pos_reg = inputs
        .iter()
        .map(|e| e.register + e.rows)
        .max()
        .unwrap_or(0);
    let words = 4 * (pos_reg + 1);
    let mut t = format!(
        "shader vertex\nregs 16\nconst r0 = 0x1\nconst r1 = 0x2\nconst r2 = 0x40800000\nconst r3 = 0x3f800000\nconst r4 = 0x0\nconst r5 = 0x40000000\nconst r6 = 0x3e800000\nconst r7 = 0x3f000000\nio_words in 4 out {words}\ninput \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg {pos_reg} rows 1 mask xyzw float interp undefined slot {}\n",
        4 * pos_reg
    );
    for e in &inputs {
        t.push_str(&output_matching(e));
    }
    t.push_str("block0:\n    input r8, 0\n    and r9, r8, r0\n    utof r9, r9\n    fmul r9, r9, r2\n    fsub r9, r9, r3\n    and r10, r8, r1\n    utof r10, r10\n    fmul r10, r10, r5\n    fsub r10, r3, r10\n    utof r11, r8\n    fmad r11, r11, r7, r6\n    iadd r12, r8, r0\n");
    let p = 4 * pos_reg;
    t.push_str(&format!(
        "    output {p}, r9\n    output {}, r10\n    output {}, r4\n    output {}, r3\n",
        p + 1,
        p + 2,
        p + 3
    ));
    for e in &inputs {
        let v = if matches!(e.component, ComponentType::UInt | ComponentType::SInt) {
            "r12"
        } else {
            "r11"
        };
        for r in 0..e.rows {
            for c in 0..4 {
                if e.mask & (1 << c) != 0 {
                    t.push_str(&format!("    output {}, {v}\n", 4 * (e.register + r) + c));
                }
            }
        }
    }
    t.push_str("    return\n");
    t
}

/// Every pixel program of `shaders/` and the corpora that lowers renders a full-screen
/// triangle into 8×8 targets of its output types with null resources: it links with a
/// vertex program written for it, runs, and never panics (the issue's "corpus pixel
/// programs render in jobs"). Budget errors (endless loops on null data) count as run.
#[test]
fn corpus_pixel_programs_render() {
    use dxlane::ir::{ComponentType, ResourceClass, ResourceKind, Stage, SysValue, parse_shader};
    use dxlane::lower::{self, LoadOptions};
    use dxlane::pipeline::{
        Bindings, DepthStencilView, DrawArgs, DrawOptions, DrawState, RenderTargetView, draw,
    };
    use dxlane::resources::{Descriptor, Format, Texture, TextureDesc, ViewClass};
    let mut rendered = 0;
    let mut failures = Vec::new();
    for path in common::dxil_programs()
        .iter()
        .chain(common::dxbc_programs().iter())
    {
        let bytes = std::fs::read(path).unwrap();
        let Ok(loaded) = lower::load(&bytes, &LoadOptions::default()) else {
            continue;
        };
        if loaded.shader.stage != Stage::Pixel {
            continue;
        }
        let name = common::display_name(path);
        let ps = loaded.shader;
        let vs = match parse_shader(&vertex_program_for(&ps)) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: vertex program: {e:?}"));
                continue;
            }
        };
        let null = |r: &dxlane::ir::ResourceRange| {
            let class = match (r.class, &r.kind) {
                (ResourceClass::Sampler, _) => ViewClass::Sampler,
                (ResourceClass::Cbv, _) => ViewClass::ConstantBuffer,
                (_, k) if k.is_texture() => ViewClass::Texture,
                (_, ResourceKind::AccelerationStructure) => ViewClass::Buffer,
                _ => ViewClass::Buffer,
            };
            let n = if r.count == dxlane::ir::ResourceRange::UNBOUNDED {
                1
            } else {
                r.count.min(64)
            };
            vec![Descriptor::Null(class); n as usize]
        };
        let psb = Bindings {
            ranges: ps.resources.iter().map(null).collect(),
            ..Bindings::default()
        };
        let vsb = Bindings::default();
        let mut st = DrawState::new(&vs, Some(&ps), &vsb, &psb);
        st.rasterizer.cull_mode = dxlane::pipeline::CullMode::None;
        let mut targets = vec![None; 8];
        let mut any = false;
        for e in ps.outputs.iter().filter(|e| e.sv == SysValue::Target) {
            let f = match e.component {
                ComponentType::UInt => Format::R32G32B32A32_UINT,
                ComponentType::SInt => Format::R32G32B32A32_SINT,
                _ => Format::R32G32B32A32_FLOAT,
            };
            for r in 0..e.rows {
                if let Some(t) = targets.get_mut((e.semantic_index + r) as usize) {
                    *t = Some(RenderTargetView {
                        texture: Texture::new(TextureDesc::tex2d(f, 8, 8)).unwrap(),
                    });
                    any = true;
                }
            }
        }
        st.render_targets = targets;
        if !any
            || ps.outputs.iter().any(|e| {
                matches!(
                    e.sv,
                    SysValue::Depth
                        | SysValue::DepthGreaterEqual
                        | SysValue::DepthLessEqual
                        | SysValue::StencilRef
                )
            })
        {
            st.depth_stencil_view = Some(DepthStencilView {
                texture: Texture::new(TextureDesc::tex2d(Format::D32_FLOAT_S8X24_UINT, 8, 8))
                    .unwrap(),
            });
        }
        let opts = DrawOptions {
            plan: dxlane::pipeline::Plan {
                threads: 1,
                limits: dxlane::exec::Limits {
                    max_lane_instructions: 200_000,
                    ..Default::default()
                },
                ..crate::common::plan()
            },
            ..crate::common::draw_options()
        };
        match draw(
            &st,
            &DrawArgs {
                vertex_count: 3,
                ..DrawArgs::default()
            },
            &opts,
        ) {
            Ok(_)
            | Err(dxlane::pipeline::DrawError::Exec(dxlane::exec::ExecError::Budget { .. })) => {
                rendered += 1
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!("corpus pixel programs: {rendered} rendered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if std::env::var_os("DXLANE_NO_CORPORA").is_none() {
        assert!(rendered >= 5, "only {rendered} pixel programs rendered");
    }
}

/// A value of a family header: hex bits, an integer (as its 32-bit pattern), or a float
/// (`1.5`, `3e9`, `inf`, `-0.0`, `NaN`).
fn header_value(t: &str) -> Option<u32> {
    if let Some(h) = t.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).ok();
    }
    let lower = t.to_ascii_lowercase();
    if lower.contains('.') || lower.contains('e') || lower.contains("inf") || lower.contains("nan")
    {
        return t.parse::<f32>().ok().map(f32::to_bits);
    }
    t.parse::<i64>().ok().map(|v| v as u32)
}

/// The pixel-program families of `shaders/ps_*.hlsl` (D3D conformance style: a
/// full-screen triangle from `shaders/fullscreen.hlsl` into small R32G32B32A32 targets,
/// read back) give the values their `// expect:` lines state, from the compiled DXBC of
/// every profile the header builds. Families with texture resources or a named helper
/// lane are run by the StageRunner tests instead, and listed here as skipped.
#[test]
fn pixel_program_families_draw_their_expected_values() {
    use dxlane::ir::{ComponentType, SysValue};
    use dxlane::lower::{self, LoadOptions};
    use dxlane::pipeline::{Bindings, DrawArgs, DrawOptions, DrawState, RenderTargetView, draw};
    use dxlane::resources::{Descriptor, Format, Memory, Texture, TextureDesc};
    let root = common::root().join("shaders");
    let vs_bytes = std::fs::read(root.join("fullscreen.vs_5_0.dxbc")).unwrap();
    let vs = lower::load(&vs_bytes, &LoadOptions::default())
        .unwrap()
        .shader;
    let mut families: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("ps_") && n.ends_with(".hlsl")
        })
        .collect();
    families.sort();
    let (mut checked, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for src in &families {
        let text = std::fs::read_to_string(src).unwrap();
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        let header: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("// ")).collect();
        if header
            .iter()
            .any(|l| l.starts_with("resource: t") || l.contains("helper"))
        {
            skipped.push(stem);
            continue;
        }
        let cb: Option<Vec<u8>> = header
            .iter()
            .find_map(|l| l.strip_prefix("resource: b0 cbuffer = "))
            .map(|v| {
                v.split_whitespace()
                    .map(|t| header_value(t).unwrap_or_else(|| panic!("{stem}: {t}")))
                    .flat_map(u32::to_le_bytes)
                    .collect()
            });
        let profiles: Vec<String> = header
            .iter()
            .filter_map(|l| l.strip_prefix("build: "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect();
        for profile in profiles {
            let blob = root.join(format!("{stem}.{profile}.dxbc"));
            let ps = match std::fs::read(&blob).map(|b| lower::load(&b, &LoadOptions::default())) {
                Ok(Ok(l)) => l.shader,
                Ok(Err(e)) => {
                    failures.push(format!("{stem}.{profile}: {e}"));
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{stem}.{profile}: {e}"));
                    continue;
                }
            };
            let ranges: Vec<Vec<Descriptor>> = ps
                .resources
                .iter()
                .map(|_| {
                    let mem = Memory::from_bytes(cb.as_deref().unwrap_or(&[0; 16])).unwrap();
                    let size = mem.len();
                    vec![Descriptor::ConstantBuffer {
                        memory: mem,
                        offset: 0,
                        size,
                    }]
                })
                .collect();
            let psb = Bindings {
                ranges,
                ..Bindings::default()
            };
            let vsb = Bindings::default();
            let mut st = DrawState::new(&vs, Some(&ps), &vsb, &psb);
            st.rasterizer.cull_mode = dxlane::pipeline::CullMode::None;
            // Only the family's quad runs (its programs assume the values there): the
            // scissor rectangle keeps the others out.
            let quad: Vec<i32> = header
                .iter()
                .find_map(|l| l.strip_prefix("quad: "))
                .map(|q| {
                    q.split_whitespace()
                        .take(2)
                        .map(|v| v.parse().unwrap())
                        .collect()
                })
                .unwrap_or_else(|| vec![2, 4]);
            st.scissors = vec![dxlane::pipeline::Rect {
                left: quad[0],
                top: quad[1],
                right: quad[0] + 2,
                bottom: quad[1] + 2,
            }];
            let mut rts = vec![None; 8];
            for e in ps.outputs.iter().filter(|e| e.sv == SysValue::Target) {
                let f = match e.component {
                    ComponentType::UInt => Format::R32G32B32A32_UINT,
                    ComponentType::SInt => Format::R32G32B32A32_SINT,
                    _ => Format::R32G32B32A32_FLOAT,
                };
                rts[e.semantic_index as usize] = Some(RenderTargetView {
                    texture: Texture::new(TextureDesc::tex2d(f, 8, 8)).unwrap(),
                });
            }
            st.render_targets = rts.clone();
            if let Err(e) = draw(
                &st,
                &DrawArgs {
                    vertex_count: 3,
                    ..DrawArgs::default()
                },
                &DrawOptions {
                    plan: dxlane::pipeline::Plan {
                        threads: 1,
                        ..crate::common::plan()
                    },
                    ..crate::common::draw_options()
                },
            ) {
                failures.push(format!("{stem}.{profile}: {e}"));
                continue;
            }
            for l in header.iter().filter_map(|l| l.strip_prefix("expect: o")) {
                let (target, rest) = l.split_once(" at ").unwrap();
                let (place, values) = rest.split_once(" = ").unwrap();
                let t: usize = target.parse().unwrap();
                let pixels: Vec<(u32, u32)> = if place.trim() == "all" {
                    let (x, y) = (quad[0] as u32, quad[1] as u32);
                    vec![(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
                } else {
                    let v: Vec<u32> = place
                        .split_whitespace()
                        .map(|x| x.parse().unwrap())
                        .collect();
                    vec![(v[0], v[1])]
                };
                let want: Vec<Option<u32>> = values.split_whitespace().map(header_value).collect();
                let Some(Some(rt)) = rts.get(t) else {
                    failures.push(format!("{stem}.{profile}: no SV_Target{t}"));
                    continue;
                };
                let bytes = rt.texture.to_bytes();
                for (x, y) in pixels {
                    let at = ((y * 8 + x) * 16) as usize;
                    for (c, w) in want.iter().enumerate() {
                        let got = u32::from_le_bytes(
                            bytes[at + 4 * c..at + 4 * c + 4].try_into().unwrap(),
                        );
                        let ok = match w {
                            Some(w) => {
                                *w == got
                                    || (f32::from_bits(*w).is_nan()
                                        && f32::from_bits(got).is_nan()
                                        && !values.contains("0x7f"))
                            }
                            None => true,
                        };
                        checked += 1;
                        if !ok {
                            failures.push(format!("{stem}.{profile}: o{t} at {x} {y} [{c}]: expected {w:x?}, got {got:#x}"));
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "pixel-program families: {checked} values checked; skipped (run by the StageRunner tests): {skipped:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 100, "only {checked} values checked");
}

/// The draw examples run their vkd3d-compiled DXBC programs; the IR twins in `shaders/`
/// (the same HLSL written in the IR's text form) draw the same images — bit for bit
/// where the compiler keeps the HLSL's operation order, within 2/255 where it reorders
/// (the mesh's dot products).
#[test]
fn ir_twins_draw_the_examples_images() {
    for name in ["triangle", "blend", "msaa", "fullscreen", "mesh"] {
        let text =
            std::fs::read_to_string(common::root().join(format!("examples/{name}.toml"))).unwrap();
        let twin = text
            .replace(".vs_5_0.dxbc\"", ".vs.ir\"")
            .replace(".ps_5_0.dxbc\"", ".ps.ir\"");
        assert_ne!(text, twin, "{name}");
        let a = run_text(name, &text, 2).unwrap_or_else(|e| panic!("{name}: {e}"));
        let b = run_text(&format!("{name}-ir"), &twin, 2).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (x, y) = (
            a.targets[0].view.texture.to_bytes(),
            b.targets[0].view.texture.to_bytes(),
        );
        let worst = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (i32::from(*p) - i32::from(*q)).abs())
            .max()
            .unwrap_or(0);
        let differ = x.iter().zip(&y).filter(|(p, q)| p != q).count();
        eprintln!("{name}: IR twin differs in {differ} bytes, by at most {worst}");
        if name == "mesh" {
            assert!(worst <= 2, "{name}: {worst}");
        } else {
            assert_eq!(differ, 0, "{name}");
        }
    }
}

/// The geometry stage's bad input, each an error naming what is wrong: a topology that
/// does not assemble the geometry program's input primitive (D3D requires them to
/// match), a pixel program in the `gs` field, a vertex program whose outputs the
/// geometry program cannot link with, and more emitted vertices than the memory limit
/// holds (refused before anything is allocated).
#[test]
fn geometry_stage_bad_input_is_refused_by_name() {
    let text = std::fs::read_to_string(common::root().join("examples/sprites.toml")).unwrap();
    let err = |name: &str, t: String| match run_text(name, &t, 1) {
        Ok(_) => panic!("{name}: drew"),
        Err(e) => e.to_string(),
    };
    let e = err(
        "gs-topology",
        text.replace("topology = \"point_list\"", "topology = \"triangle_list\""),
    );
    assert!(
        e.contains("[program]") && e.contains("triangle") && e.contains("reads point"),
        "{e}"
    );
    let e = err(
        "gs-stage",
        text.replace(
            "gs = \"../shaders/geometry_sprites.gs_4_0.dxbc\"",
            "gs = \"../shaders/geometry_sprites.ps_4_0.dxbc\"",
        ),
    );
    assert!(
        e.contains("is a pixel program, but `gs` needs a geometry program"),
        "{e}"
    );
    let e = err(
        "gs-link",
        text.replace(
            "vs = \"../shaders/geometry_sprites.vs_4_0.dxbc\"",
            "vs = \"../shaders/draw_color.vs_5_0.dxbc\"",
        ),
    );
    assert!(e.contains("the geometry program reads PSIZE"), "{e}");
    let e = err(
        "gs-budget",
        text.replace("vertex_count = 6", "vertex_count = 1000000000"),
    );
    assert!(e.contains("the geometry stage's"), "{e}");
}

/// The geometry stage's example renders the same picture from the `gs_5_0` program as
/// from the `gs_4_0` one.
#[test]
fn geometry_sprites_gs_5_0_draws_as_gs_4_0() {
    let text = std::fs::read_to_string(common::root().join("examples/sprites.toml")).unwrap();
    let r = run_text("sprites-gs5", &text.replace("gs_4_0", "gs_5_0"), 1).unwrap();
    assert_eq!(r.summary.expectations.failed, 0);
    let png = r
        .summary
        .outputs
        .iter()
        .find(|o| o.path.ends_with(".png"))
        .unwrap();
    assert_eq!(compare_golden(Path::new(&png.path), "sprites.png"), None);
}

/// The summary names each program in its own field: a draw with a geometry program and
/// no pixel program reports the geometry program as `gs`, not as the pixel program.
#[test]
fn the_summary_names_the_geometry_program() {
    let text = std::fs::read_to_string(common::root().join("examples/sprites.toml")).unwrap();
    let r = run_text("sprites-summary", &text, 1).unwrap();
    assert!(r.summary.ps.as_ref().unwrap().path.contains("ps_4_0"));
    assert!(r.summary.gs.as_ref().unwrap().path.contains("gs_4_0"));
    let no_ps = text.replace("ps = \"../shaders/geometry_sprites.ps_4_0.dxbc\"\n", "");
    assert_ne!(no_ps, text);
    let r = run_text("sprites-summary-no-ps", &no_ps, 1).unwrap();
    assert!(r.summary.ps.is_none(), "{:?}", r.summary.ps);
    assert!(r.summary.gs.as_ref().unwrap().path.contains("gs_4_0"));
}

/// A pixel program writing (`SV_ViewID`, 1, 0, 1).
const PS_VIEW: &str = r#"shader pixel
regs 4
const r0 = 0x3f800000
const r1 = 0x0
io_words in 4 out 4
input "SV_ViewID" 0 sv view_id reg none rows 1 mask x uint interp undefined slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    utof r3, r2
    output 0, r3
    output 1, r0
    output 2, r1
    output 3, r0
    return
"#;

/// D3D12 View Instancing in a single-draw job (`[draw] view_instancing`): two views at
/// viewports 1 (the right half) and 0 (the left half) each draw the full-viewport
/// triangle, their pixel program reading the view's `SV_ViewID`; without the key the
/// program reads 0 and only viewport 0 is drawn ("View Instancing Declaration"). Bad
/// counts and location lists are refused naming the key.
#[test]
fn a_draw_job_runs_each_view_in_the_viewport_of_its_location() {
    let rest = |vi: &str| {
        format!(
            "[draw]\nvertex_count = 3\nviewports = [[0, 0, 4, 8, 0, 1], [4, 0, 4, 8, 0, 1]]\nscissors = [[0, 0, 4, 8], [4, 0, 8, 8]]\n{vi}\n[draw.rasterizer]\ncull = \"NONE\"\n{RT8}{}",
            positions(&[
                [-1.0, -1.0, 0.0, 1.0],
                [3.0, -1.0, 0.0, 1.0],
                [-1.0, 3.0, 0.0, 1.0]
            ])
        )
    };
    let two = "view_instancing = { count = 2, locations = [{ viewport = 1 }, { viewport = 0 }] }";
    let r = job_with("view_instancing_job", PS_VIEW, &rest(two)).unwrap();
    let px = r.targets[0].view.texture.to_bytes();
    for y in 0..8 {
        for x in 0..8 {
            let at = 4 * (8 * y + x);
            let want: [u8; 4] = if x < 4 {
                [255, 255, 0, 255]
            } else {
                [0, 255, 0, 255]
            };
            assert_eq!(px[at..at + 4], want, "pixel ({x}, {y})");
        }
    }
    assert_eq!(
        r.summary.draw.vertices_shaded, 6,
        "the vertex stage runs once per view"
    );
    // Without view instancing: one view, SV_ViewID 0, viewport 0 (the left half); the
    // right half keeps the target's clear value.
    let r = job_with("view_instancing_none", PS_VIEW, &rest("")).unwrap();
    let px = r.targets[0].view.texture.to_bytes();
    for (i, p) in px.chunks(4).enumerate() {
        let want: [u8; 4] = if i % 8 < 4 { [0, 255, 0, 255] } else { [0; 4] };
        assert_eq!(p, want, "pixel ({}, {})", i % 8, i / 8);
    }
    let err = |vi: &str, name: &str| {
        job_with(name, PS_VIEW, &rest(vi))
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let e = err(
        "view_instancing = { count = 0, locations = [] }",
        "view_instancing_zero",
    );
    assert!(e.contains("`view_instancing.count` = 0"), "{e}");
    let e = err(
        "view_instancing = { count = 1, locations = [{ viewport = 16 }] }",
        "view_instancing_viewport",
    );
    assert!(
        e.contains("`view_instancing.locations[0].viewport` = 16;"),
        "{e}"
    );
    let e = err(
        "view_instancing = { count = 1, locations = [{ viewport = 0, slice = 1 }] }",
        "view_instancing_unknown",
    );
    assert!(e.contains("slice"), "{e}");
}
