//! Server-side validation of `tools/call` (MCP-19; docs/mcp/host-errors.md), on the raw JSON arguments.
//!
//! Checks run in the order MCP-19 lists them and the first failure answers; every
//! failure is a host error (`invalidRequest`, `unknownTool` or `sourceTooLarge`),
//! delivered as a tool result, never as a JSON-RPC error.

use crate::exec::SourceTool;
pub use crate::tools::ToolKind;
use crate::tools::{missing, type_name, Answer, Arguments, ImmediateTool};
use ajisai_host::hosterror::{HostError, HostErrorCode};
use ajisai_host::phrasebook::ServedPhrasebook;
use ajisai_host::quote::echo;
use serde_json::Value;

/// A validated call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// `compute`, `check` or `infer_contracts`.
    Source {
        /// Which of the three.
        tool: SourceTool,
        /// The program text.
        source: String,
        /// The requested phrasebook Words, canonical spelling, as requested.
        words: Vec<String>,
    },
    /// A tool answered at once (`word_contract`), with its validated arguments.
    Immediate {
        /// Which tool.
        tool: ImmediateTool,
        /// Its arguments as its validation accepted them (`word_contract`: `word`, the
        /// name as given).
        arguments: Arguments,
    },
}

/// The `unknownTool` answer for `name`.
pub fn unknown_tool(name: &str) -> HostError {
    let names: Vec<&str> = ToolKind::all().map(ToolKind::name).collect();
    HostError::new(
        HostErrorCode::UnknownTool,
        format!(
            "Unknown tool `{}`; available tools: {}.",
            echo(name),
            names.join(", ")
        ),
    )
}

/// The `invalidRequest` answer for `arguments` that are present but not an object.
pub fn not_an_object(tool: ToolKind, arguments: &Value) -> HostError {
    HostError::invalid(format!(
        "The arguments of {} must be a JSON object, not {}.",
        tool.name(),
        type_name(arguments)
    ))
}

/// Validate a call of tool `name` with `arguments` (`None` when absent), in MCP-19's
/// order. `source_bytes` is the `sourceBytes` limit.
pub fn validate(
    name: &str,
    arguments: Option<&Value>,
    source_bytes: u64,
    phrasebook: &ServedPhrasebook,
) -> Result<Call, HostError> {
    // 1. Unknown tool.
    let tool = ToolKind::from_name(name).ok_or_else(|| unknown_tool(name))?;
    validate_tool(tool, arguments, source_bytes, phrasebook)
}

/// [`validate`]'s steps 2 onwards, for a known tool.
pub fn validate_tool(
    tool: ToolKind,
    arguments: Option<&Value>,
    source_bytes: u64,
    phrasebook: &ServedPhrasebook,
) -> Result<Call, HostError> {
    // 2. Arguments present but not an object; absent means `{}`.
    let empty = serde_json::Map::new();
    let args = match arguments {
        None => &empty,
        Some(Value::Object(m)) => m,
        Some(other) => return Err(not_an_object(tool, other)),
    };
    // 3. Undeclared arguments, every one of them, in lexicographic order.
    let mut undeclared: Vec<&str> = args
        .keys()
        .map(String::as_str)
        .filter(|k| !tool.accepted().contains(k))
        .collect();
    if !undeclared.is_empty() {
        undeclared.sort_unstable();
        let quoted: Vec<String> = undeclared
            .iter()
            .map(|k| format!("`{}`", echo(k)))
            .collect();
        let noun = if undeclared.len() == 1 {
            "argument"
        } else {
            "arguments"
        };
        return Err(HostError::invalid(format!(
            "Unknown {noun} {} for {}; accepted: {}.",
            quoted.join(", "),
            tool.name(),
            tool.accepted().join(", ")
        )));
    }
    match tool.spec().answer {
        Answer::Immediate {
            validate, answer, ..
        } => validate(args).map(|arguments| Call::Immediate {
            tool: ImmediateTool {
                name: tool.name(),
                answer,
            },
            arguments,
        }),
        Answer::Source(run) => validate_source(
            SourceTool {
                name: tool.name(),
                run,
            },
            args,
            source_bytes,
            phrasebook,
        ),
    }
}

fn validate_source(
    tool: SourceTool,
    args: &serde_json::Map<String, Value>,
    source_bytes: u64,
    phrasebook: &ServedPhrasebook,
) -> Result<Call, HostError> {
    // 4. Missing required argument.
    let source = args
        .get("source")
        .ok_or_else(|| missing(tool.name, "source"))?;
    // 5. Wrong JSON types.
    let Value::String(source) = source else {
        return Err(HostError::invalid(format!(
            "Argument `source` of {} must be a string, not {}.",
            tool.name,
            type_name(source)
        )));
    };
    let mut words = Vec::new();
    if let Some(w) = args.get("words") {
        let Value::Array(items) = w else {
            return Err(HostError::invalid(format!(
                "Argument `words` of {} must be an array of strings, not {}.",
                tool.name,
                type_name(w)
            )));
        };
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => words.push(s.clone()),
                other => {
                    return Err(HostError::invalid(format!(
                        "Entry `words[{i}]` of {} must be a string, not {}.",
                        tool.name,
                        type_name(other)
                    )))
                }
            }
        }
    }
    // 6. Empty or oversized source. Characters never outnumber UTF-8 bytes, so the
    // byte count decides both bounds.
    if source.is_empty() {
        return Err(HostError::invalid(format!(
            "Argument `source` of {} is empty; pass Ajisai source text.",
            tool.name
        )));
    }
    if source.len() as u64 > source_bytes {
        return Err(HostError::source_too_large(source_bytes));
    }
    // 7. `words` entries.
    let words = phrasebook.resolve(tool.name, &words)?;
    Ok(Call::Source {
        tool,
        source: source.clone(),
        words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(name: &str, args: Value) -> Result<Call, HostError> {
        validate(name, Some(&args), 65_536, &ServedPhrasebook::empty())
    }

    fn msg(r: Result<Call, HostError>) -> (HostErrorCode, String) {
        let e = r.unwrap_err();
        (e.code, e.message)
    }

    #[test]
    fn order_of_checks() {
        assert_eq!(
            msg(v("nope", json!(3))),
            (
                HostErrorCode::UnknownTool,
                "Unknown tool `nope`; available tools: compute, check, infer_contracts, word_contract.".into()
            )
        );
        assert_eq!(
            msg(v("compute", json!("x"))).1,
            "The arguments of compute must be a JSON object, not a string."
        );
        assert_eq!(
            msg(v("compute", json!({"extra": 1, "source": 3}))).1,
            "Unknown argument `extra` for compute; accepted: source, words."
        );
        assert_eq!(
            msg(v("compute", json!({"zeta": 1, "alpha": 2}))).1,
            "Unknown arguments `alpha`, `zeta` for compute; accepted: source, words."
        );
        assert_eq!(
            msg(v("check", json!({}))).1,
            "Missing required argument `source` for check."
        );
        assert_eq!(
            msg(validate(
                "compute",
                None,
                65_536,
                &ServedPhrasebook::empty()
            ))
            .1,
            "Missing required argument `source` for compute."
        );
        assert_eq!(
            msg(v("compute", json!({"source": 1}))).1,
            "Argument `source` of compute must be a string, not a number."
        );
        assert_eq!(
            msg(v("compute", json!({"source": "1", "words": ["a", "b", 3]}))).1,
            "Entry `words[2]` of compute must be a string, not a number."
        );
        assert_eq!(
            msg(v("compute", json!({"source": "", "words": 3}))).1,
            "Argument `words` of compute must be an array of strings, not a number."
        );
        assert_eq!(
            msg(v("compute", json!({"source": ""}))).0,
            HostErrorCode::InvalidRequest
        );
        assert_eq!(
            msg(v("word_contract", json!({"word": "  "}))).0,
            HostErrorCode::InvalidRequest
        );
        assert_eq!(
            msg(v("word_contract", json!({"word": "X".repeat(65)}))).0,
            HostErrorCode::InvalidRequest
        );
    }

    #[test]
    fn source_size_counts_bytes() {
        let ok = " ".repeat(65_536);
        assert!(v("compute", json!({ "source": ok })).is_ok());
        let over = " ".repeat(65_537);
        assert_eq!(
            msg(v("compute", json!({ "source": over }))).0,
            HostErrorCode::SourceTooLarge
        );
        // 21,846 three-byte characters are 65,538 bytes.
        let wide = "あ".repeat(21_846);
        assert_eq!(
            msg(v("infer_contracts", json!({ "source": wide }))).0,
            HostErrorCode::SourceTooLarge
        );
        // Oversized source with a bad `words` entry: the size is checked first.
        let over = " ".repeat(65_537);
        assert_eq!(
            msg(v("compute", json!({ "source": over, "words": ["x"] }))).0,
            HostErrorCode::SourceTooLarge
        );
    }

    #[test]
    fn valid_calls() {
        assert_eq!(
            v("compute", json!({"source": "1 2 ADD", "words": []})),
            Ok(Call::Source {
                tool: ToolKind::COMPUTE.source_tool().expect("a source tool"),
                source: "1 2 ADD".into(),
                words: vec![]
            })
        );
        assert_eq!(
            v("word_contract", json!({"word": " add "})),
            Ok(Call::Immediate {
                tool: ImmediateTool {
                    name: "word_contract",
                    answer: crate::tools::word_contract::answer
                },
                arguments: serde_json::Map::from_iter([("word".to_string(), json!(" add "))])
            })
        );
    }
}
