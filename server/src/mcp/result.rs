//! The tool result (MCP-25): `structuredContent` = the envelope object, `content` =
//! exactly one text block holding the same object's compact JSON, `isError: true` only
//! for host errors; and its size as MCP-52 measures it.

use super::hosterror::HostError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The deepest envelope the server sends. The envelope sits two levels inside its
/// JSON-RPC message and common parsers (`serde_json`, used by rmcp clients) stop at
/// 128 levels, so this leaves a small margin for hosts that re-embed results.
pub const MAX_ENVELOPE_DEPTH: usize = 120;

/// Why an envelope cannot be delivered as it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undeliverable {
    /// It nests deeper than [`MAX_ENVELOPE_DEPTH`].
    TooDeep(usize),
    /// It is not valid JSON (an engine bug).
    Invalid(String),
}

/// The nesting depth of a JSON text (objects and arrays), scanning outside strings.
pub fn json_depth(json: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in json.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Build the tool result of an envelope. `host_error` sets `isError: true`.
pub fn tool_result(envelope: String, host_error: bool) -> Result<CallToolResult, Undeliverable> {
    let depth = json_depth(&envelope);
    if depth > MAX_ENVELOPE_DEPTH {
        return Err(Undeliverable::TooDeep(depth));
    }
    let value: Value =
        serde_json::from_str(&envelope).map_err(|e| Undeliverable::Invalid(e.to_string()))?;
    if !value.is_object() {
        return Err(Undeliverable::Invalid(
            "the envelope is not an object".into(),
        ));
    }
    let mut result = CallToolResult::default();
    result.content = vec![ContentBlock::text(envelope)];
    result.structured_content = Some(value);
    result.is_error = host_error.then_some(true);
    Ok(result)
}

/// The result of a host error (always deliverable: it is small and flat).
pub fn host_error_result(
    error: &HostError,
    provenance: &super::provenance::Provenance,
) -> CallToolResult {
    let envelope = error.envelope(provenance);
    match tool_result(envelope.clone(), true) {
        Ok(r) => r,
        // Unreachable for the envelopes this module renders; keep the text mirror at least.
        Err(_) => {
            let mut result = CallToolResult::default();
            result.content = vec![ContentBlock::text(envelope)];
            result.is_error = Some(true);
            result
        }
    }
}

/// The bytes serde_json (and JavaScript's `JSON.stringify`) writes for `s` as a JSON string
/// literal, quotes included: `"` and `\` and the control characters are escaped, all else is
/// written as it is.
pub fn escaped_len(s: &str) -> u64 {
    let mut n = 2u64;
    for b in s.bytes() {
        n += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0x00..=0x1f => 6,
            _ => 1,
        };
    }
    n
}

/// [`measure`] of the result [`tool_result`] builds from `envelope`, computed from the
/// envelope's text without serializing anything: the engine writes the envelope as the
/// compact serialization of its own value, so `structuredContent` serializes to exactly
/// that text (`server/tests/performance.rs` checks the two measures agree on every golden
/// case).
pub fn measure_envelope(envelope: &str, host_error: bool) -> u64 {
    const BEFORE_TEXT: &str = "{\"content\":[{\"type\":\"text\",\"text\":";
    const BEFORE_STRUCTURED: &str = "}],\"structuredContent\":";
    const IS_ERROR: &str = ",\"isError\":true";
    let mut n = BEFORE_TEXT.len() as u64 + escaped_len(envelope);
    n += BEFORE_STRUCTURED.len() as u64 + envelope.len() as u64;
    if host_error {
        n += IS_ERROR.len() as u64;
    }
    n + 1
}

/// The size MCP-52 bounds: UTF-8 bytes of the compact serialization of the whole result
/// (`content`, `structuredContent`, `isError`), as a JavaScript client's
/// `JSON.stringify(result)` measures it.
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

    #[test]
    fn depth_skips_strings() {
        assert_eq!(json_depth("{\"a\":[1,{\"b\":\"[[[\\\"{\"}]}"), 3);
        assert_eq!(json_depth("3"), 0);
    }

    #[test]
    fn text_mirror_equals_structured_content() {
        let env = "{\"schemaVersion\":6,\"status\":\"ok\",\"s\":\"é/\\n\"}".to_string();
        let r = tool_result(env.clone(), false).unwrap();
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
        for (env, host_error) in [
            ("{\"schemaVersion\":6,\"status\":\"ok\",\"s\":\"é/\\n\\t\\\"q\\\\ \\u0001 \\u001f\u{7f}\u{2028}😀\"}", false),
            ("{\"status\":\"hostError\",\"n\":[1,-2,{\"a\":null,\"b\":true}]}", true),
            ("{}", false),
        ] {
            let r = tool_result(env.to_string(), host_error).expect("deliverable");
            assert_eq!(measure_envelope(env, host_error), measure(&r), "{env}");
        }
    }

    #[test]
    fn too_deep_is_refused() {
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(130), "]".repeat(130));
        assert_eq!(tool_result(deep, false), Err(Undeliverable::TooDeep(131)));
    }
}
