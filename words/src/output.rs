//! Output (`output`): PRINT, the only Word that emits output lines (docs/words/output.md).

use crate::support::base;
use ajisai_core::display::{display_lower_bound, display_polled};
use ajisai_core::price;
use ajisai_core::value::Value;
use ajisai_core::word::{
    ex, ex_prints, Family, FamilyRegistration, Flow, NilPolicy, Purity, WordSpec,
};
use ajisai_core::{Ctx, Halt};

fn print(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.need(1)?;
    let v = ctx.peek(0).clone();
    // The walk and the decimal digits, up front from the weights
    // (docs/reference/pricing-and-limits.md#text).
    let w = v.weight();
    ctx.charge_collection(price::written(&w))?;
    if w.decimal_price > 0 {
        ctx.charge_numeric(w.decimal_price)?;
    }
    let line = match &v {
        Value::Str(s) => s.to_string(),
        other => {
            // A line the host could not hold is refused before it is written.
            let meter = ctx.meter();
            meter.reserve(display_lower_bound(other))?;
            display_polled(other, &mut |units| meter.tick(units))?
        }
    };
    ctx.print(line);
    ctx.finish(1, [])
}

/// `PRINT`
pub const PRINT: WordSpec = WordSpec {
    nil_policy: NilPolicy::PreserveReason,
    purity: Purity::Effectful,
    summary: "Append one output line: a String's raw content, or any other value's display.",
    syntax: "x PRINT",
    stack_effect: "( x -- )",
    examples: &[
        ex_prints("42 PRINT", "(empty)", &["42/1"]),
        ex_prints("'TEST' PRINT", "(empty)", &["TEST"]),
        ex_prints("[ 'a' 1 ] PRINT", "(empty)", &["[ 'a' 1/1 ]"]),
        ex("PRINT", "error:stackUnderflow"),
    ],
    rules: r#"`x PRINT` ( x -- ). Appends one output line ([output](output.md#print)): a top-level String
prints its raw content; everything else prints its display with brackets for Vectors (an
algebraic Number prints its canonical form). NIL: an ordinary operand, printed as `NIL` (no
reason). Never fails (besides underflow). KEEP: x stays. Effect: output."#,
    ..base("PRINT", Family::Output, 1, 0, print)
};

inventory::submit! {
    FamilyRegistration {
        module: "output",
        words: &[PRINT],
        family_rules: &[],
    }
}
