//! The plugin interface in-process: the exported module behind the loader's wrapper
//! answers exactly like the built-in backends, and a module that faults or breaks the
//! contract poisons the backend instead of answering (MCP-13; docs/mcp/index.md).
#![cfg(feature = "backend")]

use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, ROk, RSlice, RStr, RString, RVec, Tuple2};
use ajisai_core::numerics::{IntBuf, IntRef, Numerics, RatBuf, RatRef};
use ajisai_numerics_gmp::interface::{
    Answer, HostAllocator, IntArg, IntOut, NumericsModule, RatArg, RatOut,
};
use ajisai_numerics_gmp::{export, BackendFault, FaultKind, LoadError, Plugin, GMP};
use ajisai_numerics_pure::PURE;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn plugin() -> Plugin {
    Plugin::from_module(export::module(), Path::new("in-process")).expect("a valid module")
}

fn int(negative: bool, limbs: Vec<u64>) -> IntBuf {
    IntBuf { negative, limbs }.normalize()
}

fn arb_int() -> impl Strategy<Value = IntBuf> {
    (any::<bool>(), prop::collection::vec(any::<u64>(), 0..12)).prop_map(|(n, l)| int(n, l))
}

/// Every operation of the three backends on the same operands.
fn agree(a: &IntBuf, b: &IntBuf, p: &Plugin) {
    let backends: [&dyn Numerics; 3] = [&GMP, &PURE, p];
    let (x, y) = (a.as_ref(), b.as_ref());
    fn abs(v: &IntBuf) -> IntRef<'_> {
        IntRef {
            negative: false,
            limbs: &v.limbs,
        }
    }
    for n in backends {
        assert_eq!(n.add(x, y), GMP.add(x, y));
        assert_eq!(n.sub(x, y), PURE.sub(x, y));
        assert_eq!(n.mul(x, y), PURE.mul(x, y));
        assert_eq!(n.mul(x, x), PURE.mul(x, x));
        assert_eq!(n.gcd(x, y), PURE.gcd(x, y));
        assert_eq!(n.isqrt(abs(a)), PURE.isqrt(abs(a)));
        assert_eq!(n.to_decimal(x), PURE.to_decimal(x));
        if !b.limbs.is_empty() {
            assert_eq!(n.div_rem(x, y), PURE.div_rem(x, y));
            let product = PURE.mul(x, y);
            assert_eq!(n.div_exact(product.as_ref(), y), a.clone());
        }
        let digits = PURE.to_decimal(abs(a));
        assert_eq!(n.parse_decimal(&digits), int(false, a.limbs.clone()));
        // The product by a machine word, against num-bigint's general product.
        for m in [1, 3, u64::MAX, b.limbs.first().copied().unwrap_or(7).max(1)] {
            let word = [m];
            let want = PURE.mul(
                abs(a),
                IntRef {
                    negative: false,
                    limbs: &word,
                },
            );
            assert_eq!(n.mul_word(&a.limbs, m), want.limbs, "{a:?} times {m}");
        }
    }
}

fn view(x: &RatBuf) -> RatRef<'_> {
    RatRef {
        num: x.num.as_ref(),
        den: x.den.as_ref(),
    }
}

/// The rational n/(g·d) in lowest terms (a zero denominator reads as 1), so that two of
/// them made with one `g` share a factor of their denominators: the paths of Knuth's
/// addition that random (almost always coprime) denominators never take.
fn rational(n: &IntBuf, g: &IntBuf, d: &IntBuf) -> RatBuf {
    let one = int(false, vec![1]);
    let nonzero = |x: &IntBuf| {
        if x.limbs.is_empty() {
            one.clone()
        } else {
            x.clone()
        }
    };
    let den = PURE.mul(nonzero(g).as_ref(), nonzero(d).as_ref());
    PURE.rat_canonical(n.as_ref(), den.as_ref())
}

/// Every rational operation of the three backends on the same operands: the pure
/// backend's (checked against num-bigint by numerics-pure's property tests), GMP's `mpq`
/// functions, and the plugin's across the interface.
fn rationals_agree(x: &RatBuf, y: &RatBuf, p: &Plugin) {
    let backends: [&dyn Numerics; 3] = [&GMP, &PURE, p];
    let (a, b) = (view(x), view(y));
    for n in backends {
        assert_eq!(n.rat_add(a, b), PURE.rat_add(a, b), "{x:?} + {y:?}");
        assert_eq!(n.rat_sub(a, b), PURE.rat_sub(a, b), "{x:?} - {y:?}");
        assert_eq!(n.rat_mul(a, b), PURE.rat_mul(a, b), "{x:?} * {y:?}");
        assert_eq!(n.rat_cmp(a, b), PURE.rat_cmp(a, b), "{x:?} cmp {y:?}");
        assert_eq!(n.rat_cmp(a, a), std::cmp::Ordering::Equal);
        if !y.num.limbs.is_empty() {
            assert_eq!(n.rat_div(a, b), PURE.rat_div(a, b), "{x:?} / {y:?}");
        }
        assert_eq!(
            n.rat_canonical(x.num.as_ref(), y.den.as_ref()),
            PURE.rat_canonical(x.num.as_ref(), y.den.as_ref())
        );
        let negative_den = IntBuf {
            negative: true,
            limbs: y.den.limbs.clone(),
        };
        assert_eq!(
            n.rat_canonical(x.num.as_ref(), negative_den.as_ref()),
            PURE.rat_canonical(x.num.as_ref(), negative_den.as_ref())
        );
    }
    // The results are canonical: a sum minus its addend is the other operand again.
    let sum = PURE.rat_add(a, b);
    assert_eq!(PURE.rat_sub(view(&sum), b), x.clone());
}

fn arb_small_int() -> impl Strategy<Value = IntBuf> {
    (any::<bool>(), prop::collection::vec(any::<u64>(), 0..3)).prop_map(|(n, l)| int(n, l))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_interface_answers_like_the_backends(a in arb_int(), b in arb_int()) {
        agree(&a, &b, &plugin());
    }

    #[test]
    fn rational_operations_agree_across_backends(
        (an, ad, bn, bd) in (arb_int(), arb_int(), arb_int(), arb_int()),
        g in arb_small_int(),
    ) {
        let (x, y) = (rational(&an, &g, &ad), rational(&bn, &g, &bd));
        rationals_agree(&x, &y, &plugin());
        // A wide value plus 1/k, the harmonic shape (one denominator a machine word).
        let k = rational(&int(false, vec![1]), &int(false, vec![]), &int(false, vec![ad.limbs.first().copied().unwrap_or(7) | 1]));
        rationals_agree(&x, &k, &plugin());
        rationals_agree(&k, &y, &plugin());
    }
}

#[test]
fn edges_agree() {
    let p = plugin();
    let edges = [
        int(false, vec![]),
        int(false, vec![1]),
        int(true, vec![1]),
        int(false, vec![u64::MAX]),
        int(true, vec![1 << 63]),
        int(false, vec![0, 1]),
        int(true, vec![u64::MAX, u64::MAX]),
        int(false, vec![0, 0, 0, 1]),
    ];
    for a in &edges {
        for b in &edges {
            agree(a, b, &p);
        }
    }
}

#[test]
fn the_module_reports_gmp_and_the_running_version() {
    let p = plugin();
    assert_eq!(p.kind().id(), "gmp");
    assert_eq!(p.library(), GMP.library());
    assert!(p.library().starts_with("GMP "));
}

fn fault_of(f: impl FnOnce()) -> BackendFault {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the call must fault");
    BackendFault::from_panic(payload.as_ref())
        .cloned()
        .expect("a BackendFault payload")
}

extern "C" fn good_kind() -> RString {
    RString::from("gmp")
}
extern "C" fn good_library() -> Answer<RString> {
    ROk(RString::from("GMP 6.3.0"))
}
extern "C" fn failing(_: IntArg<'_>, _: IntArg<'_>) -> Answer<IntOut> {
    RErr(RString::from("GMP plugin panicked: boom"))
}
extern "C" fn zero(_: IntArg<'_>, _: IntArg<'_>) -> Answer<IntOut> {
    ROk(IntOut::default())
}
extern "C" fn zero_pair(_: IntArg<'_>, _: IntArg<'_>) -> Answer<Tuple2<IntOut, IntOut>> {
    ROk(Tuple2(IntOut::default(), IntOut::default()))
}
extern "C" fn zero1(_: IntArg<'_>) -> Answer<IntOut> {
    ROk(IntOut::default())
}
extern "C" fn bad_decimal(_: IntArg<'_>) -> Answer<RString> {
    ROk(RString::from("12a"))
}
extern "C" fn zero_parse(_: RStr<'_>) -> Answer<IntOut> {
    ROk(IntOut::default())
}
extern "C" fn zero_denominator(_: RatArg<'_>, _: RatArg<'_>) -> Answer<RatOut> {
    ROk(RatOut::default())
}
extern "C" fn out_of_range_sign(_: RatArg<'_>, _: RatArg<'_>) -> Answer<i8> {
    ROk(5)
}
extern "C" fn negative_denominator(_: IntArg<'_>, _: IntArg<'_>) -> Answer<RatOut> {
    ROk(RatOut {
        num: IntOut::default(),
        den: IntOut::from_core(int(true, vec![3])),
    })
}
extern "C" fn high_zero_limb(a: RSlice<'_, u64>, _: u64) -> Answer<RVec<u64>> {
    let mut limbs = a.to_vec();
    limbs.push(0);
    ROk(RVec::from(limbs))
}
extern "C" fn keep_allocator(_: HostAllocator) -> Answer<()> {
    ROk(())
}
extern "C" fn pure_kind() -> RString {
    RString::from("pure")
}
extern "C" fn odd_library() -> Answer<RString> {
    ROk(RString::from("GMP six"))
}

fn faulty() -> NumericsModule {
    NumericsModule {
        kind: good_kind,
        library: good_library,
        add: failing,
        sub: zero,
        mul: zero,
        mul_word: high_zero_limb,
        div_rem: zero_pair,
        div_exact: zero,
        gcd: zero,
        isqrt: zero1,
        to_decimal: bad_decimal,
        parse_decimal: zero_parse,
        set_allocator: keep_allocator,
        rat_add: zero_denominator,
        rat_sub: zero_denominator,
        rat_mul: zero_denominator,
        rat_div: zero_denominator,
        rat_cmp: out_of_range_sign,
        rat_canonical: negative_denominator,
    }
}

#[test]
fn a_fault_poisons_the_plugin() {
    let p = Plugin::from_module(faulty().leak_into_prefix(), Path::new("faulty.so"))
        .expect("describes itself correctly");
    let one = int(false, vec![1]);
    assert!(!p.is_poisoned());
    let f = fault_of(|| {
        p.add(one.as_ref(), one.as_ref());
    });
    assert_eq!(f.kind, FaultKind::Failure);
    assert_eq!(
        f.message,
        "numeric plugin faulty.so failed in add: GMP plugin panicked: boom"
    );
    assert!(p.is_poisoned());
    // No later call is served, even one the plugin would have answered.
    let f = fault_of(|| {
        p.sub(one.as_ref(), one.as_ref());
    });
    assert_eq!(f.kind, FaultKind::Poisoned);
}

#[test]
fn malformed_answers_poison_the_plugin() {
    let p = Plugin::from_module(faulty().leak_into_prefix(), Path::new("faulty.so"))
        .expect("describes itself correctly");
    let f = fault_of(|| {
        p.to_decimal(int(false, vec![12]).as_ref());
    });
    assert_eq!(f.kind, FaultKind::Malformed);
    assert!(
        f.message
            .contains("\"12a\", which is not a decimal integer"),
        "{}",
        f.message
    );
    assert!(p.is_poisoned());
}

#[test]
fn malformed_rational_and_product_answers_poison_the_plugin() {
    let one = int(false, vec![1]);
    let half = RatBuf {
        num: one.clone(),
        den: int(false, vec![2]),
    };
    type Call = fn(&Plugin, &RatBuf, &IntBuf);
    let calls: [(Call, &str); 4] = [
        (
            |p, _, one| {
                p.mul_word(&one.limbs, 3);
            },
            "answered mul_word with 2 limbs for an operand of 1",
        ),
        (
            |p, h, _| {
                p.rat_add(view(h), view(h));
            },
            "answered rat_add with a denominator that is not positive",
        ),
        (
            |p, h, _| {
                p.rat_cmp(view(h), view(h));
            },
            "answered rat_cmp with 5, which is not -1, 0 or 1",
        ),
        (
            |p, _, one| {
                p.rat_canonical(one.as_ref(), one.as_ref());
            },
            "answered rat_canonical with a denominator that is not positive",
        ),
    ];
    for (call, message) in calls {
        let p = Plugin::from_module(faulty().leak_into_prefix(), Path::new("faulty.so"))
            .expect("describes itself correctly");
        let f = fault_of(|| call(&p, &half, &one));
        assert_eq!(f.kind, FaultKind::Malformed);
        assert!(f.message.contains(message), "{}", f.message);
        assert!(p.is_poisoned());
    }
}

#[test]
fn a_rational_division_by_zero_is_a_fault_not_an_abort() {
    // GMP raises SIGFPE on a zero divisor; the backend refuses first.
    let p = plugin();
    let half = RatBuf {
        num: int(false, vec![1]),
        den: int(false, vec![2]),
    };
    let zero = RatBuf {
        num: IntBuf::default(),
        den: int(false, vec![1]),
    };
    let f = fault_of(|| {
        p.rat_div(view(&half), view(&zero));
    });
    assert_eq!(f.kind, FaultKind::Failure);
    assert!(f.message.contains("division by zero"), "{}", f.message);
}

#[test]
fn a_panic_inside_the_real_module_is_a_fault_not_an_abort() {
    // GMP would abort the process on a zero divisor; the export refuses first.
    let p = plugin();
    let f = fault_of(|| {
        p.div_rem(int(false, vec![7]).as_ref(), IntBuf::default().as_ref());
    });
    assert_eq!(f.kind, FaultKind::Failure);
    assert!(f.message.contains("division by zero"), "{}", f.message);
    assert!(p.is_poisoned());
}

#[test]
fn modules_of_another_kind_or_library_are_refused() {
    let mut m = faulty();
    m.kind = pure_kind;
    let e = Plugin::from_module(m.leak_into_prefix(), Path::new("p.so")).expect_err("kind");
    assert_eq!(
        e,
        LoadError::Kind {
            path: "p.so".into(),
            found: "pure".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "numeric plugin p.so: expected backend kind gmp, found \"pure\""
    );
    let mut m = faulty();
    m.library = odd_library;
    let e = Plugin::from_module(m.leak_into_prefix(), Path::new("p.so")).expect_err("library");
    assert_eq!(
        e.to_string(),
        "numeric plugin p.so: expected a library named \"GMP <major.minor.patch>\", found \"GMP six\""
    );
}
