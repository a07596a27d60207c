//! Short calls run inline (MCP-9 (docs/mcp/transports.md) as amended): a source-tool call first runs on the async
//! worker that received it, under a small time budget, and only a call that outlives the
//! budget is started again from scratch on the blocking pool. Most calls finish in
//! microseconds, and the two thread hand-offs of the pool cost more than they do.
//!
//! The engine is deterministic, so the restarted run answers exactly what an undisturbed
//! one would; the inline attempt's partial work is discarded. The budget is enforced by
//! one watchdog thread that raises the attempt's interrupt flag when its time is up, so
//! the engine stops at its next poll (within the same bound as a deadline): a running
//! program delays the worker's other tasks (`ping`, listings) by at most about the budget.

use ajisai_core::limits::InterruptFlag;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long an inline attempt may run before it is restarted on the blocking pool.
pub const INLINE_BUDGET: Duration = Duration::from_millis(2);

/// One inline attempt being watched.
struct Watched {
    id: u64,
    until: Instant,
    flag: InterruptFlag,
    expired: Arc<AtomicBool>,
}

/// How often the watchdog looks while calls arrive, and how long it keeps looking after
/// the last one before it parks until woken: a busy server starts attempts without waking
/// anyone (a wake-up costs a system call and a context switch per call).
const TICK: Duration = Duration::from_millis(1);
const STAY_AWAKE: Duration = Duration::from_millis(200);

#[derive(Default)]
struct State {
    next: u64,
    watched: Vec<Watched>,
    /// The watchdog is parked without a timeout and must be woken for a new attempt.
    idle: bool,
    /// When the last attempt started.
    last_start: Option<Instant>,
}

struct Watchdog {
    state: Mutex<State>,
    thread: Thread,
}

fn watchdog() -> Option<&'static Watchdog> {
    static WATCHDOG: OnceLock<Option<Watchdog>> = OnceLock::new();
    WATCHDOG
        .get_or_init(|| {
            let spawned = std::thread::Builder::new()
                .name("ajisai-inline-watchdog".into())
                .spawn(watch);
            match spawned {
                Ok(handle) => Some(Watchdog {
                    state: Mutex::new(State::default()),
                    thread: handle.thread().clone(),
                }),
                Err(e) => {
                    tracing::warn!(
                        "no inline watchdog ({e}); every call runs on the blocking pool"
                    );
                    None
                }
            }
        })
        .as_ref()
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    // A poisoned lock means a panic while holding it; the list stays consistent (single
    // pushes and removals).
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// The watchdog's loop: raise the flags of attempts past their budget, then sleep until
/// the earliest remaining one is due, at most a tick while calls keep arriving (or until
/// woken, once none has for a while).
fn watch() {
    // Started from inside the OnceLock's initialization: this waits for it to finish.
    let Some(dog) = watchdog() else {
        return;
    };
    loop {
        let wait = {
            let mut state = lock(&dog.state);
            let now = Instant::now();
            state.watched.retain(|w| {
                if w.until <= now {
                    w.expired.store(true, Ordering::Release);
                    w.flag.raise();
                    false
                } else {
                    true
                }
            });
            let recent = state
                .last_start
                .is_some_and(|t| now.duration_since(t) < STAY_AWAKE);
            match state.watched.iter().map(|w| w.until).min() {
                Some(earliest) => Some((earliest - now).min(TICK)),
                None if recent => Some(TICK),
                None => {
                    state.idle = true;
                    None
                }
            }
        };
        match wait {
            Some(d) => std::thread::park_timeout(d),
            None => std::thread::park(),
        }
    }
}

/// An inline attempt under watch; dropping it ends the watch.
pub struct Attempt {
    id: u64,
    expired: Arc<AtomicBool>,
}

impl Attempt {
    /// Watch an attempt whose engine stops when `flag` is raised. `None` when inline
    /// execution is unavailable (no watchdog thread could be started).
    pub fn start(flag: &InterruptFlag) -> Option<Attempt> {
        let dog = watchdog()?;
        let expired = Arc::new(AtomicBool::new(false));
        let (id, wake) = {
            let mut state = lock(&dog.state);
            state.next += 1;
            let id = state.next;
            let now = Instant::now();
            state.last_start = Some(now);
            state.watched.push(Watched {
                id,
                until: now + INLINE_BUDGET,
                flag: flag.clone(),
                expired: Arc::clone(&expired),
            });
            (id, std::mem::replace(&mut state.idle, false))
        };
        if wake {
            dog.thread.unpark();
        }
        Some(Attempt { id, expired })
    }

    /// Whether the budget ran out (the attempt's flag was raised by the watchdog).
    pub fn expired(&self) -> bool {
        self.expired.load(Ordering::Acquire)
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if let Some(dog) = watchdog() {
            let mut state = lock(&dog.state);
            if let Some(at) = state.watched.iter().position(|w| w.id == self.id) {
                state.watched.swap_remove(at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_attempt_is_left_alone_and_a_long_one_is_stopped() {
        let flag = InterruptFlag::new();
        let quick = Attempt::start(&flag).expect("a watchdog");
        assert!(!quick.expired());
        drop(quick);
        assert!(!flag.is_raised());
        // A long attempt: its flag is raised once the budget is spent.
        let flag = InterruptFlag::new();
        let slow = Attempt::start(&flag).expect("a watchdog");
        let started = Instant::now();
        while !flag.is_raised() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the watchdog raises the flag"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(slow.expired());
        // Several at once, after the watchdog went idle.
        std::thread::sleep(Duration::from_millis(10));
        let flags: Vec<InterruptFlag> = (0..4).map(|_| InterruptFlag::new()).collect();
        let attempts: Vec<Attempt> = flags.iter().filter_map(Attempt::start).collect();
        while !flags.iter().all(InterruptFlag::is_raised) {
            assert!(started.elapsed() < Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(attempts.iter().all(Attempt::expired));
    }
}
