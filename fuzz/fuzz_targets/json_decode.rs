//! Any text through `JSON-DECODE` on a run's meter, and what it decodes back through
//! `JSON-ENCODE` (`ajisai_fuzz::json_round_trip`).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        ajisai_fuzz::json_round_trip(text);
    }
});
