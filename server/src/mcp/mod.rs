//! The MCP server (`ajisai-mcp-server`): rmcp over stdio, four tools, resources,
//! host errors, admission and delivery limits.
//!
//! STUB: the server helper implements this module.
