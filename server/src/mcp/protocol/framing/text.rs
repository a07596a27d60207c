//! The text of a message before it is read: a raw line or body without its trailing `\r`
//! or byte order mark, and lone-surrogate escapes (`"\ud800"`, as Python's `json.dumps`
//! writes them) read as U+FFFD.

use std::borrow::Cow;

/// The message text of a raw line or body: without a trailing `\r` and a UTF-8 byte order
/// mark.
pub(super) fn message_bytes(raw: &[u8]) -> &[u8] {
    let bytes = raw.strip_suffix(b"\r").unwrap_or(raw);
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// `\uD800`–`\uDFFF` escapes that do not form a valid surrogate pair, inside strings,
/// become `\uFFFD` (the same six bytes); everything else is unchanged.
pub(super) fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    if !text.contains("\\u") {
        return Cow::Borrowed(text);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !in_string {
            if c == b'"' {
                in_string = true;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if b.get(i + 1) == Some(&b'u') => {
                let unit = hex4(b, i + 2);
                match unit {
                    Some(hi @ 0xD800..=0xDBFF) => {
                        let lo = (b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u'))
                            .then(|| hex4(b, i + 8))
                            .flatten();
                        if matches!(lo, Some(0xDC00..=0xDFFF)) {
                            let _ = hi;
                            i += 12;
                        } else {
                            out.get_or_insert_with(|| b.to_vec())[i..i + 6]
                                .copy_from_slice(b"\\uFFFD");
                            i += 6;
                        }
                    }
                    Some(0xDC00..=0xDFFF) => {
                        out.get_or_insert_with(|| b.to_vec())[i..i + 6].copy_from_slice(b"\\uFFFD");
                        i += 6;
                    }
                    _ => i += 2,
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    match out {
        // Only ASCII escapes were replaced by ASCII, so the text stays UTF-8.
        Some(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())),
        None => Cow::Borrowed(text),
    }
}

/// The value of four hex digits at `b[at..at + 4]`.
pub(super) fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}
