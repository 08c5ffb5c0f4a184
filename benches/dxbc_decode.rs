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

/// This thread's user + system CPU time from `/proc/thread-self/stat` (Linux; fields 14
/// and 15, in clock ticks of 1/100 s, the value of `CLK_TCK` on Linux).
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
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

    // A plain figure in MB/s (10^6 bytes) per second of this thread's CPU time, so that
    // other work on a shared machine does not lower it; wall-clock time beside it.
    let (cpu0, wall0) = (thread_cpu_seconds(), Instant::now());
    let mut rounds = 0u32;
    while wall0.elapsed() < Duration::from_secs(3) {
        black_box(decode_all(black_box(&programs)));
        rounds += 1;
    }
    let wall = wall0.elapsed().as_secs_f64();
    let per_second = |secs: f64| bytes as f64 * f64::from(rounds) / secs / 1e6;
    match (cpu0, thread_cpu_seconds()) {
        (Some(a), Some(b)) if b > a => println!(
            "dxbc_decode: {} programs, {bytes} bytes, {instructions} instructions: {:.0} MB/s of CPU time ({:.1} M instructions/s); {:.0} MB/s wall clock",
            programs.len(),
            per_second(b - a),
            instructions as f64 * f64::from(rounds) / (b - a) / 1e6,
            per_second(wall)
        ),
        _ => println!(
            "dxbc_decode: {} programs, {bytes} bytes: {:.0} MB/s wall clock",
            programs.len(),
            per_second(wall)
        ),
    }

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
