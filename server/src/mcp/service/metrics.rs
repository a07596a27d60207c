//! Prometheus metrics for `GET /metrics` (HTTP mode), through the `metrics` facade.
//!
//! The recorder is installed only when the server serves HTTP; over stdio every call
//! below is a no-op of the facade. Recording sits on the tool-call path both transports
//! share, so the numbers mean the same wherever they are read. The exporter is built
//! without its own listener or TLS stack: the server renders the text itself.

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

/// Tool calls by tool and outcome (`ok`, `error`, `hostError`; unknown tools are `other`).
pub const TOOL_CALLS: &str = "ajisai_tool_calls_total";
/// Time from receiving a tool call to its answer, in seconds.
pub const TOOL_CALL_DURATION: &str = "ajisai_tool_call_duration_seconds";
/// Executions holding a slot right now (their engines have not stopped yet).
pub const EXECUTIONS_IN_FLIGHT: &str = "ajisai_executions_in_flight";
/// Callers waiting for a slot right now (read when `/metrics` is scraped).
pub const EXECUTIONS_WAITING: &str = "ajisai_executions_waiting";

/// Calls answered `capacityExhausted`.
pub const CAPACITY_EXHAUSTED: &str = "ajisai_capacity_exhausted_total";
/// Calls answered `memoryExhausted`.
pub const MEMORY_EXHAUSTED: &str = "ajisai_memory_exhausted_total";
/// Worker processes started (process isolation: at start-up, and each replacement).
pub const WORKER_STARTS: &str = "ajisai_worker_starts_total";
/// Workers the server killed, by reason (`deadline`: it did not stop within the grace
/// after its call's deadline).
pub const WORKER_KILLS: &str = "ajisai_worker_kills_total";
/// Workers that died on their own, by cause (`memory`: past their address-space limit;
/// `cpuTime`: past their CPU-time limit; `crashed`: anything else).
pub const WORKER_DEATHS: &str = "ajisai_worker_deaths_total";
/// stderr lines the server dropped: its log queue was full (stderr was not keeping up)
/// or stderr was gone (read when `/metrics` is scraped).
pub const LOG_LINES_DROPPED: &str = "ajisai_log_lines_dropped_total";
/// Always 1, labelled with the server version and the numeric backend.
pub const BUILD_INFO: &str = "ajisai_build_info";

/// Upper bounds of the duration histogram, in seconds: sub-millisecond calls up to
/// the 5 s deadline.
const DURATION_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 5.0,
];

/// Every metric's handle, registered once: a call then costs an atomic add, not a
/// registry lookup. Taken after the recorder is installed (HTTP mode installs it before
/// serving); without a recorder they are the facade's no-op handles.
struct Handles {
    in_flight: metrics::Gauge,
    capacity_exhausted: metrics::Counter,
    memory_exhausted: metrics::Counter,
}

fn handles() -> &'static Handles {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    HANDLES.get_or_init(|| Handles {
        in_flight: metrics::gauge!(EXECUTIONS_IN_FLIGHT),
        capacity_exhausted: metrics::counter!(CAPACITY_EXHAUSTED),
        memory_exhausted: metrics::counter!(MEMORY_EXHAUSTED),
    })
}

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Install the process's recorder (once; later calls return the same handle), with
/// `ajisai_build_info` set. `None` when another recorder was installed first.
pub fn install(backend: &str) -> Option<&'static PrometheusHandle> {
    if let Some(h) = HANDLE.get() {
        return Some(h);
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(
            metrics_exporter_prometheus::Matcher::Full(TOOL_CALL_DURATION.to_string()),
            &DURATION_BUCKETS,
        )
        .ok()?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).ok()?;
    let _ = HANDLE.set(handle);
    describe();
    metrics::gauge!(BUILD_INFO, "version" => crate::mcp::SERVER_VERSION, "backend" => backend.to_string())
        .set(1.0);
    // Present from the start, so a scrape before the first call sees zeros.
    metrics::gauge!(EXECUTIONS_IN_FLIGHT).set(0.0);
    metrics::gauge!(EXECUTIONS_WAITING).set(0.0);
    metrics::counter!(CAPACITY_EXHAUSTED).absolute(0);
    metrics::counter!(MEMORY_EXHAUSTED).absolute(0);
    metrics::counter!(WORKER_STARTS).absolute(0);
    metrics::counter!(WORKER_KILLS, "reason" => "deadline").absolute(0);
    for cause in ["memory", "cpuTime", "crashed"] {
        metrics::counter!(WORKER_DEATHS, "cause" => cause).absolute(0);
    }
    metrics::counter!(LOG_LINES_DROPPED).absolute(crate::mcp::logging::dropped_total());
    HANDLE.get()
}

fn describe() {
    metrics::describe_counter!(TOOL_CALLS, "Tool calls answered, by tool and outcome.");
    metrics::describe_histogram!(
        TOOL_CALL_DURATION,
        metrics::Unit::Seconds,
        "Time from receiving a tool call to its answer."
    );
    metrics::describe_gauge!(
        EXECUTIONS_IN_FLIGHT,
        "Executions holding a slot (until their engine stops)."
    );
    metrics::describe_gauge!(
        EXECUTIONS_WAITING,
        "Callers waiting for a slot (at most maxWaiting)."
    );
    metrics::describe_counter!(CAPACITY_EXHAUSTED, "Calls answered capacityExhausted.");
    metrics::describe_counter!(MEMORY_EXHAUSTED, "Calls answered memoryExhausted.");
    metrics::describe_counter!(
        WORKER_STARTS,
        "Worker processes started (process isolation)."
    );
    metrics::describe_counter!(
        WORKER_KILLS,
        "Workers killed by the server, by reason (deadline: no stop within the grace)."
    );
    metrics::describe_counter!(
        WORKER_DEATHS,
        "Workers that died on their own, by cause (memory, cpuTime, crashed)."
    );
    metrics::describe_counter!(
        LOG_LINES_DROPPED,
        "stderr lines dropped because stderr was not keeping up (or was gone)."
    );
    metrics::describe_gauge!(BUILD_INFO, "Server version and numeric backend.");
}

/// The Prometheus text of every metric, or `None` when no recorder is installed;
/// `waiting` is the gate's queue length now (read here, not on every admission).
pub fn render(waiting: usize) -> Option<String> {
    let handle = HANDLE.get()?;
    metrics::gauge!(EXECUTIONS_WAITING).set(waiting as f64);
    metrics::counter!(LOG_LINES_DROPPED).absolute(crate::mcp::logging::dropped_total());
    Some(handle.render())
}

/// Count a `capacityExhausted` answer.
pub fn capacity_exhausted() {
    handles().capacity_exhausted.increment(1);
}

/// Count a `memoryExhausted` answer.
pub fn memory_exhausted() {
    handles().memory_exhausted.increment(1);
}

/// Count a worker started.
pub fn worker_started() {
    metrics::counter!(WORKER_STARTS).increment(1);
}

/// Count a worker killed for `reason`.
pub fn worker_killed(reason: &'static str) {
    metrics::counter!(WORKER_KILLS, "reason" => reason).increment(1);
}

/// Count a worker that died of `cause`.
pub fn worker_died(cause: &'static str) {
    metrics::counter!(WORKER_DEATHS, "cause" => cause).increment(1);
}

/// Held while an execution holds its slot: counted in `ajisai_executions_in_flight`.
pub struct InFlight(());

impl InFlight {
    /// An execution started.
    pub fn start() -> InFlight {
        handles().in_flight.increment(1.0);
        InFlight(())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        handles().in_flight.decrement(1.0);
    }
}
