//! Running a cost-fuzzer program as the MCP server runs a call, and measuring it: the
//! `compute`, `check` or `infer_contracts` call on the server's own execution path
//! (engine, rendering, the delivered result) under its memory account, with a timer thread
//! raising the interrupt flag at the deadline as the server does. Shared by the cost
//! fuzzer's test (`tests/fuzz.rs`) and its benchmark (`benches/cost.rs`).
//!
//! Besides the answer, its time and the account's peak, it measures the longest gap
//! between two checks of the interrupt flag: the meter calls a hook at every check
//! (`ajisai_core::limits::set_check_hook`), which only counts (a clock read at every check
//! would cost more than the checks measure), and a sampler thread reads the count every
//! 100 µs: the longest time it saw the count stand still is the longest gap, to within
//! a sample. That wall-clock gap includes the time the thread was not running (these
//! machines are shared: 2 cores); so the hook also reads the calling thread's CPU clock
//! (`CLOCK_THREAD_CPUTIME_ID`, a few hundred nanoseconds a check): the longest CPU time
//! between two checks is the work done unpolled, whatever else the machine ran. Reading
//! that clock at every check slows calls that check millions of times, so it is on only
//! when asked ([`measure_cpu_gaps`]): the benchmark measures gaps and times in two passes.

use ajisai_core::limits::InterruptFlag;
use ajisai_golden::cost::CostProgram;
use ajisai_server::mcp::AjisaiServer;
use ajisai_service::validate::ToolKind;
use serde_json::Value;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One measured call.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The program's name.
    pub name: String,
    /// The Word it is about.
    pub word: String,
    /// The tool called.
    pub tool: &'static str,
    /// From the call to its answer.
    pub elapsed: Duration,
    /// The most its memory account held.
    pub peak_bytes: u64,
    /// `value`, `nil:…`, `error:…` (with the refused limit), `hostError:…` or `panic`.
    pub outcome: String,
    /// Whether the deadline's flag was raised before the call returned.
    pub timed_out: bool,
    /// From the flag's raising to the call's return, when the flag was raised: how long
    /// a stopped call holds its slot.
    pub stopped_in: Option<Duration>,
    /// `executionSteps`, `numericWork`, `collectionWork` of a compute envelope (zeros
    /// otherwise).
    pub usage: [u64; 3],
    /// The longest time between two checks of the interrupt flag, the call's start and
    /// end counted as checks.
    pub longest_gap: Duration,
    /// How many checks the call had made when its longest gap began (for
    /// `AJISAI_GAP_AT`).
    pub gap_at: u64,
    /// The most CPU time the calling thread spent between two checks (the call's start
    /// and end counted as checks); zero unless [`measure_cpu_gaps`] is on.
    pub longest_cpu_gap: Duration,
    /// How many checks the call had made when its longest CPU gap began.
    pub cpu_gap_at: u64,
    /// Per Word, its work in the call.
    pub words: Vec<(&'static str, WordWork)>,
}

/// Checks of the interrupt flag so far, by any thread.
static CHECKS: AtomicU64 = AtomicU64::new(0);

/// One Word's work in a call: time spent in its executor and continuations, what it
/// charged (`numericWork` + `collectionWork`), and how many times it ran.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordWork {
    /// Time inside the Word.
    pub time: Duration,
    /// Units charged inside the Word.
    pub charged: u64,
    /// Dispatches and resumptions.
    pub runs: u64,
}

impl WordWork {
    /// Nanoseconds per unit, a run counted as [`STEP_AS_UNITS`].
    pub fn per_unit_ns(&self) -> f64 {
        let units = self
            .charged
            .saturating_add(self.runs.saturating_mul(STEP_AS_UNITS));
        self.time.as_nanos() as f64 / units.max(1) as f64
    }
}

thread_local! {
    /// The Word running on this thread: its name, when it started and what was charged then.
    static WORD_START: Cell<Option<(&'static str, Instant, u64)>> = const { Cell::new(None) };
    /// Per Word, its work in the running call.
    static WORD_WORK: std::cell::RefCell<std::collections::HashMap<&'static str, WordWork>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The Word hook: time each Word's executor and continuations against what they charged.
fn record_word(word: &'static str, start: bool, charged: u64) {
    if start {
        WORD_START.with(|s| s.set(Some((word, Instant::now(), charged))));
        return;
    }
    let Some((name, began, before)) = WORD_START.with(Cell::take) else {
        return;
    };
    let elapsed = began.elapsed();
    WORD_WORK.with(|w| {
        let mut w = w.borrow_mut();
        let e = w.entry(name).or_default();
        e.time += elapsed;
        e.charged = e.charged.saturating_add(charged.saturating_sub(before));
        e.runs += 1;
    });
}

thread_local! {
    /// The thread's CPU clock at its last check, and the longest CPU gap of the running
    /// call with the check it began after.
    static CPU_GAP: Cell<(Duration, Duration, u64)> = const { Cell::new((Duration::ZERO, Duration::ZERO, 0)) };
}

/// This thread's CPU time.
fn thread_cpu_time() -> Duration {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Whether checks read the thread's CPU clock ([`measure_cpu_gaps`]).
static CPU_GAPS: AtomicBool = AtomicBool::new(false);

/// Read the thread's CPU clock at every check from now on (`on`), or only count checks.
pub fn measure_cpu_gaps(on: bool) {
    CPU_GAPS.store(on, Ordering::Relaxed);
}

/// The duration in milliseconds the environment variable `name` holds, if any.
fn env_millis(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .map(|ms| Duration::from_secs_f64(ms / 1e3))
}

/// `AJISAI_GAP_LIST=<ms>`: print every CPU gap longer than this, with the check it
/// began after (a diagnostic: where a call's gaps are, not only its longest).
fn list_threshold() -> Option<Duration> {
    static T: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *T.get_or_init(|| env_millis("AJISAI_GAP_LIST"))
}

/// A check on this thread: fold the CPU time since the last one into the longest gap.
fn record_cpu_check(checks_before: u64) {
    let now = thread_cpu_time();
    CPU_GAP.with(|g| {
        let (last, longest, at) = g.get();
        let gap = now.saturating_sub(last);
        if list_threshold().is_some_and(|t| gap > t) {
            let mono = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
            eprintln!(
                "cpu gap of {:.3} ms after check {checks_before}, ending at monotonic {}.{:09}",
                gap.as_secs_f64() * 1e3,
                mono.tv_sec,
                mono.tv_nsec
            );
        }
        let (longest, at) = if gap > longest {
            (gap, checks_before)
        } else {
            (longest, at)
        };
        g.set((now, longest, at));
    });
}

thread_local! {
    static LAST_TRACE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    static LAST_CHECK: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Gaps longer than this many milliseconds print where they ended
/// (`AJISAI_GAP_TRACE=<ms>`: a diagnostic for finding the loop that does not tick).
fn trace_threshold() -> Option<Duration> {
    static T: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *T.get_or_init(|| env_millis("AJISAI_GAP_TRACE"))
}

/// `AJISAI_GAP_AT=<n>`: print where the n-th check of each call (counted from the call's
/// start, as the benchmark reports the longest gap's) stands, and the one after it — a
/// diagnostic for a gap too short-lived to trace by timing every check.
fn trace_at() -> Option<u64> {
    static T: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("AJISAI_GAP_AT")
            .ok()
            .and_then(|v| v.parse().ok())
    })
}

/// The count of checks when the running call started.
static CALL_START: AtomicU64 = AtomicU64::new(0);

/// The check hook: count the check; with `AJISAI_GAP_TRACE`, also time it and print
/// where long gaps began and ended (slow: a diagnostic).
fn record_check() {
    let n = CHECKS.fetch_add(1, Ordering::Relaxed) + 1;
    if CPU_GAPS.load(Ordering::Relaxed) {
        record_cpu_check(n - 1 - CALL_START.load(Ordering::Relaxed));
    }
    if let Some(at) = trace_at() {
        let rel = n - CALL_START.load(Ordering::Relaxed);
        if rel == at || rel == at + 1 {
            eprintln!(
                "check {rel}:\n{}",
                std::backtrace::Backtrace::force_capture()
            );
        }
    }
    if trace_threshold().is_none() {
        return;
    }
    let now = Instant::now();
    LAST_CHECK.with(|last| {
        if let Some(t) = last.get() {
            let gap = now.saturating_duration_since(t);
            if trace_threshold().is_some_and(|limit| gap > limit) {
                eprintln!(
                    "gap of {:.2} ms began at:\n{}\nand ended at:\n{}",
                    gap.as_secs_f64() * 1e3,
                    LAST_TRACE.with(|t| t.borrow().clone()).unwrap_or_default(),
                    std::backtrace::Backtrace::force_capture()
                );
            }
        }
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        LAST_TRACE.with(|t| *t.borrow_mut() = Some(trace));
        last.set(Some(Instant::now()));
    });
}

/// Watches [`CHECKS`] from its own thread until stopped: the longest time the count
/// stood still.
struct GapSampler {
    stop: std::sync::Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(Duration, u64)>,
}

impl GapSampler {
    fn start() -> GapSampler {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let start = CHECKS.load(Ordering::Relaxed);
            let mut seen = start;
            let mut since = Instant::now();
            let mut longest = (Duration::ZERO, 0);
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_micros(100));
                let now = Instant::now();
                let count = CHECKS.load(Ordering::Relaxed);
                if count != seen {
                    seen = count;
                    since = now;
                } else if now - since > longest.0 {
                    longest = (now - since, seen - start);
                }
            }
            longest
        });
        GapSampler { stop, thread }
    }

    /// Stop watching: the longest gap seen, and the count of checks (from the call's
    /// start) when it began.
    fn finish(self) -> (Duration, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// What a cost-fuzzer run sets up first, as the binaries do (the Words, the backend,
/// GMP's allocations and memory counted, the reaper), and the gap meter.
pub fn install() {
    ajisai_golden::link();
    ajisai_host::backend::link();
    ajisai_numerics_gmp::route_allocations();
    ajisai_host::memory::install();
    ajisai_host::reaper::install();
    install_gap_meter();
}

/// How many programs to generate (`AJISAI_COST_PROGRAMS`, else `default_count`) and from
/// which seed (`AJISAI_COST_SEED`, else 0xC057).
pub fn count_and_seed(default_count: usize) -> (usize, u64) {
    let count = std::env::var("AJISAI_COST_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_count);
    let seed = std::env::var("AJISAI_COST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC057);
    (count, seed)
}

/// Install the check hook and the Word hook (once per process).
pub fn install_gap_meter() {
    ajisai_core::limits::set_check_hook(record_check);
    ajisai_core::limits::set_word_hook(record_word);
}

/// The tool kinds the fuzzer calls.
pub fn tool(name: &str) -> ToolKind {
    match name {
        "check" => ToolKind::CHECK,
        "infer_contracts" => ToolKind::INFER_CONTRACTS,
        _ => ToolKind::COMPUTE,
    }
}

/// Call `tool` with `program`'s source on `server`, the flag raised after `deadline`.
pub fn measure(
    server: &AjisaiServer,
    program: &CostProgram,
    tool_name: &'static str,
    deadline: Duration,
) -> Measured {
    let flag = InterruptFlag::new();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let timer_flag = flag.clone();
    let timer = std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(deadline) {
            let raised = Instant::now();
            timer_flag.raise();
            return Some(raised);
        }
        None
    });
    if list_threshold().is_some() {
        eprintln!("call {tool_name} {}", program.name);
    }
    CALL_START.store(CHECKS.load(Ordering::Relaxed), Ordering::Relaxed);
    WORD_WORK.with(|w| w.borrow_mut().clear());
    let sampler = GapSampler::start();
    let start = Instant::now();
    LAST_CHECK.with(|l| l.set(Some(start)));
    CPU_GAP.with(|g| g.set((thread_cpu_time(), Duration::ZERO, 0)));
    CHECKS.fetch_add(1, Ordering::Relaxed);
    let (answer, usage) = server.executor().execute_measured(
        tool(tool_name).source_tool().expect("a source tool"),
        &program.source,
        &[],
        flag.clone(),
        Default::default(),
    );
    let last = CHECKS.fetch_add(1, Ordering::Relaxed);
    if CPU_GAPS.load(Ordering::Relaxed) {
        record_cpu_check(last - CALL_START.load(Ordering::Relaxed));
    }
    let (_, longest_cpu_gap, cpu_gap_at) = CPU_GAP.with(Cell::get);
    let end = Instant::now();
    let (longest_gap, gap_at) = sampler.finish();
    let _ = done_tx.send(());
    let raised = timer.join().ok().flatten();
    let timed_out = flag.is_raised() && !usage.exceeded;
    let (outcome, steps) = match answer {
        Ok(Ok(result)) => {
            let v: Value = serde_json::from_str(result.envelope()).unwrap_or(Value::Null);
            let usage = &v["resourceUsage"];
            let steps = [
                usage["executionSteps"].as_u64().unwrap_or(0),
                usage["numericWork"].as_u64().unwrap_or(0),
                usage["collectionWork"].as_u64().unwrap_or(0),
            ];
            let outcome = match v["status"].as_str() {
                Some("hostError") => {
                    format!("hostError:{}", v["error"]["code"].as_str().unwrap_or("?"))
                }
                _ => {
                    let mut o = v["outcome"]
                        .as_str()
                        .or_else(|| v["status"].as_str())
                        .unwrap_or("?")
                        .to_string();
                    if let Some(r) = v["error"]["resource"].as_str() {
                        o = format!("{o} ({r})");
                    }
                    o
                }
            };
            (outcome, steps)
        }
        Ok(Err(e)) => (format!("hostError:{}", e.code.id()), [0; 3]),
        Err(_) => ("panic".to_string(), [0; 3]),
    };
    Measured {
        name: program.name.clone(),
        word: program.word.clone(),
        tool: tool_name,
        elapsed: end - start,
        peak_bytes: usage.peak_bytes,
        outcome,
        timed_out,
        stopped_in: raised.map(|r| end.saturating_duration_since(r)),
        usage: steps,
        longest_gap,
        gap_at,
        longest_cpu_gap,
        cpu_gap_at,
        words: WORD_WORK.with(|w| w.borrow().iter().map(|(k, v)| (*k, *v)).collect()),
    }
}

/// The tool a program's `index` is called with: mostly `compute`, every fourth program
/// `check` or `infer_contracts` too (they parse and read the same text).
pub fn tools_for(index: usize) -> &'static [&'static str] {
    match index % 8 {
        3 => &["compute", "check"],
        7 => &["compute", "infer_contracts"],
        _ => &["compute"],
    }
}

/// What a program's walker alone cost: its call minus its builder's call (time, and
/// charged units: `numericWork` + `collectionWork` + [`STEP_AS_UNITS`] a step).
pub fn walker_cost(full: &Measured, builder: Option<&Measured>) -> (Duration, u64) {
    let units = |m: &Measured| {
        m.usage[1]
            .saturating_add(m.usage[2])
            .saturating_add(m.usage[0].saturating_mul(STEP_AS_UNITS))
    };
    match builder {
        Some(b) => (
            full.elapsed.saturating_sub(b.elapsed),
            units(full).saturating_sub(units(b)),
        ),
        None => (full.elapsed, units(full)),
    }
}

/// A step counted as work units in the calibration: a dispatch and its operand checks
/// are worth a few element copies.
pub const STEP_AS_UNITS: u64 = 16;

/// The calibration table from (walker, time, units) rows: per Word, the most nanoseconds
/// per unit of any row charging 10,000 units or more, with its program.
pub fn calibration_of(rows: &[(String, String, Duration, u64)]) -> Vec<(String, f64, String)> {
    let mut worst: std::collections::BTreeMap<String, (f64, String)> = Default::default();
    for (word, program, time, units) in rows {
        if *units < 10_000 {
            continue;
        }
        let ns = time.as_nanos() as f64 / *units as f64;
        let e = worst.entry(word.clone()).or_insert((0.0, String::new()));
        if ns > e.0 {
            *e = (ns, program.clone());
        }
    }
    let mut rows: Vec<(String, f64, String)> =
        worst.into_iter().map(|(w, (ns, p))| (w, ns, p)).collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    rows
}

/// The calibration table from the Words' own work: per Word, the most nanoseconds per
/// unit (what it charged, and [`STEP_AS_UNITS`] a run) over the calls where it charged
/// 10,000 units or more, with that call's program.
pub fn calibration_by_word(runs: &[Measured]) -> Vec<(String, f64, String)> {
    let mut worst: std::collections::BTreeMap<String, (f64, String)> = Default::default();
    for r in runs {
        for (word, work) in &r.words {
            if work.charged < 10_000 {
                continue;
            }
            let ns = work.per_unit_ns();
            let e = worst
                .entry(word.to_string())
                .or_insert((0.0, String::new()));
            if ns > e.0 {
                *e = (ns, format!("{} {}", r.tool, r.name));
            }
        }
    }
    let mut rows: Vec<(String, f64, String)> =
        worst.into_iter().map(|(w, (ns, p))| (w, ns, p)).collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    rows
}
