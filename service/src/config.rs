//! What one server instance enforces: its profile (`mcp-local-stdio` over stdio,
//! `mcp-remote-http` over Streamable HTTP, equal apart from the name) with the configured
//! number of slots, and the host's own admission and delivery constants.
//!
//! The production binary uses [`ServerOptions::serving`] with `--max-concurrency`. Tests build servers
//! in-process with injected values (a 1 ms deadline, a small response limit, one slot)
//! and optional [`Hooks`]; nothing in the environment can change the binary's values.

use ajisai_core::limits::InterruptFlag;
use ajisai_core::{Limit, Profile};
use std::sync::Arc;
use std::time::Duration;

/// How long a caller waits in the gate's queue for a slot (`capacityWaitMs`, MCP-50; docs/mcp/limits.md).
pub const CAPACITY_WAIT_MS: u64 = 1_000;

/// Callers that may wait in the gate's queue, per slot; one more gets
/// `capacityExhausted` at once instead of queueing (a shared service must not queue
/// without bound).
pub const WAITING_PER_SLOT: u64 = 8;

/// The slots of `concurrentExecutions` when `--max-concurrency` is not given.
pub const DEFAULT_SLOTS: u64 = 4;

/// The Playground's own execution slots beside `/mcp` when `--playground-slots` is not
/// given: enough for a few visitors, few enough that `/mcp` keeps the machine.
pub const DEFAULT_PLAYGROUND_SLOTS: u64 = 2;

/// The transport a server instance serves; it names the instance's profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout: `mcp-local-stdio`.
    Stdio,
    /// Streamable HTTP: `mcp-remote-http`.
    Http,
}

impl Transport {
    /// The profile of this transport with its declared values.
    pub fn profile(self) -> Profile {
        match self {
            Transport::Stdio => Profile::MCP_LOCAL_STDIO,
            Transport::Http => Profile::MCP_REMOTE_HTTP,
        }
    }
}

pub use ajisai_host::RETRY_AFTER_MS;

/// The largest accepted message: ample for a 64 KiB source however escaped (6 bytes a
/// character at most, plus the envelope of the request).
pub const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// The stack budget of `ok` results (`valueStackBudget`, MCP-53; docs/mcp/envelope.md): 440 KiB.
pub const VALUE_STACK_BYTES: u64 = ajisai_core::render::VALUE_STACK_BUDGET;

/// The stack budget of `error` results (`errorStackBudget`, MCP-53).
pub const ERROR_STACK_BYTES: u64 = ajisai_core::render::ERROR_STACK_BUDGET;

/// Observation points for tests; the production server has none.
///
/// Both run on the calling task's thread: `queued` on an async worker when a call
/// finds every slot busy, `before_run` on the blocking thread after the slot was
/// acquired and before the engine starts (it may block to hold the slot).
pub trait Hooks: Send + Sync {
    /// A source-tool call found the gate full and starts waiting.
    fn queued(&self, _source: &str) {}
    /// A source-tool call holds a slot and is about to run; `interrupt` is the flag the
    /// deadline and cancellation raise.
    fn before_run(&self, _source: &str, _interrupt: &InterruptFlag) {}
}

/// The limits and constants one server instance enforces.
#[derive(Clone)]
pub struct ServerOptions {
    /// The limit profile: the engine's limits and the host-gated `wallTimeMs`,
    /// `responseBytes` and `concurrentExecutions`.
    pub profile: Profile,
    /// Queue wait for a slot, in ms.
    pub capacity_wait_ms: u64,
    /// Stack budget of `ok` results, in bytes.
    pub value_stack_bytes: u64,
    /// Stack budget of `error` results, in bytes.
    pub error_stack_bytes: u64,
    /// Test observation points (`None` in production).
    pub hooks: Option<Arc<dyn Hooks>>,
    /// Where evaluations run (`--isolation`; threads unless the server asks for processes).
    pub isolation: crate::isolation::Isolation,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("profile", &self.profile)
            .field("capacity_wait_ms", &self.capacity_wait_ms)
            .field("value_stack_bytes", &self.value_stack_bytes)
            .field("error_stack_bytes", &self.error_stack_bytes)
            .field("hooks", &self.hooks.is_some())
            .field("isolation", &self.isolation)
            .finish()
    }
}

impl ServerOptions {
    /// The values of the production server: `mcp-local-stdio` and the host constants.
    pub fn production() -> ServerOptions {
        ServerOptions {
            profile: Profile::MCP_LOCAL_STDIO,
            capacity_wait_ms: CAPACITY_WAIT_MS,
            value_stack_bytes: VALUE_STACK_BYTES,
            error_stack_bytes: ERROR_STACK_BYTES,
            hooks: None,
            isolation: crate::isolation::Isolation::Thread,
        }
    }

    /// The values of the production server on `transport` with `slots` execution slots
    /// (`--max-concurrency`; at least one).
    pub fn serving(transport: Transport, slots: u64) -> ServerOptions {
        let mut options = ServerOptions::production();
        options.profile = transport
            .profile()
            .with(Limit::ConcurrentExecutions, slots.max(1));
        options
    }

    /// The values of the Playground (`playground`), on `slots` execution slots: the
    /// command line's engine limits under the page's own host limits, with the server's
    /// admission and stack budgets (so that a program completing under both profiles
    /// answers the same envelope).
    pub fn playground(slots: u64) -> ServerOptions {
        let mut options = ServerOptions::production();
        options.profile = Profile::PLAYGROUND.with(Limit::ConcurrentExecutions, slots.max(1));
        options
    }

    /// In a debug build, the work budgets (`executionSteps`, `numericWork`,
    /// `collectionWork`) lifted when the environment sets `AJISAI_TEST_UNBOUNDED_WORK=1`:
    /// the tests of the transports (cancellation, draining, the wait queue) need a call
    /// that runs until its deadline, and under the production profile no program does.
    /// A release build never reads the variable.
    pub fn with_test_overrides(self) -> ServerOptions {
        #[cfg(debug_assertions)]
        if std::env::var("AJISAI_TEST_UNBOUNDED_WORK").as_deref() == Ok("1") {
            let lifted = u64::MAX / 2;
            return self
                .with_limit(Limit::ExecutionSteps, lifted)
                .with_limit(Limit::NumericWork, lifted)
                .with_limit(Limit::CollectionWork, lifted);
        }
        self
    }

    /// The same options with `limit` set to `value` (tests).
    pub fn with_limit(mut self, limit: Limit, value: u64) -> ServerOptions {
        self.profile = self.profile.with(limit, value);
        self
    }

    /// The same options with evaluations run as `isolation` says.
    pub fn with_isolation(mut self, isolation: crate::isolation::Isolation) -> ServerOptions {
        self.isolation = isolation;
        self
    }

    /// The same options with test hooks.
    pub fn with_hooks(mut self, hooks: Arc<dyn Hooks>) -> ServerOptions {
        self.hooks = Some(hooks);
        self
    }

    /// `sourceBytes`.
    pub fn source_bytes(&self) -> u64 {
        self.profile.source_bytes
    }

    /// `wallTimeMs` (the profile's value; `mcp-local-stdio` always declares one).
    pub fn wall_time_ms(&self) -> u64 {
        self.profile
            .wall_time_ms
            .or(Profile::MCP_LOCAL_STDIO.wall_time_ms)
            .unwrap_or(5_000)
    }

    /// The wall-time deadline as a duration.
    pub fn wall_time(&self) -> Duration {
        Duration::from_millis(self.wall_time_ms())
    }

    /// `responseBytes`.
    pub fn response_bytes(&self) -> u64 {
        self.profile
            .response_bytes
            .or(Profile::MCP_LOCAL_STDIO.response_bytes)
            .unwrap_or(1_048_576)
    }

    /// `concurrentExecutions` (at least one slot).
    pub fn slots(&self) -> u64 {
        self.profile
            .concurrent_executions
            .or(Profile::MCP_LOCAL_STDIO.concurrent_executions)
            .unwrap_or(4)
            .max(1)
    }

    /// `memoryBytes`: the most one execution may hold at once.
    pub fn memory_bytes(&self) -> u64 {
        self.profile
            .memory_bytes
            .or(Profile::MCP_LOCAL_STDIO.memory_bytes)
            .unwrap_or(64 * 1024 * 1024)
    }

    /// How many callers may wait for a slot at once.
    pub fn max_waiting(&self) -> u64 {
        WAITING_PER_SLOT * self.slots()
    }

    /// The queue wait as a duration.
    pub fn capacity_wait(&self) -> Duration {
        Duration::from_millis(self.capacity_wait_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_values_are_the_declared_ones() {
        let o = ServerOptions::production();
        assert_eq!(o.profile, Profile::MCP_LOCAL_STDIO);
        assert_eq!(o.source_bytes(), 65_536);
        assert_eq!(o.wall_time_ms(), 5_000);
        assert_eq!(o.response_bytes(), 1_048_576);
        assert_eq!(o.slots(), 4);
        assert_eq!(o.memory_bytes(), 64 * 1024 * 1024);
        assert_eq!(o.capacity_wait_ms, 1_000);
        assert_eq!(o.value_stack_bytes, 450_560);
        assert_eq!(o.error_stack_bytes, 65_536);
        assert_eq!(o.max_waiting(), 32);
        assert_eq!(
            ServerOptions::serving(Transport::Stdio, 4).profile,
            o.profile
        );
    }

    #[test]
    fn the_http_profile_differs_only_in_its_name_and_slots() {
        let o = ServerOptions::serving(Transport::Http, 7);
        assert_eq!(o.profile.name, "mcp-remote-http");
        assert_eq!(o.slots(), 7);
        assert_eq!(o.max_waiting(), 56);
        let mut renamed = o.profile.clone();
        renamed.name = Profile::MCP_LOCAL_STDIO.name;
        assert_eq!(
            renamed.with(Limit::ConcurrentExecutions, 4),
            Profile::MCP_LOCAL_STDIO
        );
        assert_eq!(ServerOptions::serving(Transport::Http, 0).slots(), 1);
    }
}
