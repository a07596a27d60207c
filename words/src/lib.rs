//! `ajisai-words`: the 70 Core Words, one module per family, each registering
//! itself with `inventory` (ARCHITECTURE.md, "words — the vocabulary").
//!
//! A family module holds its Words' [`WordSpec`](ajisai_core::word::WordSpec)
//! declarations (contract, NIL policy, documentation, examples) and executors.
//! Module names organize code; the `family` each Word declares is its WORDS.md value.

pub mod absence;
pub mod control;
pub mod dictionary;
pub mod logic;
pub mod output;
pub mod support;

/// Make sure this crate is linked into the binary (its Words register through `inventory`).
pub fn link() {}

/// The Core registry (every Word this crate registers), with registration problems checked.
pub fn registry() -> &'static ajisai_core::word::Registry {
    link();
    ajisai_core::word::registry()
}
