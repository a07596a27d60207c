//! Algebraic numbers in the multiquadratic normal form Σ c·√d (docs/reference/domains.md#number).
//!
//! Addition merges terms; multiplication distributes with the radicand rule
//! (a√d₁)(b√d₂) = ab·g·√(d₁d₂/g²), g = gcd(d₁, d₂), so no factoring is ever needed.
//! Reciprocal, sign and floor work on an integer-coefficient copy of the value
//! ([`IPoly`], the value times the lcm of its denominators) and on a coprime
//! basis of its radicands:
//!
//! - **reciprocal**: split x = u + v√b over a basis element b and multiply by the
//!   conjugate, 1/x = (u − v√b)/(u² − b·v²); the denominator has one basis element
//!   fewer, so the chain (run as a loop, not native recursion) ends at a rational.
//! - **sign**: first a rigorous interval enclosure with exact integer square roots
//!   (⌊√(d·4^p)⌋ ≤ 2^p·√d < ⌊√(d·4^p)⌋ + 1), refined a few times; if the value is
//!   still too close to zero, the exact procedure of docs/reference/domains.md#number (sign of u,
//!   of v, and if they differ of u² − b·v²), each sub-question again interval-first. An enclosure
//!   excluding zero *is* a proof, so the answer always equals the exact sign.
//! - **floor**: a candidate from an enclosure, settled by an exact sign test when the
//!   enclosure straddles an integer.
//!
//! Every long loop polls a [`Budget`] so a host can interrupt it.

use super::int::{gcd_u64, Int};
use super::rational::Rat;
use super::{Budget, Number, Unmetered};
use crate::limits::Halt;
use crate::price::{binary_charge, ArithOp, Measure};
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

    /// Build from terms already in canonical form (ordering and non-zero
    /// coefficients are checked in debug builds; radicands must be square-free).
    pub fn from_canonical_terms(terms: Vec<(Rat, Int)>) -> Alg {
        debug_assert!(
            terms.windows(2).all(|w| w[0].1 < w[1].1)
                && terms.iter().all(|(c, d)| !c.is_zero() && d.signum() > 0),
            "terms are not in canonical order"
        );
        Alg { terms }
    }

    /// Whether the terms satisfy the canonical-form invariants that can be checked
    /// cheaply: strictly ascending positive radicands, non-zero coefficients in
    /// lowest terms with positive denominators, and square-free radicands (checked
    /// by trial division for radicands below 2^40, which covers every test value).
    pub fn is_canonical(&self) -> bool {
        let ordered = self.terms.windows(2).all(|w| w[0].1 < w[1].1);
        let coefficients = self.terms.iter().all(|(c, _)| {
            !c.is_zero() && c.denom().signum() > 0 && c.numer().gcd(c.denom()).is_one()
        });
        let radicands = self
            .terms
            .iter()
            .all(|(_, d)| d.signum() > 0 && square_free_small(d));
        ordered && coefficients && radicands
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
            1 if self.terms[0].1.is_one() => match self.terms.into_iter().next() {
                Some((c, _)) => Ok(c),
                None => Ok(Rat::ZERO),
            },
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

    /// self + other: coefficients of equal radicands add, zero terms drop.
    pub fn add(&self, other: &Alg) -> Alg {
        let (a, b) = (&self.terms, &other.terms);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].1.cmp(&b[j].1) {
                std::cmp::Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = a[i].0.add(&b[j].0);
                    if !c.is_zero() {
                        out.push((c, a[i].1.clone()));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Alg { terms: out }
    }

    /// self − other.
    pub fn sub(&self, other: &Alg) -> Alg {
        self.add(&other.neg())
    }

    /// self · other.
    pub fn mul(&self, other: &Alg) -> Alg {
        match self.try_mul(other, &mut Unmetered) {
            Ok(a) => a,
            Err(_) => unreachable_unmetered(),
        }
    }

    /// self · other, polling `budget` (never charging it) so a host can interrupt
    /// a long product.
    pub fn try_mul(&self, other: &Alg, budget: &mut dyn Budget) -> Result<Alg, Halt> {
        if self.terms.is_empty() || other.terms.is_empty() {
            return Ok(Alg { terms: Vec::new() });
        }
        // A rational factor only scales the coefficients.
        if let [(c, d)] = other.terms.as_slice() {
            if d.is_one() {
                return Ok(self.scale(c));
            }
        }
        if let [(c, d)] = self.terms.as_slice() {
            if d.is_one() {
                return Ok(other.scale(c));
            }
        }
        let (x, lx) = IPoly::from_alg(self);
        let (y, ly) = IPoly::from_alg(other);
        let p = if std::ptr::eq(self, other) {
            x.square(budget)?
        } else {
            x.mul(&y, budget)?
        };
        Ok(p.to_alg(&lx.mul(&ly)))
    }

    fn scale(&self, k: &Rat) -> Alg {
        if k.is_zero() {
            return Alg { terms: Vec::new() };
        }
        Alg {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| (c.mul(k), d.clone()))
                .collect(),
        }
    }

    /// 1/self for self ≠ 0 (zero gives zero back; callers test for zero first).
    pub fn recip(&self) -> Alg {
        match self.try_recip(&mut Unmetered) {
            Ok(a) => a,
            Err(_) => unreachable_unmetered(),
        }
    }

    /// 1/self for self ≠ 0, polling `budget` between steps.
    pub fn try_recip(&self, budget: &mut dyn Budget) -> Result<Alg, Halt> {
        if self.terms.is_empty() {
            return Ok(Alg { terms: Vec::new() });
        }
        if let [(c, d)] = self.terms.as_slice() {
            // 1/(c√d) = (1/(c·d))·√d.
            let k = Rat::new(c.denom().clone(), c.numer().mul(d));
            return Ok(Alg {
                terms: vec![(k, d.clone())],
            });
        }
        let (x, l) = IPoly::from_alg(self);
        let (p, n) = recip_ipoly(x, budget)?;
        // 1/self = L/X = L·P/N.
        Ok(p.scale(&l).to_alg(&n))
    }

    /// Exact sign: −1, 0 (only for the empty sum) or +1.
    pub fn signum(&self) -> i32 {
        match self.try_signum(&mut Unmetered) {
            Ok(s) => s,
            Err(_) => unreachable_unmetered(),
        }
    }

    /// Exact sign, polling `budget` between steps.
    pub fn try_signum(&self, budget: &mut dyn Budget) -> Result<i32, Halt> {
        if let Some(s) = quick_sign_rat(&self.terms) {
            return Ok(s);
        }
        let (x, _) = IPoly::from_alg(self);
        let mut cache = SqrtCache::default();
        sign_ipoly(x, &mut cache, budget)
    }

    /// Exact sign by the recursive procedure of docs/reference/domains.md#number alone, without the
    /// enclosures that normally answer first: slower, kept as a reference for tests.
    pub fn exact_signum(&self) -> i32 {
        let (x, _) = IPoly::from_alg(self);
        match sign_ipoly_mode(x, &mut SqrtCache::default(), &mut Unmetered, false) {
            Ok(s) => s,
            Err(_) => unreachable_unmetered(),
        }
    }

    /// Exact floor.
    pub fn floor(&self) -> Int {
        match self.try_floor(&mut Unmetered) {
            Ok(k) => k,
            Err(_) => unreachable_unmetered(),
        }
    }

    /// Exact floor, polling `budget` between steps.
    pub fn try_floor(&self, budget: &mut dyn Budget) -> Result<Int, Halt> {
        if let Ok(r) = self.clone().into_rational() {
            return Ok(r.floor());
        }
        let mut ap = Approximator::new(self);
        ap.floor(budget)
    }
}

/// The unmetered budget never refuses, so the fallible paths cannot fail; this keeps
/// the infallible wrappers free of `unwrap` while still total.
#[cold]
fn unreachable_unmetered() -> ! {
    unreachable!("the unmetered budget never refuses")
}

/// Sign from the coefficients alone: empty, or all coefficients of one sign.
fn quick_sign_rat(terms: &[(Rat, Int)]) -> Option<i32> {
    let first = terms.first().map(|(c, _)| c.signum())?;
    if terms.iter().all(|(c, _)| c.signum() == first) {
        Some(first)
    } else {
        None
    }
}

fn quick_sign_int(terms: &[(Int, Int)]) -> Option<i32> {
    let Some(first) = terms.first().map(|(c, _)| c.signum()) else {
        return Some(0);
    };
    if terms.iter().all(|(c, _)| c.signum() == first) {
        Some(first)
    } else {
        None
    }
}

/// Square-free by trial division, for radicands below 2^40; larger ones are
/// assumed square-free (the tower never builds a non-square-free one).
fn square_free_small(d: &Int) -> bool {
    let Some(mut v) = d.to_u64().filter(|v| *v < 1u64 << 40) else {
        return true;
    };
    let mut p = 2u64;
    while p * p <= v {
        if v % p == 0 {
            v /= p;
            if v % p == 0 {
                return false;
            }
        }
        p += 1;
    }
    true
}

impl fmt::Display for Alg {
    /// The one-token display of docs/reference/domains.md: `sqrt(2)`, `2/1*sqrt(2)`,
    /// `1/1-1/3*sqrt(5)`, `-sqrt(2)-sqrt(3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0/1");
        }
        for (i, (c, d)) in self.terms.iter().enumerate() {
            let negative = c.signum() < 0;
            if i > 0 {
                f.write_str(if negative { "-" } else { "+" })?;
            } else if negative {
                f.write_str("-")?;
            }
            let num = c.numer().abs();
            let den = c.denom();
            if d.is_one() {
                write!(f, "{num}/{den}")?;
            } else if num.is_one() && den.is_one() {
                write!(f, "sqrt({d})")?;
            } else {
                write!(f, "{num}/{den}*sqrt({d})")?;
            }
        }
        Ok(())
    }
}

/// The radicand-keyed accumulation maps: rustc's fast deterministic hasher (their terms
/// are sorted afterwards, so the order of the map never shows).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// How many term products run between two polls of the budget.
const POLL_EVERY: u32 = 4096;

// ---------------------------------------------------------------------------
// Radicand arithmetic.

/// (g, d₁d₂/g²) with g = gcd(d₁, d₂): √d₁·√d₂ = g·√(d₁d₂/g²).
#[inline]
fn rad_mul(d1: &Int, d2: &Int) -> (Int, Int) {
    if d1.is_one() {
        return (Int::ONE, d2.clone());
    }
    if d2.is_one() {
        return (Int::ONE, d1.clone());
    }
    if let (Int::Small(a), Int::Small(b)) = (d1, d2) {
        let (a, b) = (*a as u64, *b as u64);
        let g = gcd_u64(a, b);
        let r = (a / g) as u128 * (b / g) as u128;
        return (Int::from(g), Int::from(r));
    }
    let g = d1.gcd(d2);
    if g.is_one() {
        return (g, d1.mul(d2));
    }
    let r = d1.div_exact(&g).mul(&d2.div_exact(&g));
    (g, r)
}

/// Whether b divides d (both positive).
#[inline]
fn divides(b: &Int, d: &Int) -> bool {
    match (b, d) {
        (Int::Small(x), Int::Small(y)) => y % x == 0,
        (Int::Small(x), _) => d.rem_u64(*x as u64) == 0,
        _ => d.div_rem(b).1.is_zero(),
    }
}

/// A pairwise-coprime basis (each element > 1) generating every radicand > 1 in
/// `rads` as the product of a subset (the coprime basis the normal form of
/// docs/reference/domains.md#number is reduced over). The radicands are square-free, so splitting b
/// and a by g = gcd(a, b) gives the pairwise-coprime g, b/g, a/g at once.
fn coprime_basis<'a>(rads: impl Iterator<Item = &'a Int>) -> Vec<Int> {
    let mut basis: Vec<Int> = Vec::new();
    let mut fresh: Vec<Int> = Vec::new();
    for d in rads {
        if d.is_one() {
            continue;
        }
        let mut a = d.clone();
        let mut i = 0;
        while i < basis.len() && !a.is_one() {
            let g = basis[i].gcd(&a);
            if g.is_one() {
                i += 1;
                continue;
            }
            let b = basis.swap_remove(i);
            a = a.div_exact(&g);
            let bg = b.div_exact(&g);
            if !bg.is_one() {
                fresh.push(bg);
            }
            fresh.push(g);
        }
        if !a.is_one() {
            basis.push(a);
        }
        basis.append(&mut fresh);
    }
    basis.sort();
    basis
}

// ---------------------------------------------------------------------------
// Integer-coefficient forms.

/// Σ c·√d with integer coefficients c ≠ 0 and ascending square-free radicands.
/// An `Alg` x becomes (X, L) with X = L·x and L the lcm of its denominators.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IPoly {
    terms: Vec<(Int, Int)>,
}

impl IPoly {
    /// (L·x, L) for the lcm L of the coefficient denominators.
    pub(crate) fn from_alg(a: &Alg) -> (IPoly, Int) {
        let mut l = Int::ONE;
        for (c, _) in &a.terms {
            if !c.denom().is_one() {
                l = l.lcm(c.denom());
            }
        }
        let terms = a
            .terms
            .iter()
            .map(|(c, d)| {
                let k = if c.denom() == &l {
                    Int::ONE
                } else {
                    l.div_exact(c.denom())
                };
                (c.numer().mul(&k), d.clone())
            })
            .collect();
        (IPoly { terms }, l)
    }

    /// self/den as an `Alg` (den ≠ 0).
    fn to_alg(&self, den: &Int) -> Alg {
        Alg {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| (Rat::new(c.clone(), den.clone()), d.clone()))
                .collect(),
        }
    }

    fn from_map(map: FxMap<Int, Int>) -> IPoly {
        let mut terms: Vec<(Int, Int)> = map
            .into_iter()
            .filter(|(_, c)| !c.is_zero())
            .map(|(d, c)| (c, d))
            .collect();
        terms.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        IPoly { terms }
    }

    fn accumulate(map: &mut FxMap<Int, Int>, d: Int, c: Int) {
        match map.get_mut(&d) {
            Some(acc) => *acc = acc.add(&c),
            None => {
                map.insert(d, c);
            }
        }
    }

    fn mul(&self, other: &IPoly, budget: &mut dyn Budget) -> Result<IPoly, Halt> {
        let mut map: FxMap<Int, Int> = FxMap::default();
        map.reserve(
            self.terms
                .len()
                .saturating_mul(other.terms.len())
                .min(1 << 16),
        );
        let mut tick = 0u32;
        for (c1, d1) in &self.terms {
            for (c2, d2) in &other.terms {
                tick += 1;
                if tick == POLL_EVERY {
                    tick = 0;
                    budget.poll()?;
                }
                let (g, d) = rad_mul(d1, d2);
                let c = c1.mul(c2);
                let c = if g.is_one() { c } else { c.mul(&g) };
                IPoly::accumulate(&mut map, d, c);
            }
        }
        Ok(IPoly::from_map(map))
    }

    /// self², using the symmetry of the cross terms.
    fn square(&self, budget: &mut dyn Budget) -> Result<IPoly, Halt> {
        let mut map: FxMap<Int, Int> = FxMap::default();
        let n = self.terms.len();
        map.reserve((n.saturating_mul(n + 1) / 2).min(1 << 16));
        let two = Int::Small(2);
        let mut tick = 0u32;
        for (i, (c1, d1)) in self.terms.iter().enumerate() {
            // (c√d)² = c²·d.
            IPoly::accumulate(&mut map, Int::ONE, c1.mul(c1).mul(d1));
            for (c2, d2) in &self.terms[i + 1..] {
                tick += 1;
                if tick == POLL_EVERY {
                    tick = 0;
                    budget.poll()?;
                }
                let (g, d) = rad_mul(d1, d2);
                let c = c1.mul(c2).mul(&two);
                let c = if g.is_one() { c } else { c.mul(&g) };
                IPoly::accumulate(&mut map, d, c);
            }
        }
        Ok(IPoly::from_map(map))
    }

    /// self − other (merge).
    fn sub(&self, other: &IPoly) -> IPoly {
        let (a, b) = (&self.terms, &other.terms);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.1.cmp(&y.1),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match ord {
                std::cmp::Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push((b[j].0.neg(), b[j].1.clone()));
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = a[i].0.sub(&b[j].0);
                    if !c.is_zero() {
                        out.push((c, a[i].1.clone()));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        IPoly { terms: out }
    }

    fn scale(&self, k: &Int) -> IPoly {
        if k.is_one() {
            return self.clone();
        }
        if k.is_zero() {
            return IPoly::default();
        }
        IPoly {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| (c.mul(k), d.clone()))
                .collect(),
        }
    }

    /// self + k (k added to the rational term).
    fn add_int(&self, k: &Int) -> IPoly {
        if k.is_zero() {
            return self.clone();
        }
        let mut terms = self.terms.clone();
        match terms.first_mut() {
            Some((c, d)) if d.is_one() => {
                *c = c.add(k);
                if c.is_zero() {
                    terms.remove(0);
                }
            }
            _ => terms.insert(0, (k.clone(), Int::ONE)),
        }
        IPoly { terms }
    }

    /// gcd of the coefficients (≥ 1 for a non-empty form).
    fn content(&self) -> Int {
        let mut g = Int::ZERO;
        for (c, _) in &self.terms {
            g = g.gcd(c);
            if g.is_one() {
                break;
            }
        }
        g
    }

    fn div_exact(&self, g: &Int) -> IPoly {
        if g.is_one() {
            return self.clone();
        }
        IPoly {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| (c.div_exact(g), d.clone()))
                .collect(),
        }
    }

    /// Choose the basis element to split on: the one whose split is most balanced
    /// (|u| ≈ |v| keeps u² − b·v² smallest), the smallest such on ties.
    fn choose_split(&self) -> Int {
        let basis = coprime_basis(self.terms.iter().map(|(_, d)| d));
        let n = self.terms.len() as i64;
        let mut best: Option<(i64, Int)> = None;
        for b in basis {
            let k = self.terms.iter().filter(|(_, d)| divides(&b, d)).count() as i64;
            let score = (2 * k - n).abs();
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, b));
            }
        }
        // A form with two or more terms has a radicand > 1, so the basis is non-empty.
        best.map(|(_, b)| b).unwrap_or(Int::ONE)
    }

    /// x = u + v·√b: u collects the terms with b ∤ d, v the terms c·√(d/b) with b | d.
    fn split(&self, b: &Int) -> (IPoly, IPoly) {
        let mut u = Vec::new();
        let mut v = Vec::new();
        for (c, d) in &self.terms {
            if divides(b, d) {
                v.push((c.clone(), d.div_exact(b)));
            } else {
                u.push((c.clone(), d.clone()));
            }
        }
        (IPoly { terms: u }, IPoly { terms: v })
    }

    /// u − v·√b: self with the terms divisible by b negated.
    fn conjugate(&self, b: &Int) -> IPoly {
        IPoly {
            terms: self
                .terms
                .iter()
                .map(|(c, d)| {
                    if divides(b, d) {
                        (c.neg(), d.clone())
                    } else {
                        (c.clone(), d.clone())
                    }
                })
                .collect(),
        }
    }

    /// The `MUL` price of self · other (docs/reference/pricing-and-limits.md#numericwork),
    /// measured as a Number's operand is: limbs over the coefficients (integers here) and
    /// radicands, terms 0 for a rational form.
    fn product_price(&self, other: &IPoly) -> u64 {
        binary_charge(ArithOp::Mul, &self.work_measure(), &other.work_measure(), 1)
    }

    fn work_measure(&self) -> Measure {
        let bits = self
            .terms
            .iter()
            .map(|(c, d)| c.bit_length().max(d.bit_length()))
            .max()
            .unwrap_or(0);
        let rational = self.terms.iter().all(|(_, d)| d.is_one());
        Measure {
            leaves: 1,
            limbs: bits.div_ceil(64).max(1),
            terms: if rational { 0 } else { self.terms.len() as u64 },
            vectors: 0,
            longest_text: 0,
        }
    }

    /// Sum of |c| over the irrational terms: the width, in units of 2^-p, of the
    /// enclosure at any precision p.
    fn spread(&self) -> Int {
        let mut w = Int::ZERO;
        for (c, d) in &self.terms {
            if !d.is_one() {
                w = w.add(&c.abs());
            }
        }
        w
    }
}

/// u² − b·v², the product of x = u + v√b with its conjugate. Each squaring is charged
/// at the `MUL` price of its operands before it runs, in the reciprocal and in the sign
/// procedure alike (docs/reference/pricing-and-limits.md#numericwork).
fn norm_step(u: &IPoly, v: &IPoly, b: &Int, budget: &mut dyn Budget) -> Result<IPoly, Halt> {
    budget.charge(u.product_price(u))?;
    let u2 = u.square(budget)?;
    budget.charge(v.product_price(v))?;
    let v2 = v.square(budget)?.scale(b);
    Ok(u2.sub(&v2))
}

/// What an enclosure of `x` at precision `p` costs in `numericWork`
/// (docs/reference/pricing-and-limits.md#numericwork): for each irrational term c·√d,
/// 64 + L² for the square root ⌊√d·2^p⌋ and limbs(c)·L for its product with c, where L =
/// ⌈(p + bits(d))/64⌉; limbs(c) for each rational term. (A square root of even a small
/// number costs a microsecond: the 64.)
fn enclosure_price(x: &IPoly, p: u64) -> u64 {
    x.terms.iter().fold(0u64, |acc, (c, d)| {
        let units = if d.is_one() {
            c.limb_count()
        } else {
            let l = p.saturating_add(d.bit_length()).div_ceil(64).max(1);
            l.saturating_mul(l)
                .saturating_add(c.limb_count().saturating_mul(l))
                .saturating_add(SQUARE_ROOT_UNITS)
        };
        acc.saturating_add(units)
    })
}

/// The fixed part of a square root's price in an enclosure.
const SQUARE_ROOT_UNITS: u64 = 64;

/// 1/x = P/N for an integer form x ≠ 0 (the reciprocal by conjugation, exact as
/// docs/reference/domains.md#number requires), run as a loop over the conjugate chain so the native
/// stack stays flat. Every polynomial product it performs — the two squarings of each norm
/// step and each product of the back-substitution — is charged to `budget` at the `MUL`
/// price of its operands before it runs (docs/reference/pricing-and-limits.md#numericwork):
/// the chain's cost grows like 4^m in the number m of basis elements, which the up-front
/// `DIV` charge cannot see.
fn recip_ipoly(x: IPoly, budget: &mut dyn Budget) -> Result<(IPoly, Int), Halt> {
    let mut chain: Vec<(IPoly, Int)> = Vec::new();
    let mut cur = x;
    let (mut p, mut n) = loop {
        budget.poll()?;
        if cur.terms.len() == 1 {
            let (c, d) = &cur.terms[0];
            // 1/(c√d) = √d/(c·d).
            break (
                IPoly {
                    terms: vec![(Int::ONE, d.clone())],
                },
                c.mul(d),
            );
        }
        let b = cur.choose_split();
        let (u, v) = cur.split(&b);
        let conj = cur.conjugate(&b);
        let d = norm_step(&u, &v, &b, budget)?;
        // d ≠ 0: otherwise √b would lie in the field of the other basis elements.
        let g = d.content();
        chain.push((conj, g.clone()));
        cur = d.div_exact(&g);
    };
    while let Some((conj, g)) = chain.pop() {
        budget.charge(conj.product_price(&p))?;
        p = conj.mul(&p, budget)?;
        n = n.mul(&g);
        let h = p.content().gcd(&n);
        if !h.is_one() {
            p = p.div_exact(&h);
            n = n.div_exact(&h);
        }
    }
    Ok((p, n))
}

// ---------------------------------------------------------------------------
// Enclosures.

/// ⌊√d·2^p⌋ per radicand, kept at the highest precision computed so far (a lower
/// precision is a right shift of a higher one: ⌊⌊y⌋/2^k⌋ = ⌊y/2^k⌋).
#[derive(Default)]
pub(crate) struct SqrtCache {
    map: FxMap<Int, (u64, Int)>,
}

impl SqrtCache {
    fn get(&mut self, d: &Int, p: u64) -> Int {
        if let Some((q, s)) = self.map.get(d) {
            if *q >= p {
                return s.shr_floor(q - p);
            }
        }
        let s = d.shl(2 * p).isqrt();
        self.map.insert(d.clone(), (p, s.clone()));
        s
    }
}

/// Terms of an enclosure computed between two polls: a square root at a high precision
/// takes tens of microseconds, and a value can have hundreds of terms.
const ENCLOSE_TERMS_PER_POLL: usize = 8;

/// (lo, hi) with lo ≤ 2^p·x ≤ hi for an integer form x; hi − lo = x.spread(). Polls
/// `budget` every few terms (the enclosure was charged before it started).
fn enclose(
    x: &IPoly,
    p: u64,
    cache: &mut SqrtCache,
    budget: &mut dyn Budget,
) -> Result<(Int, Int), Halt> {
    let mut s = Int::ZERO;
    let mut pos = Int::ZERO;
    let mut neg = Int::ZERO;
    for (i, (c, d)) in x.terms.iter().enumerate() {
        if i % ENCLOSE_TERMS_PER_POLL == ENCLOSE_TERMS_PER_POLL - 1 {
            budget.poll()?;
        }
        if d.is_one() {
            s = s.add(&c.shl(p));
        } else {
            let r = cache.get(d, p);
            s = s.add(&c.mul(&r));
            if c.signum() > 0 {
                pos = pos.add(c);
            } else {
                neg = neg.add(c);
            }
        }
    }
    Ok((s.add(&neg), s.add(&pos)))
}

/// The first precision tried: enough that the enclosure of a value that is not
/// unusually close to zero excludes zero at once.
fn start_precision(x: &IPoly) -> u64 {
    48 + (64 - (x.terms.len() as u64).leading_zeros() as u64)
}

/// The last precision tried before the exact procedure takes over. Precision costs
/// one square root per term, so many-term values stop earlier (their exact splits
/// are rare, being needed only for values extraordinarily close to zero); wide
/// coefficients raise the cap, since cancellation scales with them. Values of at
/// most four terms go to the exact split early: it is cheap for them.
fn precision_cap(x: &IPoly) -> u64 {
    let n = x.terms.len().max(1) as u64;
    // Up to four terms the exact split is a handful of multiplications, cheaper than
    // square roots at high precision whatever the coefficients' width.
    if n <= 4 {
        return 256;
    }
    let base = ((1u64 << 17) / n).clamp(512, 8192);
    let bits = x
        .terms
        .iter()
        .map(|(c, _)| c.bit_length())
        .max()
        .unwrap_or(0);
    base.saturating_add(bits.saturating_mul(2))
}

/// The sign of x if a rigorous enclosure up to the precision cap excludes zero.
fn interval_sign(
    x: &IPoly,
    cache: &mut SqrtCache,
    budget: &mut dyn Budget,
) -> Result<Option<i32>, Halt> {
    let cap = precision_cap(x);
    let mut p = start_precision(x).min(cap);
    loop {
        budget.charge(enclosure_price(x, p))?;
        let (lo, hi) = enclose(x, p, cache, budget)?;
        if lo.signum() > 0 {
            return Ok(Some(1));
        }
        if hi.signum() < 0 {
            return Ok(Some(-1));
        }
        if p >= cap {
            return Ok(None);
        }
        p = p.saturating_mul(4).min(cap);
    }
}

/// A frame of the exact sign procedure (docs/reference/domains.md#number): x = u + v√b.
struct SignFrame {
    u: IPoly,
    v: IPoly,
    b: Int,
    stage: u8,
    su: i32,
}

/// Exact sign of an integer form: interval-first at every node, the recursive
/// procedure of docs/reference/domains.md#number as an explicit stack.
fn sign_ipoly(x: IPoly, cache: &mut SqrtCache, budget: &mut dyn Budget) -> Result<i32, Halt> {
    sign_ipoly_mode(x, cache, budget, true)
}

/// [`sign_ipoly`], optionally without enclosures (tests use that to check the exact
/// procedure on its own).
fn sign_ipoly_mode(
    x: IPoly,
    cache: &mut SqrtCache,
    budget: &mut dyn Budget,
    intervals: bool,
) -> Result<i32, Halt> {
    let mut stack: Vec<SignFrame> = Vec::new();
    let mut pending = x;
    loop {
        // Evaluate `pending`, pushing a frame when it needs the exact split.
        let mut ret = match quick_sign_int(&pending.terms) {
            Some(s) => s,
            None => match if intervals {
                interval_sign(&pending, cache, budget)?
            } else {
                None
            } {
                Some(s) => s,
                None => {
                    let b = pending.choose_split();
                    let (u, v) = pending.split(&b);
                    pending = u.clone();
                    stack.push(SignFrame {
                        u,
                        v,
                        b,
                        stage: 0,
                        su: 0,
                    });
                    continue;
                }
            },
        };
        // Hand the result up until a frame asks for another sub-sign.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(ret);
            };
            match top.stage {
                0 => {
                    top.su = ret;
                    top.stage = 1;
                    pending = top.v.clone();
                    break;
                }
                1 => {
                    let (su, sv) = (top.su, ret);
                    if su == 0 || su == sv {
                        ret = if su == 0 { sv } else { su };
                        stack.pop();
                        continue;
                    }
                    // Opposite signs: x has u's sign iff u² > b·v².
                    top.stage = 2;
                    let u = std::mem::take(&mut top.u);
                    let v = std::mem::take(&mut top.v);
                    pending = norm_step(&u, &v, &top.b, budget)?;
                    break;
                }
                _ => {
                    ret *= top.su;
                    stack.pop();
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Rational enclosures and exact floors (also used by the convergents of MCP-30;
// docs/mcp/envelope.md).

/// A value held as X/L (integer form X, positive integer L) with a square-root
/// cache, answering enclosures and exact signs of α·x + β.
pub(crate) struct Approximator {
    x: IPoly,
    l: Int,
    cache: SqrtCache,
}

impl Approximator {
    /// Prepare `a` for repeated enclosures.
    pub(crate) fn new(a: &Alg) -> Approximator {
        let (x, l) = IPoly::from_alg(a);
        Approximator {
            x,
            l,
            cache: SqrtCache::default(),
        }
    }

    /// (lo, hi, den) with lo/den ≤ x ≤ hi/den, den = L·2^p; the width
    /// (hi − lo)/den shrinks like 2^-p. The enclosure is charged to `budget` first.
    pub(crate) fn bounds(
        &mut self,
        p: u64,
        budget: &mut dyn Budget,
    ) -> Result<(Int, Int, Int), Halt> {
        budget.charge(enclosure_price(&self.x, p))?;
        let (lo, hi) = enclose(&self.x, p, &mut self.cache, budget)?;
        Ok((lo, hi, self.l.shl(p)))
    }

    /// (lo, hi) with lo/2^m ≤ x ≤ hi/2^m: the enclosure at precision `p` rounded outward
    /// to the denominator 2^m (its ends then take about m bits more than x, whatever
    /// the precision), by shifts and, when L > 1, one division by L.
    pub(crate) fn dyadic_bounds(
        &mut self,
        p: u64,
        m: u64,
        budget: &mut dyn Budget,
    ) -> Result<(Int, Int), Halt> {
        budget.charge(enclosure_price(&self.x, p))?;
        let (lo, hi) = enclose(&self.x, p, &mut self.cache, budget)?;
        // ⌊t·2^m / (L·2^p)⌋ = ⌊⌊t·2^m / 2^p⌋ / L⌋ for L > 0; a ceiling is the negated
        // floor of the negation.
        let floor = |t: &Int| -> Int {
            let scaled = if m <= p {
                t.shr_floor(p - m)
            } else {
                t.shl(m - p)
            };
            if self.l.is_one() {
                scaled
            } else {
                scaled.div_mod_floor(&self.l).0
            }
        };
        Ok((floor(&lo), floor(&hi.neg()).neg()))
    }

    /// A precision at which the enclosure of x is narrower than 2^-extra.
    pub(crate) fn precision_for(&self, extra: u64) -> u64 {
        self.x
            .spread()
            .bit_length()
            .saturating_sub(self.l.bit_length())
            + extra
    }

    /// The exact sign of α·x + β for integers α, β.
    pub(crate) fn sign_linear(
        &mut self,
        alpha: &Int,
        beta: &Int,
        budget: &mut dyn Budget,
    ) -> Result<i32, Halt> {
        // sign(α·X/L + β) = sign(α·X + β·L) since L > 0.
        let y = self.x.scale(alpha).add_int(&beta.mul(&self.l));
        sign_ipoly(y, &mut self.cache, budget)
    }

    /// ⌊x⌋ for an irrational x: the candidate from an enclosure, settled by an exact
    /// sign test when the enclosure straddles an integer.
    pub(crate) fn floor(&mut self, budget: &mut dyn Budget) -> Result<Int, Halt> {
        let mut p = self.precision_for(32);
        loop {
            let (lo, hi, den) = self.bounds(p, budget)?;
            let kl = lo.div_mod_floor(&den).0;
            let kh = hi.div_mod_floor(&den).0;
            if kl == kh {
                // kl ≤ lo/den ≤ x ≤ hi/den < kl + 1, and x is not an integer.
                return Ok(kl);
            }
            if kh.sub(&kl).is_one() {
                // x ∈ (kl, kh + 1): the floor is kh iff x > kh.
                let s = self.sign_linear(&Int::ONE, &kh.neg(), budget)?;
                return Ok(if s > 0 { kh } else { kl });
            }
            p = p.saturating_mul(2).saturating_add(32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Rat {
        Rat::new(Int::from(n), Int::from(d))
    }

    #[test]
    fn coprime_basis_splits_shared_factors() {
        let rads = [Int::from(6i64), Int::from(10i64), Int::from(15i64)];
        assert_eq!(
            coprime_basis(rads.iter()),
            vec![Int::from(2i64), Int::from(3i64), Int::from(5i64)]
        );
        let rads = [Int::from(35i64), Int::from(143i64), Int::from(35i64 * 143)];
        assert_eq!(
            coprime_basis(rads.iter()),
            vec![Int::from(35i64), Int::from(143i64)]
        );
    }

    #[test]
    fn display_forms() {
        let a = Alg::from_canonical_terms(vec![(r(1, 1), Int::ONE), (r(-1, 3), Int::from(5i64))]);
        assert_eq!(a.to_string(), "1/1-1/3*sqrt(5)");
        let a = Alg::from_canonical_terms(vec![
            (r(-1, 1), Int::from(2i64)),
            (r(-1, 1), Int::from(3i64)),
        ]);
        assert_eq!(a.to_string(), "-sqrt(2)-sqrt(3)");
    }
}
