//! The front door (README.md, "Quick start"; issue 12): the shell blocks of the README
//! and the guide are POSIX sh, so they paste into any shell a fresh Debian or Ubuntu
//! machine has; the Quick start is two commands, the second the test script `.ci/run`
//! calls; every `cargo install` and `cargo run` keeps to `Cargo.lock`. `.ci/run` runs
//! the Quick start's first command itself, with `sh`, and checks what it prints. Every
//! test command of the README's table names a package, target and module that exist
//! (`cargo metadata`), and every file of a `tests/` folder is compiled into a test binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fenced `sh` block: the file it is in, the line its fence opens on, its text.
struct ShellBlock {
    file: String,
    line: usize,
    text: String,
}

/// The fenced blocks marked `sh` in `text`, their fence's indentation removed.
fn shell_blocks(file: &str, text: &str) -> Vec<ShellBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, usize, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match open.as_mut() {
            None if trimmed.trim_end() == "```sh" => open = Some((i + 1, indent, Vec::new())),
            None => {}
            Some(_) if trimmed.trim_end() == "```" => {
                let (line, _, body) = open.take().expect("an open block");
                blocks.push(ShellBlock {
                    file: file.to_string(),
                    line,
                    text: body.join("\n"),
                });
            }
            Some((_, indent, body)) => {
                let cut = line.len() - line.trim_start().len();
                body.push(line[cut.min(*indent)..].to_string());
            }
        }
    }
    assert!(open.is_none(), "{file}: a fenced sh block is never closed");
    blocks
}

/// Every `sh` block of the README and of the guide in `docs/`.
fn all_shell_blocks() -> Vec<ShellBlock> {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut blocks = shell_blocks("README.md", &readme);
    let mut pages = ajisai_golden::files_ending(&root.join("docs"), ".md");
    pages.sort();
    for (path, text) in pages {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        blocks.extend(shell_blocks(&rel, &text));
    }
    blocks
}

/// Constructs that bash (or zsh) accepts and POSIX sh does not, with what to write
/// instead. `dash -n` below catches the ones that are syntax errors in dash; these are
/// the rest, which dash would parse and then run differently or fail on.
const BASHISMS: &[(&str, &str)] = &[
    (
        "<<<",
        "a here-string: pipe with `printf '%s\\n' … |` or `echo … |`",
    ),
    ("[[", "`[[ … ]]`: use `[ … ]`"),
    ("&>", "`&>`: use `>file 2>&1`"),
    ("$'", "ANSI-C quoting: use `printf`"),
    ("==", "`==` in a test: use `=`"),
    ("function ", "the `function` keyword: use `name() { … }`"),
    ("source ", "`source`: use `.`"),
    ("declare ", "`declare`: plain assignment"),
    ("shopt ", "`shopt` is bash's own"),
    ("pushd", "`pushd`: use `cd` in a subshell"),
    ("${!", "indirect expansion is bash's own"),
    ("$RANDOM", "`$RANDOM` is bash's own"),
];

/// The shell text without comments, for the scan: a `#` at the start of a word starts
/// one. Quotes are not tracked; no block of ours puts ` #` inside a string.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| {
            let cut = line
                .char_indices()
                .find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with(char::is_whitespace)))
                .map_or(line.len(), |(i, _)| i);
            &line[..cut]
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_shell_block_is_posix_sh() {
    let blocks = all_shell_blocks();
    assert!(
        blocks.len() >= 10,
        "only {} sh blocks found: is the scan broken?",
        blocks.len()
    );
    let mut problems = Vec::new();
    for b in &blocks {
        let code = without_comments(&b.text);
        for (construct, instead) in BASHISMS {
            if code.contains(construct) {
                problems.push(format!("{}:{}: {instead}", b.file, b.line));
            }
        }
        // dash is Debian's /bin/sh: `-n` reads the block without running it.
        let mut dash = Command::new("dash")
            .arg("-n")
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("dash (Debian's /bin/sh) checks the blocks; apt-get install dash");
        use std::io::Write;
        dash.stdin
            .take()
            .expect("stdin")
            .write_all(b.text.as_bytes())
            .expect("write the block");
        let out = dash.wait_with_output().expect("dash ends");
        if !out.status.success() {
            problems.push(format!(
                "{}:{}: dash -n: {}",
                b.file,
                b.line,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "shell blocks that are not POSIX sh:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    let text = "Intro\n\n  ```sh\n  cat <<< x   # a here-string\n  ```\n\n```text\n[[ a ]]\n```\n";
    let blocks = shell_blocks("t.md", text);
    assert_eq!(blocks.len(), 1, "only the sh block");
    assert_eq!(
        (blocks[0].line, blocks[0].text.as_str()),
        (3, "cat <<< x   # a here-string")
    );
    assert_eq!(without_comments(&blocks[0].text), "cat <<< x   ");
    assert_eq!(without_comments("echo a#b # c"), "echo a#b ");
}

/// The README's section under `## Quick start`, up to the next `## ` heading.
fn quick_start() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme
        .find("\n## Quick start\n")
        .expect("README.md has a Quick start");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

#[test]
fn the_quick_start_is_two_commands_and_ci_runs_the_same_test_command() {
    let blocks = shell_blocks("README.md", &quick_start());
    let commands: Vec<&str> = blocks.iter().map(|b| b.text.trim()).collect();
    assert_eq!(
        commands.len(),
        2,
        "the Quick start is two commands: {commands:?}"
    );
    assert!(
        !commands[0].contains('\n'),
        "the first is one command line: {}",
        commands[0]
    );
    assert!(
        commands[0].contains(" run ") || commands[0].contains("--doctor"),
        "the first runs one program or the doctor: {}",
        commands[0]
    );
    assert_eq!(
        commands[1], "./scripts/test",
        "the second runs the whole suite"
    );
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == "(scripts/test)"),
        ".ci/run calls the README's test command"
    );
    assert!(
        ci.contains("## Quick start"),
        ".ci/run runs the Quick start's first command as written"
    );
}

#[test]
fn every_install_and_run_keeps_to_the_lockfile() {
    let mut problems = Vec::new();
    for b in all_shell_blocks() {
        for line in without_comments(&b.text).lines() {
            let cargo = line.contains("cargo install") || line.contains("cargo run");
            if cargo && !line.contains("--locked") {
                problems.push(format!("{}:{}: {}", b.file, b.line, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "without --locked, cargo re-resolves:\n{}",
        problems.join("\n")
    );
}

/// `cargo metadata --no-deps` of the workspace.
pub(crate) fn cargo_metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The test and bench targets of every workspace package, from `cargo metadata`: package
/// name → (target kind, target name, source file).
fn cargo_targets() -> Vec<(String, String, String, PathBuf)> {
    let meta = cargo_metadata();
    let mut targets = Vec::new();
    for package in meta["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a name");
        for target in package["targets"].as_array().expect("targets") {
            for kind in target["kind"].as_array().expect("kinds") {
                targets.push((
                    name.to_string(),
                    kind.as_str().expect("a kind").to_string(),
                    target["name"].as_str().expect("a name").to_string(),
                    PathBuf::from(target["src_path"].as_str().expect("a path")),
                ));
            }
        }
    }
    targets
}

/// The `mod name;` declarations of a test binary's root file.
fn declared_modules(root_file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root_file).expect("the test root");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_test_command_of_the_readme_names_a_target_that_exists() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let targets = cargo_targets();
    let mut checked = 0;
    for line in readme.lines().filter(|l| l.starts_with("| `cargo ")) {
        let command = line.split('`').nth(1).expect("a command in backticks");
        let words: Vec<&str> = command.split_whitespace().collect();
        let after = |flag: &str| {
            words
                .iter()
                .position(|w| *w == flag)
                .and_then(|i| words.get(i + 1))
                .copied()
        };
        let Some(package) = after("-p") else { continue };
        assert!(
            targets.iter().any(|t| t.0 == package),
            "README: `{command}` names no package of the workspace"
        );
        for (flag, kind) in [("--test", "test"), ("--bench", "bench")] {
            let Some(name) = after(flag) else { continue };
            let target = targets
                .iter()
                .find(|t| t.0 == package && t.1 == kind && t.2 == name)
                .unwrap_or_else(|| {
                    panic!("README: `{command}`: {package} has no {kind} target {name}")
                });
            // A filter `module::` must name a module of that test binary.
            let filter = words
                .iter()
                .skip_while(|w| **w != name)
                .skip(1)
                .find(|w| !w.starts_with('-'));
            if let Some(module) = filter.and_then(|f| f.strip_suffix("::")) {
                assert!(
                    declared_modules(&target.3).iter().any(|m| m == module),
                    "README: `{command}`: the {name} binary has no module {module}"
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 10,
        "the README's test table was not found ({checked} commands)"
    );
}

#[test]
fn every_test_file_is_compiled() {
    let targets = cargo_targets();
    let mut packages: Vec<&str> = targets.iter().map(|t| t.0.as_str()).collect();
    packages.dedup();
    let mut seen = 0;
    for package in packages {
        let roots: Vec<&PathBuf> = targets
            .iter()
            .filter(|t| t.0 == package && t.1 == "test")
            .map(|t| &t.3)
            .collect();
        let Some(dir) = targets
            .iter()
            .find(|t| t.0 == package && (t.1 == "lib" || t.1 == "bin"))
            .and_then(|t| t.3.ancestors().find(|a| a.join("Cargo.toml").is_file()))
            .map(|d| d.join("tests"))
        else {
            continue;
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let entries: Vec<PathBuf> = entries
            .map(|e| e.expect("a directory entry").path())
            .collect();
        // Modules declared by a binary's root or by any file of the folder (a helper
        // module shared by several binaries is declared in each).
        let modules: Vec<String> = entries
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .chain(roots.iter().copied())
            .flat_map(|r| declared_modules(r))
            .collect();
        for path in entries {
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let is_module_dir = path.join("mod.rs").is_file();
            if !(path.extension().is_some_and(|e| e == "rs") || is_module_dir) {
                continue;
            }
            seen += 1;
            assert!(
                roots.iter().any(|r| **r == path) || modules.iter().any(|m| m == stem),
                "{} is in no test binary of {package}: declare it in the binary's main.rs",
                path.display()
            );
        }
    }
    assert!(seen > 30, "only {seen} test files found");
}

/// Every text file of the repository a reader or a package sees (sources, guide, packaging,
/// workflows), without dependencies and build output.
fn published_texts() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !["target", "node_modules", ".git", "fuzz"].contains(&name.as_str()) {
                    walk(&path, out);
                }
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((path, text));
            }
        }
    }
    let mut out = Vec::new();
    for dir in [".github", "docs", "packaging", "scripts", "server", ".ci"] {
        walk(&root().join(dir), &mut out);
    }
    for file in ["README.md", "Cargo.toml", "ARCHITECTURE.md"] {
        let path = root().join(file);
        out.push((
            path.clone(),
            std::fs::read_to_string(path).expect("readable"),
        ));
    }
    out
}

/// One publisher: `[workspace.metadata.registry]`'s owner and repository. The workspace's
/// repository URL is theirs, and every MCP Registry name (`io.github.<owner>/…`) and every
/// address of an Ajisai repository on GitHub anywhere in the repository names them (the
/// registry's GitHub login grants exactly the namespace of the repository's owner).
#[test]
fn every_published_name_derives_from_the_one_owner() {
    let meta = cargo_metadata();
    let registry = &meta["metadata"]["registry"];
    let owner = registry["owner"].as_str().expect("an owner");
    let repository = registry["repository"].as_str().expect("a repository");
    let url = format!("https://github.com/{owner}/{repository}");
    for package in meta["packages"].as_array().expect("packages") {
        let declared = package["repository"]
            .as_str()
            .map(|r| r.trim_end_matches('/'));
        if declared.is_some() || package["name"] == "ajisai-server" {
            assert_eq!(declared, Some(url.as_str()), "{}", package["name"]);
        }
    }
    let mcp_name = format!("io.github.{owner}/ajisai");
    let mut problems = Vec::new();
    let mut named = 0;
    for (path, text) in published_texts() {
        let lower = text.to_lowercase();
        for (at, _) in lower.match_indices("io.github.") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || "./-_".contains(*c))
                .collect();
            // Ajisai's registry names (not templates, not the registry schema's examples).
            if !name.to_lowercase().ends_with("/ajisai") {
                continue;
            }
            named += 1;
            if name != mcp_name {
                problems.push(format!("{}: {name}", path.display()));
            }
        }
        for (at, _) in lower.match_indices("github.com/") {
            let address: String = text[at + "github.com/".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || "-_./".contains(*c))
                .collect();
            let mut parts = address.split('/');
            let (Some(who), Some(what)) = (parts.next(), parts.next()) else {
                continue;
            };
            let what = what.trim_end_matches(".git").trim_end_matches('.');
            if what.eq_ignore_ascii_case("ajisai") && (who != owner || what != repository) {
                problems.push(format!("{}: github.com/{who}/{what}", path.display()));
            }
        }
    }
    assert!(named > 0, "the README names the server's registry entry");
    assert!(
        problems.is_empty(),
        "names that are not {owner}'s: {problems:#?}"
    );
}

/// The release workflow publishes nothing unsigned and leaves no name unclaimed: it writes
/// the launcher over exactly the platforms it gathered, signs the desktop bundles before
/// `server.json` and `SHA256SUMS` record their digests, and publishes the launcher only
/// after checking that every package it names is on npm.
#[test]
fn the_release_signs_its_bundles_and_publishes_the_launcher_last() {
    let workflow =
        std::fs::read_to_string(root().join(".github/workflows/release.yml")).expect("readable");
    let at = |needle: &str| {
        workflow
            .find(needle)
            .unwrap_or_else(|| panic!("release.yml has no {needle:?}"))
    };
    let order = [
        "node packaging/assemble.mjs launcher dist",
        "mcpb sign",
        "mcpb verify",
        "node packaging/assemble.mjs index dist",
        "for tgz in dist/ajisai-mcp-server-*-*.tgz; do npm publish",
        "npm view \"$wanted\" version",
        "npm publish --access public \"$launcher\"",
        "./mcp-publisher publish",
    ];
    for pair in order.windows(2) {
        assert!(
            at(pair[0]) < at(pair[1]),
            "{:?} comes before {:?}",
            pair[0],
            pair[1]
        );
    }
    assert!(
        workflow.contains("MCPB_SIGNING_CERT") && workflow.contains("exit 1"),
        "a tag without the signing secrets fails"
    );
}
