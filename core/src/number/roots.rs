//! Square roots of rationals and exact powers (SQRT, POW), with their work charges.
//!
//! STUB SIGNATURES: the tower helper implements the bodies (LANGUAGE.md §4.2.2,
//! §4.2.3, §9 and WORDS.md POW).

use super::{Budget, Number, Rat};
use crate::limits::Halt;
use crate::outcome::NilReason;

/// Ceilings a power must respect, decided before the result is built.
#[derive(Clone, Copy, Debug)]
pub struct PowLimits {
    /// `bigintBits`.
    pub bigint_bits: u64,
    /// `algebraicTerms`.
    pub algebraic_terms: u64,
}

/// √r of a rational in canonical form; `Ok(None)` when r < 0 (the caller projects
/// `NIL(domainMiss)`). Charges limbs(N) per trial divisor of the square-free
/// decomposition (§4.2.3) to `budget` before each trial.
pub fn sqrt_rat(_r: &Rat, _budget: &mut dyn Budget) -> Result<Option<Number>, Halt> {
    todo!("sqrt_rat")
}

/// bᵉ for a rational exponent e = p/q (WORDS.md POW). `Ok(Err(reason))` is a per-lane
/// NIL (`divisionByZero`, `domainMiss`); an algebraic b with q ≥ 2 is `typeMismatch`;
/// a result too wide for `limits.bigint_bits` is `resourceLimitExceeded` decided
/// before building. Charges the multiplications of §9 to `budget`.
pub fn pow(
    _b: &Number,
    _e: &Rat,
    _budget: &mut dyn Budget,
    _limits: PowLimits,
) -> Result<Result<Number, NilReason>, Halt> {
    todo!("pow")
}
