//! Every JSON-RPC line gets exactly one answer (the boundedness issue, item 4), against
//! the live server over real stdio: malformed text, batches, bad ids, duplicate ids in
//! flight, bad params, lone surrogates, over-long lines. Nothing is lost and the server
//! keeps serving; each refused line is one stderr line quoting at most 64 characters.

use crate::raw_support;

use raw_support::RawServer;
use serde_json::{json, Value};
use std::time::Duration;

/// Send `lines`, then a `ping` with id "end", and return every answer before its answer
/// (lines the framing refuses are answered in order, before any later line is read).
fn answers_to(server: &mut RawServer, lines: &[&[u8]]) -> Vec<Value> {
    for line in lines {
        server.send_line(line);
    }
    server.send(&json!({ "jsonrpc": "2.0", "id": "end", "method": "ping" }));
    let mut seen = Vec::new();
    loop {
        let v = server.recv();
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        if v["id"] == "end" {
            return seen;
        }
        seen.push(v);
    }
}

fn error_code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or(0)
}

#[test]
fn each_malformed_line_is_answered_once_and_the_server_goes_on() {
    let mut server = RawServer::started(&[]);
    let lines: [(&[u8], i64); 9] = [
        (b"{not json}", -32700),
        (b"\xff\xfe not UTF-8", -32700),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"} {"x":1}"#,
            -32700,
        ),
        (br#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#, -32600),
        (br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#, -32600),
        (br#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#, -32600),
        (br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, -32600),
        (br#""a string""#, -32600),
        (br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600),
    ];
    let sent: Vec<&[u8]> = lines.iter().map(|(l, _)| *l).collect();
    let answers = answers_to(&mut server, &sent);
    assert_eq!(answers.len(), lines.len(), "{answers:?}");
    for ((line, code), answer) in lines.iter().zip(&answers) {
        assert_eq!(
            error_code(answer),
            *code,
            "{} → {answer}",
            String::from_utf8_lossy(line)
        );
        assert!(answer["id"].is_null(), "{answer}");
        assert!(answer.as_object().is_some_and(|o| o.contains_key("id")));
    }
    // One stderr line per refused line, quoting at most 64 characters of it.
    let refused = server.stderr_lines_with("refused input", lines.len());
    assert_eq!(refused.len(), lines.len(), "{refused:?}");
    assert!(refused[0].contains("\"{not json}\""), "{}", refused[0]);
    // The server still computes.
    let env = server.compute(10, "1 2 ADD");
    assert_eq!(env["stackDisplay"], json!(["3/1"]));
}

#[test]
fn integer_ids_of_any_length_come_back_digit_for_digit() {
    let mut server = RawServer::started(&[]);
    for id in [
        "123456789012345678901234567890",
        "-98765432109876543210",
        "18446744073709551615",
        "9223372036854775807",
        "0",
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"2 3 MUL"}}}}}}"#
        );
        server.send_line(line.as_bytes());
        let text = server
            .recv_line(Duration::from_secs(60))
            .expect("an answer");
        assert!(
            text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#)),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(
            v["result"]["structuredContent"]["stackDisplay"],
            json!(["6/1"])
        );
    }
    // String ids are echoed as strings, escapes and all.
    let v = server.call_with_id(json!("a\"b\u{e9}"), "compute", json!({ "source": "1" }));
    assert_eq!(v["id"], "a\"b\u{e9}");
}

#[test]
fn a_second_request_with_an_id_in_flight_is_refused_while_the_first_answers() {
    let mut server = RawServer::started(&[]);
    // A call that takes a while, and the same id right behind it in one write.
    let slow = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": "compute", "arguments": { "source": "0 99999 RANGE REVERSE SORT LENGTH" } }
    });
    let again = json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" });
    server.send_line(format!("{slow}\n{again}").as_bytes());
    let first = server.recv();
    let second = server.recv();
    let (refusal, answer) = if first["id"].is_null() {
        (first, second)
    } else {
        (second, first)
    };
    assert_eq!(error_code(&refusal), -32600, "{refusal}");
    assert!(refusal["id"].is_null());
    assert!(
        refusal["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("id 7 is already in flight")),
        "{refusal}"
    );
    assert_eq!(answer["id"], 7);
    assert_eq!(
        answer["result"]["structuredContent"]["stackDisplay"],
        json!(["100000/1"])
    );
    // Answered, the id is free again.
    let v = server.call(7, "compute", json!({ "source": "1" }));
    assert_eq!(
        v["result"]["structuredContent"]["stackDisplay"],
        json!(["1/1"])
    );
}

#[test]
fn params_a_known_method_cannot_take_are_invalid_params() {
    let mut server = RawServer::started(&[]);
    let lines: [&[u8]; 5] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5,"arguments":{}}}"#,
        br#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":["x"]}}"#,
        br#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":"all"}"#,
    ];
    let answers = answers_to(&mut server, &lines);
    assert_eq!(answers.len(), lines.len(), "{answers:?}");
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["id"], i + 1, "{a}");
        assert_eq!(error_code(a), -32602, "{a}");
    }
    // MCP-19 (docs/mcp/host-errors.md) still decides non-object arguments: a tool result, not a protocol error.
    let v = server.call(6, "compute", json!("1 2 ADD"));
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"],
        "invalidRequest"
    );
    // An unknown method is still -32601.
    server.send(&json!({ "jsonrpc": "2.0", "id": 8, "method": "no/such" }));
    assert_eq!(error_code(&server.recv()), -32601);
}

#[test]
fn a_lone_surrogate_escape_reads_as_the_replacement_character() {
    let mut server = RawServer::started(&[]);
    // What Python's json.dumps and JavaScript's JSON.stringify write for a lone surrogate.
    server.send_line(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compute","arguments":{"source":"'\ud800' CHARS"}}}"#,
    );
    let v = server.recv();
    assert_eq!(v["id"], 1, "{v}");
    let env = &v["result"]["structuredContent"];
    assert_eq!(env["status"], "ok", "{env}");
    assert_eq!(env["stackDisplay"], json!(["[ '\u{FFFD}' ]"]));
    // A valid pair is one character.
    server.send_line(
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"compute","arguments":{"source":"'\ud83d\ude00' CHARS LENGTH"}}}"#,
    );
    let v = server.recv();
    assert_eq!(
        v["result"]["structuredContent"]["stackDisplay"],
        json!(["1/1"])
    );
}

#[test]
fn a_line_over_one_mebibyte_is_refused_and_one_just_under_runs() {
    let mut server = RawServer::started(&[]);
    // A 64 KiB source written with the longest escapes fits (6 bytes a character).
    let source: String = std::iter::repeat_n(' ', 65_536 - 1).chain(['1']).collect();
    let escaped: String = source
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"{escaped}"}}}}}}"#
    );
    assert!(line.len() < 1024 * 1024);
    server.send_line(line.as_bytes());
    let v = server.recv();
    assert_eq!(
        v["result"]["structuredContent"]["stackDisplay"],
        json!(["1/1"]),
        "{v}"
    );
    // A line of `total` bytes: a call padded inside its `_meta`.
    let padded = |id: u64, total: usize| {
        let frame = |pad: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"4"}},"_meta":{{"pad":"{pad}"}}}}}}"#
            )
        };
        let line = frame(&"x".repeat(total - frame("").len()));
        assert_eq!(line.len(), total);
        line
    };
    // Exactly 1 MiB + 1 bytes: refused without being read whole.
    let answers = answers_to(&mut server, &[padded(2, 1024 * 1024 + 1).as_bytes()]);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(error_code(&answers[0]), -32600);
    assert!(answers[0]["id"].is_null());
    assert!(answers[0]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("Request too large")));
    // Exactly 1 MiB is read and runs.
    server.send_line(padded(3, 1024 * 1024).as_bytes());
    let v = server.recv();
    assert_eq!(v["id"], 3, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["stackDisplay"],
        json!(["4/1"])
    );
    let refused = server.stderr_lines_with("refused input", 1);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].len() < 400, "{}", refused[0]);
}

#[test]
fn a_client_that_stops_reading_holds_the_server_back_instead_of_growing_it() {
    let mut server = RawServer::started(&[]);
    // 240 calls whose answers are ~720 KB each (173 MB in all, several times that as the
    // server's result values), written without reading a single answer. A writer thread
    // sends them, since the server stops reading stdin once its answers back up.
    let calls = 240u64;
    let mut writer = server.take_writer();
    let sender = std::thread::spawn(move || {
        for id in 1..=calls {
            let call = json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "compute", "arguments": { "source": "0 4999 RANGE" } }
            });
            if writer.line(call.to_string().as_bytes()).is_err() {
                return;
            }
        }
    });
    std::thread::sleep(Duration::from_secs(3));
    let held_back = server.peak_kib();
    // Now read: every call is answered, in full, exactly once.
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < calls as usize {
        let v = server.recv();
        assert_eq!(
            v["result"]["structuredContent"]["stack"][0]["value"]
                .as_array()
                .map(Vec::len),
            Some(5000),
            "{}",
            v["id"]
        );
        assert!(seen.insert(v["id"].as_u64().expect("an integer id")));
    }
    sender.join().expect("the writer thread");
    // Held back, the server holds a few answers (8 unwritten, 8 queued, 64 requests read
    // and waiting for a place) and the calls
    // running: about 90 MB in a debug build whatever the number of calls.
    assert!(
        held_back < 160 * 1024,
        "the server grew to {held_back} KiB while its answers backed up"
    );
}
