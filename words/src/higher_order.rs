//! Higher-order Words (`higherOrder`): MAP, FILTER, FOLD, ANY and ALL.
//!
//! Each walks the outermost elements of a Vector and evaluates its code operand once
//! per element in a fresh isolated frame (docs/reference/frames.md#isolation-of-block-frames). The
//! walk is a [`Resume`] state machine: the executor validates, leaves its operands where they are,
//! pushes the first element above them and hands the block to the machine; every resume reads the
//! frame's top, drops the frame and either starts the next element or finishes. Nothing recurses
//! natively, so a block that itself maps (or a User Word that recurses through MAP) is bounded by
//! steps, not by the native stack.
//!
//! Because the operands stay on the stack until the walk finishes, putting them back
//! on an ERROR (docs/reference/errors.md#the-stack-after-an-error) is only a matter of dropping the
//! frame: the collection, the block and FOLD's initial accumulator are still there, each exactly
//! once.

use crate::support::{base, describe};
use ajisai_core::code::Block;
use ajisai_core::outcome::{err, ErrorCategory, LangError};
use ajisai_core::price;
use ajisai_core::value::{Value, Vector};
use ajisai_core::word::{
    ex, ex_prints, Family, FamilyRegistration, FieldRule, Flow, NilPolicy, Purity, Resume, Tier,
    WordSpec,
};
use ajisai_core::{Ctx, Halt};
use std::sync::Arc;

/// Which higher-order Word a walk belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Filter,
    Fold,
    Any,
    All,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Map => "MAP",
            Kind::Filter => "FILTER",
            Kind::Fold => "FOLD",
            Kind::Any => "ANY",
            Kind::All => "ALL",
        }
    }

    /// Operands the Word reads: `v code`, or `v init code` for FOLD.
    fn arity(self) -> usize {
        if self == Kind::Fold {
            3
        } else {
            2
        }
    }

    /// Whether the block is a predicate that must leave a Boolean on top.
    fn is_predicate(self) -> bool {
        matches!(self, Kind::Filter | Kind::Any | Kind::All)
    }
}

/// The code operand (docs/words/higherOrder.md): a CodeBlock as is, or a String naming a Word,
/// resolved to a one-token block applying it (so each application costs a step).
fn code_operand(ctx: &Ctx<'_>, kind: Kind, v: &Value) -> Result<Arc<Block>, LangError> {
    match v {
        Value::Block(b) => Ok(b.clone()),
        Value::Str(name) => ctx.code_from_name(name).map_err(|mut e| {
            let shown = if name.trim().is_empty() { format!("'{name}'") } else { name.to_string() };
            e.message = format!(
                "Unknown word: {shown}; the String code operand of {} must name a Core or User Word \
                 (not KEEP, VENT, IDLE or a binding), or pass a CodeBlock",
                kind.name()
            );
            e.suggesting_near(&**name)
        }),
        other => Err(err::type_mismatch(format!(
            "{} needs a CodeBlock (or a String naming a Word) on top, got {}",
            kind.name(),
            describe(other)
        ))),
    }
}

/// The state of one walk between element evaluations.
struct Walk {
    kind: Kind,
    block: Arc<Block>,
    items: Vector,
    /// Index of the element whose evaluation is running.
    index: usize,
    /// Mapped or selected elements so far (MAP, FILTER).
    out: Vec<Value>,
    /// The accumulator (FOLD; a placeholder for the other Words).
    acc: Value,
    /// The invocation was under KEEP (the resume context does not carry it).
    keep: bool,
}

impl Walk {
    /// Push the current element's frame contents at `base` and ask for the block, after
    /// charging the visit (docs/reference/pricing-and-limits.md#collectionwork: a visit costs
    /// the same whatever the block holds, so a block of no Words is not free).
    fn visit(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) -> Result<Flow, Halt> {
        debug_assert_eq!(ctx.stack_len(), base);
        ctx.charge_collection(price::VISIT)?;
        if self.kind == Kind::Fold {
            ctx.push(self.acc.clone());
        }
        ctx.push(self.items.items()[self.index].clone());
        let block = self.block.clone();
        Ok(ctx.run_isolated(block, base, self))
    }

    /// The element description used in messages.
    fn element(&self) -> String {
        format!(
            "element {} of {} (index {})",
            self.index + 1,
            self.items.len(),
            self.index
        )
    }

    /// The walk visited every element: conclude with its result.
    fn finish(self, ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
        let kind = self.kind;
        let keep = self.keep;
        let result = match kind {
            Kind::Map | Kind::Filter => Value::vector(self.out),
            Kind::Fold => self.acc,
            Kind::Any => Value::Bool(false),
            Kind::All => Value::Bool(true),
        };
        conclude(ctx, kind, keep, result)
    }
}

/// Consume the operands (only the block, and FOLD's initial accumulator, under
/// KEEP: the higher-order exception of docs/reference/keep.md) and push the result.
fn conclude(ctx: &mut Ctx<'_>, kind: Kind, keep: bool, result: Value) -> Result<Flow, Halt> {
    ctx.measure_result(&result)?;
    let consumed = if keep { kind.arity() - 1 } else { kind.arity() };
    for _ in 0..consumed {
        ctx.pop();
    }
    ctx.push(result);
    Ok(Flow::Done)
}

impl Resume for Walk {
    fn resume(mut self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) -> Result<Flow, Halt> {
        let top = ctx.frame_values(base).last().cloned();
        ctx.truncate(base);
        let Some(top) = top else {
            let what = match self.kind {
                Kind::Map => "the mapped value",
                Kind::Fold => "the next accumulator",
                _ => "TRUE or FALSE",
            };
            return Err(err::block_violation(format!(
                "the {} block left no value for {}; it must leave {what} on top",
                self.kind.name(),
                self.element()
            ))
            .into());
        };
        if self.kind.is_predicate() {
            let Some(verdict) = top.as_bool() else {
                return Err(err::block_violation(format!(
                    "the {} predicate must leave a Boolean on top, but left {} for {}",
                    self.kind.name(),
                    describe(&top),
                    self.element()
                ))
                .into());
            };
            match self.kind {
                Kind::Filter if verdict => {
                    let e = self.items.items()[self.index].clone();
                    self.out.push(e);
                }
                // Short-circuit: later elements are not visited.
                Kind::Any if verdict => {
                    return conclude(ctx, Kind::Any, self.keep, Value::Bool(true))
                }
                Kind::All if !verdict => {
                    return conclude(ctx, Kind::All, self.keep, Value::Bool(false))
                }
                _ => {}
            }
        } else if self.kind == Kind::Map {
            self.out.push(top);
        } else {
            self.acc = top;
        }
        self.index += 1;
        if self.index == self.items.len() {
            return (*self).finish(ctx);
        }
        self.visit(ctx, base)
    }

    fn unwind(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) {
        // The operands were never moved: dropping the frame puts them back
        // (docs/reference/errors.md#the-stack-after-an-error).
        ctx.truncate(base);
    }
}

fn walk(ctx: &mut Ctx<'_>, kind: Kind) -> Result<Flow, Halt> {
    let arity = kind.arity();
    ctx.need(arity)?;
    let block = code_operand(ctx, kind, ctx.peek(0))?;
    let keep = ctx.keep();
    let items = match ctx.peek(arity - 1) {
        Value::Vector(v) => v.clone(),
        nil @ Value::Nil(_) => {
            let answer = match kind {
                Kind::Map | Kind::Filter => nil.clone(),
                Kind::Fold => ctx.peek(1).clone(),
                Kind::Any => Value::Bool(false),
                Kind::All => Value::Bool(true),
            };
            return conclude(ctx, kind, keep, answer);
        }
        other => {
            return Err(err::type_mismatch(format!(
                "{} walks a Vector, got {}{}",
                kind.name(),
                describe(other),
                if other.as_str().is_some() {
                    " (use CHARS to walk a String's characters)"
                } else {
                    ""
                }
            ))
            .into())
        }
    };
    let acc = if kind == Kind::Fold {
        ctx.peek(1).clone()
    } else {
        Value::Bool(false)
    };
    let mut walk = Box::new(Walk {
        kind,
        block,
        items,
        index: 0,
        out: Vec::new(),
        acc,
        keep,
    });
    if walk.items.is_empty() {
        return (*walk).finish(ctx);
    }
    // Compile a block built by REFLECT once, not per element; only code that is
    // about to run is checked, so an empty walk never inspects it.
    ctx.compile(&walk.block)?;
    if kind == Kind::Map {
        walk.out.reserve_exact(walk.items.len());
    }
    let base = ctx.stack_len();
    walk.visit(ctx, base)
}

fn map(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    walk(ctx, Kind::Map)
}

fn filter(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    walk(ctx, Kind::Filter)
}

fn fold(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    walk(ctx, Kind::Fold)
}

fn any(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    walk(ctx, Kind::Any)
}

fn all(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    walk(ctx, Kind::All)
}

const WALK_ERRORS: &[ErrorCategory] = &[
    ErrorCategory::TypeMismatch,
    ErrorCategory::UnknownWord,
    ErrorCategory::BlockViolation,
];

/// `MAP`
pub const MAP: WordSpec = WordSpec {
    field_rule: FieldRule::OpenUnlessBlockLiteral,
    tier: Tier::Standard,
    nil_policy: NilPolicy::ConsumeNil,
    purity: Purity::Conditional,
    errors: WALK_ERRORS,
    summary: "Evaluate the code on each element of a Vector in its own isolated frame; the tops it leaves form the result Vector.",
    syntax: "v { code } MAP   or   v 'WORD' MAP",
    stack_effect: "( v code -- w )",
    examples: &[
        ex("[ 1 2 3 ] { 2 * } MAP", "[ 2/1 4/1 6/1 ]"),
        ex("[ 1 2 3 ] 'NEG' MAP", "[ -1/1 -2/1 -3/1 ]"),
        ex("[ [ 1 2 ] [ 3 ] ] { LENGTH } MAP", "[ 2/1 1/1 ]"),
        ex("[ 1 2 ] { 1 0 / } MAP", "[ NIL NIL ]"),
    ],
    rules: r#"`v code MAP` ( v code -- w ). w[i] is the top value the block leaves for v[i] (whatever its
domain — a one-element Vector stays a Vector). NIL: a NIL collection gives that NIL (same
reason); `[ ]` gives `[ ]`."#,
    ..base("MAP", Family::HigherOrder, 2, 1, map)
};

/// `FILTER`
pub const FILTER: WordSpec = WordSpec {
    field_rule: FieldRule::OpenUnlessBlockLiteral,
    tier: Tier::Standard,
    nil_policy: NilPolicy::ConsumeNil,
    purity: Purity::Conditional,
    errors: WALK_ERRORS,
    summary: "Keep, in order, the elements of a Vector for which the predicate leaves TRUE on top of its isolated frame.",
    syntax: "v { predicate } FILTER   or   v 'WORD' FILTER",
    stack_effect: "( v pred -- w )",
    examples: &[
        ex("[ 1 2 3 ] { 2 MOD 1 = } FILTER", "[ 1/1 3/1 ]"),
        ex("[ 0 10 ] RANGE { 5 > } FILTER", "[ 6/1 7/1 8/1 9/1 10/1 ]"),
        ex("[ 'a' 'b' ] { 'b' = } FILTER", "[ 'b' ]"),
        ex("[ 1 2 3 ] { 1 } FILTER", "error:blockViolation"),
    ],
    rules: r#"`v pred FILTER` ( v pred -- w ). The elements (in order) for which the predicate's top value is
TRUE. The predicate must leave a Boolean (a Number, a one-element Vector or a NIL is
`blockViolation`). NIL: a NIL collection gives that NIL; `[ ]` gives `[ ]`."#,
    ..base("FILTER", Family::HigherOrder, 2, 1, filter)
};

/// `FOLD`
pub const FOLD: WordSpec = WordSpec {
    field_rule: FieldRule::OpenUnlessBlockLiteral,
    nil_policy: NilPolicy::ConsumeNil,
    purity: Purity::Conditional,
    errors: WALK_ERRORS,
    summary: "Thread an accumulator through a Vector: each element's isolated frame holds the accumulator then the element, and the top it leaves is the next accumulator.",
    syntax: "v init { code } FOLD   or   v init 'WORD' FOLD",
    stack_effect: "( v init code -- acc )",
    examples: &[
        ex("[ 1 2 3 ] [ 0 ] { + } FOLD", "[ 6/1 ]"),
        ex("[ 1 2 3 ] 0 { + } FOLD", "6/1"),
        ex("[ 1 2 3 ] 0 'ADD' FOLD", "6/1"),
        ex("[ 1 2 3 ] { + } FOLD", "error:stackUnderflow"),
    ],
    rules: r#"`v init code FOLD` ( v init code -- acc ). acc := init; for each element e in order, the block
runs on a fresh frame holding acc then e, and its top value becomes acc; the result is the
final acc. init may be any value, NIL included. NIL: a NIL collection gives init unchanged; `[
]` gives init. KEEP: keeps v only (init and the block are consumed)."#,
    ..base("FOLD", Family::HigherOrder, 3, 1, fold)
};

/// `ANY`
pub const ANY: WordSpec = WordSpec {
    field_rule: FieldRule::OpenUnlessBlockLiteral,
    tier: Tier::Standard,
    nil_policy: NilPolicy::ConsumeNil,
    purity: Purity::Conditional,
    errors: WALK_ERRORS,
    summary: "TRUE iff the predicate leaves TRUE for some element; stops at the first TRUE.",
    syntax: "v { predicate } ANY   or   v 'WORD' ANY",
    stack_effect: "( v pred -- bool )",
    examples: &[
        ex("[ 1 2 3 ] { 1 > } ANY", "TRUE"),
        ex_prints("[ 1 2 3 ] { PRINT TRUE } ANY", "TRUE", &["1/1"]),
        ex("[ ] { TRUE } ANY", "FALSE"),
        ex("[ 1 2 3 ] { 1 } ANY", "error:blockViolation"),
    ],
    rules: r#"`v pred ANY` ( v pred -- bool ). TRUE iff the predicate leaves TRUE for some element;
evaluation stops at the first TRUE (later elements are not visited). NIL: a NIL collection
gives FALSE; `[ ]` gives FALSE."#,
    ..base("ANY", Family::HigherOrder, 2, 1, any)
};

/// `ALL`
pub const ALL: WordSpec = WordSpec {
    field_rule: FieldRule::OpenUnlessBlockLiteral,
    tier: Tier::Standard,
    nil_policy: NilPolicy::ConsumeNil,
    purity: Purity::Conditional,
    errors: WALK_ERRORS,
    summary: "TRUE iff the predicate leaves TRUE for every element; stops at the first FALSE.",
    syntax: "v { predicate } ALL   or   v 'WORD' ALL",
    stack_effect: "( v pred -- bool )",
    examples: &[
        ex("[ 2 4 ] { 2 MOD 0 = } ALL", "TRUE"),
        ex("[ 1 2 3 ] { 1 > } ALL", "FALSE"),
        ex_prints("[ 1 2 3 ] { PRINT FALSE } ALL", "FALSE", &["1/1"]),
        ex("[ TRUE 1 ] { } ALL", "error:blockViolation"),
    ],
    rules: r#"`v pred ALL` ( v pred -- bool ). TRUE iff the predicate leaves TRUE for every element;
evaluation stops at the first FALSE. NIL: a NIL collection gives TRUE; `[ ]` gives TRUE."#,
    ..base("ALL", Family::HigherOrder, 2, 1, all)
};

inventory::submit! {
    FamilyRegistration {
        module: "higher_order",
        words: &[MAP, FILTER, FOLD, ANY, ALL],
        family_rules: &[
            (
                Family::HigherOrder,
                r#"`MAP`, `FILTER`, `FOLD`, `ANY`, `ALL` walk the outermost elements of a Vector in index order
and evaluate a **code operand** once per visited element, each time in a fresh isolated frame
([isolated frames](../reference/frames.md#isolation-of-block-frames)) that sees only its
operands and the bindings visible where the Word runs ([frames and
bindings](../reference/frames.md)). The code operand is a CodeBlock, or a String naming a Core
or User Word (resolved like a source name, aliases and case included); the named Word is
applied to the frame, one execution step per application ([execution
steps](../reference/pricing-and-limits.md#execution-steps)). `VENT`/`^` (a directive), `KEEP`,
`IDLE`, binding names and any other String that names no Word are `unknownWord`. The block's
effects (output, definitions) happen in visiting order. Under `KEEP` only the collection is
kept ([KEEP](../reference/keep.md)). On any ERROR the walk stops and the operands are put back
([the stack after an ERROR](../reference/errors.md#the-stack-after-an-error)). Field: `closed`
(the block is an input).

Checks, before anything is visited and in this order (a per-Word deviation from [order of
checks](../reference/errors.md#order-of-checks)): the code operand — `typeMismatch` if it is
neither a CodeBlock nor a String (NIL included), `unknownWord` if a String names no Word — then
the collection: a NIL collection gives the Word's NIL answer below, anything else that is not a
Vector (a String included) is `typeMismatch`. So `5 'FOO' MAP` is `unknownWord` and `NIL 5 MAP`
`typeMismatch`. During the walk: `blockViolation` when an evaluation leaves no value (or, for
predicates, a non-Boolean top); any error raised inside the block propagates."#,
            ),
        ],
    }
}
