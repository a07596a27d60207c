//! Streamable HTTP (`--http`): rmcp's `StreamableHttpService`, stateless and answering
//! JSON, behind the same JSON-RPC framing as stdio, with protection, probes and metrics.
//!
//! Routes: `POST /mcp` (MCP; `GET`/`DELETE` answer 405 from rmcp, there are no
//! sessions), `GET /healthz`, `GET /readyz`, `GET /metrics`. Every POST stands alone:
//! any replica answers any message, `initialize` on one and the call on another.
//!
//! In front of rmcp, for `/mcp`: the `Host` and `Origin` checks (the rules rmcp applies
//! itself, which it applies again), the bearer token, then the body — read while
//! streaming up to [`MAX_MESSAGE_BYTES`] (413 beyond, 408 when it stalls) and classified
//! by [`Framing`]: what rmcp cannot serve is answered here (HTTP 400 with the JSON-RPC
//! error), the rest is handed on.
//!
//! The accept loop and the `Host`/`Origin` rules are every HTTP host's
//! ([`crate::web`]); pages handed to it ([`Pages`]: the Playground with `--playground`)
//! are served beside `/mcp`. It carries any [`Service`] and names no concrete server.

use crate::mcp::protocol::framing::{Body as Framed, Framing, MAX_MESSAGE_BYTES};
use crate::mcp::transport::Service;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use axum::middleware;
use axum::routing::{any, get};
use axum::Router;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The environment variable holding the bearer token.
pub const TOKEN_VAR: &str = "AJISAI_HTTP_TOKEN";

/// The shortest token accepted, in characters.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Open connections at most when `--max-connections` is not given.
pub const DEFAULT_MAX_CONNECTIONS: u64 = 256;

/// How long a request may take to send its body.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How many request bodies of the largest size (1 MiB) `/mcp` holds at once; a request
/// whose body does not fit what is left is answered 503 with `Retry-After` before it is
/// read. Bodies declare their length, and most are far smaller, so many fit at once.
pub const MCP_BODIES_AT_ONCE: usize = 16;

pub use crate::web::LOOPBACK_HOSTS;

/// The MCP endpoint's path.
pub const MCP_PATH: &str = "/mcp";

/// The HTTP settings of one server, checked at startup.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Where to listen.
    pub addr: SocketAddr,
    token: Option<String>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    max_connections: usize,
}

impl Settings {
    /// Settings from their parts. The error is the startup fault's text: a token shorter
    /// than [`MIN_TOKEN_CHARS`], or a non-loopback bind without a token.
    pub fn new(
        addr: SocketAddr,
        token: Option<String>,
        allowed_hosts: Vec<String>,
        allowed_origins: Vec<String>,
        max_connections: usize,
    ) -> Result<Settings, String> {
        if let Some(t) = &token {
            let chars = t.chars().count();
            if chars < MIN_TOKEN_CHARS {
                return Err(format!(
                    "{TOKEN_VAR} must be at least {MIN_TOKEN_CHARS} characters (it has {chars})"
                ));
            }
            if !t.is_ascii() {
                return Err(format!(
                    "{TOKEN_VAR} must be ASCII: clients send it in an HTTP header"
                ));
            }
            if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(format!(
                    "{TOKEN_VAR} must not contain spaces or control characters"
                ));
            }
        }
        if token.is_none() && !addr.ip().is_loopback() {
            return Err(format!(
                "--http {addr} listens beyond this machine: set {TOKEN_VAR} (at least {MIN_TOKEN_CHARS} characters) to require a bearer token"
            ));
        }
        if let Some(bad) = allowed_origins
            .iter()
            .find(|o| crate::web::parse_allowed_origin(o).is_none())
        {
            return Err(format!(
                "--allowed-origin {bad:?} is not an origin (scheme://host[:port], host:*, or null)"
            ));
        }
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
        for h in allowed_hosts {
            if crate::web::parse_allowed_authority(&h).is_none() {
                return Err(format!("--allowed-host {h:?} is not a host name"));
            }
            hosts.push(h);
        }
        Ok(Settings {
            addr,
            token,
            allowed_hosts: hosts,
            allowed_origins,
            max_connections: max_connections.max(1),
        })
    }

    /// The `Host` names accepted (the loopback names and `--allowed-host`).
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// The `Origin`s accepted (`--allowed-origin`).
    pub fn allowed_origins(&self) -> &[String] {
        &self.allowed_origins
    }

    /// Whether a bearer token is required.
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }
}

/// What every request handler shares.
struct Shared<S: Service> {
    service: S,
    framing: Arc<Framing>,
    mcp: StreamableHttpService<S::Handler, NeverSessionManager>,
    /// SHA-256 of the token: compared in constant time and constant length.
    token_digest: Option<[u8; 32]>,
    allowed_hosts: crate::web::AllowedHosts,
    allowed_origins: Vec<String>,
    /// Set once the drain begins: `/readyz` answers 503 from then on.
    draining: AtomicBool,
    /// The bodies `/mcp` holds at once ([`MCP_BODIES_AT_ONCE`] of the largest size).
    bodies: crate::web::BodyBudget,
}

/// Pages served beside `/mcp` (the Playground): their routes, which answer without the
/// token, and the name a request's path has in its log line.
pub struct Pages {
    /// The pages' routes.
    pub router: Router,
    /// The route a request path names, for its log line (never the path as sent).
    pub route_of: fn(&str) -> &'static str,
}

/// The routes of `/mcp` and `/metrics`, for a log line (anything else is `/`).
fn mcp_route_of(path: &str) -> &'static str {
    match path {
        MCP_PATH => MCP_PATH,
        "/metrics" => "/metrics",
        _ => "/",
    }
}

/// Serve `service` on `listener` until `shutdown` is cancelled, with `pages` beside
/// `/mcp` if given, then drain: `/readyz` answers 503, no connection is accepted,
/// keep-alive connections close after their current answer, and running calls have
/// `drain_for` to finish.
pub async fn serve<S: Service>(
    listener: TcpListener,
    service: S,
    settings: Settings,
    pages: Option<Pages>,
    drain_for: Duration,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let rmcp_ct = CancellationToken::new();
    // Host and Origin are checked once, by `layers::front` in front of every guarded
    // route (`/mcp`, `/metrics`; the Playground's routes have the same check): rmcp's own
    // check, which would only ever see what the guard let through, is off.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
        .with_cancellation_token(rmcp_ct.clone());
    let factory = service.handler();
    let mcp = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let framing = {
        let s = service.clone();
        Framing::stateless(Box::new(move |params: &serde_json::Value| {
            s.precheck(params)
        }))
    };
    let shared = Arc::new(Shared {
        service,
        framing,
        mcp,
        token_digest: settings.token.as_deref().map(digest),
        allowed_hosts: crate::web::AllowedHosts::new(&settings.allowed_hosts),
        allowed_origins: settings.allowed_origins.clone(),
        draining: AtomicBool::new(false),
        bodies: crate::web::BodyBudget::new(MAX_MESSAGE_BYTES, MCP_BODIES_AT_ONCE),
    });
    // The cross-cutting checks are one layer ([`layers::front`]), in order: the request's
    // log line around Host, Origin and the token, then (for a negotiable POST) the body's
    // size and time limits. The probes are neither logged nor guarded (load balancers
    // call them).
    let guarded = Router::new()
        .route(MCP_PATH, any(mcp_endpoint::<S>))
        .route("/metrics", get(metrics_endpoint::<S>))
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            layers::front::<S>,
        ));
    let mut app = guarded
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz::<S>))
        .with_state(Arc::clone(&shared));
    if let Some(pages) = pages {
        app = app.merge(
            pages
                .router
                .route_layer(middleware::from_fn_with_state(pages.route_of, layers::log)),
        );
    }
    tracing::info!(
        "listening on http://{local}{MCP_PATH} (token {}; at most {} connections)",
        if settings.has_token() {
            "required"
        } else {
            "not set"
        },
        settings.max_connections
    );
    let draining = Arc::clone(&shared);
    // Beyond the connection cap, the probes still answer.
    let probes = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz::<S>))
        .with_state(Arc::clone(&shared));
    crate::web::serve(
        listener,
        app,
        Some(probes),
        settings.max_connections,
        shutdown,
        drain_for + Duration::from_secs(1),
        move || draining.draining.store(true, Ordering::Release),
    )
    .await;
    // Only now: cancelling rmcp first would answer in-flight requests with nothing.
    rmcp_ct.cancel();
    Ok(())
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A POST body read in full by [`layers::front`], within its size and time limits.
#[derive(Clone)]
struct ReadBody(Bytes);

/// The HTTP guards and the request log, as axum layers around `/mcp` and `/metrics`.
mod layers {
    use super::{
        guard, log_request, text, too_large, Logged, ReadBody, Service, Shared, BODY_READ_TIMEOUT,
        MAX_MESSAGE_BYTES,
    };
    use axum::body::Body;
    use axum::extract::State;
    use axum::http::{header, Method, Request, Response, StatusCode};
    use axum::middleware::Next;
    use http_body_util::{BodyExt, Limited};
    use std::sync::Arc;
    use std::time::Instant;

    /// One stderr line per request, whatever answers it (MCP-3 as amended for HTTP;
    /// docs/mcp/transports.md#logs): what the request did is what its handler left in the
    /// response's extensions ([`Logged`], or a page's run, [`crate::web::Ran`]); its path
    /// is named by `route_of`, never written as sent.
    pub async fn log(
        State(route_of): State<fn(&str) -> &'static str>,
        request: Request<Body>,
        next: Next,
    ) -> Response<Body> {
        let started = Instant::now();
        let method = request.method().clone();
        let path = route_of(request.uri().path());
        let mut response = next.run(request).await;
        write_log(&method, path, started, &mut response);
        response
    }

    /// The log line of a request `started` then, from what its handler left in the
    /// response's extensions.
    fn write_log(method: &Method, path: &str, started: Instant, response: &mut Response<Body>) {
        let mut logged = response
            .extensions_mut()
            .remove::<Logged>()
            .unwrap_or_default();
        if let Some(ran) = response.extensions_mut().remove::<crate::web::Ran>() {
            logged.tool = Some(ran.tool.to_string());
            logged.outcome = Some(ran.outcome);
        }
        log_request(method, path, &logged, response, started.elapsed());
    }

    /// The layer of `/mcp` and `/metrics`: the request's log line ([`log`]) around Host,
    /// Origin and the bearer token (docs/mcp/transports.md#token-host-and-origin), then
    /// the body's limits ([`read_body`]). One layer rather than three: each axum layer
    /// costs a call its boxed future and its clone of the service inside it.
    pub async fn front<S: Service>(
        State(shared): State<Arc<Shared<S>>>,
        request: Request<Body>,
        next: Next,
    ) -> Response<Body> {
        let started = Instant::now();
        let method = request.method().clone();
        let path = super::mcp_route_of(request.uri().path());
        let mut response = match shared.refusal(request.headers()) {
            Some(refusal) => refusal,
            None => read_body(&shared, request, next).await,
        };
        write_log(&method, path, started, &mut response);
        response
    }

    /// A POST rmcp could answer has its body read here, within [`MAX_MESSAGE_BYTES`]
    /// (declared or sent: 413) and [`BODY_READ_TIMEOUT`] (408); the handler finds it as
    /// [`ReadBody`]. Other requests pass untouched: rmcp answers them without a body.
    ///
    /// Not tower-http's layers: its `RequestBodyTimeoutLayer` bounds the gap between two
    /// frames, not the whole body, so a body trickled a byte at a time would hold its
    /// connection and its share of the body budget for as long as the client likes
    /// (`server/tests/http_edges.rs::a_trickled_body_is_timed_out_as_a_whole`); the size
    /// limit is http-body-util's `Limited`, as in tower-http's `RequestBodyLimitLayer`,
    /// which has no budget of bodies held at once.
    async fn read_body<S: Service>(
        shared: &Shared<S>,
        request: Request<Body>,
        next: Next,
    ) -> Response<Body> {
        if request.method() != Method::POST || !guard::negotiable(request.headers()) {
            return next.run(request).await;
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_MESSAGE_BYTES as u64) {
            return too_large();
        }
        // The body's bytes come out of the budget of bodies held at once before it is
        // read, and go back when the answer is out.
        let want = declared.map_or(MAX_MESSAGE_BYTES, |n| n as usize);
        let Some(held) = shared.bodies.take(want) else {
            let mut busy = text(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: too many request bodies at once; retry in a second\n",
            );
            busy.headers_mut().insert(
                header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
            return busy;
        };
        let (mut parts, body) = request.into_parts();
        let read = tokio::time::timeout(
            BODY_READ_TIMEOUT,
            Limited::new(body, MAX_MESSAGE_BYTES).collect(),
        )
        .await;
        let bytes = match read {
            Err(_) => {
                return text(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request Timeout: the body was not sent in time\n",
                )
            }
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return too_large(),
            Ok(Err(e)) => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: cannot read the body: {e}\n"),
                )
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        parts.extensions.insert(ReadBody(bytes));
        let response = next.run(Request::from_parts(parts, Body::empty())).await;
        drop(held);
        response
    }
}

/// What one request did, for its log line.
#[derive(Clone, Default)]
struct Logged {
    rpc: Option<String>,
    tool: Option<String>,
    outcome: Option<&'static str>,
}

/// One stderr line per request (MCP-3 (docs/mcp/index.md) as amended for HTTP): never the source.
fn log_request(
    method: &Method,
    path: &str,
    logged: &Logged,
    response: &Response<Body>,
    took: Duration,
) {
    let bytes = http_body::Body::size_hint(response.body())
        .exact()
        .map_or_else(|| "-".to_string(), |b| b.to_string());
    let field = |v: Option<&str>| v.map_or_else(|| "-".to_string(), ajisai_host::quote::echo);
    crate::mcp::logging::request(format_args!(
        "http method={method} path={path} rpc={} tool={} outcome={} status={} ms={} bytes={bytes}",
        field(logged.rpc.as_deref()),
        field(
            logged
                .tool
                .as_deref()
                .map(ajisai_service::tool_metrics::tool_label)
        ),
        logged.outcome.unwrap_or("-"),
        response.status().as_u16(),
        took.as_millis(),
    ));
}

async fn healthz() -> Response<Body> {
    text(StatusCode::OK, "ok\n")
}

async fn readyz<S: Service>(State(shared): State<Arc<Shared<S>>>) -> Response<Body> {
    let draining = || shared.draining.load(Ordering::Acquire);
    // Not ready once the drain begins, also while the computation ran.
    let ready = !draining() && shared.service.ready().await;
    if draining() {
        text(StatusCode::SERVICE_UNAVAILABLE, "draining\n")
    } else if ready {
        text(StatusCode::OK, "ready\n")
    } else {
        text(StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}

async fn metrics_endpoint<S: Service>(State(shared): State<Arc<Shared<S>>>) -> Response<Body> {
    match shared.service.metrics() {
        Some(body) => Response::builder()
            .status(StatusCode::OK)
            .header(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )
            .body(Body::from(body))
            .unwrap_or_else(|_| text(StatusCode::INTERNAL_SERVER_ERROR, "error\n")),
        None => text(StatusCode::SERVICE_UNAVAILABLE, "no metrics recorder\n"),
    }
}

/// A refusal for capacity tells an HTTP client when to come back in the header too
/// (`Retry-After`, whole seconds, rounded up), not only in the body's `retryAfterMs`.
fn retry_after(response: &mut Response<Body>, retry_after_ms: Option<u64>) {
    if let Some(ms) = retry_after_ms {
        let seconds = ms.div_ceil(1000).max(1);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
}

async fn mcp_endpoint<S: Service>(
    State(shared): State<Arc<Shared<S>>>,
    request: Request<Body>,
) -> Response<Body> {
    let mut logged = Logged::default();
    let mut response = shared.mcp(request, &mut logged).await;
    // For the request's log line (`layers::front`).
    response.extensions_mut().insert(logged);
    response
}

impl<S: Service> Shared<S> {
    /// Host, Origin and token checks: the refusal, if any.
    fn refusal(&self, headers: &HeaderMap) -> Option<Response<Body>> {
        if let Err(why) = self.allowed_hosts.check(headers) {
            return Some(text(StatusCode::FORBIDDEN, why));
        }
        if let Err(why) = crate::web::origin_allowed(headers, &self.allowed_origins) {
            return Some(text(StatusCode::FORBIDDEN, why));
        }
        if let Some(expected) = &self.token_digest {
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| {
                    let (scheme, rest) = v.split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
                })
                .map(digest);
            let ok = presented
                .is_some_and(|p| bool::from(subtle::ConstantTimeEq::ct_eq(&p[..], &expected[..])));
            if !ok {
                let mut r = text(
                    StatusCode::UNAUTHORIZED,
                    "Unauthorized: send Authorization: Bearer <token>\n",
                );
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return Some(r);
            }
        }
        None
    }

    async fn mcp(&self, request: Request<Body>, logged: &mut Logged) -> Response<Body> {
        // The body arrives read (`layers::front`) when the request is a POST rmcp can
        // answer; anything else rmcp answers itself (405, 406, 415) without a body.
        let Some(ReadBody(bytes)) = request.extensions().get::<ReadBody>().cloned() else {
            return self.rmcp(request).await;
        };
        let (mut parts, _) = request.into_parts();
        let mut framed = self.framing.body(&bytes, true);
        if let Framed::Direct(call) = &framed {
            if !guard::admits_direct(&parts.headers, call.revision.as_deref(), &call.name) {
                framed = self.framing.body(&bytes, false);
            }
        }
        // A direct call (the busiest kind) names its method and tool: its body is not
        // read a third time for the log line.
        match &framed {
            Framed::Direct(call) => {
                logged.rpc = Some("tools/call".to_string());
                logged.tool = Some(call.name.clone());
            }
            _ => peek(&bytes, logged),
        }
        match framed {
            Framed::Direct(call) => {
                // Over HTTP a call ends when its client hangs up: this future is dropped,
                // and the execution with it (it stops its engine).
                match self.service.call(*call).await {
                    Some(answer) => {
                        logged.outcome = Some(answer.outcome);
                        let mut response = json(StatusCode::OK, answer.response);
                        retry_after(&mut response, answer.retry_after_ms);
                        response
                    }
                    // Never cancelled over HTTP: nothing else holds its token.
                    None => text(StatusCode::INTERNAL_SERVER_ERROR, "cancelled\n"),
                }
            }
            Framed::Refused(body) => {
                logged.outcome = Some("refused");
                json(StatusCode::BAD_REQUEST, body)
            }
            Framed::NotFound(body) => {
                logged.outcome = Some("refused");
                json(StatusCode::NOT_FOUND, body)
            }
            Framed::Answered(body) => {
                logged.outcome = Some("hostError");
                json(StatusCode::OK, body)
            }
            Framed::Accepted => Response::builder()
                .status(StatusCode::ACCEPTED)
                .body(Body::empty())
                .unwrap_or_else(|_| text(StatusCode::INTERNAL_SERVER_ERROR, "error\n")),
            Framed::Forward { bytes, remapped } => {
                let cell = crate::mcp::logging::OutcomeCell::default();
                parts.extensions.insert(cell.clone());
                parts.headers.insert(
                    header::CONTENT_LENGTH,
                    HeaderValue::from(bytes.len() as u64),
                );
                let forwarded = Request::from_parts(parts, Full::new(Bytes::from(bytes)));
                // Forget a remapped id whatever happens (the client may go away).
                let restore = remapped.map(|i| Restore {
                    framing: Arc::clone(&self.framing),
                    internal: i,
                });
                let response = self.mcp.handle(forwarded).await;
                logged.outcome = cell.get();
                let mut response = match restore {
                    None => response.map(Body::new),
                    Some(r) => r.apply(response).await,
                };
                retry_after(&mut response, cell.retry_after_ms());
                response
            }
        }
    }

    async fn rmcp(&self, request: Request<Body>) -> Response<Body> {
        self.mcp.handle(request).await.map(Body::new)
    }
}

/// The client's id for an answer that carries an internal one; dropping it forgets the
/// mapping.
struct Restore {
    framing: Arc<Framing>,
    internal: i64,
}

impl Restore {
    async fn apply(
        self,
        response: Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>>,
    ) -> Response<Body> {
        let Some(id) = self.framing.restore(self.internal) else {
            return response.map(Body::new);
        };
        let is_json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !is_json {
            return response.map(Body::new);
        }
        let (mut parts, body) = response.into_parts();
        let Ok(collected) = body.collect().await;
        let bytes = collected.to_bytes();
        let rewritten =
            crate::mcp::protocol::framing::with_id(&bytes, &id).unwrap_or_else(|| bytes.to_vec());
        parts.headers.remove(header::CONTENT_LENGTH);
        Response::from_parts(parts, Body::from(rewritten))
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = self.framing.restore(self.internal);
    }
}

/// The JSON-RPC method and tool name of a body, for the log line (borrowed where the
/// text allows: nothing of the source is copied).
fn peek(bytes: &[u8], logged: &mut Logged) {
    use std::borrow::Cow;
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Option<Cow<'a, str>>,
    }
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    if let Ok(m) = serde_json::from_slice::<Message<'_>>(bytes) {
        if m.method.as_deref() == Some("tools/call") {
            logged.tool = m.params.and_then(|p| p.name).map(Cow::into_owned);
        }
        logged.rpc = m.method.map(Cow::into_owned);
    }
}

fn too_large() -> Response<Body> {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: request bodies are limited to {MAX_MESSAGE_BYTES} bytes\n"),
    )
}

fn text(status: StatusCode, body: impl Into<String>) -> Response<Body> {
    let mut r = Response::new(Body::from(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn json(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The MCP headers' rules (`MCP-Protocol-Version`, `Accept`), as rmcp's Streamable HTTP
/// server applies them (rmcp applies them again behind this front; these run first so that
/// nothing of a refused request is read or answered). `Host` and `Origin` are every HTTP
/// host's rules ([`crate::web`]).
pub mod guard {
    use axum::http::{header, HeaderMap};

    /// Whether a request's `MCP-Protocol-Version` names a revision before 2026-07-28
    /// that rmcp accepts, or is absent (2025-03-26): its plain tool calls are then
    /// answered directly (see [`crate::mcp::protocol::framing::DirectCall`]); rmcp checks every
    /// other header itself.
    pub fn before_2026(headers: &HeaderMap) -> bool {
        let mut values = headers.get_all("mcp-protocol-version").iter();
        let Some(first) = values.next() else {
            return true;
        };
        if values.next().is_some() {
            return false;
        }
        let Ok(version) = first.to_str() else {
            return false;
        };
        crate::mcp::protocol::revision::is_known(version)
            && !crate::mcp::protocol::revision::is_self_contained(version)
    }

    /// Whether a tool call the framing found directly answerable (its `_meta`, naming
    /// `revision` or none, passes rmcp's checks) also passes rmcp's header checks, so that
    /// answering it here is answering it as rmcp would: without a revision in `_meta`, as
    /// [`before_2026`] says; with one, a single `MCP-Protocol-Version` equal to it, and in
    /// a self-contained revision a single `Mcp-Method: tools/call` and a single `Mcp-Name`
    /// equal to the tool's name (a Base64-encoded name is left to rmcp).
    pub fn admits_direct(headers: &HeaderMap, revision: Option<&str>, name: &str) -> bool {
        let Some(revision) = revision else {
            return before_2026(headers);
        };
        let single = |header: &str| {
            let mut values = headers.get_all(header).iter();
            match (values.next(), values.next()) {
                (Some(v), None) => v.to_str().ok(),
                _ => None,
            }
        };
        if single("mcp-protocol-version") != Some(revision) {
            return false;
        }
        !crate::mcp::protocol::revision::is_self_contained(revision)
            || (single("mcp-method") == Some("tools/call") && single("mcp-name") == Some(name))
    }

    /// Whether a POST accepts both answer types and sends JSON (otherwise rmcp answers
    /// 406 or 415 itself).
    pub fn negotiable(headers: &HeaderMap) -> bool {
        let mut json = false;
        let mut sse = false;
        for value in headers.get_all(header::ACCEPT) {
            let Ok(value) = value.to_str() else { continue };
            for entry in value.split(',') {
                let mut parts = entry.split(';');
                let essence = parts.next().unwrap_or("").trim();
                // Only an explicit zero weight (`q=0`, `q=0.000`) excludes a type.
                let refused = parts.any(|p| {
                    p.split_once('=').is_some_and(|(k, v)| {
                        let v = v.trim();
                        let zero = v == "0"
                            || v.strip_prefix("0.")
                                .is_some_and(|f| f.len() <= 3 && f.bytes().all(|b| b == b'0'));
                        k.trim().eq_ignore_ascii_case("q") && zero
                    })
                });
                if refused {
                    continue;
                }
                json |= essence.eq_ignore_ascii_case("application/json");
                sse |= essence.eq_ignore_ascii_case("text/event-stream");
            }
        }
        let sends_json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("application/json")
            });
        json && sse && sends_json
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::web::tests::headers;

        #[test]
        fn negotiation() {
            let both = (header::ACCEPT, "application/json, text/event-stream");
            let ct = (header::CONTENT_TYPE, "application/json; charset=utf-8");
            assert!(negotiable(&headers(&[both.clone(), ct.clone()])));
            assert!(!negotiable(&headers(&[
                (header::ACCEPT, "application/json"),
                ct.clone()
            ])));
            assert!(!negotiable(&headers(&[
                (header::ACCEPT, "application/json, text/event-stream;q=0"),
                ct.clone()
            ])));
            assert!(negotiable(&headers(&[
                (
                    header::ACCEPT,
                    "application/json;q=0.5, text/event-stream;q=1.0"
                ),
                ct.clone()
            ])));
            assert!(!negotiable(&headers(&[
                both.clone(),
                (header::CONTENT_TYPE, "text/plain")
            ])));
            assert!(!negotiable(&headers(&[both])));
        }
    }
}
