//! `ajisai-server`: the hosts of the Ajisai engine.
//!
//! The human CLI `ajisai` ([`cli`]), the MCP server ([`mcp`]) and the Playground
//! ([`playground`]), over what every host shares (the crate `ajisai_host`: embedded
//! assets, backend selection, the memory account and bounded execution, host errors, the
//! phrasebook, Word lookup) and what every HTTP host shares ([`web`]: the accept loop and
//! the `Host`/`Origin` rules). Hosts own all I/O and never reinterpret language results:
//! they render the engine's envelope (`ajisai_core::envelope`) and add their own host
//! fields. Imports point one way: `cli` and `mcp` never use each other.

pub mod cli;
pub mod mcp;
pub mod playground;
pub mod web;
