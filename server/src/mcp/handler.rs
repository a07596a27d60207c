//! The rmcp `ServerHandler`: initialize, tools, resources.
//!
//! `tools/call` takes its arguments as a raw JSON object and validates them itself
//! (MCP-19; docs/mcp/host-errors.md); `get_tool` stays `None`, so rmcp validates nothing and never turns a bad
//! argument into a protocol error.

use super::config::ServerOptions;
use super::exec::{Delivery, Executor};
use super::resources;
use super::result::{self, ToolAnswer};
use super::tools;
use super::validate::{self, Call, ToolKind};
use crate::host::content::{self, Content};
use crate::host::hosterror::HostError;
use crate::host::phrasebook::Phrasebook;
use crate::host::provenance::Provenance;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ResourcesCapability, ServerCapabilities, ServerConfig, Tool, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The `instructions` sent at initialize (MCP-10; docs/mcp/index.md).
pub const INSTRUCTIONS: &str = "Read ajisai://guide/quickstart first. Ajisai programs are postfix (operands, then the Word: `1 2 ADD`) over exact numbers: rationals and square roots, never floats. Look Word names up with word_contract or ajisai://vocabulary rather than guessing them.";

/// The MCP server: cheap to clone, every clone serves the same state.
#[derive(Clone)]
pub struct AjisaiServer {
    inner: Arc<Inner>,
}

struct Inner {
    exec: Arc<Executor>,
    content: &'static Content,
    phrasebook: Phrasebook,
    tools: Vec<Tool>,
    limits: String,
}

impl AjisaiServer {
    /// A server enforcing `options` with the embedded phrasebook, on the process's
    /// numeric backend. The words and backends must be linked (`crate::host::backend::link`)
    /// and the backend selected.
    pub fn new(options: ServerOptions) -> AjisaiServer {
        // The embedded phrasebook is verified by the build's tests and again at startup
        // (serve mode loads it before building a server), so it loads here.
        let phrasebook = Phrasebook::embedded().unwrap_or_else(|fault| {
            tracing::error!("{}", fault.diagnostic());
            Phrasebook::empty()
        });
        AjisaiServer::with_phrasebook(options, phrasebook)
    }

    /// A server enforcing `options` that serves `phrasebook` (the effective one of
    /// MCP-80 (docs/phrasebook.md): embedded or the `AJISAI_PHRASEBOOK` file, loaded and verified by the caller).
    pub fn with_phrasebook(options: ServerOptions, phrasebook: Phrasebook) -> AjisaiServer {
        let content = content::content();
        let selected = ajisai_core::numerics::process();
        let provenance = Provenance::new(
            phrasebook.asset_digest(),
            options.profile.name,
            &selected.provenance(),
        );
        let output_schema: Arc<JsonObject> =
            Arc::new(match serde_json::from_str::<Value>(content.schema.text) {
                Ok(Value::Object(m)) => m,
                _ => JsonObject::new(),
            });
        let tools = tools::tools(&output_schema, options.source_bytes(), &phrasebook);
        let limits = resources::limits_document(&options);
        let plugin = selected.origin == ajisai_core::numerics::BackendOrigin::Plugin;
        AjisaiServer {
            inner: Arc::new(Inner {
                exec: Arc::new(Executor::new(
                    options,
                    provenance,
                    plugin,
                    phrasebook.clone(),
                )),
                content,
                phrasebook,
                tools,
                limits,
            }),
        }
    }

    /// The executor of the source tools (benchmarks drive it directly).
    pub fn executor(&self) -> &Arc<Executor> {
        &self.inner.exec
    }

    /// The tool list.
    pub fn tool_list(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The `mcp` block this server attaches.
    pub fn provenance(&self) -> &Provenance {
        &self.inner.exec.provenance
    }

    /// The numeric backend's kind (`gmp`, `pure`), as the envelope's `backend` names it.
    pub fn provenance_backend(&self) -> String {
        ajisai_core::numerics::process()
            .provenance()
            .kind
            .to_string()
    }

    /// The phrasebook this server serves.
    pub fn phrasebook(&self) -> &Phrasebook {
        &self.inner.phrasebook
    }

    /// One `tools/call`, the whole path: validation, admission, execution, fitting.
    /// `None` means it was cancelled and gets no answer. Counted in the metrics.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<&Value>,
        ct: CancellationToken,
    ) -> Option<CallToolResult> {
        self.call_in(name, arguments, ct, Delivery::default())
            .await
            .map(|a| a.to_call_tool_result())
    }

    /// [`AjisaiServer::call`] answered in `delivery`'s frame (its protocol revision).
    pub async fn call_in(
        &self,
        name: &str,
        arguments: Option<&Value>,
        ct: CancellationToken,
        delivery: Delivery,
    ) -> Option<ToolAnswer> {
        let started = std::time::Instant::now();
        let answer = self.call_uncounted(name, arguments, ct, delivery).await;
        if let Some(a) = &answer {
            super::metrics::tool_call(name, a.outcome(), started.elapsed());
        }
        answer
    }

    /// A tool call its transport answers itself ([`super::framing::DirectCall`]), in the
    /// frame of the revisions before 2026-07-28. `None`: it was cancelled.
    pub async fn call_direct(&self, call: &super::framing::DirectCall) -> Option<ToolAnswer> {
        self.call_in(
            &call.name,
            call.arguments.as_ref(),
            call.cancel.clone(),
            Delivery::default(),
        )
        .await
    }

    async fn call_uncounted(
        &self,
        name: &str,
        arguments: Option<&Value>,
        ct: CancellationToken,
        delivery: Delivery,
    ) -> Option<ToolAnswer> {
        let exec = &self.inner.exec;
        let call = match validate::validate(
            name,
            arguments,
            exec.options.source_bytes(),
            &self.inner.phrasebook,
        ) {
            Ok(call) => call,
            Err(e) => return Some(exec.host_error(&crate::host::quote::echo(name), &e)),
        };
        match call {
            Call::Word { name } => Some(self.word_contract_in(&name, delivery)),
            // The requested Words and their dependencies become the engine's prelude.
            Call::Source {
                tool,
                source,
                words,
            } => {
                let prelude = self.inner.phrasebook.prelude(&words);
                exec.run(tool, source, prelude, ct, delivery).await
            }
        }
    }

    /// `word_contract` for a validated name (also the text of `ajisai://words/{name}`).
    pub fn word_contract(&self, written: &str) -> ToolAnswer {
        self.word_contract_in(written, Delivery::default())
    }

    /// [`AjisaiServer::word_contract`] answered in `delivery`'s frame.
    fn word_contract_in(&self, written: &str, delivery: Delivery) -> ToolAnswer {
        let exec = &self.inner.exec;
        let context = ToolKind::WORD_CONTRACT.name();
        match crate::host::lookup::word_contract(
            written,
            self.inner.content,
            &self.inner.phrasebook,
            &exec.provenance,
        ) {
            Ok(json) => match exec.fit_plain(json, delivery) {
                Ok(r) => r,
                Err(e) => exec.host_error(context, &e),
            },
            Err(e) => exec.host_error(context, &e),
        }
    }

    /// The text `word_contract` answers for a raw `word` argument, validation included.
    fn word_contract_text(&self, written: &str) -> String {
        let args = json!({ "word": written });
        let exec = &self.inner.exec;
        let answer = match validate::validate(
            ToolKind::WORD_CONTRACT.name(),
            Some(&args),
            exec.options.source_bytes(),
            &self.inner.phrasebook,
        ) {
            Ok(Call::Word { name }) => self.word_contract(&name),
            Ok(Call::Source { .. }) => exec.host_error(
                "word_contract",
                &HostError::backend_failure("word_contract validated as a source tool"),
            ),
            Err(e) => exec.host_error("word_contract", &e),
        };
        answer.envelope().to_owned()
    }

    /// Read a resource: `(mime type, text)`, or the JSON-RPC error of MCP-65 (docs/mcp/resources.md).
    pub fn read(&self, uri: &str) -> Result<(&'static str, String), ErrorData> {
        let c = self.inner.content;
        let text = match uri {
            resources::QUICKSTART => c.quickstart.text.to_string(),
            resources::VOCABULARY => c.vocabulary.text.to_string(),
            resources::CONTRACTS => c.registry.text.to_string(),
            resources::SCHEMA => c.schema.text.to_string(),
            resources::LIMITS => self.inner.limits.clone(),
            resources::PHRASEBOOK => self.inner.phrasebook.text().to_string(),
            _ => {
                if let Some(encoded) = uri.strip_prefix(resources::WORDS_PREFIX) {
                    let name = resources::decode_name(encoded).map_err(|reason| {
                        ErrorData::invalid_params(
                            format!("invalidRequest: {reason}"),
                            Some(json!({ "code": "invalidRequest" })),
                        )
                    })?;
                    return Ok(("application/json", self.word_contract_text(&name)));
                }
                let shown = crate::host::quote::uri(uri);
                return Err(ErrorData::resource_not_found(
                    format!("Resource not found: {shown}"),
                    Some(json!({ "uri": shown })),
                ));
            }
        };
        let mime = resources::LISTED
            .iter()
            .find(|r| r.uri == uri)
            .map(|r| r.mime)
            .unwrap_or("application/json");
        Ok((mime, text))
    }

    /// Answer a `tools/call` before rmcp parses it, given its raw `params`: a call whose
    /// `arguments` are present but not an object gets its MCP-19 tool result here (rmcp's
    /// typed parameters would reject it as a protocol error). Everything else is `None`.
    pub fn precheck(&self, params: &Value) -> Option<Value> {
        let started = std::time::Instant::now();
        let params = params.as_object()?;
        let name = params.get("name")?.as_str()?;
        let arguments = params.get("arguments")?;
        if arguments.is_object() {
            return None;
        }
        let exec = &self.inner.exec;
        let error = validate::validate(
            name,
            Some(arguments),
            exec.options.source_bytes(),
            &self.inner.phrasebook,
        )
        .err()?;
        let answer = exec.host_error(&crate::host::quote::echo(name), &error);
        super::metrics::tool_call(name, answer.outcome(), started.elapsed());
        let wire = result::wire_value(&answer.to_call_tool_result());
        // A 2026-07-28 request names its revision in `_meta`; its results carry
        // `resultType`, first, as rmcp writes them.
        let revision = params
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str);
        match wire {
            Value::Object(members) if Delivery::for_revision(revision).frame_bytes > 0 => {
                let mut framed = serde_json::Map::new();
                framed.insert("resultType".into(), Value::from("complete"));
                framed.extend(members);
                Some(Value::Object(framed))
            }
            other => Some(other),
        }
    }

    /// Run a source tool on the current thread, outside the gate and without a deadline
    /// (`--doctor` uses it to compare backends under `with_backend`).
    pub fn execute_now(&self, tool: ToolKind, source: &str) -> Result<CallToolResult, HostError> {
        self.execute_now_with(tool, source, &[])
    }

    /// [`AjisaiServer::execute_now`] with phrasebook `words` requested (validated as
    /// `words` is, MCP-19 step 7).
    pub fn execute_now_with(
        &self,
        tool: ToolKind,
        source: &str,
        words: &[String],
    ) -> Result<CallToolResult, HostError> {
        let Some(tool) = tool.source_tool() else {
            return Err(HostError::invalid(format!(
                "{} runs no source text",
                tool.name()
            )));
        };
        let names = self.inner.phrasebook.resolve(tool.name, words)?;
        let prelude = self.inner.phrasebook.prelude(&names);
        // Under the call's memory account, as a served call runs.
        match self.inner.exec.execute_counted(
            tool,
            source,
            &prelude,
            ajisai_core::limits::InterruptFlag::new(),
        ) {
            Ok(answer) => answer.map(|a| a.to_call_tool_result()),
            Err(payload) => Err(HostError::backend_failure(super::exec::panic_text(
                payload.as_ref(),
            ))),
        }
    }

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
            .with_server_info(Implementation::new("ajisai", super::SERVER_VERSION))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_instructions(INSTRUCTIONS)
    }
}

impl ServerHandler for AjisaiServer {
    fn get_info(&self) -> ServerConfig {
        AjisaiServer::config()
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
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
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
            .and_then(|p| p.extensions.get::<super::logging::OutcomeCell>())
            .cloned();
        let revision = context.protocol_version();
        let delivery = Delivery::for_revision(revision.as_ref().map(|v| v.as_str()));
        match self
            .call_in(&request.name, arguments.as_ref(), context.ct, delivery)
            .await
        {
            Some(answer) => {
                if let Some(cell) = cell {
                    cell.set(answer.outcome());
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
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (mime, text) = self.read(&request.uri)?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type(mime)
        ])
        .into())
    }
}
