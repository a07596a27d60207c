//! Every benchmark program on every linked numeric backend, side by side in one run,
//! with the pure/gmp time ratio. Run with `cargo bench -p ajisai-words --bench backends`.
//!
//! Each program first runs once per backend and the envelopes must be byte-identical;
//! then each backend is timed on alternating rounds (so drift on a shared machine hits
//! both alike) and the median is reported. `AJISAI_BENCH_ROUNDS` sets the rounds
//! (default 15), `AJISAI_BENCH_BACKENDS` the kinds (default all). Figures are ratios within one run, not absolute promises.

#![allow(missing_docs)]

#[path = "programs.rs"]
mod programs;

use ajisai_core::engine::{compute, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{self, with_backend, Numerics};
use ajisai_core::Profile;
use std::time::{Duration, Instant};

fn run(source: &str, options: &Options, render: bool) -> String {
    let report = compute(source, options);
    assert!(report.error.is_none(), "{source}: {:?}", report.error);
    if render {
        compute_json(&report, &HostFields::NONE)
    } else {
        String::new()
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    ajisai_numerics_pure::link();
    ajisai_numerics_gmp::link();
    ajisai_words::link();
    // `cargo bench` passes `--bench`; a filter argument selects programs by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let rounds: usize = std::env::var("AJISAI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let options = Options::new(Profile::CLI_LOCAL);
    // `AJISAI_BENCH_BACKENDS=gmp` (comma-separated kinds) times only those, e.g. to profile one.
    let only = std::env::var("AJISAI_BENCH_BACKENDS").ok();
    let backends: Vec<&'static dyn Numerics> = numerics::registered()
        .iter()
        .filter(|r| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|k| k.trim() == r.kind.id()))
        })
        .map(|r| (r.get)())
        .collect();
    let names: Vec<String> = backends.iter().map(|b| b.kind().id().to_string()).collect();
    println!(
        "{:<30} {}  pure/gmp",
        "program",
        names
            .iter()
            .map(|n| format!("{n:>12}"))
            .collect::<Vec<_>>()
            .join("")
    );
    let groups = [
        ("small", programs::SMALL, false),
        ("big", programs::BIG, true),
    ];
    for (group, list, render) in groups {
        println!("-- {group}");
        for (name, source) in list {
            if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
                continue;
            }
            let first: Vec<String> = backends
                .iter()
                .map(|&b| with_backend(b, || run(source, &options, true)))
                .collect();
            assert!(
                first.windows(2).all(|w| w[0] == w[1]),
                "{name}: the backends' envelopes differ"
            );
            let mut times: Vec<Vec<Duration>> = vec![Vec::new(); backends.len()];
            for _ in 0..rounds {
                for (i, &b) in backends.iter().enumerate() {
                    let start = Instant::now();
                    std::hint::black_box(with_backend(b, || run(source, &options, render)));
                    times[i].push(start.elapsed());
                }
            }
            let medians: Vec<Duration> = times.into_iter().map(median).collect();
            let ratio = match (
                names.iter().position(|n| n == "pure"),
                names.iter().position(|n| n == "gmp"),
            ) {
                (Some(p), Some(g)) => format!(
                    "{:>8.2}x",
                    medians[p].as_secs_f64() / medians[g].as_secs_f64()
                ),
                _ => "       —".to_string(),
            };
            println!(
                "{name:<30} {}  {ratio}",
                medians
                    .iter()
                    .map(|d| format!("{:>10.3}ms", d.as_secs_f64() * 1e3))
                    .collect::<Vec<_>>()
                    .join("")
            );
        }
    }
}
