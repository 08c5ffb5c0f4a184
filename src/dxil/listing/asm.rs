//! The LLVM 3.7 textual IR of a module, as DirectXShaderCompiler's LLVM
//! (`lib/IR/AsmWriter.cpp`) prints it: the module header, named structure types in
//! `TypeFinder` order, globals, functions (attribute comments, arguments, blocks with
//! `; preds =` comments, instructions), attribute groups, named metadata and numbered
//! metadata nodes.
//!
//! Owns: slot numbering (unnamed values, blocks, metadata nodes, attribute groups) and
//! the text of every instruction. Does not own: constants' text (see
//! [`super::constants`]) or dxc's comments after `dx.op` calls (see [`super::opsig`]),
//! which this module calls through [`AsmWriter::dxc_comments`].
//!
//! Each rule names the LLVM 3.7 function it follows. Where this writer knowingly
//! differs from dxc's LLVM, the function doc says so.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::constants::{
    ConstView, binary_flags, fast_math_text, push_escaped, push_llvm_name, struct_body,
    type_is_fp_or_fp_vector, type_name,
};
use crate::dxil::llvm::{
    Attribute, BlockId, Constant, DebugLoc, Function, FunctionBody, InstKind, Instruction, MdId,
    Metadata, Module, Operand, Type, TypeId, Value, ValueId, ValueKind,
};

/// The function-index slot of an attribute group.
const FUNCTION_SLOT: u32 = u32::MAX;

/// The column LLVM pads a block label's `; preds =` comment to
/// (`printBasicBlock`: `Out.PadToColumn(50)`).
const PREDS_COLUMN: usize = 50;

/// A metadata node the slot tracker numbers: a module-level node, or a source location
/// made into a `DILocation` node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum MdNode {
    Module(MdId),
    Location(DebugLoc),
}

/// One attribute as LLVM 3.7 keeps it in an attribute set (sorted; see
/// [`sort_key`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Attr(Attribute);

/// Where a function instruction is printed: `(function index, instruction index, line)`.
pub type InstLine = (u32, u32, u32);

/// Writes a module as LLVM 3.7's `Module::print` does.
pub struct AsmWriter<'m> {
    m: &'m Module,
    out: String,
    /// Print dxc's `; OpName(params)` comments after `dx.op` calls
    /// (`DxcAssemblyAnnotationWriter`).
    pub dxc_comments: bool,
    global_slots: HashMap<ValueId, u32>,
    md_slots: HashMap<MdNode, u32>,
    md_order: Vec<MdNode>,
    attr_sets: Vec<Vec<Attr>>,
    kind_names: HashMap<u32, &'m str>,
    /// The function being printed.
    cur_fn: u32,
    /// `(function, instruction, byte offset in the text)` of every instruction printed.
    inst_offsets: Vec<(u32, u32, usize)>,
}

/// Per-function state: local slot numbers and the block of each instruction.
struct FnCtx<'m> {
    body: &'m FunctionBody,
    slots: HashMap<ValueId, u32>,
    block_slots: Vec<Option<u32>>,
}

impl<'m> AsmWriter<'m> {
    /// A writer for `m`.
    pub fn new(m: &'m Module) -> Self {
        AsmWriter {
            m,
            out: String::new(),
            dxc_comments: false,
            global_slots: HashMap::new(),
            md_slots: HashMap::new(),
            md_order: Vec::new(),
            attr_sets: Vec::new(),
            kind_names: m
                .metadata_kinds
                .iter()
                .map(|k| (k.id, k.name.as_str()))
                .collect(),
            cur_fn: 0,
            inst_offsets: Vec::new(),
        }
    }

    /// [`AsmWriter::print_module`], with the line (0-based, in the text returned) of every
    /// function instruction: `(function index, instruction index, line)`.
    pub fn print_module_with_lines(mut self) -> (String, Vec<InstLine>) {
        self.inst_offsets.clear();
        let mut offsets = Vec::new();
        // `print_module` consumes the writer; collect the offsets through a second field.
        let text = {
            let w = &mut self;
            w.number_module_and_print()
        };
        std::mem::swap(&mut offsets, &mut self.inst_offsets);
        let mut lines = Vec::with_capacity(offsets.len());
        let mut line = 0u32;
        let mut pos = 0usize;
        let bytes = text.as_bytes();
        for (f, i, off) in offsets {
            let end = off.min(bytes.len());
            if end > pos {
                line += bytes
                    .get(pos..end)
                    .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() as u32);
                pos = end;
            }
            lines.push((f, i, line));
        }
        (text, lines)
    }

    /// Values' names as the module text spells them (`%42`, `%name`) in one function body.
    pub fn value_names(m: &'m Module, body: &'m FunctionBody) -> HashMap<ValueId, String> {
        let w = AsmWriter::new(m);
        let ctx = w.function_context(body);
        let mut out = HashMap::new();
        for v in body
            .args
            .iter()
            .copied()
            .chain(body.instructions.iter().filter_map(|i| i.result))
        {
            let name = match m.value(Some(body), v).and_then(|x| x.name.as_ref()) {
                Some(n) => {
                    let mut s = String::new();
                    push_llvm_name(&mut s, "%", n);
                    s
                }
                None => match ctx.slots.get(&v) {
                    Some(n) => format!("%{n}"),
                    None => continue,
                },
            };
            out.insert(v, name);
        }
        out
    }

    /// The whole module (`Module::print` → `AssemblyWriter::printModule`), without a
    /// `; ModuleID` line (dxc loads the module from a buffer with an empty name).
    pub fn print_module(mut self) -> String {
        self.number_module_and_print()
    }

    fn number_module_and_print(&mut self) -> String {
        self.number_module();
        let m = self.m;
        if let Some(dl) = m.datalayout.as_deref().filter(|s| !s.is_empty()) {
            let _ = writeln!(self.out, "target datalayout = \"{dl}\"");
        }
        if let Some(t) = m.triple.as_deref().filter(|s| !s.is_empty()) {
            let _ = writeln!(self.out, "target triple = \"{t}\"");
        }
        if let Some(asm) = m.asm.as_deref().filter(|s| !s.is_empty()) {
            self.out.push('\n');
            let mut rest = asm;
            loop {
                let (front, tail) = rest.split_once('\n').unwrap_or((rest, ""));
                self.out.push_str("module asm \"");
                push_escaped(&mut self.out, front.as_bytes());
                self.out.push_str("\"\n");
                if tail.is_empty() {
                    break;
                }
                rest = tail;
            }
        }
        self.print_type_identities();
        if !m.globals.is_empty() {
            self.out.push('\n');
        }
        for g in &m.globals {
            self.print_global(g);
            self.out.push('\n');
        }
        if !m.aliases.is_empty() {
            self.out.push('\n');
        }
        for a in &m.aliases {
            // Aliases never occur in DXIL; print the name and the stored record.
            push_llvm_name(&mut self.out, "@", &a.name);
            let _ = writeln!(self.out, " = alias <record {:?}>", a.record);
        }
        for (i, f) in m.functions.iter().enumerate() {
            self.cur_fn = i as u32;
            self.print_function(i, f);
        }
        if !self.attr_sets.is_empty() {
            self.out.push('\n');
            for (i, set) in self.attr_sets.iter().enumerate() {
                let text: Vec<String> = set.iter().map(|a| attr_text(&a.0, true)).collect();
                let _ = writeln!(self.out, "attributes #{i} = {{ {} }}", text.join(" "));
            }
        }
        if !m.named_metadata.is_empty() {
            self.out.push('\n');
        }
        for n in &m.named_metadata {
            self.out.push('!');
            push_metadata_identifier(&mut self.out, &n.name);
            self.out.push_str(" = !{");
            for (i, op) in n.ops.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                match self.md_slots.get(&MdNode::Module(*op)) {
                    Some(s) => {
                        let _ = write!(self.out, "!{s}");
                    }
                    None => self.out.push_str("<badref>"),
                }
            }
            self.out.push_str("}\n");
        }
        if !self.md_order.is_empty() {
            self.out.push('\n');
            let order = self.md_order.clone();
            for (slot, node) in order.iter().enumerate() {
                let _ = write!(self.out, "!{slot} = ");
                let mut s = String::new();
                self.write_md_node_body(&mut s, *node, None);
                self.out.push_str(&s);
                self.out.push('\n');
            }
        }
        std::mem::take(&mut self.out)
    }

    // ---------------------------------------------------------------------------------
    // Numbering (SlotTracker)
    // ---------------------------------------------------------------------------------

    /// Numbers everything LLVM 3.7's `SlotTracker` numbers for a module print:
    /// unnamed globals (`processModule`), metadata nodes reachable from named metadata
    /// (pre-order: a node, then the nodes among its operands), function attribute
    /// sets, then per function in order the metadata its instructions attach and the
    /// attribute sets of its calls (`processFunction`, done by LLVM as each function is
    /// printed, so a function's nodes follow all named-metadata nodes and the previous
    /// functions' nodes).
    fn number_module(&mut self) {
        let m = self.m;
        let mut next = 0u32;
        for g in &m.globals {
            if g.name.is_empty() {
                self.global_slots.insert(g.value, next);
                next += 1;
            }
        }
        for a in &m.aliases {
            if a.name.is_empty() {
                self.global_slots.insert(a.value, next);
                next += 1;
            }
        }
        for n in &m.named_metadata {
            for op in &n.ops {
                self.create_md_slot(MdNode::Module(*op), None);
            }
        }
        for f in &m.functions {
            if f.name.is_empty() {
                self.global_slots.insert(f.value, next);
                next += 1;
            }
            let fn_attrs = self.fn_attrs(f.attributes);
            if !fn_attrs.is_empty() {
                self.attr_set_slot(fn_attrs);
            }
        }
        for f in &m.functions {
            let Some(body) = &f.body else { continue };
            for inst in &body.instructions {
                if let InstKind::Call {
                    callee,
                    args,
                    attributes,
                    ..
                } = &inst.kind
                {
                    if self
                        .callee_name(*callee)
                        .is_some_and(|n| n.starts_with("llvm."))
                    {
                        for a in args {
                            if let Operand::Metadata(md) = a
                                && self.is_md_node(*md, Some(body))
                            {
                                self.create_md_slot(MdNode::Module(*md), Some(body));
                            }
                        }
                    }
                    let _ = attributes;
                }
                for node in self.inst_md(inst) {
                    self.create_md_slot(node.1, Some(body));
                }
            }
            for inst in &body.instructions {
                if let InstKind::Call { attributes, .. } = &inst.kind {
                    let set = self.fn_attrs(*attributes);
                    if !set.is_empty() {
                        self.attr_set_slot(set);
                    }
                }
            }
        }
    }

    fn callee_name(&self, callee: ValueId) -> Option<&'m str> {
        self.m.function_of_value(callee).map(|f| f.name.as_str())
    }

    fn is_md_node(&self, md: MdId, body: Option<&FunctionBody>) -> bool {
        matches!(
            self.m.md(body, md),
            Some(Metadata::Node { .. } | Metadata::Location { .. } | Metadata::Debug { .. })
        )
    }

    /// `SlotTracker::CreateMetadataSlot`: number a node, then the nodes among its
    /// operands, depth first.
    fn create_md_slot(&mut self, node: MdNode, body: Option<&FunctionBody>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if self.md_slots.contains_key(&n) {
                continue;
            }
            self.md_slots.insert(n, self.md_order.len() as u32);
            self.md_order.push(n);
            let children = self.md_children(n, body);
            for c in children.into_iter().rev() {
                if !self.md_slots.contains_key(&c) {
                    stack.push(c);
                }
            }
        }
    }

    /// The node operands of a node, in operand order.
    fn md_children(&self, n: MdNode, body: Option<&FunctionBody>) -> Vec<MdNode> {
        match n {
            MdNode::Module(id) => match self.m.md(body, id) {
                Some(Metadata::Node { ops, .. }) => ops
                    .iter()
                    .flatten()
                    .filter(|o| self.is_md_node(**o, body))
                    .map(|o| MdNode::Module(*o))
                    .collect(),
                Some(Metadata::Location {
                    scope, inlined_at, ..
                }) => std::iter::once(*scope)
                    .chain(*inlined_at)
                    .filter(|o| self.is_md_node(*o, body))
                    .map(MdNode::Module)
                    .collect(),
                _ => Vec::new(),
            },
            MdNode::Location(loc) => loc
                .scope
                .into_iter()
                .chain(loc.inlined_at)
                .filter(|o| self.is_md_node(*o, body))
                .map(MdNode::Module)
                .collect(),
        }
    }

    /// An instruction's metadata as `Instruction::getAllMetadata` lists it: the debug
    /// location first, then the attachments sorted by kind id.
    fn inst_md(&self, inst: &Instruction) -> Vec<(u32, MdNode)> {
        let mut v = Vec::new();
        if let Some(loc) = inst.debug_loc {
            v.push((0, MdNode::Location(loc)));
        }
        let mut rest: Vec<(u32, MdNode)> = inst
            .attachments
            .iter()
            .map(|(k, md)| (*k, MdNode::Module(*md)))
            .collect();
        rest.sort_by_key(|(k, _)| *k);
        v.extend(rest);
        v
    }

    /// The function-index attributes of a 1-based attribute list, sorted as LLVM's
    /// `AttributeSetNode` sorts them.
    fn fn_attrs(&self, list: u32) -> Vec<Attr> {
        self.slot_attrs(list, FUNCTION_SLOT)
    }

    fn slot_attrs(&self, list: u32, slot: u32) -> Vec<Attr> {
        let mut v: Vec<Attr> = self
            .m
            .attribute_list_groups(list)
            .filter(|g| g.slot == slot)
            .flat_map(|g| g.attrs.iter().cloned().map(Attr))
            .collect();
        v.sort_by_key(|a| sort_key(&a.0));
        v.dedup();
        v
    }

    fn attr_set_slot(&mut self, set: Vec<Attr>) -> usize {
        if let Some(i) = self.attr_sets.iter().position(|s| *s == set) {
            return i;
        }
        self.attr_sets.push(set);
        self.attr_sets.len() - 1
    }

    // ---------------------------------------------------------------------------------
    // Types (TypeFinder, printTypeIdentities)
    // ---------------------------------------------------------------------------------

    /// `printTypeIdentities`: every named structure the module uses, in the order
    /// LLVM 3.7's `TypeFinder::run` meets them (globals' types and initializers,
    /// functions' types, each instruction's type, constant operands and attached
    /// metadata, then named metadata), as `%name = type { … }`.
    ///
    /// Differs from dxc's LLVM in one case: a structure created without a name
    /// (numbered, `%0 = type …`) cannot be told from a literal structure in the
    /// decoded module and is printed as a literal; dxc never emits one.
    fn print_type_identities(&mut self) {
        let structs = self.find_struct_types();
        if structs.is_empty() {
            return;
        }
        self.out.push('\n');
        for t in structs {
            if let Some(Type::Struct { name: Some(n), .. }) = self.m.ty(t) {
                push_llvm_name(&mut self.out, "%", n);
                self.out.push_str(" = type ");
                self.out.push_str(&struct_body(self.m, t));
                self.out.push('\n');
            }
        }
    }

    fn find_struct_types(&self) -> Vec<TypeId> {
        let m = self.m;
        let mut tf = TypeFinder {
            m,
            seen_types: HashSet::new(),
            seen_consts: HashSet::new(),
            seen_md: HashSet::new(),
            structs: Vec::new(),
        };
        for g in &m.globals {
            tf.ty(g.ptr_ty);
            if let Some(init) = g.initializer {
                tf.value(init, None);
            }
        }
        for a in &m.aliases {
            tf.ty(a.ty);
        }
        for f in &m.functions {
            tf.ty(f.ptr_ty);
            let Some(body) = &f.body else { continue };
            for inst in &body.instructions {
                tf.ty(inst.ty);
                for op in operand_order(&inst.kind) {
                    if let Some(v) = m.value(Some(body), op)
                        && matches!(v.kind, ValueKind::Constant(_))
                    {
                        tf.value(op, Some(body));
                    }
                }
                let mut att = inst.attachments.clone();
                att.sort_by_key(|(k, _)| *k);
                for (_, md) in att {
                    tf.md(md, Some(body));
                }
            }
        }
        for n in &m.named_metadata {
            for op in &n.ops {
                tf.md(*op, None);
            }
        }
        tf.structs
            .into_iter()
            .filter(|t| matches!(m.ty(*t), Some(Type::Struct { name: Some(_), .. })))
            .collect()
    }

    // ---------------------------------------------------------------------------------
    // Globals and functions
    // ---------------------------------------------------------------------------------

    /// `printGlobal`.
    fn print_global(&mut self, g: &crate::dxil::llvm::GlobalVar) {
        let mut s = String::new();
        self.global_ref(&mut s, g.value);
        s.push_str(" = ");
        let linkage = linkage_name(g.linkage.0);
        if g.initializer.is_none() && linkage.is_empty() {
            s.push_str("external ");
        }
        push_linkage(&mut s, g.linkage.0);
        push_visibility(&mut s, g.visibility);
        push_dll(&mut s, g.dll_storage);
        match g.thread_local {
            0 => {}
            1 => s.push_str("thread_local "),
            2 => s.push_str("thread_local(localdynamic) "),
            3 => s.push_str("thread_local(initialexec) "),
            _ => s.push_str("thread_local(localexec) "),
        }
        if g.unnamed_addr {
            s.push_str("unnamed_addr ");
        }
        if g.address_space != 0 {
            let _ = write!(s, "addrspace({}) ", g.address_space);
        }
        if g.externally_initialized {
            s.push_str("externally_initialized ");
        }
        s.push_str(if g.is_const { "constant " } else { "global " });
        s.push_str(&type_name(self.m, g.value_ty));
        if let Some(init) = g.initializer {
            s.push(' ');
            self.operand(&mut s, None, init);
        }
        if let Some(sec) = g.section.and_then(|i| self.m.section_names.get(i as usize)) {
            s.push_str(", section \"");
            push_escaped(&mut s, sec.as_bytes());
            s.push('"');
        }
        if g.align != 0 {
            let _ = write!(s, ", align {}", g.align);
        }
        self.out.push_str(&s);
    }

    /// `printFunction`.
    fn print_function(&mut self, index: usize, f: &'m Function) {
        self.out.push('\n');
        let fn_attrs = self.fn_attrs(f.attributes);
        let flags: Vec<String> = fn_attrs
            .iter()
            .filter(|a| !matches!(a.0, Attribute::String(..)))
            .map(|a| attr_text(&a.0, false))
            .collect();
        if !flags.is_empty() {
            let _ = writeln!(self.out, "; Function Attrs: {}", flags.join(" "));
        }
        let mut s = String::new();
        s.push_str(if f.body.is_none() {
            "declare "
        } else {
            "define "
        });
        push_linkage(&mut s, f.linkage.0);
        push_visibility(&mut s, f.visibility);
        push_dll(&mut s, f.dll_storage);
        if f.calling_conv != 0 {
            s.push_str(&calling_conv_name(f.calling_conv));
            s.push(' ');
        }
        let (ret, params, vararg) = match self.m.ty(f.ty) {
            Some(Type::Function {
                ret,
                params,
                vararg,
            }) => (*ret, params.clone(), *vararg),
            _ => (f.ty, Vec::new(), false),
        };
        let ret_attrs = self.slot_attrs(f.attributes, 0);
        if !ret_attrs.is_empty() {
            s.push_str(&attrs_text(&ret_attrs));
            s.push(' ');
        }
        s.push_str(&type_name(self.m, ret));
        s.push(' ');
        self.global_ref(&mut s, f.value);
        s.push('(');
        let ctx = f.body.as_ref().map(|b| self.function_context(b));
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&type_name(self.m, *p));
            let pa = self.slot_attrs(f.attributes, i as u32 + 1);
            if !pa.is_empty() {
                s.push(' ');
                s.push_str(&attrs_text(&pa));
            }
            if let Some(body) = &f.body
                && let Some(arg) = body.args.get(i)
                && let Some(name) = self.m.value(Some(body), *arg).and_then(|v| v.name.as_ref())
            {
                s.push(' ');
                push_llvm_name(&mut s, "%", name);
            }
        }
        if vararg {
            if !params.is_empty() {
                s.push_str(", ");
            }
            s.push_str("...");
        }
        s.push(')');
        if f.unnamed_addr {
            s.push_str(" unnamed_addr");
        }
        if !fn_attrs.is_empty() {
            let slot = self.attr_sets.iter().position(|x| *x == fn_attrs);
            if let Some(slot) = slot {
                let _ = write!(s, " #{slot}");
            }
        }
        if let Some(sec) = f.section.and_then(|i| self.m.section_names.get(i as usize)) {
            s.push_str(" section \"");
            push_escaped(&mut s, sec.as_bytes());
            s.push('"');
        }
        if f.align != 0 {
            let _ = write!(s, " align {}", f.align);
        }
        if let Some(gc) = f.gc.and_then(|i| self.m.gc_names.get(i as usize)) {
            let _ = write!(s, " gc \"{gc}\"");
        }
        self.out.push_str(&s);
        let _ = index;
        match (&f.body, ctx) {
            (Some(body), Some(ctx)) => {
                let mut s = String::new();
                for (k, node) in &body.attachments {
                    s.push(' ');
                    self.push_kind(&mut s, *k);
                    s.push(' ');
                    self.md_ref(&mut s, MdNode::Module(*node), Some(body));
                }
                self.out.push_str(&s);
                self.out.push_str(" {");
                let preds = predecessors(body);
                for b in 0..body.blocks.len() {
                    self.print_block(&ctx, b, &preds);
                }
                self.out.push_str("}\n");
            }
            _ => self.out.push('\n'),
        }
    }

    /// The slots of a function's unnamed arguments, blocks and instruction results
    /// (`SlotTracker::processFunction`).
    fn function_context(&self, body: &'m FunctionBody) -> FnCtx<'m> {
        let mut next = 0u32;
        let mut slots = HashMap::new();
        for a in &body.args {
            if self
                .m
                .value(Some(body), *a)
                .is_some_and(|v| v.name.is_none())
            {
                slots.insert(*a, next);
                next += 1;
            }
        }
        let mut block_slots = Vec::with_capacity(body.blocks.len());
        for (b, bb) in body.blocks.iter().enumerate() {
            if bb.name.is_none() {
                block_slots.push(Some(next));
                next += 1;
            } else {
                block_slots.push(None);
            }
            for inst in body.block_instructions(BlockId(b as u32)) {
                if let Some(r) = inst.result
                    && self
                        .m
                        .value(Some(body), r)
                        .is_some_and(|v| v.name.is_none())
                {
                    slots.insert(r, next);
                    next += 1;
                }
            }
        }
        FnCtx {
            body,
            slots,
            block_slots,
        }
    }

    /// `printBasicBlock`: the label (a name, or `; <label>:N` for an unnamed block
    /// that something branches to), the predecessors padded to column 50, then the
    /// instructions.
    fn print_block(&mut self, ctx: &FnCtx<'m>, b: usize, preds: &[Vec<usize>]) {
        let body = ctx.body;
        let Some(bb) = body.blocks.get(b) else { return };
        let no_preds = Vec::new();
        let my_preds = preds.get(b).unwrap_or(&no_preds);
        let line_start = self.out.len();
        if let Some(name) = &bb.name {
            self.out.push('\n');
            push_llvm_name(&mut self.out, "", name);
            self.out.push(':');
        } else if !my_preds.is_empty() || block_has_other_uses(body, b) {
            self.out.push_str("\n; <label>:");
            match ctx.block_slots.get(b).copied().flatten() {
                Some(s) => {
                    let _ = write!(self.out, "{s}");
                }
                None => self.out.push_str("<badref>"),
            }
        }
        if b != 0 {
            let col = column_of(&self.out, line_start);
            let pad = PREDS_COLUMN.saturating_sub(col).max(1);
            self.out.extend(std::iter::repeat_n(' ', pad));
            self.out.push(';');
            if my_preds.is_empty() {
                self.out.push_str(" No predecessors!");
            } else {
                self.out.push_str(" preds = ");
                for (i, p) in my_preds.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    let mut s = String::new();
                    self.block_ref(&mut s, ctx, *p);
                    self.out.push_str(&s);
                }
            }
        }
        self.out.push('\n');
        let first = bb.start;
        for (k, inst) in body
            .block_instructions(BlockId(b as u32))
            .iter()
            .enumerate()
        {
            self.inst_offsets
                .push((self.cur_fn, first + k as u32, self.out.len()));
            let mut s = String::new();
            self.print_instruction(&mut s, ctx, inst);
            self.out.push_str(&s);
            self.out.push('\n');
        }
    }

    // ---------------------------------------------------------------------------------
    // Instructions (printInstruction)
    // ---------------------------------------------------------------------------------

    fn print_instruction(&self, s: &mut String, ctx: &FnCtx<'m>, inst: &Instruction) {
        let m = self.m;
        let body = Some(ctx.body);
        s.push_str("  ");
        if let Some(r) = inst.result {
            match m.value(body, r).and_then(|v| v.name.as_ref()) {
                Some(name) => {
                    push_llvm_name(s, "%", name);
                    s.push_str(" = ");
                }
                None => match ctx.slots.get(&r) {
                    Some(n) => {
                        let _ = write!(s, "%{n} = ");
                    }
                    None => s.push_str("<badref> = "),
                },
            }
        }
        let ty_of = |v: ValueId| m.value(body, v).map(|x| x.ty);
        let fp_result = type_is_fp_or_fp_vector(m, inst.ty);
        match &inst.kind {
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let float = ty_of(*lhs).is_some_and(|t| type_is_fp_or_fp_vector(m, t));
                s.push_str(op.name(float));
                s.push_str(&binary_flags(*op, float, *flags));
                self.same_type_operands(s, ctx, &[*lhs, *rhs]);
            }
            InstKind::Cast { op, value } => {
                s.push_str(op.name());
                s.push(' ');
                self.typed_operand(s, ctx, *value);
                s.push_str(" to ");
                s.push_str(&type_name(m, inst.ty));
            }
            InstKind::Cmp {
                pred,
                lhs,
                rhs,
                flags,
            } => {
                s.push_str(if pred.is_float() { "fcmp" } else { "icmp" });
                if pred.is_float() {
                    s.push_str(&fast_math_text(*flags));
                }
                s.push(' ');
                s.push_str(pred.name());
                self.same_type_operands(s, ctx, &[*lhs, *rhs]);
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                s.push_str("select");
                self.all_typed_operands(s, ctx, &[*cond, *if_true, *if_false]);
            }
            InstKind::ExtractElement { vector, index } => {
                s.push_str("extractelement");
                self.same_type_operands(s, ctx, &[*vector, *index]);
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                s.push_str("insertelement");
                self.same_type_operands(s, ctx, &[*vector, *element, *index]);
            }
            InstKind::ShuffleVector { a, b, mask } => {
                s.push_str("shufflevector");
                self.all_typed_operands(s, ctx, &[*a, *b, *mask]);
            }
            InstKind::ExtractValue { aggregate, indices } => {
                s.push_str("extractvalue ");
                self.typed_operand(s, ctx, *aggregate);
                for i in indices {
                    let _ = write!(s, ", {i}");
                }
            }
            InstKind::InsertValue {
                aggregate,
                value,
                indices,
            } => {
                s.push_str("insertvalue ");
                self.typed_operand(s, ctx, *aggregate);
                s.push_str(", ");
                self.typed_operand(s, ctx, *value);
                for i in indices {
                    let _ = write!(s, ", {i}");
                }
            }
            InstKind::Phi { incoming } => {
                s.push_str("phi ");
                s.push_str(&type_name(m, inst.ty));
                s.push(' ');
                for (i, (v, b)) in incoming.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str("[ ");
                    self.operand(s, Some(ctx), *v);
                    s.push_str(", ");
                    self.block_ref(s, ctx, b.index());
                    s.push_str(" ]");
                }
            }
            InstKind::Br { target } => {
                s.push_str("br label ");
                self.block_ref(s, ctx, target.index());
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                s.push_str("br ");
                self.typed_operand(s, ctx, *cond);
                s.push_str(", label ");
                self.block_ref(s, ctx, if_true.index());
                s.push_str(", label ");
                self.block_ref(s, ctx, if_false.index());
            }
            InstKind::Switch {
                cond,
                default,
                cases,
            } => {
                s.push_str("switch ");
                self.typed_operand(s, ctx, *cond);
                s.push_str(", label ");
                self.block_ref(s, ctx, default.index());
                s.push_str(" [");
                for (v, b) in cases {
                    s.push_str("\n    ");
                    self.typed_operand(s, ctx, *v);
                    s.push_str(", label ");
                    self.block_ref(s, ctx, b.index());
                }
                s.push_str("\n  ]");
            }
            InstKind::Ret { value } => match value {
                Some(v) => {
                    s.push_str("ret ");
                    self.typed_operand(s, ctx, *v);
                }
                None => s.push_str("ret void"),
            },
            InstKind::Unreachable => s.push_str("unreachable"),
            InstKind::Call {
                callee,
                fn_ty,
                args,
                attributes,
                calling_conv,
                tail,
                ..
            } => {
                if tail & 2 != 0 {
                    s.push_str("musttail ");
                } else if tail & 1 != 0 {
                    s.push_str("tail ");
                }
                s.push_str("call");
                // Calls carry fast-math flags only from LLVM 3.8 on; a 3.7 module
                // never states them.
                if *calling_conv != 0 {
                    s.push(' ');
                    s.push_str(&calling_conv_name(*calling_conv));
                }
                let ret_attrs = self.slot_attrs(*attributes, 0);
                if !ret_attrs.is_empty() {
                    s.push(' ');
                    s.push_str(&attrs_text(&ret_attrs));
                }
                s.push(' ');
                let (ret, vararg) = match m.ty(*fn_ty) {
                    Some(Type::Function { ret, vararg, .. }) => (*ret, *vararg),
                    _ => (inst.ty, false),
                };
                s.push_str(&type_name(m, if vararg { *fn_ty } else { ret }));
                s.push(' ');
                self.operand(s, Some(ctx), *callee);
                s.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    let pa = self.slot_attrs(*attributes, i as u32 + 1);
                    match a {
                        Operand::Value(v) => {
                            s.push_str(&ty_of(*v).map(|t| type_name(m, t)).unwrap_or_default());
                            if !pa.is_empty() {
                                s.push(' ');
                                s.push_str(&attrs_text(&pa));
                            }
                            s.push(' ');
                            self.operand(s, Some(ctx), *v);
                        }
                        Operand::Metadata(md) => {
                            s.push_str("metadata");
                            if !pa.is_empty() {
                                s.push(' ');
                                s.push_str(&attrs_text(&pa));
                            }
                            s.push(' ');
                            self.md_operand(s, *md, ctx);
                        }
                        Operand::Block(b) => {
                            s.push_str("label ");
                            self.block_ref(s, ctx, b.index());
                        }
                    }
                }
                s.push(')');
                let fa = self.fn_attrs(*attributes);
                if !fa.is_empty()
                    && let Some(slot) = self.attr_sets.iter().position(|x| *x == fa)
                {
                    let _ = write!(s, " #{slot}");
                }
            }
            InstKind::Alloca {
                allocated,
                size,
                align,
                inalloca,
                ..
            } => {
                s.push_str("alloca ");
                if *inalloca {
                    s.push_str("inalloca ");
                }
                s.push_str(&type_name(m, *allocated));
                let size_is_i32_one = m.value(body, *size).is_some_and(|v| {
                    m.ty(v.ty) == Some(&Type::Integer(32))
                        && matches!(&v.kind, ValueKind::Constant(Constant::Int(1)))
                });
                if !size_is_i32_one {
                    s.push_str(", ");
                    self.typed_operand(s, ctx, *size);
                }
                if *align != 0 {
                    let _ = write!(s, ", align {align}");
                }
            }
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            } => {
                s.push_str("load");
                if atomic.is_some() {
                    s.push_str(" atomic");
                }
                if *volatile {
                    s.push_str(" volatile");
                }
                s.push(' ');
                s.push_str(&type_name(m, inst.ty));
                s.push_str(", ");
                self.typed_operand(s, ctx, *ptr);
                if let Some((ord, scope)) = atomic {
                    push_atomic(s, ord.name(), *scope);
                }
                if *align != 0 {
                    let _ = write!(s, ", align {align}");
                }
            }
            InstKind::Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            } => {
                s.push_str("store");
                if atomic.is_some() {
                    s.push_str(" atomic");
                }
                if *volatile {
                    s.push_str(" volatile");
                }
                self.all_typed_operands(s, ctx, &[*value, *ptr]);
                if let Some((ord, scope)) = atomic {
                    push_atomic(s, ord.name(), *scope);
                }
                if *align != 0 {
                    let _ = write!(s, ", align {align}");
                }
            }
            InstKind::Gep {
                inbounds,
                source_ty,
                base,
                indices,
                ..
            } => {
                s.push_str("getelementptr");
                if *inbounds {
                    s.push_str(" inbounds");
                }
                s.push(' ');
                s.push_str(&type_name(m, *source_ty));
                s.push(',');
                let ops: Vec<ValueId> = std::iter::once(*base)
                    .chain(indices.iter().copied())
                    .collect();
                self.same_type_operands(s, ctx, &ops);
            }
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
            } => {
                s.push_str("atomicrmw");
                if *volatile {
                    s.push_str(" volatile");
                }
                s.push(' ');
                s.push_str(op.name());
                self.same_type_operands(s, ctx, &[*ptr, *value]);
                push_atomic(s, ordering.name(), *scope);
            }
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                success,
                scope,
                failure,
                weak,
            } => {
                s.push_str("cmpxchg");
                if *weak {
                    s.push_str(" weak");
                }
                if *volatile {
                    s.push_str(" volatile");
                }
                self.same_type_operands(s, ctx, &[*ptr, *cmp, *new]);
                if *scope == 0 {
                    s.push_str(" singlethread");
                }
                let _ = write!(s, " {} {}", success.name(), failure.name());
            }
            InstKind::Fence { ordering, scope } => {
                s.push_str("fence");
                push_atomic(s, ordering.name(), *scope);
            }
        }
        let _ = fp_result;
        // Metadata attachments (`printMetadataAttachments`, separator ", ").
        for (k, node) in self.inst_md(inst) {
            s.push_str(", ");
            self.push_kind(s, k);
            s.push(' ');
            self.md_ref(s, node, Some(ctx.body));
        }
        if self.dxc_comments {
            super::opsig::info_comment(s, self.m, ctx.body, inst);
        }
    }

    /// Operands printed the "normal way": the type once if all operands share it,
    /// else before each operand (`PrintAllTypes`).
    fn same_type_operands(&self, s: &mut String, ctx: &FnCtx<'m>, ops: &[ValueId]) {
        let m = self.m;
        let tys: Vec<Option<TypeId>> = ops
            .iter()
            .map(|o| m.value(Some(ctx.body), *o).map(|v| v.ty))
            .collect();
        let first = tys.first().copied().flatten();
        if tys.iter().all(|t| *t == first) {
            s.push(' ');
            if let Some(t) = first {
                s.push_str(&type_name(m, t));
            }
            s.push(' ');
            for (i, o) in ops.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                self.operand(s, Some(ctx), *o);
            }
        } else {
            self.all_typed_operands(s, ctx, ops);
        }
    }

    fn all_typed_operands(&self, s: &mut String, ctx: &FnCtx<'m>, ops: &[ValueId]) {
        s.push(' ');
        for (i, o) in ops.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            self.typed_operand(s, ctx, *o);
        }
    }

    fn typed_operand(&self, s: &mut String, ctx: &FnCtx<'m>, v: ValueId) {
        if let Some(t) = self.m.value(Some(ctx.body), v).map(|x| x.ty) {
            s.push_str(&type_name(self.m, t));
        }
        s.push(' ');
        self.operand(s, Some(ctx), v);
    }

    /// `WriteAsOperandInternal` for a value: its name, a constant's text, or its slot.
    fn operand(&self, s: &mut String, ctx: Option<&FnCtx<'m>>, v: ValueId) {
        let body = ctx.map(|c| c.body);
        let Some(val) = self.m.value(body, v) else {
            s.push_str("<badref>");
            return;
        };
        if let Some(name) = &val.name {
            let global = is_global(val);
            push_llvm_name(s, if global { "@" } else { "%" }, name);
            return;
        }
        match &val.kind {
            ValueKind::Constant(_) => {
                let view = ConstView { m: self.m, body };
                view.write(s, v, &|out: &mut String, id: ValueId| {
                    self.operand(out, ctx, id)
                });
            }
            ValueKind::Global(_) | ValueKind::Function(_) | ValueKind::Alias(_) => {
                self.global_ref(s, v)
            }
            ValueKind::Argument(_) | ValueKind::Instruction(_) => {
                match ctx.and_then(|c| c.slots.get(&v)) {
                    Some(n) => {
                        let _ = write!(s, "%{n}");
                    }
                    None => s.push_str("<badref>"),
                }
            }
        }
    }

    fn global_ref(&self, s: &mut String, v: ValueId) {
        match self.m.value(None, v) {
            Some(val) if val.name.as_deref().is_some_and(|n| !n.is_empty()) => {
                push_llvm_name(s, "@", val.name.as_deref().unwrap_or_default())
            }
            _ => match self.global_slots.get(&v) {
                Some(n) => {
                    let _ = write!(s, "@{n}");
                }
                None => s.push_str("<badref>"),
            },
        }
    }

    fn block_ref(&self, s: &mut String, ctx: &FnCtx<'m>, b: usize) {
        match ctx.body.blocks.get(b) {
            Some(bb) => match &bb.name {
                Some(n) => push_llvm_name(s, "%", n),
                None => match ctx.block_slots.get(b).copied().flatten() {
                    Some(n) => {
                        let _ = write!(s, "%{n}");
                    }
                    None => s.push_str("<badref>"),
                },
            },
            None => s.push_str("<badref>"),
        }
    }

    /// A metadata operand of a call (`metadata !3`, `metadata !"s"`, `metadata float
    /// %x`).
    fn md_operand(&self, s: &mut String, md: MdId, ctx: &FnCtx<'m>) {
        match self.m.md(Some(ctx.body), md) {
            Some(Metadata::String(b)) => {
                s.push_str("!\"");
                push_escaped(s, b);
                s.push('"');
            }
            Some(Metadata::Value { ty, value }) => {
                s.push_str(&type_name(self.m, *ty));
                s.push(' ');
                self.operand(s, Some(ctx), *value);
            }
            Some(_) => self.md_ref(s, MdNode::Module(md), Some(ctx.body)),
            None => s.push_str("<badref>"),
        }
    }

    fn md_ref(&self, s: &mut String, node: MdNode, body: Option<&FunctionBody>) {
        let _ = body;
        match self.md_slots.get(&node) {
            Some(n) => {
                let _ = write!(s, "!{n}");
            }
            None => s.push_str("<badref>"),
        }
    }

    fn push_kind(&self, s: &mut String, kind: u32) {
        match self.kind_names.get(&kind) {
            Some(name) => {
                s.push('!');
                push_metadata_identifier(s, name);
            }
            None => {
                let _ = write!(s, "!<unknown kind #{kind}>");
            }
        }
    }

    // ---------------------------------------------------------------------------------
    // Metadata nodes (writeMDNode)
    // ---------------------------------------------------------------------------------

    fn write_md_node_body(&self, s: &mut String, node: MdNode, body: Option<&FunctionBody>) {
        match node {
            MdNode::Location(loc) => {
                self.write_location(s, false, loc.line, loc.column, loc.scope, loc.inlined_at)
            }
            MdNode::Module(id) => match self.m.md(body, id) {
                Some(Metadata::Node { distinct, ops }) => {
                    if *distinct {
                        s.push_str("distinct ");
                    }
                    s.push_str("!{");
                    for (i, op) in ops.iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        match op {
                            None => s.push_str("null"),
                            Some(o) => self.md_tuple_operand(s, *o, body),
                        }
                    }
                    s.push('}');
                }
                Some(Metadata::Location {
                    distinct,
                    line,
                    column,
                    scope,
                    inlined_at,
                }) => self.write_location(s, *distinct, *line, *column, Some(*scope), *inlined_at),
                Some(Metadata::Debug { code, distinct, .. }) => {
                    // Debug-information nodes never occur in the DXIL part of a
                    // container; they are named by record code only.
                    if *distinct {
                        s.push_str("distinct ");
                    }
                    let _ = write!(s, "!DIRecord{code}()");
                }
                _ => s.push_str("<badref>"),
            },
        }
    }

    fn write_location(
        &self,
        s: &mut String,
        distinct: bool,
        line: u32,
        column: u32,
        scope: Option<MdId>,
        inlined_at: Option<MdId>,
    ) {
        if distinct {
            s.push_str("distinct ");
        }
        let _ = write!(s, "!DILocation(line: {line}");
        if column != 0 {
            let _ = write!(s, ", column: {column}");
        }
        s.push_str(", scope: ");
        match scope {
            Some(sc) => self.md_ref(s, MdNode::Module(sc), None),
            None => s.push_str("null"),
        }
        if let Some(ia) = inlined_at {
            s.push_str(", inlinedAt: ");
            self.md_ref(s, MdNode::Module(ia), None);
        }
        s.push(')');
    }

    /// An operand of a metadata tuple (`writeMDTuple`): a node by slot, a string, or
    /// a value with its type.
    fn md_tuple_operand(&self, s: &mut String, id: MdId, body: Option<&FunctionBody>) {
        match self.m.md(body, id) {
            Some(Metadata::String(b)) => {
                s.push_str("!\"");
                push_escaped(s, b);
                s.push('"');
            }
            Some(Metadata::Value { ty, value }) => {
                s.push_str(&type_name(self.m, *ty));
                s.push(' ');
                self.operand(s, None, *value);
            }
            Some(_) => self.md_ref(s, MdNode::Module(id), body),
            None => s.push_str("<badref>"),
        }
    }
}

/// Whether a value is a global value (printed with `@`).
fn is_global(v: &Value) -> bool {
    matches!(
        v.kind,
        ValueKind::Global(_) | ValueKind::Function(_) | ValueKind::Alias(_)
    )
}

/// Whether a block is used by something other than a terminator (a `blockaddress`
/// or a label argument), which makes LLVM print its label.
fn block_has_other_uses(body: &FunctionBody, b: usize) -> bool {
    body.instructions.iter().any(|i| match &i.kind {
        InstKind::Call { args, .. } => args
            .iter()
            .any(|a| matches!(a, Operand::Block(x) if x.index() == b)),
        _ => false,
    })
}

/// Each block's predecessors as LLVM 3.7 lists them (`pred_begin`): the terminators
/// among the block's users, in use-list order.
///
/// Reading bitcode creates a block's uses in instruction order (blocks exist before
/// the instructions that branch to them; a conditional branch sets its true target
/// before its false one, a switch its default before its cases), and LLVM puts each new
/// use at the head of the use list, so the list is the reverse of creation order (seed
/// `000_…`, "Listings": "the reverse of the order the branches to it were created
/// in"). A module's USELIST records could reorder use lists; dxc writes none.
fn predecessors(body: &FunctionBody) -> Vec<Vec<usize>> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); body.blocks.len()];
    for (b, _) in body.blocks.iter().enumerate() {
        for inst in body.block_instructions(BlockId(b as u32)) {
            let targets: Vec<BlockId> = match &inst.kind {
                InstKind::Br { target } => vec![*target],
                InstKind::CondBr {
                    if_true, if_false, ..
                } => vec![*if_true, *if_false],
                InstKind::Switch { default, cases, .. } => std::iter::once(*default)
                    .chain(cases.iter().map(|c| c.1))
                    .collect(),
                _ => continue,
            };
            for t in targets {
                if let Some(p) = preds.get_mut(t.index()) {
                    p.push(b);
                }
            }
        }
    }
    for p in &mut preds {
        p.reverse();
    }
    preds
}

/// The column of the end of `out`, counting from the last newline at or after
/// `line_start` (LLVM's `formatted_raw_ostream` column: bytes, tabs to the next
/// multiple of 8).
fn column_of(out: &str, line_start: usize) -> usize {
    let tail = out.get(line_start..).unwrap_or_default();
    let line = tail.rsplit('\n').next().unwrap_or(tail);
    let mut col = 0usize;
    for c in line.bytes() {
        if c == b'\t' {
            col += 8 - (col % 8);
        } else {
            col += 1;
        }
    }
    col
}

/// LLVM's operand order of an instruction (for `TypeFinder`, which visits constant
/// operands in this order).
fn operand_order(k: &InstKind) -> Vec<ValueId> {
    match k {
        InstKind::CondBr { cond, .. } => vec![*cond],
        InstKind::Switch { cond, cases, .. } => std::iter::once(*cond)
            .chain(cases.iter().map(|c| c.0))
            .collect(),
        InstKind::Store { ptr, value, .. } => vec![*value, *ptr],
        _ => k.value_operands(),
    }
}

/// `printMetadataIdentifier`: a metadata or kind name, escaping characters outside
/// `[-$._A-Za-z0-9]` (and a leading digit) as `\XX`.
fn push_metadata_identifier(s: &mut String, name: &str) {
    let b = name.as_bytes();
    let Some((&first, rest)) = b.split_first() else {
        s.push_str("<empty name> ");
        return;
    };
    if first.is_ascii_alphabetic() || matches!(first, b'-' | b'$' | b'.' | b'_') {
        s.push(char::from(first));
    } else {
        let _ = write!(s, "\\{first:02X}");
    }
    for &c in rest {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_') {
            s.push(char::from(c));
        } else {
            let _ = write!(s, "\\{c:02X}");
        }
    }
}

fn push_atomic(s: &mut String, ordering: &str, scope: u8) {
    if ordering == "notatomic" {
        return;
    }
    if scope == 0 {
        s.push_str(" singlethread");
    }
    s.push(' ');
    s.push_str(ordering);
}

/// LLVM 3.7's linkage keyword for a bitcode linkage code (`getDecodedLinkage`, then
/// `PrintLinkage`); empty for external linkage.
fn linkage_name(code: u32) -> &'static str {
    match code {
        0 | 5 | 6 => "",
        2 => "appending",
        3 => "internal",
        7 => "extern_weak",
        8 => "common",
        9 | 13 | 14 => "private",
        12 => "available_externally",
        1 | 16 => "weak",
        10 | 17 => "weak_odr",
        4 | 18 => "linkonce",
        11 | 15 | 19 => "linkonce_odr",
        _ => "",
    }
}

fn push_linkage(s: &mut String, code: u32) {
    let l = linkage_name(code);
    if !l.is_empty() {
        s.push_str(l);
        s.push(' ');
    }
}

fn push_visibility(s: &mut String, v: u32) {
    match v {
        1 => s.push_str("hidden "),
        2 => s.push_str("protected "),
        _ => {}
    }
}

fn push_dll(s: &mut String, v: u32) {
    match v {
        1 => s.push_str("dllimport "),
        2 => s.push_str("dllexport "),
        _ => {}
    }
}

/// `PrintCallingConv` for the conventions LLVM 3.7 names.
fn calling_conv_name(cc: u32) -> String {
    match cc {
        8 => "fastcc".into(),
        9 => "coldcc".into(),
        10 => "ghccc".into(),
        12 => "webkit_jscc".into(),
        13 => "anyregcc".into(),
        14 => "preserve_mostcc".into(),
        15 => "preserve_allcc".into(),
        64 => "x86_stdcallcc".into(),
        65 => "x86_fastcallcc".into(),
        66 => "arm_apcscc".into(),
        67 => "arm_aapcscc".into(),
        68 => "arm_aapcs_vfpcc".into(),
        69 => "msp430_intrcc".into(),
        70 => "x86_thiscallcc".into(),
        71 => "ptx_kernel".into(),
        72 => "ptx_device".into(),
        75 => "spir_func".into(),
        76 => "spir_kernel".into(),
        77 => "intel_ocl_bicc".into(),
        78 => "x86_64_sysvcc".into(),
        79 => "x86_64_win64cc".into(),
        80 => "x86_vectorcallcc".into(),
        _ => format!("cc{cc}"),
    }
}

/// The rank of an enum attribute in LLVM 3.7's `Attribute::AttrKind` (the in-memory
/// order attribute sets are sorted by), from its bitcode kind code
/// (`LLVMBitCodes.h` `AttributeKindCodes`).
fn enum_rank(code: u32) -> u32 {
    // AttrKind order (include/llvm/IR/Attributes.h, LLVM 3.7): None, Alignment,
    // AlwaysInline, ArgMemOnly, Builtin, ByVal, Cold, Convergent, Dereferenceable,
    // DereferenceableOrNull, InAlloca, InlineHint, InReg, JumpTable, MinSize, Naked,
    // Nest, NoAlias, NoBuiltin, NoCapture, NoDuplicate, NoImplicitFloat, NoInline,
    // NonLazyBind, NonNull, NoRedZone, NoReturn, NoUnwind, OptimizeForSize,
    // OptimizeNone, ReadNone, ReadOnly, Returned, ReturnsTwice, SExt, StackAlignment,
    // StackProtect, StackProtectReq, StackProtectStrong, SafeStack, StructRet,
    // SanitizeAddress, SanitizeThread, SanitizeMemory, UWTable, ZExt.
    const BY_CODE: [u32; 46] = [
        0,  // 0 (none)
        1,  // 1 align
        2,  // 2 alwaysinline
        5,  // 3 byval
        11, // 4 inlinehint
        12, // 5 inreg
        14, // 6 minsize
        15, // 7 naked
        16, // 8 nest
        17, // 9 noalias
        18, // 10 nobuiltin
        19, // 11 nocapture
        20, // 12 noduplicate
        21, // 13 noimplicitfloat
        22, // 14 noinline
        23, // 15 nonlazybind
        25, // 16 noredzone
        26, // 17 noreturn
        27, // 18 nounwind
        28, // 19 optsize
        30, // 20 readnone
        31, // 21 readonly
        32, // 22 returned
        33, // 23 returns_twice
        34, // 24 signext
        35, // 25 alignstack
        36, // 26 ssp
        37, // 27 sspreq
        38, // 28 sspstrong
        40, // 29 sret
        41, // 30 sanitize_address
        42, // 31 sanitize_thread
        43, // 32 sanitize_memory
        44, // 33 uwtable
        45, // 34 zeroext
        4,  // 35 builtin
        6,  // 36 cold
        29, // 37 optnone
        10, // 38 inalloca
        24, // 39 nonnull
        13, // 40 jumptable
        8,  // 41 dereferenceable
        9,  // 42 dereferenceable_or_null
        7,  // 43 convergent
        39, // 44 safestack
        3,  // 45 argmemonly
    ];
    BY_CODE.get(code as usize).copied().unwrap_or(1000 + code)
}

/// The sort key of an attribute in an LLVM 3.7 attribute set
/// (`AttributeImpl::operator<`): enum attributes by kind, then integer attributes by
/// value, then string attributes by key and value.
fn sort_key(a: &Attribute) -> (u8, u64, String, String) {
    match a {
        Attribute::Flag(k) => (0, u64::from(enum_rank(*k)), String::new(), String::new()),
        Attribute::Int(_, v) => (1, *v, String::new(), String::new()),
        Attribute::String(k, v) => (2, 0, k.clone(), v.clone().unwrap_or_default()),
    }
}

/// `Attribute::getAsString`: the attribute's text, in an attribute group (`align=4`)
/// or inline (`align 4`).
fn attr_text(a: &Attribute, in_group: bool) -> String {
    match a {
        Attribute::Flag(k) => crate::dxil::llvm::attribute_kind_name(*k)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("<attr {k}>")),
        Attribute::Int(k, v) => match k {
            1 => {
                if in_group {
                    format!("align={v}")
                } else {
                    format!("align {v}")
                }
            }
            25 => {
                if in_group {
                    format!("alignstack={v}")
                } else {
                    format!("alignstack({v})")
                }
            }
            41 => format!("dereferenceable({v})"),
            42 => format!("dereferenceable_or_null({v})"),
            _ => format!("<attr {k}={v}>"),
        },
        Attribute::String(k, v) => match v {
            Some(v) if !v.is_empty() => format!("\"{k}\"=\"{v}\""),
            _ => format!("\"{k}\""),
        },
    }
}

fn attrs_text(set: &[Attr]) -> String {
    set.iter()
        .map(|a| attr_text(&a.0, false))
        .collect::<Vec<_>>()
        .join(" ")
}

/// LLVM 3.7's `TypeFinder` (with `onlyNamed = false`), collecting structure types in
/// the order it meets them.
struct TypeFinder<'m> {
    m: &'m Module,
    seen_types: HashSet<TypeId>,
    seen_consts: HashSet<ValueId>,
    seen_md: HashSet<MdId>,
    structs: Vec<TypeId>,
}

impl TypeFinder<'_> {
    /// `incorporateType`: a depth-first walk, subtypes in order.
    fn ty(&mut self, t: TypeId) {
        if !self.seen_types.insert(t) {
            return;
        }
        let mut work = vec![t];
        while let Some(t) = work.pop() {
            let subs: Vec<TypeId> = match self.m.ty(t) {
                Some(Type::Struct { elements, .. }) => {
                    self.structs.push(t);
                    elements.clone()
                }
                Some(Type::Function { ret, params, .. }) => std::iter::once(*ret)
                    .chain(params.iter().copied())
                    .collect(),
                Some(Type::Pointer { pointee, .. }) => vec![*pointee],
                Some(Type::Array { element, .. } | Type::Vector { element, .. }) => {
                    vec![*element]
                }
                _ => Vec::new(),
            };
            for s in subs.into_iter().rev() {
                if self.seen_types.insert(s) {
                    work.push(s);
                }
            }
        }
    }

    /// `incorporateValue` for a constant (globals are skipped).
    fn value(&mut self, v: ValueId, body: Option<&FunctionBody>) {
        let Some(val) = self.m.value(body, v) else {
            return;
        };
        let ValueKind::Constant(c) = &val.kind else {
            return;
        };
        if !self.seen_consts.insert(v) {
            return;
        }
        self.ty(val.ty);
        let ops: Vec<ValueId> = match c {
            Constant::Aggregate(e) => e.clone(),
            Constant::Cast { value, .. } => vec![*value],
            Constant::Binary { lhs, rhs, .. } | Constant::Cmp { lhs, rhs, .. } => {
                vec![*lhs, *rhs]
            }
            Constant::Gep { operands, .. } => operands.clone(),
            Constant::Select {
                cond,
                if_true,
                if_false,
            } => vec![*cond, *if_true, *if_false],
            Constant::ExtractElement { vector, index } => vec![*vector, *index],
            Constant::InsertElement {
                vector,
                element,
                index,
            } => vec![*vector, *element, *index],
            Constant::ShuffleVector { a, b, mask } => vec![*a, *b, *mask],
            _ => Vec::new(),
        };
        for o in ops {
            self.value(o, body);
        }
    }

    /// `incorporateMDNode`: nodes among the operands, and constants wrapped as
    /// metadata.
    fn md(&mut self, id: MdId, body: Option<&FunctionBody>) {
        let Some(Metadata::Node { ops, .. }) = self.m.md(body, id) else {
            return;
        };
        if !self.seen_md.insert(id) {
            return;
        }
        for o in ops.iter().flatten() {
            match self.m.md(body, *o) {
                Some(Metadata::Node { .. }) => self.md(*o, body),
                Some(Metadata::Value { value, .. }) => self.value(*value, body),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_sets_sort_as_llvm_3_7() {
        // nounwind (18) before readnone (20) and readonly (21); noduplicate (12)
        // before nounwind; argmemonly (45) first.
        let mut v = [
            Attribute::Flag(20),
            Attribute::Flag(18),
            Attribute::Flag(12),
            Attribute::Flag(45),
        ];
        v.sort_by_key(sort_key);
        let names: Vec<String> = v.iter().map(|a| attr_text(a, true)).collect();
        assert_eq!(names, ["argmemonly", "noduplicate", "nounwind", "readnone"]);
    }

    #[test]
    fn metadata_identifiers_escape() {
        let mut s = String::new();
        push_metadata_identifier(&mut s, "dx.precise");
        assert_eq!(s, "dx.precise");
        let mut s = String::new();
        push_metadata_identifier(&mut s, "1a b");
        assert_eq!(s, "\\31a\\20b");
    }
}
