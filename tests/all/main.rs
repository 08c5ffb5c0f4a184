//! dxlane's integration tests: one binary, a module per area.
//!
//! `DXLANE_BLESS=1 cargo test` rewrites the snapshots under `tests/snapshots/`; review
//! the diff before committing it.

mod common;
mod container;
mod dxil;
mod dxil_listing;
mod info;
mod info_check;
mod untrusted;
