//! What every HTTP host shares: the accept loop (on hyper, with a header read timeout, a
//! connection cap and a graceful drain) and the `Host` and `Origin` rules, so that the
//! MCP server's `/mcp` and the Playground's pages are served and guarded alike.
//!
//! The accept loop is written here on hyper rather than with `axum::serve`, because that
//! offers neither a header read timeout nor a connection cap; hyper still does all of
//! HTTP, and its graceful shutdown closes keep-alive connections (`Connection: close`).

use axum::body::Body;
use axum::http::{header, HeaderMap, Request};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long a connection may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The names accepted in `Host` without `--allowed-host`.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The I/O threads of a serving host when not told: half the machine's cores, at least
/// one. Evaluations run elsewhere (thread isolation's evaluation threads, or worker
/// processes), so the other half is theirs; and on a small machine every I/O thread
/// beyond what the load needs costs a wake-up per request handed between two of them
/// (docs/mcp/transports.md#threads: on 2 cores, one I/O thread instead of two takes a
/// third less CPU per process-isolated call).
pub fn default_io_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() / 2)
        .unwrap_or(1)
        .max(1)
}

/// Build the runtime of a serving host with [`default_io_threads`].
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    runtime_with(default_io_threads())
}

/// Build the runtime of a serving host: `io_threads` threads that read requests and
/// write answers, and the blocking pool, all with the engine's large stack.
pub fn runtime_with(io_threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(io_threads.max(1))
        .enable_all()
        .thread_name("ajisai-serve")
        .thread_stack_size(ajisai_host::ENGINE_STACK_BYTES)
        .max_blocking_threads(16)
        .build()
}

/// Resolves at SIGINT or SIGTERM (Ctrl+C elsewhere): when a serving host drains.
#[cfg(unix)]
pub async fn signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}

/// Resolves at Ctrl+C: when a serving host drains.
#[cfg(not(unix))]
pub async fn signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// A token cancelled at SIGINT or SIGTERM (after logging `note`): a serving host's
/// shutdown.
pub fn cancelled_on_signal(note: &'static str) -> CancellationToken {
    let shutdown = CancellationToken::new();
    let cancel = shutdown.clone();
    tokio::spawn(async move {
        signal().await;
        tracing::info!("{note}");
        cancel.cancel();
    });
    shutdown
}

/// How long a response may make no progress being written before its connection is
/// closed: a client that sends requests and never reads the answers holds no connection
/// longer than this.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections accepted beyond `--max-connections` to answer liveness and readiness
/// probes (anything else there gets 503 with `Retry-After`): stalled clients holding
/// every connection must not make an orchestrator restart a healthy server.
pub const PROBE_CONNECTIONS: usize = 32;

/// How long a probe connection may take to send its request's headers.
const PROBE_HEADER_TIMEOUT: Duration = Duration::from_secs(2);

/// The headers every answer of a serving host carries, whatever route (or refusal)
/// wrote it, unless the route set its own: never sniffed as another type, never framed.
const BASE_HEADERS: [(&str, &str); 2] = [
    ("x-content-type-options", "nosniff"),
    ("content-security-policy", "frame-ancestors 'none'"),
];

/// The outermost layer of every serving host, one layer rather than two (each axum layer
/// costs a call its boxed future and its clone of the service inside it):
///
/// - [`BASE_HEADERS`] go on every answer that does not set them, whatever route (or
///   refusal) wrote it;
/// - an answer given before its request's body was read to the end (a refusal for the
///   token, a size or a budget, a method or type rmcp refuses) says `Connection: close`.
///   hyper closes such a connection anyway unless the rest of the body has already
///   arrived, but says nothing in the answer; a client that sends its next request on
///   the same connection then finds it closed ("server disconnected without sending a
///   response"). Draining the body instead would let an unauthenticated client make the
///   server read whatever it sends.
pub async fn edge(
    request: Request<Body>,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use http_body::Body as _;
    let read = (!request.body().is_end_stream())
        .then(|| Arc::new(std::sync::atomic::AtomicBool::new(false)));
    let request = match &read {
        Some(read) => request.map(|body| {
            Body::new(ReadToEnd {
                inner: body,
                read: Arc::clone(read),
            })
        }),
        None => request,
    };
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in BASE_HEADERS {
        if !headers.contains_key(name) {
            headers.insert(name, header::HeaderValue::from_static(value));
        }
    }
    if read.is_some_and(|read| !read.load(std::sync::atomic::Ordering::Acquire)) {
        headers.insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
    }
    response
}

/// A request body that records whether it was read to its end.
struct ReadToEnd {
    inner: Body,
    read: Arc<std::sync::atomic::AtomicBool>,
}

impl http_body::Body for ReadToEnd {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, std::task::Poll::Ready(None)) || self.inner.is_end_stream() {
            self.read.store(true, std::sync::atomic::Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// What a connection beyond the cap is answered: `probes` where it matches, 503 with
/// `Retry-After` and `Connection: close` for anything else.
fn overflow_app(probes: Router) -> Router {
    probes.fallback(|| async {
        let mut r = axum::response::Response::new(Body::from(
            "Service Unavailable: the server is at its connection limit; retry in a second\n",
        ));
        *r.status_mut() = axum::http::StatusCode::SERVICE_UNAVAILABLE;
        let h = r.headers_mut();
        h.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        h.insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
        h.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    })
}

/// A held connection (its place goes back when this is dropped): one of the
/// `--max-connections`, or one of the [`PROBE_CONNECTIONS`] beyond them.
struct Held {
    _place: tokio::sync::OwnedSemaphorePermit,
    probe: bool,
}

/// Serve `app` on `listener` with at most `max_connections` open connections until
/// `shutdown` is cancelled; then call `on_drain`, stop accepting, let keep-alive
/// connections close after their current answer, and wait up to `drain_for` for them.
/// With `probes`, up to [`PROBE_CONNECTIONS`] more connections are accepted while every
/// connection is taken, and answered by `probes` only. A response that makes no progress
/// for [`WRITE_TIMEOUT`] closes its connection.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    probes: Option<Router>,
    max_connections: usize,
    shutdown: CancellationToken,
    drain_for: Duration,
    on_drain: impl FnOnce(),
) {
    let app = app.layer(axum::middleware::from_fn(edge));
    let overflow = probes.map(|p| overflow_app(p).layer(axum::middleware::from_fn(edge)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(tokio::sync::Semaphore::new(max_connections));
    let probe_connections = Arc::new(tokio::sync::Semaphore::new(PROBE_CONNECTIONS));
    loop {
        let held = tokio::select! {
            biased;
            () = shutdown.cancelled() => break,
            p = Arc::clone(&connections).acquire_owned() => match p {
                Ok(p) => Held { _place: p, probe: false },
                Err(_) => break,
            },
            p = Arc::clone(&probe_connections).acquire_owned(), if overflow.is_some() => match p {
                Ok(p) => Held { _place: p, probe: true },
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = shutdown.cancelled() => break,
        };
        let (stream, _peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: wait a little instead of spinning.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // A full connection may have come free while this one waited for its accept.
        let held = if held.probe {
            match Arc::clone(&connections).try_acquire_owned() {
                Ok(full) => Held {
                    _place: full,
                    probe: false,
                },
                Err(_) => held,
            }
        } else {
            held
        };
        let _ = stream.set_nodelay(true);
        let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
        stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let io = hyper_util::rt::TokioIo::new(Box::pin(stream));
        let (router, header_timeout, keep_alive) = match (&overflow, held.probe) {
            (Some(o), true) => (o.clone(), PROBE_HEADER_TIMEOUT, false),
            _ => (app.clone(), HEADER_READ_TIMEOUT, true),
        };
        let service = hyper_util::service::TowerToHyperService::new(
            tower::ServiceExt::map_request(router, |r: Request<hyper::body::Incoming>| {
                r.map(Body::new)
            }),
        );
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(header_timeout)
            .keep_alive(keep_alive)
            .serve_connection(io, service);
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = watched.await;
            drop(held);
        });
    }
    on_drain();
    drop(listener);
    tracing::info!("draining: no new connections; waiting for running calls");
    if tokio::time::timeout(drain_for, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the drain period; closing them");
    }
}

/// The bytes of request bodies an endpoint holds at once. A body takes its declared
/// length (or the largest size, when it declares none) from the budget before it is read;
/// when the budget is spent the request is answered 503 with `Retry-After` at once, so
/// many slow or large bodies cannot grow the server without bound.
pub struct BodyBudget {
    largest: usize,
    held: Arc<tokio::sync::Semaphore>,
}

impl BodyBudget {
    /// A budget for bodies of at most `largest` bytes, `at_once` of them at the largest.
    pub fn new(largest: usize, at_once: usize) -> BodyBudget {
        let total = largest
            .saturating_mul(at_once)
            .min(tokio::sync::Semaphore::MAX_PERMITS);
        BodyBudget {
            largest,
            held: Arc::new(tokio::sync::Semaphore::new(total)),
        }
    }

    /// The largest body accepted.
    pub fn largest(&self) -> usize {
        self.largest
    }

    /// Take `bytes` from the budget until the returned permit is dropped; `None` when
    /// they are not there now.
    pub fn take(&self, bytes: usize) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let permits = u32::try_from(bytes.max(1)).ok()?;
        Arc::clone(&self.held).try_acquire_many_owned(permits).ok()
    }
}

/// A host, lower-cased, without IPv6 brackets, with its port if given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    host: String,
    port: Option<u16>,
}

fn authority(host: &str, port: Option<u16>) -> Authority {
    Authority {
        host: host.trim_matches(['[', ']']).to_ascii_lowercase(),
        port,
    }
}

/// An `--allowed-host` entry: `name` (any port) or `name:port`.
pub fn parse_allowed_authority(allowed: &str) -> Option<Authority> {
    let allowed = allowed.trim();
    if allowed.is_empty() || allowed.contains('/') {
        return None;
    }
    if let Ok(a) = axum::http::uri::Authority::try_from(allowed) {
        return Some(authority(a.host(), a.port_u16()));
    }
    Some(authority(allowed, None))
}

/// The `Host` names a server answers to, parsed once: every request is checked against
/// them, and parsing each entry anew took a fiftieth of a small call's time.
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts(Vec<Authority>);

impl AllowedHosts {
    /// The `--allowed-host` entries (and the loopback names) that parse; see
    /// [`parse_allowed_authority`].
    pub fn new(entries: &[String]) -> AllowedHosts {
        AllowedHosts(
            entries
                .iter()
                .filter_map(|e| parse_allowed_authority(e))
                .collect(),
        )
    }

    /// Whether the request's `Host` is one of them (names compared without regard to
    /// ASCII case, an entry without a port matching any port).
    pub fn check(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let host = headers
            .get(header::HOST)
            .ok_or("Forbidden: a Host header is required\n")?
            .to_str()
            .map_err(|_| "Forbidden: the Host header is not text\n")?;
        let a = axum::http::uri::Authority::try_from(host)
            .map_err(|_| "Forbidden: the Host header is not a host\n")?;
        let name = a.host().trim_matches(['[', ']']);
        let port = a.port_u16();
        let ok = self
            .0
            .iter()
            .any(|e| e.host.eq_ignore_ascii_case(name) && e.port.is_none_or(|p| port == Some(p)));
        if ok {
            Ok(())
        } else {
            Err("Forbidden: Host header is not allowed (see --allowed-host)\n")
        }
    }
}

/// An origin: `null`, or scheme, host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `Origin: null`.
    Null,
    /// `scheme://host[:port]`.
    Tuple(String, String, Option<u16>),
}

fn parse_origin(value: &str) -> Option<Origin> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri = axum::http::Uri::try_from(value).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let a = uri.authority()?;
    let host = authority(a.host(), a.port_u16());
    Some(Origin::Tuple(scheme, host.host, host.port))
}

/// A port of an `--allowed-origin` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// `:*`, or no port given (rmcp's reading, which it deprecates).
    Any,
    /// This port (the scheme's default when the Origin omits it).
    Exact(u16),
}

/// An `--allowed-origin` entry.
pub fn parse_allowed_origin(value: &str) -> Option<(Origin, Port)> {
    let value = value.trim();
    if let Some(base) = value.strip_suffix(":*") {
        return match parse_origin(base)? {
            Origin::Tuple(s, h, None) => Some((Origin::Tuple(s, h, None), Port::Any)),
            _ => None,
        };
    }
    match parse_origin(value)? {
        Origin::Null => Some((Origin::Null, Port::Any)),
        Origin::Tuple(s, h, p) => {
            let port = p.map_or(Port::Any, Port::Exact);
            Some((Origin::Tuple(s, h, None), port))
        }
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// Whether the request's `Origin`, if it has one, is one of `allowed` (enforced
/// even when `allowed` is empty: then any present Origin is refused).
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> Result<(), &'static str> {
    let Some(value) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = value
        .to_str()
        .ok()
        .and_then(parse_origin)
        .ok_or("Forbidden: the Origin header is not an origin\n")?;
    let ok = allowed
        .iter()
        .filter_map(|e| parse_allowed_origin(e))
        .any(|(entry, port)| match (&entry, &origin) {
            (Origin::Null, Origin::Null) => true,
            (Origin::Tuple(es, eh, _), Origin::Tuple(os, oh, op)) => {
                es == os
                    && eh == oh
                    && match port {
                        Port::Any => true,
                        Port::Exact(p) => op.or_else(|| default_port(os)) == Some(p),
                    }
            }
            _ => false,
        });
    if ok {
        Ok(())
    } else {
        Err("Forbidden: Origin header is not allowed (see --allowed-origin)\n")
    }
}

/// Whether a request was sent by a page of this very origin (the Playground's run
/// endpoints): `Sec-Fetch-Site`, when the browser sends it, must be `same-origin`, and an
/// `Origin`, when present, must name the request's own `Host` (any scheme: TLS may end at
/// a proxy) or be one of `allowed`. A request with neither header comes from no page (a
/// script, `curl`), which no other site can make a browser send.
pub fn same_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), &'static str> {
    if let Some(site) = headers.get("sec-fetch-site") {
        if site.as_bytes() != b"same-origin" {
            return Err("Forbidden: only this page may run programs here (Sec-Fetch-Site)\n");
        }
    }
    let Some(value) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = value
        .to_str()
        .ok()
        .and_then(parse_origin)
        .ok_or("Forbidden: the Origin header is not an origin\n")?;
    let own = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| axum::http::uri::Authority::try_from(h).ok())
        .map(|a| authority(a.host(), a.port_u16()));
    if let (Origin::Tuple(scheme, host, port), Some(own)) = (&origin, own) {
        let port = port.or_else(|| default_port(scheme));
        let own_port = own.port.or_else(|| default_port(scheme));
        if *host == own.host && port == own_port {
            return Ok(());
        }
    }
    origin_allowed(headers, allowed)
        .map_err(|_| "Forbidden: only this page may run programs here (Origin)\n")
}

/// What a run did, left in its response's extensions for the request's log line (a page's
/// run; the HTTP transport's log layer reads it).
#[derive(Clone, Copy, Debug)]
pub struct Ran {
    /// The tool that ran.
    pub tool: &'static str,
    /// The envelope's `status` (`ok`, `error`, `hostError`).
    pub outcome: &'static str,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// A header map of these pairs (the HTTP hosts' unit tests).
    pub(crate) fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k.clone(), HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    #[test]
    fn hosts() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "API.example:8443"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let allowed = AllowedHosts::new(&allowed);
        for ok in [
            "localhost",
            "LOCALHOST:9000",
            "127.0.0.1:1",
            "[::1]:80",
            "api.example:8443",
        ] {
            assert!(
                allowed.check(&headers(&[(header::HOST, ok)])).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "evil.example",
            "api.example",
            "api.example:80",
            "localhost.evil",
        ] {
            assert!(
                allowed.check(&headers(&[(header::HOST, bad)])).is_err(),
                "{bad}"
            );
        }
        assert!(allowed.check(&HeaderMap::new()).is_err());
    }

    #[test]
    fn origins() {
        let allowed = vec![
            "https://app.example:443".to_string(),
            "http://localhost:*".to_string(),
            "null".to_string(),
        ];
        assert!(origin_allowed(&HeaderMap::new(), &[]).is_ok());
        for ok in [
            "https://app.example",
            "https://app.example:443",
            "http://localhost:5173",
            "null",
        ] {
            assert!(
                origin_allowed(&headers(&[(header::ORIGIN, ok)]), &allowed).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "https://app.example:8443",
            "http://app.example",
            "https://evil.example",
            "garbage",
        ] {
            assert!(
                origin_allowed(&headers(&[(header::ORIGIN, bad)]), &allowed).is_err(),
                "{bad}"
            );
        }
        // Enforced with an empty list: any present Origin is refused.
        assert!(origin_allowed(&headers(&[(header::ORIGIN, "http://localhost:1")]), &[]).is_err());
        assert!(parse_allowed_origin("null:*").is_none());
        assert!(parse_allowed_origin("https://a.example:443:*").is_none());
    }

    #[test]
    fn same_origin_requests() {
        let site = header::HeaderName::from_static("sec-fetch-site");
        let host = (header::HOST, "127.0.0.1:8080");
        assert!(same_origin(&headers(std::slice::from_ref(&host)), &[]).is_ok());
        assert!(same_origin(
            &headers(&[host.clone(), (site.clone(), "same-origin")]),
            &[]
        )
        .is_ok());
        assert!(same_origin(
            &headers(&[host.clone(), (header::ORIGIN, "http://127.0.0.1:8080")]),
            &[]
        )
        .is_ok());
        let public = (header::HOST, "play.example");
        assert!(same_origin(
            &headers(&[public.clone(), (header::ORIGIN, "https://play.example")]),
            &[]
        )
        .is_ok());
        for (origin, fetch_site) in [
            ("http://evil.example", "cross-site"),
            ("http://127.0.0.1:9999", "same-site"),
            ("null", "cross-site"),
        ] {
            assert!(
                same_origin(&headers(&[host.clone(), (header::ORIGIN, origin)]), &[]).is_err(),
                "{origin}"
            );
            assert!(
                same_origin(&headers(&[host.clone(), (site.clone(), fetch_site)]), &[]).is_err(),
                "{fetch_site}"
            );
        }
        let allowed = vec!["https://docs.example".to_string()];
        assert!(same_origin(
            &headers(&[host, (header::ORIGIN, "https://docs.example")]),
            &allowed
        )
        .is_ok());
    }
}
