//! Refusals: the JSON-RPC errors the front answers itself, before rmcp, each logged as
//! one stderr line quoting at most 64 characters of the refused message.

use super::ids::ClientId;
use ajisai_host::quote::QUOTED_CHARS;
use serde_json::{json, Value};

/// JSON-RPC error codes used here.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A method this server does not offer.
    pub const METHOD_NOT_FOUND: i64 = -32601;
}

/// The error code of a refusal this module wrote.
pub(super) fn refusal_code(bytes: &[u8]) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Error {
        code: i64,
    }
    #[derive(serde::Deserialize)]
    struct Refusal {
        error: Error,
    }
    serde_json::from_slice::<Refusal>(bytes)
        .ok()
        .map(|r| r.error.code)
}

/// Why the params of a request cannot serve its method, for the methods whose params
/// this server reads itself; the rest are decided by rmcp's types.
pub(super) fn params_problem(method: &str, params: Option<&Value>, typed: bool) -> Option<String> {
    let field = |name: &str| -> Option<String> {
        match params {
            None => Some(format!("params are missing; they need a string `{name}`")),
            Some(Value::Object(p)) => match p.get(name) {
                Some(Value::String(_)) => None,
                None => Some(format!("params have no `{name}`; it must be a string")),
                Some(_) => Some(format!("`{name}` must be a string")),
            },
            Some(_) => Some("params must be an object".to_string()),
        }
    };
    match method {
        "tools/call" => field("name"),
        "resources/read" => field("uri"),
        _ => match params {
            Some(Value::Object(_)) | None => None,
            Some(_) if typed => Some("params must be an object".to_string()),
            Some(_) => None,
        },
    }
}

/// The refusal of a request whose id is already in flight.
pub(super) fn duplicate(raw: &[u8], id: &ClientId) -> Vec<u8> {
    refuse(
        raw,
        None,
        code::INVALID_REQUEST,
        &format!(
            "Invalid request: id {} is already in flight; wait for its answer or use another id",
            shorten(&id.json())
        ),
    )
}

/// A success answer to `id` carrying `result`.
pub(super) fn answer(id: &ClientId, result: &Value) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}",
        id.json()
    )
    .into_bytes()
}

/// The error answer to a refused message, logged as one stderr line.
pub(super) fn refuse(raw: &[u8], id: Option<&ClientId>, code: i64, message: &str) -> Vec<u8> {
    log_refusal(raw, &format!("code={code} {message}"));
    let id = id.map_or_else(|| "null".to_string(), ClientId::json);
    let error = json!({ "code": code, "message": message });
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{error}}}").into_bytes()
}

/// One stderr line about a refused message, quoting at most [`QUOTED_CHARS`] of it.
pub(super) fn log_refusal(raw: &[u8], what: &str) {
    let text = String::from_utf8_lossy(&raw[..raw.len().min(QUOTED_CHARS * 4)]);
    let quoted: String = text.chars().take(QUOTED_CHARS).collect();
    let more = if text.chars().count() > QUOTED_CHARS || raw.len() > QUOTED_CHARS * 4 {
        "…"
    } else {
        ""
    };
    tracing::warn!("refused input {what}; message {quoted:?}{more}");
}

/// At most 64 characters of an id for a message.
pub(super) fn shorten(s: &str) -> String {
    ajisai_host::quote::excerpt(s)
}
