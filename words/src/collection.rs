//! Collections (`collection`): GET, LENGTH, TAKE, CONCAT, REVERSE, COLLECT, RANGE,
//! SORT, ORDER, UNIQUE, TALLY, PUT, GROUP, INDEX-OF (docs/words/collection.md).
//!
//! These Words work on the outermost level of a Vector and never treat a String
//! as one. Every element copy, order comparison and equality probe is paid for
//! in `collectionWork` exactly as docs/reference/pricing-and-limits.md prices it: up front once
//! every check has passed, except for the scans of UNIQUE, TALLY and GROUP, which pay per element
//! as they go and report how far they got when a charge is refused. Every element operation ticks
//! the meter, which checks the host's interrupt flag a check's worth of work at a time. FILL,
//! RESHAPE and ZIP (the same family) live in [`crate::tensor`].

use crate::support::{base, describe, integer_operand, vector_operand};
use ajisai_core::limits::{exceeded, Limit, Meter};
use ajisai_core::number::{Int, Number};
use ajisai_core::outcome::{err, ErrorCategory, LangError, NilReason};
use ajisai_core::price::{self, GENERATED_ELEMENT};
use ajisai_core::value::{equal_metered, short_int_text, Pay, Value, Vector};
use ajisai_core::word::{
    ex, Arity, Family, FamilyRegistration, Flow, NilPolicy, StaticEffect, Tier, WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::cmp::Ordering;

/// Elements cloned between two ticks of the meter.
const CLONE_CHUNK: usize = 256;

/// Count one element operation (paid up front) toward the meter's next check.
#[inline]
pub(crate) fn tick(meter: &Meter) -> Result<(), Halt> {
    meter.tick(1)
}

/// Clone `items` into a new element list, ticking as it goes.
pub(crate) fn clone_polled(meter: &Meter, items: &[Value]) -> Result<Vec<Value>, Halt> {
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(CLONE_CHUNK) {
        meter.tick(chunk.len() as u64)?;
        out.extend_from_slice(chunk);
    }
    Ok(out)
}

/// `count · unit`, saturating (a saturated charge is refused by any finite limit).
#[inline]
fn times(count: usize, unit: u64) -> u64 {
    (count as u64).saturating_mul(unit)
}

/// A running charge of a UNIQUE/TALLY/GROUP scan: a refusal says how far the scan got.
fn charge_running(ctx: &mut Ctx<'_>, units: u64, done: usize, total: usize) -> Result<(), Halt> {
    ctx.charge_collection(units).map_err(|h| match h {
        Halt::Error(mut e) => {
            e.message
                .push_str(&format!(" after {done} of {total} elements"));
            Halt::Error(e)
        }
        other => other,
    })
}

/// The position `i` names in a Vector of `len` elements (negative counts from the
/// end), or `None` when it names none (including indices beyond 64-bit range).
fn resolve_index(i: &Int, len: usize) -> Option<usize> {
    let i = i.to_i64()? as i128;
    let len = len as i128;
    let at = if i < 0 { len + i } else { i };
    (0..len).contains(&at).then_some(at as usize)
}

/// `n` as a result Number.
fn count_value(n: usize) -> Value {
    Value::num(Int::from(n))
}

// ---------------------------------------------------------------- GET

/// How GET selects: one position (the element itself) or a gather.
enum Selection {
    One(Option<usize>),
    Many(Vec<Option<usize>>),
}

/// One element of an index Vector: an integer, possibly wrapped in one-element
/// Vectors. A non-Number core is `typeMismatch`; a non-integer or a Vector that is
/// not a one-element wrapping is `invalidArgument`.
fn index_element(pos: usize, elem: &Value) -> Result<Int, LangError> {
    let mut cur = elem;
    loop {
        match cur {
            Value::Number(n) => {
                return n.as_int().cloned().ok_or_else(|| {
                    err::invalid_argument(format!(
                        "GET needs integer indices, but element {pos} of the index Vector is {}",
                        describe(elem)
                    ))
                })
            }
            Value::Vector(items) if items.len() == 1 => cur = &items.items()[0],
            Value::Vector(items) => {
                return Err(err::invalid_argument(format!(
                    "GET index Vectors hold integers (each optionally wrapped in one-element Vectors), but element {pos} is a nested Vector of {} elements",
                    items.len()
                )))
            }
            other => {
                return Err(err::type_mismatch(format!(
                    "GET needs integer indices, but element {pos} of the index Vector is {}",
                    describe(other)
                )))
            }
        }
    }
}

fn get(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let v = vector_operand("GET", "to select from (Strings are not Vectors)", &ops[0])?.clone();
    let len = v.len();
    let selection = match &ops[1] {
        Value::Number(n) => {
            let i = n.as_int().ok_or_else(|| {
                err::invalid_argument(format!(
                    "GET needs an integer index, got {}",
                    describe(&ops[1])
                ))
            })?;
            Selection::One(resolve_index(i, len))
        }
        Value::Vector(ix) => {
            if ix.is_empty() {
                return Err(err::invalid_argument(
                    "GET needs at least one index; the index Vector is empty",
                )
                .into());
            }
            let mut picks = Vec::with_capacity(ix.len());
            for (pos, elem) in ix.items().iter().enumerate() {
                picks.push(resolve_index(&index_element(pos, elem)?, len));
            }
            if picks.len() == 1 {
                Selection::One(picks[0])
            } else {
                Selection::Many(picks)
            }
        }
        other => {
            return Err(err::type_mismatch(format!(
                "GET needs an integer index or a Vector of integer indices, got {}",
                describe(other)
            ))
            .into())
        }
    };
    let indices = match &selection {
        Selection::One(_) => 1,
        Selection::Many(p) => p.len(),
    };
    ctx.charge_collection(times(indices, price::copy(&v)))?;
    let pick = |p: Option<usize>| {
        p.map_or(Value::Nil(NilReason::IndexOutOfBounds), |i| {
            v.items()[i].clone()
        })
    };
    let result = match selection {
        Selection::One(p) => pick(p),
        Selection::Many(ps) => {
            let meter = ctx.meter();
            let mut out = Vec::with_capacity(ps.len());
            for p in ps {
                tick(meter)?;
                out.push(pick(p));
            }
            Value::vector(out)
        }
    };
    ctx.consume_and_push(2, result)
}

// ---------------------------------------------------------------- LENGTH, TAKE, CONCAT, REVERSE

fn length(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let n = vector_operand(
        "LENGTH",
        "(Strings are not Vectors; use CHARS first)",
        ctx.peek(0),
    )?
    .len();
    ctx.consume_and_push(1, count_value(n))
}

fn take(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let v = vector_operand("TAKE", "to take from (Strings are not Vectors)", &ops[0])?.clone();
    let n = integer_operand("TAKE", "count", &ops[1])?;
    let len = v.len();
    let k = n.to_i64().filter(|k| k.unsigned_abs() <= len as u64).ok_or_else(|| {
        err::invalid_argument(if len == 0 {
            format!(
                "TAKE count {} is out of range: the Vector is empty, so the count must be 0",
                short_int_text(&n)
            )
        } else {
            format!(
                "TAKE count {} is out of range: the Vector has {len} element{}, so the count must lie between -{len} and {len}",
                short_int_text(&n),
                if len == 1 { "" } else { "s" }
            )
        })
    })?;
    let count = k.unsigned_abs() as usize;
    ctx.charge_collection(times(count, price::copy(&v)))?;
    let part = if k >= 0 {
        &v.items()[..count]
    } else {
        &v.items()[len - count..]
    };
    let out = clone_polled(ctx.meter(), part)?;
    ctx.consume_and_push(2, Value::vector(out))
}

fn concat(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let a = vector_operand(
        "CONCAT",
        "as its first operand (Strings are not Vectors)",
        &ops[0],
    )?
    .clone();
    let b = vector_operand(
        "CONCAT",
        "as its second operand (Strings are not Vectors)",
        &ops[1],
    )?
    .clone();
    let units = times(a.len(), price::copy(&a)).saturating_add(times(b.len(), price::copy(&b)));
    ctx.charge_collection(units)?;
    let meter = ctx.meter();
    let mut out = clone_polled(meter, a.items())?;
    out.extend(clone_polled(meter, b.items())?);
    ctx.consume_and_push(2, Value::vector(out))
}

fn reverse(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand(
        "REVERSE",
        "(Strings are not Vectors; use CHARS first)",
        ctx.peek(0),
    )?
    .clone();
    ctx.charge_collection(times(v.len(), price::copy(&v)))?;
    let mut out = clone_polled(ctx.meter(), v.items())?;
    out.reverse();
    ctx.consume_and_push(1, Value::vector(out))
}

// ---------------------------------------------------------------- COLLECT

fn collect(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let top = ctx.peek(0);
    if top.is_nil() {
        return Err(
            err::type_mismatch("COLLECT needs a positive integer count on top, got NIL").into(),
        );
    }
    let n = integer_operand("COLLECT", "count", top)?;
    let n = match n.to_i64() {
        Some(k) if k > 0 => k as u64,
        _ => {
            return Err(err::invalid_argument(format!(
                "COLLECT needs a positive count (at least 1, at most {}), got {n}",
                i64::MAX
            ))
            .into())
        }
    };
    let below = ctx.depth() - 1;
    if n > below as u64 {
        return Err(err::stack_underflow(format!(
            "COLLECT {n} needs {n} value{} below the count, but the stack holds {below}",
            if n == 1 { "" } else { "s" }
        ))
        .into());
    }
    let n = n as usize;
    let mut items = Vec::with_capacity(n);
    for i in (1..=n).rev() {
        ctx.meter().tick(1)?;
        items.push(ctx.peek(i).clone());
    }
    let w = Vector::new(items);
    ctx.charge_collection(times(n, price::copy(&w)))?;
    ctx.consume_and_push(n + 1, Value::Vector(w))
}

// ---------------------------------------------------------------- RANGE

/// An element of a RANGE description: an integer, possibly wrapped in one-element
/// Vectors. Anything else, whatever its domain, is a bad description (`invalidArgument`).
fn description_integer(what: &str, v: &Value) -> Result<Int, LangError> {
    let mut cur = v;
    loop {
        match cur {
            Value::Number(n) => {
                if let Some(i) = n.as_int() {
                    return Ok(i.clone());
                }
                break;
            }
            Value::Vector(items) if items.len() == 1 => cur = &items.items()[0],
            _ => break,
        }
    }
    Err(err::invalid_argument(format!(
        "RANGE needs an integer {what}, got {}",
        describe(v)
    )))
}

fn range(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let (consumed, start, end, step) = match ctx.peek(0) {
        Value::Vector(desc) => {
            let items = desc.items();
            if !(2..=3).contains(&items.len()) {
                return Err(err::invalid_argument(format!(
                    "RANGE needs a Vector [ start end ] or [ start end step ], got a Vector of {} element{}",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                ))
                .into());
            }
            let start = description_integer("start", &items[0])?;
            let end = description_integer("end", &items[1])?;
            let step = match items.get(2) {
                Some(s) => Some(description_integer("step", s)?),
                None => None,
            };
            (1, start, end, step)
        }
        Value::Number(e) => {
            let e = e.clone();
            if ctx.depth() < 2 {
                return Err(err::stack_underflow(
                    "RANGE with a Number on top takes two operands (start end RANGE), but nothing is below it; for a Vector description write [ start end ] RANGE",
                )
                .into());
            }
            let s = match ctx.peek(1) {
                Value::Number(s) => s.clone(),
                other => {
                    return Err(err::type_mismatch(format!(
                        "RANGE with a Number on top needs a Number start below it (start end RANGE), got {}",
                        describe(other)
                    ))
                    .into())
                }
            };
            let int = |what: &str, n: &Number| {
                n.as_int().cloned().ok_or_else(|| {
                    err::invalid_argument(format!(
                        "RANGE needs an integer {what}, got the Number {n}"
                    ))
                })
            };
            (2, int("start", &s)?, int("end", &e)?, None)
        }
        other => {
            return Err(err::type_mismatch(format!(
                "RANGE needs a Vector [ start end (step) ] or two Numbers (start end), got {}",
                describe(other)
            ))
            .into())
        }
    };
    let toward = end.cmp(&start);
    let step = match step {
        None => Int::from(if toward == Ordering::Less { -1 } else { 1 }),
        Some(s) if s.is_zero() => {
            return Err(err::invalid_argument("RANGE step must not be 0").into())
        }
        Some(s) => {
            let points = if s.is_negative() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            if toward != Ordering::Equal && toward != points {
                return Err(err::invalid_argument(format!(
                    "RANGE step {s} points away from the end: from {start} to {end} the step must be {}",
                    if toward == Ordering::Greater { "positive" } else { "negative" }
                ))
                .into());
            }
            s
        }
    };
    // |end − start| div |step| + 1, exactly, whatever the size of the bounds.
    let (quotient, _) = end.sub(&start).abs().div_rem(&step.abs());
    let count = quotient.add(&Int::ONE);
    let ceiling = ctx.meter().ceiling(Limit::MaterializedElements);
    let n = match count.to_u64() {
        Some(n) if n <= ceiling => n as usize,
        _ => return Err(exceeded(Limit::MaterializedElements, &count, ceiling).into()),
    };
    ctx.charge_collection(times(n, GENERATED_ELEMENT))?;
    let meter = ctx.meter();
    let mut out = Vec::with_capacity(n);
    match (start.to_i64(), step.to_i64()) {
        // Every element lies between start and end, so it fits i128 when the bounds fit i64.
        (Some(s), Some(d)) if end.to_i64().is_some() => {
            for k in 0..n {
                tick(meter)?;
                out.push(Value::num(Int::from(s as i128 + k as i128 * d as i128)));
            }
        }
        _ => {
            let mut x = start;
            for _ in 0..n {
                tick(meter)?;
                let next = x.add(&step);
                out.push(Value::num(x));
                x = next;
            }
        }
    }
    ctx.consume_and_push(consumed, Value::vector(out))
}

// ---------------------------------------------------------------- SORT, ORDER

/// The Numbers of a SORT/ORDER operand, or `typeMismatch` naming the first other
/// element; every element read ticks `meter` (a list of a hundred thousand is a
/// millisecond's work, page faults included).
fn numbers<'v>(word: &str, v: &'v Vector, meter: &Meter) -> Result<Vec<&'v Number>, Halt> {
    let mut out = Vec::with_capacity(v.len());
    for (i, x) in v.items().iter().enumerate() {
        meter.tick(1)?;
        match x.as_number() {
            Some(n) => out.push(n),
            None => {
                return Err(err::type_mismatch(format!(
                "{word} orders Numbers only; element {i} is {} (no order exists between domains)",
                describe(x)
            ))
                .into())
            }
        }
    }
    Ok(out)
}

/// probe(v)·n·(⌊log₂ n⌋ + 1) + n·copy(v); 0 for the empty Vector.
fn sort_charge(v: &Vector) -> u64 {
    let n = v.len();
    if n == 0 {
        return 0;
    }
    let (probe, copy) = price::probe_and_copy(v);
    let passes = u64::from(n.ilog2()) + 1;
    times(n, probe)
        .saturating_mul(passes)
        .saturating_add(times(n, copy))
}

/// Sort `0..n` stably by `cmp` (a bottom-up merge sort; every comparison ticks the
/// meter, and `cmp` may charge it — an algebraic comparison's sign procedure does; a
/// total order is never assumed of the comparator for memory safety, so nothing here can
/// panic).
fn stable_order(
    n: usize,
    meter: &mut Meter,
    mut cmp: impl FnMut(&mut Meter, usize, usize) -> Result<Ordering, Halt>,
) -> Result<Vec<usize>, Halt> {
    const RUN: usize = 16;
    let counted = |meter: &mut Meter| -> Result<(), Halt> { meter.tick(1) };
    let mut a: Vec<usize> = (0..n).collect();
    for start in (0..n).step_by(RUN) {
        let end = (start + RUN).min(n);
        for i in start + 1..end {
            let x = a[i];
            let mut j = i;
            while j > start {
                counted(meter)?;
                if cmp(meter, a[j - 1], x)? != Ordering::Greater {
                    break;
                }
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = x;
        }
    }
    let mut buf = vec![0usize; n];
    let mut width = RUN;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            if mid >= hi {
                buf[lo..hi].copy_from_slice(&a[lo..hi]);
                continue;
            }
            counted(meter)?;
            if cmp(meter, a[mid - 1], a[mid])? != Ordering::Greater {
                // Already in order: a common case worth skipping the merge for.
                buf[lo..hi].copy_from_slice(&a[lo..hi]);
                continue;
            }
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                counted(meter)?;
                if cmp(meter, a[j], a[i])? == Ordering::Less {
                    buf[k] = a[j];
                    j += 1;
                } else {
                    buf[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&a[i..mid]);
            k += mid - i;
            buf[k..k + (hi - j)].copy_from_slice(&a[j..hi]);
        }
        std::mem::swap(&mut a, &mut buf);
        width *= 2;
    }
    Ok(a)
}

/// The stable ascending permutation of `nums` under exact numeric order.
fn sorted_permutation(meter: &mut Meter, nums: &[&Number]) -> Result<Vec<usize>, Halt> {
    // Machine integers compare as plain keys; everything else exactly (rationals
    // without allocation when their parts fit a machine word; an algebraic comparison
    // charges its sign procedure as it goes).
    let small: Option<Vec<i64>> = nums
        .iter()
        .map(|n| n.as_int().and_then(Int::to_i64))
        .collect();
    match small {
        Some(keys) => stable_order(nums.len(), meter, |_, a, b| Ok(keys[a].cmp(&keys[b]))),
        None => stable_order(nums.len(), meter, |m, a, b| {
            nums[a].try_cmp_exact(nums[b], m)
        }),
    }
}

fn sort(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand("SORT", "of Numbers", ctx.peek(0))?.clone();
    let nums = numbers("SORT", &v, ctx.meter())?;
    ctx.charge_collection(sort_charge(&v))?;
    let meter = ctx.meter();
    let perm = sorted_permutation(meter, &nums)?;
    let mut out = Vec::with_capacity(perm.len());
    for i in perm {
        tick(meter)?;
        out.push(v.items()[i].clone());
    }
    ctx.consume_and_push(1, Value::vector(out))
}

fn order(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand("ORDER", "of Numbers", ctx.peek(0))?.clone();
    let nums = numbers("ORDER", &v, ctx.meter())?;
    ctx.charge_collection(sort_charge(&v))?;
    let meter = ctx.meter();
    let perm = sorted_permutation(meter, &nums)?;
    let mut out = Vec::with_capacity(perm.len());
    for i in perm {
        tick(meter)?;
        out.push(count_value(i));
    }
    ctx.consume_and_push(1, Value::vector(out))
}

// ---------------------------------------------------------------- UNIQUE, TALLY, GROUP

/// Distinct values of `keys` by value equality, in order of first occurrence.
struct Distinct {
    /// Index of each distinct value's first occurrence, in that order.
    first: Vec<usize>,
    /// For every element, the rank of its distinct value in `first`.
    class: Vec<usize>,
}

/// Scan `keys`, paying probe(keys) + 16 before each element is examined and
/// copy(keys) before each first occurrence is kept. Hashing only speeds up the
/// lookup (the hash of a Vector is cached per distinct Vector, a String's is read to its
/// end, which probe prices); candidates with the same hash are compared through the
/// meter, paid by the probe. The order observed is that of first occurrence.
fn distinct(ctx: &mut Ctx<'_>, keys: &Vector) -> Result<Distinct, Halt> {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let (probe, copy) = price::probe_and_copy(keys);
    let examine = probe.saturating_add(16);
    let total = keys.len();
    let hasher = BuildHasherDefault::<std::hash::DefaultHasher>::default();
    let mut seen: ajisai_core::memo::Memo<u64, Vec<usize>> = Default::default();
    let mut first: Vec<usize> = Vec::new();
    let mut class = Vec::with_capacity(total);
    let items = keys.items();
    for (i, x) in items.iter().enumerate() {
        charge_running(ctx, examine, i, total)?;
        let h = hasher.hash_one(x);
        let mut rank = None;
        if let Some(candidates) = seen.get(&h) {
            for &r in candidates {
                if equal_metered(x, &items[first[r]], ctx.meter(), Pay::Prepaid)? {
                    rank = Some(r);
                    break;
                }
            }
        }
        let rank = match rank {
            Some(r) => r,
            None => {
                charge_running(ctx, copy, i, total)?;
                let r = first.len();
                seen.entry(h).or_default().push(r);
                first.push(i);
                r
            }
        };
        class.push(rank);
    }
    Ok(Distinct { first, class })
}

fn unique(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand(
        "UNIQUE",
        "(Strings are not Vectors; use CHARS first)",
        ctx.peek(0),
    )?
    .clone();
    let d = distinct(ctx, &v)?;
    let out: Vec<Value> = d.first.iter().map(|&i| v.items()[i].clone()).collect();
    ctx.consume_and_push(1, Value::vector(out))
}

fn tally(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let v = vector_operand(
        "TALLY",
        "(Strings are not Vectors; use CHARS first)",
        ctx.peek(0),
    )?
    .clone();
    let d = distinct(ctx, &v)?;
    let mut counts = vec![0usize; d.first.len()];
    for &c in &d.class {
        counts[c] += 1;
    }
    ctx.consume_and_push(
        1,
        Value::vector(counts.into_iter().map(count_value).collect()),
    )
}

fn group(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let values = vector_operand("GROUP", "of values", &ops[0])?.clone();
    let keys = vector_operand("GROUP", "of keys", &ops[1])?.clone();
    if values.len() != keys.len() {
        return Err(err::shape_mismatch(format!(
            "GROUP needs as many keys as values, got {} value{} and {} key{}",
            values.len(),
            if values.len() == 1 { "" } else { "s" },
            keys.len(),
            if keys.len() == 1 { "" } else { "s" }
        ))
        .into());
    }
    ctx.charge_collection(times(values.len(), price::copy(&values)))?;
    let d = distinct(ctx, &keys)?;
    let mut groups: Vec<Vec<Value>> = vec![Vec::new(); d.first.len()];
    let meter = ctx.meter();
    for (&c, x) in d.class.iter().zip(values.items()) {
        tick(meter)?;
        groups[c].push(x.clone());
    }
    ctx.consume_and_push(
        2,
        Value::vector(groups.into_iter().map(Value::vector).collect()),
    )
}

// ---------------------------------------------------------------- PUT, INDEX-OF

fn put(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(3)?;
    let v = vector_operand("PUT", "to replace in (Strings are not Vectors)", &ops[0])?.clone();
    let i = integer_operand("PUT", "index", &ops[1])?;
    let x = ops[2].clone();
    let len = v.len();
    let at = resolve_index(&i, len).ok_or_else(|| {
        err::invalid_argument(if len == 0 {
            format!("PUT index {} names no element: the Vector is empty", short_int_text(&i))
        } else {
            format!("PUT index {} names no element: the Vector has {len} element{}, so the index must lie between -{len} and {}", short_int_text(&i), if len == 1 { "" } else { "s" }, len - 1)
        })
    })?;
    ctx.charge_collection(times(len, price::copy(&v)))?;
    let mut out = clone_polled(ctx.meter(), v.items())?;
    out[at] = x;
    ctx.consume_and_push(3, Value::vector(out))
}

fn index_of(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let ops = ctx.operands(2)?;
    let v = vector_operand("INDEX-OF", "to search (Strings are not Vectors)", &ops[0])?.clone();
    let x = ops[1].clone();
    ctx.charge_collection(times(v.len(), price::probe(&v)))?;
    let meter = ctx.meter();
    let mut found = None;
    for (i, e) in v.items().iter().enumerate() {
        tick(meter)?;
        if equal_metered(e, &x, meter, Pay::Prepaid)? {
            found = Some(i);
            break;
        }
    }
    let result = found.map_or(Value::Nil(NilReason::MissingField), count_value);
    ctx.consume_and_push(2, result)
}

// ---------------------------------------------------------------- specs

const TYPE: &[ErrorCategory] = &[ErrorCategory::TypeMismatch];
const TYPE_INVALID: &[ErrorCategory] =
    &[ErrorCategory::TypeMismatch, ErrorCategory::InvalidArgument];

/// `GET`
pub const GET: WordSpec = WordSpec {
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::IndexOutOfBounds],
    errors: TYPE_INVALID,
    summary: "Select by index (0 first, -1 last): one element, or with a Vector of indices a gather in index order; an index naming no element gives NIL(indexOutOfBounds).",
    syntax: "v i GET",
    stack_effect: "( v i -- x )",
    examples: &[
        ex("[ 10 20 30 ] 0 GET", "10/1"),
        ex("[ 10 20 30 ] -1 GET", "30/1"),
        ex("[ 10 20 30 ] [ 0 2 ] GET", "[ 10/1 30/1 ]"),
        ex("[ 10 20 30 ] [ 0 5 ] GET", "[ 10/1 NIL ]"),
    ],
    rules: r#"`v i GET` ( v i -- x ). Selects by index; 0 is the first element, −1 the last.

- i a Number: must be an integer; the result is the element itself, or `NIL(indexOutOfBounds)`
  when i names no element (including |i| beyond 64-bit range).
- i a Vector of integers: one index → the element itself (not wrapped); two or more → a Vector
  of the selected elements in index order (gather / permutation), each miss replaced in place
  by `NIL(indexOutOfBounds)`. Each index may itself be wrapped in one-element Vectors as an
  integer operand is (`[ [ 1 ] 2 ]` selects like `[ 1 2 ]`, `[ [ 1 ] ]` like `1`).

ERROR: `typeMismatch` (v not a Vector — Strings and NIL included —, i not a Number or Vector,
or i NIL); `invalidArgument` (non-integer index, empty index Vector, nested index Vector). The
elements of an index Vector are checked in order and the first bad one decides: a String,
Boolean, NIL or CodeBlock → `typeMismatch`; a non-integer Number, or a Vector that is not a
one-element wrapping (`[ [ 1 0 ] ]`, `[ 9 [ 1 2 ] ]`) → `invalidArgument`. KEEP: keeps v and i."#,
    ..base("GET", Family::Collection, 2, 1, get)
};

/// `LENGTH`
pub const LENGTH: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE,
    summary: "The number of outermost elements of a Vector.",
    syntax: "v LENGTH",
    stack_effect: "( v -- n )",
    examples: &[
        ex("[ 1 2 3 ] LENGTH", "3/1"),
        ex("[ ] LENGTH", "0/1"),
        ex("[ [ 1 2 ] 3 ] LENGTH", "2/1"),
        ex("'abc' LENGTH", "error:typeMismatch"),
    ],
    rules: r#"`v LENGTH` ( v -- n ). Number of outermost elements. ERROR: `typeMismatch` for a non-Vector (a
String included) and for NIL. KEEP: keeps v."#,
    ..base("LENGTH", Family::Collection, 1, 1, length)
};

/// `TAKE`
pub const TAKE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE_INVALID,
    summary: "The first n elements (n >= 0) or the last |n| elements (n < 0) of a Vector.",
    syntax: "v n TAKE",
    stack_effect: "( v n -- w )",
    examples: &[
        ex("[ 1 2 3 4 5 ] 3 TAKE", "[ 1/1 2/1 3/1 ]"),
        ex("[ 1 2 3 4 5 ] [ 3 ] TAKE", "[ 1/1 2/1 3/1 ]"),
        ex("[ 1 2 3 4 5 ] -2 TAKE", "[ 4/1 5/1 ]"),
        ex("[ 1 2 3 ] 5 TAKE", "error:invalidArgument"),
    ],
    rules: r#"`v n TAKE` ( v n -- w ). n ≥ 0: the first n elements; n < 0: the last |n| elements; 0 gives `[
]`. n: integer operand. ERROR: `typeMismatch` (v not a Vector; n neither a Number nor a
one-element Vector holding one; a NIL operand); `invalidArgument` (non-integer n, |n| >
length). KEEP: keeps v and n."#,
    ..base("TAKE", Family::Collection, 2, 1, take)
};

/// `CONCAT`
pub const CONCAT: WordSpec = WordSpec {
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE,
    summary:
        "The elements of a followed by the elements of b (one level; nested Vectors stay nested).",
    syntax: "a b CONCAT",
    stack_effect: "( a b -- a++b )",
    examples: &[
        ex("[ 1 2 ] [ 3 4 ] CONCAT", "[ 1/1 2/1 3/1 4/1 ]"),
        ex("[ [ 1 ] ] [ [ 2 ] 3 ] CONCAT", "[ [ 1/1 ] [ 2/1 ] 3/1 ]"),
        ex("[ ] [ ] CONCAT", "[ ]"),
        ex("'ab' 'cd' CONCAT", "error:typeMismatch"),
    ],
    rules: r#"`a b CONCAT` ( a b -- a++b ). The elements of a followed by the elements of b (one level;
nested Vectors stay nested). ERROR: `typeMismatch` unless both are Vectors (Strings are not;
NIL is rejected). KEEP: keeps a and b."#,
    ..base("CONCAT", Family::Collection, 2, 1, concat)
};

/// `REVERSE`
pub const REVERSE: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE,
    summary: "The outermost elements of a Vector in reverse order.",
    syntax: "v REVERSE",
    stack_effect: "( v -- w )",
    examples: &[
        ex("[ 1 2 3 ] REVERSE", "[ 3/1 2/1 1/1 ]"),
        ex("[ [ 1 2 ] 3 ] REVERSE", "[ 3/1 [ 1/1 2/1 ] ]"),
        ex("'abc' REVERSE", "error:typeMismatch"),
        ex("[ ] REVERSE", "[ ]"),
    ],
    rules: r#"`v REVERSE` ( v -- w ). Outermost elements in reverse order. ERROR: `typeMismatch` for a
non-Vector (String included) or NIL. KEEP: keeps v."#,
    ..base("REVERSE", Family::Collection, 1, 1, reverse)
};

/// `COLLECT`
pub const COLLECT: WordSpec = WordSpec {
    static_effect: StaticEffect::CountedByLiteral,
    inputs: Arity::Variable,
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE_INVALID,
    summary: "Gather the n values below the count into a Vector, in stack order.",
    syntax: "x1 … xn n COLLECT",
    stack_effect: "( x1 … xn n -- [ x1 … xn ] )",
    examples: &[
        ex("1 2 3 3 COLLECT", "[ 1/1 2/1 3/1 ]"),
        ex("1 2 3 2 COLLECT", "1/1 | [ 2/1 3/1 ]"),
        ex("'a' { 1 } NIL 3 COLLECT", "[ 'a' { 1 } NIL ]"),
        ex("1 2 3 0 COLLECT", "error:invalidArgument"),
    ],
    rules: r#"`x₁ … xₙ n COLLECT` ( x₁ … xₙ n -- [ x₁ … xₙ ] ). Gathers the n values below the count into a
Vector, in stack order. n: a positive integer operand. Values of every domain are allowed (NIL
and CodeBlocks included). Checks, in order: `stackUnderflow` (empty stack); `typeMismatch` (n
not a Number or wrapped Number, n NIL); `invalidArgument` (n ≤ 0, non-integer, or beyond the
signed 64-bit range); `stackUnderflow` (fewer than n values below n); a failure leaves the
stack as it was. KEEP: keeps x₁ … xₙ and n below the Vector."#,
    ..base("COLLECT", Family::Collection, 0, 1, collect)
};

/// `RANGE`
pub const RANGE: WordSpec = WordSpec {
    static_effect: StaticEffect::OperandsByLiteral { vector: 1, number: 2 },
    inputs: Arity::Variable,
    nil_policy: NilPolicy::RejectNil,
    errors: TYPE_INVALID,
    summary: "The integers from start to end inclusive, by step (default +1 or -1 toward end): [ start end (step) ] RANGE, or start end RANGE.",
    syntax: "[ start end step ] RANGE   or   start end RANGE",
    stack_effect: "( [ start end (step) ] -- seq ) | ( start end -- seq )",
    examples: &[
        ex("[ 0 5 ] RANGE", "[ 0/1 1/1 2/1 3/1 4/1 5/1 ]"),
        ex("[ 5 0 ] RANGE", "[ 5/1 4/1 3/1 2/1 1/1 0/1 ]"),
        ex("[ 0 10 2 ] RANGE", "[ 0/1 2/1 4/1 6/1 8/1 10/1 ]"),
        ex("[ 0 10 -1 ] RANGE", "error:invalidArgument"),
    ],
    rules: r#"Two forms (the top operand decides):

- **Vector form** `[ start end ] RANGE` or `[ start end step ] RANGE` ( v -- seq ): integers
  from start to end inclusive. Without step, the step is +1 when start ≤ end and −1 otherwise.
  With step, step ≠ 0 and its sign must point from start toward end (or start = end); the
  sequence stops at the last value not past end.
- **Scalar form** `start end RANGE` ( start end -- seq ): the same as `[ start end ] RANGE` —
  inclusive, step +1 toward a larger end, −1 toward a smaller one.

The number of elements is |end − start| div |step| + 1. ERROR: `typeMismatch` (the top operand
is neither a Vector nor a Number; in the scalar form the second operand is not a Number; NIL
operands); `stackUnderflow` when a Number on top selects the scalar form and nothing is below
it; `invalidArgument` (a Vector operand of length other than 2 or 3; a non-integer start, end
or step; step 0; a step pointing away from end); `resourceLimitExceeded`
(`materializedElements`) when the count exceeds the limit, measured before building, operands
left in place. The elements of the Vector operand are a description, not operands: each must be
an integer, possibly wrapped in one-element Vectors as an integer operand is (`[ [ 0 ] 5 ]
RANGE` is `[ 0 5 ] RANGE`); any other element — whatever its domain, a String, Boolean, NIL or
another Vector included — is a non-integer start, end or step (`invalidArgument`), never
`typeMismatch`. Bounds of any size are allowed: the count is computed exactly and compared with
the limit. KEEP: keeps the operand(s)."#,
    ..base("RANGE", Family::Collection, 0, 1, range)
};

/// `SORT`
pub const SORT: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE,
    summary:
        "The Numbers of a Vector in ascending exact order, stable (equal values keep their order).",
    syntax: "v SORT",
    stack_effect: "( v -- w )",
    examples: &[
        ex("[ 3 1 2 ] SORT", "[ 1/1 2/1 3/1 ]"),
        ex("[ 3 1/2 -1 ] SORT", "[ -1/1 1/2 3/1 ]"),
        ex("2 SQRT 1 3/2 3 COLLECT SORT", "[ 1/1 sqrt(2) 3/2 ]"),
        ex("[ 'b' 'a' ] SORT", "error:typeMismatch"),
    ],
    rules: r#"`v SORT` ( v -- w ). The elements of v in ascending exact numeric order ([exact
order](../reference/domains.md#number)), stable: equal values keep their original order.
Elements must be Numbers (rational or algebraic); no order exists between domains. NIL: a NIL
operand passes through. ERROR: `typeMismatch` (v not a Vector; an element that is not a Number
— String, Boolean, Vector, CodeBlock, NIL). KEEP: keeps v."#,
    ..base("SORT", Family::Collection, 1, 1, sort)
};

/// `ORDER`
pub const ORDER: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE,
    summary: "The stable permutation of indices that sorts a Vector of Numbers ascending.",
    syntax: "v ORDER",
    stack_effect: "( v -- idx )",
    examples: &[
        ex("[ 30 10 20 ] ORDER", "[ 1/1 2/1 0/1 ]"),
        ex("[ 1 1 0 ] ORDER", "[ 2/1 0/1 1/1 ]"),
        ex("[ 3 1 2 ] [ 3 1 2 ] ORDER GET", "[ 1/1 2/1 3/1 ]"),
        ex("[ 'b' 'a' ] ORDER", "error:typeMismatch"),
    ],
    rules: r#"`v ORDER` ( v -- idx ). The permutation of indices that sorts v ascending (stable: equal
elements keep their original order), as a Vector of integers; `v v ORDER GET` equals `v SORT`.
Operand rules, NIL (a NIL operand passes through) and KEEP as `SORT`."#,
    ..base("ORDER", Family::Collection, 1, 1, order)
};

/// `UNIQUE`
pub const UNIQUE: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE,
    summary: "The distinct elements of a Vector by value equality, in order of first occurrence.",
    syntax: "v UNIQUE",
    stack_effect: "( v -- w )",
    examples: &[
        ex("[ 'a' 'b' 'a' ] UNIQUE", "[ 'a' 'b' ]"),
        ex("[ 1 1/1 2/2 2 ] UNIQUE", "[ 1/1 2/1 ]"),
        ex("[ [ 1 ] [ 1 ] 1 ] UNIQUE", "[ [ 1/1 ] 1/1 ]"),
        ex("[ NIL NIL 1 ] UNIQUE", "[ NIL 1/1 ]"),
    ],
    rules: r#"`v UNIQUE` ( v -- w ). The distinct elements of v in order of first occurrence, by value
equality ([value equality](../reference/domains.md#value-equality); `1` and `2/2` are one
value, NILs are distinct by reason). No ordering is involved, so elements of every domain and
any mix of domains are allowed (each kept element is the first occurrence itself). NIL: a NIL
operand passes through. ERROR: `typeMismatch` (v not a Vector). KEEP: keeps v."#,
    ..base("UNIQUE", Family::Collection, 1, 1, unique)
};

/// `TALLY`
pub const TALLY: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE,
    summary: "How many times each distinct element occurs, in UNIQUE order.",
    syntax: "v TALLY",
    stack_effect: "( v -- counts )",
    examples: &[
        ex("[ 'a' 'b' 'a' ] TALLY", "[ 2/1 1/1 ]"),
        ex("[ 1 2 1 1 ] TALLY", "[ 3/1 1/1 ]"),
        ex("[ ] TALLY", "[ ]"),
        ex("NIL TALLY", "NIL (nil:literal)"),
    ],
    rules: r#"`v TALLY` ( v -- counts ). For each distinct element, in `UNIQUE` order, how many times it
occurs: a flat Vector of positive integers, as long as `v UNIQUE`, summing to `v LENGTH` (the
elements themselves are not in it; `v UNIQUE` gives them in the same order). Operand rules, NIL
and KEEP as `UNIQUE`."#,
    ..base("TALLY", Family::Collection, 1, 1, tally)
};

/// `PUT`
pub const PUT: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: TYPE_INVALID,
    summary: "A copy of a Vector with the element at index i (negative counts from the end) replaced by x.",
    syntax: "v i x PUT",
    stack_effect: "( v i x -- w )",
    examples: &[
        ex("[ 1 2 3 ] 1 9 PUT", "[ 1/1 9/1 3/1 ]"),
        ex("[ 1 2 3 ] -1 9 PUT", "[ 1/1 2/1 9/1 ]"),
        ex("[ 1 2 3 ] 0 [ 9 9 ] PUT", "[ [ 9/1 9/1 ] 2/1 3/1 ]"),
        ex("[ 1 2 3 ] 3 9 PUT", "error:invalidArgument"),
    ],
    rules: r#"`v i x PUT` ( v i x -- w ). A copy of v with the element at index i replaced by x (any domain).
i: integer operand, negative counts from the end. NIL: passthrough over all three operands (a
NIL x gives a NIL result, not a NIL element). ERROR: `typeMismatch` (v not a Vector; i neither
a Number nor a one-element Vector holding one); `invalidArgument` (non-integer i; i outside the
Vector). KEEP: keeps v, i and x."#,
    ..base("PUT", Family::Collection, 3, 1, put)
};

/// `GROUP`
pub const GROUP: WordSpec = WordSpec {
    tier: Tier::Standard,
    errors: &[ErrorCategory::TypeMismatch, ErrorCategory::ShapeMismatch],
    summary: "Group values by the key at the same position: one Vector of values per distinct key, in order of the key's first occurrence.",
    syntax: "values keys GROUP",
    stack_effect: "( values keys -- groups )",
    examples: &[
        ex("[ 1 2 3 ] [ 'a' 'b' 'a' ] GROUP", "[ [ 1/1 3/1 ] [ 2/1 ] ]"),
        ex("[ 1 2 3 4 ] [ 1 2 1 2 ] GROUP", "[ [ 1/1 3/1 ] [ 2/1 4/1 ] ]"),
        ex("[ ] [ ] GROUP", "[ ]"),
        ex("[ 1 2 3 ] [ 'a' 'b' ] GROUP", "error:shapeMismatch"),
    ],
    rules: r#"`values keys GROUP` ( values keys -- groups ). Both Vectors of equal length. For each distinct
key in order of first occurrence (value equality, [value
equality](../reference/domains.md#value-equality); keys and values of any domain, NIL elements
included), one non-empty Vector of the values whose keys equal it, in their original order: a
Vector of as many groups as `keys UNIQUE` has elements. The keys themselves are not in the
result (`keys UNIQUE` gives them in the same order). NIL: passthrough (a top-level NIL
operand). ERROR: `typeMismatch` (an operand is not a Vector); `shapeMismatch` (lengths differ).
KEEP: keeps both."#,
    ..base("GROUP", Family::Collection, 2, 1, group)
};

/// `INDEX-OF`
pub const INDEX_OF: WordSpec = WordSpec {
    tier: Tier::Standard,
    nil_policy: NilPolicy::CreatesNil,
    projections: &[NilReason::MissingField],
    errors: TYPE,
    summary: "The index of the first element equal to x, or NIL(missingField) when none is.",
    syntax: "v x INDEX-OF",
    stack_effect: "( v x -- i )",
    examples: &[
        ex("[ 1 2 ] 2 INDEX-OF", "1/1"),
        ex("[ 1 2 1 ] 1 INDEX-OF", "0/1"),
        ex("[ 'a' 'b' ] 'b' INDEX-OF", "1/1"),
        ex("[ 1 2 ] 3 INDEX-OF", "NIL (nil:missingField)"),
    ],
    rules: r#"`v x INDEX-OF` ( v x -- i ). The index of the first element of v equal to x ([value
equality](../reference/domains.md#value-equality)), as an integer. Projection: no such element
→ `NIL(missingField)`. x may be any value, NIL included (it then matches a NIL element with the
same reason). ERROR: `typeMismatch` (v not a Vector — NIL included). KEEP: keeps v and x."#,
    ..base("INDEX-OF", Family::Collection, 2, 1, index_of)
};

inventory::submit! {
    FamilyRegistration {
        module: "collection",
        words: &[GET, LENGTH, TAKE, CONCAT, REVERSE, COLLECT, RANGE, SORT, ORDER, UNIQUE, TALLY, PUT, GROUP, INDEX_OF],
        family_rules: &[
            (
                Family::Collection,
                r#"Collection Words work on the outermost level of a Vector unless stated otherwise; they never
treat a String as a Vector. Element copies, comparisons and probes are charged to
`collectionWork` as [pricing](../reference/pricing-and-limits.md) prices them (`LENGTH` charges
none)."#,
            ),
        ],
    }
}
