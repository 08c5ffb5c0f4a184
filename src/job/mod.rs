//! The job file (TOML): the program, its bindings, the dispatch and the outputs.
