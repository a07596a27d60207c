//! Where evaluations run: on the server's blocking threads (`--isolation thread`) or in
//! pre-started worker processes, one per slot (`--isolation process`, the default with
//! `--http`).
//!
//! Why processes: the engine's meters bound every call the cost model knows, but a cost
//! model can be wrong and a bug can loop, allocate or crash — and inside one process,
//! one such call takes every other client's calls with it (a thread cannot be killed; an
//! allocation that fails aborts the process). A worker process is what a program cannot
//! argue with: it runs under OS limits derived from the profile (address space from
//! `memoryBytes`, CPU time from `wallTimeMs`), and the serving process, which runs no
//! evaluation itself, kills and replaces a worker that passes its deadline plus a grace,
//! exceeds a limit or dies, and answers that call with a `workerReplaced` host error.
//! Workers are the server's own executable (`--worker <profile>`), started before any call
//! arrives so that a call pays two pipe writes and not a process start; they speak
//! length-prefixed binary frames over their stdin and stdout ([`wire`]). Every call in a
//! worker runs exactly the code a thread-isolated call runs ([`worker`]), so both modes
//! answer byte-identical envelopes.

pub mod pool;
pub mod wire;
pub mod worker;

use std::time::Duration;

/// Where a server's evaluations run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Isolation {
    /// On the server's own blocking threads: cheapest, no protection from faults.
    #[default]
    Thread,
    /// In pre-started worker processes under OS limits, one per slot.
    Process,
}

impl Isolation {
    /// Both modes, as the command line lists them.
    pub const ALL: [Isolation; 2] = [Isolation::Process, Isolation::Thread];

    /// The mode's name as the command line and the logs write it.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Thread => "thread",
            Isolation::Process => "process",
        }
    }

    /// The mode named `name`, if any.
    pub fn from_name(name: &str) -> Option<Isolation> {
        Isolation::ALL.into_iter().find(|i| i.name() == name)
    }
}

/// How long a worker told to stop (its deadline passed, or its caller cancelled) has to
/// answer before it is killed and replaced.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// CPU time a worker may use beyond its call's deadline before the OS stops it: a
/// backstop behind [`STOP_GRACE`] for a serving process too starved to kill in time.
pub const CPU_GRACE: Duration = Duration::from_secs(2);

/// Address space a worker may map beyond its size at rest and its call's memory ceiling
/// plus the allowed overshoot: what the allocator's bookkeeping and the run's
/// leftovers still being freed need.
pub const ADDRESS_MARGIN_BYTES: u64 = 128 * 1024 * 1024;

/// The overshoot of the memory account the docs allow (docs/mcp/limits.md).
pub const OVERSHOOT_BYTES: u64 = 16 * 1024 * 1024;

/// The exit code of a worker whose allocation the OS refused (its address-space limit).
pub const EXIT_OUT_OF_MEMORY: i32 = 86;

pub use ajisai_host::hosterror::WorkerLoss as Loss;
