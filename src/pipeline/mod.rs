//! Running programs: compute dispatch (and later the graphics pipeline).
