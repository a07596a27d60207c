//! One bounded execution, as every host runs one: under `memoryBytes`, with the interrupt
//! flag the engine polls. For the CLI that is `ajisai run`, `check` and `contract` each,
//! every `ajisai test` example, a whole `repl` session (1 GiB in `cli-local`, the
//! profile's value under `--profile mcp`); for the MCP server one tool call. Everything
//! it allocates — the engine's values and the text rendered from them — counts against
//! one account ([`crate::memory`]); a run that crosses the ceiling stops at its
//! next poll and answers the host error `memoryExhausted`, never a panic, an abort or a
//! signal.

use crate::hosterror::HostError;
use crate::memory;
use ajisai_core::limits::{Halt, Interrupt, InterruptFlag};
use ajisai_core::Profile;

/// The ceiling when a profile declares none.
pub const DEFAULT_MEMORY_BYTES: u64 = 1024 * 1024 * 1024;

/// An execution that held more than this gives freed memory back to the system when it
/// ends (glibc would keep a bomb's pages otherwise).
pub const GIVE_BACK_AFTER_BYTES: u64 = 16 * 1024 * 1024;

/// A run that held at most this much is freed where it ran when it ends: a few hundred
/// small blocks, microseconds.
pub const FREE_HERE_BYTES: u64 = 256 * 1024;

/// An open execution: its interrupt flag and memory account.
pub struct Bounded {
    flag: InterruptFlag,
    ceiling: u64,
    account: memory::Execution,
}

impl Bounded {
    /// Open an execution under `profile`'s `memoryBytes` on this thread.
    pub fn begin(profile: &Profile) -> Bounded {
        Bounded::with_flag(
            profile.memory_bytes.unwrap_or(DEFAULT_MEMORY_BYTES),
            InterruptFlag::new(),
        )
    }

    /// Open an execution under `ceiling` bytes on this thread, raising `flag` (which a
    /// deadline may raise too) when memory runs out.
    pub fn with_flag(ceiling: u64, flag: InterruptFlag) -> Bounded {
        let account = memory::Execution::begin(ceiling, &flag);
        // What the run leaves when it ends is freed after the answer, by the reaper.
        ajisai_core::value::keep_after_run();
        Bounded {
            flag,
            ceiling,
            account,
        }
    }

    /// The flag the engine polls (raised when memory runs out).
    pub fn flag(&self) -> InterruptFlag {
        self.flag.clone()
    }

    /// Stop if memory ran out (for loops of the host, e.g. printing a display).
    pub fn poll(&self) -> Result<(), Halt> {
        if self.flag.is_raised() {
            return Err(Halt::Interrupted(Interrupt::Raised));
        }
        Ok(())
    }

    /// Whether `bytes` more may be reserved at once (refusing raises the flag).
    pub fn admits(&self, bytes: u64) -> bool {
        memory::admits(bytes)
    }

    /// `memoryExhausted` when the execution crossed its ceiling.
    pub fn exhausted(&self) -> Option<HostError> {
        self.account
            .exceeded()
            .then(|| HostError::memory_exhausted(self.ceiling))
    }

    /// Close the account; `memoryExhausted` when the execution crossed its ceiling. Big
    /// executions give their memory back to the system.
    pub fn finish(self) -> Option<HostError> {
        self.close().1
    }

    /// [`Bounded::finish`], also returning what the execution held.
    pub fn close(self) -> (memory::Usage, Option<HostError>) {
        // What the run queued to free goes to the reaper, so the answer does not wait —
        // unless the run was small: freeing its few blocks here costs less than waking
        // the reaper (a futex and a context switch per call).
        let usage = self.account.usage();
        if usage.peak_bytes <= FREE_HERE_BYTES {
            crate::reaper::free_now();
        } else {
            crate::reaper::free_later();
        }
        let usage = self.account.usage();
        drop(self.account);
        if usage.peak_bytes > GIVE_BACK_AFTER_BYTES {
            crate::reaper::give_back();
        }
        let exhausted = usage
            .exceeded
            .then(|| HostError::memory_exhausted(self.ceiling));
        (usage, exhausted)
    }
}
