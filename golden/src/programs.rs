//! Random programs for the no-panic fuzzer and the boundedness benchmark: token soup
//! (any lexeme, brackets unbalanced), well-formed programs (literals, Words,
//! definitions, bindings, COND, VENT units) and arithmetic that mostly type-checks, from
//! a seeded [`Rng`], so every finding is reproducible from its seed and index; and the
//! backend-parity generator's numeric programs ([`Numeric`]).

use crate::Rng;

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

/// Every name a program may use — each documented Word of the registry, its lower-case
/// spelling and its aliases — and the way a generator draws one.
///
/// A draw is stable under a change of the vocabulary: it takes 64 random bits and picks the
/// name that ranks highest under them (rendezvous hashing, each name ranked by a mix of the
/// bits and a fixed hash of its spelling), so a Word added to the registry takes only the
/// draws it now wins, and every other program of a seeded corpus stays as it was — no
/// recorded digest changes but those of programs that use the new Word. Drawing an index
/// into the list instead would shift every later draw.
pub struct Names(Vec<(u64, String)>);

impl Names {
    /// The names of every documented Word of the registry.
    pub fn of_registry() -> Names {
        let mut names = Vec::new();
        for spec in ajisai_words::registry().documented() {
            names.push(spec.name.to_string());
            names.push(spec.name.to_lowercase());
            names.extend(spec.aliases.iter().map(|a| a.to_string()));
        }
        Names::new(names)
    }

    /// Exactly `names` (duplicates once).
    pub fn new(names: impl IntoIterator<Item = String>) -> Names {
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        names.dedup();
        Names(names.into_iter().map(|n| (fnv1a(&n), n)).collect())
    }

    /// One name, drawn from 64 bits of `rng`.
    pub fn pick(&self, rng: &mut Rng) -> &str {
        let bits = rng.bits();
        self.0
            .iter()
            .max_by_key(|(hash, name)| (Rng(bits ^ hash).bits(), name.as_str()))
            .map(|(_, name)| name.as_str())
            .expect("the registry documents Words")
    }

    /// Every name.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(_, n)| n.as_str())
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// FNV-1a of `text`: a hash fixed by its definition, unlike std's hashers, whose output
/// may change between Rust releases (a recorded corpus must not).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every name a program may use: Words, aliases, lower-case spellings.
pub fn names() -> Names {
    Names::of_registry()
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
pub fn token_soup(rng: &mut Rng, names: &Names) -> String {
    let len = rng.index(24) + 1;
    let mut out = String::new();
    for _ in 0..len {
        let tok: String = match rng.index(100) {
            0..=29 => names.pick(rng).to_string(),
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
pub fn literal(rng: &mut Rng, depth: usize, names: &Names) -> String {
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
pub fn program(rng: &mut Rng, depth: usize, names: &Names, max_len: usize) -> String {
    let len = rng.index(max_len + 1);
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..len {
        let part = match rng.index(100) {
            0..=34 => literal(rng, depth, names),
            35..=69 => names.pick(rng).to_string(),
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
pub fn any(rng: &mut Rng, names: &Names) -> String {
    match rng.index(3) {
        0 => token_soup(rng, names),
        1 => program(rng, 0, names, 12),
        _ => arithmetic(rng),
    }
}

/// Integers at the machine boundaries, where the inline fast path hands over to the
/// backend (i64, u64, i128/u128 edges).
const EDGES: &[&str] = &[
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "170141183460469231731687303715884105727",
    "-170141183460469231731687303715884105728",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "4294967296",
    "4611686018427387904",
];

/// The parity generator's programs: small and huge integers, fractions, algebraic
/// numbers and Vectors under every arithmetic and comparison Word; every fragment pushes
/// exactly one value.
pub struct Numeric(pub Rng);

impl Numeric {
    fn digits(&mut self, len: u64) -> String {
        let mut s = String::with_capacity(len as usize);
        s.push(char::from(b'1' + self.0.below(9) as u8));
        for _ in 1..len {
            s.push(char::from(b'0' + self.0.below(10) as u8));
        }
        s
    }

    fn digits_in(&mut self, lo: i64, hi: i64) -> String {
        let len = self.0.between(lo, hi) as u64;
        self.digits(len)
    }

    fn sign(&mut self) -> &'static str {
        if self.0.chance(35) {
            "-"
        } else {
            ""
        }
    }

    fn small(&mut self) -> String {
        self.0.between(-20, 20).to_string()
    }

    fn huge_literal(&mut self) -> String {
        let len = match self.0.below(10) {
            0..=5 => self.0.between(19, 60),
            6..=8 => self.0.between(60, 400),
            _ => self.0.between(400, 1500),
        } as u64;
        format!("{}{}", self.sign(), self.digits(len))
    }

    /// An integer: small, at a boundary, a wide literal, or computed wide.
    fn integer(&mut self) -> String {
        match self.0.below(12) {
            0..=3 => self.small(),
            4 | 5 => self.0.pick(EDGES).to_string(),
            6..=8 => self.huge_literal(),
            9 => format!(
                "{} {} POW",
                self.0.pick(&["2", "3", "-3", "7", "10", "-2", "12345"]),
                self.0.between(40, 2500)
            ),
            10 => format!(
                "{} {} POW {} {}",
                self.0.pick(&["2", "3", "10", "-7"]),
                self.0.between(63, 700),
                self.small(),
                self.0.pick(&["+", "-", "*"])
            ),
            _ => format!("{} {} *", self.huge_literal(), self.huge_literal()),
        }
    }

    /// A rational that is not an integer (usually).
    fn fraction(&mut self) -> String {
        match self.0.below(6) {
            0 => format!("{}/{}", self.0.between(-50, 50), self.0.between(1, 60)),
            1 => format!("{}/{}", self.huge_literal(), self.digits_in(1, 80)),
            2 => format!(
                "{}{}.{}e{}",
                self.sign(),
                self.digits_in(1, 30),
                self.digits_in(1, 30),
                self.0.between(-60, 60)
            ),
            3 => format!("{} {} /", self.integer(), self.integer()),
            4 => format!("1 {} /", self.integer()),
            _ => format!(
                "1 {} {} POW /",
                self.0.pick(&["3", "7", "-11"]),
                self.0.between(30, 400)
            ),
        }
    }

    /// An algebraic value (or a rational when the root happens to be exact).
    fn algebraic(&mut self) -> String {
        let radicand = |g: &mut Numeric| -> String {
            match g.0.below(5) {
                0..=2 => {
                    g.0.pick(&[
                        "2", "3", "5", "6", "7", "10", "11", "13", "1/2", "2/3", "8", "12", "50",
                    ])
                    .to_string()
                }
                3 => format!(
                    "{} {} POW",
                    g.0.pick(&["4", "9", "25"]),
                    g.0.between(20, 300)
                ),
                _ => format!(
                    "{} {} POW 3 *",
                    g.0.pick(&["2", "5", "10"]),
                    g.0.between(20, 200)
                ),
            }
        };
        match self.0.below(6) {
            0 => format!("{} SQRT", radicand(self)),
            1 => format!("{} SQRT {} SQRT +", radicand(self), radicand(self)),
            2 => format!("{} SQRT {} *", radicand(self), self.number_no_algebraic()),
            3 => format!("{} SQRT {} +", radicand(self), self.number_no_algebraic()),
            4 => format!(
                "{} SQRT {} SQRT + {} POW",
                radicand(self),
                radicand(self),
                self.0.between(-6, 30)
            ),
            _ => format!(
                "{} SQRT 1 + 2 / {} POW",
                radicand(self),
                self.0.between(2, 80)
            ),
        }
    }

    fn number_no_algebraic(&mut self) -> String {
        if self.0.chance(60) {
            self.integer()
        } else {
            self.fraction()
        }
    }

    fn number(&mut self) -> String {
        match self.0.below(10) {
            0..=4 => self.integer(),
            5..=7 => self.fraction(),
            _ => self.algebraic(),
        }
    }

    /// A literal number token (vector literals hold tokens, not computations).
    fn literal(&mut self) -> String {
        match self.0.below(5) {
            0 | 1 => self.small(),
            2 => self.0.pick(EDGES).to_string(),
            3 => self.huge_literal(),
            _ => format!("{}/{}", self.huge_literal(), self.digits_in(1, 40)),
        }
    }

    /// A Vector: a literal, or computed elements gathered with COLLECT.
    fn vector(&mut self) -> String {
        let n = self.0.between(1, 5);
        if self.0.chance(50) {
            let items: Vec<String> = (0..n).map(|_| self.literal()).collect();
            format!("[ {} ]", items.join(" "))
        } else {
            let items: Vec<String> = (0..n).map(|_| self.number()).collect();
            format!("{} {n} COLLECT", items.join(" "))
        }
    }

    fn operand(&mut self) -> String {
        match self.0.below(10) {
            0 => self.vector(),
            1 => format!("{} SUM", self.vector()),
            _ => self.number(),
        }
    }

    /// One program.
    pub fn program(&mut self) -> String {
        const BINARY: &[&str] = &[
            "ADD", "SUB", "MUL", "DIV", "MOD", "MIN", "MAX", "+", "-", "*", "/", "%",
        ];
        const COMPARE: &[&str] = &["EQ", "NEQ", "LT", "LTE", "GT", "GTE", "=", "<", ">="];
        // SQRT of a wide non-square spends the whole work budget on factoring (the same
        // on every backend, as the backends never see it): it stays rare here.
        const UNARY: &[&str] = &["FLOOR", "ROUND", "ABS", "NEG"];
        const EXPONENTS: &[&str] = &[
            "0", "1", "2", "3", "5", "-1", "-2", "7", "12", "31", "2", "3", "-1", "4",
        ];
        // Roots of wide non-powers also spend the work budget on factoring: rarer.
        const ROOTS: &[&str] = &["1/2", "1/3", "2/3", "-1/2"];
        const QUANTA: &[&str] = &[
            "1",
            "2",
            "10",
            "1000",
            "1000000007",
            "100000000000000000000000",
            "0",
            "1/2",
        ];
        let mut parts = vec![self.operand()];
        let mut depth = 1;
        for _ in 0..self.0.between(1, 6) {
            if depth < 2 || self.0.chance(30) {
                parts.push(self.operand());
                depth += 1;
            }
            let step = match self.0.below(16) {
                0..=8 => {
                    depth -= 1;
                    self.0.pick(BINARY).to_string()
                }
                9..=11 if self.0.chance(95) => self.0.pick(UNARY).to_string(),
                9..=11 => "SQRT".to_string(),
                12 | 13 if self.0.chance(90) => format!("{} POW", self.0.pick(EXPONENTS)),
                12 | 13 => format!("{} POW", self.0.pick(ROOTS)),
                14 => format!("{} QUANTIZE", self.0.pick(QUANTA)),
                _ => "STR NUM".to_string(),
            };
            parts.push(step);
        }
        // Booleans end a program: arithmetic on them is a type error on every backend
        // and would only waste the rest of the program.
        match self.0.below(10) {
            0..=2 => {
                if depth < 2 {
                    parts.push(self.operand());
                }
                parts.push(self.0.pick(COMPARE).to_string());
            }
            3 => parts.push("JSON-ENCODE".to_string()),
            _ => {}
        }
        if self.0.chance(10) {
            parts.insert(0, "KEEP".to_string());
        }
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(names: &Names, count: usize) -> Vec<String> {
        let mut rng = Rng(7);
        (0..count)
            .map(|_| names.pick(&mut rng).to_string())
            .collect()
    }

    #[test]
    fn a_new_name_takes_only_the_draws_it_wins() {
        let before = Names::new((0..150).map(|i| format!("W{i}")));
        let after = Names::new(before.iter().map(str::to_string).chain(["NEW".to_string()]));
        let (old, new) = (draws(&before, 20_000), draws(&after, 20_000));
        let mut taken = 0;
        for (o, n) in old.iter().zip(&new) {
            if o != n {
                assert_eq!(n, "NEW", "only the new name displaces a draw");
                taken += 1;
            }
        }
        // Its fair share, 20,000 / 151 ≈ 132, within a wide margin.
        assert!((60..260).contains(&taken), "the new name won {taken} draws");
        assert_eq!(new.iter().filter(|n| *n == "NEW").count(), taken);
    }

    #[test]
    fn every_name_is_drawn_about_as_often() {
        let names = Names::new((0..100).map(|i| format!("W{i}")));
        let mut counts = std::collections::BTreeMap::new();
        for n in draws(&names, 50_000) {
            *counts.entry(n).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 100);
        assert!(
            counts.values().all(|c| (300..700).contains(c)),
            "{counts:?}"
        );
    }

    #[test]
    fn the_registry_names_are_words_their_lower_case_and_aliases() {
        let names = names();
        let all: Vec<&str> = names.iter().collect();
        for spec in ajisai_words::registry().documented() {
            assert!(all.contains(&spec.name));
            assert!(all.contains(&spec.name.to_lowercase().as_str()));
            assert!(spec.aliases.iter().all(|a| all.contains(a)));
        }
        assert!(!names.is_empty() && names.len() == all.len());
    }
}
