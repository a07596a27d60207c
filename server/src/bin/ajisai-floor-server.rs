//! `ajisai-floor-server`: the floor the transport benchmark measures against — an rmcp
//! server built with the same features as `ajisai-mcp-server` that does no work: its one
//! tool, `compute`, answers a fixed result of the same size as `1 2 ADD`'s, over rmcp's own
//! stdio transport or (`--http ADDR:PORT`) rmcp's stateless Streamable HTTP service on
//! `axum::serve`. Built only with the `bench-floor` feature; never installed.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::sync::Arc;

#[path = "floor/envelope.rs"]
mod floor_envelope;
use floor_envelope::ENVELOPE;

/// The no-op server.
#[derive(Clone)]
struct Floor {
    tools: Arc<Vec<Tool>>,
    structured: Arc<serde_json::Value>,
}

impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(ToolsCapability::default());
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "ajisai-floor",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        // Every revision, as `ajisai-mcp-server` serves them (2026-07-28 included).
        std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut result = CallToolResult::default();
        result.content = vec![ContentBlock::text(ENVELOPE)];
        result.structured_content = Some((*self.structured).clone());
        Ok(result.into())
    }
}

fn main() -> std::process::ExitCode {
    let floor = Floor {
        tools: Arc::new(vec![Tool::new(
            "compute",
            "Answers a fixed result.",
            Arc::new(JsonObject::new()),
        )]),
        structured: Arc::new(serde_json::from_str(ENVELOPE).expect("the envelope is JSON")),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        match args.as_slice() {
            [flag, addr] if flag == "--http" => {
                use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
                use rmcp::transport::streamable_http_server::{
                    StreamableHttpServerConfig, StreamableHttpService,
                };
                let config = StreamableHttpServerConfig::default()
                    .with_legacy_session_mode(false)
                    .with_json_response(true)
                    .with_sse_keep_alive(None);
                let service = StreamableHttpService::new(
                    move || Ok(floor.clone()),
                    Arc::new(NeverSessionManager::default()),
                    config,
                );
                let app = axum::Router::new().route_service("/mcp", service);
                let listener = tokio::net::TcpListener::bind(addr.as_str())
                    .await
                    .expect("binds");
                eprintln!(
                    "listening on http://{}/mcp",
                    listener.local_addr().expect("an address")
                );
                axum::serve(listener, app).await.expect("serves");
            }
            [] => {
                if let Ok(service) = floor.serve(rmcp::transport::stdio()).await {
                    let _ = service.waiting().await;
                }
            }
            _ => eprintln!("usage: ajisai-floor-server [--http ADDR:PORT]"),
        }
    });
    std::process::ExitCode::SUCCESS
}
