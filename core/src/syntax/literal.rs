//! Numeric lexemes (docs/reference/lexical.md#number-literals): recognition, digit counting and the
//! one structural check (a zero denominator), shared by the lexer, the parser and the runtime's
//! construction of exact values.

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

/// Recognize a whole lexeme as a number literal (docs/reference/lexical.md#number-literals), or
/// `None` for a name.
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
