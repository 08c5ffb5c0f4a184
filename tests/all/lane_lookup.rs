//! The pipeline's lane lookup (`Work::locate`) against where the pipeline really ran each
//! lane: for every example job, compute threads, vertices and pixel samples are looked
//! up, the work is run again tracing the wave the lookup names, and the traced wave's
//! lane must be the one asked for (its invocation, read from the running wave through
//! `exec::observe`) in a wave of the size the lookup says.
//!
//! The rules held: a compute group's threads fill lane slots in `dispatch::thread_layout`
//! order, cut into waves of the program's wave size (SM 6.6 compute quads); a draw's
//! vertex stage shades each distinct vertex once, in increasing `SV_VertexID` order,
//! cut into waves (the same slots every instance); pixel quads fill batches of whole quads
//! per tile, cut into waves of the program's wave size (D3D11.3 §16.8: a pixel program's
//! quads are 2×2 pixels of one primitive).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use dxlane::exec::{At, Invocation, MemWrite, WaveObserver, WaveRead, Xyz};
use dxlane::pipeline::{
    Hooks, LanePlace, LaneSelect, ObserveWave, PixelLane, PixelObserver, TraceWave, Work,
};

use crate::common;

/// Hears the traced wave's start: the invocation of one lane and the wave's width.
struct Catch {
    lane: usize,
    seen: Option<(Invocation, usize)>,
}

impl WaveObserver for Catch {
    fn start(&mut self, wave: &dyn WaveRead) {
        self.seen = Some((wave.invocation(self.lane), wave.width()));
    }
    fn step(&mut self, _: At, _: u128, _: u128, _: &dyn WaveRead, _: &[MemWrite]) {}
    fn others(&mut self, _: &[MemWrite]) {}
}

/// The covered samples of a draw: (x, y, sample of the coverage's lowest bit).
struct Covered(Mutex<Vec<(u32, u32, u32)>>);

impl PixelObserver for Covered {
    fn wave(&self, _: u32, _: u32, lanes: &[PixelLane], _: &dxlane::exec::WaveRun, _: &[u32]) {
        let mut v = self.0.lock().unwrap();
        for l in lanes.iter().filter(|l| l.coverage != 0) {
            v.push((l.x, l.y, l.coverage.trailing_zeros()));
        }
    }
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn prepare(path: &Path) -> dxlane::job::Prepared {
    let job = dxlane::job::Job::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    dxlane::job::prepare(
        job,
        &dxlane::job::RunOptions {
            threads: Some(1),
            ..common::run_options()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `p`'s work tracing the wave at `place`; returns the invocation of `place.lane`
/// and the wave's width, as the running wave reports them.
fn observe(p: &dxlane::job::Prepared, place: &LanePlace) -> (Invocation, usize) {
    let mut catch = Catch {
        lane: place.lane,
        seen: None,
    };
    match (&p.work, place.draw) {
        (Work::Dispatch(d), None) => {
            p.run(
                None,
                Hooks {
                    observe: Some(ObserveWave {
                        group: place.group,
                        wave: place.wave,
                        shader: &d.shader,
                        observer: &mut catch,
                    }),
                    ..Hooks::default()
                },
            )
            .unwrap();
        }
        (Work::Draw(d), Some(at)) => {
            let shader = match at {
                dxlane::pipeline::TraceAt::Vertex { .. } => &d.vs,
                dxlane::pipeline::TraceAt::Pixel { .. } => d.ps.as_ref().unwrap(),
                dxlane::pipeline::TraceAt::Geometry { .. } => &d.gs.as_ref().unwrap().0,
                dxlane::pipeline::TraceAt::Hull { .. } => &d.hs.as_ref().unwrap().0,
                dxlane::pipeline::TraceAt::Domain { .. } => &d.ds.as_ref().unwrap().0,
                dxlane::pipeline::TraceAt::Mesh { .. } => &d.vs,
                dxlane::pipeline::TraceAt::Amplification { .. } => {
                    &d.mesh.as_ref().unwrap().amplification.as_ref().unwrap().0
                }
                dxlane::pipeline::TraceAt::Ray { .. } => panic!("a draw has no ray lanes"),
            };
            let hook = TraceWave::new(at, shader, &mut catch);
            p.run(
                None,
                Hooks {
                    trace: Some(&hook),
                    ..Hooks::default()
                },
            )
            .unwrap();
            assert!(hook.take().is_some(), "the traced wave never ran");
        }
        _ => panic!("a place of the wrong kind of work"),
    }
    catch.seen.expect("the observed wave never started")
}

/// Picks up to `n` items spread over `v` (first, last and between).
fn spread<T: Copy>(v: &[T], n: usize) -> Vec<T> {
    if v.len() <= n {
        return v.to_vec();
    }
    (0..n).map(|k| v[k * (v.len() - 1) / (n - 1)]).collect()
}

#[test]
fn the_lookup_names_the_lane_the_pipeline_runs() {
    let (mut threads, mut vertices, mut pixels, mut staged) = (0, 0, 0, 0);
    for path in examples() {
        let show = path.display().to_string();
        let p = prepare(&path);
        if let Work::Draw(d) = &p.work {
            staged += stage_lanes(&p, d, &show);
        }
        match &p.work {
            Work::Dispatch(d) => {
                let tg = d.shader.thread_group;
                let g = d.groups;
                let last = [g[0] * tg[0] - 1, g[1] * tg[1] - 1, g[2] * tg[2] - 1];
                let picks = [
                    [0, 0, 0],
                    [1.min(last[0]), 1.min(last[1]), 0],
                    [last[0] / 2, last[1] / 2, last[2] / 2],
                    last,
                ];
                for t in picks {
                    let place = p.work.locate(&p.plan, LaneSelect::Thread(t)).unwrap();
                    let (inv, width) = observe(&p, &place);
                    let group = Xyz([t[0] / tg[0], t[1] / tg[1], t[2] / tg[2]]);
                    let thread = Xyz([t[0] % tg[0], t[1] % tg[1], t[2] % tg[2]]);
                    assert_eq!(
                        inv,
                        Invocation::Thread { group, thread },
                        "{show}: thread {t:?} at {place:?}"
                    );
                    assert_eq!(width, place.wave_size as usize, "{show}: {t:?}");
                    threads += 1;
                }
            }
            Work::Draw(d) => {
                // Vertices: the first, the last and some between of the distinct ones.
                let st = d.state();
                let mut ids: Vec<u32> = (0..d.args.vertex_count)
                    .map(|k| match &st.index_buffer {
                        Some(ib) => {
                            dxlane::pipeline::ia::read_index(ib, u64::from(d.args.start_vertex + k))
                        }
                        None => k,
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                for vertex in spread(&ids, 5) {
                    for instance in [0, d.args.instance_count - 1] {
                        let sel = LaneSelect::Vertex { vertex, instance };
                        let place = p.work.locate(&p.plan, sel).unwrap();
                        let (inv, width) = observe(&p, &place);
                        match inv {
                            Invocation::Vertex {
                                vertex: v,
                                instance: i,
                            } => assert_eq!(
                                (v, i),
                                (vertex, instance),
                                "{show}: {sel:?} at {place:?}"
                            ),
                            other => panic!("{show}: {sel:?}: a {other:?} lane"),
                        }
                        assert_eq!(width, place.wave_size as usize, "{show}: {sel:?}");
                        vertices += 1;
                    }
                }
                if d.ps.is_none() {
                    continue;
                }
                // Pixels: samples a normal draw covered, spread over the target.
                let covered = Covered(Mutex::new(Vec::new()));
                p.run(
                    None,
                    Hooks {
                        pixels: Some(&covered),
                        ..Hooks::default()
                    },
                )
                .unwrap();
                let mut all = covered.0.into_inner().unwrap();
                all.sort_unstable();
                all.dedup();
                for (x, y, sample) in spread(&all, 6) {
                    let sel = LaneSelect::Pixel {
                        x,
                        y,
                        sample,
                        prim: 0,
                    };
                    // The lookup and the observed run each draw from the job's starting
                    // depth: a depth-tested draw over the depth a previous draw left
                    // leaves an early-depth pixel program unshaded.
                    let p = prepare(&path);
                    let place = p.work.locate(&p.plan, sel).unwrap();
                    let (inv, width) = observe(&prepare(&path), &place);
                    match inv {
                        Invocation::Pixel { x: ix, y: iy, .. } => {
                            assert_eq!((ix, iy), (x, y), "{show}: {sel:?} at {place:?}")
                        }
                        other => panic!("{show}: {sel:?}: a {other:?} lane"),
                    }
                    assert_eq!(width, place.wave_size as usize, "{show}: {sel:?}");
                    pixels += 1;
                }
            }
            // Command lists live in examples/lists/; their events are tested there.
            Work::List(_) => panic!("{show}: a command list among the single-work examples"),
            // The Cornell box: ray lanes are selected with `--ray` (`debug_rays`).
            Work::Rays(_) => {}
        }
    }
    // Every example was looked at: the compute examples' threads, the draw examples'
    // vertices and pixels.
    assert!(
        threads >= 20 && vertices >= 20 && pixels >= 20 && staged >= 10,
        "{threads} threads, {vertices} vertices, {pixels} pixels, {staged} geometry, hull and domain lanes compared"
    );
}

/// The geometry, hull and domain lanes of draw `d` that the lookup places run where it
/// says: each stage gives its lanes their ids where a compute lane's thread id goes
/// (geometry: `SV_PrimitiveID`, `SV_GSInstanceID`; hull: the patch and
/// `SV_OutputControlPointID`, 0 for the patch-constant phase; domain: the patch and the
/// domain point). Returns how many were compared.
fn stage_lanes(p: &dxlane::job::Prepared, d: &dxlane::pipeline::DrawWork, show: &str) -> u32 {
    let mut sels = Vec::new();
    if let Some((g, _)) = &d.gs {
        let inst = g.geometry.unwrap().instances;
        for prim in [0, 1, d.args.vertex_count.saturating_sub(1)] {
            for gs_instance in [0, inst - 1] {
                sels.push((
                    LaneSelect::Geometry {
                        prim,
                        gs_instance,
                        instance: 0,
                    },
                    [prim, gs_instance, 0],
                ));
            }
        }
    }
    if let Some((h, _)) = &d.hs {
        let n = h.hull.unwrap().output_points;
        for k in 0..n {
            sels.push((
                LaneSelect::Hull {
                    patch: 0,
                    control_point: Some(k),
                    join: false,
                    instance: 0,
                },
                [0, k, 0],
            ));
        }
        sels.push((
            LaneSelect::Hull {
                patch: 0,
                control_point: None,
                join: false,
                instance: 0,
            },
            [0, 0, 0],
        ));
        for point in [0, 1, 7, 20] {
            sels.push((
                LaneSelect::Domain {
                    patch: 0,
                    point,
                    instance: 0,
                },
                [0, point, 0],
            ));
        }
    }
    for (sel, ids) in &sels {
        let place = p.work.locate(&p.plan, *sel).unwrap();
        let (inv, width) = observe(p, &place);
        assert_eq!(
            inv,
            Invocation::Thread {
                group: Xyz([0; 3]),
                thread: Xyz(*ids)
            },
            "{show}: {sel:?} at {place:?}"
        );
        assert_eq!(width, place.wave_size as usize, "{show}: {sel:?}");
    }
    sels.len() as u32
}

/// The lookup refuses lanes outside the work, naming its extent.
#[test]
fn lanes_outside_the_work_are_refused_with_its_extent() {
    let p = prepare(&common::root().join("examples/triangle.toml"));
    let e = p
        .work
        .locate(
            &p.plan,
            LaneSelect::Vertex {
                vertex: 1000,
                instance: 0,
            },
        )
        .unwrap_err();
    assert!(e.0.contains("past the draw"), "{e}");
    let e = p
        .work
        .locate(&p.plan, LaneSelect::Thread([0; 3]))
        .unwrap_err();
    assert!(e.0.contains("pixels and vertices"), "{e}");
    let p = prepare(&common::root().join("examples/mandelbrot.toml"));
    let e = p
        .work
        .locate(&p.plan, LaneSelect::Thread([1 << 20, 0, 0]))
        .unwrap_err();
    assert!(e.0.contains("outside the dispatch"), "{e}");
}
