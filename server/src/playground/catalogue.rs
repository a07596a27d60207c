//! The Playground's JSON documents, built once at startup from the same sources the other
//! hosts read: both profiles (`GET /api/info`), the dictionary — every Word with what
//! `ajisai doc` shows, and the phrasebook's Words (`GET /api/words`) — and the tutorial's
//! examples (`GET /api/examples`).

use super::Playground;
use ajisai_core::word::{registry, Family};
use ajisai_core::{Limit, Profile};
use ajisai_host::lookup;
use ajisai_service::AjisaiServer;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue, Response};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Both profiles, the units, versions and backend.
pub const INFO_PATH: &str = "/api/info";

/// The dictionary.
pub const WORDS_PATH: &str = "/api/words";

/// The tutorial's examples.
pub const EXAMPLES_PATH: &str = "/api/examples";

/// The tutorial's chapters in the guide's order (docs/SUMMARY.md), embedded.
const TUTORIAL: [(&str, &str); 8] = [
    (
        "A first program",
        include_str!("../../../docs/tutorial/first-program.md"),
    ),
    (
        "Exact numbers and roots",
        include_str!("../../../docs/tutorial/numbers.md"),
    ),
    (
        "Vectors and broadcasting",
        include_str!("../../../docs/tutorial/vectors.md"),
    ),
    (
        "Blocks and higher-order Words",
        include_str!("../../../docs/tutorial/blocks.md"),
    ),
    (
        "User Words and BIND",
        include_str!("../../../docs/tutorial/user-words.md"),
    ),
    (
        "Choosing with COND",
        include_str!("../../../docs/tutorial/cond.md"),
    ),
    (
        "NIL and errors",
        include_str!("../../../docs/tutorial/nil-and-errors.md"),
    ),
    ("Limits", include_str!("../../../docs/tutorial/limits.md")),
];

/// The three documents, as the JSON text served.
pub struct Documents {
    info: String,
    words: String,
    examples: String,
}

impl Documents {
    /// The documents of the Playground running on `server`.
    pub fn new(server: &AjisaiServer) -> Documents {
        Documents {
            info: info_document(server),
            words: words_document(server),
            examples: examples_document(),
        }
    }

    /// `GET /api/info`'s text.
    pub fn info(&self) -> &str {
        &self.info
    }

    /// `GET /api/words`'s text.
    pub fn words(&self) -> &str {
        &self.words
    }

    /// `GET /api/examples`'s text.
    pub fn examples(&self) -> &str {
        &self.examples
    }
}

fn json_response(text: &str) -> Response<Body> {
    let mut response = Response::new(Body::from(text.to_owned()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// `GET /api/info`.
pub async fn info(State(playground): State<Arc<Playground>>) -> Response<Body> {
    json_response(playground.documents.info())
}

/// `GET /api/words`.
pub async fn words(State(playground): State<Arc<Playground>>) -> Response<Body> {
    json_response(playground.documents.words())
}

/// `GET /api/examples`.
pub async fn examples(State(playground): State<Arc<Playground>>) -> Response<Body> {
    json_response(playground.documents.examples())
}

/// A profile's limits in `ajisai://limits` order, as an object that keeps it.
fn limits_object(value: impl Fn(Limit) -> Option<u64>) -> Value {
    let mut limits = Map::new();
    for limit in Limit::ALL {
        if let Some(v) = value(limit) {
            limits.insert(limit.name().to_string(), json!(v));
        }
    }
    Value::Object(limits)
}

fn info_document(server: &AjisaiServer) -> String {
    let options = &server.executor().options;
    let enforced = |limit: Limit| {
        Some(match limit {
            Limit::WallTimeMs => options.wall_time_ms(),
            Limit::ResponseBytes => options.response_bytes(),
            Limit::ConcurrentExecutions => options.slots(),
            Limit::MemoryBytes => options.memory_bytes(),
            other => options.profile.get(other)?,
        })
    };
    let mcp = Profile::MCP_LOCAL_STDIO;
    let block: Value = serde_json::from_str(server.provenance().json()).unwrap_or(Value::Null);
    let units: Map<String, Value> = Limit::ALL
        .iter()
        .map(|l| (l.name().to_string(), json!(l.unit())))
        .collect();
    json!({
        "profile": options.profile.name,
        "serverVersion": block["serverVersion"],
        "engineVersion": block["engineVersion"],
        "specificationVersion": ajisai_core::SPECIFICATION_VERSION,
        "backend": block["backend"],
        "profiles": [
            {
                "name": options.profile.name,
                "description": "This page: the command line's engine limits (120× the MCP step budget), with ten seconds, 4 MiB of result and 256 MiB of memory per run.",
                "limits": limits_object(enforced),
            },
            {
                "name": mcp.name,
                "description": "The MCP server's profile, which agents run under (mcp-remote-http over HTTP has the same values): a program that completes under both answers the same; beyond its limits the server refuses it.",
                "limits": limits_object(|l| mcp.get(l)),
            },
        ],
        "units": units,
    })
    .to_string()
}

/// One Word of the dictionary, as `ajisai doc` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WordDoc {
    name: String,
    aliases: Vec<String>,
    family: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tier: Option<&'static str>,
    summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    syntax: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stack_effect: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contract: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    errors: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    definition: Option<String>,
    examples: Vec<ExampleDoc>,
    phrasebook: bool,
}

/// One documented example of a Word.
#[derive(Serialize)]
struct ExampleDoc {
    source: String,
    expect: String,
    prints: Vec<String>,
}

/// The family the phrasebook's Words are listed under.
pub const PHRASEBOOK_FAMILY: &str = "phrasebook";

fn words_document(server: &AjisaiServer) -> String {
    let reg = registry();
    let mut families: Vec<Value> = Family::ALL
        .iter()
        .map(|family| {
            let words: Vec<WordDoc> = reg
                .specs()
                .iter()
                .filter(|s| s.family == *family)
                .map(|s| WordDoc {
                    name: s.name.to_string(),
                    aliases: s.aliases.iter().map(|a| a.to_string()).collect(),
                    family: family.id(),
                    tier: Some(s.tier.id()),
                    summary: s.summary.to_string(),
                    syntax: Some(s.syntax),
                    stack_effect: Some(s.stack_effect),
                    contract: Some(lookup::contract_line(s)),
                    errors: s.errors.iter().map(|e| e.id()).collect(),
                    rules: ajisai_words::reference::rules(s.name)
                        .map(ajisai_words::reference::without_links),
                    definition: None,
                    examples: s
                        .examples
                        .iter()
                        .map(|e| ExampleDoc {
                            source: e.source.to_string(),
                            expect: e.expect.to_string(),
                            prints: e.prints.iter().map(|p| p.to_string()).collect(),
                        })
                        .collect(),
                    phrasebook: false,
                })
                .collect();
            json!({ "id": family.id(), "words": words })
        })
        .collect();
    let phrasebook = server.phrasebook();
    let lines: Vec<&str> = phrasebook.text().lines().collect();
    let words: Vec<WordDoc> = phrasebook
        .entries()
        .iter()
        .map(|entry| WordDoc {
            name: entry.name.to_string(),
            aliases: Vec::new(),
            family: PHRASEBOOK_FAMILY,
            tier: None,
            summary: comment_above(&lines, entry.line as usize),
            syntax: None,
            stack_effect: None,
            contract: entry.contract.as_ref().map(|c| format!("#:{c}")),
            errors: Vec::new(),
            rules: None,
            definition: Some(entry.def_line.clone()),
            examples: entry
                .examples
                .iter()
                .map(|e| ExampleDoc {
                    source: e.source.to_string(),
                    expect: e.expect.to_string(),
                    prints: Vec::new(),
                })
                .collect(),
            phrasebook: true,
        })
        .collect();
    families.push(json!({ "id": PHRASEBOOK_FAMILY, "words": words }));
    // The names readers of other languages reach for, with the language's hint for each
    // (what an unknown name's error and `word_contract` answer): the dictionary's search
    // answers "dup" or "average" with it.
    let hints: Vec<Value> = ajisai_core::word::all_hints()
        .filter_map(|h| match h.answers {
            ajisai_core::word::HintFor::Names(names) => {
                Some(json!({ "names": names, "text": h.text }))
            }
            _ => None,
        })
        .collect();
    json!({ "families": families, "hints": hints }).to_string()
}

/// The comment lines (`# …`) just above an entry's directives, joined: what the
/// phrasebook says its Word is for. `def_line` is the entry's 1-based DEF line.
fn comment_above(lines: &[&str], def_line: usize) -> String {
    let mut at = def_line.saturating_sub(1);
    let mut comment: Vec<&str> = Vec::new();
    while at > 0 {
        at -= 1;
        let line = lines.get(at).map_or("", |l| l.trim());
        if line.starts_with("#:") {
            if !comment.is_empty() {
                break;
            }
            continue;
        }
        match line.strip_prefix('#') {
            Some(text) => comment.push(text.trim()),
            None => break,
        }
    }
    comment.reverse();
    comment.join(" ")
}

/// One tutorial example: the heading it is under, its program and its stated result.
#[derive(Serialize, Debug, PartialEq, Eq)]
struct TutorialExample {
    title: String,
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    expect: Option<String>,
}

fn examples_document() -> String {
    let chapters: Vec<Value> = TUTORIAL
        .iter()
        .map(|(title, text)| json!({ "title": title, "examples": tutorial_examples(text) }))
        .collect();
    json!({ "chapters": chapters }).to_string()
}

/// The examples of one tutorial page: each program of an `ajisai` block (programs are
/// separated by blank lines; `→ ` starts the stated result, `prints:` its output), titled
/// by the heading above it.
fn tutorial_examples(text: &str) -> Vec<TutorialExample> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut in_block = false;
    let mut source: Vec<&str> = Vec::new();
    let mut expect: Option<String> = None;
    let mut flush = |source: &mut Vec<&str>, expect: &mut Option<String>, heading: &str| {
        if !source.is_empty() {
            out.push(TutorialExample {
                title: heading.to_string(),
                source: source.join("\n"),
                expect: expect.take(),
            });
        }
        source.clear();
        *expect = None;
    };
    for line in text.lines() {
        if !in_block {
            if let Some(h) = line.strip_prefix('#') {
                heading = h.trim_start_matches('#').trim().to_string();
            } else if line.trim_end().starts_with("```ajisai") {
                in_block = true;
            }
            continue;
        }
        if line.starts_with("```") || line.trim().is_empty() {
            flush(&mut source, &mut expect, &heading);
            in_block = !line.starts_with("```");
        } else if let Some(result) = line.strip_prefix("→ ") {
            expect = Some(result.to_string());
        } else if line.starts_with("prints: ") && expect.is_some() {
            // The output is shown by running the example.
        } else if expect.is_none() {
            source.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tutorial_chapter_has_examples_with_results() {
        for (title, text) in TUTORIAL {
            let examples = tutorial_examples(text);
            assert!(!examples.is_empty(), "{title}");
            for e in &examples {
                assert!(
                    !e.source.is_empty() && !e.title.is_empty(),
                    "{title}: {e:?}"
                );
                assert!(e.expect.is_some(), "{title}: {e:?}");
                assert!(!e.source.contains('→'), "{title}: {e:?}");
            }
        }
        let first = tutorial_examples(TUTORIAL[0].1);
        assert_eq!(
            first[0],
            TutorialExample {
                title: "The stack".into(),
                source: "1 2 ADD".into(),
                expect: Some("3/1".into()),
            }
        );
    }

    #[test]
    fn the_tutorial_list_follows_the_guide() {
        let summary = include_str!("../../../docs/SUMMARY.md");
        let listed: Vec<&str> = summary
            .lines()
            .filter(|l| l.contains("(tutorial/") && !l.contains("tutorial/index.md"))
            .filter_map(|l| l.split_once('[')?.1.split_once(']').map(|(t, _)| t))
            .collect();
        let ours: Vec<&str> = TUTORIAL.iter().map(|(t, _)| *t).collect();
        assert_eq!(listed, ours);
    }

    #[test]
    fn a_phrasebook_words_summary_is_the_comment_above_it() {
        let lines = [
            "# header",
            "",
            "# Arithmetic mean of a Vector",
            "# of Numbers.",
            "#:contract MEAN inputs=1 outputs=1 field=closed",
            "#:example [ 1 2 ] MEAN => 3/2",
            "{ } 'MEAN' DEF",
        ];
        assert_eq!(
            comment_above(&lines, 7),
            "Arithmetic mean of a Vector of Numbers."
        );
    }
}
