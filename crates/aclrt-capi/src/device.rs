//! Devices and contexts.

use aclrt::consts::ACL_HOST;
use aclrt::Runtime;

use crate::{aclError, aclrtContext, context_handle, entry, produce};

/// `aclrtSetDevice`.
#[no_mangle]
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    entry("aclrtSetDevice", |rt| rt.set_device(deviceId))
}

/// `aclrtResetDevice`.
#[no_mangle]
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    entry("aclrtResetDevice", |rt| rt.reset_device(deviceId))
}

/// `aclrtGetDevice`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDevice(deviceId: *mut i32) -> aclError {
    // SAFETY: `deviceId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDevice", deviceId, "deviceId", |rt| {
            let id = rt.get_device()?;
            Ok(id)
        })
    }
}

/// `aclrtGetDeviceCount`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    // SAFETY: `count` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDeviceCount", count, "count", |rt| {
            let n = rt.get_device_count()?;
            Ok(n)
        })
    }
}

/// `aclrtGetRunMode`: this library always runs on the host side of its (emulated) device.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetRunMode(runMode: *mut u32) -> aclError {
    // SAFETY: `runMode` is NULL or writable, the C caller's contract.
    unsafe { produce("aclrtGetRunMode", runMode, "runMode", |_| Ok(ACL_HOST)) }
}

/// `aclrtSynchronizeDevice`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    entry("aclrtSynchronizeDevice", Runtime::synchronize_device)
}

/// `aclrtSynchronizeDeviceWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError {
    entry("aclrtSynchronizeDeviceWithTimeout", |rt| {
        rt.synchronize_device_with_timeout(timeout)
    })
}

/// `aclrtCreateContext`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateContext(context: *mut aclrtContext, deviceId: i32) -> aclError {
    // SAFETY: `context` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCreateContext", context, "context", |rt| {
            let ctx = rt.create_context(deviceId)?;
            Ok(ctx.as_raw() as aclrtContext)
        })
    }
}

/// `aclrtDestroyContext`.
#[no_mangle]
pub extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    entry("aclrtDestroyContext", |rt| {
        rt.destroy_context(context_handle(context, "aclrtDestroyContext")?)
    })
}

/// `aclrtSetCurrentContext`.
#[no_mangle]
pub extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    entry("aclrtSetCurrentContext", |rt| {
        rt.set_current_context(context_handle(context, "aclrtSetCurrentContext")?)
    })
}

/// `aclrtGetCurrentContext`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError {
    // SAFETY: `context` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetCurrentContext", context, "context", |rt| {
            let ctx = rt.get_current_context()?;
            Ok(ctx.as_raw() as aclrtContext)
        })
    }
}
