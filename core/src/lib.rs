//! `ajisai-core`: the Ajisai language itself, in three layers.
//!
//! - [`syntax`]: source text → tokens → the tree of tokens as written. It knows
//!   nothing above it.
//! - [`runtime`]: values and the exact numeric tower, the Word interface and the
//!   registry type, limits and pricing, outcomes, the compiled form ([`compile`]) and
//!   the [`machine`], which runs on explicit frames against one stack. It knows
//!   nothing of the host layer.
//! - [`host`]: running a source end to end ([`engine`]), the result envelope and its
//!   rendering, the static tools, the phrasebook and content identity.
//!
//! Words come from families registered with `inventory` ([`word`]); big-integer
//! arithmetic comes from a backend registered the same way ([`numerics`]). The
//! modules are also re-exported at the crate root, the paths the other crates use.
//! `golden/tests/architecture.rs` keeps the layers apart.
//!
//! This crate performs no I/O, reads no clock and uses no hash-order-dependent output.

pub mod host;
pub mod runtime;
pub mod syntax;

pub use host::{
    check, contract, display, engine, envelope, identity, node, phrasebook, render, suggest,
};
pub use runtime::{
    clauses, code, compile, json, limits, machine, memo, number, numerics, outcome, price, value,
    word,
};
pub use syntax::{lexer, parser};

pub use limits::{Halt, Limit, Meter, Profile};
pub use machine::{Ctx, Machine};
pub use number::{Int, Number, Rat};
pub use outcome::{ErrorCategory, LangError, NilReason, Pos};
pub use value::{Value, Vector};

/// The language specification version this engine implements (docs/reference/index.md).
pub const SPECIFICATION_VERSION: &str = "1.0.0-beta.2";

/// The engine version (this crate's version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
