//! The documents the server serves and checks, in one place: the canonical registry
//! (`ajisai://contracts`), the vocabulary manifest, the outcomes registry, the
//! quickstart and the result schema, with `assetDigest` and `registryDigest` (MCP-82 (docs/mcp/resources.md),
//! MCP-83).
//!
//! The bytes and digests come from the embedded assets ([`crate::assets`]); this module
//! adds what the server derives from them (the registry indexed by Word name) so the
//! rest of the server asks one place.

use crate::assets;
use ajisai_core::word::registry;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One served document.
#[derive(Debug)]
pub struct Document {
    /// The asset name, e.g. `words.json`.
    pub name: &'static str,
    /// The bytes, as served.
    pub text: &'static str,
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
    entries: BTreeMap<String, Box<RawValue>>,
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    assets::sha256_hex(bytes)
}

/// Check every embedded document against its recorded digest (startup step 1, MCP-4; docs/mcp/index.md),
/// and that the registry serves an entry for every Word the engine knows. The error is
/// one operator-facing line.
pub fn verify() -> Result<(), assets::IntegrityError> {
    assets::verify()?;
    let c = content();
    let missing: Vec<&'static str> = registry()
        .documented()
        .map(|s| s.name)
        .filter(|n| c.entry(n).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(assets::IntegrityError::Unregistered(missing));
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
    pub fn entry(&self, canonical: &str) -> Option<&RawValue> {
        self.entries.get(canonical).map(|e| &**e)
    }
}

fn build() -> Content {
    let registry_doc = Document {
        name: "words.json",
        text: assets::words_json(),
    };
    let (registry_schema_version, entries) = index_registry(registry_doc.text);
    Content {
        registry: registry_doc,
        vocabulary: Document {
            name: "vocabulary.json",
            text: assets::vocabulary_json(),
        },
        outcomes: Document {
            name: "outcomes.json",
            text: assets::outcomes_json(),
        },
        quickstart: Document {
            name: "quickstart.md",
            text: assets::quickstart_md(),
        },
        schema: Document {
            name: "result.schema.json",
            text: assets::result_schema_json(),
        },
        asset_digest: assets::asset_digest(),
        registry_digest: assets::registry_digest(),
        registry_schema_version,
        entries,
    }
}

/// Split the registry document into its entries, re-serialized compactly: for a compact
/// document that is byte-identical (key order is preserved and the escaping rules are
/// the same), so `word_contract` answers the entry verbatim.
fn index_registry(doc: &str) -> (u64, BTreeMap<String, Box<RawValue>>) {
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
                serde_json::value::to_raw_value(e),
            ) {
                entries.insert(name.to_string(), text);
            }
        }
    }
    (version, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_entry_is_served_verbatim() {
        crate::backend::link();
        assert_eq!(verify(), Ok(()));
        let c = content();
        for spec in registry().specs() {
            let entry = c.entry(spec.name).expect("indexed").get();
            assert!(
                c.registry.text.contains(entry),
                "{} is a verbatim slice of the registry",
                spec.name
            );
        }
        assert_eq!(c.registry_digest, sha256_hex(c.registry.text.as_bytes()));
        assert_eq!(c.registry_schema_version, 1);
    }
}
