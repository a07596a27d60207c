//! The numeric tower against the libraries it is built on: each program run through the
//! whole evaluator (parse, run, the envelope with its decimal text) on the GMP backend and
//! on the pure one, beside the same operations written directly with rug (the same GMP),
//! with num-bigint/num-rational, and with CPython's `fractions` where `python3` is
//! present. Every direct version must print the value the evaluator printed.
//!
//! Times are the CPU time of the measuring thread (CPython: `time.process_time()` around
//! the computation, its decimal text left out), the best of `AJISAI_BENCH_ROUNDS`
//! (default 3). Goals (issue 34): gmp at most 1.3x rug on every program; pure at least as
//! fast as CPython on every rational program.
//!
//! `cargo bench -p ajisai-golden --bench tower [name filter]`. Figures, not thresholds: the
//! machine is shared and noisy.

use ajisai_core::engine::{self, Options};
use ajisai_core::envelope;
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{builtin, with_backend, BackendKind};
use ajisai_core::Profile;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rug::{Integer, Rational};
use std::process::Command;
use std::time::Duration;

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

/// One program: its source (phrasebook Words it uses are defined first), and the same
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

/// The determinant by fraction-based Gaussian elimination (first non-zero pivot).
macro_rules! det {
    ($m:expr, $zero:expr, $one:expr) => {{
        let mut m = $m;
        let n = m.len();
        let mut det = $one;
        for col in 0..n {
            let Some(p) = (col..n).find(|&r| m[r][col] != $zero) else {
                det = $zero;
                break;
            };
            if p != col {
                m.swap(p, col);
                det = -det;
            }
            let pivot = m[col][col].clone();
            det *= &pivot;
            for r in col + 1..n {
                if m[r][col] == $zero {
                    continue;
                }
                let f = m[r][col].clone() / &pivot;
                for c in col..n {
                    let t = f.clone() * &m[col][c];
                    m[r][c] -= t;
                }
            }
        }
        det
    }};
}

fn hilbert_rug(n: i64) -> Vec<Vec<Rational>> {
    (1..=n)
        .map(|i| (1..=n).map(|j| Rational::from((1, i + j - 1))).collect())
        .collect()
}

fn hilbert_num(n: i64) -> Vec<Vec<BigRational>> {
    (1..=n)
        .map(|i| (1..=n).map(|j| num_ratio(1, i + j - 1)).collect())
        .collect()
}

const HILBERT: i64 = 16;

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
            rug: || {
                let d = det!(hilbert_rug(HILBERT), Rational::new(), Rational::from(1));
                rug_text(&d)
            },
            num: || {
                let d = det!(hilbert_num(HILBERT), BigRational::zero(), BigRational::one());
                num_text(&d)
            },
            python: "n = 16\nm = [[F(1, i + j - 1) for j in range(1, n + 1)] for i in range(1, n + 1)]\nr = F(1)\nfor c in range(n):\n    p = m[c][c]\n    r *= p\n    for i in range(c + 1, n):\n        f = m[i][c] / p\n        m[i] = [a - f * b for a, b in zip(m[i], m[c])]",
            rational: true,
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

/// The phrasebook's definition of `word` (one line of docs/phrasebook/phrasebook.ajisai).
fn phrasebook_definition(word: &str) -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/phrasebook/phrasebook.ajisai"
    );
    let text = std::fs::read_to_string(path).expect("the phrasebook");
    let defines = format!("'{word}' DEF");
    text.lines()
        .find(|l| l.trim_end().ends_with(&defines))
        .unwrap_or_else(|| panic!("the phrasebook defines {word}"))
        .to_string()
}

/// The evaluator's run of `source` on `kind`: its CPU time and the top of the stack.
fn evaluator(kind: BackendKind, source: &str) -> (Duration, String) {
    let backend = builtin(kind).expect("the backend is built in");
    with_backend(backend, || {
        let options = Options::new(Profile::CLI_LOCAL);
        let (took, (json, top)) = timed(|| {
            let report = engine::compute(source, &options);
            assert!(
                report.error.is_none(),
                "{source}: {:?}",
                report.error.as_ref().map(|e| &e.message)
            );
            let json = envelope::compute_json(&report, &HostFields::NONE);
            let top = report.stack.last().map(ajisai_core::display::display);
            (json, top)
        });
        assert!(json.len() > 2);
        (took, top.expect("a value"))
    })
}

/// CPython's `fractions` on `statement`: its CPU time, when `python3` is present.
fn cpython(statement: &str) -> Option<Duration> {
    let script = format!(
        "import time\nfrom fractions import Fraction as F\nt = time.process_time()\n{statement}\nprint(time.process_time() - t)\n"
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

/// The fastest of `rounds` runs (one only when a run takes more than a second: the
/// slowest direct versions take minutes).
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
        let mut source = String::new();
        for w in p.words {
            source.push_str(&phrasebook_definition(w));
            source.push(' ');
        }
        source.push_str(p.source);
        let (gmp, top) = best(rounds, || evaluator(BackendKind::Gmp, &source));
        let (pure, top_pure) = best(rounds, || evaluator(BackendKind::Pure, &source));
        assert_eq!(top, top_pure, "{}: the backends differ", p.name);
        let (rug, rug_top) = best(rounds, || timed(p.rug));
        assert_eq!(rug_top, top, "{}: rug computed another value", p.name);
        let (num, num_top) = best(rounds, || timed(p.num));
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
