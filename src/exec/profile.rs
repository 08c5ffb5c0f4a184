//! WARP version profiles: every choice that differs between WARP releases, in one place.
//!
//! A run uses one [`Profile`], reported by name with its results. The presets follow the
//! Microsoft.Direct3D.WARP NuGet changelog (DESIGN, "WARP-faithful semantics"):
//!
//! | choice | `warp-1.0.13` | `warp-1.0.14` |
//! |---|---|---|
//! | `mad` fused into an FMA unless `precise` | no | yes |
//! | wave reads of inactive or out-of-range lanes | the lane's register | 0 |
//! | fp16 math in fp32, result rounded to nearest even | yes | yes |
//! | fp16 NaN result | `0x7fff` | `0x7fff` |
//! | fp32 denormals | as the program states | as the program states |
//!
//! The default is the newest WARP known ([`Profile::latest`]).
//!
//! Every field can also be set against its preset: `dxlane compare` flips each one in
//! turn to find which rule a capture from another WARP release (or another device)
//! followed. The values no WARP release is known to use (fp16 rounded toward zero, the
//! IEEE quiet NaN `0x7e00`, fp32 denormals kept or flushed against the program's
//! statement) are there for that search; no preset uses them.

use crate::ir::DenormMode;
use crate::resources::format::Rounding;

/// How 16-bit float results are made: computed in fp32, then rounded with `rounding`;
/// every NaN becomes `nan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct F16Rule {
    /// Rounding of the fp32 result to fp16 (nearest even on every WARP known).
    pub rounding: Rounding,
    /// The bits of every NaN result (`0x7fff` on WARP).
    pub nan: u16,
}

/// How 32-bit float arithmetic treats denormals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fp32Denormals {
    /// As the program states: flushed unless its fp32 denorm mode is `preserve` (D3D11.3
    /// §3.1; DXBC programs always flush). Every WARP release known does this.
    #[default]
    Program,
    /// Flushed whatever the program states (a device that ignores `preserve`).
    Flush,
    /// Kept whatever the program states (a device that never flushes).
    Preserve,
}

/// The WARP-version-dependent rules of a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Profile {
    /// The profile's name (`warp-1.0.14`), reported by every run.
    pub name: String,
    /// Fuse `fmad` into one rounding (`fma`). WARP 1.0.14 and later: "multiply-adds are
    /// fused into FMA unless the operation is precise".
    pub fuse_mad: bool,
    /// Wave and quad reads (`WaveReadLaneAt`, `QuadReadLaneAt`, quad swaps) of an inactive
    /// or out-of-range lane return 0 (WARP 1.0.14 and later). Otherwise they return what
    /// the lane's register holds (the lane index taken modulo the wave size).
    pub wave_read_inactive_zero: bool,
    /// 16-bit float results (`f32tohalf`, fp16 wave operations): computed in fp32, rounded
    /// to nearest even, NaN → `0x7fff` on every WARP known (DESIGN, WARP changelog).
    pub f16: F16Rule,
    /// fp32 denormal handling: as the program states on every WARP known (D3D11.3 §3.1;
    /// the WARP changelog lists no change to it).
    pub fp32_denormals: Fp32Denormals,
}

impl Profile {
    /// The names of the presets, oldest first.
    pub const PRESETS: &'static [&'static str] = &["warp-1.0.13", "warp-1.0.14"];

    /// The preset with this name (`warp-1.0.13`, `warp-1.0.14`; `latest` is the newest).
    pub fn by_name(name: &str) -> Option<Profile> {
        let base = Profile {
            name: String::new(),
            fuse_mad: true,
            wave_read_inactive_zero: true,
            f16: F16Rule {
                rounding: Rounding::NearestEven,
                nan: 0x7fff,
            },
            fp32_denormals: Fp32Denormals::Program,
        };
        match name {
            "warp-1.0.13" => Some(Profile {
                name: name.into(),
                fuse_mad: false,
                wave_read_inactive_zero: false,
                ..base
            }),
            "warp-1.0.14" => Some(Profile {
                name: name.into(),
                ..base
            }),
            "latest" => Some(Profile::latest()),
            _ => None,
        }
    }

    /// The newest WARP known (`warp-1.0.14`).
    pub fn latest() -> Profile {
        Profile::by_name("warp-1.0.14").unwrap_or_else(|| unreachable!("a preset"))
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether 32-bit float arithmetic flushes denormals for a program whose fp32 denorm
    /// mode is `mode` (see [`Fp32Denormals`]).
    pub fn flushes_fp32_denormals(&self, mode: DenormMode) -> bool {
        match self.fp32_denormals {
            Fp32Denormals::Program => mode != DenormMode::Preserve,
            Fp32Denormals::Flush => true,
            Fp32Denormals::Preserve => false,
        }
    }
}

impl Default for Profile {
    fn default() -> Profile {
        Profile::latest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DESIGN: from WARP 1.0.14, mads fuse and inactive-lane reads give 0.
    #[test]
    fn presets() {
        let old = Profile::by_name("warp-1.0.13").unwrap();
        let new = Profile::by_name("warp-1.0.14").unwrap();
        assert!(!old.fuse_mad && new.fuse_mad);
        assert!(!old.wave_read_inactive_zero && new.wave_read_inactive_zero);
        assert_eq!(Profile::latest(), new);
        assert_eq!(Profile::by_name("latest").unwrap().name(), "warp-1.0.14");
        assert!(Profile::by_name("warp-9").is_none());
        for p in Profile::PRESETS {
            assert_eq!(Profile::by_name(p).unwrap().name(), *p);
        }
    }

    /// D3D11.3 §3.1: fp32 arithmetic flushes denormals unless the program states
    /// `preserve`; every preset follows the program (no WARP release is known to differ),
    /// and the two overrides exist for comparing with other devices.
    #[test]
    fn presets_follow_the_programs_denormal_mode() {
        for p in Profile::PRESETS {
            let p = Profile::by_name(p).unwrap();
            assert!(p.flushes_fp32_denormals(DenormMode::Ftz));
            assert!(p.flushes_fp32_denormals(DenormMode::Any));
            assert!(!p.flushes_fp32_denormals(DenormMode::Preserve));
        }
        let mut p = Profile::latest();
        p.fp32_denormals = Fp32Denormals::Flush;
        assert!(p.flushes_fp32_denormals(DenormMode::Preserve));
        p.fp32_denormals = Fp32Denormals::Preserve;
        assert!(!p.flushes_fp32_denormals(DenormMode::Ftz));
    }
}
