//! The tool result (MCP-25; docs/mcp/envelope.md): `structuredContent` = the envelope object, `content` =
//! exactly one text block holding the same object's compact JSON, `isError: true` only
//! for host errors; and its size as MCP-52 measures it.

use ajisai_host::hosterror::HostError;
use serde_json::Value;

/// How an answer is framed on the wire: the bytes the negotiated protocol revision adds
/// to the result that `responseBytes` measures (MCP-52 (docs/mcp/envelope.md) measures what is delivered).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Bytes the revision's frame adds to the result object.
    pub frame_bytes: u64,
    /// The stack budget of `ok` results in place of the server's (MCP-53), when the
    /// caller asks for more of a large result: the Playground's "Show all" asks for its
    /// whole response limit. The response limit itself still holds.
    pub value_stack_bytes: Option<u64>,
}

/// The deepest envelope the server sends. The envelope sits two levels inside its
/// JSON-RPC message and common parsers (`serde_json`, used by rmcp clients) stop at
/// 128 levels, so this leaves a small margin for hosts that re-embed results.
pub const MAX_ENVELOPE_DEPTH: usize = 120;

/// Why an envelope cannot be delivered as it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undeliverable {
    /// It nests deeper than [`MAX_ENVELOPE_DEPTH`].
    TooDeep(usize),
}

/// A tool result as the server delivers it: the envelope's compact JSON text, and
/// whether it reports a host error (`isError: true`).
///
/// The text mirror and `structuredContent` are both this text: the engine writes the
/// envelope as the compact serialization of its own value, so the protocol writes the
/// result's bytes around it and parses nothing back (the MCP server's
/// `protocol::tool_result`); what it would measure, [`ToolAnswer::measure`] computes
/// from the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolAnswer {
    envelope: String,
    host_error: bool,
}

impl ToolAnswer {
    /// The answer of an envelope, unless it nests too deep for clients to read.
    pub fn new(envelope: String, host_error: bool) -> Result<ToolAnswer, Undeliverable> {
        let depth = json_depth(&envelope);
        if depth > MAX_ENVELOPE_DEPTH {
            return Err(Undeliverable::TooDeep(depth));
        }
        debug_assert!(
            serde_json::from_str::<serde_json::Map<String, Value>>(&envelope)
                .is_ok_and(|m| serde_json::to_string(&m).ok().as_deref() == Some(&envelope)),
            "an envelope is the compact serialization of a JSON object: {envelope}"
        );
        Ok(ToolAnswer {
            envelope,
            host_error,
        })
    }

    /// The envelope's JSON text.
    pub fn envelope(&self) -> &str {
        &self.envelope
    }

    /// The envelope, taken out of the answer.
    pub fn into_envelope(self) -> String {
        self.envelope
    }

    /// Whether the result carries `isError: true`.
    pub fn is_host_error(&self) -> bool {
        self.host_error
    }

    /// The size MCP-52 bounds: the bytes of the delivered result ([`measure_envelope`]).
    pub fn measure(&self) -> u64 {
        measure_envelope(&self.envelope, self.host_error)
    }

    /// A host error's `retryAfterMs` (only `capacityExhausted` has one): over HTTP the
    /// answer also carries it as `Retry-After`. Host-error envelopes are small and flat.
    pub fn retry_after_ms(&self) -> Option<u64> {
        if !self.host_error {
            return None;
        }
        let (_, rest) = self.envelope.split_once("\"retryAfterMs\":")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }

    /// The metrics label of the answer: its envelope's `status` (`ok`, `error`,
    /// `hostError`).
    pub fn outcome(&self) -> &'static str {
        if self.host_error {
            return "hostError";
        }
        // `status` is the envelope's first string member (after `schemaVersion`).
        let status = self
            .envelope
            .split_once("\"status\":\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(status, _)| status);
        match status {
            Some("ok") => "ok",
            Some("error") => "error",
            Some("hostError") => "hostError",
            _ => "other",
        }
    }
}

/// The nesting depth of a JSON text (objects and arrays), scanning outside strings.
/// Strings are skipped with `memchr` (most of an envelope's bytes are inside strings:
/// digests, displays, texts), so the check costs a small part of a call's serving time.
pub fn json_depth(json: &str) -> usize {
    let bytes = json.as_bytes();
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                // To the closing quote: the next quote that no backslash escapes.
                i += 1;
                loop {
                    let rest = bytes.get(i..).unwrap_or_default();
                    match memchr::memchr2(b'"', b'\\', rest) {
                        Some(k) if rest[k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k + 1;
                            break;
                        }
                        None => return max,
                    }
                }
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// The answer of a host error (always deliverable: it is small and flat).
pub fn host_error_answer(
    error: &HostError,
    provenance: &ajisai_host::provenance::Provenance,
) -> ToolAnswer {
    ToolAnswer {
        envelope: error.envelope(provenance),
        host_error: true,
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

/// The size MCP-52 bounds — UTF-8 bytes of the compact serialization of the whole result
/// (`content`, `structuredContent`, `isError`) that carries `envelope`, as a JavaScript
/// client's `JSON.stringify(result)` measures it — computed from the envelope's text
/// without serializing anything: the engine writes the envelope as the
/// compact serialization of its own value, so `structuredContent` serializes to exactly
/// that text (`server/tests/golden_live.rs` checks the two measures agree on every golden
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_skips_strings() {
        assert_eq!(json_depth("{\"a\":[1,{\"b\":\"[[[\\\"{\"}]}"), 3);
        assert_eq!(json_depth("3"), 0);
        // An escaped backslash ends before the quote; a string left open ends the scan.
        assert_eq!(json_depth(r#"[["a\\\\"],{"b":"\\"}]"#), 2);
        assert_eq!(json_depth(r#"[["a\\"#), 2);
        assert_eq!(json_depth(r#"[["\"#), 2);
        assert_eq!(
            json_depth(&format!("{}{}", "[".repeat(130), "]".repeat(130))),
            130
        );
    }

    /// The metrics label is the envelope's `status`, whatever else the envelope holds
    /// (a host error is labelled as one by its flag).
    #[test]
    fn the_outcome_is_the_status() {
        let envelopes = [
            (
                "{\"schemaVersion\":9,\"status\":\"ok\",\"s\":\"\\\"status\\\":\\\"error\\\"\"}",
                false,
            ),
            (
                "{\"schemaVersion\":9,\"status\":\"hostError\",\"n\":[1]}",
                true,
            ),
            (
                "{\"schemaVersion\":9,\"status\":\"error\",\"stack\":[]}",
                false,
            ),
            ("{}", false),
        ];
        let outcomes: Vec<_> = envelopes
            .iter()
            .map(|(env, e)| ToolAnswer::new(env.to_string(), *e).unwrap().outcome())
            .collect();
        assert_eq!(outcomes, ["ok", "hostError", "error", "other"]);
    }

    #[test]
    fn too_deep_is_refused() {
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(130), "]".repeat(130));
        assert_eq!(
            ToolAnswer::new(deep, false),
            Err(Undeliverable::TooDeep(131))
        );
    }
}
