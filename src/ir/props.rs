//! The types of the instruction table's property columns.
//!
//! Every row of the table in `inst.rs` states each property (its module doc lists the
//! columns); the predicates the rest of the crate asks ([`Inst::effects`],
//! [`Inst::lanes`], [`Inst::result_type`], [`Inst::profile_rules`], [`Inst::handles`],
//! [`Inst::pairs`]) are derived from the rows, so a new instruction cannot be added
//! without deciding them. A property that depends on an operand (a sample's mode, a wave
//! operation's type, a memory access's width) is written in its row as a condition on
//! that field.
//!
//! Owns: the property types, and the test pinning every instruction's properties
//! (`tests/snapshots/ir/properties.txt`). Does not own what the native engine compiles:
//! that is the engine's decision, an exhaustive `match` in `exec::jit::select`.

#[cfg(doc)]
use super::Inst;
use super::ids::Reg;

/// Which lanes' values an instruction reads besides its own.
///
/// A program without [`Lanes::Quad`] or [`Lanes::Wave`] instructions gives the same
/// results whichever lanes share a wave, so the pipeline may run more threads side by
/// side than a wave holds; one without [`Lanes::Wave`] ones needs only its quads kept
/// together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// Only its own lane's registers.
    Own,
    /// The other lanes of its quad: derivatives (and the sampling that takes them),
    /// quad reads, swaps and votes.
    Quad,
    /// Any lane of its wave, or the wave's shape (lane index, lane count).
    Wave,
}

/// The type an instruction gives the registers it writes, as the debugger prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Bits whose type the instruction does not say (copies, loads, stores, handles).
    Bits,
    /// 32-bit floats.
    F32,
    /// Signed 32-bit integers.
    I32,
    /// Unsigned 32-bit integers.
    U32,
    /// Booleans (`0` or `0xffff_ffff`).
    Bool,
    /// Doubles (register pairs).
    F64,
    /// 64-bit integers (register pairs).
    I64,
}

/// The WARP-release-dependent rules (the fields of `exec::Profile`) an instruction's
/// result depends on: the rules a capture made under another profile can differ by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProfileRules(u8);

impl ProfileRules {
    /// No profile rule.
    pub const NONE: ProfileRules = ProfileRules(0);
    /// Whether a multiply-add is fused (`Profile::fuse_mad`).
    pub const FUSE_MAD: ProfileRules = ProfileRules(1);
    /// What a read of an inactive lane gives (`Profile::wave_read_inactive_zero`).
    pub const WAVE_READ_INACTIVE: ProfileRules = ProfileRules(2);
    /// How 16-bit float results round and which NaN they give (`Profile::f16`).
    pub const F16: ProfileRules = ProfileRules(4);
    /// Whether fp32 denormals are flushed (`Profile::fp32_denormals`).
    pub const FP32_DENORMALS: ProfileRules = ProfileRules(8);

    /// Both sets.
    pub const fn union(self, other: ProfileRules) -> ProfileRules {
        ProfileRules(self.0 | other.0)
    }

    /// Whether every rule of `other` is in the set.
    pub const fn contains(self, other: ProfileRules) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set when `cond` holds, else the empty set.
    pub const fn when(self, cond: bool) -> ProfileRules {
        if cond { self } else { ProfileRules::NONE }
    }
}

/// The register operands of an instruction that hold 64-bit pairs although the table
/// gives them a 32-bit role, because their width comes from another field (a memory
/// access's `width`, a wave operation's type or `wide` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairs<'a> {
    /// Whether every register it writes is the first of a pair.
    pub writes: bool,
    /// The read registers that are the first of a pair ([`Reg::NONE`] entries included).
    pub reads: &'a [Reg],
}

impl Pairs<'_> {
    /// No operand is widened.
    pub const NONE: Pairs<'static> = Pairs {
        writes: false,
        reads: &[],
    };
}

/// A register operand as the registers it names, for [`Pairs::reads`].
pub(crate) trait AsRegs {
    /// The registers, in field order.
    fn as_regs(&self) -> &[Reg];
}

impl AsRegs for Reg {
    fn as_regs(&self) -> &[Reg] {
        std::slice::from_ref(self)
    }
}

impl<const N: usize> AsRegs for [Reg; N] {
    fn as_regs(&self) -> &[Reg] {
        self
    }
}

/// A field value for [`Inst::examples`](super::Inst): the instructions the property tests
/// walk.
#[cfg(test)]
pub(crate) trait Example: Sized {
    /// A value, its registers numbered from `next` on (and `next` moved past them).
    fn example(next: &mut u32) -> Self;
    /// The other values worth trying: every value of an enum or flag.
    fn others() -> Vec<Self> {
        Vec::new()
    }
}

#[cfg(test)]
impl Example for Reg {
    fn example(next: &mut u32) -> Self {
        *next += 1;
        Reg(*next - 1)
    }
}

#[cfg(test)]
impl<const N: usize> Example for [Reg; N] {
    fn example(next: &mut u32) -> Self {
        std::array::from_fn(|_| Reg::example(next))
    }
}

#[cfg(test)]
impl<const N: usize> Example for Box<[Reg; N]> {
    fn example(next: &mut u32) -> Self {
        Box::new(<[Reg; N]>::example(next))
    }
}

#[cfg(test)]
impl Example for bool {
    fn example(_: &mut u32) -> Self {
        false
    }
    fn others() -> Vec<Self> {
        vec![true]
    }
}

#[cfg(test)]
macro_rules! plain_example {
    ($($t:ty = $v:expr),*) => {$(
        impl Example for $t {
            fn example(_: &mut u32) -> Self {
                $v
            }
        }
    )*};
}
#[cfg(test)]
plain_example!(
    u8 = 1,
    u32 = 1,
    [i8; 3] = [0; 3],
    super::ids::LocalId = super::ids::LocalId(0),
    super::ids::ConstId = super::ids::ConstId(0),
    super::ids::RangeId = super::ids::RangeId(0)
);

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::super::Inst;
    use super::*;

    /// Where the pinned properties are kept.
    const PINNED: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/ir/properties.txt"
    );

    fn regs(rs: &[Reg]) -> String {
        let rs: Vec<String> = rs
            .iter()
            .filter(|r| !r.is_none())
            .map(|r| r.to_string())
            .collect();
        if rs.is_empty() {
            "-".into()
        } else {
            rs.join(",")
        }
    }

    /// One line per example instruction: each column's value, then the instruction.
    fn table() -> String {
        let mut out = String::from(
            "# effects lanes result rules handles pairs(w: writes, then wide reads) | instruction\n",
        );
        for i in Inst::examples() {
            let rules = i.profile_rules();
            let names: Vec<&str> = [
                (ProfileRules::FUSE_MAD, "fuse_mad"),
                (ProfileRules::WAVE_READ_INACTIVE, "wave_read_inactive"),
                (ProfileRules::F16, "f16"),
                (ProfileRules::FP32_DENORMALS, "fp32_denormals"),
            ]
            .iter()
            .filter(|(r, _)| rules.contains(*r))
            .map(|(_, n)| *n)
            .collect();
            let rules = if names.is_empty() {
                "-".into()
            } else {
                names.join(",")
            };
            let pairs = i.pairs();
            let pairs = format!(
                "{}{}",
                if pairs.writes { "w:" } else { "" },
                regs(pairs.reads)
            );
            let line = format!(
                "{} {:?} {:?} {} {} {}",
                if i.effects() { "yes" } else { "no" },
                i.lanes(),
                i.result_type(),
                rules,
                regs(&i.handles()),
                pairs,
            );
            let _ = writeln!(out, "{line:<60} | {i}");
        }
        out
    }

    /// Every instruction's properties as pinned in `tests/snapshots/ir/properties.txt`
    /// (first written from the classifiers the table's columns replaced, so it holds
    /// their answers; a new instruction's line is added with `DXLANE_BLESS=1`, and the
    /// diff is where its properties are reviewed).
    #[test]
    fn every_instruction_has_its_pinned_properties() {
        let got = table();
        if std::env::var_os("DXLANE_BLESS").is_some() {
            std::fs::write(PINNED, &got).expect("writing the pinned properties");
            return;
        }
        let want = std::fs::read_to_string(PINNED).expect("reading the pinned properties");
        assert!(
            got.lines().count() > Inst::MNEMONICS.len(),
            "every instruction has a line"
        );
        for (k, (w, g)) in want.lines().zip(got.lines()).enumerate() {
            assert_eq!(w, g, "line {} differs (DXLANE_BLESS=1 rewrites it)", k + 1);
        }
        assert_eq!(
            want.lines().count(),
            got.lines().count(),
            "as many lines as examples (DXLANE_BLESS=1 rewrites them)"
        );
    }

    /// Each operand-dependent column follows its field: a sample's mode, a wave
    /// operation's type, an access's width, a `wide` flag.
    #[test]
    fn operand_dependent_columns_follow_their_field() {
        use super::super::{SampleMode, WaveTy, Width};
        let examples = Inst::examples();
        let find = |f: &dyn Fn(&Inst) -> bool| examples.iter().find(|i| f(i)).unwrap();
        let sample =
            |m: SampleMode| find(&|i| matches!(i, Inst::Sample { mode, .. } if *mode == m));
        assert_eq!(sample(SampleMode::Implicit).lanes(), Lanes::Quad);
        assert_eq!(sample(SampleMode::Level).lanes(), Lanes::Own);
        let reduce = |t: WaveTy| find(&|i| matches!(i, Inst::WaveReduce { ty, .. } if *ty == t));
        assert!(
            reduce(WaveTy::F16)
                .profile_rules()
                .contains(ProfileRules::F16)
        );
        assert!(reduce(WaveTy::F32).profile_rules().is_empty());
        assert!(reduce(WaveTy::U64).pairs().writes);
        assert!(!reduce(WaveTy::U32).pairs().writes);
        let load = |w: Width| find(&|i| matches!(i, Inst::RawLoad { width, .. } if *width == w));
        assert!(load(Width::B64).pairs().writes);
        assert!(!load(Width::B32).pairs().writes);
        let read = |w: bool| find(&|i| matches!(i, Inst::WaveReadLane { wide, .. } if *wide == w));
        let Inst::WaveReadLane { src, .. } = read(true) else {
            unreachable!()
        };
        assert_eq!(read(true).pairs().reads, &[*src]);
        assert_eq!(read(false).pairs(), Pairs::NONE);
    }
}
