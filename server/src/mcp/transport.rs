//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout (MCP-3).
//!
//! Two plain threads own the standard streams: a reader that frames lines, and a
//! writer that is the only code ever writing to stdout. The reader looks at each
//! message before rmcp parses it, because rmcp's typed `tools/call` parameters would
//! turn non-object `arguments` into a protocol error, where MCP-19 requires a tool
//! result with `invalidRequest`: such calls are answered here, by the same validation.

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::sync::mpsc as std_mpsc;
use tokio::sync::mpsc;

/// The longest accepted input line; longer lines are discarded (and logged).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What the reader hands on.
enum Incoming {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An answer the transport writes itself.
    Reply(Vec<u8>),
}

/// Answers a message before rmcp sees it, or lets it through (`None`).
pub type Precheck = Box<dyn Fn(&Value) -> Option<Value> + Send>;

/// The server side of the stdio transport.
pub struct StdioTransport {
    incoming: mpsc::Receiver<Incoming>,
    outgoing: Option<std_mpsc::Sender<Vec<u8>>>,
}

/// The writer thread; join it after the service stopped so queued answers reach stdout.
pub struct Writer {
    done: std_mpsc::Receiver<()>,
}

impl Writer {
    /// Wait up to `timeout` for every queued message to be written.
    pub fn finish(self, timeout: std::time::Duration) {
        let _ = self.done.recv_timeout(timeout);
    }
}

/// Start the reader and writer threads on the process's stdin and stdout.
pub fn stdio(precheck: Precheck) -> std::io::Result<(StdioTransport, Writer)> {
    let (in_tx, in_rx) = mpsc::channel::<Incoming>(64);
    let (out_tx, out_rx) = std_mpsc::channel::<Vec<u8>>();
    let (done_tx, done_rx) = std_mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("ajisai-mcp-stdout".into())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            while let Ok(mut bytes) = out_rx.recv() {
                bytes.push(b'\n');
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
            let _ = done_tx.send(());
        })?;
    std::thread::Builder::new()
        .name("ajisai-mcp-stdin".into())
        .spawn(move || read_loop(std::io::stdin().lock(), &in_tx, &precheck))?;
    Ok((
        StdioTransport {
            incoming: in_rx,
            outgoing: Some(out_tx),
        },
        Writer { done: done_rx },
    ))
}

/// One framed line, or why there is none.
enum Line {
    Text(Vec<u8>),
    Oversized,
    Eof,
}

fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let n = std::io::Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::Eof);
    }
    if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
        // Skip the rest of the line.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let m = std::io::Read::take(&mut *input, 1024 * 1024).read_until(b'\n', &mut rest)?;
            if m == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Line::Oversized);
    }
    Ok(Line::Text(std::mem::take(buf)))
}

fn read_loop(mut input: impl BufRead, tx: &mpsc::Sender<Incoming>, precheck: &Precheck) {
    let mut buf = Vec::new();
    loop {
        let line = match read_line(&mut input, &mut buf) {
            Ok(Line::Eof) => return,
            Ok(Line::Oversized) => {
                tracing::error!("discarded an input line longer than {MAX_LINE_BYTES} bytes");
                continue;
            }
            Ok(Line::Text(line)) => line,
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                return;
            }
        };
        let Some(incoming) = classify(&line, precheck) else {
            continue;
        };
        if tx.blocking_send(incoming).is_err() {
            return;
        }
    }
}

fn classify(line: &[u8], precheck: &Precheck) -> Option<Incoming> {
    let mut text = line.strip_suffix(b"\n").unwrap_or(line);
    text = text.strip_suffix(b"\r").unwrap_or(text);
    text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // Not JSON at all: there is no id to answer, and answering garbage invites loops.
    let value: Value = serde_json::from_slice(text).ok()?;
    if let Some(reply) = precheck(&value) {
        return serde_json::to_vec(&reply).ok().map(Incoming::Reply);
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(m) => Some(Incoming::Message(Box::new(m))),
        Err(e) => {
            // A notification gets no answer; a request gets Invalid Request with its id.
            let id = value.get("id").cloned()?;
            tracing::debug!("invalid JSON-RPC message: {e}");
            let reply = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": -32600, "message": "Invalid request" }
            });
            serde_json::to_vec(&reply).ok().map(Incoming::Reply)
        }
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let result = match (&self.outgoing, serde_json::to_vec(&item)) {
            (Some(tx), Ok(bytes)) => tx.send(bytes).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
            }),
            (None, _) => Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the transport is closed",
            )),
            (_, Err(e)) => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        std::future::ready(result)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.incoming.recv().await? {
                Incoming::Message(m) => return Some(*m),
                Incoming::Reply(bytes) => {
                    if let Some(tx) = &self.outgoing {
                        let _ = tx.send(bytes);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.outgoing = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_framed_and_oversized_ones_skipped() {
        let mut input = std::io::Cursor::new(b"{\"a\":1}\r\nxyz".to_vec());
        let mut buf = Vec::new();
        assert!(
            matches!(read_line(&mut input, &mut buf), Ok(Line::Text(t)) if t == b"{\"a\":1}\r\n")
        );
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Line::Text(t)) if t == b"xyz"));
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Line::Eof)));
    }

    #[test]
    fn garbage_and_bad_notifications_are_ignored_bad_requests_answered() {
        let pass: Precheck = Box::new(|_| None);
        assert!(classify(b"not json\n", &pass).is_none());
        assert!(classify(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":3}\n",
            &pass
        )
        .is_none());
        match classify(
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":3}\n",
            &pass,
        ) {
            Some(Incoming::Reply(bytes)) => {
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(v["id"], 7);
                assert_eq!(v["error"]["code"], -32600);
            }
            _ => panic!("expected an Invalid Request answer"),
        }
    }
}
