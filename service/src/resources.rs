//! Resources (MCP-57..65; docs/mcp/resources.md): the guide, the vocabulary, the registry, the result schema,
//! the limits and the phrasebook, plus the `ajisai://words/{name}` template.

use crate::config::ServerOptions;
use ajisai_core::{Limit, Profile};

/// `ajisai://guide/quickstart`.
pub const QUICKSTART: &str = "ajisai://guide/quickstart";
/// `ajisai://vocabulary`.
pub const VOCABULARY: &str = "ajisai://vocabulary";
/// `ajisai://contracts`.
pub const CONTRACTS: &str = "ajisai://contracts";
/// `ajisai://schema/result`.
pub const SCHEMA: &str = "ajisai://schema/result";
/// `ajisai://limits`.
pub const LIMITS: &str = "ajisai://limits";
/// `ajisai://phrasebook`.
pub const PHRASEBOOK: &str = ajisai_host::phrasebook::URI;
/// The Word template's prefix.
pub const WORDS_PREFIX: &str = "ajisai://words/";
/// The Word template.
pub const WORDS_TEMPLATE: &str = "ajisai://words/{name}";

/// One listed resource.
#[derive(Clone, Copy, Debug)]
pub struct Listed {
    /// The URI.
    pub uri: &'static str,
    /// The short name.
    pub name: &'static str,
    /// The title.
    pub title: &'static str,
    /// What it holds and when to read it.
    pub description: &'static str,
    /// The MIME type.
    pub mime: &'static str,
}

/// The resources, in `resources/list` order.
pub const LISTED: [Listed; 6] = [
    Listed {
        uri: QUICKSTART,
        name: "quickstart",
        title: "Ajisai quickstart",
        description: "Read first: which tool to call for what, how to read a result, NIL, exact square roots, limits, traps, then the syntax and every Word in one line each.",
        mime: "text/markdown",
    },
    Listed {
        uri: VOCABULARY,
        name: "vocabulary",
        title: "Ajisai vocabulary",
        description: "Every Word and symbolic alias with its family and tier; a list only (word_contract or ajisai://contracts give contracts).",
        mime: "application/json",
    },
    Listed {
        uri: CONTRACTS,
        name: "contracts",
        title: "Ajisai Word contracts",
        description: "The complete canonical Word registry: arity, consumption, NIL policy, purity, documentation and examples of every Word.",
        mime: "application/json",
    },
    Listed {
        uri: SCHEMA,
        name: "result-schema",
        title: "Ajisai result schema",
        description: "The JSON Schema of every tool result (the tools' outputSchema).",
        mime: "application/json",
    },
    Listed {
        uri: LIMITS,
        name: "limits",
        title: "Ajisai limits",
        description: "The limits of the mcp-local-stdio profile this server enforces, their units, queue wait and stack budgets, and the cli-local profile for comparison.",
        mime: "application/json",
    },
    Listed {
        uri: PHRASEBOOK,
        name: "phrasebook",
        title: "Ajisai phrasebook",
        description: "The phrasebook file: curated User Words, each with its contract, examples, DEF line and digest. Request Words by name in the `words` argument of compute, check or infer_contracts.",
        mime: "text/plain",
    },
];

/// The resource template (`resources/templates/list`): one Word's contract by name.
pub const WORDS: Listed = Listed {
    uri: WORDS_TEMPLATE,
    name: "word",
    title: "Ajisai Word contract",
    description: "The registry entry of one Word or alias, matched case-insensitively: the same text word_contract returns (an unknownWord answer with suggestions on a miss). Percent-encode symbols other than +, e.g. %2F for /.",
    mime: "application/json",
};

/// Why a resource cannot be read (MCP-65; docs/mcp/resources.md).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A Word resource whose name does not decode (`invalidRequest`).
    #[error("invalidRequest: {0}")]
    InvalidName(String),
    /// No resource has this URI (as quoted for the message).
    #[error("Resource not found: {0}")]
    NotFound(String),
}

/// The limits document (MCP-62), built from the values the server enforces.
pub fn limits_document(options: &ServerOptions) -> String {
    let p = &options.profile;
    let enforced = |limit: Limit| match limit {
        Limit::WallTimeMs => options.wall_time_ms(),
        Limit::ResponseBytes => options.response_bytes(),
        Limit::ConcurrentExecutions => options.slots(),
        Limit::MemoryBytes => options.memory_bytes(),
        other => p.get(other).unwrap_or(0),
    };
    let document = LimitsDocument {
        schema_version: 1,
        profile: p.name,
        limits: Ordered(
            Limit::ALL
                .iter()
                .map(|&l| (l.name(), enforced(l)))
                .collect(),
        ),
        units: Ordered(Limit::ALL.iter().map(|&l| (l.name(), l.unit())).collect()),
        capacity_wait_ms: options.capacity_wait_ms,
        max_waiting: options.max_waiting(),
        message_bytes: crate::config::MAX_MESSAGE_BYTES as u64,
        stack_budgets: StackBudgets {
            value_stack_bytes: options.value_stack_bytes,
            error_stack_bytes: options.error_stack_bytes,
        },
        other_profiles: Ordered(
            [Profile::CLI_LOCAL, Profile::PLAYGROUND]
                .iter()
                .map(|other| {
                    let values = Limit::ALL
                        .iter()
                        .filter_map(|&l| other.get(l).map(|v| (l.name(), v)))
                        .collect();
                    (other.name, Ordered(values))
                })
                .collect(),
        ),
    };
    serde_json::to_string(&document).expect("a document of names and numbers")
}

/// The shape of the limits document, in its key order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LimitsDocument {
    schema_version: u64,
    profile: &'static str,
    limits: Ordered<u64>,
    units: Ordered<&'static str>,
    capacity_wait_ms: u64,
    max_waiting: u64,
    message_bytes: u64,
    stack_budgets: StackBudgets,
    other_profiles: Ordered<Ordered<u64>>,
}

/// `stackBudgets` of the limits document.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StackBudgets {
    value_stack_bytes: u64,
    error_stack_bytes: u64,
}

/// An object whose keys keep the order given (serde_json's own map sorts them, and
/// the document lists limits in `Limit::ALL` order).
struct Ordered<V>(Vec<(&'static str, V)>);

impl<V: serde::Serialize> serde::Serialize for Ordered<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Why a Word URI's `{name}` does not decode; its text is the reason of the
/// `invalidRequest`.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// A `%` not followed by two hexadecimal digits, at this byte (counted from 1).
    #[error("invalid percent-encoding at byte {0} of the Word name")]
    BadEscape(usize),
    /// The decoded bytes are not UTF-8.
    #[error("the percent-decoded Word name is not valid UTF-8")]
    NotUtf8,
    /// The decoded name is empty or white space.
    #[error("the Word name is blank")]
    Blank,
}

/// Decode the `{name}` of a Word URI (MCP-64): `%XX` escapes as UTF-8 bytes, `+` stays
/// `+`. Written here rather than with `percent-encoding`, whose decoder passes a
/// malformed escape through unchanged where MCP-64 refuses it.
pub fn decode_name(encoded: &str) -> Result<String, NameError> {
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| (b as char).to_digit(16);
            match (bytes.get(i + 1).copied(), bytes.get(i + 2).copied()) {
                (Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                    let v = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                    out.push(v as u8);
                    i += 3;
                }
                _ => return Err(NameError::BadEscape(i + 1)),
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let name = String::from_utf8(out).map_err(|_| NameError::NotUtf8)?;
    if name.trim().is_empty() {
        return Err(NameError::Blank);
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document keeps its key order: the top-level fields as MCP-62 lists them,
    /// and the limits, units and other profile in `Limit::ALL` order.
    #[test]
    fn the_limits_document_keeps_its_key_order() {
        let o = crate::config::ServerOptions::serving(crate::config::Transport::Stdio, 3);
        let doc = limits_document(&o);
        let position = |needle: &str| {
            doc.find(needle)
                .unwrap_or_else(|| panic!("{needle} in {doc}"))
        };
        let top = [
            "\"schemaVersion\":1,\"profile\":",
            "\"limits\":{",
            "\"units\":{",
            "\"capacityWaitMs\":",
            "\"maxWaiting\":",
            "\"messageBytes\":",
            "\"stackBudgets\":{\"valueStackBytes\":",
            "\"otherProfiles\":{\"cli-local\":{",
        ];
        let at: Vec<usize> = top.iter().map(|k| position(k)).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{doc}");
        let limits = &doc[at[1]..at[2]];
        let keys: Vec<usize> = Limit::ALL
            .iter()
            .map(|l| {
                limits
                    .find(&format!("\"{}\":", l.name()))
                    .expect("every limit is listed")
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{limits}");
        let parsed: serde_json::Value = serde_json::from_str(&doc).expect("valid JSON");
        assert_eq!(parsed["limits"]["memoryBytes"], 64 * 1024 * 1024);
    }

    #[test]
    fn names_decode() {
        assert_eq!(decode_name("+").as_deref(), Ok("+"));
        assert_eq!(decode_name("%2B").as_deref(), Ok("+"));
        assert_eq!(decode_name("%2f").as_deref(), Ok("/"));
        assert_eq!(decode_name("index-of").as_deref(), Ok("index-of"));
        assert_eq!(decode_name("%E3%81%82").as_deref(), Ok("あ"));
        assert_eq!(decode_name("%2"), Err(NameError::BadEscape(1)));
        assert_eq!(decode_name("ab%zz"), Err(NameError::BadEscape(3)));
        assert_eq!(decode_name("%FF"), Err(NameError::NotUtf8));
        assert_eq!(decode_name("%20"), Err(NameError::Blank));
        assert!(decode_name("").is_err());
    }

    #[test]
    fn limits_document_lists_thirteen_limits_and_cli_local() {
        let doc: serde_json::Value =
            serde_json::from_str(&limits_document(&ServerOptions::production())).unwrap();
        assert_eq!(doc["profile"], "mcp-local-stdio");
        assert_eq!(doc["limits"].as_object().unwrap().len(), 13);
        assert_eq!(doc["limits"]["wallTimeMs"], 5000);
        assert_eq!(doc["limits"]["memoryBytes"], 64 * 1024 * 1024);
        assert_eq!(
            doc["otherProfiles"]["cli-local"]["memoryBytes"],
            1024 * 1024 * 1024
        );
        assert_eq!(doc["limits"]["nestingDepth"], 32);
        assert_eq!(doc["capacityWaitMs"], 1000);
        assert_eq!(doc["stackBudgets"]["valueStackBytes"], 450_560);
        assert_eq!(
            doc["otherProfiles"]["cli-local"]["executionSteps"],
            12_000_000
        );
        assert!(doc["otherProfiles"]["cli-local"]
            .get("wallTimeMs")
            .is_none());
        let playground = &doc["otherProfiles"]["playground"];
        assert_eq!(playground["executionSteps"], 12_000_000);
        assert_eq!(playground["wallTimeMs"], 10_000);
        assert_eq!(playground["responseBytes"], 4 * 1024 * 1024);
        assert_eq!(playground["memoryBytes"], 256 * 1024 * 1024);
    }
}
