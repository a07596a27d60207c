//! Backend parity (MCP-15, MCP-90; docs/mcp/envelope.md, docs/mcp/verification.md): every program gives byte-identical envelopes
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
use ajisai_golden::programs::Numeric;
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
            let mut g = Numeric(Rng(rng.bits()));
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
