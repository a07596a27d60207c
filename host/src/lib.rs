//! `ajisai-host`: what every host of the engine shares — the `ajisai` CLI, the MCP
//! server, and hosts to come: the embedded assets and their digests ([`assets`], [`content`]), the numeric
//! backend's selection ([`backend`]), the memory account ([`memory`]) and one bounded
//! execution on it ([`bounded`]), host errors ([`hosterror`]), the provenance block
//! ([`provenance`]), the phrasebook a host serves ([`phrasebook`]), Word lookup with its
//! near misses ([`lookup`]), the one way to quote client text in a message ([`quote`]),
//! and giving freed memory back to the system ([`reaper`]).
//!
//! Nothing here knows a wire format, a transport or an async runtime: the crate depends on
//! the engine only, and the hosts depend on it, never the reverse (the crate graph holds
//! that; no host's code can be named here).

pub mod assets;
pub mod backend;
pub mod bounded;
pub mod content;
#[cfg(feature = "fault-injection")]
pub mod faults;
pub mod hosterror;
pub mod lookup;
pub mod memory;
pub mod phrasebook;
pub mod provenance;
pub mod quote;
pub mod reaper;
pub mod sched;

/// The release's version, which every crate of the workspace shares (`serverVersion`, MCP-81; docs/mcp/resources.md).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The native stack of every thread that runs the engine (the CLI's engine thread, the
/// MCP server's runtime threads): deep values are walked iteratively, but a generous stack
/// keeps the rare native recursion of dependencies far from its end.
pub const ENGINE_STACK_BYTES: usize = 256 * 1024 * 1024;

/// The `retryAfterMs` of `capacityExhausted` (MCP-42; docs/mcp/host-errors.md): a fixed
/// hint, whatever the wait.
pub const RETRY_AFTER_MS: u64 = 1_000;
