//! The bounding volume hierarchy both levels use: a binned surface-area-heuristic build
//! into two-wide nodes that hold their children's boxes, the same tree stored two levels
//! to a node for the bottom levels' traversal ([`Wide`], [`widen`]), and the conservative
//! ray/box tests traversal runs.
//!
//! # Determinism
//!
//! Every split is a function of the primitives of its node alone, in the order the
//! partition left them, and the partition is the same in-place algorithm whatever runs
//! it. Subtrees of at most [`TASK_PRIMITIVES`] primitives whose parent is larger are built
//! as separate tasks, by however many worker threads there are, and appended in the order
//! the tasks were found; so the nodes, their order and the leaves are identical for any
//! thread count.
//!
//! # Depth
//!
//! Splits follow the heuristic down to depth [`MAX_SAH_DEPTH`]; below it every split is a
//! median split, which halves the node, so no tree is deeper than
//! `MAX_SAH_DEPTH + 30` for the 2^29 primitives a structure may hold, and the traversal
//! stacks ([`STACK_DEPTH`]) cannot overflow.

use std::sync::Mutex;

/// Bins per axis of the binned heuristic.
const BINS: usize = 16;

/// Depth below which splits follow the heuristic; deeper splits halve the node.
pub(crate) const MAX_SAH_DEPTH: u32 = 48;

/// Entries of a traversal stack: more than the deepest tree plus one.
pub(crate) const STACK_DEPTH: usize = 96;

/// The largest subtree built as one task (see the module doc).
pub(crate) const TASK_PRIMITIVES: usize = 16_384;

/// Cost of visiting a node relative to testing one primitive, for the heuristic.
const NODE_COST: f64 = 2.0;

/// An axis-aligned box; empty when `min > max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: [f32::INFINITY; 3],
        max: [f32::NEG_INFINITY; 3],
    };

    #[inline]
    pub fn grow(&mut self, o: &Aabb) {
        for k in 0..3 {
            self.min[k] = self.min[k].min(o.min[k]);
            self.max[k] = self.max[k].max(o.max[k]);
        }
    }

    #[inline]
    pub fn grow_point(&mut self, p: [f32; 3]) {
        for (k, v) in p.into_iter().enumerate() {
            self.min[k] = self.min[k].min(v);
            self.max[k] = self.max[k].max(v);
        }
    }

    pub fn is_empty(&self) -> bool {
        !(self.min[0] <= self.max[0] && self.min[1] <= self.max[1] && self.min[2] <= self.max[2])
    }

    /// Half the surface area, in `f64` so that boxes near `f32::MAX` do not overflow.
    fn half_area(&self) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        let d = [0, 1, 2].map(|k| f64::from(self.max[k]) - f64::from(self.min[k]));
        d[0] * d[1] + d[1] * d[2] + d[2] * d[0]
    }

    /// The largest magnitude of any coordinate.
    pub fn magnitude(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        (0..3).fold(0.0f32, |m, k| {
            m.max(self.min[k].abs()).max(self.max[k].abs())
        })
    }
}

/// A child reference: an inner node's index (`count == 0`) or a leaf's first item and
/// item count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Child {
    pub index: u32,
    pub count: u32,
}

/// An inner node: its two children's boxes, per axis `[min₀, min₁, max₀, max₁]` (so one
/// 4-wide operation per axis tests both), and references; one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Node {
    pub bounds: [[f32; 4]; 3],
    pub child: [Child; 2],
}

#[cfg(test)]
impl Node {
    /// Child `i`'s box.
    pub fn child_box(&self, i: usize) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|a| self.bounds[a][i]),
            max: [0, 1, 2].map(|a| self.bounds[a][i + 2]),
        }
    }
}

/// A built hierarchy.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bvh {
    pub nodes: Vec<Node>,
    /// `None` when there was nothing to build over.
    pub root: Option<Child>,
    pub bounds: Option<Aabb>,
    /// Leaf item `k` is input item `order[k]`.
    pub order: Vec<u32>,
}

/// The ray a box test needs: the origin moved by `+r` (for the planes of the boxes'
/// minima) and by `-r` (for the maxima), which grows every box by `r` on each side, and
/// the reciprocal direction with zero and denormal components replaced by a huge finite
/// value of the same sign so that no product is `0·∞`. (A ray parallel to a face of a
/// grown box and exactly on it may be missed: it is `r` away from anything in the box.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxRay {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    pub inv: [f32; 3],
}

impl BoxRay {
    /// Inlined: a ray is prepared once per trace and instance, and a prepared ray returned
    /// through memory is read back whole, which stalls on store forwarding.
    #[inline(always)]
    pub fn new(org: [f32; 3], dir: [f32; 3], pad: f32) -> BoxRay {
        let inv = dir.map(|d| {
            let r = 1.0 / d;
            if r.is_finite() {
                r
            } else {
                f32::MAX.copysign(d)
            }
        });
        BoxRay {
            lo: org.map(|o| o + pad),
            hi: org.map(|o| o - pad),
            inv,
        }
    }
}

#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// Slack on the far distance for the rounding of the slab distances (three roundings;
/// Ize, "Robust BVH Ray Traversal", JCGT 2013).
#[inline(always)]
pub(crate) fn pad_far(t: f32) -> f32 {
    t + t.abs() * 4.0e-7
}

/// The entry distance of the ray into box `(min, max)` over `[t_min, t_max]`, or `None`
/// when it misses. Inclusive at both ends (a conservative test).
#[inline(always)]
pub(crate) fn hit_box(
    min: [f32; 3],
    max: [f32; 3],
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
) -> Option<f32> {
    let x0 = (min[0] - r.lo[0]) * r.inv[0];
    let x1 = (max[0] - r.hi[0]) * r.inv[0];
    let y0 = (min[1] - r.lo[1]) * r.inv[1];
    let y1 = (max[1] - r.hi[1]) * r.inv[1];
    let z0 = (min[2] - r.lo[2]) * r.inv[2];
    let z1 = (max[2] - r.hi[2]) * r.inv[2];
    let near = fmax(fmax(fmin(x0, x1), fmin(y0, y1)), fmax(fmin(z0, z1), t_min));
    let far = fmin(fmin(fmax(x0, x1), fmax(y0, y1)), fmin(fmax(z0, z1), t_max));
    (near <= pad_far(far)).then_some(near)
}

/// Both children of `n`: their entry distances, `f32::INFINITY` for a miss. The same
/// arithmetic as [`hit_box`], both children at once.
#[inline(always)]
pub(crate) fn hit_node(n: &Node, r: &BoxRay, t_min: f32, t_max: f32) -> [f32; 2] {
    let mut near = [t_min; 2];
    let mut far = [t_max; 2];
    for a in 0..3 {
        let o = [r.lo[a], r.lo[a], r.hi[a], r.hi[a]];
        let b = &n.bounds[a];
        let t = [
            (b[0] - o[0]) * r.inv[a],
            (b[1] - o[1]) * r.inv[a],
            (b[2] - o[2]) * r.inv[a],
            (b[3] - o[3]) * r.inv[a],
        ];
        for c in 0..2 {
            near[c] = fmax(near[c], fmin(t[c], t[c + 2]));
            far[c] = fmin(far[c], fmax(t[c], t[c + 2]));
        }
    }
    [0, 1].map(|c| {
        if near[c] <= pad_far(far[c]) {
            near[c]
        } else {
            f32::INFINITY
        }
    })
}

/// Lanes of a [`Wide`] node's boxes: its two groups, then their four members.
pub(crate) const WIDE_LANES: usize = 6;

/// A binary node and its two children stored together, for the bottom levels' traversal
/// (`traverse`), which decides exactly as the walk of the binary nodes would.
///
/// The two *groups* are the binary node's children, in lanes 0 and 1. A group that is an
/// inner node brings its two children, the *members*, in lanes `2 + 2g` and `3 + 2g`; a
/// group that is a leaf has no members (its member lanes repeat its box and are never
/// read). Boxes are in SoA order, one `[f32; 6]` per axis and side, so one slab test of
/// six lanes tests all six boxes. A node is 180 bytes, aligned to 64 so that it fills
/// exactly three cache lines: the walk is bound by fetching nodes, and an unaligned or
/// padded node costs a fourth or fifth line (`docs/raytracing.md`, "Benchmark").
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Wide {
    pub lo: [[f32; WIDE_LANES]; 3],
    pub hi: [[f32; WIDE_LANES]; 3],
    /// Members `2g` and `2g + 1` of group `g`: a leaf, or an inner member as the index of
    /// its own wide node (`count == 0`); for a leaf group, slot `2g` is the group itself.
    pub kids: [Child; 4],
    /// Bit `g` set: group `g` is a leaf.
    pub leaf_groups: u32,
}

impl Wide {
    /// Whether group `g` is a leaf.
    #[inline(always)]
    pub fn leaf_group(&self, g: usize) -> bool {
        (self.leaf_groups >> g) & 1 != 0
    }
}

/// The entry distances of the ray into the six lanes' boxes of `n` over `[t_min, ∞)`,
/// `NaN` where the ray misses the box (so that every `near <= limit` is false).
///
/// Per lane it is the arithmetic of [`hit_node`] without `t_max`: with `far` the slab
/// exit, [`hit_node`]'s test is `near <= pad_far(min(far, t_max))`. `pad_far` is
/// non-decreasing (a sum of two rounded non-decreasing terms), so
/// `pad_far(min(a, b)) = min(pad_far(a), pad_far(b))`, and that test is exactly
/// `near <= pad_far(far) && near <= pad_far(t_max)`: the first half is decided here, the
/// second by the caller against the `t_max` of the moment. The minimum and maximum are
/// exact, so the order in which lanes take them changes no value.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // one index over several lane arrays: vectorised as is
pub(crate) fn hit_wide(n: &Wide, r: &BoxRay, t_min: f32) -> [f32; WIDE_LANES] {
    let mut near = [t_min; WIDE_LANES];
    let mut far = [f32::INFINITY; WIDE_LANES];
    for a in 0..3 {
        let (lo, hi, inv) = (r.lo[a], r.hi[a], r.inv[a]);
        let (bl, bh) = (&n.lo[a], &n.hi[a]);
        for i in 0..WIDE_LANES {
            let t0 = (bl[i] - lo) * inv;
            let t1 = (bh[i] - hi) * inv;
            near[i] = fmax(near[i], fmin(t0, t1));
            far[i] = fmin(far[i], fmax(t0, t1));
        }
    }
    let mut out = [0.0; WIDE_LANES];
    for i in 0..WIDE_LANES {
        out[i] = if near[i] <= pad_far(far[i]) {
            near[i]
        } else {
            f32::NAN
        };
    }
    out
}

/// The wide nodes of `b` (see [`Wide`]) and the root to start from: a wide node for the
/// binary root and for every inner node two levels below a wide node's, in depth-first
/// order. A function of the binary tree alone, so as deterministic as the build.
pub(crate) fn widen(b: &Bvh) -> Result<(Vec<Wide>, Option<Child>), OutOfMemory> {
    let Some(root) = b.root else {
        return Ok((Vec::new(), None));
    };
    if root.count > 0 {
        return Ok((Vec::new(), Some(root)));
    }
    let mut out: Vec<Wide> = Vec::new();
    // At most one wide node per binary node.
    out.try_reserve_exact(b.nodes.len())
        .map_err(|_| OutOfMemory {
            bytes: b.nodes.len().saturating_mul(std::mem::size_of::<Wide>()),
        })?;
    // (binary node, where its wide index goes: (wide node, kid slot)); depth is at most
    // three pending entries per level of the tree.
    let mut stack: Vec<(u32, Option<(usize, usize)>)> = vec![(root.index, None)];
    while let Some((bi, slot)) = stack.pop() {
        let Some(n) = b.nodes.get(bi as usize) else {
            continue;
        };
        let w = out.len();
        if let Some((p, k)) = slot
            && let Some(parent) = out.get_mut(p)
        {
            parent.kids[k] = Child {
                index: w as u32,
                count: 0,
            };
        }
        let mut wide = Wide {
            lo: [[0.0; WIDE_LANES]; 3],
            hi: [[0.0; WIDE_LANES]; 3],
            kids: [Child::default(); 4],
            leaf_groups: 0,
        };
        // Inner members, to be widened after this node: (binary node, kid slot).
        let mut later = [(0u32, 0usize); 4];
        let mut nlater = 0;
        for g in 0..2 {
            for a in 0..3 {
                wide.lo[a][g] = n.bounds[a][g];
                wide.hi[a][g] = n.bounds[a][g + 2];
            }
            let c = n.child[g];
            let inner = if c.count == 0 {
                b.nodes.get(c.index as usize)
            } else {
                None
            };
            match inner {
                // An inner child that is not there (cannot happen for a built tree): a
                // wide index nothing has, which ends the walk as the binary one would.
                None if c.count == 0 => {
                    wide.leaf_groups |= 1 << g;
                    wide.kids[2 * g] = Child {
                        index: u32::MAX,
                        count: 0,
                    };
                }
                None => {
                    wide.leaf_groups |= 1 << g;
                    wide.kids[2 * g] = c;
                    for m in 0..2 {
                        for a in 0..3 {
                            wide.lo[a][2 + 2 * g + m] = n.bounds[a][g];
                            wide.hi[a][2 + 2 * g + m] = n.bounds[a][g + 2];
                        }
                    }
                }
                Some(cn) => {
                    for m in 0..2 {
                        for a in 0..3 {
                            wide.lo[a][2 + 2 * g + m] = cn.bounds[a][m];
                            wide.hi[a][2 + 2 * g + m] = cn.bounds[a][m + 2];
                        }
                        let k = cn.child[m];
                        wide.kids[2 * g + m] = k;
                        if k.count == 0 {
                            later[nlater] = (k.index, 2 * g + m);
                            nlater += 1;
                        }
                    }
                }
            }
        }
        out.push(wide);
        // Depth first, the first member first.
        for &(bi, k) in later[..nlater].iter().rev() {
            stack.push((bi, Some((w, k))));
        }
    }
    Ok((out, Some(Child { index: 0, count: 0 })))
}

/// Why a build stopped.
#[derive(Debug)]
pub(crate) struct OutOfMemory {
    pub bytes: usize,
}

fn try_vec<T: Clone>(n: usize, v: T) -> Result<Vec<T>, OutOfMemory> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| OutOfMemory {
        bytes: n.saturating_mul(std::mem::size_of::<T>()),
    })?;
    out.resize(n, v);
    Ok(out)
}

/// A primitive during the build: its box and input index, in one half cache line, so
/// that every pass over a node's primitives reads memory in order.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Rec {
    min: [f32; 3],
    index: u32,
    max: [f32; 3],
}

impl Rec {
    #[inline(always)]
    fn centroid(&self, axis: usize) -> f32 {
        0.5 * self.min[axis] + 0.5 * self.max[axis]
    }

    #[inline(always)]
    fn aabb(&self) -> Aabb {
        Aabb {
            min: self.min,
            max: self.max,
        }
    }
}

struct Ctx {
    max_leaf: usize,
}

/// Where a task's subtree hangs: the root, or side `side` of node `node`.
#[derive(Clone, Copy)]
enum Slot {
    Root,
    Side { node: usize, side: usize },
}

struct Task {
    first: usize,
    len: usize,
    depth: u32,
    slot: Slot,
}

struct Built {
    bounds: Aabb,
    child: Child,
}

/// Builds a hierarchy over `boxes` (every box finite and non-empty) with leaves of at
/// most `max_leaf` items, on `threads` worker threads (0: one per core).
pub(crate) fn build(boxes: &[Aabb], max_leaf: usize, threads: usize) -> Result<Bvh, OutOfMemory> {
    let n = boxes.len();
    if n == 0 {
        return Ok(Bvh::default());
    }
    let mut recs = try_vec(
        n,
        Rec {
            min: [0.0; 3],
            index: 0,
            max: [0.0; 3],
        },
    )?;
    for (k, (r, b)) in recs.iter_mut().zip(boxes).enumerate() {
        *r = Rec {
            min: b.min,
            index: k as u32,
            max: b.max,
        };
    }
    let ctx = Ctx {
        max_leaf: max_leaf.max(1),
    };
    let mut nodes: Vec<Node> = Vec::new();
    nodes
        .try_reserve(n / ctx.max_leaf + 1)
        .map_err(|_| OutOfMemory { bytes: n * 32 })?;
    let mut tasks = Vec::new();
    let top = build_top(&ctx, &mut recs, 0, 0, Slot::Root, &mut nodes, &mut tasks);

    // Hand each task its own part of `recs`: the tasks were found in increasing order of
    // their first item, and their ranges do not overlap.
    let mut parts: Vec<(usize, &mut [Rec])> = Vec::with_capacity(tasks.len());
    let mut rest: &mut [Rec] = &mut recs;
    let mut at = 0;
    for (k, t) in tasks.iter().enumerate() {
        let (_, tail) = rest.split_at_mut(t.first - at);
        let (mine, tail) = tail.split_at_mut(t.len);
        parts.push((k, mine));
        rest = tail;
        at = t.first + t.len;
    }
    // One slot per task: the nodes it built and its summary.
    type TaskResult = Mutex<Option<(Vec<Node>, Built)>>;
    let results: Vec<TaskResult> = tasks.iter().map(|_| Mutex::new(None)).collect();
    let workers = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .min(tasks.len())
    .max(1);
    let run = |k: usize, part: &mut [Rec]| {
        let t = &tasks[k];
        let mut local = Vec::new();
        let built = build_range(&ctx, part, t.first as u32, t.depth, &mut local);
        if let Ok(mut slot) = results[k].lock() {
            *slot = Some((local, built));
        }
    };
    if workers <= 1 {
        for (k, part) in parts {
            run(k, part);
        }
    } else {
        // Largest tasks first, so that the last ones to finish are small.
        parts.sort_by_key(|(_, p)| std::cmp::Reverse(p.len()));
        let queue = Mutex::new(parts.into_iter());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let item = queue.lock().ok().and_then(|mut q| q.next());
                        let Some((k, part)) = item else { break };
                        run(k, part);
                    }
                });
            }
        });
    }

    // Append each task's nodes in task order and hang its subtree where it belongs.
    let mut root = top.child;
    for (t, r) in tasks.iter().zip(results) {
        let Some((local, built)) = r.into_inner().ok().flatten() else {
            continue;
        };
        let base = nodes.len() as u32;
        for mut node in local {
            for c in &mut node.child {
                if c.count == 0 {
                    c.index += base;
                }
            }
            nodes.push(node);
        }
        let mut child = built.child;
        if child.count == 0 {
            child.index += base;
        }
        match t.slot {
            Slot::Root => root = child,
            Slot::Side { node, side } => {
                if let Some(n) = nodes.get_mut(node) {
                    n.child[side] = child;
                }
            }
        }
    }
    let mut order = Vec::new();
    order
        .try_reserve_exact(n)
        .map_err(|_| OutOfMemory { bytes: n * 4 })?;
    order.extend(recs.iter().map(|r| r.index));
    Ok(Bvh {
        nodes,
        root: Some(root),
        bounds: Some(top.bounds),
        order,
    })
}

/// The bounds of the boxes and of their centroids.
fn bounds_of(recs: &[Rec]) -> (Aabb, Aabb) {
    let mut b = Aabb::EMPTY;
    let mut c = Aabb::EMPTY;
    for r in recs {
        b.grow(&r.aabb());
        c.grow_point([r.centroid(0), r.centroid(1), r.centroid(2)]);
    }
    (b, c)
}

/// The sequential top of the build: splits nodes larger than [`TASK_PRIMITIVES`] and
/// records the smaller ones as tasks.
fn build_top(
    ctx: &Ctx,
    recs: &mut [Rec],
    first: usize,
    depth: u32,
    slot: Slot,
    nodes: &mut Vec<Node>,
    tasks: &mut Vec<Task>,
) -> Built {
    let (bounds, cbounds) = bounds_of(recs);
    if recs.len() <= TASK_PRIMITIVES {
        tasks.push(Task {
            first,
            len: recs.len(),
            depth,
            slot,
        });
        // Filled in when the task is done.
        return Built {
            bounds,
            child: Child::default(),
        };
    }
    let mid = split(ctx, recs, &bounds, &cbounds, depth).unwrap_or(recs.len() / 2);
    let at = nodes.len();
    nodes.push(Node::default());
    let (l, r) = recs.split_at_mut(mid);
    let bl = build_top(
        ctx,
        l,
        first,
        depth + 1,
        Slot::Side { node: at, side: 0 },
        nodes,
        tasks,
    );
    let br = build_top(
        ctx,
        r,
        first + mid,
        depth + 1,
        Slot::Side { node: at, side: 1 },
        nodes,
        tasks,
    );
    nodes[at] = node_of(&bl, &br);
    Built {
        bounds,
        child: Child {
            index: at as u32,
            count: 0,
        },
    }
}

fn node_of(l: &Built, r: &Built) -> Node {
    let mut n = Node::default();
    for (i, b) in [l, r].into_iter().enumerate() {
        for k in 0..3 {
            n.bounds[k][i] = b.bounds.min[k];
            n.bounds[k][i + 2] = b.bounds.max[k];
        }
        n.child[i] = b.child;
    }
    n
}

/// Builds the subtree of `recs` (whose first item is item `first` of the final order)
/// into `nodes`, inner child indices relative to `nodes`.
fn build_range(
    ctx: &Ctx,
    recs: &mut [Rec],
    first: u32,
    depth: u32,
    nodes: &mut Vec<Node>,
) -> Built {
    let (bounds, cbounds) = bounds_of(recs);
    let leaf = Built {
        bounds,
        child: Child {
            index: first,
            count: recs.len() as u32,
        },
    };
    if recs.len() <= 1 {
        return leaf;
    }
    let mid = match split(ctx, recs, &bounds, &cbounds, depth) {
        Some(m) => m,
        None if recs.len() <= ctx.max_leaf => return leaf,
        None => median(recs, &cbounds),
    };
    let at = nodes.len();
    nodes.push(Node::default());
    let (l, r) = recs.split_at_mut(mid);
    let bl = build_range(ctx, l, first, depth + 1, nodes);
    let br = build_range(ctx, r, first + mid as u32, depth + 1, nodes);
    nodes[at] = node_of(&bl, &br);
    Built {
        bounds,
        child: Child {
            index: at as u32,
            count: 0,
        },
    }
}

/// Chooses and applies a split of `recs`: `Some(mid)` after partitioning it into
/// `[..mid]` and `[mid..]`, or `None` when a leaf is cheaper (and allowed).
fn split(ctx: &Ctx, recs: &mut [Rec], bounds: &Aabb, cb: &Aabb, depth: u32) -> Option<usize> {
    let n = recs.len();
    if depth >= MAX_SAH_DEPTH {
        return (n > ctx.max_leaf).then(|| median(recs, cb));
    }
    let parent_area = bounds.half_area();
    // Bin on the three axes in one pass over the primitives.
    // Small nodes need no more bins than primitives.
    let nbins = n.clamp(2, BINS);
    let mut scale = [0.0f32; 3];
    let mut usable = [false; 3];
    for axis in 0..3 {
        let extent = cb.max[axis] - cb.min[axis];
        if extent > 0.0 && extent.is_finite() {
            usable[axis] = true;
            scale[axis] = nbins as f32 * (1.0 - 1.0e-6) / extent;
        }
    }
    let mut bins = [[(Aabb::EMPTY, 0u32); BINS]; 3];
    for r in recs.iter() {
        let b = r.aabb();
        for axis in 0..3 {
            if usable[axis] {
                let k = bin_of(r.centroid(axis), cb.min[axis], scale[axis], nbins);
                let bin = &mut bins[axis][k];
                bin.0.grow(&b);
                bin.1 += 1;
            }
        }
    }
    // (cost, axis, split bin)
    let mut best: Option<(f64, usize, usize)> = None;
    for axis in 0..3 {
        if !usable[axis] {
            continue;
        }
        let bins = &bins[axis];
        // Areas and counts right of each split, then sweep from the left.
        let mut right = [(0.0f64, 0u32); BINS];
        let mut acc = Aabb::EMPTY;
        let mut cnt = 0u32;
        for b in (1..nbins).rev() {
            acc.grow(&bins[b].0);
            cnt += bins[b].1;
            right[b] = (acc.half_area(), cnt);
        }
        let mut left = Aabb::EMPTY;
        let mut lcnt = 0u32;
        for s in 1..nbins {
            left.grow(&bins[s - 1].0);
            lcnt += bins[s - 1].1;
            let (ra, rc) = right[s];
            if lcnt == 0 || rc == 0 {
                continue;
            }
            let cost = left.half_area() * f64::from(lcnt) + ra * f64::from(rc);
            if !cost.is_nan() && best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, s));
            }
        }
    }
    let Some((cost, axis, s)) = best else {
        return (n > ctx.max_leaf).then(|| median(recs, cb));
    };
    let split_cost = if parent_area > 0.0 {
        NODE_COST + cost / parent_area
    } else {
        NODE_COST + n as f64
    };
    if n <= ctx.max_leaf && n as f64 <= split_cost {
        return None;
    }
    // Partition in place: items of bins below `s` first.
    let (lo, sc) = (cb.min[axis], scale[axis]);
    let mut i = 0;
    let mut j = n;
    while i < j {
        if bin_of(recs[i].centroid(axis), lo, sc, nbins) < s {
            i += 1;
        } else {
            j -= 1;
            recs.swap(i, j);
        }
    }
    if i == 0 || i == n {
        return Some(median(recs, cb));
    }
    Some(i)
}

#[inline(always)]
fn bin_of(c: f32, lo: f32, scale: f32, nbins: usize) -> usize {
    // `as` saturates (and sends NaN to 0), so the index is always in range.
    (((c - lo) * scale) as usize).min(nbins - 1)
}

/// Splits `recs` at its middle by centroid along the widest centroid axis (ties by input
/// index); returns the middle.
fn median(recs: &mut [Rec], cb: &Aabb) -> usize {
    let axis = (0..3)
        .max_by(|&a, &b| {
            let ea = cb.max[a] - cb.min[a];
            let eb = cb.max[b] - cb.min[b];
            // Lower axis on ties: max_by keeps the last maximum, so compare reversed indices.
            ea.total_cmp(&eb).then(b.cmp(&a))
        })
        .unwrap_or(0);
    let mid = recs.len() / 2;
    recs.select_nth_unstable_by(mid, |a, b| {
        a.centroid(axis)
            .total_cmp(&b.centroid(axis))
            .then(a.index.cmp(&b.index))
    });
    mid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
        let mut s = seed;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        (0..n)
            .map(|_| {
                let p = [r() * 100.0, r() * 100.0, r() * 100.0];
                Aabb {
                    min: p,
                    max: [p[0] + r(), p[1] + r(), p[2] + r()],
                }
            })
            .collect()
    }

    fn check(b: &Bvh, input: &[Aabb]) {
        // Every item appears once; every leaf box holds its items; depth is bounded.
        let mut seen = vec![false; input.len()];
        let mut stack = vec![(b.root.unwrap(), b.bounds.unwrap(), 0usize)];
        while let Some((c, bx, d)) = stack.pop() {
            assert!(d < STACK_DEPTH);
            if c.count > 0 {
                for k in c.index..c.index + c.count {
                    let i = b.order[k as usize] as usize;
                    assert!(!seen[i]);
                    seen[i] = true;
                    for a in 0..3 {
                        assert!(bx.min[a] <= input[i].min[a] && input[i].max[a] <= bx.max[a]);
                    }
                }
            } else {
                let n = &b.nodes[c.index as usize];
                for s in 0..2 {
                    stack.push((n.child[s], n.child_box(s), d + 1));
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// The build is the same for any number of worker threads (module doc).
    #[test]
    fn identical_for_any_thread_count() {
        let input = boxes(70_000, 7);
        let one = build(&input, 4, 1).unwrap();
        check(&one, &input);
        for threads in [2, 3, 5] {
            let other = build(&input, 4, threads).unwrap();
            assert_eq!(one.order, other.order);
            assert_eq!(one.root, other.root);
            assert_eq!(one.nodes.len(), other.nodes.len());
            for (a, b) in one.nodes.iter().zip(&other.nodes) {
                assert_eq!((a.bounds, a.child), (b.bounds, b.child));
            }
        }
    }

    /// Identical boxes (no split by position exists) and exponentially spaced ones (the
    /// heuristic's worst case) still give bounded trees.
    #[test]
    fn hostile_distributions_stay_shallow() {
        let same = vec![
            Aabb {
                min: [1.0; 3],
                max: [2.0; 3]
            };
            5000
        ];
        check(&build(&same, 4, 1).unwrap(), &same);
        let exp: Vec<Aabb> = (0..120)
            .map(|k| {
                let x = 2f32.powi(k - 60);
                Aabb {
                    min: [x, 0.0, 0.0],
                    max: [x, 0.0, 0.0],
                }
            })
            .collect();
        check(&build(&exp, 1, 1).unwrap(), &exp);
        let huge = vec![
            Aabb {
                min: [-f32::MAX; 3],
                max: [f32::MAX; 3],
            },
            Aabb {
                min: [0.0; 3],
                max: [1.0; 3],
            },
        ];
        check(&build(&huge, 1, 1).unwrap(), &huge);
    }

    /// A box test never misses a box the ray meets, including rays along a face of the
    /// box (inside the growth `pad`) and directions with zero components.
    #[test]
    fn box_test_is_inclusive() {
        let min = [0.0, 0.0, 0.0];
        let max = [1.0, 1.0, 1.0];
        let pad = 1.0e-6;
        let r = BoxRay::new([0.0, 0.5, -1.0], [0.0, 0.0, 1.0], pad);
        assert_eq!(hit_box(min, max, &r, 0.0, f32::INFINITY), Some(1.0 - pad));
        let r = BoxRay::new([1.0, 1.0, -1.0], [0.0, 0.0, 1.0], pad);
        assert!(hit_box(min, max, &r, 0.0, f32::INFINITY).is_some());
        let r = BoxRay::new([1.0, 0.0, -1.0], [0.0, 0.0, -1.0], pad);
        assert!(hit_box(min, max, &r, -3.0, 0.0).is_some());
        let r = BoxRay::new([1.5, 0.5, -1.0], [0.0, 0.0, 1.0], pad);
        assert!(hit_box(min, max, &r, 0.0, f32::INFINITY).is_none());
        assert!(hit_box(min, max, &r, 0.0, f32::INFINITY).is_none());
        let r = BoxRay::new([0.5, 0.5, -1.0], [0.0, 0.0, 1.0], 0.0);
        assert!(hit_box(min, max, &r, 0.0, 0.999).is_none());
        assert!(hit_box(min, max, &r, 0.0, 1.0).is_some());
    }

    /// The six-lane test of a wide node gives each lane exactly what the scalar test
    /// of that one box gives ([`hit_box`]), for any `t_max` applied afterwards as
    /// [`hit_wide`]'s doc says; random boxes (thin, flat, huge, inverted by rounding) and
    /// rays (axis-aligned, zero and tiny direction components, origins inside boxes).
    #[test]
    fn wide_lanes_are_the_scalar_box_test() {
        let mut s = 5u64;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut hits = 0;
        let mut misses = 0;
        for case in 0..20_000 {
            let mut n = Wide {
                lo: [[0.0; WIDE_LANES]; 3],
                hi: [[0.0; WIDE_LANES]; 3],
                kids: [Child::default(); 4],
                leaf_groups: 0,
            };
            for i in 0..WIDE_LANES {
                for a in 0..3 {
                    let c = r() * 8.0 - 4.0;
                    let e = match (case + i + a) % 5 {
                        0 => 0.0,
                        1 => 1.0e-6,
                        2 => 1.0e30,
                        _ => r() * 3.0,
                    };
                    n.lo[a][i] = c - e;
                    n.hi[a][i] = c + e;
                }
            }
            let org = [r() * 16.0 - 8.0, r() * 16.0 - 8.0, r() * 16.0 - 8.0];
            // Aimed near the centre of one lane's box, so that many lanes are hit.
            let aim = case % WIDE_LANES;
            let mut dir = [0, 1, 2]
                .map(|a| 0.5 * n.lo[a][aim] + 0.5 * n.hi[a][aim] - org[a] + r() * 0.2 - 0.1);
            match case % 4 {
                0 => dir[case % 3] = 0.0,
                1 => dir[(case + 1) % 3] = 1.0e-40,
                _ => {}
            }
            let pad = if case % 2 == 0 { 0.0 } else { 1.0e-5 };
            let ray = BoxRay::new(org, dir, pad);
            let t_min = if case % 3 == 0 { 0.0 } else { r() - 0.5 };
            let t_max = match case % 3 {
                0 => f32::INFINITY,
                1 => r() * 10.0,
                _ => t_min,
            };
            let near = hit_wide(&n, &ray, t_min);
            for (i, &lane) in near.iter().enumerate() {
                let min = [0, 1, 2].map(|a| n.lo[a][i]);
                let max = [0, 1, 2].map(|a| n.hi[a][i]);
                let wide = (lane <= pad_far(t_max)).then_some(lane);
                // Equal as values: the sign of a zero distance may differ (the maxima
                // are taken in another order), and no decision reads it.
                assert_eq!(
                    wide,
                    hit_box(min, max, &ray, t_min, t_max),
                    "case {case} lane {i}"
                );
                if wide.is_some() {
                    hits += 1;
                } else {
                    misses += 1;
                }
            }
        }
        assert!(hits > 10_000 && misses > 10_000, "{hits} {misses}");
    }

    /// A wide node fills exactly three cache lines, so that fetching one never touches a
    /// fourth (`Wide`'s doc).
    #[test]
    fn a_wide_node_is_three_cache_lines() {
        assert_eq!(std::mem::size_of::<Wide>(), 192);
        assert_eq!(std::mem::align_of::<Wide>(), 64);
    }

    /// A wide node's lanes are the boxes of the binary node's children and grandchildren
    /// and its kids their references (leaves as they were, inner nodes as wide nodes of
    /// the same boxes), for every wide node reachable from the root.
    #[test]
    fn wide_nodes_hold_two_binary_levels() {
        let input = boxes(30_000, 11);
        let b = build(&input, 4, 1).unwrap();
        let (wide, root) = widen(&b).unwrap();
        assert_eq!(root, Some(Child { index: 0, count: 0 }));
        // (wide node, binary node it stands for)
        let mut stack = vec![(0usize, b.root.unwrap().index as usize)];
        let mut seen = 0;
        while let Some((w, bi)) = stack.pop() {
            seen += 1;
            let (wn, bn) = (&wide[w], &b.nodes[bi]);
            for g in 0..2 {
                assert_eq!(
                    [0, 1, 2].map(|a| (wn.lo[a][g], wn.hi[a][g])),
                    [0, 1, 2].map(|a| (bn.bounds[a][g], bn.bounds[a][g + 2]))
                );
                let c = bn.child[g];
                assert_eq!(wn.leaf_group(g), c.count > 0);
                if c.count > 0 {
                    assert_eq!(wn.kids[2 * g], c);
                    continue;
                }
                let cn = &b.nodes[c.index as usize];
                for m in 0..2 {
                    let lane = 2 + 2 * g + m;
                    assert_eq!(cn.child_box(m).min, [0, 1, 2].map(|a| wn.lo[a][lane]));
                    assert_eq!(cn.child_box(m).max, [0, 1, 2].map(|a| wn.hi[a][lane]));
                    let k = wn.kids[2 * g + m];
                    if cn.child[m].count > 0 {
                        assert_eq!(k, cn.child[m]);
                    } else {
                        assert_eq!(k.count, 0);
                        stack.push((k.index as usize, cn.child[m].index as usize));
                    }
                }
            }
        }
        assert_eq!(seen, wide.len());
        assert!(seen > 1000, "{seen}");
    }
}
