//! The exact work pricing of docs/reference/pricing-and-limits.md: what `numericWork` and
//! `collectionWork` charge, computed from representation-free measures (bit
//! lengths in 64-bit limbs, leaf and element counts), so every backend charges
//! the same amounts.

use crate::number::Number;
use crate::value::{Value, Vector, Weight};

/// Measures of an operand (a Number or a Vector) used by the pricing rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    /// Non-Vector leaves at any depth (at least 1).
    pub leaves: u64,
    /// Largest limbs(x) over Number leaves (1 when there is none).
    pub limbs: u64,
    /// Largest terms(x) over Number leaves (0 when there is none; 0 for rationals).
    pub terms: u64,
    /// Nested Vectors at any depth, the operand itself not counted.
    pub vectors: u64,
    /// The most bytes of text of one String or CodeBlock leaf.
    pub longest_text: u64,
}

/// Measure a Number or Vector operand (a Vector's leaf statistics are cached).
pub fn measure(v: &Value) -> Measure {
    match v {
        Value::Vector(items) => {
            let s = items.leaf_stats();
            Measure {
                leaves: s.leaves.max(1),
                limbs: s.limbs.max(1),
                terms: s.terms,
                vectors: s.nodes.saturating_sub(s.leaves).saturating_sub(1),
                longest_text: s.longest_text,
            }
        }
        Value::Number(n) => measure_number(n),
        other => Measure {
            leaves: 1,
            limbs: 1,
            terms: 0,
            vectors: 0,
            longest_text: crate::value::text_weight(other),
        },
    }
}

/// Measure a single Number.
pub fn measure_number(n: &Number) -> Measure {
    Measure {
        leaves: 1,
        limbs: n.work_limbs(),
        terms: n.work_terms(),
        vectors: 0,
        longest_text: 0,
    }
}

/// Bytes of text one unit of work reads or writes (a limb's worth).
pub const TEXT_BYTES_PER_UNIT: u64 = 8;

/// The units of work of reading or writing `bytes` of text: ⌈bytes/8⌉.
#[inline]
pub fn text_units(bytes: u64) -> u64 {
    bytes.div_ceil(TEXT_BYTES_PER_UNIT)
}

/// walk(v) = nodes(v) + ⌈text(v)/8⌉ + bigLimbs(v): the `collectionWork` of visiting every
/// part of a value once (docs/reference/pricing-and-limits.md#weights), as if shared parts
/// were copied.
pub fn walk(w: &Weight) -> u64 {
    w.nodes
        .saturating_add(text_units(w.text_bytes))
        .saturating_add(w.big_limbs)
}

/// [`walk`] of a value.
pub fn walk_of(v: &Value) -> u64 {
    walk(&v.weight())
}

/// What lifting charges in `collectionWork` for each value it walks or builds when an
/// operand is a Vector (docs/reference/pricing-and-limits.md#lifting): reading a lane,
/// making its slot in the result, opening and building each Vector.
pub const STRUCTURE: u64 = 2;

/// What writing a value as text costs in `collectionWork` (`STR`, `PRINT`,
/// `JSON-ENCODE`; docs/reference/pricing-and-limits.md#text): walk(v) and two more units a
/// value, for formatting it and its separators.
pub fn written(w: &Weight) -> u64 {
    walk(w).saturating_add(w.nodes.saturating_mul(2))
}

/// What a higher-order Word (`MAP`, `FILTER`, `FOLD`, `ANY`, `ALL`) charges in
/// `collectionWork` before each element it visits: a frame opened, the element pushed, the
/// block's top taken back — whatever the block holds.
pub const VISIT: u64 = 16;

/// The binary arithmetic Words priced by docs/reference/pricing-and-limits.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// ADD and SUB.
    AddSub,
    /// MUL.
    Mul,
    /// DIV and MOD.
    DivMod,
}

/// P of docs/reference/pricing-and-limits.md: 1 for rational operands, else 1,024·k.
pub fn term_factor(op: ArithOp, a: &Measure, b: &Measure) -> u64 {
    if a.terms == 0 && b.terms == 0 {
        return 1;
    }
    let ta = a.terms.max(1);
    let tb = b.terms.max(1);
    let k = match op {
        ArithOp::AddSub => ta.saturating_add(tb),
        ArithOp::Mul => ta.saturating_mul(tb),
        ArithOp::DivMod => ta.saturating_mul(tb).saturating_add(tb.saturating_mul(tb)),
    };
    1024u64.saturating_mul(k)
}

/// limbs(a)·limbs(b)·P·L: the up-front charge of one binary arithmetic application
/// over `lanes` broadcast lanes (at least 1).
pub fn binary_charge(op: ArithOp, a: &Measure, b: &Measure, lanes: u64) -> u64 {
    a.limbs
        .saturating_mul(b.limbs)
        .saturating_mul(term_factor(op, a, b))
        .saturating_mul(lanes.max(1))
}

/// per(w) = max(1, ⌊leaves(w) / max(1, n)⌋): the leaves one element holds on average (what
/// an element copy is priced on).
pub fn per(w: &Vector, m: &Measure) -> u64 {
    (m.leaves / (w.len() as u64).max(1)).max(1)
}

/// perProbe(w) = max(1, ⌊max(leaves(w), vectors(w)) / max(1, n)⌋): the parts an equality
/// probe or a hash reads in one element on average, its leaves or its nested Vectors,
/// whichever are more (a Vector of empty Vectors has no leaves, yet every Vector is read).
pub fn per_probe(w: &Vector, m: &Measure) -> u64 {
    (m.leaves.max(m.vectors) / (w.len() as u64).max(1)).max(1)
}

/// width(w) = max(1, limbs(w), 512·terms(w)).
pub fn width(m: &Measure) -> u64 {
    1u64.max(m.limbs).max(512u64.saturating_mul(m.terms))
}

/// The width an equality probe or a hash reads: width(w), or the longest text's units
/// when they are more (a String is read to its end).
pub fn probe_width(m: &Measure) -> u64 {
    width(m).max(text_units(m.longest_text))
}

/// probe(w) = perProbe(w)·max(width(w), ⌈longestText(w)/8⌉).
pub fn probe(w: &Vector) -> u64 {
    let m = measure(&Value::Vector(w.clone()));
    per_probe(w, &m).saturating_mul(probe_width(&m))
}

/// copy(w) = per(w)·(16 + width(w)).
pub fn copy(w: &Vector) -> u64 {
    let m = measure(&Value::Vector(w.clone()));
    per(w, &m).saturating_mul(16u64.saturating_add(width(&m)))
}

/// Both probe(w) and copy(w) from one measurement.
pub fn probe_and_copy(w: &Vector) -> (u64, u64) {
    let m = measure(&Value::Vector(w.clone()));
    (
        per_probe(w, &m).saturating_mul(probe_width(&m)),
        per(w, &m).saturating_mul(16u64.saturating_add(width(&m))),
    )
}

/// The per-element charge of the generative Words (`RANGE`, `FILL`, `RESHAPE`, `RANDOM`).
pub const GENERATED_ELEMENT: u64 = 17;

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Vector {
        Vector::new(xs.iter().map(|&x| Value::num(x)).collect())
    }

    #[test]
    fn sort_of_three_costs_57() {
        // probe·n·(⌊log2 n⌋+1) + n·copy = 1·3·2 + 3·17
        let v = ints(&[3, 1, 2]);
        let (p, c) = probe_and_copy(&v);
        assert_eq!(p * 3 * 2 + 3 * c, 57);
    }

    #[test]
    fn rational_add_costs_one() {
        let a = measure(&Value::num(1));
        assert_eq!(binary_charge(ArithOp::AddSub, &a, &a, 1), 1);
    }
}
