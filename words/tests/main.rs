//! The vocabulary's tests, one binary (a binary per file linked the engine fourteen
//! times): each module is one file of this folder, `common` their shared helpers.
//! `golden/tests/consistency.rs` checks that every file here is one of these modules.

mod common;

mod arithmetic;
mod collection;
mod contract;
mod fast_path;
mod higher_order;
mod hints;
mod identity;
mod int_pair;
mod json;
mod machine;
mod phrasebook;
mod reflection;
mod registry;
mod text;
