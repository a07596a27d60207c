//! Numeric backend selection for the hosts (CLI and MCP server): read the
//! environment once at startup, choose, and fix the process backend.
//!
//! `AJISAI_NUMERICS` = `auto` (default) | `gmp` | `pure` (MCP-12). The choice itself
//! is `ajisai_core::numerics::choose`; this module owns the environment.

use ajisai_core::numerics::{self, Selected};
use std::ffi::OsString;

/// Link the vocabulary and the always-built backends into the binary.
pub fn link() {
    ajisai_words::link();
    ajisai_numerics_pure::link();
}

/// Fix the process's numeric backend from `choice` (the value of `AJISAI_NUMERICS`;
/// unset or empty means `auto`). The error is one operator-facing line.
pub fn select(choice: Option<OsString>) -> Result<Selected, String> {
    link();
    let choice = match &choice {
        None => String::new(),
        Some(c) => match c.to_str() {
            Some(s) => s.to_string(),
            None => {
                return Err(format!(
                    "AJISAI_NUMERICS={} is not valid text",
                    c.to_string_lossy()
                ))
            }
        },
    };
    let selected = numerics::choose(&choice, None).map_err(|e| e.to_string())?;
    Ok(numerics::install(selected))
}

/// [`select`] with the process environment.
pub fn select_from_env() -> Result<Selected, String> {
    select(std::env::var_os("AJISAI_NUMERICS"))
}
