//! Host callbacks, host functions and the exception callback.

use std::ffi::c_void;
use std::sync::Arc;

use aclrt::api;
use aclrt::codes::ACL_ERROR_RT_PARAM_INVALID;
use aclrt::ExceptionInfo;

use crate::{
    aclError, aclrtStream, entry, guard, guard_value, not_null, put, stream_handle, SendPtr,
};

/// `aclrtCallback` / `aclrtHostFunc`.
pub type aclrtCallback = Option<unsafe extern "C" fn(userData: *mut c_void)>;
/// `aclrtExceptionInfoCallback`.
pub type aclrtExceptionInfoCallback = Option<unsafe extern "C" fn(info: *mut ExceptionInfo)>;

/// `aclrtSubscribeReport`: `threadId` is the serving thread's `pthread_self()`.
#[no_mangle]
pub extern "C" fn aclrtSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError {
    entry("aclrtSubscribeReport", |rt| {
        rt.subscribe_report(threadId, stream_handle(stream))
    })
}

/// `aclrtUnSubscribeReport`.
#[no_mangle]
pub extern "C" fn aclrtUnSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError {
    entry("aclrtUnSubscribeReport", |rt| {
        rt.unsubscribe_report(threadId, stream_handle(stream))
    })
}

fn require_fn<F>(f: Option<F>, call: &str) -> aclrt::Result<F> {
    f.ok_or_else(|| {
        api::fail(
            ACL_ERROR_RT_PARAM_INVALID,
            format!("{call}: the function pointer is NULL"),
        )
    })
}

/// `aclrtLaunchCallback`: `fn(userData)` runs on the stream's subscribed thread, inside its
/// `aclrtProcessReport`.
///
/// # Safety
/// The function pointer is NULL or a function of the declared type that stays callable, with
/// its user data, until the runtime has called it (or discarded the work that would have).
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchCallback(
    r#fn: aclrtCallback,
    userData: *mut c_void,
    blockType: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtLaunchCallback", |rt| {
        let f = require_fn(r#fn, "aclrtLaunchCallback")?;
        let data = SendPtr(userData);
        // SAFETY: the C caller provides a callable function and user data valid until it runs.
        let body = Box::new(move || unsafe { f(data.get()) });
        rt.launch_callback(body, blockType, stream_handle(stream))
    })
}

/// `aclrtProcessReport` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtProcessReport(timeout: i32) -> aclError {
    entry("aclrtProcessReport", |rt| rt.process_report(timeout))
}

/// `aclrtLaunchHostFunc`: `fn(args)` runs on a runtime thread; later tasks wait for it.
///
/// # Safety
/// The function pointer is NULL or a function of the declared type that stays callable, with
/// its user data, until the runtime has called it (or discarded the work that would have).
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchHostFunc(
    stream: aclrtStream,
    r#fn: aclrtCallback,
    args: *mut c_void,
) -> aclError {
    entry("aclrtLaunchHostFunc", |rt| {
        let f = require_fn(r#fn, "aclrtLaunchHostFunc")?;
        let data = SendPtr(args);
        // SAFETY: as for aclrtLaunchCallback.
        let body = Box::new(move || unsafe { f(data.get()) });
        rt.launch_host_func(stream_handle(stream), body)
    })
}

/// `aclrtSetExceptionInfoCallback`: one process-wide slot; NULL clears it.
///
/// # Safety
/// The function pointer is NULL or a function of the declared type that stays callable, with
/// its user data, until the runtime has called it (or discarded the work that would have).
#[no_mangle]
pub unsafe extern "C" fn aclrtSetExceptionInfoCallback(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    entry("aclrtSetExceptionInfoCallback", |rt| {
        let wrapped = callback.map(|f| {
            Arc::new(move |info: &ExceptionInfo| {
                let ptr = info as *const ExceptionInfo as *mut ExceptionInfo;
                // SAFETY: `f` is the C function the program registered for exactly this call;
                // the info is valid while it runs, and the getters accept it only meanwhile.
                unsafe { f(ptr) };
            }) as aclrt::ExceptionCallback
        });
        rt.set_exception_info_callback(wrapped)
    })
}

const NO_INFO: u32 = 0xFFFF_FFFF;

fn read_info(name: &str, info: *const ExceptionInfo, field: fn(&ExceptionInfo) -> u32) -> u32 {
    guard_value(name, NO_INFO, || {
        api::exception_info(info as usize).map_or(NO_INFO, |info| field(&info))
    })
}

/// `aclrtGetTaskIdFromExceptionInfo`.
#[no_mangle]
pub extern "C" fn aclrtGetTaskIdFromExceptionInfo(info: *const ExceptionInfo) -> u32 {
    read_info("aclrtGetTaskIdFromExceptionInfo", info, |i| i.task_id)
}

/// `aclrtGetStreamIdFromExceptionInfo`.
#[no_mangle]
pub extern "C" fn aclrtGetStreamIdFromExceptionInfo(info: *const ExceptionInfo) -> u32 {
    read_info("aclrtGetStreamIdFromExceptionInfo", info, |i| i.stream_id)
}

/// `aclrtGetThreadIdFromExceptionInfo`.
#[no_mangle]
pub extern "C" fn aclrtGetThreadIdFromExceptionInfo(info: *const ExceptionInfo) -> u32 {
    read_info("aclrtGetThreadIdFromExceptionInfo", info, |i| i.thread_id)
}

/// `aclrtGetDeviceIdFromExceptionInfo`.
#[no_mangle]
pub extern "C" fn aclrtGetDeviceIdFromExceptionInfo(info: *const ExceptionInfo) -> u32 {
    read_info("aclrtGetDeviceIdFromExceptionInfo", info, |i| i.device_id)
}

/// `aclrtGetErrorCodeFromExceptionInfo`.
#[no_mangle]
pub extern "C" fn aclrtGetErrorCodeFromExceptionInfo(info: *const ExceptionInfo) -> u32 {
    read_info("aclrtGetErrorCodeFromExceptionInfo", info, |i| i.error_code)
}

/// `aclrtGetFuncHandleFromExceptionInfo`: the function of a failed kernel launched through the
/// kernel API; `0xFFFFFFFF` for a stale info, `107000` for another task's.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFuncHandleFromExceptionInfo(
    info: *const ExceptionInfo,
    func: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtGetFuncHandleFromExceptionInfo";
    guard(CALL, || {
        not_null(func, CALL, "func")?;
        let h = api::exception_info_func_handle(info as usize)?;
        // SAFETY: checked non-NULL; writable (C contract).
        unsafe { put(func, h.as_raw() as usize as *mut c_void) };
        Ok(())
    })
}

/// `aclrtGetArgsFromExceptionInfo`: where a failed kernel's arguments are, and their size.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetArgsFromExceptionInfo(
    info: *const ExceptionInfo,
    devArgsPtr: *mut *mut c_void,
    devArgsLen: *mut u32,
) -> aclError {
    const CALL: &str = "aclrtGetArgsFromExceptionInfo";
    guard(CALL, || {
        not_null(devArgsPtr, CALL, "devArgsPtr")?;
        not_null(devArgsLen, CALL, "devArgsLen")?;
        let (args, len) = api::exception_info_args(info as usize)?;
        // SAFETY: checked non-NULL; writable (C contract).
        unsafe {
            put(devArgsPtr, args as *mut c_void);
            put(devArgsLen, len);
        }
        Ok(())
    })
}
