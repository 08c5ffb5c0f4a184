//! Pipeline state objects: what a command list's draws keep from one draw to the next.
//!
//! A D3D12 application creates a pipeline state object once and binds it for many
//! draws; the driver validates and compiles the programs when the object is created,
//! not at each draw (`ID3D12Device::CreateGraphicsPipelineState`). A list here has no
//! such object — each draw names its programs — so the list keeps, in a [`PsoCache`],
//! what a driver would keep in one:
//!
//! - each program it has drawn with, prepared (`exec::PreparedStage`: validated, its
//!   registers analysed, its native code) under the profile, wave size and engine it
//!   ran with: a later draw of an equal program under the same three makes its program
//!   from it instead of preparing it again, and the runners of those programs pass
//!   their waves on to one another instead of each allocating and zeroing its own;
//! - the tile lists of a draw of few primitives, whose storage the next such draw over
//!   a target of the same size fills again instead of allocating a list per tile.
//!
//! A list of 1,000 one-triangle draws otherwise prepared two programs, made two
//! runners and allocated 510 tile lists per draw, which cost more than its triangle.
//!
//! - the checked and linked state of the last draw (its targets, input layout, linked
//!   signatures, viewports: `draw`'s front end), for the next draw of the very same
//!   state objects ([`SharedState`]);
//! - which program objects each prepared program was found equal to, so that a later
//!   draw of the same object takes it without comparing the programs again.
//!
//! Same bits: a program made from a prepared one runs as one made anew would
//! (`exec::StageProgram::from_prepared`), a kept wave is made as a new one before it is
//! used (`exec::StageRunner::new`), and kept tile lists are emptied before they are
//! filled; the cache changes what is allocated, never what is drawn.
//!
//! Owns: what a list keeps and for how many programs. Does not own: preparing a program
//! (`exec::stage`), the draw (`draw`), or the tile lists themselves (`bin`).

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard};

use super::bin::{Binned, Bins};
use super::plan::{BatchKind, BatchLanes, Plan, ProgramWaveSize};
use super::state::FixedState;
use crate::exec::jit::ReportKey;
use crate::exec::{DescriptorTable, ExecError, PreparedStage, StageProgram};
use crate::ir::Shader;

/// A prepared program and the wave it was chosen for: the program's wave size and
/// batch follow from its shader, the plan's wave-size option and the stage alone
/// (`plan::ProgramWaveSize::choose`, `plan::BatchLanes::choose`), so a later draw of
/// an equal shader under the same three takes them from here instead of reading the
/// program's instructions again.
#[derive(Debug)]
struct Kept {
    prepared: PreparedStage,
    /// The plan's wave-size option and the class of stage the choice was made for
    /// (`BatchKind::class`).
    asked: (Option<u32>, BatchKind),
    /// The program's wave size and the batch it runs in.
    chosen: (u32, u32),
    /// The last program object found equal to `prepared`'s shader. Held, so the object
    /// lives while the cache does and no other can take its address: a draw whose
    /// program is this very object (a list's draws of one file share one, `DrawWork`)
    /// takes the prepared program without comparing the two whole.
    seen: Option<Arc<Shader>>,
}

/// The objects a command list's draw shares with other draws of the same state: a
/// list's draws of one program file hold one program object, and a draw whose fixed
/// state equals the previous draw's holds the previous draw's (`work::DrawWork`). Two
/// draws naming the same three objects have the same state but for their bindings.
#[derive(Debug, Clone, Copy)]
pub struct SharedState<'a> {
    /// The fixed state the draw's state was made from.
    pub fixed: &'a Arc<FixedState>,
    /// The vertex program.
    pub vs: &'a Arc<Shader>,
    /// The pixel program.
    pub ps: Option<&'a Arc<Shader>>,
}

/// The objects of the state a kept front end was made from, held (as [`Kept::seen`]
/// is) so that their addresses name them while the cache lives.
#[derive(Debug)]
struct FrontKey {
    fixed: Arc<FixedState>,
    vs: Arc<Shader>,
    ps: Option<Arc<Shader>>,
}

impl FrontKey {
    fn names(&self, s: &SharedState<'_>) -> bool {
        Arc::ptr_eq(&self.fixed, s.fixed)
            && Arc::ptr_eq(&self.vs, s.vs)
            && match (&self.ps, s.ps) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// Most programs a [`PsoCache`] keeps, the most recently used: a list draws with few
/// programs, and each kept one holds a copy of its shader and its spare waves.
const KEPT_PROGRAMS: usize = 32;

/// Most entries kept tile lists may hold in all: only a small draw's lists are kept
/// (a large one's cost is its primitives, and its storage is not held past it).
const KEPT_BIN_ENTRIES: usize = 4096;

/// What a command list's draws keep from one draw to the next (see the module
/// documentation). Made empty for each list run; shared by reference with its draws.
#[derive(Debug, Default)]
pub struct PsoCache {
    /// Prepared programs, least recently used first.
    programs: Mutex<Vec<Kept>>,
    /// The tile lists of the last small draw, emptied.
    bins: Mutex<Option<Bins<Binned>>>,
    /// The last line each stage's native-code report made, with the report: a list's
    /// draws of one program report the same line draw after draw (a program without a
    /// loop adds no run to its counts), and formatting it cost a small draw more than
    /// its triangle's setup.
    jit_lines: Mutex<Vec<(&'static str, ReportKey, String)>>,
    /// The last draw's front end (`draw`'s, opaque here) and the state it was made
    /// from.
    front: Mutex<Option<(FrontKey, Arc<dyn Any + Send + Sync>)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl PsoCache {
    /// An empty cache.
    pub fn new() -> PsoCache {
        PsoCache::default()
    }

    /// The program of `shader` with `table` for a stage of `kind`, under `plan`'s
    /// profile, limits, engine and wave-size option, and its wave size: made from the
    /// prepared program of an equal shader under the same four when the cache holds
    /// one, else chosen and made as [`ProgramWaveSize::choose`], [`BatchLanes::choose`],
    /// [`StageProgram::new`] and `with_engine` make it, and kept prepared. Errors are
    /// theirs.
    ///
    /// `shared`, when given, is the object `shader` is (`Arc::as_ptr` of it is
    /// `shader`): the kept program remembers it, and a later call with the same object
    /// finds the program without comparing the shaders.
    pub fn program<'a>(
        &self,
        shader: &'a Shader,
        shared: Option<&Arc<Shader>>,
        kind: BatchKind,
        table: impl FnOnce() -> Result<DescriptorTable, ExecError>,
        plan: &Plan,
    ) -> Result<(u32, StageProgram<'a>), ExecError> {
        let asked = (plan.wave_size, kind.class());
        let shared = shared.filter(|a| std::ptr::eq(Arc::as_ptr(a), shader));
        {
            let mut programs = lock(&self.programs);
            let runs = |k: &Kept| {
                k.asked == asked && k.prepared.runs_as(&plan.profile, k.chosen.1, plan.engine)
            };
            // The same object as one found equal before: `seen` keeps that object alive,
            // so an equal address is that object.
            let same = programs.iter().rposition(|k| {
                runs(k)
                    && k.seen
                        .as_ref()
                        .is_some_and(|a| std::ptr::eq(Arc::as_ptr(a), shader))
            });
            let hit = same.or_else(|| {
                programs
                    .iter()
                    .rposition(|k| runs(k) && *k.prepared.shader() == *shader)
            });
            if let Some(i) = hit {
                // Most recently used last.
                let mut k = programs.remove(i);
                if same.is_none()
                    && let Some(a) = shared
                {
                    k.seen = Some(Arc::clone(a));
                }
                let made =
                    StageProgram::from_equal_prepared(shader, &k.prepared, table()?, plan.limits);
                let wave = k.chosen.0;
                programs.push(k);
                return Ok((wave, made));
            }
        }
        let wave = ProgramWaveSize::choose(shader, plan.wave_size)?;
        let batch = BatchLanes::choose(shader, wave, kind).get();
        let mut program =
            StageProgram::new(shader, table()?, plan.profile.clone(), plan.limits, batch)?
                .with_engine(plan.engine);
        let prepared = program.prepare();
        let mut programs = lock(&self.programs);
        if programs.len() >= KEPT_PROGRAMS {
            programs.remove(0);
        }
        programs.push(Kept {
            prepared,
            asked,
            chosen: (wave.get(), batch),
            seen: shared.cloned(),
        });
        Ok((wave.get(), program))
    }

    /// Empty tile lists for a `width × height` target: the kept ones when they are for
    /// a target of that size, else new ones.
    pub(crate) fn bins(&self, width: u32, height: u32) -> Bins<Binned> {
        match lock(&self.bins).take() {
            Some(b) if b.size() == (width, height) => b,
            _ => Bins::new(width, height),
        }
    }

    /// Keeps a draw's tile lists for the next draw, emptied, when they hold few enough
    /// entries (their storage is then small); drops them otherwise.
    pub(crate) fn keep_bins(&self, mut bins: Bins<Binned>) {
        if bins.held() > KEPT_BIN_ENTRIES {
            return;
        }
        bins.clear_lists();
        *lock(&self.bins) = Some(bins);
    }

    /// The report line `stage: report` of a draw (`DrawReport::jit`) of `program`, whose
    /// report key is `key`: made again only when the key differs from the one the
    /// stage's last line was made from (equal keys give equal reports, [`ReportKey`]).
    pub(crate) fn jit_line(
        &self,
        stage: &'static str,
        key: ReportKey,
        program: &StageProgram<'_>,
    ) -> Option<String> {
        let mut lines = lock(&self.jit_lines);
        if let Some((_, last, line)) = lines.iter().find(|(s, _, _)| *s == stage)
            && *last == key
        {
            return Some(line.clone());
        }
        let line = format!("{stage}: {}", program.jit_report()?);
        match lines.iter_mut().find(|(s, _, _)| *s == stage) {
            Some(kept) => *kept = (stage, key, line.clone()),
            None => lines.push((stage, key, line.clone())),
        }
        Some(line)
    }

    /// The front end kept by [`PsoCache::keep_front`] for the state `shared` names, if
    /// the last one kept was for that state and is a `T`.
    pub(crate) fn front<T: Any + Send + Sync>(&self, shared: &SharedState<'_>) -> Option<Arc<T>> {
        let front = lock(&self.front);
        let (key, kept) = front.as_ref()?;
        if !key.names(shared) {
            return None;
        }
        Arc::clone(kept).downcast::<T>().ok()
    }

    /// Keeps `front`, made from the state `shared` names, for the next draw (replacing
    /// the one kept before: a list's draws of one state come one after another).
    pub(crate) fn keep_front<T: Any + Send + Sync>(&self, shared: &SharedState<'_>, front: Arc<T>) {
        let key = FrontKey {
            fixed: Arc::clone(shared.fixed),
            vs: Arc::clone(shared.vs),
            ps: shared.ps.cloned(),
        };
        *lock(&self.front) = Some((key, front));
    }

    /// Whether the front end kept is for the state `shared` names.
    #[cfg(test)]
    pub(crate) fn keeps_front_of(&self, shared: &SharedState<'_>) -> bool {
        lock(&self.front)
            .as_ref()
            .is_some_and(|(k, _)| k.names(shared))
    }

    /// How many prepared programs the cache holds.
    pub fn programs(&self) -> usize {
        lock(&self.programs).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::jit::Engine;
    use crate::ir::parse_shader;
    use crate::pipeline::fixtures::{FULLSCREEN_VS, POSITION_PS};
    use crate::pipeline::{
        Bindings, CullMode, DrawArgs, DrawOptions, DrawState, RenderTargetView, draw,
    };
    use crate::resources::{Format, Texture, TextureDesc};

    /// A full-screen triangle of `vs` and `ps` into a new `w × h` float target.
    fn draw_into(
        vs: &Shader,
        ps: &Shader,
        plan: &Plan,
        pso: Option<&PsoCache>,
        w: u32,
        h: u32,
    ) -> Vec<u8> {
        let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, w, h)).unwrap();
        let none = Bindings::default();
        let mut state = DrawState::new(vs, Some(ps), &none, &none);
        state.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        state.rasterizer.cull_mode = CullMode::None;
        let args = DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        };
        let opts = DrawOptions {
            plan: plan.clone(),
            pso,
            ..DrawOptions::default()
        };
        draw(&state, &args, &opts).unwrap();
        rt.to_bytes()
    }

    /// What the position program writes at every pixel of a `w × h` target: its
    /// `SV_Position`, the pixel centre (D3D11.3 §3.3.1: centres at half-integers).
    fn positions(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        for y in 0..h {
            for x in 0..w {
                for c in [x as f32 + 0.5, y as f32 + 0.5, 0.0, 0.0] {
                    out.extend(c.to_le_bytes());
                }
            }
        }
        out
    }

    /// A pipeline state object's programs are checked and compiled once and bound by
    /// every draw after (`ID3D12Device::CreateGraphicsPipelineState`): a list's draws of
    /// equal programs (other objects, other targets) under one state prepare them once,
    /// a draw under another engine prepares its own, and every draw writes what it
    /// writes without the cache — on one worker and on two, whose runners' waves and
    /// the tile lists pass from draw to draw.
    #[test]
    fn a_lists_draws_prepare_each_program_once_and_draw_the_same() {
        let vs = parse_shader(FULLSCREEN_VS).unwrap();
        let ps = parse_shader(POSITION_PS).unwrap();
        let (vs2, ps2) = (vs.clone(), ps.clone());
        for threads in [1, 2] {
            let plan = Plan {
                threads,
                engine: Engine::Interp,
                ..Plan::default()
            };
            let cache = PsoCache::new();
            assert_eq!(
                draw_into(&vs, &ps, &plan, Some(&cache), 70, 40),
                positions(70, 40)
            );
            assert_eq!(cache.programs(), 2, "a vertex and a pixel program");
            assert_eq!(
                draw_into(&vs2, &ps2, &plan, Some(&cache), 70, 40),
                positions(70, 40)
            );
            assert_eq!(
                draw_into(&vs2, &ps2, &plan, Some(&cache), 130, 20),
                positions(130, 20)
            );
            assert_eq!(
                cache.programs(),
                2,
                "equal programs, one state: prepared once"
            );
            let jit = Plan {
                engine: Engine::Jit,
                ..plan.clone()
            };
            assert_eq!(
                draw_into(&vs, &ps, &jit, Some(&cache), 70, 40),
                draw_into(&vs, &ps, &jit, None, 70, 40)
            );
            assert_eq!(cache.programs(), 4, "another engine: prepared again");
            assert_eq!(
                draw_into(&vs2, &ps2, &plan, Some(&cache), 70, 40),
                positions(70, 40)
            );
        }
    }

    /// Kept tile lists are emptied: a draw listed into them lists what it lists into
    /// new ones (`bin`: each tile's primitives in draw order), and lists for another
    /// target size are not reused.
    #[test]
    fn kept_tile_lists_start_empty() {
        let cache = PsoCache::new();
        let mut bins: Bins<Binned> = Bins::new(200, 100);
        bins.add(Binned::default(), [0, 0, 150, 80]);
        assert!(bins.bins.iter().any(|b| !b.is_empty()));
        cache.keep_bins(bins);
        let again = cache.bins(200, 100);
        assert_eq!(again, Bins::new(200, 100));
        cache.keep_bins(again);
        assert_eq!(cache.bins(300, 100), Bins::new(300, 100));

        // Lists whose occupied tiles are recorded (a small draw's) are emptied there:
        // the record is what the next draw's tile loop reads.
        let mut bins: Bins<Binned> = Bins::new(200, 100);
        bins.add(Binned::default(), [70, 0, 150, 10]);
        let tiles = vec![1, 2];
        assert!(tiles.iter().all(|&t| !bins.bins[t as usize].is_empty()));
        let held = bins.bins.iter().map(Vec::capacity).sum();
        bins.record_occupied(tiles, held);
        cache.keep_bins(bins);
        let again = cache.bins(200, 100);
        assert_eq!(again, Bins::new(200, 100));
        assert_eq!(again.occupied(), Some(&[][..]));
        assert_eq!(again.held(), held);
    }

    /// A stage's native-code line is made again when its report changes, and is the
    /// line `format!` makes either way.
    #[test]
    fn jit_lines_follow_the_report() {
        let vs = parse_shader(FULLSCREEN_VS).unwrap();
        let ps = parse_shader(POSITION_PS).unwrap();
        let table = |s: &Shader| DescriptorTable::new(s, &[], &[], &[]);
        let plan = Plan {
            engine: Engine::Jit,
            ..Plan::default()
        };
        let cache = PsoCache::new();
        let key = |p: &StageProgram<'_>| p.jit_report_key().expect("a native program");
        let line = |stage: &'static str, p: &StageProgram<'_>| {
            format!("{stage}: {}", p.jit_report().expect("a native program"))
        };
        let v = cache
            .program(
                &vs,
                None,
                BatchKind::Vertex { vertices: 3 },
                || table(&vs),
                &plan,
            )
            .unwrap()
            .1;
        let p = cache
            .program(&ps, None, BatchKind::Pixel, || table(&ps), &plan)
            .unwrap()
            .1;
        assert_eq!(cache.jit_line("vs", key(&v), &v), Some(line("vs", &v)));
        assert_eq!(cache.jit_line("vs", key(&v), &v), Some(line("vs", &v)));
        assert_eq!(cache.jit_line("ps", key(&p), &p), Some(line("ps", &p)));
        // Another program in the stage's slot: the line follows its report, not the
        // kept one (the code differs).
        assert_eq!(cache.jit_line("vs", key(&p), &p), Some(line("vs", &p)));
        // A later draw's program of the same code says it was compiled earlier.
        let again = cache
            .program(&ps, None, BatchKind::Pixel, || table(&ps), &plan)
            .unwrap()
            .1;
        let l = cache.jit_line("ps", key(&again), &again).unwrap();
        assert_eq!(l, line("ps", &again));
        assert!(l.contains("compiled earlier"), "{l}");
        // The interpreter has no line.
        let interp = Plan {
            engine: Engine::Interp,
            ..Plan::default()
        };
        let i = cache
            .program(&ps, None, BatchKind::Pixel, || table(&ps), &interp)
            .unwrap()
            .1;
        assert_eq!(i.jit_report_key(), None, "the interpreter has no report");
    }

    /// A list's draw of the same state objects as the draw before takes that draw's
    /// checked and linked state, and its programs by identity; a draw of other objects
    /// (another target, so another size and viewport) makes its own. Each draw writes
    /// what it writes without the cache: a front end taken for the wrong state would
    /// draw the other target's size.
    #[test]
    fn a_draw_of_the_same_state_objects_takes_the_kept_front_end() {
        use crate::exec::RunBudget;
        use crate::pipeline::draw::draw_shared;
        let vs = Arc::new(parse_shader(FULLSCREEN_VS).unwrap());
        let ps = Arc::new(parse_shader(POSITION_PS).unwrap());
        let none = Bindings::default();
        let fixed_of = |w, h| {
            let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, w, h)).unwrap();
            let mut state = DrawState::new(&vs, Some(&ps), &none, &none);
            state.render_targets = vec![Some(RenderTargetView {
                texture: rt.clone(),
            })];
            state.rasterizer.cull_mode = CullMode::None;
            (rt, Arc::new(state.fixed()))
        };
        let targets = [fixed_of(70, 40), fixed_of(130, 20)];
        let sizes = [(70, 40), (130, 20)];
        let plan = Plan {
            threads: 1,
            engine: Engine::Interp,
            ..Plan::default()
        };
        let cache = PsoCache::new();
        let opts = DrawOptions {
            plan: plan.clone(),
            pso: Some(&cache),
            ..DrawOptions::default()
        };
        let budget = RunBudget::new(&plan.limits);
        let args = DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        };
        for k in [0, 0, 1, 0, 1, 1] {
            let (rt, fixed) = &targets[k];
            rt.memory().write_bytes(0, &vec![0; rt.to_bytes().len()]);
            let shared = SharedState {
                fixed,
                vs: &vs,
                ps: Some(&ps),
            };
            let state = fixed.state(&vs, Some(&ps), &none, &none);
            draw_shared(&state, &args, &opts, &budget, Some(shared)).unwrap();
            assert!(cache.keeps_front_of(&shared));
            let (w, h) = sizes[k];
            assert_eq!(rt.to_bytes(), positions(w, h), "target {k}");
        }
        assert_eq!(cache.programs(), 2, "a vertex and a pixel program");
    }
}
