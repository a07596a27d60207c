//! The effective phrasebook (MCP.md §9) as far as the `words` argument needs it.
//!
//! This build has no phrasebook yet: the effective phrasebook is empty, so every
//! `words` entry is unknown. Everything that depends on its contents — the check of
//! `words` entries (MCP-19 step 7) and the `words` description (MCP-23) — asks this
//! module, so the phrasebook plugs in here.

use super::hosterror::HostError;

/// The most entries `words` may have (MCP-17).
pub const MAX_WORDS: usize = 64;

/// The longest phrasebook Word name, in characters (MCP-17).
pub const MAX_NAME_CHARS: usize = 64;

/// The phrasebook the server serves.
#[derive(Clone, Debug, Default)]
pub struct Phrasebook {
    names: Vec<String>,
}

impl Phrasebook {
    /// The phrasebook of this build (empty until one is embedded).
    pub fn effective() -> Phrasebook {
        Phrasebook::default()
    }

    /// The Words' names, in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The canonical spelling of a phrasebook Word, matched case-insensitively.
    pub fn find(&self, name: &str) -> Option<&str> {
        let upper = name.to_uppercase();
        self.names
            .iter()
            .find(|n| n.to_uppercase() == upper)
            .map(String::as_str)
    }

    /// The sentence of the `words` description that names what can be requested
    /// (MCP-23: the names when there are at most 64, else a pointer to the resource).
    pub fn description_sentence(&self) -> String {
        match self.names.len() {
            0 => "This server's phrasebook has no Words yet, so leave `words` out.".to_string(),
            n if n <= MAX_WORDS => format!("Available: {}.", self.names.join(", ")),
            _ => "The names are listed in ajisai://phrasebook.".to_string(),
        }
    }

    /// Check a `words` argument (MCP-19 step 7): at most 64 entries, no duplicates
    /// (case-insensitive), each a phrasebook Word. Returns the canonical names.
    pub fn resolve(&self, tool: &str, words: &[String]) -> Result<Vec<String>, HostError> {
        if words.len() > MAX_WORDS {
            return Err(HostError::invalid(format!(
                "Argument `words` of {tool} has {} entries; at most {MAX_WORDS} are accepted.",
                words.len()
            )));
        }
        let mut seen: Vec<String> = Vec::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            let chars = w.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS {
                return Err(HostError::invalid(format!(
                    "Entry `words[{i}]` of {tool} must be 1 to {MAX_NAME_CHARS} characters long."
                )));
            }
            let upper = w.to_uppercase();
            if seen.contains(&upper) {
                return Err(HostError::invalid(format!(
                    "Entry `words[{i}]` of {tool} repeats `{w}` (names compare case-insensitively)."
                )));
            }
            seen.push(upper);
        }
        let mut resolved = Vec::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            match self.find(w) {
                Some(name) => resolved.push(name.to_string()),
                None => {
                    return Err(HostError::invalid(format!(
                    "Entry `words[{i}]` of {tool} names `{w}`, which is not a phrasebook Word; {}",
                    self.where_to_look()
                )))
                }
            }
        }
        Ok(resolved)
    }

    fn where_to_look(&self) -> &'static str {
        if self.names.is_empty() {
            "this server's phrasebook has no Words."
        } else {
            "the phrasebook's Words are listed in ajisai://phrasebook."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_phrasebook_refuses_every_name_but_accepts_none() {
        let p = Phrasebook::effective();
        assert_eq!(p.resolve("compute", &[]), Ok(vec![]));
        let e = p.resolve("compute", &["double".to_string()]).unwrap_err();
        assert!(e.message.contains("`double`"), "{}", e.message);
        let e = p
            .resolve("compute", &["a".to_string(), "A".to_string()])
            .unwrap_err();
        assert!(e.message.contains("repeats"), "{}", e.message);
        let many: Vec<String> = (0..65).map(|i| format!("W{i}")).collect();
        assert!(p
            .resolve("compute", &many)
            .unwrap_err()
            .message
            .contains("at most 64"));
    }

    #[test]
    fn known_names_resolve_case_insensitively() {
        let p = Phrasebook {
            names: vec!["DOUBLE".to_string()],
        };
        assert_eq!(
            p.resolve("check", &["double".to_string()]),
            Ok(vec!["DOUBLE".to_string()])
        );
        assert_eq!(p.description_sentence(), "Available: DOUBLE.");
    }
}
