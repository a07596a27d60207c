//! The phrasebook (docs/phrasebook/phrasebook.ajisai): it loads and verifies, every
//! Word has a verified contract and examples that hold, and malformed files are
//! refused with the line and the problem. `AJISAI_BLESS=1` rewrites the digest lines.

use ajisai_core::compile as parser;
use ajisai_core::display::display;
use ajisai_core::engine::{compute_in, ComputeReport, Options};
use ajisai_core::identity;
use ajisai_core::machine::Dictionary;
use ajisai_core::phrasebook::Phrasebook;
use ajisai_core::Profile;
use std::path::PathBuf;

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/phrasebook/phrasebook.ajisai")
}

fn is_def_line(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The text with every `#:digest` line recomputed from the DEF lines above it.
fn blessed(text: &str) -> String {
    let mut dict = Dictionary::default();
    for line in text.lines().filter(|l| is_def_line(l)) {
        let program = parser::parse(line, &Profile::MCP_LOCAL_STDIO, 1).expect("DEF line parses");
        let items: Vec<_> = program.block.items().to_vec();
        let (
            Some(ajisai_core::code::Item::Block { block, .. }),
            Some(ajisai_core::code::Item::Str { text: name, .. }),
        ) = (items.first(), items.get(1))
        else {
            panic!("not a DEF line: {line}");
        };
        dict.define(ajisai_core::code::normalize(name).into(), block.clone())
            .expect("defines");
    }
    let ids = identity::identities(&dict);
    let mut out = Vec::new();
    let mut last_name: Option<String> = None;
    for line in text.split('\n') {
        if line.starts_with("#:digest ") {
            let name = last_name.take().expect("a digest follows a DEF line");
            out.push(format!("#:digest {}", ids[&name]));
            continue;
        }
        if is_def_line(line) {
            let name = line
                .rsplit_once('\'')
                .and_then(|(a, _)| a.rsplit_once('\''))
                .map(|(_, n)| n)
                .expect("name");
            last_name = Some(ajisai_core::code::normalize(name));
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

/// `source` run under the MCP profile after the `prelude` Words are defined.
fn run(prelude: &[&ajisai_core::phrasebook::Entry], source: &str) -> ComputeReport {
    compute_in(source, prelude, &Options::new(Profile::MCP_LOCAL_STDIO))
}

/// What a run left as an `#:example` states it (the stack's displays joined by spaces), or
/// its error's category and message.
fn shown(r: &ComputeReport) -> String {
    match &r.error {
        Some(err) => format!("error:{} ({})", err.category.id(), err.message),
        None => r.stack.iter().map(display).collect::<Vec<_>>().join(" "),
    }
}

fn load() -> Phrasebook {
    crate::common::run("1");
    let text = std::fs::read_to_string(path()).expect("the phrasebook is readable");
    if std::env::var_os("AJISAI_BLESS").is_some() {
        let new = blessed(&text);
        if new != text {
            std::fs::write(path(), &new).expect("writable");
        }
        return Phrasebook::load(&new).expect("the blessed phrasebook loads");
    }
    Phrasebook::load(&text).unwrap_or_else(|e| panic!("the phrasebook is refused: {e}"))
}

#[test]
fn the_phrasebook_loads_with_verified_digests_and_contracts() {
    let book = load();
    assert!(book.entries().len() >= 25, "{} Words", book.entries().len());
    for e in book.entries() {
        assert!(e.contract.is_some(), "{} has no #:contract", e.name);
        assert!(!e.examples.is_empty(), "{} has no #:example", e.name);
        assert!(
            e.digest.starts_with("sha256:") && e.digest.len() == 71,
            "{}",
            e.digest
        );
    }
}

#[test]
fn every_example_holds_with_only_its_word_requested() {
    let book = load();
    let mut failures = Vec::new();
    for e in book.entries() {
        let prelude = book.closure(&[&e.name]).expect("its own name resolves");
        for ex in &e.examples {
            let got = shown(&run(&prelude, &ex.source));
            if got != ex.expect {
                failures.push(format!(
                    "line {}: `{}` => {} (expected {})",
                    ex.line, ex.source, got, ex.expect
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_closure_brings_dependencies_in_file_order() {
    let book = load();
    let names: Vec<&str> = book
        .closure(&["stddev"])
        .unwrap()
        .iter()
        .map(|e| &*e.name)
        .collect();
    assert_eq!(names, vec!["MEAN", "VARIANCE", "STDDEV"]);
    assert_eq!(book.closure(&["NOPE"]).unwrap_err().0, "NOPE");
}

#[test]
fn a_prelude_is_free_and_silent() {
    let book = load();
    let prelude = book.closure(&["MEAN"]).unwrap();
    let r = run(&prelude, "[ 1 2 3 ] MEAN");
    // SUM, LENGTH, DIV and the MEAN call: the definition itself costs nothing.
    assert_eq!(r.usage.execution_steps, 5);
    assert!(r.output.is_empty());
}

fn refused(text: &str) -> String {
    crate::common::run("1");
    match Phrasebook::load(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_phrasebooks_are_refused_with_the_line() {
    let good = blessed("{ 2 * } 'DOUBLE' DEF\n#:digest x\n");
    assert!(Phrasebook::load(&good).is_ok(), "{good}");
    let wrong_digest = format!(
        "{{ 2 * }} 'DOUBLE' DEF\n#:digest sha256:{}\n",
        "0".repeat(64)
    );
    assert!(refused(&wrong_digest).starts_with("line 2: the #:digest of DOUBLE does not match"));
    assert!(refused("{ 2 * } 'DOUBLE' DEF").contains("no #:digest"));
    assert!(refused("{ 2 * } 'DOUBLE' DEF\n1\n").contains("must be followed by its `#:digest"));
    assert!(refused("#:bogus x\n").contains("not a phrasebook directive"));
    assert!(refused(&blessed("{ 1 } 'ADD' DEF\n#:digest x\n")).contains("Core Word"));
    assert!(refused("1 2 +\n#:digest x\n").contains("DEF line"));
    let twice = blessed("{ 1 } 'ONE' DEF\n#:digest x\n{ 2 } 'one' DEF\n#:digest x\n");
    assert!(refused(&twice).contains("already defined"));
    let forward = "{ TWO 1 + } 'THREE' DEF\n#:digest x\n{ 2 } 'TWO' DEF\n#:digest x\n";
    assert!(refused(forward).contains("defined later"));
    let bad_contract = blessed("#:contract DOUBLE inputs=2\n{ 2 * } 'DOUBLE' DEF\n#:digest x\n");
    assert!(
        refused(&bad_contract).contains("contract violation"),
        "{}",
        refused(&bad_contract)
    );
}

/// The phrasebook loader and `ajisai test` share one `#:example` reader. Before they
/// did, the loader split at a `=>` between single spaces; pinned here: on every
/// example of the phrasebook (the file the server embeds) that rule and the shared reader
/// give the same source and expectation.
#[test]
fn the_shared_example_reader_reads_the_phrasebooks_as_the_old_split_did() {
    fn old_split(rest: &str) -> Option<(String, String)> {
        let tokens: Vec<&str> = rest.split(' ').collect();
        let at = tokens.iter().position(|t| *t == "=>")?;
        let source = tokens[..at].join(" ").trim().to_string();
        let expect = tokens[at + 1..].join(" ").trim().to_string();
        (!source.is_empty()).then_some((source, expect))
    }
    let mut seen = 0;
    for file in [path()] {
        let text = std::fs::read_to_string(&file).expect("phrasebook is readable");
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line.trim().strip_prefix("#:example ") else {
                continue;
            };
            let shared = ajisai_core::phrasebook::Example::parse(rest, n as u32 + 1)
                .map(|e| (e.source.into_owned(), e.expect.into_owned()))
                .ok();
            assert_eq!(shared, old_split(rest), "{}:{}", file.display(), n + 1);
            seen += 1;
        }
    }
    assert!(seen > 20, "the phrasebook holds examples ({seen})");
}

/// What a phrasebook Word binds is its own: every example holds when the caller has
/// defined, as User Words, every name the Word's text quotes (its local names among
/// them), and the caller's Words are untouched afterwards.
#[test]
fn a_phrasebook_word_does_not_depend_on_the_callers_names() {
    let book = load();
    let registry = ajisai_core::word::registry();
    let mut failures = Vec::new();
    let mut shadowed = 0;
    for e in book.entries() {
        let prelude = book.closure(&[&e.name]).expect("its own name resolves");
        let mut names: Vec<String> = Vec::new();
        for other in &prelude {
            for quoted in other.def_line.split('\'').skip(1).step_by(2) {
                let name = ajisai_core::code::normalize(quoted);
                let taken = registry.lookup(&name).is_some() || book.get(&name).is_some();
                if ajisai_core::machine::is_name_lexeme(quoted) && !taken && !names.contains(&name)
                {
                    names.push(name);
                }
            }
        }
        if names.is_empty() {
            continue;
        }
        shadowed += 1;
        let defs: String = names
            .iter()
            .map(|n| format!("{{ 'callers-{n}' }} '{n}' DEF "))
            .collect();
        let reads: String = names.iter().map(|n| format!(" {n}")).collect();
        for ex in &e.examples {
            let source = format!("{defs}{}\n{reads}", ex.source);
            let got = shown(&run(&prelude, &source));
            let callers: String = names.iter().map(|n| format!(" 'callers-{n}'")).collect();
            let want = format!("{}{callers}", ex.expect);
            if got != want {
                failures.push(format!("`{source}` => {got} (expected {want})"));
            }
        }
    }
    assert!(
        shadowed > 5,
        "Words that bind names were tried ({shadowed})"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// In the caller's own source the rule stands: a name cannot be both a Word and a binding.
#[test]
fn the_callers_own_bind_still_refuses_a_user_words_name() {
    let book = load();
    let prelude = book.closure(&["MEAN"]).unwrap();
    let r = run(&prelude, "{ 1 } 'XS' DEF 5 'XS' BIND");
    let e = r.error.expect("refused");
    assert_eq!(e.category.id(), "dictionaryViolation", "{}", e.message);
}
