//! Comparing one captured resource with dxlane's, element by element.
//!
//! Owns: walking every captured element in a fixed order (buffers by address; textures
//! plane by plane — subresource, sample, then z, y, x), naming where each is
//! ([`Location`]), and counting what differs ([`ResourceDiff`]: elements and components,
//! the largest difference, a histogram, the first mismatches, and the set of differing
//! components that explain runs are measured against). Does not own: what a difference
//! is ([`super::element`]) or who wrote it ([`super::writers`]).

use serde::Serialize;

use super::element::{Component, DiffKind, Difference, NanRule, accepts, difference};
use super::layout::{Layout, Plane, Shape};
use crate::job::BufferRead;
use crate::resources::format::Tolerance;

/// Where an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Location {
    /// A buffer element.
    Buffer {
        /// Byte address in the buffer's memory.
        byte: u64,
        /// Element index in the view (structured and typed buffers).
        element: Option<u64>,
        /// Byte within that element, when the element is a part of a structure.
        offset: Option<u64>,
    },
    /// A texel (of a texture, render target or depth-stencil buffer).
    Texel {
        /// x.
        x: u32,
        /// y.
        y: u32,
        /// z (3D textures), else 0.
        z: u32,
        /// Mip level.
        mip: u32,
        /// Array slice.
        slice: u32,
        /// Sample.
        sample: u32,
        /// D3D12 subresource index.
        subresource: u32,
    },
}

/// What a location's words need to say beyond x and y.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Extent {
    /// The texture is 3D.
    pub three_d: bool,
    /// It has several mips.
    pub mips: bool,
    /// It has several slices.
    pub slices: bool,
    /// It is multisampled.
    pub samples: bool,
}

impl Location {
    /// Words for the location: `[12]`, `[3] +8`, `+0x1c`, `(4, 7)`, `(4, 7, 2) mip 1 slice
    /// 3 sample 2`.
    pub fn words(&self, extent: Extent) -> String {
        match *self {
            Location::Buffer {
                byte,
                element,
                offset,
            } => match (element, offset) {
                (Some(e), Some(o)) if o != 0 => format!("[{e}] +{o}"),
                (Some(e), _) => format!("[{e}]"),
                (None, _) => format!("+0x{byte:x}"),
            },
            Location::Texel {
                x,
                y,
                z,
                mip,
                slice,
                sample,
                ..
            } => {
                let mut s = if extent.three_d {
                    format!("({x}, {y}, {z})")
                } else {
                    format!("({x}, {y})")
                };
                if extent.mips {
                    s.push_str(&format!(" mip {mip}"));
                }
                if extent.slices {
                    s.push_str(&format!(" slice {slice}"));
                }
                if extent.samples {
                    s.push_str(&format!(" sample {sample}"));
                }
                s
            }
        }
    }
}

/// Differences by size and kind (components beyond the tolerance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Histogram {
    /// 1 ulp.
    pub ulp_1: u64,
    /// 2–3 ulps.
    pub ulp_2_3: u64,
    /// 4–15 ulps.
    pub ulp_4_15: u64,
    /// 16–255 ulps.
    pub ulp_16_255: u64,
    /// 256–65535 ulps.
    pub ulp_256_65535: u64,
    /// 65536 ulps or more.
    pub ulp_65536_up: u64,
    /// `+0` against `−0`.
    pub signed_zero: u64,
    /// NaNs with other bits.
    pub nan_payload: u64,
    /// A NaN against a number.
    pub nan_vs_number: u64,
    /// Infinities.
    pub infinity: u64,
    /// Integers that differ.
    pub integer: u64,
}

impl Histogram {
    fn add(&mut self, d: &Difference) {
        let slot = match d.kind {
            DiffKind::Ulp => match d.ulp.unwrap_or(0) {
                0..=1 => &mut self.ulp_1,
                2..=3 => &mut self.ulp_2_3,
                4..=15 => &mut self.ulp_4_15,
                16..=255 => &mut self.ulp_16_255,
                256..=65535 => &mut self.ulp_256_65535,
                _ => &mut self.ulp_65536_up,
            },
            DiffKind::SignedZero => &mut self.signed_zero,
            DiffKind::NanPayload => &mut self.nan_payload,
            DiffKind::NanVsNumber => &mut self.nan_vs_number,
            DiffKind::Infinity => &mut self.infinity,
            DiffKind::Integer => &mut self.integer,
        };
        *slot += 1;
    }

    /// Every bucket with its words, in order.
    pub fn rows(&self) -> [(&'static str, u64); 11] {
        [
            ("1 ulp", self.ulp_1),
            ("2–3 ulp", self.ulp_2_3),
            ("4–15 ulp", self.ulp_4_15),
            ("16–255 ulp", self.ulp_16_255),
            ("256–65535 ulp", self.ulp_256_65535),
            ("≥ 65536 ulp", self.ulp_65536_up),
            ("sign of zero", self.signed_zero),
            ("NaN payload", self.nan_payload),
            ("NaN vs number", self.nan_vs_number),
            ("infinity", self.infinity),
            ("integer", self.integer),
        ]
    }
}

/// One component's value as a report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    /// The bits, in hex.
    pub bits: String,
    /// The value and bits in words: `0.5 (0x3f000000)`.
    pub value: String,
}

/// One component that differs beyond the tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// The location and component in words: `[12]`, `(3, 4) g`.
    pub at: String,
    /// The location.
    pub location: Location,
    /// The component's name (`x`, `g`, `depth`; empty for a one-component element).
    pub component: String,
    /// Byte address, in the resource's memory, of the word the component is in.
    pub address: u64,
    /// The capture's value.
    pub capture: Shown,
    /// dxlane's value.
    pub dxlane: Shown,
    /// What kind of difference.
    pub kind: DiffKind,
    /// Ulps apart, where that is defined.
    pub ulp: Option<u64>,
    /// How far apart the values are, where that is defined.
    pub abs: Option<f64>,
    /// The lane that wrote it (filled from a write-tracking run).
    pub writer: Option<super::writers::WriterReport>,
}

/// The largest difference of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Largest {
    /// Ulps apart (for the largest abs difference: of that component, where defined).
    pub ulp: Option<u64>,
    /// Absolute difference.
    pub abs: Option<f64>,
    /// Where: as [`Mismatch::at`].
    pub at: String,
}

/// What differs in one resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDiff {
    /// Elements compared.
    pub elements: u64,
    /// Components compared.
    pub components: u64,
    /// Elements with a component beyond the tolerance.
    pub differing_elements: u64,
    /// Components beyond the tolerance.
    pub differing_components: u64,
    /// Components whose bits differ but which the tolerance accepts.
    pub within_tolerance: u64,
    /// The largest ulp distance beyond the tolerance.
    pub largest_ulp: Option<Largest>,
    /// The largest absolute difference beyond the tolerance.
    pub largest_abs: Option<Largest>,
    /// Differences by kind and size.
    pub histogram: Histogram,
    /// The first mismatches, in walk order.
    pub mismatches: Vec<Mismatch>,
    /// Which components (by walk order) differ beyond the tolerance.
    pub differing: Bitset,
}

/// A set of component indices.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bitset {
    words: Vec<u64>,
}

impl Bitset {
    /// Adds `i`.
    pub fn insert(&mut self, i: u64) {
        let w = (i / 64) as usize;
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }

    /// How many are in the set.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// How many of `self` are not in `other`.
    pub fn minus_count(&self, other: &Bitset) -> u64 {
        self.words
            .iter()
            .enumerate()
            .map(|(i, w)| u64::from((w & !other.words.get(i).copied().unwrap_or(0)).count_ones()))
            .sum()
    }
}

/// What to compare: one captured resource's layout and element format, and the rules.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// Where the captured bytes are.
    pub layout: &'a Layout,
    /// The resource.
    pub shape: &'a Shape,
    /// The components of one element.
    pub components: &'a [Component],
    /// Bytes of one element (buffers; a texture's element is its texel).
    pub element_bytes: u32,
    /// The tolerance.
    pub tolerance: Tolerance,
    /// The NaN rule.
    pub nan: NanRule,
}

impl Subject<'_> {
    /// What location words need to say for this resource.
    pub fn extent(&self) -> Extent {
        match self.shape {
            Shape::Texture(d) => Extent {
                three_d: d.dim == crate::resources::TextureDim::Tex3D,
                mips: d.mips > 1,
                slices: d.array_size() > 1,
                samples: d.samples > 1,
            },
            Shape::Buffer { .. } => Extent::default(),
        }
    }

    /// Calls `f(location, address)` for every captured element in walk order.
    pub fn for_each_element(&self, mut f: impl FnMut(Location, u64)) {
        match (self.layout, self.shape) {
            (
                Layout::Buffer { offset, bytes, .. },
                Shape::Buffer {
                    shape, view_offset, ..
                },
            ) => {
                let step = u64::from(self.element_bytes.max(1));
                let per = match shape {
                    BufferRead::Structured { stride } => Some(u64::from(*stride)),
                    BufferRead::Typed { format } => Some(u64::from(format.bytes_per_texel())),
                    _ => None,
                };
                let mut a = *offset;
                while a + step <= offset + bytes {
                    let (element, off) = match per {
                        Some(p) if p > 0 && a >= *view_offset => {
                            let rel = a - view_offset;
                            (Some(rel / p), Some(rel % p))
                        }
                        _ => (None, None),
                    };
                    f(
                        Location::Buffer {
                            byte: a,
                            element,
                            offset: off,
                        },
                        a,
                    );
                    a += step;
                }
            }
            (Layout::Texture { planes }, _) => {
                for p in planes {
                    walk_plane(p, &mut f);
                }
            }
            _ => {}
        }
    }
}

fn walk_plane(p: &Plane, f: &mut impl FnMut(Location, u64)) {
    let [w, h, d] = p.size;
    let tb = u64::from(p.texel_bytes);
    let mut a = p.memory;
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                f(
                    Location::Texel {
                        x,
                        y,
                        z,
                        mip: p.mip,
                        slice: p.slice,
                        sample: p.sample,
                        subresource: p.subresource,
                    },
                    a,
                );
                a += tb;
            }
        }
    }
}

/// Compares the captured bytes (in dxlane's packing, [`Layout::unpack`]) with dxlane's,
/// keeping the first `keep` mismatches.
pub fn compare(s: &Subject<'_>, captured: &[u8], actual: &[u8], keep: usize) -> ResourceDiff {
    let mut r = ResourceDiff {
        elements: 0,
        components: 0,
        differing_elements: 0,
        differing_components: 0,
        within_tolerance: 0,
        largest_ulp: None,
        largest_abs: None,
        histogram: Histogram::default(),
        mismatches: Vec::new(),
        differing: Bitset::default(),
    };
    let extent = s.extent();
    let eb = s
        .components
        .iter()
        .map(|c| c.texel + c.texel_bytes)
        .max()
        .unwrap_or(0) as usize;
    let mut ordinal = 0u64;
    s.for_each_element(|loc, addr| {
        r.elements += 1;
        let at = usize::try_from(addr).unwrap_or(usize::MAX);
        let (ce, de) = (bytes_at(captured, at, eb), bytes_at(actual, at, eb));
        let mut element_differs = false;
        for c in s.components {
            r.components += 1;
            let i = ordinal;
            ordinal += 1;
            let (cv, dv) = (c.read(ce), c.read(de));
            let Some(d) = difference(c.kind, cv, dv) else {
                continue;
            };
            if accepts(s.tolerance, s.nan, c.kind, &d) {
                r.within_tolerance += 1;
                continue;
            }
            element_differs = true;
            r.differing_components += 1;
            r.differing.insert(i);
            r.histogram.add(&d);
            let words = || {
                let l = loc.words(extent);
                if c.name.is_empty() {
                    l
                } else if c.name.starts_with('[') {
                    format!("{l}{}", c.name)
                } else if matches!(loc, Location::Buffer { .. }) {
                    format!("{l}.{}", c.name)
                } else {
                    format!("{l} {}", c.name)
                }
            };
            if let Some(u) = d.ulp
                && d.kind == DiffKind::Ulp
                && r.largest_ulp
                    .as_ref()
                    .is_none_or(|l| l.ulp.is_some_and(|x| u > x))
            {
                r.largest_ulp = Some(Largest {
                    ulp: Some(u),
                    abs: d.abs,
                    at: words(),
                });
            }
            if let Some(a) = d.abs
                && a > 0.0
                && r.largest_abs
                    .as_ref()
                    .is_none_or(|l| l.abs.is_some_and(|x| a > x))
            {
                r.largest_abs = Some(Largest {
                    ulp: d.ulp,
                    abs: Some(a),
                    at: words(),
                });
            }
            if r.mismatches.len() < keep {
                let shown = |v: u32| Shown {
                    bits: format!("0x{v:0w$x}", w = usize::from(c.bits.div_ceil(4)).max(2)),
                    value: c.show(v),
                };
                r.mismatches.push(Mismatch {
                    at: words(),
                    location: loc,
                    component: c.name.clone(),
                    address: (addr + u64::from(c.texel) + u64::from(c.shift / 8)) & !3,
                    capture: shown(cv),
                    dxlane: shown(dv),
                    kind: d.kind,
                    ulp: d.ulp,
                    abs: d.abs,
                    writer: None,
                });
            }
        }
        if element_differs {
            r.differing_elements += 1;
        }
    });
    r
}

/// `n` bytes of `b` from `at` (fewer at the end; none past it).
fn bytes_at(b: &[u8], at: usize, n: usize) -> &[u8] {
    let end = at.saturating_add(n).min(b.len());
    b.get(at..end).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::super::element::{Naming, components};
    use super::super::layout::LayoutSpec;
    use super::*;
    use crate::resources::{Format, TextureDesc};

    fn words(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn buffer_mismatches_are_located_counted_and_bucketed() {
        let shape = Shape::Buffer {
            bytes: 32,
            shape: BufferRead::Structured { stride: 8 },
            view_offset: 0,
        };
        let layout = Layout::plan(&shape, &LayoutSpec::default()).unwrap();
        let comps = components(&[Format::R32G32_FLOAT], Naming::Vector).unwrap();
        let s = Subject {
            layout: &layout,
            shape: &shape,
            components: &comps,
            element_bytes: 8,
            tolerance: Tolerance::Exact,
            nan: NanRule::Exact,
        };
        let a = [1.0f32, 2.0, 3.0, 4.0, 0.0, 6.0, 7.0, 8.0].map(f32::to_bits);
        let mut c = a;
        c[3] += 2; // [1].y, 2 ulp
        c[4] = 0x8000_0000; // [2].x, −0
        c[7] = 0x7fc0_0001; // [3].y, NaN vs number
        let r = compare(&s, &words(&c), &words(&a), 10);
        assert_eq!((r.elements, r.components), (4, 8));
        assert_eq!((r.differing_elements, r.differing_components), (3, 3));
        assert_eq!(
            r.mismatches
                .iter()
                .map(|m| m.at.as_str())
                .collect::<Vec<_>>(),
            ["[1].y", "[2].x", "[3].y"]
        );
        assert_eq!(r.mismatches[0].address, 12);
        assert_eq!(r.mismatches[0].ulp, Some(2));
        assert_eq!(r.histogram.ulp_2_3, 1);
        assert_eq!(r.histogram.signed_zero, 1);
        assert_eq!(r.histogram.nan_vs_number, 1);
        assert_eq!(r.largest_ulp.unwrap().at, "[1].y");
        assert_eq!(r.differing.count(), 3);
        // Under ulp 2 only the NaN remains.
        let s2 = Subject {
            tolerance: Tolerance::Ulp(2),
            ..s
        };
        let r2 = compare(&s2, &words(&c), &words(&a), 10);
        assert_eq!((r2.differing_components, r2.within_tolerance), (1, 2));
        assert_eq!(r.differing.minus_count(&r2.differing), 2);
    }

    #[test]
    fn texels_are_located_by_plane() {
        let d = TextureDesc {
            mips: 2,
            ..TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 2)
        };
        let shape = Shape::Texture(d);
        let layout = Layout::plan(&shape, &LayoutSpec::default()).unwrap();
        let comps = components(&[Format::R8G8B8A8_UNORM], Naming::Color).unwrap();
        let s = Subject {
            layout: &layout,
            shape: &shape,
            components: &comps,
            element_bytes: 4,
            tolerance: Tolerance::Exact,
            nan: NanRule::Exact,
        };
        let a = vec![0u8; d.total_bytes() as usize];
        let mut c = a.clone();
        c[4 * 6 + 1] = 3; // mip 0 (2, 1) g
        c[32 + 4 + 2] = 1; // mip 1 (1, 0) b
        let r = compare(&s, &c, &a, 10);
        assert_eq!(r.elements, 8 + 2);
        let at: Vec<_> = r.mismatches.iter().map(|m| m.at.as_str()).collect();
        assert_eq!(at, ["(2, 1) mip 0 g", "(1, 0) mip 1 b"]);
        assert_eq!(r.mismatches[0].ulp, Some(3));
        assert_eq!(r.mismatches[1].address, 36);
    }
}
