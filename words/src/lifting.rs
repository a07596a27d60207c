//! Element-wise lifting (docs/reference/lifting.md), shared by the comparison and arithmetic
//! families.
//!
//! There are exactly two forms. **Unary lifting** maps every leaf of a Vector at any
//! depth (ragged included) and keeps the structure. **Binary broadcasting** checks
//! domains first (a Boolean, String or CodeBlock anywhere is `typeMismatch` before
//! any shape is looked at), then combines a Number with every leaf of a Vector, or
//! two rectangular Vectors whose shapes align at the innermost axis. In both forms a
//! NIL lane passes through unchanged (the left-most NIL when both lanes are NIL).
//!
//! Values built at run time can nest millions deep, so every walk here keeps its own
//! work stack instead of recursing on the native one.

use crate::support::describe;
use ajisai_core::limits::{exceeded, Limit, Meter, CHECK_EVERY_UNITS};
use ajisai_core::number::Number;
use ajisai_core::outcome::{err, LangError};
use ajisai_core::value::{LeafKinds, Pay, Value, Vector};
use ajisai_core::Halt;

/// The bytes of one slot of a built result (a lane or a leaf), the least it costs.
const SLOT_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// The size ceilings every computed Number must respect before it is pushed
/// (`bigintBits`, `algebraicTerms`; step 6 of docs/reference/errors.md#order-of-checks), read once
/// per Word.
#[derive(Clone, Copy, Debug)]
pub struct Ceilings {
    /// `bigintBits`.
    pub bits: u64,
    /// `algebraicTerms`.
    pub terms: u64,
}

impl Ceilings {
    /// The ceilings of the profile `meter` runs under.
    pub fn of(meter: &Meter) -> Ceilings {
        Ceilings {
            bits: meter.ceiling(Limit::BigintBits),
            terms: meter.ceiling(Limit::AlgebraicTerms),
        }
    }

    /// `n` as a value, or the refusal naming the limit it breaks.
    pub fn admit(&self, n: Number) -> Result<Value, LangError> {
        let width = n.width();
        if width > self.bits {
            return Err(exceeded(Limit::BigintBits, width, self.bits));
        }
        // Only an algebraic Number is measured in terms (docs/reference/pricing-and-limits.md); a
        // rational has at most one.
        if let Number::Alg(_) = n {
            let terms = n.term_count();
            if terms > self.terms {
                return Err(exceeded(Limit::AlgebraicTerms, terms, self.terms));
            }
        }
        Ok(Value::Number(n))
    }
}

/// The leaves of a value (itself when it is not a Vector), left to right at any
/// depth, without recursion.
pub struct Leaves<'v> {
    single: Option<&'v Value>,
    stack: Vec<std::slice::Iter<'v, Value>>,
}

impl<'v> Leaves<'v> {
    /// The leaves of `v`.
    pub fn of(v: &'v Value) -> Leaves<'v> {
        match v {
            Value::Vector(items) => Leaves {
                single: None,
                stack: vec![items.items().iter()],
            },
            other => Leaves {
                single: Some(other),
                stack: Vec::new(),
            },
        }
    }
}

impl<'v> Iterator for Leaves<'v> {
    type Item = &'v Value;

    fn next(&mut self) -> Option<&'v Value> {
        if let Some(v) = self.single.take() {
            return Some(v);
        }
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                Some(Value::Vector(items)) => self.stack.push(items.items().iter()),
                Some(leaf) => return Some(leaf),
                None => {
                    self.stack.pop();
                }
            }
        }
    }
}

/// Rebuild `v` with every leaf replaced by `f(leaf)`, keeping the structure (ragged
/// or not; an empty Vector stays empty). Iterative at any depth; every value visited,
/// Vector or leaf, ticks `meter` once (the Word paid for the walk up front).
pub fn map_leaves(
    v: &Value,
    meter: &mut Meter,
    mut f: impl FnMut(&mut Meter, &Value) -> Result<Value, Halt>,
) -> Result<Value, Halt> {
    let Value::Vector(root) = v else {
        return f(meter, v);
    };
    let mut stack: Vec<(std::slice::Iter<'_, Value>, Vec<Value>)> =
        vec![(root.items().iter(), Vec::with_capacity(root.len()))];
    loop {
        let Some((iter, _)) = stack.last_mut() else {
            return Ok(Value::vector(Vec::new()));
        };
        let next = iter.next();
        if next.is_some() {
            meter.tick(1)?;
        }
        match next {
            Some(Value::Vector(items)) => {
                stack.push((items.items().iter(), Vec::with_capacity(items.len())))
            }
            Some(leaf) => {
                let mapped = f(meter, leaf)?;
                if let Some((_, out)) = stack.last_mut() {
                    out.push(mapped);
                }
            }
            None => {
                let Some((_, out)) = stack.pop() else {
                    return Ok(Value::vector(Vec::new()));
                };
                let done = Value::Vector(Vector::new_measured(out, meter)?);
                match stack.last_mut() {
                    Some((_, parent)) => parent.push(done),
                    None => return Ok(done),
                }
            }
        }
    }
}

/// `typeMismatch` unless every leaf of `v` is a Number or a NIL. `whose` names the
/// operand in the message (`its operand`, `its left operand`, …).
pub fn check_numeric(word: &str, whose: &str, v: &Value) -> Result<(), LangError> {
    match first_leaf(v, LeafKinds::NON_NUMERIC, |leaf| {
        !matches!(leaf, Value::Number(_) | Value::Nil(_))
    }) {
        None => Ok(()),
        Some(bad) if std::ptr::eq(bad, v) => Err(err::type_mismatch(format!(
            "{word} needs a Number or a Vector of Numbers as {whose}, got {}",
            describe(bad)
        ))),
        Some(bad) => Err(err::type_mismatch(format!(
            "{word} needs Numbers at every depth, but {whose} holds {}; only Numbers (and NIL) may stand there",
            describe(bad)
        ))),
    }
}

/// The first leaf of `v` (itself when it is not a Vector), left to right at any depth,
/// for which `p` holds, where `kinds` says which leaves can satisfy `p`: sub-Vectors
/// whose cached statistics show none of `kinds` are skipped whole, so the search costs
/// the distinct structure on the way to the leaf, not the leaves before it (a Vector
/// sharing sub-Vectors can have 2⁴⁰ of them).
pub fn first_leaf<'v>(
    v: &'v Value,
    kinds: LeafKinds,
    mut p: impl FnMut(&Value) -> bool,
) -> Option<&'v Value> {
    let Value::Vector(root) = v else {
        return p(v).then_some(v);
    };
    if !root.leaf_stats().kinds.any(kinds) {
        return None;
    }
    let mut stack: Vec<std::slice::Iter<'v, Value>> = vec![root.items().iter()];
    loop {
        let top = stack.last_mut()?;
        match top.next() {
            Some(Value::Vector(items)) => {
                if items.leaf_stats().kinds.any(kinds) {
                    stack.push(items.items().iter());
                }
            }
            Some(leaf) => {
                if p(leaf) {
                    return Some(leaf);
                }
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// The saturating sum of `f` over the Number leaves of `v`, computed once per distinct
/// sub-Vector (a Vector sharing sub-Vectors has far more leaves than structure).
pub fn sum_over_numbers(v: &Value, f: impl Fn(&Number) -> u64) -> u64 {
    let Value::Vector(root) = v else {
        return v.as_number().map_or(0, &f);
    };
    let key = |x: &Vector| x.items().as_ptr() as usize;
    let mut memo: ajisai_core::memo::Memo<usize, u64> = Default::default();
    let mut work: Vec<(&Vector, usize, u64)> = vec![(root, 0, 0)];
    loop {
        let Some((vector, next, acc)) = work.last_mut() else {
            return 0;
        };
        if let Some(child) = vector.items().get(*next) {
            *next += 1;
            match child {
                Value::Vector(inner) if !inner.is_empty() => match memo.get(&key(inner)) {
                    Some(sub) => *acc = acc.saturating_add(*sub),
                    None => work.push((inner, 0, 0)),
                },
                Value::Number(n) => *acc = acc.saturating_add(f(n)),
                _ => {}
            }
            continue;
        }
        let Some((vector, _, total)) = work.pop() else {
            return 0;
        };
        memo.insert(key(vector), total);
        match work.last_mut() {
            Some((_, _, parent)) => *parent = parent.saturating_add(total),
            None => return total,
        }
    }
}

/// Whether some leaf of `v` satisfies `p` (see [`first_leaf`]).
pub fn any_leaf(v: &Value, kinds: LeafKinds, p: impl FnMut(&Value) -> bool) -> bool {
    first_leaf(v, kinds, p).is_some()
}

/// The Vectors nested in `v` at any depth, `v` itself not counted (0 for a non-Vector):
/// what a walk of its structure visits besides its leaves, from the cached weights.
pub fn nested_vectors(v: &Value) -> u64 {
    let w = v.weight();
    match v {
        Value::Vector(_) => w.nodes.saturating_sub(w.leaves).saturating_sub(1),
        _ => 0,
    }
}

/// The values a lifting walks in `v`: all of them for a Vector, none for a single value
/// (the step's work).
pub fn walked_nodes(v: &Value) -> u64 {
    match v {
        Value::Vector(_) => v.weight().nodes,
        _ => 0,
    }
}

/// Unary lifting: `f` applied to every Number lane of `v` (a Number, or a Vector of
/// any depth, ragged included), NIL lanes passed through. The caller has checked
/// the domains with [`check_numeric`] (and any Word-specific leaf rule) first, so
/// that every `typeMismatch` comes before any work is charged, and charged the lanes
/// (and [`nested_vectors`] in `collectionWork`: the structure is rebuilt); a leaf of
/// another domain reaching `f` here is reported anyway rather than trusted. `f` gets
/// the meter (to charge or tick); every value visited ticks it once.
pub fn lift_unary(
    word: &str,
    v: &Value,
    meter: &mut Meter,
    mut f: impl FnMut(&mut Meter, &Number) -> Result<Value, Halt>,
) -> Result<Value, Halt> {
    // The result has a slot for every value (shared sub-Vectors are rebuilt apart): one
    // the host could not hold is refused before it is built.
    meter.reserve(v.weight().nodes.saturating_mul(SLOT_BYTES))?;
    map_leaves(v, meter, |meter, leaf| match leaf {
        Value::Number(n) => f(meter, n),
        Value::Nil(_) => Ok(leaf.clone()),
        other => {
            Err(err::type_mismatch(format!("{word} needs Numbers, got {}", describe(other))).into())
        }
    })
}

/// Shape of a value per docs/reference/domains.md#vector: `Some([])` for a non-Vector, `Some([n,
/// …])` for a rectangular Vector, `None` for a ragged one. Rectangularity is cached per distinct
/// Vector ([`LeafStats::rectangular`]), so the shape is read along the first elements, in time
/// proportional to the depth.
pub fn shape(v: &Value) -> Option<Vec<usize>> {
    let Value::Vector(root) = v else {
        return Some(Vec::new());
    };
    if !root.leaf_stats().rectangular {
        return None;
    }
    let mut dims = Vec::new();
    let mut at = root;
    loop {
        dims.push(at.len());
        match at.items().first() {
            Some(Value::Vector(inner)) => at = inner,
            _ => return Some(dims),
        }
    }
}

/// `[2 3]`-style rendering of a shape for messages.
fn show_shape(s: &[usize]) -> String {
    let parts: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(" "))
}

/// Which operand of a binary Word, for messages.
#[derive(Clone, Copy, Debug)]
pub struct Names<'n> {
    /// How the left operand is named (`its left operand`).
    pub left: &'n str,
    /// How the right operand is named (`its right operand`).
    pub right: &'n str,
}

/// The names of an ordinary binary Word's operands.
pub const OPERANDS: Names<'static> = Names {
    left: "its left operand",
    right: "its right operand",
};

/// A checked broadcast of two operands (docs/reference/lifting.md): domains and shapes have passed,
/// and the lanes can be inspected ([`Broadcast::pairs`]) and built ([`Broadcast::build`]).
pub struct Broadcast<'v> {
    a: &'v Value,
    b: &'v Value,
    form: Form<'v>,
}

enum Form<'v> {
    /// Neither operand is a Vector: one lane.
    Scalars,
    /// The left operand is a scalar combined with every leaf of the right one.
    LeftScalar,
    /// The right operand is a scalar combined with every leaf of the left one.
    RightScalar,
    /// Two rectangular Vectors broadcast over `shape`.
    Grid(Grid<'v>),
}

struct Grid<'v> {
    shape: Vec<usize>,
    a: &'v Value,
    b: &'v Value,
    /// Both operands' leaves in order, collected only once the lanes are paid for
    /// ([`Grid::prepare`]).
    leaves: std::cell::OnceCell<(Vec<&'v Value>, Vec<&'v Value>)>,
    /// Per result axis: how far a step along it moves in each operand's leaves (0 where
    /// that operand's length is 1 and its single lane is reused).
    a_steps: Vec<usize>,
    b_steps: Vec<usize>,
    lanes: u64,
}

impl<'v> Broadcast<'v> {
    /// Check `a` and `b` for broadcasting: domains first (every leaf a Number or a
    /// NIL, else `typeMismatch`), then shapes (`shapeMismatch` for a ragged Vector
    /// against a Vector, or lengths that are neither equal nor 1 on an axis).
    pub fn plan(
        word: &str,
        names: Names<'_>,
        a: &'v Value,
        b: &'v Value,
    ) -> Result<Broadcast<'v>, LangError> {
        check_numeric(word, names.left, a)?;
        check_numeric(word, names.right, b)?;
        let form = match (a, b) {
            (Value::Vector(_), Value::Vector(_)) => Form::Grid(Grid::new(word, names, a, b)?),
            (Value::Vector(_), _) => Form::RightScalar,
            (_, Value::Vector(_)) => Form::LeftScalar,
            _ => Form::Scalars,
        };
        Ok(Broadcast { a, b, form })
    }

    /// The lane count of the result (0 for an empty result; pricing takes at least 1).
    pub fn lanes(&self) -> u64 {
        match &self.form {
            Form::Scalars => 1,
            Form::LeftScalar => self.b.leaf_count(),
            Form::RightScalar => self.a.leaf_count(),
            Form::Grid(g) => g.lanes,
        }
    }

    /// The values the broadcast walks and builds: every value of each Vector operand
    /// and every value of the result, its lanes and its Vectors — none when both operands
    /// are single values (a step's work). The binary Words charge
    /// [`ajisai_core::price::STRUCTURE`]
    /// each in `collectionWork` up front (docs/reference/pricing-and-limits.md#lifting): a
    /// broadcast over empty Vectors has no lanes, yet walks and builds every Vector.
    pub fn structure(&self) -> u64 {
        let result = match &self.form {
            Form::Scalars => return 0,
            Form::LeftScalar => self.b.weight().nodes,
            Form::RightScalar => self.a.weight().nodes,
            Form::Grid(g) => {
                // The lanes and the result's Vectors: 1 + d₁ + d₁·d₂ + … + d₁·…·dₖ₋₁.
                let mut outer = 1u64;
                let mut total = 1u64;
                for &d in &g.shape[..g.shape.len().saturating_sub(1)] {
                    outer = outer.saturating_mul(d as u64);
                    total = total.saturating_add(outer);
                }
                total.saturating_add(g.lanes)
            }
        };
        walked_nodes(self.a)
            .saturating_add(walked_nodes(self.b))
            .saturating_add(result)
    }

    /// Refuse, before anything is built, a broadcast that would create more lanes than
    /// `materializedElements` allows when the result outgrows both operands (`[n 1]`
    /// against `[n]` has n² lanes). For the Words that docs/reference/pricing-and-limits.md prices
    /// with no work at all — the ordering Words, MIN and MAX — this is the only bound on the
    /// result's size; the priced Words are bounded by `numericWork` instead (docs/decisions.md).
    pub fn check_expansion(&self, meter: &Meter) -> Result<(), LangError> {
        match &self.form {
            Form::Grid(g) if g.lanes > self.a.leaf_count().max(self.b.leaf_count()) => {
                meter.check_size(Limit::MaterializedElements, g.lanes)
            }
            _ => Ok(()),
        }
    }

    /// Make the lanes walkable: a grid collects its operands' leaves (one unit per value
    /// walked, paid as `pay` says, and asking the host before a big list).
    /// [`Broadcast::build`] and [`Broadcast::find_numbers`] do this themselves.
    pub fn prepare(&self, meter: &mut Meter, pay: Pay) -> Result<(), Halt> {
        match &self.form {
            Form::Grid(g) => g.prepare(meter, pay),
            _ => Ok(()),
        }
    }

    /// Every lane's pair of leaves (left, right), in result order, NIL lanes included
    /// (a grid's lanes only after [`Broadcast::prepare`]).
    pub fn pairs(&self) -> Box<dyn Iterator<Item = (&'v Value, &'v Value)> + '_> {
        let (a, b) = (self.a, self.b);
        match &self.form {
            Form::Scalars => Box::new(std::iter::once((a, b))),
            Form::LeftScalar => Box::new(Leaves::of(b).map(move |y| (a, y))),
            Form::RightScalar => Box::new(Leaves::of(a).map(move |x| (x, b))),
            Form::Grid(g) => Box::new(g.pairs()),
        }
    }

    /// The first lane of two Numbers satisfying `p`, in result order (NIL lanes are
    /// not examined: they pass through unchanged). A search that runs before the Word's
    /// charge (an argument check) pays as it goes: one `collectionWork` unit per lane
    /// examined and per value walked to reach them ([`Pay::AsYouGo`]), since a broadcast
    /// can have far more lanes than its operands have leaves.
    pub fn find_numbers(
        &self,
        meter: &mut Meter,
        pay: Pay,
        mut p: impl FnMut(&Number, &Number) -> bool,
    ) -> Result<Option<(&'v Number, &'v Number)>, Halt> {
        self.prepare(meter, pay)?;
        let mut lanes = Settle::new(pay);
        for pair in self.pairs() {
            lanes.add(meter, 1)?;
            if let (Value::Number(x), Value::Number(y)) = pair {
                if p(x, y) {
                    lanes.finish(meter)?;
                    return Ok(Some((x, y)));
                }
            }
        }
        lanes.finish(meter)?;
        Ok(None)
    }

    /// Whether some lane divides a Number by zero (docs/reference/lifting.md: decides DIV's
    /// whole-result NIL and MOD's `invalidArgument`). Without a zero leaf in the divisor there is
    /// no such lane, which spares the lane walk in the common case.
    pub fn zero_divisor(&self, meter: &mut Meter, pay: Pay) -> Result<bool, Halt> {
        let any_zero = any_leaf(
            self.b,
            LeafKinds::ZERO,
            |leaf| matches!(leaf, Value::Number(n) if n.is_zero()),
        );
        if !any_zero {
            return Ok(false);
        }
        Ok(self.find_numbers(meter, pay, |_, y| y.is_zero())?.is_some())
    }

    /// The result: `f` applied to every lane of two Numbers, a NIL lane passed through
    /// (the left one when both are NIL), in the broadcast structure. `f` gets the
    /// meter to charge running work or to poll inside long algebraic operations;
    /// between lanes the host's interrupt flag is polled here.
    pub fn build(
        &self,
        meter: &mut Meter,
        mut f: impl FnMut(&mut Meter, &Number, &Number) -> Result<Value, Halt>,
    ) -> Result<Value, Halt> {
        // A slot for every lane and Vector: refused before it is built when the host
        // could not hold it.
        meter.reserve(
            self.lanes()
                .saturating_add(self.structure())
                .saturating_mul(SLOT_BYTES),
        )?;
        self.prepare(meter, Pay::Prepaid)?;
        self.run_lanes(meter, |m, x, y| {
            m.tick(1)?;
            f(m, x, y)
        })
    }

    fn run_lanes(
        &self,
        meter: &mut Meter,
        mut f: impl FnMut(&mut Meter, &Number, &Number) -> Result<Value, Halt>,
    ) -> Result<Value, Halt> {
        let mut lane = |m: &mut Meter, x: &Value, y: &Value| -> Result<Value, Halt> {
            match (x, y) {
                (Value::Nil(_), _) => Ok(x.clone()),
                (_, Value::Nil(_)) => Ok(y.clone()),
                (Value::Number(p), Value::Number(q)) => f(m, p, q),
                // `plan` checked the domains; this only guards against misuse.
                (bad, Value::Number(_)) | (_, bad) => Err(err::type_mismatch(format!(
                    "a lane holds {}, which is not a Number",
                    describe(bad)
                ))
                .into()),
            }
        };
        match &self.form {
            Form::Scalars => lane(meter, self.a, self.b),
            Form::LeftScalar => map_leaves(self.b, meter, |m, y| lane(m, self.a, y)),
            Form::RightScalar => map_leaves(self.a, meter, |m, x| lane(m, x, self.b)),
            Form::Grid(g) => {
                // Cap the up-front reservation: the lane count can be large, and the
                // vector grows on demand anyway.
                let mut flat =
                    Vec::with_capacity(usize::try_from(g.lanes).unwrap_or(0).min(1 << 20));
                for (x, y) in g.pairs() {
                    flat.push(lane(meter, x, y)?);
                }
                nest(flat, &g.shape, meter)
            }
        }
    }
}

impl<'v> Grid<'v> {
    fn new(
        word: &str,
        names: Names<'_>,
        a: &'v Value,
        b: &'v Value,
    ) -> Result<Grid<'v>, LangError> {
        let ragged = |whose: &str| {
            err::shape_mismatch(format!(
                "{word} cannot broadcast a ragged Vector ({whose}) against a Vector: both must be rectangular \
                 (a ragged Vector combines only with a single Number)"
            ))
        };
        let sa = shape(a).ok_or_else(|| ragged(names.left))?;
        let sb = shape(b).ok_or_else(|| ragged(names.right))?;
        let rank = sa.len().max(sb.len());
        // Align at the innermost axis: pad the shorter shape with 1s on the outer side.
        let pad = |s: &[usize]| -> Vec<usize> {
            let mut p = vec![1; rank - s.len()];
            p.extend_from_slice(s);
            p
        };
        let (pa, pb) = (pad(&sa), pad(&sb));
        let mut out = Vec::with_capacity(rank);
        for (i, (&x, &y)) in pa.iter().zip(&pb).enumerate() {
            let d = if x == y || y == 1 {
                x
            } else if x == 1 {
                y
            } else {
                return Err(err::shape_mismatch(format!(
                    "{word} cannot broadcast shapes {} and {}: aligned at the innermost axis, axis {} has lengths \
                     {x} and {y}, which are neither equal nor 1",
                    show_shape(&sa),
                    show_shape(&sb),
                    i
                )));
            };
            out.push(d);
        }
        let strides = |p: &[usize]| -> Vec<usize> {
            let mut steps = vec![0; rank];
            let mut acc = 1usize;
            for i in (0..rank).rev() {
                steps[i] = if p[i] == 1 { 0 } else { acc };
                acc = acc.saturating_mul(p[i]);
            }
            steps
        };
        let lanes = out
            .iter()
            .fold(1u64, |acc, &d| acc.saturating_mul(d as u64));
        Ok(Grid {
            a_steps: strides(&pa),
            b_steps: strides(&pb),
            a,
            b,
            leaves: std::cell::OnceCell::new(),
            shape: out,
            lanes,
        })
    }

    /// Collect both operands' leaves (one unit per value walked, and asking the host
    /// before a big list).
    fn prepare(&self, meter: &mut Meter, pay: Pay) -> Result<(), Halt> {
        if self.leaves.get().is_some() {
            return Ok(());
        }
        let a = collect_leaves(self.a, meter, pay)?;
        let b = collect_leaves(self.b, meter, pay)?;
        let _ = self.leaves.set((a, b));
        Ok(())
    }

    fn pairs(&self) -> GridPairs<'_, 'v> {
        GridPairs {
            grid: self,
            index: vec![0; self.shape.len()],
            at_a: 0,
            at_b: 0,
            left: self.lanes,
        }
    }
}

/// The leaves of `v` in order: one unit per value walked (Vectors included), paid as
/// `pay` says, asking the host before reserving room for them all.
pub fn collect_leaves<'v>(
    v: &'v Value,
    meter: &mut Meter,
    pay: Pay,
) -> Result<Vec<&'v Value>, Halt> {
    let n = v.leaf_count();
    meter.reserve(n.saturating_mul(std::mem::size_of::<&Value>() as u64))?;
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(usize::MAX).min(1 << 20));
    let mut walked = Settle::new(pay);
    let mut stack: Vec<std::slice::Iter<'v, Value>> = match v {
        Value::Vector(items) => vec![items.items().iter()],
        leaf => {
            walked.add(meter, 1)?;
            out.push(leaf);
            Vec::new()
        }
    };
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(Value::Vector(items)) => {
                walked.add(meter, 1)?;
                stack.push(items.items().iter());
            }
            Some(leaf) => {
                walked.add(meter, 1)?;
                out.push(leaf);
            }
            None => {
                stack.pop();
            }
        }
    }
    walked.finish(meter)?;
    Ok(out)
}

/// Units of work gathered and settled a check's worth at a time: charged to
/// `collectionWork` ([`Pay::AsYouGo`]) or ticked ([`Pay::Prepaid`]).
pub struct Settle {
    pay: Pay,
    due: u64,
}

impl Settle {
    /// Nothing gathered yet.
    pub fn new(pay: Pay) -> Settle {
        Settle { pay, due: 0 }
    }

    /// Gather `units`; settle them once a check's worth has gathered.
    #[inline]
    pub fn add(&mut self, meter: &mut Meter, units: u64) -> Result<(), Halt> {
        self.due = self.due.saturating_add(units);
        if self.due >= CHECK_EVERY_UNITS {
            self.finish(meter)?;
        }
        Ok(())
    }

    /// Settle what has gathered.
    pub fn finish(&mut self, meter: &mut Meter) -> Result<(), Halt> {
        let due = std::mem::take(&mut self.due);
        match self.pay {
            Pay::AsYouGo if due > 0 => meter.charge_collection(due),
            Pay::AsYouGo => Ok(()),
            Pay::Prepaid => meter.tick(due),
        }
    }
}

/// Walks the result index space of a [`Grid`] like an odometer, keeping the flat
/// positions in both operands' leaves up to date (amortized O(1) per lane).
struct GridPairs<'g, 'v> {
    grid: &'g Grid<'v>,
    index: Vec<usize>,
    at_a: usize,
    at_b: usize,
    left: u64,
}

impl<'v> Iterator for GridPairs<'_, 'v> {
    type Item = (&'v Value, &'v Value);

    fn next(&mut self) -> Option<(&'v Value, &'v Value)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let g = self.grid;
        let (a_leaves, b_leaves) = g.leaves.get()?;
        let pair = (*a_leaves.get(self.at_a)?, *b_leaves.get(self.at_b)?);
        for axis in (0..g.shape.len()).rev() {
            self.index[axis] += 1;
            self.at_a += g.a_steps[axis];
            self.at_b += g.b_steps[axis];
            if self.index[axis] < g.shape[axis] {
                break;
            }
            self.at_a -= g.a_steps[axis] * g.shape[axis];
            self.at_b -= g.b_steps[axis] * g.shape[axis];
            self.index[axis] = 0;
        }
        Some(pair)
    }
}

/// Nest the row-major lanes `flat` into Vectors of `shape` (innermost axis first,
/// without recursion; an axis of length 0 gives empty Vectors), ticking once per Vector
/// built (the Word paid for the structure).
fn nest(flat: Vec<Value>, shape: &[usize], meter: &Meter) -> Result<Value, Halt> {
    // outer[i] = how many Vectors axis i has (the product of the lengths outside it).
    let mut outer = Vec::with_capacity(shape.len());
    let mut acc = 1usize;
    for &d in shape {
        outer.push(acc);
        acc = acc.saturating_mul(d);
    }
    let mut level = flat;
    for axis in (0..shape.len()).rev() {
        let groups = outer[axis];
        let len = shape[axis];
        let mut items = level.into_iter();
        let mut next = Vec::with_capacity(groups.min(1 << 20));
        for _ in 0..groups {
            meter.tick(1)?;
            let group: Vec<Value> = items.by_ref().take(len).collect();
            next.push(Value::Vector(Vector::new_measured(group, meter)?));
        }
        level = next;
    }
    Ok(level
        .into_iter()
        .next()
        .unwrap_or_else(|| Value::vector(Vec::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: Vec<Value>) -> Value {
        Value::vector(items)
    }

    #[test]
    fn shapes() {
        assert_eq!(shape(&Value::num(1)), Some(vec![]));
        assert_eq!(shape(&v(vec![])), Some(vec![0]));
        assert_eq!(shape(&v(vec![v(vec![]), v(vec![])])), Some(vec![2, 0]));
        assert_eq!(shape(&v(vec![v(vec![Value::num(1)]), Value::num(2)])), None);
        assert_eq!(
            shape(&v(vec![
                v(vec![Value::num(1), Value::num(2)]),
                v(vec![Value::num(3)])
            ])),
            None
        );
        assert_eq!(shape(&v(vec![v(vec![]), v(vec![Value::num(3)])])), None);
    }

    #[test]
    fn nest_handles_zero_axes() {
        let m = Meter::new(ajisai_core::Profile::CLI_LOCAL);
        assert_eq!(nest(vec![], &[2, 0], &m), Ok(v(vec![v(vec![]), v(vec![])])));
        assert_eq!(nest(vec![], &[0, 3], &m), Ok(v(vec![])));
        assert_eq!(
            nest((1..=4).map(Value::num).collect(), &[2, 2], &m),
            Ok(v(vec![
                v(vec![Value::num(1), Value::num(2)]),
                v(vec![Value::num(3), Value::num(4)])
            ]))
        );
    }

    #[test]
    fn deep_values_do_not_recurse() {
        let mut deep = Value::num(1);
        for _ in 0..200_000 {
            deep = v(vec![deep]);
        }
        assert_eq!(Leaves::of(&deep).count(), 1);
        assert_eq!(shape(&deep).map(|s| s.len()), Some(200_000));
        let mut m = Meter::new(ajisai_core::Profile::CLI_LOCAL);
        let mapped = map_leaves(&deep, &mut m, |_, x| Ok(x.clone())).unwrap_or(Value::num(0));
        assert_eq!(mapped.depth(), 200_000);
    }

    #[test]
    fn deep_broadcasts_do_not_recurse() {
        let mut deep = Value::num(1);
        for _ in 0..100_000 {
            deep = v(vec![deep]);
        }
        let mut meter = Meter::new(ajisai_core::Profile::MCP_LOCAL_STDIO);
        let two = Value::num(2);
        let add = |_: &mut Meter, x: &Number, y: &Number| Ok(Value::Number(x.add(y)));
        let scalar = Broadcast::plan("ADD", OPERANDS, &deep, &two).map_err(|e| e.message);
        let scalar = scalar.and_then(|p| p.build(&mut meter, add).map_err(|_| "build".to_string()));
        assert_eq!(
            scalar.map(|r| (r.depth(), Leaves::of(&r).next().cloned())),
            Ok((100_000, Some(Value::num(3))))
        );
        let grid = Broadcast::plan("ADD", OPERANDS, &deep, &deep).map_err(|e| e.message);
        let grid = grid.and_then(|p| p.build(&mut meter, add).map_err(|_| "build".to_string()));
        assert_eq!(
            grid.map(|r| (r.depth(), Leaves::of(&r).next().cloned())),
            Ok((100_000, Some(Value::num(2))))
        );
    }

    #[test]
    fn grid_reuses_length_one_axes() {
        let row = v(vec![Value::num(1), Value::num(2), Value::num(3)]);
        let col = v(vec![v(vec![Value::num(10)]), v(vec![Value::num(20)])]);
        let plan = Broadcast::plan("ADD", OPERANDS, &col, &row).map_err(|e| e.message);
        let mut meter = Meter::new(ajisai_core::Profile::CLI_LOCAL);
        let pairs: Result<Vec<(Value, Value)>, String> = plan.map(|p| {
            if p.prepare(&mut meter, Pay::Prepaid).is_err() {
                return Vec::new();
            }
            p.pairs().map(|(x, y)| (x.clone(), y.clone())).collect()
        });
        let want: Vec<(Value, Value)> = [(10, 1), (10, 2), (10, 3), (20, 1), (20, 2), (20, 3)]
            .iter()
            .map(|&(x, y)| (Value::num(x), Value::num(y)))
            .collect();
        assert_eq!(pairs, Ok(want));
    }
}
