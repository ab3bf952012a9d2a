//! Process, device and context calls.

use std::sync::Arc;

use super::{call, current_context, initialized, not_in_callback, sync_timeout};
use crate::codes::*;
use crate::config::Config;
use crate::context::Context;
use crate::device::Device;
use crate::error::{bail, err, Result};
use crate::handle::{ContextHandle, StreamHandle};
use crate::runtime::RUNTIME;
use crate::stream::Stream;
use crate::sync::lock;
use crate::thread_state;

/// Sets the emulated device's configuration; only before `aclInit` (else `100000`).
pub fn configure(config: Config) -> Result<()> {
    call(|| {
        let mut life = lock(&RUNTIME.lifecycle);
        if life.init_count > 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "the emulated device can be configured only before aclInit"
            );
        }
        life.configured = Some(config);
        Ok(())
    })
}

/// `aclInit`. A repeated call returns `ACL_ERROR_REPEAT_INITIALIZE` and still counts.
pub fn init() -> Result<()> {
    call(|| {
        let mut life = lock(&RUNTIME.lifecycle);
        if life.init_count > 0 {
            life.init_count += 1;
            bail!(
                ACL_ERROR_REPEAT_INITIALIZE,
                "aclInit was already called ({} times now)",
                life.init_count
            );
        }
        let config = life.configured.take().unwrap_or_else(Config::from_env);
        RUNTIME.install_devices(&config);
        life.init_count = 1;
        RUNTIME.set_initialized(true);
        crate::trace::on_init();
        Ok(())
    })
}

/// `aclFinalize`: tears everything down whatever the init count. Queued work is discarded; a
/// task already running finishes first.
pub fn finalize() -> Result<()> {
    call(|| {
        let mut life = lock(&RUNTIME.lifecycle);
        if life.init_count == 0 {
            bail!(
                ACL_ERROR_REPEAT_FINALIZE,
                "aclFinalize without a matching aclInit"
            );
        }
        not_in_callback("aclFinalize")?;
        RUNTIME.set_initialized(false);
        let contexts: Vec<_> = RUNTIME.contexts.values();
        for (_, ctx) in &contexts {
            destroy_context_now(ctx, false);
        }
        for (raw, event) in RUNTIME.events.values() {
            RUNTIME.events.remove(raw);
            event.release_sync_resource(&mut lock(&event.state));
        }
        RUNTIME.reports.clear();
        RUNTIME.memory.clear();
        for device in RUNTIME.take_devices() {
            lock(&device.binding).default_context = None;
        }
        thread_state::set_current_context(None);
        life.init_count = 0;
        crate::trace::on_finalize();
        Ok(())
    })
}

/// Objects alive in the runtime, for leak checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveObjects {
    /// Contexts (default ones included).
    pub contexts: usize,
    /// Streams (default ones included).
    pub streams: usize,
    /// Events.
    pub events: usize,
    /// Runtime memory allocations.
    pub allocations: usize,
    /// Threads subscribed for callbacks.
    pub callback_threads: usize,
}

/// Counts the live objects.
pub fn live_objects() -> LiveObjects {
    LiveObjects {
        contexts: RUNTIME.contexts.live(),
        streams: RUNTIME.streams.live(),
        events: RUNTIME.events.live(),
        allocations: RUNTIME.memory.live(),
        callback_threads: RUNTIME.reports.count(),
    }
}

fn device(id: i32) -> Result<Arc<Device>> {
    RUNTIME.device(id).ok_or_else(|| {
        crate::error::Error::new(
            ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "device id {id} is out of range: {} device(s) visible",
                RUNTIME.device_count()
            ),
        )
    })
}

/// Creates a context with its default stream.
pub(crate) fn new_context(
    device: &Arc<Device>,
    is_default: bool,
    cuda: bool,
) -> Result<Arc<Context>> {
    let Some(stream_id) = device.acquire_stream() else {
        bail!(
            ACL_ERROR_RT_NO_STREAM_RESOURCE,
            "device {} has no stream left for a new context's default stream",
            device.id
        );
    };
    let ctx = RUNTIME.contexts.insert_with(|raw| {
        Arc::new(Context::new(
            ContextHandle::from_raw(raw),
            device.clone(),
            is_default,
            cuda,
        ))
    });
    let stream = RUNTIME.streams.insert_with(|raw| {
        Arc::new(Stream::new(
            StreamHandle::from_raw(raw),
            stream_id,
            ctx.clone(),
            true,
            0,
            0,
            cuda,
        ))
    });
    let _ = ctx.default_stream.set(Arc::downgrade(&stream));
    ctx.add_stream(stream);
    Ok(ctx)
}

/// Tears a stream down: handle dead, callbacks unsubscribed, worker stopped.
pub(crate) fn retire_stream(stream: &Arc<Stream>, discard: bool) {
    RUNTIME.streams.remove(stream.handle.as_raw());
    if let Some(sub) = lock(&stream.subscriber).take() {
        RUNTIME.reports.unsubscribe(&sub, stream.handle);
    }
    stream.close(discard);
    stream.join_worker();
    stream.context.device.release_stream(stream.id);
}

/// Destroys a context and all its streams; with `wait`, pending work finishes first.
fn destroy_context_now(ctx: &Arc<Context>, wait: bool) {
    RUNTIME.contexts.remove(ctx.handle.as_raw());
    ctx.mark_destroyed();
    let streams = ctx.take_streams();
    if wait {
        for s in &streams {
            s.wait_idle(None);
        }
    }
    for s in &streams {
        retire_stream(s, !wait);
    }
    if thread_state::current_context() == Some(ctx.handle) {
        thread_state::set_current_context(None);
    }
}

/// `aclrtSetDevice`: binds the thread to the device's default context (created on first use).
pub fn set_device(id: i32) -> Result<()> {
    call(|| {
        initialized()?;
        let device = device(id)?;
        let mut binding = lock(&device.binding);
        let ctx = match &binding.default_context {
            Some(ctx) => ctx.clone(),
            None => {
                let ctx = new_context(&device, true, false)?;
                binding.default_context = Some(ctx.clone());
                ctx
            }
        };
        binding.set_count += 1;
        RUNTIME.start_clock();
        thread_state::set_current_context(Some(ctx.handle));
        Ok(())
    })
}

/// `aclrtResetDevice`: at count zero waits for pending work, then destroys the default
/// context and its streams.
pub fn reset_device(id: i32) -> Result<()> {
    call(|| {
        initialized()?;
        let device = device(id)?;
        not_in_callback("aclrtResetDevice")?;
        let mut binding = lock(&device.binding);
        if binding.set_count == 0 {
            bail!(
                ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                "device {id} is not set (aclrtResetDevice without a matching aclrtSetDevice)"
            );
        }
        binding.set_count -= 1;
        if binding.set_count == 0 {
            if let Some(ctx) = binding.default_context.take() {
                destroy_context_now(&ctx, true);
            }
        }
        Ok(())
    })
}

/// `aclrtGetDevice`: the device of the current context.
pub fn get_device() -> Result<i32> {
    call(|| {
        initialized()?;
        Ok(current_context()?.device.id)
    })
}

/// `aclrtGetDeviceCount`.
pub fn get_device_count() -> Result<u32> {
    call(|| {
        initialized()?;
        Ok(RUNTIME.device_count() as u32)
    })
}

fn lookup_context(handle: ContextHandle) -> Result<Arc<Context>> {
    if let Some(ctx) = RUNTIME.contexts.get(handle.as_raw()) {
        return Ok(ctx);
    }
    if RUNTIME.contexts.was_issued(handle.as_raw()) {
        err(
            ACL_ERROR_RT_CONTEXT_NULL,
            format!("{handle:?} has been destroyed"),
        )
    } else {
        err(
            ACL_ERROR_RT_INVALID_HANDLE,
            format!("{handle:?} is not a context handle"),
        )
    }
}

/// `aclrtCreateContext`: a new explicit context on `device_id`, made current.
pub fn create_context(device_id: i32) -> Result<ContextHandle> {
    call(|| {
        initialized()?;
        let device = device(device_id)?;
        let ctx = new_context(&device, false, false)?;
        RUNTIME.start_clock();
        thread_state::set_current_context(Some(ctx.handle));
        Ok(ctx.handle)
    })
}

/// `aclrtDestroyContext`: waits for its streams' work, then destroys them. The default context
/// cannot be destroyed this way.
pub fn destroy_context(handle: ContextHandle) -> Result<()> {
    call(|| {
        initialized()?;
        let ctx = lookup_context(handle)?;
        if ctx.is_default {
            bail!(
                ACL_ERROR_RT_CONTEXT_NULL,
                "{handle:?} is a device's default context: release it with aclrtResetDevice"
            );
        }
        not_in_callback("aclrtDestroyContext")?;
        destroy_context_now(&ctx, true);
        Ok(())
    })
}

/// `aclrtSetCurrentContext`.
pub fn set_current_context(handle: ContextHandle) -> Result<()> {
    call(|| {
        initialized()?;
        let ctx = lookup_context(handle)?;
        thread_state::set_current_context(Some(ctx.handle));
        Ok(())
    })
}

/// `aclrtGetCurrentContext`.
pub fn get_current_context() -> Result<ContextHandle> {
    call(|| {
        initialized()?;
        Ok(current_context()?.handle)
    })
}

/// `aclrtSynchronizeDevice` / `...WithTimeout` (`-1` forever): waits for every stream of the
/// current context; reports (and clears) the first failure found.
pub fn synchronize_device_with_timeout(timeout_ms: i32) -> Result<()> {
    call(|| {
        initialized()?;
        let ctx = current_context()?;
        let deadline = sync_timeout(timeout_ms)?;
        not_in_callback("aclrtSynchronizeDevice")?;
        let streams = ctx.streams();
        let all_done = super::traced_wait("aclrtSynchronizeDevice", || {
            streams.iter().all(|s| s.wait_idle(deadline))
        });
        if !all_done {
            bail!(
                ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                "device {} did not finish its work within {timeout_ms} ms",
                ctx.device.id
            );
        }
        let mut first = None;
        for s in &streams {
            if let Some(f) = s.take_failure() {
                first.get_or_insert(f);
            }
        }
        match first {
            Some(f) => Err(super::failure_error(&f)),
            None => Ok(()),
        }
    })
}

/// `aclrtSynchronizeDevice`.
pub fn synchronize_device() -> Result<()> {
    synchronize_device_with_timeout(-1)
}
