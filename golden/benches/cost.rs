//! `cargo bench -p ajisai-golden --bench cost`: the cost fuzzer's time goals and the
//! calibration table of docs/reference/pricing-and-limits.md#calibration.
//!
//! Every program of the cost fuzzer (`ajisai_golden::cost`) is called as the MCP server
//! calls it (see `tests/cost_support.rs`) and the bench reports, never asserts (these
//! machines are shared and noisy):
//! - the slowest calls (the goal: every call answered within 1.5 s);
//! - the longest gap between two checks of the interrupt flag (the goal: 2 ms), in the
//!   calling thread's CPU time (the work done unpolled) and in wall-clock time (which
//!   adds the thread's waits for a core), with the calls that had the longest gaps;
//! - per Word, the most nanoseconds per charged unit (`numericWork` + `collectionWork`)
//!   any of its programs took: the calibration of the prices.
//!
//! `AJISAI_COST_PROGRAMS` sets the count (default 2,000), `AJISAI_COST_SEED` the seed.

// Shared with the cost fuzzer test, which also uses the calibration helpers the bench
// prints its own way.
#[path = "../tests/cost_support.rs"]
#[allow(dead_code)]
mod cost_support;

use ajisai_golden::Rng;
use ajisai_host::memory::Counting;
use ajisai_server::mcp::{AjisaiServer, ServerOptions};
use std::time::Duration;

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    cost_support::install();
    let (count, seed) = cost_support::count_and_seed(2_000);
    let backend = ajisai_core::numerics::process().provenance();
    let server = AjisaiServer::new(ServerOptions::production());
    let mut rng = Rng(seed);
    let mut programs = ajisai_golden::cost::programs(&mut rng, count);
    // `AJISAI_COST_ONLY=<text>[,<text>…]` keeps the programs whose name holds one of the
    // texts (to profile a few).
    if let Ok(only) = std::env::var("AJISAI_COST_ONLY") {
        let texts: Vec<&str> = only.split(',').collect();
        programs.retain(|p| texts.iter().any(|t| p.name.contains(t)));
    }
    let mut runs = Vec::new();
    // The walker's own cost: each compute call less its builder's, measured alone.
    let mut walkers: Vec<(String, String, Duration, u64)> = Vec::new();
    let mut builders: std::collections::HashMap<String, cost_support::Measured> =
        Default::default();
    for (i, p) in programs.iter().enumerate() {
        for tool in cost_support::tools_for(i) {
            let full = cost_support::measure(&server, p, tool, Duration::from_secs(5));
            if *tool == "compute" {
                let builder = (!p.prefix.is_empty()).then(|| {
                    builders
                        .entry(p.prefix.clone())
                        .or_insert_with(|| {
                            let alone = ajisai_golden::cost::CostProgram {
                                source: p.prefix.clone(),
                                ..p.clone()
                            };
                            cost_support::measure(
                                &server,
                                &alone,
                                "compute",
                                Duration::from_secs(5),
                            )
                        })
                        .clone()
                });
                let (time, units) = cost_support::walker_cost(&full, builder.as_ref());
                walkers.push((p.word.clone(), p.name.clone(), time, units));
            }
            runs.push(full);
        }
    }
    // The second pass: every call again, its checks reading the thread's CPU clock.
    cost_support::measure_cpu_gaps(true);
    let mut gap_runs = Vec::new();
    for (i, p) in programs.iter().enumerate() {
        for tool in cost_support::tools_for(i) {
            gap_runs.push(cost_support::measure(
                &server,
                p,
                tool,
                Duration::from_secs(5),
            ));
        }
    }
    cost_support::measure_cpu_gaps(false);
    println!(
        "cost: {count} programs (seed {seed}), {} calls, mcp-local-stdio, numerics {} ({})",
        runs.len(),
        backend.kind,
        backend.library
    );
    let mut by_time: Vec<&cost_support::Measured> = runs.iter().collect();
    by_time.sort_by_key(|r| std::cmp::Reverse(r.elapsed));
    println!("slowest calls (goal: every call within 1,500 ms):");
    for r in by_time.iter().take(12) {
        println!(
            "  {:>8.1} ms {:>6.1} MiB  {:<16} {:<40} {}",
            ms(r.elapsed),
            r.peak_bytes as f64 / 1048576.0,
            r.tool,
            r.name,
            r.outcome
        );
    }
    let mut by_cpu_gap: Vec<&cost_support::Measured> = gap_runs.iter().collect();
    by_cpu_gap.sort_by_key(|r| std::cmp::Reverse(r.longest_cpu_gap));
    println!(
        "longest gaps between two checks of the interrupt flag, in the calling thread's CPU \
         time, a second pass (goal: 2 ms):"
    );
    for r in by_cpu_gap.iter().take(8) {
        println!(
            "  {:>8.3} ms  {:<16} {:<40} {} (after check {})",
            ms(r.longest_cpu_gap),
            r.tool,
            r.name,
            r.outcome,
            r.cpu_gap_at
        );
    }
    let mut by_gap: Vec<&cost_support::Measured> = runs.iter().collect();
    by_gap.sort_by_key(|r| std::cmp::Reverse(r.longest_gap));
    println!(
        "longest gaps between two checks of the interrupt flag, wall clock (the thread's \
         waits for a core included):"
    );
    for r in by_gap.iter().take(8) {
        println!(
            "  {:>8.3} ms  {:<16} {:<40} {} (after check {})",
            ms(r.longest_gap),
            r.tool,
            r.name,
            r.outcome,
            r.gap_at
        );
    }
    let deadline: Vec<&str> = runs
        .iter()
        .filter(|r| r.timed_out)
        .map(|r| r.name.as_str())
        .collect();
    println!(
        "answered by the deadline: {}",
        if deadline.is_empty() {
            "none".to_string()
        } else {
            deadline.join(", ")
        }
    );
    println!(
        "calibration: per Word, the most ns per unit of its walks (a call less its builder's; \
         units: numericWork + collectionWork + {} a step; walks of 10,000 units or more):",
        cost_support::STEP_AS_UNITS
    );
    for (word, ns, program) in cost_support::calibration_of(&walkers) {
        println!("  {word:<16} {ns:>9.2} ns/unit  {program}");
    }
    println!(
        "calibration: per Word, the most ns per unit inside the Word itself (what it charged, \
         {} a run; calls where it charged 10,000 units or more):",
        cost_support::STEP_AS_UNITS
    );
    for (word, ns, program) in cost_support::calibration_by_word(&runs) {
        println!("  {word:<16} {ns:>9.2} ns/unit  {program}");
    }
}
