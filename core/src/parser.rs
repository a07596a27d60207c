//! Tokens → a validated code tree (LANGUAGE.md §2.7, §3).
//!
//! Parsing runs in two passes over the token list, both iterative (no recursion,
//! so no nesting can overflow the native stack): pass 1 checks structure —
//! brackets, `|` placement, VENT units, zero denominators — and measures every
//! vector literal's depth; pass 2 builds the tree and, when given a profile,
//! checks the literal limits (digits, width, nesting) and builds every value.
//! Structural errors therefore always win over limit errors.

use crate::code::{Block, Item, Name};
use crate::lexer::{self, Delim, DirectiveLine, Tok, TokKind};
use crate::limits::{exceeded, Limit, Profile};
use crate::number::literal::{self, BuildError};
use crate::number::Number;
use crate::outcome::{err, LangError, NilReason, Pos};
use crate::value::Value;
use std::sync::Arc;

/// A parsed program: its code and its `#:` directive lines.
#[derive(Clone, Debug)]
pub struct Program {
    /// The top-level code.
    pub block: Arc<Block>,
    /// `#:` lines, in source order.
    pub directives: Vec<DirectiveLine>,
}

/// Parse a whole program under `profile`: source size, tokens, structure, literal limits.
pub fn parse(source: &str, profile: &Profile, origin: u16) -> Result<Program, LangError> {
    let bytes = source.len() as u64;
    if bytes > profile.source_bytes {
        return Err(exceeded(Limit::SourceBytes, bytes, profile.source_bytes));
    }
    let lexed = lexer::lex(source, origin)?;
    let depths = check_structure(&lexed.tokens)?;
    let block = build(&lexed.tokens, &depths, Some(profile))?;
    Ok(Program {
        block,
        directives: lexed.directives,
    })
}

fn describe(t: &Tok) -> String {
    match t.pos {
        Some(p) => format!(" at line {}, column {}", p.line, p.column),
        None => String::new(),
    }
}

fn delim_chars(d: Delim) -> (char, char) {
    match d {
        Delim::Vector => ('[', ']'),
        Delim::Block => ('{', '}'),
    }
}

/// Pass 1: structural validation. Returns, for every `[` token index, the depth of
/// the vector literal it opens (0 for other tokens).
pub fn check_structure(tokens: &[Tok]) -> Result<Vec<u32>, LangError> {
    let mut depths = vec![0u32; tokens.len()];
    // (delimiter, token index, deepest direct child vector depth)
    let mut open: Vec<(Delim, usize, u32)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match &t.kind {
            TokKind::Open(d) => open.push((*d, i, 0)),
            TokKind::Close(d) => {
                let (oc, cc) = delim_chars(*d);
                let Some((od, oi, child)) = open.pop() else {
                    return Err(
                        err::malformed(format!("unmatched '{cc}'{}", describe(t))).at(t.pos)
                    );
                };
                if od != *d {
                    let (ooc, _) = delim_chars(od);
                    return Err(err::malformed(format!(
                        "'{cc}'{} closes the '{ooc}'{}; expected the '{ooc}' to be closed first",
                        describe(t),
                        describe(&tokens[oi])
                    ))
                    .at(t.pos));
                }
                let _ = oc;
                if od == Delim::Vector {
                    let depth = child + 1;
                    depths[oi] = depth;
                    if let Some((Delim::Vector, _, parent_child)) = open.last_mut() {
                        *parent_child = (*parent_child).max(depth);
                    }
                }
            }
            TokKind::Bar => {
                if !matches!(open.last(), Some((Delim::Block, _, _))) {
                    return Err(err::malformed(format!(
                        "'|'{} may stand only directly inside a code block {{ … }}",
                        describe(t)
                    ))
                    .at(t.pos));
                }
            }
            TokKind::Vent => {
                let has_unit = matches!(
                    tokens.get(i + 1).map(|n| &n.kind),
                    Some(
                        TokKind::Number(_)
                            | TokKind::Str(_)
                            | TokKind::Name(_)
                            | TokKind::Vent
                            | TokKind::Open(_)
                    )
                );
                if !has_unit {
                    return Err(err::malformed(format!(
                        "VENT (^){} has no following source unit on its line; write the fallback right after it, e.g. `^ 0`",
                        describe(t)
                    ))
                    .at(t.pos));
                }
            }
            TokKind::Number(lexeme) => {
                if literal::scan(lexeme).is_some_and(|l| l.has_zero_denominator()) {
                    return Err(err::malformed(format!(
                        "the fraction literal {lexeme}{} has a zero denominator",
                        describe(t)
                    ))
                    .at(t.pos));
                }
            }
            TokKind::Str(_) | TokKind::Name(_) | TokKind::LineBreak => {}
        }
    }
    if let Some((d, oi, _)) = open.last() {
        let (oc, cc) = delim_chars(*d);
        return Err(err::malformed(format!(
            "unclosed '{oc}'{}: add a matching '{cc}'",
            describe(&tokens[*oi])
        ))
        .at(tokens[*oi].pos));
    }
    Ok(depths)
}

/// Build and limit-check the value of one number lexeme (source literal, `NUM`).
pub fn number_value(lexeme: &str, profile: &Profile) -> Result<Option<Number>, LangError> {
    let Some(lex) = literal::scan(lexeme) else {
        return Ok(None);
    };
    let digits = literal::digit_count(lexeme);
    if digits > profile.numeric_literal_digits {
        return Err(exceeded(
            Limit::NumericLiteralDigits,
            digits,
            profile.numeric_literal_digits,
        ));
    }
    match literal::build(&lex, profile.bigint_bits) {
        Ok(r) => Ok(Some(Number::Rat(r))),
        Err(BuildError::TooWide { observed }) => {
            Err(exceeded(Limit::BigintBits, observed, profile.bigint_bits))
        }
        Err(BuildError::ZeroDenominator) => Ok(None),
    }
}

struct Group {
    delim: Option<Delim>,
    pos: Option<Pos>,
    items: Vec<Item>,
}

/// Pass 2: build the tree from structurally valid tokens. With a profile, every
/// literal is limit-checked and valued (a prepared tree); without, values stay unbuilt.
pub fn build(
    tokens: &[Tok],
    depths: &[u32],
    profile: Option<&Profile>,
) -> Result<Arc<Block>, LangError> {
    let prepared = profile.is_some();
    let mut stack: Vec<Group> = vec![Group {
        delim: None,
        pos: None,
        items: Vec::new(),
    }];
    for (i, t) in tokens.iter().enumerate() {
        let item = match &t.kind {
            TokKind::Number(lexeme) => {
                let value = match profile {
                    Some(p) => number_value(lexeme, p).map_err(|e| e.at(t.pos))?,
                    None => None,
                };
                Item::Number {
                    lexeme: lexeme.as_str().into(),
                    value,
                    pos: t.pos,
                }
            }
            TokKind::Str(s) => Item::Str {
                text: s.as_str().into(),
                pos: t.pos,
            },
            TokKind::Name(n) => Item::Name {
                name: Name::new(n),
                pos: t.pos,
            },
            TokKind::Vent => Item::Vent { pos: t.pos },
            TokKind::Bar => Item::Bar { pos: t.pos },
            TokKind::LineBreak => Item::LineBreak { pos: t.pos },
            TokKind::Open(d) => {
                if let (Some(p), Delim::Vector) = (profile, d) {
                    let parent_is_vector =
                        stack.last().and_then(|g| g.delim) == Some(Delim::Vector);
                    let depth = u64::from(depths[i]);
                    if !parent_is_vector && depth > p.nesting_depth {
                        return Err(exceeded(Limit::NestingDepth, depth, p.nesting_depth).at(t.pos));
                    }
                }
                stack.push(Group {
                    delim: Some(*d),
                    pos: t.pos,
                    items: Vec::new(),
                });
                continue;
            }
            TokKind::Close(_) => {
                let g = stack.pop().expect("structure was validated");
                match g.delim.expect("structure was validated") {
                    Delim::Vector => {
                        let value = if prepared {
                            Some(vector_literal_value(&g.items))
                        } else {
                            None
                        };
                        Item::Vector {
                            items: g.items.into(),
                            value,
                            pos: g.pos,
                        }
                    }
                    Delim::Block => Item::Block {
                        block: Arc::new(Block::new(g.items, prepared)),
                        pos: g.pos,
                    },
                }
            }
        };
        stack.last_mut().expect("root group").items.push(item);
    }
    let root = stack.pop().expect("root group");
    debug_assert!(stack.is_empty());
    Ok(Arc::new(Block::new(root.items, prepared)))
}

/// The Vector a prepared vector literal denotes (§3.3).
fn vector_literal_value(items: &[Item]) -> Value {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Number { value: Some(n), .. } => out.push(Value::Number(n.clone())),
            Item::Number { value: None, .. } => unreachable!("prepared literals have values"),
            Item::Str { text, .. } => out.push(Value::Str(text.clone())),
            Item::Name { name, .. } => out.push(name_literal_value(&name.written)),
            Item::Vector { value, .. } => {
                out.push(value.clone().expect("prepared literals have values"))
            }
            Item::Block { block, .. } => out.push(Value::Block(block.clone())),
            Item::LineBreak { .. } => {}
            Item::Vent { .. } | Item::Bar { .. } => unreachable!("structure was validated"),
        }
    }
    Value::vector(out)
}

/// What a name standing directly inside a vector literal denotes.
pub fn name_literal_value(written: &str) -> Value {
    match written.to_uppercase().as_str() {
        "TRUE" => Value::Bool(true),
        "FALSE" => Value::Bool(false),
        "NIL" => Value::Nil(NilReason::Literal),
        _ => Value::Str(written.into()),
    }
}

/// The tokens of a code tree, in order (the inverse of [`build`]).
pub fn flatten(block: &Block) -> Vec<Tok> {
    let mut out = Vec::new();
    // (items, next index, closing token to emit when done)
    let mut stack: Vec<(&[Item], usize, Option<Tok>)> = vec![(block.items(), 0, None)];
    while let Some((items, i, close)) = stack.pop() {
        if i >= items.len() {
            if let Some(c) = close {
                out.push(c);
            }
            continue;
        }
        stack.push((items, i + 1, close));
        let item = &items[i];
        let pos = item.pos();
        let kind = match item {
            Item::Number { lexeme, .. } => TokKind::Number(lexeme.to_string()),
            Item::Str { text, .. } => TokKind::Str(text.to_string()),
            Item::Name { name, .. } => TokKind::Name(name.written.to_string()),
            Item::Vent { .. } => TokKind::Vent,
            Item::Bar { .. } => TokKind::Bar,
            Item::LineBreak { .. } => TokKind::LineBreak,
            Item::Vector { items: inner, .. } => {
                out.push(Tok {
                    kind: TokKind::Open(Delim::Vector),
                    pos,
                });
                stack.push((
                    inner,
                    0,
                    Some(Tok {
                        kind: TokKind::Close(Delim::Vector),
                        pos: None,
                    }),
                ));
                continue;
            }
            Item::Block { block: inner, .. } => {
                out.push(Tok {
                    kind: TokKind::Open(Delim::Block),
                    pos,
                });
                stack.push((
                    inner.items(),
                    0,
                    Some(Tok {
                        kind: TokKind::Close(Delim::Block),
                        pos: None,
                    }),
                ));
                continue;
            }
        };
        out.push(Tok { kind, pos });
    }
    out
}

/// A prepared copy of a block built by `REFLECT`: literal limits checked, values built.
pub fn prepare(block: &Block, profile: &Profile) -> Result<Arc<Block>, LangError> {
    let tokens = flatten(block);
    let depths = check_structure(&tokens)?;
    build(&tokens, &depths, Some(profile))
}
