//! `dxlane tessellate`: runs the fixed-function tessellator (`pipeline::tess`) on one
//! patch's factors and prints everything it generates — what became of each factor, the
//! domain points in order with their `f32` bits, and the primitives — as text or
//! `--json` (schema `dxlane-tessellate/1`, docs/tessellation.md).
//!
//! Exit status: 0 when the patch was tessellated (a culled patch included), 2 on a bad
//! command line, printed as one line `dxlane: ARGUMENT …` naming the argument (clap's
//! own refusals, of an unknown flag, keep clap's form).

use std::fmt::Write as _;
use std::process::ExitCode;

use crate::pipeline::tess::{
    Domain, OutputPrimitive, Partitioning, TessFactors, Tessellation, TessellatorDesc, counts,
    culls, tessellate,
};

/// `dxlane tessellate`'s arguments. Every value is checked here rather than by clap, so
/// that a bad or missing one is refused with one line naming the argument.
#[derive(Debug, Clone, clap::Args)]
pub struct TessellateArgs {
    /// The patch domain (the hull program's `[domain]`): tri, quad or isoline.
    #[arg(long, value_name = "tri|quad|isoline")]
    pub domain: Option<String>,
    /// The partitioning (`[partitioning]`): integer, pow2, fractional_odd or
    /// fractional_even.
    #[arg(long, value_name = "PARTITIONING")]
    pub partitioning: Option<String>,
    /// The output primitive (`[outputtopology]`): point, line (isoline only),
    /// triangle_cw or triangle_ccw (tri and quad only).
    #[arg(long, value_name = "OUTPUT")]
    pub output: Option<String>,
    /// Edge factors (`SV_TessFactor`), comma-separated: tri U=0,V=0,W=0; quad
    /// U=0,V=0,U=1,V=1; isoline density,detail. Each a decimal number, `nan`, `inf`,
    /// `-inf`, or `0x` and the f32's bits.
    #[arg(long, value_name = "E0,E1[,E2[,E3]]", allow_hyphen_values = true)]
    pub edges: Option<String>,
    /// Inside factors (`SV_InsideTessFactor`): one for tri, two (U,V) for quad, none for
    /// isoline.
    #[arg(long, value_name = "I0[,I1]", allow_hyphen_values = true)]
    pub inside: Option<String>,
    /// Print JSON (schema `dxlane-tessellate/1`).
    #[arg(long)]
    pub json: bool,
}

/// A refused command line: one line naming the argument.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadArgument(String);

/// The value of a required argument, or the line saying it is missing.
fn required<'a>(flag: &str, value: &'a Option<String>, what: &str) -> Result<&'a str, BadArgument> {
    value
        .as_deref()
        .ok_or_else(|| BadArgument(format!("{flag} is missing: give {what}")))
}

/// One of `names`, or the line listing them.
fn one_of<T: Copy>(flag: &str, value: &str, names: &[(&str, T)]) -> Result<T, BadArgument> {
    names
        .iter()
        .find(|(n, _)| *n == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            BadArgument(format!(
                "{flag} \"{value}\": give one of {}",
                list.join(", ")
            ))
        })
}

const DOMAINS: [(&str, Domain); 3] = [
    ("tri", Domain::Tri),
    ("quad", Domain::Quad),
    ("isoline", Domain::Isoline),
];

const PARTITIONINGS: [(&str, Partitioning); 4] = [
    ("integer", Partitioning::Integer),
    ("pow2", Partitioning::Pow2),
    ("fractional_odd", Partitioning::FractionalOdd),
    ("fractional_even", Partitioning::FractionalEven),
];

const OUTPUTS: [(&str, OutputPrimitive); 4] = [
    ("point", OutputPrimitive::Point),
    ("line", OutputPrimitive::Line),
    ("triangle_cw", OutputPrimitive::TriangleCw),
    ("triangle_ccw", OutputPrimitive::TriangleCcw),
];

impl TessellateArgs {
    fn desc(&self) -> Result<TessellatorDesc, BadArgument> {
        let domain = required("--domain", &self.domain, "tri, quad or isoline")?;
        let partitioning = required(
            "--partitioning",
            &self.partitioning,
            "integer, pow2, fractional_odd or fractional_even",
        )?;
        let output = required(
            "--output",
            &self.output,
            "point, line, triangle_cw or triangle_ccw",
        )?;
        let desc = TessellatorDesc {
            domain: one_of("--domain", domain, &DOMAINS)?,
            partitioning: one_of("--partitioning", partitioning, &PARTITIONINGS)?,
            output_primitive: one_of("--output", output, &OUTPUTS)?,
        };
        // The pairs D3D allows (the library's own check, worded for the command line).
        counts(&desc, &TessFactors::quad([1.0; 4], [1.0; 2]))
            .map_err(|e| BadArgument(format!("--output {output}: {e}")))?;
        Ok(desc)
    }
}

/// Runs `dxlane tessellate`.
pub fn run(args: &TessellateArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let desc = args.desc()?;
    let edges = parse_list(
        "--edges",
        required("--edges", &args.edges, "E0,E1[,E2[,E3]]")?,
    )?;
    let inside = match &args.inside {
        Some(s) => parse_list("--inside", s)?,
        None => Vec::new(),
    };
    let factors = factors(desc.domain, &edges, &inside)?;
    let t = tessellate(&desc, &factors)?;
    let patch = Patch {
        desc,
        edges: &edges,
        inside: &inside,
        t: &t,
    };
    let text = if args.json {
        render_json(&patch)
    } else {
        render_text(&patch)
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// One factor from the command line: a decimal number (Rust's `f32` syntax, which
/// includes `nan`, `inf` and `-inf`) or `0x` and the bits.
fn parse_factor(flag: &str, item: usize, s: &str) -> Result<f32, BadArgument> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok().map(f32::from_bits),
        None => t.parse::<f32>().ok(),
    };
    parsed.ok_or_else(|| {
        BadArgument(format!(
            "{flag} factor {item} \"{t}\": give a decimal number, nan, inf, -inf or 0x and the f32's bits"
        ))
    })
}

fn parse_list(flag: &str, s: &str) -> Result<Vec<f32>, BadArgument> {
    s.split(',')
        .enumerate()
        .map(|(i, x)| parse_factor(flag, i + 1, x))
        .collect()
}

fn factors(domain: Domain, edges: &[f32], inside: &[f32]) -> Result<TessFactors, BadArgument> {
    let want = |what: &str, n: usize, got: usize, names: &str| {
        BadArgument(format!(
            "{what}: the {domain} domain takes {n} ({names}), not {got}"
        ))
    };
    match (domain, edges, inside) {
        (Domain::Tri, &[a, b, c], &[i]) => Ok(TessFactors::tri([a, b, c], i)),
        (Domain::Quad, &[a, b, c, d], &[u, v]) => Ok(TessFactors::quad([a, b, c, d], [u, v])),
        (Domain::Isoline, &[density, detail], &[]) => Ok(TessFactors::isoline(density, detail)),
        (Domain::Tri, e, _) if e.len() != 3 => Err(want("--edges", 3, e.len(), "U=0,V=0,W=0")),
        (Domain::Tri, _, i) => Err(want("--inside", 1, i.len(), "the inside factor")),
        (Domain::Quad, e, _) if e.len() != 4 => Err(want("--edges", 4, e.len(), "U=0,V=0,U=1,V=1")),
        (Domain::Quad, _, i) => Err(want("--inside", 2, i.len(), "U,V")),
        (Domain::Isoline, e, _) if e.len() != 2 => {
            Err(want("--edges", 2, e.len(), "density,detail"))
        }
        (Domain::Isoline, _, i) => Err(want("--inside", 0, i.len(), "isolines have none")),
    }
}

/// What a run printed about.
struct Patch<'a> {
    desc: TessellatorDesc,
    edges: &'a [f32],
    inside: &'a [f32],
    t: &'a Tessellation,
}

impl Patch<'_> {
    /// The first edge factor that culled the patch (≤ 0 or NaN).
    fn culled_by(&self) -> Option<&'static str> {
        let names: &[&str] = match self.desc.domain {
            Domain::Tri => &["edge U=0", "edge V=0", "edge W=0"],
            Domain::Quad => &["edge U=0", "edge V=0", "edge U=1", "edge V=1"],
            Domain::Isoline => &["line density", "line detail"],
        };
        names
            .iter()
            .zip(self.edges)
            .find(|(_, x)| culls(**x))
            .map(|(n, _)| *n)
    }

    fn primitive_noun(&self) -> &'static str {
        match self.t.topology.vertices_per_primitive() {
            1 => "points",
            2 => "lines",
            _ => "triangles",
        }
    }
}

/// A finite float as text that is also a JSON number (the shortest form that reads back
/// to the same bits); `None` for NaN and infinities.
fn number(x: f32) -> Option<String> {
    x.is_finite().then(|| format!("{x:?}"))
}

fn shown(x: f32) -> String {
    number(x).unwrap_or_else(|| format!("{x}"))
}

fn hex(x: f32) -> String {
    format!("{:#010x}", x.to_bits())
}

fn render_text(p: &Patch<'_>) -> String {
    let t = p.t;
    let mut s = String::new();
    let d = p.desc;
    let _ = writeln!(
        s,
        "{} domain, {} partitioning, {} output",
        d.domain, d.partitioning, d.output_primitive
    );
    if let Some(edge) = p.culled_by() {
        let _ = writeln!(
            s,
            "culled: {edge} is ≤ 0 or NaN (D3D11.3 §11.7.12): no points, no primitives"
        );
        return s;
    }
    let _ = writeln!(s, "factors (input → after clamping and rounding → 16.16):");
    for u in &t.factors {
        let _ = writeln!(
            s,
            "  {:<13} {} ({}) → {} → {:#010x}, {} parity, {} points",
            u.role.to_string(),
            shown(u.input),
            hex(u.input),
            shown(u.value),
            u.fixed,
            u.parity,
            u.points
        );
    }
    let _ = writeln!(
        s,
        "{}: {} points, {} {} ({})",
        t.outcome,
        t.points.len(),
        t.primitive_count(),
        p.primitive_noun(),
        t.topology
    );
    let _ = writeln!(s, "points (u, v, and their bits):");
    for (i, [u, v]) in t.points.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {i:>4}  {:<12} {:<12} {} {}",
            shown(*u),
            shown(*v),
            hex(*u),
            hex(*v)
        );
    }
    let n = t.topology.vertices_per_primitive();
    let _ = writeln!(s, "{}:", p.primitive_noun());
    for (i, prim) in t.indices.chunks(n).enumerate() {
        let list: Vec<String> = prim.iter().map(u32::to_string).collect();
        let _ = writeln!(s, "  {i:>4}  {}", list.join(" "));
    }
    s
}

fn json_factor_list(values: &[f32]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|&x| {
            format!(
                "{{\"value\": {}, \"bits\": \"{}\"}}",
                number(x).unwrap_or_else(|| "null".into()),
                hex(x)
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The JSON report, one point or primitive per line so that diffs read well. Keys and
/// their order are fixed (schema `dxlane-tessellate/1`); floats are the shortest decimal
/// that reads back to the same bits, with the bits beside them; non-finite inputs are
/// `null` with their bits.
fn render_json(p: &Patch<'_>) -> String {
    let t = p.t;
    let d = p.desc;
    let mut s = String::new();
    let q = |x: &dyn std::fmt::Display| serde_json::to_string(&x.to_string()).unwrap_or_default();
    let _ = writeln!(s, "{{");
    let _ = writeln!(s, "  \"schema\": \"dxlane-tessellate/1\",");
    let _ = writeln!(s, "  \"domain\": {},", q(&d.domain));
    let _ = writeln!(s, "  \"partitioning\": {},", q(&d.partitioning));
    let _ = writeln!(s, "  \"output_primitive\": {},", q(&d.output_primitive));
    let _ = writeln!(s, "  \"edges\": {},", json_factor_list(p.edges));
    let _ = writeln!(s, "  \"inside\": {},", json_factor_list(p.inside));
    let _ = writeln!(s, "  \"outcome\": {},", q(&t.outcome));
    let culled = p.culled_by().map_or_else(|| "null".to_string(), |e| q(&e));
    let _ = writeln!(s, "  \"culled_by\": {culled},");
    let _ = writeln!(s, "  \"topology\": {},", q(&t.topology));
    let factors: Vec<String> = t
        .factors
        .iter()
        .map(|u| {
            format!(
                "    {{\"role\": {}, \"input_bits\": \"{}\", \"value\": {}, \"value_bits\": \"{}\", \
                 \"fixed\": \"{:#010x}\", \"parity\": {}, \"points\": {}}}",
                q(&u.role),
                hex(u.input),
                number(u.value).unwrap_or_else(|| "null".into()),
                hex(u.value),
                u.fixed,
                q(&u.parity),
                u.points
            )
        })
        .collect();
    let _ = writeln!(s, "  \"factors\": {},", block(&factors));
    let _ = writeln!(s, "  \"point_count\": {},", t.points.len());
    let _ = writeln!(s, "  \"primitive_count\": {},", t.primitive_count());
    let points: Vec<String> = t
        .points
        .iter()
        .map(|&[u, v]| {
            format!(
                "    {{\"u\": {}, \"v\": {}, \"u_bits\": \"{}\", \"v_bits\": \"{}\"}}",
                shown(u),
                shown(v),
                hex(u),
                hex(v)
            )
        })
        .collect();
    let _ = writeln!(s, "  \"points\": {},", block(&points));
    let n = t.topology.vertices_per_primitive();
    let prims: Vec<String> = t
        .indices
        .chunks(n)
        .map(|c| {
            let list: Vec<String> = c.iter().map(u32::to_string).collect();
            format!("    [{}]", list.join(", "))
        })
        .collect();
    let _ = writeln!(s, "  \"primitives\": {}", block(&prims));
    let _ = writeln!(s, "}}");
    s
}

/// A JSON array with one pre-indented item per line (`[]` when empty).
fn block(items: &[String]) -> String {
    if items.is_empty() {
        "[]".to_string()
    } else {
        format!("[\n{}\n  ]", items.join(",\n"))
    }
}
