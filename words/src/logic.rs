//! Boolean logic (`booleanLogic`): TRUE, FALSE, AND, OR, NOT.
//!
//! Operands must be Booleans: no truthiness, no lifting over Vectors. A NIL
//! operand passes through (the left-most NIL's reason), even when the other
//! operand would decide the answer.

use crate::support::{base, describe};
use ajisai_core::outcome::{err, ErrorCategory, LangError};
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, Consumption, Family, FamilyRegistration, Flow, NilPolicy, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};

fn truth(word: &str, v: &Value) -> Result<bool, LangError> {
    v.as_bool()
        .ok_or_else(|| err::type_mismatch(format!("{word} needs Booleans, got {}", describe(v))))
}

fn push_true(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.consume_and_push(0, Value::Bool(true))
}

fn push_false(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.consume_and_push(0, Value::Bool(false))
}

fn binary(ctx: &mut Ctx<'_>, f: fn(bool, bool) -> bool) -> Result<Flow, Halt> {
    let word = ctx.word_name();
    let ops = ctx.operands(2)?;
    let (a, b) = (truth(word, &ops[0])?, truth(word, &ops[1])?);
    ctx.consume_and_push(2, Value::Bool(f(a, b)))
}

fn and(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    binary(ctx, |a, b| a && b)
}

fn or(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    binary(ctx, |a, b| a || b)
}

fn not(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let a = truth("NOT", ctx.peek(0))?;
    ctx.consume_and_push(1, Value::Bool(!a))
}

const TYPE: &[ErrorCategory] = &[ErrorCategory::TypeMismatch];

/// `TRUE`
pub const TRUE: WordSpec = WordSpec {
    consumption: Consumption::None,
    nil_policy: NilPolicy::PreserveReason,
    summary: "Push the Boolean TRUE.",
    syntax: "TRUE",
    stack_effect: "( -- TRUE )",
    examples: &[
        ex("TRUE", "TRUE"),
        ex("FALSE NOT", "TRUE"),
        ex("KEEP TRUE", "TRUE"),
    ],
    rules: r#"`TRUE` ( -- TRUE ), `FALSE` ( -- FALSE ). Push the Boolean. Never fail. A pending `KEEP` is
consumed and has no effect."#,
    ..base("TRUE", Family::BooleanLogic, 0, 1, push_true)
};

/// `FALSE`
pub const FALSE: WordSpec = WordSpec {
    consumption: Consumption::None,
    nil_policy: NilPolicy::PreserveReason,
    summary: "Push the Boolean FALSE.",
    syntax: "FALSE",
    stack_effect: "( -- FALSE )",
    examples: &[ex("FALSE", "FALSE"), ex("FALSE FALSE =", "TRUE")],
    rules: TRUE.rules,
    ..base("FALSE", Family::BooleanLogic, 0, 1, push_false)
};

/// `AND`
pub const AND: WordSpec = WordSpec {
    errors: TYPE,
    summary: "TRUE when both Booleans are TRUE.",
    syntax: "a b AND",
    stack_effect: "( a b -- a∧b )",
    examples: &[
        ex("TRUE TRUE AND", "TRUE"),
        ex("TRUE FALSE AND", "FALSE"),
        ex("FALSE NIL AND", "NIL (nil:literal)"),
        ex("1 TRUE AND", "error:typeMismatch"),
    ],
    rules: r#"`a b AND` ( a b -- a∧b ). Operands: Booleans. Result: TRUE iff both are TRUE. NIL: passthrough.
ERROR: `typeMismatch` if an operand is not a Boolean (Numbers and Vectors included). KEEP:
keeps a and b."#,
    ..base("AND", Family::BooleanLogic, 2, 1, and)
};

/// `OR`
pub const OR: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE,
    summary: "TRUE when either Boolean is TRUE.",
    syntax: "a b OR",
    stack_effect: "( a b -- a∨b )",
    examples: &[
        ex("TRUE FALSE OR", "TRUE"),
        ex("FALSE FALSE OR", "FALSE"),
        ex("TRUE NIL OR", "NIL (nil:literal)"),
        ex("TRUE [ TRUE FALSE ] OR", "error:typeMismatch"),
    ],
    rules: r#"`a b OR` ( a b -- a∨b ). As `AND`, with disjunction."#,
    ..base("OR", Family::BooleanLogic, 2, 1, or)
};

/// `NOT`
pub const NOT: WordSpec = WordSpec {
    errors: TYPE,
    summary: "The negation of a Boolean.",
    syntax: "a NOT",
    stack_effect: "( a -- ¬a )",
    examples: &[
        ex("TRUE NOT", "FALSE"),
        ex("NIL NOT", "NIL (nil:literal)"),
        ex("1 NOT", "error:typeMismatch"),
        ex("TRUE KEEP NOT", "TRUE | FALSE"),
    ],
    rules: r#"`a NOT` ( a -- ¬a ). Operand: a Boolean. NIL: passthrough. ERROR: `typeMismatch` for any other
operand (a Number or a Vector included). KEEP: keeps a."#,
    ..base("NOT", Family::BooleanLogic, 1, 1, not)
};

inventory::submit! {
    FamilyRegistration {
        module: "logic",
        words: &[TRUE, FALSE, AND, OR, NOT],
        family_rules: &[
            (
                Family::BooleanLogic,
                r#"Operands must be Booleans; there is no lifting over Vectors and no truthiness. A NIL operand
passes through (left-most NIL's reason), even when the other operand would decide the answer."#,
            ),
        ],
    }
}
