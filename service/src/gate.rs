//! The concurrency gate (MCP-50; docs/mcp/limits.md): at most N source-tool executions at once; a caller
//! finding the gate full waits in a FIFO queue for up to the capacity wait. The queue is
//! bounded: a caller that finds it full is refused at once.
//!
//! Tokio's semaphore is fair: a released permit passes directly to the longest-waiting
//! caller and a new caller never overtakes a queued one. A permit is moved into the
//! blocking task that runs the engine, so the slot stays held until the engine has
//! actually stopped — after a timeout or a cancellation too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A held execution slot; dropping it releases the slot.
pub type Slot = OwnedSemaphorePermit;

/// The gate of one server.
#[derive(Clone, Debug)]
pub struct Gate {
    slots: Arc<Semaphore>,
    capacity: usize,
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

/// How admission went.
#[derive(Debug)]
pub enum Admission {
    /// A slot was free.
    Immediate(Slot),
    /// The gate was full; the caller waited and then got a slot.
    AfterWait(Slot),
    /// The wait expired.
    Expired,
    /// The queue was full: refused without waiting.
    QueueFull,
}

/// One place in the queue; leaving it (admitted, expired or dropped) frees it.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gate {
    /// A gate of `capacity` slots and a queue of at most `max_waiting` callers.
    pub fn new(capacity: usize, max_waiting: usize) -> Gate {
        Gate {
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
            waiting: Arc::new(AtomicUsize::new(0)),
            max_waiting,
        }
    }

    /// Callers waiting in the queue right now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    /// The number of slots.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Slots free right now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }

    /// Take a slot, waiting up to `wait` in FIFO order. `on_queued` runs once when the
    /// caller has to wait. Dropping the returned future leaves the queue.
    pub async fn admit(&self, wait: Duration, on_queued: impl FnOnce()) -> Admission {
        if let Ok(slot) = self.slots.clone().try_acquire_owned() {
            return Admission::Immediate(slot);
        }
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        let _place = Waiting(Arc::clone(&self.waiting));
        if queued >= self.max_waiting {
            return Admission::QueueFull;
        }
        let acquire = self.slots.clone().acquire_owned();
        // Enter the queue before telling anyone we are waiting, so an observer that
        // reacts to `on_queued` sees this caller ahead of later ones.
        let mut acquire = std::pin::pin!(acquire);
        if let Some(Ok(slot)) = futures_poll_once(acquire.as_mut()).await {
            return Admission::AfterWait(slot);
        }
        on_queued();
        match tokio::time::timeout(wait, acquire).await {
            Ok(Ok(slot)) => Admission::AfterWait(slot),
            // The semaphore is never closed; treat it like an expired wait.
            Ok(Err(_)) | Err(_) => Admission::Expired,
        }
    }
}

/// Poll a future once: `Some(output)` if it completed, `None` if it is pending (and is
/// now registered with its waker, e.g. queued on the semaphore).
async fn futures_poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
    struct PollOnce<F>(Option<F>);
    impl<F: std::future::Future + Unpin> std::future::Future for PollOnce<F> {
        type Output = Option<F::Output>;
        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Self::Output> {
            match self.0.as_mut() {
                Some(f) => match std::pin::Pin::new(f).poll(cx) {
                    std::task::Poll::Ready(v) => std::task::Poll::Ready(Some(v)),
                    std::task::Poll::Pending => std::task::Poll::Ready(None),
                },
                None => std::task::Poll::Ready(None),
            }
        }
    }
    PollOnce(Some(f)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fifo_hand_off_and_expiry() {
        let gate = Gate::new(1, 8);
        let first = match gate.admit(Duration::from_millis(10), || {}).await {
            Admission::Immediate(s) => s,
            other => panic!("expected a free slot, got {other:?}"),
        };
        // A waiter that expires.
        assert!(matches!(
            gate.admit(Duration::from_millis(20), || {}).await,
            Admission::Expired
        ));
        // Two waiters queue in order; releasing the slot serves the first one.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (q1, mut q1_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let g1 = gate.clone();
        let tx1 = tx.clone();
        let a = tokio::spawn(async move {
            let s = g1
                .admit(Duration::from_secs(30), move || {
                    let _ = q1.send(());
                })
                .await;
            let _ = tx1.send(1);
            s
        });
        q1_rx.recv().await.expect("first waiter queued");
        let g2 = gate.clone();
        let b = tokio::spawn(async move {
            let s = g2.admit(Duration::from_secs(30), || {}).await;
            let _ = tx.send(2);
            s
        });
        tokio::task::yield_now().await;
        drop(first);
        assert_eq!(rx.recv().await, Some(1));
        let sa = a.await.expect("joined");
        assert!(matches!(sa, Admission::AfterWait(_)));
        drop(sa);
        assert_eq!(rx.recv().await, Some(2));
        drop(b.await.expect("joined"));
        assert_eq!(gate.available(), 1);
        assert_eq!(gate.waiting(), 0);
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let gate = Gate::new(1, 2);
        let _held = gate.admit(Duration::from_millis(1), || {}).await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let mut waiters = Vec::new();
        for _ in 0..2 {
            let g = gate.clone();
            let tx = tx.clone();
            waiters.push(tokio::spawn(async move {
                g.admit(Duration::from_secs(30), move || {
                    let _ = tx.send(());
                })
                .await
            }));
            rx.recv().await.expect("queued");
        }
        assert_eq!(gate.waiting(), 2);
        // The third waiter finds the queue full and does not wait 30 s.
        assert!(matches!(
            gate.admit(Duration::from_secs(30), || panic!("must not queue"))
                .await,
            Admission::QueueFull
        ));
        assert_eq!(gate.waiting(), 2);
        for w in waiters {
            w.abort();
            let _ = w.await;
        }
        assert_eq!(gate.waiting(), 0);
    }
}
