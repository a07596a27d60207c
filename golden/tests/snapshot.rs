//! Recorded behaviour: every program of every corpus, golden file and specification
//! example, every Word's declared examples and a fixed-seed run of the fuzzer's and the
//! parity test's generators, with the envelopes `compute`, `check` and `infer_contracts`
//! give it, digested program by program into `golden/snapshot.tsv`, with the vocabulary
//! document.
//!
//! The file was recorded before the core redesign began (its first line names the
//! commit), so that redesign — or any later change that should not change behaviour —
//! is held to byte-identical envelopes: every backend must give the same three
//! envelopes (parity) and their digest must equal the recorded one. A change that is
//! meant to change behaviour re-records the file with `AJISAI_SNAPSHOT_RECORD=1` and
//! says so in its commit message. `AJISAI_SNAPSHOT_TRACE=1` names each program and its source on stderr
//! before it runs (to find one that hangs). `AJISAI_SNAPSHOT_FIGURES=<file>` also writes
//! each program's compute outcome and `resourceUsage` to that file (`set key outcome steps
//! numericWork collectionWork`, tab-separated), so a change of pricing can list every
//! changed case with its old and new figures (`scripts/figures-diff` compares two such
//! files).
//!
//! Every run is held to the MCP memory ceiling, counted by the binaries' allocator (the
//! fuzzer writes memory bombs): a run that crosses it records `memoryExhausted`, as the
//! server would answer, instead of its envelope.

use ajisai_core::engine::{self, Options};
use ajisai_core::envelope::{check_json, compute_json_within, infer_json};
use ajisai_core::json::HostFields;
use ajisai_core::limits::InterruptFlag;
use ajisai_core::numerics::with_backend;
use ajisai_core::Profile;
use ajisai_golden::programs::{self, Numeric};
use ajisai_golden::{backends, link, load, on_big_stack, Backend, Rng};
use ajisai_host::memory::Execution;
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The fuzzer's programs recorded, from [`FUZZ_SEED`].
const FUZZ_PROGRAMS: u64 = 2_000;
/// The fuzzer's seed here (the fuzz test itself takes a new seed per commit).
const FUZZ_SEED: u64 = 0x534E_4150;
/// The parity generator's programs recorded, from [`PARITY_SEED`].
const PARITY_PROGRAMS: u64 = 2_000;
/// The parity generator's seed here.
const PARITY_SEED: u64 = 0x41_4A_49_53_41_49;

/// One program to record: which set it belongs to, its key there, its source and the
/// profile it runs under.
struct Program {
    set: &'static str,
    key: String,
    source: String,
    profile: Profile,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn read_json(relative: &str) -> Json {
    let path = golden_dir().join(relative);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("readable"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every program recorded, in a fixed order.
fn programs() -> Vec<Program> {
    let mut all = Vec::new();
    let mcp = || Profile::MCP_LOCAL_STDIO;
    // The language corpus and our seed cases, each under its own profile.
    let mut case_files = vec![("conformance", golden_dir().join("conformance/cases.json"))];
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(golden_dir().join("seed"))
        .expect("golden/seed")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    seeds.sort();
    case_files.extend(seeds.into_iter().map(|p| ("seed", p)));
    for (set, path) in case_files {
        let text = std::fs::read_to_string(&path).expect("readable");
        for case in load(&path.display().to_string(), &text).cases {
            let (Ok(source), Ok(profile)) = (case.program(), case.run_profile()) else {
                panic!("{}: a case that cannot run", case.id);
            };
            all.push(Program {
                set,
                key: case.id,
                source,
                profile,
            });
        }
    }
    // The specification's examples and the MCP golden files' programs.
    for (set, file, field) in [
        ("spec-examples", "spec-examples.json", "source"),
        ("mcp-cases", "cases.json", "arguments"),
        ("mcp-contracts", "cases-contracts.json", "arguments"),
    ] {
        let doc = read_json(file);
        for (i, case) in doc["cases"].as_array().expect("cases").iter().enumerate() {
            let source = match field {
                "source" => case["source"].as_str(),
                _ => case["arguments"]["source"].as_str(),
            };
            let Some(source) = source else { continue };
            all.push(Program {
                set,
                key: i.to_string(),
                source: source.to_string(),
                profile: mcp(),
            });
        }
    }
    // Every Word's declared examples, and its regression cases.
    for spec in ajisai_core::word::registry().specs() {
        for (i, ex) in spec.examples.iter().enumerate() {
            all.push(Program {
                set: "word-examples",
                key: format!("{}#{i}", spec.name),
                source: ex.source.to_string(),
                profile: mcp(),
            });
        }
    }
    let cases = read_json("word-cases.json");
    for (i, case) in cases["cases"].as_array().expect("cases").iter().enumerate() {
        all.push(Program {
            set: "word-cases",
            key: format!("{}#{i}", case["word"].as_str().expect("a word")),
            source: case["source"].as_str().expect("a source").to_string(),
            profile: mcp(),
        });
    }
    // The generators, from fixed seeds.
    let names = programs::names();
    let mut rng = Rng(FUZZ_SEED);
    for i in 0..FUZZ_PROGRAMS {
        all.push(Program {
            set: "fuzz",
            key: i.to_string(),
            source: programs::any(&mut rng, &names),
            profile: mcp(),
        });
    }
    let mut rng = Rng(PARITY_SEED);
    for i in 0..PARITY_PROGRAMS {
        all.push(Program {
            set: "parity",
            key: i.to_string(),
            source: Numeric(Rng(rng.bits())).program(),
            profile: mcp(),
        });
    }
    all
}

/// The three envelopes of `program` on `backend`, without host fields; the stack is
/// rendered within the server's budgets (a value of 2^36 shared leaves is small until
/// it is written out whole).
fn envelopes(program: &Program, backend: &Backend) -> String {
    let host = HostFields::NONE;
    let limits = ajisai_server::mcp::ServerOptions::production();
    with_backend(backend.numerics, || {
        let compute = bounded(program, |source, options| {
            let report = engine::compute(source, options);
            let budget = if report.error.is_some() {
                limits.error_stack_bytes
            } else {
                limits.value_stack_bytes
            };
            compute_json_within(&report, budget, &host).json
        });
        let check = bounded(program, |source, options| {
            check_json(&engine::check(source, options), &host)
        });
        let infer = bounded(program, |source, options| {
            infer_json(&engine::infer_contracts(source, options), &host)
        });
        format!("{compute}\n{check}\n{infer}")
    })
}

/// `run` under the MCP memory ceiling: its envelope, or `memoryExhausted`.
fn bounded(program: &Program, run: impl FnOnce(&str, &Options) -> String) -> String {
    let ceiling = Profile::MCP_LOCAL_STDIO.memory_bytes.unwrap_or(u64::MAX);
    let flag = InterruptFlag::new();
    let account = Execution::begin(ceiling, &flag);
    let options = Options {
        profile: program.profile.clone(),
        interrupt: Some(flag),
    };
    let envelope = run(&program.source, &options);
    let exceeded = account.usage().exceeded;
    drop(account);
    if exceeded {
        "memoryExhausted".to_string()
    } else {
        envelope
    }
}

/// `outcome steps numericWork collectionWork` of the compute envelope at the head of
/// `envelopes` (tab-separated; `memoryExhausted` alone when the run crossed the ceiling).
fn compute_figures(envelopes: &str) -> String {
    let compute = envelopes.lines().next().unwrap_or_default();
    let Ok(v) = serde_json::from_str::<Json>(compute) else {
        return compute.to_string();
    };
    let mut outcome = v["outcome"].as_str().unwrap_or("?").to_string();
    if let Some(r) = v["error"]["resource"].as_str() {
        outcome = format!("{outcome}({r})");
    }
    let u = &v["resourceUsage"];
    format!(
        "{outcome}\t{}\t{}\t{}",
        u["executionSteps"], u["numericWork"], u["collectionWork"]
    )
}

/// The recorded digest of each program, by `set\tkey` (the first line is a comment).
fn recorded(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let (program, digest) = l.rsplit_once('\t')?;
            Some((program.to_string(), digest.to_string()))
        })
        .collect()
}

/// The first 16 bytes of the SHA-256 of `text`, in hex.
fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())[..16]
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[test]
fn every_recorded_program_gives_its_recorded_envelopes_on_every_backend() {
    link();
    let path = golden_dir().join("snapshot.tsv");
    let (outcome, problems) = on_big_stack(move || {
        let backends = backends();
        let programs = programs();
        let mut digests = Vec::with_capacity(programs.len());
        let mut problems = Vec::new();
        let mut set_started = (programs[0].set, std::time::Instant::now());
        let trace = std::env::var_os("AJISAI_SNAPSHOT_TRACE").is_some();
        let mut figures = std::env::var_os("AJISAI_SNAPSHOT_FIGURES").map(|_| String::new());
        for p in &programs {
            if trace {
                eprintln!("{} {}: {}", p.set, p.key, p.source);
            }
            if p.set != set_started.0 {
                println!("{}: {:.1?}", set_started.0, set_started.1.elapsed());
                set_started = (p.set, std::time::Instant::now());
            }
            let first = envelopes(p, &backends[0]);
            if let Some(f) = figures.as_mut() {
                let _ = writeln!(f, "{}\t{}\t{}", p.set, p.key, compute_figures(&first));
            }
            for b in &backends[1..] {
                if envelopes(p, b) != first {
                    problems.push(format!(
                        "{} {}: {} and {} differ: {}",
                        p.set, p.key, backends[0].label, b.label, p.source
                    ));
                }
            }
            digests.push((format!("{}\t{}", p.set, p.key), digest(&first)));
        }
        if let (Some(f), Some(path)) = (figures, std::env::var_os("AJISAI_SNAPSHOT_FIGURES")) {
            std::fs::write(&path, f).expect("the figures file is writable");
        }
        // The vocabulary as hosts publish it (`ajisai://vocabulary`).
        digests.push((
            "documents\tvocabulary".to_string(),
            digest(&ajisai_core::word::registry_document()),
        ));
        (digests, problems)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let recording = std::env::var("AJISAI_SNAPSHOT_RECORD").is_ok_and(|v| v == "1");
    if recording {
        let commit = std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let mut text = format!(
            "# recorded at {commit}: set, key and digest of the compute, check and infer_contracts envelopes (golden/tests/snapshot.rs)\n"
        );
        for (program, d) in &outcome {
            let _ = writeln!(text, "{program}\t{d}");
        }
        std::fs::write(&path, text).expect("golden/snapshot.tsv is writable");
        return;
    }
    let text = std::fs::read_to_string(&path).expect("golden/snapshot.tsv is recorded");
    let want = recorded(&text);
    let mut changed = Vec::new();
    for (program, d) in &outcome {
        match want.get(program) {
            Some(w) if w == d => {}
            Some(_) => changed.push(format!("changed: {program}")),
            None => changed.push(format!("not recorded: {program}")),
        }
    }
    let produced: std::collections::BTreeSet<&String> = outcome.iter().map(|(p, _)| p).collect();
    assert_eq!(produced.len(), outcome.len(), "two programs share a key");
    changed.extend(
        want.keys()
            .filter(|p| !produced.contains(p))
            .map(|p| format!("no longer produced: {p}")),
    );
    assert!(
        changed.is_empty(),
        "{} of {} programs differ from golden/snapshot.tsv (re-record only for a change meant to alter behaviour):\n{}",
        changed.len(),
        outcome.len(),
        changed.iter().take(50).cloned().collect::<Vec<_>>().join("\n")
    );
}
