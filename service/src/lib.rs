//! `ajisai-service`: what the MCP server does, knowing no transport and no wire format
//! (its hosts — the MCP server's protocol layer, the Playground — give its answers their
//! wire's shape): one entry point per request kind —
//! [`AjisaiServer::call_with_delivery`] for every tool call, [`AjisaiServer::read`] for every resource
//! — over the tools (one file each in [`tools`]), argument validation ([`validate`]), the
//! concurrency gate ([`gate`]), execution under the deadline and the memory account and
//! delivery in the revision's frame ([`exec`], [`result`]), the limits per transport
//! ([`config`]), resources, what it counts ([`metrics`], [`tool_metrics`]) and where
//! evaluations run ([`isolation`]). `tools/call` takes its arguments as a raw JSON
//! object and validates them itself (MCP-19; docs/mcp/host-errors.md).

pub mod config;
pub mod exec;
pub mod gate;
pub mod isolation;
pub mod metrics;
pub mod resources;
pub mod result;
pub mod tool_metrics;
pub mod tools;
pub mod validate;

use ajisai_host::content::{self, Content};
use ajisai_host::hosterror::HostError;
use ajisai_host::phrasebook::ServedPhrasebook;
use ajisai_host::provenance::Provenance;
use config::ServerOptions;
use exec::Executor;
use result::Delivery;
use result::ToolAnswer;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tools::ToolDescription;
use validate::{Call, ToolKind};

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
    phrasebook: ServedPhrasebook,
    tools: Vec<ToolDescription>,
    limits: String,
}

impl AjisaiServer {
    /// A server enforcing `options` with the embedded phrasebook, on the process's
    /// numeric backend. The words and backends must be linked (`ajisai_host::backend::link`)
    /// and the backend selected.
    pub fn new(options: ServerOptions) -> AjisaiServer {
        // The embedded phrasebook is verified by the build's tests and again at startup
        // (serve mode loads it before building a server), so it loads here.
        let phrasebook = ServedPhrasebook::embedded().unwrap_or_else(|fault| {
            tracing::error!("{}", fault.diagnostic());
            ServedPhrasebook::empty()
        });
        AjisaiServer::with_phrasebook(options, phrasebook)
    }

    /// A server enforcing `options` that serves `phrasebook` (the effective one of
    /// MCP-80 (docs/phrasebook.md): embedded or the `AJISAI_PHRASEBOOK` file, loaded and verified by the caller).
    pub fn with_phrasebook(options: ServerOptions, phrasebook: ServedPhrasebook) -> AjisaiServer {
        AjisaiServer::build(options, phrasebook)
    }

    /// A server enforcing `options` (another profile, on slots of its own) that serves
    /// this server's phrasebook and metrics (the Playground served beside `/mcp`).
    pub fn beside(&self, options: ServerOptions) -> AjisaiServer {
        AjisaiServer::build(options, self.inner.phrasebook.clone())
    }

    fn build(options: ServerOptions, phrasebook: ServedPhrasebook) -> AjisaiServer {
        let content = content::content();
        let selected = ajisai_core::numerics::process();
        let provenance = Provenance::new(
            phrasebook.asset_digest(),
            options.profile.name,
            &selected.provenance(),
        );
        let output_schema: Arc<Map<String, Value>> =
            Arc::new(match serde_json::from_str::<Value>(content.schema.text) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
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

    /// The tools, in `tools/list` order.
    pub fn tool_list(&self) -> &[ToolDescription] {
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
    pub fn phrasebook(&self) -> &ServedPhrasebook {
        &self.inner.phrasebook
    }

    /// One `tools/call`, the whole path — validation, admission, execution, fitting —
    /// answered in `delivery`'s frame (its protocol revision). `None` means it was
    /// cancelled and gets no answer. Counted in the metrics.
    pub async fn call_with_delivery(
        &self,
        name: &str,
        arguments: Option<&Value>,
        ct: CancellationToken,
        delivery: Delivery,
    ) -> Option<ToolAnswer> {
        let started = std::time::Instant::now();
        let answer = self.call_uncounted(name, arguments, ct, delivery).await;
        if let Some(a) = &answer {
            crate::tool_metrics::tool_call(name, a.outcome(), started.elapsed());
        }
        answer
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
            Err(e) => return Some(exec.host_error(&ajisai_host::quote::echo(name), &e)),
        };
        match call {
            Call::Immediate { tool, arguments } => Some((tool.answer)(self, &arguments, delivery)),
            // The requested Words and their dependencies become the engine's prelude.
            Call::Source {
                tool,
                source,
                words,
            } => exec.run(tool, source, words, ct, delivery).await,
        }
    }

    /// `word_contract` for a validated name (also the text of `ajisai://words/{name}`).
    pub fn word_contract(&self, written: &str) -> ToolAnswer {
        tools::word_contract::contract(self, written, Delivery::default())
    }

    /// The embedded content this server serves.
    pub fn content(&self) -> &'static Content {
        self.inner.content
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
            Ok(Call::Immediate { tool, arguments }) => {
                (tool.answer)(self, &arguments, Delivery::default())
            }
            Ok(Call::Source { .. }) => exec.host_error(
                "word_contract",
                &HostError::backend_failure("word_contract validated as a source tool"),
            ),
            Err(e) => exec.host_error("word_contract", &e),
        };
        answer.envelope().to_owned()
    }

    /// Read a resource: `(mime type, text)`, or why not (MCP-65; docs/mcp/resources.md).
    pub fn read(&self, uri: &str) -> Result<(&'static str, String), resources::ReadError> {
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
                    let name = resources::decode_name(encoded)
                        .map_err(|reason| resources::ReadError::InvalidName(reason.to_string()))?;
                    return Ok(("application/json", self.word_contract_text(&name)));
                }
                return Err(resources::ReadError::NotFound(ajisai_host::quote::uri(uri)));
            }
        };
        let mime = resources::LISTED
            .iter()
            .find(|r| r.uri == uri)
            .map(|r| r.mime)
            .unwrap_or("application/json");
        Ok((mime, text))
    }

    /// Run a source tool on the current thread, outside the gate and without a deadline
    /// (`--doctor` uses it to compare backends under `with_backend`).
    pub fn execute_now(&self, tool: ToolKind, source: &str) -> Result<ToolAnswer, HostError> {
        self.execute_now_with(tool, source, &[])
    }

    /// [`AjisaiServer::execute_now`] with phrasebook `words` requested (validated as
    /// `words` is, MCP-19 step 7).
    pub fn execute_now_with(
        &self,
        tool: ToolKind,
        source: &str,
        words: &[String],
    ) -> Result<ToolAnswer, HostError> {
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
            Ok(answer) => answer,
            Err(payload) => Err(HostError::backend_failure(crate::exec::panic_text(
                payload.as_ref(),
            ))),
        }
    }
}
