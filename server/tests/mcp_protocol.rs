//! The built `ajisai-mcp-server` over real stdio with the rmcp client: initialize, the
//! tool list, every tool's result shapes, host errors, resources and the Word template,
//! determinism, response fitting and sizes.

use crate::mcp_support;

use ajisai_service::tools::{ToolKind, ToolSpec};
use mcp_support::*;
use rmcp::model::{ErrorCode, ReadResourceRequestParams};
use rmcp::service::ServiceError;
use serde_json::{json, Value};

fn without_descriptions(mut v: Value) -> Value {
    if let Some(props) = v.get_mut("properties").and_then(Value::as_object_mut) {
        for p in props.values_mut() {
            if let Some(o) = p.as_object_mut() {
                assert!(
                    o.remove("description")
                        .and_then(|d| d.as_str().map(str::len))
                        > Some(20),
                    "every argument is described"
                );
            }
        }
    }
    v
}

/// Revision 2026-07-28 over stdio: the rmcp client in `Discover` mode lists, calls every
/// tool and reads resources with the envelopes of the initialize lifecycle.
#[tokio::test]
async fn the_2026_07_28_lifecycle_is_served_over_stdio() {
    let modern = spawn_discovering().await;
    let legacy = spawn().await;
    assert_eq!(
        modern.peer_info().map(|i| i.protocol_version.to_string()),
        Some("2026-07-28".to_string())
    );
    assert_eq!(
        modern.list_all_tools().await.expect("tools/list").len(),
        ToolSpec::ALL.len()
    );
    for (tool, args) in [
        ("compute", json!({"source": "2 3 DIV 1 3 DIV ADD"})),
        ("compute", json!({"source": "1 0 DIV"})),
        ("check", json!({"source": "1 2 ADD"})),
        ("infer_contracts", json!({"source": "{ 1 ADD } 'INC' DEF"})),
        ("word_contract", json!({"word": "ADD"})),
        ("no_such_tool", json!({})),
    ] {
        let a = call_raw(&modern, tool, args.clone()).await;
        check_form(&a);
        let b = call_raw(&legacy, tool, args).await;
        assert_eq!(text(&a), text(&b), "{tool}");
    }
    let (_, limits) = read(&modern, "ajisai://limits").await;
    assert!(
        limits.contains("\"profile\":\"mcp-local-stdio\""),
        "{limits}"
    );
    for c in [modern, legacy] {
        let _ = c.cancel().await;
    }
}

#[tokio::test]
async fn initialize_announces_the_server() {
    let client = spawn().await;
    let info = client.peer_info().expect("initialized");
    let info = serde_json::to_value(&*info).expect("serializes");
    assert_eq!(info["serverInfo"]["name"], "ajisai");
    assert_eq!(info["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        info["capabilities"],
        json!({
            "resources": { "subscribe": false, "listChanged": false },
            "tools": { "listChanged": false }
        })
    );
    assert!(info["protocolVersion"].as_str().expect("a version") >= "2025-06-18");
    let instructions = info["instructions"].as_str().expect("instructions");
    assert!(instructions.contains("ajisai://guide/quickstart"));
    assert!(instructions.contains("postfix"));
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn tools_are_listed_in_order_with_exact_schemas() {
    let client = spawn().await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let listed: Vec<&str> = ToolSpec::ALL.iter().map(|t| t.name).collect();
    assert_eq!(names, listed);
    let titles: Vec<&str> = tools.iter().filter_map(|t| t.title.as_deref()).collect();
    let declared: Vec<&str> = ToolSpec::ALL.iter().map(|t| t.title).collect();
    assert_eq!(titles, declared);
    let (_, schema_text) = read(&client, "ajisai://schema/result").await;
    let schema: Value = serde_json::from_str(&schema_text).expect("the schema is JSON");
    let source_schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "source": { "type": "string", "minLength": 1, "maxLength": 65536 },
            "words": {
                "type": "array",
                "items": { "type": "string", "minLength": 1, "maxLength": 64 },
                "uniqueItems": true,
                "maxItems": 64
            }
        },
        "required": ["source"]
    });
    let word_schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": { "word": { "type": "string", "minLength": 1, "maxLength": 64 } },
        "required": ["word"]
    });
    for tool in &tools {
        let input = Value::Object((*tool.input_schema).clone());
        // Key order matters to readers too: type, additionalProperties, properties, required.
        let keys: Vec<&String> = tool.input_schema.keys().collect();
        assert_eq!(
            keys,
            ["type", "additionalProperties", "properties", "required"]
        );
        let runs_source = ToolKind::from_name(&tool.name).is_some_and(ToolKind::is_source_tool);
        let expected = if runs_source {
            &source_schema
        } else {
            &word_schema
        };
        assert_eq!(&without_descriptions(input), expected, "{}", tool.name);
        let output =
            Value::Object((**tool.output_schema.as_ref().expect("an outputSchema")).clone());
        assert_eq!(output, schema, "outputSchema equals ajisai://schema/result");
        let a = tool.annotations.as_ref().expect("annotations");
        assert_eq!(a.title.as_deref(), tool.title.as_deref());
        assert_eq!(
            (
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint
            ),
            (Some(true), Some(false), Some(true), Some(false))
        );
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 100));
    }
    let source_description = tools[0].input_schema["properties"]["source"]["description"]
        .as_str()
        .expect("described");
    assert!(source_description.contains("UTF-8 bytes"));
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn compute_answers_values_nils_and_errors() {
    let client = spawn().await;
    let v = compute(&client, "1 2 ADD").await;
    let mut without_mcp = v.clone();
    without_mcp.as_object_mut().expect("object").remove("mcp");
    assert_eq!(
        serde_json::to_string(&without_mcp).expect("serializes"),
        r#"{"schemaVersion":9,"status":"ok","outcome":"value","specificationVersion":"1.0.0-beta.2","stack":[{"type":"number","value":{"numerator":"3","denominator":"1"}}],"stackDisplay":["3/1"],"output":[],"resourceUsage":{"executionSteps":1,"numericWork":1,"collectionWork":0}}"#
    );
    assert_eq!(v["mcp"]["serverVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["mcp"]["engineVersion"], ajisai_core::ENGINE_VERSION);
    assert_eq!(v["mcp"]["limitProfile"], "mcp-local-stdio");
    assert_eq!(v["mcp"]["assetDigest"].as_str().map(str::len), Some(64));
    let backend = v["mcp"]["backend"].as_object().expect("backend");
    assert_eq!(
        backend.keys().collect::<Vec<_>>(),
        ["kind", "library", "origin"]
    );
    assert_eq!(
        Value::Object(backend.clone()),
        serde_json::to_value(ajisai_core::numerics::process().provenance()).expect("json")
    );

    let v = compute(&client, "1 2 add").await;
    assert_eq!(
        v["stackDisplay"],
        json!(["3/1"]),
        "names are case-insensitive"
    );

    let v = compute(&client, "2 SQRT").await;
    assert_eq!(v["stackDisplay"], json!(["sqrt(2)"]));
    assert_eq!(
        v["stack"][0]["semantics"],
        json!({"approximate": true, "exactTerms": [{"numerator":"1","denominator":"1","radicand":"2"}]})
    );
    assert_eq!(
        v["stack"][0]["value"],
        json!({"numerator": "768398401", "denominator": "543339720"})
    );

    let v = compute(&client, "1 0 DIV").await;
    assert_eq!(v["status"], "ok");
    assert_eq!(v["outcome"], "nil:divisionByZero");
    assert_eq!(
        v["stack"][0],
        json!({"type":"nil","value":null,"semantics":{"absence":{"reason":"divisionByZero"}}})
    );

    let v = compute(&client, "[ 1 2 3 ] LENGHT").await;
    assert_eq!(v["status"], "error");
    assert_eq!(v["outcome"], "error:unknownWord");
    assert_eq!(v["message"], "Unknown word: LENGHT; closest: LENGTH");
    assert_eq!(
        v["error"],
        json!({"category":"unknownWord","word":"LENGHT","line":1,"column":11})
    );
    assert_eq!(v["stackDisplay"], json!(["[ 1/1 2/1 3/1 ]"]));

    let v = compute(&client, "0 100001 RANGE").await;
    assert_eq!(v["outcome"], "error:resourceLimitExceeded");
    assert_eq!(
        v["message"],
        "materializedElements of 100002 exceeds the limit of 100000"
    );
    assert_eq!(v["error"]["resource"], "materializedElements");
    assert_eq!(v["error"]["word"], "RANGE");
    assert_eq!(v["stackDisplay"], json!(["0/1", "100001/1"]));

    let v = compute(&client, "'hi' PRINT 7").await;
    assert_eq!(v["output"], json!(["hi"]));
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(
        keys,
        [
            "schemaVersion",
            "status",
            "outcome",
            "specificationVersion",
            "stack",
            "stackDisplay",
            "output",
            "resourceUsage",
            "mcp"
        ]
    );
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn check_and_infer_contracts_answer_about_form() {
    let client = spawn().await;
    let src = "{ FOO } 'BAR' DEF 1";
    let checked = call(&client, "check", json!({ "source": src })).await;
    assert_eq!(checked["status"], "error");
    assert_eq!(checked["error"]["category"], "unknownWord");
    assert_eq!(checked["error"]["word"], "FOO");
    assert!(checked.get("outcome").is_none() && checked.get("stack").is_none());
    let run = compute(&client, src).await;
    assert_eq!(run["status"], "ok", "check is stricter than execution");

    let ok = call(&client, "check", json!({ "source": "1 2 ADD" })).await;
    assert_eq!(
        ok.as_object().expect("object").keys().collect::<Vec<_>>(),
        ["schemaVersion", "status", "specificationVersion", "mcp"]
    );

    let inferred = call(
        &client,
        "infer_contracts",
        json!({ "source": "{ [ 1 ] + } 'INC' DEF" }),
    )
    .await;
    assert_eq!(inferred["status"], "ok");
    assert_eq!(
        inferred["contracts"],
        json!([{"name":"INC","inputs":1,"outputs":1,"field":"closed","suggested":"#:contract INC inputs=1 outputs=1 field=closed"}])
    );

    let bad = call(&client, "infer_contracts", json!({ "source": "[ 1 2" })).await;
    assert_eq!(bad["status"], "error");
    assert_eq!(bad["error"]["category"], "malformedSource");
    let bad_check = call(&client, "check", json!({ "source": "[ 1 2" })).await;
    assert_eq!(bad["message"], bad_check["message"]);
    assert_eq!(bad["error"], bad_check["error"]);

    let violated = call(
        &client,
        "check",
        json!({ "source": "#:contract INC inputs=2\n{ [ 1 ] + } 'INC' DEF" }),
    )
    .await;
    assert_eq!(violated["error"]["category"], "contractViolation");
    assert_eq!(
        violated["contractDecls"]["declarations"],
        json!([{"word":"INC","verdict":"violated"}])
    );
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn word_contract_finds_words_and_suggests_near_misses() {
    let client = spawn().await;
    let (_, registry) = read(&client, "ajisai://contracts").await;
    let registry: Value = serde_json::from_str(&registry).expect("JSON");
    let entry = |name: &str| {
        registry["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["name"] == name)
            .cloned()
            .expect("in the registry")
    };
    for (written, canonical) in [
        ("map", "MAP"),
        ("+", "ADD"),
        (" Index-Of ", "INDEX-OF"),
        ("/", "DIV"),
    ] {
        let v = call(&client, "word_contract", json!({ "word": written })).await;
        assert_eq!(v["status"], "ok", "{written}");
        assert_eq!(
            v["registrySchemaVersion"],
            registry["registrySchemaVersion"]
        );
        assert_eq!(v["matches"], json!([entry(canonical)]), "{written}");
        assert_eq!(
            v.as_object().expect("object").keys().collect::<Vec<_>>(),
            [
                "schemaVersion",
                "status",
                "specificationVersion",
                "registrySchemaVersion",
                "matches",
                "mcp"
            ]
        );
    }
    let miss = call(&client, "word_contract", json!({ "word": "LENGHT" })).await;
    let mut without_mcp = miss.clone();
    without_mcp.as_object_mut().expect("object").remove("mcp");
    assert_eq!(
        serde_json::to_string(&without_mcp).expect("serializes"),
        r#"{"schemaVersion":9,"status":"error","specificationVersion":"1.0.0-beta.2","message":"Unknown word: LENGHT; closest: LENGTH","error":{"category":"unknownWord","word":"LENGHT"},"suggestions":["LENGTH"]}"#
    );
    let far = call(&client, "word_contract", json!({ "word": "XYZZYQQ" })).await;
    assert_eq!(far["message"], "Unknown word: XYZZYQQ");
    assert!(
        far.get("suggestions").is_none(),
        "empty suggestions are omitted"
    );
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn host_errors_reachable_without_fault_injection() {
    let client = spawn().await;
    let mut messages = Vec::new();
    let mut host = |v: &Value, code: &str| {
        assert_eq!(v["status"], "hostError", "{v}");
        assert_eq!(v["error"]["code"], code, "{v}");
        assert_eq!(
            v.as_object().expect("object").keys().collect::<Vec<_>>(),
            ["schemaVersion", "status", "error", "mcp"]
        );
        messages.push(
            v["error"]["message"]
                .as_str()
                .expect("a message")
                .to_string(),
        );
    };
    let v = call(&client, "compute", json!({ "source": "1", "extra": true })).await;
    host(&v, "invalidRequest");
    assert_eq!(
        v["error"],
        json!({"code":"invalidRequest","message":"Unknown argument `extra` for compute; accepted: source, words.","retryable":false})
    );
    let v = call(&client, "evaluate", json!({ "source": "1" })).await;
    host(&v, "unknownTool");
    assert_eq!(
        v["error"]["message"],
        "Unknown tool `evaluate`; available tools: compute, check, infer_contracts, word_contract."
    );
    let v = call(&client, "compute", json!({ "source": " ".repeat(65_537) })).await;
    host(&v, "sourceTooLarge");
    assert_eq!(
        v["error"],
        json!({"code":"sourceTooLarge","message":"Source exceeds the 65536-byte limit (counted in UTF-8 bytes, not characters).","retryable":false,"limit":"sourceBytes"})
    );
    let v = call(&client, "check", json!({ "source": "é".repeat(32_769) })).await;
    host(&v, "sourceTooLarge");
    let v = compute(&client, &" ".repeat(65_536)).await;
    assert_eq!(v["status"], "ok", "65,536 bytes are accepted");
    let v = call(&client, "compute", json!({})).await;
    host(&v, "invalidRequest");
    let v = call(&client, "infer_contracts", json!({ "source": 12 })).await;
    host(&v, "invalidRequest");
    let v = call(&client, "compute", json!({ "source": "" })).await;
    host(&v, "invalidRequest");
    let v = call(
        &client,
        "compute",
        json!({ "source": "1", "words": ["DOUBLE"] }),
    )
    .await;
    host(&v, "invalidRequest");
    assert!(v["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("DOUBLE")));
    let v = call(&client, "compute", json!({ "source": "1", "words": [] })).await;
    assert_eq!(v["status"], "ok", "an empty words list is fine");
    assert!(v.get("prelude").is_none());
    let v = call(&client, "word_contract", json!({ "word": "   " })).await;
    host(&v, "invalidRequest");
    let v = call(&client, "word_contract", json!({ "name": "ADD" })).await;
    host(&v, "invalidRequest");
    for m in &messages {
        assert_hygienic(m);
    }
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn resources_and_the_word_template() {
    let client = spawn().await;
    let listed = client.list_all_resources().await.expect("resources/list");
    let uris: Vec<(&str, Option<&str>)> = listed
        .iter()
        .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        uris,
        [
            ("ajisai://guide/quickstart", Some("text/markdown")),
            ("ajisai://vocabulary", Some("application/json")),
            ("ajisai://contracts", Some("application/json")),
            ("ajisai://schema/result", Some("application/json")),
            ("ajisai://limits", Some("application/json")),
            ("ajisai://phrasebook", Some("text/plain")),
        ]
    );
    for r in &listed {
        assert!(r.title.is_some() && r.description.is_some(), "{}", r.uri);
        let (mime, text) = read(&client, &r.uri).await;
        assert_eq!(Some(mime.as_str()), r.mime_type.as_deref());
        assert_no_host_detail(&text);
        if mime == "application/json" {
            let v: Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(
                serde_json::to_string(&v).expect("serializes"),
                text.trim_end(),
                "{} is compact",
                r.uri
            );
        }
    }
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("templates/list");
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "ajisai://words/{name}");
    assert_eq!(templates[0].mime_type.as_deref(), Some("application/json"));

    let (_, vocabulary) = read(&client, "ajisai://vocabulary").await;
    let vocabulary: Value = serde_json::from_str(&vocabulary).expect("JSON");
    let entries = vocabulary["entries"].as_array().expect("entries");
    let documented: Vec<_> = ajisai_words::registry().documented().collect();
    let aliases: usize = documented.iter().map(|s| s.aliases.len()).sum();
    assert_eq!(entries.len(), documented.len() + aliases);
    assert_eq!(
        entries.iter().filter(|e| e["kind"] == "alias").count(),
        aliases
    );

    let (_, registry) = read(&client, "ajisai://contracts").await;
    let version = std::process::Command::new(BIN)
        .arg("--version")
        .env_remove("AJISAI_NUMERICS")
        .output()
        .expect("--version runs");
    let version = String::from_utf8(version.stdout).expect("UTF-8");
    assert!(version.contains(&format!(
        "registry: {}",
        ajisai_host::content::sha256_hex(registry.as_bytes())
    )));

    let (_, limits) = read(&client, "ajisai://limits").await;
    let limits: Value = serde_json::from_str(&limits).expect("JSON");
    let profile = ajisai_core::Profile::MCP_LOCAL_STDIO;
    for limit in ajisai_core::Limit::ALL {
        assert_eq!(
            limits["limits"][limit.name()].as_u64(),
            profile.get(limit),
            "{}",
            limit.name()
        );
        assert!(limits["units"][limit.name()].is_string());
    }
    assert_eq!(limits["profile"], "mcp-local-stdio");
    assert_eq!(limits["capacityWaitMs"], 1000);
    assert_eq!(
        limits["stackBudgets"],
        json!({"valueStackBytes": 450560, "errorStackBytes": 65536})
    );
    assert_eq!(
        limits["otherProfiles"]["cli-local"]["materializedElements"],
        1_000_000
    );

    // The template answers exactly what word_contract answers.
    for (uri, word) in [
        ("ajisai://words/+", "+"),
        ("ajisai://words/%2B", "+"),
        ("ajisai://words/%2F", "/"),
        ("ajisai://words/add", "add"),
        ("ajisai://words/INDEX-OF", "INDEX-OF"),
        ("ajisai://words/LENGHT", "LENGHT"),
        ("ajisai://words/%E3%81%82", "あ"),
    ] {
        let (mime, from_template) = read(&client, uri).await;
        assert_eq!(mime, "application/json");
        let from_tool = text(&call_raw(&client, "word_contract", json!({ "word": word })).await);
        assert_eq!(from_template, from_tool, "{uri}");
    }
    let (_, div) = read(&client, "ajisai://words/%2f").await;
    assert!(div.contains("\"name\":\"DIV\""));

    for (uri, code) in [
        ("ajisai://words/%zz", ErrorCode::INVALID_PARAMS),
        ("ajisai://words/%E3%81", ErrorCode::INVALID_PARAMS),
        ("ajisai://words/%20", ErrorCode::INVALID_PARAMS),
        ("ajisai://words/", ErrorCode::INVALID_PARAMS),
        ("ajisai://nothing", ErrorCode::RESOURCE_NOT_FOUND),
    ] {
        match client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Err(ServiceError::McpError(e)) => {
                assert_eq!(e.code, code, "{uri}");
                if code == ErrorCode::INVALID_PARAMS {
                    assert!(e.message.starts_with("invalidRequest: "), "{}", e.message);
                    assert_eq!(e.data, Some(json!({"code": "invalidRequest"})));
                } else {
                    assert!(e.message.contains(uri));
                }
            }
            other => panic!("{uri}: expected a JSON-RPC error, got {other:?}"),
        }
    }
    let long = format!("ajisai://{}", "x".repeat(500));
    match client
        .read_resource(ReadResourceRequestParams::new(long.clone()))
        .await
    {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
            assert_eq!(
                e.data,
                Some(json!({"uri": long.chars().take(200).collect::<String>()}))
            );
        }
        other => panic!("expected resource not found, got {other:?}"),
    }
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn the_same_call_answers_byte_identically() {
    let client = spawn().await;
    for (tool, args) in [
        (
            "compute",
            json!({ "source": "[ 3 1 2 ] SORT 2 SQRT 0.1 'x' PRINT" }),
        ),
        ("check", json!({ "source": "{ 1 + } 'INC' DEF" })),
        (
            "infer_contracts",
            json!({ "source": "{ 1 + } 'INC' DEF { INC INC } 'INC2' DEF" }),
        ),
        ("word_contract", json!({ "word": "fold" })),
        ("compute", json!({ "source": "1", "oops": 1 })),
    ] {
        let a = text(&call_raw(&client, tool, args.clone()).await);
        let b = text(&call_raw(&client, tool, args).await);
        assert_eq!(a, b, "{tool}");
    }
    let other = spawn().await;
    let a = text(&call_raw(&client, "compute", json!({ "source": "2 SQRT 3 SQRT SUB" })).await);
    let b = text(&call_raw(&other, "compute", json!({ "source": "2 SQRT 3 SQRT SUB" })).await);
    assert_eq!(a, b, "across processes");
    client.cancel().await.expect("closes");
    other.cancel().await.expect("closes");
}

#[tokio::test]
async fn large_stacks_arrive_whole_up_to_the_budget() {
    let client = spawn().await;
    let r = call_raw(&client, "compute", json!({ "source": "0 4999 RANGE" })).await;
    let v = envelope(&r);
    assert_eq!(v["status"], "ok");
    assert!(v.get("stackElided").is_none());
    assert_eq!(v["stack"][0]["value"].as_array().map(Vec::len), Some(5000));
    let (bytes, _) = sizes(&r);
    assert!(bytes <= 1_048_576, "{bytes}");

    // Too large for the value-stack budget: the vector is elided, the answer arrives.
    let r = call_raw(
        &client,
        "compute",
        json!({ "source": "0 7000 RANGE 1 2 ADD" }),
    )
    .await;
    let v = envelope(&r);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["outcome"], "value");
    let elided = &v["stack"][0]["elided"];
    assert_eq!(v["stack"][0]["value"], Value::Null);
    assert_eq!(
        (
            &elided["reason"],
            &elided["elements"],
            &elided["approxBytes"]
        ),
        (&json!("valueStackBudget"), &json!(7001), &json!(501884))
    );
    // Its first and last elements arrive in its record (envelope 9).
    assert_eq!(elided["head"][0]["value"]["numerator"], "0");
    assert_eq!(elided["tail"][4]["value"]["numerator"], "7000");
    assert_eq!(
        v["stackDisplay"],
        json!(["<elided vector of 7001 elements, ~501884 bytes>", "3/1"])
    );
    assert_eq!(
        v["stackElided"],
        json!({"reason":"valueStackBudget","budgetBytes":450560,"slots":[{"index":0,"elements":7001,"approxBytes":501884}]})
    );
    assert_eq!(
        v["stack"][1]["value"],
        json!({"numerator":"3","denominator":"1"})
    );
    assert!(sizes(&r).0 <= 1_048_576);

    // An error keeps only what fits the error-stack budget.
    let v = compute(&client, "0 4999 RANGE 'x' 1 ADD").await;
    assert_eq!(v["status"], "error");
    assert_eq!(v["error"]["category"], "typeMismatch");
    assert_eq!(v["stackElided"]["reason"], "errorStackBudget");
    assert_eq!(v["stackElided"]["budgetBytes"], 65536);
    assert_eq!(v["stack"][0]["elided"]["reason"], "errorStackBudget");
    assert_eq!(v["stackDisplay"][1], "'x'");
    client.cancel().await.expect("closes");
}

/// `1 2 ADD` and the seven cases of MCP-91 (docs/mcp/verification.md): response and text-block sizes.
#[tokio::test]
async fn response_sizes_stay_within_the_budget() {
    let client = spawn().await;
    let cases = [
        ("1 2 ADD", "compute", json!({ "source": "1 2 ADD" })),
        ("exact-fraction", "compute", json!({ "source": "1 3 /" })),
        (
            "decimal-no-float",
            "compute",
            json!({ "source": "0.1 0.2 +" }),
        ),
        ("algebraic-sqrt", "compute", json!({ "source": "2 SQRT" })),
        (
            "vector-broadcast",
            "compute",
            json!({ "source": "[ 1 2 ] 10 +" }),
        ),
        (
            "static-check",
            "check",
            json!({ "source": "{ [ 1 ] + } 'INC' DEF" }),
        ),
        (
            "contract-inference",
            "infer_contracts",
            json!({ "source": "{ [ 1 ] + } 'INC' DEF" }),
        ),
        ("word-contract", "word_contract", json!({ "word": "MAP" })),
    ];
    let mut response_sizes = Vec::new();
    for (name, tool, args) in cases {
        let r = call_raw(&client, tool, args).await;
        let (bytes, text_bytes) = sizes(&r);
        println!("{name}: response {bytes} bytes, text block {text_bytes} bytes");
        if name == "1 2 ADD" {
            assert!(bytes <= 1_300, "1 2 ADD answers in {bytes} bytes");
        } else {
            response_sizes.push(bytes);
        }
    }
    response_sizes.sort_unstable();
    println!("median of the seven: {} bytes", response_sizes[3]);
    client.cancel().await.expect("closes");
}

/// A client that renders only text can tell the four kinds of answer apart (MCP-87).
#[tokio::test]
async fn the_text_alone_tells_the_outcomes_apart() {
    let client = spawn().await;
    let cases = [
        ("1 2 ADD", "\"status\":\"ok\",\"outcome\":\"value\""),
        (
            "1 0 DIV",
            "\"status\":\"ok\",\"outcome\":\"nil:divisionByZero\"",
        ),
        (
            "1 'a' ADD",
            "\"status\":\"error\",\"outcome\":\"error:typeMismatch\"",
        ),
        ("", "\"status\":\"hostError\""),
    ];
    for (source, marker) in cases {
        let t = text(&call_raw(&client, "compute", json!({ "source": source })).await);
        assert!(t.contains(marker), "{source:?}: {t}");
    }
    client.cancel().await.expect("closes");
}
