//! A tool answer on the wire (MCP-25; docs/mcp/envelope.md): the service's [`ToolAnswer`]
//! as rmcp's `CallToolResult`, and the same result written byte for byte as rmcp writes
//! it, in the frame of the revision it is answered in (a self-contained revision's result
//! starts with `"resultType":"complete"`), without building a JSON value of the envelope.

use ajisai_service::result::{Delivery, ToolAnswer};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The member 2026-07-28 adds to every result, first (its length is the
/// [`Delivery::frame_bytes`] of that revision: `protocol::revision::delivery`).
pub const RESULT_TYPE_MEMBER: &str = "\"resultType\":\"complete\",";

/// The delivery of a revision whose results carry `resultType` first.
pub fn with_result_type() -> Delivery {
    Delivery {
        frame_bytes: RESULT_TYPE_MEMBER.len() as u64,
        value_stack_bytes: None,
    }
}

/// The wire form of a service's answer.
pub trait WireAnswer {
    /// The result as rmcp's type, for answers rmcp serializes itself.
    fn to_call_tool_result(&self) -> CallToolResult;

    /// Append the result object's compact JSON, byte for byte as rmcp serializes
    /// [`WireAnswer::to_call_tool_result`] in `delivery`'s revision.
    fn write_result(&self, out: &mut Vec<u8>, delivery: Delivery);

    /// The JSON-RPC response carrying this result for the request whose id is `id_json`
    /// (its JSON text), in `delivery`'s revision.
    fn response(&self, id_json: &str, delivery: Delivery) -> Vec<u8>;
}

impl WireAnswer for ToolAnswer {
    fn to_call_tool_result(&self) -> CallToolResult {
        let mut result = CallToolResult::default();
        result.content = vec![ContentBlock::text(self.envelope().to_owned())];
        // The envelope is a JSON object (checked by `ToolAnswer::new` in debug builds and
        // by every golden test): this parse cannot fail for what the engine writes.
        result.structured_content = serde_json::from_str(self.envelope()).ok();
        result.is_error = self.is_host_error().then_some(true);
        result
    }

    fn write_result(&self, out: &mut Vec<u8>, delivery: Delivery) {
        out.push(b'{');
        if delivery.frame_bytes > 0 {
            out.extend_from_slice(RESULT_TYPE_MEMBER.as_bytes());
        }
        out.extend_from_slice(b"\"content\":[{\"type\":\"text\",\"text\":");
        // serde_json's own string escaping, as rmcp's serialization uses.
        serde_json::to_writer(&mut *out, self.envelope()).expect("writing to a vector cannot fail");
        out.extend_from_slice(b"}],\"structuredContent\":");
        out.extend_from_slice(self.envelope().as_bytes());
        if self.is_host_error() {
            out.extend_from_slice(b",\"isError\":true");
        }
        out.push(b'}');
    }

    fn response(&self, id_json: &str, delivery: Delivery) -> Vec<u8> {
        let envelope = self.envelope().len();
        let mut out = Vec::with_capacity(64 + id_json.len() + 2 * envelope + envelope / 8);
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        out.extend_from_slice(id_json.as_bytes());
        out.extend_from_slice(b",\"result\":");
        self.write_result(&mut out, delivery);
        out.push(b'}');
        out
    }
}

/// The size MCP-52 bounds, measured on rmcp's type: UTF-8 bytes of the compact
/// serialization of the whole result (`content`, `structuredContent`, `isError`), as a
/// JavaScript client's `JSON.stringify(result)` measures it. The service computes the
/// same from the envelope's text (`ToolAnswer::measure`); the tests hold the two equal.
pub fn measure(result: &CallToolResult) -> u64 {
    // Counted while serializing: neither a copy of the result nor its text is held.
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let written = if result.result_type.is_none() {
        serde_json::to_writer(&mut count, result)
    } else {
        // The protocol revisions this server negotiates carry no `resultType` on the wire.
        let mut r = result.clone();
        r.result_type = None;
        serde_json::to_writer(&mut count, &r)
    };
    match written {
        Ok(()) => count.0,
        Err(_) => u64::MAX,
    }
}

/// The wire form of a result for a protocol revision without `resultType`.
pub fn wire_value(result: &CallToolResult) -> Value {
    let mut r = result.clone();
    r.result_type = None;
    serde_json::to_value(&r).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Envelopes with every kind of character JSON escapes, and both result shapes.
    const ENVELOPES: [(&str, bool); 4] = [
        ("{\"schemaVersion\":8,\"status\":\"ok\",\"s\":\"é/\\n\\t\\\"q\\\\ \\u0001 \\u001f\u{7f}\u{2028}😀\"}", false),
        ("{\"schemaVersion\":8,\"status\":\"hostError\",\"n\":[1,-2,{\"a\":null,\"b\":true}]}", true),
        ("{\"schemaVersion\":8,\"status\":\"error\",\"stack\":[]}", false),
        ("{}", false),
    ];

    #[test]
    fn text_mirror_equals_structured_content() {
        let env = "{\"schemaVersion\":8,\"status\":\"ok\",\"s\":\"é/\\n\"}".to_string();
        let r = ToolAnswer::new(env.clone(), false)
            .unwrap()
            .to_call_tool_result();
        let text = r.content[0].as_text().map(|t| t.text.clone()).unwrap();
        assert_eq!(text, env);
        assert_eq!(
            serde_json::to_string(r.structured_content.as_ref().unwrap()).unwrap(),
            env
        );
        assert_eq!(r.is_error, None);
        let wire = serde_json::to_string(&wire_value(&r)).unwrap();
        assert_eq!(measure(&r), wire.len() as u64);
        assert!(
            wire.starts_with("{\"content\":[{\"type\":\"text\",\"text\":"),
            "{wire}"
        );
    }

    #[test]
    fn the_measure_of_an_envelope_is_the_measure_of_its_result() {
        for (env, host_error) in ENVELOPES {
            let a = ToolAnswer::new(env.to_string(), host_error).expect("deliverable");
            assert_eq!(a.measure(), measure(&a.to_call_tool_result()), "{env}");
        }
    }

    #[test]
    fn written_answers_are_what_rmcp_serializes() {
        use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, NumberOrString, ServerResult};
        for (env, host_error) in ENVELOPES {
            let a = ToolAnswer::new(env.to_string(), host_error).expect("deliverable");
            for delivery in [Delivery::default(), with_result_type()] {
                let mut result = a.to_call_tool_result();
                // Before 2026-07-28 rmcp strips `resultType`; from it on, it comes first.
                if delivery.frame_bytes == 0 {
                    result.result_type = None;
                }
                let mut written = Vec::new();
                a.write_result(&mut written, delivery);
                let serialized = serde_json::to_string(&result).unwrap();
                assert_eq!(String::from_utf8(written).unwrap(), serialized);
                assert_eq!(
                    serialized.starts_with("{\"resultType\":\"complete\","),
                    delivery.frame_bytes > 0
                );
                for id in [
                    NumberOrString::Number(7),
                    NumberOrString::String("a\"b".into()),
                ] {
                    let response = rmcp::model::ServerJsonRpcMessage::Response(JsonRpcResponse {
                        jsonrpc: JsonRpcVersion2_0,
                        id: id.clone(),
                        result: ServerResult::CallToolResult(result.clone()),
                    });
                    let id_json = serde_json::to_string(&id).unwrap();
                    assert_eq!(
                        String::from_utf8(a.response(&id_json, delivery)).unwrap(),
                        serde_json::to_string(&response).unwrap()
                    );
                }
            }
        }
    }
}
