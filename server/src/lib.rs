//! `ajisai-server`: the hosts of the Ajisai engine.
//!
//! For now this is the human CLI `ajisai` ([`cli`]); the MCP server joins it here.
//! Hosts own all I/O and never reinterpret language results: they render the
//! engine's envelope (`ajisai_core::envelope`) and add their own host fields.

pub mod assets;
pub mod backend;
pub mod cli;
pub mod mcp;
