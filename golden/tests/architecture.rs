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

/// Every `.rs` file under `core/src/<layer>`, with its text.
fn layer_files(layer: &str) -> Vec<(std::path::PathBuf, String)> {
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
                out.push((path, text));
            }
        }
    }
    assert!(!out.is_empty(), "core/src/{layer} holds sources");
    out
}

/// Every `.rs` file under `core/src/<layer>`, with its text stripped of `//` comments
/// (prose may name anything; code may not).
fn layer_sources(layer: &str) -> Vec<(std::path::PathBuf, String)> {
    layer_files(layer)
        .into_iter()
        .map(|(path, text)| {
            let code: Vec<&str> = text
                .lines()
                .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
                .collect();
            (path, code.join("\n"))
        })
        .collect()
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
const HOST_MODULES: [&str; 11] = [
    "host",
    "check",
    "contract",
    "display",
    "engine",
    "envelope",
    "identity",
    "node",
    "phrasebook",
    "render",
    "suggest",
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

/// The contents of every string literal in `code` (plain and raw), skipping `//`
/// comments and character literals, so prose may name anything and code may not.
fn string_literals(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                // A char literal ('"', '\'') or a lifetime: skip past it.
                let close = (i + 1..chars.len().min(i + 4)).find(|&j| chars[j] == '\'');
                i = close.map_or(i + 1, |j| j + 1);
            }
            'r' if matches!(chars.get(i + 1), Some('"' | '#'))
                && !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                let start = i + 2 + hashes;
                let mut j = start;
                let mut text = String::new();
                while j < chars.len() {
                    if chars[j] == '"'
                        && chars[j + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|c| **c == '#')
                            .count()
                            == hashes
                    {
                        break;
                    }
                    text.push(chars[j]);
                    j += 1;
                }
                out.push(text);
                i = j + 1 + hashes;
            }
            '"' => {
                let mut j = i + 1;
                let mut text = String::new();
                while j < chars.len() && chars[j] != '"' {
                    if chars[j] == '\\' {
                        j += 1;
                    }
                    if let Some(c) = chars.get(j) {
                        text.push(*c);
                    }
                    j += 1;
                }
                out.push(text);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The upper-case name-shaped tokens of a literal (`COND`, `LENGTHS`), `_` included so
/// a placeholder like `{MAX_DECLARED_COUNT}` stays one token.
fn upper_tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_'))
        .map(|t| t.trim_matches('-'))
        .filter(|t| t.starts_with(|c: char| c.is_ascii_uppercase()))
        .collect()
}

/// Spellings the language itself defines (docs/reference/lexical.md): the literals and VENT are
/// syntax, not Words, whatever the registry documents.
const SYNTAX_SPELLINGS: [&str; 4] = ["TRUE", "FALSE", "NIL", "VENT"];

/// Core's sources outside unit-test modules, with the syntax layer's table of the
/// docs/reference/lexical.md#names-and-case symbolic aliases cut out (checked against the registry
/// below).
fn core_code() -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for layer in ["syntax", "runtime", "host"] {
        for (path, mut text) in layer_files(layer) {
            if let Some(at) = text.find("#[cfg(test)]\nmod tests") {
                text.truncate(at);
            }
            if let Some(at) = text.find("pub const ALIASES") {
                let end = text[at..].find("];").map_or(text.len(), |e| at + e);
                text.replace_range(at..end, "");
            }
            out.push((path, text));
        }
    }
    out
}

/// The names and aliases of every Word the words crate registers.
fn registered_names() -> std::collections::BTreeSet<&'static str> {
    ajisai_words::link();
    let reg = ajisai_core::word::registry();
    reg.specs()
        .iter()
        .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()))
        .filter(|n| !SYNTAX_SPELLINGS.contains(n))
        .collect()
}

#[test]
fn core_code_names_no_word() {
    let names = registered_names();
    let mut found = Vec::new();
    for (path, code) in core_code() {
        for literal in string_literals(&code) {
            for token in upper_tokens(&literal) {
                if names.contains(token) {
                    found.push(format!("{}: {token} in {literal:?}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "core's code names Words (declare what it needs in the WordSpec instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_word_check_sees_a_name() {
    let code = "let a = \"COND\"; // \"MAP\" in prose\nlet b = format!(\"use {c} or SORT\", c = x); let q = '\"'; let r = r#\"EXEC \"quoted\"\"#;";
    assert_eq!(
        string_literals(code),
        ["COND", "use {c} or SORT", "EXEC \"quoted\""]
    );
    assert_eq!(
        upper_tokens("a {MAX_DECLARED_COUNT} COND-ish LENGTH,"),
        ["MAX_DECLARED_COUNT", "COND", "LENGTH"]
    );
    let names = registered_names();
    assert!(names.contains("COND") && names.contains("+") && !names.contains("VENT"));
}

#[test]
fn the_syntax_alias_table_is_the_registrys() {
    ajisai_words::link();
    let reg = ajisai_core::word::registry();
    let mut declared: Vec<(&str, &str)> = reg
        .specs()
        .iter()
        .flat_map(|s| s.aliases.iter().map(move |a| (*a, s.name)))
        .filter(|(_, word)| !SYNTAX_SPELLINGS.contains(word))
        .collect();
    declared.sort();
    let mut syntax: Vec<(&str, &str)> = ajisai_core::code::ALIASES
        .iter()
        .copied()
        .filter(|(_, word)| !SYNTAX_SPELLINGS.contains(word))
        .collect();
    syntax.sort();
    assert_eq!(syntax, declared);
}

/// Every `.rs` file under `<crate>/src`, relative to the workspace, with its text up to
/// its unit-test module.
fn crate_sources(krate: &str) -> Vec<(String, String)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ajisai_golden::rust_files(&workspace.join(krate).join("src"))
        .into_iter()
        .map(|(path, mut text)| {
            if let Some(at) = text.find("#[cfg(test)]\nmod tests") {
                text.truncate(at);
            }
            let name = path
                .strip_prefix(&workspace)
                .expect("under the workspace")
                .to_string_lossy()
                .into_owned();
            (name, text)
        })
        .collect()
}

/// Whether `code` imports or calls the writer's string functions (`json::write_str`,
/// `json::quoted`, or either inside a `json::{…}` import).
fn uses_string_writer(code: &str) -> bool {
    code.match_indices("json::").any(|(i, _)| {
        let rest = &code[i + "json::".len()..];
        let item = match rest.strip_prefix('{') {
            Some(group) => group.split('}').next().unwrap_or(""),
            None => rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or(""),
        };
        item.contains("write_str") || item.contains("quoted")
    })
}

/// JSON is written by hand only where values nest deeply, exact numbers stream or the
/// layout is priced before it is written: the writer itself, the stack node, the
/// envelope, and `JSON-ENCODE`'s encoder. Everything flat goes through serde.
#[test]
fn json_is_written_by_hand_in_four_files_at_most() {
    const HAND_WRITTEN: [&str; 4] = [
        "core/src/runtime/json.rs",
        "core/src/host/node.rs",
        "core/src/host/envelope.rs",
        "words/src/json.rs",
    ];
    let mut writers = Vec::new();
    for krate in ajisai_golden::WORKSPACE_CRATES {
        for (name, text) in crate_sources(krate) {
            let code: String = text
                .lines()
                .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
                .collect::<Vec<_>>()
                .join("\n");
            if code.contains("ObjectWriter") || uses_string_writer(&code) {
                writers.push(name);
            }
        }
    }
    writers.sort();
    for name in &writers {
        assert!(
            HAND_WRITTEN.contains(&name.as_str()),
            "{name} writes JSON by hand: derive serde::Serialize for its records"
        );
    }
    assert!(writers.len() <= 4, "{writers:?}");
    // The scan sees the writer however it is imported, and not `fmt`'s `write_str`.
    assert!(uses_string_writer(
        "use ajisai_core::json::{quoted, HostFields};"
    ));
    assert!(uses_string_writer("crate::json::write_str(out, s)"));
    assert!(!uses_string_writer(
        "use crate::json::{with_members, HostFields};"
    ));
    assert!(!uses_string_writer("f.write_str(\"0/1\")"));
}

/// The modules of `server/src` (`mcp::protocol::handler`, `web`, …; the binaries excluded) and
/// the modules each one's code (comments and `#[cfg(test)] mod tests` left out) names
/// through `crate::` or `super::` paths, grouped imports included.
fn server_module_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src");
    let mut files = BTreeMap::new();
    for (path, text) in ajisai_golden::rust_files(&root) {
        let rel = path.strip_prefix(&root).expect("under server/src");
        let mut parts: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if parts.first().is_some_and(|p| p == "bin") {
            continue;
        }
        if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
            parts.pop();
        }
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or("")
            .lines()
            .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
            .collect::<Vec<_>>()
            .join("\n");
        files.insert(parts.join("::"), code);
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &files {
        let here: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
        let mut targets = BTreeSet::new();
        for path in referenced_paths(code) {
            let mut segments: Vec<&str> = path.split("::").collect();
            let mut absolute: Vec<&str> = if segments[0] == "crate" {
                segments.remove(0);
                Vec::new()
            } else {
                let ups = segments.iter().take_while(|s| **s == "super").count();
                segments.drain(..ups);
                here[..here.len().saturating_sub(ups)].to_vec()
            };
            absolute.extend(segments);
            // The longest prefix that is a module of the crate.
            for k in (1..=absolute.len()).rev() {
                let candidate = absolute[..k].join("::");
                if files.contains_key(&candidate) {
                    let inside =
                        *module == candidate || module.starts_with(&format!("{candidate}::"));
                    if !inside {
                        targets.insert(candidate);
                    }
                    break;
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// Every `crate::…` and `super::…` path in `code`, a grouped import `p::{a, b::c}` read as
/// `p::a` and `p::b::c`.
fn referenced_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let starts = (rest.starts_with("crate::") || rest.starts_with("super::"))
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let head: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let after = &rest[head.len()..];
        let prefix = head.trim_end_matches(':');
        if head.ends_with("::") && after.starts_with('{') {
            let inner = after[1..].split('}').next().unwrap_or("");
            for part in inner.split(',') {
                let part = part.trim().split(" as ").next().unwrap_or("").trim();
                if !part.is_empty() && part != "self" {
                    out.push(format!("{prefix}::{part}"));
                } else if part == "self" {
                    out.push(prefix.to_string());
                }
            }
        } else {
            out.push(prefix.to_string());
        }
        i += head.len().max(1);
    }
    out
}

/// The modules of `graph` that lie on a cycle, one group per strongly connected set.
fn cycles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    // Each module's reach, then the groups whose members reach each other.
    let reach = |start: &String| {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![start.clone()];
        while let Some(m) = todo.pop() {
            for n in graph.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    };
    let reaches: std::collections::BTreeMap<&String, _> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut groups: Vec<Vec<String>> = Vec::new();
    for m in graph.keys() {
        if !reaches[m].contains(m) || groups.iter().any(|g| g.contains(m)) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|n| reaches[m].contains(*n) && reaches[*n].contains(m))
            .cloned()
            .collect();
        groups.push(group);
    }
    groups
}

/// No module of the server crate reaches itself through its imports: each layer uses
/// the ones below it only (ARCHITECTURE.md, `server/`).
#[test]
fn the_server_crate_has_no_import_cycle() {
    let graph = server_module_graph();
    assert!(graph.len() > 20, "the scan sees the crate: {graph:?}");
    let found = cycles(&graph);
    assert!(found.is_empty(), "import cycles in server/src: {found:?}");
}

/// The server crate's hosts do not use each other: the CLI and the MCP server never; the
/// Playground is a host on the MCP server's service (its runs are tool calls, through the
/// crate `ajisai-service`), so it uses none of the MCP server's modules, and the CLI
/// (`ajisai playground`) and the MCP server's start-up (`--playground`, handing its pages
/// to the HTTP transport) may serve it. `web` (what
/// every HTTP host shares) uses none of them. The service and what every host shares are
/// crates below them all (the crate graph holds that: [`the_crates_depend_down`]).
#[test]
fn the_server_hosts_do_not_use_each_other() {
    let graph = server_module_graph();
    let mut problems = Vec::new();
    let mut playground = 0;
    for (module, targets) in &graph {
        let layer = module.split("::").next().unwrap_or("");
        playground += usize::from(layer == "playground");
        for t in targets {
            let to = t.split("::").next().unwrap_or("");
            let allowed = match layer {
                "web" => to == "web",
                "cli" => to == "cli" || to == "web" || to == "playground",
                "playground" => to == "playground" || to == "web",
                "mcp" => {
                    to == "mcp"
                        || to == "web"
                        || (to == "playground" && module.starts_with("mcp::startup"))
                }
                _ => true,
            };
            if !allowed {
                problems.push(format!("{module} uses {t}"));
            }
        }
    }
    assert!(
        playground >= 4,
        "the scan sees the Playground: {playground}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The workspace's crates, from the bottom, with the workspace crates each may depend on
/// (normal dependencies; tests and benchmarks may use more) and the crates it must not
/// use: the engine knows no host; what every host shares knows no transport, no async
/// runtime and no wire protocol; the service knows no transport, no wire protocol, no
/// command line and no exporter (it records metrics; a host serves them).
const CRATE_LAYERS: [(&str, &[&str], &[&str]); 7] = [
    ("ajisai-core", &[], &["tokio", "rmcp", "axum", "hyper"]),
    ("ajisai-numerics-pure", &["ajisai-core"], &["tokio", "rmcp"]),
    ("ajisai-numerics-gmp", &["ajisai-core"], &["tokio", "rmcp"]),
    ("ajisai-words", &["ajisai-core"], &["tokio", "rmcp"]),
    (
        "ajisai-host",
        &[
            "ajisai-core",
            "ajisai-words",
            "ajisai-numerics-pure",
            "ajisai-numerics-gmp",
        ],
        &[
            "tokio",
            "tokio-util",
            "rmcp",
            "axum",
            "hyper",
            "tower",
            "clap",
        ],
    ),
    (
        "ajisai-service",
        &["ajisai-core", "ajisai-numerics-gmp", "ajisai-host"],
        &[
            "rmcp",
            "axum",
            "hyper",
            "tower",
            "clap",
            "metrics-exporter-prometheus",
        ],
    ),
    (
        "ajisai-server",
        &[
            "ajisai-core",
            "ajisai-words",
            "ajisai-numerics-pure",
            "ajisai-numerics-gmp",
            "ajisai-host",
            "ajisai-service",
        ],
        &[],
    ),
];

/// Each crate depends only on the crates below it ([`CRATE_LAYERS`], from `cargo
/// metadata`): what the compiler then enforces, no scan of imports has to.
#[test]
fn the_crates_depend_down() {
    let meta = crate::front_door::cargo_metadata();
    let mut problems = Vec::new();
    let mut seen = 0;
    for package in meta["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a name");
        let Some((_, allowed, forbidden)) = CRATE_LAYERS.iter().find(|(n, ..)| *n == name) else {
            continue;
        };
        seen += 1;
        for dep in package["dependencies"].as_array().expect("dependencies") {
            if !dep["kind"].is_null() {
                continue;
            }
            let dep = dep["name"].as_str().expect("a name");
            if dep.starts_with("ajisai-") && !allowed.contains(&dep) {
                problems.push(format!("{name} depends on {dep}, which is not below it"));
            }
            if forbidden.contains(&dep) {
                problems.push(format!("{name} depends on {dep}"));
            }
        }
    }
    assert_eq!(
        seen,
        CRATE_LAYERS.len(),
        "every layered crate is in the workspace"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The MCP server's layers, from the top: each uses only those below it (and `logging`,
/// which every layer may use, uses none).
const MCP_LAYERS: [&str; 4] = ["startup", "transport", "protocol", "logging"];

/// Inside the MCP server, imports point down: startup → transport → protocol (→ the
/// crates `ajisai-service` and `ajisai-host`); a transport only moves messages.
#[test]
fn the_mcp_layers_point_down() {
    let graph = server_module_graph();
    let rank = |module: &str| {
        let layer = module.strip_prefix("mcp::")?.split("::").next()?;
        MCP_LAYERS.iter().position(|l| *l == layer)
    };
    let mut seen = 0;
    let mut problems = Vec::new();
    for (module, targets) in &graph {
        let Some(from) = rank(module) else { continue };
        seen += 1;
        for t in targets {
            if rank(t).is_some_and(|to| to < from) {
                problems.push(format!("{module} uses {t}, a layer above it"));
            }
        }
    }
    assert!(seen > 10, "the scan sees the layers: {seen}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A transport carries any `transport::Service` and names no concrete server: no code of
/// `server/src/mcp/transport/` (comments and unit tests left out) names the service's
/// server, the rmcp adapter that wraps it, or the Playground; start-up assembles what a
/// transport carries (`mcp::startup::app`).
#[test]
fn a_transport_names_no_concrete_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src/mcp/transport");
    let files = ajisai_golden::rust_files(&root);
    assert!(
        files.len() >= 3,
        "the scan sees the transports: {}",
        files.len()
    );
    let mut found = Vec::new();
    for (path, text) in files {
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let line = line.split_once("//").map_or(line, |(code, _)| code);
            for name in [
                "AjisaiServer",
                "handler::",
                "Handler::new",
                "playground::",
                "Playground",
            ] {
                if line.contains(name) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Whether a request is in a self-contained revision (2026-07-28 or later) is decided in
/// one place, `server/src/mcp/protocol/revision.rs`: no other code of the server names
/// that revision (unit tests may).
#[test]
fn the_revision_rule_is_decided_in_one_place() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = ["server/src", "service/src", "host/src"]
        .iter()
        .flat_map(|dir| ajisai_golden::rust_files(&workspace.join(dir)));
    let mut found = Vec::new();
    for (path, text) in files {
        if path.ends_with("mcp/protocol/revision.rs") {
            continue;
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let line = line.split_once("//").map_or(line, |(code, _)| code);
            if line.contains("V_2026_07_28") || line.contains("\"2026-07-28\"") {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "ask protocol::revision instead:\n{}",
        found.join("\n")
    );
}

/// The cycle check sees a cycle, grouped imports and `super` paths included.
#[test]
fn the_cycle_check_sees_a_cycle() {
    let paths = referenced_paths("use super::{a, b::C as D};\nlet x = crate::host::memory::f();");
    assert_eq!(paths, ["super::a", "super::b::C", "crate::host::memory::f"]);
    let mut graph = std::collections::BTreeMap::new();
    for (m, t) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        graph
            .entry(m.to_string())
            .or_insert_with(std::collections::BTreeSet::new)
            .insert(t.to_string());
    }
    assert_eq!(cycles(&graph), vec![vec!["a", "b", "c"]]);
}
