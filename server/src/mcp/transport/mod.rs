//! What moves the bytes: stdin/stdout ([`stdio`]) and Streamable HTTP ([`http`], with the
//! Prometheus text of `/metrics`, [`metrics`]). A transport reads messages, hands them to
//! the protocol, and writes what comes back.

pub mod http;
pub mod metrics;
pub mod stdio;
