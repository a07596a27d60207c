//! Backend parity (MCP.md MCP-15, MCP-90): every program gives byte-identical envelopes
//! on every numeric backend this build links — `pure`, the built-in `gmp`, and `gmp`
//! behind the plugin interface (`ajisai_golden::backends`).
//!
//! The conformance corpus and the seed cases run on every backend in their own tests
//! (`run_all` compares the envelopes); this file adds the specification's examples,
//! hand-written regression programs, and a seeded generator of random programs mixing
//! small and huge integers, fractions, algebraic numbers and Vectors under every
//! arithmetic and comparison Word. `AJISAI_PARITY_PROGRAMS` sets the count (default
//! 10,000), `AJISAI_PARITY_SEED` the seed (CI derives it from the commit, so each
//! change explores new programs while any failure stays reproducible from the printed
//! seed and index).

use ajisai_core::engine::{compute, Options};
use ajisai_core::numerics::with_backend;
use ajisai_core::Profile;
use ajisai_golden::{backends, envelope, link, on_big_stack, Backend, Rng};
use serde_json::Value as Json;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `source` on every backend: the common envelope, or a description of the first
/// disagreement (or panic).
fn everywhere(source: &str, profile: &Profile, backends: &[Backend]) -> Result<String, String> {
    let mut first: Option<(&str, String)> = None;
    for b in backends {
        let got = catch_unwind(AssertUnwindSafe(|| {
            with_backend(b.numerics, || {
                envelope(&compute(source, &Options::new(profile.clone())))
            })
        }));
        let got = match got {
            Ok(e) => e,
            Err(_) => return Err(format!("{source}\n    panicked on {}", b.label)),
        };
        match &first {
            None => first = Some((b.label, got)),
            Some((label, want)) if *want != got => {
                let at = want
                    .bytes()
                    .zip(got.bytes())
                    .position(|(x, y)| x != y)
                    .unwrap_or(want.len().min(got.len()));
                let from = at.saturating_sub(60);
                let clip = |s: &str| {
                    s.get(from..(at + 60).min(s.len()))
                        .unwrap_or("")
                        .to_string()
                };
                return Err(format!(
                    "{source}\n    {label}: …{}…\n    {}: …{}…",
                    clip(want),
                    b.label,
                    clip(&got)
                ));
            }
            Some(_) => {}
        }
    }
    Ok(first.map(|(_, e)| e).unwrap_or_default())
}

fn assert_parity(what: &str, sources: Vec<String>, profile: Profile) {
    link();
    let found = on_big_stack(move || {
        let backends = backends();
        let mut found = Vec::new();
        for s in &sources {
            if let Err(d) = everywhere(s, &profile, &backends) {
                found.push(d);
            }
        }
        (sources.len(), found)
    });
    assert!(
        found.1.is_empty(),
        "{what}: {} of {} programs differ between backends:\n{}",
        found.1.len(),
        found.0,
        found.1.join("\n")
    );
}

#[test]
fn this_build_compares_more_than_one_backend() {
    let labels: Vec<&str> = backends().iter().map(|b| b.label).collect();
    let mut expected = Vec::new();
    // The built-in GMP is linked when any crate of this build enables it.
    if ajisai_numerics_gmp::BUILTIN {
        expected.push("gmp");
    }
    expected.push("pure");
    if cfg!(feature = "gmp") {
        expected.push("gmp-plugin");
    }
    assert_eq!(labels, expected);
}

/// Programs that once exposed (or are most likely to expose) a representation leak:
/// limb and sign edges, i64/u64/u128 boundaries, truncating division signs, decimal
/// text of wide values, gcd-heavy sums, roots and powers of wide values.
const REGRESSIONS: &[&str] = &[
    "9223372036854775807 1 +",
    "-9223372036854775808 1 -",
    "-9223372036854775808 -1 *",
    "-9223372036854775808 -1 /",
    "-9223372036854775808 -1 MOD",
    "18446744073709551615 1 +",
    "18446744073709551616 NEG 1 -",
    "340282366920938463463374607431768211456 1 -",
    "340282366920938463463374607431768211455 SQRT",
    "2 128 POW SQRT",
    "2 129 POW SQRT",
    "2 200 POW 1 + 2 200 POW MOD",
    "-7 100 POW 3 MOD",
    "7 100 POW NEG 3 MOD",
    "7 100 POW 3 NEG MOD",
    "-7 100 POW NEG 10 50 POW MOD",
    "10 40 POW 3 / FLOOR",
    "10 40 POW NEG 3 / FLOOR",
    "10 40 POW NEG 3 / ROUND",
    "10 40 POW 7 / 2 40 POW QUANTIZE",
    "1 2000 RANGE -1 POW SUM",
    "1 300 RANGE -1 POW SUM STR",
    "1 100 RANGE 3 SQRT * 1 + -1 POW SUM",
    "1 200 RANGE 1 'MUL' FOLD STR NUM",
    "3 999 POW 2 999 POW / 1/3 POW",
    "2 SQRT 3 SQRT + 40 POW",
    "2 SQRT 10 30 POW * 3 SQRT 10 30 POW NEG * + 5 POW",
    "5 SQRT 1 + 2 / 60 POW FLOOR",
    "5 SQRT 1 + 2 / 60 POW 1 10 20 POW / QUANTIZE",
    "10 50 POW 2 * SQRT 10 25 POW 1 + <",
    "2 SQRT 10 30 POW * 1 + 3 SQRT 10 30 POW * >",
    "10 40 POW NEG 3 1024 / 2 COLLECT JSON-ENCODE",
    "12345678901234567890123456789 JSON-ENCODE",
    "'123456789012345678901234567890' NUM 1 +",
    "'-0.000000000000000000000000000001' NUM 10 30 POW *",
    "2 262143 POW",
    "2 262144 POW",
    "1/2 262144 POW",
    "99999999999999999999999999999999999999 99999999999999999999999999999999999999 *",
];

#[test]
fn regression_programs_agree() {
    assert_parity(
        "regressions",
        REGRESSIONS.iter().map(|s| s.to_string()).collect(),
        Profile::MCP_LOCAL_STDIO,
    );
}

#[test]
fn every_specification_example_agrees() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-examples.json");
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("readable"))
        .expect("valid JSON");
    let sources: Vec<String> = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["source"].as_str().expect("source").to_string())
        .collect();
    assert!(sources.len() >= 595);
    assert_parity("specification examples", sources, Profile::MCP_LOCAL_STDIO);
}

/// Integers at the machine boundaries, where the inline fast path hands over to the
/// backend (i64, u64, i128/u128 edges).
const EDGES: &[&str] = &[
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "170141183460469231731687303715884105727",
    "-170141183460469231731687303715884105728",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "4294967296",
    "4611686018427387904",
];

/// Program generator: every fragment pushes exactly one value.
struct Gen(Rng);

impl Gen {
    fn digits(&mut self, len: u64) -> String {
        let mut s = String::with_capacity(len as usize);
        s.push(char::from(b'1' + self.0.below(9) as u8));
        for _ in 1..len {
            s.push(char::from(b'0' + self.0.below(10) as u8));
        }
        s
    }

    fn digits_in(&mut self, lo: i64, hi: i64) -> String {
        let len = self.0.between(lo, hi) as u64;
        self.digits(len)
    }

    fn sign(&mut self) -> &'static str {
        if self.0.chance(35) {
            "-"
        } else {
            ""
        }
    }

    fn small(&mut self) -> String {
        self.0.between(-20, 20).to_string()
    }

    fn huge_literal(&mut self) -> String {
        let len = match self.0.below(10) {
            0..=5 => self.0.between(19, 60),
            6..=8 => self.0.between(60, 400),
            _ => self.0.between(400, 1500),
        } as u64;
        format!("{}{}", self.sign(), self.digits(len))
    }

    /// An integer: small, at a boundary, a wide literal, or computed wide.
    fn integer(&mut self) -> String {
        match self.0.below(12) {
            0..=3 => self.small(),
            4 | 5 => self.0.pick(EDGES).to_string(),
            6..=8 => self.huge_literal(),
            9 => format!(
                "{} {} POW",
                self.0.pick(&["2", "3", "-3", "7", "10", "-2", "12345"]),
                self.0.between(40, 2500)
            ),
            10 => format!(
                "{} {} POW {} {}",
                self.0.pick(&["2", "3", "10", "-7"]),
                self.0.between(63, 700),
                self.small(),
                self.0.pick(&["+", "-", "*"])
            ),
            _ => format!("{} {} *", self.huge_literal(), self.huge_literal()),
        }
    }

    /// A rational that is not an integer (usually).
    fn fraction(&mut self) -> String {
        match self.0.below(6) {
            0 => format!("{}/{}", self.0.between(-50, 50), self.0.between(1, 60)),
            1 => format!("{}/{}", self.huge_literal(), self.digits_in(1, 80)),
            2 => format!(
                "{}{}.{}e{}",
                self.sign(),
                self.digits_in(1, 30),
                self.digits_in(1, 30),
                self.0.between(-60, 60)
            ),
            3 => format!("{} {} /", self.integer(), self.integer()),
            4 => format!("1 {} /", self.integer()),
            _ => format!(
                "1 {} {} POW /",
                self.0.pick(&["3", "7", "-11"]),
                self.0.between(30, 400)
            ),
        }
    }

    /// An algebraic value (or a rational when the root happens to be exact).
    fn algebraic(&mut self) -> String {
        let radicand = |g: &mut Gen| -> String {
            match g.0.below(5) {
                0..=2 => {
                    g.0.pick(&[
                        "2", "3", "5", "6", "7", "10", "11", "13", "1/2", "2/3", "8", "12", "50",
                    ])
                    .to_string()
                }
                3 => format!(
                    "{} {} POW",
                    g.0.pick(&["4", "9", "25"]),
                    g.0.between(20, 300)
                ),
                _ => format!(
                    "{} {} POW 3 *",
                    g.0.pick(&["2", "5", "10"]),
                    g.0.between(20, 200)
                ),
            }
        };
        match self.0.below(6) {
            0 => format!("{} SQRT", radicand(self)),
            1 => format!("{} SQRT {} SQRT +", radicand(self), radicand(self)),
            2 => format!("{} SQRT {} *", radicand(self), self.number_no_algebraic()),
            3 => format!("{} SQRT {} +", radicand(self), self.number_no_algebraic()),
            4 => format!(
                "{} SQRT {} SQRT + {} POW",
                radicand(self),
                radicand(self),
                self.0.between(-6, 30)
            ),
            _ => format!(
                "{} SQRT 1 + 2 / {} POW",
                radicand(self),
                self.0.between(2, 80)
            ),
        }
    }

    fn number_no_algebraic(&mut self) -> String {
        if self.0.chance(60) {
            self.integer()
        } else {
            self.fraction()
        }
    }

    fn number(&mut self) -> String {
        match self.0.below(10) {
            0..=4 => self.integer(),
            5..=7 => self.fraction(),
            _ => self.algebraic(),
        }
    }

    /// A literal number token (vector literals hold tokens, not computations).
    fn literal(&mut self) -> String {
        match self.0.below(5) {
            0 | 1 => self.small(),
            2 => self.0.pick(EDGES).to_string(),
            3 => self.huge_literal(),
            _ => format!("{}/{}", self.huge_literal(), self.digits_in(1, 40)),
        }
    }

    /// A Vector: a literal, or computed elements gathered with COLLECT.
    fn vector(&mut self) -> String {
        let n = self.0.between(1, 5);
        if self.0.chance(50) {
            let items: Vec<String> = (0..n).map(|_| self.literal()).collect();
            format!("[ {} ]", items.join(" "))
        } else {
            let items: Vec<String> = (0..n).map(|_| self.number()).collect();
            format!("{} {n} COLLECT", items.join(" "))
        }
    }

    fn operand(&mut self) -> String {
        match self.0.below(10) {
            0 => self.vector(),
            1 => format!("{} SUM", self.vector()),
            _ => self.number(),
        }
    }

    fn program(&mut self) -> String {
        const BINARY: &[&str] = &[
            "ADD", "SUB", "MUL", "DIV", "MOD", "MIN", "MAX", "+", "-", "*", "/", "%",
        ];
        const COMPARE: &[&str] = &["EQ", "NEQ", "LT", "LTE", "GT", "GTE", "=", "<", ">="];
        // SQRT of a wide non-square spends the whole work budget on factoring (the same
        // on every backend, as the backends never see it): it stays rare here.
        const UNARY: &[&str] = &["FLOOR", "ROUND", "ABS", "NEG"];
        const EXPONENTS: &[&str] = &[
            "0", "1", "2", "3", "5", "-1", "-2", "7", "12", "31", "2", "3", "-1", "4",
        ];
        // Roots of wide non-powers also spend the work budget on factoring: rarer.
        const ROOTS: &[&str] = &["1/2", "1/3", "2/3", "-1/2"];
        const QUANTA: &[&str] = &[
            "1",
            "2",
            "10",
            "1000",
            "1000000007",
            "100000000000000000000000",
            "0",
            "1/2",
        ];
        let mut parts = vec![self.operand()];
        let mut depth = 1;
        for _ in 0..self.0.between(1, 6) {
            if depth < 2 || self.0.chance(30) {
                parts.push(self.operand());
                depth += 1;
            }
            let step = match self.0.below(16) {
                0..=8 => {
                    depth -= 1;
                    self.0.pick(BINARY).to_string()
                }
                9..=11 if self.0.chance(95) => self.0.pick(UNARY).to_string(),
                9..=11 => "SQRT".to_string(),
                12 | 13 if self.0.chance(90) => format!("{} POW", self.0.pick(EXPONENTS)),
                12 | 13 => format!("{} POW", self.0.pick(ROOTS)),
                14 => format!("{} QUANTIZE", self.0.pick(QUANTA)),
                _ => "STR NUM".to_string(),
            };
            parts.push(step);
        }
        // Booleans end a program: arithmetic on them is a type error on every backend
        // and would only waste the rest of the program.
        match self.0.below(10) {
            0..=2 => {
                if depth < 2 {
                    parts.push(self.operand());
                }
                parts.push(self.0.pick(COMPARE).to_string());
            }
            3 => parts.push("JSON-ENCODE".to_string()),
            _ => {}
        }
        if self.0.chance(10) {
            parts.insert(0, "KEEP".to_string());
        }
        parts.join(" ")
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a non-negative integer")),
        _ => default,
    }
}

#[test]
fn random_programs_agree_on_every_backend() {
    let count = env_u64("AJISAI_PARITY_PROGRAMS", 10_000);
    let seed = env_u64("AJISAI_PARITY_SEED", 0x41_4A_49_53_41_49);
    link();
    let (found, errors, values) = on_big_stack(move || {
        let backends = backends();
        let mut rng = Rng(seed);
        let mut found = Vec::new();
        let (mut errors, mut values) = (0usize, 0usize);
        for i in 0..count {
            // One generator per program, so program i is reproducible on its own.
            let mut g = Gen(Rng(rng.bits()));
            let source = g.program();
            match everywhere(&source, &Profile::MCP_LOCAL_STDIO, &backends) {
                Ok(e) if e.contains("\"status\":\"error\"") => errors += 1,
                Ok(_) => values += 1,
                Err(d) => {
                    found.push(format!("#{i}: {d}"));
                    if found.len() >= 10 {
                        break;
                    }
                }
            }
        }
        (found, errors, values)
    });
    println!("parity: {count} random programs (seed {seed}): {values} values, {errors} errors");
    // The generator must mostly produce programs that compute something.
    assert!(
        values * 2 >= count as usize,
        "only {values} of {count} random programs produced a value: the generator drifted"
    );
    assert!(
        found.is_empty(),
        "seed {seed}: programs whose envelopes differ between backends:\n{}",
        found.join("\n")
    );
}
