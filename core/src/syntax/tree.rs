//! The token tree of a program, a User Word body or a CodeBlock.
//!
//! A [`Block`] keeps every token as written (number lexeme, string content, name
//! spelling, `|`, VENT directives, line breaks), grouped so that a vector literal or
//! a nested block is one [`Item`]. Display, equality and `REFLECT` work on the
//! tokens. A block also has a once-filled cell of type `C` for what a later layer
//! derives from it (the runtime keeps its compiled form there): the tree is generic
//! over it, so this layer knows nothing of what runs.

use super::Pos;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// A name token: its spelling as written and its normalized form
/// (docs/reference/lexical.md#names-and-case). Which Word it denotes is decided when its block
/// compiles, against the running vocabulary.
#[derive(Clone, Debug)]
pub struct Name {
    /// The name exactly as written.
    pub written: Arc<str>,
    /// Alias mapped to its Word, otherwise upper-cased.
    pub normalized: Arc<str>,
    /// [`name_hash`] of the normalized form, computed once: a loop looks the same
    /// name up on every iteration.
    pub hash: u64,
}

impl Name {
    /// Normalize a written name.
    pub fn new(written: &str) -> Name {
        let normalized: Arc<str> = normalize(written).into();
        Name {
            written: written.into(),
            hash: name_hash(&normalized),
            normalized,
        }
    }
}

/// The hash tables of names use: randomly seeded once per process (a program
/// chooses its names, and names that collide by construction must not make lookups
/// linear), so a name's hash can be computed when it is parsed.
pub fn name_hash(normalized: &str) -> u64 {
    use std::hash::BuildHasher;
    static SEED: OnceLock<foldhash::quality::RandomState> = OnceLock::new();
    SEED.get_or_init(foldhash::quality::RandomState::default)
        .hash_one(normalized)
}

/// The normalized form of a name: the alias's Word, else the full Unicode upper case.
pub fn normalize(written: &str) -> String {
    match alias_target(written) {
        Some(word) => word.to_string(),
        None => written.to_uppercase(),
    }
}

/// The twelve symbolic aliases of docs/reference/lexical.md#names-and-case and the Words they
/// denote.
pub const ALIASES: [(&str, &str); 12] = [
    ("+", "ADD"),
    ("-", "SUB"),
    ("*", "MUL"),
    ("/", "DIV"),
    ("=", "EQ"),
    ("!=", "NEQ"),
    ("<", "LT"),
    ("<=", "LTE"),
    (">", "GT"),
    (">=", "GTE"),
    ("%", "MOD"),
    ("^", "VENT"),
];

/// The Word an exact alias spelling denotes.
pub fn alias_target(spelling: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(a, _)| *a == spelling)
        .map(|(_, w)| *w)
}

/// One unit of code.
#[derive(Debug)]
pub enum Item<C> {
    /// A number literal (its value is built when the block is compiled).
    Number {
        /// The lexeme as written.
        lexeme: Arc<str>,
        /// Source position.
        pos: Option<Pos>,
    },
    /// A string literal.
    Str {
        /// The content.
        text: Arc<str>,
        /// Source position.
        pos: Option<Pos>,
    },
    /// A name token (a Word reference, or data when directly inside a vector literal).
    Name {
        /// The name.
        name: Name,
        /// Source position.
        pos: Option<Pos>,
    },
    /// A vector literal: its element tokens.
    Vector {
        /// The tokens between the brackets.
        items: Arc<[Item<C>]>,
        /// Its nesting depth as written: 1 + the deepest vector literal directly
        /// inside (a block inside starts a count of its own), for `nestingDepth`.
        depth: u32,
        /// Position of `[`.
        pos: Option<Pos>,
    },
    /// A code-block literal.
    Block {
        /// The block.
        block: Arc<Block<C>>,
        /// Position of `{`.
        pos: Option<Pos>,
    },
    /// The VENT directive (`^` or any case of `VENT` outside a vector literal).
    Vent {
        /// Source position.
        pos: Option<Pos>,
    },
    /// The clause separator `|`.
    Bar {
        /// Source position.
        pos: Option<Pos>,
    },
    /// A line break (statement boundary).
    LineBreak {
        /// Source position.
        pos: Option<Pos>,
    },
}

impl<C> Item<C> {
    /// The item's source position, if it has one.
    pub fn pos(&self) -> Option<Pos> {
        match self {
            Item::Number { pos, .. }
            | Item::Str { pos, .. }
            | Item::Name { pos, .. }
            | Item::Vector { pos, .. }
            | Item::Block { pos, .. }
            | Item::Vent { pos }
            | Item::Bar { pos }
            | Item::LineBreak { pos } => *pos,
        }
    }

    /// Whether the item is a line break.
    pub fn is_line_break(&self) -> bool {
        matches!(self, Item::LineBreak { .. })
    }
}

impl<C> Clone for Item<C> {
    // By hand: a derive would ask `C: Clone`, but an item only shares its blocks.
    fn clone(&self) -> Item<C> {
        match self {
            Item::Number { lexeme, pos } => Item::Number {
                lexeme: lexeme.clone(),
                pos: *pos,
            },
            Item::Str { text, pos } => Item::Str {
                text: text.clone(),
                pos: *pos,
            },
            Item::Name { name, pos } => Item::Name {
                name: name.clone(),
                pos: *pos,
            },
            Item::Vector { items, depth, pos } => Item::Vector {
                items: items.clone(),
                depth: *depth,
                pos: *pos,
            },
            Item::Block { block, pos } => Item::Block {
                block: block.clone(),
                pos: *pos,
            },
            Item::Vent { pos } => Item::Vent { pos: *pos },
            Item::Bar { pos } => Item::Bar { pos: *pos },
            Item::LineBreak { pos } => Item::LineBreak { pos: *pos },
        }
    }
}

/// What a name standing directly inside a vector literal denotes
/// (docs/reference/lexical.md#vector-literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameLiteral {
    /// `TRUE` or `FALSE`, in any case.
    Bool(bool),
    /// `NIL`, in any case.
    Nil,
    /// Any other name: the String it spells.
    Str,
}

/// What the name `written` denotes as an element of a vector literal.
pub fn name_literal(written: &str) -> NameLiteral {
    match written.to_uppercase().as_str() {
        "TRUE" => NameLiteral::Bool(true),
        "FALSE" => NameLiteral::Bool(false),
        "NIL" => NameLiteral::Nil,
        _ => NameLiteral::Str,
    }
}

/// The names a vector literal spells when every element denotes a String — a string
/// literal, or a name other than `TRUE`, `FALSE` and `NIL`
/// (docs/reference/lexical.md#vector-literals) — as written; `None` when an element denotes
/// anything else. Only such a literal names bindings for the static tools (`[ 'A' B ] BIND`,
/// docs/contracts.md#how-inference-works-and-its-gaps and docs/contracts.md#what-check-promises):
/// `BIND` refuses any other name Vector at run time, so it binds nothing.
pub fn literal_string_elements<C>(items: &[Item<C>]) -> Option<Vec<&str>> {
    items
        .iter()
        .filter(|el| !el.is_line_break())
        .map(|el| match el {
            Item::Str { text, .. } => Some(&**text),
            Item::Name { name, .. } if name_literal(&name.written) == NameLiteral::Str => {
                Some(&*name.written)
            }
            _ => None,
        })
        .collect()
}

/// The guard and body blocks of a COND clause `{ guard | body }`.
pub type Halves<C> = (Arc<Block<C>>, Arc<Block<C>>);

/// The token runs before and after a block's first top-level `|`.
pub type Split<'a, C> = (&'a [Item<C>], &'a [Item<C>]);

/// A token sequence: a program, a User Word body or the content of a CodeBlock.
#[derive(Debug)]
pub struct Block<C> {
    items: Vec<Item<C>>,
    /// Index of the last item that is not a line break.
    last_significant: Option<usize>,
    /// Number of `|` tokens directly in this block.
    bars: usize,
    /// What a later layer derived from the block, filled once (the runtime's
    /// compiled form; left empty when deriving it fails, so it is tried again).
    derived: OnceLock<Arc<C>>,
    /// The (guard, body) halves around the first top-level `|`, built once.
    halves: OnceLock<Option<Halves<C>>>,
    /// The byte length of the block's written text, measured once.
    written: OnceLock<u64>,
}

impl<C> Block<C> {
    /// A block of `items` as written (compiled when it first runs, or by the parser).
    pub fn new(items: Vec<Item<C>>) -> Block<C> {
        let last_significant = items.iter().rposition(|i| !i.is_line_break());
        let bars = items
            .iter()
            .filter(|i| matches!(i, Item::Bar { .. }))
            .count();
        Block {
            items,
            last_significant,
            bars,
            derived: OnceLock::new(),
            halves: OnceLock::new(),
            written: OnceLock::new(),
        }
    }

    /// The items.
    #[inline]
    pub fn items(&self) -> &[Item<C>] {
        &self.items
    }

    /// Index of the last item that is not a line break.
    #[inline]
    pub fn last_significant(&self) -> Option<usize> {
        self.last_significant
    }

    /// Number of `|` tokens directly inside.
    #[inline]
    pub fn bar_count(&self) -> usize {
        self.bars
    }

    /// Whether the block holds nothing but line breaks.
    pub fn is_empty(&self) -> bool {
        self.last_significant.is_none()
    }

    /// What was derived from the block (its compiled form), once it has been.
    #[inline]
    pub fn compiled(&self) -> Option<&Arc<C>> {
        self.derived.get()
    }

    /// The derived form: the one stored, else `make`'s, stored now (a concurrent
    /// first use keeps the first stored).
    #[inline]
    pub fn compiled_or(&self, make: impl FnOnce() -> Arc<C>) -> &Arc<C> {
        self.derived.get_or_init(make)
    }

    /// The byte length of `{ tokens }` as [`write_block`] writes it, measured once (a
    /// walk over the tokens, iterative over nesting) without writing it.
    pub fn written_len(&self) -> u64 {
        *self.written.get_or_init(|| {
            let mut work: Vec<&[Item<C>]> = vec![&self.items];
            // `{` and ` }`, and one separator per token (the first one's is the space
            // after `{`), for this block; nested groups add their own.
            let mut bytes = 3u64;
            while let Some(items) = work.pop() {
                for item in items {
                    bytes = bytes.saturating_add(1).saturating_add(match item {
                        Item::Number { lexeme, .. } => lexeme.len() as u64,
                        Item::Str { text, .. } => text.len() as u64 + 2,
                        Item::Name { name, .. } => name.written.len() as u64,
                        Item::Vent { .. } | Item::Bar { .. } | Item::LineBreak { .. } => 1,
                        Item::Vector { items, .. } => {
                            work.push(items);
                            3
                        }
                        Item::Block { block, .. } => {
                            work.push(block.items());
                            3
                        }
                    });
                }
            }
            bytes
        })
    }

    /// Token equality of docs/reference/domains.md#value-equality: lexemes compared exactly, every
    /// VENT equal to every other.
    pub fn same_tokens(&self, other: &Block<C>) -> bool {
        items_equal(&self.items, &other.items)
    }

    /// The guard and body blocks around the first top-level `|` (built once: a COND
    /// in a loop splits the same clause block on every call; each half compiles once).
    pub fn halves(&self) -> Option<&Halves<C>> {
        self.halves
            .get_or_init(|| {
                self.split_bar().map(|(g, b)| {
                    (
                        Arc::new(Block::new(g.to_vec())),
                        Arc::new(Block::new(b.to_vec())),
                    )
                })
            })
            .as_ref()
    }

    /// Split at the single top-level `|` into (guard, body) item runs.
    pub fn split_bar(&self) -> Option<Split<'_, C>> {
        let i = self
            .items
            .iter()
            .position(|i| matches!(i, Item::Bar { .. }))?;
        Some((&self.items[..i], &self.items[i + 1..]))
    }
}

/// The tokens directly inside a grouping item (vector literal or block), if it is one.
fn children<C>(item: &Item<C>) -> Option<&[Item<C>]> {
    match item {
        Item::Vector { items, .. } => Some(items),
        Item::Block { block, .. } => Some(block.items()),
        _ => None,
    }
}

/// Token equality of two runs, iterative over nesting.
fn items_equal<C>(a: &[Item<C>], b: &[Item<C>]) -> bool {
    let mut work: Vec<Split<'_, C>> = vec![(a, b)];
    while let Some((xs, ys)) = work.pop() {
        if xs.len() != ys.len() {
            return false;
        }
        for (x, y) in xs.iter().zip(ys) {
            let same = match (x, y) {
                (Item::Number { lexeme: p, .. }, Item::Number { lexeme: q, .. }) => p == q,
                (Item::Str { text: p, .. }, Item::Str { text: q, .. }) => p == q,
                (Item::Name { name: p, .. }, Item::Name { name: q, .. }) => p.written == q.written,
                (Item::Vector { items: p, .. }, Item::Vector { items: q, .. }) => {
                    work.push((p, q));
                    true
                }
                (Item::Block { block: p, .. }, Item::Block { block: q, .. }) => {
                    if !Arc::ptr_eq(p, q) {
                        work.push((p.items(), q.items()));
                    }
                    true
                }
                (Item::Vent { .. }, Item::Vent { .. })
                | (Item::Bar { .. }, Item::Bar { .. })
                | (Item::LineBreak { .. }, Item::LineBreak { .. }) => true,
                _ => false,
            };
            if !same {
                return false;
            }
        }
    }
    true
}

/// Hash consistent with [`Block::same_tokens`], iterative over nesting.
pub fn hash_items<C, H: Hasher>(items: &[Item<C>], state: &mut H) {
    let mut work: Vec<&[Item<C>]> = vec![items];
    while let Some(items) = work.pop() {
        items.len().hash(state);
        for item in items {
            match item {
                Item::Number { lexeme, .. } => (0u8, lexeme).hash(state),
                Item::Str { text, .. } => (1u8, text).hash(state),
                Item::Name { name, .. } => (2u8, &name.written).hash(state),
                Item::Vector { items, .. } => {
                    3u8.hash(state);
                    work.push(items);
                }
                Item::Block { block, .. } => {
                    4u8.hash(state);
                    work.push(block.items());
                }
                Item::Vent { .. } => 5u8.hash(state),
                Item::Bar { .. } => 6u8.hash(state),
                Item::LineBreak { .. } => 7u8.hash(state),
            }
        }
    }
}

enum Piece<'a, C> {
    Item(&'a Item<C>),
    Text(&'static str),
}

/// Write the display of a token run (docs/reference/domains.md): tokens separated by single spaces,
/// VENT as `^`, a line break as a raw LF. Iterative over nesting.
pub fn write_items<C>(items: &[Item<C>], out: &mut String) {
    let _ = write_items_polled(items, out, &mut |_| Ok::<(), std::convert::Infallible>(()));
}

/// [`write_items`], reporting one unit for every piece written to `tick` (a host's
/// meter), which may stop the walk: a block nested 100,000 deep writes as many pieces.
pub fn write_items_polled<C, E>(
    items: &[Item<C>],
    out: &mut String,
    tick: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    let mut work: Vec<Piece<'_, C>> = Vec::new();
    push_run(items, &mut work);
    while let Some(piece) = work.pop() {
        tick(1)?;
        let item = match piece {
            Piece::Text(t) => {
                out.push_str(t);
                continue;
            }
            Piece::Item(item) => item,
        };
        match item {
            Item::Number { lexeme, .. } => out.push_str(lexeme),
            Item::Str { text, .. } => {
                out.push('\'');
                out.push_str(text);
                out.push('\'');
            }
            Item::Name { name, .. } => out.push_str(&name.written),
            Item::Vent { .. } => out.push('^'),
            Item::Bar { .. } => out.push('|'),
            Item::LineBreak { .. } => out.push('\n'),
            Item::Vector { .. } | Item::Block { .. } => {
                let inner = children(item).unwrap_or(&[]);
                let (open, close) = if matches!(item, Item::Vector { .. }) {
                    ("[", " ]")
                } else {
                    ("{", " }")
                };
                out.push_str(open);
                work.push(Piece::Text(close));
                if !inner.is_empty() {
                    push_run(inner, &mut work);
                    work.push(Piece::Text(" "));
                }
            }
        }
    }
    Ok(())
}

/// Queue a run of items (separated by single spaces) so that it pops in order.
fn push_run<'a, C>(items: &'a [Item<C>], work: &mut Vec<Piece<'a, C>>) {
    for (i, item) in items.iter().enumerate().rev() {
        work.push(Piece::Item(item));
        if i > 0 {
            work.push(Piece::Text(" "));
        }
    }
}

/// Write `{ tokens }` (or `{ }`).
pub fn write_block<C>(block: &Block<C>, out: &mut String) {
    let _ = write_block_polled(block, out, &mut |_| Ok::<(), std::convert::Infallible>(()));
}

/// [`write_block`], reporting its pieces to `tick` ([`write_items_polled`]).
pub fn write_block_polled<C, E>(
    block: &Block<C>,
    out: &mut String,
    tick: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    out.push('{');
    if !block.items().is_empty() {
        out.push(' ');
        write_items_polled(block.items(), out, tick)?;
    }
    out.push_str(" }");
    Ok(())
}

/// Drop a block iteratively (deeply nested blocks must not overflow the native stack).
pub fn drop_block<C>(block: Arc<Block<C>>) {
    let mut work: Vec<Arc<Block<C>>> = vec![block];
    while let Some(mut b) = work.pop() {
        let Some(inner) = Arc::get_mut(&mut b) else {
            continue;
        };
        let mut items = std::mem::take(&mut inner.items);
        // The compiled form and the halves share every nested block with the items
        // (their tokens are clones of these): dropped while the items still hold
        // those blocks, they release no block, so nothing recurses.
        drop(inner.derived.take());
        drop(inner.halves.take());
        while let Some(item) = items.pop() {
            match item {
                Item::Block { block, .. } => work.push(block),
                Item::Vector { items: mut v, .. } => {
                    if let Some(slice) = Arc::get_mut(&mut v) {
                        for it in slice.iter_mut() {
                            items.push(std::mem::replace(it, Item::LineBreak { pos: None }));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl<C> Drop for Block<C> {
    fn drop(&mut self) {
        let nests = |items: &[Item<C>]| {
            items
                .iter()
                .any(|i| matches!(i, Item::Block { .. } | Item::Vector { .. }))
        };
        if !nests(&self.items) && self.halves.get().is_none() {
            return;
        }
        let mut rest = Block::new(std::mem::take(&mut self.items));
        rest.derived = std::mem::take(&mut self.derived);
        rest.halves = std::mem::take(&mut self.halves);
        drop_block(Arc::new(rest));
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::parser::{flatten, parse};
    use std::collections::hash_map::DefaultHasher;
    use std::hash::Hasher;

    #[test]
    fn deep_blocks_display_compare_hash_and_drop_without_recursion() {
        let depth = 200_000;
        let source = format!("{}x{}", "{ ".repeat(depth), " }".repeat(depth));
        let a = parse::<()>(&source, 0).unwrap().block;
        let b = parse::<()>(&source, 0).unwrap().block;
        let mut shown = String::new();
        super::write_items(a.items(), &mut shown);
        assert_eq!(shown, source);
        assert!(a.same_tokens(&b));
        let (mut ha, mut hb) = (DefaultHasher::new(), DefaultHasher::new());
        super::hash_items(a.items(), &mut ha);
        super::hash_items(b.items(), &mut hb);
        assert_eq!(ha.finish(), hb.finish());
        let tokens = flatten(&a);
        assert_eq!(tokens.len(), 2 * depth + 1);
        drop((a, b));
    }

    #[test]
    fn the_written_length_is_the_length_written() {
        for source in [
            "",
            "1",
            "1 'a b' [ x [ ] { } ] ^ 3 \n 2 { 1 | 2 }",
            "{ { 1 } [ 2 [ 3 ] ] 'q' }",
            "[ ] { }",
        ] {
            let block = parse::<()>(source, 0).unwrap().block;
            let mut shown = String::new();
            super::write_block(&block, &mut shown);
            assert_eq!(
                block.written_len(),
                shown.len() as u64,
                "{source:?} → {shown:?}"
            );
        }
    }
}
