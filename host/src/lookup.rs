//! `word_contract` (MCP-71..73; docs/mcp/tools.md): a Word or alias looked up case-insensitively in the
//! canonical registry; a miss is the same `unknownWord` a program would get, with
//! near-miss suggestions.

use super::content::Content;
use super::hosterror::{HostError, HostErrorCode};
use super::phrasebook::ServedPhrasebook;
use super::provenance::Provenance;
use ajisai_core::code::normalize;
use ajisai_core::envelope::{message_line, SCHEMA_VERSION};
use ajisai_core::json::with_members;
use ajisai_core::suggest::closest;
use ajisai_core::word::registry;
use ajisai_core::SPECIFICATION_VERSION;
use serde_json::value::RawValue;

/// A Word's contract as people read it (`ajisai doc`, the Playground's dictionary):
/// `inputs 2, outputs 1, field closed, NIL consumeNil`.
pub fn contract_line(spec: &ajisai_core::word::WordSpec) -> String {
    use ajisai_core::word::Arity;
    let arity = |a: Arity| match a {
        Arity::Fixed(n) => n.to_string(),
        Arity::Variable => "variable".to_string(),
        Arity::Control => "control".to_string(),
    };
    format!(
        "inputs {}, outputs {}, field {}, NIL {}",
        arity(spec.inputs),
        arity(spec.outputs),
        spec.field.id(),
        spec.nil_policy.id()
    )
}

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

/// The message of a miss on `name` (MCP-72): `Unknown word: <name>`, the near misses
/// `found`, then `extra` (the phrasebook's note on one of its Words) and the
/// vocabulary's hint for the name. `ajisai doc` says the same.
pub fn miss_message(name: &str, found: &[String], extra: Option<String>) -> String {
    let mut message = format!("Unknown word: {name}");
    if !found.is_empty() {
        message.push_str("; closest: ");
        message.push_str(&found.join(", "));
    }
    if let Some(extra) = extra {
        message.push_str(&extra);
    }
    ajisai_core::suggest::append_hint(&mut message, ajisai_core::word::hint_for_name(name));
    message
}

/// The `word_contract` envelope for `written`: the registry entry on a hit, the
/// `unknownWord` error with suggestions on a miss; a miss that names a phrasebook Word
/// says so and points to `ajisai://phrasebook` (MCP-72).
pub fn word_contract(
    written: &str,
    content: &Content,
    phrasebook: &ServedPhrasebook,
    provenance: &Provenance,
) -> Result<String, HostError> {
    /// The envelope (MCP-71/72), in its key order; the host's `mcp` block follows.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Envelope<'a> {
        schema_version: u64,
        status: &'static str,
        specification_version: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        registry_schema_version: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        matches: Option<[&'a RawValue; 1]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<UnknownWord<'a>>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        suggestions: &'a [String],
    }
    #[derive(serde::Serialize)]
    struct UnknownWord<'a> {
        category: &'static str,
        word: &'a str,
    }
    let name = written.trim();
    let found;
    let envelope = match canonical(name) {
        Some(word) => {
            let entry = content.entry(word).ok_or_else(|| {
                HostError::new(
                    HostErrorCode::RegistryUnavailable,
                    "The Word registry cannot be served right now.",
                )
                .with_detail(format!("no registry entry for {word}"))
            })?;
            Envelope {
                schema_version: SCHEMA_VERSION,
                status: "ok",
                specification_version: SPECIFICATION_VERSION,
                registry_schema_version: Some(content.registry_schema_version),
                matches: Some([entry]),
                message: None,
                error: None,
                suggestions: &[],
            }
        }
        None => {
            found = suggestions(name);
            let message = miss_message(name, &found, phrasebook.word_contract_hint(name));
            Envelope {
                schema_version: SCHEMA_VERSION,
                status: "error",
                specification_version: SPECIFICATION_VERSION,
                registry_schema_version: None,
                matches: None,
                message: Some(message_line(&message)),
                error: Some(UnknownWord {
                    category: "unknownWord",
                    word: name,
                }),
                suggestions: &found,
            }
        }
    };
    Ok(with_members(
        serde_json::to_string(&envelope).expect("a flat envelope serializes"),
        provenance.host_fields(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A miss on a name users of other languages reach for carries the vocabulary's
    /// hint after the suggestions; a hit or a plain misspelling carries none.
    #[test]
    fn misses_carry_the_hint_for_the_name() {
        crate::backend::link();
        let provenance = Provenance::new(
            "ab",
            "mcp-local-stdio",
            &ajisai_core::numerics::BackendProvenance {
                kind: "pure",
                library: "num-bigint 0.4".into(),
                origin: "builtin",
            },
        );
        let book = ServedPhrasebook::embedded().expect("the embedded phrasebook loads");
        let answer = |name: &str| -> serde_json::Value {
            let json = word_contract(name, crate::content::content(), &book, &provenance)
                .expect("an envelope");
            serde_json::from_str(&json).expect("JSON")
        };
        let dup = answer("dup");
        let message = dup["message"].as_str().expect("a message");
        assert!(message.starts_with("Unknown word: dup"), "{message}");
        assert!(
            message.ends_with(&format!(
                "; hint: {}",
                ajisai_core::word::hint_for_name("DUP").expect("DUP has a hint")
            )),
            "{message}"
        );
        assert_eq!(dup["error"]["word"], "dup");
        assert!(!answer("LENGHT")["message"]
            .as_str()
            .unwrap()
            .contains("hint"));
        assert!(answer("POW").get("message").is_none());
    }

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
