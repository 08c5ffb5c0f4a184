//! dxlane's integration tests: one binary, a module per area.
//!
//! `DXLANE_BLESS=1 cargo test` rewrites the snapshots under `tests/snapshots/`; review
//! the diff before committing it.

mod architecture;
mod batch;
mod capture;
mod command_list;
mod common;
mod container;
mod corpus_jobs;
mod d3d12_peer;
mod dap;
mod debug;
mod debug_scripts;
mod draw;
mod draw_rules;
mod draw_twins;
mod dxbc;
mod dxil;
mod dxil_listing;
mod engines;
mod exec;
mod exec_arith_table;
mod exec_rayquery;
mod exec_robust;
mod fuzz_bodies;
mod gpu;
mod hostile;
mod info;
mod info_check;
mod jit;
mod job;
mod lane_lookup;
mod list_stages;
mod lower_dxbc;
mod lower_dxbc_stage;
mod lower_dxil;
mod lower_dxil_e2e;
mod lower_dxil_stage;
mod mesh;
mod offload;
mod opt;
mod path_safety;
mod provenance;
mod rays;
mod raytracing;
mod sampling_lavapipe;
mod scale_docs;
mod shader_test;
mod stream_output;
mod tessellate;
mod tessellation_stages;
mod twins;
mod untrusted;
mod vkd3d;
mod wgpu_reference;
