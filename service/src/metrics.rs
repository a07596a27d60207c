//! What the service counts, through the `metrics` facade: tool calls and their durations,
//! executions in flight and waiting, capacity and memory refusals, worker starts, kills
//! and deaths.
//!
//! The service only records: whoever serves `/metrics` installs a recorder and renders it
//! (the MCP server's `transport::metrics`); without one every call below is a no-op of
//! the facade. Recording sits on the tool-call path both transports share, so the
//! numbers mean the same wherever they are read.

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
/// Upper bounds of the duration histogram ([`TOOL_CALL_DURATION`]), in seconds:
/// sub-millisecond calls up to the 5 s deadline.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 5.0,
];

/// Every metric's handle, registered once: a call then costs an atomic add, not a
/// registry lookup. Taken after the recorder is installed (the server installs it before
/// it serves); without a recorder they are the facade's no-op handles.
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

/// Describe every metric of the service to the installed recorder and set those that
/// should be present from the start to zero, so a scrape before the first call sees them.
pub fn describe_and_zero() {
    describe();
    metrics::gauge!(EXECUTIONS_IN_FLIGHT).set(0.0);
    metrics::gauge!(EXECUTIONS_WAITING).set(0.0);
    metrics::counter!(CAPACITY_EXHAUSTED).absolute(0);
    metrics::counter!(MEMORY_EXHAUSTED).absolute(0);
    metrics::counter!(WORKER_STARTS).absolute(0);
    metrics::counter!(WORKER_KILLS, "reason" => "deadline").absolute(0);
    for cause in ["memory", "cpuTime", "crashed"] {
        metrics::counter!(WORKER_DEATHS, "cause" => cause).absolute(0);
    }
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
}

/// Record the gate's queue length now (read when `/metrics` is scraped, not on every
/// admission).
pub fn set_waiting(waiting: usize) {
    metrics::gauge!(EXECUTIONS_WAITING).set(waiting as f64);
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
