//! The serving process's side of process isolation: a pool of pre-started workers, one
//! per slot, and the supervision of every job — its answer, its deadline plus
//! [`STOP_GRACE`], its caller leaving, its worker's death — after which a worker that
//! could not finish cleanly is killed and replaced.

use super::wire::{self, Done, FromWorker};
use super::{Loss, EXIT_OUT_OF_MEMORY, STOP_GRACE};
use crate::mcp::service::gate::Slot;
use crate::mcp::service::metrics;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot, Mutex};
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

/// A submitted job: its outcome, and a way to stop it (dropping the job stops it too).
pub struct Job {
    outcome: oneshot::Receiver<Outcome>,
    stop: Option<oneshot::Sender<()>>,
}

impl Job {
    /// How the job ended.
    pub async fn outcome(&mut self) -> Outcome {
        (&mut self.outcome)
            .await
            .unwrap_or_else(|_| Outcome::Unavailable("the job's supervisor ended".into()))
    }

    /// Tell the worker to stop the job (its caller left).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.stop();
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
    /// replaced), stopping it at `deadline`.
    pub fn submit(
        &self,
        slot: Slot,
        mut request: wire::Run,
        deadline: Instant,
        in_flight: metrics::InFlight,
    ) -> Job {
        request.job = self.inner.next_job.fetch_add(1, Ordering::Relaxed);
        let (outcome_tx, outcome_rx) = oneshot::channel();
        let (stop_tx, stop_rx) = oneshot::channel();
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move {
            let outcome = inner.supervise(request, deadline, stop_rx).await;
            drop(in_flight);
            drop(slot);
            let _ = outcome_tx.send(outcome);
        });
        Job {
            outcome: outcome_rx,
            stop: Some(stop_tx),
        }
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

    async fn supervise(
        self: &Arc<Self>,
        request: wire::Run,
        deadline: Instant,
        mut stop: oneshot::Receiver<()>,
    ) -> Outcome {
        let Some(worker) = self.take().await else {
            return Outcome::Unavailable("no worker became ready".into());
        };
        let job = request.job;
        let Worker {
            child,
            mut stdin,
            mut stdout,
            pid,
        } = worker;
        if wire::write(&mut stdin, &request).await.is_err() {
            return self.lost(child, pid, None).await;
        }
        enum Next {
            Answer(Result<FromWorker, wire::FrameError>),
            Deadline,
            Left,
        }
        let mut read = Box::pin(wire::read::<FromWorker>(&mut stdout));
        let first = tokio::select! {
            biased;
            answer = &mut read => Next::Answer(answer),
            () = tokio::time::sleep_until(deadline) => Next::Deadline,
            _ = &mut stop => Next::Left,
        };
        let deadline_passed = match first {
            Next::Answer(answer) => {
                drop(read);
                return match answer {
                    Ok(FromWorker::Done(done)) if done.job == job => {
                        self.ready_again(child, stdin, stdout, pid);
                        Outcome::Answered(done)
                    }
                    _ => self.lost(child, pid, None).await,
                };
            }
            Next::Deadline => true,
            Next::Left => false,
        };
        stop_job(pid);
        let second = tokio::select! {
            biased;
            answer = &mut read => Some(answer),
            () = tokio::time::sleep(STOP_GRACE) => None,
        };
        drop(read);
        match second {
            Some(Ok(FromWorker::Done(done))) if done.job == job => {
                self.ready_again(child, stdin, stdout, pid);
                Outcome::Stopped {
                    deadline: deadline_passed,
                }
            }
            Some(_) => self.lost(child, pid, None).await,
            None => {
                let reason = if deadline_passed {
                    Loss::Deadline
                } else {
                    Loss::Crashed("it did not stop when its caller left".into())
                };
                self.lost(child, pid, Some(reason)).await
            }
        }
    }

    /// Put a worker that finished its job back in the pool.
    fn ready_again(
        &self,
        child: Child,
        stdin: ChildStdin,
        stdout: tokio::io::BufReader<ChildStdout>,
        pid: u32,
    ) {
        let _ = self.idle_tx.send(Worker {
            child,
            stdin,
            stdout,
            pid,
        });
    }

    /// A worker that is gone or must go: kill it when `killed_for` says why, collect
    /// how it ended, count and log it, and start its replacement.
    async fn lost(
        self: &Arc<Self>,
        mut child: Child,
        pid: u32,
        killed_for: Option<Loss>,
    ) -> Outcome {
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
