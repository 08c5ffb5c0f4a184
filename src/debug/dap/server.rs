//! The requests the server answers, one handler each, and the events it sends.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use serde_json::{Value, json};

use super::wire::{self, Request, WireError};
use super::{Debugger, HlslMember, Scope};
use crate::debug::format::Fmt;
use crate::debug::source::ProgramBreak;

/// The `launch` request's arguments: the job and the lane, named as `dxlane debug`'s
/// flags are (`groupThread` for `--group-thread`, `waveSize` for `--wave-size`, …).
/// Other fields (`type`, `request`, `name`, a client's own) are ignored.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArgs {
    /// The job file.
    pub job: PathBuf,
    /// `--thread x,y,z`.
    pub thread: Option<String>,
    /// `--group x,y,z`.
    pub group: Option<String>,
    /// `--group-thread x,y,z`.
    pub group_thread: Option<String>,
    /// `--pixel x,y`.
    pub pixel: Option<String>,
    /// `--sample n`.
    pub sample: Option<u32>,
    /// `--prim k`.
    pub prim: Option<u32>,
    /// `--vertex n`.
    pub vertex: Option<u32>,
    /// `--instance i`.
    pub instance: Option<u32>,
    /// `--gs-primitive n`.
    pub gs_primitive: Option<u32>,
    /// `--gs-instance i`.
    pub gs_instance: Option<u32>,
    /// `--hs-patch p`.
    pub hs_patch: Option<u32>,
    /// `--control-point k`.
    pub control_point: Option<u32>,
    /// `--patch-constant` (true).
    pub patch_constant: Option<bool>,
    /// `--join-phase` (true).
    pub join_phase: Option<bool>,
    /// `--ds-patch p`.
    pub ds_patch: Option<u32>,
    /// `--ds-point k`.
    pub ds_point: Option<u32>,
    /// `--ms-group x,y,z`.
    pub ms_group: Option<String>,
    /// `--ms-thread x,y,z`.
    pub ms_thread: Option<String>,
    /// `--as-group x,y,z`.
    pub as_group: Option<String>,
    /// `--as-thread x,y,z`.
    pub as_thread: Option<String>,
    /// `--ray x,y[,z]`: a string, or an array of two or three numbers (`[x, y, z]`).
    #[serde(default, deserialize_with = "ray_arg")]
    pub ray: Option<String>,
    /// A view-instanced draw's view (`--view`).
    pub view: Option<u32>,
    /// `--event N` (command lists).
    pub event: Option<usize>,
    /// `--texel NAME x,y`: the name (`rt0`, `depth`, `u1`); `at` gives `x,y`.
    pub texel: Option<String>,
    /// With `texel`: `x,y`.
    pub at: Option<String>,
    /// `--slice s` (with `texel`).
    pub slice: Option<u32>,
    /// `--mip m` (with `texel`).
    pub mip: Option<u32>,
    /// `--element NAME[i]`.
    pub element: Option<String>,
    /// `--threads n`.
    pub threads: Option<usize>,
    /// `--wave-size n`.
    pub wave_size: Option<u32>,
    /// `--profile NAME`.
    pub profile: Option<String>,
    /// `--max-record-mib n`.
    pub max_record_mib: Option<usize>,
    /// `--max-seconds s`.
    pub max_seconds: Option<f64>,
}

/// `ray` as `"x,y,z"` or `[x, y, z]`, kept as the command line's text.
fn ray_arg<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Ray {
        Text(String),
        Numbers(Vec<u32>),
    }
    Ok(match <Option<Ray> as serde::Deserialize>::deserialize(d)? {
        None => None,
        Some(Ray::Text(t)) => Some(t),
        Some(Ray::Numbers(n)) => Some(n.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
    })
}

/// Opens the session a `launch` asks for (the error is shown to the client).
pub type Launcher<'a> = dyn FnMut(&LaunchArgs) -> Result<Debugger, String> + 'a;

/// When a breakpoint that the lane reaches for the n-th time stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitCondition {
    /// `N`, `== N`, `= N`: the N-th time.
    Equal(u64),
    /// `> N`.
    Greater(u64),
    /// `>= N`.
    AtLeast(u64),
    /// `< N`.
    Less(u64),
    /// `<= N`.
    AtMost(u64),
    /// `% N`: every N-th time (N > 0).
    Every(u64),
}

impl HitCondition {
    /// Reads a hit condition (see the module doc of `dap`).
    pub fn parse(t: &str) -> Result<HitCondition, String> {
        let t = t.trim();
        type Make = fn(u64) -> HitCondition;
        let ops: [(&str, Make); 7] = [
            (">=", HitCondition::AtLeast),
            ("<=", HitCondition::AtMost),
            ("==", HitCondition::Equal),
            (">", HitCondition::Greater),
            ("<", HitCondition::Less),
            ("=", HitCondition::Equal),
            ("%", HitCondition::Every),
        ];
        let (make, n): (Make, &str) = ops
            .iter()
            .find_map(|(op, f)| t.strip_prefix(op).map(|rest| (*f, rest.trim())))
            .unwrap_or((HitCondition::Equal, t));
        let n = n.parse::<u64>().map_err(|_| {
            format!(
                "hit condition `{t}`: give N, == N, > N, >= N, < N, <= N or % N (N a whole number)"
            )
        })?;
        let c = make(n);
        if c == HitCondition::Every(0) {
            return Err(format!("hit condition `{t}`: % takes a number above 0"));
        }
        Ok(c)
    }

    /// Whether the `count`-th hit (from 1) stops the lane.
    pub fn accepts(self, count: u64) -> bool {
        match self {
            HitCondition::Equal(n) => count == n,
            HitCondition::Greater(n) => count > n,
            HitCondition::AtLeast(n) => count >= n,
            HitCondition::Less(n) => count < n,
            HitCondition::AtMost(n) => count <= n,
            HitCondition::Every(n) => n > 0 && count % n == 0,
        }
    }
}

/// A breakpoint the client set: the session's number and its hit condition.
#[derive(Debug, Clone, Copy)]
struct ClientBp {
    id: u32,
    hit: Option<HitCondition>,
}

/// The listing's `sourceReference`.
const LISTING: i64 = 1;

/// The `sourceReference` of the program's first HLSL source (`dx.source.contents`); the
/// k-th is this + k.
const FIRST_HLSL_SOURCE: i64 = 2;

/// Frame ids: `depth × FRAMES_PER_DEPTH + lane + 1` (depth 0, the innermost frame, is
/// the thread's own id).
const FRAMES_PER_DEPTH: i64 = 128;

/// Variable references of the HLSL locals of a frame: `LOCALS + depth × 128 + lane`,
/// above every scope's reference.
const LOCALS: i64 = 1 << 20;

/// The `sourceReference` of the listing of a ray pipeline's program `i` (a program a ray
/// lane invoked): this + i.
const RAY_LISTING: i64 = 1 << 16;

/// Variable references of the scopes of a ray lane's frame (a program the lane invoked,
/// or its caller): `RAY_SCOPES + depth × SCOPES_PER_LANE + scope + 1`, above every other
/// reference.
const RAY_SCOPES: i64 = 1 << 24;

/// Variable references of the children of a composite HLSL variable (a structure,
/// array, matrix or vector, or a member of one with children): `MEMBERS + n`, `n`
/// counting up through the session, so that a reference handed out before the last stop
/// is told from one never handed out.
const MEMBERS: i64 = 1 << 30;

/// The most child references one stop hands out (each names a composite the client
/// expanded or evaluated; the same composite keeps its reference).
const MAX_MEMBER_REFS: usize = 1 << 16;

/// Variable references: `lane × SCOPES_PER_LANE + scope + 1`.
const SCOPES_PER_LANE: i64 = 8;

/// Inspection commands the REPL and `evaluate` run as they are (they do not move the lane).
const INSPECT: [&str; 18] = [
    "bt",
    "backtrace",
    "listing",
    "print",
    "p",
    "regs",
    "registers",
    "inputs",
    "outputs",
    "wave",
    "why",
    "diff",
    "list",
    "where",
    "breakpoints",
    "help",
    "l",
    "rays",
];

/// Commands the REPL runs on the session itself (they move the lane or change its
/// breakpoints); any other text is a place to `print`.
const COMMANDS: [&str; 29] = [
    "nexti",
    "ni",
    "backi",
    "reverse-stepi",
    "rsi",
    "step",
    "s",
    "stepi",
    "si",
    "next",
    "n",
    "finish",
    "fin",
    "continue",
    "c",
    "cont",
    "back",
    "b",
    "reverse-step",
    "rs",
    "reverse-continue",
    "rc",
    "goto",
    "lane",
    "break",
    "br",
    "watch",
    "delete",
    "d",
];

/// A protocol error, answered as an error response.
type Failure = String;

/// One client connection's server.
pub struct Server<'a, W: Write> {
    out: W,
    seq: i64,
    launch: Box<Launcher<'a>>,
    session: Option<Debugger>,
    /// The `launch` request's arguments, which `dxlane/openTexel` and
    /// `dxlane/openElement` reuse with another lane.
    launched: Option<LaunchArgs>,
    job_name: String,
    /// The client's line breakpoints, each with the source it set them in (`setBreakpoints`
    /// replaces one source's).
    lines: Vec<(String, ClientBp)>,
    data: Vec<ClientBp>,
    /// Breakpoints and watches set with REPL commands (`break`, `watch`): kept apart from
    /// the client's lists, which `setBreakpoints` and `setDataBreakpoints` replace.
    repl: Vec<ClientBp>,
    /// Stops of each breakpoint on each lane: `(breakpoint, lane)` → positions.
    stops: HashMap<(u32, usize), Vec<(usize, String)>>,
    /// The composites handed out as child references since the last stop: the
    /// reference `MEMBERS + member_base + k` names `members[k]` — its lane, HLSL
    /// variable and path (DAP: references are valid only while the lane is suspended
    /// where they were given).
    members: Vec<(usize, usize, String)>,
    member_base: i64,
    configured: bool,
    done: bool,
}

/// Serves one client until it disconnects or the stream ends. A message the framing
/// cannot read is answered with an error response and ends the session with that error.
pub fn serve(
    input: &mut impl BufRead,
    output: impl Write,
    launch: Box<Launcher<'_>>,
) -> Result<(), WireError> {
    let mut s = Server::new(output, launch);
    loop {
        match wire::read_message(input) {
            Ok(Some(body)) => {
                s.message(&body);
                if s.done {
                    return Ok(());
                }
            }
            Ok(None) => return Ok(()),
            Err(e) => {
                s.respond_err(0, "", &e.to_string());
                return Err(e);
            }
        }
    }
}

impl<'a, W: Write> Server<'a, W> {
    /// A server writing to `out`, opening sessions with `launch`.
    pub fn new(out: W, launch: Box<Launcher<'a>>) -> Server<'a, W> {
        Server {
            out,
            seq: 0,
            launch,
            session: None,
            launched: None,
            job_name: String::new(),
            lines: Vec::new(),
            data: Vec::new(),
            repl: Vec::new(),
            stops: HashMap::new(),
            members: Vec::new(),
            member_base: 0,
            configured: false,
            done: false,
        }
    }

    /// Whether the client has disconnected.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Answers one message body.
    pub fn message(&mut self, body: &[u8]) {
        match wire::parse_request(body) {
            Ok(req) => self.request(&req),
            Err(bad) => self.respond_err(
                bad.seq.unwrap_or(0),
                bad.command.as_deref().unwrap_or(""),
                &bad.message,
            ),
        }
    }

    fn send(&mut self, mut v: Value) {
        self.seq += 1;
        v["seq"] = json!(self.seq);
        // A client that went away cannot be told anything; the loop ends at its EOF.
        let _ = wire::write_message(&mut self.out, &v);
    }

    fn respond(&mut self, req: &Request, body: Value) {
        self.send(json!({
            "type": "response",
            "request_seq": req.seq,
            "success": true,
            "command": req.command,
            "body": body,
        }));
    }

    fn respond_err(&mut self, seq: i64, command: &str, message: &str) {
        self.send(json!({
            "type": "response",
            "request_seq": seq,
            "success": false,
            "command": command,
            "message": message,
            "body": { "error": { "id": 1, "format": message, "showUser": true } },
        }));
    }

    fn event(&mut self, event: &str, body: Value) {
        self.send(json!({ "type": "event", "event": event, "body": body }));
    }

    fn output(&mut self, text: &str) {
        if !text.is_empty() {
            self.event(
                "output",
                json!({ "category": "console", "output": format!("{text}\n") }),
            );
        }
    }

    fn request(&mut self, req: &Request) {
        let r = match req.command.as_str() {
            "initialize" => {
                self.initialize(req);
                Ok(())
            }
            "launch" => self.launch(req),
            "attach" => Err("attach is not supported: `launch` with the job and the lane".into()),
            "configurationDone" => self.configuration_done(req),
            "setBreakpoints" => self.set_breakpoints(req),
            "setExceptionBreakpoints" => {
                self.respond(req, json!({ "breakpoints": [] }));
                Ok(())
            }
            "dataBreakpointInfo" => self.data_breakpoint_info(req),
            "setDataBreakpoints" => self.set_data_breakpoints(req),
            "threads" => {
                self.threads(req);
                Ok(())
            }
            "stackTrace" => self.stack_trace(req),
            "scopes" => self.scopes(req),
            "variables" => self.variables(req),
            "source" => self.source(req),
            "next" | "stepIn" | "stepOut" | "stepBack" | "continue" | "reverseContinue" => {
                self.move_lane(req)
            }
            "pause" => self.pause(req),
            "evaluate" => self.evaluate(req),
            "dxlane/openTexel" | "dxlane/openElement" => self.open_output(req),
            "disconnect" => {
                self.respond(req, Value::Null);
                self.done = true;
                Ok(())
            }
            "terminate" => {
                self.respond(req, Value::Null);
                self.event("terminated", json!({}));
                Ok(())
            }
            other => Err(format!("unsupported request `{other}`")),
        };
        if let Err(e) = r {
            self.respond_err(req.seq, &req.command, &e);
        }
    }

    fn initialize(&mut self, req: &Request) {
        self.respond(
            req,
            json!({
                "supportsConfigurationDoneRequest": true,
                "supportsStepBack": true,
                "supportsConditionalBreakpoints": true,
                "supportsHitConditionalBreakpoints": true,
                "supportsDataBreakpoints": true,
                "supportsEvaluateForHovers": true,
                "supportsTerminateRequest": true,
            }),
        );
    }

    fn launch(&mut self, req: &Request) -> Result<(), Failure> {
        if self.session.is_some() {
            return Err("a lane is already open: one launch per connection".into());
        }
        let args: LaunchArgs = serde_json::from_value(req.arguments.clone())
            .map_err(|e| format!("launch arguments: {e}"))?;
        let d = (self.launch)(&args)?;
        self.job_name = args
            .job
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut text = d.notes().join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&d.where_text());
        let source_level = d.source_level();
        self.session = Some(d);
        self.adopt_program_breakpoints();
        self.launched = Some(args);
        self.respond(req, Value::Null);
        self.output(&text);
        if source_level {
            // Steps go by HLSL line; a client may ask for instructions instead.
            self.event(
                "capabilities",
                json!({ "capabilities": { "supportsSteppingGranularity": true } }),
            );
        }
        self.event("initialized", json!({}));
        Ok(())
    }

    /// `dxlane/openTexel` (`texel`, `at`, optional `slice`, `mip`, `sample`, `event`) and
    /// `dxlane/openElement` (`element`, optional `event`): the lane that last wrote that
    /// output, in the launched job, replaces the session (as a new `launch` would: its
    /// breakpoints and watches are cleared). The response's body holds the lookup's line
    /// (`description`); a `stopped` event (reason `entry`) follows, after the store.
    fn open_output(&mut self, req: &Request) -> Result<(), Failure> {
        let Some(base) = self.launched.clone() else {
            return Err("no lane is open: send `launch` first".into());
        };
        if !self.configured {
            return Err("send configurationDone first".into());
        }
        let a = &req.arguments;
        let text = |k: &str| a[k].as_str().map(str::to_string);
        let num = |k: &str| a[k].as_u64().and_then(|n| u32::try_from(n).ok());
        let mut args = LaunchArgs {
            job: base.job.clone(),
            threads: base.threads,
            wave_size: base.wave_size,
            profile: base.profile.clone(),
            max_record_mib: base.max_record_mib,
            max_seconds: base.max_seconds,
            event: a["event"]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .or(base.event),
            ..LaunchArgs::default()
        };
        if req.command == "dxlane/openTexel" {
            args.texel = Some(
                text("texel").ok_or("dxlane/openTexel needs `texel` (a name: rt0, depth, u1)")?,
            );
            args.at = Some(text("at").ok_or("dxlane/openTexel needs `at` (\"x,y\")")?);
            args.slice = num("slice");
            args.mip = num("mip");
            args.sample = num("sample");
        } else {
            args.element =
                Some(text("element").ok_or("dxlane/openElement needs `element` (NAME[i])")?);
        }
        let d = (self.launch)(&args)?;
        let description = d.notes().last().cloned().unwrap_or_default();
        let mut out = d.notes().join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&d.where_text());
        let lane = d.lane();
        self.session = Some(d);
        self.lines.clear();
        self.data.clear();
        self.repl.clear();
        self.adopt_program_breakpoints();
        self.stops.clear();
        self.respond(req, json!({ "description": description }));
        self.output(&out);
        self.stopped("entry", lane, Some(&description), &[]);
        Ok(())
    }

    /// The breakpoints the program sets itself (`DebugBreak()`, `debug_break`, `abort`)
    /// stop `continue` like those set in the REPL: no client's `setBreakpoints` names
    /// them, so none removes them.
    fn adopt_program_breakpoints(&mut self) {
        if let Some(d) = &self.session {
            let ids = d.program_breakpoints();
            self.repl
                .extend(ids.into_iter().map(|(id, _)| ClientBp { id, hit: None }));
        }
    }

    fn session(&mut self) -> Result<&mut Debugger, Failure> {
        self.session
            .as_mut()
            .ok_or_else(|| "no lane is open: send `launch` first".to_string())
    }

    fn configuration_done(&mut self, req: &Request) -> Result<(), Failure> {
        let lane = self.session()?.lane();
        if self.configured {
            return Err("configurationDone was already sent".into());
        }
        self.configured = true;
        self.respond(req, Value::Null);
        self.stopped("entry", lane, None, &[]);
        Ok(())
    }

    fn stopped(&mut self, reason: &str, lane: usize, description: Option<&str>, ids: &[u32]) {
        let mut body = json!({
            "reason": reason,
            "threadId": lane + 1,
            "allThreadsStopped": true,
        });
        if let Some(d) = description {
            body["description"] = json!(d);
        }
        if !ids.is_empty() {
            body["hitBreakpointIds"] = json!(ids);
        }
        // The references of the last stop end with it.
        self.member_base += self.members.len() as i64;
        self.members.clear();
        self.event("stopped", body);
    }

    fn set_breakpoints(&mut self, req: &Request) -> Result<(), Failure> {
        self.session()?;
        let a = &req.arguments;
        let hlsl_file = self.hlsl_source_arg(&a["source"])?;
        let key = hlsl_file.clone().unwrap_or_default();
        // `breakpoints` (current) or `lines` (deprecated).
        let wanted: Vec<Value> = match (&a["breakpoints"], &a["lines"]) {
            (Value::Array(b), _) => b.clone(),
            (_, Value::Array(l)) => l.iter().map(|x| json!({ "line": x })).collect(),
            _ => Vec::new(),
        };
        let old: Vec<u32> = self
            .lines
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, b)| b.id)
            .collect();
        self.lines.retain(|(k, _)| *k != key);
        for id in old {
            self.forget(id);
        }
        let mut out = Vec::new();
        for b in wanted {
            let line = b["line"].as_u64().and_then(|l| u32::try_from(l).ok());
            let cond = b["condition"].as_str().filter(|c| !c.trim().is_empty());
            let hit = b["hitCondition"]
                .as_str()
                .filter(|c| !c.trim().is_empty())
                .map(HitCondition::parse);
            let Some(line) = line else {
                out.push(
                    json!({ "verified": false, "message": "a breakpoint needs a line number" }),
                );
                continue;
            };
            let hit = match hit.transpose() {
                Ok(h) => h,
                Err(e) => {
                    out.push(json!({ "verified": false, "line": line, "message": e }));
                    continue;
                }
            };
            let set = match &hlsl_file {
                None => self
                    .session()?
                    .break_at_line(line, cond)
                    .map(|id| (id, line, self.listing_source())),
                Some(f) => {
                    let d = self.session()?;
                    d.break_at_source(&format!("{f}:{line}"), cond)
                        .map(|(id, file, l)| (id, l, self.hlsl_source(&file)))
                }
            };
            match set {
                Ok((id, at, source)) => {
                    self.lines.push((key.clone(), ClientBp { id, hit }));
                    out.push(json!({
                        "id": id,
                        "verified": true,
                        "line": at,
                        "source": source,
                    }));
                }
                Err(e) => {
                    out.push(json!({ "verified": false, "line": line, "message": e.to_string() }))
                }
            }
        }
        self.respond(req, json!({ "breakpoints": out }));
        Ok(())
    }

    /// The HLSL file a request's `source` names (by `sourceReference` ≥ 2, or by `path` or
    /// `name` other than the listing's); `None` for the listing (`sourceReference` 1, or
    /// no source at all, as before debug info was read).
    fn hlsl_source_arg(&mut self, source: &Value) -> Result<Option<String>, Failure> {
        let listing = self.source_name();
        let d = self.session()?;
        let hlsl = d.target().program.view.hlsl.clone();
        if let Some(r) = source["sourceReference"].as_i64()
            && r != 0
        {
            if r == LISTING {
                return Ok(None);
            }
            let file = r
                .checked_sub(FIRST_HLSL_SOURCE)
                .and_then(|k| usize::try_from(k).ok())
                .and_then(|k| hlsl.as_ref()?.info.sources.get(k))
                .map(|s| s.name.clone());
            return match file {
                Some(f) => Ok(Some(f)),
                None => Err(format!(
                    "source reference {r} is not the listing ({LISTING}) or a source the program carries"
                )),
            };
        }
        let named = source["path"]
            .as_str()
            .or_else(|| source["name"].as_str())
            .filter(|n| *n != listing);
        match (named, hlsl) {
            (Some(n), Some(_)) => Ok(Some(n.to_string())),
            (Some(n), None) => Err(format!(
                "{n}: the program carries no debug info, so breakpoints are set in the listing (source reference {LISTING})"
            )),
            (None, _) => Ok(None),
        }
    }

    /// The listing as a protocol `Source`.
    fn listing_source(&self) -> Value {
        json!({ "name": self.source_name(), "sourceReference": LISTING })
    }

    /// An HLSL file as a protocol `Source`: its name and path as the program spells them
    /// (never a path of this machine), and a `sourceReference` when the program carries
    /// its text (`dx.source.contents`), which the `source` request serves.
    fn hlsl_source(&self, file: &str) -> Value {
        let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let mut v = json!({ "name": name, "path": file });
        if let Some((k, _)) = self
            .session
            .as_ref()
            .and_then(|d| d.target().program.view.hlsl.clone())
            .and_then(|h| h.source(file).map(|(k, _)| k))
            .map(|k| (k, ()))
        {
            v["sourceReference"] = json!(FIRST_HLSL_SOURCE + k as i64);
        }
        v
    }

    fn forget(&mut self, id: u32) {
        if let Some(d) = self.session.as_mut() {
            d.remove_breakpoint(id);
        }
        self.stops.retain(|(b, _), _| *b != id);
    }

    fn data_breakpoint_info(&mut self, req: &Request) -> Result<(), Failure> {
        let a = &req.arguments;
        let name = a["name"]
            .as_str()
            .ok_or("dataBreakpointInfo needs a `name`")?
            .to_string();
        // A variable of a scope: the place its `watch` names; otherwise the name as typed.
        let place = match a["variablesReference"].as_i64() {
            Some(r) if r >= LOCALS => None,
            Some(r) if r > 0 => {
                let (lane, scope) = decode_ref(r)?;
                let vals = self.at_lane(lane, |d| d.scope_values(scope))?;
                vals.into_iter()
                    .find(|v| v.name == name)
                    .and_then(|v| v.watch)
            }
            _ => Some(name.clone()),
        };
        let d = self.session()?;
        let body = match place {
            Some(p) if !p.starts_with("cb") && d.print(&p, Fmt::Natural).is_ok() => json!({
                "dataId": p,
                "description": format!("a write of {p}"),
                "accessTypes": ["write"],
                "canPersist": false,
            }),
            _ => json!({
                "dataId": null,
                "description": format!("{name} cannot be watched (registers, values, UAV and group shared elements can)"),
            }),
        };
        self.respond(req, body);
        Ok(())
    }

    fn set_data_breakpoints(&mut self, req: &Request) -> Result<(), Failure> {
        self.session()?;
        let wanted = match &req.arguments["breakpoints"] {
            Value::Array(b) => b.clone(),
            _ => return Err("setDataBreakpoints needs `breakpoints`".into()),
        };
        let old: Vec<u32> = self.data.drain(..).map(|b| b.id).collect();
        for id in old {
            self.forget(id);
        }
        let mut out = Vec::new();
        for b in wanted {
            let Some(place) = b["dataId"].as_str() else {
                out.push(
                    json!({ "verified": false, "message": "a data breakpoint needs a `dataId`" }),
                );
                continue;
            };
            if b["condition"]
                .as_str()
                .is_some_and(|c| !c.trim().is_empty())
            {
                out.push(json!({ "verified": false, "message": "a data breakpoint takes no condition (a hit condition works)" }));
                continue;
            }
            let hit = match b["hitCondition"]
                .as_str()
                .filter(|c| !c.trim().is_empty())
                .map(HitCondition::parse)
                .transpose()
            {
                Ok(h) => h,
                Err(e) => {
                    out.push(json!({ "verified": false, "message": e }));
                    continue;
                }
            };
            match self.session()?.watch(place) {
                Ok(id) => {
                    self.data.push(ClientBp { id, hit });
                    out.push(json!({ "id": id, "verified": true, "message": format!("a write of {place}") }));
                }
                Err(e) => out.push(json!({ "verified": false, "message": e.to_string() })),
            }
        }
        self.respond(req, json!({ "breakpoints": out }));
        Ok(())
    }

    fn threads(&mut self, req: &Request) {
        let threads: Vec<Value> = match &self.session {
            Some(d) => d
                .wave_lanes()
                .into_iter()
                .map(|(l, inv)| json!({ "id": l + 1, "name": format!("lane {l}: {inv}") }))
                .collect(),
            None => Vec::new(),
        };
        self.respond(req, json!({ "threads": threads }));
    }

    fn source_name(&self) -> String {
        format!("{} (listing)", self.job_name)
    }

    /// Runs `f` on lane `lane` and puts the session back where it was.
    fn at_lane<T>(
        &mut self,
        lane: usize,
        f: impl FnOnce(&mut Debugger) -> T,
    ) -> Result<T, Failure> {
        let d = self.session()?;
        let (l0, p0) = (d.lane(), d.position());
        if lane == l0 {
            return Ok(f(d));
        }
        d.switch_lane(lane).map_err(|e| e.to_string())?;
        let r = f(d);
        let _ = d.switch_lane(l0);
        d.goto(p0);
        Ok(r)
    }

    fn lane_arg(&mut self, v: &Value) -> Result<usize, Failure> {
        let cur = self.session()?.lane();
        match v.as_i64() {
            None => Ok(cur),
            Some(t) if (1..=128).contains(&t) => Ok((t - 1) as usize),
            Some(t) => Err(format!("there is no thread {t}")),
        }
    }

    /// A frame id: its lane and depth (0: the innermost frame); none: the session's lane.
    fn frame_arg(&mut self, v: &Value) -> Result<(usize, usize), Failure> {
        let cur = self.session()?.lane();
        match v.as_i64() {
            None => Ok((cur, 0)),
            Some(t) if (1..=64 * FRAMES_PER_DEPTH).contains(&t) => {
                let k = t - 1;
                Ok((
                    (k % FRAMES_PER_DEPTH) as usize,
                    (k / FRAMES_PER_DEPTH) as usize,
                ))
            }
            Some(t) => Err(format!("there is no frame {t}")),
        }
    }

    fn stack_trace(&mut self, req: &Request) -> Result<(), Failure> {
        let lane = self.lane_arg(&req.arguments["threadId"])?;
        let name = self.source_name();
        // Inside a program a ray invoked: a frame per program, each on its own listing.
        let rays = self.at_lane(lane, |d| {
            let entries: Vec<String> = d
                .target()
                .ray_programs()
                .map(|p| p.iter().map(|p| p.shader.entry.clone()).collect())
                .unwrap_or_default();
            (d.ray_frames(), entries)
        })?;
        if !rays.0.is_empty() {
            let n = rays.0.len();
            let list: Vec<Value> = (rays.0.iter().enumerate())
                .map(|(k, (title, program, line))| {
                    let source = match program {
                        Some(i) => json!({
                            "name": format!("{} {} (listing)", self.job_name, rays.1.get(*i).cloned().unwrap_or_default()),
                            "sourceReference": RAY_LISTING + *i as i64,
                        }),
                        None => self.listing_source(),
                    };
                    json!({
                        "id": k as i64 * FRAMES_PER_DEPTH + lane as i64 + 1,
                        "name": title,
                        "line": line.unwrap_or(0),
                        "column": 1,
                        "source": source,
                    })
                })
                .collect();
            self.respond(req, json!({ "stackFrames": list, "totalFrames": n }));
            return Ok(());
        }
        let (line, finished, stage, entry) = self.at_lane(lane, |d| {
            let sh = &d.target().program.shader;
            (
                d.current_line(),
                d.finished(),
                format!("{:?}", sh.stage).to_lowercase(),
                sh.entry.clone(),
            )
        })?;
        let frames = self.at_lane(lane, |d| d.frames())?;
        if !frames.is_empty() {
            let n = frames.len();
            let list: Vec<Value> = frames
                .iter()
                .enumerate()
                .map(|(k, f)| {
                    let fin = if finished && k == 0 { ", finished" } else { "" };
                    json!({
                        "id": k as i64 * FRAMES_PER_DEPTH + lane as i64 + 1,
                        "name": format!("{}{fin}", f.function),
                        "line": f.line,
                        "column": f.column.max(1),
                        "source": self.hlsl_source(&f.file),
                    })
                })
                .collect();
            self.respond(req, json!({ "stackFrames": list, "totalFrames": n }));
            return Ok(());
        }
        let mut frame = json!({
            "id": lane + 1,
            "name": format!("{entry} ({stage} program){}", if finished { ", finished" } else { "" }),
            "line": line.unwrap_or(0),
            "column": 1,
        });
        if line.is_some() {
            frame["source"] = json!({ "name": name, "sourceReference": LISTING });
        }
        self.respond(req, json!({ "stackFrames": [frame], "totalFrames": 1 }));
        Ok(())
    }

    fn scopes(&mut self, req: &Request) -> Result<(), Failure> {
        let (lane, depth) = self.frame_arg(&req.arguments["frameId"])?;
        let ray = self.at_lane(lane, |d| d.ray_frame(depth).map(Debugger::scopes))?;
        if let Some(scopes) = ray {
            let list: Vec<Value> = scopes
                .into_iter()
                .map(|s| {
                    let k = Scope::ALL.iter().position(|x| *x == s).unwrap_or(0) as i64;
                    json!({
                        "name": s.title(),
                        "variablesReference": RAY_SCOPES + depth as i64 * SCOPES_PER_LANE + k + 1,
                        "expensive": matches!(s, Scope::Constants | Scope::Shared),
                    })
                })
                .collect();
            self.respond(req, json!({ "scopes": list }));
            return Ok(());
        }
        let (scopes, frames) = self.at_lane(lane, |d| (d.scopes(), d.frames().len()))?;
        let mut list: Vec<Value> = Vec::new();
        if depth < frames {
            list.push(json!({
                "name": "Locals",
                "presentationHint": "locals",
                "variablesReference": LOCALS + depth as i64 * 128 + lane as i64,
                "expensive": false,
            }));
        }
        list.extend(scopes.into_iter().map(|s| {
            json!({
                "name": s.title(),
                "variablesReference": encode_ref(lane, s),
                "expensive": matches!(s, Scope::Constants | Scope::Shared),
            })
        }));
        self.respond(req, json!({ "scopes": list }));
        Ok(())
    }

    /// The child reference of a composite HLSL member on `lane` (the one it already has
    /// at this stop, else a new one); 0 for a scalar, or once this stop has handed out
    /// [`MAX_MEMBER_REFS`].
    fn member_ref(&mut self, lane: usize, m: &HlslMember) -> i64 {
        if m.named + m.indexed == 0 {
            return 0;
        }
        let key = (lane, m.variable, m.path.clone());
        let k = match self.members.iter().position(|x| *x == key) {
            Some(k) => k,
            None if self.members.len() < MAX_MEMBER_REFS => {
                self.members.push(key);
                self.members.len() - 1
            }
            None => return 0,
        };
        MEMBERS + self.member_base + k as i64
    }

    /// A member as a DAP `Variable`: its value, and for a composite its child reference
    /// with the counts of its named and indexed children.
    fn member_json(&mut self, lane: usize, m: &HlslMember) -> Value {
        let r = self.member_ref(lane, m);
        let mut x = json!({
            "name": m.name,
            "value": m.value,
            "variablesReference": r,
            "evaluateName": m.spelling,
        });
        if r != 0 && m.named > 0 {
            x["namedVariables"] = json!(m.named);
        }
        if r != 0 && m.indexed > 0 {
            x["indexedVariables"] = json!(m.indexed);
        }
        x
    }

    /// The children behind a child reference: the lane, HLSL variable and path it
    /// names, or why it names none (handed out before the last stop, or never).
    fn member_target(&self, r: i64) -> Result<(usize, usize, String), Failure> {
        let k = r - MEMBERS;
        if k < self.member_base {
            return Err(format!(
                "variables reference {r} is from an earlier stop: references last only until the lane moves"
            ));
        }
        usize::try_from(k - self.member_base)
            .ok()
            .and_then(|k| self.members.get(k))
            .cloned()
            .ok_or_else(|| format!("variables reference {r} names nothing"))
    }

    fn variables(&mut self, req: &Request) -> Result<(), Failure> {
        let r = req.arguments["variablesReference"]
            .as_i64()
            .ok_or("variables needs a `variablesReference`")?;
        if r >= MEMBERS || (LOCALS..RAY_SCOPES).contains(&r) {
            let (lane, members) = if r >= MEMBERS {
                let (lane, v, path) = self.member_target(r)?;
                (lane, self.at_lane(lane, |d| d.hlsl_members(v, &path))?)
            } else {
                let (lane, depth) = decode_locals(r)?;
                (lane, self.at_lane(lane, |d| d.local_members(depth))?)
            };
            // DAP paging: `filter` ("named", "indexed"), `start`, `count` (0: all).
            let a = &req.arguments;
            let filter = a["filter"].as_str();
            let start = a["start"].as_u64().unwrap_or(0) as usize;
            let count = a["count"].as_u64().filter(|c| *c > 0).unwrap_or(u64::MAX) as usize;
            let picked: Vec<HlslMember> = members
                .into_iter()
                .filter(|m| match filter {
                    Some("named") => !m.name.starts_with('['),
                    Some("indexed") => m.name.starts_with('['),
                    _ => true,
                })
                .skip(start)
                .take(count)
                .collect();
            let vars: Vec<Value> = picked.iter().map(|m| self.member_json(lane, m)).collect();
            self.respond(req, json!({ "variables": vars }));
            return Ok(());
        }
        let vals = if r >= RAY_SCOPES {
            let k = r - RAY_SCOPES - 1;
            let (depth, scope) = (
                (k / SCOPES_PER_LANE) as usize,
                Scope::ALL.get((k % SCOPES_PER_LANE) as usize).copied(),
            );
            let d = self.session()?;
            match (d.ray_frame(depth), scope) {
                (Some(f), Some(s)) => f.scope_values(s),
                _ => {
                    return Err(format!(
                        "variables reference {r} names no frame of the lane"
                    ));
                }
            }
        } else {
            let (lane, scope) = decode_ref(r)?;
            self.at_lane(lane, |d| d.scope_values(scope))?
        };
        let vars: Vec<Value> = vals
            .into_iter()
            .map(|v| {
                let mut x = json!({ "name": v.name, "value": v.value, "variablesReference": 0 });
                if let Some(w) = v.watch {
                    x["evaluateName"] = json!(w);
                }
                x
            })
            .collect();
        self.respond(req, json!({ "variables": vars }));
        Ok(())
    }

    fn source(&mut self, req: &Request) -> Result<(), Failure> {
        let a = &req.arguments;
        let r = a["sourceReference"]
            .as_i64()
            .or_else(|| a["source"]["sourceReference"].as_i64())
            .ok_or("source needs a `sourceReference`")?;
        if (RAY_LISTING..RAY_SCOPES).contains(&r) {
            let d = self.session()?;
            let text = usize::try_from(r - RAY_LISTING)
                .ok()
                .and_then(|i| d.target().ray_programs()?.get(i))
                .map(|p| p.view.lines.join("\n"));
            let Some(text) = text else {
                return Err(format!(
                    "source reference {r} is no program of the pipeline"
                ));
            };
            self.respond(req, json!({ "content": text, "mimeType": "text/plain" }));
            return Ok(());
        }
        if r != LISTING {
            let d = self.session()?;
            let text = d.target().program.view.hlsl.as_ref().and_then(|h| {
                let k = usize::try_from(r.checked_sub(FIRST_HLSL_SOURCE)?).ok()?;
                h.info.sources.get(k).map(|s| s.text.clone())
            });
            let Some(text) = text else {
                return Err(format!(
                    "source reference {r} is not the listing ({LISTING}) or a source the program carries"
                ));
            };
            self.respond(req, json!({ "content": text, "mimeType": "text/x-hlsl" }));
            return Ok(());
        }
        let text = self.session()?.target().program.view.lines.join("\n");
        self.respond(req, json!({ "content": text, "mimeType": "text/plain" }));
        Ok(())
    }

    fn pause(&mut self, req: &Request) -> Result<(), Failure> {
        let lane = self.session()?.lane();
        // The lane never runs on its own: it is always stopped.
        self.respond(req, Value::Null);
        self.stopped("pause", lane, None, &[]);
        Ok(())
    }

    fn move_lane(&mut self, req: &Request) -> Result<(), Failure> {
        let lane = self.lane_arg(&req.arguments["threadId"])?;
        if !self.configured {
            return Err("send configurationDone before stepping".into());
        }
        let d = self.session()?;
        if lane != d.lane() {
            d.switch_lane(lane).map_err(|e| e.to_string())?;
        }
        // By HLSL line when the program carries debug info, unless the client asks for
        // instructions (`granularity: "instruction"`).
        // A ray lane steps into the programs it invokes (by instruction).
        let by_line = d.steps_into_rays()
            || (d.source_level() && req.arguments["granularity"].as_str() != Some("instruction"));
        let by_line_cmd = match req.command.as_str() {
            "next" => Some("next"),
            "stepIn" => Some("step"),
            "stepOut" => Some("finish"),
            "stepBack" => Some("back"),
            _ => None,
        };
        let (reason, text, ids) = match (by_line, by_line_cmd, req.command.as_str()) {
            (true, Some(c), _) => ("step", d.execute(c).map_err(|e| e.to_string())?, Vec::new()),
            (_, _, "next") => ("step", d.next_over(), Vec::new()),
            (_, _, "stepIn") => ("step", d.step(1), Vec::new()),
            (_, _, "stepOut") => ("step", d.finish(), Vec::new()),
            (_, _, "stepBack") => ("step", d.back(1), Vec::new()),
            _ => self.run_to_stop(req.command == "continue")?,
        };
        let body = if req.command == "continue" {
            json!({ "allThreadsContinued": true })
        } else {
            Value::Null
        };
        self.respond(req, body);
        self.output(&text);
        self.announce(reason, &ids);
        Ok(())
    }

    /// The `stopped` event after a move: at the lane's end or start, said so.
    fn announce(&mut self, reason: &str, ids: &[u32]) {
        let Some(d) = &self.session else {
            return;
        };
        let lane = d.lane();
        // A stop at the program's own breakpoint says which instruction set it.
        let own = d
            .program_breakpoints()
            .iter()
            .find(|(id, _)| ids.contains(id))
            .and_then(|(id, _)| d.breakpoint_text(*id));
        let desc = if reason == "step" && d.finished() {
            Some("the lane has finished")
        } else if reason == "step" && d.position() == 0 {
            Some("at the lane's first step")
        } else {
            own.as_deref()
        };
        self.stopped(reason, lane, desc, ids);
    }

    /// `continue` or `reverseContinue`: to the nearest position where a breakpoint whose
    /// hit condition holds stops the lane, or the end (start).
    fn run_to_stop(&mut self, forward: bool) -> Result<(&'static str, String, Vec<u32>), Failure> {
        let d = self.session.as_ref().ok_or("no lane is open")?;
        // A REPL `delete` may have removed some.
        let bps: Vec<ClientBp> = (self.lines.iter().map(|(_, b)| b))
            .chain(&self.data)
            .chain(&self.repl)
            .filter(|b| d.breakpoint_text(b.id).is_some())
            .copied()
            .collect();
        let (pos, lane) = (d.position(), d.lane());
        let mut best: Option<usize> = None;
        let mut hits: Vec<(usize, u32, String)> = Vec::new();
        for b in &bps {
            if !self.stops.contains_key(&(b.id, lane)) {
                let d = self.session.as_ref().ok_or("no lane is open")?;
                let s = d.breakpoint_stops(b.id).map_err(|e| e.to_string())?;
                self.stops.insert((b.id, lane), s);
            }
            let stops = &self.stops[&(b.id, lane)];
            let accepted = stops
                .iter()
                .enumerate()
                .filter(|(n, _)| b.hit.is_none_or(|h| h.accepts(*n as u64 + 1)))
                .map(|(_, s)| s);
            let found = if forward {
                accepted.clone().find(|(q, _)| *q > pos)
            } else {
                accepted.clone().rfind(|(q, _)| *q < pos)
            };
            if let Some((q, why)) = found {
                hits.push((*q, b.id, why.clone()));
                best = Some(match best {
                    None => *q,
                    Some(x) if forward => x.min(*q),
                    Some(x) => x.max(*q),
                });
            }
        }
        let d = self.session.as_mut().ok_or("no lane is open")?;
        let Some(q) = best else {
            let text = if forward {
                d.goto_lane_step(d.len())
            } else {
                format!("at the start\n{}", d.goto_lane_step(0))
            };
            return Ok(("step", text, Vec::new()));
        };
        d.goto_lane_step(q);
        let mut text = String::new();
        let mut ids = Vec::new();
        let mut data = false;
        for (_, id, why) in hits.iter().filter(|h| h.0 == q) {
            ids.push(*id);
            data |= d.is_watch(*id);
            let bp = d.breakpoint_text(*id).unwrap_or_default();
            text.push_str(&format!("breakpoint {id}: {bp}"));
            if !why.is_empty() {
                text.push_str(&format!(" — {why}"));
            }
            text.push('\n');
        }
        text.push_str(&d.where_text());
        let aborts = d
            .program_breakpoints()
            .iter()
            .any(|(id, k)| *k == ProgramBreak::Abort && ids.contains(id));
        // `abort` ends the invocation: an exception stop, as the reference device raises
        // an error there; `DebugBreak()` is a breakpoint.
        let reason = if aborts {
            "exception"
        } else if data {
            "data breakpoint"
        } else {
            "breakpoint"
        };
        Ok((reason, text, ids))
    }

    fn evaluate(&mut self, req: &Request) -> Result<(), Failure> {
        let a = &req.arguments;
        let expr = a["expression"]
            .as_str()
            .ok_or("evaluate needs an `expression`")?
            .trim()
            .to_string();
        let repl = a["context"].as_str() == Some("repl");
        let first = expr
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        let inspect = INSPECT.contains(&first);
        let frame_lane = match a["frameId"].as_i64() {
            Some(_) => Some(self.frame_arg(&a["frameId"])?.0),
            None => None,
        };
        let (result, moved) = if inspect || !repl || !COMMANDS.contains(&first) {
            let cmd = if inspect {
                expr.clone()
            } else {
                format!("print {expr}")
            };
            let lane = match frame_lane {
                Some(l) => l,
                None => self.session()?.lane(),
            };
            let r = self.at_lane(lane, |d| d.execute(&cmd))?;
            let text = r.map_err(|e| e.to_string())?;
            // A composite HLSL variable or member also answers with its children.
            if !inspect && let Some(m) = self.at_lane(lane, |d| d.hlsl_composite(&expr))? {
                let v = self.member_json(lane, &m);
                let mut body =
                    json!({ "result": text, "variablesReference": v["variablesReference"] });
                for k in ["namedVariables", "indexedVariables"] {
                    if let Some(n) = v.get(k) {
                        body[k] = n.clone();
                    }
                }
                self.respond(req, body);
                return Ok(());
            }
            (text, false)
        } else {
            // Any other command in the REPL runs on the session as the CLI's prompt would.
            let d = self.session()?;
            let before = (d.lane(), d.position());
            let r = d.execute(&expr).map_err(|e| e.to_string())?;
            let after = (d.lane(), d.position());
            // `breakpoint N: …`, `watch N: …`: one `continue` and `reverseContinue` stop at.
            if matches!(first, "break" | "br" | "watch")
                && let Some(id) = r
                    .split_once(' ')
                    .and_then(|(_, rest)| rest.split_once(':'))
                    .and_then(|(n, _)| n.parse::<u32>().ok())
            {
                self.repl.push(ClientBp { id, hit: None });
            }
            // Breakpoints may have changed under the cached hit positions.
            self.stops.clear();
            (r, before != after)
        };
        self.respond(req, json!({ "result": result, "variablesReference": 0 }));
        if moved && self.configured {
            self.announce("goto", &[]);
        }
        Ok(())
    }
}

fn encode_ref(lane: usize, scope: Scope) -> i64 {
    let k = Scope::ALL.iter().position(|s| *s == scope).unwrap_or(0);
    lane as i64 * SCOPES_PER_LANE + k as i64 + 1
}

/// A locals reference's lane and frame depth.
fn decode_locals(r: i64) -> Result<(usize, usize), Failure> {
    let k = r
        .checked_sub(LOCALS)
        .filter(|k| (0..64 * 128).contains(k))
        .ok_or_else(|| format!("variables reference {r} names no scope"))?;
    Ok(((k % 128) as usize, (k / 128) as usize))
}

fn decode_ref(r: i64) -> Result<(usize, Scope), Failure> {
    let bad = || format!("variables reference {r} names no scope");
    let r = r.checked_sub(1).filter(|r| *r >= 0).ok_or_else(bad)?;
    let lane = r / SCOPES_PER_LANE;
    let scope = Scope::ALL
        .get((r % SCOPES_PER_LANE) as usize)
        .copied()
        .ok_or_else(bad)?;
    if lane >= 128 {
        return Err(bad());
    }
    Ok((lane as usize, scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hit conditions the module doc lists, counted from 1.
    #[test]
    fn hit_conditions() {
        let h = |t: &str| HitCondition::parse(t).unwrap();
        assert!(h("3").accepts(3) && !h("3").accepts(4));
        assert!(h("== 3").accepts(3) && h("=3").accepts(3));
        assert!(h(">= 2").accepts(2) && !h(">= 2").accepts(1));
        assert!(h("> 2").accepts(3) && !h("> 2").accepts(2));
        assert!(h("< 2").accepts(1) && !h("< 2").accepts(2));
        assert!(h("<= 2").accepts(2) && !h("<= 2").accepts(3));
        assert!(h("% 3").accepts(6) && !h("% 3").accepts(7));
        assert!(HitCondition::parse("% 0").is_err());
        assert!(HitCondition::parse("often").is_err());
        assert!(HitCondition::parse("> -1").is_err());
    }

    #[test]
    fn variable_references_round_trip_and_refuse_others() {
        for lane in [0, 5, 127] {
            for s in Scope::ALL {
                assert_eq!(decode_ref(encode_ref(lane, s)).unwrap(), (lane, s));
            }
        }
        for r in [0, -1, 6, 7, 8 * 128 + 1, i64::MAX, i64::MIN] {
            assert!(decode_ref(r).is_err(), "{r}");
        }
    }
}
