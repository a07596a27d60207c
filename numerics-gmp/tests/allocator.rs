//! GMP allocates through the Rust global allocator once routed (`route_allocations`), so
//! a host that counts allocations — the binaries' `memoryBytes` ceiling — counts GMP's.
//! This executable installs a minimal counting allocator of its own and watches a GMP
//! integer of 10 MB come and go.

#![cfg(feature = "backend")]
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes currently allocated through the global allocator.
static LIVE: AtomicUsize = AtomicUsize::new(0);

struct Watching;

// SAFETY: delegates every call to `System` unchanged; only counts sizes.
unsafe impl GlobalAlloc for Watching {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Watching = Watching;

#[test]
fn gmp_integers_are_allocated_by_the_global_allocator() {
    ajisai_numerics_gmp::route_allocations();
    let before = LIVE.load(Ordering::Relaxed);
    let big = rug::Integer::from(1) << 80_000_000u32;
    let during = LIVE.load(Ordering::Relaxed);
    assert!(
        during >= before + 10_000_000,
        "a 10 MB integer was allocated outside the global allocator ({before} → {during})"
    );
    assert_eq!(big.significant_bits(), 80_000_001);
    drop(big);
    let after = LIVE.load(Ordering::Relaxed);
    assert!(after < before + 1_000_000, "and freed through it ({after})");
}
