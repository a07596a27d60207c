//! The built server driven by the official MCP TypeScript SDK clients, pinned in
//! `golden/e2e/package.json` (MCP-87; docs/mcp/verification.md): v1 (`@modelcontextprotocol/sdk`) over real
//! stdio (`e2e.mjs`: lists tools and resources, calls every tool, reads every resource
//! and a template URI, provokes host errors; its size figures must equal the ones the
//! Rust harness measures, MCP-93) and over Streamable HTTP (`e2e-http.mjs`, with and
//! without a bearer token, results equal to stdio's apart from the profile), and v2
//! (`@modelcontextprotocol/client`) speaking revision 2026-07-28 over both
//! (`e2e-modern.mjs`).
//!
//! Needs Node 20 or newer and npm. The client is installed into `golden/e2e/node_modules`
//! with `npm ci` (from the committed lockfile) when it is missing or stale; `.ci/run`
//! installs it the same way before the tests run.

use crate::http_support;
use crate::mcp_support;

use mcp_support::{call_raw, sizes, spawn, BIN};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/e2e")
}

/// The client packages `package.json` pins.
const PACKAGES: [&str; 2] = ["@modelcontextprotocol/sdk", "@modelcontextprotocol/client"];

/// The versions `package.json` pins, in the order of [`PACKAGES`].
fn pinned_versions(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("package.json")).expect("package.json");
    let doc: Value = serde_json::from_str(&text).expect("package.json is JSON");
    PACKAGES
        .iter()
        .map(|p| {
            doc["dependencies"][p]
                .as_str()
                .unwrap_or_else(|| panic!("{p} is a pinned dependency"))
                .to_string()
        })
        .collect()
}

fn installed_versions(dir: &Path) -> Vec<Option<String>> {
    PACKAGES
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(dir.join(format!("node_modules/{p}/package.json"))).ok()?;
            let doc: Value = serde_json::from_str(&text).ok()?;
            doc["version"].as_str().map(str::to_string)
        })
        .collect()
}

/// Node 20+ is on PATH, and the pinned client is installed (`npm ci` otherwise).
fn ensure_client(dir: &Path) {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!("the TypeScript end-to-end test needs Node 20 or newer on PATH ({e})")
        });
    let version = String::from_utf8_lossy(&node.stdout).trim().to_string();
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    assert!(major >= 20, "Node 20 or newer is needed, found {version}");
    let pinned: Vec<Option<String>> = pinned_versions(dir).into_iter().map(Some).collect();
    if installed_versions(dir) == pinned {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("npm is needed to install the MCP TypeScript SDK ({e})"));
    assert!(
        status.success(),
        "`npm ci` in golden/e2e failed; install the client with `npm ci --prefix golden/e2e`"
    );
    assert_eq!(
        installed_versions(dir),
        pinned,
        "npm ci installs the pinned clients"
    );
}

#[tokio::test]
async fn the_typescript_sdk_client_drives_the_server() {
    let summary = node("e2e.mjs", &[BIN]);
    assert_eq!(summary["tools"], 4);

    // MCP-93: the JavaScript client's `JSON.stringify(result)` and text-block sizes are
    // exactly what the Rust harness measures for the same calls.
    let perf: Value = serde_json::from_str(include_str!("../../eval/performance.json"))
        .expect("eval/performance.json");
    let client = spawn().await;
    let mut checked = 0;
    for (id, js) in summary["sizes"].as_object().expect("sizes") {
        let (tool, args) = if id == "1 2 ADD" {
            ("compute".to_string(), json!({ "source": "1 2 ADD" }))
        } else {
            let c = &perf["cases"][id];
            (
                c["tool"].as_str().expect("tool").to_string(),
                c["arguments"].clone(),
            )
        };
        let (bytes, text_bytes) = sizes(&call_raw(&client, &tool, args).await);
        assert_eq!(js["responseBytes"], bytes, "{id}: response bytes");
        assert_eq!(js["textBytes"], text_bytes, "{id}: text-block bytes");
        checked += 1;
    }
    assert_eq!(checked, 8, "1 2 ADD and the seven performance cases");
    client.cancel().await.expect("closes");
}

/// Run `node <script> <args>` in `golden/e2e`; its JSON summary line.
fn node(script: &str, args: &[&str]) -> Value {
    let dir = e2e_dir();
    ensure_client(&dir);
    let mut cmd = Command::new("node");
    cmd.arg(script).args(args).current_dir(&dir);
    mcp_support::run_summary(cmd, &format!("{script} {args:?}"))
}

#[test]
fn the_typescript_sdk_client_drives_the_http_server() {
    let open = http_support::HttpServer::spawn(&[], &[]);
    node("e2e-http.mjs", &[&open.mcp(), "--stdio", BIN]);
    let guarded =
        http_support::HttpServer::spawn(&[], &[("AJISAI_HTTP_TOKEN", http_support::TOKEN)]);
    node(
        "e2e-http.mjs",
        &[&guarded.mcp(), "--token", http_support::TOKEN],
    );
}

#[test]
fn the_v2_client_speaks_2026_07_28_over_http_and_stdio() {
    let server = http_support::HttpServer::spawn(&[], &[]);
    node("e2e-modern.mjs", &[&server.mcp()]);
    node("e2e-modern.mjs", &["--stdio", BIN]);
}
