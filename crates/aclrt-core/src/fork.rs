//! Fork handlers: one `pthread_atfork` registration that calls the runtime's participants in
//! lock order.
//!
//! A child process made by `fork()` has only the thread that forked; locks other threads held
//! stay held in it. So each participant takes its locks before the fork, the forking thread
//! holds what it took across the fork, the parent releases it, and the child resets its state
//! with it and then releases it. Participants run in [`Rank`] order before the fork and in
//! reverse order after it, whatever order they registered in, so the locks are taken in the
//! order `docs/ARCHITECTURE.md` ("Lock order") gives. Registering is idempotent per rank.

use std::any::Any;
use std::cell::RefCell;
use std::sync::{Once, OnceLock};

/// The participants, in the order their locks are taken.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rank {
    /// `aclInit`/`aclFinalize`'s lifecycle lock (held while a collection starts or stops).
    Lifecycle = 0,
    /// The trace collector's locks.
    Trace = 1,
    /// The observer list and the stream names (leaves).
    Observe = 2,
    /// The installed runtime's lock, a leaf.
    Installed = 3,
    /// The checker's installation slot (taken under the lifecycle lock at `aclInit`).
    Check = 4,
    /// The checker's stack walking (no thread inside the `backtrace` crate at the fork).
    Unwinding = 5,
    /// The writers' gate of device memory (a leaf).
    Writers = 6,
    /// The init and finalize callbacks' list (a leaf, also used before any `aclInit`).
    Callbacks = 7,
}

const RANKS: usize = 8;

/// What one participant does around a fork.
struct Participant {
    /// In the forking thread before the fork: takes the locks (returned, held across it).
    prepare: Box<dyn Fn() -> Box<dyn Any> + Send + Sync>,
    /// In the child after the fork: resets, given what `prepare` took.
    child: Box<dyn Fn(Box<dyn Any>) + Send + Sync>,
}

static PARTICIPANTS: [OnceLock<Participant>; RANKS] = [const { OnceLock::new() }; RANKS];

thread_local! {
    /// What the forking thread holds across `fork()`, in rank order.
    static HELD: RefCell<Vec<(usize, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// Registers a participant at `rank` (once; a later registration at that rank is ignored):
/// `prepare` takes its locks before a fork; in the parent what it took is dropped after the
/// fork, in the child it is handed to `in_child`.
pub(crate) fn watch<Held: 'static>(rank: Rank, prepare: fn() -> Held, in_child: fn(Held)) {
    // Called on paths that run often (a checker's stack capture): after the first time it is
    // one atomic load.
    if PARTICIPANTS[rank as usize].get().is_some() {
        return;
    }
    let _ = PARTICIPANTS[rank as usize].set(Participant {
        prepare: Box::new(move || Box::new(prepare())),
        child: Box::new(move |held| {
            if let Ok(held) = held.downcast::<Held>() {
                in_child(*held);
            }
        }),
    });
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: three plain functions with no preconditions; they run in the forking
        // thread around fork(), as pthread_atfork specifies.
        let rc =
            unsafe { libc::pthread_atfork(Some(prepare_all), Some(parent_all), Some(child_all)) };
        if rc != 0 {
            eprintln!("aclrt: pthread_atfork failed ({rc}): a forked child must not use ACL");
        }
    });
}

extern "C" fn prepare_all() {
    for (rank, p) in PARTICIPANTS.iter().enumerate() {
        if let Some(p) = p.get() {
            let held = (p.prepare)();
            let _ = HELD.try_with(|h| h.borrow_mut().push((rank, held)));
        }
    }
}

extern "C" fn parent_all() {
    let held = HELD.try_with(|h| std::mem::take(&mut *h.borrow_mut()));
    for (_, held) in held.unwrap_or_default().into_iter().rev() {
        drop(held);
    }
}

extern "C" fn child_all() {
    let held = HELD.try_with(|h| std::mem::take(&mut *h.borrow_mut()));
    for (rank, held) in held.unwrap_or_default().into_iter().rev() {
        if let Some(p) = PARTICIPANTS[rank].get() {
            (p.child)(held);
        }
    }
}
