//! `dxlane info --check`: PSV0 and SFI0 against the DXIL module
//! (`dxlane::dxil::check`). Every corpus DXIL program passes; a DXBC container has
//! nothing to check; each PSV0 field corrupted on its own is reported by name with
//! both values.

use std::process::Command;

use dxlane::container::{Container, FourCc};
use dxlane::dxil::check::{CheckReport, Checked, check};

use crate::common;

fn report(bytes: &[u8]) -> CheckReport {
    match check(bytes).expect("check") {
        Checked::Dxil(r) => r,
        Checked::NotDxil => panic!("not a DXIL program"),
    }
}

/// Seed `000_…`: every check holds in every container of the two games; the corpus
/// programs (dxc 1.7.2308) must pass all of them.
#[test]
fn every_corpus_program_passes() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    let mut compared = 0usize;
    for f in &files {
        let r = report(&std::fs::read(f).unwrap());
        compared += r.compared;
        for m in &r.mismatches {
            failures.push(format!(
                "{}: {}: module {}, part {}",
                common::display_name(f),
                m.field,
                m.module,
                m.part
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} DXIL programs checked, {compared} values compared",
        files.len()
    );
    // The corpora hold 156 dxc-compiled DXIL programs (README): all must be checked.
    if !common::corpora().is_empty() {
        assert!(
            files.len() >= 156,
            "only {} DXIL programs found",
            files.len()
        );
    }
}

fn program(name: &str) -> Option<Vec<u8>> {
    let f = common::dxil_programs()
        .into_iter()
        .find(|p| common::display_name(p) == name)?;
    Some(std::fs::read(f).unwrap())
}

/// The command: exit 0 and "all hold" for a good program, 1 and the mismatch for a
/// corrupted one, 0 and "not a DXIL program" for a DXBC container.
#[test]
fn command_exit_status() {
    let Some(bytes) = program("dxil-reader/compute_basic.dxil") else {
        eprintln!("no corpora: skipped");
        return;
    };
    let dir = common::target_dir().join("info-check");
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.dxil");
    std::fs::write(&good, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["info", "--check"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 mismatches: all hold"));

    let (at, _) = field_offsets(&bytes).thread_group;
    let mut bad = bytes.clone();
    bad[at] ^= 0x10;
    let badf = dir.join("bad.dxil");
    std::fs::write(&badf, &bad).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["info", "--check"])
        .arg(&badf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("mismatch: PSV0 thread group"), "{text}");

    if let Some(f) = common::dxbc_programs().into_iter().next() {
        let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(["info", "--check"])
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("no PSV0 / not a DXIL program"));
    }
}

/// Byte offsets (in the container) of PSV0 fields, from the layout of seed `000_…`
/// ("Pipeline-state record"): runtime info size at 0, stage words at 4, wave lanes at
/// 0x14, stage byte at 0x1C, thread group at 0x28; after the runtime info the
/// resource count, record size and records (type, space, lower, upper, kind, flags);
/// then the string table, semantic-index table, element size and 16-byte elements
/// (name, index offset, rows, start row, columns/start column, kind, component type,
/// interpolation, …).
struct Offsets {
    thread_group: (usize, &'static str),
    stage_words: usize,
    wave_min: usize,
    stage: usize,
    /// First resource record, and its size.
    resources: Option<(usize, usize)>,
    /// First signature element.
    elements: Option<usize>,
}

fn field_offsets(bytes: &[u8]) -> Offsets {
    let c = Container::parse(bytes).unwrap();
    let p = c.part(FourCc(*b"PSV0")).unwrap();
    let base = p.data_offset() as usize;
    let d = p.data;
    let u32_at = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap()) as usize;
    let info = u32_at(0);
    let mut at = 4 + info;
    let count = u32_at(at);
    at += 4;
    let mut resources = None;
    if count > 0 {
        let size = u32_at(at);
        at += 4;
        resources = Some((base + at, size));
        at += count * size;
    }
    let mut elements = None;
    if info >= 36 {
        let strings = u32_at(at);
        at += 4 + strings;
        let indices = u32_at(at);
        at += 4 + indices * 4;
        // The element size is present only when the program has elements.
        if at + 4 <= d.len() && u32_at(at) == 16 && at + 4 + 16 <= d.len() {
            elements = Some(base + at + 4);
        }
    }
    Offsets {
        thread_group: (base + 0x28, "PSV0 thread group"),
        stage_words: base + 4,
        wave_min: base + 0x14,
        stage: base + 0x1C,
        resources,
        elements,
    }
}

/// Corrupts one byte and expects the named field among the mismatches, stating the
/// corrupted value as the part's.
fn expect_mismatch(bytes: &[u8], at: usize, value: u8, field: &str) {
    let mut b = bytes.to_vec();
    assert_ne!(b[at], value, "{field}: corruption must change the byte");
    b[at] = value;
    let r = report(&b);
    assert!(
        r.mismatches.iter().any(|m| m.field == field),
        "{field} not reported; got {:?}",
        r.mismatches
    );
}

#[test]
fn each_corrupted_psv0_field_is_reported() {
    let (Some(cs), Some(hs), Some(ps)) = (
        program("dxil-reader/compute_basic.dxil"),
        program("dxil-reader/tessellation.hs.dxil"),
        program("dxil-reader/flow.dxil"),
    ) else {
        eprintln!("no corpora: skipped");
        return;
    };
    // Runtime info.
    let o = field_offsets(&cs);
    expect_mismatch(&cs, o.thread_group.0, 7, o.thread_group.1);
    expect_mismatch(&cs, o.thread_group.0 + 4, 9, "PSV0 thread group");
    expect_mismatch(&cs, o.wave_min, 4, "PSV0 wave lane range");
    expect_mismatch(&cs, o.stage, 0, "PSV0 shader stage");
    // Resource records: type, space, lower bound, upper bound, kind, flags.
    let (r0, size) = o.resources.expect("compute_basic has resources");
    assert_eq!(size, 24);
    for (delta, field) in [
        (0, "PSV0 resource 0 type"),
        (4, "PSV0 resource 0 space"),
        (8, "PSV0 resource 0 lower bound"),
        (12, "PSV0 resource 0 upper bound"),
        (16, "PSV0 resource 0 kind"),
        (20, "PSV0 resource 0 flags"),
    ] {
        let v = cs[r0 + delta].wrapping_add(3);
        expect_mismatch(&cs, r0 + delta, v, field);
    }
    // Hull stage words: input and output control points, domain, output primitive.
    let h = field_offsets(&hs);
    for (k, field) in [
        (0, "PSV0 hull input control points"),
        (1, "PSV0 hull output control points"),
        (2, "PSV0 hull tessellator domain"),
        (3, "PSV0 hull output primitive"),
    ] {
        let at = h.stage_words + 4 * k;
        expect_mismatch(&hs, at, hs[at] ^ 1, field);
    }
    // Signature element 0 of the pixel program: start row, placement byte, kind,
    // component type, interpolation.
    let p = field_offsets(&ps);
    let e0 = p.elements.expect("flow has elements");
    expect_mismatch(
        &ps,
        e0 + 9,
        ps[e0 + 9] + 5,
        "PSV0 input element 0 start row",
    );
    expect_mismatch(
        &ps,
        e0 + 10,
        ps[e0 + 10] ^ 0x10,
        "PSV0 input element 0 start column",
    );
    expect_mismatch(&ps, e0 + 11, 5, "PSV0 input element 0 semantic kind");
    expect_mismatch(&ps, e0 + 12, 1, "PSV0 input element 0 component type");
    expect_mismatch(&ps, e0 + 13, 2, "PSV0 input element 0 interpolation mode");
    expect_mismatch(&ps, e0 + 14, 3, "PSV0 input element 0 dynamic index mask");
    // Pixel stage bytes: depth output, sample frequency.
    expect_mismatch(&ps, p.stage_words, 1, "PSV0 pixel depth output");
    expect_mismatch(&ps, p.stage_words + 1, 1, "PSV0 pixel sample frequency");
}

/// Seed `000_…`: SFI0's bit 14 is set exactly when the module calls a wave or quad
/// operation; clearing it in a wave program, or setting it in another, is reported.
#[test]
fn sfi0_bits_are_checked_both_ways() {
    let (Some(wave), Some(plain)) = (
        program("dxcontainer/features/wave.dxil"),
        program("dxil-reader/flow.dxil"),
    ) else {
        eprintln!("no corpora: skipped");
        return;
    };
    let at = |b: &[u8]| {
        let c = Container::parse(b).unwrap();
        c.part(FourCc(*b"SFI0")).unwrap().data_offset() as usize
    };
    let field = "SFI0 bit 14 (WaveOps)";
    for (bytes, flip) in [(wave, 0x40u8), (plain, 0x40)] {
        let mut b = bytes.clone();
        let o = at(&b) + 1; // bit 14 is bit 6 of byte 1
        b[o] ^= flip;
        let r = report(&b);
        assert!(
            r.mismatches.iter().any(|m| m.field == field),
            "{field} not reported: {:?}",
            r.mismatches
        );
    }
}

/// SM 6.8's ranged `[WaveSize(min, max, preferred)]` (entry property tag 23, DXC
/// `kDxilRangedWaveSizeTag`): PSV0's wave lane range must be its min and max (DXC
/// `SetShaderProps`, compute case). The corpus program states `[WaveSize(32)]` (tag
/// 11) and its PSV0 32..32; read as if it stated `[WaveSize(16, 64, 32)]`, the check
/// reports the range with the rule that names tag 23.
#[test]
fn ranged_wave_size_is_checked_against_psv0() {
    use dxlane::container::DxilProgramHeader;
    use dxlane::dxil::check::check_decoded;
    use dxlane::dxil::llvm::Module;
    use dxlane::dxil::meta::{DxilMetadata, Property};
    let bytes = program("dxil-reader/wave_size.cs.dxil").expect("wave_size.cs.dxil in the corpora");
    let c = Container::parse(&bytes).unwrap();
    let (h, bitcode) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
    let m = Module::parse(bitcode).unwrap();
    let mut meta = DxilMetadata::read(&m).unwrap();
    let kind = h.version.kind;
    assert_eq!(
        meta.entry_points[0].wave_size().unwrap().to_string(),
        "[WaveSize(32)]"
    );
    assert!(check_decoded(&c, kind, &m, &meta).passed());
    for (tag, p) in meta.entry_points[0].properties.iter_mut() {
        if let Property::WaveSize(_) = p {
            *tag = 23;
            *p = Property::RangedWaveSize(vec![16, 64, 32]);
        }
    }
    assert_eq!(
        meta.entry_points[0].wave_size().unwrap().to_string(),
        "[WaveSize(16, 64, 32)]"
    );
    let r = check_decoded(&c, kind, &m, &meta);
    assert_eq!(r.mismatches.len(), 1, "{:?}", r.mismatches);
    let x = &r.mismatches[0];
    assert_eq!(
        (x.field.as_str(), x.module.as_str(), x.part.as_str()),
        ("PSV0 wave lane range", "16..64", "32..32")
    );
    assert!(x.rule.contains("tag 23"), "{}", x.rule);
}

/// `dxlane info` lists an entry point's `[WaveSize]` (HLSL's spelling).
#[test]
fn info_lists_the_wave_size() {
    let f = common::dxil_programs()
        .into_iter()
        .find(|p| common::display_name(p) == "dxil-reader/wave_size.cs.dxil")
        .expect("wave_size.cs.dxil in the corpora");
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .arg("info")
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("DXIL entry points:\n  main: [WaveSize(32)]"),
        "{text}"
    );
}
