//! The server crate's integration tests, in one test binary (`cargo test -p ajisai-server
//! --test server`; one module per area, `cargo test -p ajisai-server --test server http::`
//! runs one). One binary instead of one per file: linking each of them against the server
//! and its dependencies took a large share of CI's time. The modules share the support code
//! below and the binaries' counting allocator.

// `serde_json::json!` literals of the asset tests nest deeply.
#![recursion_limit = "512"]

/// Every allocation is charged to the execution that made it, as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

mod cli_support;
mod http_support;
mod mcp_support;
mod raw_support;

mod assets;
mod bounded;
mod cli;
mod direct;
mod elision;
mod framing;
mod golden_live;
mod http;
mod http_edges;
mod isolation;
mod mcp_cli;
mod mcp_conformance;
mod mcp_descriptions;
mod mcp_inspector;
mod mcp_limits;
mod mcp_phrasebook;
mod mcp_protocol;
mod mcp_python;
mod mcp_stdio;
mod mcp_typescript;
mod performance;
mod playground;
mod plugin;
mod result_schema;
mod scale_out;
