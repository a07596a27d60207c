//! The run endpoints: `POST /api/compute` and `POST /api/check` take `{"source": …,
//! "words": [...]}` and answer the tool's envelope, HTTP 200 whatever its status — the
//! same call an agent makes, validated by the tool itself (a wrong argument is the
//! tool's `invalidRequest`, a long source its `sourceTooLarge`). One member is the
//! page's own: `"whole": true` lets an `ok` stack fill the response limit before
//! anything is elided (the page's Show all).
//!
//! In front of them: JSON only, from the page's own origin (another site cannot drive
//! them: a cross-site form cannot send JSON, and a cross-site `fetch` is refused by
//! `Origin`/`Sec-Fetch-Site`); bodies read within a size and a time limit, and within
//! a budget of bytes held at once, so that many large requests cannot exhaust memory
//! before the gate sees them.

use super::page::refusal;
use super::Playground;
use crate::web::BodyBudget;
use ajisai_service::result::Delivery;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, Response, StatusCode};
use axum::middleware::Next;
use http_body_util::{BodyExt, Limited};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Runs a program.
pub const COMPUTE_PATH: &str = "/api/compute";

/// Checks a program without running it.
pub const CHECK_PATH: &str = "/api/check";

/// How long a request may take to send its body.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The run endpoints' own member of a request body: `true` asks for as much of a large
/// result as the response limit holds, rather than the agent's stack budget.
pub const WHOLE: &str = "whole";

/// Room in a body for the JSON around its source: the field names, the `words` list.
const BODY_OVERHEAD: usize = 64 * 1024;

/// How many bodies of the largest size may be held at once.
const LARGEST_AT_ONCE: usize = 2;

/// The run endpoints' budget of request bodies held at once: a source of at most
/// `source_bytes` may arrive as a body of twice that (JSON escapes a newline or a quote
/// as two bytes) plus [`BODY_OVERHEAD`], and [`LARGEST_AT_ONCE`] such bodies may be held
/// together.
pub fn body_budget(source_bytes: u64) -> BodyBudget {
    let largest = (source_bytes as usize)
        .saturating_mul(2)
        .saturating_add(BODY_OVERHEAD);
    BodyBudget::new(largest, LARGEST_AT_ONCE)
}

/// A request body read whole by [`same_origin_json`].
#[derive(Clone)]
struct ReadBody(bytes::Bytes);

/// The run endpoints' guard: a POST of JSON from the page's own origin, its body read
/// within [`BodyBudget::largest`], [`BODY_READ_TIMEOUT`] and the budget of bytes held.
pub async fn same_origin_json(
    State(playground): State<Arc<Playground>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let headers = request.headers();
    if let Err(why) = crate::web::same_origin(headers, &playground.access.allowed_origins) {
        return refusal(StatusCode::FORBIDDEN, why);
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: send the program as application/json",
        );
    }
    let budget = &playground.bodies;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > budget.largest() as u64) {
        return too_large(budget.largest());
    }
    let want = declared.map_or(budget.largest(), |n| n as usize);
    let Some(held) = budget.take(want) else {
        let mut r = refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "The Playground is busy; try again in a second.",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
    let (mut parts, body) = request.into_parts();
    let limit = want.min(budget.largest());
    let read = tokio::time::timeout(BODY_READ_TIMEOUT, Limited::new(body, limit).collect()).await;
    let bytes = match read {
        Err(_) => {
            return refusal(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the body was not sent in time",
            )
        }
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return too_large(budget.largest())
        }
        Ok(Err(e)) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                &format!("Bad Request: cannot read the body: {e}"),
            )
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    parts.extensions.insert(ReadBody(bytes));
    let response = next.run(Request::from_parts(parts, Body::empty())).await;
    drop(held);
    response
}

fn too_large(largest: usize) -> Response<Body> {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Payload Too Large: a request body holds at most {largest} bytes"),
    )
}

/// `POST /api/compute`: the `compute` tool's envelope.
pub async fn compute(
    State(playground): State<Arc<Playground>>,
    request: Request,
) -> Response<Body> {
    answer(&playground, "compute", request).await
}

/// `POST /api/check`: the `check` tool's envelope.
pub async fn check(State(playground): State<Arc<Playground>>, request: Request) -> Response<Body> {
    answer(&playground, "check", request).await
}

async fn answer(playground: &Playground, tool: &str, request: Request) -> Response<Body> {
    let Some(ReadBody(bytes)) = request.extensions().get::<ReadBody>().cloned() else {
        return refusal(StatusCode::BAD_REQUEST, "Bad Request: no body");
    };
    let mut arguments: Value = match serde_json::from_slice(&bytes) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "Bad Request: send an object {\"source\": \"…\", \"words\": [...]}",
            )
        }
        Err(e) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                &format!("Bad Request: the body is not JSON: {e}"),
            )
        }
    };
    drop(bytes);
    // `"whole": true` (the page's Show all) is the page's own member, not the tool's: the
    // run's `ok` stack may then take the whole response limit before slots are elided.
    let whole = match arguments.as_object_mut().and_then(|o| o.remove(WHOLE)) {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(_) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "Bad Request: \"whole\" is true or false",
            )
        }
    };
    let delivery = Delivery {
        value_stack_bytes: whole.then(|| playground.server.executor().options.response_bytes()),
        ..Delivery::default()
    };
    // The page going away drops this future: the call is cancelled and its engine stopped.
    let cancel = CancellationToken::new();
    let _cancel_when_dropped = cancel.clone().drop_guard();
    let call = playground
        .server
        .call_with_delivery(tool, Some(&arguments), cancel, delivery);
    match call.await {
        Some(answer) => {
            let mut response = Response::new(Body::from(answer.envelope().to_owned()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response.extensions_mut().insert(crate::web::Ran {
                tool: if tool == "check" { "check" } else { "compute" },
                outcome: answer.outcome(),
            });
            response
        }
        None => refusal(StatusCode::SERVICE_UNAVAILABLE, "The run was cancelled."),
    }
}
