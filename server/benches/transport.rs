//! The transports against their floors: `ajisai-floor-server`, an rmcp server built with
//! the same features that answers a fixed result of the same size and does no work.
//!
//! Both revisions' requests are measured: 2025-11-25 (after `initialize`, plain calls,
//! `MCP-Protocol-Version` over HTTP) and 2026-07-28 (no `initialize`, a complete `_meta`
//! on every call, and `Mcp-Method`/`Mcp-Name` headers over HTTP). Ours is measured twice
//! in each: on its one path, and with the same call sent down rmcp's typed path
//! (`"requestState":null`), which is what every call with `_meta` cost before.
//!
//! - stdio: `1 2 ADD` as `tools/call`, one request at a time, the servers interleaved
//!   call by call (rotating which goes first); p50 and p95 latency, and the ratio of
//!   the p50s (goal ≤ 1.05).
//! - HTTP: 16 keep-alive clients sending `1 2 ADD` as fast as answers come, each server in
//!   turn for the same time, twice; calls per second and p50, and the ratios (goals:
//!   throughput ≥ 1.5 of the floor's, p50 ≤ 0.9 of it).
//!
//! `cargo bench -p ajisai-server --features bench-floor --bench transport`
//! (`AJISAI_BENCH_CALLS`, default 3,000 per stdio server; `AJISAI_BENCH_SECONDS`, default
//! 3 per HTTP phase). Figures, not thresholds: the machine is shared and noisy.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const OURS: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");
const FLOOR: &str = env!("CARGO_BIN_EXE_ajisai-floor-server");

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A revision's requests: how a session opens over stdio, how a call is written, and the
/// headers an HTTP client sends with it.
struct Revision {
    name: &'static str,
    /// The `initialize` request (none: a 2026-07-28 client opens the session with its
    /// first request, whose `_meta` is complete).
    initialize: Option<&'static str>,
    /// The call `1 2 ADD` with an id.
    call: fn(u64) -> String,
    /// The same call down rmcp's typed path in `ajisai-mcp-server` (`"requestState":null`,
    /// which rmcp reads and ignores): what every call cost before the one path.
    via_rmcp: fn(u64) -> String,
    headers: &'static [(&'static str, &'static str)],
}

const REVISIONS: [Revision; 2] = [
    Revision {
        name: "2025-11-25",
        initialize: Some(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
        ),
        call: |id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1 2 ADD"}}}}}}"#
            )
        },
        via_rmcp: |id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1 2 ADD"}},"requestState":null}}}}"#
            )
        },
        headers: &[("MCP-Protocol-Version", "2025-11-25")],
    },
    Revision {
        name: "2026-07-28",
        initialize: None,
        call: |id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1 2 ADD"}},"_meta":{META_2026}}}}}"#
            )
        },
        via_rmcp: |id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1 2 ADD"}},"_meta":{META_2026},"requestState":null}}}}"#
            )
        },
        headers: &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "compute"),
        ],
    },
];

/// The `_meta` a 2026-07-28 client sends with every request.
const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}"#;

/// What is measured in one revision: a label, the binary, and how its calls are written.
type Contestant = (&'static str, &'static str, fn(u64) -> String);

/// Ours, ours through rmcp's typed path, and the floor, for `r`'s requests.
fn contestants(r: &Revision) -> [Contestant; 3] {
    [
        ("ajisai-mcp-server   ", OURS, r.call),
        ("  via rmcp's path   ", OURS, r.via_rmcp),
        ("floor (rmcp no-op)  ", FLOOR, r.call),
    ]
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A server over stdio with a blocking line client.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl StdioServer {
    fn start(binary: &str, initialize: Option<&str>) -> StdioServer {
        let mut child = Command::new(binary)
            .env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env_remove("AJISAI_PHRASEBOOK")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut s = StdioServer {
            child,
            stdin,
            stdout,
            line: String::new(),
        };
        if let Some(init) = initialize {
            s.exchange(init);
            writeln!(s.stdin, "{INITIALIZED}").expect("written");
        }
        s
    }

    fn exchange(&mut self, request: &str) -> usize {
        writeln!(self.stdin, "{request}").expect("written");
        self.stdin.flush().expect("flushed");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("an answer");
        assert!(self.line.contains("\"result\""), "{}", self.line);
        self.line.len()
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stdio(r: &Revision, calls: u64) -> f64 {
    let contestants = contestants(r);
    let mut servers: Vec<StdioServer> = contestants
        .iter()
        .map(|(_, binary, _)| StdioServer::start(binary, r.initialize))
        .collect();
    // Warm them up.
    for id in 1..=200 {
        for (s, (_, _, line)) in servers.iter_mut().zip(&contestants) {
            s.exchange(&line(id));
        }
    }
    let mut times: Vec<Vec<Duration>> =
        (0..3).map(|_| Vec::with_capacity(calls as usize)).collect();
    let mut bytes = [0usize; 3];
    for i in 0..calls {
        // Each goes first, second and third in turn.
        for k in 0..3 {
            let c = (i as usize + k) % 3;
            let line = contestants[c].2(1_000 + i);
            let t = Instant::now();
            bytes[c] = servers[c].exchange(&line);
            times[c].push(t.elapsed());
        }
    }
    for t in &mut times {
        t.sort();
    }
    let p50: Vec<Duration> = times.iter().map(|t| percentile(t, 0.5)).collect();
    println!(
        "stdio, {} requests, 1 2 ADD, {calls} calls each, interleaved:",
        r.name
    );
    for (c, (label, _, _)) in contestants.iter().enumerate() {
        println!(
            "  {label} p50 {:7.1} µs  p95 {:7.1} µs  ({} bytes a line)",
            micros(p50[c]),
            micros(percentile(&times[c], 0.95)),
            bytes[c]
        );
    }
    let ratio = p50[0].as_secs_f64() / p50[2].as_secs_f64();
    println!(
        "  p50 ratio ours/floor: {ratio:.2} (goal <= 1.05); through rmcp's path: {:.2}",
        p50[1].as_secs_f64() / p50[2].as_secs_f64()
    );
    ratio
}

/// A server over HTTP; stderr is drained (ours logs a line per request).
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(binary: &str) -> HttpServer {
        let mut child = Command::new(binary)
            .args(["--http", "127.0.0.1:0"])
            .env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env_remove("AJISAI_PHRASEBOOK")
            .env_remove("AJISAI_HTTP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
        let mut line = String::new();
        let url = loop {
            line.clear();
            if stderr.read_line(&mut line).expect("stderr") == 0 {
                panic!("{binary} exited before listening");
            }
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.split_whitespace().next().expect("a URL").to_string();
            }
        };
        std::thread::spawn(move || {
            let mut sink = String::new();
            while stderr.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        });
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Drive `url` with `clients` keep-alive clients for `for_time`; answered calls and
/// their latencies.
async fn load(
    url: &str,
    line: fn(u64) -> String,
    headers: &'static [(&'static str, &'static str)],
    clients: usize,
    for_time: Duration,
) -> (u64, Vec<Duration>) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(clients)
        .build()
        .expect("a client");
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for c in 0..clients {
        let client = client.clone();
        let url = url.to_string();
        let stop = Arc::clone(&stop);
        let latencies = Arc::clone(&latencies);
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            let mut id = (c as u64) << 32;
            while !stop.load(Ordering::Relaxed) {
                id += 1;
                let t = Instant::now();
                let mut request = client
                    .post(&url)
                    .header("Accept", "application/json, text/event-stream")
                    .header("Content-Type", "application/json");
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                let answer = request.body(line(id)).send().await.expect("answered");
                let body = answer.bytes().await.expect("a body");
                assert!(body.len() > 1000, "a tool result");
                mine.push(t.elapsed());
            }
            latencies.lock().expect("latencies").extend(mine);
        }));
    }
    tokio::time::sleep(for_time).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.expect("a client task");
    }
    let all = std::mem::take(&mut *latencies.lock().expect("latencies"));
    (all.len() as u64, all)
}

fn http(r: &Revision, seconds: u64) -> (f64, f64) {
    let contestants = contestants(r);
    let ours = HttpServer::start(OURS);
    let floor = HttpServer::start(FLOOR);
    let urls = [&ours.url, &ours.url, &floor.url];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let phase = Duration::from_secs(seconds);
    let clients = 16;
    let mut answered = [0u64; 3];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); 3];
    runtime.block_on(async {
        // Warm-up.
        for (url, (_, _, line)) in urls.iter().zip(&contestants) {
            load(url, *line, r.headers, clients, Duration::from_millis(500)).await;
        }
        // Twice, the second time in the opposite order.
        for round in 0..2 {
            for k in 0..3 {
                let c = if round == 0 { 2 - k } else { k };
                let (n, t) = load(urls[c], contestants[c].2, r.headers, clients, phase).await;
                answered[c] += n;
                times[c].extend(t);
            }
        }
    });
    for t in &mut times {
        t.sort();
    }
    let total = 2.0 * phase.as_secs_f64();
    let rate: Vec<f64> = answered.iter().map(|&n| n as f64 / total).collect();
    let p50: Vec<Duration> = times.iter().map(|t| percentile(t, 0.5)).collect();
    println!(
        "HTTP, {} requests, 1 2 ADD, {clients} keep-alive clients, 2 x {seconds} s per server:",
        r.name
    );
    for (c, (label, _, _)) in contestants.iter().enumerate() {
        println!(
            "  {label} {:8.0} calls/s  p50 {:7.1} µs  p95 {:7.1} µs",
            rate[c],
            micros(p50[c]),
            micros(percentile(&times[c], 0.95))
        );
    }
    let throughput = rate[0] / rate[2];
    let latency = p50[0].as_secs_f64() / p50[2].as_secs_f64();
    println!(
        "  throughput ratio ours/floor: {throughput:.2} (goal >= 1.5); p50 ratio: {latency:.2} (goal <= 0.9)"
    );
    println!(
        "  through rmcp's path: throughput {:.2}, p50 {:.2}",
        rate[1] / rate[2],
        p50[1].as_secs_f64() / p50[2].as_secs_f64()
    );
    (throughput, latency)
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument selects one part.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wants = |part: &str| only.is_empty() || only.iter().any(|o| o == part);
    let mut summary = Vec::new();
    for r in &REVISIONS {
        if wants("stdio") {
            let p50 = stdio(r, env_number("AJISAI_BENCH_CALLS", 3_000));
            summary.push(format!("{} stdio p50 {p50:.2}x the floor", r.name));
        }
        if wants("http") {
            let (throughput, p50) = http(r, env_number("AJISAI_BENCH_SECONDS", 3));
            summary.push(format!(
                "{} HTTP throughput {throughput:.2}x, p50 {p50:.2}x the floor",
                r.name
            ));
        }
    }
    println!("summary (goals: stdio p50 <= 1.05, HTTP throughput >= 1.5 and p50 <= 0.9):");
    for line in summary {
        println!("  {line}");
    }
}
