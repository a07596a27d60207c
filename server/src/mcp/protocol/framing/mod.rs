//! One JSON-RPC front for every transport: each inbound message (a stdio line or an
//! HTTP body) is parsed once here and either answered at once or handed to rmcp, and
//! every outbound answer passes back through here. Every request gets exactly one answer.
//!
//! Written by hand because rmcp's transports drop or mis-answer what they cannot
//! deserialize (no answer for a parse error or a batch, a float for a 30-digit id, -32601
//! for a known method with bad params) and its ids are `i64`. Here:
//! - text that is not JSON (or not UTF-8, or has bytes after the value) → `-32700`;
//! - a batch array, a non-object, an id that is neither a string nor an integer, or a
//!   request whose id is already in flight → `-32600` with `id: null`;
//! - a lone-surrogate escape (`"\ud800"`, as Python's `json.dumps` writes) reads as U+FFFD;
//! - every request id is replaced by an internal `i64` for rmcp and restored, digit for
//!   digit, on the way out (serde_json's `arbitrary_precision` stays off);
//! - known methods with params they cannot take (missing, non-string `name` or `uri`) →
//!   `-32602` (MCP-19 (docs/mcp/host-errors.md) still answers non-object `arguments` as a tool result, through the
//!   precheck);
//! - an over-long line → `-32600` "request too large", answered by the reader that saw it.
//!
//! Each refused message is logged as one stderr line quoting at most 64 characters of it.
//!
//! This file classifies messages and keeps the state of a connection (ids in flight, the
//! session); by job, the rest is in `text.rs` (the text before it is read), `plain.rs`
//! (recognising a plain tool call without building a value), `ids.rs` (ids as the client
//! wrote them, written back into answers) and `refusals.rs` (the errors answered here).

mod ids;
mod plain;
mod refusals;
mod text;

pub use ids::with_id;
pub use refusals::code;

use ids::{client_id, raw_client_id, ClientId};
use plain::{plain_tool_call, PlainCall};
use refusals::{answer, duplicate, log_refusal, params_problem, refusal_code, refuse};
use text::{message_bytes, replace_lone_surrogates};

use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::RoleServer;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

pub use ajisai_service::config::MAX_MESSAGE_BYTES;

use crate::mcp::protocol::revision;

/// Answers a `tools/call` before rmcp sees it (MCP-19's non-object `arguments`): given the
/// call's params, the tool result to send, or `None` to let the call through.
pub type Precheck = Box<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// What to do with one inbound message.
pub enum Inbound {
    /// Hand it to rmcp (its request id replaced by an internal one).
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Write this refusal (a compact JSON-RPC error, no newline).
    Reply(Vec<u8>),
    /// Write this result, answered before rmcp (MCP-19's non-object `arguments`).
    Answer(Vec<u8>),
    /// Nothing to answer (a blank line, a notification).
    Nothing,
    /// A stateless service's request that passed every check and that rmcp can read as
    /// written: hand on the message's text unchanged (see [`Framing::body`]).
    Verbatim,
    /// A tool call the transport answers itself, without rmcp (see [`DirectCall`]).
    Direct(Box<DirectCall>),
}

/// A `tools/call` answered by the transport itself instead of rmcp's typed path: a plain
/// call (`name`, object `arguments`, an object `_meta` or none) that passes every check rmcp
/// makes of it (`protocol::revision::of_call`), in any revision.
///
/// Such a call is the server's busiest message, and rmcp's path for it costs more than
/// the computation: a typed parse, a task, a JSON value of the result and its
/// serialization. Answered here, the result is written around the envelope's text once
/// ([`ajisai_service::result::ToolAnswer::response`]), byte for byte as rmcp writes it
/// (`protocol::tool_result::tests::written_answers_are_what_rmcp_serializes`, and `server/tests/direct.rs`
/// against rmcp's own answers on both transports). Everything else still goes to rmcp.
#[derive(Debug)]
pub struct DirectCall {
    /// The client's id as JSON text, for the answer.
    pub id_json: String,
    /// The internal id it is in flight under (one connection), for
    /// [`Framing::complete`].
    pub internal: Option<i64>,
    /// The tool's name.
    pub name: String,
    /// The call's arguments (an object), if any.
    pub arguments: Option<Value>,
    /// Cancelled when the client cancels the request (one connection).
    pub cancel: CancellationToken,
    /// The revision its `_meta` names (`None`: the session's, before 2026-07-28): how
    /// its answer is framed (`protocol::revision::delivery`).
    pub revision: Option<String>,
}

/// The methods this server offers: params they cannot take are `-32602`. Any other
/// method, typed or not, is answered `-32601` here (over HTTP, 404), whatever its params.
const OFFERED_METHODS: [&str; 8] = [
    "ping",
    "initialize",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
];

/// The message of `-32601`: the method's name as written is not echoed (a client's text
/// in an error would reach whatever displays it).
const METHOD_NOT_FOUND_MESSAGE: &str = "Method not found: this server offers ping, initialize, server/discover, tools/list, tools/call, resources/list, resources/read and resources/templates/list";

/// Whether a request's params name revision 2026-07-28 or later in `_meta` (where
/// `initialize` no longer exists).
fn names_a_modern_revision(params: Option<&Value>) -> bool {
    revision::named_in_meta(params).is_some_and(revision::is_self_contained)
}

/// Whether this server takes `method` with typed params in this request: params that do
/// not fit are then `-32602`.
fn takes_typed_params(method: &str, params: Option<&Value>) -> bool {
    OFFERED_METHODS.contains(&method)
        && !(method == "initialize" && names_a_modern_revision(params))
}

/// A token held while a request's answer is unwritten (the transport's backpressure);
/// dropped when the answer has been written, or when the request is cancelled.
pub type Held = tokio::sync::OwnedSemaphorePermit;

/// Ids in flight: internal id ↔ the client's id.
#[derive(Default)]
struct Ids {
    next: i64,
    by_internal: HashMap<i64, (ClientId, Option<Held>)>,
    in_flight: HashMap<ClientId, i64>,
    /// The direct calls in flight, by internal id: what cancels each.
    direct: HashMap<i64, CancellationToken>,
}

/// Where one connection's session stands, for [`DirectCall`]s: they start once the
/// client has sent `notifications/initialized` after an `initialize` answered in a
/// revision before 2026-07-28, or once a request with a complete `_meta` has opened the
/// session without `initialize`, as rmcp opens it (until then rmcp answers everything,
/// as it must).
mod session {
    /// `initialize` not yet answered, or answered in 2026-07-28 or later.
    pub const OPENING: u8 = 0;
    /// `initialize` answered in an earlier revision.
    pub const ANSWERED: u8 = 1;
    /// Initialized: direct calls are on.
    pub const INITIALIZED: u8 = 2;
    /// Opened without `initialize` by a request with a complete `_meta` (a 2026-07-28
    /// client): direct calls are on for requests that carry one too, as rmcp requires.
    pub const SELF_CONTAINED: u8 = 3;
}

/// The framing state of one connection (stdio) or of a whole service (HTTP, where each
/// POST is its own exchange and ids are not tracked across requests).
pub struct Framing {
    ids: Mutex<Ids>,
    precheck: Precheck,
    /// One connection (stdio): every id is remapped and a duplicate in flight refused.
    /// A stateless service (HTTP): ids rmcp can hold pass unchanged, only integers
    /// beyond `i64` are remapped, and duplicates are moot (each POST stands alone).
    refuse_duplicates: bool,
    /// One connection's [`session`] state.
    session: AtomicU8,
}

/// What to do with one HTTP request body: an [`Inbound`] as HTTP answers it (a refusal's
/// status told apart, a message for rmcp as the bytes its HTTP service reads). Stdio hands
/// the [`Inbound`] itself to its transport.
pub enum Body {
    /// Hand these bytes to rmcp; `remapped` is the internal id the answer carries
    /// instead of the client's (restore it with [`Framing::restore`]).
    Forward {
        /// The message for rmcp.
        bytes: Vec<u8>,
        /// The internal id, when the client's id could not be passed on.
        remapped: Option<i64>,
    },
    /// Answer this refusal (HTTP 400).
    Refused(Vec<u8>),
    /// Answer this refusal of a method the server does not offer (HTTP 404).
    NotFound(Vec<u8>),
    /// Answer this result (HTTP 200).
    Answered(Vec<u8>),
    /// Nothing to answer (a notification): HTTP 202.
    Accepted,
    /// A tool call to answer directly (only when [`Framing::body`] was allowed to).
    Direct(Box<DirectCall>),
}

impl Framing {
    /// Framing for one stdio connection: a request whose id is in flight is refused.
    pub fn connection(precheck: Precheck) -> Arc<Framing> {
        Arc::new(Framing {
            ids: Mutex::new(Ids::default()),
            precheck,
            refuse_duplicates: true,
            session: AtomicU8::new(session::OPENING),
        })
    }

    /// Framing for a stateless service (HTTP): each message is its own exchange.
    pub fn stateless(precheck: Precheck) -> Arc<Framing> {
        Arc::new(Framing {
            ids: Mutex::new(Ids::default()),
            precheck,
            refuse_duplicates: false,
            session: AtomicU8::new(session::OPENING),
        })
    }

    /// Classify one HTTP request body (already read whole, at most
    /// [`MAX_MESSAGE_BYTES`]): the same rules as a stdio line. `direct`: the request's
    /// headers name a revision before 2026-07-28, so a plain tool call may be answered
    /// as a [`DirectCall`].
    pub fn body(&self, raw: &[u8], direct: bool) -> Body {
        match self.classify(raw, direct) {
            Inbound::Direct(call) => Body::Direct(call),
            Inbound::Reply(bytes) if refusal_code(&bytes) == Some(code::METHOD_NOT_FOUND) => {
                Body::NotFound(bytes)
            }
            Inbound::Reply(bytes) => Body::Refused(bytes),
            Inbound::Answer(bytes) => Body::Answered(bytes),
            Inbound::Nothing => Body::Accepted,
            Inbound::Verbatim => {
                // What `inbound` read: the text, lone surrogates replaced.
                let text = std::str::from_utf8(message_bytes(raw)).unwrap_or_default();
                Body::Forward {
                    bytes: replace_lone_surrogates(text).into_owned().into_bytes(),
                    remapped: None,
                }
            }
            Inbound::Message(m) => {
                let remapped = match m.as_ref() {
                    JsonRpcMessage::Request(r) => match r.id {
                        rmcp::model::NumberOrString::Number(i)
                            if self.ids().by_internal.contains_key(&i) =>
                        {
                            Some(i)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                match serde_json::to_vec(m.as_ref()) {
                    Ok(bytes) => Body::Forward { bytes, remapped },
                    Err(e) => {
                        if let Some(i) = remapped {
                            self.release(i);
                        }
                        Body::Refused(refuse(
                            raw,
                            None,
                            code::INVALID_REQUEST,
                            &format!("Invalid request: {e}"),
                        ))
                    }
                }
            }
        }
    }

    /// The client's id (as JSON text) of a request remapped to `internal`, forgetting
    /// the mapping; `None` when it is not known (already restored).
    pub fn restore(&self, internal: i64) -> Option<String> {
        self.ids()
            .by_internal
            .remove(&internal)
            .map(|(id, _)| id.json())
    }

    fn ids(&self) -> std::sync::MutexGuard<'_, Ids> {
        // A poisoned lock only means another thread panicked while holding it; the maps
        // stay consistent (every update is a single insert or remove).
        self.ids.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The answer to a message longer than [`MAX_MESSAGE_BYTES`], of which `prefix` was read.
    pub fn oversized(&self, prefix: &[u8]) -> Vec<u8> {
        refuse(
            prefix,
            None,
            code::INVALID_REQUEST,
            &format!("Request too large: messages are limited to {MAX_MESSAGE_BYTES} bytes"),
        )
    }

    /// Classify one inbound message (a line without its newline, or a body).
    pub fn inbound(&self, raw: &[u8]) -> Inbound {
        let direct =
            self.refuse_duplicates && self.session.load(Ordering::Acquire) != session::ANSWERED;
        self.classify(raw, direct)
    }

    /// Whether a direct call must carry the keys of a complete `_meta` (a stdio session
    /// not opened by `initialize`), and whether the session is still opening.
    fn session_needs_keys(&self) -> (bool, bool) {
        if !self.refuse_duplicates {
            return (false, false);
        }
        match self.session.load(Ordering::Acquire) {
            session::INITIALIZED => (false, false),
            session::OPENING => (true, true),
            _ => (true, false),
        }
    }

    /// [`Framing::inbound`]; `direct`: a plain tool call becomes a [`DirectCall`].
    fn classify(&self, raw: &[u8], direct: bool) -> Inbound {
        let bytes = message_bytes(raw);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Inbound::Nothing;
        }
        if bytes.len() > MAX_MESSAGE_BYTES {
            return Inbound::Reply(self.oversized(bytes));
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                return Inbound::Reply(refuse(
                    raw,
                    None,
                    code::PARSE_ERROR,
                    &format!(
                        "Parse error: the message is not valid UTF-8 (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                ))
            }
        };
        let text = replace_lone_surrogates(text);
        if let Some(call) = plain_tool_call(&text) {
            if let Some(fast) = self.fast_tool_call(raw, &text, call, direct) {
                return fast;
            }
        }
        let value: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => return Inbound::Reply(self.unreadable(&text, &e)),
        };
        let Value::Object(mut message) = value else {
            let why = if value.is_array() {
                "Invalid request: batches are not supported; send one JSON-RPC object per message"
            } else {
                "Invalid request: a JSON-RPC message is an object"
            };
            return Inbound::Reply(refuse(raw, None, code::INVALID_REQUEST, why));
        };
        let id = match message.get("id") {
            None => None,
            Some(v) => match client_id(v, &text) {
                Some(id) => Some(id),
                None => {
                    return Inbound::Reply(refuse(
                        raw,
                        None,
                        code::INVALID_REQUEST,
                        "Invalid request: the id must be a string or an integer",
                    ))
                }
            },
        };
        let method = match message.get("method") {
            None => None,
            Some(Value::String(m)) => Some(m.clone()),
            Some(_) => {
                return Inbound::Reply(refuse(
                    raw,
                    id.as_ref(),
                    code::INVALID_REQUEST,
                    "Invalid request: the method must be a string",
                ))
            }
        };
        match (method, id) {
            (Some(method), Some(id)) => self.request(raw, message, method, id),
            (Some(method), None) => {
                self.notification(&mut message);
                match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(Value::Object(message))
                {
                    Ok(m) => Inbound::Message(Box::new(m)),
                    Err(e) => {
                        // A notification is never answered (JSON-RPC 2.0 §4.1).
                        log_refusal(raw, &format!("notification {method} dropped: {e}"));
                        Inbound::Nothing
                    }
                }
            }
            // A response or error from the client: this server sends no requests, so
            // nothing waits for it; rmcp reads and discards it.
            (None, id) => {
                if message.contains_key("result") || message.contains_key("error") {
                    if let Ok(m) = serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(
                        Value::Object(message),
                    ) {
                        return Inbound::Message(Box::new(m));
                    }
                }
                Inbound::Reply(refuse(
                    raw,
                    id.as_ref(),
                    code::INVALID_REQUEST,
                    "Invalid request: a request has a method",
                ))
            }
        }
    }

    /// A request: refused when its id is in flight or its params do not fit its method,
    /// answered by the precheck, or handed on under an internal id.
    fn request(
        &self,
        raw: &[u8],
        mut message: serde_json::Map<String, Value>,
        method: String,
        id: ClientId,
    ) -> Inbound {
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Inbound::Reply(refuse(
                raw,
                Some(&id),
                code::INVALID_REQUEST,
                "Invalid request: \"jsonrpc\" must be \"2.0\"",
            ));
        }
        if self.refuse_duplicates && self.ids().in_flight.contains_key(&id) {
            return Inbound::Reply(duplicate(raw, &id));
        }
        // A method this server does not offer is answered here, without echoing its name
        // as written (rmcp's answer carries it raw, markup and control characters
        // included).
        if !OFFERED_METHODS.contains(&method.as_str()) {
            return Inbound::Reply(refuse(
                raw,
                Some(&id),
                code::METHOD_NOT_FOUND,
                METHOD_NOT_FOUND_MESSAGE,
            ));
        }
        self.note_session_opening(&method, message.get("params"));
        let typed = takes_typed_params(&method, message.get("params"));
        if let Some(problem) = params_problem(&method, message.get("params"), typed) {
            return Inbound::Reply(refuse(
                raw,
                Some(&id),
                code::INVALID_PARAMS,
                &format!("Invalid params for {method}: {problem}"),
            ));
        }
        if method == "tools/call" {
            if let Some(result) = message.get("params").and_then(|p| (self.precheck)(p)) {
                return Inbound::Answer(answer(&id, &result));
            }
        }
        if !self.refuse_duplicates {
            // Stateless: pass the id on when rmcp can hold it.
            let passes = match &id {
                ClientId::Text(_) => true,
                ClientId::Integer(digits) => digits.parse::<i64>().is_ok(),
            };
            // A tool call that passed the checks above has the form rmcp's type takes
            // (a string `name`, object `arguments` or none): its text goes on as written,
            // read once more by rmcp instead of twice here.
            let plain_meta = message
                .get("params")
                .and_then(|p| p.get("_meta"))
                .is_none_or(Value::is_object);
            if passes && method == "tools/call" && plain_meta {
                return Inbound::Verbatim;
            }
            if passes {
                return self.typed(raw, message, &method, &id, None, typed);
            }
        }
        let internal = {
            let mut ids = self.ids();
            if self.refuse_duplicates && ids.in_flight.contains_key(&id) {
                drop(ids);
                return Inbound::Reply(duplicate(raw, &id));
            }
            ids.next += 1;
            let internal = ids.next;
            ids.by_internal.insert(internal, (id.clone(), None));
            if self.refuse_duplicates {
                ids.in_flight.insert(id.clone(), internal);
            }
            internal
        };
        message.insert("id".into(), Value::from(internal));
        self.typed(raw, message, &method, &id, Some(internal), typed)
    }

    /// Read a request as rmcp's type; `internal` is the id it now carries, if remapped
    /// (released again when the request is refused here). `strict`: the server takes
    /// this method typed, so params rmcp can only read as a custom request are refused.
    fn typed(
        &self,
        raw: &[u8],
        message: serde_json::Map<String, Value>,
        method: &str,
        id: &ClientId,
        internal: Option<i64>,
        strict: bool,
    ) -> Inbound {
        let release = || {
            if let Some(i) = internal {
                self.release(i);
            }
        };
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(Value::Object(message)) {
            Ok(m) => {
                if let JsonRpcMessage::Request(r) = &m {
                    if strict && matches!(r.request, ClientRequest::CustomRequest(_)) {
                        release();
                        return Inbound::Reply(refuse(
                            raw,
                            Some(id),
                            code::INVALID_PARAMS,
                            &format!("Invalid params for {method}: they do not have the form the method takes"),
                        ));
                    }
                }
                Inbound::Message(Box::new(m))
            }
            Err(_) if !strict => {
                // A method this server does not offer, with params rmcp cannot even
                // hold as a custom request (an array): not found, as rmcp would say.
                release();
                Inbound::Reply(refuse(
                    raw,
                    Some(id),
                    code::METHOD_NOT_FOUND,
                    METHOD_NOT_FOUND_MESSAGE,
                ))
            }
            Err(e) => {
                release();
                Inbound::Reply(refuse(
                    raw,
                    Some(id),
                    code::INVALID_REQUEST,
                    &format!("Invalid request: {e}"),
                ))
            }
        }
    }

    /// A tool call [`plain_tool_call`] found well formed, read without building a JSON
    /// value first: over HTTP its text goes on as written; over stdio it is read as rmcp's
    /// type once, under its internal id. `None` to take the general path.
    fn fast_tool_call(
        &self,
        raw: &[u8],
        text: &str,
        call: PlainCall<'_>,
        direct: bool,
    ) -> Option<Inbound> {
        if direct && !call.extra {
            if let Some(d) = self.direct_call(raw, &call) {
                return Some(d);
            }
        }
        let id = call.id;
        if !self.refuse_duplicates {
            return match &id {
                ClientId::Text(_) => Some(Inbound::Verbatim),
                ClientId::Integer(digits) if digits.parse::<i64>().is_ok() => {
                    Some(Inbound::Verbatim)
                }
                ClientId::Integer(_) => None,
            };
        }
        let mut m = serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(text).ok()?;
        let JsonRpcMessage::Request(r) = &mut m else {
            return None;
        };
        if !matches!(r.request, ClientRequest::CallToolRequest(_)) {
            return None;
        }
        let internal = {
            let mut ids = self.ids();
            if ids.in_flight.contains_key(&id) {
                drop(ids);
                return Some(Inbound::Reply(duplicate(raw, &id)));
            }
            ids.next += 1;
            let internal = ids.next;
            ids.by_internal.insert(internal, (id.clone(), None));
            ids.in_flight.insert(id, internal);
            internal
        };
        r.id = rmcp::model::NumberOrString::Number(internal);
        Some(Inbound::Message(Box::new(m)))
    }

    /// A request that opens a stdio session without `initialize` (one with a complete
    /// `_meta`, not `ping`, `initialize` or `server/discover`) marks the session opened, as
    /// rmcp marks it when it reads the request.
    fn note_session_opening(&self, method: &str, params: Option<&Value>) {
        if !self.refuse_duplicates
            || self.session.load(Ordering::Acquire) != session::OPENING
            || !revision::opens_a_session(method)
        {
            return;
        }
        let meta = params
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        if meta.is_some() && revision::of_call(meta, true).is_some() {
            self.session
                .store(session::SELF_CONTAINED, Ordering::Release);
        }
    }

    /// A plain tool call as a [`DirectCall`], its id taken into flight on one connection;
    /// `None` to take the other paths (its `_meta` is one rmcp refuses or decides on,
    /// `protocol::revision::of_call`; an id rmcp cannot hold, over HTTP).
    fn direct_call(&self, raw: &[u8], call: &PlainCall<'_>) -> Option<Inbound> {
        let meta = match call.meta {
            None => None,
            Some(m) => Some(serde_json::from_str::<rmcp::model::JsonObject>(m.get()).ok()?),
        };
        let (needs_keys, opening) = self.session_needs_keys();
        let named = revision::of_call(meta.as_ref(), needs_keys)?;
        let name = serde_json::from_str::<String>(call.name.get()).ok()?;
        let arguments = match call.arguments {
            None => None,
            Some(a) => Some(serde_json::from_str::<Value>(a.get()).ok()?),
        };
        if opening {
            // rmcp opens the session with this request, which it would answer as we do.
            self.session
                .store(session::SELF_CONTAINED, Ordering::Release);
        }
        let cancel = CancellationToken::new();
        let internal = if self.refuse_duplicates {
            let mut ids = self.ids();
            if ids.in_flight.contains_key(&call.id) {
                drop(ids);
                return Some(Inbound::Reply(duplicate(raw, &call.id)));
            }
            ids.next += 1;
            let internal = ids.next;
            ids.by_internal.insert(internal, (call.id.clone(), None));
            ids.in_flight.insert(call.id.clone(), internal);
            ids.direct.insert(internal, cancel.clone());
            Some(internal)
        } else if matches!(&call.id, ClientId::Integer(d) if d.parse::<i64>().is_err()) {
            return None;
        } else {
            None
        };
        Some(Inbound::Direct(Box::new(DirectCall {
            id_json: call.id.json(),
            internal,
            name,
            arguments,
            cancel,
            revision: named,
        })))
    }

    /// A direct call's answer is ready: what its request held, and its id no longer in
    /// flight; `None` when it was cancelled (no answer is sent, MCP-9; docs/mcp/transports.md).
    pub fn complete(&self, internal: i64) -> Option<Held> {
        let mut ids = self.ids();
        ids.direct.remove(&internal)?;
        let (id, held) = ids.by_internal.remove(&internal)?;
        if ids.in_flight.get(&id) == Some(&internal) {
            ids.in_flight.remove(&id);
        }
        held
    }

    /// A cancellation names the client's id: point it at the internal one, and free the
    /// client's id (a cancelled request is never answered, MCP-9); a direct call is
    /// cancelled here. `notifications/initialized` opens direct calls.
    fn notification(&self, message: &mut serde_json::Map<String, Value>) {
        let method = message.get("method").and_then(Value::as_str);
        if method == Some("notifications/initialized") {
            let _ = self.session.compare_exchange(
                session::ANSWERED,
                session::INITIALIZED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            return;
        }
        if method != Some("notifications/cancelled") {
            return;
        }
        let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
            return;
        };
        let Some(written) = params.get("requestId") else {
            return;
        };
        let Some(id) = client_id(written, &written.to_string()) else {
            return;
        };
        let mut ids = self.ids();
        if let Some(internal) = ids.in_flight.remove(&id) {
            ids.by_internal.remove(&internal);
            if let Some(cancel) = ids.direct.remove(&internal) {
                cancel.cancel();
            }
            params.insert("requestId".into(), Value::from(internal));
        }
    }

    fn release(&self, internal: i64) {
        let mut ids = self.ids();
        if let Some((id, _)) = ids.by_internal.remove(&internal) {
            if ids.in_flight.get(&id) == Some(&internal) {
                ids.in_flight.remove(&id);
            }
        }
    }

    /// Keep `held` with the request rmcp knows as `internal` until its answer goes out.
    /// `false` when the request is no longer in flight (cancelled meanwhile).
    pub fn hold(&self, internal: i64, held: Held) -> bool {
        match self.ids().by_internal.get_mut(&internal) {
            Some(entry) => {
                entry.1 = Some(held);
                true
            }
            None => false,
        }
    }

    /// Text that did not parse as a JSON value: `-32700`, unless it is JSON whose numbers
    /// serde_json cannot hold (`1e400`), which is read for its id and refused as a request.
    fn unreadable(&self, text: &str, e: &serde_json::Error) -> Vec<u8> {
        if serde_json::from_str::<&RawValue>(text).is_err() {
            return refuse(
                text.as_bytes(),
                None,
                code::PARSE_ERROR,
                &format!("Parse error: {e}"),
            );
        }
        #[derive(serde::Deserialize)]
        struct IdOnly<'a> {
            #[serde(borrow)]
            id: Option<&'a RawValue>,
        }
        let id = serde_json::from_str::<IdOnly<'_>>(text)
            .ok()
            .and_then(|m| m.id)
            .and_then(|raw| raw_client_id(raw.get()));
        refuse(
            text.as_bytes(),
            id.as_ref(),
            code::INVALID_REQUEST,
            "Invalid request: a number is out of the range this server reads",
        )
    }

    /// The bytes to write for one outbound message, with the client's id restored; `None`
    /// for an answer to a request that was cancelled (it gets no answer, MCP-9).
    pub fn outbound(&self, item: &TxJsonRpcMessage<RoleServer>) -> Option<Vec<u8>> {
        self.outbound_held(item).map(|(bytes, _)| bytes)
    }

    /// [`Framing::outbound`], with what the request held until its answer is written.
    pub fn outbound_held(
        &self,
        item: &TxJsonRpcMessage<RoleServer>,
    ) -> Option<(Vec<u8>, Option<Held>)> {
        if let JsonRpcMessage::Response(r) = item {
            if let rmcp::model::ServerResult::InitializeResult(init) = &r.result {
                let state = if !revision::is_self_contained(init.protocol_version.as_str()) {
                    session::ANSWERED
                } else {
                    session::OPENING
                };
                self.session.store(state, Ordering::Release);
            }
        }
        let (internal, body) = match item {
            JsonRpcMessage::Response(r) => (
                &r.id,
                serde_json::to_string(&r.result).map(|s| format!("\"result\":{s}")),
            ),
            JsonRpcMessage::Error(e) => match &e.id {
                Some(id) => (
                    id,
                    serde_json::to_string(&e.error).map(|s| format!("\"error\":{s}")),
                ),
                None => return serde_json::to_vec(item).ok().map(|b| (b, None)),
            },
            _ => return serde_json::to_vec(item).ok().map(|b| (b, None)),
        };
        let rmcp::model::NumberOrString::Number(internal) = internal else {
            return serde_json::to_vec(item).ok().map(|b| (b, None));
        };
        let (id, held) = {
            let mut ids = self.ids();
            let (id, held) = ids.by_internal.remove(internal)?;
            ids.in_flight.remove(&id);
            (id, held)
        };
        let body = body.unwrap_or_else(|e| {
            let error = json!({
                "code": -32603,
                "message": format!("Internal error: the answer could not be serialized ({e})")
            });
            format!("\"error\":{error}")
        });
        let bytes = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},{body}}}", id.json()).into_bytes();
        Some((bytes, held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framing() -> Arc<Framing> {
        Framing::connection(Box::new(|_| None))
    }

    fn reply(f: &Framing, line: &[u8]) -> Value {
        match f.inbound(line) {
            Inbound::Reply(bytes) | Inbound::Answer(bytes) => {
                serde_json::from_slice(&bytes).expect("a JSON answer")
            }
            Inbound::Message(m) => panic!("handed on: {m:?}"),
            Inbound::Direct(call) => panic!("direct: {call:?}"),
            Inbound::Nothing | Inbound::Verbatim => panic!("no answer"),
        }
    }

    fn reply_text(f: &Framing, line: &[u8]) -> String {
        match f.inbound(line) {
            Inbound::Reply(bytes) => String::from_utf8(bytes).expect("UTF-8"),
            _ => panic!("no reply"),
        }
    }

    #[test]
    fn plain_tool_calls_are_recognised_and_everything_else_is_left_to_the_general_path() {
        let plain = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compute","arguments":{"source":"1 2 ADD"},"_meta":{}}}"#;
        let found = |text| plain_tool_call(text).map(|c| (c.id, c.meta.is_none() && !c.extra));
        assert_eq!(found(plain), Some((ClientId::Integer("7".into()), false)));
        assert_eq!(
            found(r#"{"id":"a","params":{"name":"x"},"method":"tools/call","jsonrpc":"2.0"}"#),
            Some((ClientId::Text("a".into()), true))
        );
        let call = plain_tool_call(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"source":"1"},"name":"c\u0064"}}"#,
        )
        .expect("plain");
        assert_eq!(call.name.get(), r#""c\u0064""#);
        assert_eq!(call.arguments.map(RawValue::get), Some(r#"{"source":"1"}"#));
        assert!(call.meta.is_none() && !call.extra);
        for other in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compute","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compute","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","_meta":1}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c"},"extra":1}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"name":"c"}}"#,
            r#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"c"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"c"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"c"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":{"name":"c"}}"#,
            r#"["2.0",7,"tools/call",{"name":"c"}]"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c"}} x"#,
        ] {
            assert!(plain_tool_call(other).is_none(), "{other}");
        }
        // The fast path answers exactly as the general one: a duplicate id in flight.
        let f = framing();
        assert!(matches!(f.inbound(plain.as_bytes()), Inbound::Message(_)));
        assert_eq!(reply(&f, plain.as_bytes())["error"]["code"], -32600);
    }

    /// The `initialize` answer rmcp sends in `revision`, as the transport hands it back.
    fn initialize_answer(f: &Framing, internal: i64, revision: rmcp::model::ProtocolVersion) {
        use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, NumberOrString, ServerResult};
        let result =
            crate::mcp::protocol::handler::Handler::config().with_protocol_version(revision);
        let answer = JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: NumberOrString::Number(internal),
            result: ServerResult::InitializeResult(result),
        });
        assert!(f.outbound(&answer).is_some());
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    const BARE_CALL: &str = r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"compute","arguments":{"source":"1 2 ADD"}}}"#;

    /// A `tools/call` line with `meta` as its `_meta`.
    fn meta_call(id: &str, meta: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"compute","arguments":{{"source":"1"}},"_meta":{meta}}}}}"#
        )
    }

    const COMPLETE_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// The revision a direct call is answered in, or `None` for a call left to rmcp.
    fn direct_revision(f: &Framing, line: &str) -> Option<Option<String>> {
        match f.inbound(line.as_bytes()) {
            Inbound::Direct(call) => Some(call.revision.clone()),
            _ => None,
        }
    }

    #[test]
    fn calls_with_meta_are_direct_when_rmcp_would_take_them() {
        // A session opened by `initialize` (2025-06-18).
        let f = framing();
        let Inbound::Message(_) = f.inbound(INITIALIZE.as_bytes()) else {
            panic!("initialize goes to rmcp");
        };
        initialize_answer(&f, 1, rmcp::model::ProtocolVersion::V_2025_06_18);
        assert!(matches!(
            f.inbound(INITIALIZED.as_bytes()),
            Inbound::Message(_)
        ));
        assert_eq!(direct_revision(&f, &meta_call("a", "{}")), Some(None));
        assert_eq!(
            direct_revision(&f, &meta_call("b", COMPLETE_2026)),
            Some(Some("2026-07-28".into()))
        );
        // Incomplete for 2026-07-28, or an unknown revision: rmcp's to refuse.
        let incomplete = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        assert_eq!(direct_revision(&f, &meta_call("c", incomplete)), None);
        let unknown = r#"{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}"#;
        assert_eq!(direct_revision(&f, &meta_call("d", unknown)), None);
        // `inputResponses` and `requestState` stay rmcp's.
        let state = r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"compute","requestState":null}}"#;
        assert_eq!(direct_revision(&f, state), None);
    }

    #[test]
    fn a_complete_meta_opens_a_session_without_initialize() {
        // Before anything: a bare call, or `server/discover`, opens nothing.
        let f = framing();
        assert_eq!(direct_revision(&f, BARE_CALL), None);
        let discover = format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{"_meta":{COMPLETE_2026}}}}}"#
        );
        assert!(matches!(
            f.inbound(discover.as_bytes()),
            Inbound::Message(_)
        ));
        assert_eq!(f.session.load(Ordering::Acquire), session::OPENING);
        // A call with a complete `_meta` opens it (rmcp would, answering as we do).
        assert_eq!(
            direct_revision(&f, &meta_call("a", COMPLETE_2026)),
            Some(Some("2026-07-28".into()))
        );
        assert_eq!(f.session.load(Ordering::Acquire), session::SELF_CONTAINED);
        // From then on every call must carry the keys, whatever revision it names.
        assert_eq!(direct_revision(&f, &meta_call("b", "{}")), None);
        let older = r#"{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}"#;
        assert_eq!(
            direct_revision(&f, &meta_call("f", older)),
            Some(Some("2025-11-25".into()))
        );
        // Any other request with a complete `_meta` opens it too.
        let g = framing();
        let list = format!(
            r#"{{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{{"_meta":{COMPLETE_2026}}}}}"#
        );
        assert!(matches!(g.inbound(list.as_bytes()), Inbound::Message(_)));
        assert_eq!(g.session.load(Ordering::Acquire), session::SELF_CONTAINED);
    }

    #[test]
    fn bare_tool_calls_are_direct_once_the_session_is_initialized_before_2026() {
        for (revision, direct) in [
            (rmcp::model::ProtocolVersion::V_2025_06_18, true),
            (rmcp::model::ProtocolVersion::V_2026_07_28, false),
        ] {
            let f = framing();
            assert!(matches!(
                f.inbound(BARE_CALL.as_bytes()),
                Inbound::Message(_)
            ));
            let Inbound::Message(_) = f.inbound(INITIALIZE.as_bytes()) else {
                panic!("initialize goes to rmcp");
            };
            initialize_answer(&f, 2, revision.clone());
            // Not before the client says it is initialized.
            assert!(matches!(
                f.inbound(r#"{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"compute"}}"#.as_bytes()),
                Inbound::Message(_)
            ));
            assert!(matches!(
                f.inbound(INITIALIZED.as_bytes()),
                Inbound::Message(_)
            ));
            let got = f.inbound(r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"compute","arguments":{"source":"1"}}}"#.as_bytes());
            assert_eq!(matches!(got, Inbound::Direct(_)), direct, "{revision}");
            if let Inbound::Direct(call) = got {
                assert_eq!(call.id_json, r#""e""#);
                assert_eq!(call.name, "compute");
                assert_eq!(call.arguments, Some(json!({"source": "1"})));
                // Its id is in flight: a duplicate is refused, as on the other paths.
                let dup = f.inbound(r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"compute"}}"#.as_bytes());
                assert!(matches!(dup, Inbound::Reply(_)));
                let internal = call.internal.expect("in flight");
                let permits = Arc::new(tokio::sync::Semaphore::new(1));
                assert!(f.hold(internal, permits.clone().try_acquire_owned().unwrap()));
                assert!(f.complete(internal).is_some(), "answered once");
                assert!(f.complete(internal).is_none());
                // So does a call with an empty `_meta` (the session's revision).
                let meta = r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"compute","_meta":{}}}"#;
                assert!(matches!(f.inbound(meta.as_bytes()), Inbound::Direct(_)));
            }
        }
    }

    #[test]
    fn a_cancelled_direct_call_is_stopped_and_never_answered() {
        let f = framing();
        let _ = f.inbound(INITIALIZE.as_bytes());
        initialize_answer(&f, 1, rmcp::model::ProtocolVersion::V_2025_06_18);
        let _ = f.inbound(INITIALIZED.as_bytes());
        let Inbound::Direct(call) = f.inbound(BARE_CALL.as_bytes()) else {
            panic!("direct");
        };
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}"#;
        assert!(matches!(f.inbound(cancel.as_bytes()), Inbound::Message(_)));
        assert!(call.cancel.is_cancelled());
        assert!(f.complete(call.internal.unwrap()).is_none());
        // The id is free again.
        assert!(matches!(
            f.inbound(BARE_CALL.as_bytes()),
            Inbound::Direct(_)
        ));
    }

    #[test]
    fn over_http_a_bare_call_is_direct_only_when_allowed() {
        let f = Framing::stateless(Box::new(|_: &Value| None));
        assert!(matches!(
            f.body(BARE_CALL.as_bytes(), false),
            Body::Forward { .. }
        ));
        let Body::Direct(call) = f.body(BARE_CALL.as_bytes(), true) else {
            panic!("direct");
        };
        assert_eq!(call.internal, None);
        // An id rmcp cannot hold is remapped on the general path.
        let long = BARE_CALL.replace("\"c\"", "123456789012345678901234567890");
        assert!(matches!(
            f.body(long.as_bytes(), true),
            Body::Forward {
                remapped: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn stateless_framing_passes_ids_rmcp_can_hold_and_remaps_the_rest() {
        let f = Framing::stateless(Box::new(|_| None));
        // A string and an i64 id pass unchanged, twice at once (duplicates are moot).
        for _ in 0..2 {
            let Body::Forward { bytes, remapped } =
                f.body(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#, true)
            else {
                panic!("forwarded");
            };
            assert_eq!(remapped, None);
            let v: Value = serde_json::from_slice(&bytes).expect("JSON");
            assert_eq!(v["id"], "a");
        }
        let Body::Forward { remapped, .. } = f.body(
            br#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#,
            true,
        ) else {
            panic!("forwarded");
        };
        assert_eq!(remapped, None);
        // A 30-digit id is remapped, and restored digit for digit.
        let Body::Forward {
            bytes,
            remapped: Some(internal),
        } = f.body(
            br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            true,
        )
        else {
            panic!("remapped");
        };
        let v: Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(v["id"], internal);
        let id = f.restore(internal).expect("known");
        assert_eq!(id, "123456789012345678901234567890");
        assert_eq!(f.restore(internal), None);
        let answer =
            format!(r#"{{"jsonrpc":"2.0","id":{internal},"result":{{"id":1,"x":[1,2]}}}}"#);
        assert_eq!(
            String::from_utf8(with_id(answer.as_bytes(), &id).expect("object")).expect("UTF-8"),
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"id":1,"x":[1,2]}}"#
        );
        assert!(with_id(b"[1]", "1").is_none());
        // Refusals, answers and notifications.
        assert!(matches!(f.body(b"{not json}", true), Body::Refused(_)));
        assert!(matches!(f.body(b"[]", true), Body::Refused(_)));
        assert!(matches!(
            f.body(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                true
            ),
            Body::Forward { remapped: None, .. }
        ));
        assert!(matches!(f.body(b"  ", true), Body::Accepted));
        let g = Framing::stateless(Box::new(|_| Some(serde_json::json!({"isError": true}))));
        assert!(matches!(
            g.body(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compute","arguments":1}}"#, true),
            Body::Answered(_)
        ));
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
        let f = framing();
        for line in [
            &b"{not json}"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing",
            b"\xff\xfe{}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xc3\x28\"}",
        ] {
            let v = reply(&f, line);
            assert_eq!(v["error"]["code"], -32700, "{v}");
            assert!(v["id"].is_null());
            assert!(v.as_object().unwrap().contains_key("id"));
        }
    }

    #[test]
    fn batches_non_objects_and_bad_ids_are_invalid_requests_with_a_null_id() {
        let f = framing();
        for line in [
            &br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#[..],
            b"[]",
            b"3",
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        ] {
            let v = reply(&f, line);
            assert_eq!(v["error"]["code"], -32600, "{v}");
            assert!(v["id"].is_null(), "{v}");
        }
    }

    #[test]
    fn long_integer_ids_are_echoed_digit_for_digit() {
        let f = framing();
        let line = br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#;
        let Inbound::Message(m) = f.inbound(line) else {
            panic!("a ping is handed on");
        };
        let JsonRpcMessage::Request(r) = *m else {
            panic!("a request");
        };
        let internal = r.id.clone();
        let out = f
            .outbound(&JsonRpcMessage::Response(rmcp::model::JsonRpcResponse {
                jsonrpc: rmcp::model::JsonRpcVersion2_0,
                id: internal,
                result: rmcp::model::ServerResult::empty(()),
            }))
            .expect("an answer");
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"#),
            "{text}"
        );
        // A number out of serde_json's range elsewhere keeps the id it came with.
        let v = reply_text(
            &f,
            br#"{"jsonrpc":"2.0","id":98765432109876543210,"method":"ping","params":{"x":1e400}}"#,
        );
        assert!(v.contains(r#""id":98765432109876543210,"#), "{v}");
    }

    #[test]
    fn a_request_whose_id_is_in_flight_is_refused_and_the_first_still_answers() {
        let f = framing();
        let line = br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
        let Inbound::Message(first) = f.inbound(line) else {
            panic!("handed on");
        };
        let v = reply(&f, line);
        assert_eq!(v["error"]["code"], -32600);
        assert!(v["id"].is_null());
        assert!(
            v["error"]["message"].as_str().unwrap().contains("\"a\""),
            "{v}"
        );
        let JsonRpcMessage::Request(r) = *first else {
            panic!("a request");
        };
        let out = f
            .outbound(&JsonRpcMessage::Response(rmcp::model::JsonRpcResponse {
                jsonrpc: rmcp::model::JsonRpcVersion2_0,
                id: r.id,
                result: rmcp::model::ServerResult::empty(()),
            }))
            .expect("the first answers");
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], "a");
        // Once answered, the id may be used again.
        assert!(matches!(f.inbound(line), Inbound::Message(_)));
    }

    #[test]
    fn known_methods_with_params_they_cannot_take_are_invalid_params() {
        let f = framing();
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":7}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"resources/read"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":3}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":3}}"#,
        ] {
            let v = reply(&f, line);
            assert_eq!(v["error"]["code"], -32602, "{v}");
            assert_eq!(v["id"], 1);
        }
        // Methods this server does not offer, and `initialize` in a 2026-07-28 request,
        // go on to rmcp whatever their params: it answers -32601 (404 over HTTP).
        let modern = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        for line in [
            format!(r#"{{"jsonrpc":"2.0","id":11,"method":"initialize","params":{{{modern}}}}}"#),
            r#"{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":13,"method":"resources/subscribe","params":[]}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":14,"method":"completion/complete","params":{}}"#.to_string(),
        ] {
            match f.inbound(line.as_bytes()) {
                Inbound::Message(_) => {}
                Inbound::Reply(b) => {
                    // Params rmcp cannot hold: refused here, as not found.
                    let v: Value = serde_json::from_slice(&b).expect("JSON");
                    assert_eq!(v["error"]["code"], -32601, "{line}: {v}");
                }
                _ => panic!("{line}"),
            }
        }
        let g = Framing::stateless(Box::new(|_| None));
        assert!(matches!(
            g.body(
                br#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":[1]}"#,
                true
            ),
            Body::NotFound(_)
        ));
    }

    #[test]
    fn lone_surrogate_escapes_read_as_the_replacement_character() {
        assert_eq!(
            replace_lone_surrogates(r#"{"s":"'\ud800' x \uDC00 \ud83d\ude00 \\ud800"}"#),
            r#"{"s":"'\uFFFD' x \uFFFD \ud83d\ude00 \\ud800"}"#
        );
        let f = framing();
        let line = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"compute","arguments":{"source":"'\ud800' CHARS"}}}"#;
        let Inbound::Message(m) = f.inbound(line) else {
            panic!("handed on");
        };
        let JsonRpcMessage::Request(r) = *m else {
            panic!("a request");
        };
        let ClientRequest::CallToolRequest(call) = r.request else {
            panic!("a tool call");
        };
        let source = &call.params.arguments.expect("arguments")["source"];
        assert_eq!(source, "'\u{FFFD}' CHARS");
    }

    #[test]
    fn notifications_are_never_answered_and_blank_lines_ignored() {
        let f = framing();
        assert!(matches!(f.inbound(b"   "), Inbound::Nothing));
        assert!(matches!(
            f.inbound(br#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#),
            Inbound::Nothing | Inbound::Message(_)
        ));
    }

    #[test]
    fn cancellation_frees_the_id_and_suppresses_the_answer() {
        let f = framing();
        let Inbound::Message(m) = f.inbound(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#) else {
            panic!("handed on");
        };
        let JsonRpcMessage::Request(r) = *m else {
            panic!("a request");
        };
        let Inbound::Message(c) = f.inbound(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
        ) else {
            panic!("the cancellation is handed on");
        };
        let JsonRpcMessage::Notification(n) = *c else {
            panic!("a notification");
        };
        let text = serde_json::to_string(&n).unwrap();
        assert!(
            text.contains(&format!(
                "\"requestId\":{}",
                match &r.id {
                    rmcp::model::NumberOrString::Number(i) => *i,
                    _ => 0,
                }
            )),
            "{text}"
        );
        let late = f.outbound(&JsonRpcMessage::Response(rmcp::model::JsonRpcResponse {
            jsonrpc: rmcp::model::JsonRpcVersion2_0,
            id: r.id,
            result: rmcp::model::ServerResult::empty(()),
        }));
        assert!(late.is_none());
        assert!(matches!(
            f.inbound(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
            Inbound::Message(_)
        ));
    }
}
