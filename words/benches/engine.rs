//! Engine benchmarks: whole programs through `engine::compute` (parse, run, report).
//!
//! Figures are for comparison within one run (ratios), not absolute promises: the
//! machines these run on are shared and noisy. Run with
//! `cargo bench -p ajisai-words --bench engine`.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use ajisai_core::engine::{compute, Options};
use ajisai_core::Profile;
use criterion::{criterion_group, criterion_main, Criterion};

/// (name, program) pairs; every program must finish without error under `cli-local`.
pub const PROGRAMS: &[(&str, &str)] = &[
    // Baseline: the smallest complete run (parse, one Word, report).
    ("baseline-1-2-add", "1 2 ADD"),
    // 90,004 steps of non-tail user-word recursion (5 steps per level).
    (
        "recursion-90k-steps",
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 18000 CD2",
    ),
    // Tail-recursive loop of about 90,000 steps (4 per iteration).
    (
        "tail-loop-90k-steps",
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 22499 CD",
    ),
    ("map-sum-100k", "0 99999 RANGE { 2 * } MAP SUM"),
    ("broadcast-sum-100k", "0 99999 RANGE 2 * SUM"),
    ("sort-100k", "42 100000 RANDOM SORT LENGTH"),
    ("product-2000-integers", "1 2000 RANGE 1 'MUL' FOLD"),
    (
        "algebraic-product-8-factors",
        "2 SQRT 3 SQRT + 5 SQRT 7 SQRT + * 11 SQRT 13 SQRT + * 17 SQRT 19 SQRT + * \
         23 SQRT 29 SQRT + * 31 SQRT 37 SQRT + * 41 SQRT 43 SQRT + * 47 SQRT 53 SQRT + *",
    ),
];

fn bench(c: &mut Criterion) {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let options = Options::new(Profile::CLI_LOCAL);
    for (name, source) in PROGRAMS {
        let report = compute(source, &options);
        assert!(report.error.is_none(), "{name}: {:?}", report.error);
        c.bench_function(name, |b| b.iter(|| compute(source, &options)));
    }
}

criterion_group! {
    name = engine;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(engine);
