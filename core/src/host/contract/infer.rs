//! Inference of User Word contracts (docs/contracts.md#how-inference-works-and-its-gaps).
//!
//! Inference never executes anything. It reads bodies either from the machine's
//! dictionary (for `CONTRACT`) or from a program's literal `{ body } 'NAME' DEF`
//! definitions (for `check`, `compute`'s pre-flight and `infer_contracts`); both
//! are [`Definitions`]. The stack-effect walk runs on explicit frames, so bodies
//! that call each other in long chains, or blocks nested thousands deep, cannot
//! overflow the native stack.

use crate::code::Program;
use crate::code::{literal_string_elements, normalize, Block, Item};
use crate::machine::{is_name_lexeme, Dictionary};
use crate::number::{literal, Int, Number};
use crate::outcome::Pos;
use crate::word::{
    registry, Arity, Consumption, Family, Field, FieldRule, Role, StaticEffect, WordSpec,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// Why inference could not establish a Word's stack effect
/// (docs/contracts.md#how-inference-works-and-its-gaps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gap {
    /// A name in the body resolves to nothing.
    UnresolvedWord,
    /// A call recurses into a Word whose effect is being inferred.
    RecursiveDependency,
    /// A User Word called by the body has a gap itself.
    DependencyUnknown,
    /// A construct whose effect depends on data: `VENT`, `COND`/`COLLECT`/`EXEC`/`RANGE`
    /// outside their modelled forms, `EXEC` or a User Word under `KEEP`.
    UnmodelledControlFlow,
}

impl Gap {
    /// Every gap, in specification order.
    pub const ALL: [Gap; 4] = [
        Gap::UnresolvedWord,
        Gap::RecursiveDependency,
        Gap::DependencyUnknown,
        Gap::UnmodelledControlFlow,
    ];

    /// The stable id (`gap.unresolvedWord`, …) hosts report.
    pub fn id(self) -> &'static str {
        match self {
            Gap::UnresolvedWord => "gap.unresolvedWord",
            Gap::RecursiveDependency => "gap.recursiveDependency",
            Gap::DependencyUnknown => "gap.dependencyUnknown",
            Gap::UnmodelledControlFlow => "gap.unmodelledControlFlow",
        }
    }
}

/// A gap is written as its id.
impl serde::Serialize for Gap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// A stack effect: how many values a Word reads below its start and leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effect {
    /// Values consumed from the stack as it was before the call.
    pub inputs: u64,
    /// Values left above that point.
    pub outputs: u64,
}

/// The inferred contract of a User Word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inferred {
    /// The stack effect, or why it cannot be inferred.
    pub effect: Result<Effect, Gap>,
    /// The field; `None` only when the Word's body is not known (a program that
    /// defines it from a computed block).
    pub field: Option<Field>,
}

/// What a name denotes among the User Words inference knows.
#[derive(Clone, Debug)]
pub enum Def {
    /// A User Word with a known body.
    Body(Arc<Block>),
    /// A User Word whose body is not known statically (`x 'NAME' DEF` with a computed `x`).
    Opaque,
}

/// A source of User Word definitions, looked up by normalized name.
pub trait Definitions {
    /// The definition of the normalized `name`, or `None` when it is no User Word.
    fn lookup(&self, name: &str) -> Option<Def>;
}

impl Definitions for Dictionary {
    fn lookup(&self, name: &str) -> Option<Def> {
        self.get(name).map(|w| Def::Body(w.body.clone()))
    }
}

/// The User Words a program text defines: every `'NAME' DEF` (a String literal
/// immediately followed by `DEF`), with the body of the last literal
/// `{ body } 'NAME' DEF` of each name (docs/contracts.md#how-inference-works-and-its-gaps).
#[derive(Clone, Debug, Default)]
pub struct ProgramDefinitions {
    bodies: HashMap<Arc<str>, Option<Arc<Block>>>,
    source_order: Vec<Arc<str>>,
}

/// One `'NAME' DEF` of a program: where it stands, the name, and its literal body.
type DefSite = (Option<Pos>, usize, Arc<str>, Option<Arc<Block>>);

/// The previous item before `i` that is not a line break (line breaks have no effect
/// on evaluation, so they do not separate a literal from the Word that takes it).
fn previous(items: &[Item], i: usize) -> Option<(usize, &Item)> {
    items[..i]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, it)| !it.is_line_break())
}

/// Whether `item` names the Word that defines User Words.
fn is_definer(item: &Item) -> bool {
    matches!(item, Item::Name { name, .. } if registry().lookup(&name.normalized).is_some_and(|id| registry().defines(id)))
}

/// Visit every code item run of `block` in source order: the block itself, nested
/// blocks, and blocks standing in vector literals; never the data directly inside a
/// vector literal. `f` receives each run.
fn for_each_code_run<'b>(block: &'b Block, mut f: impl FnMut(&'b [Item])) {
    // Pre-order with an explicit stack of (run, next index, is code).
    let mut stack: Vec<(&'b [Item], usize, bool)> = vec![(block.items(), 0, true)];
    let mut entered = true;
    while let Some(top) = stack.last_mut() {
        if entered {
            if top.2 {
                f(top.0);
            }
            entered = false;
        }
        let (items, i, _) = *top;
        if i >= items.len() {
            stack.pop();
            continue;
        }
        top.1 += 1;
        match &items[i] {
            Item::Block { block, .. } => {
                stack.push((block.items(), 0, true));
                entered = true;
            }
            Item::Vector { items: inner, .. } => {
                stack.push((inner, 0, false));
                entered = true;
            }
            _ => {}
        }
    }
}

impl ProgramDefinitions {
    /// Scan `prelude` programs, then `source`, for definitions (later ones win).
    pub fn scan(prelude: &[&Block], source: &Block) -> ProgramDefinitions {
        let mut defs = ProgramDefinitions::default();
        for p in prelude {
            defs.scan_one(p, false);
        }
        defs.scan_one(source, true);
        defs
    }

    fn scan_one(&mut self, block: &Block, is_source: bool) {
        // DEF sites in source order: a pre-order walk visits runs in the order their
        // opening tokens appear, but a run's own DEFs can come after a nested run's,
        // so collect (position, name, body) and order by position.
        let mut sites: Vec<DefSite> = Vec::new();
        let mut seq = 0usize;
        for_each_code_run(block, |items| {
            for (i, item) in items.iter().enumerate() {
                if !is_definer(item) || i == 0 {
                    continue;
                }
                let Item::Str { text, .. } = &items[i - 1] else {
                    continue;
                };
                if !is_name_lexeme(text) {
                    continue;
                }
                let name = normalize(text);
                if registry().lookup(&name).is_some() {
                    continue;
                }
                let body = match previous(items, i - 1) {
                    Some((_, Item::Block { block, .. })) => Some(block.clone()),
                    _ => None,
                };
                sites.push((item.pos(), seq, name.into(), body));
                seq += 1;
            }
        });
        // Positions order the sites of a parsed program; blocks built by REFLECT carry
        // none, and then the visiting order stands.
        sites.sort_by_key(|(p, s, _, _)| (p.map(|p| (p.origin, p.line, p.column)), *s));
        let mut listed: HashSet<Arc<str>> = self.source_order.iter().cloned().collect();
        for (_, _, name, body) in sites {
            if is_source && listed.insert(name.clone()) {
                self.source_order.push(name.clone());
            }
            match (self.bodies.get_mut(&name), body) {
                (Some(slot), Some(b)) => *slot = Some(b),
                (Some(_), None) => {}
                (None, b) => {
                    self.bodies.insert(name, b);
                }
            }
        }
    }

    /// The Words the source itself defines, in order of first definition.
    pub fn source_names(&self) -> &[Arc<str>] {
        &self.source_order
    }

    /// Whether `name` (normalized) has a literal `{ … } 'NAME' DEF` definition.
    pub fn has_literal(&self, name: &str) -> bool {
        matches!(self.bodies.get(name), Some(Some(_)))
    }
}

impl Definitions for ProgramDefinitions {
    fn lookup(&self, name: &str) -> Option<Def> {
        self.bodies.get(name).map(|b| match b {
            Some(b) => Def::Body(b.clone()),
            None => Def::Opaque,
        })
    }
}

/// The exact value of a number item, built from its lexeme. `None` when the lexeme
/// is not buildable within generous bounds — such a literal can never run under any
/// profile.
pub fn number_item_value(item: &Item) -> Option<Number> {
    let Item::Number { lexeme, .. } = item else {
        return None;
    };
    const MAX_DIGITS: u64 = 1 << 16;
    const MAX_BITS: u64 = 1 << 20;
    let lex = literal::scan(lexeme)?;
    if literal::digit_count(lexeme) > MAX_DIGITS {
        return None;
    }
    literal::build(&lex, MAX_BITS).ok().map(Number::Rat)
}

fn integer_literal(item: &Item) -> Option<Int> {
    number_item_value(item).and_then(|n| n.as_int().cloned())
}

/// A walk over one block: a User Word body, or a literal block run by `EXEC`.
struct Frame {
    block: Arc<Block>,
    pc: usize,
    d: i64,
    m: i64,
    keep: bool,
    bound: HashSet<Arc<str>>,
    /// The Word whose body this is; `None` for a block run by `EXEC`.
    owner: Option<Arc<str>>,
}

impl Frame {
    fn new(block: Arc<Block>, owner: Option<Arc<str>>, bound: HashSet<Arc<str>>) -> Frame {
        Frame {
            block,
            pc: 0,
            d: 0,
            m: 0,
            keep: false,
            bound,
            owner,
        }
    }

    fn apply(&mut self, inputs: u64, outputs: u64) {
        let i = i64::try_from(inputs).unwrap_or(i64::MAX);
        let o = i64::try_from(outputs).unwrap_or(i64::MAX);
        self.d = self.d.saturating_sub(i);
        self.m = self.m.min(self.d);
        self.d = self.d.saturating_add(o);
        self.keep = false;
    }

    fn effect(&self) -> Effect {
        Effect {
            inputs: self.m.unsigned_abs(),
            outputs: self.d.saturating_sub(self.m).unsigned_abs(),
        }
    }
}

/// What one step of a walk asks for.
enum Step {
    /// The frame finished with this result.
    Finish(Result<Effect, Gap>),
    /// Walk this frame, then resume the current one.
    Push(Frame),
}

/// Inference over a set of [`Definitions`], memoizing every Word it settles.
pub struct Inference<'a, D: Definitions + ?Sized> {
    defs: &'a D,
    effects: HashMap<Arc<str>, Result<Effect, Gap>>,
    fields: HashMap<Arc<str>, Option<Field>>,
    /// Words found on a cycle of calls (their gap is `recursiveDependency`).
    cyclic: HashSet<Arc<str>>,
    /// Words whose bodies are being walked, with the index of their frame.
    walking: HashMap<Arc<str>, usize>,
}

impl<'a, D: Definitions + ?Sized> Inference<'a, D> {
    /// Inference over `defs`.
    pub fn new(defs: &'a D) -> Inference<'a, D> {
        Inference {
            defs,
            effects: HashMap::new(),
            fields: HashMap::new(),
            cyclic: HashSet::new(),
            walking: HashMap::new(),
        }
    }

    /// The inferred contract of the User Word `name` (normalized), or `None` when
    /// `name` is no User Word.
    pub fn infer(&mut self, name: &str) -> Option<Inferred> {
        let effect = self.effect(name)?;
        let field = self.field(name);
        Some(Inferred { effect, field })
    }

    /// The stack effect of the User Word `name`, or `None` when it is no User Word.
    pub fn effect(&mut self, name: &str) -> Option<Result<Effect, Gap>> {
        if let Some(r) = self.effects.get(name) {
            return Some(*r);
        }
        let name: Arc<str> = name.into();
        let r = match self.defs.lookup(&name)? {
            Def::Opaque => Err(Gap::UnmodelledControlFlow),
            Def::Body(body) => self.walk(Frame::new(body, Some(name.clone()), HashSet::new())),
        };
        self.effects.insert(name, r);
        Some(r)
    }

    /// Run the walk of `root` to completion on explicit frames.
    fn walk(&mut self, root: Frame) -> Result<Effect, Gap> {
        self.walking.clear();
        if let Some(w) = &root.owner {
            self.walking.insert(w.clone(), 0);
        }
        let mut frames: Vec<Frame> = vec![root];
        // A result travelling down to the frame below: (result, it came from a Word).
        let mut incoming: Option<(Result<Effect, Gap>, bool)> = None;
        loop {
            let step = match incoming.take() {
                Some((r, from_word)) => self.deliver(&mut frames, r, from_word),
                None => self.step(&mut frames),
            };
            match step {
                None => {}
                Some(Step::Push(f)) => {
                    if let Some(w) = &f.owner {
                        self.walking.insert(w.clone(), frames.len());
                    }
                    frames.push(f);
                }
                Some(Step::Finish(r)) => {
                    let Some(done) = frames.pop() else { return r };
                    let from_word = done.owner.is_some();
                    if let Some(w) = done.owner {
                        self.walking.remove(&w);
                        self.effects.insert(w, r);
                    }
                    if frames.is_empty() {
                        return r;
                    }
                    incoming = Some((r, from_word));
                }
            }
        }
    }

    /// The nearest Word whose body is being walked at or below the top frame.
    fn caller(frames: &[Frame]) -> Option<&Arc<str>> {
        frames.iter().rev().find_map(|f| f.owner.as_ref())
    }

    fn callee_gap(&self, frames: &[Frame], g: Gap) -> Gap {
        let on_cycle = Self::caller(frames).is_some_and(|c| self.cyclic.contains(c));
        if g == Gap::RecursiveDependency && on_cycle {
            Gap::RecursiveDependency
        } else {
            Gap::DependencyUnknown
        }
    }

    /// Hand a finished frame's result to the frame below it.
    fn deliver(
        &mut self,
        frames: &mut [Frame],
        r: Result<Effect, Gap>,
        from_word: bool,
    ) -> Option<Step> {
        match (r, from_word) {
            (Ok(e), true) => {
                frames.last_mut()?.apply(e.inputs, e.outputs);
                None
            }
            (Ok(e), false) => {
                frames
                    .last_mut()?
                    .apply(e.inputs.saturating_add(1), e.outputs);
                None
            }
            (Err(g), true) => Some(Step::Finish(Err(self.callee_gap(frames, g)))),
            (Err(g), false) => Some(Step::Finish(Err(g))),
        }
    }

    /// Walk the top frame until it finishes or needs another frame walked.
    fn step(&mut self, frames: &mut [Frame]) -> Option<Step> {
        let reg = registry();
        let top = frames.len() - 1;
        loop {
            let f = &mut frames[top];
            let block = f.block.clone();
            let items = block.items();
            let Some(item) = items.get(f.pc) else {
                return Some(Step::Finish(Ok(f.effect())));
            };
            let index = f.pc;
            f.pc += 1;
            match item {
                Item::Number { .. }
                | Item::Str { .. }
                | Item::Vector { .. }
                | Item::Block { .. } => f.apply_literal(),
                Item::LineBreak { .. } => {}
                Item::Vent { .. } | Item::Bar { .. } => {
                    return Some(Step::Finish(Err(Gap::UnmodelledControlFlow)))
                }
                Item::Name { name, .. } => {
                    if let Some(id) = registry().lookup(&name.normalized) {
                        let spec = reg.spec(id);
                        if spec.role == Role::Modifier {
                            f.keep = true;
                            continue;
                        }
                        if spec.role == Role::Binds {
                            f.record_bind(items, index);
                        }
                        match core_effect(spec, items, index, f.keep) {
                            CoreEffect::Fixed(i, o) => f.apply(i, o),
                            CoreEffect::Exec(b) => {
                                let bound = f.bound.clone();
                                return Some(Step::Push(Frame::new(b, None, bound)));
                            }
                            CoreEffect::Gap => {
                                return Some(Step::Finish(Err(Gap::UnmodelledControlFlow)))
                            }
                        }
                        continue;
                    }
                    if f.bound.contains(&*name.normalized) {
                        f.apply(0, 1);
                        continue;
                    }
                    let keep = f.keep;
                    let word: Arc<str> = name.normalized.clone();
                    let Some(def) = self.defs.lookup(&word) else {
                        return Some(Step::Finish(Err(Gap::UnresolvedWord)));
                    };
                    if keep {
                        return Some(Step::Finish(Err(Gap::UnmodelledControlFlow)));
                    }
                    if let Some(r) = self.effects.get(&word).copied() {
                        match r {
                            Ok(e) => frames[top].apply(e.inputs, e.outputs),
                            Err(g) => return Some(Step::Finish(Err(self.callee_gap(frames, g)))),
                        }
                        continue;
                    }
                    if let Some(&j) = self.walking.get(&word) {
                        for fr in &frames[j..] {
                            if let Some(w) = &fr.owner {
                                self.cyclic.insert(w.clone());
                            }
                        }
                        return Some(Step::Finish(Err(Gap::RecursiveDependency)));
                    }
                    match def {
                        Def::Opaque => {
                            self.effects.insert(word, Err(Gap::UnmodelledControlFlow));
                            return Some(Step::Finish(Err(Gap::DependencyUnknown)));
                        }
                        Def::Body(b) => {
                            return Some(Step::Push(Frame::new(b, Some(word), HashSet::new())))
                        }
                    }
                }
            }
        }
    }

    /// The field of the User Word `name` (least fixpoint: `extends` iff a Word it
    /// reaches through its references holds an `extends` trigger), or `None` when
    /// `name` is no User Word or its body is unknown.
    pub fn field(&mut self, name: &str) -> Option<Field> {
        if let Some(f) = self.fields.get(name) {
            return *f;
        }
        let root: Arc<str> = name.into();
        let Def::Body(root_body) = self.defs.lookup(&root)? else {
            self.fields.insert(root, None);
            return None;
        };
        // Breadth-first over references; `parent` rebuilds the path to a trigger.
        let mut parent: HashMap<Arc<str>, Option<Arc<str>>> = HashMap::new();
        parent.insert(root.clone(), None);
        let mut queue: VecDeque<(Arc<str>, Arc<Block>)> =
            VecDeque::from([(root.clone(), root_body)]);
        let mut found: Option<Arc<str>> = None;
        while let Some((w, body)) = queue.pop_front() {
            let (trigger, refs) = scan_field(&body, self.defs);
            if trigger {
                found = Some(w);
                break;
            }
            for r in refs {
                if parent.contains_key(&r) {
                    continue;
                }
                match self.fields.get(&r) {
                    Some(Some(Field::Extends)) => {
                        parent.insert(r.clone(), Some(w.clone()));
                        found = Some(r);
                        break;
                    }
                    // Settled closed (everything it reaches is closed) or unknown: nothing to add.
                    Some(_) => continue,
                    None => {}
                }
                if let Some(Def::Body(b)) = self.defs.lookup(&r) {
                    parent.insert(r.clone(), Some(w.clone()));
                    queue.push_back((r, b));
                }
            }
            if found.is_some() {
                break;
            }
        }
        match found {
            Some(mut at) => {
                // Every Word on the path from the root to the trigger reaches it.
                loop {
                    self.fields.insert(at.clone(), Some(Field::Extends));
                    match parent.get(&at).cloned().flatten() {
                        Some(p) => at = p,
                        None => break,
                    }
                }
                Some(Field::Extends)
            }
            None => {
                // Everything visited reaches only closed Words.
                for w in parent.into_keys() {
                    self.fields.insert(w, Some(Field::Closed));
                }
                Some(Field::Closed)
            }
        }
    }
}

impl Frame {
    fn apply_literal(&mut self) {
        self.d = self.d.saturating_add(1);
    }

    /// `'N' BIND` or `[ 'A' 'B' ] BIND` with literal Strings: those names are bound
    /// for the rest of this body.
    fn record_bind(&mut self, items: &[Item], index: usize) {
        match previous(items, index) {
            Some((_, Item::Str { text, .. })) => {
                self.bound.insert(normalize(text).into());
            }
            Some((_, Item::Vector { items: names, .. })) => {
                let names = literal_string_elements(names).unwrap_or_default();
                self.bound
                    .extend(names.into_iter().map(|n| normalize(n).into()));
            }
            _ => {}
        }
    }
}

enum CoreEffect {
    Fixed(u64, u64),
    Exec(Arc<Block>),
    Gap,
}

/// The effect of the Core Word `spec` at `items[index]`, `keep` when under KEEP.
fn core_effect(spec: &WordSpec, items: &[Item], index: usize, keep: bool) -> CoreEffect {
    let prev = previous(items, index).map(|(_, it)| it);
    // Under KEEP an ordinary Word leaves its operands below its results.
    let kept = |i: u64, o: u64| {
        if keep {
            CoreEffect::Fixed(i, i + o)
        } else {
            CoreEffect::Fixed(i, o)
        }
    };
    match spec.static_effect {
        StaticEffect::ClauseBlocks => {
            let mut k = 0u64;
            let mut i = index;
            while let Some((j, Item::Block { .. })) = previous(items, i) {
                k += 1;
                i = j;
            }
            if k == 0 {
                return CoreEffect::Gap;
            }
            CoreEffect::Fixed(k + 1, if keep { 2 } else { 1 })
        }
        StaticEffect::CountedByLiteral => {
            match prev.and_then(integer_literal).and_then(|n| n.to_u64()) {
                Some(n) if (1..=u64::from(u32::MAX)).contains(&n) => kept(n + 1, 1),
                _ => CoreEffect::Gap,
            }
        }
        StaticEffect::OperandsByLiteral { vector, number } => match prev {
            Some(Item::Vector { .. }) => kept(u64::from(vector), 1),
            Some(Item::Number { .. }) => kept(u64::from(number), 1),
            _ => CoreEffect::Gap,
        },
        StaticEffect::RunsBlockLiteral => match prev {
            Some(Item::Block { block, .. }) if !keep => CoreEffect::Exec(block.clone()),
            _ => CoreEffect::Gap,
        },
        StaticEffect::Arity => {
            let (Arity::Fixed(i), Arity::Fixed(o)) = (spec.inputs, spec.outputs) else {
                return CoreEffect::Gap;
            };
            let (i, o) = (u64::from(i), u64::from(o));
            if !keep || spec.consumption == Consumption::Retain {
                CoreEffect::Fixed(i, o)
            } else if spec.family == Family::HigherOrder {
                // MAP, FILTER, FOLD, ANY, ALL keep only the collection they walk.
                CoreEffect::Fixed(i, 1 + o)
            } else {
                CoreEffect::Fixed(i, i + o)
            }
        }
    }
}

/// Whether `body` holds an `extends` trigger itself, and the User Words it names.
fn scan_field<D: Definitions + ?Sized>(body: &Block, defs: &D) -> (bool, Vec<Arc<str>>) {
    let reg = registry();
    let mut trigger = false;
    let mut refs: Vec<Arc<str>> = Vec::new();
    for_each_code_run(body, |items| {
        if trigger {
            return;
        }
        for (i, item) in items.iter().enumerate() {
            let Item::Name { name, .. } = item else {
                continue;
            };
            let prev = previous(items, i).map(|(_, it)| it);
            match reg.lookup(&name.normalized).map(|id| reg.spec(id)) {
                Some(spec) => {
                    let declared = spec.field == Field::Extends;
                    trigger |= match spec.field_rule {
                        FieldRule::AsDeclared => declared,
                        FieldRule::ClosedAfterIntegerLiteral => {
                            declared && prev.and_then(integer_literal).is_none()
                        }
                        FieldRule::OpenUnlessBlockLiteral => {
                            !matches!(prev, Some(Item::Block { .. }))
                        }
                        FieldRule::Open => true,
                    };
                }
                None => {
                    if defs.lookup(&name.normalized).is_some() && !refs.contains(&name.normalized) {
                        refs.push(name.normalized.clone());
                    }
                }
            }
            if trigger {
                return;
            }
        }
    });
    (trigger, refs)
}

// ---------------------------------------------------------------------------
// infer_contracts (MCP-70; docs/mcp/tools.md).
// ---------------------------------------------------------------------------

/// The inferred contract of one Word a source defines, as `infer_contracts` reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WordContract {
    /// The Word (normalized).
    pub name: String,
    /// Inferred inputs, when inferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<u64>,
    /// Inferred outputs, when inferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<u64>,
    /// Inferred field, when inferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<Field>,
    /// A paste-ready `#:contract` line, when at least one key was inferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested: Option<String>,
    /// Why some key could not be inferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
}

/// Infer the contract of every User Word `source` defines (not prelude Words), in
/// order of first definition. Directives are ignored.
pub fn infer_program(source: &Program, prelude: &[&Block]) -> Vec<WordContract> {
    let defs = ProgramDefinitions::scan(prelude, &source.block);
    let mut inference = Inference::new(&defs);
    let mut out = Vec::new();
    for name in defs.source_names() {
        let Some(inferred) = inference.infer(name) else {
            continue;
        };
        let (inputs, outputs, gap) = match inferred.effect {
            Ok(e) => (Some(e.inputs), Some(e.outputs), None),
            Err(g) => (None, None, Some(g)),
        };
        let mut terms: Vec<String> = Vec::new();
        if let Some(i) = inputs {
            terms.push(format!("inputs={i}"));
        }
        if let Some(o) = outputs {
            terms.push(format!("outputs={o}"));
        }
        if let Some(f) = inferred.field {
            terms.push(format!("field={}", f.id()));
        }
        let suggested = if terms.is_empty() {
            None
        } else {
            Some(format!("#:contract {name} {}", terms.join(" ")))
        };
        out.push(WordContract {
            name: name.to_string(),
            inputs,
            outputs,
            field: inferred.field,
            suggested,
            gap,
        });
    }
    out
}

/// The contract of a User Word in the machine's dictionary (for `CONTRACT`), or
/// `None` when `name` (normalized) is no User Word.
pub fn infer_user_word(dict: &Dictionary, name: &str) -> Option<Inferred> {
    Inference::new(dict).infer(name)
}
