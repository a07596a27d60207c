//! Command-line grammar of `ajisai` (MCP.md MCP-94), parsed by hand.
//!
//! Parsing is total: every argument list maps to a [`Command`] or a [`UsageError`]
//! naming the offending argument, so bad usage can never panic.

use ajisai_core::Profile;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;

/// The usage synopsis printed with every usage error and at the top of `--help`.
pub const USAGE: &str = "\
usage: ajisai run <FILE|-> [--json] [--profile cli|mcp]
       ajisai check <FILE|-> [--json] [--profile cli|mcp]
       ajisai contract <FILE|-> [--json] [--profile cli|mcp]
       ajisai test <FILE|DIR> [--profile cli|mcp]
       ajisai repl [--profile cli|mcp]
       ajisai --version
       ajisai --help";

/// Where a program's source comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (written `-`).
    Stdin,
    /// A file path.
    File(PathBuf),
}

impl Input {
    /// How messages name this input.
    pub fn label(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

/// Which source command to perform on one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceCommand {
    /// `run`: execute (the `compute` tool's work).
    Run,
    /// `check`: static check, nothing executed.
    Check,
    /// `contract`: infer User Word contracts, nothing executed.
    Contract,
}

impl SourceCommand {
    /// The command's name as typed.
    pub fn name(self) -> &'static str {
        match self {
            SourceCommand::Run => "run",
            SourceCommand::Check => "check",
            SourceCommand::Contract => "contract",
        }
    }
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `--help`: print the help text.
    Help,
    /// `--version`: print the version lines.
    Version,
    /// `run`, `check` or `contract` on one source.
    Source {
        /// Which command.
        command: SourceCommand,
        /// The source to read.
        input: Input,
        /// Print the JSON envelope instead of the human report.
        json: bool,
        /// The limit profile.
        profile: Profile,
    },
    /// `test`: run the `#:example` lines of a file or of every `*.ajisai` file under a directory.
    Test {
        /// A file or directory.
        target: PathBuf,
        /// The limit profile.
        profile: Profile,
    },
    /// `repl`: evaluate stdin line by line as one continuing program.
    Repl {
        /// The limit profile.
        profile: Profile,
    },
}

/// A usage error: what was wrong with the command line, naming the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An argument as text for messages (lossy for non-UTF-8 arguments).
fn shown(arg: &OsStr) -> String {
    arg.to_string_lossy().into_owned()
}

/// The profile a `--profile` value names (`cli` / `mcp`, or the full profile names).
pub fn profile_named(value: &str) -> Option<Profile> {
    match value {
        "cli" | "cli-local" => Some(Profile::CLI_LOCAL),
        "mcp" | "mcp-local-stdio" => Some(Profile::MCP_LOCAL_STDIO),
        _ => None,
    }
}

const COMMANDS: [&str; 5] = ["run", "check", "contract", "test", "repl"];

/// Parse the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<Command, UsageError> {
    let Some(first) = args.first() else {
        return Err(UsageError("missing command".to_string()));
    };
    let first_text = first.to_str().unwrap_or("");
    match first_text {
        "--help" | "-h" | "help" => {
            return match args.get(1) {
                None => Ok(Command::Help),
                Some(extra) => Err(UsageError(format!(
                    "unexpected argument '{}' after {first_text}",
                    shown(extra)
                ))),
            }
        }
        "--version" | "-V" => {
            return match args.get(1) {
                None => Ok(Command::Version),
                Some(extra) => Err(UsageError(format!(
                    "unexpected argument '{}' after {first_text}",
                    shown(extra)
                ))),
            }
        }
        _ => {}
    }
    if !COMMANDS.contains(&first_text) {
        let arg = shown(first);
        return Err(if arg.starts_with('-') && arg != "-" {
            UsageError(format!("unknown option '{arg}' (a command comes first: run, check, contract, test or repl)"))
        } else {
            UsageError(format!(
                "unknown command '{arg}' (commands: run, check, contract, test, repl)"
            ))
        });
    }
    let command = first_text;
    let takes_json = matches!(command, "run" | "check" | "contract");
    let mut json = false;
    let mut profile = Profile::CLI_LOCAL;
    let mut operands: Vec<&OsString> = Vec::new();
    let mut options_done = false;
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        let text = arg.to_str();
        if options_done || text == Some("-") || !arg.to_string_lossy().starts_with('-') {
            operands.push(arg);
            continue;
        }
        match text {
            Some("--") => options_done = true,
            Some("--help" | "-h") => return Ok(Command::Help),
            Some("--json") if takes_json => json = true,
            Some("--profile") => {
                let Some(value) = rest.next() else {
                    return Err(UsageError(
                        "option '--profile' needs a value: cli or mcp".to_string(),
                    ));
                };
                profile = parse_profile(&shown(value))?;
            }
            Some(t) if t.starts_with("--profile=") => {
                profile = parse_profile(&t["--profile=".len()..])?
            }
            _ => {
                return Err(UsageError(format!(
                    "unknown option '{}' for '{command}'",
                    shown(arg)
                )));
            }
        }
    }
    let source_command = match command {
        "run" => Some(SourceCommand::Run),
        "check" => Some(SourceCommand::Check),
        "contract" => Some(SourceCommand::Contract),
        _ => None,
    };
    if command == "repl" {
        if let Some(extra) = operands.first() {
            return Err(UsageError(format!(
                "unexpected operand '{}': 'repl' reads from stdin",
                shown(extra)
            )));
        }
        return Ok(Command::Repl { profile });
    }
    let operand = match operands.as_slice() {
        [] => {
            let what = if command == "test" {
                "<FILE|DIR>"
            } else {
                "<FILE|-> (use '-' for stdin)"
            };
            return Err(UsageError(format!("'{command}' needs an operand {what}")));
        }
        [one] => *one,
        [_, extra, ..] => {
            return Err(UsageError(format!(
                "unexpected extra operand '{}' for '{command}'",
                shown(extra)
            )));
        }
    };
    match source_command {
        Some(sc) => {
            let input = if operand == "-" {
                Input::Stdin
            } else {
                Input::File(PathBuf::from(operand))
            };
            Ok(Command::Source {
                command: sc,
                input,
                json,
                profile,
            })
        }
        None => {
            if operand == "-" {
                return Err(UsageError(
                    "'test' reads a file or directory, not stdin ('-')".to_string(),
                ));
            }
            Ok(Command::Test {
                target: PathBuf::from(operand),
                profile,
            })
        }
    }
}

fn parse_profile(value: &str) -> Result<Profile, UsageError> {
    profile_named(value).ok_or_else(|| {
        UsageError(format!(
            "unknown profile '{value}' for '--profile' (expected cli or mcp)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, UsageError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args)
    }

    #[test]
    fn run_with_options_in_any_order() {
        let expected = Command::Source {
            command: SourceCommand::Run,
            input: Input::Stdin,
            json: true,
            profile: Profile::MCP_LOCAL_STDIO,
        };
        assert_eq!(
            p(&["run", "-", "--json", "--profile", "mcp"]),
            Ok(expected.clone())
        );
        assert_eq!(p(&["run", "--profile=mcp", "--json", "-"]), Ok(expected));
    }

    #[test]
    fn double_dash_allows_dash_file_names() {
        assert_eq!(
            p(&["check", "--", "--json"]),
            Ok(Command::Source {
                command: SourceCommand::Check,
                input: Input::File(PathBuf::from("--json")),
                json: false,
                profile: Profile::CLI_LOCAL,
            })
        );
    }

    #[test]
    fn usage_errors_name_the_argument() {
        let cases: [(&[&str], &str); 10] = [
            (&[], "missing command"),
            (&["frobnicate"], "'frobnicate'"),
            (&["--jsn"], "'--jsn'"),
            (&["run"], "needs an operand"),
            (&["run", "a", "b"], "'b'"),
            (&["run", "a", "--jsn"], "'--jsn'"),
            (&["run", "a", "--profile"], "needs a value"),
            (&["run", "a", "--profile", "fast"], "'fast'"),
            (&["test", "x", "--json"], "'--json'"),
            (&["repl", "x"], "'x'"),
        ];
        for (args, needle) in cases {
            let e = p(args).expect_err("a usage error");
            assert!(e.0.contains(needle), "{args:?}: {e}");
        }
    }

    #[test]
    fn help_and_version() {
        assert_eq!(p(&["--help"]), Ok(Command::Help));
        assert_eq!(p(&["run", "--help"]), Ok(Command::Help));
        assert_eq!(p(&["--version"]), Ok(Command::Version));
        assert!(p(&["--version", "x"]).is_err());
    }
}
