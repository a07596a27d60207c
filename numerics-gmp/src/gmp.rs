//! The GMP backend: `Numerics` on `rug::Integer`.
//!
//! Integers cross as sign plus 64-bit limbs (`IntRef`/`IntBuf`). Operands are not
//! copied: GMP reads them in place through read-only views of the caller's limbs (the
//! layout `mpz_roinit_n` documents); results are copied out once. Squaring is detected
//! (both operands the same magnitude) and done with GMP's faster squaring. Results are
//! computed into per-thread scratch integers whose storage is reused, so an operation
//! costs one allocation (the result's limbs) rather than three. Results
//! depend on the operands alone and are identical to every other backend's.

use ajisai_core::numerics::{
    BackendKind, BackendRegistration, IntBuf, IntRef, Numerics, RatBuf, RatRef,
};
use gmp_mpfr_sys::gmp;
use rug::integer::{BorrowInteger, Order};
use rug::ops::NegAssign;
use rug::{Assign, Integer, Rational};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::ptr::NonNull;
use std::sync::OnceLock;

/// The GMP backend.
#[derive(Debug, Default)]
pub struct Gmp;

/// The one instance.
pub static GMP: Gmp = Gmp;

/// Priority under `auto`: above `pure` (10).
pub const PRIORITY: u32 = 20;

/// Whether GMP's limbs are our 64-bit limbs, so operands can be viewed in place.
const NATIVE_LIMBS: bool =
    gmp::LIMB_BITS == 64 && std::mem::size_of::<gmp::limb_t>() == std::mem::size_of::<u64>();

/// A read-only GMP view of `x`'s limbs (no copy), or an imported copy where the limb
/// layouts differ or the size does not fit GMP's `int` size field.
enum View<'a> {
    Borrowed(BorrowInteger<'a>),
    Owned(Integer),
}

impl std::ops::Deref for View<'_> {
    type Target = Integer;
    fn deref(&self) -> &Integer {
        match self {
            View::Borrowed(b) => b,
            View::Owned(i) => i,
        }
    }
}

/// A limb GMP may point a zero-size view at (it never reads it).
static ZERO_LIMB: u64 = 0;

fn view(x: IntRef<'_>) -> View<'_> {
    let size = i32::try_from(x.limbs.len()).ok();
    match size {
        Some(n) if NATIVE_LIMBS => {
            let ptr = if x.limbs.is_empty() {
                &ZERO_LIMB as *const u64
            } else {
                x.limbs.as_ptr()
            };
            let raw = gmp::mpz_t {
                // alloc 0 marks limbs GMP does not own (as `mpz_roinit_n` sets it); the
                // view is only ever read, never resized or freed.
                alloc: 0,
                size: if x.negative { -n } else { n },
                d: NonNull::new(ptr.cast_mut().cast::<gmp::limb_t>())
                    .unwrap_or(NonNull::dangling()),
            };
            // SAFETY: `raw` describes `x.limbs` (normalized: no high zero limb, zero has
            // size 0) with GMP's limb layout (NATIVE_LIMBS). The borrow lives no longer
            // than `x.limbs` (the lifetime of the returned view), and `BorrowInteger`
            // only hands out `&Integer`, so GMP never writes through it or frees it.
            #[allow(unsafe_code)]
            View::Borrowed(unsafe { BorrowInteger::from_raw(raw) })
        }
        _ => {
            let mag = Integer::from_digits(x.limbs, Order::Lsf);
            View::Owned(if x.negative { -mag } else { mag })
        }
    }
}

thread_local! {
    /// Result storage reused across operations on this thread (its capacity persists).
    static SCRATCH: RefCell<(Integer, Integer)> =
        const { RefCell::new((Integer::new(), Integer::new())) };
}

thread_local! {
    /// The rational result storage reused across operations on this thread.
    static RATIONAL: RefCell<Rational> = RefCell::new(Rational::new());
}

/// Call `f` with a read-only GMP rational made of the views of `x`'s parts (no copy).
fn with_mpq<R>(x: RatRef<'_>, f: impl FnOnce(*const gmp::mpq_t) -> R) -> R {
    let (num, den) = (view(x.num), view(x.den));
    // SAFETY: `as_raw` points at the live views; the struct copies describe the same
    // limbs, which outlive `f` (the views are dropped after it). GMP only reads a source
    // operand, so it never resizes or frees them.
    #[allow(unsafe_code)]
    let raw = unsafe {
        gmp::mpq_t {
            num: *num.as_raw(),
            den: *den.as_raw(),
        }
    };
    f(&raw)
}

/// A GMP rational operation (`mpq_add` and its kin).
type MpqOp = unsafe extern "C" fn(*mut gmp::mpq_t, *const gmp::mpq_t, *const gmp::mpq_t);

/// `op(a, b)` into the thread's scratch rational, copied out.
fn rational_op(op: MpqOp, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
    with_mpq(a, |qa| {
        with_mpq(b, |qb| {
            RATIONAL.with(|q| {
                let mut q = q.borrow_mut();
                // SAFETY: the operands are canonical read-only rationals (the trait's
                // contract: lowest terms, positive denominator, as GMP's `mpq` functions
                // require) and the result is this thread's own initialized rational.
                #[allow(unsafe_code)]
                unsafe {
                    op(q.as_raw_mut(), qa, qb)
                };
                from_rational(&q)
            })
        })
    })
}

fn from_rational(q: &Rational) -> RatBuf {
    RatBuf {
        num: from_integer(q.numer()),
        den: from_integer(q.denom()),
    }
}

/// Compute into the thread's scratch integer and copy the result out.
fn into_scratch(f: impl FnOnce(&mut Integer)) -> IntBuf {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        f(&mut s.0);
        from_integer(&s.0)
    })
}

fn from_integer(x: &Integer) -> IntBuf {
    let limbs = if NATIVE_LIMBS {
        let raw = x.as_raw();
        // SAFETY: `x` is a live, initialized Integer; its first |size| limbs are
        // initialized and `limb_t` is `u64` (NATIVE_LIMBS). The slice is copied before
        // `x` can change.
        #[allow(unsafe_code)]
        let limbs = unsafe {
            let n = (*raw).size.unsigned_abs() as usize;
            std::slice::from_raw_parts((*raw).d.as_ptr().cast::<u64>().cast_const(), n).to_vec()
        };
        limbs
    } else {
        x.to_digits::<u64>(Order::Lsf)
    };
    IntBuf {
        negative: x.is_negative(),
        limbs,
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
        into_scratch(|r| r.assign(&*view(a) + &*view(b)))
    }

    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        into_scratch(|r| r.assign(&*view(a) - &*view(b)))
    }

    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        let (va, vb) = (view(a), view(b));
        // Same magnitude: GMP squares faster than it multiplies (binary exponentiation
        // squares at every step). The sign of a·(±a) is the operands' sign product.
        let same = a.limbs.len() == b.limbs.len()
            && (std::ptr::eq(a.limbs.as_ptr(), b.limbs.as_ptr()) || a.limbs == b.limbs);
        into_scratch(|r| {
            if same {
                r.assign(va.square_ref());
                if a.negative != b.negative {
                    r.neg_assign();
                }
            } else {
                r.assign(&*va * &*vb);
            }
        })
    }

    fn mul_word(&self, a: &[u64], m: u64) -> Vec<u64> {
        if !NATIVE_LIMBS || a.is_empty() {
            return ajisai_core::number::int::mul_limbs_u64(a, m);
        }
        // GMP's `mpn_mul_1` straight into the result's buffer: its assembly loop is a
        // quarter faster than core's, and nothing is copied out of a scratch integer.
        let mut out: Vec<u64> = Vec::with_capacity(a.len() + 1);
        // SAFETY: `out` has room for `a.len()` limbs, which `mpn_mul_1` writes (and only
        // those), reading the `a.len()` ≥ 1 limbs of `a`, which it does not overlap; the
        // limbs are GMP's (NATIVE_LIMBS). Its return value is the carry limb.
        #[allow(unsafe_code)]
        let carry = unsafe {
            let carry = gmp::mpn_mul_1(
                out.as_mut_ptr().cast::<gmp::limb_t>(),
                a.as_ptr().cast::<gmp::limb_t>(),
                a.len() as gmp::size_t,
                m as gmp::limb_t,
            );
            out.set_len(a.len());
            carry
        };
        if carry != 0 {
            out.push(carry as u64);
        }
        out
    }

    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf) {
        // Truncating: the quotient rounds toward zero, the remainder takes the
        // dividend's sign.
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            let (q, r) = &mut *s;
            (&mut *q, &mut *r).assign(view(a).div_rem_ref(&view(b)));
            (from_integer(q), from_integer(r))
        })
    }

    fn div_exact(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        into_scratch(|r| r.assign(view(a).div_exact_ref(&view(b))))
    }

    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        into_scratch(|r| r.assign(view(a).gcd_ref(&view(b))))
    }

    fn isqrt(&self, a: IntRef<'_>) -> IntBuf {
        // The contract passes a ≥ 0; the magnitude keeps GMP away from a negative root.
        let magnitude = IntRef {
            negative: false,
            limbs: a.limbs,
        };
        into_scratch(|r| r.assign(view(magnitude).sqrt_ref()))
    }

    fn to_decimal(&self, a: IntRef<'_>) -> String {
        view(a).to_string_radix(10)
    }

    fn parse_decimal(&self, digits: &str) -> IntBuf {
        let v = Integer::from_str_radix(digits, 10).expect("callers pass ASCII digits only");
        from_integer(&v)
    }

    fn rat_add(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational_op(gmp::mpq_add, a, b)
    }

    fn rat_sub(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational_op(gmp::mpq_sub, a, b)
    }

    fn rat_mul(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        rational_op(gmp::mpq_mul, a, b)
    }

    fn rat_div(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        // GMP would raise SIGFPE and take the process down; the contract's breach must
        // stay a panic of this call.
        assert!(
            !b.num.limbs.is_empty(),
            "division by zero reached the backend"
        );
        rational_op(gmp::mpq_div, a, b)
    }

    fn rat_cmp(&self, a: RatRef<'_>, b: RatRef<'_>) -> Ordering {
        // SAFETY: both are canonical read-only rationals, only read by `mpq_cmp`.
        #[allow(unsafe_code)]
        let sign = with_mpq(a, |qa| with_mpq(b, |qb| unsafe { gmp::mpq_cmp(qa, qb) }));
        sign.cmp(&0)
    }

    fn rat_canonical(&self, num: IntRef<'_>, den: IntRef<'_>) -> RatBuf {
        assert!(
            !den.limbs.is_empty(),
            "a zero denominator reached the backend"
        );
        let (n, d) = (view(num), view(den));
        RATIONAL.with(|q| {
            let mut q = q.borrow_mut();
            // Canonicalizes (divides by the gcd, makes the denominator positive) on return.
            q.mutate_numer_denom(|qn, qd| {
                qn.assign(&*n);
                qd.assign(&*d);
            });
            from_rational(&q)
        })
    }
}

fn get() -> &'static dyn Numerics {
    route_allocations();
    &GMP
}

/// Install [`crate::alloc`]'s functions as GMP's allocator, once.
pub(crate) fn route_allocations() {
    install_allocator(
        crate::alloc::gmp_alloc,
        crate::alloc::gmp_realloc,
        crate::alloc::gmp_free,
    );
}

/// Install these functions as GMP's allocator. Only the first installation of the
/// process takes effect: GMP must free every block with the functions that allocated it.
pub(crate) fn install_allocator(
    alloc: extern "C" fn(usize) -> *mut std::ffi::c_void,
    realloc: unsafe extern "C" fn(*mut std::ffi::c_void, usize, usize) -> *mut std::ffi::c_void,
    free: unsafe extern "C" fn(*mut std::ffi::c_void, usize),
) {
    static ROUTED: std::sync::Once = std::sync::Once::new();
    ROUTED.call_once(|| {
        // SAFETY: GMP's documented way to replace its allocator. Hosts call this before
        // GMP allocates; where GMP did allocate before (tests linking the backend
        // directly, with no counting allocator), both allocators are the same malloc
        // underneath, so blocks stay compatible.
        #[allow(unsafe_code)]
        unsafe {
            gmp::set_memory_functions(Some(alloc), Some(realloc), Some(free));
        }
    });
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
        assert_eq!(from_integer(&view(x.as_ref())), x);
        let zero = IntRef {
            negative: false,
            limbs: &[],
        };
        assert_eq!(from_integer(&view(zero)), IntBuf::default());
        assert_eq!(*view(zero), 0);
        assert_eq!(*view(buf(true, &[5]).as_ref()), -5);
    }

    #[test]
    fn squares_and_products_agree() {
        let a = buf(false, &[u64::MAX, 7, 1]);
        let neg = buf(true, &[u64::MAX, 7, 1]);
        let square = GMP.mul(a.as_ref(), a.as_ref());
        assert_eq!(GMP.mul(neg.as_ref(), neg.as_ref()), square);
        let mixed = GMP.mul(a.as_ref(), neg.as_ref());
        assert!(mixed.negative);
        assert_eq!(mixed.limbs, square.limbs);
        // Equal magnitudes in different buffers take the squaring path too.
        let copy = a.clone();
        assert_eq!(GMP.mul(a.as_ref(), copy.as_ref()), square);
        let other = buf(false, &[1, 7, 1]);
        let p = GMP.mul(a.as_ref(), other.as_ref());
        assert_eq!(
            *view(p.as_ref()),
            Integer::from(&*view(a.as_ref()) * &*view(other.as_ref()))
        );
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
