//! The compiled form of a block: an immutable array of operations the machine runs.
//!
//! [`compile`] walks a token tree once, in token order, checking the literal limits
//! (`numericLiteralDigits`, `bigintBits`, `nestingDepth`) as the parser always has,
//! building every literal's value, resolving Core Words to their ids and dropping
//! line breaks. The result is kept in the block's own once-filled cell, so a block
//! compiles once however often it runs; the tokens stay as written for display,
//! equality and `REFLECT`. Source programs compile while they are parsed; blocks
//! built by `REFLECT`, and the halves COND splits clauses into, compile the same way
//! when they first run. The walk is iterative: no nesting overflows the native stack.

use crate::clauses::{self, Clauses, Reader};
use crate::code::{Block, Item, Name, Program};
use crate::limits::{exceeded, Halt, Limit, Meter, Profile};
use crate::number::literal::{self, BuildError};
use crate::number::Number;
use crate::outcome::{err, LangError, NilReason, Pos};
use crate::syntax::growth::push_bounded;
use crate::syntax::tree::{name_literal, NameLiteral};
use crate::syntax::{ParseFailure, Progress, Stopped};
use crate::value::Value;
use crate::word::{Registry, Role, WordId};
use std::sync::Arc;

/// A compiled block: its operations in order.
#[derive(Debug)]
pub struct Code {
    ops: Box<[Op]>,
    /// The index of the first clause separator, if any.
    bar: Option<usize>,
}

impl Code {
    fn new(ops: Vec<Op>) -> Code {
        let bar = ops.iter().position(|op| matches!(op.kind, OpKind::Bar));
        Code {
            ops: ops.into(),
            bar,
        }
    }

    /// The operations, in order.
    #[inline]
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Where the operations after the first clause separator start (the body of a
    /// `{ guard | body }` clause); the end when there is none.
    #[inline]
    pub fn after_bar(&self) -> usize {
        self.bar.map_or(self.ops.len(), |b| b + 1)
    }
}

/// One operation and the source position of the token it came from (the position
/// carries its origin: the caller's program or the phrasebook).
#[derive(Debug)]
pub struct Op {
    /// What to do.
    pub kind: OpKind,
    /// Where the token stands (absent for tokens built by `REFLECT`).
    pub pos: Option<Pos>,
}

/// What an operation does.
#[derive(Debug)]
pub enum OpKind {
    /// Push a literal's value: a number, a string, a vector literal or a block.
    Push(Value),
    /// Set the pending KEEP flag of the frame (the modifier costs no step).
    Keep,
    /// Run a Core Word.
    Core(WordId),
    /// Push a literal's value, then run a Core Word (`2 *`, `0 >`: one operation
    /// where a loop would take two). The position is the Word's.
    PushThenCore(Value, WordId),
    /// [`OpKind::PushThenCore`] of an integer literal that fits `i64` and a Word with
    /// an [`crate::word::IntPair`] shortcut (`1 -`, `0 >`): when the value beneath is
    /// a small integer too, the result replaces it without the literal's push.
    PushIntThenPair(Value, WordId),
    /// Push a visible binding of the name, else run the User Word of that name.
    Name(Name),
    /// VENT: drop a NIL on top, else skip the next unit.
    Vent,
    /// A clause separator outside COND: an error when reached.
    Bar,
    /// The clause reader applied to the literal clause blocks just before it.
    Select(Box<FusedSelection>),
}

/// A clause reader (a Word whose role is [`Role::ReadsClauses`]) with the literal
/// blocks written just before it, whose clauses were read when they compiled. At run
/// time it selects at once; when the value below the blocks is itself a block (the
/// reader would take it as one more clause) it pushes the blocks and runs the Word as
/// written.
#[derive(Debug)]
pub struct FusedSelection {
    /// The clause reader.
    pub word: WordId,
    /// The clauses the blocks read as.
    pub clauses: Arc<Clauses>,
    /// The pushes of the blocks, in order, for the unfused path.
    pub pushes: Box<[Op]>,
}

/// A group being compiled: a block's operations, or a vector literal's elements.
enum Work<'a> {
    Block {
        block: &'a Arc<Block>,
        next: usize,
        ops: Vec<Op>,
        pos: Option<Pos>,
    },
    Vector {
        items: &'a [Item],
        next: usize,
        values: Vec<Value>,
        pos: Option<Pos>,
    },
}

/// The compiled form of `block` under the profile of `meter`, its names resolved in
/// `registry`: taken from the block when it has been compiled, else built (with every
/// block nested in it) and stored there. The first literal over a limit, in token
/// order, is the error; nothing is stored then. (A block compiles against the
/// vocabulary of the first machine that runs it; hosts run one vocabulary.)
///
/// Compiling is work like any other (docs/reference/pricing-and-limits.md#literals): every
/// token ticks the meter, and every number literal, once built, is charged its decimal
/// price in `numericWork` — a few digits can denote a wide integer (`1e78900`).
pub fn compile(
    block: &Arc<Block>,
    meter: &mut Meter,
    registry: &Registry,
) -> Result<Arc<Code>, Halt> {
    if let Some(code) = block.compiled() {
        return Ok(code.clone());
    }
    let profile = meter.profile().clone();
    let profile = &profile;
    let keep = registry.keep_id();
    let mut work = vec![Work::Block {
        block,
        next: 0,
        ops: Vec::with_capacity(block.items().len()),
        pos: None,
    }];
    loop {
        let top = work
            .last_mut()
            .expect("the root group stays until it is done");
        let (item, in_vector) = match top {
            Work::Block { block, next, .. } => match (*block).items().get(*next) {
                Some(item) => {
                    *next += 1;
                    (item, false)
                }
                None => {
                    // Closing a group is work too: a literal nested 100,000 deep closes
                    // as many groups in a row.
                    meter.tick(1)?;
                    let Some(Work::Block {
                        block, ops, pos, ..
                    }) = work.pop()
                    else {
                        unreachable!("the top group is this block")
                    };
                    let code = block.compiled_or(|| Arc::new(Code::new(ops))).clone();
                    match work.last_mut() {
                        None => return Ok(code),
                        Some(parent) => deliver(parent, Value::Block(block.clone()), pos),
                    }
                    continue;
                }
            },
            Work::Vector { items, next, .. } => match (*items).get(*next) {
                Some(item) => {
                    *next += 1;
                    (item, true)
                }
                None => {
                    meter.tick(1)?;
                    let Some(Work::Vector { values, pos, .. }) = work.pop() else {
                        unreachable!("the top group is this vector")
                    };
                    let parent = work.last_mut().expect("a vector literal stands in a block");
                    deliver(parent, Value::vector(values), pos);
                    continue;
                }
            },
        };
        let pos = item.pos();
        meter.tick(1)?;
        let value = match item {
            Item::Number { lexeme, .. } => match number_value(lexeme, profile) {
                Ok(Some(n)) => {
                    let price = n.decimal_price();
                    if price > 0 {
                        meter.charge_numeric(price).map_err(|h| at(h, pos))?;
                    }
                    Value::Number(n)
                }
                Ok(None) => {
                    return Err(err::malformed(format!("{lexeme} is not a number literal"))
                        .at(pos)
                        .into())
                }
                Err(e) => return Err(e.at(pos).into()),
            },
            Item::Str { text, .. } => Value::Str(text.clone()),
            Item::Name { name, .. } if in_vector => name_literal_value(&name.written),
            Item::Name { name, .. } => {
                let kind = match registry.lookup(&name.normalized) {
                    Some(id) if Some(id) == keep => OpKind::Keep,
                    Some(id) => match registry.spec(id).role {
                        Role::ReadsClauses { else_guard } => {
                            let reader = Reader {
                                name: registry.spec(id).name,
                                else_guard,
                            };
                            emit_clause_reader(&mut work, id, reader, pos);
                            continue;
                        }
                        _ => OpKind::Core(id),
                    },
                    None => OpKind::Name(name.clone()),
                };
                emit(&mut work, kind, pos, registry);
                continue;
            }
            Item::Vector { items, depth, .. } => {
                let depth = u64::from(*depth);
                if !in_vector && depth > profile.nesting_depth {
                    return Err(exceeded(Limit::NestingDepth, depth, profile.nesting_depth)
                        .at(pos)
                        .into());
                }
                work.push(Work::Vector {
                    items,
                    next: 0,
                    values: Vec::with_capacity(items.len()),
                    pos,
                });
                continue;
            }
            Item::Block { block, .. } => {
                if block.compiled().is_none() {
                    work.push(Work::Block {
                        block,
                        next: 0,
                        ops: Vec::with_capacity(block.items().len()),
                        pos,
                    });
                    continue;
                }
                Value::Block(block.clone())
            }
            Item::LineBreak { .. } => continue,
            Item::Vent { .. } | Item::Bar { .. } if in_vector => {
                return Err(
                    err::malformed("a vector literal holds a VENT or '|' directive")
                        .at(pos)
                        .into(),
                )
            }
            Item::Vent { .. } => {
                emit(&mut work, OpKind::Vent, pos, registry);
                continue;
            }
            Item::Bar { .. } => {
                emit(&mut work, OpKind::Bar, pos, registry);
                continue;
            }
        };
        let top = work.last_mut().expect("the current group");
        deliver(top, value, pos);
    }
}

/// A halt of a charge placed at the token that caused it (a language error only).
fn at(h: Halt, pos: Option<Pos>) -> Halt {
    match h {
        Halt::Error(e) => Halt::Error(e.at(pos)),
        other => other,
    }
}

/// Add a finished value to its group: an element of a vector, a push in a block.
fn deliver(group: &mut Work<'_>, value: Value, pos: Option<Pos>) {
    match group {
        Work::Block { ops, .. } => push_bounded(
            ops,
            Op {
                kind: OpKind::Push(value),
                pos,
            },
        ),
        Work::Vector { values, .. } => push_bounded(values, value),
    }
}

/// Add an operation to the block being compiled (names and directives in a vector
/// literal are data and never come here).
fn emit(work: &mut [Work<'_>], kind: OpKind, pos: Option<Pos>, registry: &Registry) {
    let Some(Work::Block { ops, .. }) = work.last_mut() else {
        return;
    };
    // A push just before a Core Word joins it, unless a VENT before the push could
    // skip the push alone.
    let kind = match kind {
        OpKind::Core(id) if joinable_push(ops) => match ops.pop() {
            Some(Op {
                kind: OpKind::Push(v),
                ..
            }) if small_int_literal(&v) && registry.spec(id).int_pair.is_some() => {
                OpKind::PushIntThenPair(v, id)
            }
            Some(Op {
                kind: OpKind::Push(v),
                ..
            }) => OpKind::PushThenCore(v, id),
            _ => OpKind::Core(id),
        },
        other => other,
    };
    ops.push(Op { kind, pos });
}

/// Whether `v` is an integer Number that fits `i64`.
fn small_int_literal(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.small_int().is_some())
}

/// Whether the last operation is a push no VENT stands right before.
fn joinable_push(ops: &[Op]) -> bool {
    match ops {
        [.., before, Op {
            kind: OpKind::Push(_),
            ..
        }] => !matches!(before.kind, OpKind::Vent),
        [Op {
            kind: OpKind::Push(_),
            ..
        }] => true,
        _ => false,
    }
}

/// Add a clause reader's call: fused with the block literals pushed just before it
/// when they read as clauses, else a plain call (whose run reports what is wrong).
/// A VENT just before those pushes may skip the first, so that one stays a push.
fn emit_clause_reader(work: &mut [Work<'_>], word: WordId, reader: Reader<'_>, pos: Option<Pos>) {
    let Some(Work::Block { ops, .. }) = work.last_mut() else {
        return;
    };
    let pushed = ops
        .iter()
        .rev()
        .take_while(|op| matches!(op.kind, OpKind::Push(Value::Block(_))))
        .count();
    let mut start = ops.len() - pushed;
    if start > 0 && matches!(ops[start - 1].kind, OpKind::Vent) {
        start += 1;
    }
    if start < ops.len() {
        let blocks: Vec<Arc<Block>> = ops[start..]
            .iter()
            .filter_map(|op| match &op.kind {
                OpKind::Push(Value::Block(b)) => Some(b.clone()),
                _ => None,
            })
            .collect();
        if let Ok(clauses) = clauses::read(&blocks, reader) {
            let pushes = ops.drain(start..).collect();
            ops.push(Op {
                kind: OpKind::Select(Box::new(FusedSelection {
                    word,
                    clauses: Arc::new(clauses),
                    pushes,
                })),
                pos,
            });
            return;
        }
    }
    ops.push(Op {
        kind: OpKind::Core(word),
        pos,
    });
}

/// Build and limit-check the value of one number lexeme (source literal, `NUM`);
/// `None` when the text is not a buildable number lexeme.
pub fn number_value(lexeme: &str, profile: &Profile) -> Result<Option<Number>, LangError> {
    let Some(lex) = literal::scan(lexeme) else {
        return Ok(None);
    };
    let digits = literal::digit_count(lexeme);
    if digits > profile.numeric_literal_digits {
        return Err(exceeded(
            Limit::NumericLiteralDigits,
            digits,
            profile.numeric_literal_digits,
        ));
    }
    match literal::build(&lex, profile.bigint_bits) {
        Ok(r) => Ok(Some(Number::Rat(r))),
        Err(BuildError::TooWide { observed }) => {
            Err(exceeded(Limit::BigintBits, observed, profile.bigint_bits))
        }
        Err(BuildError::ZeroDenominator) => Ok(None),
    }
}

/// [`number_value`] through `meter`: the value, once built, is charged its decimal
/// price in `numericWork` (docs/reference/pricing-and-limits.md#literals) — the conversion
/// from decimal that built it, whose size `bigintBits` bounds before it starts.
pub fn number_value_metered(lexeme: &str, meter: &mut Meter) -> Result<Option<Number>, Halt> {
    let n = number_value(lexeme, meter.profile())?;
    if let Some(price) = n.as_ref().map(Number::decimal_price).filter(|p| *p > 0) {
        meter.charge_numeric(price)?;
    }
    Ok(n)
}

/// What a name standing directly inside a vector literal denotes
/// (docs/reference/lexical.md#vector-literals).
pub fn name_literal_value(written: &str) -> Value {
    match name_literal(written) {
        NameLiteral::Bool(b) => Value::Bool(b),
        NameLiteral::Nil => Value::Nil(NilReason::Literal),
        NameLiteral::Str => Value::Str(written.into()),
    }
}

/// Parse a whole program under `profile` and compile it against the Core registry:
/// source size, tokens, structure, literal limits — in that order. On a meter of its own
/// that no host watches: for texts the host trusts (the phrasebook) and for tests; a run
/// parses through [`parse_metered`].
pub fn parse(source: &str, profile: &Profile, origin: u16) -> Result<Program, LangError> {
    match parse_metered(source, &mut Meter::new(profile.clone()), origin) {
        Ok(p) => Ok(p),
        Err(Halt::Error(e)) => Err(e),
        Err(Halt::Interrupted(_)) => Err(err::malformed("the parse was interrupted")),
    }
}

/// [`parse`] through `meter`: the parse reports its work to the meter (so the host's
/// deadline and memory ceiling stop it) and the compile charges the literals.
pub fn parse_metered(source: &str, meter: &mut Meter, origin: u16) -> Result<Program, Halt> {
    let program = parse_tree_metered(source, meter, origin, 1)?;
    compile(&program.block, meter, crate::word::registry())?;
    Ok(program)
}

/// The tree of a whole program (source size, tokens, structure), not yet compiled:
/// a machine compiles it against its own vocabulary.
pub fn parse_tree(source: &str, profile: &Profile, origin: u16) -> Result<Program, LangError> {
    let bytes = source.len() as u64;
    if bytes > profile.source_bytes {
        return Err(exceeded(Limit::SourceBytes, bytes, profile.source_bytes));
    }
    Ok(crate::syntax::parser::parse_from(source, origin, 1)?)
}

/// [`parse_tree`] of a source whose first line is line `first_line`, reporting the
/// parse's work to `meter`.
pub fn parse_tree_metered(
    source: &str,
    meter: &mut Meter,
    origin: u16,
    first_line: u32,
) -> Result<Program, Halt> {
    let profile = meter.profile();
    let bytes = source.len() as u64;
    if bytes > profile.source_bytes {
        return Err(exceeded(Limit::SourceBytes, bytes, profile.source_bytes).into());
    }
    let mut progress = MeterProgress { meter, halt: None };
    match crate::syntax::parser::parse_watched(source, origin, first_line, &mut progress) {
        Ok(p) => Ok(p),
        Err(ParseFailure::Syntax(e)) => Err(LangError::from(e).into()),
        Err(ParseFailure::Stopped) => Err(progress
            .halt
            .unwrap_or(Halt::Interrupted(crate::limits::Interrupt::Raised))),
    }
}

/// The syntax layer's [`Progress`] on a meter: its work ticks the meter, its big
/// allocations ask the host first; the halt that stopped it is kept for the caller.
struct MeterProgress<'m> {
    meter: &'m Meter,
    halt: Option<Halt>,
}

impl Progress for MeterProgress<'_> {
    fn advance(&mut self, units: u64) -> Result<(), Stopped> {
        self.meter.tick(units).map_err(|h| {
            self.halt = Some(h);
            Stopped
        })
    }
    fn reserve(&mut self, bytes: u64) -> Result<(), Stopped> {
        self.meter.reserve(bytes).map_err(|h| {
            self.halt = Some(h);
            Stopped
        })
    }
}
