//! Sizes, alignments and offsets of LLVM types by the module's data layout, and the
//! flattening of a value's type into register-sized leaves.
//!
//! Owns: the byte layout of memory (allocas, group shared and constant globals, GEP
//! offsets) and the leaf list of SSA values. Does not own: what a leaf's bits mean to an
//! instruction (see the parent module).

use crate::dxil::llvm::{Module, Type, TypeId};

/// Deepest type nesting followed (a malformed module could make a struct contain
/// itself).
const MAX_TYPE_DEPTH: u32 = 64;

/// The most leaves one SSA value may have (an aggregate value of more scalars is
/// refused rather than given that many registers).
pub const MAX_LEAVES: usize = 4096;

/// The largest byte size a type may have here (1 GiB): bigger allocas and globals are
/// refused before anything is allocated for them.
pub const MAX_TYPE_BYTES: u64 = 1 << 30;

/// How an LLVM type's size and alignment are computed: the module's `target datalayout`
/// string for the scalars it names, LLVM's rules for aggregates, and dxc's own rule for
/// vectors (seed `000_…`, "Listings": a vector is aligned as its element and is as large
/// as its element's allocation size times the element count — `<3 x float>` is 12 bytes
/// at alignment 4, where stock LLVM gives 16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataLayout {
    /// ABI alignment in bytes of `i1`, `i8`, `i16`, `i32`, `i64`.
    int_align: [u64; 5],
    /// ABI alignment in bytes of `half`, `float`, `double`.
    float_align: [u64; 3],
    /// Pointer size and alignment in bytes.
    ptr: u64,
}

impl Default for DataLayout {
    /// DXIL's layout without 16-bit types (`e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-
    /// i64:64-f16:32-f32:32-f64:64-n8:16:32:64`), dxc's default.
    fn default() -> Self {
        DataLayout {
            int_align: [4, 4, 4, 4, 8],
            float_align: [4, 4, 8],
            ptr: 4,
        }
    }
}

fn int_slot(bits: u64) -> Option<usize> {
    Some(match bits {
        1 => 0,
        8 => 1,
        16 => 2,
        32 => 3,
        64 => 4,
        _ => return None,
    })
}

fn float_slot(bits: u64) -> Option<usize> {
    Some(match bits {
        16 => 0,
        32 => 1,
        64 => 2,
        _ => return None,
    })
}

impl DataLayout {
    /// Reads the `iN:abi`, `fN:abi` and `p:size:abi` entries of a data layout string
    /// (LLVM LangRef "Data Layout"); entries it does not know keep DXIL's defaults.
    pub fn parse(s: Option<&str>) -> DataLayout {
        let mut dl = DataLayout::default();
        let Some(s) = s else { return dl };
        for spec in s.split('-') {
            let mut parts = spec.split(':');
            let head = parts.next().unwrap_or_default();
            let nums: Vec<u64> = parts.filter_map(|p| p.parse().ok()).collect();
            let abi_bytes = |i: usize| nums.get(i).map(|b| (b / 8).max(1));
            if let Some(bits) = head.strip_prefix('i').and_then(|b| b.parse::<u64>().ok()) {
                if let (Some(slot), Some(a)) = (int_slot(bits), abi_bytes(0))
                    && let Some(x) = dl.int_align.get_mut(slot)
                {
                    *x = a;
                }
            } else if let Some(bits) = head.strip_prefix('f').and_then(|b| b.parse::<u64>().ok()) {
                if let (Some(slot), Some(a)) = (float_slot(bits), abi_bytes(0))
                    && let Some(x) = dl.float_align.get_mut(slot)
                {
                    *x = a;
                }
            } else if head == "p"
                && let Some(size) = nums.first()
            {
                dl.ptr = (size / 8).max(1);
            }
        }
        dl
    }

    /// Store size (bytes holding the value) and ABI alignment of a scalar type.
    fn scalar(&self, ty: &Type) -> Option<(u64, u64)> {
        match ty {
            Type::Integer(bits) => {
                let bits = u64::from(*bits);
                let store = bits.div_ceil(8);
                let align = int_slot(bits)
                    .and_then(|s| self.int_align.get(s).copied())
                    .unwrap_or_else(|| store.next_power_of_two().max(1));
                Some((store, align))
            }
            Type::Half | Type::Float | Type::Double => {
                let bits = u64::from(ty.float_bits().unwrap_or(32));
                let align = float_slot(bits)
                    .and_then(|s| self.float_align.get(s).copied())
                    .unwrap_or(4);
                Some((bits / 8, align))
            }
            Type::Pointer { .. } => Some((self.ptr, self.ptr)),
            _ => None,
        }
    }

    /// Allocation size (store size rounded up to the alignment; what an array element
    /// or a GEP step takes) and ABI alignment of a type.
    pub fn size_align(&self, m: &Module, ty: TypeId) -> Result<(u64, u64), String> {
        self.size_align_at(m, ty, 0)
    }

    fn size_align_at(&self, m: &Module, ty: TypeId, depth: u32) -> Result<(u64, u64), String> {
        if depth > MAX_TYPE_DEPTH {
            return Err("a type nested too deeply".into());
        }
        let t = m.ty(ty).ok_or_else(|| format!("no type {ty}"))?;
        let (size, align) = match t {
            Type::Array { len, element } | Type::Vector { len, element } => {
                let (es, ea) = self.size_align_at(m, *element, depth.saturating_add(1))?;
                (es.checked_mul(*len).ok_or("a type too large")?, ea)
            }
            Type::Struct {
                elements, packed, ..
            } => {
                let mut off = 0u64;
                let mut align = 1u64;
                for e in elements {
                    let (es, ea) = self.size_align_at(m, *e, depth.saturating_add(1))?;
                    let ea = if *packed { 1 } else { ea };
                    off = align_to(off, ea)
                        .checked_add(es)
                        .ok_or("a type too large")?;
                    align = align.max(ea);
                }
                (align_to(off, align), align)
            }
            other => {
                let (store, align) = self
                    .scalar(other)
                    .ok_or_else(|| format!("type {other:?} has no size"))?;
                (align_to(store, align), align)
            }
        };
        if size > MAX_TYPE_BYTES {
            return Err(format!(
                "a type of {size} bytes (more than {MAX_TYPE_BYTES})"
            ));
        }
        Ok((size, align))
    }

    /// Store size of a scalar type in bytes (what a load or store of it touches).
    pub fn store_size(&self, m: &Module, ty: TypeId) -> Option<u64> {
        self.scalar(m.ty(ty)?).map(|s| s.0)
    }

    /// Byte offset of field `index` of a struct type.
    pub fn field_offset(&self, m: &Module, ty: TypeId, index: u64) -> Result<u64, String> {
        let Some(Type::Struct {
            elements, packed, ..
        }) = m.ty(ty)
        else {
            return Err(format!("{ty} is not a struct"));
        };
        let mut off = 0u64;
        for (i, e) in elements.iter().enumerate() {
            let (es, ea) = self.size_align(m, *e)?;
            off = align_to(off, if *packed { 1 } else { ea });
            if i as u64 == index {
                return Ok(off);
            }
            off = off.checked_add(es).ok_or("a type too large")?;
        }
        Err(format!("struct {ty} has no field {index}"))
    }
}

/// Rounds `x` up to a multiple of `a` (a power of two or any positive number).
pub fn align_to(x: u64, a: u64) -> u64 {
    if a <= 1 {
        return x;
    }
    x.div_ceil(a).saturating_mul(a)
}

/// What one register-sized piece of an SSA value holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// `i1`: the IR boolean, 0 or 0xffff_ffff.
    Bool,
    /// `i8`, zero-extended into 32 bits.
    I8,
    /// `i16`, zero-extended into 32 bits.
    I16,
    /// `i32`.
    I32,
    /// `i64`, a register pair.
    I64,
    /// `half`: the binary16 bits in the low half.
    F16,
    /// `float`.
    F32,
    /// `double`, a register pair.
    F64,
    /// A resource handle (`%dx.types.Handle`).
    Handle,
    /// A pointer (only as a whole value; see the parent module's pointer values).
    Ptr,
}

impl Leaf {
    /// Whether the leaf takes a register pair.
    pub fn wide(self) -> bool {
        matches!(self, Leaf::I64 | Leaf::F64)
    }

    /// The leaf of a scalar type, if it is one.
    pub fn of(m: &Module, ty: TypeId) -> Option<Leaf> {
        Some(match m.ty(ty)? {
            Type::Integer(1) => Leaf::Bool,
            Type::Integer(8) => Leaf::I8,
            Type::Integer(16) => Leaf::I16,
            Type::Integer(32) => Leaf::I32,
            Type::Integer(64) => Leaf::I64,
            Type::Half => Leaf::F16,
            Type::Float => Leaf::F32,
            Type::Double => Leaf::F64,
            Type::Pointer { .. } => Leaf::Ptr,
            Type::Struct { name: Some(n), .. } if n == "dx.types.Handle" => Leaf::Handle,
            // A hit object (SM 6.9) is the 32-bit value naming its slot
            // (`lower::dxil::hit_object`).
            Type::Struct { name: Some(n), .. } if n == "dx.types.HitObject" => Leaf::I32,
            _ => return None,
        })
    }

    /// The bit mask of a narrow integer leaf (`0xff`, `0xffff`), or `None`.
    pub fn narrow_mask(self) -> Option<u32> {
        match self {
            Leaf::I8 => Some(0xff),
            Leaf::I16 | Leaf::F16 => Some(0xffff),
            _ => None,
        }
    }
}

/// The leaves of a type, in order: structs field by field, arrays and vectors element
/// by element.
pub fn leaves(m: &Module, ty: TypeId) -> Result<Vec<Leaf>, String> {
    let mut out = Vec::new();
    leaves_into(m, ty, &mut out, 0)?;
    Ok(out)
}

fn leaves_into(m: &Module, ty: TypeId, out: &mut Vec<Leaf>, depth: u32) -> Result<(), String> {
    if depth > MAX_TYPE_DEPTH {
        return Err("a type nested too deeply".into());
    }
    if let Some(l) = Leaf::of(m, ty) {
        if out.len() >= MAX_LEAVES {
            return Err(format!("a value of more than {MAX_LEAVES} scalars"));
        }
        out.push(l);
        return Ok(());
    }
    match m.ty(ty) {
        Some(Type::Struct { elements, .. }) => {
            for e in elements {
                leaves_into(m, *e, out, depth.saturating_add(1))?;
            }
            Ok(())
        }
        Some(Type::Array { len, element }) | Some(Type::Vector { len, element }) => {
            let per = leaves(m, *element)?;
            if per.is_empty() {
                return Ok(());
            }
            let total = (per.len() as u64).saturating_mul(*len);
            if total.saturating_add(out.len() as u64) > MAX_LEAVES as u64 {
                return Err(format!("a value of more than {MAX_LEAVES} scalars"));
            }
            for _ in 0..*len {
                out.extend_from_slice(&per);
            }
            Ok(())
        }
        Some(Type::Void) => Ok(()),
        Some(other) => Err(format!("a value of type {other:?}")),
        None => Err(format!("no type {ty}")),
    }
}

/// The number of leaves of a type (see [`leaves`]).
pub fn leaf_count(m: &Module, ty: TypeId) -> Result<usize, String> {
    leaves(m, ty).map(|l| l.len())
}

/// The leaf range `(start, len)` that aggregate indices `indices` select in a value of
/// type `ty` (`extractvalue`/`insertvalue`).
pub fn leaf_range(
    m: &Module,
    ty: TypeId,
    indices: &[u32],
) -> Result<(usize, usize, TypeId), String> {
    let mut start = 0usize;
    let mut cur = ty;
    for &i in indices {
        match m.ty(cur) {
            Some(Type::Struct { elements, .. }) => {
                let i = i as usize;
                if i >= elements.len() {
                    return Err(format!("index {i} past a struct of {}", elements.len()));
                }
                for e in elements.iter().take(i) {
                    start = start.saturating_add(leaf_count(m, *e)?);
                }
                cur = elements.get(i).copied().ok_or("bad index")?;
            }
            Some(Type::Array { len, element }) | Some(Type::Vector { len, element }) => {
                if u64::from(i) >= *len {
                    return Err(format!("index {i} past an array of {len}"));
                }
                start = start.saturating_add(leaf_count(m, *element)?.saturating_mul(i as usize));
                cur = *element;
            }
            _ => return Err("index into a scalar".into()),
        }
    }
    Ok((start, leaf_count(m, cur)?, cur))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(types: Vec<Type>) -> Module {
        Module {
            types,
            ..Module::default()
        }
    }

    /// LLVM LangRef "Data Layout": `i16:16` gives 16-bit integers 2-byte alignment.
    #[test]
    fn parses_sixteen_bit_layout() {
        let dl = DataLayout::parse(Some(
            "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64",
        ));
        assert_eq!(dl.int_align, [4, 1, 2, 4, 8]);
        assert_eq!(dl.float_align, [2, 4, 8]);
        let m = module(vec![Type::Integer(16), Type::Half, Type::Integer(1)]);
        assert_eq!(dl.size_align(&m, TypeId(0)).unwrap(), (2, 2));
        assert_eq!(dl.size_align(&m, TypeId(1)).unwrap(), (2, 2));
        // A bool takes 4 bytes (i1:32), seed 000 "a bool member takes 4 bytes".
        assert_eq!(dl.size_align(&m, TypeId(2)).unwrap(), (4, 4));
        // Without 16-bit types a 16-bit value is padded to 4 bytes.
        assert_eq!(
            DataLayout::default().size_align(&m, TypeId(0)).unwrap(),
            (4, 4)
        );
    }

    /// Seed 000 "Listings": `<3 x float>` takes 12 bytes at alignment 4 (dxc's rule).
    #[test]
    fn vectors_follow_dxc() {
        let m = module(vec![
            Type::Float,
            Type::Vector {
                len: 3,
                element: TypeId(0),
            },
            Type::Struct {
                name: None,
                packed: false,
                elements: vec![TypeId(1), TypeId(3)],
                opaque: false,
            },
            Type::Double,
            Type::Array {
                len: 2,
                element: TypeId(2),
            },
        ]);
        let dl = DataLayout::default();
        assert_eq!(dl.size_align(&m, TypeId(1)).unwrap(), (12, 4));
        // { <3 x float>, double }: the double aligned to 8 at offset 16, size 24.
        assert_eq!(dl.field_offset(&m, TypeId(2), 1).unwrap(), 16);
        assert_eq!(dl.size_align(&m, TypeId(2)).unwrap(), (24, 8));
        assert_eq!(dl.size_align(&m, TypeId(4)).unwrap(), (48, 8));
        assert_eq!(
            leaves(&m, TypeId(4)).unwrap(),
            vec![
                Leaf::F32,
                Leaf::F32,
                Leaf::F32,
                Leaf::F64,
                Leaf::F32,
                Leaf::F32,
                Leaf::F32,
                Leaf::F64
            ]
        );
        assert_eq!(leaf_range(&m, TypeId(4), &[1, 1]).unwrap().0, 7);
    }
}
