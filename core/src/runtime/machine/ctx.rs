//! [`Ctx`], the executor API: what a Word's executor sees of the machine while it runs —
//! its operands, the KEEP flag, the meters, the dictionary and bindings in sight — and how
//! it asks the machine to run blocks or select clauses.

use super::*;

/// What an executor sees: the machine, the invocation's KEEP flag, its Word and position.
pub struct Ctx<'m> {
    pub(super) m: &'m mut Machine,
    pub(super) keep: bool,
    pub(super) word: WordId,
    pub(super) pos: Option<Pos>,
    /// Whether the invocation ends a User Word's body (the Word frame is on top).
    pub(super) tail: bool,
    /// The floor of the frame the Word runs in (no executor opens or closes frames).
    pub(super) floor: usize,
}

impl Ctx<'_> {
    /// Whether the invocation is under KEEP.
    #[inline]
    pub fn keep(&self) -> bool {
        self.keep
    }

    /// The canonical name of the running Word.
    pub fn word_name(&self) -> &'static str {
        self.m.registry.spec(self.word).name
    }

    /// The invoking token's position.
    pub fn pos(&self) -> Option<Pos> {
        self.pos
    }

    /// How many frames are open (constant across the iterations of a tail call).
    pub fn frame_depth(&self) -> usize {
        self.m.frames.len()
    }

    /// Number of values the current frame can see.
    #[inline(always)]
    pub fn depth(&self) -> usize {
        self.m.stack.len().saturating_sub(self.floor)
    }

    /// Fail with `stackUnderflow` unless the frame holds at least `n` values.
    #[inline(always)]
    pub fn need(&self, n: usize) -> Result<(), LangError> {
        let have = self.depth();
        if have < n {
            return Err(self.underflow(n, have));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn underflow(&self, n: usize, have: usize) -> LangError {
        err::stack_underflow(format!(
            "{} needs {} operand{} but the stack holds {}",
            self.word_name(),
            n,
            if n == 1 { "" } else { "s" },
            have
        ))
    }

    /// The value `i` places below the top (0 = top). The caller checked the depth.
    #[inline(always)]
    pub fn peek(&self, i: usize) -> &Value {
        &self.m.stack[self.m.stack.len() - 1 - i]
    }

    /// The top `n` values, bottom to top, after an underflow check.
    #[inline(always)]
    pub fn operands(&self, n: usize) -> Result<&[Value], LangError> {
        self.need(n)?;
        let len = self.m.stack.len();
        Ok(&self.m.stack[len - n..])
    }

    /// Consume `n` operands (unless under KEEP) and push `results`.
    pub fn finish(
        &mut self,
        n: usize,
        results: impl IntoIterator<Item = Value>,
    ) -> Result<Flow, Halt> {
        if !self.keep {
            self.m.drop_top(n);
        }
        self.m.stack.extend(results);
        Ok(Flow::Done)
    }

    /// Measure a Vector a Word has just built ([`Vector::leaf_stats_polled`] on the
    /// run's meter), when it is long and not measured yet: its first measure is a walk
    /// of every element, which whatever reads its weight next would otherwise do with no
    /// check in between. Done before the operands are consumed, so a stop leaves them.
    #[inline]
    pub fn measure_result(&self, result: &Value) -> Result<(), Halt> {
        if let Value::Vector(v) = result {
            if v.len() >= MEASURE_RESULTS_FROM && !v.is_measured() {
                let meter = &self.m.meter;
                v.leaf_stats_polled(&mut |units| meter.tick(units))?;
            }
        }
        Ok(())
    }

    /// Consume `n` operands (unless under KEEP) and push one result.
    #[inline(always)]
    pub fn consume_and_push(&mut self, n: usize, result: Value) -> Result<Flow, Halt> {
        self.measure_result(&result)?;
        let len = self.m.stack.len();
        if !self.keep && n > 0 && n <= len && self.m.keeps.is_empty() {
            // No KEEP record to feed: overwrite the lowest operand in place.
            let stack = &mut self.m.stack;
            while stack.len() > len - n + 1 {
                if let Some(v) = stack.pop() {
                    v.discard();
                }
            }
            std::mem::replace(&mut stack[len - n], result).discard();
            return Ok(Flow::Done);
        }
        self.consume_and_push_slow(n, result)
    }

    #[inline(never)]
    fn consume_and_push_slow(&mut self, n: usize, result: Value) -> Result<Flow, Halt> {
        if !self.keep {
            self.m.drop_top(n);
        }
        push_slot(&mut self.m.stack, result);
        Ok(Flow::Done)
    }

    /// Push a value.
    #[inline]
    pub fn push(&mut self, v: Value) {
        push_slot(&mut self.m.stack, v);
    }

    /// Pop the top value regardless of KEEP. The caller checked the depth.
    #[inline]
    pub fn pop(&mut self) -> Value {
        self.m.pop()
    }

    /// Stack length (absolute, for isolated-frame bases).
    #[inline]
    pub fn stack_len(&self) -> usize {
        self.m.stack.len()
    }

    /// The values from absolute index `base` to the top.
    pub fn frame_values(&self, base: usize) -> &[Value] {
        &self.m.stack[base.min(self.m.stack.len())..]
    }

    /// Pop down to absolute length `len`.
    pub fn truncate(&mut self, len: usize) {
        self.m.truncate_to(len);
    }

    /// The meters.
    #[inline]
    pub fn meter(&mut self) -> &mut Meter {
        &mut self.m.meter
    }

    /// The profile in force.
    pub fn profile(&self) -> &Profile {
        self.m.meter.profile()
    }

    /// Charge `numericWork`.
    #[inline]
    pub fn charge_numeric(&mut self, units: u64) -> Result<(), Halt> {
        self.m.meter.charge_numeric(units)
    }

    /// Charge `collectionWork`.
    #[inline]
    pub fn charge_collection(&mut self, units: u64) -> Result<(), Halt> {
        self.m.meter.charge_collection(units)
    }

    /// Append an output line.
    pub fn print(&mut self, line: String) {
        self.m.output.push(line);
    }

    /// The names DEF, BIND and DEL found valid in this run.
    pub fn name_checks(&mut self) -> &mut super::dict::NameChecks {
        &mut self.m.name_checks
    }

    /// The User dictionary.
    pub fn dictionary(&self) -> &Dictionary {
        &self.m.dict
    }

    /// The User dictionary, mutably.
    pub fn dictionary_mut(&mut self) -> &mut Dictionary {
        &mut self.m.dict
    }

    /// Whether `name` (normalized) is bound in a frame the current code can see.
    pub fn is_bound_visible(&self, name: &str) -> bool {
        self.m.lookup_binding(name).is_some()
    }

    /// Bind `name` (normalized) in the current frame.
    pub fn bind(&mut self, name: Arc<str>, value: Value) {
        self.m.bind_in_top(name, value);
    }

    /// When this invocation is the last token of a User Word body: that Word
    /// (COND passes it on so a self-call ending the selected clause is a tail call).
    pub fn tail_word(&self) -> Option<Arc<UserWord>> {
        if !self.tail {
            return None;
        }
        match &self.m.top_code().kind {
            FrameKind::Word(w) => Some(w.clone()),
            _ => None,
        }
    }

    /// The clause reader's whole call (docs/reference/frames.md#isolation-of-block-frames): the
    /// clause blocks on top of the stack (consumed whatever happens next,
    /// docs/reference/errors.md#the-stack-after-an-error), read into clauses, and the target below
    /// them (kept under KEEP), handed to the machine to select.
    pub fn select_clauses(&mut self) -> Result<Flow, Halt> {
        self.need(1)?;
        let reader = self.m.reader(self.word);
        let depth = self.depth();
        let k = (0..depth)
            .take_while(|&i| matches!(self.peek(i), Value::Block(_)))
            .count();
        if k == 0 {
            return Err(err::invalid_argument(format!(
                "{} needs clause blocks on top of the stack, got {}",
                reader.name,
                self.peek(0).describe()
            ))
            .into());
        }
        let mut blocks: smallvec::SmallVec<[Arc<Block>; 6]> = smallvec::SmallVec::with_capacity(k);
        for _ in 0..k {
            if let Value::Block(b) = self.pop() {
                blocks.push(b);
            }
        }
        blocks.reverse();
        let clauses = clauses::read(&blocks, reader)?;
        if self.depth() == 0 {
            return Err(err::stack_underflow(format!(
                "{} needs a target value below its clause blocks",
                reader.name
            ))
            .into());
        }
        let target = if self.keep {
            self.peek(0).clone()
        } else {
            self.pop()
        };
        Ok(Flow::Select(Selection {
            clauses: Arc::new(clauses),
            target,
        }))
    }

    /// Compile `block` under the profile in force (once: the block keeps its
    /// compiled form), so a Word can refuse code over a literal limit before it
    /// consumes its operands.
    pub fn compile(&mut self, block: &Arc<Block>) -> Result<(), Halt> {
        compile(block, &mut self.m.meter, self.m.registry).map(drop)
    }

    /// Resolve a String code operand (docs/words/higherOrder.md) to a one-token block applying
    /// that Word: a Core Word other than KEEP/VENT, or a User Word.
    pub fn code_from_name(&self, written: &str) -> Result<Arc<Block>, LangError> {
        let name = Name::new(written);
        let reg = self.m.registry;
        // VENT is syntax: its spellings are refused below whatever the vocabulary holds.
        let usable = match reg.lookup(&name.normalized) {
            Some(id) => Some(id) != reg.keep_id(),
            None => self.m.dict.get(&name.normalized).is_some(),
        };
        if !usable || crate::lexer::is_vent_spelling(written) {
            return Err(err::unknown_word(written));
        }
        Ok(Arc::new(Block::new(vec![Item::Name { name, pos: None }])))
    }

    /// Request an isolated evaluation of `block` over `stack[base..]`.
    pub fn run_isolated(&self, block: Arc<Block>, base: usize, then: Box<dyn Resume>) -> Flow {
        Flow::Run(Run {
            block,
            isolated_base: Some(base),
            then: Some(then),
            keep_restore: false,
            tail_of: None,
        })
    }

    /// Apply the generic NIL policy of a fixed-arity Word. `Ok(true)`: handled (NIL passed
    /// through).
    #[inline]
    pub(super) fn generic_nil_policy(&mut self, spec: &WordSpec) -> Result<bool, Halt> {
        use crate::word::NilPolicy;
        let Some(n) = spec.inputs.fixed() else {
            return Ok(false);
        };
        let n = n as usize;
        match spec.nil_policy {
            NilPolicy::RejectNil => {
                let k = n.min(self.depth());
                if (0..k).any(|i| self.peek(i).is_nil()) {
                    return Err(err::type_mismatch(format!(
                        "{} does not accept NIL as an operand",
                        spec.name
                    ))
                    .into());
                }
                self.need(n)?;
                Ok(false)
            }
            NilPolicy::Passthrough | NilPolicy::PassthroughThenProject => {
                self.need(n)?;
                let stack = &self.m.stack;
                let nil = stack[stack.len() - n..]
                    .iter()
                    .find(|v| v.is_nil())
                    .cloned();
                match nil {
                    Some(v) => {
                        self.consume_and_push(n, v)?;
                        Ok(true)
                    }
                    None => Ok(false),
                }
            }
            _ => Ok(false),
        }
    }

    /// Build an error of `category` (the machine attaches Word and position).
    pub fn error(&self, category: ErrorCategory, message: impl Into<String>) -> Halt {
        LangError::new(category, message).into()
    }
}

/// The length from which [`Ctx::measure_result`] measures a new Vector on the meter
/// (shorter ones take a few microseconds to measure whenever they are).
const MEASURE_RESULTS_FROM: usize = 256;
