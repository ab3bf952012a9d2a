//! Process-level exception callbacks, detailed error information and host-function
//! subscriptions.

use std::sync::Arc;

use aclrt::ExceptionInfo;

use crate::callback::aclrtExceptionInfoCallback;
use crate::{aclError, aclrtStream, entry, not_null, stream_handle};

/// The first fields of `aclrtErrorInfo`; its detail union follows and is not written
/// (`hasDetail` is 0).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtErrorInfoHead {
    /// Whether a repair is needed.
    pub tryRepair: u8,
    /// Whether the detail is filled in.
    pub hasDetail: u8,
    /// Reserved.
    pub reserved: [u8; 2],
    /// `aclrtErrorType`.
    pub errorType: u32,
}

fn require_callback(
    callback: aclrtExceptionInfoCallback,
    call: &str,
) -> aclrt::Result<unsafe extern "C" fn(*mut ExceptionInfo)> {
    callback.ok_or_else(|| {
        aclrt::Error::new(
            aclrt::codes::ACL_ERROR_INVALID_PARAM,
            format!("{call}: the callback is NULL"),
        )
    })
}

/// `aclrtExceptionInfoCallbackRegister`.
///
/// # Safety
/// The callback is NULL or a function of the declared type that stays callable until it is
/// unregistered or `aclFinalize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtExceptionInfoCallbackRegister(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    entry("aclrtExceptionInfoCallbackRegister", |rt| {
        let f = require_callback(callback, "aclrtExceptionInfoCallbackRegister")?;
        let wrapped = Arc::new(move |info: &ExceptionInfo| {
            let ptr = info as *const ExceptionInfo as *mut ExceptionInfo;
            // SAFETY: the C function the program registered; the info is valid while it runs.
            unsafe { f(ptr) };
        }) as aclrt::ExceptionCallback;
        rt.exception_info_callback_register(f as usize, wrapped)
    })
}

/// `aclrtExceptionInfoCallbackUnregister`: an unregistered callback is fine; NULL is `100000`.
#[no_mangle]
pub extern "C" fn aclrtExceptionInfoCallbackUnregister(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    entry("aclrtExceptionInfoCallbackUnregister", |rt| {
        let f = require_callback(callback, "aclrtExceptionInfoCallbackUnregister")?;
        rt.exception_info_callback_unregister(f as usize)
    })
}

/// `aclrtGetErrorVerbose`: fills `tryRepair`, `hasDetail` (0) and `errorType`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetErrorVerbose(
    deviceId: i32,
    errorInfo: *mut aclrtErrorInfoHead,
) -> aclError {
    entry("aclrtGetErrorVerbose", |rt| {
        not_null(errorInfo, "aclrtGetErrorVerbose", "errorInfo")?;
        let v = rt.get_error_verbose(deviceId)?;
        // SAFETY: non-NULL and writable for an aclrtErrorInfo, the C caller's contract.
        unsafe {
            let info = &mut *errorInfo;
            info.tryRepair = v.try_repair;
            info.hasDetail = 0;
            info.errorType = v.error_type;
        }
        Ok(())
    })
}

/// `aclrtSubscribeHostFunc`.
#[no_mangle]
pub extern "C" fn aclrtSubscribeHostFunc(
    hostFuncThreadId: u64,
    exeStream: aclrtStream,
) -> aclError {
    entry("aclrtSubscribeHostFunc", |rt| {
        rt.subscribe_host_func(hostFuncThreadId, stream_handle(exeStream))
    })
}

/// `aclrtProcessHostFunc` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtProcessHostFunc(timeout: i32) -> aclError {
    entry("aclrtProcessHostFunc", |rt| rt.process_host_func(timeout))
}

/// `aclrtUnSubscribeHostFunc`.
#[no_mangle]
pub extern "C" fn aclrtUnSubscribeHostFunc(
    hostFuncThreadId: u64,
    exeStream: aclrtStream,
) -> aclError {
    entry("aclrtUnSubscribeHostFunc", |rt| {
        rt.unsubscribe_host_func(hostFuncThreadId, stream_handle(exeStream))
    })
}

/// `aclrtGetThreadLastTaskId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetThreadLastTaskId(taskId: *mut u32) -> aclError {
    // SAFETY: `taskId` is NULL or writable, the C caller's contract.
    unsafe {
        crate::produce("aclrtGetThreadLastTaskId", taskId, "taskId", |rt| {
            rt.get_thread_last_task_id()
        })
    }
}
