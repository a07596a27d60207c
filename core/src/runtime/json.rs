//! A small compact-JSON writer for the envelope (MCP-26): no insignificant
//! whitespace, non-ASCII and `/` unescaped, keys in the order written. Values are
//! written iteratively so arbitrarily deep stacks cannot overflow the native stack.

use std::fmt::Write;

/// Append `s` as a JSON string literal.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The JSON string literal of `s`.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str(&mut out, s);
    out
}

/// Builds one JSON object, key by key, in order.
pub struct ObjectWriter<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> ObjectWriter<'a> {
    /// Start an object (writes `{`).
    pub fn new(out: &'a mut String) -> ObjectWriter<'a> {
        out.push('{');
        ObjectWriter { out, first: true }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        write_str(self.out, key);
        self.out.push(':');
    }

    /// A string member.
    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        write_str(self.out, value);
        self
    }

    /// An integer member.
    pub fn int(&mut self, key: &str, value: u64) -> &mut Self {
        self.key(key);
        let _ = write!(self.out, "{value}");
        self
    }

    /// A Boolean member.
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key);
        self.out.push_str(if value { "true" } else { "false" });
        self
    }

    /// A member whose value is already-serialized JSON.
    pub fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        self.key(key);
        self.out.push_str(json);
        self
    }

    /// A member whose value a closure writes.
    pub fn with(&mut self, key: &str, f: impl FnOnce(&mut String)) -> &mut Self {
        self.key(key);
        f(self.out);
        self
    }

    /// An array of strings.
    pub fn strs<S: AsRef<str>>(&mut self, key: &str, items: &[S]) -> &mut Self {
        self.key(key);
        self.out.push('[');
        for (i, s) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            write_str(self.out, s.as_ref());
        }
        self.out.push(']');
        self
    }

    /// Close the object (writes `}`).
    pub fn end(&mut self) {
        self.out.push('}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_json_stringify() {
        assert_eq!(quoted("a\"b\\c/é\n\u{1}"), "\"a\\\"b\\\\c/é\\n\\u0001\"");
        let parsed: String = serde_json::from_str(&quoted("x\u{7f}\u{2028}")).unwrap();
        assert_eq!(parsed, "x\u{7f}\u{2028}");
    }
}
