//! What moves the bytes: stdin/stdout ([`stdio`]) and Streamable HTTP ([`http`]). A
//! transport reads messages, hands them to the protocol, and writes what comes back; it
//! carries any [`Service`], and names no concrete server (start-up assembles the one it
//! carries).

pub mod http;
pub mod stdio;

use crate::mcp::protocol::framing::DirectCall;
use serde_json::Value;
use std::future::Future;

/// What a transport needs of the server it carries, and nothing more.
pub trait Service: Clone + Send + Sync + 'static {
    /// rmcp's handler of every request the framing hands on.
    type Handler: rmcp::ServerHandler + Clone;

    /// The handler (one per connection over stdio; one per request's service over HTTP).
    fn handler(&self) -> Self::Handler;

    /// A tool call the transport answers itself, without rmcp: its JSON-RPC response.
    /// `None`: it was cancelled, and gets no answer.
    fn call(&self, call: DirectCall) -> impl Future<Output = Option<DirectAnswer>> + Send;

    /// The answer to a `tools/call` rmcp's typed parameters would refuse, given its raw
    /// `params` (`None`: rmcp may answer it).
    fn precheck(&self, params: &Value) -> Option<Value>;

    /// Whether the server can compute now (`/readyz`).
    fn ready(&self) -> impl Future<Output = bool> + Send;

    /// The Prometheus text of `/metrics` (`None`: nothing records them).
    fn metrics(&self) -> Option<String>;
}

/// A direct call's answer: the JSON-RPC response, and what the request's log line and an
/// HTTP answer's headers say of it.
#[derive(Clone, Debug)]
pub struct DirectAnswer {
    /// The JSON-RPC response, as rmcp would write it.
    pub response: Vec<u8>,
    /// The outcome for the log line (`ok`, `error`, `hostError`).
    pub outcome: &'static str,
    /// A capacity refusal's `retryAfterMs` (`Retry-After` over HTTP).
    pub retry_after_ms: Option<u64>,
}
