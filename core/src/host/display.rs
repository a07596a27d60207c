//! Display of values (docs/reference/domains.md) and of `PRINT` lines (docs/words/output.md).
//!
//! Walks are iterative: a value built at run time can nest far deeper than any
//! native stack could recurse.

use crate::code::write_block_polled;
use crate::limits::{grow, Halt};
use crate::value::Value;

/// The display of a value as one stack slot.
pub fn display(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

/// A whole stack on one line, as examples and reports write it: the slots' displays
/// bottom to top joined by ` | `, or `(empty)`.
pub fn stack_line(stack: &[Value]) -> String {
    join_slots(stack.iter().map(display))
}

/// The one stack-line layout: slot texts bottom to top joined by ` | `, or `(empty)`
/// when there are none (hosts that bound or poll the displays pass their own texts).
pub fn join_slots(slots: impl IntoIterator<Item = String>) -> String {
    let parts: Vec<String> = slots.into_iter().collect();
    if parts.is_empty() {
        "(empty)".to_string()
    } else {
        parts.join(" | ")
    }
}

/// The line `PRINT` emits: a top-level String prints raw, everything else its display.
pub fn print_line(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        _ => display(v),
    }
}

enum Task<'a> {
    Value(&'a Value),
    Text(&'static str),
}

/// Append the display of `v` to `out`.
pub fn write_value(v: &Value, out: &mut String) {
    let _ = write_value_polled(v, out, &mut |_| Ok(()));
}

/// The display of `v`, reporting its work to `tick` as it goes (one unit a part, and
/// ⌈bytes/8⌉ for each text copied or number written; a meter's [`crate::limits::Meter::tick`])
/// so a host can stop a display that would not end (a Vector sharing sub-Vectors can have
/// 2⁴⁰ leaves), and growing the text by bounded steps ([`grow`]).
pub fn display_polled(
    v: &Value,
    tick: &mut dyn FnMut(u64) -> Result<(), Halt>,
) -> Result<String, Halt> {
    let mut out = String::new();
    write_value_polled(v, &mut out, tick)?;
    Ok(out)
}

/// The least number of bytes the display of `v` takes: each leaf shows at least one
/// character and a separator, each Vector its brackets. Read from cached statistics,
/// so a host can refuse a display it could not hold before writing any of it.
pub fn display_lower_bound(v: &Value) -> u64 {
    match v {
        Value::Vector(items) => items
            .leaf_stats()
            .leaves
            .saturating_mul(2)
            .saturating_add(3),
        _ => 1,
    }
}

/// [`write_value`], reporting every part and every text written to `tick` (see
/// [`display_polled`]).
pub fn write_value_polled(
    v: &Value,
    out: &mut String,
    tick: &mut dyn FnMut(u64) -> Result<(), Halt>,
) -> Result<(), Halt> {
    let mut tasks: Vec<Task<'_>> = vec![Task::Value(v)];
    while let Some(t) = tasks.pop() {
        tick(1)?;
        grow(out, 64);
        match t {
            Task::Text(s) => out.push_str(s),
            Task::Value(v) => match v {
                Value::Number(n) => {
                    let before = out.len();
                    n.write_polled(out, tick)?;
                    tick(crate::price::text_units((out.len() - before) as u64))?;
                }
                Value::Bool(true) => out.push_str("TRUE"),
                Value::Bool(false) => out.push_str("FALSE"),
                Value::Str(s) => {
                    tick(crate::price::text_units(s.len() as u64))?;
                    grow(out, s.len() + 2);
                    out.push('\'');
                    out.push_str(s);
                    out.push('\'');
                }
                Value::Nil(_) => out.push_str("NIL"),
                Value::Block(b) => {
                    tick(crate::price::text_units(b.written_len()))?;
                    write_block_polled(b, out, tick)?
                }
                Value::Vector(items) => {
                    out.push('[');
                    tasks.push(Task::Text(" ]"));
                    for item in items.items().iter().rev() {
                        tasks.push(Task::Value(item));
                        tasks.push(Task::Text(" "));
                    }
                }
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::NilReason;

    #[test]
    fn vectors_always_use_brackets() {
        let v = Value::vector(vec![
            Value::vector(vec![]),
            Value::vector(vec![
                Value::str("x"),
                Value::Bool(true),
                Value::Nil(NilReason::Literal),
            ]),
        ]);
        assert_eq!(display(&v), "[ [ ] [ 'x' TRUE NIL ] ]");
    }

    #[test]
    fn print_strips_quotes_only_at_top_level() {
        assert_eq!(print_line(&Value::str("TEST")), "TEST");
        assert_eq!(print_line(&Value::vector(vec![Value::str("a")])), "[ 'a' ]");
    }

    #[test]
    fn deep_vectors_display_without_recursion() {
        let mut v = Value::vector(vec![]);
        for _ in 0..200_000 {
            v = Value::vector(vec![v]);
        }
        let s = display(&v);
        assert_eq!(s.len(), 200_001 * 4 - 1);
        drop(v);
    }
}
