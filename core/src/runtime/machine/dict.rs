//! The User dictionary: definitions, recorded dependencies and content identity.
//!
//! Core is sealed and lives in [`crate::word::registry`]; this holds only User Words.

use crate::code::{Block, Item, Name};
use crate::outcome::{err, LangError};
use crate::syntax::tree::name_hash;
use crate::word::Registry;
use std::sync::Arc;

/// A User Word: its normalized name, stored body and recorded dependencies.
#[derive(Debug)]
pub struct UserWord {
    /// The normalized name.
    pub name: Arc<str>,
    /// The body as stored by `DEF`.
    pub body: Arc<Block>,
    /// User Words the body referred to at definition time (normalized, sorted, unique).
    pub deps: Vec<Arc<str>>,
    /// Definition order (monotonic over the dictionary's life).
    pub order: u64,
}

/// The User Words of a run.
#[derive(Debug, Clone)]
pub struct Dictionary {
    /// The Core vocabulary, which decides which names in a body are User Words.
    registry: &'static Registry,
    // Keyed by [`name_hash`], randomly seeded per process (names that collide by
    // construction must not make definitions quadratic), which a parsed name carries
    // already: a call looks its Word up without hashing.
    words: hashbrown::HashTable<Arc<UserWord>>,
    next_order: u64,
    /// Recorded dependencies over all Words: what a search for dependents reads.
    links: u64,
}

impl Default for Dictionary {
    /// An empty dictionary beside the process-wide Core registry.
    fn default() -> Dictionary {
        Dictionary::new(crate::word::registry())
    }
}

/// The names a run's DEF, BIND and DEL found valid lately, with their normalized forms,
/// by the address of the text the program wrote (a clone of it is held, so the address
/// stays that text's). A BIND in a loop body checks the same literal at every iteration,
/// and the check lexes it: a tenth of a Gaussian elimination's time. Bounded (the oldest
/// entry is replaced), and allocated inside the run, so charged to it.
#[derive(Debug, Default)]
pub struct NameChecks {
    entries: Vec<(Arc<str>, Arc<str>)>,
    next: usize,
}

impl NameChecks {
    /// Names remembered at most.
    pub const CAPACITY: usize = 16;

    /// The normalized form of `written` if this very text was found valid.
    pub fn recall(&self, written: &Arc<str>) -> Option<Arc<str>> {
        self.entries
            .iter()
            .find(|(w, _)| Arc::ptr_eq(w, written))
            .map(|(_, n)| Arc::clone(n))
    }

    /// Remember that `written` is a valid name, normalized as `normalized`.
    pub fn remember(&mut self, written: Arc<str>, normalized: Arc<str>) {
        if self.entries.len() < Self::CAPACITY {
            self.entries.push((written, normalized));
        } else {
            self.entries[self.next] = (written, normalized);
            self.next = (self.next + 1) % Self::CAPACITY;
        }
    }
}

/// Whether `name` is a single name lexeme (docs/reference/dictionary.md): one word-shaped token
/// that is not a number, not `^`, `|` or a VENT spelling.
pub fn is_name_lexeme(name: &str) -> bool {
    let Ok(lexed) = crate::lexer::lex(name, 0) else {
        return false;
    };
    if !lexed.directives.is_empty() || lexed.tokens.len() != 1 {
        return false;
    }
    matches!(&lexed.tokens[0].kind, crate::lexer::TokKind::Name(n) if n == name)
}

impl Dictionary {
    /// An empty dictionary beside the Core vocabulary `registry`.
    pub fn new(registry: &'static Registry) -> Dictionary {
        Dictionary {
            registry,
            words: hashbrown::HashTable::new(),
            next_order: 0,
            links: 0,
        }
    }

    /// What a search for the dependents of a name reads: one unit per Word and per
    /// recorded dependency (docs/reference/pricing-and-limits.md#dictionary).
    pub fn search_units(&self) -> u64 {
        (self.words.len() as u64).saturating_add(self.links)
    }

    /// The Words `name` (normalized) needs, itself included, through recorded
    /// dependencies: how many, and the written bytes of their bodies (what inferring its
    /// contract reads). Zero Words for a name that is no User Word.
    pub fn closure_weight(&self, name: &str) -> (u64, u64) {
        let mut seen: std::collections::HashSet<Arc<str>> = std::collections::HashSet::new();
        let mut work: Vec<Arc<UserWord>> = self.get(name).into_iter().collect();
        let (mut words, mut bytes) = (0u64, 0u64);
        while let Some(w) = work.pop() {
            if !seen.insert(w.name.clone()) {
                continue;
            }
            words += 1;
            bytes = bytes.saturating_add(w.body.written_len());
            work.extend(w.deps.iter().filter_map(|d| self.get(d)));
        }
        (words, bytes)
    }

    /// The Core vocabulary beside which these User Words live.
    pub fn registry(&self) -> &'static Registry {
        self.registry
    }

    /// The User Word of a normalized name.
    #[inline]
    pub fn get(&self, normalized: &str) -> Option<Arc<UserWord>> {
        self.find(name_hash(normalized), normalized).cloned()
    }

    /// The User Word a parsed name denotes, borrowed.
    #[inline]
    pub fn get_named(&self, name: &Name) -> Option<&Arc<UserWord>> {
        self.find(name.hash, &name.normalized)
    }

    #[inline]
    fn find(&self, hash: u64, normalized: &str) -> Option<&Arc<UserWord>> {
        self.words.find(hash, |w| same_name(&w.name, normalized))
    }

    /// Every User Word, in definition order.
    pub fn words(&self) -> Vec<Arc<UserWord>> {
        let mut all: Vec<Arc<UserWord>> = self.words.iter().cloned().collect();
        all.sort_by_key(|w| w.order);
        all
    }

    /// Number of User Words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether no User Word is defined.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// User Words that record `name` as a dependency, sorted.
    pub fn dependents(&self, name: &str) -> Vec<Arc<str>> {
        let mut out: Vec<Arc<str>> = self
            .words
            .iter()
            .filter(|w| w.deps.iter().any(|d| &**d == name))
            .map(|w| w.name.clone())
            .collect();
        out.sort();
        out
    }

    /// Define or redefine `name` (already normalized and validated as a name) with
    /// `body`. Refuses an empty body, a top-level `|`, and a redefinition while other
    /// Words depend on the name.
    pub fn define(&mut self, name: Arc<str>, body: Arc<Block>) -> Result<(), LangError> {
        if body.is_empty() {
            return Err(err::invalid_argument(format!(
                "the body of {name} is empty; a Word needs at least one token"
            )));
        }
        if body.bar_count() > 0 {
            return Err(err::malformed(format!(
                "the body of {name} contains '|', which is valid only in blocks given to {}",
                self.registry.clause_reader_name()
            )));
        }
        let hash = name_hash(&name);
        if self.find(hash, &name).is_some() {
            let dependents = self.dependents(&name);
            if !dependents.is_empty() {
                return Err(err::dictionary(format!(
                    "cannot redefine {name}: {} depend{} on it; delete {} first",
                    join_names(&dependents),
                    if dependents.len() == 1 { "s" } else { "" },
                    if dependents.len() == 1 { "it" } else { "them" }
                )));
            }
        }
        let deps = self.dependencies_of(&body, &name);
        self.links = self.links.saturating_add(deps.len() as u64);
        if let Some(old) = self.find(hash, &name) {
            self.links = self.links.saturating_sub(old.deps.len() as u64);
        }
        let order = self.next_order;
        self.next_order += 1;
        let word = Arc::new(UserWord {
            name,
            body,
            deps,
            order,
        });
        match self
            .words
            .entry(hash, |w| w.name == word.name, |w| name_hash(&w.name))
        {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = word,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(word);
            }
        }
        Ok(())
    }

    /// Delete the User Word `name` (normalized). Refuses unknown names and Words others depend on.
    pub fn delete(&mut self, name: &str) -> Result<(), LangError> {
        let hash = name_hash(name);
        if self.find(hash, name).is_none() {
            return Err(err::dictionary(format!(
                "there is no User Word {name} to delete"
            )));
        }
        let dependents = self.dependents(name);
        if !dependents.is_empty() {
            return Err(err::dictionary(format!(
                "cannot delete {name}: {} depend{} on it; delete {} first",
                join_names(&dependents),
                if dependents.len() == 1 { "s" } else { "" },
                if dependents.len() == 1 { "it" } else { "them" }
            )));
        }
        if let Ok(entry) = self.words.find_entry(hash, |w| &*w.name == name) {
            let (removed, _) = entry.remove();
            self.links = self.links.saturating_sub(removed.deps.len() as u64);
        }
        Ok(())
    }

    /// Every name token anywhere in `body` (vector literals included) that resolves
    /// now to a User Word other than `own`.
    fn dependencies_of(&self, body: &Block, own: &str) -> Vec<Arc<str>> {
        let mut deps: Vec<Arc<str>> = Vec::new();
        let mut work: Vec<&[Item]> = vec![body.items()];
        while let Some(items) = work.pop() {
            for item in items {
                match item {
                    Item::Name { name, .. }
                        if self.registry.lookup(&name.normalized).is_none()
                            && &*name.normalized != own =>
                    {
                        if let Some(w) = self.get_named(name) {
                            deps.push(w.name.clone());
                        }
                    }
                    Item::Vector { items, .. } => work.push(items),
                    Item::Block { block, .. } => work.push(block.items()),
                    _ => {}
                }
            }
        }
        deps.sort();
        deps.dedup();
        deps
    }
}

fn join_names(names: &[Arc<str>]) -> String {
    names
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Byte equality of two names, inline: names are short, and a call into `memcmp`
/// costs more than comparing them here (a User Word call looks one up every time).
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_checks_recall_the_text_they_saw_and_stay_bounded() {
        let mut checks = NameChecks::default();
        let written: Arc<str> = Arc::from("row");
        checks.remember(Arc::clone(&written), Arc::from("ROW"));
        assert_eq!(checks.recall(&written).as_deref(), Some("ROW"));
        // Equal text elsewhere in memory is checked anew: the key is the address.
        assert_eq!(checks.recall(&Arc::from("row")), None);
        let others: Vec<Arc<str>> = (0..NameChecks::CAPACITY)
            .map(|i| Arc::from(format!("N{i}")))
            .collect();
        for o in &others {
            checks.remember(Arc::clone(o), Arc::clone(o));
        }
        assert_eq!(checks.entries.len(), NameChecks::CAPACITY);
        assert_eq!(checks.recall(&written), None, "the oldest entry went first");
        assert!(others.iter().all(|o| checks.recall(o).is_some()));
    }
}
