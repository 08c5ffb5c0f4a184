//! The native engine's only `unsafe` code: making executable memory and entering it.
//!
//! [`Compiler`] collects segment functions (or a region function) into one Cranelift JIT
//! module; [`Code`] owns the module's memory until the compiled shader is dropped;
//! [`enter`] calls a segment's function on a wave's registers, [`enter_region`] a
//! region's on a wave's registers and scheduling state.
//!
//! Why entering is sound: a segment's function reads and writes only
//! `regs[r × W .. r × W + W]` for registers `r` its instructions name, and reads only
//! `sel[0 .. W]`, with `W` the width it was compiled for. `ir::validate` (run by
//! `exec::Program` and `exec::StageProgram` before any wave exists) guarantees every
//! register operand is below the shader's `num_regs`; [`enter`] checks the width and that
//! the register array holds `num_regs` registers before calling. The functions take no
//! other pointers, call only the `extern "C"` rules in `shim` (safe Rust, total, no
//! unwinding), and return normally. A region function (`region`) also reads and writes
//! words `0 .. W` of the wave's `next` array, mask words and live-mask words, the `W`
//! idle counters, `W` words for a branch's condition, and the fields of one `#[repr(C)]`
//! state; it jumps on block numbers only
//! through a bounds-checked jump table; [`enter_region`] checks the width and register
//! count the same way, and the arrays' types fix their lengths at `W`.
//!
//! Code compiled for a flushing shader may ask to run with the processor treating
//! denormal operands as zero (MXCSR's DAZ bit, see `emit`'s module doc): [`enter`] and
//! [`enter_region`] set the bit for the call and put the caller's MXCSR back after it,
//! in one function that does nothing else, so no Rust float operation runs in between.

#![allow(unsafe_code)]

use cranelift_codegen::ir::{AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Module};

use crate::ir::{Inst, Shader};

use super::Key;

/// Which signature a compiled function has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `fn(regs, sel)`: a segment.
    Segment,
    /// `fn(regs, sel, next, live, idle, state) -> u32`: a region (`region`).
    Region,
}

/// A compiled function's entry point and what it was compiled for.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    addr: usize,
    width: u32,
    num_regs: u32,
    kind: Kind,
    /// Runs with denormal operands read as zero.
    daz: bool,
}

/// Segment functions being compiled into one module.
pub struct Compiler {
    module: JITModule,
    ctx: cranelift_codegen::Context,
    fctx: FunctionBuilderContext,
    funcs: Vec<(FuncId, Key, u32, Kind, bool)>,
}

impl Compiler {
    /// A compiler for the host.
    pub fn new() -> Result<Compiler, String> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| format!("cranelift setting {k}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        // Cranelift's IR verifier checks every function before compiling it: about a
        // third of the Mandelbrot's compile time (11 against 7.5 ms). Builds with debug
        // assertions, which is what `cargo test` runs, keep it, so every program the
        // tests compile (the random-program equivalence test's included) is verified;
        // a failure there is an error, and the shader falls back to the interpreter.
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        set(&mut flags, "enable_verifier", verify)?;
        // Generated code is entered only through `enter`, never from a debugger's unwinder.
        set(&mut flags, "unwind_info", "false")?;
        set(&mut flags, "is_pic", "false")?;
        let isa = cranelift_native::builder()
            .map_err(|e| format!("host not supported by cranelift: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("cranelift: {e}"))?;
        let builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        let module = JITModule::new(builder);
        let ctx = module.make_context();
        Ok(Compiler {
            module,
            ctx,
            fctx: FunctionBuilderContext::new(),
            funcs: Vec::new(),
        })
    }

    /// Adds the segment `insts` of `shader`; returns its index among the entries
    /// [`finish`](Self::finish) gives.
    pub fn add(
        &mut self,
        shader: &Shader,
        insts: &[Inst],
        key: Key,
        facts: super::emit::Facts<'_>,
    ) -> Result<usize, String> {
        let ptr = self.module.target_config().pointer_type();
        let call_conv = self.module.target_config().default_call_conv;
        self.module.clear_context(&mut self.ctx);
        self.ctx.func.signature.params.push(AbiParam::new(ptr));
        self.ctx.func.signature.params.push(AbiParam::new(ptr));
        let frontend = self.module.isa().frontend_config();
        let n = self.funcs.len();
        self.ctx.func.name = UserFuncName::user(0, n as u32);
        let daz = super::emit::daz(key, insts);
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            super::emit::segment(&mut b, ptr, call_conv, shader, insts, key, daz, facts)?;
            b.finalize(frontend);
        }
        let id = self
            .module
            .declare_anonymous_function(&self.ctx.func.signature)
            .map_err(|e| e.to_string())?;
        self.module
            .define_function(id, &mut self.ctx)
            .map_err(|e| format!("{e:?}"))?;
        self.funcs
            .push((id, key, shader.num_regs, Kind::Segment, daz));
        Ok(n)
    }

    /// Adds the region function of `shader` over the blocks `native` marks; returns its
    /// index among the entries [`finish`](Self::finish) gives.
    #[allow(clippy::too_many_arguments)]
    pub fn add_region(
        &mut self,
        shader: &Shader,
        native: &[bool],
        key: Key,
        flushed: &[Vec<bool>],
        local: &[Vec<bool>],
        dead: &[Vec<bool>],
        lazy: &[Vec<bool>],
    ) -> Result<usize, String> {
        let ptr = self.module.target_config().pointer_type();
        let call_conv = self.module.target_config().default_call_conv;
        self.module.clear_context(&mut self.ctx);
        for _ in 0..7 {
            self.ctx.func.signature.params.push(AbiParam::new(ptr));
        }
        self.ctx
            .func
            .signature
            .returns
            .push(AbiParam::new(cranelift_codegen::ir::types::I32));
        let frontend = self.module.isa().frontend_config();
        let n = self.funcs.len();
        self.ctx.func.name = UserFuncName::user(0, n as u32);
        let daz = super::emit::daz(key, &super::region::instructions(shader, native));
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            super::region::region(
                &mut b, ptr, call_conv, shader, native, key, daz, flushed, local, dead, lazy,
            )?;
            b.finalize(frontend);
        }
        let id = self
            .module
            .declare_anonymous_function(&self.ctx.func.signature)
            .map_err(|e| e.to_string())?;
        self.module
            .define_function(id, &mut self.ctx)
            .map_err(|e| format!("{e:?}"))?;
        self.funcs
            .push((id, key, shader.num_regs, Kind::Region, daz));
        Ok(n)
    }

    /// Makes the code executable.
    pub fn finish(mut self) -> Result<(Code, Vec<Entry>), String> {
        self.module
            .finalize_definitions()
            .map_err(|e| e.to_string())?;
        let entries = self
            .funcs
            .iter()
            .map(|&(id, key, num_regs, kind, daz)| Entry {
                addr: self.module.get_finalized_function(id) as usize,
                width: key.width,
                num_regs,
                kind,
                daz,
            })
            .collect();
        Ok((
            Code {
                module: Some(Owned(self.module)),
            },
            entries,
        ))
    }
}

/// A JIT module kept only to own its executable memory.
struct Owned(JITModule);

// SAFETY: after `finalize_definitions` the module is never used again except to free its
// memory in `Code::drop`, which takes it by value; no `&JITModule` is handed out, so the
// `RefCell` inside is never touched from two threads.
unsafe impl Send for Owned {}
// SAFETY: as above: no shared reference to the module is ever used.
unsafe impl Sync for Owned {}

/// The executable memory of a compiled shader; freed when dropped.
pub struct Code {
    module: Option<Owned>,
}

impl Code {
    /// No code (nothing compiled).
    pub fn empty() -> Code {
        Code { module: None }
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(Owned(m)) = self.module.take() {
            // SAFETY: every `Entry` into this memory lives in the same `JitShader` as this
            // `Code` and is only called through `&JitShader`, so no call can be running or
            // start once the shader is being dropped.
            unsafe { m.free_memory() };
        }
    }
}

/// Runs the segment `e` on a `W`-wide wave's registers for the lanes `sel` selects.
/// Returns `false`, running nothing, when the registers are not the shape it was compiled
/// for.
#[inline(always)]
pub fn enter<const W: usize>(e: Entry, regs: &mut [[u32; W]], sel: &[u32; W]) -> bool {
    if e.kind != Kind::Segment || e.width as usize != W || regs.len() < e.num_regs as usize {
        return false;
    }
    // SAFETY: `e.addr` is a function `Compiler::finish` made executable with the signature
    // `extern "C" fn(*mut u32, *const u32)` (the ISA's default calling convention, which
    // is C's), alive while its `Code` is. The widths match and `regs` holds at least
    // `num_regs` registers of `W` words, every register the function names is below
    // `num_regs` (`ir::validate`), and `sel` holds `W` words; see the module doc.
    let f =
        unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut u32, *const u32)>(e.addr) };
    let (r, s) = (regs.as_mut_ptr().cast::<u32>(), sel.as_ptr());
    // SAFETY: as above; `r` and `s` point at `regs` and `sel`, borrowed for the call.
    let call = || unsafe { f(r, s) };
    if e.daz {
        with_daz(call);
    } else {
        call();
    }
    true
}

/// Runs the region `e` on a `W`-wide wave: its registers, mask words, `next`, live mask
/// words, idle counts and scalar state (see `region`). Returns the region's code
/// (`region::STOPPED` or `region::FINISHED`), or `None`, running nothing, when the
/// arrays are not the shape it was compiled for.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn enter_region<const W: usize>(
    e: Entry,
    regs: &mut [[u32; W]],
    sel: &mut [u32; W],
    next: &mut [u32; W],
    live: &mut [u32; W],
    idle: &mut [u64; W],
    state: &mut super::region::State,
    cond: &mut [u32; W],
) -> Option<u32> {
    if e.kind != Kind::Region || e.width as usize != W || regs.len() < e.num_regs as usize {
        return None;
    }
    type Region = unsafe extern "C" fn(
        *mut u32,
        *mut u32,
        *mut u32,
        *mut u32,
        *mut u64,
        *mut super::region::State,
        *mut u32,
    ) -> u32;
    // SAFETY: `e.addr` is a function `Compiler::finish` made executable with the `Region`
    // signature (the ISA's default calling convention, C's), alive while its `Code` is.
    // The widths match; the function touches only: `regs[0 .. num_regs × W]` (register
    // operands and branch conditions are below `num_regs`, `ir::validate`, and `regs`
    // holds at least `num_regs` registers of `W` words); words `0 .. W` of `sel`, `next`
    // and `live`; the `W` counters of `idle`; the `#[repr(C)]` `state` at the fields'
    // offsets; and words `0 .. W` of `cond`. The five arrays and `state` are distinct
    // objects borrowed mutably here,
    // so nothing else reads or writes them during the call. Block numbers it jumps on
    // go through a bounds-checked jump table.
    let f = unsafe { std::mem::transmute::<usize, Region>(e.addr) };
    let (r, s, n, l, i) = (
        regs.as_mut_ptr().cast::<u32>(),
        sel.as_mut_ptr(),
        next.as_mut_ptr(),
        live.as_mut_ptr(),
        idle.as_mut_ptr(),
    );
    let state: *mut super::region::State = state;
    let c = cond.as_mut_ptr();
    // SAFETY: as above; the pointers are those of the arrays and `state`, borrowed for
    // the call.
    let call = || unsafe { f(r, s, n, l, i, state, c) };
    Some(if e.daz { with_daz(call) } else { call() })
}

/// MXCSR's "denormals are zero" bit: SSE and AVX float instructions read a denormal
/// operand as a zero of its sign.
#[cfg(target_arch = "x86_64")]
const DAZ: u32 = 1 << 6;
/// MXCSR's "flush to zero" bit, never set here: x86 judges a result tiny by rounding it
/// to 24 bits as if the exponent had no lower bound, so it flushes some results that
/// round to the smallest normal number, which `float::flush` (applied to the rounded
/// result) keeps.
#[cfg(target_arch = "x86_64")]
const FTZ: u32 = 1 << 15;

/// Whether the host has SSE4.1's `blendvps`, which masked stores are made of (Cranelift
/// lowers `blendv` only with it).
pub fn blendv_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this host has MXCSR's DAZ bit. Every processor with SSE3 has it (a few
/// earlier ones with SSE2 only do not, and setting it there would fault).
pub fn daz_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse3")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs `f` (a call into generated code, nothing else) with MXCSR's DAZ bit set and FTZ
/// clear, then restores the caller's MXCSR. Not inlined, so that the compiler cannot
/// move a float operation of the caller into the span where the bit is set.
#[inline(never)]
fn with_daz<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        let mut old: u32 = 0;
        // SAFETY: `stmxcsr` stores the 4-byte MXCSR at the address of `old`, a live local.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut old, options(nostack, preserves_flags));
        }
        let set = (old | DAZ) & !FTZ;
        // SAFETY: `ldmxcsr` loads MXCSR from `set`, a live local; `daz_supported` (checked
        // when the code was compiled to ask for this) means the DAZ bit is writable, and
        // every other bit is the caller's own.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &set, options(nostack, preserves_flags, readonly));
        }
        let r = f();
        // SAFETY: as above, loading the caller's own MXCSR back.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &old, options(nostack, preserves_flags, readonly));
        }
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        f()
    }
}
