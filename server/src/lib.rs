//! `ajisai-server`: the hosts of the Ajisai engine.
//!
//! The human CLI `ajisai` ([`cli`]) and the MCP server ([`mcp`]), with what both share:
//! embedded assets, backend selection, and the memory ceiling ([`memory`]). Hosts own all I/O and never reinterpret language results: they render the
//! engine's envelope (`ajisai_core::envelope`) and add their own host fields.

pub mod assets;
pub mod backend;
pub mod cli;
pub mod mcp;
pub mod memory;
