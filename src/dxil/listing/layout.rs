//! Sizes, alignments and structure offsets of LLVM types as dxc's LLVM computes them
//! from a module's data layout string.
//!
//! Owns: `getTypeAllocSize`, ABI alignment and struct element offsets for the listing's
//! buffer definitions. Does not own: the data layout of execution (the interpreter
//! works on DXIL's own buffer rules).

use crate::dxil::llvm::{Module, Type, TypeId};

/// The default data layout of DXIL modules, used when a module states none.
pub const DEFAULT_DATALAYOUT: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// ABI alignments (bytes) read from a data layout string.
#[derive(Debug, Clone)]
pub struct DataLayout {
    /// `iN:abi` entries: (bits, alignment in bytes).
    ints: Vec<(u32, u64)>,
    /// `fN:abi` entries.
    floats: Vec<(u32, u64)>,
    /// Pointer size and alignment in bytes.
    pointer: (u64, u64),
}

/// Types nest at most this deep before the layout gives up (structures cannot nest
/// themselves, so real types are shallow).
const MAX_DEPTH: u32 = 64;

impl DataLayout {
    /// Reads the alignment entries of a data layout string (`i32:32`, `f16:32`,
    /// `p:32:32`); LLVM's defaults for what it does not state.
    pub fn parse(s: &str) -> DataLayout {
        let mut dl = DataLayout {
            ints: vec![(1, 1), (8, 1), (16, 2), (32, 4), (64, 4)],
            floats: vec![(16, 2), (32, 4), (64, 8), (128, 16)],
            pointer: (8, 8),
        };
        for spec in s.split('-') {
            let mut parts = spec.split(':');
            let head = parts.next().unwrap_or_default();
            let abi = parts.next().and_then(|a| a.parse::<u64>().ok());
            if let Some(rest) = head.strip_prefix('i')
                && let (Ok(bits), Some(abi)) = (rest.parse::<u32>(), abi)
            {
                set(&mut dl.ints, bits, abi / 8);
            } else if let Some(rest) = head.strip_prefix('f')
                && let (Ok(bits), Some(abi)) = (rest.parse::<u32>(), abi)
            {
                set(&mut dl.floats, bits, abi / 8);
            } else if head == "p"
                && let Some(size) = abi
            {
                let align = parts
                    .next()
                    .and_then(|a| a.parse::<u64>().ok())
                    .unwrap_or(size);
                dl.pointer = (size / 8, align / 8);
            }
        }
        dl
    }

    /// The module's data layout (or DXIL's default).
    pub fn of(m: &Module) -> DataLayout {
        DataLayout::parse(m.datalayout.as_deref().unwrap_or(DEFAULT_DATALAYOUT))
    }

    fn int_align(&self, bits: u32) -> u64 {
        // LLVM picks the entry for the width, else the next larger one, else the
        // largest.
        let mut best: Option<(u32, u64)> = None;
        for &(b, a) in &self.ints {
            if b >= bits && best.is_none_or(|(bb, _)| b < bb) {
                best = Some((b, a));
            }
        }
        best.map(|x| x.1)
            .or_else(|| self.ints.iter().max_by_key(|x| x.0).map(|x| x.1))
            .unwrap_or(1)
            .max(1)
    }

    fn float_align(&self, bits: u32) -> u64 {
        self.floats
            .iter()
            .find(|x| x.0 == bits)
            .map(|x| x.1)
            .unwrap_or(u64::from(bits / 8))
            .max(1)
    }

    /// The ABI alignment of a type in bytes. A vector is aligned as its element
    /// (seed `000_…`, "Listings": dxc's LLVM aligns a vector as its element).
    pub fn align(&self, m: &Module, ty: TypeId) -> u64 {
        self.align_depth(m, ty, 0)
    }

    fn align_depth(&self, m: &Module, ty: TypeId, depth: u32) -> u64 {
        if depth > MAX_DEPTH {
            return 1;
        }
        match m.ty(ty) {
            Some(Type::Integer(b)) => self.int_align(*b),
            Some(t) if t.is_float() => self.float_align(t.float_bits().unwrap_or(32)),
            Some(Type::Pointer { .. }) => self.pointer.1.max(1),
            Some(Type::Array { element, .. } | Type::Vector { element, .. }) => {
                self.align_depth(m, *element, depth + 1)
            }
            Some(Type::Struct {
                packed, elements, ..
            }) => {
                if *packed {
                    1
                } else {
                    elements
                        .iter()
                        .map(|e| self.align_depth(m, *e, depth + 1))
                        .max()
                        .unwrap_or(1)
                }
            }
            _ => 1,
        }
    }

    /// The bytes a value of the type occupies without tail padding
    /// (`getTypeStoreSize`).
    fn store_size(&self, m: &Module, ty: TypeId, depth: u32) -> u64 {
        if depth > MAX_DEPTH {
            return 0;
        }
        match m.ty(ty) {
            Some(Type::Integer(b)) => u64::from(*b).div_ceil(8),
            Some(t) if t.is_float() => u64::from(t.float_bits().unwrap_or(32)) / 8,
            Some(Type::Pointer { .. }) => self.pointer.0,
            Some(Type::Array { .. } | Type::Vector { .. } | Type::Struct { .. }) => {
                self.alloc_depth(m, ty, depth)
            }
            _ => 0,
        }
    }

    /// `getTypeAllocSize`: the store size rounded up to the ABI alignment. An array
    /// takes its element's allocation size times its length, a vector the same (seed
    /// `000_…`: `<3 x float>` takes 12 bytes), a structure its laid-out size rounded
    /// up to its alignment.
    pub fn alloc_size(&self, m: &Module, ty: TypeId) -> u64 {
        self.alloc_depth(m, ty, 0)
    }

    fn alloc_depth(&self, m: &Module, ty: TypeId, depth: u32) -> u64 {
        if depth > MAX_DEPTH {
            return 0;
        }
        match m.ty(ty) {
            Some(Type::Array { len, element } | Type::Vector { len, element }) => self
                .alloc_depth(m, *element, depth + 1)
                .saturating_mul(*len),
            Some(Type::Struct { .. }) => {
                let (offsets, end) = self.struct_layout_depth(m, ty, depth + 1);
                let _ = offsets;
                round_up(end, self.align_depth(m, ty, depth + 1))
            }
            _ => round_up(
                self.store_size(m, ty, depth + 1),
                self.align_depth(m, ty, depth + 1),
            ),
        }
    }

    /// A structure's element offsets and its unpadded size (`StructLayout`).
    pub fn struct_offsets(&self, m: &Module, ty: TypeId) -> Vec<u64> {
        self.struct_layout_depth(m, ty, 0).0
    }

    fn struct_layout_depth(&self, m: &Module, ty: TypeId, depth: u32) -> (Vec<u64>, u64) {
        let Some(Type::Struct {
            packed, elements, ..
        }) = m.ty(ty)
        else {
            return (Vec::new(), 0);
        };
        let mut offset = 0u64;
        let mut offsets = Vec::with_capacity(elements.len());
        for e in elements {
            let a = if *packed {
                1
            } else {
                self.align_depth(m, *e, depth + 1)
            };
            offset = round_up(offset, a);
            offsets.push(offset);
            offset = offset.saturating_add(self.alloc_depth(m, *e, depth + 1));
        }
        (offsets, offset)
    }
}

fn set(v: &mut Vec<(u32, u64)>, bits: u32, align: u64) {
    match v.iter_mut().find(|x| x.0 == bits) {
        Some(x) => x.1 = align,
        None => v.push((bits, align)),
    }
}

fn round_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align).saturating_mul(align)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxil::llvm::Type;

    fn module(types: Vec<Type>) -> Module {
        Module {
            types,
            datalayout: Some(DEFAULT_DATALAYOUT.into()),
            ..Module::default()
        }
    }

    /// Seed `000_…`, "Listings": a vector is aligned as its element and is as large
    /// as its element's allocation size times the element count; `<3 x float>` takes
    /// 12 bytes at alignment 4.
    #[test]
    fn vectors_are_aligned_as_their_element() {
        let m = module(vec![
            Type::Float,
            Type::Vector {
                len: 3,
                element: TypeId(0),
            },
            Type::Struct {
                name: Some("S".into()),
                packed: false,
                elements: vec![TypeId(1), TypeId(0)],
                opaque: false,
            },
        ]);
        let dl = DataLayout::of(&m);
        assert_eq!(dl.alloc_size(&m, TypeId(1)), 12);
        assert_eq!(dl.align(&m, TypeId(1)), 4);
        assert_eq!(dl.struct_offsets(&m, TypeId(2)), vec![0, 12]);
        assert_eq!(dl.alloc_size(&m, TypeId(2)), 16);
    }

    /// DXIL's data layout states `i1:32`, `i16:32` and `f16:32` (without native
    /// 16-bit types): a bool, a min16 value take 4 bytes.
    #[test]
    fn dxil_scalars_take_their_stated_alignment() {
        let m = module(vec![Type::Integer(1), Type::Half, Type::Integer(64)]);
        let dl = DataLayout::of(&m);
        assert_eq!(dl.alloc_size(&m, TypeId(0)), 4);
        assert_eq!(dl.alloc_size(&m, TypeId(1)), 4);
        assert_eq!(dl.alloc_size(&m, TypeId(2)), 8);
        assert_eq!(dl.align(&m, TypeId(2)), 8);
        let native = DataLayout::parse(
            "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64",
        );
        assert_eq!(native.alloc_size(&m, TypeId(1)), 2);
    }
}
