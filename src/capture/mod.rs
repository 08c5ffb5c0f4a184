//! Captures: recorded outputs, replay and comparison.
