//! The runtime's writers of device memory, and the moves that must not race with them.
//!
//! Exporting an `aclrtMalloc` allocation by key moves its pages into a memory file
//! ([`super::MemoryMap::share_allocation`]): its bytes are copied into the file, then the file
//! is mapped over the pages. A write into the allocation between the copy and the mapping
//! would land in the old pages and be lost. So the runtime's own writers pass a [`Gate`]:
//!
//! - a kernel is *inside* while it runs ([`Gate::enter`], any address);
//! - a copy or set, queued or made on the calling thread (`aclrtMemcpy`, `aclrtMemset`, …), is
//!   inside while it writes its destination ([`Gate::enter_range`]);
//! - host functions and callbacks are the program's host code, not writers: the runtime calls
//!   they make pass the gate themselves.
//!
//! # Invariants
//!
//! 1. A move ([`Gate::exclusive`]) runs only while no writer is inside (the calling thread's
//!    own task, when a kernel exports, does not count), and one move at a time.
//! 2. While a move runs, a writer that would write anywhere (a task) or into the moving pages
//!    (a ranged write) waits at the gate until the move ends, then writes into the shared
//!    pages; a ranged write elsewhere goes on (it cannot touch the pages moved).
//! 3. A task that blocks without writing (a wait on an IPC event, a notify, a value) steps out
//!    of the gate while it sleeps ([`Gate::idle_while`]), so a move never waits for another
//!    process or another stream's progress. (A host kernel may not synchronise, nor export:
//!    those calls are refused inside tasks.) A running host kernel that itself waits for the
//!    exporting thread to go on is the one case a move cannot finish (the device's kernels
//!    never wait for a host thread).
//! 4. No lost wake-up: the counts and `moving` are sequentially consistent (a writer adds
//!    itself to its count, then looks at `moving`; a move sets `moving`, then reads every
//!    count, so at least one of them sees the other), and every sleep and every change that
//!    ends one happen under `slow`, a leaf lock held only for that.
//!
//! The writers inside are counted in [`SHARDS`] counters on their own cache lines, a thread
//! always using the same one, so workers running tasks side by side do not contend on one
//! word; a move sums them. The fast path of a writer is one atomic add and one load on the way
//! in and one subtraction and one load on the way out; the lock is taken only while a move
//! runs.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Counters of the writers inside.
const SHARDS: usize = 32;

/// One counter, alone on its cache line.
type Shard = crate::sync::CachePadded<AtomicUsize>;

/// Writers of runtime memory and moves of its pages (see the module docs).
pub(crate) struct Gate {
    /// Writers inside, by the shard of their thread.
    inside: [Shard; SHARDS],
    /// A move runs (or waits for the writers inside to leave).
    moving: AtomicBool,
    /// The pages `[lo, hi)` the running move moves.
    range: (AtomicUsize, AtomicUsize),
    /// Writers waiting at the gate (for tests and traces).
    waiting: AtomicUsize,
    /// A leaf lock for sleeping (invariant 4).
    slow: Mutex<()>,
    changed: Condvar,
}

thread_local! {
    /// How deep the calling thread is inside the gate (nested writers count once).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The calling thread's counter.
    static SHARD: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS
    };
}

fn my_shard() -> usize {
    SHARD.with(|s| *s)
}

/// Inside the gate while it lives.
pub(crate) struct Writing<'a> {
    gate: &'a Gate,
    /// Left on the thread that entered: its shard and depth are that thread's.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        let outermost = DEPTH.with(|d| {
            let depth = d.get();
            d.set(depth.saturating_sub(1));
            depth == 1
        });
        if outermost {
            self.gate.leave();
        }
    }
}

/// Holds the gate's sleep lock across `fork()` and resets the gate in the child (the writers
/// of the parent's other threads are not there).
pub(crate) fn watch_forks() {
    crate::fork::watch(
        crate::fork::Rank::Writers,
        || gate().sleep_lock(),
        |held| gate().reset_in_child(held),
    );
}

/// The gate of this process's runtimes.
pub(crate) fn gate() -> &'static Gate {
    static GATE: Gate = Gate::new();
    &GATE
}

impl Gate {
    pub(crate) const fn new() -> Self {
        Self {
            inside: [const { crate::sync::CachePadded(AtomicUsize::new(0)) }; SHARDS],
            moving: AtomicBool::new(false),
            range: (AtomicUsize::new(0), AtomicUsize::new(0)),
            waiting: AtomicUsize::new(0),
            slow: Mutex::new(()),
            changed: Condvar::new(),
        }
    }

    fn sleep_lock(&self) -> MutexGuard<'_, ()> {
        self.slow.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, ()>) -> MutexGuard<'a, ()> {
        self.changed.wait(guard).unwrap_or_else(|e| e.into_inner())
    }

    /// Enters as a writer of any address (invariant 2): waits while a move runs.
    pub(crate) fn enter(&self) -> Writing<'_> {
        self.enter_if(|| true)
    }

    /// Enters as a writer of `[start, start + len)`: waits while a move of pages it overlaps
    /// runs.
    pub(crate) fn enter_range(&self, start: usize, len: usize) -> Writing<'_> {
        self.enter_if(|| {
            let lo = self.range.0.load(Ordering::SeqCst);
            let hi = self.range.1.load(Ordering::SeqCst);
            start < hi && lo < start.saturating_add(len)
        })
    }

    /// Enters, waiting while a move runs that `blocks()` says this writer must wait for.
    fn enter_if(&self, blocks: impl Fn() -> bool) -> Writing<'_> {
        let depth = DEPTH.with(|d| d.get());
        if depth > 0 {
            // Nested (a kernel that copies): counted once already.
            DEPTH.with(|d| d.set(depth + 1));
            return Writing {
                gate: self,
                _not_send: std::marker::PhantomData,
            };
        }
        self.join(blocks);
        DEPTH.with(|d| d.set(1));
        Writing {
            gate: self,
            _not_send: std::marker::PhantomData,
        }
    }

    /// Adds this thread to `inside`, after waiting out every move it must not overlap.
    fn join(&self, blocks: impl Fn() -> bool) {
        loop {
            self.inside[my_shard()].0.fetch_add(1, Ordering::SeqCst);
            if !self.moving.load(Ordering::SeqCst) || !blocks() {
                return;
            }
            // A move runs that this writer must not race: step back out and wait for its end.
            self.leave();
            self.waiting.fetch_add(1, Ordering::SeqCst);
            let mut guard = self.sleep_lock();
            while self.moving.load(Ordering::SeqCst) && blocks() {
                guard = self.wait(guard);
            }
            drop(guard);
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn leave(&self) {
        self.inside[my_shard()].0.fetch_sub(1, Ordering::SeqCst);
        if self.moving.load(Ordering::SeqCst) {
            let _guard = self.sleep_lock();
            self.changed.notify_all();
        }
    }

    /// Runs `f` (a task's blocking wait that writes nothing) outside the gate (invariant 3).
    pub(crate) fn idle_while<R>(&self, f: impl FnOnce() -> R) -> R {
        let depth = DEPTH.with(|d| d.replace(0));
        if depth == 0 {
            return f();
        }
        self.leave();
        let out = f();
        self.join(|| true);
        DEPTH.with(|d| d.set(depth));
        out
    }

    /// Runs `f`, the move of the pages `[lo, hi)`, once no writer is inside; writers that
    /// arrive meanwhile wait for its end (invariants 1 and 2).
    pub(crate) fn exclusive<R>(&self, lo: usize, hi: usize, f: impl FnOnce() -> R) -> R {
        crate::sync::order::assert_none_held("moving memory while writers run");
        let depth = DEPTH.with(|d| d.replace(0));
        if depth > 0 {
            self.leave();
        }
        let mut guard = self.sleep_lock();
        while self.moving.load(Ordering::SeqCst) {
            guard = self.wait(guard);
        }
        self.range.0.store(lo, Ordering::SeqCst);
        self.range.1.store(hi, Ordering::SeqCst);
        self.moving.store(true, Ordering::SeqCst);
        while self.count_inside() > 0 {
            guard = self.wait(guard);
        }
        drop(guard);
        /// Ends the move even if `f` unwinds.
        struct End<'a>(&'a Gate);
        impl Drop for End<'_> {
            fn drop(&mut self) {
                let _guard = self.0.sleep_lock();
                self.0.moving.store(false, Ordering::SeqCst);
                self.0.range.0.store(0, Ordering::SeqCst);
                self.0.range.1.store(0, Ordering::SeqCst);
                self.0.changed.notify_all();
            }
        }
        let out = {
            let _end = End(self);
            f()
        };
        if depth > 0 {
            self.join(|| true);
            DEPTH.with(|d| d.set(depth));
        }
        out
    }

    /// Writers inside now.
    fn count_inside(&self) -> usize {
        self.inside.iter().map(|s| s.0.load(Ordering::SeqCst)).sum()
    }

    /// In a child made by `fork()`: only the forking thread is left, so only it can be inside,
    /// and no move runs (`_held` is the sleep lock, held across the fork).
    fn reset_in_child(&self, _held: MutexGuard<'_, ()>) {
        let depth = DEPTH.with(|d| d.get());
        for s in &self.inside {
            s.0.store(0, Ordering::SeqCst);
        }
        self.inside[my_shard()]
            .0
            .store(usize::from(depth > 0), Ordering::SeqCst);
        self.moving.store(false, Ordering::SeqCst);
        self.range.0.store(0, Ordering::SeqCst);
        self.range.1.store(0, Ordering::SeqCst);
        self.waiting.store(0, Ordering::SeqCst);
    }

    /// Writers waiting at the gate now.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc;
    use std::sync::Arc;

    fn leaked() -> &'static Gate {
        Box::leak(Box::new(Gate::new()))
    }

    #[test]
    fn a_move_waits_for_the_writers_inside_and_later_writers_wait_for_the_move() {
        let gate = leaked();
        let moved = Arc::new(AtomicBool::new(false));
        // A writer is inside (a running kernel).
        let (leave_tx, leave_rx) = mpsc::channel::<()>();
        let (inside_tx, inside_rx) = mpsc::channel::<()>();
        let writer = std::thread::spawn(move || {
            let _w = gate.enter();
            inside_tx.send(()).unwrap();
            leave_rx.recv().unwrap();
        });
        inside_rx.recv().unwrap();
        // The move starts and waits for it.
        let (hold_tx, hold_rx) = mpsc::channel::<()>();
        let m = moved.clone();
        let mover = std::thread::spawn(move || {
            gate.exclusive(0x1000, 0x3000, || {
                m.store(true, Ordering::SeqCst);
                hold_rx.recv().unwrap();
            })
        });
        while !gate.moving.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        assert!(
            !moved.load(Ordering::SeqCst),
            "moved while a writer was inside"
        );
        leave_tx.send(()).unwrap();
        writer.join().unwrap();
        while !moved.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // During the move: a task and a copy into the moving pages wait; a copy elsewhere
        // goes on.
        let elsewhere = gate.enter_range(0x8000, 16);
        drop(elsewhere);
        let wrote = Arc::new(AtomicUsize::new(0));
        let spawn_writer = |ranged: bool| {
            let wrote = wrote.clone();
            std::thread::spawn(move || {
                let _w = if ranged {
                    gate.enter_range(0x2ff0, 64)
                } else {
                    gate.enter()
                };
                wrote.fetch_add(1, Ordering::SeqCst);
            })
        };
        let (a, b) = (spawn_writer(false), spawn_writer(true));
        while gate.waiting() < 2 {
            std::thread::yield_now();
        }
        assert_eq!(wrote.load(Ordering::SeqCst), 0, "wrote during the move");
        hold_tx.send(()).unwrap();
        mover.join().unwrap();
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(wrote.load(Ordering::SeqCst), 2);
        assert_eq!(gate.count_inside(), 0);
    }

    #[test]
    fn a_writer_that_moves_or_sleeps_does_not_wait_for_itself() {
        let gate = leaked();
        let _w = gate.enter();
        // A kernel that exports: its own task does not hold the move up, and it is inside
        // again afterwards.
        assert_eq!(gate.exclusive(0, 4096, || 7), 7);
        assert_eq!(gate.count_inside(), 1);
        // A wait inside a task steps out: a move on another thread runs meanwhile.
        let ran = gate.idle_while(|| {
            assert_eq!(gate.count_inside(), 0);
            std::thread::spawn(move || gate.exclusive(0, 4096, || true))
                .join()
                .unwrap()
        });
        assert!(ran);
        assert_eq!(gate.count_inside(), 1);
        // Nested writers count once.
        let nested = gate.enter_range(0, 1);
        assert_eq!(gate.count_inside(), 1);
        drop(nested);
        assert_eq!(gate.count_inside(), 1);
    }
}
