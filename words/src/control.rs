//! Control: COND and EXEC (family `control`) and the KEEP modifier (family `stackModifier`).
//!
//! COND runs each guard, then the selected body, in an isolated frame holding only
//! the target (docs/reference/frames.md#isolation-of-block-frames): its role declares it the clause
//! reader, and the machine runs the selection. EXEC runs a block on the whole stack. Both leave the
//! block to the machine rather than recursing, so nesting is bounded by steps, not by the native
//! stack. KEEP only sets the pending flag; the machine intercepts it (it costs no step).

use crate::support::{base, describe};
use ajisai_core::outcome::{err, ErrorCategory};
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, ex_prints, Arity, Consumption, Family, FamilyRegistration, Flow, NilPolicy, Purity, Role,
    Run, StaticEffect, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};

fn cond(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    // The machine runs the selection (ajisai_core::clauses): guards, the chosen body,
    // and a self-call ending that body as a tail call.
    ctx.select_clauses()
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
    let block = b.clone();
    ctx.compile(&block)?;
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
        ex("1 { [ TRUE ] } { 10 } COND", "error:blockViolation"),
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
    ],
    ..base("KEEP", Family::StackModifier, 0, 0, keep)
};

const _: Tier = Tier::Kernel;

inventory::submit! {
    FamilyRegistration { module: "control", words: &[COND, EXEC, KEEP] }
}
