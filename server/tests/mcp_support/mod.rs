//! Shared helpers of the MCP server tests: an rmcp client on the built binary over real
//! stdio, or on an in-process server with injected limits, and checks every tool result
//! must pass (MCP-25..27; docs/mcp/envelope.md).

#![allow(dead_code)]

use ajisai_server::mcp::protocol::handler::Handler;
use ajisai_server::mcp::{AjisaiServer, ServerOptions};
use ajisai_service::result::ToolAnswer;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::Value;
use std::process::Stdio;
use std::sync::OnceLock;

/// The result schema, compiled once.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

fn validator() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value = serde_json::from_str(ajisai_host::assets::result_schema_json())
            .expect("the schema asset is JSON");
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource("ajisai://schema/result", schema)
            .expect("the schema is accepted");
        let index = compiler
            .compile("ajisai://schema/result", &mut schemas)
            .expect("the result schema compiles");
        Validator { schemas, index }
    })
}

/// Every observed result validates against the result schema (MCP-39).
pub fn assert_schema_valid(envelope: &Value) {
    let v = validator();
    if let Err(e) = v.schemas.validate(envelope, v.index) {
        panic!("the envelope does not validate: {e:#}\n{envelope}");
    }
}

/// A connected client.
pub type Client = RunningService<RoleClient, ()>;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");

/// Spawn the built server (with `AJISAI_*` removed and stderr discarded) and connect.
pub async fn spawn() -> Client {
    spawn_with_env(&[]).await
}

/// Spawn the built server with extra environment variables and connect.
pub async fn spawn_with_env(env: &[(&str, &str)]) -> Client {
    connect(command(env)).await
}

/// Spawn the built server with command-line `args` and extra environment variables, and
/// connect.
pub async fn spawn_with_args(args: &[&str], env: &[(&str, &str)]) -> Client {
    let mut cmd = command(env);
    cmd.args(args);
    connect(cmd).await
}

/// Run an end-to-end client script (`AJISAI_*` removed from its environment) that prints
/// a JSON summary as its last stdout line; the summary. Panics with its output when it
/// fails.
pub fn run_summary(mut cmd: std::process::Command, what: &str) -> Value {
    for v in [
        "AJISAI_NUMERICS",
        "AJISAI_NUMERICS_PLUGIN",
        "AJISAI_PHRASEBOOK",
        "AJISAI_HTTP_TOKEN",
    ] {
        cmd.env_remove(v);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{what} runs: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stderr),
        stdout
    );
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("{what} prints a JSON summary: {stdout}"));
    println!("{what}: {summary}");
    summary
}

/// Connect the rmcp client to a Streamable HTTP endpoint (the initialize lifecycle).
pub async fn connect_http(url: &str) -> Client {
    ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
        url.to_string(),
    ))
    .await
    .expect("the client initializes over HTTP")
}

/// Spawn the built server in the working directory `dir` with extra environment
/// variables and connect.
pub async fn spawn_in(dir: &std::path::Path, env: &[(&str, &str)]) -> Client {
    let mut cmd = command(env);
    cmd.current_dir(dir);
    connect(cmd).await
}

/// The server's command: `AJISAI_*` removed, then `env` set.
fn command(env: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_NUMERICS_PLUGIN")
        .env_remove("AJISAI_PHRASEBOOK");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Start `cmd` with stderr discarded and initialize an rmcp client over its stdio.
async fn connect(cmd: tokio::process::Command) -> Client {
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    ().serve(transport).await.expect("initialize succeeds")
}

/// Spawn the built server and connect with the 2026-07-28 lifecycle: `server/discover`
/// and self-contained requests with per-request `_meta`, no `initialize`.
pub async fn spawn_discovering() -> Client {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let (transport, _stderr) = TokioChildProcess::builder(command(&[]))
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    ().serve_with_lifecycle(
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("discover succeeds")
}

/// Start an in-process server with `options` and connect to it over an in-memory pipe.
pub async fn in_process(options: ServerOptions) -> Client {
    ajisai_host::backend::link();
    let server = AjisaiServer::new(options);
    let (client_io, server_io) = tokio::io::duplex(16 << 20);
    tokio::spawn(async move {
        if let Ok(service) = Handler::new(server).serve(server_io).await {
            let _ = service.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize succeeds")
}

/// The arguments object of a JSON value.
pub fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// Call a tool and check the result's form; returns the result.
pub async fn call_raw(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(object(args));
    let result = client.call_tool(params).await.expect("tools/call answers");
    check_form(&result);
    result
}

/// Call a tool and return its envelope (`structuredContent`).
pub async fn call(client: &Client, tool: &str, args: Value) -> Value {
    envelope(&call_raw(client, tool, args).await)
}

/// `compute` on `source`.
pub async fn compute(client: &Client, source: &str) -> Value {
    call(client, "compute", serde_json::json!({ "source": source })).await
}

/// The envelope of a result.
pub fn envelope(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("every result has structuredContent")
}

/// The envelope of a service's answer.
pub fn answer_envelope(answer: &ToolAnswer) -> Value {
    serde_json::from_str(answer.envelope()).expect("an envelope is JSON")
}

/// The text block of a result.
pub fn text(result: &CallToolResult) -> String {
    assert_eq!(result.content.len(), 1, "exactly one content block");
    result.content[0]
        .as_text()
        .expect("the content block is text")
        .text
        .clone()
}

/// The byte size of a result as MCP-52 measures it (a JavaScript client's
/// `JSON.stringify(result)`), and of its text block.
pub fn sizes(result: &CallToolResult) -> (usize, usize) {
    let mut r = result.clone();
    r.result_type = None;
    (
        serde_json::to_string(&r).expect("serializes").len(),
        text(result).len(),
    )
}

/// MCP-25..27: one text block with the compact JSON of `structuredContent`; `isError`
/// only on host errors; no `null` except the `value` of a NIL node or an elided slot.
pub fn check_form(result: &CallToolResult) {
    let env = envelope(result);
    let text = text(result);
    let parsed: Value = serde_json::from_str(&text).expect("the text block is JSON");
    assert_eq!(parsed, env, "the text mirror equals structuredContent");
    assert_eq!(
        serde_json::to_string(&env).expect("serializes"),
        text,
        "the text block is the compact serialization"
    );
    let host_error = env["status"] == "hostError";
    assert_eq!(
        result.is_error,
        host_error.then_some(true),
        "isError iff hostError: {text}"
    );
    assert_no_stray_nulls(&env, "");
    assert_schema_valid(&env);
    // The provenance block comes last.
    let keys: Vec<&String> = env.as_object().expect("object").keys().collect();
    assert_eq!(keys.last().map(|k| k.as_str()), Some("mcp"), "{text}");
    let mcp_keys: Vec<&str> = env["mcp"]
        .as_object()
        .expect("mcp is an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        mcp_keys,
        [
            "serverVersion",
            "engineVersion",
            "assetDigest",
            "limitProfile",
            "backend"
        ]
    );
}

fn assert_no_stray_nulls(v: &Value, path: &str) {
    match v {
        Value::Null => panic!("null at {path}"),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_no_stray_nulls(item, &format!("{path}/{i}"));
            }
        }
        Value::Object(m) => {
            let nullable_value = m.get("type").is_some()
                && (m.get("type") == Some(&Value::String("nil".into()))
                    || m.contains_key("elided"));
            for (k, item) in m {
                if k == "value" && item.is_null() && nullable_value {
                    continue;
                }
                assert_no_stray_nulls(item, &format!("{path}/{k}"));
            }
        }
        _ => {}
    }
}

/// Read a resource: `(mime type, text)`.
pub async fn read(client: &Client, uri: &str) -> (String, String) {
    let r = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("reading {uri} fails: {e}"));
    assert_eq!(r.contents.len(), 1, "one contents item");
    match &r.contents[0] {
        ResourceContents::TextResourceContents {
            uri: u,
            mime_type,
            text,
            ..
        } => {
            assert_eq!(u, uri);
            (mime_type.clone().unwrap_or_default(), text.clone())
        }
        other => panic!("not a text resource: {other:?}"),
    }
}

/// Resources carry no host detail (MCP-44; docs/mcp/host-errors.md): no environment names, panics or source
/// locations. (Their examples legitimately contain `/`, so paths are not checked here.)
pub fn assert_no_host_detail(text: &str) {
    for bad in [
        "AJISAI_", "panicked", ".rs:", "/home/", "/root/", "/work/", "/tmp/",
    ] {
        assert!(!text.contains(bad), "`{bad}` in a resource");
    }
}

/// The deny-list of MCP-44 for host-generated text.
pub fn assert_hygienic(message: &str) {
    for bad in ["AJISAI_", "panicked", ".rs:", ".so", ".dylib", ".dll"] {
        assert!(!message.contains(bad), "`{bad}` in {message:?}");
    }
    assert!(
        !message
            .split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == '\'' || c == '"')
            .any(|w| w.starts_with('/') && w.len() > 1 && w[1..].contains('/')),
        "an absolute path in {message:?}"
    );
}

/// The whole-corpus golden runs, whose calls come near their deadline in a debug build
/// (six `UNIQUE` passes over 99,999 elements take about 2 s of their 5 s on the pure
/// backend), and the browser test, which keeps both cores busy, each hold this lock
/// alone: none of them overlaps another, so no golden call times out because the cores
/// are shared with another server or Chromium. The rest of the suite runs beside them.
pub static CPU_HEAVY: std::sync::RwLock<()> = std::sync::RwLock::new(());
