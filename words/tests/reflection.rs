//! REFLECT beyond its examples (docs/words/reflection.md#reflect): both round trips over a corpus
//! of blocks, strict decoding with messages that name the bad record, deep inputs that must not
//! recurse natively, and decoded blocks that are checked only when run.

use ajisai_core::code::Block;
use ajisai_core::display::display;
use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::lexer::TokKind;
use ajisai_core::parser::{build, check_structure, flatten};
use ajisai_core::value::{Value, Vector};
use ajisai_core::Profile;
use ajisai_words::reflection::{decode, encode};
use std::sync::Arc;

fn run_with(source: &str, profile: Profile) -> ComputeReport {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    compute(source, &Options::new(profile))
}

fn run(source: &str) -> ComputeReport {
    run_with(source, Profile::MCP_LOCAL_STDIO)
}

fn top(source: &str) -> Value {
    let r = run(source);
    assert!(r.error.is_none(), "`{source}` failed: {:?}", r.error);
    r.stack.last().cloned().expect("a value")
}

fn error_message(source: &str) -> String {
    let r = run(source);
    let e = r.error.unwrap_or_else(|| panic!("`{source}` did not fail"));
    assert_eq!(
        e.category.id(),
        "invalidArgument",
        "`{source}`: {}",
        e.message
    );
    e.message
}

/// Blocks covering every token kind, nesting, line breaks and VENT spellings.
const BLOCKS: &[&str] = &[
    "{ }",
    "{ 1 }",
    "{ 1 2\n3 }",
    "{ 'a b' [ 1 ] { x } ^ 0 | add 1/2 VENT 2 }",
    "{ [ ^ ] }",
    "{ [ ^ 1 vent VENT ] }",
    "{ 007 -0 1.5e-3 2E+2 4/6 }",
    "{ 'It's fine' '' '''' }",
    "{ [ foo Bar + TRUE nil ] }",
    "{ { { { 1 } } } [ [ [ ] ] ] }",
    "{ [ { 1 | 2 } ] }",
    "{ 1 ^ [ 2 ] ^ { 3 } vEnT x }",
    "{ \n 1 \n [ 1\n2 ] }",
    "{ IDLE | 'done' }",
    "{ '\u{e9}\u{1F600}' \u{3042} }",
];

#[test]
fn block_round_trip_is_the_identity() {
    for b in BLOCKS {
        let original = top(b);
        let back = top(&format!("{b} REFLECT REFLECT"));
        assert_eq!(back, original, "`{b}`");
        assert_eq!(display(&back), display(&original), "`{b}`");
    }
}

#[test]
fn data_round_trip_is_the_identity() {
    for b in BLOCKS {
        let data = top(&format!("{b} REFLECT"));
        let again = top(&format!("{b} REFLECT REFLECT REFLECT"));
        assert_eq!(again, data, "`{b}`");
    }
    // Code data the lexer would never produce round-trips too.
    for data in [
        "[ 'AJISAI-CODE-1' [ 'line-break' ] [ 'line-break' ] [ 'number' '1' ] [ 'line-break' ] ]",
        "[ 'AJISAI-CODE-1' [ 'string' 'a'b' ] [ 'symbol' 'x'y' ] ]",
        "[ 'AJISAI-CODE-1' [ 'vector-start' ] [ 'symbol' 'VeNt' ] [ 'line-break' ] [ 'vector-end' ] ]",
    ] {
        let v = top(data);
        let again = top(&format!("{data} REFLECT REFLECT"));
        assert_eq!(again, v, "`{data}`");
    }
}

#[test]
fn encoding_keeps_lexemes_and_spellings() {
    let v = top("{ 1 1/1 1.0 ADD add + 'ADD' } REFLECT");
    assert_eq!(
        display(&v),
        "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'number' '1/1' ] [ 'number' '1.0' ] [ 'symbol' 'ADD' ] [ 'symbol' 'add' ] [ 'symbol' '+' ] [ 'string' 'ADD' ] ]"
    );
    assert_eq!(
        display(&top("{ TRUE FALSE NIL } REFLECT")),
        "[ 'AJISAI-CODE-1' [ 'symbol' 'TRUE' ] [ 'symbol' 'FALSE' ] [ 'symbol' 'NIL' ] ]"
    );
    assert_eq!(
        display(&top("{ 1 # comment\n2 } REFLECT")),
        "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'line-break' ] [ 'number' '2' ] ]"
    );
    assert_eq!(
        display(&top("{ NIL ^ 1 } REFLECT")),
        "[ 'AJISAI-CODE-1' [ 'symbol' 'NIL' ] [ 'nil-coalesce' ] [ 'number' '1' ] ]"
    );
    // VENT spelled any way outside a vector is the directive.
    assert_eq!(
        display(&top("{ 1 vent 2 } REFLECT")),
        "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'nil-coalesce' ] [ 'number' '2' ] ]"
    );
}

#[test]
fn decoding_does_not_consult_the_dictionary() {
    assert_eq!(
        display(&top(
            "[ 'AJISAI-CODE-1' [ 'symbol' 'UNDEFINED-BY-REFLECT' ] ] REFLECT"
        )),
        "{ UNDEFINED-BY-REFLECT }"
    );
    let r = run("[ 'AJISAI-CODE-1' [ 'symbol' 'NOPE' ] ] REFLECT EXEC");
    assert_eq!(r.error.map(|e| e.category.id()), Some("unknownWord"));
}

#[test]
fn decoded_blocks_are_checked_when_run() {
    // Limits apply when the block is evaluated, not when it is built.
    let data = "[ 'AJISAI-CODE-1' [ 'number' '1e99999' ] ]";
    assert_eq!(display(&top(&format!("{data} REFLECT"))), "{ 1e99999 }");
    for runner in ["EXEC", "'BIG' DEF BIG"] {
        let r = run(&format!("{data} REFLECT {runner}"));
        let e = r.error.expect("too wide");
        assert_eq!(e.category.id(), "resourceLimitExceeded", "{runner}");
        assert_eq!(e.resource, Some("bigintBits"), "{runner}");
    }
    // Nesting is measured when run too.
    let mut deep = String::from("[ 'AJISAI-CODE-1' ");
    deep.push_str(&"[ 'vector-start' ] ".repeat(40));
    deep.push_str(&"[ 'vector-end' ] ".repeat(40));
    deep.push(']');
    let r = run(&format!("{deep} REFLECT"));
    assert!(r.error.is_none(), "{:?}", r.error);
    let r = run(&format!("{deep} REFLECT EXEC"));
    assert_eq!(r.error.and_then(|e| e.resource), Some("nestingDepth"));
    // A decoded block runs like the same block written in source.
    assert_eq!(
        display(&top(
            "[ 'AJISAI-CODE-1' [ 'symbol' 'TRUE' ] [ 'symbol' 'NOT' ] ] REFLECT EXEC"
        )),
        "FALSE"
    );
    let r = run("[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'symbol' 'x' ] ] REFLECT 'W' DEF W");
    assert_eq!(r.error.map(|e| e.category.id()), Some("unknownWord"));
}

#[test]
fn decoding_errors_name_the_record() {
    assert!(error_message("[ ] REFLECT").contains("the Vector is empty"));
    assert!(error_message("[ 'X' ] REFLECT").contains("must start with the String 'AJISAI-CODE-1'"));
    assert!(error_message("[ 1 ] REFLECT").contains("starts with the Number 1/1"));
    assert!(error_message("[ 'AJISAI-CODE-1' 5 ] REFLECT").contains("record 1 must be a Vector"));
    assert!(error_message("[ 'AJISAI-CODE-1' [ ] ] REFLECT").contains("record 1 is empty"));
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 1 ] ] REFLECT").contains("must start with a tag String")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'line-break' ] [ 'bogus' 'x' ] ] REFLECT")
            .contains("record 2 has the unknown tag 'bogus'")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'number' '1' 'extra' ] ] REFLECT")
            .contains("exactly two elements")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'string' ] ] REFLECT").contains("exactly two elements")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'string' [ 'x' ] ] ] REFLECT")
            .contains("must be a String")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'number' 'abc' ] ] REFLECT")
            .contains("'abc' is not a single number lexeme")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'block-end' 'x' ] ] REFLECT")
            .contains("must hold only its tag")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'block-start' ] ] REFLECT").contains("unclosed '{'")
    );
    assert!(
        error_message("[ 'AJISAI-CODE-1' [ 'cond-clause-sep' ] ] REFLECT")
            .contains("'cond-clause-sep' at the top")
    );
}

#[test]
fn symbol_payloads_are_single_names() {
    for bad in [
        "12", "-1/2", "", "a b", "a\nb", "|", "[", "}", "#x", "a#b", "'x", "(", "^", "VENT", "vent",
    ] {
        let src = format!("[ 'AJISAI-CODE-1' [ 'symbol' '{bad}' ] [ 'number' '1' ] ] REFLECT");
        error_message(&src);
    }
    for good in [
        "x",
        "ADD",
        "+",
        "-",
        "x'",
        "\"hi\"",
        ".5",
        "1_000",
        "0x10",
        "IDLE",
        "\u{ff11}\u{ff12}",
    ] {
        let src = format!("[ 'AJISAI-CODE-1' [ 'symbol' '{good}' ] ] REFLECT");
        assert_eq!(display(&top(&src)), format!("{{ {good} }}"), "{good}");
    }
    // `^` and VENT spellings are names only directly inside a vector.
    for spelling in ["^", "VENT", "vent"] {
        let inside = format!("[ 'AJISAI-CODE-1' [ 'vector-start' ] [ 'symbol' '{spelling}' ] [ 'vector-end' ] ] REFLECT");
        assert_eq!(display(&top(&inside)), format!("{{ [ {spelling} ] }}"));
        let in_block = format!(
            "[ 'AJISAI-CODE-1' [ 'vector-start' ] [ 'block-start' ] [ 'symbol' '{spelling}' ] [ 'number' '1' ] [ 'block-end' ] [ 'vector-end' ] ] REFLECT"
        );
        error_message(&in_block);
    }
    // A symbol '^' inside a vector decodes to the String '^' when run.
    assert_eq!(
        display(&top(
            "[ 'AJISAI-CODE-1' [ 'vector-start' ] [ 'symbol' '^' ] [ 'vector-end' ] ] REFLECT EXEC"
        )),
        "[ '^' ]"
    );
}

#[test]
fn number_payloads_are_single_lexemes() {
    for bad in [
        "", " 1", "1 ", ".5", "5.", "1e", "1/-3", "0x10", "1/0", "-1/000", "\u{ff11}",
    ] {
        error_message(&format!("[ 'AJISAI-CODE-1' [ 'number' '{bad}' ] ] REFLECT"));
    }
    for good in ["007", "-0", "+7", "4/6", "1.5e-3", "2E+2", "00/01"] {
        let src = format!("[ 'AJISAI-CODE-1' [ 'number' '{good}' ] ] REFLECT");
        assert_eq!(display(&top(&src)), format!("{{ {good} }}"));
    }
}

#[test]
fn structural_rules_apply_to_decoded_tokens() {
    for bad in [
        "[ 'vector-end' ]",
        "[ 'block-start' ] [ 'vector-end' ]",
        "[ 'vector-start' ] [ 'block-end' ]",
        "[ 'cond-clause-sep' ]",
        "[ 'vector-start' ] [ 'cond-clause-sep' ] [ 'vector-end' ]",
        "[ 'block-start' ] [ 'vector-start' ] [ 'cond-clause-sep' ] [ 'vector-end' ] [ 'block-end' ]",
        "[ 'nil-coalesce' ]",
        "[ 'number' '1' ] [ 'nil-coalesce' ]",
        "[ 'nil-coalesce' ] [ 'line-break' ] [ 'number' '1' ]",
        "[ 'nil-coalesce' ] [ 'vector-end' ]",
        "[ 'block-start' ] [ 'nil-coalesce' ] [ 'block-end' ]",
        "[ 'block-start' ] [ 'nil-coalesce' ] [ 'cond-clause-sep' ] [ 'number' '1' ] [ 'block-end' ]",
        "[ 'vector-start' ] [ 'nil-coalesce' ] [ 'number' '1' ] [ 'vector-end' ]",
    ] {
        error_message(&format!("[ 'AJISAI-CODE-1' {bad} ] REFLECT"));
    }
    for good in [
        (
            "[ 'nil-coalesce' ] [ 'nil-coalesce' ] [ 'number' '7' ]",
            "{ ^ ^ 7 }",
        ),
        (
            "[ 'nil-coalesce' ] [ 'vector-start' ] [ 'vector-end' ]",
            "{ ^ [ ] }",
        ),
        (
            "[ 'nil-coalesce' ] [ 'block-start' ] [ 'block-end' ]",
            "{ ^ { } }",
        ),
        (
            "[ 'cond-clause-sep' ] [ 'vector-start' ] [ 'vector-end' ]",
            "{ | [ ] }",
        ),
    ] {
        let src = format!(
            "[ 'AJISAI-CODE-1' [ 'block-start' ] {} [ 'block-end' ] ] REFLECT",
            good.0
        );
        assert_eq!(display(&top(&src)), format!("{{ {} }}", good.1));
    }
    // `|` at the top of the decoded block separates a clause: tokens on both sides.
    assert_eq!(
        display(&top(
            "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'cond-clause-sep' ] [ 'number' '2' ] ] REFLECT"
        )),
        "{ 1 | 2 }"
    );
    assert_eq!(
        display(&top("[ 'AJISAI-CODE-1' [ 'vector-start' ] [ 'vector-end' ] [ 'cond-clause-sep' ] [ 'block-start' ] [ 'block-end' ] [ 'cond-clause-sep' ] [ 'symbol' 'x' ] ] REFLECT")),
        "{ [ ] | { } | x }"
    );
    for lone in [
        "[ 'cond-clause-sep' ] [ 'number' '2' ]",
        "[ 'number' '1' ] [ 'cond-clause-sep' ]",
        "[ 'number' '1' ] [ 'cond-clause-sep' ] [ 'line-break' ]",
        "[ 'number' '1' ] [ 'cond-clause-sep' ] [ 'cond-clause-sep' ] [ 'number' '2' ]",
    ] {
        error_message(&format!("[ 'AJISAI-CODE-1' {lone} ] REFLECT"));
    }
    // A clause block built from data is a clause COND can take; running it
    // directly is malformed, like the same block written in source.
    let r = run("1 [ 'AJISAI-CODE-1' [ 'symbol' 'IDLE' ] [ 'cond-clause-sep' ] [ 'number' '2' ] ] REFLECT COND");
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(display(&r.stack[0]), "2/1");
    let r = run(
        "[ 'AJISAI-CODE-1' [ 'number' '1' ] [ 'cond-clause-sep' ] [ 'number' '2' ] ] REFLECT EXEC",
    );
    assert_eq!(r.error.map(|e| e.category.id()), Some("malformedSource"));
}

#[test]
fn keep_nil_and_domains() {
    let r = run("{ 1 } KEEP REFLECT");
    assert_eq!(r.stack.len(), 2);
    let r = run("NIL REFLECT");
    assert_eq!(
        r.error.as_ref().map(|e| e.category.id()),
        Some("typeMismatch")
    );
    assert_eq!(r.stack.len(), 1, "operands stay on error");
    for v in ["1", "'x'", "TRUE", "NIL"] {
        let r = run(&format!("{v} REFLECT"));
        assert_eq!(
            r.error.map(|e| e.category.id()),
            Some("typeMismatch"),
            "{v}"
        );
    }
}

/// A block of `depth` nested blocks around one number, built directly.
fn nested_block(depth: usize) -> Arc<Block> {
    use ajisai_core::lexer::{Delim, Tok};
    let mut tokens = Vec::with_capacity(2 * depth + 1);
    for _ in 0..depth {
        tokens.push(Tok {
            kind: TokKind::Open(Delim::Block),
            pos: None,
        });
    }
    tokens.push(Tok {
        kind: TokKind::Number("1".into()),
        pos: None,
    });
    for _ in 0..depth {
        tokens.push(Tok {
            kind: TokKind::Close(Delim::Block),
            pos: None,
        });
    }
    check_structure(&tokens).expect("balanced");
    build(&tokens)
}

#[test]
fn deep_blocks_do_not_recurse_natively() {
    let depth = 200_000;
    let block = nested_block(depth);
    let data = encode(&block);
    let Value::Vector(records) = &data else {
        panic!("code data is a Vector")
    };
    assert_eq!(records.len(), 2 * depth + 2);
    let back = decode(records).expect("valid code data");
    let (a, b) = (flatten(&block), flatten(&back));
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| x.kind == y.kind));
    // And through the engine, under the CLI profile.
    let mut src = "{ ".repeat(50_000);
    src.push('1');
    src.push_str(&" }".repeat(50_000));
    src.push_str(" REFLECT REFLECT REFLECT");
    let r = run_with(&src, Profile::CLI_LOCAL);
    assert!(r.error.is_none(), "{:?}", r.error);
    let Some(Value::Vector(records)) = r.stack.last() else {
        panic!("code data")
    };
    // The outer braces are the block itself: 2 · 49,999 + 1 tokens and the header.
    assert_eq!(records.len(), 100_000);
}

#[test]
fn a_long_flat_record_list_decodes() {
    let mut items = vec![Value::str("AJISAI-CODE-1")];
    for i in 0..100_000 {
        items.push(Value::vector(vec![
            Value::str("number"),
            Value::str(i.to_string()),
        ]));
        items.push(Value::vector(vec![Value::str("line-break")]));
    }
    let block = decode(&Vector::new(items)).expect("valid");
    assert_eq!(block.items().len(), 200_000);
}
