//! The revision rule, in one place: which protocol revision a request is answered in, and
//! what that changes.
//!
//! Revisions are dates and order as text. From 2026-07-28 on, a request is self-contained:
//! it names its revision in `params._meta` (`io.modelcontextprotocol/protocolVersion`),
//! there is no `initialize` handshake, and every result carries `"resultType":"complete"`
//! first. Before it, the revision is the session's, agreed at `initialize` (over HTTP,
//! the `MCP-Protocol-Version` header, 2025-03-26 when absent).

use ajisai_service::result::Delivery;
use rmcp::model::{JsonObject, ProtocolVersion, RequestMetaObject};
use serde_json::Value;

/// The `_meta` key a self-contained request names its revision with.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The first revision of self-contained requests.
pub fn first_self_contained() -> &'static str {
    ProtocolVersion::V_2026_07_28.as_str()
}

/// Whether `revision` is one of self-contained requests (2026-07-28 or later).
pub fn is_self_contained(revision: &str) -> bool {
    revision >= first_self_contained()
}

/// The revision a request's `params` name in `_meta`, if they name one (a string).
pub fn named_in_meta(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_PROTOCOL_VERSION)?.as_str()
}

/// Whether `revision` is one this server speaks (every revision rmcp knows).
pub fn is_known(revision: &str) -> bool {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|v| v.as_str() == revision)
}

/// The revision a tool call carrying `meta` (its `params._meta`) is answered in, when it
/// passes every check rmcp makes of a request's `_meta` — so that the protocol may answer
/// it itself, byte for byte as rmcp would — or `None` to leave it to rmcp, which refuses it
/// or decides. `Some(None)`: no revision named, the session's applies (one before
/// 2026-07-28). `require_keys`: the session opened without `initialize`, where every
/// request must carry the required keys whatever revision it names.
///
/// The checks are rmcp's own: a named revision must be one this server speaks
/// (`-32022` otherwise), and in a self-contained revision `protocolVersion` and
/// `clientCapabilities` must be present and decode (`-32602` otherwise), read with rmcp's
/// `RequestMetaObject` so that what decodes is exactly what rmcp accepts.
pub fn of_call(meta: Option<&JsonObject>, require_keys: bool) -> Option<Option<String>> {
    let Some(meta) = meta else {
        return (!require_keys).then_some(None);
    };
    let meta = RequestMetaObject::from(meta.clone());
    let keys_complete = || {
        meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
    };
    match meta.protocol_version() {
        None => (!require_keys).then_some(None),
        Some(named) => {
            let named = named.as_str();
            if !is_known(named) || ((is_self_contained(named) || require_keys) && !keys_complete())
            {
                return None;
            }
            Some(Some(named.to_string()))
        }
    }
}

/// Whether a request other than these opens a stdio session without `initialize` when its
/// `_meta` is complete: rmcp opens one with the first such request (`ping`, `initialize`
/// and `server/discover` do not open it).
pub fn opens_a_session(method: &str) -> bool {
    !matches!(method, "ping" | "initialize" | "server/discover")
}

/// How an answer is framed in `revision` (`None`: the revision of a session before
/// 2026-07-28): a self-contained revision's results carry `resultType` first.
pub fn delivery(revision: Option<&str>) -> Delivery {
    if revision.is_some_and(is_self_contained) {
        crate::mcp::protocol::tool_result::with_result_type()
    } else {
        Delivery::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rule() {
        assert!(is_self_contained("2026-07-28"));
        assert!(!is_self_contained("2025-11-25"));
        assert!(is_known("2024-11-05") && is_known("2026-07-28") && !is_known("2027-01-01"));
        let params = json!({ "_meta": { META_PROTOCOL_VERSION: "2026-07-28" } });
        assert_eq!(named_in_meta(Some(&params)), Some("2026-07-28"));
        assert_eq!(
            named_in_meta(Some(&json!({ "_meta": { META_PROTOCOL_VERSION: 7 } }))),
            None
        );
        assert_eq!(named_in_meta(None), None);
        assert_eq!(
            delivery(Some("2026-07-28")),
            crate::mcp::protocol::tool_result::with_result_type()
        );
        assert_eq!(delivery(Some("2025-06-18")), Delivery::default());
        assert_eq!(delivery(None), Delivery::default());
    }

    fn meta(v: serde_json::Value) -> JsonObject {
        v.as_object().cloned().expect("an object")
    }

    #[test]
    fn calls_pass_rmcps_checks_of_their_meta_or_are_left_to_it() {
        let complete = meta(json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }));
        assert_eq!(
            of_call(Some(&complete), false),
            Some(Some("2026-07-28".into()))
        );
        assert_eq!(
            of_call(Some(&complete), true),
            Some(Some("2026-07-28".into()))
        );
        // No capabilities in a self-contained revision: rmcp answers -32602.
        let bare = meta(json!({ META_PROTOCOL_VERSION: "2026-07-28" }));
        assert_eq!(of_call(Some(&bare), false), None);
        // Malformed capabilities are missing ones.
        let malformed = meta(json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "roots": 1 }
        }));
        assert_eq!(of_call(Some(&malformed), false), None);
        // An unknown revision: rmcp answers -32022.
        let unknown = meta(json!({
            META_PROTOCOL_VERSION: "2030-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}
        }));
        assert_eq!(of_call(Some(&unknown), false), None);
        // An older revision named needs no keys, but in a session opened without
        // `initialize` every request carries them.
        let older = meta(json!({ META_PROTOCOL_VERSION: "2025-06-18" }));
        assert_eq!(
            of_call(Some(&older), false),
            Some(Some("2025-06-18".into()))
        );
        assert_eq!(of_call(Some(&older), true), None);
        // No revision named: the session's, unless keys are required.
        assert_eq!(of_call(Some(&meta(json!({}))), false), Some(None));
        assert_eq!(of_call(None, false), Some(None));
        assert_eq!(of_call(None, true), None);
        assert!(opens_a_session("tools/list") && !opens_a_session("server/discover"));
    }
}
