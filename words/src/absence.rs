//! Absence (`absence`): NIL, NIL?, NIL-REASON and the VENT directive's registry entry.
//!
//! NIL is an ordinary value carrying one reason; these Words create it and inspect
//! it. `VENT`/`^` is a directive the machine evaluates (docs/reference/vent.md); its entry
//! here only declares its contract.

use crate::support::base;
use ajisai_core::outcome::{err, NilReason};
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, Arity, Consumption, Family, FamilyRegistration, Flow, NilPolicy, Purity, WordSpec,
};
use ajisai_core::{Ctx, Halt};

fn nil(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.consume_and_push(0, Value::Nil(NilReason::Literal))
}

fn is_nil(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let answer = ctx.peek(0).is_nil();
    ctx.push(Value::Bool(answer));
    Ok(Flow::Done)
}

fn nil_reason(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let reason = match ctx.peek(0) {
        Value::Nil(r) => Value::str(r.id()),
        _ => Value::Nil(NilReason::NotAvailable),
    };
    ctx.push(reason);
    Ok(Flow::Done)
}

fn vent(_ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    Err(err::unknown_word("VENT").into())
}

/// `NIL`
pub const NIL: WordSpec = WordSpec {
    consumption: Consumption::None,
    nil_policy: NilPolicy::PreserveReason,
    projections: &[NilReason::Literal],
    summary: "Push NIL with reason literal.",
    syntax: "NIL",
    stack_effect: "( -- NIL )",
    examples: &[
        ex("NIL", "NIL (nil:literal)"),
        ex("NIL NIL-REASON", "NIL | 'literal'"),
        ex("KEEP NIL", "NIL (nil:literal)"),
    ],
    rules: r#"`NIL` ( -- NIL ). Pushes NIL with reason `literal`. Never fails. A pending `KEEP` is consumed
and has no effect."#,
    ..base("NIL", Family::Absence, 0, 1, nil)
};

/// `NIL?`
pub const NIL_Q: WordSpec = WordSpec {
    consumption: Consumption::Retain,
    nil_policy: NilPolicy::ConsumeNil,
    summary: "Leave x and push TRUE iff x is a NIL of any reason.",
    syntax: "x NIL?",
    stack_effect: "( x -- x bool )",
    examples: &[
        ex("1 0 / NIL?", "NIL | TRUE"),
        ex("1 NIL?", "1/1 | FALSE"),
        ex("[ NIL ] NIL?", "[ NIL ] | FALSE"),
        ex("1 0 / NIL? NOT", "NIL | FALSE"),
    ],
    rules: r#"`x NIL?` ( x -- x bool ). Leaves x in place and pushes TRUE iff x is a NIL (of any reason). A
Vector containing NILs is not NIL. Never fails (besides underflow). KEEP: no effect (x is
always retained)."#,
    ..base("NIL?", Family::Absence, 1, 2, is_nil)
};

/// `NIL-REASON`
pub const NIL_REASON: WordSpec = WordSpec {
    consumption: Consumption::Retain,
    nil_policy: NilPolicy::ConsumeNil,
    projections: &[NilReason::NotAvailable],
    summary:
        "Leave x and push its NIL reason as a String, or NIL(notAvailable) when x is not a NIL.",
    syntax: "x NIL-REASON",
    stack_effect: "( x -- x r )",
    examples: &[
        ex("1 0 / NIL-REASON", "NIL | 'divisionByZero'"),
        ex("NIL NIL-REASON", "NIL | 'literal'"),
        ex("[ NIL ] NIL-REASON", "[ NIL ] | NIL (nil:notAvailable)"),
        ex("1 NIL-REASON NIL-REASON", "1/1 | NIL | 'notAvailable'"),
    ],
    rules: r#"`x NIL-REASON` ( x -- x r ). Leaves x in place and pushes its reason as a String, or
`NIL(notAvailable)` when x is not a NIL. Never fails (besides underflow). KEEP: no effect."#,
    ..base("NIL-REASON", Family::Absence, 1, 2, nil_reason)
};

/// `VENT` (`^`)
pub const VENT: WordSpec = WordSpec {
    aliases: &["^"],
    inputs: Arity::Control,
    outputs: Arity::Control,
    nil_policy: NilPolicy::InspectNil,
    consumption: Consumption::Conditional,
    purity: Purity::Conditional,
    errors: &[ajisai_core::ErrorCategory::MalformedSource],
    summary: "Directive: when the top is NIL, drop it and evaluate the following source unit; otherwise skip that unit.",
    syntax: "x VENT unit",
    stack_effect: "( x -- x ) | ( NIL -- … )",
    examples: &[
        ex("1 0 / ^ 99", "99/1"),
        ex("[ 1 ] [ 0 ] DIV ^ [ 99 ]", "[ 99/1 ]"),
        ex("5 VENT 6", "5/1"),
        ex("5 VENT", "error:malformedSource"),
    ],
    rules: r#"`… VENT unit` — a directive, not a stack Word; see [VENT](../reference/vent.md). Top not NIL:
keep it and skip the following source unit unevaluated. Top NIL: drop it and evaluate the unit.
Empty stack: `stackUnderflow`. No unit — `VENT` is the last token of the program or directly
followed by a line break, by the `}` closing its block, or by `|` — is `malformedSource`,
raised before anything runs and reported by the static check too ([structural
validation](../reference/lexical.md#structural-validation)). `KEEP` does not apply to it and is
not consumed by it. Not a dictionary entry: `'VENT' EXEC`-style use is impossible; `VENT`/`^`
cannot be defined or bound. Directly inside a vector literal `^` and `VENT` are not the
directive but names, read as Strings ([vector
literals](../reference/lexical.md#vector-literals))."#,
    ..base("VENT", Family::Absence, 0, 0, vent)
};

inventory::submit! {
    FamilyRegistration {
        module: "absence",
        words: &[NIL, NIL_Q, NIL_REASON, VENT],
        family_rules: &[],
    }
}
