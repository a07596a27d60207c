//! The effective phrasebook (docs/phrasebook.md): the embedded `phrasebook.ajisai`, or the file
//! `AJISAI_PHRASEBOOK` names, loaded and verified once at startup (MCP-78, MCP-80; docs/phrasebook.md).
//!
//! Everything that depends on its contents asks this module: the check of `words`
//! entries (MCP-19 (docs/mcp/host-errors.md) step 7), the prelude a source tool defines before the source
//! (MCP-79) and its `prelude` record (MCP-35; docs/mcp/envelope.md), the `words` description (MCP-23; docs/mcp/tools.md), the
//! `ajisai://phrasebook` resource (MCP-63; docs/mcp/resources.md), the asset digest (MCP-83) and the hints
//! that point a caller from an unknown name to the phrasebook (MCP-33, MCP-72).
//!
//! The engine does the loading and verification (`ajisai_core::phrasebook`); this
//! module only reads the file and keeps the result.

use super::hosterror::HostError;
use super::quote::echo;
use crate::assets;
use ajisai_core::code::normalize;
use ajisai_core::outcome::{ErrorCategory, LangError};
use ajisai_core::phrasebook::{Entry, LoadError, Phrasebook as Book};
use ajisai_core::suggest::closest;
use std::ffi::{OsStr, OsString};
use std::sync::{Arc, OnceLock};

/// The most entries `words` may have (MCP-17).
pub const MAX_WORDS: usize = 64;

/// The longest phrasebook Word name, in characters (MCP-17).
pub const MAX_NAME_CHARS: usize = 64;

/// The environment variable naming an override file (MCP-80).
pub const ENV: &str = "AJISAI_PHRASEBOOK";

/// The asset the phrasebook is embedded as, and the name an override replaces in the
/// asset digest (MCP-83).
pub const ASSET: &str = "phrasebook.ajisai";

/// The URI the phrasebook is served at.
pub const URI: &str = "ajisai://phrasebook";

/// Where the effective phrasebook came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The file compiled into the binary.
    Embedded,
    /// The file `AJISAI_PHRASEBOOK` names, as the variable spells it.
    Override(String),
}

/// Why the effective phrasebook cannot be served: a startup fault (MCP-78, MCP-80).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The override file cannot be read, or is not UTF-8 text.
    Unreadable {
        /// The path, as `AJISAI_PHRASEBOOK` spells it.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The file was read but the engine refused it.
    Invalid {
        /// Which file.
        origin: Origin,
        /// The first problem and its line.
        error: LoadError,
    },
}

impl Fault {
    /// What is wrong, in one line: `line <n>: <problem>`, naming the override file when
    /// there is one (the detail of `--doctor`'s phrasebook check).
    pub fn problem(&self) -> String {
        let text = match self {
            Fault::Unreadable { path, reason } => format!("cannot read {ENV}={path}: {reason}"),
            Fault::Invalid { origin, error } => {
                let at = if error.line == 0 {
                    String::new()
                } else {
                    format!("line {}: ", error.line)
                };
                let whose = match origin {
                    Origin::Embedded => " (the embedded phrasebook)".to_string(),
                    Origin::Override(path) => format!(" ({ENV}={path})"),
                };
                format!("{at}{}{whose}", error.problem)
            }
        };
        text.replace(['\r', '\n'], " ")
    }

    /// The operator-facing startup diagnostic without the log prefix:
    /// `phrasebook: line <n>: <problem>` (MCP-78).
    pub fn diagnostic(&self) -> String {
        format!("phrasebook: {}", self.problem())
    }
}

/// A loaded, verified phrasebook as a host serves it: the Words (core's
/// `Phrasebook`, read from the text), their prelude, and what the host derives from them
/// (origin, digests, the `words` argument's description).
#[derive(Clone, Debug)]
pub struct ServedPhrasebook {
    book: Arc<Book>,
    origin: Origin,
    asset_digest: String,
}

impl ServedPhrasebook {
    /// A phrasebook without Words (tests; the server always serves a loaded file).
    pub fn empty() -> ServedPhrasebook {
        ServedPhrasebook {
            book: Arc::new(Book::default()),
            origin: Origin::Embedded,
            asset_digest: assets::asset_digest(),
        }
    }

    /// The embedded phrasebook, verified once per process.
    pub fn embedded() -> Result<ServedPhrasebook, Fault> {
        static EMBEDDED: OnceLock<Result<ServedPhrasebook, Fault>> = OnceLock::new();
        EMBEDDED
            .get_or_init(|| {
                ServedPhrasebook::from_text(assets::phrasebook_ajisai(), Origin::Embedded)
            })
            .clone()
    }

    /// Load and verify phrasebook `text` from `origin`. An override's bytes replace the
    /// embedded file's in the asset digest.
    pub fn from_text(text: &str, origin: Origin) -> Result<ServedPhrasebook, Fault> {
        let book = Book::load(text).map_err(|error| Fault::Invalid {
            origin: origin.clone(),
            error,
        })?;
        let asset_digest = match origin {
            Origin::Embedded => assets::asset_digest(),
            Origin::Override(_) => assets::asset_digest_with(&[(ASSET, text.as_bytes())]),
        };
        Ok(ServedPhrasebook {
            book: Arc::new(book),
            origin,
            asset_digest,
        })
    }

    /// Read and verify the override file at `path` (relative to the working directory).
    pub fn from_file(path: &OsStr) -> Result<ServedPhrasebook, Fault> {
        let shown = path.to_string_lossy().into_owned();
        let bytes = std::fs::read(path).map_err(|e| Fault::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| Fault::Unreadable {
            path: shown.clone(),
            reason: format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        })?;
        ServedPhrasebook::from_text(&text, Origin::Override(shown))
    }

    /// The effective phrasebook for a value of `AJISAI_PHRASEBOOK`: the file it names
    /// when set and non-empty, else the embedded one. Never falls back silently.
    pub fn from_setting(setting: Option<&OsStr>) -> Result<ServedPhrasebook, Fault> {
        match setting {
            Some(path) if !path.is_empty() => ServedPhrasebook::from_file(path),
            _ => ServedPhrasebook::embedded(),
        }
    }

    /// The effective phrasebook of this process's environment (read once, at startup).
    pub fn from_env() -> Result<ServedPhrasebook, Fault> {
        let setting: Option<OsString> = std::env::var_os(ENV);
        ServedPhrasebook::from_setting(setting.as_deref())
    }

    /// Where it came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The file's text, byte for byte (`ajisai://phrasebook`, MCP-63).
    pub fn text(&self) -> &str {
        self.book.text()
    }

    /// The Words, in file order.
    pub fn entries(&self) -> &[Entry] {
        self.book.entries()
    }

    /// `assetDigest` with this phrasebook as the phrasebook asset (MCP-83).
    pub fn asset_digest(&self) -> &str {
        &self.asset_digest
    }

    /// One line for the startup log and `--doctor`: the source and the Word count.
    pub fn summary(&self) -> String {
        let n = self.entries().len();
        let words = if n == 1 { "Word" } else { "Words" };
        match &self.origin {
            Origin::Embedded => format!("embedded, {n} {words}"),
            Origin::Override(path) => format!("override {ENV}={path}, {n} {words}"),
        }
    }

    /// The Words' names, in file order.
    pub fn names(&self) -> Vec<&str> {
        self.entries().iter().map(|e| &*e.name).collect()
    }

    /// The canonical spelling of a phrasebook Word, matched case-insensitively.
    pub fn find(&self, name: &str) -> Option<&str> {
        self.book.get(name).map(|e| &*e.name)
    }

    /// The sentence of the `words` description that names what can be requested
    /// (MCP-23: the names when there are at most 64, else a pointer to the resource).
    pub fn description_sentence(&self) -> String {
        let names = self.names();
        match names.len() {
            0 => "This server's phrasebook has no Words, so leave `words` out.".to_string(),
            n if n <= MAX_WORDS => format!("Available: {}.", names.join(", ")),
            _ => format!("The names are listed in {URI}."),
        }
    }

    /// Check a `words` argument (MCP-19 step 7): at most 64 entries, each 1 to 64
    /// characters, no duplicates (case-insensitive), each a phrasebook Word. Returns the
    /// canonical names, in request order.
    pub fn resolve(&self, tool: &str, words: &[String]) -> Result<Vec<String>, HostError> {
        if words.len() > MAX_WORDS {
            return Err(HostError::invalid(format!(
                "Argument `words` of {tool} has {} entries; at most {MAX_WORDS} are accepted (the phrasebook is listed in {URI}).",
                words.len()
            )));
        }
        let mut seen: Vec<String> = Vec::with_capacity(words.len());
        let mut resolved = Vec::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            let chars = w.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS {
                return Err(HostError::invalid(format!(
                    "Entry `words[{i}]` of {tool} must be a phrasebook Word name of 1 to {MAX_NAME_CHARS} characters; the names are listed in {URI}."
                )));
            }
            let key = w.to_uppercase();
            if let Some(first) = seen.iter().position(|s| *s == key) {
                return Err(HostError::invalid(format!(
                    "Entry `words[{i}]` of {tool} repeats `{}` from `words[{first}]` (names compare case-insensitively); list each Word of {URI} once.",
                    echo(w)
                )));
            }
            seen.push(key);
            match self.find(w) {
                Some(name) => resolved.push(name.to_string()),
                None => return Err(self.unknown_entry(tool, i, w)),
            }
        }
        Ok(resolved)
    }

    /// The `invalidRequest` for a `words` entry that names no phrasebook Word.
    fn unknown_entry(&self, tool: &str, i: usize, written: &str) -> HostError {
        let shown = echo(written);
        let core = ajisai_core::word::registry();
        let mut message = if core.lookup(&normalize(written.trim())).is_some() {
            format!(
                "Entry `words[{i}]` of {tool} names `{shown}`, a Core Word: Core Words need no `words` entry, only phrasebook Words do"
            )
        } else {
            let mut m = format!(
                "Entry `words[{i}]` of {tool} names `{shown}`, which is not a phrasebook Word"
            );
            let near = closest(written, self.names());
            if !near.is_empty() {
                m.push_str(&format!("; closest: {}", near.join(", ")));
            }
            // What the name means elsewhere (`AVERAGE` is MEAN here), as a program's
            // unknown name is told.
            if let Some(hint) = ajisai_core::word::hint_for_name(written.trim()) {
                m.push_str(&format!("; hint: {hint}"));
            }
            m
        };
        if self.entries().is_empty() {
            message.push_str(&format!("; this server's phrasebook ({URI}) has no Words."));
        } else {
            message.push_str(&format!("; the phrasebook's Words are listed in {URI}."));
        }
        HostError::invalid(message)
    }

    /// The Words defined for a call that requested `names` (canonical): those and their
    /// phrasebook dependencies, in file order (MCP-79).
    pub fn prelude(&self, names: &[String]) -> Vec<Entry> {
        let requested: Vec<&str> = names.iter().map(String::as_str).collect();
        match self.book.closure(&requested) {
            Ok(entries) => entries.into_iter().cloned().collect(),
            // Validation resolved every name, so this cannot happen; define nothing.
            Err(_) => Vec::new(),
        }
    }

    /// Make an `unknownWord` of a source tool say so when a name it could not resolve
    /// is a phrasebook Word the call did not define (MCP-33): `; <NAME> is a phrasebook
    /// Word: pass it in words`.
    pub fn annotate_unknown(&self, error: &mut LangError, prelude: &[Entry]) {
        if error.category != ErrorCategory::UnknownWord {
            return;
        }
        // `compute` names one Word; `check` lists every unresolved one.
        let listed: Vec<String> = match error.message.strip_prefix("Unknown words: ") {
            Some(list) => list
                .split(';')
                .next()
                .unwrap_or("")
                .split(", ")
                .map(str::to_string)
                .collect(),
            None => error.word.iter().cloned().collect(),
        };
        let mut hints: Vec<&str> = Vec::new();
        for written in &listed {
            let Some(name) = self.find(written) else {
                continue;
            };
            if prelude.iter().any(|e| &*e.name == name) || hints.contains(&name) {
                continue;
            }
            hints.push(name);
        }
        if hints.is_empty() {
            return;
        }
        let hint = if hints.len() == 1 {
            format!("; {} is a phrasebook Word: pass it in words", hints[0])
        } else {
            format!(
                "; {} are phrasebook Words: pass them in words",
                hints.join(", ")
            )
        };
        error.message.push_str(&hint);
    }

    /// The sentence `word_contract` adds when a name it does not know is a phrasebook
    /// Word (MCP-72).
    pub fn word_contract_hint(&self, written: &str) -> Option<String> {
        self.find(written.trim()).map(|name| {
            format!(
                "; {name} is a phrasebook Word, not a Core Word: read its definition in {URI} and pass it in words"
            )
        })
    }
}

/// One entry of the `prelude` field (MCP-35): `{ name, digest }` of a defined Word,
/// in definition order.
#[derive(serde::Serialize)]
pub struct PreludeRecord<'a> {
    name: &'a str,
    digest: &'a str,
}

impl<'a> PreludeRecord<'a> {
    /// The record of `entry`.
    pub fn of(entry: &'a Entry) -> PreludeRecord<'a> {
        PreludeRecord {
            name: &entry.name,
            digest: &entry.digest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> ServedPhrasebook {
        crate::backend::link();
        ServedPhrasebook::embedded().expect("the embedded phrasebook loads")
    }

    #[test]
    fn empty_phrasebook_refuses_every_name_but_accepts_none() {
        crate::backend::link();
        let p = ServedPhrasebook::empty();
        assert_eq!(p.resolve("compute", &[]), Ok(vec![]));
        let e = p.resolve("compute", &["double".to_string()]).unwrap_err();
        assert!(e.message.contains("`double`"), "{}", e.message);
        assert!(e.message.contains("has no Words"), "{}", e.message);
        assert_eq!(
            p.description_sentence(),
            "This server's phrasebook has no Words, so leave `words` out."
        );
    }

    #[test]
    fn names_resolve_case_insensitively_with_dependencies_in_file_order() {
        let p = book();
        assert_eq!(
            p.resolve("check", &["stddev".to_string(), "Mean".to_string()]),
            Ok(vec!["STDDEV".to_string(), "MEAN".to_string()])
        );
        let names: Vec<String> = p
            .prelude(&["STDDEV".to_string()])
            .iter()
            .map(|e| e.name.to_string())
            .collect();
        assert_eq!(names, ["MEAN", "VARIANCE", "STDDEV"]);
        assert!(p
            .description_sentence()
            .starts_with("Available: MEAN, MEDIAN,"));
    }

    #[test]
    fn bad_entries_name_the_entry_and_point_to_the_resource() {
        let p = book();
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = p.resolve("compute", &words(&["MEAN", "mean"])).unwrap_err();
        assert_eq!(
            e.message,
            "Entry `words[1]` of compute repeats `mean` from `words[0]` (names compare case-insensitively); list each Word of ajisai://phrasebook once."
        );
        let e = p
            .resolve("compute", &words(&["MEAN", "MEANS"]))
            .unwrap_err();
        assert_eq!(
            e.message,
            "Entry `words[1]` of compute names `MEANS`, which is not a phrasebook Word; closest: MEAN; the phrasebook's Words are listed in ajisai://phrasebook."
        );
        let e = p.resolve("check", &words(&["add"])).unwrap_err();
        assert!(e.message.contains("a Core Word"), "{}", e.message);
        let many: Vec<String> = (0..65).map(|i| format!("W{i}")).collect();
        let e = p.resolve("compute", &many).unwrap_err();
        assert!(e.message.contains("at most 64"), "{}", e.message);
        assert!(e.message.contains(URI), "{}", e.message);
        let e = p.resolve("compute", &words(&[""])).unwrap_err();
        assert!(e.message.contains("`words[0]`"), "{}", e.message);
    }

    #[test]
    fn unknown_names_point_to_the_phrasebook() {
        let p = book();
        let mut e = ajisai_core::outcome::err::unknown_word("mean");
        p.annotate_unknown(&mut e, &[]);
        assert_eq!(
            e.message,
            "Unknown word: mean; MEAN is a phrasebook Word: pass it in words"
        );
        let mut e = LangError::new(ErrorCategory::UnknownWord, "Unknown words: FOO, gcd, lcm");
        e.word = Some("FOO".to_string());
        p.annotate_unknown(&mut e, &[]);
        assert_eq!(
            e.message,
            "Unknown words: FOO, gcd, lcm; GCD, LCM are phrasebook Words: pass them in words"
        );
        let mut e = ajisai_core::outcome::err::unknown_word("FOO");
        p.annotate_unknown(&mut e, &[]);
        assert_eq!(e.message, "Unknown word: FOO");
        assert!(p.word_contract_hint(" gcd ").is_some());
        assert!(p.word_contract_hint("ADD").is_none());
    }

    #[test]
    fn faults_are_one_line_with_the_line_number() {
        crate::backend::link();
        let text = format!(
            "{{ 2 * }} 'DOUBLE' DEF\n#:digest sha256:{}\n",
            "0".repeat(64)
        );
        let f =
            ServedPhrasebook::from_text(&text, Origin::Override("x.ajisai".into())).unwrap_err();
        let d = f.diagnostic();
        assert!(
            d.starts_with("phrasebook: line 2: the #:digest of DOUBLE does not match"),
            "{d}"
        );
        assert!(d.ends_with("(AJISAI_PHRASEBOOK=x.ajisai)"), "{d}");
        let f = ServedPhrasebook::from_file(OsStr::new("/nonexistent/phrases.ajisai")).unwrap_err();
        assert!(f.diagnostic().starts_with(
            "phrasebook: cannot read AJISAI_PHRASEBOOK=/nonexistent/phrases.ajisai: "
        ));
    }

    #[test]
    fn an_override_replaces_the_phrasebook_in_the_asset_digest() {
        crate::backend::link();
        let embedded = book();
        assert_eq!(embedded.asset_digest(), assets::asset_digest());
        let text = "# nothing here\n";
        let o = ServedPhrasebook::from_text(text, Origin::Override("p".into())).expect("loads");
        assert_eq!(
            o.asset_digest(),
            assets::asset_digest_with(&[(ASSET, text.as_bytes())])
        );
        assert_ne!(o.asset_digest(), embedded.asset_digest());
        assert_eq!(o.text(), text);
        assert!(o.entries().is_empty());
    }
}
