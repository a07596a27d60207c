//! Numeric lexemes: recognition (LANGUAGE.md §2.3) and exact, limit-checked construction.
//!
//! The same code serves source literals, `NUM` and `JSON-DECODE`, so all three agree
//! on digits counted, on the `bigintBits` lower bound decided before building, and on
//! the exact value.

use super::int::Int;
use super::rational::Rat;

/// A recognized numeric lexeme, split into its digit runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lexeme<'a> {
    /// `[sign] digits "/" digits`.
    Fraction {
        /// A leading `-`.
        negative: bool,
        /// Numerator digits.
        num: &'a str,
        /// Denominator digits.
        den: &'a str,
    },
    /// `[sign] digits ["." digits] [exponent]`: the value int.frac · 10^exp.
    Decimal {
        /// A leading `-`.
        negative: bool,
        /// Digits before the point.
        int: &'a str,
        /// Digits after the point (empty when there is no point).
        frac: &'a str,
        /// A `-` in the exponent.
        exp_negative: bool,
        /// Exponent digits (empty when there is no exponent).
        exp: &'a str,
    },
}

fn digits_prefix(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Recognize a whole lexeme as a number literal (§2.3), or `None` for a name.
pub fn scan(lexeme: &str) -> Option<Lexeme<'_>> {
    let (negative, rest) = match lexeme.as_bytes().first()? {
        b'-' => (true, &lexeme[1..]),
        b'+' => (false, &lexeme[1..]),
        _ => (false, lexeme),
    };
    let n = digits_prefix(rest);
    if n == 0 {
        return None;
    }
    let (int, mut rest) = rest.split_at(n);
    if let Some(den) = rest.strip_prefix('/') {
        let m = digits_prefix(den);
        if m == 0 || m != den.len() {
            return None;
        }
        return Some(Lexeme::Fraction {
            negative,
            num: int,
            den,
        });
    }
    let mut frac = "";
    if let Some(after) = rest.strip_prefix('.') {
        let m = digits_prefix(after);
        if m == 0 {
            return None;
        }
        frac = &after[..m];
        rest = &after[m..];
    }
    let mut exp = "";
    let mut exp_negative = false;
    if let Some(after) = rest.strip_prefix(['e', 'E']) {
        let (neg, after) = match after.as_bytes().first() {
            Some(b'-') => (true, &after[1..]),
            Some(b'+') => (false, &after[1..]),
            _ => (false, after),
        };
        let m = digits_prefix(after);
        if m == 0 || m != after.len() {
            return None;
        }
        exp = after;
        exp_negative = neg;
        rest = "";
    }
    if !rest.is_empty() {
        return None;
    }
    Some(Lexeme::Decimal {
        negative,
        int,
        frac,
        exp_negative,
        exp,
    })
}

/// Count of ASCII digits in the lexeme (every digit run), compared with `numericLiteralDigits`.
pub fn digit_count(lexeme: &str) -> u64 {
    lexeme.bytes().filter(u8::is_ascii_digit).count() as u64
}

impl Lexeme<'_> {
    /// Whether this is a fraction with a zero denominator (`malformedSource` in source).
    pub fn has_zero_denominator(&self) -> bool {
        matches!(self, Lexeme::Fraction { den, .. } if den.bytes().all(|b| b == b'0'))
    }
}

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
/// lower bound of §2.3 before building anything wide.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_the_grammar() {
        for yes in [
            "42", "-7", "+7", "4/6", "0.5", "1.5e-3", "2E+2", "007", "00/01", "-0",
        ] {
            assert!(scan(yes).is_some(), "{yes} should be a number");
        }
        for no in [
            ".5", "5.", "1e", "1/-3", "1/2e3", "1.5/2", "1_000", "0x10", "12abc", "-", "-x", "+",
            "１２", "1e+", "1/",
        ] {
            assert!(scan(no).is_none(), "{no} should be a name");
        }
    }

    #[test]
    fn counts_all_digits() {
        assert_eq!(digit_count("-12.50e+10"), 6);
        assert_eq!(digit_count("1/3"), 2);
    }

    #[test]
    fn zero_denominator_is_detected() {
        assert!(scan("-1/0").unwrap().has_zero_denominator());
        assert!(scan("1/000").unwrap().has_zero_denominator());
        assert!(!scan("0/1").unwrap().has_zero_denominator());
    }
}
