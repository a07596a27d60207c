//! Raw source text: any bytes that are UTF-8, run through `compute` as the server runs
//! it (`ajisai_fuzz::compute`).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        ajisai_fuzz::compute(source);
    }
});
