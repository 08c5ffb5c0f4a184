//! Buffer views (raw, structured, typed), UAV counters, and their robust access.
//!
//! A [`BufferView`] is a window of elements on a [`Memory`]: `num_elements` elements of
//! [`BufferView::element_size`] bytes starting at element `first_element`. Elements are
//! 4-byte words for raw views (as in D3D12's `D3D12_BUFFER_SRV_FLAG_RAW` views), the
//! stride for structured views, and the format's texel size for typed views.
//!
//! Every access is robust (D3D11.3's out-of-bounds rules): a read that does not
//! lie entirely inside the view (and its memory) gives 0, a write is dropped. Each
//! component of a multi-component access is checked on its own, so a four-component load
//! straddling the end returns the components inside and zeros for the rest.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::format::Format;
use super::memory::{Memory, RmwOp};

/// How a buffer view's elements are interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// Byte-address buffer; elements are 4-byte words.
    Raw,
    /// Structured buffer of `stride`-byte elements.
    Structured {
        /// Element size in bytes.
        stride: u32,
    },
    /// Typed buffer: elements are texels of `format`.
    Typed {
        /// Element format.
        format: Format,
    },
}

/// A view of a buffer's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferView {
    /// The storage.
    pub memory: Memory,
    /// How elements are read.
    pub kind: BufferKind,
    /// First element of the view (in elements of [`BufferView::element_size`]).
    pub first_element: u64,
    /// Number of elements.
    pub num_elements: u64,
}

impl BufferView {
    /// A view of all of `memory`: as many whole elements as fit.
    pub fn whole(memory: Memory, kind: BufferKind) -> BufferView {
        let size = element_size(kind);
        let num_elements = memory.len().checked_div(size).unwrap_or(0);
        BufferView {
            memory,
            kind,
            first_element: 0,
            num_elements,
        }
    }

    /// Bytes per element: 4 (raw), the stride (structured), the texel size (typed).
    pub fn element_size(&self) -> u64 {
        element_size(self.kind)
    }

    /// First byte of the view in its memory (saturating).
    pub fn byte_offset(&self) -> u64 {
        self.first_element.saturating_mul(self.element_size())
    }

    /// Length of the view in bytes (saturating).
    pub fn byte_len(&self) -> u64 {
        self.num_elements.saturating_mul(self.element_size())
    }

    /// The memory address of bytes `[off, off + n)` of the view, when they lie inside it.
    #[inline]
    pub fn addr(&self, off: u64, n: u64) -> Option<u64> {
        view_addr(&self.memory, self.byte_offset(), self.byte_len(), off, n)
    }

    /// The view-relative byte offset of `offset` bytes into structured element `index`,
    /// when `n` bytes there lie inside the element and the view.
    #[inline]
    pub fn struct_offset(&self, index: u64, offset: u64, n: u64) -> Option<u64> {
        let BufferKind::Structured { stride } = self.kind else {
            return None;
        };
        element_offset(u64::from(stride), self.num_elements, index, offset, n)
    }

    /// The view's 32-bit structured stores with its bounds worked out once (what a wave
    /// storing through one view repeats per lane); `None` for a view that is not
    /// structured.
    pub fn structured_words(&self) -> Option<StructuredWords<'_>> {
        let BufferKind::Structured { stride } = self.kind else {
            return None;
        };
        Some(StructuredWords {
            memory: &self.memory,
            stride: u64::from(stride),
            num_elements: self.num_elements,
            base: self.byte_offset(),
            len: self.byte_len(),
        })
    }

    /// Reads `n` (1, 2, 4 or 8) bytes at view offset `off`; 0 out of bounds.
    #[inline]
    pub fn read(&self, off: u64, n: u32) -> u64 {
        let Some(a) = self.addr(off, u64::from(n)) else {
            return 0;
        };
        match n {
            1 => self.memory.load_u8(a).map(u64::from),
            2 => self.memory.load_u16(a).map(u64::from),
            8 => self.memory.load_u64(a),
            _ => self.memory.load_u32(a).map(u64::from),
        }
        .unwrap_or(0)
    }

    /// Writes the low `n` (1, 2, 4 or 8) bytes of `v` at view offset `off`; dropped out of
    /// bounds. Returns whether it was written.
    #[inline]
    pub fn write(&self, off: u64, n: u32, v: u64) -> bool {
        let Some(a) = self.addr(off, u64::from(n)) else {
            return false;
        };
        match n {
            1 => self.memory.store_u8(a, v as u8),
            2 => self.memory.store_u16(a, v as u16),
            8 => self.memory.store_u64(a, v),
            _ => self.memory.store_u32(a, v as u32),
        }
    }

    /// Typed element `index` decoded by the view's format; `None` out of bounds or for a
    /// view that is not typed.
    pub fn typed_load(&self, index: u64) -> Option<[u32; 4]> {
        let BufferKind::Typed { format } = self.kind else {
            return None;
        };
        if index >= self.num_elements || !format.is_supported() {
            return None;
        }
        let size = u64::from(format.bytes_per_texel());
        let a = self.addr(index.checked_mul(size)?, size)?;
        let mut buf = [0u8; 16];
        let b = buf.get_mut(..size as usize)?;
        self.memory.read_bytes(a, b).then(|| format.decode(b))
    }

    /// Encodes the components of `value` in `mask` into typed element `index`; dropped
    /// out of bounds.
    pub fn typed_store(&self, index: u64, value: [u32; 4], mask: u8) -> bool {
        let BufferKind::Typed { format } = self.kind else {
            return false;
        };
        if index >= self.num_elements || !format.is_supported() {
            return false;
        }
        let size = u64::from(format.bytes_per_texel());
        let Some(a) = index.checked_mul(size).and_then(|o| self.addr(o, size)) else {
            return false;
        };
        let mut buf = [0u8; 16];
        let Some(b) = buf.get_mut(..size as usize) else {
            return false;
        };
        if size == 4 && mask & 0xf == (1u8 << format.component_count()) - 1 {
            // Whole 32-bit texel: one store, no read-modify-write.
            format.encode(value, mask, b);
            return self.memory.write_bytes(a, b);
        }
        self.memory.read_bytes(a, b);
        format.encode(value, mask, b);
        self.memory.write_bytes(a, b)
    }

    /// A 32-bit atomic at view offset `off`; returns the old value, `None` out of bounds.
    pub fn atomic(&self, off: u64, op: RmwOp, v: u32) -> Option<u32> {
        let a = self.addr(off & !3, 4)?;
        self.memory.atomic_u32(a, op, v)
    }

    /// A 32-bit compare-exchange at view offset `off`.
    pub fn compare_exchange(&self, off: u64, cmp: u32, new: u32) -> Option<u32> {
        let a = self.addr(off & !3, 4)?;
        self.memory.compare_exchange_u32(a, cmp, new)
    }

    /// A 64-bit atomic at view offset `off`.
    pub fn atomic64(&self, off: u64, op: RmwOp, v: u64) -> Option<u64> {
        let a = self.addr(off & !7, 8)?;
        self.memory.atomic_u64(a, op, v)
    }

    /// A 64-bit compare-exchange at view offset `off`.
    pub fn compare_exchange64(&self, off: u64, cmp: u64, new: u64) -> Option<u64> {
        let a = self.addr(off & !7, 8)?;
        self.memory.compare_exchange_u64(a, cmp, new)
    }
}

/// A structured view's 32-bit stores ([`BufferView::structured_words`]): each gives what
/// [`BufferView::struct_offset`] and then [`BufferView::write`] of 4 bytes give.
#[derive(Debug, Clone, Copy)]
pub struct StructuredWords<'v> {
    memory: &'v Memory,
    stride: u64,
    num_elements: u64,
    base: u64,
    len: u64,
}

impl StructuredWords<'_> {
    /// Stores `v` at byte `offset` of element `index`; dropped (false) unless the 4 bytes
    /// lie inside the element, the view and its memory.
    #[inline]
    pub fn store(&self, index: u32, offset: u64, v: u32) -> bool {
        element_offset(self.stride, self.num_elements, u64::from(index), offset, 4)
            .and_then(|vo| view_addr(self.memory, self.base, self.len, vo, 4))
            .is_some_and(|a| self.memory.store_u32(a, v))
    }
}

/// The byte offset of `offset` bytes into element `index` of `num_elements` elements of
/// `stride` bytes, when `n` bytes there lie inside the element and the elements.
#[inline(always)]
fn element_offset(stride: u64, num_elements: u64, index: u64, offset: u64, n: u64) -> Option<u64> {
    if index >= num_elements || offset.checked_add(n)? > stride {
        return None;
    }
    index.checked_mul(stride)?.checked_add(offset)
}

/// The address in `memory` of bytes `[off, off + n)` of a view of `len` bytes starting at
/// byte `base`, when they lie inside the view and the memory.
#[inline(always)]
fn view_addr(memory: &Memory, base: u64, len: u64, off: u64, n: u64) -> Option<u64> {
    let end = off.checked_add(n)?;
    if end > len {
        return None;
    }
    let a = base.checked_add(off)?;
    memory.contains(a, n).then_some(a)
}

fn element_size(kind: BufferKind) -> u64 {
    match kind {
        BufferKind::Raw => 4,
        BufferKind::Structured { stride } => u64::from(stride),
        BufferKind::Typed { format } => u64::from(format.bytes_per_texel()),
    }
}

/// A UAV's hidden counter (append/consume buffers, `IncrementCounter`): a shared `u32`.
#[derive(Debug, Clone)]
pub struct Counter(Arc<AtomicU32>);

impl PartialEq for Counter {
    /// Counters are equal when they are the same counter.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Counter {
    /// A counter starting at `value`.
    pub fn new(value: u32) -> Counter {
        Counter(Arc::new(AtomicU32::new(value)))
    }

    /// The current value.
    pub fn get(&self) -> u32 {
        self.0.load(Relaxed)
    }

    /// Sets the value.
    pub fn set(&self, value: u32) {
        self.0.store(value, Relaxed)
    }

    /// Adds one, returning the value before (`IncrementCounter`, `Append`).
    pub fn increment(&self) -> u32 {
        self.0.fetch_add(1, Relaxed)
    }

    /// Subtracts one, returning the value after (`DecrementCounter`, `Consume`).
    pub fn decrement(&self) -> u32 {
        self.0.fetch_sub(1, Relaxed).wrapping_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(words: &[u32]) -> Memory {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Memory::from_bytes(&bytes).unwrap()
    }

    /// The wave's fast structured store (`exec::resource::struct_store`) drops and writes
    /// exactly the words the general path (`struct_offset`, then `write`) does — the
    /// robust rules of this module's doc (D3D11.3's out-of-bounds rules, as `ld_structured`
    /// and `store_structured` address an element: stride × index + byte offset; the whole
    /// access must lie inside the element and the view) — for strides, views (some
    /// reaching past their memory, misaligned strides) and lane offsets near every edge.
    #[test]
    fn structured_words_store_as_the_general_path_does() {
        let mut cases = 0;
        for stride in [1u32, 3, 4, 6, 8, 12, 16, 20] {
            for (first, count) in [(0, 4), (1, 3), (2, 6), (0, u64::MAX / 2), (5, 2)] {
                let a = mem(&[0; 8]);
                let b = mem(&[0; 8]);
                let view = |m: &Memory| BufferView {
                    memory: m.clone(),
                    kind: BufferKind::Structured { stride },
                    first_element: first,
                    num_elements: count,
                };
                let (va, vb) = (view(&a), view(&b));
                let words = va.structured_words().unwrap();
                for index in [0u32, 1, 2, 3, 7, u32::MAX] {
                    for off in [0u32, 1, 2, 4, 8, 12, 16, u32::MAX - 3, u32::MAX] {
                        for i in 0..4u64 {
                            let o = u64::from(off) + 4 * i;
                            let v = 0x0101_0101 * (cases % 200 + 1) as u32;
                            let fast = words.store(index, o, v);
                            let slow = vb
                                .struct_offset(u64::from(index), o, 4)
                                .is_some_and(|vo| vb.write(vo, 4, u64::from(v)));
                            assert_eq!(
                                fast, slow,
                                "stride {stride} view {first}+{count} [{index}] +{o}"
                            );
                            assert_eq!(a.to_bytes(), b.to_bytes());
                            cases += 1;
                        }
                    }
                }
            }
        }
        let raw = BufferView::whole(mem(&[0; 2]), BufferKind::Raw);
        assert!(raw.structured_words().is_none());
    }

    /// Robust raw access: reads past the view give 0, writes are dropped.
    #[test]
    fn raw_view_bounds() {
        let m = mem(&[1, 2, 3, 4]);
        let v = BufferView {
            memory: m.clone(),
            kind: BufferKind::Raw,
            first_element: 1,
            num_elements: 2,
        };
        assert_eq!(v.read(0, 4), 2);
        assert_eq!(v.read(4, 4), 3);
        assert_eq!(v.read(8, 4), 0);
        assert_eq!(v.read(6, 4), 0); // straddles the end
        assert!(!v.write(8, 4, 9));
        assert!(v.write(4, 2, 0xffff));
        assert_eq!(m.load_u32(8), Some(0xffff));
        assert_eq!(v.read(u64::MAX - 2, 4), 0);
    }

    #[test]
    fn view_past_its_memory_reads_zero() {
        let v = BufferView {
            memory: mem(&[7]),
            kind: BufferKind::Raw,
            first_element: 0,
            num_elements: 100,
        };
        assert_eq!(v.read(0, 4), 7);
        assert_eq!(v.read(4, 4), 0);
        assert!(!v.write(4, 4, 1));
    }

    /// Structured access: index past the count or offset past the stride is out of bounds.
    #[test]
    fn structured_bounds() {
        let v = BufferView::whole(mem(&[1, 2, 3, 4]), BufferKind::Structured { stride: 8 });
        assert_eq!(v.num_elements, 2);
        assert_eq!(v.struct_offset(1, 4, 4), Some(12));
        assert_eq!(v.struct_offset(2, 0, 4), None);
        assert_eq!(v.struct_offset(0, 6, 4), None);
    }

    #[test]
    fn typed_buffer_load_store() {
        let v = BufferView::whole(
            Memory::zeroed(8).unwrap(),
            BufferKind::Typed {
                format: Format::R8G8B8A8_UNORM,
            },
        );
        assert!(v.typed_store(1, [1.0f32.to_bits(), 0, 0, 0.5f32.to_bits()], 0xf));
        assert_eq!(v.memory.load_u32(4), Some(0x8000_00ff));
        let t = v.typed_load(1).unwrap();
        assert_eq!(f32::from_bits(t[0]), 1.0);
        assert!(v.typed_load(2).is_none());
        assert!(!v.typed_store(2, [0; 4], 0xf));
    }

    #[test]
    fn counters() {
        let c = Counter::new(5);
        assert_eq!(c.increment(), 5);
        assert_eq!(c.decrement(), 5);
        assert_eq!(c.get(), 5);
        let d = c.clone();
        d.set(1);
        assert_eq!(c.get(), 1);
    }
}
