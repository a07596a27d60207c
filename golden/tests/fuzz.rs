//! No-panic fuzzing: random token streams and random well-formed programs, every one
//! of which must end in exactly one of the three outcomes — a value, a NIL with a
//! reason, or an error with a valid category — without panicking, and within the
//! profile's limits.
//!
//! Every program also runs under the MCP profile's memory ceiling, counted by the same
//! allocator the binaries use: a run may end in `memoryExhausted` (the host error the
//! server would answer), but no program may hold more than the ceiling plus the allowed
//! overshoot.
//!
//! The generator is a seeded SplitMix64, so a failure is reproducible from the seed
//! and index it prints. `AJISAI_FUZZ_PROGRAMS` sets the count (default 100,000),
//! `AJISAI_FUZZ_SEED` the seed.

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::HostFields;
use ajisai_core::limits::InterruptFlag;
use ajisai_core::{Limit, Profile, Value};
use ajisai_golden::programs::{self, names};
use ajisai_golden::{link, on_big_stack, Rng};
use ajisai_host::memory::{self, Execution, OVERSHOOT_BYTES};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Why a run broke the trichotomy or the profile, if it did. Only the memory ceiling
/// interrupts a run here (`exhausted`).
fn violation(report: &ComputeReport, profile: &Profile, exhausted: bool) -> Option<String> {
    if report.interrupted != exhausted {
        return Some(if exhausted {
            "memory ran out but the run was not stopped".into()
        } else {
            "interrupted although memory did not run out".into()
        });
    }
    if exhausted {
        return None;
    }
    let refused = report.error.as_ref().and_then(|e| e.resource);
    if let Some(e) = &report.error {
        if e.category.id() == "resourceLimitExceeded" {
            match e.resource.and_then(Limit::from_name) {
                Some(l) if Limit::ENGINE.contains(&l) => {}
                _ => return Some(format!("a limit error names no engine limit: {e:?}")),
            }
        } else if e.resource.is_some() {
            return Some(format!("only limit errors name a resource: {e:?}"));
        }
        // Messages may quote operands holding line breaks; the envelope makes them one line.
        if e.message.trim().is_empty() {
            return Some("an error without a message".into());
        }
    }
    let meters = [
        (
            Limit::ExecutionSteps,
            report.usage.execution_steps,
            profile.execution_steps,
        ),
        (
            Limit::NumericWork,
            report.usage.numeric_work,
            profile.numeric_work,
        ),
        (
            Limit::CollectionWork,
            report.usage.collection_work,
            profile.collection_work,
        ),
    ];
    for (limit, used, max) in meters {
        if used > max && refused != Some(limit.name()) {
            return Some(format!(
                "{} used {used} over the limit {max} without a refusal",
                limit.name()
            ));
        }
    }
    None
}

struct Finding {
    index: u64,
    source: String,
    what: String,
}

/// What the fuzzer saw in all.
#[derive(Default)]
struct Tally {
    /// Values, NILs and errors.
    outcomes: [u64; 3],
    /// Runs stopped by the memory ceiling.
    exhausted: u64,
    /// The largest peak of any run, in bytes.
    peak: u64,
}

fn fuzz(seed: u64, count: u64) -> (Vec<Finding>, Tally) {
    let names = names();
    let profile = Profile::MCP_LOCAL_STDIO;
    let ceiling = profile.memory_bytes.unwrap_or(u64::MAX);
    let mut rng = Rng(seed);
    let mut findings = Vec::new();
    let mut tally = Tally::default();
    for index in 0..count {
        let source = programs::any(&mut rng, &names);
        let render = index % 16 == 0;
        let flag = InterruptFlag::new();
        let account = Execution::begin(ceiling, &flag);
        let options = Options {
            profile: profile.clone(),
            interrupt: Some(flag.clone()),
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            let report = compute(&source, &options);
            let envelope = if render && !report.interrupted {
                Some(compute_json(&report, &HostFields::NONE))
            } else {
                None
            };
            (report, envelope)
        }));
        let usage = account.usage();
        drop(account);
        tally.peak = tally.peak.max(usage.peak_bytes);
        let over = (usage.peak_bytes > ceiling + OVERSHOOT_BYTES).then(|| {
            format!(
                "held {} bytes, over the {ceiling}-byte ceiling plus {OVERSHOOT_BYTES}",
                usage.peak_bytes
            )
        });
        let what = match result {
            Err(p) => Some(format!(
                "PANIC: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
            Ok((report, envelope)) => {
                match (&report.error, report.stack.last()) {
                    _ if usage.exceeded => tally.exhausted += 1,
                    (Some(_), _) => tally.outcomes[2] += 1,
                    (None, Some(Value::Nil(_))) => tally.outcomes[1] += 1,
                    (None, _) => tally.outcomes[0] += 1,
                }
                let bad_json =
                    envelope.and_then(|e| serde_json::from_str::<serde_json::Value>(&e).err());
                over.or_else(|| violation(&report, &profile, usage.exceeded))
                    .or(bad_json.map(|e| format!("envelope is not JSON: {e}")))
            }
        };
        if let Some(what) = what {
            findings.push(Finding {
                index,
                source,
                what,
            });
            if findings.len() >= 20 {
                break;
            }
        }
    }
    (findings, tally)
}

#[test]
fn random_programs_never_panic_and_stay_within_limits() {
    link();
    let count: u64 = std::env::var("AJISAI_FUZZ_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("AJISAI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x00A1_15A1);
    // Expected panics are caught and reported below; keep the default hook's noise out.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    ajisai_numerics_gmp::route_allocations();
    memory::install();
    ajisai_host::reaper::install();
    assert!(memory::counting(), "the fuzzer counts allocations");
    let (findings, tally) = on_big_stack(move || fuzz(seed, count));
    std::panic::set_hook(hook);
    println!(
        "fuzz: {count} programs (seed {seed}): {} values, {} NILs, {} errors, {} memoryExhausted; largest peak {} bytes",
        tally.outcomes[0], tally.outcomes[1], tally.outcomes[2], tally.exhausted, tally.peak
    );
    let report: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "#{} (seed {seed}): {}\n    source: {:?}",
                f.index, f.what, f.source
            )
        })
        .collect();
    assert!(
        findings.is_empty(),
        "{} finding(s):\n{}",
        findings.len(),
        report.join("\n")
    );
}

#[test]
fn a_million_deep_non_tail_recursion_completes_or_is_refused_by_steps() {
    link();
    let source = "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 1000000 CD2";
    let report = on_big_stack(move || compute(source, &Options::new(Profile::CLI_LOCAL)));
    match &report.error {
        None => assert_eq!(report.stack.len(), 1, "one result"),
        Some(e) => assert_eq!(
            e.resource,
            Some("executionSteps"),
            "only the step limit may stop it: {e:?}"
        ),
    }
}

#[test]
fn deeply_nested_blocks_never_recurse_natively() {
    link();
    // A small native stack on purpose: parsing, display, the envelope and drop must all
    // walk 100,000 nested blocks with explicit work stacks.
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            let depth = 100_000;
            let source = format!("{}1{} 'kept' PRINT", "{ ".repeat(depth), " }".repeat(depth));
            let report = compute(&source, &Options::new(Profile::CLI_LOCAL));
            assert!(report.error.is_none(), "{:?}", report.error);
            assert_eq!(report.output, ["kept"]);
            let json = compute_json(&report, &HostFields::NONE);
            assert!(json.len() > 4 * depth);
            drop(report);
            // Equality and hashing walk them too: EQ compares tokens, UNIQUE probes by hash.
            let deep = format!("{}1{}", "{".repeat(20_000), "}".repeat(20_000));
            let source = format!("{deep} {deep} EQ [ {deep} {deep} ] UNIQUE LENGTH");
            let report = compute(&source, &Options::new(Profile::CLI_LOCAL));
            assert!(report.error.is_none(), "{:?}", report.error);
            let shown: Vec<String> = report
                .stack
                .iter()
                .map(ajisai_core::display::display)
                .collect();
            assert_eq!(shown, ["TRUE", "1/1"]);
            // And one that runs: EXEC peels one level per step.
            let run = compute(
                "{ { { 2 } } } EXEC EXEC EXEC",
                &Options::new(Profile::MCP_LOCAL_STDIO),
            );
            assert!(run.error.is_none(), "{:?}", run.error);
        });
    worker
        .expect("spawn")
        .join()
        .expect("no native stack overflow or panic");
}

// Shared with the cost benchmark, which reads more of each measurement than the test.
#[path = "cost_support.rs"]
#[allow(dead_code)]
mod cost_support;

/// The cost fuzzer (docs/reference/pricing-and-limits.md#calibration): programs that make
/// one Word of the registry walk far more than its operands show (`ajisai_golden::cost`),
/// each called as the MCP server calls it — `compute`, and for some `check` or
/// `infer_contracts` too — under the `mcp-local-stdio` profile, its memory account and
/// the 5 s deadline. No answer may come from the deadline, and no call may hold more
/// than the memory ceiling plus the allowed overshoot; no wall-clock limit is asserted
/// (the benchmark `benches/cost.rs` reports the times). Release builds only: a debug
/// build's engine is too slow to say anything about the deadline.
/// `AJISAI_COST_PROGRAMS` sets the count (default 300), `AJISAI_COST_SEED` the seed.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the cost fuzzer runs in release builds (CI runs it)"
)]
fn cost_fuzzer_answers_every_program_before_its_deadline_within_memory() {
    use ajisai_server::mcp::{AjisaiServer, ServerOptions};
    cost_support::install();
    let (count, seed) = cost_support::count_and_seed(300);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let runs = on_big_stack(move || {
        let server = AjisaiServer::new(ServerOptions::production());
        let mut rng = Rng(seed);
        let programs = ajisai_golden::cost::programs(&mut rng, count);
        let mut runs = Vec::new();
        for (i, p) in programs.iter().enumerate() {
            for tool in cost_support::tools_for(i) {
                runs.push(cost_support::measure(
                    &server,
                    p,
                    tool,
                    std::time::Duration::from_secs(5),
                ));
            }
        }
        (runs, programs)
    });
    std::panic::set_hook(hook);
    let (runs, programs) = runs;
    let ceiling = Profile::MCP_LOCAL_STDIO.memory_bytes.unwrap_or(u64::MAX);
    let mut order: Vec<&cost_support::Measured> = runs.iter().collect();
    order.sort_by_key(|r| std::cmp::Reverse(r.elapsed));
    println!(
        "cost fuzzer: {count} programs (seed {seed}), {} calls; slowest:",
        runs.len()
    );
    for r in order.iter().take(8) {
        println!(
            "  {:>8.1} ms {:>6.1} MiB  gap {:>6.2} ms  {} {}: {}",
            r.elapsed.as_secs_f64() * 1e3,
            r.peak_bytes as f64 / 1048576.0,
            r.longest_gap.as_secs_f64() * 1e3,
            r.tool,
            r.name,
            r.outcome
        );
    }
    println!(
        "calibration: per Word, the most ns per unit it charged (calls charging 10,000 or more):"
    );
    for (word, ns, program) in cost_support::calibration_by_word(&runs) {
        println!("  {word:<16} {ns:>8.2} ns/unit  {program}");
    }
    let findings: Vec<String> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let what = if r.timed_out || r.outcome.starts_with("hostError:timeout") {
                "answered by the deadline".to_string()
            } else if r.peak_bytes > ceiling + OVERSHOOT_BYTES {
                format!(
                    "held {} bytes, over the ceiling plus {OVERSHOOT_BYTES}",
                    r.peak_bytes
                )
            } else if r.outcome == "panic" || r.outcome.contains("backendFailure") {
                format!("failed: {}", r.outcome)
            } else {
                return None;
            };
            let source = programs
                .iter()
                .find(|p| p.name == r.name)
                .map(|p| p.source.chars().take(400).collect::<String>())
                .unwrap_or_default();
            Some(format!(
                "call {i} ({} {}): {what}\n    source: {source}",
                r.tool, r.name
            ))
        })
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

/// Programs that run until they are stopped, each keeping state of one kind as it goes:
/// every stack-neutral body in every loop (a recursion that is not a tail call and so
/// nests frames, a tail loop, a MAP inside a MAP), bodies that grow the stack in a
/// recursion, and tail loops that grow their one value (text, a deep Vector, a shared
/// one, a FOLD's accumulator).
fn long_runs() -> Vec<ajisai_golden::cost::CostProgram> {
    let bodies = [
        "[ 'abc' 'def' ] JOIN ',' TOKENIZE 'T' BIND",
        "0 99 RANGE 'T' BIND",
        "2 SQRT 3 SQRT + 'T' BIND",
        "1 3 / 'T' BIND",
    ];
    let mut sources = Vec::new();
    for body in bodies {
        sources.push(format!("{{ {body} L }} 'L' DEF L"));
        sources.push(format!("{{ {{ IDLE | {body} L }} COND }} 'L' DEF 1 L"));
        sources.push(format!(
            "0 99999 RANGE {{ [ ] BIND 0 999 RANGE {{ [ ] BIND {body} 0 }} MAP LENGTH }} MAP"
        ));
    }
    sources.extend(
        [
            "{ 1 L } 'L' DEF L",
            "{ 0 99 RANGE L } 'L' DEF L",
            "{ { IDLE | 'x' 2 COLLECT JOIN L } COND } 'L' DEF 'x' L",
            "{ { IDLE | 'V' BIND [ V 1 ] L } COND } 'L' DEF [ 1 ] L",
            "{ { IDLE | 'V' BIND [ V V ] L } COND } 'L' DEF [ 1 ] L",
            "0 99999 RANGE [ ] { 1 COLLECT CONCAT } FOLD LENGTH",
        ]
        .map(str::to_string),
    );
    sources
        .into_iter()
        .enumerate()
        .map(|(i, source)| ajisai_golden::cost::CostProgram {
            name: format!("long-run-{i}"),
            word: String::new(),
            prefix: String::new(),
            source,
        })
        .collect()
}

/// How long a stopped call takes to give its slot back. The cost fuzzer's programs (and
/// tools) with their budgets lifted (`executionSteps`, `numericWork`, `collectionWork`; a memory
/// ceiling of 512 MiB), and [`long_runs`], each stopped by its deadline 5, 30 or 150 ms
/// after it started: every call must return — and so give its slot back — well within
/// the grace after which process isolation replaces a worker that has not stopped
/// ([`ajisai_service::isolation::STOP_GRACE`]). Between the check that sees the flag and
/// its return a run only unwinds its frames and renders its answer; what it leaves goes
/// to the reaper (a run stopped 200,000 frames deep used to drop them there: 50–75 ms).
/// Release builds only, like the cost fuzzer.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the cost fuzzer runs in release builds (CI runs it)"
)]
fn stopped_calls_give_their_slot_back_promptly() {
    use ajisai_server::mcp::{AjisaiServer, ServerOptions};
    use std::time::Duration;
    cost_support::install();
    let (count, seed) = cost_support::count_and_seed(300);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (runs, programs) = on_big_stack(move || {
        let lifted = u64::MAX / 2;
        let server = AjisaiServer::new(
            ServerOptions::production()
                .with_limit(Limit::ExecutionSteps, lifted)
                .with_limit(Limit::NumericWork, lifted)
                .with_limit(Limit::CollectionWork, lifted)
                .with_limit(Limit::MemoryBytes, 512 << 20),
        );
        let mut rng = Rng(seed);
        let mut programs = ajisai_golden::cost::programs(&mut rng, count);
        let generated = programs.len();
        programs.extend(long_runs());
        let mut runs = Vec::new();
        for (i, p) in programs.iter().enumerate() {
            let deadlines: &[u64] = if i < generated {
                &[[5, 30, 150][i % 3]]
            } else {
                &[5, 30, 150]
            };
            let tools = if i < generated {
                cost_support::tools_for(i)
            } else {
                &["compute"]
            };
            for &ms in deadlines {
                for tool in tools {
                    runs.push(cost_support::measure(
                        &server,
                        p,
                        tool,
                        Duration::from_millis(ms),
                    ));
                }
            }
        }
        (runs, programs)
    });
    std::panic::set_hook(hook);
    let grace = ajisai_service::isolation::STOP_GRACE;
    let mut stopped: Vec<&cost_support::Measured> =
        runs.iter().filter(|r| r.stopped_in.is_some()).collect();
    stopped.sort_by_key(|r| std::cmp::Reverse(r.stopped_in));
    println!(
        "stop latency: {} of {} calls (seed {seed}) stopped by their deadline; slowest to return:",
        stopped.len(),
        runs.len()
    );
    for r in stopped.iter().take(8) {
        println!(
            "  {:>8.2} ms  {} {} {}",
            r.stopped_in.unwrap_or_default().as_secs_f64() * 1e3,
            r.tool,
            r.name,
            r.outcome
        );
    }
    let long = long_runs().len();
    assert!(
        stopped
            .iter()
            .filter(|r| r.name.starts_with("long-run-"))
            .count()
            * 2
            > long * 3,
        "the long runs run until their deadline"
    );
    let late: Vec<String> = runs
        .iter()
        .filter(|r| r.stopped_in.is_some_and(|d| d >= grace) || r.outcome == "panic")
        .map(|r| {
            let source = programs
                .iter()
                .find(|p| p.name == r.name)
                .map(|p| p.source.chars().take(400).collect::<String>())
                .unwrap_or_default();
            format!(
                "{} {}: {:?} after its flag ({})\n    source: {source}",
                r.tool, r.name, r.stopped_in, r.outcome
            )
        })
        .collect();
    assert!(late.is_empty(), "{}", late.join("\n"));
}
