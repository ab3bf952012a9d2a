//! Floating-point overflow detection: the process's saturation mode
//! (`aclrtSetDeviceSatMode`), the per-stream detection switch (`aclrtSetStreamOverflowSwitch`)
//! and the overflow status tasks (`aclrtGetOverflowStatus`, `aclrtResetOverflowStatus`).
//!
//! Host kernels do no AI-core arithmetic, so nothing on the emulated device ever overflows:
//! the modes and switches are kept and read back exactly, and the status a stream reports is
//! always clear (all [`OVERFLOW_STATUS_SIZE`] bytes zero), written in stream order as the
//! vendor's copy of the device's status area is.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::task_info::{MemRange, TaskKind, TaskMeta};

/// `ACL_RT_OVERFLOW_MODE_INFNAN`, the mode until one is set (`settings`): the vendor's
/// runtime starts in it on chips with the overflow-mode feature, the emulated A2 chip among
/// them.
pub const OVERFLOW_MODE_INFNAN: u32 = crate::vendor_consts::ACL_RT_OVERFLOW_MODE_INFNAN as u32;
/// `ACL_RT_OVERFLOW_MODE_UNDEF`: modes and switches are below it.
const OVERFLOW_MODE_UNDEF: u32 = 2;
/// The only output size `aclrtGetOverflowStatus` takes, in bytes (the vendor's status area).
pub const OVERFLOW_STATUS_SIZE: usize = 64;

impl Runtime {
    /// `aclrtSetDeviceSatMode`: the process's floating-point overflow mode,
    /// `ACL_RT_OVERFLOW_MODE_SATURATION` (0) or `ACL_RT_OVERFLOW_MODE_INFNAN` (1); anything
    /// else is `107000`. Needs no current context.
    pub fn set_device_sat_mode(&self, mode: u32) -> Result<()> {
        if mode >= OVERFLOW_MODE_UNDEF {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtSetDeviceSatMode: mode {mode} is not in [0, 2) (0 saturation, 1 inf/nan)"
            );
        }
        self.settings.sat_mode.store(mode, Ordering::Relaxed);
        Ok(())
    }

    /// `aclrtGetDeviceSatMode`: the mode last set, inf/nan (1) until then.
    pub fn get_device_sat_mode(&self) -> Result<u32> {
        Ok(self.settings.sat_mode.load(Ordering::Relaxed))
    }

    /// The stream an overflow call names (NULL: the default stream), of the current context.
    fn overflow_stream(&self, handle: StreamHandle, call: &str) -> Result<Arc<Stream>> {
        self.stream_of_current_context(self.lookup_stream(handle)?, call)
    }

    /// `aclrtSetStreamOverflowSwitch`: turns overflow detection of the stream's tasks on (1)
    /// or off (0); other values are `107000`.
    pub fn set_stream_overflow_switch(&self, handle: StreamHandle, flag: u32) -> Result<()> {
        if flag >= OVERFLOW_MODE_UNDEF {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtSetStreamOverflowSwitch: flag {flag} is not in [0, 2)"
            );
        }
        let stream = self.overflow_stream(handle, "aclrtSetStreamOverflowSwitch")?;
        stream.overflow_switch.store(flag, Ordering::Relaxed);
        Ok(())
    }

    /// `aclrtGetStreamOverflowSwitch`: the stream's switch, off (0) until set.
    pub fn get_stream_overflow_switch(&self, handle: StreamHandle) -> Result<u32> {
        let stream = self.overflow_stream(handle, "aclrtGetStreamOverflowSwitch")?;
        Ok(stream.overflow_switch.load(Ordering::Relaxed))
    }

    /// `aclrtGetOverflowStatus`: a task on the stream that writes the device's overflow status
    /// into the `size` bytes at `output`, which must be exactly [`OVERFLOW_STATUS_SIZE`]
    /// (`107000` otherwise) of runtime memory. The status is always clear (zeros).
    ///
    /// # Safety
    /// `output` must stay valid until the task has run (runtime memory is checked).
    pub unsafe fn get_overflow_status(
        &self,
        output: usize,
        size: usize,
        handle: StreamHandle,
    ) -> Result<()> {
        if output == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtGetOverflowStatus: outputAddr is NULL"
            );
        }
        if size != OVERFLOW_STATUS_SIZE {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtGetOverflowStatus: output size {size} is invalid: only \
                 {OVERFLOW_STATUS_SIZE} bytes are supported"
            );
        }
        let stream = self.overflow_stream(handle, "aclrtGetOverflowStatus")?;
        self.memory
            .check_access(output, size, "overflow status output")?;
        let meta = TaskMeta {
            name: Some(Arc::from("aclrtGetOverflowStatus")),
            writes: vec![MemRange {
                start: output,
                len: size,
            }],
            submitter_thread: super::os_thread_id(),
            ..TaskMeta::default()
        };
        let work = Work::Set {
            dst: output,
            value: 0,
            len: size,
        };
        self.submit(&stream, TaskKind::Memset, work, meta)
            .map(|_| ())
    }

    /// `aclrtResetOverflowStatus`: a task on the stream that clears the device's overflow
    /// status (already clear on the emulated device: it orders like any task and changes
    /// nothing).
    pub fn reset_overflow_status(&self, handle: StreamHandle) -> Result<()> {
        let stream = self.overflow_stream(handle, "aclrtResetOverflowStatus")?;
        let meta = TaskMeta {
            name: Some(Arc::from("aclrtResetOverflowStatus")),
            submitter_thread: super::os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(
            &stream,
            TaskKind::Kernel,
            Work::Kernel(Box::new(|| Ok(()))),
            meta,
        )
        .map(|_| ())
    }
}
