//! Every call bounded (the boundedness issue), against the live server over real stdio
//! and real HTTP with raw JSON-RPC clients: hostile programs answer with a value, a named
//! language error or a host error, inside the server's memory, and the server keeps
//! serving. Each measurement of peak memory runs in a fresh server process (VmHWM only
//! grows).

use crate::http_support;
use crate::raw_support;

use raw_support::RawServer;
use serde_json::{json, Value};

/// 96 MB, the peak the issue allows the whole server for `{ 1 F } 'F' DEF F`.
const PEAK_KIB_RUN_ELISION: u64 = 96 * 1000;

#[test]
fn a_stack_of_100000_slots_answers_its_error_with_one_run_record() {
    let mut server = RawServer::started(&[]);
    let env = server.compute(1, "{ 1 F } 'F' DEF F");
    assert_eq!(env["schemaVersion"], ajisai_core::envelope::SCHEMA_VERSION);
    assert_eq!(env["outcome"], "error:resourceLimitExceeded", "{env}");
    assert_eq!(env["error"]["resource"], "executionSteps");
    // F recurses without end: the message says how deep it was.
    let message = env["message"].as_str().expect("a message");
    assert!(
        message.starts_with(
            "executionSteps of 100001 exceeds the limit of 100000 (F was 99,999 User Word calls deep"
        ),
        "{message}"
    );
    // The top slots arrive whole within the 64 KiB error budget; everything beneath
    // them is one run.
    let stack = env["stack"].as_array().expect("a stack");
    let display = env["stackDisplay"].as_array().expect("a display");
    assert_eq!(stack.len(), display.len());
    let run = &stack[0];
    assert_eq!(run["type"], "elidedRun", "{run}");
    let count = run["count"].as_u64().expect("a count");
    let bytes = run["approxBytes"].as_u64().expect("a size");
    // Each `1/1` slot costs its node's bytes and its JSON-encoded display's (MCP-53; docs/mcp/envelope.md).
    let per_slot = (stack[1].to_string().len() + display[1].to_string().len()) as u64;
    assert_eq!(bytes, count * per_slot);
    assert_eq!(count as usize + stack.len() - 1, 99_999);
    assert!(stack[1..].iter().all(|n| n["type"] == "number"));
    assert_eq!(
        display[0],
        json!(format!("<elided {count} slots, ~{bytes} bytes>"))
    );
    assert_eq!(
        env["stackElided"],
        json!({"reason":"errorStackBudget","budgetBytes":65536,"slots":[],
               "runs":[{"start":0,"count":count,"approxBytes":bytes}]})
    );
    let kept_cost: u64 = per_slot * (stack.len() as u64 - 1);
    assert!(
        kept_cost <= 65_536 && kept_cost + per_slot > 65_536,
        "{kept_cost}"
    );
    // The server stays small and keeps serving.
    let peak = server.peak_kib();
    assert!(peak < PEAK_KIB_RUN_ELISION, "peak {peak} KiB");
    let env = server.compute(2, "1 2 ADD");
    assert_eq!(env["stackDisplay"], json!(["3/1"]));
}

/// The programs of `golden/hostile.json`.
fn hostile_programs() -> Vec<serde_json::Value> {
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("../../golden/hostile.json")).expect("JSON");
    doc["programs"].as_array().expect("programs").clone()
}

/// The whole server may hold the 64 MiB ceiling, the 16 MiB overshoot and what it holds
/// at rest (debug builds hold more of it).
const PEAK_KIB_PER_CALL: u64 = (64 + 16 + 40) * 1024;

/// `golden/hostile.json`: each program, in a fresh server process, gets the answer the
/// file records — a value, a named language error or a host error — while the process
/// stays under the ceiling plus the overshoot, and the next call is served.
#[test]
fn every_hostile_program_gets_its_answer_within_the_memory_ceiling() {
    let mut problems = Vec::new();
    for p in &hostile_programs() {
        let name = p["name"].as_str().expect("a name");
        let mut server = RawServer::started(&[]);
        let env = server.compute(1, p["source"].as_str().expect("a source"));
        for (pointer, want) in p["expect"].as_object().expect("expectations") {
            if env.pointer(pointer) != Some(want) {
                problems.push(format!(
                    "{name}: {pointer} expected {want}, got {:?}",
                    env.pointer(pointer)
                ));
            }
        }
        let peak = server.peak_kib();
        if peak > PEAK_KIB_PER_CALL {
            problems.push(format!("{name}: the server peaked at {peak} KiB"));
        }
        let next = server.compute(2, "1 2 ADD");
        if next["stackDisplay"] != json!(["3/1"]) {
            problems.push(format!("{name}: the next call got {next}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No hostile program may be recorded as answering `timeout`: the deadline is a backstop,
/// and every program of the set is bounded by a limit that names itself (the reciprocal's
/// products are priced, docs/decisions.md).
#[test]
fn no_hostile_program_is_answered_by_the_deadline() {
    let mut problems = Vec::new();
    for p in &hostile_programs() {
        let name = p["name"].as_str().unwrap_or("?");
        let expect = &p["expect"];
        match (expect["/status"].as_str(), expect["/error/code"].as_str()) {
            (Some("ok" | "error"), _) => {}
            (Some("hostError"), Some(code)) if code != "timeout" => {}
            other => problems.push(format!("{name}: {other:?}")),
        }
    }
    assert!(
        problems.is_empty(),
        "not a value, a named error or a host error other than timeout: {problems:?}"
    );
}

/// [`every_hostile_program_gets_its_answer_within_the_memory_ceiling`] over HTTP, each
/// program in a fresh `--http` server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_every_hostile_program_gets_its_answer_within_the_memory_ceiling() {
    let mut problems = Vec::new();
    for p in &hostile_programs() {
        let name = p["name"].as_str().expect("a name");
        let server = http_support::HttpServer::spawn(&[], &[]);
        let answer = http_support::call(
            &server,
            "compute",
            json!({ "source": p["source"].as_str().expect("a source") }),
        )
        .await;
        let env = &answer["result"]["structuredContent"];
        for (pointer, want) in p["expect"].as_object().expect("expectations") {
            if env.pointer(pointer) != Some(want) {
                problems.push(format!(
                    "{name}: {pointer} expected {want}, got {:?}",
                    env.pointer(pointer)
                ));
            }
        }
        let peak = raw_support::proc_status_kib(server.pid(), "VmHWM:");
        if peak == 0 || peak > PEAK_KIB_PER_CALL {
            problems.push(format!("{name}: the server peaked at {peak} KiB"));
        }
        let next = http_support::call(&server, "compute", json!({ "source": "1 2 ADD" })).await;
        if next["result"]["structuredContent"]["stackDisplay"] != json!(["3/1"]) {
            problems.push(format!("{name}: the next call got {next}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Four memory bombs at once on the live server, all answered `memoryExhausted`; once
/// the answers are out a fifth call is admitted at once (the slots were given back
/// before the answers were sent), and the server gave the memory back.
#[test]
fn after_four_memory_bombs_a_fifth_call_is_admitted_at_once() {
    let mut server = RawServer::started(&[]);
    // Each builds five Vectors of 100,000 distinct thousand-bit Numbers: well inside its
    // work limits (about 2 M of numericWork, 3 M of collectionWork), far past 64 MiB.
    let bomb = |scale: u32| {
        let products: String = (0..5).map(|k| format!(" R 1e{} *", scale + k)).collect();
        format!("0 99999 RANGE 'R' BIND{products}")
    };
    let bombs = [bomb(300), bomb(310), bomb(320), bomb(330)];
    for (id, bomb) in (1..=4u64).zip(&bombs) {
        server.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "compute", "arguments": { "source": bomb } }
        }));
    }
    for _ in 0..4 {
        let v = server.recv();
        assert_eq!(
            v["result"]["structuredContent"]["error"]["code"], "memoryExhausted",
            "{v}"
        );
    }
    let env = server.compute(5, "1 2 ADD");
    assert_eq!(env["stackDisplay"], json!(["3/1"]), "{env}");
    let peak = server.peak_kib();
    // Four calls near their ceiling at once.
    assert!(peak < 4 * PEAK_KIB_PER_CALL, "peak {peak} KiB");
    // The bombs' values are freed off the calls' threads, by the reaper, which then gives
    // the freed pages back to the system: soon after the answers, not before them.
    let given_back = std::time::Instant::now();
    let mut resident = server.resident_kib();
    while resident >= 64 * 1024 && given_back.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        resident = server.resident_kib();
    }
    assert!(
        resident < 64 * 1024,
        "memory given back after the bombs: {resident} KiB resident (peak {peak} KiB)"
    );
}

/// A line the server refuses (not JSON) and logs with about 480 bytes: its quote shows
/// 64 characters, each written as an escape.
fn noisy_line() -> Vec<u8> {
    vec![0x7f; 200]
}

/// Refused lines sent in the stalled-stderr tests: their log lines (about 48 MB) are
/// far more than the pipe (64 KiB) and the log queue (at most 2 MiB) hold.
const NOISY_LINES: usize = 100_000;

/// The whole server's peak with a stalled stderr, whatever the number of lines logged:
/// what it holds at rest (about 19 MiB in a debug build), the log's two buffers (2 MiB)
/// and room for the allocator. An unbounded log of [`NOISY_LINES`] would need more than
/// this on its own.
const PEAK_KIB_STALLED_LOG: u64 = 40 * 1024;

/// How long a process may take to exit before the test calls it hung (not a measurement:
/// the drain's own deadlines are seconds).
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A stdio server whose stderr is a pipe nobody reads (a log shipper that hangs) answers
/// every line while its log is dropped, holds a fixed amount of memory however much it
/// logs, and exits 0 on SIGTERM although its log cannot be written.
#[test]
fn a_stalled_stderr_neither_blocks_nor_grows_the_stdio_server() {
    assert!(NOISY_LINES as u64 * 480 / 1024 > PEAK_KIB_STALLED_LOG);
    // On each builtin backend of this build (the log path knows none, and must not come
    // to).
    let backends = raw_support::builtin_backends();
    assert!(backends.contains(&"pure"), "{backends:?}");
    for backend in backends {
        stalled_stdio_server(backend);
    }
}

fn stalled_stdio_server(backend: &str) {
    let mut server = RawServer::spawn_stalled(&[], &[("AJISAI_NUMERICS", backend)]);
    server.initialize();
    let mut writer = server.take_writer();
    let sender = std::thread::spawn(move || {
        for _ in 0..NOISY_LINES {
            writer.line(&noisy_line()).expect("the server reads stdin");
        }
        writer
    });
    for _ in 0..NOISY_LINES {
        let answer = server.recv();
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
    }
    let _stdin = sender.join().expect("the sender");
    let peak = server.peak_kib();
    assert!(
        peak < PEAK_KIB_STALLED_LOG,
        "{backend}: the server peaked at {peak} KiB"
    );
    server.signal("TERM");
    assert_eq!(server.exit_within(EXIT_WAIT), Ok(Some(0)), "{backend}");
    // Nothing but JSON-RPC reached stdout, the exit with a full log queue included (a
    // logger that reports its own trouble on stdout would break the protocol here).
    while let Some(line) = server.recv_line(std::time::Duration::from_millis(200)) {
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("{backend}: stdout carried {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{backend}: {line}");
    }
}

/// `clients` concurrent clients each POST `calls` refused bodies (each logs a refusal and
/// a request line).
async fn flood(server: &http_support::HttpServer, clients: usize, calls: usize) {
    let url = server.mcp();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..calls {
                let a = http_support::post(&url, noisy_line(), &[]).await;
                assert_eq!(a.status, 400, "{}", a.body);
            }
        }));
    }
    for t in tasks {
        t.await.expect("a client");
    }
}

/// The value of a counter without labels in Prometheus text.
fn counter(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {metrics}"))
}

/// The operator's case of the issue: `--http`, stderr on a pipe nobody reads, 16 clients
/// flooding it, then SIGTERM. Every request is answered, the server's memory stays fixed,
/// `/metrics` counts the dropped lines, and the drain exits 0 without writing them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stderr_neither_blocks_nor_grows_the_http_server() {
    let mut server = http_support::HttpServer::spawn_stalled(&[]);
    flood(&server, 16, 400).await;
    let peak = raw_support::proc_status_kib(server.pid(), "VmHWM:");
    assert!(
        peak > 0 && peak < PEAK_KIB_STALLED_LOG,
        "the server peaked at {peak} KiB"
    );
    let metrics = http_support::get(&format!("{}/metrics", server.base), &[]).await;
    assert_eq!(metrics.status, 200);
    let dropped = counter(&metrics.body, "ajisai_log_lines_dropped_total");
    assert!(dropped > 0, "{}", metrics.body);
    server.signal("TERM");
    let exit = tokio::task::block_in_place(|| raw_support::exit_within(server.child(), EXIT_WAIT));
    assert_eq!(exit, Ok(Some(0)));
}

/// Once stderr is read again, one line says how many lines were dropped, and the lines
/// it reports are the ones `/metrics` counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_stderr_is_read_again_the_server_says_how_many_lines_it_dropped() {
    let mut server = http_support::HttpServer::spawn_stalled(&[]);
    flood(&server, 16, 400).await;
    server.resume_stderr();
    let reports = tokio::task::block_in_place(|| {
        server.stderr_lines_with("lines dropped while stderr was not keeping up", 1)
    });
    let reported: u64 = reports
        .iter()
        .map(|l| {
            l.strip_prefix("[ajisai-mcp] log: ")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("a report line: {l}"))
        })
        .sum();
    assert!(reported > 0, "{reports:?}");
    let metrics = http_support::get(&format!("{}/metrics", server.base), &[]).await;
    assert_eq!(
        counter(&metrics.body, "ajisai_log_lines_dropped_total"),
        reported
    );
}
