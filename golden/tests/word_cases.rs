//! Every Core Word's examples on every numeric backend: the documentation examples
//! the registry declares (2–4 per Word, what `word_contract` and `ajisai://contracts`
//! show) and the regression cases of `golden/word-cases.json`, which moved out of the
//! registry to keep contracts compact (issue 12) and still hold every behaviour they
//! pinned.

use ajisai_core::numerics::with_backend;
use ajisai_core::word::registry;
use ajisai_core::Profile;
use ajisai_golden::{backends, example_mismatch, link, on_big_stack};
use serde::Deserialize;

/// One regression case of a Word.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordCase {
    word: String,
    source: String,
    expect: String,
    #[serde(default)]
    prints: Vec<String>,
    /// Where the behaviour is specified, when the case pins a clause of the spec.
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordCases {
    #[serde(rename = "schemaVersion")]
    #[allow(dead_code)]
    schema_version: u32,
    #[allow(dead_code)]
    about: String,
    cases: Vec<WordCase>,
}

fn word_cases() -> Vec<WordCase> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("word-cases.json");
    let text = std::fs::read_to_string(&path).expect("golden/word-cases.json is readable");
    serde_json::from_str::<WordCases>(&text)
        .expect("golden/word-cases.json is a case file")
        .cases
}

/// Every example and case of every Word, on every backend.
#[test]
fn every_word_example_and_case_holds_on_every_backend() {
    link();
    let failures = on_big_stack(|| {
        let cases = word_cases();
        let mut all: Vec<(String, String, String, Vec<String>)> = Vec::new();
        for spec in registry().specs() {
            for ex in spec.examples {
                let prints = ex.prints.iter().map(|p| p.to_string()).collect();
                all.push((
                    spec.name.to_string(),
                    ex.source.to_string(),
                    ex.expect.to_string(),
                    prints,
                ));
            }
        }
        for c in &cases {
            all.push((
                c.word.clone(),
                c.source.clone(),
                c.expect.clone(),
                c.prints.clone(),
            ));
        }
        let mut failures = Vec::new();
        for b in backends() {
            for (word, source, expect, prints) in &all {
                let prints: Vec<&str> = prints.iter().map(String::as_str).collect();
                let profile = Profile::MCP_LOCAL_STDIO;
                if let Some(m) = with_backend(b.numerics, || {
                    example_mismatch(source, expect, &prints, &profile)
                }) {
                    failures.push(format!("{} {word}: {m}", b.label));
                }
            }
        }
        failures
    });
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Each case names a Word of the registry, and every Word keeps 2–4 documentation
/// examples in the registry itself.
#[test]
fn cases_name_registry_words_and_contracts_keep_two_to_four_examples() {
    link();
    let cases = word_cases();
    for c in &cases {
        assert!(
            registry().lookup(&c.word).is_some(),
            "golden/word-cases.json: {} is no Core Word",
            c.word
        );
    }
    let off: Vec<String> = registry()
        .specs()
        .iter()
        .filter(|s| !(2..=4).contains(&s.examples.len()))
        .map(|s| format!("{} has {}", s.name, s.examples.len()))
        .collect();
    assert!(
        off.is_empty(),
        "Words outside 2–4 documentation examples: {off:?}"
    );
    assert!(cases.len() > 700, "{} regression cases", cases.len());
}
