//! Tool calls the transports answer themselves (`framing::DirectCall`) against rmcp's
//! own answers. The same call with `"_meta":{}` takes rmcp's typed path; the two answers
//! are byte-identical over stdio and over HTTP, for values, reasoned absences, errors,
//! elided stacks, host errors, every tool and every revision before 2026-07-28. A
//! cancelled direct call stops its engine, frees its slot and is never answered.

use crate::http_support;
use crate::raw_support;

use http_support::{post, HttpServer};
use raw_support::RawServer;
use serde_json::{json, Value};

/// A program that runs into the 5 s deadline: comparisons charge no work
/// (docs/decisions.md), so 20,000 comparisons of 100,000 lanes each fit every limit.
const UNTIL_DEADLINE: &str = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";

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

/// A `tools/call` line; `meta` adds an empty `_meta`, which sends it down rmcp's path.
fn call_line(id: &Value, tool: &str, arguments: &Value, meta: bool) -> String {
    let mut params = json!({ "name": tool, "arguments": arguments });
    if meta {
        params["_meta"] = json!({});
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
}

#[test]
fn over_stdio_direct_answers_are_rmcp_answers_byte_for_byte() {
    let mut server = RawServer::started(&[]);
    for (i, (tool, arguments)) in calls().iter().enumerate() {
        for id in [json!(i), json!(format!("call \"{i}\""))] {
            let mut answers = Vec::new();
            for meta in [false, true] {
                server.send_line(call_line(&id, tool, arguments, meta).as_bytes());
                answers.push(
                    server
                        .recv_line(raw_support::ANSWER_WAIT)
                        .expect("an answer"),
                );
            }
            assert_eq!(answers[0], answers[1], "{tool} {arguments}");
            let v: Value = serde_json::from_str(&answers[0]).expect("JSON");
            assert_eq!(v["id"], id);
            assert!(v["result"]["structuredContent"].is_object(), "{v}");
        }
    }
    assert_eq!(server.finish(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_direct_answers_are_rmcp_answers_byte_for_byte() {
    let server = HttpServer::spawn(&[], &[]);
    for (i, (tool, arguments)) in calls().iter().enumerate() {
        for version in [
            None,
            Some("2025-03-26"),
            Some("2025-06-18"),
            Some("2025-11-25"),
        ] {
            let headers: Vec<(&str, &str)> = version
                .map(|v| vec![("MCP-Protocol-Version", v)])
                .unwrap_or_default();
            let id = json!(format!("h{i}"));
            let direct = post(
                &server.mcp(),
                call_line(&id, tool, arguments, false),
                &headers,
            )
            .await;
            let rmcp = post(
                &server.mcp(),
                call_line(&id, tool, arguments, true),
                &headers,
            )
            .await;
            assert_eq!(direct.status, rmcp.status, "{tool} {arguments} {version:?}");
            assert_eq!(direct.body, rmcp.body, "{tool} {arguments} {version:?}");
            assert_eq!(
                direct.header("content-type"),
                rmcp.header("content-type"),
                "{tool}"
            );
            assert_eq!(direct.status, 200, "{}", direct.body);
            assert_eq!(direct.json()["id"], id);
        }
    }
}

#[test]
fn a_cancelled_direct_call_stops_frees_its_slot_and_is_never_answered() {
    let mut server = RawServer::spawn_with_args(&["--max-concurrency", "1"], &[]);
    server.initialize();
    server.send_line(
        call_line(
            &json!("long"),
            "compute",
            &json!({ "source": UNTIL_DEADLINE }),
            false,
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
        call_line(
            &json!("next"),
            "compute",
            &json!({ "source": "1 2 ADD" }),
            false,
        )
        .as_bytes(),
    );
    let answer = server.recv();
    assert_eq!(answer["id"], "next", "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["status"], "ok",
        "{answer}"
    );
    // The cancelled id is free for a new request.
    server.send_line(
        call_line(
            &json!("long"),
            "compute",
            &json!({ "source": "2 3 ADD" }),
            false,
        )
        .as_bytes(),
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
    let mut server = RawServer::spawn(&[]);
    server.initialize();
    // A duplicate id in flight is refused whichever path the first took.
    server.send_line(
        call_line(
            &json!(1),
            "compute",
            &json!({ "source": UNTIL_DEADLINE }),
            false,
        )
        .as_bytes(),
    );
    server.send_line(call_line(&json!(1), "compute", &json!({ "source": "1" }), false).as_bytes());
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
