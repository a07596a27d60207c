//! The runtime layer: values and the exact numeric tower, the Word interface and the
//! registry type, limits and pricing, outcomes, the compiled form and the machine.
//!
//! It reads programs through [`crate::syntax`] and knows nothing of the host layer:
//! no envelopes, no rendering, no static analyses.

pub mod clauses;
pub mod code;
pub mod compile;
pub mod json;
pub mod limits;
pub mod machine;
pub mod memo;
pub mod number;
pub mod numerics;
pub mod outcome;
pub mod price;
pub mod value;
pub mod word;
