//! Control: COND and EXEC (family `control`) and the KEEP modifier (family `stackModifier`).
//!
//! COND runs each guard, then the selected body, in an isolated frame holding only
//! the target (LANGUAGE.md §6.1); EXEC runs a block on the whole stack. Both hand
//! the block to the machine ([`Flow::Run`]) rather than recursing, so nesting is
//! bounded by steps, not by the native stack. KEEP only sets the pending flag; the
//! machine intercepts it (it costs no step).

use crate::support::{base, describe};
use ajisai_core::code::{Block, Item};
use ajisai_core::machine::UserWord;
use ajisai_core::outcome::{err, ErrorCategory, LangError};
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, ex_prints, Arity, Consumption, Family, FamilyRegistration, Flow, NilPolicy, Purity, Resume,
    Role, Run, StaticEffect, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use smallvec::SmallVec;
use std::sync::Arc;

/// One COND clause: its guard (`None` for an `IDLE` else-guard) and body.
struct Clause {
    guard: Option<Arc<Block>>,
    body: Arc<Block>,
}

/// The clauses of one COND, inline for the common few (one allocation per COND:
/// its state box).
type Clauses = SmallVec<[Clause; 3]>;

/// Whether a run of tokens is exactly the else-guard `IDLE`.
fn is_idle(items: &[Item]) -> bool {
    let mut it = items.iter().filter(|i| !i.is_line_break());
    matches!((it.next(), it.next()), (Some(Item::Name { name, .. }), None) if &*name.normalized == "IDLE")
}

/// Read the clause blocks (bottom to top) into clauses, per §3.5.
fn clauses(blocks: &[Arc<Block>]) -> Result<Clauses, LangError> {
    let with_bar = blocks.iter().filter(|b| b.bar_count() > 0).count();
    if with_bar == blocks.len() {
        let mut out = Clauses::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            let halves = b.halves().filter(|_| b.bar_count() == 1);
            let Some((guard, body)) = halves.filter(|(g, b)| !g.is_empty() && !b.is_empty()) else {
                return Err(err::invalid_argument(format!(
                    "COND clause {} must be `{{ guard | body }}` with exactly one '|' and tokens on both sides",
                    i + 1
                )));
            };
            out.push(Clause {
                guard: (!is_idle(guard.items())).then(|| guard.clone()),
                body: body.clone(),
            });
        }
        return Ok(out);
    }
    if with_bar > 0 {
        return Err(err::invalid_argument(
            "COND clauses mix the `{ guard | body }` style with `{ guard } { body }` pairs; use one style",
        ));
    }
    if blocks.len() % 2 == 1 {
        return Err(err::invalid_argument(format!(
            "COND got {} blocks; pair style needs an even number (`{{ guard }} {{ body }}` per clause)",
            blocks.len()
        )));
    }
    Ok(blocks
        .chunks(2)
        .map(|pair| Clause {
            guard: (!is_idle(pair[0].items())).then(|| pair[0].clone()),
            body: pair[1].clone(),
        })
        .collect())
}

enum Phase {
    Guard(usize),
    Body,
}

struct Cond {
    clauses: Clauses,
    target: Value,
    phase: Phase,
    tail: Option<Arc<UserWord>>,
}

impl Cond {
    /// Try clauses from `from`: run the next guard, or the body of an IDLE clause.
    fn select(mut self: Box<Self>, ctx: &mut Ctx<'_>, from: usize) -> Result<Flow, Halt> {
        let Some(clause) = self.clauses.get(from) else {
            return Err(err::invalid_argument(
                "no COND clause fired; add a final `{ IDLE | … }` clause",
            )
            .into());
        };
        let base = ctx.stack_len();
        match clause.guard.clone() {
            None => Ok(self.run_body(ctx, from, base)),
            Some(guard) => {
                ctx.push(self.target.clone());
                self.phase = Phase::Guard(from);
                Ok(ctx.run_isolated(guard, base, self))
            }
        }
    }

    /// Run clause `i`'s body on the target. The body phase keeps nothing of the
    /// clauses or the target: a tail-call loop holds its first COND's continuation
    /// until the loop ends, and it must not pin the first iteration's values.
    fn run_body(mut self: Box<Self>, ctx: &mut Ctx<'_>, i: usize, base: usize) -> Flow {
        let body = std::mem::take(&mut self.clauses).swap_remove(i).body;
        ctx.push(std::mem::replace(&mut self.target, Value::Bool(false)));
        self.phase = Phase::Body;
        let tail_of = self.tail.take();
        Flow::Run(Run {
            block: body,
            isolated_base: Some(base),
            then: Some(self),
            keep_restore: false,
            tail_of,
        })
    }
}

impl Resume for Cond {
    fn resume(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) -> Result<Flow, Halt> {
        match self.phase {
            Phase::Guard(i) => {
                let verdict = ctx
                    .frame_values(base)
                    .last()
                    .map(|v| v.as_bool().ok_or_else(|| describe(v)));
                ctx.truncate(base);
                match verdict {
                    None => Err(err::block_violation(format!(
                        "COND guard {} left no value; it must leave TRUE or FALSE",
                        i + 1
                    ))
                    .into()),
                    Some(Err(got)) => Err(err::block_violation(format!(
                        "COND guard {} must leave exactly a Boolean on top, but left {got}",
                        i + 1
                    ))
                    .into()),
                    Some(Ok(true)) => Ok(self.run_body(ctx, i, base)),
                    Some(Ok(false)) => self.select(ctx, i + 1),
                }
            }
            Phase::Body => {
                let result = ctx.frame_values(base).last().cloned();
                ctx.truncate(base);
                match result {
                    Some(v) => {
                        ctx.push(v);
                        Ok(Flow::Done)
                    }
                    None => Err(err::block_violation("the COND clause body left no value").into()),
                }
            }
        }
    }

    fn unwind(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) {
        ctx.truncate(base);
    }
}

fn cond(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let depth = ctx.depth();
    let k = (0..depth)
        .take_while(|&i| matches!(ctx.peek(i), Value::Block(_)))
        .count();
    if k == 0 {
        return Err(err::invalid_argument(format!(
            "COND needs clause blocks on top of the stack, got {}",
            describe(ctx.peek(0))
        ))
        .into());
    }
    // The clause blocks are consumed whatever happens next (§7.4).
    let mut blocks: SmallVec<[Arc<Block>; 6]> = SmallVec::with_capacity(k);
    for _ in 0..k {
        if let Value::Block(b) = ctx.pop() {
            blocks.push(b);
        }
    }
    blocks.reverse();
    let clauses = clauses(&blocks)?;
    if ctx.depth() == 0 {
        return Err(
            err::stack_underflow("COND needs a target value below its clause blocks").into(),
        );
    }
    let target = if ctx.keep() {
        ctx.peek(0).clone()
    } else {
        ctx.pop()
    };
    let state = Box::new(Cond {
        clauses,
        target,
        phase: Phase::Guard(0),
        tail: ctx.tail_word(),
    });
    state.select(ctx, 0)
}

fn exec(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let Value::Block(b) = ctx.peek(0) else {
        return Err(err::type_mismatch(format!(
            "EXEC needs a CodeBlock, got {} (use REFLECT to turn code data into a block)",
            describe(ctx.peek(0))
        ))
        .into());
    };
    if b.bar_count() > 0 {
        return Err(err::malformed(
            "EXEC cannot run a block containing '|'; only COND reads clause separators",
        )
        .into());
    }
    ctx.compile(b)?;
    let block = b.clone();
    ctx.pop();
    Ok(Flow::Run(Run {
        block,
        isolated_base: None,
        then: None,
        keep_restore: ctx.keep(),
        tail_of: None,
    }))
}

fn keep(_ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    // The machine intercepts KEEP before dispatch; nothing to do here.
    Ok(Flow::Done)
}

/// `COND`
pub const COND: WordSpec = WordSpec {
    role: Role::ReadsClauses { else_guard: "IDLE" },
    static_effect: StaticEffect::ClauseBlocks,
    inputs: Arity::Variable,
    nil_policy: NilPolicy::ConsumeNil,
    consumption: Consumption::Conditional,
    purity: Purity::Conditional,
    errors: &[ErrorCategory::InvalidArgument, ErrorCategory::BlockViolation],
    summary: "First-match conditional: run each guard on the target in an isolated frame; the first TRUE selects its body, whose top value is the result.",
    syntax: "target { guard | body } … COND   or   target { guard } { body } … COND",
    stack_effect: "( target c1 … cn -- result )",
    examples: &[
        ex("5 { 3 > } { 10 * } { IDLE } { 0 } COND", "50/1"),
        ex("1 { 3 > | 10 * } { IDLE | 0 } COND", "0/1"),
        ex_prints("4 { 0 GTE } { 'non-negative' PRINT } { TRUE } { 'negative' PRINT } COND", "4/1", &["non-negative"]),
        ex("1 { TRUE } { 1 2 3 } COND", "3/1"),
        ex("1 { TRUE } { } COND", "1/1"),
        ex("1 { [ TRUE ] } { 10 } COND", "error:blockViolation"),
        ex("1 { 0 } { 10 } { IDLE } { 20 } COND", "error:blockViolation"),
        ex("5 { 3 > } { 10 * } { 'small' } COND", "error:invalidArgument"),
        ex("1 { 3 > } { 10 * } COND", "error:invalidArgument"),
        ex_prints("1 { TRUE } { PRINT } COND", "error:blockViolation", &["1/1"]),
        ex("5 KEEP { 3 > | 10 * } COND", "5/1 | 50/1"),
        ex("1 0 / { IDLE | NIL-REASON } COND", "'divisionByZero'"),
        ex("5 { TRUE | 1 } { TRUE } { 2 } COND", "error:invalidArgument"),
        ex("5 { idle } { 1 } COND", "1/1"),
        ex("5 { TRUE } { 'a' 1 + } COND", "error:typeMismatch"),
    ],
    ..base("COND", Family::Control, 0, 1, cond)
};

/// `EXEC`
pub const EXEC: WordSpec = WordSpec {
    static_effect: StaticEffect::RunsBlockLiteral,
    outputs: Arity::Variable,
    nil_policy: NilPolicy::RejectNil,
    purity: Purity::Conditional,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::MalformedSource],
    summary: "Evaluate a CodeBlock on the whole stack in a transparent frame.",
    syntax: "block EXEC",
    stack_effect: "( … block -- … )",
    examples: &[
        ex("{ 1 2 ADD } EXEC", "3/1"),
        ex("1 2 { + } EXEC", "3/1"),
        ex("{ } EXEC", "(empty)"),
        ex("{ 1 0 / } EXEC", "NIL (nil:divisionByZero)"),
        ex("5 EXEC", "error:typeMismatch"),
        ex("'NEG' EXEC", "error:typeMismatch"),
        ex("1 2 3 KEEP { + + } EXEC", "1/1 | 2/1 | 3/1 | 6/1"),
        ex("{ 1 | 2 } EXEC", "error:malformedSource"),
        ex("NIL EXEC", "error:typeMismatch"),
    ],
    ..base("EXEC", Family::Control, 1, 0, exec)
};

/// `KEEP`
pub const KEEP: WordSpec = WordSpec {
    role: Role::Modifier,
    family: Family::StackModifier,
    consumption: Consumption::None,
    nil_policy: NilPolicy::PreserveReason,
    summary: "Make the next Word invocation keep the operands it reads, below its results.",
    syntax: "KEEP word",
    stack_effect: "( -- )",
    examples: &[
        ex("1 2 KEEP +", "1/1 | 2/1 | 3/1"),
        ex_prints("[ 5 ] KEEP PRINT", "[ 5/1 ]", &["[ 5/1 ]"]),
        ex("KEEP [ 1 ] LENGTH", "[ 1/1 ] | 1/1"),
        ex("KEEP", "(empty)"),
        ex("'42' KEEP NUM", "'42' | 42/1"),
        ex("1 2 KEEP 3 +", "1/1 | 2/1 | 3/1 | 5/1"),
        ex("5 'X' BIND 3 KEEP X NEG", "3/1 | -5/1"),
    ],
    ..base("KEEP", Family::StackModifier, 0, 0, keep)
};

const _: Tier = Tier::Kernel;

inventory::submit! {
    FamilyRegistration { module: "control", words: &[COND, EXEC, KEEP] }
}
