//! Tool calls the transports answer themselves (`framing::DirectCall`) against rmcp's
//! own answers. The same call with `"requestState":null`, which rmcp reads and ignores,
//! takes rmcp's typed path; the two answers are byte-identical over stdio and over HTTP,
//! for values, reasoned absences, errors, elided stacks, host errors, every tool, every
//! revision from 2024-11-05 to 2026-07-28 and every kind of `_meta` — none, empty, naming
//! an older revision, complete for 2026-07-28 (answered with `resultType`), and the ones
//! rmcp refuses (incomplete, unknown revision), which stay rmcp's. Over stdio that holds
//! in a session opened by `initialize` and in one opened by a 2026-07-28 request. A
//! cancelled direct call stops its engine, frees its slot and is never answered.

use crate::http_support;
use crate::raw_support;

use http_support::{post, HttpServer};
use raw_support::RawServer;
use serde_json::{json, Value};

/// A program that runs into the 5 s deadline: comparisons charge no work
/// (docs/decisions.md), so 20,000 comparisons of 100,000 lanes each fit every limit.
/// A call that runs until its deadline: a loop, on a server whose work budgets are lifted
/// ([`UNBOUNDED_WORK`]); under the production profile no program runs that long.
const UNTIL_DEADLINE: &str = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";

/// The environment of a test server whose work budgets are lifted (debug builds only:
/// `ServerOptions::with_test_overrides`).
const UNBOUNDED_WORK: (&str, &str) = ("AJISAI_TEST_UNBOUNDED_WORK", "1");

/// Calls of every kind of answer.
fn calls() -> Vec<(&'static str, Value)> {
    let mut calls: Vec<(&str, Value)> = [
        "2 3 DIV 1 3 DIV ADD",
        "1 0 DIV",
        "2 SQRT 3 SQRT ADD DUP MUL",
        "[ 1 2 3 ] [ 10 20 30 ] ADD",
        "1 2 FROB",
        "ÄÖ \"quoted\" back\\slash 😀",
        "0 7000 RANGE 1 2 ADD",
        "1 ADD",
    ]
    .into_iter()
    .map(|source| ("compute", json!({ "source": source })))
    .collect();
    calls.extend([
        ("compute", json!({ "source": 5 })),
        ("compute", json!({})),
        ("compute", json!({ "source": "1", "extra": true })),
        (
            "compute",
            json!({ "source": "1", "words": ["nonexistent-word"] }),
        ),
        ("compute", json!({ "source": "x".repeat(70_000) })),
        ("check", json!({ "source": "1 2 ADD" })),
        ("check", json!({ "source": "[ 1" })),
        ("infer_contracts", json!({ "source": "DUP MUL" })),
        ("word_contract", json!({ "word": "ADD" })),
        ("word_contract", json!({ "word": "FROB" })),
        ("no_such_tool", json!({})),
    ]);
    calls
}

/// The `_meta` of a request of `revision`, complete (`protocolVersion` and
/// `clientCapabilities`, as a 2026-07-28 client sends them).
fn complete_meta(revision: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "direct-test", "version": "1" }
    })
}

/// The `_meta` variants a call is sent with: none, and each kind a client may send.
fn metas() -> Vec<Option<Value>> {
    vec![
        None,
        Some(json!({})),
        Some(json!({ "io.modelcontextprotocol/protocolVersion": "2025-06-18" })),
        Some(complete_meta("2026-07-28")),
        // rmcp refuses these (-32602, -32022): they must stay its answers.
        Some(json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" })),
        Some(complete_meta("2030-01-01")),
    ]
}

/// A `tools/call` line with `meta` as its `_meta`; `via_rmcp` adds `"requestState":null`,
/// which rmcp reads and ignores and which sends the call down rmcp's typed path.
fn call_line_with(
    id: &Value,
    tool: &str,
    arguments: &Value,
    meta: Option<&Value>,
    via_rmcp: bool,
) -> String {
    let mut params = json!({ "name": tool, "arguments": arguments });
    if let Some(m) = meta {
        params["_meta"] = m.clone();
    }
    if via_rmcp {
        params["requestState"] = Value::Null;
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
}

/// A plain `tools/call` line.
fn call_line(id: &Value, tool: &str, arguments: &Value) -> String {
    call_line_with(id, tool, arguments, None, false)
}

/// Every call with every `_meta`, each sent as written and through rmcp, on `server`: the
/// two answers are the same bytes.
fn stdio_answers_agree(server: &mut RawServer, metas: &[Option<Value>]) {
    for (i, (tool, arguments)) in calls().iter().enumerate() {
        for (m, meta) in metas.iter().enumerate() {
            for id in [json!(i * 100 + m), json!(format!("call \"{i}.{m}\""))] {
                let mut answers = Vec::new();
                for via_rmcp in [false, true] {
                    server.send_line(
                        call_line_with(&id, tool, arguments, meta.as_ref(), via_rmcp).as_bytes(),
                    );
                    answers.push(
                        server
                            .recv_line(raw_support::ANSWER_WAIT)
                            .expect("an answer"),
                    );
                }
                assert_eq!(answers[0], answers[1], "{tool} {arguments} {meta:?}");
                let v: Value = serde_json::from_str(&answers[0]).expect("JSON");
                assert_eq!(v["id"], id);
            }
        }
    }
}

#[test]
fn over_stdio_direct_answers_are_rmcp_answers_byte_for_byte() {
    let mut server = RawServer::started(&[]);
    stdio_answers_agree(&mut server, &metas());
    // A 2026-07-28 answer carries `resultType` first; an older one none.
    let modern = complete_meta("2026-07-28");
    server.send_line(
        call_line_with(
            &json!("m"),
            "compute",
            &json!({ "source": "1" }),
            Some(&modern),
            false,
        )
        .as_bytes(),
    );
    let line = server
        .recv_line(raw_support::ANSWER_WAIT)
        .expect("an answer");
    assert!(
        line.contains(r#""result":{"resultType":"complete","content""#),
        "{line}"
    );
    server.send_line(call_line(&json!("o"), "compute", &json!({ "source": "1" })).as_bytes());
    let line = server
        .recv_line(raw_support::ANSWER_WAIT)
        .expect("an answer");
    assert!(line.contains(r#""result":{"content""#), "{line}");
    assert_eq!(server.finish(), Some(0));
}

/// A 2026-07-28 client over stdio: no `initialize`; `server/discover`, then calls whose
/// `_meta` is complete (answered directly once one has opened the session, as rmcp opens
/// it) and calls without one, which rmcp refuses.
#[test]
fn over_stdio_a_2026_session_gets_direct_answers_that_are_rmcps() {
    let mut server = RawServer::spawn(&[]);
    let meta = complete_meta("2026-07-28");
    server.send(&json!({
        "jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": { "_meta": meta }
    }));
    let discovered = server.recv();
    assert!(discovered["result"].is_object(), "{discovered}");
    stdio_answers_agree(
        &mut server,
        &[
            Some(complete_meta("2026-07-28")),
            Some(complete_meta("2025-11-25")),
            None,
            Some(json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" })),
        ],
    );
    assert_eq!(server.finish(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_direct_answers_are_rmcp_answers_byte_for_byte() {
    let server = HttpServer::spawn(&[], &[]);
    for (i, (tool, arguments)) in calls().iter().enumerate() {
        for version in [
            None,
            Some("2024-11-05"),
            Some("2025-03-26"),
            Some("2025-06-18"),
            Some("2025-11-25"),
            Some("2026-07-28"),
        ] {
            for meta in metas() {
                // A 2026-07-28 client names its method and tool in headers as well.
                let mut headers: Vec<(&str, &str)> = Vec::new();
                if let Some(v) = version {
                    headers.push(("MCP-Protocol-Version", v));
                    if v >= "2026-07-28" {
                        headers.push(("Mcp-Method", "tools/call"));
                        headers.push(("Mcp-Name", tool));
                    }
                }
                let id = json!(format!("h{i}"));
                let direct = post(
                    &server.mcp(),
                    call_line_with(&id, tool, arguments, meta.as_ref(), false),
                    &headers,
                )
                .await;
                let rmcp = post(
                    &server.mcp(),
                    call_line_with(&id, tool, arguments, meta.as_ref(), true),
                    &headers,
                )
                .await;
                let what = format!("{tool} {arguments} {version:?} {meta:?}");
                assert_eq!(direct.status, rmcp.status, "{what}");
                assert_eq!(direct.body, rmcp.body, "{what}");
                assert_eq!(
                    direct.header("content-type"),
                    rmcp.header("content-type"),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn a_cancelled_direct_call_stops_frees_its_slot_and_is_never_answered() {
    let mut server = RawServer::spawn_with_args(&["--max-concurrency", "1"], &[UNBOUNDED_WORK]);
    server.initialize();
    server.send_line(
        call_line(
            &json!("long"),
            "compute",
            &json!({ "source": UNTIL_DEADLINE }),
        )
        .as_bytes(),
    );
    // Let it start, then cancel it.
    std::thread::sleep(std::time::Duration::from_millis(300));
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": "long", "reason": "test" }
    }));
    // The only slot is free again at once: this call is admitted within the 1 s
    // queue wait instead of answering capacityExhausted.
    server.send_line(
        call_line(&json!("next"), "compute", &json!({ "source": "1 2 ADD" })).as_bytes(),
    );
    let answer = server.recv();
    assert_eq!(answer["id"], "next", "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["status"], "ok",
        "{answer}"
    );
    // The cancelled id is free for a new request.
    server.send_line(
        call_line(&json!("long"), "compute", &json!({ "source": "2 3 ADD" })).as_bytes(),
    );
    let answer = server.recv();
    assert_eq!(answer["id"], "long", "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["stackDisplay"][0], "5/1",
        "{answer}"
    );
    assert_eq!(server.finish(), Some(0));
}

#[test]
fn calls_before_initialized_and_duplicates_are_answered_as_before() {
    let mut server = RawServer::spawn(&[UNBOUNDED_WORK]);
    server.initialize();
    // A duplicate id in flight is refused whichever path the first took.
    server.send_line(
        call_line(&json!(1), "compute", &json!({ "source": UNTIL_DEADLINE })).as_bytes(),
    );
    server.send_line(call_line(&json!(1), "compute", &json!({ "source": "1" })).as_bytes());
    let refused = server.recv();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 }
    }));
    server.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }));
    let pong = server.recv();
    assert_eq!(pong["id"], 2, "{pong}");
    assert_eq!(server.finish(), Some(0));
}
