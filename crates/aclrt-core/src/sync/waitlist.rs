use std::sync::Arc;
use std::time::Instant;

use super::shim::{self, AtomicU64, AtomicUsize, Mutex, Ordering, Thread};

/// What a suspended waiter leaves in a [`WaitList`] instead of a parked thread: called once,
/// with no lock of the list held, when a producer reaches its key (see [`WaitList::wake_when`]).
/// It must be quick and must not block: it only hands the waiter back to whoever runs it.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A registered waiter: a parked thread (which removes itself when it returns) or a waker
/// (which the producer that reaches it removes and calls).
enum Waiter {
    Thread(Thread),
    Call(u64, Waker),
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Waiter::Thread(t) => write!(f, "Thread({:?})", t.id()),
            Waiter::Call(id, _) => write!(f, "Call({id})"),
        }
    }
}

/// Tells wakers of one list apart, so a waiter can withdraw its own.
static NEXT_WAKER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// How a thread waits before it parks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpinPolicy {
    /// Spin a short, bounded while, then sleep. The default for every wait.
    Brief,
    /// Never sleep: spin (yielding the core) until the condition holds or the deadline passes.
    /// Used by `ACL_STREAM_FAST_SYNC` streams.
    Always,
}

/// Spins before parking: long enough to catch a wake-up from a task that is about to finish,
/// short enough that an idle wait costs nothing measurable.
#[cfg(not(loom))]
const BRIEF_SPINS: u32 = 512;
/// Every this many spins the waiter yields its core instead: when threads outnumber cores the
/// thread that will make the condition true may be queued behind the spinner on the same core,
/// and a pure spin would hold it off for a whole time slice.
const YIELD_EVERY: u32 = 16;
/// The first spins never yield: a yield hands the core to any runnable thread, often another
/// process's, which costs microseconds when the completing thread runs on the other core.
const PURE_SPINS: u32 = 64;
/// Under the model checker every spin is a scheduling point: a couple keep the spin path
/// covered without multiplying the interleavings to explore.
#[cfg(loom)]
const BRIEF_SPINS: u32 = 2;

/// A list of parked threads waiting for some condition owned by the caller.
///
/// # Protocol
/// The condition is always a plain atomic load done by the waiter; the producer makes the
/// condition true with a `SeqCst` store *before* calling [`WaitList::wake_all`]. A waiter
/// announces itself (`waiting += 1`, `SeqCst`) before its last check of the condition. One of the
/// two therefore sees the other: either the producer sees `waiting > 0` and unparks every
/// registered thread, or the waiter's check sees the condition already true. A thread is pushed
/// onto `threads` under the lock before that check, so a producer that takes the lock afterwards
/// always finds it; unpark tokens make an unpark that races ahead of `park` harmless.
///
/// A waiter that must not block (a stream suspended on a pooled worker) registers a [`Waker`]
/// instead, by the same protocol ([`WaitList::wake_when`]): announced and listed before its
/// last check, so a producer either finds it (and calls it, exactly once, after releasing the
/// list's lock) or the check sees the condition. When the check sees it, the waiter withdraws
/// its waker; if a producer already took it, the waker still runs once, and the caller's own
/// state decides which of the two resumes the waiter (`sync::RunState`).
#[derive(Debug)]
pub struct WaitList {
    waiting: AtomicUsize,
    /// The smallest key among registered waiters (`u64::MAX` when none); lets a producer skip
    /// the lock and the wake-ups while no waiter's key has been reached.
    min_key: AtomicU64,
    threads: Mutex<Vec<(Waiter, u64)>>,
}

impl Default for WaitList {
    fn default() -> Self {
        Self {
            waiting: AtomicUsize::new(0),
            min_key: AtomicU64::new(u64::MAX),
            threads: Mutex::new(Vec::new()),
        }
    }
}

impl WaitList {
    /// An empty wait list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wakes every thread waiting now. Call after making the condition true.
    pub fn wake_all(&self) {
        self.wake_reached(u64::MAX);
    }

    /// Wakes the waiters whose key is at most `reached` (see [`WaitList::wait_until_key`]).
    /// Call after making their condition true.
    pub fn wake_reached(&self, reached: u64) {
        // Pairs with the fence in `park_until`: of the two fences, the later one sees the other
        // side's write (condition or `waiting`). SeqCst loads and stores alone would also do in
        // the language model, but the fence states the pairing explicitly and is what the
        // model checker verifies (it treats SeqCst accesses as acquire/release).
        shim::fence(Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) == 0 || self.min_key.load(Ordering::SeqCst) > reached
        {
            return;
        }
        let mut due: Vec<Waker> = Vec::new();
        {
            let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
            let before = threads.len();
            threads.retain(|(w, key)| match w {
                Waiter::Thread(t) => {
                    if *key <= reached {
                        t.unpark();
                    }
                    true
                }
                Waiter::Call(_, waker) => {
                    if *key <= reached {
                        due.push(waker.clone());
                        false
                    } else {
                        true
                    }
                }
            });
            if threads.len() != before {
                let min = threads.iter().map(|(_, k)| *k).min().unwrap_or(u64::MAX);
                self.min_key.store(min, Ordering::SeqCst);
                self.waiting
                    .fetch_sub(before - threads.len(), Ordering::SeqCst);
            }
        }
        // Called outside the list's lock: a waker schedules its waiter, which may take other
        // (internal, leaf) locks.
        for waker in due {
            waker();
        }
    }

    /// Registers `waker` to be called once [`WaitList::wake_reached`] reaches `key` (0 for any
    /// wake-up), unless `ready()` already holds. Returns `true` if the waker is left
    /// registered; `false` if `ready()` held on the check made after registering, in which
    /// case the waker was withdrawn, or, if a producer took it first, will still be called
    /// once. Never blocks.
    pub fn wake_when(&self, ready: impl Fn() -> bool, key: u64, waker: Waker) -> bool {
        if ready() {
            return false;
        }
        let id = NEXT_WAKER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.waiting.fetch_add(1, Ordering::SeqCst);
        {
            let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
            threads.push((Waiter::Call(id, waker), key));
            self.min_key.fetch_min(key, Ordering::SeqCst);
        }
        // Pairs with the producer's fence in `wake_reached`, as in `park_until`.
        shim::fence(Ordering::SeqCst);
        if !ready() {
            return true;
        }
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = threads
            .iter()
            .position(|(w, _)| matches!(w, Waiter::Call(mine, _) if *mine == id))
        {
            threads.swap_remove(i);
            let min = threads.iter().map(|(_, k)| *k).min().unwrap_or(u64::MAX);
            self.min_key.store(min, Ordering::SeqCst);
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        false
    }

    /// Blocks until `ready()` returns true or `deadline` passes; returns whether `ready()` held.
    ///
    /// `ready` must be cheap and side-effect free; it may be called many times.
    pub fn wait_until(
        &self,
        ready: impl Fn() -> bool,
        deadline: Option<Instant>,
        spin: SpinPolicy,
    ) -> bool {
        self.wait_until_key(ready, deadline, spin, 0)
    }

    /// As [`WaitList::wait_until`], for a waiter that only [`WaitList::wake_reached`] calls
    /// with a value of at least `key` can satisfy (a progress counter reaching a target): other
    /// wake-ups pass it by instead of waking it to re-check.
    pub fn wait_until_key(
        &self,
        ready: impl Fn() -> bool,
        deadline: Option<Instant>,
        spin: SpinPolicy,
        key: u64,
    ) -> bool {
        // Whatever is waited for may need any runtime lock to happen.
        super::order::assert_none_held("blocking in a wait list");
        if ready() {
            return true;
        }
        match spin {
            SpinPolicy::Brief => {
                for i in 0..BRIEF_SPINS {
                    if i >= PURE_SPINS && i % YIELD_EVERY == YIELD_EVERY - 1 {
                        shim::yield_now();
                    } else {
                        shim::spin_loop();
                    }
                    if ready() {
                        return true;
                    }
                }
            }
            SpinPolicy::Always => loop {
                if ready() {
                    return true;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return false;
                }
                shim::yield_now();
            },
        }
        self.park_until(ready, deadline, key)
    }

    fn park_until(&self, ready: impl Fn() -> bool, deadline: Option<Instant>, key: u64) -> bool {
        let me = shim::current();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        {
            // Registered (thread and key) before the fence: a producer whose fence comes later
            // sees both, and one that finds this thread absent from the list unlocked it
            // before the push, so the check below sees its condition.
            let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
            threads.push((Waiter::Thread(me.clone()), key));
            self.min_key.fetch_min(key, Ordering::SeqCst);
        }
        shim::fence(Ordering::SeqCst);
        let satisfied = loop {
            if ready() {
                break true;
            }
            match deadline {
                None => shim::park(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break ready();
                    }
                    shim::park_timeout(d - now);
                }
            }
        };
        {
            let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = threads
                .iter()
                .position(|(w, _)| matches!(w, Waiter::Thread(t) if t.id() == me.id()))
            {
                threads.swap_remove(i);
            }
            let min = threads.iter().map(|(_, k)| *k).min().unwrap_or(u64::MAX);
            self.min_key.store(min, Ordering::SeqCst);
        }
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        satisfied
    }
}
