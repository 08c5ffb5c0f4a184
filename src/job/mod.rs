//! The job file (TOML): the program, its bindings, the dispatch and the outputs.
//!
//! Owns the user-facing contract of DESIGN's "Job file": parsing it ([`schema`]), the
//! initial data forms ([`data`]), and checking outputs against `[[expect]]` entries
//! ([`expect`]).

pub mod data;
pub mod expect;
pub mod schema;

pub use schema::JobFile;

/// Parses a job file's text. Errors carry TOML's line and column.
pub fn parse(text: &str) -> Result<JobFile, toml::de::Error> {
    toml::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_example_parses() {
        let text = r#"
[program]
cs = "../shaders/mandelbrot.cs_5_0.dxbc"
entry = "main"

[dispatch]
groups = [16, 16, 1]

[options]
wave_size = 8
threads = 0

[[resource]]
reg = "u0"
space = 0
kind = "structured_buffer"
stride = 4
size = 1048576
counter = 0
data = { u32 = [1, 2, 3] }
output = "out/mandel.bin"
counter_output = "out/u0.counter.bin"

[[resource]]
reg = "s0"
kind = "sampler"
filter = "MIN_MAG_MIP_LINEAR"
address = ["WRAP", "CLAMP", "CLAMP"]

[[heap]]
descriptor = "uav"
kind = "structured_buffer"
stride = 4
size = 4
output = "out/heap0.bin"

[[expect]]
reg = "u0"
offset = 4
f32 = [1.5, "NaN", "-inf", "-0"]
tolerance = { ulp = 2 }
"#;
        let job = parse(text).unwrap();
        assert_eq!(job.dispatch.unwrap().groups, [16, 16, 1]);
        assert_eq!(job.resources.len(), 2);
        assert_eq!(job.heap[0].descriptor.as_deref(), Some("uav"));
        assert_eq!(job.expects[0].tolerance, schema::Tolerance::Ulp(2));
        assert_eq!(job.expects[0].f32.as_ref().unwrap()[3].bits(), 0x8000_0000);
    }

    #[test]
    fn misspelt_key_is_refused_with_its_line() {
        let e = parse("[program]\ncs = \"a\"\n[dispatch]\ngroup = [1, 1, 1]\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("group") && msg.contains("line 4"), "{msg}");
    }
}
