//! MAP, FILTER, FOLD, ANY and ALL beyond their examples: step counts
//! (docs/reference/pricing-and-limits.md#execution-steps), the stack after an ERROR
//! (docs/reference/errors.md#the-stack-after-an-error), isolation and bindings
//! (docs/reference/frames.md),
//! visiting order and short-circuiting, and long walks that must not recurse natively.

use crate::common::*;
use ajisai_core::display::display;
use ajisai_core::{Limit, Profile};

fn steps(source: &str) -> u64 {
    run(source).usage.execution_steps
}

#[test]
fn step_counts() {
    // docs/reference/pricing-and-limits.md#execution-steps: MAP itself, then one step per Word
    // dispatched inside the block.
    assert_eq!(steps("[ 1 2 3 ] { 2 * } MAP"), 4);
    assert_eq!(steps("[ TRUE FALSE TRUE ] { NOT } MAP"), 4);
    // A String code operand costs one step per application.
    assert_eq!(steps("[ TRUE FALSE TRUE ] 'NOT' MAP"), 4);
    assert_eq!(steps("{ NOT } 'N' DEF [ TRUE FALSE ] 'N' MAP"), 6);
    // Literals and binding references cost nothing; an empty walk costs only the Word.
    assert_eq!(steps("[ 1 2 3 ] { } MAP"), 1);
    assert_eq!(steps("[ ] 'NOT' MAP"), 1);
    assert_eq!(steps("NIL 'NOT' MAP"), 2);
    // FALSE outside a Vector literal is a Word invocation: a step of its own.
    assert_eq!(steps("[ TRUE ] FALSE { OR } FOLD"), 3);
    // Short-circuit: nothing after the deciding element is evaluated.
    assert_eq!(steps("[ TRUE FALSE FALSE ] { NOT NOT } ANY"), 3);
    assert_eq!(steps("[ FALSE TRUE TRUE ] { NOT NOT } ALL"), 3);
    assert_eq!(steps("[ TRUE TRUE TRUE ] { NOT NOT } ALL"), 7);
    // A failing check still cost the Word's step; an unknown name costs none.
    assert_eq!(steps("5 'FOO' MAP"), 1);
    assert_eq!(steps("[ 1 ] { FOO } MAP"), 1);
}

#[test]
fn operands_are_put_back_on_error() {
    // docs/reference/errors.md#the-stack-after-an-error: the collection and the block are put back,
    // whatever the block did.
    let r = fails_leaving(
        "[ 1 2 ] { PRINT } MAP",
        "blockViolation",
        "[ 1/1 2/1 ] | { PRINT }",
    );
    assert_eq!(r.output, ["1/1"]);
    fails_leaving(
        "7 [ TRUE 5 ] { NOT } MAP",
        "typeMismatch",
        "7/1 | [ TRUE 5/1 ] | { NOT }",
    );
    fails_leaving(
        "[ TRUE 5 ] 'NOT' MAP",
        "typeMismatch",
        "[ TRUE 5/1 ] | 'NOT'",
    );
    fails_leaving("[ 1 2 ] { } FILTER", "blockViolation", "[ 1/1 2/1 ] | { }");
    fails_leaving(
        "[ FALSE 1 ] { 9 9 } ANY",
        "blockViolation",
        "[ FALSE 1/1 ] | { 9 9 }",
    );
    fails_leaving(
        "[ TRUE NIL ] { } ALL",
        "blockViolation",
        "[ TRUE NIL ] | { }",
    );
    // Under KEEP the collection is there once.
    fails_leaving(
        "[ 1 2 ] KEEP { PRINT } MAP",
        "blockViolation",
        "[ 1/1 2/1 ] | { PRINT }",
    );
    fails_leaving(
        "[ TRUE 5 ] KEEP { NOT } FILTER",
        "typeMismatch",
        "[ TRUE 5/1 ] | { NOT }",
    );
    // FOLD puts back the initial accumulator, not the current one [ref-diff].
    fails_leaving(
        "[ FALSE 5 ] TRUE { AND } FOLD",
        "typeMismatch",
        "[ FALSE 5/1 ] | TRUE | { AND }",
    );
    fails_leaving(
        "[ FALSE 5 ] TRUE KEEP { AND } FOLD",
        "typeMismatch",
        "[ FALSE 5/1 ] | TRUE | { AND }",
    );
    fails_leaving(
        "[ 1 ] 0 { PRINT PRINT } FOLD",
        "blockViolation",
        "[ 1/1 ] | 0/1 | { PRINT PRINT }",
    );
    // Nested walks: the inner failure unwinds through the outer Word too.
    fails_leaving(
        "[ [ 1 ] ] { { PRINT } MAP } MAP",
        "blockViolation",
        "[ [ 1/1 ] ] | { { PRINT } MAP }",
    );
    // Checks before the walk leave everything in place
    // (docs/reference/errors.md#the-stack-after-an-error).
    fails_leaving("[ 1 ] 5 MAP", "typeMismatch", "[ 1/1 ] | 5/1");
    fails_leaving("[ 1 ] 'FOO' FILTER", "unknownWord", "[ 1/1 ] | 'FOO'");
    fails_leaving("'ab' { } MAP", "typeMismatch", "'ab' | { }");
    fails_leaving("'ab' 0 { } FOLD", "typeMismatch", "'ab' | 0/1 | { }");
    fails_leaving(
        "[ 1 ] { 1 | 2 } MAP",
        "malformedSource",
        "[ 1/1 ] | { 1 | 2 }",
    );
}

#[test]
fn code_operand_is_checked_before_the_collection() {
    fails_leaving("5 'FOO' MAP", "unknownWord", "5/1 | 'FOO'");
    fails_leaving("NIL 5 MAP", "typeMismatch", "NIL | 5/1");
    fails_leaving("NIL NIL ANY", "typeMismatch", "NIL | NIL");
    fails_leaving("5 0 NIL FOLD", "typeMismatch", "5/1 | 0/1 | NIL");
    fails_leaving("[ ] 'KEEP' ALL", "unknownWord", "[ ] | 'KEEP'");
    fails_leaving("[ ] '^' ALL", "unknownWord", "[ ] | '^'");
    fails_leaving("[ ] 'IDLE' ALL", "unknownWord", "[ ] | 'IDLE'");
    fails_leaving("1 'B' BIND [ ] 'B' ALL", "unknownWord", "[ ] | 'B'");
    // Aliases and case resolve like source names.
    ok("[ TRUE ] 'not' MAP", "[ FALSE ]");
    ok("[ ] 'nil?' MAP", "[ ]");
}

#[test]
fn nil_collections() {
    ok("NIL { } MAP NIL-REASON", "NIL | 'literal'");
    ok("NIL { } FILTER", "NIL");
    ok("NIL 7 { } FOLD", "7/1");
    ok("NIL NIL { } FOLD NIL-REASON", "NIL | 'literal'");
    ok("NIL { } ANY", "FALSE");
    ok("NIL { } ALL", "TRUE");
    ok("NIL KEEP { } ANY", "NIL | FALSE");
    ok("NIL 7 KEEP { } FOLD", "NIL | 7/1");
}

#[test]
fn keep_keeps_only_the_collection() {
    ok("[ TRUE ] KEEP 'NOT' MAP", "[ TRUE ] | [ FALSE ]");
    ok("[ TRUE ] FALSE KEEP { OR } FOLD", "[ TRUE ] | TRUE");
    ok("[ ] 5 KEEP { } FOLD", "[ ] | 5/1");
    ok(
        "[ TRUE FALSE ] KEEP { } FILTER",
        "[ TRUE FALSE ] | [ TRUE ]",
    );
    ok("[ FALSE ] KEEP { } ALL", "[ FALSE ] | FALSE");
    // KEEP written inside the block applies there, not to the walk.
    let r = ok("[ TRUE ] { KEEP PRINT } ANY", "TRUE");
    assert_eq!(r.output, ["TRUE"]);
}

#[test]
fn frames_are_isolated_and_see_outer_bindings() {
    // The frame holds only the element (or accumulator then element).
    fails_leaving(
        "9 [ 1 ] { NOT NOT } MAP",
        "typeMismatch",
        "9/1 | [ 1/1 ] | { NOT NOT }",
    );
    fails_leaving(
        "9 [ TRUE ] { AND } MAP",
        "stackUnderflow",
        "9/1 | [ TRUE ] | { AND }",
    );
    let r = ok("[ 'b' ] 'a' { PRINT PRINT TRUE } FOLD", "TRUE");
    assert_eq!(
        r.output,
        ["b", "a"],
        "the element is on top of the accumulator"
    );
    // Values below the top are discarded with the frame.
    ok("[ TRUE ] { 1 2 FALSE } MAP", "[ FALSE ]");
    // Bindings visible where the Word runs are visible in the block.
    ok("5 'T' BIND [ TRUE FALSE ] { T } MAP", "[ 5/1 5/1 ]");
    ok("[ 1 2 ] { 'X' BIND X X } MAP", "[ 1/1 2/1 ]");
    // A binding made in an element's frame ends with it.
    fails_leaving("[ 1 ] { 'X' BIND TRUE } MAP X", "unknownWord", "[ TRUE ]");
    // A block handed to a User Word sees that Word's bindings.
    ok("{ 3 'K' BIND MAP } 'W' DEF [ TRUE ] { K } W", "[ 3/1 ]");
    // Effects happen in visiting order.
    let r = ok("[ 1 2 3 ] { PRINT TRUE } ALL", "TRUE");
    assert_eq!(r.output, ["1/1", "2/1", "3/1"]);
    let r = ok("[ 1 2 3 ] { PRINT FALSE } FILTER", "[ ]");
    assert_eq!(r.output, ["1/1", "2/1", "3/1"]);
}

#[test]
fn walks_need_no_native_recursion() {
    // A long walk runs in constant native stack (JSON-DECODE builds the Vector).
    let n: u64 = 200_000;
    let items = vec!["true"; n as usize].join(",");
    let src = format!("'[{items}]' JSON-DECODE KEEP {{ NOT }} MAP {{ NOT }} FILTER {{ NOT }} ALL");
    let r = run_with(&src, Profile::CLI_LOCAL);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.stack.len(), 2);
    assert_eq!(display(&r.stack[1]), "TRUE");
    assert_eq!(r.usage.execution_steps, 4 + 3 * n);

    // A User Word recursing through MAP over a Vector nested 100,000 deep: the
    // recursion lives in the machine's frames, not on the native stack.
    let d: u64 = 100_000;
    let text = format!("{}{}", "[".repeat(d as usize), "]".repeat(d as usize));
    let src = format!("'{text}' JSON-DECODE {{ 'DIVE' MAP }} 'DIVE' DEF DIVE JSON-ENCODE");
    let r = run_with(
        &src,
        Profile::CLI_LOCAL.with(Limit::NestingDepth, 1_000_000),
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.stack.len(), 1);
    assert_eq!(r.stack[0].as_str(), Some(text.as_str()));
    assert_eq!(r.usage.execution_steps, 3 + 2 * d);
}

#[test]
fn blocks_built_by_reflect() {
    ok(
        "[ TRUE FALSE ] [ 'AJISAI-CODE-1' [ 'symbol' 'NOT' ] ] REFLECT MAP",
        "[ FALSE TRUE ]",
    );
    // Literal limits are checked when the block is about to run, once, before any element.
    let wide = "[ 'AJISAI-CODE-1' [ 'number' '1e1000000' ] ] REFLECT";
    ok(&format!("[ ] {wide} MAP"), "[ ]");
    let r = run(&format!("[ TRUE ] {wide} MAP"));
    let e = r.error.as_ref().expect("the literal is too wide");
    assert_eq!(e.resource, Some("bigintBits"));
    assert_eq!(stack(&r), "[ TRUE ] | { 1e1000000 }");
    // A '|' in a block built by REFLECT is malformed when it runs; the operands stay.
    let bar = "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'cond-clause-sep' ] [ 'number' '2' ] ] REFLECT";
    let r = run(&format!("[ 1 ] {bar} MAP"));
    assert_eq!(
        r.error.as_ref().map(|e| e.category.id()),
        Some("malformedSource")
    );
    assert_eq!(stack(&r), "[ 1/1 ] | { 1 | 2 }");
}
