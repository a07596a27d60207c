//! Every example written in the specification (golden/spec-examples.json, extracted from
//! the founding language specification and Word reference, each with the guide page that
//! states it now) runs and gives exactly the stated result.

use ajisai_core::display::display;
use ajisai_core::engine::{compute, Options};
use ajisai_core::Profile;
use serde_json::Value as Json;

#[test]
fn every_specification_example_holds() {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-examples.json");
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("readable"))
        .expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 595, "the extraction lost examples");
    let mut failures = Vec::new();
    for case in cases {
        let source = case["source"].as_str().expect("source");
        let r = compute(source, &Options::new(Profile::MCP_LOCAL_STDIO));
        let stack = r.stack.iter().map(display).collect::<Vec<_>>().join(" | ");
        let mut problems = Vec::new();
        match (case.get("error").and_then(Json::as_str), &r.error) {
            (Some(want), Some(e)) if e.category.id() == want => {
                if let Some(m) = case.get("message").and_then(Json::as_str) {
                    if e.message != m {
                        problems.push(format!("message {:?}", e.message));
                    }
                }
                if let Some(s) = case.get("stack").and_then(Json::as_str) {
                    if stack != s {
                        problems.push(format!("stack after the error {stack:?}"));
                    }
                }
            }
            (Some(want), got) => {
                problems.push(format!("expected error:{want}, got {got:?} / {stack:?}"))
            }
            (None, Some(e)) => {
                problems.push(format!("unexpected {}: {}", e.category.id(), e.message))
            }
            (None, None) => {
                if stack != case["stack"].as_str().expect("stack") {
                    problems.push(format!("stack {stack:?}"));
                }
                if let Some(reason) = case.get("nil").and_then(Json::as_str) {
                    if r.outcome_id() != format!("nil:{reason}") {
                        problems.push(format!("outcome {}", r.outcome_id()));
                    }
                }
            }
        }
        let prints: Vec<&str> = case
            .get("prints")
            .and_then(Json::as_array)
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        if !prints.is_empty()
            && r.output
                .iter()
                .map(String::as_str)
                .ne(prints.iter().copied())
        {
            problems.push(format!("output {:?}", r.output));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} `{source}`: {}",
                case["origin"],
                problems.join("; ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
