//! Contracts: inference of User Word contracts
//! (docs/contracts.md#how-inference-works-and-its-gaps), the `#:contract` directive (MCP-66;
//! docs/contracts.md#the-directive) and the verification of declarations against inference (MCP-68;
//! docs/mcp/envelope.md), one file per job:
//!
//! - [`infer`] — the stack-effect walk over [`Definitions`] (the machine's dictionary or a
//!   program's literal definitions), and the `infer_contracts` tool's view of a program;
//! - [`directive`] — reading a `#:contract` line;
//! - [`verify`] — matching a program's directives against what inference finds.

pub mod directive;
pub mod infer;
pub mod verify;

pub use directive::*;
pub use infer::*;
pub use verify::*;
