//! Shared helpers for the numeric-tower tests: a tiny postfix evaluator over the
//! Number API (so spec examples read as written, without the Word layer), and a
//! budget that records what it was charged.

#![allow(dead_code)]

use ajisai_core::limits::Halt;
use ajisai_core::number::literal;
use ajisai_core::number::roots::{pow, sqrt_rat, PowLimits};
use ajisai_core::number::{Budget, Int, Number, Rat};
use std::cmp::Ordering;

/// A budget that accepts everything and records the total charged.
#[derive(Debug, Default)]
pub struct Counting {
    /// Units charged so far.
    pub total: u64,
    /// Refuse once the total would exceed this (None: never).
    pub limit: Option<u64>,
}

impl Budget for Counting {
    fn charge(&mut self, units: u64) -> Result<(), Halt> {
        self.total = self.total.saturating_add(units);
        match self.limit {
            Some(l) if self.total > l => Err(Halt::Error(ajisai_core::limits::exceeded(
                ajisai_core::Limit::NumericWork,
                self.total,
                l,
            ))),
            _ => Ok(()),
        }
    }
    fn poll(&mut self) -> Result<(), Halt> {
        Ok(())
    }
}

/// The MCP profile's power limits.
pub const MCP: PowLimits = PowLimits {
    bigint_bits: 262_144,
    algebraic_terms: 512,
};

/// Parse a numeric lexeme.
pub fn num(lexeme: &str) -> Number {
    let lx = literal::scan(lexeme).unwrap_or_else(|| panic!("not a number: {lexeme}"));
    Number::Rat(literal::build(&lx, 1_000_000).unwrap_or_else(|_| panic!("bad literal {lexeme}")))
}

/// A stack slot of the mini evaluator.
#[derive(Clone, Debug)]
pub enum Slot {
    /// A Number.
    N(Number),
    /// A Boolean.
    B(bool),
    /// A NIL with its reason.
    Nil(&'static str),
}

fn show(s: &Slot) -> String {
    match s {
        Slot::N(n) => n.to_string(),
        Slot::B(true) => "TRUE".into(),
        Slot::B(false) => "FALSE".into(),
        Slot::Nil(r) => format!("NIL (nil:{r})"),
    }
}

/// Evaluate a postfix program of numbers and numeric Words; returns the stack's
/// displays joined by ` | `, or `error:<category>`.
pub fn run(src: &str) -> String {
    run_with(src, &mut Counting::default())
}

/// [`run`] charging `budget`.
pub fn run_with(src: &str, budget: &mut Counting) -> String {
    let mut st: Vec<Slot> = Vec::new();
    for tok in src.split_whitespace() {
        if literal::scan(tok).is_some() {
            st.push(Slot::N(num(tok)));
            continue;
        }
        let word = tok.to_ascii_uppercase();
        let unary = matches!(word.as_str(), "SQRT" | "NEG" | "ABS" | "FLOOR" | "ROUND");
        if unary {
            let Some(Slot::N(x)) = st.pop() else {
                return "error:typeMismatch".into();
            };
            let r = match word.as_str() {
                "SQRT" => match x.as_rat() {
                    None => return "error:typeMismatch".into(),
                    Some(r) => match sqrt_rat(r, budget) {
                        Ok(Some(v)) => Slot::N(v),
                        Ok(None) => Slot::Nil("domainMiss"),
                        Err(Halt::Error(e)) => return format!("error:{}", e.category.id()),
                        Err(_) => return "error:interrupted".into(),
                    },
                },
                "NEG" => Slot::N(x.neg()),
                "ABS" => Slot::N(x.abs()),
                "FLOOR" => Slot::N(Number::from(x.floor())),
                _ => Slot::N(Number::from(x.round())),
            };
            st.push(r);
            continue;
        }
        let (Some(Slot::N(b)), Some(Slot::N(a))) = (st.pop(), st.pop()) else {
            return "error:typeMismatch".into();
        };
        let r = match word.as_str() {
            "+" | "ADD" => Slot::N(a.add(&b)),
            "-" | "SUB" => Slot::N(a.sub(&b)),
            "*" | "MUL" => Slot::N(a.mul(&b)),
            "/" | "DIV" => match a.div(&b) {
                Some(v) => Slot::N(v),
                None => Slot::Nil("divisionByZero"),
            },
            "%" | "MOD" => {
                if b.is_zero() {
                    return "error:invalidArgument".into();
                }
                Slot::N(a.euclid_mod(&b))
            }
            "<" => Slot::B(a.cmp_exact(&b) == Ordering::Less),
            ">" => Slot::B(a.cmp_exact(&b) == Ordering::Greater),
            "<=" => Slot::B(a.cmp_exact(&b) != Ordering::Greater),
            ">=" => Slot::B(a.cmp_exact(&b) != Ordering::Less),
            "=" => Slot::B(a == b),
            "!=" => Slot::B(a != b),
            "MIN" => Slot::N(if b.cmp_exact(&a) == Ordering::Less {
                b
            } else {
                a
            }),
            "MAX" => Slot::N(if b.cmp_exact(&a) == Ordering::Greater {
                b
            } else {
                a
            }),
            "POW" => {
                let Some(e) = b.as_rat() else {
                    return "error:typeMismatch".into();
                };
                match pow(&a, e, budget, MCP) {
                    Ok(Ok(v)) => Slot::N(v),
                    Ok(Err(reason)) => Slot::Nil(reason.id()),
                    Err(Halt::Error(e)) => return format!("error:{}", e.category.id()),
                    Err(_) => return "error:interrupted".into(),
                }
            }
            other => panic!("unknown word {other}"),
        };
        st.push(r);
    }
    if st.is_empty() {
        return "(empty)".into();
    }
    st.iter().map(show).collect::<Vec<_>>().join(" | ")
}

/// √n of a small integer as a Number.
pub fn sqrt(n: i64) -> Number {
    match sqrt_rat(&Rat::from(n), &mut Counting::default()) {
        Ok(Some(v)) => v,
        other => panic!("sqrt({n}) gave {other:?}"),
    }
}

/// n/d.
pub fn rat(n: i64, d: i64) -> Number {
    Number::Rat(Rat::new(Int::from(n), Int::from(d)))
}
