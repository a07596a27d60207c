//! The guide in `docs/`, an mdBook (`docs/book.toml`, `docs/SUMMARY.md`):
//!
//! - its Word reference (`docs/words/`) is generated from the registry; without
//!   `AJISAI_BLESS` the test fails on any drift, with `AJISAI_BLESS=1 cargo test -p
//!   ajisai-golden --test golden guide::` it rewrites the pages;
//! - every example in a fenced block marked `ajisai` runs and gives its stated result;
//! - `SUMMARY.md` lists every page, and every internal link (anchors included)
//!   resolves. CI does not build the book; these checks keep it buildable.
//!
//! An example block holds examples separated by blank lines: program lines, one line
//! `→ <result>`, then a line `prints: <line>` per output line. The result is written
//! as the registry's examples write it: the slots' displays joined by ` | ` (the top
//! NIL followed by ` (nil:<reason>)`), `(empty)`, or `error:<category>`. Blocks run
//! under `mcp-local-stdio`; a block marked `ajisai cli-local` under `cli-local`.

use ajisai_core::display::display;
use ajisai_core::engine::{compute, Options};
use ajisai_core::word::{registry, Arity, Example, Family, WordSpec};
use ajisai_core::Profile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

fn link() {
    ajisai_numerics_pure::link();
    ajisai_words::link();
}

/// Every Markdown page of the book, as paths relative to `docs/`, sorted.
fn pages() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![docs()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(docs()).expect("under docs/");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(docs().join(rel)).unwrap_or_else(|e| panic!("docs/{rel}: {e}"))
}

// ---------------------------------------------------------------- Word reference

/// How a family is titled in the reference.
fn family_title(f: Family) -> &'static str {
    match f {
        Family::BooleanLogic => "Boolean logic",
        Family::Comparison => "Comparison",
        Family::ExactArithmetic => "Exact arithmetic",
        Family::Collection => "Collections",
        Family::HigherOrder => "Higher-order Words",
        Family::Text => "Text",
        Family::Control => "Control",
        Family::Absence => "Absence (NIL)",
        Family::StackModifier => "Stack modifier",
        Family::Dictionary => "Dictionary",
        Family::Output => "Output",
        Family::Reflection => "Reflection",
    }
}

/// Examples shown per Word (`word_contract` and `ajisai://contracts` hold them all).
const EXAMPLES_PER_WORD: usize = 4;

fn arity(a: Arity) -> String {
    match a {
        Arity::Fixed(n) => n.to_string(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
    }
}

fn code(s: &str) -> String {
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// Whether an example can stand in an example block (no blank program line, no
/// line break in its result or output).
fn renderable(e: &Example) -> bool {
    !e.source.split('\n').any(|l| l.trim().is_empty())
        && !e.expect.contains('\n')
        && !e.prints.iter().any(|p| p.contains('\n'))
        && !e
            .source
            .lines()
            .any(|l| l.starts_with("→ ") || l.starts_with("prints: "))
}

fn example_block(examples: &[&Example]) -> String {
    let mut out = String::from("```ajisai\n");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&e.source);
        out.push_str(&format!("\n→ {}\n", e.expect));
        for p in e.prints {
            out.push_str(&format!("prints: {p}\n"));
        }
    }
    out.push_str("```\n");
    out
}

/// A code span inside a table cell (a `|` would end the cell).
fn cell(s: &str) -> String {
    code(s).replace('|', "\\|")
}

fn word_section(s: &WordSpec, rules: &str) -> String {
    let mut out = format!("## {}\n\n", s.name);
    out.push_str(&format!("{}\n\n", s.summary));
    out.push_str("| | |\n|---|---|\n");
    out.push_str(&format!("| Syntax | {} |\n", cell(s.syntax)));
    out.push_str(&format!("| Stack effect | {} |\n", cell(s.stack_effect)));
    if !s.aliases.is_empty() {
        let a: Vec<String> = s.aliases.iter().map(|a| cell(a)).collect();
        out.push_str(&format!("| Aliases | {} |\n", a.join(", ")));
    }
    out.push_str(&format!(
        "| Operands → results | {} → {} |\n",
        arity(s.inputs),
        arity(s.outputs)
    ));
    out.push_str(&format!("| Number field | `{}` |\n", s.field.id()));
    out.push_str(&format!("| NIL operands | `{}` |\n", s.nil_policy.id()));
    if !s.projections.is_empty() {
        let p: Vec<String> = s.projections.iter().map(|r| code(r.id())).collect();
        out.push_str(&format!("| NIL results | {} |\n", p.join(", ")));
    }
    out.push_str(&format!("| Consumes | `{}` |\n", s.consumption.id()));
    out.push_str(&format!("| Purity | `{}` |\n", s.purity.id()));
    out.push_str(&format!("| Tier | `{}` |\n", s.tier.id()));
    if !s.errors.is_empty() {
        let e: Vec<String> = s.errors.iter().map(|c| code(c.id())).collect();
        out.push_str(&format!("| Errors | {} |\n", e.join(", ")));
    }
    out.push('\n');
    out.push_str(rules);
    out.push('\n');
    let shown: Vec<&Example> = s
        .examples
        .iter()
        .filter(|e| renderable(e))
        .take(EXAMPLES_PER_WORD)
        .collect();
    if !shown.is_empty() {
        out.push('\n');
        out.push_str(&example_block(&shown));
    }
    out.push('\n');
    out
}

fn family_words(f: Family) -> Vec<&'static WordSpec> {
    let mut specs: Vec<&'static WordSpec> = registry()
        .specs()
        .iter()
        .copied()
        .filter(|s| s.family == f)
        .collect();
    specs.sort_by_key(|s| s.name);
    specs
}

const GENERATED: &str = "<!-- Generated from the Word registry (each Word's contract and rules, \
                         its family's rules, words/conventions.md) by golden/tests/guide.rs; \
                         AJISAI_BLESS=1 cargo test -p ajisai-golden --test golden guide:: \
                         rewrites it. -->";

/// The generated pages: `words/index.md` and one page per family.
fn word_pages() -> BTreeMap<String, String> {
    let prose = ajisai_words::reference::prose();
    let mut pages = BTreeMap::new();
    let mut index = format!(
        "{GENERATED}\n\n# Word reference\n\n\
         Every Core Word, by family, as the registry declares it (the same contracts as \
         `spec/words.json`, the MCP tool `word_contract` and the resource \
         `ajisai://contracts`; a Word's regression cases are in `golden/word-cases.json`). Each entry gives \
         the Word's summary, syntax and stack effect, its contract — operands and results, \
         number field, how it treats NIL operands, what it consumes, whether it is pure — \
         the errors it can raise, and examples that the test suite runs. The \
         [language reference](../reference/index.md) explains the terms.\n\n\
         | Family | Words |\n|---|---|\n"
    );
    for f in Family::ALL {
        let specs = family_words(f);
        if specs.is_empty() {
            continue;
        }
        let names: Vec<String> = specs.iter().map(|s| code(s.name)).collect();
        index.push_str(&format!(
            "| [{}]({}.md) | {} |\n",
            family_title(f),
            f.id(),
            names.join(", ")
        ));
        let part = prose.families.get(f.id());
        let mut page = format!(
            "{GENERATED}\n\n# {} (`{}`)\n\n{}.\n\n",
            family_title(f),
            f.id(),
            names.join(", ")
        );
        if let Some(intro) = part.map(|p| &p.intro).filter(|i| !i.is_empty()) {
            page.push_str(&format!("{intro}\n\n"));
        }
        for s in specs {
            let rules = part.and_then(|p| p.words.get(s.name));
            page.push_str(&word_section(s, rules.map_or("", String::as_str)));
        }
        pages.insert(
            format!("words/{}.md", f.id()),
            page.trim_end().to_string() + "\n",
        );
    }
    index.push_str(&format!("\n## Conventions\n\n{}\n", prose.conventions));
    pages.insert("words/index.md".to_string(), index);
    pages
}

#[test]
fn the_word_reference_is_the_registry() {
    link();
    let bless = std::env::var_os("AJISAI_BLESS").is_some();
    let generated = word_pages();
    let mut drift = Vec::new();
    for (rel, text) in &generated {
        let path = docs().join(rel);
        if bless {
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("docs/words/");
            std::fs::write(&path, text).expect("writable");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            drift.push(rel.clone());
        }
    }
    let stale: Vec<String> = pages()
        .into_iter()
        .filter(|p| p.starts_with("words/") && !generated.contains_key(p))
        .collect();
    assert!(
        drift.is_empty() && stale.is_empty(),
        "docs/words differs from the registry ({drift:?}; stale: {stale:?}); run \
         AJISAI_BLESS=1 cargo test -p ajisai-golden --test golden guide:: and commit"
    );
}

// ---------------------------------------------------------------- examples

/// One example of a page: where it starts, its profile, program, result and output.
struct DocExample {
    at: String,
    profile: Profile,
    source: String,
    expect: String,
    prints: Vec<String>,
}

fn examples_of(rel: &str, text: &str) -> Result<Vec<DocExample>, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_end();
        let profile = match fence {
            "```ajisai" => Profile::MCP_LOCAL_STDIO,
            "```ajisai cli-local" => Profile::CLI_LOCAL,
            f if f.starts_with("```ajisai") => {
                return Err(format!("{rel}:{}: unknown example block {f:?}", i + 1))
            }
            _ => {
                i += 1;
                continue;
            }
        };
        i += 1;
        let mut group: Vec<(usize, &str)> = Vec::new();
        loop {
            let Some(line) = lines.get(i) else {
                return Err(format!("{rel}: an example block is not closed"));
            };
            let end = line.starts_with("```");
            if end || line.trim().is_empty() {
                if !group.is_empty() {
                    out.push(example(rel, profile.clone(), &group)?);
                    group.clear();
                }
            } else {
                group.push((i + 1, line));
            }
            i += 1;
            if end {
                break;
            }
        }
    }
    Ok(out)
}

fn example(rel: &str, profile: Profile, group: &[(usize, &str)]) -> Result<DocExample, String> {
    let at = format!("{rel}:{}", group[0].0);
    let mut source = Vec::new();
    let mut expect = None;
    let mut prints = Vec::new();
    for &(n, line) in group {
        if let Some(result) = line.strip_prefix("→ ") {
            if expect.replace(result.to_string()).is_some() {
                return Err(format!("{rel}:{n}: a second result line"));
            }
        } else if let Some(p) = line.strip_prefix("prints: ").filter(|_| expect.is_some()) {
            prints.push(p.to_string());
        } else if expect.is_none() {
            source.push(line);
        } else {
            return Err(format!(
                "{rel}:{n}: a line after the result that is no `prints:`"
            ));
        }
    }
    let expect = expect.ok_or_else(|| format!("{at}: an example without a `→ ` result line"))?;
    Ok(DocExample {
        at,
        profile,
        source: source.join("\n"),
        expect,
        prints,
    })
}

/// A run written as the examples write results.
fn result_of(e: &DocExample) -> (String, Vec<String>) {
    let r = compute(&e.source, &Options::new(e.profile.clone()));
    let shown = match &r.error {
        Some(err) => format!("error:{}", err.category.id()),
        None if r.stack.is_empty() => "(empty)".to_string(),
        None => {
            let mut slots: Vec<String> = r.stack.iter().map(display).collect();
            let outcome = r.outcome_id();
            if outcome.starts_with("nil:") {
                if let Some(top) = slots.last_mut() {
                    top.push_str(&format!(" ({outcome})"));
                }
            }
            slots.join(" | ")
        }
    };
    (shown, r.output)
}

#[test]
fn every_example_of_the_guide_holds() {
    link();
    let mut count = 0;
    let mut failures = Vec::new();
    for rel in pages() {
        let examples = match examples_of(&rel, &read(&rel)) {
            Ok(x) => x,
            Err(problem) => {
                failures.push(problem);
                continue;
            }
        };
        for e in examples {
            count += 1;
            let (got, output) = result_of(&e);
            if got != e.expect || output != e.prints {
                failures.push(format!(
                    "{}: `{}`\n  expected {} {:?}\n  got      {got} {output:?}",
                    e.at, e.source, e.expect, e.prints
                ));
            }
        }
    }
    assert!(
        count >= 600,
        "only {count} examples found: the parser lost some"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn example_blocks_are_read_as_written() {
    let page = "text\n```ajisai\n1 2 +\n→ 3/1\n\n'a' PRINT\n→ (empty)\nprints: 'a'\n```\n\
                ```ajisai cli-local\n{ 1 } 'X' DEF\nX\n→ 1/1\n```\n```text\n→ not an example\n```\n";
    let examples = examples_of("page.md", page).expect("well-formed");
    let seen: Vec<(&str, &str, usize, &str)> = examples
        .iter()
        .map(|e| {
            (
                e.at.as_str(),
                e.source.as_str(),
                e.prints.len(),
                e.expect.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("page.md:3", "1 2 +", 0, "3/1"),
            ("page.md:6", "'a' PRINT", 1, "(empty)"),
            ("page.md:11", "{ 1 } 'X' DEF\nX", 0, "1/1"),
        ]
    );
    assert_eq!(examples[2].profile, Profile::CLI_LOCAL);
    assert!(
        examples_of("p.md", "```ajisai\n1 2 +\n```\n").is_err(),
        "no result"
    );
    assert!(examples_of("p.md", "```ajisai\n1\n→ 1/1\n→ 1/1\n```\n").is_err());
    assert!(
        examples_of("p.md", "```ajisai\n1\n→ 1/1\n").is_err(),
        "unclosed"
    );
    assert!(examples_of("p.md", "```ajisai mcp\n1\n→ 1/1\n```\n").is_err());
}

// ---------------------------------------------------------------- structure and links

/// Markdown outside fenced code blocks (links and headings live there).
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// Every `[text](target)` of the page's prose (inline code skipped).
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut in_code = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '`' => in_code = !in_code,
                ']' if !in_code && chars.get(i + 1) == Some(&'(') => {
                    let rest: String = chars[i + 2..].iter().collect();
                    if let Some(end) = rest.find(')') {
                        out.push(rest[..end].trim().to_string());
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// The anchors mdBook gives a page's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let mut plain = String::new();
        let mut chars = heading.trim().chars().peekable();
        // Link targets are not part of the heading's text.
        while let Some(c) = chars.next() {
            if c == ']' && chars.peek() == Some(&'(') {
                for c in chars.by_ref() {
                    if c == ')' {
                        break;
                    }
                }
                continue;
            }
            plain.push(c);
        }
        let id: String = plain
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_lowercase().next().unwrap_or(c))
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        let n = seen.entry(id.clone()).or_insert(0);
        out.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    out
}

/// `target` resolved against the page `rel` (both relative to `docs/`; a target
/// above `docs/` keeps its leading `../`).
fn resolve(rel: &str, target: &str) -> String {
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    let mut above = 0;
    for piece in target.split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                if parts.pop().is_none() {
                    above += 1;
                }
            }
            p => parts.push(p),
        }
    }
    "../".repeat(above) + &parts.join("/")
}

#[test]
fn the_summary_lists_every_page_and_every_link_resolves() {
    let all = pages();
    let summary = read("SUMMARY.md");
    let listed: BTreeSet<String> = links(&summary)
        .iter()
        .map(|t| resolve("SUMMARY.md", t))
        .collect();
    let missing: Vec<&String> = all
        .iter()
        .filter(|p| p.as_str() != "SUMMARY.md" && !listed.contains(*p))
        .collect();
    assert!(missing.is_empty(), "SUMMARY.md does not list {missing:?}");
    let mut broken = Vec::new();
    for rel in &all {
        let text = read(rel);
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                rel.clone()
            } else {
                resolve(rel, path)
            };
            if !docs().join(&file).exists() {
                broken.push(format!("{rel}: {target} (no {file})"));
            } else if !anchor.is_empty()
                && file.ends_with(".md")
                && !anchors(&read(&file)).contains(anchor)
            {
                broken.push(format!("{rel}: {target} (no heading #{anchor} in {file})"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_and_links_are_read_as_mdbook_reads_them() {
    let page =
        "# The `KEEP` modifier\n## Errors & NIL\n## Errors & NIL\n```text\n# not a heading\n```\n\
                See [x](a.md#y) and `[not](a link)`.\n";
    let a: Vec<String> = anchors(page).into_iter().collect();
    assert_eq!(a, ["errors--nil", "errors--nil-1", "the-keep-modifier"]);
    assert_eq!(links(page), ["a.md#y"]);
    assert_eq!(
        resolve("tutorial/cond.md", "../words/control.md"),
        "words/control.md"
    );
    assert_eq!(
        resolve("tutorial/cond.md", "../../README.md"),
        "../README.md"
    );
}

// ---------------------------------------------------------------- requirements

/// Every requirement number a source file cites (`MCP-33 (docs/mcp/envelope.md)`), with a file citing it.
fn cited_requirements() -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for (path, text) in ajisai_golden::workspace_rust_files() {
        for (at, _) in text.match_indices("MCP-") {
            let digits: String = text[at + 4..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse::<u32>() {
                out.entry(n).or_insert_with(|| path.display().to_string());
            }
        }
    }
    out
}

/// A requirement number in a code comment is one lookup away: the requirement index
/// lists every number the code cites, with what it is about and a page that covers it.
#[test]
fn every_requirement_the_code_cites_is_in_the_index() {
    let index = read("mcp/requirements.md");
    let listed: BTreeSet<u32> = index
        .lines()
        .filter_map(|l| l.strip_prefix("| MCP-"))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    let cited = cited_requirements();
    assert!(
        cited.len() > 50,
        "the scan finds the citations: {}",
        cited.len()
    );
    let missing: Vec<String> = cited
        .iter()
        .filter(|(n, _)| !listed.contains(n))
        .map(|(n, file)| format!("MCP-{n} ({file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/mcp/requirements.md: {missing:?}"
    );
}

/// The page of the guide the index gives for each requirement, as a path from the
/// repository root (`docs/mcp/envelope.md`).
fn requirement_pages() -> BTreeMap<u32, String> {
    let index = read("mcp/requirements.md");
    let mut out = BTreeMap::new();
    for line in index.lines() {
        let Some(rest) = line.strip_prefix("| MCP-") else {
            continue;
        };
        let Some(n) = rest.split(' ').next().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Some(target) = line.rsplit("](").next().and_then(|t| t.split(')').next()) else {
            continue;
        };
        let target = target.split('#').next().unwrap_or(target);
        out.insert(n, resolve("mcp/requirements.md", target));
    }
    out
}

/// Where the code or a script cites a requirement in a comment, the file links the guide's page
/// for it (`(MCP-33; docs/mcp/envelope.md)`, once per page and file), so a reader
/// of the code reaches the behaviour without the index.
#[test]
fn a_file_citing_a_requirement_links_its_page() {
    let pages = requirement_pages();
    let mut unlinked = Vec::new();
    let sources = ajisai_golden::workspace_rust_files();
    for (path, text) in sources
        .into_iter()
        .chain(ajisai_golden::workspace_scripts())
    {
        for line in text.lines() {
            // Shell scripts comment with `#`: any line of theirs that cites one counts.
            let Some(comment) = line.find("//").or(line.find('#')).map(|c| &line[c..]) else {
                continue;
            };
            for (at, _) in comment.match_indices("MCP-") {
                let digits: String = comment[at + 4..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let Some(page) = digits.parse::<u32>().ok().and_then(|n| pages.get(&n)) else {
                    continue;
                };
                let link = match page.strip_prefix("../") {
                    Some(outside_docs) => outside_docs.to_string(),
                    None => format!("docs/{page}"),
                };
                if !text.contains(&link) {
                    unlinked.push(format!("{}: MCP-{digits} without {link}", path.display()));
                }
            }
        }
    }
    unlinked.sort();
    unlinked.dedup();
    assert!(unlinked.is_empty(), "{}", unlinked.join("\n"));
}

/// The documents of the steering repository the project was founded on. The guide
/// restates them; a reader of this repository cannot open them, so only the guide's
/// front page (which says where the book comes from) and the golden crate (whose data
/// was transcribed from them) may name them.
const OUTSIDE_DOCUMENTS: [&str; 4] = ["LANGUAGE.md", "WORDS.md", "MCP.md", "spec/ARCHITECTURE.md"];

/// Whether a section sign at byte `at` of `line` cites an outside standard (JSON-RPC
/// 2.0, an RFC), which is fine: those documents are public.
fn cites_a_public_standard(line: &str, at: usize) -> bool {
    let before = &line[..at];
    ["JSON-RPC", "RFC"].iter().any(|s| before.contains(s))
}

/// Code, scripts, the golden data, the guide, the README and the codemap point at pages of
/// `docs/`, never at section numbers or files of a specification outside the repository.
#[test]
fn nothing_cites_a_document_outside_the_repository() {
    let root = docs()
        .join("..")
        .canonicalize()
        .expect("the repository root");
    let mut texts: Vec<(String, String)> = Vec::new();
    let sources = ajisai_golden::workspace_rust_files();
    for (path, text) in sources
        .into_iter()
        .chain(ajisai_golden::workspace_scripts())
        .chain(ajisai_golden::golden_data())
    {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        texts.push((rel, text));
    }
    for rel in pages() {
        texts.push((format!("docs/{rel}"), read(&rel)));
    }
    for rel in [
        "README.md",
        "ARCHITECTURE.md",
        "docs/phrasebook/phrasebook.ajisai",
    ] {
        let text = std::fs::read_to_string(root.join(rel)).expect("readable");
        texts.push((rel.to_string(), text));
    }
    assert!(
        texts.len() > 150,
        "the scan reads the sources: {}",
        texts.len()
    );
    let mut found = Vec::new();
    for (rel, text) in &texts {
        let provenance =
            rel == "docs/index.md" || (rel.starts_with("golden/") && rel.ends_with(".rs"));
        for (n, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices('\u{a7}') {
                if !cites_a_public_standard(line, at) {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
            if !provenance && OUTSIDE_DOCUMENTS.iter().any(|d| line.contains(d)) {
                found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "link the page of docs/ instead:\n{}",
        found.join("\n")
    );
}

/// Every `docs/….md` or `docs/….md#anchor` a source file, script or golden data file names
/// is a page of the guide with that heading, so a link in a note does not rot when pages
/// move.
#[test]
fn every_guide_page_the_code_names_exists() {
    let anchors_of: BTreeMap<String, BTreeSet<String>> = pages()
        .into_iter()
        .map(|p| {
            let a = anchors(&read(&p));
            (p, a)
        })
        .collect();
    let mut named = 0;
    let mut broken = Vec::new();
    let sources = ajisai_golden::workspace_rust_files();
    for (path, text) in sources
        .into_iter()
        .chain(ajisai_golden::workspace_scripts())
        .chain(ajisai_golden::golden_data())
    {
        for (at, _) in text.match_indices("docs/") {
            let target: String = text[at + 5..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || "/._-#".contains(*c))
                .collect();
            let target = target.trim_end_matches('.');
            let (page, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target, None),
            };
            if !page.ends_with(".md") {
                continue;
            }
            named += 1;
            let ok = anchors_of
                .get(page)
                .is_some_and(|heads| anchor.is_none_or(|a| heads.contains(a)));
            if !ok {
                broken.push(format!("{}: docs/{target}", path.display()));
            }
        }
    }
    assert!(named > 200, "the scan finds the links: {named}");
    broken.sort();
    broken.dedup();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The table of symbolic aliases in docs/reference/lexical.md#names-and-case is the
/// registry's: every alias it lists and no other.
#[test]
fn the_alias_table_of_the_lexical_reference_is_the_registrys() {
    link();
    let text = std::fs::read_to_string(docs().join("reference/lexical.md")).expect("readable");
    let (_, table) = text
        .split_once("| alias | Word |")
        .expect("lexical.md has its alias table");
    let mut listed = BTreeSet::new();
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .filter(|c| !c.is_empty())
            .collect();
        for pair in cells.chunks(2) {
            listed.insert((pair[0].to_string(), pair[1].to_string()));
        }
    }
    let registered: BTreeSet<(String, String)> = registry()
        .documented()
        .flat_map(|s| {
            s.aliases
                .iter()
                .map(|a| (a.to_string(), s.name.to_string()))
        })
        .collect();
    assert_eq!(listed, registered);
}
