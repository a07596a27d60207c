//! `infer_contracts` (MCP-70; docs/mcp/tools.md): infer the contracts of the Words a
//! source defines.

use super::{ToolSpec, SOURCE_ARGUMENTS};
use ajisai_host::hosterror::HostError;
use crate::exec::{host_fields, Executor, SourceCall};
use crate::result::ToolAnswer;
use ajisai_core::phrasebook::Entry;
use ajisai_core::{engine, envelope};

/// The tool.
pub const SPEC: ToolSpec = ToolSpec {
    name: "infer_contracts",
    title: "Infer Ajisai Word contracts",
    description: include_str!("infer_contracts.md"),
    arguments: SOURCE_ARGUMENTS,
    answer: super::Answer::Source(run),
};

fn run(exec: &Executor, call: &SourceCall<'_>) -> Result<ToolAnswer, HostError> {
    let defined: Vec<&Entry> = call.prelude.iter().collect();
    let report = engine::infer_contracts_in(call.source, &defined, call.options);
    if report.interrupted {
        return Err(HostError::timeout(exec.options.wall_time_ms()));
    }
    let json = envelope::infer_json(&report, &host_fields(call.prelude, &exec.provenance));
    exec.fit_plain(json, call.delivery)
}
