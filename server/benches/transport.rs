//! The transports against their floors: `ajisai-floor-server`, an rmcp server built with
//! the same features that answers a fixed result of the same size and does no work; and
//! the two isolation modes side by side (`--isolation thread` and `--isolation process`,
//! docs/mcp/transports.md#isolation).
//!
//! Both revisions' requests are measured: 2025-11-25 (after `initialize`, plain calls,
//! `MCP-Protocol-Version` over HTTP) and 2026-07-28 (no `initialize`, a complete `_meta`
//! on every call, and `Mcp-Method`/`Mcp-Name` headers over HTTP). Ours is measured with
//! thread isolation and with process isolation, and (thread isolation) with the same call
//! sent down rmcp's typed path (`"requestState":null`), which is what every call with
//! `_meta` cost before the one path.
//!
//! - stdio: `1 2 ADD` as `tools/call`, one request at a time, the servers interleaved
//!   call by call (rotating which goes first); p50 and p95 latency, and the ratios of the
//!   p50s (goals: thread ≤ 1.05 of the floor, process ≤ 1.3 of thread).
//! - HTTP: 16 keep-alive clients sending `1 2 ADD` as fast as answers come, each server in
//!   turn for the same time, twice; calls per second and p50, and the ratios (goals:
//!   throughput ≥ 1.5 of the floor's with threads and ≥ 1.2 with processes, p50 ≤ 0.9 of
//!   the floor's, process p50 ≤ 1.3 of thread).
//! - wrk (when `wrk` is installed): the same HTTP measurement with `wrk` as the client
//!   (one thread, 16 connections, the same body on every call). reqwest's client runs in
//!   this process on the same two cores and costs about half of what the floor's server
//!   costs per call; wrk costs a fraction of that, so these ratios say more about the
//!   servers themselves. Beside them, where the machine's time went per call in each
//!   server's turns (its process, its workers, wrk, and idle, from `/proc`: together
//!   every CPU's time), steadier than calls per second on a shared machine, and what the
//!   throughput goal leaves a call of that time. Two more floors run under wrk:
//!   `ajisai-handoff-floor`, bare hyper that hands each request to four threads or to
//!   four child processes over pipes and answers the same bytes, doing no work — what
//!   each isolation mode's hand-off alone allows, so that the rest is ours.
//! - faults (with `--features bench-floor,fault-injection`): over HTTP with process
//!   isolation and 4 slots, three `FAULT-SPIN` at once, then a `1024 FAULT-HOG` and a
//!   `FAULT-ABORT`, while another client sends small calls: when each fault was answered
//!   (goal: the spins by their deadline plus 1 s) and the other client's p99 (goal
//!   < 100 ms); over stdio with thread isolation, `ping` while two calls spin (goal:
//!   within 200 ms).
//!
//! `cargo bench -p ajisai-server --features bench-floor --bench transport [stdio|http|wrk|faults]`
//! (`AJISAI_BENCH_CALLS`, default 3,000 per stdio server; `AJISAI_BENCH_SECONDS`, default
//! 3 per HTTP phase). Figures, not thresholds: the machine is shared and noisy.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const OURS: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");
const FLOOR: &str = env!("CARGO_BIN_EXE_ajisai-floor-server");
const HANDOFF_FLOOR: &str = env!("CARGO_BIN_EXE_ajisai-handoff-floor");

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

/// What is measured in one revision: a label, the binary, its arguments (besides the
/// transport's), and how its calls are written.
type Contestant = (
    &'static str,
    &'static str,
    &'static [&'static str],
    fn(u64) -> String,
);

/// Ours with threads, with processes, with threads through rmcp's typed path, and the
/// floor, for `r`'s requests.
fn contestants(r: &Revision) -> [Contestant; 4] {
    [
        (
            "ours, threads       ",
            OURS,
            &["--isolation", "thread"],
            r.call,
        ),
        (
            "ours, processes     ",
            OURS,
            &["--isolation", "process"],
            r.call,
        ),
        (
            "  via rmcp's path   ",
            OURS,
            &["--isolation", "thread"],
            r.via_rmcp,
        ),
        ("floor (rmcp no-op)  ", FLOOR, &[], r.call),
    ]
}

/// The contestants' indices.
const THREADS: usize = 0;
const PROCESSES: usize = 1;
const VIA_RMCP: usize = 2;
const FLOOR_AT: usize = 3;

/// Under wrk, besides [`contestants`]: bare hyper with each isolation mode's hand-off and no
/// work (`ajisai-handoff-floor`), at these indices.
fn handoff_floors(r: &Revision) -> [Contestant; 2] {
    [
        (
            "hyper + threads     ",
            HANDOFF_FLOOR,
            &["--handoff", "thread"],
            r.call,
        ),
        (
            "hyper + processes   ",
            HANDOFF_FLOOR,
            &["--handoff", "process"],
            r.call,
        ),
    ]
}
const HANDOFF_THREADS: usize = 4;
const HANDOFF_PROCESSES: usize = 5;

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
    fn start(binary: &str, args: &[&str], initialize: Option<&str>) -> StdioServer {
        let mut child = Command::new(binary)
            .args(args)
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

fn stdio(r: &Revision, calls: u64) -> (f64, f64) {
    let contestants = contestants(r);
    let n = contestants.len();
    let mut servers: Vec<StdioServer> = contestants
        .iter()
        .map(|(_, binary, args, _)| StdioServer::start(binary, args, r.initialize))
        .collect();
    // Warm them up.
    for id in 1..=200 {
        for (s, (_, _, _, line)) in servers.iter_mut().zip(&contestants) {
            s.exchange(&line(id));
        }
    }
    let mut times: Vec<Vec<Duration>> =
        (0..n).map(|_| Vec::with_capacity(calls as usize)).collect();
    let mut bytes = vec![0usize; n];
    for i in 0..calls {
        // Each goes first, second, … in turn.
        for k in 0..n {
            let c = (i as usize + k) % n;
            let line = contestants[c].3(1_000 + i);
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
    for (c, (label, _, _, _)) in contestants.iter().enumerate() {
        println!(
            "  {label} p50 {:7.1} µs  p95 {:7.1} µs  ({} bytes a line)",
            micros(p50[c]),
            micros(percentile(&times[c], 0.95)),
            bytes[c]
        );
    }
    let ratio = |a: usize, b: usize| p50[a].as_secs_f64() / p50[b].as_secs_f64();
    println!(
        "  p50 ratios: threads/floor {:.2} (goal <= 1.05); processes/threads {:.2} (goal <= 1.3); through rmcp's path/floor {:.2}",
        ratio(THREADS, FLOOR_AT),
        ratio(PROCESSES, THREADS),
        ratio(VIA_RMCP, FLOOR_AT)
    );
    (ratio(THREADS, FLOOR_AT), ratio(PROCESSES, THREADS))
}

/// A server over HTTP; stderr is drained (ours logs a line per request).
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(binary: &str, args: &[&str]) -> HttpServer {
        HttpServer::start_with(binary, args, &[])
    }

    fn start_with(binary: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut child = Command::new(binary)
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
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

fn http(r: &Revision, seconds: u64) -> [f64; 4] {
    let contestants = contestants(r);
    let n = contestants.len();
    let servers: Vec<HttpServer> = contestants
        .iter()
        .map(|(_, binary, args, _)| HttpServer::start(binary, args))
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let phase = Duration::from_secs(seconds);
    let clients = 16;
    let mut answered = vec![0u64; n];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); n];
    runtime.block_on(async {
        // Warm-up.
        for (server, (_, _, _, line)) in servers.iter().zip(&contestants) {
            load(
                &server.url,
                *line,
                r.headers,
                clients,
                Duration::from_millis(500),
            )
            .await;
        }
        // Twice, the second time in the opposite order.
        for round in 0..2 {
            for k in 0..n {
                let c = if round == 0 { n - 1 - k } else { k };
                let (count, t) =
                    load(&servers[c].url, contestants[c].3, r.headers, clients, phase).await;
                answered[c] += count;
                times[c].extend(t);
            }
        }
    });
    for t in &mut times {
        t.sort();
    }
    let total = 2.0 * phase.as_secs_f64();
    let rate: Vec<f64> = answered.iter().map(|&a| a as f64 / total).collect();
    let p50: Vec<Duration> = times.iter().map(|t| percentile(t, 0.5)).collect();
    println!(
        "HTTP, {} requests, 1 2 ADD, {clients} keep-alive clients, 2 x {seconds} s per server:",
        r.name
    );
    for (c, (label, _, _, _)) in contestants.iter().enumerate() {
        println!(
            "  {label} {:8.0} calls/s  p50 {:7.1} µs  p95 {:7.1} µs",
            rate[c],
            micros(p50[c]),
            micros(percentile(&times[c], 0.95))
        );
    }
    let p50: Vec<f64> = p50.iter().map(Duration::as_secs_f64).collect();
    let ratios = http_ratios(&rate, &p50);
    println!(
        "  through rmcp's path: throughput {:.2}, p50 {:.2}",
        rate[VIA_RMCP] / rate[FLOOR_AT],
        p50[VIA_RMCP] / p50[FLOOR_AT]
    );
    ratios
}

/// The HTTP goals' ratios from each contestant's calls per second and p50 (seconds),
/// printed with their goals: throughput of threads and of processes over the floor's,
/// p50 of threads over the floor's, p50 of processes over threads'.
fn http_ratios(rate: &[f64], p50: &[f64]) -> [f64; 4] {
    let threads = rate[THREADS] / rate[FLOOR_AT];
    let processes = rate[PROCESSES] / rate[FLOOR_AT];
    let p50_threads = p50[THREADS] / p50[FLOOR_AT];
    let p50_processes = p50[PROCESSES] / p50[THREADS];
    println!(
        "  throughput/floor: threads {threads:.2} (goal >= 1.5), processes {processes:.2} (goal >= 1.2); p50 threads/floor {p50_threads:.2} (goal <= 0.9), processes/threads {p50_processes:.2} (goal <= 1.3)"
    );
    [threads, processes, p50_threads, p50_processes]
}

/// One server's calls per second, p50 and calls answered under `wrk` (one thread,
/// `clients` connections) for `seconds`; `None` when wrk is missing or printed no figures.
fn wrk_run(
    url: &str,
    script: &std::path::Path,
    clients: usize,
    seconds: u64,
) -> Option<(f64, Duration, u64)> {
    let out = Command::new("wrk")
        .args([
            "-t1",
            &format!("-c{clients}"),
            &format!("-d{seconds}s"),
            "--latency",
            "-s",
        ])
        .arg(script)
        .arg(url)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let rate = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Requests/sec:"))?
        .trim()
        .parse()
        .ok()?;
    let p50 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("50%"))
        .and_then(|v| wrk_duration(v.trim()))?;
    // "123456 requests in 1.00s, 45.6MB read"
    let calls = text
        .lines()
        .find(|l| l.contains(" requests in "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())?;
    let errors = text.contains("Non-2xx") || text.contains("Socket errors");
    assert!(!errors, "wrk saw failed calls:\n{text}");
    Some((rate, p50, calls))
}

/// CPU time used so far, in clock ticks, by process `pid` (all its threads) and by its
/// children (a server's workers): `/proc/<pid>/stat`'s utime and stime, and the children
/// each of its threads started (`/proc/<pid>/task/*/children`). `None` off Linux.
fn cpu_ticks(pid: u32) -> Option<(u64, u64)> {
    // utime and stime.
    let own = |pid: u32| stat_ticks(&format!("/proc/{pid}/stat"), 14);
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let children: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok())
                .collect::<Vec<_>>()
        })
        .filter_map(own)
        .sum();
    Some((own(pid)?, children))
}

/// CPU time used so far, in clock ticks, by this process's children that have ended and
/// been waited for (`/proc/self/stat`'s cutime and cstime): every `wrk` run, once
/// [`wrk_run`] returns. `None` off Linux.
fn waited_children_ticks() -> Option<u64> {
    // cutime and cstime.
    stat_ticks("/proc/self/stat", 16)
}

/// The sum of fields `field` and `field + 1` (numbered from 1, as proc(5) numbers them)
/// of the `/proc/<pid>/stat` file at `path`.
fn stat_ticks(path: &str, field: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(path).ok()?;
    // The fields after the name, which is in parentheses and may hold spaces: `rest`
    // starts at the 3rd.
    let rest: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
    let at = |n: usize| rest.get(n.checked_sub(3)?)?.parse::<u64>().ok();
    Some(at(field)? + at(field + 1)?)
}

/// The machine's idle time so far, in clock ticks summed over its CPUs (`/proc/stat`'s
/// idle and iowait). `None` off Linux.
fn idle_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    Some(cpu.get(3)? + cpu.get(4)?)
}

/// Where the machine's time went in one server's turns, in clock ticks: its process, its
/// workers, the client (wrk) and nobody (idle), and the calls answered. On a machine this
/// one's size the four add up to every CPU's time, so a server's throughput is the
/// machine's CPUs over their sum per call: what a goal of throughput leaves each of them.
#[derive(Clone, Copy, Default)]
struct MachineTime {
    calls: u64,
    server: u64,
    workers: u64,
    client: u64,
    idle: u64,
}

impl MachineTime {
    /// The counters now, for server `pid`: its process's and its workers' ticks, the
    /// waited children's (the client's, once it has ended) and the machine's idle ticks
    /// (`None` when /proc cannot say).
    fn read(pid: u32) -> Option<MachineTime> {
        let (server, workers) = cpu_ticks(pid)?;
        Some(MachineTime {
            calls: 0,
            server,
            workers,
            client: waited_children_ticks()?,
            idle: idle_ticks()?,
        })
    }

    /// This turn's share: `self` plus what happened between `before` and `after`, over
    /// `calls` calls.
    fn add_turn(self, before: MachineTime, after: MachineTime, calls: u64) -> MachineTime {
        MachineTime {
            calls: self.calls + calls,
            server: self.server + after.server.saturating_sub(before.server),
            workers: self.workers + after.workers.saturating_sub(before.workers),
            client: self.client + after.client.saturating_sub(before.client),
            idle: self.idle + after.idle.saturating_sub(before.idle),
        }
    }

    /// Each part's µs per call.
    fn per_call(&self) -> [f64; 4] {
        let us = |ticks: u64| ticks as f64 / TICKS_PER_SECOND / self.calls.max(1) as f64 * 1e6;
        [
            us(self.server),
            us(self.workers),
            us(self.client),
            us(self.idle),
        ]
    }
}

/// Clock ticks per second of `/proc`'s CPU times (USER_HZ: 100 on every Linux
/// architecture this builds for).
const TICKS_PER_SECOND: f64 = 100.0;

/// A duration as wrk prints it (`495.01us`, `1.20ms`, `2.00s`).
fn wrk_duration(v: &str) -> Option<Duration> {
    let (number, scale) = if let Some(n) = v.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = v.strip_suffix("ms") {
        (n, 1e-3)
    } else {
        (v.strip_suffix('s')?, 1.0)
    };
    Some(Duration::from_secs_f64(number.parse::<f64>().ok()? * scale))
}

/// The HTTP measurement of [`http`] with `wrk` as the client: each server in turn for a
/// second, in 2·`seconds` rounds of alternating order (calls per second and p50 are the
/// means over the rounds). The ratios as [`http`]'s, or `None` without wrk.
fn http_wrk(r: &Revision, seconds: u64) -> Option<[f64; 4]> {
    Command::new("wrk").arg("--version").output().ok()?;
    let mut contestants = contestants(r).to_vec();
    contestants.extend(handoff_floors(r));
    let n = contestants.len();
    let dir = std::env::temp_dir().join(format!("ajisai-transport-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let scripts: Vec<std::path::PathBuf> = contestants
        .iter()
        .enumerate()
        .map(|(c, (_, _, _, line))| {
            let mut lua = String::from(
                "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Accept\"] = \"application/json, text/event-stream\"\n",
            );
            for (name, value) in r.headers {
                lua.push_str(&format!("wrk.headers[\"{name}\"] = \"{value}\"\n"));
            }
            lua.push_str(&format!("wrk.body = [==[{}]==]\n", line(1)));
            let path = dir.join(format!("contestant-{c}.lua"));
            std::fs::write(&path, lua).expect("a wrk script");
            path
        })
        .collect();
    let servers: Vec<HttpServer> = contestants
        .iter()
        .map(|(_, binary, args, _)| HttpServer::start(binary, args))
        .collect();
    let clients = 16;
    for (server, script) in servers.iter().zip(&scripts) {
        wrk_run(&server.url, script, clients, 1)?;
    }
    let mut rates = vec![Vec::new(); n];
    let mut p50s = vec![Vec::new(); n];
    // Per server: where the machine's time went in its turns (none when /proc cannot say).
    let mut cpu: Vec<Option<MachineTime>> = vec![Some(MachineTime::default()); n];
    // Short turns, many rounds: this machine's speed drifts over seconds, and a turn of a
    // second each, in alternating order, spreads a drift over every server alike.
    for round in 0..2 * seconds {
        for k in 0..n {
            let c = if round % 2 == 0 { n - 1 - k } else { k };
            let before = MachineTime::read(servers[c].child.id());
            let (rate, p50, calls) = wrk_run(&servers[c].url, &scripts[c], clients, 1)?;
            let after = MachineTime::read(servers[c].child.id());
            cpu[c] = match (cpu[c], before, after) {
                (Some(sum), Some(b), Some(a)) => Some(sum.add_turn(b, a, calls)),
                _ => None,
            };
            rates[c].push(rate);
            p50s[c].push(p50);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let rate: Vec<f64> = rates
        .iter()
        .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        .collect();
    let p50: Vec<f64> = p50s
        .iter()
        .map(|v| v.iter().map(Duration::as_secs_f64).sum::<f64>() / v.len() as f64)
        .collect();
    println!(
        "HTTP driven by wrk, {} requests, 1 2 ADD, {clients} connections, {} x 1 s per server:",
        r.name,
        2 * seconds
    );
    for (c, (label, _, _, _)) in contestants.iter().enumerate() {
        // CPU per call is steadier than calls per second on a shared machine: it says
        // what a call costs, whatever else ran meanwhile (wrk shares the cores).
        let cost = match cpu[c] {
            Some(time) if time.calls > 0 => {
                let [server, workers, client, idle] = time.per_call();
                format!(
                    "  µs a call: server {server:5.1} + workers {workers:4.1} + wrk {client:4.1} + idle {idle:4.1} = {:5.1}",
                    server + workers + client + idle
                )
            }
            _ => String::new(),
        };
        println!(
            "  {label} {:8.0} calls/s  p50 {:7.1} µs{cost}",
            rate[c],
            p50[c] * 1e6
        );
    }
    // What the hand-offs alone reach, and what our own work costs on top of them.
    println!(
        "  hand-off floors/floor: threads {:.2}, processes {:.2}; ours/hand-off floor: threads {:.2}, processes {:.2}",
        rate[HANDOFF_THREADS] / rate[FLOOR_AT],
        rate[HANDOFF_PROCESSES] / rate[FLOOR_AT],
        rate[THREADS] / rate[HANDOFF_THREADS],
        rate[PROCESSES] / rate[HANDOFF_PROCESSES]
    );
    // The throughput goal as a budget: at 1.2 times the floor's calls per second, a call
    // may take (CPUs / that rate) of the machine's time, wrk's share and idle included.
    if let Ok(cpus) = std::thread::available_parallelism() {
        let budget = cpus.get() as f64 / (1.2 * rate[FLOOR_AT]) * 1e6;
        println!(
            "  1.2x the floor's calls/s leaves {budget:.1} µs of the machine's {} CPUs a call, wrk and idle included",
            cpus.get()
        );
    }
    Some(http_ratios(&rate, &p50))
}

/// The faults' time goals (docs/mcp/transports.md#isolation): over HTTP with process
/// isolation, each fault answered while another client's small calls keep their p99;
/// over stdio with thread isolation, `ping` while two calls spin.
#[cfg(feature = "fault-injection")]
fn faults() -> Vec<String> {
    let faults = [("AJISAI_FAULT_INJECTION", "1")];
    let server = HttpServer::start_with(OURS, &["--max-concurrency", "4"], &faults);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let headers: &'static [(&'static str, &'static str)] = REVISIONS[0].headers;
    let url = server.url.clone();
    let mut summary = Vec::new();
    runtime.block_on(async {
        let client = reqwest::Client::builder().no_proxy().build().expect("a client");
        let call = move |source: &'static str| {
            let client = client.clone();
            let url = url.clone();
            async move {
                let t = Instant::now();
                let mut request = client
                    .post(&url)
                    .header("Accept", "application/json, text/event-stream")
                    .header("Content-Type", "application/json");
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"{source}"}}}}}}"#
                );
                let answer = request.body(body).send().await.expect("answered");
                let text = answer.text().await.expect("a body");
                (t.elapsed(), text)
            }
        };
        // The other client: small calls, one at a time, through all three faults.
        let stop = Arc::new(AtomicBool::new(false));
        let other = {
            let stop = Arc::clone(&stop);
            let call = call.clone();
            tokio::spawn(async move {
                let mut times = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let (took, text) = call("1 2 ADD").await;
                    assert!(text.contains("3/1"), "{text}");
                    times.push(took);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                times
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        println!("faults over HTTP, process isolation, 4 slots (deadline 5,000 ms, grace 500 ms):");
        // Three spinning calls at once: every slot but one busy, the other client's calls
        // on the last.
        let spins: Vec<_> = (0..3)
            .map(|_| tokio::spawn(call("FAULT-SPIN")))
            .collect();
        let mut latest = Duration::ZERO;
        for spin in spins {
            let (took, text) = spin.await.expect("a spinning call");
            assert!(text.contains("workerReplaced"), "FAULT-SPIN: {text}");
            latest = latest.max(took);
        }
        println!(
            "  3 x FAULT-SPIN at once: the last answered workerReplaced after {:7.1} ms",
            latest.as_secs_f64() * 1e3
        );
        summary.push(format!(
            "three spinning calls at once, the last answered {:.0} ms after its deadline (goal <= 1,000)",
            latest.as_secs_f64() * 1e3 - 5_000.0
        ));
        for source in ["1024 FAULT-HOG", "FAULT-ABORT"] {
            let (took, text) = call(source).await;
            assert!(text.contains("workerReplaced"), "{source}: {text}");
            println!("  {source:16} answered workerReplaced after {:7.1} ms", took.as_secs_f64() * 1e3);
        }
        stop.store(true, Ordering::Relaxed);
        let mut times = other.await.expect("the other client");
        times.sort();
        let p99 = percentile(&times, 0.99);
        println!(
            "  the other client: {} calls, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            times.len(),
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3,
            times.last().copied().unwrap_or_default().as_secs_f64() * 1e3
        );
        summary.push(format!(
            "the other client's p99 through the faults (three slots of four spinning, then a hog and an abort) {:.1} ms (goal < 100)",
            p99.as_secs_f64() * 1e3
        ));
    });
    drop(server);
    // stdio, thread isolation: a ping while two calls spin.
    let mut stdio = {
        let mut child = Command::new(OURS)
            .env("AJISAI_FAULT_INJECTION", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        StdioServer {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    };
    stdio.exchange(REVISIONS[0].initialize.expect("2025-11-25 initializes"));
    writeln!(stdio.stdin, "{INITIALIZED}").expect("written");
    for id in [101, 102] {
        writeln!(
            stdio.stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"compute","arguments":{{"source":"FAULT-SPIN"}}}}}}"#
        )
        .expect("written");
    }
    std::thread::sleep(Duration::from_millis(200));
    let mut pings = Vec::new();
    for id in 0..20 {
        let t = Instant::now();
        writeln!(
            stdio.stdin,
            r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#,
            200 + id
        )
        .expect("written");
        stdio.stdin.flush().expect("flushed");
        stdio.line.clear();
        stdio.stdout.read_line(&mut stdio.line).expect("an answer");
        assert!(
            stdio.line.contains(&format!("\"id\":{}", 200 + id)),
            "{}",
            stdio.line
        );
        pings.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(50));
    }
    pings.sort();
    let worst = pings.last().copied().unwrap_or_default();
    println!(
        "stdio, thread isolation, two calls spinning: 20 pings, p50 {:.2} ms, max {:.2} ms",
        percentile(&pings, 0.5).as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3
    );
    summary.push(format!(
        "a ping on stdio while two calls spin: at most {:.2} ms (goal <= 200)",
        worst.as_secs_f64() * 1e3
    ));
    summary
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
            let (floor, processes) = stdio(r, env_number("AJISAI_BENCH_CALLS", 3_000));
            summary.push(format!(
                "{} stdio p50: threads {floor:.2}x the floor, processes {processes:.2}x threads",
                r.name
            ));
        }
        if wants("http") {
            let [threads, processes, p50, p50_processes] =
                http(r, env_number("AJISAI_BENCH_SECONDS", 3));
            summary.push(format!(
                "{} HTTP throughput: threads {threads:.2}x, processes {processes:.2}x the floor; p50 threads {p50:.2}x the floor, processes {p50_processes:.2}x threads",
                r.name
            ));
        }
        if wants("wrk") {
            match http_wrk(r, env_number("AJISAI_BENCH_SECONDS", 3)) {
                Some([threads, processes, p50, p50_processes]) => summary.push(format!(
                    "{} HTTP driven by wrk: threads {threads:.2}x, processes {processes:.2}x the floor; p50 threads {p50:.2}x the floor, processes {p50_processes:.2}x threads",
                    r.name
                )),
                None => summary.push(format!("{} HTTP driven by wrk: wrk not found", r.name)),
            }
        }
    }
    #[cfg(feature = "fault-injection")]
    if wants("faults") {
        summary.extend(faults());
    }
    #[cfg(not(feature = "fault-injection"))]
    if only.iter().any(|o| o == "faults") {
        println!("faults: build with --features bench-floor,fault-injection");
    }
    println!("summary (goals: stdio p50 threads <= 1.05x the floor; HTTP throughput threads >= 1.5x and processes >= 1.2x the floor, p50 threads <= 0.9x the floor; p50 processes <= 1.3x threads):");
    for line in summary {
        println!("  {line}");
    }
}
