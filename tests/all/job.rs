//! Job files end to end: binding of every kind, every validation error (snapshots under
//! `tests/snapshots/errors/`), the reflection check's listing, outputs, the JSON summary,
//! expectations and `dxlane run`'s exit codes, PNG round trips, determinism across
//! worker counts, and the shipped examples.
//!
//! Programs are IR text files in `tests/jobs/`, so everything here runs without the DXBC
//! and DXIL lowerings. Each test copies what it needs into its own folder under cargo's
//! test temporary directory, so outputs never land in the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::job::bind::{self, DEFAULT_MAX_RESOURCE_BYTES, Storage};
use dxlane::job::{self, Job, JobError, RunOptions, RunResult, run_job};
use dxlane::resources::{AddressMode, ComparisonFunc, Descriptor, Filter, Format, TextureDim};

use crate::common;

/// The IR programs of `tests/jobs/`.
const PROGRAMS: &[&str] = &[
    "double.ir",
    "every_kind.ir",
    "declares.ir",
    "copy_texture.ir",
    "loop.ir",
    "pixel.ir",
    "bad_syntax.ir",
    "prefix_sum.ir",
    "histogram.ir",
    "f32tof16.ir",
];

fn jobs_dir() -> PathBuf {
    common::root().join("tests/jobs")
}

/// A fresh folder for test `name` holding every program of `tests/jobs/`.
fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("job").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for p in PROGRAMS {
        std::fs::copy(jobs_dir().join(p), dir.join(p)).unwrap();
    }
    dir
}

/// Writes `text` as `job.toml` in a fresh folder and returns its path.
fn job_file(name: &str, text: &str) -> PathBuf {
    let dir = workdir(name);
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &Path) -> Result<RunResult, JobError> {
    run_job(path, &crate::common::run_options())
}

/// The error of running `text`, with the folder it ran in written as `<dir>`.
fn error_of(name: &str, text: &str) -> String {
    let path = job_file(name, text);
    let dir = path.parent().unwrap().to_path_buf();
    match run(&path) {
        Ok(_) => panic!("{name}: the job ran"),
        Err(e) => e
            .to_string()
            .replace(&dir.display().to_string(), "<dir>")
            .replace(&common::root().display().to_string(), "<root>"),
    }
}

fn dxlane(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dxlane")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `double.ir` bound to 8 inputs, with a passing expectation.
const DOUBLE: &str = r#"
[program]
cs = "double.ir"

[dispatch]
groups = [2, 1, 1]

[[resource]]
reg = "t0"
kind = "structured_buffer"
stride = 4
data = { u32 = [0, 1, 2, 3, 4, 5, 6, 7] }

[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 32
output = "out/double.bin"

[[expect]]
reg = "u0"
u32 = [1, 3, 5, 7, 9, 11, 13, 15]
"#;

/// Every kind of binding the job file has, read back by one program
/// (`tests/jobs/every_kind.toml`): typed/raw/structured buffers, a constant buffer,
/// textures of every dimension, an SM 5.1 array with a null element, a counter, both heaps.
#[test]
fn job_binds_every_kind() {
    let dir = workdir("every_kind");
    std::fs::copy(
        jobs_dir().join("every_kind.toml"),
        dir.join("every_kind.toml"),
    )
    .unwrap();
    let path = dir.join("every_kind.toml");
    let r = run(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed(), "{:#?}", r.summary.expectations);
    assert_eq!(r.summary.expectations.passed, 5);
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    let counter = std::fs::read(dir.join("out/every_kind.counter.bin")).unwrap();
    assert_eq!(counter, 6u32.to_le_bytes());

    // The descriptors themselves.
    let b = &r.bound;
    let tex = |reg: &str, space: u32| {
        let e = b
            .at_register(bind::Register::parse(reg, space).unwrap())
            .unwrap();
        *e.texture().unwrap().desc()
    };
    assert_eq!(tex("t7", 1).dim, TextureDim::CubeArray);
    assert_eq!(tex("t7", 1).depth_or_array_size, 12, "2 cubes of 6 faces");
    assert_eq!(tex("t6", 1).depth_or_array_size, 6);
    assert_eq!(tex("t6", 1).mips, 3);
    assert_eq!(tex("t3", 1).samples, 4);
    assert_eq!(tex("t4", 1).depth_or_array_size, 2);
    assert_eq!(tex("t5", 1).depth_or_array_size, 3);
    assert_eq!(tex("t1", 1).format, Format::R16_FLOAT);
    assert_eq!(tex("t0", 1).mips, 3);
    let s0 = b
        .at_register(bind::Register::parse("s0", 0).unwrap())
        .unwrap();
    let Descriptor::Sampler(s) = s0.descriptor else {
        panic!("s0 is not a sampler")
    };
    assert_eq!(
        s.filter,
        Filter::from_name("COMPARISON_MIN_MAG_MIP_POINT").unwrap()
    );
    assert_eq!(
        s.address,
        [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border]
    );
    assert_eq!(s.comparison, ComparisonFunc::LessEqual);
    assert_eq!(
        (s.mip_lod_bias, s.max_anisotropy, s.min_lod, s.max_lod),
        (0.5, 4, 0.0, 8.0)
    );
    assert_eq!(s.border_color, [0.0, 0.0, 0.0, 1.0]);
    let u3 = b
        .at_register(bind::Register::parse("u3", 0).unwrap())
        .unwrap();
    assert!(u3.null && u3.descriptor.is_null());
    assert_eq!(b.heap.len(), 3);
    assert!(b.heap[1].descriptor.is_null());
    assert!(matches!(
        b.heap[2].descriptor,
        Descriptor::ConstantBuffer { size: 16, .. }
    ));
    assert!(b.sampler_heap[1].descriptor.is_null());
    let Descriptor::Sampler(h) = b.sampler_heap[0].descriptor else {
        panic!()
    };
    assert!(h.filter.anisotropic);
    assert_eq!(h.max_anisotropy, 16);
}

/// Binding without a program: sizes from data and views, raw texture data in
/// subresource order, fills.
#[test]
fn job_binding_sizes_and_texture_data() {
    let text = r#"
[program]
[[resource]]
reg = "t0"
kind = "texture2d"
format = "R8_UNORM"
width = 4
height = 2
mips = 2
data = { hex = "0001020304050607 0809 " }
[[resource]]
reg = "u0"
kind = "typed_buffer"
format = "R32G32B32A32_FLOAT"
num_elements = 2
[[resource]]
reg = "b0"
kind = "cbuffer"
size = 256
data = { fill_u32 = 0x01020304 }
"#;
    let file = job::parse(text).unwrap();
    let b = bind::bind_job(&file, Path::new("."), DEFAULT_MAX_RESOURCE_BYTES).unwrap();
    let t = b.resources[0].texture().unwrap();
    // Mip 0 is 4 × 2 bytes, mip 1 is 2 × 1: ten bytes, tightly packed.
    assert_eq!(t.memory().len(), 10);
    assert_eq!(t.to_bytes(), (0..10).collect::<Vec<u8>>());
    assert_eq!(b.resources[1].storage_bytes(), 32);
    let Storage::Buffer(cb) = &b.resources[2].storage else {
        panic!()
    };
    assert_eq!(words(&cb.to_bytes()), vec![0x01020304; 64]);
}

/// Every validation error of the job layer, one per case, as the user reads it
/// (`tests/snapshots/errors/job.txt`).
#[test]
fn job_validation_errors() {
    let head = "[program]\ncs = \"double.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n";
    let t0 = "[[resource]]\nreg = \"t0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 16\n";
    let u0 = "[[resource]]\nreg = \"u0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 16\n";
    let bound = format!("{head}{t0}{u0}");
    let cases: Vec<(&str, String)> = vec![
        // TOML and sections
        ("misspelt key", "[program]\ncs = \"double.ir\"\n[dispatch]\ngroup = [1, 1, 1]\n".into()),
        ("missing dispatch", "[program]\ncs = \"double.ir\"\n".into()),
        ("zero groups", "[program]\ncs = \"double.ir\"\n[dispatch]\ngroups = [0, 1, 1]\n".into()),
        ("too many groups", "[program]\ncs = \"double.ir\"\n[dispatch]\ngroups = [1, 65536, 1]\n".into()),
        ("missing cs", "[program]\n[dispatch]\ngroups = [1, 1, 1]\n".into()),
        ("draw job", "[program]\nvs = \"a.dxbc\"\nps = \"b.dxbc\"\n[dispatch]\ngroups = [1, 1, 1]\n".into()),
        ("unknown profile", format!("{bound}[options]\nprofile = \"warp-2\"\n")),
        ("bad wave size", format!("{bound}[options]\nwave_size = 12\n")),
        ("zero budget", format!("{bound}[options]\nmax_lane_instructions = 0\n")),
        // programs
        ("program not found", "[program]\ncs = \"nothing.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n".into()),
        ("ir syntax", "[program]\ncs = \"bad_syntax.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n".into()),
        ("pixel program", "[program]\ncs = \"pixel.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n".into()),
        ("entry", bound.replace("cs = \"double.ir\"", "cs = \"double.ir\"\nentry = \"other\"")),
        ("dxbc vertex program", format!("[program]\ncs = \"{}\"\n[dispatch]\ngroups = [1, 1, 1]\n", common::root().join("shaders/vertex.vs_5_0.dxbc").display())),
        ("budget", "[program]\ncs = \"loop.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n[options]\nmax_lane_instructions = 1000\n".into()),
        // entries: placement
        ("missing reg", format!("{head}[[resource]]\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("bad reg", format!("{head}[[resource]]\nreg = \"x0\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("descriptor in resource", format!("{head}[[resource]]\nreg = \"t0\"\ndescriptor = \"srv\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("reg in heap", format!("{bound}[[heap]]\nreg = \"t0\"\ndescriptor = \"srv\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("space in heap", format!("{bound}[[heap]]\nspace = 1\ndescriptor = \"srv\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("heap without descriptor", format!("{bound}[[heap]]\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("unknown descriptor", format!("{bound}[[heap]]\ndescriptor = \"rtv\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("sampler in heap", format!("{bound}[[heap]]\ndescriptor = \"srv\"\nkind = \"sampler\"\n")),
        ("none in resource", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"none\"\n")),
        ("duplicate reg", format!("{bound}{t0}")),
        // entries: kinds and classes
        ("unknown kind", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture4d\"\n")),
        ("misspelt kind", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"structured_bufer\"\n")),
        ("t register as sampler", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"sampler\"\n")),
        ("b register as buffer", format!("{head}[[resource]]\nreg = \"b0\"\nkind = \"raw_buffer\"\nsize = 4\n")),
        ("uav cube", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"texturecube\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\n")),
        ("heap uav cbuffer", format!("{bound}[[heap]]\ndescriptor = \"uav\"\nkind = \"cbuffer\"\nsize = 16\n")),
        // entries: keys
        ("stride on raw", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nstride = 4\nsize = 4\n")),
        ("depth on 2d", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\ndepth = 2\n")),
        ("height on 1d", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture1d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\n")),
        ("samples on 2d", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nsamples = 4\n")),
        ("filter on buffer", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 4\nfilter = \"ANISOTROPIC\"\n")),
        ("size on null", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nnull = true\nsize = 4\n")),
        ("missing stride", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"structured_buffer\"\nsize = 4\n")),
        ("stride too large", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"structured_buffer\"\nstride = 4096\nsize = 4096\n")),
        ("missing format", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"typed_buffer\"\nsize = 4\n")),
        ("unknown format", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNROM\"\nwidth = 4\nheight = 4\n")),
        ("typeless format", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"typed_buffer\"\nformat = \"R32_TYPELESS\"\nsize = 4\n")),
        ("block-compressed typed buffer", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"typed_buffer\"\nformat = \"BC1_UNORM\"\nsize = 8\n")),
        ("block-compressed uav", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"BC1_UNORM\"\nwidth = 4\nheight = 4\n")),
        ("block-compressed 1d", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture1d\"\nformat = \"BC7_UNORM\"\nwidth = 4\n")),
        ("srgb uav", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM_SRGB\"\nwidth = 4\nheight = 4\n")),
        ("srgb typed buffer uav", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"R8G8B8A8_UNORM_SRGB\"\nsize = 16\n")),
        ("typeless texture without a view format", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_TYPELESS\"\nwidth = 4\nheight = 4\n")),
        ("view format of another size", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nview_format = \"R32_FLOAT\"\n")),
        ("view format of another BC family", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"BC1_TYPELESS\"\nwidth = 4\nheight = 4\nview_format = \"BC4_UNORM\"\n")),
        ("unknown view format", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nview_format = \"R8_UNROM\"\n")),
        ("view mips outside the texture", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nmips = 2\nview_mips = [1, 2]\n")),
        ("view slices outside the texture", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2darray\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\narray_size = 3\nview_slices = [2, 2]\n")),
        ("image that is not an image", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\ndata = {{ images = [\"double.ir\"] }}\n")),
        ("image for an integer texture", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R32_UINT\"\nwidth = 4\nheight = 4\ndata = {{ images = [\"double.ir\"] }}\n")),
        ("too many images", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\ndata = {{ images = [\"a.png\", \"b.png\"] }}\n")),
        ("images on a buffer", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 4\ndata = {{ images = [\"a.png\"] }}\n")),
        ("output of a missing subresource", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\noutputs = [{{ file = \"m1.png\", mip = 1 }}]\n")),
        ("png output of a float subresource", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R16_FLOAT\"\nwidth = 4\nheight = 4\noutputs = [{{ file = \"m0.png\" }}]\n")),
        ("missing width", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nheight = 4\n")),
        ("missing height", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture3d\"\nformat = \"R8_UNORM\"\nwidth = 4\n")),
        ("too many mips", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nmips = 4\n")),
        ("non-square cube", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texturecube\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 2\n")),
        ("bad samples", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2dms\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\nsamples = 3\n")),
        ("missing size", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\n")),
        ("missing cbuffer size", format!("{head}[[resource]]\nreg = \"b0\"\nkind = \"cbuffer\"\n")),
        ("cbuffer too large", format!("{head}[[resource]]\nreg = \"b0\"\nkind = \"cbuffer\"\nsize = 65537\n")),
        ("data larger than buffer", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 4\ndata = {{ u32 = [1, 2] }}\n")),
        ("data larger than texture", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8_UNORM\"\nwidth = 2\nheight = 1\ndata = {{ u32 = [1] }}\n")),
        ("two data forms", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 8\ndata = {{ u32 = [1], f32 = [1.0] }}\n")),
        ("bad hex", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 8\ndata = {{ hex = \"0g\" }}\n")),
        ("missing data file", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 8\ndata = {{ file = \"missing.bin\" }}\n")),
        ("view past the end", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 16\nfirst_element = 2\nnum_elements = 3\n")),
        ("first element past the end", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 16\nfirst_element = 5\n")),
        ("counter on srv", format!("{head}[[resource]]\nreg = \"t0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 4\ncounter = 0\n")),
        ("counter on raw", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"raw_buffer\"\nsize = 4\ncounter = 0\n")),
        ("counter output without counter", format!("{head}[[resource]]\nreg = \"u0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 4\ncounter_output = \"c.bin\"\n")),
        ("memory limit", format!("{head}[options]\nmax_memory = 100\n[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\nsize = 1000\n")),
        // samplers
        ("unknown filter", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nfilter = \"BILINEAR\"\n")),
        ("unknown address", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\naddress = [\"REPEAT\"]\n")),
        ("two address modes", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\naddress = [\"WRAP\", \"CLAMP\"]\n")),
        ("unknown comparison", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\ncomparison = \"LESSER\"\n")),
        ("anisotropy", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nmax_anisotropy = 17\n")),
        ("anisotropy zero", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nmax_anisotropy = 0\n")),
        ("nan lod", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nmin_lod = nan\n")),
        ("lod range", format!("{head}[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nmin_lod = 4.0\nmax_lod = 1.0\n")),
        ("sampler heap kind", format!("{bound}[[sampler_heap]]\nkind = \"texture2d\"\n")),
        ("sampler heap none with keys", format!("{bound}[[sampler_heap]]\nkind = \"none\"\nfilter = \"ANISOTROPIC\"\n")),
        // outputs
        ("png of a buffer", format!("{head}{t0}[[resource]]\nreg = \"u0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 16\noutput = \"out/u0.png\"\n")),
        ("png of a float texture", format!("{head}[[resource]]\nreg = \"u1\"\nkind = \"texture2d\"\nformat = \"R32_FLOAT\"\nwidth = 2\nheight = 2\noutput = \"out/u1.png\"\n")),
        ("png data for a float texture", format!("{head}[[resource]]\nreg = \"t1\"\nkind = \"texture2d\"\nformat = \"R32_FLOAT\"\nwidth = 2\nheight = 2\ndata = {{ file = \"x.png\" }}\n")),
        // expectations
        ("expect nothing bound", format!("{bound}[[expect]]\nreg = \"u7\"\nu32 = [1]\n")),
        ("expect no target", format!("{bound}[[expect]]\nu32 = [1]\n")),
        ("expect reg and heap", format!("{bound}[[expect]]\nreg = \"u0\"\nheap = 0\nu32 = [1]\n")),
        ("expect missing heap slot", format!("{bound}[[expect]]\nheap = 2\nu32 = [1]\n")),
        ("expect two forms", format!("{bound}[[expect]]\nreg = \"u0\"\nu32 = [1]\ni32 = [1]\n")),
        ("expect tolerance on words", format!("{bound}[[expect]]\nreg = \"u0\"\nu32 = [1]\ntolerance = {{ ulp = 1 }}\n")),
        ("expect counter without counter", format!("{bound}[[expect]]\nreg = \"u0\"\ncounter = 1\n")),
        ("expect bad float", format!("{bound}[[expect]]\nreg = \"u0\"\nf32 = [\"one\"]\n")),
    ];
    let mut out = String::new();
    for (i, (name, text)) in cases.iter().enumerate() {
        let e = error_of(&format!("error{i}"), text);
        assert!(
            name.contains("reflection") || !e.contains('\n'),
            "{name}: not one line:\n{e}"
        );
        out.push_str(&format!("== {name}\n{e}\n"));
    }
    common::assert_snapshot("errors/job.txt", &out);
}

/// A typed view whose 32-bit channels hold another type than the program declares
/// (`RWBuffer<uint>` over R32_SINT, `Buffer<float>` over R32_UINT) is taken with a
/// warning, and its bits are read and written as they are: what D3D12 does on WARP
/// (vkd3d's `tgsm` test binds an R32_SINT view to `RWBuffer<uint>` and reads back the
/// stored values). A narrower or normalised format is still refused.
#[test]
fn other_types_in_32_bit_typed_views_keep_their_bits() {
    let program = "shader compute
group [1 1 1]
const r0 = 0
const r1 = 1
const r2 = 2
resource range0 = uav space 0 lower 0 count 1 typed_buffer uint \"u\"
resource range1 = srv space 0 lower 0 count 1 typed_buffer float \"t\"
block0:
    handle r3, range0, r0
    handle r4, range1, r0
    typed_load [r5 _ _ _], r3, [r0 _ _], _, _, (0 0 0), _
    typed_store r3, [r1 _ _], _, [r5 r5 r5 r5], 15
    typed_load [r6 _ _ _], r4, [r0 _ _], _, _, (0 0 0), _
    typed_store r3, [r2 _ _], _, [r6 r6 r6 r6], 15
    return
";
    let job = |uav: &str| {
        format!(
            "[program]\ncs = \"bits.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n\
             [[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"{uav}\"\nsize = 12\n\
             data = {{ i32 = [-22, 0, 0] }}\noutput = \"u0.bin\"\n\
             [[resource]]\nreg = \"t0\"\nkind = \"typed_buffer\"\nformat = \"R32_UINT\"\nsize = 4\n\
             data = {{ u32 = [0xfeedcafe] }}\n"
        )
    };
    let path = job_file("bits_as_they_are", &job("R32_SINT"));
    std::fs::write(path.parent().unwrap().join("bits.ir"), program).unwrap();
    let r = run(&path).expect("a 32-bit view of another type runs");
    let warned = r
        .summary
        .warnings
        .iter()
        .filter(|w| w.contains("as they are"))
        .count();
    assert_eq!(warned, 2, "{:?}", r.summary.warnings);
    let out = std::fs::read(path.parent().unwrap().join("u0.bin")).unwrap();
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(words, [(-22i32) as u32, (-22i32) as u32, 0xfeed_cafe]);
    // 16-bit channels convert: refused.
    let path = job_file("bits_narrow", &job("R16_SINT"));
    std::fs::write(path.parent().unwrap().join("bits.ir"), program).unwrap();
    let e = run(&path).map(|_| ()).expect_err("refused").to_string();
    assert!(e.contains("format R16_SINT holds sint values"), "{e}");
}

/// The reflection check: what the program declares against what the job binds, with
/// the listing of both (`tests/snapshots/errors/job_reflection.txt`), and the
/// warnings for what fits but is not used.
#[test]
fn job_reflection_check_lists_declarations() {
    let wrong = r#"
[program]
cs = "declares.ir"
[dispatch]
groups = [1, 1, 1]

[[resource]]                    # wrong stride, and no counter
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 64

[[resource]]                    # float format for a uint declaration
reg = "t0"
kind = "typed_buffer"
format = "R16_FLOAT"
size = 16

[[resource]]                    # wrong dimension
reg = "t1"
kind = "texture2darray"
format = "R8G8B8A8_UNORM"
width = 2
height = 2

[[resource]]
reg = "b0"
kind = "cbuffer"
size = 16

[[resource]]                    # a raw buffer where a sampler is declared: wrong class
reg = "s0"
kind = "sampler"

[[resource]]                    # u2 and u4 of u2..u4 unbound: allowed, a warning
reg = "u3"
kind = "raw_buffer"
size = 4

[[resource]]                    # t3, space2 unbound before t4: allowed, a warning
reg = "t4"
space = 2
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 2
height = 2

[[resource]]                    # not declared: a warning only
reg = "t9"
kind = "raw_buffer"
size = 4
"#;
    let e = error_of("reflection_wrong", wrong);
    common::assert_snapshot("errors/job_reflection.txt", &format!("{e}\n"));

    // The same program fully bound: it runs, with warnings for what is not used.
    let right = r#"
[program]
cs = "declares.ir"
[dispatch]
groups = [1, 1, 1]

[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 16
size = 64
counter = 0

[[resource]]
reg = "t0"
kind = "typed_buffer"
format = "R16_UINT"
size = 16

[[resource]]
reg = "t1"
kind = "texture2d"
format = "R8G8B8A8_UNORM_SRGB"
width = 2
height = 2

[[resource]]                    # smaller than declared: a warning
reg = "b0"
kind = "cbuffer"
size = 16

[[resource]]                    # not a comparison filter: a warning
reg = "s0"
kind = "sampler"

[[resource]]
reg = "u2"
kind = "raw_buffer"
size = 4

[[resource]]
reg = "u3"
kind = "raw_buffer"
null = true

[[resource]]
reg = "u4"
kind = "raw_buffer"
size = 4
counter_output = "x.bin"
"#;
    let e = error_of("reflection_counter_output", right);
    assert!(
        e.contains("`counter_output` does not apply to a raw_buffer"),
        "{e}"
    );
    let right = right.replace("counter_output = \"x.bin\"\n", "")
        + r#"
[[resource]]                    # the unbounded array t3.., space2: two elements
reg = "t3"
space = 2
kind = "texture2d"
format = "R32_FLOAT"
width = 1
height = 1

[[resource]]
reg = "t4"
space = 2
kind = "texture2d"
format = "R32_FLOAT"
width = 1
height = 1

[[resource]]                    # not declared
reg = "t9"
kind = "raw_buffer"
size = 4

[[heap]]                        # the program does not index the heap
descriptor = "srv"
kind = "raw_buffer"
size = 4
"#;
    let path = job_file("reflection_right", &right);
    let job = Job::load(&path).unwrap();
    let prepared =
        job::prepare(job, &crate::common::run_options()).unwrap_or_else(|e| panic!("{e}"));
    let dxlane::pipeline::Work::Dispatch(work) = &prepared.work else {
        panic!("a compute job prepares a dispatch");
    };
    assert_eq!(work.bindings.ranges[6].len(), 2, "t3 and t4 of t3..");
    assert_eq!(work.bindings.ranges[5].len(), 3, "u2..u4");
    let warnings = prepared.warnings().join("\n") + "\n";
    common::assert_snapshot("errors/job_warnings.txt", &warnings);
    let r = prepared.execute(&crate::common::run_options()).unwrap();
    let dxlane::job::Finished::Dispatch(r) = r else {
        panic!("a compute job finishes a dispatch");
    };
    assert_eq!(r.summary.warnings.len(), 4);
}

/// Outputs hold the final bytes; the summary says what ran and lists every output with
/// its size and MD5; the default summary path is `out/<stem>.summary.json`.
#[test]
fn job_outputs_and_summary() {
    let path = job_file("summary", DOUBLE);
    let dir = path.parent().unwrap();
    let r = run(&path).unwrap();
    assert_eq!(r.exit_code(), 0);
    let out = std::fs::read(dir.join("out/double.bin")).unwrap();
    assert_eq!(words(&out), vec![1, 3, 5, 7, 9, 11, 13, 15]);
    assert_eq!(r.summary_path, dir.join("out/job.summary.json"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&r.summary_path).unwrap()).unwrap();
    assert_eq!(json["program"]["container"], "IR");
    assert_eq!(json["program"]["stage"], "compute");
    assert_eq!(json["program"]["entry"], "main");
    assert_eq!(json["profile"], "warp-1.0.14");
    assert_eq!(json["wave_size"], 8);
    assert_eq!(json["thread_layout"], "linear");
    assert_eq!(json["thread_group"], serde_json::json!([4, 1, 1]));
    assert_eq!(json["groups"], serde_json::json!([2, 1, 1]));
    // 7 instructions and a terminator per lane, 8 lanes.
    assert_eq!(json["lane_instructions"], 64);
    assert!(json["elapsed_seconds"].as_f64().unwrap() >= 0.0);
    assert!(json["lane_instructions_per_second"].as_f64().is_some());
    let o = &json["outputs"][0];
    assert_eq!(o["bytes"], 32);
    assert_eq!(o["entry"], "[[resource]] #2 (u0)");
    assert!(o["path"].as_str().unwrap().ends_with("out/double.bin"));
    use md5::Digest;
    let md5: String = md5::Md5::digest(&out)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(o["md5"], md5.as_str());
    assert_eq!(json["expectations"]["passed"], 1);
    assert_eq!(json["expectations"]["failed"], 0);

    // `[options] summary` is relative to the job; the override is taken as given.
    let with_option = DOUBLE.replace(
        "[dispatch]",
        "[options]\nsummary = \"s/x.json\"\n[dispatch]",
    );
    let path = job_file("summary_option", &with_option);
    let r = run(&path).unwrap();
    assert_eq!(r.summary_path, path.parent().unwrap().join("s/x.json"));
    assert!(r.summary_path.exists());
    let elsewhere = path.parent().unwrap().join("elsewhere/y.json");
    let opts = RunOptions {
        summary: Some(elsewhere.clone()),
        threads: Some(1),
        wave_size: Some(16),
        profile: Some("warp-1.0.13".into()),
        ..crate::common::run_options()
    };
    let r = run_job(&path, &opts).unwrap();
    assert_eq!(r.summary_path, elsewhere);
    assert_eq!(
        (
            r.summary.threads,
            r.summary.wave_size,
            r.summary.profile.as_str()
        ),
        (1, 16, "warp-1.0.13")
    );
}

/// Expectations that fail are reported value by value (`u0 +0x10 [4]: expected …, got
/// …`); floats carry their ulp distance.
#[test]
fn job_expectations_report_mismatches() {
    let text = DOUBLE.replace(
        "u32 = [1, 3, 5, 7, 9, 11, 13, 15]",
        "u32 = [1, 3, 5, 7, 8, 11, 13, 15, 17]",
    ) + "\n[[expect]]\nreg = \"u0\"\noffset = 4\nf32 = [4.2e-45]\ntolerance = { ulp = 1 }\n\
         \n[[expect]]\nreg = \"u0\"\noffset = 8\ni32 = [5, 7]\n\
         \n[[expect]]\nreg = \"u0\"\noffset = 28\nhex = \"0f 00 00 00\"\n";
    let path = job_file("mismatch", &text);
    let r = run(&path).unwrap();
    assert_eq!(r.exit_code(), 1);
    let e = &r.summary.expectations;
    assert_eq!((e.passed, e.failed), (3, 1));
    let lines = e.results[0].mismatch_lines();
    assert_eq!(
        lines,
        vec![
            "u0 +0x10 [4]: expected 8 (0x00000008), got 9 (0x00000009)",
            "u0 +0x20 [8]: expected 17 (0x00000011), got missing (past the end of the output)",
        ]
    );
    // 4.2e-45 is the denormal with bits 3; the output holds 3: 0 ulp.
    assert!(e.results[1].passed);
}

/// The run summary states the highest shader model dxlane runs, as `dxlane info` does:
/// a `runs` line in the text and `dxlane_runs` in the JSON, for a dispatch and a draw.
#[test]
fn the_summary_states_the_highest_shader_model() {
    let path = job_file("runs", DOUBLE);
    let dir = path.parent().unwrap();
    let out = dxlane(&["run", "job.toml"], dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let line = format!(
        "runs          dxlane runs {}",
        dxlane::lower::dxil::runs_statement()
    );
    assert!(stdout.contains(&line), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/job.summary.json")).unwrap())
            .unwrap();
    assert_eq!(json["dxlane_runs"]["highest_shader_model"], "6.9");
    assert_eq!(
        json["dxlane_runs"]["refused"].as_array().unwrap().len(),
        dxlane::lower::dxil::REFUSED_FEATURES.len()
    );
    let draw = common::root().join("tests/jobs/sm68/heap_ps.toml");
    let out = dxlane(
        &[
            "run",
            draw.to_str().unwrap(),
            "--out-dir",
            dir.join("draw").to_str().unwrap(),
        ],
        dir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(&line), "{stdout}");
    let summary = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary       "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(summary)).unwrap()).unwrap();
    assert_eq!(json["dxlane_runs"]["highest_shader_model"], "6.9");
}

/// `dxlane run` exits 0 when every expectation holds, 1 when one fails (printing the
/// mismatch), 2 on errors (one line on stderr: `dxlane: JOB: message`).
#[test]
fn job_cli_exit_codes() {
    let path = job_file("cli", DOUBLE);
    let dir = path.parent().unwrap();
    let ok = dxlane(&["run", "job.toml"], dir);
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("expectations  1 passed, 0 failed"),
        "{stdout}"
    );
    assert!(stdout.contains("out/double.bin (32 bytes)"), "{stdout}");
    assert!(stdout.contains("lane-instructions"), "{stdout}");

    std::fs::write(dir.join("fail.toml"), DOUBLE.replace("[1, 3,", "[2, 3,")).unwrap();
    let fail = dxlane(&["run", "fail.toml", "--quiet"], dir);
    let stdout = String::from_utf8_lossy(&fail.stdout);
    assert_eq!(fail.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout,
        "FAIL [[expect]] #1 (u0): 1 of 8 values differ\n  u0 +0x0 [0]: expected 2 (0x00000002), got 1 (0x00000001)\nexpectations  0 passed, 1 failed\n"
    );

    std::fs::write(
        dir.join("bad.toml"),
        DOUBLE.replace(
            "kind = \"structured_buffer\"\nstride = 4\nsize = 32",
            "kind = \"typed_buffer\"\nformat = \"R8G8B8A8_UNROM\"\nsize = 32",
        ),
    )
    .unwrap();
    let bad = dxlane(&["run", "bad.toml"], dir);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "dxlane: bad.toml: [[resource]] #2 (u0): unknown format \"R8G8B8A8_UNROM\" (did you mean R8G8B8A8_UNORM?)\n"
    );
    assert!(bad.stdout.is_empty());

    let flags = dxlane(
        &[
            "run",
            "job.toml",
            "--threads",
            "1",
            "--wave-size",
            "4",
            "--profile",
            "warp-1.0.13",
            "--summary",
            "flags.json",
        ],
        dir,
    );
    assert_eq!(flags.status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("flags.json")).unwrap()).unwrap();
    assert_eq!(json["wave_size"], 4);
    assert_eq!(json["threads"], 1);
    assert_eq!(json["profile"], "warp-1.0.13");

    // A binding the program does not declare: a warning on stderr, and the run goes on.
    std::fs::write(
        dir.join("extra.toml"),
        format!("{DOUBLE}\n[[resource]]\nreg = \"t5\"\nkind = \"raw_buffer\"\nsize = 4\n"),
    )
    .unwrap();
    let extra = dxlane(&["run", "extra.toml", "-q"], dir);
    assert_eq!(extra.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&extra.stderr),
        "dxlane: warning: extra.toml: [[resource]] #3 (t5): the program declares no t5; this binding is not used\n"
    );
    assert!(
        extra.stdout.is_empty(),
        "quiet and passing: nothing on stdout"
    );

    let missing = dxlane(&["run", "nothing.toml"], dir);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    // The job file is named once (issue 12: not `nothing.toml: nothing.toml:`).
    assert!(
        stderr.starts_with("dxlane: nothing.toml: No such file"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}

/// A PNG fills an 8-bit texture and a PNG output gives the same pixels back; `.bin`
/// outputs hold the raw texels.
#[test]
fn job_png_round_trip() {
    let dir = workdir("png");
    let pixels: Vec<u8> = (0..64u32).map(|i| (i * 37 % 251) as u8).collect();
    image::RgbaImage::from_raw(4, 4, pixels.clone())
        .unwrap()
        .save(dir.join("in.png"))
        .unwrap();
    let text = r#"
[program]
cs = "copy_texture.ir"
[dispatch]
groups = [1, 1, 1]
[[resource]]
reg = "t0"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
data = { file = "in.png" }
[[resource]]
reg = "u0"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
output = "out/copy.png"
"#;
    std::fs::write(dir.join("png.toml"), text).unwrap();
    std::fs::write(
        dir.join("bin.toml"),
        text.replace("out/copy.png", "out/copy.bin"),
    )
    .unwrap();
    run(&dir.join("png.toml")).unwrap_or_else(|e| panic!("{e}"));
    let back = image::open(dir.join("out/copy.png")).unwrap().to_rgba8();
    assert_eq!(back.dimensions(), (4, 4));
    assert_eq!(back.as_raw(), &pixels);
    run(&dir.join("bin.toml")).unwrap();
    assert_eq!(std::fs::read(dir.join("out/copy.bin")).unwrap(), pixels);

    // A PNG of the wrong size is refused, naming the entry.
    std::fs::write(
        dir.join("size.toml"),
        text.replace("width = 4\nheight = 4\ndata", "width = 2\nheight = 2\ndata"),
    )
    .unwrap();
    let e = run(&dir.join("size.toml")).unwrap_err().to_string();
    assert!(
        e.starts_with("[[resource]] #1 (t0): `data`: ")
            && e.ends_with("is 4×4 but the subresource is 2×2"),
        "{e}"
    );
}

/// The same jobs on one worker and on four write identical outputs (DESIGN: results do
/// not depend on the thread count; the histogram's commutative atomics included), with
/// the examples' compiled programs and with their IR twins.
#[test]
fn job_outputs_do_not_depend_on_worker_count() {
    for (name, example) in [
        ("prefix_sum", "prefix_sum.toml"),
        ("f32tof16", "f32tof16.toml"),
        ("histogram", "histogram.toml"),
    ] {
        let compiled = common::root()
            .join("shaders")
            .join(format!("{name}.cs_5_0.dxbc"));
        for (k, program) in [format!("{name}.ir"), compiled.display().to_string()]
            .iter()
            .enumerate()
        {
            let mut outputs = Vec::new();
            for threads in [1usize, 4] {
                let dir = format!("det_{name}_{k}_{threads}");
                let path = example_with_program(&dir, example, program);
                let r = run_job(
                    &path,
                    &RunOptions {
                        threads: Some(threads),
                        ..crate::common::run_options()
                    },
                )
                .unwrap_or_else(|e| panic!("{program}: {e}"));
                assert!(r.passed(), "{program}: {:#?}", r.summary.expectations);
                // The histogram's list is in the order groups appended to it: compare its
                // contents as a set, everything else byte for byte.
                let files: Vec<(String, Vec<u8>)> = r
                    .summary
                    .outputs
                    .iter()
                    .map(|o| {
                        let mut bytes = std::fs::read(&o.path).unwrap();
                        if o.path.ends_with("histogram.list.bin") {
                            let mut w = words(&bytes);
                            w.sort_unstable();
                            bytes = w.iter().flat_map(|x| x.to_le_bytes()).collect();
                        }
                        let file = Path::new(&o.path).file_name().unwrap();
                        (file.to_string_lossy().into_owned(), bytes)
                    })
                    .collect();
                outputs.push(files);
            }
            assert_eq!(outputs[0], outputs[1], "{program}");
        }
    }
}

/// `examples/NAME.toml` with its program replaced by the IR twin in `tests/jobs/`, in a
/// fresh folder.
fn ir_twin_of_example(dir_name: &str, example: &str) -> PathBuf {
    example_with_program(dir_name, example, &example.replace(".toml", ".ir"))
}

/// `examples/NAME.toml` in a fresh folder, its program `cs` (relative to that folder or
/// absolute).
fn example_with_program(dir_name: &str, example: &str, cs: &str) -> PathBuf {
    let dir = workdir(dir_name);
    let text = std::fs::read_to_string(common::root().join("examples").join(example)).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("cs = ") {
                format!("cs = \"{cs}\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = dir.join(example);
    std::fs::write(&path, text).unwrap();
    path
}

/// The examples' jobs and expectations, run with the IR twins of their shaders (the same
/// algorithm written by hand in the IR), so they are checked before the lowering exists.
#[test]
fn job_examples_hold_with_ir_twins() {
    for example in ["prefix_sum.toml", "histogram.toml", "f32tof16.toml"] {
        let path = ir_twin_of_example(&format!("twin_{example}"), example);
        let r = run(&path).unwrap_or_else(|e| panic!("{example}: {e}"));
        assert!(r.passed(), "{example}: {:#?}", r.summary.expectations);
        assert!(
            r.summary.warnings.is_empty(),
            "{example}: {:?}",
            r.summary.warnings
        );
    }
}

/// Every `examples/*.toml` runs as shipped (with its compiled program) and all its
/// expectations hold.
#[test]
fn job_examples_run() {
    let mut examples: Vec<PathBuf> = std::fs::read_dir(common::root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // Draw jobs are run, and their images compared, by `draw::draw_examples_match_goldens`;
        // ray-tracing jobs (DXIL libraries) by `cornell`.
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.contains("\n[draw]") && !text.contains("\n[rays]")
        })
        .collect();
    examples.sort();
    assert!(examples.len() >= 4, "{examples:?}");
    let summaries = common::scratch().join("job/examples");
    let mut failures = Vec::new();
    for path in &examples {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let opts = RunOptions {
            summary: Some(summaries.join(format!("{name}.json"))),
            ..crate::common::run_options()
        };
        // Both engines, outputs compared byte for byte.
        match common::run_job_both(path, &format!("examples/{name}"), opts) {
            Ok(r) if r.passed() && r.summary.warnings.is_empty() => {
                assert_eq!(r.summary.program.container, "DXBC", "{name}");
            }
            Ok(r) => failures.push(format!(
                "{name}: {:?}\n{:#?}",
                r.summary.warnings, r.summary.expectations
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// D3D12 binding rules `run` allows (resource binding tier 3): a declared array bound in
/// part runs, with a warning that lists the unbound elements; a lane that accesses one
/// stops the run with an error naming the lane, the instruction and the element. A null
/// descriptor keeps its view's kind and format.
#[test]
fn job_partial_ranges_and_null_views() {
    let program = |threads: u32| {
        format!(
            "shader compute
group [{threads} 1 1]
const r0 = 0
const r1 = 4
resource range0 = srv space 0 lower 0 count 4 structured_buffer(stride 4) uint \"b\"
resource range1 = uav space 0 lower 0 count 1 raw_buffer uint \"out\"
block0:
    sysval thread_id, 0, r2
    handle r3, range0, r2
    struct_load b32, 1, [r4 _ _ _], r3, r0, r0
    imul r5, r2, r1
    handle r6, range1, r0
    raw_store b32, 1, r6, r5, [r4 _ _ _]
    return
"
        )
    };
    let job = r#"[program]
cs = "array.ir"

[dispatch]
groups = [1, 1, 1]

[[resource]]
reg = "t0"
kind = "structured_buffer"
stride = 4
data = { u32 = [10] }

[[resource]]
reg = "t1"
kind = "structured_buffer"
stride = 4
data = { u32 = [11] }

[[resource]]
reg = "u0"
kind = "raw_buffer"
size = 16

[[expect]]
reg = "u0"
u32 = [10, 11]
"#;
    // Two threads reach t0 and t1 only: the run holds, with the warning.
    let path = job_file("partial_ranges", job);
    let dir = path.parent().unwrap().to_path_buf();
    std::fs::write(dir.join("array.ir"), program(2)).unwrap();
    let r = run(&path).unwrap();
    assert!(r.passed());
    assert!(
        r.summary
            .warnings
            .iter()
            .any(|w| w.contains("leaves 2 unbound: t2..t3")
                && w.contains("a lane that accesses one stops the run")),
        "{:?}",
        r.summary.warnings
    );
    // Four threads: thread 2 reads t2.
    std::fs::write(dir.join("array.ir"), program(4)).unwrap();
    let e = run(&path).unwrap_err().to_string();
    assert!(
        e.contains("thread (2, 0, 0)") && e.contains("struct_load") && e.contains("accesses t2"),
        "{e}"
    );
    // No element bound at all is still an error.
    let none = job
        .replace("reg = \"t0\"", "reg = \"t8\"")
        .replace("reg = \"t1\"", "reg = \"t9\"");
    std::fs::write(&path, none).unwrap();
    let e = run(&path).unwrap_err().to_string();
    assert!(e.contains("binds none of it"), "{e}");
    // A null descriptor with its view's format and stride.
    let null = job
        .replace(
            "reg = \"t1\"\nkind = \"structured_buffer\"\nstride = 4\ndata = { u32 = [11] }",
            "reg = \"t1\"\nkind = \"structured_buffer\"\nstride = 4\nnull = true",
        )
        .replace("u32 = [10, 11]", "u32 = [10, 0]");
    std::fs::write(&path, null).unwrap();
    std::fs::write(dir.join("array.ir"), program(2)).unwrap();
    let r = run(&path).unwrap();
    assert!(r.passed(), "a null structured buffer reads 0");
    let typed = r#"[program]
cs = "array.ir"
[dispatch]
groups = [1, 1, 1]
[[resource]]
reg = "t9"
kind = "typed_buffer"
format = "R32G32B32A32_FLOAT"
null = true
"#;
    std::fs::write(&path, typed).unwrap();
    let e = run(&path).unwrap_err().to_string();
    assert!(!e.contains("does not apply to a null descriptor"), "{e}");
}

/// Image files fill subresources (a 16-bit PNG into mip 0, an 8-bit one into mip 1 of a
/// 16-bit UNORM texture), a 16-bit texture writes a 16-bit PNG, and `outputs` write single
/// subresources as `.png` and `.bin` (`job::image_io`).
#[test]
fn image_data_and_subresource_outputs() {
    let dir = workdir("image_data");
    let mut big = image::ImageBuffer::<image::Rgba<u16>, Vec<u16>>::new(4, 4);
    for (i, p) in big.pixels_mut().enumerate() {
        let v = (i as u16).wrapping_mul(4099);
        *p = image::Rgba([v, !v, v ^ 0x5555, 0xffff - i as u16]);
    }
    big.save(dir.join("in16.png")).unwrap();
    let mut small = image::RgbaImage::new(2, 2);
    for (i, p) in small.pixels_mut().enumerate() {
        *p = image::Rgba([i as u8 * 50, 7, 200, 255]);
    }
    small.save(dir.join("mip1.png")).unwrap();
    let text = r#"
[program]
cs = "copy_texture.ir"
[dispatch]
groups = [1, 1, 1]
[[resource]]
reg = "t0"
kind = "texture2d"
format = "R16G16B16A16_UNORM"
width = 4
height = 4
mips = 2
data = { images = ["in16.png", "mip1.png"] }
outputs = [{ file = "out/t0_mip1.png", mip = 1 }, { file = "out/t0_mip0.bin" }]
[[resource]]
reg = "u0"
kind = "texture2d"
format = "R16G16B16A16_UNORM"
width = 4
height = 4
output = "out/copy.png"
"#;
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    let r = run(&path).unwrap();
    assert!(r.passed());
    let copy = image::open(dir.join("out/copy.png")).unwrap().to_rgba16();
    assert_eq!(copy.as_raw(), big.as_raw());
    let m1 = image::open(dir.join("out/t0_mip1.png"))
        .unwrap()
        .to_rgba16();
    let widened: Vec<u16> = small.as_raw().iter().map(|&b| u16::from(b) * 257).collect();
    assert_eq!(m1.as_raw(), &widened);
    let bin = std::fs::read(dir.join("out/t0_mip0.bin")).unwrap();
    let le: Vec<u8> = big.as_raw().iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(bin, le);
}

/// A BC7 texture (typeless, viewed as BC7_UNORM) loaded texel by texel through a job;
/// its mip 1 (2×2, part of one block) written as `.bin` is that block.
#[test]
fn block_compressed_texture_in_a_job() {
    let dir = workdir("bc7_job");
    // Two mips of 4×4 and 2×2: one block each. Mode 6 block with both endpoints white.
    let mut block = [0xffu8; 16];
    block[0] = 0x40;
    let mut data = block.to_vec();
    data.extend_from_slice(&block);
    std::fs::write(dir.join("bc7.bin"), &data).unwrap();
    let text = r#"
[program]
cs = "copy_texture.ir"
[dispatch]
groups = [1, 1, 1]
[[resource]]
reg = "t0"
kind = "texture2d"
format = "BC7_TYPELESS"
view_format = "BC7_UNORM"
width = 4
height = 4
mips = 2
data = { file = "bc7.bin" }
outputs = [{ file = "out/mip1.bin", mip = 1 }]
[[resource]]
reg = "u0"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
output = "out/copy.bin"
"#;
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    run(&path).unwrap();
    let copy = std::fs::read(dir.join("out/copy.bin")).unwrap();
    for (i, t) in copy.chunks_exact(4).enumerate() {
        assert_eq!(t, bc7_texel(&block, i), "texel {i}");
    }
    assert_eq!(std::fs::read(dir.join("out/mip1.bin")).unwrap(), block);
}

/// Texel `i` of a BC7 block as 8-bit UNORM, decoded by the library.
fn bc7_texel(block: &[u8; 16], i: usize) -> [u8; 4] {
    let v = Format::BC7_UNORM.decode_block_texel(block, i);
    v.map(|b| (f32::from_bits(b) * 255.0).round() as u8)
}

/// A command list's warnings are printed once, and a warning about a `bind` entry names
/// its command once: the entry's label already leads with it.
#[test]
fn list_warnings_are_printed_once() {
    let root = common::root();
    let text = std::fs::read_to_string(root.join("examples/lists/two_pass_scan.toml"))
        .unwrap()
        .replace(
            "../../shaders/",
            &format!("{}/", root.join("shaders").display()),
        )
        .replace(
            "../data/",
            &format!("{}/", root.join("examples/data").display()),
        )
        .replacen(
            "    { reg = \"u1\", resource = \"totals\" },\n]",
            "    { reg = \"u1\", resource = \"totals\" },\n    { reg = \"t7\", resource = \"input\" },\n]",
            1,
        );
    assert!(text.contains("t7"), "the example's first bind list changed");
    let path = job_file("list_warnings_once", &text);
    let out = dxlane(&["run", "job.toml", "--quiet"], path.parent().unwrap());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("t7")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert_eq!(
        lines[0].matches("[[command]] #1 (dispatch)").count(),
        1,
        "{stderr}"
    );
    assert!(lines[0].contains("this binding is not used"), "{stderr}");
}
