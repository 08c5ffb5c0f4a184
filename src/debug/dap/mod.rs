//! A Debug Adapter Protocol server over one [`Debugger`] session, so that an editor can
//! drive the lane debugger (`dxlane debug --dap`, `--dap-port PORT`).
//!
//! Owns: the protocol's requests, responses and events as this server speaks them
//! (`wire` frames and reads them), the mapping of the protocol's notions onto the
//! session's, and hit-count breakpoints. Does not own: opening a job (the caller gives a
//! [`Launcher`], which the CLI builds from the same lane flags it takes), stepping,
//! breakpoints, inspection (the session), or the transport (any reader and writer: the
//! CLI passes stdin/stdout or one TCP connection).
//!
//! # The protocol's notions in the session's terms
//!
//! - **threads** are the lanes of the observed wave (a pixel lane's wave includes its
//!   quad's helper lanes); thread id = lane + 1. A step request for another thread
//!   switches the session to that lane (`lane N`); inspecting another thread (its stack,
//!   scopes, variables) does not move the session.
//! - **one stack frame**, the program, whose source is the listing (`dxlane disasm`'s
//!   lines) served through `source` as `sourceReference` 1: breakpoints and steps work by
//!   listing line without debug info. With HLSL debug info (`debug::hlsl`), one frame per
//!   HLSL function of the next step (inlined functions included), whose sources are the
//!   files the program names, served from `dx.source.contents` as `sourceReference`
//!   2, 3, …; a "Locals" scope lists each frame's HLSL variables, and steps and
//!   breakpoints go by HLSL line (`granularity: "instruction"` steps instructions).
//! - **scopes**: registers or SSA values the lane has written, inputs, outputs (vertex
//!   and pixel lanes), constant buffers, group shared memory ([`Scope`]).
//! - **stepping**: `next` = `next`, `stepIn` = `step`, `stepOut` = `finish`,
//!   `stepBack` = `back`, `continue` and `reverseContinue` run to the nearest breakpoint
//!   whose hit condition holds. Reaching the lane's end stops there (reason `step`,
//!   description "the lane has finished"), so the client can still step back.
//! - **breakpoints**: by listing line with a condition (`break LINE if COND`) and a hit
//!   condition; **data breakpoints** on a register, value, UAV or group shared element
//!   (`watch`). A hit count is the number of times the lane reached the breakpoint
//!   counted from its first step, so it is the same going forward or backward.
//!   Hit conditions: `N` or `== N` (the N-th hit), `> N`, `>= N`, `< N`, `<= N`, `% N`
//!   (every N-th).
//! - **evaluate**: what `print` accepts; in the REPL, any text command (`why r1.x`,
//!   `wave r0`, `step 3`, …) — one that moves the lane sends a `stopped` event.
//!
//! Every malformed, unknown or out-of-order request gets an error response; a message
//! the framing cannot read (a bad header, a body over [`wire::MAX_MESSAGE_BYTES`]) gets
//! one too and ends the session, since the stream cannot be resynchronised.

pub mod wire;

mod server;

pub use server::{HitCondition, LaunchArgs, Launcher, Server, serve};

use super::{Debugger, HlslMember, Scope};
