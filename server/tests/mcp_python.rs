//! The built server driven by the official MCP Python SDK (`mcp`, pinned with everything
//! it pulls in by `golden/python/requirements.txt`) over real stdio and Streamable HTTP,
//! with and without a bearer token, in every protocol mode the SDK drives: its default
//! (`server/discover` at 2026-07-28), the `initialize` lifecycle, and each earlier
//! revision offered on its own (`golden/python/e2e.py`).
//!
//! The SDK lives in a virtualenv at `target/python-venv`, which `.ci/run` creates; this
//! test creates it the same way when it is missing (`python3 -m venv`, then `pip install
//! -r golden/python/requirements.txt`; Debian's python3 needs the `python3-venv` package).

use crate::http_support;
use crate::mcp_support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The virtualenv's interpreter, the pinned SDK installed in it. Prepared once per test
/// binary: the tests run in parallel, and two `python3 -m venv` into one folder at once
/// fail.
fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(prepare_python).clone()
}

/// Create the virtualenv and install the pinned SDK unless it is there already.
fn prepare_python() -> PathBuf {
    let venv = repo().join("target/python-venv");
    let python = venv.join("bin/python");
    let requirements = repo().join("golden/python/requirements.txt");
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let pinned = std::fs::read_to_string(&requirements)
        .expect("requirements.txt")
        .lines()
        .find_map(|l| l.strip_prefix("mcp==").map(str::to_string))
        .expect("requirements.txt pins mcp");
    if installed.as_deref() == Some(pinned.as_str()) {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .unwrap_or_else(|e| panic!("python3 is needed for the Python SDK test ({e})"));
    assert!(
        made.success(),
        "python3 -m venv {} failed (Debian: apt-get install python3-venv)",
        venv.display()
    );
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(&requirements)
        .status()
        .expect("pip runs");
    assert!(
        pip.success(),
        "pip install -r golden/python/requirements.txt failed"
    );
    python
}

/// Run `e2e.py` with `args`; its JSON summary line.
fn e2e(args: &[&str]) -> Value {
    let mut cmd = Command::new(python());
    cmd.arg(repo().join("golden/python/e2e.py")).args(args);
    mcp_support::run_summary(cmd, &format!("e2e.py {args:?}"))
}

#[test]
fn the_python_sdk_drives_the_server_over_stdio() {
    e2e(&["--stdio", http_support::BIN]);
}

#[test]
fn the_python_sdk_drives_the_server_over_http_with_and_without_a_token() {
    let open = http_support::HttpServer::spawn(&[], &[]);
    e2e(&["--http", &open.mcp()]);
    let guarded =
        http_support::HttpServer::spawn(&[], &[("AJISAI_HTTP_TOKEN", http_support::TOKEN)]);
    e2e(&["--http", &guarded.mcp(), "--token", http_support::TOKEN]);
}
