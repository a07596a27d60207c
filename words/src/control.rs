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
    rules: r#"`target clause… COND` ( target c₁ … cₙ -- result ). First-match conditional over an isolated
one-value frame.

1. **Collect clauses**: pop every consecutive CodeBlock from the top of the stack (so a
   CodeBlock target is taken as a clause — put such a target in a Vector or bind it). Zero
   blocks → `invalidArgument` (an empty stack → `stackUnderflow`).
2. **Shape** ([clause syntax](../reference/lexical.md#the-clause-separator-)): if every block
   contains a top-level `|`, each block is one clause `guard | body` (exactly one `|`, tokens
   on both sides, else `invalidArgument`); if none does, the count must be even and blocks pair
   up as guard, body (odd count → `invalidArgument`); a mix is `invalidArgument`.
3. **Target**: the value below the clauses (missing → `stackUnderflow`), of any domain — a NIL
   target is an ordinary target that guards can inspect (`consumeNil`). It is consumed, or
   kept under `KEEP`.
4. **Select**: try clauses in written order. An `IDLE` guard fires at once. Any other guard is
   evaluated in a fresh frame holding only the target ([isolated
   frames](../reference/frames.md#isolation-of-block-frames)), consumption on; the frame's top
   decides: TRUE fires; FALSE goes on to the next clause. The top must be exactly a Boolean:
   anything else — any Number (0 and 1 included), a String, NIL, any Vector (a one-element
   Vector holding a Boolean included), a CodeBlock, or an empty frame — is `blockViolation`. A
   guard over a Vector target must reduce its test to one Boolean itself (with `EQ`, `ANY`,
   `ALL`, `0 GET` …). Guards cannot change the outer stack.
5. **Run the body** of the first firing clause in a fresh frame holding only the target; its
   top value is the result (values below it are discarded; a body that leaves the frame empty
   is `blockViolation`; an empty body `{ }` leaves the target, which becomes the result). If no
   clause fires: `invalidArgument`.

Errors inside a guard or body propagate. Tail position: see [calling a User
Word](../reference/dictionary.md#calling-a-user-word). KEEP: keeps the target; the clauses are
consumed."#,
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
    rules: r#"`block EXEC` ( … block -- … ). Evaluates the CodeBlock on the whole stack ([isolated
frames](../reference/frames.md#isolation-of-block-frames)) in a transparent frame: its bindings
vanish when it ends, the enclosing frame's bindings are visible. The block's tokens are
validated first (`malformedSource` for a top-level `|`; literal limits of [number
literals](../reference/lexical.md#number-literals)). EXEC is never a tail position. NIL: a NIL
operand is `typeMismatch` (`rejectNil`). ERROR: `typeMismatch` for anything but a CodeBlock (a
String naming a Word and a code-data Vector included — use `REFLECT` first); errors inside the
block propagate unchanged, with the block's partial effects kept ([the stack after an
ERROR](../reference/errors.md#the-stack-after-an-error)). KEEP: the whole call is kept
([KEEP](../reference/keep.md))."#,
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
    rules: r#"`KEEP` ( -- ). Sets the pending-keep flag for the next Word invocation
([KEEP](../reference/keep.md)). Never fails; a `KEEP` with no following Word has no effect."#,
    ..base("KEEP", Family::StackModifier, 0, 0, keep)
};

const _: Tier = Tier::Kernel;

inventory::submit! {
    FamilyRegistration {
        module: "control",
        words: &[COND, EXEC, KEEP],
        family_rules: &[],
    }
}
