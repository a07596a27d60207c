//! GMP's memory through the host's Rust global allocator, so a host that counts
//! allocations (the binaries' `memoryBytes` ceiling) counts GMP's too.
//!
//! The three functions have the signatures of GMP's custom allocation functions
//! (`mp_set_memory_functions`) and allocate with the process's global allocator at
//! 16-byte alignment, which is what malloc gives GMP by default. The built-in backend
//! installs them in its own GMP ([`crate::route_allocations`]); a plugin receives the
//! host's copies through its interface (`set_allocator`) and installs them in the GMP it
//! carries, so its allocations are counted by the host too.
//!
//! One of the crate's few `unsafe` places: `std::alloc` is unsafe by definition. GMP
//! passes back exactly the sizes it allocated (its documented contract), from which the
//! layouts are rebuilt.

#![allow(unsafe_code)]

use std::alloc::Layout;
use std::ffi::c_void;

/// The alignment GMP gets (malloc's on 64-bit targets).
const ALIGN: usize = 16;

fn layout(size: usize) -> Layout {
    // A zero size gets one byte: a `GlobalAlloc` never sees a zero-size layout.
    match Layout::from_size_align(size.max(1), ALIGN) {
        Ok(l) => l,
        // Only a size near usize::MAX fails; GMP never asks for one (its sizes are
        // bounded by the engine's bigintBits). Abort as an allocation failure would.
        Err(_) => std::process::abort(),
    }
}

/// GMP's allocate function.
pub extern "C" fn gmp_alloc(size: usize) -> *mut c_void {
    let l = layout(size);
    // SAFETY: `l` has a non-zero size.
    let p = unsafe { std::alloc::alloc(l) };
    if p.is_null() {
        std::alloc::handle_alloc_error(l);
    }
    p.cast()
}

/// GMP's reallocate function.
///
/// # Safety
/// `ptr` was returned by [`gmp_alloc`] or [`gmp_realloc`] with size `old_size`.
pub unsafe extern "C" fn gmp_realloc(
    ptr: *mut c_void,
    old_size: usize,
    new_size: usize,
) -> *mut c_void {
    let old = layout(old_size);
    // SAFETY: the caller's contract; `new_size.max(1)` is non-zero and rounds to no
    // overflow at 16-byte alignment (GMP sizes are far below isize::MAX).
    let p = unsafe { std::alloc::realloc(ptr.cast(), old, new_size.max(1)) };
    if p.is_null() {
        std::alloc::handle_alloc_error(layout(new_size));
    }
    p.cast()
}

/// GMP's free function.
///
/// # Safety
/// `ptr` was returned by [`gmp_alloc`] or [`gmp_realloc`] with size `size`.
pub unsafe extern "C" fn gmp_free(ptr: *mut c_void, size: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::alloc::dealloc(ptr.cast(), layout(size)) }
}
