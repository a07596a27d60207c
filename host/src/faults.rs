//! The fault-injection Words (cargo feature `fault-injection`, off in every shipped
//! build): `FAULT-SPIN`, `n FAULT-HOG` and `FAULT-ABORT` misbehave the ways a cost model
//! that is wrong or an engine bug would — a loop that never checks a limit, an allocation
//! nobody reserved, an abort — so that tests can show that one call never hurts another
//! (docs/mcp/transports.md#isolation). They join the vocabulary only when the process
//! also sees `AJISAI_FAULT_INJECTION=1` when its registry is built; otherwise they do not
//! exist (`unknownWord`). Registered as gated Words, they are in no registry document.

use ajisai_core::value::Value;
use ajisai_core::word::{Family, Flow, GatedRegistration, NilPolicy, Purity, WordSpec};
use ajisai_core::{Ctx, Halt};

/// The variable that, with the feature, adds the Words.
pub const FAULT_INJECTION_VAR: &str = "AJISAI_FAULT_INJECTION";

/// Loops forever and never looks at the deadline, the interrupt flag or the memory
/// account: only a host that can stop what it cannot ask ends it.
fn spin(_ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let mut turns: u64 = 0;
    loop {
        turns = std::hint::black_box(turns.wrapping_add(1));
    }
}

/// Allocates n MiB and writes every page of it, without reserving it or checking
/// anything, then lets it go.
fn hog(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let mib = match ctx.peek(0) {
        Value::Number(n) => n.small_int().filter(|m| *m >= 0),
        _ => None,
    };
    let Some(mib) = mib else {
        return Err(ctx.error(
            ajisai_core::outcome::ErrorCategory::TypeMismatch,
            "FAULT-HOG takes a non-negative integer count of MiB",
        ));
    };
    let bytes = usize::try_from(mib)
        .unwrap_or(usize::MAX)
        .saturating_mul(1 << 20);
    let mut block: Vec<u8> = Vec::with_capacity(bytes);
    block.resize(bytes, 0x5a);
    std::hint::black_box(&block);
    drop(block);
    ctx.finish(1, [])
}

/// Aborts the process that runs the call.
fn abort(_ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    std::process::abort()
}

const fn fault(name: &'static str, inputs: u16, exec: ajisai_core::word::Exec) -> WordSpec {
    WordSpec {
        nil_policy: NilPolicy::RejectNil,
        purity: Purity::Effectful,
        summary: "A fault for tests of the server's isolation (feature fault-injection).",
        ..WordSpec::basic(name, Family::Control, inputs, 0, exec)
    }
}

/// `FAULT-SPIN`
pub const FAULT_SPIN: WordSpec = WordSpec {
    syntax: "FAULT-SPIN",
    stack_effect: "( -- )",
    ..fault("FAULT-SPIN", 0, spin)
};

/// `FAULT-HOG`
pub const FAULT_HOG: WordSpec = WordSpec {
    syntax: "n FAULT-HOG",
    stack_effect: "( n -- )",
    ..fault("FAULT-HOG", 1, hog)
};

/// `FAULT-ABORT`
pub const FAULT_ABORT: WordSpec = WordSpec {
    syntax: "FAULT-ABORT",
    stack_effect: "( -- )",
    ..fault("FAULT-ABORT", 0, abort)
};

/// Whether this process asked for the fault Words.
fn enabled() -> bool {
    std::env::var(FAULT_INJECTION_VAR).as_deref() == Ok("1")
}

inventory::submit! {
    GatedRegistration {
        module: "fault-injection",
        words: &[FAULT_ABORT, FAULT_HOG, FAULT_SPIN],
        enabled,
    }
}

/// Keeps this module linked (its registration is all it has).
pub fn link() {}
