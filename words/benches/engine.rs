//! Engine benchmarks: whole programs through `engine::compute` (parse, run, report),
//! each on every linked numeric backend side by side (`<program>/gmp`,
//! `<program>/pure`). Big-number programs also render the JSON envelope, whose decimal
//! texts are backend work too.
//!
//! Figures are for comparison within one run (ratios), not absolute promises: the
//! machines these run on are shared and noisy. Run with
//! `cargo bench -p ajisai-words --bench engine`; for a ratio table, the `backends`
//! bench.

#![allow(missing_docs)] // criterion_group! generates undocumented items

#[path = "programs.rs"]
mod programs;

use ajisai_core::engine::{compute, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{self, with_backend};
use ajisai_core::Profile;
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    ajisai_numerics_pure::link();
    ajisai_numerics_gmp::link();
    ajisai_words::link();
    let options = Options::new(Profile::CLI_LOCAL);
    let groups = [(programs::SMALL, false), (programs::BIG, true)];
    for (list, render) in groups {
        for (name, source) in list {
            for r in numerics::registered() {
                let backend = (r.get)();
                let report = with_backend(backend, || compute(source, &options));
                assert!(report.error.is_none(), "{name}: {:?}", report.error);
                c.bench_function(&format!("{name}/{}", r.kind.id()), |b| {
                    b.iter(|| {
                        with_backend(backend, || {
                            let report = compute(source, &options);
                            if render {
                                compute_json(&report, &HostFields::NONE);
                            }
                            report
                        })
                    })
                });
            }
        }
    }
}

criterion_group! {
    name = engine;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(engine);
