//! Our own cases (`golden/seed/*.json`) for the behaviours the specification tags
//! [seed] — POW, RESHAPE, JSON-DECODE/ENCODE, CONTRACT and `#:contract`, two-scalar
//! RANGE, algebraic display, limits as errors and exact work pricing — and the
//! rule-by-rule audit of the language reference (`rules.json`, each case naming its rule). Same
//! format as the corpus, plus `message`, `resource` and `resourceUsage` expectations and optional
//! `profile`, `inject` and `generated` fields. `differential.json` holds the programs where
//! differential testing found the reference disagreeing with the specification.

use ajisai_golden::{link, load, on_big_stack, run_all, Case};
use std::path::PathBuf;

fn seed_cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seed");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("golden/seed exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seed files in {}", dir.display());
    let mut cases = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a readable seed file");
        cases.extend(load(&f.display().to_string(), &text).cases);
    }
    cases
}

#[test]
fn every_seed_case_holds() {
    link();
    let cases = seed_cases();
    let summary = on_big_stack(move || run_all(&cases));
    println!("{}", summary.headline("seed"));
    assert!(summary.failures.is_empty(), "{}", summary.report());
}

#[test]
fn seed_cases_are_well_formed() {
    let cases = seed_cases();
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(n, ids.len(), "duplicate seed case ids");
    for c in &cases {
        c.program().unwrap_or_else(|e| panic!("{}: {e}", c.id));
        c.run_profile().unwrap_or_else(|e| panic!("{}: {e}", c.id));
        assert!(
            matches!(c.expect.status.as_str(), "ok" | "error"),
            "{}: status",
            c.id
        );
        assert_eq!(
            c.expect.status == "error",
            c.expect.error_ref.is_some(),
            "{}: errorRef iff error",
            c.id
        );
    }
}
