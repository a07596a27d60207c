//! Values that fit machine integers never reach the numeric backend: small
//! arithmetic runs inline (ARCHITECTURE.md, "number"). A counting backend wraps the
//! pure one; small programs must make no call, a big one must.

use ajisai_core::engine::{compute, Options};
use ajisai_core::numerics::{with_backend, BackendKind, IntBuf, IntRef, Numerics, RatBuf, RatRef};
use ajisai_core::Profile;
use std::cell::Cell;
use std::cmp::Ordering;

/// Delegates to the pure backend and counts calls made from the current thread
/// (tests run in parallel; each counts only its own programs).
struct Counting;

static COUNTING: Counting = Counting;

thread_local! {
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

impl Counting {
    fn tick(&self) -> &'static dyn Numerics {
        CALLS.with(|c| c.set(c.get() + 1));
        &ajisai_numerics_pure::PURE
    }
}

impl Numerics for Counting {
    fn kind(&self) -> BackendKind {
        BackendKind::Pure
    }
    fn library(&self) -> String {
        "counting".into()
    }
    fn add(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.tick().add(a, b)
    }
    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.tick().sub(a, b)
    }
    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.tick().mul(a, b)
    }
    fn mul_word(&self, a: &[u64], m: u64) -> Vec<u64> {
        self.tick().mul_word(a, m)
    }
    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf) {
        self.tick().div_rem(a, b)
    }
    fn div_exact(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.tick().div_exact(a, b)
    }
    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.tick().gcd(a, b)
    }
    fn isqrt(&self, a: IntRef<'_>) -> IntBuf {
        self.tick().isqrt(a)
    }
    fn to_decimal(&self, a: IntRef<'_>) -> String {
        self.tick().to_decimal(a)
    }
    fn parse_decimal(&self, digits: &str) -> IntBuf {
        self.tick().parse_decimal(digits)
    }
    fn rat_add(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.tick().rat_add(a, b)
    }
    fn rat_sub(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.tick().rat_sub(a, b)
    }
    fn rat_mul(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.tick().rat_mul(a, b)
    }
    fn rat_div(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.tick().rat_div(a, b)
    }
    fn rat_cmp(&self, a: RatRef<'_>, b: RatRef<'_>) -> Ordering {
        self.tick().rat_cmp(a, b)
    }
    fn rat_canonical(&self, num: IntRef<'_>, den: IntRef<'_>) -> RatBuf {
        self.tick().rat_canonical(num, den)
    }
}

fn backend_calls(source: &str) -> u64 {
    ajisai_words::link();
    let before = CALLS.with(Cell::get);
    let report = with_backend(&COUNTING, || {
        compute(source, &Options::new(Profile::CLI_LOCAL))
    });
    assert!(report.error.is_none(), "`{source}`: {:?}", report.error);
    CALLS.with(Cell::get) - before
}

#[test]
fn small_values_never_call_the_backend() {
    for source in [
        "1 2 ADD",
        "2 3 DIV 1 3 DIV ADD",
        "1/3 1/6 + 7 * 2 -",
        "[ 1 2 3 ] 10 * SUM",
        "0 1000 RANGE SUM",
        "-7 3 MOD 7/2 FLOOR 5/2 ROUND",
        "9 SQRT 1/4 SQRT",
        "2 SQRT 2 SQRT * 8 SQRT 2 SQRT 2 SQRT + =",
        "2 10 POW 4 1/2 POW",
        "[ 3 1 2 ] SORT [ 1 1 2 ] UNIQUE",
        "42 100 RANDOM SUM",
        "9223372036854775807 1 - -9223372036854775808 1 +",
        "'123' NUM 1e3 2.5e-1",
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 1000 CD",
    ] {
        assert_eq!(backend_calls(source), 0, "`{source}` called the backend");
    }
}

#[test]
fn big_values_do_call_the_backend() {
    assert!(backend_calls("2 100 POW 3 *") > 0);
    assert!(backend_calls("9223372036854775807 9223372036854775807 * 3 *") > 0);
    assert!(backend_calls("123456789012345678901234567890") > 0);
}
