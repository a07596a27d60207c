//! Diagnostics on stderr (MCP-3): single lines, no colour, prefix `[ajisai-mcp]`.
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
