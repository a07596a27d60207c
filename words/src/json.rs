//! JSON (`text` family): JSON-DECODE and JSON-ENCODE [seed].
//!
//! Decoding is a strict RFC 8259 reader written for this purpose: numbers become
//! the exact rationals they denote through the same lexeme builder as source
//! literals (no floating-point step, same `numericLiteralDigits` / `bigintBits`
//! refusals), and the reader is a loop over an explicit container stack, so a text
//! of millions of `[` is refused by `nestingDepth` (or, without that limit, built)
//! without touching the native stack. The text is read once from the left and the
//! first problem met — invalid syntax, or a limit — decides the outcome.
//!
//! Encoding writes compact JSON, numbers as exact decimals only; a value with no
//! exact JSON form encodes to `NIL(invalidEncoding)` as a whole.

use crate::lifting::Settle;
use crate::support::{base, describe};
use ajisai_core::json::write_str;
use ajisai_core::limits::{exceeded, grow, grow_vec, Meter};
use ajisai_core::number::literal::{build_scaled, BuildError};
use ajisai_core::number::{Int, Number};
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::price::{self, text_units, GENERATED_ELEMENT};
use ajisai_core::value::{LeafKinds, Pay, Value};
use ajisai_core::word::{ex, Family, FamilyRegistration, Flow, NilPolicy, Tier, WordSpec};
use ajisai_core::{Ctx, Halt, Limit, Profile};
use std::sync::Arc;

/// Why a text did not decode.
#[derive(Debug)]
pub enum DecodeError {
    /// Not one valid JSON text (`NIL(invalidEncoding)`); the byte offset and what was wrong.
    Invalid(usize, &'static str),
    /// A limit refused the text (`resourceLimitExceeded`).
    Limit(LangError),
    /// The host stopped the run while the text was read (deadline, memory).
    Halted(Halt),
}

/// A container being filled.
enum Open {
    Array(Vec<Value>),
    /// An object's members so far and the key of the member whose value is being read.
    Object(Vec<Value>, Arc<str>),
}

/// The reader: the text, a cursor, and the limits that apply to it.
struct Reader<'t> {
    b: &'t [u8],
    text: &'t str,
    i: usize,
    max_depth: u64,
    max_digits: u64,
    max_bits: u64,
}

fn invalid<T>(at: usize, what: &'static str) -> Result<T, DecodeError> {
    Err(DecodeError::Invalid(at, what))
}

impl<'t> Reader<'t> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Refuse opening a level that would make the value deeper than `nestingDepth`.
    fn open_level(&self, depth: &mut u64) -> Result<(), DecodeError> {
        *depth += 1;
        if *depth > self.max_depth {
            return Err(DecodeError::Limit(exceeded(
                Limit::NestingDepth,
                *depth,
                self.max_depth,
            )));
        }
        Ok(())
    }

    /// At an object member: open its pair level, then read `"key" :`.
    fn member_key(&mut self, depth: &mut u64) -> Result<Arc<str>, DecodeError> {
        if self.peek() != Some(b'"') {
            return invalid(self.i, "an object member must start with a string key");
        }
        self.open_level(depth)?;
        let key = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return invalid(self.i, "expected ':' after an object key");
        }
        self.i += 1;
        Ok(key)
    }

    fn hex4(&mut self) -> Result<u32, DecodeError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return invalid(self.i, "\\u must be followed by four hex digits"),
            };
            v = v * 16 + u32::from(d);
            self.i += 1;
        }
        Ok(v)
    }

    /// A string starting at the opening quote.
    fn string(&mut self) -> Result<Arc<str>, DecodeError> {
        self.i += 1;
        let mut out = String::new();
        let mut run = self.i;
        loop {
            match self.peek() {
                None => return invalid(self.i, "unterminated string"),
                Some(b'"') => {
                    out.push_str(&self.text[run..self.i]);
                    self.i += 1;
                    return Ok(out.into());
                }
                Some(c) if c < 0x20 => {
                    return invalid(self.i, "unescaped control character in a string")
                }
                Some(b'\\') => {
                    out.push_str(&self.text[run..self.i]);
                    let at = self.i;
                    self.i += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let hi = self.hex4()?;
                            let cp = match hi {
                                0xD800..=0xDBFF => {
                                    if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                                        return invalid(at, "unpaired high surrogate escape");
                                    }
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..=0xDFFF).contains(&lo) {
                                        return invalid(at, "unpaired high surrogate escape");
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                }
                                0xDC00..=0xDFFF => {
                                    return invalid(at, "unpaired low surrogate escape")
                                }
                                v => v,
                            };
                            // Every value reaching here is a scalar value.
                            let Some(c) = char::from_u32(cp) else {
                                return invalid(at, "invalid \\u escape");
                            };
                            out.push(c);
                            run = self.i;
                            continue;
                        }
                        _ => return invalid(at, "invalid escape sequence"),
                    };
                    out.push(c);
                    self.i += 1;
                    run = self.i;
                }
                Some(_) => self.i += 1,
            }
        }
    }

    fn digits(&mut self) -> &'t str {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        &self.text[start..self.i]
    }

    /// A number per RFC 8259's grammar, checked against the lexeme limits and built exactly.
    fn number(&mut self) -> Result<Value, DecodeError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int = match self.peek() {
            Some(b'0') => {
                self.i += 1;
                "0"
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return invalid(self.i, "a number needs a digit here"),
        };
        let mut frac = "";
        if self.peek() == Some(b'.') {
            self.i += 1;
            frac = self.digits();
            if frac.is_empty() {
                return invalid(self.i, "a decimal point must be followed by digits");
            }
        }
        let mut exp = "";
        let mut exp_negative = false;
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            match self.peek() {
                Some(b'-') => {
                    exp_negative = true;
                    self.i += 1;
                }
                Some(b'+') => self.i += 1,
                _ => {}
            }
            exp = self.digits();
            if exp.is_empty() {
                return invalid(self.i, "an exponent needs digits");
            }
        }
        let digits = (int.len() + frac.len() + exp.len()) as u64;
        if digits > self.max_digits {
            return Err(DecodeError::Limit(exceeded(
                Limit::NumericLiteralDigits,
                digits,
                self.max_digits,
            )));
        }
        let e = if exp.is_empty() {
            Int::ZERO
        } else {
            Int::from_decimal(exp)
        };
        let e = if exp_negative { e.neg() } else { e };
        match build_scaled(negative, int, frac, &e, self.max_bits) {
            Ok(r) => Ok(Value::Number(Number::Rat(r))),
            Err(BuildError::TooWide { observed }) => Err(DecodeError::Limit(exceeded(
                Limit::BigintBits,
                observed,
                self.max_bits,
            ))),
            // Unreachable for a decimal lexeme; treated as invalid rather than trusted.
            Err(BuildError::ZeroDenominator) => invalid(self.i, "a number with no value"),
        }
    }

    fn literal(&mut self, word: &'static [u8], v: Value) -> Result<Value, DecodeError> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(v)
        } else {
            invalid(self.i, "unknown literal (only true, false and null)")
        }
    }
}

/// Decode one JSON text (RFC 8259) into Ajisai values under `profile`'s limits, on a
/// meter of its own (tests and tools; the Word decodes on the run's meter).
pub fn decode(text: &str, profile: &Profile) -> Result<Value, DecodeError> {
    decode_metered(text, &mut Meter::new(profile.clone()))
}

/// [`decode`] through `meter` (docs/reference/pricing-and-limits.md#text): the text's read
/// is charged up front (⌈bytes/8⌉ of `collectionWork`), then each value built (17, as for
/// the generative Words) and each number's decimal conversion (its
/// [`Number::decimal_price`] in `numericWork`) as they are made.
pub fn decode_metered(text: &str, meter: &mut Meter) -> Result<Value, DecodeError> {
    meter
        .charge_collection(text_units(text.len() as u64))
        .map_err(halted)?;
    let profile = meter.profile().clone();
    let mut built = Settle::new(Pay::AsYouGo);
    let mut r = Reader {
        b: text.as_bytes(),
        text,
        i: 0,
        max_depth: profile.nesting_depth,
        max_digits: profile.numeric_literal_digits,
        max_bits: profile.bigint_bits,
    };
    let mut open: Vec<Open> = Vec::new();
    // Levels of the value currently open: each array or object, and each member's pair.
    let mut depth: u64 = 0;
    'value: loop {
        built.add(meter, GENERATED_ELEMENT).map_err(halted)?;
        r.skip_ws();
        let mut value = match r.peek() {
            None => return invalid(r.i, "expected a value"),
            Some(b'[') => {
                r.open_level(&mut depth)?;
                r.i += 1;
                r.skip_ws();
                if r.peek() == Some(b']') {
                    r.i += 1;
                    depth -= 1;
                    Value::vector(Vec::new())
                } else {
                    open.push(Open::Array(Vec::new()));
                    continue 'value;
                }
            }
            Some(b'{') => {
                r.open_level(&mut depth)?;
                r.i += 1;
                r.skip_ws();
                if r.peek() == Some(b'}') {
                    r.i += 1;
                    depth -= 1;
                    Value::vector(Vec::new())
                } else {
                    let key = r.member_key(&mut depth)?;
                    open.push(Open::Object(Vec::new(), key));
                    continue 'value;
                }
            }
            Some(b'"') => Value::Str(r.string()?),
            Some(b't') => r.literal(b"true", Value::Bool(true))?,
            Some(b'f') => r.literal(b"false", Value::Bool(false))?,
            Some(b'n') => r.literal(b"null", Value::Nil(NilReason::Literal))?,
            Some(b'-' | b'0'..=b'9') => {
                let n = r.number()?;
                if let Value::Number(x) = &n {
                    let price = x.decimal_price();
                    if price > 0 {
                        meter.charge_numeric(price).map_err(halted)?;
                    }
                }
                n
            }
            Some(_) => return invalid(r.i, "expected a value"),
        };
        // A value is complete: hand it to its container, closing containers as they end.
        loop {
            r.skip_ws();
            match open.last_mut() {
                None => {
                    if r.i != r.b.len() {
                        return invalid(r.i, "trailing content after the JSON value");
                    }
                    built.finish(meter).map_err(halted)?;
                    return Ok(value);
                }
                Some(Open::Array(items)) => {
                    items.push(value);
                    match r.peek() {
                        Some(b',') => {
                            r.i += 1;
                            continue 'value;
                        }
                        Some(b']') => {
                            r.i += 1;
                            depth -= 1;
                            let Some(Open::Array(items)) = open.pop() else {
                                unreachable!("matched an array")
                            };
                            value = Value::vector(items);
                        }
                        _ => return invalid(r.i, "expected ',' or ']' in an array"),
                    }
                }
                Some(Open::Object(items, key)) => {
                    items.push(Value::vector(vec![Value::Str(key.clone()), value]));
                    depth -= 1;
                    match r.peek() {
                        Some(b',') => {
                            r.i += 1;
                            r.skip_ws();
                            let next = r.member_key(&mut depth)?;
                            if let Some(Open::Object(_, key)) = open.last_mut() {
                                *key = next;
                            }
                            continue 'value;
                        }
                        Some(b'}') => {
                            r.i += 1;
                            depth -= 1;
                            let Some(Open::Object(items, _)) = open.pop() else {
                                unreachable!("matched an object")
                            };
                            value = Value::vector(items);
                        }
                        _ => return invalid(r.i, "expected ',' or '}' in an object"),
                    }
                }
            }
        }
    }
}

/// A halt met while decoding (a limit of the meter, or the host's interrupt).
fn halted(h: Halt) -> DecodeError {
    match h {
        Halt::Error(e) => DecodeError::Limit(e),
        other => DecodeError::Halted(other),
    }
}

fn json_decode(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let result = match ctx.peek(0) {
        nil @ Value::Nil(_) => nil.clone(),
        Value::Str(s) => {
            let s = s.clone();
            match decode_metered(&s, ctx.meter()) {
                Ok(v) => v,
                Err(DecodeError::Invalid(..)) => Value::Nil(NilReason::InvalidEncoding),
                Err(DecodeError::Limit(e)) => return Err(e.into()),
                Err(DecodeError::Halted(h)) => return Err(h),
            }
        }
        other => {
            return Err(err::type_mismatch(format!(
                "JSON-DECODE needs a String of JSON text, got {}",
                describe(other)
            ))
            .into())
        }
    };
    ctx.consume_and_push(1, result)
}

/// The exact decimal of a rational whose reduced denominator is 2^a·5^b, with the
/// fewest fraction digits; `None` for any other Number. Its digits are converted a
/// piece at a time, ticking `meter` (their price was charged before).
fn decimal(n: &Number, meter: &Meter) -> Result<Option<String>, Halt> {
    let Some(r) = n.as_rat() else {
        return Ok(None);
    };
    let mut tick = |units| meter.tick(units);
    let mut out = String::new();
    if let Some(i) = r.to_int() {
        i.write_decimal_polled(&mut out, &mut tick)?;
        return Ok(Some(out));
    }
    let d = r.denom();
    let a = d.trailing_zeros();
    tick(d.limb_count())?;
    let odd = d.div_exact(&Int::pow2(a));
    let Some(b) = power_of_five(&odd, &mut tick)? else {
        return Ok(None);
    };
    let k = a.max(b);
    tick(
        r.numer()
            .limb_count()
            .saturating_add(odd.limb_count())
            .saturating_mul(2),
    )?;
    let scaled = r.numer().abs().shl(k - a).mul(&Int::Small(5).pow(k - b));
    let mut digits = String::new();
    scaled.write_decimal_polled(&mut digits, &mut tick)?;
    let k = k as usize;
    grow(&mut out, digits.len() + k + 3);
    if r.signum() < 0 {
        out.push('-');
    }
    if digits.len() <= k {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', k - digits.len()));
        out.push_str(&digits);
    } else {
        let (int, frac) = digits.split_at(digits.len() - k);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    }
    Ok(Some(out))
}

/// floor(log₅ 2 · 2^64).
const LOG5_2_FIXED: u128 = 0x6e40_d1a4_143d_cb94;

/// `Some(b)` when `odd` (> 0) is 5^b. 5^b has ⌊b·log₂5⌋ + 1 bits, so b is ⌊bits·log₅2⌋
/// or one less (checked for every b below 20,000 and far beyond the widest integer): one
/// or two powers computed and compared, where dividing by five until a remainder showed
/// took thousands of passes over the number.
fn power_of_five(
    odd: &Int,
    tick: &mut dyn FnMut(u64) -> Result<(), Halt>,
) -> Result<Option<u64>, Halt> {
    if odd.is_one() {
        return Ok(Some(0));
    }
    let bits = odd.bit_length();
    let guess = ((u128::from(bits) * LOG5_2_FIXED) >> 64) as u64;
    for b in [guess, guess.saturating_sub(1)] {
        tick(odd.limb_count().saturating_mul(2))?;
        let power = Int::Small(5).pow(b);
        if power == *odd {
            return Ok(Some(b));
        }
        if power.bit_length() < bits {
            break;
        }
    }
    Ok(None)
}

/// Why a value did not encode.
#[derive(Debug)]
pub enum EncodeError {
    /// A CodeBlock somewhere in the value (`typeMismatch`).
    Block,
    /// A Number with no exact JSON form (`NIL(invalidEncoding)`).
    Inexact,
}

enum Task<'v> {
    Value(&'v Value),
    Text(&'static str),
    /// The text of the Vector with this key ended here; it began at this offset.
    Remember(usize, usize),
}

/// Bytes of a recurring Vector's text copied between two ticks of the meter.
const COPY_CHUNK_BYTES: usize = 64 * 1024;

/// Vectors with at least this many leaves are encoded once and copied where they recur.
const REMEMBERED_LEAVES: u64 = 16;

/// What writing the exact decimal of `n` costs in `numericWork`
/// (docs/reference/pricing-and-limits.md#text): an integer its [`Number::decimal_price`];
/// a fraction the decimal price of the integer its digits come from, numerator·2^i·5^j,
/// taken at its widest (bits(numerator) + ⌈7·bits(denominator)/3⌉), 0 when that fits a
/// machine word. Inexact numbers are refused before any conversion.
pub fn decimal_price(n: &Number) -> u64 {
    let Some(r) = n.as_rat() else { return 0 };
    if r.to_int().is_some() {
        return n.decimal_price();
    }
    let bits = r
        .numer()
        .bit_length()
        .saturating_add(r.denom().bit_length().saturating_mul(7).div_ceil(3));
    if bits <= 63 {
        return 0;
    }
    ajisai_core::number::decimal_price_of_limbs(bits.div_ceil(64))
}

/// Whether `n` may have an exact decimal: false for an algebraic Number and for a
/// fraction whose machine-word denominator is not 2^a·5^b; true otherwise (a wide
/// denominator is judged by [`decimal`] itself, after its conversion is charged).
fn has_decimal(n: &Number) -> bool {
    match n {
        Number::Alg(_) => false,
        Number::Rat(r) => match r.denom() {
            Int::Small(d) => {
                let mut d = d.unsigned_abs();
                d >>= d.trailing_zeros();
                while d % 5 == 0 {
                    d /= 5;
                }
                d == 1
            }
            Int::Big(_) => true,
        },
    }
}

/// The compact JSON text of `v`, through `meter`. Every CodeBlock is found before any
/// number is judged, so a block anywhere decides over an inexact number anywhere. The
/// walk ticks the meter (the Word charged it up front); each number's decimal conversion
/// is charged as it is written ([`decimal_price`]); a recurring Vector's copy asks the
/// host before it is reserved.
pub fn encode(v: &Value, meter: &mut Meter) -> Result<Result<String, EncodeError>, Halt> {
    // A CodeBlock anywhere: read from the cached leaf kinds, never by walking leaves.
    let has_block = match v {
        Value::Block(_) => true,
        Value::Vector(items) => items.leaf_stats().kinds.any(LeafKinds::BLOCK),
        _ => false,
    };
    if has_block {
        return Ok(Err(EncodeError::Block));
    }
    // Bytes (valid UTF-8 by construction), so a recurring Vector's text can be copied
    // from earlier in the output: a Vector sharing sub-Vectors is encoded once per
    // distinct sub-Vector, and its copies cost a memcpy each.
    let mut out: Vec<u8> = Vec::new();
    let mut remembered: ajisai_core::memo::Memo<usize, std::ops::Range<usize>> = Default::default();
    let mut tasks: Vec<Task<'_>> = vec![Task::Value(v)];
    while let Some(t) = tasks.pop() {
        meter.tick(1)?;
        grow_vec(&mut out, 64);
        match t {
            Task::Text(s) => out.extend_from_slice(s.as_bytes()),
            Task::Remember(key, start) => {
                remembered.insert(key, start..out.len());
            }
            Task::Value(x) => match x {
                Value::Number(n) => {
                    if !has_decimal(n) {
                        return Ok(Err(EncodeError::Inexact));
                    }
                    let price = decimal_price(n);
                    if price > 0 {
                        meter.charge_numeric(price)?;
                    }
                    match decimal(n, meter)? {
                        Some(d) => {
                            grow_vec(&mut out, d.len());
                            out.extend_from_slice(d.as_bytes())
                        }
                        None => return Ok(Err(EncodeError::Inexact)),
                    }
                }
                Value::Bool(true) => out.extend_from_slice(b"true"),
                Value::Bool(false) => out.extend_from_slice(b"false"),
                Value::Str(s) => {
                    meter.tick(text_units(s.len() as u64))?;
                    let mut quoted = String::new();
                    write_str(&mut quoted, s);
                    grow_vec(&mut out, quoted.len());
                    out.extend_from_slice(quoted.as_bytes())
                }
                Value::Nil(_) => out.extend_from_slice(b"null"),
                Value::Vector(items) => {
                    let key = items.items().as_ptr() as usize;
                    if let Some(range) = remembered.get(&key) {
                        // A copy can double the text: ask before reserving room for it,
                        // and copy a check's worth at a time.
                        meter.reserve(range.len() as u64)?;
                        grow_vec(&mut out, range.len());
                        let mut at = range.start;
                        while at < range.end {
                            let end = range.end.min(at + COPY_CHUNK_BYTES);
                            meter.tick(text_units((end - at) as u64))?;
                            out.extend_from_within(at..end);
                            at = end;
                        }
                        continue;
                    }
                    if !items.is_empty() && items.leaf_stats().leaves >= REMEMBERED_LEAVES {
                        tasks.push(Task::Remember(key, out.len()));
                    }
                    out.push(b'[');
                    tasks.push(Task::Text("]"));
                    for (i, item) in items.items().iter().enumerate().rev() {
                        tasks.push(Task::Value(item));
                        if i > 0 {
                            tasks.push(Task::Text(","));
                        }
                    }
                }
                Value::Block(_) => return Ok(Err(EncodeError::Block)),
            },
        }
    }
    Ok(Ok(String::from_utf8(out).unwrap_or_else(|e| {
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    })))
}

fn json_encode(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let v = ctx.peek(0).clone();
    if v.is_nil() {
        // A top-level NIL passes through with its reason.
        return ctx.consume_and_push(1, v);
    }
    // With every Number of an exact decimal form (and no CodeBlock, a typeMismatch)
    // anywhere, the text is certain and at least two bytes a leaf: a text the host could
    // not hold is refused before any of it is written. Otherwise an inexact number may
    // yet end the walk with a NIL, and polling stops the walk if memory runs out first.
    if let Value::Vector(items) = &v {
        let stats = items.leaf_stats();
        if !stats.kinds.any(LeafKinds::MAYBE_INEXACT) && !stats.kinds.any(LeafKinds::BLOCK) {
            ctx.meter().reserve(stats.leaves.saturating_mul(2))?;
        }
    }
    // The walk, up front from the weights (docs/reference/pricing-and-limits.md#text); the
    // numbers' decimal digits as they are written.
    ctx.charge_collection(price::written(&v.weight()))?;
    let encoded = encode(&v, ctx.meter())?;
    let result = match encoded {
        Ok(s) => Value::str(s),
        Err(EncodeError::Inexact) => Value::Nil(NilReason::InvalidEncoding),
        Err(EncodeError::Block) => {
            return Err(err::type_mismatch(format!(
                "JSON-ENCODE cannot encode code: {} holds a CodeBlock",
                if matches!(v, Value::Block(_)) {
                    "the operand".to_string()
                } else {
                    describe(&v)
                }
            ))
            .into())
        }
    };
    ctx.consume_and_push(1, result)
}

/// `JSON-DECODE`
pub const JSON_DECODE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::InvalidEncoding, NilReason::Literal],
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Parse a String holding one strict JSON text into exact Ajisai values (objects become Vectors of [ key value ] pairs).",
    syntax: "s JSON-DECODE",
    stack_effect: "( s -- x )",
    examples: &[
        ex("'{\"a\":1,\"b\":[true,null]}' JSON-DECODE", "[ [ 'a' 1/1 ] [ 'b' [ TRUE NIL ] ] ]"),
        ex("'[1, 2.5, -3e-2]' JSON-DECODE", "[ 1/1 5/2 -3/100 ]"),
        ex("'0.1' JSON-DECODE", "1/10"),
        ex("'\"h\\u00e9\"' JSON-DECODE", "'hé'"),
    ],
    rules: r#"`s JSON-DECODE` ( s -- x ). Parses s as one JSON text (RFC 8259: optional JSON whitespace —
space, tab, LF, CR — around exactly one value) into Ajisai values, with no floating-point step:

| JSON | Ajisai |
|---|---|
| number (`-?(0\|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) | the exact rational it denotes (`0.1` → `1/10`, `1e-3` → `1/1000`, `-0` → `0/1`) |
| string | String; escapes `\" \\ \/ \b \f \n \r \t \uXXXX` decoded, surrogate pairs combined |
| `true` / `false` | Boolean |
| `null` | `NIL` with reason `literal` |
| array | Vector of the decoded elements |
| object | Vector of pairs `[ key value ]` (key a String), in document order, duplicate keys kept |

The text is scanned once from the left; the first problem decides. Projection: not valid JSON
(empty text, trailing content, comments, trailing commas, single quotes, leading zeros,
`NaN`/`Infinity`, unescaped control characters in strings, an unpaired surrogate escape) →
`NIL(invalidEncoding)`. ERROR: `typeMismatch` (s not a String); `resourceLimitExceeded` —
`nestingDepth` when the decoded value would be deeper than the limit (each array or object
opens one level and each object member one more, for its pair), `numericLiteralDigits` /
`bigintBits` for a number lexeme as for `NUM` — measured before the value is built, operand
left in place. NIL: a NIL operand passes through. KEEP: keeps s."#,
    ..base("JSON-DECODE", Family::Text, 1, 1, json_decode)
};

/// `JSON-ENCODE`
pub const JSON_ENCODE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::InvalidEncoding],
    errors: &[ErrorCategory::TypeMismatch],
    summary:
        "The compact JSON text of a value; Numbers only as exact decimals, nested NIL as null.",
    syntax: "x JSON-ENCODE",
    stack_effect: "( x -- s )",
    examples: &[
        ex("[ 1 1/2 -1/8 ] JSON-ENCODE", "'[1,0.5,-0.125]'"),
        ex("[ 'a' TRUE [ ] ] JSON-ENCODE", "'[\"a\",true,[]]'"),
        ex("[ 1 NIL ] JSON-ENCODE", "'[1,null]'"),
        ex("1/3 JSON-ENCODE", "NIL (nil:invalidEncoding)"),
    ],
    rules: r#"`x JSON-ENCODE` ( x -- s ). The compact JSON text of a value (no whitespace at all):

| Ajisai | JSON |
|---|---|
| integer | decimal integer (`1000`, `-3`, `0`) |
| rational whose reduced denominator is 2ᵃ·5ᵇ | the exact decimal with the fewest fraction digits, no exponent (`1/2` → `0.5`, `-1/8` → `-0.125`) |
| any other rational, or algebraic | none → the whole result is `NIL(invalidEncoding)` |
| Boolean | `true` / `false` |
| String | JSON string: `"` and `\` escaped as `\"` `\\`; U+0008, U+000C, LF, CR, TAB as `\b \f \n \r \t`; other characters below U+0020 as `\u00xx` (lowercase hex); everything else literal (non-ASCII and `/` unescaped) |
| Vector | array `[a,b,…]`; `[ ]` → `[]` |
| NIL inside a Vector | `null` |
| CodeBlock anywhere | none → `typeMismatch` |

Checks: any CodeBlock → `typeMismatch` first; then any number without an exact JSON form →
`NIL(invalidEncoding)`. NIL: a top-level NIL operand passes through unchanged (so the reason
survives; only nested NILs become `null`). Objects do not round-trip: `JSON-DECODE` turns an
object into a Vector of pairs, which encodes as an array of arrays. KEEP: keeps x."#,
    ..base("JSON-ENCODE", Family::Text, 1, 1, json_encode)
};

inventory::submit! {
    FamilyRegistration {
        module: "json",
        words: &[JSON_DECODE, JSON_ENCODE],
        family_rules: &[],
    }
}
