//! The GMP backend: `Numerics` on `rug::Integer`.
//!
//! Integers cross as sign plus 64-bit limbs (`IntRef`/`IntBuf`); `rug` imports and
//! exports them in one pass each, so results depend on the operands alone and are
//! identical to every other backend's.

use ajisai_core::numerics::{BackendKind, BackendRegistration, IntBuf, IntRef, Numerics};
use rug::integer::Order;
use rug::{Complete, Integer};
use std::sync::OnceLock;

/// The GMP backend.
#[derive(Debug, Default)]
pub struct Gmp;

/// The one instance.
pub static GMP: Gmp = Gmp;

/// Priority under `auto`: above `pure` (10).
pub const PRIORITY: u32 = 20;

fn to_integer(x: IntRef<'_>) -> Integer {
    let mag = Integer::from_digits(x.limbs, Order::Lsf);
    if x.negative {
        -mag
    } else {
        mag
    }
}

fn from_integer(x: &Integer) -> IntBuf {
    IntBuf {
        negative: x.is_negative(),
        limbs: x.to_digits::<u64>(Order::Lsf),
    }
    .normalize()
}

/// The version of the GMP this code runs on, as `major.minor.patch`.
///
/// Read from the library itself (`gmp_version`), not from the headers it was
/// compiled against, so a plugin reports the GMP it actually carries.
pub fn gmp_version() -> String {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            // SAFETY: `gmp_version` is a constant NUL-terminated string GMP initializes
            // statically; it is never written to.
            #[allow(unsafe_code)]
            let text = unsafe { std::ffi::CStr::from_ptr(gmp_mpfr_sys::gmp::version) }
                .to_string_lossy()
                .into_owned();
            let mut parts: Vec<&str> = text.split('.').collect();
            // GMP documents the form "i.j.k"; pad defensively so callers always see three parts.
            while parts.len() < 3 {
                parts.push("0");
            }
            parts.join(".")
        })
        .clone()
}

impl Numerics for Gmp {
    fn kind(&self) -> BackendKind {
        BackendKind::Gmp
    }

    fn library(&self) -> String {
        format!("GMP {}", gmp_version())
    }

    fn add(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_integer(&(to_integer(a) + to_integer(b)))
    }

    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_integer(&(to_integer(a) - to_integer(b)))
    }

    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        from_integer(&(to_integer(a) * to_integer(b)))
    }

    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf) {
        // rug's div_rem truncates toward zero; the remainder takes the dividend's sign.
        let (q, r) = to_integer(a).div_rem(to_integer(b));
        (from_integer(&q), from_integer(&r))
    }

    fn div_exact(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        let (a, b) = (to_integer(a), to_integer(b));
        from_integer(&a.div_exact_ref(&b).complete())
    }

    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        let (a, b) = (to_integer(a), to_integer(b));
        from_integer(&a.gcd_ref(&b).complete())
    }

    fn isqrt(&self, a: IntRef<'_>) -> IntBuf {
        // The contract passes a ≥ 0; the magnitude keeps GMP away from a negative root.
        let a = Integer::from_digits(a.limbs, Order::Lsf);
        from_integer(&a.sqrt())
    }

    fn to_decimal(&self, a: IntRef<'_>) -> String {
        to_integer(a).to_string_radix(10)
    }

    fn parse_decimal(&self, digits: &str) -> IntBuf {
        let v = Integer::from_str_radix(digits, 10).expect("callers pass ASCII digits only");
        from_integer(&v)
    }
}

fn get() -> &'static dyn Numerics {
    &GMP
}

inventory::submit! {
    BackendRegistration { kind: BackendKind::Gmp, priority: PRIORITY, get }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(negative: bool, limbs: &[u64]) -> IntBuf {
        IntBuf {
            negative,
            limbs: limbs.to_vec(),
        }
    }

    #[test]
    fn round_trips_limbs() {
        let x = buf(true, &[1, 2, 3]);
        assert_eq!(from_integer(&to_integer(x.as_ref())), x);
        let zero = IntRef {
            negative: false,
            limbs: &[],
        };
        assert_eq!(from_integer(&to_integer(zero)), IntBuf::default());
    }

    #[test]
    fn truncating_division() {
        let (q, r) = GMP.div_rem(buf(true, &[7]).as_ref(), buf(false, &[2]).as_ref());
        assert_eq!(q, buf(true, &[3]));
        assert_eq!(r, buf(true, &[1]));
        let (q, r) = GMP.div_rem(buf(false, &[7]).as_ref(), buf(true, &[2]).as_ref());
        assert_eq!(q, buf(true, &[3]));
        assert_eq!(r, buf(false, &[1]));
    }

    #[test]
    fn decimal_text() {
        let x = GMP.parse_decimal("340282366920938463463374607431768211456");
        assert_eq!(x, buf(false, &[0, 0, 1]));
        assert_eq!(
            GMP.to_decimal(x.as_ref()),
            "340282366920938463463374607431768211456"
        );
        assert_eq!(GMP.to_decimal(buf(true, &[5]).as_ref()), "-5");
        assert_eq!(GMP.to_decimal(IntBuf::default().as_ref()), "0");
    }

    #[test]
    fn library_names_the_running_gmp() {
        let lib = GMP.library();
        let version = lib.strip_prefix("GMP ").expect("starts with GMP");
        let parts: Vec<&str> = version.split('.').collect();
        assert_eq!(parts.len(), 3, "{lib}");
        assert!(parts.iter().all(|p| p.parse::<u32>().is_ok()), "{lib}");
        assert_eq!(
            parts[0].parse::<i32>().ok(),
            Some(gmp_mpfr_sys::gmp::VERSION),
            "the linked GMP's major version matches its headers"
        );
    }
}
