//! `ajisai-words`: the Core Words, one module per family, each registering
//! itself with `inventory` (ARCHITECTURE.md, "words — the vocabulary").
//!
//! A family module holds its Words' [`WordSpec`](ajisai_core::word::WordSpec)
//! declarations (contract, NIL policy, documentation, examples) and executors.
//! Module names organize code; the `family` each Word declares is
//! its page of the Word reference (docs/words/index.md).

pub mod absence;
pub mod arithmetic;
pub mod collection;
pub mod comparison;
pub mod control;
pub mod dictionary;
pub mod higher_order;
pub mod hints;
pub mod json;
pub mod lifting;
pub mod logic;
pub mod math;
pub mod output;
pub mod reference;
pub mod reflection;
pub mod support;
pub mod tensor;
pub mod text;

/// Make sure this crate is linked into the binary (its Words register through `inventory`).
pub fn link() {}

/// The Core registry (every Word this crate registers), with registration problems checked.
pub fn registry() -> &'static ajisai_core::word::Registry {
    link();
    ajisai_core::word::registry()
}
