//! The committed registry documents must equal what the code declares, and every Word
//! carries its part of the Word reference.
//! Regenerate with `AJISAI_BLESS=1 cargo test -p ajisai-words --test words registry::`.

use std::path::PathBuf;

fn spec_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("spec")
        .join(name)
}

fn check_or_bless(name: &str, generated: &str) {
    let path = spec_path(name);
    if std::env::var_os("AJISAI_BLESS").is_some() {
        std::fs::write(&path, generated).expect("spec/ is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "spec/{name} differs from what the code declares; run AJISAI_BLESS=1 cargo test -p ajisai-words --test words registry:: and commit"
    );
}

#[test]
fn words_json_matches_the_declarations() {
    ajisai_words::link();
    check_or_bless("words.json", &ajisai_core::word::registry_document());
}

#[test]
fn outcomes_json_matches_the_declarations() {
    check_or_bless("outcomes.json", &ajisai_core::outcome::outcomes_document());
}

#[test]
fn registry_documents_parse() {
    ajisai_words::link();
    let doc: serde_json::Value =
        serde_json::from_str(&ajisai_core::word::registry_document()).unwrap();
    let entries = doc["entries"].as_array().unwrap();
    // Every entry is a Word the machine resolves by that name and by each alias the
    // entry lists, and every Word the machine knows has an entry.
    let registry = ajisai_core::word::registry();
    let mut aliases = 0;
    for entry in entries {
        let name = entry["name"].as_str().unwrap();
        let id = registry
            .lookup(name)
            .unwrap_or_else(|| panic!("{name} is documented but does not resolve"));
        assert_eq!(registry.spec(id).name, name);
        for alias in entry["aliases"].as_array().into_iter().flatten() {
            let alias = alias.as_str().unwrap();
            assert_eq!(registry.lookup(alias), Some(id), "alias {alias} of {name}");
            aliases += 1;
        }
    }
    assert_eq!(entries.len(), registry.specs().len());
    assert!(aliases > 0, "the aliases were checked");
    let outcomes: serde_json::Value =
        serde_json::from_str(&ajisai_core::outcome::outcomes_document()).unwrap();
    assert_eq!(outcomes["errorCategories"].as_array().unwrap().len(), 10);
    assert_eq!(outcomes["outcomes"].as_array().unwrap().len(), 1 + 9 + 10);
}

/// Every documented Word has rules that say something, and a family's rules are written
/// once, by a module that registers Words of that family.
#[test]
fn every_word_has_its_rules() {
    ajisai_words::link();
    let prose = ajisai_words::reference::prose();
    assert!(
        prose.conventions.contains("### Integer operands"),
        "the conventions are read"
    );
    let mut problems = Vec::new();
    for s in ajisai_words::registry().documented() {
        if s.rules.trim().len() < 40 {
            problems.push(format!(
                "{}: rules too short to say anything: {:?}",
                s.name, s.rules
            ));
        }
    }
    let mut written = std::collections::BTreeSet::new();
    for r in inventory::iter::<ajisai_core::word::FamilyRegistration> {
        for (family, text) in r.family_rules {
            if !written.insert(family.id()) {
                problems.push(format!("{}: its rules are written twice", family.id()));
            }
            if !r.words.iter().any(|w| w.family == *family) {
                problems.push(format!(
                    "module {} writes the rules of {}, none of whose Words it registers",
                    r.module,
                    family.id()
                ));
            }
            if text.trim().is_empty() {
                problems.push(format!("{}: empty rules", family.id()));
            }
        }
    }
    assert!(problems.is_empty(), "the Word reference: {problems:#?}");
}
