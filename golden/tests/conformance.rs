//! The conformance corpus (`golden/conformance/cases.json`): every case through
//! `engine::compute` under `mcp-local-stdio`; fails listing every mismatch.

use ajisai_golden::{link, load, on_big_stack, run_all};

const CORPUS: &str = include_str!("../conformance/cases.json");

#[test]
fn every_corpus_case_holds() {
    link();
    let file = load("conformance/cases.json", CORPUS);
    assert_eq!(file.schema_version, 1);
    let summary = on_big_stack(move || run_all(&file.cases));
    println!("{}", summary.headline("conformance"));
    assert!(summary.failures.is_empty(), "{}", summary.report());
}

#[test]
fn corpus_ids_are_unique() {
    let file = load("conformance/cases.json", CORPUS);
    let mut ids: Vec<&str> = file.cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "duplicate case ids");
}
