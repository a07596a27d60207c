//! `compute` (MCP-16; docs/mcp/tools.md): run a program, answer its envelope.

use super::{ToolSpec, SOURCE_ARGUMENTS};
use ajisai_host::hosterror::HostError;
use crate::exec::{Executor, SourceCall};
use crate::result::ToolAnswer;
use ajisai_core::engine;
use ajisai_core::phrasebook::Entry;

/// The tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "compute",
    title: "Run an Ajisai program",
    description: include_str!("compute.md"),
    arguments: SOURCE_ARGUMENTS,
    answer: super::Answer::Source(run),
};

fn run(exec: &Executor, call: &SourceCall<'_>) -> Result<ToolAnswer, HostError> {
    let defined: Vec<&Entry> = call.prelude.iter().collect();
    let mut report = engine::compute_in(call.source, &defined, call.options);
    if report.interrupted {
        let stopped = HostError::timeout(exec.options.wall_time_ms())
            .in_recursion(report.interrupted_deep.as_ref());
        // A stopped run's stack can hold millions of values: freed after the answer, as
        // an answered one's is.
        report.discard();
        return Err(stopped);
    }
    if let Some(e) = report.error.as_mut() {
        exec.phrasebook.annotate_unknown(e, call.prelude);
    }
    let answer = exec.fit_compute(&report, call.prelude, call.delivery);
    report.discard();
    answer
}
