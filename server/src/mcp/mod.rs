//! The MCP server `ajisai-mcp-server` (docs/mcp/): rmcp over stdio or Streamable HTTP
//! ([`http`]), four tools, six resources and a Word template, host errors, admission and
//! delivery limits, and Prometheus metrics in HTTP mode ([`metrics`]).
//!
//! The engine owns every language-visible field; this host validates requests
//! ([`validate`]), admits them through the concurrency gate ([`gate`]), runs them on
//! blocking threads under the wall-time deadline ([`exec`]), fits the result into the
//! response limit, attaches the `mcp` provenance block ([`provenance`]) and delivers it.
//!
//! Modes ([`modes`]): no arguments serves MCP on stdin/stdout, `--http ADDR:PORT` serves
//! it at `/mcp`; `--help`, `--version` and `--doctor` ([`doctor`]) print and exit. Only JSON-RPC ever reaches stdout in serve
//! mode; diagnostics go to stderr as single `[ajisai-mcp]` lines ([`logging`]).

pub mod config;
pub mod content;
pub mod doctor;
pub mod exec;
pub mod framing;
pub mod gate;
pub mod handler;
pub mod hosterror;
pub mod http;
pub mod inline;
pub mod logging;
pub mod lookup;
pub mod metrics;
pub mod modes;
pub mod phrasebook;
pub mod provenance;
pub mod resources;
pub mod result;
pub mod tools;
pub mod transport;
pub mod validate;

pub use config::{Hooks, ServerOptions};
pub use handler::AjisaiServer;

use std::process::ExitCode;

/// The server crate's version (`serverVersion`, MCP-81; docs/mcp/resources.md).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The executable's name.
pub const PROGRAM: &str = "ajisai-mcp-server";

/// Run the executable with the process arguments; the return value is the exit code.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    ExitCode::from(modes::run(&args))
}
