//! The built server over raw stdio: stdout carries only JSON-RPC, stderr only
//! `[ajisai-mcp]` lines for startup and host errors; non-object arguments; concurrency
//! of requests; cancellation; EOF and signals end the process.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");

/// A program that runs for a while (about a second in a debug build) within every limit.
const SLOW: &str = "0 99998 RANGE UNIQUE UNIQUE UNIQUE UNIQUE UNIQUE LENGTH";

struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(BIN)
            .env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env_remove("AJISAI_PHRASEBOOK")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let err_pipe = child.stderr.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (etx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut all = String::new();
            let _ = BufReader::new(err_pipe).read_to_string(&mut all);
            let _ = etx.send(all);
        });
        let mut raw = Raw {
            child,
            stdin,
            lines,
            stderr,
        };
        raw.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "raw-test", "version": "0" }
            }
        }));
        let init = raw.until_id(&json!(0));
        assert_eq!(
            init.last().expect("answered")["result"]["serverInfo"]["name"],
            "ajisai"
        );
        raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        raw
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&serde_json::to_string(message).expect("serializes"));
    }

    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within 60 s");
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carries only JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "only JSON-RPC on stdout: {line}");
        v
    }

    /// Every message up to and including the answer to `id`.
    fn until_id(&self, id: &Value) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            let done = &v["id"] == id;
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    /// Every message until each of `ids` was answered.
    fn until_all(&self, ids: &[u64]) -> Vec<Value> {
        let mut seen: Vec<Value> = Vec::new();
        while !ids.iter().all(|id| seen.iter().any(|v| v["id"] == *id)) {
            seen.push(self.next());
        }
        seen
    }

    /// Close stdin, wait for the exit, and return (exit code, remaining stdout, stderr).
    fn finish(mut self) -> (i32, Vec<String>, String) {
        drop(self.stdin.take());
        let mut status = None;
        for _ in 0..600 {
            if let Some(s) = self.child.try_wait().expect("wait") {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let status = status.unwrap_or_else(|| {
            let _ = self.child.kill();
            panic!("the server did not exit within 30 s of stdin closing")
        });
        let rest: Vec<String> = self.lines.iter().collect();
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_default();
        (status.code().expect("exited normally"), rest, stderr)
    }
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments }
    })
}

fn structured(answer: &Value) -> &Value {
    &answer["result"]["structuredContent"]
}

#[test]
fn stdout_carries_only_json_rpc_and_stderr_only_host_errors() {
    let mut raw = Raw::start();
    raw.send(&call(
        1,
        "compute",
        json!({ "source": "1 2 ADD 'x' PRINT" }),
    ));
    raw.send(&call(2, "nope", json!({})));
    raw.send(&call(3, "compute", json!({ "source": "1", "extra": 1 })));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": { "uri": "ajisai://nowhere" } }));
    raw.send_line("this is not JSON");
    raw.send(&json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": 7 }));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 6, "method": "no/such/method" }));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" }));
    let answers = raw.until_all(&[1, 2, 3, 4, 5, 6, 7]);
    let by_id = |id: u64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("answer {id}"))
    };
    assert_eq!(structured(by_id(1))["output"], json!(["x"]));
    assert_eq!(structured(by_id(2))["error"]["code"], "unknownTool");
    assert_eq!(structured(by_id(3))["error"]["code"], "invalidRequest");
    assert_eq!(by_id(4)["error"]["code"], -32002);
    // Params a known method cannot take (the boundedness issue, item 4).
    assert_eq!(by_id(5)["error"]["code"], -32602);
    // Text that is not JSON is answered too, with a null id.
    let parse_errors: Vec<&Value> = answers.iter().filter(|a| a["id"].is_null()).collect();
    assert_eq!(parse_errors.len(), 1, "{answers:?}");
    assert_eq!(parse_errors[0]["error"]["code"], -32700);
    assert_eq!(by_id(6)["error"]["code"], -32601);
    assert_eq!(by_id(7)["result"], json!({}));
    let (code, rest, stderr) = raw.finish();
    assert_eq!(code, 0, "stdin EOF ends serve mode with 0");
    assert!(rest.is_empty(), "nothing after the last answer: {rest:?}");
    let lines: Vec<&str> = stderr.lines().collect();
    for line in &lines {
        assert!(line.starts_with("[ajisai-mcp] "), "{line}");
        assert!(!line.contains('\u{1b}'), "no colour: {line}");
    }
    assert!(
        lines[0].contains("ajisai-mcp-server") && lines[0].contains("numerics"),
        "{stderr}"
    );
    let host_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains(" code=") && !l.contains("refused input"))
        .collect();
    assert_eq!(host_lines.len(), 2, "one line per host error: {stderr}");
    assert!(
        host_lines[0].contains("code=unknownTool") || host_lines[1].contains("code=unknownTool")
    );
    // One line per refused input line (the text that is not JSON, the bad params, the
    // method this server does not offer).
    let refused: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("refused input"))
        .collect();
    assert_eq!(refused.len(), 3, "one line per refused line: {stderr}");
    assert!(
        refused.iter().any(|l| l.contains("\"this is not JSON\"")),
        "{stderr}"
    );
    assert_eq!(lines.len(), 6, "nothing else per request: {stderr}");
}

#[test]
fn non_object_arguments_are_an_invalid_request_tool_result() {
    let mut raw = Raw::start();
    for (id, args) in [
        (1, json!("1 2 ADD")),
        (2, json!([1])),
        (3, Value::Null),
        (4, json!(5)),
    ] {
        raw.send(&call(id, "compute", args.clone()));
        let answer = raw.until_id(&json!(id)).pop().expect("answered");
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{answer}");
        let v = &result["structuredContent"];
        assert_eq!(v["status"], "hostError");
        assert_eq!(v["error"]["code"], "invalidRequest");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("The arguments of compute must be a JSON object")),
            "{v}"
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
                .expect("JSON text");
        assert_eq!(&text, v);
    }
    // The tool name is checked first.
    raw.send(&call(9, "frobnicate", json!("x")));
    let answer = raw.until_id(&json!(9)).pop().expect("answered");
    assert_eq!(structured(&answer)["error"]["code"], "unknownTool");
    let (code, _, _) = raw.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_running_computation_does_not_delay_other_requests() {
    let mut raw = Raw::start();
    raw.send(&call(10, "compute", json!({ "source": SLOW })));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 11, "method": "ping" }));
    raw.send(&call(12, "word_contract", json!({ "word": "UNIQUE" })));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 13, "method": "resources/read", "params": { "uri": "ajisai://limits" } }));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 14, "method": "tools/list" }));
    let answers = raw.until_id(&json!(10));
    let order: Vec<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    assert_eq!(order.last(), Some(&10));
    assert_eq!(
        order.len(),
        5,
        "ping, word_contract, the resource and the tool list came first: {order:?}"
    );
    assert_eq!(
        structured(answers.last().expect("answered"))["stackDisplay"],
        json!(["99999/1"])
    );
    let (code, _, _) = raw.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_burst_of_slow_calls_does_not_hold_back_the_quick_requests_behind_it() {
    let mut raw = Raw::start();
    // More slow calls than evaluations may hold places (8, docs/mcp/transports.md), then
    // quick requests: these are read past the evaluations that wait for a place and
    // answered while every slot is busy.
    let slow: Vec<u64> = (100..112).collect();
    for &id in &slow {
        raw.send(&call(id, "compute", json!({ "source": SLOW })));
    }
    raw.send(&json!({ "jsonrpc": "2.0", "id": 200, "method": "ping" }));
    raw.send(&call(201, "word_contract", json!({ "word": "UNIQUE" })));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 202, "method": "resources/read", "params": { "uri": "ajisai://limits" } }));
    let mut answers = raw.until_all(&[200, 201, 202]);
    let early: Vec<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    assert!(
        early.iter().all(|id| !slow.contains(id)),
        "the quick requests were answered before any slow call: {early:?}"
    );
    // Every slow call is still answered exactly once: its value, or a refusal for
    // capacity when it waited in the gate's queue for longer than it may.
    let unanswered: Vec<u64> = slow
        .iter()
        .copied()
        .filter(|&id| !answers.iter().any(|a| a["id"] == id))
        .collect();
    answers.extend(raw.until_all(&unanswered));
    for &id in &slow {
        let answer: Vec<&Value> = answers.iter().filter(|a| a["id"] == id).collect();
        assert_eq!(answer.len(), 1, "call {id}: {answer:?}");
        let result = structured(answer[0]);
        assert!(
            result["stackDisplay"] == json!(["99999/1"])
                || result["error"]["code"] == "capacityExhausted",
            "call {id}: {result}"
        );
    }
    let (code, _, _) = raw.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_cancelled_call_gets_no_answer_and_the_server_goes_on() {
    let mut raw = Raw::start();
    raw.send(&call(20, "compute", json!({ "source": SLOW })));
    raw.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 20, "reason": "no longer needed" }
    }));
    raw.send(&json!({ "jsonrpc": "2.0", "id": 21, "method": "ping" }));
    raw.send(&call(22, "compute", json!({ "source": "1 2 ADD" })));
    let mut answers = raw.until_id(&json!(22));
    // Give a late answer to 20 the time the whole program would need, then look again.
    raw.send(&call(23, "compute", json!({ "source": SLOW })));
    answers.extend(raw.until_id(&json!(23)));
    assert!(answers.iter().any(|a| a["id"] == 21), "ping answered");
    assert!(
        answers.iter().all(|a| a["id"] != 20),
        "the cancelled call is not answered"
    );
    let (code, rest, _) = raw.finish();
    assert_eq!(code, 0);
    assert!(rest.iter().all(|l| !l.contains("\"id\":20")));
}

#[test]
fn sigterm_stops_the_server_promptly() {
    let mut raw = Raw::start();
    raw.send(&call(1, "compute", json!({ "source": "1" })));
    let _ = raw.until_id(&json!(1));
    let pid = raw.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status();
    if !killed.map(|s| s.success()).unwrap_or(false) {
        // No `kill` command on this system: nothing to test.
        return;
    }
    let mut exited = false;
    for _ in 0..200 {
        if raw.child.try_wait().expect("wait").is_some() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !exited {
        let _ = raw.child.kill();
    }
    assert!(
        exited,
        "the server exits on SIGTERM although stdin is still open"
    );
}
