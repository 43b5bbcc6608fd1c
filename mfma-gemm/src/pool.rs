//! Host threads kept between GEMM calls.
//!
//! Spawning 15 threads took 0.24–0.57 ms of every 16-thread call (2–4 % of
//! a 2048³ f32 or i8 GEMM on the 16-core Xeon); a parked thread wakes in
//! microseconds. A call takes idle threads out of the pool for its
//! duration and puts them back after, so concurrent calls never share one;
//! the pool grows to the most threads in use at once, up to four per core
//! (a call with more lets its extra threads end), and its threads sleep on
//! a channel while idle.

use std::boxed::Box;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::Result as ThreadResult;
use std::vec::Vec;

/// A job as a pool thread receives it.
type Job = Box<dyn FnOnce() + Send>;

/// Idle pool threads, each fed through its channel.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// What the jobs of one call report to it.
struct Call<R> {
    /// Jobs not yet finished, and their results by index.
    state: Mutex<(usize, Vec<Option<ThreadResult<R>>>)>,
    done: Condvar,
}

/// Runs `f` on `threads` threads at once, the calling thread one of them,
/// and returns their results, the caller's first. A panic in any of them is
/// resumed on the caller once all have finished.
pub(crate) fn run_on<R: Send + 'static>(threads: usize, f: &(dyn Fn() -> R + Sync)) -> Vec<R> {
    let others = threads.saturating_sub(1);
    let call = Arc::new(Call {
        state: Mutex::new((others, (0..others).map(|_| None).collect())),
        done: Condvar::new(),
    });
    let mut senders = take(others);
    for (i, sender) in senders.iter_mut().enumerate() {
        let call = Arc::clone(&call);
        let job = Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let mut state = call.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.1[i] = Some(r);
            state.0 -= 1;
            if state.0 == 0 {
                call.done.notify_one();
            }
        }) as Box<dyn FnOnce() + Send + '_>;
        // SAFETY: the job borrows `f` only, which outlives this call: the
        // call does not return (nor unwind) before every job has finished
        // with it, counted down under the lock above (a job the pool
        // thread could not take runs here, just below).
        let job = unsafe { core::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
        if let Err(unsent) = sender.send(job) {
            // The pool thread is gone (it never exits while its channel is
            // open, but a send is fallible): run the job here, and replace
            // the thread for the next call.
            (unsent.0)();
            *sender = spawn();
        }
    }
    let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let mut state = call.state.lock().unwrap_or_else(PoisonError::into_inner);
    while state.0 > 0 {
        state = call
            .done
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
    let theirs = core::mem::take(&mut state.1);
    drop(state);
    put_back(senders);
    core::iter::once(mine)
        .chain(theirs.into_iter().map(|r| r.expect("every job reported")))
        .map(|r| r.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        .collect()
}

/// Runs `f` on `threads` host threads at once (at least one), the calling
/// thread one of them, and returns what each returned, the caller's first:
/// the threads [`gemm`](crate::gemm) runs on, kept between calls, so that
/// other host code run beside it (a baseline it is timed against, say)
/// pays no more to start its threads than the GEMM does. A panic in any of
/// them is resumed on the caller once all have finished.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let next = AtomicUsize::new(0);
/// let mut ids = mfma_gemm::run_on_threads(3, &|| next.fetch_add(1, Ordering::Relaxed));
/// ids.sort();
/// assert_eq!(ids, [0, 1, 2]);
/// ```
pub fn run_on_threads<R: Send + 'static>(threads: usize, f: &(dyn Fn() -> R + Sync)) -> Vec<R> {
    run_on(threads, f)
}

/// `n` idle pool threads, spawning those the pool lacks.
fn take(n: usize) -> Vec<Sender<Job>> {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    let keep = idle.len().saturating_sub(n);
    let mut taken: Vec<_> = idle.drain(keep..).collect();
    drop(idle);
    let missing = n - taken.len();
    taken.extend((0..missing).map(|_| spawn()));
    taken
}

/// Returns threads to the pool, keeping at most [`max_idle`] idle: the
/// extra threads of a call with more end (their channels close).
fn put_back(senders: Vec<Sender<Job>>) {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    let room = max_idle().saturating_sub(idle.len());
    idle.extend(senders.into_iter().take(room));
}

/// The most idle threads the pool keeps: four per core, room for a few
/// concurrent calls on all cores.
fn max_idle() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| 4 * crate::available_threads())
}

/// A new pool thread.
fn spawn() -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    std::thread::Builder::new()
        .name("mfma-gemm".into())
        .spawn(move || rx.into_iter().for_each(|job| job()))
        .expect("spawning a GEMM thread");
    tx
}

#[cfg(test)]
mod tests {
    use super::run_on;
    use core::sync::atomic::{AtomicUsize, Ordering};
    use std::collections::HashSet;
    use std::sync::{Mutex, MutexGuard, PoisonError};
    use std::thread::{current, ThreadId};
    use std::vec::Vec;

    /// The tests here take turns, so that one sees the pool as the other
    /// left it.
    fn alone() -> MutexGuard<'static, ()> {
        static TURN: Mutex<()> = Mutex::new(());
        TURN.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The threads of one call, the caller first, after each has seen all
    /// the others start: proof that they run at once.
    fn threads_of(threads: usize) -> Vec<ThreadId> {
        let started = AtomicUsize::new(0);
        run_on(threads, &|| {
            started.fetch_add(1, Ordering::SeqCst);
            while started.load(Ordering::SeqCst) < threads {
                std::thread::yield_now();
            }
            current().id()
        })
    }

    /// Every call runs on as many distinct threads as it asks for, the
    /// caller first, and a later call reuses the pool threads of an
    /// earlier one instead of spawning.
    #[test]
    fn runs_on_distinct_threads_and_reuses_them() {
        let _turn = alone();
        let mut before = HashSet::new();
        for threads in [1, 4, 3, 4] {
            let ids = threads_of(threads);
            assert_eq!(ids.len(), threads);
            assert_eq!(ids[0], current().id());
            let pool: HashSet<_> = ids[1..].iter().copied().collect();
            assert_eq!(pool.len(), threads - 1);
            assert!(!pool.contains(&current().id()));
            if threads <= 1 + before.len() {
                assert!(
                    pool.is_subset(&before),
                    "spawned while idle threads were left"
                );
            }
            before = pool;
        }
    }

    /// A call with more threads than the pool keeps idle gets them all,
    /// and lets the extra ones end after.
    #[test]
    fn keeps_at_most_max_idle_threads() {
        let _turn = alone();
        let threads = super::max_idle() + 2;
        assert_eq!(threads_of(threads).len(), threads);
        let idle = super::IDLE.lock().unwrap().len();
        assert_eq!(idle, super::max_idle());
    }

    /// A panic on a pool thread reaches the caller after every thread has
    /// finished, and the pool still works after it.
    #[test]
    fn a_panic_reaches_the_caller_after_all_finished() {
        let _turn = alone();
        let finished = Mutex::new(0);
        let caught = std::panic::catch_unwind(|| {
            run_on(4, &|| {
                let me = {
                    let mut f = finished.lock().unwrap();
                    *f += 1;
                    *f
                };
                assert!(me != 2, "the second thread fails");
            })
        });
        assert!(caught.is_err());
        assert_eq!(*finished.lock().unwrap(), 4);
        assert_eq!(threads_of(3).len(), 3);
    }
}
