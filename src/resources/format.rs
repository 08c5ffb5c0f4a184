//! DXGI formats: names, sizes, channel layouts, and texel conversion.
//!
//! Owns: the [`Format`] enum (variants spelled as DXGI spells them, without the
//! `DXGI_FORMAT_` prefix, with their DXGI numbers), and the decode/encode of one texel
//! between its bytes and four 32-bit values ([`Format::decode`], [`Format::encode`]).
//! Decoded values are *bits*: float, UNORM, SNORM and sRGB channels as `f32` bits,
//! UINT channels as `u32`, SINT channels sign-extended `i32`, typeless channels as their
//! raw bits. A channel the format lacks reads as 0, except alpha, which reads as 1 (1.0
//! for float-like formats) — D3D11.3's format rules (missing components default to (0, 0, 0, 1)).
//!
//! Conversions follow the D3D11.3 functional specification §3.2 ("Data conversion"):
//!
//! - UNORM → float: `c / (2^n − 1)`; SNORM → float: `c / (2^(n−1) − 1)`, with both
//!   `−2^(n−1)` and `−2^(n−1) + 1` reading as −1.0 (§3.2, SNORM: "there are thus two integer representations for −1.0f").
//! - float → UNORM: NaN → 0, clamp to [0, 1], `c × (2^n − 1)`, add 0.5, drop the
//!   fraction ([`float_to_unorm`]). The specification states this rounding (add one half
//!   then truncate, in 32-bit float arithmetic), not round-to-nearest-even; we follow it.
//! - float → SNORM: NaN → 0, clamp to [−1, 1], `c × (2^(n−1) − 1)`, add 0.5 (subtract for
//!   negative values), truncate ([`float_to_snorm`]).
//! - sRGB: the IEC 61966-2-1 curves (thresholds 0.04045 and 0.0031308), computed in
//!   `f64` and rounded once ([`srgb_to_linear`], [`linear_to_srgb`]).
//! - float → smaller float (16-bit, 11- and 10-bit, §3.2.2): round toward zero; finite
//!   values past the range give the largest finite value of their sign, infinities stay
//!   infinities, NaN stays NaN (`sign | 0x7fff` for 16 bits, all mantissa bits set for
//!   11/10 bits, which have no sign: negative values and −∞ give 0).
//! - integer → narrower integer: clamp (§3.2 (integer conversion)).
//!
//! Block-compressed formats (BC1–BC7) decode one texel of a 4×4 block at a time
//! ([`Format::decode_block_texel`], the decoders in [`super::bc`]); they have no
//! per-texel encoding, so [`Format::is_supported`] (one element decodes and encodes on
//! its own, as buffers and UAVs need) is false for them and [`Format::is_texture_readable`]
//! is true for the typed ones. Subsampled and 1-bit formats are named (so job files can
//! say them) but cannot be decoded.

use std::fmt;

use super::bc::BlockKind;

/// How one channel's bits are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Num {
    /// IEEE float of 16 or 32 bits.
    Float,
    /// Unsigned float with a 5-bit exponent and `bits − 5` mantissa bits (R11G11B10).
    UFloat,
    /// Unsigned normalized integer.
    UNorm,
    /// Signed normalized integer.
    SNorm,
    /// sRGB-encoded unsigned normalized integer.
    Srgb,
    /// Unsigned integer.
    UInt,
    /// Signed integer.
    SInt,
    /// Raw bits of a typeless format.
    Typeless,
    /// 10-bit extended-range biased fixed point (`(c − 384) / 510`).
    XrBias,
}

impl Num {
    /// Whether values of this kind are floats once decoded.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Num::Float | Num::UFloat | Num::UNorm | Num::SNorm | Num::Srgb | Num::XrBias
        )
    }
}

/// One channel of a texel: `bits` bits at bit `shift` of the little-endian texel, going
/// to component `dest` (0 = R … 3 = A) of the decoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Bit offset in the texel.
    pub shift: u8,
    /// Width in bits.
    pub bits: u8,
    /// How the bits are read.
    pub num: Num,
    /// Decoded component (0 = R, 1 = G, 2 = B, 3 = A).
    pub dest: u8,
}

const fn ch(shift: u8, bits: u8, num: Num, dest: u8) -> Channel {
    Channel {
        shift,
        bits,
        num,
        dest,
    }
}

/// How a format's texel is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Independent channels (every format but the ones below).
    Channels(&'static [Channel]),
    /// R9G9B9E5_SHAREDEXP: three 9-bit mantissas and a shared 5-bit exponent.
    SharedExp,
    /// Block-compressed (BC1–BC7): `bytes` per 4×4 block, decoded a texel at a time.
    Block,
    /// Subsampled or 1-bit formats (R8G8_B8G8, G8R8_G8B8, R1). Not decodable yet.
    Unsupported,
}

/// Which D3D12 capability a typed UAV load of a format needs (see [`Format::typed_uav`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UavLoad {
    /// Every device (R32_FLOAT, R32_UINT, R32_SINT).
    Required,
    /// `TypedUAVLoadAdditionalFormats`.
    Additional,
    /// Reported per format (`D3D12_FORMAT_SUPPORT2_UAV_TYPED_LOAD`).
    Optional,
}

/// The type a format's texels have when read through a typed view, by its red channel
/// (the first channel it has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelType {
    /// Float.
    Float,
    /// Unsigned normalized.
    UNorm,
    /// Signed normalized.
    SNorm,
    /// sRGB.
    Srgb,
    /// Unsigned integer.
    UInt,
    /// Signed integer.
    SInt,
    /// Typeless (raw bits).
    Typeless,
}

use Num::{Float as F, SInt as S, Srgb as G, Typeless as T, UInt as U, UNorm as N};

macro_rules! formats {
    ($(
        $(#[$doc:meta])*
        $name:ident = $value:literal, $bytes:literal, $layout:expr;
    )*) => {
        /// A DXGI format, spelled as DXGI spells it without the `DXGI_FORMAT_` prefix.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $(
                $(#[$doc])*
                #[doc = concat!("`DXGI_FORMAT_", stringify!($name), "` (", stringify!($value), ").")]
                $name,
            )*
        }

        impl Format {
            /// Every format, in DXGI order.
            pub const ALL: &'static [Format] = &[$(Format::$name),*];

            /// The DXGI name without the prefix (`R8G8B8A8_UNORM`).
            pub fn name(self) -> &'static str {
                match self { $(Format::$name => stringify!($name)),* }
            }

            /// The `DXGI_FORMAT` number.
            pub fn dxgi_value(self) -> u32 {
                match self { $(Format::$name => $value),* }
            }

            /// Bytes per texel (per 4×4 block for block-compressed formats, per pair of
            /// texels for the subsampled ones).
            pub fn bytes_per_texel(self) -> u32 {
                match self { $(Format::$name => $bytes),* }
            }

            /// The texel layout.
            pub fn layout(self) -> Layout {
                match self { $(Format::$name => $layout),* }
            }
        }
    };
}

macro_rules! chans {
    ($($c:expr),* $(,)?) => {{
        const L: &[Channel] = &[$($c),*];
        Layout::Channels(L)
    }};
}

macro_rules! rgba32 {
    ($n:expr) => {
        chans![
            ch(0, 32, $n, 0),
            ch(32, 32, $n, 1),
            ch(64, 32, $n, 2),
            ch(96, 32, $n, 3)
        ]
    };
}
macro_rules! rgb32 {
    ($n:expr) => {
        chans![ch(0, 32, $n, 0), ch(32, 32, $n, 1), ch(64, 32, $n, 2)]
    };
}
macro_rules! rgba16 {
    ($n:expr) => {
        chans![
            ch(0, 16, $n, 0),
            ch(16, 16, $n, 1),
            ch(32, 16, $n, 2),
            ch(48, 16, $n, 3)
        ]
    };
}
macro_rules! rg32 {
    ($n:expr) => {
        chans![ch(0, 32, $n, 0), ch(32, 32, $n, 1)]
    };
}
macro_rules! rgb10a2 {
    ($n:expr) => {
        chans![
            ch(0, 10, $n, 0),
            ch(10, 10, $n, 1),
            ch(20, 10, $n, 2),
            ch(30, 2, $n, 3)
        ]
    };
}
macro_rules! rgba8 {
    ($n:expr) => {
        chans![
            ch(0, 8, $n, 0),
            ch(8, 8, $n, 1),
            ch(16, 8, $n, 2),
            ch(24, 8, $n, 3)
        ]
    };
}
macro_rules! rg16 {
    ($n:expr) => {
        chans![ch(0, 16, $n, 0), ch(16, 16, $n, 1)]
    };
}
macro_rules! r32 {
    ($n:expr) => {
        chans![ch(0, 32, $n, 0)]
    };
}
macro_rules! rg8 {
    ($n:expr) => {
        chans![ch(0, 8, $n, 0), ch(8, 8, $n, 1)]
    };
}
macro_rules! r16 {
    ($n:expr) => {
        chans![ch(0, 16, $n, 0)]
    };
}
macro_rules! r8 {
    ($n:expr) => {
        chans![ch(0, 8, $n, 0)]
    };
}
macro_rules! bgra8 {
    ($n:expr, $a:expr) => {
        chans![
            ch(0, 8, $n, 2),
            ch(8, 8, $n, 1),
            ch(16, 8, $n, 0),
            ch(24, 8, $a, 3)
        ]
    };
}
macro_rules! bgrx8 {
    ($n:expr) => {
        chans![ch(0, 8, $n, 2), ch(8, 8, $n, 1), ch(16, 8, $n, 0)]
    };
}

formats! {
    R32G32B32A32_TYPELESS = 1, 16, rgba32!(T);
    R32G32B32A32_FLOAT = 2, 16, rgba32!(F);
    R32G32B32A32_UINT = 3, 16, rgba32!(U);
    R32G32B32A32_SINT = 4, 16, rgba32!(S);
    R32G32B32_TYPELESS = 5, 12, rgb32!(T);
    R32G32B32_FLOAT = 6, 12, rgb32!(F);
    R32G32B32_UINT = 7, 12, rgb32!(U);
    R32G32B32_SINT = 8, 12, rgb32!(S);
    R16G16B16A16_TYPELESS = 9, 8, rgba16!(T);
    R16G16B16A16_FLOAT = 10, 8, rgba16!(F);
    R16G16B16A16_UNORM = 11, 8, rgba16!(N);
    R16G16B16A16_UINT = 12, 8, rgba16!(U);
    R16G16B16A16_SNORM = 13, 8, rgba16!(Num::SNorm);
    R16G16B16A16_SINT = 14, 8, rgba16!(S);
    R32G32_TYPELESS = 15, 8, rg32!(T);
    R32G32_FLOAT = 16, 8, rg32!(F);
    R32G32_UINT = 17, 8, rg32!(U);
    R32G32_SINT = 18, 8, rg32!(S);
    R32G8X24_TYPELESS = 19, 8, chans![ch(0, 32, T, 0), ch(32, 8, T, 1)];
    D32_FLOAT_S8X24_UINT = 20, 8, chans![ch(0, 32, F, 0), ch(32, 8, U, 1)];
    R32_FLOAT_X8X24_TYPELESS = 21, 8, chans![ch(0, 32, F, 0)];
    X32_TYPELESS_G8X24_UINT = 22, 8, chans![ch(32, 8, U, 1)];
    R10G10B10A2_TYPELESS = 23, 4, rgb10a2!(T);
    R10G10B10A2_UNORM = 24, 4, rgb10a2!(N);
    R10G10B10A2_UINT = 25, 4, rgb10a2!(U);
    R11G11B10_FLOAT = 26, 4, chans![ch(0, 11, Num::UFloat, 0), ch(11, 11, Num::UFloat, 1), ch(22, 10, Num::UFloat, 2)];
    R8G8B8A8_TYPELESS = 27, 4, rgba8!(T);
    R8G8B8A8_UNORM = 28, 4, rgba8!(N);
    R8G8B8A8_UNORM_SRGB = 29, 4, chans![ch(0, 8, G, 0), ch(8, 8, G, 1), ch(16, 8, G, 2), ch(24, 8, N, 3)];
    R8G8B8A8_UINT = 30, 4, rgba8!(U);
    R8G8B8A8_SNORM = 31, 4, rgba8!(Num::SNorm);
    R8G8B8A8_SINT = 32, 4, rgba8!(S);
    R16G16_TYPELESS = 33, 4, rg16!(T);
    R16G16_FLOAT = 34, 4, rg16!(F);
    R16G16_UNORM = 35, 4, rg16!(N);
    R16G16_UINT = 36, 4, rg16!(U);
    R16G16_SNORM = 37, 4, rg16!(Num::SNorm);
    R16G16_SINT = 38, 4, rg16!(S);
    R32_TYPELESS = 39, 4, r32!(T);
    D32_FLOAT = 40, 4, r32!(F);
    R32_FLOAT = 41, 4, r32!(F);
    R32_UINT = 42, 4, r32!(U);
    R32_SINT = 43, 4, r32!(S);
    R24G8_TYPELESS = 44, 4, chans![ch(0, 24, T, 0), ch(24, 8, T, 1)];
    D24_UNORM_S8_UINT = 45, 4, chans![ch(0, 24, N, 0), ch(24, 8, U, 1)];
    R24_UNORM_X8_TYPELESS = 46, 4, chans![ch(0, 24, N, 0)];
    X24_TYPELESS_G8_UINT = 47, 4, chans![ch(24, 8, U, 1)];
    R8G8_TYPELESS = 48, 2, rg8!(T);
    R8G8_UNORM = 49, 2, rg8!(N);
    R8G8_UINT = 50, 2, rg8!(U);
    R8G8_SNORM = 51, 2, rg8!(Num::SNorm);
    R8G8_SINT = 52, 2, rg8!(S);
    R16_TYPELESS = 53, 2, r16!(T);
    R16_FLOAT = 54, 2, r16!(F);
    D16_UNORM = 55, 2, r16!(N);
    R16_UNORM = 56, 2, r16!(N);
    R16_UINT = 57, 2, r16!(U);
    R16_SNORM = 58, 2, r16!(Num::SNorm);
    R16_SINT = 59, 2, r16!(S);
    R8_TYPELESS = 60, 1, r8!(T);
    R8_UNORM = 61, 1, r8!(N);
    R8_UINT = 62, 1, r8!(U);
    R8_SNORM = 63, 1, r8!(Num::SNorm);
    R8_SINT = 64, 1, r8!(S);
    A8_UNORM = 65, 1, chans![ch(0, 8, N, 3)];
    R1_UNORM = 66, 1, Layout::Unsupported;
    R9G9B9E5_SHAREDEXP = 67, 4, Layout::SharedExp;
    R8G8_B8G8_UNORM = 68, 4, Layout::Unsupported;
    G8R8_G8B8_UNORM = 69, 4, Layout::Unsupported;
    BC1_TYPELESS = 70, 8, Layout::Block;
    BC1_UNORM = 71, 8, Layout::Block;
    BC1_UNORM_SRGB = 72, 8, Layout::Block;
    BC2_TYPELESS = 73, 16, Layout::Block;
    BC2_UNORM = 74, 16, Layout::Block;
    BC2_UNORM_SRGB = 75, 16, Layout::Block;
    BC3_TYPELESS = 76, 16, Layout::Block;
    BC3_UNORM = 77, 16, Layout::Block;
    BC3_UNORM_SRGB = 78, 16, Layout::Block;
    BC4_TYPELESS = 79, 8, Layout::Block;
    BC4_UNORM = 80, 8, Layout::Block;
    BC4_SNORM = 81, 8, Layout::Block;
    BC5_TYPELESS = 82, 16, Layout::Block;
    BC5_UNORM = 83, 16, Layout::Block;
    BC5_SNORM = 84, 16, Layout::Block;
    B5G6R5_UNORM = 85, 2, chans![ch(0, 5, N, 2), ch(5, 6, N, 1), ch(11, 5, N, 0)];
    B5G5R5A1_UNORM = 86, 2, chans![ch(0, 5, N, 2), ch(5, 5, N, 1), ch(10, 5, N, 0), ch(15, 1, N, 3)];
    B8G8R8A8_UNORM = 87, 4, bgra8!(N, N);
    B8G8R8X8_UNORM = 88, 4, bgrx8!(N);
    R10G10B10_XR_BIAS_A2_UNORM = 89, 4, chans![ch(0, 10, Num::XrBias, 0), ch(10, 10, Num::XrBias, 1), ch(20, 10, Num::XrBias, 2), ch(30, 2, N, 3)];
    B8G8R8A8_TYPELESS = 90, 4, bgra8!(T, T);
    B8G8R8A8_UNORM_SRGB = 91, 4, bgra8!(G, N);
    B8G8R8X8_TYPELESS = 92, 4, bgrx8!(T);
    B8G8R8X8_UNORM_SRGB = 93, 4, bgrx8!(G);
    BC6H_TYPELESS = 94, 16, Layout::Block;
    BC6H_UF16 = 95, 16, Layout::Block;
    BC6H_SF16 = 96, 16, Layout::Block;
    BC7_TYPELESS = 97, 16, Layout::Block;
    BC7_UNORM = 98, 16, Layout::Block;
    BC7_UNORM_SRGB = 99, 16, Layout::Block;
    B4G4R4A4_UNORM = 115, 2, chans![ch(0, 4, N, 2), ch(4, 4, N, 1), ch(8, 4, N, 0), ch(12, 4, N, 3)];
    A4B4G4R4_UNORM = 191, 2, chans![ch(0, 4, N, 3), ch(4, 4, N, 2), ch(8, 4, N, 1), ch(12, 4, N, 0)];
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Format {
    /// The format named `name` (`"R8G8B8A8_UNORM"`; a `DXGI_FORMAT_` prefix and any
    /// letter case are accepted).
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.trim();
        // `get`, not slicing: a name with a multi-byte character across byte 12 is
        // simply not a format (slicing there panicked on mutated job files).
        let n = match (n.get(..12), n.get(12..)) {
            (Some(p), Some(rest)) if !rest.is_empty() && p.eq_ignore_ascii_case("DXGI_FORMAT_") => {
                rest
            }
            _ => n,
        };
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(n))
    }

    /// The format with this `DXGI_FORMAT` number.
    pub fn from_dxgi(value: u32) -> Option<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.dxgi_value() == value)
    }

    /// Whether the format is block-compressed (BC1–BC7).
    pub fn is_block_compressed(self) -> bool {
        self.layout() == Layout::Block
    }

    /// Whether texels of this format can be decoded and encoded one element at a time
    /// (typed buffers, UAVs, texture loads and stores).
    pub fn is_supported(self) -> bool {
        matches!(self.layout(), Layout::Channels(_) | Layout::SharedExp)
    }

    /// Whether a shader resource view of this format can read texels: every supported
    /// format, and the typed block-compressed ones.
    pub fn is_texture_readable(self) -> bool {
        self.is_supported() || self.block_kind().is_some()
    }

    /// The block-compressed family of a typed BC format (`None` for the others and for
    /// the `_TYPELESS` BC formats, which a view must give a type first).
    pub fn block_kind(self) -> Option<BlockKind> {
        use Format as F;
        Some(match self {
            F::BC1_UNORM | F::BC1_UNORM_SRGB => BlockKind::Bc1,
            F::BC2_UNORM | F::BC2_UNORM_SRGB => BlockKind::Bc2,
            F::BC3_UNORM | F::BC3_UNORM_SRGB => BlockKind::Bc3,
            F::BC4_UNORM => BlockKind::Bc4 { signed: false },
            F::BC4_SNORM => BlockKind::Bc4 { signed: true },
            F::BC5_UNORM => BlockKind::Bc5 { signed: false },
            F::BC5_SNORM => BlockKind::Bc5 { signed: true },
            F::BC6H_UF16 => BlockKind::Bc6h { signed: false },
            F::BC6H_SF16 => BlockKind::Bc6h { signed: true },
            F::BC7_UNORM | F::BC7_UNORM_SRGB => BlockKind::Bc7,
            _ => return None,
        })
    }

    /// The block-compressed family number (1–7) of any BC format, typeless included:
    /// views may reinterpret a texture only within its family (D3D's format casting).
    pub fn block_family(self) -> Option<u8> {
        let v = self.dxgi_value();
        Some(match v {
            70..=72 => 1,
            73..=75 => 2,
            76..=78 => 3,
            79..=81 => 4,
            82..=84 => 5,
            94..=96 => 6,
            97..=99 => 7,
            _ => return None,
        })
    }

    /// How D3D12 supports typed unordered-access views of this format: `None` when it
    /// cannot be a typed UAV at all (typeless, sRGB, depth, block-compressed, shared
    /// exponent, 96-bit and subsampled formats: D3D12's format support table gives them no
    /// `TYPED_UNORDERED_ACCESS_VIEW`). Every UAV format can be stored to; loads are
    /// [`UavLoad::Required`] for the R32 formats, [`UavLoad::Additional`] for the set
    /// `TypedUAVLoadAdditionalFormats` adds as a group, and [`UavLoad::Optional`] for the
    /// formats a device reports one by one (`D3D12_FORMAT_SUPPORT2_UAV_TYPED_LOAD`).
    /// dxlane loads and stores all of them, with the format's conversions (float → UNORM and
    /// SNORM: clamp, NaN → 0, add ±0.5 and truncate, D3D11.3 §3.2.3.4/§3.2.3.6).
    pub fn typed_uav(self) -> Option<UavLoad> {
        use Format as F;
        Some(match self {
            F::R32_FLOAT | F::R32_UINT | F::R32_SINT => UavLoad::Required,
            F::R32G32B32A32_FLOAT
            | F::R32G32B32A32_UINT
            | F::R32G32B32A32_SINT
            | F::R16G16B16A16_FLOAT
            | F::R16G16B16A16_UINT
            | F::R16G16B16A16_SINT
            | F::R8G8B8A8_UNORM
            | F::R8G8B8A8_UINT
            | F::R8G8B8A8_SINT
            | F::R16_FLOAT
            | F::R16_UINT
            | F::R16_SINT
            | F::R8_UNORM
            | F::R8_UINT
            | F::R8_SINT => UavLoad::Additional,
            F::R16G16B16A16_UNORM
            | F::R16G16B16A16_SNORM
            | F::R32G32_FLOAT
            | F::R32G32_UINT
            | F::R32G32_SINT
            | F::R10G10B10A2_UNORM
            | F::R10G10B10A2_UINT
            | F::R11G11B10_FLOAT
            | F::R8G8B8A8_SNORM
            | F::R16G16_FLOAT
            | F::R16G16_UNORM
            | F::R16G16_UINT
            | F::R16G16_SNORM
            | F::R16G16_SINT
            | F::R8G8_UNORM
            | F::R8G8_UINT
            | F::R8G8_SNORM
            | F::R8G8_SINT
            | F::R16_UNORM
            | F::R16_SNORM
            | F::R8_SNORM
            | F::A8_UNORM
            | F::B5G6R5_UNORM
            | F::B5G5R5A1_UNORM
            | F::B4G4R4A4_UNORM
            | F::B8G8R8A8_UNORM => UavLoad::Optional,
            _ => return None,
        })
    }

    /// Texels per block side: 4 for block-compressed formats, 1 for the others.
    pub fn block_size(self) -> u32 {
        if self.is_block_compressed() { 4 } else { 1 }
    }

    /// Decodes texel `i` (`x + 4 y` within the block) of the block in `block` (shorter
    /// input reads missing bytes as 0) as four `f32` bits, sRGB formats linearised
    /// (D3D11.3 §19.5.6 "BC1G": "linearized pre-filter on read"). Formats without a
    /// block kind decode to zeros.
    pub fn decode_block_texel(self, block: &[u8], i: usize) -> [u32; 4] {
        let Some(kind) = self.block_kind() else {
            return [0; 4];
        };
        let mut v = kind.decode_texel(block, i);
        if self.is_srgb() {
            for c in &mut v[..3] {
                *c = srgb_to_linear(*c);
            }
        }
        v.map(f32::to_bits)
    }

    /// The channels of a channel-layout format (empty for the others).
    pub fn channels(self) -> &'static [Channel] {
        match self.layout() {
            Layout::Channels(c) => c,
            _ => &[],
        }
    }

    /// Number of the R, G, B, A components the format stores.
    pub fn component_count(self) -> u32 {
        match self.layout() {
            Layout::Channels(c) => c.len() as u32,
            Layout::SharedExp => 3,
            Layout::Block => match self.block_kind() {
                Some(BlockKind::Bc4 { .. }) => 1,
                Some(BlockKind::Bc5 { .. }) => 2,
                Some(BlockKind::Bc6h { .. }) => 3,
                _ => 4,
            },
            _ => 4,
        }
    }

    /// The type of the format's first channel.
    pub fn channel_type(self) -> ChannelType {
        match self.layout() {
            Layout::Channels(c) => match c.first().map(|c| c.num) {
                Some(Num::UInt) => ChannelType::UInt,
                Some(Num::SInt) => ChannelType::SInt,
                Some(Num::Typeless) => ChannelType::Typeless,
                Some(Num::UNorm) | Some(Num::XrBias) => ChannelType::UNorm,
                Some(Num::SNorm) => ChannelType::SNorm,
                Some(Num::Srgb) => ChannelType::Srgb,
                _ => ChannelType::Float,
            },
            Layout::Block => match self.block_kind() {
                Some(BlockKind::Bc4 { signed: true } | BlockKind::Bc5 { signed: true }) => {
                    ChannelType::SNorm
                }
                Some(BlockKind::Bc6h { .. }) => ChannelType::Float,
                Some(_) if self.is_srgb() => ChannelType::Srgb,
                Some(_) => ChannelType::UNorm,
                None => ChannelType::Typeless,
            },
            _ => ChannelType::Float,
        }
    }

    /// Whether decoded values are integers (UINT, SINT or typeless), so that missing
    /// alpha reads as the integer 1 and filtering does not apply.
    pub fn is_integer(self) -> bool {
        matches!(
            self.channel_type(),
            ChannelType::UInt | ChannelType::SInt | ChannelType::Typeless
        )
    }

    /// Whether the format is sRGB-encoded.
    pub fn is_srgb(self) -> bool {
        self.channels().iter().any(|c| c.num == Num::Srgb)
            || matches!(
                self,
                Format::BC1_UNORM_SRGB
                    | Format::BC2_UNORM_SRGB
                    | Format::BC3_UNORM_SRGB
                    | Format::BC7_UNORM_SRGB
            )
    }

    /// Whether this is a depth(-stencil) format.
    pub fn is_depth(self) -> bool {
        matches!(
            self,
            Format::D32_FLOAT
                | Format::D16_UNORM
                | Format::D24_UNORM_S8_UINT
                | Format::D32_FLOAT_S8X24_UINT
        )
    }

    /// The value of a missing component `i` (0, 0, 0, 1; 1.0 for float-like formats).
    pub fn default_component(self, i: usize) -> u32 {
        if i == 3 {
            if self.is_integer() {
                1
            } else {
                1.0f32.to_bits()
            }
        } else {
            0
        }
    }

    /// Decodes the texel in `bytes` (at least [`Format::bytes_per_texel`] long; shorter
    /// input reads missing bytes as 0) into four 32-bit values (see the module doc).
    /// Unsupported formats decode to zeros.
    pub fn decode(self, bytes: &[u8]) -> [u32; 4] {
        // The formats every draw and sampling benchmark touches decode without the
        // channel table; `fast_paths_equal_the_channel_tables` holds them to it.
        match self {
            Format::R8G8B8A8_UNORM | Format::B8G8R8A8_UNORM if bytes.len() >= 4 => {
                let c = [0, 1, 2, 3].map(|i| UNORM8_TO_F32[usize::from(bytes[i])]);
                return if self == Format::R8G8B8A8_UNORM {
                    c
                } else {
                    [c[2], c[1], c[0], c[3]]
                };
            }
            Format::R32G32B32A32_FLOAT if bytes.len() >= 16 => {
                return [0, 1, 2, 3].map(|i| {
                    u32::from_le_bytes([
                        bytes[4 * i],
                        bytes[4 * i + 1],
                        bytes[4 * i + 2],
                        bytes[4 * i + 3],
                    ])
                });
            }
            _ => {}
        }
        self.decode_by_layout(bytes)
    }

    /// [`Format::decode`] through the format's layout table, for every format.
    fn decode_by_layout(self, bytes: &[u8]) -> [u32; 4] {
        let mut raw = [0u8; 16];
        let n = bytes.len().min(16).min(self.bytes_per_texel() as usize);
        raw[..n].copy_from_slice(&bytes[..n]);
        let bits = u128::from_le_bytes(raw);
        let mut out = [
            self.default_component(0),
            self.default_component(1),
            self.default_component(2),
            self.default_component(3),
        ];
        match self.layout() {
            Layout::Channels(chans) => {
                for c in chans {
                    let v = extract(bits, c.shift, c.bits);
                    out[usize::from(c.dest & 3)] = decode_channel(v, c.bits, c.num);
                }
            }
            Layout::SharedExp => {
                let rgb = shared_exp_to_rgb(bits as u32);
                out[0] = rgb[0].to_bits();
                out[1] = rgb[1].to_bits();
                out[2] = rgb[2].to_bits();
            }
            Layout::Block => out = self.decode_block_texel(bytes, 0),
            Layout::Unsupported => out = [0; 4],
        }
        out
    }

    /// Encodes the components of `value` selected by `mask` (bit i = component i) into the
    /// texel in `out`, leaving the bits of the other channels as they are. Float-like
    /// channels read `value` as `f32` bits, UINT as `u32`, SINT as `i32`, typeless as raw
    /// bits. Unsupported formats write nothing.
    pub fn encode(self, value: [u32; 4], mask: u8, out: &mut [u8]) {
        if matches!(self, Format::R8G8B8A8_UNORM | Format::B8G8R8A8_UNORM) && out.len() >= 4 {
            // The output merger's most common target, without the channel table.
            let byte = if self == Format::R8G8B8A8_UNORM {
                [0, 1, 2, 3]
            } else {
                [2, 1, 0, 3]
            };
            for i in 0..4 {
                if mask & (1 << i) != 0 {
                    out[byte[i]] = float_to_unorm(f32::from_bits(value[i]), 8) as u8;
                }
            }
            return;
        }
        self.encode_by_layout(value, mask, out);
    }

    /// [`Format::encode`] through the format's layout table, for every format.
    fn encode_by_layout(self, value: [u32; 4], mask: u8, out: &mut [u8]) {
        let n = out.len().min(16).min(self.bytes_per_texel() as usize);
        let mut raw = [0u8; 16];
        raw[..n].copy_from_slice(&out[..n]);
        let mut bits = u128::from_le_bytes(raw);
        match self.layout() {
            Layout::Channels(chans) => {
                for c in chans {
                    if mask & (1 << (c.dest & 3)) == 0 {
                        continue;
                    }
                    let v = encode_channel(value[usize::from(c.dest & 3)], c.bits, c.num);
                    bits = insert(bits, c.shift, c.bits, v);
                }
            }
            Layout::SharedExp => {
                let old = shared_exp_to_rgb(bits as u32);
                let mut rgb = [0f32; 3];
                for i in 0..3 {
                    rgb[i] = if mask & (1 << i) != 0 {
                        f32::from_bits(value[i])
                    } else {
                        old[i]
                    };
                }
                bits = u128::from(rgb_to_shared_exp(rgb));
            }
            Layout::Block | Layout::Unsupported => return,
        }
        out[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
    }

    /// Decodes a texel as four floats (for filtering): float-like channels as they
    /// decode, integer channels converted to float by value.
    pub fn decode_f32(self, bytes: &[u8]) -> [f32; 4] {
        let v = self.decode(bytes);
        if self.is_integer() {
            let signed = self.channel_type() == ChannelType::SInt;
            v.map(|x| if signed { x as i32 as f32 } else { x as f32 })
        } else {
            v.map(f32::from_bits)
        }
    }
}

fn extract(bits: u128, shift: u8, width: u8) -> u32 {
    let mask = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    ((bits >> shift) as u32) & mask
}

fn insert(bits: u128, shift: u8, width: u8, v: u32) -> u128 {
    let mask: u128 = if width >= 32 {
        u128::from(u32::MAX)
    } else {
        (1u128 << width) - 1
    };
    (bits & !(mask << shift)) | ((u128::from(v) & mask) << shift)
}

fn decode_channel(v: u32, bits: u8, num: Num) -> u32 {
    match num {
        Num::Float if bits == 16 => small_float_to_f32(v, 10, true).to_bits(),
        Num::Float => v,
        Num::UFloat => small_float_to_f32(v, u32::from(bits) - 5, false).to_bits(),
        Num::UNorm => unorm_to_float(v, bits).to_bits(),
        Num::SNorm => snorm_to_float(v, bits).to_bits(),
        Num::Srgb => srgb_to_linear(unorm_to_float(v, bits)).to_bits(),
        Num::UInt | Num::Typeless => v,
        Num::SInt => sign_extend(v, bits) as u32,
        Num::XrBias => ((v as f32 - 384.0) / 510.0).to_bits(),
    }
}

fn encode_channel(v: u32, bits: u8, num: Num) -> u32 {
    let max = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    match num {
        Num::Float if bits == 16 => f32_to_half_format(f32::from_bits(v)),
        Num::Float => v,
        Num::UFloat => f32_to_ufloat(f32::from_bits(v), u32::from(bits) - 5),
        Num::UNorm => float_to_unorm(f32::from_bits(v), bits),
        Num::SNorm => float_to_snorm(f32::from_bits(v), bits),
        Num::Srgb => float_to_unorm(linear_to_srgb(f32::from_bits(v)), bits),
        Num::UInt => v.min(max),
        Num::Typeless => v & max,
        Num::SInt => {
            let lo = -(1i64 << (bits - 1));
            let hi = (1i64 << (bits - 1)) - 1;
            (i64::from(v as i32).clamp(lo, hi) as u32) & max
        }
        Num::XrBias => {
            let x = f32::from_bits(v);
            if x.is_nan() {
                0
            } else {
                (x * 510.0 + 384.0).clamp(0.0, 1023.0) as u32
            }
        }
    }
}

fn sign_extend(v: u32, bits: u8) -> i32 {
    if bits >= 32 {
        v as i32
    } else {
        let s = 32 - u32::from(bits);
        ((v << s) as i32) >> s
    }
}

/// [`unorm_to_float`]`(c, 8)` of every 8-bit code, as bits (the same correctly rounded
/// division, done when compiling).
static UNORM8_TO_F32: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = (c as f32 / 255.0).to_bits();
        c += 1;
    }
    t
};

/// UNORM → float: `c / (2^n − 1)` in `f32` (one correctly rounded division).
/// D3D11.3 §3.2 (fixed-point conversion).
pub fn unorm_to_float(c: u32, bits: u8) -> f32 {
    let max = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    (c.min(max) as f32) / (max as f32)
}

/// SNORM → float: `c / (2^(n−1) − 1)`, with the most negative code also reading −1.0
/// (D3D11.3 §3.2 (fixed-point conversion): "there are thus two integer representations for −1.0f").
pub fn snorm_to_float(c: u32, bits: u8) -> f32 {
    let v = sign_extend(c, bits);
    let max = ((1i64 << (bits - 1)) - 1) as f32;
    ((v as f32) / max).max(-1.0)
}

/// float → UNORM: NaN → 0; clamp to [0, 1]; the exact product `c × (2^n − 1)` rounded to
/// the nearest integer, halves up (D3D11.3 §3.2.3.6 "FLOAT → UNORM": scale, add ½,
/// truncate; §17.11 rounds depth to nearest). The product and the ½ are taken in `f64`,
/// where both are exact for every width up to 24 bits (a 24-bit significand times a
/// 24-bit integer fits 53 bits; below 2^−30 the sum may round, but only within (0.5, 1)).
/// Taking them in `f32` rounds the product first and then the sum to even: at 24 bits
/// every odd product ≥ 2^23 then comes out one too high (0.7490234375 × (2^24 − 1) =
/// 12566527.25 gave 12566528), and at every width the float just below each code's
/// threshold went up a code.
pub fn float_to_unorm(x: f32, bits: u8) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let max = (1u64 << bits.min(32)) - 1;
    let v = f64::from(x.clamp(0.0, 1.0)) * max as f64 + 0.5;
    (v.floor() as u64).min(max) as u32
}

/// float → SNORM: NaN → 0; clamp to [−1, 1]; `c × (2^(n−1) − 1)`; add 0.5 (non-negative)
/// or subtract 0.5 (negative); drop the fraction (D3D11.3 §3.2 (fixed-point conversion) "FLOAT → SNORM").
/// Returns the two's-complement code in the low `bits` bits.
pub fn float_to_snorm(x: f32, bits: u8) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let max = ((1i64 << (bits - 1)) - 1) as f32;
    let c = x.clamp(-1.0, 1.0) * max;
    let c = if c >= 0.0 { c + 0.5 } else { c - 0.5 };
    let mask = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    ((c as i32) as u32) & mask
}

/// sRGB → linear (IEC 61966-2-1): `c / 12.92` up to 0.04045, else
/// `((c + 0.055) / 1.055)^2.4`; computed in `f64`, rounded once. D3D11.3 §3.2 (fixed-point conversion).
pub fn srgb_to_linear(c: f32) -> f32 {
    let c = f64::from(c);
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// linear → sRGB (IEC 61966-2-1): NaN → 0, clamp to [0, 1], `12.92 c` below 0.0031308,
/// else `1.055 c^(1/2.4) − 0.055`; computed in `f64`. D3D11.3 §3.2 (fixed-point conversion) ("FLOAT → SRGB").
pub fn linear_to_srgb(l: f32) -> f32 {
    if l.is_nan() {
        return 0.0;
    }
    let l = f64::from(l.clamp(0.0, 1.0));
    let s = if l < 0.0031308 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    s as f32
}

/// How a float is rounded to a narrower float.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Toward zero (D3D11.3 §3.2.2 for float → float conversions); finite values past the
    /// range give the largest finite value.
    TowardZero,
    /// To nearest, ties to even (IEEE 754); values past the range give infinity.
    NearestEven,
}

/// Encodes `|x|` (not NaN) as a float with a 5-bit exponent (bias 15) and `mant`
/// mantissa bits: returns `exponent << mant | mantissa`.
pub fn f32_to_small_magnitude(x: f32, mant: u32, rounding: Rounding) -> u32 {
    let a = x.to_bits() & 0x7fff_ffff;
    let inf = 31u32 << mant;
    let max_finite = (30u32 << mant) | ((1u32 << mant) - 1);
    if a == 0x7f80_0000 {
        return inf;
    }
    let e = (a >> 23) as i32;
    if e == 0 {
        // f32 zero or denormal: below half of the smallest target denormal for every
        // target this serves (2^-24 at most for 10 mantissa bits), so 0 either way.
        return 0;
    }
    let sig = u64::from((a & 0x7f_ffff) | 0x80_0000); // 24 bits, value sig × 2^(e−150)
    let he = e - 127 + 15; // target biased exponent
    if he >= 31 {
        return match rounding {
            Rounding::TowardZero => max_finite,
            Rounding::NearestEven => inf,
        };
    }
    // Normal targets keep `mant + 1` bits of `sig` (implicit one included) and take
    // exponent `he`; denormal targets (he <= 0) shift further right by `1 − he`.
    let base_shift = (23 - mant) as i32;
    let (shift, exp_field) = if he >= 1 {
        (base_shift, he as u32)
    } else {
        (base_shift + 1 - he, 0)
    };
    let shift = shift.min(63) as u32;
    let kept = sig >> shift;
    let rem = sig & ((1u64 << shift) - 1);
    let mut out = if he >= 1 {
        (exp_field << mant) | ((kept as u32) & ((1u32 << mant) - 1))
    } else {
        kept as u32
    };
    if rounding == Rounding::NearestEven && shift > 0 {
        let half = 1u64 << (shift - 1);
        if rem > half || (rem == half && out & 1 == 1) {
            out += 1; // may carry into the exponent: correct, up to infinity
        }
    }
    match rounding {
        Rounding::TowardZero => out.min(max_finite),
        Rounding::NearestEven => out.min(inf),
    }
}

/// A float with a 5-bit exponent (bias 15) and `mant` mantissa bits (and a sign bit
/// above them when `signed`) as `f32`. Exact; NaNs keep their payload, made quiet.
pub fn small_float_to_f32(v: u32, mant: u32, signed: bool) -> f32 {
    let sign = if signed && (v >> (mant + 5)) & 1 == 1 {
        0x8000_0000u32
    } else {
        0
    };
    let e = (v >> mant) & 31;
    let m = v & ((1u32 << mant) - 1);
    let bits = if e == 0 {
        // Denormal (or zero): m × 2^(−14 − mant), exactly representable in f32.
        let mag = (m as f32) * f32::from_bits(((127 - 14 - mant as i32) as u32) << 23);
        return f32::from_bits(sign | mag.to_bits());
    } else if e == 31 {
        if m == 0 {
            0x7f80_0000
        } else {
            0x7fc0_0000 | (m << (23 - mant))
        }
    } else {
        ((e + 127 - 15) << 23) | (m << (23 - mant))
    };
    f32::from_bits(sign | bits)
}

/// float → 16-bit float channel of a format (D3D11.3 §3.2.2): round toward zero, past
/// the range → largest finite of the sign, ±∞ kept, NaN → `sign | 0x7fff`.
pub fn f32_to_half_format(x: f32) -> u32 {
    let sign = (x.to_bits() >> 16) & 0x8000;
    if x.is_nan() {
        return sign | 0x7fff;
    }
    sign | f32_to_small_magnitude(x, 10, Rounding::TowardZero)
}

/// float → unsigned 11- or 10-bit float (R11G11B10, D3D11.3 §3.2.2): no sign bit, so
/// negative values and −∞ give 0; NaN gives an all-ones mantissa NaN; round toward zero.
pub fn f32_to_ufloat(x: f32, mant: u32) -> u32 {
    if x.is_nan() {
        return (31 << mant) | ((1 << mant) - 1);
    }
    if x.is_sign_negative() {
        return 0;
    }
    f32_to_small_magnitude(x, mant, Rounding::TowardZero)
}

/// R9G9B9E5_SHAREDEXP → RGB: `mantissa × 2^(exponent − 15 − 9)` per channel.
pub fn shared_exp_to_rgb(v: u32) -> [f32; 3] {
    let e = (v >> 27) as i32;
    let scale = 2f32.powi(e - 15 - 9);
    [
        (v & 0x1ff) as f32 * scale,
        ((v >> 9) & 0x1ff) as f32 * scale,
        ((v >> 18) & 0x1ff) as f32 * scale,
    ]
}

/// RGB → R9G9B9E5_SHAREDEXP (the EXT_texture_shared_exponent encoding D3D adopts):
/// channels clamped to [0, 65408] (NaN → 0), a shared exponent from the largest, each
/// mantissa rounded to nearest.
pub fn rgb_to_shared_exp(rgb: [f32; 3]) -> u32 {
    const MAX: f64 = 65408.0; // (2^9 − 1) / 2^9 × 2^16
    let c = rgb.map(|x| {
        if x.is_nan() {
            0.0
        } else {
            f64::from(x).clamp(0.0, MAX)
        }
    });
    let maxc = c[0].max(c[1]).max(c[2]);
    if maxc == 0.0 {
        return 0;
    }
    let mut exp = (maxc.log2().floor() as i32).max(-16) + 1 + 15;
    let mut denom = 2f64.powi(exp - 15 - 9);
    if (maxc / denom + 0.5).floor() >= 512.0 {
        denom *= 2.0;
        exp += 1;
    }
    let m = c.map(|x| ((x / denom + 0.5).floor() as u32).min(511));
    ((exp.clamp(0, 31) as u32) << 27) | (m[2] << 18) | (m[1] << 9) | m[0]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn f(bits: u32) -> f32 {
        f32::from_bits(bits)
    }

    /// The fast paths of `decode` and `encode` are shortcuts, not rules: they must give
    /// exactly what the layout tables (D3D11.3 §3.2 conversions) give.
    #[test]
    fn fast_paths_equal_the_channel_tables() {
        let formats = [
            Format::R8G8B8A8_UNORM,
            Format::B8G8R8A8_UNORM,
            Format::R32G32B32A32_FLOAT,
        ];
        // Every code of every channel, and words of mixed codes.
        let mut texels: Vec<[u8; 16]> = Vec::new();
        for c in 0..=255u8 {
            let mut t = [c; 16];
            t[1] = c.wrapping_mul(7);
            t[2] = 255 - c;
            t[3] = c ^ 0x5a;
            texels.push(t);
        }
        let mut floats: Vec<u32> = vec![
            0,
            0x8000_0000,
            1.0f32.to_bits(),
            (-1.0f32).to_bits(),
            f32::INFINITY.to_bits(),
            f32::NEG_INFINITY.to_bits(),
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            1,
            0x0080_0000,
            0.5f32.to_bits(),
            (0.5f32 / 255.0).to_bits(),
            (1.5f32 / 255.0).to_bits(),
            f32::MAX.to_bits(),
        ];
        for c in 0..=255u32 {
            floats.push((c as f32 / 255.0).to_bits());
            floats.push(((c as f32 + 0.5) / 255.0).to_bits());
            floats.push(((c as f32 + 0.5) / 255.0).to_bits() + 1);
            floats.push(((c as f32 + 0.5) / 255.0).to_bits() - 1);
        }
        for fm in formats {
            let n = fm.bytes_per_texel() as usize;
            for t in &texels {
                assert_eq!(fm.decode(&t[..n]), fm.decode_by_layout(&t[..n]), "{fm:?}");
            }
            for (k, w) in floats.chunks(4).enumerate() {
                let v = [
                    w[0],
                    w[w.len() - 1],
                    w[(k + 1) % w.len()],
                    w[(k + 2) % w.len()],
                ];
                for mask in 0..16u8 {
                    let mut a = texels[k % texels.len()];
                    let mut b = a;
                    fm.encode(v, mask, &mut a[..n]);
                    fm.encode_by_layout(v, mask, &mut b[..n]);
                    assert_eq!(a, b, "{fm:?} {v:x?} mask {mask}");
                }
            }
        }
    }

    #[test]
    fn names_and_numbers_round_trip() {
        for &fm in Format::ALL {
            assert_eq!(Format::from_name(fm.name()), Some(fm));
            assert_eq!(Format::from_dxgi(fm.dxgi_value()), Some(fm));
            if let Layout::Channels(c) = fm.layout() {
                let top = c
                    .iter()
                    .map(|c| u32::from(c.shift) + u32::from(c.bits))
                    .max()
                    .unwrap();
                assert!(top <= fm.bytes_per_texel() * 8, "{fm}");
            }
        }
        assert_eq!(
            Format::from_name("DXGI_FORMAT_r8g8b8a8_unorm"),
            Some(Format::R8G8B8A8_UNORM)
        );
        assert_eq!(Format::from_name("R8G8B8A8"), None);
        assert_eq!(Format::R32G32B32_FLOAT.bytes_per_texel(), 12);
        assert_eq!(Format::R11G11B10_FLOAT.bytes_per_texel(), 4);
    }

    /// D3D11.3 §3.2 (fixed-point conversion): FLOAT → UNORM clamps, sends NaN to 0 and rounds by adding 0.5.
    #[test]
    fn float_to_unorm_rules() {
        assert_eq!(float_to_unorm(f32::NAN, 8), 0);
        assert_eq!(float_to_unorm(-1.0, 8), 0);
        assert_eq!(float_to_unorm(2.0, 8), 255);
        assert_eq!(float_to_unorm(f32::INFINITY, 8), 255);
        assert_eq!(float_to_unorm(0.5, 8), 128); // 127.5 + 0.5 = 128
        assert_eq!(float_to_unorm(1.5 / 255.0, 8), 2); // 1.5 → 2 (half up, not to even)
        assert_eq!(float_to_unorm(1.0, 16), 65535);
        assert_eq!(float_to_unorm(1.0, 2), 3);
    }

    /// The exact FLOAT → UNORM result `floor(x·(2^n − 1) + ½)` in integers, the oracle
    /// the conversion is held to: `x = m / 2^s` exactly, so the result is
    /// `floor((2·m·(2^n − 1) + 2^s) / 2^(s+1))`. Below 2^−40 (s > 63) the product is under
    /// 2^−16 for every width up to 24, so the result is 0.
    pub(crate) fn unorm_oracle(x: f32, bits: u8) -> u32 {
        if x.is_nan() || x <= 0.0 {
            return 0;
        }
        let max = (1u128 << bits) - 1;
        if x >= 1.0 {
            return max as u32;
        }
        let b = x.to_bits();
        let exp = (b >> 23) as i32;
        let (m, s) = if exp == 0 {
            (u128::from(b & 0x7f_ffff), 149)
        } else {
            (u128::from((b & 0x7f_ffff) | 0x80_0000), 150 - exp)
        };
        if s > 63 {
            return 0;
        }
        ((2 * m * max + (1u128 << s)) >> (s + 1)) as u32
    }

    /// Every UNORM width a format or depth buffer converts: 1 (B5G5R5A1's alpha), 2
    /// (R10G10B10A2's alpha), 4, 5, 6, 8, 10, 16 and 24 (D24).
    const UNORM_WIDTHS: [u8; 9] = [1, 2, 4, 5, 6, 8, 10, 16, 24];

    /// D3D11.3 §3.2.3.6 ("FLOAT → UNORM") and §17.11 (depth rounds to nearest): the
    /// issue's D24 value. 0.7490234375 = 767/1024, and 767/1024 × (2^24 − 1) =
    /// 12566527.25 exactly, so the code is 12566527 — in f32 the product rounds to
    /// 12566527, `+ 0.5` ties to even and gave 12566528, 0.75 from the exact value, past
    /// §3.2.3.6's 0.6-unit tolerance. The float just below ½ at one bit: 0.49999997 ×
    /// 1 + ½ < 1, code 0 (f32 rounded the sum up to 1).
    #[test]
    fn float_to_unorm_rounds_the_exact_product() {
        assert_eq!(float_to_unorm(0.749_023_44, 24), 12_566_527);
        assert_eq!(0.749_023_44f32, 767.0 / 1024.0);
        assert_eq!(float_to_unorm(0.5, 24), 8_388_608); // 8388607.5 → half up
        assert_eq!(float_to_unorm(f32::from_bits(0.5f32.to_bits() - 1), 1), 0);
        assert_eq!(float_to_unorm(0.5, 1), 1);
        // 0.25 × 3 + ½ = 1.25 → 1; 0.5 × 3 + ½ = 2 → 2 (R10G10B10A2's alpha).
        assert_eq!(float_to_unorm(0.25, 2), 1);
        assert_eq!(float_to_unorm(0.5, 2), 2);
        // 1/3 in f32 is 11184811/2^25; × 3 = 33554433/2^25 = 1 + 2^−25 → 1.
        assert_eq!(float_to_unorm(1.0 / 3.0, 2), 1);
    }

    /// D3D11.3 §3.2.3.6 over every code of every width: for each code `k` the smallest
    /// float that must give `k + 1` (`(k + ½)/(2^n − 1)` or the float after it) gives
    /// `k + 1` and the float before it gives `k`, as the integer oracle says; and every
    /// code read back as a float (`c / (2^n − 1)`) converts to itself.
    #[test]
    fn float_to_unorm_thresholds_of_every_code() {
        for bits in UNORM_WIDTHS {
            let max = (1u32 << bits) - 1;
            for k in 0..max {
                let t = ((f64::from(k) + 0.5) / f64::from(max)) as f32;
                // The first float the oracle sends past `k`, within an ulp or two of t.
                let mut x = f32::from_bits(t.to_bits().saturating_sub(2));
                while unorm_oracle(x, bits) <= k {
                    x = f32::from_bits(x.to_bits() + 1);
                }
                let below = f32::from_bits(x.to_bits() - 1);
                assert_eq!(unorm_oracle(below, bits), k, "{bits} bits, code {k}");
                assert_eq!(float_to_unorm(x, bits), k + 1, "{bits} bits, {x:e}");
                assert_eq!(float_to_unorm(below, bits), k, "{bits} bits, {below:e}");
                assert_eq!(float_to_unorm(unorm_to_float(k, bits), bits), k);
            }
            assert_eq!(float_to_unorm(unorm_to_float(max, bits), bits), max);
        }
    }

    use proptest::prelude::*;

    proptest::proptest! {
        /// Random values (any bits, any float in [0, 1], floats within two ulps of a 24-bit
        /// code's threshold) through every format with UNORM channels: each channel's code
        /// is the integer oracle's (D3D11.3 §3.2.3.6). `pipeline::om` holds the depth
        /// formats to the same rule.
        #[test]
        fn unorm_formats_encode_the_exact_rounding(
            bits in proptest::prop_oneof![
                proptest::num::u32::ANY,
                (0u32..=0x3f80_0000),
                (0u32..(1 << 24)).prop_map(|k| ((f64::from(k) + 0.5) / 16_777_215.0) as f32)
                    .prop_map(f32::to_bits),
            ],
            nudge in -2i32..=2,
            which in 0usize..64,
        ) {
            let x = f32::from_bits(bits.wrapping_add_signed(nudge));
            let unorm: Vec<Format> = Format::ALL
                .iter()
                .copied()
                .filter(|f| match f.layout() {
                    Layout::Channels(ch) => ch.iter().any(|c| c.num == Num::UNorm),
                    _ => false,
                })
                .collect();
            let f = unorm[which % unorm.len()];
            let Layout::Channels(chans) = f.layout() else { unreachable!() };
            let mut out = vec![0u8; f.bytes_per_texel() as usize];
            f.encode([x.to_bits(); 4], 0xf, &mut out);
            let mut word = [0u8; 16];
            word[..out.len()].copy_from_slice(&out);
            let texel = u128::from_le_bytes(word);
            for c in chans.iter().filter(|c| c.num == Num::UNorm) {
                proptest::prop_assert_eq!(
                    extract(texel, c.shift, c.bits),
                    unorm_oracle(x, c.bits),
                    "{} channel at bit {}, x = {:e}", f.name(), c.shift, x
                );
            }
        }
    }

    /// D3D11.3 §3.2 (fixed-point conversion): SNORM has two codes for −1.0 and clamps to [−1, 1].
    #[test]
    fn snorm_rules() {
        assert_eq!(snorm_to_float(0x80, 8), -1.0);
        assert_eq!(snorm_to_float(0x81, 8), -1.0);
        assert_eq!(snorm_to_float(0x7f, 8), 1.0);
        assert_eq!(snorm_to_float(0x8000, 16), -1.0);
        assert_eq!(float_to_snorm(-1.0, 8), 0x81);
        assert_eq!(float_to_snorm(-5.0, 8), 0x81);
        assert_eq!(float_to_snorm(1.0, 8), 0x7f);
        assert_eq!(float_to_snorm(f32::NAN, 8), 0);
        assert_eq!(float_to_snorm(-0.5, 8), (-64i32 as u32) & 0xff); // −63.5 − 0.5
        assert_eq!(unorm_to_float(255, 8), 1.0);
        assert_eq!(unorm_to_float(1, 8), 1.0 / 255.0);
    }

    /// IEC 61966-2-1 curves as D3D11.3 §3.2 (fixed-point conversion) requires.
    #[test]
    fn srgb_curves() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert_eq!(srgb_to_linear(1.0), 1.0);
        assert!((srgb_to_linear(0.5) - 0.214_041_14).abs() < 1e-6);
        for c in 0..=255u32 {
            let l = srgb_to_linear(unorm_to_float(c, 8));
            assert_eq!(float_to_unorm(linear_to_srgb(l), 8), c, "code {c}");
        }
        let px = [0x80u8, 0x40, 0xff, 0x10];
        let v = Format::R8G8B8A8_UNORM_SRGB.decode(&px);
        assert_eq!(f(v[3]), 16.0 / 255.0); // alpha stays linear
        let mut out = [0u8; 4];
        Format::R8G8B8A8_UNORM_SRGB.encode(v, 0xf, &mut out);
        assert_eq!(out, px);
    }

    /// D3D11.3 §3.2.2: float → float16 rounds toward zero, saturates finite values to the
    /// largest half and keeps infinities (the same values WARP's f32tof16 gives, seed 000).
    #[test]
    fn half_format_conversion_rounds_toward_zero() {
        assert_eq!(f32_to_half_format(1.0), 0x3c00);
        assert_eq!(f32_to_half_format(f(0x3f80_1fff)), 0x3c00);
        assert_eq!(f32_to_half_format(65520.0), 0x7bff);
        assert_eq!(f32_to_half_format(-65520.0), 0xfbff);
        assert_eq!(f32_to_half_format(1e10), 0x7bff);
        assert_eq!(f32_to_half_format(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_half_format(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f32_to_half_format(1e-5), 167);
        assert_eq!(f32_to_half_format(f(0x7fc0_0000)), 0x7fff);
        assert_eq!(f32_to_half_format(-0.0), 0x8000);
        assert_eq!(f32_to_small_magnitude(1e-5, 10, Rounding::NearestEven), 168);
        assert_eq!(
            f32_to_small_magnitude(65520.0, 10, Rounding::NearestEven),
            0x7c00
        );
    }

    #[test]
    fn half_decode_is_exact() {
        assert_eq!(small_float_to_f32(0x3c00, 10, true), 1.0);
        assert_eq!(small_float_to_f32(0x0001, 10, true), 2f32.powi(-24));
        assert_eq!(small_float_to_f32(0x7bff, 10, true), 65504.0);
        assert_eq!(small_float_to_f32(0xfc00, 10, true), f32::NEG_INFINITY);
        assert!(small_float_to_f32(0x7e00, 10, true).is_nan());
        assert_eq!(small_float_to_f32(0x8000, 10, true).to_bits(), 0x8000_0000);
        // Every half round-trips through f32 with both roundings.
        for h in 0..=0xffffu32 {
            let x = small_float_to_f32(h, 10, true);
            if x.is_nan() {
                continue;
            }
            let sign = (x.to_bits() >> 16) & 0x8000;
            for r in [Rounding::TowardZero, Rounding::NearestEven] {
                assert_eq!(sign | f32_to_small_magnitude(x, 10, r), h, "{h:#x}");
            }
        }
    }

    /// R11G11B10_FLOAT: unsigned 11/11/10-bit floats; negative → 0 (D3D11.3 §3.2.2).
    #[test]
    fn r11g11b10() {
        let fm = Format::R11G11B10_FLOAT;
        let mut out = [0u8; 4];
        fm.encode(
            [1.0f32.to_bits(), (-2.0f32).to_bits(), 0.5f32.to_bits(), 0],
            0xf,
            &mut out,
        );
        let v = fm.decode(&out);
        assert_eq!([f(v[0]), f(v[1]), f(v[2]), f(v[3])], [1.0, 0.0, 0.5, 1.0]);
        let bits = u32::from_le_bytes(out);
        assert_eq!(bits & 0x7ff, 15 << 6);
        assert_eq!(bits >> 22, 14 << 5);
        assert_eq!(f32_to_ufloat(1e10, 6), (30 << 6) | 63);
        assert_eq!(f32_to_ufloat(f32::INFINITY, 5), 31 << 5);
    }

    #[test]
    fn r10g10b10a2_and_integer_clamps() {
        let fm = Format::R10G10B10A2_UNORM;
        let v = fm.decode(&u32::to_le_bytes(0xc000_03ff));
        assert_eq!([f(v[0]), f(v[1]), f(v[3])], [1.0, 0.0, 1.0]);
        let mut out = [0u8; 4];
        Format::R10G10B10A2_UINT.encode([5000, 3, 2, 9], 0xf, &mut out);
        assert_eq!(
            u32::from_le_bytes(out),
            0x3ff | (3 << 10) | (2 << 20) | (3 << 30)
        );
        let mut out = [0u8; 1];
        Format::R8_SINT.encode([(-300i32) as u32, 0, 0, 0], 1, &mut out);
        assert_eq!(out[0] as i8, -128);
        assert_eq!(Format::R8_SINT.decode(&[0x80])[0], (-128i32) as u32);
        Format::R8_UINT.encode([300, 0, 0, 0], 1, &mut out);
        assert_eq!(out[0], 255);
        assert_eq!(Format::R8_UINT.decode(&[7]), [7, 0, 0, 1]);
    }

    /// Missing channels read (0, 0, 0, 1); BGRA swizzles; A8 reads (0, 0, 0, a).
    #[test]
    fn missing_channels_and_swizzles() {
        let v = Format::R32_FLOAT.decode(&2.0f32.to_le_bytes());
        assert_eq!(v, [2.0f32.to_bits(), 0, 0, 1.0f32.to_bits()]);
        let v = Format::B8G8R8A8_UNORM.decode(&[0, 0, 255, 0]);
        assert_eq!(f(v[0]), 1.0);
        let v = Format::B8G8R8X8_UNORM.decode(&[0, 0, 0, 0]);
        assert_eq!(f(v[3]), 1.0);
        let v = Format::A8_UNORM.decode(&[255]);
        assert_eq!(v, [0, 0, 0, 1.0f32.to_bits()]);
        let v = Format::D24_UNORM_S8_UINT.decode(&[0xff, 0xff, 0xff, 7]);
        assert_eq!((f(v[0]), v[1]), (1.0, 7));
        let v = Format::D32_FLOAT_S8X24_UINT.decode(&[0, 0, 0x80, 0x3f, 9, 0, 0, 0]);
        assert_eq!((f(v[0]), v[1]), (1.0, 9));
        let v = Format::B5G6R5_UNORM.decode(&u16::to_le_bytes(0xf800));
        assert_eq!([f(v[0]), f(v[1]), f(v[2])], [1.0, 0.0, 0.0]);
    }

    #[test]
    fn masked_encode_keeps_other_channels() {
        let mut out = [1u8, 2, 3, 4];
        Format::R8G8B8A8_UINT.encode([9, 9, 9, 9], 0b0101, &mut out);
        assert_eq!(out, [9, 2, 9, 4]);
    }

    /// R9G9B9E5_SHAREDEXP decodes `m × 2^(e − 24)` and round-trips exact values.
    #[test]
    fn shared_exponent() {
        let v = rgb_to_shared_exp([1.0, 0.5, 0.0]);
        assert_eq!(shared_exp_to_rgb(v), [1.0, 0.5, 0.0]);
        let d = Format::R9G9B9E5_SHAREDEXP.decode(&v.to_le_bytes());
        assert_eq!(f(d[0]), 1.0);
        assert_eq!(f(d[3]), 1.0);
        assert_eq!(
            shared_exp_to_rgb(rgb_to_shared_exp([65408.0, 0.0, 0.0]))[0],
            65408.0
        );
    }

    /// Block formats read through texture views only (no per-element encoding); typeless
    /// BC formats need a typed view; BC1 sRGB linearises colour, not alpha (§19.5.6).
    #[test]
    fn block_formats_are_texture_readable_only() {
        assert!(Format::BC7_UNORM.is_block_compressed());
        assert!(!Format::BC7_UNORM.is_supported());
        assert!(Format::BC7_UNORM.is_texture_readable());
        assert!(!Format::BC7_TYPELESS.is_texture_readable());
        assert_eq!(Format::BC7_TYPELESS.block_family(), Some(7));
        assert_eq!(Format::BC6H_SF16.channel_type(), ChannelType::Float);
        assert_eq!(Format::BC5_SNORM.channel_type(), ChannelType::SNorm);
        assert_eq!(Format::BC1_UNORM_SRGB.channel_type(), ChannelType::Srgb);
        assert_eq!(Format::BC4_UNORM.component_count(), 1);
        // c0 = white, c1 = black, all codes 0 (white): decodes to 1.0 in both.
        let block = [0xff, 0xff, 0, 0, 0, 0, 0, 0];
        assert_eq!(Format::BC1_UNORM.decode(&block), [1.0f32.to_bits(); 4]);
        assert_eq!(Format::BC1_UNORM_SRGB.decode(&block), [1.0f32.to_bits(); 4]);
        // code 2 of (white, black) is 2/3: linearised in sRGB.
        let block = [0xff, 0xff, 0, 0, 2, 0, 0, 0];
        let lin = f(Format::BC1_UNORM_SRGB.decode_block_texel(&block, 0)[0]);
        assert_eq!(lin, srgb_to_linear(2.0 / 3.0));
        let mut out = [0u8; 8];
        Format::BC1_UNORM.encode([0; 4], 0xf, &mut out);
        assert_eq!(out, [0; 8]);
        assert!(Format::R9G9B9E5_SHAREDEXP.is_supported());
    }

    /// Every typed-UAV format round-trips through encode and decode: stored values read
    /// back as stored and storing what was read changes nothing; UNORM and SNORM stores
    /// saturate and round half away from zero (D3D11.3 §3.2.3.4, §3.2.3.6).
    #[test]
    fn typed_uav_formats_round_trip() {
        let mut n = 0;
        let floats = [
            0.0f32,
            1.0,
            -1.0,
            0.5,
            0.3,
            2.0,
            -7.5,
            f32::NAN,
            1e-3,
            65504.0,
        ];
        let ints = [0u32, 1, 7, 127, 128, 255, 256, 65535, 0x8000_0000, u32::MAX];
        for &fm in Format::ALL {
            let Some(_) = fm.typed_uav() else { continue };
            n += 1;
            assert!(fm.is_supported() && !fm.is_srgb() && !fm.is_depth(), "{fm}");
            let size = fm.bytes_per_texel() as usize;
            for k in 0..floats.len() {
                let v = if fm.is_integer() {
                    [
                        ints[k],
                        ints[(k + 1) % 10],
                        ints[(k + 2) % 10],
                        ints[(k + 3) % 10],
                    ]
                } else {
                    [
                        floats[k],
                        floats[(k + 1) % 10],
                        floats[(k + 2) % 10],
                        floats[(k + 3) % 10],
                    ]
                    .map(f32::to_bits)
                };
                let mut a = vec![0u8; size];
                fm.encode(v, 0xf, &mut a);
                let d = fm.decode(&a);
                let mut b = vec![0u8; size];
                fm.encode(d, 0xf, &mut b);
                assert_eq!(a, b, "{fm} {v:x?}");
                // Decoded values stay in the format's range.
                if fm.channel_type() == ChannelType::UNorm {
                    assert!(d.iter().all(|&x| (0.0..=1.0).contains(&f(x))), "{fm}");
                }
                if fm.channel_type() == ChannelType::SNorm {
                    assert!(d.iter().all(|&x| (-1.0..=1.0).contains(&f(x))), "{fm}");
                }
            }
        }
        assert_eq!(n, 44, "typed UAV formats");
        assert_eq!(Format::R32_UINT.typed_uav(), Some(UavLoad::Required));
        assert_eq!(Format::R8G8B8A8_UNORM_SRGB.typed_uav(), None);
        assert_eq!(Format::BC1_UNORM.typed_uav(), None);
        assert_eq!(Format::R32G32B32_FLOAT.typed_uav(), None);
        // D3D11.3 §3.2.3.6: 0.5 × 255 + 0.5 = 128 (half up); SNORM saturates at ±127.
        let mut b = [0u8; 4];
        Format::R8G8B8A8_UNORM.encode(
            [
                0.5f32.to_bits(),
                2.0f32.to_bits(),
                (-1.0f32).to_bits(),
                f32::NAN.to_bits(),
            ],
            0xf,
            &mut b,
        );
        assert_eq!(b, [128, 255, 0, 0]);
        Format::R8G8B8A8_SNORM.encode(
            [
                (-2.0f32).to_bits(),
                1.0f32.to_bits(),
                (0.5f32).to_bits(),
                (-0.5f32).to_bits(),
            ],
            0xf,
            &mut b,
        );
        assert_eq!(b, [0x81, 0x7f, 64, (-64i8) as u8]);
    }
}

#[cfg(test)]
mod name_tests {
    use super::Format;

    /// A job file's format name is untrusted text: one whose byte 12 falls inside a
    /// multi-byte character is no format, not a panic; the `DXGI_FORMAT_` prefix and
    /// any letter case are still accepted.
    #[test]
    fn from_name_takes_any_text() {
        assert_eq!(Format::from_name("DXGI_FORMAT\u{e9}R8"), None);
        assert_eq!(
            Format::from_name("dxgi_format_r8g8b8a8_unorm"),
            Some(Format::R8G8B8A8_UNORM)
        );
    }
}

/// How an expected value may differ from the actual one (a job's `[[expect]]`, a
/// capture's comparison).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tolerance {
    /// Bit-exact (floats: `-0` ≠ `0`, and NaN matches any NaN only when spelled "NaN").
    #[default]
    Exact,
    /// Floats within this many units in the last place.
    Ulp(u32),
    /// Floats within this absolute difference.
    Abs(f64),
}
