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

/// Every `.rs` file under `core/src/<layer>`, with its text stripped of `//` comments
/// (prose may name anything; code may not).
fn layer_sources(layer: &str) -> Vec<(std::path::PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/src")
        .join(layer);
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("layer folder is readable") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("readable source");
                let code: Vec<&str> = text
                    .lines()
                    .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
                    .collect();
                out.push((path, code.join("\n")));
            }
        }
    }
    assert!(!out.is_empty(), "core/src/{layer} holds sources");
    out
}

/// The first path segment of every `crate::` path in `code`, grouped imports included.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for part in inner.split(',') {
                let first = part.trim().split("::").next().unwrap_or("").trim();
                if !first.is_empty() {
                    out.push(first.to_string());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// The host layer's modules (also re-exported at the crate root, so a path through the
/// root reaches up as well).
const HOST_MODULES: [&str; 9] = [
    "host",
    "check",
    "contract",
    "display",
    "engine",
    "envelope",
    "identity",
    "phrasebook",
    "render",
];

#[test]
fn syntax_knows_nothing_above_it() {
    for (path, code) in layer_sources("syntax") {
        for first in crate_paths(&code) {
            assert_eq!(
                first,
                "syntax",
                "{} reaches out of the syntax layer through crate::{first}",
                path.display()
            );
        }
    }
}

#[test]
fn runtime_knows_nothing_of_the_host() {
    for (path, code) in layer_sources("runtime") {
        for first in crate_paths(&code) {
            assert!(
                !HOST_MODULES.contains(&first.as_str()),
                "{} reaches up into the host layer through crate::{first}",
                path.display()
            );
        }
    }
}

#[test]
fn the_check_sees_a_reach_up() {
    let paths =
        crate_paths("use crate::{value::Value, engine};\nlet x = crate::host::engine::run;");
    assert_eq!(paths, ["value", "engine", "host"]);
    assert!(paths.iter().any(|p| HOST_MODULES.contains(&p.as_str())));
}
