//! Exact rationals in lowest terms with a positive denominator.
//!
//! When numerator and denominator fit `i64`, arithmetic runs in `i128` with a
//! binary gcd and never touches the backend. When one side still has machine-word parts
//! (the shape of sums of 1/k and of products by small numbers), Knuth's algorithms run
//! here on [`Int`], each gcd a remainder by a machine word. Two wide operands are the
//! backend's rational operations ([`crate::numerics::Numerics`]), one call each.

use super::int::{gcd_u64, Int};
use crate::numerics::{backend, RatBuf, RatRef};
use std::cmp::Ordering;
use std::fmt;

/// An exact rational n/d, gcd(n, d) = 1, d > 0.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rat {
    num: Int,
    den: Int,
}

impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

/// Displays `n/d`, always with the denominator (`3/1`).
impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

impl From<Int> for Rat {
    fn from(n: Int) -> Rat {
        Rat {
            num: n,
            den: Int::ONE,
        }
    }
}

impl From<i64> for Rat {
    fn from(n: i64) -> Rat {
        Rat {
            num: Int::Small(n),
            den: Int::ONE,
        }
    }
}

/// gcd of two 128-bit magnitudes. Most operands of the machine-word lanes fit 64 bits
/// or have one part that does: a 64-bit gcd runs several times faster per step than a
/// 128-bit one, and one 128-by-64-bit remainder brings a wide operand down to a narrow
/// one's size at once (a 128-bit binary gcd took up to 128 steps and was a tenth of a
/// Hilbert determinant's time).
fn gcd_u128(a: u128, b: u128) -> u128 {
    let (mut a, mut b) = if a >= b { (a, b) } else { (b, a) };
    if b >> 64 == 0 {
        if b == 0 {
            return a;
        }
        let r = if a >> 64 == 0 {
            (a as u64) % (b as u64)
        } else {
            (a % b) as u64
        };
        return u128::from(gcd_u64(b as u64, r));
    }
    // Both wide: binary steps until both fit 64 bits.
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    b >>= b.trailing_zeros();
    while (a | b) >> 64 != 0 {
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
        b >>= b.trailing_zeros();
    }
    u128::from(gcd_u64(a as u64, b as u64)) << shift
}

/// n / d for d ≥ 1 dividing n, in 64 bits when both fit them (a 128-bit division is a
/// library call several times slower).
fn div_exact_u128(n: u128, d: u128) -> u128 {
    if (n | d) >> 64 == 0 {
        u128::from(n as u64 / d as u64)
    } else {
        n / d
    }
}

impl Rat {
    /// Zero.
    pub const ZERO: Rat = Rat {
        num: Int::ZERO,
        den: Int::ONE,
    };
    /// One.
    pub const ONE: Rat = Rat {
        num: Int::ONE,
        den: Int::ONE,
    };

    /// n/d reduced; `d` must be non-zero.
    pub fn new(num: Int, den: Int) -> Rat {
        assert!(
            !den.is_zero(),
            "a rational with a zero denominator reached the tower"
        );
        if let (Some(n), Some(d)) = (num.to_i64(), den.to_i64()) {
            return Rat::from_i128(n as i128, d as i128);
        }
        if den.is_one() {
            return Rat { num, den };
        }
        if num.to_i64().is_none() && den.to_i64().is_none() {
            return num
                .with_ref(|n| den.with_ref(|d| Rat::from_buf(backend().rat_canonical(n, d))));
        }
        // A machine-word part: the gcd is one remainder, here.
        let (num, den) = if den.is_negative() {
            (num.neg(), den.neg())
        } else {
            (num, den)
        };
        let g = num.gcd(&den);
        if g.is_one() {
            Rat { num, den }
        } else {
            Rat {
                num: num.div_exact(&g),
                den: den.div_exact(&g),
            }
        }
    }

    /// n/d reduced from 128-bit parts; d ≠ 0.
    fn from_i128(n: i128, d: i128) -> Rat {
        if d == 1 {
            return Rat {
                num: Int::from(n),
                den: Int::ONE,
            };
        }
        let negative = (n < 0) != (d < 0);
        let (nm, dm) = (n.unsigned_abs(), d.unsigned_abs());
        let g = gcd_u128(nm, dm);
        let (nm, dm) = if g > 1 {
            (div_exact_u128(nm, g), div_exact_u128(dm, g))
        } else {
            (nm, dm)
        };
        let num = if negative {
            Int::from(nm).neg()
        } else {
            Int::from(nm)
        };
        Rat {
            num,
            den: Int::from(dm),
        }
    }

    /// Numerator (carries the sign).
    #[inline]
    pub fn numer(&self) -> &Int {
        &self.num
    }

    /// Denominator (> 0).
    #[inline]
    pub fn denom(&self) -> &Int {
        &self.den
    }

    /// Numerator and denominator when both fit `i64` (the common case the Words'
    /// small lanes serve without touching the general arithmetic).
    #[inline]
    pub fn small_parts(&self) -> Option<(i64, i64)> {
        match (&self.num, &self.den) {
            (Int::Small(n), Int::Small(d)) => Some((*n, *d)),
            _ => None,
        }
    }

    /// Whether both parts fit `i64`, so the value owns no heap memory.
    #[inline(always)]
    pub fn is_inline(&self) -> bool {
        matches!((&self.num, &self.den), (Int::Small(_), Int::Small(_)))
    }

    /// Whether the value is an integer.
    #[inline]
    pub fn is_integer(&self) -> bool {
        self.den.is_one()
    }

    /// Whether the value is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    /// −1, 0 or +1.
    #[inline]
    pub fn signum(&self) -> i32 {
        self.num.signum()
    }

    /// Width: the larger bit length of numerator and denominator
    /// (docs/reference/pricing-and-limits.md#the-limits-and-their-values).
    #[inline]
    pub fn width(&self) -> u64 {
        self.num.bit_length().max(self.den.bit_length())
    }

    /// −self.
    pub fn neg(&self) -> Rat {
        Rat {
            num: self.num.neg(),
            den: self.den.clone(),
        }
    }

    /// |self|.
    pub fn abs(&self) -> Rat {
        Rat {
            num: self.num.abs(),
            den: self.den.clone(),
        }
    }

    /// self + other.
    pub fn add(&self, other: &Rat) -> Rat {
        if let Some((a, c)) = self.small_integers(other) {
            if let Some(sum) = a.checked_add(c) {
                return Rat::integer(sum);
            }
        }
        if let (Some(a), Some(b), Some(c), Some(d)) = (
            self.num.to_i64(),
            self.den.to_i64(),
            other.num.to_i64(),
            other.den.to_i64(),
        ) {
            if b == d {
                return Rat::from_i128(a as i128 + c as i128, b as i128);
            }
            // |a·d + c·b| < 2^127 and b·d < 2^126 for 63-bit parts.
            return Rat::from_i128(
                a as i128 * d as i128 + c as i128 * b as i128,
                b as i128 * d as i128,
            );
        }
        self.add_wide(other)
    }

    /// self + other past the machine-integer lanes. With a machine-word or unit
    /// denominator on either side, Knuth's algorithm (The Art of Computer Programming,
    /// volume 2, section 4.5.1) runs here, where every gcd it takes is one remainder by a
    /// machine word (adding 1/k to a sum with a huge denominator costs a remainder, not a
    /// gcd of two huge numbers); GMP's `mpq_add` takes those gcds through its general
    /// code, slower at this shape. Two wide denominators are the backend's sum.
    fn add_wide(&self, other: &Rat) -> Rat {
        if self.is_integer() && other.is_integer() {
            return Rat::from(self.num.add(&other.num));
        }
        let (a, b, c, d) = (&self.num, &self.den, &other.num, &other.den);
        if b.is_one() {
            // a + c/d = (a·d + c)/d, in lowest terms because c/d is.
            return Rat::from_reduced(a.mul(d).add(c), d.clone());
        }
        if d.is_one() {
            return Rat::from_reduced(c.mul(b).add(a), b.clone());
        }
        if !self.sums_here(other) {
            return self.with_ref(|x| other.with_ref(|y| Rat::from_buf(backend().rat_add(x, y))));
        }
        let g1 = b.gcd(d);
        if g1.is_one() {
            let num = a.mul(d).add(&c.mul(b));
            return Rat::from_reduced(num, b.mul(d));
        }
        let (b1, d1) = (b.div_exact(&g1), d.div_exact(&g1));
        let t = a.mul(&d1).add(&c.mul(&b1));
        if t.is_zero() {
            return Rat::ZERO;
        }
        let g2 = t.gcd(&g1);
        if g2.is_one() {
            return Rat::from_reduced(t, b1.mul(d));
        }
        Rat::from_reduced(t.div_exact(&g2), b1.mul(&d.div_exact(&g2)))
    }

    /// Whether a sum or difference of these two runs in core (see [`Rat::add_wide`]).
    fn sums_here(&self, other: &Rat) -> bool {
        let word = |d: &Int| d.to_i64().is_some();
        word(&self.den) || word(&other.den)
    }

    /// Call `f` with the borrowed form of this rational (no allocation).
    #[inline]
    pub fn with_ref<R>(&self, f: impl FnOnce(RatRef<'_>) -> R) -> R {
        self.num
            .with_ref(|num| self.den.with_ref(|den| f(RatRef { num, den })))
    }

    /// Build from a backend's canonical result.
    fn from_buf(r: RatBuf) -> Rat {
        Rat::from_reduced(Int::from_buf(r.num), Int::from_buf(r.den))
    }

    /// self − other.
    pub fn sub(&self, other: &Rat) -> Rat {
        if let Some((a, c)) = self.small_integers(other) {
            if let Some(difference) = a.checked_sub(c) {
                return Rat::integer(difference);
            }
        }
        if self.is_integer() && other.is_integer() {
            return Rat::from(self.num.sub(&other.num));
        }
        if self.sums_here(other) {
            return self.add(&other.neg());
        }
        self.with_ref(|a| other.with_ref(|b| Rat::from_buf(backend().rat_sub(a, b))))
    }

    /// Both numerators when both values are integers that fit `i64` (the common case
    /// of step-heavy code, answered without widening).
    #[inline]
    fn small_integers(&self, other: &Rat) -> Option<(i64, i64)> {
        match (&self.num, &self.den, &other.num, &other.den) {
            (Int::Small(a), Int::Small(1), Int::Small(c), Int::Small(1)) => Some((*a, *c)),
            _ => None,
        }
    }

    /// The integer `n` (canonical: it fits `i64`, so its numerator is small).
    #[inline]
    fn integer(n: i64) -> Rat {
        Rat {
            num: Int::Small(n),
            den: Int::ONE,
        }
    }

    /// self · other.
    pub fn mul(&self, other: &Rat) -> Rat {
        if let (Some(a), Some(b), Some(c), Some(d)) = (
            self.num.to_i64(),
            self.den.to_i64(),
            other.num.to_i64(),
            other.den.to_i64(),
        ) {
            return Rat::from_i128(a as i128 * c as i128, b as i128 * d as i128);
        }
        if self.is_zero() || other.is_zero() {
            return Rat::ZERO;
        }
        if self.is_integer() && other.is_integer() {
            return Rat::from(self.num.mul(&other.num));
        }
        if std::ptr::eq(self, other) || self == other {
            // A square of a fraction in lowest terms is in lowest terms: no gcd at all
            // (the general product takes two, of the full-size parts), and each part is
            // squared, faster than multiplied.
            return Rat {
                num: self.num.mul(&self.num),
                den: self.den.mul(&self.den),
            };
        }
        if !self.is_inline() && !other.is_inline() {
            return self.with_ref(|a| other.with_ref(|b| Rat::from_buf(backend().rat_mul(a, b))));
        }
        // One side fits machine words, so both gcds are a remainder each: cross-reduce
        // first so the products are already in lowest terms.
        let g1 = self.num.gcd(&other.den);
        let g2 = other.num.gcd(&self.den);
        let num = self.num.div_exact(&g1).mul(&other.num.div_exact(&g2));
        let den = self.den.div_exact(&g2).mul(&other.den.div_exact(&g1));
        Rat { num, den }
    }

    /// 1/self; `self` must be non-zero.
    pub fn recip(&self) -> Rat {
        assert!(!self.is_zero(), "reciprocal of zero reached the tower");
        if self.num.is_negative() {
            Rat {
                num: self.den.neg(),
                den: self.num.neg(),
            }
        } else {
            Rat {
                num: self.den.clone(),
                den: self.num.clone(),
            }
        }
    }

    /// self / other; `other` must be non-zero.
    pub fn div(&self, other: &Rat) -> Rat {
        assert!(!other.is_zero(), "division by zero reached the tower");
        if self.is_inline() || other.is_inline() {
            // A reciprocal costs no gcd, and the product then runs in core.
            return self.mul(&other.recip());
        }
        self.with_ref(|a| other.with_ref(|b| Rat::from_buf(backend().rat_div(a, b))))
    }

    /// ⌊self⌋.
    pub fn floor(&self) -> Int {
        if self.is_integer() {
            return self.num.clone();
        }
        self.num.div_mod_floor(&self.den).0
    }

    /// ⌈self⌉.
    pub fn ceil(&self) -> Int {
        self.neg().floor().neg()
    }

    /// self^e for a machine exponent (callers bound the size first).
    pub fn pow(&self, e: u64) -> Rat {
        Rat {
            num: self.num.pow(e),
            den: self.den.pow(e),
        }
    }

    /// The integer value, if integral.
    pub fn to_int(&self) -> Option<&Int> {
        if self.is_integer() {
            Some(&self.num)
        } else {
            None
        }
    }

    /// Build from parts already known to be in lowest terms with d > 0 (unchecked in release).
    pub fn from_reduced(num: Int, den: Int) -> Rat {
        debug_assert!(!den.is_negative() && !den.is_zero());
        debug_assert!(num.gcd(&den).is_one());
        Rat { num, den }
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        if self.den == other.den {
            return self.num.cmp(&other.num);
        }
        if let (Some(a), Some(b), Some(c), Some(d)) = (
            self.num.to_i64(),
            self.den.to_i64(),
            other.num.to_i64(),
            other.den.to_i64(),
        ) {
            return (a as i128 * d as i128).cmp(&(c as i128 * b as i128));
        }
        let ss = self.num.signum();
        let os = other.num.signum();
        if ss != os {
            return ss.cmp(&os);
        }
        self.with_ref(|a| other.with_ref(|b| backend().rat_cmp(a, b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128-bit gcd and exact division against Euclid's algorithm with `%`, on
    /// operands of every width mix (zero, one, both 64-bit, one or both wide).
    #[test]
    fn gcds_of_128_bit_magnitudes() {
        let mut seed = 0x853c_49e6_748f_ea9bu64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let euclid = |mut a: u128, mut b: u128| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let mut values = vec![0u128, 1, 2, 3, 1 << 64, (1 << 64) - 1, u128::MAX, 1 << 127];
        for _ in 0..300 {
            let (hi, lo) = (u128::from(next()), u128::from(next()));
            let common = u128::from(next() >> (next() % 64));
            values.push(lo);
            values.push((hi << 64) | lo);
            values.push(lo >> (next() % 64));
            values.push(common.wrapping_mul(lo >> 1));
            values.push(common.wrapping_mul(hi));
        }
        for &a in &values {
            for &b in values.iter().step_by(7) {
                let g = gcd_u128(a, b);
                assert_eq!(g, euclid(a, b), "gcd({a}, {b})");
                if g != 0 {
                    assert_eq!(div_exact_u128(a, g), a / g);
                    assert_eq!(div_exact_u128(b, g), b / g);
                }
            }
        }
    }
}
