//! `run`, `check` and `contract`: the JSON envelope (MCP-95; README.md) or the report for people.
//!
//! The envelope is the engine's (`ajisai_core::envelope`); the CLI only appends its
//! two host fields, `limitProfile` and `backend`, where the server puts `mcp`.

use super::{Exit, Io};
use ajisai_core::contract::Verdict;
use ajisai_core::display::{display, display_lower_bound, display_polled};
use ajisai_core::engine::{self, CheckReport, ComputeReport, InferReport, Options};
use ajisai_core::envelope::{self, one_line};
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{BackendProvenance, Selected};
use ajisai_core::render::Fit;
use ajisai_core::value::Value;
use ajisai_core::Halt;
use ajisai_core::{ErrorCategory, LangError, Profile};
use ajisai_host::bounded::Bounded;
use ajisai_host::hosterror::HostError;
use std::io;

/// What one source command writes, and how it exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// Text for stdout.
    pub stdout: String,
    /// Text for stderr.
    pub stderr: String,
    /// The exit status.
    pub exit: Exit,
}

/// `run`: execute `text` under `profile` and render the result, all of it one
/// execution under `memoryBytes`.
pub fn run(text: &str, json: bool, profile: &Profile, backend: &Selected) -> Rendered {
    let bounded = Bounded::begin(profile);
    let options = Options {
        profile: profile.clone(),
        interrupt: Some(bounded.flag()),
    };
    let report = engine::compute(text, &options);
    let exit = exit_of(report.error.is_some());
    let deep = report.interrupted_deep.clone();
    let rendered = if report.interrupted {
        None
    } else if json {
        // The document is about as long as the slot costs together (MCP-53; docs/mcp/envelope.md): refuse one
        // the ceiling could not hold before writing it. Pricing and writing poll the run's flag.
        match envelope::stack_cost(&report) {
            Ok(total) if bounded.admits(total) => {
                let document = compute_json(&report, profile, &backend.provenance());
                // An empty document: the flag stopped the writing (memory ran out).
                (document.len() > 1).then(|| Rendered::json(document, exit))
            }
            _ => None,
        }
    } else {
        human_run(&report, exit, &bounded)
    };
    report.discard();
    finish(bounded, rendered, json, profile, backend, deep.as_ref())
}

/// `check`: check `text` without executing it and render the verdict.
pub fn check(text: &str, json: bool, profile: &Profile, backend: &Selected) -> Rendered {
    let bounded = Bounded::begin(profile);
    let report = engine::check(text, &Options::new(profile.clone()));
    let exit = exit_of(report.error.is_some());
    let rendered = if json {
        Rendered::json(check_json(&report, profile, &backend.provenance()), exit)
    } else {
        human_check(&report, exit)
    };
    finish(bounded, Some(rendered), json, profile, backend, None)
}

/// `contract`: infer the contracts of the User Words `text` defines, executing nothing.
pub fn contract(text: &str, json: bool, profile: &Profile, backend: &Selected) -> Rendered {
    let bounded = Bounded::begin(profile);
    let report = engine::infer_contracts(text, &Options::new(profile.clone()));
    let exit = exit_of(report.error.is_some());
    let rendered = if json {
        Rendered::json(infer_json(&report, profile, &backend.provenance()), exit)
    } else {
        human_contract(&report, exit)
    };
    finish(bounded, Some(rendered), json, profile, backend, None)
}

/// Close the execution: its rendering, or the host error `memoryExhausted` when it
/// crossed its ceiling (`None` means it was stopped before its rendering was done),
/// saying how deep in recursion it was when it was that deep.
fn finish(
    bounded: Bounded,
    rendered: Option<Rendered>,
    json: bool,
    profile: &Profile,
    backend: &Selected,
    deep: Option<&ajisai_core::outcome::DeepRecursion>,
) -> Rendered {
    let error = match (bounded.finish(), rendered) {
        (None, Some(r)) => return r,
        (Some(e), _) => e.in_recursion(deep),
        // Nothing but the memory accountant stops a CLI run.
        (None, None) => HostError::backend_failure("the run was interrupted"),
    };
    host_error(&error, json, profile, &backend.provenance())
}

/// A host error: its envelope with the CLI's host fields under `--json`, else one
/// line on stderr; exit 1 either way.
pub fn host_error(
    error: &HostError,
    json: bool,
    profile: &Profile,
    backend: &BackendProvenance,
) -> Rendered {
    if json {
        let mut doc = error.envelope_with(&cli_host_fields(profile, backend));
        doc.push('\n');
        return Rendered::json(doc, Exit::Failure);
    }
    Rendered {
        stdout: String::new(),
        stderr: host_error_line(error),
        exit: Exit::Failure,
    }
}

/// The one line a host error prints for people.
pub fn host_error_line(error: &HostError) -> String {
    format!(
        "ajisai: {}: {}\n",
        error.code.id(),
        envelope::message_line(&error.message)
    )
}

fn exit_of(failed: bool) -> Exit {
    if failed {
        Exit::Failure
    } else {
        Exit::Ok
    }
}

impl Rendered {
    /// A `--json` answer: the document on stdout, nothing on stderr.
    pub fn json(document: String, exit: Exit) -> Rendered {
        Rendered::stdout(document, exit)
    }

    /// `text` on stdout, nothing on stderr.
    pub fn stdout(text: String, exit: Exit) -> Rendered {
        Rendered {
            stdout: text,
            stderr: String::new(),
            exit,
        }
    }

    /// `text` on stderr, nothing on stdout.
    pub fn stderr(text: String, exit: Exit) -> Rendered {
        Rendered {
            stdout: String::new(),
            stderr: text,
            exit,
        }
    }

    /// Write both texts and return the exit status.
    pub fn write(&self, io: &mut Io<'_>) -> io::Result<Exit> {
        io.stdout.write_all(self.stdout.as_bytes())?;
        io.stderr.write_all(self.stderr.as_bytes())?;
        super::flush(io)?;
        Ok(self.exit)
    }
}

/// The CLI's host fields (MCP-95): `"limitProfile"`, then `"backend"` (`{kind, library, origin}`).
pub fn cli_host_fields(profile: &Profile, backend: &BackendProvenance) -> HostFields {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct CliHost<'a> {
        limit_profile: &'a str,
        backend: &'a BackendProvenance,
    }
    HostFields::of(&CliHost {
        limit_profile: profile.name,
        backend,
    })
}

/// The `run --json` document: the `compute` envelope with the CLI's host fields, one line.
/// Nothing is elided for size; a value nested too deep for JSON parsers is elided as the
/// server elides it (MCP-47, docs/mcp/limits.md; [`Fit::CLI`]), so every document parses
/// with standard tools.
pub fn compute_json(
    report: &ComputeReport,
    profile: &Profile,
    backend: &BackendProvenance,
) -> String {
    let mut s =
        envelope::compute_json_fitted(report, &Fit::CLI, &cli_host_fields(profile, backend)).json;
    s.push('\n');
    s
}

/// The `check --json` document: the `check` envelope with the CLI's host fields, one line.
pub fn check_json(report: &CheckReport, profile: &Profile, backend: &BackendProvenance) -> String {
    let mut s = envelope::check_json(report, &cli_host_fields(profile, backend));
    s.push('\n');
    s
}

/// The `contract --json` document: the `infer_contracts` envelope with the CLI's host fields.
pub fn infer_json(report: &InferReport, profile: &Profile, backend: &BackendProvenance) -> String {
    let mut s = envelope::infer_json(report, &cli_host_fields(profile, backend));
    s.push('\n');
    s
}

/// One line describing a language error for people: category, position, message;
/// under it, one line per call of its trace, innermost first.
pub fn error_line(e: &LangError) -> String {
    let mut out = format!(
        "error{}: {}: {}\n",
        at(e.pos),
        e.category.id(),
        one_line(&e.message)
    );
    for line in trace_lines(e) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// ` at line L, column C`, or nothing without a position.
fn at(pos: Option<ajisai_core::outcome::Pos>) -> String {
    match pos {
        Some(p) => format!(" at line {}, column {}", p.line, p.column),
        None => String::new(),
    }
}

/// The trace of `e` for people, as the envelope has it (`error.trace`): `  in F,
/// called at line 2, column 1`; a phrasebook Word says so; the calls left out are
/// counted before the outermost.
fn trace_lines(e: &LangError) -> Vec<String> {
    let Some(trace) = &e.trace else {
        return Vec::new();
    };
    let mut lines = Vec::with_capacity(trace.calls.len() + 1);
    for (i, call) in trace.calls.iter().enumerate() {
        if trace.omitted > 0 && i + 1 == trace.calls.len() {
            lines.push(format!("  ... {} more calls", trace.omitted));
        }
        let word = envelope::shortened(&call.word, envelope::TRACE_NAME_MAX_CHARS);
        let phrasebook = call.body_origin == ajisai_core::phrasebook::PHRASEBOOK_ORIGIN;
        let kind = if phrasebook { " (phrasebook)" } else { "" };
        let called = match call.pos {
            Some(p) if p.is_caller_source() => format!(", called{}", at(call.pos)),
            Some(_) => ", called inside the phrasebook".to_string(),
            None => String::new(),
        };
        lines.push(format!("  in {word}{kind}{called}"));
    }
    lines
}

/// One line per trap warning of a `check` (`warning at line L, column C: …`), and
/// one counting those not listed.
fn warning_lines(report: &CheckReport) -> String {
    let mut out: String = report
        .warnings
        .iter()
        .map(|w| format!("warning{}: {}\n", at(w.pos), one_line(&w.message)))
        .collect();
    if report.warnings_omitted > 0 {
        out.push_str(&format!(
            "... {} more warnings like these\n",
            report.warnings_omitted
        ));
    }
    out
}

/// A stack slot for people: its display, and for a NIL its reason.
pub fn slot_line(v: &Value) -> String {
    match v {
        Value::Nil(r) => format!("NIL (nil:{})", r.id()),
        other => display(other),
    }
}

/// The most stack slots a report for people shows: the top ones, since a stack of
/// 100,000 slots would bury the answer (`--json` always has every slot).
pub const SHOWN_SLOTS: usize = 1000;

/// How many slots at the bottom of `stack` a report for people leaves out, and the
/// slots it shows (the top [`SHOWN_SLOTS`], bottom to top).
pub fn shown_slots(stack: &[Value]) -> (usize, &[Value]) {
    let left_out = stack.len().saturating_sub(SHOWN_SLOTS);
    (left_out, &stack[left_out..])
}

/// The line that says how many slots were left out.
pub fn left_out_line(left_out: usize, total: usize) -> String {
    format!(
        "... {left_out} slots not shown (the top {} of {total} follow; --json has them all)",
        total - left_out
    )
}

/// The report for people, or `None` when memory ran out while writing it.
fn human_run(report: &ComputeReport, exit: Exit, bounded: &Bounded) -> Option<Rendered> {
    let mut stdout = String::new();
    for line in &report.output {
        stdout.push_str(line);
        stdout.push('\n');
    }
    let (left_out, shown) = shown_slots(&report.stack);
    if left_out > 0 {
        stdout.push_str(&left_out_line(left_out, report.stack.len()));
        stdout.push('\n');
    }
    for v in shown {
        stdout.push_str(&slot_line_bounded(v, bounded).ok()?);
        stdout.push('\n');
    }
    let stderr = report.error.as_ref().map(error_line).unwrap_or_default();
    Some(Rendered {
        stdout,
        stderr,
        exit,
    })
}

/// [`slot_line`] for a slot of any size: refused up front when even its shortest
/// display would not fit the memory ceiling, stopped when memory runs out.
pub fn slot_line_bounded(v: &Value, bounded: &Bounded) -> Result<String, Halt> {
    if let Value::Nil(_) = v {
        return Ok(slot_line(v));
    }
    if !bounded.admits(display_lower_bound(v)) {
        return Err(Halt::Interrupted(ajisai_core::limits::Interrupt::Raised));
    }
    display_polled(v, &mut |_| bounded.poll())
}

fn human_check(report: &CheckReport, exit: Exit) -> Rendered {
    let findings = report.contract_decls.iter().flat_map(|d| &d.findings);
    match &report.error {
        None => {
            let verified = report
                .contract_decls
                .iter()
                .flat_map(|d| &d.declarations)
                .filter(|d| d.verdict == Verdict::Verified)
                .count();
            let declarations = match verified {
                0 => String::new(),
                1 => ", 1 #:contract declaration verified".to_string(),
                n => format!(", {n} #:contract declarations verified"),
            };
            let mut stdout = format!(
                "ok: well-formed, every name resolves{declarations} (nothing was executed)\n"
            );
            // Warnings and the declarations inference could not decide never fail a check.
            stdout.push_str(&warning_lines(report));
            for f in findings {
                stdout.push_str(&format!(
                    "note at line {}: {}\n",
                    f.line,
                    one_line(&f.message)
                ));
            }
            Rendered {
                stdout,
                stderr: String::new(),
                exit,
            }
        }
        Some(e) => {
            // The message quotes the first finding; people get every one of them.
            let mut stderr = error_line(e);
            stderr.push_str(&warning_lines(report));
            if e.category == ErrorCategory::ContractViolation {
                for f in findings {
                    stderr.push_str(&format!(
                        "  {} at line {}: {}\n",
                        f.severity.id(),
                        f.line,
                        one_line(&f.message)
                    ));
                }
            }
            Rendered {
                stdout: String::new(),
                stderr,
                exit,
            }
        }
    }
}

/// One line per User Word: its paste-ready `#:contract` line (or its name when nothing
/// could be inferred), and the gap that stopped inference, if any.
fn human_contract(report: &InferReport, exit: Exit) -> Rendered {
    if let Some(e) = &report.error {
        return Rendered {
            stdout: String::new(),
            stderr: error_line(e),
            exit,
        };
    }
    let mut stdout = String::new();
    for c in &report.contracts {
        match &c.suggested {
            Some(line) => stdout.push_str(line),
            None => stdout.push_str(&format!("# {}: no contract could be inferred", c.name)),
        }
        if let Some(gap) = c.gap {
            stdout.push_str(&format!("  # {}", gap.id()));
        }
        stdout.push('\n');
    }
    let stderr = if report.contracts.is_empty() {
        "no User Words are defined\n".to_string()
    } else {
        String::new()
    };
    Rendered {
        stdout,
        stderr,
        exit,
    }
}
