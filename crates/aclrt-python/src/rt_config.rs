//! `acl.rt`: system parameters, operator timeouts and device limits, with pyACL's names,
//! argument orders and results. Every rule is the core's; this module only converts ints.

use aclrt::api;
use pyo3::prelude::*;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

// --- System parameters ------------------------------------------------------------------

/// `ret = acl.rt.set_sys_param_opt(opt, value)` (`aclrtSetSysParamOpt`): for the process.
#[pyfunction]
fn set_sys_param_opt(opt: &Any, value: &Any) -> PyResult<i32> {
    let opt = u32_arg(opt, "opt")?;
    let v = int_bits(value, "value")? as i64;
    Ok(ret(api::set_sys_param_opt(opt, v)))
}

/// `value, ret = acl.rt.get_sys_param_opt(opt)` (`aclrtGetSysParamOpt`): 0 when never set.
#[pyfunction]
fn get_sys_param_opt(opt: &Any) -> PyResult<(i64, i32)> {
    Ok(value(api::get_sys_param_opt(u32_arg(opt, "opt")?), 0))
}

/// `ret = acl.rt.ctx_set_sys_param_opt(opt, value)` (`aclrtCtxSetSysParamOpt`): for the
/// current context (and the process).
#[pyfunction]
fn ctx_set_sys_param_opt(opt: &Any, value: &Any) -> PyResult<i32> {
    let opt = u32_arg(opt, "opt")?;
    let v = int_bits(value, "value")? as i64;
    Ok(ret(api::ctx_set_sys_param_opt(opt, v)))
}

/// `value, ret = acl.rt.ctx_get_sys_param_opt(opt)` (`aclrtCtxGetSysParamOpt`):
/// `ACL_ERROR_RT_SYSPARAMOPT_NOT_SET` when the current context never set it.
#[pyfunction]
fn ctx_get_sys_param_opt(opt: &Any) -> PyResult<(i64, i32)> {
    Ok(value(api::ctx_get_sys_param_opt(u32_arg(opt, "opt")?), 0))
}

// --- Operator timeouts ------------------------------------------------------------------

/// `ret = acl.rt.set_op_wait_timeout(timeout)` (`aclrtSetOpWaitTimeout`), in seconds.
#[pyfunction]
fn set_op_wait_timeout(timeout: &Any) -> PyResult<i32> {
    Ok(ret(api::set_op_wait_timeout(u32_arg(timeout, "timeout")?)))
}

/// `ret = acl.rt.set_op_execute_time_out(timeout)` (`aclrtSetOpExecuteTimeOut`), in seconds.
#[pyfunction]
fn set_op_execute_time_out(timeout: &Any) -> PyResult<i32> {
    Ok(ret(api::set_op_execute_timeout(u32_arg(
        timeout, "timeout",
    )?)))
}

/// `actual, ret = acl.rt.set_op_execute_timeout_v2(timeout)` (`aclrtSetOpExecuteTimeOutV2`),
/// in microseconds: the timeout in effect comes back.
#[pyfunction]
fn set_op_execute_timeout_v2(timeout: &Any) -> PyResult<(u64, i32)> {
    Ok(value(
        api::set_op_execute_timeout_v2(int_bits(timeout, "timeout")?),
        0,
    ))
}

/// `timeout_ms, ret = acl.rt.get_op_execute_timeout()` (`aclrtGetOpExecuteTimeout`).
#[pyfunction]
fn get_op_execute_timeout() -> (u32, i32) {
    value(api::get_op_execute_timeout(), 0)
}

/// `interval_us, ret = acl.rt.get_op_timeout_interval()` (`aclrtGetOpTimeOutInterval`).
#[pyfunction]
fn get_op_timeout_interval() -> (u64, i32) {
    value(api::get_op_timeout_interval(), 0)
}

// --- Device limits ----------------------------------------------------------------------

/// `ret = acl.rt.device_set_limit(limit, value)` (`aclrtDeviceSetLimit`).
#[pyfunction]
fn device_set_limit(limit: &Any, value: &Any) -> PyResult<i32> {
    let limit = u32_arg(limit, "limit")?;
    let v = usize_arg(value, "value")?;
    Ok(ret(api::device_set_limit(limit, v)))
}

/// `value, ret = acl.rt.device_get_limit(limit)` (`aclrtDeviceGetLimit`).
#[pyfunction]
fn device_get_limit(limit: &Any) -> PyResult<(usize, i32)> {
    Ok(value(api::device_get_limit(u32_arg(limit, "limit")?), 0))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            set_sys_param_opt,
            get_sys_param_opt,
            ctx_set_sys_param_opt,
            ctx_get_sys_param_opt,
            set_op_wait_timeout,
            set_op_execute_time_out,
            set_op_execute_timeout_v2,
            get_op_execute_timeout,
            get_op_timeout_interval,
            device_set_limit,
            device_get_limit,
        ]
    );
    Ok(())
}
