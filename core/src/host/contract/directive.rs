//! The `#:contract` directive (MCP-66; docs/contracts.md#the-directive): reading one line.

use crate::lexer::DirectiveLine;
use crate::word::Field;

/// The largest count a directive may declare.
pub const MAX_DECLARED_COUNT: u32 = 65_535;

/// The keys a well-formed directive declares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// `inputs=N`.
    pub inputs: Option<u32>,
    /// `outputs=N`.
    pub outputs: Option<u32>,
    /// `field=closed|extends`.
    pub field: Option<Field>,
}

/// A `#:contract` line as written (before its NAME is matched against the program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// 1-based line of the directive.
    pub line: u32,
    /// The NAME term as written, if any.
    pub name: Option<String>,
    /// The declared keys, or the first problem of the terms.
    pub keys: Result<Declared, String>,
}

/// Whether a `#:` line is a contract directive: `contract` then whitespace or the end.
fn contract_terms(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("contract")?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        Some(rest)
    } else {
        None
    }
}

fn parse_count(key: &str, value: &str) -> Result<u32, String> {
    let ok = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    match value.parse::<u32>() {
        Ok(n) if ok && n <= MAX_DECLARED_COUNT => Ok(n),
        _ => Err(format!(
            "{key}={value} is not a decimal integer from 0 to {MAX_DECLARED_COUNT}"
        )),
    }
}

/// Parse one `#:` line; `None` when it is not a `#:contract` directive.
pub fn parse_directive(d: &DirectiveLine) -> Option<Directive> {
    let terms = contract_terms(&d.text)?;
    let mut it = terms.split_whitespace().peekable();
    let name = match it.peek() {
        Some(t) if !t.contains('=') => it.next().map(str::to_string),
        _ => None,
    };
    let mut declared = Declared::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut keys: Result<(), String> = Ok(());
    for term in it {
        let Some((key, value)) = term.split_once('=') else {
            keys = Err(format!(
                "unknown term '{term}'; write key=value with the keys inputs, outputs and field"
            ));
            break;
        };
        if !matches!(key, "inputs" | "outputs" | "field") {
            keys = Err(format!(
                "unknown key in '{term}'; the keys are inputs, outputs and field"
            ));
            break;
        }
        if seen.contains(&key) {
            keys = Err(format!("{key} is declared twice"));
            break;
        }
        seen.push(key);
        let parsed: Result<(), String> = match key {
            "inputs" => parse_count(key, value).map(|n| declared.inputs = Some(n)),
            "outputs" => parse_count(key, value).map(|n| declared.outputs = Some(n)),
            _ => match value {
                "closed" => {
                    declared.field = Some(Field::Closed);
                    Ok(())
                }
                "extends" => {
                    declared.field = Some(Field::Extends);
                    Ok(())
                }
                _ => Err(format!(
                    "field={value} must be field=closed or field=extends"
                )),
            },
        };
        if let Err(e) = parsed {
            keys = Err(e);
            break;
        }
    }
    if keys.is_ok() && seen.is_empty() {
        keys = Err("declares no key; add inputs=N, outputs=N or field=closed|extends".to_string());
    }
    Some(Directive {
        line: d.line,
        name,
        keys: keys.map(|()| declared),
    })
}
