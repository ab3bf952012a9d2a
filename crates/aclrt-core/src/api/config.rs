//! Runtime configuration: system parameters (`aclrtSetSysParamOpt` and the context forms),
//! operator timeouts (`aclrtSetOpWaitTimeout`, `aclrtSetOpExecuteTimeOut` and its forms) and
//! device limits (`aclrtDeviceSetLimit`).
//!
//! Kernels are host code: an operator execution timeout is kept and reported, never enforced
//! (a host function cannot be stopped), and device limits size nothing. The event wait
//! timeout is enforced: a plain `aclrtStreamWaitEvent` queued while it is set fails its task
//! with `ACL_ERROR_RT_TASK_TIMEOUT` when the event is not recorded in time.

use std::sync::atomic::Ordering;

use crate::codes::*;
use crate::error::{bail, Result};
use crate::runtime::Runtime;
use crate::settings::{
    effective_op_timeout_us, OP_TIMEOUT_INTERVAL_US, PRINTF_FIFO_MAX, PRINTF_FIFO_MIN,
    SIMD_STACK_DEFAULT, SIMD_STACK_MAX, SIMD_STACK_STEP, SYS_PARAM_OPTS,
};

/// `ACL_OPT_DETERMINISTIC`, which takes the values 0 to 3; the other options take 0 or 1.
const OPT_DETERMINISTIC: usize = 0;

/// An `aclSysParamOpt` the calls take (`ACL_OPT_DETERMINISTIC`, `ACL_OPT_ENABLE_DEBUG_KERNEL`,
/// `ACL_OPT_STRONG_CONSISTENCY`); any other, `ACL_OPT_ENABLE_KERNEL_EARLY_START` included, is
/// `100000`.
fn sys_param_opt(opt: u32, call: &str) -> Result<usize> {
    match usize::try_from(opt) {
        Ok(o) if o < SYS_PARAM_OPTS => Ok(o),
        _ => bail!(
            ACL_ERROR_INVALID_PARAM,
            "{call}: option {opt} is not ACL_OPT_DETERMINISTIC (0), ACL_OPT_ENABLE_DEBUG_KERNEL \
             (1) or ACL_OPT_STRONG_CONSISTENCY (2)"
        ),
    }
}

/// A value option `opt` takes: 0 to 3 for `ACL_OPT_DETERMINISTIC`, 0 or 1 for the others
/// (`107000` otherwise).
fn sys_param_value(opt: usize, value: i64, call: &str) -> Result<()> {
    let end = if opt == OPT_DETERMINISTIC { 4 } else { 2 };
    if !(0..end).contains(&value) {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: value {value} of option {opt} is outside [0, {end})"
        );
    }
    Ok(())
}

/// The `aclrtDeviceLimit` values.
const LIMIT_SIMT_STACK_SIZE: u32 = 0;
const LIMIT_SIMT_DVG_WARP_STACK_SIZE: u32 = 1;
const LIMIT_SIMD_STACK_SIZE: u32 = 2;
const LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE: u32 = 3;
const LIMIT_SIMT_PRINTF_FIFO_SIZE: u32 = 4;

/// Refuses the SIMT limits (`207000`: the emulated chip, an A2, has no SIMT units) and values
/// outside `aclrtDeviceLimit` (`107000`).
fn device_limit(limit: u32, call: &str) -> Result<u32> {
    match limit {
        LIMIT_SIMT_STACK_SIZE | LIMIT_SIMT_DVG_WARP_STACK_SIZE | LIMIT_SIMT_PRINTF_FIFO_SIZE => {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{call}: limit {limit} concerns SIMT units, which the emulated device does not \
                 have"
            )
        }
        LIMIT_SIMD_STACK_SIZE | LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE => Ok(limit),
        _ => bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: limit {limit} is not an aclrtDeviceLimit"
        ),
    }
}

impl Runtime {
    /// `aclrtGetSysParamOpt`: the process's value of `opt`, 0 when it was never set.
    pub fn get_sys_param_opt(&self, opt: u32) -> Result<i64> {
        let opt = sys_param_opt(opt, "aclrtGetSysParamOpt")?;
        Ok(self.settings.sys_params.get(opt).unwrap_or(0))
    }

    /// `aclrtSetSysParamOpt`: sets the process's value of `opt` (the last call wins).
    pub fn set_sys_param_opt(&self, opt: u32, value: i64) -> Result<()> {
        let call = "aclrtSetSysParamOpt";
        let opt = sys_param_opt(opt, call)?;
        sys_param_value(opt, value, call)?;
        self.settings.sys_params.set(opt, value);
        Ok(())
    }

    /// `aclrtCtxGetSysParamOpt`: the current context's value of `opt`;
    /// `ACL_ERROR_RT_SYSPARAMOPT_NOT_SET` when `aclrtCtxSetSysParamOpt` never set it there.
    pub fn ctx_get_sys_param_opt(&self, opt: u32) -> Result<i64> {
        let call = "aclrtCtxGetSysParamOpt";
        let opt = sys_param_opt(opt, call)?;
        let ctx = self.current_context()?;
        match ctx.sys_params.get(opt) {
            Some(v) => Ok(v),
            None => bail!(
                ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
                "{call}: option {opt} was not set in the current context"
            ),
        }
    }

    /// `aclrtCtxSetSysParamOpt`: sets `opt` in the current context and in the process.
    pub fn ctx_set_sys_param_opt(&self, opt: u32, value: i64) -> Result<()> {
        let call = "aclrtCtxSetSysParamOpt";
        let opt = sys_param_opt(opt, call)?;
        sys_param_value(opt, value, call)?;
        let ctx = self.current_context()?;
        ctx.sys_params.set(opt, value);
        self.settings.sys_params.set(opt, value);
        Ok(())
    }

    /// `aclrtSetOpWaitTimeout`: how long a stream waits in `aclrtStreamWaitEvent` calls
    /// queued from now on, in seconds; 0 (the default) waits without limit.
    pub fn set_op_wait_timeout(&self, seconds: u32) -> Result<()> {
        self.settings
            .op_wait_timeout_s
            .store(seconds, Ordering::Relaxed);
        Ok(())
    }

    /// The event wait timeout in milliseconds, if one is set.
    pub(crate) fn op_wait_timeout_ms(&self) -> Option<i32> {
        let seconds = self.settings.op_wait_timeout_s.load(Ordering::Relaxed);
        (seconds > 0).then(|| i32::try_from(u64::from(seconds) * 1000).unwrap_or(i32::MAX))
    }

    fn set_op_execute_timeout_us(&self, requested_us: u64) -> u64 {
        let actual = effective_op_timeout_us(requested_us);
        self.settings
            .op_execute_timeout_us
            .store(actual, Ordering::Relaxed);
        actual
    }

    /// `aclrtSetOpExecuteTimeOut`: in seconds; 0 is the longest.
    pub fn set_op_execute_timeout(&self, seconds: u32) -> Result<()> {
        self.set_op_execute_timeout_us(u64::from(seconds) * 1_000_000);
        Ok(())
    }

    /// `aclrtSetOpExecuteTimeOutWithMs`: in milliseconds; 0 is the longest.
    pub fn set_op_execute_timeout_with_ms(&self, ms: u32) -> Result<()> {
        self.set_op_execute_timeout_us(u64::from(ms) * 1000);
        Ok(())
    }

    /// `aclrtSetOpExecuteTimeOutV2`: in microseconds; 0 is the longest. Returns the timeout
    /// in effect: a whole number of intervals (`aclrtGetOpTimeOutInterval`), 1 to 254.
    pub fn set_op_execute_timeout_v2(&self, us: u64) -> Result<u64> {
        Ok(self.set_op_execute_timeout_us(us))
    }

    /// `aclrtGetOpExecuteTimeout`: the timeout in effect, in whole milliseconds (the longest,
    /// 254 intervals, until one is set).
    pub fn get_op_execute_timeout(&self) -> Result<u32> {
        let us = self.settings.op_execute_timeout_us.load(Ordering::Relaxed);
        Ok(u32::try_from(us / 1000).unwrap_or(u32::MAX))
    }

    /// `aclrtGetOpTimeOutInterval`: the step of operator timeouts, in microseconds.
    pub fn get_op_timeout_interval(&self) -> Result<u64> {
        Ok(OP_TIMEOUT_INTERVAL_US)
    }

    /// `aclrtDeviceSetLimit`: one setting for the process (every device). The SIMD stack size
    /// stays at its default (32 KiB) for values up to it, and is rounded up to 16 KiB above it,
    /// up to 192 KiB (`107000` beyond); the printf FIFO size per core takes 1 KiB to 64 MiB
    /// (`107000` outside), rounded up to 8 bytes.
    pub fn device_set_limit(&self, limit: u32, value: usize) -> Result<()> {
        let call = "aclrtDeviceSetLimit";
        match device_limit(limit, call)? {
            LIMIT_SIMD_STACK_SIZE => {
                if value > SIMD_STACK_MAX {
                    bail!(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "{call}: a SIMD stack of {value} bytes is more than the emulated device's \
                         {SIMD_STACK_MAX}"
                    );
                }
                let size = if value <= SIMD_STACK_DEFAULT {
                    SIMD_STACK_DEFAULT
                } else {
                    value.next_multiple_of(SIMD_STACK_STEP)
                };
                self.settings.simd_stack.store(size, Ordering::Relaxed);
            }
            _ => {
                if !(PRINTF_FIFO_MIN..=PRINTF_FIFO_MAX).contains(&value) {
                    bail!(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "{call}: a printf FIFO of {value} bytes is outside [{PRINTF_FIFO_MIN}, \
                         {PRINTF_FIFO_MAX}]"
                    );
                }
                self.settings
                    .printf_fifo
                    .store(value.next_multiple_of(8), Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// `aclrtDeviceGetLimit`: the value `aclrtDeviceSetLimit` left (or the default).
    pub fn device_get_limit(&self, limit: u32) -> Result<usize> {
        Ok(match device_limit(limit, "aclrtDeviceGetLimit")? {
            LIMIT_SIMD_STACK_SIZE => self.settings.simd_stack.load(Ordering::Relaxed),
            _ => self.settings.printf_fifo.load(Ordering::Relaxed),
        })
    }
}
