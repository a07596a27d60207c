//! Host errors (MCP-42, MCP-43; docs/mcp/host-errors.md, docs/mcp/outcomes.md): failures of the server rather than of the program.
//!
//! A host error answers with `status: hostError` and `isError: true`. Its `message` is
//! written for a model and never carries host detail (MCP-44); the operator-facing
//! detail goes to stderr as one `[ajisai-mcp] <context> code=<code> detail=<…>` line.

use super::provenance::Provenance;
use ajisai_core::envelope::SCHEMA_VERSION;
use ajisai_core::json::{with_members, HostFields};

/// The twelve stable host-error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "camelCase")]
pub enum HostErrorCode {
    /// Malformed arguments or a bad `words` entry.
    InvalidRequest,
    /// No tool of that name.
    UnknownTool,
    /// `source` over the `sourceBytes` limit.
    SourceTooLarge,
    /// The selected numeric backend cannot serve (poisoned plugin).
    BackendUnavailable,
    /// No slot within the queue wait.
    CapacityExhausted,
    /// The wall-time deadline passed.
    Timeout,
    /// No further elision makes the result fit `responseBytes`.
    ResponseTooLarge,
    /// The execution needed more memory than `memoryBytes`.
    MemoryExhausted,
    /// The engine produced data that breaks the envelope's invariants.
    MalformedBackendResponse,
    /// Any other engine fault, including a caught panic.
    BackendFailure,
    /// An embedded asset cannot be served.
    RegistryUnavailable,
    /// The worker process running the call had to be stopped, or died, and was replaced
    /// (process isolation): the message says what happened.
    WorkerReplaced,
}

impl HostErrorCode {
    /// Every code, in the order MCP-43 lists them.
    pub const ALL: [HostErrorCode; 12] = [
        HostErrorCode::InvalidRequest,
        HostErrorCode::UnknownTool,
        HostErrorCode::SourceTooLarge,
        HostErrorCode::BackendUnavailable,
        HostErrorCode::CapacityExhausted,
        HostErrorCode::Timeout,
        HostErrorCode::ResponseTooLarge,
        HostErrorCode::MemoryExhausted,
        HostErrorCode::MalformedBackendResponse,
        HostErrorCode::BackendFailure,
        HostErrorCode::RegistryUnavailable,
        HostErrorCode::WorkerReplaced,
    ];

    /// The stable identifier.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// Whether retrying the same call can succeed.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            HostErrorCode::CapacityExhausted | HostErrorCode::Timeout
        )
    }

    /// The declared limit the failure is about, if any.
    pub fn limit(self) -> Option<&'static str> {
        match self {
            HostErrorCode::SourceTooLarge => Some("sourceBytes"),
            HostErrorCode::CapacityExhausted => Some("concurrentExecutions"),
            HostErrorCode::Timeout => Some("wallTimeMs"),
            HostErrorCode::ResponseTooLarge => Some("responseBytes"),
            HostErrorCode::MemoryExhausted => Some("memoryBytes"),
            _ => None,
        }
    }
}

/// What a call lost when the worker process running it (process isolation) had to be
/// stopped, or died.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerLoss {
    /// It did not stop within the grace after its deadline.
    Deadline,
    /// It went past its address-space limit.
    Memory,
    /// It went past its CPU-time limit.
    CpuTime,
    /// It died otherwise: how, for the log.
    Crashed(String),
}

impl WorkerLoss {
    /// The label of the worker metrics and log lines.
    pub fn label(&self) -> &'static str {
        match self {
            WorkerLoss::Deadline => "deadline",
            WorkerLoss::Memory => "memory",
            WorkerLoss::CpuTime => "cpuTime",
            WorkerLoss::Crashed(_) => "crashed",
        }
    }
}

/// The end of `memoryExhausted`'s message, unless a recursion filled the memory.
const MEMORY_ADVICE: &str = "; build smaller values or keep fewer of them.";

/// One host failure: the model-facing message and the operator-facing detail. As an
/// error its text is the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostError {
    /// The code.
    pub code: HostErrorCode,
    /// One line for the caller; no paths, environment names or internals.
    pub message: String,
    /// Detail for the operator's log (stderr), if any beyond the message.
    pub detail: Option<String>,
    /// `retryAfterMs` (only on `capacityExhausted`).
    pub retry_after_ms: Option<u64>,
    /// The declared limit the failure is about: the code's own ([`HostErrorCode::limit`]),
    /// or, for `workerReplaced`, the one the worker went past.
    pub limit: Option<&'static str>,
    /// How deep in User Word calls the run was when the host stopped it, when deep enough
    /// to name (its message says so); a later answer for the same run keeps it.
    pub deep: Option<ajisai_core::outcome::DeepRecursion>,
}

/// A host error's `error` object (MCP-42), in its key order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorObject<'a> {
    code: &'static str,
    message: &'a str,
    retryable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_ms: Option<u64>,
}

impl HostError {
    /// A host error with a message and no detail.
    pub fn new(code: HostErrorCode, message: impl Into<String>) -> HostError {
        HostError {
            code,
            message: message.into(),
            detail: None,
            retry_after_ms: None,
            limit: code.limit(),
            deep: None,
        }
    }

    /// The same error for a run stopped `deep` in User Word calls: the message says how
    /// deep and gives the hint for a recursion that never returns.
    pub fn in_recursion(mut self, deep: Option<&ajisai_core::outcome::DeepRecursion>) -> HostError {
        if let Some(deep) = deep {
            // Values are not what filled the memory: the advice about them would mislead.
            if let Some(stem) = self.message.strip_suffix(MEMORY_ADVICE) {
                self.message = format!("{stem}.");
            }
            ajisai_core::suggest::explain_deep_recursion(&mut self.message, deep);
            self.deep = Some(deep.clone());
        }
        self
    }

    /// `invalidRequest` with `message`.
    pub fn invalid(message: impl Into<String>) -> HostError {
        HostError::new(HostErrorCode::InvalidRequest, message)
    }

    /// Attach operator-facing detail.
    pub fn with_detail(mut self, detail: impl Into<String>) -> HostError {
        self.detail = Some(detail.into());
        self
    }

    /// `sourceTooLarge` for a limit of `limit` bytes.
    pub fn source_too_large(limit: u64) -> HostError {
        HostError::new(
            HostErrorCode::SourceTooLarge,
            format!(
                "Source exceeds the {limit}-byte limit (counted in UTF-8 bytes, not characters)."
            ),
        )
    }

    /// `capacityExhausted` after `slots` slots stayed busy for `wait_ms`.
    pub fn capacity_exhausted(slots: u64, wait_ms: u64) -> HostError {
        let mut e = HostError::new(
            HostErrorCode::CapacityExhausted,
            format!("All {slots} execution slots stayed busy for {wait_ms} ms; retry shortly."),
        );
        e.retry_after_ms = Some(super::RETRY_AFTER_MS);
        e
    }

    /// `timeout` for a deadline of `ms`.
    pub fn timeout(ms: u64) -> HostError {
        HostError::new(
            HostErrorCode::Timeout,
            format!("Execution exceeded the {ms} ms wall-time limit."),
        )
    }

    /// `responseTooLarge` for a limit of `bytes`.
    pub fn response_too_large(bytes: u64) -> HostError {
        HostError::new(
            HostErrorCode::ResponseTooLarge,
            format!(
                "The result does not fit the {bytes}-byte response limit even with the stack elided; print or keep less."
            ),
        )
    }

    /// `memoryExhausted` for a ceiling of `bytes` (not retryable: the same program needs
    /// the same memory).
    pub fn memory_exhausted(bytes: u64) -> HostError {
        HostError::new(
            HostErrorCode::MemoryExhausted,
            format!(
                "Execution needed more than the {bytes}-byte memory limit (memoryBytes){MEMORY_ADVICE}"
            ),
        )
    }

    /// `backendFailure` for an internal fault described by `detail` (logged, not sent).
    pub fn backend_failure(detail: impl Into<String>) -> HostError {
        HostError::new(
            HostErrorCode::BackendFailure,
            "The engine failed on this call (an internal fault, reported to the server's log); the same call will fail again.",
        )
        .with_detail(detail)
    }

    /// `malformedBackendResponse` with a caller-facing reason and operator detail.
    pub fn malformed(message: impl Into<String>, detail: impl Into<String>) -> HostError {
        HostError::new(HostErrorCode::MalformedBackendResponse, message).with_detail(detail)
    }

    /// `workerReplaced`: the worker process running the call went past its deadline
    /// (`wall_ms`) plus the grace, its address space (sized from `memory_bytes`) or its
    /// CPU time, or died; it was killed or collected and replaced.
    pub fn worker_replaced(loss: &WorkerLoss, wall_ms: u64, memory_bytes: u64) -> HostError {
        use WorkerLoss as Loss;
        let (message, limit) = match loss {
            Loss::Deadline => (
                format!("Execution did not stop at the {wall_ms} ms wall-time limit, so its worker process was stopped and replaced; the same program will run as long again."),
                Some("wallTimeMs"),
            ),
            Loss::Memory => (
                format!("Execution went past its worker's memory limit (the {memory_bytes}-byte memoryBytes plus a margin), so its worker process was stopped and replaced; build smaller values or keep fewer of them."),
                Some("memoryBytes"),
            ),
            Loss::CpuTime => (
                format!("Execution used more CPU time than its {wall_ms} ms wall-time limit allows, so its worker process was stopped and replaced."),
                Some("wallTimeMs"),
            ),
            Loss::Crashed(_) => (
                "The worker process running this call crashed (an internal fault, reported to the server's log) and was replaced; the same call will likely fail again.".to_string(),
                None,
            ),
        };
        let mut e = HostError::new(HostErrorCode::WorkerReplaced, message);
        e.limit = limit;
        if let Loss::Crashed(how) = loss {
            e.detail = Some(format!("worker {how}"));
        }
        e
    }

    /// `backendUnavailable`: the backend was poisoned by an earlier fault.
    pub fn backend_unavailable() -> HostError {
        HostError::new(
            HostErrorCode::BackendUnavailable,
            "The numeric backend of this server failed earlier and no longer runs programs; restart the server. Word lookups and resources still work.",
        )
    }

    /// The envelope (MCP-42): `{schemaVersion, status, error, mcp}`, compact.
    pub fn envelope(&self, provenance: &Provenance) -> String {
        self.envelope_with(provenance.host_fields())
    }

    /// The envelope with `host` writing the host's trailing fields (the server's `mcp`,
    /// the CLI's `limitProfile` and `backend`).
    pub fn envelope_with(&self, host: &HostFields) -> String {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Envelope<'a> {
            schema_version: u64,
            status: &'static str,
            error: ErrorObject<'a>,
        }
        let message = ajisai_core::envelope::message_line(&self.message);
        let envelope = Envelope {
            schema_version: SCHEMA_VERSION,
            status: "hostError",
            error: self.error_object(&message),
        };
        with_members(
            serde_json::to_string(&envelope).expect("a flat envelope serializes"),
            host,
        )
    }

    /// The envelope's flat `error` object (MCP-42) with the one-line `message`.
    fn error_object<'a>(&self, message: &'a str) -> ErrorObject<'a> {
        ErrorObject {
            code: self.code.id(),
            message,
            retryable: self.code.retryable(),
            limit: self.limit,
            retry_after_ms: self
                .retry_after_ms
                .filter(|_| self.code == HostErrorCode::CapacityExhausted),
        }
    }

    /// Write the operator's stderr line for this failure in `context` (a tool name).
    pub fn log(&self, context: &str) {
        let detail = self.detail.as_deref().unwrap_or(&self.message);
        tracing::warn!(
            "{context} code={} detail={}",
            self.code.id(),
            ajisai_core::envelope::one_line(detail)
        );
    }
}

/// The text of a panic payload: a message, or a numeric plugin's fault report.
pub fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(fault) = ajisai_numerics_gmp::BackendFault::from_panic(payload) {
        fault.to_string()
    } else {
        "a panic with a non-text payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ajisai_core::numerics::BackendProvenance;

    /// The envelope's `error` object carries its fields in MCP-42's order, with the
    /// message as one line (core's `serde_strings_escape_as_the_writer_does` pins
    /// serde's escaping), for messages with quotes, backslashes, control characters,
    /// DEL, U+2028 and non-ASCII text.
    #[test]
    fn error_objects_carry_their_fields_in_order() {
        for message in [
            "plain",
            "quote \" and backslash \\ and slash /",
            "tab\there, bell \u{7}, unit \u{1f}, del \u{7f}",
            "line\u{2028}separator, é, 漢字, 🙂\nsecond line",
        ] {
            for code in HostErrorCode::ALL {
                let mut e = HostError::new(code, message);
                e.retry_after_ms = Some(250);
                let json = e.envelope_with(&HostFields::NONE);
                let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
                assert_eq!(
                    serde_json::to_string(&v).unwrap(),
                    json,
                    "compact, in order"
                );
                let error = v["error"].as_object().expect("an error object");
                let mut keys = vec!["code", "message", "retryable"];
                if code.limit().is_some() {
                    keys.push("limit");
                }
                if code == HostErrorCode::CapacityExhausted {
                    keys.push("retryAfterMs");
                }
                assert_eq!(error.keys().collect::<Vec<_>>(), keys, "{json}");
                assert_eq!(error["code"], code.id());
                assert_eq!(
                    error["message"],
                    ajisai_core::envelope::message_line(message).as_str()
                );
                assert_eq!(error["retryable"], code.retryable());
            }
        }
    }

    fn prov() -> Provenance {
        Provenance::new(
            "ab",
            "mcp-local-stdio",
            &BackendProvenance {
                kind: "pure",
                library: "num-bigint 0.4".into(),
                origin: "builtin",
            },
        )
    }

    #[test]
    fn messages_follow_the_patterns() {
        assert_eq!(
            HostError::source_too_large(65_536).message,
            "Source exceeds the 65536-byte limit (counted in UTF-8 bytes, not characters)."
        );
        assert_eq!(
            HostError::capacity_exhausted(4, 1000).message,
            "All 4 execution slots stayed busy for 1000 ms; retry shortly."
        );
        assert_eq!(
            HostError::timeout(5000).message,
            "Execution exceeded the 5000 ms wall-time limit."
        );
        assert_eq!(
            HostError::response_too_large(1_048_576).message,
            "The result does not fit the 1048576-byte response limit even with the stack elided; print or keep less."
        );
    }

    #[test]
    fn messages_carry_no_host_detail() {
        let all = [
            HostError::invalid("Unknown argument `x` for compute; accepted: source, words."),
            HostError::source_too_large(65_536),
            HostError::capacity_exhausted(4, 1000),
            HostError::timeout(5000),
            HostError::response_too_large(1_048_576),
            HostError::memory_exhausted(67_108_864),
            HostError::backend_failure("panic: at /root/x.rs:3 in libfoo.so"),
            HostError::backend_unavailable(),
            HostError::malformed(
                "The engine produced a result that is not a valid envelope.",
                "AJISAI_X /tmp/a.dll",
            ),
            HostError::worker_replaced(&WorkerLoss::Deadline, 5000, 67_108_864),
            HostError::worker_replaced(&WorkerLoss::Memory, 5000, 67_108_864),
            HostError::worker_replaced(&WorkerLoss::CpuTime, 5000, 67_108_864),
            HostError::worker_replaced(
                &WorkerLoss::Crashed("killed by signal 6 at /tmp/x.so".into()),
                5000,
                67_108_864,
            ),
        ];
        let mut codes: Vec<HostErrorCode> = all.iter().map(|e| e.code).collect();
        codes.push(HostErrorCode::UnknownTool);
        codes.push(HostErrorCode::RegistryUnavailable);
        codes.sort_by_key(|c| c.id());
        codes.dedup();
        assert_eq!(codes.len(), HostErrorCode::ALL.len());
        for e in &all {
            for bad in [
                "AJISAI_", "panicked", ".rs:", ".so", ".dylib", ".dll", "/root", "/tmp",
            ] {
                assert!(!e.message.contains(bad), "{bad} in {}", e.message);
            }
        }
    }

    /// A replaced worker's error names the limit it went past, when it went past one.
    #[test]
    fn worker_replaced_names_the_limit_it_went_past() {
        let limit = |loss: WorkerLoss| HostError::worker_replaced(&loss, 5000, 1 << 26).limit;
        assert_eq!(limit(WorkerLoss::Deadline), Some("wallTimeMs"));
        assert_eq!(limit(WorkerLoss::CpuTime), Some("wallTimeMs"));
        assert_eq!(limit(WorkerLoss::Memory), Some("memoryBytes"));
        assert_eq!(limit(WorkerLoss::Crashed("x".into())), None);
        let e = HostError::worker_replaced(&WorkerLoss::Memory, 5000, 1 << 26);
        let json = e.envelope_with(&HostFields::NONE);
        assert!(
            json.contains("\"code\":\"workerReplaced\"")
                && json.contains("\"retryable\":false,\"limit\":\"memoryBytes\"}"),
            "{json}"
        );
    }

    #[test]
    fn envelope_shapes() {
        let e = HostError::capacity_exhausted(4, 1000).envelope(&prov());
        let expected = format!(
            "{{\"schemaVersion\":{},\"status\":\"hostError\",\"error\":{{\"code\":\"capacityExhausted\",\"message\":\"All 4 execution slots stayed busy for 1000 ms; retry shortly.\",\"retryable\":true,\"limit\":\"concurrentExecutions\",\"retryAfterMs\":1000}},\"mcp\":{{\"serverVersion\":\"{}\",\"engineVersion\":\"{}\",\"assetDigest\":\"ab\",\"limitProfile\":\"mcp-local-stdio\",\"backend\":{{\"kind\":\"pure\",\"library\":\"num-bigint 0.4\",\"origin\":\"builtin\"}}}}}}",
            SCHEMA_VERSION,
            crate::SERVER_VERSION,
            ajisai_core::ENGINE_VERSION
        );
        assert_eq!(e, expected);
        let e = HostError::invalid("x").envelope(&prov());
        assert!(e.contains(
            "\"error\":{\"code\":\"invalidRequest\",\"message\":\"x\",\"retryable\":false},\"mcp\""
        ));
    }
}
