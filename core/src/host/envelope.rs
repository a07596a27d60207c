//! The result envelope (MCP.md §4, schema version 6; docs/envelope-changelog.md) shared by the CLI and the server.
//!
//! Rendering is direct to compact JSON in the canonical key order (MCP-26): optional
//! fields are omitted, never `null`. Hosts append their own trailing fields — the
//! server its `mcp` provenance block, the CLI `limitProfile` and `backend` (MCP-95).

use crate::contract::ContractDecls;
use crate::display::display;
use crate::engine::{CheckReport, ComputeReport, InferReport, Usage};
use crate::json::{write_str, ObjectWriter};
use crate::number::Number;
use crate::outcome::{LangError, MESSAGE_MAX_CHARS};
use crate::render::{plan, plan_sized, slot_sizes, ElidedRun, Elision, Fit, Piece, Plan};
use crate::value::Value;
use crate::SPECIFICATION_VERSION;
use std::fmt::Write;

/// The envelope schema version.
pub const SCHEMA_VERSION: u64 = 6;

/// The denominator bound of the rational approximation of algebraic nodes (MCP-30).
pub const APPROXIMATION_BOUND: u64 = 1_000_000_000;

/// Host fields appended after the engine's fields.
pub type HostFields<'a> = &'a dyn Fn(&mut ObjectWriter<'_>);

/// Write the `error` object of a language error (MCP-33).
pub fn write_error(out: &mut String, e: &LangError) {
    let mut o = ObjectWriter::new(out);
    o.str("category", e.category.id());
    if let Some(r) = e.resource {
        o.str("resource", r);
    }
    if let Some(w) = &e.word {
        o.str("word", w);
    }
    if let Some(p) = e.pos {
        o.int("line", u64::from(p.line));
        o.int("column", u64::from(p.column));
    }
    o.end();
}

/// One line: CR and LF become spaces (a message is always a single line).
pub fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// A result's `message` (MCP-33): one line of at most [`MESSAGE_MAX_CHARS`] characters.
/// Lists are already cut where they are built; what can still run long is text echoed
/// from the source (a 5,000-character unknown name), which is cut with `…`.
pub fn message_line(s: &str) -> String {
    let line = one_line(s);
    if line.chars().count() <= MESSAGE_MAX_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(MESSAGE_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn write_usage(out: &mut String, u: &Usage) {
    let mut o = ObjectWriter::new(out);
    o.int("executionSteps", u.execution_steps)
        .int("numericWork", u.numeric_work)
        .int("collectionWork", u.collection_work);
    o.end();
}

fn write_rational_value(out: &mut String, num: &str, den: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("numerator", num).str("denominator", den);
    o.end();
}

fn write_number_node(out: &mut String, n: &Number) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "number");
    match n {
        Number::Rat(r) => {
            o.with("value", |out| {
                write_rational_value(out, &r.numer().to_string(), &r.denom().to_string())
            });
        }
        Number::Alg(_) => {
            let approx = n.best_convergent(APPROXIMATION_BOUND);
            o.with("value", |out| {
                write_rational_value(
                    out,
                    &approx.numer().to_string(),
                    &approx.denom().to_string(),
                )
            });
            o.with("semantics", |out| {
                let mut s = ObjectWriter::new(out);
                s.bool("approximate", true);
                s.with("exactTerms", |out| write_exact_terms(out, n));
                s.end();
            });
        }
    }
    o.end();
}

/// `[{"numerator","denominator","radicand"}, …]` of a Number's normal form.
pub fn write_exact_terms(out: &mut String, n: &Number) {
    out.push('[');
    for (i, (c, d)) in n.terms().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut t = ObjectWriter::new(out);
        t.str("numerator", &c.numer().to_string())
            .str("denominator", &c.denom().to_string())
            .str("radicand", &d.to_string());
        t.end();
    }
    out.push(']');
}

enum Task<'a> {
    Node(&'a Value),
    Text(&'static str),
}

/// Write the stack node of a value (MCP-29), iteratively.
pub fn write_node(out: &mut String, v: &Value) {
    let mut tasks = vec![Task::Node(v)];
    while let Some(t) = tasks.pop() {
        let v = match t {
            Task::Text(s) => {
                out.push_str(s);
                continue;
            }
            Task::Node(v) => v,
        };
        match v {
            Value::Number(n) => write_number_node(out, n),
            Value::Bool(b) => {
                let _ = write!(out, "{{\"type\":\"boolean\",\"value\":{b}}}");
            }
            Value::Str(s) => {
                out.push_str("{\"type\":\"string\",\"value\":");
                write_str(out, s);
                out.push('}');
            }
            Value::Block(_) => {
                out.push_str("{\"type\":\"codeBlock\",\"value\":");
                write_str(out, &display(v));
                out.push('}');
            }
            Value::Nil(r) => {
                let _ = write!(
                    out,
                    "{{\"type\":\"nil\",\"value\":null,\"semantics\":{{\"absence\":{{\"reason\":\"{}\"}}}}}}",
                    r.id()
                );
            }
            Value::Vector(items) => {
                out.push_str("{\"type\":\"vector\",\"value\":[");
                tasks.push(Task::Text("]}"));
                for (i, item) in items.items().iter().enumerate().rev() {
                    tasks.push(Task::Node(item));
                    if i > 0 {
                        tasks.push(Task::Text(","));
                    }
                }
            }
        }
    }
}

/// A rendered `compute` envelope and how its stack was fitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The compact envelope JSON, host fields included.
    pub json: String,
    /// Slots that arrived whole.
    pub kept_slots: usize,
    /// Slots replaced by an elision record or covered by an elided run (MCP-36).
    pub elided_slots: usize,
}

/// The envelope of a `compute` run (the CLI's `run --json`), with host fields last.
/// Nothing is elided.
pub fn compute_json(report: &ComputeReport, host: HostFields<'_>) -> String {
    compute_json_fitted(report, &Fit::UNLIMITED, host).json
}

/// The server's `compute` envelope with the value stack fitted into `stack_budget`
/// bytes (MCP-52/53): from the top of the stack down, a slot whose cost fits what is
/// left of the budget arrives whole, any other slot is elided (MCP-36), and a run of
/// consecutive elided slots arrives as one `elidedRun` record. A slot whose value is
/// nested deeper than the `mcp-local-stdio` profile's `nestingDepth` is elided as if it
/// did not fit, since clients cannot parse JSON that deep (MCP-47). When nothing is
/// elided the JSON equals [`compute_json`]'s.
pub fn compute_json_within(
    report: &ComputeReport,
    stack_budget: u64,
    host: HostFields<'_>,
) -> Rendered {
    compute_json_fitted(report, &Fit::mcp(stack_budget), host)
}

/// The `compute` envelope fitted as `fit` says (see [`compute_json_within`]).
pub fn compute_json_fitted(report: &ComputeReport, fit: &Fit, host: HostFields<'_>) -> Rendered {
    compute_json_planned(report, &plan(&report.stack, fit), fit, host)
}

/// Fits one report's stack again and again under smaller budgets, pricing each slot
/// once (the host's refitting loop of MCP-52).
pub struct Fitter<'r> {
    report: &'r ComputeReport,
    sizes: Vec<crate::render::Size>,
}

impl<'r> Fitter<'r> {
    /// Price every slot of `report`'s stack.
    pub fn new(report: &'r ComputeReport) -> Fitter<'r> {
        Fitter {
            report,
            sizes: slot_sizes(&report.stack),
        }
    }

    /// The envelope with the stack fitted as `fit` says.
    pub fn render(&self, fit: &Fit, host: HostFields<'_>) -> Rendered {
        let plan = plan_sized(&self.report.stack, &self.sizes, fit);
        compute_json_planned(self.report, &plan, fit, host)
    }
}

/// The `compute` envelope with the stack laid out as `plan` says.
fn compute_json_planned(
    report: &ComputeReport,
    plan: &Plan,
    fit: &Fit,
    host: HostFields<'_>,
) -> Rendered {
    let reason = if report.error.is_some() {
        "errorStackBudget"
    } else {
        "valueStackBudget"
    };
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    o.int("schemaVersion", SCHEMA_VERSION);
    o.str(
        "status",
        if report.error.is_some() {
            "error"
        } else {
            "ok"
        },
    );
    o.str("outcome", &report.outcome_id());
    o.str("specificationVersion", SPECIFICATION_VERSION);
    o.with("stack", |out| {
        out.push('[');
        for (i, piece) in plan.pieces.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match piece {
                Piece::Kept(index) => write_node(out, &report.stack[*index]),
                Piece::Elided(e) => write_elided_node(out, e, reason),
                Piece::Run(r) => write_run_node(out, r),
            }
        }
        out.push(']');
    });
    let displays: Vec<String> = plan
        .pieces
        .iter()
        .map(|piece| match piece {
            Piece::Kept(index) => display(&report.stack[*index]),
            Piece::Elided(e) => e.display(),
            Piece::Run(r) => r.display(),
        })
        .collect();
    o.strs("stackDisplay", &displays);
    if plan.elided > 0 {
        o.with("stackElided", |out| {
            let mut se = ObjectWriter::new(out);
            se.str("reason", reason);
            se.int("budgetBytes", fit.stack_budget);
            se.with("slots", |out| {
                out.push('[');
                for (i, e) in plan.singles().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let mut so = ObjectWriter::new(out);
                    so.int("index", e.index as u64);
                    write_elision_sizes(&mut so, e);
                    so.end();
                }
                out.push(']');
            });
            if plan.runs().next().is_some() {
                se.with("runs", |out| {
                    out.push('[');
                    for (i, r) in plan.runs().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let mut ro = ObjectWriter::new(out);
                        ro.int("start", r.start as u64)
                            .int("count", r.count as u64)
                            .int("approxBytes", r.approx_bytes);
                        ro.end();
                    }
                    out.push(']');
                });
            }
            se.end();
        });
    }
    o.strs("output", &report.output);
    if let Some(e) = &report.error {
        o.str("message", &message_line(&e.message));
        o.with("error", |out| write_error(out, e));
    }
    if let Some(d) = &report.contract_decls {
        o.with("contractDecls", |out| write_contract_decls(out, d));
    }
    o.with("resourceUsage", |out| write_usage(out, &report.usage));
    host(&mut o);
    o.end();
    Rendered {
        json: out,
        kept_slots: plan.kept,
        elided_slots: plan.elided,
    }
}

/// The node of a run of elided slots: `{"type":"elidedRun","count","approxBytes"}`.
fn write_run_node(out: &mut String, r: &ElidedRun) {
    let mut o = ObjectWriter::new(out);
    o.str("type", "elidedRun")
        .int("count", r.count as u64)
        .int("approxBytes", r.approx_bytes);
    o.end();
}

/// `elements`?, `approxBytes`, `algebraicTerms`? of an elision record.
fn write_elision_sizes(o: &mut ObjectWriter<'_>, e: &Elision) {
    if let Some(n) = e.elements {
        o.int("elements", n);
    }
    o.int("approxBytes", e.approx_bytes);
    if let Some(t) = e.algebraic_terms {
        o.int("algebraicTerms", t);
    }
}

/// The node of an elided slot: its real type, `value: null` and the `elided` record.
fn write_elided_node(out: &mut String, e: &Elision, reason: &str) {
    let mut o = ObjectWriter::new(out);
    o.str("type", e.kind);
    o.raw("value", "null");
    o.with("elided", |out| {
        let mut r = ObjectWriter::new(out);
        r.str("reason", reason);
        write_elision_sizes(&mut r, e);
        r.end();
    });
    o.end();
}

/// The envelope of a `check` (the CLI's `check --json`), with host fields last.
pub fn check_json(report: &CheckReport, host: HostFields<'_>) -> String {
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    o.int("schemaVersion", SCHEMA_VERSION);
    o.str(
        "status",
        if report.error.is_some() {
            "error"
        } else {
            "ok"
        },
    );
    o.str("specificationVersion", SPECIFICATION_VERSION);
    if let Some(e) = &report.error {
        o.str("message", &message_line(&e.message));
        o.with("error", |out| write_error(out, e));
    }
    if let Some(d) = &report.contract_decls {
        o.with("contractDecls", |out| write_contract_decls(out, d));
    }
    host(&mut o);
    o.end();
    out
}

/// Write the `contractDecls` object (MCP-68).
pub fn write_contract_decls(out: &mut String, d: &ContractDecls) {
    let mut o = ObjectWriter::new(out);
    o.with("findings", |out| {
        out.push('[');
        for (i, f) in d.findings.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let mut fo = ObjectWriter::new(out);
            fo.str("severity", f.severity.id())
                .str("message", &one_line(&f.message));
            fo.end();
        }
        out.push(']');
    });
    o.with("declarations", |out| {
        out.push('[');
        for (i, decl) in d.declarations.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let mut dobj = ObjectWriter::new(out);
            dobj.str("word", &decl.word)
                .str("verdict", decl.verdict.id());
            if let Some(g) = decl.gap {
                dobj.str("gap", g.id());
            }
            dobj.end();
        }
        out.push(']');
    });
    o.end();
}

/// The envelope of `infer_contracts` (the CLI's `contract --json`), with host fields last.
pub fn infer_json(report: &InferReport, host: HostFields<'_>) -> String {
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    o.int("schemaVersion", SCHEMA_VERSION);
    o.str(
        "status",
        if report.error.is_some() {
            "error"
        } else {
            "ok"
        },
    );
    o.str("specificationVersion", SPECIFICATION_VERSION);
    match &report.error {
        Some(e) => {
            o.str("message", &message_line(&e.message));
            o.with("error", |out| write_error(out, e));
        }
        None => {
            o.with("contracts", |out| {
                out.push('[');
                for (i, c) in report.contracts.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let mut co = ObjectWriter::new(out);
                    co.str("name", &c.name);
                    if let Some(n) = c.inputs {
                        co.int("inputs", n);
                    }
                    if let Some(n) = c.outputs {
                        co.int("outputs", n);
                    }
                    if let Some(f) = c.field {
                        co.str("field", f.id());
                    }
                    if let Some(s) = &c.suggested {
                        co.str("suggested", s);
                    }
                    if let Some(g) = c.gap {
                        co.str("gap", g.id());
                    }
                    co.end();
                }
                out.push(']');
            });
        }
    }
    host(&mut o);
    o.end();
    out
}
