//! Thread groups: a prepared [`Program`], and a [`GroupRunner`] that runs one group at a
//! time on a worker thread, waves interleaved at barriers.
//!
//! # Barriers
//!
//! The runner runs each wave of the group until it finishes or reaches a
//! `barrier group_sync`; when every wave has done one or the other, the waves at the
//! barrier resume. So every wave reaches a barrier before any passes it, as D3D requires.
//! Group shared memory belongs to the runner and is only touched by the group's waves, one
//! at a time, so it needs no synchronisation.
//!
//! # Wave width
//!
//! Lane loops are monomorphic over the wave width: the runner holds waves of exactly one
//! width, chosen when it is made (4, 8, 16, 32, 64 or 128 lanes).

use std::sync::Arc;

use crate::ir::{Shader, validate};

use super::Ctx;
use super::budget::{ExecError, Limits};
use super::interp::{Outcome, run, run_traced};
use super::jit::{self, Engine, JitReport, JitShader};
use super::observe::{Collect, WaveObserver, WriteSink, reader};
use super::profile::Profile;
use super::resource::DescriptorTable;
use super::wave::{Wave, WaveState};

/// The most threads a thread group may have here (D3D's limit is 1024; a little slack
/// for programs written by hand).
pub const MAX_GROUP_THREADS: usize = 1 << 16;

/// A shader ready to run: validated, with its descriptors, profile, limits, wave size and
/// the thread each lane slot of a group runs.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    shader: &'a Shader,
    table: DescriptorTable,
    profile: Profile,
    limits: Limits,
    wave_size: u32,
    layout: Vec<[u32; 3]>,
    ftz: bool,
    jit: Option<Arc<JitShader>>,
    /// `SV_ViewID`'s input word and the view every lane reads there
    /// ([`with_view_id`](Self::with_view_id)).
    view: Option<(usize, u32)>,
}

impl<'a> Program<'a> {
    /// Prepares `shader`. `layout[i]` is the `SV_GroupThreadID` of lane slot `i` of a
    /// group: slot `i` is lane `i % wave_size` of wave `i / wave_size`.
    pub fn new(
        shader: &'a Shader,
        table: DescriptorTable,
        profile: Profile,
        limits: Limits,
        wave_size: u32,
        layout: Vec<[u32; 3]>,
    ) -> Result<Program<'a>, ExecError> {
        validate(shader)?;
        if !(4..=128).contains(&wave_size) || !wave_size.is_power_of_two() {
            return Err(ExecError::WaveSize {
                size: wave_size,
                message: "not a power of two from 4 to 128".into(),
            });
        }
        if layout.is_empty() || layout.len() > MAX_GROUP_THREADS {
            return Err(ExecError::Dispatch(format!(
                "a thread group of {} threads (1 to {MAX_GROUP_THREADS})",
                layout.len()
            )));
        }
        let ftz = profile.flushes_fp32_denormals(shader.fp32_denorm);
        Ok(Program {
            shader,
            table,
            profile,
            limits,
            wave_size,
            layout,
            ftz,
            jit: None,
            view: None,
        })
    }

    /// Runs every group as view instance `view` of a view-instanced mesh draw: a mesh
    /// program's `SV_ViewID` input word (its only stage input; DXIL.rst: `NotInSig` in
    /// `MSIn`) reads `view` in every lane. Without it the word reads 0.
    pub fn with_view_id(mut self, view: u32) -> Program<'a> {
        self.view = self
            .shader
            .input_sv(crate::ir::SysValue::ViewId)
            .map(|e| (e.slot as usize, view));
        self
    }

    /// Chooses the engine: with [`Engine::Jit`] the shader's arithmetic is compiled now,
    /// once, for this program's wave width, and shared by every runner made from it.
    pub fn with_engine(mut self, engine: Engine) -> Program<'a> {
        self.jit = jit::compile_for(engine, self.shader, self.jit_key());
        self
    }

    fn jit_key(&self) -> jit::Key {
        jit::Key {
            width: self.wave_size,
            ftz: self.ftz,
            fuse_mad: self.profile.fuse_mad,
        }
    }

    /// What the native engine compiled, and what its region code has run so far, when
    /// the program uses it.
    pub fn jit_report(&self) -> Option<JitReport> {
        self.jit.as_deref().map(JitShader::report)
    }

    /// The shader.
    pub fn shader(&self) -> &'a Shader {
        self.shader
    }

    /// Lanes per wave.
    pub fn wave_size(&self) -> u32 {
        self.wave_size
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Threads per group.
    pub fn threads_per_group(&self) -> usize {
        self.layout.len()
    }

    /// Waves per group.
    pub fn waves_per_group(&self) -> usize {
        self.layout.len().div_ceil(self.wave_size as usize)
    }

    /// Bytes of execution state one group's runner holds (registers, per-lane arrays,
    /// group shared memory).
    pub fn group_memory_bytes(&self) -> u64 {
        let locals: u64 = self.shader.locals.iter().map(|x| u64::from(x.bytes)).sum();
        let per_wave = (self.shader.num_regs as u64) * u64::from(self.wave_size) * 4
            + locals.div_ceil(4) * 4 * u64::from(self.wave_size);
        per_wave * self.waves_per_group() as u64 + 4 * self.group_words() as u64
    }

    /// Words of a group's memory: its group shared memory and, for a mesh or
    /// amplification program, the bookkeeping and output arrays after it
    /// ([`crate::ir::MeshRegion`]).
    pub fn group_words(&self) -> usize {
        let s = self.shader;
        let shared = (s.groupshared_bytes as usize).div_ceil(4);
        match s.mesh {
            Some(m) => m.region(shared, self.layout.len(), s.output_words).end,
            None => shared,
        }
    }
}

/// What running one group did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupStats {
    /// Lane-instructions executed (instructions and terminators, per active lane).
    pub lane_instructions: u64,
    /// Waves run.
    pub waves: u64,
}

struct Group<const W: usize> {
    waves: Vec<Wave<W>>,
    lanes: Vec<u128>,
    shared: Vec<u32>,
}

impl<const W: usize> Group<W> {
    fn new(p: &Program<'_>) -> Group<W> {
        let s = p.shader;
        let locals: Vec<u32> = s.locals.iter().map(|x| x.bytes).collect();
        let [tx, ty, _] = s.thread_group;
        let mut waves = Vec::new();
        let mut masks = Vec::new();
        for chunk in p.layout.chunks(W) {
            // Only a mesh program's SV_ViewID is a group program's input (the validator
            // refuses compute inputs); nothing writes input words, so they are set once.
            let mut w =
                Wave::<W>::new(s.num_regs as usize, &s.consts, &locals).with_io(s.input_words, 0);
            if let Some((slot, view)) = p.view
                && let Some(words) = w.inputs.get_mut(slot * W..(slot + 1) * W)
            {
                words.fill(view);
            }
            let mut lanes = 0u128;
            for (l, t) in chunk.iter().enumerate() {
                lanes |= 1 << l;
                for k in 0..3 {
                    w.gtid[k][l] = t[k];
                }
                w.gindex[l] = t[0]
                    .wrapping_add(t[1].wrapping_mul(tx))
                    .wrapping_add(t[2].wrapping_mul(tx.wrapping_mul(ty)));
            }
            waves.push(w);
            masks.push(lanes);
        }
        Group {
            waves,
            lanes: masks,
            shared: vec![0; p.group_words()],
        }
    }

    fn run(
        &mut self,
        p: &Program<'_>,
        group_id: [u32; 3],
        hooks: GroupHooks<'_>,
    ) -> Result<GroupStats, ExecError> {
        let s = p.shader;
        // With an observed wave, the other waves' writes are collected (and passed on) so
        // that the observer hears them in the order they happened.
        let others = Collect {
            buf: std::sync::Mutex::new(Vec::new()),
            outer: hooks.writes,
            keep_local: false,
        };
        let mut observe = hooks.observe;
        let writes: Option<&dyn WriteSink> = if observe.is_some() {
            Some(&others)
        } else {
            hooks.writes
        };
        let cx = Ctx {
            shader: s,
            table: &p.table,
            profile: &p.profile,
            limit: p.limits.max_lane_instructions,
            ftz: p.ftz,
            group_id,
            shared_bytes: u64::from(s.groupshared_bytes),
            pixel: None,
            rays: None,
            writes,
            jit: p.jit.as_deref(),
        };
        let entry = s.blocks.first().map_or(0, |b| b.start);
        for (w, &lanes) in self.waves.iter_mut().zip(&self.lanes) {
            w.reset(s.consts.len(), lanes, entry);
        }
        self.shared.fill(0);
        // A mesh group's payload: the first words of its shared memory.
        for (d, v) in self.shared.iter_mut().zip(hooks.shared_init) {
            *d = *v;
        }
        if let Some((t, obs)) = &mut observe
            && let Some(w) = self.waves.get(*t)
        {
            obs.start(&reader(w, &cx));
        }
        loop {
            let mut waiting = false;
            for (i, w) in self.waves.iter_mut().enumerate() {
                if w.state != WaveState::Running {
                    continue;
                }
                let out = match &mut observe {
                    Some((t, obs)) if *t == i => {
                        obs.others(&others.take());
                        run_traced(w, &cx, &mut self.shared, hooks.writes, &mut **obs)?
                    }
                    _ => run(w, &cx, &mut self.shared)?,
                };
                if out == Outcome::Barrier {
                    waiting = true;
                }
            }
            if !waiting {
                break;
            }
            for w in &mut self.waves {
                if w.state == WaveState::AtBarrier {
                    w.state = WaveState::Running;
                }
            }
        }
        if let Some((_, obs)) = &mut observe {
            obs.others(&others.take());
        }
        Ok(GroupStats {
            lane_instructions: self.waves.iter().map(|w| w.executed).sum(),
            waves: self.waves.len() as u64,
        })
    }
}

enum Inner {
    W4(Group<4>),
    W8(Group<8>),
    W16(Group<16>),
    W32(Group<32>),
    W64(Group<64>),
    W128(Group<128>),
}

/// What a group run reports to (see `observe`): memory writes of every lane, and every
/// step of one wave (by its index in the group).
#[derive(Default)]
pub struct GroupHooks<'a> {
    /// Where every lane's memory writes go.
    pub writes: Option<&'a dyn WriteSink>,
    /// The wave (index in the group: lane slots `i × wave size …`) to trace, and who hears it.
    pub observe: Option<(usize, &'a mut dyn WaveObserver)>,
    /// Words the group's shared memory starts with (a mesh group's payload); the rest
    /// starts zeroed.
    pub shared_init: &'a [u32],
}

/// Runs thread groups of one [`Program`], one at a time; each worker thread has its own.
pub struct GroupRunner<'p> {
    program: &'p Program<'p>,
    inner: Inner,
}

impl<'p> GroupRunner<'p> {
    /// A runner for `program`, its waves allocated once.
    pub fn new(program: &'p Program<'p>) -> GroupRunner<'p> {
        let inner = match program.wave_size {
            4 => Inner::W4(Group::new(program)),
            8 => Inner::W8(Group::new(program)),
            16 => Inner::W16(Group::new(program)),
            32 => Inner::W32(Group::new(program)),
            64 => Inner::W64(Group::new(program)),
            _ => Inner::W128(Group::new(program)),
        };
        GroupRunner { program, inner }
    }

    /// Runs group `group_id` to completion.
    pub fn run(&mut self, group_id: [u32; 3]) -> Result<GroupStats, ExecError> {
        self.run_with(group_id, GroupHooks::default())
    }

    /// Runs group `group_id` to completion, reporting to `hooks`.
    pub fn run_with(
        &mut self,
        group_id: [u32; 3],
        hooks: GroupHooks<'_>,
    ) -> Result<GroupStats, ExecError> {
        let p = self.program;
        match &mut self.inner {
            Inner::W4(g) => g.run(p, group_id, hooks),
            Inner::W8(g) => g.run(p, group_id, hooks),
            Inner::W16(g) => g.run(p, group_id, hooks),
            Inner::W32(g) => g.run(p, group_id, hooks),
            Inner::W64(g) => g.run(p, group_id, hooks),
            Inner::W128(g) => g.run(p, group_id, hooks),
        }
    }

    /// The last group's memory as it ended: group shared memory, then for a mesh or
    /// amplification program its region ([`crate::ir::MeshRegion`]).
    pub fn group_memory(&self) -> &[u32] {
        match &self.inner {
            Inner::W4(g) => &g.shared,
            Inner::W8(g) => &g.shared,
            Inner::W16(g) => &g.shared,
            Inner::W32(g) => &g.shared,
            Inner::W64(g) => &g.shared,
            Inner::W128(g) => &g.shared,
        }
    }
}
