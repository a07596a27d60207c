//! Code: the token tree of a program, a User Word body or a CodeBlock.
//!
//! A [`Block`] keeps every token as written (number lexeme, string content, name
//! spelling, `|`, VENT directives, line breaks), grouped so that a vector literal or
//! a nested block is one [`Item`]. Display, equality and `REFLECT` work on the
//! tokens; evaluation works on the same tree with values built once at parse time.

use crate::number::Number;
use crate::outcome::Pos;
use crate::value::Value;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A name token: its spelling as written and its normalized form (§2.5).
#[derive(Clone, Debug)]
pub struct Name {
    /// The name exactly as written.
    pub written: Arc<str>,
    /// Alias mapped to its Word, otherwise upper-cased.
    pub normalized: Arc<str>,
    /// The Core Word the normalized name denotes, if any (resolved once).
    pub core: Option<crate::word::WordId>,
}

impl Name {
    /// Normalize and resolve a written name.
    pub fn new(written: &str) -> Name {
        let normalized: Arc<str> = normalize(written).into();
        let core = crate::word::registry().lookup(&normalized);
        Name {
            written: written.into(),
            normalized,
            core,
        }
    }
}

/// The normalized form of a name: the alias's Word, else the full Unicode upper case.
pub fn normalize(written: &str) -> String {
    match alias_target(written) {
        Some(word) => word.to_string(),
        None => written.to_uppercase(),
    }
}

/// The twelve symbolic aliases of §2.5 and the Words they denote.
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
#[derive(Clone, Debug)]
pub enum Item {
    /// A number literal; `value` is built at parse time (or when a reflected block is prepared).
    Number {
        /// The lexeme as written.
        lexeme: Arc<str>,
        /// The exact value, once built.
        value: Option<Number>,
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
    /// A vector literal: its element tokens, and its value once built.
    Vector {
        /// The tokens between the brackets.
        items: Arc<[Item]>,
        /// The Vector it denotes, once built.
        value: Option<Value>,
        /// Position of `[`.
        pos: Option<Pos>,
    },
    /// A code-block literal.
    Block {
        /// The block.
        block: Arc<Block>,
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

impl Item {
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

/// A token sequence: a program, a User Word body or the content of a CodeBlock.
#[derive(Debug)]
pub struct Block {
    items: Vec<Item>,
    /// Index of the last item that is not a line break.
    last_significant: Option<usize>,
    /// Number of `|` tokens directly in this block.
    bars: usize,
    /// Whether every literal value is built (false for blocks made by `REFLECT`).
    prepared: bool,
}

impl Block {
    /// A block of `items` whose literal values are built (`prepared`) or not.
    pub fn new(items: Vec<Item>, prepared: bool) -> Block {
        let last_significant = items.iter().rposition(|i| !i.is_line_break());
        let bars = items
            .iter()
            .filter(|i| matches!(i, Item::Bar { .. }))
            .count();
        Block {
            items,
            last_significant,
            bars,
            prepared,
        }
    }

    /// The items.
    #[inline]
    pub fn items(&self) -> &[Item] {
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

    /// Whether literal values are built.
    #[inline]
    pub fn is_prepared(&self) -> bool {
        self.prepared
    }

    /// Token equality of §4.8: lexemes compared exactly, every VENT equal to every other.
    pub fn same_tokens(&self, other: &Block) -> bool {
        items_equal(&self.items, &other.items)
    }

    /// Split at the single top-level `|` into (guard, body) item runs.
    pub fn split_bar(&self) -> Option<(&[Item], &[Item])> {
        let i = self
            .items
            .iter()
            .position(|i| matches!(i, Item::Bar { .. }))?;
        Some((&self.items[..i], &self.items[i + 1..]))
    }
}

fn items_equal(a: &[Item], b: &[Item]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| item_equal(x, y))
}

fn item_equal(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Number { lexeme: x, .. }, Item::Number { lexeme: y, .. }) => x == y,
        (Item::Str { text: x, .. }, Item::Str { text: y, .. }) => x == y,
        (Item::Name { name: x, .. }, Item::Name { name: y, .. }) => x.written == y.written,
        (Item::Vector { items: x, .. }, Item::Vector { items: y, .. }) => items_equal(x, y),
        (Item::Block { block: x, .. }, Item::Block { block: y, .. }) => x.same_tokens(y),
        (Item::Vent { .. }, Item::Vent { .. })
        | (Item::Bar { .. }, Item::Bar { .. })
        | (Item::LineBreak { .. }, Item::LineBreak { .. }) => true,
        _ => false,
    }
}

/// Hash consistent with [`Block::same_tokens`].
pub fn hash_items<H: Hasher>(items: &[Item], state: &mut H) {
    items.len().hash(state);
    for item in items {
        match item {
            Item::Number { lexeme, .. } => (0u8, lexeme).hash(state),
            Item::Str { text, .. } => (1u8, text).hash(state),
            Item::Name { name, .. } => (2u8, &name.written).hash(state),
            Item::Vector { items, .. } => {
                3u8.hash(state);
                hash_items(items, state);
            }
            Item::Block { block, .. } => {
                4u8.hash(state);
                hash_items(block.items(), state);
            }
            Item::Vent { .. } => 5u8.hash(state),
            Item::Bar { .. } => 6u8.hash(state),
            Item::LineBreak { .. } => 7u8.hash(state),
        }
    }
}

/// Write the display of a token run (§10.1): tokens separated by single spaces,
/// VENT as `^`, a line break as a raw LF.
pub fn write_items(items: &[Item], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match item {
            Item::Number { lexeme, .. } => out.push_str(lexeme),
            Item::Str { text, .. } => {
                out.push('\'');
                out.push_str(text);
                out.push('\'');
            }
            Item::Name { name, .. } => out.push_str(&name.written),
            Item::Vector { items, .. } => {
                out.push('[');
                if !items.is_empty() {
                    out.push(' ');
                    write_items(items, out);
                }
                out.push_str(" ]");
            }
            Item::Block { block, .. } => write_block(block, out),
            Item::Vent { .. } => out.push('^'),
            Item::Bar { .. } => out.push('|'),
            Item::LineBreak { .. } => out.push('\n'),
        }
    }
}

/// Write `{ tokens }` (or `{ }`).
pub fn write_block(block: &Block, out: &mut String) {
    out.push('{');
    if !block.items().is_empty() {
        out.push(' ');
        write_items(block.items(), out);
    }
    out.push_str(" }");
}

/// Drop a block iteratively (deeply nested blocks must not overflow the native stack).
pub fn drop_block(block: Arc<Block>) {
    let mut work: Vec<Arc<Block>> = vec![block];
    while let Some(mut b) = work.pop() {
        let Some(inner) = Arc::get_mut(&mut b) else {
            continue;
        };
        let mut items = std::mem::take(&mut inner.items);
        while let Some(item) = items.pop() {
            match item {
                Item::Block { block, .. } => work.push(block),
                Item::Vector {
                    items: mut v,
                    value,
                    ..
                } => {
                    drop(value);
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

impl Drop for Block {
    fn drop(&mut self) {
        if !self
            .items
            .iter()
            .any(|i| matches!(i, Item::Block { .. } | Item::Vector { .. }))
        {
            return;
        }
        let items = std::mem::take(&mut self.items);
        drop_block(Arc::new(Block {
            items,
            last_significant: None,
            bars: 0,
            prepared: false,
        }));
    }
}
