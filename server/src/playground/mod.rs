//! The Playground: a page where people write and run programs, browse the dictionary and
//! share what they wrote (README.md, "Try it in your browser"; docs/playground.md).
//!
//! A host of its own, on the MCP server's service: every run is a `compute` or `check`
//! tool call through [`AjisaiServer::call_with_delivery`] — validation, the gate, the deadline, the
//! memory account, fitting and the metrics — under the `playground` profile, so the page
//! shows exactly the envelope an agent gets (with `limitProfile: "playground"`). It is
//! served alone by `ajisai playground` ([`alone`]) or beside `/mcp` by
//! `ajisai-mcp-server --http … --playground`, which shares one gate between both.
//!
//! What it serves ([`Playground::router`]): the page ([`page`]: HTML, CSS and JS embedded
//! in the binary, under a strict Content-Security-Policy), the dictionary, the tutorial's
//! examples and both profiles as JSON ([`catalogue`]), and the two run endpoints
//! ([`run`]), which take JSON only and only from the page's own origin.

pub mod alone;
pub mod catalogue;
pub mod page;
pub mod run;

use ajisai_service::config::ServerOptions;
use ajisai_service::AjisaiServer;
use axum::routing::{get, post};
use axum::{middleware, Router};
use std::sync::Arc;

/// Who may reach the Playground: the `Host` names besides loopback, and the page
/// origins besides its own that may drive its run endpoints.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// Every `Host` accepted (loopback names included).
    pub allowed_hosts: Vec<String>,
    /// `Origin`s accepted on the run endpoints besides the page's own.
    pub allowed_origins: Vec<String>,
}

/// One Playground: its server (the `playground` profile), its JSON documents, who may
/// reach it, and the bytes of request bodies it may hold at once.
pub struct Playground {
    server: AjisaiServer,
    documents: catalogue::Documents,
    access: Access,
    /// `access.allowed_hosts`, parsed.
    hosts: crate::web::AllowedHosts,
    bodies: crate::web::BodyBudget,
}

/// The Playground's route a request path names, for a log line (`/` for the page and
/// any path it does not serve).
pub fn route_of(path: &str) -> &'static str {
    [
        run::COMPUTE_PATH,
        run::CHECK_PATH,
        catalogue::INFO_PATH,
        catalogue::WORDS_PATH,
        catalogue::EXAMPLES_PATH,
        page::SCRIPT_PATH,
        page::STYLE_PATH,
        page::ICON_PATH,
    ]
    .into_iter()
    .find(|route| *route == path)
    .unwrap_or("/")
}

/// The Playground's own execution slots beside `/mcp` when `--playground-slots` is not
/// given.
pub const DEFAULT_SLOTS: u64 = ajisai_service::config::DEFAULT_PLAYGROUND_SLOTS;

impl Playground {
    /// A Playground running its programs on `server` (built for [`ServerOptions::playground`]).
    pub fn new(server: AjisaiServer, access: Access) -> Arc<Playground> {
        let documents = catalogue::Documents::new(&server);
        let bodies = run::body_budget(server.executor().options.source_bytes());
        Arc::new(Playground {
            server,
            documents,
            hosts: crate::web::AllowedHosts::new(&access.allowed_hosts),
            access,
            bodies,
        })
    }

    /// A Playground beside `mcp` (`--playground`): its own profile on `slots` slots of
    /// its own (`--playground-slots`), isolated as `mcp`'s calls are, so that page load
    /// never takes a slot from `/mcp`'s callers.
    pub fn beside(mcp: &AjisaiServer, slots: u64, access: Access) -> Arc<Playground> {
        let isolation = mcp.executor().options.isolation;
        Playground::new(
            mcp.beside(ServerOptions::playground(slots).with_isolation(isolation)),
            access,
        )
    }

    /// The server its programs run on.
    pub fn server(&self) -> &AjisaiServer {
        &self.server
    }

    /// Its routes: the page and its JSON under the security headers, every one behind
    /// the `Host` check; the run endpoints also behind the same-origin check.
    pub fn router(self: &Arc<Playground>) -> Router {
        let runs = Router::new()
            .route(run::COMPUTE_PATH, post(run::compute))
            .route(run::CHECK_PATH, post(run::check))
            .route_layer(middleware::from_fn_with_state(
                Arc::clone(self),
                run::same_origin_json,
            ));
        Router::new()
            .route("/", get(page::index))
            .route(page::SCRIPT_PATH, get(page::script))
            .route(page::STYLE_PATH, get(page::style))
            .route(page::ICON_PATH, get(page::icon))
            .route(catalogue::INFO_PATH, get(catalogue::info))
            .route(catalogue::WORDS_PATH, get(catalogue::words))
            .route(catalogue::EXAMPLES_PATH, get(catalogue::examples))
            .merge(runs)
            .route_layer(middleware::from_fn_with_state(
                Arc::clone(self),
                page::host_guard,
            ))
            .route_layer(middleware::from_fn(page::security_headers))
            .with_state(Arc::clone(self))
    }
}
