//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout (MCP-3; docs/mcp/index.md).
//!
//! Two plain threads own the standard streams: a reader that frames lines, and a
//! writer that is the only code ever writing to stdout. Every line passes through the
//! [`Framing`] layer, which answers what rmcp cannot serve (parse errors, batches, bad
//! ids, duplicate ids in flight, bad params, over-long lines) and remaps request ids, so
//! every request line gets exactly one answer. The output channel is bounded: a client
//! that stops reading holds the server back instead of growing its memory.
//!
//! Evaluations (the tools that run a program) and everything else take their places
//! from two separate pools, and evaluations that find theirs taken wait in read order
//! while the lines behind them are read on: a burst of slow calls never holds back a
//! `ping`, a resource read or `word_contract` sent after it.

use crate::mcp::protocol::framing::{DirectCall, Framing, Held, Inbound, MAX_MESSAGE_BYTES};
use crate::mcp::transport::Service;
use ajisai_service::tools::ToolKind;
use rmcp::model::{ClientRequest, JsonRpcMessage, NumberOrString};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::io::{BufRead, Write};
use std::sync::Arc;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::task::TaskTracker;

/// Answers that may wait for the writer before senders wait too. Each is at most one
/// tool result (`responseBytes`, 1 MiB), so this bounds the queued output.
pub const OUTPUT_QUEUE: usize = 8;

/// Evaluations that may be handed on while their answers are not yet written. When a
/// client stops reading, the answers stop being written, no further request is taken,
/// the reader stops reading stdin, and the client's writes block: backpressure, not
/// growing memory (rmcp queues each answer it sends in a task of its own).
pub const UNWRITTEN_ANSWERS: usize = 8;

/// The same for every other request (`ping`, listings, resources, `word_contract`): a
/// pool of their own, so that evaluations holding all of theirs never hold these back.
pub const UNWRITTEN_QUICK_ANSWERS: usize = 8;

/// Evaluations read while every evaluation's place was taken, waiting in read order:
/// the reader reads on past them (to find the quick requests behind) until this many
/// wait, then stops reading until one is handed on.
pub const WAITING_EVALUATIONS: usize = 64;

/// Bytes for the writer, with what their request held until they are written.
type Outgoing = (Vec<u8>, Option<Held>);

/// The server side of the stdio transport.
pub struct StdioTransport<S: Service> {
    incoming: mpsc::Receiver<Inbound>,
    outgoing: Option<mpsc::Sender<Outgoing>>,
    framing: Arc<Framing>,
    /// The places of evaluations' answers ([`UNWRITTEN_ANSWERS`]).
    unwritten: Arc<Semaphore>,
    /// The places of every other request's answer ([`UNWRITTEN_QUICK_ANSWERS`]).
    unwritten_quick: Arc<Semaphore>,
    /// Evaluations read and waiting for a place, oldest first ([`WAITING_EVALUATIONS`]).
    waiting: std::collections::VecDeque<Inbound>,
    /// `incoming` has ended (stdin closed): only the waiting evaluations are left.
    input_ended: bool,
    /// What was taken from `incoming` and is not yet handed on (never an evaluation:
    /// those wait in `waiting`).
    pending: Option<Inbound>,
    /// Answers the direct calls.
    service: S,
    /// The direct calls running.
    calls: TaskTracker,
}

/// The writer thread; join it after the service stopped so queued answers reach stdout.
pub struct Writer {
    done: std::sync::mpsc::Receiver<()>,
    calls: TaskTracker,
}

impl Writer {
    /// After the service stopped: wait up to `timeout` for the direct calls still
    /// running to be answered, as rmcp drains its own handlers (a call that outlasts it
    /// is stopped when the runtime drops it).
    pub async fn drain_calls(&self, timeout: std::time::Duration) {
        self.calls.close();
        if tokio::time::timeout(timeout, self.calls.wait())
            .await
            .is_err()
        {
            tracing::warn!("timed out draining in-flight tool calls");
        }
    }

    /// Wait up to `timeout` for every queued message to be written.
    pub fn finish(self, timeout: std::time::Duration) {
        let _ = self.done.recv_timeout(timeout);
    }
}

/// Start the reader and writer threads on the process's stdin and stdout; `service`
/// answers the [`DirectCall`]s.
pub fn stdio<S: Service>(
    framing: Arc<Framing>,
    service: S,
) -> std::io::Result<(StdioTransport<S>, Writer)> {
    let (in_tx, in_rx) = mpsc::channel::<Inbound>(64);
    let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(OUTPUT_QUEUE);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("ajisai-mcp-stdout".into())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            while let Some((mut bytes, held)) = out_rx.blocking_recv() {
                bytes.push(b'\n');
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    break;
                }
                // Written: the next request may be taken.
                drop(held);
            }
            let _ = done_tx.send(());
        })?;
    let reader_framing = Arc::clone(&framing);
    std::thread::Builder::new()
        .name("ajisai-mcp-stdin".into())
        .spawn(move || read_loop(std::io::stdin().lock(), &in_tx, &reader_framing))?;
    let calls = TaskTracker::new();
    Ok((
        StdioTransport {
            incoming: in_rx,
            outgoing: Some(out_tx),
            framing,
            unwritten: Arc::new(Semaphore::new(UNWRITTEN_ANSWERS)),
            unwritten_quick: Arc::new(Semaphore::new(UNWRITTEN_QUICK_ANSWERS)),
            waiting: std::collections::VecDeque::new(),
            input_ended: false,
            pending: None,
            service,
            calls: calls.clone(),
        },
        Writer {
            done: done_rx,
            calls,
        },
    ))
}

/// One framed line, or why there is none.
enum Line {
    /// A complete line (its newline removed).
    Text(Vec<u8>),
    /// A line longer than [`MAX_MESSAGE_BYTES`]: its first bytes; the rest was skipped.
    Oversized(Vec<u8>),
    /// End of input.
    Eof,
}

/// Read one line, holding at most [`MAX_MESSAGE_BYTES`] + 1 bytes of it.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let n =
        std::io::Read::take(&mut *input, MAX_MESSAGE_BYTES as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::Eof);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Line::Text(std::mem::take(buf)));
    }
    if buf.len() <= MAX_MESSAGE_BYTES {
        // The last line of the input, without a newline.
        return Ok(Line::Text(std::mem::take(buf)));
    }
    // Skip the rest of the line without holding it.
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                break;
            }
            None => {
                let len = chunk.len();
                input.consume(len);
            }
        }
    }
    buf.truncate(256);
    Ok(Line::Oversized(std::mem::take(buf)))
}

fn read_loop(mut input: impl BufRead, tx: &mpsc::Sender<Inbound>, framing: &Framing) {
    let mut buf = Vec::new();
    loop {
        let incoming = match read_line(&mut input, &mut buf) {
            Ok(Line::Eof) => return,
            Ok(Line::Oversized(prefix)) => Inbound::Reply(framing.oversized(&prefix)),
            // The framing's classification is what the reader hands on, less what needs
            // no answer (`Verbatim` is a stateless service's, never a connection's).
            Ok(Line::Text(line)) => match framing.inbound(&line) {
                Inbound::Nothing | Inbound::Verbatim => continue,
                other => other,
            },
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                return;
            }
        };
        if tx.blocking_send(incoming).is_err() {
            return;
        }
    }
}

impl<S: Service> StdioTransport<S> {
    /// Run a direct call in a task of its own and queue its answer for the writer,
    /// unless it is cancelled first (MCP-9; docs/mcp/transports.md).
    fn spawn_direct(&self, call: DirectCall, internal: i64) {
        let Some(tx) = self.outgoing.clone() else {
            return;
        };
        let service = self.service.clone();
        let framing = Arc::clone(&self.framing);
        self.calls.spawn(async move {
            let answer = service.call(call).await;
            // `complete` is `None` once the client cancelled the call.
            if let (Some(answer), Some(held)) = (answer, framing.complete(internal)) {
                let _ = tx.send((answer.response, Some(held))).await;
            }
        });
    }
}

impl<S: Service> StdioTransport<S> {
    /// The next request to hand on: the oldest waiting evaluation once one of its places
    /// is free (with that place), else the next line read (a quick request, without a
    /// place). An evaluation read while its places are taken joins `waiting`, and
    /// reading goes on behind it; `None` once stdin has ended and nothing waits.
    ///
    /// Cancel-safe: a dropped wait for a place takes none, a dropped `recv` loses no
    /// line, and nothing is moved between them across an `await`.
    async fn next_inbound(&mut self) -> Option<(Inbound, Option<Held>)> {
        loop {
            if !self.waiting.is_empty() {
                if let Ok(place) = Arc::clone(&self.unwritten).try_acquire_owned() {
                    return self.waiting.pop_front().map(|i| (i, Some(place)));
                }
            }
            if self.input_ended && self.waiting.is_empty() {
                return None;
            }
            let read_on = !self.input_ended && self.waiting.len() < WAITING_EVALUATIONS;
            let has_waiting = !self.waiting.is_empty();
            tokio::select! {
                biased;
                place = Arc::clone(&self.unwritten).acquire_owned(), if has_waiting => {
                    let place = place.ok()?;
                    return self.waiting.pop_front().map(|i| (i, Some(place)));
                }
                read = self.incoming.recv(), if read_on => match read {
                    Some(item) if is_evaluation(&item) => self.waiting.push_back(item),
                    Some(item) => return Some((item, None)),
                    None => self.input_ended = true,
                },
            }
        }
    }
}

/// The internal id a request is held under until its answer is written: a request
/// with an integer id (the framing's remapped ids), or a direct call; `None` for what
/// is answered without a place (notifications, refusals).
fn held_id(item: &Inbound) -> Option<i64> {
    match item {
        Inbound::Message(m) => match m.as_ref() {
            JsonRpcMessage::Request(r) => match r.id {
                NumberOrString::Number(i) => Some(i),
                NumberOrString::String(_) => None,
            },
            _ => None,
        },
        Inbound::Direct(call) => call.internal,
        _ => None,
    }
}

/// Whether `item` runs a program (a call of `compute`, `check` or `infer_contracts`):
/// such calls take their places from [`UNWRITTEN_ANSWERS`].
fn is_evaluation(item: &Inbound) -> bool {
    let tool = match item {
        Inbound::Direct(call) => call.name.as_str(),
        Inbound::Message(m) => match m.as_ref() {
            JsonRpcMessage::Request(r) => match &r.request {
                ClientRequest::CallToolRequest(call) => call.params.name.as_ref(),
                _ => return false,
            },
            _ => return false,
        },
        _ => return false,
    };
    ToolKind::from_name(tool).is_some_and(ToolKind::is_source_tool)
}

impl<S: Service> Transport<RoleServer> for StdioTransport<S> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let message = self.framing.outbound_held(&item);
        let outgoing = self.outgoing.clone();
        async move {
            let Some(message) = message else {
                // The answer to a cancelled request: never sent (MCP-9).
                return Ok(());
            };
            match outgoing {
                Some(tx) => tx.send(message).await.map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
                }),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                )),
            }
        }
    }

    // Cancel-safe: rmcp polls `receive` in a `select!` and drops the future whenever
    // another branch fires, so whatever was taken from `incoming` waits in
    // `self.pending` or `self.waiting`, never in the future, and each wait loses nothing
    // when dropped.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let (mut incoming, mut place) = match self.pending.take() {
                Some(i) => (i, None),
                None => self.next_inbound().await?,
            };
            let internal = held_id(&incoming);
            if internal.is_some() && place.is_none() {
                // A quick request: wait for one of its own places.
                self.pending = Some(incoming);
                place = Some(
                    Arc::clone(&self.unwritten_quick)
                        .acquire_owned()
                        .await
                        .ok()?,
                );
                incoming = self.pending.take()?;
            }
            match incoming {
                Inbound::Message(m) => {
                    let (Some(internal), Some(held)) = (internal, place) else {
                        return Some(*m);
                    };
                    if self.framing.hold(internal, held) {
                        return Some(*m);
                    }
                    // Cancelled while it waited: rmcp would answer nothing.
                }
                Inbound::Direct(call) => {
                    let (Some(internal), Some(held)) = (internal, place) else {
                        continue;
                    };
                    // Cancelled while it waited: nothing to run or answer.
                    if self.framing.hold(internal, held) {
                        self.spawn_direct(*call, internal);
                    }
                }
                Inbound::Nothing | Inbound::Verbatim => {}
                Inbound::Reply(bytes) | Inbound::Answer(bytes) => {
                    let Some(tx) = self.outgoing.clone() else {
                        continue;
                    };
                    self.pending = Some(Inbound::Reply(bytes));
                    let Ok(permit) = tx.reserve().await else {
                        return None;
                    };
                    if let Some(Inbound::Reply(bytes)) = self.pending.take() {
                        permit.send((bytes, None));
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
    fn lines_are_framed_and_oversized_ones_skipped_without_being_held() {
        let mut long = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        long.push(b'\n');
        let mut input = b"{\"a\":1}\r\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"xyz");
        let mut input = std::io::Cursor::new(input);
        let mut buf = Vec::new();
        assert!(
            matches!(read_line(&mut input, &mut buf), Ok(Line::Text(t)) if t == b"{\"a\":1}\r")
        );
        assert!(
            matches!(read_line(&mut input, &mut buf), Ok(Line::Oversized(p)) if p.len() == 256)
        );
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Line::Text(t)) if t == b"xyz"));
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Line::Eof)));
        // A line of exactly the limit is read whole.
        let mut exact = vec![b' '; MAX_MESSAGE_BYTES];
        exact.push(b'\n');
        let mut input = std::io::Cursor::new(exact);
        assert!(
            matches!(read_line(&mut input, &mut buf), Ok(Line::Text(t)) if t.len() == MAX_MESSAGE_BYTES)
        );
    }
}
