//! Diagnostics on stderr (MCP-3; docs/mcp/index.md): single lines, no colour, prefix `[ajisai-mcp]`.
//!
//! The server's own events are logged at `info` and above; rmcp's only at `error`, so a
//! healthy server writes nothing per request except host errors (and, over HTTP, one
//! request line). Panics are reported by a hook as one line each (a panic inside a call is
//! also answered `backendFailure`).
//!
//! Every line the server writes to stderr while it serves — its events, rmcp's errors, the
//! request log, the panic hook, startup faults — goes through one bounded queue that one
//! writer thread empties ([`LineQueue`]). A stderr that stalls (a log shipper that hangs, a
//! pipe nobody reads) can then neither block a request nor grow the server: a line that
//! does not fit is dropped and counted (`ajisai_log_lines_dropped_total`), the writer says
//! how many once it catches up, and at exit the queue is given [`FINISH_WAIT`] to be
//! written, never more.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::{FmtContext, MakeWriter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The prefix of every stderr line.
pub const PREFIX: &str = "[ajisai-mcp]";

/// Bytes waiting in the queue at most. The writer holds one more batch of at most this
/// size while it writes, so the log never holds more than twice this, whatever the load
/// and however long stderr stalls. 1 MiB holds about 7,000 request lines: a third of a
/// second of a saturated server's log, ten seconds of a busy one's.
pub const QUEUE_BYTES: usize = 1 << 20;

/// The longest line kept, newline included; a longer one is cut and ends with `…`.
pub const LINE_BYTES: usize = 4096;

/// How long a line may wait so that the lines of a busy moment are written together (one
/// write, and one wake-up of the reader, per batch instead of per request).
pub const BATCH_WAIT: Duration = Duration::from_millis(10);

/// How long the process waits at exit for the queue to reach stderr; what is still
/// queued then is dropped (MCP-4: a stalled stderr never holds up the drain).
pub const FINISH_WAIT: Duration = Duration::from_secs(1);

/// A bounded queue of log lines in front of one writer.
///
/// Written by hand rather than with `tracing-appender`'s lossy non-blocking writer, which
/// has the bounded queue and a dropped-line counter but not what serve mode needs: when
/// its queue is full at exit (stderr stalled), its guard reports the failed shutdown with
/// `println!` — on stdout, which in stdio serve mode carries only JSON-RPC
/// (`server/tests/bounded.rs::a_stalled_stderr_neither_blocks_nor_grows_the_stdio_server`
/// checks stdout through that exit); it bounds lines rather than bytes and copies each
/// line into an allocation of its own; and its flush waits are fixed. Two buffers of
/// [`QUEUE_BYTES`] are allocated once and swapped between the producers and the writer,
/// so a line costs a copy under a short lock and never an allocation or a system call.
pub struct LineQueue {
    state: Mutex<State>,
    /// Signalled when the queue goes from empty to not empty.
    wake: Condvar,
    /// Signalled when the writer has finished a batch.
    settled: Condvar,
    /// Lines dropped since the process started (full queue, or stderr gone).
    dropped_total: AtomicU64,
    capacity: usize,
}

struct State {
    /// Complete lines, each ending in `\n`; never longer than the capacity.
    pending: Vec<u8>,
    /// Lines in `pending`.
    pending_lines: u64,
    /// Lines dropped and not yet reported.
    unreported: u64,
    /// Lines accepted so far, and how many of them the writer has dealt with.
    accepted: u64,
    done: u64,
}

impl LineQueue {
    /// An empty queue holding at most `capacity` bytes (its buffer allocated now).
    pub fn new(capacity: usize) -> LineQueue {
        LineQueue {
            state: Mutex::new(State {
                pending: Vec::with_capacity(capacity),
                pending_lines: 0,
                unreported: 0,
                accepted: 0,
                done: 0,
            }),
            wake: Condvar::new(),
            settled: Condvar::new(),
            dropped_total: AtomicU64::new(0),
            capacity,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue `line` (one line: line breaks become spaces, other control characters are
    /// escaped ([`escape_controls`]), cut at [`LINE_BYTES`]), or drop
    /// and count it when it does not fit. Never blocks on the writer.
    pub fn push(&self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let escaped = escape_controls(line);
        let body: &[u8] = &escaped;
        let (body, cut) = if body.len() + 1 > LINE_BYTES {
            let ellipsis = "…".len();
            let mut end = LINE_BYTES - 1 - ellipsis;
            // Cut on a character boundary (a UTF-8 continuation byte is 0b10xx_xxxx).
            while end > 0 && body[end] & 0xC0 == 0x80 {
                end -= 1;
            }
            (&body[..end], true)
        } else {
            (body, false)
        };
        let size = body.len() + if cut { "…".len() } else { 0 } + 1;
        let mut state = self.lock();
        // The writer waits only while there is nothing to write or report.
        let was_idle = state.pending.is_empty() && state.unreported == 0;
        if state.pending.len() + size > self.capacity {
            state.unreported += 1;
            drop(state);
            self.dropped_total.fetch_add(1, Ordering::Relaxed);
            if was_idle {
                self.wake.notify_one();
            }
            return;
        }
        state.pending.extend_from_slice(body);
        if cut {
            state.pending.extend_from_slice("…".as_bytes());
        }
        state.pending.push(b'\n');
        state.pending_lines += 1;
        state.accepted += 1;
        drop(state);
        if was_idle {
            self.wake.notify_one();
        }
    }

    /// Queue `{PREFIX} {args}` as one line.
    pub fn push_fmt(&self, args: fmt::Arguments<'_>) {
        let mut line = Vec::with_capacity(128);
        let _ = write!(Capped(&mut line), "{PREFIX} {args}");
        self.push(&line);
    }

    /// Lines dropped since the queue was made.
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total.load(Ordering::Relaxed)
    }

    /// The writer's loop: wait for lines, let a batch gather for [`BATCH_WAIT`], write it
    /// to `out`, then say how many lines were dropped meanwhile. Runs until the process
    /// ends.
    pub fn write_forever(&self, out: &mut dyn Write) -> ! {
        let mut batch = Vec::with_capacity(self.capacity);
        loop {
            {
                let mut state = self.lock();
                while state.pending.is_empty() && state.unreported == 0 {
                    state = self.wake.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            }
            std::thread::sleep(BATCH_WAIT);
            let (lines, dropped) = {
                let mut state = self.lock();
                std::mem::swap(&mut state.pending, &mut batch);
                (
                    std::mem::take(&mut state.pending_lines),
                    std::mem::take(&mut state.unreported),
                )
            };
            let written = out.write_all(&batch).and_then(|()| out.flush());
            if written.is_err() {
                // stderr is gone (its reader closed it): these lines are lost, and so is
                // any report of them.
                self.dropped_total.fetch_add(lines, Ordering::Relaxed);
            } else if dropped > 0 {
                let _ = writeln!(
                    out,
                    "{PREFIX} log: {dropped} lines dropped while stderr was not keeping up"
                )
                .and_then(|()| out.flush());
            }
            batch.clear();
            self.lock().done += lines;
            self.settled.notify_all();
        }
    }

    /// Wait until every accepted line has been written and every drop reported, for at
    /// most `wait`. False when the time ran out (stderr is stalled): what is left stays
    /// queued and is lost when the process ends.
    pub fn finish(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        let mut state = self.lock();
        while state.done < state.accepted || state.unreported > 0 {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .settled
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

/// `line` as one line a terminal shows as text: line breaks become spaces, and every
/// other control character (C0, DEL, C1 — an ESC from a request's method name would
/// reach the operator's terminal as a command) is written `\u{1b}`; invalid UTF-8
/// becomes U+FFFD.
fn escape_controls(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let text = String::from_utf8_lossy(line);
    if matches!(text, std::borrow::Cow::Borrowed(_)) && !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {
                let _ = fmt::Write::write_fmt(&mut out, format_args!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out.into_bytes())
}

/// A writer that keeps at most [`LINE_BYTES`] bytes and ignores the rest (the queue cuts
/// the line and marks it), so formatting a huge value never allocates more than that.
struct Capped<'a>(&'a mut Vec<u8>);

impl Write for Capped<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = LINE_BYTES.saturating_sub(self.0.len());
        self.0.extend_from_slice(&buf[..buf.len().min(room)]);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The process's queue in front of stderr, made (and its writer started) by the first
/// line logged.
static QUEUE: OnceLock<LineQueue> = OnceLock::new();

fn queue() -> &'static LineQueue {
    let mut fresh = false;
    let queue = QUEUE.get_or_init(|| {
        fresh = true;
        LineQueue::new(QUEUE_BYTES)
    });
    if fresh {
        // Without the thread (the system refused one) lines fill the queue and are then
        // dropped and counted: still bounded.
        let _ = std::thread::Builder::new()
            .name("ajisai-log".into())
            .spawn(move || queue.write_forever(&mut std::io::stderr()));
    }
    queue
}

/// Log one line, `[ajisai-mcp] <args>`, through the queue.
pub fn line(args: fmt::Arguments<'_>) {
    queue().push_fmt(args);
}

/// Log one request: `[ajisai-mcp] <line>` (MCP-3 for HTTP: one line per request).
pub fn request(args: fmt::Arguments<'_>) {
    line(args);
}

/// Lines dropped since the process started: the queue was full, or stderr was gone.
pub fn dropped_total() -> u64 {
    QUEUE.get().map_or(0, LineQueue::dropped_total)
}

/// Give the queue at most `wait` to reach stderr (the process is about to exit); true
/// when everything was written.
pub fn finish(wait: Duration) -> bool {
    QUEUE.get().is_none_or(|q| q.finish(wait))
}

/// `[ajisai-mcp] <message and fields>` on one line.
struct OneLine;

impl<S, N> FormatEvent<S, N> for OneLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut fields = String::new();
        ctx.field_format()
            .format_fields(Writer::new(&mut fields), event)?;
        writeln!(writer, "{PREFIX} {}", fields.replace(['\r', '\n'], " "))
    }
}

/// Hands tracing a buffer per event that goes to the queue, whole, when the event is
/// written.
struct ToQueue;

impl<'a> MakeWriter<'a> for ToQueue {
    type Writer = EventLine;

    fn make_writer(&'a self) -> EventLine {
        EventLine(Vec::new())
    }
}

/// One formatted event on its way to the queue.
struct EventLine(Vec<u8>);

impl Write for EventLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Capped(&mut self.0).write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventLine {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            queue().push(&self.0);
        }
    }
}

/// The outcome a tool-call handler records for the request's log line, and the
/// `retryAfterMs` of a refusal for capacity, which the HTTP answer also sends as
/// `Retry-After` (rmcp hands the HTTP request's parts, extensions included, to the
/// handler).
#[derive(Clone, Default)]
pub struct OutcomeCell(std::sync::Arc<std::sync::Mutex<Option<Recorded>>>);

/// What [`OutcomeCell`] holds: the outcome and the `retryAfterMs`, if any.
type Recorded = (&'static str, Option<u64>);

impl OutcomeCell {
    /// Record the outcome of the call and its `retryAfterMs`, if any.
    pub fn set(&self, outcome: &'static str, retry_after_ms: Option<u64>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((outcome, retry_after_ms));
    }

    /// The outcome recorded, if any.
    pub fn get(&self) -> Option<&'static str> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .map(|(outcome, _)| outcome)
    }

    /// The `retryAfterMs` recorded, if any.
    pub fn retry_after_ms(&self) -> Option<u64> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .and_then(|(_, retry)| retry)
    }
}

/// Install the logger (once; later calls do nothing) and the panic hook, both writing
/// through the queue.
pub fn init() {
    let filter = Targets::new()
        .with_target("ajisai_server", Level::INFO)
        .with_target("ajisai_host", Level::INFO)
        .with_target("ajisai_service", Level::INFO)
        .with_default(Level::ERROR);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(ToQueue)
        .with_ansi(false)
        .event_format(OneLine);
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init();
    std::panic::set_hook(Box::new(|info| {
        let msg = ajisai_host::hosterror::payload_text(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        line(format_args!("panic in thread {name}{at}: {msg}"));
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// What a [`Gate`] holds: whether it is open, and what it was given.
    #[derive(Default)]
    struct Held {
        open: bool,
        text: Vec<u8>,
    }

    /// A writer that blocks until it is opened, then keeps what it was given.
    #[derive(Clone, Default)]
    struct Gate(Arc<(Mutex<Held>, Condvar)>);

    impl Gate {
        fn open(&self) {
            self.0 .0.lock().expect("gate").open = true;
            self.0 .1.notify_all();
        }
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0 .0.lock().expect("gate").text).into_owned()
        }
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (m, c) = &*self.0;
            let mut g = m.lock().expect("gate");
            while !g.open {
                g = c.wait(g).expect("gate");
            }
            g.text.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn started(capacity: usize) -> (Arc<LineQueue>, Gate) {
        let queue = Arc::new(LineQueue::new(capacity));
        let gate = Gate::default();
        let (q, mut g) = (Arc::clone(&queue), gate.clone());
        std::thread::spawn(move || q.write_forever(&mut g));
        (queue, gate)
    }

    #[test]
    fn a_stalled_writer_holds_at_most_two_queues_and_counts_what_it_drops() {
        let (queue, gate) = started(1000);
        // The first line goes to the writer, which blocks on it.
        queue.push(b"first");
        while queue.lock().pending_lines > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        // 100 lines of 100 bytes: 10 fit in the queue, 90 are dropped.
        let line = [b'x'; 99];
        for _ in 0..100 {
            queue.push(&line);
        }
        assert_eq!(queue.lock().pending.len(), 1000);
        assert_eq!(
            queue.lock().pending.capacity(),
            1000,
            "the buffer never grows"
        );
        assert_eq!(queue.dropped_total(), 90);
        assert!(
            !queue.finish(Duration::from_millis(50)),
            "stderr is stalled"
        );
        gate.open();
        assert!(queue.finish(Duration::from_secs(60)));
        let text = gate.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 10 + 1, "{text}");
        assert_eq!(lines[0], "first");
        assert_eq!(
            lines[11],
            "[ajisai-mcp] log: 90 lines dropped while stderr was not keeping up"
        );
    }

    #[test]
    fn lines_are_single_and_cut_at_the_line_limit() {
        let (queue, gate) = started(QUEUE_BYTES);
        gate.open();
        queue.push_fmt(format_args!("a\nb\rc"));
        let long = "é".repeat(LINE_BYTES);
        queue.push_fmt(format_args!("{long}"));
        queue.push_fmt(format_args!("method=F\u{1b}[31mOO \u{9b}2J \u{7f} tab\tx"));
        assert!(queue.finish(Duration::from_secs(60)));
        let text = gate.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "[ajisai-mcp] a b c");
        assert_eq!(
            lines[2],
            "[ajisai-mcp] method=F\\u{1b}[31mOO \\u{9b}2J \\u{7f} tab\\u{9}x"
        );
        assert!(lines[1].ends_with("é…"), "cut on a character boundary");
        assert!(lines[1].len() < LINE_BYTES, "{}", lines[1].len());
        assert_eq!(queue.dropped_total(), 0);
    }

    #[test]
    fn finishing_an_idle_queue_returns_at_once() {
        let (queue, _gate) = started(100);
        assert!(queue.finish(Duration::ZERO));
    }
}
