//! Tokens → a validated tree of tokens as written
//! (docs/reference/lexical.md#structural-validation).
//!
//! Parsing runs in two passes over the token list, both iterative (no recursion,
//! so no nesting can overflow the native stack): pass 1 checks structure —
//! brackets, `|` placement, VENT units, zero denominators; pass 2 builds the tree,
//! measuring every vector literal's depth. The runtime then compiles the tree
//! (its `compile` module), checking the literal limits (digits, width,
//! nesting) in token order, so structural errors always win over limit errors.

use super::growth::push_bounded;
use super::lexer::{self, Delim, DirectiveLine, Tok, TokKind};
use super::literal;
use super::tree::{Block, Item, Name};
use super::{ParseFailure, Pos, Progress, Stopped, SyntaxError, Trap, Unwatched};
use std::sync::Arc;

/// A parsed program: its tree and its `#:` directive lines.
#[derive(Debug)]
pub struct Program<C> {
    /// The top-level code.
    pub block: Arc<Block<C>>,
    /// `#:` lines, in source order.
    pub directives: Vec<DirectiveLine>,
}

impl<C> Clone for Program<C> {
    // By hand: a derive would ask `C: Clone`; a program only shares its tree.
    fn clone(&self) -> Program<C> {
        Program {
            block: self.block.clone(),
            directives: self.directives.clone(),
        }
    }
}

/// The tree of a whole program as written: tokens, then structure.
pub fn parse<C>(source: &str, origin: u16) -> Result<Program<C>, SyntaxError> {
    parse_from(source, origin, 1)
}

/// [`parse`] of a source whose first line is line `first_line` (see [`lexer::lex_from`]).
pub fn parse_from<C>(
    source: &str,
    origin: u16,
    first_line: u32,
) -> Result<Program<C>, SyntaxError> {
    parse_watched(source, origin, first_line, &mut Unwatched).map_err(ParseFailure::into_syntax)
}

/// [`parse_from`], reporting its work to `progress` (every character lexed, every token
/// checked and placed), so a host can stop the parse of a huge text.
pub fn parse_watched<C>(
    source: &str,
    origin: u16,
    first_line: u32,
    progress: &mut dyn Progress,
) -> Result<Program<C>, ParseFailure> {
    let lexed = lexer::lex_watched(source, origin, first_line, progress)?;
    check_structure_watched(&lexed.tokens, progress)?;
    let block = build_watched(&lexed.tokens, progress)?;
    Ok(Program {
        block,
        directives: lexed.directives,
    })
}

/// Tokens a structure check or a tree build handles between two reports.
const REPORT_EVERY: usize = 64;

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

/// Pass 1: structural validation.
pub fn check_structure(tokens: &[Tok]) -> Result<(), SyntaxError> {
    check_structure_watched(tokens, &mut Unwatched).map_err(ParseFailure::into_syntax)
}

/// [`check_structure`], reporting every token checked to `progress`.
pub fn check_structure_watched(
    tokens: &[Tok],
    progress: &mut dyn Progress,
) -> Result<(), ParseFailure> {
    // (delimiter, token index)
    let mut open: Vec<(Delim, usize)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if i % REPORT_EVERY == REPORT_EVERY - 1 {
            progress.advance(REPORT_EVERY as u64)?;
        }
        match &t.kind {
            TokKind::Open(d) => open.push((*d, i)),
            TokKind::Close(d) => {
                let (oc, cc) = delim_chars(*d);
                let Some((od, oi)) = open.pop() else {
                    return Err(
                        SyntaxError::message(format!("unmatched '{cc}'{}", describe(t)))
                            .at(t.pos)
                            .into(),
                    );
                };
                if od != *d {
                    let (ooc, _) = delim_chars(od);
                    return Err(SyntaxError::message(format!(
                        "'{cc}'{} closes the '{ooc}'{}; expected the '{ooc}' to be closed first",
                        describe(t),
                        describe(&tokens[oi])
                    ))
                    .at(t.pos)
                    .into());
                }
                let _ = oc;
            }
            TokKind::Bar => {
                if !matches!(open.last(), Some((Delim::Block, _))) {
                    return Err(SyntaxError::message(format!(
                        "'|'{} may stand only directly inside a code block {{ … }}",
                        describe(t)
                    ))
                    .at(t.pos)
                    .into());
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
                    let e = SyntaxError::message(format!(
                        "VENT (^){} has no following source unit on its line; write the fallback right after it, e.g. `^ 0`",
                        describe(t)
                    ))
                    .at(t.pos);
                    let after_number = i > 0 && matches!(tokens[i - 1].kind, TokKind::Number(_));
                    return Err(if after_number {
                        e.trap(Trap::VentAfterNumber)
                    } else {
                        e
                    }
                    .into());
                }
            }
            TokKind::Number(lexeme) => {
                if literal::scan(lexeme).is_some_and(|l| l.has_zero_denominator()) {
                    return Err(SyntaxError::message(format!(
                        "the fraction literal {lexeme}{} has a zero denominator",
                        describe(t)
                    ))
                    .at(t.pos)
                    .into());
                }
            }
            TokKind::Str(_) | TokKind::Name(_) | TokKind::LineBreak => {}
        }
    }
    if let Some((d, oi)) = open.last() {
        let (oc, cc) = delim_chars(*d);
        return Err(SyntaxError::message(format!(
            "unclosed '{oc}'{}: add a matching '{cc}'",
            describe(&tokens[*oi])
        ))
        .at(tokens[*oi].pos)
        .into());
    }
    Ok(())
}

struct Group<C> {
    delim: Option<Delim>,
    pos: Option<Pos>,
    items: Vec<Item<C>>,
    /// The deepest vector literal directly inside (vector groups only).
    depth: u32,
}

/// Pass 2: the tree of structurally valid tokens, as written.
pub fn build<C>(tokens: &[Tok]) -> Arc<Block<C>> {
    match build_watched(tokens, &mut Unwatched) {
        Ok(b) => b,
        Err(_) => Arc::new(Block::new(Vec::new())),
    }
}

/// [`build`], reporting every token placed to `progress`.
pub fn build_watched<C>(
    tokens: &[Tok],
    progress: &mut dyn Progress,
) -> Result<Arc<Block<C>>, Stopped> {
    let mut stack: Vec<Group<C>> = vec![Group {
        delim: None,
        pos: None,
        items: Vec::new(),
        depth: 0,
    }];
    for (i, t) in tokens.iter().enumerate() {
        if i % REPORT_EVERY == REPORT_EVERY - 1 {
            progress.advance(REPORT_EVERY as u64)?;
        }
        let item = match &t.kind {
            TokKind::Number(lexeme) => Item::Number {
                lexeme: lexeme.as_str().into(),
                pos: t.pos,
            },
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
                stack.push(Group {
                    delim: Some(*d),
                    pos: t.pos,
                    items: Vec::new(),
                    depth: 0,
                });
                continue;
            }
            TokKind::Close(_) => {
                // Structure was validated: an unmatched close cannot come here, and
                // the root group is never closed.
                if stack.len() < 2 {
                    continue;
                }
                let Some(g) = stack.pop() else { continue };
                match g.delim {
                    Some(Delim::Vector) => {
                        let depth = g.depth + 1;
                        if let Some(parent) = stack.last_mut() {
                            if parent.delim == Some(Delim::Vector) {
                                parent.depth = parent.depth.max(depth);
                            }
                        }
                        Item::Vector {
                            items: g.items.into(),
                            depth,
                            pos: g.pos,
                        }
                    }
                    _ => Item::Block {
                        block: Arc::new(Block::new(g.items)),
                        pos: g.pos,
                    },
                }
            }
        };
        if let Some(group) = stack.last_mut() {
            push_bounded(&mut group.items, item);
        }
    }
    // Structure was validated: only the root group is left.
    let root = stack
        .into_iter()
        .next()
        .map(|g| g.items)
        .unwrap_or_default();
    Ok(Arc::new(Block::new(root)))
}

/// The tokens of a code tree, in order (the inverse of [`build`]).
pub fn flatten<C>(block: &Block<C>) -> Vec<Tok> {
    let mut out = Vec::new();
    // (items, next index, closing token to emit when done)
    type Pending<'a, C> = (&'a [Item<C>], usize, Option<Tok>);
    let mut stack: Vec<Pending<'_, C>> = vec![(block.items(), 0, None)];
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
