//! The thin rmcp adapter: [`Handler`], the service's [`AjisaiServer`] as rmcp's
//! `ServerHandler` (initialize, MCP-10; docs/mcp/index.md; `server/discover`, tools,
//! resources), and the one request the protocol answers before rmcp sees it (MCP-19's
//! non-object `arguments`; docs/mcp/host-errors.md). Every tool call rmcp hands over goes
//! to the service's one entry point; the service's tool and resource descriptions and its
//! answers become rmcp's types here, so the service knows no wire format.

use crate::mcp::protocol::framing::DirectCall;
use crate::mcp::protocol::revision;
use crate::mcp::protocol::tool_result::{self, WireAnswer};
use ajisai_service::resources::{self, ReadError};
use ajisai_service::result::ToolAnswer;
use ajisai_service::tools::ToolDescription;
use ajisai_service::validate;
use ajisai_service::AjisaiServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ResourcesCapability, ServerCapabilities, ServerConfig,
    Tool, ToolAnnotations, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The service as rmcp's `ServerHandler`: cheap to clone, every clone serves the same
/// server.
#[derive(Clone)]
pub struct Handler {
    server: AjisaiServer,
    tools: Arc<[Tool]>,
}

impl Handler {
    /// The handler of `server`.
    pub fn new(server: AjisaiServer) -> Handler {
        let tools = server.tool_list().iter().map(tool).collect();
        Handler { server, tools }
    }

    /// The server it hands calls to.
    pub fn server(&self) -> &AjisaiServer {
        &self.server
    }
}

/// A tool as rmcp lists it: every Ajisai tool only computes, so each is read-only,
/// idempotent, not destructive and closed-world.
fn tool(description: &ToolDescription) -> Tool {
    let annotations = ToolAnnotations::with_title(description.title)
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    Tool::new(
        description.name,
        description.description.clone(),
        Arc::clone(&description.input_schema),
    )
    .with_title(description.title)
    .with_raw_output_schema(Arc::clone(&description.output_schema))
    .with_annotations(annotations)
}

/// `resources/list`.
pub fn resource_list() -> Vec<Resource> {
    resources::LISTED
        .iter()
        .map(|r| {
            Resource::new(r.uri, r.name)
                .with_title(r.title)
                .with_description(r.description)
                .with_mime_type(r.mime)
        })
        .collect()
}

/// `resources/templates/list`.
pub fn resource_templates() -> Vec<ResourceTemplate> {
    let t = &resources::WORDS;
    vec![ResourceTemplate::new(t.uri, t.name)
        .with_title(t.title)
        .with_description(t.description)
        .with_mime_type(t.mime)]
}

/// A failed `resources/read` as its JSON-RPC error (MCP-65; docs/mcp/resources.md).
pub fn read_error(error: ReadError) -> ErrorData {
    match error {
        ReadError::InvalidName(reason) => ErrorData::invalid_params(
            format!("invalidRequest: {reason}"),
            Some(json!({ "code": "invalidRequest" })),
        ),
        ReadError::NotFound(shown) => ErrorData::resource_not_found(
            format!("Resource not found: {shown}"),
            Some(json!({ "uri": shown })),
        ),
    }
}

/// One `tools/call` answered as rmcp's type (in the frame of the revisions before
/// 2026-07-28). `None`: it was cancelled.
pub async fn call(
    server: &AjisaiServer,
    name: &str,
    arguments: Option<&Value>,
    ct: CancellationToken,
) -> Option<CallToolResult> {
    server
        .call_with_delivery(name, arguments, ct, Default::default())
        .await
        .map(|a| a.to_call_tool_result())
}

/// A tool call its transport answers itself ([`DirectCall`]), fitted in the frame of the
/// revision it is answered in; with [`direct_response`] that writes it. `None`: it was
/// cancelled.
pub async fn call_direct(server: &AjisaiServer, call: &DirectCall) -> Option<ToolAnswer> {
    server
        .call_with_delivery(
            &call.name,
            call.arguments.as_ref(),
            call.cancel.clone(),
            revision::delivery(call.revision.as_deref()),
        )
        .await
}

/// The JSON-RPC response to the direct call `call`, answered `answer`, byte for byte as
/// rmcp writes it in the call's revision.
pub fn direct_response(answer: &ToolAnswer, call: &DirectCall) -> Vec<u8> {
    answer.response(&call.id_json, revision::delivery(call.revision.as_deref()))
}

impl Handler {
    /// The initialize answer (MCP-10).
    pub fn config() -> ServerConfig {
        let mut tools_cap = ToolsCapability::default();
        tools_cap.list_changed = Some(false);
        let mut resources_cap = ResourcesCapability::default();
        resources_cap.subscribe = Some(false);
        resources_cap.list_changed = Some(false);
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(tools_cap);
        capabilities.resources = Some(resources_cap);
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("ajisai", crate::mcp::SERVER_VERSION))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_instructions(ajisai_service::INSTRUCTIONS)
    }
}

/// Answer a `tools/call` before rmcp parses it, given its raw `params`: a call whose
/// `arguments` are present but not an object gets its MCP-19 tool result here (rmcp's
/// typed parameters would reject it as a protocol error). Everything else is `None`.
pub fn precheck(server: &AjisaiServer, raw: &Value) -> Option<Value> {
    let started = std::time::Instant::now();
    let params = raw.as_object()?;
    let name = params.get("name")?.as_str()?;
    let arguments = params.get("arguments")?;
    if arguments.is_object() {
        return None;
    }
    let exec = server.executor();
    let error = validate::validate(
        name,
        Some(arguments),
        exec.options.source_bytes(),
        server.phrasebook(),
    )
    .err()?;
    let answer = exec.host_error(&ajisai_host::quote::echo(name), &error);
    ajisai_service::tool_metrics::tool_call(name, answer.outcome(), started.elapsed());
    let wire = tool_result::wire_value(&answer.to_call_tool_result());
    // A self-contained request names its revision in `_meta`; its results carry
    // `resultType`, first, as rmcp writes them.
    let revision = revision::named_in_meta(Some(raw));
    match wire {
        Value::Object(members) if revision::delivery(revision).frame_bytes > 0 => {
            let mut framed = serde_json::Map::new();
            framed.insert("resultType".into(), Value::from("complete"));
            framed.extend(members);
            Some(Value::Object(framed))
        }
        other => Some(other),
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        Handler::config()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        // Every revision rmcp knows: 2024-11-05 … 2025-11-25 with `initialize`, and
        // 2026-07-28 with `server/discover` and per-request `_meta`.
        Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(Value::Object);
        // Over HTTP, the request's log line names the outcome.
        let cell = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<crate::mcp::logging::OutcomeCell>())
            .cloned();
        let revision = context.protocol_version();
        let delivery = revision::delivery(revision.as_ref().map(|v| v.as_str()));
        match self
            .server
            .call_with_delivery(&request.name, arguments.as_ref(), context.ct, delivery)
            .await
        {
            Some(answer) => {
                if let Some(cell) = cell {
                    cell.set(answer.outcome(), answer.retry_after_ms());
                }
                Ok(answer.to_call_tool_result().into())
            }
            // Cancelled: rmcp drops whatever is answered for a cancelled request.
            None => Err(ErrorData::internal_error("request cancelled", None)),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resource_list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (mime, text) = self.server.read(&request.uri).map_err(read_error)?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type(mime)
        ])
        .into())
    }
}
