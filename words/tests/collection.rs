//! Collection and tensor Words: exact `collectionWork` figures
//! (docs/reference/pricing-and-limits.md), limit boundaries, refusal messages, and operands left in
//! place on failure.

use crate::common::*;
use ajisai_core::display::display;
use ajisai_core::engine::ComputeReport;
use ajisai_core::{Limit, Profile, Value};

/// The run succeeds with `expect` on the stack and costs exactly `work` collectionWork.
#[track_caller]
fn costs(source: &str, expect: &str, work: u64) {
    let r = run(source);
    assert!(r.error.is_none(), "`{source}` failed: {:?}", r.error);
    assert_eq!(stack(&r), expect, "`{source}`");
    assert_eq!(
        r.usage.collection_work, work,
        "collectionWork of `{source}`"
    );
}

/// The run fails with `resourceLimitExceeded` naming `resource`, the exact
/// message, and the stack as given.
#[track_caller]
fn refused(r: &ComputeReport, source: &str, resource: &str, message: &str, expect_stack: &str) {
    let e = r
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("`{source}` should fail, got {}", stack(r)));
    assert_eq!(
        e.category.id(),
        "resourceLimitExceeded",
        "`{source}`: {e:?}"
    );
    assert_eq!(e.resource, Some(resource), "`{source}`");
    assert_eq!(e.message, message, "`{source}`");
    assert_eq!(stack(r), expect_stack, "stack after `{source}`");
}

#[track_caller]
fn fails(source: &str, category: &str, expect_stack: &str) {
    let r = run(source);
    let e = r
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("`{source}` should fail, got {}", stack(&r)));
    assert_eq!(e.category.id(), category, "`{source}`: {}", e.message);
    assert_eq!(stack(&r), expect_stack, "stack after `{source}`");
    assert_eq!(
        r.usage.collection_work, 0,
        "a refused check charges nothing: `{source}`"
    );
}

// ------------------------------------------------------------ exact pricing

#[test]
fn spec_figures() {
    costs("[ 3 1 2 ] SORT", "[ 1/1 2/1 3/1 ]", 57);
    costs("[ 1 1 2 ] UNIQUE", "[ 1/1 2/1 ]", 85);
}

#[test]
fn up_front_charges() {
    // copy = per·(16 + width) = 17 for flat rational Vectors.
    costs("[ 10 20 30 ] 1 GET", "20/1", 17);
    costs("[ 10 20 30 ] 5 GET", "NIL", 17);
    costs("[ 10 20 30 ] [ 0 2 5 ] GET", "[ 10/1 30/1 NIL ]", 51);
    costs("[ [ 1 2 ] [ 3 4 ] ] 0 GET", "[ 1/1 2/1 ]", 34);
    costs("[ 1 2 3 4 5 ] -2 TAKE", "[ 4/1 5/1 ]", 34);
    costs("[ 1 2 3 ] 0 TAKE", "[ ]", 0);
    costs("[ 1 2 ] [ 3 4 5 ] CONCAT", "[ 1/1 2/1 3/1 4/1 5/1 ]", 85);
    costs("[ 1 2 3 ] REVERSE", "[ 3/1 2/1 1/1 ]", 51);
    costs("[ 1 2 3 ] 1 9 PUT", "[ 1/1 9/1 3/1 ]", 51);
    costs("1 2 3 3 COLLECT", "[ 1/1 2/1 3/1 ]", 51);
    costs(
        "[ 1 2 ] [ 3 4 ] 2 COLLECT",
        "[ [ 1/1 2/1 ] [ 3/1 4/1 ] ]",
        2 * 2 * 17,
    );
    costs("[ 1 2 3 ] 1 INDEX-OF", "0/1", 3);
    costs("[ 1 2 3 ] 9 INDEX-OF", "NIL", 3);
    costs("[ [ 1 2 ] [ 3 4 ] ] ZIP", "[ [ 1/1 3/1 ] [ 2/1 4/1 ] ]", 68);
    costs("[ 1 2 3 ] LENGTH", "3/1", 0);
    costs("[ ] SORT", "[ ]", 0);
    costs("[ 7 ] SORT", "[ 7/1 ]", 1 + 17);
    costs("[ 4 3 2 1 ] ORDER", "[ 3/1 2/1 1/1 0/1 ]", 4 * 3 + 4 * 17);
    // 2^64 is 65 bits wide: limbs 2, so probe 2 and copy 18.
    costs(
        "[ 18446744073709551616 1 ] SORT",
        "[ 1/1 18446744073709551616/1 ]",
        2 * 2 * 2 + 2 * 18,
    );
}

#[test]
fn generative_charges() {
    costs("0 4 RANGE", "[ 0/1 1/1 2/1 3/1 4/1 ]", 5 * 17);
    costs("[ 0 10 3 ] RANGE", "[ 0/1 3/1 6/1 9/1 ]", 4 * 17);
    costs("[ 2 3 0 ] FILL LENGTH", "2/1", 6 * 17);
    costs(
        "[ 1 2 3 4 ] [ 2 2 ] RESHAPE",
        "[ [ 1/1 2/1 ] [ 3/1 4/1 ] ]",
        4 * 17,
    );
}

#[test]
fn running_charges() {
    costs("[ 'a' 'b' 'a' ] TALLY", "[ 2/1 1/1 ]", 3 * 17 + 2 * 17);
    costs("[ ] UNIQUE", "[ ]", 0);
    // GROUP: n·copy(values) up front, then the scan over the keys.
    costs(
        "[ 1 2 3 ] [ 'a' 'b' 'a' ] GROUP",
        "[ [ 1/1 3/1 ] [ 2/1 ] ]",
        51 + 85,
    );
}

#[test]
fn mcp_56_collection_work_pair() {
    let five = run("0 99998 RANGE UNIQUE UNIQUE UNIQUE UNIQUE UNIQUE LENGTH");
    assert!(five.error.is_none(), "{:?}", five.error);
    assert_eq!(stack(&five), "99999/1");
    assert_eq!(five.usage.collection_work, 18_699_813);

    let src = "0 99998 RANGE UNIQUE UNIQUE UNIQUE UNIQUE UNIQUE UNIQUE";
    let six = run(src);
    let e = six.error.as_ref().expect("the sixth pass is refused");
    assert_eq!(e.category.id(), "resourceLimitExceeded");
    assert_eq!(e.resource, Some("collectionWork"));
    assert_eq!(e.word.as_deref(), Some("UNIQUE"));
    assert_eq!(
        e.message,
        "collectionWork of 20000007 exceeds the limit of 20000000 after 38240 of 99999 elements"
    );
    assert_eq!(six.usage.collection_work, 20_000_007);
    // The operand stays, with nothing of the partial scan.
    assert_eq!(six.stack.len(), 1);
    assert_eq!(six.stack[0].as_vector().map(|v| v.len()), Some(99_999));
}

#[test]
fn refused_charges_leave_operands() {
    let limited = |n| Profile::MCP_LOCAL_STDIO.with(Limit::CollectionWork, n);

    let ok = run_with("[ 3 1 2 ] SORT", limited(57));
    assert!(ok.error.is_none());
    let r = run_with("[ 3 1 2 ] SORT", limited(56));
    refused(
        &r,
        "SORT",
        "collectionWork",
        "collectionWork of 57 exceeds the limit of 56",
        "[ 3/1 1/1 2/1 ]",
    );
    assert_eq!(
        r.usage.collection_work, 57,
        "a refused charge stays on the meter"
    );

    // UNIQUE: 17 (examine 1) 34 (keep 1) 51 (examine 1) 68 (examine 2) 85 (keep 2).
    let r = run_with("[ 1 1 2 ] UNIQUE", limited(84));
    refused(
        &r,
        "UNIQUE",
        "collectionWork",
        "collectionWork of 85 exceeds the limit of 84 after 2 of 3 elements",
        "[ 1/1 1/1 2/1 ]",
    );
    let r = run_with("[ 1 1 2 ] UNIQUE", limited(67));
    refused(
        &r,
        "UNIQUE",
        "collectionWork",
        "collectionWork of 68 exceeds the limit of 67 after 2 of 3 elements",
        "[ 1/1 1/1 2/1 ]",
    );
    let r = run_with("[ 1 1 2 ] KEEP TALLY", limited(20));
    refused(
        &r,
        "TALLY",
        "collectionWork",
        "collectionWork of 34 exceeds the limit of 20 after 0 of 3 elements",
        "[ 1/1 1/1 2/1 ]",
    );
    // GROUP's up-front charge is refused without a scan position.
    let r = run_with("[ 1 2 3 ] [ 'a' 'b' 'a' ] GROUP", limited(50));
    refused(
        &r,
        "GROUP",
        "collectionWork",
        "collectionWork of 51 exceeds the limit of 50",
        "[ 1/1 2/1 3/1 ] | [ 'a' 'b' 'a' ]",
    );
    let r = run_with("[ 1 2 3 ] [ 'a' 'b' 'a' ] GROUP", limited(100));
    refused(
        &r,
        "GROUP",
        "collectionWork",
        "collectionWork of 102 exceeds the limit of 100 after 1 of 3 elements",
        "[ 1/1 2/1 3/1 ] | [ 'a' 'b' 'a' ]",
    );
    let r = run_with("1 2 3 3 COLLECT", limited(50));
    refused(
        &r,
        "COLLECT",
        "collectionWork",
        "collectionWork of 51 exceeds the limit of 50",
        "1/1 | 2/1 | 3/1 | 3/1",
    );
    let r = run_with("0 4 RANGE", limited(84));
    refused(
        &r,
        "RANGE",
        "collectionWork",
        "collectionWork of 85 exceeds the limit of 84",
        "0/1 | 4/1",
    );
}

// ------------------------------------------------------------ size limits

#[test]
fn range_materialized_boundary() {
    costs("0 99999 RANGE LENGTH", "100000/1", 1_700_000);
    costs("[ 99999 0 ] RANGE LENGTH", "100000/1", 1_700_000);
    let r = run("0 100001 RANGE");
    refused(
        &r,
        "0 100001 RANGE",
        "materializedElements",
        "materializedElements of 100002 exceeds the limit of 100000",
        "0/1 | 100001/1",
    );
    assert_eq!(
        r.error.as_ref().and_then(|e| e.word.as_deref()),
        Some("RANGE")
    );
    assert_eq!(r.usage.collection_work, 0);
    let r = run("0 100000 RANGE");
    refused(
        &r,
        "0 100000 RANGE",
        "materializedElements",
        "materializedElements of 100001 exceeds the limit of 100000",
        "0/1 | 100000/1",
    );
    let r = run("[ 0 100001 ] RANGE");
    refused(
        &r,
        "[ 0 100001 ] RANGE",
        "materializedElements",
        "materializedElements of 100002 exceeds the limit of 100000",
        "[ 0/1 100001/1 ]",
    );
    // Bounds of any size: the count is exact.
    let r = run("-99999999999999999999999 99999999999999999999999 RANGE");
    refused(
        &r,
        "huge RANGE",
        "materializedElements",
        "materializedElements of 199999999999999999999999 exceeds the limit of 100000",
        "-99999999999999999999999/1 | 99999999999999999999999/1",
    );
    let r = run("[ 0 99999999999999999999999 100000000000000000 ] RANGE");
    refused(
        &r,
        "stepped RANGE",
        "materializedElements",
        "materializedElements of 1000000 exceeds the limit of 100000",
        "[ 0/1 99999999999999999999999/1 100000000000000000/1 ]",
    );
    costs(
        "[ 0 99999999999999999999999 10000000000000000000 ] RANGE LENGTH",
        "10000/1",
        10_000 * 17,
    );
}

#[test]
fn fill_and_reshape_boundaries() {
    costs("[ 100000 0 ] FILL LENGTH", "100000/1", 1_700_000);
    costs("[ 100 1000 0 ] FILL LENGTH", "100/1", 1_700_000);
    let r = run("[ 100001 0 ] FILL");
    refused(
        &r,
        "FILL",
        "materializedElements",
        "materializedElements of 100001 exceeds the limit of 100000",
        "[ 100001/1 0/1 ]",
    );
    let r = run("[ 1000 1000 99999999999999999999 0 ] FILL");
    refused(
        &r,
        "FILL",
        "materializedElements",
        "materializedElements of 99999999999999999999000000 exceeds the limit of 100000",
        "[ 1000/1 1000/1 99999999999999999999/1 0/1 ]",
    );

    let ones = |k: usize| vec!["1"; k].join(" ");
    let depth32 = format!("[ {} 9 ] FILL", ones(32));
    let r = run(&depth32);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.stack[0].depth(), 32);
    let depth33 = format!("[ {} 9 ] FILL", ones(33));
    let r = run(&depth33);
    let e = r.error.as_ref().expect("33 dimensions are refused");
    assert_eq!(e.resource, Some("nestingDepth"));
    assert_eq!(e.message, "nestingDepth of 33 exceeds the limit of 32");
    assert_eq!(r.stack.len(), 1);

    let r = run(&format!("[ 1 ] [ {} ] RESHAPE", ones(32)));
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.stack[0].depth(), 32);
    let r = run(&format!("[ 1 ] [ {} ] RESHAPE", ones(33)));
    let e = r.error.as_ref().expect("33 dimensions are refused");
    assert_eq!(e.message, "nestingDepth of 33 exceeds the limit of 32");
    assert_eq!(r.stack.len(), 2);

    costs(
        "0 99999 RANGE 100000 RESHAPE LENGTH",
        "100000/1",
        2 * 1_700_000,
    );
    // Limits come before the leaf count (shapeMismatch).
    let r = run("[ 1 2 ] [ 100001 ] RESHAPE");
    refused(
        &r,
        "RESHAPE",
        "materializedElements",
        "materializedElements of 100001 exceeds the limit of 100000",
        "[ 1/1 2/1 ] | [ 100001/1 ]",
    );
    // materializedElements is checked before nestingDepth.
    let r = run(&format!("[ 1 ] [ {} 100001 ] RESHAPE", ones(40)));
    assert_eq!(
        r.error.as_ref().and_then(|e| e.resource),
        Some("materializedElements")
    );
    fails(
        "[ 1 2 3 ] [ 2 2 ] RESHAPE",
        "shapeMismatch",
        "[ 1/1 2/1 3/1 ] | [ 2/1 2/1 ]",
    );
}

#[test]
fn injected_materialized_limit() {
    let p = Profile::MCP_LOCAL_STDIO.with(Limit::MaterializedElements, 5);
    let ok = run_with("1 5 RANGE", p.clone());
    assert!(ok.error.is_none());
    let r = run_with("0 5 RANGE", p.clone());
    refused(
        &r,
        "RANGE",
        "materializedElements",
        "materializedElements of 6 exceeds the limit of 5",
        "0/1 | 5/1",
    );
    let r = run_with("[ 2 3 1 ] FILL", p);
    refused(
        &r,
        "FILL",
        "materializedElements",
        "materializedElements of 6 exceeds the limit of 5",
        "[ 2/1 3/1 1/1 ]",
    );
}

// ------------------------------------------------------------ operands left in place

#[test]
fn failures_leave_operands() {
    fails(
        "[ 1 2 3 ] 5 TAKE",
        "invalidArgument",
        "[ 1/1 2/1 3/1 ] | 5/1",
    );
    fails(
        "[ 1 2 3 ] [ 1 2 ] TAKE",
        "typeMismatch",
        "[ 1/1 2/1 3/1 ] | [ 1/1 2/1 ]",
    );
    fails("1 2 3 4 COLLECT", "stackUnderflow", "1/1 | 2/1 | 3/1 | 4/1");
    fails(
        "1 2 3 0 COLLECT",
        "invalidArgument",
        "1/1 | 2/1 | 3/1 | 0/1",
    );
    fails("[ 0 10 -1 ] RANGE", "invalidArgument", "[ 0/1 10/1 -1/1 ]");
    fails("5 RANGE", "stackUnderflow", "5/1");
    fails("[ 'b' 'a' ] SORT", "typeMismatch", "[ 'b' 'a' ]");
    fails(
        "[ 1 2 3 ] 3 9 PUT",
        "invalidArgument",
        "[ 1/1 2/1 3/1 ] | 3/1 | 9/1",
    );
    fails(
        "[ 1 2 3 ] [ 'a' 'b' ] GROUP",
        "shapeMismatch",
        "[ 1/1 2/1 3/1 ] | [ 'a' 'b' ]",
    );
    fails(
        "[ [ 1 2 ] [ 3 ] ] ZIP",
        "shapeMismatch",
        "[ [ 1/1 2/1 ] [ 3/1 ] ]",
    );
    fails(
        "[ 10 20 ] [ ] GET",
        "invalidArgument",
        "[ 10/1 20/1 ] | [ ]",
    );
    fails("[ 2 'x' ] FILL", "invalidArgument", "[ 2/1 'x' ]");
    fails("5 5 INDEX-OF", "typeMismatch", "5/1 | 5/1");
}

#[test]
fn keep_keeps_operands() {
    costs("1 2 2 KEEP COLLECT", "1/1 | 2/1 | 2/1 | [ 1/1 2/1 ]", 34);
    costs("0 2 KEEP RANGE", "0/1 | 2/1 | [ 0/1 1/1 2/1 ]", 51);
    costs("[ 0 2 ] KEEP RANGE", "[ 0/1 2/1 ] | [ 0/1 1/1 2/1 ]", 51);
}

// ------------------------------------------------------------ scale

#[test]
fn sort_and_order_large_inputs() {
    // A permutation of 0..99999 (a 400×250 transpose), then sorted back.
    let src = "0 99999 RANGE [ 400 250 ] RESHAPE ZIP 100000 RESHAPE KEEP SORT";
    let r = run(src);
    assert!(r.error.is_none(), "{:?}", r.error);
    let sorted = r.stack[1].as_vector().expect("a Vector");
    assert_eq!(sorted.len(), 100_000);
    assert!(sorted
        .items()
        .iter()
        .enumerate()
        .all(|(i, v)| *v == Value::num(i as i64)));

    let r = run("[ 99999 0 ] RANGE ORDER");
    assert!(r.error.is_none(), "{:?}", r.error);
    let order = r.stack[0].as_vector().expect("a Vector");
    assert!(order
        .items()
        .iter()
        .enumerate()
        .all(|(i, v)| *v == Value::num(99_999 - i as i64)));
}

#[test]
fn unique_large_input() {
    let r = run("0 99999 RANGE [ 2 50000 ] RESHAPE ZIP 100000 RESHAPE KEEP UNIQUE LENGTH");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(display(&r.stack[1]), "100000/1");
    let r = run("[ 100000 1 ] FILL 100000 RESHAPE KEEP TALLY");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(display(&r.stack[1]), "[ 100000/1 ]");
}
