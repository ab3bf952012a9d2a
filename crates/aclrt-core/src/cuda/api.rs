//! The `cu*` calls, one function each, over the validated ACL front.
//!
//! Check order, as for ACL: not initialised → handles → current context → sticky context error
//! → the call's own rules. Faces check NULL out-pointers after [`ensure_initialized`].
//! Events, streams and contexts share the core's handle tables; the special stream handles
//! `NULL`, [`CU_STREAM_LEGACY`](super::CU_STREAM_LEGACY) and
//! [`CU_STREAM_PER_THREAD`](super::CU_STREAM_PER_THREAD) are resolved here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::capture::{self, NodeKind, Recipe};
use super::codes::*;
use super::{
    CU_EVENT_BLOCKING_SYNC, CU_EVENT_DISABLE_TIMING, CU_EVENT_INTERPROCESS,
    CU_EVENT_RECORD_DEFAULT, CU_EVENT_RECORD_EXTERNAL, CU_EVENT_WAIT_EXTERNAL,
    CU_STREAM_NON_BLOCKING,
};
use crate::error::Failure;
use crate::event::{Event, Family};
use crate::handle::{ContextHandle, EventHandle, StreamHandle};
use crate::policy::LegacySync;
use crate::runtime::Runtime;
use crate::stream::Context;
use crate::stream::Stream;
use crate::sync::SpinPolicy;

/// `CUdevice`.
pub type CuDevice = i32;
/// `CUdeviceptr`.
pub type CuDevicePtr = u64;

const EVENT_FLAG_BITS: u32 =
    CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

/// Whether `cuInit` succeeded once in this process: calls after a finalize then report
/// `CUDA_ERROR_DEINITIALIZED` rather than `CUDA_ERROR_NOT_INITIALIZED`.
static CU_INITIALIZED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// `CU_STREAM_PER_THREAD`: this thread's stream per context (raw context handle).
    static PER_THREAD: RefCell<HashMap<u64, StreamHandle>> = RefCell::new(HashMap::new());
}

/// Test support: forgets that `cuInit` ever succeeded, so a test that runs after others in the
/// same process sees `CUDA_ERROR_NOT_INITIALIZED`, as a fresh process would.
#[doc(hidden)]
pub fn forget_init_for_tests() {
    CU_INITIALIZED.store(false, Ordering::Release);
}

pub(crate) fn was_initialized() -> bool {
    CU_INITIALIZED.load(Ordering::Acquire)
}

pub(super) fn fail<T>(code: CuResult, message: impl Into<String>) -> CuResultOf<T> {
    Err(CuError::new(code, message))
}

/// `CUDA_ERROR_NOT_INITIALIZED` (or `..._DEINITIALIZED`) unless the runtime is up; faces call
/// this before their own NULL checks.
pub fn ensure_initialized() -> CuResultOf<()> {
    cu(|_| Ok(()))
}

/// Runs one CUDA call on the process's runtime. Failures are not noted in ACL's per-thread
/// error state: the two APIs keep their errors apart.
pub(super) fn cu<T>(body: impl FnOnce(&Runtime) -> CuResultOf<T>) -> CuResultOf<T> {
    crate::api::with_installed(body).map_err(CuError::from)?
}

pub(super) fn failure_error(f: &Failure) -> CuError {
    CuError::new(from_acl(f.code), crate::api::failure_error(f).message())
}

/// The sticky error of a context that a failed task stopped.
pub(super) fn sticky(ctx: &Context) -> CuResultOf<()> {
    match ctx.stopped() {
        Some(f) => Err(failure_error(f)),
        None => Ok(()),
    }
}

/// The calling thread's current context: `CUDA_ERROR_INVALID_CONTEXT` when it has none,
/// `CUDA_ERROR_CONTEXT_IS_DESTROYED` when another thread destroyed the one it has.
pub(super) fn current_any(rt: &Runtime) -> CuResultOf<Arc<Context>> {
    rt.current_context().map_err(|e| {
        if crate::thread_state::current_context(rt.serial).is_some() {
            CuError::new(CUDA_ERROR_CONTEXT_IS_DESTROYED, e.message())
        } else {
            e.into()
        }
    })
}

/// The current context, refusing one with a sticky error.
pub(super) fn current(rt: &Runtime) -> CuResultOf<Arc<Context>> {
    let ctx = current_any(rt)?;
    sticky(&ctx)?;
    Ok(ctx)
}

/// A live event made by `cuEventCreate`.
pub(super) fn cuda_event(rt: &Runtime, handle: EventHandle) -> CuResultOf<Arc<Event>> {
    if handle.is_null() {
        return fail(CUDA_ERROR_INVALID_HANDLE, "the event is NULL");
    }
    let ev = rt.lookup_event(handle)?;
    if ev.family != Family::Cuda {
        return fail(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{handle:?} is an ACL event, not one made by cuEventCreate"),
        );
    }
    Ok(ev)
}

/// Resolves the special stream handles to the core's: NULL and `CU_STREAM_LEGACY` are the
/// current context's default stream, `CU_STREAM_PER_THREAD` this thread's stream (made on first
/// use). Other handles pass through unchecked.
pub(super) fn resolve(rt: &Runtime, handle: StreamHandle) -> CuResultOf<StreamHandle> {
    match handle.as_raw() {
        0 | 1 => Ok(StreamHandle::NULL),
        2 => per_thread_stream(rt),
        _ => Ok(handle),
    }
}

fn per_thread_stream(rt: &Runtime) -> CuResultOf<StreamHandle> {
    let ctx = current(rt)?;
    let key = ctx.handle.as_raw();
    if let Some(h) = PER_THREAD.with(|m| m.borrow().get(&key).copied()) {
        // Handles never come back to life, so a live one is still this thread's stream.
        if rt.streams.get(h.as_raw()).is_some() {
            return Ok(h);
        }
    }
    // A blocking stream: it synchronises with the legacy stream and with nothing else.
    let h = rt.create_stream_in(&ctx, 0, super::CU_STREAM_DEFAULT, LegacySync::Blocking)?;
    PER_THREAD.with(|m| m.borrow_mut().insert(key, h));
    Ok(h)
}

/// The stream object behind a resolved handle (NULL: the current context's default stream).
pub(super) fn stream_of(rt: &Runtime, resolved: StreamHandle) -> CuResultOf<Arc<Stream>> {
    if resolved.is_null() {
        return Ok(crate::api::default_stream(&*current_any(rt)?)?);
    }
    rt.streams.get(resolved.as_raw()).ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{resolved:?} is not a live stream"),
        )
    })
}

// ---- initialisation, devices, contexts -------------------------------------------------------

/// `cuInit(flags)`: `flags` must be 0. Initialises the runtime if it is not up yet.
pub fn init(flags: u32) -> CuResultOf<()> {
    if flags != 0 {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("cuInit: flags must be 0, not {flags:#x}"),
        );
    }
    if crate::api::runtime().is_err() {
        match crate::api::init() {
            Ok(()) => {}
            Err(e) if e.code() == crate::codes::ACL_ERROR_REPEAT_INITIALIZE => {}
            Err(e) => return Err(e.into()),
        }
    }
    CU_INITIALIZED.store(true, Ordering::Release);
    Ok(())
}

/// A live context.
pub(super) fn lookup_context(rt: &Runtime, handle: ContextHandle) -> CuResultOf<Arc<Context>> {
    match rt.contexts.get(handle.as_raw()) {
        Some(ctx) if !ctx.is_destroyed() => Ok(ctx),
        _ => fail(
            CUDA_ERROR_INVALID_CONTEXT,
            format!("{handle:?} is not a live context"),
        ),
    }
}

// ---- streams ---------------------------------------------------------------------------------

/// `cuStreamCreate(flags)`: `CU_STREAM_DEFAULT` (blocking: synchronises with the legacy stream)
/// or `CU_STREAM_NON_BLOCKING`.
pub fn stream_create(flags: u32) -> CuResultOf<StreamHandle> {
    stream_create_with_priority(flags, 0)
}

/// `cuStreamCreateWithPriority(flags, priority)`: priorities outside
/// [`STREAM_PRIORITY_GREATEST`, `STREAM_PRIORITY_LEAST`] are clamped to the range, as CUDA
/// does; lower numbers are higher priorities.
pub fn stream_create_with_priority(flags: u32, priority: i32) -> CuResultOf<StreamHandle> {
    cu(|rt| {
        let ctx = current(rt)?;
        if flags & !CU_STREAM_NON_BLOCKING != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuStreamCreate: flags {flags:#x} are not CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING"),
            );
        }
        let sync = if flags & CU_STREAM_NON_BLOCKING != 0 {
            LegacySync::Independent
        } else {
            LegacySync::Blocking
        };
        let level = priority.clamp(STREAM_PRIORITY_GREATEST, STREAM_PRIORITY_LEAST)
            - STREAM_PRIORITY_GREATEST;
        Ok(rt.create_stream_in(&ctx, level as u32, flags, sync)?)
    })
}

/// The greatest (numerically lowest) stream priority: `cuCtxGetStreamPriorityRange`.
pub const STREAM_PRIORITY_GREATEST: i32 = -5;
/// The least stream priority, that of streams created without one.
pub const STREAM_PRIORITY_LEAST: i32 = 0;

/// `cuStreamGetPriority`: the (clamped) priority; the default streams have the least.
pub fn stream_get_priority(handle: StreamHandle) -> CuResultOf<i32> {
    cu(|rt| {
        let s = stream_of(rt, resolve(rt, handle)?)?;
        if s.is_default {
            return Ok(STREAM_PRIORITY_LEAST);
        }
        Ok(s.priority.load(std::sync::atomic::Ordering::Relaxed) as i32 + STREAM_PRIORITY_GREATEST)
    })
}

/// `cuStreamGetFlags`: the flags the stream was created with (0 for the default streams).
pub fn stream_get_flags(handle: StreamHandle) -> CuResultOf<u32> {
    cu(|rt| {
        let s = stream_of(rt, resolve(rt, handle)?)?;
        Ok(if s.is_default { 0 } else { s.flags })
    })
}

/// `cuStreamGetCtx`: the stream's context (for NULL and the special handles, the current one).
pub fn stream_get_ctx(handle: StreamHandle) -> CuResultOf<ContextHandle> {
    cu(|rt| {
        let s = stream_of(rt, resolve(rt, handle)?)?;
        Ok(s.context.handle)
    })
}

/// `cuStreamGetId`: an id unique among the process's live streams.
pub fn stream_get_id(handle: StreamHandle) -> CuResultOf<u64> {
    cu(|rt| {
        let s = stream_of(rt, resolve(rt, handle)?)?;
        Ok(s.handle.as_raw())
    })
}

/// `cuStreamAddCallback`: as [`launch_host_func`], the body getting the stream's status
/// (`CUDA_SUCCESS`, or the context's sticky error if one stopped it before the body ran; CUDA
/// calls such callbacks with the error rather than skipping them).
pub fn stream_add_callback(
    stream: StreamHandle,
    body: impl Fn(CuResult) + Send + Sync + 'static,
    flags: u32,
) -> CuResultOf<()> {
    if flags != 0 {
        return ensure_initialized().and_then(|_| {
            fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuStreamAddCallback: flags must be 0, not {flags:#x}"),
            )
        });
    }
    launch_host_func(stream, move || body(CUDA_SUCCESS))
}

/// `cuStreamDestroy`: waits for the stream's work, then destroys it. The special handles are
/// not streams one can destroy.
pub fn stream_destroy(handle: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        if handle.as_raw() <= 2 {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                "cuStreamDestroy: NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD cannot be destroyed",
            );
        }
        stream_of(rt, handle)?;
        capture::forget_stream(rt, handle);
        Ok(rt.destroy_stream(handle)?)
    })
}

/// `cuStreamQuery`: `Ok` when all work on the stream is done, `CUDA_ERROR_NOT_READY` otherwise.
pub fn stream_query(handle: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        let h = resolve(rt, handle)?;
        let stream = stream_of(rt, h)?;
        sticky(&stream.context)?;
        capture::check_observe(rt, &stream, "cuStreamQuery")?;
        if rt.query_on(&stream) {
            Ok(())
        } else {
            fail(
                CUDA_ERROR_NOT_READY,
                format!("stream {} still has work pending", stream.id),
            )
        }
    })
}

/// `cuStreamSynchronize`: waits for the stream; returns a failure of its work (or the
/// context's sticky error).
pub fn stream_synchronize(handle: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        let h = resolve(rt, handle)?;
        let stream = stream_of(rt, h)?;
        crate::api::not_in_callback("cuStreamSynchronize")?;
        capture::check_observe(rt, &stream, "cuStreamSynchronize")?;
        rt.synchronize_on(&stream, None, -1)?;
        super::mem_pool::release_at_sync(rt, stream.context.device.id);
        Ok(())
    })
}

/// `cuStreamWaitEvent(stream, event, flags)`: later work on the stream waits for the event's
/// latest record as it is now. The event may come from another context.
pub fn stream_wait_event(stream: StreamHandle, event: EventHandle, flags: u32) -> CuResultOf<()> {
    cu(|rt| {
        let ev = cuda_event(rt, event)?;
        let h = resolve(rt, stream)?;
        let s = stream_of(rt, h)?;
        current(rt)?;
        sticky(&s.context)?;
        let external = capture_flag(flags, CU_EVENT_WAIT_EXTERNAL, "cuStreamWaitEvent")?;
        let s = rt.stream_for_work(Some(s), "cuStreamWaitEvent")?;
        if capture::wait(rt, &s, &ev, external)? {
            return Ok(());
        }
        if external {
            return outside_capture("cuStreamWaitEvent");
        }
        Ok(rt.wait_on(&s, &ev, None)?)
    })
}

/// `cuLaunchHostFunc`: `body` runs on a runtime thread after earlier work on the stream, and
/// later work waits for it. Skipped if the context hits a sticky error first. On a capturing
/// stream, a host node (`body` then runs at every launch of the graph).
pub fn launch_host_func(
    stream: StreamHandle,
    body: impl Fn() + Send + Sync + 'static,
) -> CuResultOf<()> {
    let body = Arc::new(body);
    cu(|rt| {
        let h = resolve(rt, stream)?;
        let s = stream_of(rt, h)?;
        current(rt)?;
        let s = rt.stream_for_work(Some(s), "cuLaunchHostFunc")?;
        let run: Recipe = Arc::new(move |rt, ls| {
            let body = body.clone();
            Ok(rt.host_func_on(ls, Box::new(move || body()))?)
        });
        capture::submit(rt, &s, NodeKind::Host, "cuLaunchHostFunc", run)?;
        Ok(())
    })
}

/// Launches a host kernel on a CUDA stream (an extension for tests and examples: the emulated
/// device's stand-in for `cuLaunchKernel`). A kernel returning `Err(code)` fails with that
/// `CUresult`: `CUDA_ERROR_ILLEGAL_ADDRESS` stays itself, anything else is
/// `CUDA_ERROR_LAUNCH_FAILED`; either is sticky on the context. A panic is a launch failure.
/// On a capturing stream, a kernel node (`kernel` then runs at every launch of the graph).
pub fn launch_host_kernel(
    stream: StreamHandle,
    name: &str,
    kernel: impl Fn() -> Result<(), CuResult> + Send + Sync + 'static,
) -> CuResultOf<()> {
    let kernel = Arc::new(kernel);
    cu(|rt| {
        let h = resolve(rt, stream)?;
        let s = stream_of(rt, h)?;
        current(rt)?;
        let s = rt.stream_for_work(Some(s), "cuLaunchHostKernel")?;
        let name = name.to_string();
        let run: Recipe = Arc::new(move |rt, ls| {
            let kernel = kernel.clone();
            let body: crate::KernelFn = Box::new(move || kernel().map_err(to_acl_task_code));
            rt.launch_on(ls, &name, Default::default(), body)?;
            Ok(())
        });
        capture::submit(rt, &s, NodeKind::Kernel, "cuLaunchHostKernel", run)?;
        Ok(())
    })
}

// ---- events ----------------------------------------------------------------------------------

/// `cuEventCreate(flags)`: a snapshot event of the current context. `CU_EVENT_INTERPROCESS`
/// needs `CU_EVENT_DISABLE_TIMING`.
pub fn event_create(flags: u32) -> CuResultOf<EventHandle> {
    cu(|rt| {
        current(rt)?;
        if flags & !EVENT_FLAG_BITS != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuEventCreate: unknown event flags {flags:#x}"),
            );
        }
        if flags & CU_EVENT_INTERPROCESS != 0 && flags & CU_EVENT_DISABLE_TIMING == 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                "cuEventCreate: CU_EVENT_INTERPROCESS requires CU_EVENT_DISABLE_TIMING",
            );
        }
        Ok(rt.create(Family::Cuda, flags)?)
    })
}

/// `cuEventDestroy`: returns at once, even while recorded work is pending.
pub fn event_destroy(event: EventHandle) -> CuResultOf<()> {
    cu(|rt| {
        cuda_event(rt, event)?;
        capture::forget_event(rt, event);
        Ok(rt.destroy_event(event)?)
    })
}

/// `cuEventRecord`: captures the work submitted to the stream so far (on the legacy stream,
/// that includes the blocking streams' work it implicitly waits for).
pub fn event_record(event: EventHandle, stream: StreamHandle) -> CuResultOf<()> {
    event_record_with_flags(event, stream, CU_EVENT_RECORD_DEFAULT)
}

/// `cuEventRecordWithFlags`: `CU_EVENT_RECORD_EXTERNAL` is refused outside stream capture.
/// The event and the stream must share a context. In a capture, the event takes what the stream
/// has captured so far (for other streams to wait on), or with `CU_EVENT_RECORD_EXTERNAL`
/// becomes an event record node.
pub fn event_record_with_flags(
    event: EventHandle,
    stream: StreamHandle,
    flags: u32,
) -> CuResultOf<()> {
    cu(|rt| {
        let ev = cuda_event(rt, event)?;
        let h = resolve(rt, stream)?;
        let s = stream_of(rt, h)?;
        current(rt)?;
        if !Arc::ptr_eq(&ev.context, &s.context) {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                format!(
                    "cuEventRecord: event {} and stream {} belong to different contexts",
                    ev.id, s.id
                ),
            );
        }
        sticky(&s.context)?;
        let external = capture_flag(flags, CU_EVENT_RECORD_EXTERNAL, "cuEventRecordWithFlags")?;
        let s = rt.stream_for_work(Some(s), "cuEventRecord")?;
        if capture::record(rt, &ev, &s, external)? {
            return Ok(());
        }
        if external {
            return outside_capture("cuEventRecordWithFlags");
        }
        Ok(rt.record_on(&ev, &s)?)
    })
}

/// Record and wait flags: the default (0) or the `EXTERNAL` flag (`true`), which only a
/// capturing stream accepts.
fn capture_flag(flags: u32, external: u32, call: &str) -> CuResultOf<bool> {
    match flags {
        0 => Ok(false),
        f if f == external => Ok(true),
        other => fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: unknown flags {other:#x}"),
        ),
    }
}

fn outside_capture(call: &str) -> CuResultOf<()> {
    fail(
        CUDA_ERROR_INVALID_VALUE,
        format!("{call}: the EXTERNAL flag is valid only during stream capture"),
    )
}

/// `cuEventQuery`: `Ok` when the captured work is done (or nothing was ever recorded),
/// `CUDA_ERROR_NOT_READY` while it is pending.
pub fn event_query(event: EventHandle) -> CuResultOf<()> {
    cu(|rt| {
        let ev = cuda_event(rt, event)?;
        sticky(&ev.context)?;
        capture::check_event(rt, &ev, "cuEventQuery")?;
        match ev.latest() {
            None => Ok(()),
            Some(r) if !r.is_done() => fail(
                CUDA_ERROR_NOT_READY,
                format!("event {}: captured work is still pending", ev.id),
            ),
            Some(r) => match r.failure() {
                Some(f) => Err(failure_error(f)),
                None => Ok(()),
            },
        }
    })
}

/// `cuEventSynchronize`: waits for the captured work; spins unless the event was created with
/// `CU_EVENT_BLOCKING_SYNC`, which sleeps.
pub fn event_synchronize(event: EventHandle) -> CuResultOf<()> {
    cu(|rt| {
        let ev = cuda_event(rt, event)?;
        sticky(&ev.context)?;
        crate::api::not_in_callback("cuEventSynchronize")?;
        capture::check_event(rt, &ev, "cuEventSynchronize")?;
        rt.wait_for_record(&ev, None, sync_policy(ev.flags))?;
        super::mem_pool::release_at_sync(rt, ev.context.device.id);
        Ok(())
    })
}

/// How `cuEventSynchronize` waits: `CU_EVENT_BLOCKING_SYNC` sleeps, the default spins.
fn sync_policy(event_flags: u32) -> SpinPolicy {
    if event_flags & CU_EVENT_BLOCKING_SYNC != 0 {
        SpinPolicy::Brief
    } else {
        SpinPolicy::Always
    }
}

fn elapsed(start: EventHandle, end: EventHandle, report_sticky: bool) -> CuResultOf<f32> {
    cu(|rt| {
        let s = cuda_event(rt, start)?;
        let e = cuda_event(rt, end)?;
        if report_sticky {
            sticky(&s.context)?;
            sticky(&e.context)?;
        }
        for ev in [&s, &e] {
            capture::check_event(rt, ev, "cuEventElapsedTime")?;
            if ev.flags & CU_EVENT_DISABLE_TIMING != 0 {
                return fail(
                    CUDA_ERROR_INVALID_HANDLE,
                    format!(
                        "event {} was created with CU_EVENT_DISABLE_TIMING and has no timestamps",
                        ev.id
                    ),
                );
            }
        }
        let times = [
            crate::api::completion_time_ns(&s),
            crate::api::completion_time_ns(&e),
        ];
        use crate::api::NoTime;
        if times
            .iter()
            .any(|t| matches!(t, Err(NoTime::NeverRecorded)))
        {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                "cuEventElapsedTime: an event has never been recorded",
            );
        }
        match times {
            [Ok(t0), Ok(t1)] => Ok(((t1 as f64 - t0 as f64) / 1e6) as f32),
            _ => fail(
                CUDA_ERROR_NOT_READY,
                "cuEventElapsedTime: a recorded event has not completed yet",
            ),
        }
    })
}

/// `cuEventElapsedTime`: milliseconds between the two events' completions (nanosecond
/// timestamps, so finer than the 0.5 µs CUDA promises). Reports a sticky context error first.
pub fn event_elapsed_time(start: EventHandle, end: EventHandle) -> CuResultOf<f32> {
    elapsed(start, end, true)
}

/// `cuEventElapsedTime_v2`: as [`event_elapsed_time`], but does not report errors of pending
/// work: completion is for [`event_query`] to poll.
pub fn event_elapsed_time_v2(start: EventHandle, end: EventHandle) -> CuResultOf<f32> {
    elapsed(start, end, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_blocking_sync_events_sleep() {
        assert_eq!(sync_policy(CU_EVENT_BLOCKING_SYNC), SpinPolicy::Brief);
        assert_eq!(
            sync_policy(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING),
            SpinPolicy::Brief
        );
        assert_eq!(sync_policy(0), SpinPolicy::Always);
        assert_eq!(sync_policy(CU_EVENT_DISABLE_TIMING), SpinPolicy::Always);
    }
}
