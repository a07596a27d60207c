//! `--doctor` (MCP-8; docs/mcp/transports.md): the startup sequence as reported checks, plus two real
//! computations through the full compute path and a parity run on every backend.
//!
//! Output: the `--version` block, a blank line, one `ok    <label> — <detail>` or
//! `FAIL  <label> — <reason>` line per check, a blank line and a summary. A failing
//! check does not stop independent ones; a check whose prerequisite failed reports
//! `FAIL … skipped: <prerequisite>`.

use super::version::{self, EXIT_FAULT, EXIT_OK};
use ajisai_core::numerics;
use ajisai_host::content;
use ajisai_host::phrasebook::{Fault, ServedPhrasebook};
use ajisai_service::config::ServerOptions;
use ajisai_service::validate::ToolKind;
use ajisai_service::AjisaiServer;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The program of D5.
pub const EXACT_RATIONAL: &str = "2 3 DIV 1 3 DIV ADD";

/// The program of D6.
pub const ALGEBRAIC_VALUE: &str = "2 SQRT";

/// A parity program whose rationals outgrow machine words, so every rational operation
/// of the backend trait runs on each backend (sums, a difference, a quotient, products,
/// comparisons by SORT).
pub const WIDE_RATIONALS: &str = "1 60 RANGE -1 POW SUM 1 50 RANGE -1 POW SUM DIV 'Q' BIND [ 1 3 -1 1/7 -2 ] { Q * } MAP SORT Q 2 POW 1 40 RANGE 2 POW -1 POW SUM -";

/// One reported check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The label.
    pub label: &'static str,
    /// `Ok(detail)` or `Err(reason)`.
    pub result: Result<String, String>,
}

impl Check {
    /// The check's output line.
    pub fn line(&self) -> String {
        match &self.result {
            Ok(detail) => format!("ok    {} — {}", self.label, detail),
            Err(reason) => format!("FAIL  {} — {}", self.label, reason),
        }
    }
}

fn skipped(label: &'static str, prerequisite: &str) -> Check {
    Check {
        label,
        result: Err(format!("skipped: {prerequisite}")),
    }
}

/// Run every check and print the report; the result is the exit code.
pub fn run() -> u8 {
    ajisai_host::backend::link();
    // Backend first: reading the phrasebook must not fix one by itself.
    let selected = ajisai_host::backend::select_from_env();
    let phrasebook = ServedPhrasebook::from_env();
    print!("{}", version::version_text(&selected, &phrasebook));
    println!();
    let checks = checks(&selected, &phrasebook);
    for c in &checks {
        println!("{}", c.line());
    }
    println!();
    let failed = checks.iter().filter(|c| c.result.is_err()).count();
    if failed == 0 {
        println!("doctor: {} checks passed", checks.len());
        EXIT_OK
    } else {
        println!("doctor: {failed} of {} checks failed", checks.len());
        EXIT_FAULT
    }
}

/// The seven checks, D1 to D7, for the selected backend and the effective phrasebook.
pub fn checks(
    selected: &Result<numerics::Selected, ajisai_host::backend::BackendChoiceError>,
    phrasebook: &Result<ServedPhrasebook, Fault>,
) -> Vec<Check> {
    let mut out = Vec::with_capacity(7);
    // D1 runtime.
    let runtime = version::runtime().map_err(|e| format!("cannot start the async runtime: {e}"));
    let runtime = runtime.and_then(|rt| {
        let pool = rt.block_on(async { tokio::task::spawn_blocking(|| 1 + 1).await });
        match pool {
            Ok(2) => Ok(rt),
            Ok(_) | Err(_) => Err("the blocking execution pool does not run tasks".to_string()),
        }
    });
    out.push(Check {
        label: "runtime",
        result: runtime
            .as_ref()
            .map(|_| build_detail())
            .map_err(Clone::clone),
    });
    // D2 embedded assets.
    let c = content::content();
    out.push(Check {
        label: "embedded assets",
        result: content::verify()
            .map(|()| {
                format!(
                    "assetDigest {}, registryDigest {}",
                    c.asset_digest, c.registry_digest
                )
            })
            .map_err(|e| e.to_string()),
    });
    // D3 phrasebook: loading verified structure, names, order, digests and contracts;
    // the examples run on the selected backend.
    let server = AjisaiServer::with_phrasebook(
        ServerOptions::production(),
        phrasebook
            .clone()
            .unwrap_or_else(|_| ServedPhrasebook::empty()),
    );
    out.push(Check {
        label: "phrasebook",
        result: match (phrasebook, selected) {
            (Err(f), _) => Err(f.problem()),
            (Ok(p), Err(_)) => Err(format!(
                "{}; examples skipped: numeric backend",
                p.summary()
            )),
            (Ok(p), Ok(_)) => phrasebook_examples(&server, p),
        },
    });
    // D4 numeric backend.
    out.push(Check {
        label: "numeric backend",
        result: match selected {
            Ok(s) => Ok(format!(
                "{} — {}",
                version::numerics_text(selected),
                s.reason
            )),
            Err(e) => Err(e.to_string()),
        },
    });
    let prerequisite = match (&runtime, selected) {
        (Err(_), _) => Some("runtime"),
        (_, Err(_)) => Some("numeric backend"),
        _ => None,
    };
    match (runtime, prerequisite) {
        (Ok(rt), None) => {
            out.push(Check {
                label: "exact rational",
                result: exact_rational(&rt, &server),
            });
            out.push(Check {
                label: "algebraic value",
                result: algebraic_value(&rt, &server),
            });
            let phrase_examples = phrasebook.as_ref().map(examples).unwrap_or_default();
            out.push(Check {
                label: "backend parity",
                result: parity(&rt, &server, &phrase_examples),
            });
            rt.shutdown_background();
        }
        (_, p) => {
            let p = p.unwrap_or("runtime");
            for label in ["exact rational", "algebraic value", "backend parity"] {
                out.push(skipped(label, p));
            }
        }
    }
    out
}

fn build_detail() -> String {
    let memory = ServerOptions::production().memory_bytes();
    let counted = if ajisai_host::memory::counting() {
        "every allocation counted"
    } else {
        "allocations not counted in this executable"
    };
    format!(
        "tokio multi-thread runtime and blocking pool started; {}, {} build, {}; memoryBytes {memory} per execution ({counted})",
        env!("AJISAI_BUILD_TARGET"),
        env!("AJISAI_BUILD_PROFILE"),
        env!("AJISAI_BUILD_RUSTC")
    )
}

/// Call `compute` on `source` through the server's full path.
fn compute(
    rt: &tokio::runtime::Runtime,
    server: &AjisaiServer,
    source: &str,
) -> Result<Value, String> {
    let args = serde_json::json!({ "source": source });
    let answer = rt
        .block_on(server.call_with_delivery(
            "compute",
            Some(&args),
            CancellationToken::new(),
            Default::default(),
        ))
        .ok_or_else(|| "the call was cancelled".to_string())?;
    serde_json::from_str(answer.envelope()).map_err(|e| format!("the envelope is not JSON: {e}"))
}

fn exact_rational(rt: &tokio::runtime::Runtime, server: &AjisaiServer) -> Result<String, String> {
    let v = compute(rt, server, EXACT_RATIONAL)?;
    let display = v["stackDisplay"].clone();
    if v["status"] == "ok" && v["outcome"] == "value" && display == serde_json::json!(["1/1"]) {
        Ok(format!(
            "`{EXACT_RATIONAL}` → 1/1 (status ok, outcome value)"
        ))
    } else {
        Err(format!(
            "`{EXACT_RATIONAL}` answered status {}, outcome {}, stackDisplay {display}; expected ok, value, [\"1/1\"]",
            v["status"], v["outcome"]
        ))
    }
}

fn algebraic_value(rt: &tokio::runtime::Runtime, server: &AjisaiServer) -> Result<String, String> {
    let v = compute(rt, server, ALGEBRAIC_VALUE)?;
    let terms = v["stack"][0]["semantics"]["exactTerms"].clone();
    let expected = serde_json::json!([{"numerator":"1","denominator":"1","radicand":"2"}]);
    let approximate = v["stack"][0]["semantics"]["approximate"] == true;
    let display = v["stackDisplay"].clone();
    if terms == expected && approximate && display == serde_json::json!(["sqrt(2)"]) {
        Ok(format!(
            "`{ALGEBRAIC_VALUE}` → sqrt(2) (exactTerms 1/1·√2, value flagged approximate)"
        ))
    } else {
        Err(format!(
            "`{ALGEBRAIC_VALUE}` answered exactTerms {terms}, approximate {approximate}, stackDisplay {display}; expected {expected}, true, [\"sqrt(2)\"]"
        ))
    }
}

/// The envelope text of a result with `mcp.backend` removed.
fn without_backend(text: &str) -> Result<String, String> {
    let mut v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if let Some(mcp) = v.get_mut("mcp").and_then(Value::as_object_mut) {
        mcp.remove("backend");
    }
    serde_json::to_string(&v).map_err(|e| e.to_string())
}

/// One program D7 compares: a source and the phrasebook Words it requests.
#[derive(Clone, Debug)]
struct Program {
    source: String,
    words: Vec<String>,
    /// The expected display of a phrasebook example (D3).
    expect: Option<String>,
    /// Where it came from, for messages.
    label: String,
}

/// Every `#:example` of the phrasebook, each requesting only the Word it documents.
fn examples(p: &ServedPhrasebook) -> Vec<Program> {
    p.entries()
        .iter()
        .flat_map(|e| {
            e.examples.iter().map(|ex| Program {
                source: ex.source.to_string(),
                words: vec![e.name.to_string()],
                expect: Some(ex.expect.to_string()),
                label: format!("phrasebook line {} `{}`", ex.line, ex.source),
            })
        })
        .collect()
}

/// The envelope text of one program through the compute path (no gate, no deadline).
fn envelope_text(server: &AjisaiServer, program: &Program) -> Result<String, String> {
    let r = server
        .execute_now_with(ToolKind::COMPUTE, &program.source, &program.words)
        .map_err(|e| format!("{}: {}", program.label, e.message))?;
    Ok(r.into_envelope())
}

/// D3's examples: each runs with only its own Word requested and must show its
/// expected display (`error:<category>` expects that outcome instead).
fn phrasebook_examples(server: &AjisaiServer, p: &ServedPhrasebook) -> Result<String, String> {
    let programs = examples(p);
    let mut failures = Vec::new();
    for program in &programs {
        let text = envelope_text(server, program)?;
        let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let expect = program.expect.as_deref().unwrap_or_default();
        let got = if v["status"] == "ok" {
            v["stackDisplay"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        } else {
            v["outcome"].as_str().unwrap_or_default().to_string()
        };
        if got != expect {
            failures.push(format!("{} gave {got}, expected {expect}", program.label));
        }
    }
    match failures.as_slice() {
        [] => Ok(format!(
            "{}; digests and contracts verified; {} examples hold",
            p.summary(),
            programs.len()
        )),
        [only] => Err(only.clone()),
        [first, rest @ ..] => Err(format!("{first} (and {} more)", rest.len())),
    }
}

fn parity(
    rt: &tokio::runtime::Runtime,
    server: &AjisaiServer,
    examples: &[Program],
) -> Result<String, String> {
    // Every available backend: the built-in ones and a configured, loaded plugin.
    let backends = ajisai_host::backend::available();
    let label = |b: &numerics::Selected| format!("{} ({})", b.backend.kind().id(), b.origin.id());
    if backends.len() < 2 {
        let only = backends
            .first()
            .map(|b| b.backend.kind().id())
            .unwrap_or("no backend");
        return Ok(format!("only {only} available"));
    }
    let mut programs: Vec<Program> = [EXACT_RATIONAL, ALGEBRAIC_VALUE, WIDE_RATIONALS]
        .iter()
        .map(|p| Program {
            source: p.to_string(),
            words: Vec::new(),
            expect: None,
            label: format!("`{p}`"),
        })
        .collect();
    programs.extend_from_slice(examples);
    let programs = std::sync::Arc::new(programs);
    let mut reference: Option<(String, Vec<String>)> = None;
    for b in &backends {
        let backend = b.backend;
        let s = server.clone();
        let list = std::sync::Arc::clone(&programs);
        let envelopes = rt
            // spawn_blocking needs the runtime's context: create the task inside it.
            .block_on(async move {
                tokio::task::spawn_blocking(move || {
                    numerics::with_backend(backend, || {
                        list.iter()
                            .map(|p| envelope_text(&s, p).and_then(|t| without_backend(&t)))
                            .collect::<Result<Vec<String>, String>>()
                    })
                })
                .await
            })
            .map_err(|e| format!("{} run failed: {e}", label(b)))??;
        match &reference {
            None => reference = Some((label(b), envelopes)),
            Some((first, expected)) => {
                for (i, (a, e)) in envelopes.iter().zip(expected).enumerate() {
                    if a != e {
                        return Err(format!(
                            "{} differs between {first} and {}",
                            programs[i].label,
                            label(b)
                        ));
                    }
                }
            }
        }
    }
    let kinds: Vec<String> = backends.iter().map(label).collect();
    Ok(format!(
        "{}: {} computations ({} phrasebook examples), envelopes identical without mcp.backend",
        kinds.join(", "),
        programs.len(),
        examples.len()
    ))
}
