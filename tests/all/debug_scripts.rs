//! Debugger scripts (`tests/debug_scripts/*.debug`, format in docs/debugger.md, "Script
//! tests"): each script drives one lane through the CLI (`dxlane debug JOB LANE -c …`)
//! and through the Debug Adapter Protocol server (`dxlane debug --dap`), and its
//! `EXPECT` lines must hold for both — the same location, the same values, the same
//! stops.

use std::path::Path;

use serde_json::{Value, json};

use crate::common;
use crate::dap::{Client, corpus_job};

/// One line of a script.
#[derive(Debug, Clone, PartialEq)]
enum Line {
    Step(usize),
    Next,
    Finish,
    Back(usize),
    Continue,
    Reverse,
    /// `file`: an HLSL file (`BREAK shader.hlsl:13`), else a listing line.
    Break {
        file: Option<String>,
        line: u32,
        cond: Option<String>,
    },
    Watch(String),
    Clear,
    Thread(usize),
    Eval(String),
    ExpectLocation(Option<u32>),
    ExpectStop(Stop),
    ExpectLocal {
        name: String,
        value: String,
    },
    ExpectOutput(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Breakpoint,
    End,
    Start,
    Step,
}

#[derive(Debug)]
struct Script {
    job: String,
    corpus: bool,
    lane: Vec<String>,
    lines: Vec<(usize, Line)>,
}

fn parse(path: &Path) -> Script {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.display();
    let (mut job, mut corpus, mut lane) = (None, false, Vec::new());
    let mut lines = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (word, rest) = l.split_once(' ').map_or((l, ""), |(a, b)| (a, b.trim()));
        let count = |r: &str| -> usize {
            if r.is_empty() {
                1
            } else {
                r.parse()
                    .unwrap_or_else(|_| panic!("{name}:{n}: `{r}` is not a count"))
            }
        };
        let line = match word {
            "JOB" => {
                let (c, p) = match rest.strip_prefix("corpus ") {
                    Some(p) => (true, p.trim()),
                    None => (false, rest),
                };
                job = Some(p.to_string());
                corpus = c;
                continue;
            }
            "LANE" => {
                lane = rest.split_whitespace().map(str::to_string).collect();
                continue;
            }
            "STEP" => Line::Step(count(rest)),
            "NEXT" => Line::Next,
            "FINISH" => Line::Finish,
            "BACK" => Line::Back(count(rest)),
            "CONTINUE" => Line::Continue,
            "REVERSE" => Line::Reverse,
            "BREAK" => {
                let (at, cond) = match rest.split_once(" IF ") {
                    Some((a, c)) => (a.trim(), Some(c.trim().to_string())),
                    None => (rest, None),
                };
                let (file, at) = match at.rsplit_once(':') {
                    Some((f, l)) => (Some(f.to_string()), l),
                    None => (None, at),
                };
                Line::Break {
                    file,
                    line: at
                        .parse()
                        .unwrap_or_else(|_| panic!("{name}:{n}: `{at}` is not a line")),
                    cond,
                }
            }
            "WATCH" => Line::Watch(rest.to_string()),
            "CLEAR" => Line::Clear,
            "THREAD" => Line::Thread(count(rest)),
            "EVAL" => Line::Eval(rest.to_string()),
            "EXPECT" => {
                let (what, arg) = rest
                    .split_once(' ')
                    .map_or((rest, ""), |(a, b)| (a, b.trim()));
                match what {
                    "LOCATION" if arg == "END" => Line::ExpectLocation(None),
                    "LOCATION" => Line::ExpectLocation(Some(
                        arg.parse()
                            .unwrap_or_else(|_| panic!("{name}:{n}: `{arg}` is not a line")),
                    )),
                    "STOP" => Line::ExpectStop(match arg {
                        "BREAKPOINT" => Stop::Breakpoint,
                        "END" => Stop::End,
                        "START" => Stop::Start,
                        "STEP" => Stop::Step,
                        _ => panic!("{name}:{n}: EXPECT STOP BREAKPOINT, END, START or STEP"),
                    }),
                    "LOCAL" => {
                        let (a, b) = arg
                            .split_once(" = ")
                            .unwrap_or_else(|| panic!("{name}:{n}: EXPECT LOCAL NAME = VALUE"));
                        Line::ExpectLocal {
                            name: a.trim().to_string(),
                            value: b.trim().to_string(),
                        }
                    }
                    "OUTPUT" => Line::ExpectOutput(arg.to_string()),
                    _ => panic!("{name}:{n}: unknown EXPECT `{what}`"),
                }
            }
            _ => panic!("{name}:{n}: unknown directive `{word}`"),
        };
        lines.push((n, line));
    }
    Script {
        job: job.unwrap_or_else(|| panic!("{name}: no JOB line")),
        corpus,
        lane,
        lines,
    }
}

/// What a check compares, from either front end.
#[derive(Default)]
struct Seen {
    /// The listing line of the next step (`None`: the lane has finished).
    location: Option<Option<u32>>,
    stop: Option<Stop>,
    output: String,
}

fn fail(script: &str, n: usize, front: &str, what: &str) -> ! {
    panic!("{script}:{n} ({front}): {what}")
}

/// `… step P of T: next line N …` or `… the lane has finished`.
fn location_in(text: &str) -> Option<Option<u32>> {
    let last = text
        .lines()
        .rev()
        .find(|l| l.contains(" of ") && l.contains("step "))?;
    if last.contains("the lane has finished") {
        return Some(None);
    }
    let n = last.split("next line ").nth(1)?;
    let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
    Some(digits.parse().ok())
}

/// The value `print` shows for a place (`r1.x = 5 (0x…)` → `5 (0x…)`).
fn printed_value<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.strip_prefix(name)
            .and_then(|r| r.strip_prefix(" = "))
            .map(str::trim)
    })
}

/// Runs the script through the CLI: one `dxlane debug` with the commands, its output cut
/// at each `(dxlane)` prompt line.
fn run_cli(script: &Script, sname: &str, job: &str) {
    let mut cmds: Vec<(usize, String)> = Vec::new();
    for (n, l) in &script.lines {
        let c = match l {
            Line::Step(k) => format!("step {k}"),
            Line::Next => "next".into(),
            Line::Finish => "finish".into(),
            Line::Back(k) => format!("back {k}"),
            Line::Continue => "continue".into(),
            Line::Reverse => "reverse-continue".into(),
            Line::Break { file, line, cond } => {
                let at = match file {
                    Some(f) => format!("{f}:{line}"),
                    None => line.to_string(),
                };
                match cond {
                    Some(c) => format!("break {at} if {c}"),
                    None => format!("break {at}"),
                }
            }
            Line::Watch(p) => format!("watch {p}"),
            Line::Clear => "delete".into(),
            Line::Thread(t) => format!("lane {t}"),
            Line::Eval(e) => {
                let first = e.split([' ', '/']).next().unwrap_or("");
                if [
                    "print", "wave", "why", "regs", "inputs", "outputs", "where", "list", "rays",
                    "bt",
                ]
                .contains(&first)
                {
                    e.clone()
                } else {
                    format!("print {e}")
                }
            }
            Line::ExpectLocal { name, .. } => format!("print {name}"),
            _ => continue,
        };
        cmds.push((*n, c));
    }
    for (n, c) in &cmds {
        assert!(
            !c.contains(';') && !c.contains('#'),
            "{sname}:{n}: a command with `;` or `#` cannot go through -c"
        );
    }
    let joined = cmds
        .iter()
        .map(|(_, c)| c.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let mut args: Vec<&str> = vec!["debug", job];
    args.extend(script.lane.iter().map(String::as_str));
    args.extend(["-c", &joined]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(&args)
        .current_dir(common::root())
        .output()
        .expect("run dxlane debug");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{sname} (cli): exit status {:?}\n{text}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    // Blocks: the header, then one per command.
    let mut blocks: Vec<String> = vec![String::new()];
    for l in text.lines() {
        if l.starts_with("(dxlane) ") {
            blocks.push(String::new());
        } else if let Some(b) = blocks.last_mut() {
            b.push_str(l);
            b.push('\n');
        }
    }
    assert_eq!(
        blocks.len(),
        cmds.len() + 1,
        "{sname} (cli): one block per command\n{text}"
    );
    let mut seen = Seen {
        location: location_in(&blocks[0]),
        ..Seen::default()
    };
    let mut next_block = 1;
    for (n, l) in &script.lines {
        let block = match l {
            Line::ExpectLocation(_) | Line::ExpectStop(_) | Line::ExpectOutput(_) => None,
            _ => {
                let b = blocks[next_block].clone();
                next_block += 1;
                Some(b)
            }
        };
        match l {
            Line::Step(_)
            | Line::Next
            | Line::Finish
            | Line::Back(_)
            | Line::Continue
            | Line::Reverse => {
                let b = block.unwrap_or_default();
                seen.location = location_in(&b);
                let last = b.lines().last().unwrap_or("");
                seen.stop = Some(if b.starts_with("breakpoint ") {
                    Stop::Breakpoint
                } else if last.contains("the lane has finished") {
                    Stop::End
                } else if last.contains(", step 0 of ") {
                    Stop::Start
                } else {
                    Stop::Step
                });
            }
            Line::Thread(_) => seen.location = location_in(&block.unwrap_or_default()),
            Line::Eval(_) => seen.output = block.unwrap_or_default(),
            Line::ExpectLocal { name, value } => {
                let b = block.unwrap_or_default();
                let got = printed_value(&b, name)
                    .unwrap_or_else(|| fail(sname, *n, "cli", &format!("no {name} in `{b}`")));
                if !got.starts_with(value.as_str()) {
                    fail(
                        sname,
                        *n,
                        "cli",
                        &format!("{name} = {got}, expected {value}…"),
                    );
                }
            }
            Line::ExpectLocation(want) => {
                if seen.location != Some(*want) {
                    fail(
                        sname,
                        *n,
                        "cli",
                        &format!("at {:?}, expected {want:?}", seen.location),
                    );
                }
            }
            Line::ExpectStop(want) => {
                if seen.stop != Some(*want) {
                    fail(
                        sname,
                        *n,
                        "cli",
                        &format!("stopped {:?}, expected {want:?}", seen.stop),
                    );
                }
            }
            Line::ExpectOutput(want) => {
                if !seen.output.contains(want.as_str()) {
                    fail(
                        sname,
                        *n,
                        "cli",
                        &format!("`{}` lacks `{want}`", seen.output),
                    );
                }
            }
            _ => {
                if let Some(b) = block
                    && b.starts_with("error: ")
                {
                    fail(sname, *n, "cli", &b);
                }
            }
        }
    }
}

/// The launch arguments of the CLI flags of a `LANE` line (`--texel NAME X,Y` becomes
/// `texel` and `at`).
fn launch_args(job: &str, lane: &[String]) -> Value {
    let mut a = json!({ "job": job });
    let mut rest = lane;
    while let [flag, v, more @ ..] = rest {
        rest = more;
        if flag == "--texel" {
            let [at, more @ ..] = rest else {
                panic!("LANE: --texel takes a name and x,y: {lane:?}");
            };
            rest = more;
            a["texel"] = json!(v);
            a["at"] = json!(at);
            continue;
        }
        let key = match flag.trim_start_matches('-') {
            "thread" => "thread",
            "group" => "group",
            "group-thread" => "groupThread",
            "pixel" => "pixel",
            "sample" => "sample",
            "prim" => "prim",
            "vertex" => "vertex",
            "instance" => "instance",
            "element" => "element",
            "slice" => "slice",
            "mip" => "mip",
            "event" => "event",
            "ray" => "ray",
            other => panic!("LANE: `{other}` is not a lane flag"),
        };
        a[key] = match v.parse::<u64>() {
            Ok(n) if !matches!(key, "thread" | "group" | "groupThread" | "pixel" | "ray") => {
                json!(n)
            }
            _ => json!(v),
        };
    }
    assert!(rest.is_empty(), "LANE takes flags with values: {lane:?}");
    a
}

/// The value a `variables` request shows for a place: `r1.x` in variable `r1`'s
/// `x = …, y = …`, or `%12`'s own value.
fn variable_value(vars: &Value, name: &str) -> Option<String> {
    let list = vars["variables"].as_array()?;
    if let Some(v) = list.iter().find(|v| v["name"] == name) {
        return v["value"].as_str().map(str::to_string);
    }
    let (base, comp) = name.rsplit_once('.')?;
    let v = list.iter().find(|v| v["name"] == base)?;
    let value = v["value"].as_str()?;
    value
        .split(", ")
        .find_map(|p| p.strip_prefix(&format!("{comp} = ")))
        .map(str::to_string)
}

/// Runs the script through the DAP server.
fn run_dap(script: &Script, sname: &str, job: &str) {
    let mut c = Client::start();
    c.open(launch_args(job, &script.lane));
    let mut thread = c.configured()["threadId"].as_i64().expect("a thread");
    // Each source's breakpoints: the listing's (`None`) and each HLSL file's.
    let mut lines: Vec<(Option<String>, Vec<Value>)> = Vec::new();
    let mut data: Vec<Value> = Vec::new();
    let source_of = |f: &Option<String>| match f {
        Some(name) => json!({ "path": name }),
        None => json!({ "sourceReference": 1 }),
    };
    let mut seen = Seen::default();
    let stop_of = |s: &Value| -> Stop {
        // `exception`: the program's `abort` (docs/debugger.md).
        if s["reason"] == "breakpoint"
            || s["reason"] == "data breakpoint"
            || s["reason"] == "exception"
        {
            Stop::Breakpoint
        } else if s["description"] == "the lane has finished" {
            Stop::End
        } else if s["description"] == "at the lane's first step" {
            Stop::Start
        } else {
            Stop::Step
        }
    };
    for (n, l) in &script.lines {
        let n = *n;
        match l {
            Line::Step(k) | Line::Back(k) => {
                let cmd = if matches!(l, Line::Step(_)) {
                    "stepIn"
                } else {
                    "stepBack"
                };
                for _ in 0..*k {
                    let s = c.step(cmd, thread);
                    seen.stop = Some(stop_of(&s));
                }
            }
            Line::Next | Line::Finish | Line::Continue | Line::Reverse => {
                let cmd = match l {
                    Line::Next => "next",
                    Line::Finish => "stepOut",
                    Line::Continue => "continue",
                    _ => "reverseContinue",
                };
                let s = c.step(cmd, thread);
                seen.stop = Some(stop_of(&s));
            }
            Line::Thread(t) => thread = *t as i64 + 1,
            Line::Break { file, line, cond } => {
                let mut b = json!({ "line": line });
                if let Some(cnd) = cond {
                    b["condition"] = json!(cnd);
                }
                let k = match lines.iter().position(|(f, _)| f == file) {
                    Some(k) => k,
                    None => {
                        lines.push((file.clone(), Vec::new()));
                        lines.len() - 1
                    }
                };
                lines[k].1.push(b);
                let r = c.ok(
                    "setBreakpoints",
                    json!({ "source": source_of(file), "breakpoints": lines[k].1 }),
                );
                if r["breakpoints"][lines[k].1.len() - 1]["verified"] != true {
                    fail(sname, n, "dap", &r.to_string());
                }
            }
            Line::Watch(p) => {
                let info = c.ok("dataBreakpointInfo", json!({ "name": p }));
                if info["dataId"].is_null() {
                    fail(sname, n, "dap", &info.to_string());
                }
                data.push(json!({ "dataId": info["dataId"] }));
                let r = c.ok("setDataBreakpoints", json!({ "breakpoints": data }));
                if r["breakpoints"][data.len() - 1]["verified"] != true {
                    fail(sname, n, "dap", &r.to_string());
                }
            }
            Line::Clear => {
                for (f, _) in std::mem::take(&mut lines) {
                    c.ok(
                        "setBreakpoints",
                        json!({ "source": source_of(&f), "breakpoints": [] }),
                    );
                }
                data.clear();
                c.ok(
                    "setBreakpoints",
                    json!({ "source": { "sourceReference": 1 }, "breakpoints": [] }),
                );
                c.ok("setDataBreakpoints", json!({ "breakpoints": [] }));
            }
            Line::Eval(e) => {
                let r = c.ok(
                    "evaluate",
                    json!({ "expression": e, "context": "repl", "frameId": thread }),
                );
                seen.output = r["result"].as_str().unwrap_or("").to_string();
            }
            Line::ExpectLocation(want) => {
                let f = c.ok("stackTrace", json!({ "threadId": thread }));
                let frame = &f["stackFrames"][0];
                let finished = frame["name"].as_str().unwrap_or("").ends_with(", finished");
                let got = if finished {
                    None
                } else {
                    frame["line"].as_u64().map(|x| x as u32)
                };
                if got != *want {
                    fail(sname, n, "dap", &format!("at {got:?}, expected {want:?}"));
                }
            }
            Line::ExpectStop(want) => {
                if seen.stop != Some(*want) {
                    fail(
                        sname,
                        n,
                        "dap",
                        &format!("stopped {:?}, expected {want:?}", seen.stop),
                    );
                }
            }
            Line::ExpectLocal { name, value } => {
                let scopes = c.ok("scopes", json!({ "frameId": thread }));
                let r = scopes["scopes"][0]["variablesReference"].clone();
                let vars = c.ok("variables", json!({ "variablesReference": r }));
                let got = variable_value(&vars, name)
                    .unwrap_or_else(|| fail(sname, n, "dap", &format!("no {name} in {vars}")));
                if !got.starts_with(value.as_str()) {
                    fail(
                        sname,
                        n,
                        "dap",
                        &format!("{name} = {got}, expected {value}…"),
                    );
                }
                // `evaluate` (what a watch or hover asks) agrees with the variables pane.
                let e = c.ok(
                    "evaluate",
                    json!({ "expression": name, "context": "watch", "frameId": thread }),
                );
                let shown = e["result"].as_str().unwrap_or("");
                if printed_value(shown, name) != Some(got.as_str()) {
                    fail(
                        sname,
                        n,
                        "dap",
                        &format!("evaluate gave `{shown}`, variables `{got}`"),
                    );
                }
            }
            Line::ExpectOutput(want) => {
                if !seen.output.contains(want.as_str()) {
                    fail(
                        sname,
                        n,
                        "dap",
                        &format!("`{}` lacks `{want}`", seen.output),
                    );
                }
            }
        }
    }
    c.ok("disconnect", Value::Null);
    assert_eq!(c.finish(), 0, "{sname} (dap): exit status");
}

/// Every script, through both front ends. A script on a corpus job needs the corpora
/// (skipped, and counted, without them).
#[test]
fn scripts_pass_through_the_cli_and_the_dap_server() {
    let dir = common::root().join("tests/debug_scripts");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "debug"))
        .collect();
    paths.sort();
    let (mut ran, mut skipped) = (0, 0);
    for p in &paths {
        let script = parse(p);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let job = if script.corpus {
            match corpus_job(&script.job) {
                Some(j) => j,
                None => {
                    assert!(common::corpora().is_empty());
                    eprintln!("SKIPPED {name}: the corpora are not fetched");
                    skipped += 1;
                    continue;
                }
            }
        } else {
            script.job.clone()
        };
        run_cli(&script, &name, &job);
        run_dap(&script, &name, &job);
        ran += 1;
    }
    // A compute, a pixel and a vertex lane, DXBC and DXIL: at least five scripts.
    assert!(ran + skipped >= 5, "only {} scripts", ran + skipped);
    if !common::corpora().is_empty() {
        assert_eq!(skipped, 0);
    }
}

/// The format's mistakes are named with their line (a script that cannot be read is a
/// test that cannot pass).
#[test]
fn script_mistakes_name_their_line() {
    let dir = common::scratch().join("debug-scripts");
    std::fs::create_dir_all(&dir).unwrap();
    for (text, want) in [
        ("JOB x\nSTEP x\n", ":2: `x` is not a count"),
        ("JOB x\nEXPECT LOCAL r0\n", ":2: EXPECT LOCAL NAME = VALUE"),
        ("JOB x\nJUMP\n", ":2: unknown directive `JUMP`"),
        ("STEP\n", "no JOB line"),
    ] {
        let p = dir.join("bad.debug");
        std::fs::write(&p, text).unwrap();
        let e = std::panic::catch_unwind(|| parse(&p)).unwrap_err();
        let m = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(m.contains(want), "`{m}` lacks `{want}`");
    }
}

/// Runs `dxlane debug` on a copy of the `tests/jobs/zi` job whose program is `bytes`
/// (written under the scratch folder), thread 3, with `commands`; its output.
fn debug_zi(tag: &str, bytes: &[u8], commands: &str) -> String {
    let dir = common::scratch().join("zi-damaged");
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join(format!("{tag}.dxil"));
    std::fs::write(&program, bytes).unwrap();
    let job = std::fs::read_to_string(common::root().join("tests/jobs/zi/srci.toml"))
        .unwrap()
        .replace(
            "\"srci.dxil\"",
            &format!("{:?}", program.display().to_string()),
        );
    let path = dir.join(format!("{tag}.toml"));
    std::fs::write(&path, job).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args([
            "debug",
            path.to_str().unwrap(),
            "--thread",
            "3,0,0",
            "-c",
            commands,
        ])
        .current_dir(common::root())
        .output()
        .expect("run dxlane debug");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A command may fail (`list` without the text); the session never panics.
    assert!(
        out.status.code().is_some_and(|c| c != 101) && !text.contains("panicked"),
        "{tag}: {text}"
    );
    text
}

/// The parts of a container, with one replaced (or dropped, with `None`).
fn with_part(bytes: &[u8], tag: &[u8; 4], data: Option<Vec<u8>>) -> Vec<u8> {
    use dxlane::container::{Container, FourCc, write::write_container};
    let c = Container::parse(bytes).unwrap();
    let parts: Vec<(FourCc, Vec<u8>)> = c
        .parts
        .iter()
        .filter_map(|p| {
            if p.tag.0 != *tag {
                return Some((p.tag, p.data.to_vec()));
            }
            data.clone().map(|d| (p.tag, d))
        })
        .collect();
    let refs: Vec<(FourCc, &[u8])> = parts.iter().map(|(t, d)| (*t, d.as_slice())).collect();
    write_container(&refs).unwrap()
}

/// Malformed debug info in a real container — an `ILDB` part cut short, an `ILDB`
/// module that is not the `DXIL` part's, an `SRCI` part whose sizes lie — never stops
/// the debugger (docs/debugger.md, "Debugging in HLSL"): the first two debug at the
/// listing level with a note saying what is wrong; a bad `SRCI` keeps HLSL stepping
/// (the line table is in the debug module) without the text, and says so. `dxlane
/// info` names each.
#[test]
fn damaged_zi_containers_debug_at_the_listing_level() {
    let root = common::root().join("tests/jobs/zi");
    let good = std::fs::read(root.join("srci.dxil")).unwrap();
    let ildb = {
        let c = dxlane::container::Container::parse(&good).unwrap();
        c.part(dxlane::container::FourCc(*b"ILDB"))
            .unwrap()
            .data
            .to_vec()
    };
    let truncated = with_part(&good, b"ILDB", Some(ildb[..ildb.len() / 2].to_vec()));
    let t = debug_zi("truncated", &truncated, "step");
    assert!(
        t.contains("note: the ILDB debug module does not decode"),
        "{t}"
    );
    assert!(!t.contains("of shader.hlsl"), "{t}");

    let mismatch = std::fs::read(root.join("mismatch.dxil")).unwrap();
    let t = debug_zi("mismatch", &mismatch, "step");
    assert!(
        t.contains("note: the program's debug info is not used (ILDB: instruction 2 of the ILDB module's main is not instruction 2"),
        "{t}"
    );
    assert!(!t.contains("of shader.hlsl"), "{t}");

    let mut srci = {
        let c = dxlane::container::Container::parse(&good).unwrap();
        c.part(dxlane::container::FourCc(*b"SRCI"))
            .unwrap()
            .data
            .to_vec()
    };
    // The names section's size, larger than the part.
    srci[8..12].copy_from_slice(&0x10000u32.to_le_bytes());
    let bad_srci = with_part(&good, b"SRCI", Some(srci));
    let t = debug_zi("bad_srci", &bad_srci, "step; list");
    assert!(
        t.contains("note: the SRCI part does not read (truncated SRCI"),
        "{t}"
    );
    assert!(t.contains("next line 10 of shader.hlsl in main"), "{t}");
    assert!(t.contains("does not carry the text of shader.hlsl"), "{t}");

    for (name, bytes, says) in [
        ("truncated", &truncated, "an ILDB part that does not decode"),
        (
            "bad_srci",
            &bad_srci,
            "an SRCI part that does not read (truncated SRCI",
        ),
    ] {
        let path = common::scratch()
            .join("zi-damaged")
            .join(format!("{name}.dxil"));
        std::fs::write(&path, bytes).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(["info", path.to_str().unwrap()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(says), "{name}: {text}");
    }
}

/// `dxlane info` says which debug info each `-Zi` container carries (the containers of
/// `tests/jobs/zi`, written by `src/debug/hlsl/tests/zi.rs`).
#[test]
fn info_names_the_debug_info_of_zi_containers() {
    let root = common::root().join("tests/jobs/zi");
    for (file, says) in [
        (
            "srci.dxil",
            "Debug info: DXIL debug metadata in ILDB (0 source files, 24 located instructions, 5 variables); the HLSL in an SRCI part (1 source files, main file shader.hlsl, zlib, 5 arguments); debug name ",
        ),
        (
            "embedded.dxil",
            "Debug info: DXIL debug metadata in ILDB (1 source files, main file shader.hlsl, 24 located instructions, 5 variables); debug name ",
        ),
        (
            "pdb_only.dxil",
            ".pdb only (the debug module is in that PDB file, not in the container: the debugger steps the listing)",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(["info", root.join(file).to_str().unwrap()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(says), "{file}: {text}");
        // The part table decodes SRCI (dxc's DxilSourceInfo layout, `container::srci`).
        if file == "srci.dxil" {
            assert!(
                text.contains(
                    "SRCI: HLSL sources: 1 file(s) (shader.hlsl), 5 compiler arguments, zlib, "
                ),
                "{text}"
            );
            assert!(!text.contains("not decoded (source"), "{text}");
        }
    }
}
