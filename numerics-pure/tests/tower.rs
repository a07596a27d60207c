//! The numeric examples of the guide (docs/reference/domains.md#number,
//! docs/reference/pricing-and-limits.md) and of SQRT, POW, FLOOR, ROUND and MOD
//! (docs/words/exactArithmetic.md), run at the Number API level; MCP-30 (docs/mcp/envelope.md)
//! approximations; work charges of SQRT and POW; limit refusals of POW.

use crate::common::{num, run, run_with, sqrt, Counting, MCP};
use ajisai_core::limits::Halt;
use ajisai_core::number::roots::{pow, sqrt_rat, PowLimits};
use ajisai_core::number::{Alg, Int, Number, Rat};

fn setup() {
    ajisai_numerics_pure::link();
}

fn check(src: &str, expect: &str) {
    setup();
    assert_eq!(run(src), expect, "program: {src}");
}

fn charged(src: &str) -> u64 {
    setup();
    let mut b = Counting::default();
    run_with(src, &mut b);
    b.total
}

#[test]
fn language_4_2_1_domain() {
    check("8 SQRT 2 SQRT 2 SQRT + =", "TRUE");
    check("8 SQRT", "2/1*sqrt(2)");
    check("2 SQRT 2 SQRT *", "2/1");
    check("2 SQRT 3 SQRT + 2 SQRT 3 SQRT - *", "-1/1");
    check("12 SQRT 3 SQRT +", "3/1*sqrt(3)");
}

#[test]
fn language_4_2_4_order_and_floor() {
    check("2 SQRT 3 SQRT <", "TRUE");
    check("2 SQRT 3 SQRT + 10 SQRT >", "FALSE");
    check("2 SQRT 3/2 MIN", "sqrt(2)");
    check("2 SQRT NEG FLOOR", "-2/1");
    check("7 2 SQRT MOD", "7/1-4/1*sqrt(2)");
}

#[test]
fn language_10_1_display() {
    check("3", "3/1");
    check("-1/2", "-1/2");
    check("2 SQRT", "sqrt(2)");
    check("1/2 SQRT", "1/2*sqrt(2)");
    check("2 SQRT 3 SQRT +", "sqrt(2)+sqrt(3)");
    check("2 SQRT 3 SQRT -", "sqrt(2)-sqrt(3)");
    check("2 SQRT 1 +", "1/1+sqrt(2)");
    check("5 SQRT 3 / NEG", "-1/3*sqrt(5)");
    check("2 SQRT NEG 3 SQRT -", "-sqrt(2)-sqrt(3)");
    check("4 SQRT 2 SQRT", "2/1 | sqrt(2)");
    check("2 SQRT 2 SQRT +", "2/1*sqrt(2)");
    check("5 SQRT 3 / NEG 1 +", "1/1-1/3*sqrt(5)");
    check("2 SQRT 2 *", "2/1*sqrt(2)");
}

#[test]
fn words_comparison_and_equality_examples() {
    check("2 SQRT 3/2 <", "TRUE");
    check("2 SQRT 3/2 MAX", "3/2");
    check("2 SQRT NEG ABS", "sqrt(2)");
    check("2 SQRT 1.414 >", "TRUE");
    check("2 SQRT 99/70 <", "TRUE");
    check("2 SQRT 3 SQRT + 5 SQRT !=", "TRUE");
    check("1000001 SQRT 1000 >=", "TRUE");
    check("2 SQRT 3 SQRT *", "sqrt(6)");
    check("1 2 SQRT /", "1/2*sqrt(2)");
    check("1 3 SQRT /", "1/3*sqrt(3)");
    check("2 SQRT 3 SQRT 5 SQRT + +", "sqrt(2)+sqrt(3)+sqrt(5)");
    check("1 2 SQRT + 1 2 SQRT + *", "3/1+2/1*sqrt(2)");
    check("1 2 SQRT + 1 2 SQRT - *", "-1/1");
    check("4 SQRT SQRT", "sqrt(2)");
    check("2 SQRT SQRT", "error:typeMismatch");
}

#[test]
fn golden_ratio_identity() {
    setup();
    let phi = sqrt(5).add(&num("1")).div(&num("2")).expect("non-zero");
    assert_eq!(phi.mul(&phi), phi.add(&num("1")));
    let r = sqrt(3);
    assert_eq!(r.mul(&r).mul(&r.mul(&r)).to_string(), "9/1");
    // (√2+√3)² = 5 + 2√6.
    let a = sqrt(2).add(&sqrt(3));
    assert_eq!(a.mul(&a), sqrt(6).mul(&num("2")).add(&num("5")));
}

#[test]
fn words_sqrt() {
    check("2 SQRT", "sqrt(2)");
    check("8 SQRT", "2/1*sqrt(2)");
    check("1/4 SQRT", "1/2");
    check("0 SQRT", "0/1");
    check("-4 SQRT", "NIL (nil:domainMiss)");
    check("9 SQRT", "3/1");
    check("4/9 SQRT", "2/3");
    check(
        "152415787532388367501905199875019052100 SQRT",
        "12345678901234567890/1",
    );
    check("-1 SQRT", "NIL (nil:domainMiss)");
    check("2/3 SQRT", "1/3*sqrt(6)");
    check("18/25 SQRT", "3/5*sqrt(2)");
}

#[test]
fn words_floor_round_mod_on_algebraic() {
    check("7/3 FLOOR", "2/1");
    check("-7/3 FLOOR", "-3/1");
    check("2 SQRT FLOOR", "1/1");
    check("2 SQRT NEG FLOOR", "-2/1");
    check("5/2 ROUND", "3/1");
    check("-5/2 ROUND", "-3/1");
    check("7/3 ROUND", "2/1");
    check("2 SQRT ROUND", "1/1");
    check("3 SQRT ROUND", "2/1");
    check("3 SQRT NEG ROUND", "-2/1");
    check("-9223372036854775808/3 ROUND", "-3074457345618258603/1");
    check("7 3 %", "1/1");
    check("-7 3 %", "2/1");
    check("7 -3 %", "1/1");
    check("-7 -3 %", "2/1");
    check("7/2 1 %", "1/2");
    check("7 2 SQRT MOD", "7/1-4/1*sqrt(2)");
    check("2 SQRT 1 % 2 SQRT 1 - =", "TRUE");
    check("-7 2 SQRT NEG MOD", "-7/1+5/1*sqrt(2)");
    check("2 SQRT 3 SQRT + 1 %", "-3/1+sqrt(2)+sqrt(3)");
    // ⌊1000·√2⌋ = 1414, ⌊√1000001⌋ = 1000.
    check("2 SQRT 1000 * FLOOR", "1414/1");
    check("1000001 SQRT FLOOR", "1000/1");
    check("1000001 SQRT NEG FLOOR", "-1001/1");
}

#[test]
fn words_pow_examples() {
    check("2 10 POW", "1024/1");
    check("2 -2 POW", "1/4");
    check("-2 3 POW", "-8/1");
    check("2/3 2 POW", "4/9");
    check("0 0 POW", "1/1");
    check("0 -1 POW", "NIL (nil:divisionByZero)");
    check("2 SQRT 3 POW", "2/1*sqrt(2)");
    check("1 2 SQRT + 2 POW", "3/1+2/1*sqrt(2)");
    check("4 1/2 POW", "2/1");
    check("2 1/2 POW", "sqrt(2)");
    check("8 2/3 POW", "4/1");
    check("4 1/4 POW", "sqrt(2)");
    check("2 3/2 POW", "2/1*sqrt(2)");
    check("2 -1/2 POW", "1/2*sqrt(2)");
    check("2 1/3 POW", "NIL (nil:domainMiss)");
    check("-4 1/2 POW", "NIL (nil:domainMiss)");
    check("2 SQRT 1/2 POW", "error:typeMismatch");
    check("2 1000000 POW", "error:resourceLimitExceeded");
}

#[test]
fn pow_more_cases() {
    check("0 1/2 POW", "0/1");
    check("0 -1/2 POW", "NIL (nil:divisionByZero)");
    check("-1 1/3 POW", "NIL (nil:domainMiss)");
    check("1 1/3 POW", "1/1");
    check("-1 3 POW", "-1/1");
    check("-1 -4 POW", "1/1");
    check("1 -5 POW", "1/1");
    check("0 5 POW", "0/1");
    check("27/8 -2/3 POW", "4/9");
    check("9/4 3/2 POW", "27/8");
    check("9/4 -3/2 POW", "8/27");
    check("8 1/6 POW", "sqrt(2)");
    check("2 SQRT 3 SQRT + -1 POW", "-sqrt(2)+sqrt(3)");
    check("2 SQRT 3 SQRT + -2 POW", "5/1-2/1*sqrt(6)");
    check("2 SQRT 0 POW", "1/1");
    check("2 SQRT 1 POW", "sqrt(2)");
    check("2 SQRT -1 POW", "1/2*sqrt(2)");
    check("16 1/4 POW", "2/1");
    check("2/9 1/2 POW", "1/3*sqrt(2)");
    check("10 1/100000000000000000000 POW", "NIL (nil:domainMiss)");
    check("1 1/100000000000000000000 POW", "1/1");
    check("1 100000000000000000000000 POW", "1/1");
    check("-1 100000000000000000001 POW", "-1/1");
}

#[test]
fn pow_of_algebraic_agrees_with_repeated_multiplication() {
    setup();
    let b = sqrt(2).add(&sqrt(3)).add(&num("1/2"));
    let mut acc = num("1");
    for k in 0..12i64 {
        let p = pow(&b, &Rat::from(k), &mut Counting::default(), MCP);
        assert_eq!(p, Ok(Ok(acc.clone())), "exponent {k}");
        let n = pow(&b, &Rat::from(-k), &mut Counting::default(), MCP);
        assert_eq!(
            n.ok().and_then(|r| r.ok()).map(|v| v.mul(&acc)),
            Some(num("1")),
            "exponent -{k}"
        );
        acc = acc.mul(&b);
    }
}

#[test]
fn pow_refusals() {
    setup();
    let limits = PowLimits {
        bigint_bits: 100,
        algebraic_terms: 4,
    };
    let refusal = |b: &Number, e: &str| match pow(
        b,
        num(e).as_rat().expect("rational"),
        &mut Counting::default(),
        limits,
    ) {
        Err(Halt::Error(e)) => (e.resource.unwrap_or(""), e.message),
        other => panic!("expected a refusal, got {other:?}"),
    };
    // Lower bound |e|·(w−1)+1 = 1000000·1+1 for w = 2.
    let (res, msg) = refusal(&num("2"), "1000000");
    assert_eq!(
        (res, msg.as_str()),
        (
            "bigintBits",
            "bigintBits of 1000001 exceeds the limit of 100"
        )
    );
    // 3^64: lower bound 64·1+1 = 65 ≤ 100, exact width 102 > 100.
    let (res, msg) = refusal(&num("3"), "64");
    assert_eq!(
        (res, msg.as_str()),
        ("bigintBits", "bigintBits of 102 exceeds the limit of 100")
    );
    // 2^99 has width 100: allowed; 2^100 has the lower bound 101.
    assert!(matches!(
        pow(&num("2"), &Rat::from(99), &mut Counting::default(), limits),
        Ok(Ok(_))
    ));
    let (_, msg) = refusal(&num("2"), "100");
    assert_eq!(msg, "bigintBits of 101 exceeds the limit of 100");
    let (_, msg) = refusal(&num("1/2"), "-100");
    assert_eq!(msg, "bigintBits of 101 exceeds the limit of 100");
    // The official example under the MCP limits.
    let e = pow(
        &num("2"),
        &Rat::from(1_000_000),
        &mut Counting::default(),
        MCP,
    );
    match e {
        Err(Halt::Error(e)) => assert_eq!(
            e.message,
            "bigintBits of 1000001 exceeds the limit of 262144"
        ),
        other => panic!("{other:?}"),
    }
    // Algebraic base: (1+√2)^k has coefficients growing like 2.414^k.
    let b = sqrt(2).add(&num("1"));
    let (res, _) = refusal(&b, "1000");
    assert_eq!(res, "bigintBits");
    let (res, _) = refusal(&b, "100000000000000000000000000000");
    assert_eq!(res, "bigintBits");
    // Terms: (√2+√3+√5)² has 4 terms, (…)³ has 4, a 5-radical sum squared has 11.
    let five = sqrt(2)
        .add(&sqrt(3))
        .add(&sqrt(5))
        .add(&sqrt(7))
        .add(&sqrt(11));
    let (res, msg) = refusal(&five, "2");
    assert_eq!(
        (res, msg.as_str()),
        (
            "algebraicTerms",
            "algebraicTerms of 11 exceeds the limit of 4"
        )
    );
}

#[test]
fn sqrt_charges() {
    // `2 SQRT` tries no candidate (2³ > 2).
    assert_eq!(charged("2 SQRT"), 0);
    assert_eq!(charged("0 SQRT"), 0);
    assert_eq!(charged("7 SQRT"), 0);
    // N = 8: p = 2 (8 ≤ 8) removes 2³ → cofactor 1.
    assert_eq!(charged("8 SQRT"), 1);
    // N = 1000: p = 2 (cofactor 125), 3, 4, 5 (125 ≥ 125) → cofactor 1: four candidates.
    assert_eq!(charged("1000 SQRT"), 4);
    // N = 2·3 = 6 for 2/3: no candidate.
    assert_eq!(charged("2/3 SQRT"), 0);
    // N = 1009·1013: candidates 2..=100 (100³ ≤ 1022117 < 101³) → 99.
    assert_eq!(charged("1022117 SQRT"), 99);
    // A two-limb N pays 2 per candidate: 3·2^70 tries only p = 2 (cofactor 3 < 27).
    assert_eq!(charged("3541774862152233910272 SQRT"), 2);
    // 2^128 + 1 = 59649589127497217 · 5704689200685129054721 needs ~7·10^12 candidates
    // of three limbs each: refused by the budget, the reading is the limit + 3 − r.
    setup();
    let mut b = Counting {
        total: 0,
        limit: Some(1000),
    };
    let r = sqrt_rat(
        num("340282366920938463463374607431768211457")
            .as_rat()
            .expect("rational"),
        &mut b,
    );
    assert!(matches!(r, Err(Halt::Error(_))));
    assert_eq!(b.total, 1002);
}

#[test]
fn sqrt_refused_by_budget() {
    setup();
    let mut b = Counting {
        total: 0,
        limit: Some(50),
    };
    let r = sqrt_rat(&Rat::from(1_022_117), &mut b);
    match r {
        Err(Halt::Error(e)) => {
            assert_eq!(e.resource, Some("numericWork"));
            assert_eq!(e.message, "numericWork of 51 exceeds the limit of 50");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn pow_charges() {
    // 2^10: |p| = 1010b → 3 squarings + 1 product, each a rational MUL of 1.
    assert_eq!(charged("2 10 POW"), 4);
    // 2^-2: one squaring, then one DIV of 1 by 4.
    assert_eq!(charged("2 -2 POW"), 2);
    assert_eq!(charged("0 0 POW"), 0);
    assert_eq!(charged("0 -1 POW"), 0);
    assert_eq!(charged("-4 1/2 POW"), 0);
    assert_eq!(charged("7 1 POW"), 0);
    // √2³: square √2·√2 (1024·1·1) then 2·√2 (1024·max(1,0)·1) = 2048.
    assert_eq!(charged("2 SQRT 3 POW"), 2048);
    // (1+√2)²: one MUL of two 2-term numbers: 1024·4.
    assert_eq!(charged("1 2 SQRT + 2 POW"), 4096);
    // 4^(1/2): root test limbs(4)² = 1, then no multiplication.
    assert_eq!(charged("4 1/2 POW"), 1);
    // 2^(3/2): root test 1, √2 by decomposition (0 candidates), √2³ as above.
    assert_eq!(charged("2 3/2 POW"), 1 + 2048);
    // 2^(-1/2): root test 1, √2, DIV of 1 by √2: 1024·(1·1 + 1·1).
    assert_eq!(charged("2 -1/2 POW"), 1 + 2048);
    // 2^(1/3): root test only.
    assert_eq!(charged("2 1/3 POW"), 1);
    // Shortcut bases still pay for every multiplication: 1^10 → 4 MULs of 1.
    assert_eq!(charged("1 10 POW"), 4);
    assert_eq!(charged("-1 -7 POW"), 2 + 2 + 1);
    assert_eq!(charged("0 5 POW"), 3);
    // A two-limb base: 2^64 + 1 squared is one MUL of 2·2 limbs = 4.
    assert_eq!(charged("18446744073709551617 2 POW"), 4);
}

#[test]
fn mcp_30_convergents() {
    setup();
    assert_eq!(
        sqrt(2).best_convergent(1_000_000_000).to_string(),
        "768398401/543339720"
    );
    let tiny = sqrt(2).div(&num("1000000000000")).expect("non-zero");
    assert_eq!(tiny.to_string(), "1/1000000000000*sqrt(2)");
    assert_eq!(tiny.best_convergent(1_000_000_000).to_string(), "0/1");
    // −ε = [−1; 1, huge, …]: the convergents are −1/1, then 0/1 (also q = 1).
    assert_eq!(tiny.neg().best_convergent(1).to_string(), "0/1");
    assert_eq!(tiny.neg().best_convergent(1_000_000_000).to_string(), "0/1");
    // Golden ratio: Fibonacci quotients.
    let phi = sqrt(5).add(&num("1")).div(&num("2")).expect("non-zero");
    assert_eq!(phi.best_convergent(100).to_string(), "144/89");
    assert_eq!(phi.best_convergent(1).to_string(), "2/1");
    // √3 = [1; 1, 2, 1, 2, …]: convergents 1, 2, 5/3, 7/4, 19/11, 26/15, …
    assert_eq!(sqrt(3).best_convergent(10).to_string(), "7/4");
    assert_eq!(sqrt(3).best_convergent(15).to_string(), "26/15");
    assert_eq!(sqrt(3).neg().best_convergent(4).to_string(), "-7/4");
    // Rationals: themselves within bound, else their last convergent.
    assert_eq!(
        num("355/113").best_convergent(1_000_000_000).to_string(),
        "355/113"
    );
    assert_eq!(
        num("3.14159265358979").best_convergent(1000).to_string(),
        "355/113"
    );
    // Large integer part.
    let big = sqrt(2).add(&num("1000000000000000000000000"));
    assert_eq!(
        big.best_convergent(1).to_string(),
        "1000000000000000000000001/1"
    );
    assert_eq!(
        big.best_convergent(2).to_string(),
        "2000000000000000000000003/2"
    );
}

#[test]
fn convergents_match_a_rational_oracle() {
    setup();
    // For x = a + b√d the regular continued fraction is computable exactly by the
    // classical (P + √D)/Q recurrence; compare with it.
    for (a, b, d) in [
        (0i64, 1i64, 2i64),
        (3, 2, 7),
        (-5, 3, 11),
        (1, -1, 13),
        (0, 7, 1_000_003),
    ] {
        let x = num(&a.to_string()).add(&sqrt(d).mul(&num(&b.to_string())));
        for bound in [1u64, 2, 10, 1000, 1_000_000, 1_000_000_000, u64::MAX >> 2] {
            let expect = quadratic_convergent(a, b, d, bound);
            assert_eq!(
                x.best_convergent(bound).to_string(),
                expect,
                "x = {x}, bound {bound}"
            );
        }
    }
}

/// Convergent of a + b√d by the classical integer recurrence for quadratic
/// irrationals: x = (P + √D)/Q with Q | D − P², D = b²·d.
fn quadratic_convergent(a: i64, b: i64, d: i64, bound: u64) -> String {
    use num_bigint::BigInt;
    use num_integer::Integer;
    let dd = BigInt::from(b) * BigInt::from(b) * BigInt::from(d);
    let sd = dd.sqrt();
    // a + |b|√d = (a + √D)/1; a − |b|√d = (−a + √D)/(−1).
    let (mut p, mut q) = if b > 0 {
        (BigInt::from(a), BigInt::from(1))
    } else {
        (BigInt::from(-a), BigInt::from(-1))
    };
    let (mut p1, mut q1, mut p2, mut q2) = (
        BigInt::from(1),
        BigInt::from(0),
        BigInt::from(0),
        BigInt::from(1),
    );
    let bound = BigInt::from(bound);
    let zero = BigInt::from(0);
    loop {
        let ai = if q > zero {
            (&p + &sd).div_floor(&q)
        } else {
            (-&p - &sd - BigInt::from(1)).div_floor(&(-&q))
        };
        let pn = &ai * &p1 + &p2;
        let qn = &ai * &q1 + &q2;
        if qn > bound {
            return format!("{p1}/{q1}");
        }
        (p2, q2, p1, q1) = (p1, q1, pn, qn);
        let pp = &ai * &q - &p;
        let qq = (&dd - &pp * &pp) / &q;
        p = pp;
        q = qq;
    }
}

#[test]
fn algebraic_display_and_terms() {
    setup();
    let x = sqrt(2).mul(&num("2"));
    assert_eq!(x.to_string(), "2/1*sqrt(2)");
    assert_eq!(x.terms(), vec![(Rat::from(2), Int::from(2i64))]);
    let y = sqrt(2).add(&num("1"));
    assert_eq!(
        y.terms(),
        vec![(Rat::from(1), Int::ONE), (Rat::from(1), Int::from(2i64))]
    );
    assert_eq!(y.term_count(), 2);
    assert_eq!(y.work_terms(), 2);
    assert_eq!(num("5").work_terms(), 0);
    // Collapse to a rational.
    assert!(matches!(sqrt(2).mul(&sqrt(2)), Number::Rat(_)));
    let a = Alg::from_number(&sqrt(6));
    assert!(a.is_canonical());
}

#[test]
fn big_radicands() {
    setup();
    // A radicand wider than 64 bits: 2^89 − 1 is prime.
    let p = num("618970019642690137449562111");
    let mut budget = Counting::default();
    // Trial division alone would take too long here; the product of two such roots is exact.
    let r = Rat::new(p.as_int().cloned().unwrap_or(Int::ZERO), Int::ONE);
    let big = Number::from_alg(Alg::from_canonical_terms(vec![(
        Rat::from(1),
        r.numer().clone(),
    )]));
    let two = big.mul(&big);
    assert_eq!(two, p);
    let s = big.add(&sqrt(2));
    assert_eq!(s.signum(), 1);
    assert_eq!(big.floor().to_string(), "24879108095803");
    let inv = s.div(&s).expect("non-zero");
    assert_eq!(inv.to_string(), "1/1");
    budget.total = 0;
    let _ = budget;
}

/// (1 − √2)^n built by repeated multiplication.
fn unit_power(n: u32) -> Number {
    let u = num("1").sub(&sqrt(2));
    let mut p = num("1");
    for _ in 0..n {
        p = p.mul(&u);
    }
    p
}

#[test]
fn floor_and_round_near_integers() {
    setup();
    // ε = (1 − √2)^60 ≈ 1.1·10^-23 > 0 (even power): 5 + ε floors to 5, 5 − ε to 4.
    let eps = unit_power(60);
    assert_eq!(eps.signum(), 1);
    assert_eq!(num("5").add(&eps).floor().to_string(), "5");
    assert_eq!(num("5").sub(&eps).floor().to_string(), "4");
    assert_eq!(num("-5").sub(&eps).floor().to_string(), "-6");
    assert_eq!(num("5/2").add(&eps).round().to_string(), "3");
    assert_eq!(num("5/2").sub(&eps).round().to_string(), "2");
    assert_eq!(num("-5/2").add(&eps).round().to_string(), "-2");
    assert_eq!(num("-5/2").sub(&eps).round().to_string(), "-3");
    // Odd power: negative.
    assert_eq!(unit_power(61).signum(), -1);
    assert_eq!(unit_power(61).floor().to_string(), "-1");
}

#[test]
fn convergents_of_values_extremely_close_to_a_rational() {
    setup();
    // x = 1/3 + ε with ε = (1 − √2)^3600 ≈ 2^-4578: the enclosures cannot separate x
    // from 1/3 within the refinement budget, so the exact tests decide. The expansion is
    // [0; 2, 1, huge, …]: convergents 0/1, 1/2, 1/3, then a denominator far beyond 10^9.
    let eps = unit_power(3600);
    let x = num("1/3").add(&eps);
    assert_eq!(x.best_convergent(1_000_000_000).to_string(), "1/3");
    assert_eq!(x.best_convergent(2).to_string(), "1/2");
    assert_eq!(x.floor().to_string(), "0");
    // 1/3 − ε = [0; 3, huge, …].
    let y = num("1/3").sub(&eps);
    assert_eq!(y.best_convergent(1_000_000_000).to_string(), "1/3");
    assert_eq!(y.best_convergent(2).to_string(), "0/1");
    assert_eq!(x.cmp_exact(&y), std::cmp::Ordering::Greater);
}

/// A budget whose host has raised the interrupt flag.
struct Interrupted;

impl ajisai_core::number::Budget for Interrupted {
    fn charge(&mut self, _units: u64) -> Result<(), Halt> {
        Err(Halt::Interrupted(ajisai_core::limits::Interrupt::Raised))
    }
    fn poll(&mut self) -> Result<(), Halt> {
        Err(Halt::Interrupted(ajisai_core::limits::Interrupt::Raised))
    }
}

#[test]
fn polled_variants_stop_when_interrupted() {
    setup();
    let x = sqrt(2).sub(&sqrt(3)).add(&num("1/3"));
    let stopped = Err(Halt::Interrupted(ajisai_core::limits::Interrupt::Raised));
    assert_eq!(x.try_signum(&mut Interrupted), stopped);
    assert!(x.try_floor(&mut Interrupted).is_err());
    assert!(num("1").try_div(&x, &mut Interrupted).is_err());
    // Rational work needs no polling; quick signs neither.
    assert_eq!(
        num("1").try_div(&num("3"), &mut Interrupted),
        Ok(Some(num("1/3")))
    );
    assert_eq!(sqrt(2).try_signum(&mut Interrupted), Ok(1));
    // Unhindered, the polled variants agree with the plain ones. Signs and floors charge
    // their enclosures (docs/reference/pricing-and-limits.md#numericwork); products only poll
    // (their price is the Word's, up front).
    let mut free = Counting::default();
    assert_eq!(x.try_signum(&mut free), Ok(x.signum()));
    assert!(free.total > 0, "a sign's enclosures are charged");
    let before = free.total;
    assert_eq!(x.try_floor(&mut free), Ok(x.floor()));
    assert!(free.total > before, "a floor's enclosures are charged");
    assert_eq!(
        x.try_cmp_exact(&num("0"), &mut free),
        Ok(x.cmp_exact(&num("0")))
    );
    let before = free.total;
    assert_eq!(x.try_mul(&x, &mut free), Ok(x.mul(&x)));
    assert_eq!(free.total, before, "products only poll");
    // The reciprocal charges its products (docs/reference/pricing-and-limits.md#numericwork).
    assert_eq!(num("1").try_div(&x, &mut free), Ok(num("1").div(&x)));
    assert!(free.total > 0, "the reciprocal's products are charged");
}

#[test]
fn signs_of_wide_values_close_to_zero() {
    setup();
    // (1 − √2)^6000 = a − b√2 with 7600-bit a and b, about 2^-7630: decided by the
    // exact split after cheap enclosures fail.
    let e = unit_power(6000);
    assert_eq!(e.signum(), 1);
    assert_eq!(unit_power(6001).signum(), -1);
    assert_eq!(e.floor().to_string(), "0");
    // Four terms: ((1 − √2)(2 − √3))^800 > 0 and tiny.
    let u = num("1").sub(&sqrt(2)).mul(&num("2").sub(&sqrt(3)));
    let mut p = num("1");
    for _ in 0..800 {
        p = p.mul(&u);
    }
    assert_eq!(p.term_count(), 4);
    assert_eq!(p.signum(), 1);
    // p ≈ 10^-764.
    assert_eq!(p.neg().add(&num("1e-700")).signum(), 1);
    assert_eq!(p.sub(&num("1e-700")).signum(), -1);
    assert_eq!(p.sub(&num("1e-800")).signum(), 1);
    assert_eq!(p.mul(&num("1e764")).floor().to_string(), "1");
}

#[test]
fn square_free_parts_of_huge_prime_powers_come_out_whole() {
    // Factors are removed by powers p^(2^k) (trailing zeros for 2), not one at a time;
    // the decomposition and the charges are those of the decomposition's trial division
    // (docs/reference/pricing-and-limits.md#numericwork).
    use ajisai_core::number::roots::square_free_decompose;
    setup();
    for p in [2i64, 3, 5, 7, 101] {
        for e in [1u64, 2, 3, 15, 16, 17, 255, 256, 1000, 4097] {
            for c in [1i64, 11 * 13] {
                let n = Int::from(p).pow(e).mul(&Int::from(c));
                let mut b = Counting::default();
                let (s, t) = square_free_decompose(&n, &mut b).expect("unmetered");
                assert_eq!(s, Int::from(p).pow(e / 2), "{p}^{e}·{c}");
                assert_eq!(t, Int::from(p).pow(e % 2).mul(&Int::from(c)), "{p}^{e}·{c}");
            }
        }
    }
    // 6^100000 (258,497 bits, 4,040 limbs): candidates 2 and 3 only, 4,040 each.
    assert_eq!(
        charged("6 100000 POW SQRT") - charged("6 100000 POW"),
        2 * 4040
    );
    check("6 100000 POW SQRT 6 50000 POW =", "TRUE");
    check("2 262001 POW SQRT 2 131000 POW / ", "sqrt(2)");
}

/// Decimal conversion split by powers of ten, polled between pieces (the poll gap of
/// docs/reference/pricing-and-limits.md#calibration), writes what the backend writes.
#[test]
fn polled_decimals_are_the_backend_s_decimals() {
    setup();
    let ten = Int::from(10i64);
    let mut cases = vec![Int::ZERO, Int::from(-7i64), ten.pow(4095), ten.pow(4096)];
    for k in [4096u64, 4097, 8191, 8192, 20_000, 78_913] {
        let p = ten.pow(k);
        cases.push(p.clone());
        cases.push(p.sub(&Int::ONE));
        cases.push(p.add(&Int::from(12_345i64)).neg());
        // Zeros in the middle: every low part has leading zeros.
        cases.push(p.add(&Int::ONE));
    }
    cases.push(Int::from(3i64).pow(100_000));
    for n in cases {
        let mut out = String::from("x");
        let mut ticks = 0u64;
        n.write_decimal_polled::<()>(&mut out, &mut |units| {
            ticks += units;
            Ok(())
        })
        .expect("never stopped");
        assert_eq!(out[1..], n.to_string(), "{} bits", n.bit_length());
        assert!(ticks >= n.limb_count(), "every limb ticks");
    }
}

/// Under a decimal memo (an envelope's rendering) a wide integer is converted once and
/// written again from memory, with the same text; a memo started inside another does not
/// end it; without a memo nothing is remembered.
#[test]
fn a_decimal_memo_writes_each_wide_integer_once() {
    use ajisai_core::number::int::DecimalMemo;
    setup();
    let n = Int::from(7i64).pow(60_000).neg();
    let m = Int::from(3i64).pow(50_000);
    let write = |i: &Int| {
        let mut out = String::new();
        let mut calls = 0u32;
        i.write_decimal_polled::<()>(&mut out, &mut |_| {
            calls += 1;
            Ok(())
        })
        .expect("never stopped");
        (out, calls)
    };
    let (plain, converting) = write(&n);
    assert!(converting > 1, "a wide integer is converted in pieces");
    assert_eq!(
        write(&n).1,
        converting,
        "nothing is remembered without a memo"
    );
    let memo = DecimalMemo::start();
    assert_eq!(write(&n), (plain.clone(), converting));
    assert_eq!(
        write(&n),
        (plain.clone(), 1),
        "recalled: one tick, the same text"
    );
    {
        let _inner = DecimalMemo::start();
        assert_eq!(write(&m).0, m.to_string());
    }
    assert_eq!(write(&n).1, 1, "the inner memo left the outer one be");
    assert_eq!(write(&m).1, 1);
    // An equal value elsewhere in memory is converted anew (the memo goes by identity).
    let copy = Int::from_decimal(&plain[1..]).neg();
    assert_eq!(write(&copy), (plain.clone(), converting));
    assert_eq!(DecimalMemo::remembered(), 3, "n, m and the copy");
    // An integer converted in one backend call is remembered too once it is wide enough
    // for a conversion to cost more than remembering (an envelope showed a 3,000-digit
    // coefficient's text twice, converted twice); a narrower one is not.
    let mid = Int::from(11i64).pow(400);
    assert_eq!(write(&mid), (mid.to_string(), 1));
    assert_eq!(DecimalMemo::remembered(), 4);
    assert_eq!(write(&mid), (mid.to_string(), 1));
    assert_eq!(
        DecimalMemo::remembered(),
        4,
        "recalled, not remembered again"
    );
    let narrow = Int::from(11i64).pow(40);
    assert_eq!(write(&narrow).0, narrow.to_string());
    assert_eq!(DecimalMemo::remembered(), 4);
    drop(memo);
    assert_eq!(DecimalMemo::remembered(), 0);
    assert_eq!(write(&n).1, converting, "the memo ended with its guard");
}

#[test]
fn a_polled_conversion_stops_when_its_tick_says_so() {
    setup();
    let n = Int::from(7i64).pow(60_000);
    let mut calls = 0;
    let stopped = n.write_decimal_polled(&mut String::new(), &mut |_| {
        calls += 1;
        if calls == 3 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!(stopped, Err("stop"));
}

#[test]
fn decimal_digit_bounds_are_exact_or_one_more() {
    setup();
    for bits in 1..2000u64 {
        let low = Int::pow2(bits - 1).to_string().len() as u64;
        let high = Int::pow2(bits).sub(&Int::ONE).to_string().len() as u64;
        assert_eq!(
            ajisai_core::number::int::decimal_digits_bound(bits),
            high,
            "{bits}"
        );
        assert!(low <= high);
    }
}

#[test]
fn a_leafs_statistics_are_its_numbers_own_measures() {
    use ajisai_core::value::{LeafKinds, LeafStats, Value};
    setup();
    let wide = Int::from(3i64).pow(100);
    let values = [
        Number::from(0),
        Number::from(7),
        Number::from(-7),
        Number::Rat(Rat::new(Int::from(i64::MAX), Int::ONE)),
        Number::Rat(Rat::new(Int::from(i64::MIN), Int::ONE)),
        Number::Rat(Rat::new(Int::from(3i64), Int::from(8i64))),
        Number::Rat(Rat::new(Int::from(-1i64), Int::from(31i64))),
        Number::Rat(Rat::new(Int::from(i64::MAX), Int::from(i64::MAX - 1))),
        Number::Rat(Rat::new(wide.clone(), Int::ONE)),
        Number::Rat(Rat::new(Int::ONE, wide.clone())),
        Number::Rat(Rat::new(wide.add(&Int::ONE), wide.clone())),
        Number::Rat(Rat::new(
            Int::from(5i64),
            Int::from(i64::MAX).mul(&Int::from(5i64)),
        )),
        sqrt(2),
        sqrt(2).add(&Number::Rat(Rat::new(Int::ONE, wide))),
    ];
    for n in values {
        let v = Value::Number(n.clone());
        let mut stats = LeafStats::default();
        stats.add_leaf(&v);
        let measures = (
            stats.leaves,
            stats.nodes,
            stats.big_limbs,
            stats.decimal_price,
            stats.limbs,
            stats.terms,
            stats.kinds,
        );
        let expected = (
            1,
            1,
            n.big_limbs(),
            n.decimal_price(),
            n.work_limbs(),
            n.work_terms(),
            LeafKinds::of(&v),
        );
        assert_eq!(measures, expected, "{n}");
    }
}
