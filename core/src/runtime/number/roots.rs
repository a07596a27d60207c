//! Square roots of rationals and exact powers (SQRT, POW), with their work charges.
//!
//! - [`sqrt_rat`]: √(n/m) = √(n·m)/m with n·m = s²·t decomposed by the trial-division
//!   procedure of docs/reference/pricing-and-limits.md#numericwork, charging limbs(n·m) per
//!   candidate before its trial.
//! - [`pow`]: docs/words/exactArithmetic.md#pow — integer exponents by left-to-right binary
//!   exponentiation (one `MUL` charge per multiplication, priced on the two intermediate powers,
//!   docs/reference/pricing-and-limits.md), fractional exponents p/q on rational bases through
//!   exact q-th (or (q/2)-th plus square) roots, and the `bigintBits` / `algebraicTerms` refusals
//!   decided before the result is built.

use super::algebraic::Alg;
use super::{Budget, Int, Number, Rat};
use crate::limits::{exceeded, Halt, Limit};
use crate::outcome::{err, NilReason};
use crate::price::{binary_charge, measure_number, ArithOp};
use std::sync::Arc;

/// Ceilings a power must respect, decided before the result is built.
#[derive(Clone, Copy, Debug)]
pub struct PowLimits {
    /// `bigintBits`.
    pub bigint_bits: u64,
    /// `algebraicTerms`.
    pub algebraic_terms: u64,
}

/// √r of a rational in canonical form; `Ok(None)` when r < 0 (the caller projects
/// `NIL(domainMiss)`). Charges limbs(N) per trial divisor of the square-free
/// decomposition (docs/reference/pricing-and-limits.md#numericwork) to `budget` before each trial,
/// N = numerator·denominator.
pub fn sqrt_rat(r: &Rat, budget: &mut dyn Budget) -> Result<Option<Number>, Halt> {
    if r.signum() < 0 {
        return Ok(None);
    }
    if r.is_zero() {
        return Ok(Some(Number::ZERO));
    }
    let m = r.denom();
    let n = r.numer().mul(m);
    let (s, t) = square_free_decompose(&n, budget)?;
    // √(n/m) = √(n·m)/m = (s/m)·√t.
    let c = Rat::new(s, m.clone());
    if t.is_one() {
        return Ok(Some(Number::Rat(c)));
    }
    Ok(Some(Number::Alg(Arc::new(Alg::from_canonical_terms(
        vec![(c, t)],
    )))))
}

/// n = s²·t with t square-free, for n ≥ 1, by the procedure of
/// docs/reference/pricing-and-limits.md#numericwork: every integer p = 2, 3, 4, … is tried while p³
/// ≤ the remaining cofactor, each divisor removed completely; the cofactor left is then 1, a prime,
/// a prime square or a product of two distinct primes. limbs(n) is charged before each candidate's
/// trial.
pub fn square_free_decompose(n: &Int, budget: &mut dyn Budget) -> Result<(Int, Int), Halt> {
    let unit = n.limb_count();
    let mut rest = n.abs();
    let mut s = Int::ONE;
    let mut t = Int::ONE;
    let mut p: u64 = 2;
    while cube_at_most(p, &rest) {
        budget.charge(unit)?;
        if rest.rem_u64(p) == 0 {
            let e = remove_factor(&mut rest, p);
            if e % 2 == 1 {
                t = t.mul(&Int::from(p));
            }
            if e >= 2 {
                s = s.mul(&Int::from(p).pow(e / 2));
            }
        }
        p += 1;
    }
    if !rest.is_one() {
        match rest.exact_sqrt() {
            Some(root) => s = s.mul(&root),
            None => t = t.mul(&rest),
        }
    }
    Ok((s, t))
}

/// Divide every factor p out of `rest` (p ≥ 2 divides it) and return how many there
/// were. The result is the same as dividing by p one time after another, but the work is
/// O(log e) divisions instead of e: 2^e by its trailing zeros, other p by the powers
/// p, p², p⁴, … while they divide (then back down), so `6 100000 POW SQRT` removes its
/// 2^100000·3^100000 in milliseconds. Priced as the decomposition's trial division
/// (docs/reference/pricing-and-limits.md#numericwork: the caller charges per candidate), never
/// per division.
fn remove_factor(rest: &mut Int, p: u64) -> u64 {
    if p == 2 {
        let e = rest.trailing_zeros();
        *rest = rest.shr_floor(e);
        return e;
    }
    // powers[k] = p^(2^k), each dividing what was left when it was pushed.
    let mut powers: Vec<Int> = vec![Int::from(p)];
    let mut e = 0u64;
    loop {
        let top = powers.last().cloned().unwrap_or(Int::ONE);
        if top.bit_length() > rest.bit_length() {
            break;
        }
        let (q, r) = rest.div_rem(&top);
        if !r.is_zero() {
            break;
        }
        *rest = q;
        e += 1u64 << (powers.len() - 1);
        let next = top.mul(&top);
        powers.push(next);
    }
    // What is left has fewer than 2^k factors p for the largest k tried: take the
    // remaining powers from the top down, each at most once.
    for (k, power) in powers.iter().enumerate().rev() {
        if power.bit_length() > rest.bit_length() {
            continue;
        }
        let (q, r) = rest.div_rem(power);
        if r.is_zero() {
            *rest = q;
            e += 1u64 << k;
        }
    }
    e
}

/// p³ ≤ m.
fn cube_at_most(p: u64, m: &Int) -> bool {
    if p < 1 << 42 {
        let c = (p as u128) * (p as u128) * (p as u128);
        return match m.magnitude_u128() {
            Some(v) => c <= v,
            None => true,
        };
    }
    Int::from(p).pow(3) <= *m
}

/// bᵉ for a rational exponent e = p/q (docs/words/exactArithmetic.md#pow). `Ok(Err(reason))` is a
/// per-lane NIL (`divisionByZero`, `domainMiss`); an algebraic b with q ≥ 2 is `typeMismatch`; a
/// result too wide for `limits.bigint_bits` (or with more terms than `limits.algebraic_terms`) is
/// `resourceLimitExceeded`, decided before the result is built. Charges the work of
/// docs/reference/pricing-and-limits.md to `budget`, each charge before the work it pays for.
///
/// Width decisions: for a rational base (and for the rational root r of a perfect q-th
/// power, with exponent p) the lower bound |p|·(w−1)+1 refuses before anything is
/// built, else the exact width of the built power decides. For an algebraic base (and
/// the square-root forms (√t)ᵖ), every intermediate power of the binary exponentiation
/// is checked as `MUL` checks its result, so no integer wider than about twice the
/// limit is ever built; a refused intermediate's width (or term count) is the
/// message's observed value.
pub fn pow(
    b: &Number,
    e: &Rat,
    budget: &mut dyn Budget,
    limits: PowLimits,
) -> Result<Result<Number, NilReason>, Halt> {
    let p = e.numer();
    let q = e.denom();
    if q.is_one() {
        return int_pow(b, p, budget, limits);
    }
    let r = match b {
        Number::Rat(r) => r,
        Number::Alg(_) => {
            return Err(Halt::Error(err::type_mismatch(format!(
                "a fractional exponent needs a rational base, but the base {b} is irrational \
                 (exponent {e}); use an integer exponent"
            ))))
        }
    };
    if r.signum() < 0 {
        return Ok(Err(NilReason::DomainMiss));
    }
    if r.is_zero() && p.is_negative() {
        return Ok(Err(NilReason::DivisionByZero));
    }
    // The root test.
    let l = b.work_limbs();
    budget.charge(l.saturating_mul(l))?;
    if let Some(root) = rational_root(r, q) {
        return int_pow(&Number::Rat(root), p, budget, limits);
    }
    if q.is_even() {
        let half = q.shr_floor(1);
        if let Some(t) = rational_root(r, &half) {
            // t is not a perfect square (else b would be a perfect q-th power), so √t
            // is irrational and bᵉ = (√t)ᵖ.
            return match sqrt_rat(&t, budget)? {
                Some(root) => int_pow(&root, p, budget, limits),
                None => Ok(Err(NilReason::DomainMiss)),
            };
        }
    }
    Ok(Err(NilReason::DomainMiss))
}

/// The rational q-th root of r ≥ 0, if r is a perfect q-th power (q ≥ 1).
fn rational_root(r: &Rat, q: &Int) -> Option<Rat> {
    let (n, d) = (r.numer(), r.denom());
    match q.to_u64() {
        Some(k) => {
            let rn = n.exact_nth_root(k)?;
            let rd = d.exact_nth_root(k)?;
            Some(Rat::from_reduced(rn, rd))
        }
        // q ≥ 2^63 exceeds every bit length: only 0 and 1 are q-th powers.
        None => (d.is_one() && (n.is_zero() || n.is_one())).then(|| r.clone()),
    }
}

fn limit_error(limit: Limit, observed: impl std::fmt::Display, value: u64) -> Halt {
    Halt::Error(exceeded(limit, observed, value))
}

/// Refuse an intermediate or final power that `MUL` would refuse.
fn check_size(x: &Number, limits: PowLimits) -> Result<(), Halt> {
    let w = x.width();
    if w > limits.bigint_bits {
        return Err(limit_error(Limit::BigintBits, w, limits.bigint_bits));
    }
    let t = x.term_count();
    if x.as_rat().is_none() && t > limits.algebraic_terms {
        return Err(limit_error(
            Limit::AlgebraicTerms,
            t,
            limits.algebraic_terms,
        ));
    }
    Ok(())
}

/// a·b, polling the budget during long algebraic products.
fn mul_polled(a: &Number, b: &Number, budget: &mut dyn Budget) -> Result<Number, Halt> {
    match (a, b) {
        (Number::Rat(x), Number::Rat(y)) => Ok(Number::Rat(x.mul(y))),
        _ if std::ptr::eq(a, b) => {
            // The same operand twice: one conversion, and the product is a square (its
            // cross terms computed once, each part squared rather than multiplied).
            let x = Alg::from_number(a);
            Ok(Number::from_alg(x.try_mul(&x, budget)?))
        }
        _ => Ok(Number::from_alg(
            Alg::from_number(a).try_mul(&Alg::from_number(b), budget)?,
        )),
    }
}

/// bᵖ for an integer p (any Number b), charging per docs/reference/pricing-and-limits.md.
fn int_pow(
    b: &Number,
    p: &Int,
    budget: &mut dyn Budget,
    limits: PowLimits,
) -> Result<Result<Number, NilReason>, Halt> {
    if p.is_zero() {
        // 0⁰ = 1; no multiplication runs.
        return Ok(Ok(Number::from(1)));
    }
    if b.is_zero() && p.is_negative() {
        return Ok(Err(NilReason::DivisionByZero));
    }
    let k = p.abs();
    let bits = k.bit_length();
    let one = Number::from(1);
    let trivial = match b.as_rat() {
        Some(r) => r.is_zero() || (r.is_integer() && r.numer().abs().is_one()),
        None => false,
    };
    if trivial {
        // Bases 0, 1, −1: every intermediate power is 0 or ±1 and each multiplication
        // is charged as a `MUL` of two one-limb rationals.
        let unit = binary_charge(ArithOp::Mul, &measure_number(b), &measure_number(b), 1);
        for i in (0..bits - 1).rev() {
            budget.charge(unit)?;
            if k.bit(i) {
                budget.charge(unit)?;
            }
        }
        let power = if b.is_zero() {
            Number::ZERO
        } else if b.signum() < 0 && !k.is_even() {
            Number::from(-1)
        } else {
            one.clone()
        };
        if p.is_negative() {
            budget.charge(binary_charge(
                ArithOp::DivMod,
                &measure_number(&one),
                &measure_number(&power),
                1,
            ))?;
        }
        // 1/±1 = ±1.
        return Ok(Ok(power));
    }
    let rational = b.as_rat();
    if let Some(r) = rational {
        // The width of bᵏ lies between k·(w−1)+1 and k·w, w the width of max(|n|, d).
        let w = r.width();
        let lower = k.mul(&Int::from(w - 1)).add(&Int::ONE);
        if lower > Int::from(limits.bigint_bits) {
            return Err(limit_error(Limit::BigintBits, lower, limits.bigint_bits));
        }
    }
    // Left-to-right binary exponentiation by k.
    let mut acc = b.clone();
    for i in (0..bits - 1).rev() {
        budget.charge(binary_charge(
            ArithOp::Mul,
            &measure_number(&acc),
            &measure_number(&acc),
            1,
        ))?;
        acc = mul_polled(&acc, &acc, budget)?;
        if rational.is_none() {
            check_size(&acc, limits)?;
        }
        if k.bit(i) {
            budget.charge(binary_charge(
                ArithOp::Mul,
                &measure_number(&acc),
                &measure_number(b),
                1,
            ))?;
            acc = mul_polled(&acc, b, budget)?;
            if rational.is_none() {
                check_size(&acc, limits)?;
            }
        }
    }
    if rational.is_some() {
        check_size(&acc, limits)?;
    }
    if p.is_negative() {
        budget.charge(binary_charge(
            ArithOp::DivMod,
            &measure_number(&one),
            &measure_number(&acc),
            1,
        ))?;
        acc = match &acc {
            Number::Rat(r) => Number::Rat(r.recip()),
            Number::Alg(a) => Number::from_alg(a.try_recip(budget)?),
        };
        check_size(&acc, limits)?;
    }
    Ok(Ok(acc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::Unmetered;

    fn decompose(n: i64) -> (Int, Int) {
        square_free_decompose(&Int::from(n), &mut Unmetered).unwrap_or((Int::ZERO, Int::ZERO))
    }

    #[test]
    fn square_free_parts() {
        assert_eq!(decompose(8), (Int::from(2i64), Int::from(2i64)));
        assert_eq!(decompose(12), (Int::from(2i64), Int::from(3i64)));
        assert_eq!(decompose(1), (Int::ONE, Int::ONE));
        assert_eq!(decompose(2), (Int::ONE, Int::from(2i64)));
        assert_eq!(decompose(49 * 3), (Int::from(7i64), Int::from(3i64)));
        assert_eq!(
            decompose(1009 * 1013),
            (Int::ONE, Int::from(1009i64 * 1013))
        );
        assert_eq!(
            decompose(1009 * 1009 * 2),
            (Int::from(1009i64), Int::from(2i64))
        );
    }
}
