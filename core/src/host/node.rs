//! The stack node of a value (MCP-29; docs/mcp/envelope.md), written and measured in one place: the fixed
//! bytes around each node's variable parts ([`pieces`]) are what the writers below
//! write with those parts empty, so the pricing of [`crate::render`] follows any
//! change of the layout.

use crate::json::{write_str, ObjectWriter};
use crate::limits::{Halt, Meter};
use crate::number::approx::try_best_convergent;
use crate::number::{Alg, Number, Rat};
use crate::value::Value;
use std::sync::OnceLock;

/// The denominator bound of the rational approximation of algebraic nodes (MCP-30).
pub const APPROXIMATION_BOUND: u64 = 1_000_000_000;

/// What a Vector node starts with; its elements follow, comma-separated.
const VECTOR_OPEN: &str = "{\"type\":\"vector\",\"value\":[";
/// What closes a Vector node.
const VECTOR_CLOSE: &str = "]}";

/// `{"type":"number","value":{"numerator":…,"denominator":…}}`.
fn write_rational_node(out: &mut String, num: &str, den: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "number");
    o.with("value", |out| write_rational_value(out, num, den));
    o.end();
}

fn write_rational_value(out: &mut String, num: &str, den: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("numerator", num).str("denominator", den);
    o.end();
}

/// An algebraic node: its approximation `num/den`, then its exact terms, which
/// `terms` writes inside the array.
fn write_algebraic_node(out: &mut String, num: &str, den: &str, terms: impl FnOnce(&mut String)) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "number");
    o.with("value", |out| write_rational_value(out, num, den));
    o.with("semantics", |out| {
        let mut s = ObjectWriter::new(out);
        s.bool("approximate", true);
        s.with("exactTerms", |out| {
            out.push('[');
            terms(out);
            out.push(']');
        });
        s.end();
    });
    o.end();
}

/// One exact term: `{"numerator","denominator","radicand"}`.
fn write_term(out: &mut String, num: &str, den: &str, radicand: &str) {
    let mut t = ObjectWriter::new(out);
    t.str("numerator", num)
        .str("denominator", den)
        .str("radicand", radicand);
    t.end();
}

fn write_number_node<'v>(
    out: &mut String,
    n: &'v Number,
    approximations: &mut Approximations<'v>,
) -> Result<(), Halt> {
    match n {
        Number::Rat(r) => {
            let meter = approximations.meter();
            let mut tick = |units| meter.tick(units);
            let num = r.numer().decimal_polled(&mut tick)?;
            let den = r.denom().decimal_polled(&mut tick)?;
            write_rational_node(out, &num, &den)
        }
        Number::Alg(a) => {
            let approx = approximations.of(a, n)?;
            let meter = approximations.meter();
            let mut tick = |units| meter.tick(units);
            let num = approx.numer().decimal_polled(&mut tick)?;
            let den = approx.denom().decimal_polled(&mut tick)?;
            let mut terms = String::new();
            write_term_list_polled(&mut terms, n, &mut tick)?;
            write_algebraic_node(out, &num, &den, |out| out.push_str(&terms));
        }
    }
    Ok(())
}

/// The approximations of a render, each computed once per distinct value (a stack of
/// ninety thousand copies of `sqrt(3)` made apart is approximated once), through the
/// render's meter: the continued fraction polls the host's interrupt flag. The cache
/// borrows the values it approximates for its lifetime `'v` (dropping it walks no
/// value), and grows without a pause ([`crate::memo`]): a render of a hundred thousand
/// distinct roots held the flag unpolled for milliseconds while std's table rehashed.
pub struct Approximations<'v> {
    meter: Meter,
    done: crate::memo::Memo<&'v Alg, Rat>,
}

impl<'v> Approximations<'v> {
    /// An empty cache whose approximations poll `meter`.
    pub fn new(meter: Meter) -> Approximations<'v> {
        Approximations {
            meter,
            done: Default::default(),
        }
    }

    /// The approximation of `a` (the Number `n`), computed now if it has not been.
    fn of(&mut self, a: &'v Alg, n: &Number) -> Result<Rat, Halt> {
        if let Some(r) = self.done.get(a) {
            return Ok(r.clone());
        }
        let r = try_best_convergent(n, APPROXIMATION_BOUND, &mut self.meter)?;
        self.done.insert(a, r.clone());
        Ok(r)
    }

    /// The meter the render ticks.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }
}

fn write_term_list(out: &mut String, n: &Number) {
    let _ = write_term_list_polled::<()>(out, n, &mut |_| Ok(()));
}

/// The exact terms of `n`, their integers converted a piece at a time through `tick`.
fn write_term_list_polled<E>(
    out: &mut String,
    n: &Number,
    tick: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    for (i, (c, d)) in n.terms().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_term(
            out,
            &c.numer().decimal_polled(tick)?,
            &c.denom().decimal_polled(tick)?,
            &d.decimal_polled(tick)?,
        );
    }
    Ok(())
}

/// `[{"numerator","denominator","radicand"}, …]` of a Number's normal form.
pub fn write_exact_terms(out: &mut String, n: &Number) {
    out.push('[');
    write_term_list(out, n);
    out.push(']');
}

/// A node whose value is the JSON string literal of `text` (`string`, `codeBlock`).
fn write_text_node(out: &mut String, kind: &str, text: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("type", kind).str("value", text);
    o.end();
}

fn write_bool_node(out: &mut String, b: bool) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "boolean").bool("value", b);
    o.end();
}

/// `{"type":"nil","value":null,"semantics":{"absence":{"reason":…}}}`.
fn write_nil_node(out: &mut String, reason: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "nil").raw("value", "null");
    o.with("semantics", |out| {
        let mut s = ObjectWriter::new(out);
        s.with("absence", |out| {
            let mut a = ObjectWriter::new(out);
            a.str("reason", reason);
            a.end();
        });
        s.end();
    });
    o.end();
}

enum Task<'a> {
    Node(&'a Value),
    Text(&'static str),
}

/// Write the stack node of a value (MCP-29), iteratively (unwatched: for tests and tools).
pub fn write_node(out: &mut String, v: &Value) {
    let mut approximations = Approximations::new(Meter::new(crate::limits::Profile::CLI_LOCAL));
    let _ = write_node_metered(out, v, &mut approximations);
}

/// [`write_node`] through a render's approximations and meter: every part written ticks
/// the meter (one unit, and ⌈bytes/8⌉ of text), so a host can stop it.
pub fn write_node_metered<'v>(
    out: &mut String,
    v: &'v Value,
    approximations: &mut Approximations<'v>,
) -> Result<(), Halt> {
    let mut tasks = vec![Task::Node(v)];
    while let Some(t) = tasks.pop() {
        let v = match t {
            Task::Text(s) => {
                out.push_str(s);
                continue;
            }
            Task::Node(v) => v,
        };
        let before = out.len();
        crate::limits::grow(out, 64);
        match v {
            Value::Number(n) => write_number_node(out, n, approximations)?,
            Value::Bool(b) => write_bool_node(out, *b),
            Value::Str(s) => write_text_node(out, "string", s),
            Value::Block(_) => {
                let shown = crate::display::display_polled(v, &mut |units| {
                    approximations.meter().tick(units)
                })?;
                write_text_node(out, "codeBlock", &shown)
            }
            Value::Nil(r) => write_nil_node(out, r.id()),
            Value::Vector(items) => {
                out.push_str(VECTOR_OPEN);
                tasks.push(Task::Text(VECTOR_CLOSE));
                for (i, item) in items.items().iter().enumerate().rev() {
                    tasks.push(Task::Node(item));
                    if i > 0 {
                        tasks.push(Task::Text(","));
                    }
                }
            }
        }
        approximations
            .meter()
            .tick(1 + crate::price::text_units((out.len() - before) as u64))?;
    }
    Ok(())
}

/// The fixed bytes of each node around its variable parts, as the writers above
/// write them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pieces {
    /// A rational node around its two digit strings.
    pub rational: u64,
    /// An algebraic node around its approximation's digits and its terms.
    pub algebraic: u64,
    /// One exact term around its three digit strings.
    pub term: u64,
    /// A string node around its text's JSON-escaped bytes.
    pub string: u64,
    /// A code-block node around its display's JSON-escaped bytes.
    pub block: u64,
    /// A Vector node around its elements and their commas.
    pub vector: u64,
    /// `TRUE`'s node.
    pub true_node: u64,
    /// `FALSE`'s node.
    pub false_node: u64,
    /// A NIL node around its reason id.
    pub nil: u64,
}

/// [`Pieces`], measured once by writing each node with empty parts.
pub fn pieces() -> &'static Pieces {
    static PIECES: OnceLock<Pieces> = OnceLock::new();
    PIECES.get_or_init(|| {
        fn len(write: impl FnOnce(&mut String)) -> u64 {
            let mut s = String::new();
            write(&mut s);
            s.len() as u64
        }
        // Digit strings and reason ids never need escaping: their pieces keep the
        // quotes. Text is priced with its quotes (the escaped length plus two).
        let quotes = len(|out| write_str(out, ""));
        Pieces {
            rational: len(|out| write_rational_node(out, "", "")),
            algebraic: len(|out| write_algebraic_node(out, "", "", |_| {})),
            term: len(|out| write_term(out, "", "", "")),
            string: len(|out| write_text_node(out, "string", "")) - quotes,
            block: len(|out| write_text_node(out, "codeBlock", "")) - quotes,
            vector: (VECTOR_OPEN.len() + VECTOR_CLOSE.len()) as u64,
            true_node: len(|out| write_bool_node(out, true)),
            false_node: len(|out| write_bool_node(out, false)),
            nil: len(|out| write_nil_node(out, "")),
        }
    })
}
