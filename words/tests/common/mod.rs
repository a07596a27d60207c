//! Helpers shared by the engine-level test files: run a program from an empty state
//! and compare its stack display. Each test module uses a subset.
#![allow(dead_code)]

use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::Profile;

/// Run `source` under `profile` with the Words and the pure backend linked.
pub fn run_with(source: &str, profile: Profile) -> ComputeReport {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    compute(source, &Options::new(profile))
}

/// Run `source` under the MCP profile (the one the specification's examples assume).
pub fn run(source: &str) -> ComputeReport {
    run_with(source, Profile::MCP_LOCAL_STDIO)
}

/// The stack's displays joined by ` | `, or `(empty)`.
pub fn stack(r: &ComputeReport) -> String {
    ajisai_core::display::stack_line(&r.stack)
}

/// Run `source`, expect success with the stack `expect`.
pub fn ok(source: &str, expect: &str) -> ComputeReport {
    let r = run(source);
    assert!(r.error.is_none(), "`{source}` failed: {:?}", r.error);
    assert_eq!(stack(&r), expect, "`{source}`");
    r
}

/// Run `source`, expect an ERROR of `category`.
pub fn fails(source: &str, category: &str) -> ComputeReport {
    let r = run(source);
    let got = r.error.as_ref().map(|e| e.category.id());
    assert_eq!(
        got,
        Some(category),
        "`{source}` gave {:?} / {}",
        r.error,
        stack(&r)
    );
    r
}

/// Run `source`, expect an ERROR of `category` leaving the stack `expect`.
pub fn fails_leaving(source: &str, category: &str, expect: &str) -> ComputeReport {
    let r = fails(source, category);
    assert_eq!(stack(&r), expect, "stack after the error of `{source}`");
    r
}
