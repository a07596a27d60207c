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
    rules: r#"`x SQRT` ( x -- √x ). Exact square root of a **rational** x ≥ 0 in canonical form
([Numbers](../reference/domains.md#number)): rational when x is a perfect square of a rational,
algebraic otherwise. Unary lifting. Projection: x < 0 → `NIL(domainMiss)` (per lane). NIL:
passthrough (and NIL lanes). ERROR: `typeMismatch` when x (or a lane) is algebraic or
non-numeric; `resourceLimitExceeded` (`numericWork`) when the radicand cannot be decomposed
within the budget ([the square-free
decomposition](../reference/pricing-and-limits.md#numericwork), priced in
[pricing](../reference/pricing-and-limits.md)). KEEP: keeps x. Field: `extends`."#,
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
    rules: r#"`b e POW` ( b e -- bᵉ ). Exact power. Lifting: broadcasting
([lifting](../reference/lifting.md)) over b and e. Let e = p/q in lowest terms (q ≥ 1).

- **e an integer** (q = 1): b may be any Number (rational or algebraic). e ≥ 0: b multiplied e
  times (square-and-multiply), with 0⁰ = 1. e < 0: 1/b^|e|; b = 0 → `NIL(divisionByZero)`.
- **e a non-integer rational** (q ≥ 2): b must be **rational** (an algebraic b is
  `typeMismatch`, exactly like `SQRT`). b < 0 → `NIL(domainMiss)`. b = 0: e > 0 → 0; e < 0 →
  `NIL(divisionByZero)`. b > 0: if b is a perfect q-th power of a rational r, the result is rᵖ;
  else if q is even and b is a perfect (q/2)-th power of a rational t, the result is (√t)ᵖ =
  t^((p−1)/2)·√t (p is odd here), in canonical form; otherwise the value lies outside the field
  → `NIL(domainMiss)`. This case analysis is complete: a real q-th root of a rational lies in
  the multiquadratic field only when its square is rational. Consequently `b 1/2 POW` has
  exactly the outcomes of `b SQRT` for every b.
- **e algebraic** (irrational) or non-numeric: `typeMismatch`.

NIL: passthrough (left-most); NIL lanes pass through; projections are per lane (a lane with no
value becomes a NIL in place, unlike `DIV`). ERROR: `typeMismatch` as above or for non-numeric
operands; `shapeMismatch` (broadcasting); `resourceLimitExceeded`: `bigintBits` when a
numerator or denominator of the exact result would be wider than the limit — decided before the
result is built, leaving the operands (for a rational b = n/d ∉ {0, 1, −1} the width of bᵉ lies
between |e|·(w−1)+1 and |e|·w where w is the width of max(|n|, d), so |e| > `bigintBits` always
fails; for algebraic b it is decided by repeated squaring, never building an integer wider
than twice the limit while deciding). For rational b the refusal is decided on
the lower bound |e|·(w−1)+1 (w = bit length of max(|n|, d)): when it exceeds the limit that
bound is the message's `observed`; otherwise the power is built (at most |e|·w bits) and its
exact width decides and is reported. `algebraicTerms` as for `MUL`; `numericWork` per
multiplication ([pricing](../reference/pricing-and-limits.md)). KEEP: keeps b and e. Field:
`extends`."#,
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
    rules: r#"`seed count RANDOM` ( seed count -- v ). A Vector of `count` exact rationals in [0, 1),
determined entirely by `seed`. seed: an integer operand in the signed 64-bit range (outside →
`invalidArgument`); count: an integer operand ≥ 0. Algorithm (normative, SplitMix64): state :=
seed as an unsigned 64-bit integer (two's complement); for each draw: state := state +
0x9E3779B97F4A7C15 (mod 2⁶⁴); z := state; z := (z ⊕ (z ≫ 30))·0xBF58476D1CE4E5B9 (mod 2⁶⁴); z
:= (z ⊕ (z ≫ 27))·0x94D049BB133111EB (mod 2⁶⁴); z := z ⊕ (z ≫ 31); the draw is (z mod 2⁵³)/2⁵³,
reduced. Element i (0-based) is draw i + 1 from the one state sequence, so a longer count
extends a shorter one (`42 5 RANDOM 3 TAKE` = `42 3 RANDOM`); count 0 gives `[ ]`. NIL:
`rejectNil` (`typeMismatch`). ERROR: `typeMismatch` (non-numeric operand); `invalidArgument`
(non-integer, count < 0, seed out of range); `resourceLimitExceeded` (`materializedElements`)
when count exceeds the limit — compared as an exact integer, so a count beyond 64-bit range is
this error too —, operands left in place. KEEP: keeps seed and count. `seed n RANDOM ORDER` is
a shuffle permutation of 0…n−1."#,
    ..base("RANDOM", Family::ExactArithmetic, 2, 1, random)
};

inventory::submit! {
    FamilyRegistration {
        module: "math",
        words: &[SQRT, POW, RANDOM],
        family_rules: &[],
    }
}
