//! Rational arithmetic of the pure backend, on `num-bigint` integers converted once per
//! operation.
//!
//! The algorithms are Knuth's (The Art of Computer Programming, volume 2, section
//! 4.5.1): a sum takes the gcd of the denominators, then of the sum with that gcd, never
//! of the full-size cross products; a product cross-reduces before it multiplies. Every
//! gcd with a machine word is one remainder ([`ajisai_core::number::int::rem_limbs_u64`])
//! and one word gcd; wider gcds are Lehmer's ([`crate::lehmer_gcd`]). num-rational is not
//! used: its sum reduces by the lcm of the denominators and then by a gcd of full-size
//! numbers, which made the harmonic sum of 20,000 terms several times slower than this.

use crate::{from_big, lehmer_gcd, to_big, to_biguint};
use ajisai_core::number::int::{gcd_u64, rem_limbs_u64};
#[cfg(test)]
use ajisai_core::numerics::IntBuf;
use ajisai_core::numerics::{IntRef, RatBuf, RatRef};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

/// A rational taken apart: the signed numerator and the positive denominator.
struct Parts {
    num: BigInt,
    den: BigUint,
}

fn parts(x: RatRef<'_>) -> Parts {
    Parts {
        num: to_big(x.num),
        den: to_biguint(x.den.limbs),
    }
}

fn finish(num: BigInt, den: BigUint) -> RatBuf {
    RatBuf {
        num: from_big(num),
        den: from_big(BigInt::from(den)),
    }
}

/// The magnitude as a machine word, if it fits one.
fn word(x: &BigUint) -> Option<u64> {
    if x.bits() <= 64 {
        x.to_u64()
    } else {
        None
    }
}

/// gcd(x, y) ≥ 0, with the machine-word cases as one remainder each.
fn gcd(x: &BigUint, y: &BigUint) -> BigUint {
    fn with_word(wide: &BigUint, w: u64) -> BigUint {
        if w == 0 {
            return wide.clone();
        }
        BigUint::from(gcd_u64(w, rem_limbs_u64(&wide.to_u64_digits(), w)))
    }
    match (word(x), word(y)) {
        (Some(a), Some(b)) => BigUint::from(gcd_u64(a, b)),
        (_, Some(b)) => with_word(x, b),
        (Some(a), _) => with_word(y, a),
        _ => lehmer_gcd(x, y),
    }
}

/// a/b + c/d, both in lowest terms with positive denominators.
fn add(x: Parts, y: Parts) -> RatBuf {
    let (a, b, c, d) = (x.num, x.den, y.num, y.den);
    if b.is_one() {
        // a + c/d = (a·d + c)/d, in lowest terms because c/d is.
        return finish(a * BigInt::from(d.clone()) + c, d);
    }
    if d.is_one() {
        return finish(c * BigInt::from(b.clone()) + a, b);
    }
    let g1 = gcd(&b, &d);
    if g1.is_one() {
        let num = a * BigInt::from(d.clone()) + c * BigInt::from(b.clone());
        return finish(num, b * d);
    }
    let (b1, d1) = (&b / &g1, &d / &g1);
    let t = a * BigInt::from(d1) + c * BigInt::from(b1.clone());
    if t.is_zero() {
        return finish(BigInt::zero(), BigUint::one());
    }
    let g2 = gcd(t.magnitude(), &g1);
    if g2.is_one() {
        return finish(t, b1 * d);
    }
    finish(t / BigInt::from(g2.clone()), b1 * (d / g2))
}

/// a/b · c/d, both in lowest terms with positive denominators: cross-reduced first, so
/// the products are already in lowest terms.
fn mul(x: Parts, y: Parts) -> RatBuf {
    if x.num.is_zero() || y.num.is_zero() {
        return finish(BigInt::zero(), BigUint::one());
    }
    let g1 = gcd(x.num.magnitude(), &y.den);
    let g2 = gcd(y.num.magnitude(), &x.den);
    let num = (x.num / BigInt::from(g1.clone())) * (y.num / BigInt::from(g2.clone()));
    finish(num, (x.den / g2) * (y.den / g1))
}

/// a/b + c/d.
pub(crate) fn rat_add(a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
    add(parts(a), parts(b))
}

/// a/b − c/d.
pub(crate) fn rat_sub(a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
    let mut y = parts(b);
    y.num = -y.num;
    add(parts(a), y)
}

/// a/b · c/d.
pub(crate) fn rat_mul(a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
    mul(parts(a), parts(b))
}

/// (a/b) / (c/d) = (a/b) · (±d/|c|); c ≠ 0.
pub(crate) fn rat_div(a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
    assert!(
        !b.num.limbs.is_empty(),
        "division by zero reached the backend"
    );
    let y = parts(b);
    let sign = if y.num.is_negative() {
        Sign::Minus
    } else {
        Sign::Plus
    };
    let reciprocal = Parts {
        num: BigInt::from_biguint(sign, y.den),
        den: y.num.into_parts().1,
    };
    mul(parts(a), reciprocal)
}

/// How a/b compares with c/d: by sign, then by the sizes of the cross products when
/// they differ by more than a bit, then by the cross products themselves.
pub(crate) fn rat_cmp(a: RatRef<'_>, b: RatRef<'_>) -> Ordering {
    let sign = |x: RatRef<'_>| match (x.num.negative, x.num.limbs.is_empty()) {
        (_, true) => 0i8,
        (true, false) => -1,
        (false, false) => 1,
    };
    let (sa, sb) = (sign(a), sign(b));
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let bits = |x: IntRef<'_>| to_biguint(x.limbs).bits();
    // |a|·d has bit length ba + bd − 1 or ba + bd.
    let left = bits(a.num) + bits(b.den);
    let right = bits(b.num) + bits(a.den);
    let magnitudes = if left > right + 1 {
        Ordering::Greater
    } else if right > left + 1 {
        Ordering::Less
    } else {
        let (x, y) = (parts(a), parts(b));
        (x.num.magnitude() * y.den).cmp(&(y.num.magnitude() * x.den))
    };
    if sa < 0 {
        magnitudes.reverse()
    } else {
        magnitudes
    }
}

/// num/den in lowest terms with a positive denominator; den ≠ 0.
pub(crate) fn rat_canonical(num: IntRef<'_>, den: IntRef<'_>) -> RatBuf {
    assert!(
        !den.limbs.is_empty(),
        "a zero denominator reached the backend"
    );
    let (n, d) = (to_big(num), to_big(den));
    let g = gcd(n.magnitude(), d.magnitude());
    let (n, d) = if g.is_one() {
        (n, d)
    } else {
        let g = BigInt::from(g);
        (n / &g, d / g)
    };
    let (n, d) = if d.is_negative() { (-n, -d) } else { (n, d) };
    RatBuf {
        num: from_big(n),
        den: from_big(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limbs(x: &IntBuf) -> &[u64] {
        &x.limbs
    }

    fn rat(n: i64, d: u64) -> (IntBuf, IntBuf) {
        (
            IntBuf {
                negative: n < 0,
                limbs: if n == 0 {
                    vec![]
                } else {
                    vec![n.unsigned_abs()]
                },
            },
            IntBuf {
                negative: false,
                limbs: vec![d],
            },
        )
    }

    fn view<'a>(x: &'a (IntBuf, IntBuf)) -> RatRef<'a> {
        RatRef {
            num: x.0.as_ref(),
            den: x.1.as_ref(),
        }
    }

    #[test]
    fn sums_products_and_quotients_are_canonical() {
        let (a, b) = (rat(1, 6), rat(-1, 10));
        let sum = rat_add(view(&a), view(&b));
        assert_eq!(
            (sum.num.negative, limbs(&sum.num), limbs(&sum.den)),
            (false, &[1u64][..], &[15u64][..])
        );
        let difference = rat_sub(view(&a), view(&a));
        assert_eq!(
            (limbs(&difference.num), limbs(&difference.den)),
            (&[][..], &[1u64][..])
        );
        let product = rat_mul(view(&a), view(&rat(-3, 1)));
        assert_eq!(
            (
                product.num.negative,
                limbs(&product.num),
                limbs(&product.den)
            ),
            (true, &[1u64][..], &[2u64][..])
        );
        let quotient = rat_div(view(&a), view(&rat(-1, 3)));
        assert_eq!(
            (
                quotient.num.negative,
                limbs(&quotient.num),
                limbs(&quotient.den)
            ),
            (true, &[1u64][..], &[2u64][..])
        );
        let canonical = rat_canonical(rat(6, 1).0.as_ref(), rat(-4, 1).0.as_ref());
        assert_eq!(
            (
                canonical.num.negative,
                limbs(&canonical.num),
                limbs(&canonical.den)
            ),
            (true, &[3u64][..], &[2u64][..])
        );
    }

    #[test]
    fn comparisons_by_sign_size_and_products() {
        let cases = [
            (rat(1, 3), rat(1, 2), Ordering::Less),
            (rat(-1, 3), rat(-1, 2), Ordering::Greater),
            (rat(0, 1), rat(-1, 2), Ordering::Greater),
            (rat(5, 7), rat(5, 7), Ordering::Equal),
            (rat(i64::MAX, 1), rat(1, u64::MAX), Ordering::Greater),
            (rat(-i64::MAX, 1), rat(-1, u64::MAX), Ordering::Less),
        ];
        for (a, b, want) in cases {
            assert_eq!(rat_cmp(view(&a), view(&b)), want, "{a:?} vs {b:?}");
            assert_eq!(
                rat_cmp(view(&b), view(&a)),
                want.reverse(),
                "{b:?} vs {a:?}"
            );
        }
    }
}
