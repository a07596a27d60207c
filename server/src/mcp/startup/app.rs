//! The application the transports carry, assembled at start-up: the service behind rmcp's
//! handler, the tool calls a transport answers itself, the precheck, the readiness probe's
//! computation and the Prometheus text. The transports see it only through
//! [`transport::Service`](crate::mcp::transport::Service), so they name no concrete server.

use crate::mcp::protocol::framing::DirectCall;
use crate::mcp::protocol::handler::{self, Handler};
use crate::mcp::transport::{DirectAnswer, Service};
use ajisai_service::validate::ToolKind;
use ajisai_service::AjisaiServer;
use serde_json::Value;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a successful readiness computation stays valid.
pub const READY_FOR: Duration = Duration::from_secs(1);

/// The MCP server's application: cheap to clone, every clone serves the same server.
#[derive(Clone)]
pub struct App {
    handler: Handler,
    readiness: Arc<Readiness>,
}

impl App {
    /// The application of `server`.
    pub fn new(server: AjisaiServer) -> App {
        App {
            handler: Handler::new(server),
            readiness: Arc::new(Readiness {
                last_ok: Mutex::new(None),
                checking: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The server it carries.
    pub fn server(&self) -> &AjisaiServer {
        self.handler.server()
    }
}

/// The readiness computation's last success; one computation at a time.
struct Readiness {
    last_ok: Mutex<Option<Instant>>,
    checking: tokio::sync::Mutex<()>,
}

impl Readiness {
    fn fresh(&self) -> bool {
        let last = *self.last_ok.lock().unwrap_or_else(|p| p.into_inner());
        last.is_some_and(|t| t.elapsed() < READY_FOR)
    }
}

/// `2 3 DIV 1 3 DIV ADD` through the compute path answers `1/1`.
fn readiness_computation(server: &AjisaiServer) -> bool {
    match server.execute_now(ToolKind::COMPUTE, "2 3 DIV 1 3 DIV ADD") {
        Ok(answer) => serde_json::from_str::<Value>(answer.envelope())
            .is_ok_and(|e| e["status"] == "ok" && e["stackDisplay"] == serde_json::json!(["1/1"])),
        Err(_) => false,
    }
}

impl Service for App {
    type Handler = Handler;

    fn handler(&self) -> Handler {
        self.handler.clone()
    }

    fn call(&self, call: DirectCall) -> impl Future<Output = Option<DirectAnswer>> + Send {
        let server = self.handler.server().clone();
        async move {
            let answer = handler::call_direct(&server, &call).await?;
            Some(DirectAnswer {
                response: handler::direct_response(&answer, &call),
                outcome: answer.outcome(),
                retry_after_ms: answer.retry_after_ms(),
            })
        }
    }

    fn precheck(&self, params: &Value) -> Option<Value> {
        handler::precheck(self.handler.server(), params)
    }

    /// A real computation through the compute path, cached for [`READY_FOR`]; probes
    /// arriving while one runs share its answer.
    fn ready(&self) -> impl Future<Output = bool> + Send {
        let readiness = Arc::clone(&self.readiness);
        let server = self.handler.server().clone();
        async move {
            if readiness.fresh() {
                return true;
            }
            let _one = readiness.checking.lock().await;
            if readiness.fresh() {
                return true;
            }
            // Outside the gate and the metrics: a probe must not take a slot from a call.
            let ok = tokio::task::spawn_blocking(move || readiness_computation(&server))
                .await
                .unwrap_or(false);
            if ok {
                *readiness.last_ok.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
            }
            ok
        }
    }

    fn metrics(&self) -> Option<String> {
        super::metrics::render(self.handler.server().executor().waiting())
    }
}
