//! `ajisai-server`: the hosts of the Ajisai engine.
//!
//! The human CLI `ajisai` ([`cli`]) and the MCP server ([`mcp`]), over what every host
//! shares ([`host`]: embedded assets, backend selection, the memory account and bounded
//! execution, host errors, the phrasebook, Word lookup). Hosts own all I/O and never
//! reinterpret language results: they render the engine's envelope
//! (`ajisai_core::envelope`) and add their own host fields. Imports point one way:
//! `cli` and `mcp` use `host`, never each other, and `host` uses neither.

pub mod cli;
pub mod host;
pub mod mcp;
pub mod playground;
