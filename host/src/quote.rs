//! The one way a host quotes client text into a message or a log line: on one line
//! (line breaks as spaces), cut to a number of characters with `…`
//! ([`ajisai_core::envelope::shortened`]). A URI is the one exception: the resource error
//! of MCP-65 (docs/mcp/resources.md) echoes its first 200 characters as they are.

use ajisai_core::envelope::{one_line, shortened};

/// The most characters of a caller-supplied name or id quoted in a message.
pub const QUOTED_CHARS: usize = 64;

/// The most characters of a URI echoed in a resource error.
pub const URI_CHARS: usize = 200;

/// A caller-supplied text quoted in a message: one line, at most [`QUOTED_CHARS`]
/// characters.
pub fn echo(s: &str) -> String {
    shortened(&one_line(s), QUOTED_CHARS)
}

/// An id or a message excerpt as written, at most [`QUOTED_CHARS`] characters (a JSON
/// text, which holds no raw line break).
pub fn excerpt(s: &str) -> String {
    shortened(s, QUOTED_CHARS)
}

/// A URI echoed in a resource error: its first [`URI_CHARS`] characters, uncut otherwise
/// (MCP-65).
pub fn uri(uri: &str) -> String {
    uri.chars().take(URI_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_one_line_and_cut_with_an_ellipsis() {
        assert_eq!(echo("a\nb"), "a b");
        let long = "x".repeat(100);
        let q = echo(&long);
        assert_eq!(q.chars().count(), QUOTED_CHARS);
        assert!(q.ends_with('…'));
        assert_eq!(echo(&"y".repeat(QUOTED_CHARS)), "y".repeat(QUOTED_CHARS));
        assert_eq!(excerpt(&long), q);
        assert_eq!(uri(&"u".repeat(300)).chars().count(), URI_CHARS);
        assert_eq!(uri("ajisai://x"), "ajisai://x");
    }
}
