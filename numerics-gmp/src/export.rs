//! The plugin side: the root module this crate's cdylib exports.
//!
//! Each `extern "C"` entry runs the built-in GMP backend under `catch_unwind`, so a
//! panic never unwinds across the boundary: it becomes an `RErr` with its message,
//! which the loader turns into a backend fault of the host.

use crate::gmp::GMP;
use crate::interface::{
    Answer, HostAllocator, IntArg, IntOut, NumericsModule, NumericsModuleRef, RatArg, RatOut,
};
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, ROk, RSlice, RStr, RString, RVec, Tuple2};
use ajisai_core::numerics::Numerics;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`, turning a panic into the fault message the interface carries.
fn guard<T>(f: impl FnOnce() -> T) -> Answer<T> {
    // The closures only read their borrowed operands; nothing observable is left
    // half-updated by an unwind, so asserting unwind safety is sound.
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => ROk(v),
        Err(payload) => {
            let message = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "a panic without a message".to_string()
            };
            RErr(RString::from(format!("GMP plugin panicked: {message}")))
        }
    }
}

#[cfg(not(feature = "test-layout-mismatch"))]
extern "C" fn kind() -> RString {
    RString::from(GMP.kind().id())
}

#[cfg(feature = "test-layout-mismatch")]
extern "C" fn kind(_: u32) -> u64 {
    0
}

extern "C" fn set_allocator(host: HostAllocator) -> Answer<()> {
    guard(|| crate::gmp::install_allocator(host.alloc, host.realloc, host.free))
}

extern "C" fn library() -> Answer<RString> {
    guard(|| RString::from(GMP.library()))
}

extern "C" fn add(a: IntArg<'_>, b: IntArg<'_>) -> Answer<IntOut> {
    guard(|| IntOut::from_core(GMP.add(a.to_core(), b.to_core())))
}

extern "C" fn sub(a: IntArg<'_>, b: IntArg<'_>) -> Answer<IntOut> {
    guard(|| IntOut::from_core(GMP.sub(a.to_core(), b.to_core())))
}

extern "C" fn mul(a: IntArg<'_>, b: IntArg<'_>) -> Answer<IntOut> {
    guard(|| {
        #[cfg(feature = "test-faults")]
        faults::panic_on_cue(a, b);
        IntOut::from_core(GMP.mul(a.to_core(), b.to_core()))
    })
}

extern "C" fn mul_word(a: RSlice<'_, u64>, m: u64) -> Answer<RVec<u64>> {
    guard(|| {
        #[cfg(feature = "test-faults")]
        faults::panic_on_cue(
            IntArg {
                negative: false,
                limbs: a,
            },
            IntArg {
                negative: false,
                limbs: RSlice::from_slice(std::slice::from_ref(&m)),
            },
        );
        RVec::from(GMP.mul_word(a.as_slice(), m))
    })
}

extern "C" fn div_rem(a: IntArg<'_>, b: IntArg<'_>) -> Answer<Tuple2<IntOut, IntOut>> {
    guard(|| {
        if b.limbs.is_empty() {
            // GMP would abort the whole process on a zero divisor; a contract
            // violation must stay a fault of this call.
            panic!("division by zero reached the backend");
        }
        let (q, r) = GMP.div_rem(a.to_core(), b.to_core());
        Tuple2(IntOut::from_core(q), IntOut::from_core(r))
    })
}

extern "C" fn div_exact(a: IntArg<'_>, b: IntArg<'_>) -> Answer<IntOut> {
    guard(|| {
        if b.limbs.is_empty() {
            panic!("division by zero reached the backend");
        }
        IntOut::from_core(GMP.div_exact(a.to_core(), b.to_core()))
    })
}

extern "C" fn gcd(a: IntArg<'_>, b: IntArg<'_>) -> Answer<IntOut> {
    guard(|| IntOut::from_core(GMP.gcd(a.to_core(), b.to_core())))
}

extern "C" fn isqrt(a: IntArg<'_>) -> Answer<IntOut> {
    guard(|| IntOut::from_core(GMP.isqrt(a.to_core())))
}

extern "C" fn to_decimal(a: IntArg<'_>) -> Answer<RString> {
    guard(|| {
        let text = GMP.to_decimal(a.to_core());
        #[cfg(feature = "test-faults")]
        let text = faults::malformed_on_cue(text);
        RString::from(text)
    })
}

/// Faults on cue, only in plugins built with the `test-faults` feature: hosts use such a
/// plugin to test that a faulting plugin is contained (MCP-13; docs/mcp/index.md). A product build
/// never has this module.
#[cfg(feature = "test-faults")]
pub mod faults {
    use super::{IntArg, GMP};
    use ajisai_core::numerics::Numerics;

    /// `mul` with this operand panics inside the plugin (a `backendFailure` for hosts).
    pub const PANIC_ON_MUL: &str = "1000000000000000000000000000001";
    /// `to_decimal` of this value answers text that is no decimal integer (a
    /// `malformedBackendResponse` for hosts).
    pub const MALFORMED_DECIMAL: &str = "1000000000000000000000000000002";

    pub(super) fn panic_on_cue(a: IntArg<'_>, b: IntArg<'_>) {
        for x in [a, b] {
            if GMP.to_decimal(x.to_core()) == PANIC_ON_MUL {
                panic!("injected fault: mul of {PANIC_ON_MUL}");
            }
        }
    }

    pub(super) fn malformed_on_cue(text: String) -> String {
        if text == MALFORMED_DECIMAL {
            "1e30+2".to_string()
        } else {
            text
        }
    }
}

extern "C" fn parse_decimal(digits: RStr<'_>) -> Answer<IntOut> {
    guard(|| {
        let digits = digits.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            panic!("parse_decimal expects ASCII digits, got {digits:?}");
        }
        IntOut::from_core(GMP.parse_decimal(digits))
    })
}

extern "C" fn rat_add(a: RatArg<'_>, b: RatArg<'_>) -> Answer<RatOut> {
    guard(|| RatOut::from_core(GMP.rat_add(a.to_core(), b.to_core())))
}

extern "C" fn rat_sub(a: RatArg<'_>, b: RatArg<'_>) -> Answer<RatOut> {
    guard(|| RatOut::from_core(GMP.rat_sub(a.to_core(), b.to_core())))
}

extern "C" fn rat_mul(a: RatArg<'_>, b: RatArg<'_>) -> Answer<RatOut> {
    guard(|| RatOut::from_core(GMP.rat_mul(a.to_core(), b.to_core())))
}

extern "C" fn rat_div(a: RatArg<'_>, b: RatArg<'_>) -> Answer<RatOut> {
    // The backend refuses a zero divisor with a panic (GMP itself would raise SIGFPE).
    guard(|| RatOut::from_core(GMP.rat_div(a.to_core(), b.to_core())))
}

extern "C" fn rat_cmp(a: RatArg<'_>, b: RatArg<'_>) -> Answer<i8> {
    guard(|| GMP.rat_cmp(a.to_core(), b.to_core()) as i8)
}

extern "C" fn rat_canonical(num: IntArg<'_>, den: IntArg<'_>) -> Answer<RatOut> {
    guard(|| RatOut::from_core(GMP.rat_canonical(num.to_core(), den.to_core())))
}

/// The module this build offers, also usable in-process (tests drive the whole
/// interface through it without loading a file).
pub fn module() -> NumericsModuleRef {
    NumericsModule {
        kind,
        library,
        add,
        sub,
        mul,
        mul_word,
        div_rem,
        div_exact,
        gcd,
        isqrt,
        to_decimal,
        parse_decimal,
        set_allocator,
        rat_add,
        rat_sub,
        rat_mul,
        rat_div,
        rat_cmp,
        rat_canonical,
    }
    .leak_into_prefix()
}

/// The exported root module; `abi_stable` checks its layout before calling this.
#[cfg(feature = "plugin")]
#[allow(unsafe_code)] // `export_root_module` emits the `#[no_mangle]` header static
mod exported {
    use super::*;

    #[abi_stable::export_root_module]
    fn instantiate_root_module() -> NumericsModuleRef {
        module()
    }
}
