//! The plugin interface in-process: the exported module behind the loader's wrapper
//! answers exactly like the built-in backends, and a module that faults or breaks the
//! contract poisons the backend instead of answering (MCP-13; docs/mcp/index.md).
#![cfg(feature = "backend")]

use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, ROk, RStr, RString, Tuple2};
use ajisai_core::numerics::{IntBuf, IntRef, Numerics};
use ajisai_numerics_gmp::interface::{Answer, HostAllocator, IntArg, IntOut, NumericsModule};
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
    }
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
        div_rem: zero_pair,
        div_exact: zero,
        gcd: zero,
        isqrt: zero1,
        to_decimal: bad_decimal,
        parse_decimal: zero_parse,
        set_allocator: keep_allocator,
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
