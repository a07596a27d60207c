//! The embedded assets (MCP-82/83; docs/mcp/resources.md) and their generator.
//!
//! Every generated asset and the digest record are produced here. Without
//! `AJISAI_BLESS` the test fails on any drift between what the generator produces
//! and what is committed; with `AJISAI_BLESS=1 cargo test -p ajisai-server --test
//! assets` it rewrites them (then rebuild, since the assets are compiled in):
//!
//! - `spec/vocabulary.json` — MCP-59;
//! - `host/assets/result.schema.json` (compact) and `spec/result.schema.json`
//!   (indented for reading) — MCP-39 (docs/mcp/envelope.md);
//! - `host/assets/quickstart.md` — the hand-written `quickstart-preface.md`, the
//!   boundary line, then the writing protocol: the hand-written
//!   `protocol-syntax.md` and every Word generated from the registry (MCP-58);
//! - `host/assets/assets.sha256` — `<name> <sha256 hex>` per asset, sorted.
//!
//! The other embedded assets are embedded from their one source, not copied:
//! `spec/words.json` and `spec/outcomes.json` (written by `words/tests/registry.rs`),
//! `spec/vocabulary.json` (written here) and `docs/phrasebook/phrasebook.ajisai` (written by
//! hand; its digests by `words/tests/phrasebook.rs`). `scripts/bless` runs every generator.
//!
//! The other tests run every example of the quickstart (MCP-88; docs/mcp/verification.md) and check the
//! digests and the vocabulary.

use ajisai_core::check::WARNINGS_MAX;
use ajisai_core::code::{normalize, ALIASES};
use ajisai_core::contract::Gap;
use ajisai_core::display::display;
use ajisai_core::engine::{self, Options};
use ajisai_core::envelope::TRACE_NAME_MAX_CHARS;
use ajisai_core::limits::Limit;
use ajisai_core::outcome::{ErrorCategory, NilReason, Trap, TRACE_MAX_CALLS};
use ajisai_core::word::{registry, Family, WordSpec};
use ajisai_core::Profile;
use ajisai_host::assets;
use ajisai_service::tools::ToolSpec;
use serde_json::{json, Value as Json};
use std::path::PathBuf;

/// The boundary between the hand-written preface and the generated protocol.
const BOUNDARY: &str = "<!-- BEGIN GENERATED WRITING PROTOCOL -->";

/// The most bytes the quickstart may have: lean enough to read in one go (issue 12).
const QUICKSTART_MAX_BYTES: usize = 16_000;

fn link() {
    ajisai_host::backend::link();
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// The vocabulary manifest (MCP-59): Core Words sorted by name with their tier, then
/// the aliases sorted by name with the Word they stand for.
fn vocabulary_document() -> String {
    let reg = registry();
    let mut entries: Vec<Json> = Vec::new();
    let mut words: Vec<&WordSpec> = reg.specs().to_vec();
    words.sort_by_key(|s| s.name);
    for s in &words {
        entries.push(json!({
            "name": s.name,
            "kind": "word",
            "family": s.family.id(),
            "vocabularyTier": s.tier.id(),
        }));
    }
    let mut aliases: Vec<(&str, &str)> = ALIASES.to_vec();
    aliases.sort();
    for (alias, word) in aliases {
        let family = reg
            .lookup(word)
            .map(|id| reg.spec(id).family.id())
            .unwrap_or("");
        entries.push(json!({
            "name": alias,
            "kind": "alias",
            "family": family,
            "canonical": word,
        }));
    }
    let doc = json!({
        "specificationVersion": ajisai_core::SPECIFICATION_VERSION,
        "entries": entries,
    });
    format!("{doc}\n")
}

/// Inline code for `s`, with a fence longer than any backtick run inside it.
fn code_span(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest == 0 {
        return format!("`{s}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {s} {fence}")
}

/// The writing protocol: syntax, then every Word by family, one line each (MCP-58 as
/// amended by issue 12: the full contracts and examples live in `ajisai://contracts`,
/// `ajisai://words/{name}` and the guide).
fn protocol() -> String {
    let reg = registry();
    let mut out = String::new();
    out.push_str(
        "# Writing Ajisai

",
    );
    out.push_str(&format!(
        "Generated from the Word registry of specification {}; the test suite runs every \
         example.\n\n",
        ajisai_core::SPECIFICATION_VERSION
    ));
    out.push_str(&read("host/assets/protocol-syntax.md"));
    out.push_str("\n## Words\n\n");
    out.push_str(
        "Every Core Word by family, as written (operands, then the Word) with its summary. \
         `word_contract` (or `ajisai://words/{name}`) gives a Word's contract, NIL policy, \
         errors and examples; `ajisai://contracts` has them all.\n",
    );
    for family in Family::ALL {
        let mut specs: Vec<&WordSpec> = reg
            .specs()
            .iter()
            .copied()
            .filter(|s| s.family == family)
            .collect();
        if specs.is_empty() {
            continue;
        }
        specs.sort_by_key(|s| s.name);
        out.push_str(&format!("\n### {}\n\n", family.id()));
        for s in specs {
            let aliases: Vec<String> = s.aliases.iter().map(|a| code_span(a)).collect();
            let aliases = if aliases.is_empty() {
                String::new()
            } else {
                format!(" ({})", aliases.join(", "))
            };
            out.push_str(&format!(
                "- {}{aliases} — {}\n",
                code_span(s.syntax),
                s.summary
            ));
        }
    }
    out
}

/// The quickstart: preface, boundary line, protocol.
fn quickstart() -> String {
    let preface = read("host/assets/quickstart-preface.md");
    format!("{}\n{BOUNDARY}\n\n{}", preface.trim_end(), protocol())
}

fn ids<T: Copy>(all: &[T], id: impl Fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|x| id(*x)).collect()
}

/// (code, retryable, limits, retryAfterMs required) of every host error (MCP-43;
/// docs/mcp/outcomes.md): one limit is the code's own and always present; several are the
/// ones it may name (`workerReplaced` names the limit its worker went past, if any).
const HOST_ERRORS: [(&str, bool, &[&str], bool); 12] = [
    ("invalidRequest", false, &[], false),
    ("unknownTool", false, &[], false),
    ("sourceTooLarge", false, &["sourceBytes"], false),
    ("backendUnavailable", false, &[], false),
    ("capacityExhausted", true, &["concurrentExecutions"], true),
    ("timeout", true, &["wallTimeMs"], false),
    ("responseTooLarge", false, &["responseBytes"], false),
    ("memoryExhausted", false, &["memoryBytes"], false),
    ("malformedBackendResponse", false, &[], false),
    ("backendFailure", false, &[], false),
    ("registryUnavailable", false, &[], false),
    (
        "workerReplaced",
        false,
        &["wallTimeMs", "memoryBytes"],
        false,
    ),
];

/// The result schema (MCP-39), JSON Schema draft 2020-12.
fn result_schema() -> Json {
    let outcomes: Json = serde_json::from_str(&ajisai_core::outcome::outcomes_document())
        .expect("the outcomes document is JSON");
    let outcome_ids = outcomes["outcomes"].clone();
    let categories = ids(&ErrorCategory::ALL, ErrorCategory::id);
    let reasons = ids(&NilReason::ALL, NilReason::id);
    let limits = ids(&Limit::ALL, Limit::name);
    let gaps = ids(&Gap::ALL, Gap::id);
    let traps = ids(&Trap::ALL, Trap::id);
    let codes: Vec<&str> = HOST_ERRORS.iter().map(|h| h.0).collect();
    let host_rules: Vec<Json> = HOST_ERRORS
        .iter()
        .map(|&(code, retryable, limit, retry_after)| {
            let mut then = json!({ "properties": { "retryable": { "const": retryable } } });
            let mut required: Vec<&str> = Vec::new();
            let mut forbidden: Vec<Json> = Vec::new();
            match limit {
                [] => forbidden.push(json!({ "required": ["limit"] })),
                [l] => {
                    then["properties"]["limit"] = json!({ "const": l });
                    required.push("limit");
                }
                several => then["properties"]["limit"] = json!({ "enum": several }),
            }
            if retry_after {
                then["properties"]["retryAfterMs"] = json!({ "const": 1000 });
                required.push("retryAfterMs");
            } else {
                forbidden.push(json!({ "required": ["retryAfterMs"] }));
            }
            if !required.is_empty() {
                then["required"] = json!(required);
            }
            if !forbidden.is_empty() {
                then["not"] = json!({ "anyOf": forbidden });
            }
            json!({ "if": { "properties": { "code": { "const": code } } }, "then": then })
        })
        .collect();
    let no_semantics = json!({ "not": { "required": ["semantics"] } });
    let digits = "^-?(0|[1-9][0-9]*)$";
    let positive = "^[1-9][0-9]*$";
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "ajisai://schema/result",
        "title": "Ajisai tool result",
        "description": "Every result of the Ajisai MCP server's four tools (envelope schema version 9). Branch on status, then (compute) outcome. Optional fields are omitted, never null.",
        "type": "object",
        "additionalProperties": false,
        "required": ["schemaVersion", "status", "mcp"],
        "properties": {
            "schemaVersion": { "const": 9 },
            "status": { "enum": ["ok", "error", "hostError"] },
            "outcome": { "$ref": "#/$defs/outcome" },
            "specificationVersion": { "type": "string", "minLength": 1 },
            "stack": { "type": "array", "items": { "$ref": "#/$defs/stackEntry" } },
            "stackDisplay": { "type": "array", "items": { "type": "string" } },
            "stackElided": { "$ref": "#/$defs/stackElided" },
            "output": { "type": "array", "items": { "type": "string" } },
            "message": { "type": "string", "maxLength": 1000, "pattern": "^[^\r\n]*$" },
            "error": { "type": "object" },
            "contractDecls": { "$ref": "#/$defs/contractDecls" },
            "findings": {
                "type": "array",
                "minItems": 1,
                "maxItems": WARNINGS_MAX,
                "items": { "$ref": "#/$defs/trapFinding" }
            },
            "findingsOmitted": { "type": "integer", "minimum": 1 },
            "contracts": { "type": "array", "items": { "$ref": "#/$defs/contract" } },
            "registrySchemaVersion": { "type": "integer", "minimum": 1 },
            "matches": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1,
                "items": { "$ref": "#/$defs/registryEntry" }
            },
            "suggestions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "items": { "type": "string", "minLength": 1 }
            },
            "resourceUsage": { "$ref": "#/$defs/resourceUsage" },
            "prelude": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/preludeEntry" } },
            "mcp": { "$ref": "#/$defs/mcp" }
        },
        "dependentRequired": {
            "outcome": ["stack", "stackDisplay", "output", "resourceUsage"],
            "stack": ["outcome"],
            "stackDisplay": ["outcome"],
            "output": ["outcome"],
            "resourceUsage": ["outcome"],
            "stackElided": ["stack"],
            "matches": ["registrySchemaVersion"],
            "registrySchemaVersion": ["matches"],
            "findingsOmitted": ["findings"]
        },
        "allOf": [
            {
                "if": { "properties": { "status": { "const": "hostError" } } },
                "then": {
                    "required": ["error"],
                    "propertyNames": { "enum": ["schemaVersion", "status", "error", "mcp"] },
                    "properties": { "error": { "$ref": "#/$defs/hostError" } }
                },
                "else": {
                    "required": ["specificationVersion"],
                    "properties": { "error": { "$ref": "#/$defs/languageError" } }
                }
            },
            {
                "if": { "properties": { "status": { "const": "error" } } },
                "then": {
                    "required": ["message", "error"],
                    "properties": { "outcome": { "pattern": "^error:" } }
                }
            },
            {
                "if": { "properties": { "status": { "const": "ok" } } },
                "then": {
                    "not": { "anyOf": [{ "required": ["message"] }, { "required": ["error"] }] },
                    "properties": { "outcome": { "not": { "pattern": "^error:" } } }
                }
            }
        ],
        "$defs": {
            "outcome": {
                "description": "value, nil:<reason> or error:<category> (spec/outcomes.json).",
                "enum": outcome_ids
            },
            "rational": {
                "type": "object",
                "additionalProperties": false,
                "required": ["numerator", "denominator"],
                "properties": {
                    "numerator": { "type": "string", "pattern": digits },
                    "denominator": { "type": "string", "pattern": positive }
                }
            },
            "term": {
                "type": "object",
                "additionalProperties": false,
                "required": ["numerator", "denominator", "radicand"],
                "properties": {
                    "numerator": { "type": "string", "pattern": "^-?[1-9][0-9]*$" },
                    "denominator": { "type": "string", "pattern": positive },
                    "radicand": { "type": "string", "pattern": positive }
                }
            },
            "semantics": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "approximate": { "const": true },
                    "exactTerms": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/term" } },
                    "absence": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["reason"],
                        "properties": { "reason": { "enum": reasons } }
                    }
                }
            },
            "stackEntry": {
                "description": "One slot of the stack, or one record standing for a run of consecutive elided slots.",
                "oneOf": [{ "$ref": "#/$defs/node" }, { "$ref": "#/$defs/elidedRun" }]
            },
            "elidedRun": {
                "description": "Two or more consecutive slots elided as one record; stackElided.runs has its start index.",
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "count", "approxBytes"],
                "properties": {
                    "type": { "const": "elidedRun" },
                    "count": { "type": "integer", "minimum": 2 },
                    "approxBytes": { "type": "integer", "minimum": 0 }
                }
            },
            "node": {
                "description": "One stack slot. An elided slot has its real type, value null and an elided record.",
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "value"],
                "properties": {
                    "type": { "enum": ["number", "boolean", "string", "vector", "codeBlock", "nil"] },
                    "value": {
                        "description": "The slot's value, by type: a rational object (number), a Boolean (boolean), a string (string, codeBlock), an array of nodes (vector), null (nil, and every elided slot).",
                        "anyOf": [
                            { "type": "object" },
                            { "type": "boolean" },
                            { "type": "string" },
                            { "type": "array" },
                            { "type": "null" }
                        ]
                    },
                    "semantics": { "$ref": "#/$defs/semantics" },
                    "elided": { "$ref": "#/$defs/elided" }
                },
                "if": { "required": ["elided"] },
                "then": {
                    "properties": { "value": { "const": null } },
                    "not": { "required": ["semantics"] },
                    "allOf": [
                        {
                            "if": { "properties": { "type": { "const": "vector" } } },
                            "then": { "properties": { "elided": { "properties": {
                                "head": { "$ref": "#/$defs/previewElements" },
                                "tail": { "$ref": "#/$defs/previewElements" }
                            } } } }
                        },
                        {
                            "if": { "properties": { "type": { "const": "string" } } },
                            "then": { "properties": { "elided": { "properties": {
                                "head": { "$ref": "#/$defs/previewText" },
                                "tail": { "$ref": "#/$defs/previewText" }
                            } } } }
                        },
                        {
                            "if": { "properties": { "type": { "enum": ["number", "boolean", "codeBlock", "nil"] } } },
                            "then": { "properties": { "elided": {
                                "not": { "anyOf": [{ "required": ["head"] }, { "required": ["tail"] }] }
                            } } }
                        }
                    ]
                },
                "else": {
                    "oneOf": [
                        {
                            "properties": {
                                "type": { "const": "number" },
                                "value": { "$ref": "#/$defs/rational" },
                                "semantics": { "required": ["approximate", "exactTerms"], "not": { "required": ["absence"] } }
                            }
                        },
                        {
                            "properties": { "type": { "const": "boolean" }, "value": { "type": "boolean" } },
                            "allOf": [no_semantics]
                        },
                        {
                            "properties": { "type": { "const": "string" }, "value": { "type": "string" } },
                            "allOf": [no_semantics]
                        },
                        {
                            "properties": {
                                "type": { "const": "vector" },
                                "value": { "type": "array", "items": { "$ref": "#/$defs/node" } }
                            },
                            "allOf": [no_semantics]
                        },
                        {
                            "properties": { "type": { "const": "codeBlock" }, "value": { "type": "string" } },
                            "allOf": [no_semantics]
                        },
                        {
                            "required": ["semantics"],
                            "properties": {
                                "type": { "const": "nil" },
                                "value": { "const": null },
                                "semantics": {
                                    "required": ["absence"],
                                    "not": { "anyOf": [{ "required": ["approximate"] }, { "required": ["exactTerms"] }] }
                                }
                            }
                        }
                    ]
                }
            },
            "elided": {
                "type": "object",
                "additionalProperties": false,
                "required": ["reason", "approxBytes"],
                "properties": {
                    "reason": { "enum": ["valueStackBudget", "errorStackBudget"] },
                    "elements": { "type": "integer", "minimum": 0 },
                    "approxBytes": { "type": "integer", "minimum": 0 },
                    "algebraicTerms": { "type": "integer", "minimum": 1 },
                    "head": {
                        "description": "The first elements of an elided vector (nodes) or the first characters of an elided string.",
                        "anyOf": [{ "type": "array" }, { "type": "string" }]
                    },
                    "tail": {
                        "description": "The last elements of an elided vector (nodes) or the last characters of an elided string; for a string, text between head and tail was left out.",
                        "anyOf": [{ "type": "array" }, { "type": "string" }]
                    }
                }
            },
            "previewElements": {
                "description": "Whole elements at one end of an elided vector; elements minus both ends were left out between them.",
                "type": "array",
                "minItems": 1,
                "maxItems": ajisai_core::render::PREVIEW_ELEMENTS,
                "items": { "$ref": "#/$defs/node" }
            },
            "previewText": {
                "description": "Characters at one end of an elided string.",
                "type": "string",
                "minLength": 1
            },
            "stackElided": {
                "type": "object",
                "additionalProperties": false,
                "required": ["reason", "budgetBytes", "slots"],
                "properties": {
                    "reason": { "enum": ["valueStackBudget", "errorStackBudget"] },
                    "budgetBytes": { "type": "integer", "minimum": 0 },
                    "slots": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["index", "approxBytes"],
                            "properties": {
                                "index": { "type": "integer", "minimum": 0 },
                                "elements": { "type": "integer", "minimum": 0 },
                                "approxBytes": { "type": "integer", "minimum": 0 },
                                "algebraicTerms": { "type": "integer", "minimum": 1 }
                            }
                        }
                    },
                    "runs": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["start", "count", "approxBytes"],
                            "properties": {
                                "start": { "type": "integer", "minimum": 0 },
                                "count": { "type": "integer", "minimum": 2 },
                                "approxBytes": { "type": "integer", "minimum": 0 }
                            }
                        }
                    }
                },
                "anyOf": [
                    { "properties": { "slots": { "minItems": 1 } } },
                    { "required": ["runs"] }
                ]
            },
            "languageError": {
                "type": "object",
                "additionalProperties": false,
                "required": ["category"],
                "properties": {
                    "category": { "enum": categories },
                    "resource": { "enum": limits },
                    "word": { "type": "string", "minLength": 1 },
                    "line": { "type": "integer", "minimum": 1 },
                    "column": { "type": "integer", "minimum": 1 },
                    "trace": {
                        "description": "The User Word calls the error happened inside, innermost first; when traceOmitted is present, the last entry is the outermost call and traceOmitted calls before it are left out.",
                        "type": "array",
                        "minItems": 1,
                        "maxItems": TRACE_MAX_CALLS,
                        "items": { "$ref": "#/$defs/callSite" }
                    },
                    "traceOmitted": { "type": "integer", "minimum": 1 }
                },
                "dependentRequired": { "line": ["column"], "column": ["line"], "traceOmitted": ["trace"] },
                "dependentSchemas": {
                    "resource": { "properties": { "category": { "const": "resourceLimitExceeded" } } }
                }
            },
            "callSite": {
                "description": "One User Word call: the Word, and the position of the call in the caller's source (none for a call made inside a phrasebook Word).",
                "type": "object",
                "additionalProperties": false,
                "required": ["word"],
                "properties": {
                    "word": { "type": "string", "minLength": 1, "maxLength": TRACE_NAME_MAX_CHARS },
                    "line": { "type": "integer", "minimum": 1 },
                    "column": { "type": "integer", "minimum": 1 },
                    "source": { "const": "phrasebook" }
                },
                "dependentRequired": { "line": ["column"], "column": ["line"] }
            },
            "trapFinding": {
                "description": "check only: a valid program that reads like a known trap. It never stops compute.",
                "type": "object",
                "additionalProperties": false,
                "required": ["severity", "trap", "message"],
                "properties": {
                    "severity": { "const": "warning" },
                    "trap": { "enum": traps },
                    "message": { "type": "string", "maxLength": 1000, "pattern": "^[^\r\n]*$" },
                    "line": { "type": "integer", "minimum": 1 },
                    "column": { "type": "integer", "minimum": 1 }
                },
                "dependentRequired": { "line": ["column"], "column": ["line"] }
            },
            "hostError": {
                "type": "object",
                "additionalProperties": false,
                "required": ["code", "message", "retryable"],
                "properties": {
                    "code": { "enum": codes },
                    "message": { "type": "string", "minLength": 1, "pattern": "^[^\r\n]*$" },
                    "retryable": { "type": "boolean" },
                    "limit": { "enum": limits },
                    "retryAfterMs": { "type": "integer", "minimum": 0 }
                },
                "allOf": host_rules
            },
            "resourceUsage": {
                "type": "object",
                "additionalProperties": false,
                "required": ["executionSteps", "numericWork", "collectionWork"],
                "properties": {
                    "executionSteps": { "type": "integer", "minimum": 0 },
                    "numericWork": { "type": "integer", "minimum": 0 },
                    "collectionWork": { "type": "integer", "minimum": 0 }
                }
            },
            "contractDecls": {
                "type": "object",
                "additionalProperties": false,
                "required": ["findings", "declarations"],
                "properties": {
                    "findings": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["severity", "message"],
                            "properties": {
                                "severity": { "enum": ["error", "note"] },
                                "message": { "type": "string" }
                            }
                        }
                    },
                    "declarations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["word", "verdict"],
                            "properties": {
                                "word": { "type": "string", "minLength": 1 },
                                "verdict": { "enum": ["verified", "cannotVerify", "violated"] },
                                "gap": { "enum": gaps }
                            }
                        }
                    }
                }
            },
            "contract": {
                "type": "object",
                "additionalProperties": false,
                "required": ["name"],
                "properties": {
                    "name": { "type": "string", "minLength": 1 },
                    "inputs": { "type": "integer", "minimum": 0, "maximum": 65535 },
                    "outputs": { "type": "integer", "minimum": 0, "maximum": 65535 },
                    "field": { "enum": ["closed", "extends"] },
                    "suggested": { "type": "string", "pattern": "^#:contract " },
                    "gap": { "enum": gaps }
                }
            },
            "preludeEntry": {
                "type": "object",
                "additionalProperties": false,
                "required": ["name", "digest"],
                "properties": {
                    "name": { "type": "string", "minLength": 1 },
                    "digest": { "type": "string", "pattern": "^sha256:[0-9a-f]{64}$" }
                }
            },
            "registryEntry": {
                "description": "A canonical registry entry, reproduced verbatim (ajisai://contracts); open to new fields.",
                "type": "object",
                "required": ["name", "aliases", "family", "vocabularyTier", "contract", "consumption", "nilPolicy", "purity", "determinism", "documentation"],
                "properties": {
                    "name": { "type": "string" },
                    "aliases": { "type": "array", "items": { "type": "string" } },
                    "contract": { "type": "object", "required": ["inputs", "outputs", "field"] },
                    "documentation": { "type": "object", "required": ["summary", "syntax", "stackEffect"] }
                }
            },
            "mcp": {
                "type": "object",
                "additionalProperties": false,
                "required": ["serverVersion", "engineVersion", "assetDigest", "limitProfile", "backend"],
                "properties": {
                    "serverVersion": { "type": "string", "minLength": 1 },
                    "engineVersion": { "type": "string", "minLength": 1 },
                    "assetDigest": { "type": "string", "pattern": "^[0-9a-f]{64}$" },
                    "limitProfile": { "type": "string", "minLength": 1 },
                    "backend": { "$ref": "#/$defs/backend" }
                }
            },
            "backend": {
                "type": "object",
                "additionalProperties": false,
                "required": ["kind", "library", "origin"],
                "properties": {
                    "kind": { "enum": ["gmp", "pure"] },
                    "library": { "type": "string", "minLength": 1 },
                    "origin": { "enum": ["builtin", "plugin"] }
                }
            }
        }
    })
}

/// The digest record: `<name> <sha256 hex>\n` per asset, sorted by name (its own
/// SHA-256 is therefore the `assetDigest` of MCP-83).
fn digest_record(assets: &[(&str, &str)]) -> String {
    assets::digest_lines(assets.iter().map(|(n, b)| (*n, b.as_bytes())))
}

/// Where the embedded asset `name` is committed (relative to the workspace root): its one
/// source, which `host/src/assets.rs` embeds.
fn embedded_path(name: &str) -> String {
    match name {
        "phrasebook.ajisai" => "docs/phrasebook/phrasebook.ajisai".into(),
        "outcomes.json" | "vocabulary.json" | "words.json" => format!("spec/{name}"),
        _ => format!("host/assets/{name}"),
    }
}

/// Every generated file: (path relative to the workspace root, contents).
fn generated_files() -> Vec<(String, String)> {
    link();
    let schema = result_schema();
    let schema_compact = format!("{schema}\n");
    let schema_pretty = format!(
        "{}\n",
        serde_json::to_string_pretty(&schema).expect("the schema serializes")
    );
    let vocabulary = vocabulary_document();
    let embedded: Vec<(&str, String)> = vec![
        ("outcomes.json", ajisai_core::outcome::outcomes_document()),
        (
            "phrasebook.ajisai",
            read("docs/phrasebook/phrasebook.ajisai"),
        ),
        ("quickstart.md", quickstart()),
        ("result.schema.json", schema_compact),
        ("vocabulary.json", vocabulary.clone()),
        ("words.json", ajisai_core::word::registry_document()),
    ];
    let record = digest_record(
        &embedded
            .iter()
            .map(|(n, b)| (*n, b.as_str()))
            .collect::<Vec<_>>(),
    );
    let mut files: Vec<(String, String)> = embedded
        .into_iter()
        .map(|(n, b)| (embedded_path(n), b))
        .collect();
    files.push(("host/assets/assets.sha256".into(), record));
    files.push(("spec/result.schema.json".into(), schema_pretty));
    files
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn generated_assets_are_current() {
    let files = generated_files();
    if std::env::var_os("AJISAI_BLESS").is_some() {
        for (rel, contents) in &files {
            std::fs::write(root().join(rel), contents).expect("the asset paths are writable");
        }
        return;
    }
    let drifted: Vec<&str> = files
        .iter()
        .filter(|(rel, contents)| read(rel) != *contents)
        .map(|(rel, _)| rel.as_str())
        .collect();
    assert!(
        drifted.is_empty(),
        "generated assets differ from the committed ones: {}; run AJISAI_BLESS=1 cargo test -p ajisai-server --test server assets::, rebuild and commit",
        drifted.join(", ")
    );
    // The embedded assets are the committed files (a stale build would differ).
    for a in assets::all() {
        assert_eq!(
            a.bytes,
            read(&embedded_path(a.name)),
            "{} is embedded from an older build",
            a.name
        );
    }
}

#[test]
fn the_registry_assets_equal_the_committed_spec_documents() {
    assert_eq!(assets::words_json(), read("spec/words.json"));
    assert_eq!(
        assets::phrasebook_ajisai(),
        read("docs/phrasebook/phrasebook.ajisai")
    );
    assert_eq!(assets::outcomes_json(), read("spec/outcomes.json"));
    assert_eq!(assets::vocabulary_json(), read("spec/vocabulary.json"));
    let pretty: Json = serde_json::from_str(&read("spec/result.schema.json")).unwrap();
    let compact: Json = serde_json::from_str(assets::result_schema_json()).unwrap();
    assert_eq!(pretty, compact);
}

#[test]
fn embedded_assets_verify_and_the_digests_follow_mcp_83() {
    assets::verify().unwrap();
    let names: Vec<&str> = assets::all().iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        [
            "outcomes.json",
            "phrasebook.ajisai",
            "quickstart.md",
            "result.schema.json",
            "vocabulary.json",
            "words.json"
        ]
    );
    for a in assets::all() {
        assert_eq!(a.recorded_sha256, assets::sha256_hex(a.bytes.as_bytes()));
        assert_eq!(a.recorded_sha256.len(), 64);
        let expected_mime = if a.name.ends_with(".md") {
            "text/markdown"
        } else if a.name.ends_with(".ajisai") {
            "text/plain"
        } else {
            "application/json"
        };
        assert_eq!(a.mime, expected_mime);
        assert_eq!(assets::get(a.name), Some(a));
    }
    assert!(assets::get("phrasebook.md").is_none());
    // assetDigest is the SHA-256 of the sorted `<name> <hex>` lines: the record itself.
    let lines: String = {
        let mut l: Vec<String> = assets::all()
            .iter()
            .map(|a| format!("{} {}\n", a.name, a.recorded_sha256))
            .collect();
        l.sort();
        l.concat()
    };
    assert_eq!(lines, read("host/assets/assets.sha256"));
    assert_eq!(assets::asset_digest(), assets::sha256_hex(lines.as_bytes()));
    assert_eq!(
        assets::registry_digest(),
        assets::sha256_hex(read("spec/words.json").as_bytes())
    );
    assert_ne!(
        assets::registry_digest(),
        assets::sha256_hex(assets::vocabulary_json().as_bytes())
    );
    // An override replaces its namesake (the AJISAI_PHRASEBOOK file, MCP-80; docs/phrasebook.md) ...
    let with = assets::asset_digest_with(&[("phrasebook.ajisai", b"# empty\n")]);
    let replaced: String = lines
        .lines()
        .map(|l| match l.split_once(' ') {
            Some(("phrasebook.ajisai", _)) => {
                format!("phrasebook.ajisai {}\n", assets::sha256_hex(b"# empty\n"))
            }
            _ => format!("{l}\n"),
        })
        .collect();
    assert_eq!(with, assets::sha256_hex(replaced.as_bytes()));
    assert_ne!(with, assets::asset_digest());
    // ... and any other name joins the set.
    let joined = assets::asset_digest_with(&[("extra.txt", b"x")]);
    let mut l2: Vec<String> = lines.lines().map(|l| format!("{l}\n")).collect();
    l2.push(format!("extra.txt {}\n", assets::sha256_hex(b"x")));
    l2.sort();
    assert_eq!(joined, assets::sha256_hex(l2.concat().as_bytes()));
    assert_eq!(
        assets::asset_digest_with(&[("words.json", assets::words_json().as_bytes())]),
        assets::asset_digest()
    );
}

#[test]
fn the_vocabulary_lists_every_documented_word_then_every_alias() {
    link();
    let doc: Json = serde_json::from_str(assets::vocabulary_json()).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["specificationVersion", "entries"]);
    assert_eq!(
        doc["specificationVersion"],
        ajisai_core::SPECIFICATION_VERSION
    );
    let entries = doc["entries"].as_array().unwrap();
    let documented: Vec<_> = registry().documented().collect();
    let alias_count: usize = documented.iter().map(|s| s.aliases.len()).sum();
    assert_eq!(entries.len(), documented.len() + alias_count);
    let (words, aliases) = entries.split_at(documented.len());
    let names = |xs: &[Json]| -> Vec<String> {
        xs.iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    let mut sorted = names(words);
    sorted.sort();
    assert_eq!(names(words), sorted);
    let mut sorted = names(aliases);
    sorted.sort();
    assert_eq!(names(aliases), sorted);
    let reg = registry();
    for e in words {
        let o = e.as_object().unwrap();
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "kind", "family", "vocabularyTier"]);
        let spec = reg.spec(reg.lookup(e["name"].as_str().unwrap()).unwrap());
        assert_eq!(e["kind"], "word");
        assert_eq!(e["family"], spec.family.id());
        assert_eq!(e["vocabularyTier"], spec.tier.id());
    }
    for e in aliases {
        let o = e.as_object().unwrap();
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "kind", "family", "canonical"]);
        let name = e["name"].as_str().unwrap();
        assert_eq!(e["kind"], "alias");
        assert_eq!(e["canonical"], normalize(name));
        let spec = reg.spec(reg.lookup(&normalize(name)).unwrap());
        assert_eq!(e["family"], spec.family.id());
    }
}

// ---------------------------------------------------------------------------
// Quickstart examples (MCP-58, MCP-88)
// ---------------------------------------------------------------------------

/// One fenced example of the preface.
#[derive(Debug)]
struct Fenced {
    tool: String,
    /// The phrasebook Words the call requests (`words=MEAN,FIXED`).
    words: Option<String>,
    status: Option<String>,
    stack: Option<String>,
    body: String,
}

/// The value of `key=value` or `key="value with spaces"` in a fence's info string.
fn attribute(info: &str, key: &str) -> Option<String> {
    let start = info.find(&format!("{key}="))? + key.len() + 1;
    let rest = &info[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        quoted.split_once('"').map(|(v, _)| v.to_string())
    } else {
        Some(rest.split_whitespace().next().unwrap_or("").to_string())
    }
}

fn fenced_examples(markdown: &str) -> Vec<Fenced> {
    let mut out = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```ajisai") else {
            continue;
        };
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push(l);
        }
        out.push(Fenced {
            tool: attribute(info, "tool").unwrap_or_else(|| "compute".into()),
            words: attribute(info, "words"),
            status: attribute(info, "status"),
            stack: attribute(info, "stack"),
            body: body.join("\n"),
        });
    }
    out
}

/// (status, stack joined by spaces) of running an example with its tool.
fn run_example(ex: &Fenced) -> (String, Option<String>) {
    link();
    let options = Options::new(Profile::MCP_LOCAL_STDIO);
    let status = |failed: bool| if failed { "error" } else { "ok" }.to_string();
    match ex.tool.as_str() {
        "compute" => {
            let book = ajisai_core::phrasebook::Phrasebook::load(assets::phrasebook_ajisai())
                .expect("the embedded phrasebook loads");
            let requested: Vec<&str> = ex.words.iter().flat_map(|w| w.split(',')).collect();
            let prelude = book
                .closure(&requested)
                .unwrap_or_else(|unknown| panic!("{unknown}"));
            let r = engine::compute_in(&ex.body, &prelude, &options);
            let stack: Vec<String> = r.stack.iter().map(display).collect();
            (status(r.error.is_some()), Some(stack.join(" ")))
        }
        "check" => (
            status(engine::check(&ex.body, &options).error.is_some()),
            None,
        ),
        "infer_contracts" => (
            status(engine::infer_contracts(&ex.body, &options).error.is_some()),
            None,
        ),
        "word_contract" => {
            let name = ex.body.trim();
            let found = !name.is_empty() && registry().lookup(&normalize(name)).is_some();
            (status(!found), None)
        }
        other => panic!("unknown tool {other} in a quickstart example"),
    }
}

fn preface() -> &'static str {
    let q = assets::quickstart_md();
    q.split_once(BOUNDARY).map_or(q, |(p, _)| p)
}

#[test]
fn every_preface_example_holds() {
    let examples = fenced_examples(preface());
    assert!(
        examples.len() >= 5,
        "the preface has at least five examples"
    );
    let mut failures = Vec::new();
    for ex in &examples {
        let (status, stack) = run_example(ex);
        if ex.status.as_deref().is_some_and(|s| s != status) {
            failures.push(format!("{ex:?}: status {status}"));
        }
        if let Some(want) = &ex.stack {
            if stack.as_ref() != Some(want) {
                failures.push(format!("{ex:?}: stack {stack:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for tool in ToolSpec::ALL.iter().map(|t| t.name) {
        assert!(
            examples.iter().any(|e| e.tool == tool),
            "an example uses {tool}"
        );
    }
}

#[test]
fn the_preface_covers_what_mcp_58_asks() {
    let p = preface();
    for phrase in [
        "`ok`",
        "`error`",
        "`hostError`",
        "NIL",
        "exactTerms",
        "`EQ`",
        "error.word",
        "`word_contract`",
        "suggestions",
        "retryable",
        "error.code",
        "mcp.limitProfile",
        "ajisai://limits",
        "executionSteps",
        "`SUM`",
        "`words`",
        "ajisai://phrasebook",
        "specificationVersion",
        "`mcp`",
        "^",
    ] {
        assert!(p.contains(phrase), "the preface mentions {phrase}");
    }
    for cli in [
        "ajisai run",
        "ajisai check",
        "ajisai contract",
        "ajisai test",
        "ajisai repl",
        "--json",
        "cargo ",
    ] {
        assert!(!p.contains(cli), "the preface names no CLI command ({cli})");
    }
    let q = assets::quickstart_md();
    assert_eq!(q.matches(BOUNDARY).count(), 1);
    assert!(q.starts_with(read("host/assets/quickstart-preface.md").trim_end()));
    // One screen: the preface stays short.
    assert!(p.lines().count() <= 110, "{} lines", p.lines().count());
}

/// Read back a `- `source` → expectation` line of the protocol:
/// (source, expectation in the registry's grammar, printed lines).
fn parse_example_line(line: &str) -> Option<(String, String, Vec<String>)> {
    let rest = line.strip_prefix("- ")?;
    let (source, rest) = take_code_span(rest)?;
    let rest = rest.strip_prefix(" → ")?;
    let (expect, rest) = if let Some(r) = rest.strip_prefix("error:") {
        let end = r.find(';').unwrap_or(r.len());
        (format!("error:{}", &r[..end]), &r[end..])
    } else if let Some(r) = rest.strip_prefix("(empty)") {
        ("(empty)".to_string(), r)
    } else {
        let (slots, r) = take_code_span(rest)?;
        match r.strip_prefix(" (nil:") {
            Some(n) => {
                let (reason, r) = n.split_once(')')?;
                (format!("{slots} (nil:{reason})"), r)
            }
            None => (slots, r),
        }
    };
    let mut prints = Vec::new();
    if let Some(mut p) = rest.strip_prefix("; prints ") {
        while let Some((s, r)) = take_code_span(p) {
            prints.push(s);
            p = r.strip_prefix(", ").unwrap_or(r);
        }
    }
    Some((source, expect, prints))
}

/// The content of the code span starting `s`, and what follows it.
fn take_code_span(s: &str) -> Option<(String, &str)> {
    let n = s.chars().take_while(|c| *c == '`').count();
    if n == 0 {
        return None;
    }
    let fence = "`".repeat(n);
    let body = &s[n..];
    let end = body.find(&fence)?;
    let content = &body[..end];
    let content = if n > 1 {
        content
            .strip_prefix(' ')
            .and_then(|c| c.strip_suffix(' '))
            .unwrap_or(content)
    } else {
        content
    };
    Some((content.to_string(), &body[end + n..]))
}

/// Whether a run matches an expectation in the registry's grammar; `None` if so.
fn mismatch(source: &str, expect: &str, prints: &[String]) -> Option<String> {
    link();
    let r = engine::compute(source, &Options::new(Profile::MCP_LOCAL_STDIO));
    let slots = ajisai_core::display::stack_line(&r.stack);
    let ok = if let Some(cat) = expect.strip_prefix("error:") {
        r.error.as_ref().is_some_and(|e| e.category.id() == cat)
    } else if let Some((want, reason)) = expect
        .strip_suffix(')')
        .and_then(|e| e.rsplit_once(" (nil:"))
    {
        r.error.is_none()
            && slots == want
            && r.stack.last().and_then(|v| v.nil_reason()).map(|n| n.id()) == Some(reason)
    } else {
        r.error.is_none() && slots == expect
    };
    let printed_ok = r.output == prints;
    if ok && printed_ok {
        None
    } else {
        Some(format!(
            "`{source}`: expected {expect} printing {prints:?}, got {slots} {:?} printing {:?}",
            r.error.map(|e| e.category.id()),
            r.output
        ))
    }
}

#[test]
fn every_writing_protocol_example_holds() {
    let q = assets::quickstart_md();
    let (_, protocol) = q.split_once(BOUNDARY).expect("the boundary line");
    let mut count = 0;
    let mut failures = Vec::new();
    for line in protocol.lines() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with("- `") || !trimmed.contains(" → ") {
            continue;
        }
        let Some((source, expect, prints)) = parse_example_line(trimmed) else {
            failures.push(format!("unreadable example line: {line}"));
            continue;
        };
        count += 1;
        if let Some(m) = mismatch(&source, &expect, &prints) {
            failures.push(m);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count >= 20, "{count} examples");
    // Every Word has its line, under its family.
    for spec in registry().specs() {
        assert!(
            spec.syntax.contains(spec.name),
            "{}'s syntax names it",
            spec.name
        );
        let line = format!("\n- {}", code_span(spec.syntax));
        let at = protocol
            .find(&line)
            .unwrap_or_else(|| panic!("{} has a line", spec.name));
        let family = format!("\n### {}\n", spec.family.id());
        assert!(
            protocol[..at].rfind("\n### ") == protocol[..at].rfind(&family),
            "{} is listed under {}",
            spec.name,
            spec.family.id()
        );
    }
}

#[test]
fn example_lines_read_back() {
    for (line, source, expect, prints) in [
        ("- `1 2 +` → `3/1`", "1 2 +", "3/1", vec![]),
        (
            "- `NIL` → `NIL` (nil:literal)",
            "NIL",
            "NIL (nil:literal)",
            vec![],
        ),
        (
            "- `1 'a' +` → error:typeMismatch",
            "1 'a' +",
            "error:typeMismatch",
            vec![],
        ),
        ("- `'x' DEL` → (empty)", "'x' DEL", "(empty)", vec![]),
        (
            "- `` 'a`b' PRINT `` → (empty); prints `` a`b ``",
            "'a`b' PRINT",
            "(empty)",
            vec!["a`b"],
        ),
        (
            "- `1 PRINT 2 PRINT` → (empty); prints `1/1`, `2/1`",
            "1 PRINT 2 PRINT",
            "(empty)",
            vec!["1/1", "2/1"],
        ),
    ] {
        let back = parse_example_line(line).unwrap_or_else(|| panic!("{line} reads"));
        assert_eq!(
            back,
            (
                source.to_string(),
                expect.to_string(),
                prints.iter().map(|p| p.to_string()).collect::<Vec<_>>()
            ),
            "{line}"
        );
    }
}

#[test]
fn the_quickstart_reads_in_one_go() {
    let q = assets::quickstart_md();
    assert!(
        q.len() <= QUICKSTART_MAX_BYTES,
        "the quickstart has {} bytes, more than {QUICKSTART_MAX_BYTES}",
        q.len()
    );
}

#[test]
fn the_embedded_phrasebook_loads() {
    link();
    let book = ajisai_core::phrasebook::Phrasebook::load(assets::phrasebook_ajisai())
        .unwrap_or_else(|e| panic!("the embedded phrasebook loads: {e}"));
    assert!(!book.entries().is_empty());
}

/// Where a JSON Schema keyword holds sub-schemas: by name (`properties`, `$defs`, …), in
/// a list (`anyOf`, …) or as one schema (`items`, `not`, …).
const SCHEMA_MAPS: [&str; 4] = ["properties", "$defs", "definitions", "patternProperties"];
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES: [&str; 8] = [
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
];

/// Every place in `schema` where a bare `true`/`false` stands for a sub-schema.
fn boolean_subschemas(schema: &Json, path: &str, out: &mut Vec<String>) {
    let Json::Object(map) = schema else { return };
    for (key, value) in map {
        let at = format!("{path}/{key}");
        let subschemas: Vec<(String, &Json)> = if SCHEMA_MAPS.contains(&key.as_str()) {
            value
                .as_object()
                .map(|m| m.iter().map(|(k, v)| (format!("{at}/{k}"), v)).collect())
                .unwrap_or_default()
        } else if SCHEMA_LISTS.contains(&key.as_str()) {
            value
                .as_array()
                .map(|l| {
                    l.iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{at}/{i}"), v))
                        .collect()
                })
                .unwrap_or_default()
        } else if SCHEMA_SINGLES.contains(&key.as_str()) {
            vec![(at.clone(), value)]
        } else {
            // `additionalProperties: false` stays (MCP-17/18/39; docs/mcp/tools.md); other keywords hold data.
            Vec::new()
        };
        for (sub_path, sub) in subschemas {
            if sub.is_boolean() {
                out.push(sub_path);
            } else {
                boolean_subschemas(sub, &sub_path, out);
            }
        }
    }
}

/// Portable schemas: no boolean schema where a sub-schema is expected, in the result
/// schema and so in every tool's `outputSchema` (the Inspector's `--strict` check of
/// `tools/list` runs in `mcp_inspector.rs`).
#[test]
fn the_result_schema_has_no_boolean_subschema() {
    let mut found = Vec::new();
    boolean_subschemas(&result_schema(), "", &mut found);
    assert!(found.is_empty(), "boolean sub-schemas at {found:?}");
    let mut probe = Vec::new();
    boolean_subschemas(
        &json!({ "properties": { "a": true, "b": { "items": false } }, "additionalProperties": false }),
        "",
        &mut probe,
    );
    assert_eq!(
        probe,
        ["/properties/a", "/properties/b/items"],
        "the scan sees them"
    );
}
