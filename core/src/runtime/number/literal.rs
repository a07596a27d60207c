//! Exact, limit-checked construction of numeric lexemes (recognized by
//! [`crate::syntax::literal`]).
//!
//! The same code serves source literals, `NUM` and `JSON-DECODE`, so all three agree
//! on digits counted, on the `bigintBits` lower bound decided before building, and on
//! the exact value.

use super::int::Int;
use super::rational::Rat;

pub use crate::syntax::literal::{digit_count, scan, Lexeme};

/// Why a lexeme's value could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A fraction with a zero denominator.
    ZeroDenominator,
    /// The value is wider than the `bigintBits` ceiling; `observed` is the decimal
    /// width or the lower bound that decided it.
    TooWide {
        /// The measured width or bound, in decimal.
        observed: String,
    },
}

/// Build the exact value of a recognized lexeme under a `bigintBits` ceiling
/// (the digit count is checked by the caller first).
pub fn build(lexeme: &Lexeme<'_>, max_bits: u64) -> Result<Rat, BuildError> {
    match *lexeme {
        Lexeme::Fraction { negative, num, den } => {
            let d = Int::from_decimal(den);
            if d.is_zero() {
                return Err(BuildError::ZeroDenominator);
            }
            let n = Int::from_decimal(num);
            let r = Rat::new(if negative { n.neg() } else { n }, d);
            check_width(r, max_bits)
        }
        Lexeme::Decimal {
            negative,
            int,
            frac,
            exp_negative,
            exp,
        } => {
            let exp = if exp.is_empty() {
                Int::ZERO
            } else {
                Int::from_decimal(exp)
            };
            let exp = if exp_negative { exp.neg() } else { exp };
            build_scaled(negative, int, frac, &exp, max_bits)
        }
    }
}

/// Build ±(int.frac)·10^exp exactly under a `bigintBits` ceiling, deciding on the
/// lower bound of docs/reference/lexical.md#number-literals before building anything wide.
pub fn build_scaled(
    negative: bool,
    int: &str,
    frac: &str,
    exp: &Int,
    max_bits: u64,
) -> Result<Rat, BuildError> {
    let mut all = String::with_capacity(int.len() + frac.len());
    all.push_str(int);
    all.push_str(frac);
    let m = Int::from_decimal(&all);
    if m.is_zero() {
        return Ok(Rat::ZERO);
    }
    let k = exp.sub(&Int::from(frac.len()));
    let limit = Int::from(max_bits);
    if !k.is_negative() {
        let bound = Int::from(m.bit_length()).add(&k.mul(&Int::Small(3)));
        if bound > limit {
            return Err(BuildError::TooWide {
                observed: bound.to_string(),
            });
        }
        let k = k.to_u64().expect("bounded by bigintBits");
        let v = m.mul(&Int::Small(10).pow(k));
        let v = if negative { v.neg() } else { v };
        return check_width(Rat::from(v), max_bits);
    }
    let minus_k = k.neg();
    let v2 = Int::from(m.trailing_zeros());
    let v5 = Int::from(valuation5(&m));
    let zero = Int::ZERO;
    let a = minus_k.sub(&v2).max(zero.clone());
    let b = minus_k.sub(&v5).max(zero);
    let bound = a.add(&b.mul(&Int::Small(2))).add(&Int::ONE);
    if bound > limit {
        return Err(BuildError::TooWide {
            observed: bound.to_string(),
        });
    }
    let minus_k = minus_k.to_u64().expect("bounded by bigintBits");
    let v = Rat::new(
        if negative { m.neg() } else { m },
        Int::Small(10).pow(minus_k),
    );
    check_width(v, max_bits)
}

fn valuation5(m: &Int) -> u64 {
    let five = Int::Small(5);
    let mut v = 0;
    let mut x = m.abs();
    loop {
        let (q, r) = x.div_rem(&five);
        if !r.is_zero() || x.is_zero() {
            return v;
        }
        v += 1;
        x = q;
    }
}

fn check_width(r: Rat, max_bits: u64) -> Result<Rat, BuildError> {
    let w = r.width();
    if w > max_bits {
        return Err(BuildError::TooWide {
            observed: w.to_string(),
        });
    }
    Ok(r)
}
