//! Per-thread state: the current context, the last error and the recent error message.
//!
//! ACL keeps these per calling thread; so does the core, so every face (C, Python) reports the
//! same values for the same thread.

use std::cell::{Cell, RefCell};

use crate::error::{AclError, Error};
use crate::handle::{ContextHandle, StreamHandle};

thread_local! {
    /// The current context, with the serial of the runtime instance it belongs to.
    static CURRENT_CONTEXT: Cell<Option<(u64, ContextHandle)>> = const { Cell::new(None) };
    static LAST_ERROR: Cell<AclError> = const { Cell::new(0) };
    static RECENT_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
    static IN_CALLBACK: Cell<u32> = const { Cell::new(0) };
    /// The stream whose core limits the thread uses (`aclrtUseStreamResInCurrentThread`), with
    /// the serial of the runtime instance it belongs to.
    static RES_LIMIT_STREAM: Cell<Option<(u64, StreamHandle)>> = const { Cell::new(None) };
    /// The id of the last task the thread queued, on any stream (`aclrtGetThreadLastTaskId`).
    static LAST_TASK_ID: Cell<u32> = const { Cell::new(0) };
}

// Every access goes through `try_with`: runtime calls made from a thread-local's destructor
// (a C++ `thread_local` object that destroys a stream, a report thread's exit) run while this
// thread's own state may already be gone, where `with` would panic and abort the process.

/// Notes the id of a task the calling thread queued. Task ids count per stream; the vendor's
/// are 32 bits wide, and so is what is kept.
pub(crate) fn note_task_queued(id: u64) {
    let _ = LAST_TASK_ID.try_with(|c| c.set(id as u32));
}

/// The id of the last task the calling thread queued (0 before its first).
pub(crate) fn last_task_id() -> u32 {
    LAST_TASK_ID.try_with(Cell::get).unwrap_or(0)
}

/// The calling thread's current context in runtime instance `serial`.
pub(crate) fn current_context(serial: u64) -> Option<ContextHandle> {
    CURRENT_CONTEXT
        .try_with(Cell::get)
        .ok()
        .flatten()
        .filter(|(s, _)| *s == serial)
        .map(|(_, ctx)| ctx)
}

pub(crate) fn set_current_context(serial: u64, ctx: Option<ContextHandle>) {
    let _ = CURRENT_CONTEXT.try_with(|c| c.set(ctx.map(|ctx| (serial, ctx))));
}

/// The stream whose core limits the calling thread uses in runtime instance `serial`.
pub(crate) fn res_limit_stream(serial: u64) -> Option<StreamHandle> {
    RES_LIMIT_STREAM
        .try_with(Cell::get)
        .ok()
        .flatten()
        .filter(|(s, _)| *s == serial)
        .map(|(_, stream)| stream)
}

pub(crate) fn set_res_limit_stream(serial: u64, stream: Option<StreamHandle>) {
    let _ = RES_LIMIT_STREAM.try_with(|c| c.set(stream.map(|stream| (serial, stream))));
}

/// Notes a failed call for `aclrtGetLastError` and `aclGetRecentErrMsg`.
pub(crate) fn note_failure(error: &Error) {
    let _ = LAST_ERROR.try_with(|c| c.set(error.code()));
    let _ = RECENT_MESSAGE.try_with(|m| *m.borrow_mut() = Some(error.to_string()));
}

/// `aclGetRecentErrMsg`: the calling thread's latest message, cleared by reading it.
pub fn take_recent_message() -> Option<String> {
    RECENT_MESSAGE
        .try_with(|m| m.borrow_mut().take())
        .ok()
        .flatten()
}

/// `aclrtPeekAtLastError`: the calling thread's last error, left in place.
pub fn peek_last_error() -> AclError {
    LAST_ERROR.try_with(Cell::get).unwrap_or(0)
}

/// `aclrtGetLastError`: the calling thread's last error, cleared.
pub fn take_last_error() -> AclError {
    LAST_ERROR.try_with(|c| c.replace(0)).unwrap_or(0)
}

/// Whether the calling thread is running a callback, host function or host kernel, where
/// blocking runtime calls would deadlock the stream that runs it.
pub(crate) fn in_callback() -> bool {
    IN_CALLBACK.try_with(Cell::get).unwrap_or(0) > 0
}

/// Marks the calling thread as running user code on behalf of a stream until dropped.
pub(crate) struct CallbackScope(());

impl CallbackScope {
    pub(crate) fn enter() -> Self {
        // User code may call back into the runtime and need any of its locks.
        crate::sync::order::assert_none_held("running user code");
        let _ = IN_CALLBACK.try_with(|c| c.set(c.get() + 1));
        CallbackScope(())
    }
}

impl Drop for CallbackScope {
    fn drop(&mut self) {
        let _ = IN_CALLBACK.try_with(|c| c.set(c.get() - 1));
    }
}

/// The OS thread id (`gettid`) of the calling thread.
pub fn os_thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    (unsafe { libc::syscall(libc::SYS_gettid) }) as u32
}

/// The `pthread_self()` value of the calling thread: the id `aclrtSubscribeReport` takes.
pub fn pthread_id() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    (unsafe { libc::pthread_self() }) as u64
}
