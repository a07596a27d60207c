//! `ajisai-handoff-floor`: the floor of isolation, for the transport benchmark — bare
//! hyper (HTTP/1.1 on a tokio runtime with one thread, as `ajisai-mcp-server` serves with
//! `--io-threads 1`) that reads each request's body and hands it to an evaluator, which
//! answers the JSON-RPC result `ajisai-mcp-server` gives `1 2 ADD` (the same bytes) and does
//! nothing else. `--handoff thread` hands it to one of four threads, `--handoff process` to
//! one of four pre-started child processes (this executable with `--child`) over pipes, a
//! length-prefixed frame each way, as process isolation does. What it costs a call is
//! what any server with that hand-off pays before doing any work of its own: the
//! difference from `ajisai-mcp-server` is ours. Built only with the `bench-floor` feature;
//! never installed.
//!
//! `ajisai-handoff-floor --http ADDR:PORT --handoff thread|process`

#[path = "floor/envelope.rs"]
mod floor_envelope;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use std::io::{Read, Write};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Evaluators (threads or child processes): the slots `ajisai-mcp-server` has on two cores.
const EVALUATORS: usize = 4;

/// The JSON-RPC answer to `1 2 ADD` with id 1, as `ajisai-mcp-server` writes it.
fn answer() -> Bytes {
    let structured: serde_json::Value =
        serde_json::from_str(floor_envelope::ENVELOPE).expect("the envelope is JSON");
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": floor_envelope::ENVELOPE}],
            "structuredContent": structured,
            "isError": false,
        }
    });
    Bytes::from(serde_json::to_vec(&body).expect("serializable"))
}

/// A child's loop: read a length-prefixed job, answer with a length-prefixed answer.
fn child() -> std::process::ExitCode {
    let answer = answer();
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut job = Vec::new();
    loop {
        let mut header = [0u8; 4];
        if input.read_exact(&mut header).is_err() {
            return std::process::ExitCode::SUCCESS;
        }
        job.resize(u32::from_be_bytes(header) as usize, 0);
        if input.read_exact(&mut job).is_err() {
            return std::process::ExitCode::FAILURE;
        }
        let mut frame = Vec::with_capacity(4 + answer.len());
        frame.extend_from_slice(&(answer.len() as u32).to_be_bytes());
        frame.extend_from_slice(&answer);
        if output
            .write_all(&frame)
            .and_then(|()| output.flush())
            .is_err()
        {
            return std::process::ExitCode::FAILURE;
        }
    }
}

/// One child process and its pipes.
struct Child {
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    _process: tokio::process::Child,
}

/// Where a request's body goes to be answered.
enum Handoff {
    Threads(std::sync::mpsc::Sender<(Bytes, tokio::sync::oneshot::Sender<Bytes>)>),
    Processes {
        idle_tx: tokio::sync::mpsc::UnboundedSender<Child>,
        idle_rx: tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<Child>>,
    },
}

impl Handoff {
    fn threads() -> Handoff {
        let (tx, rx) = std::sync::mpsc::channel::<(Bytes, tokio::sync::oneshot::Sender<Bytes>)>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        let answer = answer();
        for _ in 0..EVALUATORS {
            let (rx, answer) = (Arc::clone(&rx), answer.clone());
            std::thread::spawn(move || loop {
                let job = rx.lock().map(|rx| rx.recv());
                let Ok(Ok((_body, reply))) = job else {
                    return;
                };
                let _ = reply.send(answer.clone());
            });
        }
        Handoff::Threads(tx)
    }

    fn processes() -> std::io::Result<Handoff> {
        let (idle_tx, idle_rx) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..EVALUATORS {
            let mut process = tokio::process::Command::new(std::env::current_exe()?)
                .arg("--child")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()?;
            let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
                return Err(std::io::Error::other("no pipes"));
            };
            let child = Child {
                stdin,
                stdout: tokio::io::BufReader::new(stdout),
                _process: process,
            };
            let _ = idle_tx.send(child);
        }
        Ok(Handoff::Processes {
            idle_tx,
            idle_rx: tokio::sync::Mutex::new(idle_rx),
        })
    }

    async fn answer(&self, body: Bytes) -> std::io::Result<Bytes> {
        match self {
            Handoff::Threads(tx) => {
                let (reply, answered) = tokio::sync::oneshot::channel();
                tx.send((body, reply))
                    .map_err(|_| std::io::Error::other("the threads ended"))?;
                answered
                    .await
                    .map_err(|_| std::io::Error::other("no answer"))
            }
            Handoff::Processes { idle_tx, idle_rx } => {
                let child = idle_rx
                    .lock()
                    .await
                    .recv()
                    .await
                    .ok_or_else(|| std::io::Error::other("no child"))?;
                let mut held = Held {
                    child: Some(child),
                    sent: false,
                    idle_tx: idle_tx.clone(),
                };
                let mut frame = Vec::with_capacity(4 + body.len());
                frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
                frame.extend_from_slice(&body);
                let child = held.child.as_mut().expect("held");
                held.sent = true;
                child.stdin.write_all(&frame).await?;
                child.stdin.flush().await?;
                let answer = read_answer(child).await?;
                held.sent = false;
                Ok(answer)
            }
        }
    }
}

/// A child's answer frame.
async fn read_answer(child: &mut Child) -> std::io::Result<Bytes> {
    let mut header = [0u8; 4];
    child.stdout.read_exact(&mut header).await?;
    let mut answer = vec![0u8; u32::from_be_bytes(header) as usize];
    child.stdout.read_exact(&mut answer).await?;
    Ok(Bytes::from(answer))
}

/// A child taken for one request: back to the idle ones when dropped, once its answer
/// is read (a client that hangs up drops the request's future mid-exchange).
struct Held {
    child: Option<Child>,
    sent: bool,
    idle_tx: tokio::sync::mpsc::UnboundedSender<Child>,
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if !self.sent {
            let _ = self.idle_tx.send(child);
            return;
        }
        let idle_tx = self.idle_tx.clone();
        tokio::spawn(async move {
            if read_answer(&mut child).await.is_ok() {
                let _ = idle_tx.send(child);
            }
        });
    }
}

async fn serve(addr: &str, handoff: Handoff) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    let handoff = Arc::new(handoff);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let handoff = Arc::clone(&handoff);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(
                move |request: hyper::Request<hyper::body::Incoming>| {
                    let handoff = Arc::clone(&handoff);
                    async move {
                        let body = request
                            .into_body()
                            .collect()
                            .await
                            .map_err(std::io::Error::other)?
                            .to_bytes();
                        let answer = handoff.answer(body).await?;
                        hyper::Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(answer))
                            .map_err(std::io::Error::other)
                    }
                },
            );
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child();
    }
    // Two options, in either order.
    let value = |name: &str| {
        args.chunks(2)
            .find(|pair| pair.len() == 2 && pair[0] == name)
            .map(|pair| pair[1].clone())
    };
    let (Some(addr), Some(mode), 4) = (value("--http"), value("--handoff"), args.len()) else {
        eprintln!("usage: ajisai-handoff-floor --http ADDR:PORT --handoff thread|process");
        return std::process::ExitCode::FAILURE;
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ajisai-handoff-floor: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async move {
        let handoff = match mode.as_str() {
            "thread" => Handoff::threads(),
            "process" => Handoff::processes()?,
            other => return Err(std::io::Error::other(format!("no hand-off {other}"))),
        };
        serve(&addr, handoff).await
    });
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ajisai-handoff-floor: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
