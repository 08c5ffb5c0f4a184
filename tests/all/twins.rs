//! Differential: one HLSL program compiled to DXBC and to DXIL must give identical outputs.
//!
//! Twins come from two places:
//! - the corpora's own pairs, fxc and dxc builds of one source (`dxcontainer/features`
//!   `*.cs_5_0.dxbc` beside `*.dxil`; `dxbc-reader` and `dxil-reader` fixtures of the same
//!   name and source);
//! - when `VKD3D_COMPILER` is set, the `dxil-reader` compute sources compiled here to
//!   cs_5_0 DXBC by vkd3d (into `target/twins/`, not the repository), where Shader Model 5
//!   can express them (vkd3d refuses wave operations, 64-bit integers, append buffers, the
//!   descriptor heap, and non-uniform resource indexing; those are counted as skipped).
//!
//! Both programs get the same bindings, built from their declarations by register with
//! deterministic pseudo-random contents (small values, so indices stay mostly in range),
//! run over the same groups, and every UAV must end bit-identical.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dxlane::ir::{ComponentType, ResourceClass, ResourceKind, Shader};
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::{Bindings, Plan, dispatch};
use dxlane::resources::{
    BufferKind, BufferView, Counter, Descriptor, Format, Memory, SamplerDesc, Texture, TextureDesc,
    TextureDim, TextureView,
};

use crate::common;

/// A binding's register: class, space, register number.
type Key = (ResourceClass, u32, u32);

/// Both twins' bindings, and the UAV memories of each by register.
type Bound = (Bindings, Bindings, BTreeMap<Key, (Memory, Memory)>);

/// SplitMix64, seeded by the register, so both twins see the same data.
fn fill(key: Key, bytes: usize) -> Vec<u8> {
    let mut state = (key.0 as u64) << 48 ^ u64::from(key.1) << 32 ^ u64::from(key.2) ^ 0x5eed;
    (0..bytes / 4)
        .flat_map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (((z ^ (z >> 31)) % 64) as u32).to_le_bytes()
        })
        .collect()
}

fn texture_format(c: ComponentType) -> Format {
    let name = match c {
        ComponentType::SInt => "R32_SINT",
        ComponentType::UInt | ComponentType::Mixed | ComponentType::Double => "R32_UINT",
        _ => "R32_FLOAT",
    };
    Format::from_name(name).unwrap()
}

fn buffer_format(c: ComponentType) -> Format {
    let name = match c {
        ComponentType::SInt => "R32G32B32A32_SINT",
        ComponentType::UInt | ComponentType::Mixed | ComponentType::Double => "R32G32B32A32_UINT",
        _ => "R32G32B32A32_FLOAT",
    };
    Format::from_name(name).unwrap()
}

/// A descriptor for one register of a declared range, with the memory to compare (UAVs).
fn make(
    key: Key,
    kind: ResourceKind,
    component: ComponentType,
    counter: bool,
) -> Option<(Descriptor, Option<Memory>)> {
    let buffer = |bytes: usize, kind: BufferKind| {
        let m = Memory::from_bytes(&fill(key, bytes)).unwrap();
        let counter = counter.then(|| Counter::new(0));
        (
            Descriptor::Buffer {
                view: BufferView::whole(m.clone(), kind),
                counter,
            },
            Some(m),
        )
    };
    let texture = |dim: TextureDim, depth: u32| {
        let desc = TextureDesc {
            dim,
            format: texture_format(component),
            width: 16,
            height: if matches!(dim, TextureDim::Tex1D | TextureDim::Tex1DArray) {
                1
            } else {
                16
            },
            depth_or_array_size: depth,
            mips: 1,
            samples: 1,
        };
        let bytes = desc.total_bytes() as usize;
        let t = Texture::from_bytes(desc, &fill(key, bytes)).unwrap();
        let m = t.memory().clone();
        (Descriptor::Texture(TextureView::whole(t)), Some(m))
    };
    Some(match kind {
        ResourceKind::RawBuffer => buffer(4096, BufferKind::Raw),
        ResourceKind::StructuredBuffer { stride } => buffer(
            64 * stride.max(4) as usize,
            BufferKind::Structured { stride },
        ),
        ResourceKind::TypedBuffer => buffer(
            64 * 16,
            BufferKind::Typed {
                format: buffer_format(component),
            },
        ),
        ResourceKind::Texture1D => texture(TextureDim::Tex1D, 1),
        ResourceKind::Texture1DArray => texture(TextureDim::Tex1DArray, 4),
        ResourceKind::Texture2D => texture(TextureDim::Tex2D, 1),
        ResourceKind::Texture2DArray => texture(TextureDim::Tex2DArray, 4),
        ResourceKind::Texture3D => texture(TextureDim::Tex3D, 4),
        ResourceKind::ConstantBuffer { size } => {
            let size = (size.max(16) as usize).div_ceil(16) * 16;
            let m = Memory::from_bytes(&fill(key, size)).unwrap();
            (
                Descriptor::ConstantBuffer {
                    memory: m,
                    offset: 0,
                    size: size as u64,
                },
                None,
            )
        }
        ResourceKind::Sampler { .. } => (Descriptor::Sampler(SamplerDesc::default()), None),
        _ => return None,
    })
}

/// Binds every declared register of both shaders, one descriptor per register shared by
/// the two (so they see the same contents); returns the bindings of each and the UAV
/// memories per register. Fails when the twins disagree on a register's kind.
pub(crate) fn bind_twins(a: &Shader, b: &Shader) -> Result<Bound, String> {
    let mut decls: BTreeMap<Key, (ResourceKind, ComponentType, bool)> = BTreeMap::new();
    for s in [a, b] {
        for r in &s.resources {
            for k in 0..r.count.min(16) {
                let key = (r.class, r.space, r.lower + k);
                let kind = match r.kind {
                    // Sizes differ between compilers' reflection; bind the larger.
                    ResourceKind::ConstantBuffer { size } => match decls.get(&key) {
                        Some((ResourceKind::ConstantBuffer { size: other }, ..)) => {
                            ResourceKind::ConstantBuffer {
                                size: size.max(*other),
                            }
                        }
                        _ => r.kind,
                    },
                    ResourceKind::Sampler { .. } => ResourceKind::Sampler { comparison: false },
                    k => k,
                };
                let entry = decls.entry(key).or_insert((kind, r.component, r.counter));
                if std::mem::discriminant(&entry.0) != std::mem::discriminant(&kind) {
                    return Err(format!(
                        "the twins declare {key:?} as {} and {}",
                        entry.0, kind
                    ));
                }
                entry.0 = kind;
                entry.2 |= r.counter;
            }
        }
    }
    // Each twin gets its own copy of the data (same contents), so their outputs can be
    // compared afterwards.
    let mut bound: [BTreeMap<Key, (Descriptor, Option<Memory>)>; 2] = Default::default();
    for side in &mut bound {
        for (&key, &(kind, component, counter)) in &decls {
            let d = make(key, kind, component, counter)
                .ok_or_else(|| format!("cannot bind {kind} at {key:?}"))?;
            side.insert(key, d);
        }
    }
    let bindings = |s: &Shader, side: &BTreeMap<Key, (Descriptor, Option<Memory>)>| Bindings {
        ranges: s
            .resources
            .iter()
            .map(|r| {
                (0..r.count.min(16))
                    .map(|k| side[&(r.class, r.space, r.lower + k)].0.clone())
                    .collect()
            })
            .collect(),
        resource_heap: Vec::new(),
        sampler_heap: Vec::new(),
    };
    let (ba, bb) = (bindings(a, &bound[0]), bindings(b, &bound[1]));
    let mut uavs = BTreeMap::new();
    for (key, (_, m)) in &bound[0] {
        if key.0 == ResourceClass::Uav
            && let (Some(ma), Some((_, Some(mb)))) = (m, bound[1].get(key))
        {
            uavs.insert(*key, (ma.clone(), mb.clone()));
        }
    }
    Ok((ba, bb, uavs))
}

pub(crate) fn load(path: &Path) -> Result<Shader, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    lower::load(&bytes, &LoadOptions::default())
        .map(|l| l.shader)
        .map_err(|e| e.to_string())
}

/// Runs a pair; `Ok(words compared)` when every UAV agrees.
fn run_pair(dxbc: &Path, dxil: &Path) -> Result<usize, String> {
    let a = load(dxbc).map_err(|e| format!("DXBC: {e}"))?;
    let b = load(dxil).map_err(|e| format!("DXIL: {e}"))?;
    let (ba, bb, uavs) = bind_twins(&a, &b)?;
    let opts = Plan {
        threads: 1,
        ..crate::common::plan()
    };
    let groups = [2, 2, 1];
    let ra = dispatch(&a, &ba, groups, &opts, None).map_err(|e| format!("DXBC run: {e}"))?;
    let rb = dispatch(&b, &bb, groups, &opts, None).map_err(|e| format!("DXIL run: {e}"))?;
    let _ = (ra, rb);
    let mut words = 0;
    let mut diffs = Vec::new();
    for (key, (ma, mb)) in &uavs {
        let (xa, xb) = (ma.to_bytes(), mb.to_bytes());
        words += xa.len() / 4;
        let bad: Vec<usize> = (0..xa.len() / 4)
            .filter(|&i| xa[4 * i..4 * i + 4] != xb[4 * i..4 * i + 4])
            .collect();
        if let Some(&first) = bad.first() {
            let w = |x: &[u8]| u32::from_le_bytes(x[4 * first..4 * first + 4].try_into().unwrap());
            diffs.push(format!(
                "u{} (space {}): {} of {} words differ; first at word {first}: DXBC 0x{:08x}, DXIL 0x{:08x}",
                key.2,
                key.1,
                bad.len(),
                xa.len() / 4,
                w(&xa),
                w(&xb)
            ));
        }
    }
    if diffs.is_empty() {
        Ok(words)
    } else {
        Err(diffs.join("; "))
    }
}

/// Twins the corpora ship: fxc and dxc builds of one source.
fn corpus_pairs() -> Vec<(PathBuf, PathBuf)> {
    let dxbc = common::dxbc_programs();
    let dxil = common::dxil_programs();
    let find = |list: &[PathBuf], name: &str| {
        list.iter()
            .find(|p| common::display_name(p) == name)
            .cloned()
    };
    let mut pairs = Vec::new();
    for f in ["dbl2", "double", "doubleext", "msad", "typeduav", "uav64"] {
        if let (Some(a), Some(b)) = (
            find(&dxbc, &format!("dxcontainer/features/{f}.cs_5_0.dxbc")),
            find(&dxil, &format!("dxcontainer/features/{f}.dxil")),
        ) {
            pairs.push((a, b));
        }
    }
    for (a, b) in [
        (
            "dxbc-reader/image_atomics.dxbc",
            "dxil-reader/image_atomics.dxil",
        ),
        (
            "dxbc-reader/image_atomics.od.dxbc",
            "dxil-reader/image_atomics.od.dxil",
        ),
        (
            "dxbc-reader/image_atomic_results.dxbc",
            "dxil-reader/image_atomic_results.dxil",
        ),
        (
            "dxbc-reader/image_atomic_results.od.dxbc",
            "dxil-reader/image_atomic_results.od.dxil",
        ),
    ] {
        if let (Some(a), Some(b)) = (find(&dxbc, a), find(&dxil, b)) {
            pairs.push((a, b));
        }
    }
    pairs
}

/// The names (`dxcontainer/features/msad`) of twins whose outputs are known to differ,
/// each with its reason, from `tests/expectations/twins.txt`.
fn known_differences() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(common::root().join("tests/expectations/twins.txt"))
        .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (case, why) = l.split_once('#').unwrap_or((l, ""));
            let name = case.split(',').next()?.trim().to_string();
            Some((name, why.trim().to_string()))
        })
        .collect()
}

fn check(pairs: &[(String, PathBuf, PathBuf)]) {
    let known = known_differences();
    let mut failures = Vec::new();
    for (name, a, b) in pairs {
        let result = run_pair(a, b);
        match (&result, known.get(name)) {
            (Ok(words), None) => eprintln!("twins {name}: identical ({words} UAV words)"),
            (Err(e), Some(why)) => eprintln!("twins {name}: differ as expected ({why}): {e}"),
            (Ok(_), Some(_)) => failures.push(format!(
                "{name}: now identical; remove it from tests/expectations/twins.txt"
            )),
            (Err(e), None) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_twins_agree() {
    let pairs: Vec<(String, PathBuf, PathBuf)> = corpus_pairs()
        .into_iter()
        .map(|(a, b)| {
            let name = common::display_name(&b)
                .trim_end_matches(".dxil")
                .to_string();
            (name, a, b)
        })
        .collect();
    // The corpora ship 10 fxc/dxc pairs (dxcontainer features, dxil-reader image
    // atomics): a run that compares fewer has lost some and must say so.
    if !common::corpora().is_empty() {
        assert!(
            pairs.len() >= 10,
            "only {} corpus twin pairs found",
            pairs.len()
        );
    }
    check(&pairs);
}

#[test]
fn vkd3d_twins_agree() {
    let Some(compiler) = common::vkd3d_compiler("the vkd3d-compiled twins") else {
        return;
    };
    let out = common::target_dir().join("twins");
    std::fs::create_dir_all(&out).unwrap();
    let mut pairs = Vec::new();
    let mut skipped = Vec::new();
    for dxil in common::dxil_programs() {
        let name = common::display_name(&dxil);
        let Some(stem) = name.strip_prefix("dxil-reader/") else {
            continue;
        };
        // The plain build of each source (not the 6.6 or /Od variants).
        let base = stem.trim_end_matches(".dxil").trim_end_matches(".cs");
        if base.contains('.') {
            continue;
        }
        // A source with several stages keeps its compute entry in `NAME_cs.hlsl`.
        let hlsl = [format!("{base}_cs.hlsl"), format!("{base}.hlsl")]
            .into_iter()
            .map(|f| dxil.with_file_name(f))
            .find(|p| p.exists())
            .unwrap_or_default();
        let Ok(shader) = load(&dxil) else { continue };
        if shader.stage != dxlane::ir::Stage::Compute || !hlsl.exists() {
            continue;
        }
        let dxbc = out.join(format!("{base}.cs_5_0.dxbc"));
        let status = std::process::Command::new(&compiler)
            .args([
                "-p",
                "cs_5_0",
                "-e",
                &shader.entry,
                "-x",
                "hlsl",
                "-b",
                "dxbc-tpf",
                "-o",
            ])
            .arg(&dxbc)
            .arg(&hlsl)
            .output()
            .unwrap();
        if !status.status.success() {
            let why = String::from_utf8_lossy(&status.stderr);
            let first = why
                .lines()
                .next()
                .unwrap_or("")
                .rsplit(": ")
                .next()
                .unwrap_or("")
                .to_string();
            skipped.push(format!("{base} ({first})"));
            continue;
        }
        pairs.push((format!("vkd3d/{base}"), dxbc, dxil));
    }
    eprintln!(
        "twins: {} vkd3d-compiled pairs; vkd3d cannot compile {}: {}",
        pairs.len(),
        skipped.len(),
        skipped.join(", ")
    );
    // vkd3d 2.1 compiles 5 of the dxil-reader compute sources.
    assert!(
        pairs.len() >= 5 || common::corpora().is_empty(),
        "only {} vkd3d twins compiled",
        pairs.len()
    );
    check(&pairs);
}
