//! DXR ray-tracing programs' instructions (`rt_get`, `rt_trace`, `rt_call`,
//! `rt_report_hit`, `rt_hit_end`): each lane asks the pipeline that runs it, through a
//! [`RayContext`], and the memory the instructions pass (payload, callable parameter,
//! attributes) is copied between the lane's per-lane array and the context.
//!
//! Owns: reading and writing that memory (the lane's words of a per-lane array at a byte
//! address; words outside the array read 0 and are not written back, the rule of
//! `local_load` / `local_store`), charging what the context reports as work to the
//! lane's budget, and ending a lane at `IgnoreHit` / `AcceptHitAndEndSearch`. Does not
//! own: which programs run, the shader table, traversal or recursion (`pipeline::rays`).
//!
//! A program with these instructions run without a context (only possible from a Rust
//! caller: job files refuse to dispatch or draw a ray-tracing stage) fails with
//! [`ExecError::Dispatch`] naming the instruction.

use std::sync::Arc;

use crate::ir::{LocalId, RayHitOp, RaySystemValue, Reg, TRACE_RAY_ARGS};
use crate::raytracing::TopLevel;

use super::Ctx;
use super::budget::ExecError;
use super::control;
use super::hit_object::HitObject;
use super::wave::{DONE, Wave, lanes};

/// What a ray-tracing program's lane asks of the pipeline running it. `tag` is the lane's
/// tag (`StageRunner::set_tag`), which the pipeline uses to tell its lanes apart.
///
/// Each method that runs other programs or traverses returns the work it did, in
/// lane-instructions, which the instruction charges to the lane.
pub trait RayContext {
    /// A system value (`rt_get`): component `index` of `value` for lane `tag`.
    fn get(&self, tag: u32, value: RaySystemValue, index: u8) -> u32;

    /// `TraceRay` from lane `tag` through `accel` (`None`: the descriptor is not an
    /// acceleration structure) with the dx.op's operands `args`, the payload words in
    /// and out.
    fn trace(
        &self,
        tag: u32,
        accel: Option<Arc<TopLevel>>,
        args: &[u32; TRACE_RAY_ARGS],
        payload: &mut [u32],
    ) -> Result<u64, ExecError>;

    /// `CallShader(index, parameter)` from lane `tag`, the parameter words in and out.
    fn call(&self, tag: u32, index: u32, parameter: &mut [u32]) -> Result<u64, ExecError>;

    /// `ReportHit(t, kind, attributes)` from intersection lane `tag`: whether the hit
    /// was accepted, and the work.
    fn report_hit(
        &self,
        tag: u32,
        t: f32,
        kind: u32,
        attributes: &[u32],
    ) -> Result<(bool, u64), ExecError>;

    /// `IgnoreHit()` or `AcceptHitAndEndSearch()` in any-hit lane `tag` (the lane ends).
    fn hit_end(&self, tag: u32, op: RayHitOp);

    /// `HitObject::TraceRay` from lane `tag` (SM 6.9): as [`RayContext::trace`], with
    /// the any-hit and intersection programs but no closest-hit or miss program; the hit
    /// object it found and the work.
    fn trace_hit_object(
        &self,
        tag: u32,
        accel: Option<Arc<TopLevel>>,
        args: &[u32; TRACE_RAY_ARGS],
        payload: &mut [u32],
    ) -> Result<(HitObject, u64), ExecError>;

    /// `HitObject::Invoke(hit, payload)` from lane `tag`: the closest-hit or miss program
    /// the hit object names (nothing for a NOP), the payload words in and out.
    fn invoke(&self, tag: u32, hit: &HitObject, payload: &mut [u32]) -> Result<u64, ExecError>;

    /// `HitObject::LoadLocalRootTableConstant(offset)` from lane `tag`: the 32 bits at
    /// byte `offset` of the local root arguments of the record `hit` names (0 for a NOP
    /// hit object and one without a shader table index); 0 by default.
    fn local_root_constant(
        &self,
        tag: u32,
        hit: &HitObject,
        offset: u32,
    ) -> Result<u32, ExecError> {
        let _ = (tag, hit, offset);
        Ok(0)
    }

    /// The running program as the pipeline numbers its programs, which names the
    /// lanes' writes (`Invocation::Ray::program`); 0 by default.
    fn program(&self) -> u32 {
        0
    }
}

/// The context, or the error for an instruction that needs one.
fn context<'a>(cx: &Ctx<'a>, what: &str) -> Result<&'a dyn RayContext, ExecError> {
    cx.rays.ok_or_else(|| {
        ExecError::Dispatch(format!(
            "`{what}` runs only in a ray-tracing pipeline (DispatchRays)"
        ))
    })
}

/// Lane `l`'s `words` words of per-lane array `x` from byte `addr`.
pub(super) fn read<const W: usize>(
    w: &Wave<W>,
    x: LocalId,
    addr: u32,
    words: usize,
    l: usize,
) -> Vec<u32> {
    let arr = w.locals.get(x.index());
    (0..words)
        .map(|i| {
            if addr % 4 != 0 {
                return 0;
            }
            let k = (addr / 4) as usize + i;
            arr.and_then(|a| a.get(k)).map_or(0, |v| v[l])
        })
        .collect()
}

/// Writes `data` back where [`read`] took it (words outside the array are dropped).
pub(super) fn write<const W: usize>(
    w: &mut Wave<W>,
    x: LocalId,
    addr: u32,
    data: &[u32],
    l: usize,
) {
    if addr % 4 != 0 {
        return;
    }
    let Some(arr) = w.locals.get_mut(x.index()) else {
        return;
    };
    for (i, v) in data.iter().enumerate() {
        if let Some(slot) = arr.get_mut((addr / 4) as usize + i) {
            slot[l] = *v;
        }
    }
}

fn reg<const W: usize>(w: &Wave<W>, r: Reg, l: usize) -> u32 {
    if r.is_none() { 0 } else { w.regs[r.index()][l] }
}

/// `rt_get`.
pub fn get<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    value: RaySystemValue,
    index: u8,
    dst: Reg,
) -> Result<(), ExecError> {
    let rc = context(cx, "rt_get")?;
    let mut out = [0u32; W];
    for l in lanes(w.ex.mask) {
        out[l] = rc.get(w.tags[l], value, index);
    }
    w.ex.store(&mut w.regs, dst, &out);
    Ok(())
}

/// The operands of `rt_trace`.
pub struct TraceArgs<'i> {
    /// The structure's handle.
    pub accel: Reg,
    /// The dx.op's other operands.
    pub args: &'i [Reg; TRACE_RAY_ARGS],
    /// The payload's array, address register, offset and size.
    pub payload: (LocalId, Reg, u32, u32),
}

/// `rt_trace`, one lane after another.
pub fn trace<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    a: &TraceArgs<'_>,
    pc: usize,
) -> Result<(), ExecError> {
    let rc = context(cx, "rt_trace")?;
    let (x, addr, offset, bytes) = a.payload;
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let accel = cx.table.get(reg(w, a.accel, l)).top_level();
        let args = a.args.map(|r| reg(w, r, l));
        let at = reg(w, addr, l).wrapping_add(offset);
        let mut payload = read(w, x, at, bytes.div_ceil(4) as usize, l);
        costs[l] = rc.trace(w.tags[l], accel, &args, &mut payload)?;
        write(w, x, at, &payload, l);
    }
    control::charge_lanes(w, cx, &costs, pc)
}

/// `rt_call`, one lane after another.
pub fn call<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    index: Reg,
    param: (LocalId, Reg, u32, u32),
    pc: usize,
) -> Result<(), ExecError> {
    let rc = context(cx, "rt_call")?;
    let (x, addr, offset, bytes) = param;
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let at = reg(w, addr, l).wrapping_add(offset);
        let mut data = read(w, x, at, bytes.div_ceil(4) as usize, l);
        costs[l] = rc.call(w.tags[l], reg(w, index, l), &mut data)?;
        write(w, x, at, &data, l);
    }
    control::charge_lanes(w, cx, &costs, pc)
}

/// The operands of `rt_report_hit`.
pub struct ReportArgs {
    /// The result register.
    pub dst: Reg,
    /// `THit`.
    pub t: Reg,
    /// `HitKind`.
    pub kind: Reg,
    /// The attributes' array, address register, offset and size.
    pub attrs: (LocalId, Reg, u32, u32),
}

/// `rt_report_hit`, one lane after another.
pub fn report_hit<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    a: &ReportArgs,
    pc: usize,
) -> Result<(), ExecError> {
    let rc = context(cx, "rt_report_hit")?;
    let (x, addr, offset, bytes) = a.attrs;
    let mut out = [0u32; W];
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let at = reg(w, addr, l).wrapping_add(offset);
        let data = read(w, x, at, bytes.div_ceil(4) as usize, l);
        let t = f32::from_bits(reg(w, a.t, l));
        let (accepted, cost) = rc.report_hit(w.tags[l], t, reg(w, a.kind, l), &data)?;
        out[l] = if accepted { u32::MAX } else { 0 };
        costs[l] = cost;
    }
    w.ex.store(&mut w.regs, a.dst, &out);
    control::charge_lanes(w, cx, &costs, pc)
}

/// `rt_hit_end`: tells the context, and the active lanes end (as if they returned).
/// Returns whether any lane is still active.
pub fn hit_end<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    op: RayHitOp,
) -> Result<bool, ExecError> {
    let rc = context(cx, "rt_hit_end")?;
    let gone = w.ex.mask;
    for l in lanes(gone) {
        rc.hit_end(w.tags[l], op);
        w.next[l] = DONE;
    }
    w.live &= !gone;
    w.helper &= !gone;
    w.ex.set(0);
    Ok(false)
}

#[cfg(test)]
mod tests {
    use crate::exec::{DescriptorTable, Limits, Profile, StageProgram, StageRunner};
    use crate::ir::parse_shader;

    /// A ray-tracing program run outside `DispatchRays` (no context) stops with an error
    /// naming the instruction rather than inventing values.
    #[test]
    fn without_a_pipeline_the_instructions_are_an_error() {
        let s = parse_shader(
            "shader raygeneration\nregs 2\nray\nblock0:\n    rt_get dispatch_rays_index, 0, r1\n    return\n",
        )
        .unwrap();
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&s, table, Profile::latest(), Limits::default(), 4).unwrap();
        let mut r = StageRunner::new(&p);
        let e = r.run(1, 0, None).unwrap_err().to_string();
        assert!(
            e.contains("`rt_get` runs only in a ray-tracing pipeline"),
            "{e}"
        );
    }
}
