//! Contracts: `#:contract` directive parsing, inference of User Word contracts
//! (LANGUAGE.md §12.2) and declaration checking (§12.3).
//!
//! STUB: the contracts helper implements this module.
