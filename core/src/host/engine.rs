//! The host-neutral agent API: run or check a source end to end.
//!
//! Hosts (the CLI, the MCP server) call these and render the reports with
//! [`crate::envelope`]; they never reinterpret language results.

use crate::check::Warning;
use crate::code::Block;
use crate::compile as parser;
use crate::contract::{self, ContractDecls, WordContract};
use crate::limits::{Halt, InterruptFlag, Meter, Profile};
use crate::machine::Machine;
use crate::outcome::LangError;
use crate::phrasebook::Entry;
use crate::value::Value;

/// How to run a source.
#[derive(Clone, Debug)]
pub struct Options {
    /// The limit profile.
    pub profile: Profile,
    /// A flag the host raises to stop the run (deadline, cancellation).
    pub interrupt: Option<InterruptFlag>,
}

impl Options {
    /// Options for `profile` with no interrupt flag.
    pub fn new(profile: Profile) -> Options {
        Options {
            profile,
            interrupt: None,
        }
    }
}

/// What a run spent of each accumulating limit (MCP-34; docs/mcp/envelope.md): the envelope's
/// `resourceUsage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Execution steps.
    pub execution_steps: u64,
    /// `numericWork` units.
    pub numeric_work: u64,
    /// `collectionWork` units.
    pub collection_work: u64,
}

/// The result of running a program.
#[derive(Debug)]
pub struct ComputeReport {
    /// The final stack, bottom to top (as it stands after an error too).
    pub stack: Vec<Value>,
    /// Output lines (also those printed before an error).
    pub output: Vec<String>,
    /// The language error that stopped the run, if any.
    pub error: Option<LangError>,
    /// Whether the host interrupted the run (deadline or cancellation).
    pub interrupted: bool,
    /// Meter readings.
    pub usage: Usage,
    /// Findings and declarations of the source's `#:contract` lines (MCP-68);
    /// `None` when it has none (or did not parse).
    pub contract_decls: Option<ContractDecls>,
    /// The host's interrupt flag the run was under: rendering the report polls it too.
    pub interrupt: Option<InterruptFlag>,
    /// When the host interrupted the run deep in User Word calls: how deep, so that the
    /// host's answer (memory, deadline) can say it was a recursion.
    pub interrupted_deep: Option<crate::outcome::DeepRecursion>,
}

impl ComputeReport {
    /// Drop the report once it is rendered: its stack goes where the run's other
    /// leftovers go ([`crate::value::free_after_run`]) — to the host's freeing thread when
    /// the host keeps them, so the answer does not wait for a walk no check can interrupt
    /// (freeing a result of a hundred thousand distinct values took milliseconds).
    pub fn discard(mut self) {
        crate::value::free_after_run(std::mem::take(&mut self.stack));
    }

    /// The outcome id: `value`, `nil:<reason>` or `error:<category>`
    /// (docs/reference/index.md#outcomes).
    pub fn outcome_id(&self) -> String {
        match (&self.error, self.stack.last()) {
            (Some(e), _) => e.outcome_id(),
            (None, Some(Value::Nil(r))) => format!("nil:{}", r.id()),
            (None, _) => "value".to_string(),
        }
    }
}

/// Run `source` from an empty state. Its `#:contract` declarations are checked
/// first (MCP-69; docs/mcp/tools.md): a malformed or violated one stops the run before anything
/// executes, with an empty stack and output and zero usage.
pub fn compute(source: &str, options: &Options) -> ComputeReport {
    compute_in(source, &[], options)
}

/// Run `source` after defining the `prelude` phrasebook Words (in order; their
/// definitions are not charged and print nothing, MCP-79; docs/phrasebook.md).
pub fn compute_in(source: &str, prelude: &[&Entry], options: &Options) -> ComputeReport {
    let mut machine = Machine::new(options.profile.clone(), crate::word::registry());
    if let Some(flag) = &options.interrupt {
        machine.meter_mut().set_interrupt(flag.clone());
    }
    // Parsing and compiling are work of the run: charged and polled on its meter.
    let program = match parser::parse_metered(source, machine.meter_mut(), 0) {
        Ok(program) => program,
        Err(halt) => return report(machine, Err(halt)),
    };
    let blocks = prelude_blocks(prelude);
    let decls = contract::check_declarations(&program, &blocks);
    if let Some(e) = decls.as_ref().and_then(ContractDecls::error) {
        let mut r = report(
            Machine::new(options.profile.clone(), crate::word::registry()),
            Err(Halt::Error(e)),
        );
        r.contract_decls = decls;
        return r;
    }
    for entry in prelude {
        if let Err(e) = machine
            .dictionary_mut()
            .define(entry.name.clone(), entry.body.clone())
        {
            // A verified phrasebook always defines; report rather than panic if not.
            return report(machine, Err(Halt::Error(e)));
        }
    }
    let result = machine.run_program(&program);
    let mut r = report(machine, result);
    r.contract_decls = decls;
    crate::value::free_after_run(program);
    r
}

/// The DEF-line programs of prelude entries, for the static tools.
fn prelude_blocks<'a>(prelude: &[&'a Entry]) -> Vec<&'a Block> {
    prelude.iter().map(|e| &*e.program).collect()
}

/// Build the report of a machine after a run.
pub fn report(mut machine: Machine, mut result: Result<(), Halt>) -> ComputeReport {
    crate::suggest::complete_halt(&mut result, machine.dictionary());
    let usage = Usage {
        execution_steps: machine.meter().steps(),
        numeric_work: machine.meter().numeric_work(),
        collection_work: machine.meter().collection_work(),
    };
    let (error, interrupted) = match result {
        Ok(()) => (None, false),
        Err(Halt::Error(e)) => (Some(e), false),
        Err(Halt::Interrupted(_)) => (None, true),
    };
    let interrupt = machine.meter().interrupt().cloned();
    let interrupted_deep = machine.interrupted_deep().cloned();
    let (stack, output) = machine.take_results();
    ComputeReport {
        stack,
        output,
        error,
        interrupted,
        usage,
        contract_decls: None,
        interrupt,
        interrupted_deep,
    }
}

/// The meter a static tool parses on: the profile's limits (a literal's conversion is
/// charged as a run would charge it) and the host's interrupt flag (the deadline and the
/// memory ceiling stop it).
fn static_meter(options: &Options) -> Meter {
    Meter::with_interrupt(options.profile.clone(), options.interrupt.clone())
}

/// The result of a static check.
#[derive(Debug)]
pub struct CheckReport {
    /// The first failing phase's error, if any.
    pub error: Option<LangError>,
    /// Whether the host interrupted the check (deadline, cancellation, memory).
    pub interrupted: bool,
    /// Findings and declarations of the source's `#:contract` lines (MCP-68);
    /// `None` when it has none (or did not parse).
    pub contract_decls: Option<ContractDecls>,
    /// Where the source, valid as it may be, reads like a known trap: the first
    /// [`crate::check::WARNINGS_MAX`] (empty when it did not parse).
    pub warnings: Vec<Warning>,
    /// How many more trap warnings there are than `warnings` lists.
    pub warnings_omitted: usize,
}

/// Check `source` without executing (docs/contracts.md#what-check-promises): (1) tokenize and
/// validate, (2) resolve every name, (3) verify the `#:contract` declarations; the first failing
/// phase decides the error. Trap warnings come with any outcome of a source that parses.
pub fn check(source: &str, options: &Options) -> CheckReport {
    check_in(source, &[], options)
}

/// [`check`] with `prelude` phrasebook Words defined before the source.
pub fn check_in(source: &str, prelude: &[&Entry], options: &Options) -> CheckReport {
    let program = match parser::parse_metered(source, &mut static_meter(options), 0) {
        Ok(p) => p,
        Err(halt) => {
            let (error, interrupted) = match halt {
                Halt::Error(mut e) => {
                    crate::suggest::teach(&mut e);
                    (Some(e), false)
                }
                Halt::Interrupted(_) => (None, true),
            };
            return CheckReport {
                error,
                interrupted,
                contract_decls: None,
                warnings: Vec::new(),
                warnings_omitted: 0,
            };
        }
    };
    let blocks = prelude_blocks(prelude);
    let decls = contract::check_declarations(&program, &blocks);
    let known: Vec<&str> = prelude.iter().map(|e| &*e.name).collect();
    let error = crate::check::resolve_names_with(&program, &known)
        .err()
        .map(|mut e| {
            crate::suggest::teach(&mut e);
            e
        })
        .or_else(|| decls.as_ref().and_then(ContractDecls::error));
    let (warnings, warnings_omitted) = crate::check::trap_warnings(&program);
    crate::value::free_after_run(program);
    CheckReport {
        error,
        interrupted: false,
        contract_decls: decls,
        warnings,
        warnings_omitted,
    }
}

/// The result of `infer_contracts` (MCP-70).
#[derive(Debug)]
pub struct InferReport {
    /// Why the source could not be read (`malformedSource` or a parse-time limit).
    pub error: Option<LangError>,
    /// Whether the host interrupted the inference (deadline, cancellation, memory).
    pub interrupted: bool,
    /// One entry per User Word the source defines, in order of first definition
    /// (empty on error).
    pub contracts: Vec<WordContract>,
}

/// Infer the contracts of the User Words `source` defines, executing nothing.
/// Unresolved names are gaps, not errors; `#:contract` lines are ignored.
pub fn infer_contracts(source: &str, options: &Options) -> InferReport {
    infer_contracts_in(source, &[], options)
}

/// [`infer_contracts`] with `prelude` phrasebook Words defined before the source.
pub fn infer_contracts_in(source: &str, prelude: &[&Entry], options: &Options) -> InferReport {
    match parser::parse_metered(source, &mut static_meter(options), 0) {
        Ok(program) => {
            let contracts = contract::infer_program(&program, &prelude_blocks(prelude));
            crate::value::free_after_run(program);
            InferReport {
                error: None,
                interrupted: false,
                contracts,
            }
        }
        Err(Halt::Error(mut e)) => {
            crate::suggest::teach(&mut e);
            InferReport {
                error: Some(e),
                interrupted: false,
                contracts: Vec::new(),
            }
        }
        Err(Halt::Interrupted(_)) => InferReport {
            error: None,
            interrupted: true,
            contracts: Vec::new(),
        },
    }
}
