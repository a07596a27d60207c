//! `check` (MCP-16; docs/mcp/tools.md): check a program without running it.

use super::{ToolSpec, SOURCE_ARGUMENTS};
use ajisai_host::hosterror::HostError;
use crate::exec::{host_fields, Executor, SourceCall};
use crate::result::ToolAnswer;
use ajisai_core::phrasebook::Entry;
use ajisai_core::{engine, envelope};

/// The tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "check",
    title: "Check an Ajisai program",
    description: include_str!("check.md"),
    arguments: SOURCE_ARGUMENTS,
    answer: super::Answer::Source(run),
};

fn run(exec: &Executor, call: &SourceCall<'_>) -> Result<ToolAnswer, HostError> {
    let defined: Vec<&Entry> = call.prelude.iter().collect();
    let mut report = engine::check_in(call.source, &defined, call.options);
    if report.interrupted {
        return Err(HostError::timeout(exec.options.wall_time_ms()));
    }
    if let Some(e) = report.error.as_mut() {
        exec.phrasebook.annotate_unknown(e, call.prelude);
    }
    let json = envelope::check_json(&report, &host_fields(call.prelude, &exec.provenance));
    exec.fit_plain(json, call.delivery)
}
