//! Fork handlers: one `pthread_atfork` registration that calls the runtime's participants in
//! lock order.
//!
//! A child process made by `fork()` has only the thread that forked; locks other threads held
//! stay held in it. So each participant takes its locks before the fork (keeping the guards in
//! its own thread-local), releases them in the parent and resets its state in the child.
//! Participants run in [`Rank`] order before the fork and in reverse order after it, whatever
//! order they registered in, so the locks are taken in the order `docs/ARCHITECTURE.md`
//! ("Lock order") gives. Registering is idempotent per rank.

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
}

/// What one participant does around a fork.
pub(crate) struct Participant {
    /// In the forking thread before the fork: take the locks.
    pub(crate) prepare: fn(),
    /// In the parent after the fork: release them.
    pub(crate) parent: fn(),
    /// In the child after the fork: reset, then release.
    pub(crate) child: fn(),
}

static PARTICIPANTS: [OnceLock<Participant>; 6] = [const { OnceLock::new() }; 6];

/// Registers `participant` at `rank` (once; a second registration at that rank is ignored).
pub(crate) fn watch(rank: Rank, participant: Participant) {
    let _ = PARTICIPANTS[rank as usize].set(participant);
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: three plain functions with no preconditions; they run in the forking
        // thread around fork(), as pthread_atfork specifies.
        let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
        if rc != 0 {
            eprintln!("aclrt: pthread_atfork failed ({rc}): a forked child must not use ACL");
        }
    });
}

extern "C" fn prepare() {
    for p in PARTICIPANTS.iter().filter_map(OnceLock::get) {
        (p.prepare)();
    }
}

extern "C" fn parent() {
    for p in PARTICIPANTS.iter().rev().filter_map(OnceLock::get) {
        (p.parent)();
    }
}

extern "C" fn child() {
    for p in PARTICIPANTS.iter().rev().filter_map(OnceLock::get) {
        (p.child)();
    }
}
