//! The phrasebook (docs/phrasebook.md): curated User Words hosts can define before a source.
//!
//! The file format is text, one entry per Word:
//!
//! ```text
//! # a comment
//! #:contract DOUBLE inputs=1 outputs=1 field=closed
//! #:example 21 DOUBLE => 42/1
//! { 2 MUL } 'DOUBLE' DEF
//! #:digest sha256:<64 lowercase hex>
//! ```
//!
//! Loading checks the structure, unique and non-colliding names, dependency order,
//! every `#:digest` against the engine's content identity
//! (docs/reference/dictionary.md#content-identity) and every `#:contract` by the static check. This
//! module does no I/O: hosts pass the text.

use crate::code::Program;
use crate::code::{normalize, Block, Item};
use crate::compile as parser;
use crate::contract;
use crate::identity;
use crate::lexer::DirectiveLine;
use crate::limits::Profile;
use crate::machine::{is_name_lexeme, Dictionary};
use crate::word::registry;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Positions inside phrasebook text carry this origin (not the caller's source).
pub const PHRASEBOOK_ORIGIN: u16 = 1;

/// One `#:example` line, in a phrasebook or in a file `ajisai test` runs: the one
/// example type, in its [`Notation::Spaced`] notation.
pub use crate::word::Example;
use crate::word::Notation;

/// Why the text of an `#:example` directive is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExampleProblem {
    /// No `=>` stands as a token.
    NoArrow,
    /// Nothing but whitespace before the `=>`.
    NoSource,
}

impl ExampleProblem {
    /// The problem as a phrasebook load error states it.
    pub fn message(self) -> &'static str {
        match self {
            ExampleProblem::NoArrow => "an #:example needs `<source> => <expected stack>`",
            ExampleProblem::NoSource => "an #:example has no source before `=>`",
        }
    }
}

impl Example {
    /// The one reader of `#:example` text (`rest`: what follows `#:example`): split at
    /// the first `=>` that stands as a token (whitespace or the text's ends on both
    /// sides); source and expectation are trimmed.
    pub fn parse(rest: &str, line: u32) -> Result<Example, ExampleProblem> {
        let mut search = 0;
        while let Some(found) = rest[search..].find("=>") {
            let at = search + found;
            let before_ok = at == 0 || rest[..at].ends_with(char::is_whitespace);
            let after = &rest[at + 2..];
            let after_ok = after.is_empty() || after.starts_with(char::is_whitespace);
            if before_ok && after_ok {
                let source = rest[..at].trim();
                if source.is_empty() {
                    return Err(ExampleProblem::NoSource);
                }
                return Ok(Example {
                    source: source.to_string().into(),
                    expect: after.trim().to_string().into(),
                    prints: &[],
                    notation: Notation::Spaced,
                    line,
                });
            }
            search = at + 2;
        }
        Err(ExampleProblem::NoArrow)
    }
}

/// One phrasebook Word.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The normalized name.
    pub name: Arc<str>,
    /// 1-based line of the DEF line.
    pub line: u32,
    /// The DEF line as written.
    pub def_line: String,
    /// The `#:contract` line's text (after `#:`), if any.
    pub contract: Option<String>,
    /// The `#:example` lines.
    pub examples: Vec<Example>,
    /// The recorded (and verified) content identity, `sha256:<hex>`.
    pub digest: String,
    /// The body block.
    pub body: Arc<Block>,
    /// The DEF line parsed as a program (what static tools scan as prelude).
    pub program: Arc<Block>,
    /// Phrasebook Words the body calls (normalized, sorted).
    pub deps: Vec<Arc<str>>,
}

/// A loaded, verified phrasebook.
#[derive(Clone, Debug, Default)]
pub struct Phrasebook {
    text: String,
    entries: Vec<Entry>,
}

/// Why a phrasebook was refused: the first problem and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// 1-based line (0 when the problem concerns the whole file).
    pub line: u32,
    /// What is wrong, in one sentence.
    pub problem: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for LoadError {}

fn fail<T>(line: u32, problem: impl Into<String>) -> Result<T, LoadError> {
    Err(LoadError {
        line,
        problem: problem.into(),
    })
}

/// The profile definitions are parsed under: the stricter of the two, so every
/// phrasebook Word is valid wherever it is used.
fn definition_profile() -> Profile {
    Profile::MCP_LOCAL_STDIO
}

/// Read `{ BODY } 'NAME' DEF` from one line: the body and the name as written.
/// A DEF line read but not yet closed by its digest line.
struct PendingDef {
    line: u32,
    text: String,
    body: Arc<Block>,
    program: Arc<Block>,
    written: String,
}

fn def_line(text: &str, line: u32) -> Result<(Arc<Block>, Arc<Block>, String), LoadError> {
    let program =
        parser::parse(text, &definition_profile(), PHRASEBOOK_ORIGIN).map_err(|e| LoadError {
            line,
            problem: format!(
                "the {} line does not parse: {}",
                registry().definer_name(),
                e.message
            ),
        })?;
    let items: Vec<&Item> = program
        .block
        .items()
        .iter()
        .filter(|i| !i.is_line_break())
        .collect();
    match items.as_slice() {
        [Item::Block { block, .. }, Item::Str { text: name, .. }, Item::Name { name: def, .. }]
            if registry()
                .lookup(&def.normalized)
                .is_some_and(|id| registry().defines(id)) =>
        {
            Ok((block.clone(), program.block.clone(), name.to_string()))
        }
        _ => fail(
            line,
            format!(
                "a {d} line must be exactly `{{ BODY }} 'NAME' {d}`",
                d = registry().definer_name()
            ),
        ),
    }
}

fn example_line(rest: &str, line: u32) -> Result<Example, LoadError> {
    Example::parse(rest, line).or_else(|problem| fail(line, problem.message()))
}

impl Phrasebook {
    /// Load and verify a phrasebook from its text.
    pub fn load(text: &str) -> Result<Phrasebook, LoadError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut contract: Option<(u32, String)> = None;
        let mut examples: Vec<Example> = Vec::new();
        let mut pending_def: Option<PendingDef> = None;
        let lines: Vec<&str> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        for (i, raw) in lines.iter().enumerate() {
            let n = i as u32 + 1;
            let trimmed = raw.trim();
            if let Some(PendingDef {
                line: def_n,
                text: def_text,
                body,
                program,
                written,
            }) = pending_def.take()
            {
                let Some(digest) = trimmed.strip_prefix("#:digest ") else {
                    return fail(
                        n,
                        format!(
                            "the {} line {def_n} must be followed by its `#:digest sha256:…` line",
                            registry().definer_name()
                        ),
                    );
                };
                entries.push(Entry {
                    name: normalize(&written).into(),
                    line: def_n,
                    def_line: def_text,
                    contract: contract.take().map(|(_, c)| c),
                    examples: std::mem::take(&mut examples),
                    digest: digest.trim().to_string(),
                    body,
                    program,
                    deps: Vec::new(),
                });
                continue;
            }
            if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("#:")) {
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("#:") {
                let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match key {
                    "contract" => {
                        if contract.is_some() || !examples.is_empty() {
                            return fail(
                                n,
                                "an entry has at most one #:contract line, before its examples",
                            );
                        }
                        contract = Some((n, rest.to_string()));
                    }
                    "example" => examples.push(example_line(value, n)?),
                    "digest" => {
                        return fail(
                            n,
                            format!(
                                "a #:digest line must directly follow a {} line",
                                registry().definer_name()
                            ),
                        )
                    }
                    other => {
                        return fail(
                            n,
                            format!(
                            "#:{other} is not a phrasebook directive (contract, example, digest)"
                        ),
                        )
                    }
                }
                continue;
            }
            let (body, program, written) = def_line(raw, n)?;
            pending_def = Some(PendingDef {
                line: n,
                text: raw.to_string(),
                body,
                program,
                written,
            });
        }
        if let Some(PendingDef { line: def_n, .. }) = pending_def {
            return fail(
                def_n,
                format!(
                    "the last {} line has no #:digest line after it",
                    registry().definer_name()
                ),
            );
        }
        if contract.is_some() || !examples.is_empty() {
            return fail(
                lines.len() as u32,
                "#:contract or #:example lines at the end belong to no Word",
            );
        }
        let book = Phrasebook {
            text: text.to_string(),
            entries,
        };
        book.verify()
    }

    /// Names, dependency order, digests and contracts.
    fn verify(mut self) -> Result<Phrasebook, LoadError> {
        let reg = registry();
        let mut dict = Dictionary::default();
        let mut seen: BTreeMap<Arc<str>, u32> = BTreeMap::new();
        for e in &self.entries {
            let written_ok = is_name_lexeme(&e.name);
            if !written_ok || reg.lookup(&e.name).is_some() {
                return fail(
                    e.line,
                    format!(
                        "{} is not a valid User Word name (or it is a Core Word or alias)",
                        e.name
                    ),
                );
            }
            if let Some(first) = seen.insert(e.name.clone(), e.line) {
                return fail(
                    e.line,
                    format!("{} is already defined on line {first}", e.name),
                );
            }
        }
        for e in &mut self.entries {
            // Calls may reach Core, the Word itself, and Words defined earlier only.
            for name in called_names(&e.body) {
                if reg.lookup(&name).is_some()
                    || *name == *e.name
                    || Some(&*name) == reg.else_guard()
                {
                    continue;
                }
                match seen.get(&*name) {
                    Some(&l) if l < e.line => {}
                    Some(_) => {
                        return fail(
                            e.line,
                            format!(
                                "{} calls {name}, which is defined later (no forward references)",
                                e.name
                            ),
                        )
                    }
                    None => {}
                }
            }
            dict.define(e.name.clone(), e.body.clone())
                .map_err(|err| LoadError {
                    line: e.line,
                    problem: err.message,
                })?;
            e.deps = dict
                .get(&e.name)
                .map(|w| w.deps.clone())
                .unwrap_or_default();
        }
        let ids = identity::identities(&dict);
        for e in &self.entries {
            let actual = ids.get(&*e.name).cloned().unwrap_or_default();
            if e.digest != actual {
                return fail(
                    e.line + 1,
                    format!("the #:digest of {} does not match its definition: expected {actual}, found {}", e.name, e.digest),
                );
            }
        }
        for e in &self.entries {
            if let Some(c) = &e.contract {
                let named = c.split_whitespace().nth(1).map(normalize);
                if named.as_deref() != Some(&*e.name) {
                    return fail(
                        e.line,
                        format!("the #:contract line before {} names another Word", e.name),
                    );
                }
            }
        }
        let program = self.as_program().map_err(|e| LoadError {
            line: 0,
            problem: e,
        })?;
        if let Some(decls) = contract::check_declarations(&program, &[]) {
            if let Some(err) = decls.error() {
                let line = err.pos.map(|p| p.line).unwrap_or(0);
                return fail(line, err.message);
            }
        }
        Ok(self)
    }

    /// The whole file as a program (it is one: directives are comments).
    fn as_program(&self) -> Result<Program, String> {
        parser::parse(&self.text, &Profile::CLI_LOCAL, PHRASEBOOK_ORIGIN).map_err(|e| e.message)
    }

    /// The file's text, byte for byte.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry of a name (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&Entry> {
        let n = normalize(name);
        self.entries.iter().find(|e| *e.name == *n)
    }

    /// The requested Words plus their phrasebook dependencies, in file order; the
    /// first unknown name is the error.
    pub fn closure(&self, requested: &[&str]) -> Result<Vec<&Entry>, UnknownEntry> {
        let mut wanted: Vec<Arc<str>> = Vec::new();
        for r in requested {
            match self.get(r) {
                Some(e) => wanted.push(e.name.clone()),
                None => return Err(UnknownEntry((*r).to_string())),
            }
        }
        let mut keep: Vec<bool> = vec![false; self.entries.len()];
        while let Some(name) = wanted.pop() {
            if let Some(i) = self.entries.iter().position(|e| e.name == name) {
                if !keep[i] {
                    keep[i] = true;
                    wanted.extend(self.entries[i].deps.iter().cloned());
                }
            }
        }
        Ok(self
            .entries
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(e, _)| e)
            .collect())
    }
}

/// A requested name the phrasebook has no entry for (as requested).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the phrasebook has no Word named {0}")]
pub struct UnknownEntry(pub String);

/// Every Word-name token in a body, at any depth outside vector literals, normalized.
fn called_names(body: &Block) -> Vec<String> {
    let mut out = Vec::new();
    let mut work: Vec<&[Item]> = vec![body.items()];
    while let Some(items) = work.pop() {
        for item in items {
            match item {
                Item::Name { name, .. } => out.push(name.normalized.to_string()),
                Item::Block { block, .. } => work.push(block.items()),
                Item::Vector { items, .. } => {
                    for inner in items.iter() {
                        if let Item::Block { block, .. } = inner {
                            work.push(block.items());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The `#:` lines of a phrasebook text as directive lines (for tools that read them).
pub fn directive_lines(text: &str) -> Vec<DirectiveLine> {
    text.split('\n')
        .enumerate()
        .filter_map(|(i, l)| {
            l.trim().strip_prefix("#:").map(|rest| DirectiveLine {
                line: i as u32 + 1,
                text: rest.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one `#:example` reader, pinned: what `ajisai test` and the phrasebook
    /// loader both accepted before they shared it is read the same way.
    #[test]
    fn example_text_splits_at_the_first_arrow_token() {
        let ok = |rest: &str| {
            Example::parse(rest, 7).map(|e| {
                assert_eq!((e.line, e.notation), (7, Notation::Spaced));
                (e.source.into_owned(), e.expect.into_owned())
            })
        };
        let pair = |a: &str, b: &str| Ok((a.to_string(), b.to_string()));
        assert_eq!(ok(" 21 DOUBLE => 42/1"), pair("21 DOUBLE", "42/1"));
        assert_eq!(ok("21 DOUBLE => 42/1"), pair("21 DOUBLE", "42/1"));
        assert_eq!(ok(" 'a=>b' => 'a=>b'"), pair("'a=>b'", "'a=>b'"));
        assert_eq!(ok(" NIL =>"), pair("NIL", ""));
        assert_eq!(ok("1  =>  2  3"), pair("1", "2  3"));
        assert_eq!(ok("1 => 2 => 3"), pair("1", "2 => 3"));
        assert_eq!(ok("1\t=>\t1/1"), pair("1", "1/1"));
        assert_eq!(ok(" => 1/1"), Err(ExampleProblem::NoSource));
        assert_eq!(ok("=>"), Err(ExampleProblem::NoSource));
        assert_eq!(ok(" 1 2 ADD"), Err(ExampleProblem::NoArrow));
        assert_eq!(ok("1 =>=> 2"), Err(ExampleProblem::NoArrow));
        assert_eq!(ok("1=> 2"), Err(ExampleProblem::NoArrow));
    }
}
