//! Shaped collections (family `collection`): FILL, RESHAPE, ZIP (docs/words/collection.md).
//!
//! FILL and RESHAPE build a nested Vector from a shape description. The size of
//! what they would build — the element count d₁·…·dₖ against
//! `materializedElements`, the depth k against `nestingDepth` — is measured from
//! the operands before anything is built, and a refusal leaves the operands in
//! place (docs/reference/pricing-and-limits.md). ZIP pairs equal-length Vectors position by
//! position.

use crate::collection::tick;
use crate::support::{base, describe, vector_operand};
use ajisai_core::limits::{exceeded, Limit, Meter};
use ajisai_core::number::{Int, Number};
use ajisai_core::outcome::{err, ErrorCategory, LangError};
use ajisai_core::price::{self, GENERATED_ELEMENT};
use ajisai_core::value::{Value, Vector};
use ajisai_core::word::{ex, Family, FamilyRegistration, Flow, NilPolicy, Tier, WordSpec};
use ajisai_core::{Ctx, Halt};

/// The integer of `n` when it is a positive integer.
fn positive(n: &Number) -> Option<&Int> {
    n.as_int().filter(|i| i.signum() > 0)
}

/// The exact product of `dims` for a refusal message. Each factor exists in
/// memory already, but their product need not be cheap: factors after the first
/// one over the limit (`first_over`) are included only while the product stays
/// within a 2^20-bit budget, so a pathological shape yields a lower bound (still
/// over the limit) rather than an unbounded multiplication.
fn product_for_message(dims: &[Int], first_over: usize) -> Int {
    const BUDGET_BITS: u64 = 1 << 20;
    let mut bits = 0u64;
    let mut factors: Vec<Int> = Vec::new();
    for (j, d) in dims.iter().enumerate() {
        if d.is_one() {
            continue;
        }
        let b = d.bit_length();
        if j > first_over && bits.saturating_add(b) > BUDGET_BITS {
            break;
        }
        bits = bits.saturating_add(b);
        factors.push(d.clone());
    }
    // A balanced product tree keeps the multiplications proportional to the result.
    while factors.len() > 1 {
        let next: Vec<Int> = factors
            .chunks(2)
            .map(|pair| match pair {
                [a, b] => a.mul(b),
                [a] => a.clone(),
                _ => Int::ONE,
            })
            .collect();
        factors = next;
    }
    factors.pop().unwrap_or(Int::ONE)
}

/// Check a shape of positive dimensions against the size limits, in the order
/// docs/words/collection.md lists them — `materializedElements` for d₁·…·dₖ, then `nestingDepth`
/// for k — and return the element count.
fn checked_size(meter: &Meter, dims: &[Int]) -> Result<usize, LangError> {
    let ceiling = meter.ceiling(Limit::MaterializedElements);
    let mut product: u128 = 1;
    for (j, d) in dims.iter().enumerate() {
        let over = match d.to_u64() {
            Some(x) => {
                product = product.saturating_mul(u128::from(x));
                product > u128::from(ceiling)
            }
            None => true,
        };
        if over {
            return Err(exceeded(
                Limit::MaterializedElements,
                product_for_message(dims, j),
                ceiling,
            ));
        }
    }
    meter.check_size(Limit::NestingDepth, dims.len() as u64)?;
    // product ≤ ceiling ≤ u64::MAX here; a ceiling beyond usize cannot be built anyway.
    usize::try_from(product).map_err(|_| exceeded(Limit::MaterializedElements, product, ceiling))
}

/// Render a shape for messages: `[ 2 3 ]`.
fn shape_text(dims: &[Int]) -> String {
    let mut s = String::from("[");
    for d in dims {
        s.push(' ');
        s.push_str(&d.to_string());
    }
    s.push_str(" ]");
    s
}

// ---------------------------------------------------------------- FILL

fn fill(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let desc = vector_operand("FILL", "description [ d1 … dk v ]", ctx.peek(0))?.clone();
    let items = desc.items();
    let Some((value, dim_values)) = items.split_last().filter(|(_, d)| !d.is_empty()) else {
        return Err(err::invalid_argument(format!(
            "FILL needs a description [ d1 … dk v ] with at least one dimension and the fill value, got a Vector of {} element{}",
            items.len(),
            if items.len() == 1 { "" } else { "s" }
        ))
        .into());
    };
    let mut dims = Vec::with_capacity(dim_values.len());
    for (i, d) in dim_values.iter().enumerate() {
        match d.as_number().and_then(positive) {
            Some(n) => dims.push(n.clone()),
            None => {
                return Err(err::invalid_argument(format!(
                    "FILL dimensions must be positive integer Numbers (not wrapped in Vectors); dimension {i} is {}",
                    describe(d)
                ))
                .into())
            }
        }
    }
    let fill_value = match value {
        Value::Number(n @ Number::Rat(_)) => n.clone(),
        other => {
            return Err(err::invalid_argument(format!(
                "FILL fills with a rational Number (the last element of the description), got {}",
                describe(other)
            ))
            .into())
        }
    };
    let total = checked_size(ctx.meter(), &dims)?;
    ctx.charge_collection((total as u64).saturating_mul(GENERATED_ELEMENT))?;
    // Every row of a level is the same value, so rows share their elements
    // (Vectors are copy-on-write); building costs the sum of the dimensions.
    let meter = ctx.meter();
    let mut cur = Value::Number(fill_value);
    for d in dims.iter().rev() {
        let d = d.to_u64().unwrap_or(0) as usize;
        let mut row = Vec::with_capacity(d);
        for _ in 0..d {
            tick(meter)?;
            row.push(cur.clone());
        }
        cur = Value::vector(row);
    }
    ctx.consume_and_push(1, cur)
}

// ---------------------------------------------------------------- RESHAPE

/// A RESHAPE dimension: a positive integer Number.
fn reshape_dim(n: &Number, what: &str) -> Result<Int, LangError> {
    positive(n).cloned().ok_or_else(|| {
        err::invalid_argument(format!(
            "RESHAPE dimensions must be positive integers; {what} is {}",
            Value::Number(n.clone()).describe()
        ))
    })
}

/// Non-Vector leaves of `v` at any depth, from its cached statistics (computed once
/// per distinct sub-Vector, so a Vector sharing sub-Vectors costs its structure, not
/// its leaves).
fn count_leaves(meter: &Meter, v: &Vector) -> Result<u64, Halt> {
    meter.poll()?;
    Ok(v.leaf_stats().leaves)
}

/// The leaves of `v` in depth-first left-to-right order (iterative; polls).
fn leaves(meter: &Meter, v: &Vector, expected: usize) -> Result<Vec<Value>, Halt> {
    let mut out = Vec::with_capacity(expected);
    // A stack of (Vector, next position) replaces recursion over arbitrary depth.
    let mut work: Vec<(&Vector, usize)> = vec![(v, 0)];
    while let Some((w, i)) = work.pop() {
        let Some(x) = w.items().get(i) else { continue };
        tick(meter)?;
        work.push((w, i + 1));
        match x {
            Value::Vector(inner) => work.push((inner, 0)),
            leaf => out.push(leaf.clone()),
        }
    }
    Ok(out)
}

fn reshape(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let v = vector_operand("RESHAPE", "to rearrange", &ops[0])?.clone();
    let dims: Vec<Int> = match &ops[1] {
        Value::Number(n) => vec![reshape_dim(n, "the shape")?],
        Value::Vector(s) => {
            if s.is_empty() {
                return Err(
                    err::invalid_argument("RESHAPE needs a non-empty shape; got [ ]").into(),
                );
            }
            let mut dims = Vec::with_capacity(s.len());
            for (i, d) in s.items().iter().enumerate() {
                match d {
                    Value::Number(n) => dims.push(reshape_dim(n, &format!("dimension {i}"))?),
                    Value::Vector(_) => {
                        return Err(err::invalid_argument(format!(
                            "RESHAPE needs a flat shape of positive integers; dimension {i} is a nested Vector"
                        ))
                        .into())
                    }
                    other => {
                        return Err(err::invalid_argument(format!(
                            "RESHAPE dimensions must be positive integers; dimension {i} is {}",
                            describe(other)
                        ))
                        .into())
                    }
                }
            }
            dims
        }
        other => {
            return Err(err::type_mismatch(format!(
                "RESHAPE needs a shape (a positive integer or a Vector of them), got {}",
                describe(other)
            ))
            .into())
        }
    };
    let total = checked_size(ctx.meter(), &dims)?;
    let found = count_leaves(ctx.meter(), &v)?;
    if found != total as u64 {
        return Err(err::shape_mismatch(format!(
            "RESHAPE to {} needs {total} leaves, but the Vector has {found}",
            shape_text(&dims)
        ))
        .into());
    }
    // The elements built, and the Vectors nested in the operand, which the walk to its
    // leaves visits too (docs/reference/pricing-and-limits.md#collectionwork).
    let walked = crate::lifting::nested_vectors(&Value::Vector(v.clone()));
    ctx.charge_collection(
        (total as u64)
            .saturating_mul(GENERATED_ELEMENT)
            .saturating_add(walked),
    )?;
    let meter = ctx.meter();
    let mut level = leaves(meter, &v, total)?;
    // Group the innermost axis first: row-major, last axis fastest.
    for d in dims[1..].iter().rev() {
        let d = d.to_u64().map_or(1, |d| d.max(1) as usize);
        let groups = level.len() / d;
        let mut next = Vec::with_capacity(groups);
        let mut it = level.into_iter();
        for _ in 0..groups {
            meter.tick(d as u64)?;
            next.push(Value::vector(it.by_ref().take(d).collect()));
        }
        level = next;
    }
    ctx.consume_and_push(2, Value::vector(level))
}

// ---------------------------------------------------------------- ZIP

fn zip(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let vs = vector_operand("ZIP", "of Vectors", ctx.peek(0))?.clone();
    let mut rows: Vec<&Vector> = Vec::with_capacity(vs.len());
    for (i, r) in vs.items().iter().enumerate() {
        match r.as_vector() {
            Some(row) => rows.push(row),
            None => {
                return Err(err::type_mismatch(format!(
                    "ZIP needs a Vector of Vectors; element {i} is {}{}",
                    describe(r),
                    if r.as_str().is_some() {
                        " (Strings are not Vectors)"
                    } else {
                        ""
                    }
                ))
                .into())
            }
        }
    }
    let m = rows.first().map_or(0, |r| r.len());
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != m) {
        return Err(err::shape_mismatch(format!(
            "ZIP needs Vectors of equal length; element 0 has {m} element{} but element {i} has {}",
            if m == 1 { "" } else { "s" },
            r.len()
        ))
        .into());
    }
    let k = rows.len();
    // Every element copy costs at least copy's floor of 17 (per 1, width 1): that much is
    // charged before anything is built, the rest once the columns' measures are known.
    let floor = (k as u64).saturating_mul(m as u64).saturating_mul(16 + 1);
    ctx.charge_collection(floor)?;
    let meter = ctx.meter();
    let mut columns = Vec::with_capacity(m);
    let mut units = 0u64;
    for j in 0..m {
        let mut col = Vec::with_capacity(k);
        for r in &rows {
            tick(meter)?;
            col.push(r.items()[j].clone());
        }
        let col = Vector::new(col);
        units = units.saturating_add((k as u64).saturating_mul(price::copy(&col)));
        columns.push(Value::Vector(col));
    }
    ctx.charge_collection(units.saturating_sub(floor))?;
    ctx.consume_and_push(1, Value::vector(columns))
}

// ---------------------------------------------------------------- specs

/// `FILL`
pub const FILL: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument],
    summary: "A nested Vector of shape [ d1 … dk ] every leaf of which is the rational v.",
    syntax: "[ d1 … dk v ] FILL",
    stack_effect: "( [ d1 … dk v ] -- t )",
    examples: &[
        ex("[ 2 2 0 ] FILL", "[ [ 0/1 0/1 ] [ 0/1 0/1 ] ]"),
        ex("[ 3 7 ] FILL", "[ 7/1 7/1 7/1 ]"),
        ex("[ 2 1 1 5 ] FILL", "[ [ [ 5/1 ] ] [ [ 5/1 ] ] ]"),
        ex("[ 0 5 ] FILL", "error:invalidArgument"),
    ],
    rules: r#"`[ d₁ … dₖ v ] FILL` ( desc -- t ). A nested Vector of shape [d₁ … dₖ] (k ≥ 1) every leaf of
which is v. The dimensions must be positive integer Numbers (no one-element wrapping here: `[ [
2 ] 3 ] FILL` is `invalidArgument`); v must be a **rational** Number. ERROR: `typeMismatch`
(operand not a Vector, or NIL); `invalidArgument` (fewer than 2 elements; a dimension that is
not a positive integer; v not a rational Number — an element of any other domain, NIL included,
is such a bad description, never `typeMismatch`); `resourceLimitExceeded` —
`materializedElements` when d₁·…·dₖ exceeds the limit, `nestingDepth` when k exceeds the limit,
measured before building, operand left in place. KEEP: keeps the operand."#,
    ..base("FILL", Family::Collection, 1, 1, fill)
};

/// `RESHAPE`
pub const RESHAPE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument, ErrorCategory::ShapeMismatch],
    summary: "Rearrange the leaves of a Vector (depth-first, left to right) into a nested Vector of the given shape, row-major.",
    syntax: "v shape RESHAPE",
    stack_effect: "( v shape -- t )",
    examples: &[
        ex("[ 1 2 3 4 5 6 ] [ 2 3 ] RESHAPE", "[ [ 1/1 2/1 3/1 ] [ 4/1 5/1 6/1 ] ]"),
        ex("[ [ 1 2 ] [ 3 4 ] ] 4 RESHAPE", "[ 1/1 2/1 3/1 4/1 ]"),
        ex("[ 1 2 3 4 ] [ 2 2 1 ] RESHAPE", "[ [ [ 1/1 ] [ 2/1 ] ] [ [ 3/1 ] [ 4/1 ] ] ]"),
        ex("[ 'a' TRUE NIL 1 ] [ 2 2 ] RESHAPE", "[ [ 'a' TRUE ] [ NIL 1/1 ] ]"),
    ],
    rules: r#"`v shape RESHAPE` ( v shape -- t ). Rearranges the leaves of v into a nested Vector of the
given shape, row-major (last axis fastest). The leaves of v are its non-Vector elements at
every depth, in depth-first left-to-right order (so any nesting, ragged included, is first
flattened; empty sub-Vectors contribute nothing); leaves of every domain are allowed. shape: a
non-empty Vector of positive integers, or a single positive integer n meaning `[ n ]`. Checks,
in order: `typeMismatch` (v not a Vector; shape not a Number or Vector; a NIL operand);
`invalidArgument` (shape empty, nested, or holding a value that is not a positive integer);
`resourceLimitExceeded` — `materializedElements` when the product of the dimensions exceeds the
limit, `nestingDepth` when the number of dimensions exceeds the limit (measured before
building, operands left in place); `shapeMismatch` when the number of leaves differs from the
product. KEEP: keeps v and shape."#,
    ..base("RESHAPE", Family::Collection, 2, 1, reshape)
};

/// `ZIP`
pub const ZIP: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::ShapeMismatch],
    summary: "Pair equal-length Vectors position by position: element j of the result holds the j-th elements (a matrix is transposed).",
    syntax: "vs ZIP",
    stack_effect: "( vs -- ws )",
    examples: &[
        ex("[ [ 1 2 ] [ 3 4 ] ] ZIP", "[ [ 1/1 3/1 ] [ 2/1 4/1 ] ]"),
        ex("[ [ 1 2 3 ] [ 4 5 6 ] ] ZIP", "[ [ 1/1 4/1 ] [ 2/1 5/1 ] [ 3/1 6/1 ] ]"),
        ex("[ [ 1 2 ] [ 'a' 'b' ] [ TRUE FALSE ] ] ZIP", "[ [ 1/1 'a' TRUE ] [ 2/1 'b' FALSE ] ]"),
        ex("[ [ 1 2 ] [ 3 ] ] ZIP", "error:shapeMismatch"),
    ],
    rules: r#"`vs ZIP` ( vs -- ws ). vs is a Vector of equal-length Vectors; the result pairs them position
by position (a matrix is transposed): element j of the result is the Vector of the j-th
elements. `[ ]` and a Vector of empty Vectors give `[ ]`. NIL: a NIL operand passes through.
ERROR: `typeMismatch` (vs not a Vector, or an element of vs not a Vector — Strings included);
`shapeMismatch` (lengths differ). KEEP: keeps vs."#,
    ..base("ZIP", Family::Collection, 1, 1, zip)
};

inventory::submit! {
    FamilyRegistration {
        module: "tensor",
        words: &[FILL, RESHAPE, ZIP],
        family_rules: &[],
    }
}
