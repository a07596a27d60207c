//! `cargo bench -p ajisai-golden --bench bounded`: how bounded the calls are.
//!
//! Every program runs through the MCP server's own execution path (`compute` under the
//! `mcp-local-stdio` profile: engine, fitting, the delivered result) under its memory
//! account, with the allocator the binaries use and a 5 s deadline raised by a timer
//! thread, as the server raises it. Reported, never asserted (these machines are shared
//! and noisy; the tests assert outcomes and peaks instead):
//! - the slowest and the most memory-hungry programs of the hostile set
//!   (`golden/hostile.json`) and of 10,000 random programs (the fuzzer's generator);
//! - the engine's stop latency: how long after the interrupt flag is raised the call
//!   returns, for every program still running at a 250 ms deadline.
//!
//! `AJISAI_BENCH_PROGRAMS` sets the random count, `AJISAI_BENCH_SEED` the seed.

use ajisai_core::limits::InterruptFlag;
use ajisai_golden::programs;
use ajisai_golden::{link, Rng};
use ajisai_host::memory::{self, Counting};
use ajisai_server::mcp::{AjisaiServer, ServerOptions};
use ajisai_service::validate::ToolKind;
use serde_json::Value;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measured call.
struct Run {
    name: String,
    elapsed: Duration,
    peak_bytes: u64,
    outcome: String,
    /// Time from the raised flag to the call's return, when the deadline fired.
    stop_latency: Option<Duration>,
}

/// Run `source` with the flag raised after `deadline`.
fn measure(server: &AjisaiServer, name: &str, source: &str, deadline: Duration) -> Run {
    let flag = InterruptFlag::new();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let timer_flag = flag.clone();
    let timer = std::thread::spawn(move || match done_rx.recv_timeout(deadline) {
        Err(mpsc::RecvTimeoutError::Timeout) => {
            timer_flag.raise();
            Some(Instant::now())
        }
        _ => None,
    });
    let start = Instant::now();
    let (answer, usage) = server.executor().execute_measured(
        ToolKind::COMPUTE
            .source_tool()
            .expect("compute runs source"),
        source,
        &[],
        flag.clone(),
        Default::default(),
    );
    let end = Instant::now();
    let _ = done_tx.send(());
    let raised_at = timer.join().ok().flatten();
    let timed_out = flag.is_raised() && !usage.exceeded;
    let outcome = match answer {
        Ok(Ok(result)) => {
            let v: Value = serde_json::from_str(result.envelope()).unwrap_or(Value::Null);
            match v["status"].as_str() {
                Some("hostError") => {
                    format!("hostError:{}", v["error"]["code"].as_str().unwrap_or("?"))
                }
                _ => {
                    let mut o = v["outcome"].as_str().unwrap_or("?").to_string();
                    if let Some(r) = v["error"]["resource"].as_str() {
                        o = format!("{o} ({r})");
                    }
                    o
                }
            }
        }
        Ok(Err(e)) if timed_out => format!("hostError:timeout ({})", e.code.id()),
        Ok(Err(e)) => format!("hostError:{}", e.code.id()),
        Err(_) => "panic".to_string(),
    };
    let outcome = if timed_out && !outcome.starts_with("hostError:timeout") {
        format!("hostError:timeout (the engine stopped with {outcome})")
    } else {
        outcome
    };
    Run {
        name: name.to_string(),
        elapsed: end - start,
        peak_bytes: usage.peak_bytes,
        outcome,
        stop_latency: raised_at.map(|t| end.saturating_duration_since(t)),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One report line of a run.
fn row(r: &Run) {
    println!(
        "    {:>9.1} ms {:>7.1} MiB  {:<28} {}",
        ms(r.elapsed),
        mib(r.peak_bytes),
        r.name,
        r.outcome
    );
}

fn top(runs: &[Run], what: &str, n: usize, key: impl Fn(&Run) -> u128) {
    let mut order: Vec<&Run> = runs.iter().collect();
    order.sort_by_key(|r| std::cmp::Reverse(key(r)));
    println!("  {what}:");
    order.into_iter().take(n).for_each(row);
}

fn hostile() -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(include_str!("../hostile.json")).expect("JSON");
    doc["programs"]
        .as_array()
        .expect("programs")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or("?").to_string(),
                p["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn main() {
    ajisai_numerics_gmp::route_allocations();
    memory::install();
    ajisai_host::reaper::install();
    link();
    ajisai_host::backend::link();
    let server = AjisaiServer::new(ServerOptions::production());
    let backend = ajisai_core::numerics::process().provenance();
    println!(
        "bounded: mcp-local-stdio, memoryBytes {} per call, numerics {} ({})",
        ServerOptions::production().memory_bytes(),
        backend.kind,
        backend.library
    );
    let deadline = Duration::from_millis(5_000);

    let hostile = hostile();
    let runs: Vec<Run> = hostile
        .iter()
        .map(|(name, source)| measure(&server, name, source, deadline))
        .collect();
    println!(
        "hostile set ({} programs, golden/hostile.json), 5 s deadline:",
        runs.len()
    );
    runs.iter().for_each(row);
    let answered: Vec<&Run> = runs
        .iter()
        .filter(|r| !r.outcome.starts_with("hostError:timeout"))
        .collect();
    if let Some(slowest) = answered.iter().max_by_key(|r| r.elapsed) {
        println!(
            "  slowest answered before the deadline: {} in {:.1} ms ({})",
            slowest.name,
            ms(slowest.elapsed),
            slowest.outcome
        );
    }
    if let Some(hungriest) = runs.iter().max_by_key(|r| r.peak_bytes) {
        println!(
            "  most memory-hungry: {} at {:.1} MiB ({})",
            hungriest.name,
            mib(hungriest.peak_bytes),
            hungriest.outcome
        );
    }
    let timeouts: Vec<&str> = runs
        .iter()
        .filter(|r| r.outcome.starts_with("hostError:timeout"))
        .map(|r| r.name.as_str())
        .collect();
    println!(
        "  reaching the deadline: {}",
        if timeouts.is_empty() {
            "none".to_string()
        } else {
            timeouts.join(", ")
        }
    );

    let count: u64 = std::env::var("AJISAI_BENCH_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let seed: u64 = std::env::var("AJISAI_BENCH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x00B0_0DED);
    let names = programs::names();
    let mut rng = Rng(seed);
    let random: Vec<Run> = (0..count)
        .map(|i| {
            let source = programs::any(&mut rng, &names);
            measure(&server, &format!("random #{i}"), &source, deadline)
        })
        .collect();
    println!("{count} random programs (seed {seed}), 5 s deadline:");
    top(&random, "slowest", 5, |r| r.elapsed.as_nanos());
    top(&random, "most memory-hungry", 5, |r| {
        u128::from(r.peak_bytes)
    });

    let short = Duration::from_millis(250);
    let mut latencies: Vec<(String, Duration)> = hostile
        .iter()
        .map(|(name, source)| measure(&server, name, source, short))
        .filter_map(|r| r.stop_latency.map(|l| (r.name, l)))
        .collect();
    latencies.sort_by_key(|(_, l)| std::cmp::Reverse(*l));
    println!(
        "stop latency after a 250 ms deadline ({} hostile programs still running then):",
        latencies.len()
    );
    for (name, l) in &latencies {
        println!("    {:>9.2} ms  {name}", ms(*l));
    }
}
