//! The IPC memory state of one runtime: allocations this process exported by key, and the
//! imports it mapped (the calls are `api/ipc_mem.rs`).
//!
//! # Invariants
//!
//! 1. An import's memory is released (its pages restored to private zero pages, its range
//!    given back, the exporter's file closed here) when its last user goes: the program, at
//!    `aclrtIpcMemClose`, and the work of every stream queued before that close. Between the
//!    two the import is *retired*: runtime calls refuse the range, but its pages still show the
//!    shared bytes to the work queued before.
//! 2. At most [`RETIRED_LIMIT`] imports are retired at once: a close beyond that unmaps the
//!    oldest retired import's shared pages and closes its file even though work queued before
//!    its close may still be pending (that work then reads zeros and writes into private
//!    pages, never faulting: the range stays mapped, the memory map's invariant 1). Its range
//!    stays reserved, *quarantined*, until that work has run, so no later allocation or
//!    import is placed where the stale work still writes. So repeated imports and closes hold
//!    a bounded number of mappings and files whatever the streams do; only address ranges wait.
//! 3. Retired and quarantined imports are looked at, and released when their work has run,
//!    at every import, close and finalize.

use std::collections::{HashMap, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

use crate::exec::Progress;

/// The most closed imports kept mapped for work queued before their close (invariant 2).
pub(crate) const RETIRED_LIMIT: usize = 16;

/// An allocation of this process exported by key.
pub(crate) struct Export {
    /// The allocation's base.
    pub(crate) base: usize,
    pub(crate) file: OwnedFd,
    /// Pids on the whitelist.
    pub(crate) pids: usize,
}

/// Another process's allocation mapped here by key.
pub(crate) struct Import {
    /// The range reserved for the mapping and its memory-map serial.
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) serial: u64,
    /// Keeps the exporter's file open while mapped (the mapping alone would too).
    pub(crate) _file: OwnedFd,
}

/// A closed import kept for the work queued before its close (invariant 1).
pub(crate) struct Retired {
    pub(crate) import: Import,
    /// For each stream that had work pending at the close: its progress, and how many of its
    /// tasks had been submitted then.
    pub(crate) marks: Vec<(Arc<Progress>, u64)>,
}

impl Retired {
    /// Whether every task queued before the close has run (or was discarded).
    pub(crate) fn work_done(&self) -> bool {
        work_done(&self.marks)
    }
}

/// A retired import unmapped before its work ran: only its range is kept (invariant 2).
pub(crate) struct Quarantined {
    pub(crate) start: usize,
    pub(crate) marks: Vec<(Arc<Progress>, u64)>,
}

impl Quarantined {
    /// Whether every task queued before the close has run (or was discarded).
    pub(crate) fn work_done(&self) -> bool {
        work_done(&self.marks)
    }
}

fn work_done(marks: &[(Arc<Progress>, u64)]) -> bool {
    marks.iter().all(|(p, until)| p.retired() >= *until)
}

#[derive(Default)]
/// Exports and imports by key.
pub(crate) struct IpcState {
    pub(crate) exports: HashMap<String, Export>,
    pub(crate) imports: HashMap<String, Import>,
    /// Closed imports whose pages still show the shared bytes, oldest first (invariants 1-2).
    pub(crate) retired: VecDeque<Retired>,
    /// Ranges of retired imports unmapped early, kept until their work has run (invariant 2).
    pub(crate) quarantined: Vec<Quarantined>,
}

/// IPC memory of one runtime.
#[derive(Default)]
pub(crate) struct Ipc {
    pub(crate) state: Mutex<IpcState>,
}
