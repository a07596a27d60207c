//! The machine tested on its own, with a minimal vocabulary defined here (like rhai's
//! `Engine::new_raw`): frames, User Words and tail calls, KEEP, VENT, bindings,
//! DEF/DEL, a conditional, the generic NIL policy, blocks compiled when they first run,
//! limits, interrupts and error precedence. Nothing here links `ajisai-words`, so the
//! process-wide registry is empty and every Word below comes from [`VOCABULARY`].

use ajisai_core::code::Block;
use ajisai_core::display::stack_line;
use ajisai_core::lexer::{Delim, Tok, TokKind};
use ajisai_core::limits::{Halt, InterruptFlag, Limit, Profile, CHECK_EVERY_UNITS};
use ajisai_core::number::Number;
use ajisai_core::outcome::{err, ErrorCategory, NilReason};
use ajisai_core::parser::{build, check_structure};
use ajisai_core::value::Value;
use ajisai_core::word::{
    Arity, Consumption, Family, Flow, NilPolicy, Registry, Resume, Role, Run, WordSpec,
};
use ajisai_core::{Ctx, Machine};
use std::sync::{Arc, OnceLock};

/// A spec with the defaults the tests need: fixed arity, NIL passed through.
const fn word(
    name: &'static str,
    inputs: u16,
    outputs: u16,
    exec: fn(&mut Ctx<'_>) -> Result<Flow, Halt>,
) -> WordSpec {
    WordSpec::basic(name, Family::ExactArithmetic, inputs, outputs, exec)
}

fn number(ctx: &Ctx<'_>, i: usize) -> Result<Number, Halt> {
    match ctx.peek(i) {
        Value::Number(n) => Ok(n.clone()),
        other => Err(err::type_mismatch(format!("needs a Number, got {other:?}")).into()),
    }
}

fn add(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let (a, b) = (number(ctx, 1)?, number(ctx, 0)?);
    ctx.consume_and_push(2, Value::Number(a.add(&b)))
}

fn sub(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let (a, b) = (number(ctx, 1)?, number(ctx, 0)?);
    ctx.consume_and_push(2, Value::Number(a.sub(&b)))
}

fn positive(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let n = number(ctx, 0)?;
    ctx.consume_and_push(1, Value::Bool(n.signum() > 0))
}

fn drop_top(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.finish(1, [])
}

fn frames(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let depth = ctx.frame_depth();
    ctx.push(Value::num(depth as i64));
    Ok(Flow::Done)
}

fn print(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let line = stack_line(std::slice::from_ref(ctx.peek(0)));
    ctx.print(line);
    ctx.finish(1, [])
}

fn nothing(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.push(Value::Nil(NilReason::DivisionByZero));
    Ok(Flow::Done)
}

fn keep(_ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    Ok(Flow::Done)
}

fn block_at(ctx: &Ctx<'_>, i: usize) -> Result<Arc<Block>, Halt> {
    match ctx.peek(i) {
        Value::Block(b) => Ok(b.clone()),
        other => Err(err::type_mismatch(format!("needs a CodeBlock, got {other:?}")).into()),
    }
}

fn string_at(ctx: &Ctx<'_>, i: usize) -> Result<Arc<str>, Halt> {
    match ctx.peek(i) {
        Value::Str(s) => Ok(s.clone()),
        other => Err(err::type_mismatch(format!("needs a String, got {other:?}")).into()),
    }
}

/// `block DO`: run the block on the whole stack.
fn run(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let block = block_at(ctx, 0)?;
    ctx.compile(&block)?;
    ctx.pop();
    Ok(Flow::Run(Run {
        block,
        isolated_base: None,
        then: None,
        keep_restore: ctx.keep(),
        tail_of: None,
    }))
}

/// `body 'NAME' DEF`
fn def(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let (body, name) = (block_at(ctx, 1)?, string_at(ctx, 0)?);
    ctx.dictionary_mut()
        .define(name.to_uppercase().into(), body)?;
    ctx.finish(2, [])
}

/// `'NAME' DEL`
fn del(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let name = string_at(ctx, 0)?;
    ctx.dictionary_mut().delete(&name.to_uppercase())?;
    ctx.finish(1, [])
}

/// `value 'name' BIND`
fn bind(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let name = string_at(ctx, 0)?;
    let value = ctx.peek(1).clone();
    ctx.pop();
    ctx.pop();
    ctx.bind(name.to_uppercase().into(), value);
    Ok(Flow::Done)
}

/// `target flag { then } { else } IF`: the flag (TRUE or FALSE) chooses a block, which
/// runs in an isolated frame holding only the target; its top value is the result,
/// and a self-call ending it is a tail call (the protocol COND follows).
fn if_word(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    let (then, otherwise) = (block_at(ctx, 1)?, block_at(ctx, 0)?);
    let Some(choice) = ctx.peek(2).as_bool() else {
        return Err(err::type_mismatch("IF needs a Boolean below its blocks").into());
    };
    let target = ctx.peek(3).clone();
    ctx.finish(4, [])?;
    let base = ctx.stack_len();
    ctx.push(target);
    Ok(Flow::Run(Run {
        block: if choice { then } else { otherwise },
        isolated_base: Some(base),
        then: Some(Box::new(TakeTop)),
        keep_restore: false,
        tail_of: ctx.tail_word(),
    }))
}

/// `target { guard | body } … CHOOSE`: the clause reader of this vocabulary (its role
/// says so; the machine runs the selection), with `ALWAYS` as its else-guard.
fn choose(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    ctx.select_clauses()
}

/// IF's continuation: keep the top value of the chosen block.
struct TakeTop;

impl Resume for TakeTop {
    fn resume(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) -> Result<Flow, Halt> {
        let top = ctx.frame_values(base).last().cloned();
        ctx.truncate(base);
        match top {
            Some(v) => {
                ctx.push(v);
                Ok(Flow::Done)
            }
            None => Err(err::block_violation("the IF block left no value").into()),
        }
    }

    fn unwind(self: Box<Self>, ctx: &mut Ctx<'_>, base: usize) {
        ctx.truncate(base);
    }
}

thread_local! {
    /// How many [`Counted`] continuations this thread has dropped.
    static COUNTED_DROPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The flag `RAISE` raises: the host's deadline, reached from inside a run.
    static RAISED_BY_WORD: InterruptFlag = InterruptFlag::new();
}

/// `block GUARDED`: runs the block with a continuation that counts its drops, so a test
/// sees when a stopped run's frames are freed.
fn guarded(ctx: &mut Ctx<'_>) -> Result<Flow, Halt> {
    Ok(match run(ctx)? {
        Flow::Run(r) => Flow::Run(Run {
            then: Some(Box::new(Counted)),
            ..r
        }),
        other => other,
    })
}

/// GUARDED's continuation: nothing to do but be dropped.
struct Counted;

impl Resume for Counted {
    fn resume(self: Box<Self>, _: &mut Ctx<'_>, _: usize) -> Result<Flow, Halt> {
        Ok(Flow::Done)
    }

    fn unwind(self: Box<Self>, _: &mut Ctx<'_>, _: usize) {}
}

impl Drop for Counted {
    fn drop(&mut self) {
        COUNTED_DROPS.with(|c| c.set(c.get() + 1));
    }
}

/// `RAISE`: raises this thread's [`RAISED_BY_WORD`] flag, as a deadline would.
fn raise(_: &mut Ctx<'_>) -> Result<Flow, Halt> {
    RAISED_BY_WORD.with(InterruptFlag::raise);
    Ok(Flow::Done)
}

const VOCABULARY: &[WordSpec] = &[
    word("ADD", 2, 1, add),
    word("SUB", 2, 1, sub),
    word("POSITIVE", 1, 1, positive),
    word("DROP", 1, 0, drop_top),
    word("FRAMES", 0, 1, frames),
    word("PRINT", 1, 0, print),
    word("NOTHING", 0, 1, nothing),
    word("RAISE", 0, 0, raise),
    WordSpec {
        inputs: Arity::Variable,
        outputs: Arity::Variable,
        nil_policy: NilPolicy::RejectNil,
        ..word("GUARDED", 1, 0, guarded)
    },
    WordSpec {
        consumption: Consumption::None,
        role: Role::Modifier,
        ..word("KEEP", 0, 0, keep)
    },
    WordSpec {
        inputs: Arity::Variable,
        outputs: Arity::Variable,
        nil_policy: NilPolicy::RejectNil,
        ..word("DO", 1, 0, run)
    },
    WordSpec {
        nil_policy: NilPolicy::RejectNil,
        role: Role::Defines,
        ..word("DEF", 2, 0, def)
    },
    WordSpec {
        nil_policy: NilPolicy::RejectNil,
        ..word("DEL", 1, 0, del)
    },
    WordSpec {
        nil_policy: NilPolicy::ConsumeNil,
        role: Role::Binds,
        ..word("BIND", 2, 0, bind)
    },
    WordSpec {
        nil_policy: NilPolicy::RejectNil,
        ..word("IF", 4, 1, if_word)
    },
    WordSpec {
        inputs: Arity::Variable,
        nil_policy: NilPolicy::ConsumeNil,
        role: Role::ReadsClauses {
            else_guard: "ALWAYS",
        },
        ..word("CHOOSE", 0, 1, choose)
    },
];

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::new(VOCABULARY))
}

fn machine(profile: Profile) -> Machine {
    Machine::new(profile, registry())
}

/// Run `source` on a fresh machine: the stack line, or the error's category id.
fn run_source(source: &str) -> String {
    outcome(&mut machine(Profile::CLI_LOCAL), source)
}

fn outcome(m: &mut Machine, source: &str) -> String {
    match m.run_source(source) {
        Ok(()) => stack_line(m.stack()),
        Err(Halt::Error(e)) => format!("error:{}", e.category.id()),
        Err(Halt::Interrupted(_)) => "interrupted".to_string(),
    }
}

#[test]
fn the_vocabulary_is_the_one_given_and_sound() {
    assert!(
        registry().problems().is_empty(),
        "{:?}",
        registry().problems()
    );
    assert_eq!(registry().specs().len(), VOCABULARY.len());
    assert!(registry().keep_id().is_some());
    assert!(
        ajisai_core::word::registry().specs().is_empty(),
        "core links no Words"
    );
}

#[test]
fn literals_and_core_words_run_on_one_stack() {
    assert_eq!(run_source("1 2 ADD"), "3/1");
    assert_eq!(
        run_source("'a' [ 1 x TRUE ] { 2 }"),
        "'a' | [ 1/1 'x' TRUE ] | { 2 }"
    );
    assert_eq!(
        run_source("1 2 +"),
        "3/1",
        "the symbolic aliases are syntax (docs/reference/lexical.md#names-and-case)"
    );
    assert_eq!(
        run_source("1 2 MUL"),
        "error:unknownWord",
        "only the given Words exist"
    );
    assert_eq!(run_source("1 ADD"), "error:stackUnderflow");
}

#[test]
fn user_words_are_defined_called_and_deleted() {
    assert_eq!(run_source("{ 1 ADD } 'INC' DEF 5 INC INC"), "7/1");
    assert_eq!(
        run_source("{ 1 ADD } 'INC' DEF { INC INC } 'TWICE' DEF 'INC' DEL"),
        "error:dictionaryViolation",
        "a Word others depend on stays"
    );
    assert_eq!(
        run_source("{ 1 ADD } 'INC' DEF 'INC' DEL 1 INC"),
        "error:unknownWord"
    );
}

#[test]
fn keep_restores_what_the_word_consumed() {
    assert_eq!(run_source("1 2 KEEP ADD"), "1/1 | 2/1 | 3/1");
    assert_eq!(run_source("1 2 KEEP { ADD } DO"), "1/1 | 2/1 | 3/1");
}

#[test]
fn vent_drops_a_nil_and_runs_the_fallback_else_skips_it() {
    assert_eq!(run_source("NOTHING ^ 6"), "6/1");
    assert_eq!(run_source("5 ^ 6"), "5/1");
    assert_eq!(
        run_source("5 ^ 6 7"),
        "5/1 | 7/1",
        "only the fallback unit is skipped"
    );
    assert_eq!(run_source("^ 6"), "error:stackUnderflow");
    assert_eq!(
        run_source("5 0 0 POSITIVE { DROP ^ 6 } { DROP ^ 6 } IF"),
        "error:stackUnderflow",
        "an isolated frame sees nothing below it"
    );
}

#[test]
fn nil_operands_pass_through_fixed_arity_words() {
    assert_eq!(run_source("NOTHING 1 ADD"), "NIL");
    assert_eq!(run_source("1 NOTHING SUB"), "NIL");
    assert_eq!(
        run_source("1 NOTHING { 1 } { 2 } IF"),
        "error:typeMismatch",
        "IF rejects NIL"
    );
}

#[test]
fn bindings_are_seen_by_their_frame_and_blocks_run_in_it_not_by_user_words() {
    assert_eq!(run_source("7 'x' BIND x x ADD"), "14/1");
    assert_eq!(run_source("7 'x' BIND { x 1 ADD } DO"), "8/1");
    assert_eq!(
        run_source("{ x } 'F' DEF 7 'x' BIND F"),
        "error:unknownWord"
    );
}

/// The frame depth a countdown of `n` reports at its end.
fn depth_after(word: &str, n: u32) -> String {
    run_source(&format!("{word} {n} CD"))
}

#[test]
fn a_self_call_ending_the_chosen_block_is_a_tail_call() {
    let tail = "{ KEEP POSITIVE { 1 SUB CD } { DROP FRAMES } IF } 'CD' DEF";
    let shallow = depth_after(tail, 0);
    assert!(shallow.ends_with("/1"), "{shallow}");
    for n in [1, 100_000] {
        assert_eq!(
            depth_after(tail, n),
            shallow,
            "the depth does not grow ({n})"
        );
    }
    let not_tail = "{ KEEP POSITIVE { 1 SUB CD 0 ADD } { DROP FRAMES } IF } 'CD' DEF";
    assert_eq!(depth_after(not_tail, 0), shallow);
    assert_ne!(
        depth_after(not_tail, 50),
        shallow,
        "a call that is not last nests"
    );
    assert_eq!(
        run_source("{ KEEP POSITIVE { 1 SUB KEEP CD } { } IF } 'CD' DEF 3 CD"),
        "0/1",
        "a self-call under KEEP is not a tail call, and still right"
    );
}

/// A tail-call loop owes one completion: its clause reader's own continuation (IF's
/// here, no name known to core) runs once at the end over the lowest base, so what
/// lay below the first call survives and the result is the last block's top.
#[test]
fn a_tail_loop_completes_through_its_first_continuation() {
    let cd = "{ KEEP POSITIVE { 1 SUB CD } { DROP 42 } IF } 'CD' DEF";
    assert_eq!(run_source(&format!("{cd} 5 3 CD")), "5/1 | 42/1");
    assert_eq!(run_source(&format!("{cd} 5 100000 CD")), "5/1 | 42/1");
    let empty = "{ KEEP POSITIVE { 1 SUB CD } { DROP } IF } 'CD' DEF";
    assert_eq!(
        run_source(&format!("{empty} 5 3 CD")),
        "error:blockViolation",
        "the last block leaves nothing"
    );
}

#[test]
fn a_block_that_leaves_nothing_is_a_block_violation() {
    assert_eq!(
        run_source("0 1 POSITIVE { DROP } { } IF"),
        "error:blockViolation"
    );
    assert_eq!(run_source("0 0 POSITIVE { DROP } { 1 } IF"), "1/1");
    assert_eq!(
        run_source("7 0 POSITIVE { } { } IF"),
        "7/1",
        "the frame holds the target"
    );
}

#[test]
fn blocks_built_from_tokens_compile_when_they_first_run() {
    let token = |kind| Tok { kind, pos: None };
    let tokens = vec![
        token(TokKind::Number("2".into())),
        token(TokKind::Open(Delim::Vector)),
        token(TokKind::Number("1".repeat(5_000))),
        token(TokKind::Close(Delim::Vector)),
    ];
    check_structure(&tokens).expect("balanced");
    let (over, fine) = (build(&tokens), build(&tokens[..1]));
    assert!(over.compiled().is_none(), "building compiles nothing");
    let mut m = machine(Profile::CLI_LOCAL);
    let dict = m.dictionary_mut();
    dict.define("OVER".into(), over.clone()).expect("defined");
    dict.define("FINE".into(), fine.clone()).expect("defined");
    match m.run_source("1 OVER") {
        Err(Halt::Error(e)) => {
            assert_eq!(e.category, ErrorCategory::ResourceLimitExceeded);
            assert_eq!(e.resource, Some(Limit::NumericLiteralDigits.name()));
            assert_eq!(e.word.as_deref(), Some("OVER"));
        }
        other => panic!("expected the digit limit, got {other:?}"),
    }
    assert!(
        over.compiled().is_none(),
        "a refused compile stores nothing"
    );
    let mut m = machine(Profile::CLI_LOCAL);
    m.dictionary_mut()
        .define("FINE".into(), fine.clone())
        .expect("defined");
    m.run_source("FINE FINE ADD").expect("runs");
    assert_eq!(stack_line(m.stack()), "4/1");
    assert!(
        fine.compiled().is_some(),
        "compiled once, kept in the block"
    );
}

#[test]
fn execution_steps_are_refused_one_past_the_limit() {
    let profile = Profile::CLI_LOCAL.with(Limit::ExecutionSteps, 3);
    assert_eq!(
        outcome(&mut machine(profile.clone()), "1 1 ADD 1 ADD 1 ADD"),
        "4/1"
    );
    let mut m = machine(profile);
    match m.run_source("1 1 ADD 1 ADD 1 ADD 1 ADD") {
        Err(Halt::Error(e)) => {
            assert_eq!(e.category, ErrorCategory::ResourceLimitExceeded);
            assert_eq!(e.resource, Some("executionSteps"));
            assert_eq!(e.word.as_deref(), Some("ADD"));
        }
        other => panic!("expected executionSteps, got {other:?}"),
    }
    assert_eq!(m.meter().steps(), 4, "the refused step stays on the meter");
}

#[test]
fn a_raised_interrupt_stops_the_run_at_its_next_step() {
    let mut m = machine(Profile::CLI_LOCAL);
    let flag = InterruptFlag::new();
    m.meter_mut().set_interrupt(flag.clone());
    assert_eq!(outcome(&mut m, "1 2 ADD"), "3/1");
    flag.raise();
    assert_eq!(outcome(&mut m, "{ 1 ADD } 'INC' DEF 1 INC"), "interrupted");
}

/// A run stopped deep in a recursion leaves its frames to be freed after the answer
/// (`ajisai_core::value::free_after_run`), like the rest of its machine: freeing a
/// recursion 200,000 frames deep where it stopped held a stopped call's slot for 60 ms
/// (server/tests/mcp_limits.rs::a_call_past_its_deadline_gives_its_slot_back_within_100_ms).
#[test]
fn a_stopped_run_frees_its_frames_after_the_answer() {
    let mut m = machine(Profile::CLI_LOCAL);
    m.meter_mut()
        .set_interrupt(RAISED_BY_WORD.with(Clone::clone));
    ajisai_core::value::keep_after_run();
    // The meter looks at the flag every few thousand units: after RAISE, a countdown
    // (a tail loop) runs until it does.
    let countdown = "{ { POSITIVE | 1 SUB C } { ALWAYS | 0 } CHOOSE } 'C' DEF";
    let recursion =
        "{ { POSITIVE | 1 SUB { R } GUARDED } { ALWAYS | RAISE 100000 C } CHOOSE } 'R' DEF";
    let source = format!("{countdown} {recursion} 5000 R");
    assert_eq!(outcome(&mut m, &source), "interrupted");
    // Unwinding is metered work: the frames it unwinds before the meter next looks at
    // the flag are restored (and freed) as after an error; the rest wait.
    let dropped = COUNTED_DROPS.with(std::cell::Cell::get);
    assert!(
        dropped <= CHECK_EVERY_UNITS as usize,
        "{dropped} of 5000 frames were freed before the answer"
    );
    drop(ajisai_core::value::take_after_run());
    assert_eq!(COUNTED_DROPS.with(std::cell::Cell::get), 5000);
}

#[test]
fn structure_errors_precede_literal_limits_and_both_precede_running() {
    let long = "1".repeat(5_000);
    assert_eq!(run_source(&format!("{long} [")), "error:malformedSource");
    assert_eq!(
        run_source(&format!("1 PRINT {long}")),
        "error:resourceLimitExceeded"
    );
    let mut m = machine(Profile::CLI_LOCAL);
    let _ = m.run_source(&format!("1 PRINT {long}"));
    assert!(m.output().is_empty(), "nothing ran");
    assert_eq!(run_source("1 | 2"), "error:malformedSource");
    let mut m = machine(Profile::CLI_LOCAL);
    assert_eq!(
        outcome(&mut m, "{ 1 PRINT | 2 } DO"),
        "error:malformedSource"
    );
    assert!(
        m.output().is_empty(),
        "a block holding '|' is refused before it runs"
    );
}

/// The clause reader's protocol, run by the machine: the first guard that leaves TRUE
/// selects its body; guards and bodies see only the target; literal clause blocks
/// (read when they compile) and blocks reaching the Word on the stack (here through
/// DO) agree; a self-call ending the chosen body is a tail call.
#[test]
fn clause_selection_runs_guards_in_order_and_the_chosen_body() {
    let cases = [
        ("5 { POSITIVE | 1 SUB } { ALWAYS | 0 } CHOOSE", "4/1"),
        ("0 { POSITIVE | 1 SUB } { ALWAYS | 7 } CHOOSE", "7/1"),
        ("0 { POSITIVE } { 1 SUB } { ALWAYS } { 7 } CHOOSE", "7/1"),
        ("9 0 { POSITIVE | 1 } CHOOSE", "error:invalidArgument"),
        ("9 3 { 5 | 1 } CHOOSE", "error:blockViolation"),
        ("9 3 { DROP | 1 } CHOOSE", "error:blockViolation"),
        ("9 3 { ALWAYS | DROP } CHOOSE", "error:blockViolation"),
        ("9 3 KEEP { ALWAYS | 1 ADD } CHOOSE", "9/1 | 3/1 | 4/1"),
        ("{ 1 } { ALWAYS | 2 } CHOOSE", "error:invalidArgument"),
        ("{ ALWAYS | 2 } CHOOSE", "error:stackUnderflow"),
        (
            "9 4 { 1 'x' BIND ALWAYS | x ADD } CHOOSE",
            "error:unknownWord",
        ),
    ];
    for (source, expected) in cases {
        assert_eq!(run_source(source), expected, "{source}");
        let on_stack = source
            .replace("KEEP", "")
            .replace("CHOOSE", "{ CHOOSE } DO");
        if !source.contains("KEEP") {
            assert_eq!(run_source(&on_stack), expected, "{on_stack}");
        }
    }
    let cd = "{ { POSITIVE | 1 SUB CD } { ALWAYS | DROP FRAMES } CHOOSE } 'CD' DEF";
    let shallow = run_source(&format!("{cd} 0 CD"));
    assert_eq!(
        run_source(&format!("{cd} 100000 CD")),
        shallow,
        "constant depth"
    );
    assert_eq!(
        run_source("{ { POSITIVE | 1 SUB CD } { ALWAYS | 42 } CHOOSE } 'CD' DEF 5 3 CD"),
        "5/1 | 42/1"
    );
}
