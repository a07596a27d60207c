//! The evaluator against the reference implementation's CLI (`masamoto1982/Ajisai`,
//! `rust/`, `cargo build --release --bin ajisai`): four step-heavy programs that both
//! languages read alike — a tail loop, a non-tail recursion (200 deep, 2,000 times), MAP
//! then SUM over 100,000 elements, and SORT over 100,000 — each run by both CLIs in
//! turn, several rounds, from the same file. Prints the median wall time of each and the
//! ratio reference/ours (the core redesign's goal: at least 5 on all four).
//!
//! `AJISAI_REFERENCE_CLI=/path/to/ajisai cargo bench -p ajisai-server --bench evaluator`
//! (`AJISAI_BENCH_ROUNDS`, default 5). Without the variable (CI cannot fetch the
//! reference) it measures ours alone and says so. Figures, not thresholds: the machine
//! is shared and noisy, and both CLIs include their process start.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const OURS: &str = env!("CARGO_BIN_EXE_ajisai");

/// The programs: a name, the source, and the top of the stack both must print.
const PROGRAMS: [(&str, &str, &str); 4] = [
    (
        "tail loop (1,000,000 iterations)",
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 1000000 CD",
        "'done'",
    ),
    (
        "non-tail recursion (200 deep x 2,000)",
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF [ 1 2000 ] RANGE { 0 * 200 + CD2 } MAP SUM",
        "400000/1",
    ),
    (
        "MAP + SUM over 100,000",
        "[ 1 100000 ] RANGE { 2 * } MAP SUM",
        "10000100000/1",
    ),
    (
        "SORT over 100,000",
        "[ 1 100000 ] RANGE { 7919 * 100003 MOD } MAP SORT LENGTH",
        "100000/1",
    ),
];

/// How one CLI runs a program file: its binary and arguments.
struct Cli {
    label: &'static str,
    binary: PathBuf,
    args: &'static [&'static str],
}

impl Cli {
    /// Run `file`; the time it took, after checking it printed `expect`.
    fn time(&self, file: &Path, expect: &str) -> Duration {
        let started = Instant::now();
        let out = Command::new(&self.binary)
            .arg("run")
            .arg(file)
            .args(self.args)
            .stdin(Stdio::null())
            .output()
            .expect("the CLI runs");
        let took = started.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(expect),
            "{} did not print {expect} for {}: {stdout} {}",
            self.label,
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        took
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("AJISAI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let ours = Cli {
        label: "ajisai",
        binary: PathBuf::from(OURS),
        args: &["--profile", "cli"],
    };
    let reference = std::env::var_os("AJISAI_REFERENCE_CLI").map(|p| Cli {
        label: "reference",
        binary: PathBuf::from(p),
        args: &["--step-limit", "100000000"],
    });
    if reference.is_none() {
        println!("AJISAI_REFERENCE_CLI is not set: measuring ours alone (build the reference's `ajisai` from masamoto1982/Ajisai, rust/, to compare)");
    }
    let dir = std::env::temp_dir().join(format!("ajisai-evaluator-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    println!("evaluator, {rounds} rounds, median wall time per run (process start included):");
    for (i, (name, source, expect)) in PROGRAMS.iter().enumerate() {
        let file = dir.join(format!("program-{i}.ajisai"));
        std::fs::write(&file, source).expect("the program file");
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternate which goes first.
            if round % 2 == 0 {
                mine.push(ours.time(&file, expect));
            }
            if let Some(r) = &reference {
                theirs.push(r.time(&file, expect));
            }
            if round % 2 == 1 {
                mine.push(ours.time(&file, expect));
            }
        }
        let m = median(mine);
        match theirs.is_empty() {
            true => println!("  {name:40} ours {:8.1} ms", m.as_secs_f64() * 1e3),
            false => {
                let t = median(theirs);
                println!(
                    "  {name:40} ours {:8.1} ms  reference {:8.1} ms  reference/ours {:5.2} (goal >= 5)",
                    m.as_secs_f64() * 1e3,
                    t.as_secs_f64() * 1e3,
                    t.as_secs_f64() / m.as_secs_f64()
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
