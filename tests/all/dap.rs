//! The Debug Adapter Protocol server (`dxlane debug --dap`) spoken to over pipes by a
//! test client: whole sessions kept as transcripts (`tests/snapshots/dap/`) for a
//! compute, a pixel and a vertex lane, DXBC and DXIL; hit-count and data breakpoints;
//! malformed and out-of-order requests answered with errors, never a panic.
//!
//! The client frames messages itself (DAP "Base Protocol": `Content-Length: N`, a blank
//! line, N bytes of JSON) rather than through `debug::dap::wire`, so that a framing
//! mistake on the server's side cannot be hidden by the same mistake on the client's.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::common;

/// A client of one `dxlane debug --dap` process.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    seq: i64,
    /// Every message sent (`->`) and received (`<-`), one a line.
    pub log: Vec<String>,
}

impl Client {
    /// Starts `dxlane debug --dap` in the repository root.
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(["debug", "--dap"])
            .current_dir(common::root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run dxlane debug --dap");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            stdout,
            seq: 0,
            log: Vec::new(),
        }
    }

    /// Sends raw bytes (for malformed messages).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).expect("write to the server");
        w.flush().expect("flush");
    }

    /// Sends a request; its `seq`.
    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let mut m = json!({ "seq": self.seq, "type": "request", "command": command });
        if !arguments.is_null() {
            m["arguments"] = arguments;
        }
        let text = m.to_string();
        self.log.push(format!("-> {text}"));
        self.send_raw(format!("Content-Length: {}\r\n\r\n{text}", text.len()).as_bytes());
        self.seq
    }

    /// Reads one message; `None` when the server closed its output.
    pub fn read(&mut self) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length:") {
                length = Some(v.trim().parse::<usize>().expect("a length"));
            }
        }
        let mut body = vec![0; length.expect("Content-Length")];
        self.stdout.read_exact(&mut body).ok()?;
        let v: Value = serde_json::from_slice(&body).expect("JSON from the server");
        self.log.push(format!("<- {v}"));
        Some(v)
    }

    /// Sends a request and reads up to its response (the events before it are logged).
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let m = self
                .read()
                .unwrap_or_else(|| panic!("the server ended before answering {command}"));
            if m["type"] == "response" && m["request_seq"] == seq {
                return m;
            }
        }
    }

    /// A request that must succeed; its body.
    pub fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.request(command, arguments);
        assert_eq!(
            r["success"],
            true,
            "{command}: {r}\n{}",
            self.log.join("\n")
        );
        r["body"].clone()
    }

    /// Reads up to the next event named `name`.
    pub fn event(&mut self, name: &str) -> Value {
        loop {
            let m = self
                .read()
                .unwrap_or_else(|| panic!("the server ended before a `{name}` event"));
            if m["type"] == "event" && m["event"] == name {
                return m["body"].clone();
            }
        }
    }

    /// A request that moves the lane, and the `stopped` event after it.
    pub fn step(&mut self, command: &str, thread: i64) -> Value {
        self.ok(command, json!({ "threadId": thread }));
        self.event("stopped")
    }

    /// Closes the server's input and waits for it; its exit status.
    pub fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        self.child.wait().expect("wait").code().unwrap_or(-1)
    }

    /// `initialize`, `launch` with `args`, `configurationDone` up to the `entry` stop.
    pub fn open(&mut self, args: Value) -> Value {
        let caps = self.ok(
            "initialize",
            json!({ "adapterID": "dxlane", "linesStartAt1": true }),
        );
        assert_eq!(caps["supportsStepBack"], true);
        self.ok("launch", args);
        self.event("initialized");
        caps
    }

    /// `configurationDone` and the `entry` stop.
    pub fn configured(&mut self) -> Value {
        self.ok("configurationDone", Value::Null);
        self.event("stopped")
    }
}

/// A job path for the transcript of a job that needs the corpora, made absolute in a
/// folder of its own when the corpora are not under this checkout's `target/`; `None`
/// without corpora.
pub fn corpus_job(rel: &str) -> Option<String> {
    let root = common::corpora().first().and_then(|d| d.parent())?;
    let dir = common::root().join(rel);
    let text = std::fs::read_to_string(&dir).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let parent = dir.parent().expect("a folder");
    let text = text
        .replace("../../../target/corpora", &root.display().to_string())
        .replace("vs = \"", &format!("vs = \"{}/", parent.display()));
    let staged = common::target_dir().join("dap-jobs");
    std::fs::create_dir_all(&staged).unwrap();
    let job = staged.join(dir.file_name().expect("a name"));
    // Tests stage the same job side by side.
    common::write_whole(&job, &text);
    Some(job.to_string_lossy().into_owned())
}

/// One session's transcript: each message a line, the job's path as `JOB`.
fn transcript(c: &Client, job: &str) -> String {
    let mut s = c.log.join("\n").replace(job, "JOB");
    s.push('\n');
    s
}

/// The checks every transcript makes: listing, breakpoint, step forward and back,
/// variables, evaluate, a data breakpoint, reverse-continue, disconnect.
fn session(name: &str, job: &str, lane: Value, line: u32, place: &str) {
    let mut c = Client::start();
    let mut args = json!({ "type": "dxlane", "request": "launch", "job": job });
    for (k, v) in lane.as_object().expect("an object") {
        args[k] = v.clone();
    }
    c.open(args);
    let listing = c.ok("source", json!({ "sourceReference": 1 }));
    let text = listing["content"].as_str().expect("content").to_string();
    assert!(
        text.lines().count() >= line as usize,
        "{name}: the listing is short"
    );
    // The listing itself is snapshotted elsewhere; keep the transcript to the session.
    if let Some(l) = c.log.last_mut() {
        *l = format!("<- (the listing: {} lines)", text.lines().count());
    }
    let bps = c.ok(
        "setBreakpoints",
        json!({ "source": { "sourceReference": 1 }, "breakpoints": [{ "line": line }] }),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], true, "{name}: {bps}");
    let entry = c.configured();
    assert_eq!(entry["reason"], "entry");
    let thread = entry["threadId"].as_i64().expect("a thread");
    c.ok("threads", Value::Null);
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{name}: {stop}");
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    assert_eq!(frames["stackFrames"][0]["line"], line, "{name}: {frames}");
    c.step("stepIn", thread);
    c.step("next", thread);
    let back = c.step("stepBack", thread);
    assert_eq!(back["reason"], "step");
    let scopes = c.ok("scopes", json!({ "frameId": thread }));
    let values = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": values }));
    assert!(
        !vars["variables"].as_array().expect("variables").is_empty(),
        "{name}: no values after steps"
    );
    let e = c.ok(
        "evaluate",
        json!({ "expression": place, "context": "watch", "frameId": thread }),
    );
    assert!(
        e["result"].as_str().is_some_and(|r| r.starts_with(place)),
        "{name}: {e}"
    );
    let info = c.ok(
        "dataBreakpointInfo",
        json!({ "name": place, "variablesReference": 0 }),
    );
    assert_eq!(info["dataId"], place, "{name}: {info}");
    let set = c.ok(
        "setDataBreakpoints",
        json!({ "breakpoints": [{ "dataId": place }] }),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true, "{name}: {set}");
    c.ok(
        "setBreakpoints",
        json!({ "source": { "sourceReference": 1 }, "breakpoints": [] }),
    );
    // Forward to the place's next write or the end, then back to the write before.
    c.step("continue", thread);
    let watched = c.step("reverseContinue", thread);
    assert_eq!(watched["reason"], "data breakpoint", "{name}: {watched}");
    c.ok("setDataBreakpoints", json!({ "breakpoints": [] }));
    let end = c.step("continue", thread);
    assert_eq!(end["description"], "the lane has finished", "{name}: {end}");
    let back = c.step("reverseContinue", thread);
    assert_eq!(
        back["description"], "at the lane's first step",
        "{name}: {back}"
    );
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0, "{name}");
    common::assert_snapshot(&format!("dap/{name}.txt"), &t);
}

/// A DXBC compute lane (DAP transcript).
#[test]
fn compute_dxbc_transcript() {
    session(
        "compute_dxbc",
        "examples/mandelbrot.toml",
        json!({ "thread": "340,512,0" }),
        29,
        "r1.w",
    );
}

/// A DXBC pixel lane (DAP transcript).
#[test]
fn pixel_dxbc_transcript() {
    session(
        "pixel_dxbc",
        "examples/mesh.toml",
        json!({ "pixel": "100,140" }),
        17,
        "r1.x",
    );
}

/// A DXBC vertex lane (DAP transcript).
#[test]
fn vertex_dxbc_transcript() {
    session(
        "vertex_dxbc",
        "examples/triangle.toml",
        json!({ "vertex": 1 }),
        8,
        "r0.z",
    );
}

/// A DXIL compute lane (DAP transcript).
#[test]
fn compute_dxil_transcript() {
    let Some(job) = corpus_job("tests/jobs/corpus/typeduav_dxil.toml") else {
        assert!(common::corpora().is_empty());
        eprintln!("SKIPPED dap::compute_dxil_transcript: the corpora are not fetched");
        return;
    };
    session(
        "compute_dxil",
        &job,
        json!({ "thread": "1,0,0" }),
        COMPUTE_DXIL_LINE,
        COMPUTE_DXIL_VALUE,
    );
}

/// A DXIL pixel lane (DAP transcript).
#[test]
fn pixel_dxil_transcript() {
    let Some(job) = corpus_job("tests/jobs/corpus/sampling_dxil_scissor.toml") else {
        assert!(common::corpora().is_empty());
        eprintln!("SKIPPED dap::pixel_dxil_transcript: the corpora are not fetched");
        return;
    };
    session("pixel_dxil", &job, json!({ "pixel": "2,1" }), 115, "%12");
}

const COMPUTE_DXIL_LINE: u32 = 63;
const COMPUTE_DXIL_VALUE: &str = "%9";

/// Where the session is, through the REPL's `where` (`step N of M`): the step number.
fn step_number(c: &mut Client) -> u64 {
    let w = c.ok(
        "evaluate",
        json!({ "expression": "where", "context": "repl" }),
    );
    let r = w["result"].as_str().expect("a result");
    let n = r.split("step ").nth(1).and_then(|x| x.split(' ').next());
    n.and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no step number in `{r}`"))
}

/// A hit condition counts the times the lane reached the breakpoint from its first step
/// (module doc of `debug::dap`), the same going forward and backward: `== 3` stops where
/// the third `continue` to the plain breakpoint does, from the start and from the end;
/// `% 2` stops at every second hit.
#[test]
fn hit_conditions_count_from_the_lanes_first_step() {
    let job = "examples/mandelbrot.toml";
    let target = {
        let j = dxlane::job::Job::load(&common::root().join(job)).unwrap();
        let p = dxlane::job::prepare(j, &dxlane::job::RunOptions::default()).unwrap();
        dxlane::debug::from_job(&p).unwrap()
    };
    let mut d = dxlane::debug::Debugger::open(
        target,
        dxlane::debug::LaneSelect::Thread([340, 512, 0]),
        dxlane::debug::DebugOptions::default(),
    )
    .unwrap();
    d.execute("break 29").unwrap();
    let mut hits = Vec::new();
    for _ in 0..4 {
        d.execute("continue").unwrap();
        hits.push(d.position() as u64);
    }
    let mut c = Client::start();
    c.open(json!({ "job": job, "thread": "340,512,0" }));
    let set = |c: &mut Client, hit: &str| {
        let r = c.ok(
            "setBreakpoints",
            json!({ "source": { "sourceReference": 1 }, "breakpoints": [{ "line": 29, "hitCondition": hit }] }),
        );
        assert_eq!(r["breakpoints"][0]["verified"], true, "{r}");
    };
    set(&mut c, "== 3");
    let thread = c.configured()["threadId"].as_i64().unwrap();
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(step_number(&mut c), hits[2]);
    // Past it, no third hit is ahead: the end.
    let end = c.step("continue", thread);
    assert_eq!(end["description"], "the lane has finished");
    // Backward from the end: the same (third) hit.
    c.step("reverseContinue", thread);
    assert_eq!(step_number(&mut c), hits[2]);
    set(&mut c, "% 2");
    c.step("reverseContinue", thread);
    assert_eq!(step_number(&mut c), hits[1]);
    c.step("continue", thread);
    assert_eq!(step_number(&mut c), hits[3]);
    c.ok("disconnect", Value::Null);
    assert_eq!(c.finish(), 0);
}

/// Malformed, unknown and out-of-order requests get error responses naming their
/// request, and the session goes on (docs/debugger.md, "Editors").
#[test]
fn bad_requests_are_answered_with_errors() {
    let mut c = Client::start();
    let err = |c: &mut Client, cmd: &str, args: Value, want: &str| {
        let r = c.request(cmd, args);
        assert_eq!(r["success"], false, "{cmd}: {r}");
        let m = r["message"].as_str().unwrap_or("");
        assert!(m.contains(want), "{cmd}: `{m}` lacks `{want}`");
    };
    // Before launch.
    let t = c.ok("threads", Value::Null);
    assert_eq!(t["threads"], json!([]));
    err(
        &mut c,
        "stackTrace",
        json!({ "threadId": 1 }),
        "send `launch` first",
    );
    err(
        &mut c,
        "configurationDone",
        Value::Null,
        "send `launch` first",
    );
    err(
        &mut c,
        "next",
        json!({ "threadId": 1 }),
        "send `launch` first",
    );
    err(
        &mut c,
        "launch",
        json!({ "thread": "1,0,0" }),
        "missing field `job`",
    );
    err(
        &mut c,
        "launch",
        json!({ "job": "examples/mandelbrot.toml", "thread": "1,2" }),
        "is not x,y,z",
    );
    err(
        &mut c,
        "launch",
        json!({ "job": "examples/mandelbrot.toml", "group": "1,0,0" }),
        "together",
    );
    err(
        &mut c,
        "launch",
        json!({ "job": "no/such.toml", "thread": "0,0,0" }),
        "no/such.toml",
    );
    err(
        &mut c,
        "frobnicate",
        Value::Null,
        "unsupported request `frobnicate`",
    );
    err(&mut c, "attach", json!({}), "attach is not supported");
    // Not requests at all: answered with request_seq 0 when no seq can be read.
    c.send_raw(b"Content-Length: 5\r\n\r\n{oops");
    let r = c.read().unwrap();
    assert_eq!(
        (r["success"].clone(), r["request_seq"].clone()),
        (json!(false), json!(0)),
        "{r}"
    );
    let body = r#"{"seq":78,"type":"event","command":"next"}"#;
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let r = c.read().unwrap();
    assert_eq!(
        (r["request_seq"].clone(), r["success"].clone()),
        (json!(78), json!(false)),
        "{r}"
    );
    // Now a session.
    c.open(json!({ "job": "examples/triangle.toml", "vertex": 1 }));
    err(
        &mut c,
        "launch",
        json!({ "job": "examples/triangle.toml", "vertex": 1 }),
        "already open",
    );
    err(
        &mut c,
        "stepIn",
        json!({ "threadId": 2 }),
        "configurationDone",
    );
    let r = c.ok(
        "setBreakpoints",
        json!({ "source": { "sourceReference": 1 }, "breakpoints": [
            { "line": 9999 }, { "line": 8, "hitCondition": "often" },
            { "line": 8, "condition": "r0.q > 1" }, { "line": 2 }, {} ] }),
    );
    for (k, want) in [
        "the listing has",
        "hit condition `often`",
        "r0.q",
        "runs nothing",
        "needs a line",
    ]
    .iter()
    .enumerate()
    {
        let b = &r["breakpoints"][k];
        assert_eq!(b["verified"], false, "{b}");
        assert!(
            b["message"].as_str().unwrap_or("").contains(want),
            "{b} lacks {want}"
        );
    }
    err(
        &mut c,
        "setBreakpoints",
        json!({ "source": { "sourceReference": 7 } }),
        "not the listing",
    );
    err(
        &mut c,
        "source",
        json!({ "sourceReference": 2 }),
        "not the listing",
    );
    let thread = c.configured()["threadId"].as_i64().unwrap();
    err(&mut c, "configurationDone", Value::Null, "already sent");
    err(
        &mut c,
        "variables",
        json!({ "variablesReference": 9999 }),
        "names no scope",
    );
    err(
        &mut c,
        "variables",
        json!({}),
        "needs a `variablesReference`",
    );
    err(
        &mut c,
        "stackTrace",
        json!({ "threadId": 400 }),
        "no thread 400",
    );
    err(
        &mut c,
        "stackTrace",
        json!({ "threadId": 100 }),
        "not in this wave",
    );
    err(&mut c, "evaluate", json!({ "expression": "r9.x" }), "r9");
    err(&mut c, "evaluate", json!({}), "needs an `expression`");
    let info = c.ok("dataBreakpointInfo", json!({ "name": "cb0[0]" }));
    assert_eq!(info["dataId"], Value::Null, "{info}");
    let set = c.ok(
        "setDataBreakpoints",
        json!({ "breakpoints": [{ "dataId": "r7" }, { "dataId": "r0.x", "condition": "r0.x > 1" }] }),
    );
    assert_eq!(set["breakpoints"][0]["verified"], false, "{set}");
    assert_eq!(set["breakpoints"][1]["verified"], false, "{set}");
    // Still working.
    let s = c.step("stepIn", thread);
    assert_eq!(s["reason"], "step");
    c.ok("disconnect", Value::Null);
    assert_eq!(c.finish(), 0);
}

/// A Content-Length above the limit is refused before the body is read, with an error
/// response; the stream cannot be resynchronised, so the server ends (status 1).
#[test]
fn an_oversized_message_ends_the_session() {
    let mut c = Client::start();
    c.ok("initialize", json!({}));
    c.send_raw(
        format!(
            "Content-Length: {}\r\n\r\n",
            dxlane::debug::dap::wire::MAX_MESSAGE_BYTES + 1
        )
        .as_bytes(),
    );
    let r = c.read().unwrap();
    assert_eq!(r["success"], false, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("longer than the limit"),
        "{r}"
    );
    assert_eq!(c.finish(), 1);
}

/// `--dap-port 0`: the server listens on a free port of 127.0.0.1 only, says which on
/// stderr, and serves one client over TCP.
#[test]
fn the_server_listens_on_loopback_tcp() {
    use std::io::BufRead as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["debug", "--dap-port", "0"])
        .current_dir(common::root())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dxlane debug --dap-port 0");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("dxlane: debug adapter listening on ")
        .unwrap_or_else(|| panic!("`{line}`"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    let send = |s: &mut std::net::TcpStream, body: &str| {
        write!(s, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    };
    send(
        &mut s,
        r#"{"seq":1,"type":"request","command":"initialize"}"#,
    );
    send(
        &mut s,
        r#"{"seq":2,"type":"request","command":"disconnect"}"#,
    );
    let mut got = String::new();
    s.read_to_string(&mut got).unwrap();
    assert!(got.contains(r#""supportsStepBack":true"#), "{got}");
    assert!(got.contains(r#""command":"disconnect""#), "{got}");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// A DXBC geometry lane (DAP transcript; `gsPrimitive` as `--gs-primitive`).
#[test]
fn geometry_dxbc_transcript() {
    session(
        "geometry_dxbc",
        "examples/sprites.toml",
        json!({ "gsPrimitive": 5, "gsInstance": 0 }),
        14,
        "r0.x",
    );
}

/// A DXBC domain lane (DAP transcript; `dsPatch` and `dsPoint`).
#[test]
fn domain_dxbc_transcript() {
    session(
        "domain_dxbc",
        "examples/tessellation.toml",
        json!({ "dsPatch": 0, "dsPoint": 7 }),
        11,
        "r0.x",
    );
}

/// A DXIL compute lane debugged in HLSL from a container laid out as dxc -Zi writes it
/// (`tests/jobs/zi/srci.dxil`: the debug module in `ILDB`, the HLSL in `SRCI`), as an
/// editor drives it: a breakpoint by HLSL file and line with a condition on HLSL
/// variables and a hit condition, the inlined frames of `sq`, the HLSL locals, a step
/// back and the source served by reference. Values from shader.hlsl, thread 3: `v` = 3,
/// `p` = (3, 2), `s` = 10.
#[test]
fn hlsl_zi_transcript() {
    let job = "tests/jobs/zi/srci.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "thread": "3,0,0" }));
    let bps = c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "shader.hlsl", "path": "shader.hlsl" },
            "breakpoints": [
                { "line": 4, "condition": "v > 2", "hitCondition": "1" },
                { "line": 13, "condition": "s == 10" },
            ],
        }),
    );
    // Line 4 holds no instruction: the breakpoint moves to line 5 (`return v * v;`).
    assert_eq!(bps["breakpoints"][0]["line"], 5, "{bps}");
    assert_eq!(bps["breakpoints"][1]["line"], 13, "{bps}");
    let entry = c.configured();
    let thread = entry["threadId"].as_i64().expect("a thread");
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    let f = &frames["stackFrames"];
    assert_eq!(
        f[0]["name"].as_str().map(|n| n.starts_with("sq")),
        Some(true),
        "{frames}"
    );
    assert_eq!(
        (f[0]["line"].clone(), f[1]["line"].clone()),
        (json!(5), json!(11))
    );
    let source = f[0]["source"]["sourceReference"].clone();
    let scopes = c.ok("scopes", json!({ "frameId": f[0]["id"] }));
    assert_eq!(scopes["scopes"][0]["name"], "Locals");
    let vars = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    assert_eq!(vars["variables"][0]["name"], "v", "{vars}");
    assert!(
        vars["variables"][0]["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.0"))
    );
    // The caller's frame: main's locals, p already held, s not yet.
    let scopes = c.ok("scopes", json!({ "frameId": f[1]["id"] }));
    let vars = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    let text = vars.to_string();
    assert!(
        text.contains("x = 3.0 (0x40400000), y = 2.0 (0x40000000)"),
        "{text}"
    );
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "s", "context": "hover", "frameId": thread }),
    );
    assert_eq!(e["result"], "s = 10.0 (0x41200000)", "{e}");
    c.step("stepBack", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    assert_eq!(frames["stackFrames"][0]["line"], 11, "{frames}");
    let src = c.ok("source", json!({ "sourceReference": source }));
    assert!(
        src["content"]
            .as_str()
            .is_some_and(|t| t.contains("float s = sq(p.x) + 1.0;")),
        "{src}"
    );
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_zi.txt", &t);
}

/// A DXIL compute lane whose HLSL variables dxc keeps in memory and binds with
/// `llvm.dbg.declare` (`tests/jobs/zi/declare.toml`, built by
/// `src/debug/hlsl/tests/declare.rs`; docs/debugger.md, "Debugging in HLSL"): a
/// breakpoint by HLSL line, the Locals scope reading the array `a`, the struct `st` and
/// the struct `w` (split into two `alloca`s) from the lane's memory, their elements and
/// members by name through `evaluate`, and a step back before the stores of line 10.
/// Values from mem.hlsl, thread 3: at line 11, `a` = (2, 3, 0), `st` = {0, 8}, `w` =
/// {3, 7}; back on line 10, `a[0]` = 0 and `w.a` = 0 (not stored yet).
#[test]
fn hlsl_declare_transcript() {
    let job = "tests/jobs/zi/declare.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "thread": "3,0,0" }));
    let bps = c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "mem.hlsl", "path": "mem.hlsl" },
            "breakpoints": [{ "line": 11 }],
        }),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], true, "{bps}");
    let entry = c.configured();
    let thread = entry["threadId"].as_i64().expect("a thread");
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    let f = &frames["stackFrames"][0];
    assert_eq!(
        (f["name"].clone(), f["line"].clone()),
        (json!("main"), json!(11)),
        "{frames}"
    );
    let scopes = c.ok("scopes", json!({ "frameId": f["id"] }));
    assert_eq!(scopes["scopes"][0]["name"], "Locals");
    let vars = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    let value = |name: &str| {
        vars["variables"]
            .as_array()
            .and_then(|v| v.iter().find(|x| x["name"] == name))
            .and_then(|x| x["value"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        value("a"),
        "[0] = 2.0 (0x40000000), [1] = 3.0 (0x40400000), [2] = 0.0 (0x00000000)"
    );
    assert_eq!(value("st"), "a = 0.0 (0x00000000), b = 8 (0x00000008)");
    assert_eq!(value("w"), "a = 3.0 (0x40400000), b = 7 (0x00000007)");
    for (expression, want) in [
        ("a[1]", "a[1] = 3.0 (0x40400000)"),
        ("st.b", "st.b = 8 (0x00000008)"),
        ("w.a", "w.a = 3.0 (0x40400000)"),
    ] {
        let e = c.ok(
            "evaluate",
            json!({ "expression": expression, "context": "watch", "frameId": f["id"] }),
        );
        assert_eq!(e["result"], want, "{e}");
    }
    c.step("stepBack", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    assert_eq!(frames["stackFrames"][0]["line"], 10, "{frames}");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "w", "context": "watch", "frameId": frames["stackFrames"][0]["id"] }),
    );
    assert_eq!(
        e["result"], "w.a = 0.0 (0x00000000)\nw.b = 7 (0x00000007)",
        "{e}"
    );
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_declare.txt", &t);
}

/// A DXBC compute lane debugged in HLSL from an `SPDB` part (`tests/jobs/spdb/spdb.toml`:
/// the vkd3d-compiled program with a PDB written from the documented layouts by
/// `src/debug/hlsl/tests/spdb.rs`; docs/debugger.md, "DXBC programs compiled by fxc with
/// `/Zi`"): a breakpoint by HLSL line, the HLSL source served by reference, the Locals
/// scope with a vector assembled from r0.y and r0.x, and a variable whose range has
/// ended read as optimised out. Values from shader.hlsl, thread 3: `x` = 3, `p` = (6, 4),
/// `s` = 10.
#[test]
fn hlsl_spdb_transcript() {
    let job = "tests/jobs/spdb/spdb.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "thread": "3,0,0" }));
    let bps = c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "shader.hlsl", "path": "shader.hlsl" },
            "breakpoints": [{ "line": 11 }],
        }),
    );
    assert_eq!(bps["breakpoints"][0]["line"], 11, "{bps}");
    let entry = c.configured();
    let thread = entry["threadId"].as_i64().expect("a thread");
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    let f = &frames["stackFrames"];
    assert_eq!(
        (f[0]["name"].clone(), f[0]["line"].clone()),
        (json!("main"), json!(11)),
        "{frames}"
    );
    let source = f[0]["source"]["sourceReference"].clone();
    let scopes = c.ok("scopes", json!({ "frameId": f[0]["id"] }));
    assert_eq!(scopes["scopes"][0]["name"], "Locals");
    let vars = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    let text = vars.to_string();
    assert!(
        text.contains("x = 6.0 (0x40c00000), y = 4.0 (0x40800000)"),
        "{text}"
    );
    let e = c.ok(
        "evaluate",
        json!({ "expression": "x", "context": "hover", "frameId": thread }),
    );
    assert_eq!(e["result"], "x = optimised out", "{e}");
    c.step("next", thread);
    let e = c.ok(
        "evaluate",
        json!({ "expression": "s", "context": "hover", "frameId": thread }),
    );
    assert_eq!(e["result"], "s = 10.0 (0x41200000)", "{e}");
    let src = c.ok("source", json!({ "sourceReference": source }));
    assert!(
        src["content"]
            .as_str()
            .is_some_and(|t| t.contains("float s = p.x + p.y;")),
        "{src}"
    );
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_spdb.txt", &t);
}

/// The program's own breakpoints (docs/debugger.md, "Breaks the program asks for"): with
/// no breakpoint set by the client, `continue` stops at DXBC `debug_break` (reason
/// `breakpoint`) and then, on thread 2 of `tests/jobs/debug_break/dxbc.toml`, at `abort`
/// (reason `exception`), each described by the instruction; then the lane ends. A
/// `setBreakpoints` of the listing with none does not remove them. The DXIL job stops
/// at `DebugBreak()` the same way.
#[test]
fn the_programs_own_breaks_stop_continue() {
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch",
        "job": "tests/jobs/debug_break/dxbc.toml", "thread": "2,0,0" }));
    c.ok(
        "setBreakpoints",
        json!({ "source": { "sourceReference": 1 }, "breakpoints": [] }),
    );
    let thread = c.configured()["threadId"].as_i64().expect("a thread");
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(
        stop["description"], "the program's debug_break (listing line 8)",
        "{stop}"
    );
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_eq!(
        stop["description"], "the program's abort (listing line 11): the invocation ends here",
        "{stop}"
    );
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_eq!(stop["description"], "the lane has finished", "{stop}");
    c.ok("disconnect", Value::Null);
    assert_eq!(c.finish(), 0);

    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch",
        "job": "tests/jobs/debug_break/dxil.toml", "thread": "1,0,0" }));
    let thread = c.configured()["threadId"].as_i64().expect("a thread");
    let stop = c.step("continue", thread);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert!(
        stop["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("the program's DebugBreak() (listing line ")),
        "{stop}"
    );
    c.ok("disconnect", Value::Null);
    assert_eq!(c.finish(), 0);
}

/// The children of a variables or evaluate response's variable, by its name.
fn child(vars: &Value, name: &str) -> Value {
    vars["variables"]
        .as_array()
        .and_then(|v| v.iter().find(|x| x["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("no variable {name} in {vars}"))
}

/// A value's text up to its bits (`2.0 (0x40000000)` → `2.0`).
fn shown(v: &Value) -> String {
    let t = v["value"].as_str().unwrap_or_default();
    t.split(" (").next().unwrap_or_default().to_string()
}

/// Composite HLSL variables of a DXIL `-Zi` program expand through child references
/// (DAP specification, `Variable.variablesReference`, `namedVariables`,
/// `indexedVariables`; "Lifetime of Objects References": valid only while suspended;
/// docs/debugger.md, "Editors: the Debug Adapter Protocol"). On thread 3 of
/// `tests/jobs/zi/declare.toml` at mem.hlsl line 11 (values from mem.hlsl): the array
/// `a` has 3 indexed children 2, 3, 0; the struct `st` 2 named children `a` = 0, `b` = 8;
/// `evaluate st` answers with a reference to the same children; a page of `a`
/// (`start` 1, `count` 1) is `[1]` alone. After a step back the old references answer
/// an error, and the new stop's `w.a` is 0 (not stored yet).
#[test]
fn hlsl_declare_children() {
    let job = "tests/jobs/zi/declare.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "thread": "3,0,0" }));
    c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "mem.hlsl", "path": "mem.hlsl" },
            "breakpoints": [{ "line": 11 }],
        }),
    );
    let thread = c.configured()["threadId"].as_i64().expect("a thread");
    c.step("continue", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    let frame = frames["stackFrames"][0]["id"].clone();
    let scopes = c.ok("scopes", json!({ "frameId": frame }));
    let locals = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    let a = child(&locals, "a");
    assert_eq!(a["indexedVariables"], 3, "{a}");
    assert!(a.get("namedVariables").is_none(), "{a}");
    // The inline summary stays.
    assert!(shown(&a).starts_with("[0] = 2.0"), "{a}");
    let elements = c.ok(
        "variables",
        json!({ "variablesReference": a["variablesReference"] }),
    );
    let got: Vec<(String, String, Value)> = elements["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                shown(v),
                v["evaluateName"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("[0]".to_string(), "2.0".to_string(), json!("a[0]")),
            ("[1]".to_string(), "3.0".to_string(), json!("a[1]")),
            ("[2]".to_string(), "0.0".to_string(), json!("a[2]")),
        ]
    );
    assert!(
        elements["variables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["variablesReference"] == 0)
    );
    let page = c.ok(
        "variables",
        json!({ "variablesReference": a["variablesReference"], "filter": "indexed", "start": 1, "count": 1 }),
    );
    assert_eq!(
        page["variables"].as_array().map(Vec::len),
        Some(1),
        "{page}"
    );
    assert_eq!(page["variables"][0]["name"], "[1]", "{page}");
    let st = child(&locals, "st");
    assert_eq!(st["namedVariables"], 2, "{st}");
    let members = c.ok(
        "variables",
        json!({ "variablesReference": st["variablesReference"] }),
    );
    assert_eq!(shown(&child(&members, "a")), "0.0");
    assert_eq!(shown(&child(&members, "b")), "8");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "st", "context": "watch", "frameId": frame }),
    );
    assert_eq!(e["namedVariables"], 2, "{e}");
    assert_eq!(e["variablesReference"], st["variablesReference"], "{e}");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "st.b", "context": "watch", "frameId": frame }),
    );
    assert_eq!(e["variablesReference"], 0, "{e}");
    c.step("stepBack", thread);
    let stale = c.request(
        "variables",
        json!({ "variablesReference": st["variablesReference"] }),
    );
    assert_eq!(stale["success"], false, "{stale}");
    assert!(
        stale["message"]
            .as_str()
            .is_some_and(|m| m.contains("earlier stop")),
        "{stale}"
    );
    let unknown = c.request(
        "variables",
        json!({ "variablesReference": (1i64 << 30) + 999 }),
    );
    assert_eq!(unknown["success"], false, "{unknown}");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "w", "context": "watch", "frameId": frame }),
    );
    let members = c.ok(
        "variables",
        json!({ "variablesReference": e["variablesReference"] }),
    );
    assert_eq!(shown(&child(&members, "a")), "0.0", "{members}");
    assert_eq!(shown(&child(&members, "b")), "7", "{members}");
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_declare_children.txt", &t);
}

/// Composite HLSL variables of a DXBC program with an `SPDB` part expand two levels
/// through child references (DAP specification, `Variable.variablesReference`; the
/// program `tests/jobs/spdb/vertex.toml`, whose PDB `src/debug/hlsl/tests/spdb_vertex.rs`
/// writes). Vertex 1 at vertex.hlsl line 17 (values from vertex.hlsl with p = (0.5,
/// -0.25), c = (0.25, 2, 3, 1)): the matrix `m` has rows `[0]` = (0.5, -0.25) and `[1]` =
/// (2, 3), each row two components; the structure `o` has members `pos` = (0.5, -0.25,
/// 0, 1), with components `x` … `w`, and `colour`, not written yet. A `next` ends the
/// references.
#[test]
fn hlsl_spdb_children() {
    let job = "tests/jobs/spdb/vertex.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "vertex": 1 }));
    c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "vertex.hlsl", "path": "vertex.hlsl" },
            "breakpoints": [{ "line": 17 }],
        }),
    );
    let thread = c.configured()["threadId"].as_i64().expect("a thread");
    c.step("continue", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    assert_eq!(frames["stackFrames"][0]["line"], 17, "{frames}");
    let frame = frames["stackFrames"][0]["id"].clone();
    let scopes = c.ok("scopes", json!({ "frameId": frame }));
    let locals = c.ok(
        "variables",
        json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
    );
    let m = child(&locals, "m");
    assert_eq!(m["indexedVariables"], 2, "{m}");
    let rows = c.ok(
        "variables",
        json!({ "variablesReference": m["variablesReference"] }),
    );
    let row = child(&rows, "[1]");
    assert_eq!(row["evaluateName"], "m[1]", "{row}");
    assert_eq!(row["indexedVariables"], 2, "{row}");
    let cells = c.ok(
        "variables",
        json!({ "variablesReference": row["variablesReference"] }),
    );
    assert_eq!(shown(&child(&cells, "[0]")), "2.0", "{cells}");
    assert_eq!(shown(&child(&cells, "[1]")), "3.0", "{cells}");
    let row0 = c.ok(
        "variables",
        json!({ "variablesReference": child(&rows, "[0]")["variablesReference"] }),
    );
    assert_eq!(shown(&child(&row0, "[0]")), "0.5", "{row0}");
    assert_eq!(shown(&child(&row0, "[1]")), "-0.25", "{row0}");
    let o = child(&locals, "o");
    assert_eq!(o["namedVariables"], 2, "{o}");
    let members = c.ok(
        "variables",
        json!({ "variablesReference": o["variablesReference"] }),
    );
    let pos = child(&members, "pos");
    assert_eq!(pos["namedVariables"], 4, "{pos}");
    assert_eq!(pos["evaluateName"], "o.pos", "{pos}");
    let xyzw = c.ok(
        "variables",
        json!({ "variablesReference": pos["variablesReference"] }),
    );
    let got: Vec<String> = ["x", "y", "z", "w"]
        .iter()
        .map(|n| shown(&child(&xyzw, n)))
        .collect();
    assert_eq!(got, ["0.5", "-0.25", "0.0", "1.0"], "{xyzw}");
    let colour = c.ok(
        "variables",
        json!({ "variablesReference": child(&members, "colour")["variablesReference"] }),
    );
    assert_eq!(shown(&child(&colour, "x")), "not written yet", "{colour}");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "m", "context": "hover", "frameId": frame }),
    );
    assert_eq!(e["variablesReference"], m["variablesReference"], "{e}");
    c.step("next", thread);
    let stale = c.request(
        "variables",
        json!({ "variablesReference": pos["variablesReference"] }),
    );
    assert_eq!(stale["success"], false, "{stale}");
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_spdb_children.txt", &t);
}

/// Inlined functions of a DXBC program's `SPDB` inline sites are stack frames, as the
/// DXIL path's `inlinedAt` frames are (cvinfo.h `S_INLINESITE`; DAP `stackTrace`;
/// `tests/jobs/spdb/inline.toml`, whose PDB `src/debug/hlsl/tests/spdb_inline.rs`
/// writes). Thread 3 at inline.hlsl line 9: `spread` at line 9 innermost, `main` at the
/// call's line 16; the inlined frame's Locals are `v` = 3 and `twice` = 6, the
/// caller's start with its parameter `id`; `stepOut` lands on main's line 17.
#[test]
fn hlsl_spdb_inline_frames() {
    let job = "tests/jobs/spdb/inline.toml";
    let mut c = Client::start();
    c.open(json!({ "type": "dxlane", "request": "launch", "job": job, "thread": "3,0,0" }));
    c.ok(
        "setBreakpoints",
        json!({
            "source": { "name": "inline.hlsl", "path": "inline.hlsl" },
            "breakpoints": [{ "line": 9 }],
        }),
    );
    let thread = c.configured()["threadId"].as_i64().expect("a thread");
    c.step("continue", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    let f = &frames["stackFrames"];
    let got: Vec<(Value, Value)> = (0..2)
        .map(|k| (f[k]["name"].clone(), f[k]["line"].clone()))
        .collect();
    assert_eq!(
        got,
        [(json!("spread"), json!(9)), (json!("main"), json!(16))],
        "{frames}"
    );
    assert_eq!(frames["totalFrames"], 2, "{frames}");
    let locals = |c: &mut Client, frame: &Value| {
        let scopes = c.ok("scopes", json!({ "frameId": frame }));
        c.ok(
            "variables",
            json!({ "variablesReference": scopes["scopes"][0]["variablesReference"] }),
        )
    };
    let inner = locals(&mut c, &f[0]["id"]);
    assert_eq!(shown(&child(&inner, "v")), "3.0", "{inner}");
    assert_eq!(shown(&child(&inner, "twice")), "6.0", "{inner}");
    let outer = locals(&mut c, &f[1]["id"]);
    assert_eq!(outer["variables"][0]["name"], "id", "{outer}");
    c.step("stepOut", thread);
    let frames = c.ok("stackTrace", json!({ "threadId": thread }));
    assert_eq!(frames["stackFrames"][0]["name"], "main", "{frames}");
    assert_eq!(frames["stackFrames"][0]["line"], 17, "{frames}");
    c.ok("disconnect", Value::Null);
    let t = transcript(&c, job);
    assert_eq!(c.finish(), 0);
    common::assert_snapshot("dap/hlsl_spdb_inline.txt", &t);
}
