//! Buffer definitions.
