//! Arbitrary-precision integers with an inline machine-integer fast path.
//!
//! `Int::Small` holds every value that fits `i64` and is handled without calling
//! the backend or allocating; wider values are `Int::Big` (sign + limbs) and their
//! arithmetic goes through [`crate::numerics::backend`]. The representation is
//! canonical: a value that fits `i64` is always `Small`, so derived equality and
//! hashing are value equality.

use crate::numerics::{backend, IntBuf, IntRef};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Magnitude and sign of an integer too wide for `i64`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BigMag {
    negative: bool,
    limbs: Box<[u64]>,
}

/// An exact integer.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Int {
    /// A value that fits `i64`.
    Small(i64),
    /// A wider value (never one that fits `i64`).
    Big(Arc<BigMag>),
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Small(v) => write!(f, "{v}"),
            Int::Big(_) => f.write_str(&self.with_ref(|r| backend().to_decimal(r))),
        }
    }
}

impl From<i64> for Int {
    fn from(v: i64) -> Int {
        Int::Small(v)
    }
}

impl From<i32> for Int {
    fn from(v: i32) -> Int {
        Int::Small(v as i64)
    }
}

impl From<u64> for Int {
    fn from(v: u64) -> Int {
        if v <= i64::MAX as u64 {
            Int::Small(v as i64)
        } else {
            Int::from_buf(IntBuf {
                negative: false,
                limbs: vec![v],
            })
        }
    }
}

impl From<usize> for Int {
    fn from(v: usize) -> Int {
        Int::from(v as u64)
    }
}

impl From<i128> for Int {
    fn from(v: i128) -> Int {
        if let Ok(s) = i64::try_from(v) {
            return Int::Small(s);
        }
        let negative = v < 0;
        let m = v.unsigned_abs();
        Int::from_buf(IntBuf {
            negative,
            limbs: vec![m as u64, (m >> 64) as u64],
        })
    }
}

impl From<u128> for Int {
    fn from(m: u128) -> Int {
        if let Ok(s) = i64::try_from(m) {
            return Int::Small(s);
        }
        Int::from_buf(IntBuf {
            negative: false,
            limbs: vec![m as u64, (m >> 64) as u64],
        })
    }
}

impl Int {
    /// Zero.
    pub const ZERO: Int = Int::Small(0);
    /// One.
    pub const ONE: Int = Int::Small(1);

    /// Build from a backend result, normalizing to `Small` when it fits.
    pub fn from_buf(buf: IntBuf) -> Int {
        let buf = buf.normalize();
        match buf.limbs.len() {
            0 => Int::Small(0),
            1 => {
                let m = buf.limbs[0];
                if !buf.negative && m <= i64::MAX as u64 {
                    return Int::Small(m as i64);
                }
                if buf.negative && m <= 1u64 << 63 {
                    return Int::Small((m as i64).wrapping_neg());
                }
                Int::Big(Arc::new(BigMag {
                    negative: buf.negative,
                    limbs: buf.limbs.into_boxed_slice(),
                }))
            }
            _ => Int::Big(Arc::new(BigMag {
                negative: buf.negative,
                limbs: buf.limbs.into_boxed_slice(),
            })),
        }
    }

    /// Call `f` with the sign-magnitude view of this integer (no allocation).
    #[inline]
    pub fn with_ref<R>(&self, f: impl FnOnce(IntRef<'_>) -> R) -> R {
        match self {
            Int::Small(0) => f(IntRef {
                negative: false,
                limbs: &[],
            }),
            Int::Small(v) => {
                let limb = [v.unsigned_abs()];
                f(IntRef {
                    negative: *v < 0,
                    limbs: &limb,
                })
            }
            Int::Big(b) => f(IntRef {
                negative: b.negative,
                limbs: &b.limbs,
            }),
        }
    }

    /// The value as `i64`, if it fits.
    #[inline]
    pub fn to_i64(&self) -> Option<i64> {
        match self {
            Int::Small(v) => Some(*v),
            Int::Big(_) => None,
        }
    }

    /// The value as `u64`, if it is non-negative and fits.
    pub fn to_u64(&self) -> Option<u64> {
        match self {
            Int::Small(v) if *v >= 0 => Some(*v as u64),
            Int::Small(_) => None,
            Int::Big(b) if !b.negative && b.limbs.len() == 1 => Some(b.limbs[0]),
            Int::Big(_) => None,
        }
    }

    /// The magnitude as `u128`, if it fits.
    pub fn magnitude_u128(&self) -> Option<u128> {
        match self {
            Int::Small(v) => Some(v.unsigned_abs() as u128),
            Int::Big(b) if b.limbs.len() <= 2 => {
                Some(b.limbs[0] as u128 | ((*b.limbs.get(1).unwrap_or(&0) as u128) << 64))
            }
            Int::Big(_) => None,
        }
    }

    /// Whether the value is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        matches!(self, Int::Small(0))
    }

    /// Whether the value is one.
    #[inline]
    pub fn is_one(&self) -> bool {
        matches!(self, Int::Small(1))
    }

    /// Whether the value is negative.
    #[inline]
    pub fn is_negative(&self) -> bool {
        match self {
            Int::Small(v) => *v < 0,
            Int::Big(b) => b.negative,
        }
    }

    /// −1, 0 or +1.
    #[inline]
    pub fn signum(&self) -> i32 {
        match self {
            Int::Small(v) => v.signum() as i32,
            Int::Big(b) => {
                if b.negative {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// Whether the value is even.
    pub fn is_even(&self) -> bool {
        match self {
            Int::Small(v) => v & 1 == 0,
            Int::Big(b) => b.limbs[0] & 1 == 0,
        }
    }

    /// Bit length of the magnitude (0 for zero).
    #[inline]
    pub fn bit_length(&self) -> u64 {
        match self {
            Int::Small(v) => 64 - v.unsigned_abs().leading_zeros() as u64,
            Int::Big(b) => {
                let top = *b.limbs.last().expect("big magnitudes are non-empty");
                (b.limbs.len() as u64 - 1) * 64 + (64 - top.leading_zeros() as u64)
            }
        }
    }

    /// Number of trailing zero bits of the magnitude (0 for zero).
    pub fn trailing_zeros(&self) -> u64 {
        match self {
            Int::Small(0) => 0,
            Int::Small(v) => v.trailing_zeros() as u64,
            Int::Big(b) => {
                let mut n = 0u64;
                for &l in b.limbs.iter() {
                    if l == 0 {
                        n += 64;
                    } else {
                        return n + l.trailing_zeros() as u64;
                    }
                }
                n
            }
        }
    }

    /// −self.
    pub fn neg(&self) -> Int {
        match self {
            Int::Small(v) => match v.checked_neg() {
                Some(n) => Int::Small(n),
                None => Int::from(-(*v as i128)),
            },
            Int::Big(b) => Int::from_buf(IntBuf {
                negative: !b.negative,
                limbs: b.limbs.to_vec(),
            }),
        }
    }

    /// |self|.
    pub fn abs(&self) -> Int {
        if self.is_negative() {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// self + other.
    #[inline]
    pub fn add(&self, other: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            if let Some(s) = a.checked_add(*b) {
                return Int::Small(s);
            }
            return Int::from(*a as i128 + *b as i128);
        }
        self.big2(other, |x, y| backend().add(x, y))
    }

    /// self − other.
    #[inline]
    pub fn sub(&self, other: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            if let Some(s) = a.checked_sub(*b) {
                return Int::Small(s);
            }
            return Int::from(*a as i128 - *b as i128);
        }
        self.big2(other, |x, y| backend().sub(x, y))
    }

    /// self · other.
    #[inline]
    pub fn mul(&self, other: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            if let Some(s) = a.checked_mul(*b) {
                return Int::Small(s);
            }
            return Int::from(*a as i128 * *b as i128);
        }
        if self.is_zero() || other.is_zero() {
            return Int::ZERO;
        }
        if other.is_one() {
            return self.clone();
        }
        if self.is_one() {
            return other.clone();
        }
        // A wide integer times a machine word (a factorial's step, most products in a
        // sum of fractions): one pass over its limbs into the result, no copy.
        match (self, other) {
            (Int::Big(big), Int::Small(m)) | (Int::Small(m), Int::Big(big)) => {
                Int::from_buf(IntBuf {
                    negative: big.negative != (*m < 0),
                    limbs: backend().mul_word(&big.limbs, m.unsigned_abs()),
                })
            }
            _ => self.big2(other, |x, y| backend().mul(x, y)),
        }
    }

    /// Truncated division: (q, r) with q toward zero and r of self's sign. `other` ≠ 0.
    pub fn div_rem(&self, other: &Int) -> (Int, Int) {
        debug_assert!(
            !other.is_zero(),
            "division by zero reached the integer layer"
        );
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            if let (Some(q), Some(r)) = (a.checked_div(*b), a.checked_rem(*b)) {
                return (Int::Small(q), Int::Small(r));
            }
            // i64::MIN / -1
            return (Int::from(-(*a as i128)), Int::ZERO);
        }
        let (q, r) = self.with_ref(|x| other.with_ref(|y| backend().div_rem(x, y)));
        (Int::from_buf(q), Int::from_buf(r))
    }

    /// Floor division and the matching non-negative-for-positive-divisor remainder.
    pub fn div_mod_floor(&self, other: &Int) -> (Int, Int) {
        let (q, r) = self.div_rem(other);
        if !r.is_zero() && (r.is_negative() != other.is_negative()) {
            (q.sub(&Int::ONE), r.add(other))
        } else {
            (q, r)
        }
    }

    /// self / other where other divides self exactly.
    #[inline]
    pub fn div_exact(&self, other: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            if let Some(q) = a.checked_div(*b) {
                return Int::Small(q);
            }
        }
        if other.is_one() {
            return self.clone();
        }
        self.big2(other, |x, y| backend().div_exact(x, y))
    }

    /// gcd(|self|, |other|).
    #[inline]
    pub fn gcd(&self, other: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, other) {
            return Int::from(gcd_u64(a.unsigned_abs(), b.unsigned_abs()));
        }
        if self.is_one() || other.is_one() {
            return Int::ONE;
        }
        // With one machine operand the gcd is one remainder away (Euclid's first step):
        // no backend call, whatever the other's size.
        match (self, other) {
            (Int::Big(_), Int::Small(m)) | (Int::Small(m), Int::Big(_)) if *m != 0 => {
                let big = if matches!(self, Int::Big(_)) {
                    self
                } else {
                    other
                };
                let m = m.unsigned_abs();
                return Int::from(gcd_u64(big.rem_u64(m), m));
            }
            _ => {}
        }
        self.big2(other, |x, y| backend().gcd(x, y))
    }

    /// ⌊√self⌋ for self ≥ 0 (a negative self is treated as its magnitude).
    pub fn isqrt(&self) -> Int {
        debug_assert!(!self.is_negative());
        match self {
            Int::Small(v) => Int::Small(isqrt_u64(v.unsigned_abs()) as i64),
            Int::Big(b) if b.limbs.len() <= 2 => {
                let m = b.limbs[0] as u128 | ((*b.limbs.get(1).unwrap_or(&0) as u128) << 64);
                Int::from(isqrt_u128(m) as u64)
            }
            Int::Big(_) => Int::from_buf(self.with_ref(|x| {
                backend().isqrt(IntRef {
                    negative: false,
                    limbs: x.limbs,
                })
            })),
        }
    }

    /// |self| mod m for a machine divisor m ≥ 1 (no backend call, no allocation).
    pub fn rem_u64(&self, m: u64) -> u64 {
        debug_assert!(m != 0);
        match self {
            Int::Small(v) => v.unsigned_abs() % m,
            Int::Big(b) => rem_limbs_u64(&b.limbs, m),
        }
    }

    /// self / m for a machine divisor m ≥ 1 that divides self exactly.
    pub fn div_exact_u64(&self, m: u64) -> Int {
        debug_assert!(m != 0 && self.rem_u64(m) == 0);
        match self {
            Int::Small(v) => {
                let q = v.unsigned_abs() / m;
                let q = Int::from(q);
                if *v < 0 {
                    q.neg()
                } else {
                    q
                }
            }
            Int::Big(b) => {
                let mut limbs = vec![0u64; b.limbs.len()];
                let mut r: u128 = 0;
                for (i, &l) in b.limbs.iter().enumerate().rev() {
                    let cur = (r << 64) | l as u128;
                    limbs[i] = (cur / m as u128) as u64;
                    r = cur % m as u128;
                }
                Int::from_buf(IntBuf {
                    negative: b.negative,
                    limbs,
                })
            }
        }
    }

    /// Number of one bits in the magnitude.
    pub fn popcount(&self) -> u64 {
        match self {
            Int::Small(v) => v.unsigned_abs().count_ones() as u64,
            Int::Big(b) => b.limbs.iter().map(|l| l.count_ones() as u64).sum(),
        }
    }

    /// Whether bit `i` (0 = least significant) of the magnitude is set.
    pub fn bit(&self, i: u64) -> bool {
        match self {
            Int::Small(v) => i < 64 && (v.unsigned_abs() >> i) & 1 == 1,
            Int::Big(b) => {
                let limb = (i / 64) as usize;
                limb < b.limbs.len() && (b.limbs[limb] >> (i % 64)) & 1 == 1
            }
        }
    }

    /// ⌊self / 2^k⌋ (floor, also for negative values).
    pub fn shr_floor(&self, k: u64) -> Int {
        if k == 0 || self.is_zero() {
            return self.clone();
        }
        if let Int::Small(v) = self {
            return Int::Small(if k >= 64 {
                if *v < 0 {
                    -1
                } else {
                    0
                }
            } else {
                v >> k
            });
        }
        self.div_mod_floor(&Int::pow2(k)).0
    }

    /// lcm(|self|, |other|) (0 when either is 0).
    pub fn lcm(&self, other: &Int) -> Int {
        if self.is_zero() || other.is_zero() {
            return Int::ZERO;
        }
        let g = self.gcd(other);
        self.abs().div_exact(&g).mul(&other.abs())
    }

    /// ⌊self^(1/n)⌋ for self ≥ 0 and n ≥ 1 (exact integer arithmetic).
    pub fn nth_root_floor(&self, n: u64) -> Int {
        debug_assert!(!self.is_negative() && n >= 1);
        if n == 1 || self.is_zero() || self.is_one() {
            return self.clone();
        }
        if n == 2 {
            return self.isqrt();
        }
        let bits = self.bit_length();
        if n >= bits {
            // 2^n > self ≥ 1, so the root is 1.
            return Int::ONE;
        }
        // Newton from an upper bound 2^⌈bits/n⌉; the iterates decrease to the floor root.
        let mut x = Int::pow2(bits.div_ceil(n));
        let nn = Int::from(n);
        let n1 = Int::from(n - 1);
        loop {
            let y = n1
                .mul(&x)
                .add(&self.div_rem(&x.pow(n - 1)).0)
                .div_rem(&nn)
                .0;
            if y >= x {
                return x;
            }
            x = y;
        }
    }

    /// The exact n-th root of self ≥ 0, if self is a perfect n-th power (n ≥ 1).
    pub fn exact_nth_root(&self, n: u64) -> Option<Int> {
        let r = self.nth_root_floor(n);
        if r.pow(n) == *self {
            Some(r)
        } else {
            None
        }
    }

    /// Whether self ≥ 0 is a perfect square; returns its root when it is.
    pub fn exact_sqrt(&self) -> Option<Int> {
        if self.is_negative() {
            return None;
        }
        let r = self.isqrt();
        if r.mul(&r) == *self {
            Some(r)
        } else {
            None
        }
    }

    /// self raised to `exp` by square-and-multiply (callers bound the size first).
    pub fn pow(&self, exp: u64) -> Int {
        let mut result = Int::ONE;
        let mut base = self.clone();
        let mut e = exp;
        while e > 0 {
            if e & 1 == 1 {
                result = result.mul(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base);
            }
        }
        result
    }

    /// 2^k.
    pub fn pow2(k: u64) -> Int {
        if k < 63 {
            return Int::Small(1i64 << k);
        }
        let mut limbs = vec![0u64; (k / 64) as usize + 1];
        limbs[(k / 64) as usize] = 1u64 << (k % 64);
        Int::from_buf(IntBuf {
            negative: false,
            limbs,
        })
    }

    /// self · 2^k.
    pub fn shl(&self, k: u64) -> Int {
        if k == 0 || self.is_zero() {
            return self.clone();
        }
        if let Int::Small(v) = self {
            if k < 62 && v.unsigned_abs().leading_zeros() as u64 > k + 1 {
                return Int::Small(v << k);
            }
        }
        self.mul(&Int::pow2(k))
    }

    /// Parse a non-empty run of ASCII digits.
    pub fn from_decimal(digits: &str) -> Int {
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            return Int::ZERO;
        }
        if trimmed.len() <= 19 {
            // At most 19 digits fit u64 (10^19 − 1 < 2^64): no backend call.
            return Int::from(
                trimmed
                    .parse::<u64>()
                    .expect("at most 19 ASCII digits fit u64"),
            );
        }
        Int::from_buf(backend().parse_decimal(trimmed))
    }

    /// Compare with a machine integer.
    pub fn cmp_i64(&self, v: i64) -> Ordering {
        match self {
            Int::Small(a) => a.cmp(&v),
            Int::Big(b) => {
                if b.negative {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
        }
    }

    /// limbs(x) of the work pricing: max(1, ⌈bits/64⌉).
    #[inline]
    pub fn limb_count(&self) -> u64 {
        self.bit_length().div_ceil(64).max(1)
    }

    /// Append the decimal text of `self` to `out` (as [`fmt::Display`] writes it),
    /// calling `tick` with the limbs of every piece converted, so a meter can stop it.
    ///
    /// Why by hand: a backend converts in one call (GMP in milliseconds for the widest
    /// integers, num-bigint in far longer), and nothing can look at the deadline inside
    /// it. Above [`DECIMAL_SPLIT_DIGITS`]·2 digits the integer is split by powers of ten
    /// 10^(s·2^i) (computed by squaring, ticking between squarings) into a high part and
    /// a zero-padded low part, recursively; each leaf is one backend call on at most
    /// about 2·[`DECIMAL_SPLIT_DIGITS`] digits (the classic divide-and-conquer radix
    /// conversion, as GMP's own `mpn_get_str` does inside).
    pub fn write_decimal_polled<E>(
        &self,
        out: &mut String,
        tick: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        use fmt::Write;
        let bound = decimal_digits_bound(self.bit_length());
        if bound < MEMO_DIGITS {
            let _ = write!(out, "{self}");
            return tick(self.limb_count());
        }
        if let Some(known) = DecimalMemo::recall(self) {
            out.push_str(&known);
            return tick(self.limb_count());
        }
        let start = out.len();
        if bound <= 2 * DECIMAL_SPLIT_DIGITS {
            let _ = write!(out, "{self}");
            tick(self.limb_count())?;
        } else {
            self.write_decimal_split(out, bound, tick)?;
        }
        if DecimalMemo::active() {
            DecimalMemo::remember(self, &out[start..]);
        }
        Ok(())
    }

    /// [`Int::write_decimal_polled`] of an integer of more than 2·[`DECIMAL_SPLIT_DIGITS`]
    /// digits (at most `bound`), by splitting.
    fn write_decimal_split<E>(
        &self,
        out: &mut String,
        bound: u64,
        tick: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut powers = vec![Int::from(10i64).pow(DECIMAL_SPLIT_DIGITS)];
        tick(DECIMAL_SPLIT_DIGITS / 19 + 1)?;
        while (DECIMAL_SPLIT_DIGITS << powers.len()) * 2 <= bound {
            let last = powers.last().expect("one power at least");
            tick(last.limb_count().saturating_mul(2))?;
            let next = last.mul(last);
            powers.push(next);
        }
        if self.is_negative() {
            out.push('-');
        }
        write_decimal_part(&self.abs(), None, &powers, out, tick)
    }

    /// The decimal text of `self`, [`Int::write_decimal_polled`] into a new String.
    pub fn decimal_polled<E>(
        &self,
        tick: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<String, E> {
        let mut out = String::new();
        self.write_decimal_polled(&mut out, tick)?;
        Ok(out)
    }

    fn big2(&self, other: &Int, f: impl FnOnce(IntRef<'_>, IntRef<'_>) -> IntBuf) -> Int {
        Int::from_buf(self.with_ref(|x| other.with_ref(|y| f(x, y))))
    }
}

/// The limbs of `limbs`·`m`, least significant first, in one pass into a buffer of the
/// size the product can take: [`crate::numerics::Numerics::mul_word`] unless a backend has
/// a faster one. Written by hand because a wide integer times a machine word is the
/// commonest product (a factorial, the cross products of a sum of fractions) and through
/// the general product it cost more than the multiplication: GMP's product was copied out
/// of its scratch, and the pure backend converted both operands and the result.
pub fn mul_limbs_u64(limbs: &[u64], m: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(limbs.len() + 1);
    let mut carry = 0u64;
    out.extend(limbs.iter().map(|&l| {
        let p = u128::from(l) * u128::from(m) + u128::from(carry);
        carry = (p >> 64) as u64;
        p as u64
    }));
    if carry != 0 {
        out.push(carry);
    }
    out
}

/// Remembered decimal texts, by the address of the integer's magnitude, with the
/// integer itself.
type DecimalTexts = std::collections::HashMap<usize, (Int, Arc<str>)>;

thread_local! {
    /// The decimal texts remembered while a [`DecimalMemo`] is alive on this thread, by
    /// the address of the magnitude (held, so the address cannot be reused meanwhile).
    static DECIMALS: std::cell::RefCell<Option<DecimalTexts>> =
        const { std::cell::RefCell::new(None) };
}

/// While alive, the decimal text of every integer of [`MEMO_DIGITS`] digits or more that
/// [`Int::write_decimal_polled`] writes on this thread is remembered and written again
/// from memory. An envelope shows each stack value twice — its node and its display —
/// and converting a million-digit integer twice was most of the time of a program that
/// only computes it. Rendering charges nothing to the run, so whether a text is converted
/// or recalled changes no reported usage. A memo started inside another leaves it be.
pub struct DecimalMemo {
    owner: bool,
}

impl DecimalMemo {
    /// Start remembering on this thread, until the memo is dropped.
    pub fn start() -> DecimalMemo {
        let owner = DECIMALS.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_some() {
                return false;
            }
            *d = Some(DecimalTexts::new());
            true
        });
        DecimalMemo { owner }
    }

    fn active() -> bool {
        DECIMALS.with(|d| d.borrow().is_some())
    }

    fn recall(i: &Int) -> Option<Arc<str>> {
        let Int::Big(m) = i else {
            return None;
        };
        let key = Arc::as_ptr(m) as usize;
        DECIMALS.with(|d| {
            d.borrow()
                .as_ref()
                .and_then(|known| known.get(&key))
                .map(|(_, text)| Arc::clone(text))
        })
    }

    fn remember(i: &Int, text: &str) {
        let Int::Big(m) = i else {
            return;
        };
        let key = Arc::as_ptr(m) as usize;
        DECIMALS.with(|d| {
            if let Some(known) = d.borrow_mut().as_mut() {
                known.insert(key, (i.clone(), Arc::from(text)));
            }
        });
    }

    /// How many texts the live memo of this thread holds (0 when none is alive).
    pub fn remembered() -> usize {
        DECIMALS.with(|d| d.borrow().as_ref().map_or(0, |known| known.len()))
    }
}

impl Drop for DecimalMemo {
    fn drop(&mut self) {
        if self.owner {
            let known = DECIMALS.with(|d| d.borrow_mut().take());
            drop(known);
        }
    }
}

/// The remainder of the magnitude `limbs` (least significant first) by `d` ≥ 1, by
/// division by an invariant integer (Möller and Granlund, "Improved division by
/// invariant integers", 2011, algorithm 4): one reciprocal of the normalized divisor,
/// then two multiplications per limb. Written by hand because a 128-by-64-bit remainder
/// per limb (`u128 %`) took half the time of a sum of fractions with small denominators
/// (every gcd with a machine denominator is one such remainder), and GMP's `mpn_mod_1`,
/// which does the same, is not reachable through the backend trait. Public for the pure
/// backend, whose gcds with a machine word are this remainder too.
pub fn rem_limbs_u64(limbs: &[u64], d: u64) -> u64 {
    debug_assert!(d != 0);
    let shift = d.leading_zeros();
    let dn = d << shift;
    let v = (u128::MAX / u128::from(dn) - (1u128 << 64)) as u64;
    // A segment read as its own number shifted left by `shift`: its limb `i`, and the bits
    // shifted out of its top limb (fewer than 2^shift ≤ dn), which start its remainder.
    let shifted = |seg: &[u64], i: usize| {
        if shift == 0 {
            seg[i]
        } else {
            (seg[i] << shift) | if i > 0 { seg[i - 1] >> (64 - shift) } else { 0 }
        }
    };
    let spill = |seg: &[u64]| {
        if shift == 0 {
            0
        } else {
            seg.last().map_or(0, |&l| l >> (64 - shift))
        }
    };
    let n = limbs.len();
    if n < 32 {
        let mut r = spill(limbs);
        for i in (0..n).rev() {
            r = rem_2by1(r, shifted(limbs, i), dn, v);
        }
        return r >> shift;
    }
    // Four segments, their remainders computed side by side: each step of one chain waits
    // for its previous step's multiplication, so four independent chains keep the
    // multiplier busy (about three times the throughput of one).
    let m = n / 4;
    let segs = [
        &limbs[..m],
        &limbs[m..2 * m],
        &limbs[2 * m..3 * m],
        &limbs[3 * m..],
    ];
    let mut r = segs.map(spill);
    let top = segs[3];
    for i in (m..top.len()).rev() {
        r[3] = rem_2by1(r[3], shifted(top, i), dn, v);
    }
    for i in (0..m).rev() {
        r[0] = rem_2by1(r[0], shifted(segs[0], i), dn, v);
        r[1] = rem_2by1(r[1], shifted(segs[1], i), dn, v);
        r[2] = rem_2by1(r[2], shifted(segs[2], i), dn, v);
        r[3] = rem_2by1(r[3], shifted(top, i), dn, v);
    }
    // (N·2^shift) mod (d·2^shift) = 2^shift·(N mod d) for each segment N; then
    // Σ segment_k · 2^(64·m·k) mod d, with p = 2^(64·m) mod d.
    let d128 = u128::from(d);
    let p = {
        let mut base = (1u128 << 64) % d128;
        let (mut e, mut acc) = (m, 1u128 % d128);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * base % d128;
            }
            base = base * base % d128;
            e >>= 1;
        }
        acc
    };
    let mut acc = u128::from(r[3] >> shift);
    for k in (0..3).rev() {
        acc = (acc * p + u128::from(r[k] >> shift)) % d128;
    }
    acc as u64
}

/// (u1·2^64 + u0) mod d for a normalized d (top bit set), u1 < d, and v its reciprocal
/// ⌊(2^128 − 1)/d⌋ − 2^64.
#[inline(always)]
fn rem_2by1(u1: u64, u0: u64, d: u64, v: u64) -> u64 {
    let q = u128::from(v)
        .wrapping_mul(u128::from(u1))
        .wrapping_add((u128::from(u1) << 64) | u128::from(u0));
    let q1 = ((q >> 64) as u64).wrapping_add(1);
    let q0 = q as u64;
    let mut r = u0.wrapping_sub(q1.wrapping_mul(d));
    if r > q0 {
        r = r.wrapping_add(d);
    }
    if r >= d {
        r -= d;
    }
    r
}

/// Digits of the smallest power of ten [`Int::write_decimal_polled`] splits by: its
/// leaves are backend conversions of at most about twice as many digits (~425 limbs:
/// measured, a whole envelope of an 8,100-digit integer takes 0.07 ms with GMP and
/// 0.14 ms with num-bigint, so the gap between two polls stays far below a
/// millisecond). Splitting from 4,096 digits cost more than it saved on integers of a
/// few thousand, which one backend call converts faster (the coefficients of
/// (√2+√3)^12000: 5% of their envelope).
pub const DECIMAL_SPLIT_DIGITS: u64 = 4096;

/// Digits from which [`Int::write_decimal_polled`] remembers a text in a live
/// [`DecimalMemo`]: below, converting again costs less than remembering.
const MEMO_DIGITS: u64 = 256;

/// floor(log10(2) · 2^128), for decimal digit counts from bit lengths.
const LOG10_2_FIXED: u128 = 0x4d10_4d42_7de7_fbcc_47c4_acd6_05be_48bc;

/// An upper bound of the decimal digits of an integer of `bits` bits:
/// ⌊bits·log10 2⌋ + 1 (exact or one more).
pub fn decimal_digits_bound(bits: u64) -> u64 {
    let hi = LOG10_2_FIXED >> 64;
    let lo = LOG10_2_FIXED & u128::from(u64::MAX);
    let b = u128::from(bits);
    let carry = (b * lo) >> 64;
    (((b * hi + carry) >> 64) as u64) + 1
}

/// One part of [`Int::write_decimal_polled`]: `n` ≥ 0, written in exactly `width`
/// digits (zero-padded) when it is a low part, as is otherwise.
fn write_decimal_part<E>(
    n: &Int,
    width: Option<u64>,
    powers: &[Int],
    out: &mut String,
    tick: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    use fmt::Write;
    let bound = decimal_digits_bound(n.bit_length());
    // The widest split leaving a high part of about as many digits as the low part.
    let split = (0..powers.len())
        .rev()
        .find(|&i| (DECIMAL_SPLIT_DIGITS << i) * 2 <= bound);
    let Some(i) = split else {
        if width == Some(0) {
            return Ok(());
        }
        let start = out.len();
        let _ = write!(out, "{n}");
        if let Some(w) = width {
            let written = (out.len() - start) as u64;
            if written < w {
                let zeros = "0".repeat((w - written) as usize);
                out.insert_str(start, &zeros);
            }
        }
        return tick(n.limb_count());
    };
    let digits = DECIMAL_SPLIT_DIGITS << i;
    tick(n.limb_count().saturating_mul(2))?;
    let (high, low) = n.div_rem(&powers[i]);
    write_decimal_part(
        &high,
        width.map(|w| w.saturating_sub(digits)),
        powers,
        out,
        tick,
    )?;
    write_decimal_part(&low, Some(digits), powers, out, tick)
}

impl PartialOrd for Int {
    fn partial_cmp(&self, other: &Int) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Int {
    fn cmp(&self, other: &Int) -> Ordering {
        match (self, other) {
            (Int::Small(a), Int::Small(b)) => a.cmp(b),
            (Int::Small(_), Int::Big(b)) => {
                if b.negative {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (Int::Big(a), Int::Small(_)) => {
                if a.negative {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (Int::Big(a), Int::Big(b)) => match (a.negative, b.negative) {
                (false, true) => Ordering::Greater,
                (true, false) => Ordering::Less,
                (false, false) => cmp_mag(&a.limbs, &b.limbs),
                (true, true) => cmp_mag(&b.limbs, &a.limbs),
            },
        }
    }
}

fn cmp_mag(a: &[u64], b: &[u64]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

/// Binary gcd of two machine integers.
pub fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// ⌊√v⌋ for a 128-bit integer, exact (no floating point).
pub fn isqrt_u128(v: u128) -> u128 {
    if v < 2 {
        return v;
    }
    if v <= u64::MAX as u128 {
        return isqrt_u64(v as u64) as u128;
    }
    let bits = 128 - v.leading_zeros();
    let mut x: u128 = 1u128 << bits.div_ceil(2);
    loop {
        let y = (x + v / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// ⌊√v⌋ for a machine integer, exact (no floating point).
pub fn isqrt_u64(v: u64) -> u64 {
    if v < 2 {
        return v;
    }
    // Newton iteration from a power-of-two upper bound.
    let bits = 64 - v.leading_zeros();
    let mut x: u64 = 1u64 << bits.div_ceil(2);
    loop {
        let y = (x + v / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant-divisor remainder against `u128 %`, limb by limb, for divisors of
    /// every shape (1, powers of two, the normalized and the largest, random ones).
    #[test]
    fn remainders_by_a_machine_divisor() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let slow = |limbs: &[u64], d: u64| {
            let mut r: u128 = 0;
            for &l in limbs.iter().rev() {
                r = ((r << 64) | u128::from(l)) % u128::from(d);
            }
            r as u64
        };
        let mut divisors = vec![1u64, 2, 3, 7, 10, 1 << 32, (1 << 63) - 1, 1 << 63, u64::MAX];
        for _ in 0..200 {
            let x = next();
            divisors.push(x);
            divisors.push(x >> (x % 64));
        }
        for d in divisors.into_iter().filter(|&d| d != 0) {
            for len in [1usize, 2, 3, 8, 31, 32, 33, 64, 101, 130] {
                let mut limbs: Vec<u64> = (0..len).map(|_| next()).collect();
                assert_eq!(
                    rem_limbs_u64(&limbs, d),
                    slow(&limbs, d),
                    "{limbs:?} mod {d}"
                );
                limbs.iter_mut().for_each(|l| *l = u64::MAX);
                assert_eq!(
                    rem_limbs_u64(&limbs, d),
                    slow(&limbs, d),
                    "{limbs:?} mod {d}"
                );
                limbs[len - 1] = 1;
                assert_eq!(
                    rem_limbs_u64(&limbs, d),
                    slow(&limbs, d),
                    "{limbs:?} mod {d}"
                );
            }
        }
    }

    /// A product by a machine word checked against the remainders of its factors
    /// (`rem_limbs_u64`, tested above against `u128 %`) and its length, for lengths
    /// past what the property tests draw.
    #[test]
    fn products_by_a_machine_word() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let moduli = [3u64, 1_000_000_007, (1 << 61) - 1, u64::MAX - 58];
        for m in [1u64, 2, 7, 1 << 63, u64::MAX, next(), next() >> 17] {
            for len in [1usize, 2, 5, 64, 300] {
                let mut limbs: Vec<u64> = (0..len).map(|_| next()).collect();
                for top in [next(), u64::MAX, 1] {
                    limbs[len - 1] = top;
                    let p = mul_limbs_u64(&limbs, m);
                    assert_ne!(*p.last().expect("a limb"), 0, "normalized");
                    let bits = |l: &[u64]| {
                        l.len() as u64 * 64 - u64::from(l.last().expect("a limb").leading_zeros())
                    };
                    let (a, b) = (bits(&limbs), 64 - u64::from(m.leading_zeros()));
                    assert!(bits(&p) == a + b || bits(&p) == a + b - 1);
                    for q in moduli {
                        let want = (u128::from(rem_limbs_u64(&limbs, q)) * u128::from(m % q)
                            % u128::from(q)) as u64;
                        assert_eq!(rem_limbs_u64(&p, q), want, "{len} limbs times {m} mod {q}");
                    }
                }
            }
        }
    }

    #[test]
    fn gcd_small() {
        assert_eq!(gcd_u64(12, 18), 6);
        assert_eq!(gcd_u64(0, 5), 5);
        assert_eq!(gcd_u64(7, 0), 7);
        assert_eq!(gcd_u64(1 << 40, 1 << 20), 1 << 20);
    }

    #[test]
    fn isqrt_exact_on_boundaries() {
        for v in [
            0u64,
            1,
            2,
            3,
            4,
            15,
            16,
            17,
            99,
            100,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let r = isqrt_u64(v) as u128;
            assert!(
                r * r <= v as u128 && (r + 1) * (r + 1) > v as u128,
                "isqrt({v})"
            );
        }
    }

    #[test]
    fn small_stays_small() {
        assert_eq!(Int::from(5i64).add(&Int::from(-7i64)), Int::Small(-2));
        assert_eq!(Int::from(i64::MIN).bit_length(), 64);
        assert_eq!(Int::from(0u64).bit_length(), 0);
        assert_eq!(Int::pow2(10), Int::Small(1024));
    }
}
