//! Diagnostics on stderr (MCP-3; docs/mcp/index.md): single lines, no colour, prefix `[ajisai-mcp]`.
//!
//! The server's own events are logged at `info` and above; rmcp's only at `error`, so a
//! healthy server writes nothing per request except host errors. Panics are reported by
//! a hook as one line each (a panic inside a call is also answered `backendFailure`).

use std::fmt;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The prefix of every stderr line.
pub const PREFIX: &str = "[ajisai-mcp]";

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

/// How long a request's log line may wait before it is written (HTTP mode).
pub const REQUEST_LOG_FLUSH: std::time::Duration = std::time::Duration::from_millis(10);

/// Request log lines waiting to be written, and whether the flusher runs.
struct RequestLog {
    pending: std::sync::Mutex<Vec<u8>>,
}

fn request_log() -> &'static RequestLog {
    static LOG: std::sync::OnceLock<RequestLog> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        // One writer thread: a line costs the request a short append instead of a write
        // to stderr (and, through a pipe, waking its reader) per request.
        let _ = std::thread::Builder::new()
            .name("ajisai-request-log".into())
            .spawn(|| loop {
                std::thread::sleep(REQUEST_LOG_FLUSH);
                flush_requests();
            });
        RequestLog {
            pending: std::sync::Mutex::new(Vec::new()),
        }
    })
}

/// Log one request: `[ajisai-mcp] <line>` on stderr, written with the others of the
/// last [`REQUEST_LOG_FLUSH`] in one write (MCP-3 for HTTP: one line per request).
pub fn request(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let log = request_log();
    let _ = REQUEST_LOG_READY.set(());
    let mut pending = log.pending.lock().unwrap_or_else(|p| p.into_inner());
    let start = pending.len();
    let _ = write!(pending, "{PREFIX} {line}");
    // One line, whatever the arguments held.
    for b in &mut pending[start..] {
        if *b == b'\n' || *b == b'\r' {
            *b = b' ';
        }
    }
    pending.push(b'\n');
}

/// Write every waiting request line now (the drain calls it before the process exits).
pub fn flush_requests() {
    use std::io::Write;
    let Some(log) = REQUEST_LOG_READY.get().map(|()| request_log()) else {
        return;
    };
    let lines = {
        let mut pending = log.pending.lock().unwrap_or_else(|p| p.into_inner());
        if pending.is_empty() {
            return;
        }
        std::mem::take(&mut *pending)
    };
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(&lines);
    let _ = err.flush();
}

/// Set when the request log exists, so that flushing never creates it.
static REQUEST_LOG_READY: std::sync::OnceLock<()> = std::sync::OnceLock::new();

/// The text of a panic payload: a message, or a numeric plugin's fault report.
pub fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(fault) = ajisai_numerics_gmp::BackendFault::from_panic(payload) {
        fault.to_string()
    } else {
        "a panic with a non-text payload".to_string()
    }
}

/// Install the stderr logger (once; later calls do nothing) and the panic hook.
pub fn init() {
    let filter = Targets::new()
        .with_target("ajisai_server", Level::INFO)
        .with_default(Level::ERROR);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .event_format(OneLine);
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init();
    std::panic::set_hook(Box::new(|info| {
        let msg = payload_text(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        eprintln!(
            "{PREFIX} panic in thread {name}{at}: {}",
            msg.replace(['\r', '\n'], " ")
        );
    }));
}
