//! The human CLI `ajisai` (MCP-94, MCP-95; README.md) on the shared engine.
//!
//! [`main`] takes the arguments and the three standard streams as parameters so the
//! whole CLI can be driven in-process; the binary only supplies the real streams and
//! runs it on a thread with a large native stack.
//!
//! Exit codes: [`Exit::Ok`] (0) — `status: ok`, NIL results included, every `test`
//! example passed; [`Exit::Failure`] (1) — a language error, a failing `check`, or a
//! failed example; [`Exit::Usage`] (2) — a usage or I/O error, with nothing on stdout.

pub mod args;
pub mod examples;
pub mod repl;
pub mod report;
pub mod source;
pub mod words;

use ajisai_core::numerics::Selected;
use ajisai_core::Profile;
use args::{Command, SourceCommand, UsageError};
use std::ffi::OsString;
use std::io::{self, BufRead, Write};

/// The process exit status of a CLI invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the program ran (a NIL result included), the check passed, every example passed.
    Ok,
    /// 1: a language error, a failing check, or a failed example.
    Failure,
    /// 2: a usage error or an I/O error; nothing was written to stdout.
    Usage,
}

impl Exit {
    /// The numeric exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
        }
    }
}

/// The standard streams of one invocation.
pub struct Io<'a> {
    /// Standard input (program text for `-`, lines for `repl`).
    pub stdin: &'a mut dyn BufRead,
    /// Standard output: reports, JSON envelopes, program output.
    pub stdout: &'a mut dyn Write,
    /// Standard error: diagnostics and usage.
    pub stderr: &'a mut dyn Write,
    /// Whether stdin is an interactive terminal (the REPL then shows a prompt).
    pub interactive: bool,
}

/// The lines of `ajisai --version`.
pub fn version_text(backend: &Selected) -> String {
    let p = backend.provenance();
    format!(
        "ajisai {}\nspecification: {}\nnumerics: {} ({}, {})\nprofile: {}\n",
        ajisai_core::ENGINE_VERSION,
        ajisai_core::SPECIFICATION_VERSION,
        p.kind,
        p.library,
        p.origin,
        Profile::CLI_LOCAL.name
    )
}

/// Fix the process's numeric backend from `AJISAI_NUMERICS` (empty or unset = `auto`)
/// and `AJISAI_NUMERICS_PLUGIN`; warnings go to `warn`.
pub fn select_backend(
    choice: Option<OsString>,
    plugin: Option<OsString>,
    warn: &mut dyn FnMut(&str),
) -> Result<Selected, ajisai_host::backend::BackendChoiceError> {
    ajisai_host::backend::select_with(choice, plugin, warn)
}

fn usage_error(io: &mut Io<'_>, e: &UsageError) -> Exit {
    // clap's rendering: the error naming the argument, the usage, where help is.
    // Nothing useful can be done when stderr itself fails.
    let _ = writeln!(io.stderr, "{e}");
    Exit::Usage
}

/// Run the CLI with `args` (without the program name) over `io`.
pub fn main(args: &[OsString], io: &mut Io<'_>) -> Exit {
    let command = match args::parse(args) {
        Ok(c) => c,
        Err(e) => return usage_error(io, &e),
    };
    // Help, the Word listings and completion scripts need no engine: they work even
    // when the backend choice is broken.
    let direct = match &command {
        Command::Help(text) => Some(report::Rendered::stdout(text.clone(), Exit::Ok)),
        Command::Words { family } => Some(words::words(*family)),
        Command::Doc { word } => Some(words::doc(word)),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut args::clap_command(), "ajisai", &mut script);
            Some(report::Rendered::stdout(
                String::from_utf8_lossy(&script).into_owned(),
                Exit::Ok,
            ))
        }
        _ => None,
    };
    if let Some(rendered) = direct {
        return rendered.write(io).unwrap_or(Exit::Usage);
    }
    // A refused backend choice or plugin is a startup error (exit 2, nothing on
    // stdout): never a silent fallback to another backend.
    let selected = select_backend(
        std::env::var_os(ajisai_host::backend::CHOICE_VAR),
        std::env::var_os(ajisai_host::backend::PLUGIN_VAR),
        &mut |w| {
            let _ = writeln!(io.stderr, "ajisai: warning: {w}");
        },
    );
    let backend = match selected {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(io.stderr, "ajisai: {e}");
            return Exit::Usage;
        }
    };
    let result = match command {
        Command::Help(_)
        | Command::Words { .. }
        | Command::Doc { .. }
        | Command::Completions { .. } => Ok(Exit::Ok),
        Command::Version => io
            .stdout
            .write_all(version_text(&backend).as_bytes())
            .map(|()| Exit::Ok),
        Command::Source {
            command,
            input,
            json,
            profile,
        } => {
            let text = match source::read(&input, io.stdin) {
                Ok(t) => t,
                Err(e) => {
                    let _ = writeln!(io.stderr, "ajisai: {}", e.0);
                    return Exit::Usage;
                }
            };
            let rendered = match command {
                SourceCommand::Run => report::run(&text, json, &profile, &backend),
                SourceCommand::Check => report::check(&text, json, &profile, &backend),
                SourceCommand::Contract => report::contract(&text, json, &profile, &backend),
            };
            rendered.write(io)
        }
        Command::Test { target, profile } => examples::run(&target, &profile, io),
        Command::Playground {
            addr,
            allowed_hosts,
        } => {
            let settings = crate::playground::alone::Settings {
                addr,
                allowed_hosts,
                ..crate::playground::alone::Settings::local()
            };
            match crate::playground::alone::serve(&settings, io.stdout, io.stderr) {
                Ok(()) => Ok(Exit::Ok),
                Err(e) => {
                    let _ = writeln!(io.stderr, "ajisai: playground: {e}");
                    return Exit::Usage;
                }
            }
        }
        Command::Repl { profile } => repl::run(&profile, io),
    };
    match result {
        Ok(exit) => exit,
        Err(e) => {
            let _ = writeln!(io.stderr, "ajisai: cannot write output: {e}");
            Exit::Usage
        }
    }
}

/// Flush both output streams (buffered stdout must reach the pipe before the exit code).
pub(crate) fn flush(io: &mut Io<'_>) -> io::Result<()> {
    io.stdout.flush()?;
    io.stderr.flush()
}
