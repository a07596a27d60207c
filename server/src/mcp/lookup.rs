//! `word_contract` (MCP-71..73): a Word or alias looked up case-insensitively in the
//! canonical registry; a miss is the same `unknownWord` a program would get, with
//! near-miss suggestions.

use super::content::Content;
use super::hosterror::{HostError, HostErrorCode};
use super::phrasebook::Phrasebook;
use super::provenance::Provenance;
use ajisai_core::code::normalize;
use ajisai_core::envelope::{message_line, SCHEMA_VERSION};
use ajisai_core::json::ObjectWriter;
use ajisai_core::suggest::closest;
use ajisai_core::word::registry;
use ajisai_core::SPECIFICATION_VERSION;

/// The canonical name a written name or alias denotes, if any (trimmed, case-insensitive).
pub fn canonical(written: &str) -> Option<&'static str> {
    let reg = registry();
    reg.lookup(&normalize(written.trim()))
        .map(|id| reg.spec(id).name)
}

/// Up to three registry names or aliases closest to `written` (MCP-73).
pub fn suggestions(written: &str) -> Vec<String> {
    let names = registry()
        .specs()
        .iter()
        .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()));
    closest(written, names)
}

/// The `word_contract` envelope for `written`: the registry entry on a hit, the
/// `unknownWord` error with suggestions on a miss; a miss that names a phrasebook Word
/// says so and points to `ajisai://phrasebook` (MCP-72).
pub fn word_contract(
    written: &str,
    content: &Content,
    phrasebook: &Phrasebook,
    provenance: &Provenance,
) -> Result<String, HostError> {
    let name = written.trim();
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    o.int("schemaVersion", SCHEMA_VERSION);
    match canonical(name) {
        Some(word) => {
            let entry = content.entry(word).ok_or_else(|| {
                HostError::new(
                    HostErrorCode::RegistryUnavailable,
                    "The Word registry cannot be served right now.",
                )
                .with_detail(format!("no registry entry for {word}"))
            })?;
            o.str("status", "ok")
                .str("specificationVersion", SPECIFICATION_VERSION)
                .int("registrySchemaVersion", content.registry_schema_version);
            o.with("matches", |out| {
                out.push('[');
                out.push_str(entry);
                out.push(']');
            });
        }
        None => {
            let found = suggestions(name);
            let mut message = format!("Unknown word: {name}");
            if !found.is_empty() {
                message.push_str("; closest: ");
                message.push_str(&found.join(", "));
            }
            if let Some(hint) = phrasebook.word_contract_hint(name) {
                message.push_str(&hint);
            }
            o.str("status", "error")
                .str("specificationVersion", SPECIFICATION_VERSION)
                .str("message", &message_line(&message));
            o.with("error", |out| {
                let mut e = ObjectWriter::new(out);
                e.str("category", "unknownWord").str("word", name);
                e.end();
            });
            if !found.is_empty() {
                o.strs("suggestions", &found);
            }
        }
    }
    provenance.write(&mut o);
    o.end();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_case_insensitively_and_through_aliases() {
        crate::backend::link();
        assert_eq!(canonical("add"), Some("ADD"));
        assert_eq!(canonical(" + "), Some("ADD"));
        assert_eq!(canonical("/"), Some("DIV"));
        assert_eq!(canonical("index-of"), Some("INDEX-OF"));
        assert_eq!(canonical("LENGHT"), None);
        assert_eq!(suggestions("LENGHT"), vec!["LENGTH".to_string()]);
        assert!(suggestions("xyzzyq").is_empty());
    }
}
