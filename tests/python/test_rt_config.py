"""pyACL's system parameters, operator timeouts and device limits: success and error paths
with exact codes, and pyACL's argument-error texts for them."""

import threading

import pytest

import acl
from acl import rt

E = acl
DETERMINISTIC = acl.ACL_OPT_DETERMINISTIC
DEBUG_KERNEL = acl.ACL_OPT_ENABLE_DEBUG_KERNEL
SIMD_STACK = acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE
PRINTF_FIFO = acl.ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE


def test_process_sys_params():
    try:
        assert rt.set_sys_param_opt(DETERMINISTIC, 1) == 0
        assert rt.set_sys_param_opt(DETERMINISTIC, 3) == 0
        assert rt.get_sys_param_opt(DETERMINISTIC) == (3, 0)
        assert rt.set_sys_param_opt(DEBUG_KERNEL, 1) == 0
        assert rt.get_sys_param_opt(DEBUG_KERNEL) == (1, 0)
        # A value outside the option's range, an option outside the three.
        assert rt.set_sys_param_opt(DETERMINISTIC, 4) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.set_sys_param_opt(DEBUG_KERNEL, 2) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.set_sys_param_opt(DEBUG_KERNEL, -1) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.get_sys_param_opt(DETERMINISTIC) == (3, 0)
        early = acl.ACL_OPT_ENABLE_KERNEL_EARLY_START
        assert rt.set_sys_param_opt(early, 0) == E.ACL_ERROR_INVALID_PARAM
        assert rt.get_sys_param_opt(early) == (0, E.ACL_ERROR_INVALID_PARAM)
        assert rt.get_sys_param_opt(-1) == (0, E.ACL_ERROR_INVALID_PARAM)
    finally:
        assert rt.set_sys_param_opt(DETERMINISTIC, 0) == 0
        assert rt.set_sys_param_opt(DEBUG_KERNEL, 0) == 0
    assert rt.get_sys_param_opt(DETERMINISTIC) == (0, 0)


def test_context_sys_params():
    ctx, ret = rt.create_context(0)
    assert ret == 0
    try:
        # Never set in this context: an error, not a default.
        assert rt.ctx_get_sys_param_opt(DEBUG_KERNEL) == (0, E.ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
        assert rt.ctx_set_sys_param_opt(DEBUG_KERNEL, 1) == 0
        assert rt.ctx_get_sys_param_opt(DEBUG_KERNEL) == (1, 0)
        # The process takes the value too.
        assert rt.get_sys_param_opt(DEBUG_KERNEL) == (1, 0)
        assert rt.ctx_set_sys_param_opt(DEBUG_KERNEL, 5) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.ctx_set_sys_param_opt(99, 0) == E.ACL_ERROR_INVALID_PARAM
        assert rt.ctx_get_sys_param_opt(99) == (0, E.ACL_ERROR_INVALID_PARAM)
        # Another context has its own (unset) values.
        other, ret = rt.create_context(0)
        assert ret == 0
        assert rt.ctx_get_sys_param_opt(DEBUG_KERNEL) == (0, E.ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
        assert rt.destroy_context(other) == 0
    finally:
        assert rt.set_context(ctx) == 0
        assert rt.destroy_context(ctx) == 0
        assert rt.set_sys_param_opt(DEBUG_KERNEL, 0) == 0


def test_op_execute_timeouts():
    interval, ret = rt.get_op_timeout_interval()
    assert ret == 0 and interval > 0
    try:
        # In effect: a whole number of intervals, at least one.
        assert rt.set_op_execute_timeout_v2(1) == (interval, 0)
        assert rt.get_op_execute_timeout() == (interval // 1000, 0)
        assert rt.set_op_execute_timeout_v2(interval + 1) == (2 * interval, 0)
        assert rt.set_op_execute_time_out(60) == 0
        steps = -(-60_000_000 // interval)
        assert rt.get_op_execute_timeout() == (steps * interval // 1000, 0)
    finally:
        # 0 is the longest: 254 intervals, as before any setting.
        assert rt.set_op_execute_time_out(0) == 0
    assert rt.get_op_execute_timeout() == (254 * interval // 1000, 0)
    assert rt.set_op_execute_timeout_v2(0) == (254 * interval, 0)


def test_op_wait_timeout_fails_a_late_event_wait():
    a, ret = rt.create_stream()
    assert ret == 0
    b, ret = rt.create_stream()
    assert ret == 0
    ev, ret = rt.create_event()
    assert ret == 0
    release = threading.Event()
    try:
        assert rt.set_op_wait_timeout(1) == 0
        # b records only once released, after a's wait has given up.
        assert rt.launch_host_func(b, lambda _: release.wait(10), None) == 0
        assert rt.record_event(ev, b) == 0
        assert rt.stream_wait_event(a, ev) == 0
        assert rt.synchronize_stream(a) == E.ACL_ERROR_RT_TASK_TIMEOUT
        release.set()
        assert rt.synchronize_stream(b) == 0
        # 0 waits without limit again.
        assert rt.set_op_wait_timeout(0) == 0
        assert rt.stream_wait_event(a, ev) == 0
        assert rt.synchronize_stream(a) == 0
    finally:
        release.set()
        rt.set_op_wait_timeout(0)
        rt.destroy_event(ev)
        rt.destroy_stream(a)
        rt.destroy_stream(b)


def test_device_limits():
    stack, ret = rt.device_get_limit(SIMD_STACK)
    assert ret == 0 and stack == 32 * 1024
    fifo, ret = rt.device_get_limit(PRINTF_FIFO)
    assert ret == 0 and fifo > 0
    try:
        # Up to the default it stays; above, rounded up to 16 KiB; beyond 192 KiB refused.
        assert rt.device_set_limit(SIMD_STACK, 1024) == 0
        assert rt.device_get_limit(SIMD_STACK) == (32 * 1024, 0)
        assert rt.device_set_limit(SIMD_STACK, 40 * 1024) == 0
        assert rt.device_get_limit(SIMD_STACK) == (48 * 1024, 0)
        assert rt.device_set_limit(SIMD_STACK, 192 * 1024 + 1) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.device_get_limit(SIMD_STACK) == (48 * 1024, 0)
        # The printf FIFO: 1 KiB to 64 MiB, rounded up to 8 bytes.
        assert rt.device_set_limit(PRINTF_FIFO, 1025) == 0
        assert rt.device_get_limit(PRINTF_FIFO) == (1032, 0)
        assert rt.device_set_limit(PRINTF_FIFO, 1023) == E.ACL_ERROR_RT_PARAM_INVALID
        assert rt.device_set_limit(PRINTF_FIFO, -1) == E.ACL_ERROR_RT_PARAM_INVALID
        # SIMT limits concern units the emulated device lacks; others are not limits.
        simt = acl.ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE
        assert rt.device_set_limit(simt, 4096) == E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert rt.device_get_limit(simt) == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        assert rt.device_get_limit(99) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    finally:
        assert rt.device_set_limit(SIMD_STACK, stack) == 0
        assert rt.device_set_limit(PRINTF_FIFO, fifo) == 0
    assert rt.device_get_limit(SIMD_STACK) == (stack, 0)
    assert rt.device_get_limit(PRINTF_FIFO) == (fifo, 0)


def message(fn, *args):
    with pytest.raises(TypeError) as info:
        fn(*args)
    assert type(info.value) is TypeError
    return str(info.value)


def test_parse_failures_read_as_pyacls():
    assert message(rt.set_sys_param_opt, 0) == "acl.rt.set_sys_param_opt args parse faild"
    assert message(rt.get_sys_param_opt, "0") == "acl.rt.get_sys_param_opt args parse faild"
    assert message(rt.ctx_set_sys_param_opt, 0, None) == (
        "acl.rt.ctx_set_sys_param_opt args parse failed"
    )
    assert message(rt.ctx_get_sys_param_opt) == "acl.rt.ctx_get_sys_param_opt args parse failed"
    assert message(rt.set_op_wait_timeout, 1.5) == "acl.rt.set_op_wait_timeout args parse failed!"
    assert message(rt.set_op_execute_time_out) == (
        "acl.rt.set_op_execute_timeout args parse failed!"
    )
    assert message(rt.set_op_execute_timeout_v2, "1") == (
        "acl.rt.set_op_execute_timeout_v2 args parse failed!"
    )
    assert message(rt.device_set_limit, 2) == "acl.rt.device_set_limit args parse failed"
    assert message(rt.device_get_limit, None) == "acl.rt.device_get_limit args parse failed"
    # Calls without parameters ignore what they are given.
    assert rt.get_op_timeout_interval("x")[1] == 0
    assert rt.get_op_execute_timeout(1, 2)[1] == 0
