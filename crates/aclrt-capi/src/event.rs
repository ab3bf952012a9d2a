//! Events.

use aclrt::Runtime;

use crate::{
    aclError, aclrtEvent, aclrtStream, entry, event_handle, not_null, produce, put, stream_handle,
};

fn create(
    call: &str,
    event: *mut aclrtEvent,
    make: impl FnOnce(&Runtime) -> aclrt::Result<aclrt::EventHandle>,
) -> aclError {
    // SAFETY: `event` is NULL or writable, the C caller's contract.
    unsafe {
        produce(call, event, "event", |rt| {
            Ok(make(rt)?.as_raw() as aclrtEvent)
        })
    }
}

/// `aclrtCreateEvent`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError {
    create("aclrtCreateEvent", event, Runtime::create_event)
}

/// `aclrtCreateEventWithFlag`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    create("aclrtCreateEventWithFlag", event, |rt| {
        rt.create_event_with_flag(flag)
    })
}

/// `aclrtCreateEventExWithFlag`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    create("aclrtCreateEventExWithFlag", event, |rt| {
        rt.create_event_ex_with_flag(flag)
    })
}

/// `aclrtDestroyEvent`: never blocks.
#[no_mangle]
pub extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    entry("aclrtDestroyEvent", |rt| {
        rt.destroy_event(event_handle(event))
    })
}

/// `aclrtRecordEvent`.
#[no_mangle]
pub extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    entry("aclrtRecordEvent", |rt| {
        let ev = event_handle(event);
        rt.record_event(ev, stream_handle(stream))
    })
}

/// `aclrtRecordEventWithFlag`.
#[no_mangle]
pub extern "C" fn aclrtRecordEventWithFlag(
    event: aclrtEvent,
    stream: aclrtStream,
    flag: u32,
) -> aclError {
    entry("aclrtRecordEventWithFlag", |rt| {
        let ev = event_handle(event);
        rt.record_event_with_flag(ev, stream_handle(stream), flag)
    })
}

/// `aclrtResetEvent`.
#[no_mangle]
pub extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    entry("aclrtResetEvent", |rt| {
        let ev = event_handle(event);
        rt.reset_event(ev, stream_handle(stream))
    })
}

fn query(
    call: &str,
    event: aclrtEvent,
    status: *mut u32,
    get: impl FnOnce(&Runtime, aclrt::EventHandle) -> aclrt::Result<u32>,
) -> aclError {
    // SAFETY: `status` is NULL or writable, the C caller's contract.
    unsafe { produce(call, status, "status", |rt| get(rt, event_handle(event))) }
}

/// `aclrtQueryEvent` (deprecated by the vendor, still exported).
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEvent(event: aclrtEvent, status: *mut u32) -> aclError {
    query("aclrtQueryEvent", event, status, Runtime::query_event)
}

/// `aclrtQueryEventStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEventStatus(event: aclrtEvent, status: *mut u32) -> aclError {
    query(
        "aclrtQueryEventStatus",
        event,
        status,
        Runtime::query_event_status,
    )
}

/// `aclrtQueryEventWaitStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEventWaitStatus(
    event: aclrtEvent,
    status: *mut u32,
) -> aclError {
    query(
        "aclrtQueryEventWaitStatus",
        event,
        status,
        Runtime::query_event_wait_status,
    )
}

/// `aclrtSynchronizeEvent`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    entry("aclrtSynchronizeEvent", |rt| {
        rt.synchronize_event(event_handle(event))
    })
}

/// `aclrtSynchronizeEventWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEventWithTimeout(event: aclrtEvent, timeout: i32) -> aclError {
    entry("aclrtSynchronizeEventWithTimeout", |rt| {
        let ev = event_handle(event);
        rt.synchronize_event_with_timeout(ev, timeout)
    })
}

/// `aclrtEventElapsedTime`: milliseconds between the two records' completions.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    startEvent: aclrtEvent,
    endEvent: aclrtEvent,
) -> aclError {
    // SAFETY: `ms` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtEventElapsedTime", ms, "ms", |rt| {
            let start = event_handle(startEvent);
            let end = event_handle(endEvent);
            let elapsed = rt.event_elapsed_time(start, end)?;
            Ok(elapsed)
        })
    }
}

/// `aclrtEventGetTimestamp`: microseconds since the device started.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventGetTimestamp(
    event: aclrtEvent,
    timestamp: *mut u64,
) -> aclError {
    entry("aclrtEventGetTimestamp", |rt| {
        let ev = event_handle(event);
        not_null(timestamp, "aclrtEventGetTimestamp", "timestamp")?;
        let t = rt.event_get_timestamp(ev)?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(timestamp, t) };
        Ok(())
    })
}

/// `aclrtGetEventId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetEventId(event: aclrtEvent, eventId: *mut u32) -> aclError {
    entry("aclrtGetEventId", |rt| {
        let ev = event_handle(event);
        not_null(eventId, "aclrtGetEventId", "eventId")?;
        let id = rt.get_event_id(ev)?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(eventId, id) };
        Ok(())
    })
}

/// `aclrtGetEventAvailNum`: SYNC event resources left on the current device.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetEventAvailNum(eventCount: *mut u32) -> aclError {
    // SAFETY: `eventCount` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetEventAvailNum", eventCount, "eventCount", |rt| {
            let n = rt.get_event_avail_num()?;
            Ok(n)
        })
    }
}

/// `aclrtIpcEventHandle`, passed by value: `ACL_IPC_EVENT_HANDLE_SIZE` opaque bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtIpcEventHandle {
    /// The handle's bytes.
    pub reserved: [std::ffi::c_char; aclrt::ipc::HANDLE_SIZE],
}

/// `aclrtIpcGetEventHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcGetEventHandle(
    event: aclrtEvent,
    handle: *mut aclrtIpcEventHandle,
) -> aclError {
    // SAFETY: `handle` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtIpcGetEventHandle", handle, "handle", |rt| {
            let bytes = rt.ipc_get_event_handle(event_handle(event))?;
            Ok(aclrtIpcEventHandle {
                reserved: bytes.map(|b| b as std::ffi::c_char),
            })
        })
    }
}

/// `aclrtIpcOpenEventHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcOpenEventHandle(
    handle: aclrtIpcEventHandle,
    event: *mut aclrtEvent,
) -> aclError {
    let bytes = handle.reserved.map(|b| b as u8);
    create("aclrtIpcOpenEventHandle", event, |rt| {
        rt.ipc_open_event_handle(&bytes)
    })
}
