//! The machine: stack, frames and bindings, dictionary, output, and the evaluation loop.
//!
//! Every evaluation — the program, User Word calls, blocks run by `EXEC`, `COND`,
//! `MAP` and the other higher-order Words — runs on explicit frames kept in
//! [`Machine`], never on the native stack. A Word that needs a block evaluated
//! returns [`Flow::Run`] with a continuation; the loop pushes a frame for the block
//! and calls the continuation when the frame finishes (or unwinds it on error).
//! So recursion depth is bounded by `executionSteps` and memory only.
//!
//! This file holds the frames and the run loop; clause selection, which the machine runs
//! itself for the Word that reads clauses, is in [`crate::clauses`], the executor API
//! [`Ctx`] in `ctx.rs` and the User Word dictionary in `dict.rs`. What those need of the
//! machine's state is `pub(super)`: visible to the runtime layer, no further.

mod ctx;
mod dict;

pub use ctx::Ctx;
pub use dict::{is_name_lexeme, Dictionary, NameChecks, UserWord};

use crate::clauses::{self, Clause, Clauses, Selection};
use crate::code::Program;
use crate::code::{Block, Item, Name};
use crate::compile::{compile, Code, Op, OpKind};
use crate::limits::{Halt, Meter, Profile};
use crate::outcome::{err, CallSite, ErrorCategory, LangError, Pos, Trace, TRACE_MAX_CALLS};
use crate::value::Value;
use crate::word::{Flow, IntPair, IntPairResult, Registry, Resume, Run, WordId, WordSpec};
use std::sync::Arc;

/// Local bindings of one frame (few entries; a linear map).
type Bindings = Vec<(Arc<str>, Value)>;

/// What opened a code frame.
pub(super) enum FrameKind {
    /// The program run: a barrier.
    Root,
    /// A User Word call: a barrier.
    Word(Arc<UserWord>),
    /// A block run by a Word: transparent.
    Block,
    /// A guard or the chosen body of a clause selection: transparent, isolated over
    /// the selection's base (the frame's floor).
    Clause(ClauseRun),
}

impl FrameKind {
    /// Whether bindings below this frame are out of sight of its code.
    fn is_barrier(&self) -> bool {
        matches!(self, FrameKind::Root | FrameKind::Word(_))
    }
}

/// A clause selection in progress. The machine runs selections itself rather than
/// through a [`Resume`] continuation: a selection in a loop then costs no allocation
/// and no frame pair per guard.
pub(super) struct ClauseRun {
    pub(super) clauses: Arc<Clauses>,
    /// The clause whose guard or body runs.
    pub(super) index: usize,
    /// The target, while guards run; `None` once the chosen body runs (a tail-call
    /// loop must not pin the first iteration's values).
    pub(super) target: Option<Value>,
    /// Whether the chosen body is in tail position of the User Word frame beneath.
    pub(super) tail: bool,
    /// The clause reader and its position.
    pub(super) word: WordId,
    pub(super) pos: Option<Pos>,
}

pub(super) struct CodeFrame {
    pub(super) code: Arc<Code>,
    /// Index of the next operation (a block holds fewer than 2^32 operations: its
    /// source fits memory; the narrow field keeps frames at 128 bytes, moved inline).
    pub(super) pc: u32,
    pub(super) kind: FrameKind,
    pub(super) bindings: Option<Box<Bindings>>,
    /// The pending KEEP flag of this frame.
    pub(super) keep: bool,
    /// Values below this index are invisible to the frame (isolation base).
    pub(super) floor: usize,
    /// Whether this block is in tail position of the User Word frame beneath it (a
    /// clause body ending that Word's body): a self-call ending it is a tail call.
    pub(super) tail_of: bool,
    /// After a tail-call iteration: the completion the replaced continuations owe.
    pub(super) tail: Option<Box<TailCompletion>>,
    /// Whether a KEEP record belongs to this frame (EXEC or User Word under KEEP).
    pub(super) keep_record: bool,
    /// This frame's number among all frames the machine opened (never reused), so an
    /// entry of the binding index can tell its frame from a later one at the same depth.
    pub(super) serial: u64,
}

/// Where a name is bound: a frame (its depth and serial) and the slot of its bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Binder {
    frame: usize,
    serial: u64,
    slot: usize,
}

pub(super) enum Frame {
    Code(CodeFrame),
    Native {
        cont: Box<dyn Resume>,
        base: usize,
        word: WordId,
        pos: Option<Pos>,
    },
}

/// What a run of tail-call iterations owes when the User Word's frame finishes: the
/// completion of the first block it replaced (a selection's body, whose top value is
/// the result, or a Word's continuation), run once over the lowest base any
/// iteration had. The later iterations' completions are dropped: each would have
/// done the same to a stack the next one already replaced.
pub(super) struct TailCompletion {
    /// The Word's continuation; `None` for a selection's body.
    cont: Option<Box<dyn Resume>>,
    base: usize,
    word: WordId,
    pos: Option<Pos>,
}

/// Values a call made under KEEP consumed from below its start, to restore afterwards.
pub(super) struct KeepRecord {
    /// Low-water mark: no index below it has been popped by the call.
    watermark: usize,
    /// Values popped below the mark, in pop order (highest index first).
    saved: Vec<Value>,
}

/// The machine state of one program run (or of a REPL session).
pub struct Machine {
    /// The Core vocabulary names resolve in.
    pub(super) registry: &'static Registry,
    pub(super) stack: Vec<Value>,
    pub(super) frames: Vec<Frame>,
    dict: Dictionary,
    output: Vec<String>,
    pub(super) meter: Meter,
    pub(super) keeps: Vec<KeepRecord>,
    root_bindings: Bindings,
    /// Names DEF, BIND and DEL found valid in this run.
    name_checks: dict::NameChecks,
    /// Whether any frame may hold a binding: false until the first BIND (or a root run
    /// with persistent root bindings), so name lookups of programs that bind nothing
    /// skip the index.
    may_be_bound: bool,
    /// For every name ever bound, the frames binding it, innermost last. Entries of
    /// frames that have gone (or whose bindings were cleared) are removed when a lookup
    /// or a binding meets them, so a name resolves in amortized constant time however
    /// deep the frames nest (a walk over the frames made deep recursion through EXEC
    /// quadratic).
    binders: std::cell::RefCell<crate::memo::NamedTable<Arc<str>, Vec<Binder>>>,
    /// The barrier frames (the root and User Word calls), innermost last, as (depth,
    /// serial); entries of frames that have gone are removed when met.
    barriers: std::cell::RefCell<Vec<(usize, u64)>>,
    /// The serial the next frame gets.
    next_serial: u64,
    /// How deep in User Word calls the host's interrupt found the run, when deep enough
    /// to name (the answer to an interrupted run is the host's, and says so).
    interrupted_deep: Option<crate::outcome::DeepRecursion>,
}

/// What a name operation does, decided while the operation is borrowed.
enum NameStep {
    /// Push a binding in sight.
    Bound(Value),
    /// Call the User Word.
    Call(Arc<UserWord>),
    /// Start the running User Word over (a tail call).
    Tail,
    /// The name is unknown.
    Unknown(Name),
}

/// What a fused clause reader does, decided while the operation is borrowed.
pub(super) enum SelectStep {
    /// Select among the clauses read at compile time.
    Select(WordId, Arc<Clauses>),
    /// Push the clause blocks and run the clause reader as written.
    AsWritten(WordId, Vec<Value>),
}

impl Machine {
    /// A fresh machine (empty stack, dictionary and output) under `profile`, running
    /// the Core vocabulary of `registry` (hosts pass [`crate::word::registry`]).
    pub fn new(profile: Profile, registry: &'static Registry) -> Machine {
        Machine {
            registry,
            stack: Vec::new(),
            frames: Vec::new(),
            dict: Dictionary::new(registry),
            output: Vec::new(),
            meter: Meter::new(profile),
            keeps: Vec::new(),
            root_bindings: Vec::new(),
            name_checks: Default::default(),
            may_be_bound: false,
            binders: std::cell::RefCell::new(Default::default()),
            barriers: std::cell::RefCell::new(Vec::new()),
            next_serial: 0,
            interrupted_deep: None,
        }
    }

    /// How deep in User Word calls the run was when the host interrupted it, when at
    /// least [`crate::outcome::DeepRecursion::CALLS`] deep.
    pub fn interrupted_deep(&self) -> Option<&crate::outcome::DeepRecursion> {
        self.interrupted_deep.as_ref()
    }

    /// The open User Word calls and the innermost one's name. One walk over the frames,
    /// taken once when a run stops (no meter: the run has already stopped).
    #[cold]
    fn call_depth(&self) -> (usize, Option<Arc<str>>) {
        let mut depth = 0;
        let mut innermost = None;
        for f in self.frames.iter().rev() {
            if let Frame::Code(CodeFrame {
                kind: FrameKind::Word(w),
                ..
            }) = f
            {
                depth += 1;
                innermost.get_or_insert_with(|| w.name.clone());
            }
        }
        (depth, innermost)
    }

    /// A serial for a frame about to be opened.
    #[inline]
    pub(super) fn fresh_serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    /// Whether `b` still names a binding of `name`: its frame is the one that bound it
    /// and the slot still holds that name.
    fn binder_holds(&self, b: &Binder, name: &str) -> bool {
        match self.frames.get(b.frame) {
            Some(Frame::Code(f)) if f.serial == b.serial => f
                .bindings
                .as_ref()
                .and_then(|bs| bs.get(b.slot))
                .is_some_and(|(n, _)| &**n == name),
            _ => false,
        }
    }

    /// The depth of the innermost barrier frame (the root or a User Word call): the
    /// lowest frame whose bindings the running code can see.
    fn barrier_depth(&self) -> usize {
        let mut barriers = self.barriers.borrow_mut();
        while let Some(&(depth, serial)) = barriers.last() {
            match self.frames.get(depth) {
                Some(Frame::Code(f)) if f.serial == serial && f.kind.is_barrier() => return depth,
                _ => {
                    barriers.pop();
                }
            }
        }
        0
    }

    /// Record that the top frame binds `name` in `slot`.
    fn index_binding(&mut self, name: Arc<str>, slot: usize) {
        let frame = self.frames.len() - 1;
        let serial = match self.frames.last() {
            Some(Frame::Code(f)) => f.serial,
            _ => return,
        };
        self.binders
            .get_mut()
            .entry(name)
            .or_default()
            .push(Binder {
                frame,
                serial,
                slot,
            });
    }

    /// The stack, bottom to top.
    pub fn stack(&self) -> &[Value] {
        &self.stack
    }

    /// The output lines so far.
    pub fn output(&self) -> &[String] {
        &self.output
    }

    /// Take the stack and the output lines out of the machine (a report keeps them
    /// without copying them).
    pub fn take_results(&mut self) -> (Vec<Value>, Vec<String>) {
        (
            std::mem::take(&mut self.stack),
            std::mem::take(&mut self.output),
        )
    }

    /// The meters.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// The Core vocabulary this machine runs.
    pub fn registry(&self) -> &'static Registry {
        self.registry
    }

    /// The meters, mutably (hosts attach the interrupt flag here).
    pub fn meter_mut(&mut self) -> &mut Meter {
        &mut self.meter
    }

    /// The User dictionary.
    pub fn dictionary(&self) -> &Dictionary {
        &self.dict
    }

    /// The User dictionary, mutably (hosts define prelude Words here).
    pub fn dictionary_mut(&mut self) -> &mut Dictionary {
        &mut self.dict
    }

    /// Parse `source` under this machine's profile and run it as a continuation of
    /// the current state (stack, dictionary and root bindings persist).
    pub fn run_source(&mut self, source: &str) -> Result<(), Halt> {
        self.run_source_from(source, 1)
    }

    /// [`Machine::run_source`] of a source whose first line is line `first_line` of a
    /// longer text (a `repl` session): positions count from there.
    pub fn run_source_from(&mut self, source: &str, first_line: u32) -> Result<(), Halt> {
        let program = crate::compile::parse_tree_metered(source, &mut self.meter, 0, first_line)?;
        self.run_program(&program)
    }

    /// Run a parsed program in the root frame.
    pub fn run_program(&mut self, program: &Program) -> Result<(), Halt> {
        self.run_block_as_root(program.block.clone())
    }

    /// Run `block` in a fresh root frame (a barrier with the persistent root bindings).
    pub fn run_block_as_root(&mut self, block: Arc<Block>) -> Result<(), Halt> {
        debug_assert!(self.frames.is_empty());
        let code = compile(&block, &mut self.meter, self.registry)?;
        let bindings = std::mem::take(&mut self.root_bindings);
        self.may_be_bound |= !bindings.is_empty();
        let names: Vec<Arc<str>> = bindings.iter().map(|(n, _)| n.clone()).collect();
        let serial = self.fresh_serial();
        self.frames.push(Frame::Code(CodeFrame {
            code,
            pc: 0,
            kind: FrameKind::Root,
            bindings: Some(Box::new(bindings)),
            keep: false,
            floor: 0,
            tail_of: false,
            tail: None,
            keep_record: false,
            serial,
        }));
        self.barriers
            .get_mut()
            .push((self.frames.len() - 1, serial));
        for (slot, name) in names.into_iter().enumerate() {
            self.index_binding(name, slot);
        }
        let result = self.run_loop();
        if let Err(mut halt) = result {
            match &mut halt {
                Halt::Error(e) => e.trace = e.trace.take().or_else(|| self.call_trace()),
                Halt::Interrupted(_) => {
                    if let (depth, Some(word)) = self.call_depth() {
                        self.interrupted_deep = crate::outcome::DeepRecursion::of(word, depth);
                    }
                }
            }
            self.unwind_all();
            return Err(halt);
        }
        Ok(())
    }

    /// The User Word calls the frames stand in, innermost first (`error.trace`, MCP-33;
    /// docs/mcp/envelope.md); `None` at top level. Two walks over the frames, so a deep
    /// recursion costs no memory beyond the calls shown; they tick the meter a frame at a
    /// time (a hundred thousand frames take milliseconds), and an interrupted walk gives
    /// no trace — the run is then answered by what interrupted it, not by this error.
    #[cold]
    fn call_trace(&self) -> Option<Box<Trace>> {
        let interrupted = std::cell::Cell::new(false);
        let word_frames = || {
            self.frames
                .iter()
                .enumerate()
                .rev()
                .take_while(|_| {
                    if self.meter.tick(1).is_err() {
                        interrupted.set(true);
                    }
                    !interrupted.get()
                })
                .filter_map(|(i, f)| match f {
                    Frame::Code(CodeFrame {
                        kind: FrameKind::Word(w),
                        ..
                    }) => Some((i, w)),
                    _ => None,
                })
        };
        // A Word frame is pushed over the frame whose name operation called it, and
        // that frame does not move on until the call returns: its pc - 1 is the call.
        let site = |(i, w): (usize, &Arc<UserWord>)| CallSite {
            word: w.name.clone(),
            pos: i
                .checked_sub(1)
                .and_then(|below| executing_pos(&self.frames[below])),
            body_origin: w
                .body
                .items()
                .iter()
                .find_map(Item::pos)
                .map_or(0, |p| p.origin),
        };
        let depth = word_frames().count();
        if depth == 0 || interrupted.get() {
            return None;
        }
        let shown = if depth > TRACE_MAX_CALLS {
            TRACE_MAX_CALLS - 1
        } else {
            depth
        };
        let mut calls: Vec<CallSite> = word_frames().take(shown).map(site).collect();
        calls.extend(
            word_frames()
                .nth(depth - 1)
                .filter(|_| depth > shown)
                .map(site),
        );
        if interrupted.get() {
            return None;
        }
        let omitted = depth - calls.len();
        Some(Box::new(Trace { calls, omitted }))
    }

    /// Run operations until no frame is left. Each step reads its operation from the
    /// top frame anew, taking out what it needs (an id, a value to push) before it
    /// runs: no reference count is taken on the frame's code, whatever the step does
    /// to the frames.
    fn run_loop(&mut self) -> Result<(), Halt> {
        loop {
            let (op, at_block_end) = match self.frames.last() {
                None => return Ok(()),
                Some(Frame::Code(f)) => {
                    let ops = f.code.ops();
                    let pc = f.pc as usize;
                    match ops.get(pc) {
                        Some(op) => (op, pc + 1 == ops.len()),
                        None => {
                            self.finish_frame()?;
                            continue;
                        }
                    }
                }
                Some(Frame::Native { .. }) => {
                    unreachable!("a native frame is never on top while running")
                }
            };
            let pos = op.pos;
            // Every arm takes what it needs from `op` first, then moves the pc past
            // it (an error names the operation at pc - 1), then runs.
            match &op.kind {
                OpKind::Push(v) => {
                    let v = v.clone();
                    self.advance();
                    push_slot(&mut self.stack, v);
                }
                OpKind::Keep => {
                    let f = self.top_code_mut();
                    f.pc += 1;
                    f.keep = true;
                }
                OpKind::Core(id) => {
                    let id = *id;
                    self.advance();
                    self.dispatch_core(id, pos, at_block_end)?;
                }
                OpKind::PushThenCore(v, id) => {
                    let (v, id) = (v.clone(), *id);
                    self.advance();
                    push_slot(&mut self.stack, v);
                    self.dispatch_core(id, pos, at_block_end)?;
                }
                OpKind::PushIntThenPair(v, id) => {
                    let (v, id) = (v.clone(), *id);
                    self.advance();
                    if !self.literal_int_pair(&v, id, pos)? {
                        push_slot(&mut self.stack, v);
                        self.dispatch_core(id, pos, at_block_end)?;
                    }
                }
                OpKind::Name(name) => {
                    let step = self.resolve_name(name, at_block_end);
                    self.advance();
                    self.call_name(step, pos)?;
                }
                OpKind::Select(fused) => {
                    let step = self.resolve_select(fused);
                    self.advance();
                    self.select(step, pos, at_block_end)?;
                }
                OpKind::Vent => {
                    self.advance();
                    if self.stack.len() <= self.top_code().floor {
                        return Err(self
                            .locate(
                                err::stack_underflow("VENT (^) needs a value on the stack"),
                                pos,
                            )
                            .into());
                    }
                    if let Some(Value::Nil(_)) = self.stack.last() {
                        self.pop();
                    } else if !self.before_split_bar() {
                        // Skip the next unit (a split clause's guard has none left).
                        self.advance();
                    }
                }
                OpKind::Bar => {
                    self.advance();
                    if let Some(next) = self.split_guard_reached_bar() {
                        next?;
                    } else {
                        return Err(self.bar_outside_clauses(pos));
                    }
                }
            }
        }
    }

    /// Move the top frame's pc to its next operation.
    #[inline(always)]
    fn advance(&mut self) {
        if let Some(Frame::Code(f)) = self.frames.last_mut() {
            f.pc += 1;
        }
    }

    /// The floor of the top code frame (0 when none is open).
    #[inline]
    fn current_floor(&self) -> usize {
        match self.frames.last() {
            Some(Frame::Code(f)) => f.floor,
            _ => 0,
        }
    }

    pub(super) fn top_code(&self) -> &CodeFrame {
        match self.frames.last() {
            Some(Frame::Code(f)) => f,
            _ => unreachable!("the top frame is a code frame while items run"),
        }
    }

    pub(super) fn top_code_mut(&mut self) -> &mut CodeFrame {
        match self.frames.last_mut() {
            Some(Frame::Code(f)) => f,
            _ => unreachable!("the top frame is a code frame while items run"),
        }
    }

    /// Whether the next operation of the top frame is the `|` ending a split
    /// clause's guard.
    fn before_split_bar(&self) -> bool {
        let f = self.top_code();
        matches!(&f.kind, FrameKind::Clause(run) if run.target.is_some()
            && matches!(run.clauses[run.index], Clause::Split { .. }))
            && matches!(
                f.code.ops().get(f.pc as usize),
                Some(Op {
                    kind: OpKind::Bar,
                    ..
                })
            )
    }

    #[cold]
    fn bar_outside_clauses(&self, pos: Option<Pos>) -> Halt {
        self.locate(
            err::malformed(format!(
                "'|' separates {c} clauses and is valid only in a block given to {c}",
                c = self.registry.clause_reader_name()
            )),
            pos,
        )
        .into()
    }

    /// What a name operation will do, decided before it runs (bindings and the
    /// dictionary are only read).
    fn resolve_name(&self, name: &Name, at_block_end: bool) -> NameStep {
        if let Some(v) = self.lookup_binding(&name.normalized) {
            return NameStep::Bound(v);
        }
        let Some(w) = self.dict.get_named(name) else {
            return NameStep::Unknown(name.clone());
        };
        // Tail call: the last token of a block in tail position (a clause body)
        // calling the very Word whose frame lies beneath it. That frame already runs
        // the Word's body: it starts over.
        let top = self.top_code();
        if at_block_end && !top.keep && top.tail_of && self.is_running_word(w) {
            NameStep::Tail
        } else {
            NameStep::Call(w.clone())
        }
    }

    /// Run a name operation as [`Machine::resolve_name`] decided.
    fn call_name(&mut self, step: NameStep, pos: Option<Pos>) -> Result<(), Halt> {
        match step {
            NameStep::Bound(v) => {
                push_slot(&mut self.stack, v);
                self.top_code_mut().keep = false;
                Ok(())
            }
            NameStep::Unknown(name) => Err(self.unknown_name(&name, pos)),
            NameStep::Tail => {
                self.top_code_mut().keep = false;
                if let Err(h) = self.meter.step() {
                    let name = self.running_word_name();
                    return Err(self.attribute(h, &name, pos));
                }
                self.tail_iterate();
                Ok(())
            }
            NameStep::Call(w) => {
                let keep = std::mem::take(&mut self.top_code_mut().keep);
                if let Err(h) = self.meter.step() {
                    return Err(self.attribute(h, &w.name, pos));
                }
                self.call_user(w, pos, keep)
            }
        }
    }

    /// The name of the User Word whose frame lies beneath the top block.
    #[cold]
    fn running_word_name(&self) -> Arc<str> {
        self.frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Code(CodeFrame {
                    kind: FrameKind::Word(w),
                    ..
                }) => Some(w.name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "".into())
    }

    pub(super) fn dispatch_core(
        &mut self,
        id: WordId,
        pos: Option<Pos>,
        at_block_end: bool,
    ) -> Result<(), Halt> {
        let spec = self.registry.spec(id);
        let (keep, floor, tail) = {
            let f = self.top_code_mut();
            let tail = at_block_end && matches!(f.kind, FrameKind::Word(_));
            (std::mem::take(&mut f.keep), f.floor, tail)
        };
        if let Err(h) = self.meter.step() {
            return Err(self.attribute(h, spec.name, pos));
        }
        if let Some(pair) = &spec.int_pair {
            if !keep {
                if let Some(done) = self.try_int_pair(pair, floor) {
                    return done.map_err(|h| self.attribute(h, spec.name, pos));
                }
            }
        }
        let mut ctx = Ctx {
            m: self,
            keep,
            word: id,
            pos,
            tail,
            floor,
        };
        crate::limits::report_word(spec.name, true, &ctx.m.meter);
        let flow = match ctx.generic_nil_policy(spec) {
            Ok(true) => Ok(Flow::Done),
            Ok(false) => (spec.exec)(&mut ctx),
            Err(e) => Err(e),
        };
        crate::limits::report_word(spec.name, false, &ctx.m.meter);
        let tail = ctx.tail;
        if let Ok(Flow::Done) = &flow {
            // Done owns nothing: skip the drop glue of the whole result.
            std::mem::forget(flow);
            return Ok(());
        }
        match flow {
            Ok(flow) => self.apply_flow(flow, id, pos, tail),
            Err(h) => Err(self.attribute(h, spec.name, pos)),
        }
    }

    /// A Word's [`IntPair`] shortcut on the top two values, when both are integers
    /// that fit `i64` above `floor` and no KEEP record watches the stack: `None` when
    /// the shortcut does not apply (nothing was changed or charged), else the step's
    /// end. Integer results wider than a `bigintBits` ceiling below 64 take `exec`.
    #[inline]
    fn try_int_pair(&mut self, pair: &IntPair, floor: usize) -> Option<Result<(), Halt>> {
        let len = self.stack.len();
        if len < floor + 2 || !self.keeps.is_empty() {
            return None;
        }
        let (Value::Number(x), Value::Number(y)) = (&self.stack[len - 2], &self.stack[len - 1])
        else {
            return None;
        };
        let value = self.int_pair_value(pair, x.small_int()?, y.small_int()?)?;
        if let Err(h) = self.charge_int_pair_work(pair) {
            return Some(Err(h));
        }
        // The step just charged polled the interrupt, as `exec` would.
        if let Some(v) = self.stack.pop() {
            v.discard();
        }
        std::mem::replace(&mut self.stack[len - 2], value).discard();
        Some(Ok(()))
    }

    /// The value an [`IntPair`] shortcut leaves for `a b`, or `None` when `exec` must
    /// decide (the shortcut declines, or an integer result meets a `bigintBits` ceiling
    /// below 64).
    #[inline]
    fn int_pair_value(&self, pair: &IntPair, a: i64, b: i64) -> Option<Value> {
        match (pair.apply)(a, b)? {
            IntPairResult::Int(i) => {
                (self.meter.profile().bigint_bits >= 64).then(|| Value::num(i))
            }
            IntPairResult::Bool(b) => Some(Value::Bool(b)),
        }
    }

    /// The work an [`IntPair`] shortcut charges (what `exec` would).
    #[inline]
    fn charge_int_pair_work(&mut self, pair: &IntPair) -> Result<(), Halt> {
        if pair.numeric_work > 0 {
            self.meter.charge_numeric(pair.numeric_work)?;
        }
        if pair.collection_work > 0 {
            self.meter.charge_collection(pair.collection_work)?;
        }
        Ok(())
    }

    /// `literal WORD` by the Word's [`IntPair`] shortcut with the value beneath, without
    /// pushing the literal, when the shortcut applies (see [`Machine::try_int_pair`]):
    /// `Ok(true)` when the step is done (charged as a dispatch would), `Ok(false)` when
    /// nothing was changed or charged and the caller dispatches as written.
    #[inline]
    fn literal_int_pair(
        &mut self,
        literal: &Value,
        id: WordId,
        pos: Option<Pos>,
    ) -> Result<bool, Halt> {
        let spec = self.registry.spec(id);
        let (Some(pair), Value::Number(b)) = (&spec.int_pair, literal) else {
            return Ok(false);
        };
        let f = self.top_code();
        if f.keep || !self.keeps.is_empty() || self.stack.len() <= f.floor {
            return Ok(false);
        }
        let Some(Value::Number(a)) = self.stack.last() else {
            return Ok(false);
        };
        let (Some(a), Some(b)) = (a.small_int(), b.small_int()) else {
            return Ok(false);
        };
        let Some(value) = self.int_pair_value(pair, a, b) else {
            return Ok(false);
        };
        // What `dispatch_core` and the Word's `exec` would charge, in their order.
        let charged = self
            .meter
            .step()
            .and_then(|()| self.charge_int_pair_work(pair));
        if let Err(h) = charged {
            // A refused step stands where the dispatch would: after the push.
            push_slot(&mut self.stack, literal.clone());
            return Err(self.attribute(h, spec.name, pos));
        }
        if let Some(top) = self.stack.last_mut() {
            std::mem::replace(top, value).discard();
        }
        Ok(true)
    }

    /// The error of a name that is neither bound in sight nor a User Word.
    #[cold]
    fn unknown_name(&self, name: &Name, pos: Option<Pos>) -> Halt {
        let mut e = err::unknown_word(&name.written);
        if self.is_bound_anywhere(&name.normalized) {
            e.message.push_str(&format!(
                "; {} is bound in another frame that this code cannot see (a User Word body sees only its own bindings)",
                name.written
            ));
        } else {
            e = e.suggesting_near(&*name.written);
        }
        self.locate(e, pos).into()
    }

    /// Whether the User Word frame beneath the top block (past a Word's
    /// continuation) runs `w`.
    fn is_running_word(&self, w: &Arc<UserWord>) -> bool {
        let below = self.frames[..self.frames.len() - 1]
            .iter()
            .rev()
            .find(|f| matches!(f, Frame::Code(_)));
        matches!(below, Some(Frame::Code(CodeFrame { kind: FrameKind::Word(running), .. })) if Arc::ptr_eq(running, w))
    }

    /// Call User Word `w` (the step is charged): a new barrier frame over its body.
    fn call_user(&mut self, w: Arc<UserWord>, pos: Option<Pos>, keep: bool) -> Result<(), Halt> {
        let body = match self.code_of(&w.body) {
            Ok(b) => b,
            Err(e) => return Err(self.attribute(e, &w.name, pos)),
        };
        let floor = self.top_code().floor;
        let keep_record = keep;
        if keep {
            self.keeps.push(KeepRecord {
                watermark: self.stack.len(),
                saved: Vec::new(),
            });
        }
        let serial = self.fresh_serial();
        self.frames.push(Frame::Code(CodeFrame {
            code: body,
            pc: 0,
            kind: FrameKind::Word(w),
            bindings: None,
            keep: false,
            floor,
            tail_of: false,
            tail: None,
            keep_record,
            serial,
        }));
        self.barriers
            .get_mut()
            .push((self.frames.len() - 1, serial));
        Ok(())
    }

    /// Replace the clause body frame and its continuation by a fresh iteration of
    /// the running User Word (constant memory, same observations).
    fn tail_iterate(&mut self) {
        let (base, kind) = match self.frames.last_mut() {
            Some(Frame::Code(f)) => (f.floor, std::mem::replace(&mut f.kind, FrameKind::Block)),
            _ => unreachable!("a tail call runs in a clause body frame"),
        };
        self.frames.truncate(self.frames.len() - 1);
        let replaced = match kind {
            FrameKind::Clause(run) => TailCompletion {
                cont: None,
                base,
                word: run.word,
                pos: run.pos,
            },
            _ => match self.frames.pop() {
                Some(Frame::Native {
                    cont, word, pos, ..
                }) => TailCompletion {
                    cont: Some(cont),
                    base,
                    word,
                    pos,
                },
                _ => unreachable!("a block in tail position sits on the continuation that ran it"),
            },
        };
        let f = self.top_code_mut();
        debug_assert!(matches!(f.kind, FrameKind::Word(_)));
        f.pc = 0;
        if f.bindings.is_some() {
            f.bindings = None;
        }
        f.keep = false;
        f.floor = base;
        match &mut f.tail {
            Some(owed) => owed.base = owed.base.min(base),
            None => f.tail = Some(Box::new(replaced)),
        }
    }

    fn apply_flow(
        &mut self,
        flow: Flow,
        word: WordId,
        pos: Option<Pos>,
        tail: bool,
    ) -> Result<(), Halt> {
        let run = match flow {
            Flow::Done => return Ok(()),
            Flow::Run(run) => run,
            Flow::Select(selection) => return self.start_selection(selection, word, pos, tail),
        };
        let Run {
            block,
            isolated_base,
            then,
            keep_restore,
            tail_of,
        } = run;
        let name = self.registry.spec(word).name;
        let result = if block.bar_count() > 0 {
            Err(err::malformed(format!(
                "a block containing '|' can only be given to {c}; split the clauses or use {c}",
                c = self.registry.clause_reader_name()
            ))
            .into())
        } else {
            compile(&block, &mut self.meter, self.registry)
        };
        let code = match result {
            Ok(b) => b,
            Err(e) => {
                // The block never started: let the continuation restore the stack.
                let e = self.attribute(e, name, pos);
                if let Some(cont) = then {
                    let base = isolated_base.unwrap_or(self.stack.len());
                    let mut ctx = Ctx {
                        floor: self.current_floor(),
                        m: self,
                        keep: false,
                        word,
                        pos,
                        tail: false,
                    };
                    cont.unwind(&mut ctx, base);
                }
                return Err(e);
            }
        };
        let floor = isolated_base.unwrap_or_else(|| self.top_code().floor);
        let base = isolated_base.unwrap_or(self.stack.len());
        if let Some(cont) = then {
            self.frames.push(Frame::Native {
                cont,
                base,
                word,
                pos,
            });
        }
        if keep_restore {
            self.keeps.push(KeepRecord {
                watermark: self.stack.len(),
                saved: Vec::new(),
            });
        }
        let serial = self.fresh_serial();
        self.frames.push(Frame::Code(CodeFrame {
            code,
            pc: 0,
            kind: FrameKind::Block,
            bindings: None,
            keep: false,
            floor,
            tail_of: tail_of.is_some(),
            tail: None,
            keep_record: keep_restore,
            serial,
        }));
        Ok(())
    }

    fn finish_frame(&mut self) -> Result<(), Halt> {
        if let Some(Frame::Code(CodeFrame {
            kind: FrameKind::Clause(_),
            ..
        })) = self.frames.last()
        {
            return self.finish_clause();
        }
        let Some(Frame::Code(f)) = self.frames.pop() else {
            unreachable!("finish_frame runs on a code frame")
        };
        if let FrameKind::Root = f.kind {
            self.root_bindings = f.bindings.map(|b| *b).unwrap_or_default();
            return Ok(());
        }
        if let Some(owed) = f.tail {
            let TailCompletion {
                cont,
                base,
                word,
                pos,
            } = *owed;
            match cont {
                Some(cont) => self.resume_continuation(cont, base, word, pos)?,
                None => self.take_clause_result(base, word, pos)?,
            }
        }
        if f.keep_record {
            let rec = self
                .keeps
                .pop()
                .expect("a keep record belongs to this frame");
            let results = self.stack.split_off(rec.watermark.min(self.stack.len()));
            self.stack.extend(rec.saved.into_iter().rev());
            self.stack.extend(results);
        }
        if let Some(Frame::Native { .. }) = self.frames.last() {
            let Some(Frame::Native {
                cont,
                base,
                word,
                pos,
            }) = self.frames.pop()
            else {
                unreachable!()
            };
            self.resume_continuation(cont, base, word, pos)?;
        }
        Ok(())
    }

    /// Resume a Word's continuation over `stack[base..]` and do what it asks next.
    fn resume_continuation(
        &mut self,
        cont: Box<dyn Resume>,
        base: usize,
        word: WordId,
        pos: Option<Pos>,
    ) -> Result<(), Halt> {
        let mut ctx = Ctx {
            floor: self.current_floor(),
            m: self,
            keep: false,
            word,
            pos,
            tail: false,
        };
        let name = ctx.m.registry.spec(word).name;
        crate::limits::report_word(name, true, &ctx.m.meter);
        let flow = cont.resume(&mut ctx, base);
        crate::limits::report_word(name, false, &self.meter);
        let flow = flow.map_err(|h| self.attribute(h, name, pos))?;
        self.apply_flow(flow, word, pos, false)
    }

    /// The compiled form of a block (compiled now, and charged, when it has not been).
    #[inline]
    pub(super) fn code_of(&mut self, block: &Arc<Block>) -> Result<Arc<Code>, Halt> {
        match block.compiled() {
            Some(code) => Ok(code.clone()),
            None => compile(block, &mut self.meter, self.registry),
        }
    }

    /// Let a continuation abandoned by an error restore the stack over `stack[base..]`.
    fn unwind_continuation(
        &mut self,
        cont: Box<dyn Resume>,
        base: usize,
        word: WordId,
        pos: Option<Pos>,
    ) {
        let mut ctx = Ctx {
            floor: self.current_floor(),
            m: self,
            keep: false,
            word,
            pos,
            tail: false,
        };
        cont.unwind(&mut ctx, base);
    }

    /// Pop every frame after an error, letting continuations restore the stack.
    fn unwind_all(&mut self) {
        // The bindings of the frames unwound are freed once the run has answered: a
        // recursion 50,000 deep frees as many small blocks, and glibc's `malloc` sorts
        // blocks freed in a row all at once at the next allocation it cannot serve from a
        // cache — a gap of milliseconds between two checks of the render that follows.
        let mut fallen: Vec<Box<Bindings>> = Vec::new();
        self.unwind_frames(&mut fallen);
        crate::value::free_after_run(fallen);
    }

    /// [`Machine::unwind_all`]'s walk, moving every non-root frame's bindings to `fallen`.
    // Boxed as the frames hold them: unboxing would free each box here, the very frees
    // this defers.
    #[allow(clippy::vec_box)]
    fn unwind_frames(&mut self, fallen: &mut Vec<Box<Bindings>>) {
        while let Some(mut frame) = self.frames.pop() {
            if let Frame::Code(f) = &mut frame {
                if !matches!(f.kind, FrameKind::Root) {
                    if let Some(b) = f.bindings.take() {
                        fallen.push(b);
                    }
                }
            }
            // Unwinding a deep recursion is work too; once the host has stopped the run
            // nothing of its state is read again, so the rest is left unrestored — and
            // freed after the answer like the bindings: dropping a recursion 200,000
            // frames deep here held a stopped run's slot for 60 ms.
            if self.meter.tick(1).is_err() {
                drop(frame);
                crate::value::free_after_run(std::mem::take(&mut self.frames));
                break;
            }
            match frame {
                Frame::Code(f) => {
                    if f.keep_record {
                        self.keeps.pop();
                    }
                    if let Some(owed) = f.tail {
                        let TailCompletion {
                            cont,
                            base,
                            word,
                            pos,
                        } = *owed;
                        match cont {
                            Some(cont) => self.unwind_continuation(cont, base, word, pos),
                            None => self.truncate_to(base),
                        }
                    }
                    match f.kind {
                        FrameKind::Root => {
                            self.root_bindings = f.bindings.map(|b| *b).unwrap_or_default();
                        }
                        // A selection abandoned by an error leaves the stack at its base.
                        FrameKind::Clause(_) => self.truncate_to(f.floor),
                        _ => {}
                    }
                }
                Frame::Native {
                    cont,
                    base,
                    word,
                    pos,
                } => self.unwind_continuation(cont, base, word, pos),
            }
        }
        self.keeps.clear();
    }

    /// Attach the responsible Word and position to an error (first attribution wins).
    pub(super) fn attribute(&self, h: Halt, word: &str, pos: Option<Pos>) -> Halt {
        match h {
            Halt::Error(e) => {
                let located = self.locate(e, pos);
                Halt::Error(located.with_word(word))
            }
            other => other,
        }
    }

    fn locate(&self, e: LangError, pos: Option<Pos>) -> LangError {
        if e.pos.is_some() {
            return e;
        }
        let p = self.responsible_pos(pos);
        e.at(p)
    }

    /// The position to report: the token's own when it is in the caller's source,
    /// else the innermost enclosing token that is.
    fn responsible_pos(&self, pos: Option<Pos>) -> Option<Pos> {
        if let Some(p) = pos.filter(|p| p.is_caller_source()) {
            return Some(p);
        }
        self.frames
            .iter()
            .rev()
            .find_map(|frame| executing_pos(frame).filter(|p| p.is_caller_source()))
    }

    /// Pop the top value, recording it for every active call under KEEP whose
    /// low-water mark it goes below (docs/reference/keep.md: the lowest depth the call reached,
    /// nested calls included). Marks are non-decreasing from outer to inner
    /// records, so the records to update form a suffix of `keeps`.
    #[inline]
    pub(super) fn pop(&mut self) -> Value {
        let v = self
            .stack
            .pop()
            .expect("callers check the stack depth first");
        let len = self.stack.len();
        for rec in self.keeps.iter_mut().rev() {
            if len >= rec.watermark {
                break;
            }
            rec.saved.push(v.clone());
            rec.watermark = len;
        }
        v
    }

    pub(super) fn truncate_to(&mut self, len: usize) {
        if self.keeps.is_empty() {
            while self.stack.len() > len {
                if let Some(v) = self.stack.pop() {
                    v.discard();
                }
            }
            return;
        }
        while self.stack.len() > len {
            self.pop();
        }
    }

    /// Drop the top `n` values (recorded for KEEP like [`Machine::pop`]). The caller
    /// checked the depth.
    #[inline]
    fn drop_top(&mut self, n: usize) {
        self.truncate_to(self.stack.len().saturating_sub(n));
    }

    /// The value `name` (normalized) is bound to in sight of the running code: the
    /// innermost binding of the name, when its frame lies at or above the innermost
    /// barrier (docs/reference/frames.md#bind). Stale index entries met on the way are
    /// dropped, so the lookup is amortized constant time.
    fn lookup_binding(&self, name: &str) -> Option<Value> {
        if !self.may_be_bound {
            return None;
        }
        let b = self.innermost_binder(name)?;
        if b.frame < self.barrier_depth() {
            return None;
        }
        match &self.frames[b.frame] {
            Frame::Code(f) => f.bindings.as_ref().map(|bs| bs[b.slot].1.clone()),
            Frame::Native { .. } => None,
        }
    }

    /// The innermost live binder of `name`, dropping the stale ones above it.
    fn innermost_binder(&self, name: &str) -> Option<Binder> {
        let mut binders = self.binders.borrow_mut();
        let stack = binders.get_mut(name)?;
        while let Some(b) = stack.last() {
            if self.binder_holds(b, name) {
                return Some(*b);
            }
            stack.pop();
        }
        binders.remove(name);
        None
    }

    /// Bind `name` (normalized) to `value` in the top frame: the binding of that name
    /// the frame holds is replaced, else one is added and indexed.
    pub(super) fn bind_in_top(&mut self, name: Arc<str>, value: Value) {
        self.may_be_bound = true;
        let top = self.frames.len() - 1;
        if let Some(b) = self.innermost_binder(&name) {
            if b.frame == top {
                if let Some(Frame::Code(f)) = self.frames.last_mut() {
                    if let Some(bs) = f.bindings.as_mut() {
                        bs[b.slot].1 = value;
                        return;
                    }
                }
            }
        }
        let f = self.top_code_mut();
        let bs = f.bindings.get_or_insert_with(Default::default);
        bs.push((name.clone(), value));
        let slot = bs.len() - 1;
        self.index_binding(name, slot);
    }

    fn is_bound_anywhere(&self, name: &str) -> bool {
        self.frames.iter().any(|f| match f {
            Frame::Code(c) => c
                .bindings
                .as_ref()
                .is_some_and(|b| b.iter().any(|(n, _)| &**n == name)),
            _ => false,
        })
    }
}

/// A machine's values, frames, name index, dictionary and output go away after the run
/// has answered when its host keeps leftovers ([`crate::value::free_after_run`]): a
/// dictionary of a hundred thousand Words, a stack of as many values or the frames of a
/// recursion that deep take milliseconds to free, with no check in between.
impl Drop for Machine {
    fn drop(&mut self) {
        let stack = std::mem::take(&mut self.stack);
        let frames = std::mem::take(&mut self.frames);
        let keeps = std::mem::take(&mut self.keeps);
        let bound = std::mem::take(&mut self.root_bindings);
        let binders = std::mem::take(self.binders.get_mut());
        let barriers = std::mem::take(self.barriers.get_mut());
        let dict = std::mem::replace(&mut self.dict, Dictionary::new(self.registry));
        let output = std::mem::take(&mut self.output);
        crate::value::free_after_run((
            stack, frames, keeps, bound, binders, barriers, dict, output,
        ));
    }
}

/// The position of the operation a frame is executing: a code frame's at pc - 1 (the
/// pc moves past an operation before it runs), a continuation's Word's.
fn executing_pos(frame: &Frame) -> Option<Pos> {
    match frame {
        Frame::Code(f) => (f.pc as usize)
            .checked_sub(1)
            .and_then(|i| f.code.ops().get(i))
            .and_then(|op| op.pos),
        Frame::Native { pos, .. } => *pos,
    }
}

/// Push a slot, growing the stack by bounded steps once it is big
/// ([`crate::limits::grow_vec`]): a stack of millions of slots never reserves twice its
/// size at once, so the host's memory ceiling holds within its allowed overshoot.
#[inline(always)]
pub(super) fn push_slot(stack: &mut Vec<Value>, v: Value) {
    if stack.len() == stack.capacity() {
        grow_stack(stack);
    }
    stack.push(v);
}

/// The rare half of [`push_slot`], kept out of line so the common push inlines.
#[cold]
#[inline(never)]
fn grow_stack(stack: &mut Vec<Value>) {
    crate::limits::grow_vec(stack, 1);
}
