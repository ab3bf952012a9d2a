//! Stream calls and host kernels.

use std::sync::Arc;

use super::os_thread_id;
use super::{failure_error, not_in_callback, observe_completion, sync_timeout, traced_wait_on};
use crate::codes::*;
use crate::consts::{
    ACL_CONTINUE_ON_FAILURE, ACL_STOP_ON_FAILURE, ACL_STREAM_STATUS_COMPLETE,
    ACL_STREAM_STATUS_NOT_READY,
};
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::policy::LegacySync;
use crate::runtime::Runtime;
use crate::stream::Context;
use crate::stream::Stream;
use crate::task_info::{KernelFn, MemRange, TaskKind, TaskMeta};

/// Lowest stream priority; larger requests are clamped to it.
pub const LOWEST_STREAM_PRIORITY: u32 = 7;

/// Memory a host kernel declares it reads and writes (for traces and the race checker).
#[derive(Debug, Clone, Default)]
pub struct KernelAccess {
    /// Ranges read.
    pub reads: Vec<MemRange>,
    /// Ranges written.
    pub writes: Vec<MemRange>,
}

/// Fails the host kernel that is running on the calling thread with `error`'s code and message.
/// For kernels that fail with more than a code (a face reporting a foreign exception, say);
/// must be called from inside the kernel. Does not return.
pub fn fail_kernel(error: crate::error::Error) -> ! {
    crate::user_code::fail_user_code(error)
}

impl Runtime {
    /// `aclrtCreateStream`.
    pub fn create_stream(&self) -> Result<StreamHandle> {
        self.create_stream_with_config(0, 0)
    }

    /// `aclrtCreateStreamWithConfig`: priority 0 (highest) to 7, clamped; unknown flag bits are
    /// ignored.
    pub fn create_stream_with_config(&self, priority: u32, flags: u32) -> Result<StreamHandle> {
        // A finalized runtime says so before the context check, and the guard stays held
        // through it: a shut-down that starts meanwhile waits, so the context cannot be torn
        // down between the check and the lookup (`create_stream_in` takes it again).
        let _creating = self.creating()?;
        let ctx = self.current_context()?;
        self.create_stream_in(&ctx, priority, flags, LegacySync::Independent)
    }

    /// A new stream of `ctx`, synchronising with its legacy default stream as `legacy_sync`
    /// says (CUDA's blocking streams).
    pub(crate) fn create_stream_in(
        &self,
        ctx: &Arc<Context>,
        priority: u32,
        flags: u32,
        legacy_sync: LegacySync,
    ) -> Result<StreamHandle> {
        let creating = self.creating()?;
        // Streams a forced destroy left running that have finished give their ids back first.
        self.reap_drained(ctx);
        let Some(id) = ctx.device.acquire_stream() else {
            bail!(
                ACL_ERROR_RT_NO_STREAM_RESOURCE,
                "device {} already has {} streams, the limit (default streams included)",
                ctx.device.id,
                crate::device::MAX_STREAMS_PER_DEVICE
            );
        };
        let stream = self.streams.insert_with(|raw| {
            Stream::new_arc(
                StreamHandle::from_raw(raw),
                id,
                ctx.clone(),
                false,
                priority.min(LOWEST_STREAM_PRIORITY),
                flags,
                legacy_sync,
            )
        });
        if !ctx.add_stream(stream.clone()) {
            self.streams.remove(stream.handle.as_raw());
            ctx.device.release_stream(id);
            bail!(
                ACL_ERROR_RT_CONTEXT_NULL,
                "the current context was destroyed while the stream was being created"
            );
        }
        // Made and listed: a finalize from now on tears it down. The state callbacks are user
        // code, run without the guard.
        drop(creating);
        self.stream_state_changed(stream.handle, true);
        if crate::observe::enabled() {
            crate::observe::stream_created(stream.task_ref(0));
        }
        Ok(stream.handle)
    }

    fn destroy(&self, handle: StreamHandle, force: bool, name: &str) -> Result<()> {
        if handle.is_null() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: the stream is NULL (the default stream cannot be destroyed)"
            );
        }
        let stream = self.stream_for_work(self.lookup_stream(handle)?, name)?;
        if stream.is_default {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: the default stream cannot be destroyed"
            );
        }
        let _teardown = self.teardown();
        if !force {
            let last = stream
                .submitted()
                .checked_sub(1)
                .map(|t| stream.task_ref(t));
            traced_wait_on(
                "aclrtDestroyStream",
                || last.into_iter().collect(),
                || stream.wait_idle(None),
            );
        }
        // Exactly one destroy of a stream wins (another destroy, a device reset, a context
        // destroy or aclFinalize may race this one); the others find the handle dead.
        if !self.close_stream(&stream, false) {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{name}: {handle:?} was destroyed by another call meanwhile"
            );
        }
        stream.context.remove_stream(&stream);
        self.pools.forget_stream(handle.as_raw());
        if force {
            // Queued work still runs, as it does on the device; the context keeps the stream
            // until it has, unless the context is being destroyed (then it is torn down now).
            self.reap_drained(&stream.context);
            if !stream.context.add_draining(stream.clone()) {
                stream.close(true);
                self.join_stream(&stream);
            }
        } else {
            self.join_stream(&stream);
        }
        Ok(())
    }

    /// `aclrtDestroyStream`: waits for the stream's pending tasks, then destroys it.
    pub fn destroy_stream(&self, handle: StreamHandle) -> Result<()> {
        self.destroy(handle, false, "aclrtDestroyStream")
    }

    /// `aclrtDestroyStreamForce`: destroys at once, without waiting: the handle is dead on
    /// return, and work already queued still runs (the context keeps the stream until it has;
    /// a device reset or `aclFinalize` waits for it, as for any stream).
    pub fn destroy_stream_force(&self, handle: StreamHandle) -> Result<()> {
        self.destroy(handle, true, "aclrtDestroyStreamForce")
    }

    /// `aclrtSynchronizeStreamWithTimeout` (`-1` forever); reports and clears the stream's failure.
    pub fn synchronize_stream_with_timeout(
        &self,
        handle: StreamHandle,
        timeout_ms: i32,
    ) -> Result<()> {
        let stream = self.stream_to_observe(self.lookup_stream(handle)?)?;
        let deadline = sync_timeout(timeout_ms)?;
        not_in_callback("aclrtSynchronizeStream")?;
        self.synchronize_on(&stream, deadline, timeout_ms)
    }

    /// `aclrtSynchronizeStream`.
    pub fn synchronize_stream(&self, handle: StreamHandle) -> Result<()> {
        self.synchronize_stream_with_timeout(handle, -1)
    }

    /// `aclrtStreamQuery`: `ACL_STREAM_STATUS_COMPLETE` when nothing is pending.
    pub fn stream_query(&self, handle: StreamHandle) -> Result<u32> {
        let stream = self.stream_to_observe(self.lookup_stream(handle)?)?;
        Ok(if self.query_on(&stream) {
            ACL_STREAM_STATUS_COMPLETE
        } else {
            ACL_STREAM_STATUS_NOT_READY
        })
    }

    /// `aclrtStreamGetId`: unique among the device's live streams.
    pub fn stream_get_id(&self, handle: StreamHandle) -> Result<i32> {
        Ok(self.stream_to_observe(self.lookup_stream(handle)?)?.id as i32)
    }

    /// `aclrtSetStreamFailureMode`: once per stream.
    pub fn set_stream_failure_mode(&self, handle: StreamHandle, mode: u64) -> Result<()> {
        let stream =
            self.stream_for_work(self.lookup_stream(handle)?, "aclrtSetStreamFailureMode")?;
        let mode = match u32::try_from(mode) {
            Ok(m @ (ACL_CONTINUE_ON_FAILURE | ACL_STOP_ON_FAILURE)) => m,
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "failure mode {mode} is not ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)"
            ),
        };
        stream.set_failure_mode(mode)
    }

    /// `aclxSetStreamName`: the name traces show for the stream's track (an empty name removes
    /// it). NULL is the current context's default stream.
    pub fn set_stream_name(&self, handle: StreamHandle, name: &str) -> Result<()> {
        let stream = self.stream_to_observe(self.lookup_stream(handle)?)?;
        let name: Option<Arc<str>> = (!name.is_empty()).then(|| Arc::from(name));
        crate::observe::stream_named(
            stream.context.device.id,
            stream.id,
            stream.handle.as_raw(),
            name,
        );
        Ok(())
    }

    /// Puts a host kernel on a stream: `kernel` runs on the stream's worker, in order; returning
    /// `Err(code)` (or panicking, which reports `ACL_ERROR_RT_AICORE_EXCEPTION`) fails the task like
    /// a device task failure. Returns the task id.
    pub fn launch_kernel(
        &self,
        handle: StreamHandle,
        name: &str,
        access: KernelAccess,
        kernel: KernelFn,
    ) -> Result<u64> {
        let stream = self.stream_for_work(self.lookup_stream(handle)?, "kernel launch")?;
        self.launch_on(&stream, name, access, kernel)
    }

    /// Queues a host kernel on a stream already resolved and checked.
    pub(crate) fn launch_on(
        &self,
        stream: &Arc<Stream>,
        name: &str,
        access: KernelAccess,
        kernel: KernelFn,
    ) -> Result<u64> {
        let meta = TaskMeta {
            name: (!name.is_empty()).then(|| Arc::from(name)),
            reads: access.reads,
            writes: access.writes,
            submitter_thread: os_thread_id(),
            event: None,
        };
        self.submit(stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
    }

    /// Waits until everything submitted to `stream` before the call has run (or the deadline
    /// passes), then reports and clears the stream's failure.
    pub(crate) fn synchronize_on(
        &self,
        stream: &Stream,
        deadline: Option<std::time::Instant>,
        timeout_ms: i32,
    ) -> Result<()> {
        let upto = stream.submitted();
        let last = upto.checked_sub(1).map(|t| stream.task_ref(t));
        let waits_for = || last.into_iter().collect();
        if !traced_wait_on("aclrtSynchronizeStream", waits_for, || {
            stream.wait_idle(deadline)
        }) {
            bail!(
                ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                "stream {} did not finish within {timeout_ms} ms ({} task(s) pending)",
                stream.id,
                stream.pending()
            );
        }
        observe_completion(stream, upto);
        match stream.take_failure() {
            Some(f) => Err(failure_error(&f)),
            None => Ok(()),
        }
    }

    /// Whether everything submitted to `stream` has run (observers learn it when it has).
    pub(crate) fn query_on(&self, stream: &Stream) -> bool {
        let upto = stream.submitted();
        let idle = stream.is_idle();
        if idle {
            observe_completion(stream, upto);
        }
        idle
    }

    /// Queues a task, first adding the implicit waits CUDA's legacy default stream needs.
    pub(crate) fn submit(
        &self,
        stream: &Arc<Stream>,
        kind: TaskKind,
        work: Work,
        meta: TaskMeta,
    ) -> Result<u64> {
        stream.add_implicit_waits()?;
        stream.submit(kind, work, meta)
    }

    /// The stream's priority after clamping (0 highest … 7).
    pub fn stream_priority(&self, handle: StreamHandle) -> Result<u32> {
        Ok(self
            .stream_to_observe(self.lookup_stream(handle)?)?
            .priority
            .load(std::sync::atomic::Ordering::Relaxed))
    }
}
