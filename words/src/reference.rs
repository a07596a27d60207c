//! The prose of the Word reference: the conventions every entry relies on (integer
//! operands, code operands; `words/conventions.md`), each family's rules (the
//! `family_rules` its module submits) and each Word's rules (`WordSpec::rules`, written
//! beside the Word). The guide's Word pages merge it with the registry
//! (golden/tests/guide.rs, docs/words/index.md), `ajisai doc` prints a Word's rules and the
//! Playground's dictionary shows them. The rules stay out of the contracts so that
//! `word_contract` and `ajisai://contracts` stay compact.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use ajisai_core::word::family_rules;

/// The conventions every entry relies on (Markdown, its own `###` headings; like every
/// text of the reference, its links are relative to `docs/words/`).
pub const CONVENTIONS: &str = include_str!("../conventions.md");

/// The reference's prose, gathered from the registry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prose {
    /// The conventions every entry relies on (Markdown, its own `###` headings).
    pub conventions: String,
    /// Family id (`exactArithmetic`) → that family's prose.
    pub families: BTreeMap<String, FamilyProse>,
}

/// One family's part of the reference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyProse {
    /// The rules every Word of the family follows (may be empty).
    pub intro: String,
    /// Canonical Word name → its rules. Words described together share one text.
    pub words: BTreeMap<String, String>,
}

/// The reference's prose, gathered once from every documented Word of the registry.
pub fn prose() -> &'static Prose {
    static PROSE: OnceLock<Prose> = OnceLock::new();
    PROSE.get_or_init(|| {
        let mut out = Prose {
            conventions: CONVENTIONS.trim().to_string(),
            ..Prose::default()
        };
        for spec in crate::registry().documented() {
            let family = out
                .families
                .entry(spec.family.id().to_string())
                .or_insert_with(|| FamilyProse {
                    intro: family_rules(spec.family).trim().to_string(),
                    ..FamilyProse::default()
                });
            family
                .words
                .insert(spec.name.to_string(), spec.rules.trim().to_string());
        }
        out
    })
}

/// The rules of the Word with canonical name `name`, if the reference has them.
pub fn rules(name: &str) -> Option<&'static str> {
    prose()
        .families
        .values()
        .find_map(|f| f.words.get(name))
        .map(String::as_str)
        .filter(|text| !text.is_empty())
}

/// `text` with every Markdown link `[words](target)` reduced to its words, for a
/// terminal.
pub fn without_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let link = after.find("](").and_then(|close| {
            let target = &after[close + 2..];
            target.find(')').map(|end| (close, close + 2 + end + 1))
        });
        match link {
            Some((close, skip)) if !after[..close].contains(['[', ']']) => {
                out.push_str(&rest[..open]);
                out.push_str(&after[..close]);
                rest = &after[skip..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_become_their_words() {
        assert_eq!(
            without_links("see [order of\nchecks](../reference/errors.md#x), `[ 1 ]` and [a]"),
            "see order of\nchecks, `[ 1 ]` and [a]"
        );
    }

    #[test]
    fn the_embedded_reference_has_rules() {
        let add = rules("ADD").expect("ADD has rules");
        assert!(add.contains("KEEP"), "{add}");
        assert_eq!(rules("SUB"), Some(add), "described together");
        assert!(rules("DUP").is_none());
        assert!(prose().conventions.contains("### Integer operands"));
    }
}
