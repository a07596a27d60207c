//! `word_contract` (MCP-18; docs/mcp/tools.md): look a Word up in the registry or the
//! phrasebook, answered at once without running anything.

use super::{argument_description, object, type_name, Arguments, JsonObject, ToolSpec};
use ajisai_host::hosterror::HostError;
use ajisai_host::phrasebook::ServedPhrasebook;
use crate::result::Delivery;
use crate::result::ToolAnswer;
use crate::AjisaiServer;
use serde_json::{json, Map, Value};

/// The longest `word` argument, in characters (MCP-18; docs/mcp/tools.md).
pub const MAX_WORD_CHARS: usize = 64;

/// The tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "word_contract",
    title: "Look up an Ajisai Word",
    description: include_str!("word_contract.md"),
    arguments: &["word"],
    answer: super::Answer::Immediate {
        schema,
        validate,
        answer,
    },
};

fn schema(phrasebook: &ServedPhrasebook) -> JsonObject {
    object(json!({
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
    }))
}

/// MCP-19's steps 4, 5 and 8 for `word` (docs/mcp/host-errors.md): present, a string,
/// neither blank nor longer than the schema allows. `word` as given (the lookup trims
/// it).
fn validate(args: &Map<String, Value>) -> Result<Arguments, HostError> {
    let word = args
        .get("word")
        .ok_or_else(|| super::missing(SPEC.name, "word"))?;
    let Value::String(word) = word else {
        return Err(HostError::invalid(format!(
            "Argument `word` of word_contract must be a string, not {}.",
            type_name(word)
        )));
    };
    if word.trim().is_empty() {
        return Err(HostError::invalid(
            "Argument `word` of word_contract is blank; pass a Word name such as `LENGTH`.",
        ));
    }
    if word.chars().count() > MAX_WORD_CHARS {
        return Err(HostError::invalid(format!(
            "Argument `word` of word_contract is longer than {MAX_WORD_CHARS} characters; no Word name is that long."
        )));
    }
    Ok(Arguments::from_iter([("word".to_string(), Value::String(word.clone()))]))
}

/// The contract of the Word the validated `word` names, in `delivery`'s frame.
pub fn answer(server: &AjisaiServer, arguments: &Arguments, delivery: Delivery) -> ToolAnswer {
    // `validate` accepted only a string.
    let written = arguments.get("word").and_then(Value::as_str).unwrap_or_default();
    contract(server, written, delivery)
}

/// The contract of the Word `written` names (also the text of `ajisai://words/{name}`),
/// in `delivery`'s frame.
pub fn contract(server: &AjisaiServer, written: &str, delivery: Delivery) -> ToolAnswer {
    let exec = server.executor();
    match ajisai_host::lookup::word_contract(
        written,
        server.content(),
        server.phrasebook(),
        &exec.provenance,
    ) {
        Ok(json) => match exec.fit_plain(json, delivery) {
            Ok(r) => r,
            Err(e) => exec.host_error(SPEC.name, &e),
        },
        Err(e) => exec.host_error(SPEC.name, &e),
    }
}
