//! The pool's ready queue: runnable streams, first in first out, and the workers that take
//! them, spinning briefly and then parking when there are none.
//!
//! Pushing and taking are lock-free (the same queue as a stream's `WorkQueue`); only workers
//! going to sleep, and producers that must wake one, take the sleepers' lock.
//!
//! # Invariants
//! - Every pushed item is taken exactly once, by one worker (or is still queued).
//! - **No lost wake-up.** A worker counts itself as spinning or sleeping before its last look
//!   at the queue; a producer queues its item before it looks at those counts, with `SeqCst`
//!   fences on both sides. So either the worker sees the item, or the producer sees
//!   the worker: a spinning one will look again, and a sleeping one is unparked (if no
//!   worker spins). A worker never sleeps while an item it could see is queued.
//! - **A wake-up is passed on, never absorbed.** A worker that takes an item and leaves more
//!   queued wakes another unless one spins: the producer that counted on it (as a spinner, or
//!   as a sleeper it unparked while the worker was in fact about to look again) gets its item
//!   taken all the same.
//! - After [`ReadyQueue::shut_down`], [`ReadyQueue::pop`] drains what is queued, then returns
//!   [`Pop::ShutDown`] to every worker.
//!
//! Model-checked with the run-state protocol in `tests/loom_pool.rs`.

use std::time::Duration;

use super::shim::{self, fence, AtomicBool, AtomicUsize, Mutex, Ordering, Thread};

#[cfg(not(loom))]
type Items<T> = crossbeam_queue::SegQueue<T>;

/// Under the model checker a plain locked deque stands in for the lock-free queue (loom cannot
/// see inside crossbeam's atomics); the protocol around it is the same code.
#[cfg(loom)]
struct Items<T>(loom::sync::Mutex<std::collections::VecDeque<T>>);

#[cfg(loom)]
impl<T> Items<T> {
    fn new() -> Self {
        Self(loom::sync::Mutex::new(std::collections::VecDeque::new()))
    }
    fn push(&self, item: T) {
        self.0.lock().unwrap().push_back(item);
    }
    fn pop(&self) -> Option<T> {
        self.0.lock().unwrap().pop_front()
    }
    fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// What [`ReadyQueue::pop`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Pop<T> {
    /// An item to run.
    Item(T),
    /// Nothing came within the idle timeout the worker gave.
    TimedOut,
    /// The queue was shut down and is empty: the worker exits.
    ShutDown,
}

/// See the module documentation.
pub struct ReadyQueue<T> {
    items: Items<T>,
    /// Workers spinning for an item (they look again before they sleep).
    spinning: AtomicUsize,
    /// Workers listed as sleepers.
    sleeping: AtomicUsize,
    sleepers: Mutex<Vec<Thread>>,
    shut: AtomicBool,
}

impl<T> std::fmt::Debug for ReadyQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadyQueue")
            .field("spinning", &self.spinning)
            .field("sleeping", &self.sleeping)
            .finish()
    }
}

impl<T> Default for ReadyQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Every this many idle spins a worker yields its core, so a producer sharing it can run.
const YIELD_EVERY: u32 = 16;

impl<T> ReadyQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self {
            items: Items::new(),
            spinning: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            sleepers: Mutex::new(Vec::new()),
            shut: AtomicBool::new(false),
        }
    }

    fn sleepers(&self) -> shim::MutexGuard<'_, Vec<Thread>> {
        self.sleepers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item`; wakes a sleeping worker unless one is spinning (it will see the item).
    /// Returns whether a worker was idle (spinning, or asleep and now woken): it will take an
    /// item, so the caller need not look for more hands.
    pub fn push(&self, item: T) -> bool {
        self.items.push(item);
        fence(Ordering::SeqCst);
        self.wake_one_if_none_spins()
    }

    /// Whether a worker was idle: spinning, or asleep (then one is woken).
    fn wake_one_if_none_spins(&self) -> bool {
        if self.spinning.load(Ordering::SeqCst) > 0 {
            return true;
        }
        if self.sleeping.load(Ordering::SeqCst) == 0 {
            return false;
        }
        let sleeper = self.sleepers().pop();
        match sleeper {
            Some(t) => {
                self.sleeping.fetch_sub(1, Ordering::SeqCst);
                t.unpark();
                true
            }
            None => false,
        }
    }

    /// Items queued now.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no item is queued now.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether some worker is waiting for an item (spinning or asleep) and will take the next
    /// one pushed.
    pub fn has_idle_worker(&self) -> bool {
        self.spinning.load(Ordering::SeqCst) + self.sleeping.load(Ordering::SeqCst) > 0
    }

    fn try_take(&self) -> Option<T> {
        self.items.pop()
    }

    /// Worker side: takes the next item, spinning up to `spins` times and then parking while
    /// there is none. With `idle_timeout`, gives up ([`Pop::TimedOut`]) after parking that
    /// long without an item.
    pub fn pop(&self, spins: u32, idle_timeout: Option<Duration>) -> Pop<T> {
        loop {
            if let Some(item) = self.try_take() {
                // A producer may have chosen this worker as a sleeper for another item (it
                // had listed itself, then found the queue not empty): pass that on.
                fence(Ordering::SeqCst);
                if !self.is_empty() {
                    let _ = self.wake_one_if_none_spins();
                }
                return Pop::Item(item);
            }
            self.spinning.fetch_add(1, Ordering::SeqCst);
            let mut i = 0;
            while i < spins && self.items.is_empty() && !self.shut.load(Ordering::Relaxed) {
                if i % YIELD_EVERY == YIELD_EVERY - 1 {
                    shim::yield_now();
                } else {
                    shim::spin_loop();
                }
                i += 1;
            }
            if let Some(item) = self.try_take() {
                self.spinning.fetch_sub(1, Ordering::SeqCst);
                // This worker stops spinning: if more is queued, another must look. A producer
                // that counted on this spinner pushed before it read the count, so the look
                // below (after the fence) sees its item.
                fence(Ordering::SeqCst);
                if !self.is_empty() {
                    let _ = self.wake_one_if_none_spins();
                }
                return Pop::Item(item);
            }
            let me = shim::current();
            {
                let mut sleepers = self.sleepers();
                sleepers.push(me.clone());
                // Counted as sleeping before it stops counting as spinning: a producer always
                // sees it as one or the other.
                self.sleeping.fetch_add(1, Ordering::SeqCst);
                self.spinning.fetch_sub(1, Ordering::SeqCst);
            }
            fence(Ordering::SeqCst);
            let shut = self.shut.load(Ordering::SeqCst);
            let timed_out = if !self.items.is_empty() || shut {
                false
            } else {
                park(idle_timeout)
            };
            let listed = {
                let mut sleepers = self.sleepers();
                match sleepers.iter().position(|t| t.id() == me.id()) {
                    Some(i) => {
                        sleepers.swap_remove(i);
                        self.sleeping.fetch_sub(1, Ordering::SeqCst);
                        true
                    }
                    // A producer chose this worker (and counted it off).
                    None => false,
                }
            };
            if shut && self.is_empty() {
                return Pop::ShutDown;
            }
            if listed && timed_out && self.is_empty() {
                return Pop::TimedOut;
            }
        }
    }

    /// No more workers are wanted: they drain the queue and then exit.
    pub fn shut_down(&self) {
        self.shut.store(true, Ordering::SeqCst);
        let sleepers = std::mem::take(&mut *self.sleepers());
        self.sleeping.fetch_sub(sleepers.len(), Ordering::SeqCst);
        for t in sleepers {
            t.unpark();
        }
    }

    /// Whether [`ReadyQueue::shut_down`] was called.
    pub fn is_shut_down(&self) -> bool {
        self.shut.load(Ordering::SeqCst)
    }
}

/// Parks the calling thread, at most `timeout` if given; returns whether that time passed.
#[cfg(not(loom))]
fn park(timeout: Option<Duration>) -> bool {
    match timeout {
        None => {
            shim::park();
            false
        }
        Some(t) => {
            let start = std::time::Instant::now();
            shim::park_timeout(t);
            start.elapsed() >= t
        }
    }
}

/// Under the model checker there is no clock: a timed park is a plain park that never times
/// out (loom may still wake it spuriously).
#[cfg(loom)]
fn park(_timeout: Option<Duration>) -> bool {
    shim::park();
    false
}
