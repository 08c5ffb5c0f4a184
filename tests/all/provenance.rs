//! Output-to-lane provenance (`dxlane debug JOB --texel NAME x,y`, `--element NAME[i]`,
//! docs/debugger.md "Which lane wrote it"): for every example job, a sample of each
//! output's texels and elements leads to a lane whose debugged run stores exactly the
//! bytes the output holds; the rules of "last" (later primitives over earlier ones, a
//! depth test that fails, blending, many threads writing one word) and what nothing
//! wrote; and names and coordinates refused by name.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::debug::provenance::{self, OutputSelect, Provenance, ProvenanceError};
use dxlane::debug::{DebugOptions, Debugger, LaneSelect};
use dxlane::job::writers::bindings_of;
use dxlane::job::{Job, Prepared, ResourceAt, ResourceData, RunOptions};
use dxlane::pipeline::Work;
use dxlane::pipeline::ps::PsOutputs;

use crate::common;

fn prepared(path: &Path) -> Prepared {
    let job = Job::load(path).unwrap();
    dxlane::job::prepare(
        job,
        &RunOptions {
            threads: Some(2),
            ..common::run_options()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dxlane(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run dxlane");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// The bytes at `addr .. addr + n` of the resource at `at` now.
fn bytes_now(p: &Prepared, at: ResourceAt, addr: u64, n: u64) -> Vec<u8> {
    let r = p.resource(at).unwrap();
    let m = match r.data {
        ResourceData::Buffer { memory, .. } => memory.clone(),
        ResourceData::Texture(t) => t.memory().clone(),
    };
    let mut b = vec![0u8; n as usize];
    assert!(m.read_bytes(addr, &mut b), "{at} byte {addr}");
    b
}

/// Checks that the session on the writer shows it storing exactly the bytes the output
/// holds: a resource word through the record's memory writes; a target texel through
/// the lane's output words encoded in the target's format (when the target does not
/// blend) and the lane's pixel. Returns what the lane stored, for the caller's checks.
fn check_lane_stored(p: &Prepared, d: &Debugger, found: &Provenance, ctx: &str) {
    let now = bytes_now(p, found.at, found.addr, found.bytes);
    if !found.merged {
        let bindings = bindings_of(&d.target().program.debug_shader, &found.at);
        let (step, m) = d
            .last_memory_write(&bindings, found.addr, found.bytes)
            .unwrap_or_else(|| panic!("{ctx}: the lane's record has no store there"));
        // The session stands just after the store.
        assert_eq!(d.position(), step + 1, "{ctx}");
        // The bytes of the word the store left, where it overlaps the element's word.
        let mut stored = Vec::new();
        for k in 0..found.bytes {
            let a = found.addr + k;
            if a >= m.addr && a < m.addr + u64::from(m.bytes) {
                let off = (a - m.addr) as usize;
                stored.push((k as usize, (m.value[off / 4] >> (8 * (off % 4))) as u8));
            }
        }
        assert!(!stored.is_empty(), "{ctx}");
        for (k, b) in stored {
            assert_eq!(
                b, now[k],
                "{ctx}: byte {k} of the word: the lane stored {b:#04x}, the output holds {:#04x}",
                now[k]
            );
        }
        assert_eq!(
            &found.value[..],
            &bytes_now(p, found.at, found.addr, found.bytes)[..]
        );
        return;
    }
    let traced = d.traced().expect("a pixel lane's wave");
    let lane = traced.pixels[d.lane()];
    let LaneSelect::Pixel { x, y, .. } = found.lane else {
        panic!("{ctx}: a target's writer is a pixel lane");
    };
    assert_eq!((lane.x, lane.y), (x, y), "{ctx}");
    assert!(lane.coverage != 0, "{ctx}: a helper lane");
    assert!(
        d.position() == d.len(),
        "{ctx}: the session stands at the lane's end"
    );
    let (Work::Draw(w), ResourceAt::RenderTarget(i)) = (&*d.target().work, found.at) else {
        return;
    };
    let b = w.state().blend;
    let rt = b.target(i as usize);
    if rt.blend_enable || rt.logic_op_enable || rt.render_target_write_mask != 0xf {
        return;
    }
    let ps = w.ps.as_ref().unwrap();
    let Some((word, _)) = PsOutputs::of(ps).targets[i as usize] else {
        return;
    };
    let width = traced.wave_size as usize;
    let value = [0, 1, 2, 3].map(|c| traced.outputs[(word as usize + c) * width + d.lane()]);
    let format = match p.resource(found.at).unwrap().data {
        ResourceData::Texture(t) => t.desc().format,
        ResourceData::Buffer { .. } => unreachable!(),
    };
    let mut enc = vec![0u8; now.len()];
    format.encode(value, 0xf, &mut enc);
    assert_eq!(
        enc, now,
        "{ctx}: the lane's SV_Target{i}, encoded, against the texel"
    );
}

/// A few deterministic picks in `0..n`: first, a third, the middle, the last.
fn picks(n: u64) -> Vec<u64> {
    let mut v = vec![0, n / 3, n / 2, n.saturating_sub(1)];
    v.sort_unstable();
    v.dedup();
    v.retain(|&i| i < n);
    v
}

/// The outputs of a job and the selections sampling each.
fn samples(p: &Prepared) -> Vec<OutputSelect> {
    let mut out = Vec::new();
    for (at, _) in p.written() {
        let name = match at {
            ResourceAt::Register(r) if r.space != 0 => {
                format!("{}{}:space{}", r.class.letter(), r.index, r.space)
            }
            _ => at.to_string(),
        };
        match p.resource(at).unwrap().data {
            ResourceData::Buffer {
                memory,
                read,
                view_offset,
            } => {
                let size = match read {
                    dxlane::job::BufferRead::Raw => 4,
                    dxlane::job::BufferRead::Structured { stride } => u64::from(stride),
                    dxlane::job::BufferRead::Typed { format } => {
                        u64::from(format.bytes_per_texel())
                    }
                    dxlane::job::BufferRead::Constant => continue,
                };
                for i in picks((memory.len() - view_offset) / size) {
                    out.push(OutputSelect::Element {
                        resource: name.clone(),
                        index: i,
                    });
                }
            }
            ResourceData::Texture(t) => {
                let d = t.desc();
                let (w, h) = (u64::from(d.width), u64::from(d.height));
                for (k, i) in picks(w * h).into_iter().enumerate() {
                    out.push(OutputSelect::Texel {
                        resource: name.clone(),
                        x: (i % w) as u32,
                        y: (i / w) as u32,
                        slice: 0,
                        mip: 0,
                        sample: k as u32 % d.samples.max(1),
                    });
                }
                // The middle of the target, where the example scenes draw.
                out.push(OutputSelect::Texel {
                    resource: name.clone(),
                    x: d.width / 2,
                    y: d.height / 2,
                    slice: 0,
                    mip: 0,
                    sample: 0,
                });
            }
        }
    }
    out
}

/// Every example job, and the debugger's draw jobs whose pixels and vertices write UAVs:
/// each sampled texel and element leads to a lane whose debugged run stores exactly the
/// output's bytes there, or to "nothing wrote it" when the output still holds what the
/// job started it with (issue 38: "for every example, each output texel/element's lookup
/// names a lane whose debugged run shows it storing exactly that value").
#[test]
fn every_example_output_leads_to_the_lane_that_stored_it() {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    jobs.push(common::root().join("tests/jobs/debug/uav_pixels.toml"));
    jobs.push(common::root().join("tests/jobs/debug/uav_vertices.toml"));
    jobs.sort();
    let (mut lanes, mut unwritten, mut jobs_seen) = (0, 0, 0);
    for path in &jobs {
        let p = prepared(path);
        jobs_seen += 1;
        for sel in samples(&p) {
            let ctx = format!("{}: {sel:?}", path.display());
            // A run changes the prepared job's resources (and UAV counters), and a
            // session starts from them: each lookup starts from a job prepared afresh.
            let p = prepared(path);
            match provenance::open(&p, None, &sel, DebugOptions::default()) {
                Ok((d, found)) => {
                    assert!(
                        d.notes().iter().any(|n| n.contains("was last written by")),
                        "{ctx}"
                    );
                    check_lane_stored(&p, &d, &found, &ctx);
                    lanes += 1;
                }
                Err(ProvenanceError::Unwritten(text)) => {
                    assert!(text.contains("was written by no lane"), "{ctx}: {text}");
                    // The output holds what the job starts it with (a job prepared
                    // afresh has not run).
                    let start = prepared(path);
                    let (at, addr, n) = element_of(&start, &sel);
                    assert_eq!(
                        bytes_now(&start, at, addr, n),
                        bytes_now(&p, at, addr, n),
                        "{ctx}: nothing wrote it, yet it changed"
                    );
                    unwritten += 1;
                }
                Err(e) => panic!("{ctx}: {e}"),
            }
        }
    }
    assert!(jobs_seen >= 12, "{jobs_seen} jobs");
    assert!(lanes >= 60, "{lanes} lanes, {unwritten} unwritten");
    assert!(unwritten >= 3, "{unwritten} unwritten");
}

/// Where a selection's bytes are (for the tests' own checks).
fn element_of(p: &Prepared, sel: &OutputSelect) -> (ResourceAt, u64, u64) {
    let (name, texel, index) = match sel {
        OutputSelect::Texel {
            resource,
            x,
            y,
            sample,
            ..
        } => (resource, Some((*x, *y, *sample)), 0),
        OutputSelect::Element { resource, index } => (resource, None, *index),
    };
    let at = p
        .written()
        .into_iter()
        .map(|(a, _)| a)
        .find(|a| {
            let n = match a {
                ResourceAt::Register(r) if r.space != 0 => {
                    format!("{}{}:space{}", r.class.letter(), r.index, r.space)
                }
                _ => a.to_string(),
            };
            &n == name
        })
        .unwrap();
    match (p.resource(at).unwrap().data, texel) {
        (ResourceData::Texture(t), Some((x, y, s))) => (
            at,
            t.texel_addr(0, 0, [x, y, 0], s).unwrap(),
            u64::from(t.desc().format.bytes_per_texel()),
        ),
        (
            ResourceData::Buffer {
                read, view_offset, ..
            },
            None,
        ) => {
            let size = match read {
                dxlane::job::BufferRead::Raw => 4,
                dxlane::job::BufferRead::Structured { stride } => u64::from(stride),
                dxlane::job::BufferRead::Typed { format } => u64::from(format.bytes_per_texel()),
                dxlane::job::BufferRead::Constant => unreachable!(),
            };
            (at, view_offset + index * size, size)
        }
        _ => unreachable!(),
    }
}

fn job(name: &str) -> PathBuf {
    common::root().join("tests/jobs/provenance").join(name)
}

fn texel(name: &str, x: u32, y: u32) -> OutputSelect {
    OutputSelect::texel(name, &format!("{x},{y}"), 0, 0, 0).unwrap()
}

/// Overdraw: where two primitives cover a pixel, the later one's output-merger write is
/// the last (D3D11.3 §16.1: "rendering order" — primitives are rasterised and merged in
/// the order they are submitted); with a depth test the later one fails (LESS at equal
/// depth, §17.10), the earlier one's write is the last, and the depth texel too.
#[test]
fn later_primitives_win_unless_their_depth_test_fails() {
    let p = prepared(&job("overdraw.toml"));
    let (d, found) =
        provenance::open(&p, None, &texel("rt0", 8, 8), DebugOptions::default()).unwrap();
    assert_eq!(
        found.lane,
        LaneSelect::Pixel {
            x: 8,
            y: 8,
            sample: 0,
            prim: 1
        }
    );
    assert_eq!(found.value, [0, 255, 0, 255], "green: the second triangle");
    assert!(found.flags.ends_with("--prim 1"), "{}", found.flags);
    check_lane_stored(&p, &d, &found, "overdraw (8, 8)");
    // Outside the second triangle the first one wrote.
    let p = prepared(&job("overdraw.toml"));
    let (_, corner) =
        provenance::open(&p, None, &texel("rt0", 0, 0), DebugOptions::default()).unwrap();
    assert_eq!(
        corner.lane,
        LaneSelect::Pixel {
            x: 0,
            y: 0,
            sample: 0,
            prim: 0
        }
    );
    assert_eq!(corner.value, [255, 0, 0, 255]);

    for name in ["rt0", "depth"] {
        let p = prepared(&job("overdraw_depth.toml"));
        let (d, found) =
            provenance::open(&p, None, &texel(name, 8, 8), DebugOptions::default()).unwrap();
        assert_eq!(
            found.lane,
            LaneSelect::Pixel {
                x: 8,
                y: 8,
                sample: 0,
                prim: 0
            },
            "{name}"
        );
        check_lane_stored(&p, &d, &found, name);
    }
    let p = prepared(&job("overdraw_depth.toml"));
    let (_, found) =
        provenance::open(&p, None, &texel("rt0", 8, 8), DebugOptions::default()).unwrap();
    assert_eq!(
        found.value,
        [255, 0, 0, 255],
        "red: the green triangle failed the test"
    );
}

/// Blending: the last blend into a texel is the last covering primitive's (the blend
/// reads the target, so every primitive's write counts; D3D11.3 §17.4): the lane named
/// is the last primitive covering the pixel — there is no later one (`--prim k+1` does
/// not exist).
#[test]
fn a_blended_texel_leads_to_the_last_primitive_covering_it() {
    let path = common::root().join("examples/blend.toml");
    let mut several = 0;
    // Three, two and one triangles over these pixels.
    for ((x, y), want) in [((64, 64), 2), ((55, 55), 1), ((50, 70), 1), ((70, 50), 0)] {
        let p = prepared(&path);
        let (d, found) =
            provenance::open(&p, None, &texel("rt0", x, y), DebugOptions::default()).unwrap();
        check_lane_stored(&p, &d, &found, &format!("({x}, {y})"));
        let p = prepared(&path);
        let target = dxlane::debug::from_job(&p).unwrap();
        let LaneSelect::Pixel { prim, .. } = found.lane else {
            panic!("a pixel lane");
        };
        assert_eq!(prim, want, "({x}, {y})");
        several += usize::from(prim > 0);
        let later = LaneSelect::Pixel {
            x,
            y,
            sample: 0,
            prim: prim + 1,
        };
        let e = target.place(later).unwrap_err().to_string();
        assert!(e.contains("--prim takes 0 to"), "({x}, {y}): {e}");
        assert!(found.by.contains("blend"), "{}", found.by);
    }
    assert_eq!(several, 3);
}

/// Many threads store to one word: the last in the run's order wrote it — on one worker
/// thread the groups run in order, so the last thread of the last group (its value, 127,
/// is what the word holds); words one thread wrote lead to that thread; the word nobody
/// wrote keeps the job's fill and says so. Names: the register and the `[[resource]]`
/// name lead to the same lane.
#[test]
fn the_last_of_many_threads_writing_a_word_is_named() {
    let p = prepared(&job("last_thread.toml"));
    let el = |s: &str| OutputSelect::element(s).unwrap();
    let (d, found) = provenance::open(&p, None, &el("u0[0]"), DebugOptions::default()).unwrap();
    assert_eq!(
        found.lane,
        LaneSelect::GroupThread {
            group: [1, 0, 0],
            thread: [63, 0, 0]
        }
    );
    assert_eq!(found.value, 127u32.to_le_bytes());
    assert!(found.contested && found.writes == 128, "{found:?}");
    check_lane_stored(&p, &d, &found, "u0[0]");
    // `why` continues from the store.
    let mut d = d;
    let why = d.execute("why u0[0]").unwrap();
    assert!(why.contains("127"), "{why}");
    for (name, i) in [("u0", 5u32), ("cells", 100)] {
        let p = prepared(&job("last_thread.toml"));
        let (d, found) = provenance::open(
            &p,
            None,
            &el(&format!("{name}[{}]", i + 1)),
            DebugOptions::default(),
        )
        .unwrap();
        assert_eq!(
            found.lane,
            LaneSelect::GroupThread {
                group: [i / 64, 0, 0],
                thread: [i % 64, 0, 0]
            }
        );
        assert!(!found.contested && found.writes == 1);
        check_lane_stored(&p, &d, &found, name);
    }
    let p = prepared(&job("last_thread.toml"));
    let e = provenance::open(&p, None, &el("u0[129]"), DebugOptions::default()).err();
    let Some(ProvenanceError::Unwritten(t)) = e else {
        panic!("{e:?}");
    };
    assert!(
        t.contains("ef be ad de") && t.contains("before the run"),
        "{t}"
    );
}

/// The command line: the line that names the writer, the session standing after the
/// store, exit status 3 for a texel nothing wrote (the clear), 2 for names and
/// coordinates the job does not have, each refused by name.
#[test]
fn the_command_line_names_the_writer_and_refuses_by_name() {
    let (out, err, code) = dxlane(&[
        "debug",
        "tests/jobs/provenance/overdraw.toml",
        "--texel",
        "rt0",
        "8,8",
        "-c",
        "where",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("rt0 (8, 8) (bytes 00 ff 00 ff) was last written by pixel (8, 8), the 2nd primitive covering it (--pixel 8,8 --prim 1)"),
        "{out}"
    );
    let (out, err, code) = dxlane(&[
        "debug",
        "tests/jobs/provenance/untouched.toml",
        "--texel",
        "rt0",
        "0,0",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("was written by no lane") && err.contains("clear"),
        "{err}"
    );
    let bad: &[(&[&str], &str)] = &[
        (&["--texel", "rt5", "0,0"], "`render_target` 5"),
        (&["--texel", "rt0", "16,0"], "outside rt0"),
        (&["--texel", "rt0", "1"], "is not x,y"),
        (&["--texel", "rt0", "1,1", "--sample", "4"], "sample 4"),
        (&["--texel", "rt0", "1,1", "--mip", "1"], "mip 0 only"),
        (
            &["--texel", "nothing", "1,1"],
            "`nothing` names no render target",
        ),
        (&["--element", "rt0[3]"], "--texel rt0 x,y"),
        (&["--element", "u0"], "is not NAME[i]"),
        (&["--element", "u7[0]"], "binds nothing at u7"),
    ];
    for (args, want) in bad {
        let mut a = vec!["debug", "tests/jobs/provenance/overdraw.toml"];
        a.extend_from_slice(args);
        let (out, err, code) = dxlane(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    for (args, want) in [
        (&["--element", "u0[130]"][..], "past the buffer"),
        (&["--texel", "u0", "0,0"][..], "is a buffer"),
    ] {
        let mut a = vec!["debug", "tests/jobs/provenance/last_thread.toml"];
        a.extend_from_slice(args);
        let (out, err, code) = dxlane(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// The DAP server: `launch` with `texel` and `at` opens the lane that wrote the texel;
/// `dxlane/openElement` and `dxlane/openTexel` replace the session with the lane behind
/// another output (a `stopped` event follows, described by the lookup's line); a name
/// the job does not have is an error response and the session goes on.
#[test]
fn the_dap_server_opens_the_lane_behind_an_output() {
    use crate::dap::Client;
    use serde_json::json;
    let mut c = Client::start();
    c.open(json!({
        "job": "tests/jobs/provenance/overdraw.toml",
        "texel": "rt0",
        "at": "8,8",
    }));
    let stop = c.configured();
    assert_eq!(stop["reason"], "entry");
    let thread = stop["threadId"].as_i64().unwrap();
    let w = c.ok(
        "evaluate",
        json!({ "expression": "where", "context": "repl", "frameId": 1 }),
    );
    assert!(
        w["result"].as_str().unwrap().contains("pixel (8, 8)"),
        "{w}"
    );
    let r = c.request("dxlane/openTexel", json!({ "texel": "rt9", "at": "0,0" }));
    assert_eq!(r["success"], false, "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("render_target"),
        "{r}"
    );
    let b = c.ok("dxlane/openTexel", json!({ "texel": "rt0", "at": "0,0" }));
    assert!(
        b["description"]
            .as_str()
            .unwrap()
            .contains("was last written by pixel (0, 0), the 1st primitive"),
        "{b}"
    );
    let s = c.event("stopped");
    assert_eq!(s["reason"], "entry");
    let st = c.ok("stackTrace", json!({ "threadId": s["threadId"] }));
    assert!(st["stackFrames"].is_array(), "{st}");
    let _ = thread;
    assert_eq!(c.finish(), 0);

    let mut c = Client::start();
    c.open(json!({
        "job": "tests/jobs/provenance/last_thread.toml",
        "thread": "0,0,0",
    }));
    c.configured();
    let b = c.ok("dxlane/openElement", json!({ "element": "cells[0]" }));
    assert!(
        b["description"]
            .as_str()
            .unwrap()
            .contains("was last written by thread (127, 0, 0)"),
        "{b}"
    );
    c.event("stopped");
    let v = c.ok(
        "evaluate",
        json!({ "expression": "why u0[0]", "context": "repl", "frameId": 1 }),
    );
    assert!(v["result"].as_str().unwrap().contains("127"), "{v}");
    let r = c.request("dxlane/openElement", json!({ "element": "u0[999]" }));
    assert_eq!(r["success"], false);
    assert!(
        r["message"].as_str().unwrap().contains("past the buffer"),
        "{r}"
    );
    assert_eq!(c.finish(), 0);
}

/// The bytes of a list's named resource now.
fn named_now(p: &Prepared, name: &str, addr: u64, n: u64) -> Vec<u8> {
    let m = match p.resource_named(name).unwrap().data {
        ResourceData::Buffer { memory, .. } => memory.clone(),
        ResourceData::Texture(t) => t.memory().clone(),
    };
    let mut b = vec![0u8; n as usize];
    assert!(m.read_bytes(addr, &mut b));
    b
}

/// Command lists: `--event N` looks at event N's run (after the commands before it);
/// without it, the last event that wrote the output answers, walking back from the
/// list's end — a copy or clear that changed it last is named instead, and a slice no
/// draw rendered to is "nothing wrote it". Named resources are named as the list names
/// them; a render target by its resource's name, with its slice.
#[test]
fn command_lists_look_at_an_event_or_the_last_that_wrote() {
    let el = |s: &str| OutputSelect::element(s).unwrap();
    let scan = common::root().join("examples/lists/two_pass_scan.toml");
    // block_sums: pass 2 (event 2) wrote it; nothing after changes it.
    let p = prepared(&scan);
    let (d, found) =
        provenance::open(&p, None, &el("block_sums[3]"), DebugOptions::default()).unwrap();
    let line = d.notes().last().unwrap().clone();
    assert!(line.starts_with("event 2: block_sums[3]"), "{line}");
    let bindings = bindings_of(&d.target().program.debug_shader, &found.at);
    let (_, m) = d.last_memory_write(&bindings, found.addr, 4).unwrap();
    assert_eq!(m.value[0].to_le_bytes(), found.value[..4], "{line}");
    assert_eq!(named_now(&p, "block_sums", found.addr, 4), found.value[..4]);
    // kept: the copy after the dispatches wrote it.
    let e = provenance::open(
        &prepared(&scan),
        None,
        &el("kept[5]"),
        DebugOptions::default(),
    )
    .err();
    assert!(
        matches!(&e, Some(ProvenanceError::Unwritten(t)) if t.contains("copy_resource") && t.contains("event 3")),
        "{e:?}"
    );
    // --event 1: pass 1's thread 70 (group 1, thread 6) wrote sums[70].
    let p = prepared(&scan);
    let (d, found) =
        provenance::open(&p, Some(1), &el("sums[70]"), DebugOptions::default()).unwrap();
    assert_eq!(
        found.lane,
        LaneSelect::GroupThread {
            group: [1, 0, 0],
            thread: [6, 0, 0]
        }
    );
    let bindings = bindings_of(&d.target().program.debug_shader, &found.at);
    let (_, m) = d.last_memory_write(&bindings, found.addr, 4).unwrap();
    assert_eq!(m.value[0].to_le_bytes(), found.value[..4]);

    // Render targets by their resource's name: the shadow example's camera pass.
    let shadow = common::root().join("examples/lists/shadow.toml");
    let p = prepared(&shadow);
    let sel = OutputSelect::texel("color", "100,20", 0, 0, 0).unwrap();
    let (d, found) = provenance::open(&p, None, &sel, DebugOptions::default()).unwrap();
    assert!(
        d.notes()
            .last()
            .unwrap()
            .starts_with("event 4: color (100, 20)")
    );
    assert!(found.merged);
    let lane = d.traced().unwrap().pixels[d.lane()];
    assert_eq!((lane.x, lane.y), (100, 20));
    assert_eq!(named_now(&p, "color", found.addr, found.bytes), found.value);
    // A slice of a render-target array: slice 1 is event 2's; (2, 2) of it no triangle
    // covers.
    let rta = common::root().join("examples/lists/render_target_array.toml");
    let sel = OutputSelect::texel("layers", "32,20", 1, 0, 0).unwrap();
    let (d, found) =
        provenance::open(&prepared(&rta), None, &sel, DebugOptions::default()).unwrap();
    assert!(
        d.notes()
            .last()
            .unwrap()
            .starts_with("event 2: layers (32, 20) slice 1"),
        "{:?}",
        d.notes()
    );
    assert!(found.merged);
    let sel = OutputSelect::texel("layers", "2,2", 1, 0, 0).unwrap();
    let e = provenance::open(&prepared(&rta), None, &sel, DebugOptions::default()).err();
    assert!(matches!(e, Some(ProvenanceError::Unwritten(_))), "{e:?}");
}
