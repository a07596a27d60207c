//! A small compact-JSON writer for the envelope (MCP-26; docs/mcp/envelope.md): no insignificant
//! whitespace, non-ASCII and `/` unescaped, keys in the order written. Values are
//! written iteratively so arbitrarily deep stacks cannot overflow the native stack.
//!
//! Written by hand because the envelope streams what serde would have to hold or
//! recurse through: stack nodes of any depth, exact digit strings, a layout whose
//! sizes are priced before it is written. Flat records inside it (errors, usage,
//! findings, host fields) go through serde ([`ObjectWriter::ser`]), whose string
//! escaping is the same as [`write_str`]'s (pinned by a test below).

use std::fmt::Write;

/// Append `s` as a JSON string literal.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    escape_into(out, s);
    out.push('"');
}

/// The bytes of text [`write_str_polled`] escapes between two ticks.
const POLLED_CHUNK_BYTES: usize = 64 * 1024;

/// [`write_str`] for a text that may be long (an output line of megabytes): a chunk at a
/// time, each reported to `tick` (⌈bytes/8⌉ units, as every text copied) before it is
/// escaped and the buffer grown by bounded steps, so a host can stop the copy.
pub fn write_str_polled<E>(
    out: &mut String,
    s: &str,
    tick: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    out.push('"');
    let mut rest = s;
    while !rest.is_empty() {
        let mut end = rest.len().min(POLLED_CHUNK_BYTES);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (chunk, tail) = rest.split_at(end);
        tick(crate::price::text_units(chunk.len() as u64))?;
        crate::limits::grow(out, chunk.len() + 2);
        escape_into(out, chunk);
        rest = tail;
    }
    out.push('"');
    Ok(())
}

/// The characters of `s` as a JSON string's content (without its quotes). Runs of
/// characters that need no escape are copied whole: the bytes that need one are all ASCII,
/// so a byte scan never splits a character, and a number's thousands of digits (or a long
/// text) are one copy instead of a push per character. The scan looks at eight bytes at a
/// time ([`needs_escape`]): an envelope's text is mostly digits with nothing to escape (a
/// byte at a time, the scan was a tenth of the envelope of a 6,000-digit algebraic
/// number).
fn escape_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        while let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if needs_escape(word) {
                break;
            }
            i += 8;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        i += 1;
        if b != b'"' && b != b'\\' && b >= 0x20 {
            continue;
        }
        out.push_str(&s[start..i - 1]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i;
    }
    out.push_str(&s[start..]);
}

/// Whether any of the eight bytes of `word` needs an escape: a control character
/// (below 0x20), `"` or `\`. The word-at-a-time tests of a byte below n and of a zero
/// byte (Hacker's Delight, 6-1): each is non-zero exactly when some byte qualifies
/// (bytes of 0x80 and above, the parts of non-ASCII characters, never do).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    (control | quote | backslash) != 0
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

    /// [`ObjectWriter::strs`] for texts that may be long, through `tick`
    /// ([`write_str_polled`]).
    pub fn strs_polled<S: AsRef<str>, E>(
        &mut self,
        key: &str,
        items: &[S],
        tick: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<&mut Self, E> {
        self.key(key);
        self.out.push('[');
        for (i, s) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            write_str_polled(self.out, s.as_ref(), tick)?;
        }
        self.out.push(']');
        Ok(self)
    }

    /// A member whose value is a flat record serde writes.
    pub fn ser(&mut self, key: &str, value: &impl serde::Serialize) -> &mut Self {
        self.key(key);
        self.out
            .push_str(&serde_json::to_string(value).expect("a flat record serializes"));
        self
    }

    /// The members of `members` (an object's JSON without its braces, as
    /// [`HostFields`] holds them), after the ones written so far.
    pub fn members(&mut self, members: &HostFields) -> &mut Self {
        if !members.0.is_empty() {
            if !self.first {
                self.out.push(',');
            }
            self.first = false;
            self.out.push_str(&members.0);
        }
        self
    }

    /// Close the object (writes `}`).
    pub fn end(&mut self) {
        self.out.push('}');
    }
}

/// The host's trailing fields of an envelope (the server's `prelude` and `mcp`, the
/// CLI's `limitProfile` and `backend`, MCP-28/95; docs/mcp/index.md, README.md): a record serde writes as one
/// object, whose members follow the engine's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostFields(String);

impl HostFields {
    /// No host fields.
    pub const NONE: HostFields = HostFields(String::new());

    /// The fields of `record`, a struct (or map) serde writes as a JSON object.
    pub fn of(record: &impl serde::Serialize) -> HostFields {
        let json = serde_json::to_string(record).expect("a host record serializes");
        let members = json
            .strip_prefix('{')
            .and_then(|j| j.strip_suffix('}'))
            .expect("a host record is a JSON object");
        HostFields(members.to_string())
    }

    /// The members' JSON, without braces (empty for [`HostFields::NONE`]).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `json`, a compact JSON object, with `host`'s members appended.
pub fn with_members(mut json: String, host: &HostFields) -> String {
    if !host.0.is_empty() {
        debug_assert!(json.ends_with('}'), "an object: {json}");
        json.pop();
        if !json.ends_with('{') {
            json.push(',');
        }
        json.push_str(&host.0);
        json.push('}');
    }
    json
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde's escaping of strings is [`write_str`]'s, so records written by serde
    /// and by the writer agree byte for byte.
    #[test]
    fn serde_strings_escape_as_the_writer_does() {
        let all: String = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain("é漢字🙂\u{2028}\u{2029}/".chars())
            .collect();
        // Escapes at either end, side by side, and between multi-byte characters (the
        // writer copies the runs between escapes whole).
        let edges = [
            "\"start",
            "end\\",
            "\n\n",
            "é\n漢\u{1f}🙂",
            "12345678901234567890",
        ];
        for s in [all.as_str(), "", "plain", "\"\\", "tab\there"]
            .into_iter()
            .chain(edges)
        {
            assert_eq!(serde_json::to_string(s).unwrap(), quoted(s), "{s:?}");
        }
    }

    #[test]
    fn host_fields_append_after_the_engine_fields() {
        #[derive(serde::Serialize)]
        struct Host {
            a: u8,
            b: &'static str,
        }
        let host = HostFields::of(&Host { a: 1, b: "x" });
        assert_eq!(host.as_str(), r#""a":1,"b":"x""#);
        assert_eq!(with_members("{}".into(), &host), r#"{"a":1,"b":"x"}"#);
        assert_eq!(
            with_members(r#"{"z":0}"#.into(), &host),
            r#"{"z":0,"a":1,"b":"x"}"#
        );
        assert_eq!(
            with_members(r#"{"z":0}"#.into(), &HostFields::NONE),
            r#"{"z":0}"#
        );
        let mut out = String::new();
        let mut o = ObjectWriter::new(&mut out);
        o.int("z", 0).members(&host).members(&HostFields::NONE);
        o.end();
        assert_eq!(out, r#"{"z":0,"a":1,"b":"x"}"#);
    }

    #[test]
    fn a_long_text_is_written_polled_as_it_is_written_whole() {
        let text: String = "aé\"\\\n\u{1}漢🙂".repeat(30_000);
        let mut whole = String::new();
        write_str(&mut whole, &text);
        let mut polled = String::new();
        let mut units = 0u64;
        write_str_polled(&mut polled, &text, &mut |u| {
            units += u;
            Ok::<(), ()>(())
        })
        .expect("never stopped");
        assert_eq!(polled, whole);
        assert!(units >= text.len() as u64 / 8, "{units}");
        // A tick that stops ends the copy.
        let mut stopped = String::new();
        assert!(write_str_polled(&mut stopped, &text, &mut |_| Err(())).is_err());
    }

    /// The eight-byte scan finds every byte that needs an escape wherever it falls in a
    /// word, beside ASCII and beside the bytes of multi-byte characters, and nothing else.
    #[test]
    fn the_word_scan_escapes_every_byte_at_every_offset() {
        let special: Vec<char> = (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '\u{7f}', ' ', '/', '!', '#', '[', ']', '~'])
            .collect();
        for fill in ["0", "9", "é", "漢", "🙂", "a\u{80}"] {
            for offset in 0..20 {
                for &c in &special {
                    let mut s = fill.repeat(offset);
                    s.push(c);
                    s.push_str(&fill.repeat(20 - offset));
                    assert_eq!(serde_json::to_string(&s).unwrap(), quoted(&s), "{s:?}");
                }
            }
        }
        for word in [0u64, u64::MAX, 0x2020_2020_2020_2020, 0x8080_8080_8080_8080] {
            let bytes = word.to_le_bytes();
            let expected = bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
            assert_eq!(needs_escape(word), expected, "{word:#x}");
        }
        // Every single byte value in every lane of a word of digits.
        for b in 0..=255u8 {
            for lane in 0..8 {
                let mut bytes = *b"01234567";
                bytes[lane] = b;
                let expected = b < 0x20 || b == b'"' || b == b'\\';
                assert_eq!(
                    needs_escape(u64::from_le_bytes(bytes)),
                    expected,
                    "{b:#x} at {lane}"
                );
            }
        }
    }

    #[test]
    fn escapes_like_json_stringify() {
        assert_eq!(quoted("a\"b\\c/é\n\u{1}"), "\"a\\\"b\\\\c/é\\n\\u0001\"");
        let parsed: String = serde_json::from_str(&quoted("x\u{7f}\u{2028}")).unwrap();
        assert_eq!(parsed, "x\u{7f}\u{2028}");
    }
}
