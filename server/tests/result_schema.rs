//! The result schema (MCP-39, MCP-61; docs/mcp/envelope.md, docs/mcp/resources.md): a valid draft 2020-12 document that accepts
//! every envelope the engine renders — all tools, every status, elided stacks — and
//! rejects envelopes that break the rules it encodes.

use ajisai_core::engine::{self, Options};
use ajisai_core::envelope::{check_json, compute_json, compute_json_within, infer_json};
use ajisai_core::json::HostFields;
use ajisai_core::render::{ERROR_STACK_BUDGET, VALUE_STACK_BUDGET};
use ajisai_core::word::{entry_json, registry};
use ajisai_core::Profile;
use ajisai_host::assets;
use serde_json::{json, Value as Json};

const ID: &str = "ajisai://schema/result";

fn link() {
    ajisai_host::backend::link();
}

fn schema() -> Json {
    serde_json::from_str(assets::result_schema_json()).expect("the schema asset is JSON")
}

/// A compiled validator of the result schema.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn new() -> Validator {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler.add_resource(ID, schema()).unwrap();
        let index = compiler
            .compile(ID, &mut schemas)
            .unwrap_or_else(|e| panic!("the result schema compiles: {e:#}"));
        Validator { schemas, index }
    }

    fn errors(&self, envelope: &Json) -> Option<String> {
        self.schemas
            .validate(envelope, self.index)
            .err()
            .map(|e| format!("{e:#}"))
    }

    fn accepts(&self, label: &str, envelope: &Json) {
        if let Some(e) = self.errors(envelope) {
            panic!("{label}: {envelope}\nis rejected: {e}");
        }
    }

    fn rejects(&self, label: &str, envelope: &Json) {
        assert!(
            self.errors(envelope).is_some(),
            "{label}: {envelope}\nis accepted"
        );
    }
}

fn mcp_block() -> Json {
    json!({
        "serverVersion": "0.1.0",
        "engineVersion": ajisai_core::ENGINE_VERSION,
        "assetDigest": assets::asset_digest(),
        "limitProfile": "mcp-local-stdio",
        "backend": { "kind": "pure", "library": "num-bigint 0.4", "origin": "builtin" }
    })
}

fn with_mcp() -> HostFields {
    HostFields::of(&json!({ "mcp": mcp_block() }))
}

fn parse(json: &str) -> Json {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

fn options() -> Options {
    Options::new(Profile::MCP_LOCAL_STDIO)
}

/// The server's `compute` envelope: fitted into the budget for its status.
fn compute(source: &str) -> Json {
    link();
    let r = engine::compute(source, &options());
    let budget = if r.error.is_some() {
        ERROR_STACK_BUDGET
    } else {
        VALUE_STACK_BUDGET
    };
    parse(&compute_json_within(&r, budget, &with_mcp()).json)
}

fn check(source: &str) -> Json {
    link();
    parse(&check_json(&engine::check(source, &options()), &with_mcp()))
}

fn infer(source: &str) -> Json {
    link();
    parse(&infer_json(
        &engine::infer_contracts(source, &options()),
        &with_mcp(),
    ))
}

fn word_contract_hit(name: &str) -> Json {
    link();
    let reg = registry();
    let spec = reg.spec(reg.lookup(name).expect("a registry Word"));
    let entry = parse(&entry_json(spec));
    json!({
        "schemaVersion": 9,
        "status": "ok",
        "specificationVersion": ajisai_core::SPECIFICATION_VERSION,
        "registrySchemaVersion": ajisai_core::word::REGISTRY_SCHEMA_VERSION,
        "matches": [entry],
        "mcp": mcp_block()
    })
}

fn word_contract_miss() -> Json {
    json!({
        "schemaVersion": 9,
        "status": "error",
        "specificationVersion": ajisai_core::SPECIFICATION_VERSION,
        "message": "Unknown word: LENGHT; closest: LENGTH",
        "error": { "category": "unknownWord", "word": "LENGHT" },
        "suggestions": ["LENGTH"],
        "mcp": mcp_block()
    })
}

fn host_error(code: &str, retryable: bool, limit: Option<&str>) -> Json {
    let mut error = json!({ "code": code, "message": "The request failed; see the code.", "retryable": retryable });
    if let Some(l) = limit {
        error["limit"] = json!(l);
    }
    if code == "capacityExhausted" {
        error["retryAfterMs"] = json!(1000);
    }
    json!({ "schemaVersion": 9, "status": "hostError", "error": error, "mcp": mcp_block() })
}

const HOST_ERRORS: [(&str, bool, Option<&str>); 10] = [
    ("invalidRequest", false, None),
    ("unknownTool", false, None),
    ("sourceTooLarge", false, Some("sourceBytes")),
    ("backendUnavailable", false, None),
    ("capacityExhausted", true, Some("concurrentExecutions")),
    ("timeout", true, Some("wallTimeMs")),
    ("responseTooLarge", false, Some("responseBytes")),
    ("malformedBackendResponse", false, None),
    ("backendFailure", false, None),
    ("registryUnavailable", false, None),
];

const COMPUTE_SOURCES: [&str; 24] = [
    "1 2 ADD",
    "2 3 DIV 1 3 DIV ADD",
    "1 0 DIV",
    "2 SQRT",
    "1 2 DIV SQRT",
    "2 SQRT 3 SQRT SUB 7 ADD NEG",
    "[ 1 2 DIV SQRT -3/4 [ 'x\"y' TRUE NIL { 1 | 2 } ] [ ] ]",
    "'héllo\tworld' 'x' PRINT [ 1 2 ] PRINT",
    "[ 1 2 3 ] LENGHT",
    "0 100001 RANGE",
    "0 7000 RANGE 1 2 ADD",
    "0 7000 RANGE 1 0 1 GET",
    "0 99999 RANGE { 2 * } MAP SUM",
    "-1 SQRT",
    "1 NIL-REASON",
    "",
    "# only a comment",
    "{ 2 * } 'DOUBLE' DEF 21 DOUBLE",
    "{ R } 'R' DEF R",
    "[ 1 2",
    "5 ^",
    "1 'a' +",
    "2 100000 POW 3 SQRT MUL 2 SQRT ADD",
    "[ 1 2 ] [ 1 2 3 ] +",
];

const CONTRACT_SOURCES: [&str; 6] = [
    "#:contract DOUBLE inputs=1 outputs=1 field=closed\n{ 2 * } 'DOUBLE' DEF 21 DOUBLE",
    "#:contract INC inputs=2\n{ [ 1 ] + } 'INC' DEF",
    "#:contract INC foo=1\n{ 1 + } 'INC' DEF",
    "#:contract CD inputs=1 outputs=1\n{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 3 CD",
    "#:contract W inputs=1\n{ NOPE 1 + } 'W' DEF",
    "#:contract GHOST inputs=1\n1",
];

#[test]
fn the_schema_is_a_valid_draft_2020_12_document() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["$id"], ID);
    // Validate the document against the draft 2020-12 metaschema explicitly.
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let meta = compiler
        .compile("https://json-schema.org/draft/2020-12/schema", &mut schemas)
        .unwrap();
    if let Err(e) = schemas.validate(&s, meta) {
        panic!("the result schema is not valid draft 2020-12: {e:#}");
    }
    Validator::new();
}

#[test]
fn closed_objects_are_closed_and_registry_entries_open() {
    let s = schema();
    assert_eq!(s["additionalProperties"], false);
    for def in [
        "mcp",
        "backend",
        "hostError",
        "languageError",
        "node",
        "semantics",
        "elided",
        "stackElided",
        "contractDecls",
        "contract",
        "preludeEntry",
    ] {
        assert_eq!(s["$defs"][def]["additionalProperties"], false, "{def}");
    }
    assert!(s["$defs"]["registryEntry"]
        .get("additionalProperties")
        .is_none());
    for path in [
        "/$defs/contractDecls/properties/findings/items",
        "/$defs/contractDecls/properties/declarations/items",
        "/$defs/stackElided/properties/slots/items",
    ] {
        assert_eq!(
            s.pointer(path).unwrap()["additionalProperties"],
            false,
            "{path}"
        );
    }
}

#[test]
fn outcome_ids_are_those_of_the_outcomes_registry() {
    let schema = schema();
    let outcomes: Json = serde_json::from_str(assets::outcomes_json()).unwrap();
    assert_eq!(schema["$defs"]["outcome"]["enum"], outcomes["outcomes"]);
    let from_spec: Json = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec/outcomes.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(schema["$defs"]["outcome"]["enum"], from_spec["outcomes"]);
    let categories: Vec<&str> = outcomes["errorCategories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        schema["$defs"]["languageError"]["properties"]["category"]["enum"],
        json!(categories)
    );
}

#[test]
fn every_rendered_envelope_validates() {
    let v = Validator::new();
    let mut statuses = std::collections::BTreeSet::new();
    for source in COMPUTE_SOURCES.iter().chain(&CONTRACT_SOURCES) {
        let env = compute(source);
        statuses.insert(format!("compute:{}", env["status"].as_str().unwrap()));
        v.accepts(&format!("compute `{source}`"), &env);
        let env = check(source);
        statuses.insert(format!("check:{}", env["status"].as_str().unwrap()));
        v.accepts(&format!("check `{source}`"), &env);
        let env = infer(source);
        statuses.insert(format!("infer:{}", env["status"].as_str().unwrap()));
        v.accepts(&format!("infer_contracts `{source}`"), &env);
    }
    for s in [
        "compute:ok",
        "compute:error",
        "check:ok",
        "check:error",
        "infer:ok",
        "infer:error",
    ] {
        assert!(statuses.contains(s), "{s} was observed");
    }
    // A long unknown name is echoed into the message, which stays within 1,000 characters.
    let long = compute(&"X".repeat(1500));
    v.accepts("a long unknown name", &long);
    let message = long["message"].as_str().unwrap();
    assert_eq!(message.chars().count(), 1000);
    assert!(message.starts_with("Unknown word: XXX") && message.ends_with('…'));
    assert_eq!(long["error"]["word"].as_str().unwrap().len(), 1500);
    for name in ["ADD", "MAP", "PRINT", "VENT", "INDEX-OF", "CONTRACT"] {
        v.accepts(name, &word_contract_hit(name));
    }
    v.accepts("word_contract miss", &word_contract_miss());
    for (code, retryable, limit) in HOST_ERRORS {
        v.accepts(code, &host_error(code, retryable, limit));
    }
    // The CLI's plain rendering of the same reports also fits once `mcp` is added.
    link();
    for source in COMPUTE_SOURCES {
        let r = engine::compute(source, &options());
        if r.stack.iter().all(|x| x.depth() <= 32) && !source.contains("7000") {
            v.accepts(source, &parse(&compute_json(&r, &with_mcp())));
        }
    }
}

#[test]
fn the_envelopes_cover_the_shapes_the_schema_describes() {
    // Guard against a vacuous corpus: the observed envelopes include these shapes.
    let elided = compute("0 7000 RANGE 1 2 ADD");
    assert_eq!(elided["stackElided"]["reason"], "valueStackBudget");
    let error_elided = compute("0 7000 RANGE 1 0 1 GET");
    assert_eq!(error_elided["stackElided"]["reason"], "errorStackBudget");
    let alg = compute("2 SQRT");
    assert_eq!(alg["stack"][0]["semantics"]["approximate"], true);
    let nil = compute("1 0 DIV");
    assert_eq!(nil["outcome"], "nil:divisionByZero");
    let violated = check(CONTRACT_SOURCES[1]);
    assert_eq!(
        violated["contractDecls"]["declarations"][0]["verdict"],
        "violated"
    );
    let unverifiable = check(CONTRACT_SOURCES[4]);
    assert_eq!(
        unverifiable["contractDecls"]["declarations"][0]["verdict"],
        "cannotVerify"
    );
    let limit = compute("0 100001 RANGE");
    assert_eq!(limit["error"]["resource"], "materializedElements");
    let inferred = infer("{ [ 1 ] + } 'INC' DEF");
    assert_eq!(
        inferred["contracts"][0]["suggested"],
        "#:contract INC inputs=1 outputs=1 field=closed"
    );
}

/// `f` applied to a copy of `base`.
fn edited(base: &Json, f: impl FnOnce(&mut Json)) -> Json {
    let mut e = base.clone();
    f(&mut e);
    e
}

#[test]
fn broken_envelopes_are_rejected() {
    let v = Validator::new();
    let ok = compute("1 2 ADD");
    let err = compute("[ 1 2 3 ] LENGHT");
    let alg = compute("2 SQRT");
    let nil = compute("1 0 DIV");
    let elided = compute("0 7000 RANGE 1 2 ADD");
    let host = host_error("timeout", true, Some("wallTimeMs"));
    let decls = check(CONTRACT_SOURCES[1]);
    v.accepts("ok", &ok);
    let cases: Vec<(&str, Json)> = vec![
        (
            "an unknown top-level field",
            edited(&ok, |e| e["extra"] = json!(1)),
        ),
        (
            "a null optional field",
            edited(&ok, |e| e["message"] = Json::Null),
        ),
        (
            "a message on ok",
            edited(&ok, |e| e["message"] = json!("x")),
        ),
        (
            "an error outcome on ok",
            edited(&ok, |e| e["outcome"] = json!("error:typeMismatch")),
        ),
        (
            "an unknown outcome",
            edited(&ok, |e| e["outcome"] = json!("nil:spaceExhausted")),
        ),
        (
            "no specificationVersion",
            edited(&ok, |e| {
                e.as_object_mut().unwrap().remove("specificationVersion");
            }),
        ),
        (
            "no mcp",
            edited(&ok, |e| {
                e.as_object_mut().unwrap().remove("mcp");
            }),
        ),
        (
            "an extra mcp field",
            edited(&ok, |e| e["mcp"]["limits"] = json!({})),
        ),
        (
            "a bad asset digest",
            edited(&ok, |e| e["mcp"]["assetDigest"] = json!("9c1e")),
        ),
        (
            "an unknown backend kind",
            edited(&ok, |e| e["mcp"]["backend"]["kind"] = json!("wasm")),
        ),
        (
            "a node presentation hint",
            edited(&ok, |e| e["stack"][0]["displayHint"] = json!("x")),
        ),
        (
            "a non-decimal numerator",
            edited(&ok, |e| e["stack"][0]["value"]["numerator"] = json!("0x3")),
        ),
        (
            "a zero denominator",
            edited(&ok, |e| e["stack"][0]["value"]["denominator"] = json!("0")),
        ),
        (
            "a stack without stackDisplay",
            edited(&ok, |e| {
                e.as_object_mut().unwrap().remove("stackDisplay");
            }),
        ),
        (
            "an error without message",
            edited(&err, |e| {
                e.as_object_mut().unwrap().remove("message");
            }),
        ),
        (
            "a multi-line message",
            edited(&err, |e| e["message"] = json!("a\nb")),
        ),
        (
            "a value outcome on error",
            edited(&err, |e| e["outcome"] = json!("value")),
        ),
        (
            "a host error form on a language error",
            edited(&err, |e| {
                e["error"] = json!({ "code": "timeout", "message": "m", "retryable": true });
            }),
        ),
        (
            "an unknown category",
            edited(&err, |e| {
                e["error"]["category"] = json!("executionLimitExceeded")
            }),
        ),
        (
            "a resource on a non-limit error",
            edited(&err, |e| e["error"]["resource"] = json!("executionSteps")),
        ),
        (
            "a line without column",
            edited(&err, |e| {
                e["error"].as_object_mut().unwrap().remove("column");
            }),
        ),
        (
            "approximate without exactTerms",
            edited(&alg, |e| {
                e["stack"][0]["semantics"]
                    .as_object_mut()
                    .unwrap()
                    .remove("exactTerms");
            }),
        ),
        (
            "a zero term coefficient",
            edited(&alg, |e| {
                e["stack"][0]["semantics"]["exactTerms"][0]["numerator"] = json!("0");
            }),
        ),
        (
            "a NIL without reason",
            edited(&nil, |e| {
                e["stack"][0].as_object_mut().unwrap().remove("semantics");
            }),
        ),
        (
            "a retired NIL reason",
            edited(&nil, |e| {
                e["stack"][0]["semantics"]["absence"]["reason"] = json!("emptySequence");
            }),
        ),
        (
            "a string node holding a number",
            edited(&ok, |e| e["stack"][0]["type"] = json!("string")),
        ),
        (
            "an unknown node type",
            edited(&ok, |e| e["stack"][0]["type"] = json!("float")),
        ),
        (
            "an elided node with a value",
            edited(&elided, |e| e["stack"][0]["value"] = json!([])),
        ),
        (
            "an elided node with semantics",
            edited(&elided, |e| {
                e["stack"][0]["semantics"] = json!({ "absence": { "reason": "literal" } });
            }),
        ),
        (
            "an unknown elision reason",
            edited(&elided, |e| e["stackElided"]["reason"] = json!("tooBig")),
        ),
        (
            "an empty elision list",
            edited(&elided, |e| e["stackElided"]["slots"] = json!([])),
        ),
        (
            "a host error with a stack",
            edited(&host, |e| e["stack"] = json!([])),
        ),
        (
            "a host error with specificationVersion",
            edited(&host, |e| {
                e["specificationVersion"] = json!("1.0.0-beta.2");
            }),
        ),
        (
            "a non-retryable timeout",
            edited(&host, |e| e["error"]["retryable"] = json!(false)),
        ),
        (
            "a timeout naming another limit",
            edited(&host, |e| e["error"]["limit"] = json!("responseBytes")),
        ),
        (
            "a timeout with retryAfterMs",
            edited(&host, |e| e["error"]["retryAfterMs"] = json!(1000)),
        ),
        (
            "an unknown host code",
            edited(&host, |e| e["error"]["code"] = json!("panic")),
        ),
        ("capacityExhausted without retryAfterMs", {
            let mut h = host_error("capacityExhausted", true, Some("concurrentExecutions"));
            h["error"].as_object_mut().unwrap().remove("retryAfterMs");
            h
        }),
        (
            "invalidRequest with a limit",
            edited(&host_error("invalidRequest", false, None), |e| {
                e["error"]["limit"] = json!("sourceBytes");
            }),
        ),
        (
            "an unknown verdict",
            edited(&decls, |e| {
                e["contractDecls"]["declarations"][0]["verdict"] = json!("maybe");
            }),
        ),
        (
            "an extra finding field",
            edited(&decls, |e| {
                e["contractDecls"]["findings"][0]["hint"] = json!("x");
            }),
        ),
        (
            "two matches",
            edited(&word_contract_hit("ADD"), |e| {
                let m = e["matches"][0].clone();
                e["matches"] = json!([m.clone(), m]);
            }),
        ),
        (
            "matches without registrySchemaVersion",
            edited(&word_contract_hit("ADD"), |e| {
                e.as_object_mut().unwrap().remove("registrySchemaVersion");
            }),
        ),
        (
            "empty suggestions",
            edited(&word_contract_miss(), |e| e["suggestions"] = json!([])),
        ),
        (
            "a malformed prelude digest",
            edited(&ok, |e| {
                e["prelude"] = json!([{ "name": "DOUBLE", "digest": "sha256:xyz" }]);
            }),
        ),
    ];
    for (label, envelope) in &cases {
        v.rejects(label, envelope);
    }
    // Registry entries stay open: a new field in an entry is accepted.
    v.accepts(
        "an extended registry entry",
        &edited(&word_contract_hit("ADD"), |e| {
            e["matches"][0]["since"] = json!("1.1")
        }),
    );
    // A well-formed prelude is accepted.
    v.accepts(
        "a prelude",
        &edited(&ok, |e| {
            e["prelude"] =
                json!([{ "name": "DOUBLE", "digest": format!("sha256:{}", "a".repeat(64)) }]);
        }),
    );
}
