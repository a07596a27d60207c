//! Property tests of the numeric tower with fixed seeds: field laws, canonical form
//! after every operation, exact sign against an independent high-precision enclosure
//! (num-bigint), floor bounds, order laws, convergents (their properties, and each against
//! an independent continued fraction), and Int/Rat
//! arithmetic against num-bigint as an oracle (boundaries of i64, i128 and beyond).

use crate::common::{rat, sqrt};
use ajisai_core::number::{Alg, Int, Number, Rat};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::cmp::Ordering;

/// Square-free radicands the generated values draw from (1 = rational part).
const RADICANDS: [i64; 16] = [
    1, 2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 21, 30, 35, 105, 1_000_003,
];

fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// An algebraic (or rational) value Σ (n/d)·√r over up to `max_terms` terms.
fn value(max_terms: usize) -> impl Strategy<Value = Number> {
    prop::collection::vec(
        (-60i64..60, 1i64..25, 0usize..RADICANDS.len()),
        0..=max_terms,
    )
    .prop_map(|terms| {
        ajisai_numerics_pure::link();
        let mut x = Number::ZERO;
        for (n, d, r) in terms {
            x = x.add(&rat(n, d).mul(&sqrt(RADICANDS[r])));
        }
        x
    })
}

fn canonical(x: &Number) -> bool {
    match x {
        Number::Rat(_) => true,
        Number::Alg(a) => a.is_canonical() && a.terms().iter().any(|(_, d)| !d.is_one()),
    }
}

fn big(i: &Int) -> BigInt {
    i.to_string().parse().unwrap_or_default()
}

/// An independent enclosure of 2^p·x: (lo, hi) with the num-bigint square root.
fn oracle_enclosure(x: &Number, p: usize) -> (BigInt, BigInt) {
    // x = Σ (n/d)√r; scale by L = lcm(d).
    let terms = x.terms();
    let mut l = BigInt::one();
    for (c, _) in &terms {
        l = l.lcm(&big(c.denom()));
    }
    let (mut lo, mut hi) = (BigInt::zero(), BigInt::zero());
    for (c, r) in &terms {
        let k = big(c.numer()) * (&l / big(c.denom()));
        let r = big(r);
        let s = (r.clone() << (2 * p)).sqrt();
        let exact = &s * &s == (r << (2 * p));
        let (a, b) = if exact {
            (&k * &s, &k * &s)
        } else if k.is_positive() {
            (&k * &s, &k * (&s + 1))
        } else {
            (&k * (&s + 1), &k * &s)
        };
        lo += a;
        hi += b;
    }
    (lo, hi)
}

fn oracle_sign(x: &Number) -> Option<i32> {
    if x.is_zero() {
        return Some(0);
    }
    for p in [128usize, 512, 2048, 8192] {
        let (lo, hi) = oracle_enclosure(x, p);
        if lo.is_positive() {
            return Some(1);
        }
        if hi.is_negative() {
            return Some(-1);
        }
    }
    None
}

#[test]
fn field_laws_and_canonical_form() {
    let mut r = runner(300, 1);
    r.run(&(value(5), value(5), value(3)), |(a, b, c)| {
        prop_assert!(canonical(&a) && canonical(&b) && canonical(&c));
        let s = a.add(&b);
        prop_assert!(canonical(&s));
        prop_assert_eq!(s.sub(&b), a.clone());
        prop_assert_eq!(a.add(&b), b.add(&a));
        let m = a.mul(&b);
        prop_assert!(canonical(&m));
        prop_assert_eq!(a.mul(&b), b.mul(&a));
        prop_assert_eq!(a.mul(&b.add(&c)), a.mul(&b).add(&a.mul(&c)));
        prop_assert_eq!(a.mul(&b).mul(&c), a.mul(&b.mul(&c)));
        if !b.is_zero() {
            let q = m.div(&b).unwrap_or(Number::ZERO);
            prop_assert!(canonical(&q));
            prop_assert_eq!(q, a.clone());
            let inv = Number::from(1).div(&b).unwrap_or(Number::ZERO);
            prop_assert!(canonical(&inv));
            prop_assert_eq!(b.mul(&inv), Number::from(1));
        } else {
            prop_assert!(m.is_zero());
            prop_assert!(a.div(&b).is_none());
        }
        prop_assert_eq!(a.neg().neg(), a.clone());
        prop_assert!(a.sub(&a).is_zero());
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn sign_matches_a_high_precision_enclosure() {
    let mut r = runner(400, 2);
    r.run(&value(8), |x| {
        let s = x.signum();
        prop_assert_eq!(Some(s), oracle_sign(&x), "x = {}", x);
        prop_assert_eq!(x.neg().signum(), -s);
        prop_assert_eq!(x.abs().signum(), s.abs());
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn sign_of_values_close_to_zero() {
    ajisai_numerics_pure::link();
    let mut r = runner(120, 3);
    // x − (a close rational approximation of x): tiny, either sign.
    r.run(&(value(6), 1u64..4_000_000_000_000u64), |(x, bound)| {
        let c = Number::Rat(x.best_convergent(bound));
        let d = x.sub(&c);
        prop_assert_eq!(Some(d.signum()), oracle_sign(&d), "x = {}, c = {}", x, c);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // Powers of units and their conjugates: (1+√2)^k(2+√3)^k against its nearest rational
    // part, and a − b√2 = (1−√2)^k exactly.
    let u = sqrt(2)
        .add(&Number::from(1))
        .mul(&sqrt(3).add(&Number::from(2)));
    let mut p = Number::from(1);
    for k in 1..60 {
        p = p.mul(&u);
        let conj = conjugate_all(&p);
        // p·conj' products are units; conj (all signs flipped on irrational terms) is a
        // sum of Galois conjugates, some tiny: check its sign against the oracle.
        assert_eq!(Some(conj.signum()), oracle_sign(&conj), "k = {k}: {conj}");
    }
    let v = sqrt(2).add(&Number::from(1));
    let mut q = Number::from(1);
    for k in 1..200u32 {
        q = q.mul(&v);
        // a − b√2 = (1 − √2)^k has sign (−1)^k.
        let conj = conjugate_all(&q);
        assert_eq!(conj.signum(), if k % 2 == 0 { 1 } else { -1 }, "k = {k}");
    }
}

/// x with every irrational term negated.
fn conjugate_all(x: &Number) -> Number {
    let terms: Vec<(Rat, Int)> = x
        .terms()
        .into_iter()
        .map(|(c, d)| if d.is_one() { (c, d) } else { (c.neg(), d) })
        .collect();
    Number::from_alg(Alg::from_canonical_terms(terms))
}

#[test]
fn exact_sign_procedure_agrees() {
    let mut r = runner(300, 9);
    r.run(&(value(8), value(4)), |(x, y)| {
        if let Number::Alg(a) = &x {
            prop_assert_eq!(a.exact_signum(), x.signum(), "x = {}", x);
        }
        // x·y − (x·y + 1/1000) = −1/1000 is rational; x·y·(1 + 1/10^6) − x·y has x·y's sign.
        let z = x.mul(&y);
        let w = z
            .mul(&rat(1_000_001, 1_000_000))
            .sub(&z)
            .mul(&Number::from(1_000_000))
            .add(&rat(1, 7));
        if let Number::Alg(a) = &w {
            prop_assert_eq!(a.exact_signum(), w.signum(), "w = {}", w);
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn floor_bounds_and_round() {
    let mut r = runner(300, 4);
    r.run(&value(6), |x| {
        let k = x.floor();
        let kn = Number::from(k.clone());
        prop_assert!(
            kn.cmp_exact(&x) != Ordering::Greater,
            "floor({}) = {} > x",
            x,
            k
        );
        prop_assert!(
            kn.add(&Number::from(1)).cmp_exact(&x) == Ordering::Greater,
            "floor({}) = {} too small",
            x,
            k
        );
        // Oracle: ⌊2^p·x / (L·2^p)⌋ from the independent enclosure.
        let round = x.round();
        let diff = x.sub(&Number::from(round.clone())).abs();
        prop_assert!(diff.cmp_exact(&rat(1, 2)) != Ordering::Greater);
        if x.as_rat().is_none() {
            prop_assert!(diff.cmp_exact(&rat(1, 2)) == Ordering::Less);
        }
        // Euclidean remainder in [0, |m|).
        let m = x.add(&rat(7, 3));
        if !m.is_zero() {
            let y = rat(17, 2).add(&x.mul(&x));
            let rem = y.euclid_mod(&m);
            prop_assert!(rem.signum() >= 0);
            prop_assert!(rem.cmp_exact(&m.abs()) == Ordering::Less);
            let q = y.sub(&rem).div(&m.abs()).unwrap_or(Number::ZERO);
            prop_assert!(
                q.is_integer(),
                "({y} − {rem})/|{m}| = {q} is not an integer"
            );
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn order_laws() {
    let mut r = runner(300, 5);
    r.run(&(value(4), value(4), value(4)), |(a, b, c)| {
        let ab = a.cmp_exact(&b);
        prop_assert_eq!(ab, b.cmp_exact(&a).reverse());
        prop_assert_eq!(ab == Ordering::Equal, a == b);
        prop_assert_eq!(ab, a.sub(&b).signum().cmp(&0));
        let bc = b.cmp_exact(&c);
        if ab != Ordering::Greater && bc != Ordering::Greater {
            prop_assert!(a.cmp_exact(&c) != Ordering::Greater);
        }
        if ab == Ordering::Less && bc == Ordering::Less {
            prop_assert_eq!(a.cmp_exact(&c), Ordering::Less);
        }
        // Translation invariance.
        prop_assert_eq!(a.add(&c).cmp_exact(&b.add(&c)), ab);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn convergent_properties() {
    let mut r = runner(200, 6);
    r.run(&(value(5), 1u64..2_000_000_000u64), |(x, bound)| {
        let c = x.best_convergent(bound);
        prop_assert!(
            c.denom() <= &Int::from(bound),
            "{} has denominator above {}",
            c,
            bound
        );
        prop_assert!(c.numer().gcd(c.denom()).is_one());
        if x.as_rat().is_none() {
            // |x − p/q| < 1/q² for every convergent.
            let q = Number::Rat(Rat::from(c.denom().clone()));
            let err = x.sub(&Number::Rat(c.clone())).abs().mul(&q).mul(&q);
            prop_assert!(
                err.cmp_exact(&Number::from(1)) == Ordering::Less,
                "x = {}, c = {}",
                x,
                c
            );
            // The next convergent's denominator exceeds the bound: any p'/q' with q' ≤ bound
            // is no closer (best approximation property of convergents, second kind).
            let c2 = x.best_convergent(bound.saturating_mul(3));
            let e1 = x.sub(&Number::Rat(c.clone())).abs();
            let e2 = x.sub(&Number::Rat(c2.clone())).abs();
            prop_assert!(e2.cmp_exact(&e1) != Ordering::Greater);
        } else {
            let xr = x.as_rat().cloned().unwrap_or(Rat::ZERO);
            if xr.denom() <= &Int::from(bound) {
                prop_assert_eq!(c, xr);
            }
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The last convergent p/q with q ≤ `bound` of the rational n/d (d > 0), by Euclid's
/// algorithm on num-bigint: the oracle for [`Number::best_convergent`].
fn oracle_rational_convergent(mut n: BigInt, mut d: BigInt, bound: &BigInt) -> (BigInt, BigInt) {
    let (mut p1, mut q1, mut p2, mut q2) =
        (BigInt::one(), BigInt::zero(), BigInt::zero(), BigInt::one());
    loop {
        let (a, r) = n.div_mod_floor(&d);
        let p = &a * &p1 + &p2;
        let q = &a * &q1 + &q2;
        if &q > bound {
            return (p1, q1);
        }
        if r.is_zero() {
            return (p, q);
        }
        (p2, q2, p1, q1) = (p1, q1, p, q);
        (n, d) = (d, r);
    }
}

/// The best convergent of an irrational x with q ≤ `bound`, when both ends of an
/// independent enclosure of x have the same one (they do once it is narrow enough).
fn oracle_convergent(x: &Number, bound: u64) -> Option<(BigInt, BigInt)> {
    let mut l = BigInt::one();
    for (c, _) in &x.terms() {
        l = l.lcm(&big(c.denom()));
    }
    let bound = BigInt::from(bound.max(1));
    for p in [256usize, 2048, 16384] {
        // oracle_enclosure brackets 2^p·L·x.
        let (lo, hi) = oracle_enclosure(x, p);
        let den = &l << p;
        let at_lo = oracle_rational_convergent(lo, den.clone(), &bound);
        if at_lo == oracle_rational_convergent(hi, den, &bound) {
            return Some(at_lo);
        }
    }
    None
}

/// Checks x's best convergent under `bound` against the oracle; false when the oracle
/// could not decide (its enclosures stayed too wide).
fn check_convergent(x: &Number, bound: u64) -> Result<bool, TestCaseError> {
    let c = x.best_convergent(bound);
    let Some((p, q)) = oracle_convergent(x, bound) else {
        return Ok(false);
    };
    prop_assert_eq!(
        (big(c.numer()), big(c.denom())),
        (p, q),
        "x = {}, bound = {}",
        x,
        bound
    );
    Ok(true)
}

#[test]
fn convergents_match_an_independent_continued_fraction() {
    let mut r = runner(300, 11);
    let undecided = std::cell::Cell::new(0);
    r.run(&(value(5), 1u64..2_000_000_000u64), |(x, bound)| {
        for b in [bound, 1, 1_000_000_000] {
            if !check_convergent(&x, b)? {
                undecided.set(undecided.get() + 1);
            }
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // Only a value equal to a rational the oracle's enclosure cannot exclude escapes it.
    assert!(undecided.get() < 30, "{} undecided", undecided.get());
    // Values very near an integer — powers of units, from above and below, and their
    // reciprocals (near zero); the golden ratio's powers carry a denominator 2^k — and
    // the same moved off the integer by 1/3.
    let units = [
        sqrt(2).add(&Number::from(1)),
        sqrt(2).add(&sqrt(3)),
        sqrt(5).add(&Number::from(1)).mul(&rat(1, 2)),
        sqrt(3)
            .add(&Number::from(2))
            .mul(&sqrt(5).add(&Number::from(2))),
    ];
    for u in &units {
        let mut x = Number::from(1);
        for k in 1..=90 {
            x = x.mul(u);
            if k % 3 != 0 {
                continue;
            }
            let values = [
                x.clone(),
                x.neg(),
                Number::from(1).div(&x).expect("a unit's power is not zero"),
                x.add(&rat(1, 3)),
            ];
            for v in &values {
                for bound in [1u64, 7, 1_000, 1_000_000_000, u64::MAX] {
                    let checked =
                        check_convergent(v, bound).unwrap_or_else(|e| panic!("k = {k}: {e}"));
                    assert!(checked, "the oracle decides {v} under {bound}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Int and Rat against num-bigint.

fn boundary_ints() -> Vec<BigInt> {
    let mut v: Vec<BigInt> = Vec::new();
    for base in [
        BigInt::from(0),
        BigInt::from(i64::MAX),
        BigInt::from(i64::MIN),
        BigInt::from(u64::MAX),
        BigInt::from(i128::MAX),
        BigInt::from(i128::MIN),
        BigInt::from(u128::MAX),
        BigInt::one() << 63,
        BigInt::one() << 64,
        BigInt::one() << 127,
        BigInt::one() << 128,
        BigInt::one() << 200,
    ] {
        for d in -2i64..=2 {
            v.push(&base + d);
            v.push(-&base + d);
        }
    }
    v
}

fn int_strategy() -> impl Strategy<Value = BigInt> {
    let bounds = boundary_ints();
    prop_oneof![
        any::<i64>().prop_map(BigInt::from),
        any::<i128>().prop_map(BigInt::from),
        (any::<bool>(), prop::collection::vec(any::<u32>(), 0..9)).prop_map(|(neg, digits)| {
            let m = BigInt::from(num_bigint::BigUint::new(digits));
            if neg {
                -m
            } else {
                m
            }
        }),
        (0..bounds.len()).prop_map(move |i| bounds[i].clone()),
        (-300i64..300).prop_map(BigInt::from),
    ]
}

fn to_int(b: &BigInt) -> Int {
    Int::from_decimal(&b.magnitude().to_string())
        .pipe(|m| if b.is_negative() { m.neg() } else { m })
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

fn canonical_int(i: &Int) -> bool {
    match i {
        Int::Small(_) => true,
        Int::Big(_) => {
            i.to_i64().is_none() && big(i) > BigInt::from(i64::MAX)
                || big(i) < BigInt::from(i64::MIN)
        }
    }
}

#[test]
fn int_ops_match_num_bigint() {
    ajisai_numerics_pure::link();
    let mut r = runner(2000, 7);
    r.run(&(int_strategy(), int_strategy()), |(a, b)| {
        let (x, y) = (to_int(&a), to_int(&b));
        prop_assert_eq!(big(&x), a.clone());
        prop_assert!(canonical_int(&x));
        let checks: [(Int, BigInt, &str); 5] = [
            (x.add(&y), &a + &b, "add"),
            (x.sub(&y), &a - &b, "sub"),
            (x.mul(&y), &a * &b, "mul"),
            (x.neg(), -&a, "neg"),
            (x.gcd(&y), a.gcd(&b), "gcd"),
        ];
        for (got, want, op) in checks {
            prop_assert_eq!(big(&got), want, "{} of {} and {}", op, a, b);
            prop_assert!(canonical_int(&got), "{} not canonical", op);
        }
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.to_string(), a.to_string());
        prop_assert_eq!(x.bit_length(), a.bits());
        prop_assert_eq!(
            x.signum(),
            if a.is_zero() {
                0
            } else if a.is_negative() {
                -1
            } else {
                1
            }
        );
        prop_assert_eq!(x.is_even(), a.is_even());
        prop_assert_eq!(x.popcount(), a.magnitude().count_ones());
        prop_assert_eq!(x.trailing_zeros(), a.trailing_zeros().unwrap_or(0));
        if !b.is_zero() {
            let (q, rem) = x.div_rem(&y);
            let (bq, br) = (&a / &b, &a % &b);
            prop_assert_eq!((big(&q), big(&rem)), (bq, br), "div_rem {} {}", a, b);
            let (fq, fr) = x.div_mod_floor(&y);
            let (bfq, bfr) = a.div_mod_floor(&b);
            prop_assert_eq!(
                (big(&fq), big(&fr)),
                (bfq, bfr),
                "div_mod_floor {} {}",
                a,
                b
            );
            prop_assert_eq!(big(&x.mul(&y).div_exact(&y)), a.clone());
            prop_assert_eq!(big(&x.lcm(&y)), a.lcm(&b));
        }
        let m = a.abs();
        let xm = x.abs();
        prop_assert_eq!(big(&xm.isqrt()), m.sqrt());
        prop_assert_eq!(big(&xm.nth_root_floor(3)), m.cbrt());
        prop_assert_eq!(big(&xm.nth_root_floor(5)), m.nth_root(5));
        for k in [0u64, 1, 7, 63, 64, 65, 130] {
            prop_assert_eq!(big(&x.shl(k)), &a << k);
            prop_assert_eq!(big(&x.shr_floor(k)), a.div_floor(&(BigInt::one() << k)));
        }
        for d in [1u64, 2, 3, 10, 97, u32::MAX as u64, u64::MAX] {
            let want = (&m % BigInt::from(d)).to_string();
            prop_assert_eq!(x.rem_u64(d).to_string(), want);
            let prod = x.mul(&Int::from(d));
            prop_assert_eq!(big(&prod.div_exact_u64(d)), a.clone());
        }
        if let Some(e) = b.to_u32().map(|e| e % 9) {
            prop_assert_eq!(big(&x.pow(e as u64)), a.pow(e));
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

use num_traits::ToPrimitive;

fn rat_parts(r: &Rat) -> (BigInt, BigInt) {
    (big(r.numer()), big(r.denom()))
}

fn reduce(n: BigInt, d: BigInt) -> (BigInt, BigInt) {
    let g = n.gcd(&d);
    let (n, d) = (n / &g, d / &g);
    if d.is_negative() {
        (-n, -d)
    } else {
        (n, d)
    }
}

/// x + y, x − y, x·y and x/y (when y ≠ 0) against num-bigint, given x = xa/xb and
/// y = ya/yb in lowest terms.
fn check_four_operations(
    x: &Rat,
    y: &Rat,
    (xa, xb): (&BigInt, &BigInt),
    (ya, yb): (&BigInt, &BigInt),
) -> Result<(), TestCaseError> {
    prop_assert_eq!(rat_parts(&x.add(y)), reduce(xa * yb + ya * xb, xb * yb));
    prop_assert_eq!(rat_parts(&x.sub(y)), reduce(xa * yb - ya * xb, xb * yb));
    prop_assert_eq!(rat_parts(&x.mul(y)), reduce(xa * ya, xb * yb));
    if !ya.is_zero() {
        prop_assert_eq!(rat_parts(&x.div(y)), reduce(xa * yb, xb * ya));
    }
    Ok(())
}

#[test]
fn rat_ops_match_num_bigint() {
    ajisai_numerics_pure::link();
    let nonzero = || int_strategy().prop_filter("non-zero", |d| !d.is_zero());
    let mut r = runner(1500, 8);
    r.run(
        &(int_strategy(), nonzero(), int_strategy(), nonzero()),
        |(an, ad, bn, bd)| {
            let x = Rat::new(to_int(&an), to_int(&ad));
            let y = Rat::new(to_int(&bn), to_int(&bd));
            let (xa, xb) = reduce(an.clone(), ad.clone());
            let (ya, yb) = reduce(bn.clone(), bd.clone());
            prop_assert_eq!(rat_parts(&x), (xa.clone(), xb.clone()));
            prop_assert!(canonical_int(x.numer()) && canonical_int(x.denom()));
            check_four_operations(&x, &y, (&xa, &xb), (&ya, &yb))?;
            prop_assert_eq!(x.cmp(&y), (&xa * &yb).cmp(&(&ya * &xb)));
            prop_assert_eq!(big(&x.floor()), xa.div_floor(&xb));
            prop_assert_eq!(big(&x.ceil()), -((-&xa).div_floor(&xb)));
            prop_assert_eq!(x.to_string(), format!("{xa}/{xb}"));
            prop_assert_eq!(x.width(), xa.bits().max(xb.bits()));
            let n = Number::Rat(x.clone());
            prop_assert_eq!(big(&n.round()), {
                // sign(x)·⌊|x| + 1/2⌋
                let num: BigInt = xa.abs() * BigInt::from(2) + &xb;
                let f = num.div_floor(&(&xb * BigInt::from(2)));
                if xa.is_negative() {
                    -f
                } else {
                    f
                }
            });
            Ok(())
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The machine-word lanes of the four operations (every part fits `i64`): parts with
/// shared factors (so both gcds of Knuth's sum, and both cross-reductions of a product,
/// are above 1), parts across the whole `i64` range, and the range's ends.
#[test]
fn rat_ops_on_machine_words_match_num_bigint() {
    ajisai_numerics_pure::link();
    let part = || {
        prop_oneof![
            // Products of small primes: shared factors at every draw.
            (0u32..4, 0u32..3, 0u32..3, 0u32..2)
                .prop_map(|(i, j, k, l)| 2i64.pow(i) * 3i64.pow(j) * 5i64.pow(k) * 7i64.pow(l)),
            -60i64..60,
            any::<i64>(),
            prop_oneof![
                Just(i64::MAX),
                Just(i64::MIN),
                Just(i64::MAX - 1),
                Just(i64::MIN + 1)
            ],
            (1i64..1 << 31).prop_map(|x| x * 6),
        ]
    };
    let nonzero = move || part().prop_filter("non-zero", |d| *d != 0);
    let mut r = runner(4000, 12);
    r.run(
        &(part(), nonzero(), part(), nonzero()),
        |(an, ad, bn, bd)| {
            let x = Rat::new(Int::from(an), Int::from(ad));
            let y = Rat::new(Int::from(bn), Int::from(bd));
            let (xa, xb) = reduce(BigInt::from(an), BigInt::from(ad));
            let (ya, yb) = reduce(BigInt::from(bn), BigInt::from(bd));
            check_four_operations(&x, &y, (&xa, &xb), (&ya, &yb))?;
            for r in [x.add(&y), x.sub(&y), x.mul(&y)] {
                prop_assert!(canonical_int(r.numer()) && canonical_int(r.denom()));
            }
            Ok(())
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Sums whose denominators share factors, the paths of Knuth's addition that random
/// denominators (almost always coprime) never take: the gcd of the denominators, and of
/// the sum with it, both above 1; and the harmonic shape, a wide sum plus 1/k.
#[test]
fn rat_sums_with_shared_denominator_factors_match_num_bigint() {
    ajisai_numerics_pure::link();
    let nonzero = || int_strategy().prop_filter("non-zero", |d| !d.is_zero());
    let mut r = runner(1500, 9);
    r.run(
        &(
            int_strategy(),
            int_strategy(),
            nonzero(),
            nonzero(),
            nonzero(),
            1u64..5000,
        ),
        |(an, bn, g, u, v, k)| {
            let (ad, bd) = (&g * &u, &g * &v);
            let x = Rat::new(to_int(&an), to_int(&ad));
            let y = Rat::new(to_int(&bn), to_int(&bd));
            let (xa, xb) = reduce(an.clone(), ad.clone());
            let (ya, yb) = reduce(bn.clone(), bd.clone());
            prop_assert_eq!(
                rat_parts(&x.add(&y)),
                reduce(&xa * &yb + &ya * &xb, &xb * &yb)
            );
            prop_assert_eq!(
                rat_parts(&x.sub(&y)),
                reduce(&xa * &yb - &ya * &xb, &xb * &yb)
            );
            // x − x·(1 + 0) cancels to zero through the same paths.
            prop_assert_eq!(rat_parts(&x.sub(&x)), (BigInt::zero(), BigInt::one()));
            let one_over_k = Rat::new(Int::from(1i64), Int::from(k));
            prop_assert_eq!(
                rat_parts(&x.add(&one_over_k)),
                reduce(&xa * BigInt::from(k) + &xb, &xb * BigInt::from(k))
            );
            let n = Int::from(k as i64 - 2500);
            prop_assert_eq!(
                rat_parts(&Rat::from(n.clone()).add(&x)),
                reduce(big(&n) * &xb + &xa, xb.clone())
            );
            Ok(())
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn int_edge_cases() {
    ajisai_numerics_pure::link();
    let min = Int::from(i64::MIN);
    assert_eq!(min.neg().to_string(), "9223372036854775808");
    assert_eq!(min.neg().neg(), min);
    assert_eq!(min.abs().to_string(), "9223372036854775808");
    assert_eq!(
        min.div_rem(&Int::from(-1i64)).0.to_string(),
        "9223372036854775808"
    );
    assert_eq!(
        min.div_exact(&Int::from(-1i64)).to_string(),
        "9223372036854775808"
    );
    assert_eq!(min.gcd(&min).to_string(), "9223372036854775808");
    assert_eq!(min.gcd(&Int::ZERO).to_string(), "9223372036854775808");
    assert_eq!(
        min.mul(&Int::from(-1i64)).to_string(),
        "9223372036854775808"
    );
    assert_eq!(min.shr_floor(63), Int::from(-1i64));
    assert_eq!(min.shr_floor(64), Int::from(-1i64));
    assert_eq!(Int::from(-1i64).shr_floor(200), Int::from(-1i64));
    assert_eq!(Int::from(1u64 << 63).neg(), min);
    assert_eq!(Int::from(u64::MAX).isqrt().to_string(), "4294967295");
    assert_eq!(
        Int::from(u128::MAX).isqrt().to_string(),
        "18446744073709551615"
    );
    let r = Rat::new(min.clone(), Int::from(-1i64));
    assert_eq!(r.to_string(), "9223372036854775808/1");
    let r = Rat::new(Int::from(1i64), min.clone());
    assert_eq!(r.to_string(), "-1/9223372036854775808");
    assert_eq!(r.recip().to_string(), "-9223372036854775808/1");
    let r = Rat::new(min.clone(), min.clone());
    assert_eq!(r, Rat::ONE);
    let half = Rat::new(Int::ONE, Int::from(2i64));
    assert_eq!(
        Rat::new(min, Int::from(3i64))
            .add(&half)
            .floor()
            .to_string(),
        "-3074457345618258603"
    );
}
