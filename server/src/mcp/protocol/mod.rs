//! JSON-RPC and MCP over whatever carries the bytes: the front every message passes
//! ([`framing`]: one answer per request, id remapping, refusals, the calls answered without
//! rmcp), the revision rule ([`revision`]), a tool answer on the wire ([`tool_result`])
//! and the thin rmcp adapter ([`handler`], rmcp's `ServerHandler`).

pub mod framing;
pub mod handler;
pub mod revision;
pub mod tool_result;
