//! Streams.

use crate::{aclError, aclrtEvent, aclrtStream, entry, event_handle, produce, stream_handle};

/// `aclrtCreateStream`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    // SAFETY: `stream` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCreateStream", stream, "stream", |rt| {
            let s = rt.create_stream()?;
            Ok(s.as_raw() as aclrtStream)
        })
    }
}

/// `aclrtCreateStreamWithConfig`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut aclrtStream,
    priority: u32,
    flag: u32,
) -> aclError {
    // SAFETY: `stream` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCreateStreamWithConfig", stream, "stream", |rt| {
            let s = rt.create_stream_with_config(priority, flag)?;
            Ok(s.as_raw() as aclrtStream)
        })
    }
}

/// `aclrtDestroyStream`: waits for pending tasks.
#[no_mangle]
pub extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    entry("aclrtDestroyStream", |rt| {
        rt.destroy_stream(stream_handle(stream))
    })
}

/// `aclrtDestroyStreamForce`: discards queued tasks.
#[no_mangle]
pub extern "C" fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError {
    entry("aclrtDestroyStreamForce", |rt| {
        rt.destroy_stream_force(stream_handle(stream))
    })
}

/// `aclrtSynchronizeStream`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    entry("aclrtSynchronizeStream", |rt| {
        rt.synchronize_stream(stream_handle(stream))
    })
}

/// `aclrtSynchronizeStreamWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError {
    entry("aclrtSynchronizeStreamWithTimeout", |rt| {
        rt.synchronize_stream_with_timeout(stream_handle(stream), timeout)
    })
}

/// `aclrtStreamQuery`.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamQuery(stream: aclrtStream, status: *mut u32) -> aclError {
    // SAFETY: `status` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtStreamQuery", status, "status", |rt| {
            let st = rt.stream_query(stream_handle(stream))?;
            Ok(st)
        })
    }
}

/// `aclrtStreamGetId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetId(stream: aclrtStream, streamId: *mut i32) -> aclError {
    // SAFETY: `streamId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtStreamGetId", streamId, "streamId", |rt| {
            let id = rt.stream_get_id(stream_handle(stream))?;
            Ok(id)
        })
    }
}

/// `aclrtStreamGetPriority`: the priority after clamping to 0..=7.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetPriority(
    stream: aclrtStream,
    priority: *mut u32,
) -> aclError {
    // SAFETY: `priority` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtStreamGetPriority", priority, "priority", |rt| {
            let p = rt.stream_priority(stream_handle(stream))?;
            Ok(p)
        })
    }
}

/// `aclrtSetStreamFailureMode`.
#[no_mangle]
pub extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    entry("aclrtSetStreamFailureMode", |rt| {
        rt.set_stream_failure_mode(stream_handle(stream), mode)
    })
}

/// `aclrtStreamWaitEvent`.
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    entry("aclrtStreamWaitEvent", |rt| {
        let ev = event_handle(event);
        rt.stream_wait_event(stream_handle(stream), ev)
    })
}

/// `aclrtStreamWaitEventWithTimeout` (milliseconds, 0 = no limit).
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEventWithTimeout(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: i32,
) -> aclError {
    entry("aclrtStreamWaitEventWithTimeout", |rt| {
        let ev = event_handle(event);
        rt.stream_wait_event_with_timeout(stream_handle(stream), ev, timeout)
    })
}

/// `aclrtStreamWaitEventWithFlag`.
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: u32,
    flag: u32,
) -> aclError {
    entry("aclrtStreamWaitEventWithFlag", |rt| {
        rt.stream_wait_event_with_flag(stream_handle(stream), event_handle(event), timeout, flag)
    })
}
