//! The validated front: one function per ACL call, in ACL's terms.
//!
//! Every call is a method of [`Runtime`]: it checks its arguments in the contract's order
//! (handles → current context → the operation's own rules) and then operates on the resolved
//! objects. Whether the runtime is initialised is the first check of all; it is made once, here
//! at the edge, by resolving the process's runtime:
//!
//! - [`acl`] runs a body on the process's runtime (`ACL_ERROR_UNINITIALIZE` when there is none)
//!   and notes a failure for the calling thread (`aclrtGetLastError`, `aclGetRecentErrMsg`).
//!   Faces use it and do their own NULL out-pointer checks inside the body, so the order
//!   "not initialised → NULL → handles" holds with each check made once.
//! - The free functions below (`api::record_event(..)`, …) are that, for Rust programs.
//! - [`init`], [`finalize`] and [`configure`] own the process's runtime.

mod callback;
mod cmo;
mod config;
mod device;
mod device_info;
mod dvpp;
mod event;
mod exception_ext;
mod global;
mod ipc;
pub(crate) mod ipc_mem;
mod kernel;
mod managed;
mod mem_pool;
mod memcpy_desc;
mod memory;
mod memory_ext;
mod memory_gaps;
mod memory_query;
mod not_supported;
pub(crate) mod notify;
mod overflow;
mod random;
mod reduce;
mod res_limit;
mod stream;
mod stream_attr;
mod stream_ext;
mod symbol;
mod vmm;

pub use crate::memory::managed::Location as ManagedLocation;
pub use device::*;
pub use device_info::*;
pub use dvpp::{dvpp_size, DVPP_ALIGNMENT, DVPP_SIZE_STEP};
pub(crate) use event::*;
pub use exception_ext::*;
pub use global::*;
pub use ipc::NOTIFY_KEY_MIN_LEN;
pub use ipc_mem::IPC_KEY_LEN;
pub use managed::{MANAGED_HOST_LOCATION, MANAGED_LIMIT, MANAGED_NO_LOCATION};
pub use mem_pool::MemPoolProps;
pub(crate) use mem_pool::PoolKind;
pub use memcpy_desc::{MEMCPY_DESC_MAX_COUNT, MEMCPY_DESC_SIZE};
pub use memory_ext::*;
pub use memory_gaps::{BatchAttr, BatchCopy, MemUsage};
pub use memory_query::*;
pub use not_supported::not_supported;
pub use notify::MAX_NOTIFIES_PER_DEVICE;
pub use overflow::{OVERFLOW_MODE_INFNAN, OVERFLOW_STATUS_SIZE};
pub use random::{RandomNumTask, RandomParam, RANDOM_COUNTER_SIZE, RANDOM_PARAM_AREA_SIZE};
pub use stream::*;
pub use stream_ext::*;
pub use vmm::{share_handle_is_u64, MemAccess, PhysicalMemProp};

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::codes::*;
use crate::error::Failure;
use crate::error::{err, Error, Result};
use crate::event::Event;
use crate::handle::{EventHandle, StreamHandle};
use crate::observe;
use crate::runtime::Runtime;
use crate::stream::Context;
use crate::stream::Stream;
use crate::thread_state::{self, in_callback};

/// The calling thread's OS id, for task metadata. Cached per thread: `gettid` is a system call,
/// and it was the largest single cost of enqueueing a task.
pub(crate) fn os_thread_id() -> u32 {
    TID.with(|c| {
        if c.get() == 0 {
            c.set(thread_state::os_thread_id());
        }
        c.get()
    })
}

thread_local! {
    static TID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Forgets the calling thread's cached OS id (a forked child's thread has a new one).
pub(crate) fn forget_thread_id() {
    let _ = TID.try_with(|c| c.set(0));
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

impl Runtime {
    /// The calling thread's current context.
    pub(crate) fn current_context(&self) -> Result<Arc<Context>> {
        let Some(handle) = thread_state::current_context(self.serial) else {
            return err(
                ACL_ERROR_RT_CONTEXT_NULL,
                "no current context: call aclrtSetDevice or aclrtSetCurrentContext on this thread first",
            );
        };
        match self.contexts.get(handle.as_raw()) {
            Some(ctx) if !ctx.is_destroyed() => Ok(ctx),
            _ => err(
                ACL_ERROR_RT_CONTEXT_NULL,
                "the current context has been destroyed (context destroyed or device reset)",
            ),
        }
    }

    /// Looks a stream handle up (NULL stays `None`: the default stream of the current context).
    pub(crate) fn lookup_stream(&self, handle: StreamHandle) -> Result<Option<Arc<Stream>>> {
        if handle.is_null() {
            return Ok(None);
        }
        match self.streams.get(handle.as_raw()) {
            Some(s) => Ok(Some(s)),
            None => err(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "{handle:?} is not a live stream (destroyed, stale, or not a stream handle)"
                ),
            ),
        }
    }

    /// Looks an event handle up; NULL is `ACL_ERROR_INVALID_PARAM`.
    pub(crate) fn lookup_event(&self, handle: EventHandle) -> Result<Arc<Event>> {
        if handle.is_null() {
            return err(ACL_ERROR_INVALID_PARAM, "the event is NULL");
        }
        self.events.get(handle.as_raw()).ok_or_else(|| {
            Error::new(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "{handle:?} is not a live event (destroyed, stale, or not an event handle)"
                ),
            )
        })
    }

    /// A stream that new work goes to: must belong to the current context.
    pub(crate) fn stream_for_work(
        &self,
        stream: Option<Arc<Stream>>,
        call: &str,
    ) -> Result<Arc<Stream>> {
        not_in_callback(call)?;
        self.stream_of_current_context(stream, call)
    }

    /// `stream` (NULL: the current context's default stream), which must belong to the
    /// current context (`107003` otherwise).
    pub(crate) fn stream_of_current_context(
        &self,
        stream: Option<Arc<Stream>>,
        call: &str,
    ) -> Result<Arc<Stream>> {
        // The common case, a stream of the thread's current context, needs no context table
        // look-up: handles are never reused, so the same handle is the same context, and a
        // destroyed one is marked so right after its handle goes.
        let current = thread_state::current_context(self.serial);
        let stream = match stream {
            Some(s) if current == Some(s.context.handle) && !s.context.is_destroyed() => {
                return Ok(s)
            }
            other => other,
        };
        let ctx = self.current_context()?;
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
    pub(crate) fn stream_to_observe(&self, stream: Option<Arc<Stream>>) -> Result<Arc<Stream>> {
        let ctx = self.current_context()?;
        match stream {
            Some(s) => Ok(s),
            None => default_stream(&ctx),
        }
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

/// Tells observers that the calling thread learned every task of `stream` before `upto`
/// completed (a synchronise returned, a query said complete).
pub(crate) fn observe_completion(stream: &Stream, upto: u64) {
    if observe::enabled() && upto > 0 {
        observe::host_synchronized(stream.task_ref(upto - 1));
    }
}

/// Tells observers that the calling thread learned that `record` completed.
pub(crate) fn observe_record_completion(record: &crate::exec::RecordState) {
    if observe::enabled() && record.is_done() {
        observe::host_synchronized(record.origin());
    }
}

/// Measures a blocking host call for the trace.
pub(crate) fn traced_wait<T>(name: &'static str, wait: impl FnOnce() -> T) -> T {
    traced_wait_on(name, Vec::new, wait)
}

/// [`traced_wait`] for a wait on known tasks (`targets`, asked only when observed).
pub(crate) fn traced_wait_on<T>(
    name: &'static str,
    targets: impl FnOnce() -> Vec<observe::TaskRef>,
    wait: impl FnOnce() -> T,
) -> T {
    if !observe::enabled() {
        return wait();
    }
    observe::host_wait_begin(name, &targets());
    let start = observe::now_ns();
    let out = wait();
    observe::host_wait(name, start);
    out
}
