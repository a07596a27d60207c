//! Description drift (MCP-24; docs/mcp/tools.md): the tool and argument descriptions the server sends name
//! only Words that exist, list every registry family with its Words, say what MCP-22 and
//! MCP-23 require (checked by key phrases), and stay within the length ceilings.

use crate::mcp_support;

use mcp_support::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// All-capital tokens that are not Word names but may appear in descriptions.
const NOT_WORDS: [&str; 1] = ["UTF-8"];

/// Every all-capital token (at least two capital letters, no lower case) in `text`.
fn capital_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '?'))
        .map(|t| t.trim_matches('-'))
        .filter(|t| {
            t.chars().filter(char::is_ascii_uppercase).count() >= 2
                && !t.chars().any(|c| c.is_ascii_lowercase())
        })
        .map(str::to_string)
        .collect()
}

/// Tokens of `text` that look like Word names but are not in `words`.
fn unknown_capital_tokens(text: &str, words: &BTreeSet<String>) -> Vec<String> {
    capital_tokens(text)
        .into_iter()
        .filter(|t| !words.contains(t) && !NOT_WORDS.contains(&t.as_str()))
        .collect()
}

#[test]
fn the_token_check_catches_invented_names() {
    let words: BTreeSet<String> = ["ADD", "INDEX-OF", "NIL?"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(unknown_capital_tokens("`1 2 ADD`, INDEX-OF, NIL? and UTF-8 bytes", &words).is_empty());
    assert_eq!(
        unknown_capital_tokens("use FROBNICATE, or I/O", &words),
        vec!["FROBNICATE".to_string()]
    );
}

fn contains_all(what: &str, text: &str, phrases: &[&str]) {
    for p in phrases {
        assert!(text.contains(p), "{what} lacks {p:?}:\n{text}");
    }
}

#[tokio::test]
async fn descriptions_match_the_registry_and_the_requirements() {
    let client = spawn().await;
    let (_, registry) = read(&client, "ajisai://contracts").await;
    let registry: Value = serde_json::from_str(&registry).expect("JSON");
    let entries = registry["entries"].as_array().expect("entries");
    let words: BTreeSet<String> = entries
        .iter()
        .map(|e| e["name"].as_str().expect("a name").to_string())
        .collect();
    // The `words` argument lists the effective phrasebook's Words (MCP-23): those are
    // Words too, named by the DEF lines of ajisai://phrasebook.
    let (_, phrasebook) = read(&client, "ajisai://phrasebook").await;
    let phrase_words: BTreeSet<String> = phrasebook
        .lines()
        .filter(|l| l.trim_end().ends_with("' DEF") && l.trim_start().starts_with('{'))
        .filter_map(|l| {
            l.trim_end()
                .strip_suffix("' DEF")?
                .rsplit_once('\'')
                .map(|(_, n)| n.to_uppercase())
        })
        .collect();
    assert!(phrase_words.len() >= 25, "{phrase_words:?}");
    let tools = client.list_all_tools().await.expect("tools/list");
    let description = |name: &str| -> String {
        tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.description.as_deref())
            .expect("described")
            .to_string()
    };
    let mut arguments = Vec::new();
    for tool in &tools {
        let d = tool.description.as_deref().expect("described");
        // compute's description lists what `words` can request: the phrasebook's Words.
        let known: BTreeSet<String> = if tool.name == "compute" {
            words.union(&phrase_words).cloned().collect()
        } else {
            words.clone()
        };
        let unknown = unknown_capital_tokens(d, &known);
        assert!(unknown.is_empty(), "{} names {unknown:?}", tool.name);
        // compute's also lists the Word families and the phrasebook's Words; the whole
        // listing's budget is checked below.
        let ceiling = if tool.name == "compute" { 2_700 } else { 800 };
        let n = d.chars().count();
        assert!(
            n <= ceiling,
            "{} is {n} characters (ceiling {ceiling})",
            tool.name
        );
        for (arg, schema) in tool.input_schema["properties"]
            .as_object()
            .expect("properties")
        {
            let d = schema["description"].as_str().expect("argument described");
            let known = if arg == "words" {
                words.union(&phrase_words).cloned().collect()
            } else {
                words.clone()
            };
            let unknown = unknown_capital_tokens(d, &known);
            assert!(unknown.is_empty(), "{}.{arg} names {unknown:?}", tool.name);
            let n = d.chars().count();
            assert!(n <= 800, "{}.{arg} is {n} characters", tool.name);
            arguments.push((arg.clone(), d.to_string()));
        }
    }

    // What an agent reads of tools/list besides the result schema (every tool's
    // outputSchema, which is the same document) stays within 9,000 bytes.
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut v = serde_json::to_value(t).expect("a tool serializes");
            if let Some(m) = v.as_object_mut() {
                m.remove("outputSchema");
            }
            v
        })
        .collect();
    let listing = serde_json::to_string(&serde_json::json!({ "tools": listed })).expect("JSON");
    assert!(
        listing.len() <= 9_000,
        "tools/list without outputSchema is {} bytes (budget 9,000)",
        listing.len()
    );
    let compute = description("compute");
    // compute names every Word `words` can request (generated from the phrasebook).
    for w in &phrase_words {
        assert!(
            compute.contains(&format!(" {w},")) || compute.contains(&format!(" {w}.")),
            "compute's description names {w}"
        );
    }
    // Every family, each followed by its Words, from the registry.
    let families: BTreeSet<&str> = entries
        .iter()
        .map(|e| e["family"].as_str().expect("a family"))
        .collect();
    for family in families {
        let members: Vec<&str> = entries
            .iter()
            .filter(|e| e["family"] == family)
            .map(|e| e["name"].as_str().expect("a name"))
            .collect();
        assert!(
            compute.contains(&format!("{family}: {}", members.join(" "))),
            "compute lists {family} with its Words"
        );
    }
    contains_all(
        "compute",
        &compute,
        &[
            "bounded, deterministic",
            "final stack",
            "postfix",
            "`1 2 ADD`",
            "`[ 1 2 3 ] LENGTH`",
            "exact",
            "rationals",
            "square roots",
            "`2 SQRT` is sqrt(2)",
            "no floats",
            "0.1",
            "1/10",
            "case-insensitive",
            "`add` runs as `ADD`",
            "ajisai://vocabulary",
            "word_contract",
            "suggestions",
            "instead of guessing",
            "`words`",
            "phrasebook",
            "fresh program",
            "nothing persists",
            "`status`",
            "`outcome`",
            "semantics.exactTerms",
            "transcendental functions",
            "floating point",
            "I/O",
            "general-purpose programming",
            "real-world data",
            "Never invent a plausible number",
            "say the fact is unknown",
            "mcp-local-stdio",
            "ajisai://limits",
            "named error, never a hang",
        ],
    );
    contains_all(
        "check",
        &description("check"),
        &[
            "without running",
            "tokenize",
            "parse",
            "resolve",
            "`#:contract name inputs=N outputs=M field=closed|extends`",
            "one per Word",
            "`ok` means well-formed",
            "within limits",
            "rather than NIL",
            "stricter than execution",
            "never called",
            "Use compute",
        ],
    );
    contains_all(
        "infer_contracts",
        &description("infer_contracts"),
        &[
            "`inputs`, `outputs` and `field`",
            "user Word",
            "without executing",
            "paste-ready",
            "#:contract",
            "malformedSource",
        ],
    );
    contains_all(
        "word_contract",
        &description("word_contract"),
        &[
            "canonical registry",
            "alias",
            "case-insensitively",
            "consumption",
            "NIL policy",
            "purity",
            "documentation",
            "unknownWord",
            "`suggestions`",
            "ajisai://vocabulary",
            "ajisai://contracts",
        ],
    );
    for (arg, d) in &arguments {
        match arg.as_str() {
            "source" => contains_all(
                "source",
                d,
                &[
                    "never a file path",
                    "65,536 UTF-8 bytes",
                    "fewer characters",
                    "postfix",
                    "single-quoted ('hi', never \"hi\")",
                    "braces ({ 2 MOD 0 EQ })",
                    "not brackets",
                    "word_contract",
                ],
            ),
            "words" => {
                contains_all(
                    "words",
                    d,
                    &["phrasebook", "`prelude`", "digest", "at most 64"],
                );
                // At most 64 Words: the description names every one (MCP-23).
                for w in &phrase_words {
                    assert!(d.contains(w.as_str()), "words does not list {w}: {d}");
                }
            }
            "word" => contains_all("word", d, &["alias", "case-insensitive", "64 characters"]),
            other => panic!("undeclared argument {other}"),
        }
    }
    client.cancel().await.expect("closes");
}
