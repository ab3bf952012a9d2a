//! Floating-point overflow detection: the saturation mode, the stream switch and the status
//! tasks (see `aclrt::api`'s overflow calls for what the emulated device reports).

use std::ffi::c_void;

use crate::{aclError, aclrtStream, entry, produce, stream_handle};

/// `aclrtSetDeviceSatMode` (`aclrtFloatOverflowMode`).
#[no_mangle]
pub extern "C" fn aclrtSetDeviceSatMode(mode: u32) -> aclError {
    entry("aclrtSetDeviceSatMode", |rt| rt.set_device_sat_mode(mode))
}

/// `aclrtGetDeviceSatMode`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceSatMode(mode: *mut u32) -> aclError {
    // SAFETY: `mode` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDeviceSatMode", mode, "mode", |rt| {
            rt.get_device_sat_mode()
        })
    }
}

/// `aclrtSetStreamOverflowSwitch` (NULL: the default stream).
#[no_mangle]
pub extern "C" fn aclrtSetStreamOverflowSwitch(stream: aclrtStream, flag: u32) -> aclError {
    entry("aclrtSetStreamOverflowSwitch", |rt| {
        rt.set_stream_overflow_switch(stream_handle(stream), flag)
    })
}

/// `aclrtGetStreamOverflowSwitch` (NULL: the default stream).
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamOverflowSwitch(
    stream: aclrtStream,
    flag: *mut u32,
) -> aclError {
    // SAFETY: `flag` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetStreamOverflowSwitch", flag, "flag", |rt| {
            rt.get_stream_overflow_switch(stream_handle(stream))
        })
    }
}

/// `aclrtGetOverflowStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetOverflowStatus(
    outputAddr: *mut c_void,
    outputSize: usize,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtGetOverflowStatus", |rt| {
        // SAFETY: the core checks the range against runtime memory; that it stays valid until
        // the task runs is the C caller's contract.
        unsafe { rt.get_overflow_status(outputAddr as usize, outputSize, stream_handle(stream)) }
    })
}

/// `aclrtResetOverflowStatus`.
#[no_mangle]
pub extern "C" fn aclrtResetOverflowStatus(stream: aclrtStream) -> aclError {
    entry("aclrtResetOverflowStatus", |rt| {
        rt.reset_overflow_status(stream_handle(stream))
    })
}
