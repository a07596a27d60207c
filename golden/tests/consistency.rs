//! Consistency of the three source tools (MCP-75, MCP-89; docs/mcp/outcomes.md, docs/mcp/verification.md):
//! C1–C7 over every golden source — the conformance corpus, the specification examples, the seed
//! cases, the limit probes, the golden case files (`cases.json`, `cases-contracts.json`) and the
//! phrasebook (the file itself, every DEF line, every example with its Word requested) — and over
//! the bilingual evaluation corpus (`eval/cases.json`), whose file format and expectations are
//! checked here too.
//!
//! Every call goes through the server in-process (`ajisai_server::mcp::AjisaiServer`):
//! the envelopes are exactly those a client receives, `mcp` block included. Bulk
//! sources run outside the concurrency gate and the wall-time deadline (a debug
//! build of a 100,000-step probe is slow, and a deadline would only turn the answer
//! into a host error); the evaluation corpus runs through the whole `tools/call` path.
//!
//! - **C1** `compute`: `outcome` is `error:<category>` on errors, else `nil:<reason>`
//!   iff the top slot is NIL with that reason, else `value`.
//! - **C2** A source that does not parse is `malformedSource` on all three tools with
//!   identical `message` and `error` (a parse-time limit likewise).
//! - **C3** `check` ok ⇒ `compute` never fails with `malformedSource`, `unknownWord`
//!   or `contractViolation`.
//! - **C4** `check` failing with `malformedSource`, `contractViolation` or a parse-time
//!   `resourceLimitExceeded` ⇒ `compute` fails identically, without executing.
//! - **C5** `check` and `infer_contracts` ok ⇒ the `suggested` lines, pasted above the
//!   source stripped of its own `#:contract` lines, all verify under `check`.
//! - **C6** The golden set holds a source `compute` runs and `check` refuses with
//!   `unknownWord`.
//! - **C7** Each tool answers byte-identically when asked twice.
//!
//! Presence rules of MCP-28 (docs/mcp/envelope.md#top-level-fields) are checked on the
//! way: `contractDecls` iff the source has a `#:contract` line, `prelude` iff Words were
//! requested.

use ajisai_core::compile as parser;
use ajisai_core::lexer;
use ajisai_core::Profile;
use ajisai_golden::{link, load, on_big_stack, Generator};
use ajisai_host::phrasebook::ServedPhrasebook;
use ajisai_server::mcp::{AjisaiServer, ServerOptions};
use ajisai_service::validate::ToolKind;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `sourceBytes` limit: longer sources never reach the engine (`sourceTooLarge`).
const SOURCE_BYTES: usize = 65_536;

/// One source and the phrasebook Words requested with it.
#[derive(Clone, Debug)]
struct Source {
    origin: String,
    text: String,
    words: Vec<String>,
}

impl Source {
    fn new(origin: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            origin: origin.into(),
            text: text.into(),
            words: Vec::new(),
        }
    }

    fn label(&self) -> String {
        let mut text: String = self.text.chars().take(80).collect();
        if text.len() < self.text.len() {
            text.push('…');
        }
        let words = if self.words.is_empty() {
            String::new()
        } else {
            format!(" words {:?}", self.words)
        };
        format!("{} `{}`{words}", self.origin, text.replace('\n', "⏎"))
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// The conformance corpus and the seed cases.
fn corpus_and_seed_sources() -> Vec<Source> {
    let mut out = Vec::new();
    let mut files = vec!["golden/conformance/cases.json".to_string()];
    let mut seeds: Vec<String> = std::fs::read_dir(root().join("golden/seed"))
        .expect("golden/seed")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .map(|n| format!("golden/seed/{n}"))
        .collect();
    seeds.sort();
    files.extend(seeds);
    for f in files {
        for case in load(&f, &read(&f)).cases {
            if let Ok(text) = case.program() {
                out.push(Source::new(format!("{f} {}", case.id), text));
            }
        }
    }
    out
}

/// Every example written in the specification.
fn spec_example_sources() -> Vec<Source> {
    let doc = json("golden/spec-examples.json");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            Source::new(
                format!("spec-examples {}", c["origin"].as_str().unwrap_or("?")),
                c["source"].as_str().expect("a source"),
            )
        })
        .collect()
}

/// The boundary probes of `golden/limits.json`.
fn limit_sources() -> Vec<Source> {
    let doc = json("golden/limits.json");
    let mut out = Vec::new();
    for (limit, entry) in doc["limits"].as_object().expect("limits") {
        for side in ["under", "over"] {
            let Some(probe) = entry.get(side) else {
                continue;
            };
            let text = match probe["kind"].as_str() {
                Some("source") => probe["source"].as_str().map(str::to_string),
                Some("generatedSource") => {
                    // The generator's name is the kind of `Generator`; the rest are its parameters.
                    let mut g = probe.as_object().cloned().unwrap_or_default();
                    let name = g.remove("generator").unwrap_or(Value::Null);
                    for k in ["kind", "expect", "expectAbsent", "tool", "note"] {
                        g.remove(k);
                    }
                    g.insert("kind".into(), name);
                    serde_json::from_value::<Generator>(Value::Object(g))
                        .ok()
                        .map(|g| g.source())
                }
                _ => None,
            };
            if let Some(text) = text {
                out.push(Source::new(format!("limits.json {limit} {side}"), text));
            }
        }
    }
    out
}

/// The source-tool cases of a golden case file (MCP-85), when the file exists.
fn case_file_sources(path: &str) -> Vec<Source> {
    if !root().join(path).exists() {
        return Vec::new();
    }
    let doc = json(path);
    let mut out = Vec::new();
    for c in doc["cases"].as_array().expect("cases") {
        let tool = c.get("tool").and_then(Value::as_str).unwrap_or("compute");
        if tool == "word_contract" {
            continue;
        }
        let args = &c["arguments"];
        let Some(text) = args.get("source").and_then(Value::as_str) else {
            continue;
        };
        let words = requested_words(args);
        out.push(Source {
            origin: format!("{path} {}", c["name"].as_str().unwrap_or("?")),
            text: text.to_string(),
            words,
        });
    }
    out
}

/// The phrasebook Words a case's `arguments.words` requests (none when absent).
fn requested_words(arguments: &Value) -> Vec<String> {
    arguments
        .get("words")
        .and_then(Value::as_array)
        .map(|w| {
            w.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The phrasebook: the whole file, each DEF line, each example with its Word requested.
fn phrasebook_sources() -> Vec<Source> {
    link();
    let book = ServedPhrasebook::embedded().unwrap_or_else(|f| panic!("{}", f.diagnostic()));
    let mut out = vec![Source::new("phrasebook (the whole file)", book.text())];
    for e in book.entries() {
        out.push(Source::new(
            format!("phrasebook {} DEF", e.name),
            &*e.def_line,
        ));
        for ex in &e.examples {
            out.push(Source {
                origin: format!("phrasebook line {}", ex.line),
                text: ex.source.to_string(),
                words: vec![e.name.to_string()],
            });
        }
    }
    out
}

/// The source-tool cases of the evaluation corpus.
fn eval_sources() -> Vec<Source> {
    let doc = json("eval/cases.json");
    let mut out = Vec::new();
    for c in doc["cases"].as_array().expect("cases") {
        let Some(text) = c["arguments"].get("source").and_then(Value::as_str) else {
            continue;
        };
        let words = requested_words(&c["arguments"]);
        out.push(Source {
            origin: format!("eval {}", c["id"].as_str().unwrap_or("?")),
            text: text.to_string(),
            words,
        });
    }
    out
}

/// One tool's answer: the text a client receives and its parsed envelope.
struct Answer {
    text: String,
    v: Value,
}

/// Run `tool` on a source; `None` when its `words` do not resolve (a host error).
fn answer(server: &AjisaiServer, tool: ToolKind, text: &str, words: &[String]) -> Option<Answer> {
    let text = server
        .execute_now_with(tool, text, words)
        .ok()?
        .into_envelope();
    let v: Value = serde_json::from_str(&text).expect("the text block is JSON");
    Some(Answer { text, v })
}

/// What one source showed, beyond its problems.
#[derive(Default)]
struct Seen {
    /// C3 exemptions: failures only running can decide.
    run_time_only: usize,
    /// C6: `compute` ok and `check` `unknownWord`.
    stricter: bool,
    /// C5 was exercised with at least one suggested line.
    suggested: bool,
}

fn category(v: &Value) -> Option<&str> {
    v["error"]["category"].as_str()
}

/// Whether the source has a `#:contract` directive line (by the lexer's reading).
fn has_contract_line(text: &str) -> bool {
    lexer::lex(text, 0).is_ok_and(|l| {
        l.directives.iter().any(|d| {
            d.text
                .strip_prefix("contract")
                .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        })
    })
}

/// The source without its `#:contract` lines (each replaced by an empty line).
fn strip_contract_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let t = line.trim_start();
            let directive = t
                .strip_prefix("#:contract")
                .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace));
            if directive {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a `compute` failure after a clean `check` is decided by running alone.
///
/// `check` resolves names exactly as docs/contracts.md#what-check-promises states — a User Word
/// defined anywhere, a name bound anywhere — and validates form as
/// docs/reference/lexical.md#structural-validation states, where a block holding `|` is well formed
/// because `COND` may read it. The language then decides at run time, and the specification's own
/// examples show it: `'W' DEL` removes a Word (`{ 1 } 'W' DEF 'w' DEL W`), a binding is visible
/// only in its frame (`5 'T' BIND { T } 'F' DEF F`), a String run as code names a Word no token
/// names (`5 'FOO' MAP`), `EXEC` or `DEF` refuse a `|` block (`{ 1 | 2 } EXEC`), and a lone `IDLE`,
/// which docs/contracts.md#what-check-promises accepts as a block's only token because `COND` may
/// read it as its else-guard, is an unknown name anywhere else (`{ IDLE } EXEC`). These are the
/// only ways C3 may be crossed; anything else is a defect of `check`.
enum RunTimeOnly {
    /// `unknownWord` for a name the source defines or binds somewhere (DEL, frames),
    /// that no name token of the source spells (a String run as code), or `IDLE` (which
    /// `check` accepts only where `COND` may read it).
    UnknownName(String),
    /// `malformedSource` raised by a Word that evaluated a `|` block.
    BarBlock,
}

impl RunTimeOnly {
    /// Whether the source really is as the reason says.
    fn holds(&self, program: &ajisai_core::code::Program, prelude: &BTreeSet<String>) -> bool {
        match self {
            RunTimeOnly::UnknownName(n) => {
                let (defined, bound) = ajisai_core::check::defined_and_bound(&program.block);
                n == "IDLE"
                    || defined.contains(n)
                    || bound.contains(n)
                    || prelude.contains(n)
                    || !name_tokens(&program.block).contains(n)
            }
            RunTimeOnly::BarBlock => true,
        }
    }
}

/// The reason a `compute` failure is decided by running, if it can be one.
fn run_time_only(c: &Value) -> Option<RunTimeOnly> {
    let word = c["error"]["word"].as_str();
    let steps = c["resourceUsage"]["executionSteps"].as_u64().unwrap_or(0);
    match (category(c), word) {
        // Raised by a Word that ran (a parse-time failure names none and runs nothing).
        (Some("malformedSource"), Some(_)) if steps > 0 => Some(RunTimeOnly::BarBlock),
        (Some("unknownWord"), Some(w)) => {
            Some(RunTimeOnly::UnknownName(ajisai_core::code::normalize(w)))
        }
        _ => None,
    }
}

/// Every Word-name token of a program (outside vector literals; blocks inside them
/// count), normalized.
fn name_tokens(block: &ajisai_core::code::Block) -> BTreeSet<String> {
    use ajisai_core::code::Item;
    let mut out = BTreeSet::new();
    let mut work: Vec<(&[Item], bool)> = vec![(block.items(), false)];
    while let Some((items, in_vector)) = work.pop() {
        for item in items {
            match item {
                Item::Name { name, .. } if !in_vector => {
                    out.insert(name.normalized.to_string());
                }
                Item::Vector { items, .. } => work.push((items, true)),
                Item::Block { block, .. } => work.push((block.items(), false)),
                _ => {}
            }
        }
    }
    out
}

/// The phrasebook Words a call defines for `words` (canonical names).
fn prelude_names(server: &AjisaiServer, words: &[String]) -> BTreeSet<String> {
    let book = server.phrasebook();
    let names = book.resolve("compute", words).unwrap_or_default();
    book.prelude(&names)
        .iter()
        .map(|e| e.name.to_string())
        .collect()
}

/// C1–C5 and C7 for one source, plus the presence rules. Problems are returned.
fn verify(server: &AjisaiServer, src: &Source) -> (Vec<String>, Seen) {
    let mut problems = Vec::new();
    let mut seen = Seen::default();
    let mut fail = |what: String| problems.push(format!("{}: {what}", src.label()));
    if src.text.is_empty() || src.text.len() > SOURCE_BYTES {
        return (problems, seen);
    }
    let run = |tool| answer(server, tool, &src.text, &src.words);
    let (Some(compute), Some(check), Some(infer)) = (
        run(ToolKind::COMPUTE),
        run(ToolKind::CHECK),
        run(ToolKind::INFER_CONTRACTS),
    ) else {
        // The words do not resolve: every tool answers the same host error instead.
        return (problems, seen);
    };
    let (c, k, i) = (&compute.v, &check.v, &infer.v);

    // C7: the same request answers byte-identically.
    for (tool, first) in [
        (ToolKind::COMPUTE, &compute),
        (ToolKind::CHECK, &check),
        (ToolKind::INFER_CONTRACTS, &infer),
    ] {
        match run(tool) {
            Some(again) if again.text == first.text => {}
            _ => fail(format!(
                "C7: {} answered differently the second time",
                tool.name()
            )),
        }
    }

    // C1: outcome agrees with status, error.category and the top slot.
    let outcome = c["outcome"].as_str().unwrap_or_default();
    match c["status"].as_str() {
        Some("error") => {
            let want = format!("error:{}", category(c).unwrap_or("?"));
            if outcome != want {
                fail(format!("C1: outcome {outcome}, error.category says {want}"));
            }
        }
        Some("ok") => {
            let top = c["stack"].as_array().and_then(|s| s.last());
            let want = match top {
                Some(node) if node["type"] == "nil" => format!(
                    "nil:{}",
                    node["semantics"]["absence"]["reason"]
                        .as_str()
                        .unwrap_or("?")
                ),
                _ => "value".to_string(),
            };
            if outcome != want {
                fail(format!("C1: outcome {outcome}, the top slot says {want}"));
            }
        }
        other => fail(format!("compute status {other:?}")),
    }

    // C2: unparsable source is the same error on all three tools.
    let parsed = parser::parse(&src.text, &Profile::MCP_LOCAL_STDIO, 0);
    if parsed.is_err() {
        for (tool, v) in [("check", k), ("infer_contracts", i)] {
            if v["message"] != c["message"] || v["error"] != c["error"] {
                fail(format!(
                    "C2: {tool} answers {} / {}, compute {} / {}",
                    v["message"], v["error"], c["message"], c["error"]
                ));
            }
        }
        if !matches!(
            category(c),
            Some("malformedSource" | "resourceLimitExceeded")
        ) {
            fail(format!("C2: unparsable source answered {:?}", category(c)));
        }
    } else if category(k) == Some("malformedSource") || category(i) == Some("malformedSource") {
        fail("C2: a source that parses is malformedSource to a static tool".into());
    }

    // C3: a clean check means form and names never make execution fail — the form and
    // names check can see. What only running decides is not a C3 failure (see
    // `run_time_only`).
    if k["status"] == "ok" {
        if let Some(cat @ ("malformedSource" | "unknownWord" | "contractViolation")) = category(c) {
            let prelude = prelude_names(server, &src.words);
            match (&parsed, run_time_only(c)) {
                (Ok(program), Some(reason)) if reason.holds(program, &prelude) => {
                    seen.run_time_only += 1;
                }
                _ => fail(format!(
                    "C3: check is ok but compute fails with {cat}: {}",
                    c["message"]
                )),
            }
        }
    }

    // C4: form failures and declarations stop compute identically, before execution.
    if let Some("malformedSource" | "contractViolation" | "resourceLimitExceeded") = category(k) {
        if c["message"] != k["message"] || c["error"] != k["error"] {
            fail(format!(
                "C4: check {} / {}, compute {} / {}",
                k["message"], k["error"], c["message"], c["error"]
            ));
        }
        if c.get("contractDecls") != k.get("contractDecls") {
            fail("C4: compute and check report different contractDecls".into());
        }
        let zero = serde_json::json!({"executionSteps": 0, "numericWork": 0, "collectionWork": 0});
        if c["stack"] != serde_json::json!([])
            || c["output"] != serde_json::json!([])
            || c["resourceUsage"] != zero
        {
            fail("C4: compute executed before failing".into());
        }
    }

    // C5: the suggested lines verify.
    if k["status"] == "ok" && i["status"] == "ok" {
        let suggested: Vec<&str> = i["contracts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["suggested"].as_str())
            .collect();
        let stripped = strip_contract_lines(&src.text);
        let pasted = if suggested.is_empty() {
            stripped
        } else {
            format!("{}\n{stripped}", suggested.join("\n"))
        };
        if pasted.len() <= SOURCE_BYTES {
            seen.suggested |= !suggested.is_empty();
            match answer(server, ToolKind::CHECK, &pasted, &src.words) {
                Some(a) if a.v["status"] == "ok" => {
                    let decls = a.v["contractDecls"]["declarations"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    let verified = decls.iter().filter(|d| d["verdict"] == "verified").count();
                    if decls.len() != suggested.len() || verified != decls.len() {
                        fail(format!(
                            "C5: {} suggested lines, declarations {}",
                            suggested.len(),
                            a.v["contractDecls"]
                        ));
                    }
                }
                Some(a) => fail(format!(
                    "C5: the pasted source fails check: {}",
                    a.v["message"]
                )),
                None => fail("C5: the pasted source was refused".into()),
            }
        }
    }

    // C6 (collected): execution tolerates what check refuses.
    seen.stricter = c["status"] == "ok" && category(k) == Some("unknownWord");

    // Presence (MCP-28): contractDecls iff a directive line; prelude iff Words requested.
    if parsed.is_ok() {
        let want = has_contract_line(&src.text);
        for (tool, v) in [("compute", c), ("check", k)] {
            if v.get("contractDecls").is_some() != want {
                fail(format!("MCP-28: {tool} contractDecls present = {}", !want));
            }
        }
    }
    for (tool, v) in [("compute", c), ("check", k), ("infer_contracts", i)] {
        if v.get("prelude").is_some() == src.words.is_empty() {
            fail(format!("MCP-28: {tool} prelude with words {:?}", src.words));
        }
    }
    (problems, seen)
}

/// Verify every source; panics listing every problem.
fn verify_all(what: &str, sources: Vec<Source>) -> (usize, bool, bool) {
    assert!(!sources.is_empty(), "{what}: no sources");
    let what = what.to_string();
    on_big_stack(move || {
        link();
        ajisai_host::memory::install();
        ajisai_host::reaper::install();
        let server = AjisaiServer::new(ServerOptions::production());
        let mut problems = Vec::new();
        let (mut stricter, mut suggested, mut run_time_only) = (false, false, 0);
        for src in &sources {
            let (mut p, seen) = verify(&server, src);
            problems.append(&mut p);
            stricter |= seen.stricter;
            suggested |= seen.suggested;
            run_time_only += seen.run_time_only;
        }
        println!(
            "{what}: {} sources; {run_time_only} compute failure(s) after a clean check were decided by running alone",
            sources.len()
        );
        assert!(
            problems.is_empty(),
            "{what}: {} problem(s) over {} sources:\n{}",
            problems.len(),
            sources.len(),
            problems.join("\n")
        );
        (sources.len(), stricter, suggested)
    })
}

#[test]
fn c1_to_c7_hold_over_the_conformance_corpus_and_the_seed_cases() {
    let (n, _, _) = verify_all("corpus and seed", corpus_and_seed_sources());
    assert!(n >= 537, "{n}");
}

#[test]
fn c1_to_c7_hold_over_the_specification_examples_and_the_limit_probes() {
    let mut sources = spec_example_sources();
    sources.extend(limit_sources());
    let (n, _, _) = verify_all("specification examples and limits", sources);
    assert!(n >= 595, "{n}");
}

#[test]
fn c1_to_c7_hold_over_the_golden_cases_and_the_phrasebook_and_c6_is_shown() {
    let mut sources = case_file_sources("golden/cases.json");
    sources.extend(case_file_sources("golden/cases-contracts.json"));
    sources.extend(phrasebook_sources());
    let (_, stricter, suggested) = verify_all("golden cases and phrasebook", sources);
    assert!(
        stricter,
        "C6: the golden set shows a source compute runs and check refuses"
    );
    assert!(suggested, "C5 was exercised with suggested lines");
}

#[test]
fn c1_to_c7_hold_over_the_evaluation_corpus() {
    verify_all("eval/cases.json", eval_sources());
}

/// The ids `eval/performance.json` measures (MCP-91): they must come from the corpus.
const PERFORMANCE_IDS: [(&str, &str); 7] = [
    ("exact-fraction", "compute"),
    ("decimal-no-float", "compute"),
    ("algebraic-sqrt", "compute"),
    ("vector-broadcast", "compute"),
    ("static-check", "check"),
    ("contract-inference", "infer_contracts"),
    ("word-contract", "word_contract"),
];

const CATEGORIES: [&str; 11] = [
    "exactArithmetic",
    "algebraic",
    "nil",
    "collections",
    "errors",
    "phrasebook",
    "check",
    "contracts",
    "inference",
    "lookup",
    "noCall",
];

fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

#[test]
fn the_evaluation_corpus_is_well_formed() {
    let doc = json("eval/cases.json");
    assert_eq!(doc["schemaVersion"], 1);
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut ids = BTreeSet::new();
    let mut tools = std::collections::BTreeMap::<String, usize>::new();
    for c in cases {
        let obj = c.as_object().expect("a case is an object");
        let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            BTreeSet::from([
                "arguments",
                "category",
                "expect",
                "expectedTool",
                "id",
                "prompts"
            ]),
            "{c}"
        );
        let id = c["id"].as_str().expect("an id");
        assert!(
            !id.is_empty()
                && id
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
            "{id}: kebab-case"
        );
        assert!(ids.insert(id.to_string()), "{id}: duplicate id");
        let category = c["category"].as_str().expect("a category");
        assert!(CATEGORIES.contains(&category), "{id}: category {category}");
        let en = c["prompts"]["en"].as_str().expect("an English prompt");
        let ja = c["prompts"]["ja"].as_str().expect("a Japanese prompt");
        assert_eq!(c["prompts"].as_object().map(|p| p.len()), Some(2), "{id}");
        assert!(!en.trim().is_empty() && !ja.trim().is_empty(), "{id}");
        assert_ne!(en, ja, "{id}: the two prompts must differ");
        assert!(
            ja.chars().any(is_japanese),
            "{id}: the ja prompt is Japanese"
        );
        assert!(
            !en.chars().any(is_japanese),
            "{id}: the en prompt is English"
        );
        match c["expectedTool"].as_str() {
            None => {
                assert!(c["expectedTool"].is_null(), "{id}");
                assert!(c["arguments"].is_null(), "{id}: no call, no arguments");
                assert!(c["expect"].is_null(), "{id}: no call, no expectation");
                assert_eq!(category, "noCall", "{id}");
                *tools.entry("(none)".into()).or_default() += 1;
            }
            Some(tool) => {
                let kind = ToolKind::from_name(tool).unwrap_or_else(|| panic!("{id}: {tool}"));
                let args = c["arguments"].as_object().expect("arguments");
                for k in args.keys() {
                    assert!(kind.accepted().contains(&k.as_str()), "{id}: argument {k}");
                }
                let expect = c["expect"].as_object().expect("expect");
                assert!(expect.contains_key("/status"), "{id}: expects a status");
                for p in expect.keys() {
                    assert!(p.starts_with('/'), "{id}: {p} is a JSON Pointer");
                }
                assert_ne!(category, "noCall", "{id}");
                *tools.entry(tool.into()).or_default() += 1;
            }
        }
    }
    for tool in [
        "compute",
        "check",
        "infer_contracts",
        "word_contract",
        "(none)",
    ] {
        let n = tools.get(tool).copied().unwrap_or(0);
        assert!(n >= 3, "{tool}: {n} cases (at least 3 each)");
    }
    for (id, tool) in PERFORMANCE_IDS {
        let c = cases
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("MCP-91 measures {id}: it must be in the corpus"));
        assert_eq!(c["expectedTool"], tool, "{id}");
    }
}

#[test]
fn every_evaluation_case_answers_as_expected_through_the_server() {
    let doc = json("eval/cases.json");
    let cases: Vec<Value> = doc["cases"].as_array().expect("cases").clone();
    let failures = on_big_stack(move || {
        link();
        ajisai_host::memory::install();
        ajisai_host::reaper::install();
        let server = AjisaiServer::new(ServerOptions::production());
        let rt = ajisai_server::mcp::startup::version::runtime().expect("a runtime");
        let mut failures = Vec::new();
        for c in &cases {
            let id = c["id"].as_str().unwrap_or("?");
            let Some(tool) = c["expectedTool"].as_str() else {
                continue;
            };
            let answer = rt
                .block_on(server.call_with_delivery(
                    tool,
                    Some(&c["arguments"]),
                    tokio_util::sync::CancellationToken::new(),
                    Default::default(),
                ))
                .expect("not cancelled");
            let v: Value = serde_json::from_str(answer.envelope()).expect("JSON");
            if v["status"] == "hostError" && c["expect"]["/status"] != "hostError" {
                failures.push(format!("{id}: unexpected host error {v}"));
                continue;
            }
            for (pointer, want) in c["expect"].as_object().expect("expect") {
                let got = v.pointer(pointer);
                if got != Some(want) {
                    failures.push(format!("{id}: {pointer} is {got:?}, expected {want}"));
                }
            }
        }
        rt.shutdown_background();
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn c3_exemptions_are_only_what_running_decides() {
    link();
    let parse = |s: &str| parser::parse(s, &Profile::MCP_LOCAL_STDIO, 0).expect("parses");
    let none = BTreeSet::new();
    let unknown = |n: &str| RunTimeOnly::UnknownName(n.to_string());
    // Deleted, out of its frame, or never a token: only running tells.
    assert!(unknown("W").holds(&parse("{ 1 } 'W' DEF 'w' DEL W"), &none));
    assert!(unknown("T").holds(&parse("5 'T' BIND { T } 'F' DEF F"), &none));
    assert!(unknown("FOO").holds(&parse("5 'FOO' MAP"), &none));
    let mean = BTreeSet::from(["MEAN".to_string()]);
    assert!(unknown("MEAN").holds(&parse("'MEAN' DEL [ 1 ] MEAN"), &mean));
    assert!(unknown("IDLE").holds(&parse("{ IDLE } EXEC"), &none));
    // A name token nothing defines is check's to find: never exempt.
    assert!(!unknown("FOO").holds(&parse("1 FOO"), &none));
    assert!(!unknown("FOO").holds(&parse("{ [ { FOO } ] } 'W' DEF"), &none));
    // A parse-time malformedSource runs nothing and names no Word: never exempt.
    let parse_time = serde_json::json!({"error": {"category": "malformedSource"}, "resourceUsage": {"executionSteps": 0}});
    assert!(run_time_only(&parse_time).is_none());
    let contract = serde_json::json!({"error": {"category": "contractViolation", "word": "INC"}});
    assert!(run_time_only(&contract).is_none());
}

#[test]
fn contract_lines_are_found_and_stripped_as_directives() {
    assert!(has_contract_line("#:contract A inputs=1\n{ 1 } 'A' DEF"));
    assert!(has_contract_line("  #:contract A"));
    assert!(!has_contract_line("#:contracts A inputs=1\n1"));
    assert!(!has_contract_line("'#:contract A' 1"));
    assert_eq!(
        strip_contract_lines("#:contract A inputs=1\n  #:contract B\n#:contracts C\n1"),
        "\n\n#:contracts C\n1"
    );
}

/// `eval/performance.json` (MCP-91) measures corpus cases: when it lists their arguments
/// too, they must be the corpus's.
#[test]
fn the_performance_cases_are_the_corpus_cases() {
    if !root().join("eval/performance.json").exists() {
        return;
    }
    let perf = json("eval/performance.json");
    let corpus = json("eval/cases.json");
    let ids: Vec<&str> = perf["caseIds"]
        .as_array()
        .expect("caseIds")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(ids, PERFORMANCE_IDS.map(|(id, _)| id));
    for id in ids {
        let case = corpus["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id} is not in eval/cases.json"));
        if let Some(measured) = perf.get("cases").and_then(|c| c.get(id)) {
            assert_eq!(measured["tool"], case["expectedTool"], "{id}");
            assert_eq!(measured["arguments"], case["arguments"], "{id}");
        }
    }
}
