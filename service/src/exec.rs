//! Running the three source tools: admission, the execution, the deadline,
//! cancellation, panics, and fitting the result into `responseBytes` (MCP-50..53; docs/mcp/limits.md),
//! in the envelope MCP-28..36 describe (docs/mcp/envelope.md).
//!
//! A call runs on a blocking thread, or in a worker process under process isolation
//! (`crate::isolation`), never on the async worker that received it, so a long
//! computation cannot delay `ping`, listings, resources or `word_contract`. The slot is
//! moved into the blocking task (or the worker's supervision) and released only when the
//! engine has stopped. The deadline starts when the slot is acquired; when it passes,
//! the interrupt flag is raised and the `timeout` result is sent at once, while the
//! engine winds down on its own thread.

use crate::config::ServerOptions;
use crate::gate::{Admission, Gate};
use crate::isolation::pool::{Outcome, WorkerPool};
use crate::isolation::{wire, Isolation};
use crate::result::{self, Delivery, ToolAnswer, Undeliverable};
use ajisai_core::engine::{ComputeReport, Options};
use ajisai_core::envelope::{self, Rendered};
use ajisai_core::json::HostFields;
use ajisai_core::limits::InterruptFlag;
use ajisai_core::phrasebook::Entry;
use ajisai_core::render::Fit;
use ajisai_host::bounded::Bounded;
use ajisai_host::hosterror::HostError;
use ajisai_host::memory;
use ajisai_host::phrasebook::{self, ServedPhrasebook};
use ajisai_host::provenance::Provenance;
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What runs a source tool's call on the execution thread and builds its delivered
/// result (each tool's own function; `tools.rs` lists them).
pub type Runner = fn(&Executor, &SourceCall<'_>) -> Result<ToolAnswer, HostError>;

/// A source tool as the executor knows it: its name (for host errors, logs and metrics)
/// and its runner. The executor knows no tool by name.
#[derive(Clone, Copy)]
pub struct SourceTool {
    /// The tool's name.
    pub name: &'static str,
    /// Runs one call.
    pub run: Runner,
}

/// Tools are told apart by name (one runner per name).
impl PartialEq for SourceTool {
    fn eq(&self, other: &SourceTool) -> bool {
        self.name == other.name
    }
}

impl Eq for SourceTool {}

impl std::fmt::Debug for SourceTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A source tool's call as its runner sees it, on the execution thread.
pub struct SourceCall<'a> {
    /// The program text.
    pub source: &'a str,
    /// The phrasebook Words defined before it.
    pub prelude: &'a [Entry],
    /// Profile and interrupt flag of the execution.
    pub options: &'a Options,
    /// The revision's framing of the result.
    pub delivery: Delivery,
}

/// What the engine and the host need to run a source tool, shared by every call.
pub struct Executor {
    /// The limits in force.
    pub options: ServerOptions,
    /// The `mcp` block.
    pub provenance: Provenance,
    /// Whether the numeric backend was loaded as a plugin (a fault then poisons it).
    pub plugin_backend: bool,
    /// The effective phrasebook (for the hints of unknown names).
    pub phrasebook: ServedPhrasebook,
    gate: Arc<Gate>,
    poisoned: AtomicBool,
    /// The workers of process isolation (`None`: calls run on threads).
    workers: Option<WorkerPool>,
    /// Thread isolation's evaluation threads (`None` without a runtime to start them in,
    /// or under process isolation: calls then run on the blocking pool).
    evaluators: Option<Evaluators>,
}

/// The threads evaluations run on under thread isolation: a runtime of their own, one
/// worker per slot, with the engine's native stack. Not tokio's blocking pool: its idle
/// threads sleep on a condition variable and every call woke one (a futex and a context
/// switch each way); a runtime's workers look for work a while before they park, so a
/// busy server hands calls over without a system call. One worker per slot, so a heavy
/// call never holds up a small one behind it.
struct Evaluators(Option<tokio::runtime::Runtime>);

impl Evaluators {
    fn start(slots: usize) -> Option<Evaluators> {
        tokio::runtime::Handle::try_current().ok()?;
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(slots.max(1))
            .thread_name("ajisai-eval")
            // The class worker processes run in (ajisai_host::sched): an evaluation never
            // preempts the thread that hands it over.
            .on_thread_start(|| {
                if let Err(e) = ajisai_host::sched::enter_batch_class() {
                    tracing::debug!("an evaluation thread stays in the default class: {e}");
                }
            })
            .thread_stack_size(ajisai_host::ENGINE_STACK_BYTES)
            .enable_time()
            .build()
            .map(|r| Evaluators(Some(r)))
            .ok()
    }

    fn handle(&self) -> Option<&tokio::runtime::Handle> {
        self.0.as_ref().map(tokio::runtime::Runtime::handle)
    }
}

/// A runtime cannot be dropped where blocking is not allowed (inside another runtime):
/// its threads are let go instead, each finishing the call it runs.
impl Drop for Evaluators {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// Render the compute envelope with the stack selected under `budget` bytes (MCP-53):
/// the engine keeps each slot from the top down whose cost fits what is left and
/// elides the others (MCP-36). `prelude` is the call's phrasebook prelude (MCP-35).
pub fn render_compute(
    report: &ComputeReport,
    budget: u64,
    prelude: &[Entry],
    provenance: &Provenance,
) -> Rendered {
    envelope::compute_json_within(report, budget, &host_fields(prelude, provenance))
}

/// The host's fields, last in every source-tool envelope: `prelude` when Words were
/// requested, then `mcp` (MCP-28; docs/mcp/index.md).
pub(super) fn host_fields<'a>(
    prelude: &[Entry],
    provenance: &'a Provenance,
) -> Cow<'a, HostFields> {
    if prelude.is_empty() {
        return Cow::Borrowed(provenance.host_fields());
    }
    #[derive(serde::Serialize)]
    struct WithPrelude<'a> {
        prelude: Vec<phrasebook::PreludeRecord<'a>>,
        mcp: &'a serde_json::value::RawValue,
    }
    Cow::Owned(HostFields::of(&WithPrelude {
        prelude: prelude.iter().map(phrasebook::PreludeRecord::of).collect(),
        mcp: provenance.block(),
    }))
}

impl Executor {
    /// An executor for `options`, attaching `provenance` to every result.
    pub fn new(
        options: ServerOptions,
        provenance: Provenance,
        plugin_backend: bool,
        phrasebook: ServedPhrasebook,
    ) -> Executor {
        let gate = Arc::new(Gate::new(
            options.slots() as usize,
            options.max_waiting() as usize,
        ));
        // Test hooks observe the call on the thread that runs it, so they need threads.
        let workers = match options.isolation {
            Isolation::Process if options.hooks.is_none() => {
                match WorkerPool::start(options.profile.name, options.slots() as usize) {
                    Ok(pool) => Some(pool),
                    Err(e) => {
                        tracing::error!(
                            "process isolation unavailable ({e}); evaluations run on threads"
                        );
                        None
                    }
                }
            }
            _ => None,
        };
        let evaluators = match workers {
            None => Evaluators::start(options.slots() as usize),
            Some(_) => None,
        };
        Executor {
            options,
            provenance,
            plugin_backend,
            phrasebook,
            gate,
            poisoned: AtomicBool::new(false),
            workers,
            evaluators,
        }
    }

    /// The gate this executor admits its calls through.
    pub fn gate(&self) -> &Arc<Gate> {
        &self.gate
    }

    /// Callers waiting for a slot right now.
    pub fn waiting(&self) -> usize {
        self.gate.waiting()
    }

    /// The answer of a host error (logged to stderr first).
    pub fn host_error(&self, context: &str, error: &HostError) -> ToolAnswer {
        error.log(context);
        result::host_error_answer(error, &self.provenance)
    }

    /// Run a validated source-tool call with the phrasebook Words `words` (validated)
    /// defined first. `None` means the call was cancelled and gets no answer (MCP-9;
    /// docs/mcp/transports.md). The evaluation never runs on the task's own thread (an
    /// async worker that reads requests and writes answers): it runs on a blocking thread,
    /// or in a worker process under process isolation.
    pub async fn run(
        self: &Arc<Self>,
        tool: SourceTool,
        source: String,
        words: Vec<String>,
        ct: CancellationToken,
        delivery: Delivery,
    ) -> Option<ToolAnswer> {
        let name = tool.name;
        if self.is_poisoned() || ajisai_host::backend::poisoned() {
            return Some(self.host_error(name, &HostError::backend_unavailable()));
        }
        let hooks = self.options.hooks.clone();
        let admission = {
            let queued = || {
                if let Some(h) = &hooks {
                    h.queued(&source);
                }
            };
            tokio::select! {
                biased;
                () = ct.cancelled() => return None,
                a = self.gate.admit(self.options.capacity_wait(), queued) => a,
            }
        };
        let slot = match admission {
            Admission::Immediate(s) | Admission::AfterWait(s) => s,
            Admission::Expired | Admission::QueueFull => {
                crate::metrics::capacity_exhausted();
                let e = HostError::capacity_exhausted(
                    self.options.slots(),
                    self.options.capacity_wait_ms,
                );
                return Some(self.host_error(name, &e));
            }
        };
        let deadline = tokio::time::Instant::now() + self.options.wall_time();
        if let Some(workers) = &self.workers {
            return self
                .run_in_worker(workers, slot, tool, source, words, ct, delivery, deadline)
                .await;
        }
        let prelude = self.phrasebook.prelude(&words);
        let flag = InterruptFlag::new();
        let job = {
            let this = Arc::clone(self);
            let flag = flag.clone();
            let run = move || {
                // Held until the engine has stopped, whatever the caller saw.
                let _slot = slot;
                let _in_flight = crate::metrics::InFlight::start();
                this.execute_measured(tool, &source, &prelude, flag, delivery)
                    .0
            };
            match self.evaluators.as_ref().and_then(Evaluators::handle) {
                Some(evaluators) => evaluators.spawn(async move { run() }),
                None => tokio::task::spawn_blocking(run),
            }
        };
        // Whoever awaits this call may drop it (an HTTP client that hung up): the engine
        // then stops as it would on cancellation.
        let _stop = StopOnDrop(flag.clone());
        let outcome = tokio::select! {
            biased;
            joined = job => joined,
            () = tokio::time::sleep_until(deadline) => {
                flag.raise();
                let e = HostError::timeout(self.options.wall_time_ms());
                return Some(self.host_error(name, &e));
            }
            () = ct.cancelled() => {
                flag.raise();
                tracing::debug!("{name} cancelled by the client; the engine was told to stop");
                return None;
            }
        };
        Some(match outcome {
            Ok(answer) => self.deliver(name, answer),
            Err(join) => {
                let e = self.fault(format!("the execution task failed: {join}"));
                self.host_error(name, &e)
            }
        })
    }

    /// [`Executor::run`] under process isolation: the call goes to a worker, which the
    /// pool stops at the deadline and kills past it plus the grace
    /// (`crate::isolation`).
    #[allow(clippy::too_many_arguments)]
    async fn run_in_worker(
        &self,
        workers: &WorkerPool,
        slot: crate::gate::Slot,
        tool: SourceTool,
        source: String,
        words: Vec<String>,
        ct: CancellationToken,
        delivery: Delivery,
        deadline: tokio::time::Instant,
    ) -> Option<ToolAnswer> {
        let name = tool.name;
        let request = wire::Run {
            job: 0,
            tool: name.to_string(),
            source,
            words,
            frame_bytes: delivery.frame_bytes,
            value_stack_bytes: delivery.value_stack_bytes,
        };
        let in_flight = crate::metrics::InFlight::start();
        let outcome = tokio::select! {
            biased;
            outcome = workers.run(slot, request, deadline, in_flight) => outcome,
            () = ct.cancelled() => {
                tracing::debug!("{name} cancelled by the client; its worker was told to stop");
                return None;
            }
        };
        let e = match outcome {
            Outcome::Answered(done) => {
                if done.poisoned {
                    self.poisoned.store(true, Ordering::Release);
                }
                if done.memory_exhausted {
                    crate::metrics::memory_exhausted();
                }
                return Some(match ToolAnswer::new(done.envelope, done.host_error) {
                    Ok(answer) => answer,
                    Err(u) => self.host_error(name, &undeliverable(u)),
                });
            }
            Outcome::Stopped { deadline: true } => HostError::timeout(self.options.wall_time_ms()),
            // Its caller left; nobody reads this.
            Outcome::Stopped { deadline: false } => return None,
            Outcome::Lost(loss) => HostError::worker_replaced(
                &loss,
                self.options.wall_time_ms(),
                self.options.memory_bytes(),
            ),
            Outcome::Unavailable(why) => {
                HostError::backend_failure(format!("no worker process could run the call: {why}"))
            }
        };
        Some(self.host_error(name, &e))
    }

    /// Whether a plugin backend's fault has poisoned this executor.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    /// The result of an execution's answer: a caught panic becomes its fault.
    pub fn deliver(
        &self,
        name: &str,
        answer: std::thread::Result<Result<ToolAnswer, HostError>>,
    ) -> ToolAnswer {
        match answer.unwrap_or_else(|payload| Err(self.fault_from(payload.as_ref()))) {
            Ok(result) => result,
            Err(e) => self.host_error(name, &e),
        }
    }

    /// A caught panic: a plugin's own fault report keeps its kind (malformed data is
    /// `malformedBackendResponse`, a poisoned plugin `backendUnavailable`); anything
    /// else is `backendFailure`. Either way a plugin backend is poisoned (MCP-13).
    fn fault_from(&self, payload: &(dyn std::any::Any + Send)) -> HostError {
        use ajisai_numerics_gmp::{BackendFault, FaultKind};
        match BackendFault::from_panic(payload) {
            Some(f) => {
                let error = match f.kind {
                    FaultKind::Failure => HostError::backend_failure(f.message.clone()),
                    FaultKind::Malformed => HostError::malformed(
                        "The numeric backend answered data that breaks its contract; this server no longer runs programs, restart it.",
                        f.message.clone(),
                    ),
                    FaultKind::Poisoned => HostError::backend_unavailable(),
                };
                let _ = self.fault(String::new());
                error
            }
            None => self.fault(panic_text(payload)),
        }
    }

    /// A caught engine fault: `backendFailure`, and a plugin backend is poisoned.
    fn fault(&self, detail: String) -> HostError {
        if self.plugin_backend {
            self.poisoned.store(true, Ordering::Release);
        }
        HostError::backend_failure(detail)
    }

    /// [`Executor::execute`] under its own memory account (`memoryBytes`), on the
    /// blocking thread, with panics caught: everything the call allocates — the engine's
    /// values, the rendered envelope, the delivered result — counts while it runs, and a
    /// call that crossed the ceiling answers `memoryExhausted`, whatever it stopped with.
    pub fn execute_counted(
        &self,
        tool: SourceTool,
        source: &str,
        prelude: &[Entry],
        flag: InterruptFlag,
    ) -> std::thread::Result<Result<ToolAnswer, HostError>> {
        self.execute_measured(tool, source, prelude, flag, Delivery::default())
            .0
    }

    /// [`Executor::execute_counted`], also returning what the call held (for the
    /// boundedness benchmark).
    pub fn execute_measured(
        &self,
        tool: SourceTool,
        source: &str,
        prelude: &[Entry],
        flag: InterruptFlag,
        delivery: Delivery,
    ) -> (
        std::thread::Result<Result<ToolAnswer, HostError>>,
        memory::Usage,
    ) {
        let bounded = Bounded::with_flag(self.options.memory_bytes(), flag.clone());
        let answer = catch_unwind(AssertUnwindSafe(|| {
            if let Some(h) = &self.options.hooks {
                h.before_run(source, &flag);
            }
            self.execute(tool, source, prelude, flag.clone(), delivery)
        }));
        let (usage, exhausted) = bounded.close();
        // A panic is a backend failure, whatever its unwinding allocated (a default
        // panic hook symbolizes a backtrace under the call's account).
        match exhausted {
            Some(e) if answer.is_ok() => {
                crate::metrics::memory_exhausted();
                // The run's own answer says how deep in recursion the ceiling stopped it.
                let deep = match &answer {
                    Ok(Err(stopped)) => stopped.deep.as_ref(),
                    _ => None,
                };
                (Ok(Err(e.in_recursion(deep))), usage)
            }
            _ => (answer, usage),
        }
    }

    /// Run the engine and build the delivered result, on the blocking thread. The
    /// `prelude` Words are defined before the source, free of charge and silently
    /// (MCP-79; docs/phrasebook.md); an `unknownWord` for an unrequested phrasebook Word says so (MCP-33).
    pub fn execute(
        &self,
        tool: SourceTool,
        source: &str,
        prelude: &[Entry],
        flag: InterruptFlag,
        delivery: Delivery,
    ) -> Result<ToolAnswer, HostError> {
        let options = Options {
            profile: self.options.profile.clone(),
            interrupt: Some(flag),
        };
        (tool.run)(
            self,
            &SourceCall {
                source,
                prelude,
                options: &options,
                delivery,
            },
        )
    }

    /// The most a result may measure in `delivery`'s frame.
    fn result_limit(&self, delivery: Delivery) -> u64 {
        self.options
            .response_bytes()
            .saturating_sub(delivery.frame_bytes)
    }

    /// Deliver an envelope that has no stack to elide.
    pub fn fit_plain(&self, json: String, delivery: Delivery) -> Result<ToolAnswer, HostError> {
        let limit = self.options.response_bytes();
        match ToolAnswer::new(json, false) {
            Ok(a) if a.measure() <= self.result_limit(delivery) => Ok(a),
            Ok(_) => Err(HostError::response_too_large(limit)),
            Err(u) => Err(undeliverable(u)),
        }
    }

    /// Fit a compute envelope into `responseBytes` (MCP-52): render under the stack
    /// budget, measure the whole result, and re-render with the budget halved while it
    /// does not fit and whole slots remain.
    pub fn fit_compute(
        &self,
        report: &ComputeReport,
        prelude: &[Entry],
        delivery: Delivery,
    ) -> Result<ToolAnswer, HostError> {
        let limit = self.options.response_bytes();
        let fits = self.result_limit(delivery);
        // The output lines arrive whole, twice (text mirror and structured content): when
        // they alone exceed the limit no elision can help, and nothing is rendered.
        let output_bytes = report
            .output
            .iter()
            .map(|l| l.len() as u64)
            .fold(0u64, u64::saturating_add);
        if output_bytes.saturating_mul(2) > fits {
            return Err(HostError::response_too_large(limit));
        }
        let mut budget = if report.error.is_some() {
            self.options.error_stack_bytes
        } else {
            delivery
                .value_stack_bytes
                .unwrap_or(self.options.value_stack_bytes)
        };
        let fitter = envelope::Fitter::new(report);
        let host = host_fields(prelude, &self.provenance);
        loop {
            let rendered = fitter.render(&Fit::mcp(budget), &host);
            if rendered.interrupted {
                // The host's deadline or memory ceiling stopped the rendering: the caller
                // answers what stopped it (a memory account that crossed its ceiling
                // answers `memoryExhausted` in `execute_measured`).
                return Err(HostError::timeout(self.options.wall_time_ms()));
            }
            let failure = match ToolAnswer::new(rendered.json, false) {
                Ok(a) => {
                    if a.measure() <= fits {
                        return Ok(a);
                    }
                    HostError::response_too_large(limit)
                }
                // A value nested too deep for clients also gives way to elision.
                Err(u) => undeliverable(u),
            };
            if rendered.kept_slots == 0 || budget == 0 {
                return Err(failure);
            }
            budget /= 2;
        }
    }
}

/// Raises its flag when dropped.
struct StopOnDrop(InterruptFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.raise();
    }
}

fn undeliverable(u: Undeliverable) -> HostError {
    match u {
        Undeliverable::TooDeep(depth) => HostError::malformed(
            format!(
                "The result nests deeper than {} JSON levels, more than clients can read; return a flatter value.",
                result::MAX_ENVELOPE_DEPTH
            ),
            format!("envelope depth {depth}"),
        ),
    }
}

/// The operator-facing text of a caught panic.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    format!("panic: {}", ajisai_host::hosterror::payload_text(payload))
}
