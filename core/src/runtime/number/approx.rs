//! Rational approximation of algebraic numbers by continued-fraction convergents (MCP-30; docs/mcp/envelope.md).
//!
//! The approximation is the last convergent p/q with q ≤ bound of the regular
//! continued fraction of x (a₀ = ⌊x⌋, then partial quotients ≥ 1). Each partial
//! quotient aₙ = ⌊xₙ⌋ of the complete quotient xₙ = (pₙ₋₂ − qₙ₋₂·x)/(qₙ₋₁·x − pₙ₋₁)
//! is decided exactly: from a rigorous rational enclosure of x when the images of
//! both ends have the same floor, else by exact sign tests of linear forms α·x + β.
//! So the answer is the mathematical convergent, identical on every backend.

use super::algebraic::{Alg, Approximator};
use super::int::Int;
use super::rational::Rat;
use super::{Budget, Number, Unmetered};
use crate::limits::Halt;

/// The last convergent p/q with q ≤ `bound` of x's regular continued fraction, in
/// lowest terms. For a rational x with denominator ≤ `bound` that is x itself. A
/// `bound` of 0 is treated as 1 (the convergent a₀/1 = ⌊x⌋/1 always qualifies).
pub fn best_convergent(x: &Number, bound: u64) -> Rat {
    match try_best_convergent(x, bound, &mut Unmetered) {
        Ok(r) => r,
        Err(_) => unreachable!("the unmetered budget never refuses"),
    }
}

/// [`best_convergent`], polling `budget` between steps.
pub fn try_best_convergent(x: &Number, bound: u64, budget: &mut dyn Budget) -> Result<Rat, Halt> {
    let bound = Int::from(bound.max(1));
    match x {
        Number::Rat(r) => Ok(rational_convergent(r, &bound)),
        Number::Alg(a) => algebraic_convergent(a, &bound, budget),
    }
}

/// The convergents of a rational by the Euclidean algorithm.
fn rational_convergent(r: &Rat, bound: &Int) -> Rat {
    if r.denom() <= bound {
        return r.clone();
    }
    let (mut p1, mut q1, mut p2, mut q2) = (Int::ONE, Int::ZERO, Int::ZERO, Int::ONE);
    let (mut n, mut d) = (r.numer().clone(), r.denom().clone());
    loop {
        let (a, rem) = n.div_mod_floor(&d);
        let p = a.mul(&p1).add(&p2);
        let q = a.mul(&q1).add(&q2);
        if q > *bound {
            return Rat::from_reduced(p1, q1);
        }
        if rem.is_zero() {
            return Rat::from_reduced(p, q);
        }
        (p2, q2, p1, q1) = (p1, q1, p, q);
        (n, d) = (d, rem);
    }
}

/// Extra bits of precision beyond the enclosure's natural scale: enough for
/// convergents with denominators up to about 2^40 without refinement.
const EXTRA_BITS: u64 = 96;

/// Refinement beyond the first precision before switching to exact sign tests.
const REFINE_BITS: u64 = 4096;

/// Bits of the fractional part kept beyond a precision's own when its enclosure is
/// rounded outward to a power-of-two denominator: the rounding widens the enclosure far
/// less than its width.
const ROUNDING_BITS: u64 = 64;

/// An enclosure lo/2^m ≤ x − a₀ ≤ hi/2^m of x's fractional part, within [0, 1].
///
/// Why not the enclosure itself: its ends are as wide as x's coefficients, and testing
/// partial quotients on them multiplied and divided numbers of that size at every step
/// (a 6,000-digit x made the tests most of an envelope's time); rounded to m bits the
/// tests work on numbers of about m bits. Why clipped to [0, 1]: a₀ is x's floor
/// exactly, while an x very near an integer (a power of a unit, such as
/// (√2 + √3)¹²⁰⁰⁰, is within 10⁻⁵⁹⁰⁰ of one) has an enclosure reaching past it at any
/// affordable precision.
struct Fraction {
    lo: Int,
    hi: Int,
    den: Int,
}

impl Fraction {
    /// The fractional part of x from lo/2^m ≤ x ≤ hi/2^m and ⌊x⌋ = `a0`.
    fn of(lo: &Int, hi: &Int, a0: &Int, m: u64) -> Fraction {
        let one = Int::ONE.shl(m);
        let shift = a0.shl(m);
        Fraction {
            lo: lo.sub(&shift).max(Int::ZERO),
            hi: hi.sub(&shift).min(one.clone()),
            den: one,
        }
    }
}

fn algebraic_convergent(a: &Alg, bound: &Int, budget: &mut dyn Budget) -> Result<Rat, Halt> {
    let mut ap = Approximator::new(a);
    let first = ap.precision_for(EXTRA_BITS);
    let bits = |prec: u64| prec - first + EXTRA_BITS + ROUNDING_BITS;
    let (lo, hi) = ap.dyadic_bounds(first, bits(first), budget)?;
    // ⌊x⌋ from the first enclosure, settled by one exact sign test when it straddles an
    // integer (it does for an x very near one), else by the approximator's refinement.
    let floor_lo = lo.shr_floor(bits(first));
    let floor_hi = hi.shr_floor(bits(first));
    let a0 = if floor_lo == floor_hi {
        floor_lo
    } else if floor_hi.sub(&floor_lo).is_one() {
        // x is within w = (hi − lo)/2^m of the integer k = floor_hi. When w < 1/2, k/1 is
        // a convergent (Legendre: |x − p/q| < 1/(2q²)), and the next one's denominator
        // q' has |x − k| > 1/(1 + q'), so q' > 1/w − 1: when w·(bound + 1) ≤ 1 that is
        // past the bound, and k/1 is the answer whichever side of k x lies — no exact
        // test needed for an x very near an integer.
        let width = hi.sub(&lo);
        if width.mul(&bound.add(&Int::ONE)) <= Int::ONE.shl(bits(first)) {
            return Ok(Rat::from_reduced(floor_hi, Int::ONE));
        }
        // x ∈ (k − 1, k + 1) for k = floor_hi, and x is irrational: ⌊x⌋ = k iff x > k.
        if ap.sign_linear(&Int::ONE, &floor_hi.neg(), budget)? > 0 {
            floor_hi
        } else {
            floor_lo
        }
    } else {
        ap.floor(budget)?
    };
    // The fractional part's enclosure and the precision it was computed at.
    let mut enclosure = (first, Fraction::of(&lo, &hi, &a0, bits(first)));
    // (p1, q1) = (pₙ₋₁, qₙ₋₁), (p2, q2) = (pₙ₋₂, qₙ₋₂), the numerators kept as
    // pₖ − a₀·qₖ: the convergents of the fractional part x − a₀, which has the same
    // partial quotients after a₀. The numerators then stay below the bound however large x
    // is; `whole` gives the true numerator back.
    let (mut p1, mut q1, mut p2, mut q2) = (Int::ZERO, Int::ONE, Int::ONE, Int::ZERO);
    let whole = |p: &Int, q: &Int| p.add(&a0.mul(q));
    let cap = first.saturating_add(REFINE_BITS);
    let mut prec = first;
    // sign(qₙ₋₁·x − pₙ₋₁) = (−1)^(n−1): convergents alternate around x, starting below.
    let mut s_den: i32 = 1;
    loop {
        budget.poll()?;
        // aₙ ≥ 1, so qₙ = aₙ·qₙ₋₁ + qₙ₋₂ exceeds the bound as soon as aₙ > a_max.
        let a_max = bound.sub(&q2).div_mod_floor(&q1).0;
        if a_max.signum() < 1 {
            return Ok(Rat::from_reduced(whole(&p1, &q1), q1));
        }
        let stop = a_max.add(&Int::ONE);
        let an = loop {
            if enclosure.0 != prec {
                let (lo, hi) = ap.dyadic_bounds(prec, bits(prec), budget)?;
                enclosure = (prec, Fraction::of(&lo, &hi, &a0, bits(prec)));
            }
            let Fraction { lo, hi, den } = &enclosure.1;
            let image = |t: &Int| -> Option<Int> {
                let num = p2.mul(den).sub(&q2.mul(t));
                let dd = q1.mul(t).sub(&p1.mul(den));
                if dd.signum() != s_den {
                    return None;
                }
                let (num, dd) = if dd.signum() < 0 {
                    (num.neg(), dd.neg())
                } else {
                    (num, dd)
                };
                Some(num.div_mod_floor(&dd).0)
            };
            let images = (image(lo), image(hi));
            // An end past pₙ₋₁/qₙ₋₁ (no image) means the enclosure reaches that pole,
            // where xₙ goes to +∞: on the part of the enclosure that can hold the
            // fraction, xₙ is at least the other end's image (it is monotonic there).
            if let (Some(f), None) | (None, Some(f)) = &images {
                if *f >= stop {
                    break stop;
                }
            }
            if let (Some(fa), Some(fb)) = images {
                let (fl, fh) = if fa <= fb { (fa, fb) } else { (fb, fa) };
                if fl >= stop {
                    break stop;
                }
                if fl == fh {
                    break fl;
                }
                if prec >= cap {
                    let lo_k = fl.max(Int::ONE);
                    let hi_k = if fh < stop { fh } else { stop.clone() };
                    break exact_quotient(
                        &mut ap,
                        [&whole(&p1, &q1), &q1, &whole(&p2, &q2), &q2],
                        s_den,
                        lo_k,
                        hi_k,
                        budget,
                    )?;
                }
            } else if prec >= cap {
                break exact_quotient(
                    &mut ap,
                    [&whole(&p1, &q1), &q1, &whole(&p2, &q2), &q2],
                    s_den,
                    Int::ONE,
                    stop.clone(),
                    budget,
                )?;
            }
            prec = prec.saturating_mul(2).min(cap);
        };
        if an > a_max {
            return Ok(Rat::from_reduced(whole(&p1, &q1), q1));
        }
        let p = an.mul(&p1).add(&p2);
        let q = an.mul(&q1).add(&q2);
        (p2, q2, p1, q1) = (p1, q1, p, q);
        s_den = -s_den;
    }
}

/// The largest k in [lo_k, hi_k] with xₙ > k, by bisection over exact sign tests
/// (xₙ > lo_k must hold; xₙ is irrational, so never equal to k).
fn exact_quotient(
    ap: &mut Approximator,
    [p1, q1, p2, q2]: [&Int; 4],
    s_den: i32,
    mut lo_k: Int,
    mut hi_k: Int,
    budget: &mut dyn Budget,
) -> Result<Int, Halt> {
    // xₙ − k = ((p2 + k·p1) − (q2 + k·q1)·x) / (q1·x − p1).
    let above = |k: &Int, ap: &mut Approximator, budget: &mut dyn Budget| -> Result<bool, Halt> {
        let alpha = q2.add(&k.mul(q1)).neg();
        let beta = p2.add(&k.mul(p1));
        Ok(ap.sign_linear(&alpha, &beta, budget)? * s_den > 0)
    };
    if above(&hi_k, ap, budget)? {
        return Ok(hi_k);
    }
    // Invariant: xₙ > lo_k, xₙ < hi_k.
    while hi_k.sub(&lo_k) > Int::ONE {
        let mid = lo_k.add(&hi_k).shr_floor(1);
        if above(&mid, ap, budget)? {
            lo_k = mid;
        } else {
            hi_k = mid;
        }
    }
    Ok(lo_k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rational_convergents() {
        let r = Rat::new(Int::from(355i64), Int::from(113i64));
        assert_eq!(best_convergent(&Number::Rat(r.clone()), 1000), r);
        assert_eq!(best_convergent(&Number::Rat(r), 100).to_string(), "22/7");
        let half = Rat::new(Int::ONE, Int::from(2i64));
        assert_eq!(best_convergent(&Number::Rat(half), 1).to_string(), "0/1");
        let neg = Rat::new(Int::from(-7i64), Int::from(3i64));
        assert_eq!(best_convergent(&Number::Rat(neg), 2).to_string(), "-2/1");
    }
}
