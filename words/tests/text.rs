//! CHARS, JOIN, TRIM, TOKENIZE, NUM and STR beyond their examples: NUM's limits
//! (the source lexeme limits, operand left in place), NUM/STR round trips, scalar
//! value boundaries of JOIN, KEEP, and deep Vectors for STR.

use crate::common::*;
use ajisai_core::display::display;
use ajisai_core::{Limit, Profile};

#[test]
fn num_reads_exactly_the_source_grammar() {
    for (text, value) in [
        ("42", "42/1"),
        ("-7", "-7/1"),
        ("+7", "7/1"),
        ("4/6", "2/3"),
        ("-1/3", "-1/3"),
        ("0.5", "1/2"),
        ("3.14", "157/50"),
        ("1.5e-3", "3/2000"),
        ("2E+2", "200/1"),
        ("-2.5e1", "-25/1"),
        ("007", "7/1"),
        ("-0", "0/1"),
        ("00/01", "0/1"),
    ] {
        ok(&format!("'{text}' NUM"), value);
    }
    for text in [
        ".5", "5.", "1e", "1/-3", "1/2e3", "1.5/2", "1_000", "0x10", "12abc", "-", "+", " 1", "1 ",
        "1/0", "-1/00", "", "１２", "1e+",
    ] {
        let r = ok(
            &format!("'{text}' NUM NIL-REASON"),
            "NIL | 'invalidEncoding'",
        );
        assert_eq!(r.usage.execution_steps, 2);
    }
}

#[test]
fn num_limits_leave_the_operand() {
    let digits = "9".repeat(4096);
    let r = ok(&format!("'{digits}' NUM STR"), &format!("'{digits}'"));
    assert_eq!(r.stack[0].as_str(), Some(digits.as_str()));
    let over = "9".repeat(4097);
    let r = fails_leaving(
        &format!("'{over}' NUM"),
        "resourceLimitExceeded",
        &format!("'{over}'"),
    );
    let e = r.error.unwrap();
    assert_eq!(e.resource, Some("numericLiteralDigits"));
    assert_eq!(
        e.message,
        "numericLiteralDigits of 4097 exceeds the limit of 4096"
    );
    // The digit count decides before the value is looked at (a zero denominator included).
    let zeros = format!("1/{}", "0".repeat(4096));
    fails_leaving(
        &format!("'{zeros}' NUM"),
        "resourceLimitExceeded",
        &format!("'{zeros}'"),
    );
    let r = fails_leaving(
        "'1e1000000' KEEP NUM",
        "resourceLimitExceeded",
        "'1e1000000'",
    );
    let e = r.error.unwrap();
    assert_eq!(e.resource, Some("bigintBits"));
    assert_eq!(
        e.message,
        "bigintBits of 3000001 exceeds the limit of 262144"
    );
    // The exact width decides once the lower bound passes.
    let narrow = Profile::MCP_LOCAL_STDIO.with(Limit::BigintBits, 10);
    let r = run_with("'1023' NUM '-1/1023' NUM", narrow.clone());
    assert!(r.error.is_none(), "{:?}", r.error);
    let r = run_with("'1024' NUM", narrow.clone());
    assert_eq!(
        r.error.map(|e| e.message),
        Some("bigintBits of 11 exceeds the limit of 10".to_string())
    );
    let r = run_with("'1/1024' NUM", narrow);
    assert_eq!(r.error.and_then(|e| e.resource), Some("bigintBits"));
}

#[test]
fn num_and_str_round_trip() {
    for text in [
        "0",
        "42",
        "-3",
        "1/3",
        "-1/2",
        "123456789012345678901234567890",
        "-1/123456789012345678901234567890",
    ] {
        ok(&format!("'{text}' NUM STR"), &format!("'{text}'"));
    }
    // STR never writes n/1, and what it writes NUM reads back.
    ok("'4/2' NUM STR", "'2'");
    ok("'1.25e1' NUM STR NUM", "25/2");
    ok("-5 STR NUM", "-5/1");
}

#[test]
fn str_texts() {
    ok("[ [ ] ] STR", "''");
    ok("[ [ [ ] ] 1 [ [ ] ] ] STR", "'1'");
    ok("[ '' 'a' ] STR", "' a'");
    ok("[ { 1 } FALSE [ NIL ] ] STR", "'<code> FALSE NIL'");
    ok("NIL STR NIL-REASON", "NIL | 'literal'");
    ok("NIL KEEP STR", "NIL | NIL");
    ok("FALSE STR", "'FALSE'");
    // A Vector nested far deeper than any native stack would allow.
    let d = 300_000;
    let text = format!("{}7{}", "[".repeat(d), "]".repeat(d));
    let r = run_with(
        &format!("'{text}' JSON-DECODE STR"),
        Profile::CLI_LOCAL.with(Limit::NestingDepth, 1_000_000),
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(display(&r.stack[0]), "'7'");
}

#[test]
fn join_code_points() {
    ok("[ 0 31 ] JOIN JSON-ENCODE", r#"'"\u0000\u001f"'"#);
    ok(
        "[ 55295 57344 1114111 ] JOIN CHARS",
        "[ '\u{d7ff}' '\u{e000}' '\u{10ffff}' ]",
    );
    for bad in [
        "55296",
        "57343",
        "1114112",
        "-1",
        "1180591620717411303424",
        "1/2",
        "-1/2",
    ] {
        fails_leaving(
            &format!("[ 'a' {bad} ] JOIN"),
            "invalidArgument",
            &format!("[ 'a' {} ]", display_number(bad)),
        );
    }
    // Every element's domain is checked before any value (typeMismatch before invalidArgument).
    fails_leaving("[ -1 TRUE ] JOIN", "typeMismatch", "[ -1/1 TRUE ]");
    fails_leaving("[ [ 65 ] ] JOIN", "typeMismatch", "[ [ 65/1 ] ]");
    fails_leaving("[ 'a' { } ] JOIN", "typeMismatch", "[ 'a' { } ]");
    ok("[ 'a' 'b' ] KEEP JOIN", "[ 'a' 'b' ] | 'ab'");
}

fn display_number(lexeme: &str) -> String {
    let r = run(lexeme);
    display(&r.stack[0])
}

#[test]
fn chars_trim_tokenize() {
    // Scalar values, not grapheme clusters: a combining mark is its own element.
    ok("[ 101 769 ] JOIN CHARS", "[ 'e' '\u{301}' ]");
    ok("'x' KEEP CHARS", "'x' | [ 'x' ]");
    // Unicode White_Space only: NEL and LINE SEPARATOR go, ZERO WIDTH SPACE stays.
    ok("[ 133 'x' 8232 ] JOIN TRIM", "'x'");
    ok("[ 8203 'x' ] JOIN TRIM CHARS", "[ '\u{200b}' 'x' ]");
    ok("'  ' TRIM", "''");
    ok("' a ' KEEP TRIM", "' a ' | 'a'");
    fails_leaving("NIL TRIM", "typeMismatch", "NIL");
    ok("'aaaa' 'aa' TOKENIZE", "[ '' '' '' ]");
    ok("'a→b→' '→' TOKENIZE", "[ 'a' 'b' '' ]");
    ok("'abc' 'abc' TOKENIZE", "[ '' '' ]");
    ok("'abc' 'abcd' TOKENIZE", "[ 'abc' ]");
    fails_leaving("'a' 5 TOKENIZE", "typeMismatch", "'a' | 5/1");
    fails_leaving("5 '' TOKENIZE", "typeMismatch", "5/1 | ''");
    fails_leaving("'a' '' TOKENIZE", "invalidArgument", "'a' | ''");
    fails_leaving("NIL TOKENIZE", "typeMismatch", "NIL");
    fails_leaving("'a' TOKENIZE", "stackUnderflow", "'a'");
    ok("'a b' ' ' KEEP TOKENIZE", "'a b' | ' ' | [ 'a' 'b' ]");
}
