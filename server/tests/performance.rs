//! The performance harness of MCP-91 (docs/mcp/verification.md): the seven cases of `eval/performance.json`
//! over real stdio, on every available numeric backend, measuring the whole response
//! (MCP-52 (docs/mcp/envelope.md): the compact serialization of the `CallToolResult`, what a JavaScript client
//! measures as `JSON.stringify(result)`), the text block alone, and per-call latency.
//!
//! Response sizes are deterministic, so they are gated exactly: the median over the
//! seven cases must not exceed `medianResponseBytesBudget`, `1 2 ADD` must answer in at
//! most 1,300 bytes, `word_contract MAP` in at most 2,500, and the budget may sit at most 5% above the largest measured median
//! (it only ever moves down: when responses shrink, this test asks for the lower value).
//! Latency is measured and printed (p50/p95 per case), never asserted.
//!
//! `cargo test -p ajisai-server --test server performance:: -- --nocapture` prints the table. The
//! debug binary is measured unless `AJISAI_PERF_SERVER` names another build of the server
//! (e.g. the release binary) — sizes are the same for every build; latencies are not.

use crate::mcp_support;

use mcp_support::{call_raw, check_form, sizes, Client, BIN};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::Value;
use std::process::Stdio;
use std::time::{Duration, Instant};

const PERFORMANCE: &str = include_str!("../../eval/performance.json");

/// The budget for `1 2 ADD` (MCP-91: about 1 KB).
const ONE_PLUS_TWO_BUDGET: usize = 1_300;

/// The budget for `word_contract MAP`, the whole tool result (issue 12: contracts carry
/// their documentation examples only; it was 6,182 bytes with every regression case).
const WORD_CONTRACT_MAP_BUDGET: usize = 2_500;

fn config() -> Value {
    serde_json::from_str(PERFORMANCE).expect("eval/performance.json is valid JSON")
}

/// The server binary to measure.
fn server_path() -> String {
    std::env::var("AJISAI_PERF_SERVER").unwrap_or_else(|_| BIN.to_string())
}

/// The builtin backends the measured binary offers (`pure` always; `gmp` when linked).
fn backends(server: &str) -> Vec<&'static str> {
    ["pure", "gmp"]
        .into_iter()
        .filter(|kind| {
            let out = std::process::Command::new(server)
                .arg("--version")
                .env_remove("AJISAI_NUMERICS_PLUGIN")
                .env("AJISAI_NUMERICS", kind)
                .output()
                .expect("--version runs");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.starts_with(&format!("numerics: {kind} ")))
        })
        .collect()
}

async fn spawn(server: &str, kind: &str) -> Client {
    let mut cmd = tokio::process::Command::new(server);
    cmd.env_remove("AJISAI_NUMERICS_PLUGIN")
        .env_remove("AJISAI_PHRASEBOOK")
        .env("AJISAI_NUMERICS", kind);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    ().serve(transport).await.expect("initialize succeeds")
}

/// Nearest-rank percentile of sorted durations, in milliseconds.
fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1_000.0
}

/// One measured case.
struct Measured {
    id: String,
    response_bytes: usize,
    text_bytes: usize,
    p50_ms: f64,
    p95_ms: f64,
}

/// The cases in order: `1 2 ADD` first, then the seven of `caseIds`.
fn cases(cfg: &Value) -> Vec<(String, String, Value)> {
    let mut out = vec![(
        "1 2 ADD".to_string(),
        "compute".to_string(),
        serde_json::json!({ "source": "1 2 ADD" }),
    )];
    for id in cfg["caseIds"].as_array().expect("caseIds") {
        let id = id.as_str().expect("a case id is a string");
        let case = &cfg["cases"][id];
        out.push((
            id.to_string(),
            case["tool"].as_str().expect("a tool").to_string(),
            case["arguments"].clone(),
        ));
    }
    out
}

async fn measure(client: &Client, cfg: &Value) -> Vec<Measured> {
    let warmup = cfg["warmupRuns"].as_u64().expect("warmupRuns");
    let runs = cfg["measuredRuns"].as_u64().expect("measuredRuns");
    let mut out = Vec::new();
    for (id, tool, args) in cases(cfg) {
        for _ in 0..warmup {
            call_raw(client, &tool, args.clone()).await;
        }
        let mut times = Vec::new();
        let mut seen = None;
        for _ in 0..runs {
            let params = CallToolRequestParams::new(tool.clone())
                .with_arguments(mcp_support::object(args.clone()));
            let start = Instant::now();
            let result = client.call_tool(params).await.expect("tools/call answers");
            times.push(start.elapsed());
            let measured = sizes(&result);
            // Responses are deterministic (MCP-40): every run has the same size.
            assert!(
                seen.is_none_or(|s| s == measured),
                "{id}: sizes changed between runs"
            );
            seen = Some(measured);
            check_form(&result);
        }
        times.sort_unstable();
        let (response_bytes, text_bytes) = seen.expect("at least one measured run");
        out.push(Measured {
            id,
            response_bytes,
            text_bytes,
            p50_ms: percentile(&times, 0.50),
            p95_ms: percentile(&times, 0.95),
        });
    }
    out
}

fn median(mut v: Vec<usize>) -> usize {
    v.sort_unstable();
    v[v.len() / 2]
}

/// MCP-91 on every backend: exact size gates, reported latency.
#[tokio::test]
async fn response_sizes_stay_within_the_committed_budget() {
    let cfg = config();
    assert_eq!(cfg["schemaVersion"], 1);
    assert_eq!(cfg["caseIds"].as_array().map(Vec::len), Some(7));
    let budget = cfg["medianResponseBytesBudget"]
        .as_u64()
        .and_then(|b| usize::try_from(b).ok())
        .expect("medianResponseBytesBudget");
    let server = server_path();
    let mut problems = Vec::new();
    let mut largest_median = 0;
    for kind in backends(&server) {
        let client = spawn(&server, kind).await;
        let measured = measure(&client, &cfg).await;
        client.cancel().await.expect("closes");
        println!("backend {kind} ({server}):");
        println!(
            "  {:<20} {:>9} {:>9} {:>8} {:>8}",
            "case", "response", "text", "p50 ms", "p95 ms"
        );
        for m in &measured {
            println!(
                "  {:<20} {:>9} {:>9} {:>8.3} {:>8.3}",
                m.id, m.response_bytes, m.text_bytes, m.p50_ms, m.p95_ms
            );
        }
        let seven: Vec<&Measured> = measured.iter().filter(|m| m.id != "1 2 ADD").collect();
        let med = median(seven.iter().map(|m| m.response_bytes).collect());
        let mut all_times: Vec<f64> = seven.iter().map(|m| m.p95_ms).collect();
        all_times.sort_by(f64::total_cmp);
        println!(
            "  median response {med} bytes (budget {budget}); largest per-case p95 {:.3} ms (reported, not asserted)",
            all_times.last().copied().unwrap_or_default()
        );
        largest_median = largest_median.max(med);
        if med > budget {
            problems.push(format!(
                "{kind}: the median response of the seven cases is {med} bytes, over the committed budget of {budget}"
            ));
        }
        match measured.iter().find(|m| m.id == "word-contract") {
            Some(m) if m.response_bytes > WORD_CONTRACT_MAP_BUDGET => problems.push(format!(
                "{kind}: `word_contract MAP` answers in {} bytes, over {WORD_CONTRACT_MAP_BUDGET}",
                m.response_bytes
            )),
            Some(_) => {}
            None => problems.push("the word-contract case was not measured".to_string()),
        }
        if let Some(m) = measured.iter().find(|m| m.id == "1 2 ADD") {
            if m.response_bytes > ONE_PLUS_TWO_BUDGET {
                problems.push(format!(
                    "{kind}: `1 2 ADD` answers in {} bytes, over {ONE_PLUS_TWO_BUDGET}",
                    m.response_bytes
                ));
            }
        }
    }
    // The budget only moves down: at most the measured median + 5%.
    let ceiling = (largest_median * 105).div_ceil(100);
    if budget > ceiling {
        problems.push(format!(
            "responses shrank: the largest median is {largest_median} bytes, so lower \
             medianResponseBytesBudget in eval/performance.json from {budget} to at most {ceiling}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn percentiles_are_nearest_rank() {
    let ms: Vec<Duration> = (1..=20).map(Duration::from_millis).collect();
    assert_eq!(percentile(&ms, 0.50), 10.0);
    assert_eq!(percentile(&ms, 0.95), 19.0);
    assert_eq!(percentile(&ms[..1], 0.95), 1.0);
    assert_eq!(median(vec![5, 1, 3, 2, 4, 7, 6]), 4);
}
