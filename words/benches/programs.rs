//! The benchmark programs, shared by `engine` (criterion) and `backends` (ratio table).
//! Every program must finish without error under `cli-local`.

/// Small-number programs: they exercise the engine and the inline fast path, and must
/// not get slower when a faster backend is linked (they make no backend call).
pub const SMALL: &[(&str, &str)] = &[
    // Baseline: the smallest complete run (parse, one Word, report).
    ("baseline-1-2-add", "1 2 ADD"),
    // 90,004 steps of non-tail user-word recursion (5 steps per level).
    (
        "recursion-90k-steps",
        "{ { 0 > | 1 - CD2 1 + } { IDLE | 0 } COND } 'CD2' DEF 18000 CD2",
    ),
    // Tail-recursive loop of about 90,000 steps (4 per iteration).
    (
        "tail-loop-90k-steps",
        "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF 22499 CD",
    ),
    ("map-sum-100k", "0 99999 RANGE { 2 * } MAP SUM"),
    ("broadcast-sum-100k", "0 99999 RANGE 2 * SUM"),
    ("sort-100k", "42 100000 RANDOM SORT LENGTH"),
    ("product-2000-integers", "1 2000 RANGE 1 'MUL' FOLD"),
    (
        "algebraic-product-8-factors",
        "2 SQRT 3 SQRT + 5 SQRT 7 SQRT + * 11 SQRT 13 SQRT + * 17 SQRT 19 SQRT + * \
         23 SQRT 29 SQRT + * 31 SQRT 37 SQRT + * 41 SQRT 43 SQRT + * 47 SQRT 53 SQRT + *",
    ),
];

/// Big-number programs: the backend's arithmetic dominates. Each runs through the
/// whole host path (compute, then the JSON envelope with its decimal texts).
pub const BIG: &[(&str, &str)] = &[
    // 10000! (118,459 bits, 35,660 digits shown) by 10,000 successive products.
    ("factorial-10000", "1 10000 RANGE 1 'MUL' FOLD"),
    // Powers and products of 300,000–740,000 bits: is 3^200000·7^150000 below
    // 5^300000·2^10000?
    (
        "power-products-740k-bits",
        "3 200000 POW 7 150000 POW * 5 300000 POW 2 10000 POW * <",
    ),
    // The harmonic number H(2000): 2,000 rational additions, each reduced by a gcd of
    // numbers of about 2,900 bits.
    ("harmonic-2000", "1 2000 RANGE -1 POW SUM"),
    // POW at the cli-local bigintBits ceiling (1,000,000): 3^630000 is 998,530 bits;
    // its last 20 digits are shown.
    ("pow-near-bigint-limit", "3 630000 POW 10 20 POW MOD"),
    // An algebraic cascade: (√2+√3)^5000 + 1 over (√2+√3)^4999 — powers of a two-term
    // normal form with 8,300-bit coefficients, then division through the conjugates.
    (
        "algebraic-cascade",
        "2 SQRT 3 SQRT + 5000 POW 1 + 2 SQRT 3 SQRT + 4999 POW /",
    ),
];
