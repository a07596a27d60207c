//! The page itself — HTML, CSS and JS written by hand, embedded in the binary, no build
//! step and no library — and the headers every Playground response carries.

use super::Playground;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Response, StatusCode};
use axum::middleware::Next;
use std::sync::Arc;

/// The page's script.
pub const SCRIPT_PATH: &str = "/playground.js";

/// The page's style sheet.
pub const STYLE_PATH: &str = "/playground.css";

/// The page's icon (browsers ask for it by this name).
pub const ICON_PATH: &str = "/favicon.ico";

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/playground.js");
const STYLE: &str = include_str!("page/playground.css");
const ICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"><circle cx=\"8\" cy=\"8\" r=\"7\" fill=\"#7b5ea7\"/></svg>";

/// The page's Content-Security-Policy: its own script and style only, requests only to
/// its own origin, never framed (no inline script or style: the page has none).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(content_type: &'static str, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(text));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `GET /`.
pub async fn index() -> Response<Body> {
    asset("text/html; charset=utf-8", INDEX)
}

/// `GET /playground.js`.
pub async fn script() -> Response<Body> {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /playground.css`.
pub async fn style() -> Response<Body> {
    asset("text/css; charset=utf-8", STYLE)
}

/// `GET /favicon.ico`.
pub async fn icon() -> Response<Body> {
    asset("image/svg+xml", ICON)
}

/// A JSON body `{"message": …}`: how the Playground refuses a request (the page shows
/// the message).
pub fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({ "message": message.trim_end() }).to_string();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The `Host` check of every Playground route, as on `/mcp` (DNS rebinding: a page of
/// another site must not reach a Playground on this machine under its own name).
pub async fn host_guard(
    State(playground): State<Arc<Playground>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    match playground.hosts.check(request.headers()) {
        Ok(()) => next.run(request).await,
        Err(why) => refusal(StatusCode::FORBIDDEN, why),
    }
}

/// The headers of every Playground response: the CSP, no sniffing, no framing, no
/// referrer, and no caching (a new binary's page must not meet an old script).
pub async fn security_headers(request: Request, next: Next) -> Response<Body> {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
        ("cache-control", "no-cache"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}
