//! Binning: the render target cut into [`TILE_SIZE`]² pixel tiles, and every set-up
//! primitive listed, in draw order, in each tile its bounding box touches (llvmpipe's
//! scene).
//!
//! Owns: the tile grid, which tiles a box lands in, each tile's list and each tile's
//! pixels, and what a draw's list entry carries ([`Binned`]). Does not own: the boxes
//! (`setup` makes them, clipped to the scissor), running a tile (`tile`), or counting
//! the lists against the draw's memory limit (`draw`).
//!
//! Tiles are rasterized independently, which is what lets them run on any worker with
//! the same image: each owns its pixels, and takes its primitives in draw order.
//!
//! Binning itself runs on the workers ([`Bins::count_ranges`], [`Bins::fill`]): each takes
//! a contiguous range of the draw's primitives and writes its own part of every tile's
//! list, the parts in range order, so the lists are the same for any number of workers.
//!
//! A draw's lists carry each primitive's raster part ([`Binned`]: coverage, box, depth
//! plane, facing: about 136 bytes) rather than its index alone: a tile then reads the
//! primitives it rasterizes one after the other, where an index sends each read into
//! the draw's whole list of ~250-byte records, a trip to memory per primitive in a draw
//! of many small ones.

use std::mem::MaybeUninit;

use super::setup::{Plane, Prim, Shape};

/// Tile width and height in pixels (even, so quads never straddle tiles).
pub const TILE_SIZE: u32 = 64;

/// Fewest items worth a worker of their own when binning: below this, starting a
/// thread costs more than the binning it takes over.
const BIN_CHUNK: usize = 4096;

/// The pixel box of item `k` of what a draw bins, `None` to leave it out.
pub type Boxes<'a> = dyn Fn(usize) -> Option<[i32; 4]> + Sync + 'a;

/// Item `k` of what a draw bins: its pixel box and its list entry, `None` to leave it
/// out (the items [`Boxes`] leaves out).
pub type Entries<'a, T> = dyn Fn(usize) -> Option<([i32; 4], T)> + Sync + 'a;

/// A primitive in a tile's list: its index in the draw's list, and a copy of what the
/// tile loop reads of it — what it covers, its box, its depth plane and viewport (the
/// early depth test), its facing (the stencil reference) — in the order the tile takes
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Binned {
    /// What it covers.
    pub shape: Shape,
    /// Pixel bounds `[x0, y0, x1, y1)`.
    pub bbox: [i32; 4],
    /// Depth, linear in screen space.
    pub z: Plane,
    /// Its index in the draw's list of set-up primitives.
    pub index: u32,
    /// `SV_PrimitiveID`.
    pub id: u32,
    /// The viewport it was set up in.
    pub viewport: u32,
    /// Front-facing.
    pub front: bool,
}

impl Binned {
    /// Primitive `index` of a draw's list, `prim`, as a tile's list carries it.
    pub fn of(index: u32, prim: &Prim) -> Binned {
        Binned {
            shape: prim.shape,
            bbox: prim.bbox,
            z: prim.z,
            index,
            id: prim.id,
            viewport: prim.viewport,
            front: prim.front,
        }
    }
}

/// What [`Bins::count_ranges`] counted: the items cut into contiguous ranges, and how
/// many of each range each tile lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeCounts {
    /// The ranges, `[lo, hi)`, in order.
    ranges: Vec<(usize, usize)>,
    /// Per range, per tile.
    counts: Vec<Vec<usize>>,
}

impl RangeCounts {
    /// How many primitives each tile's list will hold.
    pub fn totals(&self) -> Vec<u64> {
        let n = self.counts.first().map_or(0, Vec::len);
        (0..n)
            .map(|t| {
                self.counts
                    .iter()
                    .map(|c| c.get(t).copied().unwrap_or(0) as u64)
                    .sum()
            })
            .collect()
    }
}

/// Primitives listed per tile, in draw order: entries of type `T` (a draw's are
/// [`Binned`]).
#[derive(Debug, Clone, Default)]
pub struct Bins<T = u32> {
    /// Tiles across.
    pub tiles_x: u32,
    /// Tiles down.
    pub tiles_y: u32,
    /// For each tile (row-major), the entries of the primitives touching it.
    pub bins: Vec<Vec<T>>,
    /// The target's width in pixels.
    width: u32,
    /// The target's height in pixels.
    height: u32,
    /// Which tiles hold entries and what the lists hold in all, while that is known
    /// (see [`Occupied`]); `None` after a listing that does not record it.
    occupied: Option<Occupied>,
}

/// What a small draw's listing records about its tile lists, so that the draw and the
/// list that keeps them (`pso`) visit only those tiles: a 1920×1080 target has 510, and
/// a one-triangle draw touches one or two (a list of 1,000 such draws otherwise spent
/// more on passes over empty tiles than on its triangles).
#[derive(Debug, Clone, Default)]
struct Occupied {
    /// The tiles whose lists hold entries, in tile order.
    tiles: Vec<u32>,
    /// The capacity of every list, in entries (empty lists kept from earlier draws
    /// included).
    held: usize,
}

/// Two bins are equal when their grids and lists are: what is recorded about them is
/// not compared.
impl<T: PartialEq> PartialEq for Bins<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.tiles_x, self.tiles_y, self.width, self.height)
            == (o.tiles_x, o.tiles_y, o.width, o.height)
            && self.bins == o.bins
    }
}

impl<T: Copy + Default + Send + Sync> Bins<T> {
    /// Empty bins for a `width × height` target.
    pub fn new(width: u32, height: u32) -> Bins<T> {
        let tiles_x = width.div_ceil(TILE_SIZE);
        let tiles_y = height.div_ceil(TILE_SIZE);
        Bins {
            tiles_x,
            tiles_y,
            bins: vec![Vec::new(); (tiles_x * tiles_y) as usize],
            width,
            height,
            // Nothing recorded: the lists are a public field, filled by whoever makes
            // the bins.
            occupied: None,
        }
    }

    /// The tiles `boxes` touch, in tile order, each with how many of the boxes touch
    /// it: [`Bins::counts`] without the tiles it leaves at 0, and without a pass over
    /// every tile of the target.
    pub fn sparse_counts(&self, boxes: impl IntoIterator<Item = [i32; 4]>) -> Vec<(u32, u64)> {
        let mut tiles: Vec<u32> = Vec::new();
        for bbox in boxes {
            let ([tx0, tx1], [ty0, ty1]) = self.tiles_of(bbox);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    let t = ty * self.tiles_x + tx;
                    if (t as usize) < self.bins.len() {
                        tiles.push(t);
                    }
                }
            }
        }
        tiles.sort_unstable();
        let mut out: Vec<(u32, u64)> = Vec::new();
        for t in tiles {
            match out.last_mut() {
                Some((last, n)) if *last == t => *n += 1,
                _ => out.push((t, 1)),
            }
        }
        out
    }

    /// Records that exactly `tiles` (in tile order) hold entries and that the lists'
    /// capacity is `held` entries in all: what [`Bins::occupied`] and [`Bins::held`]
    /// then answer without a pass over every tile.
    pub(crate) fn record_occupied(&mut self, tiles: Vec<u32>, held: usize) {
        self.occupied = Some(Occupied { tiles, held });
    }

    /// The tiles whose lists hold entries, in tile order, when recorded; `None` when
    /// any tile may.
    pub fn occupied(&self) -> Option<&[u32]> {
        self.occupied.as_ref().map(|o| o.tiles.as_slice())
    }

    /// The capacity of every list, in entries.
    pub(crate) fn held(&self) -> usize {
        match &self.occupied {
            Some(o) => o.held,
            None => self.bins.iter().map(Vec::capacity).sum(),
        }
    }

    /// Empties every list, keeping its storage (only the occupied tiles' lists, when
    /// they are recorded).
    pub(crate) fn clear_lists(&mut self) {
        match &mut self.occupied {
            Some(o) => {
                for &t in &o.tiles {
                    if let Some(b) = self.bins.get_mut(t as usize) {
                        b.clear();
                    }
                }
                o.tiles.clear();
            }
            None => {
                for b in &mut self.bins {
                    b.clear();
                }
                self.occupied = Some(Occupied {
                    tiles: Vec::new(),
                    held: self.bins.iter().map(Vec::capacity).sum(),
                });
            }
        }
    }

    /// The tiles a pixel box `[left, top, right, bottom)` touches: the first and last
    /// tile column and row, inclusive (a box off the target's edges is held to its
    /// border tiles).
    pub fn tiles_of(&self, bbox: [i32; 4]) -> ([u32; 2], [u32; 2]) {
        let t = TILE_SIZE as i32;
        let tx0 = (bbox[0].max(0) / t) as u32;
        let ty0 = (bbox[1].max(0) / t) as u32;
        let tx1 = (((bbox[2] - 1).max(0) / t) as u32).min(self.tiles_x.saturating_sub(1));
        let ty1 = (((bbox[3] - 1).max(0) / t) as u32).min(self.tiles_y.saturating_sub(1));
        ([tx0, tx1], [ty0, ty1])
    }

    /// How many primitives of `prims` each tile's list will hold: what to count and
    /// reserve before [`Bins::add`] fills the lists.
    pub fn counts<'p>(&self, prims: impl IntoIterator<Item = &'p Prim>) -> Vec<u64> {
        let mut counts = vec![0u64; self.bins.len()];
        for p in prims {
            let ([tx0, tx1], [ty0, ty1]) = self.tiles_of(p.bbox);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    if let Some(c) = counts.get_mut((ty * self.tiles_x + tx) as usize) {
                        *c += 1;
                    }
                }
            }
        }
        counts
    }

    /// Counts, on up to `workers` threads, what [`Bins::fill`] will list: items
    /// `0..n` (`boxes(k)`: the item's box, `None` to leave it out) cut into contiguous
    /// ranges, one per worker, each counted per tile.
    pub fn count_ranges(&self, n: usize, boxes: &Boxes<'_>, workers: usize) -> RangeCounts {
        let workers = workers.min(n / BIN_CHUNK).max(1);
        let per = n.div_ceil(workers).max(1);
        let ranges: Vec<(usize, usize)> = (0..workers)
            .map(|w| ((w * per).min(n), ((w + 1) * per).min(n)))
            .collect();
        let count = |(lo, hi): (usize, usize)| {
            let mut c = vec![0usize; self.bins.len()];
            for bbox in (lo..hi).filter_map(boxes) {
                self.each_tile(bbox, |t| {
                    if let Some(c) = c.get_mut(t) {
                        *c += 1;
                    }
                });
            }
            c
        };
        let counts = if workers == 1 {
            ranges.iter().map(|&r| count(r)).collect()
        } else {
            let count = &count;
            std::thread::scope(|sc| {
                let handles: Vec<_> = ranges.iter().map(|&r| sc.spawn(move || count(r))).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            })
        };
        RangeCounts { ranges, counts }
    }

    /// Lists the items counted in `c` (`entries(k)`: the box [`Bins::count_ranges`] was
    /// given, and the entry) in the tiles their boxes touch, each range on a worker of
    /// its own writing its own part of every tile's list: a tile's list holds the first
    /// range's primitives, then the second's, and so on — draw order, whatever the number
    /// of workers. The lists should have room for [`RangeCounts::totals`] reserved (the
    /// draw reserves it fallibly).
    pub fn fill(&mut self, c: &RangeCounts, entries: &Entries<'_, T>) {
        self.occupied = None;
        let ntiles = self.bins.len();
        let tiles_x = self.tiles_x;
        let grid: Bins<T> = Bins {
            tiles_x,
            tiles_y: self.tiles_y,
            bins: Vec::new(),
            width: self.width,
            height: self.height,
            occupied: None,
        };
        // What each list gains: the ranges' parts, end to end, in its unused room (the
        // draw reserved it). A slot is written once, by the range that lists an entry
        // there: writing the lists' defaults first had every entry's write miss the
        // cache again, a tenth of a 200,000-triangle draw's processor time.
        let ranges = c.ranges.len();
        let totals: Vec<usize> = (0..ntiles)
            .map(|t| {
                let counts = c.counts.iter().take(ranges);
                counts.map(|k| k.get(t).copied().unwrap_or(0)).sum()
            })
            .collect();
        for (list, &n) in self.bins.iter_mut().zip(&totals) {
            list.reserve(n);
        }
        // Per tile, how many of its new slots the parts cover, from the start.
        let mut covered = vec![0usize; ntiles];
        {
            let mut parts: Vec<Vec<&mut [MaybeUninit<T>]>> =
                c.ranges.iter().map(|_| Vec::new()).collect();
            for (t, list) in self.bins.iter_mut().enumerate() {
                let n = totals.get(t).copied().unwrap_or(0);
                let mut rest = &mut list.spare_capacity_mut()[..n];
                for (w, part) in parts.iter_mut().enumerate() {
                    let k = c.counts.get(w).and_then(|k| k.get(t)).copied().unwrap_or(0);
                    let k = k.min(rest.len());
                    let (mine, after) = std::mem::take(&mut rest).split_at_mut(k);
                    part.push(mine);
                    rest = after;
                }
                // What no part took (nothing: the parts' counts sum to `n`).
                if let Some(c) = covered.get_mut(t) {
                    *c = n - rest.len();
                }
            }
            let fill = |(lo, hi): (usize, usize), part: &mut Vec<&mut [MaybeUninit<T>]>| {
                let mut at = vec![0usize; ntiles];
                for (bbox, entry) in (lo..hi).filter_map(entries) {
                    grid.each_tile(bbox, |t| {
                        if let (Some(list), Some(k)) = (part.get_mut(t), at.get_mut(t))
                            && let Some(slot) = list.get_mut(*k)
                        {
                            slot.write(entry);
                            *k += 1;
                        }
                    });
                }
                // Slots the entries did not fill (none, when `entries` lists the boxes
                // the counts were made from) hold the default: every slot is written.
                for (list, &k) in part.iter_mut().zip(&at) {
                    for slot in list.iter_mut().skip(k) {
                        slot.write(T::default());
                    }
                }
            };
            if c.ranges.len() == 1 {
                for (&r, part) in c.ranges.iter().zip(parts.iter_mut()) {
                    fill(r, part);
                }
            } else {
                let fill = &fill;
                std::thread::scope(|sc| {
                    let handles: Vec<_> = c
                        .ranges
                        .iter()
                        .zip(parts.iter_mut())
                        .map(|(&r, part)| sc.spawn(move || fill(r, part)))
                        .collect();
                    for h in handles {
                        h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    }
                });
            }
        }
        for ((list, &n), &k) in self.bins.iter_mut().zip(&totals).zip(&covered) {
            if k != n {
                // Never so (see above); the entries are lost rather than left unwritten.
                list.resize(list.len() + n, T::default());
                continue;
            }
            let len = list.len() + n;
            #[allow(unsafe_code)]
            // SAFETY: the list had room for `n` more (reserved above), and the parts
            // covered those `n` slots end to end (`k == n`, counted as they were cut);
            // every range's fill wrote every slot of its parts (its entries, then the
            // default for any left), and the scope joined every worker before this line.
            unsafe {
                list.set_len(len);
            }
        }
    }

    /// Calls `f` with the index of every tile a box touches, row by row.
    #[inline]
    fn each_tile(&self, bbox: [i32; 4], mut f: impl FnMut(usize)) {
        let ([tx0, tx1], [ty0, ty1]) = self.tiles_of(bbox);
        for ty in ty0..=ty1 {
            for tx in tx0..=tx1 {
                f((ty * self.tiles_x + tx) as usize);
            }
        }
    }

    /// Lists `entry` in every tile its box touches.
    pub fn add(&mut self, entry: T, bbox: [i32; 4]) {
        // What is recorded about the lists no longer holds; the draw's one-by-one
        // listing records it again when it has added its entries.
        self.occupied = None;
        let ([tx0, tx1], [ty0, ty1]) = self.tiles_of(bbox);
        for ty in ty0..=ty1 {
            for tx in tx0..=tx1 {
                if let Some(b) = self.bins.get_mut((ty * self.tiles_x + tx) as usize) {
                    b.push(entry);
                }
            }
        }
    }

    /// The target's width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The pixels of tile `index` (row-major): `[left, top, right, bottom)`, the last
    /// column and row of tiles cut at the target's edges.
    pub fn rect(&self, index: u32) -> [i32; 4] {
        let t = TILE_SIZE as i32;
        let tx = (index % self.tiles_x.max(1)) as i32;
        let ty = (index / self.tiles_x.max(1)) as i32;
        [
            tx * t,
            ty * t,
            ((tx + 1) * t).min(self.width as i32),
            ((ty + 1) * t).min(self.height as i32),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_the_box() {
        let mut b = Bins::<u32>::new(130, 64);
        assert_eq!((b.tiles_x, b.tiles_y), (3, 1));
        b.add(7, [60, 0, 70, 10]);
        assert_eq!(b.bins[0], vec![7]);
        assert_eq!(b.bins[1], vec![7]);
        assert!(b.bins[2].is_empty());
    }

    /// Each tile lists the primitives whose box touches it, in the order they were
    /// added (draw order), whatever order the tiles are visited in.
    #[test]
    fn primitives_land_in_the_tiles_they_touch_in_draw_order() {
        let mut b = Bins::<u32>::new(200, 130);
        assert_eq!((b.tiles_x, b.tiles_y), (4, 3));
        // A box over tiles (1, 0) and (1, 1); one over the whole target; one in tile
        // (3, 2) only, the cut corner tile; one over tiles (0, 0) to (1, 0).
        let boxes = [
            [64, 10, 120, 70],
            [0, 0, 200, 130],
            [192, 128, 200, 130],
            [10, 10, 65, 20],
        ];
        for (i, bb) in boxes.iter().enumerate() {
            b.add(i as u32, *bb);
        }
        let tile = |x: u32, y: u32| &b.bins[(y * b.tiles_x + x) as usize];
        assert_eq!(tile(0, 0), &vec![1, 3]);
        assert_eq!(tile(1, 0), &vec![0, 1, 3]);
        assert_eq!(tile(1, 1), &vec![0, 1]);
        assert_eq!(tile(2, 0), &vec![1]);
        assert_eq!(tile(3, 2), &vec![1, 2]);
        assert_eq!(tile(0, 2), &vec![1]);
    }

    /// A box's right and bottom edges are exclusive: a box ending on a tile boundary
    /// does not reach the next tile; one past the target is held to its last tiles,
    /// one before it to its first.
    #[test]
    fn box_edges_are_exclusive_and_held_to_the_target() {
        let b = Bins::<u32>::new(128, 128);
        assert_eq!(b.tiles_of([0, 0, 64, 64]), ([0, 0], [0, 0]));
        assert_eq!(b.tiles_of([0, 0, 65, 64]), ([0, 1], [0, 0]));
        assert_eq!(b.tiles_of([-50, -50, 1000, 1000]), ([0, 1], [0, 1]));
        assert_eq!(b.tiles_of([63, 63, 64, 64]), ([0, 0], [0, 0]));
    }

    /// The counts are the lengths of the lists [`Bins::add`] then fills.
    #[test]
    fn counts_are_the_lists_lengths() {
        use crate::pipeline::setup::{self, ScreenVertex, SetupState};
        use crate::pipeline::state::Rect;
        let st = SetupState {
            scissor: Rect {
                left: 0,
                top: 0,
                right: 150,
                bottom: 100,
            },
            front_ccw: false,
            cull_front: false,
            cull_back: false,
            depth_bias: 0,
            depth_bias_clamp: 0.0,
            slope_scaled_depth_bias: 0.0,
            depth_float: true,
            depth_unorm_r: 0.0,
            wireframe: false,
            conservative: false,
            line_mode: crate::pipeline::setup::LineMode::Aliased,
        };
        let v = |x: i64, y: i64| ScreenVertex {
            x: x * 256,
            y: y * 256,
            z: 0.5,
        };
        let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        // The whole target's half; one inside tile (1, 1); one inside tile (2, 0).
        let tris = [
            [v(0, 0), v(150, 0), v(0, 100)],
            [v(70, 70), v(90, 70), v(70, 90)],
            [v(130, 10), v(140, 10), v(130, 20)],
        ];
        let prims: Vec<Prim> = tris
            .iter()
            .enumerate()
            .filter_map(|(i, t)| setup::triangle(&st, *t, id, [1.0; 3], [0; 3], i as u32))
            .collect();
        assert_eq!(prims.len(), 3);
        let mut b = Bins::<u32>::new(150, 100);
        let counts = b.counts(&prims);
        for (i, p) in prims.iter().enumerate() {
            b.add(i as u32, p.bbox);
        }
        let lens: Vec<u64> = b.bins.iter().map(|l| l.len() as u64).collect();
        assert_eq!(counts, lens);
        assert_eq!(lens, vec![1, 1, 2, 1, 2, 1]);
    }

    /// Binning on several workers (contiguous ranges, each writing its own part of every
    /// tile's list) lists exactly what adding the boxes one by one in draw order lists,
    /// for any number of workers, and counts what it lists; an item left out (`None`) is
    /// in no list.
    #[test]
    fn ranges_on_any_number_of_workers_list_in_draw_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: i32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as i32
        };
        let boxes: Vec<[i32; 4]> = (0..3 * BIN_CHUNK + 17)
            .map(|k| {
                let (x, y) = (next(400) - 50, next(300) - 50);
                let s = if k % 100 == 0 { 300 } else { 1 + next(40) };
                [x, y, x + s, y + s]
            })
            .collect();
        let boxed = |k: usize| (k % 11 != 5).then(|| boxes.get(k).copied()).flatten();
        let item = |k: usize| boxed(k).map(|b| (b, k as u32));
        let mut serial = Bins::new(330, 250);
        for k in 0..boxes.len() {
            if let Some((b, i)) = item(k) {
                serial.add(i, b);
            }
        }
        for workers in [1, 2, 3, 8] {
            let mut b = Bins::new(330, 250);
            let counted = b.count_ranges(boxes.len(), &boxed, workers);
            let lens: Vec<u64> = serial.bins.iter().map(|l| l.len() as u64).collect();
            assert_eq!(counted.totals(), lens, "{workers} workers");
            b.fill(&counted, &item);
            assert_eq!(b, serial, "{workers} workers");
            // Entries that fail to come where they were counted leave the default in
            // their slots: every list still has the length counted, and no slot is
            // left unwritten.
            let mut short = Bins::new(330, 250);
            short.fill(&counted, &|k| item(k).filter(|_| k % 7 != 0));
            for (t, (a, b)) in short.bins.iter().zip(&serial.bins).enumerate() {
                assert_eq!(a.len(), b.len(), "tile {t}");
                let kept: Vec<u32> = a.iter().copied().filter(|&i| i != 0).collect();
                let want: Vec<u32> = b.iter().copied().filter(|&i| i % 7 != 0).collect();
                assert!(kept.iter().all(|i| want.contains(i)), "tile {t}");
            }
        }
    }

    /// Tiles cover the target exactly once: the last column and row are cut at its
    /// edges.
    #[test]
    fn tile_rects_cover_the_target_once() {
        let b = Bins::<u32>::new(130, 65);
        assert_eq!(b.bins.len(), 6);
        assert_eq!(b.rect(0), [0, 0, 64, 64]);
        assert_eq!(b.rect(2), [128, 0, 130, 64]);
        assert_eq!(b.rect(5), [128, 64, 130, 65]);
        let mut area = 0;
        for i in 0..b.bins.len() as u32 {
            let r = b.rect(i);
            area += (r[2] - r[0]) * (r[3] - r[1]);
        }
        assert_eq!(area, 130 * 65);
    }
}
