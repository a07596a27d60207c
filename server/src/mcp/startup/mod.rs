//! The command line (MCP-2, MCP-5..7; docs/mcp/transports.md, docs/mcp/index.md) and serve mode (MCP-3, MCP-4).

pub mod app;
pub mod doctor;
pub mod metrics;
pub mod version;

use crate::mcp::protocol::framing;
use crate::mcp::transport::Service;
use crate::mcp::transport::{http, stdio};
use crate::mcp::{logging, PROGRAM, SERVER_VERSION};
use ajisai_host::content;
use ajisai_host::phrasebook::ServedPhrasebook;
use ajisai_service::config;
use ajisai_service::config::{ServerOptions, Transport};
use ajisai_service::isolation::Isolation;
use ajisai_service::AjisaiServer;
use rmcp::ServiceExt;
use std::ffi::OsString;
use std::time::Duration;
use version::{version_text, EXIT_FAULT, EXIT_OK, EXIT_USAGE};

/// The usage line (clap prints it in usage errors, MCP-5 as amended: clap's format).
pub const USAGE: &str = "ajisai-mcp-server [--help | --version | --doctor] [--http <ADDR:PORT>] [--isolation <process|thread>] [--max-concurrency <N>] [--io-threads <N>] [--max-connections <N>] [--allowed-host <NAME>]... [--allowed-origin <ORIGIN>]... [--playground] [--playground-slots <N>]";

/// The command line. `--help`, `--version` and `--doctor` are modes: each excludes every
/// other argument. Parsed by clap, whose usage errors name the argument and exit 2;
/// help and version are this server's own texts (MCP-6, MCP-7), not clap's.
#[derive(clap::Parser, Clone, Debug, PartialEq, Eq)]
#[command(
    name = "ajisai-mcp-server",
    override_usage = USAGE,
    disable_help_flag = true,
    disable_version_flag = true,
    help_template = "{usage-heading} {usage}"
)]
pub struct Args {
    /// Print the help text.
    #[arg(short = 'h', long, exclusive = true)]
    pub help: bool,
    /// Print the seven identification lines.
    #[arg(long, exclusive = true)]
    pub version: bool,
    /// Run the startup checks and two computations.
    #[arg(long, exclusive = true)]
    pub doctor: bool,
    /// Serve Streamable HTTP at `/mcp` on this address instead of stdio (port 0 picks a
    /// free port).
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<std::net::SocketAddr>,
    /// Execution slots (`concurrentExecutions`), on either transport.
    #[arg(long, value_name = "N", default_value_t = config::DEFAULT_SLOTS,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_concurrency: u64,
    /// The threads that read requests and write answers (evaluations run on threads or
    /// processes of their own); half the machine's cores when not given.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub io_threads: Option<u64>,
    /// Open HTTP connections at most; further connections wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = http::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u64).range(1..=65_536), requires = "http")]
    pub max_connections: u64,
    /// A `Host` accepted on `/mcp` and `/metrics` besides the loopback names.
    #[arg(long = "allowed-host", value_name = "NAME", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// An `Origin` accepted on `/mcp` and `/metrics` (any other present Origin gets 403).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub allowed_origins: Vec<String>,
    /// Serve the Playground's pages at `/` beside `/mcp`, on slots of its own.
    #[arg(long, requires = "http")]
    pub playground: bool,
    /// The Playground's own execution slots beside `/mcp`.
    #[arg(long, value_name = "N", default_value_t = config::DEFAULT_PLAYGROUND_SLOTS,
          value_parser = clap::value_parser!(u64).range(1..=1024), requires = "playground")]
    pub playground_slots: u64,
    /// Where evaluations run: `process` (pre-started worker processes under OS limits,
    /// the default with `--http`) or `thread` (the server's own threads, the default on
    /// stdio).
    #[arg(long, value_name = "MODE", value_parser = isolation_parser())]
    pub isolation: Option<Isolation>,
    /// Run as a worker process of this profile (process isolation; started by the server
    /// itself, not by hand).
    #[arg(long, value_name = "PROFILE", exclusive = true, hide = true)]
    pub worker: Option<String>,
}

impl Args {
    /// Where evaluations run: as `--isolation` says, else processes over HTTP (a shared
    /// service) and threads over stdio (one client).
    pub fn isolation(&self) -> Isolation {
        self.isolation.unwrap_or(if self.http.is_some() {
            Isolation::Process
        } else {
            Isolation::Thread
        })
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Serve MCP: over stdio, or over Streamable HTTP with `--http`.
    Serve(Args),
    /// `--help` or `-h`.
    Help,
    /// `--version`.
    Version,
    /// `--doctor`.
    Doctor,
    /// `--worker <PROFILE>`: a worker process of process isolation.
    Worker(String),
}

/// `--isolation`'s parser: the modes' names, listed in help and in a refusal.
fn isolation_parser() -> impl clap::builder::TypedValueParser<Value = Isolation> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Isolation::ALL.map(Isolation::name)).map(|name| {
        // The parser above only accepts the modes' names.
        Isolation::from_name(&name).unwrap_or_default()
    })
}

/// Parse the arguments (without the program name). The error is clap's usage error,
/// which names the offending argument when rendered.
pub fn parse(args: &[OsString]) -> Result<Mode, clap::Error> {
    use clap::Parser;
    let argv = std::iter::once(OsString::from(PROGRAM)).chain(args.iter().cloned());
    let parsed = Args::try_parse_from(argv)?;
    Ok(if parsed.help {
        Mode::Help
    } else if parsed.version {
        Mode::Version
    } else if parsed.doctor {
        Mode::Doctor
    } else if let Some(profile) = parsed.worker {
        Mode::Worker(profile)
    } else {
        Mode::Serve(parsed)
    })
}

/// Run the executable; the result is the exit code.
pub fn run(args: &[OsString]) -> u8 {
    let mode = match parse(args) {
        Ok(m) => m,
        Err(e) => {
            let e = e.render().to_string();
            eprint!("{e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            return EXIT_USAGE;
        }
    };
    match mode {
        Mode::Help => {
            print!("{}", help_text());
            EXIT_OK
        }
        Mode::Version => {
            ajisai_host::backend::link();
            // Backend first: reading the phrasebook must not fix one by itself.
            let selected = ajisai_host::backend::select_from_env();
            let phrasebook = ServedPhrasebook::from_env();
            print!("{}", version_text(&selected, &phrasebook));
            EXIT_OK
        }
        Mode::Doctor => doctor::run(),
        Mode::Worker(profile) => {
            logging::init();
            let code = ajisai_service::isolation::worker::run(&profile);
            logging::finish(logging::FINISH_WAIT);
            code
        }
        Mode::Serve(args) => serve(&args),
    }
}

/// The help text (MCP-6); needs no startup verification.
pub fn help_text() -> String {
    format!(
        "{PROGRAM} {SERVER_VERSION} — the Ajisai MCP server: exact-arithmetic programs as tools
for AI agents (compute, check, infer_contracts, word_contract) over stdio or Streamable HTTP.

usage: {USAGE}

  {PROGRAM}             serve MCP on stdin/stdout until stdin closes; stdout
                                carries only JSON-RPC messages, diagnostics go to stderr
  {PROGRAM} --http 127.0.0.1:8080
                                serve Streamable HTTP (stateless) at http://ADDR:PORT/mcp
                                until SIGTERM or SIGINT; port 0 picks a free port
  {PROGRAM} --help      print this help (alias -h)
  {PROGRAM} --version   print the server, engine and specification versions, asset
                                and registry digests, numeric backend and limit profile
  {PROGRAM} --doctor    run the startup checks and two real computations; exit 0
                                only when every check passes

options:
  --max-concurrency <N>         execution slots, on either transport (default {slots})
  --io-threads <N>              threads that read requests and write answers, on
                                either transport (default half the cores, at least 1)
  --http <ADDR:PORT>            serve HTTP instead of stdio; profile mcp-remote-http
  --max-connections <N>         open HTTP connections at most (default {connections})
  --allowed-host <NAME>         a Host header accepted besides localhost, 127.0.0.1 and
                                ::1 (repeatable; a name, or name:port)
  --allowed-origin <ORIGIN>     an Origin accepted (repeatable, e.g. https://app.example:443);
                                a request with any other Origin gets 403
  --isolation <MODE>            where evaluations run: process (pre-started worker
                                processes under OS limits, one per slot; the default
                                with --http) or thread (the server's own threads; the
                                default on stdio)
  --playground                  with --http: also serve the Playground at / (profile
                                playground, on slots of its own; no token needed for it)
  --playground-slots <N>        the Playground's own execution slots (default {page_slots})

HTTP endpoints: POST /mcp (clients must Accept both application/json and
text/event-stream), GET /healthz, GET /readyz, GET /metrics (Prometheus text).
TLS is not served: terminate it at the load balancer.

environment:
  AJISAI_NUMERICS         numeric backend: auto (default), gmp or pure
  AJISAI_NUMERICS_PLUGIN  path of a gmp backend plugin library to load at startup
  AJISAI_PHRASEBOOK       path of a phrasebook file replacing the embedded one
  AJISAI_HTTP_TOKEN       bearer token (at least 16 characters) that /mcp and /metrics
                          require as `Authorization: Bearer <token>`; required when
                          --http binds an address other than loopback

exit codes: 0 stdin closed or the HTTP server drained, or help/version/doctor
succeeded; 1 startup fault or a failing doctor check; 2 usage error.
",
        slots = config::DEFAULT_SLOTS,
        connections = http::DEFAULT_MAX_CONNECTIONS,
        page_slots = config::DEFAULT_PLAYGROUND_SLOTS,
    )
}

fn fault(step: &str, why: &str) -> u8 {
    logging::line(format_args!("startup: {step}: {why}"));
    EXIT_FAULT
}

/// The HTTP settings of the command line and the token variable's value. The error is the
/// startup fault's text: a token that is not text, shorter than
/// [`http::MIN_TOKEN_CHARS`], or missing on a non-loopback bind.
fn http_settings(
    addr: std::net::SocketAddr,
    args: &Args,
    token: Option<OsString>,
) -> Result<http::Settings, String> {
    let token = match token {
        None => None,
        Some(t) => Some(
            t.into_string()
                .map_err(|_| format!("{} is not valid text", http::TOKEN_VAR))?,
        ),
    };
    http::Settings::new(
        addr,
        token,
        args.allowed_hosts.clone(),
        args.allowed_origins.clone(),
        args.max_connections as usize,
    )
}

/// Serve mode: verify, select, build, then speak MCP until stdin closes, or over HTTP
/// until a signal (MCP-4). Every stderr line goes through the log's bounded queue, which
/// gets at most [`logging::FINISH_WAIT`] at the end to reach stderr.
pub fn serve(args: &Args) -> u8 {
    logging::init();
    let code = serve_logged(args);
    logging::finish(logging::FINISH_WAIT);
    code
}

fn serve_logged(args: &Args) -> u8 {
    // The HTTP settings are checked before anything is built: a bad token or an
    // unprotected public bind is a startup fault of its own.
    let http = match args.http {
        Some(addr) => match http_settings(addr, args, std::env::var_os(http::TOKEN_VAR)) {
            Ok(settings) => Some(settings),
            Err(why) => return fault("http", &why),
        },
        None => None,
    };
    ajisai_host::backend::link();
    if let Err(e) = content::verify() {
        return fault("embedded assets", &e.to_string());
    }
    // The backend is fixed before the phrasebook is read, so that reading it cannot
    // fix one by itself (a big literal needs arithmetic); faults still answer in the
    // order of MCP-4: phrasebook before backend.
    let selected = ajisai_host::backend::select_with(
        std::env::var_os(ajisai_host::backend::CHOICE_VAR),
        std::env::var_os(ajisai_host::backend::PLUGIN_VAR),
        &mut |w| logging::line(format_args!("warning: {w}")),
    );
    // Step 2 (MCP-78; docs/phrasebook.md): the fault line is `[ajisai-mcp] phrasebook: line <n>: <problem>`.
    let phrasebook = match ServedPhrasebook::from_env() {
        Ok(p) => p,
        Err(f) => {
            logging::line(format_args!("{}", f.diagnostic()));
            return EXIT_FAULT;
        }
    };
    let selected = match selected {
        Ok(s) => s,
        Err(e) => return fault("numeric backend", &e.to_string()),
    };
    let io_threads = args
        .io_threads
        .map_or_else(crate::web::default_io_threads, |n| n as usize);
    let runtime = match crate::web::runtime_with(io_threads) {
        Ok(r) => r,
        Err(e) => return fault("runtime", &e.to_string()),
    };
    let transport = if http.is_some() {
        Transport::Http
    } else {
        Transport::Stdio
    };
    let isolation = args.isolation();
    let options = ServerOptions::serving(transport, args.max_concurrency)
        .with_test_overrides()
        .with_isolation(isolation);
    let profile = options.profile.name;
    let summary = phrasebook.summary();
    if http.is_some() {
        // Before the first worker starts: a start counted before the recorder exists is
        // lost, and `/metrics` would count one worker start too few for each.
        metrics::install(selected.provenance().kind);
    }
    // Worker processes start on the runtime, before the first call arrives.
    let server = {
        let _runtime = runtime.enter();
        AjisaiServer::with_phrasebook(options, phrasebook)
    };
    let p = selected.provenance();
    tracing::info!(
        "{PROGRAM} {SERVER_VERSION} (engine {}, specification {}); numerics {} ({}, {}) — {}; phrasebook: {summary}; profile {profile}; isolation {}; {io_threads} I/O threads",
        ajisai_core::ENGINE_VERSION,
        ajisai_core::SPECIFICATION_VERSION,
        p.kind,
        p.library,
        p.origin,
        selected.reason,
        isolation.name(),
    );
    let code = match http {
        Some(settings) => {
            let playground_slots = args.playground.then_some(args.playground_slots);
            serve_http(&runtime, server, settings, playground_slots)
        }
        None => serve_stdio(&runtime, server),
    };
    // Running executions are abandoned: they hold nothing that outlives the process.
    runtime.shutdown_background();
    code
}

/// Serve Streamable HTTP until a signal, then drain (MCP-4 for HTTP); with
/// `playground_slots`, the Playground's pages beside `/mcp` on that many slots of its own.
fn serve_http(
    runtime: &tokio::runtime::Runtime,
    server: AjisaiServer,
    settings: http::Settings,
    playground_slots: Option<u64>,
) -> u8 {
    let code = runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(settings.addr).await {
            Ok(l) => l,
            Err(e) => return fault("http", &format!("cannot listen on {}: {e}", settings.addr)),
        };
        let shutdown = crate::web::cancelled_on_signal("signal received; draining");
        // Calls answer within their wallTimeMs (timeouts included); the drain gives them
        // that, and the Playground's runs theirs, with a little more for the answers.
        let mut drain_for = server.executor().options.wall_time();
        let pages = playground_slots.map(|slots| {
            drain_for = drain_for.max(Duration::from_millis(
                ajisai_core::Profile::PLAYGROUND.wall_time_ms.unwrap_or(0),
            ));
            // Its own profile on slots of its own; its routes need no token.
            let playground = crate::playground::Playground::beside(
                &server,
                slots,
                crate::playground::Access {
                    allowed_hosts: settings.allowed_hosts().to_vec(),
                    allowed_origins: settings.allowed_origins().to_vec(),
                },
            );
            http::Pages {
                router: playground.router(),
                route_of: crate::playground::route_of,
            }
        });
        if pages.is_some() {
            if let Ok(local) = listener.local_addr() {
                tracing::info!("serving the Playground at http://{local}/");
            }
        }
        let app = app::App::new(server);
        match http::serve(listener, app, settings, pages, drain_for, shutdown).await {
            Ok(()) => EXIT_OK,
            Err(e) => fault("http", &e.to_string()),
        }
    });
    code
}

/// Serve stdio until stdin closes.
fn serve_stdio(runtime: &tokio::runtime::Runtime, server: AjisaiServer) -> u8 {
    let app = app::App::new(server);
    let framing = {
        let app = app.clone();
        framing::Framing::connection(Box::new(move |params: &serde_json::Value| {
            app.precheck(params)
        }))
    };
    let (io, writer) = match stdio::stdio(framing, app.clone()) {
        Ok(t) => t,
        Err(e) => return fault("stdio", &e.to_string()),
    };
    let draining = &writer;
    runtime.block_on(async move {
        let ct = crate::web::cancelled_on_signal("signal received; stopping");
        match app.handler().serve_with_ct(io, ct.clone()).await {
            Ok(service) => {
                let _ = service.waiting().await;
            }
            Err(e) => tracing::info!("session ended before it started: {e}"),
        }
        // As long as rmcp waits for its own handlers when stdin closes.
        draining.drain_calls(Duration::from_secs(5)).await;
    });
    // Queued answers reach stdout before the process ends.
    writer.finish(Duration::from_secs(2));
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn modes() {
        let serve = |a: &[&str]| match parse(&args(a)) {
            Ok(Mode::Serve(a)) => a,
            other => panic!("{a:?}: {other:?}"),
        };
        let plain = serve(&[]);
        assert_eq!(plain.http, None);
        assert_eq!(plain.max_concurrency, 4);
        let mode = |a: &[&str]| parse(&args(a)).expect("a mode");
        assert_eq!(mode(&["-h"]), Mode::Help);
        assert_eq!(mode(&["--help"]), Mode::Help);
        assert_eq!(mode(&["--version"]), Mode::Version);
        assert_eq!(mode(&["--doctor"]), Mode::Doctor);
        let h = serve(&[
            "--http",
            "127.0.0.1:0",
            "--max-concurrency",
            "2",
            "--allowed-host",
            "a.example",
            "--allowed-host",
            "b.example",
        ]);
        assert_eq!(h.http, Some("127.0.0.1:0".parse().expect("address")));
        assert_eq!(h.max_concurrency, 2);
        assert_eq!(h.allowed_hosts, vec!["a.example", "b.example"]);
        assert_eq!(serve(&["--max-concurrency", "8"]).max_concurrency, 8);
        assert_eq!(plain.io_threads, None);
        assert_eq!(serve(&["--io-threads", "1"]).io_threads, Some(1));
        assert_eq!(serve(&["--io-threads", "1024"]).io_threads, Some(1024));
        for (bad, named) in [
            (&["--frob"][..], "--frob"),
            (&["serve"][..], "serve"),
            (&["--help", "--version"][..], "--version"),
            (&["--doctor", "--http", "127.0.0.1:0"][..], "--http"),
            (&["--http", "localhost"][..], "localhost"),
            (&["--max-concurrency", "0"][..], "--max-concurrency"),
            (&["--io-threads", "0"][..], "--io-threads"),
            (&["--io-threads", "1025"][..], "--io-threads"),
            (&["--allowed-host", "x"][..], "--http"),
        ] {
            let e = parse(&args(bad))
                .expect_err("a usage error")
                .render()
                .to_string();
            assert!(e.contains(named), "{bad:?}: {e}");
            assert!(e.starts_with("error: "), "{bad:?}: {e}");
        }
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
            "--io-threads",
        ] {
            assert!(h.contains(needle), "{needle}");
        }
    }
}
