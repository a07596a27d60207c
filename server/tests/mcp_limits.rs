//! The host-gated limits on in-process servers with injected values (MCP-50..53,
//! MCP-56 hostGate; docs/mcp/limits.md): the concurrency gate (capacity, FIFO hand-off,
//! expiry), the wall-time deadline, response fitting, a panicking call, and cancellation.
//!
//! Test hooks hold chosen calls on their slot, so admission order is observed instead
//! of timed.
//!
//! This test executable counts its allocations as the binaries do, so in-process
//! servers enforce `memoryBytes` too.

use crate::mcp_support;

/// What the binaries do first: GMP allocates through the counting allocator, and the
/// engine asks before big reservations.
fn count_memory() {
    ajisai_numerics_gmp::route_allocations();
    ajisai_host::memory::install();
    ajisai_host::reaper::install();
}

use ajisai_core::limits::InterruptFlag;
use ajisai_core::Limit;
use ajisai_server::mcp::{Hooks, ServerOptions};
use mcp_support::*;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// What the probe saw, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Queued(String),
    Started(String),
    Interrupted(String),
}

/// Holds calls whose source was registered until released (or interrupted), and
/// reports queueing, starts and interrupts.
struct Probe {
    events: mpsc::UnboundedSender<Seen>,
    held: Mutex<HashSet<String>>,
    released: Condvar,
    panic_on: Option<String>,
}

impl Probe {
    fn new(panic_on: Option<&str>) -> (Arc<Probe>, mpsc::UnboundedReceiver<Seen>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Arc::new(Probe {
                events: tx,
                held: Mutex::new(HashSet::new()),
                released: Condvar::new(),
                panic_on: panic_on.map(str::to_string),
            }),
            rx,
        )
    }

    fn hold(&self, source: &str) {
        self.held.lock().expect("lock").insert(source.to_string());
    }

    fn release(&self, source: &str) {
        self.held.lock().expect("lock").remove(source);
        self.released.notify_all();
    }
}

impl Hooks for Probe {
    fn queued(&self, source: &str) {
        let _ = self.events.send(Seen::Queued(source.to_string()));
    }

    fn before_run(&self, source: &str, interrupt: &InterruptFlag) {
        let _ = self.events.send(Seen::Started(source.to_string()));
        if self.panic_on.as_deref() == Some(source) {
            panic!("injected fault for {source}");
        }
        let mut held = self.held.lock().expect("lock");
        // Bounded, so a broken test cannot hang the suite.
        for _ in 0..6_000 {
            if !held.contains(source) {
                return;
            }
            if interrupt.is_raised() {
                let _ = self.events.send(Seen::Interrupted(source.to_string()));
                return;
            }
            held = self
                .released
                .wait_timeout(held, Duration::from_millis(5))
                .expect("lock")
                .0;
        }
    }
}

async fn next(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("the probe reports within 30 s")
        .expect("the probe is alive")
}

fn spawn_compute(client: &Arc<Client>, source: &str) -> tokio::task::JoinHandle<Value> {
    let client = Arc::clone(client);
    let source = source.to_string();
    tokio::spawn(async move { compute(&client, &source).await })
}

/// `compute`, retried while the gate answers `capacityExhausted`: for calls right
/// after a slot is being given back, on a machine that may be slow to schedule threads.
async fn compute_when_free(client: &Client, source: &str) -> Value {
    for _ in 0..100 {
        let v = compute(client, source).await;
        if v["error"]["code"] != "capacityExhausted" {
            return v;
        }
    }
    panic!("the slot never came back for {source}")
}

fn options(slots: u64, wait_ms: u64) -> ServerOptions {
    let mut o = ServerOptions::production().with_limit(Limit::ConcurrentExecutions, slots);
    o.capacity_wait_ms = wait_ms;
    o
}

/// The gate (golden/limits.json `concurrentExecutions`): capacity, FIFO hand-off, expiry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capacity_fifo_handoff_and_expiry() {
    released_slots_pass_to_the_longest_waiting_caller().await;
    a_full_gate_answers_capacity_exhausted_after_the_wait().await;
}

async fn released_slots_pass_to_the_longest_waiting_caller() {
    let (probe, mut seen) = Probe::new(None);
    let client = Arc::new(in_process(options(1, 60_000).with_hooks(probe.clone())).await);
    probe.hold("11");
    let a = spawn_compute(&client, "11");
    assert_eq!(next(&mut seen).await, Seen::Started("11".into()));
    let b = spawn_compute(&client, "12");
    assert_eq!(next(&mut seen).await, Seen::Queued("12".into()));
    let c = spawn_compute(&client, "13");
    assert_eq!(next(&mut seen).await, Seen::Queued("13".into()));
    probe.release("11");
    assert_eq!(next(&mut seen).await, Seen::Started("12".into()));
    assert_eq!(next(&mut seen).await, Seen::Started("13".into()));
    for (task, display) in [(a, "11/1"), (b, "12/1"), (c, "13/1")] {
        let v = task.await.expect("joined");
        assert_eq!(v["stackDisplay"], json!([display]));
    }
}

async fn a_full_gate_answers_capacity_exhausted_after_the_wait() {
    let (probe, mut seen) = Probe::new(None);
    let client = Arc::new(in_process(options(2, 100).with_hooks(probe.clone())).await);
    probe.hold("21");
    probe.hold("22");
    let a = spawn_compute(&client, "21");
    let b = spawn_compute(&client, "22");
    let mut started = vec![next(&mut seen).await, next(&mut seen).await];
    started.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(
        started,
        [Seen::Started("21".into()), Seen::Started("22".into())],
        "two slots run two calls at once"
    );
    let v = compute(&client, "23").await;
    assert_eq!(
        v["error"],
        json!({
            "code": "capacityExhausted",
            "message": "All 2 execution slots stayed busy for 100 ms; retry shortly.",
            "retryable": true,
            "limit": "concurrentExecutions",
            "retryAfterMs": 1000
        })
    );
    assert_eq!(next(&mut seen).await, Seen::Queued("23".into()));
    // word_contract and resources take no slot.
    let w = call(&client, "word_contract", json!({ "word": "ADD" })).await;
    assert_eq!(w["status"], "ok");
    let _ = read(&client, "ajisai://limits").await;
    probe.release("21");
    probe.release("22");
    assert_eq!(a.await.expect("joined")["status"], "ok");
    assert_eq!(b.await.expect("joined")["status"], "ok");
    assert_eq!(
        compute_when_free(&client, "24").await["stackDisplay"],
        json!(["24/1"])
    );
}

/// A program that never ends by itself, in constant memory (a tail loop,
/// docs/reference/dictionary.md#tail-calls): only the interrupt flag stops it. (A plain
/// self-call, `{ F } 'F' DEF F`, nests
/// frames: with the steps unlimited its memory, not the clock, ends it.)
const FOREVER: &str = "{ { 0 > | F } { IDLE | 0 } COND } 'F' DEF 1 F";

/// The deadline (golden/limits.json `wallTimeMs`): a test-only server with a 1 ms deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wall_time_deadline_answers_timeout() {
    let o = ServerOptions::production()
        .with_limit(Limit::WallTimeMs, 1)
        .with_limit(Limit::ExecutionSteps, u64::MAX / 2);
    let client = in_process(o).await;
    let v = compute(&client, FOREVER).await;
    assert_eq!(
        v["error"],
        json!({
            "code": "timeout",
            "message": "Execution exceeded the 1 ms wall-time limit.",
            "retryable": true,
            "limit": "wallTimeMs"
        })
    );
    let (_, limits) = read(&client, "ajisai://limits").await;
    let limits: Value = serde_json::from_str(&limits).expect("JSON");
    assert_eq!(
        limits["limits"]["wallTimeMs"], 1,
        "the resource shows what is enforced"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_stops_the_engine_and_frees_the_slot() {
    let mut o = options(1, 30_000)
        .with_limit(Limit::WallTimeMs, 200)
        .with_limit(Limit::ExecutionSteps, u64::MAX / 2);
    o.capacity_wait_ms = 30_000;
    let client = in_process(o).await;
    let v = compute(&client, FOREVER).await;
    assert_eq!(v["error"]["code"], "timeout");
    // The only slot comes back once the interrupted engine has stopped.
    let v = compute(&client, "1 2 ADD").await;
    assert_eq!(v["stackDisplay"], json!(["3/1"]));
}

/// A call answered by its deadline stops using CPU and gives its slot back within 100 ms,
/// whatever it was doing (the boundedness issue: a timed-out engine used to run on for
/// ~100 s, holding its slot). With the budgets lifted, each of these would run for
/// seconds: a loop, a walk of a shared value, the visits of a higher-order Word, the sign
/// procedure of a 512-term number, text built in a loop. The one slot must come back
/// within a 100 ms queue wait. The last two nest a frame per iteration (their self-call
/// is not a tail call), so the memory ceiling is raised out of their way: at 64 MiB a fast
/// machine met it before the deadline (93,000 frames deep in a debug build).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_deadline_gives_its_slot_back_within_100_ms() {
    count_memory();
    let x512 = "1 [ 2 3 5 7 11 13 17 19 23 ] 1 { SQRT NEG 1 + * } FOLD 'X' BIND";
    let programs = [
        FOREVER.to_string(),
        "TRUE 'T' BIND 0 99990 RANGE 'V' BIND 0 999 RANGE { V { T } ALL } MAP LENGTH".to_string(),
        format!("{x512} 0 99990 RANGE {{ X }} MAP 0 <"),
        "0 99 RANGE 'V' BIND 0 3499 RANGE { V } MAP { KEEP STR 'T' BIND L } 'L' DEF L".to_string(),
        "'abc,' 'S' BIND { [ S S S S ] JOIN ',' TOKENIZE 'T' BIND L } 'L' DEF L".to_string(),
    ];
    for source in &programs {
        let lifted = u64::MAX / 2;
        let o = options(1, 100)
            .with_limit(Limit::WallTimeMs, 200)
            .with_limit(Limit::ExecutionSteps, lifted)
            .with_limit(Limit::NumericWork, lifted)
            .with_limit(Limit::CollectionWork, lifted)
            .with_limit(Limit::AlgebraicTerms, 10_000)
            .with_limit(Limit::MemoryBytes, 1 << 30);
        let client = in_process(o).await;
        let v = compute(&client, source).await;
        assert_eq!(v["error"]["code"], "timeout", "{source}: {v}");
        let v = compute(&client, "1 2 ADD").await;
        assert_eq!(v["stackDisplay"], json!(["3/1"]), "after {source}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_engine_stops_and_frees_the_slot() {
    let (probe, mut seen) = Probe::new(None);
    let o = options(1, 100)
        .with_limit(Limit::WallTimeMs, 50)
        .with_hooks(probe.clone());
    let client = in_process(o).await;
    probe.hold("31");
    // The hook ignores the interrupt only after it is released, so the engine is
    // still "running" when the timeout answer arrives.
    let v = compute(&client, "31").await;
    assert_eq!(v["error"]["code"], "timeout");
    assert_eq!(next(&mut seen).await, Seen::Started("31".into()));
    assert_eq!(next(&mut seen).await, Seen::Interrupted("31".into()));
    // The hook returned on the interrupt; the slot is free again.
    let v = compute_when_free(&client, "32").await;
    assert_eq!(v["stackDisplay"], json!(["32/1"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slot_is_held_until_the_engine_stops_after_a_timeout() {
    struct Stubborn {
        release: Mutex<bool>,
        cv: Condvar,
        started: mpsc::UnboundedSender<String>,
    }
    impl Hooks for Stubborn {
        fn before_run(&self, source: &str, _interrupt: &InterruptFlag) {
            let _ = self.started.send(source.to_string());
            if source == "41" {
                // Ignores the interrupt: an engine busy in a long operation.
                let mut go = self.release.lock().expect("lock");
                for _ in 0..6_000 {
                    if *go {
                        return;
                    }
                    go = self
                        .cv
                        .wait_timeout(go, Duration::from_millis(5))
                        .expect("lock")
                        .0;
                }
            }
        }
    }
    let (tx, mut started) = mpsc::unbounded_channel();
    let hook = Arc::new(Stubborn {
        release: Mutex::new(false),
        cv: Condvar::new(),
        started: tx,
    });
    let o = options(1, 100)
        .with_limit(Limit::WallTimeMs, 50)
        .with_hooks(hook.clone());
    let client = in_process(o).await;
    let v = compute(&client, "41").await;
    assert_eq!(v["error"]["code"], "timeout", "answered at the deadline");
    let v = compute(&client, "42").await;
    assert_eq!(
        v["error"]["code"], "capacityExhausted",
        "the timed-out engine still holds the slot"
    );
    *hook.release.lock().expect("lock") = true;
    hook.cv.notify_all();
    let v = compute_when_free(&client, "43").await;
    assert_eq!(v["stackDisplay"], json!(["43/1"]));
    let order: Vec<String> = std::iter::from_fn(|| started.try_recv().ok()).collect();
    assert_eq!(order, ["41", "43"]);
}

/// Delivery (golden/limits.json `responseBytes`): a fitted result and `responseTooLarge`
/// on test-only servers with small limits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn response_budget_fits_or_answers_response_too_large() {
    results_are_fitted_by_halving_the_stack_budget().await;
    results_that_cannot_fit_answer_response_too_large().await;
}

async fn results_that_cannot_fit_answer_response_too_large() {
    let client =
        in_process(ServerOptions::production().with_limit(Limit::ResponseBytes, 300)).await;
    for (tool, args) in [
        ("compute", json!({ "source": "1 2 ADD" })),
        (
            "compute",
            json!({ "source": "'a long line of output' PRINT" }),
        ),
        ("check", json!({ "source": "1 2 ADD" })),
        ("infer_contracts", json!({ "source": "{ 1 + } 'INC' DEF" })),
        ("word_contract", json!({ "word": "ADD" })),
    ] {
        let v = call(&client, tool, args).await;
        assert_eq!(
            v["error"],
            json!({
                "code": "responseTooLarge",
                "message": "The result does not fit the 300-byte response limit even with the stack elided; print or keep less.",
                "retryable": false,
                "limit": "responseBytes"
            }),
            "{tool}"
        );
    }
}

async fn results_are_fitted_by_halving_the_stack_budget() {
    let limit = 20_000u64;
    let client =
        in_process(ServerOptions::production().with_limit(Limit::ResponseBytes, limit)).await;
    let r = call_raw(
        &client,
        "compute",
        json!({ "source": "0 2000 RANGE 1 2 ADD" }),
    )
    .await;
    let v = envelope(&r);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["stackDisplay"][1], "3/1");
    // 450,560 and 225,280 keep the ~143 kB vector; 112,640 is the first budget that
    // elides it, and then the whole result fits.
    assert_eq!(v["stackElided"]["budgetBytes"], 112_640);
    assert_eq!(v["stackElided"]["slots"][0]["index"], 0);
    assert!(sizes(&r).0 as u64 <= limit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_call_answers_backend_failure_and_the_server_keeps_serving() {
    let (probe, _seen) = Probe::new(Some("666"));
    let client = in_process(ServerOptions::production().with_hooks(probe)).await;
    let r = call_raw(&client, "compute", json!({ "source": "666" })).await;
    let v = envelope(&r);
    assert_eq!(r.is_error, Some(true));
    assert_eq!(v["error"]["code"], "backendFailure");
    assert_eq!(v["error"]["retryable"], false);
    assert!(v["error"].get("limit").is_none());
    assert_hygienic(v["error"]["message"].as_str().expect("a message"));
    assert!(
        !text(&r).contains("injected fault"),
        "no panic payload reaches the client"
    );
    client
        .send_request(ClientRequest::PingRequest(Default::default()))
        .await
        .expect("ping");
    assert_eq!(
        compute(&client, "1 2 ADD").await["stackDisplay"],
        json!(["3/1"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_raises_the_interrupt_and_frees_the_slot() {
    let (probe, mut seen) = Probe::new(None);
    let client = in_process(options(1, 30_000).with_hooks(probe.clone())).await;
    probe.hold("51");
    let params =
        CallToolRequestParams::new("compute").with_arguments(object(json!({ "source": "51" })));
    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("sent");
    assert_eq!(next(&mut seen).await, Seen::Started("51".into()));
    handle
        .cancel(Some("the caller gave up".into()))
        .await
        .expect("cancel sent");
    assert_eq!(next(&mut seen).await, Seen::Interrupted("51".into()));
    client
        .send_request(ClientRequest::PingRequest(Default::default()))
        .await
        .expect("ping");
    // The engine stopped, so the only slot serves the next call.
    assert_eq!(
        compute(&client, "52").await["stackDisplay"],
        json!(["52/1"])
    );
}

/// A program that ends holding `vectors` Vectors of 1,000 small integers (about 32 KB
/// each) on its stack.
fn holding(vectors: usize) -> String {
    let mut s = "0 999 RANGE ".repeat(vectors);
    s.push_str("LENGTH");
    s
}

/// `memoryBytes` (golden/limits.json hostGate): under a small injected ceiling a call
/// that fits runs and answers exactly as without it, a call that does not answers
/// `memoryExhausted` (not retryable, naming the limit and its value); after four such
/// bombs a fifth call is admitted at once (the gate's in-flight count is zero as soon
/// as the answers are out: the slot was given back before the answer), and the meters
/// of what fits are unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_ceiling_stops_a_call_and_frees_its_slot() {
    count_memory();
    assert!(
        ajisai_host::memory::counting(),
        "this executable counts allocations"
    );
    let ceiling = 16 * 1024 * 1024;
    // One slot and no queue: a slot still held would answer capacityExhausted at once.
    let o = options(1, 0).with_limit(Limit::MemoryBytes, ceiling);
    let client = in_process(o).await;
    let unbounded = in_process(options(1, 0)).await;
    let fits = "0 9999 RANGE LENGTH 0 9999 RANGE SUM";
    let v = compute(&client, fits).await;
    assert_eq!(v["stackDisplay"], json!(["10000/1", "49995000/1"]), "{v}");
    assert_eq!(v, compute(&unbounded, fits).await);
    // About 1.6 MB of vectors (and the rendering of their result) fit the 16 MiB
    // ceiling; 32 MB of vectors do not.
    let under = compute(&client, &holding(50)).await;
    assert_eq!(under["status"], "ok", "{under}");
    assert_eq!(under, compute(&unbounded, &holding(50)).await);
    for _ in 0..4 {
        let v = compute(&client, &holding(1000)).await;
        assert_eq!(
            v["error"],
            json!({
                "code": "memoryExhausted",
                "message": "Execution needed more than the 16777216-byte memory limit (memoryBytes); build smaller values or keep fewer of them.",
                "retryable": false,
                "limit": "memoryBytes"
            }),
            "{v}"
        );
        assert_schema_valid(&v);
    }
    // A recursion that never returns, holding a little at each level: the ceiling stops
    // it more than ten thousand calls deep, and the answer says so.
    let v = compute(&client, "{ 0 29 RANGE AGAIN } 'AGAIN' DEF AGAIN").await;
    assert_eq!(v["error"]["code"], "memoryExhausted", "{v}");
    let message = v["error"]["message"].as_str().expect("a message");
    assert!(
        message.starts_with("Execution needed more than the 16777216-byte memory limit (memoryBytes). AGAIN was ")
            && message.contains(" User Word calls deep: a recursion that never reaches its base case; hint: a recursive Word needs a base case"),
        "{message}"
    );
    assert_schema_valid(&v);
    let v = compute(&client, "1 2 ADD").await;
    assert_eq!(v["stackDisplay"], json!(["3/1"]), "{v}");
    let (_, limits) = read(&client, "ajisai://limits").await;
    let limits: Value = serde_json::from_str(&limits).expect("JSON");
    assert_eq!(
        limits["limits"]["memoryBytes"], ceiling,
        "the resource shows what is enforced"
    );
    // A bomb of the shared kind is refused by the work its walk would take, before a
    // byte of its text is written.
    let shared = "{ 'V' BIND [ 1 1 ] { V } MAP } 'D' DEF [ 1 ] D D D D D D D D D D D D D D D D D D D D D D D D D D D D D D STR";
    let v = compute(&client, shared).await;
    assert_eq!(v["outcome"], "error:resourceLimitExceeded", "{v}");
    assert_eq!(v["error"]["resource"], "collectionWork", "{v}");
}

/// Four time bombs answered `timeout`; the engines stop within moments of the deadline,
/// so a fifth call gets a slot within the queue wait (MCP-51).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_four_time_bombs_a_fifth_call_is_admitted() {
    count_memory();
    let o = ServerOptions::production()
        .with_limit(Limit::WallTimeMs, 100)
        .with_limit(Limit::ExecutionSteps, u64::MAX / 2);
    let client = Arc::new(in_process(o).await);
    let bombs: Vec<_> = (0..4).map(|_| spawn_compute(&client, FOREVER)).collect();
    for b in bombs {
        assert_eq!(b.await.expect("joined")["error"]["code"], "timeout");
    }
    let v = compute(&client, "1 2 ADD").await;
    assert_eq!(v["stackDisplay"], json!(["3/1"]), "{v}");
}

/// A call that fills its memory step by step is stopped within the allowed overshoot
/// past its ceiling, whatever fills it: Vectors on the stack, a text written piece by
/// piece, GMP integers.
#[test]
fn a_growing_call_stops_within_the_overshoot() {
    count_memory();
    ajisai_host::backend::link();
    let ceiling: u64 = 16 * 1024 * 1024;
    let server = ajisai_server::mcp::AjisaiServer::new(
        ServerOptions::production()
            .with_limit(Limit::MemoryBytes, ceiling)
            .with_limit(Limit::CollectionWork, u64::MAX / 2)
            .with_limit(Limit::NumericWork, u64::MAX / 2)
            .with_limit(Limit::BigintBits, u64::MAX / 2),
    );
    let wide_fractions = format!(
        "{{ 'V' BIND [ 1 1 ] {{ V }} MAP }} 'D' DEF [ 1 ] 2 100 POW /{} JSON-ENCODE",
        " D".repeat(40)
    );
    let integers = "{ [ 'N' ] BIND 3 N POW N 1000 + F } 'F' DEF 1000 F";
    for source in [holding(2000), wide_fractions, integers.to_string()] {
        let (answer, usage) = server.executor().execute_measured(
            ajisai_service::validate::ToolKind::COMPUTE
                .source_tool()
                .expect("compute runs source"),
            &source,
            &[],
            InterruptFlag::new(),
            Default::default(),
        );
        let code = match answer {
            Ok(Err(e)) => e.code.id(),
            _ => "an answer",
        };
        assert_eq!(code, "memoryExhausted", "{source}");
        assert!(usage.exceeded);
        assert!(
            usage.peak_bytes <= ceiling + ajisai_host::memory::OVERSHOOT_BYTES,
            "held {} bytes under a {ceiling}-byte ceiling: {source}",
            usage.peak_bytes
        );
    }
}

/// `responseBytes` bounds what each protocol revision delivers (MCP-52; docs/mcp/envelope.md):
/// 2026-07-28 adds `"resultType":"complete",` to every result, so a result that fits the limit
/// exactly under an earlier revision does not fit under 2026-07-28 and is elided there.
#[test]
fn response_bytes_count_the_frame_of_each_revision() {
    use ajisai_service::result::Delivery;
    use ajisai_service::validate::ToolKind;
    ajisai_host::backend::link();
    let source = "0 99 RANGE 1 2 ADD";
    let measure = |limit: u64, delivery: Delivery| {
        let server = ajisai_server::mcp::AjisaiServer::new(
            ServerOptions::production().with_limit(Limit::ResponseBytes, limit),
        );
        let (answer, _) = server.executor().execute_measured(
            ToolKind::COMPUTE
                .source_tool()
                .expect("compute runs source"),
            source,
            &[],
            InterruptFlag::new(),
            delivery,
        );
        let answer = answer.expect("no panic").expect("a tool result");
        (
            answer.measure(),
            serde_json::from_str::<serde_json::Value>(answer.envelope()).expect("JSON"),
        )
    };
    // The whole answer's size, and a limit it fits exactly.
    let (whole, env) = measure(1_048_576, Delivery::default());
    assert!(env.get("stackElided").is_none(), "{env}");
    let (at_limit, env) = measure(whole, Delivery::default());
    assert_eq!(at_limit, whole);
    assert!(env.get("stackElided").is_none(), "fits exactly: {env}");
    // Under 2026-07-28 the same limit holds 24 bytes less of it: a slot is elided.
    let modern = ajisai_server::mcp::protocol::revision::delivery(Some("2026-07-28"));
    assert_eq!(
        modern.frame_bytes,
        ajisai_server::mcp::protocol::tool_result::RESULT_TYPE_MEMBER.len() as u64
    );
    assert_eq!(
        ajisai_server::mcp::protocol::revision::delivery(Some("2025-11-25")),
        Delivery::default()
    );
    let (framed, env) = measure(whole, modern);
    assert!(framed + modern.frame_bytes <= whole, "{framed}");
    assert!(env.get("stackElided").is_some(), "{env}");
    assert_eq!(
        env["stackDisplay"].as_array().and_then(|d| d.last()),
        Some(&json!("3/1"))
    );
}
