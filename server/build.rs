//! Records what the binaries were built with, for `ajisai-mcp-server --doctor` (check D1:
//! target triple, build profile, toolchain).

use std::process::Command;

fn main() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown target".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let toolchain = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "rustc (version unknown)".into());
    println!("cargo:rustc-env=AJISAI_BUILD_TARGET={target}");
    println!("cargo:rustc-env=AJISAI_BUILD_PROFILE={profile}");
    println!("cargo:rustc-env=AJISAI_BUILD_RUSTC={toolchain}");
    println!("cargo:rerun-if-changed=build.rs");
}
