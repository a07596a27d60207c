//! `ajisai-numerics-pure`: the pure-Rust big-integer backend (`num-bigint`).
//!
//! Always built; registers itself as `pure` with the lowest priority, so it serves
//! when no faster backend is linked or loaded, and in the portable build.

mod rational;

use ajisai_core::number::int::{gcd_u64, rem_limbs_u64};
use ajisai_core::numerics::{
    BackendKind, BackendRegistration, IntBuf, IntRef, Numerics, RatBuf, RatRef,
};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::Zero;
use std::cmp::Ordering;

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
        IntBuf {
            negative: false,
            limbs: gcd_limbs(a.limbs.to_vec(), b.limbs.to_vec()),
        }
        .normalize()
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

    fn rat_add(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational::rat_add(a, b)
    }

    fn rat_sub(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational::rat_sub(a, b)
    }

    fn rat_mul(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational::rat_mul(a, b)
    }

    fn rat_div(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational::rat_div(a, b)
    }

    fn rat_cmp(&self, a: RatRef<'_>, b: RatRef<'_>) -> Ordering {
        rational::rat_cmp(a, b)
    }

    fn rat_canonical(&self, num: IntRef<'_>, den: IntRef<'_>) -> RatBuf {
        rational::rat_canonical(num, den)
    }
}

/// gcd(a, b) by Lehmer's algorithm (Knuth, The Art of Computer Programming, volume 2,
/// section 4.5.2) with Collins' stopping condition (as Jebelean states it): the
/// quotients of a run of Euclid's steps are found from the operands' leading 64 bits
/// alone, in machine words, and applied to the full operands at once as one linear
/// combination. Written here because num-integer's gcd for `BigUint` is Stein's binary
/// algorithm, a full-width shift per bit or two of progress: it was four fifths of the
/// pure backend's time in rational programs (Newton's iteration for √2), where CPython's
/// Lehmer gcd was three times faster.
///
/// The operands are worked on as limb vectors: each run's combination is one pass over
/// both operands, computing the two new values in place with machine-word carries (four
/// products per limb), where num-bigint's operators took four scalar products and two
/// subtractions, each a pass of its own with a fresh allocation (they were most of the
/// time of Newton's iteration for √2).
fn lehmer_gcd(a: &BigUint, b: &BigUint) -> BigUint {
    to_biguint(&gcd_limbs(a.to_u64_digits(), b.to_u64_digits()))
}

/// The operand length (limbs) from which Lehmer's runs use 128-bit leading words. A run
/// costs its steps (about one per 1.7 bits, each dearer in 128-bit arithmetic) and one
/// pass over the operands; measured, the wide runs won on long operands (Newton's
/// iteration, thousands of limbs) and lost on short ones (the variance of 1,000
/// fractions, about 22 limbs: 25 → 34 ms).
const WIDE_LEHMER_LIMBS: usize = 96;

/// gcd of two magnitudes given as little-endian limbs (see [`lehmer_gcd`]).
fn gcd_limbs(mut a: Vec<u64>, mut b: Vec<u64>) -> Vec<u64> {
    trim(&mut a);
    trim(&mut b);
    if cmp_limbs(&a, &b) == Ordering::Less {
        std::mem::swap(&mut a, &mut b);
    }
    // Invariant: a ≥ b.
    while bit_length(&b) > 64 {
        // Leading words of 128 bits while both operands are long enough for the pass
        // saved to outweigh the dearer steps of 128-bit arithmetic, else 64.
        let width = if b.len() > WIDE_LEHMER_LIMBS { 128 } else { 64 };
        let shift = bit_length(&a) - width;
        let run = if width == 128 {
            let lead = |x: &[u64]| {
                u128::from(bits_at(x, shift)) | u128::from(bits_at(x, shift + 64)) << 64
            };
            simulate_wide(lead(&a), lead(&b))
        } else {
            simulate(bits_at(&a, shift), bits_at(&b, shift))
        };
        if run.v0 == 0 {
            // No quotient was certain: one full-width Euclid step.
            let r = to_biguint(&a) % to_biguint(&b);
            a = std::mem::replace(&mut b, r.to_u64_digits());
            continue;
        }
        b.resize(a.len(), 0);
        combine(&mut a, &mut b, &run);
        trim(&mut a);
        trim(&mut b);
    }
    let Some(&word) = b.first() else {
        return a;
    };
    let g = gcd_u64(word, rem_limbs_u64(&a, word));
    vec![g]
}

/// Drop high zero limbs.
fn trim(x: &mut Vec<u64>) {
    while x.last() == Some(&0) {
        x.pop();
    }
}

/// The bit length of a trimmed magnitude.
fn bit_length(x: &[u64]) -> u64 {
    match x.last() {
        None => 0,
        Some(top) => (x.len() as u64 - 1) * 64 + u64::from(64 - top.leading_zeros()),
    }
}

/// Compare two trimmed magnitudes.
fn cmp_limbs(a: &[u64], b: &[u64]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

/// The 64 bits of `x` from bit `shift` up (zeros past its end).
fn bits_at(x: &[u64], shift: u64) -> u64 {
    let (limb, offset) = ((shift / 64) as usize, shift % 64);
    let low = x.get(limb).copied().unwrap_or(0) >> offset;
    let high = if offset == 0 {
        0
    } else {
        x.get(limb + 1).copied().unwrap_or(0) << (64 - offset)
    };
    low | high
}

/// x − y − borrow, and whether it borrowed.
#[inline(always)]
fn sub_borrow(x: u64, y: u64, borrow: bool) -> (u64, bool) {
    let (d, o1) = x.overflowing_sub(y);
    let (d, o2) = d.overflowing_sub(u64::from(borrow));
    (d, o1 || o2)
}

/// Replace (a, b) by the run's combination, both non-negative: (u0·a − v0·b, v1·b − u1·a)
/// after an even number of steps, the negations of both after an odd one. `b` is padded
/// to `a`'s length; both results are below the old `a`, so they fit its length and the
/// final carries cancel.
fn combine(a: &mut [u64], b: &mut [u64], run: &LehmerRun) {
    let (mut c_u0a, mut c_v0b, mut c_u1a, mut c_v1b) = (0u64, 0u64, 0u64, 0u64);
    let (mut borrow_a, mut borrow_b) = (false, false);
    let product = |k: u64, x: u64, carry: &mut u64| {
        let p = u128::from(k) * u128::from(x) + u128::from(*carry);
        *carry = (p >> 64) as u64;
        p as u64
    };
    for (ai, bi) in a.iter_mut().zip(b.iter_mut()) {
        let (x, y) = (*ai, *bi);
        let u0a = product(run.u0, x, &mut c_u0a);
        let v0b = product(run.v0, y, &mut c_v0b);
        let u1a = product(run.u1, x, &mut c_u1a);
        let v1b = product(run.v1, y, &mut c_v1b);
        let (new_a, new_b) = if run.even {
            (
                sub_borrow(u0a, v0b, borrow_a),
                sub_borrow(v1b, u1a, borrow_b),
            )
        } else {
            (
                sub_borrow(v0b, u0a, borrow_a),
                sub_borrow(u1a, v1b, borrow_b),
            )
        };
        (*ai, borrow_a) = new_a;
        (*bi, borrow_b) = new_b;
    }
    debug_assert!({
        let (high_a, high_b) = if run.even {
            (
                c_u0a.wrapping_sub(c_v0b).wrapping_sub(u64::from(borrow_a)),
                c_v1b.wrapping_sub(c_u1a).wrapping_sub(u64::from(borrow_b)),
            )
        } else {
            (
                c_v0b.wrapping_sub(c_u0a).wrapping_sub(u64::from(borrow_a)),
                c_u1a.wrapping_sub(c_v1b).wrapping_sub(u64::from(borrow_b)),
            )
        };
        high_a == 0 && high_b == 0
    });
}

/// A run of Euclid's steps on two leading words: the cofactors' magnitudes (the next
/// pair is (u0·a − v0·b, v1·b − u1·a) after an even number of steps, the negations of
/// both after an odd one).
struct LehmerRun {
    u0: u64,
    u1: u64,
    v0: u64,
    v1: u64,
    even: bool,
}

/// The longest run of Euclid's steps on the leading words `a1` ≥ `a2` whose quotients
/// are certainly those of the full operands (Collins' condition: the remainder stays at
/// least the next cofactor, and their difference at least the cofactors' sum). The
/// cofactors never exceed the inputs, so no word overflows; the checks say so anyway.
fn simulate(mut a1: u64, mut a2: u64) -> LehmerRun {
    let (mut u0, mut u1, mut u2) = (0u64, 1u64, 0u64);
    let (mut v0, mut v1, mut v2) = (0u64, 0u64, 1u64);
    let mut even = false;
    while a2 >= v2 && v1.checked_add(v2).is_some_and(|s| a1 - a2 >= s) {
        let (q, r) = (a1 / a2, a1 % a2);
        let (Some(u), Some(v)) = (
            q.checked_mul(u2).and_then(|x| x.checked_add(u1)),
            q.checked_mul(v2).and_then(|x| x.checked_add(v1)),
        ) else {
            break;
        };
        (a1, a2) = (a2, r);
        (u0, u1, u2) = (u1, u2, u);
        (v0, v1, v2) = (v1, v2, v);
        even = !even;
    }
    LehmerRun {
        u0,
        u1,
        v0,
        v1,
        even,
    }
}

/// [`simulate`] on 128-bit leading words, for operands wider than that: a run then
/// advances about 64 bits instead of 32, so a gcd makes half as many passes over its
/// operands (Newton's iteration for √2, pure: 57 → 41 ms). The cofactors stay machine
/// words: the run stops before one would not fit.
fn simulate_wide(mut a1: u128, mut a2: u128) -> LehmerRun {
    let (mut u0, mut u1, mut u2) = (0u64, 1u64, 0u64);
    let (mut v0, mut v1, mut v2) = (0u64, 0u64, 1u64);
    let mut even = false;
    while a2 >= u128::from(v2) && v1.checked_add(v2).is_some_and(|s| a1 - a2 >= u128::from(s)) {
        let (q, r) = quotient(a1, a2);
        let Ok(q) = u64::try_from(q) else {
            break;
        };
        let (Some(u), Some(v)) = (
            q.checked_mul(u2).and_then(|x| x.checked_add(u1)),
            q.checked_mul(v2).and_then(|x| x.checked_add(v1)),
        ) else {
            break;
        };
        (a1, a2) = (a2, r);
        (u0, u1, u2) = (u1, u2, u);
        (v0, v1, v2) = (v1, v2, v);
        even = !even;
    }
    LehmerRun {
        u0,
        u1,
        v0,
        v1,
        even,
    }
}

/// (a1 / a2, a1 mod a2) for a1 ≥ a2 > 0. Most of Euclid's quotients are small (1 in
/// about 41% of steps, at most 4 in about 70%): those are found by subtraction, the rest
/// by one 128-bit division (a library call).
#[inline]
fn quotient(a1: u128, a2: u128) -> (u128, u128) {
    let mut r = a1 - a2;
    let mut q = 1;
    while r >= a2 && q < 4 {
        r -= a2;
        q += 1;
    }
    if r < a2 {
        return (q, r);
    }
    let q = a1 / a2;
    (q, a1 - q * a2)
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

    /// Lehmer's gcd against num-integer's (Stein's) on operands of every shape: random
    /// wide ones (below, at and above the 128-bit leading words), ones sharing a wide
    /// factor, consecutive Fibonacci numbers (Euclid's worst case: every quotient 1),
    /// quotients of every size, unbalanced sizes, and equal operands.
    #[test]
    fn lehmer_gcd_agrees_with_steins() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut wide = |limbs: usize| {
            let v: Vec<u64> = (0..limbs).map(|_| next()).collect();
            to_biguint(&v)
        };
        let mut cases = Vec::new();
        for limbs in [1usize, 2, 3, 5, 17, 64, 200] {
            for _ in 0..4 {
                let (x, y) = (wide(limbs), wide(limbs.div_ceil(2)));
                cases.push((x.clone(), y.clone()));
                let f = wide(limbs);
                cases.push((&x * &f, &y * &f));
                cases.push((x.clone(), x.clone()));
                cases.push((x.clone(), BigUint::zero()));
                // Quotients too big for the subtraction shortcut, and for a machine word.
                cases.push((&x * 7u32 + &y, x.clone()));
                cases.push(((&x << 100u32) + &y, x.clone()));
            }
        }
        let (mut f0, mut f1) = (BigUint::from(1u32), BigUint::from(1u32));
        for _ in 0..3000 {
            let f2 = &f0 + &f1;
            f0 = std::mem::replace(&mut f1, f2);
        }
        cases.push((f1.clone(), f0.clone()));
        cases.push((&f1 * 12u32, &f0 * 18u32));
        cases.push((wide(300), BigUint::from(30u32)));
        for (x, y) in cases {
            let want = x.gcd(&y);
            assert_eq!(lehmer_gcd(&x, &y), want, "gcd({x}, {y})");
            assert_eq!(lehmer_gcd(&y, &x), want, "gcd({y}, {x})");
        }
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
