//! `ajisai-core`: the Ajisai language itself.
//!
//! Source text is lexed and parsed into a code tree ([`parser`]), evaluated by the
//! [`machine`] on explicit frames against one stack of [`value::Value`]s, with exact
//! numbers from the [`number`] tower. Words come from families registered with
//! `inventory` ([`word`]); big-integer arithmetic comes from a backend registered the
//! same way ([`numerics`]). Every run is bounded by the [`limits`] of its profile and
//! ends in one of three outcomes ([`outcome`]); [`engine`] runs a source end to end and
//! [`envelope`] renders the result model hosts serialize.
//!
//! This crate performs no I/O, reads no clock and uses no hash-order-dependent output.

pub mod check;
pub mod code;
pub mod compile;
pub mod contract;
pub mod display;
pub mod engine;
pub mod envelope;
pub mod json;
pub mod lexer;
pub mod limits;
pub mod machine;
pub mod number;
pub mod numerics;
pub mod outcome;
pub mod parser;
pub mod phrasebook;
pub mod price;
pub mod render;
pub mod suggest;
pub mod value;
pub mod word;

pub use limits::{Halt, Limit, Meter, Profile};
pub use machine::{Ctx, Machine};
pub use number::{Int, Number, Rat};
pub use outcome::{ErrorCategory, LangError, NilReason, Pos};
pub use value::{Value, Vector};

/// The language specification version this engine implements (LANGUAGE.md §0).
pub const SPECIFICATION_VERSION: &str = "1.0.0-beta.2";

/// The engine version (this crate's version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
