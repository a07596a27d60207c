//! A raw JSON-RPC client of the built server over real stdio: it writes exact bytes
//! (malformed lines included), reads every answer line, collects stderr, and reads the
//! server's peak memory from `/proc/<pid>/status` (VmHWM only grows, so each
//! measurement needs a fresh process).

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");

/// How long a test waits for one answer before it calls the server hung.
pub const ANSWER_WAIT: Duration = Duration::from_secs(60);

/// A running server and the pipes to it.
pub struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    /// stderr while nobody reads it.
    stalled_stderr: Option<ChildStderr>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl RawServer {
    /// Spawn the built server (`AJISAI_*` removed, then `env` set), not yet initialized.
    pub fn spawn(env: &[(&str, &str)]) -> RawServer {
        RawServer::spawn_with_args(&[], env)
    }

    /// [`RawServer::spawn`] with command-line `args`.
    pub fn spawn_with_args(args: &[&str], env: &[(&str, &str)]) -> RawServer {
        let mut server = RawServer::spawn_stalled(args, env);
        server.resume_stderr();
        server
    }

    /// [`RawServer::spawn_with_args`] with a stderr pipe that nobody reads (a log shipper
    /// that hangs) until [`RawServer::resume_stderr`].
    pub fn spawn_stalled(args: &[&str], env: &[(&str, &str)]) -> RawServer {
        let mut cmd = Command::new(BIN);
        cmd.args(args);
        cmd.env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env_remove("AJISAI_PHRASEBOOK");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        RawServer {
            stdin: child.stdin.take(),
            stalled_stderr: child.stderr.take(),
            child,
            lines,
            stderr: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Start reading stderr (lines are collected for [`RawServer::stderr_lines`]).
    pub fn resume_stderr(&mut self) {
        let Some(stderr) = self.stalled_stderr.take() else {
            return;
        };
        let sink = Arc::clone(&self.stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                match line {
                    Ok(l) => sink.lock().expect("the stderr lock").push(l),
                    Err(_) => return,
                }
            }
        });
    }

    /// Spawn and complete the `initialize` handshake.
    pub fn started(env: &[(&str, &str)]) -> RawServer {
        let mut s = RawServer::spawn(env);
        s.initialize();
        s
    }

    /// The `initialize` request and the `initialized` notification.
    pub fn initialize(&mut self) {
        self.send(&json!({
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "raw-test", "version": "1" }
            }
        }));
        let answer = self.recv();
        assert_eq!(answer["id"], "init", "{answer}");
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    }

    /// Write `bytes` followed by a newline.
    pub fn send_line(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads stdin");
        stdin.write_all(b"\n").expect("the server reads stdin");
        stdin.flush().expect("the server reads stdin");
    }

    /// Write one JSON message as a line.
    pub fn send(&mut self, message: &Value) {
        self.send_line(message.to_string().as_bytes());
    }

    /// Hand the server's stdin to another thread (for writes that may block).
    pub fn take_writer(&mut self) -> LineWriter {
        LineWriter(self.stdin.take().expect("stdin is open"))
    }

    /// The next answer line, parsed; panics after [`ANSWER_WAIT`].
    pub fn recv(&self) -> Value {
        let line = self
            .recv_line(ANSWER_WAIT)
            .expect("an answer within the wait");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The next answer line as text, if one arrives within `wait`.
    pub fn recv_line(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// A `tools/call` of `tool` with `arguments` under `id`; the answer's message.
    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let answer = self.call_with_id(json!(id), tool, arguments);
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// A `tools/call` under any JSON `id`; the answer's message.
    pub fn call_with_id(&mut self, id: Value, tool: &str, arguments: Value) -> Value {
        self.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        }));
        self.recv()
    }

    /// `compute` of `source`; the envelope (`structuredContent`).
    pub fn compute(&mut self, id: u64, source: &str) -> Value {
        let answer = self.call(id, "compute", json!({ "source": source }));
        answer["result"]["structuredContent"].clone()
    }

    /// The server's peak resident memory so far, in KiB (VmHWM).
    pub fn peak_kib(&self) -> u64 {
        proc_status_kib(self.child.id(), "VmHWM:")
    }

    /// The server's resident memory now, in KiB (VmRSS).
    pub fn resident_kib(&self) -> u64 {
        proc_status_kib(self.child.id(), "VmRSS:")
    }

    /// The stderr lines containing `needle`, once there are at least `count` of them (or
    /// after 30 s: stderr is read by its own thread, behind the answers on stdout).
    pub fn stderr_lines_with(&self, needle: &str, count: usize) -> Vec<String> {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let lines: Vec<String> = self
                .stderr_lines()
                .into_iter()
                .filter(|l| l.contains(needle))
                .collect();
            if lines.len() >= count || std::time::Instant::now() > deadline {
                return lines;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The stderr lines so far.
    pub fn stderr_lines(&self) -> Vec<String> {
        self.stderr.lock().expect("the stderr lock").clone()
    }

    /// Send a signal (`TERM`, `INT`, …) to the process.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{name}");
    }

    /// The exit code once the process has exited; `Err` if it is still running after
    /// `wait` (a hang, not a measurement).
    pub fn exit_within(&mut self, wait: Duration) -> Result<Option<i32>, String> {
        exit_within(&mut self.child, wait)
    }

    /// Close stdin and wait for the exit; the exit status's code.
    pub fn finish(mut self) -> Option<i32> {
        self.stdin = None;
        self.child.wait().ok().and_then(|s| s.code())
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server's stdin, writable from another thread.
pub struct LineWriter(ChildStdin);

impl LineWriter {
    /// Write `bytes` and a newline.
    pub fn line(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.write_all(bytes)?;
        self.0.write_all(b"\n")?;
        self.0.flush()
    }
}

/// A `kB` field of `/proc/<pid>/status`.
pub fn proc_status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The exit code of `child` once it has exited; `Err` if it is still running after `wait`.
pub fn exit_within(child: &mut Child, wait: Duration) -> Result<Option<i32>, String> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status.code()),
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => return Err(format!("still running after {wait:?}")),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The builtin numeric backends this build of the server can select: `pure` always,
/// `gmp` when the build links it (probed with `--version`, one process each).
pub fn builtin_backends() -> Vec<&'static str> {
    ["gmp", "pure"]
        .into_iter()
        .filter(|kind| {
            let out = Command::new(BIN)
                .arg("--version")
                .env_remove("AJISAI_NUMERICS_PLUGIN")
                .env("AJISAI_NUMERICS", kind)
                .output()
                .expect("--version runs");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.starts_with(&format!("numerics: {kind} ")))
        })
        .collect()
}
