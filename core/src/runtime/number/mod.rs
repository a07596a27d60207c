//! The exact numeric tower: integers → rationals → algebraic numbers.
//!
//! Every Number is an element of ℚ(√2, √3, √5, …) in the canonical normal form
//! Σ c·√d (docs/reference/domains.md#number): square-free radicands in ascending order, non-zero
//! reduced coefficients, radicand 1 for the rational part. Because the form is
//! canonical, equal reals are equal values and display identically. Sign, order
//! and floor are decided exactly; there is no floating point anywhere here.

pub mod algebraic;
pub mod approx;
pub mod int;
pub mod literal;
pub mod rational;
pub mod roots;

pub use algebraic::Alg;
pub use int::Int;
pub use rational::Rat;

use crate::limits::Halt;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Something that pays for long numeric computations: charges `numericWork`
/// and lets the host interrupt between steps.
pub trait Budget {
    /// Charge `units` of `numericWork` before the work it pays for.
    fn charge(&mut self, units: u64) -> Result<(), Halt>;
    /// Stop if the host asked the run to stop.
    fn poll(&mut self) -> Result<(), Halt>;
}

impl Budget for crate::limits::Meter {
    fn charge(&mut self, units: u64) -> Result<(), Halt> {
        self.charge_numeric(units)
    }
    fn poll(&mut self) -> Result<(), Halt> {
        crate::limits::Meter::poll(self)
    }
}

/// The `numericWork` price of converting one integer of `n` limbs (wider than a machine
/// word) between binary and decimal: n + ⌈n²/16⌉.
pub fn decimal_price_of_limbs(n: u64) -> u64 {
    n.saturating_add(n.saturating_mul(n).div_ceil(16))
}

/// A budget that never refuses (for tests and for host-side rendering).
#[derive(Debug, Default, Clone, Copy)]
pub struct Unmetered;

impl Budget for Unmetered {
    fn charge(&mut self, _units: u64) -> Result<(), Halt> {
        Ok(())
    }
    fn poll(&mut self) -> Result<(), Halt> {
        Ok(())
    }
}

/// An exact Number: rational, or algebraic irrational.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Number {
    /// A rational (including every integer).
    Rat(Rat),
    /// An irrational element of the multiquadratic field (at least one radicand > 1).
    Alg(Arc<Alg>),
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

/// The canonical display of docs/reference/domains.md (`3/1`, `sqrt(2)`, `1/1-1/3*sqrt(5)`).
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Rat(r) => write!(f, "{r}"),
            Number::Alg(a) => write!(f, "{a}"),
        }
    }
}

impl Number {
    /// Append the text [`fmt::Display`] writes for `self` to `out`, converting wide
    /// integers a piece at a time and calling `tick` between the pieces
    /// ([`Int::write_decimal_polled`]), so a meter can stop it.
    pub fn write_polled<E>(
        &self,
        out: &mut String,
        tick: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            Number::Rat(r) => {
                r.numer().write_decimal_polled(out, tick)?;
                out.push('/');
                r.denom().write_decimal_polled(out, tick)
            }
            Number::Alg(a) => {
                if a.terms().is_empty() {
                    out.push_str("0/1");
                    return Ok(());
                }
                for (i, (c, d)) in a.terms().iter().enumerate() {
                    let negative = c.signum() < 0;
                    if i > 0 {
                        out.push(if negative { '-' } else { '+' });
                    } else if negative {
                        out.push('-');
                    }
                    let num = c.numer().abs();
                    let den = c.denom();
                    if d.is_one() {
                        num.write_decimal_polled(out, tick)?;
                        out.push('/');
                        den.write_decimal_polled(out, tick)?;
                    } else if num.is_one() && den.is_one() {
                        out.push_str("sqrt(");
                        d.write_decimal_polled(out, tick)?;
                        out.push(')');
                    } else {
                        num.write_decimal_polled(out, tick)?;
                        out.push('/');
                        den.write_decimal_polled(out, tick)?;
                        out.push_str("*sqrt(");
                        d.write_decimal_polled(out, tick)?;
                        out.push(')');
                    }
                }
                Ok(())
            }
        }
    }
}

impl From<Rat> for Number {
    fn from(r: Rat) -> Number {
        Number::Rat(r)
    }
}

impl From<Int> for Number {
    fn from(i: Int) -> Number {
        Number::Rat(Rat::from(i))
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Number {
        Number::Rat(Rat::from(i))
    }
}

impl Number {
    /// The value as an `i64` when it is an integer that fits one.
    #[inline]
    pub fn small_int(&self) -> Option<i64> {
        match self {
            Number::Rat(r) => match r.small_parts() {
                Some((n, 1)) => Some(n),
                _ => None,
            },
            Number::Alg(_) => None,
        }
    }

    /// Numerator and denominator of a rational whose parts both fit `i64`.
    #[inline]
    pub fn small_parts(&self) -> Option<(i64, i64)> {
        match self {
            Number::Rat(r) => r.small_parts(),
            Number::Alg(_) => None,
        }
    }

    /// Zero.
    pub const ZERO: Number = Number::Rat(Rat::ZERO);

    /// Build from a normal form, collapsing to a rational when no radicand > 1 remains.
    pub fn from_alg(a: Alg) -> Number {
        match a.into_rational() {
            Ok(r) => Number::Rat(r),
            Err(a) => Number::Alg(Arc::new(a)),
        }
    }

    /// The rational value, if rational.
    #[inline]
    pub fn as_rat(&self) -> Option<&Rat> {
        match self {
            Number::Rat(r) => Some(r),
            Number::Alg(_) => None,
        }
    }

    /// The integer value, if an integer.
    #[inline]
    pub fn as_int(&self) -> Option<&Int> {
        self.as_rat().and_then(Rat::to_int)
    }

    /// Whether the value is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        matches!(self, Number::Rat(r) if r.is_zero())
    }

    /// Whether the value is an integer.
    pub fn is_integer(&self) -> bool {
        self.as_int().is_some()
    }

    /// The terms of the normal form, rational part (radicand 1) first, ascending radicands.
    pub fn terms(&self) -> Vec<(Rat, Int)> {
        match self {
            Number::Rat(r) if r.is_zero() => Vec::new(),
            Number::Rat(r) => vec![(r.clone(), Int::ONE)],
            Number::Alg(a) => a.terms().to_vec(),
        }
    }

    /// Term count of the normal form (rational part included; 0 for zero).
    pub fn term_count(&self) -> u64 {
        match self {
            Number::Rat(r) => u64::from(!r.is_zero()),
            Number::Alg(a) => a.terms().len() as u64,
        }
    }

    /// Width (docs/reference/pricing-and-limits.md#the-limits-and-their-values): the largest bit
    /// length of any coefficient's numerator or denominator.
    pub fn width(&self) -> u64 {
        match self {
            Number::Rat(r) => r.width(),
            Number::Alg(a) => a.width(),
        }
    }

    /// bits(x) of the work pricing (docs/reference/pricing-and-limits.md): largest bit length of
    /// any numerator, denominator or radicand of the normal form (0 for zero).
    pub fn work_bits(&self) -> u64 {
        match self {
            Number::Rat(r) => r.width(),
            Number::Alg(a) => a.work_bits(),
        }
    }

    /// limbs(x) of the work pricing: max(1, ⌈bits(x)/64⌉).
    pub fn work_limbs(&self) -> u64 {
        self.work_bits().div_ceil(64).max(1)
    }

    /// terms(x) of the work pricing: the term count, 0 for a rational.
    pub fn work_terms(&self) -> u64 {
        match self {
            Number::Rat(_) => 0,
            Number::Alg(a) => a.terms().len() as u64,
        }
    }

    /// The integers of the normal form: each coefficient's numerator and denominator,
    /// and each radicand other than 1 (in term order).
    fn for_each_int(&self, mut f: impl FnMut(&Int)) {
        match self {
            Number::Rat(r) => {
                f(r.numer());
                f(r.denom());
            }
            Number::Alg(a) => {
                for (c, d) in a.terms() {
                    f(c.numer());
                    f(c.denom());
                    if !d.is_one() {
                        f(d);
                    }
                }
            }
        }
    }

    /// Limbs of the integers of the normal form that are wider than a machine word: 0
    /// when every numerator, denominator and radicand fits 64 bits, else the sum of
    /// ⌈bits/64⌉ over those that do not (docs/reference/pricing-and-limits.md#weights).
    pub fn big_limbs(&self) -> u64 {
        let mut limbs = 0u64;
        self.for_each_int(|i| {
            if let Int::Big(_) = i {
                limbs = limbs.saturating_add(i.limb_count());
            }
        });
        limbs
    }

    /// What writing the value in decimal costs in `numericWork`: for each integer of
    /// the normal form wider than a machine word, of n limbs, n + ⌈n²/16⌉ (the
    /// conversion is quadratic on the portable backend; docs/reference/pricing-and-limits.md#weights).
    pub fn decimal_price(&self) -> u64 {
        let mut units = 0u64;
        self.for_each_int(|i| {
            if let Int::Big(_) = i {
                units = units.saturating_add(decimal_price_of_limbs(i.limb_count()));
            }
        });
        units
    }

    /// −1, 0 or +1, decided exactly.
    pub fn signum(&self) -> i32 {
        match self {
            Number::Rat(r) => r.signum(),
            Number::Alg(a) => a.signum(),
        }
    }

    /// −self.
    pub fn neg(&self) -> Number {
        match self {
            Number::Rat(r) => Number::Rat(r.neg()),
            Number::Alg(a) => Number::Alg(Arc::new(a.neg())),
        }
    }

    /// |self|.
    pub fn abs(&self) -> Number {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// self + other.
    pub fn add(&self, other: &Number) -> Number {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Number::Rat(a.add(b)),
            _ => Number::from_alg(Alg::from_number(self).add(&Alg::from_number(other))),
        }
    }

    /// self − other.
    pub fn sub(&self, other: &Number) -> Number {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Number::Rat(a.sub(b)),
            _ => Number::from_alg(Alg::from_number(self).sub(&Alg::from_number(other))),
        }
    }

    /// self · other.
    pub fn mul(&self, other: &Number) -> Number {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Number::Rat(a.mul(b)),
            _ => Number::from_alg(Alg::from_number(self).mul(&Alg::from_number(other))),
        }
    }

    /// self / other, or `None` when other is zero.
    pub fn div(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return None;
        }
        Some(match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Number::Rat(a.div(b)),
            (_, Number::Rat(b)) => self.mul(&Number::Rat(b.recip())),
            (_, Number::Alg(b)) => self.mul(&Number::from_alg(b.recip())),
        })
    }

    /// Exact order.
    pub fn cmp_exact(&self, other: &Number) -> Ordering {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => a.cmp(b),
            _ => self.sub(other).signum().cmp(&0),
        }
    }

    /// ⌊self⌋, exact.
    pub fn floor(&self) -> Int {
        match self {
            Number::Rat(r) => r.floor(),
            Number::Alg(a) => a.floor(),
        }
    }

    /// Nearest integer, halves away from zero: sign(x)·⌊|x| + 1/2⌋.
    pub fn round(&self) -> Int {
        let half = Number::Rat(Rat::new(Int::ONE, Int::Small(2)));
        let s = self.signum();
        let f = self.abs().add(&half).floor();
        if s < 0 {
            f.neg()
        } else {
            f
        }
    }

    /// Euclidean remainder r = a − |b|·⌊a/|b|⌋ (0 ≤ r < |b|); `b` must be non-zero.
    pub fn euclid_mod(&self, b: &Number) -> Number {
        let m = b.abs();
        if let (Number::Rat(x), Number::Rat(y)) = (self, &m) {
            let q = x.div(y).floor();
            return Number::Rat(x.sub(&y.mul(&Rat::from(q))));
        }
        let q = self.div(&m).expect("modulus checked non-zero").floor();
        self.sub(&m.mul(&Number::from(q)))
    }

    /// [`Number::mul`], polling `budget` (never charging it) during long algebraic products
    /// so a host can interrupt them.
    pub fn try_mul(&self, other: &Number, budget: &mut dyn Budget) -> Result<Number, Halt> {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Ok(Number::Rat(a.mul(b))),
            _ => Ok(Number::from_alg(
                Alg::from_number(self).try_mul(&Alg::from_number(other), budget)?,
            )),
        }
    }

    /// [`Number::div`], polling `budget` during long algebraic reciprocals and products.
    pub fn try_div(&self, other: &Number, budget: &mut dyn Budget) -> Result<Option<Number>, Halt> {
        match other {
            _ if other.is_zero() => Ok(None),
            Number::Rat(b) => match self {
                Number::Rat(a) => Ok(Some(Number::Rat(a.div(b)))),
                Number::Alg(_) => Ok(Some(self.mul(&Number::Rat(b.recip())))),
            },
            Number::Alg(b) => {
                let inv = Number::from_alg(b.try_recip(budget)?);
                Ok(Some(self.try_mul(&inv, budget)?))
            }
        }
    }

    /// [`Number::signum`], polling `budget` while an algebraic sign is decided.
    pub fn try_signum(&self, budget: &mut dyn Budget) -> Result<i32, Halt> {
        match self {
            Number::Rat(r) => Ok(r.signum()),
            Number::Alg(a) => a.try_signum(budget),
        }
    }

    /// [`Number::cmp_exact`], polling `budget` while an algebraic sign is decided.
    pub fn try_cmp_exact(&self, other: &Number, budget: &mut dyn Budget) -> Result<Ordering, Halt> {
        match (self, other) {
            (Number::Rat(a), Number::Rat(b)) => Ok(a.cmp(b)),
            _ => Ok(self.sub(other).try_signum(budget)?.cmp(&0)),
        }
    }

    /// [`Number::floor`], polling `budget` while an algebraic floor is decided.
    pub fn try_floor(&self, budget: &mut dyn Budget) -> Result<Int, Halt> {
        match self {
            Number::Rat(r) => Ok(r.floor()),
            Number::Alg(a) => a.try_floor(budget),
        }
    }

    /// The last convergent p/q with q ≤ `bound` of the regular continued fraction of
    /// self (MCP-30; docs/mcp/envelope.md); for a rational, self itself when its denominator is
    /// within bound.
    pub fn best_convergent(&self, bound: u64) -> Rat {
        approx::best_convergent(self, bound)
    }
}
