//! The dependency direction of ARCHITECTURE.md, checked on the manifests:
//! `core` knows no numeric library, rmcp or tokio; `words` knows no backend.

use std::path::Path;

/// The dependency names of one manifest's `[dependencies]` table (build-time
/// dependencies only: dev-dependencies may link a backend for tests).
fn dependencies(crate_dir: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir)
        .join("Cargo.toml");
    let text = std::fs::read_to_string(&path).expect("manifest is readable");
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                if !name.is_empty() && !name.starts_with('#') {
                    names.push(name.split('.').next().unwrap_or(name).to_string());
                }
            }
        }
    }
    names
}

#[test]
fn core_depends_on_no_numeric_library_and_no_protocol_stack() {
    let deps = dependencies("core");
    for forbidden in [
        "rug",
        "gmp-mpfr-sys",
        "num-bigint",
        "num-rational",
        "num-integer",
        "num-traits",
        "rmcp",
        "tokio",
    ] {
        assert!(
            !deps.iter().any(|d| d == forbidden),
            "core depends on {forbidden}: {deps:?}"
        );
    }
    assert!(
        !deps.iter().any(|d| d.starts_with("ajisai-")),
        "core depends on another workspace crate: {deps:?}"
    );
}

#[test]
fn words_depend_on_core_only_among_workspace_crates() {
    let deps = dependencies("words");
    let workspace: Vec<&String> = deps.iter().filter(|d| d.starts_with("ajisai-")).collect();
    assert_eq!(
        workspace,
        vec!["ajisai-core"],
        "words may depend on core only: {deps:?}"
    );
    for forbidden in ["rug", "num-bigint", "num-rational", "rmcp", "tokio"] {
        assert!(
            !deps.iter().any(|d| d == forbidden),
            "words depends on {forbidden}"
        );
    }
}

#[test]
fn backends_depend_on_core_not_on_words() {
    for backend in ["numerics-pure", "numerics-gmp"] {
        let deps = dependencies(backend);
        assert!(deps.iter().any(|d| d == "ajisai-core"), "{backend}");
        assert!(
            !deps.iter().any(|d| d == "ajisai-words"),
            "{backend}: a backend (and so the plugin cdylib) must not know the vocabulary"
        );
    }
}

/// The portable build links `numerics-gmp` for its plugin loader: GMP itself may only
/// come in through the optional `backend` feature, and the workspace names the crate
/// without its default features.
#[test]
fn gmp_is_optional_in_the_gmp_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("numerics-gmp/Cargo.toml")).expect("readable");
    for c_library in ["rug", "gmp-mpfr-sys"] {
        let line = manifest
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{c_library} =")))
            .unwrap_or_else(|| panic!("numerics-gmp names {c_library}"));
        assert!(line.contains("optional = true"), "{line}");
    }
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).expect("readable");
    let line = workspace
        .lines()
        .find(|l| l.starts_with("ajisai-numerics-gmp ="))
        .expect("the workspace names ajisai-numerics-gmp");
    assert!(line.contains("default-features = false"), "{line}");
}
