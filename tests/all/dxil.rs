//! DXIL programs of the corpora: module, `dx.op` calls and metadata decode.

use std::ffi::OsStr;
use std::process::Command;

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::Module;

use crate::common;

/// The raw bitcode of a container's DXIL part.
pub fn bitcode(bytes: &[u8]) -> Vec<u8> {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    DxilProgramHeader::parse(part)
        .expect("program header")
        .1
        .to_vec()
}

#[test]
fn every_corpus_module_decodes() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if let Err(e) = Module::parse(&bitcode(&bytes)) {
            failures.push(format!("{}: {e}", common::display_name(f)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} DXIL modules decoded", files.len());
}

#[test]
fn every_dx_op_call_decodes() {
    let mut total = 0usize;
    let mut failures = Vec::new();
    for f in common::dxil_programs() {
        let bytes = std::fs::read(&f).unwrap();
        let m = Module::parse(&bitcode(&bytes)).unwrap();
        match dxlane::dxil::dxop::decode_all(&m) {
            Ok(calls) => total += calls.len(),
            Err(e) => failures.push(format!("{}: {e}", common::display_name(&f))),
        }
        // Every call to a dx.op function is among them.
        let direct = m
            .functions
            .iter()
            .filter_map(|f| f.body.as_ref())
            .flat_map(|b| &b.instructions)
            .filter(|i| matches!(&i.kind, dxlane::dxil::llvm::InstKind::Call { callee, .. } if m.function_of_value(*callee).is_some_and(|f| f.name.starts_with("dx.op."))))
            .count();
        let decoded = dxlane::dxil::dxop::decode_all(&m)
            .map(|c| c.len())
            .unwrap_or(0);
        if failures.is_empty() {
            assert_eq!(direct, decoded, "{}", common::display_name(&f));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} dx.op calls decoded");
}

/// `src/dxil/dxop_table.rs` (the `DxOp` enum and the operation table) is exactly what
/// `tools/gen-dxop-table.py` prints: regenerated from the rows DXIL.rst gave it (opcode,
/// name, description, read back from the committed file with `--rows-from`), and, when
/// `DXIL_RST` names DXIL.rst, from the specification itself. To change the table, change
/// the script and regenerate:
/// `python3 tools/gen-dxop-table.py path/to/DXIL.rst > src/dxil/dxop_table.rs`.
#[test]
fn dxop_table_is_the_generator_output() {
    let Some(python) = common::tool(
        "PYTHON3",
        &["python3"],
        "the dx.op table regeneration check",
    ) else {
        return;
    };
    let root = common::root();
    let table = root.join("src/dxil/dxop_table.rs");
    let committed = std::fs::read_to_string(&table).unwrap();
    let generate = |args: &[&OsStr]| -> String {
        let out = Command::new(&python)
            .arg(root.join("tools/gen-dxop-table.py"))
            .args(args)
            .output()
            .expect("run python3");
        assert!(
            out.status.success(),
            "tools/gen-dxop-table.py failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let check = |generated: String, from: &str| {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "the line count".to_owned(),
                |i| format!("line {}", i + 1),
            );
        assert!(
            generated == committed,
            "src/dxil/dxop_table.rs differs from tools/gen-dxop-table.py's output ({from}) at \
             {first}; regenerate it with \
             `python3 tools/gen-dxop-table.py path/to/DXIL.rst > src/dxil/dxop_table.rs`"
        );
    };
    check(
        generate(&[OsStr::new("--rows-from"), table.as_os_str()]),
        "rows read back",
    );
    match std::env::var_os("DXIL_RST") {
        Some(rst) => check(generate(&[&rst]), "from DXIL_RST"),
        None => eprintln!(
            "DXIL_RST unset: the dx.op table is regenerated from its own rows, not from DXIL.rst"
        ),
    }
}

fn metadata(name: &str) -> dxlane::dxil::meta::DxilMetadata {
    let f = common::dxil_programs()
        .into_iter()
        .find(|p| common::display_name(p) == name)
        .expect(name);
    let m = Module::parse(&bitcode(&std::fs::read(f).unwrap())).unwrap();
    dxlane::dxil::meta::DxilMetadata::read(&m).unwrap()
}

#[test]
fn every_program_has_typed_metadata() {
    let mut entries = 0;
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let m = Module::parse(&bitcode(&std::fs::read(&f).unwrap())).unwrap();
        let md =
            dxlane::dxil::meta::DxilMetadata::read(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let sm = md
            .shader_model
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no shader model"));
        assert!(
            md.dxil_version.is_some() && md.validator_version.is_some(),
            "{name}"
        );
        assert!(!md.entry_points.is_empty(), "{name}: no entry point");
        entries += md.entry_points.len();
        if sm.kind != "lib" {
            let e = &md.entry_points[0];
            assert!(e.function_name.is_some(), "{name}: entry without function");
            assert!(
                e.signatures.is_some() || sm.kind == "cs" || sm.kind == "as",
                "{name}: no signatures"
            );
        }
        // Every createHandle names a declared resource range.
        if let Some(res) = &md.resources {
            for r in res.all() {
                assert!(r.range_size >= 1, "{name}: {r:?}");
            }
        }
    }
    eprintln!("{entries} entry points read");
}

#[test]
fn compute_basic_matches_its_hlsl() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    // compute_basic.hlsl: [numthreads(8, 4, 2)], a RWByteAddressBuffer, a
    // RWStructuredBuffer<uint>, a RWBuffer<float4> and one constant buffer.
    let md = metadata("dxil-reader/compute_basic.dxil");
    assert_eq!(md.shader_model.as_ref().unwrap().kind, "cs");
    let e = &md.entry_points[0];
    assert_eq!(e.name, "main");
    assert_eq!(e.num_threads(), Some([8, 4, 2]));
    assert_eq!(e.flags(), Some(16));
    let res = md.resources.as_ref().unwrap();
    assert_eq!(res.uavs.len(), 3);
    assert_eq!(res.cbvs.len(), 1);
    assert_eq!(res.uavs[0].shape, Some(11), "raw buffer");
    assert_eq!(res.uavs[1].shape, Some(12), "structured buffer");
    assert_eq!(res.uavs[1].struct_stride, Some(4));
    assert_eq!(res.uavs[2].shape, Some(10), "typed buffer");
    assert_eq!(res.uavs[2].element_type, Some(9), "f32");
    assert_eq!(res.cbvs[0].size, Some(4));
}

#[test]
fn denorm_attribute_is_read() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    // Seed 000_…: dxc writes "fp32-denorm-mode" with -denorm's word, nothing without it.
    for (file, want) in [
        ("denorm.any.ps.dxil", Some("any")),
        ("denorm.preserve.ps.dxil", Some("preserve")),
        ("denorm.ftz.ps.dxil", Some("ftz")),
        ("denorm.default.ps.dxil", None),
    ] {
        let md = metadata(&format!("dxil-reader/{file}"));
        assert_eq!(
            md.entry_points[0].fp32_denorm_mode.as_deref(),
            want,
            "{file}"
        );
    }
}

/// The comparison with llvm-dis: per function, the blocks and, per instruction, the
/// opcode and the `%`/`@` names it refers to (values, blocks, callees, globals inside
/// constant expressions), in text order.
mod llvm_dis {
    use std::collections::{HashMap, HashSet};

    use dxlane::dxil::llvm::{
        Constant, FunctionBody, InstKind, Module, Operand, Type, ValueId, ValueKind,
    };

    /// One instruction as compared: opcode and referenced names.
    pub type Inst = (String, Vec<String>);
    /// A function: name and blocks of instructions.
    pub type Func = (String, Vec<Vec<Inst>>);

    /// LLVM's spelling of a name after `%`/`@`: bare when it is made of
    /// `[-a-zA-Z$._0-9]` and does not start with a digit, else quoted with `\XX` escapes.
    pub fn quote(name: &str) -> String {
        let bare = !name.is_empty()
            && !name.as_bytes()[0].is_ascii_digit()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-$._".contains(&b));
        if bare {
            return name.to_string();
        }
        let mut s = String::from("\"");
        for b in name.bytes() {
            if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
                s.push_str(&format!("\\{b:02X}"));
            } else {
                s.push(b as char);
            }
        }
        s.push('"');
        s
    }

    /// Parses llvm-dis output: defined functions, their blocks and instructions. Names
    /// of struct types (`%T = type …`) are not value references and are dropped.
    pub fn parse(text: &str) -> Vec<Func> {
        let mut types = HashSet::new();
        for line in text.lines() {
            if let Some((name, rest)) = line.split_once(" = ")
                && name.starts_with('%')
                && rest.starts_with("type ")
            {
                types.insert(name.to_string());
            }
        }
        let mut out = Vec::new();
        let mut cur: Option<Func> = None;
        let mut in_switch = false;
        for line in text.lines() {
            if line.starts_with("define ") {
                let at = line.find('@').unwrap();
                let name = take_name(&line[at + 1..]);
                cur = Some((name, vec![Vec::new()]));
                continue;
            }
            let Some(f) = cur.as_mut() else { continue };
            if line == "}" {
                out.push(cur.take().unwrap());
                continue;
            }
            if line.is_empty() || line.trim_start().starts_with(';') {
                continue;
            }
            if in_switch {
                // The case lines of a switch: `i32 1, label %5`, then `]`.
                if line.trim() == "]" {
                    in_switch = false;
                } else if let Some(last) = f.1.last_mut().and_then(|b| b.last_mut()) {
                    last.1.extend(refs_of(line, &types));
                }
                continue;
            }
            if !line.starts_with(' ') {
                // A block label.
                if !f.1.last().unwrap().is_empty() {
                    f.1.push(Vec::new());
                }
                continue;
            }
            let mut body = line.trim_start();
            if body.starts_with('%')
                && let Some((_, rest)) = body.split_once(" = ")
            {
                body = rest;
            }
            let body = body.split(", !").next().unwrap();
            let mut words = body.split_whitespace();
            let mut op = words.next().unwrap_or("").to_string();
            if matches!(op.as_str(), "tail" | "musttail" | "notail") {
                op = words.next().unwrap_or("").to_string();
            }
            in_switch = op == "switch" && body.trim_end().ends_with('[');
            f.1.last_mut().unwrap().push((op, refs_of(body, &types)));
        }
        out
    }

    /// The `%`/`@` names a line refers to, minus type names; intrinsic names lose the
    /// overload suffix llvm-dis's upgrade adds (`llvm.lifetime.start.p0i8`).
    fn refs_of(body: &str, types: &HashSet<String>) -> Vec<String> {
        let mut refs = Vec::new();
        {
            let b = body.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if (b[i] == b'%' || b[i] == b'@') && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
                    let start = i;
                    i += 1;
                    if i < b.len() && b[i] == b'"' {
                        i += 1;
                        while i < b.len() && b[i] != b'"' {
                            i += 1;
                        }
                        i += 1;
                    } else {
                        while i < b.len()
                            && (b[i].is_ascii_alphanumeric() || b"-$._".contains(&b[i]))
                        {
                            i += 1;
                        }
                    }
                    let tok = &body[start..i.min(body.len())];
                    if !types.contains(tok) {
                        let tok = if tok.starts_with("@llvm.") {
                            tok.trim_end_matches(".p0i8")
                        } else {
                            tok
                        };
                        refs.push(tok.to_string());
                    }
                } else {
                    i += 1;
                }
            }
        }
        refs
    }

    fn take_name(s: &str) -> String {
        if let Some(rest) = s.strip_prefix('"') {
            format!("\"{}\"", &rest[..rest.find('"').unwrap()])
        } else {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "-$._".contains(*c))
                .collect()
        }
    }

    /// dxlane's decoded module in the same shape, numbering unnamed values and blocks
    /// as LLVM's printer does (arguments, then per block its label and its unnamed
    /// non-void instructions).
    pub fn from_module(m: &Module) -> Vec<Func> {
        let mut out = Vec::new();
        for f in &m.functions {
            let Some(body) = &f.body else { continue };
            let mut slot: HashMap<ValueId, String> = HashMap::new();
            let mut block_name = Vec::new();
            let mut n = 0u32;
            let mut next = |name: &Option<String>| match name {
                Some(s) => format!("%{}", quote(s)),
                None => {
                    let s = format!("%{n}");
                    n += 1;
                    s
                }
            };
            for a in &body.args {
                let v = body.local(*a).unwrap();
                slot.insert(*a, next(&v.name));
            }
            for (bi, b) in body.blocks.iter().enumerate() {
                block_name.push(next(&b.name));
                for inst in body.block_instructions(dxlane::dxil::llvm::BlockId(bi as u32)) {
                    if let Some(r) = inst.result {
                        slot.insert(r, next(&body.local(r).unwrap().name));
                    }
                }
            }
            let mut blocks = Vec::new();
            for bi in 0..body.blocks.len() {
                let mut insts = Vec::new();
                for inst in body.block_instructions(dxlane::dxil::llvm::BlockId(bi as u32)) {
                    let name =
                        |v: ValueId, out: &mut Vec<String>| value_refs(m, body, &slot, v, out);
                    let bb = |b: dxlane::dxil::llvm::BlockId| block_name[b.index()].clone();
                    let mut refs = Vec::new();
                    let op = match &inst.kind {
                        InstKind::Binary { op, lhs, .. } => {
                            let float = m
                                .value(Some(body), *lhs)
                                .and_then(|v| m.ty(v.ty))
                                .is_some_and(|t| match t {
                                    Type::Vector { element, .. } => {
                                        m.ty(*element).is_some_and(Type::is_float)
                                    }
                                    t => t.is_float(),
                                });
                            op.name(float).to_string()
                        }
                        k => k.opcode_name().to_string(),
                    };
                    match &inst.kind {
                        InstKind::Call { callee, args, .. } => {
                            name(*callee, &mut refs);
                            for a in args {
                                match a {
                                    Operand::Value(v) => name(*v, &mut refs),
                                    Operand::Block(b) => refs.push(bb(*b)),
                                    Operand::Metadata(_) => {}
                                }
                            }
                        }
                        InstKind::Phi { incoming } => {
                            for (v, b) in incoming {
                                name(*v, &mut refs);
                                refs.push(bb(*b));
                            }
                        }
                        InstKind::Br { target } => refs.push(bb(*target)),
                        InstKind::CondBr {
                            cond,
                            if_true,
                            if_false,
                        } => {
                            name(*cond, &mut refs);
                            refs.push(bb(*if_true));
                            refs.push(bb(*if_false));
                        }
                        InstKind::Switch {
                            cond,
                            default,
                            cases,
                        } => {
                            name(*cond, &mut refs);
                            refs.push(bb(*default));
                            for (v, b) in cases {
                                name(*v, &mut refs);
                                refs.push(bb(*b));
                            }
                        }
                        InstKind::Store { ptr, value, .. } => {
                            name(*value, &mut refs);
                            name(*ptr, &mut refs);
                        }
                        k => {
                            for v in k.value_operands() {
                                name(v, &mut refs);
                            }
                        }
                    }
                    insts.push((op, refs));
                }
                blocks.push(insts);
            }
            out.push((quote(&f.name), blocks));
        }
        out
    }

    fn value_refs(
        m: &Module,
        body: &FunctionBody,
        slot: &HashMap<ValueId, String>,
        v: ValueId,
        out: &mut Vec<String>,
    ) {
        if let Some(s) = slot.get(&v) {
            out.push(s.clone());
            return;
        }
        let Some(val) = m.value(Some(body), v) else {
            return;
        };
        match &val.kind {
            ValueKind::Global(_) | ValueKind::Function(_) | ValueKind::Alias(_) => {
                out.push(format!("@{}", quote(val.name.as_deref().unwrap_or(""))));
            }
            ValueKind::Constant(c) => {
                let mut sub = |ids: &[ValueId]| {
                    for id in ids {
                        value_refs(m, body, slot, *id, out);
                    }
                };
                match c {
                    Constant::Aggregate(ids) => sub(ids),
                    Constant::Gep { operands, .. } => sub(operands),
                    Constant::Cast { value, .. } => sub(&[*value]),
                    Constant::Binary { lhs, rhs, .. } | Constant::Cmp { lhs, rhs, .. } => {
                        sub(&[*lhs, *rhs])
                    }
                    Constant::Select {
                        cond,
                        if_true,
                        if_false,
                    } => sub(&[*cond, *if_true, *if_false]),
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

#[test]
fn agrees_with_llvm_dis() {
    let Some(dis) = common::llvm_dis("the module comparison with llvm-dis") else {
        return;
    };
    let dir = common::target_dir().join("dxil-llvm-dis");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut agreed, mut unreadable, mut failures) = (0usize, Vec::new(), Vec::new());
    for (k, f) in common::dxil_programs().iter().enumerate() {
        let name = common::display_name(f);
        let bc = bitcode(&std::fs::read(f).unwrap());
        let path = dir.join(format!("{k}.bc"));
        std::fs::write(&path, &bc).unwrap();
        let out = std::process::Command::new(&dis)
            .arg("-o")
            .arg("-")
            .arg(&path)
            .output()
            .expect("run LLVM_DIS");
        if !out.status.success() {
            unreadable.push(format!(
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
            continue;
        }
        let theirs = llvm_dis::parse(&String::from_utf8_lossy(&out.stdout));
        let ours = llvm_dis::from_module(&Module::parse(&bc).unwrap());
        if theirs.len() != ours.len() {
            failures.push(format!(
                "{name}: llvm-dis has {} defined functions, dxlane {}",
                theirs.len(),
                ours.len()
            ));
            continue;
        }
        let mut bad = None;
        'f: for (t, o) in theirs.iter().zip(&ours) {
            if t.0 != o.0 || t.1.len() != o.1.len() {
                bad = Some(format!(
                    "function {} ({} blocks) vs {} ({} blocks)",
                    t.0,
                    t.1.len(),
                    o.0,
                    o.1.len()
                ));
                break;
            }
            for (bi, (tb, ob)) in t.1.iter().zip(&o.1).enumerate() {
                if tb.len() != ob.len() {
                    bad = Some(format!(
                        "@{} block {bi}: {} vs {} instructions",
                        t.0,
                        tb.len(),
                        ob.len()
                    ));
                    break 'f;
                }
                for (ii, (ti, oi)) in tb.iter().zip(ob).enumerate() {
                    if ti != oi {
                        bad = Some(format!(
                            "@{} block {bi} instruction {ii}: llvm-dis {ti:?}, dxlane {oi:?}",
                            t.0
                        ));
                        break 'f;
                    }
                }
            }
        }
        match bad {
            Some(b) => failures.push(format!("{name}: {b}")),
            None => agreed += 1,
        }
    }
    if !unreadable.is_empty() {
        eprintln!(
            "llvm-dis could not read {} programs (not counted as failures):\n{}",
            unreadable.len(),
            unreadable.join("\n")
        );
    }
    eprintln!("{agreed} programs agree with llvm-dis");
    assert!(
        failures.is_empty(),
        "{} programs differ from llvm-dis:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
