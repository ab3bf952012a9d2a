//! Stream calls beside create, destroy and synchronise: the current context's default stream,
//! stream flags and the streams left, configured creation (`aclrtCreateStreamV2`), abort, stop
//! and stream state callbacks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{default_stream, not_in_callback, traced_wait};
use crate::codes::*;
use crate::device::MAX_STREAMS_PER_DEVICE;
use crate::error::{bail, Result};
use crate::extras::{DeviceTaskAbortCallback, StreamStateCallback};
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::sync::lock;
use crate::vendor_consts as vc;

/// The longest `aclrtDeviceTaskAbort` timeout: 36 minutes, as the vendor documents.
pub const DEVICE_TASK_ABORT_TIMEOUT_MAX_MS: u32 = 36 * 60 * 1000;

/// `ACL_RT_DEVICE_TASK_ABORT_PRE`: the stage before a device's tasks are killed.
pub const DEVICE_TASK_ABORT_PRE: u32 = vc::ACL_RT_DEVICE_TASK_ABORT_PRE as u32;
/// `ACL_RT_DEVICE_TASK_ABORT_POST`: the stage once they are.
pub const DEVICE_TASK_ABORT_POST: u32 = vc::ACL_RT_DEVICE_TASK_ABORT_POST as u32;

/// What `aclrtCreateStreamV2` creates a stream from (`aclrtStreamConfigHandle`). The default
/// is what a NULL handle means: priority 0, no flags, no work area.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamConfig {
    /// `ACL_RT_STREAM_WORK_ADDR_PTR`: accepted and kept; the emulated device needs no work area.
    pub work_ptr: usize,
    /// `ACL_RT_STREAM_WORK_SIZE`: as `work_ptr`.
    pub work_size: usize,
    /// `ACL_RT_STREAM_FLAG`: the stream's flags, as `aclrtCreateStreamWithConfig` takes them.
    pub flags: usize,
    /// `ACL_RT_STREAM_PRIORITY`: 0 (highest) to 7.
    pub priority: u32,
}

impl StreamConfig {
    /// `aclrtSetStreamConfigOpt`: sets attribute `attr` from the bytes of its C value. The
    /// value must have the size of the attribute's C type (`void *`, `size_t`, `size_t` or
    /// `uint32_t` for the flag, `uint32_t`), a priority must be at most 7, and `attr` an
    /// `aclrtStreamConfigAttr`; otherwise `100000`, as the vendor's implementation returns.
    pub fn set(&mut self, attr: u32, value: &[u8]) -> Result<()> {
        fn exact<const N: usize>(value: &[u8], what: &str) -> Result<[u8; N]> {
            value.try_into().or_else(|_| {
                bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "aclrtSetStreamConfigOpt: the value of {what} has {} bytes, not {N}",
                    value.len()
                )
            })
        }
        const WORD: usize = std::mem::size_of::<usize>();
        match i64::from(attr) {
            vc::ACL_RT_STREAM_WORK_ADDR_PTR => {
                self.work_ptr = usize::from_ne_bytes(exact::<WORD>(value, "the work address")?)
            }
            vc::ACL_RT_STREAM_WORK_SIZE => {
                self.work_size = usize::from_ne_bytes(exact::<WORD>(value, "the work size")?)
            }
            // The handle's field is a `size_t`; the stream flags are a `uint32_t` elsewhere
            // (and so in the vendor's sample): either size is taken.
            vc::ACL_RT_STREAM_FLAG if value.len() == 4 => {
                self.flags = u32::from_ne_bytes(exact::<4>(value, "the flag")?) as usize
            }
            vc::ACL_RT_STREAM_FLAG => {
                self.flags = usize::from_ne_bytes(exact::<WORD>(value, "the flag")?)
            }
            vc::ACL_RT_STREAM_PRIORITY => {
                let priority = u32::from_ne_bytes(exact::<4>(value, "the priority")?);
                if priority > super::stream::LOWEST_STREAM_PRIORITY {
                    bail!(
                        ACL_ERROR_INVALID_PARAM,
                        "aclrtSetStreamConfigOpt: priority {priority} is not in [0, 7]"
                    );
                }
                self.priority = priority;
            }
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtSetStreamConfigOpt: {other} is not an aclrtStreamConfigAttr"
            ),
        }
        Ok(())
    }
}

impl Runtime {
    /// `aclrtCtxGetCurrentDefaultStream`: the current context's default stream as a handle of
    /// its own (the default stream's calls accept it as they accept NULL).
    pub fn ctx_get_current_default_stream(&self) -> Result<StreamHandle> {
        let ctx = self.current_context()?;
        Ok(default_stream(&ctx)?.handle)
    }

    /// `aclrtStreamGetFlags`: the flags the stream was created with (NULL: the default stream,
    /// whose flags are 0).
    pub fn stream_get_flags(&self, handle: StreamHandle) -> Result<u32> {
        Ok(self.stream_to_observe(self.lookup_stream(handle)?)?.flags)
    }

    /// `aclrtGetStreamAvailableNum`: streams the current device can still create (of
    /// [`MAX_STREAMS_PER_DEVICE`], default streams included).
    pub fn get_stream_available_num(&self) -> Result<u32> {
        let device = self.current_context()?.device.clone();
        let used: usize = self
            .contexts
            .values()
            .iter()
            .filter(|(_, ctx)| Arc::ptr_eq(&ctx.device, &device))
            .map(|(_, ctx)| ctx.streams().len())
            .sum();
        Ok(MAX_STREAMS_PER_DEVICE.saturating_sub(used) as u32)
    }

    /// `aclrtCreateStreamV2`: a stream of the current context with the configuration's
    /// priority and flags (flags beyond 32 bits are `100000`).
    pub fn create_stream_v2(&self, config: &StreamConfig) -> Result<StreamHandle> {
        let Ok(flags) = u32::try_from(config.flags) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtCreateStreamV2: flag {:#x} has bits beyond the stream flags",
                config.flags
            );
        };
        self.create_stream_with_config(config.priority, flags)
    }

    /// `aclrtStreamAbort`: discards the stream's queued work (records complete with `107023`),
    /// releases waits inside it and returns once a task that was running has finished; the
    /// stream then takes work again. A synchronise of the stream that was waiting, or the next
    /// one, reports `107023` once. NULL aborts the default stream.
    pub fn stream_abort(&self, handle: StreamHandle) -> Result<()> {
        let stream = self.stream_for_work(self.lookup_stream(handle)?, "aclrtStreamAbort")?;
        let failure = stream.control_failure(
            ACL_ERROR_RT_STREAM_ABORT,
            "the stream was aborted (aclrtStreamAbort): its queued work was discarded",
        );
        let raw = stream.handle.as_raw();
        traced_wait("aclrtStreamAbort", || {
            stream.abort_queued(failure, || lock(&self.extras.halted).contains(&raw))
        });
        Ok(())
    }

    /// `aclrtDeviceTaskAbort`: an [`aclrtStreamAbort`](Self::stream_abort) of every stream of
    /// every context on the device, all started before any is waited for. The callbacks of
    /// `aclrtSetDeviceTaskAbortCallback` are called, in name order on the calling thread,
    /// once the streams have started dropping their work (`ACL_RT_DEVICE_TASK_ABORT_PRE`) and
    /// once the abort is done (`..._POST`), with the device id and the milliseconds left of
    /// the timeout (0: no limit). A callback's non-zero return is `507000`: the abort is still
    /// completed, later callbacks and the post stage are not called. `timeout` (ms, 0: no
    /// limit, at most 36 minutes, else `107000`) is checked after each step, as the vendor's
    /// runtime checks it rather than interrupting one: longer is `107019`, the streams'
    /// abort having taken place all the same. An id out of range is `107001`; a device
    /// without contexts has nothing to abort, and its callbacks are still called.
    pub fn device_task_abort(&self, device_id: i32, timeout_ms: u32) -> Result<()> {
        const CALL: &str = "aclrtDeviceTaskAbort";
        not_in_callback(CALL)?;
        if timeout_ms > DEVICE_TASK_ABORT_TIMEOUT_MAX_MS {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: timeout {timeout_ms} ms is beyond [0, {DEVICE_TASK_ABORT_TIMEOUT_MAX_MS}]"
            );
        }
        let device = self.device_checked(device_id)?;
        let started = Instant::now();
        // The milliseconds left of the timeout (0: none set), or the timeout error.
        let left = || -> Result<u32> {
            if timeout_ms == 0 {
                return Ok(0);
            }
            let took = started.elapsed();
            let limit = Duration::from_millis(u64::from(timeout_ms));
            if took > limit {
                bail!(
                    ACL_ERROR_RT_WAIT_TIMEOUT,
                    "{CALL}: aborting device {device_id}'s tasks took {} ms, beyond the \
                     {timeout_ms} ms timeout",
                    took.as_millis()
                );
            }
            Ok(u32::try_from((limit - took).as_millis())
                .unwrap_or(u32::MAX)
                .max(1))
        };
        let streams: Vec<_> = self
            .contexts
            .values()
            .iter()
            .filter(|(_, ctx)| Arc::ptr_eq(&ctx.device, &device))
            .flat_map(|(_, ctx)| ctx.streams())
            .collect();
        for stream in &streams {
            stream.begin_abort(stream.control_failure(
                ACL_ERROR_RT_STREAM_ABORT,
                "the device's tasks were aborted (aclrtDeviceTaskAbort): the stream's queued work \
                 was discarded",
            ));
        }
        let callbacks: Vec<_> = lock(&self.extras.task_abort)
            .0
            .iter()
            .map(|(name, cb)| (name.clone(), cb.clone()))
            .collect();
        let run_callbacks = |stage: u32| -> Result<()> {
            for (name, cb) in &callbacks {
                let ret = cb(device_id, stage, left()?);
                if ret != 0 {
                    bail!(
                        ACL_ERROR_RT_INTERNAL_ERROR,
                        "{CALL}: the task abort callback {name:?} returned {ret} (stage {stage})"
                    );
                }
            }
            Ok(())
        };
        let pre = left().and_then(|_| run_callbacks(DEVICE_TASK_ABORT_PRE));
        traced_wait(CALL, || {
            for stream in &streams {
                let raw = stream.handle.as_raw();
                stream.finish_abort(|| lock(&self.extras.halted).contains(&raw));
            }
        });
        pre?;
        left()?;
        run_callbacks(DEVICE_TASK_ABORT_POST)?;
        left()?;
        Ok(())
    }

    /// `aclrtSetDeviceTaskAbortCallback`: registers `callback` under `name` (not empty:
    /// `100000`), or with `None` removes that registration, whether or not there is one, as
    /// the vendor's runtime does. Registering a name twice is `107000`.
    pub fn set_device_task_abort_callback(
        &self,
        name: &str,
        callback: Option<DeviceTaskAbortCallback>,
    ) -> Result<()> {
        const CALL: &str = "aclrtSetDeviceTaskAbortCallback";
        if name.is_empty() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: the registration name is empty"
            );
        }
        let mut list = lock(&self.extras.task_abort);
        match callback {
            None => {
                list.0.remove(name);
            }
            Some(_) if list.0.contains_key(name) => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: {name:?} is already registered"
            ),
            Some(cb) => {
                list.0.insert(name.to_owned(), cb);
            }
        }
        Ok(())
    }

    /// `aclrtStreamStop`: stops the stream for good. A running task finishes; queued work never
    /// runs (it is dropped as by an abort, so nothing waits forever on it); new work is refused
    /// with `107023`; the next synchronise reports `507000`. Destroy it to release it. The
    /// default stream cannot be stopped (`100000`).
    pub fn stream_stop(&self, handle: StreamHandle) -> Result<()> {
        if handle.is_null() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtStreamStop: the default stream (NULL) cannot be stopped"
            );
        }
        let stream = self.stream_for_work(self.lookup_stream(handle)?, "aclrtStreamStop")?;
        if stream.is_default {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtStreamStop: the default stream cannot be stopped"
            );
        }
        lock(&self.extras.halted).insert(stream.handle.as_raw());
        let failure = stream.control_failure(
            ACL_ERROR_RT_INTERNAL_ERROR,
            "the stream was stopped (aclrtStreamStop): it runs nothing more until it is destroyed",
        );
        traced_wait("aclrtStreamStop", || stream.halt(failure));
        Ok(())
    }

    /// `aclrtRegStreamStateCallback`: registers `callback` under `name` (not empty), or with
    /// `None` removes that registration. Registering a name twice is `107000`, and so is
    /// removing one that is not registered.
    ///
    /// The callbacks are called with `ACL_RT_STREAM_STATE_CREATE_POST` after a stream (a
    /// default stream included) is created and `ACL_RT_STREAM_STATE_DESTROY_PRE` before one is
    /// destroyed, by whichever call creates or destroys it (`aclrtSetDevice`, `aclrtResetDevice`,
    /// `aclrtDestroyContext` and `aclFinalize` for default streams), on the calling thread, as
    /// user code: a synchronising call from a callback is refused, and a callback must not set
    /// or reset a device. Registrations end with the runtime (`aclFinalize`).
    pub fn reg_stream_state_callback(
        &self,
        name: &str,
        callback: Option<StreamStateCallback>,
    ) -> Result<()> {
        if name.is_empty() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtRegStreamStateCallback: the registration name is empty"
            );
        }
        let mut list = self
            .extras
            .stream_state
            .write()
            .unwrap_or_else(|e| e.into_inner());
        let at = list.iter().position(|(n, _)| n == name);
        match (callback, at) {
            (Some(_), Some(_)) => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtRegStreamStateCallback: {name:?} is already registered"
            ),
            (Some(cb), None) => list.push((name.to_owned(), cb)),
            (None, Some(i)) => {
                list.remove(i);
            }
            (None, None) => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtRegStreamStateCallback: {name:?} is not registered"
            ),
        }
        Ok(())
    }

    /// `aclrtRegDeviceStateCallback`: registers `callback` under `name` (empty: `100000`; a
    /// name registered already: `107000`, as the vendor's), or with `None` removes the registration (none
    /// is fine). The callbacks are told of every `aclrtSetDevice` after it bound the thread
    /// (`ACL_RT_DEVICE_STATE_SET_POST`) and of the reset that releases the device's default
    /// context, before and after it (`..._RESET_PRE`, `..._RESET_POST`), in registration order.
    pub fn reg_device_state_callback(
        &self,
        name: &str,
        callback: Option<crate::extras::DeviceStateCallback>,
    ) -> Result<()> {
        if name.is_empty() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtRegDeviceStateCallback: the registration name is empty"
            );
        }
        let mut list = self
            .extras
            .device_state
            .write()
            .unwrap_or_else(|e| e.into_inner());
        let at = list.iter().position(|(n, _)| n == name);
        match (callback, at) {
            (Some(_), Some(_)) => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtRegDeviceStateCallback: {name:?} is registered already and cannot be \
                 registered again"
            ),
            (Some(cb), None) => list.push((name.to_owned(), cb)),
            (None, Some(i)) => {
                list.remove(i);
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// Tells the device state callbacks that device `id` is in `state` (an
    /// `aclrtDeviceState`); no lock is held while they run.
    pub(crate) fn device_state_changed(&self, id: i32, state: i64) {
        let callbacks: Vec<crate::extras::DeviceStateCallback> = self
            .extras
            .device_state
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, cb)| cb.clone())
            .collect();
        for callback in callbacks {
            // A device state callback returns nothing; a panic has nobody to report to.
            let _ =
                crate::user_code::run(&"a device state callback", || callback(id, state as u32));
        }
    }

    /// Tells the stream state callbacks that `stream` was created (`true`) or is about to be
    /// destroyed (`false`).
    pub(crate) fn stream_state_changed(&self, stream: StreamHandle, created: bool) {
        if !created {
            lock(&self.extras.halted).remove(&stream.as_raw());
        }
        let callbacks = self.extras.stream_state_callbacks();
        if callbacks.is_empty() {
            return;
        }
        let state = if created {
            vc::ACL_RT_STREAM_STATE_CREATE_POST
        } else {
            vc::ACL_RT_STREAM_STATE_DESTROY_PRE
        } as u32;
        for callback in callbacks {
            // A failing callback has nobody to report to.
            let _ = crate::user_code::run(&"a stream state callback", || callback(stream, state));
        }
    }
}
