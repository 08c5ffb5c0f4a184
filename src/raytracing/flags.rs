//! Ray, instance and geometry flags, and the hit kinds of built-in triangle hits, with
//! the values D3D12 and HLSL give them.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};

/// Writes the names of the set bits of `bits`, then any unnamed bits in hex.
fn write_flags(f: &mut fmt::Formatter<'_>, bits: u32, names: &[(u32, &str)]) -> fmt::Result {
    if bits == 0 {
        return f.write_str("NONE");
    }
    let mut rest = bits;
    let mut first = true;
    for &(bit, name) in names {
        if bits & bit != 0 {
            if !first {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
            first = false;
            rest &= !bit;
        }
    }
    if rest != 0 {
        if !first {
            f.write_str(" | ")?;
        }
        write!(f, "{rest:#x}")?;
    }
    Ok(())
}

macro_rules! flag_type {
    ($(#[$doc:meta])* $name:ident($int:ty) { $($(#[$fdoc:meta])* $flag:ident = $value:expr,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub $int);

        impl $name {
            /// No flag set.
            pub const NONE: Self = Self(0);
            $($(#[$fdoc])* pub const $flag: Self = Self($value);)*

            /// Whether every flag of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set in `self`.
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// `self` with the flags of `other` added.
            pub const fn union(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }

            /// The raw bits.
            pub const fn bits(self) -> $int {
                self.0
            }
        }

        impl BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                self.union(rhs)
            }
        }

        impl BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: Self) {
                *self = self.union(rhs);
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_flags(f, u32::from(self.0), &[$((u32::from($value as $int), stringify!($flag)),)*])
            }
        }
    };
}

flag_type! {
    /// `RAY_FLAG`: the flags given to `TraceRay` and `RayQuery::TraceRayInline` (the
    /// template flags of a `RayQuery` ORed with the dynamic ones), DXR spec "Ray flags".
    RayFlags(u32) {
        /// Every intersection is opaque: no any-hit programs, no non-opaque candidates.
        FORCE_OPAQUE = 0x01,
        /// Every intersection is non-opaque.
        FORCE_NON_OPAQUE = 0x02,
        /// The first hit that is accepted ends the search.
        ACCEPT_FIRST_HIT_AND_END_SEARCH = 0x04,
        /// Traversal ignores it; the caller skips the closest-hit program when it is set.
        SKIP_CLOSEST_HIT_SHADER = 0x08,
        /// Cull back-facing triangles (unless the instance disables culling).
        CULL_BACK_FACING_TRIANGLES = 0x10,
        /// Cull front-facing triangles (unless the instance disables culling).
        CULL_FRONT_FACING_TRIANGLES = 0x20,
        /// Cull primitives that are opaque after the geometry and instance flags.
        CULL_OPAQUE = 0x40,
        /// Cull primitives that are non-opaque after the geometry and instance flags.
        CULL_NON_OPAQUE = 0x80,
        /// Cull every triangle (tier 1.1).
        SKIP_TRIANGLES = 0x100,
        /// Cull every procedural primitive (tier 1.1).
        SKIP_PROCEDURAL_PRIMITIVES = 0x200,
        /// Opacity micromaps' two-state mode; dxlane's structures hold no micromaps, so it
        /// changes nothing.
        FORCE_OMM_2_STATE = 0x400,
    }
}

flag_type! {
    /// `D3D12_RAYTRACING_INSTANCE_FLAGS` (the 8-bit `Flags` of an instance), DXR spec
    /// "D3D12_RAYTRACING_INSTANCE_FLAGS".
    InstanceFlags(u8) {
        /// Ray flags that cull by facing have no effect on this instance.
        TRIANGLE_CULL_DISABLE = 0x1,
        /// Counter-clockwise triangles are front-facing in this instance.
        TRIANGLE_FRONT_COUNTERCLOCKWISE = 0x2,
        /// Every geometry of the instance acts as opaque.
        FORCE_OPAQUE = 0x4,
        /// Every geometry of the instance acts as non-opaque.
        FORCE_NON_OPAQUE = 0x8,
        /// Opacity micromaps' two-state mode (no micromaps here: no effect).
        FORCE_OMM_2_STATE = 0x10,
        /// Disable opacity micromaps (no micromaps here: no effect).
        DISABLE_OMMS = 0x20,
    }
}

flag_type! {
    /// `D3D12_RAYTRACING_GEOMETRY_FLAGS`, DXR spec "D3D12_RAYTRACING_GEOMETRY_FLAGS".
    GeometryFlags(u32) {
        /// The geometry acts as if it had no any-hit program.
        OPAQUE = 0x1,
        /// At most one any-hit invocation per primitive and ray. dxlane never invokes
        /// any-hit twice for a primitive, so the flag changes nothing here.
        NO_DUPLICATE_ANYHIT_INVOCATION = 0x2,
    }
}

/// `HIT_KIND_TRIANGLE_FRONT_FACE`: `HitKind()` of a built-in hit on a front face (DXR spec
/// "HitKind").
pub const HIT_KIND_TRIANGLE_FRONT_FACE: u32 = 0xFE;

/// `HIT_KIND_TRIANGLE_BACK_FACE`: `HitKind()` of a built-in hit on a back face.
pub const HIT_KIND_TRIANGLE_BACK_FACE: u32 = 0xFF;

#[cfg(test)]
mod tests {
    use super::*;

    /// DXR spec "Ray flags" and "D3D12_RAYTRACING_INSTANCE_FLAGS": the values of the
    /// enumerations.
    #[test]
    fn values_are_the_spec_values() {
        assert_eq!(RayFlags::FORCE_OPAQUE.bits(), 0x01);
        assert_eq!(RayFlags::CULL_NON_OPAQUE.bits(), 0x80);
        assert_eq!(RayFlags::SKIP_PROCEDURAL_PRIMITIVES.bits(), 0x200);
        assert_eq!(InstanceFlags::FORCE_NON_OPAQUE.bits(), 0x8);
        assert_eq!(GeometryFlags::NO_DUPLICATE_ANYHIT_INVOCATION.bits(), 0x2);
        assert_eq!(HIT_KIND_TRIANGLE_FRONT_FACE, 254);
        assert_eq!(HIT_KIND_TRIANGLE_BACK_FACE, 255);
        let f = RayFlags::CULL_OPAQUE | RayFlags::SKIP_TRIANGLES;
        assert!(f.contains(RayFlags::SKIP_TRIANGLES) && !f.contains(RayFlags::FORCE_OPAQUE));
        assert_eq!(format!("{f:?}"), "CULL_OPAQUE | SKIP_TRIANGLES");
        assert_eq!(format!("{:?}", RayFlags(0x1001)), "FORCE_OPAQUE | 0x1000");
    }
}
