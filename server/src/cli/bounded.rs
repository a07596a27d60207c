//! One CLI execution under `memoryBytes` (1 GiB in `cli-local`, the profile's value
//! under `--profile mcp`): `ajisai run`, `check` and `contract` each, every `ajisai
//! test` example, a whole `repl` session. Everything it allocates — the engine's values
//! and the text printed from them — counts against one account ([`crate::memory`]); a
//! run that crosses the ceiling stops at its next poll and answers the host error
//! `memoryExhausted`, never a panic, an abort or a signal.

use crate::mcp::hosterror::HostError;
use crate::memory;
use ajisai_core::limits::{Halt, Interrupt, InterruptFlag};
use ajisai_core::Profile;

/// The ceiling when a profile declares none.
pub const DEFAULT_MEMORY_BYTES: u64 = 1024 * 1024 * 1024;

/// An open CLI execution: its interrupt flag and memory account.
pub struct Bounded {
    flag: InterruptFlag,
    ceiling: u64,
    account: memory::Execution,
}

impl Bounded {
    /// Open an execution under `profile`'s `memoryBytes` on this thread.
    pub fn begin(profile: &Profile) -> Bounded {
        let flag = InterruptFlag::new();
        let ceiling = profile.memory_bytes.unwrap_or(DEFAULT_MEMORY_BYTES);
        let account = memory::Execution::begin(ceiling, &flag);
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
        let usage = self.account.usage();
        drop(self.account);
        if usage.peak_bytes > crate::mcp::exec::GIVE_BACK_AFTER_BYTES {
            memory::give_back();
        }
        usage
            .exceeded
            .then(|| HostError::memory_exhausted(self.ceiling))
    }
}
