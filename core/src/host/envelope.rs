//! The result envelope (docs/mcp/envelope.md, schema version 9; docs/envelope-changelog.md) shared by the CLI and the server.
//!
//! Rendering is direct to compact JSON in the canonical key order (MCP-26; docs/mcp/envelope.md): optional
//! fields are omitted, never `null`. Hosts append their own trailing fields — the
//! server its `mcp` provenance block, the CLI `limitProfile` and `backend` (MCP-95; README.md).

use crate::check::Warning;
use crate::contract::{ContractDecls, Declaration, Severity, WordContract};
use crate::display::display_polled;
use crate::engine::{CheckReport, ComputeReport, InferReport};
use crate::json::{with_members, HostFields, ObjectWriter};
use crate::limits::{Halt, Limit, Meter, Profile};
use crate::node::{write_node_metered, Approximations};
use crate::outcome::{CallSite, ErrorCategory, LangError, Trap, MESSAGE_MAX_CHARS};
use crate::phrasebook::PHRASEBOOK_ORIGIN;
use crate::render::{
    plan, plan_sized, slot_sizes_metered, with_previews, ElidedRun, Elision, Fit, Piece, Plan,
    Preview,
};
use crate::value::Value;
use crate::SPECIFICATION_VERSION;

/// The envelope schema version.
pub const SCHEMA_VERSION: u64 = 9;

pub use crate::node::{write_exact_terms, write_node, APPROXIMATION_BOUND};

/// The `error` object of a language error (MCP-33).
#[derive(serde::Serialize)]
pub struct ErrorObject<'a> {
    category: ErrorCategory,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    word: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<Vec<CallSiteObject>>,
    #[serde(rename = "traceOmitted", skip_serializing_if = "Option::is_none")]
    trace_omitted: Option<usize>,
}

/// One entry of `error.trace`: the User Word called and where, `source: "phrasebook"`
/// for a phrasebook Word. Positions are in the caller's source only (MCP-79; docs/phrasebook.md): a call
/// made inside a phrasebook Word's body has none.
#[derive(serde::Serialize)]
struct CallSiteObject {
    word: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
}

/// The longest Word name a trace entry quotes whole, in characters: eight entries of
/// a long name repeated must not outgrow the rest of the envelope.
pub const TRACE_NAME_MAX_CHARS: usize = 256;

impl CallSiteObject {
    fn of(call: &CallSite) -> CallSiteObject {
        let pos = call.pos.filter(|p| p.is_caller_source());
        CallSiteObject {
            word: shortened(&call.word, TRACE_NAME_MAX_CHARS),
            line: pos.map(|p| p.line),
            column: pos.map(|p| p.column),
            source: (call.body_origin == PHRASEBOOK_ORIGIN).then_some("phrasebook"),
        }
    }
}

impl<'a> ErrorObject<'a> {
    /// The object of `e`.
    pub fn of(e: &'a LangError) -> ErrorObject<'a> {
        ErrorObject {
            category: e.category,
            resource: e.resource,
            word: e.word.as_deref(),
            line: e.pos.map(|p| p.line),
            column: e.pos.map(|p| p.column),
            trace: e
                .trace
                .as_ref()
                .map(|t| t.calls.iter().map(CallSiteObject::of).collect()),
            trace_omitted: e.trace.as_ref().map(|t| t.omitted).filter(|&n| n > 0),
        }
    }
}

/// One line: CR and LF become spaces (a message is always a single line).
pub fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// A result's `message` (MCP-33): one line of at most [`MESSAGE_MAX_CHARS`] characters.
/// Lists are already cut where they are built; what can still run long is text echoed
/// from the source (a 5,000-character unknown name), which is cut with `…`.
pub fn message_line(s: &str) -> String {
    shortened(&one_line(s), MESSAGE_MAX_CHARS)
}

/// `s` if it has at most `max_chars` characters, else its first `max_chars - 1`
/// followed by `…` (the one way text quoted into a message is cut).
pub fn shortened(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let mut cut: String = s.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// A rendered `compute` envelope and how its stack was fitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The compact envelope JSON, host fields included (empty when the host stopped
    /// the rendering: `interrupted`).
    pub json: String,
    /// Slots that arrived whole.
    pub kept_slots: usize,
    /// Slots replaced by an elision record or covered by an elided run (MCP-36).
    pub elided_slots: usize,
    /// Whether the host's interrupt flag stopped the rendering (deadline, memory).
    pub interrupted: bool,
}

impl Rendered {
    /// What a rendering stopped by the host leaves: nothing.
    fn stopped() -> Rendered {
        Rendered {
            json: String::new(),
            kept_slots: 0,
            elided_slots: 0,
            interrupted: true,
        }
    }
}

/// The meter a rendering ticks: no budget (rendering charges nothing to the run, whose
/// usage the envelope reports), the run's interrupt flag, so the host's deadline and
/// memory ceiling stop a rendering as they stop a run.
pub fn render_meter(report: &ComputeReport) -> Meter {
    let unlimited = Profile::CLI_LOCAL
        .with(Limit::NumericWork, u64::MAX)
        .with(Limit::CollectionWork, u64::MAX);
    Meter::with_interrupt(unlimited, report.interrupt.clone())
}

/// About how long the whole `compute` envelope of `report` is: its slots' costs together
/// (MCP-53; docs/mcp/envelope.md), priced on the render meter, so a host can refuse or fit
/// a document before writing it. `Err` when the host's flag stopped the pricing.
pub fn stack_cost(report: &ComputeReport) -> Result<u64, Halt> {
    slot_sizes_metered(&report.stack, &render_meter(report)).map(|sizes| {
        sizes
            .iter()
            .map(|s| s.cost())
            .fold(0u64, u64::saturating_add)
    })
}

/// The envelope of a `compute` run (the CLI's `run --json`), with host fields last.
/// Nothing is elided. Empty when the host's interrupt flag stopped it.
pub fn compute_json(report: &ComputeReport, host: &HostFields) -> String {
    compute_json_fitted(report, &Fit::UNLIMITED, host).json
}

/// The server's `compute` envelope with the value stack fitted into `stack_budget`
/// bytes (MCP-52/53): from the top of the stack down, a slot whose cost fits what is
/// left of the budget arrives whole, any other slot is elided (MCP-36), and a run of
/// consecutive elided slots arrives as one `elidedRun` record. A slot whose value is
/// nested deeper than the `mcp-local-stdio` profile's `nestingDepth` is elided as if it
/// did not fit, since clients cannot parse JSON that deep (MCP-47; docs/mcp/limits.md). When nothing is
/// elided the JSON equals [`compute_json`]'s.
pub fn compute_json_within(
    report: &ComputeReport,
    stack_budget: u64,
    host: &HostFields,
) -> Rendered {
    compute_json_fitted(report, &Fit::mcp(stack_budget), host)
}

/// The `compute` envelope fitted as `fit` says (see [`compute_json_within`]).
pub fn compute_json_fitted(report: &ComputeReport, fit: &Fit, host: &HostFields) -> Rendered {
    let meter = render_meter(report);
    let planned = if *fit == Fit::UNLIMITED {
        Ok(plan(&report.stack, fit))
    } else {
        slot_sizes_metered(&report.stack, &meter).and_then(|sizes| {
            let mut plan = plan_sized(&report.stack, &sizes, fit);
            with_previews(&report.stack, &mut plan, fit, &meter).map(|()| plan)
        })
    };
    planned
        .and_then(|p| compute_json_planned(report, &p, fit, host, meter))
        .unwrap_or_else(|_| Rendered::stopped())
}

/// Fits one report's stack again and again under smaller budgets, pricing each slot
/// once (the host's refitting loop of MCP-52).
pub struct Fitter<'r> {
    report: &'r ComputeReport,
    /// The slot sizes; `None` when the host stopped the pricing.
    sizes: Option<Vec<crate::render::Size>>,
}

impl<'r> Fitter<'r> {
    /// Price every slot of `report`'s stack (ticking the render meter).
    pub fn new(report: &'r ComputeReport) -> Fitter<'r> {
        Fitter {
            report,
            sizes: slot_sizes_metered(&report.stack, &render_meter(report)).ok(),
        }
    }

    /// The envelope with the stack fitted as `fit` says.
    pub fn render(&self, fit: &Fit, host: &HostFields) -> Rendered {
        let Some(sizes) = &self.sizes else {
            return Rendered::stopped();
        };
        let meter = render_meter(self.report);
        let mut plan = plan_sized(&self.report.stack, sizes, fit);
        with_previews(&self.report.stack, &mut plan, fit, &meter)
            .and_then(|()| compute_json_planned(self.report, &plan, fit, host, meter))
            .unwrap_or_else(|_| Rendered::stopped())
    }
}

/// The `compute` envelope with the stack laid out as `plan` says, every node and display
/// written through `meter` (the kept slots' approximations computed once per value).
fn compute_json_planned(
    report: &ComputeReport,
    plan: &Plan,
    fit: &Fit,
    host: &HostFields,
    meter: Meter,
) -> Result<Rendered, Halt> {
    let mut approximations = Approximations::new(meter);
    // Each wide integer is converted to decimal once, for its node and its display.
    let _decimals = crate::number::int::DecimalMemo::start();
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
    let mut halted: Option<Halt> = None;
    o.with("stack", |out| {
        out.push('[');
        for (i, piece) in plan.pieces.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match piece {
                Piece::Kept(index) => {
                    if let Err(h) =
                        write_node_metered(out, &report.stack[*index], &mut approximations)
                    {
                        halted = Some(h);
                        break;
                    }
                }
                Piece::Elided(e) => {
                    let value = &report.stack[e.index];
                    if let Err(h) = write_elided_node(out, e, reason, value, &mut approximations) {
                        halted = Some(h);
                        break;
                    }
                }
                Piece::Run(r) => write_run_node(out, r),
            }
        }
        out.push(']');
    });
    if let Some(h) = halted {
        return Err(h);
    }
    let render_meter = approximations.meter();
    let mut displays: Vec<String> = Vec::with_capacity(plan.pieces.len());
    for piece in &plan.pieces {
        displays.push(match piece {
            Piece::Kept(index) => {
                display_polled(&report.stack[*index], &mut |units| render_meter.tick(units))?
            }
            Piece::Elided(e) => e.display(),
            Piece::Run(r) => r.display(),
        });
    }
    o.strs("stackDisplay", &displays);
    if plan.elided > 0 {
        o.ser(
            "stackElided",
            &StackElided {
                reason,
                budget_bytes: fit.stack_budget,
                slots: plan.singles().map(ElidedSlot::of).collect(),
                runs: plan.runs().map(RunRecord::of).collect(),
            },
        );
    }
    // The output lines are copied into the envelope: their bytes are reserved against the
    // host's memory ceiling first, and the copy ticks the meter (a line can be megabytes).
    let output_bytes = report
        .output
        .iter()
        .map(|l| l.len() as u64 + 3)
        .fold(0u64, u64::saturating_add);
    render_meter.reserve(output_bytes)?;
    o.strs_polled("output", &report.output, &mut |units| {
        render_meter.tick(units)
    })?;
    if let Some(e) = &report.error {
        o.str("message", &message_line(&e.message));
        o.ser("error", &ErrorObject::of(e));
    }
    if let Some(d) = &report.contract_decls {
        o.ser("contractDecls", &ContractDeclsObject::of(d));
    }
    o.ser("resourceUsage", &report.usage);
    o.members(host);
    o.end();
    Ok(Rendered {
        json: out,
        kept_slots: plan.kept,
        elided_slots: plan.elided,
        interrupted: false,
    })
}

/// The node of a run of elided slots: `{"type":"elidedRun","count","approxBytes"}`.
fn write_run_node(out: &mut String, r: &ElidedRun) {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct RunNode {
        r#type: &'static str,
        count: usize,
        approx_bytes: u64,
    }
    write_record(
        out,
        &RunNode {
            r#type: "elidedRun",
            count: r.count,
            approx_bytes: r.approx_bytes,
        },
    );
}

/// The node of an elided slot: its real type, `value: null` and the `elided` record,
/// whose preview of `value` (envelope 9: `head`, `tail`) comes last.
fn write_elided_node<'v>(
    out: &mut String,
    e: &Elision,
    reason: &'static str,
    value: &'v Value,
    approximations: &mut Approximations<'v>,
) -> Result<(), Halt> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ElidedNode {
        r#type: &'static str,
        value: (),
        elided: ElidedRecord,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ElidedRecord {
        reason: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        elements: Option<u64>,
        approx_bytes: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        algebraic_terms: Option<u64>,
    }
    let mut node = String::new();
    write_record(
        &mut node,
        &ElidedNode {
            r#type: e.kind,
            value: (),
            elided: ElidedRecord {
                reason,
                elements: e.elements,
                approx_bytes: e.approx_bytes,
                algebraic_terms: e.algebraic_terms,
            },
        },
    );
    // The record's preview members follow its fixed ones: previewed elements are nodes,
    // written (and approximated) as every node is, so they are written here by hand.
    let open = node
        .strip_suffix("}}")
        .expect("an elided node ends with its record");
    out.push_str(open);
    match (e.preview, value) {
        (Some(Preview::Elements { head, tail }), Value::Vector(items)) => {
            let items = items.items();
            let mut elements =
                |name: &str, part: &'v [Value], out: &mut String| -> Result<(), Halt> {
                    if part.is_empty() {
                        return Ok(());
                    }
                    out.push_str(name);
                    out.push('[');
                    for (i, v) in part.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_node_metered(out, v, approximations)?;
                    }
                    out.push(']');
                    Ok(())
                };
            elements(",\"head\":", &items[..head], out)?;
            elements(",\"tail\":", &items[items.len() - tail..], out)?;
        }
        (
            Some(Preview::Text {
                head_end,
                tail_start,
            }),
            Value::Str(text),
        ) => {
            out.push_str(",\"head\":");
            crate::json::write_str(out, &text[..head_end]);
            if tail_start < text.len() {
                out.push_str(",\"tail\":");
                crate::json::write_str(out, &text[tail_start..]);
            }
        }
        _ => {}
    }
    out.push_str("}}");
    Ok(())
}

/// Append a flat record serde writes.
fn write_record(out: &mut String, record: &impl serde::Serialize) {
    out.push_str(&serde_json::to_string(record).expect("a flat record serializes"));
}

/// `stackElided` (MCP-36): the reason, the budget, one record per single elided slot
/// and one per run of them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StackElided {
    reason: &'static str,
    budget_bytes: u64,
    slots: Vec<ElidedSlot>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    runs: Vec<RunRecord>,
}

/// One elided slot's record in `stackElided.slots`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ElidedSlot {
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<u64>,
    approx_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    algebraic_terms: Option<u64>,
}

impl ElidedSlot {
    fn of(e: &Elision) -> ElidedSlot {
        ElidedSlot {
            index: e.index,
            elements: e.elements,
            approx_bytes: e.approx_bytes,
            algebraic_terms: e.algebraic_terms,
        }
    }
}

/// One run's record in `stackElided.runs`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RunRecord {
    start: usize,
    count: usize,
    approx_bytes: u64,
}

impl RunRecord {
    fn of(r: &ElidedRun) -> RunRecord {
        RunRecord {
            start: r.start,
            count: r.count,
            approx_bytes: r.approx_bytes,
        }
    }
}

/// The `contractDecls` object (MCP-68): findings (one line each) and declarations.
#[derive(serde::Serialize)]
pub struct ContractDeclsObject<'a> {
    findings: Vec<FindingObject>,
    declarations: &'a [Declaration],
}

/// One finding as the wire carries it.
#[derive(serde::Serialize)]
struct FindingObject {
    severity: Severity,
    message: String,
}

impl<'a> ContractDeclsObject<'a> {
    /// The object of `d`.
    pub fn of(d: &'a ContractDecls) -> ContractDeclsObject<'a> {
        ContractDeclsObject {
            findings: d
                .findings
                .iter()
                .map(|f| FindingObject {
                    severity: f.severity,
                    message: one_line(&f.message),
                })
                .collect(),
            declarations: &d.declarations,
        }
    }
}

/// The envelope of `check` and `infer_contracts` (MCP-26's key order): everything but
/// the host fields, which follow.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StaticEnvelope<'a> {
    schema_version: u64,
    status: &'static str,
    specification_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contract_decls: Option<ContractDeclsObject<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contracts: Option<&'a [WordContract]>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    findings: Vec<WarningObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    findings_omitted: Option<usize>,
}

/// One of `check`'s `findings`: a valid program that reads like a known trap. Its
/// severity is always `warning` — it never stops `compute`.
#[derive(serde::Serialize)]
struct WarningObject {
    severity: &'static str,
    trap: Trap,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
}

impl WarningObject {
    fn of(w: &Warning) -> WarningObject {
        WarningObject {
            severity: "warning",
            trap: w.trap,
            message: message_line(&w.message),
            line: w.pos.map(|p| p.line),
            column: w.pos.map(|p| p.column),
        }
    }
}

impl<'a> StaticEnvelope<'a> {
    fn new(error: Option<&'a LangError>) -> StaticEnvelope<'a> {
        StaticEnvelope {
            schema_version: SCHEMA_VERSION,
            status: if error.is_some() { "error" } else { "ok" },
            specification_version: SPECIFICATION_VERSION,
            message: error.map(|e| message_line(&e.message)),
            error: error.map(ErrorObject::of),
            contract_decls: None,
            contracts: None,
            findings: Vec::new(),
            findings_omitted: None,
        }
    }

    fn with_host(&self, host: &HostFields) -> String {
        with_members(
            serde_json::to_string(self).expect("an envelope of flat records serializes"),
            host,
        )
    }
}

/// The envelope of a `check` (the CLI's `check --json`), with host fields last.
pub fn check_json(report: &CheckReport, host: &HostFields) -> String {
    StaticEnvelope {
        contract_decls: report.contract_decls.as_ref().map(ContractDeclsObject::of),
        findings: report.warnings.iter().map(WarningObject::of).collect(),
        findings_omitted: Some(report.warnings_omitted).filter(|&n| n > 0),
        ..StaticEnvelope::new(report.error.as_ref())
    }
    .with_host(host)
}

/// The envelope of `infer_contracts` (the CLI's `contract --json`), with host fields last.
pub fn infer_json(report: &InferReport, host: &HostFields) -> String {
    StaticEnvelope {
        contracts: report.error.is_none().then_some(&report.contracts[..]),
        ..StaticEnvelope::new(report.error.as_ref())
    }
    .with_host(host)
}
