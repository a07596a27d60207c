//! The prose of the Word reference, `words/reference.md`: the conventions every entry
//! relies on (integer operands, code operands), each family's rules, and each Word's
//! rules — what it accepts, what it answers, its NIL behaviour, its errors, what `KEEP`
//! does to it. The guide's Word pages merge it with the registry (golden/tests/guide.rs,
//! docs/words/index.md) and `ajisai doc` prints a Word's rules. It is kept apart from the
//! `WordSpec`s so that `word_contract` and `ajisai://contracts` stay compact.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The file as written (Markdown; its links are relative to `docs/words/`).
pub const TEXT: &str = include_str!("../reference.md");

/// `words/reference.md`, read.
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

/// The embedded reference, read once.
pub fn prose() -> &'static Prose {
    static PROSE: OnceLock<Prose> = OnceLock::new();
    PROSE.get_or_init(|| read(TEXT))
}

/// The rules of the Word with canonical name `name`, if the reference has them.
pub fn rules(name: &str) -> Option<&'static str> {
    prose()
        .families
        .values()
        .find_map(|f| f.words.get(name))
        .map(String::as_str)
}

/// Read a reference text: a leading `<!-- … -->` comment is skipped; `# conventions` and
/// `# <family id>` open parts; inside a family, `## NAME (alias), NAME, …` opens the rules
/// of the Words it names (the first word of each comma-separated part).
pub fn read(text: &str) -> Prose {
    let text = match text.split_once("-->") {
        Some((comment, rest)) if comment.trim_start().starts_with("<!--") => rest,
        _ => text,
    };
    let mut out = Prose::default();
    let mut family: Option<String> = None;
    let mut names: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced {
            if let Some(part) = line.strip_prefix("# ") {
                family = (part != "conventions").then(|| part.to_string());
                if let Some(f) = &family {
                    out.families.entry(f.clone()).or_default();
                }
                names.clear();
                continue;
            }
            if let (Some(heading), Some(_)) = (line.strip_prefix("## "), &family) {
                names = heading
                    .split(", ")
                    .filter_map(|part| part.split_whitespace().next())
                    .map(str::to_string)
                    .collect();
                continue;
            }
        }
        let texts: Vec<&mut String> = match &family {
            None => vec![&mut out.conventions],
            Some(f) => {
                let part = out.families.get_mut(f).expect("opened above");
                if names.is_empty() {
                    vec![&mut part.intro]
                } else {
                    for name in &names {
                        part.words.entry(name.clone()).or_default();
                    }
                    part.words
                        .iter_mut()
                        .filter(|(name, _)| names.contains(name))
                        .map(|(_, text)| text)
                        .collect()
                }
            }
        };
        for text in texts {
            text.push_str(line);
            text.push('\n');
        }
    }
    let trim = |s: &mut String| *s = s.trim().to_string();
    trim(&mut out.conventions);
    for part in out.families.values_mut() {
        trim(&mut part.intro);
        part.words.values_mut().for_each(trim);
    }
    out
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
    fn parts_words_and_shared_texts_are_read() {
        let p = read(
            "<!-- about -->\n# conventions\n\nAll.\n\n### Sub\n\nMore.\n\n# fam\n\nIntro.\n\n\
             ## A (`+`), B\n\nShared.\n\n## C\n\n```text\n# not a part\n```\n",
        );
        assert_eq!(p.conventions, "All.\n\n### Sub\n\nMore.");
        let fam = &p.families["fam"];
        assert_eq!(fam.intro, "Intro.");
        assert_eq!(fam.words["A"], "Shared.");
        assert_eq!(fam.words["B"], "Shared.");
        assert_eq!(fam.words["C"], "```text\n# not a part\n```");
    }

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
