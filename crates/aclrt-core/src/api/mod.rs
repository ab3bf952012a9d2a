//! The validated front: one function per ACL call, in ACL's terms.
//!
//! Each function checks its arguments in the contract's order (initialised → handles →
//! current context → the operation's own rules), then hands the work to the runtime objects.
//! Every failure is also noted for the calling thread (`aclrtGetLastError`,
//! `aclGetRecentErrMsg`). NULL out-pointers do not exist here: the C and Python faces check
//! them (after [`ensure_initialized`]) before calling in.

mod callback;
mod device;
mod event;
mod memory;
mod not_supported;
mod stream;

pub use callback::*;
pub use device::*;
pub use event::*;
pub use memory::*;
pub use not_supported::not_supported;
pub use stream::*;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::codes::*;
use crate::context::Context;
use crate::error::{err, Error, Result};
use crate::event::Event;
use crate::handle::{EventHandle, StreamHandle};
use crate::runtime::RUNTIME;
use crate::stream::{Failure, Stream};
use crate::thread_state::{self, in_callback};
use crate::trace;

/// Runs an API body and notes its failure, if any, for the calling thread.
pub(crate) fn call<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    let result = body();
    if let Err(e) = &result {
        thread_state::note_failure(e);
    }
    result
}

/// The calling thread's OS id, for task metadata. Cached per thread: `gettid` is a system call,
/// and it was the largest single cost of enqueueing a task.
pub(crate) fn os_thread_id() -> u32 {
    thread_local! {
        static TID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    TID.with(|c| {
        if c.get() == 0 {
            c.set(thread_state::os_thread_id());
        }
        c.get()
    })
}

/// Notes a failure detected by a face (e.g. a NULL pointer) for the calling thread and returns
/// it, so faces report errors exactly as the core does.
pub fn fail(code: i32, message: impl Into<String>) -> Error {
    let e = Error::new(code, message);
    thread_state::note_failure(&e);
    e
}

/// `ACL_ERROR_UNINITIALIZE` unless `aclInit` has been called; faces call this before their own
/// NULL checks so the check order holds.
pub fn ensure_initialized() -> Result<()> {
    call(initialized)
}

pub(crate) fn initialized() -> Result<()> {
    if RUNTIME.is_initialized() {
        Ok(())
    } else {
        err(
            ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called (or aclFinalize has)",
        )
    }
}

pub(crate) fn not_in_callback(call: &str) -> Result<()> {
    if in_callback() {
        err(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "{call} must not be called from a callback, host function or host kernel: \
                 it would wait on (or queue behind) the stream that is running it"
            ),
        )
    } else {
        Ok(())
    }
}

/// The calling thread's current context.
pub(crate) fn current_context() -> Result<Arc<Context>> {
    let Some(handle) = thread_state::current_context() else {
        return err(
            ACL_ERROR_RT_CONTEXT_NULL,
            "no current context: call aclrtSetDevice or aclrtSetCurrentContext on this thread first",
        );
    };
    match RUNTIME.contexts.get(handle.as_raw()) {
        Some(ctx) if !ctx.is_destroyed() => Ok(ctx),
        _ => err(
            ACL_ERROR_RT_CONTEXT_NULL,
            "the current context has been destroyed (context destroyed or device reset)",
        ),
    }
}

/// Looks a stream handle up (NULL stays `None`: the default stream of the current context).
fn lookup_stream(handle: StreamHandle) -> Result<Option<Arc<Stream>>> {
    if handle.is_null() {
        return Ok(None);
    }
    match RUNTIME.streams.get(handle.as_raw()) {
        Some(s) => Ok(Some(s)),
        None => err(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("{handle:?} is not a live stream (destroyed, stale, or not a stream handle)"),
        ),
    }
}

pub(crate) fn lookup_event(handle: EventHandle) -> Result<Arc<Event>> {
    RUNTIME.events.get(handle.as_raw()).ok_or_else(|| {
        Error::new(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("{handle:?} is not a live event (destroyed, stale, or not an event handle)"),
        )
    })
}

/// A stream that new work goes to: must belong to the current context.
pub(crate) fn stream_for_work(stream: Option<Arc<Stream>>, call: &str) -> Result<Arc<Stream>> {
    let ctx = current_context()?;
    not_in_callback(call)?;
    match stream {
        None => default_stream(&ctx),
        Some(s) if Arc::ptr_eq(&s.context, &ctx) => Ok(s),
        Some(s) => err(
            ACL_ERROR_RT_STREAM_CONTEXT,
            format!(
                "stream {} belongs to another context than the current one ({call})",
                s.id
            ),
        ),
    }
}

/// A stream to synchronise or query: any live stream of the process.
pub(crate) fn stream_to_observe(stream: Option<Arc<Stream>>) -> Result<Arc<Stream>> {
    let ctx = current_context()?;
    match stream {
        Some(s) => Ok(s),
        None => default_stream(&ctx),
    }
}

/// The default stream of a live context (`107002` if it was destroyed meanwhile).
pub(crate) fn default_stream(ctx: &Context) -> Result<Arc<Stream>> {
    ctx.default_stream().ok_or_else(|| {
        Error::new(
            ACL_ERROR_RT_CONTEXT_NULL,
            "the current context has been destroyed (context destroyed or device reset)",
        )
    })
}

/// A synchronise timeout: -1 forever, > 0 milliseconds; 0 and < -1 are invalid.
pub(crate) fn sync_timeout(ms: i32) -> Result<Option<Instant>> {
    match ms {
        -1 => Ok(None),
        ms if ms > 0 => Ok(Some(Instant::now() + Duration::from_millis(ms as u64))),
        ms => err(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("timeout {ms} is invalid: use -1 (wait forever) or a positive number of milliseconds"),
        ),
    }
}

/// The error a synchronise reports for a task failure.
pub(crate) fn failure_error(f: &Failure) -> Error {
    Error::new(
        f.code,
        format!(
            "task {} on stream {} (device {}) failed: {}",
            f.task_id, f.stream_id, f.device_id, f.message
        ),
    )
}

/// Measures a blocking host call for the trace.
pub(crate) fn traced_wait<T>(name: &'static str, wait: impl FnOnce() -> T) -> T {
    if !trace::enabled() {
        return wait();
    }
    let start = trace::host_now_ns();
    let out = wait();
    trace::host_wait(name, start);
    out
}

/// `aclGetRecentErrMsg`: the calling thread's last error message, cleared by reading.
pub fn get_recent_err_msg() -> Option<String> {
    thread_state::take_recent_message()
}

/// `aclrtPeekAtLastError`.
pub fn peek_at_last_error() -> i32 {
    thread_state::peek_last_error()
}

/// `aclrtGetLastError`.
pub fn get_last_error() -> i32 {
    thread_state::take_last_error()
}
