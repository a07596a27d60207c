//! The committed registry documents must equal what the code declares.
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

/// One row of the Summary table: name, aliases, family, tier, inputs, outputs, NIL policy, field.
type SummaryRow = (
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// The Summary table of the specification the project was founded on, transcribed by hand:
/// a source independent of the registry (docs/words/index.md is generated from the registry).
const SUMMARY: &[SummaryRow] = &[
    (
        "TRUE",
        &[],
        "booleanLogic",
        "kernel",
        "0",
        "1",
        "preserveReason",
        "closed",
    ),
    (
        "FALSE",
        &[],
        "booleanLogic",
        "kernel",
        "0",
        "1",
        "preserveReason",
        "closed",
    ),
    (
        "AND",
        &[],
        "booleanLogic",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "OR",
        &[],
        "booleanLogic",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "NOT",
        &[],
        "booleanLogic",
        "kernel",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "EQ",
        &["="],
        "comparison",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "NEQ",
        &["!="],
        "comparison",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "LT",
        &["<"],
        "comparison",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "LTE",
        &["<="],
        "comparison",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "GT",
        &[">"],
        "comparison",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "GTE",
        &[">="],
        "comparison",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "ADD",
        &["+"],
        "exactArithmetic",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "SUB",
        &["-"],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "MUL",
        &["*"],
        "exactArithmetic",
        "kernel",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "DIV",
        &["/"],
        "exactArithmetic",
        "kernel",
        "2",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "MOD",
        &["%"],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "FLOOR",
        &[],
        "exactArithmetic",
        "kernel",
        "1",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "ROUND",
        &[],
        "exactArithmetic",
        "standard",
        "1",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "QUANTIZE",
        &[],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "ABS",
        &[],
        "exactArithmetic",
        "standard",
        "1",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "NEG",
        &[],
        "exactArithmetic",
        "kernel",
        "1",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "MIN",
        &[],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "MAX",
        &[],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "SQRT",
        &[],
        "exactArithmetic",
        "kernel",
        "1",
        "1",
        "createsNil",
        "extends",
    ),
    (
        "POW",
        &[],
        "exactArithmetic",
        "standard",
        "2",
        "1",
        "passthroughThenProject",
        "extends",
    ),
    (
        "RANDOM",
        &[],
        "exactArithmetic",
        "kernel",
        "2",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "SUM",
        &[],
        "exactArithmetic",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "GET",
        &[],
        "collection",
        "kernel",
        "2",
        "1",
        "createsNil",
        "closed",
    ),
    (
        "LENGTH",
        &[],
        "collection",
        "kernel",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "TAKE",
        &[],
        "collection",
        "standard",
        "2",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "CONCAT",
        &[],
        "collection",
        "kernel",
        "2",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "REVERSE",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "COLLECT",
        &[],
        "collection",
        "kernel",
        "variable",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "RANGE",
        &[],
        "collection",
        "kernel",
        "variable",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "FILL",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "RESHAPE",
        &[],
        "collection",
        "standard",
        "2",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "SORT",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "ORDER",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "UNIQUE",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "TALLY",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "ZIP",
        &[],
        "collection",
        "standard",
        "1",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "PUT",
        &[],
        "collection",
        "standard",
        "3",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "GROUP",
        &[],
        "collection",
        "standard",
        "2",
        "1",
        "passthrough",
        "closed",
    ),
    (
        "INDEX-OF",
        &[],
        "collection",
        "standard",
        "2",
        "1",
        "createsNil",
        "closed",
    ),
    (
        "MAP",
        &[],
        "higherOrder",
        "standard",
        "2",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "FILTER",
        &[],
        "higherOrder",
        "standard",
        "2",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "FOLD",
        &[],
        "higherOrder",
        "kernel",
        "3",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "ANY",
        &[],
        "higherOrder",
        "standard",
        "2",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "ALL",
        &[],
        "higherOrder",
        "standard",
        "2",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "CHARS",
        &[],
        "text",
        "kernel",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "JOIN",
        &[],
        "text",
        "kernel",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "TRIM",
        &[],
        "text",
        "standard",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "TOKENIZE",
        &[],
        "text",
        "standard",
        "2",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "NUM",
        &[],
        "text",
        "kernel",
        "1",
        "1",
        "createsNil",
        "closed",
    ),
    (
        "STR",
        &[],
        "text",
        "kernel",
        "1",
        "1",
        "passthroughThenProject",
        "closed",
    ),
    (
        "JSON-DECODE",
        &[],
        "text",
        "standard",
        "1",
        "1",
        "createsNil",
        "closed",
    ),
    (
        "JSON-ENCODE",
        &[],
        "text",
        "standard",
        "1",
        "1",
        "createsNil",
        "closed",
    ),
    (
        "COND",
        &[],
        "control",
        "kernel",
        "variable",
        "1",
        "consumeNil",
        "closed",
    ),
    (
        "EXEC",
        &[],
        "control",
        "kernel",
        "1",
        "variable",
        "rejectNil",
        "closed",
    ),
    (
        "NIL",
        &[],
        "absence",
        "kernel",
        "0",
        "1",
        "preserveReason",
        "closed",
    ),
    (
        "NIL?",
        &[],
        "absence",
        "kernel",
        "1",
        "2",
        "consumeNil",
        "closed",
    ),
    (
        "NIL-REASON",
        &[],
        "absence",
        "kernel",
        "1",
        "2",
        "consumeNil",
        "closed",
    ),
    (
        "VENT",
        &["^"],
        "absence",
        "kernel",
        "control",
        "control",
        "inspectNil",
        "closed",
    ),
    (
        "KEEP",
        &[],
        "stackModifier",
        "kernel",
        "0",
        "0",
        "preserveReason",
        "closed",
    ),
    (
        "BIND",
        &[],
        "dictionary",
        "kernel",
        "2",
        "0",
        "consumeNil",
        "closed",
    ),
    (
        "DEF",
        &[],
        "dictionary",
        "kernel",
        "2",
        "0",
        "rejectNil",
        "closed",
    ),
    (
        "DEL",
        &[],
        "dictionary",
        "kernel",
        "1",
        "0",
        "rejectNil",
        "closed",
    ),
    (
        "PRINT",
        &[],
        "output",
        "kernel",
        "1",
        "0",
        "preserveReason",
        "closed",
    ),
    (
        "REFLECT",
        &[],
        "reflection",
        "kernel",
        "1",
        "1",
        "rejectNil",
        "closed",
    ),
    (
        "CONTRACT",
        &[],
        "reflection",
        "standard",
        "1",
        "1",
        "createsNil",
        "closed",
    ),
];

fn arity_text(a: ajisai_core::word::Arity) -> String {
    match a {
        ajisai_core::word::Arity::Fixed(n) => n.to_string(),
        ajisai_core::word::Arity::Variable => "variable".into(),
        ajisai_core::word::Arity::Control => "control".into(),
    }
}

#[test]
fn registry_matches_the_words_md_summary() {
    ajisai_words::link();
    let reg = ajisai_core::word::registry();
    let mut problems = Vec::new();
    for (name, aliases, family, tier, inputs, outputs, nil, field) in SUMMARY {
        let Some(id) = reg.lookup(name) else {
            problems.push(format!("{name} is not registered"));
            continue;
        };
        let s = reg.spec(id);
        let got = (
            s.aliases.to_vec(),
            s.family.id(),
            s.tier.id(),
            arity_text(s.inputs),
            arity_text(s.outputs),
            s.nil_policy.id(),
            s.field.id(),
        );
        let want = (
            aliases.to_vec(),
            *family,
            *tier,
            inputs.to_string(),
            outputs.to_string(),
            *nil,
            *field,
        );
        if got != want {
            problems.push(format!(
                "{name}: registered {got:?}, the Summary says {want:?}"
            ));
        }
        let consumption = match *name {
            "TRUE" | "FALSE" | "NIL" | "KEEP" => "none",
            "NIL?" | "NIL-REASON" => "retain",
            "COND" | "VENT" => "conditional",
            _ => "eat",
        };
        if s.consumption.id() != consumption {
            problems.push(format!(
                "{name}: consumption {} (the Summary: {consumption})",
                s.consumption.id()
            ));
        }
        let purity = match *name {
            "PRINT" | "DEF" | "DEL" => "effectful",
            "EXEC" | "COND" | "MAP" | "FILTER" | "FOLD" | "ANY" | "ALL" | "VENT" => "conditional",
            _ => "pure",
        };
        if s.purity.id() != purity {
            problems.push(format!(
                "{name}: purity {} (the Summary: {purity})",
                s.purity.id()
            ));
        }
    }
    if reg.specs().len() != SUMMARY.len() {
        problems.push(format!(
            "{} Words registered, the Summary lists {}",
            reg.specs().len(),
            SUMMARY.len()
        ));
    }
    let alias_count: usize = reg.specs().iter().map(|s| s.aliases.len()).sum();
    if alias_count != 12 {
        problems.push(format!(
            "{alias_count} aliases registered, docs/reference/lexical.md#names-and-case lists 12"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
