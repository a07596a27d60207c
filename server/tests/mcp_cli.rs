//! The command line of `ajisai-mcp-server` (MCP-2, MCP-4..8; docs/mcp/transports.md, docs/mcp/index.md): `--help`, `--version`,
//! `--doctor`, usage errors and startup faults, with their exit codes and streams.

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_ajisai-mcp-server");

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Outcome {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_NUMERICS_PLUGIN")
        .env_remove("AJISAI_PHRASEBOOK")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the binary starts");
    {
        let mut input = child.stdin.take().expect("piped");
        // Modes that never read stdin may exit first: a broken pipe is fine.
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("the binary finishes");
    Outcome {
        code: out.status.code().expect("exited normally"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64
        && s.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

fn check_version_block(lines: &[&str]) {
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert_eq!(
        lines[0],
        format!("ajisai-mcp-server {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(lines[1], format!("engine: {}", ajisai_core::ENGINE_VERSION));
    assert_eq!(
        lines[2],
        format!("specification: {}", ajisai_core::SPECIFICATION_VERSION)
    );
    let assets = lines[3].strip_prefix("assets: ").expect("assets line");
    assert!(is_hex64(assets), "{assets}");
    let registry = lines[4].strip_prefix("registry: ").expect("registry line");
    assert!(is_hex64(registry), "{registry}");
    assert!(lines[5].starts_with("numerics: "), "{}", lines[5]);
    assert_eq!(lines[6], "profile: mcp-local-stdio");
}

#[test]
fn help_lists_the_invocations_and_the_environment() {
    for flag in ["--help", "-h"] {
        // Help performs no startup verification: a broken backend choice does not matter.
        let out = run(&[flag], &[("AJISAI_NUMERICS", "bogus")], "");
        assert_eq!(out.code, 0);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
        for needle in [
            "--version",
            "--doctor",
            "--help",
            "stdin/stdout",
            "AJISAI_NUMERICS ",
            "AJISAI_NUMERICS_PLUGIN",
            "AJISAI_PHRASEBOOK",
        ] {
            assert!(out.stdout.contains(needle), "{needle} in {}", out.stdout);
        }
    }
}

#[test]
fn version_prints_exactly_seven_lines() {
    let out = run(&["--version"], &[], "");
    assert_eq!(out.code, 0);
    assert!(out.stderr.is_empty());
    let lines: Vec<&str> = out.stdout.lines().collect();
    check_version_block(&lines);
    assert!(lines[5].ends_with(", builtin)"), "{}", lines[5]);

    let pure = run(&["--version"], &[("AJISAI_NUMERICS", "pure")], "");
    assert!(
        pure.stdout
            .contains("\nnumerics: pure (num-bigint 0.4, builtin)\n"),
        "{}",
        pure.stdout
    );

    // Identification is not a health check: an unusable choice is reported, exit 0.
    let bad = run(&["--version"], &[("AJISAI_NUMERICS", "bogus")], "");
    assert_eq!(bad.code, 0);
    let lines: Vec<&str> = bad.stdout.lines().collect();
    check_version_block(&lines);
    assert!(
        lines[5].starts_with("numerics: unavailable ("),
        "{}",
        lines[5]
    );
}

#[test]
fn doctor_runs_seven_checks_and_two_computations() {
    let out = run(&["--doctor"], &[], "");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 7 + 1 + 7 + 1 + 1, "{}", out.stdout);
    check_version_block(&lines[..7]);
    assert_eq!(lines[7], "");
    let labels = [
        "runtime",
        "embedded assets",
        "phrasebook",
        "numeric backend",
        "exact rational",
        "algebraic value",
        "backend parity",
    ];
    for (line, label) in lines[8..15].iter().zip(labels) {
        assert!(line.starts_with(&format!("ok    {label} — ")), "{line}");
    }
    assert!(lines[12].contains("2 3 DIV 1 3 DIV ADD"), "{}", lines[12]);
    assert!(lines[13].contains("2 SQRT"), "{}", lines[13]);
    assert!(
        lines[9].contains(&lines[3]["assets: ".len()..]),
        "D2 names assetDigest"
    );
    assert!(
        lines[8].contains(" build, rustc "),
        "D1 names profile and toolchain: {}",
        lines[8]
    );
    assert_eq!(lines[15], "");
    assert_eq!(lines[16], "doctor: 7 checks passed");
}

#[test]
fn doctor_reports_failures_and_skips_what_depends_on_them() {
    let out = run(&["--doctor"], &[("AJISAI_NUMERICS", "bogus")], "");
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[11].starts_with("FAIL  numeric backend — "),
        "{}",
        lines[11]
    );
    assert!(lines[11].contains("bogus"));
    // D3 verifies the phrasebook but its examples need a backend; D5..D7 need one too.
    for line in std::iter::once(&lines[10]).chain(&lines[12..15]) {
        assert!(line.ends_with("skipped: numeric backend"), "{line}");
        assert!(line.starts_with("FAIL  "));
    }
    assert_eq!(lines[16], "doctor: 5 of 7 checks failed");
}

#[test]
fn usage_errors_exit_2_naming_the_argument() {
    for (args, needle) in [
        (vec!["--frob"], "--frob"),
        (vec!["serve"], "serve"),
        (vec!["--help", "--version"], "--version"),
        (vec!["-V"], "-V"),
    ] {
        let out = run(&args, &[], "");
        assert_eq!(out.code, 2, "{args:?}");
        assert!(out.stdout.is_empty(), "nothing on stdout for {args:?}");
        assert!(out.stderr.contains(needle), "{}", out.stderr);
        // clap's format: an `error:` line naming the argument, then the usage.
        assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
        assert!(
            out.stderr.contains("Usage: ajisai-mcp-server"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn startup_faults_exit_1_with_one_line_and_nothing_on_stdout() {
    let init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n";
    for (env, needle) in [
        (("AJISAI_NUMERICS", "bogus"), "AJISAI_NUMERICS"),
        (("AJISAI_NUMERICS", "AUTO"), "AJISAI_NUMERICS"),
        (
            ("AJISAI_PHRASEBOOK", "/nonexistent/phrases.ajisai"),
            "AJISAI_PHRASEBOOK",
        ),
    ] {
        let out = run(&[], &[env], init);
        assert_eq!(out.code, 1, "{env:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{env:?}: {}", out.stdout);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", out.stderr);
        // ServedPhrasebook faults have their own form (MCP-78; docs/phrasebook.md).
        assert!(
            lines[0].starts_with("[ajisai-mcp] startup: ")
                || lines[0].starts_with("[ajisai-mcp] phrasebook: "),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(needle), "{}", lines[0]);
    }
}

#[test]
fn serve_mode_ends_with_0_at_eof() {
    let out = run(&[], &[], "");
    assert_eq!(out.code, 0);
    assert!(out.stdout.is_empty());
}
