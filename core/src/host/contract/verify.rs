//! Verification of `#:contract` declarations against inference (MCP-68;
//! docs/mcp/envelope.md): findings, verdicts and the `contractDecls` record.

use crate::code::Program;
use crate::code::{normalize, Block};
use crate::outcome::{ErrorCategory, LangError, Pos};
use crate::word::{registry, Field};
use std::collections::HashMap;

use super::directive::*;
use super::infer::*;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum Severity {
    /// A malformed or violated declaration: the program does not run.
    Error,
    /// A declaration inference cannot decide.
    Note,
}

impl Severity {
    /// The id (`error` / `note`).
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// One finding about a directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Error or note.
    pub severity: Severity,
    /// One line, starting with `#:contract`.
    pub message: String,
    /// The declared Word (normalized), when the directive names one.
    pub word: Option<String>,
    /// The directive's line.
    pub line: u32,
}

/// The verdict on a well-formed directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum Verdict {
    /// Every declared key equals inference.
    Verified,
    /// No key is contradicted, but inference has a gap for one.
    CannotVerify,
    /// Inference proves a declared key wrong.
    Violated,
}

impl Verdict {
    /// The id (`verified`, `cannotVerify`, `violated`).
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// The verdict on one well-formed directive.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Declaration {
    /// The declared Word (normalized).
    pub word: String,
    /// The verdict.
    pub verdict: Verdict,
    /// For `cannotVerify`: the gap inference ran into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
    /// The directive's line (not on the wire).
    #[serde(skip)]
    pub line: u32,
}

/// Findings and declarations of a source's `#:contract` lines (MCP-68).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContractDecls {
    /// Every finding, in source order.
    pub findings: Vec<Finding>,
    /// One per well-formed directive, in source order.
    pub declarations: Vec<Declaration>,
}

impl ContractDecls {
    /// The `contractViolation` these findings raise, if any error finding exists:
    /// the first quoted, the rest counted; Word and line of the first.
    pub fn error(&self) -> Option<LangError> {
        let mut errors = self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error);
        let first = errors.next()?;
        let more = errors.count();
        let mut message = format!("contract violation: {}", first.message);
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        let mut e = LangError::new(ErrorCategory::ContractViolation, message)
            .at(Some(Pos::new(first.line, 1)));
        e.word = first.word.clone();
        Some(e)
    }
}

/// Check every `#:contract` line of `program` against inference over the program's
/// (and `prelude`'s) literal definitions. `None` when the source has no such line.
pub fn check_declarations(program: &Program, prelude: &[&Block]) -> Option<ContractDecls> {
    let directives: Vec<Directive> = program
        .directives
        .iter()
        .filter_map(parse_directive)
        .collect();
    if directives.is_empty() {
        return None;
    }
    let defs = ProgramDefinitions::scan(prelude, &program.block);
    let mut inference = Inference::new(&defs);
    let mut out = ContractDecls::default();
    let mut declared_lines: HashMap<String, u32> = HashMap::new();
    for d in directives {
        let error = |message: String, word: Option<String>| Finding {
            severity: Severity::Error,
            message,
            word,
            line: d.line,
        };
        let Some(written) = &d.name else {
            out.findings.push(error(
                format!(
                    "#:contract on line {} names no Word; write #:contract NAME inputs=N outputs=N field=closed|extends",
                    d.line
                ),
                None,
            ));
            continue;
        };
        let word = normalize(written);
        if let Some(first) = declared_lines.get(&word) {
            out.findings.push(error(
                format!("#:contract {word}: {word} is already declared on line {first}; write one directive per Word"),
                Some(word),
            ));
            continue;
        }
        declared_lines.insert(word.clone(), d.line);
        let keys = match &d.keys {
            Ok(k) => *k,
            Err(problem) => {
                out.findings
                    .push(error(format!("#:contract {word}: {problem}"), Some(word)));
                continue;
            }
        };
        if registry().lookup(&word).is_some() {
            out.findings.push(error(
                format!("#:contract {word}: {word} is a Core Word; declarations are for User Words this program defines"),
                Some(word),
            ));
            continue;
        }
        if !defs.has_literal(&word) {
            out.findings.push(error(
                format!("#:contract {word}: this program does not define {word} with a literal {{ … }} '{written}' {}", registry().definer_name()),
                Some(word),
            ));
            continue;
        }
        let Some(inferred) = inference.infer(&word) else {
            continue;
        };
        let mut violated = false;
        let mut gap = None;
        let mut counts = [("inputs", keys.inputs), ("outputs", keys.outputs)];
        for (key, declared) in &mut counts {
            let Some(n) = *declared else { continue };
            match inferred.effect {
                Ok(e) => {
                    let got = if *key == "inputs" {
                        e.inputs
                    } else {
                        e.outputs
                    };
                    if got != u64::from(n) {
                        violated = true;
                        out.findings.push(error(
                            format!("#:contract {word} declares {key}={n}, inferred {key}={got}"),
                            Some(word.clone()),
                        ));
                    }
                }
                Err(g) => {
                    gap = Some(g);
                    out.findings.push(Finding {
                        severity: Severity::Note,
                        message: format!("#:contract {word} declares {key}={n}, which inference cannot verify ({})", g.id()),
                        word: Some(word.clone()),
                        line: d.line,
                    });
                }
            }
        }
        if keys.field == Some(Field::Closed) && inferred.field == Some(Field::Extends) {
            violated = true;
            out.findings.push(error(
                format!("#:contract {word} declares field=closed, inferred field=extends"),
                Some(word.clone()),
            ));
        }
        let verdict = if violated {
            Verdict::Violated
        } else if gap.is_some() {
            Verdict::CannotVerify
        } else {
            Verdict::Verified
        };
        out.declarations.push(Declaration {
            word,
            verdict,
            gap: if verdict == Verdict::CannotVerify {
                gap
            } else {
                None
            },
            line: d.line,
        });
    }
    Some(out)
}
