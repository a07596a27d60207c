//! The Prometheus text of `GET /metrics`: the process's recorder, installed at start-up
//! before anything is counted, and what the server itself adds to the service's metrics
//! (the build, and the stderr lines the log queue dropped). The exporter is built without
//! its own listener or TLS stack: the HTTP transport serves the text the application
//! ([`super::app::App`]) renders.

use ajisai_service::metrics as service;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

/// stderr lines the server dropped: its log queue was full (stderr was not keeping up)
/// or stderr was gone (read when `/metrics` is scraped).
pub const LOG_LINES_DROPPED: &str = "ajisai_log_lines_dropped_total";
/// Always 1, labelled with the server version and the numeric backend.
pub const BUILD_INFO: &str = "ajisai_build_info";

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Install the process's recorder (once; later calls return the same handle), with
/// `ajisai_build_info` set. `None` when another recorder was installed first.
pub fn install(backend: &str) -> Option<&'static PrometheusHandle> {
    if let Some(h) = HANDLE.get() {
        return Some(h);
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(
            metrics_exporter_prometheus::Matcher::Full(service::TOOL_CALL_DURATION.to_string()),
            &service::DURATION_BUCKETS,
        )
        .ok()?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).ok()?;
    let _ = HANDLE.set(handle);
    service::describe_and_zero();
    metrics::describe_counter!(
        LOG_LINES_DROPPED,
        "stderr lines dropped because stderr was not keeping up (or was gone)."
    );
    metrics::describe_gauge!(BUILD_INFO, "Server version and numeric backend.");
    metrics::gauge!(BUILD_INFO, "version" => crate::mcp::SERVER_VERSION, "backend" => backend.to_string())
        .set(1.0);
    metrics::counter!(LOG_LINES_DROPPED).absolute(crate::mcp::logging::dropped_total());
    HANDLE.get()
}

/// The Prometheus text of every metric, or `None` when no recorder is installed;
/// `waiting` is the gate's queue length now (read here, not on every admission).
pub fn render(waiting: usize) -> Option<String> {
    let handle = HANDLE.get()?;
    service::set_waiting(waiting);
    metrics::counter!(LOG_LINES_DROPPED).absolute(crate::mcp::logging::dropped_total());
    Some(handle.render())
}
