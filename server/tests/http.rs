//! `ajisai-mcp-server --http`: Streamable HTTP against the built binary over real TCP,
//! with the rmcp client (initialize and discover lifecycles) and raw requests.
//!
//! Stateless replicas answer any message; envelopes equal stdio's apart from
//! `limitProfile`; the JSON-RPC front answers what rmcp cannot (HTTP 400); bodies over
//! 1 MiB get 413; token, Host and Origin are enforced; probes, metrics, the per-request
//! log line, cancellation by a dropped connection, the bounded wait queue and the drain
//! on SIGTERM.

use crate::http_support;
use crate::mcp_support;

use ajisai_service::tools::ToolSpec;
use http_support::{call, envelope_text, get, post, tools_call, HttpServer, TOKEN};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::io::{Read, Write};

/// A program that runs into the 5 s deadline: comparisons charge no work
/// (docs/decisions.md), so 20,000 comparisons of 100,000 lanes each fit every limit.
/// A call that runs until its deadline: a loop, on a server whose work budgets are lifted
/// ([`UNBOUNDED_WORK`]); under the production profile no program runs that long.
const UNTIL_DEADLINE: &str = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";

/// The environment of a test server whose work budgets are lifted (debug builds only:
/// `ServerOptions::with_test_overrides`).
const UNBOUNDED_WORK: (&str, &str) = ("AJISAI_TEST_UNBOUNDED_WORK", "1");

/// Programs whose envelopes are compared across transports and replicas.
const PROGRAMS: [&str; 6] = [
    "2 3 DIV 1 3 DIV ADD",
    "1 0 DIV",
    "2 SQRT 3 SQRT ADD DUP MUL",
    "[ 1 2 3 ] [ 10 20 30 ] ADD",
    "1 2 FROB",
    "0 7000 RANGE 1 2 ADD",
];

fn compute_args(source: &str) -> serde_json::Map<String, Value> {
    mcp_support::object(json!({ "source": source }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rmcp_client_is_served_in_both_lifecycles_with_the_stdio_envelopes() {
    let server = HttpServer::spawn(&[], &[]);
    let stdio = mcp_support::spawn().await;
    // The initialize lifecycle (2025-11-25).
    let legacy =
        ().serve(StreamableHttpClientTransport::from_uri(server.mcp()))
            .await
            .expect("initialize over HTTP");
    // The 2026-07-28 lifecycle: server/discover and per-request _meta, no session.
    let modern = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.mcp()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover over HTTP");
    for client in [&legacy, &modern] {
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(tools.len(), ToolSpec::ALL.len());
        let resources = client.list_all_resources().await.expect("resources/list");
        assert!(resources.iter().any(|r| r.uri == "ajisai://limits"));
    }
    for source in PROGRAMS {
        let over_stdio = mcp_support::text(
            &mcp_support::call_raw(&stdio, "compute", json!({ "source": source })).await,
        );
        for client in [&legacy, &modern] {
            let r = client
                .call_tool(
                    CallToolRequestParams::new("compute").with_arguments(compute_args(source)),
                )
                .await
                .expect("tools/call");
            mcp_support::check_form(&r);
            let text = mcp_support::text(&r);
            assert!(
                text.contains("\"limitProfile\":\"mcp-remote-http\""),
                "{text}"
            );
            assert_eq!(
                text.replace(
                    "\"limitProfile\":\"mcp-remote-http\"",
                    "\"limitProfile\":\"mcp-local-stdio\""
                ),
                over_stdio,
                "{source}"
            );
        }
    }
    // The limits resource publishes the HTTP profile as configured.
    let (_, limits) = mcp_support::read(&legacy, "ajisai://limits").await;
    let limits: Value = serde_json::from_str(&limits).expect("JSON");
    assert_eq!(limits["profile"], "mcp-remote-http");
    assert_eq!(limits["limits"]["concurrentExecutions"], 4);
    assert_eq!(limits["maxWaiting"], 32);
    assert_eq!(limits["limits"]["memoryBytes"], 64 * 1024 * 1024);
    for c in [legacy, modern, stdio] {
        let _ = c.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_replica_answers_any_message_with_identical_envelopes() {
    let a = HttpServer::spawn(&[], &[]);
    let b = HttpServer::spawn(&[], &[]);
    // initialize on one replica …
    let init = post(
        &a.mcp(),
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
        .to_string(),
        &[],
    )
    .await;
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-06-18");
    assert!(
        init.header("mcp-session-id").is_none(),
        "stateless: no session"
    );
    let notified = post(
        &b.mcp(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(notified.status, 202);
    // … and every call on either, answered alike.
    for source in PROGRAMS {
        let on_a = envelope_text(&call(&a, "compute", json!({ "source": source })).await);
        let on_b = envelope_text(&call(&b, "compute", json!({ "source": source })).await);
        assert_eq!(on_a, on_b, "{source}");
    }
    for tool in ["check", "infer_contracts"] {
        let on_a = envelope_text(&call(&a, tool, json!({ "source": "1 2 ADD" })).await);
        let on_b = envelope_text(&call(&b, tool, json!({ "source": "1 2 ADD" })).await);
        assert_eq!(on_a, on_b, "{tool}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_revision_is_served() {
    let server = HttpServer::spawn(&[], &[]);
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let init = post(
            &server.mcp(),
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
                "protocolVersion":revision,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
            .to_string(),
            &[],
        )
        .await;
        assert_eq!(
            init.json()["result"]["protocolVersion"],
            revision,
            "{}",
            init.body
        );
        let header = if revision >= "2025-06-18" {
            vec![("MCP-Protocol-Version", revision)]
        } else {
            vec![]
        };
        let a = post(
            &server.mcp(),
            tools_call(json!(2), "compute", json!({"source": "1 2 ADD"})),
            &header,
        )
        .await;
        let v = a.json();
        assert_eq!(
            v["result"]["structuredContent"]["stackDisplay"],
            json!(["3/1"]),
            "{revision}: {v}"
        );
        assert!(v["result"].get("resultType").is_none(), "{revision}");
    }
    // 2026-07-28: server/discover, then a self-contained call.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discover = post(
        &server.mcp(),
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": meta}})
            .to_string(),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "server/discover"),
        ],
    )
    .await;
    let d = discover.json();
    assert!(
        d["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.iter().any(|x| x == "2026-07-28")),
        "{d}"
    );
    let a = post(
        &server.mcp(),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{
            "name":"compute","arguments":{"source":"1 2 ADD"},"_meta": meta}})
        .to_string(),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "compute"),
        ],
    )
    .await;
    let v = a.json();
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["stackDisplay"],
        json!(["3/1"])
    );
    // A non-object `arguments` is answered by the front (MCP-19; docs/mcp/host-errors.md), framed for 2026-07-28.
    let a = post(
        &server.mcp(),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{
            "name":"compute","arguments":"1 2 ADD","_meta": meta}})
        .to_string(),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "compute"),
        ],
    )
    .await;
    let v = a.json();
    assert_eq!(a.status, 200);
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"], "invalidRequest",
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_front_answers_what_rmcp_cannot_with_400() {
    let server = HttpServer::spawn(&[], &[]);
    let url = server.mcp();
    let v = "2025-06-18";
    for (body, code) in [
        ("{not json}", -32700),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            -32600,
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
            -32600,
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"ping\"}",
            -32600,
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing",
            -32700,
        ),
    ] {
        let a = post(&url, body, &[("MCP-Protocol-Version", v)]).await;
        assert_eq!(a.status, 400, "{body}: {}", a.body);
        let j = a.json();
        assert_eq!(j["error"]["code"], code, "{body}: {j}");
        assert_eq!(j["id"], Value::Null, "{body}");
    }
    // Invalid UTF-8.
    let a = post(
        &url,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec(),
        &[],
    )
    .await;
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (400, json!(-32700))
    );
    // Known methods with params they cannot take: -32602 with the request's id.
    for body in [
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call"}),
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}),
        json!({"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":[]}}),
    ] {
        let a = post(&url, body.to_string(), &[("MCP-Protocol-Version", v)]).await;
        assert_eq!(a.status, 400, "{body}");
        assert_eq!(a.json()["error"]["code"], -32602, "{body}");
        assert_eq!(a.json()["id"], 7);
    }
    // MCP-19: a non-object `arguments` is a tool result, not a protocol error.
    let a = post(
        &url,
        json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"compute","arguments":[1]}}).to_string(),
        &[("MCP-Protocol-Version", v)],
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(
        a.json()["result"]["structuredContent"]["error"]["code"],
        "invalidRequest"
    );
    assert!(a.json()["result"].get("resultType").is_none());
    // A lone surrogate reads as U+FFFD and the call runs.
    let a = post(
        &url,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"compute","arguments":{"source":"'\ud800' CHARS"}}}"#,
        &[("MCP-Protocol-Version", v)],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.json()["result"]["structuredContent"]["status"],
        "ok",
        "{}",
        a.body
    );
    // Ids of any length come back digit for digit; strings unchanged.
    for id in [
        "123456789012345678901234567890",
        "-98765432109876543210",
        "\"x-1\"",
        "9223372036854775807",
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1 2 ADD"}}}}}}"#
        );
        let a = post(&url, body, &[("MCP-Protocol-Version", v)]).await;
        assert_eq!(a.status, 200, "{}", a.body);
        assert!(
            a.body
                .starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},")),
            "{}",
            &a.body[..80.min(a.body.len())]
        );
    }
    // Over 1 MiB: 413, declared or streamed.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"{}"}}}}}}"#,
        " ".repeat(1024 * 1024)
    );
    let a = post(&url, big.clone(), &[]).await;
    assert_eq!(a.status, 413, "{}", a.body);
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = big
        .as_bytes()
        .chunks(64 * 1024)
        .map(|c| Ok(c.to_vec()))
        .collect();
    let streamed = reqwest::Body::wrap_stream(futures::stream::iter(chunks));
    let a = post(&url, streamed, &[]).await;
    assert_eq!(a.status, 413, "{}", a.body);
    // Just under: a 64 KiB source heavily escaped is read and answered.
    let escaped = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"{}1"}}}}}}"#,
        "\\u0020".repeat(65_535)
    );
    assert!(escaped.len() < 1024 * 1024);
    let a = post(&url, escaped, &[("MCP-Protocol-Version", v)]).await;
    assert_eq!(
        a.json()["result"]["structuredContent"]["stackDisplay"],
        json!(["1/1"]),
        "{}",
        &a.body[..200.min(a.body.len())]
    );
    // Accept must name both answer types: rmcp's 406; a body that is not JSON: 415.
    let a = http_support::client()
        .post(&url)
        .header("Accept", "application/json")
        .header("Content-Type", "application/json")
        .body(tools_call(json!(1), "compute", json!({"source":"1"})))
        .send()
        .await
        .expect("answered");
    assert_eq!(a.status().as_u16(), 406);
    let a = http_support::client()
        .post(&url)
        .header("Accept", http_support::ACCEPT)
        .header("Content-Type", "text/plain")
        .body("1 2 ADD")
        .send()
        .await
        .expect("answered");
    assert_eq!(a.status().as_u16(), 415);
    // No sessions: GET and DELETE are not allowed.
    assert_eq!(
        get(&url, &[("Accept", "text/event-stream")]).await.status,
        405
    );
    // Each refused body is one stderr line quoting at most 64 characters.
    let refused = server.stderr_lines_with("refused input", 1);
    assert!(
        refused.iter().all(|l| !l.contains(&" ".repeat(100))),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_hosts_and_origins_are_enforced() {
    // Startup refusals: a short token, and a public bind without one.
    match HttpServer::spawn_exact(
        &["--http", "127.0.0.1:0"],
        &[("AJISAI_HTTP_TOKEN", "short")],
    ) {
        Err((code, stderr)) => {
            assert_eq!(code, 1);
            let lines: Vec<&str> = stderr.lines().filter(|l| *l != "<eof>").collect();
            assert_eq!(lines.len(), 1, "{stderr}");
            assert!(
                lines[0].contains("AJISAI_HTTP_TOKEN") && lines[0].contains("16"),
                "{stderr}"
            );
        }
        Ok(_) => panic!("a short token must be refused"),
    }
    match HttpServer::spawn_exact(&["--http", "0.0.0.0:0"], &[]) {
        Err((code, stderr)) => {
            assert_eq!(code, 1);
            assert!(stderr.contains("AJISAI_HTTP_TOKEN"), "{stderr}");
        }
        Ok(_) => panic!("a public bind without a token must be refused"),
    }

    let server = HttpServer::spawn(
        &[
            "--allowed-host",
            "mcp.example",
            "--allowed-origin",
            "https://app.example:443",
        ],
        &[("AJISAI_HTTP_TOKEN", TOKEN)],
    );
    let url = server.mcp();
    let body = tools_call(json!(1), "compute", json!({"source": "1 2 ADD"}));
    let bearer = format!("Bearer {TOKEN}");
    // No token, a wrong one, another scheme: 401 with the challenge.
    for auth in [
        None,
        Some("Bearer wrong-token-0123456789"),
        Some("Basic dXNlcjpwYXNz"),
    ] {
        let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", *a)).collect();
        let a = post(&url, body.clone(), &headers).await;
        assert_eq!(a.status, 401, "{auth:?}");
        assert_eq!(a.header("www-authenticate").as_deref(), Some("Bearer"));
        let m = get(&format!("{}/metrics", server.base), &headers).await;
        assert_eq!(m.status, 401);
    }
    let a = post(&url, body.clone(), &[("Authorization", &bearer)]).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let m = get(
        &format!("{}/metrics", server.base),
        &[("Authorization", &bearer)],
    )
    .await;
    assert_eq!(m.status, 200);
    // Host: loopback names and the allowed one; anything else 403 (before the token).
    for (host, status) in [
        ("evil.example", 403),
        ("mcp.example", 200),
        ("mcp.example:9000", 200),
        ("localhost", 200),
    ] {
        let a = post(
            &url,
            body.clone(),
            &[("Authorization", &bearer), ("Host", host)],
        )
        .await;
        assert_eq!(a.status, status, "{host}: {}", a.body);
        let m = get(
            &format!("{}/metrics", server.base),
            &[("Authorization", &bearer), ("Host", host)],
        )
        .await;
        assert_eq!(m.status, status, "{host}");
    }
    // Origin: absent or listed passes; anything else 403.
    for (origin, status) in [
        ("https://app.example", 200),
        ("https://app.example:8443", 403),
        ("http://evil.example", 403),
        ("null", 403),
    ] {
        let a = post(
            &url,
            body.clone(),
            &[("Authorization", &bearer), ("Origin", origin)],
        )
        .await;
        assert_eq!(a.status, status, "{origin}: {}", a.body);
    }
    // Probes need neither token nor Host.
    for path in ["/healthz", "/readyz"] {
        let a = get(
            &format!("{}{path}", server.base),
            &[("Host", "10.1.2.3:8080")],
        )
        .await;
        assert_eq!(a.status, 200, "{path}: {}", a.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probes_metrics_and_one_log_line_per_request() {
    let server = HttpServer::spawn(&[], &[]);
    assert_eq!(
        get(&format!("{}/healthz", server.base), &[]).await.status,
        200
    );
    assert_eq!(
        get(&format!("{}/readyz", server.base), &[]).await.status,
        200
    );
    call(&server, "compute", json!({"source": "1 2 ADD"})).await;
    call(&server, "compute", json!({"source": "1 0 DIV"})).await;
    call(&server, "compute", json!({"source": "1 FROB"})).await;
    call(&server, "no_such_tool", json!({})).await;
    call(&server, "check", json!({"source": "1 2 ADD"})).await;
    let m = get(&format!("{}/metrics", server.base), &[]).await;
    assert_eq!(m.status, 200);
    assert!(m
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/plain")));
    let text = m.body;
    for needle in [
        "ajisai_tool_calls_total{tool=\"compute\",outcome=\"ok\"} 2",
        "ajisai_tool_calls_total{tool=\"compute\",outcome=\"error\"} 1",
        "ajisai_tool_calls_total{tool=\"other\",outcome=\"hostError\"} 1",
        "ajisai_tool_calls_total{tool=\"check\",outcome=\"ok\"} 1",
        "ajisai_tool_call_duration_seconds_bucket{tool=\"compute\",le=\"+Inf\"} 3",
        "ajisai_executions_in_flight 0",
        "ajisai_capacity_exhausted_total 0",
        "ajisai_memory_exhausted_total 0",
        "ajisai_build_info{version=",
    ] {
        assert!(text.contains(needle), "{needle} in\n{text}");
    }
    // The readiness computation is neither counted nor logged as a tool call.
    assert!(!text.contains("outcome=\"ok\"} 3"), "{text}");
    let lines = server.stderr_lines_with("http method=POST", 5);
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(
        lines[0].contains("path=/mcp rpc=tools/call tool=compute outcome=ok status=200"),
        "{}",
        lines[0]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("tool=other outcome=hostError")),
        "{lines:?}"
    );
    for l in &lines {
        assert!(l.contains(" ms=") && l.contains(" bytes="), "{l}");
        assert!(
            !l.contains("ADD") && !l.contains("FROB"),
            "never the source: {l}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_stops_its_call_and_frees_the_slot() {
    let server = HttpServer::spawn(&["--max-concurrency", "1"], &[UNBOUNDED_WORK]);
    // A call that would hold the only slot until its 5 s deadline.
    let body = tools_call(json!(1), "compute", json!({"source": UNTIL_DEADLINE}));
    let mut stream = std::net::TcpStream::connect(server.authority()).expect("connects");
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        http_support::ACCEPT,
        body.len()
    )
    .expect("sent");
    // Wait until it runs, then hang up.
    loop {
        let m = get(&format!("{}/metrics", server.base), &[]).await.body;
        if m.contains("ajisai_executions_in_flight 1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    drop(stream);
    // The engine stops, the slot frees: the next call is admitted within the 1 s queue
    // wait instead of answering capacityExhausted after it (the first call would
    // otherwise hold the slot for five seconds).
    let v = call(&server, "compute", json!({"source": "1 2 ADD"})).await;
    assert_eq!(v["result"]["structuredContent"]["status"], "ok", "{v}");
    let m = get(&format!("{}/metrics", server.base), &[]).await.body;
    assert!(m.contains("ajisai_capacity_exhausted_total 0"), "{m}");
    assert!(m.contains("ajisai_executions_in_flight 0"), "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_running_calls_and_exits_0() {
    let mut server = HttpServer::spawn(&[], &[UNBOUNDED_WORK]);
    // A keep-alive connection that will ask /readyz while the server drains.
    let mut probe = std::net::TcpStream::connect(server.authority()).expect("connects");
    let ask_ready = "GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    probe.write_all(ask_ready.as_bytes()).expect("sent");
    let first = read_response(&mut probe);
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    let url = server.mcp();
    let running = tokio::spawn(async move {
        post(
            &url,
            tools_call(json!(1), "compute", json!({"source": UNTIL_DEADLINE})),
            &[],
        )
        .await
    });
    loop {
        let m = get(&format!("{}/metrics", server.base), &[]).await.body;
        if m.contains("ajisai_executions_in_flight 1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    server.signal("TERM");
    server.stderr_lines_with("draining", 1);
    // The running call still gets its answer (here: the deadline's), told to close.
    let answered = running.await.expect("joined");
    assert_eq!(answered.status, 200);
    assert_eq!(
        answered.json()["result"]["structuredContent"]["error"]["code"],
        "timeout"
    );
    assert_eq!(answered.header("connection").as_deref(), Some("close"));
    // The keep-alive probe connection is closed without another answer, or answers 503.
    let _ = probe.write_all(ask_ready.as_bytes());
    let second = read_response(&mut probe);
    assert!(
        second.is_empty() || second.starts_with("HTTP/1.1 503"),
        "{second}"
    );
    assert_eq!(server.wait(), Some(0));
    // No new connection is accepted.
    assert!(std::net::TcpStream::connect(server.authority()).is_err());
}

/// Read one HTTP/1.1 response (headers and a Content-Length body), or what arrives
/// before the connection closes.
fn read_response(stream: &mut std::net::TcpStream) -> String {
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .expect("timeout set");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&got).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_string())
                })
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if got.len() >= end + 4 + length {
                return text;
            }
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&got).to_string(),
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_requests_time_out_and_connections_are_capped() {
    let server = HttpServer::spawn(&["--max-connections", "2"], &[]);
    let authority = server.authority();
    // A body that never arrives: 408 once the body read timeout passes.
    let mut stalled = std::net::TcpStream::connect(&authority).expect("connects");
    write!(
        stalled,
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        http_support::ACCEPT
    )
    .expect("sent");
    // Headers that never end, at the same time: the connection is closed unanswered.
    let mut slow = std::net::TcpStream::connect(&authority).expect("connects");
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .expect("sent");
    let body = tokio::task::spawn_blocking(move || read_response(&mut stalled));
    let headers = tokio::task::spawn_blocking(move || read_response(&mut slow));
    let answer = body.await.expect("joined");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let answer = headers.await.expect("joined");
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Two open connections hold the cap: a third is still answered if it is a probe, and
    // refused at once with Retry-After if it is anything else.
    let ask = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let mut first = std::net::TcpStream::connect(&authority).expect("connects");
    first.write_all(ask.as_bytes()).expect("sent");
    assert!(read_response(&mut first).starts_with("HTTP/1.1 200"));
    let mut second = std::net::TcpStream::connect(&authority).expect("connects");
    second.write_all(ask.as_bytes()).expect("sent");
    assert!(read_response(&mut second).starts_with("HTTP/1.1 200"));
    let mut probe = std::net::TcpStream::connect(&authority).expect("connects");
    probe.write_all(ask.as_bytes()).expect("sent");
    let answer = read_response(&mut probe);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut other = std::net::TcpStream::connect(&authority).expect("connects");
    other
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("sent");
    let answer = read_response(&mut other).to_ascii_lowercase();
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    drop(first);
    drop(second);
    // Once a connection is free, a new one is served in full again.
    let mut served = false;
    for _ in 0..100 {
        let mut again = std::net::TcpStream::connect(&authority).expect("connects");
        again
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .expect("sent");
        if read_response(&mut again).starts_with("HTTP/1.1 200") {
            served = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(served, "a freed connection serves /metrics again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wait_queue_is_bounded_and_a_caller_beyond_it_is_refused_at_once() {
    // One slot: eight callers may wait for it (maxWaiting).
    let server = HttpServer::spawn(&["--max-concurrency", "1"], &[UNBOUNDED_WORK]);
    let metrics_url = format!("{}/metrics", server.base);
    let until = |needle: &'static str| {
        let url = metrics_url.clone();
        async move {
            loop {
                if get(&url, &[]).await.body.contains(needle) {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    };
    let long = |id: u64| {
        let url = server.mcp();
        tokio::spawn(async move {
            post(
                &url,
                tools_call(json!(id), "compute", json!({ "source": UNTIL_DEADLINE })),
                &[],
            )
            .await
        })
    };
    let running = long(0);
    until("ajisai_executions_in_flight 1").await;
    let queued: Vec<_> = (1..=8).map(long).collect();
    until("ajisai_executions_waiting 8").await;
    // The ninth waiter finds the queue full: refused without waiting.
    let refused = call(&server, "compute", json!({ "source": "1 2 ADD" })).await;
    let env = &refused["result"]["structuredContent"];
    assert_eq!(env["error"]["code"], "capacityExhausted", "{refused}");
    assert_eq!(env["error"]["retryable"], true, "{refused}");
    // It never joined the queue, and those in it are still waiting (for up to 1 s).
    assert!(queued.iter().all(|q| !q.is_finished()));
    let m = get(&metrics_url, &[]).await.body;
    assert!(m.contains("ajisai_executions_waiting 8"), "{m}");
    assert!(m.contains("ajisai_capacity_exhausted_total 1"), "{m}");
    // The waiters' turn passes: each answers capacityExhausted after its wait.
    for q in queued {
        let a = q.await.expect("a client task");
        assert_eq!(
            a.json()["result"]["structuredContent"]["error"]["code"],
            "capacityExhausted",
            "{}",
            a.body
        );
    }
    until("ajisai_executions_waiting 0").await;
    // Hanging up stops the running call.
    running.abort();
    until("ajisai_executions_in_flight 0").await;
}
