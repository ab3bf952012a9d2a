//! Streams.

use aclrt::api;
use aclrt::codes::ACL_ERROR_INVALID_PARAM;

use crate::{aclError, aclrtEvent, aclrtStream, event_handle, guard, not_null, put, stream_handle};

/// `aclrtCreateStream`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    guard("aclrtCreateStream", || {
        api::ensure_initialized()?;
        not_null(stream, "aclrtCreateStream", "stream")?;
        let s = api::create_stream()?;
        unsafe { put(stream, s.as_raw() as aclrtStream) };
        Ok(())
    })
}

/// `aclrtCreateStreamWithConfig`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut aclrtStream,
    priority: u32,
    flag: u32,
) -> aclError {
    guard("aclrtCreateStreamWithConfig", || {
        api::ensure_initialized()?;
        not_null(stream, "aclrtCreateStreamWithConfig", "stream")?;
        let s = api::create_stream_with_config(priority, flag)?;
        unsafe { put(stream, s.as_raw() as aclrtStream) };
        Ok(())
    })
}

/// `aclrtDestroyStream`: waits for pending tasks.
#[no_mangle]
pub extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    guard("aclrtDestroyStream", || {
        api::destroy_stream(stream_handle(stream))
    })
}

/// `aclrtDestroyStreamForce`: discards queued tasks.
#[no_mangle]
pub extern "C" fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError {
    guard("aclrtDestroyStreamForce", || {
        api::destroy_stream_force(stream_handle(stream))
    })
}

/// `aclrtSynchronizeStream`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    guard("aclrtSynchronizeStream", || {
        api::synchronize_stream(stream_handle(stream))
    })
}

/// `aclrtSynchronizeStreamWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError {
    guard("aclrtSynchronizeStreamWithTimeout", || {
        api::synchronize_stream_with_timeout(stream_handle(stream), timeout)
    })
}

/// `aclrtStreamQuery`.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamQuery(stream: aclrtStream, status: *mut u32) -> aclError {
    guard("aclrtStreamQuery", || {
        api::ensure_initialized()?;
        not_null(status, "aclrtStreamQuery", "status")?;
        let st = api::stream_query(stream_handle(stream))?;
        unsafe { put(status, st) };
        Ok(())
    })
}

/// `aclrtStreamGetId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetId(stream: aclrtStream, streamId: *mut i32) -> aclError {
    guard("aclrtStreamGetId", || {
        api::ensure_initialized()?;
        not_null(streamId, "aclrtStreamGetId", "streamId")?;
        let id = api::stream_get_id(stream_handle(stream))?;
        unsafe { put(streamId, id) };
        Ok(())
    })
}

/// `aclrtStreamGetPriority`: the priority after clamping to 0..=7.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetPriority(
    stream: aclrtStream,
    priority: *mut u32,
) -> aclError {
    guard("aclrtStreamGetPriority", || {
        api::ensure_initialized()?;
        not_null(priority, "aclrtStreamGetPriority", "priority")?;
        let p = api::stream_priority(stream_handle(stream))?;
        unsafe { put(priority, p) };
        Ok(())
    })
}

/// `aclrtSetStreamFailureMode`.
#[no_mangle]
pub extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    guard("aclrtSetStreamFailureMode", || {
        api::set_stream_failure_mode(stream_handle(stream), mode)
    })
}

/// `aclrtStreamWaitEvent`.
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    guard("aclrtStreamWaitEvent", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtStreamWaitEvent")?;
        api::stream_wait_event(stream_handle(stream), ev)
    })
}

/// `aclrtStreamWaitEventWithTimeout` (milliseconds, 0 = no limit).
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEventWithTimeout(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: i32,
) -> aclError {
    guard("aclrtStreamWaitEventWithTimeout", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtStreamWaitEventWithTimeout")?;
        api::stream_wait_event_with_timeout(stream_handle(stream), ev, timeout)
    })
}

/// `aclrtStreamWaitEventWithFlag`: the wait flag (0 or 1) only marks graph-capture use, which
/// the emulated device does not have; the timeout works as in
/// `aclrtStreamWaitEventWithTimeout` (values beyond `i32::MAX` ms are clamped).
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: u32,
    flag: u32,
) -> aclError {
    guard("aclrtStreamWaitEventWithFlag", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtStreamWaitEventWithFlag")?;
        if timeout == 0 {
            return api::stream_wait_event_with_flag(stream_handle(stream), ev, flag);
        }
        if flag > 1 {
            return Err(api::fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "aclrtStreamWaitEventWithFlag: flag {flag} is not 0 (DEFAULT) or 1 (EXTERNAL)"
                ),
            ));
        }
        let ms = i32::try_from(timeout).unwrap_or(i32::MAX);
        api::stream_wait_event_with_timeout(stream_handle(stream), ev, ms)
    })
}
