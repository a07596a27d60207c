//! Clause selection: the protocol of the Word whose role is
//! [`Role::ReadsClauses`](crate::word::Role::ReadsClauses) (COND in the Core vocabulary).
//!
//! The Word hands its clause blocks and target to the machine; the machine runs each
//! guard on the target in an isolated frame and the first that leaves TRUE selects
//! its body, whose top value is the result (docs/reference/frames.md#isolation-of-block-frames).
//! Reading the clauses lives here, once, for the Word's own call and for the compiled form, which
//! reads the clauses of literal blocks just before the Word when it compiles them, so a loop does
//! not split the same blocks again on every call. Messages take the reader's name and its
//! else-guard from the registry: core names no Word. The second half of this file is the
//! machine's side of the protocol: running guards and the chosen body on its frames.

use crate::code::{Block, Item};
use crate::compile::OpKind;
use crate::compile::{Code, FusedSelection};
use crate::limits::Halt;
use crate::machine::{push_slot, ClauseRun, CodeFrame, Frame, FrameKind, Machine, SelectStep};
use crate::outcome::{err, LangError, Pos};
use crate::value::Value;
use crate::word::WordId;
use smallvec::SmallVec;
use std::sync::Arc;

/// One clause: a guard, run on the target, and the body run when it leaves TRUE.
#[derive(Debug)]
pub enum Clause {
    /// `{ guard | body }` already compiled whole: the guard runs up to the `|` and
    /// the body after it, in one frame (a loop's clause costs no second frame).
    Split {
        /// The clause block.
        block: Arc<Block>,
        /// Whether the guard is the else-guard (the body runs at once).
        else_guard: bool,
    },
    /// A guard block and a body block, compiled apart when each first runs (pair
    /// style, or the halves of a clause block not compiled yet).
    Pair {
        /// The guard; `None` for the else-guard.
        guard: Option<Arc<Block>>,
        /// The body.
        body: Arc<Block>,
    },
}

/// The clauses of one selection, in order (inline for the common few).
pub type Clauses = SmallVec<[Clause; 3]>;

/// A selection the machine runs: the clauses and the target their guards and the
/// chosen body see ([`crate::Ctx::select_clauses`] builds it).
pub struct Selection {
    pub(crate) clauses: Arc<Clauses>,
    pub(crate) target: Value,
}

/// How the clause reader is called in messages, and its always-true guard.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    /// The reader's name (`COND`).
    pub name: &'a str,
    /// The spelling of the always-true guard (`IDLE`).
    pub else_guard: &'a str,
}

/// Whether a run of tokens is exactly the else-guard.
fn is_else_guard(items: &[Item], else_guard: &str) -> bool {
    let mut it = items.iter().filter(|i| !i.is_line_break());
    matches!((it.next(), it.next()), (Some(Item::Name { name, .. }), None) if &*name.normalized == else_guard)
}

/// Read clause blocks (bottom to top) into clauses, per docs/words/control.md#cond: every
/// block `{ guard | body }`, or none with a `|` and the blocks taken in pairs.
pub fn read(blocks: &[Arc<Block>], reader: Reader<'_>) -> Result<Clauses, LangError> {
    let Reader { name, else_guard } = reader;
    let with_bar = blocks.iter().filter(|b| b.bar_count() > 0).count();
    if with_bar == blocks.len() {
        let mut out = Clauses::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            let halves = b.halves().filter(|_| b.bar_count() == 1);
            let Some((g, body)) = halves.filter(|(g, b)| !g.is_empty() && !b.is_empty()) else {
                return Err(err::invalid_argument(format!(
                    "{name} clause {} must be `{{ guard | body }}` with exactly one '|' and tokens on both sides",
                    i + 1
                )));
            };
            let else_guard = is_else_guard(g.items(), else_guard);
            out.push(if b.compiled().is_some() {
                Clause::Split {
                    block: b.clone(),
                    else_guard,
                }
            } else {
                Clause::Pair {
                    guard: (!else_guard).then(|| g.clone()),
                    body: body.clone(),
                }
            });
        }
        return Ok(out);
    }
    if with_bar > 0 {
        return Err(err::invalid_argument(format!(
            "{name} clauses mix the `{{ guard | body }}` style with `{{ guard }} {{ body }}` pairs; use one style",
        )));
    }
    if blocks.len() % 2 == 1 {
        return Err(err::invalid_argument(format!(
            "{name} got {} blocks; pair style needs an even number (`{{ guard }} {{ body }}` per clause)",
            blocks.len()
        )));
    }
    Ok(blocks
        .chunks(2)
        .map(|pair| Clause::Pair {
            guard: (!is_else_guard(pair[0].items(), else_guard)).then(|| pair[0].clone()),
            body: pair[1].clone(),
        })
        .collect())
}

/// No clause fired.
pub fn none_fired(reader: Reader<'_>) -> LangError {
    err::invalid_argument(format!(
        "no {} clause fired; add a final `{{ {} | … }}` clause",
        reader.name, reader.else_guard
    ))
}

/// A guard left nothing.
pub fn guard_left_nothing(reader: &str, index: usize) -> LangError {
    err::block_violation(format!(
        "{reader} guard {} left no value; it must leave TRUE or FALSE",
        index + 1
    ))
}

/// A guard left something other than a Boolean on top (`got` describes it).
pub fn guard_left_non_boolean(reader: &str, index: usize, got: &str) -> LangError {
    err::block_violation(format!(
        "{reader} guard {} must leave exactly a Boolean on top, but left {got}",
        index + 1
    ))
}

/// The selected body left nothing.
pub fn body_left_nothing(reader: &str) -> LangError {
    err::block_violation(format!("the {reader} clause body left no value"))
}

// ---------------------------------------------------------------------------
// The machine's side: running a selection on its own frames.

impl Machine {
    /// Start `selection` (its target already taken from the stack) at its first clause.
    pub(super) fn start_selection(
        &mut self,
        selection: Selection,
        word: WordId,
        pos: Option<Pos>,
        tail: bool,
    ) -> Result<(), Halt> {
        let run = ClauseRun {
            clauses: selection.clauses,
            index: 0,
            target: Some(selection.target),
            tail,
            word,
            pos,
        };
        let base = self.stack.len();
        self.enter_clause(run, base, false)
    }

    /// Run the selection's clause `run.index` over `base`: its guard on the target, or
    /// the body of an else-guard clause. `reuse`: the top frame (the previous guard's)
    /// is taken over, else a frame is pushed.
    fn enter_clause(&mut self, run: ClauseRun, base: usize, reuse: bool) -> Result<(), Halt> {
        let code = match run.clauses.get(run.index) {
            None => {
                let reader = self.reader(run.word);
                return Err(self.clause_error(none_fired(reader), &run, reuse));
            }
            Some(Clause::Split {
                else_guard: true, ..
            })
            | Some(Clause::Pair { guard: None, .. }) => return self.enter_body(run, base, reuse),
            Some(Clause::Split { block, .. }) => self.code_of(block),
            Some(Clause::Pair {
                guard: Some(guard), ..
            }) => self.code_of(guard),
        };
        let code = match code {
            Ok(code) => code,
            Err(e) => return Err(self.clause_error(e, &run, reuse)),
        };
        let target = run
            .target
            .clone()
            .expect("guards run while the target is held");
        push_slot(&mut self.stack, target);
        self.open_clause_frame(code, 0, run, base, false, reuse);
        Ok(())
    }

    /// Run the chosen clause's body on the target over `base` (in tail position of
    /// the User Word the selection ends, if any). A split clause whose guard just
    /// reached its `|` in the top frame goes on in place.
    fn enter_body(&mut self, mut run: ClauseRun, base: usize, reuse: bool) -> Result<(), Halt> {
        let in_place = reuse
            && matches!(
                run.clauses[run.index],
                Clause::Split {
                    else_guard: false,
                    ..
                }
            );
        if in_place {
            let target = run.target.take().expect("the body starts after the guards");
            push_slot(&mut self.stack, target);
            let f = self.top_code_mut();
            f.tail_of = std::mem::take(&mut run.tail);
            f.kind = FrameKind::Clause(run);
            if f.bindings.is_some() {
                f.bindings = None;
            }
            f.keep = false;
            return Ok(());
        }
        let code = match &run.clauses[run.index] {
            Clause::Split { block, .. } => self.code_of(block),
            Clause::Pair { body, .. } => self.code_of(body),
        };
        let code = match code {
            Ok(code) => code,
            Err(e) => return Err(self.clause_error(e, &run, reuse)),
        };
        let target = run.target.take().expect("the body starts after the guards");
        push_slot(&mut self.stack, target);
        let tail_of = std::mem::take(&mut run.tail);
        let pc = match &run.clauses[run.index] {
            Clause::Split { .. } => code.after_bar(),
            Clause::Pair { .. } => 0,
        };
        self.open_clause_frame(code, pc, run, base, tail_of, reuse);
        Ok(())
    }

    /// Put a guard or body frame on top, starting at `pc`: the previous guard's,
    /// taken over, or a new one.
    fn open_clause_frame(
        &mut self,
        code: Arc<Code>,
        pc: usize,
        run: ClauseRun,
        base: usize,
        tail_of: bool,
        reuse: bool,
    ) {
        let pc = pc as u32;
        if reuse {
            let f = self.top_code_mut();
            f.code = code;
            f.pc = pc;
            f.kind = FrameKind::Clause(run);
            if f.bindings.is_some() {
                f.bindings = None;
            }
            f.keep = false;
            f.tail_of = tail_of;
            return;
        }
        let serial = self.fresh_serial();
        self.frames.push(Frame::Code(CodeFrame {
            code,
            pc,
            kind: FrameKind::Clause(run),
            bindings: None,
            keep: false,
            floor: base,
            tail_of,
            tail: None,
            keep_record: false,
            serial,
        }));
    }

    /// A selection's error, attributed to the clause reader; a frame being taken over
    /// is closed first, so positions are found as if the guard had ended.
    fn clause_error(&mut self, e: impl Into<Halt>, run: &ClauseRun, reuse: bool) -> Halt {
        if reuse {
            self.frames.pop();
        }
        let name = self.registry.spec(run.word).name;
        self.attribute(e.into(), name, run.pos)
    }

    /// A guard or the chosen body ended (the top frame is its clause frame).
    pub(super) fn finish_clause(&mut self) -> Result<(), Halt> {
        let f = self.top_code_mut();
        let base = f.floor;
        let FrameKind::Clause(run) = std::mem::replace(&mut f.kind, FrameKind::Block) else {
            unreachable!("finish_clause runs on a clause frame")
        };
        if run.target.is_none() {
            self.frames.truncate(self.frames.len() - 1);
            return self.take_clause_result(base, run.word, run.pos);
        }
        self.guard_ended(run, base)
    }

    /// A split clause's guard reached its `|` in the top frame, if the top frame runs
    /// one (`None`: a `|` anywhere else, an error).
    pub(super) fn split_guard_reached_bar(&mut self) -> Option<Result<(), Halt>> {
        let f = self.top_code();
        let FrameKind::Clause(run) = &f.kind else {
            return None;
        };
        if run.target.is_none() || !matches!(run.clauses[run.index], Clause::Split { .. }) {
            return None;
        }
        let base = f.floor;
        if let Some(Value::Bool(true)) = self.stack.get(base..).and_then(<[Value]>::last) {
            // The common case, in place: the body follows the `|` in this frame.
            if self.keeps.is_empty() && self.stack.len() == base + 1 {
                // Only the guard's TRUE lies above the floor: no drop glue to run.
                if let Some(v) = self.stack.pop() {
                    v.discard();
                }
            } else {
                self.truncate_to(base);
            }
            let f = self.top_code_mut();
            let FrameKind::Clause(run) = &mut f.kind else {
                return None;
            };
            let target = run.target.take();
            f.tail_of = std::mem::take(&mut run.tail);
            if f.bindings.is_some() {
                f.bindings = None;
            }
            f.keep = false;
            if let Some(target) = target {
                push_slot(&mut self.stack, target);
            }
            return Some(Ok(()));
        }
        let f = self.top_code_mut();
        let FrameKind::Clause(run) = std::mem::replace(&mut f.kind, FrameKind::Block) else {
            return None;
        };
        Some(self.guard_ended(run, base))
    }

    /// A guard ended over `base` (its frame on top): TRUE runs the clause's body,
    /// FALSE tries the next clause; anything else is the guard's error.
    fn guard_ended(&mut self, mut run: ClauseRun, base: usize) -> Result<(), Halt> {
        let verdict = self.stack[base.min(self.stack.len())..]
            .last()
            .map(|v| v.as_bool().ok_or_else(|| v.describe()));
        self.truncate_to(base);
        let reader = self.registry.spec(run.word).name;
        match verdict {
            None => Err(self.clause_error(guard_left_nothing(reader, run.index), &run, true)),
            Some(Err(got)) => {
                Err(self.clause_error(guard_left_non_boolean(reader, run.index, &got), &run, true))
            }
            Some(Ok(true)) => self.enter_body(run, base, true),
            Some(Ok(false)) => {
                run.index += 1;
                self.enter_clause(run, base, true)?;
                Ok(())
            }
        }
    }

    /// A selection's body ended over `base`: its top value is the result.
    pub(super) fn take_clause_result(
        &mut self,
        base: usize,
        word: WordId,
        pos: Option<Pos>,
    ) -> Result<(), Halt> {
        let result = self.stack[base.min(self.stack.len())..].last().cloned();
        self.truncate_to(base);
        match result {
            Some(v) => {
                push_slot(&mut self.stack, v);
                Ok(())
            }
            None => {
                let name = self.registry.spec(word).name;
                Err(self.attribute(body_left_nothing(name).into(), name, pos))
            }
        }
    }

    /// How the clause reader `word` is named in messages, with its else-guard.
    pub(super) fn reader(&self, word: WordId) -> Reader<'static> {
        let spec = self.registry.spec(word);
        Reader {
            name: spec.name,
            else_guard: match spec.role {
                crate::word::Role::ReadsClauses { else_guard } => else_guard,
                _ => "",
            },
        }
    }

    /// What a fused clause reader (literal clause blocks read when they compiled)
    /// will do: select at once when a target that is no block lies below, else (a
    /// block would be read as one more clause) push the blocks and run the Word as
    /// written.
    pub(super) fn resolve_select(&self, fused: &FusedSelection) -> SelectStep {
        let floor = self.top_code().floor;
        let target_below =
            self.stack.len() > floor && !matches!(self.stack.last(), Some(Value::Block(_)));
        if target_below {
            SelectStep::Select(fused.word, fused.clauses.clone())
        } else {
            let blocks = fused
                .pushes
                .iter()
                .filter_map(|op| match &op.kind {
                    OpKind::Push(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            SelectStep::AsWritten(fused.word, blocks)
        }
    }

    /// Run a fused clause reader as [`Machine::resolve_select`] decided.
    pub(super) fn select(
        &mut self,
        step: SelectStep,
        pos: Option<Pos>,
        at_block_end: bool,
    ) -> Result<(), Halt> {
        let (word, clauses) = match step {
            SelectStep::AsWritten(word, blocks) => {
                for b in blocks {
                    push_slot(&mut self.stack, b);
                }
                return self.dispatch_core(word, pos, at_block_end);
            }
            SelectStep::Select(word, clauses) => (word, clauses),
        };
        let keep = std::mem::take(&mut self.top_code_mut().keep);
        if let Err(h) = self.meter.step() {
            let name = self.registry.spec(word).name;
            return Err(self.attribute(h, name, pos));
        }
        let tail = at_block_end && matches!(self.top_code().kind, FrameKind::Word(_));
        let target = if keep {
            self.stack.last().cloned().expect("a target lies below")
        } else {
            self.pop()
        };
        self.start_selection(Selection { clauses, target }, word, pos, tail)
    }
}
