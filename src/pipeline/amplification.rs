//! The amplification stage: thread groups that run like compute groups and each launch
//! a grid of mesh groups with a payload (`DispatchMesh`).
//!
//! The module is `amplification` rather than D3D's short name `as`, which is a Rust
//! keyword.
//!
//! Owns: running the amplification groups of a `DispatchMesh` call in order, reading
//! each group's `DispatchMesh` arguments and payload when it ends, and D3D's rules on
//! them. Does not own: the mesh groups it launches (`ms`) or how a group's waves run
//! (`exec`).
//!
//! # Rules (DirectX-Specs, Mesh Shader)
//!
//! - **Grid limits** ("DispatchMesh API", "DispatchMesh intrinsic"): each of the three
//!   group counts is less than 64k and their product at most 2^22, for the API call
//!   and for the intrinsic alike; the spec leaves larger counts undefined, so they are
//!   refused here, naming the limit.
//! - **Exactly once, uniformly** ("DispatchMesh intrinsic": "must be called exactly once
//!   per amplification shader, must not be called from non-uniform flow control"): a
//!   group none of whose threads calls it, or only some of whose threads do, is an
//!   error naming the group. The arguments are the first calling thread's.
//! - **The payload** is the group shared variable passed to the call, read when the
//!   group has ended (the call implies a group barrier and ends the group), its bytes
//!   as the module's data layout placed them.
//! - **Order** ("Rasterization order"): amplification groups retire their mesh groups'
//!   output in the amplification groups' (x, then y, then z) order; the mesh groups of one
//!   amplification group are run here in their own (x, y, z) order.

use crate::exec::{ExecError, GroupHooks, GroupRunner, Program, WriteSink};
use crate::ir::{MESH_STATUS_WORDS, Shader};

/// The most groups in one dimension of a `DispatchMesh` grid (spec: "less than 64k").
pub const MAX_MESH_GROUPS_PER_DIMENSION: u32 = 65_535;
/// The most groups of one `DispatchMesh` grid (spec: the product "must not exceed 2^22").
pub const MAX_MESH_GROUPS: u64 = 1 << 22;

/// Refuses a `DispatchMesh` grid past D3D's limits; `who` names the caller.
pub fn check_grid(groups: [u32; 3], who: &str) -> Result<u64, ExecError> {
    if let Some(&g) = groups.iter().find(|&&g| g > MAX_MESH_GROUPS_PER_DIMENSION) {
        return Err(ExecError::Dispatch(format!(
            "{who}: {g} mesh groups in one dimension; DispatchMesh allows at most {MAX_MESH_GROUPS_PER_DIMENSION} (mesh shader spec, \"DispatchMesh API\")"
        )));
    }
    let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
    if total > MAX_MESH_GROUPS {
        return Err(ExecError::Dispatch(format!(
            "{who}: {}×{}×{} = {total} mesh groups; DispatchMesh allows at most 2^22 = {MAX_MESH_GROUPS} (mesh shader spec, \"DispatchMesh API\")",
            groups[0], groups[1], groups[2]
        )));
    }
    Ok(total)
}

/// The groups of a grid in D3D's order: x fastest, then y, then z.
pub fn grid_order(groups: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
    let [x, y, z] = groups;
    (0..z).flat_map(move |k| (0..y).flat_map(move |j| (0..x).map(move |i| [i, j, k])))
}

/// What one amplification group launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The amplification group.
    pub group: [u32; 3],
    /// The mesh grid it launches.
    pub mesh_groups: [u32; 3],
    /// The payload's words.
    pub payload: Vec<u32>,
}

/// Runs amplification group `group` on `runner` and reads what it launched (see the
/// rules in the module doc); returns the launch and the group's lane-instructions. Its
/// lanes' memory writes go to `writes` when given.
pub fn run_group(
    runner: &mut GroupRunner<'_>,
    program: &Program<'_>,
    group: [u32; 3],
    writes: Option<&dyn WriteSink>,
) -> Result<(Launch, u64), ExecError> {
    let hooks = GroupHooks {
        writes,
        ..GroupHooks::default()
    };
    let stats = runner.run_with(group, hooks)?;
    let launch = read_launch(runner.group_memory(), program, group)?;
    Ok((launch, stats.lane_instructions))
}

/// What amplification group `group` of `program` launched, read from the group memory
/// `mem` it left (see the rules in the module doc).
pub fn read_launch(
    mem: &[u32],
    program: &Program<'_>,
    group: [u32; 3],
) -> Result<Launch, ExecError> {
    let s: &Shader = program.shader();
    let threads = program.threads_per_group();
    let m = s
        .mesh
        .ok_or_else(|| ExecError::Dispatch("an amplification program without its state".into()))?;
    let shared_words = (s.groupshared_bytes as usize).div_ceil(4);
    let r = m.region(shared_words, threads, s.output_words);
    let word = |i: usize| mem.get(i).copied().unwrap_or(0);
    let who = format!(
        "amplification program {}, group ({}, {}, {})",
        s.entry, group[0], group[1], group[2]
    );
    let calls = word(r.base + 6) as usize;
    if calls == 0 {
        return Err(ExecError::Dispatch(format!(
            "{who} ended without calling DispatchMesh (mesh shader spec, \"DispatchMesh intrinsic\": exactly once per group)"
        )));
    }
    if calls != threads {
        return Err(ExecError::Dispatch(format!(
            "{who}: {calls} of its {threads} threads called DispatchMesh (mesh shader spec, \"DispatchMesh intrinsic\": once per group, not from non-uniform flow control)"
        )));
    }
    let mesh_groups = [word(r.base + 7), word(r.base + 8), word(r.base + 9)];
    check_grid(mesh_groups, &who)?;
    let at = word(r.base + 10) as usize / 4;
    let n = (m.payload_bytes as usize).div_ceil(4);
    let payload = (at..at + n).map(word).collect();
    debug_assert!(r.called == r.base + MESH_STATUS_WORDS);
    Ok(Launch {
        group,
        mesh_groups,
        payload,
    })
}
