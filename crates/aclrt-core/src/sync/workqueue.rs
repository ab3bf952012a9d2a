//! The queue between a stream's submitters and its worker: producers push without waiting,
//! the one consumer takes batches and parks when there is nothing to take.
//!
//! This is the code the stream worker runs (`stream.rs`), built on the `loom`-swappable shims,
//! so `tests/loom_workqueue.rs` model-checks the real protocol: every pushed item is taken,
//! the consumer is started once, and a parked consumer is always woken by the push that needs
//! it ([`Doorbell`]).
//!
//! # Invariants
//! - Items are taken in push order (producers that must agree on an order, such as task ids,
//!   serialise their pushes themselves).
//! - [`WorkQueue::push`] tells exactly one producer to start the consumer, the first one.
//! - After [`WorkQueue::close`], the consumer's [`WorkQueue::take`] returns `false` once the
//!   queue is empty, and never before.

use std::collections::VecDeque;

use super::shim::{self, AtomicBool, Ordering, Thread};
use super::{Doorbell, Ring};

#[cfg(not(loom))]
type Items<T> = crossbeam_queue::SegQueue<T>;

/// Under the model checker a plain locked deque stands in for the lock-free queue (loom cannot
/// see inside crossbeam's atomics); the protocol around it is the same code.
#[cfg(loom)]
struct Items<T>(loom::sync::Mutex<VecDeque<T>>);

#[cfg(loom)]
impl<T> Items<T> {
    fn new() -> Self {
        Self(loom::sync::Mutex::new(VecDeque::new()))
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
}

/// Where the consumer thread is registered: set once, read by every wake-up, so reads must be
/// free (a `OnceLock`); under the model checker a mutex stands in.
#[cfg(not(loom))]
#[derive(Default)]
struct ConsumerSlot(std::sync::OnceLock<Thread>);

#[cfg(not(loom))]
impl ConsumerSlot {
    fn set(&self, thread: Thread) {
        let _ = self.0.set(thread);
    }
    fn get(&self) -> Option<Thread> {
        self.0.get().cloned()
    }
}

#[cfg(loom)]
#[derive(Default)]
struct ConsumerSlot(loom::sync::Mutex<Option<Thread>>);

#[cfg(loom)]
impl ConsumerSlot {
    fn set(&self, thread: Thread) {
        self.0.lock().unwrap().get_or_insert(thread);
    }
    fn get(&self) -> Option<Thread> {
        self.0.lock().unwrap().clone()
    }
}

/// Spins the consumer makes looking for new work before it parks.
#[cfg(not(loom))]
const IDLE_SPINS: u32 = 1_024;
/// Under the model checker a couple of spins keep the path covered.
#[cfg(loom)]
const IDLE_SPINS: u32 = 2;
/// Every this many idle spins the consumer yields its core, so a producer sharing the core can
/// run.
const YIELD_EVERY: u32 = 16;

/// A multi-producer, single-consumer queue with a parking consumer.
pub struct WorkQueue<T> {
    items: Items<T>,
    closed: AtomicBool,
    doorbell: Doorbell,
    /// The consumer thread, registered before it can ever sleep.
    consumer: ConsumerSlot,
}

impl<T> Default for WorkQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> WorkQueue<T> {
    /// An empty, open queue whose consumer has not been started.
    pub fn new() -> Self {
        Self {
            items: Items::new(),
            closed: AtomicBool::new(false),
            doorbell: Doorbell::new(),
            consumer: ConsumerSlot::default(),
        }
    }

    /// Producer side: queues `item`. Follow with [`WorkQueue::notify`] (a producer may push
    /// several items under its own lock and notify once, outside it).
    pub fn push(&self, item: T) {
        self.items.push(item);
    }

    /// Producer side, after pushing: wakes a parked consumer, and says whether the consumer must
    /// be started (this caller alone is told [`Ring::Start`]).
    pub fn notify(&self) -> Ring {
        match self.doorbell.ring() {
            Ring::Unpark => {
                self.wake();
                Ring::Unpark
            }
            other => other,
        }
    }

    /// Producer side, after [`Ring::Start`]: the consumer could not be started. The caller
    /// takes everything queued (with [`WorkQueue::try_pop`]) and calls this; `true` means more
    /// was pushed meanwhile and the caller holds the start duty again.
    pub fn give_up_start(&self) -> bool {
        self.doorbell.give_up_start();
        !self.items.is_empty() && self.doorbell.ring() == Ring::Start
    }

    /// Takes one item without waiting (for a producer that could not start the consumer).
    pub fn try_pop(&self) -> Option<T> {
        self.items.pop()
    }

    /// Whether nothing is queued now.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// No more items will be pushed; the consumer drains what is queued and stops.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Whether [`WorkQueue::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Unparks the consumer so it looks at its queue (and at whatever `stop` condition it was
    /// given) again.
    pub fn wake(&self) {
        if let Some(t) = self.consumer.get() {
            t.unpark();
        }
    }

    /// Consumer side, once, before the first [`WorkQueue::take`]: registers the calling thread
    /// as the one to wake. Nothing needs to wake the consumer before it can park (the doorbell
    /// says `Unpark` only to a consumer that announced it would sleep), so a consumer started
    /// by a producer registers itself.
    pub fn register_current_consumer(&self) {
        self.consumer.set(shim::current());
    }

    /// Consumer side: moves up to `max` items into `batch` (empty on entry), parking while there
    /// are none; returns `false` once the queue is closed and drained. `wake_early` cuts the
    /// idle spin short (the caller has something else to look at, e.g. an abort); it is checked
    /// only while spinning, so an abort must also [`WorkQueue::wake`] the consumer.
    pub fn take(&self, batch: &mut VecDeque<T>, max: usize, wake_early: impl Fn() -> bool) -> bool {
        loop {
            while batch.len() < max {
                match self.items.pop() {
                    Some(item) => batch.push_back(item),
                    None => break,
                }
            }
            if !batch.is_empty() {
                return true;
            }
            // `closed` is set after the last push, so once it reads true an empty queue is
            // final.
            if self.closed.load(Ordering::SeqCst) && self.items.is_empty() {
                self.doorbell.exit();
                return false;
            }
            let mut spins = 0;
            while spins < IDLE_SPINS
                && self.items.is_empty()
                && !self.closed.load(Ordering::Relaxed)
                && !wake_early()
            {
                if spins % YIELD_EVERY == YIELD_EVERY - 1 {
                    shim::yield_now();
                } else {
                    shim::spin_loop();
                }
                spins += 1;
            }
            if self
                .doorbell
                .prepare_to_park(|| !self.items.is_empty() || self.closed.load(Ordering::SeqCst))
            {
                shim::park();
            }
            // Awake (by a producer, a close, a wake, or spuriously): look again.
            self.doorbell.awake();
        }
    }
}
