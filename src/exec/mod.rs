//! Executing the interpreter IR in waves of lanes, with WARP's arithmetic rules.
