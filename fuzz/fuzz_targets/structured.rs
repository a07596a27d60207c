//! Structured programs: token sequences built with `arbitrary` from the registry's Words
//! (every Word, read from the registry), literals from small to very wide, strings short
//! and long, bindings, definitions, vector literals and blocks kept balanced — so the
//! fuzzer spends its time in the Words rather than in the parser's refusals. Each is run
//! through `compute` as the server runs it (`ajisai_fuzz::compute`).
#![no_main]

use ajisai_core::word::registry;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

/// Allocations are counted as in the binaries.
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

/// One token of a structured program.
#[derive(Arbitrary, Debug)]
enum Token {
    /// A Core Word, by its index in the registry.
    Word(u8),
    /// A small integer.
    Int(i16),
    /// A wide literal: `1e` followed by up to 78,900.
    Wide(u16),
    /// A fraction.
    Fraction(i8, u8),
    /// One of a few Strings, some of them long.
    Text(u8),
    /// A name: a binding or a User Word of eight.
    Name(u8),
    /// `'N' BIND` of one of the eight names.
    Bind(u8),
    /// `'N' DEF` of one of the eight names.
    Def(u8),
    /// `[`.
    OpenVector,
    /// `{`.
    OpenBlock,
    /// The innermost `]` or `}`.
    Close,
    /// `^`.
    Vent,
}

const NAMES: [&str; 8] = ["A", "B", "C", "D", "E", "F", "G", "H"];

fn text(i: u8) -> String {
    match i % 8 {
        0 => "''".into(),
        1 => "'a'".into(),
        2 => "'a,b,c'".into(),
        3 => "' x '".into(),
        4 => "'[1,2.5,{\"k\":null}]'".into(),
        5 => format!("'{}'", "abc,".repeat(2000)),
        6 => "'AJISAI-CODE-1'".into(),
        _ => "'NEG'".into(),
    }
}

/// The source of `tokens`, brackets balanced.
fn render(tokens: &[Token]) -> String {
    let words = registry().specs();
    let mut out = String::new();
    let mut open: Vec<&str> = Vec::new();
    for t in tokens {
        let piece = match t {
            Token::Word(i) => words[usize::from(*i) % words.len()].name.to_string(),
            Token::Int(n) => n.to_string(),
            Token::Wide(n) => format!("1e{}", u64::from(*n) * 78_900 / u64::from(u16::MAX)),
            Token::Fraction(n, d) => format!("{n}/{}", u16::from(*d) + 1),
            Token::Text(i) => text(*i),
            Token::Name(i) => NAMES[usize::from(*i) % 8].to_string(),
            Token::Bind(i) => format!("'{}' BIND", NAMES[usize::from(*i) % 8]),
            Token::Def(i) => format!("'{}' DEF", NAMES[usize::from(*i) % 8]),
            Token::OpenVector => {
                open.push("]");
                "[".to_string()
            }
            Token::OpenBlock => {
                open.push("}");
                "{".to_string()
            }
            Token::Close => match open.pop() {
                Some(c) => c.to_string(),
                None => continue,
            },
            Token::Vent => "^ 0".to_string(),
        };
        out.push_str(&piece);
        out.push(' ');
        if out.len() > 60_000 {
            break;
        }
    }
    while let Some(c) = open.pop() {
        out.push_str(c);
        out.push(' ');
    }
    out
}

fuzz_target!(|tokens: Vec<Token>| {
    ajisai_fuzz::setup();
    ajisai_fuzz::compute(&render(&tokens));
});
