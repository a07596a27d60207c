//! Timed runs of the expensive algebraic operations (printed, never asserted on time):
//! `cargo test -p ajisai-numerics-pure --release --test pure perf:: -- --nocapture`.
//! The results are checked for exactness so the timings measure correct work.

use crate::common::{num, sqrt};
use ajisai_core::number::{Alg, Number, Rat};
use std::time::Instant;

const PRIMES: [i64; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    eprintln!("{what}: {:?}", t.elapsed());
    r
}

/// Π (√p₂ᵢ ± √p₂ᵢ₊₁) over the first `n` pairs.
fn product(n: usize, minus: bool) -> Vec<Number> {
    (0..n)
        .map(|i| {
            let (a, b) = (sqrt(PRIMES[2 * i]), sqrt(PRIMES[2 * i + 1]));
            if minus {
                a.sub(&b)
            } else {
                a.add(&b)
            }
        })
        .collect()
}

#[test]
fn timings() {
    ajisai_numerics_pure::link();
    let factors = product(8, false);
    let p = timed("product of 8 two-radical factors (256 terms)", || {
        factors.iter().fold(num("1"), |acc, f| acc.mul(f))
    });
    assert_eq!(p.term_count(), 256);

    let mixed = product(8, true).iter().fold(num("1"), |acc, f| acc.mul(f));
    assert_eq!(mixed.term_count(), 256);
    let s = timed("sign of a 256-term number (mixed signs)", || mixed.signum());
    assert_eq!(s, 1);

    let c = Number::Rat(mixed.best_convergent(1_000_000_000));
    let near = mixed.sub(&c);
    assert_eq!(near.term_count(), 257);
    let s = timed("sign of a 257-term number within 1e-18 of zero", || {
        near.signum()
    });
    let s2 = match &near {
        Number::Alg(a) => timed("  same, exact procedure only", || a.exact_signum()),
        Number::Rat(_) => 0,
    };
    assert_eq!(s, s2);

    let f = timed("floor of the 256-term number times 10^30", || {
        mixed.mul(&num("1e30")).floor()
    });
    eprintln!("  floor = {f}");

    let conv = timed("MCP-30 convergent of the 256-term number", || {
        mixed.best_convergent(1_000_000_000)
    });
    eprintln!("  convergent = {conv}");

    // 16 terms over the basis {2, 3, 5, 7}: (1+√2)(1+√3)(1+√5)(1+√7) and a generic one.
    let units = [2, 3, 5, 7]
        .iter()
        .fold(num("1"), |acc, &p| acc.mul(&sqrt(p).add(&num("1"))));
    assert_eq!(units.term_count(), 16);
    let inv = timed(
        "reciprocal of a 16-term number (product of 4 binomials)",
        || num("1").div(&units),
    );
    assert_eq!(inv.as_ref().map(|i| i.mul(&units)), Some(num("1")));
    let g16 = generic_16();
    let inv = timed("reciprocal of a generic 16-term number", || {
        num("1").div(&g16)
    });
    assert_eq!(inv.as_ref().map(|i| i.mul(&g16)), Some(num("1")));
    eprintln!("  its width: {} bits", inv.map(|i| i.width()).unwrap_or(0));

    let inv = timed("reciprocal of the 256-term product", || num("1").div(&p));
    assert_eq!(inv.as_ref().map(|i| i.mul(&p)), Some(num("1")));
    let sq = timed("square of the 256-term product", || p.mul(&p));
    eprintln!("  terms of the square: {}", sq.term_count());
    // A 32-term generic value over {2, 3, 5, 7, 11}.
    let g32 = generic(&[2, 3, 5, 7, 11], 11);
    let inv = timed("reciprocal of a generic 32-term number", || {
        num("1").div(&g32)
    });
    assert_eq!(inv.as_ref().map(|i| i.mul(&g32)), Some(num("1")));
    for k in 6..=PERF_MAX_BASIS {
        let g = generic(&PRIMES[..k], k as u64);
        let label = format!("reciprocal of a generic {}-term number", g.term_count());
        let inv = timed(&label, || num("1").div(&g));
        eprintln!(
            "  its width: {} bits",
            inv.as_ref().map(|i| i.width()).unwrap_or(0)
        );
        let label = format!("sign of a generic {}-term number", g.term_count());
        timed(&label, || g.signum());
    }
}

/// The largest basis of the generic reciprocal timings (2^k terms); raise it locally
/// (`PERF_MAX_BASIS`) for the full scaling table.
const PERF_MAX_BASIS: usize = 7;

fn generic_16() -> Number {
    generic(&[2, 3, 5, 7], 7)
}

/// Σ c_S·√(Π S) over every subset S of `basis`, with pseudo-random small coefficients.
fn generic(basis: &[i64], seed: u64) -> Number {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut terms: Vec<(i64, i64)> = Vec::new();
    for mask in 0u32..(1 << basis.len()) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let c = (state % 19) as i64 - 9;
        let d: i64 = basis
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, p)| *p)
            .product();
        if c != 0 {
            terms.push((c, d));
        }
    }
    terms.sort_by_key(|t| t.1);
    let terms = terms
        .into_iter()
        .map(|(c, d)| (Rat::from(c), ajisai_core::Int::from(d)))
        .collect();
    Number::from_alg(Alg::from_canonical_terms(terms))
}
