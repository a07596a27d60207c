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
    // The part being read (`None`: the conventions), the Words its current section names
    // (none: the family's introduction), and the section's text so far.
    let mut family: Option<String> = None;
    let mut names: Vec<String> = Vec::new();
    let mut section = String::new();
    let mut fenced = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let part = line.strip_prefix("# ").filter(|_| !fenced);
        let heading = line
            .strip_prefix("## ")
            .filter(|_| !fenced && family.is_some());
        if part.is_none() && heading.is_none() {
            section.push_str(line);
            section.push('\n');
        }
        let section_ends = part.is_some() || heading.is_some() || lines.peek().is_none();
        if !section_ends {
            continue;
        }
        let body = std::mem::take(&mut section).trim().to_string();
        match &family {
            None => out.conventions.push_str(&body),
            Some(f) => {
                let entry = out.families.entry(f.clone()).or_default();
                if names.is_empty() {
                    entry.intro.push_str(&body);
                }
                for name in &names {
                    entry.words.insert(name.clone(), body.clone());
                }
            }
        }
        if let Some(part) = part {
            family = (part != "conventions").then(|| part.to_string());
            names.clear();
        }
        if let Some(heading) = heading {
            names = heading
                .split(", ")
                .filter_map(|part| part.split_whitespace().next())
                .map(str::to_string)
                .collect();
        }
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
