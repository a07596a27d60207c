//! The tools (MCP-16..24; docs/mcp/tools.md), one file each in this folder: its
//! [`ToolSpec`] (name, title, description, accepted arguments, how it is answered) and its
//! own code. Adding a tool means adding its file and its name to the `tools!` list below;
//! listing, validation, dispatch and metrics labels follow from the spec.
//!
//! The description texts live in `tools/*.md` beside this file; `compute`'s Word families
//! and the `words` argument's phrasebook sentence are generated at startup from the
//! registry and the effective phrasebook, so they cannot drift from what runs.

use crate::exec::{Runner, SourceTool};
use crate::result::Delivery;
use crate::result::ToolAnswer;
use crate::AjisaiServer;
use ajisai_core::word::{registry, Family};
use ajisai_host::hosterror::HostError;
use ajisai_host::phrasebook::{ServedPhrasebook, MAX_NAME_CHARS, MAX_WORDS};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// An immediate tool's arguments as its `validate` accepted them: any shape its input
/// schema allows, read by its `answer`.
pub type Arguments = Map<String, Value>;

/// A JSON object: a tool's input or output schema.
pub type JsonObject = Map<String, Value>;

/// A tool as `tools/list` describes it (the protocol gives it the wire's shape).
#[derive(Clone, Debug)]
pub struct ToolDescription {
    /// Its name (MCP-16).
    pub name: &'static str,
    /// Its title (MCP-21).
    pub title: &'static str,
    /// Its description, placeholders filled (MCP-24).
    pub description: String,
    /// Its input schema (MCP-17/18).
    pub input_schema: Arc<JsonObject>,
    /// Its output schema: the result schema (MCP-25).
    pub output_schema: Arc<JsonObject>,
}

/// How a tool is answered.
#[derive(Clone, Copy)]
pub enum Answer {
    /// Runs a program (`source`, `words`): passes the concurrency gate, the deadline
    /// and the memory account, then this function builds the delivered result. The
    /// arguments, their schema and their validation are those of every source tool
    /// ([`source_schema`], `validate`'s steps 4 to 7).
    Source(Runner),
    /// Answered at once from its validated arguments, without running anything.
    Immediate {
        /// The input schema (MCP-17).
        schema: fn(&ServedPhrasebook) -> JsonObject,
        /// MCP-19's steps 4 onwards for the tool's arguments (docs/mcp/host-errors.md);
        /// the arguments its answer reads.
        validate: fn(&Map<String, Value>) -> Result<Arguments, HostError>,
        /// The answer in a revision's frame.
        answer: fn(&AjisaiServer, &Arguments, Delivery) -> ToolAnswer,
    },
}

/// A tool answered at once, as a validated call carries it: its name and its answer.
#[derive(Clone, Copy)]
pub struct ImmediateTool {
    /// The tool's name.
    pub name: &'static str,
    /// Its answer in a revision's frame.
    pub answer: fn(&AjisaiServer, &Arguments, Delivery) -> ToolAnswer,
}

/// Tools are told apart by name (one answer per name).
impl PartialEq for ImmediateTool {
    fn eq(&self, other: &ImmediateTool) -> bool {
        self.name == other.name
    }
}

impl Eq for ImmediateTool {}

impl std::fmt::Debug for ImmediateTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// One tool, described in one place: its file in this folder.
pub struct ToolSpec {
    /// The tool's name (MCP-16).
    pub name: &'static str,
    /// Its title (MCP-21).
    pub title: &'static str,
    /// Its description as written in `tools/`, before placeholders are filled.
    pub description: &'static str,
    /// The arguments it declares (its input schema follows from them).
    pub arguments: &'static [&'static str],
    /// How it is answered.
    pub answer: Answer,
}

/// The tools, one module each, in `tools/list` order: adding a tool is adding its file
/// and its name here. Listing, validation, dispatch and the metrics' labels all read
/// [`ToolSpec::ALL`].
macro_rules! tools {
    ($($tool:ident),+ $(,)?) => {
        $(pub mod $tool;)+

        impl ToolSpec {
            /// Every tool, in `tools/list` order.
            pub const ALL: &'static [&'static ToolSpec] = &[$(&$tool::SPEC),+];
        }
    };
}

tools!(compute, check, infer_contracts, word_contract);

/// The arguments of the tools that run a program.
pub const SOURCE_ARGUMENTS: &[&str] = &["source", "words"];

const SOURCE: &str = include_str!("source.md");
const WORDS: &str = include_str!("words.md");
const WORD: &str = include_str!("word.md");

/// A tool, as calls and validation pass it around: a handle on its [`ToolSpec`].
#[derive(Clone, Copy)]
pub struct ToolKind(&'static ToolSpec);

impl ToolKind {
    /// `compute`.
    pub const COMPUTE: ToolKind = ToolKind(&compute::SPEC);
    /// `check`.
    pub const CHECK: ToolKind = ToolKind(&check::SPEC);
    /// `infer_contracts`.
    pub const INFER_CONTRACTS: ToolKind = ToolKind(&infer_contracts::SPEC);
    /// `word_contract`.
    pub const WORD_CONTRACT: ToolKind = ToolKind(&word_contract::SPEC);

    /// Every tool, in `tools/list` order.
    pub fn all() -> impl Iterator<Item = ToolKind> {
        ToolSpec::ALL.iter().copied().map(ToolKind)
    }

    /// The tool with this exact name.
    pub fn from_name(name: &str) -> Option<ToolKind> {
        ToolKind::all().find(|t| t.name() == name)
    }

    /// Its spec.
    pub fn spec(self) -> &'static ToolSpec {
        self.0
    }

    /// The tool's name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The arguments the tool declares, sorted.
    pub fn accepted(self) -> &'static [&'static str] {
        self.0.arguments
    }

    /// Whether the tool runs source text (and so passes the concurrency gate).
    pub fn is_source_tool(self) -> bool {
        self.source_tool().is_some()
    }

    /// The tool as the executor runs it, when it runs source text.
    pub fn source_tool(self) -> Option<SourceTool> {
        match self.0.answer {
            Answer::Source(run) => Some(SourceTool {
                name: self.0.name,
                run,
            }),
            Answer::Immediate { .. } => None,
        }
    }
}

impl PartialEq for ToolKind {
    fn eq(&self, other: &ToolKind) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for ToolKind {}

impl std::fmt::Debug for ToolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

/// `compute`'s description may not exceed this many characters (MCP-24).
pub const COMPUTE_DESCRIPTION_MAX: usize = 2_400;

/// Every other tool's description, and every argument's, may not exceed this (MCP-24).
pub const OTHER_DESCRIPTION_MAX: usize = 800;

/// The tool's title (MCP-21).
pub fn title(tool: ToolKind) -> &'static str {
    tool.spec().title
}

/// The Word families, each followed by its Words, and the symbolic aliases, from the
/// registry: one paragraph of `compute`'s description.
pub fn families_paragraph() -> String {
    let reg = registry();
    let mut parts = Vec::new();
    for family in Family::ALL {
        let names: Vec<&str> = reg
            .documented()
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

/// The description of a tool, its placeholders filled: `{families}`, the Word families
/// and aliases of the registry; `{phrasebook}`, the names `words` can request (from the
/// phrasebook served, so the list stays true).
pub fn description(tool: ToolKind, phrasebook: &ServedPhrasebook) -> String {
    let mut text = tool.spec().description.trim_end().to_string();
    if text.contains("{families}") {
        text = text.replace("{families}", &families_paragraph());
    }
    if text.contains("{phrasebook}") {
        text = text.replace("{phrasebook}", &phrasebook.description_sentence());
    }
    text
}

/// The description of an argument (`source`, `words` or `word`).
pub fn argument_description(argument: &str, phrasebook: &ServedPhrasebook) -> String {
    match argument {
        "source" => SOURCE.trim_end().to_string(),
        "words" => WORDS
            .trim_end()
            .replace("{phrasebook}", &phrasebook.description_sentence()),
        _ => WORD.trim_end().to_string(),
    }
}

/// A JSON object's members (nothing for anything else).
pub fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// The input schema of a tool, exactly as MCP-17/18 state it.
pub fn input_schema(
    tool: ToolKind,
    source_bytes: u64,
    phrasebook: &ServedPhrasebook,
) -> JsonObject {
    match tool.spec().answer {
        Answer::Immediate { schema, .. } => schema(phrasebook),
        Answer::Source(_) => source_schema(source_bytes, phrasebook),
    }
}

/// The input schema of every source tool: `source` and `words`.
///
/// Written as JSON rather than derived with schemars: the schema's values are known only
/// when the server starts — `source`'s `maxLength` is the profile's source limit, and the
/// argument descriptions name the phrasebook served — and the schema must be exactly the
/// one the guide shows (no `title`, no nullable `words`), which
/// `tests::tools_are_listed_as_the_guide_documents_them` holds it to; a derived schema
/// would be patched at start-up into the same JSON.
pub fn source_schema(source_bytes: u64, phrasebook: &ServedPhrasebook) -> JsonObject {
    object(json!({
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
    }))
}

/// A JSON value's type, as messages name it (`a string`, `an object`, …).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `invalidRequest` answer for a missing required argument.
pub fn missing(tool: &str, arg: &str) -> HostError {
    HostError::invalid(format!("Missing required argument `{arg}` for {tool}."))
}

/// The tools, in `tools/list` order, each with `output_schema` as its output schema.
pub fn tools(
    output_schema: &Arc<JsonObject>,
    source_bytes: u64,
    phrasebook: &ServedPhrasebook,
) -> Vec<ToolDescription> {
    ToolKind::all()
        .map(|kind| ToolDescription {
            name: kind.name(),
            title: title(kind),
            description: description(kind, phrasebook),
            input_schema: Arc::new(input_schema(kind, source_bytes, phrasebook)),
            output_schema: Arc::clone(output_schema),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An immediate tool's arguments may be any shape its schema allows: a tool whose
    /// arguments are an integer and an array of strings is validated (undeclared
    /// arguments first, then its own rules) and answered with them as given.
    #[test]
    fn an_immediate_tool_takes_arguments_of_any_shape() {
        use crate::validate::{validate_tool, Call};
        fn schema(_: &ServedPhrasebook) -> JsonObject {
            object(json!({ "type": "object" }))
        }
        fn validate(args: &Map<String, Value>) -> Result<Arguments, HostError> {
            match (args.get("count"), args.get("names")) {
                (Some(Value::Number(n)), Some(Value::Array(names)))
                    if n.is_u64() && names.iter().all(Value::is_string) =>
                {
                    Ok(args.clone())
                }
                _ => Err(HostError::invalid(
                    "`count` is an integer and `names` an array of strings",
                )),
            }
        }
        fn answer(server: &AjisaiServer, arguments: &Arguments, delivery: Delivery) -> ToolAnswer {
            let text = Value::Object(arguments.clone()).to_string();
            server
                .executor()
                .fit_plain(text, delivery)
                .expect("a small answer")
        }
        static SHAPED: ToolSpec = ToolSpec {
            name: "shaped",
            title: "A tool of shaped arguments",
            description: "Echoes its arguments.",
            arguments: &["count", "names"],
            answer: Answer::Immediate {
                schema,
                validate,
                answer,
            },
        };
        ajisai_host::backend::link();
        let kind = ToolKind(&SHAPED);
        let phrasebook = ServedPhrasebook::empty();
        let given = json!({ "count": 3, "names": ["a", "b"] });
        let Ok(Call::Immediate { tool, arguments }) =
            validate_tool(kind, Some(&given), 65_536, &phrasebook)
        else {
            panic!("a valid call of an immediate tool");
        };
        assert_eq!(Value::Object(arguments.clone()), given);
        let server = AjisaiServer::new(crate::config::ServerOptions::production());
        let answered = (tool.answer)(&server, &arguments, Delivery::default());
        assert_eq!(answered.envelope(), r#"{"count":3,"names":["a","b"]}"#);
        let wrong = validate_tool(
            kind,
            Some(&json!({ "count": "3", "names": [] })),
            65_536,
            &phrasebook,
        );
        assert!(wrong.is_err_and(|e| e.message.contains("`count` is an integer")));
        let extra = json!({ "count": 1, "names": [], "x": 1 });
        let undeclared = validate_tool(kind, Some(&extra), 65_536, &phrasebook);
        assert!(undeclared.is_err_and(
            |e| e.message == "Unknown argument `x` for shaped; accepted: count, names."
        ));
    }

    #[test]
    fn families_come_from_the_registry() {
        ajisai_host::backend::link();
        let p = families_paragraph();
        assert!(p.contains("exactArithmetic: ABS ADD"), "{p}");
        assert!(p.contains("Symbolic aliases + - * / = != < <= > >= % ^ stand for ADD SUB MUL DIV EQ NEQ LT LTE GT GTE MOD VENT."), "{p}");
    }

    /// The listing is what the guide documents (docs/mcp/tools.md, the specification of
    /// record): its table's tools in order, with their titles and whether they take a
    /// slot; each input schema equal to the one the guide shows, descriptions aside; every
    /// description filled.
    #[test]
    fn tools_are_listed_as_the_guide_documents_them() {
        ajisai_host::backend::link();
        let guide =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp/tools.md"))
                .expect("docs/mcp/tools.md");
        // | `name` | title | purpose | yes/no |
        let table: Vec<(String, String, bool)> = guide
            .lines()
            .take_while(|l| !l.starts_with("## "))
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (
                    cells[1].trim_matches('`').to_string(),
                    cells[2].to_string(),
                    cells[4] == "yes",
                )
            })
            .collect();
        // The JSON blocks of "Input schemas": the source tools' schema, then word_contract's.
        let section = &guide[guide.find("## Input schemas").expect("the section")..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        let schemas: Vec<Value> = section
            .split("```json")
            .skip(1)
            .map(|b| serde_json::from_str(&b[..b.find("```").expect("a closed block")]))
            .collect::<Result<_, _>>()
            .expect("the guide's schemas are JSON");
        assert_eq!(schemas.len(), 2, "the guide shows two schemas");
        let without_descriptions = |v: &Value| {
            let mut v = v.clone();
            if let Some(props) = v["properties"].as_object_mut() {
                for p in props.values_mut() {
                    p.as_object_mut().map(|o| o.remove("description"));
                }
            }
            v
        };
        let schema = Arc::new(JsonObject::new());
        let listed = tools(&schema, 65_536, &ServedPhrasebook::empty());
        let names: Vec<&str> = listed.iter().map(|t| t.name).collect();
        let documented: Vec<&str> = table.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(names, documented, "the tools, in the guide's order");
        for (tool, (name, title, takes_slot)) in listed.iter().zip(&table) {
            assert_eq!(tool.title, title.as_str(), "{name}");
            let kind = ToolKind::from_name(name).expect("a tool");
            assert_eq!(kind.is_source_tool(), *takes_slot, "{name}");
            let description = tool.description.as_str();
            // Filled: no `{placeholder}` of the description texts is left.
            let placeholder = description.split('{').skip(1).any(|rest| {
                rest.split_once('}').is_some_and(|(word, _)| {
                    !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                })
            });
            assert!(!description.is_empty() && !placeholder, "{name}");
            let expected = &schemas[if *takes_slot { 0 } else { 1 }];
            let got = Value::Object((*tool.input_schema).clone());
            assert_eq!(
                without_descriptions(&got),
                without_descriptions(expected),
                "{name}"
            );
            for p in got["properties"].as_object().expect("properties").values() {
                assert!(
                    p["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{name}"
                );
            }
        }
    }
}
