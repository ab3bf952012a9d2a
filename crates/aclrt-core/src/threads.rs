//! Where the emulated device's threads come from.
//!
//! Stream workers are started through a [`ThreadSpawner`], so a runtime can be made with
//! another source of threads: one that refuses (to test how the runtime survives an OS that
//! will not give it a thread), or one that names or pins them.

use std::io;
use std::thread::JoinHandle;

/// Starts the runtime's threads.
pub trait ThreadSpawner: Send + Sync {
    /// Starts `body` on a new thread called `name`; an `Err` means the OS refused.
    fn spawn(&self, name: String, body: Box<dyn FnOnce() + Send>) -> io::Result<JoinHandle<()>>;
}

/// Ordinary OS threads (`std::thread`).
#[derive(Debug, Default, Clone, Copy)]
pub struct OsThreads;

impl ThreadSpawner for OsThreads {
    fn spawn(&self, name: String, body: Box<dyn FnOnce() + Send>) -> io::Result<JoinHandle<()>> {
        std::thread::Builder::new().name(name).spawn(body)
    }
}
