#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! DXIL decode throughput: container + DXIL program header + LLVM module + `dx.op`
//! calls + metadata, in MB/s of containers, over the corpus programs
//! (`tools/fetch-corpora.sh`). A second group times the bitstream walk alone, so the
//! share spent in the bitstream layer can be read off.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::{bitstream, dxop, llvm::Module, meta::DxilMetadata};

fn corpus() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("bash")
        .arg(root.join("tools/fetch-corpora.sh"))
        .output()
        .expect("fetch corpora");
    let mut files: Vec<PathBuf> = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                out.push(p);
            }
        }
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        walk(Path::new(line), &mut files);
    }
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect()
}

fn bitcode(c: &[u8]) -> &[u8] {
    let c = Container::parse(c).expect("container");
    let part = *c.part(FourCc::DXIL).expect("DXIL part");
    DxilProgramHeader::parse(&part).expect("header").1
}

fn full(c: &[u8]) -> usize {
    let container = Container::parse(c).expect("container");
    let part = container.part(FourCc::DXIL).expect("DXIL part");
    let (_, bc) = DxilProgramHeader::parse(part).expect("header");
    let m = Module::parse(bc).expect("module");
    let calls = dxop::decode_all(&m).expect("dx.op");
    let md = DxilMetadata::read(&m).expect("metadata");
    calls.len() + md.entry_points.len()
}

fn walk_bitstream(bc: &[u8]) -> usize {
    let mut bs = bitstream::Bitstream::new(bc).expect("bitstream");
    let mut n = 0usize;
    loop {
        match bs.next_entry().expect("entry") {
            bitstream::Entry::Eof => return n,
            bitstream::Entry::Record(r) => n += r.ops.len(),
            _ => n += 1,
        }
    }
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    assert!(
        !files.is_empty(),
        "no corpus programs (tools/fetch-corpora.sh)"
    );
    let total: usize = files.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("dxil_decode");
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("container+module+dxop+metadata", |b| {
        b.iter(|| files.iter().map(|f| full(f)).sum::<usize>())
    });
    let bcs: Vec<&[u8]> = files.iter().map(|f| bitcode(f)).collect();
    g.bench_function("bitstream_walk_only", |b| {
        b.iter(|| bcs.iter().map(|bc| walk_bitstream(bc)).sum::<usize>())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = bench
}
criterion_main!(benches);
