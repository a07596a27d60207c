//! The plugin interface: the `abi_stable` root module a GMP plugin exports and the
//! FFI-safe integer types that cross it. Compiled in every build (it needs no GMP), so
//! the portable server can load a plugin without linking GMP itself.
//!
//! The module is a prefix type: fields may only be appended after
//! `#[sabi(last_prefix_field)]`, and any other change bumps [`INTERFACE_VERSION`]'s
//! major number. The loader refuses a plugin whose interface major differs from its
//! own, and `abi_stable` refuses one whose module layout differs.
//!
//! Every function returns [`Answer`]: `RErr` carries the message of a fault inside the
//! plugin (a panic caught at its `extern "C"` boundary), never a language result.

use std::ffi::c_void;

use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    sabi_types::VersionStrings,
    std_types::{RResult, RSlice, RStr, RString, RVec, Tuple2},
    StableAbi,
};

/// The interface version this build speaks (`major.minor.patch`).
///
/// 2.0.0 added the rational operations and the product by a machine word (a plugin of
/// 1.x lacks them and is refused).
#[cfg(not(feature = "test-interface-mismatch"))]
pub const INTERFACE_VERSION: &str = "2.0.0";
/// The previous interface version, for the mismatch tests only: a build with this feature
/// plays a plugin built before 2.0.0.
#[cfg(feature = "test-interface-mismatch")]
pub const INTERFACE_VERSION: &str = "1.1.0";

/// What to do about a plugin of another interface version (the last words of the
/// loader's refusal and of `--doctor`'s).
pub const REBUILD_ADVICE: &str = "rebuild the plugin from the sources of this Ajisai release (cargo build --release -p ajisai-numerics-gmp) or install the plugin shipped with it";

/// The file name stem `abi_stable` derives library names from (`libajisai_numerics_gmp.so`).
pub const LIBRARY_BASE_NAME: &str = "ajisai_numerics_gmp";

/// A borrowed integer crossing the boundary: sign and little-endian 64-bit limbs
/// without high zero limbs (zero is the empty slice).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct IntArg<'a> {
    /// True for a negative value.
    pub negative: bool,
    /// Magnitude limbs, least significant first.
    pub limbs: RSlice<'a, u64>,
}

/// An owned integer crossing the boundary, in the form of [`IntArg`].
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default)]
pub struct IntOut {
    /// True for a negative value.
    pub negative: bool,
    /// Magnitude limbs, least significant first.
    pub limbs: RVec<u64>,
}

/// What a plugin function answers: its result, or the message of a fault it caught.
pub type Answer<T> = RResult<T, RString>;

/// The root module of a numeric plugin: one `extern "C"` function per operation of
/// `ajisai_core::numerics::Numerics`, with the same contracts.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = NumericsModuleRef)))]
#[sabi(missing_field(panic))]
pub struct NumericsModule {
    /// The backend kind's id; `gmp` for this crate.
    #[cfg(not(feature = "test-layout-mismatch"))]
    pub kind: extern "C" fn() -> RString,
    /// A different signature, for the layout-mismatch tests only.
    #[cfg(feature = "test-layout-mismatch")]
    pub kind: extern "C" fn(u32) -> u64,
    /// The library and the version it runs on, e.g. `GMP 6.3.0`.
    pub library: extern "C" fn() -> Answer<RString>,
    /// a + b
    pub add: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<IntOut>,
    /// a − b
    pub sub: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<IntOut>,
    /// a · b
    pub mul: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<IntOut>,
    /// The limbs of |a|·m for a machine word m ≥ 1 (`Numerics::mul_word`).
    pub mul_word: extern "C" fn(RSlice<'_, u64>, u64) -> Answer<RVec<u64>>,
    /// (a / b truncated, a − b·q); b ≠ 0.
    pub div_rem: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<Tuple2<IntOut, IntOut>>,
    /// a / b where b divides a exactly; b ≠ 0.
    pub div_exact: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<IntOut>,
    /// gcd(|a|, |b|).
    pub gcd: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<IntOut>,
    /// ⌊√a⌋ for a ≥ 0.
    pub isqrt: extern "C" fn(IntArg<'_>) -> Answer<IntOut>,
    /// Decimal text, `-` for negatives.
    pub to_decimal: extern "C" fn(IntArg<'_>) -> Answer<RString>,
    /// Parse a non-empty string of ASCII digits (no sign).
    pub parse_decimal: extern "C" fn(RStr<'_>) -> Answer<IntOut>,
    /// Since 1.1.0: allocate everything the plugin's GMP allocates through the host's
    /// functions, so the host counts it (its `memoryBytes` ceiling). The host calls it
    /// once, right after loading, before any other function.
    pub set_allocator: extern "C" fn(HostAllocator) -> Answer<()>,
    /// Since 2.0.0: a + b for canonical rationals (and the same for the rest below).
    pub rat_add: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<RatOut>,
    /// a − b
    pub rat_sub: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<RatOut>,
    /// a · b
    pub rat_mul: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<RatOut>,
    /// a / b; b ≠ 0.
    pub rat_div: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<RatOut>,
    /// The sign of a − b: −1, 0 or 1.
    pub rat_cmp: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<i8>,
    /// num/den in lowest terms with a positive denominator; den ≠ 0.
    #[sabi(last_prefix_field)]
    pub rat_canonical: extern "C" fn(IntArg<'_>, IntArg<'_>) -> Answer<RatOut>,
}

/// A borrowed rational crossing the boundary: lowest terms, positive denominator.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct RatArg<'a> {
    /// The numerator.
    pub num: IntArg<'a>,
    /// The denominator.
    pub den: IntArg<'a>,
}

/// An owned rational crossing the boundary, in the form of [`RatArg`].
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default)]
pub struct RatOut {
    /// The numerator.
    pub num: IntOut,
    /// The denominator.
    pub den: IntOut,
}

impl<'a> RatArg<'a> {
    /// The boundary form of a core rational view.
    pub fn from_core(x: ajisai_core::numerics::RatRef<'a>) -> RatArg<'a> {
        RatArg {
            num: IntArg::from_core(x.num),
            den: IntArg::from_core(x.den),
        }
    }

    /// The core view of this rational.
    pub fn to_core(self) -> ajisai_core::numerics::RatRef<'a> {
        ajisai_core::numerics::RatRef {
            num: self.num.to_core(),
            den: self.den.to_core(),
        }
    }
}

impl RatOut {
    /// The boundary form of a core result.
    pub fn from_core(x: ajisai_core::numerics::RatBuf) -> RatOut {
        RatOut {
            num: IntOut::from_core(x.num),
            den: IntOut::from_core(x.den),
        }
    }
}

/// The host's allocation functions, with the signatures of GMP's custom allocators
/// (`crate::alloc`'s functions, compiled into the host).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct HostAllocator {
    /// Allocate `size` bytes.
    pub alloc: extern "C" fn(usize) -> *mut c_void,
    /// Resize a block from its old size to a new one.
    pub realloc: unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void,
    /// Free a block of the given size.
    pub free: unsafe extern "C" fn(*mut c_void, usize),
}

impl HostAllocator {
    /// This process's allocation functions ([`crate::alloc`]).
    pub fn this_process() -> HostAllocator {
        HostAllocator {
            alloc: crate::alloc::gmp_alloc,
            realloc: crate::alloc::gmp_realloc,
            free: crate::alloc::gmp_free,
        }
    }
}

impl RootModule for NumericsModuleRef {
    declare_root_module_statics! {NumericsModuleRef}
    const BASE_NAME: &'static str = LIBRARY_BASE_NAME;
    const NAME: &'static str = "ajisai numeric plugin";
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(INTERFACE_VERSION);
}

impl<'a> IntArg<'a> {
    /// The boundary form of a core integer view.
    pub fn from_core(x: ajisai_core::numerics::IntRef<'a>) -> IntArg<'a> {
        IntArg {
            negative: x.negative,
            limbs: RSlice::from_slice(x.limbs),
        }
    }

    /// The core view of this integer.
    pub fn to_core(self) -> ajisai_core::numerics::IntRef<'a> {
        ajisai_core::numerics::IntRef {
            negative: self.negative,
            limbs: self.limbs.as_slice(),
        }
    }
}

impl IntOut {
    /// The boundary form of a core result.
    pub fn from_core(x: ajisai_core::numerics::IntBuf) -> IntOut {
        IntOut {
            negative: x.negative,
            limbs: RVec::from(x.limbs),
        }
    }

    /// The core form of this result (normalized: no high zero limb, no negative zero).
    pub fn into_core(self) -> ajisai_core::numerics::IntBuf {
        ajisai_core::numerics::IntBuf {
            negative: self.negative,
            limbs: self.limbs.into_vec(),
        }
        .normalize()
    }
}
