//! Data layout.
