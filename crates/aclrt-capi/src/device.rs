//! Devices and contexts.

use aclrt::api;
use aclrt::consts::ACL_HOST;

use crate::{aclError, aclrtContext, context_handle, guard, not_null, put};

/// `aclrtSetDevice`.
#[no_mangle]
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    guard("aclrtSetDevice", || api::set_device(deviceId))
}

/// `aclrtResetDevice`.
#[no_mangle]
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    guard("aclrtResetDevice", || api::reset_device(deviceId))
}

/// `aclrtGetDevice`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDevice(deviceId: *mut i32) -> aclError {
    guard("aclrtGetDevice", || {
        api::ensure_initialized()?;
        not_null(deviceId, "aclrtGetDevice", "deviceId")?;
        let id = api::get_device()?;
        unsafe { put(deviceId, id) };
        Ok(())
    })
}

/// `aclrtGetDeviceCount`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    guard("aclrtGetDeviceCount", || {
        api::ensure_initialized()?;
        not_null(count, "aclrtGetDeviceCount", "count")?;
        let n = api::get_device_count()?;
        unsafe { put(count, n) };
        Ok(())
    })
}

/// `aclrtGetRunMode`: this library always runs on the host side of its (emulated) device.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetRunMode(runMode: *mut u32) -> aclError {
    guard("aclrtGetRunMode", || {
        api::ensure_initialized()?;
        not_null(runMode, "aclrtGetRunMode", "runMode")?;
        unsafe { put(runMode, ACL_HOST) };
        Ok(())
    })
}

/// `aclrtSynchronizeDevice`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    guard("aclrtSynchronizeDevice", api::synchronize_device)
}

/// `aclrtSynchronizeDeviceWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError {
    guard("aclrtSynchronizeDeviceWithTimeout", || {
        api::synchronize_device_with_timeout(timeout)
    })
}

/// `aclrtCreateContext`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateContext(context: *mut aclrtContext, deviceId: i32) -> aclError {
    guard("aclrtCreateContext", || {
        api::ensure_initialized()?;
        not_null(context, "aclrtCreateContext", "context")?;
        let ctx = api::create_context(deviceId)?;
        unsafe { put(context, ctx.as_raw() as aclrtContext) };
        Ok(())
    })
}

/// `aclrtDestroyContext`.
#[no_mangle]
pub extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    guard("aclrtDestroyContext", || {
        api::ensure_initialized()?;
        api::destroy_context(context_handle(context, "aclrtDestroyContext")?)
    })
}

/// `aclrtSetCurrentContext`.
#[no_mangle]
pub extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    guard("aclrtSetCurrentContext", || {
        api::ensure_initialized()?;
        api::set_current_context(context_handle(context, "aclrtSetCurrentContext")?)
    })
}

/// `aclrtGetCurrentContext`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError {
    guard("aclrtGetCurrentContext", || {
        api::ensure_initialized()?;
        not_null(context, "aclrtGetCurrentContext", "context")?;
        let ctx = api::get_current_context()?;
        unsafe { put(context, ctx.as_raw() as aclrtContext) };
        Ok(())
    })
}
