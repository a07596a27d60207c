//! Near-miss suggestions for unknown names (MCP-73; docs/mcp/tools.md): Levenshtein distance over
//! upper-cased names, with a ceiling that grows with the name's length. The runtime
//! only marks an unknown-name error ([`LangError::near_misses_of`]); the host appends
//! the suggestions here, so the message reads as one.

use crate::machine::Dictionary;
use crate::outcome::DeepRecursion;
use crate::outcome::{ErrorCategory, LangError};
use crate::word::{hint_for_deep_recursion, hint_for_name, hint_for_trap};

/// Edit distance over Unicode scalar values (strsim's Levenshtein).
pub fn levenshtein(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

fn ceiling(len: usize) -> usize {
    match len {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    }
}

/// Up to three candidates closest to `written`, best first (distance, then name).
pub fn closest<'a>(written: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let query = written.to_uppercase();
    let max = ceiling(query.chars().count());
    let mut scored: Vec<(usize, String)> = Vec::new();
    for c in candidates {
        if !c.chars().any(|ch| ch.is_alphanumeric()) {
            continue;
        }
        let cu = c.to_uppercase();
        if cu == query {
            continue;
        }
        let d = levenshtein(&query, &cu);
        if d <= max {
            scored.push((d, cu));
        }
    }
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Suggestions for an unknown name among the Core names and aliases of the
/// dictionary's vocabulary and its User Words.
pub fn closest_for(written: &str, dict: &Dictionary) -> Option<Vec<String>> {
    let reg = dict.registry();
    let user: Vec<std::sync::Arc<str>> = dict.words().iter().map(|w| w.name.clone()).collect();
    let names = reg
        .specs()
        .iter()
        .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()))
        .chain(user.iter().map(|n| &**n));
    let found = closest(written, names);
    if found.is_empty() {
        None
    } else {
        Some(found)
    }
}

/// Finish an error the runtime raised for an unknown name: append its near misses
/// in `dict` (the dictionary as the run left it) to the message, then the
/// vocabulary's hint for the name or for the trap the source fell into
/// (`; hint: …`). Every host that shows a machine's error calls this once; other
/// errors pass unchanged.
pub fn complete(e: &mut LangError, dict: &Dictionary) {
    let hint = match e.near_misses_of.take() {
        Some(written) => {
            if let Some(names) = closest_for(&written, dict) {
                e.message
                    .push_str(&format!("; closest: {}", names.join(", ")));
            }
            hint_for_name(&written)
        }
        None => e.trap.and_then(hint_for_trap),
    };
    if hint.is_none() && e.category == ErrorCategory::ResourceLimitExceeded {
        if let Some(deep) = e.trace.as_deref().and_then(|t| {
            let innermost = t.calls.first()?;
            DeepRecursion::of(innermost.word.clone(), t.calls.len() + t.omitted)
        }) {
            explain_deep_recursion(&mut e.message, &deep);
            return;
        }
    }
    append_hint(&mut e.message, hint);
}

/// Say in a message that the run was `deep` in User Word calls when a limit stopped it,
/// then give the vocabulary's hint for a recursion that never returns.
pub fn explain_deep_recursion(message: &mut String, deep: &DeepRecursion) {
    let why = format!(
        "{}: a recursion that never reaches its base case",
        deep.describe()
    );
    // A host's message is sentences; a language error's is one clause.
    if message.ends_with('.') {
        message.push(' ');
        message.push_str(&why);
    } else {
        message.push_str(&format!(" ({why})"));
    }
    append_hint(message, hint_for_deep_recursion());
}

/// Append `; hint: <hint>` to a message, when there is a hint (the one spelling of it).
pub fn append_hint(message: &mut String, hint: Option<&str>) {
    if let Some(hint) = hint {
        message.push_str("; hint: ");
        message.push_str(hint);
    }
}

/// Append to an error of the static tools the vocabulary's hint for the trap its
/// source fell into, or for the unknown name it reports first (`check` lists every
/// unknown name and suggests none).
pub fn teach(e: &mut LangError) {
    let hint = match (e.trap, &e.word) {
        (Some(trap), _) => hint_for_trap(trap),
        (None, Some(word)) if e.category == ErrorCategory::UnknownWord => hint_for_name(word),
        _ => None,
    };
    append_hint(&mut e.message, hint);
}

/// [`complete`] over a run's result.
pub fn complete_halt(result: &mut Result<(), crate::limits::Halt>, dict: &Dictionary) {
    if let Err(crate::limits::Halt::Error(e)) = result {
        complete(e, dict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(levenshtein("LENGHT", "LENGTH"), 2);
        assert_eq!(levenshtein("", "ABC"), 3);
        assert_eq!(levenshtein("ADD", "ADD"), 0);
    }

    #[test]
    fn ranks_by_distance_then_name() {
        let got = closest("lenght", ["LENGTHS", "LENGTH", "ADD", "+"]);
        assert_eq!(got, vec!["LENGTH".to_string(), "LENGTHS".to_string()]);
        assert_eq!(
            closest("lenhth", ["LENGTH", "LENGTHS"]),
            vec!["LENGTH".to_string(), "LENGTHS".to_string()]
        );
        assert!(closest("xyzzy", ["ADD"]).is_empty());
    }
}
