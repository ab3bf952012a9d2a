//! Process-wide runtime settings (chapter "runtime configuration" of the vendor's reference):
//! system parameters, operator timeouts and device limits. They belong to a [`Runtime`], so
//! `aclFinalize` forgets them; a device reset does not.
//!
//! Every value is one atomic: a setting is read and written whole, with no lock.
//!
//! [`Runtime`]: crate::Runtime

use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// The `aclSysParamOpt` values the calls take: `ACL_OPT_DETERMINISTIC`,
/// `ACL_OPT_ENABLE_DEBUG_KERNEL`, `ACL_OPT_STRONG_CONSISTENCY`.
pub(crate) const SYS_PARAM_OPTS: usize = 3;

/// A context's or the process's system parameters; `UNSET` where none was set.
pub(crate) struct SysParams([AtomicI64; SYS_PARAM_OPTS]);

/// Marks a parameter that was never set (every valid value is ≥ 0).
const UNSET: i64 = -1;

impl Default for SysParams {
    fn default() -> Self {
        Self(std::array::from_fn(|_| AtomicI64::new(UNSET)))
    }
}

impl SysParams {
    /// The value of option `opt` (< [`SYS_PARAM_OPTS`]), if it was set.
    pub(crate) fn get(&self, opt: usize) -> Option<i64> {
        let v = self.0[opt].load(Ordering::Acquire);
        (v != UNSET).then_some(v)
    }

    pub(crate) fn set(&self, opt: usize, value: i64) {
        self.0[opt].store(value, Ordering::Release);
    }
}

/// The smallest step of an operator execution timeout, in microseconds. A timeout is a whole
/// number of steps, 1 to [`OP_TIMEOUT_MAX_STEPS`]; 254 steps make the vendor's A2 default of
/// 1091 seconds.
pub const OP_TIMEOUT_INTERVAL_US: u64 = 4_294_967;

/// The most steps an operator execution timeout may have.
pub const OP_TIMEOUT_MAX_STEPS: u64 = 254;

/// The longest operator execution timeout, and the default, in microseconds.
pub const OP_TIMEOUT_MAX_US: u64 = OP_TIMEOUT_INTERVAL_US * OP_TIMEOUT_MAX_STEPS;

/// The operator execution timeout that takes effect for a requested one (microseconds): 0 is
/// the longest; others are rounded up to a whole number of steps, at most the longest.
pub fn effective_op_timeout_us(requested_us: u64) -> u64 {
    if requested_us == 0 {
        return OP_TIMEOUT_MAX_US;
    }
    let steps = requested_us
        .div_ceil(OP_TIMEOUT_INTERVAL_US)
        .clamp(1, OP_TIMEOUT_MAX_STEPS);
    steps * OP_TIMEOUT_INTERVAL_US
}

/// Default `ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE`, bytes: values up to it leave it unchanged.
pub const SIMD_STACK_DEFAULT: usize = 32 * 1024;
/// Largest `ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE` on the emulated (A2) chip, bytes.
pub const SIMD_STACK_MAX: usize = 192 * 1024;
/// Step a larger SIMD stack size is rounded up to, bytes.
pub const SIMD_STACK_STEP: usize = 16 * 1024;
/// Default `ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE`, bytes.
pub const PRINTF_FIFO_DEFAULT: usize = 1024 * 1024;
/// Smallest `ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE`, bytes (values are rounded up
/// to 8).
pub const PRINTF_FIFO_MIN: usize = 1024;
/// Largest `ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE`, bytes.
pub const PRINTF_FIFO_MAX: usize = 64 * 1024 * 1024;

/// See the module documentation.
pub(crate) struct Settings {
    /// `aclrtSetSysParamOpt` (and `aclrtCtxSetSysParamOpt`, which sets both).
    pub(crate) sys_params: SysParams,
    /// `aclrtSetOpWaitTimeout`, seconds; 0 waits without limit.
    pub(crate) op_wait_timeout_s: AtomicU32,
    /// The operator execution timeout in effect, microseconds.
    pub(crate) op_execute_timeout_us: AtomicU64,
    /// `ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE`.
    pub(crate) simd_stack: AtomicUsize,
    /// `ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE`.
    pub(crate) printf_fifo: AtomicUsize,
    /// `aclrtSetDeviceSatMode`: the floating-point overflow mode.
    pub(crate) sat_mode: AtomicU32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            sys_params: SysParams::default(),
            op_wait_timeout_s: AtomicU32::new(0),
            op_execute_timeout_us: AtomicU64::new(OP_TIMEOUT_MAX_US),
            simd_stack: AtomicUsize::new(SIMD_STACK_DEFAULT),
            printf_fifo: AtomicUsize::new(PRINTF_FIFO_DEFAULT),
            sat_mode: AtomicU32::new(crate::vendor_consts::ACL_RT_OVERFLOW_MODE_INFNAN as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_timeouts_round_up_to_whole_steps() {
        assert_eq!(effective_op_timeout_us(0), OP_TIMEOUT_MAX_US);
        assert_eq!(effective_op_timeout_us(1), OP_TIMEOUT_INTERVAL_US);
        assert_eq!(
            effective_op_timeout_us(OP_TIMEOUT_INTERVAL_US),
            OP_TIMEOUT_INTERVAL_US
        );
        assert_eq!(
            effective_op_timeout_us(OP_TIMEOUT_INTERVAL_US + 1),
            2 * OP_TIMEOUT_INTERVAL_US
        );
        assert_eq!(effective_op_timeout_us(u64::MAX), OP_TIMEOUT_MAX_US);
        assert_eq!(OP_TIMEOUT_MAX_US / 1_000_000, 1090);
    }

    #[test]
    fn sys_params_start_unset() {
        let p = SysParams::default();
        assert_eq!(p.get(0), None);
        p.set(0, 3);
        assert_eq!(p.get(0), Some(3));
    }
}
