//! Every Word's declared examples run as tests, under the MCP profile (WORDS.md
//! examples assume it), and every Word declares at least two.

use ajisai_core::engine::{compute, Options};
use ajisai_core::Profile;

/// Compare one run with an example's expectation; `None` when it matches.
pub fn mismatch(source: &str, expect: &str, prints: &[&str]) -> Option<String> {
    let report = compute(source, &Options::new(Profile::MCP_LOCAL_STDIO));
    let got_stack = ajisai_core::display::stack_line(&report.stack);
    let got = match &report.error {
        Some(e) => format!("error:{} ({})", e.category.id(), e.message),
        None => got_stack.clone(),
    };
    let ok = if let Some(cat) = expect.strip_prefix("error:") {
        report
            .error
            .as_ref()
            .is_some_and(|e| e.category.id() == cat)
    } else if let Some((slots, reason)) = expect
        .strip_suffix(')')
        .and_then(|e| e.rsplit_once(" (nil:"))
    {
        report.error.is_none()
            && got_stack == slots
            && report
                .stack
                .last()
                .and_then(|v| v.nil_reason())
                .map(|r| r.id())
                == Some(reason)
    } else {
        report.error.is_none() && got_stack == expect
    };
    let out_ok = report
        .output
        .iter()
        .map(String::as_str)
        .eq(prints.iter().copied());
    if ok && out_ok {
        None
    } else {
        Some(format!(
            "`{source}`: expected {expect} printing {prints:?}, got {got} printing {:?}",
            report.output
        ))
    }
}

#[test]
fn every_example_holds() {
    ajisai_numerics_pure::link();
    let reg = ajisai_words::registry();
    assert!(reg.problems().is_empty(), "{:?}", reg.problems());
    // AJISAI_WORDS=ADD,SUB restricts the run to those Words (handy while a family is in progress).
    let only: Option<Vec<String>> = std::env::var("AJISAI_WORDS")
        .ok()
        .map(|s| s.split(',').map(|w| w.trim().to_uppercase()).collect());
    let mut failures = Vec::new();
    for spec in reg.specs() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|w| w == spec.name))
        {
            continue;
        }
        for ex in spec.examples {
            if let Some(m) = mismatch(&ex.source, &ex.expect, ex.prints) {
                failures.push(format!("{}: {m}", spec.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_word_has_two_examples() {
    let reg = ajisai_words::registry();
    let thin: Vec<&str> = reg
        .specs()
        .iter()
        .filter(|s| s.examples.len() < 2)
        .map(|s| s.name)
        .collect();
    assert!(
        thin.is_empty(),
        "Words with fewer than two examples: {thin:?}"
    );
}
