//! `ajisai-numerics-gmp`: the GMP big-integer backend (through `rug`), built in or
//! loaded at run time as a plugin.
//!
//! Three roles, one crate, chosen by features:
//! - [`interface`] and [`loader`] (always): the `abi_stable` root module a plugin
//!   exports, and the host code that loads, checks and serves one. They need no GMP, so
//!   the portable server links them and still accepts a plugin.
//! - `backend`: the built-in backend ([`Gmp`]), registered with `inventory` as `gmp`
//!   with priority [`PRIORITY`] (above `pure`), reporting the run-time GMP version.
//! - `plugin`: the cdylib exports the root module, so
//!   `AJISAI_NUMERICS_PLUGIN=<path to libajisai_numerics_gmp.so>` loads it.
//!
//! The crate never depends on the vocabulary (`ajisai-words`).

pub mod alloc;
pub mod interface;
pub mod loader;

#[cfg(feature = "backend")]
mod gmp;
#[cfg(feature = "backend")]
pub use gmp::{gmp_version, Gmp, GMP, PRIORITY};

#[cfg(feature = "backend")]
pub mod export;

pub use interface::INTERFACE_VERSION;
pub use loader::{load, BackendFault, FaultKind, LoadError, Plugin};

/// Route the built-in GMP's allocations through the process's global allocator (once;
/// later calls do nothing). Hosts call it first thing, before GMP allocates anything:
/// a block GMP got from malloc must not be freed through the new functions. Without the
/// `backend` feature there is no built-in GMP and this does nothing.
pub fn route_allocations() {
    #[cfg(feature = "backend")]
    gmp::route_allocations();
}

/// Make sure this crate is linked (its registration is found through `inventory`).
/// Without the `backend` feature there is nothing to register and this does nothing.
pub fn link() {}

/// Whether the built-in GMP backend is compiled into this build.
pub const BUILTIN: bool = cfg!(feature = "backend");
