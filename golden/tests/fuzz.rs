//! No-panic fuzzing: random token streams and random well-formed programs, every one
//! of which must end in exactly one of the three outcomes — a value, a NIL with a
//! reason, or an error with a valid category — without panicking, and within the
//! profile's limits.
//!
//! The generator is a seeded SplitMix64, so a failure is reproducible from the seed
//! and index it prints. `AJISAI_FUZZ_PROGRAMS` sets the count (default 100,000),
//! `AJISAI_FUZZ_SEED` the seed.

use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::ObjectWriter;
use ajisai_core::{Limit, Profile, Value};
use ajisai_golden::{link, on_big_stack, Rng, CORE_WORDS};
use std::panic::{catch_unwind, AssertUnwindSafe};

const ALIASES: [&str; 12] = [
    "+", "-", "*", "/", "=", "!=", "<", "<=", ">", ">=", "%", "^",
];

const NUMBERS: [&str; 30] = [
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "7",
    "10",
    "100",
    "1/2",
    "-3/4",
    "2/3",
    "0.5",
    "3.14",
    "1e3",
    "1.5e-3",
    "-0",
    "007",
    "4/6",
    "+7",
    "99999999999999999999999",
    "-18446744073709551616",
    "2E+2",
    "1/3",
    "5",
    "12",
    "8",
    "0/5",
    "1000",
    "65536",
];

const ODD_LEXEMES: [&str; 22] = [
    ".5",
    "5.",
    "1e",
    "1/-3",
    "1/2e3",
    "0x10",
    "12abc",
    "１２",
    "1/0",
    "\u{feff}1",
    "\"hi\"",
    "&",
    "IDLE",
    "idle",
    "VENT",
    "vent",
    "FOO",
    "x",
    "Add",
    "nil?",
    "nil-reason",
    "json-decode",
];

const STRINGS: [&str; 16] = [
    "'a'",
    "'x y'",
    "''",
    "'It's fine'",
    "''''",
    "'ADD'",
    "'NEG'",
    "'F'",
    "'N'",
    "'done'",
    "'[1,2]'",
    "'{\"a\":[1,null]}'",
    "'\\n'",
    "'42'",
    "'sqrt'",
    "'é ü'",
];

const STRUCTURE: [&str; 12] = [
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "|",
    "^",
    "#",
    "\n",
    "# note\n",
    "'unclosed",
];

/// Every name a program may use: Words, aliases, lower-case spellings.
fn names() -> Vec<String> {
    let mut v: Vec<String> = CORE_WORDS.iter().map(|w| w.to_string()).collect();
    v.extend(CORE_WORDS.iter().map(|w| w.to_lowercase()));
    v.extend(ALIASES.iter().map(|a| a.to_string()));
    v
}

/// A huge or pathological literal, now and then.
fn big_literal(rng: &mut Rng) -> String {
    match rng.index(6) {
        0 => "9".repeat(4096 + rng.index(3)),
        1 => format!(
            "1e{}",
            rng.pick(&["1000", "100000", "1000000", "-1000000", "262144"])
        ),
        2 => format!(
            "{}/{}",
            "7".repeat(rng.index(200) + 1),
            "3".repeat(rng.index(200) + 1)
        ),
        3 => format!("0.{}", "1".repeat(rng.index(5000) + 1)),
        4 => "1".repeat(rng.index(100) + 1),
        _ => format!("-{}e-{}", rng.index(1000), rng.index(400)),
    }
}

/// Garbage: any token from any pool, brackets unbalanced, comments anywhere.
fn token_soup(rng: &mut Rng, names: &[String]) -> String {
    let len = rng.index(24) + 1;
    let mut out = String::new();
    for _ in 0..len {
        let tok: String = match rng.index(100) {
            0..=29 => rng.pick(names).clone(),
            30..=49 => rng.pick(&NUMBERS).to_string(),
            50..=59 => rng.pick(&STRINGS).to_string(),
            60..=79 => rng.pick(&STRUCTURE).to_string(),
            80..=89 => rng.pick(&ODD_LEXEMES).to_string(),
            90..=91 => big_literal(rng),
            92..=93 => "[ ".repeat(rng.index(40)),
            94..=95 => "{ ".repeat(rng.index(40)),
            _ => {
                let bytes: String = (0..rng.index(6) + 1)
                    .map(|_| char::from_u32(rng.index(0x3000) as u32).unwrap_or('?'))
                    .collect();
                bytes
            }
        };
        out.push_str(&tok);
        out.push(if rng.chance(8) { '\n' } else { ' ' });
    }
    out
}

/// A well-formed value literal (possibly nested).
fn literal(rng: &mut Rng, depth: usize, names: &[String]) -> String {
    match rng.index(if depth > 3 { 3 } else { 6 }) {
        0 | 1 => rng.pick(&NUMBERS).to_string(),
        2 => rng.pick(&STRINGS).to_string(),
        3 => {
            let n = rng.index(5);
            let items: Vec<String> = (0..n)
                .map(|_| match rng.index(6) {
                    0 => "NIL".to_string(),
                    1 => rng.pick(&["TRUE", "false", "foo", "+"]).to_string(),
                    _ => literal(rng, depth + 1, names),
                })
                .collect();
            format!("[ {} ]", items.join(" "))
        }
        4 => format!("{{ {} }}", program(rng, depth + 1, names, 6)),
        _ => {
            let guard = program(rng, depth + 1, names, 3);
            let body = program(rng, depth + 1, names, 3);
            let guard = if guard.trim().is_empty() || rng.chance(30) {
                "IDLE".to_string()
            } else {
                guard
            };
            let body = if body.trim().is_empty() {
                "0".to_string()
            } else {
                body
            };
            format!("{{ {guard} | {body} }}")
        }
    }
}

/// A well-formed program: literals, Words, definitions, bindings, COND, VENT units.
fn program(rng: &mut Rng, depth: usize, names: &[String], max_len: usize) -> String {
    let len = rng.index(max_len + 1);
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..len {
        let part = match rng.index(100) {
            0..=34 => literal(rng, depth, names),
            35..=69 => rng.pick(names).clone(),
            70..=74 => format!(
                "{{ {} }} '{}' DEF",
                program(rng, depth + 1, names, 5),
                rng.pick(&["F", "G", "CD", "R"])
            ),
            75..=77 => format!("'{}' BIND", rng.pick(&["N", "X", "F"])),
            78..=80 => rng.pick(&["F", "G", "CD", "R", "N", "X"]).to_string(),
            81..=83 => format!("^ {}", literal(rng, depth, names)),
            84..=86 => "KEEP".to_string(),
            87..=89 => format!("{} COND", literal(rng, depth, names)),
            90..=91 => "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF".to_string(),
            92..=93 => format!("{} {} RANGE", rng.index(50), rng.index(50)),
            94 => big_literal(rng),
            95..=96 => format!("# {}\n", rng.pick(&STRINGS)),
            _ => "\n".to_string(),
        };
        parts.push(part);
    }
    parts.join(" ")
}

/// Numeric Words with their operand counts, for arity-aware programs.
const NUMERIC: [(&str, usize); 22] = [
    ("ADD", 2),
    ("SUB", 2),
    ("MUL", 2),
    ("DIV", 2),
    ("MOD", 2),
    ("MIN", 2),
    ("MAX", 2),
    ("POW", 2),
    ("QUANTIZE", 2),
    ("SQRT", 1),
    ("NEG", 1),
    ("ABS", 1),
    ("FLOOR", 1),
    ("ROUND", 1),
    ("SUM", 1),
    ("EQ", 2),
    ("LT", 2),
    ("GTE", 2),
    ("SORT", 1),
    ("REVERSE", 1),
    ("LENGTH", 1),
    ("STR", 1),
];

/// A program that mostly type-checks: numbers and numeric Vectors fed to numeric Words
/// with enough operands, so that runs reach deep into arithmetic (algebraic numbers,
/// big integers, lifting, limits) instead of stopping at the first type error.
fn arithmetic(rng: &mut Rng) -> String {
    let mut depth = 0usize;
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..rng.index(16) + 2 {
        let fits: Vec<&(&str, usize)> = NUMERIC.iter().filter(|(_, n)| *n <= depth).collect();
        if fits.is_empty() || rng.chance(45) {
            let lit = match rng.index(10) {
                0 => format!(
                    "[ {} ]",
                    (0..rng.index(5) + 1)
                        .map(|_| *rng.pick(&NUMBERS))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                1 => format!(
                    "{} SQRT",
                    rng.pick(&["2", "3", "5", "8", "1/2", "12", "-4"])
                ),
                2 if rng.chance(10) => big_literal(rng),
                _ => rng.pick(&NUMBERS).to_string(),
            };
            parts.push(lit);
            depth += 1;
        } else {
            let (word, arity) = **rng.pick(&fits);
            if rng.chance(10) {
                parts.push("KEEP".into());
                depth += arity;
            }
            parts.push(word.to_string());
            depth = depth - arity + 1;
        }
    }
    parts.join(" ")
}

/// Why a run broke the trichotomy or the profile, if it did.
fn violation(report: &ComputeReport, profile: &Profile) -> Option<String> {
    if report.interrupted {
        return Some("interrupted without an interrupt flag".into());
    }
    let refused = report.error.as_ref().and_then(|e| e.resource);
    if let Some(e) = &report.error {
        if e.category.id() == "resourceLimitExceeded" {
            match e.resource.and_then(Limit::from_name) {
                Some(l) if Limit::ENGINE.contains(&l) => {}
                _ => return Some(format!("a limit error names no engine limit: {e:?}")),
            }
        } else if e.resource.is_some() {
            return Some(format!("only limit errors name a resource: {e:?}"));
        }
        // Messages may quote operands holding line breaks; the envelope makes them one line.
        if e.message.trim().is_empty() {
            return Some("an error without a message".into());
        }
    }
    let meters = [
        (
            Limit::ExecutionSteps,
            report.usage.execution_steps,
            profile.execution_steps,
        ),
        (
            Limit::NumericWork,
            report.usage.numeric_work,
            profile.numeric_work,
        ),
        (
            Limit::CollectionWork,
            report.usage.collection_work,
            profile.collection_work,
        ),
    ];
    for (limit, used, max) in meters {
        if used > max && refused != Some(limit.name()) {
            return Some(format!(
                "{} used {used} over the limit {max} without a refusal",
                limit.name()
            ));
        }
    }
    None
}

struct Finding {
    index: u64,
    source: String,
    what: String,
}

fn fuzz(seed: u64, count: u64) -> (Vec<Finding>, [u64; 3]) {
    let names = names();
    let profile = Profile::MCP_LOCAL_STDIO;
    let options = Options::new(profile.clone());
    let mut rng = Rng(seed);
    let mut findings = Vec::new();
    // value, nil, error
    let mut outcomes = [0u64; 3];
    for index in 0..count {
        let source = match rng.index(3) {
            0 => token_soup(&mut rng, &names),
            1 => program(&mut rng, 0, &names, 12),
            _ => arithmetic(&mut rng),
        };
        let render = index % 16 == 0;
        let result = catch_unwind(AssertUnwindSafe(|| {
            let report = compute(&source, &options);
            let envelope = if render {
                Some(compute_json(&report, &|_: &mut ObjectWriter<'_>| {}))
            } else {
                None
            };
            (report, envelope)
        }));
        let what = match result {
            Err(p) => Some(format!(
                "PANIC: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
            Ok((report, envelope)) => {
                match (&report.error, report.stack.last()) {
                    (Some(_), _) => outcomes[2] += 1,
                    (None, Some(Value::Nil(_))) => outcomes[1] += 1,
                    (None, _) => outcomes[0] += 1,
                }
                let bad_json =
                    envelope.and_then(|e| serde_json::from_str::<serde_json::Value>(&e).err());
                violation(&report, &profile)
                    .or(bad_json.map(|e| format!("envelope is not JSON: {e}")))
            }
        };
        if let Some(what) = what {
            findings.push(Finding {
                index,
                source,
                what,
            });
            if findings.len() >= 20 {
                break;
            }
        }
    }
    (findings, outcomes)
}

#[test]
fn random_programs_never_panic_and_stay_within_limits() {
    link();
    let count: u64 = std::env::var("AJISAI_FUZZ_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("AJISAI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x00A1_15A1);
    // Expected panics are caught and reported below; keep the default hook's noise out.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (findings, outcomes) = on_big_stack(move || fuzz(seed, count));
    std::panic::set_hook(hook);
    println!(
        "fuzz: {count} programs (seed {seed}): {} values, {} NILs, {} errors",
        outcomes[0], outcomes[1], outcomes[2]
    );
    let report: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "#{} (seed {seed}): {}\n    source: {:?}",
                f.index, f.what, f.source
            )
        })
        .collect();
    assert!(
        findings.is_empty(),
        "{} finding(s):\n{}",
        findings.len(),
        report.join("\n")
    );
}

#[test]
fn a_million_deep_non_tail_recursion_completes_or_is_refused_by_steps() {
    link();
    let source = "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 1000000 CD2";
    let report = on_big_stack(move || compute(source, &Options::new(Profile::CLI_LOCAL)));
    match &report.error {
        None => assert_eq!(report.stack.len(), 1, "one result"),
        Some(e) => assert_eq!(
            e.resource,
            Some("executionSteps"),
            "only the step limit may stop it: {e:?}"
        ),
    }
}

#[test]
fn deeply_nested_blocks_never_recurse_natively() {
    link();
    // A small native stack on purpose: parsing, display, the envelope and drop must all
    // walk 100,000 nested blocks with explicit work stacks.
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            let depth = 100_000;
            let source = format!("{}1{} 'kept' PRINT", "{ ".repeat(depth), " }".repeat(depth));
            let report = compute(&source, &Options::new(Profile::CLI_LOCAL));
            assert!(report.error.is_none(), "{:?}", report.error);
            assert_eq!(report.output, ["kept"]);
            let json = compute_json(&report, &|_: &mut ObjectWriter<'_>| {});
            assert!(json.len() > 4 * depth);
            drop(report);
            // Equality and hashing walk them too: EQ compares tokens, UNIQUE probes by hash.
            let deep = format!("{}1{}", "{".repeat(20_000), "}".repeat(20_000));
            let source = format!("{deep} {deep} EQ [ {deep} {deep} ] UNIQUE LENGTH");
            let report = compute(&source, &Options::new(Profile::CLI_LOCAL));
            assert!(report.error.is_none(), "{:?}", report.error);
            let shown: Vec<String> = report
                .stack
                .iter()
                .map(ajisai_core::display::display)
                .collect();
            assert_eq!(shown, ["TRUE", "1/1"]);
            // And one that runs: EXEC peels one level per step.
            let run = compute(
                "{ { { 2 } } } EXEC EXEC EXEC",
                &Options::new(Profile::MCP_LOCAL_STDIO),
            );
            assert!(run.error.is_none(), "{:?}", run.error);
        });
    worker
        .expect("spawn")
        .join()
        .expect("no native stack overflow or panic");
}
