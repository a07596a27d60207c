//! Dictionary and bindings (`dictionary`): BIND, DEF, DEL (docs/reference/frames.md#bind,
//! docs/reference/dictionary.md).
//!
//! Core is sealed: no User Word or binding may take a Core name or alias, and a
//! name cannot be both a Word and a binding. Every mutation is atomic.

use crate::support::{base, describe};
use ajisai_core::code::normalize;
use ajisai_core::machine::{is_name_lexeme, NameChecks};
use ajisai_core::outcome::{err, ErrorCategory, LangError};
use ajisai_core::price::text_units;
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, registry, Family, FamilyRegistration, Flow, NilPolicy, Purity, Role, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::sync::Arc;

/// Validate a name for DEF/BIND/DEL; returns its normalized form (the written text
/// itself when it is normalized already). A text found valid before in the run is not
/// checked again ([`NameChecks`]).
fn checked_name(
    checks: &mut NameChecks,
    word: &str,
    written: &Arc<str>,
) -> Result<Arc<str>, LangError> {
    if let Some(normalized) = checks.recall(written) {
        return Ok(normalized);
    }
    let normalized = check_name(word, written)?;
    let normalized: Arc<str> = if *normalized == **written {
        Arc::clone(written)
    } else {
        normalized.into()
    };
    checks.remember(Arc::clone(written), Arc::clone(&normalized));
    Ok(normalized)
}

/// [`checked_name`]'s rules: one name lexeme, not a Core Word.
fn check_name(word: &str, written: &str) -> Result<String, LangError> {
    if !is_name_lexeme(written) {
        return Err(err::dictionary(format!(
            "{word}: '{written}' is not a valid name (one token: not a number, not ^, | or VENT, no spaces, brackets or quotes at the start)"
        )));
    }
    let normalized = normalize(written);
    if registry().lookup(&normalized).is_some() {
        return Err(err::dictionary(format!(
            "{word}: {written} is a Core Word and cannot be redefined, bound or deleted"
        )));
    }
    Ok(normalized)
}

fn bind(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let (x, names) = (ops[0].clone(), ops[1].clone());
    let written: Vec<Arc<str>> = match &names {
        Value::Str(s) => vec![s.clone()],
        Value::Vector(items) => {
            let mut out = Vec::with_capacity(items.len());
            for v in items.items() {
                match v {
                    Value::Str(s) => out.push(s.clone()),
                    other => {
                        return Err(err::type_mismatch(format!(
                            "BIND needs a String name or a Vector of String names, but the name Vector holds {}",
                            describe(other)
                        ))
                        .into())
                    }
                }
            }
            out
        }
        other => {
            return Err(err::type_mismatch(format!(
                "BIND needs a String name or a Vector of String names, got {}",
                describe(other)
            ))
            .into())
        }
    };
    // Reading each name to check it (docs/reference/pricing-and-limits.md#dictionary).
    let read = written.iter().fold(0u64, |acc, w| {
        acc.saturating_add(text_units(w.len() as u64).max(1))
    });
    ctx.charge_collection(read)?;
    // A phrasebook Word's bindings are its own (docs/phrasebook.md#names): a BIND written
    // in phrasebook text may take the name of a Word the caller defined, and the binding
    // shadows that Word inside the phrasebook Word's frame only (a Word body is behind a
    // barrier, and a binding is looked up before any Word). Without this a phrasebook
    // Word would fail for a caller who happened to define one of its local names.
    let phrasebook_text = ctx.pos().is_some_and(|p| !p.is_caller_source());
    let mut normalized = Vec::with_capacity(written.len());
    for w in &written {
        let n = checked_name(ctx.name_checks(), "BIND", w)?;
        if !phrasebook_text && ctx.dictionary().get(&n).is_some() {
            return Err(err::dictionary(format!(
                "BIND: {w} is a User Word; a name cannot be both a Word and a binding"
            ))
            .into());
        }
        normalized.push(n);
    }
    let pairs: Vec<(Arc<str>, Value)> = match normalized.len() {
        0 => {
            if matches!(&x, Value::Vector(v) if !v.is_empty()) {
                return Err(err::shape_mismatch(
                    "BIND with no names needs an empty Vector or a non-Vector value",
                )
                .into());
            }
            Vec::new()
        }
        1 => vec![(normalized[0].clone(), x)],
        n => {
            let Value::Vector(items) = &x else {
                return Err(err::shape_mismatch(format!(
                    "BIND destructures {n} names but got {}, not a Vector",
                    describe(&x)
                ))
                .into());
            };
            if items.len() != n {
                return Err(err::shape_mismatch(format!(
                    "BIND destructures {n} names but the Vector has {} element{}",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                ))
                .into());
            }
            normalized
                .into_iter()
                .zip(items.items().iter().cloned())
                .collect()
        }
    };
    for (n, v) in pairs {
        ctx.bind(n, v);
    }
    ctx.finish(2, [])
}

fn def(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let Value::Str(name) = &ops[1] else {
        return Err(err::type_mismatch(format!(
            "DEF needs a String name on top, got {}",
            describe(&ops[1])
        ))
        .into());
    };
    let Value::Block(body) = &ops[0] else {
        return Err(err::type_mismatch(format!(
            "DEF needs a CodeBlock body below the name, got {}",
            describe(&ops[0])
        ))
        .into());
    };
    let (name, body) = (name.clone(), body.clone());
    // Reading the name, the body (for its dependencies) and, on a redefinition, every
    // Word's dependencies (docs/reference/pricing-and-limits.md#dictionary).
    ctx.charge_collection(text_units(name.len() as u64).max(1))?;
    let normalized = checked_name(ctx.name_checks(), "DEF", &name)?;
    let redefinition = ctx
        .dictionary()
        .get(&normalized)
        .map_or(0, |_| ctx.dictionary().search_units());
    ctx.charge_collection(text_units(body.written_len()).saturating_add(redefinition))?;
    if ctx.is_bound_visible(&normalized) {
        return Err(err::dictionary(format!(
            "DEF: {name} is bound in this frame; a name cannot be both a Word and a binding"
        ))
        .into());
    }
    ctx.dictionary_mut().define(normalized, body)?;
    ctx.finish(2, [])
}

fn del(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let Value::Str(name) = ctx.peek(0) else {
        return Err(err::type_mismatch(format!(
            "DEL needs a String name, got {}",
            describe(ctx.peek(0))
        ))
        .into());
    };
    let name = name.clone();
    let search = ctx.dictionary().search_units();
    ctx.charge_collection(text_units(name.len() as u64).max(1).saturating_add(search))?;
    let normalized = checked_name(ctx.name_checks(), "DEL", &name)?;
    ctx.dictionary_mut().delete(&normalized)?;
    ctx.finish(1, [])
}

const DICT: &[ErrorCategory] = &[
    ErrorCategory::TypeMismatch,
    ErrorCategory::DictionaryViolation,
];

/// `BIND`
pub const BIND: WordSpec = WordSpec {
    role: Role::Binds,
    nil_policy: NilPolicy::ConsumeNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::DictionaryViolation, ErrorCategory::ShapeMismatch],
    summary: "Bind a value to a name (or destructure a Vector over several names) for the rest of the current frame.",
    syntax: "x 'NAME' BIND   or   [ a b ] [ 'A' 'B' ] BIND",
    stack_effect: "( x name -- )",
    examples: &[
        ex("[ 1 2 3 ] 'XS' BIND XS XS", "[ 1/1 2/1 3/1 ] | [ 1/1 2/1 3/1 ]"),
        ex("[ 1 2 ] [ 'A' 'B' ] BIND B A", "2/1 | 1/1"),
        ex("[ 1 2 ] [ 'A' ] BIND A", "[ 1/1 2/1 ]"),
        ex("NIL 'X' BIND X", "NIL (nil:literal)"),
    ],
    rules: r#"`x name BIND` ( x name -- ). Binds for the rest of the current frame ([frames and
bindings](../reference/frames.md)). name: a String (one name, bound to the whole x) or a Vector
of Strings (several names; x must be a Vector of exactly that many elements, bound position by
position, a name repeated later winning; a one-element name Vector is the single-name case; an
empty name Vector binds nothing and consumes both operands, x being the empty Vector or not a
Vector at all — `5 [ ] BIND` — while a non-empty x Vector is `shapeMismatch`). Each name must
be a name lexeme (as for `DEF`), not an alias or directive, not a Core or User Word. x may be
any value, NIL included. ERROR: `typeMismatch` (name not a String or Vector of Strings; NIL
name); `dictionaryViolation` (not a name lexeme, an alias, a Word's name); `shapeMismatch`
(destructuring length differs, or x is not a Vector). A later reference to the name pushes the
value. KEEP: x and name stay on the stack and the binding is made."#,
    ..base("BIND", Family::Dictionary, 2, 0, bind)
};

/// `DEF`
pub const DEF: WordSpec = WordSpec {
    role: Role::Defines,
    nil_policy: NilPolicy::RejectNil,
    purity: Purity::Effectful,
    errors: &[
        ErrorCategory::TypeMismatch,
        ErrorCategory::DictionaryViolation,
        ErrorCategory::InvalidArgument,
        ErrorCategory::MalformedSource,
    ],
    summary: "Define or redefine a User Word with a CodeBlock body.",
    syntax: "{ body } 'NAME' DEF",
    stack_effect: "( body name -- )",
    examples: &[
        ex("{ 2 * } 'DOUBLE' DEF 21 DOUBLE", "42/1"),
        ex("{ [ 1 ] [ 2 ] + } 'MY-SUM' DEF MY-SUM", "[ 3/1 ]"),
        ex("{ 1 } 'W' KEEP DEF", "{ 1 } | 'W'"),
        ex("{ 1 } 'TRUE' DEF", "error:dictionaryViolation"),
    ],
    rules: r#"`body name DEF` ( body name -- ). Defines or redefines the User Word `name` with the CodeBlock
`body` ([the dictionary](../reference/dictionary.md)). ERROR: `typeMismatch` (name not a
String; body not a CodeBlock; a NIL operand); `dictionaryViolation` (invalid name, Core name or
alias, name bound in a visible frame, redefinition of a Word other Words depend on);
`invalidArgument` (empty body); `malformedSource` (a top-level `|` in the body). KEEP: the body
and the name stay on the stack and the Word is defined. Effect: dictionary write; no output."#,
    ..base("DEF", Family::Dictionary, 2, 0, def)
};

/// `DEL`
pub const DEL: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    purity: Purity::Effectful,
    errors: DICT,
    summary: "Delete a User Word (refused while another User Word depends on it).",
    syntax: "'NAME' DEL",
    stack_effect: "( name -- )",
    examples: &[
        ex("{ [ 1 ] } 'W' DEF 'W' DEL", "(empty)"),
        ex("{ 1 } 'W' DEF 'w' DEL W", "error:unknownWord"),
        ex("'ADD' DEL", "error:dictionaryViolation"),
        ex("'NOPE' DEL", "error:dictionaryViolation"),
    ],
    rules: r#"`name DEL` ( name -- ). Deletes the User Word `name` ([the
dictionary](../reference/dictionary.md)). ERROR: `typeMismatch` (name not a String, NIL);
`dictionaryViolation` (a Core name or alias; no such User Word; another User Word depends on
it). KEEP: the name stays. Effect: dictionary write."#,
    ..base("DEL", Family::Dictionary, 1, 0, del)
};

inventory::submit! {
    FamilyRegistration {
        module: "dictionary",
        words: &[BIND, DEF, DEL],
        family_rules: &[],
    }
}
