//! `ajisai words [FAMILY]` and `ajisai doc WORD`: the registry for people, read from the
//! same `WordSpec`s the MCP server's `word_contract` serves, with each Word's rules from
//! the Word reference (`ajisai_words::reference`, the prose of docs/words/index.md).

use super::report::Rendered;
use super::Exit;
use ajisai_core::code::normalize;
use ajisai_core::word::{registry, Family, WordSpec};
use ajisai_host::lookup;
use std::fmt::Write;

/// The Words of `family`, or of every family, one line each under a family heading:
/// name, aliases, syntax and summary.
pub fn words(family: Option<Family>) -> Rendered {
    let reg = registry();
    let mut out = String::new();
    let families: Vec<Family> = match family {
        Some(f) => vec![f],
        None => Family::ALL.to_vec(),
    };
    for (i, f) in families.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}:", f.id());
        let specs: Vec<&WordSpec> = reg
            .specs()
            .iter()
            .copied()
            .filter(|s| s.family == *f)
            .collect();
        let width = specs
            .iter()
            .map(|s| title(s).chars().count())
            .max()
            .unwrap_or(0);
        for s in specs {
            let t = title(s);
            let pad = width - t.chars().count();
            let _ = writeln!(out, "  {t}{:pad$}  {}", "", s.summary);
        }
    }
    Rendered::stdout(out, Exit::Ok)
}

/// `NAME (alias, …)`.
fn title(s: &WordSpec) -> String {
    if s.aliases.is_empty() {
        s.name.to_string()
    } else {
        format!("{} ({})", s.name, s.aliases.join(", "))
    }
}

/// One Word's documentation (a name or an alias, any case); an unknown one is exit 1
/// with the message `word_contract` gives: near misses, and a hint when the name is one
/// users of other languages reach for.
pub fn doc(written: &str) -> Rendered {
    let reg = registry();
    let name = written.trim();
    let Some(id) = reg.lookup(&normalize(name)) else {
        let message = lookup::miss_message(name, &lookup::suggestions(name), None);
        return Rendered::stderr(format!("ajisai: {message}\n"), Exit::Failure);
    };
    let s = reg.spec(id);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — {}, {} tier",
        title(s),
        s.family.id(),
        s.tier.id()
    );
    let _ = writeln!(out, "{}", s.summary);
    let _ = writeln!(out);
    let _ = writeln!(out, "syntax:        {}", s.syntax);
    let _ = writeln!(out, "stack effect:  {}", s.stack_effect);
    let _ = writeln!(out, "contract:      {}", lookup::contract_line(s));
    if !s.errors.is_empty() {
        let errors: Vec<&str> = s.errors.iter().map(|e| e.id()).collect();
        let _ = writeln!(out, "errors:        {}", errors.join(", "));
    }
    if let Some(rules) = ajisai_words::reference::rules(s.name) {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", for_terminal(rules));
        let _ = writeln!(out);
    }
    if !s.examples.is_empty() {
        let _ = writeln!(out, "examples:");
        for ex in s.examples {
            let _ = writeln!(out, "  {}  →  {}", ex.source, ex.expect);
            for line in ex.prints {
                let _ = writeln!(out, "      prints {line}");
            }
        }
    }
    Rendered::stdout(out, Exit::Ok)
}

/// How wide `doc` fills the rules' paragraphs.
const DOC_WIDTH: usize = 88;

/// The Word reference's Markdown for a terminal: links reduced to their words, then each
/// paragraph and list item filled to [`DOC_WIDTH`] (tables and code kept line by line).
fn for_terminal(rules: &str) -> String {
    let text = ajisai_words::reference::without_links(rules);
    let mut blocks = Vec::new();
    for block in text.split("\n\n") {
        let first = block.trim_start();
        if first.starts_with('|') || first.starts_with("```") {
            blocks.push(block.to_string());
            continue;
        }
        let mut items: Vec<String> = Vec::new();
        for line in block.lines() {
            let starts_item = list_marker(line).is_some();
            match items.last_mut() {
                Some(item) if !starts_item => {
                    item.push(' ');
                    item.push_str(line.trim());
                }
                _ => items.push(line.trim_end().to_string()),
            }
        }
        let filled: Vec<String> = items
            .iter()
            .map(|item| {
                let indent = " ".repeat(list_marker(item).unwrap_or(0));
                textwrap::fill(
                    item,
                    textwrap::Options::new(DOC_WIDTH).subsequent_indent(&indent),
                )
            })
            .collect();
        blocks.push(filled.join("\n"));
    }
    blocks.join("\n\n")
}

/// The width of the list marker `line` starts with (`- `, `12. `), if it starts one.
fn list_marker(line: &str) -> Option<usize> {
    if line.starts_with("- ") {
        return Some(2);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && line[digits..].starts_with(". ")).then_some(digits + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_listed_once_under_its_family() {
        ajisai_host::backend::link();
        let all = words(None).stdout;
        for s in registry().specs() {
            let line = format!("\n  {} ", title(s));
            assert_eq!(all.matches(&line).count(), 1, "{}", s.name);
        }
        let one = words(Some(Family::Comparison)).stdout;
        assert!(one.starts_with("comparison:\n"), "{one}");
        assert!(one.contains("  GT (>)"), "{one}");
        assert!(!one.contains("ADD"), "{one}");
    }

    #[test]
    fn doc_shows_the_contract_and_refuses_unknown_words_with_hints() {
        ajisai_host::backend::link();
        let add = doc("+");
        assert_eq!(add.exit, Exit::Ok);
        assert!(
            add.stdout.starts_with("ADD (+) — exactArithmetic"),
            "{}",
            add.stdout
        );
        assert!(
            add.stdout.contains("stack effect:  ( a b -- a+b )"),
            "{}",
            add.stdout
        );
        assert!(
            add.stdout.contains("contract:      inputs 2, outputs 1"),
            "{}",
            add.stdout
        );
        let rules = ajisai_words::reference::rules("ADD").expect("ADD has rules");
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&add.stdout).contains(&words(&ajisai_words::reference::without_links(rules))),
            "ADD's rules, word for word, in {}",
            add.stdout
        );
        assert!(
            !add.stdout.contains("]("),
            "links are reduced: {}",
            add.stdout
        );
        let pow = doc("pow").stdout;
        assert!(
            pow.contains("\n- **e an integer**"),
            "list items stay items: {pow}"
        );
        let str_doc = doc("STR").stdout;
        assert!(
            str_doc.contains("\n| x | text |\n"),
            "tables stay tables: {str_doc}"
        );
        let cond = doc("COND").stdout;
        assert!(
            cond.contains("\n2. **Shape**"),
            "numbered items stay items: {cond}"
        );
        for spec in registry().specs() {
            let rules = ajisai_words::reference::rules(spec.name).expect("every Word has rules");
            let text = for_terminal(rules);
            let long: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with('|') && l.chars().count() > DOC_WIDTH)
                .collect();
            assert!(long.is_empty(), "{}: {long:?}", spec.name);
        }
        let reg = registry();
        let spec = reg.spec(reg.lookup("ADD").expect("ADD"));
        for ex in spec.examples {
            let line = format!("\n  {}  →  {}\n", ex.source, ex.expect);
            assert!(add.stdout.contains(&line), "{line} in {}", add.stdout);
        }
        let miss = doc("dup");
        assert_eq!(miss.exit, Exit::Failure);
        assert_eq!(miss.stdout, "");
        assert!(
            miss.stderr.starts_with("ajisai: Unknown word: dup"),
            "{}",
            miss.stderr
        );
        assert!(
            miss.stderr.contains("; hint: Ajisai has no DUP"),
            "{}",
            miss.stderr
        );
        let near = doc("LENGHT");
        assert_eq!(
            near.stderr,
            "ajisai: Unknown word: LENGHT; closest: LENGTH\n"
        );
    }
}
