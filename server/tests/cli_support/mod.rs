//! Shared helper of the tests that drive the built `ajisai` binary as a process: run it
//! with arguments, standard input and environment, and collect what it did.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// What one run of the binary did.
pub struct Outcome {
    /// The exit code (a run killed by a signal fails the test).
    pub code: i32,
    /// Standard output, UTF-8.
    pub stdout: String,
    /// Standard error, UTF-8.
    pub stderr: String,
}

/// Run `ajisai` with `args`, feeding `stdin`, with the numeric-backend variables removed
/// and then `env` set.
pub fn ajisai_env(args: &[&str], stdin: &[u8], env: &[(&str, &std::ffi::OsStr)]) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ajisai"));
    cmd.args(args)
        .env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_NUMERICS_PLUGIN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the ajisai binary starts");
    {
        let mut input = child.stdin.take().expect("stdin is piped");
        // The CLI may exit before reading stdin (usage errors, refused backends): a
        // broken pipe is fine.
        let _ = input.write_all(stdin);
    }
    let out = child
        .wait_with_output()
        .expect("the ajisai binary finishes");
    Outcome {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}
