//! The numeric tower against the libraries it is built on: each program run through the
//! whole evaluator (parse, run, the envelope with its decimal text) on the GMP backend and
//! on the pure one, beside the same operations written directly with rug (the same GMP),
//! with num-bigint/num-rational, and with CPython's `fractions` where `python3` is
//! present. Every direct version must print the value the evaluator printed.
//!
//! Times are the CPU time of the measuring thread (CPython: `time.process_time()` around
//! the computation, its decimal text left out), the best of `AJISAI_BENCH_ROUNDS`
//! (default 3) turns; the evaluator's two backends and the two direct versions take turns,
//! round by round, so a slow spell of the machine does not fall on one side of a ratio,
//! and in its turn each runs back to back for 20 ms (once when a run takes longer), so a
//! short program is not timed with the caches the others left. Goals (issue 34): gmp at
//! most 1.3x rug on every program; pure at least as fast as CPython on every rational
//! program.
//!
//! `cargo bench -p ajisai-golden --bench tower [name filter]`. Figures, not thresholds: the
//! machine is shared and noisy.

use ajisai_core::engine::{self, Options};
use ajisai_core::envelope;
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{builtin, with_backend, BackendKind};
use ajisai_core::phrasebook::Entry;
use ajisai_core::Profile;
use ajisai_host::phrasebook::ServedPhrasebook;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rug::{Integer, Rational};
use std::process::Command;
use std::time::Duration;

/// Allocations go through the allocator the binaries ship with (the counting layer, over
/// jemalloc in the native build), GMP's own included — the direct versions' too, so both
/// sides of a ratio allocate alike.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// CPU time of `f` on this thread, and its result.
fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = thread_cpu();
    let out = f();
    (thread_cpu() - start, out)
}

/// One program: its source (the phrasebook Words it uses defined as the server defines
/// them for a call that names them: the phrasebook's entries, parsed once), and the same
/// computation with rug, with num, and in CPython (a statement leaving the value in `r`).
struct Program {
    name: &'static str,
    source: &'static str,
    words: &'static [&'static str],
    rug: fn() -> String,
    num: fn() -> String,
    python: &'static str,
    /// Whether the program is rational arithmetic (the pure-vs-CPython goal).
    rational: bool,
}

fn rug_text(r: &Rational) -> String {
    format!("{}/{}", r.numer(), r.denom())
}

fn num_text(r: &BigRational) -> String {
    format!("{}/{}", r.numer(), r.denom())
}

fn num_ratio(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// The rational operations the direct versions of the matrix and algebraic programs need,
/// for rug's `Rational` and num's `BigRational` alike.
trait Coef: Clone + PartialEq {
    fn int(n: i64) -> Self;
    fn ratio(n: i64, d: i64) -> Self;
    fn is_zero(&self) -> bool;
    fn is_negative(&self) -> bool;
    fn add(&self, b: &Self) -> Self;
    fn sub(&self, b: &Self) -> Self;
    fn mul(&self, b: &Self) -> Self;
    fn div(&self, b: &Self) -> Self;
    fn neg(&self) -> Self;
    /// `n/d`, as the evaluator displays a rational.
    fn text(&self) -> String;
}

impl Coef for Rational {
    fn int(n: i64) -> Self {
        Rational::from(n)
    }
    fn ratio(n: i64, d: i64) -> Self {
        Rational::from((n, d))
    }
    fn is_zero(&self) -> bool {
        self.cmp0() == std::cmp::Ordering::Equal
    }
    fn is_negative(&self) -> bool {
        self.cmp0() == std::cmp::Ordering::Less
    }
    fn add(&self, b: &Self) -> Self {
        Rational::from(self + b)
    }
    fn sub(&self, b: &Self) -> Self {
        Rational::from(self - b)
    }
    fn mul(&self, b: &Self) -> Self {
        Rational::from(self * b)
    }
    fn div(&self, b: &Self) -> Self {
        Rational::from(self / b)
    }
    fn neg(&self) -> Self {
        Rational::from(-self)
    }
    fn text(&self) -> String {
        rug_text(self)
    }
}

impl Coef for BigRational {
    fn int(n: i64) -> Self {
        BigRational::from_integer(BigInt::from(n))
    }
    fn ratio(n: i64, d: i64) -> Self {
        num_ratio(n, d)
    }
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn is_negative(&self) -> bool {
        num_traits::Signed::is_negative(self)
    }
    fn add(&self, b: &Self) -> Self {
        self + b
    }
    fn sub(&self, b: &Self) -> Self {
        self - b
    }
    fn mul(&self, b: &Self) -> Self {
        self * b
    }
    fn div(&self, b: &Self) -> Self {
        self / b
    }
    fn neg(&self) -> Self {
        -self
    }
    fn text(&self) -> String {
        num_text(self)
    }
}

/// The determinant the phrasebook's DET computes, the same way: fraction-free (Bareiss)
/// elimination on the first row with a non-zero first element, the sign following the
/// pivot row's position.
fn det_bareiss<T: Coef>(m: Vec<Vec<T>>) -> T {
    let mut a = m;
    let mut previous = T::int(1);
    let mut sign = T::int(1);
    while a.len() > 1 {
        let Some(i) = a.iter().position(|r| !r[0].is_zero()) else {
            return T::int(0);
        };
        let row = a[i].clone();
        let pivot = row[0].clone();
        if i % 2 == 1 {
            sign = sign.neg();
        }
        let rest: Vec<T> = row[1..].to_vec();
        a = a
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != i)
            .map(|(_, r)| {
                (1..r.len())
                    .map(|c| r[c].mul(&pivot).sub(&r[0].mul(&rest[c - 1])).div(&previous))
                    .collect()
            })
            .collect();
        previous = pivot;
    }
    sign.mul(&a[0][0])
}

/// The solution the phrasebook's SOLVE computes, the same way: eliminate the first unknown
/// with the first row whose first element is not zero, solve the rest, substitute back.
fn solve<T: Coef>(a: Vec<Vec<T>>, b: Vec<T>) -> Vec<T> {
    if a.is_empty() {
        return Vec::new();
    }
    let i = a
        .iter()
        .position(|r| !r[0].is_zero())
        .expect("a non-singular system");
    let (row, pivot, pb) = (a[i].clone(), a[i][0].clone(), b[i].clone());
    let rest: Vec<T> = row[1..].to_vec();
    let mut reduced = Vec::with_capacity(a.len() - 1);
    let mut reduced_b = Vec::with_capacity(a.len() - 1);
    for (k, r) in a.iter().enumerate() {
        if k == i {
            continue;
        }
        let f = r[0].div(&pivot);
        reduced.push(
            (1..r.len())
                .map(|c| r[c].sub(&rest[c - 1].mul(&f)))
                .collect(),
        );
        reduced_b.push(b[k].sub(&f.mul(&pb)));
    }
    let x = solve(reduced, reduced_b);
    let mut dot = T::int(0);
    for (r, v) in rest.iter().zip(&x) {
        dot = dot.add(&r.mul(v));
    }
    let mut out = vec![pb.sub(&dot).div(&pivot)];
    out.extend(x);
    out
}

fn hilbert<T: Coef>(n: i64) -> Vec<Vec<T>> {
    (1..=n)
        .map(|i| (1..=n).map(|j| T::ratio(1, i + j - 1)).collect())
        .collect()
}

fn vector_text<T: Coef>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(T::text).collect();
    format!("[ {} ]", items.join(" "))
}

/// An element of ℚ(√p₁, …, √pₖ): its 2ᵏ rational coefficients, indexed by the set of
/// primes (a bit mask) whose product is the term's radicand.
#[derive(Clone)]
struct Multiquadratic<T> {
    primes: Vec<i64>,
    coefs: Vec<T>,
}

impl<T: Coef> Multiquadratic<T> {
    fn radicand(&self, mask: usize) -> i64 {
        (0..self.primes.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| self.primes[i])
            .product()
    }

    fn rational(primes: &[i64], c: T) -> Self {
        let mut coefs = vec![T::int(0); 1 << primes.len()];
        coefs[0] = c;
        Multiquadratic {
            primes: primes.to_vec(),
            coefs,
        }
    }

    /// 1 + √p₁ + … (with `one`) or √p₁ + … (without).
    fn sum_of_roots(primes: &[i64], one: bool) -> Self {
        let mut x = Self::rational(primes, T::int(i64::from(one)));
        for i in 0..primes.len() {
            x.coefs[1 << i] = T::int(1);
        }
        x
    }

    /// The schoolbook product: √P(m₁)·√P(m₂) = P(m₁ ∧ m₂)·√P(m₁ ⊕ m₂).
    fn mul(&self, other: &Self) -> Self {
        let mut out = Self::rational(&self.primes, T::int(0));
        for (m1, a) in self.coefs.iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            for (m2, b) in other.coefs.iter().enumerate() {
                if b.is_zero() {
                    continue;
                }
                let k = T::int(self.radicand(m1 & m2));
                out.coefs[m1 ^ m2] = out.coefs[m1 ^ m2].add(&a.mul(b).mul(&k));
            }
        }
        out
    }

    fn pow(&self, mut n: u64) -> Self {
        let mut base = self.clone();
        let mut acc = Self::rational(&self.primes, T::int(1));
        while n > 0 {
            if n & 1 == 1 {
                acc = acc.mul(&base);
            }
            n >>= 1;
            if n > 0 {
                base = base.mul(&base);
            }
        }
        acc
    }

    /// 1/x by conjugates: multiplying by the conjugate over one prime leaves a number
    /// without that root, so after every prime the denominator is rational.
    fn recip(&self) -> Self {
        let mut numerator = Self::rational(&self.primes, T::int(1));
        let mut y = self.clone();
        for i in 0..self.primes.len() {
            let mut conjugate = y.clone();
            for (m, c) in conjugate.coefs.iter_mut().enumerate() {
                if m & (1 << i) != 0 {
                    *c = c.neg();
                }
            }
            numerator = numerator.mul(&conjugate);
            y = y.mul(&conjugate);
        }
        let norm = y.coefs[0].clone();
        for c in &mut numerator.coefs {
            *c = c.div(&norm);
        }
        numerator
    }

    /// The evaluator's canonical display: terms by ascending radicand, the rational part
    /// as `n/d`, the others as `n/d*sqrt(r)`.
    fn text(&self) -> String {
        let mut terms: Vec<(i64, &T)> = self
            .coefs
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_zero())
            .map(|(m, c)| (self.radicand(m), c))
            .collect();
        terms.sort_by_key(|t| t.0);
        let mut out = String::new();
        for (i, (r, c)) in terms.iter().enumerate() {
            if i > 0 && !c.is_negative() {
                out.push('+');
            }
            out.push_str(&c.text());
            if *r != 1 {
                out.push_str(&format!("*sqrt({r})"));
            }
        }
        out
    }
}

/// The same multiquadratic arithmetic in Python, for CPython's `fractions`.
const PYTHON_MULTIQUADRATIC: &str = "def rad(ps, m):\n    r = 1\n    for i, p in enumerate(ps):\n        if m >> i & 1:\n            r *= p\n    return r\ndef mul(ps, a, b):\n    out = [F(0)] * len(a)\n    for m1, x in enumerate(a):\n        if x:\n            for m2, y in enumerate(b):\n                if y:\n                    out[m1 ^ m2] += x * y * rad(ps, m1 & m2)\n    return out\n";

const HILBERT: i64 = 16;
const SOLVE_SIZE: i64 = 30;
const ROOTS_POWER: u64 = 12000;
const BERNOULLI: i64 = 300;
const ROOT_PRIMES: [i64; 6] = [2, 3, 5, 7, 11, 13];

fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "harmonic H(20000)",
            source: "1 20000 RANGE -1 POW SUM",
            words: &[],
            rug: || {
                let mut s = Rational::new();
                for k in 1..=20000i64 {
                    s += Rational::from((1, k));
                }
                rug_text(&s)
            },
            num: || {
                let mut s = BigRational::zero();
                for k in 1..=20000i64 {
                    s += num_ratio(1, k);
                }
                num_text(&s)
            },
            python: "r = sum(F(1, k) for k in range(1, 20001))",
            rational: true,
        },
        Program {
            name: "sum 1/k^2, k <= 8000",
            source: "1 8000 RANGE 2 POW -1 POW SUM",
            words: &[],
            rug: || {
                let mut s = Rational::new();
                for k in 1..=8000i64 {
                    s += Rational::from((1, k * k));
                }
                rug_text(&s)
            },
            num: || {
                let mut s = BigRational::zero();
                for k in 1..=8000i64 {
                    s += num_ratio(1, k * k);
                }
                num_text(&s)
            },
            python: "r = sum(F(1, k * k) for k in range(1, 8001))",
            rational: true,
        },
        Program {
            name: "sum k/(k+1)^2, k <= 8000",
            source: "1 8000 RANGE { 'K' BIND K K 1 + 2 POW / } MAP SUM",
            words: &[],
            rug: || {
                let mut s = Rational::new();
                for k in 1..=8000i64 {
                    s += Rational::from((k, (k + 1) * (k + 1)));
                }
                rug_text(&s)
            },
            num: || {
                let mut s = BigRational::zero();
                for k in 1..=8000i64 {
                    s += num_ratio(k, (k + 1) * (k + 1));
                }
                num_text(&s)
            },
            python: "r = sum(F(k, (k + 1) ** 2) for k in range(1, 8001))",
            rational: true,
        },
        Program {
            name: "variance of k/(k+7), k <= 1000",
            source: "1 1000 RANGE { 'K' BIND K K 7 + / } MAP 'XS' BIND XS SUM 1000 / 'M' BIND XS { M - 2 POW } MAP SUM 1000 /",
            words: &[],
            rug: || {
                let xs: Vec<Rational> = (1..=1000i64).map(|k| Rational::from((k, k + 7))).collect();
                let mut m = Rational::new();
                for x in &xs {
                    m += x;
                }
                m /= 1000;
                let mut v = Rational::new();
                for x in &xs {
                    let d = Rational::from(x - &m);
                    v += Rational::from(d.square_ref());
                }
                v /= 1000;
                rug_text(&v)
            },
            num: || {
                let xs: Vec<BigRational> = (1..=1000i64).map(|k| num_ratio(k, k + 7)).collect();
                let mut m = BigRational::zero();
                for x in &xs {
                    m += x;
                }
                m /= BigRational::from_integer(BigInt::from(1000));
                let mut v = BigRational::zero();
                for x in &xs {
                    let d = x - &m;
                    v += &d * &d;
                }
                v /= BigRational::from_integer(BigInt::from(1000));
                num_text(&v)
            },
            python: "xs = [F(k, k + 7) for k in range(1, 1001)]\nm = sum(xs) / 1000\nr = sum((x - m) ** 2 for x in xs) / 1000",
            rational: true,
        },
        Program {
            name: "Newton for sqrt 2, 18 steps",
            source: "1 18 RANGE 1 { 'K' BIND 'X' BIND X 2 X / + 2 / } FOLD",
            words: &[],
            rug: || {
                let mut x = Rational::from(1);
                for _ in 0..18 {
                    let q = Rational::from(2) / &x;
                    x = (x + q) / 2;
                }
                rug_text(&x)
            },
            num: || {
                let two = BigRational::from_integer(BigInt::from(2));
                let mut x = BigRational::one();
                for _ in 0..18 {
                    x = (&x + &two / &x) / &two;
                }
                num_text(&x)
            },
            python: "r = F(1)\nfor _ in range(18):\n    r = (r + 2 / r) / 2",
            rational: true,
        },
        Program {
            name: "convergents of sqrt 2, 20000 terms",
            source: "1 20000 RANGE 1 { 'K' BIND 'X' BIND 1 1 X + / 1 + } FOLD",
            words: &[],
            rug: || {
                let mut x = Rational::from(1);
                for _ in 0..20000 {
                    x = Rational::from(1) / (x + 1u32) + 1u32;
                }
                rug_text(&x)
            },
            num: || {
                let one = BigRational::one();
                let mut x = BigRational::one();
                for _ in 0..20000 {
                    x = &one / (&x + &one) + &one;
                }
                num_text(&x)
            },
            python: "r = F(1)\nfor _ in range(20000):\n    r = 1 / (1 + r) + 1",
            rational: true,
        },
        Program {
            name: "DET of the 16x16 Hilbert matrix",
            source: "1 16 RANGE { 'I' BIND 1 16 RANGE { I + 1 - -1 POW } MAP } MAP DET",
            words: &["DET"],
            rug: || det_bareiss(hilbert::<Rational>(HILBERT)).text(),
            num: || det_bareiss(hilbert::<BigRational>(HILBERT)).text(),
            python: "n = 16\na = [[F(1, i + j - 1) for j in range(1, n + 1)] for i in range(1, n + 1)]\np = F(1)\nwhile len(a) > 1:\n    row = a[0]\n    a = [[(r[c] * row[0] - r[0] * row[c]) / p for c in range(1, len(r))] for r in a[1:]]\n    p = row[0]\nr = a[0][0]",
            rational: true,
        },
        Program {
            name: "SOLVE of the 30x30 Hilbert system",
            source: "1 30 RANGE { 'I' BIND 1 30 RANGE { I + 1 - -1 POW } MAP } MAP 1 30 RANGE 0 * 1 + SOLVE",
            words: &["SOLVE"],
            rug: || {
                let b = vec![Rational::from(1); SOLVE_SIZE as usize];
                vector_text(&solve(hilbert::<Rational>(SOLVE_SIZE), b))
            },
            num: || {
                let b = vec![BigRational::one(); SOLVE_SIZE as usize];
                vector_text(&solve(hilbert::<BigRational>(SOLVE_SIZE), b))
            },
            python: "def solve(a, b):\n    if not a:\n        return []\n    row, pv, pb = a[0], a[0][0], b[0]\n    rest = row[1:]\n    fs = [r[0] / pv for r in a[1:]]\n    x = solve([[v - w * f for v, w in zip(r[1:], rest)] for r, f in zip(a[1:], fs)], [c - f * pb for c, f in zip(b[1:], fs)])\n    return [(pb - sum(w * v for w, v in zip(rest, x))) / pv] + x\nn = 30\nr = solve([[F(1, i + j - 1) for j in range(1, n + 1)] for i in range(1, n + 1)], [F(1)] * n)",
            rational: true,
        },
        Program {
            name: "Bernoulli B(300), Akiyama-Tanigawa",
            source: "1 300 RANGE 1 301 RANGE -1 POW { 'K' BIND 'A' BIND A LENGTH 'L' BIND A L 1 - TAKE A 1 L - TAKE - 1 L 1 - RANGE * } FOLD 0 GET",
            words: &[],
            rug: || bernoulli::<Rational>(BERNOULLI).text(),
            num: || bernoulli::<BigRational>(BERNOULLI).text(),
            python: "a = [F(1, j) for j in range(1, 302)]\nfor _ in range(300):\n    a = [(j + 1) * (a[j] - a[j + 1]) for j in range(len(a) - 1)]\nr = a[0]",
            rational: true,
        },
        Program {
            name: "(sqrt 2 + sqrt 3)^12000",
            source: "2 SQRT 3 SQRT + 12000 POW",
            words: &[],
            rug: || Multiquadratic::<Rational>::sum_of_roots(&[2, 3], false).pow(ROOTS_POWER).text(),
            num: || Multiquadratic::<BigRational>::sum_of_roots(&[2, 3], false).pow(ROOTS_POWER).text(),
            python: "ps = [2, 3]\nx = [F(0), F(1), F(1), F(0)]\nr = [F(1), F(0), F(0), F(0)]\nn = 12000\nwhile n:\n    if n & 1:\n        r = mul(ps, r, x)\n    n >>= 1\n    if n:\n        x = mul(ps, x, x)",
            rational: false,
        },
        Program {
            name: "1/(1 + sqrt 2 + ... + sqrt 13)",
            source: "1 2 SQRT 3 SQRT 5 SQRT 7 SQRT 11 SQRT 13 SQRT + + + + + + -1 POW",
            words: &[],
            rug: || Multiquadratic::<Rational>::sum_of_roots(&ROOT_PRIMES, true).recip().text(),
            num: || Multiquadratic::<BigRational>::sum_of_roots(&ROOT_PRIMES, true).recip().text(),
            python: "ps = [2, 3, 5, 7, 11, 13]\ny = [F(0)] * 64\ny[0] = F(1)\nfor i in range(6):\n    y[1 << i] = F(1)\nr = [F(0)] * 64\nr[0] = F(1)\nfor i in range(6):\n    c = [-v if m >> i & 1 else v for m, v in enumerate(y)]\n    r = mul(ps, r, c)\n    y = mul(ps, y, c)\nr = [v / y[0] for v in r]",
            rational: false,
        },
        Program {
            name: "factorial 20000 by FOLD, decimals",
            source: "1 20000 RANGE 1 { * } FOLD",
            words: &[],
            rug: || {
                let mut f = Integer::from(1);
                for k in 1..=20000u32 {
                    f *= k;
                }
                format!("{f}/1")
            },
            num: || {
                let mut f = BigInt::one();
                for k in 1..=20000u32 {
                    f *= k;
                }
                format!("{f}/1")
            },
            python: "r = 1\nfor k in range(1, 20001):\n    r *= k",
            rational: false,
        },
        Program {
            name: "3^300000 * 7^150000, decimals",
            source: "3 300000 POW 7 150000 POW *",
            words: &[],
            rug: || {
                let p = Integer::from(Integer::u_pow_u(3, 300000))
                    * Integer::from(Integer::u_pow_u(7, 150000));
                format!("{p}/1")
            },
            num: || {
                let p = num_traits::pow(BigInt::from(3), 300000)
                    * num_traits::pow(BigInt::from(7), 150000);
                format!("{p}/1")
            },
            python: "r = 3 ** 300000 * 7 ** 150000",
            rational: false,
        },
    ]
}

/// The phrasebook's entries for `words` (and the Words they use), as the server defines
/// them before a call that names them (`compute`'s `phrasebook` argument): parsed once,
/// not with every run.
fn phrasebook_prelude(words: &[&str]) -> Vec<Entry> {
    let book = ServedPhrasebook::embedded().expect("the embedded phrasebook");
    let names: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let prelude = book.prelude(&names);
    assert_eq!(
        prelude.is_empty(),
        words.is_empty(),
        "the phrasebook defines {words:?}"
    );
    prelude
}

/// The evaluator's run of `source` on `kind`: its CPU time (parse, run, the envelope) and
/// the top of the stack as the envelope displays it (read after the clock stops, so the
/// measured run converts each wide integer to decimal once, as a real call does).
fn evaluator(kind: BackendKind, source: &str, prelude: &[&Entry]) -> (Duration, String) {
    let backend = builtin(kind).expect("the backend is built in");
    with_backend(backend, || {
        let options = Options::new(Profile::CLI_LOCAL);
        let (took, json) = timed(|| {
            let report = engine::compute_in(source, prelude, &options);
            assert!(
                report.error.is_none(),
                "{source}: {:?}",
                report.error.as_ref().map(|e| &e.message)
            );
            envelope::compute_json(&report, &HostFields::NONE)
        });
        let envelope: serde_json::Value = serde_json::from_str(&json).expect("an envelope");
        let top = envelope["stackDisplay"]
            .as_array()
            .and_then(|d| d.last())
            .and_then(|t| t.as_str())
            .expect("a value")
            .to_string();
        (took, top)
    })
}

/// B(n) as the Akiyama–Tanigawa algorithm computes it (the program's way: n rounds of
/// a(j) ← (j + 1)·(a(j) − a(j + 1)) on a(j) = 1/(j + 1)).
fn bernoulli<T: Coef>(n: i64) -> T {
    let mut a: Vec<T> = (1..=n + 1).map(|j| T::ratio(1, j)).collect();
    for _ in 0..n {
        a = (0..a.len() - 1)
            .map(|j| T::int(j as i64 + 1).mul(&a[j].sub(&a[j + 1])))
            .collect();
    }
    a.swap_remove(0)
}

/// CPython's `fractions` on `statement`: its CPU time, when `python3` is present.
fn cpython(statement: &str) -> Option<Duration> {
    let script = format!(
        "import time\nfrom fractions import Fraction as F\n{PYTHON_MULTIQUADRATIC}t = time.process_time()\n{statement}\nprint(time.process_time() - t)\n"
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let secs: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}

/// The fastest of `rounds` turns of each contestant, the contestants taking turns round by
/// round, so that a slow or fast spell of this shared machine falls on all of them alike
/// instead of on whichever ran during it. In a turn a contestant runs back to back until
/// [`TURN`] has passed (at least once), so that what the others did in between (their
/// code and data in the caches) is not counted against a run of a fraction of a
/// millisecond. A contestant whose run took more than a second runs no more (the slowest
/// direct versions take minutes).
fn best_interleaved(
    rounds: usize,
    contestants: &mut [&mut dyn FnMut() -> (Duration, String)],
) -> Vec<(Duration, String)> {
    let mut best: Vec<Option<(Duration, String)>> = vec![None; contestants.len()];
    for _ in 0..rounds {
        for (f, so_far) in contestants.iter_mut().zip(best.iter_mut()) {
            if so_far
                .as_ref()
                .is_some_and(|b| b.0 > Duration::from_secs(1))
            {
                continue;
            }
            let mut spent = Duration::ZERO;
            while spent < TURN {
                let next = f();
                spent += next.0;
                if so_far.as_ref().is_none_or(|b| next.0 < b.0) {
                    *so_far = Some(next);
                }
            }
        }
    }
    best.into_iter()
        .map(|b| b.expect("one run at least"))
        .collect()
}

/// How long a contestant runs back to back in one turn of [`best_interleaved`].
const TURN: Duration = Duration::from_millis(20);

/// The fastest of `rounds` runs (one only when a run takes more than a second).
fn best<T>(rounds: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut best = f();
    for _ in 1..rounds {
        if best.0 > Duration::from_secs(1) {
            break;
        }
        let next = f();
        if next.0 < best.0 {
            best = next;
        }
    }
    best
}

fn ms(d: Duration) -> String {
    format!("{:9.2}", d.as_secs_f64() * 1e3)
}

fn main() {
    ajisai_numerics_gmp::route_allocations();
    ajisai_host::memory::install();
    ajisai_golden::link();
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let rounds: usize = std::env::var("AJISAI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let with_python = cpython("r = 1").is_some();
    println!(
        "the numeric tower, CPU ms (best of {rounds}){}:",
        if with_python {
            ""
        } else {
            "; python3 not found, CPython skipped"
        }
    );
    println!(
        "  {:<36} {:>9} {:>9} {:>9} {:>9} {:>9}  {:>8} {:>10} {:>9}",
        "program", "gmp", "pure", "rug", "num", "CPython", "gmp/rug", "pure/CPy", "pure/num"
    );
    let mut worst_gmp = 0f64;
    let mut worst_pure = 0f64;
    for p in programs() {
        if filter.as_deref().is_some_and(|f| !p.name.contains(f)) {
            continue;
        }
        let entries = phrasebook_prelude(p.words);
        let prelude: Vec<&Entry> = entries.iter().collect();
        let source = p.source;
        let measured = best_interleaved(
            rounds,
            &mut [
                &mut || evaluator(BackendKind::Gmp, source, &prelude),
                &mut || evaluator(BackendKind::Pure, source, &prelude),
                &mut || timed(p.rug),
                &mut || timed(p.num),
            ],
        );
        let [(gmp, top), (pure, top_pure), (rug, rug_top), (num, num_top)] =
            <[_; 4]>::try_from(measured).expect("four contestants");
        assert_eq!(top, top_pure, "{}: the backends differ", p.name);
        assert_eq!(rug_top, top, "{}: rug computed another value", p.name);
        assert_eq!(num_top, top, "{}: num computed another value", p.name);
        let python = if with_python {
            best(rounds, || (cpython(p.python).unwrap_or(Duration::MAX), ())).0
        } else {
            Duration::MAX
        };
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
        let gmp_rug = ratio(gmp, rug);
        worst_gmp = worst_gmp.max(gmp_rug);
        let pure_py = if with_python && python != Duration::MAX {
            let r = ratio(pure, python);
            if p.rational {
                worst_pure = worst_pure.max(r);
            }
            format!("{r:10.2}")
        } else {
            format!("{:>10}", "-")
        };
        println!(
            "  {:<36} {} {} {} {} {}  {:8.2} {} {:9.2}",
            p.name,
            ms(gmp),
            ms(pure),
            ms(rug),
            ms(num),
            if python == Duration::MAX {
                format!("{:>9}", "-")
            } else {
                ms(python)
            },
            gmp_rug,
            pure_py,
            ratio(pure, num)
        );
    }
    println!(
        "  worst gmp/rug {worst_gmp:.2} (goal <= 1.3); worst pure/CPython on rational programs {worst_pure:.2} (goal <= 1.0)"
    );
}
