//! Rational approximation of algebraic numbers by continued-fraction convergents (MCP-30).
//!
//! STUB: replaced by the tower helper.

use super::rational::Rat;
use super::Number;

/// The last convergent p/q with q ≤ `bound` of x's regular continued fraction.
pub fn best_convergent(x: &Number, _bound: u64) -> Rat {
    match x {
        Number::Rat(r) => r.clone(),
        Number::Alg(_) => todo!("continued-fraction approximation"),
    }
}
