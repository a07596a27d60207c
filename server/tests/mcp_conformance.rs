//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned with a
//! Node 22 binary in `golden/mcp-conformance/package.json`) against the built server's
//! `--http` endpoint, at revisions 2025-11-25 and 2026-07-28: every scenario passes apart
//! from the committed, reasoned `golden/mcp-conformance/expected-failures.yaml` (features
//! the server deliberately does not offer), and a listed check that starts to pass fails
//! the run. `run.sh` installs the suite with `npm ci` when it is missing.

use crate::http_support;

use std::path::Path;
use std::process::Command;

#[test]
fn the_conformance_suite_passes_apart_from_its_expected_failures() {
    // The suite's DNS-rebinding scenario sends the server's own loopback Origin, which a
    // server accepts only when told to.
    let server = http_support::HttpServer::spawn(&["--allowed-origin", "http://127.0.0.1:*"], &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/mcp-conformance/run.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(server.mcp())
        .output()
        .expect("run.sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the conformance suite failed:\n{stdout}\n{stderr}"
    );
    for revision in ["2025-11-25", "2026-07-28"] {
        assert!(
            stdout.contains(&format!("== {revision}: only the expected failures")),
            "{revision} ran:\n{stdout}"
        );
    }
}
