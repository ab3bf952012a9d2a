//! Process, device and context calls.

use std::sync::Arc;

use super::{not_in_callback, sync_timeout};
use crate::codes::*;
use crate::device::Device;
use crate::error::{bail, err, Result};
use crate::exec::Channel;
use crate::handle::{ContextHandle, StreamHandle};
use crate::policy::{ContextPolicy, LegacySync};
use crate::runtime::Runtime;
use crate::stream::Context;
use crate::stream::Stream;
use crate::sync::lock;
use crate::thread_state;
use crate::vendor_consts as vc;

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

impl Runtime {
    /// Tears the runtime down (`aclFinalize`): every context and stream is destroyed, queued
    /// work is discarded (a task already running finishes first), events, subscriptions and
    /// memory are released. Returns once destroy calls that other threads had under way have
    /// finished too, so no kernel of this runtime is still running.
    pub fn shut_down(&self) {
        crate::sync::order::assert_none_held("tearing a runtime down");
        // From here on nothing new appears: what the loops below find is everything.
        self.close_creations();
        for (_, ctx) in self.contexts.values() {
            self.destroy_context_now(&ctx, false);
        }
        for (raw, event) in self.events.values() {
            if self.events.remove(raw).is_some() {
                event.retire();
            }
        }
        self.reports
            .clear("the runtime was finalized (aclFinalize)");
        self.host_funcs
            .clear("the runtime was finalized (aclFinalize)");
        self.clear_ipc();
        self.clear_vmm();
        self.memory.clear();
        for device in self.devices() {
            lock(self.binding(device)).default_context = None;
        }
        self.wait_for_teardowns();
        // Every stream is drained: the pool's workers leave (a runtime kept alive elsewhere
        // holds no idle threads).
        if let Some(owner) = &self.pool_owner {
            owner.0.shut_down();
        }
    }

    /// Counts the live objects.
    pub fn live_objects(&self) -> LiveObjects {
        LiveObjects {
            contexts: self.contexts.live(),
            streams: self.streams.live(),
            events: self.events.live(),
            allocations: self.memory.live(),
            callback_threads: self.reports.count() + self.host_funcs.count(),
        }
    }

    fn device_by_id(&self, id: i32) -> Result<Arc<Device>> {
        self.device(id).ok_or_else(|| {
            crate::error::Error::new(
                ACL_ERROR_RT_INVALID_DEVICEID,
                format!(
                    "device id {id} is out of range: {} device(s) visible",
                    self.device_count()
                ),
            )
        })
    }

    /// Tells the stream state callbacks about a new context's default stream (called with no
    /// lock held: they are user code).
    pub(crate) fn default_stream_created(&self, ctx: &Context) {
        if let Some(stream) = ctx.default_stream() {
            self.stream_state_changed(stream.handle, true);
        }
    }

    /// Creates a context with its default stream.
    pub(crate) fn new_context(
        &self,
        device: &Arc<Device>,
        is_default: bool,
        policy: ContextPolicy,
    ) -> Result<Arc<Context>> {
        let _creating = self.creating()?;
        let Some(stream_id) = device.acquire_stream() else {
            bail!(
                ACL_ERROR_RT_NO_STREAM_RESOURCE,
                "device {} has no stream left for a new context's default stream",
                device.id
            );
        };
        let ctx = self.contexts.insert_with(|raw| {
            Arc::new(Context::new(
                ContextHandle::from_raw(raw),
                device.clone(),
                is_default,
                policy,
            ))
        });
        let stream = self.streams.insert_with(|raw| {
            Stream::new_arc(
                StreamHandle::from_raw(raw),
                stream_id,
                ctx.clone(),
                true,
                0,
                0,
                // The default stream is the legacy stream itself.
                LegacySync::Independent,
            )
        });
        let _ = ctx.default_stream.set(Arc::downgrade(&stream));
        if !ctx.add_stream(stream.clone()) {
            // Not reached while the creation guard is held (a finalize waits for it before it
            // destroys contexts); kept so that a context is never left without its stream.
            self.streams.remove(stream.handle.as_raw());
            device.release_stream(stream_id);
            bail!(
                ACL_ERROR_RT_CONTEXT_NULL,
                "the new context was destroyed while it was being made (aclFinalize)"
            );
        }
        Ok(ctx)
    }

    /// Tears a stream down: handle dead, callbacks unsubscribed, worker stopped, its slot and
    /// id given back to the device. The caller that removes the handle is the one that does
    /// it: `false` (and nothing done) when another call got there first.
    pub(crate) fn retire_stream(&self, stream: &Arc<Stream>, discard: bool) -> bool {
        if !self.close_stream(stream, discard) {
            return false;
        }
        self.join_stream(stream);
        true
    }

    /// The first half of [`Runtime::retire_stream`]: handle dead, callbacks unsubscribed, no
    /// new work taken (`discard`: queued work dropped). `false` when another call got there
    /// first.
    pub(crate) fn close_stream(&self, stream: &Arc<Stream>, discard: bool) -> bool {
        if self.streams.get(stream.handle.as_raw()).is_none() {
            return false;
        }
        // DESTROY_PRE: the callbacks still see a live stream (two destroys racing may both
        // report it; only one goes on to tear it down).
        self.stream_state_changed(stream.handle, false);
        if self.streams.remove(stream.handle.as_raw()).is_none() {
            return false;
        }
        crate::observe::stream_retired(stream.handle.as_raw());
        for channel in [Channel::Report, Channel::HostFunc] {
            if let Some(sub) = lock(stream.subscription(channel)).take() {
                self.hub(channel).unsubscribe(&sub, stream.handle);
            }
        }
        stream.close(discard);
        true
    }

    /// The second half: waits for the closed stream's worker to finish what is left and
    /// gives its id back to the device.
    pub(crate) fn join_stream(&self, stream: &Stream) {
        crate::sync::order::assert_none_held("joining a stream worker");
        stream.join_worker();
        stream.context.device.release_stream(stream.id);
    }

    /// Joins the streams of `ctx` that a forced destroy left draining and that have run
    /// everything they had (their workers exit at once).
    pub(crate) fn reap_drained(&self, ctx: &Context) {
        for s in ctx.take_draining_where(|s| s.is_idle()) {
            self.join_stream(&s);
        }
    }

    /// Destroys a context and all its streams; with `wait`, pending work finishes first. The
    /// caller that removes the context's handle does it: `false` when another call got there
    /// first (its streams are that call's to retire).
    fn destroy_context_now(&self, ctx: &Arc<Context>, wait: bool) -> bool {
        if self.contexts.remove(ctx.handle.as_raw()).is_none() {
            return false;
        }
        let streams = ctx.close_and_take_streams();
        // Streams left draining by a forced destroy: their handles are already dead.
        let draining = ctx.take_draining_where(|_| true);
        if wait {
            for s in streams.iter().chain(&draining) {
                s.wait_idle(None);
            }
        }
        for s in &streams {
            self.retire_stream(s, !wait);
        }
        for s in &draining {
            s.close(!wait);
            self.join_stream(s);
        }
        if thread_state::current_context(self.serial) == Some(ctx.handle) {
            thread_state::set_current_context(self.serial, None);
        }
        true
    }

    /// `aclrtSetDevice`: binds the thread to the device's default context (created on first use).
    pub fn set_device(&self, id: i32) -> Result<()> {
        let device = self.device_by_id(id)?;
        let mut binding = lock(self.binding(&device));
        let (ctx, made) = match &binding.default_context {
            Some(ctx) => (ctx.clone(), false),
            None => {
                let ctx = self.new_context(&device, true, ContextPolicy::ACL)?;
                binding.default_context = Some(ctx.clone());
                (ctx, true)
            }
        };
        binding.set_count += 1;
        drop(binding);
        crate::clock::start();
        thread_state::set_current_context(self.serial, Some(ctx.handle));
        if made {
            // Stream state callbacks are user code: told after the binding is released.
            self.default_stream_created(&ctx);
        }
        self.device_state_changed(id, vc::ACL_RT_DEVICE_STATE_SET_POST);
        Ok(())
    }

    /// `aclrtResetDevice`: at count zero waits for pending work, then destroys the default
    /// context and its streams. The wait happens after the device's binding is released: the
    /// work waited for may itself set the device.
    pub fn reset_device(&self, id: i32) -> Result<()> {
        let device = self.device_by_id(id)?;
        not_in_callback("aclrtResetDevice")?;
        let teardown = self.teardown();
        let released = {
            let mut binding = lock(self.binding(&device));
            if binding.set_count == 0 {
                bail!(
                    ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                    "device {id} is not set (aclrtResetDevice without a matching aclrtSetDevice)"
                );
            }
            binding.set_count -= 1;
            if binding.set_count == 0 {
                binding.default_context.take()
            } else {
                None
            }
        };
        if let Some(ctx) = released {
            self.device_state_changed(id, vc::ACL_RT_DEVICE_STATE_RESET_PRE);
            self.destroy_context_now(&ctx, true);
            self.release_core_limits_if_unused(&device);
            self.device_state_changed(id, vc::ACL_RT_DEVICE_STATE_RESET_POST);
        }
        drop(teardown);
        Ok(())
    }

    /// `aclrtGetDevice`: the device of the current context.
    pub fn get_device(&self) -> Result<i32> {
        Ok(self.current_context()?.device.id)
    }

    /// `aclrtGetDeviceCount`.
    pub fn get_device_count(&self) -> Result<u32> {
        Ok(self.device_count() as u32)
    }

    fn lookup_context(&self, handle: ContextHandle) -> Result<Arc<Context>> {
        if let Some(ctx) = self.contexts.get(handle.as_raw()) {
            return Ok(ctx);
        }
        if self.contexts.was_issued(handle.as_raw()) {
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
    pub fn create_context(&self, device_id: i32) -> Result<ContextHandle> {
        let device = self.device_by_id(device_id)?;
        let ctx = self.new_context(&device, false, ContextPolicy::ACL)?;
        self.default_stream_created(&ctx);
        crate::clock::start();
        thread_state::set_current_context(self.serial, Some(ctx.handle));
        Ok(ctx.handle)
    }

    /// `aclrtDestroyContext`: waits for its streams' work, then destroys them. The default context
    /// cannot be destroyed this way.
    pub fn destroy_context(&self, handle: ContextHandle) -> Result<()> {
        let ctx = self.lookup_context(handle)?;
        if ctx.is_default {
            bail!(
                ACL_ERROR_RT_CONTEXT_NULL,
                "{handle:?} is a device's default context: release it with aclrtResetDevice"
            );
        }
        not_in_callback("aclrtDestroyContext")?;
        let _teardown = self.teardown();
        if !self.destroy_context_now(&ctx, true) {
            bail!(
                ACL_ERROR_RT_CONTEXT_NULL,
                "{handle:?} was destroyed by another call meanwhile"
            );
        }
        self.release_core_limits_if_unused(&ctx.device);
        Ok(())
    }

    /// `aclrtSetCurrentContext`.
    pub fn set_current_context(&self, handle: ContextHandle) -> Result<()> {
        let ctx = self.lookup_context(handle)?;
        thread_state::set_current_context(self.serial, Some(ctx.handle));
        Ok(())
    }

    /// `aclrtGetCurrentContext`.
    pub fn get_current_context(&self) -> Result<ContextHandle> {
        Ok(self.current_context()?.handle)
    }

    /// `aclrtSynchronizeDevice` / `...WithTimeout` (`-1` forever): waits for every stream of the
    /// current context; reports (and clears) the first failure found.
    pub fn synchronize_device_with_timeout(&self, timeout_ms: i32) -> Result<()> {
        let ctx = self.current_context()?;
        let deadline = sync_timeout(timeout_ms)?;
        not_in_callback("aclrtSynchronizeDevice")?;
        // Work a forced destroy left queued is the device's too.
        let mut streams = ctx.streams();
        streams.extend(ctx.draining());
        let targets: Vec<u64> = streams.iter().map(|s| s.submitted()).collect();
        let waits_for = || {
            let last = |(s, upto): (&Arc<crate::stream::Stream>, &u64)| {
                upto.checked_sub(1).map(|t| s.task_ref(t))
            };
            streams.iter().zip(&targets).filter_map(last).collect()
        };
        let all_done = super::traced_wait_on("aclrtSynchronizeDevice", waits_for, || {
            streams.iter().all(|s| s.wait_idle(deadline))
        });
        if !all_done {
            bail!(
                ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                "device {} did not finish its work within {timeout_ms} ms",
                ctx.device.id
            );
        }
        for (s, upto) in streams.iter().zip(targets) {
            super::observe_completion(s, upto);
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
    }

    /// `aclrtSynchronizeDevice`.
    pub fn synchronize_device(&self) -> Result<()> {
        self.synchronize_device_with_timeout(-1)
    }
}
