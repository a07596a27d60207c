//! The cost fuzzer's programs (docs/reference/pricing-and-limits.md#calibration): programs
//! written to make one Word do far more work than a glance at its operands suggests.
//!
//! Each program is a *builder*, which binds a few values that are cheap to make and costly
//! to walk — one big value shared across a huge Vector, Vectors of empty Vectors, long
//! texts, wide integers and fractions, algebraic numbers of many terms, deep Vectors, big
//! code blocks, a crowded dictionary — followed by a *walker*: a Word of the registry (every
//! Word, read from the registry, so a new Word is fuzzed the day it is registered) applied to
//! operands drawn from those values, once or many times over. Besides these, fixed shapes
//! that need no walker: big literals, deep nesting in the source, runaway recursion, stacks
//! of many distinct values. The generator is a seeded [`Rng`]; every program is named
//! after its builder and walker, so a finding reproduces from its seed and index.

#[cfg(test)]
use crate::link;
use crate::Rng;
use ajisai_core::word::{registry, Arity, WordSpec};

/// One generated program.
#[derive(Clone, Debug)]
pub struct CostProgram {
    /// `builder/walker` (or the fixed shape's name).
    pub name: String,
    /// The source.
    pub source: String,
    /// The Word the program is about (its walker), for the per-Word calibration.
    pub word: String,
    /// The builder's part of the source (empty for a fixed shape): the calibration
    /// subtracts what it costs alone.
    pub prefix: String,
}

/// A builder: source that binds the values walkers take, and the names it binds.
struct Builder {
    name: &'static str,
    source: String,
    values: &'static [&'static str],
}

/// Pick a size: `small` or `big` at random, so both the fitting and the refused side of a
/// limit are tried.
fn size(rng: &mut Rng, small: u64, big: u64) -> u64 {
    if rng.chance(50) {
        small
    } else {
        big
    }
}

fn builders(rng: &mut Rng) -> Vec<Builder> {
    let n = size(rng, 999, 99_990);
    let k = size(rng, 99, 3_499);
    let doublings = rng.between(8, 40);
    let deep = size(rng, 999, 30_000);
    let word_count = size(rng, 99, 9_999);
    let string_doublings = rng.between(4, 13);
    vec![
        Builder {
            name: "shared-fraction",
            source: format!(
                "1 5 {} POW / 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND X 'W' BIND",
                size(rng, 1_000, 112_000),
                size(rng, 99, 2_040)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "shared-integer",
            source: format!(
                "2 {} POW 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND X 1 + 'W' BIND",
                size(rng, 4_000, 262_143),
                size(rng, 99, 4_090)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "shared-nested",
            source: format!(
                "0 99 RANGE 'R' BIND 0 {k} RANGE {{ R }} MAP 'V' BIND 0 {k} RANGE {{ R }} MAP 'W' BIND R 'X' BIND"
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "doubled",
            source: format!(
                "{{ 'V' BIND [ 1 1 ] {{ V }} MAP }} 'D' DEF [ 1/3 ] {} 'V' BIND [ 1/3 ] {} 'W' BIND 7 'X' BIND",
                "D ".repeat(doublings as usize),
                "D ".repeat(doublings as usize),
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "empty-vectors",
            source: format!(
                "[ ] 'Z' BIND 0 {k} RANGE {{ Z }} MAP 'Y' BIND 0 {k} RANGE {{ Y }} MAP 'V' BIND 0 {k} RANGE {{ Y }} MAP 'W' BIND [ Y ] 'X' BIND"
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "long-text",
            source: format!(
                "'abc,de fgh' 'S' BIND {} 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND X ',' 'W' BIND",
                "[ S S ] JOIN 'S' BIND ".repeat(string_doublings as usize) + "S",
                size(rng, 99, 9_999)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "algebraic-sum",
            source: format!(
                "0 {} RANGE SQRT SUM 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND X 2 SQRT + 'W' BIND",
                size(rng, 30, 500),
                size(rng, 99, n)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "algebraic-product",
            source: format!(
                "{} 1 {{ SQRT NEG 1 + * }} FOLD 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND X 'W' BIND",
                if rng.chance(50) {
                    "[ 2 3 5 7 11 ]"
                } else {
                    "[ 2 3 5 7 11 13 17 19 23 ]"
                },
                size(rng, 99, n)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "distinct-roots",
            source: format!(
                "0 {n} RANGE SQRT 'V' BIND 1 {n} RANGE SQRT 'W' BIND 2 SQRT 'X' BIND"
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "deep",
            source: format!(
                "0 {deep} RANGE 0 {{ 'E' BIND 1 COLLECT }} FOLD 'V' BIND 0 {deep} RANGE 0 {{ 'E' BIND 1 COLLECT }} FOLD 'W' BIND 0 'X' BIND"
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "big-block",
            source: format!(
                "[ 'AJISAI-CODE-1' ] [ [ 'number' '1e7890' ] ] 'R' BIND 0 {k} RANGE {{ R 0 GET }} MAP CONCAT 'C' BIND C REFLECT 'X' BIND 0 {} RANGE {{ X }} MAP 'V' BIND C 'W' BIND",
                size(rng, 9, 999)
            ),
            values: &["V", "W", "X"],
        },
        Builder {
            name: "crowded-dictionary",
            source: format!(
                "0 {word_count} RANGE {{ STR 1 COLLECT 'Q' BIND [ 'W' ] Q CONCAT JOIN 'N' BIND {{ 1 }} N DEF 0 }} MAP 'V' BIND 'W7' 'W' BIND {{ W1 W2 W3 }} 'X' BIND"
            ),
            values: &["V", "W", "X"],
        },
    ]
}

/// Operands a walker may take besides the builder's values: small ones, so a Word with a
/// big operand and a small one is tried too.
const SMALL: [&str; 10] = [
    "0", "1", "2", "-1", "1/2", "[ 0 ]", "'a'", "{ X }", "TRUE", "[ 2 ]",
];

/// Blocks a higher-order Word or a clause reader may run: no Word at all (free steps
/// once), a value left, a predicate.
const BLOCKS: [&str; 5] = ["{ X }", "{ TRUE }", "{ FALSE }", "{ 0 }", "{ V }"];

/// The operand list for `spec` from the builder's values.
fn operands(rng: &mut Rng, spec: &WordSpec, values: &[&str]) -> Vec<String> {
    let count = match spec.inputs {
        Arity::Fixed(n) => usize::from(n),
        Arity::Variable | Arity::Control => rng.between(1, 3) as usize,
    };
    (0..count)
        .map(|i| {
            let last = i + 1 == count;
            if last && rng.chance(25) {
                rng.pick(&BLOCKS).to_string()
            } else if rng.chance(70) {
                rng.pick(values).to_string()
            } else {
                rng.pick(&SMALL).to_string()
            }
        })
        .collect()
}

/// Programs that need no walker: the shapes of the boundedness issue besides share-then-walk.
fn fixed_shapes(rng: &mut Rng) -> Vec<(String, String)> {
    let literal = rng.pick(&["1e78900", "1e-78900", "9e78899/7", "123456789e7000"]);
    let blocks = size(rng, 1_000, 16_000) as usize;
    vec![
        (
            "big-literals".into(),
            format!("{literal} ").repeat(60_000 / (literal.len() + 1)),
        ),
        (
            "nested-blocks".into(),
            format!("{}{}", "{ ".repeat(blocks), "} ".repeat(blocks)),
        ),
        (
            "nested-vectors".into(),
            format!("{}{}", "[ ".repeat(blocks), "] ".repeat(blocks)),
        ),
        ("runaway-roots".into(), "{ 3 SQRT D } 'D' DEF D".into()),
        ("runaway-calls".into(), "{ D } 'D' DEF D".into()),
        ("runaway-exec".into(), "{ B EXEC } 'B' BIND B EXEC".into()),
        (
            "runaway-bindings".into(),
            "{ 1 'X' BIND B EXEC } 'B' BIND B EXEC".into(),
        ),
        (
            "distinct-slots".into(),
            "{ 'N' BIND N SQRT N 1 + F } 'F' DEF 2 F".into(),
        ),
        (
            "json-text".into(),
            format!(
                "'1e7890,' 'S' BIND {}[ '[' S '1]' ] JOIN JSON-DECODE",
                "[ S S ] JOIN 'S' BIND ".repeat(rng.between(4, 14) as usize)
            ),
        ),
        (
            "json-nesting".into(),
            format!(
                "'[' 'O' BIND ']' 'C' BIND {}[ O '1' C ] JOIN JSON-DECODE",
                "[ O O ] JOIN 'O' BIND [ C C ] JOIN 'C' BIND ".repeat(rng.between(2, 16) as usize)
            ),
        ),
    ]
}

/// `count` programs from `rng`.
pub fn programs(rng: &mut Rng, count: usize) -> Vec<CostProgram> {
    let specs: &[&'static WordSpec] = registry().specs();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        if rng.chance(10) {
            let shapes = fixed_shapes(rng);
            let (name, source) = shapes[rng.index(shapes.len())].clone();
            out.push(CostProgram {
                word: name.clone(),
                name,
                source,
                prefix: String::new(),
            });
            continue;
        }
        let builders = builders(rng);
        let b = &builders[rng.index(builders.len())];
        let spec = specs[rng.index(specs.len())];
        let args = operands(rng, spec, b.values);
        let once = format!("{} {}", args.join(" "), spec.name);
        // Walk once, or many times over (each walk of a shared value costs its expansion).
        let repeats = if rng.chance(30) {
            rng.between(2, 200)
        } else {
            1
        } as usize;
        let walk = vec![once; repeats].join(" ");
        out.push(CostProgram {
            name: format!("{}/{}", b.name, spec.name),
            source: format!("{} {walk}", b.source),
            word: spec.name.to_string(),
            prefix: b.source.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_walked_and_every_program_fits_the_source_limit() {
        link();
        let mut rng = Rng(7);
        let all = programs(&mut rng, 4_000);
        for spec in registry().specs() {
            assert!(
                all.iter().any(|p| p.word == spec.name),
                "{} is never walked",
                spec.name
            );
        }
        for p in &all {
            assert!(
                p.source.len() <= 65_536,
                "{}: {} bytes",
                p.name,
                p.source.len()
            );
        }
    }
}
