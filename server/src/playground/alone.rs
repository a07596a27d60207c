//! `ajisai playground`: the Playground served on its own, until SIGINT or SIGTERM.

use super::{Access, Playground};
use ajisai_host::phrasebook::ServedPhrasebook;
use ajisai_service::config::{ServerOptions, DEFAULT_SLOTS};
use ajisai_service::AjisaiServer;
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

/// Where to serve and who may reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Where to listen (port 0 picks a free port).
    pub addr: SocketAddr,
    /// `Host` names accepted besides loopback (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// Open connections at most.
    pub max_connections: usize,
}

impl Settings {
    /// Loopback on a free port, loopback names only.
    pub fn local() -> Settings {
        Settings {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            allowed_hosts: Vec::new(),
            max_connections: 256,
        }
    }
}

/// Why the Playground could not start; its text is one line for the operator.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The embedded documents disagree with their record.
    #[error("embedded assets: {0}")]
    Assets(#[from] ajisai_host::assets::IntegrityError),
    /// The phrasebook of `AJISAI_PHRASEBOOK` is refused (its diagnostic line).
    #[error("{0}")]
    Phrasebook(String),
    /// An `--allowed-host` value that is no host name.
    #[error("--allowed-host {0:?} is not a host name")]
    AllowedHost(String),
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The address could not be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Serve the Playground with `settings` until a signal; `playground at http://…/` goes
/// to `out` once it listens, notes to `err` (the numeric backend must be selected
/// already).
pub fn serve(
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), ServeError> {
    ajisai_host::content::verify()?;
    let phrasebook =
        ServedPhrasebook::from_env().map_err(|f| ServeError::Phrasebook(f.diagnostic()))?;
    let mut hosts: Vec<String> = crate::web::LOOPBACK_HOSTS
        .iter()
        .map(|h| h.to_string())
        .collect();
    for h in &settings.allowed_hosts {
        if crate::web::parse_allowed_authority(h).is_none() {
            return Err(ServeError::AllowedHost(h.clone()));
        }
        hosts.push(h.clone());
    }
    let server =
        AjisaiServer::with_phrasebook(ServerOptions::playground(DEFAULT_SLOTS), phrasebook);
    let wall_time = server.executor().options.wall_time();
    let playground = Playground::new(
        server,
        Access {
            allowed_hosts: hosts,
            allowed_origins: Vec::new(),
        },
    );
    let app = playground.router();
    let runtime = crate::web::runtime().map_err(ServeError::Runtime)?;
    let result = runtime.block_on(async {
        let listening = |source| ServeError::Listen {
            addr: settings.addr,
            source,
        };
        let listener = tokio::net::TcpListener::bind(settings.addr)
            .await
            .map_err(listening)?;
        let local = listener.local_addr().map_err(listening)?;
        let _ = writeln!(out, "playground at http://{local}/");
        let _ = out.flush();
        if !local.ip().is_loopback() && settings.allowed_hosts.is_empty() {
            let _ = writeln!(
                err,
                "ajisai: note: the page answers only to localhost, 127.0.0.1 and ::1; name the host people use with --allowed-host"
            );
        }
        let shutdown = crate::web::cancelled_on_signal("signal received; stopping");
        crate::web::serve(
            listener,
            app,
            None,
            settings.max_connections,
            shutdown,
            wall_time + Duration::from_secs(1),
            || {},
        )
        .await;
        Ok(())
    });
    // Runs still going are abandoned: they hold nothing that outlives the process.
    runtime.shutdown_background();
    result
}
