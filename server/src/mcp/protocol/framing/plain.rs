//! The scan that recognises the busiest message, a plain `tools/call`, without building a
//! JSON value of it.

use super::ids::{raw_client_id, ClientId};
use serde_json::value::RawValue;

/// The id of a `tools/call` request that every rule of this module lets through as it
/// stands, found with a scan that builds nothing: an object with `"jsonrpc":"2.0"`, a
/// string or integer id, params with a string `name`, object `arguments` (or none) and
/// object `_meta` (or none). Anything else (`None`) takes the general path, which decides
/// it the same way or refuses it.
pub(super) fn plain_tool_call(text: &str) -> Option<PlainCall<'_>> {
    /// A member's unparsed value, or its absence (`Option` would read `null` as absent).
    #[derive(Default)]
    struct Member<'a>(Option<&'a RawValue>);
    impl<'de: 'a, 'a> serde::Deserialize<'de> for Member<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            <&'a RawValue>::deserialize(d).map(|v| Member(Some(v)))
        }
    }
    // Members beyond these take the general path.
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params<'a> {
        #[serde(borrow)]
        name: &'a RawValue,
        #[serde(borrow, default)]
        arguments: Member<'a>,
        #[serde(borrow, default, rename = "_meta")]
        meta: Member<'a>,
        #[serde(borrow, default, rename = "inputResponses")]
        input_responses: Member<'a>,
        #[serde(borrow, default, rename = "requestState")]
        request_state: Member<'a>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Message<'a> {
        #[serde(borrow)]
        jsonrpc: &'a RawValue,
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        method: &'a RawValue,
        #[serde(borrow)]
        params: Params<'a>,
    }
    // A struct would also read a JSON array, field by field.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let m: Message<'_> = serde_json::from_str(text).ok()?;
    let is_object = |v: &Member<'_>| v.0.is_none_or(|v| v.get().starts_with('{'));
    let plain = m.jsonrpc.get() == "\"2.0\""
        && m.method.get() == "\"tools/call\""
        && m.params.name.get().starts_with('"')
        && is_object(&m.params.arguments)
        && is_object(&m.params.meta);
    if !plain {
        return None;
    }
    let extra = m.params.input_responses.0.is_some() || m.params.request_state.0.is_some();
    Some(PlainCall {
        id: raw_client_id(m.id.get())?,
        name: m.params.name,
        arguments: m.params.arguments.0,
        meta: m.params.meta.0,
        extra,
    })
}

/// A tool call as [`plain_tool_call`] found it.
pub(super) struct PlainCall<'a> {
    pub(super) id: ClientId,
    /// The `name` member as written (a JSON string).
    pub(super) name: &'a RawValue,
    /// The `arguments` member as written (a JSON object), if present.
    pub(super) arguments: Option<&'a RawValue>,
    /// The `_meta` member as written (a JSON object), if present.
    pub(super) meta: Option<&'a RawValue>,
    /// Its params also hold `inputResponses` or `requestState` (left to rmcp).
    pub(super) extra: bool,
}
