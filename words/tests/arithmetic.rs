//! Arithmetic, math and comparison Words: what examples cannot express — exact
//! work pricing (`resourceUsage`, docs/reference/pricing-and-limits.md), limit refusals under
//! injected profiles (message, resource, operands left in place), error messages and the check
//! order of docs/reference/errors.md#order-of-checks.

use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::{Limit, Profile};

fn run_with(profile: Profile, source: &str) -> ComputeReport {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    compute(source, &Options::new(profile))
}

fn run(source: &str) -> ComputeReport {
    run_with(Profile::MCP_LOCAL_STDIO, source)
}

fn stack(r: &ComputeReport) -> String {
    ajisai_core::display::stack_line(&r.stack)
}

/// `numericWork` of a successful run.
fn numeric_work(source: &str) -> u64 {
    let r = run(source);
    assert!(r.error.is_none(), "`{source}` failed: {:?}", r.error);
    r.usage.numeric_work
}

/// The error of a run that must fail: (category, message, resource, stack).
fn failure(r: &ComputeReport) -> (String, String, Option<&'static str>, String) {
    let e = r
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("expected an error, got stack {}", stack(r)));
    (
        e.category.id().to_string(),
        e.message.clone(),
        e.resource,
        stack(r),
    )
}

#[test]
fn rational_arithmetic_costs_one_per_lane() {
    assert_eq!(numeric_work("1 2 ADD"), 1);
    assert_eq!(numeric_work("5 3 SUB"), 1);
    assert_eq!(numeric_work("2 4 MUL"), 1);
    assert_eq!(numeric_work("10 4 DIV"), 1);
    assert_eq!(numeric_work("7 3 MOD"), 1);
    assert_eq!(numeric_work("1 2 ADD 3 MUL"), 2);
    assert_eq!(run("1 2 ADD").usage.execution_steps, 1);
}

#[test]
fn broadcast_lanes_are_counted() {
    assert_eq!(numeric_work("[ 1 2 3 ] [ 4 5 6 ] +"), 3);
    assert_eq!(numeric_work("[ 1 2 3 ] 10 +"), 3);
    assert_eq!(numeric_work("10 [ 1 [ 2 [ 3 ] ] ] -"), 3);
    assert_eq!(numeric_work("[ [ 1 2 ] [ 3 4 ] ] [ 10 20 ] +"), 4);
    assert_eq!(numeric_work("[ [ 1 ] [ 2 ] ] [ 1 2 3 ] +"), 6);
    // NIL lanes count; an empty result still costs one lane.
    assert_eq!(numeric_work("[ 1 NIL ] 1 +"), 2);
    assert_eq!(numeric_work("[ ] 5 +"), 1);
    assert_eq!(numeric_work("[ 1 ] [ ] +"), 1);
}

#[test]
fn limbs_scale_the_charge() {
    // A literal wider than a machine word is charged its decimal price once built
    // (n + ⌈n²/16⌉ for n limbs): 3 for 2^64 (two limbs), 2 for 2^64 − 1 (one).
    // 2^64 is 65 bits wide: two limbs on each side, 2·2 for MUL.
    assert_eq!(
        numeric_work("18446744073709551616 18446744073709551616 *"),
        3 + 3 + 4
    );
    assert_eq!(numeric_work("18446744073709551616 1 +"), 3 + 2);
    // The widest Number leaf of a Vector decides its limbs (two lanes of 2·1).
    assert_eq!(numeric_work("[ 1 18446744073709551616 ] 1 +"), 3 + 4);
    // 2^64 − 1 is exactly 64 bits: one limb.
    assert_eq!(
        numeric_work("18446744073709551615 18446744073709551615 *"),
        2 + 2 + 1
    );
}

#[test]
fn division_by_zero_is_priced_and_projects() {
    let r = run("[ 1 2 ] [ 1 0 ] /");
    assert!(r.error.is_none());
    assert_eq!(r.usage.numeric_work, 2);
    assert_eq!(r.outcome_id(), "nil:divisionByZero");
    assert_eq!(numeric_work("1 0 /"), 1);
}

#[test]
fn nil_passthrough_and_errors_before_the_charge_cost_nothing() {
    assert_eq!(numeric_work("NIL 1 +"), 0);
    assert_eq!(numeric_work("1 NIL /"), 0);
    for source in [
        "7 0 %",
        "[ 1 2 ] [ 0 1 ] %",
        "'a' 1 +",
        "[ 1 2 ] [ 1 2 3 ] *",
    ] {
        let r = run(source);
        assert!(r.error.is_some(), "{source}");
        assert_eq!(r.usage.numeric_work, 0, "{source}");
    }
}

#[test]
fn comparisons_and_unary_words_are_priced() {
    // (numericWork, collectionWork): a comparison lane is priced as SUB, a unary lane as
    // adding a one-limb rational; with a Vector operand, every value walked and built
    // costs 2 of collectionWork (docs/reference/pricing-and-limits.md#lifting), and an
    // equality one unit a pair of values compared.
    for (source, work) in [
        // Three lanes; walked 4 values, built 4: 16.
        ("[ 1 2 3 ] 2 <", (3, 16)),
        ("1 2 <", (1, 0)),
        ("1 2 =", (0, 1)),
        ("[ 1 2 ] [ 1 2 ] =", (0, 3)),
        // Walked 3 and 3, built 3: 18.
        ("[ 1 5 ] [ 3 2 ] MIN", (2, 18)),
        ("[ 1 5 ] 3 MAX", (2, 12)),
        ("[ 7/3 -1/2 ] FLOOR", (2, 12)),
        ("5/2 ROUND", (1, 0)),
        ("-2 ABS", (1, 0)),
        ("[ 1 2 ] NEG", (2, 12)),
    ] {
        let r = run(source);
        assert!(r.error.is_none(), "{source}");
        assert_eq!(
            (r.usage.numeric_work, r.usage.collection_work),
            work,
            "{source}"
        );
    }
}

#[test]
fn sum_charges_each_addition() {
    assert_eq!(numeric_work("[ 1 2 3 ] SUM"), 3);
    assert_eq!(numeric_work("[ ] SUM"), 0);
    // Each addition is priced on its own lanes: [1 2] + [3 4] after 0 + [1 2].
    assert_eq!(numeric_work("[ [ 1 2 ] [ 3 4 ] ] SUM"), 4);
    // Once the sum is NIL nothing is added (or charged) any more.
    assert_eq!(numeric_work("[ 1 NIL 5 ] SUM"), 1);
}

#[test]
fn quantize_charges_per_lane() {
    // Per lane x: a MUL charge of x and d (1) plus limbs(x)·limbs(d) (1).
    assert_eq!(numeric_work("1/3 10 QUANTIZE"), 2);
    assert_eq!(numeric_work("[ 1/3 2/3 ] 10 QUANTIZE"), 4);
    assert_eq!(numeric_work("[ 1/3 NIL ] 10 QUANTIZE"), 2);
    // A denominator that is not a positive integer projects before any charge.
    assert_eq!(numeric_work("1/3 0 QUANTIZE"), 0);
}

#[test]
fn random_charges_collection_work_per_element() {
    let r = run("7 3 RANDOM");
    assert_eq!((r.usage.collection_work, r.usage.numeric_work), (51, 0));
    assert_eq!(run("7 0 RANDOM").usage.collection_work, 0);
    let boundary = run("7 100000 RANDOM");
    assert!(boundary.error.is_none());
    assert_eq!(boundary.usage.collection_work, 1_700_000);
}

#[test]
fn algebraic_pricing() {
    // terms(√2) = 1: P = 1,024·(1 + 1) for ADD, ·1 for MUL, ·(1 + 1) for DIV; each SQRT
    // lane costs 1 (a unary lane) and tries no divisor for 2 or 3.
    assert_eq!(numeric_work("2 SQRT 1 +"), 1 + 2048);
    assert_eq!(numeric_work("2 SQRT 3 SQRT *"), 2 + 1024);
    assert_eq!(numeric_work("1 2 SQRT /"), 1 + 2048);
    assert_eq!(numeric_work("2 SQRT"), 1);
    // A comparison is priced as SUB (2,048), and the sign of √2 − 3/2 takes one
    // enclosure at 50 bits: 1 for the rational term, 64 + 1 + 1 for the root.
    assert_eq!(numeric_work("2 SQRT 3/2 <"), 1 + 2048 + 67);
}

#[test]
fn bigint_bits_refusal_leaves_operands() {
    let profile = Profile::MCP_LOCAL_STDIO.with(Limit::BigintBits, 64);
    let r = run_with(profile.clone(), "9223372036854775807 9223372036854775807 *");
    assert_eq!(
        failure(&r),
        (
            "resourceLimitExceeded".into(),
            "bigintBits of 126 exceeds the limit of 64".into(),
            Some("bigintBits"),
            "9223372036854775807/1 | 9223372036854775807/1".into()
        )
    );
    // The charge was taken before the refused computation (steps 5 and 6 of
    // docs/reference/errors.md#order-of-checks).
    assert_eq!(r.usage.numeric_work, 1);
    // One lane too wide refuses the whole Vector result.
    let r = run_with(profile.clone(), "[ 1 9223372036854775807 ] 4 *");
    assert_eq!(failure(&r).1, "bigintBits of 65 exceeds the limit of 64");
    assert_eq!(failure(&r).3, "[ 1/1 9223372036854775807/1 ] | 4/1");
    // Exactly at the limit is fine.
    let r = run_with(profile.clone(), "9223372036854775807 9223372036854775807 +");
    assert_eq!(stack(&r), "18446744073709551614/1");
    // Under KEEP the operands stay once, with nothing pushed.
    let r = run_with(profile, "9223372036854775807 4 KEEP *");
    assert_eq!(failure(&r).3, "9223372036854775807/1 | 4/1");
}

/// SUM refuses a running sum that grows too wide, leaving its Vector.
#[test]
fn sum_bigint_refusal_keeps_the_vector() {
    let profile = Profile::MCP_LOCAL_STDIO.with(Limit::BigintBits, 63);
    let r = run_with(profile, "[ 9223372036854775807 9223372036854775807 ] SUM");
    assert_eq!(
        failure(&r),
        (
            "resourceLimitExceeded".into(),
            "bigintBits of 64 exceeds the limit of 63".into(),
            Some("bigintBits"),
            "[ 9223372036854775807/1 9223372036854775807/1 ]".into()
        )
    );
}

#[test]
fn numeric_work_refusal_stays_on_the_meter() {
    let profile = Profile::MCP_LOCAL_STDIO.with(Limit::NumericWork, 2);
    let r = run_with(profile.clone(), "[ 1 2 3 ] 1 +");
    assert_eq!(
        failure(&r),
        (
            "resourceLimitExceeded".into(),
            "numericWork of 3 exceeds the limit of 2".into(),
            Some("numericWork"),
            "[ 1/1 2/1 3/1 ] | 1/1".into()
        )
    );
    assert_eq!(r.usage.numeric_work, 3);
    // SUM's running charge: the third addition is refused, nothing of the sum remains.
    let r = run_with(profile.clone(), "[ 1 2 3 ] SUM");
    assert_eq!(failure(&r).1, "numericWork of 3 exceeds the limit of 2");
    assert_eq!(failure(&r).3, "[ 1/1 2/1 3/1 ]");
    // A zero-divisor DIV still pays for its lanes.
    let r = run_with(profile, "[ 1 2 3 ] [ 0 1 2 ] /");
    assert_eq!(failure(&r).1, "numericWork of 3 exceeds the limit of 2");
}

#[test]
fn random_limits() {
    let r = run("7 100001 RANDOM");
    assert_eq!(
        failure(&r),
        (
            "resourceLimitExceeded".into(),
            "materializedElements of 100001 exceeds the limit of 100000".into(),
            Some("materializedElements"),
            "7/1 | 100001/1".into()
        )
    );
    assert_eq!(r.usage.collection_work, 0);
    // Compared as an exact integer: a count beyond 64 bits is the same refusal.
    let r = run("7 99999999999999999999999 RANDOM");
    assert_eq!(
        failure(&r).1,
        "materializedElements of 99999999999999999999999 exceeds the limit of 100000"
    );
    let r = run_with(
        Profile::MCP_LOCAL_STDIO.with(Limit::CollectionWork, 50),
        "7 3 RANDOM",
    );
    assert_eq!(
        failure(&r).1,
        "collectionWork of 51 exceeds the limit of 50"
    );
    assert_eq!(failure(&r).3, "7/1 | 3/1");
}

#[test]
fn random_is_splitmix64() {
    // Element i is draw i + 1 of one state sequence, so longer counts extend shorter ones.
    let long = run("42 5 RANDOM");
    let short = run("42 3 RANDOM");
    let (l, s) = (stack(&long), stack(&short));
    assert!(
        l.starts_with(s.trim_end_matches(" ]")),
        "{l} does not extend {s}"
    );
    // Every draw lies in [0, 1).
    let r = run("123 200 RANDOM [ 0 ] <");
    assert!(!stack(&r).contains("TRUE"));
    let r = run("123 200 RANDOM 1 <");
    assert!(!stack(&r).contains("FALSE"));
    // A negative seed is its two's complement pattern.
    assert_eq!(
        stack(&run("-1 1 RANDOM")),
        "[ 223800962263393/281474976710656 ]"
    );
}

#[test]
fn algebraic_terms_refusal() {
    let profile = Profile::MCP_LOCAL_STDIO.with(Limit::AlgebraicTerms, 2);
    let r = run_with(profile, "2 SQRT 3 SQRT + 5 SQRT +");
    let (category, message, resource, rest) = failure(&r);
    assert_eq!(
        (category.as_str(), resource),
        ("resourceLimitExceeded", Some("algebraicTerms"))
    );
    assert_eq!(message, "algebraicTerms of 3 exceeds the limit of 2");
    assert_eq!(rest, "sqrt(2)+sqrt(3) | sqrt(5)");
}

#[test]
fn pow_bigint_refusal() {
    let r = run("2 1000000 POW");
    let (category, _, resource, rest) = failure(&r);
    assert_eq!(
        (category.as_str(), resource),
        ("resourceLimitExceeded", Some("bigintBits"))
    );
    assert_eq!(rest, "2/1 | 1000000/1");
}

#[test]
fn messages_name_the_offender() {
    let (c, m, _, s) = failure(&run("'a' 1 +"));
    assert_eq!((c.as_str(), s.as_str()), ("typeMismatch", "'a' | 1/1"));
    assert!(
        m.contains("ADD") && m.contains("the String 'a'") && m.contains("left operand"),
        "{m}"
    );
    let (_, m, _, _) = failure(&run("[ 1 [ 2 TRUE ] ] 1 -"));
    assert!(m.contains("SUB") && m.contains("the Boolean TRUE"), "{m}");
    let (c, m, _, _) = failure(&run("[ 1 2 ] [ 1 2 3 ] +"));
    assert_eq!(c, "shapeMismatch");
    assert!(m.contains("[2]") && m.contains("[3]"), "{m}");
    let (c, m, _, _) = failure(&run("[ [ 1 2 ] [ 3 ] ] [ 1 2 ] <"));
    assert_eq!(c, "shapeMismatch");
    assert!(m.contains("LT") && m.contains("ragged"), "{m}");
    let (c, m, _, s) = failure(&run("7 0 %"));
    assert_eq!((c.as_str(), s.as_str()), ("invalidArgument", "7/1 | 0/1"));
    assert!(m.contains("non-zero divisor"), "{m}");
    let (c, m, _, _) = failure(&run("7 1/2 RANDOM"));
    assert_eq!(c, "invalidArgument");
    assert!(m.contains("count"), "{m}");
    let (c, m, _, _) = failure(&run("9223372036854775808 1 RANDOM"));
    assert_eq!(c, "invalidArgument");
    assert!(m.contains("64-bit"), "{m}");
    let (c, m, _, _) = failure(&run("1 [ 2 3 ] QUANTIZE"));
    assert_eq!(c, "typeMismatch");
    assert!(m.contains("QUANTIZE") && m.contains("not lifted"), "{m}");
    let (c, m, _, _) = failure(&run("[ 1 2 ] [ 'x' ] SUM"));
    assert_eq!(c, "typeMismatch");
    assert!(m.contains("SUM") && m.contains("Vector"), "{m}");
    let (c, m, _, _) = failure(&run("[ 1 'x' ] SUM"));
    assert_eq!(c, "typeMismatch");
    assert!(m.contains("element 1"), "{m}");
    let (c, _, _, s) = failure(&run("1 ADD"));
    assert_eq!((c.as_str(), s.as_str()), ("stackUnderflow", "1/1"));
}

#[test]
fn check_order() {
    // Domains come before shapes (docs/reference/errors.md#order-of-checks).
    assert_eq!(failure(&run("[ 1 'a' ] [ 1 2 3 ] +")).0, "typeMismatch");
    assert_eq!(
        failure(&run("[ [ 1 2 ] [ 3 ] ] [ 1 TRUE ] MIN")).0,
        "typeMismatch"
    );
    // Shapes before MOD's zero divisor.
    assert_eq!(failure(&run("[ 1 2 ] [ 0 1 2 ] %")).0, "shapeMismatch");
    // RANDOM: a typeMismatch of either operand outranks an invalidArgument of the other.
    assert_eq!(failure(&run("1/2 'a' RANDOM")).0, "typeMismatch");
    assert_eq!(failure(&run("'a' -1 RANDOM")).0, "typeMismatch");
    // rejectNil comes before the underflow check.
    assert_eq!(failure(&run("NIL RANDOM")).0, "typeMismatch");
    // QUANTIZE: d is examined before x.
    assert_eq!(stack(&run("'a' 0 QUANTIZE")), "NIL");
    assert_eq!(failure(&run("'a' [ 1 2 ] QUANTIZE")).0, "typeMismatch");
}

#[test]
fn whole_value_equality_never_lifts() {
    assert_eq!(stack(&run("[ 1 2 ] [ 1 2 ] =")), "TRUE");
    assert_eq!(stack(&run("[ 1 2 ] [ 1 3 ] =")), "FALSE");
    assert_eq!(stack(&run("[ 1 2 ] 1 =")), "FALSE");
    assert_eq!(stack(&run("[ 1 2 ] 1 !=")), "TRUE");
    assert_eq!(run("1 NIL =").outcome_id(), "nil:literal");
}

#[test]
fn deep_results_display() {
    // A large broadcast works lane by lane and keeps its shape.
    let r = run("[ [ 1 2 3 ] [ 4 5 6 ] ] [ [ 10 ] [ 20 ] ] *");
    assert_eq!(stack(&r), "[ [ 10/1 20/1 30/1 ] [ 80/1 100/1 120/1 ] ]");
    let r = run("[ [ [ 1 ] ] ] [ [ 1 2 ] ] +");
    assert_eq!(stack(&r), "[ [ [ 2/1 3/1 ] ] ]");
}

/// The i64 lanes of the binary arithmetic and ordering Words hand every edge to the
/// general path: overflow at both ends, a non-integer quotient, a negative modulus,
/// `i64::MIN / -1`, and rationals whose cross products leave i64. Each answer is the
/// exact one, and the charge is the general path's (one unit per rational step).
#[test]
fn small_integer_lanes_agree_with_the_general_path_at_their_edges() {
    let max = i64::MAX;
    let min = i64::MIN;
    let cases: Vec<(String, String)> = vec![
        (format!("{max} 1 +"), "9223372036854775808/1".into()),
        (format!("{min} 1 -"), "-9223372036854775809/1".into()),
        (format!("{max} 2 *"), "18446744073709551614/1".into()),
        (format!("{min} -1 /"), "9223372036854775808/1".into()),
        (format!("{min} -1 MOD"), "0/1".into()),
        ("7 2 /".into(), "7/2".into()),
        ("-7 2 /".into(), "-7/2".into()),
        ("-6 3 /".into(), "-2/1".into()),
        ("-7 3 MOD".into(), "2/1".into()),
        ("7 -3 MOD".into(), "1/1".into()),
        ("-7 -3 MOD".into(), "2/1".into()),
        ("1 0 /".into(), "NIL".into()),
        (format!("{max} {min} >"), "TRUE".into()),
        (format!("1/{max} -1/{max} >"), "TRUE".into()),
        (format!("{min}/{max} -1 <"), "TRUE".into()),
        (format!("{max}/2 {min}/3 <"), "FALSE".into()),
        ("1/3 2/6 =".into(), "TRUE".into()),
        ("1/3 1/3 GTE".into(), "TRUE".into()),
        ("-1/3 -1/2 LTE".into(), "FALSE".into()),
    ];
    for (source, want) in cases {
        let r = run(&source);
        assert!(r.error.is_none(), "`{source}` failed: {:?}", r.error);
        assert_eq!(stack(&r), want, "`{source}`");
    }
    assert_eq!(numeric_work("3 4 + 5 * 2 - 7 MOD 2 /"), 5);
    // A bigintBits below 64 still refuses a small integer result that is too wide.
    let r = run_with(
        Profile::MCP_LOCAL_STDIO.with(Limit::BigintBits, 8),
        "200 100 +",
    );
    let (category, _, resource, left) = failure(&r);
    assert_eq!(
        (category.as_str(), resource),
        ("resourceLimitExceeded", Some("bigintBits"))
    );
    assert_eq!(left, "200/1 | 100/1");
}
