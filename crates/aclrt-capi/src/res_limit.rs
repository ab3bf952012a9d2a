//! Core resource limits of devices, streams and the calling thread.

use crate::{aclError, aclrtStream, entry, produce, stream_handle};

/// `aclrtGetDeviceResLimit`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceResLimit(
    deviceId: i32,
    r#type: u32,
    value: *mut u32,
) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDeviceResLimit", value, "value", |rt| {
            rt.get_device_res_limit(deviceId, r#type)
        })
    }
}

/// `aclrtSetDeviceResLimit`.
#[no_mangle]
pub extern "C" fn aclrtSetDeviceResLimit(deviceId: i32, r#type: u32, value: u32) -> aclError {
    entry("aclrtSetDeviceResLimit", |rt| {
        rt.set_device_res_limit(deviceId, r#type, value)
    })
}

/// `aclrtResetDeviceResLimit`.
#[no_mangle]
pub extern "C" fn aclrtResetDeviceResLimit(deviceId: i32) -> aclError {
    entry("aclrtResetDeviceResLimit", |rt| {
        rt.reset_device_res_limit(deviceId)
    })
}

/// `aclrtGetStreamResLimit`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamResLimit(
    stream: aclrtStream,
    r#type: u32,
    value: *mut u32,
) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetStreamResLimit", value, "value", |rt| {
            rt.get_stream_res_limit(stream_handle(stream), r#type)
        })
    }
}

/// `aclrtSetStreamResLimit`.
#[no_mangle]
pub extern "C" fn aclrtSetStreamResLimit(stream: aclrtStream, r#type: u32, value: u32) -> aclError {
    entry("aclrtSetStreamResLimit", |rt| {
        rt.set_stream_res_limit(stream_handle(stream), r#type, value)
    })
}

/// `aclrtResetStreamResLimit`.
#[no_mangle]
pub extern "C" fn aclrtResetStreamResLimit(stream: aclrtStream) -> aclError {
    entry("aclrtResetStreamResLimit", |rt| {
        rt.reset_stream_res_limit(stream_handle(stream))
    })
}

/// `aclrtUseStreamResInCurrentThread`.
#[no_mangle]
pub extern "C" fn aclrtUseStreamResInCurrentThread(stream: aclrtStream) -> aclError {
    entry("aclrtUseStreamResInCurrentThread", |rt| {
        rt.use_stream_res_in_current_thread(stream_handle(stream))
    })
}

/// `aclrtUnuseStreamResInCurrentThread`.
#[no_mangle]
pub extern "C" fn aclrtUnuseStreamResInCurrentThread(stream: aclrtStream) -> aclError {
    entry("aclrtUnuseStreamResInCurrentThread", |rt| {
        rt.unuse_stream_res_in_current_thread(stream_handle(stream))
    })
}

/// `aclrtGetResInCurrentThread`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetResInCurrentThread(r#type: u32, value: *mut u32) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetResInCurrentThread", value, "value", |rt| {
            rt.get_res_in_current_thread(r#type)
        })
    }
}
