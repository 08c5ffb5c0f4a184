//! The containers of `tests/jobs/zi/`, laid out as dxc writes them with `-Zi`, written
//! with the bitcode and container writers from the module of [`super::module`] (the
//! compute program of [`super::HLSL`]); this test regenerates them and fails when the
//! committed bytes differ (`DXLANE_BLESS=1` rewrites them).
//!
//! The layouts, from DirectXShaderCompiler's `DxilContainer.h` and its container
//! writer (`DxilContainerAssembler.cpp`, `dxcshadersourceinfo.cpp`):
//!
//! - `DXIL`: the program, stripped of debug info (no `llvm.dbg.*` calls, locations or
//!   `DI*` records).
//! - `ILDB`: the debug module, with a `DXIL` part's program header.
//! - `ILDN`: the debug name (`DxilShaderDebugName`: flags u16, length u16, the name and
//!   its NUL, padded to 4 bytes); dxc names the PDB after the program's hash.
//! - `SRCI`: newer dxc keeps the sources, names and arguments here (zlib-compressed)
//!   instead of in the debug module's `dx.source.*` metadata.
//!
//! | file | dxc | parts |
//! |---|---|---|
//! | `srci.dxil` | `-Zi -Qembed_debug` (newer dxc) | `DXIL`, `ILDB` without `dx.source.*`, `ILDN`, `SRCI` |
//! | `embedded.dxil` | `-Zi -Qembed_debug -Qsource_in_debug_module` (and older dxc, before `SRCI`) | `DXIL`, `ILDB` with `dx.source.*`, `ILDN` |
//! | `pdb_only.dxil` | `-Zi -Fd FILE` (the debug module goes to the PDB file) | `DXIL`, `ILDN` |
//! | `mismatch.dxil` | none: an `ILDB` module with one instruction more than the `DXIL` part's (malformed) | `DXIL`, `ILDB`, `ILDN` |

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::{Damage, HLSL, module};
use crate::container::srci::{self, SourceFile, SourceInfo};
use crate::container::write::{dxil_part, write_container};
use crate::container::{FourCc, ProgramKind, ProgramVersion};
use crate::dxil::llvm::Module;
use crate::dxil::llvm::write::write_module;

const VERSION: ProgramVersion = ProgramVersion {
    kind: ProgramKind::Compute,
    major: 6,
    minor: 0,
};

fn program_part(m: &Module) -> Vec<u8> {
    dxil_part(VERSION, (1, 0), &write_module(m).unwrap()).unwrap()
}

/// An `ILDN` part naming `name`.
pub fn debug_name(name: &str) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&0u16.to_le_bytes());
    v.extend_from_slice(&(name.len() as u16).to_le_bytes());
    v.extend_from_slice(name.as_bytes());
    v.push(0);
    v.resize(v.len().next_multiple_of(4), 0);
    v
}

/// The `SRCI` part of the program: `shader.hlsl` and the arguments dxc records.
pub fn source_info() -> Vec<u8> {
    let info = SourceInfo {
        files: vec![SourceFile {
            name: "shader.hlsl".into(),
            text: HLSL.into(),
        }],
        args: vec![
            ("E".into(), "main".into()),
            ("T".into(), "cs_6_0".into()),
            ("Zi".into(), String::new()),
            ("Qembed_debug".into(), String::new()),
            (String::new(), "shader.hlsl".into()),
        ],
        compressed: true,
    };
    srci::write(&info, true).unwrap()
}

/// The containers, by file name.
pub fn containers() -> Vec<(&'static str, Vec<u8>)> {
    let run = program_part(&module(false, Damage::None));
    let debug = module(true, Damage::None);
    let mut bare = debug.clone();
    bare.named_metadata
        .retain(|n| !n.name.starts_with("dx.source."));
    // dxc names the PDB after the program's hash: here the MD5 of the DXIL part.
    let name = {
        use md5::{Digest, Md5};
        let d = Md5::digest(&run);
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        format!("{hex}.pdb")
    };
    let ildn = debug_name(&name);
    let srci = source_info();
    let (ildb_bare, ildb_full) = (program_part(&bare), program_part(&debug));
    let tag = |t: &[u8; 4]| FourCc(*t);
    vec![
        (
            "srci.dxil",
            write_container(&[
                (FourCc::ILDB, &ildb_bare),
                (tag(b"ILDN"), &ildn),
                (tag(b"SRCI"), &srci),
                (FourCc::DXIL, &run),
            ])
            .unwrap(),
        ),
        (
            "embedded.dxil",
            write_container(&[
                (FourCc::ILDB, &ildb_full),
                (tag(b"ILDN"), &ildn),
                (FourCc::DXIL, &run),
            ])
            .unwrap(),
        ),
        (
            "pdb_only.dxil",
            write_container(&[(tag(b"ILDN"), &ildn), (FourCc::DXIL, &run)]).unwrap(),
        ),
        (
            "mismatch.dxil",
            write_container(&[
                (
                    FourCc::ILDB,
                    &program_part(&module(true, Damage::ExtraInstruction)),
                ),
                (tag(b"ILDN"), &ildn),
                (FourCc::DXIL, &run),
            ])
            .unwrap(),
        ),
    ]
}

/// The committed containers are what the writers make of the module today.
#[test]
fn the_committed_zi_containers_are_regenerated_unchanged() {
    super::check_committed("tests/jobs/zi", containers());
}
