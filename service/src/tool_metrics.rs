//! Tool calls counted by tool and outcome (`ajisai_tool_calls_total`, with their durations,
//! [`metrics`](super::metrics)), labelled with the names of [`ToolSpec::ALL`]: every tool
//! has its label, and any other name — chosen by clients — is `other`, so the label set
//! cannot grow.

use crate::metrics::{TOOL_CALLS, TOOL_CALL_DURATION};
use crate::tools::ToolSpec;
use std::sync::OnceLock;
use std::time::Duration;

/// The label of calls naming no tool.
const OTHER_TOOL: &str = "other";

/// The tool labels: every tool's name ([`ToolSpec::ALL`]), then `other`.
fn tool_labels() -> impl Iterator<Item = &'static str> {
    ToolSpec::ALL
        .iter()
        .map(|t| t.name)
        .chain(std::iter::once(OTHER_TOOL))
}

/// The outcome labels, `other` last.
const OUTCOME_LABELS: [&str; 4] = ["ok", "error", "hostError", "other"];

/// The handles of every (tool, outcome) pair and every tool's duration, registered once.
struct Handles {
    calls: Vec<metrics::Counter>,
    durations: Vec<metrics::Histogram>,
}

fn handles() -> &'static Handles {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    HANDLES.get_or_init(|| Handles {
        calls: tool_labels()
            .flat_map(|t| {
                OUTCOME_LABELS
                    .iter()
                    .map(move |o| metrics::counter!(TOOL_CALLS, "tool" => t, "outcome" => *o))
            })
            .collect(),
        durations: tool_labels()
            .map(|t| metrics::histogram!(TOOL_CALL_DURATION, "tool" => t))
            .collect(),
    })
}

/// The label of a tool name: itself when known, else `other` (names are chosen by
/// clients, so they must not grow the label set).
pub fn tool_label(name: &str) -> &'static str {
    tool_labels().find(|t| *t == name).unwrap_or(OTHER_TOOL)
}

/// Count one answered tool call.
pub fn tool_call(tool: &str, outcome: &'static str, took: Duration) {
    let h = handles();
    let t = tool_labels()
        .position(|l| l == tool_label(tool))
        .unwrap_or(ToolSpec::ALL.len());
    let o = OUTCOME_LABELS
        .iter()
        .position(|l| *l == outcome)
        .unwrap_or(OUTCOME_LABELS.len() - 1);
    h.calls[t * OUTCOME_LABELS.len() + o].increment(1);
    h.durations[t].record(took.as_secs_f64());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tools_share_one_label() {
        for spec in ToolSpec::ALL {
            assert_eq!(tool_label(spec.name), spec.name);
        }
        assert_eq!(tool_label("compute"), "compute");
        assert_eq!(tool_label("word_contract"), "word_contract");
        assert_eq!(tool_label("rm -rf"), "other");
        assert_eq!(tool_label(""), "other");
    }
}
