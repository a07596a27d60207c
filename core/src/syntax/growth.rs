//! Bounded growth of buffers: every layer that builds a big text or list grows it by
//! doubling while it is small and by a fixed step beyond, so a buffer near a host's
//! memory ceiling never reserves twice its size in one step (the ceiling's overshoot
//! stays within one step). It lives in the syntax layer, the lowest, so the lexer and
//! parser use it as the runtime does.

/// Buffers grow by doubling up to this size and by this much at a time beyond it, so no
/// single growth step reserves more than the memory ceiling's allowed overshoot.
pub const GROWTH_STEP_BYTES: usize = 8 * 1024 * 1024;

/// Make room for `additional` more bytes in `out`: by doubling while the buffer is
/// small, by [`GROWTH_STEP_BYTES`] at a time beyond that (so a buffer near the memory
/// ceiling never reserves twice its size in one step). Builders of big text call it
/// before they append.
#[inline]
pub fn grow(out: &mut String, additional: usize) {
    let need = out.len().saturating_add(additional);
    if need > out.capacity() && out.capacity() >= GROWTH_STEP_BYTES {
        out.reserve_exact(additional.max(GROWTH_STEP_BYTES));
    }
}

/// [`grow`] for a vector of elements.
#[inline]
pub fn grow_vec<T>(out: &mut Vec<T>, additional: usize) {
    let need = out.len().saturating_add(additional);
    let step = GROWTH_STEP_BYTES / std::mem::size_of::<T>().max(1);
    if need > out.capacity() && out.capacity() >= step {
        out.reserve_exact(additional.max(step));
    }
}

/// Push `item` onto `out`, growing it by [`grow_vec`]'s bounded steps.
#[inline]
pub fn push_bounded<T>(out: &mut Vec<T>, item: T) {
    if out.len() == out.capacity() {
        grow_vec(out, 1);
    }
    out.push(item);
}
