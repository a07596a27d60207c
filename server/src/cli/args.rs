//! Command-line grammar of `ajisai` (MCP-94 (README.md), as amended: clap's grammar and
//! usage errors), parsed with clap's derive API.
//!
//! Parsing is total: every argument list maps to a [`Command`] (help text included) or
//! a [`UsageError`] that clap rendered, naming the offending argument, so bad usage can
//! never panic. What clap cannot say — `test` given stdin, an unknown family — is
//! checked here and rendered the same way.

use ajisai_core::word::Family;
use ajisai_core::Profile;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

/// What the help says after the commands and options: the profiles' limits (from the
/// profiles themselves), exit codes and environment.
fn after_help() -> String {
    format!(
        "'-' reads the program from stdin. Sources are UTF-8.\n\n{}\n{AFTER_PROFILES}",
        profile_table()
    )
}

/// The profiles' limits side by side: `cli-local` (run, check, contract, test, repl by
/// default), `mcp-local-stdio` (`--profile mcp`, the MCP server's) and `playground`
/// (`ajisai playground`).
pub fn profile_table() -> String {
    use ajisai_core::Limit;
    let profiles = [
        Profile::CLI_LOCAL,
        Profile::MCP_LOCAL_STDIO,
        Profile::PLAYGROUND,
    ];
    let mut out = String::from("Profiles:\n");
    let header: Vec<&str> = profiles.iter().map(|p| p.name).collect();
    out.push_str(&format!(
        "  {:<22}{:>16}{:>16}{:>16}\n",
        "limit", header[0], header[1], header[2]
    ));
    for limit in Limit::ALL {
        let cell = |p: &Profile| p.get(limit).map_or("-".to_string(), |v| v.to_string());
        out.push_str(&format!(
            "  {:<22}{:>16}{:>16}{:>16}\n",
            limit.name(),
            cell(&profiles[0]),
            cell(&profiles[1]),
            cell(&profiles[2])
        ));
    }
    out
}

/// The help's text after the profiles.
const AFTER_PROFILES: &str = "\
Exit codes:
  0  ok (a NIL result included); every example passed
  1  language error; failing check; failed example; unknown Word for 'doc';
     memoryExhausted
  2  usage error or I/O error (nothing on stdout)

Environment:
  AJISAI_NUMERICS=auto|gmp|pure   numeric backend (default auto: the fastest available)
  AJISAI_NUMERICS_PLUGIN=<file>   load the GMP backend from this shared library
                                  (ignored, with a warning, when AJISAI_NUMERICS=pure)";

/// The `ajisai` command line.
#[derive(Parser, Debug)]
#[command(
    name = "ajisai",
    about = "Run Ajisai programs (the exact-arithmetic stack language)",
    after_help = after_help(),
    disable_version_flag = true,
    disable_help_subcommand = true
)]
struct Cli {
    /// Print the engine and specification versions, the numeric backend and the profile
    #[arg(short = 'V', long, exclusive = true)]
    version: bool,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Execute a program. Its output lines (PRINT), then its stack from bottom to top,
    /// go to stdout; an error goes to stderr with its line and column
    Run(SourceArgs),
    /// Check form and names without executing anything
    Check(SourceArgs),
    /// Infer the contracts of the User Words a source defines, executing nothing
    Contract(SourceArgs),
    /// Run every '#:example <source> => <display>' line of a file, or of every *.ajisai
    /// file under a directory
    Test {
        /// The file or directory
        #[arg(value_name = "FILE|DIR")]
        target: PathBuf,
        #[command(flatten)]
        limits: ProfileArg,
    },
    /// Evaluate stdin line by line as one continuing program
    Repl {
        #[command(flatten)]
        limits: ProfileArg,
    },
    /// List the Core Words by family, or the Words of one family
    Words {
        /// A family id, e.g. exactArithmetic (any case)
        #[arg(value_name = "FAMILY")]
        family: Option<String>,
    },
    /// Show one Word's contract, summary and examples (a name or an alias, any case)
    Doc {
        /// The Word
        #[arg(value_name = "WORD")]
        word: String,
    },
    /// Serve the Playground: a page to write and run programs, browse the dictionary and
    /// share links, under the playground profile, until Ctrl+C
    Playground {
        /// Where to listen (port 0 picks a free port)
        #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
        http: std::net::SocketAddr,
        /// A Host header accepted besides localhost, 127.0.0.1 and ::1 (repeatable; the
        /// name people use to reach a public bind)
        #[arg(long = "allowed-host", value_name = "NAME")]
        allowed_hosts: Vec<String>,
    },
    /// Print the completion script of a shell
    Completions {
        /// The shell
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

#[derive(clap::Args, Debug)]
struct SourceArgs {
    /// The source file, or '-' for stdin
    #[arg(value_name = "FILE|-")]
    input: PathBuf,
    /// Print exactly one JSON envelope (docs/mcp/envelope.md) on stdout, with "limitProfile" and
    /// "backend" as its last two fields
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    limits: ProfileArg,
}

#[derive(clap::Args, Debug)]
struct ProfileArg {
    /// Limits: cli = cli-local, mcp = mcp-local-stdio
    #[arg(long, value_name = "cli|mcp", default_value = "cli", value_parser = parse_profile)]
    profile: Profile,
}

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
    /// `--help` (of the CLI or of a command): print this text.
    Help(String),
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
    /// `words`: the Core Words, of one family or of all.
    Words {
        /// The family, or every family.
        family: Option<Family>,
    },
    /// `doc`: one Word's documentation.
    Doc {
        /// The name as written.
        word: String,
    },
    /// `playground`: serve the Playground until a signal.
    Playground {
        /// Where to listen.
        addr: std::net::SocketAddr,
        /// `Host` names accepted besides loopback.
        allowed_hosts: Vec<String>,
    },
    /// `completions`: a shell's completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// A usage error, rendered by clap: what was wrong, naming the argument, and the usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.trim_end())
    }
}

/// The profile a `--profile` value names (`cli` / `mcp`, or the full profile names).
pub fn profile_named(value: &str) -> Option<Profile> {
    match value {
        "cli" | "cli-local" => Some(Profile::CLI_LOCAL),
        "mcp" | "mcp-local-stdio" => Some(Profile::MCP_LOCAL_STDIO),
        _ => None,
    }
}

fn parse_profile(value: &str) -> Result<Profile, String> {
    profile_named(value).ok_or_else(|| "expected cli or mcp".to_string())
}

/// The family an id names, any case.
pub fn family_named(value: &str) -> Option<Family> {
    Family::ALL
        .into_iter()
        .find(|f| f.id().eq_ignore_ascii_case(value))
}

/// A usage error that clap renders for `kind` with `message`, as its own errors are:
/// with the usage line of the subcommand `sub` (`Usage: ajisai words [FAMILY]`), or of
/// `ajisai` itself.
fn usage_error(sub: Option<&str>, kind: ErrorKind, message: String) -> UsageError {
    let mut cli = Cli::command();
    // Building fills in each subcommand's full name (`ajisai words`) for its usage line.
    cli.build();
    let error = match sub.and_then(|name| cli.find_subcommand_mut(name)) {
        Some(command) => command.error(kind, message),
        None => cli.error(kind, message),
    };
    UsageError(error.render().to_string())
}

/// The clap command of `ajisai` (for completion scripts).
pub fn clap_command() -> clap::Command {
    Cli::command()
}

/// Parse the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<Command, UsageError> {
    let argv = std::iter::once(OsString::from("ajisai")).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            return Ok(Command::Help(e.render().to_string()))
        }
        Err(e) => return Err(UsageError(e.render().to_string())),
    };
    if cli.version {
        return Ok(Command::Version);
    }
    let Some(sub) = cli.command else {
        return Err(usage_error(
            None,
            ErrorKind::MissingSubcommand,
            "a command is needed: run, check, contract, test, repl, words, doc, playground or completions"
                .to_string(),
        ));
    };
    let source = |command: SourceCommand, a: SourceArgs| {
        let input = if a.input.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(a.input)
        };
        Command::Source {
            command,
            input,
            json: a.json,
            profile: a.limits.profile,
        }
    };
    Ok(match sub {
        Sub::Run(a) => source(SourceCommand::Run, a),
        Sub::Check(a) => source(SourceCommand::Check, a),
        Sub::Contract(a) => source(SourceCommand::Contract, a),
        Sub::Test { target, limits } => {
            if target.as_os_str() == "-" {
                return Err(usage_error(
                    Some("test"),
                    ErrorKind::InvalidValue,
                    "'test' reads a file or directory, not stdin ('-')".to_string(),
                ));
            }
            Command::Test {
                target,
                profile: limits.profile,
            }
        }
        Sub::Repl { limits } => Command::Repl {
            profile: limits.profile,
        },
        Sub::Words { family: None } => Command::Words { family: None },
        Sub::Words { family: Some(name) } => match family_named(&name) {
            Some(f) => Command::Words { family: Some(f) },
            None => {
                let ids: Vec<&str> = Family::ALL.iter().map(|f| f.id()).collect();
                return Err(usage_error(
                    Some("words"),
                    ErrorKind::InvalidValue,
                    format!("unknown family '{name}' (families: {})", ids.join(", ")),
                ));
            }
        },
        Sub::Doc { word } => Command::Doc { word },
        Sub::Completions { shell } => Command::Completions { shell },
        Sub::Playground {
            http,
            allowed_hosts,
        } => Command::Playground {
            addr: http,
            allowed_hosts,
        },
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
        let cases: [(&[&str], &str); 12] = [
            (&[], "a command is needed"),
            (&["frobnicate"], "'frobnicate'"),
            (&["--jsn"], "'--jsn'"),
            (&["run"], "<FILE|->"),
            (&["run", "a", "b"], "'b'"),
            (&["run", "a", "--jsn"], "'--jsn'"),
            (&["run", "a", "--profile"], "--profile"),
            (&["run", "a", "--profile", "fast"], "'fast'"),
            (&["test", "x", "--json"], "'--json'"),
            (&["repl", "x"], "'x'"),
            (&["words", "nope"], "unknown family 'nope'"),
            (&["completions", "cmd"], "'cmd'"),
        ];
        for (args, needle) in cases {
            let e = p(args).expect_err("a usage error");
            assert!(e.0.contains(needle), "{args:?}: {e}");
            assert!(e.0.contains("try '--help'"), "{args:?}: {e}");
        }
        // The errors clap cannot raise itself show the subcommand's usage too.
        let e = p(&["words", "nope"]).expect_err("a usage error");
        assert!(e.0.contains("Usage: ajisai words [FAMILY]"), "{e}");
        let e = p(&["test", "-"]).expect_err("a usage error");
        assert!(e.0.contains("Usage: ajisai test"), "{e}");
    }

    #[test]
    fn help_version_and_the_new_commands() {
        assert!(matches!(p(&["--help"]), Ok(Command::Help(h)) if h.contains("Exit codes")));
        assert!(matches!(p(&["run", "--help"]), Ok(Command::Help(h)) if h.contains("--json")));
        assert_eq!(p(&["--version"]), Ok(Command::Version));
        assert!(p(&["--version", "x"]).is_err());
        assert_eq!(
            p(&["words", "EXACTARITHMETIC"]),
            Ok(Command::Words {
                family: Some(Family::ExactArithmetic)
            })
        );
        assert_eq!(p(&["words"]), Ok(Command::Words { family: None }));
        assert_eq!(p(&["doc", "+"]), Ok(Command::Doc { word: "+".into() }));
        assert_eq!(
            p(&["completions", "bash"]),
            Ok(Command::Completions {
                shell: clap_complete::Shell::Bash
            })
        );
    }
}
