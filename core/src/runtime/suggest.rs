//! Near-miss suggestions for unknown names (MCP-73): Levenshtein distance over
//! upper-cased names, with a ceiling that grows with the name's length.

use crate::machine::Dictionary;
use crate::word::registry;

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

/// Suggestions for an unknown name among Core names, aliases and the User Words of `dict`.
pub fn closest_for(written: &str, dict: &Dictionary) -> Option<Vec<String>> {
    let reg = registry();
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
