//! The IPC memory state of one runtime: allocations this process exported by key, and the
//! imports it mapped (the calls are `api/ipc_mem.rs`).

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::Mutex;

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

#[derive(Default)]
/// Exports and imports by key.
pub(crate) struct IpcState {
    pub(crate) exports: HashMap<String, Export>,
    pub(crate) imports: HashMap<String, Import>,
    /// Closed imports whose pages still show the shared bytes, for work queued before the
    /// close; they go once every stream is idle.
    pub(crate) retired: Vec<Import>,
}

/// IPC memory of one runtime.
#[derive(Default)]
pub(crate) struct Ipc {
    pub(crate) state: Mutex<IpcState>,
}
