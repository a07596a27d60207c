//! Clause selection: the protocol of the Word whose role is
//! [`Role::ReadsClauses`](crate::word::Role::ReadsClauses) (COND in the Core vocabulary).
//!
//! The Word hands its clause blocks and target to the machine; the machine runs each
//! guard on the target in an isolated frame and the first that leaves TRUE selects
//! its body, whose top value is the result (docs/reference/frames.md#isolation-of-block-frames).
//! Reading the clauses lives here, once, for the Word's own call and for the compiled form, which
//! reads the clauses of literal blocks just before the Word when it compiles them, so a loop does
//! not split the same blocks again on every call. Messages take the reader's name and its
//! else-guard from the registry: core names no Word.

use crate::code::{Block, Item};
use crate::outcome::{err, LangError};
use crate::value::Value;
use smallvec::SmallVec;
use std::sync::Arc;

/// One clause: a guard, run on the target, and the body run when it leaves TRUE.
#[derive(Debug)]
pub enum Clause {
    /// `{ guard | body }` already compiled whole: the guard runs up to the `|` and
    /// the body after it, in one frame (a loop's clause costs no second frame).
    Split {
        /// The clause block.
        block: Arc<Block>,
        /// Whether the guard is the else-guard (the body runs at once).
        else_guard: bool,
    },
    /// A guard block and a body block, compiled apart when each first runs (pair
    /// style, or the halves of a clause block not compiled yet).
    Pair {
        /// The guard; `None` for the else-guard.
        guard: Option<Arc<Block>>,
        /// The body.
        body: Arc<Block>,
    },
}

/// The clauses of one selection, in order (inline for the common few).
pub type Clauses = SmallVec<[Clause; 3]>;

/// A selection the machine runs: the clauses and the target their guards and the
/// chosen body see ([`crate::Ctx::select_clauses`] builds it).
pub struct Selection {
    pub(crate) clauses: Arc<Clauses>,
    pub(crate) target: Value,
}

/// How the clause reader is called in messages, and its always-true guard.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    /// The reader's name (`COND`).
    pub name: &'a str,
    /// The spelling of the always-true guard (`IDLE`).
    pub else_guard: &'a str,
}

/// Whether a run of tokens is exactly the else-guard.
fn is_else_guard(items: &[Item], else_guard: &str) -> bool {
    let mut it = items.iter().filter(|i| !i.is_line_break());
    matches!((it.next(), it.next()), (Some(Item::Name { name, .. }), None) if &*name.normalized == else_guard)
}

/// Read clause blocks (bottom to top) into clauses, per docs/words/control.md#cond: every
/// block `{ guard | body }`, or none with a `|` and the blocks taken in pairs.
pub fn read(blocks: &[Arc<Block>], reader: Reader<'_>) -> Result<Clauses, LangError> {
    let Reader { name, else_guard } = reader;
    let with_bar = blocks.iter().filter(|b| b.bar_count() > 0).count();
    if with_bar == blocks.len() {
        let mut out = Clauses::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            let halves = b.halves().filter(|_| b.bar_count() == 1);
            let Some((g, body)) = halves.filter(|(g, b)| !g.is_empty() && !b.is_empty()) else {
                return Err(err::invalid_argument(format!(
                    "{name} clause {} must be `{{ guard | body }}` with exactly one '|' and tokens on both sides",
                    i + 1
                )));
            };
            let else_guard = is_else_guard(g.items(), else_guard);
            out.push(if b.compiled().is_some() {
                Clause::Split {
                    block: b.clone(),
                    else_guard,
                }
            } else {
                Clause::Pair {
                    guard: (!else_guard).then(|| g.clone()),
                    body: body.clone(),
                }
            });
        }
        return Ok(out);
    }
    if with_bar > 0 {
        return Err(err::invalid_argument(format!(
            "{name} clauses mix the `{{ guard | body }}` style with `{{ guard }} {{ body }}` pairs; use one style",
        )));
    }
    if blocks.len() % 2 == 1 {
        return Err(err::invalid_argument(format!(
            "{name} got {} blocks; pair style needs an even number (`{{ guard }} {{ body }}` per clause)",
            blocks.len()
        )));
    }
    Ok(blocks
        .chunks(2)
        .map(|pair| Clause::Pair {
            guard: (!is_else_guard(pair[0].items(), else_guard)).then(|| pair[0].clone()),
            body: pair[1].clone(),
        })
        .collect())
}

/// No clause fired.
pub fn none_fired(reader: Reader<'_>) -> LangError {
    err::invalid_argument(format!(
        "no {} clause fired; add a final `{{ {} | … }}` clause",
        reader.name, reader.else_guard
    ))
}

/// A guard left nothing.
pub fn guard_left_nothing(reader: &str, index: usize) -> LangError {
    err::block_violation(format!(
        "{reader} guard {} left no value; it must leave TRUE or FALSE",
        index + 1
    ))
}

/// A guard left something other than a Boolean on top (`got` describes it).
pub fn guard_left_non_boolean(reader: &str, index: usize, got: &str) -> LangError {
    err::block_violation(format!(
        "{reader} guard {} must leave exactly a Boolean on top, but left {got}",
        index + 1
    ))
}

/// The selected body left nothing.
pub fn body_left_nothing(reader: &str) -> LangError {
    err::block_violation(format!("the {reader} clause body left no value"))
}
