//! The built server driven by the official MCP TypeScript SDK client
//! (`@modelcontextprotocol/sdk`, pinned in `golden/e2e/package.json`) over real stdio
//! (MCP.md MCP-87): `golden/e2e/e2e.mjs` lists tools and resources, calls every tool,
//! reads every resource and a template URI and provokes host errors; this test runs it
//! and holds its size figures equal to the ones the Rust harness measures (MCP-93).
//!
//! Needs Node 20 or newer and npm. The client is installed into `golden/e2e/node_modules`
//! with `npm ci` (from the committed lockfile) when it is missing or stale; `.ci/run`
//! installs it the same way before the tests run.

mod mcp_support;

use mcp_support::{call_raw, sizes, spawn, BIN};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/e2e")
}

/// The SDK version `package.json` pins.
fn pinned_version(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("package.json")).expect("package.json");
    let doc: Value = serde_json::from_str(&text).expect("package.json is JSON");
    doc["dependencies"]["@modelcontextprotocol/sdk"]
        .as_str()
        .expect("the SDK is a pinned dependency")
        .to_string()
}

fn installed_version(dir: &Path) -> Option<String> {
    let text =
        std::fs::read_to_string(dir.join("node_modules/@modelcontextprotocol/sdk/package.json"))
            .ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    doc["version"].as_str().map(str::to_string)
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
    let pinned = pinned_version(dir);
    if installed_version(dir).as_deref() == Some(pinned.as_str()) {
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
        installed_version(dir),
        Some(pinned),
        "npm ci installs the pinned SDK"
    );
}

#[tokio::test]
async fn the_typescript_sdk_client_drives_the_server() {
    let dir = e2e_dir();
    ensure_client(&dir);
    let mut cmd = Command::new("node");
    cmd.arg("e2e.mjs").arg(BIN).current_dir(&dir);
    for v in [
        "AJISAI_NUMERICS",
        "AJISAI_NUMERICS_PLUGIN",
        "AJISAI_PHRASEBOOK",
    ] {
        cmd.env_remove(v);
    }
    let out = cmd.output().expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the TypeScript client failed:\n{}{}",
        String::from_utf8_lossy(&out.stderr),
        stdout
    );
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("e2e.mjs prints a JSON summary");
    assert_eq!(summary["tools"], 4);
    println!("{summary}");

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
