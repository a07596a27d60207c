//! One call never hurts another (docs/mcp/transports.md#isolation): the fault-injection
//! Words (`FAULT-SPIN`, `n FAULT-HOG`, `FAULT-ABORT`; feature `fault-injection`, with
//! `AJISAI_FAULT_INJECTION=1`) misbehave inside a call over real stdio and real HTTP, in
//! both isolation modes, while another client's small calls keep being answered.
//!
//! The tests of the faults need the feature (`scripts/test` builds the server's tests
//! with it); without it the Words must not exist, which is tested in every build.

use crate::mcp_support::{self, compute};
use serde_json::json;

/// The variable that, with the feature, adds the fault Words.
const FAULTS: (&str, &str) = ("AJISAI_FAULT_INJECTION", "1");

/// Without the feature, or without the variable, the fault Words do not exist.
#[tokio::test]
async fn the_fault_words_exist_only_with_the_feature_and_the_variable() {
    let plain = mcp_support::spawn().await;
    for word in ["FAULT-SPIN", "1 FAULT-HOG", "FAULT-ABORT"] {
        let e = compute(&plain, word).await;
        assert_eq!(e["outcome"], "error:unknownWord", "{word}: {e}");
    }
    plain.cancel().await.expect("closed");
    let asked = mcp_support::spawn_with_env(&[FAULTS]).await;
    let e = compute(&asked, "1 FAULT-HOG 2 3 +").await;
    if cfg!(feature = "fault-injection") {
        assert_eq!(e["outcome"], "value", "{e}");
        assert_eq!(e["stackDisplay"], json!(["5/1"]));
    } else {
        assert_eq!(e["outcome"], "error:unknownWord", "{e}");
    }
    // Never in the registry's documents, whatever the process sees.
    let (_, contracts) = mcp_support::read(&asked, "ajisai://contracts").await;
    assert!(
        !contracts.contains("FAULT-"),
        "the registry lists a fault Word"
    );
    asked.cancel().await.expect("closed");
}

/// Evaluations run in Linux's batch scheduling class, the threads that read requests and
/// write answers in the default one (docs/mcp/transports.md#threads): in process
/// isolation every worker's engine thread and main thread, in thread isolation the
/// evaluation threads. The reaper stays in the default class: when it falls behind, a
/// call's leftovers are freed where they are and its slot comes back late.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluations_run_in_the_batch_class_and_serving_threads_do_not() {
    use crate::http_support::{self, HttpServer};
    /// SCHED_OTHER and SCHED_BATCH (sched(7)).
    const OTHER: u32 = 0;
    const BATCH: u32 = 3;
    /// Every thread of `pid`: its name and scheduling policy (`/proc/<pid>/task/*/stat`:
    /// the 41st field; the name is the 2nd, in parentheses, and may hold spaces).
    fn threads(pid: u32) -> Vec<(String, u32)> {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("tasks");
        tasks
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("stat")).ok())
            .map(|stat| {
                let open = stat.find('(').expect("a name");
                let close = stat.rfind(')').expect("a name");
                let rest: Vec<&str> = stat[close + 2..].split(' ').collect();
                // Fields after the name start at the 3rd: the 41st is rest[38].
                let policy = rest[38].parse().expect("a policy");
                (stat[open + 1..close].to_string(), policy)
            })
            .collect()
    }
    fn children(pid: u32) -> Vec<u32> {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("tasks");
        tasks
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok())
            .flat_map(|c| {
                c.split_whitespace()
                    .map(|p| p.parse().expect("a pid"))
                    .collect::<Vec<u32>>()
            })
            .collect()
    }
    for mode in ["process", "thread"] {
        let server = HttpServer::spawn(&["--isolation", mode, "--max-concurrency", "2"], &[]);
        let answer = http_support::call(&server, "compute", json!({ "source": "1 2 +" })).await;
        assert!(
            http_support::envelope_text(&answer).contains("\"3/1\""),
            "{answer:?}"
        );
        let own = threads(server.pid());
        let serving: Vec<_> = own.iter().filter(|(n, _)| n == "ajisai-serve").collect();
        assert!(!serving.is_empty(), "{mode}: {own:?}");
        assert!(serving.iter().all(|(_, p)| *p == OTHER), "{mode}: {own:?}");
        let evaluating: Vec<(String, u32)> = match mode {
            "process" => {
                // Both workers, once each has started its engine's thread.
                let mut workers = Vec::new();
                for _ in 0..500 {
                    workers = children(server.pid());
                    let engines = workers
                        .iter()
                        .filter(|&&w| threads(w).iter().any(|(n, _)| n == "ajisai-worker"))
                        .count();
                    if engines == 2 {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                assert_eq!(workers.len(), 2, "one worker per slot");
                workers
                    .into_iter()
                    .flat_map(threads)
                    .filter(|(n, _)| n != "ajisai-reaper")
                    .collect()
            }
            _ => own
                .iter()
                .filter(|(n, _)| n == "ajisai-eval")
                .cloned()
                .collect(),
        };
        assert!(!evaluating.is_empty(), "{mode}: {own:?}");
        assert!(
            evaluating.iter().all(|(_, p)| *p == BATCH),
            "{mode}: {evaluating:?}"
        );
    }
}

#[cfg(feature = "fault-injection")]
mod faults {
    use super::*;
    use crate::http_support::{self, HttpServer};
    use crate::mcp_support::call;
    use serde_json::Value;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// The serving process's peak resident memory (`VmHWM`), in bytes.
    fn peak_bytes(pid: u32) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        let kib: u64 = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .expect("VmHWM");
        kib * 1024
    }

    /// The error object of a host-error answer.
    fn host_error(envelope: &Value) -> &Value {
        assert_eq!(envelope["status"], "hostError", "{envelope}");
        mcp_support::assert_schema_valid(envelope);
        &envelope["error"]
    }

    /// Another client's small calls, over raw HTTP, until told to stop: every answer is
    /// checked, and the count of answers returned.
    fn bystander(server: &HttpServer, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<usize> {
        let url = server.mcp();
        tokio::spawn(async move {
            let mut answered = 0;
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let body = http_support::tools_call(
                    json!(n),
                    "compute",
                    json!({ "source": format!("{n} 1 +") }),
                );
                let a =
                    http_support::post(&url, body, &[("MCP-Protocol-Version", "2025-06-18")]).await;
                assert_eq!(a.status, 200, "{}", a.body);
                let e: Value = serde_json::from_str(&http_support::envelope_text(&a.json()))
                    .expect("an envelope");
                assert_eq!(e["stackDisplay"], json!([format!("{}/1", n + 1)]), "{e}");
                let ping = json!({"jsonrpc": "2.0", "id": n, "method": "ping"}).to_string();
                let p =
                    http_support::post(&url, ping, &[("MCP-Protocol-Version", "2025-06-18")]).await;
                assert_eq!(p.status, 200, "{}", p.body);
                answered += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            answered
        })
    }

    async fn compute_http(server: &HttpServer, source: &str) -> Value {
        let answer = http_support::call(server, "compute", json!({ "source": source })).await;
        serde_json::from_str(&http_support::envelope_text(&answer)).expect("an envelope")
    }

    /// The value of a counter line of `/metrics` (0 when absent).
    fn counter(metrics: &str, line_start: &str) -> u64 {
        metrics
            .lines()
            .find(|l| l.starts_with(line_start))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// Process isolation over HTTP (its default there): a spinning call is answered
    /// `workerReplaced` naming the deadline, a 1 GiB hog `workerReplaced` naming memory
    /// without growing the serving process, an abort `workerReplaced` without ending it;
    /// another client's small calls are all answered throughout, and `/metrics` counts
    /// the kills, deaths and starts.
    #[tokio::test]
    async fn over_http_a_faulting_worker_is_replaced_and_nobody_else_notices() {
        let server = HttpServer::spawn(&["--max-concurrency", "3"], &[FAULTS]);
        assert!(
            server
                .stderr_lines()
                .iter()
                .any(|l| l.contains("isolation process")),
            "process isolation is the default over HTTP"
        );
        let stop = Arc::new(AtomicBool::new(false));
        let other = bystander(&server, Arc::clone(&stop));
        let started = std::time::Instant::now();
        let spin = compute_http(&server, "1 2 + FAULT-SPIN").await;
        let waited = started.elapsed();
        let e = host_error(&spin);
        assert_eq!(e["code"], "workerReplaced", "{spin}");
        assert_eq!(e["limit"], "wallTimeMs", "{spin}");
        assert_eq!(e["retryable"], false);
        assert!(e["message"].as_str().unwrap().contains("5000 ms"), "{spin}");
        // Not a time goal (the benchmark holds those): the deadline did come first.
        assert!(waited >= std::time::Duration::from_secs(5), "{waited:?}");

        let before = peak_bytes(server.pid());
        let hog = compute_http(&server, "1024 FAULT-HOG").await;
        let e = host_error(&hog);
        assert_eq!(e["code"], "workerReplaced", "{hog}");
        assert_eq!(e["limit"], "memoryBytes", "{hog}");
        let after = peak_bytes(server.pid());
        assert!(
            after < before + (64 << 20),
            "the serving process grew from {before} to {after} bytes"
        );

        let abort = compute_http(&server, "FAULT-ABORT").await;
        let e = host_error(&abort);
        assert_eq!(e["code"], "workerReplaced", "{abort}");
        assert!(e.get("limit").is_none(), "{abort}");

        // The server goes on: the replaced workers serve the next calls.
        for _ in 0..6 {
            let ok = compute_http(&server, "6 7 *").await;
            assert_eq!(ok["stackDisplay"], json!(["42/1"]), "{ok}");
        }
        stop.store(true, Ordering::Relaxed);
        let answered = other
            .await
            .expect("the other client's calls were all answered");
        assert!(answered > 0);

        // A replacement starts after its predecessor is collected: the last one may still be
        // starting when the calls are all answered.
        let mut metrics = http_support::get(&format!("{}/metrics", server.base), &[]).await;
        for _ in 0..100 {
            if counter(&metrics.body, "ajisai_worker_starts_total") >= 3 + 3 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            metrics = http_support::get(&format!("{}/metrics", server.base), &[]).await;
        }
        assert_eq!(metrics.status, 200);
        let m = &metrics.body;
        assert_eq!(
            counter(m, "ajisai_worker_kills_total{reason=\"deadline\"}"),
            1,
            "{m}"
        );
        assert_eq!(
            counter(m, "ajisai_worker_deaths_total{cause=\"memory\"}"),
            1,
            "{m}"
        );
        assert_eq!(
            counter(m, "ajisai_worker_deaths_total{cause=\"crashed\"}"),
            1,
            "{m}"
        );
        assert!(counter(m, "ajisai_worker_starts_total") >= 3 + 3, "{m}");
        let log = server.stderr_lines().join("\n");
        assert!(log.contains("killed: deadline; replacing it"), "{log}");
        assert!(log.contains("died: memory; replacing it"), "{log}");
        assert!(
            log.contains("died: killed by signal 6; replacing it"),
            "{log}"
        );
    }

    /// Process isolation over stdio (`--isolation process`): the same three faults, each
    /// answered and each worker replaced, while the same client's small calls go on.
    #[tokio::test]
    async fn over_stdio_with_process_isolation_every_fault_is_answered() {
        let client = mcp_support::spawn_with_args(
            &["--isolation", "process", "--max-concurrency", "2"],
            &[FAULTS],
        )
        .await;
        let client = Arc::new(client);
        let spin = {
            let c = Arc::clone(&client);
            tokio::spawn(async move { compute(&c, "FAULT-SPIN").await })
        };
        // While one slot spins, the other answers small calls and the server answers pings.
        for n in 0..20 {
            let e = compute(&client, &format!("{n} 2 *")).await;
            assert_eq!(e["stackDisplay"], json!([format!("{}/1", n * 2)]), "{e}");
            let pong = call(&client, "word_contract", json!({ "word": "ADD" })).await;
            assert_eq!(pong["status"], "ok", "{pong}");
        }
        let spin = spin.await.expect("joined");
        assert_eq!(host_error(&spin)["code"], "workerReplaced", "{spin}");
        assert_eq!(host_error(&spin)["limit"], "wallTimeMs", "{spin}");
        let hog = compute(&client, "2048 FAULT-HOG").await;
        assert_eq!(host_error(&hog)["limit"], "memoryBytes", "{hog}");
        let abort = compute(&client, "FAULT-ABORT").await;
        assert_eq!(host_error(&abort)["code"], "workerReplaced", "{abort}");
        let ok = compute(&client, "1 3 /").await;
        assert_eq!(ok["stackDisplay"], json!(["1/3"]), "{ok}");
    }

    /// Thread isolation (the default on stdio): a hog is caught by the call's memory
    /// account, a spin is answered `timeout` at the deadline (its thread cannot be
    /// stopped and keeps its slot, the other slot serves on), and an abort ends the whole
    /// process — the backstop process isolation adds.
    #[tokio::test]
    async fn over_stdio_with_thread_isolation_the_account_and_the_deadline_answer() {
        let client = mcp_support::spawn_with_args(&["--max-concurrency", "2"], &[FAULTS]).await;
        let hog = compute(&client, "256 FAULT-HOG").await;
        let e = host_error(&hog);
        assert_eq!(e["code"], "memoryExhausted", "{hog}");
        let spin = compute(&client, "FAULT-SPIN").await;
        assert_eq!(host_error(&spin)["code"], "timeout", "{spin}");
        let ok = compute(&client, "2 3 +").await;
        assert_eq!(ok["stackDisplay"], json!(["5/1"]), "{ok}");
        let abort = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("compute")
                    .with_arguments(mcp_support::object(json!({ "source": "FAULT-ABORT" }))),
            )
            .await;
        assert!(abort.is_err(), "the process ended: {abort:?}");
    }

    /// Thread isolation over HTTP (`--isolation thread`): the same account and deadline;
    /// the server keeps answering on its other slots — with one I/O thread
    /// (`--io-threads 1`), which a spinning evaluation never takes: another client's
    /// calls and pings are answered all through the spin.
    #[tokio::test]
    async fn over_http_with_thread_isolation_the_account_and_the_deadline_answer() {
        let server = HttpServer::spawn(
            &[
                "--isolation",
                "thread",
                "--max-concurrency",
                "2",
                "--io-threads",
                "1",
            ],
            &[FAULTS],
        );
        let lines = server.stderr_lines();
        assert!(lines.iter().any(|l| l.contains("isolation thread")));
        assert!(
            lines.iter().any(|l| l.contains("; 1 I/O threads")),
            "{lines:?}"
        );
        let hog = compute_http(&server, "256 FAULT-HOG").await;
        assert_eq!(host_error(&hog)["code"], "memoryExhausted", "{hog}");
        let stop = Arc::new(AtomicBool::new(false));
        let other = bystander(&server, Arc::clone(&stop));
        let spin = compute_http(&server, "FAULT-SPIN").await;
        assert_eq!(host_error(&spin)["code"], "timeout", "{spin}");
        stop.store(true, Ordering::Relaxed);
        let answered = other.await.expect("the bystander");
        assert!(
            answered >= 10,
            "only {answered} small calls (one each 20 ms) answered during a 5 s spin on one I/O thread"
        );
        let ok = compute_http(&server, "2 3 +").await;
        assert_eq!(ok["stackDisplay"], json!(["5/1"]), "{ok}");
    }

    /// With `--playground` beside a token-protected `/mcp`, unauthenticated page load —
    /// runs that spin until their worker is replaced, and a stream of page requests —
    /// never makes a token holder's call answer `capacityExhausted`: the page has slots
    /// of its own.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn page_load_never_takes_a_token_holders_slot() {
        let server = HttpServer::spawn(
            &["--playground", "--max-concurrency", "2"],
            &[FAULTS, ("AJISAI_HTTP_TOKEN", http_support::TOKEN)],
        );
        let base = server.base.clone();
        let page_runs: Vec<_> = (0..6)
            .map(|_| {
                let base = base.clone();
                tokio::spawn(async move {
                    crate::playground::run(&base, "compute", json!({ "source": "FAULT-SPIN" }))
                        .await
                })
            })
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let page_loop = {
            let base = base.clone();
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let _ = crate::playground::run(&base, "compute", json!({ "source": "1 2 +" }))
                        .await;
                }
            })
        };
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let bearer = format!("Bearer {}", http_support::TOKEN);
        for n in 0..30u64 {
            let a = http_support::post(
                &server.mcp(),
                http_support::tools_call(
                    json!(n),
                    "compute",
                    json!({ "source": format!("{n} 3 *") }),
                ),
                &[
                    ("Authorization", &bearer),
                    ("MCP-Protocol-Version", "2025-06-18"),
                ],
            )
            .await;
            assert_eq!(a.status, 200, "{}", a.body);
            let e: Value =
                serde_json::from_str(&http_support::envelope_text(&a.json())).expect("JSON");
            assert_eq!(e["stackDisplay"], json!([format!("{}/1", n * 3)]), "{e}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        stop.store(true, Ordering::Relaxed);
        let _ = page_loop.await;
        for run in page_runs {
            let answer = run.await.expect("joined");
            // Each spinning page run is answered: its worker replaced, or the page busy.
            assert!(
                answer.body.contains("workerReplaced") || answer.body.contains("capacityExhausted"),
                "{}",
                answer.body
            );
        }
    }

    /// A client that hangs up while its spinning call is past its deadline (inside the
    /// grace, while the worker is being stopped and killed) does not cost the pool its
    /// worker: the worker is still replaced, and with one slot the next call is answered.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_that_leaves_during_the_grace_does_not_cost_the_pool_its_worker() {
        let server = HttpServer::spawn(&["--max-concurrency", "1"], &[FAULTS]);
        let url = server.mcp();
        let gone = tokio::spawn(async move {
            http_support::post(
                &url,
                http_support::tools_call(json!(1), "compute", json!({ "source": "FAULT-SPIN" })),
                &[("MCP-Protocol-Version", "2025-06-18")],
            )
            .await
        });
        // The deadline is 5 s and the grace 500 ms: leave in between.
        tokio::time::sleep(std::time::Duration::from_millis(5_200)).await;
        gone.abort();
        let ok = compute_http(&server, "2 2 +").await;
        assert_eq!(ok["stackDisplay"], json!(["4/1"]), "{ok}");
        let m = http_support::get(&format!("{}/metrics", server.base), &[])
            .await
            .body;
        assert_eq!(counter(&m, "ajisai_worker_starts_total"), 2, "{m}");
        assert!(
            counter(&m, "ajisai_worker_kills_total{reason=\"deadline\"}")
                + counter(&m, "ajisai_worker_kills_total{reason=\"crashed\"}")
                == 1,
            "{m}"
        );
    }

    /// Under process isolation a call that checks its limits is stopped at its deadline
    /// by its worker (the stop signal) and answered `timeout`, and the worker is kept: no
    /// kill, no replacement; a client that hangs up stops its call the same way.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_that_polls_is_stopped_by_its_worker_and_the_worker_kept() {
        let server = HttpServer::spawn(
            &["--max-concurrency", "2"],
            &[FAULTS, ("AJISAI_TEST_UNBOUNDED_WORK", "1")],
        );
        let until_deadline = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";
        let e = compute_http(&server, until_deadline).await;
        assert_eq!(host_error(&e)["code"], "timeout", "{e}");
        // A client that hangs up: its call is stopped, and the slot comes back.
        let url = server.mcp();
        let gone = tokio::spawn(async move {
            http_support::post(
                &url,
                http_support::tools_call(json!(2), "compute", json!({ "source": until_deadline })),
                &[("MCP-Protocol-Version", "2025-06-18")],
            )
            .await
        });
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        gone.abort();
        let metrics_url = format!("{}/metrics", server.base);
        let mut freed = false;
        for _ in 0..100 {
            let m = http_support::get(&metrics_url, &[]).await.body;
            if m.contains("ajisai_executions_in_flight 0") {
                freed = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(freed, "the hung-up call gave its slot back");
        let ok = compute_http(&server, "2 2 +").await;
        assert_eq!(ok["stackDisplay"], json!(["4/1"]), "{ok}");
        let m = http_support::get(&metrics_url, &[]).await.body;
        assert_eq!(
            counter(&m, "ajisai_worker_kills_total{reason=\"deadline\"}"),
            0,
            "{m}"
        );
        assert_eq!(counter(&m, "ajisai_worker_starts_total"), 2, "{m}");
    }
}
