//! Embedded assets (MCP-82/83; docs/mcp/resources.md): the canonical Word registry, the vocabulary manifest,
//! the outcome ids, the quickstart, the result schema and the phrasebook, with their
//! recorded digests.
//!
//! Everything the server serves or checks is compiled into the binary, so an installed
//! server needs no files beside it. `assets/assets.sha256` records each asset's SHA-256
//! as the asset generator wrote it (`AJISAI_BLESS=1 cargo test -p ajisai-server --test
//! assets` regenerates the assets and the record); startup calls [`verify`] and refuses
//! to serve from a binary whose assets do not match their record (MCP-4; docs/mcp/index.md).

use std::sync::OnceLock;

/// One embedded asset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asset {
    /// The asset name (`words.json`, …), as digests and records list it.
    pub name: &'static str,
    /// The MIME type it is served with.
    pub mime: &'static str,
    /// The asset's bytes (every asset is UTF-8 text).
    pub bytes: &'static str,
    /// The SHA-256 (lowercase hex) the generator recorded for it; empty when the
    /// record has no line for this name.
    pub recorded_sha256: &'static str,
}

/// The committed record: one `<name> <sha256 hex>` line per asset, sorted by name.
const RECORD: &str = include_str!("../assets/assets.sha256");

/// (name, MIME type, bytes), sorted by name.
const EMBEDDED: [(&str, &str, &str); 6] = [
    (
        "outcomes.json",
        "application/json",
        include_str!("../../spec/outcomes.json"),
    ),
    (
        "phrasebook.ajisai",
        "text/plain",
        include_str!("../../docs/phrasebook/phrasebook.ajisai"),
    ),
    (
        "quickstart.md",
        "text/markdown",
        include_str!("../assets/quickstart.md"),
    ),
    (
        "result.schema.json",
        "application/json",
        include_str!("../assets/result.schema.json"),
    ),
    (
        "vocabulary.json",
        "application/json",
        include_str!("../../spec/vocabulary.json"),
    ),
    (
        "words.json",
        "application/json",
        include_str!("../../spec/words.json"),
    ),
];

/// The digest recorded for `name`, if the record lists it.
fn recorded(name: &str) -> Option<&'static str> {
    RECORD.lines().find_map(|line| {
        let (n, hex) = line.split_once(' ')?;
        (n == name).then_some(hex.trim())
    })
}

/// Every embedded asset, sorted by name.
pub fn all() -> &'static [Asset] {
    static ALL: OnceLock<Vec<Asset>> = OnceLock::new();
    ALL.get_or_init(|| {
        EMBEDDED
            .iter()
            .map(|&(name, mime, bytes)| Asset {
                name,
                mime,
                bytes,
                recorded_sha256: recorded(name).unwrap_or(""),
            })
            .collect()
    })
}

/// The asset called `name`.
pub fn get(name: &str) -> Option<&'static Asset> {
    all().iter().find(|a| a.name == name)
}

/// The asset's bytes (a missing name yields the empty text, which no digest matches).
fn text(name: &str) -> &'static str {
    get(name).map_or("", |a| a.bytes)
}

/// The canonical registry document (`ajisai://contracts`).
pub fn words_json() -> &'static str {
    text("words.json")
}

/// The vocabulary manifest (`ajisai://vocabulary`).
pub fn vocabulary_json() -> &'static str {
    text("vocabulary.json")
}

/// The outcome ids (`spec/outcomes.json`).
pub fn outcomes_json() -> &'static str {
    text("outcomes.json")
}

/// The quickstart (`ajisai://guide/quickstart`): preface and writing protocol.
pub fn quickstart_md() -> &'static str {
    text("quickstart.md")
}

/// The result schema (`ajisai://schema/result`, every tool's `outputSchema`).
pub fn result_schema_json() -> &'static str {
    text("result.schema.json")
}

/// The embedded phrasebook (`ajisai://phrasebook` unless `AJISAI_PHRASEBOOK` overrides it).
pub fn phrasebook_ajisai() -> &'static str {
    text("phrasebook.ajisai")
}

/// SHA-256 of `bytes`, 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let tagged = ajisai_core::identity::digest(bytes);
    tagged
        .strip_prefix("sha256:")
        .unwrap_or(&tagged)
        .to_string()
}

/// What the check of the embedded documents found wrong; its text is one operator-facing
/// line naming every disagreement.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum IntegrityError {
    /// Assets whose digests disagree with the record, or record lines without an asset.
    #[error("{}", .0.join("; "))]
    Digests(Vec<String>),
    /// Words the engine knows that the embedded registry has no entry for.
    #[error("the embedded registry has no entry for {}", .0.join(", "))]
    Unregistered(Vec<&'static str>),
}

/// Recompute every asset's digest and compare it with the record; also require that the
/// record lists exactly the embedded assets.
pub fn verify() -> Result<(), IntegrityError> {
    let mut problems = Vec::new();
    for a in all() {
        let actual = sha256_hex(a.bytes.as_bytes());
        if a.recorded_sha256.is_empty() {
            problems.push(format!("asset {} has no recorded digest", a.name));
        } else if actual != a.recorded_sha256 {
            problems.push(format!(
                "asset {} has digest {actual}, recorded {}",
                a.name, a.recorded_sha256
            ));
        }
    }
    for line in RECORD.lines().filter(|l| !l.trim().is_empty()) {
        let name = line.split_once(' ').map_or(line, |(n, _)| n);
        if get(name).is_none() {
            problems.push(format!(
                "the asset record lists {name}, which is not embedded"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(IntegrityError::Digests(problems))
    }
}

/// The `<name> <sha256 hex>\n` lines of MCP-83 over `assets`, sorted by name.
pub fn digest_lines<'a>(assets: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut lines: Vec<String> = assets
        .into_iter()
        .map(|(name, bytes)| format!("{name} {}\n", sha256_hex(bytes)))
        .collect();
    lines.sort();
    lines.concat()
}

/// `assetDigest` (MCP-83) of the embedded assets.
pub fn asset_digest() -> String {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST.get_or_init(|| asset_digest_with(&[])).clone()
}

/// `assetDigest` with some assets replaced or added, e.g. the `AJISAI_PHRASEBOOK`
/// override as `("phrasebook.ajisai", bytes)` (MCP-80; docs/phrasebook.md): an override whose name is
/// embedded replaces that asset, any other name joins the set.
pub fn asset_digest_with(overrides: &[(&str, &[u8])]) -> String {
    let embedded = all()
        .iter()
        .filter(|a| !overrides.iter().any(|(n, _)| *n == a.name))
        .map(|a| (a.name, a.bytes.as_bytes()));
    let lines = digest_lines(embedded.chain(overrides.iter().copied()));
    sha256_hex(lines.as_bytes())
}

/// `registryDigest` (MCP-83): SHA-256 of the canonical registry document.
pub fn registry_digest() -> String {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST
        .get_or_init(|| sha256_hex(words_json().as_bytes()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_unique() {
        let names: Vec<&str> = all().iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn sha256_of_the_empty_text() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
