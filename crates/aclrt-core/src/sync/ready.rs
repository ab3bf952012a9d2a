//! The pool's ready queue: runnable streams, first in first out, and the workers that take
//! them, spinning briefly and then parking when there are none.
//!
//! # Invariants
//! - Every pushed item is taken exactly once, by one worker (or is still queued).
//! - **No lost wake-up.** A worker lists itself as a sleeper and looks for items under the
//!   same lock a producer pushes under; a producer that finds no spinning worker unparks one
//!   sleeper after pushing. So an item pushed while every worker sleeps always wakes one, and
//!   a worker never sleeps while an item it could see is queued.
//! - After [`ReadyQueue::shut_down`], [`ReadyQueue::pop`] drains what is queued, then returns
//!   [`Pop::ShutDown`] to every worker.
//!
//! Model-checked with the run-state protocol in `tests/loom_pool.rs`.

use std::collections::VecDeque;
use std::time::Duration;

use super::shim::{self, AtomicBool, AtomicUsize, Mutex, Ordering, Thread};

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

#[derive(Debug)]
struct Inner<T> {
    items: VecDeque<T>,
    sleepers: Vec<Thread>,
}

/// See the module documentation.
#[derive(Debug)]
pub struct ReadyQueue<T> {
    inner: Mutex<Inner<T>>,
    /// Items queued (kept under the lock, read without it).
    len: AtomicUsize,
    /// Workers spinning for an item (not yet listed as sleepers).
    spinning: AtomicUsize,
    /// Workers listed as sleepers.
    sleeping: AtomicUsize,
    shut: AtomicBool,
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
            inner: Mutex::new(Inner {
                items: VecDeque::new(),
                sleepers: Vec::new(),
            }),
            len: AtomicUsize::new(0),
            spinning: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            shut: AtomicBool::new(false),
        }
    }

    fn locked(&self) -> shim::MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item`; wakes a sleeping worker unless one is spinning (it will see the item).
    pub fn push(&self, item: T) {
        let sleeper = {
            let mut inner = self.locked();
            inner.items.push_back(item);
            self.len.store(inner.items.len(), Ordering::SeqCst);
            if self.spinning.load(Ordering::SeqCst) == 0 {
                inner.sleepers.pop()
            } else {
                None
            }
        };
        if let Some(t) = sleeper {
            self.sleeping.fetch_sub(1, Ordering::SeqCst);
            t.unpark();
        }
    }

    /// Items queued now.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::SeqCst)
    }

    /// Whether no item is queued now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether some worker is waiting for an item (spinning or asleep) and will take the next
    /// one pushed.
    pub fn has_idle_worker(&self) -> bool {
        self.spinning.load(Ordering::SeqCst) + self.sleeping.load(Ordering::SeqCst) > 0
    }

    fn try_take(&self, inner: &mut Inner<T>) -> Option<T> {
        let item = inner.items.pop_front()?;
        self.len.store(inner.items.len(), Ordering::SeqCst);
        Some(item)
    }

    /// Worker side: takes the next item, spinning up to `spins` times and then parking while
    /// there is none. With `idle_timeout`, gives up ([`Pop::TimedOut`]) after parking that
    /// long without an item.
    pub fn pop(&self, spins: u32, idle_timeout: Option<Duration>) -> Pop<T> {
        loop {
            if self.len.load(Ordering::Relaxed) > 0 {
                let mut inner = self.locked();
                if let Some(item) = self.try_take(&mut inner) {
                    return Pop::Item(item);
                }
            }
            self.spinning.fetch_add(1, Ordering::SeqCst);
            let mut i = 0;
            while i < spins
                && self.len.load(Ordering::Relaxed) == 0
                && !self.shut.load(Ordering::Relaxed)
            {
                if i % YIELD_EVERY == YIELD_EVERY - 1 {
                    shim::yield_now();
                } else {
                    shim::spin_loop();
                }
                i += 1;
            }
            let me = shim::current();
            {
                let mut inner = self.locked();
                // Decremented under the lock: a producer that reads no spinner after this
                // finds this worker among the sleepers (or its item was taken below).
                self.spinning.fetch_sub(1, Ordering::SeqCst);
                if let Some(item) = self.try_take(&mut inner) {
                    // Others spinning or asleep may be needed for what is left.
                    if !inner.items.is_empty() && self.spinning.load(Ordering::SeqCst) == 0 {
                        if let Some(t) = inner.sleepers.pop() {
                            self.sleeping.fetch_sub(1, Ordering::SeqCst);
                            t.unpark();
                        }
                    }
                    return Pop::Item(item);
                }
                if self.shut.load(Ordering::SeqCst) {
                    return Pop::ShutDown;
                }
                inner.sleepers.push(me.clone());
                self.sleeping.fetch_add(1, Ordering::SeqCst);
            }
            let timed_out = park(idle_timeout);
            let mut inner = self.locked();
            // Still listed: nobody chose this worker (a timeout, a spurious or a stray
            // unpark); taken off the list, it is no longer counted as asleep.
            if let Some(i) = inner.sleepers.iter().position(|t| t.id() == me.id()) {
                inner.sleepers.swap_remove(i);
                self.sleeping.fetch_sub(1, Ordering::SeqCst);
                if timed_out && inner.items.is_empty() {
                    return Pop::TimedOut;
                }
            }
        }
    }

    /// No more workers are wanted: they drain the queue and then exit.
    pub fn shut_down(&self) {
        self.shut.store(true, Ordering::SeqCst);
        let sleepers = std::mem::take(&mut self.locked().sleepers);
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
