//! Reading a shader-test file into sections, each line kept with its number. Commands and
//! qualifiers are checked here for their shape; conditions are decided per run.

use std::path::{Path, PathBuf};

use super::ShaderTestError;

/// Bytes of a shader-test file read, at most.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// A shader model, `major * 10 + minor` (40 = 4.0, 51 = 5.1, 60 = 6.0).
pub type Model = u32;

/// The shader models a file is run under, in order: the SM 4–5 models vkd3d-compiler
/// builds and SM 6.0 (dxc).
pub const MODELS: &[Model] = &[40, 41, 50, 51, 60];

/// A whole file.
#[derive(Debug, Clone)]
pub struct ShaderTest {
    /// Where it was read from (errors name it).
    pub path: PathBuf,
    /// Its sections, in order.
    pub sections: Vec<Section>,
}

/// One `[…]` section and its lines.
#[derive(Debug, Clone)]
pub struct Section {
    /// The line of its `[…]` header.
    pub line: usize,
    /// What it is.
    pub kind: SectionKind,
    /// Its body lines with their numbers (`%` comments dropped; blank lines kept only in
    /// shaders).
    pub body: Vec<(usize, String)>,
    /// A `dxbc-tpf-hex` shader section's program: the DXBC container its hexadecimal
    /// words spell ([`hex_program`]), checked as a container when the file is read.
    pub program: Option<Vec<u8>>,
}

/// The stages a shader section can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `[pixel shader]`.
    Pixel,
    /// `[vertex shader]`.
    Vertex,
    /// `[compute shader]`.
    Compute,
    /// `[hull shader]` (SM 5.0 and up).
    Hull,
    /// `[domain shader]` (SM 5.0 and up).
    Domain,
    /// `[geometry shader]`.
    Geometry,
}

impl Stage {
    /// The profile prefix (`ps`, `vs`, `cs`, `hs`, `ds`, `gs`), also the job's
    /// `[program]` key.
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Compute => "cs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Geometry => "gs",
        }
    }

    /// The section's name (`pixel` of `[pixel shader]`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Pixel => "pixel",
            Stage::Vertex => "vertex",
            Stage::Compute => "compute",
            Stage::Hull => "hull",
            Stage::Domain => "domain",
            Stage::Geometry => "geometry",
        }
    }
}

/// A qualifier with its condition text (`None`: always).
#[derive(Debug, Clone, PartialEq)]
pub struct Qualifier {
    /// `todo`, `fail`, `notimpl`, `if`, `bug_if`.
    pub word: String,
    /// The condition, parsed.
    pub condition: Option<Condition>,
}

/// `a & b | c`: any of the conjunctions holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition(pub Vec<Vec<Term>>);

/// One term of a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// `sm OP model`.
    Model {
        /// `<`, `<=`, `>`, `>=`, `==`.
        op: String,
        /// The model compared with.
        model: Model,
        /// `!` before it.
        negated: bool,
    },
    /// A runner's tag.
    Tag {
        /// The tag.
        name: String,
        /// `!` before it.
        negated: bool,
    },
}

impl Condition {
    /// Whether the condition holds under `model` with the tags `tags`.
    pub fn holds(&self, model: Model, tags: &[&str]) -> bool {
        self.0.iter().any(|all| {
            all.iter().all(|t| match t {
                Term::Model {
                    op,
                    model: m,
                    negated,
                } => {
                    let v = match op.as_str() {
                        "<" => model < *m,
                        "<=" => model <= *m,
                        ">" => model > *m,
                        ">=" => model >= *m,
                        _ => model == *m,
                    };
                    v != *negated
                }
                Term::Tag { name, negated } => tags.contains(&name.as_str()) != *negated,
            })
        })
    }
}

impl Qualifier {
    /// Whether it applies under `model` and `tags`.
    pub fn holds(&self, model: Model, tags: &[&str]) -> bool {
        self.condition.as_ref().is_none_or(|c| c.holds(model, tags))
    }
}

/// What a section is.
#[derive(Debug, Clone, PartialEq)]
pub enum SectionKind {
    /// `[require]`.
    Require,
    /// A shader and its qualifiers.
    Shader {
        /// The stage.
        stage: Stage,
        /// `todo`, `fail`, `notimpl` qualifiers.
        qualifiers: Vec<Qualifier>,
        /// `dxbc-tpf-hex`: the body is a compiled DXBC program in hexadecimal words
        /// ([`Section::program`]), not HLSL.
        hex: bool,
    },
    /// `[effect]`: an effect (`technique10` …) that is compiled, never run, with the
    /// `todo`, `fail` and `notimpl` qualifiers of a shader section.
    Effect {
        /// `todo`, `fail`, `notimpl` qualifiers.
        qualifiers: Vec<Qualifier>,
    },
    /// `[srv n]`, `[uav n]`, `[rtv n]`, `[dsv]`, `[vb n]`.
    Resource {
        /// `srv`, `uav`, `rtv`, `dsv`, `vb`.
        class: String,
        /// The slot.
        slot: u32,
    },
    /// `[sampler n]`.
    Sampler {
        /// The slot.
        slot: u32,
    },
    /// `[input layout]`.
    InputLayout,
    /// `[test]`.
    Test,
    /// A section dxlane reads past (`[preproc]`, `[effect]`, …): the runs that reach it
    /// are skipped, naming it.
    Unsupported(String),
}

/// Reads and parses a file.
pub fn parse_file(path: &Path) -> Result<ShaderTest, ShaderTestError> {
    let bytes = crate::job::paths::read_input(path, MAX_FILE_BYTES, "the shader-test size limit")
        .map_err(|message| ShaderTestError {
        file: path.to_path_buf(),
        line: 0,
        message,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ShaderTestError {
        file: path.to_path_buf(),
        line: 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count(),
        message: "not UTF-8 text".into(),
    })?;
    parse(&text, path)
}

/// Parses a file's text (`path` names it in errors).
pub fn parse(text: &str, path: &Path) -> Result<ShaderTest, ShaderTestError> {
    let err = |line: usize, message: String| ShaderTestError {
        file: path.to_path_buf(),
        line,
        message,
    };
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.starts_with('[') {
            let inner = line
                .strip_prefix('[')
                .and_then(|l| l.rfind(']').map(|at| &l[..at]))
                .ok_or_else(|| err(n, format!("`{line}`: a section header ends with `]`")))?;
            let kind = section_kind(inner.trim()).map_err(|m| err(n, m))?;
            sections.push(Section {
                line: n,
                kind,
                body: Vec::new(),
                program: None,
            });
            continue;
        }
        let Some(current) = sections.last_mut() else {
            if line.trim().is_empty() || line.starts_with('%') {
                continue;
            }
            return Err(err(n, format!("`{line}` before the first [section]")));
        };
        // vkd3d's reader drops every line starting with `%`, inside shaders too (a
        // comment between two shader sections belongs to neither program); blank lines
        // are kept in shaders so that compiler messages keep their line numbers.
        let in_shader = matches!(
            current.kind,
            SectionKind::Shader { .. } | SectionKind::Effect { .. }
        );
        if line.starts_with('%') || (!in_shader && line.trim().is_empty()) {
            continue;
        }
        current.body.push((n, line.to_string()));
    }
    if sections.is_empty() {
        return Err(err(0, "no sections: not a shader-test file".into()));
    }
    // A hexadecimal program is decoded and checked now, so a malformed one fails the file
    // at its line before any run.
    for s in &mut sections {
        if let SectionKind::Shader {
            stage, hex: true, ..
        } = s.kind
        {
            let bytes = hex_program(&s.body).map_err(|(n, m)| err(n, m))?;
            if let Err(e) = crate::container::Container::parse(&bytes) {
                return Err(err(
                    s.line,
                    format!(
                        "[{} shader dxbc-tpf-hex]: its {} bytes are not a DXBC container: {e}",
                        stage.name(),
                        bytes.len()
                    ),
                ));
            }
            s.program = Some(bytes);
        }
    }
    // Check the shape of every command now, so a malformed file fails before any run.
    for s in &sections {
        if s.kind == SectionKind::Test {
            for (n, l) in &s.body {
                let (_, rest) = split_qualifiers(l).map_err(|m| err(*n, m))?;
                super::run::parse_command(rest).map_err(|m| err(*n, m))?;
            }
        }
    }
    Ok(ShaderTest {
        path: path.to_path_buf(),
        sections,
    })
}

/// The bytes a `dxbc-tpf-hex` section's body spells, as vkd3d's runner reads it
/// (`parse_hex` in its `tests/shader_runner.c`): every 8 hexadecimal digits (either case)
/// are one 32-bit word, most significant digit first, stored little-endian; words may
/// run together or be parted by whitespace; `%` starts a comment to the end of the line;
/// whitespace, a comment or the end of the section inside a word, or any other
/// character, is an error naming its line.
pub fn hex_program(body: &[(usize, String)]) -> Result<Vec<u8>, (usize, String)> {
    let mut out = Vec::new();
    let (mut value, mut digits) = (0u32, 0u32);
    let mut last = 0;
    let partial = |n: usize, digits: u32, at: &str| {
        (
            n,
            format!("a word of {digits} hexadecimal digit(s) ends at {at}: each word is 8"),
        )
    };
    for (n, line) in body {
        last = *n;
        for c in line.chars() {
            if c.is_whitespace() || c == '%' {
                if digits != 0 {
                    let at = if c == '%' { "a comment" } else { "a space" };
                    return Err(partial(*n, digits, at));
                }
                if c == '%' {
                    break;
                }
                continue;
            }
            let d = c.to_digit(16).ok_or_else(|| {
                (
                    *n,
                    format!("`{c}` is not a hexadecimal digit (a dxbc-tpf-hex section holds words of 8 digits and % comments)"),
                )
            })?;
            value = value << 4 | d;
            digits += 1;
            if digits == 8 {
                out.extend_from_slice(&value.to_le_bytes());
                (value, digits) = (0, 0);
            }
        }
        // A line break is whitespace: a word does not run on to the next line.
        if digits != 0 {
            return Err(partial(*n, digits, "the end of the line"));
        }
    }
    if out.is_empty() {
        return Err((last, "the section holds no words".into()));
    }
    Ok(out)
}

fn section_kind(inner: &str) -> Result<SectionKind, String> {
    let lower = inner.to_ascii_lowercase();
    for (name, stage) in [
        ("pixel shader", Some(Stage::Pixel)),
        ("vertex shader", Some(Stage::Vertex)),
        ("compute shader", Some(Stage::Compute)),
        ("hull shader", Some(Stage::Hull)),
        ("domain shader", Some(Stage::Domain)),
        ("geometry shader", Some(Stage::Geometry)),
        ("effect", None),
    ] {
        if let Some(rest) = lower.strip_prefix(name) {
            // The source format words stand anywhere among the qualifiers (vkd3d's
            // `read_shader_directive`).
            let mut hex = false;
            let mut other_format = None;
            let kept: Vec<&str> = rest
                .split_whitespace()
                .filter(|w| match *w {
                    "dxbc-tpf-hex" => {
                        hex = true;
                        false
                    }
                    "d3dbc-hex" | "dxbc-dxil-hex" => {
                        other_format = Some(*w);
                        false
                    }
                    _ => true,
                })
                .collect();
            let rest = kept.join(" ");
            let (qualifiers, left) = qualifiers(&rest)?;
            if !left.trim().is_empty() {
                return Err(format!("[{inner}]: unknown qualifier `{}`", left.trim()));
            }
            for q in &qualifiers {
                if !matches!(q.word.as_str(), "todo" | "fail" | "notimpl") {
                    return Err(format!(
                        "[{inner}]: qualifier `{}`: give todo, fail or notimpl",
                        q.word
                    ));
                }
            }
            return Ok(match (stage, other_format) {
                // SM 1–3 bytecode and DXIL containers given in hexadecimal: no run of
                // dxlane's takes them (`d3dbc-hex` is for SM 1–3; `dxbc-dxil-hex` for
                // SM 6, whose programs dxlane's runner builds with dxc).
                // An effect given as bytes: dxlane's runs compile effects from HLSL only.
                (_, Some(_)) => SectionKind::Unsupported(inner.to_string()),
                (None, None) if hex => SectionKind::Unsupported(inner.to_string()),
                (None, None) => SectionKind::Effect { qualifiers },
                (Some(stage), None) => SectionKind::Shader {
                    stage,
                    qualifiers,
                    hex,
                },
            });
        }
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let slot = |w: Option<&&str>| -> Result<u32, String> {
        w.ok_or_else(|| format!("[{inner}]: give the slot number"))?
            .parse()
            .map_err(|_| format!("[{inner}]: the slot is not a number"))
    };
    match words.as_slice() {
        ["require"] => Ok(SectionKind::Require),
        ["test"] => Ok(SectionKind::Test),
        ["input", "layout"] => Ok(SectionKind::InputLayout),
        ["dsv"] => Ok(SectionKind::Resource {
            class: "dsv".into(),
            slot: 0,
        }),
        [c @ ("srv" | "uav" | "rtv" | "vb" | "texture"), rest @ ..] if rest.len() <= 1 => {
            let class = if *c == "texture" { "srv" } else { c };
            Ok(SectionKind::Resource {
                class: class.to_string(),
                slot: slot(rest.first())?,
            })
        }
        ["sampler", rest @ ..] if rest.len() <= 1 => Ok(SectionKind::Sampler {
            slot: slot(rest.first())?,
        }),
        [first, ..] if matches!(*first, "preproc" | "rasterizer" | "blend") => {
            Ok(SectionKind::Unsupported(inner.to_string()))
        }
        _ => Err(format!("[{inner}]: unknown section")),
    }
}

/// Reads qualifiers `word` or `word(condition)` from the start of `text`; returns them
/// and the rest.
fn qualifiers(text: &str) -> Result<(Vec<Qualifier>, &str), String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let word_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..word_len];
        if !matches!(word, "todo" | "fail" | "notimpl" | "if" | "bug_if") {
            return Ok((out, rest));
        }
        let after = &rest[word_len..];
        let (condition, left) = if let Some(inner) = after.strip_prefix('(') {
            let close = inner
                .find(')')
                .ok_or_else(|| format!("`{word}(`: no closing `)`"))?;
            (Some(condition(&inner[..close])?), &inner[close + 1..])
        } else if word == "if" || word == "bug_if" {
            return Err(format!("`{word}` takes a condition in parentheses"));
        } else {
            (None, after)
        };
        out.push(Qualifier {
            word: word.to_string(),
            condition,
        });
        rest = left.trim_start();
    }
}

/// Splits a `[test]` line into its qualifiers and the command.
pub fn split_qualifiers(line: &str) -> Result<(Vec<Qualifier>, &str), String> {
    qualifiers(line.trim())
}

fn condition(text: &str) -> Result<Condition, String> {
    let mut any = Vec::new();
    for alt in text.split('|') {
        let mut all = Vec::new();
        for term in alt.split('&') {
            let t = term.trim();
            let (negated, t) = match t.strip_prefix('!') {
                Some(r) => (true, r.trim()),
                None => (false, t),
            };
            if let Some(r) = t.strip_prefix("sm") {
                let op_len = r.find(|c: char| c.is_ascii_digit()).unwrap_or(r.len());
                let op = r[..op_len].trim();
                let model = parse_model(r[op_len..].trim())
                    .ok_or_else(|| format!("`{t}`: the shader model is not one of 2.0–6.x"))?;
                if !matches!(op, "<" | "<=" | ">" | ">=" | "==") {
                    return Err(format!("`{t}`: give <, <=, >, >= or == after sm"));
                }
                all.push(Term::Model {
                    op: op.to_string(),
                    model,
                    negated,
                });
            } else if !t.is_empty()
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
            {
                all.push(Term::Tag {
                    name: t.to_string(),
                    negated,
                });
            } else {
                return Err(format!("`{text}`: malformed condition term `{t}`"));
            }
        }
        any.push(all);
    }
    Ok(Condition(any))
}

/// `4`, `4.0`, `5.1`, `6.2` → 40, 40, 51, 62.
pub fn parse_model(text: &str) -> Option<Model> {
    let (maj, min) = match text.split_once('.') {
        Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
        None => (text.parse::<u32>().ok()?, 0),
    };
    // `then`, not `then_some`: the sum is formed only for a major version in range.
    ((2..=6).contains(&maj) && min < 10).then(|| maj * 10 + min)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model number too large to scale is not a model (found by the `shader_test` fuzz
    /// body: `shader model >= 4294967295`).
    #[test]
    fn huge_models_are_not_models() {
        assert_eq!(parse_model("5.1"), Some(51));
        assert_eq!(parse_model("4294967295"), None);
        assert_eq!(parse_model("6.4294967295"), None);
    }

    #[test]
    fn conditions() {
        // vkd3d tests/shader_runner.c: `sm<6`, `sm>=4`, tags, `|` and `&`.
        let c = condition("sm<6 | glsl").unwrap();
        assert!(c.holds(50, &["d3d12"]));
        assert!(!c.holds(60, &["d3d12"]));
        assert!(c.holds(60, &["glsl"]));
        let c = condition("sm>=4 & !warp").unwrap();
        assert!(!c.holds(50, &["warp"]));
        assert!(c.holds(50, &[]));
        assert!(condition("sm~4").is_err());
        assert_eq!(parse_model("5.1"), Some(51));
        assert_eq!(parse_model("9"), None);
    }

    proptest::proptest! {
        /// Untrusted files: any text of section headers, qualifiers and command-like
        /// words is read or refused with a line, never a panic.
        #[test]
        fn any_text_is_read_or_refused(
            lines in proptest::collection::vec(
                "(\\[(test|require|pixel shader|srv|uav 1|sampler|dsv|[a-z ]{0,10})( (todo|fail)(\\([a-z0-9<>=&|! .]{0,10}\\))?)?\\]?|(todo|if|fail)?(\\([a-z0-9<>=&|!. ]{0,8}\\)?)? ?(probe|draw|uniform|dispatch|clear|depth|sample mask)? ?[a-z0-9 ().,x-]{0,30})",
                0..16,
            )
        ) {
            let text = lines.join("\n");
            match parse(&text, Path::new("p.shader_test")) {
                Ok(_) => {}
                Err(e) => proptest::prop_assert!(e.line <= lines.len(), "{e}"),
            }
        }
    }

    /// vkd3d's `parse_hex`: 8 digits a word, most significant first, stored
    /// little-endian; words may run together; `%` ends a line.
    #[test]
    fn hex_words() {
        let body = |l: &[&str]| -> Vec<(usize, String)> {
            l.iter()
                .enumerate()
                .map(|(i, s)| (i + 1, s.to_string()))
                .collect()
        };
        let b = hex_program(&body(&["43425844 % the magic", "0000000100000002"])).unwrap();
        assert_eq!(&b[..4], b"DXBC");
        assert_eq!(&b[4..], &[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(
            hex_program(&body(&["ABCDEF01"])).unwrap(),
            0xabcd_ef01u32.to_le_bytes()
        );
        assert_eq!(hex_program(&body(&["", "123456789"])).unwrap_err().0, 2);
    }

    #[test]
    fn sections_and_errors() {
        let p = Path::new("t.shader_test");
        let t = parse(
            "% a comment\n[pixel shader todo(sm<6) fail(sm<4)]\nfloat4 main() : sv_target { return 1 % 2; }\n\n[test]\ntodo(glsl) draw quad\nprobe all rgba (1, 1, 1, 1)\n",
            p,
        )
        .unwrap();
        assert_eq!(t.sections.len(), 2);
        assert!(
            matches!(&t.sections[0].kind, SectionKind::Shader { stage: Stage::Pixel, qualifiers, .. } if qualifiers.len() == 2)
        );
        let e = parse("[test]\ndraw quad\nprobe all rgba (1, 1)\n", p).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = parse("[pixel shader maybe]\n", p).unwrap_err();
        assert!(e.to_string().starts_with("t.shader_test:1: "), "{e}");
        let e = parse("[frobnicate]\n", p).unwrap_err();
        assert!(e.to_string().contains("unknown section"), "{e}");
        let e = parse("stray\n[test]\n", p).unwrap_err();
        assert_eq!(e.line, 1);
    }
}
