//! Random programs for the no-panic fuzzer and the boundedness benchmark: token soup
//! (any lexeme, brackets unbalanced), well-formed programs (literals, Words,
//! definitions, bindings, COND, VENT units) and arithmetic that mostly type-checks, from
//! a seeded [`Rng`], so every finding is reproducible from its seed and index.

use crate::{Rng, CORE_WORDS};

const ALIASES: [&str; 12] = [
    "+", "-", "*", "/", "=", "!=", "<", "<=", ">", ">=", "%", "^",
];

const NUMBERS: [&str; 30] = [
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "7",
    "10",
    "100",
    "1/2",
    "-3/4",
    "2/3",
    "0.5",
    "3.14",
    "1e3",
    "1.5e-3",
    "-0",
    "007",
    "4/6",
    "+7",
    "99999999999999999999999",
    "-18446744073709551616",
    "2E+2",
    "1/3",
    "5",
    "12",
    "8",
    "0/5",
    "1000",
    "65536",
];

const ODD_LEXEMES: [&str; 22] = [
    ".5",
    "5.",
    "1e",
    "1/-3",
    "1/2e3",
    "0x10",
    "12abc",
    "１２",
    "1/0",
    "\u{feff}1",
    "\"hi\"",
    "&",
    "IDLE",
    "idle",
    "VENT",
    "vent",
    "FOO",
    "x",
    "Add",
    "nil?",
    "nil-reason",
    "json-decode",
];

const STRINGS: [&str; 16] = [
    "'a'",
    "'x y'",
    "''",
    "'It's fine'",
    "''''",
    "'ADD'",
    "'NEG'",
    "'F'",
    "'N'",
    "'done'",
    "'[1,2]'",
    "'{\"a\":[1,null]}'",
    "'\\n'",
    "'42'",
    "'sqrt'",
    "'é ü'",
];

const STRUCTURE: [&str; 12] = [
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "|",
    "^",
    "#",
    "\n",
    "# note\n",
    "'unclosed",
];

/// Every name a program may use: Words, aliases, lower-case spellings.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = CORE_WORDS.iter().map(|w| w.to_string()).collect();
    v.extend(CORE_WORDS.iter().map(|w| w.to_lowercase()));
    v.extend(ALIASES.iter().map(|a| a.to_string()));
    v
}

/// A huge or pathological literal, now and then.
pub fn big_literal(rng: &mut Rng) -> String {
    match rng.index(6) {
        0 => "9".repeat(4096 + rng.index(3)),
        1 => format!(
            "1e{}",
            rng.pick(&["1000", "100000", "1000000", "-1000000", "262144"])
        ),
        2 => format!(
            "{}/{}",
            "7".repeat(rng.index(200) + 1),
            "3".repeat(rng.index(200) + 1)
        ),
        3 => format!("0.{}", "1".repeat(rng.index(5000) + 1)),
        4 => "1".repeat(rng.index(100) + 1),
        _ => format!("-{}e-{}", rng.index(1000), rng.index(400)),
    }
}

/// Garbage: any token from any pool, brackets unbalanced, comments anywhere.
pub fn token_soup(rng: &mut Rng, names: &[String]) -> String {
    let len = rng.index(24) + 1;
    let mut out = String::new();
    for _ in 0..len {
        let tok: String = match rng.index(100) {
            0..=29 => rng.pick(names).clone(),
            30..=49 => rng.pick(&NUMBERS).to_string(),
            50..=59 => rng.pick(&STRINGS).to_string(),
            60..=79 => rng.pick(&STRUCTURE).to_string(),
            80..=89 => rng.pick(&ODD_LEXEMES).to_string(),
            90..=91 => big_literal(rng),
            92..=93 => "[ ".repeat(rng.index(40)),
            94..=95 => "{ ".repeat(rng.index(40)),
            _ => {
                let bytes: String = (0..rng.index(6) + 1)
                    .map(|_| char::from_u32(rng.index(0x3000) as u32).unwrap_or('?'))
                    .collect();
                bytes
            }
        };
        out.push_str(&tok);
        out.push(if rng.chance(8) { '\n' } else { ' ' });
    }
    out
}

/// A well-formed value literal (possibly nested).
pub fn literal(rng: &mut Rng, depth: usize, names: &[String]) -> String {
    match rng.index(if depth > 3 { 3 } else { 6 }) {
        0 | 1 => rng.pick(&NUMBERS).to_string(),
        2 => rng.pick(&STRINGS).to_string(),
        3 => {
            let n = rng.index(5);
            let items: Vec<String> = (0..n)
                .map(|_| match rng.index(6) {
                    0 => "NIL".to_string(),
                    1 => rng.pick(&["TRUE", "false", "foo", "+"]).to_string(),
                    _ => literal(rng, depth + 1, names),
                })
                .collect();
            format!("[ {} ]", items.join(" "))
        }
        4 => format!("{{ {} }}", program(rng, depth + 1, names, 6)),
        _ => {
            let guard = program(rng, depth + 1, names, 3);
            let body = program(rng, depth + 1, names, 3);
            let guard = if guard.trim().is_empty() || rng.chance(30) {
                "IDLE".to_string()
            } else {
                guard
            };
            let body = if body.trim().is_empty() {
                "0".to_string()
            } else {
                body
            };
            format!("{{ {guard} | {body} }}")
        }
    }
}

/// A well-formed program: literals, Words, definitions, bindings, COND, VENT units.
pub fn program(rng: &mut Rng, depth: usize, names: &[String], max_len: usize) -> String {
    let len = rng.index(max_len + 1);
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..len {
        let part = match rng.index(100) {
            0..=34 => literal(rng, depth, names),
            35..=69 => rng.pick(names).clone(),
            70..=74 => format!(
                "{{ {} }} '{}' DEF",
                program(rng, depth + 1, names, 5),
                rng.pick(&["F", "G", "CD", "R"])
            ),
            75..=77 => format!("'{}' BIND", rng.pick(&["N", "X", "F"])),
            78..=80 => rng.pick(&["F", "G", "CD", "R", "N", "X"]).to_string(),
            81..=83 => format!("^ {}", literal(rng, depth, names)),
            84..=86 => "KEEP".to_string(),
            87..=89 => format!("{} COND", literal(rng, depth, names)),
            90..=91 => "{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF".to_string(),
            92..=93 => format!("{} {} RANGE", rng.index(50), rng.index(50)),
            94 => big_literal(rng),
            95..=96 => format!("# {}\n", rng.pick(&STRINGS)),
            _ => "\n".to_string(),
        };
        parts.push(part);
    }
    parts.join(" ")
}

/// Numeric Words with their operand counts, for arity-aware programs.
const NUMERIC: [(&str, usize); 22] = [
    ("ADD", 2),
    ("SUB", 2),
    ("MUL", 2),
    ("DIV", 2),
    ("MOD", 2),
    ("MIN", 2),
    ("MAX", 2),
    ("POW", 2),
    ("QUANTIZE", 2),
    ("SQRT", 1),
    ("NEG", 1),
    ("ABS", 1),
    ("FLOOR", 1),
    ("ROUND", 1),
    ("SUM", 1),
    ("EQ", 2),
    ("LT", 2),
    ("GTE", 2),
    ("SORT", 1),
    ("REVERSE", 1),
    ("LENGTH", 1),
    ("STR", 1),
];

/// A program that mostly type-checks: numbers and numeric Vectors fed to numeric Words
/// with enough operands, so that runs reach deep into arithmetic (algebraic numbers,
/// big integers, lifting, limits) instead of stopping at the first type error.
pub fn arithmetic(rng: &mut Rng) -> String {
    let mut depth = 0usize;
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..rng.index(16) + 2 {
        let fits: Vec<&(&str, usize)> = NUMERIC.iter().filter(|(_, n)| *n <= depth).collect();
        if fits.is_empty() || rng.chance(45) {
            let lit = match rng.index(10) {
                0 => format!(
                    "[ {} ]",
                    (0..rng.index(5) + 1)
                        .map(|_| *rng.pick(&NUMBERS))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                1 => format!(
                    "{} SQRT",
                    rng.pick(&["2", "3", "5", "8", "1/2", "12", "-4"])
                ),
                2 if rng.chance(10) => big_literal(rng),
                _ => rng.pick(&NUMBERS).to_string(),
            };
            parts.push(lit);
            depth += 1;
        } else {
            let (word, arity) = **rng.pick(&fits);
            if rng.chance(10) {
                parts.push("KEEP".into());
                depth += arity;
            }
            parts.push(word.to_string());
            depth = depth - arity + 1;
        }
    }
    parts.join(" ")
}

/// One random program of any of the three kinds.
pub fn any(rng: &mut Rng, names: &[String]) -> String {
    match rng.index(3) {
        0 => token_soup(rng, names),
        1 => program(rng, 0, names, 12),
        _ => arithmetic(rng),
    }
}
