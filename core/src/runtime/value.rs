//! The six value domains: Number, Boolean, String, Vector, NIL and CodeBlock.
//!
//! Values are cheap to clone: Strings, Vectors and CodeBlocks are shared behind
//! `Arc`, and Vectors are copy-on-write.

use crate::code::Block;
use crate::limits::{Halt, Meter};
use crate::number::Number;
use crate::outcome::NilReason;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// A value on the stack or inside a Vector.
#[derive(Clone, Debug)]
pub enum Value {
    /// An exact Number.
    Number(Number),
    /// TRUE or FALSE.
    Bool(bool),
    /// A sequence of Unicode scalar values.
    Str(Arc<str>),
    /// An ordered sequence of values.
    Vector(Vector),
    /// Absence, with its reason.
    Nil(NilReason),
    /// An unevaluated token sequence.
    Block(Arc<Block>),
}

/// Leaf statistics of a Vector, cached once computed (Vectors are immutable while
/// shared), so pricing a Vector that wraps a deep one does not walk it again. Vectors
/// can share sub-Vectors, so a few steps can build one with 2⁴⁰ leaves; everything here
/// is computed once per distinct Vector, and the Words read these instead of walking
/// the leaves (a walk would take forever while allocating nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafStats {
    /// Non-Vector leaves at any depth (0 for a Vector of empty Vectors), saturating.
    pub leaves: u64,
    /// Largest limb count over Number leaves (0 when there is none).
    pub limbs: u64,
    /// Largest term count over algebraic Number leaves (0 when there is none).
    pub terms: u64,
    /// Depth (docs/reference/domains.md#vector): 1 + the deepest element Vector's depth.
    pub depth: u64,
    /// Which kinds of leaves occur at any depth.
    pub kinds: LeafKinds,
    /// Whether the Vector is rectangular (docs/reference/domains.md#vector: every Vector at one
    /// level has the same length, and no level mixes Vectors with other values).
    pub rectangular: bool,
    /// The values a walk of the whole Vector visits: itself and every element at any
    /// depth, counted as if shared parts were copied (saturating).
    pub nodes: u64,
    /// UTF-8 bytes of every String leaf and written bytes of every CodeBlock leaf
    /// ([`text_weight`]), summed as if shared parts were copied (saturating).
    pub text_bytes: u64,
    /// The most bytes of one String or CodeBlock leaf.
    pub longest_text: u64,
    /// [`Number::big_limbs`] summed over the Number leaves (saturating).
    pub big_limbs: u64,
    /// [`Number::decimal_price`] summed over the Number leaves (saturating).
    pub decimal_price: u64,
}

/// What walking a value costs, known in O(1) (docs/reference/pricing-and-limits.md#weights):
/// every measure counts shared parts as if they were copied, since sharing saves memory,
/// not the work of a walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weight {
    /// Values a walk visits: the value itself and, for a Vector, every element at any depth.
    pub nodes: u64,
    /// Non-Vector values among them.
    pub leaves: u64,
    /// Bytes of text among them: String bytes and the written bytes of CodeBlocks.
    pub text_bytes: u64,
    /// The most bytes of text of one leaf.
    pub longest_text: u64,
    /// Limbs of the Numbers' integers wider than a machine word ([`Number::big_limbs`]).
    pub big_limbs: u64,
    /// What writing the Numbers in decimal costs ([`Number::decimal_price`]).
    pub decimal_price: u64,
}

/// Bytes of text of one leaf: a String's UTF-8 bytes, a CodeBlock's written bytes, 0
/// for any other value.
pub fn text_weight(v: &Value) -> u64 {
    match v {
        Value::Str(s) => s.len() as u64,
        Value::Block(b) => b.written_len(),
        _ => 0,
    }
}

/// Kinds of leaves that occur somewhere in a Vector (a bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafKinds(u8);

impl LeafKinds {
    /// A leaf that is neither a Number nor a NIL.
    pub const NON_NUMERIC: LeafKinds = LeafKinds(1);
    /// A Number leaf equal to zero.
    pub const ZERO: LeafKinds = LeafKinds(2);
    /// An irrational (algebraic) Number leaf.
    pub const ALGEBRAIC: LeafKinds = LeafKinds(4);
    /// A Number leaf that is not an integer.
    pub const NON_INTEGER: LeafKinds = LeafKinds(8);
    /// A CodeBlock leaf.
    pub const BLOCK: LeafKinds = LeafKinds(16);
    /// A NIL leaf.
    pub const NIL: LeafKinds = LeafKinds(32);
    /// A Number leaf that may have no finite decimal (JSON) form: an algebraic one, or a
    /// fraction whose denominator is not 2^a·5^b (or too wide to be judged here).
    pub const MAYBE_INEXACT: LeafKinds = LeafKinds(64);

    /// The kinds of one leaf value.
    pub fn of(v: &Value) -> LeafKinds {
        match v {
            // Integers first: the common leaf decides in two comparisons.
            Value::Number(Number::Rat(r)) if r.denom().is_one() => {
                if r.numer().is_zero() {
                    Self::ZERO
                } else {
                    LeafKinds(0)
                }
            }
            Value::Number(Number::Rat(r)) => {
                let decimal = match r.denom() {
                    crate::number::Int::Small(d) => {
                        let mut d = d.unsigned_abs();
                        d >>= d.trailing_zeros();
                        while d % 5 == 0 {
                            d /= 5;
                        }
                        d == 1
                    }
                    crate::number::Int::Big(_) => false,
                };
                if decimal {
                    Self::NON_INTEGER
                } else {
                    LeafKinds(Self::NON_INTEGER.0 | Self::MAYBE_INEXACT.0)
                }
            }
            Value::Number(Number::Alg(_)) => {
                LeafKinds(Self::ALGEBRAIC.0 | Self::NON_INTEGER.0 | Self::MAYBE_INEXACT.0)
            }
            Value::Nil(_) => Self::NIL,
            Value::Block(_) => LeafKinds(Self::NON_NUMERIC.0 | Self::BLOCK.0),
            _ => Self::NON_NUMERIC,
        }
    }

    /// Whether any of `kinds` occurs.
    pub fn any(self, kinds: LeafKinds) -> bool {
        self.0 & kinds.0 != 0
    }

    fn union(self, other: LeafKinds) -> LeafKinds {
        LeafKinds(self.0 | other.0)
    }
}

/// The measures of one algebraic leaf the statistics read, remembered for the last
/// algebraic value met (a Vector of copies of one value of hundreds of terms reads them
/// once, not once a copy).
#[derive(Clone, Default)]
struct AlgebraicMeasures {
    last: Option<(Arc<crate::number::Alg>, [u64; 4])>,
}

impl AlgebraicMeasures {
    /// (big limbs, decimal price, work limbs, work terms) of `n`.
    fn of(&mut self, a: &Arc<crate::number::Alg>, n: &Number) -> [u64; 4] {
        if let Some((last, m)) = &self.last {
            if Arc::ptr_eq(last, a) {
                return *m;
            }
        }
        let m = [
            n.big_limbs(),
            n.decimal_price(),
            n.work_limbs(),
            n.work_terms(),
        ];
        self.last = Some((a.clone(), m));
        m
    }
}

impl LeafStats {
    /// Fold one more leaf value (not a Vector) into the statistics.
    pub fn add_leaf(&mut self, v: &Value) {
        self.add_leaf_with(v, &mut AlgebraicMeasures::default());
    }

    /// [`LeafStats::add_leaf`], reading an algebraic leaf's measures through `memo`.
    fn add_leaf_with(&mut self, v: &Value, memo: &mut AlgebraicMeasures) {
        if let Value::Number(n @ Number::Alg(a)) = v {
            let [big, decimal, limbs, terms] = memo.of(a, n);
            self.leaves = self.leaves.saturating_add(1);
            self.nodes = self.nodes.saturating_add(1);
            self.big_limbs = self.big_limbs.saturating_add(big);
            self.decimal_price = self.decimal_price.saturating_add(decimal);
            self.limbs = self.limbs.max(limbs);
            self.terms = self.terms.max(terms);
            self.kinds = self.kinds.union(LeafKinds::of(v));
            return;
        }
        self.leaves = self.leaves.saturating_add(1);
        self.nodes = self.nodes.saturating_add(1);
        if let Value::Number(Number::Rat(r)) = v {
            if r.is_inline() {
                // Machine-word parts, the leaf of most Vectors: no wide integer to price
                // (big limbs and decimal price 0), one limb, no terms — read off without
                // walking the parts four times over.
                self.limbs = self.limbs.max(1);
                self.kinds = self.kinds.union(LeafKinds::of(v));
                return;
            }
        }
        match v {
            Value::Number(n) => {
                self.big_limbs = self.big_limbs.saturating_add(n.big_limbs());
                self.decimal_price = self.decimal_price.saturating_add(n.decimal_price());
            }
            Value::Str(_) | Value::Block(_) => {
                let t = text_weight(v);
                self.text_bytes = self.text_bytes.saturating_add(t);
                self.longest_text = self.longest_text.max(t);
            }
            _ => {}
        }
        if let Value::Number(n) = v {
            // The common leaf, a machine integer: one limb, no terms, zero or not.
            if let Number::Rat(r) = n {
                if let (crate::number::Int::Small(num), true) = (r.numer(), r.denom().is_one()) {
                    self.limbs = self.limbs.max(1);
                    if *num == 0 {
                        self.kinds = self.kinds.union(LeafKinds::ZERO);
                    }
                    return;
                }
            }
            self.limbs = self.limbs.max(n.work_limbs());
            self.terms = self.terms.max(n.work_terms());
        }
        self.kinds = self.kinds.union(LeafKinds::of(v));
    }

    /// Fold the statistics of a nested Vector into these.
    pub fn merge(&mut self, other: LeafStats) {
        self.leaves = self.leaves.saturating_add(other.leaves);
        self.nodes = self.nodes.saturating_add(other.nodes);
        self.text_bytes = self.text_bytes.saturating_add(other.text_bytes);
        self.longest_text = self.longest_text.max(other.longest_text);
        self.big_limbs = self.big_limbs.saturating_add(other.big_limbs);
        self.decimal_price = self.decimal_price.saturating_add(other.decimal_price);
        self.limbs = self.limbs.max(other.limbs);
        self.terms = self.terms.max(other.terms);
        self.kinds = self.kinds.union(other.kinds);
        // While accumulating children, `depth` holds the deepest child's depth.
        self.depth = self.depth.max(other.depth);
    }
}

/// A hasher seeded with a Vector's length.
fn start_hash(v: &Vector) -> std::hash::DefaultHasher {
    let mut h = std::hash::DefaultHasher::new();
    v.len().hash(&mut h);
    h
}

/// Whether two rectangular Vectors have the same shape: their first-element paths
/// decide it (O(depth)).
fn same_shape(a: &Vector, b: &Vector) -> bool {
    let (mut a, mut b) = (a, b);
    loop {
        if a.ptr_eq(b) {
            return true;
        }
        if a.len() != b.len() {
            return false;
        }
        match (a.items().first(), b.items().first()) {
            (Some(Value::Vector(x)), Some(Value::Vector(y))) => {
                a = x;
                b = y;
            }
            (Some(Value::Vector(_)), Some(_)) | (Some(_), Some(Value::Vector(_))) => return false,
            _ => return true,
        }
    }
}

/// Whether a Vector with these elements is rectangular, given that every element
/// Vector's statistics are already computed.
fn rectangular_items(items: &[Value]) -> bool {
    let mut first: Option<&Vector> = None;
    let mut leaves = false;
    for x in items {
        match x {
            Value::Vector(v) => {
                let rect = v.0.stats.get().is_some_and(|s| s.rectangular);
                if !rect || leaves {
                    return false;
                }
                match first {
                    None => first = Some(v),
                    Some(f) => {
                        if !same_shape(f, v) {
                            return false;
                        }
                    }
                }
            }
            _ => {
                if first.is_some() {
                    return false;
                }
                leaves = true;
            }
        }
    }
    true
}

#[derive(Clone, Debug, Default)]
struct VectorData {
    items: Vec<Value>,
    stats: OnceLock<LeafStats>,
    /// The structural hash of the elements (see [`Vector::structural_hash`]).
    hash: OnceLock<u64>,
}

/// A shared, copy-on-write sequence of values.
#[derive(Clone, Debug, Default)]
pub struct Vector(Arc<VectorData>);

impl Vector {
    /// A Vector of `items`.
    pub fn new(items: Vec<Value>) -> Vector {
        Vector(Arc::new(VectorData {
            items,
            stats: OnceLock::new(),
            hash: OnceLock::new(),
        }))
    }

    /// The empty Vector.
    pub fn empty() -> Vector {
        Vector::default()
    }

    /// The elements.
    #[inline]
    pub fn items(&self) -> &[Value] {
        &self.0.items
    }

    /// Number of outermost elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.items.len()
    }

    /// Whether the Vector is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.items.is_empty()
    }

    /// Mutable access, copying the elements first when they are shared.
    pub fn make_mut(&mut self) -> &mut Vec<Value> {
        let data = Arc::make_mut(&mut self.0);
        data.stats = OnceLock::new();
        data.hash = OnceLock::new();
        &mut data.items
    }

    /// The elements by value (without copying when not shared).
    pub fn into_vec(mut self) -> Vec<Value> {
        match Arc::get_mut(&mut self.0) {
            Some(data) => std::mem::take(&mut data.items),
            None => self.0.items.clone(),
        }
    }

    /// Whether the storage is held by more than this Vector (it may be met again in a
    /// walk, so a walk that memoizes by storage keeps it; a Vector held once cannot be).
    #[inline]
    pub fn is_shared(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }

    /// Whether two Vectors share their storage (then they are equal).
    #[inline]
    pub fn ptr_eq(&self, other: &Vector) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A hash of the elements consistent with value equality, computed once per distinct
    /// Vector (iteratively, caching every nested Vector on the way), so hashing a Vector
    /// that shares sub-Vectors costs its distinct structure, not its leaves. Fixed keys:
    /// the same value hashes the same in every run (hash order is never observable
    /// anyway).
    pub fn structural_hash(&self) -> u64 {
        use std::hash::DefaultHasher;
        if let Some(h) = self.0.hash.get() {
            return *h;
        }
        let mut work: Vec<(&Vector, usize, DefaultHasher)> = vec![(self, 0, start_hash(self))];
        loop {
            let (vector, next, state) = work
                .last_mut()
                .expect("the walk ends when the root is done");
            if let Some(child) = vector.items().get(*next) {
                *next += 1;
                match child {
                    Value::Vector(inner) => match inner.0.hash.get() {
                        Some(h) => (5u8, *h).hash(state),
                        None => {
                            let fresh = start_hash(inner);
                            work.push((inner, 0, fresh));
                        }
                    },
                    leaf => leaf.hash(state),
                }
                continue;
            }
            let (vector, _, state) = work.pop().expect("non-empty");
            let h = *vector.0.hash.get_or_init(|| state.finish());
            match work.last_mut() {
                Some((_, _, parent)) => (5u8, h).hash(parent),
                None => return h,
            }
        }
    }

    /// A Vector of `items` with its leaf statistics computed now, ticking `meter` for
    /// every element (and every algebraic leaf's terms) read: for the Words that build
    /// big Vectors, so the first [`Value::weight`] of their result — a walk no check can
    /// interrupt, milliseconds over a hundred thousand algebraic leaves — costs nothing.
    /// Nested Vectors should have been measured the same way (they are read once either
    /// way).
    pub fn new_measured(
        items: Vec<Value>,
        meter: &crate::limits::Meter,
    ) -> Result<Vector, crate::limits::Halt> {
        let mut stats = LeafStats::default();
        let mut memo = AlgebraicMeasures::default();
        for item in &items {
            match item {
                Value::Vector(inner) => {
                    meter.tick(1)?;
                    stats.merge(inner.leaf_stats());
                }
                Value::Number(Number::Alg(a)) => {
                    meter.tick(1 + a.terms().len() as u64)?;
                    stats.add_leaf_with(item, &mut memo);
                }
                leaf => {
                    meter.tick(1)?;
                    stats.add_leaf_with(leaf, &mut memo);
                }
            }
        }
        stats.depth = stats.depth.saturating_add(1);
        stats.nodes = stats.nodes.saturating_add(1);
        stats.rectangular = rectangular_items(&items);
        let v = Vector::new(items);
        let _ = v.0.stats.set(stats);
        Ok(v)
    }

    /// The leaf statistics, computed (iteratively, caching every nested Vector on
    /// the way) on first use.
    pub fn leaf_stats(&self) -> LeafStats {
        // The tick never fails, so neither does the walk.
        self.leaf_stats_polled(&mut |_| Ok(())).unwrap_or_default()
    }

    /// Whether the leaf statistics are computed already (reading them costs nothing).
    pub fn is_measured(&self) -> bool {
        self.0.stats.get().is_some()
    }

    /// [`Vector::leaf_stats`], reporting every element read (and every algebraic leaf's
    /// terms) to `tick`, which may stop the walk: the first measure of a Vector of a
    /// hundred thousand algebraic leaves takes a millisecond. Nested Vectors finished
    /// before a stop keep their statistics.
    pub fn leaf_stats_polled(
        &self,
        tick: &mut dyn FnMut(u64) -> Result<(), crate::limits::Halt>,
    ) -> Result<LeafStats, crate::limits::Halt> {
        if let Some(s) = self.0.stats.get() {
            return Ok(*s);
        }
        // Post-order walk: (vector, next child index, statistics so far).
        let mut work: Vec<(&Vector, usize, LeafStats)> = vec![(self, 0, LeafStats::default())];
        let mut memo = AlgebraicMeasures::default();
        loop {
            let (vector, next, acc) = work
                .last_mut()
                .expect("the walk ends when the root is done");
            if let Some(child) = vector.items().get(*next) {
                *next += 1;
                match child {
                    Value::Vector(inner) => match inner.0.stats.get() {
                        Some(s) => {
                            tick(1)?;
                            acc.merge(*s)
                        }
                        None => work.push((inner, 0, LeafStats::default())),
                    },
                    Value::Number(Number::Alg(a)) => {
                        tick(1 + a.terms().len() as u64)?;
                        acc.add_leaf_with(child, &mut memo)
                    }
                    leaf => {
                        tick(1)?;
                        acc.add_leaf_with(leaf, &mut memo)
                    }
                }
                continue;
            }
            let (vector, _, mut stats) = work.pop().expect("non-empty");
            stats.depth = stats.depth.saturating_add(1);
            // The Vector itself is one more node of the walk.
            stats.nodes = stats.nodes.saturating_add(1);
            stats.rectangular = rectangular_items(vector.items());
            let stats = *vector.0.stats.get_or_init(|| stats);
            match work.last_mut() {
                Some((_, _, parent)) => parent.merge(stats),
                None => return Ok(stats),
            }
        }
    }
}

/// The longest display of a Number an error message shows whole.
const DESCRIBED_NUMBER_CHARS: u64 = 64;

/// A Number in an error message: whole when its display is short, else by its size — a
/// 262,144-bit operand would make the message 78,914 digits long, and converting them
/// took milliseconds no check could interrupt.
fn describe_number(n: &Number) -> String {
    match number_summary(n) {
        None => format!("the Number {n}"),
        Some(summary) => summary,
    }
}

/// The display of `n` when it is short, else its size in words (an integer of 262144
/// bits, …): for error messages that name a Number.
pub fn short_number_text(n: &Number) -> String {
    number_summary(n).unwrap_or_else(|| n.to_string())
}

/// [`short_number_text`] of an integer.
pub fn short_int_text(i: &crate::number::Int) -> String {
    short_number_text(&Number::from(i.clone()))
}

/// `None` when the display of `n` has at most [`DESCRIBED_NUMBER_CHARS`] characters
/// (judged from bit lengths, nothing converted), else its size in words.
fn number_summary(n: &Number) -> Option<String> {
    use crate::number::int::decimal_digits_bound;
    let int_chars = |i: &crate::number::Int| decimal_digits_bound(i.bit_length()) + 1;
    let bound: u64 = match n {
        Number::Rat(r) => int_chars(r.numer()) + 1 + int_chars(r.denom()),
        Number::Alg(a) => a
            .terms()
            .iter()
            .map(|(c, d)| int_chars(c.numer()) + int_chars(c.denom()) + int_chars(d) + 9)
            .sum(),
    };
    if bound <= DESCRIBED_NUMBER_CHARS {
        return None;
    }
    Some(match n {
        Number::Rat(r) if r.denom().is_one() => {
            format!("an integer of {} bits", r.numer().bit_length())
        }
        Number::Rat(r) => format!(
            "a fraction of a {}-bit numerator and a {}-bit denominator",
            r.numer().bit_length(),
            r.denom().bit_length()
        ),
        Number::Alg(a) => format!("an algebraic Number of {} terms", a.terms().len()),
    })
}

/// Values at least this many, going away together, are freed a check's worth at a time
/// ([`drop_values`]) rather than at once.
pub const HANDOFF_VALUES: usize = 1024;

thread_local! {
    /// Values this thread has yet to free, in batches ([`drop_values`]).
    static DEFERRED: std::cell::RefCell<Vec<Vec<Value>>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// What this thread's run left to free once it has answered, while a host keeps it
    /// ([`keep_after_run`]).
    static AFTER_RUN: std::cell::RefCell<Option<Vec<Box<dyn Send>>>> =
        const { std::cell::RefCell::new(None) };
}

/// From now until [`take_after_run`], keep what [`free_after_run`] is given on this
/// thread instead of freeing it there: a host that frees a run's leftovers elsewhere once
/// the answer is out opens this around the run.
pub fn keep_after_run() {
    let _ = AFTER_RUN.try_with(|a| {
        if let Ok(mut a) = a.try_borrow_mut() {
            a.get_or_insert_with(Vec::new);
        }
    });
}

/// Free `x` once the run has answered: kept for the host when it keeps leftovers
/// ([`keep_after_run`]), freed here otherwise. For what a run leaves when it ends — its
/// machine's stack and dictionary, its program's tree — whose freeing is one walk no
/// check can interrupt: kept, it is never freed at a check of the render that follows.
pub fn free_after_run<T: Send + 'static>(x: T) {
    let mut x = Some(x);
    let _ = AFTER_RUN.try_with(|a| {
        if let Ok(mut a) = a.try_borrow_mut() {
            if let Some(kept) = a.as_mut() {
                if let Some(x) = x.take() {
                    kept.push(Box::new(x));
                }
            }
        }
    });
    drop(x);
}

/// What this thread kept to free after its run ([`free_after_run`]); it stops keeping.
pub fn take_after_run() -> Vec<Box<dyn Send>> {
    AFTER_RUN
        .try_with(|a| {
            a.try_borrow_mut()
                .ok()
                .and_then(|mut a| a.take())
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Drop `values`: when they are many, they are only queued on this thread, and every
/// check of a meter's interrupt flag frees a check's worth of them
/// ([`free_deferred`]) — freeing a hundred thousand algebraic numbers takes milliseconds,
/// and a free cannot stop halfway to look at the deadline. What a run leaves queued, its
/// host takes when the run ends ([`take_deferred`]).
pub fn drop_values(values: Vec<Value>) {
    if values.len() < HANDOFF_VALUES {
        drop(values);
        return;
    }
    // The queue is in use or gone (thread exit): free them here.
    drop(queue_deferred(values));
}

/// Put `values` on this thread's queue of values to free, or give them back when the
/// queue is in use or gone (thread exit).
fn queue_deferred(values: Vec<Value>) -> Option<Vec<Value>> {
    let mut values = Some(values);
    let _ = DEFERRED.try_with(|d| {
        if let Ok(mut d) = d.try_borrow_mut() {
            if let Some(v) = values.take() {
                d.push(v);
            }
        }
    });
    values
}

/// Free up to `count` of this thread's queued values (a meter's check does this). Each
/// value freed may queue more of its parts; they wait for the next checks.
pub fn free_deferred(count: usize) {
    let mut budget = count;
    while budget > 0 {
        budget -= 1;
        let next = DEFERRED.try_with(|d| {
            let mut d = d.try_borrow_mut().ok()?;
            loop {
                let batch = d.last_mut()?;
                match batch.pop() {
                    Some(v) => return Some(v),
                    None => {
                        d.pop();
                    }
                }
            }
        });
        match next {
            // A Vector this queue holds alone gives its elements to the queue instead of
            // freeing them now (its own drop would free a thousand of them, and each of
            // a check's thousand values doing so held the check back for milliseconds).
            Ok(Some(Value::Vector(mut v))) => {
                if let Some(data) = Arc::get_mut(&mut v.0) {
                    let items = std::mem::take(&mut data.items);
                    budget = budget.saturating_sub(items.len() / 64);
                    if !items.is_empty() {
                        drop(queue_deferred(items));
                    }
                }
                drop(v);
            }
            Ok(Some(v)) => drop(v),
            _ => return,
        }
    }
}

/// Everything this thread has yet to free: a host takes it when a run ends, to free
/// it elsewhere.
pub fn take_deferred() -> Vec<Vec<Value>> {
    DEFERRED
        .try_with(|d| {
            d.try_borrow_mut()
                .map(|mut d| std::mem::take(&mut *d))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Dropping is iterative: a Vector nested millions deep (built by `COLLECT` in a
/// loop) must not overflow the native stack when it goes away. Once the values to free
/// are many, the rest is queued ([`drop_values`]).
impl Drop for Vector {
    fn drop(&mut self) {
        let Some(data) = Arc::get_mut(&mut self.0) else {
            return;
        };
        if data.items.len() >= HANDOFF_VALUES {
            drop_values(std::mem::take(&mut data.items));
            return;
        }
        if !data
            .items
            .iter()
            .any(|v| matches!(v, Value::Vector(_) | Value::Block(_)))
        {
            return;
        }
        let mut work = std::mem::take(&mut data.items);
        let mut freed = 0usize;
        while let Some(v) = work.pop() {
            freed += 1;
            if freed >= HANDOFF_VALUES {
                // Many values freed here already (a tree's work list stays short): queue
                // the rest, whatever its length.
                work.push(v);
                match queue_deferred(std::mem::take(&mut work)) {
                    None => return,
                    Some(back) => work = back,
                }
                freed = 0;
                continue;
            }
            match v {
                Value::Vector(mut inner) => {
                    if let Some(inner_data) = Arc::get_mut(&mut inner.0) {
                        work.append(&mut inner_data.items);
                    }
                }
                Value::Block(b) => crate::code::drop_block(b),
                _ => {}
            }
        }
    }
}

impl From<Vec<Value>> for Vector {
    fn from(items: Vec<Value>) -> Vector {
        Vector::new(items)
    }
}

/// The six domain names, as messages and node types use them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Number.
    Number,
    /// Boolean.
    Boolean,
    /// String.
    String,
    /// Vector.
    Vector,
    /// NIL.
    Nil,
    /// CodeBlock.
    CodeBlock,
}

impl Domain {
    /// The domain's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Domain::Number => "Number",
            Domain::Boolean => "Boolean",
            Domain::String => "String",
            Domain::Vector => "Vector",
            Domain::Nil => "NIL",
            Domain::CodeBlock => "CodeBlock",
        }
    }
}

impl Value {
    /// A Number value.
    pub fn num(n: impl Into<Number>) -> Value {
        Value::Number(n.into())
    }

    /// A String value.
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::Str(s.into())
    }

    /// A Vector value.
    pub fn vector(items: Vec<Value>) -> Value {
        Value::Vector(Vector::new(items))
    }

    /// The domain of the value.
    pub fn domain(&self) -> Domain {
        match self {
            Value::Number(_) => Domain::Number,
            Value::Bool(_) => Domain::Boolean,
            Value::Str(_) => Domain::String,
            Value::Vector(_) => Domain::Vector,
            Value::Nil(_) => Domain::Nil,
            Value::Block(_) => Domain::CodeBlock,
        }
    }

    /// Whether the value is a NIL (of any reason).
    #[inline]
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil(_))
    }

    /// The NIL reason, if a NIL.
    #[inline]
    pub fn nil_reason(&self) -> Option<NilReason> {
        match self {
            Value::Nil(r) => Some(*r),
            _ => None,
        }
    }

    /// The Number, if a Number.
    #[inline]
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The Vector, if a Vector.
    #[inline]
    pub fn as_vector(&self) -> Option<&Vector> {
        match self {
            Value::Vector(v) => Some(v),
            _ => None,
        }
    }

    /// The String, if a String.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The CodeBlock, if a CodeBlock.
    #[inline]
    pub fn as_block(&self) -> Option<&Arc<Block>> {
        match self {
            Value::Block(b) => Some(b),
            _ => None,
        }
    }

    /// The Boolean, if a Boolean.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Drop the value, skipping the drop glue when it owns no heap memory (a small
    /// rational, a Boolean, a NIL): every step of a loop drops a few such values, and
    /// the glue walks the whole enum. Forgetting a value that owns nothing leaks nothing.
    #[inline(always)]
    pub fn discard(self) {
        let owns_nothing = match &self {
            Value::Number(Number::Rat(r)) => r.is_inline(),
            Value::Bool(_) | Value::Nil(_) => true,
            _ => false,
        };
        if owns_nothing {
            std::mem::forget(self);
        }
    }

    /// The value as messages name it: its domain and a short form (`the Number 3/1`,
    /// `a Vector of 2 elements`, `the String 'abc…'` cut at 24 characters).
    pub fn describe(&self) -> String {
        match self {
            Value::Number(n) => describe_number(n),
            Value::Bool(b) => format!("the Boolean {}", if *b { "TRUE" } else { "FALSE" }),
            Value::Str(s) => {
                let short: String = s.chars().take(24).collect();
                if short.len() < s.len() {
                    format!("the String '{short}…'")
                } else {
                    format!("the String '{short}'")
                }
            }
            Value::Vector(items) => format!(
                "a Vector of {} element{}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            ),
            Value::Nil(_) => "NIL".to_string(),
            Value::Block(_) => "a CodeBlock".to_string(),
        }
    }

    /// Depth (docs/reference/domains.md#vector): 0 for a non-Vector, 1 + the deepest element for a
    /// Vector.
    pub fn depth(&self) -> usize {
        match self {
            Value::Vector(items) => usize::try_from(items.leaf_stats().depth).unwrap_or(usize::MAX),
            _ => 0,
        }
    }

    /// What walking the value costs (O(1): a Vector's from its cached statistics).
    pub fn weight(&self) -> Weight {
        match self {
            Value::Vector(items) => {
                let s = items.leaf_stats();
                Weight {
                    nodes: s.nodes,
                    leaves: s.leaves,
                    text_bytes: s.text_bytes,
                    longest_text: s.longest_text,
                    big_limbs: s.big_limbs,
                    decimal_price: s.decimal_price,
                }
            }
            Value::Number(n) => Weight {
                nodes: 1,
                leaves: 1,
                big_limbs: n.big_limbs(),
                decimal_price: n.decimal_price(),
                ..Weight::default()
            },
            other => {
                let t = text_weight(other);
                Weight {
                    nodes: 1,
                    leaves: 1,
                    text_bytes: t,
                    longest_text: t,
                    ..Weight::default()
                }
            }
        }
    }

    /// Number of non-Vector leaves at any depth.
    pub fn leaf_count(&self) -> u64 {
        match self {
            Value::Vector(items) => items.leaf_stats().leaves,
            _ => 1,
        }
    }
}

/// Value equality of docs/reference/domains.md#value-equality (used by `EQ`, `UNIQUE`, `INDEX-OF`,
/// …). Iterative, so arbitrarily deep Vectors compare without recursion.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        // Scalars (what UNIQUE, TALLY and GROUP mostly meet) compare without the work
        // list's allocation.
        match (self, other) {
            (Value::Vector(_), Value::Vector(_)) => {}
            (Value::Vector(_), _) | (_, Value::Vector(_)) => return false,
            _ => return scalar_eq(self, other),
        }
        let mut work: Vec<(&Value, &Value)> = vec![(self, other)];
        // Pairs of Vectors already scheduled, once a comparison runs long: two Vectors
        // built alike but apart share no storage, and without this their 2⁴⁰ shared
        // leaves would be compared one by one.
        let mut seen: Option<crate::memo::MemoSet<(usize, usize)>> = None;
        let mut pairs = 0u32;
        while let Some((a, b)) = work.pop() {
            if let (Value::Vector(x), Value::Vector(y)) = (a, b) {
                pairs = pairs.saturating_add(1);
                if pairs > 4096 {
                    let key = (Arc::as_ptr(&x.0) as usize, Arc::as_ptr(&y.0) as usize);
                    if !seen.get_or_insert_with(Default::default).insert(key) {
                        continue;
                    }
                }
            }
            let same = match (a, b) {
                (Value::Vector(x), Value::Vector(y)) => {
                    if x.ptr_eq(y) {
                        true
                    } else if x.len() != y.len() {
                        false
                    } else {
                        work.extend(x.items().iter().zip(y.items()));
                        true
                    }
                }
                _ => scalar_eq(a, b),
            };
            if !same {
                return false;
            }
        }
        true
    }
}

/// Whether the work of a metered comparison is charged as it goes or was paid for
/// already (by a Word that prices its probes up front): either way it is ticked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pay {
    /// Charge `collectionWork` for every pair compared.
    AsYouGo,
    /// Only tick the meter: the Word charged its probes up front.
    Prepaid,
}

/// Units a comparison gathers before it charges or ticks them (one check's worth).
const COMPARE_BATCH: u64 = crate::limits::CHECK_EVERY_UNITS;

/// Value equality (docs/reference/domains.md#value-equality) through the meter: the one
/// way a Word compares values. It walks both values depth first and stops at the first
/// difference; the work is walk(compared) (docs/reference/pricing-and-limits.md#weights) —
/// one unit for each pair of values compared, the smaller [`Number::big_limbs`] of two
/// Numbers, and ⌈b/8⌉ for the b bytes of text compared (the shorter of two Strings or
/// CodeBlocks), summed over the walk:
/// - two Vectors of different lengths or weights are unequal at once (one unit);
/// - two Vectors sharing their storage are equal at once, counted as if compared (their
///   weight) — so is a pair met again after it was scheduled: sharing saves memory, not
///   the work of a comparison.
///
/// The units are charged to `collectionWork` ([`Pay::AsYouGo`]) or only ticked
/// ([`Pay::Prepaid`]), a check's worth at a time, so a long comparison is interruptible.
pub fn equal_metered(a: &Value, b: &Value, meter: &mut Meter, pay: Pay) -> Result<bool, Halt> {
    // Units not yet settled, and bytes of text not yet turned into units.
    let (mut units, mut bytes) = (0u64, 0u64);
    let settle = |meter: &mut Meter, units: &mut u64, bytes: &mut u64, last: bool| {
        let due = if last {
            units.saturating_add(bytes.div_ceil(8))
        } else {
            units.saturating_add(*bytes / 8)
        };
        *bytes = if last { 0 } else { *bytes % 8 };
        *units = 0;
        match pay {
            Pay::AsYouGo if due > 0 => meter.charge_collection(due),
            Pay::AsYouGo => Ok(()),
            Pay::Prepaid => meter.tick(due),
        }
    };
    let mut work: Vec<(&Value, &Value)> = vec![(a, b)];
    let mut seen: Option<crate::memo::MemoSet<(usize, usize)>> = None;
    let mut pairs = 0u32;
    let mut same = true;
    while let Some((x, y)) = work.pop() {
        match (x, y) {
            (Value::Vector(p), Value::Vector(q)) => {
                let repeated = p.ptr_eq(q) || {
                    pairs = pairs.saturating_add(1);
                    pairs > 4096 && {
                        let key = (Arc::as_ptr(&p.0) as usize, Arc::as_ptr(&q.0) as usize);
                        !seen.get_or_insert_with(Default::default).insert(key)
                    }
                };
                if repeated {
                    let w = x.weight();
                    units = units.saturating_add(w.nodes).saturating_add(w.big_limbs);
                    bytes = bytes.saturating_add(w.text_bytes);
                } else {
                    units = units.saturating_add(1);
                    if p.len() != q.len() || x.weight() != y.weight() {
                        same = false;
                    } else {
                        work.extend(p.items().iter().zip(q.items()));
                    }
                }
            }
            (Value::Vector(_), _) | (_, Value::Vector(_)) => {
                units = units.saturating_add(1);
                same = false;
            }
            (Value::Number(p), Value::Number(q)) => {
                units = units.saturating_add(1 + p.big_limbs().min(q.big_limbs()));
                same = p == q;
            }
            _ => {
                units = units.saturating_add(1);
                bytes = bytes.saturating_add(text_weight(x).min(text_weight(y)));
                same = scalar_eq(x, y);
            }
        }
        if !same {
            break;
        }
        if units.saturating_add(bytes / 8) >= COMPARE_BATCH {
            settle(meter, &mut units, &mut bytes, false)?;
        }
    }
    settle(meter, &mut units, &mut bytes, true)?;
    Ok(same)
}

/// Equality of two values of which at most one is a Vector (a Vector never equals a scalar).
fn scalar_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Nil(x), Value::Nil(y)) => x == y,
        (Value::Block(x), Value::Block(y)) => Arc::ptr_eq(x, y) || x.same_tokens(y),
        _ => false,
    }
}

impl Eq for Value {}

/// Hash consistent with value equality (iterative).
impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Number(n) => (0u8, n).hash(state),
            Value::Bool(b) => (1u8, b).hash(state),
            Value::Str(s) => (2u8, s).hash(state),
            Value::Nil(r) => (3u8, r).hash(state),
            Value::Block(b) => {
                4u8.hash(state);
                crate::code::hash_items(b.items(), state);
            }
            Value::Vector(items) => (5u8, items.structural_hash()).hash(state),
        }
    }
}
