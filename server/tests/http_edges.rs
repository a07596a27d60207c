//! The HTTP service's edges, probed as an attacker would (docs/mcp/transports.md): clients
//! that never read their answers, many large bodies at once, refusals for capacity,
//! control characters in what is logged, tokens that cannot be headers, the headers
//! every answer carries, and an unknown method's error.

use crate::http_support::{self, get, post, tools_call, HttpServer, ACCEPT};
use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// A program whose answer is long (a 200,000-character string): answers that fill a
/// socket's buffers quickly when nobody reads them.
const LONG_ANSWER: &str = "'abcdefghij' 'S' BIND [ 0 19999 RANGE { S } MAP ] JOIN";

/// Clients that send pipelined requests and never read the answers hold their
/// connections only until a write makes no progress for the write timeout; meanwhile the
/// probes are answered beyond the connection cap, and afterwards a token holder's call
/// is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_read_cannot_hold_the_server() {
    let server = HttpServer::spawn(
        &["--max-connections", "4", "--isolation", "thread"],
        &[("AJISAI_HTTP_TOKEN", http_support::TOKEN)],
    );
    let authority = server.authority();
    let request = |id: u64| {
        let body = tools_call(json!(id), "compute", json!({ "source": LONG_ANSWER }));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {}\r\nAccept: {ACCEPT}\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{body}",
            http_support::TOKEN,
            body.len()
        )
    };
    let mut stalled = Vec::new();
    for c in 0..4 {
        let mut s = std::net::TcpStream::connect(&authority).expect("connects");
        // Small receive buffers fill at once; the answers are never read.
        let mut pipelined = String::new();
        for i in 0..40 {
            pipelined.push_str(&request(c * 100 + i));
        }
        s.write_all(pipelined.as_bytes()).expect("sent");
        stalled.push(s);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Every connection is held: the probes still answer.
    let health = get(&format!("{}/healthz", server.base), &[]).await;
    assert_eq!(health.status, 200, "{}", health.body);
    // Within the write timeout (10 s) plus the slowest answer, the stalled connections
    // are closed and a token holder's call is served in full.
    let mut served = None;
    for _ in 0..60 {
        let a = post(
            &server.mcp(),
            tools_call(json!(1), "compute", json!({ "source": "1 2 +" })),
            &[
                ("Authorization", &format!("Bearer {}", http_support::TOKEN)),
                ("MCP-Protocol-Version", "2025-06-18"),
            ],
        )
        .await;
        if a.status == 200 {
            served = Some(a);
            break;
        }
        assert_eq!(a.status, 503, "{}", a.body);
        assert_eq!(a.header("retry-after").as_deref(), Some("1"));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let served = served.expect("the stalled connections were closed");
    assert!(served.body.contains("3/1"), "{}", served.body);
    drop(stalled);
}

/// `/mcp` holds at most 16 MiB of request bodies at once: beyond that a request is
/// answered 503 with `Retry-After` before its body is read, so slow large bodies cannot
/// grow the server; once they are gone, calls are served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_holds_a_bounded_budget_of_bodies_at_once() {
    let server = HttpServer::spawn(&["--isolation", "thread"], &[]);
    let authority = server.authority();
    let before = peak(server.pid());
    let mut held = Vec::new();
    for _ in 0..16 {
        let mut s = std::net::TcpStream::connect(&authority).expect("connects");
        // A 1 MiB body declared, half of it sent, the rest never.
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: {ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n"
        )
        .expect("sent");
        s.write_all(&vec![b' '; 512 * 1024]).expect("sent");
        held.push(s);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let refused = post(
        &server.mcp(),
        tools_call(json!(1), "compute", json!({ "source": "1 2 +" })),
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.header("retry-after").as_deref(), Some("1"));
    assert!(
        peak(server.pid()) < before + (64 << 20),
        "the held bodies grew the server beyond their budget"
    );
    drop(held);
    let mut served = false;
    for _ in 0..50 {
        let a = post(
            &server.mcp(),
            tools_call(json!(1), "compute", json!({ "source": "1 2 +" })),
            &[("MCP-Protocol-Version", "2025-06-18")],
        )
        .await;
        if a.status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served, "bodies gone, calls are served again");
}

/// The serving process's peak resident memory, in bytes.
fn peak(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

/// A refusal for capacity carries `Retry-After` in the HTTP answer, not only
/// `retryAfterMs` in the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_for_capacity_carries_retry_after() {
    // One slot, held until its deadline; eight waiters fill the queue; the next caller is
    // refused at once.
    let server = HttpServer::spawn(
        &["--max-concurrency", "1", "--isolation", "thread"],
        &[("AJISAI_TEST_UNBOUNDED_WORK", "1")],
    );
    let long = |id: u64| {
        let url = server.mcp();
        tokio::spawn(async move {
            post(
                &url,
                tools_call(
                    json!(id),
                    "compute",
                    json!({ "source": "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F" }),
                ),
                &[],
            )
            .await
        })
    };
    let metrics = format!("{}/metrics", server.base);
    let running = long(0);
    while !get(&metrics, &[])
        .await
        .body
        .contains("ajisai_executions_in_flight 1")
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let queued: Vec<_> = (1..=8).map(long).collect();
    while !get(&metrics, &[])
        .await
        .body
        .contains("ajisai_executions_waiting 8")
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for revision in ["2025-06-18", "2025-11-25"] {
        let refused = post(
            &server.mcp(),
            tools_call(json!(99), "compute", json!({ "source": "1 2 ADD" })),
            &[("MCP-Protocol-Version", revision)],
        )
        .await;
        assert_eq!(refused.status, 200, "{}", refused.body);
        assert!(
            refused.body.contains("capacityExhausted"),
            "{}",
            refused.body
        );
        assert_eq!(
            refused.header("retry-after").as_deref(),
            Some("1"),
            "{revision}: {}",
            refused.body
        );
    }
    // A call that is answered carries none.
    let ok = get(&format!("{}/healthz", server.base), &[]).await;
    assert!(ok.header("retry-after").is_none());
    for q in queued {
        q.abort();
    }
    running.abort();
}

/// Control characters a client sends (an ESC in a JSON-RPC method name) are escaped in
/// the request log, and an unknown method's error does not echo the name as written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_client_writes_is_escaped_in_the_log_and_not_echoed() {
    let server = HttpServer::spawn(&["--isolation", "thread"], &[]);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "x\u{1b}[31m<b>\u{9b}2J", "params": {}})
        .to_string();
    let a = post(
        &server.mcp(),
        body,
        &[("MCP-Protocol-Version", "2025-06-18")],
    )
    .await;
    assert_eq!(a.status, 404, "{}", a.body);
    let answer = a.json();
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(
        !message.contains("x\u{1b}") && !message.contains("<b>"),
        "{message}"
    );
    let lines = server.stderr_lines_with("rpc=", 1);
    let line = lines
        .iter()
        .find(|l| l.contains("rpc=x"))
        .expect("the request's line");
    assert!(
        !line.contains('\u{1b}') && !line.contains('\u{9b}'),
        "{line:?}"
    );
    assert!(line.contains("\\u{1b}[31m"), "{line:?}");
}

/// `/mcp`, `/metrics`, `/healthz` and error answers carry `nosniff` and
/// `frame-ancestors 'none'`, as the Playground's routes do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_nosniff_and_frame_ancestors() {
    let server = HttpServer::spawn(&["--isolation", "thread"], &[]);
    let answers = [
        post(
            &server.mcp(),
            tools_call(json!(1), "compute", json!({ "source": "1" })),
            &[("MCP-Protocol-Version", "2025-06-18")],
        )
        .await,
        post(
            &server.mcp(),
            "{",
            &[("MCP-Protocol-Version", "2025-06-18")],
        )
        .await,
        get(&format!("{}/metrics", server.base), &[]).await,
        get(&format!("{}/healthz", server.base), &[]).await,
        get(&format!("{}/readyz", server.base), &[]).await,
        get(&format!("{}/nowhere", server.base), &[]).await,
        get(&format!("{}/mcp", server.base), &[("Host", "evil.example")]).await,
    ];
    for a in &answers {
        assert_eq!(
            a.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{} {}",
            a.status,
            a.body
        );
        assert!(
            a.header("content-security-policy")
                .is_some_and(|v| v.contains("frame-ancestors 'none'")),
            "{} {}",
            a.status,
            a.body
        );
    }
}

/// A token that cannot be sent as a header value (non-ASCII) is refused at start-up.
#[test]
fn a_token_that_cannot_be_a_header_is_refused_at_start_up() {
    let token = "ñ".repeat(20);
    let (code, text) = HttpServer::spawn_exact(
        &["--http", "127.0.0.1:0"],
        &[("AJISAI_HTTP_TOKEN", token.as_str())],
    )
    .err()
    .expect("the server refuses to start");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("must be ASCII"), "{text}");
}

/// A body is read within [`BODY_READ_TIMEOUT`](ajisai_server::mcp::transport::http::BODY_READ_TIMEOUT)
/// as a whole, however steadily it trickles: a client that sends one byte every quarter
/// second (far inside any gap between frames a server might allow) is answered 408 long
/// before its declared 100 bytes are in. This is the need that keeps the body's read in
/// the transport's own layer: tower-http's `RequestBodyTimeoutLayer` bounds the gap
/// between two frames and resets after each, so this body would never time out under it.
#[test]
fn a_trickled_body_is_timed_out_as_a_whole() {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    let server = HttpServer::spawn(&[], &[]);
    let mut stream = std::net::TcpStream::connect(server.authority()).expect("connects");
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: {ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    .expect("headers sent");
    let answered = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let mut writer = stream.try_clone().expect("a second handle");
    let trickle = {
        let (answered, sent) = (Arc::clone(&answered), Arc::clone(&sent));
        std::thread::spawn(move || {
            while !answered.load(Ordering::Acquire) && sent.load(Ordering::Acquire) < 99 {
                if writer
                    .write_all(b" ")
                    .and_then(|()| writer.flush())
                    .is_err()
                {
                    return;
                }
                sent.fetch_add(1, Ordering::AcqRel);
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    answered.store(true, Ordering::Release);
    let _ = trickle.join();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let sent = sent.load(Ordering::Acquire);
    assert!(
        sent < 99,
        "answered only after the whole body was sent ({sent} bytes)"
    );
}

/// One request written by hand on `stream`: `head` (request line and headers, without the
/// blank line) and `Content-Length: declared`, then, when `body` is given, the body;
/// the answer's status and lowercased head.
fn exchange(
    stream: &mut std::net::TcpStream,
    head: &str,
    declared: usize,
    body: Option<&str>,
) -> (u16, String) {
    use std::io::Read;
    write!(stream, "{head}\r\nContent-Length: {declared}\r\n\r\n").expect("head sent");
    if let Some(body) = body {
        stream.write_all(body.as_bytes()).expect("body sent");
    }
    let mut answer = Vec::new();
    let mut buf = [0u8; 1];
    // A byte at a time: nothing of a following answer is read with this one's head.
    while !answer.ends_with(b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => answer.push(buf[0]),
        }
    }
    let head = String::from_utf8_lossy(&answer).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut rest = vec![0u8; length];
    stream.read_exact(&mut rest).expect("the answer's body");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head)
}

/// An answer given before its request's body was read to the end (a refusal for the
/// token, for a declared size, for a content type, for a page's origin) says
/// `Connection: close` and closes the connection: the rest of the body is never read, so
/// the connection cannot carry another request, and a client that was not told would
/// send its next request into a closed connection. An answer after the body was read
/// keeps the connection for the next request.
#[test]
fn an_answer_given_before_the_body_is_read_closes_its_connection() {
    use std::io::Read;
    let server = HttpServer::spawn(
        &["--isolation", "thread", "--playground"],
        &[("AJISAI_HTTP_TOKEN", http_support::TOKEN)],
    );
    let host = server.authority();
    let mcp = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: {ACCEPT}\r\nMCP-Protocol-Version: 2025-06-18"
    );
    let token = format!("Authorization: Bearer {}", http_support::TOKEN);
    let call = tools_call(json!(1), "compute", json!({ "source": "1 2 +" }));
    let cases = [
        ("no token", format!("{mcp}\r\nContent-Type: application/json"), 401, call.len()),
        (
            "a wrong token",
            format!("{mcp}\r\nContent-Type: application/json\r\nAuthorization: Bearer wrong"),
            401,
            call.len(),
        ),
        (
            "a declared size over the limit",
            format!("{mcp}\r\nContent-Type: application/json\r\n{token}"),
            413,
            ajisai_server::mcp::protocol::framing::MAX_MESSAGE_BYTES + 1,
        ),
        (
            "a content type that is not JSON",
            format!("{mcp}\r\nContent-Type: text/plain\r\n{token}"),
            415,
            call.len(),
        ),
        (
            "a page run from another origin",
            format!(
                "POST /api/compute HTTP/1.1\r\nHost: {host}\r\nOrigin: http://evil.example\r\nContent-Type: application/json"
            ),
            403,
            call.len(),
        ),
    ];
    for (what, head, want, declared) in cases {
        let mut stream = std::net::TcpStream::connect(&host).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read timeout");
        // The body is held back until the answer is in: the server answers without it.
        let (status, answer) = exchange(&mut stream, &head, declared, None);
        assert_eq!(status, want, "{what}: {answer}");
        assert!(
            answer.contains("connection: close"),
            "{what}: the answer does not say the connection closes: {answer}"
        );
        let mut rest = [0u8; 16];
        let after = stream.read(&mut rest);
        assert!(
            matches!(after, Ok(0) | Err(_)),
            "{what}: the connection stayed open ({after:?})"
        );
    }
    // Read in full, a body keeps its connection: two calls on one connection.
    let mut stream = std::net::TcpStream::connect(&host).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    let head = format!("{mcp}\r\nContent-Type: application/json\r\n{token}");
    for round in 0..2 {
        let (status, answer) = exchange(&mut stream, &head, call.len(), Some(&call));
        assert_eq!(status, 200, "call {round}: {answer}");
        assert!(
            !answer.contains("connection: close"),
            "call {round}: {answer}"
        );
    }
}
