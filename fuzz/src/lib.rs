//! What every fuzz target shares: one call run as the MCP server runs it — under the
//! `mcp-local-stdio` profile, in a memory account of the counting allocator the binaries
//! install — and the properties every run must have. A violated property panics, which
//! libFuzzer reports as a crash; libFuzzer's `-timeout` catches a run that does not end.
//!
//! The properties: no panic; every outcome one of the three (a value, a NIL with a
//! reason, an error with a category; a limit error names an engine limit); no account
//! holding more than the memory ceiling plus the allowed overshoot; every envelope JSON
//! that parses with a standard parser.

use ajisai_core::engine::{self, Options};
use ajisai_core::envelope;
use ajisai_core::json::HostFields;
use ajisai_core::limits::{InterruptFlag, Limit};
use ajisai_core::Profile;
use ajisai_host::memory::{self, Execution, OVERSHOOT_BYTES};
use std::sync::Once;

/// Link the vocabulary and the portable backend, and install the memory hooks (once).
pub fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        ajisai_numerics_pure::link();
        ajisai_words::link();
        memory::install();
        ajisai_host::reaper::install();
    });
}

/// The profile every target runs under.
pub fn profile() -> Profile {
    Profile::MCP_LOCAL_STDIO
}

/// Run `f` in a memory account with the MCP ceiling, its interrupt flag in the options;
/// panic when the account held more than the ceiling plus the overshoot.
pub fn bounded<T>(f: impl FnOnce(&Options) -> T) -> (T, bool) {
    setup();
    let ceiling = profile().memory_bytes.unwrap_or(u64::MAX);
    let flag = InterruptFlag::new();
    let account = Execution::begin(ceiling, &flag);
    let options = Options {
        profile: profile(),
        interrupt: Some(flag),
    };
    let out = f(&options);
    let usage = account.usage();
    drop(account);
    ajisai_host::reaper::free_later();
    assert!(
        usage.peak_bytes <= ceiling + OVERSHOOT_BYTES,
        "held {} bytes, over the {ceiling}-byte ceiling plus {OVERSHOOT_BYTES}",
        usage.peak_bytes
    );
    (out, usage.exceeded)
}

/// Whether `json` parses as JSON (with the standard parser's depth limit).
pub fn assert_json(json: &str) {
    if json.is_empty() {
        return;
    }
    if let Err(e) = serde_json::from_str::<serde_json::Value>(json) {
        panic!(
            "an envelope is not JSON ({e}): {}",
            &json[..json.len().min(200)]
        );
    }
}

/// `compute` of `source` as the server runs it, and its envelope within the server's
/// stack budget. The envelope is checked with a standard parser after the account has
/// closed: the parser's tree is the check's memory, not the call's.
pub fn compute(source: &str) {
    let (rendered, _exhausted) = bounded(|options| {
        let report = engine::compute(source, options);
        if report.interrupted {
            return None;
        }
        if let Some(e) = &report.error {
            assert!(!e.message.is_empty(), "an error without a message");
            if e.category.id() == "resourceLimitExceeded" {
                let limit = e.resource.and_then(Limit::from_name);
                assert!(
                    limit.is_some_and(|l| Limit::ENGINE.contains(&l)),
                    "a limit error names no engine limit: {e:?}"
                );
            }
        }
        let budget = if report.error.is_some() {
            ajisai_core::render::ERROR_STACK_BUDGET
        } else {
            ajisai_core::render::VALUE_STACK_BUDGET
        };
        let rendered = envelope::compute_json_within(&report, budget, &HostFields::NONE);
        report.discard();
        Some(rendered.json)
    });
    if let Some(json) = rendered {
        assert_json(&json);
    }
}

/// `check` and `infer_contracts` of `source`, and their envelopes (parsed after the
/// account has closed, as in [`compute`]).
pub fn static_tools(source: &str) {
    let ((check, infer), _) = bounded(|options| {
        let check = engine::check(source, options);
        let check = envelope::check_json(&check, &HostFields::NONE);
        let infer = engine::infer_contracts(source, options);
        (check, envelope::infer_json(&infer, &HostFields::NONE))
    });
    assert_json(&check);
    assert_json(&infer);
}

/// `JSON-DECODE` of `text` on a run's meter, and `JSON-ENCODE` of what it decoded.
pub fn json_round_trip(text: &str) {
    bounded(|options| {
        let mut meter = ajisai_core::limits::Meter::with_interrupt(
            options.profile.clone(),
            options.interrupt.clone(),
        );
        if let Ok(v) = ajisai_words::json::decode_metered(text, &mut meter) {
            let _ = ajisai_words::json::encode(&v, &mut meter);
        }
    });
}
