//! Shared helpers of the HTTP tests: the built server started with `--http 127.0.0.1:0`
//! (its address read from its `listening on` line), a plain HTTP client for raw
//! requests, and stderr collection.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");

/// The Accept header every MCP POST sends.
pub const ACCEPT: &str = "application/json, text/event-stream";

/// A token long enough to be accepted.
pub const TOKEN: &str = "test-token-0123456789abcdef";

/// stderr lines collected so far (`<eof>` last once it ends), and a signal for each.
type Lines = Arc<(Mutex<Vec<String>>, Condvar)>;

/// The built server with `args` and `env`, `AJISAI_*` of the test's environment removed,
/// stdin closed and stderr piped.
fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_NUMERICS_PLUGIN")
        .env_remove("AJISAI_PHRASEBOOK")
        .env_remove("AJISAI_HTTP_TOKEN")
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Collect `stderr`'s lines into `lines` on a thread of their own.
fn collect(stderr: impl BufRead + Send + 'static, lines: Lines) {
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            let (m, c) = &*lines;
            m.lock().expect("lines").push(line);
            c.notify_all();
        }
        let (m, c) = &*lines;
        m.lock().expect("lines").push("<eof>".into());
        c.notify_all();
    });
}

/// A running HTTP server process.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    lines: Lines,
    /// stderr while nobody reads it ([`HttpServer::spawn_stalled`]).
    stalled_stderr: Option<std::io::BufReader<std::process::ChildStderr>>,
}

impl HttpServer {
    /// Start the server with `--http 127.0.0.1:0`, `args` and `env` (`AJISAI_*` of the
    /// test's environment removed), and wait for its `listening on` line.
    pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut all = vec!["--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        HttpServer::spawn_exact(&all, env).expect("the server starts listening")
    }

    /// Start the server with exactly `args`; `Err` carries its stderr and exit code when
    /// it exits instead of listening.
    // The child moves into the returned server, whose `Drop` kills and waits for it.
    #[allow(clippy::zombie_processes)]
    pub fn spawn_exact(args: &[&str], env: &[(&str, &str)]) -> Result<HttpServer, (i32, String)> {
        let mut cmd = command(args, env);
        cmd.stdout(Stdio::piped());
        let mut child = cmd.spawn().expect("the binary starts");
        let stderr = child.stderr.take().expect("piped");
        let lines: Lines = Arc::default();
        collect(std::io::BufReader::new(stderr), Arc::clone(&lines));
        let (m, c) = &*lines;
        let mut guard = m.lock().expect("lines");
        loop {
            if let Some(addr) = guard.iter().find_map(|l| {
                l.split("listening on http://")
                    .nth(1)
                    .and_then(|rest| rest.split("/mcp").next())
                    .map(str::to_string)
            }) {
                drop(guard);
                return Ok(HttpServer {
                    child,
                    base: format!("http://{addr}"),
                    lines,
                    stalled_stderr: None,
                });
            }
            if guard.last().is_some_and(|l| l == "<eof>") {
                let text = guard.join("\n");
                drop(guard);
                let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(-1);
                return Err((code, text));
            }
            let (g, timeout) = c
                .wait_timeout(guard, Duration::from_secs(60))
                .expect("lines");
            guard = g;
            assert!(!timeout.timed_out(), "no listening line: {:?}", *guard);
        }
    }

    /// Start the server with `--http 127.0.0.1:0` and `args`, read stderr up to its
    /// `listening on` line, then read no more of it until [`HttpServer::resume_stderr`]:
    /// a log shipper that hangs.
    // The child moves into the returned server, whose `Drop` kills and waits for it.
    #[allow(clippy::zombie_processes)]
    pub fn spawn_stalled(args: &[&str]) -> HttpServer {
        let mut all = vec!["--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut cmd = command(&all, &[]);
        cmd.stdout(Stdio::null());
        let mut child = cmd.spawn().expect("the binary starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().expect("piped"));
        let mut seen = Vec::new();
        let addr = loop {
            let mut line = String::new();
            let read = stderr.read_line(&mut line).expect("stderr is readable");
            assert!(read > 0, "the server ended before listening: {seen:?}");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.split("/mcp").next().unwrap_or_default().to_string();
            }
            seen.push(line);
        };
        HttpServer {
            child,
            base: format!("http://{addr}"),
            lines: Arc::default(),
            stalled_stderr: Some(stderr),
        }
    }

    /// Start reading stderr again (lines are collected for [`HttpServer::stderr_lines`]).
    pub fn resume_stderr(&mut self) {
        let Some(stderr) = self.stalled_stderr.take() else {
            return;
        };
        collect(stderr, Arc::clone(&self.lines));
    }

    /// The server's process (to wait for it).
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The MCP endpoint's URL.
    pub fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The `host:port` the server listens on.
    pub fn authority(&self) -> String {
        self.base.trim_start_matches("http://").to_string()
    }

    /// Every stderr line so far.
    pub fn stderr_lines(&self) -> Vec<String> {
        self.lines.0.lock().expect("lines").clone()
    }

    /// Wait until `count` stderr lines contain `needle` (or the stream ends), and return
    /// those lines.
    pub fn stderr_lines_with(&self, needle: &str, count: usize) -> Vec<String> {
        let (m, c) = &*self.lines;
        let mut guard = m.lock().expect("lines");
        loop {
            let found: Vec<String> = guard
                .iter()
                .filter(|l| l.contains(needle))
                .cloned()
                .collect();
            if found.len() >= count || guard.last().is_some_and(|l| l == "<eof>") {
                return found;
            }
            let (g, timeout) = c
                .wait_timeout(guard, Duration::from_secs(30))
                .expect("lines");
            guard = g;
            if timeout.timed_out() {
                return guard
                    .iter()
                    .filter(|l| l.contains(needle))
                    .cloned()
                    .collect();
            }
        }
    }

    /// Send a signal (`TERM`, `KILL`, …) to the process.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{name}");
    }

    /// Wait for the process to exit; its exit code (`None` after a signal).
    pub fn wait(&mut self) -> Option<i32> {
        self.child.wait().ok().and_then(|s| s.code())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body.
    pub body: String,
}

impl Answer {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }
}

/// A plain HTTP client.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// POST `body` to `url` with the MCP headers and `extra` ones.
pub async fn post(url: &str, body: impl Into<reqwest::Body>, extra: &[(&str, &str)]) -> Answer {
    let mut request = client()
        .post(url)
        .header("Accept", ACCEPT)
        .header("Content-Type", "application/json")
        .body(body);
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    answer(request.send().await.expect("the request is answered")).await
}

/// GET `url` with `extra` headers.
pub async fn get(url: &str, extra: &[(&str, &str)]) -> Answer {
    let mut request = client().get(url);
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    answer(request.send().await.expect("the request is answered")).await
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.expect("a body");
    Answer {
        status,
        headers,
        body,
    }
}

/// A `tools/call` request of the 2025-06-18 revision (no session, no handshake needed).
pub fn tools_call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

/// Call `tool` over raw HTTP (revision 2025-06-18) and return the JSON-RPC answer.
pub async fn call(server: &HttpServer, tool: &str, arguments: Value) -> Value {
    let a = post(
        &server.mcp(),
        tools_call(json!(1), tool, arguments),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

/// The compact envelope text of a JSON-RPC tool-call answer.
pub fn envelope_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a tool result: {answer}"))
        .to_string()
}
