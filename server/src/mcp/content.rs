//! The documents the server serves and checks, in one place: the canonical registry
//! (`ajisai://contracts`), the vocabulary manifest, the outcomes registry, the
//! quickstart and the result schema, with `assetDigest` and `registryDigest` (MCP-82,
//! MCP-83).
//!
//! This adapter is the only code that knows where the documents come from. Until the
//! embedded-asset module (`crate::assets`) provides them with recorded digests, they
//! are generated from the engine's registry (with a minimal stand-in schema and
//! quickstart), and verification has nothing to compare against.

use ajisai_core::word::{self, registry};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One served document.
#[derive(Debug)]
pub struct Document {
    /// The asset name, e.g. `words.json`.
    pub name: &'static str,
    /// The bytes, as served.
    pub text: String,
}

/// Every document, their digests, and the registry indexed by canonical name.
#[derive(Debug)]
pub struct Content {
    /// `words.json`: the canonical registry document.
    pub registry: Document,
    /// `vocabulary.json`: the name list.
    pub vocabulary: Document,
    /// `outcomes.json`: NIL reasons, error categories, outcome ids.
    pub outcomes: Document,
    /// `quickstart.md`: the guide.
    pub quickstart: Document,
    /// `result.schema.json`: the envelope schema.
    pub schema: Document,
    /// SHA-256 over the asset list (MCP-83), lowercase hex.
    pub asset_digest: String,
    /// SHA-256 of the registry document, lowercase hex.
    pub registry_digest: String,
    /// The registry's `registrySchemaVersion`.
    pub registry_schema_version: u64,
    /// Each registry entry's compact JSON, by canonical name.
    entries: BTreeMap<String, String>,
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// `assetDigest`: SHA-256 of one `<name> <sha256>\n` line per asset, sorted by name.
pub fn asset_list_digest<'a>(assets: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut lines: Vec<String> = assets
        .into_iter()
        .map(|(name, bytes)| format!("{name} {}\n", sha256_hex(bytes)))
        .collect();
    lines.sort();
    sha256_hex(lines.concat().as_bytes())
}

/// Check every embedded document against its recorded digest (startup step 1, MCP-4).
/// The error is one operator-facing line.
pub fn verify() -> Result<(), String> {
    let c = content();
    if c.entries.len() != registry().specs().len() {
        return Err(format!(
            "embedded assets: the registry document has {} entries, the engine {} Words",
            c.entries.len(),
            registry().specs().len()
        ));
    }
    Ok(())
}

/// The process-wide documents.
pub fn content() -> &'static Content {
    static CONTENT: OnceLock<Content> = OnceLock::new();
    CONTENT.get_or_init(build)
}

impl Content {
    /// The compact JSON of the registry entry of a canonical Word name.
    pub fn entry(&self, canonical: &str) -> Option<&str> {
        self.entries.get(canonical).map(String::as_str)
    }

    /// Every served document, in asset-name order.
    pub fn documents(&self) -> [&Document; 5] {
        [
            &self.outcomes,
            &self.quickstart,
            &self.schema,
            &self.vocabulary,
            &self.registry,
        ]
    }
}

fn build() -> Content {
    let registry_doc = Document {
        name: "words.json",
        text: word::registry_document(),
    };
    let vocabulary = Document {
        name: "vocabulary.json",
        text: vocabulary_document(),
    };
    let outcomes = Document {
        name: "outcomes.json",
        text: ajisai_core::outcome::outcomes_document(),
    };
    let quickstart = Document {
        name: "quickstart.md",
        text: STAND_IN_QUICKSTART.to_string(),
    };
    let schema = Document {
        name: "result.schema.json",
        text: STAND_IN_SCHEMA.to_string(),
    };
    let (registry_schema_version, entries) = index_registry(&registry_doc.text);
    let asset_digest = asset_list_digest(
        [&registry_doc, &vocabulary, &outcomes, &quickstart, &schema]
            .iter()
            .map(|d| (d.name, d.text.as_bytes())),
    );
    let registry_digest = sha256_hex(registry_doc.text.as_bytes());
    Content {
        registry: registry_doc,
        vocabulary,
        outcomes,
        quickstart,
        schema,
        asset_digest,
        registry_digest,
        registry_schema_version,
        entries,
    }
}

/// Split the registry document into its entries (re-serialized compactly, which is
/// byte-identical for a compact document: key order is preserved and the escaping
/// rules are the same).
fn index_registry(doc: &str) -> (u64, BTreeMap<String, String>) {
    let mut entries = BTreeMap::new();
    let Ok(serde_json::Value::Object(root)) = serde_json::from_str::<serde_json::Value>(doc) else {
        return (0, entries);
    };
    let version = root
        .get("registrySchemaVersion")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    if let Some(serde_json::Value::Array(list)) = root.get("entries") {
        for e in list {
            if let (Some(name), Ok(text)) = (
                e.get("name").and_then(serde_json::Value::as_str),
                serde_json::to_string(e),
            ) {
                entries.insert(name.to_string(), text);
            }
        }
    }
    (version, entries)
}

/// The vocabulary manifest (MCP-59): every Word sorted by name, then every symbolic
/// alias sorted by name.
fn vocabulary_document() -> String {
    use ajisai_core::json::ObjectWriter;
    let reg = registry();
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    o.str("specificationVersion", ajisai_core::SPECIFICATION_VERSION);
    o.with("entries", |out| {
        out.push('[');
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push(',');
            }
            first = false;
        };
        for spec in reg.specs() {
            sep(out);
            let mut e = ObjectWriter::new(out);
            e.str("name", spec.name)
                .str("kind", "word")
                .str("family", spec.family.id())
                .str("vocabularyTier", spec.tier.id());
            e.end();
        }
        let mut aliases: Vec<(&str, &str, &str)> = reg
            .specs()
            .iter()
            .flat_map(|s| s.aliases.iter().map(move |a| (*a, s.name, s.family.id())))
            .collect();
        aliases.sort();
        for (alias, canonical, family) in aliases {
            sep(out);
            let mut e = ObjectWriter::new(out);
            e.str("name", alias)
                .str("kind", "alias")
                .str("family", family)
                .str("canonical", canonical);
            e.end();
        }
        out.push(']');
    });
    o.end();
    out
}

/// Stand-in for `result.schema.json` until the generated schema is embedded.
const STAND_IN_SCHEMA: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"ajisai://schema/result","title":"Ajisai result envelope","type":"object","required":["schemaVersion","status","mcp"],"properties":{"schemaVersion":{"const":5},"status":{"enum":["ok","error","hostError"]}}}"#;

/// Stand-in for `quickstart.md` until the generated guide is embedded.
const STAND_IN_QUICKSTART: &str = "# Ajisai quickstart\n\n\
Ajisai is an exact-arithmetic stack language. Programs are postfix text: operands first, \
then the Word (`1 2 ADD`). Call `compute` to run a program, `check` to validate it \
without running, `infer_contracts` to infer the contracts of Words it defines, and \
`word_contract` to look a Word up. Read a result by `status` (`ok`, `error`, \
`hostError`), then `outcome`, then `stack`/`stackDisplay`/`output`.\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_of_an_asset_list_is_order_independent() {
        let a = asset_list_digest([("b", &b"2"[..]), ("a", &b"1"[..])]);
        let b = asset_list_digest([("a", &b"1"[..]), ("b", &b"2"[..])]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
