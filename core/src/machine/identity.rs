//! Content identity of User Words (LANGUAGE.md §6.7).
//!
//! STUB: the contracts helper implements this module.
