//! Machine semantics that belong to no single Word: statements and VENT units, KEEP,
//! frames and bindings, tail calls and deep recursion, step counting, error positions
//! and attribution, and host interruption (docs/reference/lexical.md,
//! docs/reference/index.md#evaluation-in-one-paragraph, docs/reference/frames.md,
//! docs/reference/errors.md).

use crate::common::*;
use ajisai_core::display::display;
use ajisai_core::engine::{compute, Options};
use ajisai_core::limits::InterruptFlag;
use ajisai_core::{Limit, Profile};

#[test]
fn statements_bound_vent_units() {
    fails("5 ^\n6", "malformedSource");
    fails("NIL ^\n6", "malformedSource");
    ok("NIL ^ 6\n7", "6/1 | 7/1");
    ok("5 { 3 > | 10 * }\n{ IDLE | 0 }\nCOND", "50/1");
    fails("{ NIL ^ }", "malformedSource");
    fails("{ NIL ^ | 1 }", "malformedSource");
    let r = fails("1 PRINT NIL ^\n2", "malformedSource");
    assert!(
        r.output.is_empty(),
        "nothing runs before a structural error"
    );
}

#[test]
fn vent_units() {
    ok("1 0 / ^ 99", "99/1");
    ok("5 ^ 99", "5/1");
    ok("5 ^ UNDEFINED-FALLBACK", "5/1");
    ok("1 ^ 2 3 ADD", "4/1");
    ok("NIL ^ [ 1 2 ] 3", "[ 1/1 2/1 ] | 3/1");
    ok("5 ^ { 1 } 3", "5/1 | 3/1");
    ok("NIL ^ NIL ^ 7", "7/1");
    ok("5 ^ ^ 7", "5/1 | 7/1");
    fails("^ 5", "stackUnderflow");
    fails("{ 1 0 / ^ } 'F' DEF", "malformedSource");
}

#[test]
fn keep_modifier() {
    ok("1 2 KEEP +", "1/1 | 2/1 | 3/1");
    ok("1 2 KEEP 3 +", "1/1 | 2/1 | 3/1 | 5/1");
    ok("KEEP KEEP 1 NEG", "1/1 | -1/1");
    ok("{ + + } 'P2' DEF 1 2 3 KEEP P2", "1/1 | 2/1 | 3/1 | 6/1");
    ok("5 KEEP { TRUE } { 1 + } COND", "5/1 | 6/1");
    ok("1 2 3 KEEP { + + } EXEC", "1/1 | 2/1 | 3/1 | 6/1");
    // A pending flag does not leak out of the block it was written in.
    ok("1 { KEEP } EXEC NEG", "-1/1");
    // The low-water mark is the lowest depth the call reached, nested KEEP calls
    // included: W dips to depth 1 inside `KEEP ADD2`, so everything above depth 1
    // that W leaves ([ 2 8 ]) lands on the restored [ 1 2 3 ].
    ok(
        "{ + } 'ADD2' DEF { KEEP ADD2 + } 'W' DEF 1 2 3 KEEP W",
        "1/1 | 2/1 | 3/1 | 2/1 | 8/1",
    );
    ok(
        "{ + } 'ADD2' DEF { KEEP ADD2 + } 'W' DEF 1 2 3 W",
        "1/1 | 2/1 | 8/1",
    );
}

#[test]
fn bindings_and_frames() {
    ok(
        "[ 1 2 3 ] 'XS' BIND XS XS",
        "[ 1/1 2/1 3/1 ] | [ 1/1 2/1 3/1 ]",
    );
    ok("5 'T' BIND [ 1 2 3 ] { T + } MAP", "[ 6/1 7/1 8/1 ]");
    fails("5 'T' BIND { T } 'F' DEF F", "unknownWord");
    fails("{ 5 'Q' BIND } EXEC Q", "unknownWord");
    ok("5 'Q' BIND { 6 'Q' BIND Q } EXEC Q", "6/1 | 5/1");
    ok("{ 'V' BIND V V + } 'DBL' DEF 4 DBL", "8/1");
    fails("5 'T' BIND { EXEC } 'RUN' DEF { T } RUN", "unknownWord");
    ok("{ 9 'T' BIND EXEC } 'RUN3' DEF { T } RUN3", "9/1");
}

#[test]
fn unknown_word_says_binding_is_out_of_sight() {
    let r = fails("5 'T' BIND { T } 'F' DEF F", "unknownWord");
    let e = r.error.unwrap();
    assert!(e.message.starts_with("Unknown word: T"), "{}", e.message);
    assert!(e.message.contains("another frame"), "{}", e.message);
    assert_eq!(e.word.as_deref(), Some("T"));
}

#[test]
fn tail_calls_and_deep_recursion() {
    ok(
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 10000 CD",
        "'done'",
    );
    ok(
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 100 CD2",
        "100/1",
    );
    ok(
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 300 CD2",
        "300/1",
    );
    let r = run("{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 10000 CD2");
    assert_eq!(stack(&r), "10000/1");
    assert_eq!(r.usage.execution_steps, 50_004);
    let r = fails("{ R } 'R' DEF R", "resourceLimitExceeded");
    assert_eq!(r.error.unwrap().resource, Some("executionSteps"));
}

/// A limit that stops a run deep in recursion says so: the message names the innermost
/// Word and the depth, then gives the hint for a recursion without a base case; just
/// under the depth that is named, and for any other limit, the message is the limit's.
#[test]
fn a_limit_reached_deep_in_recursion_says_how_deep_and_how_to_end_it() {
    let r = fails("{ R } 'R' DEF R", "resourceLimitExceeded");
    let e = r.error.unwrap();
    assert_eq!(e.resource, Some("executionSteps"));
    assert!(
        e.message.contains("(R was 99,999 User Word calls deep: a recursion that never reaches its base case); hint: a recursive Word needs a base case"),
        "{}",
        e.message
    );
    // D called with n nests n + 1 calls, then refuses a million-element RANGE: 9,999
    // open calls are not named, 10,000 are.
    let calls = ajisai_core::outcome::DeepRecursion::CALLS;
    let under = format!(
        "{{ {{ 0 > | 1 - D 1 + }} {{ IDLE | 0 {} RANGE LENGTH }} COND }} 'D' DEF {} D",
        1_000_000,
        calls - 2
    );
    let e = fails(&under, "resourceLimitExceeded").error.unwrap();
    assert!(!e.message.contains("calls deep"), "{}", e.message);
    let over = format!(
        "{{ {{ 0 > | 1 - D 1 + }} {{ IDLE | 0 {} RANGE LENGTH }} COND }} 'D' DEF {} D",
        1_000_000,
        calls - 1
    );
    let e = fails(&over, "resourceLimitExceeded").error.unwrap();
    assert!(
        e.message.contains("(D was 10,000 User Word calls deep"),
        "{}",
        e.message
    );
}

#[test]
fn a_million_deep_non_tail_recursion_completes_under_the_cli_profile() {
    let source = "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 1000000 CD2";
    let r = run_with(source, Profile::CLI_LOCAL);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(stack(&r), "1000000/1");
}

#[test]
fn tail_iterations_keep_the_stack_discipline_of_nested_calls() {
    // Values below the COND target stay out of reach of later iterations.
    fails(
        "{ { 0 > | 1 - LOOP } { IDLE | + } COND } 'LOOP' DEF 1 2 3 LOOP",
        "stackUnderflow",
    );
    // A body leaving extra values: only the top is the clause result.
    ok(
        "{ { 0 > | 1 - 0 SWAPPY } { IDLE | 'end' } COND } 'SWAPPY' DEF 3 SWAPPY",
        "'end'",
    );
    ok(
        "{ { 0 > | 1 - 0 SWAPPY } { IDLE | 'end' } COND } 'SWAPPY' DEF 8 3 SWAPPY",
        "8/1 | 'end'",
    );
}

#[test]
fn step_counting() {
    assert_eq!(run("1 2 ADD").usage.execution_steps, 1);
    assert_eq!(run("{ 1 2 + } 'F' DEF F").usage.execution_steps, 3);
    assert_eq!(run("{ 1 2 + } EXEC").usage.execution_steps, 2);
    assert_eq!(run("[ 1 2 3 ] { 2 * } MAP").usage.execution_steps, 4);
    assert_eq!(run("[ 1 2 3 ] 'NEG' MAP").usage.execution_steps, 4);
    assert_eq!(
        run("1 KEEP NEG 5 'X' BIND X NOSUCH").usage.execution_steps,
        2
    );
}

#[test]
fn execution_steps_boundary() {
    // RANGE, MAP and one NEG per element: exactly the limit, then one step more.
    let r = run("0 99997 RANGE { NEG } MAP");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.usage.execution_steps, 100_000);
    let r = fails("0 99998 RANGE { NEG } MAP", "resourceLimitExceeded");
    let e = r.error.unwrap();
    assert_eq!(
        e.message,
        "executionSteps of 100001 exceeds the limit of 100000"
    );
    assert_eq!(e.resource, Some("executionSteps"));
    assert_eq!(e.word.as_deref(), Some("NEG"));
    assert_eq!(r.usage.execution_steps, 100_001);
    // MAP put its operands back: the Vector and the block.
    assert_eq!(r.stack.len(), 2);
}

#[test]
fn errors_carry_word_and_position() {
    let r = fails("1 2 +\n'a' 1 +", "typeMismatch");
    let e = r.error.unwrap();
    assert_eq!(e.word.as_deref(), Some("ADD"));
    let p = e.pos.unwrap();
    assert_eq!((p.line, p.column), (2, 7));
    let r = fails("[ 1 2 3 ] LENGHT", "unknownWord");
    let e = r.error.unwrap();
    assert_eq!(e.message, "Unknown word: LENGHT; closest: LENGTH");
    assert_eq!(e.word.as_deref(), Some("LENGHT"));
    assert_eq!((e.pos.unwrap().line, e.pos.unwrap().column), (1, 11));
    // Inside a User Word body: the failing token inside the body.
    let r = fails("{ 'x' NEG } 'W' DEF\nW", "typeMismatch");
    let e = r.error.unwrap();
    assert_eq!(e.word.as_deref(), Some("NEG"));
    assert_eq!(e.pos.unwrap().line, 1);
    // A Word named by a String code operand has no token: the MAP that applied it.
    let r = fails("[ 'a' ] 'NEG' MAP", "typeMismatch");
    assert_eq!(r.error.unwrap().pos.unwrap().column, 15);
}

#[test]
fn output_stays_after_a_later_error() {
    let r = fails("{ 9 PRINT 1 'a' + } 'W' DEF 5 W", "typeMismatch");
    assert_eq!(r.output, vec!["9/1".to_string()]);
    assert_eq!(stack(&r), "5/1 | 1/1 | 'a'");
}

#[test]
fn atomic_failure_leaves_operands() {
    let r = fails("1 'a' +", "typeMismatch");
    assert_eq!(stack(&r), "1/1 | 'a'");
    let r = fails("5 { TRUE } { 'a' 1 + } COND", "typeMismatch");
    assert_eq!(stack(&r), "(empty)");
}

#[test]
fn the_host_can_interrupt_a_running_program() {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let flag = InterruptFlag::new();
    let mut options = Options::new(Profile::CLI_LOCAL.with(Limit::ExecutionSteps, u64::MAX));
    options.interrupt = Some(flag.clone());
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        flag.raise();
    });
    let r = compute("{ LOOP } 'LOOP' DEF LOOP", &options);
    raiser.join().unwrap();
    assert!(r.interrupted);
    assert!(r.error.is_none());
}

#[test]
fn deep_values_built_at_run_time_do_not_crash() {
    // 200,000 nested one-element Vectors: compared, displayed and dropped iteratively.
    let source = "1 200000 RANGE [ ] { 'E' BIND 1 COLLECT } FOLD 'D' BIND D D = D LENGTH";
    let r = run_with(source, Profile::CLI_LOCAL);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(stack(&r), "TRUE | 1/1");
    let r = run_with(
        "1 200000 RANGE [ ] { 'E' BIND 1 COLLECT } FOLD",
        Profile::CLI_LOCAL,
    );
    let shown = display(&r.stack[0]);
    assert_eq!(shown.len(), 200_001 * 4 - 1);
}

/// COND with literal clause blocks just before it runs from clauses read when the
/// blocks compiled; the same call with the blocks reaching COND on the stack (here:
/// COND alone in a block EXEC runs) must give the same stack, output, error category,
/// message and Word, and the same work (EXEC costs one step of its own).
#[test]
fn literal_clause_blocks_select_as_clause_blocks_on_the_stack_do() {
    let programs = [
        "5 { 3 > | 10 * } { IDLE | 0 } COND",
        "1 { 3 > | 10 * } { IDLE | 0 } COND",
        "5 { 3 > } { 10 * } { IDLE } { 0 } COND",
        "4 { 9 } { TRUE | 1 } COND",
        "{ 9 } { TRUE | 1 } COND",
        "{ 9 } 'B' BIND B { TRUE | 1 } COND",
        "{ 9 } 'B' BIND B { TRUE } { 1 } COND",
        "{ TRUE | 1 } COND",
        "1 { } COND",
        "NIL ^ { TRUE | 1 } { IDLE | 2 } COND",
        "5 ^ { TRUE | 1 } { IDLE | 2 } COND",
        "1 0 / ^ { TRUE | 1 } { IDLE | 2 } COND",
        "1 { 0 } { 10 } { IDLE } { 20 } COND",
        "1 { TRUE } { PRINT } COND",
        "5 { TRUE | 1 } { TRUE } { 2 } COND",
        "5 { idle } { 1 } COND",
        "5 { TRUE } { 'a' 1 + } COND",
        "1 { 3 > } { 10 * } COND",
        "8 1 { 3 > } { 10 * } COND",
        "5 { 'x' BIND x 3 > | x 2 * } { IDLE | 0 } COND",
        "3 'x' BIND 5 { x > | x } { IDLE | 0 } COND",
        "5 { 'a' 1 + | 1 } { IDLE | 2 } COND",
        "5 { PRINT TRUE | 1 } COND",
        "7 5 { [ TRUE ] | 1 } COND",
        "5 { 3 > | { 4 > | 'big' } { IDLE | 'mid' } COND } { IDLE | 'small' } COND",
        "4 { 3 > | { 4 > | 'big' } { IDLE | 'mid' } COND } { IDLE | 'small' } COND",
        "1 0 / { IDLE | NIL-REASON } COND",
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 7 100 CD",
        "{ { 0 > | 1 - CD } { IDLE | 'x' BIND } COND } 'CD' DEF 9 5 CD",
        "{ { 0 > | 1 - KEEP CD } { IDLE | 'end' } COND } 'CD' DEF 3 CD",
        "{ { 0 > | 1 - CD 'a' + } { IDLE | 0 } COND } 'CD' DEF 3 CD",
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 6 CD2",
        "{ { 0 > | 1 - LOOP } { IDLE | + } COND } 'LOOP' DEF 1 2 3 LOOP",
        "{ { 0 > | 1 - 0 SWAPPY } { IDLE | 'end' } COND } 'SWAPPY' DEF 8 3 SWAPPY",
        "[ 3 1 2 ] { { 2 > | 'hi' } { IDLE | 'lo' } COND } MAP",
    ];
    for literal in programs.into_iter().chain(["5 KEEP { 3 > | 10 * } COND"]) {
        let on_stack = match literal {
            // KEEP modifies the Word after it: EXEC here, so it goes inside the block.
            "5 KEEP { 3 > | 10 * } COND" => "5 { 3 > | 10 * } { KEEP COND } EXEC".to_string(),
            _ => literal.replace("COND", "{ COND } EXEC"),
        };
        let (a, b) = (run(literal), run(&on_stack));
        assert_eq!(stack(&a), stack(&b), "stack of `{literal}`");
        assert_eq!(a.output, b.output, "output of `{literal}`");
        let error = |r: &ajisai_core::engine::ComputeReport| {
            r.error
                .as_ref()
                .map(|e| (e.category.id(), e.message.clone(), e.word.clone()))
        };
        assert_eq!(error(&a), error(&b), "error of `{literal}`");
        assert_eq!(a.usage.numeric_work, b.usage.numeric_work, "`{literal}`");
        // DEF reads the body it defines, which the rewrite made longer: compare the work
        // of programs that define nothing.
        if !literal.contains("DEF") {
            assert_eq!(
                a.usage.collection_work, b.usage.collection_work,
                "`{literal}`"
            );
        }
        assert!(
            a.usage.collection_work <= b.usage.collection_work,
            "`{literal}`"
        );
    }
}

/// A `{ guard | body }` clause compiled whole runs its guard up to the `|` and its
/// body after it in one frame; one built by REFLECT (not compiled yet) runs as two
/// halves compiled apart. Both must agree, VENT just before the `|` included.
#[test]
fn clauses_compiled_whole_agree_with_clauses_split_in_halves() {
    let cases: [(&str, &[&str]); 14] = [
        ("5", &["{ 3 > | 10 * }", "{ IDLE | 0 }"]),
        ("1", &["{ 3 > | 10 * }", "{ IDLE | 0 }"]),
        ("5", &["{ 1 ^ | 2 }", "{ IDLE | 3 }"]),
        ("5", &["{ TRUE ^ | 2 }", "{ IDLE | 3 }"]),
        ("5", &["{ NIL ^ | 2 }", "{ IDLE | 3 }"]),
        ("1 0 /", &["{ ^ TRUE | 2 }"]),
        ("5", &["{ 'x' BIND x 3 > | x 2 * }"]),
        ("5", &["{ 'x' BIND FALSE | 1 }", "{ IDLE | x }"]),
        ("5", &["{ 'x' BIND TRUE | x }"]),
        ("5", &["{ PRINT TRUE | 1 }"]),
        ("5", &["{ TRUE KEEP | 1 + }"]),
        ("5", &["{ FALSE | 1 }", "{ 'a' 1 + | 2 }", "{ IDLE | 3 }"]),
        ("5", &["{ IDLE | 'x' BIND }"]),
        (
            "5",
            &[
                "{ 4 > | { 6 > | 'big' } { IDLE | 'mid' } COND }",
                "{ IDLE | 0 }",
            ],
        ),
    ];
    for (target, clauses) in cases {
        let whole = format!("{target} {} COND", clauses.join(" "));
        let halves = format!(
            "{target} {} COND",
            clauses
                .iter()
                .map(|c| format!("{c} REFLECT REFLECT"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let (a, b) = (run(&whole), run(&halves));
        assert_eq!(stack(&a), stack(&b), "stack of `{whole}`");
        assert_eq!(a.output, b.output, "output of `{whole}`");
        let error = |r: &ajisai_core::engine::ComputeReport| {
            r.error
                .as_ref()
                .map(|e| (e.category.id(), e.message.clone(), e.word.clone()))
        };
        assert_eq!(error(&a), error(&b), "error of `{whole}`");
    }
}
