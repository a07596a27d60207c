//! A worker process (`ajisai-mcp-server --worker <profile>`): it runs the source-tool calls
//! the serving process sends it, one at a time, with exactly the code a thread-isolated
//! call runs ([`Executor::execute_measured`]), under OS limits of its own.
//!
//! One thread (with the engine's native stack) reads a job from stdin, runs it and writes
//! its answer to stdout: no hand-off between threads per call. The serving process stops
//! a running job with `SIGUSR1`, which raises the interrupt flag the jobs run under
//! (lowered as each job starts, so a stop between jobs does nothing). stdin closing ends the worker, and
//! so does the death of the serving process (Linux's parent-death signal).

use super::wire::{self, Done, FromWorker};
use super::{EXIT_OUT_OF_MEMORY, OVERSHOOT_BYTES};
use crate::config::{ServerOptions, Transport};
use crate::exec::Executor;
use crate::result::Delivery;
use crate::tools::ToolKind;
use crate::AjisaiServer;
use ajisai_core::limits::InterruptFlag;
use ajisai_host::hosterror::HostErrorCode;
use ajisai_host::phrasebook::ServedPhrasebook;
use std::os::fd::AsFd;
use std::time::Duration;

/// A worker's exit code when it cannot serve (as the server's own startup fault).
const EXIT_FAULT: u8 = 1;

/// The signal that stops the running job.
#[cfg(unix)]
pub const STOP_SIGNAL: i32 = signal_hook::consts::SIGUSR1;

/// The options of a worker of `profile` (one slot: it runs one call at a time).
pub fn options_for(profile: &str) -> Option<ServerOptions> {
    let options = match profile {
        "mcp-local-stdio" => ServerOptions::serving(Transport::Stdio, 1),
        "mcp-remote-http" => ServerOptions::serving(Transport::Http, 1),
        "playground" => ServerOptions::playground(1),
        _ => return None,
    };
    Some(options.with_test_overrides())
}

/// Run as a worker of `profile` until stdin closes; the result is the exit code. Its
/// faults are `tracing` events: the caller installs the process's logger first.
pub fn run(profile: &str) -> u8 {
    let fail = |why: &str| {
        tracing::error!("worker: {why}");
        EXIT_FAULT
    };
    die_with_parent();
    // Before the engine's thread starts, so that it is in the class too. The reaper,
    // started earlier by `main`, stays in the default class (`ajisai_host::sched`).
    if let Err(e) = ajisai_host::sched::enter_batch_class() {
        tracing::warn!("worker: stays in the default scheduling class: {e}");
    }
    let Some(options) = options_for(profile) else {
        return fail(&format!("unknown profile {profile}"));
    };
    ajisai_host::backend::link();
    let selected = ajisai_host::backend::select_with(
        std::env::var_os(ajisai_host::backend::CHOICE_VAR),
        std::env::var_os(ajisai_host::backend::PLUGIN_VAR),
        &mut |_| {},
    );
    if let Err(e) = selected {
        return fail(&format!("numeric backend: {e}"));
    }
    let phrasebook = match ServedPhrasebook::from_env() {
        Ok(p) => p,
        Err(f) => return fail(&f.diagnostic()),
    };
    let wall_time = options.wall_time();
    let memory_bytes = options.memory_bytes();
    let server = AjisaiServer::with_phrasebook(options, phrasebook);
    // The stop signal raises one flag, registered once, before the first job: each job
    // runs with it lowered (a registration per job cost a lock and a copy of the
    // process's table of handlers). A stop that arrives between jobs only raises the idle
    // flag, which the next job lowers.
    let stop = InterruptFlag::new();
    #[cfg(unix)]
    if signal_hook::flag::register(STOP_SIGNAL, stop.shared()).is_err() {
        return fail("cannot handle the stop signal");
    }
    let (go_tx, go_rx) = std::sync::mpsc::channel::<u64>();
    let engine = {
        let exec = std::sync::Arc::clone(server.executor());
        let phrasebook = server.phrasebook().clone();
        std::thread::Builder::new()
            .name("ajisai-worker".into())
            .stack_size(ajisai_host::ENGINE_STACK_BYTES)
            .spawn(move || {
                let Ok(address_space) = go_rx.recv() else {
                    return 0;
                };
                engine_loop(&exec, &phrasebook, wall_time, address_space, &stop)
            })
    };
    let Ok(engine) = engine else {
        return fail("cannot start the engine thread");
    };
    // Every thread is started (the engine's stack is mapped), so what the process maps
    // now is its size at rest; the call may add its ceiling, the overshoot and a margin.
    let address_space = limit_resources(memory_bytes);
    ajisai_host::memory::exit_on_refused_allocation(EXIT_OUT_OF_MEMORY);
    if go_tx.send(address_space).is_err() {
        return fail("the engine thread ended");
    }
    engine.join().unwrap_or(EXIT_FAULT)
}

/// Answer every job that arrives on stdin, in order, on the engine thread, until stdin
/// closes (0) or sends what is not a job (a fault).
fn engine_loop(
    exec: &Executor,
    phrasebook: &ServedPhrasebook,
    wall_time: Duration,
    address_space: u64,
    stop: &InterruptFlag,
) -> u8 {
    // Not `std::io::stdout()`: it is line-buffered, and a frame with a newline byte in
    // it would reach the server in two writes (two wake-ups, a frame read in halves).
    // The pipe itself takes each frame in one write.
    let Ok(mut stdout) = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
    else {
        return EXIT_FAULT;
    };
    let mut stdin = std::io::stdin().lock();
    let mut cpu = CpuLimit::new();
    if wire::write_sync(&mut stdout, &FromWorker::Ready { address_space }).is_err() {
        return EXIT_FAULT;
    }
    loop {
        let job = match wire::read_sync::<wire::Run>(&mut stdin) {
            Ok(job) => job,
            Err(wire::FrameError::Io(_)) => return 0,
            Err(e) => {
                tracing::error!("worker: stdin: {e}");
                return EXIT_FAULT;
            }
        };
        cpu.arm(wall_time + super::CPU_GRACE);
        stop.lower();
        let done = answer(exec, phrasebook, &job, stop.clone());
        if wire::write_sync(&mut stdout, &FromWorker::Done(done)).is_err() {
            return EXIT_FAULT;
        }
    }
}

/// One job's answer, as a thread-isolated call builds it.
fn answer(
    exec: &Executor,
    phrasebook: &ServedPhrasebook,
    job: &wire::Run,
    flag: InterruptFlag,
) -> Done {
    let tool = ToolKind::all()
        .filter_map(|k| k.source_tool())
        .find(|t| t.name == job.tool);
    let (answer, memory_exhausted) = match tool {
        Some(tool) => {
            let prelude = phrasebook.prelude(&job.words);
            let delivery = Delivery {
                frame_bytes: job.frame_bytes,
                value_stack_bytes: job.value_stack_bytes,
            };
            let (answer, _) = exec.execute_measured(tool, &job.source, &prelude, flag, delivery);
            let memory = matches!(&answer, Ok(Err(e)) if e.code == HostErrorCode::MemoryExhausted);
            (exec.deliver(tool.name, answer), memory)
        }
        None => {
            let e = ajisai_host::hosterror::HostError::backend_failure(format!(
                "a worker was sent the unknown tool {}",
                job.tool
            ));
            (exec.host_error("worker", &e), false)
        }
    };
    Done {
        job: job.job,
        host_error: answer.is_host_error(),
        envelope: answer.into_envelope(),
        memory_exhausted,
        poisoned: exec.is_poisoned(),
    }
}

/// Die when the serving process dies, however it dies.
fn die_with_parent() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
}

/// The process's mapped bytes now (`VmSize`), if the system says.
fn mapped_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The worker's own OS limits: no core files, one malloc arena (each arena reserves
/// 64 MiB of address space), and an address space of its size at rest plus the call's
/// ceiling, the overshoot and [`super::ADDRESS_MARGIN_BYTES`]. Returns the address-space
/// limit set (0 when none).
fn limit_resources(memory_bytes: u64) -> u64 {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{setrlimit, Resource, Rlimit};
        let _ = setrlimit(
            Resource::Core,
            Rlimit {
                current: Some(0),
                maximum: Some(0),
            },
        );
        ajisai_host::memory::one_arena();
        let Some(rest) = mapped_bytes() else {
            return 0;
        };
        let limit = rest
            .saturating_add(memory_bytes)
            .saturating_add(OVERSHOOT_BYTES)
            .saturating_add(super::ADDRESS_MARGIN_BYTES);
        let set = setrlimit(
            Resource::As,
            Rlimit {
                current: Some(limit),
                maximum: Some(limit),
            },
        );
        if set.is_ok() {
            return limit;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory_bytes;
    0
}

/// The process's CPU-time limit (`RLIMIT_CPU`), kept at least a job's allowance ahead of
/// what the process has used. Reading the process's CPU clock and setting the limit are
/// two system calls, so they are made at most every [`CpuLimit::REARM_EVERY`], not per job:
/// only the engine thread does work, so in that time the process uses at most that much
/// CPU, which the limit leaves room for.
struct CpuLimit {
    armed_at: Option<std::time::Instant>,
}

impl CpuLimit {
    /// How often the limit is moved forward.
    const REARM_EVERY: Duration = Duration::from_millis(500);

    /// A limit not yet set.
    fn new() -> CpuLimit {
        CpuLimit { armed_at: None }
    }

    /// Let the coming job use at least `allowed` more CPU time (and at most a second more
    /// than that): the OS stops the process (SIGXCPU) past it. Only the soft limit moves
    /// (the hard one stays unlimited), so it can always be raised again.
    fn arm(&mut self, allowed: Duration) {
        let now = std::time::Instant::now();
        if self
            .armed_at
            .is_some_and(|at| now.duration_since(at) < Self::REARM_EVERY)
        {
            return;
        }
        self.armed_at = Some(now);
        #[cfg(target_os = "linux")]
        {
            use rustix::process::{setrlimit, Resource, Rlimit};
            let used = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
            // Whole seconds, rounded up, plus what may be used before the next rearm.
            let used_secs = u64::try_from(used.tv_sec).unwrap_or(0) + 1;
            let ahead = allowed.as_secs().max(1) + Self::REARM_EVERY.as_secs().max(1);
            let _ = setrlimit(
                Resource::Cpu,
                Rlimit {
                    current: Some(used_secs.saturating_add(ahead)),
                    maximum: None,
                },
            );
        }
        #[cfg(not(target_os = "linux"))]
        let _ = allowed;
    }
}
