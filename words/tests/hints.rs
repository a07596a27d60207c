//! Errors that teach: every hint's example runs with the result it states, no hinted
//! name is a Word, and the hints reach the messages — after `; closest: …` on an
//! unknown name (MCP-33 (docs/mcp/envelope.md) unchanged before it), on a double-quoted token, on `^` written
//! as a power — in `compute` and in `check`.

use crate::common::run;
use ajisai_core::engine::{check, Options};
use ajisai_core::outcome::Trap;
use ajisai_core::word::{all_hints, hint_for_name, hint_for_trap, registry, HintFor};
use ajisai_core::Profile;

/// The `` `source` → expected `` pairs of a hint's text.
fn examples(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let source = &after[..close];
        let tail = &after[close + 1..];
        if let Some(result) = tail.strip_prefix(" → ") {
            let end = result.find([')', ',', ';']).unwrap_or(result.len());
            out.push((source.to_string(), result[..end].trim().to_string()));
        }
        rest = tail;
    }
    out
}

#[test]
fn every_hint_example_runs_as_stated_and_no_hinted_name_is_a_word() {
    ajisai_words::link();
    let mut checked = 0;
    for hint in all_hints() {
        assert!(!hint.text.contains('\n'), "one line: {}", hint.text);
        for (source, expect) in examples(hint.text) {
            let r = run(&source);
            assert!(r.error.is_none(), "`{source}`: {:?}", r.error);
            let shown: Vec<String> = r.stack.iter().map(ajisai_core::display::display).collect();
            assert_eq!(shown.join(" "), expect, "`{source}` in: {}", hint.text);
            checked += 1;
        }
        if let HintFor::Names(names) = hint.answers {
            for name in names {
                assert!(
                    registry()
                        .lookup(&ajisai_core::code::normalize(name))
                        .is_none(),
                    "{name} is a Word: it needs no hint"
                );
                assert_eq!(hint_for_name(name), Some(hint.text));
                assert_eq!(hint_for_name(&name.to_lowercase()), Some(hint.text));
            }
        }
    }
    assert!(checked >= 12, "{checked} examples");
    for trap in [Trap::DoubleQuoted, Trap::VentAfterNumber] {
        assert!(hint_for_trap(trap).is_some(), "{trap:?}");
    }
    assert_eq!(hint_for_name("LENGHT"), None);
}

fn message(source: &str) -> String {
    run(source).error.expect("an error").message
}

#[test]
fn hints_follow_the_fixed_message_in_compute() {
    ajisai_words::link();
    let m = message("1 DUP");
    assert!(m.starts_with("Unknown word: DUP"), "{m}");
    assert!(
        m.ends_with(&format!("; hint: {}", hint_for_name("DUP").unwrap())),
        "{m}"
    );
    let m = message("1 2 swap");
    assert!(m.contains("; hint: Ajisai has no SWAP"), "{m}");
    // Near misses first, then the hint.
    let m = message("1 2 ELSE");
    let closest = m.find("; closest: ").expect("near misses");
    let hint = m.find("; hint: Ajisai branches with COND").expect("a hint");
    assert!(closest < hint, "{m}");
    let m = message("\"hello\"");
    assert!(m.starts_with("Unknown word: \"hello\""), "{m}");
    assert!(m.contains("; hint: strings are single-quoted"), "{m}");
    let r = run("2 10 ^");
    let e = r.error.expect("malformedSource");
    assert_eq!(e.category.id(), "malformedSource");
    assert!(e.message.contains("; hint: `^` is VENT"), "{}", e.message);
    // A dangling VENT after something else is not the power trap.
    assert!(!message("'a' ^").contains("hint"), "{}", message("'a' ^"));
    // Names without a hint keep their message as it was.
    assert_eq!(message("LENGHT"), "Unknown word: LENGHT; closest: LENGTH");
}

#[test]
fn hints_reach_check_and_its_unknown_names() {
    ajisai_words::link();
    let options = Options::new(Profile::MCP_LOCAL_STDIO);
    let e = check("1 DUP 2 SWAP", &options)
        .error
        .expect("unknown names");
    assert!(
        e.message.starts_with("Unknown words: DUP, SWAP"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("; hint: Ajisai has no DUP"),
        "{}",
        e.message
    );
    let e = check("3 ^", &options).error.expect("malformed");
    assert!(e.message.contains("; hint: `^` is VENT"), "{}", e.message);
}

/// The section of the error reference that lists the hints, with its lines joined, so
/// the wrapping of the page does not matter.
fn listed_hints() -> String {
    let page = include_str!("../../docs/reference/errors.md");
    let start = page
        .find("## Names from other languages")
        .expect("docs/reference/errors.md has the section");
    let section = &page[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    section[..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A reader learns the hints from the guide (docs/reference/errors.md#names-from-other-languages):
/// every hint is listed there word for word, after every name it answers.
#[test]
fn the_error_reference_lists_every_hint() {
    ajisai_words::link();
    let listed = listed_hints();
    for hint in all_hints() {
        let text = hint.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let at = listed
            .find(&format!(": {text}."))
            .unwrap_or_else(|| panic!("not listed: {text}"));
        let line_start = listed[..at].rfind("- ").expect("a list item");
        let item = &listed[line_start..at];
        if let HintFor::Names(names) = hint.answers {
            for name in names {
                assert!(
                    item.contains(&format!("`{name}`")),
                    "{name} is not listed with its hint: {item}"
                );
            }
        }
    }
}
