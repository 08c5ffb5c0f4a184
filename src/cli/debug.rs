//! `dxlane debug JOB --thread x,y,z` (compute) or `--pixel x,y` / `--vertex n` (draw;
//! `--ms-group`/`--ms-thread` and `--as-group`/`--as-thread` on a mesh draw; `--ray x,y`
//! on a ray-tracing job):
//! opens the lane debugger on one lane of a job (see `debug`), runs the commands of `-c` and `--script` or reads them from an
//! interactive prompt, and writes `--trace` files.
//!
//! `--texel NAME x,y` and `--element NAME[i]` open the lane that last wrote that output
//! (`debug::provenance`).
//!
//! Exit status: 0 when the session ends normally; 1 when a scripted command fails (the
//! error is printed and the script stops); 2 when the job, the program or the lane cannot
//! be opened; 3 when no lane wrote the texel or element asked about (its value is a
//! clear or the resource's initial contents). At the prompt an error is printed and the
//! session goes on.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::debug::{self, DebugOptions, Debugger, LaneSelect};
use crate::job::paths::{OutputGate, read_input};
use crate::job::{Job, RunOptions};

/// `dxlane debug`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct DebugArgs {
    /// The job file (TOML); with --dap or --dap-port the client's `launch` names it.
    #[arg(required_unless_present_any = ["dap", "dap_port"])]
    pub job: Option<PathBuf>,
    /// Serve the Debug Adapter Protocol on stdin and stdout instead of a prompt: the
    /// client's `launch` request names the job and the lane (docs/debugger.md).
    #[arg(long, conflicts_with = "dap_port")]
    pub dap: bool,
    /// Serve the Debug Adapter Protocol to one client connecting to this TCP port on
    /// 127.0.0.1 (0: any free port, printed on stderr).
    #[arg(long, value_name = "PORT")]
    pub dap_port: Option<u16>,
    /// The lane by SV_DispatchThreadID: `x,y,z`.
    #[arg(long, value_name = "X,Y,Z", conflicts_with_all = ["group", "group_thread"])]
    pub thread: Option<String>,
    /// The lane's SV_GroupID (with --group-thread).
    #[arg(long, value_name = "X,Y,Z", requires = "group_thread")]
    pub group: Option<String>,
    /// The lane's SV_GroupThreadID (with --group).
    #[arg(long, value_name = "X,Y,Z", requires = "group")]
    pub group_thread: Option<String>,
    /// Command-list jobs: the event (`[[command]] #N`, from 1) whose lane to debug; the
    /// commands before it run first.
    #[arg(long, value_name = "N")]
    pub event: Option<usize>,
    /// Draw jobs: the pixel-program lane that shaded pixel `x,y`.
    #[arg(long, value_name = "X,Y", conflicts_with_all = ["thread", "group", "vertex"])]
    pub pixel: Option<String>,
    /// With --pixel or --texel: the sample (default 0).
    #[arg(long)]
    pub sample: Option<u32>,
    /// With --pixel: which of the primitives covering the sample, in draw order (default
    /// 0, the first).
    #[arg(long, requires = "pixel")]
    pub prim: Option<u32>,
    /// Draw jobs: the vertex-program lane of SV_VertexID `n`.
    #[arg(long, value_name = "N", conflicts_with_all = ["thread", "group"])]
    pub vertex: Option<u32>,
    /// With --vertex, --gs-primitive, --hs-patch or --ds-patch: the draw instance
    /// (default 0).
    #[arg(long)]
    pub instance: Option<u32>,
    /// Draw jobs: the geometry-program lane of input primitive `n` of the draw instance
    /// (its SV_PrimitiveID without tessellation; after tessellation, the n-th primitive
    /// the tessellator made, in order).
    #[arg(long, value_name = "N", conflicts_with_all = ["thread", "group", "pixel", "vertex", "hs_patch", "ds_patch", "texel", "element"])]
    pub gs_primitive: Option<u32>,
    /// With --gs-primitive: the SV_GSInstanceID (default 0).
    #[arg(long, value_name = "I", requires = "gs_primitive")]
    pub gs_instance: Option<u32>,
    /// Draw jobs: a hull-program lane of patch `p` of the draw instance: give
    /// --control-point k (the control-point phase) or --patch-constant.
    #[arg(long, value_name = "P", conflicts_with_all = ["thread", "group", "pixel", "vertex", "ds_patch", "texel", "element"])]
    pub hs_patch: Option<u32>,
    /// With --hs-patch: the control-point phase's lane of SV_OutputControlPointID `k`.
    #[arg(
        long,
        value_name = "K",
        requires = "hs_patch",
        conflicts_with = "patch_constant"
    )]
    pub control_point: Option<u32>,
    /// With --hs-patch: the patch-constant phase's lane.
    #[arg(long, requires = "hs_patch")]
    pub patch_constant: bool,
    /// With --hs-patch: the lane of a DXBC hull program's join phases, which run after
    /// its fork phases in a pass of their own.
    #[arg(long, requires = "hs_patch", conflicts_with_all = ["control_point", "patch_constant"])]
    pub join_phase: bool,
    /// Draw jobs: a domain-program lane of patch `p` of the draw instance (with
    /// --ds-point).
    #[arg(long, value_name = "P", conflicts_with_all = ["thread", "group", "pixel", "vertex", "texel", "element"])]
    pub ds_patch: Option<u32>,
    /// With --ds-patch: the domain point, numbered as the tessellator makes them
    /// (`dxlane tessellate` lists them).
    #[arg(long, value_name = "K", requires = "ds_patch")]
    pub ds_point: Option<u32>,
    /// Mesh draws: the mesh-program lane of thread `x,y,z` (`--ms-thread`) of mesh group
    /// `x,y,z` (its SV_GroupID); with an amplification program, of the grid that
    /// `--as-group` launched (which may be left out when the amplification grid has one
    /// group).
    #[arg(long, value_name = "X,Y,Z", requires = "ms_thread", conflicts_with_all = ["thread", "group", "pixel", "vertex", "gs_primitive", "hs_patch", "ds_patch", "texel", "element"])]
    pub ms_group: Option<String>,
    /// With --ms-group: the mesh lane's SV_GroupThreadID.
    #[arg(long, value_name = "X,Y,Z", requires = "ms_group")]
    pub ms_thread: Option<String>,
    /// Mesh draws: the amplification group (SV_GroupID) whose lane --as-thread names, or
    /// with --ms-group the one that launched the mesh group.
    #[arg(long, value_name = "X,Y,Z", conflicts_with_all = ["thread", "group", "pixel", "vertex", "gs_primitive", "hs_patch", "ds_patch", "texel", "element"])]
    pub as_group: Option<String>,
    /// With --as-group: the amplification lane's SV_GroupThreadID.
    #[arg(
        long,
        value_name = "X,Y,Z",
        requires = "as_group",
        conflicts_with = "ms_group"
    )]
    pub as_thread: Option<String>,
    /// View-instanced draws: the view whose pass holds the lane (its SV_ViewID), for
    /// every draw lane (--pixel, --vertex, --gs-primitive, --hs-patch, --ds-patch,
    /// --ms-group, --as-group); --texel and --element find the view themselves.
    #[arg(long, value_name = "N", conflicts_with_all = ["thread", "group", "group_thread", "ray", "texel", "element"])]
    pub view: Option<u32>,
    /// Ray-tracing jobs (`[rays]`, a list's `dispatch_rays`): the ray-generation lane of
    /// launch index `x,y[,z]` (its DispatchRaysIndex; z defaults to 0).
    #[arg(long, value_name = "X,Y[,Z]", conflicts_with_all = ["thread", "group", "group_thread", "pixel", "vertex", "gs_primitive", "hs_patch", "ds_patch", "ms_group", "as_group", "texel", "element"])]
    pub ray: Option<String>,
    /// The lane that last wrote texel `x,y` of a render target (`rt0`), the depth buffer
    /// (`depth`) or a texture (`u1`, `heap[2]`, a `[[resource]]` name).
    #[arg(long, num_args = 2, value_names = ["NAME", "X,Y"], conflicts_with_all = ["thread", "group", "group_thread", "pixel", "vertex", "element"])]
    pub texel: Option<Vec<String>>,
    /// With --texel: the array slice (default 0).
    #[arg(long, requires = "texel")]
    pub slice: Option<u32>,
    /// With --texel: the mip level (default 0).
    #[arg(long, requires = "texel")]
    pub mip: Option<u32>,
    /// The lane that last wrote element `i` of a buffer or texture: `u0[123]`.
    #[arg(long, value_name = "NAME[I]", conflicts_with_all = ["thread", "group", "group_thread", "pixel", "vertex"])]
    pub element: Option<String>,
    /// Commands to run, separated by `;` (non-interactive).
    #[arg(short = 'c', long = "command", value_name = "CMDS")]
    pub commands: Vec<String>,
    /// A file of commands, one or more a line (`#` comments), run after `-c`.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Write every step of the lane to this file, one JSON object a line.
    #[arg(long, value_name = "FILE.jsonl")]
    pub trace: Option<PathBuf>,
    /// Worker threads (0 = all cores); overrides `[options] threads`.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Lanes per wave; overrides `[options] wave_size`.
    #[arg(long)]
    pub wave_size: Option<u32>,
    /// WARP profile; overrides `[options] profile`.
    #[arg(long)]
    pub profile: Option<String>,
    /// Most MiB the record of the lane's wave may take (default 256).
    #[arg(long, value_name = "MIB")]
    pub max_record_mib: Option<usize>,
    /// Stop each run of the job, and each command, after this many seconds; overrides
    /// `[options] max_seconds`.
    #[arg(long)]
    pub max_seconds: Option<f64>,
}

fn xyz(flag: &str, t: &str) -> Result<[u32; 3], String> {
    debug::session_parse_xyz(t).map_err(|e| format!("--{flag}: {e}"))
}

/// Splits a script into commands: `;` and new lines separate them, `#` starts a comment.
pub fn split_commands(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_once('#').map_or(l, |(a, _)| a))
        .flat_map(|l| l.split(';'))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// Runs `dxlane debug` and returns the exit status.
pub fn run(args: &DebugArgs) -> ExitCode {
    if args.dap || args.dap_port.is_some() {
        return dap(args);
    }
    match open_status(args) {
        Ok(mut d) => session(args, &mut d),
        Err((status, e)) => {
            let job = args.job.as_deref().unwrap_or(std::path::Path::new(""));
            eprintln!("dxlane: {}: {e}", job.display());
            ExitCode::from(status)
        }
    }
}

/// The `launch` request's job and lane as `dxlane debug`'s flags, over the command
/// line's own settings.
fn launch_args(base: &DebugArgs, l: &debug::dap::LaunchArgs) -> DebugArgs {
    DebugArgs {
        job: Some(l.job.clone()),
        thread: l.thread.clone(),
        group: l.group.clone(),
        group_thread: l.group_thread.clone(),
        pixel: l.pixel.clone(),
        sample: l.sample,
        prim: l.prim,
        vertex: l.vertex,
        instance: l.instance,
        gs_primitive: l.gs_primitive,
        gs_instance: l.gs_instance,
        hs_patch: l.hs_patch,
        control_point: l.control_point,
        patch_constant: l.patch_constant.unwrap_or(false),
        join_phase: l.join_phase.unwrap_or(false),
        ds_patch: l.ds_patch,
        ds_point: l.ds_point,
        ms_group: l.ms_group.clone(),
        ms_thread: l.ms_thread.clone(),
        as_group: l.as_group.clone(),
        as_thread: l.as_thread.clone(),
        ray: l.ray.clone(),
        view: l.view,
        event: l.event,
        texel: l
            .texel
            .as_ref()
            .map(|t| vec![t.clone(), l.at.clone().unwrap_or_default()]),
        slice: l.slice,
        mip: l.mip,
        element: l.element.clone(),
        threads: l.threads.or(base.threads),
        wave_size: l.wave_size.or(base.wave_size),
        profile: l.profile.clone().or_else(|| base.profile.clone()),
        max_record_mib: l.max_record_mib.or(base.max_record_mib),
        max_seconds: l.max_seconds.or(base.max_seconds),
        ..base.clone()
    }
}

/// `--dap` / `--dap-port`: one client, then exit (status 1 when the stream broke).
fn dap(args: &DebugArgs) -> ExitCode {
    let launcher = Box::new(|l: &debug::dap::LaunchArgs| {
        let a = launch_args(args, l);
        if (a.group.is_some()) != (a.group_thread.is_some()) {
            return Err("give `group` and `groupThread` together".to_string());
        }
        open(&a)
    });
    let served = match args.dap_port {
        None => {
            let stdin = std::io::stdin();
            debug::dap::serve(&mut stdin.lock(), std::io::stdout().lock(), launcher)
        }
        Some(port) => {
            // Loopback only: the protocol has no authentication.
            let listener = match std::net::TcpListener::bind(("127.0.0.1", port)) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("dxlane: cannot listen on 127.0.0.1:{port}: {e}");
                    return ExitCode::from(2);
                }
            };
            if let Ok(a) = listener.local_addr() {
                eprintln!("dxlane: debug adapter listening on {a}");
            }
            let stream = match listener.accept() {
                Ok((s, _)) => s,
                Err(e) => {
                    eprintln!("dxlane: no client connected: {e}");
                    return ExitCode::from(2);
                }
            };
            let Ok(write) = stream.try_clone() else {
                eprintln!("dxlane: cannot use the connection");
                return ExitCode::from(2);
            };
            debug::dap::serve(&mut std::io::BufReader::new(stream), write, launcher)
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dxlane: debug adapter: {e}");
            ExitCode::from(1)
        }
    }
}

fn open(args: &DebugArgs) -> Result<Debugger, String> {
    open_status(args).map_err(|(_, e)| e)
}

/// The job, prepared with the command line's settings.
fn prepared(args: &DebugArgs) -> Result<crate::job::Prepared, String> {
    let Some(path) = args.job.as_deref() else {
        return Err("give the job file".into());
    };
    let job = Job::load(path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        threads: args.threads,
        wave_size: args.wave_size,
        profile: args.profile.clone(),
        max_seconds: args.max_seconds,
        default_engine: super::default_engine(),
        ..RunOptions::default()
    };
    crate::job::prepare(job, &opts).map_err(|e| e.to_string())
}

/// Opens the session; the error with its exit status (3: nothing wrote the output
/// asked about; 2: anything else).
fn open_status(args: &DebugArgs) -> Result<Debugger, (u8, String)> {
    let mut options = DebugOptions::default();
    if let Some(m) = args.max_record_mib {
        options.max_record_bytes = m.saturating_mul(1 << 20);
    }
    if args.sample.is_some() && args.pixel.is_none() && args.texel.is_none() {
        return Err((2, "--sample goes with --pixel or --texel".into()));
    }
    let output = match (&args.texel, &args.element) {
        (Some(t), _) => {
            let (Some(name), Some(at)) = (t.first(), t.get(1)) else {
                return Err((2, "--texel takes a name and x,y".into()));
            };
            Some(
                debug::provenance::OutputSelect::texel(
                    name,
                    at,
                    args.slice.unwrap_or(0),
                    args.mip.unwrap_or(0),
                    args.sample.unwrap_or(0),
                )
                .map_err(|e| (2, e))?,
            )
        }
        (None, Some(e)) => Some(debug::provenance::OutputSelect::element(e).map_err(|e| (2, e))?),
        (None, None) => None,
    };
    if let Some(sel) = output {
        if let Some(v) = args.view {
            return Err((
                2,
                format!(
                    "--view {v}: --texel and --element find the view whose pass wrote the output themselves"
                ),
            ));
        }
        let p = prepared(args).map_err(|e| (2, e))?;
        return debug::provenance::open(&p, args.event, &sel, options)
            .map(|(d, _)| d)
            .map_err(|e| match e {
                debug::provenance::ProvenanceError::Unwritten(t) => (3, t),
                debug::provenance::ProvenanceError::Refused(t) => (2, t),
            });
    }
    open_lane(args, options).map_err(|e| (2, e))
}

/// The mesh or amplification lane the flags name (`None`: none of them is given); an
/// error naming the flag when they do not fit together (the DAP `launch` request
/// reaches here without the command line's checks).
fn mesh_lane(args: &DebugArgs) -> Result<Option<LaneSelect>, String> {
    let given = args.ms_group.is_some()
        || args.ms_thread.is_some()
        || args.as_group.is_some()
        || args.as_thread.is_some();
    if !given {
        return Ok(None);
    }
    let others = args.thread.is_some()
        || args.group.is_some()
        || args.pixel.is_some()
        || args.vertex.is_some()
        || args.instance.is_some()
        || args.gs_primitive.is_some()
        || args.hs_patch.is_some()
        || args.ds_patch.is_some();
    if others {
        return Err(
            "give one lane: --ms-group/--ms-thread and --as-group/--as-thread do not go with --thread, --group, --pixel, --vertex, --instance, --gs-primitive, --hs-patch or --ds-patch".into(),
        );
    }
    let opt = |flag: &str, v: &Option<String>| v.as_deref().map(|t| xyz(flag, t)).transpose();
    let launch = opt("as-group", &args.as_group)?;
    match (
        opt("ms-group", &args.ms_group)?,
        opt("ms-thread", &args.ms_thread)?,
        opt("as-thread", &args.as_thread)?,
    ) {
        (Some(group), Some(thread), None) => Ok(Some(LaneSelect::Mesh {
            launch,
            group,
            thread,
        })),
        (None, None, Some(thread)) => match launch {
            Some(group) => Ok(Some(LaneSelect::Amplification { group, thread })),
            None => Err("--as-thread goes with --as-group".into()),
        },
        (Some(_), None, _) => Err("--ms-group: give the thread with --ms-thread x,y,z".into()),
        (None, Some(_), _) => Err("--ms-thread goes with --ms-group".into()),
        (Some(_), Some(_), Some(_)) => Err(
            "--as-thread names an amplification lane and --ms-group a mesh lane: give one (--as-group goes with --ms-group to name the launching group)".into(),
        ),
        (None, None, None) => Err(
            "--as-group: give the lane with --as-thread x,y,z, or a mesh lane it launched with --ms-group x,y,z --ms-thread x,y,z".into(),
        ),
    }
}

/// The geometry, hull or domain lane the flags name (`None`: none of them is given);
/// an error naming the flag when they do not fit together (the DAP `launch` request
/// reaches here without the command line's checks).
fn stage_lane(args: &DebugArgs) -> Result<Option<LaneSelect>, String> {
    let instance = args.instance.unwrap_or(0);
    let given = [
        args.gs_primitive.is_some(),
        args.hs_patch.is_some(),
        args.ds_patch.is_some(),
    ];
    let others = args.thread.is_some()
        || args.group.is_some()
        || args.pixel.is_some()
        || args.vertex.is_some();
    match given.iter().filter(|g| **g).count() {
        0 => {
            if args.gs_instance.is_some() {
                return Err("--gs-instance goes with --gs-primitive".into());
            }
            if args.control_point.is_some() || args.patch_constant || args.join_phase {
                return Err(
                    "--control-point, --patch-constant and --join-phase go with --hs-patch".into(),
                );
            }
            if args.ds_point.is_some() {
                return Err("--ds-point goes with --ds-patch".into());
            }
            return Ok(None);
        }
        1 if !others => {}
        _ => {
            return Err(
                "give one lane: --gs-primitive, --hs-patch and --ds-patch do not go with each other or with --thread, --group, --pixel or --vertex".into(),
            );
        }
    }
    if let Some(prim) = args.gs_primitive {
        return Ok(Some(LaneSelect::Geometry {
            prim,
            gs_instance: args.gs_instance.unwrap_or(0),
            instance,
        }));
    }
    if let Some(patch) = args.hs_patch {
        let control_point = match (args.control_point, args.patch_constant || args.join_phase) {
            (Some(k), false) => Some(k),
            (None, true) => None,
            (Some(_), true) => {
                return Err(
                    "--hs-patch: give --control-point k or --patch-constant, not both".into(),
                );
            }
            (None, false) => {
                return Err(
                    "--hs-patch: give the phase: --control-point k (the control-point phase), --patch-constant or --join-phase".into(),
                );
            }
        };
        return Ok(Some(LaneSelect::Hull {
            patch,
            control_point,
            join: args.join_phase,
            instance,
        }));
    }
    if let Some(patch) = args.ds_patch {
        let Some(point) = args.ds_point else {
            return Err("--ds-patch: give the domain point with --ds-point k".into());
        };
        return Ok(Some(LaneSelect::Domain {
            patch,
            point,
            instance,
        }));
    }
    Ok(None)
}

/// The ray-generation lane `--ray` names (`None`: not given); an error naming the flag
/// and its value when it is not `x,y` or `x,y,z`, or goes with another lane selector
/// (the DAP `launch` request reaches here without the command line's checks).
fn ray_lane(args: &DebugArgs) -> Result<Option<LaneSelect>, String> {
    let Some(r) = &args.ray else {
        return Ok(None);
    };
    let others = args.thread.is_some()
        || args.group.is_some()
        || args.group_thread.is_some()
        || args.pixel.is_some()
        || args.vertex.is_some()
        || args.instance.is_some()
        || args.gs_primitive.is_some()
        || args.hs_patch.is_some()
        || args.ds_patch.is_some()
        || args.ms_group.is_some()
        || args.ms_thread.is_some()
        || args.as_group.is_some()
        || args.as_thread.is_some();
    if others {
        return Err(format!(
            "--ray {r}: give one lane: --ray does not go with --thread, --group, --pixel, --vertex, --instance, --gs-primitive, --hs-patch, --ds-patch, --ms-* or --as-*"
        ));
    }
    let v: Vec<&str> = r.split(',').map(str::trim).collect();
    let n: Vec<Option<u32>> = v.iter().map(|a| a.parse::<u32>().ok()).collect();
    match n.as_slice() {
        [Some(x), Some(y)] => Ok(Some(LaneSelect::Ray([*x, *y, 0]))),
        [Some(x), Some(y), Some(z)] => Ok(Some(LaneSelect::Ray([*x, *y, *z]))),
        _ => Err(format!(
            "--ray: `{r}` is not x,y or x,y,z (two or three whole numbers: the launch index)"
        )),
    }
}

fn open_lane(args: &DebugArgs, options: DebugOptions) -> Result<Debugger, String> {
    let staged = match ray_lane(args)? {
        Some(l) => Some(l),
        None => match mesh_lane(args)? {
            Some(l) => Some(l),
            None => stage_lane(args)?,
        },
    };
    if args.instance.is_some() && args.vertex.is_none() && staged.is_none() {
        return Err(
            "--instance goes with --vertex, --gs-primitive, --hs-patch or --ds-patch".into(),
        );
    }
    let lane = match (&args.thread, &args.group, &args.group_thread) {
        _ if let Some(l) = staged => l,
        (Some(t), _, _) => LaneSelect::Thread(xyz("thread", t)?),
        (None, Some(g), Some(t)) => LaneSelect::GroupThread {
            group: xyz("group", g)?,
            thread: xyz("group-thread", t)?,
        },
        _ => match (&args.pixel, args.vertex) {
            (Some(p), _) => {
                let v: Vec<&str> = p.split(',').map(str::trim).collect();
                let (Some(x), Some(y), 2) = (
                    v.first().and_then(|a| a.parse::<u32>().ok()),
                    v.get(1).and_then(|a| a.parse::<u32>().ok()),
                    v.len(),
                ) else {
                    return Err(format!("--pixel: `{p}` is not x,y (two whole numbers)"));
                };
                LaneSelect::Pixel {
                    x,
                    y,
                    sample: args.sample.unwrap_or(0),
                    prim: args.prim.unwrap_or(0),
                }
            }
            (None, Some(n)) => LaneSelect::Vertex {
                vertex: n,
                instance: args.instance.unwrap_or(0),
            },
            (None, None) => {
                return Err(
                    "give the lane: --thread x,y,z, or --group x,y,z --group-thread x,y,z (compute); --pixel x,y, --vertex n, --gs-primitive n, --hs-patch p (--control-point k | --patch-constant) or --ds-patch p --ds-point k (draw); --ms-group x,y,z --ms-thread x,y,z or --as-group x,y,z --as-thread x,y,z (mesh draw); --ray x,y[,z] (ray tracing); or the output it wrote: --texel NAME x,y, --element NAME[i]".into(),
                );
            }
        },
    };
    let prepared = prepared(args)?;
    let mut target = debug::from_job_event(&prepared, args.event).map_err(|e| e.to_string())?;
    if let Some(v) = args.view {
        if matches!(
            lane,
            LaneSelect::Thread(_) | LaneSelect::GroupThread { .. } | LaneSelect::Ray(_)
        ) {
            return Err(format!(
                "--view {v}: only a draw's lanes have a view; --thread, --group and --ray do not take one"
            ));
        }
        target = target.with_view(v).map_err(|e| e.to_string())?;
    }
    // A ray lane of a list's event: the refusals name the event and its command.
    if let (LaneSelect::Ray(_), Some(n), crate::pipeline::Work::List(commands)) =
        (lane, args.event, &prepared.work)
    {
        let name = n
            .checked_sub(1)
            .and_then(|i| commands.get(i))
            .map_or("command", |c| c.name());
        if target.ray_programs().is_none() {
            return Err(format!(
                "--ray: --event {n} is a {name}, not a dispatch_rays: --ray selects a ray-generation lane of a dispatch_rays event (a {name} has {})",
                if target.is_draw() {
                    "pixels and vertices: --pixel x,y, --vertex n"
                } else {
                    "threads: --thread x,y,z"
                }
            ));
        }
        return Debugger::open(target, lane, options)
            .map_err(|e| format!("--event {n} ({name}): {e}"));
    }
    Debugger::open(target, lane, options).map_err(|e| e.to_string())
}

fn session(args: &DebugArgs, d: &mut Debugger) -> ExitCode {
    for n in d.notes() {
        println!("{n}");
    }
    println!("{}", d.where_text());
    if let Some(path) = &args.trace {
        // Through the output gate: the file is replaced, never written through a link.
        let written = OutputGate::user_file(path, "--trace").and_then(|(gate, placed)| {
            let mut steps = 0;
            gate.write_with(&placed, &mut |w| {
                steps = d
                    .write_trace(w)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                Ok(())
            })
            .map_err(|e| format!("cannot write {e}"))?;
            Ok(steps)
        });
        match written {
            Ok(n) => println!("trace: {n} steps written to {}", path.display()),
            Err(e) => {
                eprintln!("dxlane: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut script: Vec<String> = args
        .commands
        .iter()
        .flat_map(|c| split_commands(c))
        .collect();
    if let Some(p) = &args.script {
        // Through the read gate: a regular file (never a pipe or a device, which could
        // block or never end), read no further than the limit.
        let text =
            read_input(p, debug::MAX_SCRIPT_BYTES, "the largest debugger script").and_then(|b| {
                String::from_utf8(b).map_err(|_| format!("{}: not UTF-8 text", p.display()))
            });
        match text {
            Ok(t) => script.extend(split_commands(&t)),
            Err(e) => {
                eprintln!("dxlane: cannot read the script: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if !script.is_empty() || args.trace.is_some() {
        for c in &script {
            println!("(dxlane) {c}");
            if matches!(c.as_str(), "quit" | "q" | "exit") {
                break;
            }
            match d.execute(c) {
                Ok(out) => {
                    if !out.is_empty() {
                        println!("{out}");
                    }
                }
                Err(e) => {
                    println!("error: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    interactive(d)
}

fn interactive(d: &mut Debugger) -> ExitCode {
    let mut rl = match rustyline::DefaultEditor::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("dxlane: no prompt ({e}); give commands with -c or --script");
            return ExitCode::from(2);
        }
    };
    let mut last = String::new();
    loop {
        match rl.readline("(dxlane) ") {
            Ok(line) => {
                let line = line.trim().to_string();
                // An empty line repeats the last command, as gdb does.
                let cmd = if line.is_empty() { last.clone() } else { line };
                if cmd.is_empty() {
                    continue;
                }
                let _ = rl.add_history_entry(cmd.as_str());
                if matches!(cmd.as_str(), "quit" | "q" | "exit") {
                    break;
                }
                for c in split_commands(&cmd) {
                    match d.execute(&c) {
                        Ok(out) if !out.is_empty() => println!("{out}"),
                        Ok(_) => {}
                        Err(e) => println!("error: {e}"),
                    }
                }
                last = cmd;
            }
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(_) => break,
        }
    }
    ExitCode::SUCCESS
}
