//! Shader Model 4.0–5.1 tokenized programs: decoding and the fxc-style listing.
