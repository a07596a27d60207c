//! Operand helpers shared by the families: integer operands, domain names in
//! messages, and the spec skeleton most Words start from.

use ajisai_core::number::Int;
use ajisai_core::outcome::{err, LangError};
use ajisai_core::value::Value;
use ajisai_core::word::Flow;
use ajisai_core::word::{Family, WordSpec};
use ajisai_core::{Ctx, Halt};

/// A spec with the common defaults (`eat`, `pure`, `closed`, kernel); families
/// override what differs with struct-update syntax.
pub const fn base(
    name: &'static str,
    family: Family,
    inputs: u16,
    outputs: u16,
    exec: fn(&mut Ctx<'_>) -> Result<Flow, Halt>,
) -> WordSpec {
    WordSpec::basic(name, family, inputs, outputs, exec)
}

/// How a value is named in messages: its domain, with a short rendering for scalars.
pub fn describe(v: &Value) -> String {
    v.describe()
}

/// An integer operand (docs/words/index.md#integer-operands): an integer Number, or a
/// one-element Vector wrapping one (at any depth). A non-integer Number is
/// `invalidArgument`; any other domain or Vector shape is `typeMismatch`.
pub fn integer_operand(word: &str, what: &str, v: &Value) -> Result<Int, LangError> {
    let mut cur = v;
    loop {
        match cur {
            Value::Number(n) => {
                return match n.as_int() {
                    Some(i) => Ok(i.clone()),
                    None => Err(err::invalid_argument(format!("{word} needs an integer {what}, got {}", describe(v)))),
                };
            }
            Value::Vector(items) if items.len() == 1 => cur = &items.items()[0],
            _ => {
                return Err(err::type_mismatch(format!(
                    "{word} needs an integer {what} (a Number or a one-element Vector holding one), got {}",
                    describe(v)
                )))
            }
        }
    }
}

/// The String operand of `word`, or `typeMismatch`.
pub fn string_operand<'v>(word: &str, what: &str, v: &'v Value) -> Result<&'v str, LangError> {
    v.as_str().ok_or_else(|| {
        err::type_mismatch(format!("{word} needs a String {what}, got {}", describe(v)))
    })
}

/// A Vector operand of `word`, or `typeMismatch`.
pub fn vector_operand<'v>(
    word: &str,
    what: &str,
    v: &'v Value,
) -> Result<&'v ajisai_core::Vector, LangError> {
    v.as_vector().ok_or_else(|| {
        err::type_mismatch(format!("{word} needs a Vector {what}, got {}", describe(v)))
    })
}
