//! Says, where `cargo test` shows it, which comparisons with external tools the tests
//! will skip: the vkd3d-compiler listing comparisons, the llvm-dis module comparisons
//! and the check of the generated `dx.op` table against its generator run only where
//! those tools are found (`VKD3D_COMPILER` / `LLVM_DIS` / `PYTHON3`, or on `PATH`).
//! Nothing is built here.

use std::path::Path;

fn found(env: &str, names: &[&str]) -> bool {
    if std::env::var_os(env).is_some_and(|v| Path::new(&v).is_file()) {
        return true;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| names.iter().any(|n| d.join(n).is_file()))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for v in ["PATH", "VKD3D_COMPILER", "LLVM_DIS", "PYTHON3"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    // Only builds that run the tests need to hear it.
    if std::env::var("PROFILE").is_ok_and(|p| p == "release") {
        return;
    }
    if !found("VKD3D_COMPILER", &["vkd3d-compiler"]) {
        println!(
            "cargo:warning=vkd3d-compiler not found (VKD3D_COMPILER unset, not on PATH): the tests skip the DXBC listing comparisons with vkd3d and the vkd3d-compiled twins"
        );
    }
    if !found("PYTHON3", &["python3"]) {
        println!(
            "cargo:warning=python3 not found (PYTHON3 unset, not on PATH): the tests skip checking src/dxil/dxop_table.rs against tools/gen-dxop-table.py"
        );
    }
    if !found("LLVM_DIS", &["llvm-dis-14", "llvm-dis"]) {
        println!(
            "cargo:warning=llvm-dis not found (LLVM_DIS unset, no llvm-dis-14 on PATH): the tests skip the DXIL module and listing comparisons with llvm-dis"
        );
    }
}
