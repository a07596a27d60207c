//! The command line (MCP-2, MCP-5..7) and serve mode (MCP-3, MCP-4).

use super::config::ServerOptions;
use super::content;
use super::handler::AjisaiServer;
use super::phrasebook::{Fault, Origin, Phrasebook};
use super::{doctor, framing, logging, transport, PROGRAM, SERVER_VERSION};
use ajisai_core::numerics::Selected;
use ajisai_core::Profile;
use rmcp::ServiceExt;
use std::ffi::OsString;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Native stack of every runtime thread, the blocking pool that runs the engine
/// included. The engine never recurses over program or value depth; this is defence in
/// depth, not a requirement (the memory is reserved, not committed).
pub const ENGINE_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Exit code: served until EOF, printed help/version, or every doctor check passed.
pub const EXIT_OK: u8 = 0;
/// Exit code: a startup fault, or a failing doctor check.
pub const EXIT_FAULT: u8 = 1;
/// Exit code: a usage error.
pub const EXIT_USAGE: u8 = 2;

/// The usage lines.
pub const USAGE: &str = "usage: ajisai-mcp-server [--help | --version | --doctor]";

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No arguments: serve MCP over stdio.
    Serve,
    /// `--help` or `-h`.
    Help,
    /// `--version`.
    Version,
    /// `--doctor`.
    Doctor,
}

/// Parse the arguments (without the program name). The error names the offending
/// argument.
pub fn parse(args: &[OsString]) -> Result<Mode, String> {
    match args {
        [] => Ok(Mode::Serve),
        [one] => match one.to_str() {
            Some("--help" | "-h") => Ok(Mode::Help),
            Some("--version") => Ok(Mode::Version),
            Some("--doctor") => Ok(Mode::Doctor),
            Some(s) if s.starts_with('-') => Err(format!("unknown option `{s}`")),
            Some(s) => Err(format!("unexpected argument `{s}`")),
            None => Err(format!(
                "unexpected argument `{}` (not valid text)",
                one.to_string_lossy()
            )),
        },
        [_, second, ..] => Err(format!(
            "too many arguments (at most one is accepted): `{}`",
            second.to_string_lossy()
        )),
    }
}

/// Run the executable; the result is the exit code.
pub fn run(args: &[OsString]) -> u8 {
    let mode = match parse(args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}\n{USAGE}\n(see {PROGRAM} --help)");
            return EXIT_USAGE;
        }
    };
    match mode {
        Mode::Help => {
            print!("{}", help_text());
            EXIT_OK
        }
        Mode::Version => {
            crate::backend::link();
            // Backend first: reading the phrasebook must not fix one by itself.
            let selected = crate::backend::select_from_env();
            let phrasebook = Phrasebook::from_env();
            print!("{}", version_text(&selected, &phrasebook));
            EXIT_OK
        }
        Mode::Doctor => doctor::run(),
        Mode::Serve => serve(),
    }
}

/// The help text (MCP-6); needs no startup verification.
pub fn help_text() -> String {
    format!(
        "{PROGRAM} {SERVER_VERSION} — the Ajisai MCP server: exact-arithmetic programs as tools
for AI agents (compute, check, infer_contracts, word_contract) over stdio.

{USAGE}

  {PROGRAM}             serve MCP on stdin/stdout until stdin closes; stdout
                                carries only JSON-RPC messages, diagnostics go to stderr
  {PROGRAM} --help      print this help (alias -h)
  {PROGRAM} --version   print the server, engine and specification versions, asset
                                and registry digests, numeric backend and limit profile
  {PROGRAM} --doctor    run the startup checks and two real computations; exit 0
                                only when every check passes

environment:
  AJISAI_NUMERICS         numeric backend: auto (default), gmp or pure
  AJISAI_NUMERICS_PLUGIN  path of a gmp backend plugin library to load at startup
  AJISAI_PHRASEBOOK       path of a phrasebook file replacing the embedded one

exit codes: 0 stdin closed, or help/version/doctor succeeded; 1 startup fault or a
failing doctor check; 2 usage error.
"
    )
}

/// The `numerics` line's value, or why it is unavailable.
pub fn numerics_text(selected: &Result<Selected, String>) -> String {
    match selected {
        Ok(s) => {
            let p = s.provenance();
            format!("{} ({}, {})", p.kind, p.library, p.origin)
        }
        Err(e) => format!("unavailable ({e})"),
    }
}

/// The `assets` line's value: the asset digest with the effective phrasebook (MCP-83),
/// or why it is unavailable.
pub fn assets_text(phrasebook: &Result<Phrasebook, Fault>) -> String {
    match phrasebook {
        Ok(p) => p.asset_digest().to_string(),
        Err(Fault::Unreadable { .. }) => {
            "unavailable (the AJISAI_PHRASEBOOK file cannot be read)".to_string()
        }
        Err(Fault::Invalid {
            origin: Origin::Override(_),
            ..
        }) => "unavailable (the AJISAI_PHRASEBOOK file is not a valid phrasebook)".to_string(),
        Err(Fault::Invalid { .. }) => {
            "unavailable (the embedded phrasebook does not verify)".to_string()
        }
    }
}

/// The seven lines of `--version` (MCP-7), with the asset digest of the effective
/// phrasebook.
pub fn version_text(
    selected: &Result<Selected, String>,
    phrasebook: &Result<Phrasebook, Fault>,
) -> String {
    let c = content::content();
    format!(
        "{PROGRAM} {SERVER_VERSION}\nengine: {}\nspecification: {}\nassets: {}\nregistry: {}\nnumerics: {}\nprofile: {}\n",
        ajisai_core::ENGINE_VERSION,
        ajisai_core::SPECIFICATION_VERSION,
        assets_text(phrasebook),
        c.registry_digest,
        numerics_text(selected),
        Profile::MCP_LOCAL_STDIO.name
    )
}

/// Build the runtime: worker threads and the blocking pool, all with a large stack.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ajisai-mcp")
        .thread_stack_size(ENGINE_STACK_BYTES)
        .max_blocking_threads(16)
        .build()
}

fn fault(step: &str, why: &str) -> u8 {
    eprintln!(
        "{} startup: {step}: {}",
        logging::PREFIX,
        why.replace(['\r', '\n'], " ")
    );
    EXIT_FAULT
}

/// Serve mode: verify, select, build, then speak MCP until stdin closes (MCP-4).
pub fn serve() -> u8 {
    logging::init();
    crate::backend::link();
    if let Err(e) = content::verify() {
        return fault("embedded assets", &e);
    }
    // The backend is fixed before the phrasebook is read, so that reading it cannot
    // fix one by itself (a big literal needs arithmetic); faults still answer in the
    // order of MCP-4: phrasebook before backend.
    let selected = crate::backend::select_from_env();
    // Step 2 (MCP-78): the fault line is `[ajisai-mcp] phrasebook: line <n>: <problem>`.
    let phrasebook = match Phrasebook::from_env() {
        Ok(p) => p,
        Err(f) => {
            eprintln!("{} {}", logging::PREFIX, f.diagnostic());
            return EXIT_FAULT;
        }
    };
    let selected = match selected {
        Ok(s) => s,
        Err(e) => return fault("numeric backend", &e),
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fault("runtime", &e.to_string()),
    };
    let summary = phrasebook.summary();
    let server = AjisaiServer::with_phrasebook(ServerOptions::production(), phrasebook);
    let p = selected.provenance();
    tracing::info!(
        "{PROGRAM} {SERVER_VERSION} (engine {}, specification {}); numerics {} ({}, {}) — {}; phrasebook: {summary}; profile {}",
        ajisai_core::ENGINE_VERSION,
        ajisai_core::SPECIFICATION_VERSION,
        p.kind,
        p.library,
        p.origin,
        selected.reason,
        Profile::MCP_LOCAL_STDIO.name
    );
    let framing = {
        let s = server.clone();
        framing::Framing::connection(Box::new(move |params: &serde_json::Value| {
            s.precheck(params)
        }))
    };
    let (io, writer) = match transport::stdio(framing) {
        Ok(t) => t,
        Err(e) => return fault("stdio", &e.to_string()),
    };
    runtime.block_on(async move {
        let ct = CancellationToken::new();
        let signals = ct.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("signal received; stopping");
            signals.cancel();
        });
        match server.serve_with_ct(io, ct.clone()).await {
            Ok(service) => {
                let _ = service.waiting().await;
            }
            Err(e) => tracing::info!("session ended before it started: {e}"),
        }
    });
    // Queued answers reach stdout before the process ends; running executions are
    // abandoned (they hold nothing that outlives the process).
    writer.finish(Duration::from_secs(2));
    runtime.shutdown_background();
    EXIT_OK
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn modes() {
        assert_eq!(parse(&args(&[])), Ok(Mode::Serve));
        assert_eq!(parse(&args(&["-h"])), Ok(Mode::Help));
        assert_eq!(parse(&args(&["--help"])), Ok(Mode::Help));
        assert_eq!(parse(&args(&["--version"])), Ok(Mode::Version));
        assert_eq!(parse(&args(&["--doctor"])), Ok(Mode::Doctor));
        assert_eq!(
            parse(&args(&["--frob"])),
            Err("unknown option `--frob`".into())
        );
        assert_eq!(
            parse(&args(&["serve"])),
            Err("unexpected argument `serve`".into())
        );
        assert!(parse(&args(&["--help", "--version"])).is_err());
    }

    #[test]
    fn help_names_the_environment() {
        let h = help_text();
        for needle in [
            "AJISAI_NUMERICS ",
            "AJISAI_NUMERICS_PLUGIN",
            "AJISAI_PHRASEBOOK",
            "--doctor",
            "--version",
            "stdin/stdout",
        ] {
            assert!(h.contains(needle), "{needle}");
        }
    }
}
