//! The golden evidence against the live server (MCP-56, MCP-85, MCP-86, MCP-90; docs/mcp/limits.md, docs/mcp/verification.md):
//! `golden/cases.json` and the probes of `golden/limits.json`, sent over real stdio and
//! over Streamable HTTP to the built `ajisai-mcp-server`, one process per available
//! numeric backend and transport, with every envelope required to be byte-identical
//! across backends once `mcp.backend` is removed, and across transports once
//! `mcp.limitProfile` is (`mcp-local-stdio` and `mcp-remote-http`).
//!
//! The same sources also run through the `ajisai` CLI (profile `cli-local`): a case
//! without a `hostDivergence` block must answer there exactly as here (MCP-49), and a
//! case with one must answer there as its block states (MCP-55).

use crate::http_support;
use crate::mcp_support;

use ajisai_core::Limit;
use ajisai_server::mcp::ServerOptions;
use mcp_support::{
    check_form, connect_http, envelope, in_process, object, read, spawn_with_env, Client, BIN,
};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

const CASES: &str = include_str!("../../golden/cases.json");
const LIMITS: &str = include_str!("../../golden/limits.json");
/// The test files the `test` fields of `golden/limits.json` point into, keyed as the
/// first two segments of those fields name them (`<crate directory>::<test target>`).
const TEST_FILES: [(&str, &str); 2] = [
    ("server::mcp_limits", include_str!("mcp_limits.rs")),
    (
        "golden::limits",
        include_str!("../../golden/tests/limits.rs"),
    ),
];
/// The `ajisai` CLI built alongside the server.
const CLI: &str = env!("CARGO_BIN_EXE_ajisai");
/// The environment variables that select a backend or phrasebook; removed from every
/// process these tests start so that only what a test sets applies.
const AJISAI_VARS: [&str; 3] = [
    "AJISAI_NUMERICS",
    "AJISAI_NUMERICS_PLUGIN",
    "AJISAI_PHRASEBOOK",
];

fn json(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not valid JSON: {e}"))
}

fn cases() -> Vec<Value> {
    let doc = json(CASES, "golden/cases.json");
    assert_eq!(doc["schemaVersion"], 2, "golden/cases.json schemaVersion");
    doc["cases"].as_array().cloned().expect("cases is an array")
}

fn limit_entries() -> Map<String, Value> {
    let doc = json(LIMITS, "golden/limits.json");
    doc["limits"]
        .as_object()
        .cloned()
        .expect("limits is an object")
}

// ---- generators --------------------------------------------------------------------

/// The text a generator object describes: `repeat` (`text` × `count`), and the three
/// generators of MCP-56: `spaces` (`bytes`), `digits` (`digits` nines) and
/// `nestedVector` (`depth` brackets around `1`).
fn generate(spec: &Value) -> Result<String, String> {
    let n = |key: &str| {
        spec[key]
            .as_u64()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| format!("generator needs a count `{key}`: {spec}"))
    };
    match spec["generator"].as_str() {
        Some("repeat") => {
            let text = spec["text"].as_str().ok_or("repeat needs `text`")?;
            Ok(text.repeat(n("count")?))
        }
        Some("spaces") => Ok(" ".repeat(n("bytes")?)),
        Some("digits") => Ok("9".repeat(n("digits")?)),
        Some("nestedVector") => {
            let d = n("depth")?;
            Ok(format!("{}1{}", "[ ".repeat(d), " ]".repeat(d)))
        }
        other => Err(format!("unknown generator {other:?}")),
    }
}

/// The arguments of a case with every generator object replaced by its text.
fn materialize(arguments: &Value) -> Result<Value, String> {
    let Some(map) = arguments.as_object() else {
        return Ok(arguments.clone());
    };
    let mut out = Map::new();
    for (k, v) in map {
        let v = if v.get("generator").is_some() {
            Value::String(generate(v)?)
        } else {
            v.clone()
        };
        out.insert(k.clone(), v);
    }
    Ok(Value::Object(out))
}

/// The source a `golden/limits.json` probe describes.
fn probe_source(probe: &Value) -> Result<String, String> {
    match probe["kind"].as_str() {
        Some("source") => probe["source"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| "a source probe without source".into()),
        Some("generatedSource") => generate(probe),
        other => Err(format!("unknown probe kind {other:?}")),
    }
}

// ---- expectations ------------------------------------------------------------------

/// Every mismatch of `doc` against `expect` (pointer → value) and `absent` (pointers).
fn mismatches(label: &str, doc: &Value, expect: &Value, absent: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (pointer, want) in expect.as_object().into_iter().flatten() {
        match doc.pointer(pointer) {
            Some(got) if got == want => {}
            got => out.push(format!(
                "{label}: {pointer} expected {want}, got {}",
                got.map_or_else(|| "nothing".to_string(), |g| clip(&g.to_string()))
            )),
        }
    }
    for pointer in absent.as_array().into_iter().flatten() {
        match pointer.as_str() {
            Some(p) => {
                if let Some(got) = doc.pointer(p) {
                    out.push(format!(
                        "{label}: {p} expected absent, got {}",
                        clip(&got.to_string())
                    ));
                }
            }
            None => out.push(format!(
                "{label}: expectAbsent entry {pointer} is not a string"
            )),
        }
    }
    out
}

fn clip(s: &str) -> String {
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The envelope as compared across backends: compact, `mcp.backend` removed.
fn without_backend(env: &Value) -> String {
    let mut env = env.clone();
    if let Some(mcp) = env.get_mut("mcp").and_then(Value::as_object_mut) {
        mcp.remove("backend");
    }
    serde_json::to_string(&env).expect("serializes")
}

// ---- processes ---------------------------------------------------------------------

/// A numeric backend the built server offers, and the environment that selects it.
struct Backend {
    kind: &'static str,
    env: Vec<(&'static str, &'static str)>,
}

/// The `numerics:` line `--version` prints under `env`.
fn numerics_line(env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(BIN);
    cmd.arg("--version");
    for v in AJISAI_VARS {
        cmd.env_remove(v);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("--version runs");
    assert!(out.status.success(), "--version exits 0");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("numerics: "))
        .map(str::to_string)
        .expect("--version prints a numerics line")
}

/// Every builtin backend this binary can select (MCP-90: one process per backend). The
/// pure backend is always built; `gmp` when the build links it.
fn backends() -> Vec<Backend> {
    let mut out = Vec::new();
    for kind in ["pure", "gmp"] {
        let env = vec![("AJISAI_NUMERICS", kind)];
        let line = numerics_line(&env);
        if line.starts_with("unavailable") {
            assert_ne!(kind, "pure", "the pure backend is always available: {line}");
            println!("backend {kind}: not in this build ({line})");
            continue;
        }
        assert!(
            line.starts_with(kind),
            "AJISAI_NUMERICS={kind} selects {line}"
        );
        println!("backend {kind}: {line}");
        out.push(Backend { kind, env });
    }
    out
}

/// Call `tool` and check the result's form (MCP-25..27, schema validity; docs/mcp/envelope.md).
/// Call `tool` as a client would: a `timeout` is retried (twice at most), as the envelope
/// says it may be (`retryable: true`). No golden case expects one — each pins what the
/// engine answers — and a debug build on a busy machine can take longer than the 5 s a
/// case near its limit needs (six `UNIQUE` passes take about 2 s).
async fn call(client: &Client, tool: &str, arguments: &Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(m) = arguments {
        params = params.with_arguments(m.clone());
    } else {
        params = params.with_arguments(object(arguments.clone()));
    }
    let mut attempts = 0;
    loop {
        attempts += 1;
        let result = client
            .call_tool(params.clone())
            .await
            .unwrap_or_else(|e| panic!("tools/call {tool} answers a tool result: {e}"));
        check_form(&result);
        let timed_out = result
            .structured_content
            .as_ref()
            .is_some_and(|e| e["error"]["code"] == "timeout");
        if !timed_out || attempts == 3 {
            return result;
        }
    }
}

/// The CLI command that does a source tool's work (MCP-94; README.md).
fn cli_command(tool: &str) -> Option<&'static str> {
    match tool {
        "compute" => Some("run"),
        "check" => Some("check"),
        "infer_contracts" => Some("contract"),
        _ => None,
    }
}

/// `ajisai <command> - --json` (profile `cli-local`) on `source`: its one JSON document.
fn run_cli(command: &str, source: &str) -> Value {
    let mut cmd = Command::new(CLI);
    cmd.args([command, "-", "--json"]);
    for v in AJISAI_VARS {
        cmd.env_remove(v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the CLI starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let source = source.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(source.as_bytes());
    });
    let out = child.wait_with_output().expect("the CLI finishes");
    let _ = writer.join();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "`ajisai {command} --json` printed no JSON document ({e}): {}",
            clip(&String::from_utf8_lossy(&out.stdout))
        )
    })
}

/// Run a test body on a thread with a large stack and its own single-threaded runtime:
/// deeply nested results (`nestingDepth` 32 nests about 70 JSON levels) are parsed and
/// schema-checked recursively, which a debug build's default 2 MiB test stack may not hold.
fn on_big_stack<F, Fut>(body: F)
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    // One at a time, and never beside the browser test (mcp_support::CPU_HEAVY).
    let _alone = mcp_support::CPU_HEAVY
        .write()
        .unwrap_or_else(|p| p.into_inner());
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime starts")
                .block_on(body());
        })
        .expect("a test thread starts");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

// ---- golden/cases.json ---------------------------------------------------------------

fn tool_of(case: &Value) -> &str {
    case["tool"].as_str().unwrap_or("compute")
}

fn name_of(case: &Value) -> String {
    case["name"].as_str().unwrap_or("<unnamed>").to_string()
}

/// Run every case on one server; returns the mismatches and each case's envelope.
async fn run_cases(client: &Client, label: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut problems = Vec::new();
    let mut envelopes = Vec::new();
    for case in cases() {
        let name = name_of(&case);
        let args = match materialize(&case["arguments"]) {
            Ok(a) => a,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let result = call(client, tool_of(&case), &args).await;
        let env = envelope(&result);
        // The server's fast measure (MCP-52) equals the size of what arrived.
        let text = mcp_support::text(&result);
        let fast = ajisai_service::result::measure_envelope(&text, result.is_error == Some(true));
        if fast != mcp_support::sizes(&result).0 as u64 {
            problems.push(format!(
                "[{label}] {name}: measured {fast} bytes, delivered {}",
                mcp_support::sizes(&result).0
            ));
        }
        let host_error_expected = case["expect"]["/status"] == "hostError";
        if result.is_error == Some(true) && !host_error_expected {
            problems.push(format!(
                "[{label}] {name}: isError without an expected hostError: {}",
                clip(&env.to_string())
            ));
        }
        problems.extend(mismatches(
            &format!("[{label}] {name}"),
            &env,
            &case["expect"],
            &case["expectAbsent"],
        ));
        envelopes.push((name, without_backend(&env)));
    }
    (problems, envelopes)
}

/// The profile names of the two transports, as their envelopes carry them.
const HTTP_PROFILE: &str = "\"limitProfile\":\"mcp-remote-http\"";
const STDIO_PROFILE: &str = "\"limitProfile\":\"mcp-local-stdio\"";

async fn run_corpus(
    corpus: Corpus,
    client: &Client,
    label: &str,
) -> (Vec<String>, Vec<(String, String)>) {
    match corpus {
        Corpus::Cases => run_cases(client, label).await,
        Corpus::LimitProbes => run_probes(client, label).await,
    }
}

/// What [`on_every_backend`] sends.
#[derive(Clone, Copy)]
enum Corpus {
    /// `golden/cases.json`.
    Cases,
    /// The boundary pairs of `golden/limits.json`.
    LimitProbes,
}

/// Run `corpus` on a fresh server per available backend and transport; the mismatches,
/// then every envelope that differs from the first backend's (MCP-90) or, over HTTP,
/// from the same backend's over stdio.
async fn on_every_backend(corpus: Corpus) -> Vec<String> {
    let mut problems = Vec::new();
    let mut runs = Vec::new();
    for backend in backends() {
        let client = spawn_with_env(&backend.env).await;
        let (p, envelopes) = run_corpus(corpus, &client, backend.kind).await;
        problems.extend(p);
        client.cancel().await.expect("closes");
        // The same corpus over HTTP: envelopes equal stdio's apart from the profile name.
        let server = http_support::HttpServer::spawn(&[], &backend.env);
        let client = connect_http(&server.mcp()).await;
        let label = format!("{} over HTTP", backend.kind);
        let (p, over_http) = run_corpus(corpus, &client, &label).await;
        problems.extend(p);
        client.cancel().await.expect("closes");
        let as_stdio: Vec<(String, String)> = over_http
            .into_iter()
            .map(|(name, env)| (name, env.replace(HTTP_PROFILE, STDIO_PROFILE)))
            .collect();
        problems.extend(parity(
            &(backend.kind.to_string(), envelopes.clone()),
            &(label, as_stdio),
        ));
        runs.push((backend.kind.to_string(), envelopes));
    }
    for other in runs.iter().skip(1) {
        problems.extend(parity(&runs[0], other));
    }
    problems
}

/// Every envelope of `other` equals the first backend's, byte for byte (MCP-90).
fn parity(
    first: &(String, Vec<(String, String)>),
    other: &(String, Vec<(String, String)>),
) -> Vec<String> {
    let mut out = Vec::new();
    for ((name, a), (_, b)) in first.1.iter().zip(&other.1) {
        if a != b {
            out.push(format!(
                "{name}: {} and {} differ apart from mcp.backend and mcp.limitProfile:\n  {}\n  {}",
                first.0,
                other.0,
                clip(a),
                clip(b)
            ));
        }
    }
    if first.1.len() != other.1.len() {
        out.push(format!(
            "{} and {} ran different case counts",
            first.0, other.0
        ));
    }
    out
}

/// MCP-85/90: every golden case, over stdio, on every available backend, byte-identical
/// across backends apart from `mcp.backend`.
#[test]
fn golden_cases_on_every_backend() {
    on_big_stack(golden_cases_on_every_backend_body);
}

async fn golden_cases_on_every_backend_body() {
    let problems = on_every_backend(Corpus::Cases).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!(
        "{} golden cases on {} backend(s)",
        cases().len(),
        backends().len()
    );
}

/// MCP-40: a second server process on the default backend answers every golden case
/// byte-identically (one process per run, so nothing can be carried over).
#[test]
fn golden_cases_answer_identically_in_a_second_process() {
    on_big_stack(golden_cases_answer_identically_in_a_second_process_body);
}

async fn golden_cases_answer_identically_in_a_second_process_body() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let client = spawn_with_env(&[]).await;
        let (_, envelopes) = run_cases(&client, "default").await;
        runs.push(("default".to_string(), envelopes));
        client.cancel().await.expect("closes");
    }
    let problems = parity(&runs[0], &runs[1]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// MCP-49/55: the CLI profile answers every source-tool case as the server does, except
/// where a `hostDivergence` block records (and pins) how it differs.
#[test]
fn host_divergence_is_recorded_where_the_cli_profile_differs() {
    on_big_stack(host_divergence_is_recorded_where_the_cli_profile_differs_body);
}

async fn host_divergence_is_recorded_where_the_cli_profile_differs_body() {
    let client = spawn_with_env(&[]).await;
    let mut problems = Vec::new();
    let mut divergent = 0;
    for case in cases() {
        let name = name_of(&case);
        let Some(command) = cli_command(tool_of(&case)) else {
            if case
                .get("hostDivergence")
                .is_some_and(|d| d.get("cli-local").is_some())
            {
                problems.push(format!("{name}: hostDivergence on a tool the CLI lacks"));
            }
            continue;
        };
        let Ok(args) = materialize(&case["arguments"]) else {
            continue; // reported by the backend run
        };
        let (Some(source), None) = (args["source"].as_str(), args.get("words")) else {
            continue; // no source to hand the CLI, or phrasebook Words it does not take
        };
        let server = envelope(&call(&client, tool_of(&case), &args).await);
        // A block may record the Playground alone.
        let divergence = case
            .get("hostDivergence")
            .filter(|d| d.get("cli-local").is_some());
        if server["status"] == "hostError" && divergence.is_none() {
            continue; // refused by the MCP host's request validation: nothing to compare
        }
        let cli = run_cli(command, source);
        let mut server_doc = server.clone();
        if let Some(m) = server_doc.as_object_mut() {
            m.remove("mcp");
        }
        let mut cli_doc = cli.clone();
        if let Some(m) = cli_doc.as_object_mut() {
            m.remove("limitProfile");
            m.remove("backend");
        }
        let same = serde_json::to_string(&server_doc).ok() == serde_json::to_string(&cli_doc).ok();
        match divergence {
            None if !same => problems.push(format!(
                "{name}: cli-local answers differently but the case records no hostDivergence:\n  server {}\n  cli    {}",
                clip(&server_doc.to_string()),
                clip(&cli_doc.to_string())
            )),
            None => {}
            Some(d) => {
                divergent += 1;
                for key in ["cli-local", "why"] {
                    if d[key].as_str().is_none_or(str::is_empty) {
                        problems.push(format!("{name}: hostDivergence needs `{key}`"));
                    }
                }
                if d["expect"].as_object().is_none_or(Map::is_empty) {
                    problems.push(format!("{name}: hostDivergence needs a non-empty `expect`"));
                }
                if same {
                    problems.push(format!(
                        "{name}: hostDivergence recorded but cli-local answers identically"
                    ));
                }
                if cli["limitProfile"] != "cli-local" {
                    problems.push(format!("{name}: the CLI ran {}", cli["limitProfile"]));
                }
                problems.extend(mismatches(
                    &format!("{name} (cli-local)"),
                    &cli,
                    &d["expect"],
                    &d["expectAbsent"],
                ));
            }
        }
    }
    client.cancel().await.expect("closes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{divergent} recorded host divergences hold");
}

/// The Playground (profile `playground`) answers every `compute` and `check` case as the
/// server does, apart from the host block, except where the case's `hostDivergence` has a
/// `playground` block, which states (and pins) how it differs.
#[test]
fn the_playground_answers_as_the_server_except_where_recorded() {
    on_big_stack(the_playground_answers_as_the_server_except_where_recorded_body);
}

async fn the_playground_answers_as_the_server_except_where_recorded_body() {
    let client = spawn_with_env(&[]).await;
    let page = crate::playground::Alone::spawn(&[]);
    let mut problems = Vec::new();
    let (mut same_count, mut divergent) = (0, 0);
    for case in cases() {
        let name = name_of(&case);
        let tool = tool_of(&case);
        let recorded = case.get("hostDivergence").and_then(|d| d.get("playground"));
        if !matches!(tool, "compute" | "check") {
            if recorded.is_some() {
                problems.push(format!(
                    "{name}: a playground block on a tool the page lacks"
                ));
            }
            continue;
        }
        let Ok(args) = materialize(&case["arguments"]) else {
            continue; // reported by the backend run
        };
        let mut served = envelope(&call(&client, tool, &args).await);
        let answer = crate::playground::run(&page.base, tool, args.clone()).await;
        if answer.status != 200 {
            problems.push(format!(
                "{name}: the page answered HTTP {}: {}",
                answer.status,
                clip(&answer.body)
            ));
            continue;
        }
        let mut shown = answer.json();
        if shown["mcp"]["limitProfile"] != "playground" {
            problems.push(format!(
                "{name}: ran under {}",
                shown["mcp"]["limitProfile"]
            ));
        }
        for doc in [&mut served, &mut shown] {
            if let Some(m) = doc.as_object_mut() {
                m.remove("mcp");
            }
        }
        let same = served == shown;
        match recorded {
            None if !same => problems.push(format!(
                "{name}: the Playground answers differently but the case records no hostDivergence.playground:\n  server     {}\n  playground {}",
                clip(&served.to_string()),
                clip(&shown.to_string())
            )),
            None => same_count += 1,
            Some(block) => {
                divergent += 1;
                if block["says"].as_str().is_none_or(str::is_empty) {
                    problems.push(format!("{name}: hostDivergence.playground needs `says`"));
                }
                if block["expect"].as_object().is_none_or(Map::is_empty) {
                    problems.push(format!("{name}: hostDivergence.playground needs a non-empty `expect`"));
                }
                if same {
                    problems.push(format!(
                        "{name}: hostDivergence.playground recorded but the Playground answers identically"
                    ));
                }
                problems.extend(mismatches(
                    &format!("{name} (playground)"),
                    &shown,
                    &block["expect"],
                    &block["expectAbsent"],
                ));
            }
        }
    }
    client.cancel().await.expect("closes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(same_count > 50, "the comparison ran: {same_count}");
    println!(
        "{same_count} cases answer identically on the page; {divergent} recorded divergences hold"
    );
}

/// The file itself: unique names, known keys, well-formed pointers, and the limit
/// refusals MCP-86 requires (every limit a live call can reach).
#[test]
fn cases_json_is_well_formed_and_covers_every_reachable_limit() {
    let all = cases();
    let mut problems = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    let mut limits_seen = std::collections::BTreeSet::new();
    for case in &all {
        let name = name_of(case);
        if !names.insert(name.clone()) {
            problems.push(format!("duplicate case name {name:?}"));
        }
        for key in case.as_object().into_iter().flatten().map(|(k, _)| k) {
            if ![
                "name",
                "tool",
                "arguments",
                "expect",
                "expectAbsent",
                "hostDivergence",
                "note",
            ]
            .contains(&key.as_str())
            {
                problems.push(format!("{name}: unknown key {key:?}"));
            }
        }
        if case["expect"].as_object().is_none_or(Map::is_empty) {
            problems.push(format!("{name}: no expectations"));
        }
        if case["arguments"].as_object().is_none() {
            problems.push(format!("{name}: arguments is not an object"));
        }
        let pointers = case["expect"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .chain(
                case["expectAbsent"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str().map(str::to_string)),
            );
        for p in pointers {
            if !p.starts_with('/') {
                problems.push(format!("{name}: {p:?} is not a JSON Pointer"));
            }
        }
        let e = &case["expect"];
        for v in [
            &e["/error/resource"],
            &e["/error/limit"],
            &e["/error"]["resource"],
            &e["/error"]["limit"],
        ] {
            if let Some(l) = v.as_str() {
                limits_seen.insert(l.to_string());
            }
        }
    }
    // wallTimeMs and concurrentExecutions cannot be reached by one call to the
    // production server; golden/limits.json pins them through the host's own tests.
    for limit in Limit::ALL {
        let name = limit.name();
        if !["wallTimeMs", "concurrentExecutions"].contains(&name) && !limits_seen.contains(name) {
            problems.push(format!("no golden case shows the {name} refusal"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- golden/limits.json ----------------------------------------------------------------

/// The probes of every boundary entry, run against one server: `(label, envelope)`.
async fn run_probes(client: &Client, label: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut problems = Vec::new();
    let mut envelopes = Vec::new();
    for (name, entry) in limit_entries() {
        // Boundary pairs, and the generous pairs some host gates carry (memoryBytes).
        let probed = entry["coverage"] == "boundary"
            || (entry["coverage"] == "hostGate" && entry.get("under").is_some());
        if !probed {
            continue;
        }
        for side in ["under", "over"] {
            let probe = &entry[side];
            let tag = format!("{name}.{side}");
            let source = match probe_source(probe) {
                Ok(s) => s,
                Err(e) => {
                    problems.push(format!("{tag}: {e}"));
                    continue;
                }
            };
            let tool = probe["tool"].as_str().unwrap_or("compute");
            let result = call(client, tool, &serde_json::json!({ "source": source })).await;
            let env = envelope(&result);
            problems.extend(mismatches(
                &format!("[{label}] {tag}"),
                &env,
                &probe["expect"],
                &probe["expectAbsent"],
            ));
            envelopes.push((tag, without_backend(&env)));
        }
    }
    (problems, envelopes)
}

/// MCP-56: every boundary pair of `golden/limits.json` against the live server, on every
/// available backend, byte-identical across backends apart from `mcp.backend`.
#[test]
fn limit_boundaries_on_every_backend() {
    on_big_stack(limit_boundaries_on_every_backend_body);
}

async fn limit_boundaries_on_every_backend_body() {
    let problems = on_every_backend(Corpus::LimitProbes).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The injected-limit pairs also hold through the server's own execution path: an
/// in-process server built with the injected ceiling answers both probes as the file
/// states.
#[test]
fn injected_limits_hold_through_the_server() {
    on_big_stack(injected_limits_hold_through_the_server_body);
}

async fn injected_limits_hold_through_the_server_body() {
    let mut problems = Vec::new();
    for (name, entry) in limit_entries() {
        if entry["coverage"] != "injectedLimit" {
            continue;
        }
        let (Some(limit), Some(value)) = (Limit::from_name(&name), entry["injected"].as_u64())
        else {
            problems.push(format!("{name}: needs a limit name and `injected`"));
            continue;
        };
        let client = in_process(ServerOptions::production().with_limit(limit, value)).await;
        for side in ["under", "over"] {
            let probe = &entry[side];
            let Ok(source) = probe_source(probe) else {
                problems.push(format!("{name}.{side}: no source"));
                continue;
            };
            let env =
                envelope(&call(&client, "compute", &serde_json::json!({ "source": source })).await);
            problems.extend(mismatches(
                &format!("{name}.{side} (injected {value})"),
                &env,
                &probe["expect"],
                &probe["expectAbsent"],
            ));
        }
        client.cancel().await.expect("closes");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Does `file` declare a test function `name` (a test attribute among the attribute and
/// doc lines right before its `fn` line)?
fn declares_test(file: &str, name: &str) -> bool {
    let lines: Vec<&str> = file.lines().map(str::trim).collect();
    lines.iter().enumerate().any(|(i, line)| {
        (line.starts_with(&format!("async fn {name}()"))
            || line.starts_with(&format!("fn {name}()")))
            && lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
                .any(|l| is_test_attribute(l))
    })
}

/// `#[test]`, `#[tokio::test]`, `#[tokio::test(flavor = …)]`: an attribute whose path
/// ends in `test`.
fn is_test_attribute(line: &str) -> bool {
    line.strip_prefix("#[")
        .map(|rest| rest.split(['(', ']']).next().unwrap_or_default())
        .is_some_and(|path| path == "test" || path.ends_with("::test"))
}

/// MCP-56: the key set is the served profile's twelve, each `declared` equals what the
/// live server serves in `ajisai://limits`, every entry has a note, and every named test
/// exists as a test function in the file its name points to.
#[test]
fn limits_json_matches_the_served_profile_and_names_existing_tests() {
    on_big_stack(limits_json_matches_the_served_profile_and_names_existing_tests_body);
}

async fn limits_json_matches_the_served_profile_and_names_existing_tests_body() {
    let client = spawn_with_env(&[]).await;
    let (_, served) = read(&client, "ajisai://limits").await;
    client.cancel().await.expect("closes");
    let served = json(&served, "ajisai://limits");
    let doc = json(LIMITS, "golden/limits.json");
    assert_eq!(doc["schemaVersion"], 2);
    assert_eq!(doc["profile"], served["profile"]);
    let entries = limit_entries();
    let names: Vec<&String> = entries.keys().collect();
    let served_names: Vec<&String> = served["limits"]
        .as_object()
        .expect("limits")
        .keys()
        .collect();
    assert_eq!(names, served_names, "one entry per served limit, in order");
    let mut problems = Vec::new();
    let files: BTreeMap<&str, &str> = TEST_FILES.into_iter().collect();
    for (name, e) in &entries {
        if e["declared"] != served["limits"][name] {
            problems.push(format!(
                "{name}: declared {} but the server serves {}",
                e["declared"], served["limits"][name]
            ));
        }
        if e["note"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("{name}: no note"));
        }
        let coverage = e["coverage"].as_str().unwrap_or_default();
        if !doc["coverageKinds"][coverage].is_string() {
            problems.push(format!("{name}: unknown coverage {coverage:?}"));
        }
        match coverage {
            "boundary" if e.get("under").is_none() || e.get("over").is_none() => {
                problems.push(format!("{name}: a boundary entry needs under and over"));
            }
            "hostGate" | "injectedLimit" => {
                let test = e["test"].as_str().unwrap_or_default();
                let (file, function) = test.rsplit_once("::").unwrap_or(("", test));
                let want = if coverage == "hostGate" {
                    "server::mcp_limits"
                } else {
                    "golden::limits"
                };
                if file != want {
                    problems.push(format!(
                        "{name}: a {coverage} test lives in {want}, not {test:?}"
                    ));
                } else if !files.get(file).is_some_and(|f| declares_test(f, function)) {
                    problems.push(format!("{name}: the named test {test} does not exist"));
                }
            }
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_test_finder_sees_tests_and_only_tests() {
    let file = "#[tokio::test]\nasync fn a() {}\n/// doc\n#[test]\nfn b() {}\nfn c() {}\n\
                #[tokio::test(flavor = \"multi_thread\")]\nasync fn e() {}\n#[attest]\nfn f() {}\n";
    assert!(declares_test(file, "a"));
    assert!(declares_test(file, "b"));
    assert!(!declares_test(file, "c"));
    assert!(!declares_test(file, "d"));
    assert!(declares_test(file, "e"));
    assert!(!declares_test(file, "f"));
}
