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

/// The corpus runs under `mcp-local-stdio`; this pins the claim (conformance/README.md)
/// that no case depends on that choice: every case answers the same under `cli-local`
/// (docs/reference/pricing-and-limits.md: a program that completes under two profiles answers the
/// same).
#[test]
fn corpus_answers_do_not_depend_on_the_profile() {
    use ajisai_core::display::display;
    use ajisai_core::engine::{compute, Options};
    use ajisai_core::Profile;
    link();
    let file = load("conformance/cases.json", CORPUS);
    let differ = on_big_stack(move || {
        // A panic is reported by `every_corpus_case_holds`; here it is just an answer.
        let answer = |source: &str, profile: Profile| {
            std::panic::catch_unwind(|| {
                let r = compute(source, &Options::new(profile));
                let stack: Vec<String> = r.stack.iter().map(display).collect();
                (r.outcome_id(), stack, r.output)
            })
            .ok()
        };
        let mut differ = Vec::new();
        for case in &file.cases {
            let Some(source) = &case.source else { continue };
            let mcp = answer(source, Profile::MCP_LOCAL_STDIO);
            let cli = answer(source, Profile::CLI_LOCAL);
            if mcp != cli {
                differ.push(format!("{}: mcp {mcp:?} / cli {cli:?}", case.id));
            }
        }
        differ
    });
    assert!(
        differ.is_empty(),
        "cases whose answer depends on the profile:\n{}",
        differ.join("\n")
    );
}
