//! The MCP server `ajisai-mcp-server` (docs/mcp/): rmcp over stdio or Streamable HTTP
//! ([`http`]), four tools, six resources and a Word template, host errors, admission and
//! delivery limits, and Prometheus metrics in HTTP mode ([`metrics`]).
//!
//! The engine owns every language-visible field; this host validates requests
//! ([`validate`]), admits them through the concurrency gate ([`gate`]), runs them on
//! blocking threads under the wall-time deadline ([`exec`]), fits the result into the
//! response limit, attaches the `mcp` provenance block ([`crate::host::provenance`]) and delivers it.
//!
//! Startup ([`startup`]): no arguments serves MCP on stdin/stdout, `--http ADDR:PORT` serves
//! it at `/mcp`; `--help`, `--version` and `--doctor` ([`startup::doctor`]) print and exit. Only JSON-RPC ever reaches stdout in serve
//! mode; diagnostics go to stderr as single `[ajisai-mcp]` lines ([`logging`]).

pub mod config;
pub mod exec;
pub mod framing;
pub mod gate;
pub mod handler;
pub mod http;
pub mod inline;
pub mod logging;
pub mod metrics;
pub mod resources;
pub mod result;
pub mod startup;
pub mod tools;
pub mod transport;
pub mod validate;

pub use config::{Hooks, ServerOptions};
pub use handler::AjisaiServer;

use std::process::ExitCode;

pub use crate::host::SERVER_VERSION;

/// The executable's name.
pub const PROGRAM: &str = "ajisai-mcp-server";

/// Run the executable with the process arguments; the return value is the exit code.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    ExitCode::from(startup::run(&args))
}
