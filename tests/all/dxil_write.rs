//! The bitcode writer against the corpora: every DXIL module read, written and read
//! again is the same module, disassembles to the same listing, and (a sample) is
//! accepted by `llvm-dis` as the original is.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::listing::disassemble;
use dxlane::dxil::llvm::Module;
use dxlane::dxil::llvm::write::write_module;

use crate::common;
use crate::dxil::bitcode;

/// The module without the reader's bookkeeping: bit offsets (they depend on the
/// encoding, and the writer abbreviates nothing) and the stated type count (the writer
/// states every type, the ones the reader added to the table included).
fn normalized(mut m: Module) -> Module {
    m.stated_type_count = 0;
    for g in &mut m.globals {
        g.bit = 0;
    }
    for f in &mut m.functions {
        f.bit = 0;
        if let Some(b) = &mut f.body {
            b.bit = 0;
            for i in &mut b.instructions {
                i.bit = 0;
            }
            for u in &mut b.uselists {
                u.bit = 0;
                u.abbrev = None;
            }
        }
    }
    for u in &mut m.uselists {
        u.bit = 0;
        u.abbrev = None;
    }
    m
}

/// `bytes` with its DXIL part's bitcode replaced by `bc` (every other part kept).
fn with_bitcode(bytes: &[u8], bc: &[u8]) -> Vec<u8> {
    let c = Container::parse(bytes).unwrap();
    let (h, _) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
    let program = dxil_part(h.version, h.dxil_version_pair(), bc).unwrap();
    let parts: Vec<(FourCc, &[u8])> = c
        .parts
        .iter()
        .map(|p| {
            if p.tag == FourCc::DXIL {
                (p.tag, program.as_slice())
            } else {
                (p.tag, p.data)
            }
        })
        .collect();
    write_container(&parts).unwrap()
}

#[test]
fn every_corpus_module_round_trips() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    let mut listings = 0usize;
    let (mut dxc_bytes, mut our_bytes) = (0usize, 0usize);
    for f in &files {
        let name = common::display_name(f);
        let bytes = std::fs::read(f).unwrap();
        let bc = bitcode(&bytes);
        dxc_bytes += bc.len();
        let m = Module::parse(&bc).unwrap();
        let written = match write_module(&m) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{name}: write: {e}"));
                continue;
            }
        };
        our_bytes += written.len();
        let back = match Module::parse(&written) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: read back: {e}"));
                continue;
            }
        };
        // Writing what was read back gives the same bytes: the writer is a fixpoint.
        if write_module(&back).as_deref() != Ok(written.as_slice()) {
            failures.push(format!("{name}: writing the read-back module differs"));
        }
        let (a, b) = (normalized(m), normalized(back));
        if a != b {
            failures.push(format!("{name}: {}", first_difference(&a, &b)));
            continue;
        }
        let rebuilt = with_bitcode(&bytes, &written);
        match (disassemble(&bytes), disassemble(&rebuilt)) {
            (Ok(x), Ok(y)) if x == y => listings += 1,
            (Ok(_), Ok(_)) => failures.push(format!("{name}: the listings differ")),
            (Err(_), _) => {} // the original does not list either (checked elsewhere)
            (Ok(_), Err(e)) => failures.push(format!("{name}: the rebuilt container: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} modules did not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} DXIL modules round-trip (read, write, read: equal modules); {listings} equal listings; \
         {dxc_bytes} bytes of bitcode as dxc wrote it, {our_bytes} as written here",
        files.len()
    );
}

/// A short description of where two modules first differ.
fn first_difference(a: &Module, b: &Module) -> String {
    if a.types != b.types {
        return "type tables differ".into();
    }
    if a.values != b.values {
        let i = a.values.iter().zip(&b.values).position(|(x, y)| x != y);
        return format!("module values differ (first at {i:?})");
    }
    if a.metadata != b.metadata || a.named_metadata != b.named_metadata {
        return "metadata differs".into();
    }
    if a.globals != b.globals {
        return "globals differ".into();
    }
    for (f, g) in a.functions.iter().zip(&b.functions) {
        if f != g {
            if let (Some(x), Some(y)) = (&f.body, &g.body) {
                if let Some(k) = x
                    .instructions
                    .iter()
                    .zip(&y.instructions)
                    .position(|(p, q)| p != q)
                {
                    return format!(
                        "@{} instruction {k}: {:?} vs {:?}",
                        f.name, x.instructions[k], y.instructions[k]
                    );
                }
                if x.values != y.values {
                    return format!("@{}: local values differ", f.name);
                }
            }
            return format!("function @{} differs", f.name);
        }
    }
    "modules differ".into()
}

#[test]
fn llvm_dis_reads_written_modules_as_it_reads_the_originals() {
    let Some(dis) = common::llvm_dis("the llvm-dis check of written bitcode") else {
        return;
    };
    let dir = common::target_dir().join("dxil-write-llvm-dis");
    std::fs::create_dir_all(&dir).unwrap();
    let files = common::dxil_programs();
    // Every fifth module: the sample spans the corpora without running llvm-dis on
    // all of them twice.
    let (mut both, mut neither, mut failures) = (0usize, 0usize, Vec::new());
    for (k, f) in files.iter().enumerate().step_by(5) {
        let name = common::display_name(f);
        let bc = bitcode(&std::fs::read(f).unwrap());
        let written = write_module(&Module::parse(&bc).unwrap()).unwrap();
        let mut ok = [false; 2];
        for (j, bytes) in [&bc, &written].into_iter().enumerate() {
            let path = dir.join(format!("{k}.{j}.bc"));
            std::fs::write(&path, bytes).unwrap();
            let out = std::process::Command::new(&dis)
                .arg("-o")
                .arg("-")
                .arg(&path)
                .output()
                .expect("run LLVM_DIS");
            ok[j] = out.status.success();
            if j == 1 && ok[0] && !ok[1] {
                failures.push(format!(
                    "{name}: {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .next()
                        .unwrap_or("")
                ));
            }
        }
        match ok {
            [true, true] => both += 1,
            [false, false] => neither += 1,
            [false, true] => {}
            [true, false] => {}
        }
    }
    assert!(
        failures.is_empty(),
        "llvm-dis refused written modules it accepts as dxc wrote them:\n{}",
        failures.join("\n")
    );
    eprintln!("llvm-dis: {both} sampled modules read in both forms, {neither} in neither");
}

/// Mutated corpus bitcode: whatever the reader accepts, the writer writes and the reader
/// reads back as the same module (the property the `dxil_module` fuzz target checks on
/// any input). Deterministic: a fixed generator picks the bytes.
#[test]
fn mutated_modules_the_reader_accepts_round_trip() {
    let files = common::dxil_programs();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut tried, mut accepted, mut failures) = (0usize, 0usize, Vec::new());
    for f in files.iter().step_by(4) {
        let bc = bitcode(&std::fs::read(f).unwrap());
        for _ in 0..24 {
            let mut m = bc.clone();
            // Past the magic: one to three bytes set to random values.
            for _ in 0..1 + next() % 3 {
                let at = 4 + (next() as usize) % (m.len() - 4);
                m[at] = next() as u8;
            }
            tried += 1;
            let Ok(module) = Module::parse(&m) else {
                continue;
            };
            accepted += 1;
            let result = write_module(&module)
                .map_err(|e| format!("write: {e}"))
                .and_then(|w| Module::parse(&w).map_err(|e| format!("read back: {e}")))
                .and_then(|back| {
                    let (a, b) = (normalized(module.clone()), normalized(back));
                    if a == b {
                        Ok(())
                    } else {
                        Err(first_difference(&a, &b))
                    }
                });
            if let Err(e) = result {
                failures.push(format!("{}: {e}", common::display_name(f)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} accepted mutants did not round-trip:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{tried} mutated modules, {accepted} accepted by the reader, all round-trip");
}

/// A container of nothing but a `DXIL` part around the rewritten bitcode (what the
/// writers make of a module) loads as the original does: every corpus program, and
/// every export of every library, lowers to the same IR from both (or both are refused
/// with the same message). So a written module is a program a job can run.
#[test]
fn a_dxil_part_alone_lowers_as_the_original_container() {
    use dxlane::lower::{LoadOptions, library_exports, load};
    let files = common::dxil_programs();
    let (mut same, mut failures) = (0usize, Vec::new());
    for f in &files {
        let name = common::display_name(f);
        let bytes = std::fs::read(f).unwrap();
        let c = Container::parse(&bytes).unwrap();
        let (h, bc) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        let written = write_module(&Module::parse(bc).unwrap()).unwrap();
        let part = dxil_part(h.version, h.dxil_version_pair(), &written).unwrap();
        let alone = write_container(&[(FourCc::DXIL, &part)]).unwrap();
        let mut entries = vec![None];
        if let Ok((_, exports)) = library_exports(&bytes) {
            entries.extend(exports.into_iter().map(|e| Some(e.name)));
        }
        for entry in entries {
            let opts = LoadOptions {
                entry: entry.clone(),
                ..LoadOptions::default()
            };
            let ir = |b: &[u8]| {
                load(b, &opts)
                    .map(|l| l.shader.to_string())
                    .map_err(|e| e.to_string())
            };
            if ir(&bytes) == ir(&alone) {
                same += 1;
            } else {
                failures.push(format!("{name} (entry {entry:?})"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "lowered differently from a DXIL part alone:\n{}",
        failures.join("\n")
    );
    eprintln!("{same} programs and library exports lower alike from a DXIL part alone");
}
