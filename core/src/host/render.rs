//! Pricing and fitting the value stack into a response (MCP-36, MCP-52, MCP-53;
//! docs/mcp/envelope.md).
//!
//! A slot costs the UTF-8 bytes of its compact node JSON plus the UTF-8 bytes of its
//! JSON-encoded `stackDisplay` string. The cost is computed from the value's sizes,
//! never by serializing it: Vectors share sub-Vectors behind `Arc`s, so a few `MAP`
//! steps can build a value with 10^18 leaves whose rendering would never finish,
//! while its distinct structure is tiny. [`Sizer`] walks each distinct Vector,
//! String, CodeBlock, algebraic Number and wide integer once (memoized by address),
//! iteratively, and saturates instead of overflowing.
//!
//! An algebraic node holds a rational approximation whose digits only a continued
//! fraction expansion can tell; pricing every algebraic leaf that way made an elided
//! slot of 100,000 distinct square roots cost seconds. So an algebraic node is priced
//! with its approximation at its widest ([`approximation_bound`]: a denominator of ten
//! digits, a numerator of as many digits as ⌈|x|⌉·10⁹ has, a sign unless every term is
//! positive): its slot cost is an upper bound of its written bytes, exact for every
//! other node, and only the slots that arrive whole are ever approximated (once per
//! distinct value, [`crate::node::NodeWriter`]).
//!
//! [`plan`] then chooses which slots arrive whole: walking from the top of the stack
//! down, a slot is kept when its cost fits what is left of the budget and its depth
//! is within the client-parsable bound, and elided otherwise, so one huge slot does
//! not cost the small slots below it.

use crate::code::Block;
use crate::limits::{Halt, Meter};
use crate::node::{pieces, APPROXIMATION_BOUND};
use crate::number::int::decimal_digits_bound;
use crate::number::{Alg, Int, Number};
use crate::value::{Value, Vector};
use std::marker::PhantomData;
use std::sync::Arc;

/// A memo table keyed by address ([`crate::memo`]: it grows without a pause).
type Memo<V> = crate::memo::Memo<usize, V>;

/// The value-stack budget on `ok` results (MCP-53): 440 KiB.
pub const VALUE_STACK_BUDGET: u64 = 450_560;

/// The value-stack budget on `error` results (MCP-53).
pub const ERROR_STACK_BUDGET: u64 = 65_536;

/// The rendered sizes of one value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// UTF-8 bytes of the compact node JSON (MCP-29).
    pub node: u64,
    /// UTF-8 bytes of the display (MCP-31) once JSON-escaped, without the two quotes.
    pub display: u64,
    /// Depth of the value (docs/reference/domains.md#vector): 0 for a non-Vector.
    pub depth: u64,
}

impl Size {
    /// The slot cost of MCP-53: node bytes plus the bytes of the JSON-encoded display.
    pub fn cost(&self) -> u64 {
        self.node.saturating_add(self.display).saturating_add(2)
    }
}

/// Bytes of text priced between two ticks of the meter.
const ESCAPE_CHUNK_BYTES: usize = 64 * 1024;

/// Bytes `s` takes inside a JSON string literal written by [`crate::json::write_str`].
pub fn escaped_len(s: &str) -> u64 {
    let mut n = 0u64;
    for c in s.chars() {
        n += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8() as u64,
        };
    }
    n
}

/// Prices values without rendering them, remembering every shared part it priced.
///
/// Memo entries are keyed by address and hold only sizes: the sizer borrows every value
/// it prices for its own lifetime `'v`, so no address it remembers can be reused by
/// another value while it exists, and dropping it frees its tables without walking them.
pub struct Sizer<'v> {
    vectors: Memo<Size>,
    strings: Memo<u64>,
    blocks: Memo<u64>,
    algebraics: Memo<Size>,
    integers: Memo<u64>,
    powers_of_ten: rustc_hash::FxHashMap<u64, Int>,
    /// Distinct Vectors walked (each once).
    walked: u64,
    /// The meter each value priced ticks, when the host watches the pricing.
    meter: Option<Meter>,
    /// The halt that stopped a watched pricing (its sizes are then meaningless).
    halted: Option<Halt>,
    values: PhantomData<&'v Value>,
}

impl Default for Sizer<'_> {
    fn default() -> Self {
        Sizer {
            vectors: Memo::default(),
            strings: Memo::default(),
            blocks: Memo::default(),
            algebraics: Memo::default(),
            integers: Memo::default(),
            powers_of_ten: Default::default(),
            walked: 0,
            meter: None,
            halted: None,
            values: PhantomData,
        }
    }
}

impl<'v> Sizer<'v> {
    /// A sizer with empty memo tables.
    pub fn new() -> Sizer<'v> {
        Sizer::default()
    }

    /// How many distinct Vectors this sizer has walked.
    pub fn vectors_walked(&self) -> u64 {
        self.walked
    }

    /// The rendered sizes of `v`.
    pub fn size(&mut self, v: &'v Value) -> Size {
        match v {
            Value::Vector(items) => self.vector(items),
            leaf => self.leaf(leaf),
        }
    }

    /// Sizes of a Vector: a post-order walk over distinct Vectors on an explicit stack.
    fn vector(&mut self, root: &'v Vector) -> Size {
        if let Some(s) = self.vectors.get(&key(root)) {
            return *s;
        }
        // (vector, next child, sizes of the children so far: node and display bytes
        // summed, depth the deepest)
        let mut work: Vec<(&'v Vector, usize, Size)> = vec![(root, 0, Size::default())];
        loop {
            let Some((vector, next, acc)) = work.last_mut() else {
                return Size::default();
            };
            if let Some(child) = vector.items().get(*next) {
                *next += 1;
                if let Some(m) = &self.meter {
                    if let Err(h) = m.tick(1) {
                        self.halted = Some(h);
                        return Size::default();
                    }
                }
                let child_size = match child {
                    Value::Vector(inner) => match self.vectors.get(&key(inner)) {
                        Some(s) => *s,
                        None => {
                            work.push((inner, 0, Size::default()));
                            continue;
                        }
                    },
                    leaf => self.leaf(leaf),
                };
                absorb(acc, child_size);
                continue;
            }
            let Some((vector, _, acc)) = work.pop() else {
                return Size::default();
            };
            // A Vector nested fifty thousand deep ends fifty thousand Vectors in a row.
            if !self.tick(1) {
                return Size::default();
            }
            let n = vector.len() as u64;
            let size = Size {
                node: pieces()
                    .vector
                    .saturating_add(acc.node)
                    .saturating_add(n.saturating_sub(1)),
                display: 3u64.saturating_add(n).saturating_add(acc.display),
                depth: acc.depth.saturating_add(1),
            };
            self.walked += 1;
            // Only storage held more than once can be met again: memoizing every fresh
            // Vector of a big result grew the table through rehashes of millions.
            if vector.is_shared() {
                self.vectors.insert(key(vector), size);
            }
            match work.last_mut() {
                Some((_, _, parent)) => absorb(parent, size),
                None => return size,
            }
        }
    }

    /// Sizes of a value that is not a Vector.
    fn leaf(&mut self, v: &'v Value) -> Size {
        let (node, display) = match v {
            Value::Number(n) => return self.number(n),
            Value::Bool(true) => (pieces().true_node, 4),
            Value::Bool(false) => (pieces().false_node, 5),
            Value::Nil(r) => (pieces().nil + r.id().len() as u64, 3),
            Value::Str(s) => {
                let k = Arc::as_ptr(s) as *const u8 as usize;
                let e = match self.strings.get(&k) {
                    Some(e) => *e,
                    None => {
                        let e = self.escaped(s);
                        self.strings.insert(k, e);
                        e
                    }
                };
                // The node holds the text as a JSON string; the display is 'text'.
                (pieces().string + e + 2, e + 2)
            }
            Value::Block(b) => {
                let k = Arc::as_ptr(b) as usize;
                let e = match self.blocks.get(&k) {
                    Some(e) => *e,
                    None => {
                        let e = self.escaped_block(b);
                        self.blocks.insert(k, e);
                        e
                    }
                };
                (pieces().block + e + 2, e)
            }
            Value::Vector(items) => return self.vector(items),
        };
        Size {
            node,
            display,
            depth: 0,
        }
    }

    /// Tick the watching meter for `units`; false once the pricing was stopped.
    fn tick(&mut self, units: u64) -> bool {
        if self.halted.is_some() {
            return false;
        }
        if let Some(m) = &self.meter {
            if let Err(h) = m.tick(units) {
                self.halted = Some(h);
                return false;
            }
        }
        true
    }

    /// [`escaped_len`] of a text, read a check's worth at a time.
    fn escaped(&mut self, s: &str) -> u64 {
        let mut total = 0u64;
        let mut rest = s;
        while !rest.is_empty() {
            let mut cut = rest.len().min(ESCAPE_CHUNK_BYTES);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (chunk, tail) = rest.split_at(cut);
            if !self.tick(crate::price::text_units(chunk.len() as u64)) {
                return total;
            }
            total = total.saturating_add(escaped_len(chunk));
            rest = tail;
        }
        total
    }

    /// [`escaped_len`] of a block's display (`{ tokens }`, as [`write_block`] writes
    /// it), summed token by token without writing it, ticking as it goes.
    fn escaped_block(&mut self, b: &Block) -> u64 {
        // `{`, ` }`, and before every token a separator (after `{`, a space).
        let mut total = 3u64;
        let mut work: Vec<&[crate::code::Item]> = vec![b.items()];
        while let Some(items) = work.pop() {
            for item in items {
                use crate::code::Item;
                total = total.saturating_add(1).saturating_add(match item {
                    Item::Number { lexeme, .. } => lexeme.len() as u64,
                    Item::Str { text, .. } => self.escaped(text) + 2,
                    Item::Name { name, .. } => self.escaped(&name.written),
                    Item::Vent { .. } | Item::Bar { .. } => 1,
                    // A line break is written raw and escaped as `\n`.
                    Item::LineBreak { .. } => 2,
                    Item::Vector { items, .. } => {
                        work.push(items);
                        3
                    }
                    Item::Block { block, .. } => {
                        work.push(block.items());
                        3
                    }
                });
                if !self.tick(1) {
                    return total;
                }
            }
        }
        total
    }

    /// Sizes of a Number node and its display.
    fn number(&mut self, n: &'v Number) -> Size {
        match n {
            Number::Rat(r) => {
                let num = self.int_len_of(r.numer());
                let den = self.int_len_of(r.denom());
                Size {
                    node: pieces().rational + num + den,
                    display: num + 1 + den,
                    depth: 0,
                }
            }
            Number::Alg(a) => {
                let k = Arc::as_ptr(a) as usize;
                if let Some(s) = self.algebraics.get(&k) {
                    return *s;
                }
                // Bounding and sizing a term costs microseconds: a unit a term would let
                // a check's worth of distinct roots run for milliseconds.
                if !self.tick(4 * a.terms().len() as u64) {
                    return Size::default();
                }
                let (num_digits, den_digits) = approximation_bound(a, self);
                let mut node = pieces().algebraic + num_digits + den_digits;
                let mut display = 0u64;
                let terms = a.terms();
                if terms.is_empty() {
                    display = 3; // `0/1`; never reached: an algebraic value has terms.
                }
                for (i, (c, d)) in terms.iter().enumerate() {
                    let num = self.int_len_of(c.numer());
                    let den = self.int_len_of(c.denom());
                    let rad = self.int_len_of(d);
                    node += pieces().term + num + den + rad + u64::from(i > 0);
                    let negative = c.signum() < 0;
                    // A sign between terms always; before the first only when negative.
                    let sign = u64::from(i > 0 || negative);
                    let magnitude = num - u64::from(negative);
                    display += sign
                        + if d.is_one() {
                            magnitude + 1 + den
                        } else if c.numer().abs().is_one() && c.denom().is_one() {
                            "sqrt()".len() as u64 + rad
                        } else {
                            magnitude + 1 + den + "*sqrt()".len() as u64 + rad
                        };
                }
                let s = Size {
                    node,
                    display,
                    depth: 0,
                };
                self.algebraics.insert(k, s);
                s
            }
        }
    }

    /// Length of the decimal text of `i` (with its minus sign), computed from its bit
    /// length; only when that leaves two candidates is `|i|` compared with a power of ten.
    pub fn int_len(&mut self, i: &Int) -> u64 {
        self.int_len_with(i, None)
    }

    /// [`Sizer::int_len`] of an integer the sizer borrows for its lifetime: a comparison
    /// with a power of ten is remembered by the integer's address.
    fn int_len_of(&mut self, i: &'v Int) -> u64 {
        let key = match i {
            Int::Big(m) => Some(Arc::as_ptr(m) as usize),
            Int::Small(_) => None,
        };
        self.int_len_with(i, key)
    }

    fn int_len_with(&mut self, i: &Int, key: Option<usize>) -> u64 {
        match i {
            Int::Small(v) => {
                let mut m = v.unsigned_abs();
                let mut digits = 1;
                while m >= 10 {
                    m /= 10;
                    digits += 1;
                }
                digits + u64::from(*v < 0)
            }
            Int::Big(_) => {
                let bits = i.bit_length();
                // 2^(bits-1) <= |i| < 2^bits, so |i| has lo or lo + 1 digits.
                let lo = decimal_digits_bound(bits - 1);
                let hi = decimal_digits_bound(bits);
                let sign = u64::from(i.is_negative());
                if lo == hi {
                    return lo + sign;
                }
                if let Some(n) = key.and_then(|k| self.integers.get(&k)) {
                    return *n;
                }
                let power = self
                    .powers_of_ten
                    .entry(lo)
                    .or_insert_with(|| Int::from(10i64).pow(lo));
                let digits = if i.abs() >= *power { hi } else { lo };
                let n = digits + sign;
                if let Some(k) = key {
                    self.integers.insert(k, n);
                }
                n
            }
        }
    }
}

/// The most bytes the approximation p/q (q ≤ [`APPROXIMATION_BOUND`]) of an algebraic
/// number can take in its node: (numerator, denominator) digits. |p| ≤ ⌈|x|⌉·10⁹, and
/// ⌈|x|⌉ ≤ Σ ⌈|c|·(⌊√d⌋ + 1)⌉ over its terms c·√d, an integer read off the terms
/// without approximating anything; the numerator has a sign unless every coefficient
/// is positive (a positive sum).
pub fn approximation_bound(a: &Alg, sizer: &mut Sizer) -> (u64, u64) {
    let mut bound = Int::ZERO;
    let mut all_positive = true;
    for (c, d) in a.terms() {
        all_positive &= c.signum() > 0;
        let root = if d.is_one() {
            Int::ONE
        } else {
            d.isqrt().add(&Int::ONE)
        };
        // ⌈|num|·root / den⌉ = ⌊(|num|·root + den − 1) / den⌋.
        let scaled = c.numer().abs().mul(&root);
        let term = scaled.add(c.denom()).sub(&Int::ONE).div_rem(c.denom()).0;
        bound = bound.add(&term);
    }
    // The bound's digits and nine more for the factor 10⁹ (q ≤ 10⁹ has at most ten).
    let num = sizer.int_len(&bound) + 9 + u64::from(!all_positive);
    let den = APPROXIMATION_BOUND.to_string().len() as u64;
    (num, den)
}

/// The memo key of a Vector: the address of its element storage, unique among live
/// Vectors with elements (every empty Vector has the same sizes, so sharing a key is
/// harmless).
fn key(v: &Vector) -> usize {
    v.items().as_ptr() as usize
}

/// Fold a child's sizes into its parent's running totals.
fn absorb(acc: &mut Size, child: Size) {
    acc.node = acc.node.saturating_add(child.node);
    acc.display = acc.display.saturating_add(child.display);
    acc.depth = acc.depth.max(child.depth);
}

/// How a response is fitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    /// Bytes the kept slots may cost together (MCP-53).
    pub stack_budget: u64,
    /// Deepest value that arrives whole: a deeper one is elided as if it did not fit,
    /// since each value level adds two JSON nesting levels a client must parse (MCP-47;
    /// docs/mcp/limits.md).
    pub max_depth: u64,
}

impl Fit {
    /// Nothing is elided (tests and tools that show every value whole).
    pub const UNLIMITED: Fit = Fit {
        stack_budget: u64::MAX,
        max_depth: u64::MAX,
    };

    /// The CLI's `run --json` (MCP-95; README.md): nothing is elided for size, but a value
    /// nested deeper than the MCP server's bound is, as the server elides it (MCP-47),
    /// so every document parses with standard tools (Python's and `serde_json`'s parsers
    /// refuse a value 50,000 deep).
    pub const CLI: Fit = Fit {
        stack_budget: u64::MAX,
        max_depth: crate::limits::Profile::MCP_LOCAL_STDIO.nesting_depth,
    };

    /// The MCP server's fitting for `stack_budget`: depth bounded by the
    /// `mcp-local-stdio` profile's `nestingDepth`.
    pub fn mcp(stack_budget: u64) -> Fit {
        Fit {
            stack_budget,
            max_depth: crate::limits::Profile::MCP_LOCAL_STDIO.nesting_depth,
        }
    }
}

/// Elements of an elided Vector its record shows at each end (envelope 9).
pub const PREVIEW_ELEMENTS: usize = 5;

/// The most one previewed element's node may measure, in bytes: a larger element ends
/// the preview on its side.
pub const PREVIEW_ELEMENT_BYTES: u64 = 512;

/// Characters of an elided String its record shows at each end.
pub const PREVIEW_CHARS: usize = 64;

/// The most the previews of one envelope measure together, in bytes: they are given from
/// the top of the stack down while this lasts, so many elided slots cannot make a result
/// large with their previews.
pub const PREVIEW_BUDGET: u64 = 8_192;

/// What an elided slot's record shows of its value (envelope 9): the ends of a Vector or
/// of a String, so that a result too large to send whole still says how it begins and
/// ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preview {
    /// The first `head` and the last `tail` elements of a Vector (never overlapping).
    Elements {
        /// Elements from the front.
        head: usize,
        /// Elements from the back.
        tail: usize,
    },
    /// A String's text up to byte `head_end` and from byte `tail_start` (a char
    /// boundary, at or after `head_end`; equal to the length when there is no tail).
    Text {
        /// End of the head, in bytes.
        head_end: usize,
        /// Start of the tail, in bytes.
        tail_start: usize,
    },
}

/// Why and how one slot is elided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elision {
    /// Stack index (0 = bottom).
    pub index: usize,
    /// The node type of the value.
    pub kind: &'static str,
    /// Direct children, for a Vector.
    pub elements: Option<u64>,
    /// The slot cost (MCP-53).
    pub approx_bytes: u64,
    /// Term count, for an algebraic Number.
    pub algebraic_terms: Option<u64>,
    /// The ends of the value the record shows ([`with_previews`]).
    pub preview: Option<Preview>,
}

impl Elision {
    /// The slot's `stackDisplay` entry.
    pub fn display(&self) -> String {
        match (self.elements, self.algebraic_terms) {
            (Some(n), _) => format!(
                "<elided {} of {n} elements, ~{} bytes>",
                self.kind, self.approx_bytes
            ),
            (None, Some(t)) => format!(
                "<elided {} of {t} terms, ~{} bytes>",
                self.kind, self.approx_bytes
            ),
            (None, None) => format!("<elided {}, ~{} bytes>", self.kind, self.approx_bytes),
        }
    }
}

/// The node type name of a value (MCP-29).
pub fn node_type(v: &Value) -> &'static str {
    match v {
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Str(_) => "string",
        Value::Vector(_) => "vector",
        Value::Nil(_) => "nil",
        Value::Block(_) => "codeBlock",
    }
}

/// A run of two or more consecutive elided slots, delivered as one record (envelope
/// schema 6): one `elidedRun` node, one `stackDisplay` entry and one
/// `stackElided.runs` entry, however many slots it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElidedRun {
    /// Stack index of the run's lowest slot (0 = bottom).
    pub start: usize,
    /// Slots in the run (at least 2).
    pub count: usize,
    /// The sum of the slot costs of the run (MCP-53), saturating.
    pub approx_bytes: u64,
}

impl ElidedRun {
    /// The run's `stackDisplay` entry.
    pub fn display(&self) -> String {
        format!(
            "<elided {} slots, ~{} bytes>",
            self.count, self.approx_bytes
        )
    }
}

/// One piece of a fitted stack, bottom to top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The slot at this index arrives whole.
    Kept(usize),
    /// A single elided slot with its own record (MCP-36).
    Elided(Elision),
    /// Consecutive elided slots as one record.
    Run(ElidedRun),
}

/// Which slots arrive whole and how the others are elided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The pieces in stack order; a run stands for all of its slots.
    pub pieces: Vec<Piece>,
    /// Slots that arrive whole.
    pub kept: usize,
    /// Slots elided, singly or in runs.
    pub elided: usize,
}

impl Plan {
    /// The single elided slots, in stack order.
    pub fn singles(&self) -> impl Iterator<Item = &Elision> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Elided(e) => Some(e),
            _ => None,
        })
    }

    /// The runs of elided slots, in stack order.
    pub fn runs(&self) -> impl Iterator<Item = &ElidedRun> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Run(r) => Some(r),
            _ => None,
        })
    }
}

/// The rendered sizes of every slot of `stack`, bottom to top, priced with one shared
/// memo (a value shared by many slots is walked once).
pub fn slot_sizes(stack: &[Value]) -> Vec<Size> {
    let mut sizer = Sizer::new();
    stack.iter().map(|v| sizer.size(v)).collect()
}

/// [`slot_sizes`], ticking `meter` for every value priced (the walk over distinct
/// structure, once per distinct part), so the host can stop a pricing.
pub fn slot_sizes_metered(stack: &[Value], meter: &Meter) -> Result<Vec<Size>, Halt> {
    let mut sizer = Sizer::new();
    sizer.meter = Some(meter.clone());
    let mut sizes = Vec::with_capacity(stack.len());
    for v in stack {
        meter.tick(1)?;
        let size = sizer.size(v);
        if let Some(h) = sizer.halted.take() {
            return Err(h);
        }
        sizes.push(size);
    }
    Ok(sizes)
}

/// Which slots of `stack` (bottom to top) are elided under `fit`.
/// Selection walks from the top down and keeps each slot whose cost fits what is left;
/// consecutive elided slots then form runs.
pub fn plan(stack: &[Value], fit: &Fit) -> Plan {
    if *fit == Fit::UNLIMITED {
        return Plan {
            pieces: (0..stack.len()).map(Piece::Kept).collect(),
            kept: stack.len(),
            elided: 0,
        };
    }
    plan_sized(stack, &slot_sizes(stack), fit)
}

/// [`plan`] with the slot sizes already known (`sizes[i]` is the size of `stack[i]`), so
/// a host that refits with a smaller budget prices each slot once.
pub fn plan_sized(stack: &[Value], sizes: &[Size], fit: &Fit) -> Plan {
    let mut keep = vec![false; stack.len()];
    let mut remaining = fit.stack_budget;
    for (index, size) in sizes.iter().enumerate().take(stack.len()).rev() {
        let cost = size.cost();
        if size.depth <= fit.max_depth && cost <= remaining {
            remaining -= cost;
            keep[index] = true;
        }
    }
    let mut plan = Plan::default();
    let mut index = 0;
    while index < stack.len() {
        if keep[index] {
            plan.pieces.push(Piece::Kept(index));
            plan.kept += 1;
            index += 1;
            continue;
        }
        let start = index;
        let mut approx_bytes = 0u64;
        while index < stack.len() && !keep[index] {
            approx_bytes = approx_bytes.saturating_add(sizes[index].cost());
            index += 1;
        }
        let count = index - start;
        plan.elided += count;
        plan.pieces.push(if count == 1 {
            let v = &stack[start];
            Piece::Elided(Elision {
                index: start,
                kind: node_type(v),
                elements: v.as_vector().map(|x| x.len() as u64),
                approx_bytes,
                algebraic_terms: match v {
                    Value::Number(Number::Alg(a)) => Some(a.terms().len() as u64),
                    _ => None,
                },
                preview: None,
            })
        } else {
            Piece::Run(ElidedRun {
                start,
                count,
                approx_bytes,
            })
        });
    }
    plan
}

/// Give the single elided slots of `plan` their previews, from the top of the stack down
/// while [`PREVIEW_BUDGET`] lasts: a Vector's first and last elements (at most
/// [`PREVIEW_ELEMENTS`] each, every one whole, within [`PREVIEW_ELEMENT_BYTES`] and nested
/// shallowly enough that its record stays within `fit`'s depth), a String's first and
/// last [`PREVIEW_CHARS`] characters. Pricing ticks `meter`; `Err` when it stopped.
pub fn with_previews(
    stack: &[Value],
    plan: &mut Plan,
    fit: &Fit,
    meter: &Meter,
) -> Result<(), Halt> {
    let mut sizer = Sizer::new();
    sizer.meter = Some(meter.clone());
    let mut remaining = PREVIEW_BUDGET;
    for piece in plan.pieces.iter_mut().rev() {
        let Piece::Elided(e) = piece else { continue };
        e.preview = match &stack[e.index] {
            Value::Vector(items) => {
                let preview = element_preview(items.items(), &mut sizer, fit, &mut remaining);
                if let Some(h) = sizer.halted.take() {
                    return Err(h);
                }
                preview
            }
            Value::Str(text) => text_preview(text, &mut remaining),
            _ => None,
        };
        if remaining == 0 {
            break;
        }
    }
    Ok(())
}

/// The ends of a Vector's elements that fit `remaining` (which they use up).
fn element_preview<'v>(
    items: &'v [Value],
    sizer: &mut Sizer<'v>,
    fit: &Fit,
    remaining: &mut u64,
) -> Option<Preview> {
    // An element costs its node and a comma; its record sits two JSON levels deeper than
    // it would inside its Vector's `value`, so it must be a level shallower.
    let mut take = |v: &'v Value, remaining: &mut u64| -> bool {
        let hopeless = match v {
            Value::Vector(x) => x.len() as u64 > PREVIEW_ELEMENT_BYTES / 2,
            Value::Str(t) => t.len() as u64 > PREVIEW_ELEMENT_BYTES,
            _ => false,
        };
        if hopeless || sizer.halted.is_some() {
            return false;
        }
        let size = sizer.size(v);
        let cost = size.node.saturating_add(1);
        if size.node > PREVIEW_ELEMENT_BYTES
            || size.depth.saturating_add(2) > fit.max_depth
            || cost > *remaining
        {
            return false;
        }
        *remaining -= cost;
        true
    };
    // A side that holds anything also costs its member: `,"head":[]`.
    const SIDE: u64 = 10;
    let mut side = |remaining: &mut u64, next: &mut dyn FnMut(usize) -> Option<&'v Value>| {
        let Some(mut left) = remaining.checked_sub(SIDE) else {
            return 0;
        };
        let mut taken = 0;
        while let Some(v) = next(taken) {
            if !take(v, &mut left) {
                break;
            }
            taken += 1;
        }
        if taken > 0 {
            *remaining = left;
        }
        taken
    };
    let head = side(remaining, &mut |i| {
        (i < items.len().min(PREVIEW_ELEMENTS)).then(|| &items[i])
    });
    let tail = side(remaining, &mut |i| {
        (i < PREVIEW_ELEMENTS && head + i < items.len()).then(|| &items[items.len() - 1 - i])
    });
    (head + tail > 0).then_some(Preview::Elements { head, tail })
}

/// The ends of a String that fit `remaining` (which they use up): the whole text when it
/// has at most twice [`PREVIEW_CHARS`] characters, else its first and last
/// [`PREVIEW_CHARS`] (so a tail means that text between was left out); `None` when even
/// they do not fit.
fn text_preview(text: &str, remaining: &mut u64) -> Option<Preview> {
    if text.is_empty() {
        return None;
    }
    let (head_end, tail_start) = match (
        text.char_indices().nth(2 * PREVIEW_CHARS),
        text.char_indices().nth(PREVIEW_CHARS),
        text.char_indices().rev().nth(PREVIEW_CHARS - 1),
    ) {
        (Some(_), Some((head_end, _)), Some((tail_start, _))) => (head_end, tail_start),
        _ => (text.len(), text.len()),
    };
    // The texts, their quotes and the members' names and punctuation.
    let cost = escaped_len(&text[..head_end])
        .saturating_add(escaped_len(&text[tail_start..]))
        .saturating_add(20);
    if cost > *remaining {
        return None;
    }
    *remaining -= cost;
    Some(Preview::Text {
        head_end,
        tail_start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(v: &Value) -> Size {
        let mut node = String::new();
        crate::node::write_node(&mut node, v);
        let shown = crate::json::quoted(&crate::display::display(v));
        Size {
            node: node.len() as u64,
            display: shown.len() as u64 - 2,
            depth: v.depth() as u64,
        }
    }

    #[test]
    fn sizes_equal_the_rendered_bytes_of_small_values() {
        use crate::outcome::NilReason;
        let program = crate::compile::parse(
            "{ 1 'a\"b' [ x ] ^ 2 | 3\n4 } { } [ 1 'x' { 2 } ]",
            &crate::Profile::CLI_LOCAL,
            0,
        )
        .map(|p| p.block);
        let code = program.map(|b| {
            crate::compile::compile(
                &b,
                &mut crate::limits::Meter::new(crate::Profile::CLI_LOCAL),
                crate::word::registry(),
            )
        });
        let block: Vec<Value> = code
            .iter()
            .flatten()
            .flat_map(|c| c.ops())
            .filter_map(|op| match &op.kind {
                crate::compile::OpKind::Push(v @ (Value::Block(_) | Value::Vector(_))) => {
                    Some(v.clone())
                }
                _ => None,
            })
            .collect();
        assert_eq!(block.len(), 3);
        let mut values = vec![
            Value::num(0),
            Value::num(-12345),
            Value::num(crate::Rat::new(Int::from(-3i64), Int::from(4i64))),
            Value::Bool(true),
            Value::Bool(false),
            Value::Nil(NilReason::DivisionByZero),
            Value::str(""),
            Value::str("tab\there \"q\" \u{7} é ✓"),
            Value::vector(vec![]),
            Value::vector(vec![Value::vector(vec![]), Value::num(7)]),
        ];
        values.extend(block);
        let nested = Value::vector(values.clone());
        values.push(Value::vector(vec![nested.clone(), nested]));
        let mut sizer = Sizer::new();
        for v in &values {
            assert_eq!(sizer.size(v), measured(v), "{}", crate::display::display(v));
        }
    }

    #[test]
    fn bit_length_brackets_are_exact() {
        // 2^b has floor(b log10 2) + 1 digits.
        for b in 1u64..63 {
            let digits = (1i64 << b).to_string().len() as u64;
            assert_eq!(decimal_digits_bound(b), digits, "b = {b}");
        }
        // Known values far out: 2^1000 has 302 digits, 2^262144 has 78914.
        assert_eq!(decimal_digits_bound(1000), 302);
        assert_eq!(decimal_digits_bound(262_144), 78_914);
    }

    #[test]
    fn small_integers_and_escapes() {
        let mut s = Sizer::new();
        for v in [0i64, 9, 10, -1, -10, i64::MAX, i64::MIN] {
            assert_eq!(s.int_len(&Int::from(v)), v.to_string().len() as u64);
        }
        assert_eq!(
            escaped_len("a\"b\\c/é\n\u{1}"),
            1 + 2 + 1 + 2 + 1 + 1 + 2 + 2 + 6
        );
    }
}
