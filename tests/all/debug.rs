//! The lane debugger: scripted sessions over the project's programs kept as snapshots
//! (`tests/snapshots/debug/`), debugged runs byte-identical to normal runs on every
//! example job, records that give back exactly the registers a wave held at every step
//! (random IR programs), traces that hold what the lane wrote, and bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::debug::record::{Record, Recorder, Slot};
use dxlane::debug::{self, DebugOptions, Debugger, LaneSelect};
use dxlane::exec::{At, MemWrite, WaveObserver, WaveRead, WaveRun, WriteSink, WriteTarget};
use dxlane::job::Prepared;
use dxlane::job::draw_run::prepare_draw;
use dxlane::job::{Job, RunOptions};
use dxlane::pipeline::{
    DispatchHooks, ObserveWave, PixelLane, PixelObserver, Plan, dispatch_with, ia,
};
use dxlane::resources::{Descriptor, Memory};

use crate::common;
use crate::exec_robust::{Rng, bindings, program};

fn dxlane(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run dxlane");
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    (s, out.status.code().unwrap_or(-1))
}

/// One scripted session as its snapshot shows it: the command, what it printed, the exit
/// status.
pub(crate) fn session(args: &[&str]) -> (String, i32) {
    let (out, code) = dxlane(args);
    let shown: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains(' ') || a.contains(';') {
                format!("\"{a}\"")
            } else {
                a.to_string()
            }
        })
        .collect();
    (
        format!("$ dxlane {}\n{out}exit status {code}\n", shown.join(" ")),
        code,
    )
}

fn check(name: &str, args: &[&str], want_code: i32) {
    let (text, code) = session(args);
    assert_eq!(code, want_code, "{name}: exit status\n{text}");
    common::assert_snapshot(&format!("debug/{name}.txt"), &text);
}

/// Break with a condition, print, `why`, step back, step, `next`, list, delete, reverse.
#[test]
fn mandelbrot_session() {
    check(
        "mandelbrot",
        &[
            "debug",
            "examples/mandelbrot.toml",
            "--thread",
            "340,512,0",
            "-c",
            "break 29 if r1.x > 4; continue; print r1; print/x r0.y; why r1.w 3; back 3; print r1.w; step 2; next; list; breakpoints; delete 1; reverse-continue",
        ],
        0,
    );
}

/// `next` at the loop's last instruction runs one whole iteration; `finish` runs to the end.
#[test]
fn mandelbrot_next_over_iterations() {
    check(
        "mandelbrot_next",
        &[
            "debug",
            "examples/mandelbrot.toml",
            "--group",
            "37,25,0",
            "--group-thread",
            "4,0,0",
            "-c",
            "break 44; continue; print r1.x; next; print r1.x; next; print r1.x; finish; print r0.x",
        ],
        0,
    );
}

/// Group shared memory: a watch on a word written by other lanes and waves, the wave
/// view, switching lanes, `diff` within the wave.
#[test]
fn prefix_sum_session() {
    check(
        "prefix_sum",
        &[
            "debug",
            "examples/prefix_sum.toml",
            "--thread",
            "69,0,0",
            "-c",
            "watch gs[5]; continue; print gs[5]; continue; print gs[5]; why gs[5] 3; regs; wave r0.x; lane 2; where; diff 6; reverse-continue",
        ],
        0,
    );
}

/// A memory watch on a UAV element written by lanes of other groups (found by a second
/// run), and atomics.
#[test]
fn histogram_session() {
    check(
        "histogram",
        &[
            "debug",
            "examples/histogram.toml",
            "--thread",
            "10,0,0",
            "--threads",
            "1",
            "-c",
            "watch u0[3]; continue; continue; print u0[3]",
        ],
        0,
    );
}

/// Formats: hex, float, int, unsigned, half.
#[test]
fn f32tof16_session() {
    check(
        "f32tof16",
        &[
            "debug",
            "examples/f32tof16.toml",
            "--thread",
            "2,0,0",
            "-c",
            "step 12; regs; print/x r0; print/f r0.x; print/h r0.y; print/u r0.x; print/i r0.x",
        ],
        0,
    );
}

/// `break nan` in a program written in the IR's text form, `why`, the wave view, `diff`.
#[test]
fn nan_session() {
    check(
        "nan",
        &[
            "debug",
            "tests/jobs/debug/nan.toml",
            "--thread",
            "1,0,0",
            "-c",
            "break nan; continue; why r6; wave r6; diff 5; watch r6; reverse-continue; continue",
        ],
        0,
    );
}

/// Bad input: each mistake is one clear line, and a script stops with status 1; a lane
/// outside the dispatch does not open (status 2).
#[test]
fn bad_input() {
    let mut text = String::new();
    for (script, code) in [
        ("print r9", 1),
        ("break 2", 1),
        ("break 999", 1),
        ("break 29 if r0.x >", 1),
        ("break 29 if r0 > 1", 1),
        ("frobnicate", 1),
        ("print cb7[0]", 1),
        ("print u0[99999999]", 1),
        ("lane 9", 1),
        ("step x", 1),
        ("print/q r0", 1),
    ] {
        let (t, c) = session(&[
            "debug",
            "examples/mandelbrot.toml",
            "--thread",
            "1,1,0",
            "-c",
            script,
        ]);
        assert_eq!(c, code, "{t}");
        text.push_str(&t);
    }
    for lane in [["--thread", "1024,0,0"], ["--thread", "1,2"]] {
        let (t, c) = session(&["debug", "examples/mandelbrot.toml", lane[0], lane[1]]);
        assert_eq!(c, 2, "{t}");
        text.push_str(&t);
    }
    common::assert_snapshot("debug/bad_input.txt", &text);
}

/// A job for a corpus DXIL program, written beside the build (the corpora live there).
fn dxil_job(name: &str, body: &str) -> Option<PathBuf> {
    let f = common::dxil_programs()
        .into_iter()
        .find(|f| common::display_name(f) == name);
    let Some(f) = f else {
        assert!(common::corpora().is_empty(), "{name} is not in the corpora");
        eprintln!("no corpora: the DXIL debugger sessions are not run");
        return None;
    };
    let dir = common::target_dir().join("debug-jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.toml", name.replace('/', "__")));
    std::fs::write(
        &path,
        format!("[program]\ncs = {:?}\n{body}", f.display().to_string()),
    )
    .unwrap();
    Some(path)
}

const COMPUTE_BASIC: &str = r#"
[dispatch]
groups = [2, 2, 1]
[[resource]]
reg = "u0"
kind = "raw_buffer"
size = 1024
[[resource]]
reg = "u1"
kind = "structured_buffer"
stride = 4
size = 2048
[[resource]]
reg = "u2"
kind = "typed_buffer"
format = "R32G32B32A32_FLOAT"
size = 4096
[[resource]]
reg = "b0"
kind = "cbuffer"
data = { u32 = [7, 0, 0, 0] }
"#;

/// DXIL: values by number, a conditional break on one, group shared watches written by
/// other lanes, the wave view, `diff`, `why` through memory.
#[test]
fn dxil_compute_basic_session() {
    let Some(job) = dxil_job("dxil-reader/compute_basic.dxil", COMPUTE_BASIC) else {
        return;
    };
    let job = job.to_string_lossy().into_owned();
    let (text, code) = session(&[
        "debug",
        &job,
        "--thread",
        "3,1,0",
        "-c",
        "step 6; regs; break 105 if %10 == 3; continue; print %10; watch gs[5]; continue; wave %10; diff 1; why %20 4; back 4; where; print u1[0]",
    ]);
    assert_eq!(code, 0, "{text}");
    let text = text.replace(&job, "JOB");
    common::assert_snapshot("debug/dxil_compute_basic.txt", &text);
}

fn prepared(path: &Path, threads: usize) -> dxlane::job::Prepared {
    let job = Job::load(path).unwrap();
    dxlane::job::prepare(
        job,
        &RunOptions {
            threads: Some(threads),
            ..crate::common::run_options()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every example job (and the debugger's own): a debugged run — one wave traced, its
/// group running the unoptimised lowering in real waves — leaves every UAV byte for byte
/// as a normal run does (DESIGN "The debugger observes one lane of a normal run").
#[test]
fn debugged_runs_equal_normal_runs() {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // Compute jobs here; draw jobs have their own test below, ray-tracing jobs
        // (`cornell.toml`: ray lanes, `--ray`) theirs in `debug_rays`.
        .filter(|p| !is_draw(p))
        .filter(|p| {
            !std::fs::read_to_string(p)
                .unwrap_or_default()
                .contains("\n[rays]")
        })
        .collect();
    jobs.push(common::root().join("tests/jobs/debug/nan.toml"));
    jobs.sort();
    let mut compared = 0;
    for path in &jobs {
        let p = prepared(path, 1);
        let target = debug::from_job(&p).unwrap();
        let normal = target.run_normal().unwrap();
        let tg = target.program.shader.thread_group;
        let g = target.groups();
        let last = [g[0] * tg[0] - 1, g[1] * tg[1] - 1, g[2] * tg[2] - 1];
        for lane in [[0, 0, 0], last, [last[0] / 2, last[1] / 2, 0]] {
            let d = Debugger::open(
                target.clone(),
                LaneSelect::Thread(lane),
                DebugOptions::default(),
            )
            .unwrap();
            assert!(d.fault().is_none(), "{}", path.display());
            assert_eq!(
                d.outputs(),
                &normal[..],
                "{}: lane {lane:?}: the debugged run's resources differ",
                path.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 15, "{compared}");
}

/// The trace holds every step; the lane's last write of each address is what the run
/// left there (replaying the trace reproduces what the lane wrote).
#[test]
fn trace_reproduces_the_lane_writes() {
    let p = prepared(&common::root().join("examples/mandelbrot.toml"), 0);
    let target = debug::from_job(&p).unwrap();
    let d = Debugger::open(
        target,
        LaneSelect::Thread([212, 480, 0]),
        DebugOptions::default(),
    )
    .unwrap();
    let mut buf = Vec::new();
    let n = d.write_trace(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert_eq!(text.lines().count(), n);
    assert_eq!(n, d.len());
    let mut writes = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for m in v["memory"].as_array().unwrap() {
            writes.push((
                m["addr"].as_u64().unwrap(),
                u32::from_str_radix(m["value"].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap(),
            ));
        }
    }
    assert_eq!(writes.len(), 1, "the lane stores its count once");
    let (addr, value) = writes[0];
    assert_eq!(addr, 4 * (1024 * 480 + 212));
    assert_eq!(value, 30, "the example's expectation for (212, 480)");
    let out = &d.outputs()[0];
    let a = addr as usize;
    assert_eq!(u32::from_le_bytes(out[a..a + 4].try_into().unwrap()), value);
}

/// Snapshots every register of the wave at every step: the oracle a record is checked
/// against.
struct Full {
    regs: Vec<Vec<u32>>,
}

impl WaveObserver for Full {
    fn start(&mut self, w: &dyn WaveRead) {
        self.regs.push(
            (0..w.num_regs() as u32)
                .flat_map(|r| w.reg(r).to_vec())
                .collect(),
        );
    }
    fn step(&mut self, _: At, _: u128, _: u128, w: &dyn WaveRead, _: &[MemWrite]) {
        self.regs.push(
            (0..w.num_regs() as u32)
                .flat_map(|r| w.reg(r).to_vec())
                .collect(),
        );
    }
    fn others(&mut self, _: &[MemWrite]) {}
}

/// Step-back is exact: over random IR programs, the record gives back every register of
/// every lane of the wave before every step (so `step N; back N` restores each register
/// of the lane), as a full snapshot of the wave taken while it ran says.
#[test]
fn records_restore_every_register() {
    let mut g = Rng(0x5eed_1234_abcd_0001);
    let mut checked = 0u64;
    for case in 0..60 {
        let tg = [1 + g.below(6) as u32 * 2, 1 + g.below(3) as u32, 1];
        let text = program(&mut g, tg);
        let s = crate::exec::shader(&text);
        let wave_size = [4u32, 8, 16][g.below(3)];
        let o = Plan {
            wave_size: Some(wave_size),
            threads: 1,
            limits: dxlane::exec::Limits {
                max_lane_instructions: 3_000,
                ..Default::default()
            },
            ..crate::common::plan()
        };
        let per_group = (tg[0] * tg[1]) as usize;
        let wave = g.below(per_group.div_ceil(wave_size as usize));
        let group = [g.below(2) as u32, 0, 0];
        let run = |obs: &mut (dyn WaveObserver + Send)| {
            let b = bindings();
            let _ = dispatch_with(
                &s,
                &b,
                [2, 1, 1],
                &o,
                None,
                DispatchHooks {
                    writes: None,
                    observe: Some(ObserveWave {
                        group,
                        wave,
                        shader: &s,
                        observer: obs,
                    }),
                    budget: None,
                },
            );
        };
        let mut rec = Recorder::new(&s, 64 << 20);
        run(&mut rec);
        let rec: Record = rec.finish();
        let mut full = Full { regs: Vec::new() };
        run(&mut full);
        if full.regs.is_empty() {
            // The dispatch stopped (a budget) before the observed group ran.
            assert!(!rec.started, "case {case}");
            continue;
        }
        assert_eq!(full.regs.len(), rec.steps.len() + 1, "case {case}");
        let w = rec.width;
        for (t, snap) in full.regs.iter().enumerate() {
            for r in 0..s.num_regs {
                let want = &snap[r as usize * w..(r as usize + 1) * w];
                let got = rec.values_at(Slot::Reg(r), t);
                if got != want {
                    let k = rec
                        .last_write(Slot::Reg(r), t)
                        .map(|k| rec.wstep[k as usize]);
                    let at = k.map(|s| rec.steps[s as usize].at);
                    let inst = match at {
                        Some(At::Inst(i)) => s.insts[i.index()].to_string(),
                        _ => String::new(),
                    };
                    let after = k.map(|s| {
                        let snap = &full.regs[s as usize + 1];
                        snap[r as usize * w..(r as usize + 1) * w].to_vec()
                    });
                    // The step that changed it unrecorded.
                    let culprit = (0..t)
                        .rev()
                        .find(|&u| {
                            full.regs[u][r as usize * w..(r as usize + 1) * w]
                                != full.regs[u + 1][r as usize * w..(r as usize + 1) * w]
                        })
                        .map(|u| match rec.steps[u].at {
                            At::Inst(i) => s.insts[i.index()].to_string(),
                            a => format!("{a}"),
                        });
                    panic!(
                        "case {case}: r{r} before step {t}: record {got:?}, wave {want:?}; last written at step {k:?} by `{inst}`, after which the wave held {after:?}; changed by {culprit:?}\n{text}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// Through the API: `step N; back N` restores every register and value of a DXBC lane.
#[test]
fn step_back_restores_the_lane() {
    let p = prepared(&common::root().join("examples/prefix_sum.toml"), 0);
    let target = debug::from_job(&p).unwrap();
    let mut d = Debugger::open(
        target,
        LaneSelect::Thread([13, 0, 0]),
        DebugOptions::default(),
    )
    .unwrap();
    let mut g = Rng(77);
    for _ in 0..40 {
        let before = (d.position(), d.execute("regs").unwrap());
        let n = 1 + g.below(30);
        d.execute(&format!("step {n}")).unwrap();
        let moved = d.position() - before.0;
        d.execute(&format!("back {moved}")).unwrap();
        assert_eq!((d.position(), d.execute("regs").unwrap()), before);
        d.execute(&format!("step {}", g.below(5))).unwrap();
    }
}

/// The README's session is what `dxlane debug` prints.
#[test]
fn readme_session_is_real() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let start = readme
        .find("$ dxlane debug examples/f32tof16.toml")
        .expect("the README shows a session");
    let block = &readme[start..];
    let block = &block[..block.find("```").unwrap()];
    let (first, shown) = block.split_once('\n').unwrap();
    let script = first
        .split_once("-c \"")
        .map(|(_, s)| s.trim_end_matches('"'))
        .unwrap();
    let (out, code) = dxlane(&[
        "debug",
        "examples/f32tof16.toml",
        "--thread",
        "2,0,0",
        "-c",
        script,
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim_end(),
        shown.trim_end(),
        "README.md's session is stale"
    );
}

/// Whether a job file draws (has a `[draw]` section).
fn is_draw(p: &Path) -> bool {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .any(|l| l.trim() == "[draw]")
}

/// A pixel lane of a draw (DXBC `examples/mesh.toml`): break, inputs by name and
/// interpolation mode, the wave view with its helper lanes, `why`, `back`, `diff` across
/// the quad, a switch to a helper lane, the lane's outputs and the target's final value,
/// and `diff pixel` with a pixel of another wave (drawn again).
#[test]
fn pixel_mesh_session() {
    check(
        "pixel_mesh",
        &[
            "debug",
            "examples/mesh.toml",
            "--pixel",
            "100,140",
            "-c",
            "break 17; continue; print v2; inputs; wave v2.x; step; print r1; why r0.x 3; back 3; print r0.x; diff 5; lane 0; where; wave r0.x; outputs; diff pixel 130,140",
        ],
        0,
    );
}

/// A vertex lane of a draw: the listing, inputs, registers, the wave view and outputs.
#[test]
fn vertex_triangle_session() {
    check(
        "vertex_triangle",
        &[
            "debug",
            "examples/triangle.toml",
            "--vertex",
            "1",
            "-c",
            "list; inputs; step 3; regs; wave v0.x; continue; outputs; diff vertex 2",
        ],
        0,
    );
}

/// Lanes of a draw that do not exist, and lane options of the wrong kind of job: one line
/// each, exit status 2.
#[test]
fn draw_bad_input() {
    let mut text = String::new();
    for args in [
        &["debug", "examples/triangle.toml", "--pixel", "128,3"][..],
        &["debug", "examples/triangle.toml", "--pixel", "0,0"][..],
        &[
            "debug",
            "examples/triangle.toml",
            "--pixel",
            "64,64",
            "--prim",
            "1",
        ][..],
        &[
            "debug",
            "examples/triangle.toml",
            "--pixel",
            "64,64",
            "--sample",
            "1",
        ][..],
        &["debug", "examples/triangle.toml", "--pixel", "64"][..],
        &["debug", "examples/triangle.toml", "--vertex", "3"][..],
        &[
            "debug",
            "examples/triangle.toml",
            "--vertex",
            "0",
            "--instance",
            "1",
        ][..],
        &["debug", "examples/triangle.toml", "--thread", "0,0,0"][..],
        &["debug", "examples/mandelbrot.toml", "--pixel", "1,1"][..],
        &["debug", "examples/mandelbrot.toml", "--vertex", "0"][..],
        &["debug", "examples/sprites.toml", "--gs-primitive", "6"][..],
    ] {
        let (t, c) = session(args);
        assert_eq!(c, 2, "{t}");
        text.push_str(&t);
    }
    // `diff` to a lane of the other stage, or to a lane given wrongly: the scripted
    // session stops with exit status 1.
    for script in [
        "diff pixel 64,64",
        "diff vertex",
        "diff vertex 1 instance x",
        "diff pixel 64",
        "diff pixel 64,64 frame 2",
    ] {
        let (t, c) = session(&[
            "debug",
            "examples/triangle.toml",
            "--vertex",
            "1",
            "-c",
            script,
        ]);
        assert_eq!(c, 1, "{t}");
        text.push_str(&t);
    }
    common::assert_snapshot("debug/draw_bad_input.txt", &text);
}

/// Every memory a prepared draw can write, by name: both stages' resources (UAVs; the
/// read-only ones never change), the render targets and the depth-stencil buffer.
fn draw_memories(p: &Prepared) -> Vec<(String, Memory)> {
    let w = p.draw_work().unwrap();
    let mut out: Vec<(String, Memory)> = Vec::new();
    let mut add = |name: String, m: &Memory| {
        if !out.iter().any(|(_, x)| x == m) {
            out.push((name, m.clone()));
        }
    };
    for (stage, b) in [("vs", &w.vs_bindings), ("ps", &w.ps_bindings)] {
        for (r, range) in b.ranges.iter().enumerate() {
            for (k, d) in range.iter().enumerate() {
                let name = format!("{stage} range {r} element {k}");
                match d {
                    Descriptor::Buffer { view, .. } => add(name, &view.memory),
                    Descriptor::Texture(v) => add(name, v.texture.memory()),
                    _ => {}
                }
            }
        }
    }
    for (i, t) in p.targets.iter().enumerate() {
        add(format!("render target {i}"), t.view.texture.memory());
    }
    if let Some(d) = &p.depth {
        add("depth-stencil".into(), d.view.texture.memory());
    }
    out
}

fn prepared_draw(path: &Path) -> Prepared {
    let job = Job::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    prepare_draw(job, &crate::common::run_options())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The samples the pixel program's lanes stood for: (x, y, sample), in raster order.
struct Covered(std::sync::Mutex<Vec<(u32, u32, u32)>>);

impl PixelObserver for Covered {
    fn wave(&self, _: u32, _: u32, lanes: &[PixelLane], _: &WaveRun, _: &[u32]) {
        let mut v = self.0.lock().unwrap();
        // A helper lane stands for no sample; a per-sample lane's coverage is its sample.
        v.extend(
            lanes
                .iter()
                .filter(|p| p.coverage != 0)
                .map(|p| (p.y, p.x, p.coverage.trailing_zeros())),
        );
    }
}

/// Every example draw job (and the debugger's UAV-writing draws): a draw with the debugger
/// observing a pixel lane — one the normal draw shaded — and, separately, a vertex lane
/// leaves the render targets, the depth-stencil buffer and the UAVs byte for byte as a
/// normal draw of the job does (DESIGN "The debugger observes one lane of a normal run").
/// A memory watch's second run (every wave's writes reported, on one worker) leaves the
/// same memory too.
#[test]
fn debugged_draws_equal_normal_draws() {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && is_draw(p))
        .collect();
    jobs.sort();
    assert!(jobs.len() >= 5, "{jobs:?}");
    jobs.push(common::root().join("tests/jobs/debug/uav_pixels.toml"));
    jobs.push(common::root().join("tests/jobs/debug/uav_vertices.toml"));
    let mut compared = 0;
    for path in &jobs {
        let show = path.display();
        let normal = prepared_draw(path);
        normal
            .run(None, dxlane::pipeline::Hooks::default())
            .unwrap_or_else(|e| panic!("{show}: {e}"));
        let want: Vec<(String, Vec<u8>)> = draw_memories(&normal)
            .into_iter()
            .map(|(n, m)| (n, m.to_bytes()))
            .collect();

        let covered = Covered(std::sync::Mutex::new(Vec::new()));
        prepared_draw(path)
            .run(
                None,
                dxlane::pipeline::Hooks {
                    pixels: Some(&covered),
                    ..dxlane::pipeline::Hooks::default()
                },
            )
            .unwrap_or_else(|e| panic!("{show}: {e}"));
        let mut covered = covered.0.into_inner().unwrap();
        covered.sort_unstable();
        covered.dedup();
        let &(y, x, sample) = covered
            .get(covered.len() / 2)
            .unwrap_or_else(|| panic!("{show}: the draw shades no pixel"));
        let pixel = LaneSelect::Pixel {
            x,
            y,
            sample,
            prim: 0,
        };

        let p = prepared_draw(path);
        let w = p.draw_work().unwrap();
        let args = w.args;
        let vertex = match &w.state().index_buffer {
            Some(ib) => ia::read_index(ib, u64::from(args.start_vertex + args.vertex_count / 2)),
            None => args.vertex_count / 2,
        };
        let mut lanes = vec![pixel];
        // A mesh draw has mesh lanes (and amplification lanes) where others have vertices.
        match &w.mesh {
            Some(m) => {
                let launch = m.amplification.as_ref().map(|_| [0, 0, 0]);
                lanes.push(LaneSelect::Mesh {
                    launch,
                    group: [0, 0, 0],
                    thread: [1, 0, 0],
                });
                if launch.is_some() {
                    lanes.push(LaneSelect::Amplification {
                        group: [0, 0, 0],
                        thread: [1, 0, 0],
                    });
                }
            }
            None => lanes.push(LaneSelect::Vertex {
                vertex,
                instance: 0,
            }),
        }
        // Geometry, hull and domain lanes, where the draw has those programs.
        if w.gs.is_some() {
            lanes.push(LaneSelect::Geometry {
                prim: 0,
                gs_instance: 0,
                instance: 0,
            });
        }
        if w.hs.is_some() {
            for control_point in [Some(0), None] {
                lanes.push(LaneSelect::Hull {
                    patch: 0,
                    control_point,
                    join: false,
                    instance: 0,
                });
            }
            lanes.push(LaneSelect::Domain {
                patch: 0,
                point: 1,
                instance: 0,
            });
        }
        for lane in lanes {
            let p = prepared_draw(path);
            let memories = draw_memories(&p);
            let target = debug::from_job(&p).unwrap();
            let mut d = Debugger::open(target, lane, DebugOptions::default())
                .unwrap_or_else(|e| panic!("{show}: {lane:?}: {e}"));
            assert!(d.fault().is_none(), "{show}: {lane:?}");
            let got: Vec<(String, Vec<u8>)> = memories
                .iter()
                .map(|(n, m)| (n.clone(), m.to_bytes()))
                .collect();
            assert_eq!(got.len(), want.len(), "{show}");
            for ((name, g), (_, w)) in got.iter().zip(&want) {
                assert!(
                    g == w,
                    "{show}: {lane:?}: the debugged draw leaves other bytes in {name}"
                );
            }
            compared += 1;
            if path.ends_with("uav_pixels.toml") && matches!(lane, LaneSelect::Pixel { .. }) {
                let text = d.execute("watch u1[1]").unwrap();
                assert!(text.contains("it ended with the same memory"), "{text}");
            }
        }
    }
    assert!(compared >= 12, "{compared}");
}

/// A pixel lane of a corpus DXIL program (dxil-reader's sampling.dxil, behind a scissor
/// rectangle so that a quad of the lane's wave has helper lanes;
/// `tests/jobs/corpus/sampling_dxil_scissor.toml` derives the pixels): a break on a DXIL
/// instruction, a conditional break on a `%N` value, step, next, back, values, `why`,
/// the inputs, the wave view with its helpers, the outputs.
#[test]
fn pixel_sampling_dxil_session() {
    let Some(root) = common::corpora().first().and_then(|d| d.parent()) else {
        eprintln!(
            "SKIPPED debug::pixel_sampling_dxil_session: the corpora are not fetched (DXLANE_NO_CORPORA)"
        );
        return;
    };
    // The job's corpus and vertex-program paths, made absolute in a folder of its own.
    let dir = common::root().join("tests/jobs/corpus");
    let text = std::fs::read_to_string(dir.join("sampling_dxil_scissor.toml")).unwrap();
    let text = text
        .replace("../../../target/corpora", &root.display().to_string())
        .replace("vs = \"", &format!("vs = \"{}/", dir.display()));
    let staged = common::target_dir().join("debug-jobs");
    std::fs::create_dir_all(&staged).unwrap();
    let job = staged.join("sampling_dxil_scissor.toml");
    std::fs::write(&job, text).unwrap();
    let job = job.to_string_lossy().into_owned();
    let (text, code) = session(&[
        "debug",
        &job,
        "--pixel",
        "2,1",
        "-c",
        "break 115; continue; print %12; print %13; wave %12; step; print %17; next; break 155 if %52 == 2; continue; print %52; step; why %56 2; back 3; where; print %56; step 3; continue; wave %71; print/x %83; inputs; outputs",
    ]);
    assert_eq!(code, 0, "{text}");
    let text = text.replace(&job, "JOB");
    common::assert_snapshot("debug/pixel_sampling_dxil.txt", &text);
}

/// A memory watch on a UAV element inside a draw finds the writers in other pixel waves
/// (from a second draw whose other waves report their writes), each named by its pixel,
/// besides the lanes of the observed wave.
#[test]
fn uav_pixels_session() {
    let (text, code) = session(&[
        "debug",
        "tests/jobs/debug/uav_pixels.toml",
        "--pixel",
        "2,3",
        "-c",
        "watch u1[1]; continue; where; continue; print u1[1]",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("watched memory written in other waves:"),
        "{text}"
    );
    assert!(text.contains("by pixel (0, 0), sample 0 at line"), "{text}");
    common::assert_snapshot("debug/uav_pixels.txt", &text);
}

/// A memory watch on a vertex lane's UAV element finds the writers in the other vertex
/// waves, and only them: the pixel program's writes name its own range 0 (`u1`), which is
/// not the vertex program's (`u2`).
#[test]
fn uav_vertices_session() {
    let (text, code) = session(&[
        "debug",
        "tests/jobs/debug/uav_vertices.toml",
        "--vertex",
        "20",
        "-c",
        "watch u2[0]; continue; continue; print u2[0]",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("16 write(s) by lanes of other waves"),
        "{text}"
    );
    assert!(!text.contains("by pixel"), "{text}");
    common::assert_snapshot("debug/uav_vertices.txt", &text);
}

/// `DrawOptions::memory` hears every UAV write of the pixel lanes with the writing pixel:
/// 64 pixels each add to `u1[0]` and store to their column's word (uav_pixels.toml), and
/// two draws (all cores) report the same writes in the same order, while the targets and
/// UAVs come out as without a sink.
#[test]
fn draws_report_uav_writes_in_one_order() {
    struct Log(std::sync::Mutex<Vec<(String, u64, u32, bool)>>);
    impl WriteSink for Log {
        fn write(&self, w: &MemWrite) {
            if matches!(w.target, WriteTarget::Resource(_)) {
                self.0.lock().unwrap().push((
                    w.invocation.to_string(),
                    w.addr,
                    w.value[0],
                    w.atomic,
                ));
            }
        }
    }
    let path = common::root().join("tests/jobs/debug/uav_pixels.toml");
    let plain = prepared_draw(&path);
    plain.run(None, dxlane::pipeline::Hooks::default()).unwrap();
    let want: Vec<Vec<u8>> = draw_memories(&plain)
        .iter()
        .map(|(_, m)| m.to_bytes())
        .collect();
    let heard = || {
        let p = prepared_draw(&path);
        let log = Log(std::sync::Mutex::new(Vec::new()));
        let mut plan = p.plan.clone();
        plan.threads = 0;
        p.run(
            Some(&plan),
            dxlane::pipeline::Hooks {
                writes: Some(&log),
                ..dxlane::pipeline::Hooks::default()
            },
        )
        .unwrap();
        let got: Vec<Vec<u8>> = draw_memories(&p)
            .iter()
            .map(|(_, m)| m.to_bytes())
            .collect();
        assert_eq!(got, want, "a sink changes what the draw leaves");
        log.0.into_inner().unwrap()
    };
    let a = heard();
    assert_eq!(a, heard(), "the writes in another order");
    assert_eq!(a.len(), 128, "{a:?}");
    let atomics: Vec<_> = a.iter().filter(|w| w.3).collect();
    assert_eq!(atomics.len(), 64);
    assert!(atomics.iter().all(|w| w.1 == 0));
    let pixels: std::collections::BTreeSet<&str> = a.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(pixels.len(), 64, "every pixel wrote");
    // A store names its pixel: pixel (x, y) stores to word 1 + (x & 1). (Its value is the
    // word after the instruction: the last lane of the wave to store there.)
    for (who, addr, _, _) in a.iter().filter(|w| !w.3) {
        let x: u64 = who
            .strip_prefix("pixel (")
            .and_then(|r| r.split_once(','))
            .and_then(|(x, _)| x.parse().ok())
            .unwrap_or_else(|| panic!("{who}"));
        assert_eq!(*addr, 4 * (1 + (x & 1)), "{who}");
    }
    assert_eq!(a.last().map(|w| w.2), Some(62), "pixel (6, 7) stores last");
}

/// The text after `label` on the line that starts with it in `text`.
pub(crate) fn line_after<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no line `{label}` in\n{text}"))
}

/// A geometry-program lane (issue 33: the debugger selects a lane of any stage):
/// `examples/sprites.toml`'s sixth point, (0, 0, 1.5) of size 0.2
/// (shaders/geometry_sprites.hlsl). Its inputs are the vertex program's outputs for
/// that point (clip position (x, y, z/2, z)); it steps, steps back, prints and answers
/// `why`; after its wave its outputs hold the last vertex it emitted, the bottom-right
/// corner: the position plus (size, −size).
#[test]
fn geometry_lane_session() {
    let args = [
        "debug",
        "examples/sprites.toml",
        "--gs-primitive",
        "5",
        "-c",
        "where; inputs; step 2; print r0.y; why r0.y; back; print r0.y; continue; outputs",
    ];
    let (text, code) = session(&args);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("geometry primitive with SV_PrimitiveID 5, SV_GSInstanceID 0"),
        "{text}"
    );
    assert!(
        line_after(&text, "v[0][0].xyzw SV_Position (input vertex 0): ")
            .starts_with("0.0 (0x00000000), 0.0 (0x00000000), 0.75 (0x3f400000), 1.5 (0x3fc00000)"),
        "{text}"
    );
    assert!(
        line_after(&text, "v[0][2].x PSIZE0 (input vertex 0): ").starts_with("0.2 "),
        "{text}"
    );
    assert!(
        line_after(&text, "o0.xyzw SV_Position: ").starts_with(
            "0.2 (0x3e4ccccd), -0.2 (0xbe4ccccd), 0.75 (0x3f400000), 1.5 (0x3fc00000)"
        ),
        "{text}"
    );
    assert!(
        line_after(&text, "o2.xy TEXCOORD0: ").starts_with("1.0 (0x3f800000), 1.0"),
        "{text}"
    );
    common::assert_snapshot("debug/geometry_lane.txt", &text);
}

/// Hull and domain lanes of `examples/tessellation.toml` (shaders/tessellation_patch.hlsl):
/// the patch-constant phase writes the factors the source sets (2.5, 5, 7.5, 3.2; inside
/// 6, 4.4); control point 2 of the control-point phase returns input control point 2,
/// the corner (0.8, 0.6, 0.5); a domain lane reads the patch constants and its
/// `SV_DomainLocation`, and its colour output is (u, v, …) of that location (D3D11.3
/// §10 and §11: the phases, and the domain program's inputs).
#[test]
fn hull_and_domain_lane_sessions() {
    let (pc, code) = session(&[
        "debug",
        "examples/tessellation.toml",
        "--hs-patch",
        "0",
        "--patch-constant",
        "-c",
        "where; step 3; back 2; continue; outputs",
    ]);
    assert_eq!(code, 0, "{pc}");
    assert!(pc.contains("hull patch 0, patch constants"), "{pc}");
    for (label, v) in [
        ("o0.x SV_TessFactor: ", "2.5 "),
        ("o1.x SV_TessFactor1: ", "5.0 "),
        ("o2.x SV_TessFactor2: ", "7.5 "),
        ("o3.x SV_TessFactor3: ", "3.2 "),
        ("o4.x SV_InsideTessFactor: ", "6.0 "),
        ("o5.x SV_InsideTessFactor1: ", "4.4 "),
    ] {
        assert!(line_after(&pc, label).starts_with(v), "{label}: {pc}");
    }
    let (cp, code) = session(&[
        "debug",
        "examples/tessellation.toml",
        "--hs-patch",
        "0",
        "--control-point",
        "2",
        "-c",
        "where; continue; outputs",
    ]);
    assert_eq!(code, 0, "{cp}");
    assert!(cp.contains("hull patch 0, control point 2"), "{cp}");
    assert!(
        line_after(&cp, "o0.xyz POSITION0: ")
            .starts_with("0.8 (0x3f4ccccd), 0.6 (0x3f19999a), 0.5"),
        "{cp}"
    );
    let (ds, code) = session(&[
        "debug",
        "examples/tessellation.toml",
        "--ds-patch",
        "0",
        "--ds-point",
        "7",
        "-c",
        "where; inputs; step 3; print r0.x; why r0.x; continue; outputs",
    ]);
    assert_eq!(code, 0, "{ds}");
    assert!(ds.contains("domain patch 0, domain point 7"), "{ds}");
    assert!(
        line_after(&ds, "vpc5.x SV_InsideTessFactor1: ").starts_with("4.4 "),
        "{ds}"
    );
    let uv: Vec<&str> = line_after(&ds, "SV_DomainLocation: ")
        .split(", ")
        .take(2)
        .collect();
    let colour: Vec<&str> = line_after(&ds, "o1.xyz COLOR0: ")
        .split(", ")
        .take(2)
        .collect();
    assert_eq!(uv, colour, "{ds}");
    let text = format!("{pc}{cp}{ds}");
    common::assert_snapshot("debug/hull_domain_lanes.txt", &text);
}

/// Geometry, hull and domain lanes given wrongly, or in draws without the stage: one
/// line each naming the flag, exit status 2.
#[test]
fn stage_lane_bad_input() {
    let mut text = String::new();
    for args in [
        &["debug", "examples/sprites.toml", "--gs-primitive", "6"][..],
        &[
            "debug",
            "examples/sprites.toml",
            "--gs-primitive",
            "0",
            "--gs-instance",
            "1",
        ][..],
        &[
            "debug",
            "examples/sprites.toml",
            "--gs-primitive",
            "0",
            "--instance",
            "1",
        ][..],
        &["debug", "examples/triangle.toml", "--gs-primitive", "0"][..],
        &["debug", "examples/triangle.toml", "--instance", "0"][..],
        &["debug", "examples/tessellation.toml", "--hs-patch", "0"][..],
        &[
            "debug",
            "examples/tessellation.toml",
            "--hs-patch",
            "1",
            "--patch-constant",
        ][..],
        &[
            "debug",
            "examples/tessellation.toml",
            "--hs-patch",
            "0",
            "--control-point",
            "4",
        ][..],
        &["debug", "examples/tessellation.toml", "--ds-patch", "0"][..],
        &[
            "debug",
            "examples/tessellation.toml",
            "--ds-patch",
            "0",
            "--ds-point",
            "100000",
        ][..],
        &[
            "debug",
            "examples/mandelbrot.toml",
            "--ds-patch",
            "0",
            "--ds-point",
            "0",
        ][..],
    ] {
        let (t, c) = session(args);
        assert_eq!(c, 2, "{t}");
        text.push_str(&t);
    }
    common::assert_snapshot("debug/stage_lane_bad_input.txt", &text);
}

/// A pixel's inputs lead back one stage: in a draw with a domain program the session
/// names the domain lane that made the primitive's leading vertex, and that lane's
/// `COLOR` output is exactly the pixel's `nointerpolation` `COLOR` input (D3D11.3 §15.7:
/// a constant attribute takes the leading vertex's value); likewise from a texel
/// (`--texel`, issue 38's provenance), and in a draw with a geometry program the
/// geometry lane named is the one that emitted the sprite covering the pixel (the last,
/// blue point of `examples/sprites.toml`: input primitive 5).
#[test]
fn a_pixel_leads_to_the_geometry_or_domain_lane_of_its_primitive() {
    for lane in [&["--pixel", "64,64"][..], &["--texel", "rt0", "64,64"][..]] {
        let mut args = vec!["debug", "examples/tessellation.toml"];
        args.extend_from_slice(lane);
        args.extend_from_slice(&["-c", "inputs"]);
        let (px, code) = session(&args);
        assert_eq!(code, 0, "{px}");
        let colour = line_after(&px, "v1.xyz COLOR0 (constant): ").to_string();
        let flags: Vec<String> = line_after(&px, "the primitive's leading vertex was made by ")
            .split_once(" (")
            .map(|(_, f)| f.trim_end_matches(')'))
            .unwrap_or_else(|| panic!("{px}"))
            .split(' ')
            .map(str::to_string)
            .collect();
        assert_eq!(
            flags.first().map(String::as_str),
            Some("--ds-patch"),
            "{px}"
        );
        let mut args = vec!["debug", "examples/tessellation.toml"];
        args.extend(flags.iter().map(String::as_str));
        args.extend_from_slice(&["-c", "continue; outputs"]);
        let (ds, code) = session(&args);
        assert_eq!(code, 0, "{ds}");
        assert_eq!(line_after(&ds, "o1.xyz COLOR0: "), colour, "{px}{ds}");
    }
    let (px, code) = session(&[
        "debug",
        "examples/sprites.toml",
        "--pixel",
        "64,64",
        "-c",
        "inputs",
    ]);
    assert_eq!(code, 0, "{px}");
    assert!(
        px.contains("the primitive's leading vertex was made by geometry input primitive 5, SV_GSInstanceID 0, draw instance 0 (--gs-primitive 5 --gs-instance 0 --instance 0)"),
        "{px}"
    );
    common::assert_snapshot("debug/pixel_origin_geometry.txt", &px);
}

/// `tessellation_stages::gs_after_ds_job` (vs → hs → tessellator → ds → gs → ps, two
/// tri patches, every factor 1) written where `dxlane` can read it, its program paths
/// made absolute.
pub(crate) fn gs_after_ds_job_file() -> String {
    let dir = common::scratch().join("debug-gs-after-ds");
    std::fs::create_dir_all(&dir).unwrap();
    let text = crate::tessellation_stages::gs_after_ds_job("").replace(
        "\"../tests/",
        &format!("\"{}/tests/", common::root().display()),
    );
    let path = dir.join("job.toml");
    // Several tests ask for the file at once.
    common::write_whole(&path, &text);
    path.display().to_string()
}

/// A geometry lane after tessellation (docs/debugger.md "Geometry, hull and domain
/// lanes": after tessellation `--gs-primitive n` is the n-th primitive the tessellator
/// made). With every factor 1 each tri patch makes one triangle of its corner points
/// (D3D11.3 §11.7.5), so primitive 1 is patch 1's, with the patch's `SV_PrimitiveID` 1
/// (§8.17); its input vertex 0 is domain point 0, (u, v) = (0, 1), which the domain
/// program puts on control point P1 of patch 1, the centre of pixel (1, 1): clip
/// (−0.625, 0.625, 0.5, 1). Its outputs after its wave are its last vertex, input
/// vertex 2 (domain point 2, (1, 0), on P0: pixel (0, 1)) with DATA (1, 2, 1.0's bits,
/// 0). Primitive 2 was never made: the session says the lane never ran.
#[test]
fn geometry_lane_after_tessellation() {
    let job = gs_after_ds_job_file();
    let (text, code) = session(&[
        "debug",
        &job,
        "--gs-primitive",
        "1",
        "-c",
        "inputs; continue; outputs",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(
            "geometry primitive with SV_PrimitiveID 1, SV_GSInstanceID 0, draw instance 0"
        ),
        "{text}"
    );
    assert!(
        line_after(&text, "v[0][0].xyzw SV_Position (input vertex 0): ").starts_with(
            "-0.625 (0xbf200000), 0.625 (0x3f200000), 0.5 (0x3f000000), 1.0 (0x3f800000)"
        ),
        "{text}"
    );
    assert!(
        line_after(&text, "v[0][1].xyz LOC0 (input vertex 0): ")
            .starts_with("0.0 (0x00000000), 1.0 (0x3f800000), 0.0"),
        "{text}"
    );
    assert!(
        line_after(&text, "o0.xyzw SV_Position: ")
            .starts_with("-0.875 (0xbf600000), 0.625 (0x3f200000)"),
        "{text}"
    );
    assert!(
        line_after(&text, "o1.xyzw DATA0: ")
            .starts_with("1 (0x00000001), 2 (0x00000002), 1065353216 (0x3f800000), 0 "),
        "{text}"
    );
    let (past, code) = session(&["debug", &job, "--gs-primitive", "2", "-c", "where"]);
    assert_ne!(code, 0, "{past}");
    assert!(past.contains("the lane never ran"), "{past}");
}

/// A pixel of a draw with hull, domain and geometry programs leads to the geometry lane
/// that made its primitive (docs/debugger.md): pixel (1, 1) is the point the geometry
/// program emitted for patch 1's domain point 0, DATA (1, 0, 0, 1.0's bits), and both
/// `inputs` and `why` name `--gs-primitive 1 --gs-instance 0 --instance 0`; that lane's
/// `inputs` hold domain point 0's location (0, 1, 0), which the domain lane
/// `--ds-patch 1 --ds-point 0` reads as its `SV_DomainLocation`.
#[test]
fn a_pixel_after_tessellation_leads_to_its_geometry_lane() {
    let job = gs_after_ds_job_file();
    let (px, code) = session(&[
        "debug",
        &job,
        "--pixel",
        "1,1",
        "-c",
        "inputs; continue; why o0.x",
    ]);
    assert_eq!(code, 0, "{px}");
    assert!(
        line_after(&px, "v1.xyzw DATA0 (constant): ")
            .starts_with("1 (0x00000001), 0 (0x00000000), 0 (0x00000000), 1065353216"),
        "{px}"
    );
    let origin = "made by geometry input primitive 1, SV_GSInstanceID 0, draw instance 0 (--gs-primitive 1 --gs-instance 0 --instance 0)";
    assert_eq!(px.matches(origin).count(), 2, "inputs and why: {px}");
    let (ds, code) = session(&[
        "debug",
        &job,
        "--ds-patch",
        "1",
        "--ds-point",
        "0",
        "-c",
        "inputs",
    ]);
    assert_eq!(code, 0, "{ds}");
    assert!(
        line_after(&ds, "SV_DomainLocation: ")
            .starts_with("0.0 (0x00000000), 1.0 (0x3f800000), 0.0"),
        "{ds}"
    );
}

/// `--gs-instance` past 0 (D3D11.3 §13.6 "GS Instancing"): the corpus's DXIL
/// `geometry.dxil` ([instance(2)], `tests/jobs/corpus/geometry_dxil.toml`) for primitive
/// 0, instance 1 reads `SV_GSInstanceID` 1, and its last emitted vertex is input corner
/// 2, (−1, 0, 0, 1), moved by (SV_PrimitiveID 0, SV_GSInstanceID 1) to (−1, 1, 0, 1),
/// with TEXCOORD0.x 0.25 + 1.
#[test]
fn geometry_lane_of_a_later_instance() {
    if common::corpora().is_empty() {
        eprintln!("DXLANE_NO_CORPORA is set: the --gs-instance 1 session is not checked");
        return;
    }
    let (text, code) = session(&[
        "debug",
        "tests/jobs/corpus/geometry_dxil.toml",
        "--gs-primitive",
        "0",
        "--gs-instance",
        "1",
        "-c",
        "inputs; continue; outputs",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("geometry primitive with SV_PrimitiveID 0, SV_GSInstanceID 1"),
        "{text}"
    );
    assert!(
        line_after(&text, "SV_GSInstanceID: ").starts_with("1 "),
        "{text}"
    );
    let outputs = text
        .split("outputs of lane")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        outputs.contains(
            "SV_Position: -1.0 (0xbf800000), 1.0 (0x3f800000), 0.0 (0x00000000), 1.0 (0x3f800000)"
        ),
        "{text}"
    );
    assert!(
        outputs.contains("TEXCOORD0: 1.25 (0x3fa00000), 0.5"),
        "{text}"
    );
}

/// DXBC output registers print at any step, not only when the wave has finished: before
/// the lane's first output write `o0` is not written yet; at the lane's end each
/// component holds what `outputs` shows (the value the wave left); `why o0.x` follows
/// the value back from the register the output write stored (D3D11.3 §22.1.4: an
/// output register holds the program's last write to it when the invocation ends).
#[test]
fn output_registers_print_at_any_step() {
    let (t, code) = session(&[
        "debug",
        "examples/fullscreen.toml",
        "--pixel",
        "10,20",
        "-c",
        "print o0; continue; print o0; outputs; why o0.x; print o0.y",
    ]);
    assert_eq!(code, 0, "{t}");
    let start = t.find("print o0").unwrap();
    let first = &t[start..t.find("(dxlane) continue").unwrap()];
    assert!(
        first.contains("o0.x  (not written yet)") && first.contains("o0.w  (not written yet)"),
        "{t}"
    );
    let outputs = line_after(&t, "o0.xyzw SV_Target: ");
    let vals: Vec<&str> = outputs.split(", ").collect();
    assert_eq!(vals.len(), 4, "{t}");
    for (c, v) in ["x", "y", "z", "w"].iter().zip(&vals) {
        assert!(t.contains(&format!("o0.{c} = {v}\n")), "o0.{c} = {v}: {t}");
    }
    assert!(
        t.contains("o0.x: an output of the lane, stored by its last output write so far:"),
        "{t}"
    );
    let why = &t[t.find("(dxlane) why o0.x").unwrap()..];
    assert!(why.contains(&format!(" = {} ← line ", vals[0])), "{t}");
}
