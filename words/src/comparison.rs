//! Comparison (`comparison`): EQ, NEQ, LT, LTE, GT, GTE.
//!
//! `EQ`/`NEQ` compare whole values of any domain with the value equality of
//! docs/reference/domains.md#value-equality and never lift. The ordering Words lift by broadcasting
//! (docs/reference/lifting.md) and decide each lane with exact order
//! (docs/reference/domains.md#number): there is no undecided answer. A top-level NIL operand passes
//! through (the machine's passthrough policy).

use crate::lifting::{Broadcast, OPERANDS};
use crate::support::base;
use ajisai_core::outcome::ErrorCategory;
use ajisai_core::price::{binary_charge, measure, measure_number, ArithOp};
use ajisai_core::value::{equal_metered, Pay, Value};
use ajisai_core::word::{
    ex, Family, FamilyRegistration, Flow, IntPair, IntPairResult, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::cmp::Ordering;

/// EQ and NEQ: value equality, charged as it compares
/// (docs/reference/pricing-and-limits.md#comparisons: one unit a pair of values compared).
fn equality(ctx: &mut Ctx<'_>, want_equal: bool) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let (a, b) = (ops[0].clone(), ops[1].clone());
    let same = equal_metered(&a, &b, ctx.meter(), Pay::AsYouGo)?;
    ctx.consume_and_push(2, Value::Bool(same == want_equal))
}

fn eq(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    equality(ctx, true)
}

fn neq(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    equality(ctx, false)
}

/// Broadcast `a b` and answer each lane with whether its order is one of `accept`.
/// Every lane is an exact comparison, priced as SUB up front
/// (docs/reference/pricing-and-limits.md#comparisons); an algebraic lane's sign
/// procedure charges its products as it goes.
fn ordering(ctx: &mut Ctx<'_>, accept: fn(Ordering) -> bool) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    if let [Value::Number(x), Value::Number(y)] = ops {
        if let (Some((n1, d1)), Some((n2, d2))) = (x.small_parts(), y.small_parts()) {
            // Rationals with i64 parts (denominators positive): cross products in
            // i128 decide the order exactly.
            let order = (i128::from(n1) * i128::from(d2)).cmp(&(i128::from(n2) * i128::from(d1)));
            ctx.charge_numeric(COMPARE_SMALL)?;
            return ctx.consume_and_push(2, Value::Bool(accept(order)));
        }
        // The one lane of a broadcast of two single Numbers, without building it.
        let (x, y) = (x.clone(), y.clone());
        let charge = binary_charge(ArithOp::AddSub, &measure_number(&x), &measure_number(&y), 1);
        ctx.charge_numeric(charge)?;
        let order = x.try_cmp_exact(&y, ctx.meter())?;
        return ctx.consume_and_push(2, Value::Bool(accept(order)));
    }
    let (a, b) = (ops[0].clone(), ops[1].clone());
    let word = ctx.word_name();
    let plan = Broadcast::plan(word, OPERANDS, &a, &b)?;
    plan.check_expansion(ctx.meter())?;
    let charge = binary_charge(ArithOp::AddSub, &measure(&a), &measure(&b), plan.lanes());
    ctx.charge_numeric(charge)?;
    crate::arithmetic::charge_structure(ctx, plan.structure())?;
    let result = plan.build(ctx.meter(), |m, x, y| {
        Ok(Value::Bool(accept(x.try_cmp_exact(y, m)?)))
    })?;
    ctx.consume_and_push(2, result)
}

/// What comparing two one-limb rationals costs: the SUB price 1·1·1·1.
const COMPARE_SMALL: u64 = 1;

/// The machine's shortcut (see [`IntPair`]) of an ordering of two integers that fit
/// `i64`: the exact answer, charged as the general path charges it.
const fn int_pair(apply: fn(i64, i64) -> Option<IntPairResult>) -> Option<IntPair> {
    Some(IntPair {
        apply,
        numeric_work: COMPARE_SMALL,
        collection_work: 0,
    })
}

/// The shortcut of EQ and NEQ on two integers that fit `i64`: one pair compared.
const fn equality_pair(apply: fn(i64, i64) -> Option<IntPairResult>) -> Option<IntPair> {
    Some(IntPair {
        apply,
        numeric_work: 0,
        collection_work: 1,
    })
}

fn eq_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a == b))
}

fn neq_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a != b))
}

fn lt_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a < b))
}

fn lte_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a <= b))
}

fn gt_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a > b))
}

fn gte_pair(a: i64, b: i64) -> Option<IntPairResult> {
    Some(IntPairResult::Bool(a >= b))
}

fn lt(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ordering(ctx, |o| o == Ordering::Less)
}

fn lte(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ordering(ctx, |o| o != Ordering::Greater)
}

fn gt(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ordering(ctx, |o| o == Ordering::Greater)
}

fn gte(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ordering(ctx, |o| o != Ordering::Less)
}

const ORDER_ERRORS: &[ErrorCategory] = &[ErrorCategory::TypeMismatch, ErrorCategory::ShapeMismatch];

/// `EQ` (`=`)
pub const EQ: WordSpec = WordSpec {
    aliases: &["="],
    summary: "TRUE when the two values are equal as wholes (any domains; Vectors element by element, never lifted).",
    syntax: "a b EQ",
    stack_effect: "( a b -- bool )",
    examples: &[
        ex("1 1 =", "TRUE"),
        ex("0.5 1/2 =", "TRUE"),
        ex("[ 1 2 ] [ 1 2 ] =", "TRUE"),
        ex("1 NIL =", "NIL (nil:literal)"),
    ],
    int_pair: equality_pair(eq_pair),
    rules: r#"`a b EQ` ( a b -- bool ). [Value
equality](../reference/domains.md#value-equality) over **whole values** of any domain, never
lifted: two Vectors compare as wholes and give one Boolean. NIL: a top-level NIL operand passes
through (so `NIL NIL =` is NIL; NILs nested in Vectors compare by reason). ERROR: none besides
underflow. KEEP: keeps a and b."#,
    ..base("EQ", Family::Comparison, 2, 1, eq)
};

/// `NEQ` (`!=`)
pub const NEQ: WordSpec = WordSpec {
    aliases: &["!="],
    tier: Tier::Standard,
    summary: "TRUE when the two values differ as wholes (the negation of EQ).",
    syntax: "a b NEQ",
    stack_effect: "( a b -- bool )",
    examples: &[
        ex("1 2 NEQ", "TRUE"),
        ex("'a' 'b' !=", "TRUE"),
        ex("[ 1 2 ] [ 1 3 ] NEQ", "TRUE"),
        ex("1 NIL NEQ", "NIL (nil:literal)"),
    ],
    int_pair: equality_pair(neq_pair),
    rules: r#"`a b NEQ` ( a b -- bool ). The negation of `EQ` (same NIL rule)."#,
    ..base("NEQ", Family::Comparison, 2, 1, neq)
};

/// `LT` (`<`)
pub const LT: WordSpec = WordSpec {
    aliases: &["<"],
    errors: ORDER_ERRORS,
    summary: "TRUE when a < b, exactly; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b LT",
    stack_effect: "( a b -- a<b )",
    examples: &[
        ex("1 2 <", "TRUE"),
        ex("2 SQRT 3/2 <", "TRUE"),
        ex("[ 1 NIL 3 ] 2 <", "[ TRUE NIL FALSE ]"),
        ex("[ 1 2 3 ] [ 2 ] <", "[ TRUE FALSE FALSE ]"),
    ],
    int_pair: int_pair(lt_pair),
    rules: r#"`a b LT` ( a b -- a<b ), likewise `LTE` (≤), `GT` (>), `GTE` (≥). Operands: Numbers, or Vectors
of them, lifted by **broadcasting** ([lifting](../reference/lifting.md)) exactly like `ADD`: a
Number against a Vector compares with every leaf at any depth (ragged included); two Vectors
must both be rectangular, their shapes aligned at the innermost axis, each axis equal or 1 (a
length-1 axis is reused). Result: a Boolean, or a Vector of Booleans of the broadcast shape.
NIL: passthrough for a top-level NIL; a NIL lane yields a NIL lane. ERROR: `typeMismatch` for a
non-numeric operand or lane (Strings and Booleans are not ordered); `shapeMismatch` for shapes
that do not broadcast or a ragged Vector against a Vector. KEEP: keeps a and b."#,
    ..base("LT", Family::Comparison, 2, 1, lt)
};

/// `LTE` (`<=`)
pub const LTE: WordSpec = WordSpec {
    aliases: &["<="],
    tier: Tier::Standard,
    errors: ORDER_ERRORS,
    summary: "TRUE when a ≤ b, exactly; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b LTE",
    stack_effect: "( a b -- a<=b )",
    examples: &[
        ex("1 1 <=", "TRUE"),
        ex("[ 1 2 3 ] 2 <=", "[ TRUE TRUE FALSE ]"),
        ex("2 1 <=", "FALSE"),
        ex("'a' 1 <=", "error:typeMismatch"),
    ],
    int_pair: int_pair(lte_pair),
    rules: LT.rules,
    ..base("LTE", Family::Comparison, 2, 1, lte)
};

/// `GT` (`>`)
pub const GT: WordSpec = WordSpec {
    aliases: &[">"],
    errors: ORDER_ERRORS,
    summary: "TRUE when a > b, exactly; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b GT",
    stack_effect: "( a b -- a>b )",
    examples: &[
        ex("[ 1 2 3 ] 2 >", "[ FALSE FALSE TRUE ]"),
        ex("5 3 >", "TRUE"),
        ex("2 SQRT 3 SQRT + 10 SQRT >", "FALSE"),
        ex("[ 1 NIL ] 0 >", "[ TRUE NIL ]"),
    ],
    int_pair: int_pair(gt_pair),
    rules: LT.rules,
    ..base("GT", Family::Comparison, 2, 1, gt)
};

/// `GTE` (`>=`)
pub const GTE: WordSpec = WordSpec {
    aliases: &[">="],
    tier: Tier::Standard,
    errors: ORDER_ERRORS,
    summary: "TRUE when a ≥ b, exactly; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b GTE",
    stack_effect: "( a b -- a>=b )",
    examples: &[
        ex("1 [ 1 2 ] >=", "[ TRUE FALSE ]"),
        ex(
            "[ [ 1 2 ] [ 3 4 ] ] [ 2 3 ] >=",
            "[ [ FALSE FALSE ] [ TRUE TRUE ] ]",
        ),
        ex("1000001 SQRT 1000 >=", "TRUE"),
        ex("'b' 'a' >=", "error:typeMismatch"),
    ],
    int_pair: int_pair(gte_pair),
    rules: LT.rules,
    ..base("GTE", Family::Comparison, 2, 1, gte)
};

inventory::submit! {
    FamilyRegistration {
        module: "comparison",
        words: &[EQ, NEQ, LT, LTE, GT, GTE],
        family_rules: &[
            (
                Family::Comparison,
                r#"Comparison over Numbers is exact and total ([exact order](../reference/domains.md#number)).
Results are Booleans or Vectors of Booleans, displayed like any Vector, with brackets
([display](../reference/domains.md))."#,
            ),
        ],
    }
}
