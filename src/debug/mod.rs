//! Stepping one lane of a program.
