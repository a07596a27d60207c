//! The run-time GMP plugin through the real `ajisai` binary (MCP-11..MCP-14; docs/mcp/index.md):
//! a good plugin is loaded and used; a missing file, a file that is not a shared
//! library, a shared library that is not a plugin, and plugins built against another
//! interface version or layout are each refused at startup with one line saying what
//! was expected and what was found (exit 2, nothing on stdout) — never a crash, never
//! a fallback. `AJISAI_NUMERICS=pure` ignores a configured plugin with a warning.
//!
//! A plugin that faults is contained by the MCP server: the faulting call answers
//! `backendFailure` or `malformedBackendResponse`, every later execution
//! `backendUnavailable`, while `word_contract` and resources keep working (MCP-13).
//!
//! The plugins are built here, by `cargo build -p ajisai-numerics-gmp` with the feature
//! sets of each variant (the mismatched ones on purpose), into a target directory of
//! their own. Run under `--no-default-features` this tests the portable binary, which
//! has no GMP of its own.

use crate::cli_support;
use crate::mcp_support;

use cli_support::Outcome;
use mcp_support::{call, call_raw, compute, envelope, read, spawn_with_env};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// A plugin build: the features of `ajisai-numerics-gmp` it is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Variant {
    /// The real plugin.
    Good,
    /// Declares interface 1.1.0: a plugin built before the rational operations.
    OtherInterface,
    /// Declares this interface version but has another module layout.
    OtherLayout,
    /// The same cdylib without the exported root module (a shared library, not a plugin).
    NoRootModule,
    /// The real plugin that faults on cue (`export::faults`): a panic in `mul` of
    /// 10^30+1, a decimal text that is no number for 10^30+2.
    Faulty,
}

impl Variant {
    fn features(self) -> &'static str {
        match self {
            Variant::Good => "plugin",
            Variant::OtherInterface => "plugin,test-interface-mismatch",
            Variant::OtherLayout => "plugin,test-layout-mismatch",
            Variant::NoRootModule => "",
            Variant::Faulty => "plugin,test-faults",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Variant::Good => "good",
            Variant::OtherInterface => "other-interface",
            Variant::OtherLayout => "other-layout",
            Variant::NoRootModule => "no-root-module",
            Variant::Faulty => "faulty",
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the server crate sits in the workspace")
        .to_path_buf()
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plugin-tests");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Build `variant` once per test run and return a path to its library file.
fn plugin(variant: Variant) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<Variant, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    // One build at a time: the variants share a target directory.
    let mut built = built.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = built.get(&variant) {
        return p.clone();
    }
    let target = scratch().join("target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace())
        .args(["build", "--quiet", "-p", "ajisai-numerics-gmp", "--lib"])
        .arg("--no-default-features")
        .arg("--target-dir")
        .arg(&target);
    if !variant.features().is_empty() {
        cmd.args(["--features", variant.features()]);
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "building the {} plugin failed:\n{}",
        variant.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    let file = format!(
        "{}ajisai_numerics_gmp{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let copy = scratch().join(format!("{}-{file}", variant.name()));
    std::fs::copy(target.join("debug").join(&file), &copy).expect("the plugin was built");
    built.insert(variant, copy.clone());
    copy
}

fn ajisai(args: &[&str], stdin: &str, numerics: Option<&str>, plugin: Option<&Path>) -> Outcome {
    let mut env: Vec<(&str, &std::ffi::OsStr)> = Vec::new();
    if let Some(n) = numerics {
        env.push(("AJISAI_NUMERICS", n.as_ref()));
    }
    if let Some(p) = plugin {
        env.push(("AJISAI_NUMERICS_PLUGIN", p.as_os_str()));
    }
    cli_support::ajisai_env(args, stdin.as_bytes(), &env)
}

/// A refusal: exit 2, nothing on stdout, exactly one stderr line naming the variable and
/// the path, containing every `needles` part.
fn assert_refused(out: &Outcome, path: &Path, needles: &[&str]) {
    assert_eq!(out.code, 2, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", out.stderr);
    let line = lines[0];
    assert!(
        line.starts_with(&format!(
            "ajisai: AJISAI_NUMERICS_PLUGIN: numeric plugin {}: expected ",
            path.display()
        )),
        "{line}"
    );
    for n in needles {
        assert!(line.contains(n), "{line:?} lacks {n:?}");
    }
}

const PROGRAM: &str = "2 100 POW 3 / 5 SQRT 1 + 2 / 30 POW + 10 40 POW 7 + *";

fn without_backend(json: &str) -> String {
    let at = json
        .rfind(",\"backend\":")
        .expect("the CLI envelope ends with backend");
    json[..at].to_string()
}

#[test]
fn a_good_plugin_is_loaded_and_serves_every_run() {
    let good = plugin(Variant::Good);
    let version = ajisai(&["--version"], "", None, Some(&good));
    assert_eq!(version.code, 0, "{}", version.stderr);
    let line = version
        .stdout
        .lines()
        .find(|l| l.starts_with("numerics: "))
        .expect("a numerics line");
    assert!(
        line.starts_with("numerics: gmp (GMP ") && line.ends_with(", plugin)"),
        "{line}"
    );
    for choice in [None, Some("auto"), Some("gmp")] {
        let run = ajisai(&["run", "--json", "-"], PROGRAM, choice, Some(&good));
        assert_eq!(run.code, 0, "{choice:?}: {}", run.stderr);
        assert_eq!(run.stderr, "");
        assert!(
            run.stdout
                .contains("\"backend\":{\"kind\":\"gmp\",\"library\":\"GMP ")
                && run.stdout.trim_end().ends_with("\"origin\":\"plugin\"}}"),
            "{}",
            run.stdout
        );
        // The same envelope as the pure backend's, apart from the backend record.
        let pure = ajisai(&["run", "--json", "-"], PROGRAM, Some("pure"), None);
        assert_eq!(without_backend(&run.stdout), without_backend(&pure.stdout));
    }
}

#[test]
fn a_missing_file_is_refused() {
    let missing = scratch().join("no-such-plugin.so");
    for choice in [None, Some("auto"), Some("gmp")] {
        let out = ajisai(&["run", "-"], "1 2 +", choice, Some(&missing));
        assert_refused(&out, &missing, &["found no file at that path"]);
    }
}

#[test]
fn a_file_that_is_not_a_library_is_refused() {
    let text = scratch().join("not-a-library.so");
    std::fs::write(&text, "#!/bin/sh\necho not a plugin\n").expect("scratch file");
    let out = ajisai(&["--version"], "", None, Some(&text));
    assert_refused(
        &out,
        &text,
        &["found a file that is not a loadable shared library"],
    );
    let dir = scratch();
    let out = ajisai(&["--version"], "", None, Some(&dir));
    assert_refused(&out, &dir, &["found something that is not a regular file"]);
}

#[test]
fn a_library_that_is_not_a_plugin_is_refused() {
    let lib = plugin(Variant::NoRootModule);
    let out = ajisai(&["run", "-"], "1 2 +", None, Some(&lib));
    assert_refused(
        &out,
        &lib,
        &[
            "expected an Ajisai numeric plugin (interface 2.0.0)",
            "found a shared library that exports no abi_stable root module",
        ],
    );
}

#[test]
fn a_plugin_of_another_interface_version_is_refused() {
    let lib = plugin(Variant::OtherInterface);
    let out = ajisai(&["run", "-"], "1 2 +", Some("gmp"), Some(&lib));
    assert_refused(
        &out,
        &lib,
        &[
            "expected interface version 2.x with x >= 0 (compatible with 2.0.0)",
            "found interface version 1.1.0",
            "rebuild the plugin from the sources of this Ajisai release (cargo build --release -p ajisai-numerics-gmp)",
        ],
    );
}

#[test]
fn a_plugin_with_another_layout_is_refused() {
    let lib = plugin(Variant::OtherLayout);
    let out = ajisai(&["--version"], "", None, Some(&lib));
    assert_refused(
        &out,
        &lib,
        &[
            "expected the module layout of interface 2.0.0",
            "found a different layout",
        ],
    );
}

#[test]
fn pure_ignores_a_configured_plugin_with_a_warning() {
    let missing = scratch().join("ignored-plugin.so");
    let out = ajisai(
        &["run", "--json", "-"],
        "1 2 +",
        Some("pure"),
        Some(&missing),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr,
        format!(
            "ajisai: warning: AJISAI_NUMERICS_PLUGIN={} is ignored because AJISAI_NUMERICS=pure\n",
            missing.display()
        )
    );
    assert!(out.stdout.contains(
        "\"backend\":{\"kind\":\"pure\",\"library\":\"num-bigint 0.4\",\"origin\":\"builtin\"}"
    ));
}

#[test]
fn an_unknown_choice_names_the_available_backends_and_the_plugin() {
    let missing = scratch().join("unused-plugin.so");
    let out = ajisai(&["run", "-"], "1 2 +", Some("fastest"), Some(&missing));
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    let builtin = if ajisai_host::backend::GMP_BUILTIN {
        "available backends: gmp (builtin), pure (builtin)"
    } else {
        "available backends: pure (builtin)"
    };
    assert!(out.stderr.contains(builtin), "{}", out.stderr);
    assert!(
        out.stderr.trim_end().ends_with(&format!(
            "AJISAI_NUMERICS_PLUGIN={} would add gmp (plugin)",
            missing.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn without_a_plugin_gmp_is_available_only_when_built_in() {
    let out = ajisai(&["--version"], "", Some("gmp"), None);
    if ajisai_host::backend::GMP_BUILTIN {
        assert_eq!(out.code, 0);
        assert!(out.stdout.contains("numerics: gmp (GMP "), "{}", out.stdout);
        assert!(out.stdout.contains(", builtin)"), "{}", out.stdout);
    } else {
        assert_eq!((out.code, out.stdout.as_str()), (2, ""));
        assert!(
            out.stderr.contains(
                "AJISAI_NUMERICS=gmp but no gmp backend is available; available: pure (builtin)"
            ),
            "{}",
            out.stderr
        );
    }
}

fn doctor(plugin: &Path) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_ajisai-mcp-server"))
        .arg("--doctor")
        .env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_PHRASEBOOK")
        .env("AJISAI_NUMERICS_PLUGIN", plugin)
        .stdin(Stdio::null())
        .output()
        .expect("the MCP server runs");
    Outcome {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

#[test]
fn the_mcp_servers_doctor_checks_the_plugin() {
    let good = plugin(Variant::Good);
    let out = doctor(&good);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(&format!("— auto: plugin loaded from {}", good.display())),
        "{}",
        out.stdout
    );
    // D7 compares the plugin with every built-in backend.
    let parity = out
        .stdout
        .lines()
        .find(|l| l.starts_with("ok    backend parity — "))
        .expect("the parity check passed");
    assert!(
        parity.contains("gmp (plugin)") && parity.contains("pure (builtin)"),
        "{parity}"
    );

    let other = plugin(Variant::OtherInterface);
    let out = doctor(&other);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!(
            "FAIL  numeric backend — AJISAI_NUMERICS_PLUGIN: numeric plugin {}: expected interface version 2.x with x >= 0 (compatible with 2.0.0), found interface version 1.1.0: rebuild the plugin from the sources of this Ajisai release (cargo build --release -p ajisai-numerics-gmp) or install the plugin shipped with it",
            other.display()
        )),
        "{}",
        out.stdout
    );
}

/// Drive the MCP server over real stdio with the faulty plugin loaded: `fault` is the
/// program that makes the plugin fault, `code` the host error it must answer.
fn a_plugin_fault_is_contained(fault: &str, code: &str) {
    let faulty = plugin(Variant::Faulty);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let path = faulty.to_string_lossy().to_string();
        let client = spawn_with_env(&[("AJISAI_NUMERICS_PLUGIN", &path)]).await;
        // Before the fault the plugin serves, big numbers included.
        let v = compute(&client, "2 100 POW 1 +").await;
        assert_eq!(
            v["stackDisplay"],
            json!(["1267650600228229401496703205377/1"])
        );
        assert_eq!(v["mcp"]["backend"]["origin"], "plugin");

        let r = call_raw(&client, "compute", json!({ "source": fault })).await;
        let v = envelope(&r);
        assert_eq!(r.is_error, Some(true), "{v}");
        assert_eq!(v["status"], "hostError");
        assert_eq!(v["error"]["code"], code, "{v}");
        assert_eq!(v["error"]["retryable"], false);
        mcp_support::assert_no_host_detail(&mcp_support::text(&r));

        // Poisoned: every later execution call, even one that needs no backend call.
        for (tool, source) in [("compute", "1 2 ADD"), ("check", "1 2 ADD")] {
            let v = call(&client, tool, json!({ "source": source })).await;
            assert_eq!(v["error"]["code"], "backendUnavailable", "{tool}: {v}");
            assert_eq!(v["error"]["retryable"], false);
        }
        // Lookups and resources keep working.
        let v = call(&client, "word_contract", json!({ "word": "add" })).await;
        assert_eq!(v["status"], "ok", "{v}");
        let (_, text) = read(&client, "ajisai://limits").await;
        assert!(text.contains("executionSteps"));
        client.cancel().await.expect("the session closes");
    });
}

#[test]
fn a_panicking_plugin_answers_backend_failure_then_backend_unavailable() {
    // The cue as a product's operand: times a machine word (mul_word) and times a wide
    // value (mul) each reach the plugin.
    a_plugin_fault_is_contained("1000000000000000000000000000001 3 *", "backendFailure");
    a_plugin_fault_is_contained(
        "1000000000000000000000000000001 100000000000000000000000 *",
        "backendFailure",
    );
}

#[test]
fn a_plugin_answering_malformed_data_answers_malformed_backend_response() {
    a_plugin_fault_is_contained(
        "1000000000000000000000000000002",
        "malformedBackendResponse",
    );
}
