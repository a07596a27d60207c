//! Roots, powers and pseudo-random draws (`exactArithmetic`): SQRT, POW, RANDOM.
//!
//! `SQRT` and `POW` are the only Core Words that leave ℚ (field `extends`): an exact
//! square root of a rational is a canonical multiquadratic Number
//! (docs/reference/domains.md#number), found by the square-free decomposition, whose trial
//! divisions are charged to `numericWork` as they run
//! (docs/reference/pricing-and-limits.md#numericwork). `RANDOM` is SplitMix64 exactly as
//! docs/words/exactArithmetic.md#random states it, so a seed determines every draw on every
//! host.

use crate::lifting::{any_leaf, check_numeric, first_leaf, lift_unary, Broadcast, Ceilings, Names};
use crate::support::{base, describe, integer_operand};
use ajisai_core::limits::{exceeded, Limit};
use ajisai_core::number::roots::{pow as exact_pow, sqrt_rat, PowLimits};
use ajisai_core::number::{Int, Number, Rat};
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::price::GENERATED_ELEMENT;
use ajisai_core::value::{LeafKinds, Pay, Value};
use ajisai_core::word::{
    ex, Family, FamilyRegistration, Field, FieldRule, Flow, NilPolicy, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};

fn sqrt(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let x = ctx.peek(0).clone();
    // `createsNil`: the machine leaves NIL handling to the Word; a NIL operand passes.
    if x.is_nil() {
        return ctx.consume_and_push(1, x);
    }
    check_numeric("SQRT", "its operand", &x)?;
    if let Some(alg) = first_leaf(&x, LeafKinds::ALGEBRAIC, |leaf| {
        matches!(leaf, Value::Number(Number::Alg(_)))
    }) {
        return Err(err::type_mismatch(format!(
            "SQRT takes square roots of rational Numbers only, got {} (already irrational)",
            describe(alg)
        ))
        .into());
    }
    // Every lane priced as a unary Word's, the structure rebuilt, then the square-free
    // decomposition's trial divisions as they run (docs/reference/pricing-and-limits.md#numericwork).
    ctx.charge_numeric(crate::arithmetic::unary_charge(&x))?;
    crate::arithmetic::charge_structure(ctx, crate::arithmetic::unary_structure(&x))?;
    let ceilings = Ceilings::of(ctx.meter());
    let result = lift_unary("SQRT", &x, ctx.meter(), |m, n| {
        let Some(r) = n.as_rat() else {
            return Err(err::type_mismatch(format!(
                "SQRT takes square roots of rational Numbers only, got {n}"
            ))
            .into());
        };
        match sqrt_rat(r, m)? {
            Some(root) => Ok(ceilings.admit(root)?),
            None => Ok(Value::Nil(NilReason::DomainMiss)),
        }
    })?;
    ctx.consume_and_push(1, result)
}

/// The names of POW's operands in messages.
const POW_OPERANDS: Names<'static> = Names {
    left: "its base",
    right: "its exponent",
};

fn pow(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let (b, e) = (ops[0].clone(), ops[1].clone());
    check_numeric("POW", POW_OPERANDS.left, &b)?;
    check_numeric("POW", POW_OPERANDS.right, &e)?;
    // Every domain check comes before the shape check (docs/reference/errors.md#order-of-checks),
    // so an irrational exponent is refused wherever it stands.
    if let Some(alg) = first_leaf(&e, LeafKinds::ALGEBRAIC, |leaf| {
        matches!(leaf, Value::Number(Number::Alg(_)))
    }) {
        return Err(err::type_mismatch(format!(
            "POW needs a rational exponent, got {}; only bases may be irrational",
            describe(alg)
        ))
        .into());
    }
    let plan = Broadcast::plan("POW", POW_OPERANDS, &b, &e)?;
    // An irrational base only takes integer exponents; this needs the lanes paired
    // (after the shape check), and is skipped unless both kinds of leaf occur.
    let irrational_base = any_leaf(&b, LeafKinds::ALGEBRAIC, |l| {
        matches!(l, Value::Number(Number::Alg(_)))
    });
    let fractional_exponent = any_leaf(
        &e,
        LeafKinds::NON_INTEGER,
        |l| matches!(l, Value::Number(n) if !n.is_integer()),
    );
    if irrational_base && fractional_exponent {
        let bad = plan.find_numbers(ctx.meter(), Pay::AsYouGo, |x, y| {
            matches!(x, Number::Alg(_)) && !y.is_integer()
        })?;
        if let Some((x, y)) = bad {
            return Err(err::type_mismatch(format!(
                "POW with a non-integer exponent ({y}) needs a rational base, got the Number {x}; \
                 roots of irrational Numbers are outside the language"
            ))
            .into());
        }
    }
    // One unit a lane, whatever its exponent, and the structure; the multiplications
    // are charged as they run (docs/reference/pricing-and-limits.md#numericwork).
    ctx.charge_numeric(plan.lanes().max(1))?;
    crate::arithmetic::charge_structure(ctx, plan.structure())?;
    let meter = ctx.meter();
    let ceilings = Ceilings::of(meter);
    let limits = PowLimits {
        bigint_bits: ceilings.bits,
        algebraic_terms: ceilings.terms,
    };
    let result = plan.build(meter, |m, x, y| {
        let Some(p) = y.as_rat() else {
            return Err(err::type_mismatch(format!(
                "POW needs a rational exponent, got {}",
                ajisai_core::value::short_number_text(y)
            ))
            .into());
        };
        match exact_pow(x, p, m, limits)? {
            Ok(n) => Ok(ceilings.admit(n)?),
            Err(reason) => Ok(Value::Nil(reason)),
        }
    })?;
    ctx.consume_and_push(2, result)
}

/// SplitMix64 (docs/words/exactArithmetic.md#random): the state after `seed` and the draws that
/// follow.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// 2⁵³, the denominator of every draw before reduction.
const DRAW_SCALE: i64 = 1 << 53;

fn random(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let seed = integer_operand("RANDOM", "seed", &ops[0]);
    let count = integer_operand("RANDOM", "count", &ops[1]);
    // typeMismatch of either operand outranks invalidArgument of the other
    // (docs/reference/errors.md#order-of-checks).
    for r in [&seed, &count] {
        if let Err(e) = r {
            if e.category == ErrorCategory::TypeMismatch {
                return Err(e.clone().into());
            }
        }
    }
    let (seed, count) = (seed?, count?);
    let Some(seed) = seed.to_i64() else {
        return Err(err::invalid_argument(format!(
            "RANDOM needs a seed in the signed 64-bit range ({} to {}), got {seed}",
            i64::MIN,
            i64::MAX
        ))
        .into());
    };
    if count.is_negative() {
        return Err(err::invalid_argument(format!(
            "RANDOM needs a count of 0 or more, got {count}"
        ))
        .into());
    }
    let n = count_within_limit(ctx, &count)?;
    ctx.charge_collection(GENERATED_ELEMENT.saturating_mul(n))?;
    // Two's complement: a negative seed is its unsigned 64-bit pattern.
    let mut gen = SplitMix64(seed as u64);
    let scale = Int::from(DRAW_SCALE);
    let mut draws = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    for _ in 0..n {
        ctx.meter().tick(1)?;
        let z = gen.next() & (DRAW_SCALE as u64 - 1);
        draws.push(Value::num(Rat::new(Int::from(z), scale.clone())));
    }
    ctx.consume_and_push(2, Value::vector(draws))
}

/// The count as a machine integer, after the `materializedElements` check made on
/// the exact value (a count beyond 64-bit range is refused too, not wrapped).
fn count_within_limit(ctx: &mut Ctx<'_>, count: &Int) -> Result<u64, LangError> {
    let limit = ctx.meter().ceiling(Limit::MaterializedElements);
    match count.to_u64() {
        Some(n) if n <= limit => Ok(n),
        _ => Err(exceeded(Limit::MaterializedElements, count, limit)),
    }
}

/// `SQRT`
pub const SQRT: WordSpec = WordSpec {
    field: Field::Extends,
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::DomainMiss],
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Exact square root of a rational x ≥ 0 in canonical form; a negative x gives NIL(domainMiss). Lifts over Vectors.",
    syntax: "x SQRT",
    stack_effect: "( x -- sqrt(x) )",
    examples: &[
        ex("2 SQRT", "sqrt(2)"),
        ex("8 SQRT", "2/1*sqrt(2)"),
        ex("1/4 SQRT", "1/2"),
        ex("-4 SQRT", "NIL (nil:domainMiss)"),
    ],
    ..base("SQRT", Family::ExactArithmetic, 1, 1, sqrt)
};

/// `POW`
pub const POW: WordSpec = WordSpec {
    field_rule: FieldRule::ClosedAfterIntegerLiteral,
    tier: Tier::Standard,
    field: Field::Extends,
    nil_policy: NilPolicy::PassthroughThenProject,
    projections: &[NilReason::DivisionByZero, NilReason::DomainMiss],
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::ShapeMismatch],
    summary: "Exact power b^e for a rational exponent e; fractional exponents take exact roots where they exist. Lifts by broadcasting.",
    syntax: "b e POW",
    stack_effect: "( b e -- b^e )",
    examples: &[
        ex("2 10 POW", "1024/1"),
        ex("2 -2 POW", "1/4"),
        ex("-2 3 POW", "-8/1"),
        ex("0 -1 POW", "NIL (nil:divisionByZero)"),
    ],
    ..base("POW", Family::ExactArithmetic, 2, 1, pow)
};

/// `RANDOM`
pub const RANDOM: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument],
    summary: "A Vector of count exact rationals in [0, 1), determined by the seed (SplitMix64).",
    syntax: "seed count RANDOM",
    stack_effect: "( seed count -- v )",
    examples: &[
        ex("7 3 RANDOM", "[ 3344595609062871/9007199254740992 861149483440519/2251799813685248 3413160536610049/4503599627370496 ]"),
        ex("[ 7 ] [ 2 ] RANDOM", "[ 3344595609062871/9007199254740992 861149483440519/2251799813685248 ]"),
        ex("-1 1 RANDOM", "[ 223800962263393/281474976710656 ]"),
        ex("7 -1 RANDOM", "error:invalidArgument"),
    ],
    ..base("RANDOM", Family::ExactArithmetic, 2, 1, random)
};

inventory::submit! {
    FamilyRegistration { module: "math", words: &[SQRT, POW, RANDOM] }
}
