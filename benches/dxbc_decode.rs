//! DXBC decode throughput: container parse plus full token-program decode of every DXBC
//! program (the project's `shaders/` and the public corpora that `tools/fetch-corpora.sh`
//! links under `target/corpora/`), in MB/s of container bytes on one core.
//!
//!     cargo bench --bench dxbc_decode
//!
//! The listing is measured separately, as it is not part of decoding.

// criterion's macros generate undocumented functions.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dxlane::container::Container;
use dxlane::dxbc::{Program, listing};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "dxbc") {
            out.push(p);
        }
    }
}

/// The programs: `shaders/` and the corpus folders printed by `tools/fetch-corpora.sh`.
fn programs() -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    collect(&root.join("shaders"), &mut paths);
    match std::process::Command::new("bash")
        .arg(root.join("tools/fetch-corpora.sh"))
        .output()
    {
        Ok(out) if out.status.success() => {
            for dir in String::from_utf8_lossy(&out.stdout).lines() {
                collect(Path::new(dir), &mut paths);
            }
        }
        _ => eprintln!("dxbc_decode: tools/fetch-corpora.sh failed; measuring shaders/ only"),
    }
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn decode_all(programs: &[Vec<u8>]) -> usize {
    let mut instructions = 0;
    for bytes in programs {
        let container = Container::parse(bytes).expect("container");
        let program = Program::from_container(&container).expect("program");
        instructions += program.instructions.len();
    }
    instructions
}

fn bench(c: &mut Criterion) {
    let programs = programs();
    let bytes: usize = programs.iter().map(Vec::len).sum();
    let instructions = decode_all(&programs);

    // A plain figure for the report, measured before criterion's own runs.
    let start = Instant::now();
    let mut rounds = 0u32;
    while start.elapsed() < Duration::from_secs(1) {
        black_box(decode_all(black_box(&programs)));
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "dxbc_decode: {} programs, {bytes} bytes, {instructions} instructions: {:.0} MB/s ({:.1} M instructions/s)",
        programs.len(),
        bytes as f64 * f64::from(rounds) / secs / 1e6,
        instructions as f64 * f64::from(rounds) / secs / 1e6
    );

    let mut group = c.benchmark_group("dxbc");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("container_and_decode", |b| {
        b.iter(|| decode_all(black_box(&programs)))
    });
    let decoded: Vec<Program> = programs
        .iter()
        .map(|p| Program::from_bytes(p).expect("program"))
        .collect();
    group.bench_function("listing", |b| {
        b.iter(|| {
            decoded
                .iter()
                .map(|p| listing(black_box(p)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
