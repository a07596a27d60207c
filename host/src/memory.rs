//! The memory ceiling `memoryBytes`: a counting global allocator that charges every
//! allocation to the execution that made it.
//!
//! The binaries install [`Counting`] as their `#[global_allocator]`. A host opens an
//! [`Execution`] on the thread that runs one compute/check/infer call, one `ajisai run`,
//! one `ajisai test` example or a whole `repl` session; while it is open, every
//! allocation made on that thread is tagged with the execution's account, and freeing
//! the block credits that account, whichever thread frees it. Blocks that outlive the
//! execution (a lazily filled cache, the delivered result) stop counting when it closes:
//! closing retires the account's generation, so later frees of its blocks are ignored.
//!
//! A global allocator cannot fail gracefully (an allocation failure aborts), so the
//! ceiling is soft: when an account's bytes cross it, the accountant raises the
//! execution's interrupt flag and the engine stops at its next poll. Engine loops poll
//! at least every few thousand element operations, buffers grow by at most
//! [`ajisai_core::limits::GROWTH_STEP_BYTES`] a step, and big results known up front ask first
//! ([`ajisai_core::limits::Meter::reserve`] calls [`admits`]), so an execution holds at
//! most [`OVERSHOOT_BYTES`] past its ceiling. The answer is the host error
//! `memoryExhausted`; it never changes a value that fits.
//!
//! Every block carries a 16-byte header (more for over-aligned layouts) holding its
//! account tag. Charges of the running execution are batched per thread and published
//! every [`FLUSH_BYTES`], so the common allocation costs no atomic operation.
//!
//! This module holds nearly all of the server's `unsafe` code (the rest is one system
//! call in [`crate::sched`]): a `GlobalAlloc` is unsafe by definition, and the header is
//! reached by pointer arithmetic. Each block says why it holds.

#![allow(unsafe_code)]

use ajisai_core::limits::InterruptFlag;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicPtr, AtomicU32, Ordering};

/// One mebibyte.
pub const MIB: u64 = 1 << 20;

/// The most an execution may hold past its ceiling before it stops (the bound).
pub const OVERSHOOT_BYTES: u64 = 16 * MIB;

/// Unpublished charges a thread may keep before publishing them to the account.
pub const FLUSH_BYTES: i64 = 256 * 1024;

/// Accounts in the table; slot 0 is the host's (never counted).
const SLOTS: usize = 1024;

/// The smallest header: room for the tag, keeping the 16-byte alignment malloc gives.
const HEADER: usize = 16;

/// An account: one open execution, or a free slot.
struct Slot {
    /// Bumped when the slot opens and when it closes; a tag of another generation is stale.
    generation: AtomicU32,
    /// Whether an execution holds the slot.
    in_use: AtomicBool,
    /// Bytes published as held (frees from other threads land here directly).
    live: AtomicI64,
    /// The most `live` has been after a publication.
    peak: AtomicI64,
    /// The ceiling in bytes.
    ceiling: AtomicI64,
    /// Whether the ceiling was crossed (or a reservation refused).
    exceeded: AtomicBool,
    /// The execution's interrupt flag, while it is open.
    flag: AtomicPtr<AtomicBool>,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            generation: AtomicU32::new(0),
            in_use: AtomicBool::new(false),
            live: AtomicI64::new(0),
            peak: AtomicI64::new(0),
            ceiling: AtomicI64::new(i64::MAX),
            exceeded: AtomicBool::new(false),
            flag: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Mark the ceiling crossed and stop the execution at its next poll (owner thread).
    fn exceed(&self) {
        if !self.exceeded.swap(true, Ordering::AcqRel) {
            let flag = self.flag.load(Ordering::Acquire);
            if !flag.is_null() {
                // SAFETY: only the thread that owns the open execution calls this (it
                // publishes its own charges), and the execution keeps the flag's `Arc`
                // alive until it clears this pointer on close, on that same thread.
                unsafe { (*flag).store(true, Ordering::Relaxed) };
            }
        }
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// Where the next slot search starts.
static NEXT: AtomicU32 = AtomicU32::new(1);

/// The account a block is charged to: slot and generation, packed into the header.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Tag {
    slot: u32,
    generation: u32,
}

impl Tag {
    const HOST: Tag = Tag {
        slot: 0,
        generation: 0,
    };

    fn pack(self) -> u64 {
        (u64::from(self.slot) << 32) | u64::from(self.generation)
    }

    fn unpack(v: u64) -> Tag {
        Tag {
            slot: (v >> 32) as u32,
            generation: v as u32,
        }
    }
}

/// What a thread charges: its account, and the charges not yet published to it. One
/// thread-local cell, so an allocation reads and writes it once.
#[derive(Clone, Copy)]
struct ThreadState {
    tag: Tag,
    pending: i64,
}

thread_local! {
    static STATE: Cell<ThreadState> = const {
        Cell::new(ThreadState { tag: Tag::HOST, pending: 0 })
    };
}

fn state() -> ThreadState {
    STATE.try_with(Cell::get).unwrap_or(ThreadState {
        tag: Tag::HOST,
        pending: 0,
    })
}

fn set_state(s: ThreadState) {
    let _ = STATE.try_with(|c| c.set(s));
}

fn current() -> Tag {
    state().tag
}

/// Publish this thread's pending charges to its account and check the ceiling.
fn publish(tag: Tag) {
    let mut st = state();
    if st.tag != tag || st.pending == 0 {
        return;
    }
    let delta = st.pending;
    st.pending = 0;
    set_state(st);
    publish_delta(tag, delta);
}

fn publish_delta(tag: Tag, delta: i64) {
    if tag.slot == 0 {
        return;
    }
    let slot = &TABLE[tag.slot as usize];
    let now = slot.live.fetch_add(delta, Ordering::Relaxed) + delta;
    if delta > 0 {
        slot.peak.fetch_max(now, Ordering::Relaxed);
        if now > slot.ceiling.load(Ordering::Relaxed) {
            slot.exceed();
        }
    }
}

/// Charge a new block of `size` bytes to this thread's account; its tag.
#[inline]
fn charge_new(size: i64) -> Tag {
    let mut st = state();
    if st.tag.slot != 0 {
        st.pending += size;
        if st.pending >= FLUSH_BYTES {
            let delta = st.pending;
            st.pending = 0;
            set_state(st);
            publish_delta(st.tag, delta);
        } else {
            set_state(st);
        }
    }
    st.tag
}

/// Charge (`delta` > 0) or credit (`delta` < 0) the account `tag` of a block.
#[inline]
fn account(tag: Tag, delta: i64) {
    if tag.slot == 0 {
        return;
    }
    let mut st = state();
    if tag == st.tag {
        st.pending += delta;
        if st.pending.abs() >= FLUSH_BYTES {
            let d = st.pending;
            st.pending = 0;
            set_state(st);
            publish_delta(tag, d);
        } else {
            set_state(st);
        }
        return;
    }
    // Another thread's block, or a closed execution's (ignored).
    let slot = &TABLE[tag.slot as usize];
    if slot.generation.load(Ordering::Acquire) == tag.generation {
        slot.live.fetch_add(delta, Ordering::Relaxed);
    }
}

/// The layout malloc sees for `layout`, and where the caller's block starts in it.
fn outer(layout: Layout) -> Option<(Layout, usize)> {
    let align = layout.align().max(HEADER);
    let offset = align;
    let size = layout.size().checked_add(offset)?;
    Layout::from_size_align(size, align)
        .ok()
        .map(|l| (l, offset))
}

/// Allocate the outer block of `layout` with `allocate`, write this thread's tag into its
/// header and charge it; the caller's block, or null.
///
/// # Safety
/// `allocate` must return a block of the layout it is given (or null).
unsafe fn tagged(layout: Layout, allocate: impl FnOnce(Layout) -> *mut u8) -> *mut u8 {
    let Some((outer, offset)) = outer(layout) else {
        return std::ptr::null_mut();
    };
    let base = allocate(outer);
    if base.is_null() {
        refused();
        return base;
    }
    let tag = charge_new(outer.size() as i64);
    // SAFETY: `offset` ≥ 16 lies inside the block; the tag slot is 8-aligned.
    unsafe {
        let user = base.add(offset);
        user.sub(8).cast::<u64>().write(tag.pack());
        user
    }
}

/// The exit code of a process whose allocations the OS refuses, once
/// [`exit_on_refused_allocation`] set one (0: none, the caller gets the null pointer).
static EXIT_ON_REFUSAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// From now on, end the process at once with `code` when the OS refuses an allocation:
/// a worker under an address-space limit (process isolation) tells its supervisor so by
/// its exit code, instead of an abort that says nothing.
pub fn exit_on_refused_allocation(code: i32) {
    EXIT_ON_REFUSAL.store(code, std::sync::atomic::Ordering::Relaxed);
}

/// An allocation the OS refused.
fn refused() {
    let code = EXIT_ON_REFUSAL.load(std::sync::atomic::Ordering::Relaxed);
    if code != 0 {
        #[cfg(target_os = "linux")]
        // SAFETY: `_exit` ends the process without running anything that could allocate.
        unsafe {
            libc::_exit(code)
        }
    }
}

/// The counting global allocator of the binaries.
pub struct Counting;

// SAFETY: every block is a block of the backing allocator (`big`) of the `outer` layout,
// with the caller's block `offset` bytes in; the tag sits in the 8 bytes just before the
// caller's block, inside the header the caller never sees. `dealloc` and `realloc`
// receive the caller's layout, from which `outer` recomputes the same outer layout and
// offset.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the backing allocator with the outer layout, as `tagged` requires.
        unsafe { tagged(layout, |outer| big::alloc(outer, false)) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe { tagged(layout, |outer| big::alloc(outer, true)) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let Some((outer, offset)) = outer(layout) else {
            return;
        };
        // SAFETY: `ptr` came from `alloc`/`realloc` with this layout, so the header and
        // the tag precede it within the same block.
        unsafe {
            let tag = Tag::unpack(ptr.sub(8).cast::<u64>().read());
            big::dealloc(ptr.sub(offset), outer);
            account(tag, -(outer.size() as i64));
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Some((old_outer, offset)) = outer(layout) else {
            return std::ptr::null_mut();
        };
        let Some(new_outer_size) = new_size.checked_add(offset) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as in `dealloc`; the backing `realloc` keeps the header bytes (the prefix of
        // the block), so the tag moves with the block.
        unsafe {
            let tag = Tag::unpack(ptr.sub(8).cast::<u64>().read());
            let base = big::realloc(ptr.sub(offset), old_outer, new_outer_size);
            if base.is_null() {
                refused();
                return base;
            }
            account(tag, new_outer_size as i64 - old_outer.size() as i64);
            base.add(offset)
        }
    }
}

/// Blocks of [`MAPPED_FROM_BYTES`] or more are pages of their own, mapped here rather
/// than by glibc: glibc serves a big request from free space in its heap when it has
/// some, and a Vector, a frame stack or a text growing there is moved by copying it whole
/// once the space after it runs out — megabytes in one go, milliseconds in which the run
/// checked nothing (the poll gap, docs/reference/pricing-and-limits.md#calibration). A
/// mapped block grows by remapping its pages (`mremap`: page tables move, bytes do not)
/// and goes back to the system when it is freed. Which blocks are mapped follows from
/// their layout alone, so `dealloc` and `realloc` know without a lookup.
mod big {
    use super::MAPPED_FROM_BYTES;
    use std::alloc::{GlobalAlloc, Layout};

    #[cfg(not(feature = "jemalloc"))]
    use std::alloc::System as Backing;
    /// The allocator under the counting layer. In the native build, jemalloc: a served
    /// call allocates hundreds of small blocks on the thread that reads the request and
    /// frees many on another, which glibc's malloc serves under its arenas' locks (a
    /// fifth of the HTTP server's time); jemalloc's thread caches do not lock, and a
    /// block freed on another thread goes back to the arena it came from, where
    /// [`super::give_back`] can purge it from any thread. The portable build has no C
    /// library, so it keeps the system's.
    #[cfg(feature = "jemalloc")]
    use tikv_jemallocator::Jemalloc as Backing;

    /// Whether a block of `outer` is mapped here.
    fn mapped(outer: Layout) -> bool {
        cfg!(target_os = "linux") && outer.size() >= MAPPED_FROM_BYTES && outer.align() <= 4096
    }

    /// A block of `outer` (zeroed when asked; mapped pages always are), or null.
    ///
    /// # Safety
    /// As `GlobalAlloc::alloc`.
    pub(super) unsafe fn alloc(outer: Layout, zeroed: bool) -> *mut u8 {
        #[cfg(target_os = "linux")]
        if mapped(outer) {
            // SAFETY: an anonymous private mapping of a non-zero size; no existing memory
            // is touched.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    outer.size(),
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            return if p == libc::MAP_FAILED {
                std::ptr::null_mut()
            } else {
                p.cast()
            };
        }
        // SAFETY: as the caller's contract.
        unsafe {
            if zeroed {
                Backing.alloc_zeroed(outer)
            } else {
                Backing.alloc(outer)
            }
        }
    }

    /// Free a block [`alloc`] gave for `outer`.
    ///
    /// # Safety
    /// As `GlobalAlloc::dealloc`.
    pub(super) unsafe fn dealloc(base: *mut u8, outer: Layout) {
        #[cfg(target_os = "linux")]
        if mapped(outer) {
            // SAFETY: `base` is the start of a mapping of `outer.size()` bytes made by
            // `alloc` or `realloc`, and nothing refers to it any more.
            unsafe { libc::munmap(base.cast(), outer.size()) };
            return;
        }
        // SAFETY: as the caller's contract.
        unsafe { Backing.dealloc(base, outer) }
    }

    /// Resize a block [`alloc`] gave for `old` to `new_size` bytes, keeping its prefix.
    ///
    /// # Safety
    /// As `GlobalAlloc::realloc`.
    pub(super) unsafe fn realloc(base: *mut u8, old: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, old.align()) else {
            return std::ptr::null_mut();
        };
        match (mapped(old), mapped(new)) {
            (false, false) => {
                // SAFETY: as the caller's contract.
                unsafe { Backing.realloc(base, old, new_size) }
            }
            #[cfg(target_os = "linux")]
            (true, true) => {
                // SAFETY: `base` is a mapping of `old.size()` bytes made here; MAYMOVE
                // lets the kernel move it, keeping its contents.
                let p = unsafe {
                    libc::mremap(base.cast(), old.size(), new.size(), libc::MREMAP_MAYMOVE)
                };
                if p == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    p.cast()
                }
            }
            _ => {
                // Across the threshold: a new block, the common prefix copied (less than
                // the threshold either way), the old block freed.
                // SAFETY: both blocks are live and distinct; the copy stays inside both.
                unsafe {
                    let fresh = alloc(new, false);
                    if fresh.is_null() {
                        return fresh;
                    }
                    std::ptr::copy_nonoverlapping(base, fresh, old.size().min(new.size()));
                    dealloc(base, old);
                    fresh
                }
            }
        }
    }
}

/// An open execution's account. Opened and dropped on the thread that runs it.
pub struct Execution {
    tag: Tag,
    previous: Tag,
    /// Keeps the flag the slot points at alive.
    _flag: InterruptFlag,
    /// Tied to its thread (it sets that thread's current account).
    _not_send: std::marker::PhantomData<*const ()>,
}

/// What an execution held, read when it closes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// The most it held at once (at publication granularity, [`FLUSH_BYTES`]).
    pub peak_bytes: u64,
    /// Whether it crossed its ceiling (or a reservation was refused).
    pub exceeded: bool,
}

impl Execution {
    /// Open an account with `ceiling` bytes on this thread; crossing it raises `flag`.
    /// An execution opened inside another one charges only itself until it closes.
    pub fn begin(ceiling: u64, flag: &InterruptFlag) -> Execution {
        let previous = current();
        publish(previous);
        let slot_index = claim();
        let tag = match slot_index {
            Some(i) => {
                let slot = &TABLE[i as usize];
                slot.live.store(0, Ordering::Relaxed);
                slot.peak.store(0, Ordering::Relaxed);
                slot.exceeded.store(false, Ordering::Relaxed);
                slot.ceiling.store(
                    i64::try_from(ceiling).unwrap_or(i64::MAX),
                    Ordering::Relaxed,
                );
                slot.flag.store(
                    std::ptr::from_ref(flag.as_atomic()).cast_mut(),
                    Ordering::Release,
                );
                let generation = slot.generation.fetch_add(1, Ordering::AcqRel) + 1;
                Tag {
                    slot: i,
                    generation,
                }
            }
            // Every slot busy (over a thousand executions at once): run uncounted.
            None => Tag::HOST,
        };
        set_state(ThreadState { tag, pending: 0 });
        Execution {
            tag,
            previous,
            _flag: flag.clone(),
            _not_send: std::marker::PhantomData,
        }
    }

    /// What this execution holds and has held so far.
    pub fn usage(&self) -> Usage {
        publish(self.tag);
        if self.tag.slot == 0 {
            return Usage::default();
        }
        let slot = &TABLE[self.tag.slot as usize];
        Usage {
            peak_bytes: u64::try_from(slot.peak.load(Ordering::Relaxed)).unwrap_or(0),
            exceeded: slot.exceeded.load(Ordering::Acquire),
        }
    }

    /// Whether the ceiling was crossed.
    pub fn exceeded(&self) -> bool {
        self.usage().exceeded
    }
}

impl Drop for Execution {
    fn drop(&mut self) {
        publish(self.tag);
        if self.tag.slot != 0 {
            let slot = &TABLE[self.tag.slot as usize];
            slot.flag.store(std::ptr::null_mut(), Ordering::Release);
            // Retire the generation: frees of blocks that outlive the execution (its
            // result, caches it filled) no longer count anywhere.
            slot.generation.fetch_add(1, Ordering::AcqRel);
            slot.in_use.store(false, Ordering::Release);
        }
        set_state(ThreadState {
            tag: self.previous,
            pending: 0,
        });
    }
}

/// Claim a free slot, searching round-robin from the last one handed out (so a slot is
/// reused as late as possible: a free racing with a reuse would need the whole table
/// to turn over in between).
fn claim() -> Option<u32> {
    let start = NEXT.fetch_add(1, Ordering::Relaxed);
    for k in 0..SLOTS as u32 {
        let i = (start.wrapping_add(k)) % SLOTS as u32;
        if i == 0 {
            continue;
        }
        if TABLE[i as usize]
            .in_use
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            NEXT.store(i.wrapping_add(1), Ordering::Relaxed);
            return Some(i);
        }
    }
    None
}

/// Whether the execution running on this thread may reserve `bytes` more at once
/// without crossing its ceiling. A refusal marks the ceiling crossed and raises the
/// execution's interrupt flag. Outside an execution everything is admitted. Installed as
/// core's reservation hook ([`install`]).
pub fn admits(bytes: u64) -> bool {
    let tag = current();
    if tag.slot == 0 {
        return true;
    }
    publish(tag);
    let slot = &TABLE[tag.slot as usize];
    let live = slot.live.load(Ordering::Relaxed);
    let wanted = i64::try_from(bytes).unwrap_or(i64::MAX);
    if live.saturating_add(wanted) > slot.ceiling.load(Ordering::Relaxed) {
        slot.exceed();
        return false;
    }
    true
}

/// Install the reservation check into the engine; the binaries call it at startup (with
/// the reaper's `install`, which frees big values off the execution thread).
pub fn install() {
    ajisai_core::limits::set_reserve_hook(admits);
    tune_allocator();
}

/// Let every thread allocate from glibc's one main arena: each further arena reserves
/// 64 MiB of address space, which a worker under an address-space limit
/// (the MCP server's process isolation) cannot spare. (glibc's malloc serves every block
/// in the portable build; in the native build, only the C library's own.)
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator; glibc allows it at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Blocks from this size on are pages of their own ([`big`]).
const MAPPED_FROM_BYTES: usize = 1 << 20;

/// Tune glibc's allocator so that no single free does unbounded work (the poll gap,
/// docs/reference/pricing-and-limits.md#calibration): no fast bins. A small freed block
/// waits in a fast bin unmerged until a big block is freed, and that free then merges
/// every one of them (`malloc_consolidate`): after a run freed a hundred thousand
/// frames, one free took milliseconds. Without fast bins a small free merges at once
/// (the per-thread cache still serves the hot sizes). Big blocks are mapped by the
/// counting allocator itself ([`big`]).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// glibc's `M_MXFAST` (malloc.h).
        const M_MXFAST: i32 = 1;
        // SAFETY: mallopt only sets a tunable of the allocator; glibc allows it at any
        // time, from any thread.
        unsafe {
            libc::mallopt(M_MXFAST, 0);
        }
    }
}

/// Whether this process counts allocations (the binaries install [`Counting`]; test
/// executables usually do not). Measured by watching one allocation.
pub fn counting() -> bool {
    let flag = InterruptFlag::new();
    let e = Execution::begin(u64::MAX, &flag);
    let block = std::hint::black_box(vec![0u8; (FLUSH_BYTES as usize) * 2]);
    let counted = e.usage().peak_bytes >= (FLUSH_BYTES as u64) * 2;
    drop(block);
    counted
}

/// Give freed memory back to the operating system (the allocator keeps it otherwise),
/// after an execution that held a lot.
pub fn give_back() {
    #[cfg(feature = "jemalloc")]
    {
        // This thread's cache first (the reaper's frees of a big run wait there), then the
        // free pages of every arena, whichever thread freed into them.
        for name in [&b"thread.tcache.flush\0"[..], &b"arena.4096.purge\0"[..]] {
            // SAFETY: both controls take no value and return none; `name` is a
            // NUL-terminated control name of jemalloc's (4096 is MALLCTL_ARENAS_ALL).
            unsafe {
                tikv_jemalloc_sys::mallctl(
                    name.as_ptr().cast(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    0,
                );
            }
        }
    }
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "jemalloc")))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only returns free pages of the heap to the system; it is
        // safe to call at any time from any thread.
        unsafe {
            malloc_trim(0);
        }
    }
}
