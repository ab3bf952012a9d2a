//! Core resource limits of devices, streams and threads (`aclrtSetDeviceResLimit` and the
//! calls beside it).
//!
//! A limit is a number of cube or vector cores (`aclrtDevResLimitType`), at most the emulated
//! chip's count of that kind ([`EMULATED_CUBE_CORE_LIMIT`], [`EMULATED_VECTOR_CORE_LIMIT`]).
//! What a thread may use is, in this order: the limit of the stream it chose with
//! `aclrtUseStreamResInCurrentThread`, if that stream has one of the kind; the process's limit
//! on the current device; the chip's count. The emulated device runs kernels as host code, so
//! limits are values programs read back to size their launches; they never slow work down.
//!
//! [`EMULATED_CUBE_CORE_LIMIT`]: crate::res_limit::EMULATED_CUBE_CORE_LIMIT
//! [`EMULATED_VECTOR_CORE_LIMIT`]: crate::res_limit::EMULATED_VECTOR_CORE_LIMIT

use std::sync::Arc;

use crate::codes::*;
use crate::device::Device;
use crate::error::{bail, Result};
use crate::handle::StreamHandle;
use crate::res_limit::CoreKind;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::thread_state;

/// The kind an `aclrtDevResLimitType` value names; another value is `107000`.
fn core_kind(raw: u32, call: &str) -> Result<CoreKind> {
    match CoreKind::from_raw(raw) {
        Some(kind) => Ok(kind),
        None => bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: resource type {raw} is not an aclrtDevResLimitType (0 cube cores, 1 vector \
             cores)"
        ),
    }
}

/// A limit `value` of `kind`: at most the chip's count (`107000` beyond).
fn check_limit(kind: CoreKind, value: u32, call: &str) -> Result<()> {
    if value > kind.total() {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: {value} {kind:?} cores is more than the emulated device has ({})",
            kind.total()
        );
    }
    Ok(())
}

impl Runtime {
    /// A device whose limits may be read or changed: a valid id (`107001`; a negative id
    /// before the resource type is checked, `107000`) of a device in use, one that `aclrtSetDevice` or `aclrtCreateContext` opened and
    /// that has not been released since (`507033`, `ACL_ERROR_RT_DEV_SETUP_ERROR`).
    fn device_in_use(&self, id: i32, kind: Option<u32>, call: &str) -> Result<Arc<Device>> {
        if id < 0 {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{call}: device id {id} is negative"
            );
        }
        if let Some(raw) = kind {
            core_kind(raw, call)?;
        }
        let device = self.device_checked(id)?;
        if !self.device_has_context(&device) {
            bail!(
                ACL_ERROR_RT_DEV_SETUP_ERROR,
                "{call}: device {id} is not in use: call aclrtSetDevice first"
            );
        }
        Ok(device)
    }

    /// Whether any live context (a default one included) is on `device`.
    pub(crate) fn device_has_context(&self, device: &Arc<Device>) -> bool {
        self.contexts
            .values()
            .iter()
            .any(|(_, ctx)| Arc::ptr_eq(&ctx.device, device) && !ctx.is_destroyed())
    }

    /// Forgets the process's limits on `device` once nothing uses it any more: the next
    /// `aclrtSetDevice` finds the chip's counts again.
    pub(crate) fn release_core_limits_if_unused(&self, device: &Arc<Device>) {
        if !self.device_has_context(device) {
            device.core_limits.clear();
        }
    }

    /// `aclrtGetDeviceResLimit`: the process's limit of `kind` on the device, or the chip's
    /// count when none is set.
    pub fn get_device_res_limit(&self, device_id: i32, kind: u32) -> Result<u32> {
        let call = "aclrtGetDeviceResLimit";
        let device = self.device_in_use(device_id, Some(kind), call)?;
        let kind = core_kind(kind, call)?;
        Ok(device.core_limits.get(kind).unwrap_or(kind.total()))
    }

    /// `aclrtSetDeviceResLimit`: limits the process's work on the device to `value` cores of
    /// `kind` (0 to the chip's count, else `107000`). The last setting wins; it lasts until
    /// `aclrtResetDeviceResLimit` or until the device is released.
    pub fn set_device_res_limit(&self, device_id: i32, kind: u32, value: u32) -> Result<()> {
        let call = "aclrtSetDeviceResLimit";
        let device = self.device_in_use(device_id, Some(kind), call)?;
        let kind = core_kind(kind, call)?;
        check_limit(kind, value, call)?;
        device.core_limits.set(kind, value);
        Ok(())
    }

    /// `aclrtResetDeviceResLimit`: back to the chip's counts.
    pub fn reset_device_res_limit(&self, device_id: i32) -> Result<()> {
        let device = self.device_in_use(device_id, None, "aclrtResetDeviceResLimit")?;
        device.core_limits.clear();
        Ok(())
    }

    /// The stream a limit call names: a live stream (`107017` otherwise), or for NULL the
    /// current context's default stream (`107002` without one). The stream need not belong to
    /// the current context.
    fn res_limit_stream(&self, stream: Option<Arc<Stream>>) -> Result<Arc<Stream>> {
        match stream {
            Some(s) => Ok(s),
            None => super::default_stream(&*self.current_context()?),
        }
    }

    /// `aclrtGetStreamResLimit`: the stream's limit of `kind`, else the process's limit on its
    /// device, else the chip's count.
    pub fn get_stream_res_limit(&self, handle: StreamHandle, kind: u32) -> Result<u32> {
        let stream = self.lookup_stream(handle)?;
        let kind = core_kind(kind, "aclrtGetStreamResLimit")?;
        let stream = self.res_limit_stream(stream)?;
        Ok(stream_limit(&stream, kind))
    }

    /// `aclrtSetStreamResLimit`: limits `kind` for the threads that use this stream's limits
    /// (0 to the chip's count, else `107000`; it may exceed the device's limit).
    pub fn set_stream_res_limit(&self, handle: StreamHandle, kind: u32, value: u32) -> Result<()> {
        let call = "aclrtSetStreamResLimit";
        let stream = self.lookup_stream(handle)?;
        let kind = core_kind(kind, call)?;
        let stream = self.res_limit_stream(stream)?;
        check_limit(kind, value, call)?;
        stream.core_limits.set(kind, value);
        Ok(())
    }

    /// `aclrtResetStreamResLimit`: the stream follows its device again.
    pub fn reset_stream_res_limit(&self, handle: StreamHandle) -> Result<()> {
        let stream = self.lookup_stream(handle)?;
        self.res_limit_stream(stream)?.core_limits.clear();
        Ok(())
    }

    /// `aclrtUseStreamResInCurrentThread`: the calling thread uses this stream's limits (the
    /// last call wins) until `aclrtUnuseStreamResInCurrentThread`, or until the stream is
    /// destroyed.
    pub fn use_stream_res_in_current_thread(&self, handle: StreamHandle) -> Result<()> {
        let stream = self.lookup_stream(handle)?;
        let stream = self.res_limit_stream(stream)?;
        thread_state::set_res_limit_stream(self.serial, Some(stream.handle));
        Ok(())
    }

    /// `aclrtUnuseStreamResInCurrentThread`: stops using the stream's limits if the thread uses
    /// them; naming another stream changes nothing and succeeds.
    pub fn unuse_stream_res_in_current_thread(&self, handle: StreamHandle) -> Result<()> {
        let stream = self.lookup_stream(handle)?;
        let stream = self.res_limit_stream(stream)?;
        if thread_state::res_limit_stream(self.serial) == Some(stream.handle) {
            thread_state::set_res_limit_stream(self.serial, None);
        }
        Ok(())
    }

    /// `aclrtGetResInCurrentThread`: what the calling thread may use of `kind`: its stream's
    /// limit (`aclrtUseStreamResInCurrentThread`) if set, else the process's limit on the
    /// current device, else the chip's count. Without a stream limit it needs a current
    /// context (`107002`).
    pub fn get_res_in_current_thread(&self, kind: u32) -> Result<u32> {
        let kind = core_kind(kind, "aclrtGetResInCurrentThread")?;
        let chosen = thread_state::res_limit_stream(self.serial)
            .and_then(|handle| self.streams.get(handle.as_raw()));
        if let Some(value) = chosen.and_then(|s| s.core_limits.get(kind)) {
            return Ok(value);
        }
        let device = self.current_context()?.device.clone();
        Ok(device.core_limits.get(kind).unwrap_or(kind.total()))
    }
}

/// A stream's limit of `kind`: its own, else its device's, else the chip's count.
fn stream_limit(stream: &Stream, kind: CoreKind) -> u32 {
    stream
        .core_limits
        .get(kind)
        .or_else(|| stream.context.device.core_limits.get(kind))
        .unwrap_or(kind.total())
}
