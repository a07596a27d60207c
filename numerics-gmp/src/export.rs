//! The plugin side: the root module this crate's cdylib exports.
//!
//! Each `extern "C"` entry runs the built-in GMP backend under `catch_unwind`, so a
//! panic never unwinds across the boundary: it becomes an `RErr` with its message,
//! which the loader turns into a backend fault of the host.

use crate::gmp::GMP;
use crate::interface::{Answer, IntArg, IntOut, NumericsModule, NumericsModuleRef};
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, ROk, RStr, RString, Tuple2};
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
    guard(|| IntOut::from_core(GMP.mul(a.to_core(), b.to_core())))
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
    guard(|| RString::from(GMP.to_decimal(a.to_core())))
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

/// The module this build offers, also usable in-process (tests drive the whole
/// interface through it without loading a file).
pub fn module() -> NumericsModuleRef {
    NumericsModule {
        kind,
        library,
        add,
        sub,
        mul,
        div_rem,
        div_exact,
        gcd,
        isqrt,
        to_decimal,
        parse_decimal,
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
