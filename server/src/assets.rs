//! Embedded assets (MCP-82): the registry, vocabulary, outcomes, quickstart and
//! result schema, with their recorded digests.
//!
//! STUB: the assets helper implements this module.
