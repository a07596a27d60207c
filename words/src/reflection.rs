//! Reflection (`reflection`): REFLECT and CONTRACT (docs/words/reflection.md#reflect,
//! docs/contracts.md).
//!
//! `REFLECT` is the only bridge between code and data: a CodeBlock becomes its code
//! data `[ 'AJISAI-CODE-1' record … ]`, one record per token, and valid code data
//! becomes a CodeBlock again. Nothing is evaluated and the dictionary is not read;
//! decoding is strict, so every code data Vector that decodes names exactly one
//! block, and `REFLECT REFLECT` is the identity on both sides. A decoded block is
//! not compiled: its literals are checked against the limits when something first runs it.
//!
//! `CONTRACT` answers a Word's contract as data: the registered one for Core Words,
//! the inferred one (docs/contracts.md#how-inference-works-and-its-gaps) for User Words.

use crate::support::{base, describe};
use ajisai_core::code::{normalize, Block};
use ajisai_core::contract::infer_user_word;
use ajisai_core::lexer::{is_vent_spelling, lex, Delim, Tok, TokKind};
use ajisai_core::number::{literal, Int};
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::parser::{build, check_structure, flatten};
use ajisai_core::price::{self, text_units, GENERATED_ELEMENT};
use ajisai_core::value::{Value, Vector};
use ajisai_core::word::{
    ex, registry, Arity, Family, FamilyRegistration, FieldRule, Flow, NilPolicy, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::sync::Arc;

/// The header String of code data.
pub const CODE_DATA_HEADER: &str = "AJISAI-CODE-1";

const NUMBER: &str = "number";
const STRING: &str = "string";
const SYMBOL: &str = "symbol";
const VECTOR_START: &str = "vector-start";
const VECTOR_END: &str = "vector-end";
const BLOCK_START: &str = "block-start";
const BLOCK_END: &str = "block-end";
const NIL_COALESCE: &str = "nil-coalesce";
const COND_CLAUSE_SEP: &str = "cond-clause-sep";
const LINE_BREAK: &str = "line-break";

fn record(tag: &str, payload: Option<&str>) -> Value {
    match payload {
        Some(p) => Value::vector(vec![Value::str(tag), Value::str(p)]),
        None => Value::vector(vec![Value::str(tag)]),
    }
}

/// The least memory one record of code data takes: its Vector and its tag String.
const RECORD_BYTES: u64 = 64;

/// The code data of a block: its header, then one record per token.
pub fn encode(block: &Block) -> Value {
    encode_tokens(&flatten(block))
}

/// The code data of a block's tokens (as [`flatten`] gives them).
fn encode_tokens(tokens: &[Tok]) -> Value {
    let mut out = Vec::with_capacity(tokens.len() + 1);
    out.push(Value::str(CODE_DATA_HEADER));
    for t in tokens {
        out.push(match &t.kind {
            TokKind::Number(lexeme) => record(NUMBER, Some(lexeme)),
            TokKind::Str(text) => record(STRING, Some(text)),
            TokKind::Name(name) => record(SYMBOL, Some(name)),
            TokKind::Vent => record(NIL_COALESCE, None),
            TokKind::Bar => record(COND_CLAUSE_SEP, None),
            TokKind::Open(Delim::Vector) => record(VECTOR_START, None),
            TokKind::Close(Delim::Vector) => record(VECTOR_END, None),
            TokKind::Open(Delim::Block) => record(BLOCK_START, None),
            TokKind::Close(Delim::Block) => record(BLOCK_END, None),
            TokKind::LineBreak => record(LINE_BREAK, None),
        });
    }
    Value::Vector(Vector::new(out))
}

fn malformed(message: String) -> LangError {
    err::invalid_argument(format!("REFLECT: malformed code data: {message}"))
}

/// Why `s` is not a valid `symbol` payload, if it is not. `in_vector`: the innermost
/// open record is `vector-start`, where `^` and VENT spellings are names.
fn symbol_problem(s: &str, in_vector: bool) -> Option<&'static str> {
    if s.is_empty() {
        return Some("is empty");
    }
    if s.chars().any(char::is_whitespace) {
        return Some("contains whitespace; a symbol is a single name");
    }
    if is_vent_spelling(s) {
        return if in_vector {
            None
        } else {
            Some("is the VENT directive outside a vector; use a 'nil-coalesce' record")
        };
    }
    match lex(s, 0) {
        Ok(l) if l.directives.is_empty() && l.tokens.len() == 1 => match &l.tokens[0].kind {
            TokKind::Name(n) if n == s => None,
            TokKind::Number(_) => Some("is a number; use a 'number' record"),
            TokKind::Bar => Some("is the clause separator; use a 'cond-clause-sep' record"),
            TokKind::Open(_) | TokKind::Close(_) => {
                Some("is a delimiter; use a 'vector-…' or 'block-…' record")
            }
            _ => Some("is not a single name lexeme"),
        },
        _ => Some("is not a single name lexeme"),
    }
}

/// Decode code data into a (not yet compiled) CodeBlock; every violation is `invalidArgument`.
pub fn decode(data: &Vector) -> Result<Arc<Block>, LangError> {
    let items = data.items();
    match items.first() {
        Some(Value::Str(h)) if &**h == CODE_DATA_HEADER => {}
        Some(other) => {
            return Err(malformed(format!(
                "it must start with the String '{CODE_DATA_HEADER}', but starts with {}",
                describe(other)
            )))
        }
        None => {
            return Err(malformed(format!(
                "the Vector is empty; code data starts with '{CODE_DATA_HEADER}'"
            )))
        }
    }
    let mut tokens: Vec<Tok> = Vec::with_capacity(items.len() - 1);
    // Innermost open records, only to know where `^`/VENT names are allowed.
    let mut open: Vec<Delim> = Vec::new();
    for (n, rec) in items.iter().enumerate().skip(1) {
        let Value::Vector(fields) = rec else {
            return Err(malformed(format!(
                "record {n} must be a Vector, got {}",
                describe(rec)
            )));
        };
        let fields = fields.items();
        let tag = match fields.first() {
            Some(Value::Str(t)) => t.clone(),
            Some(other) => {
                return Err(malformed(format!(
                    "record {n} must start with a tag String, got {}",
                    describe(other)
                )))
            }
            None => {
                return Err(malformed(format!(
                    "record {n} is empty; it must start with a tag String"
                )))
            }
        };
        let in_vector = open.last() == Some(&Delim::Vector);
        let kind = match &*tag {
            NUMBER | STRING | SYMBOL => {
                let payload = match fields {
                    [_, Value::Str(p)] => p,
                    [_, other] => {
                        return Err(malformed(format!(
                            "the payload of record {n} ('{tag}') must be a String, got {}",
                            describe(other)
                        )))
                    }
                    _ => {
                        return Err(malformed(format!(
                            "record {n} ('{tag}') must have exactly two elements, the tag and a String payload; it has {}",
                            fields.len()
                        )))
                    }
                };
                match &*tag {
                    NUMBER => {
                        if literal::scan(payload).is_none() {
                            return Err(malformed(format!(
                                "record {n}: '{payload}' is not a single number lexeme"
                            )));
                        }
                        TokKind::Number(payload.to_string())
                    }
                    STRING => TokKind::Str(payload.to_string()),
                    _ => {
                        if let Some(problem) = symbol_problem(payload, in_vector) {
                            return Err(malformed(format!("record {n}: the symbol '{payload}' {problem}")));
                        }
                        TokKind::Name(payload.to_string())
                    }
                }
            }
            VECTOR_START | VECTOR_END | BLOCK_START | BLOCK_END | NIL_COALESCE | COND_CLAUSE_SEP | LINE_BREAK => {
                if fields.len() != 1 {
                    return Err(malformed(format!(
                        "record {n} ('{tag}') must hold only its tag; it has {} elements",
                        fields.len()
                    )));
                }
                match &*tag {
                    VECTOR_START => {
                        open.push(Delim::Vector);
                        TokKind::Open(Delim::Vector)
                    }
                    BLOCK_START => {
                        open.push(Delim::Block);
                        TokKind::Open(Delim::Block)
                    }
                    VECTOR_END => {
                        open.pop();
                        TokKind::Close(Delim::Vector)
                    }
                    BLOCK_END => {
                        open.pop();
                        TokKind::Close(Delim::Block)
                    }
                    NIL_COALESCE if in_vector => {
                        return Err(malformed(format!(
                            "record {n}: 'nil-coalesce' cannot stand directly inside a vector; there '^' is the symbol '^'"
                        )))
                    }
                    NIL_COALESCE => TokKind::Vent,
                    COND_CLAUSE_SEP => TokKind::Bar,
                    _ => TokKind::LineBreak,
                }
            }
            other => {
                return Err(malformed(format!(
                    "record {n} has the unknown tag '{other}' (tags: number, string, symbol, vector-start, vector-end, block-start, block-end, nil-coalesce, cond-clause-sep, line-break)"
                )))
            }
        };
        tokens.push(Tok { kind, pos: None });
    }
    // The records are the content of a block: validate them inside one, so `|` may
    // stand at their top level and a VENT before the end has no following unit.
    let mut wrapped = Vec::with_capacity(tokens.len() + 2);
    wrapped.push(Tok {
        kind: TokKind::Open(Delim::Block),
        pos: None,
    });
    wrapped.append(&mut tokens);
    wrapped.push(Tok {
        kind: TokKind::Close(Delim::Block),
        pos: None,
    });
    check_structure(&wrapped)
        .map_err(|e| malformed(format!("the tokens do not form valid code: {}", e.message)))?;
    let tokens = &wrapped[1..wrapped.len() - 1];
    check_top_level_bars(tokens)?;
    Ok(build(tokens))
}

/// A `|` at the top of decoded code separates a clause: it needs a token on each
/// side (a lone separator is not code, docs/words/reflection.md#reflect).
fn check_top_level_bars(tokens: &[Tok]) -> Result<(), LangError> {
    if !tokens.iter().any(|t| t.kind == TokKind::Bar) {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut segment_has_token = false;
    for t in tokens {
        match &t.kind {
            TokKind::Open(_) => {
                if depth == 0 {
                    segment_has_token = true;
                }
                depth += 1;
            }
            TokKind::Close(_) => depth = depth.saturating_sub(1),
            TokKind::Bar if depth == 0 => {
                if !segment_has_token {
                    return Err(bar_needs_sides());
                }
                segment_has_token = false;
            }
            TokKind::LineBreak => {}
            _ => {
                if depth == 0 {
                    segment_has_token = true;
                }
            }
        }
    }
    if segment_has_token {
        Ok(())
    } else {
        Err(bar_needs_sides())
    }
}

fn bar_needs_sides() -> LangError {
    malformed(
        "a 'cond-clause-sep' at the top of the code needs tokens on both sides (guard | body)"
            .to_string(),
    )
}

/// What REFLECT reads and builds (docs/reference/pricing-and-limits.md#reflection): a
/// block's written text and one record per token; code data's walk and its text, which
/// the tokens copy.
fn reflect(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let operand = ctx.peek(0).clone();
    let result = match &operand {
        Value::Block(b) => {
            ctx.charge_collection(text_units(b.written_len()))?;
            let tokens = flatten(b);
            ctx.charge_collection((tokens.len() as u64 + 1).saturating_mul(GENERATED_ELEMENT))?;
            ctx.meter().reserve(
                (tokens.len() as u64 + 1)
                    .saturating_mul(RECORD_BYTES)
                    .saturating_add(b.written_len()),
            )?;
            encode_tokens(&tokens)
        }
        Value::Vector(v) => {
            // The walk of the data, and a token built per record (each checked as a
            // lexeme).
            let w = operand.weight();
            ctx.charge_collection(
                price::walk(&w).saturating_add((v.len() as u64).saturating_mul(GENERATED_ELEMENT)),
            )?;
            ctx.meter()
                .reserve(w.text_bytes.saturating_add(w.nodes.saturating_mul(RECORD_BYTES)))?;
            Value::Block(decode(v)?)
        }
        other => {
            return Err(err::type_mismatch(format!(
                "REFLECT needs a CodeBlock or code data (a Vector starting with '{CODE_DATA_HEADER}'), got {}",
                describe(other)
            ))
            .into())
        }
    };
    ctx.consume_and_push(1, result)
}

fn arity(a: Arity) -> Value {
    match a {
        Arity::Fixed(n) => Value::num(Int::from(u64::from(n))),
        Arity::Variable => Value::str("variable"),
        Arity::Control => Value::str("control"),
    }
}

fn count(n: Option<u64>) -> Value {
    match n {
        Some(n) => Value::num(Int::from(n)),
        None => Value::Nil(NilReason::NotAvailable),
    }
}

fn pair(key: &str, v: Value) -> Value {
    Value::vector(vec![Value::str(key), v])
}

fn contract(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let name = match ctx.peek(0) {
        Value::Nil(r) => {
            let nil = Value::Nil(*r);
            return ctx.consume_and_push(1, nil);
        }
        Value::Str(s) => s.clone(),
        other => {
            return Err(err::type_mismatch(format!(
                "CONTRACT needs a String naming a Word, got {}",
                describe(other)
            ))
            .into())
        }
    };
    // Reading the name, then inferring reads the Word's body and those of the Words it
    // needs (docs/reference/pricing-and-limits.md#reflection).
    ctx.charge_collection(text_units(name.len() as u64).max(1))?;
    let normalized = normalize(&name);
    let (words, bytes) = ctx.dictionary().closure_weight(&normalized);
    if words > 0 {
        ctx.charge_collection(words.saturating_add(text_units(bytes)))?;
    }
    let result = if let Some(id) = registry().lookup(&normalized) {
        let spec = registry().spec(id);
        Value::vector(vec![
            pair("inputs", arity(spec.inputs)),
            pair("outputs", arity(spec.outputs)),
            pair("field", Value::str(spec.field.id())),
        ])
    } else if let Some(inferred) = infer_user_word(ctx.dictionary(), &normalized) {
        let (inputs, outputs) = match inferred.effect {
            Ok(e) => (Some(e.inputs), Some(e.outputs)),
            Err(_) => (None, None),
        };
        let field = match inferred.field {
            Some(f) => Value::str(f.id()),
            None => Value::Nil(NilReason::NotAvailable),
        };
        Value::vector(vec![
            pair("inputs", count(inputs)),
            pair("outputs", count(outputs)),
            pair("field", field),
        ])
    } else {
        Value::Nil(NilReason::UnknownWord)
    };
    ctx.consume_and_push(1, result)
}

/// `REFLECT`
pub const REFLECT: WordSpec = WordSpec {
    field_rule: FieldRule::Open,
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument],
    summary: "Turn a CodeBlock into its code data (one record per token), or decode code data back into a CodeBlock; nothing is evaluated.",
    syntax: "block REFLECT   or   data REFLECT",
    stack_effect: "( block -- data ) | ( data -- block )",
    examples: &[
        // The examples the Word was specified with.
        ex("{ 1 } REFLECT", "[ 'AJISAI-CODE-1' [ 'number' '1' ] ]"),
        ex("{ 1 } REFLECT REFLECT", "{ 1 }"),
        ex(
            "{ 'a b' [ 1 ] | add } REFLECT",
            "[ 'AJISAI-CODE-1' [ 'string' 'a b' ] [ 'vector-start' ] [ 'number' '1' ] [ 'vector-end' ] [ 'cond-clause-sep' ] [ 'symbol' 'add' ] ]",
        ),
        ex("[ 'X' ] REFLECT", "error:invalidArgument"),
    ],
    rules: r#"`x REFLECT` ( x -- y ). Type-directed: a CodeBlock becomes its code data; a Vector is decoded
as code data into a CodeBlock ([REFLECT](reflection.md#reflect)). Nothing is evaluated; the
dictionary is not consulted. ERROR: `typeMismatch` (any other domain; NIL); `invalidArgument`
(a Vector that is not valid code data — missing header, bad record, invalid lexeme, unbalanced
delimiters, `|` outside a block, a `nil-coalesce` with no following unit or directly inside a
vector). KEEP: keeps x."#,
    ..base("REFLECT", Family::Reflection, 1, 1, reflect)
};

/// `CONTRACT`
pub const CONTRACT: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::UnknownWord, NilReason::NotAvailable],
    errors: &[ErrorCategory::TypeMismatch],
    summary: "Push a Word's contract as data: [ [ 'inputs' I ] [ 'outputs' O ] [ 'field' F ] ] — registered for Core Words, inferred for User Words.",
    syntax: "'NAME' CONTRACT",
    stack_effect: "( name -- contract )",
    examples: &[
        // The examples the Word was specified with.
        ex("'ADD' CONTRACT", "[ [ 'inputs' 2/1 ] [ 'outputs' 1/1 ] [ 'field' 'closed' ] ]"),
        ex("'sqrt' CONTRACT", "[ [ 'inputs' 1/1 ] [ 'outputs' 1/1 ] [ 'field' 'extends' ] ]"),
        ex("'COND' CONTRACT", "[ [ 'inputs' 'variable' ] [ 'outputs' 1/1 ] [ 'field' 'closed' ] ]"),
        ex("{ ^ 0 } 'V' DEF 'V' CONTRACT", "[ [ 'inputs' NIL ] [ 'outputs' NIL ] [ 'field' 'closed' ] ]"),
    ],
    rules: r#"`name CONTRACT` ( name -- c ). The contract of the Word `name` as data:

`[ [ 'inputs' I ] [ 'outputs' O ] [ 'field' F ] ]`

- name: a String, resolved like a source name (aliases, any case). A Core Word gives its
  registered contract: I and O are Numbers, or the String `variable`
  (data-dependent arity: `COND` and `COLLECT` inputs, `RANGE` inputs, `EXEC` outputs), or
  `control` (`VENT`, named `'VENT'` or `'^'` here although it is a directive in source); F is
  `extends` for `SQRT` and `POW`, `closed` otherwise.
- A User Word gives its inferred contract
  ([inference](../contracts.md#how-inference-works-and-its-gaps)) over the current
  dictionary; an input or output count inference cannot establish is `NIL(notAvailable)`.
- Projection: a name that is no Word (binding names, `IDLE`, unknown names) →
  `NIL(unknownWord)`.
- NIL: a NIL operand passes through. ERROR: `typeMismatch` (name not a String). KEEP: keeps
  name. Purity: pure, reads the dictionary.

The keys are exactly those of the `#:contract` directive ([the
directive](../contracts.md#the-directive))."#,
    ..base("CONTRACT", Family::Reflection, 1, 1, contract)
};

inventory::submit! {
    FamilyRegistration {
        module: "reflection",
        words: &[REFLECT, CONTRACT],
        family_rules: &[],
    }
}
