//! The golden crate's tests, in one test binary (`cargo test -p ajisai-golden --test golden`;
//! one module per corpus or check, `cargo test -p ajisai-golden --test golden snapshot::`
//! runs one). One binary instead of one per file: linking each of them took a large share
//! of CI's time. The fuzzer stays a binary of its own (`--test fuzz`), as CI also runs it in
//! the release profile.

/// Allocations are counted as in the binaries (the snapshot and the consistency checks
/// hold every run to the MCP memory ceiling).
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

mod architecture;
mod conformance;
mod consistency;
mod eval;
mod front_door;
mod guide;
mod limits;
mod parity;
mod seed;
mod snapshot;
mod spec_examples;
mod word_cases;
