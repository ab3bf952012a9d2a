//! What is known about a task without running it: its kind, name, the memory it touches, who
//! submitted it, and the shapes of user code. Tools (observers) and the model share these; the
//! work itself (`task.rs`) is the model's.

use std::sync::Arc;

use crate::error::AclError;

/// What kind of work a task is; also what a trace shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskKind {
    /// A host kernel (user closure).
    Kernel,
    /// `aclrtMemcpyAsync`.
    Memcpy,
    /// `aclrtMemsetAsync`.
    Memset,
    /// An event record.
    Record,
    /// A stream wait on an event.
    Wait,
    /// An event reset.
    Reset,
    /// A host callback delivered to a subscribed thread.
    Callback,
    /// A host function run on a runtime thread.
    HostFunc,
    /// An implicit wait for another stream (CUDA legacy default stream).
    StreamWait,
}

/// A byte range of memory a task reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemRange {
    /// First byte.
    pub start: usize,
    /// Length in bytes.
    pub len: usize,
}

/// What is known about a task for tools (traces, the race checker): who submitted it, what it
/// is called and which memory it touches. Observers are told it at submission; the queued task
/// keeps only the submitting thread (for a failure's report).
#[derive(Debug, Clone, Default)]
pub struct TaskMeta {
    /// Kernel name, where given.
    pub name: Option<Arc<str>>,
    /// Memory the task reads.
    pub reads: Vec<MemRange>,
    /// Memory the task writes.
    pub writes: Vec<MemRange>,
    /// OS thread id (`gettid`) of the submitting thread.
    pub submitter_thread: u32,
    /// The event a record, wait or reset refers to (raw handle).
    pub event: Option<u64>,
}

/// A host kernel: returns `Err(code)` to fail the task with that `aclError`.
pub type KernelFn = Box<dyn FnOnce() -> Result<(), AclError> + Send>;
/// A host function or callback body.
pub type HostFn = Box<dyn FnOnce() + Send>;
