//! Freeing big values off the thread that runs a call.
//!
//! A run's values can be many — a Vector of a hundred thousand distinct algebraic
//! numbers takes milliseconds to free — and freeing cannot stop halfway to look at the
//! deadline. So core queues every batch of [`ajisai_core::value::HANDOFF_VALUES`] or more
//! values that go away together, and frees a check's worth of them at every check of
//! the interrupt flag (on the thread that allocated them: no allocator lock is shared
//! while the run allocates). What a run leaves queued when it ends, the execution hands
//! here ([`free_later`]), to one thread that does nothing but free: the answer goes out
//! at once. The channel is bounded: when the reaper falls behind, a batch is freed where
//! it was, so memory never waits in an unbounded queue.
//! Frees count against the account of the execution that allocated the values while it is
//! open, whichever thread frees them ([`crate::memory`]). Giving freed memory back
//! to the system after a big execution (`malloc_trim`, which walks the whole heap) is
//! the reaper's job too ([`give_back`]).

use ajisai_core::value::Value;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::OnceLock;

/// Batches waiting for the reaper before one is freed where it was dropped.
const QUEUE: usize = 64;

/// What the reaper does.
enum Job {
    /// Free these values and these leftovers of a run (its machine, its program).
    Free(Vec<Vec<Value>>, Vec<Box<dyn Send>>),
    /// Give freed memory back to the system.
    GiveBack,
}

static REAPER: OnceLock<SyncSender<Job>> = OnceLock::new();

/// Start the reaper thread (once per process).
pub fn install() {
    REAPER.get_or_init(|| {
        let (tx, rx) = sync_channel::<Job>(QUEUE);
        let _ = std::thread::Builder::new()
            .name("ajisai-reaper".into())
            .spawn(move || {
                for job in rx {
                    match job {
                        Job::Free(batches, leftovers) => {
                            free_all(batches);
                            drop(leftovers);
                            free_all(Vec::new());
                        }
                        Job::GiveBack => crate::memory::give_back(),
                    }
                }
            });
        tx
    });
}

/// Free `batches` and everything freeing them queues on this thread.
fn free_all(batches: Vec<Vec<Value>>) {
    drop(batches);
    loop {
        let more = ajisai_core::value::take_deferred();
        if more.is_empty() {
            return;
        }
        drop(more);
    }
}

/// Hand what this thread has queued to free, and what its run left to free after the
/// answer (`ajisai_core::value::free_after_run`), to the reaper (a run ended), or free it
/// here when there is no reaper or its queue is full.
pub fn free_later() {
    let batches = ajisai_core::value::take_deferred();
    let leftovers = ajisai_core::value::take_after_run();
    if batches.is_empty() && leftovers.is_empty() {
        return;
    }
    let Some(tx) = REAPER.get() else {
        free_here(batches, leftovers);
        return;
    };
    match tx.try_send(Job::Free(batches, leftovers)) {
        Ok(()) => {}
        Err(TrySendError::Full(Job::Free(batches, leftovers)))
        | Err(TrySendError::Disconnected(Job::Free(batches, leftovers))) => {
            free_here(batches, leftovers)
        }
        Err(_) => {}
    }
}

/// What this thread queued to free and its run's leftovers, freed here and now: for a
/// small run, whose few blocks cost less to free than waking the reaper does.
pub fn free_now() {
    free_here(
        ajisai_core::value::take_deferred(),
        ajisai_core::value::take_after_run(),
    );
}

/// Free a run's queued values and leftovers on this thread.
fn free_here(batches: Vec<Vec<Value>>, leftovers: Vec<Box<dyn Send>>) {
    free_all(batches);
    drop(leftovers);
    free_all(Vec::new());
}

/// Give freed memory back to the system, on the reaper when it runs (and is not too far
/// behind), else here.
pub fn give_back() {
    let queued = REAPER
        .get()
        .is_some_and(|tx| tx.try_send(Job::GiveBack).is_ok());
    if !queued {
        crate::memory::give_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_run_leaves_to_free_is_freed_by_the_reaper_and_nothing_is_lost() {
        install();
        // A Vector of many distinct Strings: freed elsewhere, and every one freed.
        let probe = std::sync::Arc::<str>::from("kept");
        let values: Vec<Value> = (0..4 * ajisai_core::value::HANDOFF_VALUES)
            .map(|_| Value::Str(probe.clone()))
            .collect();
        drop(Value::vector(values));
        free_later();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::sync::Arc::strong_count(&probe) > 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(std::sync::Arc::strong_count(&probe), 1);
    }
}
