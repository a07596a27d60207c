//! The revision rule, in one place: which protocol revision a request is answered in, and
//! what that changes.
//!
//! Revisions are dates and order as text. From 2026-07-28 on, a request is self-contained:
//! it names its revision in `params._meta` (`io.modelcontextprotocol/protocolVersion`),
//! there is no `initialize` handshake, and every result carries `"resultType":"complete"`
//! first. Before it, the revision is the session's, agreed at `initialize` (over HTTP,
//! the `MCP-Protocol-Version` header, 2025-03-26 when absent).

use crate::mcp::service::exec::Delivery;
use rmcp::model::ProtocolVersion;
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

/// How an answer is framed in `revision` (`None`: the revision of a session before
/// 2026-07-28): a self-contained revision's results carry `resultType` first.
pub fn delivery(revision: Option<&str>) -> Delivery {
    if revision.is_some_and(is_self_contained) {
        Delivery::with_result_type()
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
        assert_eq!(delivery(Some("2026-07-28")), Delivery::with_result_type());
        assert_eq!(delivery(Some("2025-06-18")), Delivery::default());
        assert_eq!(delivery(None), Delivery::default());
    }
}
