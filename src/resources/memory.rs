//! [`Memory`]: the shared, thread-safe byte storage behind buffers, textures and
//! constant buffers.
//!
//! # Representation
//!
//! A `Memory` is an `Arc<[AtomicU32]>` plus a length in bytes. Cloning it shares the
//! storage (a UAV bound twice, or a buffer read back after a dispatch, sees the same
//! bytes). Every access is a relaxed atomic operation: relaxed loads and stores compile to
//! plain moves on the targets we run on, and they make concurrent UAV writes from worker
//! threads well defined without `unsafe`.
//!
//! - 32-bit accesses at 4-byte aligned addresses are one atomic load or store.
//! - Narrower stores (8 and 16 bits) and unaligned stores replace their bytes of the
//!   containing word(s) with a compare-and-swap loop, so two threads writing different
//!   bytes of one word never lose each other's bytes.
//! - 32-bit read-modify-write atomics are the matching `fetch_*` operation on the word
//!   (signed min/max: a compare-and-swap loop).
//! - 64-bit atomics (SM 6.6 `InterlockedAdd` on `uint64_t`) take one of
//!   [`STRIPES`] mutexes chosen by the address, then read and write both words. They are
//!   atomic with respect to every other 64-bit atomic on the same address; a *32-bit*
//!   atomic racing with them on the same bytes is not serialised against them (D3D leaves
//!   mixing the two widths on one address undefined).
//!
//! Every accessor is robust: an access that does not lie entirely within `len()` bytes
//! reads as `None` (callers turn that into 0) or is dropped, never a panic.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use super::ResourceError;

/// The largest memory one resource may have, in bytes (16 GiB). Checked before
/// allocating, so a job file asking for more gets an error instead of an abort.
pub const MAX_MEMORY_BYTES: u64 = 1 << 34;

/// Number of mutexes serialising 64-bit atomics (chosen by address).
pub const STRIPES: usize = 64;

static STRIPE_LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];

/// A read-modify-write operation on memory (32 or 64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Signed minimum.
    IMin,
    /// Signed maximum.
    IMax,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Exchange.
    Exchange,
}

impl RmwOp {
    /// The new value of a 32-bit location holding `old` after the operation with `v`.
    pub fn apply32(self, old: u32, v: u32) -> u32 {
        match self {
            RmwOp::Add => old.wrapping_add(v),
            RmwOp::Sub => old.wrapping_sub(v),
            RmwOp::And => old & v,
            RmwOp::Or => old | v,
            RmwOp::Xor => old ^ v,
            RmwOp::IMin => (old as i32).min(v as i32) as u32,
            RmwOp::IMax => (old as i32).max(v as i32) as u32,
            RmwOp::UMin => old.min(v),
            RmwOp::UMax => old.max(v),
            RmwOp::Exchange => v,
        }
    }

    /// The new value of a 64-bit location holding `old` after the operation with `v`.
    pub fn apply64(self, old: u64, v: u64) -> u64 {
        match self {
            RmwOp::Add => old.wrapping_add(v),
            RmwOp::Sub => old.wrapping_sub(v),
            RmwOp::And => old & v,
            RmwOp::Or => old | v,
            RmwOp::Xor => old ^ v,
            RmwOp::IMin => (old as i64).min(v as i64) as u64,
            RmwOp::IMax => (old as i64).max(v as i64) as u64,
            RmwOp::UMin => old.min(v),
            RmwOp::UMax => old.max(v),
            RmwOp::Exchange => v,
        }
    }
}

/// Shared byte storage. Clones share the bytes.
#[derive(Clone)]
pub struct Memory {
    // A `Vec` behind the `Arc` so that the words are allocated once, fallibly, and never
    // copied (`Arc<[T]>::from(Vec)` would copy, doubling the peak).
    words: Arc<Vec<AtomicU32>>,
    len: u64,
}

/// Storage of whole 2 MiB pages asks for the kernel's 2 MiB pages.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// `n` zero words, allocated fallibly (`None` when the system refuses), and not
/// written: the allocator's zeroed allocation (`calloc`) takes a large block straight
/// from the kernel, whose new pages read as zero, so no page is touched before the
/// program writes it. A large block's whole 2 MiB pages are asked for as 2 MiB pages
/// before then (`madvise(MADV_HUGEPAGE)`; Linux maps them on first touch where
/// transparent huge pages are enabled for advised ranges, its common default).
///
/// Measured on `dxlane run` of a one-draw 1080p job (`cargo bench --bench process`):
/// zeroing the 8 MB target word by word took 2,025 page faults and, with them, a tenth
/// of the whole process; now the target's pages are met on the draw's first writes, by
/// its worker threads, four of them 2 MiB each. The contents and every access are the
/// same either way; a refused hint is ignored.
#[allow(unsafe_code)]
fn zeroed_words(n: usize) -> Option<Vec<AtomicU32>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<AtomicU32>(n).ok()?;
    // SAFETY: `layout` has a non-zero size (n > 0 words of 4 bytes).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU32>();
    if ptr.is_null() {
        return None;
    }
    huge_pages(ptr as usize, layout.size());
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `n`
    // `AtomicU32`s (size and alignment both match `Vec<AtomicU32>`'s for capacity `n`),
    // so the `Vec` may own and free it; its `n` words are initialised, since the
    // allocation is zeroed and all-zero bytes are a valid `AtomicU32` (0).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// Asks the kernel to back the whole 2 MiB pages of the `bytes` bytes at `start` (a
/// new, untouched allocation) with 2 MiB pages.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn huge_pages(start: usize, bytes: usize) {
    let end = start.saturating_add(bytes);
    let Some(first) = start.checked_next_multiple_of(HUGE_PAGE_BYTES) else {
        return;
    };
    let last = end - end % HUGE_PAGE_BYTES;
    if last <= first {
        return;
    }
    // SAFETY: `madvise` only changes how the kernel backs the pages of [first, last):
    // whole 2 MiB pages (so page-aligned, as it requires) inside the allocation the
    // caller owns; it reads and writes no memory of the program, and MADV_HUGEPAGE
    // keeps the pages' contents.
    let _ = unsafe {
        libc::madvise(
            first as *mut libc::c_void,
            last - first,
            libc::MADV_HUGEPAGE,
        )
    };
}

/// Huge pages are asked for on Linux only.
#[cfg(not(target_os = "linux"))]
fn huge_pages(_: usize, _: usize) {}

/// The global allocator of dxlane's command line and benchmarks: the system's, with
/// every block of at least 2 MiB asked for in the kernel's 2 MiB pages (as
/// [`Memory`]'s storage is), which Linux maps on first touch where transparent huge
/// pages are enabled for advised ranges.
///
/// A draw's transient arrays are large and read out of order: a 1080p frame of 200,000
/// small triangles keeps 50 MB of set-up primitives, which each tile reads in draw
/// order, scattered over the whole array, and in 4 KiB pages most of those reads also
/// missed the TLB (by perf over the particle frame of `cargo bench --bench
/// stages_vs_lavapipe -- particles`, the tile loop's look-ahead stalled on them). With
/// large blocks in 2 MiB pages that frame took about a fifth less time on 2 workers
/// (`docs/jit.md`, "Small triangles"). Only where a block's pages sit changes: the
/// contents, every access, and what fails when the system refuses memory are the
/// system allocator's.
#[derive(Debug, Clone, Copy, Default)]
pub struct LargePages;

// SAFETY: blocks `is_large` names are whole mappings of their own, made by `large::map`
// and given back by `large::unmap` with the same size; every other block is `System`'s,
// handed to it unchanged. Which of the two a block is follows from its layout alone,
// and `realloc` moves a block between the two kinds by allocating, copying and freeing,
// so `dealloc` and `realloc` always meet a block of the kind its layout names.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for LargePages {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            return large::map(layout.size());
        }
        // SAFETY: the caller's contract for `layout` is `System`'s.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            // A new anonymous mapping reads as zero.
            return large::map(layout.size());
        }
        // SAFETY: as `alloc`.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        if is_large(layout.size(), layout.align()) {
            large::unmap(ptr, layout.size());
            return;
        }
        // SAFETY: `ptr` came from `System` with `layout`.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let (was, will) = (
            is_large(layout.size(), layout.align()),
            is_large(new_size, layout.align()),
        );
        match (was, will) {
            // SAFETY: `ptr` came from `System` with `layout`; the caller's contract for
            // `new_size` is `System`'s.
            (false, false) => unsafe { std::alloc::System.realloc(ptr, layout, new_size) },
            (true, true) => large::resize(ptr, layout.size(), new_size),
            _ => {
                // SAFETY: `new_size` is non-zero and, with the block's alignment, a
                // valid layout (the caller's contract).
                let new_layout = unsafe {
                    std::alloc::Layout::from_size_align_unchecked(new_size, layout.align())
                };
                // SAFETY: as `alloc` with a valid non-zero layout.
                let p = unsafe { self.alloc(new_layout) };
                if !p.is_null() {
                    // SAFETY: both blocks are live, distinct, and at least this long.
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                p
            }
        }
    }
}

/// Whether a block of `size` bytes aligned to `align` is a mapping of its own: on Linux
/// on x86-64, whose pages are 4 KiB (the mappings' lengths and padding assume it);
/// elsewhere every block is the system allocator's.
fn is_large(size: usize, align: usize) -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64"))
        && size >= HUGE_PAGE_BYTES
        && align <= 4096
}

/// [`LargePages`]' mappings: each block one private anonymous mapping, starting on a
/// 2 MiB boundary, its length the block's size rounded up to whole 4 KiB pages, the
/// whole of it advised huge (one region with one advice, so the kernel can grow or move
/// it whole) before anything touches it.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod large {
    use super::HUGE_PAGE_BYTES;

    /// `bytes` rounded up to whole 4 KiB pages.
    fn page_round(bytes: usize) -> usize {
        bytes.next_multiple_of(4096)
    }

    /// Advises the mapping of `len` bytes at `start` (page-aligned) huge.
    fn advise(start: *mut libc::c_void, len: usize) {
        // SAFETY: MADV_HUGEPAGE on a mapping of this allocator changes only how the
        // kernel backs its pages; it reads and writes no memory and keeps contents. A
        // refused hint is ignored.
        let _ = unsafe { libc::madvise(start, len, libc::MADV_HUGEPAGE) };
    }

    /// A new mapping for a block of `bytes`; null when the system refuses.
    pub(super) fn map(bytes: usize) -> *mut u8 {
        let len = page_round(bytes);
        let Some(padded) = len.checked_add(HUGE_PAGE_BYTES) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a new private anonymous mapping; it overlaps nothing the program owns.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                padded,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        let start = p as usize;
        let aligned = start.next_multiple_of(HUGE_PAGE_BYTES);
        let head = aligned - start;
        let tail = padded - head - len;
        // SAFETY: the head and tail are the padding of the mapping just made, outside
        // [aligned, aligned + len), and nothing has seen their addresses.
        unsafe {
            if head > 0 {
                libc::munmap(p, head);
            }
            if tail > 0 {
                libc::munmap((aligned + len) as *mut libc::c_void, tail);
            }
        }
        advise(aligned as *mut libc::c_void, len);
        aligned as *mut u8
    }

    /// Gives back the mapping `map` (or `resize`) made at `p` for a block of `bytes`.
    pub(super) fn unmap(p: *mut u8, bytes: usize) {
        // SAFETY: `p` starts a mapping of exactly `page_round(bytes)` bytes made by
        // this module, which nothing uses after this call.
        unsafe { libc::munmap(p.cast(), page_round(bytes)) };
    }

    /// The block of `old` bytes at `p` resized to `new` bytes, its contents kept: in
    /// place where the kernel can, else moved (its pages remapped, not copied) to the
    /// start of a new mapping. Null when the system refuses, `p` then unchanged.
    pub(super) fn resize(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let (old_len, new_len) = (page_round(old), page_round(new));
        // SAFETY: `p` starts a mapping of `old_len` bytes made by this module, one
        // region with one advice. Without `MREMAP_MAYMOVE` the kernel only shrinks it
        // or grows it where it lies (else fails, changing nothing), keeping its
        // contents and advice.
        let r = unsafe { libc::mremap(p.cast(), old_len, new_len, 0) };
        if r != libc::MAP_FAILED {
            advise(p.cast(), new_len);
            return p;
        }
        let q = map(new);
        if q.is_null() {
            return q;
        }
        // SAFETY: `q` starts a mapping of `new_len` > `old_len` bytes that only this
        // call knows; `MREMAP_FIXED` replaces its first `old_len` bytes with the old
        // mapping's pages (which keep their advice), and the old address is not used
        // again.
        let moved = unsafe {
            libc::mremap(
                p.cast(),
                old_len,
                old_len,
                libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                q.cast::<libc::c_void>(),
            )
        };
        if moved == libc::MAP_FAILED {
            unmap(q, new);
            return std::ptr::null_mut();
        }
        q
    }
}

/// No mappings of its own elsewhere: `is_large` is always false there.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod large {
    pub(super) fn map(_: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub(super) fn unmap(_: *mut u8, _: usize) {}
    pub(super) fn resize(_: *mut u8, _: usize, _: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memory({} bytes)", self.len)
    }
}

impl PartialEq for Memory {
    /// Two memories are equal when they share storage.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.words, &other.words)
    }
}

impl Memory {
    /// `bytes` zero bytes. Fails past [`MAX_MEMORY_BYTES`].
    pub fn zeroed(bytes: u64) -> Result<Memory, ResourceError> {
        if bytes > MAX_MEMORY_BYTES {
            return Err(ResourceError::TooLarge {
                bytes,
                limit: MAX_MEMORY_BYTES,
            });
        }
        let n = bytes.div_ceil(4) as usize;
        let words = zeroed_words(n).ok_or(ResourceError::OutOfMemory { bytes })?;
        Ok(Memory {
            words: Arc::new(words),
            len: bytes,
        })
    }

    /// A memory holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Memory, ResourceError> {
        let len = bytes.len() as u64;
        if len > MAX_MEMORY_BYTES {
            return Err(ResourceError::TooLarge {
                bytes: len,
                limit: MAX_MEMORY_BYTES,
            });
        }
        let mut words = Vec::new();
        words
            .try_reserve_exact(bytes.len().div_ceil(4))
            .map_err(|_| ResourceError::OutOfMemory { bytes: len })?;
        words.extend(bytes.chunks(4).map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            AtomicU32::new(u32::from_le_bytes(w))
        }));
        Ok(Memory {
            words: Arc::new(words),
            len,
        })
    }

    /// Writes every byte to `w` in pieces of at most 64 KiB, without a copy of the whole.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut buf = vec![0u8; 1 << 16];
        let mut at = 0u64;
        while at < self.len {
            let n = (self.len - at).min(buf.len() as u64) as usize;
            let piece = &mut buf[..n];
            self.read_bytes(at, piece);
            w.write_all(piece)?;
            at += n as u64;
        }
        Ok(())
    }

    /// Sets every 32-bit word to `word` (a fill pattern), in place.
    pub fn fill_words(&self, word: u32) {
        for w in self.words.iter() {
            w.store(word, Relaxed);
        }
    }

    /// A copy of the bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Filled in place rather than pushed four bytes at a time: no capacity check per
        // word, so the copy vectorizes (it was 20 instructions a byte).
        let mut out = vec![0u8; self.words.len() * 4];
        for (b, w) in out.chunks_exact_mut(4).zip(self.words.iter()) {
            b.copy_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        out.truncate(self.len as usize);
        out
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the memory has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `[addr, addr + n)` lies within the memory.
    #[inline]
    pub fn contains(&self, addr: u64, n: u64) -> bool {
        addr.checked_add(n).is_some_and(|end| end <= self.len)
    }

    /// The words `[first, first + count)` (word = aligned 4 bytes), `None` when they do
    /// not all lie within the memory: for a loop that reads many words of one region, so
    /// that each read is checked against the slice held in a register (the memory's word
    /// pointer is otherwise reloaded around every atomic load).
    #[inline]
    pub fn words(&self, first: u64, count: u64) -> Option<&[AtomicU32]> {
        let first = usize::try_from(first).ok()?;
        let end = first.checked_add(usize::try_from(count).ok()?)?;
        self.words.get(first..end)
    }

    #[inline]
    fn word(&self, i: u64) -> u32 {
        self.words.get(i as usize).map_or(0, |w| w.load(Relaxed))
    }

    /// Reads `n <= 8` bytes at `addr` as a little-endian value; `None` when out of bounds.
    #[inline]
    fn read_le(&self, addr: u64, n: u32) -> Option<u64> {
        if !self.contains(addr, u64::from(n)) {
            return None;
        }
        if n == 4 && addr % 4 == 0 {
            return Some(u64::from(self.word(addr / 4)));
        }
        let first = addr / 4;
        let shift = (addr % 4) * 8;
        // Up to 8 bytes starting anywhere in a word span at most three words.
        let lo = u128::from(self.word(first))
            | (u128::from(self.word(first + 1)) << 32)
            | (u128::from(self.word(first + 2)) << 64);
        let v = (lo >> shift) as u64;
        Some(if n >= 8 {
            v
        } else {
            v & ((1u64 << (n * 8)) - 1)
        })
    }

    /// Replaces the bytes selected by `mask` in word `i` with those of `v`.
    #[inline]
    fn merge_word(&self, i: u64, v: u32, mask: u32) {
        if mask == 0 {
            return;
        }
        if let Some(w) = self.words.get(i as usize) {
            if mask == u32::MAX {
                w.store(v, Relaxed);
            } else {
                // `fetch_update` retries until no other thread changed the word meanwhile.
                let _ = w.fetch_update(Relaxed, Relaxed, |old| Some((old & !mask) | (v & mask)));
            }
        }
    }

    /// Writes the low `n <= 8` bytes of `v` at `addr`; dropped (false) when out of bounds.
    #[inline]
    fn write_le(&self, addr: u64, n: u32, v: u64) -> bool {
        if !self.contains(addr, u64::from(n)) {
            return false;
        }
        if n == 4 && addr % 4 == 0 {
            if let Some(w) = self.words.get((addr / 4) as usize) {
                w.store(v as u32, Relaxed);
            }
            return true;
        }
        let first = addr / 4;
        let shift = (addr % 4) * 8;
        let bits: u128 = if n >= 8 {
            u128::from(u64::MAX)
        } else {
            (1u128 << (n * 8)) - 1
        };
        let mask = bits << shift;
        let val = (u128::from(v) << shift) & mask;
        for k in 0..3u64 {
            let m = (mask >> (32 * k)) as u32;
            let x = (val >> (32 * k)) as u32;
            self.merge_word(first + k, x, m);
        }
        true
    }

    /// The 32-bit word at byte `4 * index`; 0 past the last word. For a caller that has
    /// already proven its aligned addresses lie within [`Memory::len`], this is
    /// [`Memory::load_u32`] without the range and alignment checks.
    #[inline(always)]
    pub fn load_word(&self, index: u64) -> u32 {
        self.word(index)
    }

    /// The 32-bit little-endian value at byte `addr` (any alignment); `None` out of bounds.
    #[inline]
    pub fn load_u32(&self, addr: u64) -> Option<u32> {
        self.read_le(addr, 4).map(|v| v as u32)
    }

    /// The 16-bit value at `addr`; `None` out of bounds.
    #[inline]
    pub fn load_u16(&self, addr: u64) -> Option<u16> {
        self.read_le(addr, 2).map(|v| v as u16)
    }

    /// The byte at `addr`; `None` out of bounds.
    #[inline]
    pub fn load_u8(&self, addr: u64) -> Option<u8> {
        self.read_le(addr, 1).map(|v| v as u8)
    }

    /// The 64-bit value at `addr`; `None` out of bounds.
    #[inline]
    pub fn load_u64(&self, addr: u64) -> Option<u64> {
        self.read_le(addr, 8)
    }

    /// Stores a 32-bit value at `addr`; returns false (and writes nothing) out of bounds.
    #[inline]
    pub fn store_u32(&self, addr: u64, v: u32) -> bool {
        self.write_le(addr, 4, u64::from(v))
    }

    /// Stores a 16-bit value.
    #[inline]
    pub fn store_u16(&self, addr: u64, v: u16) -> bool {
        self.write_le(addr, 2, u64::from(v))
    }

    /// Stores a byte.
    #[inline]
    pub fn store_u8(&self, addr: u64, v: u8) -> bool {
        self.write_le(addr, 1, u64::from(v))
    }

    /// Stores a 64-bit value (not atomic as a whole: two 32-bit stores).
    #[inline]
    pub fn store_u64(&self, addr: u64, v: u64) -> bool {
        self.write_le(addr, 8, v)
    }

    /// Copies `out.len()` bytes from `addr`; false (and `out` untouched) out of bounds.
    pub fn read_bytes(&self, addr: u64, out: &mut [u8]) -> bool {
        if !self.contains(addr, out.len() as u64) {
            return false;
        }
        // Whole words from an aligned address are copied a word at a time.
        let mut out = out;
        let mut addr = addr;
        if addr % 4 == 0 {
            let whole = out.len() / 4;
            let first = (addr / 4) as usize;
            if let Some(words) = self.words.get(first..first + whole) {
                let (head, tail) = out.split_at_mut(whole * 4);
                for (b, w) in head.chunks_exact_mut(4).zip(words) {
                    b.copy_from_slice(&w.load(Relaxed).to_le_bytes());
                }
                out = tail;
                addr += whole as u64 * 4;
            }
        }
        for (i, chunk) in out.chunks_mut(8).enumerate() {
            let a = addr + (i as u64) * 8;
            let v = self.read_le(a, chunk.len() as u32).unwrap_or(0);
            chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
        }
        true
    }

    /// Copies `bytes` to `addr`; false (and nothing written) out of bounds. The bytes
    /// before the first 4-aligned address and after the last one are merged into their
    /// words; the words between are stored whole (a render target's clear or a tile's
    /// rows written back are millions of them).
    pub fn write_bytes(&self, addr: u64, bytes: &[u8]) -> bool {
        if !self.contains(addr, bytes.len() as u64) {
            return false;
        }
        let head = (addr.wrapping_neg() % 4).min(bytes.len() as u64) as usize;
        let (first, rest) = bytes.split_at(head);
        for (i, b) in first.iter().enumerate() {
            self.write_le(addr + i as u64, 1, u64::from(*b));
        }
        let at = addr + head as u64;
        let whole = rest.len() / 4 * 4;
        let (middle, tail) = rest.split_at(whole);
        let w0 = (at / 4) as usize;
        if let Some(words) = self.words.get(w0..w0 + whole / 4) {
            for (w, b) in words.iter().zip(middle.chunks_exact(4)) {
                w.store(u32::from_le_bytes([b[0], b[1], b[2], b[3]]), Relaxed);
            }
        }
        let end = at + whole as u64;
        for (i, b) in tail.iter().enumerate() {
            self.write_le(end + i as u64, 1, u64::from(*b));
        }
        true
    }

    /// A 32-bit atomic read-modify-write at `addr` (rounded down to a multiple of 4:
    /// D3D requires aligned atomics and leaves others undefined); returns the old value,
    /// or `None` (nothing written) out of bounds.
    pub fn atomic_u32(&self, addr: u64, op: RmwOp, v: u32) -> Option<u32> {
        let addr = addr & !3;
        if !self.contains(addr, 4) {
            return None;
        }
        let w = self.words.get((addr / 4) as usize)?;
        Some(match op {
            RmwOp::Add => w.fetch_add(v, Relaxed),
            RmwOp::Sub => w.fetch_sub(v, Relaxed),
            RmwOp::And => w.fetch_and(v, Relaxed),
            RmwOp::Or => w.fetch_or(v, Relaxed),
            RmwOp::Xor => w.fetch_xor(v, Relaxed),
            RmwOp::UMin => w.fetch_min(v, Relaxed),
            RmwOp::UMax => w.fetch_max(v, Relaxed),
            RmwOp::Exchange => w.swap(v, Relaxed),
            RmwOp::IMin | RmwOp::IMax => {
                match w.fetch_update(Relaxed, Relaxed, |old| Some(op.apply32(old, v))) {
                    Ok(old) | Err(old) => old,
                }
            }
        })
    }

    /// An atomic read-modify-write of the byte at `addr`: the byte becomes `f(old)`, the
    /// other bytes of its word are kept; returns the old byte, or `None` (nothing
    /// written) out of bounds.
    pub fn update_u8(&self, addr: u64, f: impl Fn(u8) -> u8) -> Option<u8> {
        if !self.contains(addr, 1) {
            return None;
        }
        let w = self.words.get(usize::try_from(addr / 4).ok()?)?;
        let shift = (addr % 4) * 8;
        let old = match w.fetch_update(Relaxed, Relaxed, |word| {
            let b = (word >> shift) as u8;
            Some((word & !(0xff << shift)) | (u32::from(f(b)) << shift))
        }) {
            Ok(old) | Err(old) => old,
        };
        Some((old >> shift) as u8)
    }

    /// A 32-bit compare-exchange at `addr` (rounded down to a multiple of 4): writes `new`
    /// when the word equals `cmp`; returns the old value, or `None` out of bounds.
    pub fn compare_exchange_u32(&self, addr: u64, cmp: u32, new: u32) -> Option<u32> {
        let addr = addr & !3;
        if !self.contains(addr, 4) {
            return None;
        }
        let w = self.words.get((addr / 4) as usize)?;
        Some(match w.compare_exchange(cmp, new, Relaxed, Relaxed) {
            Ok(old) | Err(old) => old,
        })
    }

    fn stripe(&self, addr: u64) -> std::sync::MutexGuard<'static, ()> {
        let base = self.words.as_ptr() as usize as u64;
        let key = (base ^ (addr / 8).wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 7;
        let lock = &STRIPE_LOCKS[(key % STRIPES as u64) as usize];
        // A poisoned stripe only means another thread panicked while holding it; the
        // words themselves are always consistent, so carry on.
        lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A 64-bit atomic read-modify-write at `addr` (rounded down to a multiple of 8);
    /// returns the old value, or `None` out of bounds. See the module doc for what it is
    /// atomic with respect to.
    pub fn atomic_u64(&self, addr: u64, op: RmwOp, v: u64) -> Option<u64> {
        let addr = addr & !7;
        if !self.contains(addr, 8) {
            return None;
        }
        let _guard = self.stripe(addr);
        let old = self.read_le(addr, 8)?;
        self.write_le(addr, 8, op.apply64(old, v));
        Some(old)
    }

    /// A 64-bit compare-exchange at `addr` (rounded down to a multiple of 8).
    pub fn compare_exchange_u64(&self, addr: u64, cmp: u64, new: u64) -> Option<u64> {
        let addr = addr & !7;
        if !self.contains(addr, 8) {
            return None;
        }
        let _guard = self.stripe(addr);
        let old = self.read_le(addr, 8)?;
        if old == cmp {
            self.write_le(addr, 8, new);
        }
        Some(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `LargePages` keeps a block's bytes through every change of kind and size (small
    /// to large, large to larger, large to small), gives zeroed large blocks, and its
    /// large blocks start on 2 MiB boundaries.
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[allow(unsafe_code)]
    fn large_pages_keeps_contents_across_reallocation() {
        use std::alloc::{GlobalAlloc, Layout};
        let a = LargePages;
        let sizes = [
            1000usize,
            HUGE_PAGE_BYTES - 8,
            HUGE_PAGE_BYTES,
            4_063_232,
            8_126_464,
            3 * HUGE_PAGE_BYTES + 12,
            5000,
        ];
        // SAFETY: every block is used within its current size and freed once, with the
        // layout it was last given.
        unsafe {
            let mut layout = Layout::from_size_align(sizes[0], 8).unwrap();
            let mut p = a.alloc(layout);
            assert!(!p.is_null());
            let fill = |p: *mut u8, n: usize| {
                for i in (0..n).step_by(997) {
                    *p.add(i) = (i % 251) as u8;
                }
            };
            fill(p, sizes[0]);
            let mut kept = sizes[0];
            for &n in &sizes[1..] {
                p = a.realloc(p, layout, n);
                assert!(!p.is_null(), "realloc to {n}");
                for i in (0..kept.min(n)).step_by(997) {
                    assert_eq!(*p.add(i), (i % 251) as u8, "byte {i} after realloc to {n}");
                }
                if is_large(n, 8) {
                    assert_eq!(p as usize % HUGE_PAGE_BYTES, 0);
                }
                layout = Layout::from_size_align(n, 8).unwrap();
                fill(p, n);
                kept = n;
            }
            a.dealloc(p, layout);
            // A block that cannot grow where it lies (a page mapped just past it) is
            // moved whole, its bytes kept.
            let four = Layout::from_size_align(2 * HUGE_PAGE_BYTES, 8).unwrap();
            let p = a.alloc(four);
            assert!(!p.is_null());
            fill(p, four.size());
            let guard = libc::mmap(
                p.add(four.size()).cast(),
                4096,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            );
            let q = a.realloc(p, four, 3 * HUGE_PAGE_BYTES);
            assert!(!q.is_null());
            if guard != libc::MAP_FAILED {
                assert_ne!(p, q, "moved past the page mapped after it");
                libc::munmap(guard, 4096);
            }
            assert_eq!(q as usize % HUGE_PAGE_BYTES, 0);
            for i in (0..four.size()).step_by(997) {
                assert_eq!(*q.add(i), (i % 251) as u8, "byte {i} after the move");
            }
            a.dealloc(q, Layout::from_size_align(3 * HUGE_PAGE_BYTES, 8).unwrap());
            let big = Layout::from_size_align(5 * HUGE_PAGE_BYTES, 64).unwrap();
            let z = a.alloc_zeroed(big);
            assert!(!z.is_null());
            assert!((0..big.size()).step_by(4096).all(|i| *z.add(i) == 0));
            a.dealloc(z, big);
        }
    }

    /// `read_bytes` (a word at a time from an aligned address, else in 8-byte pieces)
    /// gives the stored bytes at every alignment and length, and refuses a read past the
    /// end without touching the buffer.
    #[test]
    fn reads_equal_stored_bytes() {
        let bytes: Vec<u8> = (0..37u32).map(|i| (i * 53 + 7) as u8).collect();
        let m = Memory::from_bytes(&bytes).unwrap();
        for addr in 0..12usize {
            for n in 0..=bytes.len() - addr {
                let mut out = vec![0x5a; n];
                assert!(m.read_bytes(addr as u64, &mut out));
                assert_eq!(out, bytes[addr..addr + n], "{addr} {n}");
            }
        }
        let mut out = [0x5a; 8];
        assert!(!m.read_bytes(32, &mut out));
        assert_eq!(out, [0x5a; 8]);
    }

    /// `write_bytes` at every alignment and length stores exactly those bytes and
    /// leaves every other byte alone; past the end it writes nothing.
    #[test]
    fn writes_store_exactly_the_bytes() {
        let before: Vec<u8> = (0..37u32).map(|i| (i * 29 + 3) as u8).collect();
        for addr in 0..12usize {
            for n in 0..=before.len() - addr {
                let m = Memory::from_bytes(&before).unwrap();
                let data: Vec<u8> = (0..n).map(|i| (i * 71 + 200) as u8).collect();
                assert!(m.write_bytes(addr as u64, &data));
                let mut want = before.clone();
                want[addr..addr + n].copy_from_slice(&data);
                assert_eq!(m.to_bytes(), want, "{addr} {n}");
            }
        }
        let m = Memory::from_bytes(&before).unwrap();
        assert!(!m.write_bytes(34, &[1, 2, 3, 4]));
        assert_eq!(m.to_bytes(), before);
    }

    #[test]
    fn round_trips_bytes_of_any_length() {
        for n in [0usize, 1, 3, 4, 5, 17] {
            let bytes: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            let m = Memory::from_bytes(&bytes).unwrap();
            assert_eq!(m.len(), n as u64);
            assert_eq!(m.to_bytes(), bytes);
        }
    }

    #[test]
    fn refuses_oversized_allocations() {
        assert!(matches!(
            Memory::zeroed(MAX_MEMORY_BYTES + 1),
            Err(ResourceError::TooLarge { .. })
        ));
    }

    /// Robust access (D3D11.3's out-of-bounds rules: reads return 0, writes are
    /// discarded): partial overlap with the end counts as out of bounds.
    #[test]
    fn out_of_bounds_reads_none_and_writes_dropped() {
        let m = Memory::zeroed(6).unwrap();
        assert_eq!(m.load_u32(2), Some(0));
        assert_eq!(m.load_u32(3), None);
        assert!(!m.store_u32(4, 0xdead_beef));
        assert!(m.store_u16(4, 0xbeef));
        assert_eq!(m.to_bytes(), vec![0, 0, 0, 0, 0xef, 0xbe]);
        assert_eq!(m.load_u32(u64::MAX - 1), None);
        assert!(m.atomic_u32(8, RmwOp::Add, 1).is_none());
    }

    #[test]
    fn unaligned_and_narrow_accesses() {
        let m = Memory::zeroed(16).unwrap();
        assert!(m.store_u32(3, 0x4433_2211));
        assert_eq!(m.to_bytes()[3..7], [0x11, 0x22, 0x33, 0x44]);
        assert_eq!(m.load_u32(3), Some(0x4433_2211));
        assert_eq!(m.load_u16(5), Some(0x4433));
        assert!(m.store_u8(4, 0xaa));
        assert_eq!(m.load_u32(3), Some(0x4433_aa11));
        assert!(m.store_u64(6, 0x0807_0605_0403_0201));
        assert_eq!(m.load_u64(6), Some(0x0807_0605_0403_0201));
    }

    #[test]
    fn atomics_return_old_values() {
        let m = Memory::zeroed(16).unwrap();
        assert_eq!(m.atomic_u32(4, RmwOp::Add, 5), Some(0));
        assert_eq!(m.atomic_u32(5, RmwOp::IMin, (-3i32) as u32), Some(5));
        assert_eq!(m.load_u32(4), Some((-3i32) as u32));
        assert_eq!(m.compare_exchange_u32(4, 1, 9), Some((-3i32) as u32));
        assert_eq!(
            m.compare_exchange_u32(4, (-3i32) as u32, 9),
            Some((-3i32) as u32)
        );
        assert_eq!(m.load_u32(4), Some(9));
        assert_eq!(m.atomic_u64(8, RmwOp::Add, 1 << 40), Some(0));
        assert_eq!(m.atomic_u64(8, RmwOp::Add, 1), Some(1 << 40));
        assert_eq!(
            m.compare_exchange_u64(8, (1 << 40) + 1, 7),
            Some((1 << 40) + 1)
        );
        assert_eq!(m.load_u64(8), Some(7));
    }

    #[test]
    fn concurrent_byte_stores_keep_each_other() {
        let m = Memory::zeroed(4).unwrap();
        std::thread::scope(|s| {
            for b in 0..4u64 {
                let m = m.clone();
                s.spawn(move || {
                    for i in 0..1000u32 {
                        m.store_u8(b, (i as u8) | 1);
                    }
                });
            }
        });
        assert!(m.to_bytes().iter().all(|&b| b & 1 == 1));
    }
}
