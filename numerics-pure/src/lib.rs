//! `ajisai-numerics-pure`: the pure-Rust big-integer backend (`num-bigint`).
//!
//! Always built; registers itself as `pure` with the lowest priority, so it serves
//! when no faster backend is linked or loaded, and in the portable build.

use ajisai_core::numerics::{BackendKind, BackendRegistration, IntBuf, IntRef, Numerics};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::Zero;

/// The `num-bigint` backend.
#[derive(Debug, Default)]
pub struct Pure;

/// The one instance.
pub static PURE: Pure = Pure;

fn to_big(x: IntRef<'_>) -> BigInt {
    let mag = to_biguint(x.limbs);
    let sign = if mag.is_zero() {
        Sign::NoSign
    } else if x.negative {
        Sign::Minus
    } else {
        Sign::Plus
    };
    BigInt::from_biguint(sign, mag)
}

fn to_biguint(limbs: &[u64]) -> BigUint {
    let mut digits = Vec::with_capacity(limbs.len() * 2);
    for &l in limbs {
        digits.push(l as u32);
        digits.push((l >> 32) as u32);
    }
    BigUint::new(digits)
}

fn from_big(x: BigInt) -> IntBuf {
    let (sign, mag) = x.into_parts();
    IntBuf {
        negative: sign == Sign::Minus,
        limbs: mag.to_u64_digits(),
    }
    .normalize()
}

impl Numerics for Pure {
    fn kind(&self) -> BackendKind {
        BackendKind::Pure
    }

    fn library(&self) -> String {
        "num-bigint 0.4".to_string()
    }

    fn add(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_big(to_big(a) + to_big(b))
    }

    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_big(to_big(a) - to_big(b))
    }

    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_big(to_big(a) * to_big(b))
    }

    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf) {
        let (q, r) = to_big(a).div_rem(&to_big(b));
        (from_big(q), from_big(r))
    }

    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        let (mut x, mut y) = (to_biguint(a.limbs), to_biguint(b.limbs));
        if x < y {
            std::mem::swap(&mut x, &mut y);
        }
        // num-integer's gcd (Stein's) takes time quadratic in the larger operand even
        // when the other is tiny (a million-bit value over a small denominator took
        // seconds); one Euclid step first leaves two operands no wider than the smaller.
        if !y.is_zero() {
            x %= &y;
        }
        from_big(BigInt::from(x.gcd(&y)))
    }

    fn isqrt(&self, a: IntRef<'_>) -> IntBuf {
        from_big(BigInt::from(to_biguint(a.limbs).sqrt()))
    }

    fn to_decimal(&self, a: IntRef<'_>) -> String {
        to_big(a).to_str_radix(10)
    }

    fn parse_decimal(&self, digits: &str) -> IntBuf {
        let v =
            BigUint::parse_bytes(digits.as_bytes(), 10).expect("callers pass ASCII digits only");
        from_big(BigInt::from(v))
    }
}

fn get() -> &'static dyn Numerics {
    &PURE
}

inventory::submit! {
    BackendRegistration { kind: BackendKind::Pure, priority: 10, get }
}

/// Make sure this crate is linked (its registration is found through `inventory`).
pub fn link() {}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(negative: bool, limbs: &[u64]) -> IntBuf {
        IntBuf {
            negative,
            limbs: limbs.to_vec(),
        }
    }

    #[test]
    fn round_trips_limbs() {
        let x = buf(true, &[1, 2, 3]);
        assert_eq!(from_big(to_big(x.as_ref())), x);
        assert_eq!(
            from_big(to_big(IntRef {
                negative: false,
                limbs: &[]
            })),
            IntBuf::default()
        );
    }

    #[test]
    fn truncating_division() {
        let (q, r) = PURE.div_rem(buf(true, &[7]).as_ref(), buf(false, &[2]).as_ref());
        assert_eq!(q, buf(true, &[3]));
        assert_eq!(r, buf(true, &[1]));
    }

    #[test]
    fn gcd_of_unbalanced_operands() {
        let big = PURE.parse_decimal(&format!("{}0", "7".repeat(3001)));
        let g = PURE.gcd(big.as_ref(), buf(true, &[30]).as_ref());
        assert_eq!(g, buf(false, &[10]));
        let g = PURE.gcd(buf(false, &[30]).as_ref(), big.as_ref());
        assert_eq!(g, buf(false, &[10]));
        assert_eq!(PURE.gcd(big.as_ref(), IntBuf::default().as_ref()), big);
        assert_eq!(
            PURE.gcd(IntBuf::default().as_ref(), IntBuf::default().as_ref()),
            IntBuf::default()
        );
    }

    #[test]
    fn decimal_text() {
        let x = PURE.parse_decimal("340282366920938463463374607431768211456");
        assert_eq!(x, buf(false, &[0, 0, 1]));
        assert_eq!(
            PURE.to_decimal(x.as_ref()),
            "340282366920938463463374607431768211456"
        );
        assert_eq!(PURE.to_decimal(buf(true, &[5]).as_ref()), "-5");
    }
}
