//! The MCP server `ajisai-mcp-server` (docs/mcp/), in layers whose imports point one way
//! (`golden/tests/architecture.rs`):
//!
//! - [`startup`] — the command line, serve mode, `--version`, `--doctor`, exit codes;
//! - [`transport`] — stdin/stdout, and Streamable HTTP with its guards, probes and metrics
//!   endpoint; a transport only moves messages;
//! - [`protocol`] — JSON-RPC framing, the revision rule, a tool answer on the wire, the
//!   rmcp adapter;
//! - below them, the crate `ajisai_service` — what the server does, knowing no transport
//!   and no wire format: the tools, six resources and a Word template, validation, the
//!   concurrency gate, the deadline, the memory account, fitting the result into the
//!   response limit with the `mcp` provenance block, process isolation — on the crate
//!   `ajisai_host` (what every host shares); and [`logging`] (every stderr line through
//!   one bounded queue).
//!
//! The engine owns every language-visible field. Only JSON-RPC ever reaches stdout in
//! serve mode; diagnostics go to stderr as single `[ajisai-mcp]` lines.

pub mod logging;
pub mod protocol;
pub mod startup;
pub mod transport;

pub use ajisai_service::config::{Hooks, ServerOptions};
pub use ajisai_service::AjisaiServer;

use std::process::ExitCode;

pub use ajisai_host::SERVER_VERSION;

/// The executable's name.
pub const PROGRAM: &str = "ajisai-mcp-server";

/// Run the executable with the process arguments; the return value is the exit code.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    ExitCode::from(startup::run(&args))
}
