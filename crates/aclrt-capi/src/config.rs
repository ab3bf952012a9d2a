//! Runtime configuration: system parameters, operator timeouts and device limits.

use crate::{aclError, entry, produce};

/// `aclrtGetSysParamOpt`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetSysParamOpt(opt: u32, value: *mut i64) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetSysParamOpt", value, "value", |rt| {
            rt.get_sys_param_opt(opt)
        })
    }
}

/// `aclrtSetSysParamOpt`.
#[no_mangle]
pub extern "C" fn aclrtSetSysParamOpt(opt: u32, value: i64) -> aclError {
    entry("aclrtSetSysParamOpt", |rt| rt.set_sys_param_opt(opt, value))
}

/// `aclrtCtxGetSysParamOpt`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCtxGetSysParamOpt(opt: u32, value: *mut i64) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCtxGetSysParamOpt", value, "value", |rt| {
            rt.ctx_get_sys_param_opt(opt)
        })
    }
}

/// `aclrtCtxSetSysParamOpt`.
#[no_mangle]
pub extern "C" fn aclrtCtxSetSysParamOpt(opt: u32, value: i64) -> aclError {
    entry("aclrtCtxSetSysParamOpt", |rt| {
        rt.ctx_set_sys_param_opt(opt, value)
    })
}

/// `aclrtSetOpWaitTimeout`.
#[no_mangle]
pub extern "C" fn aclrtSetOpWaitTimeout(timeout: u32) -> aclError {
    entry("aclrtSetOpWaitTimeout", |rt| {
        rt.set_op_wait_timeout(timeout)
    })
}

/// `aclrtSetOpExecuteTimeOut`.
#[no_mangle]
pub extern "C" fn aclrtSetOpExecuteTimeOut(timeout: u32) -> aclError {
    entry("aclrtSetOpExecuteTimeOut", |rt| {
        rt.set_op_execute_timeout(timeout)
    })
}

/// `aclrtSetOpExecuteTimeOutWithMs`.
#[no_mangle]
pub extern "C" fn aclrtSetOpExecuteTimeOutWithMs(timeout: u32) -> aclError {
    entry("aclrtSetOpExecuteTimeOutWithMs", |rt| {
        rt.set_op_execute_timeout_with_ms(timeout)
    })
}

/// `aclrtSetOpExecuteTimeOutV2`.
#[no_mangle]
pub unsafe extern "C" fn aclrtSetOpExecuteTimeOutV2(
    timeout: u64,
    actualTimeout: *mut u64,
) -> aclError {
    // SAFETY: `actualTimeout` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtSetOpExecuteTimeOutV2",
            actualTimeout,
            "actualTimeout",
            |rt| rt.set_op_execute_timeout_v2(timeout),
        )
    }
}

/// `aclrtGetOpExecuteTimeout`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetOpExecuteTimeout(timeoutMs: *mut u32) -> aclError {
    // SAFETY: `timeoutMs` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetOpExecuteTimeout", timeoutMs, "timeoutMs", |rt| {
            rt.get_op_execute_timeout()
        })
    }
}

/// `aclrtGetOpTimeOutInterval`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetOpTimeOutInterval(interval: *mut u64) -> aclError {
    // SAFETY: `interval` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetOpTimeOutInterval", interval, "interval", |rt| {
            rt.get_op_timeout_interval()
        })
    }
}

/// `aclrtDeviceSetLimit`.
#[no_mangle]
pub extern "C" fn aclrtDeviceSetLimit(limit: u32, value: usize) -> aclError {
    entry("aclrtDeviceSetLimit", |rt| {
        rt.device_set_limit(limit, value)
    })
}

/// `aclrtDeviceGetLimit`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetLimit(limit: u32, value: *mut usize) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtDeviceGetLimit", value, "value", |rt| {
            rt.device_get_limit(limit)
        })
    }
}
