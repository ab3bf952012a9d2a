//! Stream calls and host kernels.

use std::sync::Arc;

use super::os_thread_id;
use super::{
    call, current_context, failure_error, initialized, lookup_stream, not_in_callback,
    stream_for_work, stream_to_observe, sync_timeout, traced_wait,
};
use crate::codes::*;
use crate::consts::{
    ACL_CONTINUE_ON_FAILURE, ACL_STOP_ON_FAILURE, ACL_STREAM_STATUS_COMPLETE,
    ACL_STREAM_STATUS_NOT_READY,
};
use crate::error::{bail, Result};
use crate::handle::StreamHandle;
use crate::runtime::RUNTIME;
use crate::stream::Stream;
use crate::task::{KernelFn, MemRange, TaskKind, TaskMeta, Work};

/// Lowest stream priority; larger requests are clamped to it.
pub const LOWEST_STREAM_PRIORITY: u32 = 7;

/// `aclrtCreateStream`.
pub fn create_stream() -> Result<StreamHandle> {
    create_stream_with_config(0, 0)
}

/// `aclrtCreateStreamWithConfig`: priority 0 (highest) to 7, clamped; unknown flag bits are
/// ignored.
pub fn create_stream_with_config(priority: u32, flags: u32) -> Result<StreamHandle> {
    call(|| {
        initialized()?;
        let ctx = current_context()?;
        let Some(id) = ctx.device.acquire_stream() else {
            bail!(
                ACL_ERROR_RT_NO_STREAM_RESOURCE,
                "device {} already has {} streams, the limit (default streams included)",
                ctx.device.id,
                crate::device::MAX_STREAMS_PER_DEVICE
            );
        };
        let cuda = ctx.cuda;
        let stream = RUNTIME.streams.insert_with(|raw| {
            Arc::new(Stream::new(
                StreamHandle::from_raw(raw),
                id,
                ctx.clone(),
                false,
                priority.min(LOWEST_STREAM_PRIORITY),
                flags,
                cuda && flags & crate::cuda::CU_STREAM_NON_BLOCKING == 0,
            ))
        });
        ctx.add_stream(stream.clone());
        Ok(stream.handle)
    })
}

fn destroy(handle: StreamHandle, discard: bool, name: &str) -> Result<()> {
    initialized()?;
    if handle.is_null() {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{name}: the stream is NULL (the default stream cannot be destroyed)"
        );
    }
    let stream = stream_for_work(lookup_stream(handle)?, name)?;
    if stream.is_default {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{name}: the default stream cannot be destroyed"
        );
    }
    if !discard {
        traced_wait("aclrtDestroyStream", || stream.wait_idle(None));
    }
    stream.context.remove_stream(&stream);
    super::device::retire_stream(&stream, discard);
    Ok(())
}

/// `aclrtDestroyStream`: waits for the stream's pending tasks, then destroys it.
pub fn destroy_stream(handle: StreamHandle) -> Result<()> {
    call(|| destroy(handle, false, "aclrtDestroyStream"))
}

/// `aclrtDestroyStreamForce`: discards queued tasks (a running one finishes) and destroys.
pub fn destroy_stream_force(handle: StreamHandle) -> Result<()> {
    call(|| destroy(handle, true, "aclrtDestroyStreamForce"))
}

/// `aclrtSynchronizeStreamWithTimeout` (`-1` forever); reports and clears the stream's failure.
pub fn synchronize_stream_with_timeout(handle: StreamHandle, timeout_ms: i32) -> Result<()> {
    call(|| {
        initialized()?;
        let stream = stream_to_observe(lookup_stream(handle)?)?;
        let deadline = sync_timeout(timeout_ms)?;
        not_in_callback("aclrtSynchronizeStream")?;
        if !traced_wait("aclrtSynchronizeStream", || stream.wait_idle(deadline)) {
            bail!(
                ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                "stream {} did not finish within {timeout_ms} ms ({} task(s) pending)",
                stream.id,
                stream.pending()
            );
        }
        match stream.take_failure() {
            Some(f) => Err(failure_error(&f)),
            None => Ok(()),
        }
    })
}

/// `aclrtSynchronizeStream`.
pub fn synchronize_stream(handle: StreamHandle) -> Result<()> {
    synchronize_stream_with_timeout(handle, -1)
}

/// `aclrtStreamQuery`: `ACL_STREAM_STATUS_COMPLETE` when nothing is pending.
pub fn stream_query(handle: StreamHandle) -> Result<u32> {
    call(|| {
        initialized()?;
        let stream = stream_to_observe(lookup_stream(handle)?)?;
        Ok(if stream.is_idle() {
            ACL_STREAM_STATUS_COMPLETE
        } else {
            ACL_STREAM_STATUS_NOT_READY
        })
    })
}

/// `aclrtStreamGetId`: unique among the device's live streams.
pub fn stream_get_id(handle: StreamHandle) -> Result<i32> {
    call(|| {
        initialized()?;
        Ok(stream_to_observe(lookup_stream(handle)?)?.id as i32)
    })
}

/// `aclrtSetStreamFailureMode`: once per stream.
pub fn set_stream_failure_mode(handle: StreamHandle, mode: u64) -> Result<()> {
    call(|| {
        initialized()?;
        let stream = stream_for_work(lookup_stream(handle)?, "aclrtSetStreamFailureMode")?;
        let mode = match u32::try_from(mode) {
            Ok(m @ (ACL_CONTINUE_ON_FAILURE | ACL_STOP_ON_FAILURE)) => m,
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "failure mode {mode} is not ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)"
            ),
        };
        stream.set_failure_mode(mode)
    })
}

/// `aclxSetStreamName`: the name traces show for the stream's track (an empty name removes
/// it). NULL is the current context's default stream.
pub fn set_stream_name(handle: StreamHandle, name: &str) -> Result<()> {
    call(|| {
        initialized()?;
        let stream = stream_to_observe(lookup_stream(handle)?)?;
        let name: Option<Arc<str>> = (!name.is_empty()).then(|| Arc::from(name));
        *crate::sync::lock(&stream.name) = name.clone();
        crate::trace::stream_named(&stream, name);
        Ok(())
    })
}

/// Memory a host kernel declares it reads and writes (for traces and the race checker).
#[derive(Debug, Clone, Default)]
pub struct KernelAccess {
    /// Ranges read.
    pub reads: Vec<MemRange>,
    /// Ranges written.
    pub writes: Vec<MemRange>,
}

/// Puts a host kernel on a stream: `kernel` runs on the stream's worker, in order; returning
/// `Err(code)` (or panicking, which reports `ACL_ERROR_RT_AICORE_EXCEPTION`) fails the task like
/// a device task failure. Returns the task id.
pub fn launch_kernel(
    handle: StreamHandle,
    name: &str,
    access: KernelAccess,
    kernel: KernelFn,
) -> Result<u64> {
    call(|| {
        initialized()?;
        let stream = stream_for_work(lookup_stream(handle)?, "kernel launch")?;
        let meta = TaskMeta {
            name: (!name.is_empty()).then(|| Arc::from(name)),
            reads: access.reads,
            writes: access.writes,
            submitter_thread: os_thread_id(),
            event: None,
        };
        submit(&stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
    })
}

/// Fails the host kernel that is running on the calling thread with `error`'s code and message.
/// For kernels that fail with more than a code (a face reporting a foreign exception, say);
/// must be called from inside the kernel. Does not return.
pub fn fail_kernel(error: crate::error::Error) -> ! {
    std::panic::resume_unwind(Box::new(error))
}

/// Queues a task, first adding the implicit waits CUDA's legacy default stream needs.
pub(crate) fn submit(
    stream: &Arc<Stream>,
    kind: TaskKind,
    work: Work,
    meta: TaskMeta,
) -> Result<u64> {
    if stream.context.cuda {
        crate::cuda::add_implicit_waits(stream)?;
    }
    stream.submit(kind, work, meta)
}

/// The stream's priority after clamping (0 highest … 7).
pub fn stream_priority(handle: StreamHandle) -> Result<u32> {
    call(|| {
        initialized()?;
        Ok(stream_to_observe(lookup_stream(handle)?)?.priority)
    })
}
