//! Content identity of User Words (docs/reference/dictionary.md#content-identity): what changes it
//! and what does not, the exact byte layout, and determinism over cycles.

use ajisai_core::compile::parse;
use ajisai_core::identity::{digest, identities, identities_of, WordDef};
use ajisai_core::{Machine, Profile};
use std::collections::BTreeMap;
use std::sync::Arc;

fn ids(source: &str) -> BTreeMap<String, String> {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let mut m = Machine::new(Profile::MCP_LOCAL_STDIO, ajisai_core::word::registry());
    if let Err(e) = m.run_source(source) {
        panic!("`{source}` failed: {e:?}");
    }
    identities(m.dictionary())
}

fn id(source: &str, word: &str) -> String {
    ids(source)
        .remove(word)
        .unwrap_or_else(|| panic!("{word} is defined by `{source}`"))
}

fn same(a: &str, b: &str) {
    assert_eq!(
        id(a, "W"),
        id(b, "W"),
        "`{a}` and `{b}` should have the same identity"
    );
}

fn differ(a: &str, b: &str) {
    assert_ne!(
        id(a, "W"),
        id(b, "W"),
        "`{a}` and `{b}` should have different identities"
    );
}

#[test]
fn the_digest_format() {
    let d = id("{ 1 } 'W' DEF", "W");
    assert_eq!(d.len(), 7 + 64);
    assert!(d.starts_with("sha256:"));
    assert!(d[7..]
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(
        digest(b""),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn the_byte_layout() {
    // `{ 1 'a' NOT }`: one statement; atoms `\n`, `N1/1`, `Sa`, `GNOT`.
    let shape = b"\x1f\n\x1fN1/1\x1fSa\x1fGNOT";
    let mut member = b"0\x1d".to_vec();
    member.extend_from_slice(shape);
    member.push(0x1c);
    let combined = digest(&member);
    let expected = digest(format!("{combined}:0").as_bytes());
    assert_eq!(id("{ 1 'a' NOT } 'W' DEF", "W"), expected);

    // Numbers are their reduced value in lowercase hex; names inside vectors are data.
    let shape = b"\x1f\n\x1fN-ff/10\x1f[\x1fDfoo\x1fGTRUE\x1fD^\x1f]\x1f{\x1fFX\x1f\n\x1f^\x1fN0/1\x1f|\x1fFIDLE\x1f}";
    let mut member = b"0\x1d".to_vec();
    member.extend_from_slice(shape);
    member.push(0x1c);
    let expected = digest(format!("{}:0", digest(&member)).as_bytes());
    assert_eq!(
        id("{ -255/16 [ foo true ^ ] { x\n^ -0 | idle } } 'W' DEF", "W"),
        expected
    );

    // A reference to a dependency is its identity.
    let dep = id("{ 1 } 'D' DEF", "D");
    let shape = format!("\x1f\n\x1e{}", format_args!("I{dep}"));
    let mut member = b"0\x1d".to_vec();
    member.extend_from_slice(shape.as_bytes());
    member.push(0x1c);
    let expected = digest(format!("{}:0", digest(&member)).as_bytes());
    assert_eq!(id("{ 1 } 'D' DEF { d } 'W' DEF", "W"), expected);
}

/// The identity of a Word without dependencies whose shape serializes to `shape`.
fn singleton(shape: &[u8]) -> String {
    let mut member = b"0\x1d".to_vec();
    member.extend_from_slice(shape);
    member.push(0x1c);
    digest(format!("{}:0", digest(&member)).as_bytes())
}

#[test]
fn statements_and_line_breaks_are_atoms() {
    // One `\n` atom per top-level statement.
    assert_eq!(
        id("{ 1\n2 } 'W' DEF", "W"),
        singleton(b"\x1f\n\x1fN1/1\x1f\n\x1fN2/1")
    );
    // A line break inside a vector literal or a block is a token, hence an atom.
    assert_eq!(
        id("{ [ 1\n2 ] } 'W' DEF", "W"),
        singleton(b"\x1f\n\x1f[\x1fN1/1\x1f\n\x1fN2/1\x1f]")
    );
    differ("{ [ 1 2 ] } 'W' DEF", "{ [ 1\n2 ] } 'W' DEF");
    // Runs of blank lines are one line-break token; a comment-only line is none.
    same("{ 1\n2 } 'W' DEF", "{ 1\n\n\n2 } 'W' DEF");
    same("{ 1\n2 } 'W' DEF", "{ 1\n  # a note\n2 } 'W' DEF");
    same("{ 1\n2 } 'W' DEF", "{ 1 # a note\n2 } 'W' DEF");
}

#[test]
fn wide_numbers_are_exact_lowercase_hex() {
    // 2⁶⁴, 2⁶⁴ + 1 and −(2¹²⁸ + 5)/7: every limb below the top one is zero-padded.
    assert_eq!(
        id("{ 18446744073709551616 } 'W' DEF", "W"),
        singleton(b"\x1f\n\x1fN10000000000000000/1")
    );
    assert_eq!(
        id("{ 18446744073709551617 } 'W' DEF", "W"),
        singleton(b"\x1f\n\x1fN10000000000000001/1")
    );
    assert_eq!(
        id(
            "{ -340282366920938463463374607431768211461/7 } 'W' DEF",
            "W"
        ),
        singleton(b"\x1f\n\x1fN-100000000000000000000000000000005/7")
    );
    // Strings are their exact content.
    assert_eq!(id("{ 'a b' } 'W' DEF", "W"), singleton(b"\x1f\n\x1fSa b"));
}

#[test]
fn reformatting_and_spelling_do_not_change_it() {
    same("{ 1 2 not } 'W' DEF", "{ 1   2\tNOT } 'W' DEF");
    same("{ 1 2 NOT } 'W' DEF", "{\n1 2 Not\n} 'W' DEF");
    same("{ 1 2 NOT } 'W' DEF", "{ 1 2 NOT # comment\n} 'W' DEF");
    same("{ 1 2 add } 'W' DEF", "{ 1 2 + } 'W' DEF");
    same("{ 1 2 ADD } 'W' DEF", "{ 1 2 + } 'W' DEF");
    same("{ 1 ^ 2 } 'W' DEF", "{ 1 vent 2 } 'W' DEF");
    same("{ [ true ] } 'W' DEF", "{ [ TRUE ] } 'W' DEF");
    same("{ [ nil False ] } 'W' DEF", "{ [ NIL FALSE ] } 'W' DEF");
    // Numbers by value.
    same("{ 1 } 'W' DEF", "{ 1.0 } 'W' DEF");
    same("{ 1 } 'W' DEF", "{ 2/2 } 'W' DEF");
    same("{ 0.5 } 'W' DEF", "{ 1/2 } 'W' DEF");
    same("{ -0 } 'W' DEF", "{ 0 } 'W' DEF");
    same("{ 1e3 } 'W' DEF", "{ 1000 } 'W' DEF");
    // Unknown names are normalized too.
    same("{ foo } 'W' DEF", "{ FOO } 'W' DEF");
    // The Word's own name is not part of it.
    let both = ids("{ 1 NOT } 'A' DEF { 1 not } 'b' DEF");
    assert_eq!(both["A"], both["B"]);
}

#[test]
fn content_changes_it() {
    differ("{ [ foo ] } 'W' DEF", "{ [ FOO ] } 'W' DEF");
    differ("{ [ + ] } 'W' DEF", "{ [ ADD ] } 'W' DEF");
    differ("{ [ ^ ] } 'W' DEF", "{ [ VENT ] } 'W' DEF");
    differ("{ 1 2 NOT } 'W' DEF", "{ 1\n2 NOT } 'W' DEF");
    differ("{ { 1 2 } } 'W' DEF", "{ { 1\n2 } } 'W' DEF");
    differ("{ NOT } 'W' DEF", "{ 'NOT' } 'W' DEF");
    differ("{ NOT } 'W' DEF", "{ [ NOT ] } 'W' DEF");
    differ("{ 1 } 'W' DEF", "{ 2 } 'W' DEF");
    differ("{ 1 } 'W' DEF", "{ [ 1 ] } 'W' DEF");
    differ("{ [ 1 ] } 'W' DEF", "{ { 1 } } 'W' DEF");
    differ("{ 'a' } 'W' DEF", "{ 'A' } 'W' DEF");
    differ("{ NOT } 'W' DEF", "{ NOPE } 'W' DEF");
    // A Core Word and an unknown name of the same spelling as an unrelated String.
    differ("{ [ NOT ] } 'W' DEF", "{ [ 'NOT' ] } 'W' DEF");
}

#[test]
fn a_dependency_change_reaches_every_dependent() {
    let before = ids("{ 1 } 'X' DEF { X NOT } 'Y' DEF { Y } 'Z' DEF { 7 } 'U' DEF");
    let after = ids("{ 2 } 'X' DEF { X NOT } 'Y' DEF { Y } 'Z' DEF { 7 } 'U' DEF");
    for w in ["X", "Y", "Z"] {
        assert_ne!(before[w], after[w], "{w}");
    }
    assert_eq!(before["U"], after["U"]);
    // The dependent's identity holds its dependency's content, not its name.
    let renamed = ids("{ 1 } 'Q' DEF { Q NOT } 'Y' DEF");
    assert_eq!(before["Y"], renamed["Y"]);
}

#[test]
fn only_recorded_dependencies_are_references() {
    // Defined after the caller: not a dependency, so a plain name.
    let forward = ids("{ X } 'W' DEF { 1 } 'X' DEF");
    let recorded = ids("{ 1 } 'X' DEF { X } 'W' DEF");
    let unknown = ids("{ X } 'W' DEF");
    assert_ne!(forward["W"], recorded["W"]);
    assert_eq!(forward["W"], unknown["W"]);
    // Self-reference is not a dependency.
    same("{ W } 'W' DEF", "{ w } 'W' DEF");
    // A dependency named inside a vector literal is data, never a reference.
    let in_vector = ids("{ 1 } 'X' DEF { [ X ] } 'W' DEF");
    let no_dep = ids("{ [ X ] } 'W' DEF");
    assert_eq!(in_vector["W"], no_dep["W"]);
    // So is one in a vector literal inside a block: a `D` atom.
    let nested = ids("{ 1 } 'X' DEF { { [ X ] } } 'W' DEF");
    let nested_plain = ids("{ { [ X ] } } 'W' DEF");
    assert_eq!(nested["W"], nested_plain["W"]);
    // Inside a block it is a reference.
    let in_block = ids("{ 1 } 'X' DEF { { X } } 'W' DEF");
    let plain = ids("{ { X } } 'W' DEF");
    assert_ne!(in_block["W"], plain["W"]);
}

fn defs_from(sources: &[(&str, &str, &[&str], u64)]) -> BTreeMap<String, String> {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let profile = Profile::MCP_LOCAL_STDIO;
    let bodies: Vec<_> = sources
        .iter()
        .map(|(_, body, _, _)| parse(body, &profile, 0).expect("parses").block)
        .collect();
    let deps: Vec<Vec<Arc<str>>> = sources
        .iter()
        .map(|(_, _, d, _)| d.iter().map(|s| Arc::from(*s)).collect())
        .collect();
    let words: Vec<WordDef<'_>> = sources
        .iter()
        .enumerate()
        .map(|(i, (name, _, _, order))| WordDef {
            name,
            body: &bodies[i],
            deps: &deps[i],
            order: *order,
        })
        .collect();
    identities_of(&words)
}

#[test]
fn mutual_recursion_is_deterministic() {
    let a = ("A", "B NOT", &["B"][..], 0);
    let b = ("B", "A", &["A"][..], 1);
    let c = ("C", "A B", &["A", "B"][..], 2);
    let first = defs_from(&[a, b, c]);
    assert_eq!(defs_from(&[c, b, a]), first);
    assert_eq!(defs_from(&[b, c, a]), first);
    assert_ne!(first["A"], first["B"]);
    // Changing a member of the cycle changes every member and the dependent.
    let a2 = ("A", "B NOT NOT", &["B"][..], 0);
    let second = defs_from(&[a2, b, c]);
    for w in ["A", "B", "C"] {
        assert_ne!(first[w], second[w], "{w}");
    }
    // Members with identical pre-digests are ordered by definition order.
    let p = ("P", "Q", &["Q"][..], 0);
    let q = ("Q", "P", &["P"][..], 1);
    let pq = defs_from(&[p, q]);
    let swapped = defs_from(&[("P", "Q", &["Q"][..], 1), ("Q", "P", &["P"][..], 0)]);
    assert_ne!(pq["P"], pq["Q"]);
    assert_eq!(pq["P"], swapped["Q"]);
    assert_eq!(pq["Q"], swapped["P"]);
}

#[test]
fn a_cycle_follows_the_component_algorithm_byte_for_byte() {
    let a = ("A", "B NOT", &["B"][..], 0);
    let b = ("B", "A", &["A"][..], 1);
    let c = ("C", "A", &["A"][..], 2);
    let got = defs_from(&[a, b, c]);
    // Step 4: pre-digests with intra-component references as `C?`, members ordered
    // by (pre-digest, definition order, name).
    let pre_a = digest(b"\x1f\n\x1eC?\x1fGNOT");
    let pre_b = digest(b"\x1f\n\x1eC?");
    let a_first = (pre_a.as_str(), 0) < (pre_b.as_str(), 1);
    let (pos_a, pos_b) = if a_first { (0, 1) } else { (1, 0) };
    let final_a = format!("\x1f\n\x1eP{pos_b}\x1fGNOT");
    let final_b = format!("\x1f\n\x1eP{pos_a}");
    let ordered = if a_first {
        [final_a, final_b]
    } else {
        [final_b, final_a]
    };
    let mut combined = Vec::new();
    for (i, bytes) in ordered.iter().enumerate() {
        combined.extend_from_slice(i.to_string().as_bytes());
        combined.push(0x1d);
        combined.extend_from_slice(bytes.as_bytes());
        combined.push(0x1c);
    }
    let combined = digest(&combined);
    let member = |i: usize| digest(format!("{combined}:{i}").as_bytes());
    assert_eq!(got["A"], member(pos_a));
    assert_eq!(got["B"], member(pos_b));
    // A Word outside the cycle references a member by its identity.
    let shape = format!("\x1f\n\x1eI{}", got["A"]);
    assert_eq!(got["C"], singleton(shape.as_bytes()));
}

#[test]
fn a_self_loop_through_recorded_deps_is_one_component() {
    // Only possible through the generic API: a Word recording itself is ignored.
    let w = defs_from(&[("W", "W 1", &["W"][..], 0)]);
    let plain = ids("{ W 1 } 'W' DEF");
    assert_eq!(w["W"], plain["W"]);
}

#[test]
fn long_dependency_chains_do_not_recurse_natively() {
    let n = 20_000;
    let mut src = String::from("{ 1 } 'W0' DEF\n");
    for i in 1..=n {
        src.push_str(&format!("{{ W{} }} 'W{i}' DEF\n", i - 1));
    }
    ajisai_numerics_pure::link();
    ajisai_words::link();
    let mut m = Machine::new(Profile::CLI_LOCAL, ajisai_core::word::registry());
    m.run_source(&src).expect("defines");
    let all = identities(m.dictionary());
    assert_eq!(all.len(), n + 1);
    assert_ne!(all["W1"], all["W2"]);
}
