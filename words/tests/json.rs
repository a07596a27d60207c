//! JSON-DECODE and JSON-ENCODE beyond their examples: every class of invalid JSON,
//! exact numbers and their limits, the nesting-depth boundary, a 1,000,000-deep input,
//! the "first problem decides" rule, escaping, and round trips.

use crate::common::*;
use ajisai_core::display::display;
use ajisai_core::value::Value;
use ajisai_core::{Limit, Meter, NilReason, Profile};
use ajisai_words::json::{decode, encode, DecodeError};

fn mcp() -> Profile {
    Profile::MCP_LOCAL_STDIO
}

/// Decode directly (texts a source literal could not hold) and display the value.
fn decoded(text: &str) -> String {
    ajisai_numerics_pure::link();
    match decode(text, &mcp()) {
        Ok(v) => display(&v),
        Err(e) => panic!("{text:?} did not decode: {e:?}"),
    }
}

fn assert_invalid(text: &str) {
    ajisai_numerics_pure::link();
    match decode(text, &mcp()) {
        Err(DecodeError::Invalid(..)) => {}
        other => panic!("{text:?} should be invalid JSON, got {other:?}"),
    }
}

fn limit_of(text: &str, profile: &Profile) -> String {
    ajisai_numerics_pure::link();
    match decode(text, profile) {
        Err(DecodeError::Limit(e)) => e.message,
        other => panic!("{text:?} should hit a limit, got {other:?}"),
    }
}

#[test]
fn every_invalid_class_is_invalid_encoding() {
    let classes: &[(&str, &[&str])] = &[
        ("empty text", &["", " ", "\n\t\r "]),
        (
            "trailing content",
            &["1 2", "[] []", "{}x", "true false", "\"a\"\"b\"", "null,"],
        ),
        (
            "comments",
            &["// c\n1", "1 // c", "/* c */ 1", "[1 /* c */]", "# 1"],
        ),
        (
            "trailing commas",
            &["[1,]", "{\"a\":1,}", "[,]", "[1,,2]", "{,}"],
        ),
        ("single quotes", &["'a'", "['a']", "{'a':1}"]),
        (
            "leading zeros",
            &["01", "-01", "00", "[007]", "0.1.2", "-00.5"],
        ),
        (
            "NaN and Infinity",
            &["NaN", "Infinity", "-Infinity", "[NaN]", "nan", "inf"],
        ),
        (
            "control characters",
            &["\"a\u{0}b\"", "\"\t\"", "\"\n\"", "\"\u{1f}\"", "\"\r\""],
        ),
        (
            "unpaired surrogates",
            &[
                "\"\\ud800\"",
                "\"\\udbff x\"",
                "\"\\ud800\\u0041\"",
                "\"\\udc00\"",
                "\"\\ud800\\ud800\"",
                "\"\\ude00\\ud83d\"",
            ],
        ),
        (
            "bad numbers",
            &[
                "+1", ".5", "1.", "1e", "1e+", "-", "--1", "1.e3", "0x10", "1_000", "١",
            ],
        ),
        (
            "bad escapes",
            &[
                "\"\\x\"",
                "\"\\u12\"",
                "\"\\u12g4\"",
                "\"\\U0041\"",
                "\"\\'\"",
                "\"\\\"",
            ],
        ),
        (
            "unclosed",
            &[
                "[", "[1", "{", "{\"a\"", "{\"a\":", "{\"a\":1", "\"abc", "[[]",
            ],
        ),
        (
            "bad structure",
            &[
                "]",
                "}",
                "{1:2}",
                "{\"a\" 1}",
                "{\"a\"::1}",
                "[1 2]",
                "{\"a\":1 \"b\":2}",
                ":",
                ",",
            ],
        ),
        (
            "bad literals",
            &["tru", "True", "NULL", "nul", "falsey", "t"],
        ),
        (
            "non-JSON whitespace",
            &["\u{a0}1", "1\u{b}", "\u{c}1", "\u{feff}1", "\u{2028}1"],
        ),
    ];
    for (class, texts) in classes {
        for text in *texts {
            ajisai_numerics_pure::link();
            match decode(text, &mcp()) {
                Err(DecodeError::Invalid(..)) => {}
                other => panic!("{class}: {text:?} should be invalid JSON, got {other:?}"),
            }
        }
    }
    // Through the Word: NIL with reason invalidEncoding, operand consumed (kept under KEEP).
    ok("'[1,]' JSON-DECODE NIL-REASON", "NIL | 'invalidEncoding'");
    ok("'01' KEEP JSON-DECODE", "'01' | NIL");
    ok("'' JSON-DECODE NIL-REASON", "NIL | 'invalidEncoding'");
}

#[test]
fn valid_texts() {
    assert_eq!(
        decoded(" [ 1 , { \"a\" : [ ] } ] "),
        "[ 1/1 [ [ 'a' [ ] ] ] ]"
    );
    assert_eq!(decoded("{\"\":null}"), "[ [ '' NIL ] ]");
    assert_eq!(
        decoded("{\"b\":1,\"a\":2,\"b\":3}"),
        "[ [ 'b' 1/1 ] [ 'a' 2/1 ] [ 'b' 3/1 ] ]"
    );
    assert_eq!(
        decoded("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""),
        "'\"\\/\u{8}\u{c}\n\r\t'"
    );
    assert_eq!(decoded("\"\\u0041\\u00E9\\uD83D\\uDE00\""), "'Aé😀'");
    assert_eq!(decoded("\"é😀\u{7f}\""), "'é😀\u{7f}'");
    assert_eq!(decoded("\"\\u0000\""), "'\u{0}'");
    assert_eq!(decoded("[true,false,null]"), "[ TRUE FALSE NIL ]");
    ajisai_numerics_pure::link();
    assert_eq!(
        decode("null", &mcp()).ok().and_then(|v| v.nil_reason()),
        Some(NilReason::Literal)
    );
    assert!(
        matches!(decode("[null]", &mcp()), Ok(Value::Vector(v)) if v.items()[0].nil_reason() == Some(NilReason::Literal))
    );
}

#[test]
fn numbers_are_exact() {
    for (text, value) in [
        ("0", "0/1"),
        ("-0", "0/1"),
        ("-0.0", "0/1"),
        ("0e5", "0/1"),
        ("1E2", "100/1"),
        ("1e+2", "100/1"),
        ("1.50", "3/2"),
        ("0.1", "1/10"),
        ("-3e-2", "-3/100"),
        ("2.5E-1", "1/4"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890/1",
        ),
        (
            "0.000000000000000000000000000001",
            "1/1000000000000000000000000000000",
        ),
        ("1e-0", "1/1"),
        ("10e-1", "1/1"),
    ] {
        assert_eq!(decoded(text), value, "{text}");
    }
}

#[test]
fn number_limits() {
    let p = mcp();
    let digits = "9".repeat(4096);
    assert_eq!(decoded(&digits), format!("{digits}/1"));
    let over = format!("[{}]", "1".repeat(4097));
    assert_eq!(
        limit_of(&over, &p),
        "numericLiteralDigits of 4097 exceeds the limit of 4096"
    );
    // Every digit counts: integer part, fraction and exponent.
    let mixed = format!(
        "{}.{}e{}",
        "1".repeat(2000),
        "2".repeat(2000),
        "3".repeat(97)
    );
    assert_eq!(
        limit_of(&mixed, &p),
        "numericLiteralDigits of 4097 exceeds the limit of 4096"
    );
    assert_eq!(
        limit_of("1e1000000", &p),
        "bigintBits of 3000001 exceeds the limit of 262144"
    );
    assert!(limit_of("1e-1000000", &p).starts_with("bigintBits of "));
    assert!(decode("1e-78000", &p).is_ok());
    // The lower bound passes but the exact width (262,432 bits) does not.
    assert!(limit_of("1e-79000", &p).starts_with("bigintBits of 262"));
    // Through the Word: an ERROR naming the limit, operand left in place.
    let r = fails_leaving(
        "'[1e99999999]' JSON-DECODE",
        "resourceLimitExceeded",
        "'[1e99999999]'",
    );
    assert_eq!(r.error.unwrap().resource, Some("bigintBits"));
    let r = fails_leaving(
        "'[1e99999999]' KEEP JSON-DECODE",
        "resourceLimitExceeded",
        "'[1e99999999]'",
    );
    assert_eq!(r.error.unwrap().resource, Some("bigintBits"));
}

#[test]
fn the_first_problem_decides() {
    let p = mcp();
    // A limit met before a syntax error decides, and the other way round.
    assert!(limit_of("[1e99999999, x]", &p).starts_with("bigintBits"));
    assert_invalid("[x, 1e99999999]");
    let deep_then_bad = format!("{}x", "[".repeat(33));
    assert!(limit_of(&deep_then_bad, &p).starts_with("nestingDepth"));
    let bad_then_deep = format!("[1,]{}", "[".repeat(40));
    assert_invalid(&bad_then_deep);
    let bad_in_shallow = format!("[x{}", "[".repeat(40));
    assert_invalid(&bad_in_shallow);
}

#[test]
fn nesting_depth_boundary() {
    let p = mcp();
    // Arrays: 32 levels decode under the MCP profile, 33 are refused.
    let ok32 = format!("{}{}", "[".repeat(32), "]".repeat(32));
    assert!(decode(&ok32, &p).is_ok());
    let over = format!("{}{}", "[".repeat(33), "]".repeat(33));
    assert_eq!(
        limit_of(&over, &p),
        "nestingDepth of 33 exceeds the limit of 32"
    );
    // An object is one level and each member's pair one more.
    let objects =
        |k: usize, inner: &str| format!("{}{inner}{}", "{\"a\":".repeat(k), "}".repeat(k));
    assert!(
        decode(&objects(16, "1"), &p).is_ok(),
        "16 objects with members are 32 deep"
    );
    assert!(
        decode(&objects(15, "{}"), &p).is_ok(),
        "an empty object is one level"
    );
    assert!(decode(&objects(15, "[[]]"), &p).is_ok());
    assert_eq!(
        limit_of(&objects(16, "[]"), &p),
        "nestingDepth of 33 exceeds the limit of 32"
    );
    assert_eq!(
        limit_of(&objects(16, "{}"), &p),
        "nestingDepth of 33 exceeds the limit of 32"
    );
    let mixed = format!("{}{{\"k\":0}}{}", "[".repeat(31), "]".repeat(31));
    assert_eq!(
        limit_of(&mixed, &p),
        "nestingDepth of 33 exceeds the limit of 32"
    );
    // Through the Word, with the operand left in place.
    let r = run(&format!("'{over}' JSON-DECODE"));
    let e = r.error.clone().expect("33 levels are refused");
    assert_eq!(e.resource, Some("nestingDepth"));
    assert_eq!(stack(&r), format!("'{over}'"));
    let r = run(&format!("'{ok32}' JSON-DECODE JSON-ENCODE"));
    assert_eq!(r.stack.first().and_then(Value::as_str), Some(ok32.as_str()));
}

#[test]
fn a_million_open_brackets_do_not_crash() {
    let n = 1_000_000;
    let opens = "[".repeat(n);
    // Under the CLI profile (whose source limit admits it) the limit refuses early.
    let r = run_with(&format!("'{opens}' JSON-DECODE"), Profile::CLI_LOCAL);
    let e = r.error.expect("refused by nestingDepth");
    assert_eq!(e.message, "nestingDepth of 257 exceeds the limit of 256");
    assert_eq!(r.stack.len(), 1);
    // With no depth limit the reader keeps its containers on the heap: unclosed is invalid...
    let unlimited = Profile::CLI_LOCAL.with(Limit::NestingDepth, u64::MAX);
    ajisai_numerics_pure::link();
    assert!(matches!(
        decode(&opens, &unlimited),
        Err(DecodeError::Invalid(..))
    ));
    // ...and balanced brackets build a Vector a million deep, encoded and dropped iteratively.
    let text = format!("{opens}{}", "]".repeat(n));
    let v = decode(&text, &unlimited).expect("balanced");
    let back = encode(&v, &mut Meter::new(Profile::CLI_LOCAL))
        .expect("no interrupt")
        .expect("encodable");
    assert_eq!(back, text);
    drop(v);
    let r = run_with(&format!("'{text}' JSON-DECODE JSON-ENCODE"), unlimited);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.stack[0].as_str(), Some(text.as_str()));
}

#[test]
fn encode_forms() {
    ok(
        "[ 1 1/2 -1/8 3/2 -5/2 1/1024 ] JSON-ENCODE",
        "'[1,0.5,-0.125,1.5,-2.5,0.0009765625]'",
    );
    ok(
        "[ 1/3125 -1/80 7/20 1000 -1e3 0 ] JSON-ENCODE",
        "'[0.00032,-0.0125,0.35,1000,-1000,0]'",
    );
    // The fewest fraction digits, however long.
    let r = run("'1e-300' NUM JSON-ENCODE JSON-DECODE '1e-300' NUM");
    assert_eq!(display(&r.stack[0]), display(&r.stack[1]));
    // Escapes: \" \\ and the short forms; other controls as lowercase \u00xx; the rest literal.
    let codes: Vec<String> = (0u32..32)
        .chain([34, 92, 47, 127, 233, 8232, 128512])
        .map(|c| c.to_string())
        .collect();
    let r = run(&format!("[ {} ] JOIN JSON-ENCODE", codes.join(" ")));
    let mut want = String::from("\"");
    for c in 0u32..32 {
        match c {
            8 => want.push_str("\\b"),
            9 => want.push_str("\\t"),
            10 => want.push_str("\\n"),
            12 => want.push_str("\\f"),
            13 => want.push_str("\\r"),
            _ => want.push_str(&format!("\\u{c:04x}")),
        }
    }
    want.push_str("\\\"\\\\/\u{7f}é\u{2028}😀\"");
    assert_eq!(r.stack[0].as_str(), Some(want.as_str()));
    assert!(want.contains("\\u001f") && want.contains("\\u000b"));
    // Nested NIL is null; a top-level NIL passes through with its reason.
    ok("[ NIL [ NIL ] ] JSON-ENCODE", "'[null,[null]]'");
    ok("NIL KEEP JSON-ENCODE NIL-REASON", "NIL | NIL | 'literal'");
    ok("'x' JSON-ENCODE", "'\"x\"'");
    ok("TRUE JSON-ENCODE", "'true'");
    ok("[ ] JSON-ENCODE", "'[]'");
}

#[test]
fn encode_refusals() {
    // Any CodeBlock, anywhere, is typeMismatch and decides over an inexact number.
    fails_leaving("{ } JSON-ENCODE", "typeMismatch", "{ }");
    fails_leaving(
        "[ 1/3 [ [ { } ] ] ] JSON-ENCODE",
        "typeMismatch",
        "[ 1/3 [ [ { } ] ] ]",
    );
    fails_leaving(
        "[ [ { } ] 1/3 ] KEEP JSON-ENCODE",
        "typeMismatch",
        "[ [ { } ] 1/3 ]",
    );
    // A number with no exact decimal makes the whole result NIL(invalidEncoding).
    ok(
        "[ 1 [ 2 1/3 ] ] JSON-ENCODE NIL-REASON",
        "NIL | 'invalidEncoding'",
    );
    ok("1/6 JSON-ENCODE NIL-REASON", "NIL | 'invalidEncoding'");
    ok("[ 1/3 ] KEEP JSON-ENCODE", "[ 1/3 ] | NIL");
    fails_leaving("JSON-ENCODE", "stackUnderflow", "(empty)");
}

#[test]
fn round_trips() {
    // Canonical JSON texts survive decode then encode unchanged.
    for text in [
        "[1,0.5,-0.125,\"a\\\"b\",true,false,null,[]]",
        "[[\"k\",[1,2]],[\"k\",{}]]",
        "\"\\u0001\\n/é\"",
        "0.0000001",
        "-123456789012345678901234567890.5",
        "[[[[[[]]]]]]",
    ] {
        ajisai_numerics_pure::link();
        let v = decode(text, &mcp()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let back = encode(&v, &mut Meter::new(Profile::CLI_LOCAL))
            .expect("no interrupt")
            .expect("encodable");
        let canonical = if text.contains("{}") {
            text.replace("{}", "[]")
        } else {
            text.to_string()
        };
        assert_eq!(back, canonical, "{text}");
    }
    // Values survive encode then decode.
    ok(
        "[ 1/2 -7 'é\"' TRUE NIL [ [ ] ] ] KEEP JSON-ENCODE JSON-DECODE",
        "[ 1/2 -7/1 'é\"' TRUE NIL [ [ ] ] ] | [ 1/2 -7/1 'é\"' TRUE NIL [ [ ] ] ]",
    );
    // Non-canonical texts reach the canonical form.
    ok(
        "' [ 1.50 , 2e1 , -0 ] ' JSON-DECODE JSON-ENCODE",
        "'[1.5,20,0]'",
    );
}

#[test]
fn decode_type_checks() {
    fails_leaving("42 JSON-DECODE", "typeMismatch", "42/1");
    fails_leaving("[ '1' ] JSON-DECODE", "typeMismatch", "[ '1' ]");
    fails_leaving("{ } JSON-DECODE", "typeMismatch", "{ }");
    ok("NIL KEEP JSON-DECODE", "NIL | NIL");
    fails_leaving("JSON-DECODE", "stackUnderflow", "(empty)");
}

#[test]
fn random_texts_decode_without_panicking() {
    // A seeded generator over JSON's own alphabet: every text ends in a value, invalid
    // JSON or a limit, and whatever decodes and encodes decodes back to the same value.
    ajisai_numerics_pure::link();
    let alphabet: Vec<&str> = vec![
        "[", "]", "{", "}", "\"", ",", ":", " ", "0", "1", "9", "-", "+", ".", "e", "E", "true",
        "false", "null", "\\", "\\u", "d83d", "de00", "00e9", "n", "t", "é", "\u{1}", "\"k\":",
        "[[[[", "]]]]", "1e400", "0.5",
    ];
    let mut state: u64 = 0x5eed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let p = mcp();
    let (mut values, mut invalid, mut limits) = (0, 0, 0);
    for _ in 0..20_000 {
        let len = next() % 24;
        let text: String = (0..len)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        match decode(&text, &p) {
            Ok(v) => {
                values += 1;
                if let Ok(Ok(json)) = encode(&v, &mut Meter::new(Profile::CLI_LOCAL)) {
                    let again = decode(&json, &p)
                        .unwrap_or_else(|e| panic!("{json:?} (from {text:?}): {e:?}"));
                    assert_eq!(display(&again), display(&v), "{text:?}");
                }
            }
            Err(DecodeError::Invalid(..)) => invalid += 1,
            Err(DecodeError::Limit(_)) => limits += 1,
            Err(DecodeError::Halted(h)) => panic!("nothing stops this run: {h:?}"),
        }
    }
    assert!(
        values > 0 && invalid > 0 && limits > 0,
        "{values} {invalid} {limits}"
    );
}
