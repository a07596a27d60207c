//! Static name resolution for `check` (phase 2 of docs/contracts.md#what-check-promises), and the
//! warnings of valid programs that read like a known trap.
//!
//! Stricter than execution: every name token outside vector literals must resolve,
//! including names inside bodies that are never called.

use crate::code::Program;
use crate::code::{Block, Item};
use crate::outcome::{ErrorCategory, LangError, Pos, Trap};
use crate::word::{hint_for_trap, registry, Role};
use std::collections::HashSet;

/// A valid program that reads like a known trap: `check` reports it with severity
/// `warning`; `compute` runs the program as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The trap.
    pub trap: Trap,
    /// What the program does there and what was likely meant, with the hint.
    pub message: String,
    /// The token that springs the trap.
    pub pos: Option<Pos>,
}

/// The most trap warnings `check` lists; `findingsOmitted` counts the rest.
pub const WARNINGS_MAX: usize = 8;

/// The trap warnings of `program` (the first [`WARNINGS_MAX`] in source order) and
/// how many more there are: every `^` right after a number literal (VENT, which then
/// always skips the unit after it — `2 10 ^ 1 -` is `-8/1` — where a power was likely
/// meant), in blocks and bodies too.
pub fn trap_warnings(program: &Program) -> (Vec<Warning>, usize) {
    let mut sprung: Vec<(Option<Pos>, &str)> = Vec::new();
    let mut work: Vec<&[Item]> = vec![program.block.items()];
    while let Some(items) = work.pop() {
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Vector { items: inner, .. } => work.push(inner),
                Item::Block { block, .. } => work.push(block.items()),
                Item::Vent { pos } => {
                    if let Some(Item::Number { lexeme, .. }) = i.checked_sub(1).map(|j| &items[j]) {
                        sprung.push((*pos, lexeme));
                    }
                }
                _ => {}
            }
        }
    }
    sprung.sort_by_key(|(pos, _)| pos.map(|p| (p.line, p.column)));
    let omitted = sprung.len().saturating_sub(WARNINGS_MAX);
    let warnings = sprung
        .into_iter()
        .take(WARNINGS_MAX)
        .map(|(pos, lexeme)| {
            let mut message = format!(
                "`{} ^` is VENT right after a number, which is never NIL, so the unit after `^` never runs",
                crate::envelope::shortened(lexeme, 40)
            );
            crate::suggest::append_hint(&mut message, hint_for_trap(Trap::VentAfterNumber));
            Warning {
                trap: Trap::VentAfterNumber,
                message,
                pos,
            }
        })
        .collect();
    (warnings, omitted)
}

/// The role of the Core Word `item` names, if it names one.
fn role_of(item: &Item) -> Option<Role> {
    let Item::Name { name, .. } = item else {
        return None;
    };
    registry()
        .lookup(&name.normalized)
        .map(|id| registry().spec(id).role)
}

/// Names the program defines (`'NAME' DEF`) and binds (`'N' BIND`, `[ … ] BIND`), normalized.
pub fn defined_and_bound(block: &Block) -> (HashSet<String>, HashSet<String>) {
    let mut defined = HashSet::new();
    let mut bound = HashSet::new();
    let mut work: Vec<&[Item]> = vec![block.items()];
    while let Some(items) = work.pop() {
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Vector { items: inner, .. } => work.push(inner),
                Item::Block { block, .. } => work.push(block.items()),
                _ => {}
            }
            let Some(next) = items.get(i + 1) else {
                continue;
            };
            let role = role_of(next);
            match item {
                Item::Str { text, .. } if role == Some(Role::Defines) => {
                    defined.insert(crate::code::normalize(text));
                }
                Item::Str { text, .. } if role == Some(Role::Binds) => {
                    bound.insert(crate::code::normalize(text));
                }
                Item::Vector { items: inner, .. } if role == Some(Role::Binds) => {
                    let names = crate::code::literal_string_elements(inner).unwrap_or_default();
                    bound.extend(names.into_iter().map(crate::code::normalize));
                }
                _ => {}
            }
        }
    }
    (defined, bound)
}

fn is_idle_guard(items: &[Item]) -> bool {
    let significant: Vec<&Item> = items.iter().filter(|i| !i.is_line_break()).collect();
    matches!(significant.as_slice(), [Item::Name { name, .. }] if Some(&*name.normalized) == registry().else_guard())
}

/// Resolve every name of the program; `unknownWord` listing the unresolved ones.
pub fn resolve_names(program: &Program) -> Result<(), LangError> {
    resolve_names_with(program, &[])
}

/// [`resolve_names`] where `known` (normalized) names — prelude Words — also resolve.
pub fn resolve_names_with(program: &Program, known: &[&str]) -> Result<(), LangError> {
    let (mut defined, bound) = defined_and_bound(&program.block);
    defined.extend(known.iter().map(|k| k.to_string()));
    let mut unresolved: Vec<(String, Option<crate::outcome::Pos>)> = Vec::new();
    // (items, inside a vector literal directly, is a block's item run)
    let mut work: Vec<(&[Item], bool, bool)> = vec![(program.block.items(), false, false)];
    let mut order: Vec<(&Item, bool)> = Vec::new();
    while let Some((items, in_vector, is_block)) = work.pop() {
        // An IDLE guard: the only token of a block, or the only token before its `|`.
        let idle_ok: Option<usize> = if is_block {
            let bar = items.iter().position(|i| matches!(i, Item::Bar { .. }));
            let head = &items[..bar.unwrap_or(items.len())];
            if is_idle_guard(head) {
                head.iter().position(|i| !i.is_line_break())
            } else {
                None
            }
        } else {
            None
        };
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Vector { items: inner, .. } => work.push((inner, true, false)),
                Item::Block { block, .. } => work.push((block.items(), false, true)),
                Item::Name { .. } if !in_vector => order.push((item, idle_ok == Some(i))),
                _ => {}
            }
        }
    }
    for (item, idle) in order {
        let Item::Name { name, pos } = item else {
            continue;
        };
        if idle
            || registry().lookup(&name.normalized).is_some()
            || defined.contains(&*name.normalized)
            || bound.contains(&*name.normalized)
        {
            continue;
        }
        unresolved.push((name.written.to_string(), *pos));
    }
    if unresolved.is_empty() {
        return Ok(());
    }
    unresolved.sort_by_key(|(_, p)| p.map(|p| (p.line, p.column)));
    let first = unresolved[0].clone();
    let mut names: Vec<String> = Vec::new();
    for (n, _) in &unresolved {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    let message = crate::outcome::cap_list_message("Unknown words: ", &names);
    let mut e = LangError::new(ErrorCategory::UnknownWord, message);
    e.word = Some(first.0);
    e.pos = first.1;
    Err(e)
}
