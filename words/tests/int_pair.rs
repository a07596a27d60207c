//! The machine's small-integer shortcut (`WordSpec::int_pair`) leaves and charges
//! exactly what each Word's `exec` does: every program runs on the real registry and
//! on a copy of it without shortcuts, and stack, error, position and meter agree —
//! through the fused `literal WORD` operation and through a plain Word call, at the
//! edges of `i64`, under KEEP, beside NIL and Vectors, and at the limits the shortcut
//! charges (`executionSteps`, `numericWork`, a `bigintBits` ceiling below 64).

use ajisai_core::display::stack_line;
use ajisai_core::limits::{Halt, Limit, Profile};
use ajisai_core::word::{registry, Registry, WordSpec};
use ajisai_core::Machine;
use std::sync::OnceLock;

/// The Core registry with every shortcut removed: each step goes through `exec`.
fn without_shortcuts() -> &'static Registry {
    static PLAIN: OnceLock<Registry> = OnceLock::new();
    PLAIN.get_or_init(|| {
        Registry::new(registry().specs().iter().map(|s| {
            let plain: &'static WordSpec = Box::leak(Box::new(WordSpec {
                int_pair: None,
                ..**s
            }));
            plain
        }))
    })
}

/// Everything a run leaves that a shortcut could change.
fn outcome(reg: &'static Registry, source: &str, profile: Profile) -> String {
    let mut m = Machine::new(profile, reg);
    let end = match m.run_source(source) {
        Ok(()) => "ok".to_string(),
        Err(Halt::Error(e)) => format!(
            "error:{} resource={:?} word={:?} pos={:?} message={}",
            e.category.id(),
            e.resource,
            e.word,
            e.pos,
            e.message
        ),
        Err(Halt::Interrupted(_)) => "interrupted".to_string(),
    };
    let meter = m.meter();
    format!(
        "{end} | stack {} | steps {} numeric {} collection {}",
        stack_line(m.stack()),
        meter.steps(),
        meter.numeric_work(),
        meter.collection_work()
    )
}

fn agree(source: &str, profile: Profile) {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let fast = outcome(registry(), source, profile.clone());
    let plain = outcome(without_shortcuts(), source, profile);
    assert_eq!(fast, plain, "`{source}`");
}

const OPERANDS: [&str; 12] = [
    "0",
    "1",
    "-1",
    "2",
    "-3",
    "7",
    "1000000007",
    "-4611686018427387904",
    "4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
];

fn words_with_shortcuts() -> Vec<&'static str> {
    ajisai_words::link();
    let names: Vec<&'static str> = registry()
        .specs()
        .iter()
        .filter(|s| s.int_pair.is_some())
        .map(|s| s.name)
        .collect();
    assert!(
        names.len() >= 11,
        "arithmetic and comparison declare shortcuts: {names:?}"
    );
    names
}

#[test]
fn every_shortcut_agrees_with_its_executor_on_the_edges_of_i64() {
    for word in words_with_shortcuts() {
        for a in OPERANDS {
            for b in OPERANDS {
                // The fused `literal WORD` operation, and a plain call of the Word.
                agree(&format!("{a} {b} {word}"), Profile::CLI_LOCAL);
                agree(&format!("{a} {{ {b} }} EXEC {word}"), Profile::CLI_LOCAL);
            }
        }
    }
}

#[test]
fn shortcuts_step_aside_for_keep_nil_vectors_fractions_and_underflow() {
    for word in words_with_shortcuts() {
        for program in [
            format!("5 3 KEEP {word}"),
            format!("KEEP 5 3 {word}"),
            format!("5 KEEP 3 {word}"),
            format!("NIL 3 {word}"),
            format!("3 NIL {word}"),
            format!("[ 1 2 ] 3 {word}"),
            format!("1/2 3 {word}"),
            format!("3 1/2 {word}"),
            format!("2 SQRT 3 {word}"),
            format!("3 {word}"),
            word.to_string(),
            format!("'a' 3 {word}"),
            format!("{{ 3 {word} }} 'W' DEF 4 W"),
            format!("4 {{ 3 {word} }} EXEC"),
            format!("{{ 1 }} 'x' BIND 4 x {word}"),
            format!("1 ^ 3 {word}"),
            format!("4 3 ^ {word}"),
        ] {
            agree(&program, Profile::CLI_LOCAL);
            agree(&program, Profile::MCP_LOCAL_STDIO);
        }
    }
}

#[test]
fn shortcuts_charge_the_limits_exec_charges() {
    for word in words_with_shortcuts() {
        for program in [format!("1 2 {word}"), format!("1 {{ 2 }} EXEC {word}")] {
            for steps in 0..4 {
                agree(
                    &program,
                    Profile::CLI_LOCAL.with(Limit::ExecutionSteps, steps),
                );
            }
            for work in 0..3 {
                agree(&program, Profile::CLI_LOCAL.with(Limit::NumericWork, work));
            }
            for bits in [1, 2, 63, 64] {
                agree(&program, Profile::CLI_LOCAL.with(Limit::BigintBits, bits));
                agree(
                    &format!("9223372036854775807 1 {word}"),
                    Profile::CLI_LOCAL.with(Limit::BigintBits, bits),
                );
            }
        }
    }
}
