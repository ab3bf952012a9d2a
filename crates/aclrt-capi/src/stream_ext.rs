//! Streams beyond create, destroy and synchronise: the default stream as a handle, flags,
//! streams left, configuration handles with `aclrtCreateStreamV2`, abort, stop and stream state
//! callbacks.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};

use aclrt::api::StreamConfig;
use aclrt::codes::ACL_ERROR_INVALID_PARAM;
use aclrt::StreamHandle;

use crate::{
    aclError, aclrtStream, entry, guard, guard_value, not_null, produce, stream_handle, SendPtr,
};

/// `aclrtStreamConfigHandle`: a plain C struct the program may also make itself.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtStreamConfigHandle {
    /// `ACL_RT_STREAM_WORK_ADDR_PTR`.
    pub workptr: *mut c_void,
    /// `ACL_RT_STREAM_WORK_SIZE`.
    pub workSize: usize,
    /// `ACL_RT_STREAM_FLAG`.
    pub flag: usize,
    /// `ACL_RT_STREAM_PRIORITY`.
    pub priority: u32,
}

impl aclrtStreamConfigHandle {
    fn config(&self) -> StreamConfig {
        StreamConfig {
            work_ptr: self.workptr as usize,
            work_size: self.workSize,
            flags: self.flag,
            priority: self.priority,
        }
    }
}

/// `aclrtStreamStateCallback`.
pub type aclrtStreamStateCallback =
    Option<unsafe extern "C" fn(stm: aclrtStream, state: u32, args: *mut c_void)>;

/// Addresses of the handles `aclrtCreateStreamConfigHandle` made and not yet destroyed.
static CONFIG_HANDLES: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

/// `aclrtCtxGetCurrentDefaultStream`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCtxGetCurrentDefaultStream(stream: *mut aclrtStream) -> aclError {
    // SAFETY: `stream` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCtxGetCurrentDefaultStream", stream, "stream", |rt| {
            Ok(rt.ctx_get_current_default_stream()?.as_raw() as aclrtStream)
        })
    }
}

/// `aclrtStreamGetFlags` (NULL: the default stream).
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetFlags(stream: aclrtStream, flags: *mut u32) -> aclError {
    // SAFETY: `flags` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtStreamGetFlags", flags, "flags", |rt| {
            rt.stream_get_flags(stream_handle(stream))
        })
    }
}

/// `aclrtGetStreamAvailableNum`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamAvailableNum(streamCount: *mut u32) -> aclError {
    // SAFETY: `streamCount` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtGetStreamAvailableNum",
            streamCount,
            "streamCount",
            |rt| rt.get_stream_available_num(),
        )
    }
}

/// `aclrtCreateStreamConfigHandle`: a zeroed configuration (priority 0, no flags). Needs no
/// `aclInit`.
#[no_mangle]
pub extern "C" fn aclrtCreateStreamConfigHandle() -> *mut aclrtStreamConfigHandle {
    guard_value(
        "aclrtCreateStreamConfigHandle",
        std::ptr::null_mut(),
        || {
            let handle = Box::into_raw(Box::new(aclrtStreamConfigHandle {
                workptr: std::ptr::null_mut(),
                workSize: 0,
                flag: 0,
                priority: 0,
            }));
            CONFIG_HANDLES
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(handle as usize);
            handle
        },
    )
}

/// `aclrtDestroyStreamConfigHandle`: NULL, or a pointer `aclrtCreateStreamConfigHandle` did not
/// return (or that was destroyed already), is `100000`.
#[no_mangle]
// Safe for any pointer: only one found among the handles made above is freed.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub extern "C" fn aclrtDestroyStreamConfigHandle(handle: *mut aclrtStreamConfigHandle) -> aclError {
    guard("aclrtDestroyStreamConfigHandle", || {
        not_null(handle, "aclrtDestroyStreamConfigHandle", "handle")?;
        let known = CONFIG_HANDLES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(handle as usize));
        if !known {
            return Err(aclrt::Error::new(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "aclrtDestroyStreamConfigHandle: {handle:p} was not made by \
                     aclrtCreateStreamConfigHandle, or was destroyed already"
                ),
            ));
        }
        // SAFETY: made by Box::into_raw in aclrtCreateStreamConfigHandle, listed until now.
        drop(unsafe { Box::from_raw(handle) });
        Ok(())
    })
}

/// `aclrtSetStreamConfigOpt`: sets one attribute from `valueSize` bytes at `attrValue` (the
/// size of the attribute's C type). Needs no `aclInit`.
#[no_mangle]
pub unsafe extern "C" fn aclrtSetStreamConfigOpt(
    handle: *mut aclrtStreamConfigHandle,
    attr: u32,
    attrValue: *const c_void,
    valueSize: usize,
) -> aclError {
    guard("aclrtSetStreamConfigOpt", || {
        not_null(handle, "aclrtSetStreamConfigOpt", "handle")?;
        not_null(attrValue, "aclrtSetStreamConfigOpt", "attrValue")?;
        if valueSize > 8 {
            return Err(aclrt::Error::new(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "aclrtSetStreamConfigOpt: valueSize {valueSize} is larger than any \
                     attribute's value"
                ),
            ));
        }
        // SAFETY: non-NULL; the handle is valid for reads and writes and `attrValue` for
        // `valueSize` bytes, by the C caller's contract.
        let (h, value) = unsafe {
            (
                &mut *handle,
                std::slice::from_raw_parts(attrValue.cast::<u8>(), valueSize),
            )
        };
        let mut config = h.config();
        config.set(attr, value)?;
        h.workptr = config.work_ptr as *mut c_void;
        h.workSize = config.work_size;
        h.flag = config.flags;
        h.priority = config.priority;
        Ok(())
    })
}

/// `aclrtCreateStreamV2`: a stream from a configuration; NULL is the default configuration.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamV2(
    stream: *mut aclrtStream,
    handle: *const aclrtStreamConfigHandle,
) -> aclError {
    // SAFETY: `stream` is NULL or writable, `handle` NULL or readable: the C caller's contract.
    unsafe {
        produce("aclrtCreateStreamV2", stream, "stream", |rt| {
            let config = if handle.is_null() {
                StreamConfig::default()
            } else {
                (*handle).config()
            };
            Ok(rt.create_stream_v2(&config)?.as_raw() as aclrtStream)
        })
    }
}

/// `aclrtDeviceTaskAbort`.
#[no_mangle]
pub extern "C" fn aclrtDeviceTaskAbort(deviceId: i32, timeout: u32) -> aclError {
    entry("aclrtDeviceTaskAbort", |rt| {
        rt.device_task_abort(deviceId, timeout)
    })
}

/// `aclrtStreamAbort`.
#[no_mangle]
pub extern "C" fn aclrtStreamAbort(stream: aclrtStream) -> aclError {
    entry("aclrtStreamAbort", |rt| {
        rt.stream_abort(stream_handle(stream))
    })
}

/// `aclrtStreamStop`.
#[no_mangle]
pub extern "C" fn aclrtStreamStop(stream: aclrtStream) -> aclError {
    entry("aclrtStreamStop", |rt| {
        rt.stream_stop(stream_handle(stream))
    })
}

/// `aclrtRegStreamStateCallback`: NULL `callback` removes the registration `regName`.
///
/// # Safety
/// `regName` is NULL or a NUL-terminated string; the callback is NULL or a function of the
/// declared type that stays callable, with `args`, until it is unregistered or `aclFinalize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtRegStreamStateCallback(
    regName: *const c_char,
    callback: aclrtStreamStateCallback,
    args: *mut c_void,
) -> aclError {
    entry("aclrtRegStreamStateCallback", |rt| {
        not_null(regName, "aclrtRegStreamStateCallback", "regName")?;
        // SAFETY: non-NULL and NUL-terminated by the C caller's contract.
        let name = unsafe { CStr::from_ptr(regName) }.to_string_lossy();
        let data = SendPtr(args);
        let wrapped = callback.map(|f| {
            Arc::new(move |stream: StreamHandle, state: u32| {
                // SAFETY: the function and its argument the program registered, valid until
                // it unregisters them.
                unsafe { f(stream.as_raw() as aclrtStream, state, data.get()) }
            }) as aclrt::StreamStateCallback
        });
        rt.reg_stream_state_callback(&name, wrapped)
    })
}

/// `aclrtSetDeviceTaskAbortCallback`: NULL `callback` removes the registration `regName`.
///
/// # Safety
/// `regName` is NULL or a NUL-terminated string; the callback is NULL or a function of the
/// declared type that stays callable, with `args`, until it is unregistered or `aclFinalize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtSetDeviceTaskAbortCallback(
    regName: *const c_char,
    callback: aclrtDeviceTaskAbortCallback,
    args: *mut c_void,
) -> aclError {
    entry("aclrtSetDeviceTaskAbortCallback", |rt| {
        not_null(regName, "aclrtSetDeviceTaskAbortCallback", "regName")?;
        // SAFETY: non-NULL and NUL-terminated by the C caller's contract.
        let name = unsafe { CStr::from_ptr(regName) }.to_string_lossy();
        let data = SendPtr(args);
        let wrapped = callback.map(|f| {
            Arc::new(move |device: i32, stage: u32, timeout: u32| {
                // SAFETY: the function and its argument the program registered, valid until
                // it unregisters them.
                unsafe { f(device, stage, timeout, data.get()) }
            }) as aclrt::DeviceTaskAbortCallback
        });
        rt.set_device_task_abort_callback(&name, wrapped)
    })
}

/// The C type of a device task abort callback.
type aclrtDeviceTaskAbortCallback = Option<unsafe extern "C" fn(i32, u32, u32, *mut c_void) -> i32>;

/// `aclrtSetStreamAttribute` (`aclrtStreamAttr`, `aclrtStreamAttrValue *`): the union's first
/// 8 bytes carry the value (a `uint64_t` failure mode, else a `uint32_t`).
#[no_mangle]
pub unsafe extern "C" fn aclrtSetStreamAttribute(
    stream: aclrtStream,
    stmAttrType: i32,
    value: *mut c_void,
) -> aclError {
    entry("aclrtSetStreamAttribute", |rt| {
        not_null(value, "aclrtSetStreamAttribute", "value")?;
        let raw = if i64::from(stmAttrType) == aclrt::vendor_consts::ACL_STREAM_ATTR_FAILURE_MODE {
            // SAFETY: non-NULL (checked above) and a readable `aclrtStreamAttrValue` (16
            // bytes), the C caller's contract; unaligned reads need no alignment.
            unsafe { (value as *const u64).read_unaligned() }
        } else {
            // SAFETY: as above.
            u64::from(unsafe { (value as *const u32).read_unaligned() })
        };
        rt.set_stream_attribute(stream_handle(stream), stmAttrType, raw)
    })
}

/// `aclrtGetStreamAttribute`: writes the union member of the attribute (8 bytes for the
/// failure mode, 4 otherwise) and nothing else.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamAttribute(
    stream: aclrtStream,
    stmAttrType: i32,
    value: *mut c_void,
) -> aclError {
    entry("aclrtGetStreamAttribute", |rt| {
        not_null(value, "aclrtGetStreamAttribute", "value")?;
        let got = rt.get_stream_attribute(stream_handle(stream), stmAttrType)?;
        if i64::from(stmAttrType) == aclrt::vendor_consts::ACL_STREAM_ATTR_FAILURE_MODE {
            // SAFETY: non-NULL (checked above) and a writable `aclrtStreamAttrValue`, the C
            // caller's contract.
            unsafe { (value as *mut u64).write_unaligned(got) };
        } else {
            // SAFETY: as above; the other members are `uint32_t`.
            unsafe { (value as *mut u32).write_unaligned(got as u32) };
        }
        Ok(())
    })
}

/// `aclrtDeviceStateCallback`.
type aclrtDeviceStateCallback = Option<unsafe extern "C" fn(i32, u32, *mut c_void)>;

/// `aclrtRegDeviceStateCallback`: NULL `callback` removes the registration `regName`.
///
/// # Safety
/// `regName` is NULL or a NUL-terminated string; the callback is NULL or a function of the
/// declared type that stays callable, with `args`, until it is unregistered or `aclFinalize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtRegDeviceStateCallback(
    regName: *const c_char,
    callback: aclrtDeviceStateCallback,
    args: *mut c_void,
) -> aclError {
    entry("aclrtRegDeviceStateCallback", |rt| {
        not_null(regName, "aclrtRegDeviceStateCallback", "regName")?;
        // SAFETY: non-NULL and NUL-terminated by the C caller's contract.
        let name = unsafe { CStr::from_ptr(regName) }.to_string_lossy();
        let data = SendPtr(args);
        let wrapped = callback.map(|f| {
            Arc::new(move |device: i32, state: u32| {
                // SAFETY: the function and its argument the program registered, valid until
                // it unregisters them.
                unsafe { f(device, state, data.get()) }
            }) as aclrt::DeviceStateCallback
        });
        rt.reg_device_state_callback(&name, wrapped)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_handle_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtStreamConfigHandle>(), 32);
        assert_eq!(std::mem::offset_of!(aclrtStreamConfigHandle, priority), 24);
    }
}
