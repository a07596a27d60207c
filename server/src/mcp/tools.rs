//! The four tools (MCP-16..24): names, titles, annotations, input schemas, the shared
//! output schema, and the descriptions a model reads before deciding to call one.
//!
//! The description texts live in `server/src/tools/*.md`; `compute`'s Word families
//! and the `words` argument's phrasebook sentence are generated at startup from the
//! registry and the effective phrasebook, so they cannot drift from what runs.

use super::phrasebook::{Phrasebook, MAX_NAME_CHARS, MAX_WORDS};
use super::validate::{ToolKind, MAX_WORD_CHARS};
use ajisai_core::word::{registry, Family};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};
use std::sync::Arc;

const COMPUTE: &str = include_str!("../tools/compute.md");
const CHECK: &str = include_str!("../tools/check.md");
const INFER_CONTRACTS: &str = include_str!("../tools/infer_contracts.md");
const WORD_CONTRACT: &str = include_str!("../tools/word_contract.md");
const SOURCE: &str = include_str!("../tools/source.md");
const WORDS: &str = include_str!("../tools/words.md");
const WORD: &str = include_str!("../tools/word.md");

/// `compute`'s description may not exceed this many characters (MCP-24).
pub const COMPUTE_DESCRIPTION_MAX: usize = 2_400;

/// Every other tool's description, and every argument's, may not exceed this (MCP-24).
pub const OTHER_DESCRIPTION_MAX: usize = 800;

/// The tool's title (MCP-21).
pub fn title(tool: ToolKind) -> &'static str {
    match tool {
        ToolKind::Compute => "Run an Ajisai program",
        ToolKind::Check => "Check an Ajisai program",
        ToolKind::InferContracts => "Infer Ajisai Word contracts",
        ToolKind::WordContract => "Look up an Ajisai Word",
    }
}

/// The Word families, each followed by its Words, and the symbolic aliases, from the
/// registry: one paragraph of `compute`'s description.
pub fn families_paragraph() -> String {
    let reg = registry();
    let mut parts = Vec::new();
    for family in Family::ALL {
        let names: Vec<&str> = reg
            .specs()
            .iter()
            .filter(|s| s.family == family)
            .map(|s| s.name)
            .collect();
        if !names.is_empty() {
            parts.push(format!("{}: {}", family.id(), names.join(" ")));
        }
    }
    let mut aliases: Vec<(&str, &str)> = reg
        .specs()
        .iter()
        .flat_map(|s| s.aliases.iter().map(move |a| (*a, s.name)))
        .collect();
    aliases.sort_by_key(|(a, _)| ajisai_core::code::ALIASES.iter().position(|(x, _)| x == a));
    let symbols: Vec<&str> = aliases.iter().map(|(a, _)| *a).collect();
    let words: Vec<&str> = aliases.iter().map(|(_, w)| *w).collect();
    format!(
        "Word families and their Words. {}.\nSymbolic aliases {} stand for {}.",
        parts.join("; "),
        symbols.join(" "),
        words.join(" ")
    )
}

/// The description of a tool.
pub fn description(tool: ToolKind) -> String {
    match tool {
        ToolKind::Compute => COMPUTE
            .trim_end()
            .replace("{families}", &families_paragraph()),
        ToolKind::Check => CHECK.trim_end().to_string(),
        ToolKind::InferContracts => INFER_CONTRACTS.trim_end().to_string(),
        ToolKind::WordContract => WORD_CONTRACT.trim_end().to_string(),
    }
}

/// The description of an argument (`source`, `words` or `word`).
pub fn argument_description(argument: &str, phrasebook: &Phrasebook) -> String {
    match argument {
        "source" => SOURCE.trim_end().to_string(),
        "words" => WORDS
            .trim_end()
            .replace("{phrasebook}", &phrasebook.description_sentence()),
        _ => WORD.trim_end().to_string(),
    }
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// The input schema of a tool, exactly as MCP-17/18 state it.
pub fn input_schema(tool: ToolKind, source_bytes: u64, phrasebook: &Phrasebook) -> JsonObject {
    match tool {
        ToolKind::WordContract => object(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "word": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_WORD_CHARS,
                    "description": argument_description("word", phrasebook)
                }
            },
            "required": ["word"]
        })),
        _ => object(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "source": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": source_bytes,
                    "description": argument_description("source", phrasebook)
                },
                "words": {
                    "type": "array",
                    "items": { "type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS },
                    "uniqueItems": true,
                    "maxItems": MAX_WORDS,
                    "description": argument_description("words", phrasebook)
                }
            },
            "required": ["source"]
        })),
    }
}

/// The four tools, in order, each with `output_schema` as its output schema.
pub fn tools(
    output_schema: &Arc<JsonObject>,
    source_bytes: u64,
    phrasebook: &Phrasebook,
) -> Vec<Tool> {
    ToolKind::ALL
        .into_iter()
        .map(|kind| {
            let annotations = ToolAnnotations::with_title(title(kind))
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false);
            Tool::new(
                kind.name(),
                description(kind),
                input_schema(kind, source_bytes, phrasebook),
            )
            .with_title(title(kind))
            .with_raw_output_schema(Arc::clone(output_schema))
            .with_annotations(annotations)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_come_from_the_registry() {
        crate::backend::link();
        let p = families_paragraph();
        assert!(p.contains("exactArithmetic: ABS ADD"), "{p}");
        assert!(p.contains("Symbolic aliases + - * / = != < <= > >= % ^ stand for ADD SUB MUL DIV EQ NEQ LT LTE GT GTE MOD VENT."), "{p}");
    }
}
