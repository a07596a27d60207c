//! The scheduling class of the threads that evaluate programs.
//!
//! Evaluations run beside the threads that read requests and write answers, on few
//! cores. With the default class, a worker woken by the job it is sent preempts the
//! serving thread that sent it on that thread's own CPU (Linux's wake-up preemption):
//! every call then costs the serving thread a context switch away and back, and a heavy
//! evaluation competes with the answers of every other call on equal terms. Linux's
//! `SCHED_BATCH` class is the one for CPU-bound work that does not interact: its threads
//! get the same share of CPU time as before, but are never placed ahead of a running
//! thread when woken. Measured with wrk on two cores (docs/decisions.md), a
//! process-isolated server answers 10-20% more small calls per second with its workers
//! in it.
//!
//! The reaper ([`crate::reaper`]) stays in the default class: when it falls behind, a
//! run frees its leftovers itself and its slot comes back late.
//!
//! The class is set by hand with `libc` because neither `rustix` nor `nix` offers
//! `sched_setscheduler`.

/// Put the calling thread, and every thread it starts afterwards, in the batch class.
/// Any user may do this (no privilege is needed to leave the default class for it). On
/// systems other than Linux, nothing is done.
pub fn enter_batch_class() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: a system call on the calling thread (pid 0) with a valid parameter
        // block that outlives the call.
        let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the calling thread is in the batch class.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn in_batch_class() -> bool {
        // SAFETY: a system call on the calling thread (pid 0) with no pointers.
        (unsafe { libc::sched_getscheduler(0) }) == libc::SCHED_BATCH
    }

    /// Never, where there is no batch class.
    #[cfg(not(target_os = "linux"))]
    fn in_batch_class() -> bool {
        false
    }

    #[test]
    fn a_thread_in_the_batch_class_starts_threads_in_it() {
        // On a thread of its own: the class stays with the threads that enter it.
        std::thread::spawn(|| {
            enter_batch_class().expect("any user may enter the batch class");
            let child = std::thread::spawn(in_batch_class).join().expect("joins");
            assert_eq!(
                (in_batch_class(), child),
                (cfg!(target_os = "linux"), cfg!(target_os = "linux"))
            );
        })
        .join()
        .expect("joins");
    }
}
