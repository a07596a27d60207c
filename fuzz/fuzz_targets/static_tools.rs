//! Raw source text through `check` and `infer_contracts` (`ajisai_fuzz::static_tools`):
//! they parse, compile the literals and infer contracts without running anything.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        ajisai_fuzz::static_tools(source);
    }
});
