//! Text (`text`): CHARS, JOIN, TRIM, TOKENIZE, NUM and STR (docs/words/text.md).
//!
//! Strings are sequences of Unicode scalar values, so every Word here works on
//! `char`s, never bytes or grapheme clusters. NUM reads exactly the source numeric
//! grammar and limits (one code path with the parser), and STR writes only texts
//! that NUM reads back to the same value — which is why an algebraic Number has no
//! text. The JSON Words of the same family live in [`crate::json`].

use crate::support::{base, describe, string_operand, vector_operand};
use ajisai_core::compile::number_value_metered;
use ajisai_core::limits::{exceeded, grow, Limit};
use ajisai_core::number::Number;
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::price::{self, text_units, GENERATED_ELEMENT};
use ajisai_core::value::Value;
use ajisai_core::word::{ex, Family, FamilyRegistration, Flow, NilPolicy, Tier, WordSpec};
use ajisai_core::{Ctx, Halt, Meter};

/// The least memory one element of CHARS's result takes: its slot.
const CHAR_ELEMENT_BYTES: u64 = std::mem::size_of::<Value>() as u64;

fn chars(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let operand = ctx.peek(0).clone();
    let s = string_operand(
        "CHARS",
        "operand (a one-element Vector holding a String is not one)",
        &operand,
    )?;
    // Reading the text, then one element built a character
    // (docs/reference/pricing-and-limits.md#text). A Vector the host could not hold is
    // refused before it is built (the host's memoryBytes, never a language limit).
    ctx.charge_collection(text_units(s.len() as u64))?;
    let count = s.chars().count();
    ctx.charge_collection((count as u64).saturating_mul(GENERATED_ELEMENT))?;
    let meter = ctx.meter();
    meter.reserve((count as u64).saturating_mul(CHAR_ELEMENT_BYTES))?;
    // ASCII characters share one String each, so a long text costs one slot a character.
    let ascii: Vec<Value> = (0u8..128)
        .map(|b| Value::str((b as char).to_string()))
        .collect();
    let mut out: Vec<Value> = Vec::with_capacity(count);
    for c in s.chars() {
        meter.tick(1)?;
        out.push(if c.is_ascii() {
            ascii[c as usize].clone()
        } else {
            Value::str(c.to_string())
        });
    }
    ctx.consume_and_push(1, Value::vector(out))
}

/// The character an integer element of JOIN denotes, or why it denotes none.
fn code_point(n: &Number) -> Result<char, LangError> {
    let c = n
        .as_int()
        .and_then(|i| i.to_u64())
        .and_then(|u| u32::try_from(u).ok())
        .and_then(char::from_u32);
    c.ok_or_else(|| {
        err::invalid_argument(format!(
            "JOIN takes Numbers only as integer code points of Unicode scalar values (0–0x10FFFF, not 0xD800–0xDFFF), got {n}"
        ))
    })
}

fn join(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand("JOIN", "of Strings and code points", ctx.peek(0))?;
    // Domains first for every element, then values (docs/reference/errors.md#order-of-checks:
    // typeMismatch before invalidArgument).
    if let Some((i, bad)) = v
        .items()
        .iter()
        .enumerate()
        .find(|(_, e)| !matches!(e, Value::Str(_) | Value::Number(_)))
    {
        return Err(err::type_mismatch(format!(
            "JOIN joins Strings and integer code points, but element {i} is {}",
            describe(bad)
        ))
        .into());
    }
    // Values next (step 4 of docs/reference/errors.md#order-of-checks), then the size of the result
    // (step 5): repeated JOINs double a String per step, so its length is checked before it is
    // built, as the Vector of characters CHARS would make of it (docs/decisions.md). Reading
    // the elements' text (to count its characters and to copy it) is paid first: one unit an
    // element and ⌈bytes/8⌉ (docs/reference/pricing-and-limits.md#text).
    let mut bytes = 0usize;
    for e in v.items() {
        match e {
            Value::Str(s) => bytes = bytes.saturating_add(s.len()),
            Value::Number(n) => bytes += code_point(n)?.len_utf8(),
            _ => {}
        }
    }
    let n = v.len() as u64;
    ctx.charge_collection(n.saturating_add(text_units(bytes as u64)))?;
    let v = vector_operand("JOIN", "of Strings and code points", ctx.peek(0))?.clone();
    // A character takes at least one byte: count characters only when the bytes could
    // exceed the ceiling.
    let ceiling = ctx.profile().materialized_elements;
    if bytes as u64 > ceiling {
        let meter = ctx.meter();
        let mut chars = 0u64;
        for e in v.items() {
            meter.tick(1)?;
            chars += match e {
                Value::Str(s) => {
                    meter.tick(text_units(s.len() as u64))?;
                    s.chars().count() as u64
                }
                _ => 1,
            };
        }
        if chars > ceiling {
            return Err(exceeded(Limit::MaterializedElements, chars, ceiling).into());
        }
    }
    let meter = ctx.meter();
    meter.reserve(bytes as u64)?;
    let mut out = String::with_capacity(bytes);
    for e in v.items() {
        meter.tick(1)?;
        match e {
            Value::Str(s) => out.push_str(s),
            Value::Number(n) => out.push(code_point(n)?),
            _ => {}
        }
    }
    ctx.consume_and_push(1, Value::str(out))
}

fn trim(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let bytes = string_operand("TRIM", "operand", ctx.peek(0))?.len() as u64;
    // Reading the text from both ends, and copying what stays.
    ctx.charge_collection(text_units(bytes))?;
    let s = string_operand("TRIM", "operand", ctx.peek(0))?;
    // `char::is_whitespace` is exactly the Unicode `White_Space` property.
    let t = s.trim_matches(char::is_whitespace);
    let result = if t.len() == s.len() {
        ctx.peek(0).clone()
    } else {
        Value::str(t)
    };
    ctx.consume_and_push(1, result)
}

fn tokenize(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let (text, separator) = (ctx.peek(1).clone(), ctx.peek(0).clone());
    let s = string_operand("TOKENIZE", "to split (below the separator)", &text)?;
    let sep = string_operand("TOKENIZE", "separator (on top)", &separator)?;
    if sep.is_empty() {
        return Err(err::invalid_argument(
            "TOKENIZE needs a non-empty separator; use CHARS to split into characters",
        )
        .into());
    }
    // Reading the text to count the pieces, then one element built a piece and the text
    // copied into them (docs/reference/pricing-and-limits.md#text): refused before it is built
    // when the host could not hold even the slots.
    let read = text_units(s.len() as u64);
    ctx.charge_collection(read)?;
    let count = s.matches(sep).count() as u64 + 1;
    ctx.charge_collection(count.saturating_mul(GENERATED_ELEMENT).saturating_add(read))?;
    let meter = ctx.meter();
    meter.reserve(count.saturating_mul(CHAR_ELEMENT_BYTES))?;
    let mut pieces: Vec<Value> =
        Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(1 << 20));
    for piece in s.split(sep) {
        meter.tick(1 + text_units(piece.len() as u64))?;
        pieces.push(Value::str(piece));
    }
    ctx.consume_and_push(2, Value::vector(pieces))
}

fn num(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let result = match ctx.peek(0).clone() {
        Value::Number(n) => Value::Number(n),
        Value::Str(s) => match number_value_metered(&s, ctx.meter())? {
            Some(n) => Value::Number(n),
            None => Value::Nil(NilReason::InvalidEncoding),
        },
        other => {
            return Err(err::type_mismatch(format!(
                "NUM parses a String (or returns a Number unchanged), got {}",
                describe(&other)
            ))
            .into())
        }
    };
    ctx.consume_and_push(1, result)
}

/// Append the text of a non-Vector value (STR's table) to `out`; false when it has none
/// (an algebraic Number). A wide integer's digits are converted a piece at a time,
/// ticking `meter` between pieces (their price was charged up front).
fn write_leaf_text(v: &Value, out: &mut String, meter: &Meter) -> Result<bool, Halt> {
    let text = match v {
        Value::Number(n) => {
            let Some(r) = n.as_rat() else {
                return Ok(false);
            };
            let mut tick = |units| meter.tick(units);
            r.numer().write_decimal_polled(out, &mut tick)?;
            if !r.denom().is_one() {
                out.push('/');
                r.denom().write_decimal_polled(out, &mut tick)?;
            }
            return Ok(true);
        }
        Value::Bool(true) => "TRUE",
        Value::Bool(false) => "FALSE",
        Value::Str(s) => s,
        Value::Nil(_) => "NIL",
        Value::Block(_) => "<code>",
        Value::Vector(_) => return Ok(false),
    };
    meter.tick(text_units(text.len() as u64))?;
    grow(out, text.len());
    out.push_str(text);
    Ok(true)
}

/// STR of a value: a Vector's leaves depth-first, joined by single spaces; `None` when a
/// leaf has no text. Walked with an explicit stack (a Vector built at run time can nest
/// millions deep); the walk was paid up front and ticks as it goes.
fn value_text(ctx: &mut Ctx<'_>, v: &Value) -> Result<Option<String>, Halt> {
    // Every leaf shows at least one character and a space, and a wide integer at least
    // nine digits a limb: a text the host could not hold is refused before any of it is
    // written.
    let w = v.weight();
    ctx.meter().reserve(
        w.leaves
            .saturating_mul(2)
            .saturating_add(w.big_limbs.saturating_mul(9)),
    )?;
    let mut out = String::new();
    let mut first = true;
    let mut work: Vec<&Value> = vec![v];
    while let Some(x) = work.pop() {
        ctx.meter().tick(1)?;
        match x {
            Value::Vector(items) => work.extend(items.items().iter().rev()),
            leaf => {
                if !first {
                    grow(&mut out, 1);
                    out.push(' ');
                }
                first = false;
                if !write_leaf_text(leaf, &mut out, ctx.meter())? {
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some(out))
}

fn str_word(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    // A NIL operand was passed through by the machine (passthroughThenProject).
    let v = ctx.peek(0).clone();
    if let Value::Str(_) = v {
        return ctx.consume_and_push(1, v);
    }
    // The walk and the decimal digits, up front from the weights
    // (docs/reference/pricing-and-limits.md#text).
    let w = v.weight();
    ctx.charge_collection(price::written(&w))?;
    if w.decimal_price > 0 {
        ctx.charge_numeric(w.decimal_price)?;
    }
    let text = value_text(ctx, &v)?;
    let result = match text {
        Some(t) => Value::str(t),
        None => Value::Nil(NilReason::InvalidEncoding),
    };
    ctx.consume_and_push(1, result)
}

/// `CHARS`
pub const CHARS: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Split a String into a Vector of one-character Strings, one per Unicode scalar value.",
    syntax: "s CHARS",
    stack_effect: "( s -- v )",
    examples: &[
        ex("'hi' CHARS", "[ 'h' 'i' ]"),
        ex("'' CHARS", "[ ]"),
        ex("'héllo' CHARS", "[ 'h' 'é' 'l' 'l' 'o' ]"),
        ex("5 CHARS", "error:typeMismatch"),
    ],
    rules: r#"`s CHARS` ( s -- v ). A Vector of one-character Strings, one per scalar value (a combining mark
is its own element). ERROR: `typeMismatch` for a non-String (NIL included). KEEP: keeps s."#,
    ..base("CHARS", Family::Text, 1, 1, chars)
};

/// `JOIN`
pub const JOIN: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument],
    summary: "Concatenate a Vector of Strings and integer code points into one String.",
    syntax: "v JOIN",
    stack_effect: "( v -- s )",
    examples: &[
        ex("[ 'h' 'i' ] JOIN", "'hi'"),
        ex("[ 'ab' 'cd' ] JOIN", "'abcd'"),
        ex("[ 72 105 ] JOIN", "'Hi'"),
        ex("[ 'a' TRUE ] JOIN", "error:typeMismatch"),
    ],
    rules: r#"`v JOIN` ( v -- s ). Concatenates the elements of v: a String element contributes its content;
an integer element contributes the character with that code point (a Unicode scalar value:
0–0x10FFFF excluding 0xD800–0xDFFF). `[ ]` gives `''`. ERROR: `typeMismatch` (v not a Vector,
NIL; an element that is a Boolean, NIL, Vector or CodeBlock); `invalidArgument` (a Number
element that is not a valid scalar value); `resourceLimitExceeded` (`materializedElements`)
when the result would hold more characters than the limit, decided after those checks and
before the String is built, operand left in place. KEEP: keeps v."#,
    ..base("JOIN", Family::Text, 1, 1, join)
};

/// `TRIM`
pub const TRIM: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Remove leading and trailing Unicode whitespace from a String.",
    syntax: "s TRIM",
    stack_effect: "( s -- t )",
    examples: &[
        ex("'  hi  ' TRIM", "'hi'"),
        ex("'\n hi\t\n' TRIM", "'hi'"),
        ex("'' TRIM", "''"),
        ex("5 TRIM", "error:typeMismatch"),
    ],
    rules: r#"`s TRIM` ( s -- t ). s without leading and trailing whitespace (Unicode `White_Space`). ERROR:
`typeMismatch` for a non-String. KEEP: keeps s."#,
    ..base("TRIM", Family::Text, 1, 1, trim)
};

/// `TOKENIZE`
pub const TOKENIZE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument],
    summary: "Split a String at every non-overlapping occurrence of a separator, left to right, keeping empty pieces.",
    syntax: "s sep TOKENIZE",
    stack_effect: "( s sep -- v )",
    examples: &[
        ex("'a,b,c' ',' TOKENIZE", "[ 'a' 'b' 'c' ]"),
        ex("'a,,b' ',' TOKENIZE", "[ 'a' '' 'b' ]"),
        ex("',a,' ',' TOKENIZE", "[ '' 'a' '' ]"),
        ex("'abc' '' TOKENIZE", "error:invalidArgument"),
    ],
    rules: r#"`s sep TOKENIZE` ( s sep -- v ). Splits s at every non-overlapping occurrence of the separator,
scanning left to right; empty pieces are kept, so the result has (number of occurrences + 1)
Strings (`''` gives `[ '' ]`). ERROR: `typeMismatch` (s or sep not a String); `invalidArgument`
(sep empty). KEEP: keeps s and sep."#,
    ..base("TOKENIZE", Family::Text, 2, 1, tokenize)
};

/// `NUM`
pub const NUM: WordSpec = WordSpec {
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::InvalidEncoding],
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Parse a String that is exactly one numeric literal into its exact Number; a Number is returned unchanged.",
    syntax: "s NUM",
    stack_effect: "( s -- x )",
    examples: &[
        ex("'42' NUM", "42/1"),
        ex("'-1/2' NUM", "-1/2"),
        ex("'1e3' NUM", "1000/1"),
        ex("' 42' NUM", "NIL (nil:invalidEncoding)"),
    ],
    rules: r#"`s NUM` ( s -- x ). Parses s with exactly the numeric grammar of source literals ([number
literals](../reference/lexical.md#number-literals)): the whole String must be one numeric
lexeme, with no surrounding whitespace; the value is exact. A Number operand is returned
unchanged. Projection: s is not a numeric lexeme (or a fraction with zero denominator) →
`NIL(invalidEncoding)`. ERROR: `typeMismatch` for any other domain (Boolean, Vector — even `[
'42' ]` —, CodeBlock, NIL); `resourceLimitExceeded` when s is a numeric lexeme with more digits
than `numericLiteralDigits` or whose value is wider than `bigintBits`, operand left in place.
KEEP: keeps s."#,
    ..base("NUM", Family::Text, 1, 1, num)
};

/// `STR`
pub const STR: WordSpec = WordSpec {
    nil_policy: NilPolicy::PassthroughThenProject,
    projections: &[NilReason::InvalidEncoding],
    summary: "The text of a value: exact Numbers as NUM reads them back, Vectors as their leaves joined by spaces.",
    syntax: "x STR",
    stack_effect: "( x -- s )",
    examples: &[
        ex("42 STR", "'42'"),
        ex("0.5 STR", "'1/2'"),
        ex("-1/2 STR", "'-1/2'"),
        ex("[ [ 1 2 ] 'a b' TRUE NIL ] STR", "'1 2 a b TRUE NIL'"),
    ],
    rules: r#"`x STR` ( x -- s ). The text of a value:

| x | text |
|---|---|
| integer | decimal digits, `-` if negative: `42`, `-3` |
| other rational | `n/d`: `1/3`, `-1/2` |
| algebraic | none: `NIL(invalidEncoding)` (no lexeme denotes it; use `QUANTIZE` for an approximation) |
| Boolean | `TRUE` / `FALSE` |
| String | itself |
| CodeBlock | `<code>` |
| Vector | the texts of all its leaves (depth-first, left to right; NIL leaves as `NIL`) joined by single spaces; empty sub-Vectors contribute nothing; `NIL(invalidEncoding)` if any leaf is algebraic |

`'x' NUM STR` round-trips integers and fractions (`STR` never writes `n/1`). NIL: a NIL operand
passes through. ERROR: none besides underflow. KEEP: keeps x."#,
    ..base("STR", Family::Text, 1, 1, str_word)
};

inventory::submit! {
    FamilyRegistration {
        module: "text",
        words: &[CHARS, JOIN, TRIM, TOKENIZE, NUM, STR],
        family_rules: &[
            (
                Family::Text,
                r#"Strings are sequences of Unicode scalar values ([Strings](../reference/domains.md#string)).
Text Words require a String where they say so; a one-element Vector holding a String is **not**
accepted."#,
            ),
        ],
    }
}
