//! Scale-out, for real: three `--http` replicas behind HAProxy (Debian's `haproxy`,
//! which `.ci/run` installs) in round-robin with `option redispatch`, `retry-on
//! conn-failure empty-response` and `check inter 100ms fall 1`. A real MCP client (rmcp
//! over Streamable HTTP) sends 1,000 calls through it while one replica is SIGKILLed
//! mid-run; every call must be answered correctly, and identically whichever replica
//! served it. The client retries a failed connection or a retryable host error once:
//! the tools are idempotent.

use crate::http_support;
use crate::mcp_support;

use http_support::HttpServer;
use mcp_support::{connect_http, object, Client};
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Calls sent through the load balancer.
const CALLS: usize = 1_000;
/// Clients sending at once.
const CLIENTS: usize = 8;
/// After this many answered calls, one replica is killed.
const KILL_AFTER: usize = 300;

/// The programs sent, round-robin; each must always answer the same envelope.
const PROGRAMS: [&str; 8] = [
    "2 3 DIV 1 3 DIV ADD",
    "1 0 DIV",
    "2 SQRT 3 SQRT ADD DUP MUL",
    "[ 1 2 3 ] [ 10 20 30 ] ADD",
    "1 2 FROB",
    "0 99 RANGE SUM",
    "[ 1 2 3 ] { 2 MUL } MAP SUM",
    "3 200 POW 7 150 POW MOD",
];

/// HAProxy in the foreground; killed when dropped.
struct Balancer(Child);

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_haproxy(dir: &std::path::Path, port: u16, replicas: &[&HttpServer]) -> Balancer {
    let mut servers = String::new();
    for (i, r) in replicas.iter().enumerate() {
        servers.push_str(&format!(
            "  server r{i} {} check inter 100ms fall 1 rise 1\n",
            r.authority()
        ));
    }
    let config = format!(
        "global\n  maxconn 512\n\
         defaults\n  mode http\n  timeout connect 1s\n  timeout client 30s\n  timeout server 30s\n  retries 3\n  option redispatch\n  retry-on conn-failure empty-response\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend replicas\n\
         backend replicas\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).expect("config written");
    let check = Command::new("haproxy")
        .args(["-c", "-f"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!("this test needs HAProxy on PATH (Debian: apt-get install haproxy): {e}")
        });
    assert!(
        check.status.success(),
        "haproxy -c: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let child = Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("haproxy starts");
    Balancer(child)
}

/// The calls' compact envelopes, by program, as one replica answers them directly.
async fn expected(replica: &HttpServer) -> BTreeMap<&'static str, String> {
    let client = connect_http(&replica.mcp()).await;
    let mut out = BTreeMap::new();
    for p in PROGRAMS {
        let r = client
            .call_tool(
                CallToolRequestParams::new("compute")
                    .with_arguments(object(json!({ "source": p }))),
            )
            .await
            .expect("answered");
        out.insert(p, mcp_support::text(&r));
    }
    let _ = client.cancel().await;
    out
}

/// One call with the retry policy of the issue: a failed exchange or a retryable host
/// error is tried once more. The envelope text, or why there is none.
async fn call_once_retried(client: &Client, source: &str) -> Result<String, String> {
    let mut last = String::new();
    for _ in 0..2 {
        match client
            .call_tool(
                CallToolRequestParams::new("compute")
                    .with_arguments(object(json!({ "source": source }))),
            )
            .await
        {
            Ok(r) => {
                let text = mcp_support::text(&r);
                let env: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
                if env["status"] == "hostError" && env["error"]["retryable"] == true {
                    last = text;
                    continue;
                }
                return Ok(text);
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_calls_through_haproxy_survive_a_killed_replica() {
    let replicas: Vec<HttpServer> = (0..3).map(|_| HttpServer::spawn(&[], &[])).collect();
    let want = Arc::new(expected(&replicas[0]).await);
    let dir = std::env::temp_dir().join(format!("ajisai-haproxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let port = free_port();
    let _balancer = start_haproxy(&dir, port, &replicas.iter().collect::<Vec<_>>());
    let url = format!("http://127.0.0.1:{port}/mcp");
    // Wait until HAProxy serves and has seen every replica ready.
    let mut ready = 0;
    for _ in 0..300 {
        if let Ok(r) = reqwest::get(format!("http://127.0.0.1:{port}/readyz")).await {
            if r.status().as_u16() == 200 {
                ready += 1;
                if ready >= 6 {
                    break;
                }
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(ready >= 6, "HAProxy serves /readyz");

    let answered = Arc::new(AtomicUsize::new(0));
    let next = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let url = url.clone();
        let want = Arc::clone(&want);
        let answered = Arc::clone(&answered);
        let next = Arc::clone(&next);
        clients.push(tokio::spawn(async move {
            let client = connect_http(&url).await;
            let mut problems = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= CALLS {
                    break;
                }
                let source = PROGRAMS[i % PROGRAMS.len()];
                match call_once_retried(&client, source).await {
                    Ok(text) if &text == want.get(source).expect("known") => {}
                    Ok(text) => problems.push(format!("call {i} ({source}): {text}")),
                    Err(e) => problems.push(format!("call {i} ({source}): no answer: {e}")),
                }
                answered.fetch_add(1, Ordering::SeqCst);
            }
            let _ = client.cancel().await;
            problems
        }));
    }
    while answered.load(Ordering::SeqCst) < KILL_AFTER {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    replicas[1].signal("KILL");
    let mut problems = Vec::new();
    for c in clients {
        problems.extend(c.await.expect("client task"));
    }
    assert_eq!(answered.load(Ordering::SeqCst), CALLS);
    assert!(
        problems.is_empty(),
        "{} of {CALLS} calls went wrong:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every replica served calls; the killed one only before it died.
    let served: Vec<usize> = replicas
        .iter()
        .map(|r| {
            r.stderr_lines()
                .iter()
                .filter(|l| l.contains("rpc=tools/call"))
                .count()
        })
        .collect();
    println!("calls served per replica (the second was killed after {KILL_AFTER}): {served:?}");
    assert!(served.iter().all(|&n| n > 0), "{served:?}");
    assert!(served[0] + served[2] > served[1], "{served:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
