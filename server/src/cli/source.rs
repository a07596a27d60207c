//! Reading program text: a file or stdin, as UTF-8 (MCP-94; README.md).

use super::args::Input;
use std::io::Read;
use std::path::Path;

/// An I/O failure while reading a source (exit code 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError(pub String);

/// Decode bytes as UTF-8, naming the first invalid byte's offset.
pub fn decode(bytes: Vec<u8>, label: &str) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        ReadError(format!(
            "{label}: the source is not valid UTF-8 (invalid byte at offset {}); Ajisai reads UTF-8 text only",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Read a whole file as UTF-8 source.
pub fn read_file(path: &Path) -> Result<String, ReadError> {
    let label = path.display().to_string();
    if path.is_dir() {
        return Err(ReadError(format!(
            "cannot read '{label}': it is a directory"
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| ReadError(format!("cannot read '{label}': {e}")))?;
    decode(bytes, &label)
}

/// Read the source `input` names; stdin is read from `stdin` to its end.
pub fn read(input: &Input, stdin: &mut dyn Read) -> Result<String, ReadError> {
    match input {
        Input::File(path) => read_file(path),
        Input::Stdin => {
            let mut bytes = Vec::new();
            stdin
                .read_to_end(&mut bytes)
                .map_err(|e| ReadError(format!("cannot read <stdin>: {e}")))?;
            decode(bytes, "<stdin>")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_names_the_offset() {
        let e = decode(vec![b'1', b' ', 0xff], "x.ajisai").unwrap_err();
        assert_eq!(e.0, "x.ajisai: the source is not valid UTF-8 (invalid byte at offset 2); Ajisai reads UTF-8 text only");
    }

    #[test]
    fn missing_file_is_a_read_error() {
        let e = read_file(Path::new("/nonexistent/ajisai/source")).unwrap_err();
        assert!(
            e.0.starts_with("cannot read '/nonexistent/ajisai/source': "),
            "{}",
            e.0
        );
    }
}
