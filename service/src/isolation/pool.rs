//! The serving process's side of process isolation: a pool of pre-started workers, one
//! per slot, and the supervision of every job — its answer, its deadline plus
//! [`STOP_GRACE`], its caller leaving, its worker's death — after which a worker that
//! could not finish cleanly is killed and replaced.

use super::wire::{self, Done, FromWorker};
use super::{Loss, EXIT_OUT_OF_MEMORY, STOP_GRACE};
use crate::gate::Slot;
use crate::metrics;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, Mutex};
use tokio::time::Instant;

/// How long a new worker has to say it is ready.
const READY_WAIT: Duration = Duration::from_secs(30);

/// How long a job waits for a worker when none is idle (one is being replaced).
const WORKER_WAIT: Duration = Duration::from_secs(10);

/// The wait before starting a worker again after a start failed.
const RESTART_BACKOFF: Duration = Duration::from_millis(500);

/// One started worker.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::BufReader<ChildStdout>,
    pid: u32,
}

/// The workers of one profile.
pub struct WorkerPool {
    inner: Arc<Inner>,
}

struct Inner {
    exe: PathBuf,
    profile: &'static str,
    idle_tx: mpsc::UnboundedSender<Worker>,
    idle_rx: Mutex<mpsc::UnboundedReceiver<Worker>>,
    next_job: AtomicU64,
}

/// How a job ended.
#[derive(Debug)]
pub enum Outcome {
    /// The worker answered.
    Answered(Done),
    /// The deadline passed (`true`) or the caller left (`false`); the worker stopped
    /// within the grace and is ready again.
    Stopped {
        /// Whether it was the deadline.
        deadline: bool,
    },
    /// The worker had to be killed, or died: it is being replaced.
    Lost(Loss),
    /// No worker could be had.
    Unavailable(String),
}

/// A job's hold on its slot and, once it has one, its worker. Dropped while the job is
/// in flight (its caller left: an HTTP client that hung up, a cancelled request), it
/// hands the worker to a task of its own that stops the job and waits out the grace, so
/// that the caller's future never has to be polled to the end for the worker to be
/// stopped, killed or put back — and the slot is held until then.
struct Held {
    inner: Arc<Inner>,
    job: u64,
    /// The worker, once taken; `sent` once the job's frame may have reached it.
    worker: Option<Worker>,
    sent: bool,
    slot: Option<Slot>,
    in_flight: Option<metrics::InFlight>,
}

impl Held {
    fn worker(&mut self) -> &mut Worker {
        self.worker.as_mut().expect("a held worker")
    }

    /// The worker, no longer the job's to clean up.
    fn release(&mut self) -> Worker {
        self.worker.take().expect("a held worker")
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some(worker) = self.worker.take() else {
            return;
        };
        if !self.sent {
            self.inner.ready_again(worker);
            return;
        }
        let (inner, job) = (Arc::clone(&self.inner), self.job);
        let (slot, in_flight) = (self.slot.take(), self.in_flight.take());
        // Outside a runtime (the server is shutting down) the worker is dropped, which
        // kills it (`kill_on_drop`).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                stop_job(worker.pid);
                let _ = inner.after_stop(worker, job, false).await;
                drop(in_flight);
                drop(slot);
            });
        }
    }
}

impl WorkerPool {
    /// Start `size` workers of `profile` (the server's own executable with `--worker`);
    /// each joins the pool once it says it is ready. Must run inside a tokio runtime.
    pub fn start(profile: &'static str, size: usize) -> std::io::Result<WorkerPool> {
        let exe = std::env::current_exe()?;
        let (idle_tx, idle_rx) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            exe,
            profile,
            idle_tx,
            idle_rx: Mutex::new(idle_rx),
            next_job: AtomicU64::new(1),
        });
        for _ in 0..size {
            tokio::spawn(Arc::clone(&inner).replenish());
        }
        Ok(WorkerPool { inner })
    }

    /// Run `request` on a worker under `slot` (held until the worker is ready again or
    /// replaced), stopping it at `deadline`. The supervision runs in the caller's future
    /// (no task per call); dropping the future stops the job, and its worker is then
    /// supervised to the end by a task of its own (`Held`).
    pub async fn run(
        &self,
        slot: Slot,
        mut request: wire::Run,
        deadline: Instant,
        in_flight: metrics::InFlight,
    ) -> Outcome {
        request.job = self.inner.next_job.fetch_add(1, Ordering::Relaxed);
        let mut held = Held {
            inner: Arc::clone(&self.inner),
            job: request.job,
            worker: None,
            sent: false,
            slot: Some(slot),
            in_flight: Some(in_flight),
        };
        match self.inner.take().await {
            Some(worker) => held.worker = Some(worker),
            None => return Outcome::Unavailable("no worker became ready".into()),
        }
        held.sent = true;
        let frame = match wire::encode(&request) {
            Ok(frame) => frame,
            Err(e) => {
                held.sent = false;
                return Outcome::Unavailable(format!("the call cannot be sent: {e}"));
            }
        };
        if wire::write_frame(&mut held.worker().stdin, &frame)
            .await
            .is_err()
        {
            return held.finish(Finish::Lost).await;
        }
        let answer = tokio::select! {
            biased;
            answer = wire::read::<FromWorker>(&mut held.worker().stdout) => Some(answer),
            () = tokio::time::sleep_until(deadline) => None,
        };
        match answer {
            Some(Ok(FromWorker::Done(done))) if done.job == request.job => {
                self.inner.ready_again(held.release());
                Outcome::Answered(done)
            }
            Some(_) => held.finish(Finish::Lost).await,
            None => held.finish(Finish::Deadline).await,
        }
    }
}

/// How a job that did not simply answer is finished.
enum Finish {
    /// The worker broke the protocol or its pipe: it is replaced.
    Lost,
    /// The deadline passed: the worker is stopped, and replaced if it does not stop.
    Deadline,
}

impl Held {
    /// Finish the job on a task of its own, with the worker, the slot and the in-flight
    /// count, and wait for it. A task, so that a caller that leaves meanwhile (its future
    /// dropped) cannot stop halfway through a kill and its replacement: the pool would
    /// lose the worker. These paths are rare; the common one spawns nothing.
    async fn finish(mut self, how: Finish) -> Outcome {
        let worker = self.release();
        let (inner, job) = (Arc::clone(&self.inner), self.job);
        let (slot, in_flight) = (self.slot.take(), self.in_flight.take());
        let task = tokio::spawn(async move {
            let outcome = match how {
                Finish::Lost => inner.lost(worker, None).await,
                Finish::Deadline => {
                    stop_job(worker.pid);
                    inner.after_stop(worker, job, true).await
                }
            };
            drop(in_flight);
            drop(slot);
            outcome
        });
        task.await
            .unwrap_or_else(|e| Outcome::Unavailable(format!("the job's supervisor ended: {e}")))
    }
}

impl Inner {
    /// Start one worker and put it in the pool, retrying until one starts.
    async fn replenish(self: Arc<Self>) {
        loop {
            match self.spawn().await {
                Ok(worker) => {
                    metrics::worker_started();
                    tracing::info!("worker {} ({}) started", worker.pid, self.profile);
                    let _ = self.idle_tx.send(worker);
                    return;
                }
                Err(why) => {
                    tracing::warn!("a {} worker could not start: {why}", self.profile);
                    tokio::time::sleep(RESTART_BACKOFF).await;
                }
            }
        }
    }

    async fn spawn(&self) -> Result<Worker, String> {
        let mut child = Command::new(&self.exe)
            .arg("--worker")
            .arg(self.profile)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| e.to_string())?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no pipes".into());
        };
        let mut stdout = tokio::io::BufReader::new(stdout);
        match tokio::time::timeout(READY_WAIT, wire::read::<FromWorker>(&mut stdout)).await {
            Ok(Ok(FromWorker::Ready { .. })) => Ok(Worker {
                child,
                stdin,
                stdout,
                pid,
            }),
            Ok(Ok(other)) => Err(format!("it said {other:?} before it was ready")),
            Ok(Err(e)) => {
                let status = child.wait().await.map(describe).unwrap_or_default();
                Err(format!("{e} ({status})"))
            }
            Err(_) => Err("it did not get ready in time".into()),
        }
    }

    /// A worker, waiting for one being replaced if none is idle.
    async fn take(&self) -> Option<Worker> {
        let mut idle = self.idle_rx.lock().await;
        tokio::time::timeout(WORKER_WAIT, idle.recv())
            .await
            .ok()
            .flatten()
    }

    /// A worker told to stop `job` (at its deadline, or because its caller left): it is
    /// ready again if it answers within [`STOP_GRACE`], and is killed and replaced if not.
    async fn after_stop(self: &Arc<Self>, mut worker: Worker, job: u64, deadline: bool) -> Outcome {
        let answer =
            tokio::time::timeout(STOP_GRACE, wire::read::<FromWorker>(&mut worker.stdout)).await;
        match answer {
            Ok(Ok(FromWorker::Done(done))) if done.job == job => {
                self.ready_again(worker);
                Outcome::Stopped { deadline }
            }
            Ok(_) => self.lost(worker, None).await,
            Err(_) => {
                let reason = if deadline {
                    Loss::Deadline
                } else {
                    Loss::Crashed("it did not stop when its caller left".into())
                };
                self.lost(worker, Some(reason)).await
            }
        }
    }

    /// Put a worker that finished its job back in the pool.
    fn ready_again(&self, worker: Worker) {
        let _ = self.idle_tx.send(worker);
    }

    /// A worker that is gone or must go: kill it when `killed_for` says why, collect
    /// how it ended, count and log it, and start its replacement.
    async fn lost(self: &Arc<Self>, worker: Worker, killed_for: Option<Loss>) -> Outcome {
        let Worker { mut child, pid, .. } = worker;
        if killed_for.is_some() {
            let _ = child.start_kill();
        }
        let status = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        let loss = match killed_for {
            Some(reason) => {
                metrics::worker_killed(reason.label());
                tracing::warn!(
                    "worker {pid} ({}) killed: {}; replacing it",
                    self.profile,
                    reason.label()
                );
                reason
            }
            None => {
                let loss = match status {
                    Ok(Ok(status)) => classify(status),
                    _ => Loss::Crashed("it stopped answering".into()),
                };
                metrics::worker_died(loss.label());
                let how = match &loss {
                    Loss::Crashed(how) => how.clone(),
                    other => other.label().to_string(),
                };
                tracing::warn!("worker {pid} ({}) died: {how}; replacing it", self.profile);
                loss
            }
        };
        tokio::spawn(Arc::clone(self).replenish());
        Outcome::Lost(loss)
    }
}

/// Tell worker `pid` to stop its running job (its answer is awaited as usual).
fn stop_job(pid: u32) {
    #[cfg(target_os = "linux")]
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::USR1);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// What a worker's exit status says happened.
fn classify(status: std::process::ExitStatus) -> Loss {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if status.signal() == Some(libc_sigxcpu()) {
            return Loss::CpuTime;
        }
    }
    if status.code() == Some(EXIT_OUT_OF_MEMORY) {
        return Loss::Memory;
    }
    Loss::Crashed(describe(status))
}

fn libc_sigxcpu() -> i32 {
    // SIGXCPU on Linux (signal(7)).
    24
}

/// An exit status as a log line says it.
fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with code {code}"),
        None => "ended".into(),
    }
}
