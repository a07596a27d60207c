//! Exact arithmetic (`exactArithmetic`): ADD, SUB, MUL, DIV, MOD, FLOOR, ROUND,
//! QUANTIZE, ABS, NEG, MIN, MAX, SUM.
//!
//! Everything is exact (docs/reference/domains.md#number): binary Words lift by broadcasting and
//! unary Words by unary lifting (docs/reference/lifting.md, see [`crate::lifting`]). Checks follow
//! docs/reference/errors.md#order-of-checks: domains, then shapes and argument values, then the
//! `numericWork` charge of docs/reference/pricing-and-limits.md taken up front, then the
//! computation, where every computed Number is held to `bigintBits` and `algebraicTerms` before
//! anything is pushed. A refusal at any point leaves the operands where they were.

use crate::lifting::{
    check_numeric, lift_unary, sum_over_numbers, walked_nodes, Broadcast, Ceilings, Names, OPERANDS,
};
use crate::support::{base, describe};
use ajisai_core::limits::{Limit, Meter};
use ajisai_core::number::{Int, Number, Rat};
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::price::{self, binary_charge, measure, measure_number, ArithOp};
use ajisai_core::value::{Pay, Value};
use ajisai_core::word::{
    ex, Family, FamilyRegistration, Flow, IntPair, IntPairResult, NilPolicy, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::cmp::Ordering;

/// The five priced binary operations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl Op {
    fn priced(self) -> ArithOp {
        match self {
            Op::Add | Op::Sub => ArithOp::AddSub,
            Op::Mul => ArithOp::Mul,
            Op::Div | Op::Mod => ArithOp::DivMod,
        }
    }

    /// One lane; `None` only for a zero divisor, which callers rule out first.
    /// Products and quotients of irrationals poll `m` so a host can interrupt them.
    fn apply(self, m: &mut Meter, x: &Number, y: &Number) -> Result<Option<Number>, Halt> {
        Ok(match self {
            Op::Add => Some(x.add(y)),
            Op::Sub => Some(x.sub(y)),
            Op::Mul => Some(x.try_mul(y, m)?),
            Op::Div => x.try_div(y, m)?,
            Op::Mod => euclid_mod(m, x, y)?,
        })
    }
}

/// |n|, with an irrational sign decided under polling.
fn abs_polled(m: &mut Meter, n: &Number) -> Result<Number, Halt> {
    Ok(if n.try_signum(m)? < 0 {
        n.neg()
    } else {
        n.clone()
    })
}

/// The nearest integer, halves away from zero: sign(x)·⌊|x| + 1/2⌋
/// (docs/words/exactArithmetic.md#round).
fn round_polled(m: &mut Meter, n: &Number) -> Result<Int, Halt> {
    let half = Number::Rat(Rat::new(Int::ONE, Int::from(2i64)));
    let nearest = abs_polled(m, n)?.add(&half).try_floor(m)?;
    Ok(if n.try_signum(m)? < 0 {
        nearest.neg()
    } else {
        nearest
    })
}

/// Euclidean remainder x − |y|·⌊x/|y|⌋ (0 ≤ r < |y|); `None` for y = 0.
fn euclid_mod(m: &mut Meter, x: &Number, y: &Number) -> Result<Option<Number>, Halt> {
    if y.is_zero() {
        return Ok(None);
    }
    if let (Number::Rat(_), Number::Rat(_)) = (x, y) {
        return Ok(Some(x.euclid_mod(y)));
    }
    let modulus = abs_polled(m, y)?;
    let Some(quotient) = x.try_div(&modulus, m)? else {
        return Ok(None);
    };
    let whole = Number::from(quotient.try_floor(m)?);
    Ok(Some(x.sub(&modulus.try_mul(&whole, m)?)))
}

/// The common path of ADD, SUB, MUL, DIV and MOD.
fn arithmetic(ctx: &mut Ctx<'_>, op: Op) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    if let [Value::Number(x), Value::Number(y)] = ops {
        if let Some(r) = small_int_lane(op, x, y) {
            return small_int_result(ctx, r);
        }
        let (x, y) = (x.clone(), y.clone());
        return scalar_arithmetic(ctx, op, &x, &y);
    }
    let (a, b) = (ops[0].clone(), ops[1].clone());
    let word = ctx.word_name();
    let plan = Broadcast::plan(word, OPERANDS, &a, &b)?;
    // A zero MOD divisor is an argument error (step 4 of docs/reference/errors.md#order-of-checks),
    // so it precedes the charge.
    if op == Op::Mod && plan.zero_divisor(ctx.meter(), Pay::AsYouGo)? {
        return Err(zero_modulus(&b).into());
    }
    let charge = binary_charge(op.priced(), &measure(&a), &measure(&b), plan.lanes());
    ctx.charge_numeric(charge)?;
    charge_structure(ctx, plan.structure())?;
    // DIV projects: one zero divisor anywhere makes the whole result one NIL
    // (docs/reference/lifting.md).
    if op == Op::Div && plan.zero_divisor(ctx.meter(), Pay::Prepaid)? {
        return ctx.consume_and_push(2, Value::Nil(NilReason::DivisionByZero));
    }
    let ceilings = Ceilings::of(ctx.meter());
    let result = plan.build(ctx.meter(), |m, x, y| match op.apply(m, x, y)? {
        Some(n) => Ok(ceilings.admit(n)?),
        None => Ok(Value::Nil(NilReason::DivisionByZero)),
    })?;
    ctx.consume_and_push(2, result)
}

/// [`arithmetic`] on two single Numbers: the same checks, charge and result as its
/// broadcast of one lane, without building the broadcast (most steps are scalar).
fn scalar_arithmetic(ctx: &mut Ctx<'_>, op: Op, x: &Number, y: &Number) -> Result<Flow, Halt> {
    if op == Op::Mod && y.is_zero() {
        return Err(zero_modulus(&Value::Number(y.clone())).into());
    }
    let charge = binary_charge(op.priced(), &measure_number(x), &measure_number(y), 1);
    ctx.charge_numeric(charge)?;
    if op == Op::Div && y.is_zero() {
        return ctx.consume_and_push(2, Value::Nil(NilReason::DivisionByZero));
    }
    let ceilings = Ceilings::of(ctx.meter());
    ctx.meter().poll()?;
    let result = match op.apply(ctx.meter(), x, y)? {
        Some(n) => ceilings.admit(n)?,
        None => Value::Nil(NilReason::DivisionByZero),
    };
    ctx.consume_and_push(2, result)
}

/// The result of `x op y` when both are integers that fit `i64` and so does the
/// result (most steps of a loop or a recursion): what the general path would compute,
/// without its clones and normalization. `None` sends the operands down that path
/// (a zero divisor, an overflow, a quotient that is not an integer).
fn small_int_lane(op: Op, x: &Number, y: &Number) -> Option<i64> {
    let (a, b) = (x.small_int()?, y.small_int()?);
    debug_assert_eq!(
        binary_charge(op.priced(), &measure_number(x), &measure_number(y), 1),
        SMALL_LANE_CHARGE,
        "the small lane charges what the general path charges"
    );
    small_int(op, a, b)
}

/// `a op b` for integers that fit `i64`, when the result does too and is an integer.
fn small_int(op: Op, a: i64, b: i64) -> Option<i64> {
    match op {
        Op::Add => a.checked_add(b),
        Op::Sub => a.checked_sub(b),
        Op::Mul => a.checked_mul(b),
        Op::Div if b != 0 && a.checked_rem(b) == Some(0) => a.checked_div(b),
        Op::Div => None,
        Op::Mod if b != 0 => a.checked_rem_euclid(b),
        Op::Mod => None,
    }
}

/// The `numericWork` charge of two one-limb rationals
/// (docs/reference/pricing-and-limits.md#numericwork): 1·1·1·1.
const SMALL_LANE_CHARGE: u64 = 1;

/// The machine's shortcut (see [`IntPair`]) of an arithmetic Word: [`small_int`].
const fn int_pair(apply: fn(i64, i64) -> Option<IntPairResult>) -> Option<IntPair> {
    Some(IntPair {
        apply,
        numeric_work: SMALL_LANE_CHARGE,
        collection_work: 0,
    })
}

fn add_pair(a: i64, b: i64) -> Option<IntPairResult> {
    small_int(Op::Add, a, b).map(IntPairResult::Int)
}

fn sub_pair(a: i64, b: i64) -> Option<IntPairResult> {
    small_int(Op::Sub, a, b).map(IntPairResult::Int)
}

fn mul_pair(a: i64, b: i64) -> Option<IntPairResult> {
    small_int(Op::Mul, a, b).map(IntPairResult::Int)
}

fn div_pair(a: i64, b: i64) -> Option<IntPairResult> {
    small_int(Op::Div, a, b).map(IntPairResult::Int)
}

fn mod_pair(a: i64, b: i64) -> Option<IntPairResult> {
    small_int(Op::Mod, a, b).map(IntPairResult::Int)
}

/// Finish a small-lane step as [`scalar_arithmetic`] would: the charge of two
/// one-limb rationals (docs/reference/pricing-and-limits.md#numericwork: 1·1·1·1), the ceilings,
/// then the result.
fn small_int_result(ctx: &mut Ctx<'_>, result: i64) -> Result<Flow, Halt> {
    ctx.charge_numeric(SMALL_LANE_CHARGE)?;
    // An i64 is at most 64 bits wide and a rational has no terms: only a
    // `bigintBits` below 64 can refuse it.
    let value = if ctx.meter().ceiling(Limit::BigintBits) >= 64 {
        Value::num(result)
    } else {
        Ceilings::of(ctx.meter()).admit(Number::from(result))?
    };
    ctx.consume_and_push(2, value)
}

fn zero_modulus(divisor: &Value) -> LangError {
    match divisor {
        Value::Vector(_) => err::invalid_argument(
            "MOD needs a non-zero divisor in every lane, but its right operand holds 0 where a divisor is used; \
             remove the zero or test for it first",
        ),
        other => err::invalid_argument(format!("MOD needs a non-zero divisor, got {}", describe(other))),
    }
}

fn add(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    arithmetic(ctx, Op::Add)
}

fn sub(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    arithmetic(ctx, Op::Sub)
}

fn mul(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    arithmetic(ctx, Op::Mul)
}

fn div(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    arithmetic(ctx, Op::Div)
}

fn modulo(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    arithmetic(ctx, Op::Mod)
}

/// Charge the values a lifting walks and builds (`collectionWork`, [`price::STRUCTURE`]
/// each, docs/reference/pricing-and-limits.md#lifting): nothing for single values.
pub fn charge_structure(ctx: &mut Ctx<'_>, values: u64) -> Result<(), Halt> {
    if values > 0 {
        ctx.charge_collection(values.saturating_mul(price::STRUCTURE))?;
    }
    Ok(())
}

/// The values a unary lifting over `x` walks and builds: every value of a Vector twice
/// (read, then rebuilt), none for a single value.
pub fn unary_structure(x: &Value) -> u64 {
    walked_nodes(x).saturating_mul(2)
}

/// The `numericWork` of a unary Word over `x` (docs/reference/pricing-and-limits.md#lifting):
/// each lane priced as adding a one-limb rational to it, limbs(x)·P·L, with P = 1 for
/// rational lanes and 1,024·(terms(x) + 1) for algebraic ones.
pub fn unary_charge(x: &Value) -> u64 {
    binary_charge(
        ArithOp::AddSub,
        &measure(x),
        &measure_number(&Number::from(1)),
        x.leaf_count(),
    )
}

/// A lane function of the unary Words; it may charge and tick the meter.
type UnaryLane = fn(&mut Meter, &Number) -> Result<Number, Halt>;

/// The common path of the unary Words FLOOR, ROUND, ABS and NEG: the lanes priced as
/// [`unary_charge`] and the structure as [`charge_structure`], up front; the exact sign
/// and floor of algebraic lanes charge their own work as it goes.
fn unary(ctx: &mut Ctx<'_>, f: UnaryLane) -> Result<Flow, Halt> {
    let word = ctx.word_name();
    ctx.need(1)?;
    let x = ctx.peek(0).clone();
    check_numeric(word, "its operand", &x)?;
    ctx.charge_numeric(unary_charge(&x))?;
    charge_structure(ctx, unary_structure(&x))?;
    let ceilings = Ceilings::of(ctx.meter());
    let result = lift_unary(word, &x, ctx.meter(), |m, n| Ok(ceilings.admit(f(m, n)?)?))?;
    ctx.consume_and_push(1, result)
}

fn floor(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    unary(ctx, |m, n| Ok(Number::from(n.try_floor(m)?)))
}

fn round(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    unary(ctx, |m, n| Ok(Number::from(round_polled(m, n)?)))
}

fn abs(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    unary(ctx, abs_polled)
}

fn neg(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    unary(ctx, |_, n| Ok(n.neg()))
}

/// MIN and MAX: broadcast and select one operand per lane (the left one on a tie).
fn select(ctx: &mut Ctx<'_>, take_right: Ordering) -> Result<Flow, Halt> {
    let word = ctx.word_name();
    let ops = ctx.operands(2)?;
    let (a, b) = (ops[0].clone(), ops[1].clone());
    let plan = Broadcast::plan(word, OPERANDS, &a, &b)?;
    plan.check_expansion(ctx.meter())?;
    // Each lane is an exact comparison, priced as SUB (docs/reference/pricing-and-limits.md#comparisons).
    let charge = binary_charge(ArithOp::AddSub, &measure(&a), &measure(&b), plan.lanes());
    ctx.charge_numeric(charge)?;
    charge_structure(ctx, plan.structure())?;
    let result = plan.build(ctx.meter(), |m, x, y| {
        let pick = if y.try_cmp_exact(x, m)? == take_right {
            y
        } else {
            x
        };
        Ok(Value::Number(pick.clone()))
    })?;
    ctx.consume_and_push(2, result)
}

fn min(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    select(ctx, Ordering::Less)
}

fn max(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    select(ctx, Ordering::Greater)
}

/// QUANTIZE's denominator: a Number, possibly wrapped in one-element Vectors; it is
/// never lifted. Anything else is `typeMismatch`.
fn quantize_denominator(d: &Value) -> Result<&Number, LangError> {
    let mut cur = d;
    loop {
        match cur {
            Value::Number(n) => return Ok(n),
            Value::Vector(items) if items.len() == 1 => cur = &items.items()[0],
            _ => {
                return Err(err::type_mismatch(format!(
                    "QUANTIZE needs a Number d (or a one-element Vector holding one); d is not lifted, got {}",
                    describe(d)
                )))
            }
        }
    }
}

fn quantize(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let (x, d) = (ops[0].clone(), ops[1].clone());
    // QUANTIZE fixes this order (docs/words/exactArithmetic.md#quantize): d's domain, then d's
    // value (a NIL without looking at x), then x.
    let dn = quantize_denominator(&d)?.clone();
    let dint = match dn.as_int() {
        Some(i) if i.signum() > 0 => i.clone(),
        _ => return ctx.consume_and_push(2, Value::Nil(NilReason::DomainMiss)),
    };
    check_numeric("QUANTIZE", "its operand x", &x)?;
    let md = measure_number(&dn);
    let charge = sum_over_numbers(&x, |n| {
        let mx = measure_number(n);
        binary_charge(ArithOp::Mul, &mx, &md, 1).saturating_add(mx.limbs.saturating_mul(md.limbs))
    });
    ctx.charge_numeric(charge)?;
    charge_structure(ctx, unary_structure(&x))?;
    let ceilings = Ceilings::of(ctx.meter());
    let result = lift_unary("QUANTIZE", &x, ctx.meter(), |m, n| {
        let scaled = n.try_mul(&dn, m)?;
        let q = Rat::new(round_polled(m, &scaled)?, dint.clone());
        Ok(ceilings.admit(Number::Rat(q))?)
    })?;
    ctx.consume_and_push(2, result)
}

fn sum(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let v = ctx.peek(0).clone();
    let Value::Vector(items) = &v else {
        return Err(err::type_mismatch(format!(
            "SUM needs a Vector (of Numbers or of Vectors of Numbers), got {}",
            describe(&v)
        ))
        .into());
    };
    let ceilings = Ceilings::of(ctx.meter());
    let mut total = Value::num(0);
    for (i, item) in items.items().iter().enumerate() {
        // ADD's passthrough: once the sum is NIL, later elements are not examined;
        // a NIL element makes the sum that NIL. Neither charges anything.
        if total.is_nil() {
            break;
        }
        if item.is_nil() {
            total = item.clone();
            continue;
        }
        if let (Value::Number(x), Value::Number(y)) = (&total, item) {
            // The one lane of the broadcast below, without building it (or the
            // element's name, which only its refusals use).
            let charge = binary_charge(ArithOp::AddSub, &measure_number(x), &measure_number(y), 1);
            ctx.charge_numeric(charge)?;
            ctx.meter().poll()?;
            let next = ceilings.admit(x.add(y))?;
            total = next;
            continue;
        }
        let element = format!("element {i} of its operand");
        let names = Names {
            left: "the running sum",
            right: &element,
        };
        let plan = Broadcast::plan("SUM", names, &total, item)?;
        let charge = binary_charge(
            ArithOp::AddSub,
            &measure(&total),
            &measure(item),
            plan.lanes(),
        );
        ctx.charge_numeric(charge)?;
        charge_structure(ctx, plan.structure())?;
        let next = plan.build(ctx.meter(), |_, x, y| Ok(ceilings.admit(x.add(y))?))?;
        total = next;
    }
    ctx.consume_and_push(1, total)
}

const TYPE: &[ErrorCategory] = &[ErrorCategory::TypeMismatch];
const TYPE_SHAPE: &[ErrorCategory] = &[ErrorCategory::TypeMismatch, ErrorCategory::ShapeMismatch];
const MOD_ERRORS: &[ErrorCategory] = &[
    ErrorCategory::TypeMismatch,
    ErrorCategory::ShapeMismatch,
    ErrorCategory::InvalidArgument,
];

/// `ADD` (`+`)
pub const ADD: WordSpec = WordSpec {
    aliases: &["+"],
    errors: TYPE_SHAPE,
    summary: "Exact sum a+b; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b ADD",
    stack_effect: "( a b -- a+b )",
    examples: &[
        ex("1 2 +", "3/1"),
        ex("1/2 1/3 +", "5/6"),
        ex("[ 1 2 3 ] [ 4 5 6 ] +", "[ 5/1 7/1 9/1 ]"),
        ex("[ [ 1 2 ] [ 3 ] ] [ 1 2 ] +", "error:shapeMismatch"),
    ],
    int_pair: int_pair(add_pair),
    rules: r#"`a b ADD` ( a b -- a+b ); `SUB` gives a−b; `MUL` gives a·b. Operands: Numbers or Vectors of
Numbers (broadcasting, [lifting](../reference/lifting.md)). NIL: passthrough; NIL lanes pass
through. ERROR: `typeMismatch` (a Boolean, String, CodeBlock operand or lane); `shapeMismatch`
(shapes that do not broadcast; a ragged Vector against a Vector). KEEP: keeps a and b."#,
    ..base("ADD", Family::ExactArithmetic, 2, 1, add)
};

/// `SUB` (`-`)
pub const SUB: WordSpec = WordSpec {
    aliases: &["-"],
    tier: Tier::Standard,
    errors: TYPE_SHAPE,
    summary: "Exact difference a−b; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b SUB",
    stack_effect: "( a b -- a-b )",
    examples: &[
        ex("5 3 -", "2/1"),
        ex("1/2 1/3 -", "1/6"),
        ex("10 [ 1 2 3 ] -", "[ 9/1 8/1 7/1 ]"),
        ex("NIL 1 -", "NIL (nil:literal)"),
    ],
    int_pair: int_pair(sub_pair),
    rules: ADD.rules,
    ..base("SUB", Family::ExactArithmetic, 2, 1, sub)
};

/// `MUL` (`*`)
pub const MUL: WordSpec = WordSpec {
    aliases: &["*"],
    errors: TYPE_SHAPE,
    summary: "Exact product a·b; lifts over Vectors of Numbers by broadcasting.",
    syntax: "a b MUL",
    stack_effect: "( a b -- a*b )",
    examples: &[
        ex("2 4 *", "8/1"),
        ex("[ 1 2 3 ] [ 10 ] *", "[ 10/1 20/1 30/1 ]"),
        ex("2 SQRT 3 SQRT *", "sqrt(6)"),
        ex("[ 1 2 3 ] [ 1 2 ] *", "error:shapeMismatch"),
    ],
    int_pair: int_pair(mul_pair),
    rules: ADD.rules,
    ..base("MUL", Family::ExactArithmetic, 2, 1, mul)
};

/// `DIV` (`/`)
pub const DIV: WordSpec = WordSpec {
    aliases: &["/"],
    nil_policy: NilPolicy::PassthroughThenProject,
    projections: &[NilReason::DivisionByZero],
    errors: TYPE_SHAPE,
    summary:
        "Exact quotient a/b; a zero divisor in any lane makes the whole result NIL(divisionByZero).",
    syntax: "a b DIV",
    stack_effect: "( a b -- a/b )",
    examples: &[
        ex("10 4 /", "5/2"),
        ex("1 0 /", "NIL (nil:divisionByZero)"),
        ex("[ 1 2 ] [ 1 0 ] /", "NIL (nil:divisionByZero)"),
        ex("1 2 SQRT /", "1/2*sqrt(2)"),
    ],
    int_pair: int_pair(div_pair),
    rules: r#"`a b DIV` ( a b -- a/b ). Exact quotient. Projection: a zero divisor gives
`NIL(divisionByZero)`; for Vectors, a zero divisor in **any** lane makes the whole result one
`NIL(divisionByZero)`. Otherwise as `ADD`. KEEP: keeps a and b (and the NIL result is pushed
above them)."#,
    ..base("DIV", Family::ExactArithmetic, 2, 1, div)
};

/// `MOD` (`%`)
pub const MOD: WordSpec = WordSpec {
    aliases: &["%"],
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: MOD_ERRORS,
    summary: "Euclidean remainder a − |b|·⌊a/|b|⌋, always 0 ≤ r < |b|; a zero divisor is invalidArgument.",
    syntax: "a b MOD",
    stack_effect: "( a b -- a mod b )",
    examples: &[
        ex("7 3 %", "1/1"),
        ex("-7 3 %", "2/1"),
        ex("7 -3 %", "1/1"),
        ex("7 0 %", "error:invalidArgument"),
    ],
    int_pair: int_pair(mod_pair),
    rules: r#"`a b MOD` ( a b -- a mod b ). Euclidean remainder: r = a − |b|·⌊a/|b|⌋, so 0 ≤ r < |b| for
every sign combination; defined for rational and algebraic operands. Lifting: broadcasting
([lifting](../reference/lifting.md)). NIL: passthrough; NIL lanes pass through (a zero divisor
in another lane is still an ERROR). ERROR: `invalidArgument` when the divisor (or any divisor
lane) is zero; otherwise as `ADD`. KEEP: keeps a and b."#,
    ..base("MOD", Family::ExactArithmetic, 2, 1, modulo)
};

/// `FLOOR`
pub const FLOOR: WordSpec = WordSpec {
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE,
    summary: "The largest integer ≤ x, exact also for square roots; lifts over Vectors.",
    syntax: "x FLOOR",
    stack_effect: "( x -- floor(x) )",
    examples: &[
        ex("7/3 FLOOR", "2/1"),
        ex("-7/3 FLOOR", "-3/1"),
        ex("[ 7/3 [ -1/2 ] ] FLOOR", "[ 2/1 [ -1/1 ] ]"),
        ex("'a' FLOOR", "error:typeMismatch"),
    ],
    rules: r#"`x FLOOR` ( x -- ⌊x⌋ ). Largest integer ≤ x; exact for algebraic x ([exact
order](../reference/domains.md#number)). Unary lifting. NIL: passthrough (and NIL lanes).
ERROR: `typeMismatch` for a non-numeric operand or lane. KEEP: keeps x."#,
    ..base("FLOOR", Family::ExactArithmetic, 1, 1, floor)
};

/// `ROUND`
pub const ROUND: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE,
    summary: "The nearest integer, halves away from zero, exact also for square roots; lifts over Vectors.",
    syntax: "x ROUND",
    stack_effect: "( x -- round(x) )",
    examples: &[
        ex("5/2 ROUND", "3/1"),
        ex("-5/2 ROUND", "-3/1"),
        ex("7/3 ROUND", "2/1"),
        ex("[ 7/2 [ -7/2 ] NIL ] ROUND", "[ 4/1 [ -4/1 ] NIL ]"),
    ],
    rules: r#"`x ROUND` ( x -- round(x) ). Nearest integer; halves round **away from zero** (5/2 → 3, −5/2 →
−3): round(x) = sign(x)·⌊|x| + 1/2⌋. An algebraic x is never a half, so it goes to the nearest
integer, decided exactly ([exact order](../reference/domains.md#number)). Otherwise as `FLOOR`."#,
    ..base("ROUND", Family::ExactArithmetic, 1, 1, round)
};

/// `QUANTIZE`
pub const QUANTIZE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    projections: &[NilReason::DomainMiss],
    errors: TYPE,
    summary: "Round x to the nearest multiple of 1/d (halves away from zero); d must be a positive integer, else NIL(domainMiss).",
    syntax: "x d QUANTIZE",
    stack_effect: "( x d -- q )",
    examples: &[
        ex("[ 119/125 32/125 ] 10 QUANTIZE", "[ 1/1 3/10 ]"),
        ex("5/100 10 QUANTIZE", "1/10"),
        ex("-5/100 10 QUANTIZE", "-1/10"),
        ex("1/3 0 QUANTIZE", "NIL (nil:domainMiss)"),
    ],
    rules: r#"`x d QUANTIZE` ( x d -- q ). Rounds x to the nearest multiple of 1/d, halves away from zero: q
= round(x·d)/d with `ROUND`'s rounding (exact for algebraic x); the result's denominator
divides d. x: a Number or a Vector (unary lifting over x; algebraic x allowed). d: a Number, or
one-element Vectors wrapping one as for an integer operand (`[ 10 ]`, `[ [ 10 ] ]`); it is
**not** lifted. Projection: d not a positive integer (zero, negative, fractional, irrational) →
`NIL(domainMiss)` as the whole result. Order (a per-Word deviation from [order of
checks](../reference/errors.md#order-of-checks)): NIL passthrough (a NIL x or d gives that
NIL); then d: not a Number → `typeMismatch`, not a positive integer → `NIL(domainMiss)` without
examining x (so `'a' 0 QUANTIZE` is `NIL`); then x. NIL lanes of x pass through. ERROR:
`typeMismatch` when d is not a Number (a Vector of length ≠ 1, or one wrapping a non-Number,
included) or x has a non-numeric lane. KEEP: keeps x and d."#,
    ..base("QUANTIZE", Family::ExactArithmetic, 2, 1, quantize)
};

/// `ABS`
pub const ABS: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE,
    summary: "The absolute value |x|, exact also for square roots; lifts over Vectors.",
    syntax: "x ABS",
    stack_effect: "( x -- |x| )",
    examples: &[
        ex("-2 ABS", "2/1"),
        ex("[ -1 2 -3 ] ABS", "[ 1/1 2/1 3/1 ]"),
        ex("2 SQRT NEG ABS", "sqrt(2)"),
        ex("TRUE ABS", "error:typeMismatch"),
    ],
    rules: r#"`x ABS` ( x -- |x| ); `x NEG` ( x -- −x ). Unary lifting; exact for algebraic x. NIL:
passthrough. ERROR: `typeMismatch` for a non-numeric operand or lane. KEEP: keeps x."#,
    ..base("ABS", Family::ExactArithmetic, 1, 1, abs)
};

/// `NEG`
pub const NEG: WordSpec = WordSpec {
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE,
    summary: "The negation −x, exact also for square roots; lifts over Vectors.",
    syntax: "x NEG",
    stack_effect: "( x -- -x )",
    examples: &[
        ex("[ 1 -2 ] NEG", "[ -1/1 2/1 ]"),
        ex("0 NEG", "0/1"),
        // docs/reference/keep.md, docs/reference/lifting.md
        ex("5 'X' BIND 3 KEEP X NEG", "3/1 | -5/1"),
        ex("[ 1 NIL ] NEG", "[ -1/1 NIL ]"),
    ],
    rules: ABS.rules,
    ..base("NEG", Family::ExactArithmetic, 1, 1, neg)
};

/// `MIN`
pub const MIN: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE_SHAPE,
    summary:
        "The smaller of a and b by exact order (the left one on a tie); lifts by broadcasting.",
    syntax: "a b MIN",
    stack_effect: "( a b -- min )",
    examples: &[
        ex("1 2 MIN", "1/1"),
        ex("[ 1 5 ] [ 3 2 ] MIN", "[ 1/1 2/1 ]"),
        ex("[ 1 2 3 ] [ 2 ] MIN", "[ 1/1 2/1 2/1 ]"),
        ex("[ [ 1 2 ] [ 3 ] ] [ 0 5 ] MIN", "error:shapeMismatch"),
    ],
    rules: r#"`a b MIN` ( a b -- min ), `a b MAX` ( a b -- max ). Selects one of the two operands by exact
order (ties select the left one; they are equal anyway). Lifting: **broadcasting**
([lifting](../reference/lifting.md)), exactly like `ADD`: a Number against a Vector pairs with
every leaf at any depth; two Vectors must both be rectangular, their shapes aligned at the
**innermost** axis, each axis equal or 1 (reused). NIL: passthrough; NIL lanes pass through.
ERROR: `typeMismatch` (non-numeric operand or lane); `shapeMismatch` (shapes that do not
broadcast; a ragged Vector against a Vector). KEEP: keeps a and b."#,
    ..base("MIN", Family::ExactArithmetic, 2, 1, min)
};

/// `MAX`
pub const MAX: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::PassthroughThenProject,
    errors: TYPE_SHAPE,
    summary: "The larger of a and b by exact order (the left one on a tie); lifts by broadcasting.",
    syntax: "a b MAX",
    stack_effect: "( a b -- max )",
    examples: &[
        ex("[ -1 2 -3 ] 0 MAX", "[ 0/1 2/1 0/1 ]"),
        ex(
            "[ [ 1 2 ] [ 3 4 ] ] [ 0 5 ] MAX",
            "[ [ 1/1 5/1 ] [ 3/1 5/1 ] ]",
        ),
        ex("2 SQRT 3/2 MAX", "3/2"),
        ex("[ 1 2 ] [ 1 2 3 ] MAX", "error:shapeMismatch"),
    ],
    rules: MIN.rules,
    ..base("MAX", Family::ExactArithmetic, 2, 1, max)
};

/// `SUM`
pub const SUM: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE_SHAPE,
    summary: "The left fold of ADD over a Vector's elements from 0: ((0 + v0) + v1) + …",
    syntax: "v SUM",
    stack_effect: "( v -- s )",
    examples: &[
        ex("[ 1 2 3 ] SUM", "6/1"),
        ex("[ ] SUM", "0/1"),
        ex("[ [ 1 2 ] [ 3 4 ] ] SUM", "[ 4/1 6/1 ]"),
        ex("[ 1 NIL ] SUM", "NIL (nil:literal)"),
    ],
    rules: r#"`v SUM` ( v -- s ). The left fold of `ADD` over v's outermost elements, starting from 0: ((0 +
v₀) + v₁) + …; the empty Vector sums to `0/1`. Elements may be Numbers or Vectors (added by
`ADD`, i.e. broadcasting, [lifting](../reference/lifting.md)). NIL: a NIL operand passes
through; a NIL element makes the sum NIL (by `ADD`'s passthrough), and every later addition
then passes that NIL through without examining its element (`[ 1 NIL 'a' ] SUM` is NIL, `[ 'a'
NIL ] SUM` is `typeMismatch`). ERROR: `typeMismatch` (v not a Vector; a non-numeric element
reached by the fold); `shapeMismatch` (elements that do not broadcast). Either leaves v in
place. KEEP: keeps v."#,
    ..base("SUM", Family::ExactArithmetic, 1, 1, sum)
};

inventory::submit! {
    FamilyRegistration {
        module: "arithmetic",
        words: &[ADD, SUB, MUL, DIV, MOD, FLOOR, ROUND, QUANTIZE, ABS, NEG, MIN, MAX, SUM],
        family_rules: &[
            (
                Family::ExactArithmetic,
                r#"All arithmetic is exact ([Numbers](../reference/domains.md#number)). Binary Words (`ADD` `SUB`
`MUL` `DIV` `MOD` `POW` `MIN` `MAX`) lift by **broadcasting**, the one binary rule of
[lifting](../reference/lifting.md); unary Words by unary lifting
([lifting](../reference/lifting.md)). Every result is checked against `bigintBits` and
`algebraicTerms` before it is pushed, and `ADD` `SUB` `MUL` `DIV` `MOD` `QUANTIZE` `POW` `SQRT`
`SUM` charge `numericWork` as [pricing](../reference/pricing-and-limits.md) prices them (the
other Words here charge none); a refusal leaves the operands."#,
            ),
        ],
    }
}
