//! Algebraic numbers in the multiquadratic normal form Σ c·√d.
//!
//! STUB: the helper implementing the tower replaces the bodies marked `todo!`.

use super::int::Int;
use super::rational::Rat;
use super::Number;
use std::fmt;

/// A Number of the multiquadratic field in canonical normal form: terms by
/// ascending square-free radicand (1 = the rational part), non-zero reduced
/// coefficients. An `Alg` held by [`Number::Alg`] always has a radicand > 1.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Alg {
    terms: Vec<(Rat, Int)>,
}

impl Alg {
    /// The terms, rational part (radicand 1) first, ascending radicands.
    pub fn terms(&self) -> &[(Rat, Int)] {
        &self.terms
    }

    /// Build from terms already in canonical form (checked in debug builds).
    pub fn from_canonical_terms(terms: Vec<(Rat, Int)>) -> Alg {
        Alg { terms }
    }

    /// The normal form of any Number (a rational becomes at most one term of radicand 1).
    pub fn from_number(n: &Number) -> Alg {
        match n {
            Number::Rat(r) if r.is_zero() => Alg { terms: Vec::new() },
            Number::Rat(r) => Alg {
                terms: vec![(r.clone(), Int::ONE)],
            },
            Number::Alg(a) => (**a).clone(),
        }
    }

    /// The rational value when no radicand > 1 remains, else self back.
    pub fn into_rational(self) -> Result<Rat, Alg> {
        match self.terms.len() {
            0 => Ok(Rat::ZERO),
            1 if self.terms[0].1.is_one() => Ok(self.terms.into_iter().next().expect("one term").0),
            _ => Err(self),
        }
    }

    /// Width: largest bit length of any coefficient numerator or denominator.
    pub fn width(&self) -> u64 {
        self.terms.iter().map(|(c, _)| c.width()).max().unwrap_or(0)
    }

    /// Largest bit length of any numerator, denominator or radicand.
    pub fn work_bits(&self) -> u64 {
        self.terms
            .iter()
            .map(|(c, d)| c.width().max(d.bit_length()))
            .max()
            .unwrap_or(0)
    }

    /// −self.
    pub fn neg(&self) -> Alg {
        Alg {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| (c.neg(), d.clone()))
                .collect(),
        }
    }

    /// self + other.
    pub fn add(&self, _other: &Alg) -> Alg {
        todo!("algebraic addition")
    }

    /// self − other.
    pub fn sub(&self, other: &Alg) -> Alg {
        self.add(&other.neg())
    }

    /// self · other.
    pub fn mul(&self, _other: &Alg) -> Alg {
        todo!("algebraic multiplication")
    }

    /// 1/self for self ≠ 0.
    pub fn recip(&self) -> Alg {
        todo!("algebraic reciprocal")
    }

    /// Exact sign.
    pub fn signum(&self) -> i32 {
        todo!("algebraic sign")
    }

    /// Exact floor.
    pub fn floor(&self) -> Int {
        todo!("algebraic floor")
    }
}

impl fmt::Display for Alg {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!("algebraic display")
    }
}
