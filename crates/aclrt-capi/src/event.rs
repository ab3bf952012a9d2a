//! Events.

use aclrt::api;

use crate::{aclError, aclrtEvent, aclrtStream, event_handle, guard, not_null, put, stream_handle};

fn create(
    call: &str,
    event: *mut aclrtEvent,
    make: impl FnOnce() -> aclrt::Result<aclrt::EventHandle>,
) -> aclError {
    guard(call, || {
        api::ensure_initialized()?;
        not_null(event, call, "event")?;
        let ev = make()?;
        unsafe { put(event, ev.as_raw() as aclrtEvent) };
        Ok(())
    })
}

/// `aclrtCreateEvent`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError {
    create("aclrtCreateEvent", event, api::create_event)
}

/// `aclrtCreateEventWithFlag`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    create("aclrtCreateEventWithFlag", event, || {
        api::create_event_with_flag(flag)
    })
}

/// `aclrtCreateEventExWithFlag`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    create("aclrtCreateEventExWithFlag", event, || {
        api::create_event_ex_with_flag(flag)
    })
}

/// `aclrtDestroyEvent`: never blocks.
#[no_mangle]
pub extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    guard("aclrtDestroyEvent", || {
        api::ensure_initialized()?;
        api::destroy_event(event_handle(event, "aclrtDestroyEvent")?)
    })
}

/// `aclrtRecordEvent`.
#[no_mangle]
pub extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    guard("aclrtRecordEvent", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtRecordEvent")?;
        api::record_event(ev, stream_handle(stream))
    })
}

/// `aclrtRecordEventWithFlag`.
#[no_mangle]
pub extern "C" fn aclrtRecordEventWithFlag(
    event: aclrtEvent,
    stream: aclrtStream,
    flag: u32,
) -> aclError {
    guard("aclrtRecordEventWithFlag", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtRecordEventWithFlag")?;
        api::record_event_with_flag(ev, stream_handle(stream), flag)
    })
}

/// `aclrtResetEvent`.
#[no_mangle]
pub extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    guard("aclrtResetEvent", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtResetEvent")?;
        api::reset_event(ev, stream_handle(stream))
    })
}

fn query(
    call: &str,
    event: aclrtEvent,
    status: *mut u32,
    get: impl FnOnce(aclrt::EventHandle) -> aclrt::Result<u32>,
) -> aclError {
    guard(call, || {
        api::ensure_initialized()?;
        let ev = event_handle(event, call)?;
        not_null(status, call, "status")?;
        let st = get(ev)?;
        unsafe { put(status, st) };
        Ok(())
    })
}

/// `aclrtQueryEvent` (deprecated by the vendor, still exported).
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEvent(event: aclrtEvent, status: *mut u32) -> aclError {
    query("aclrtQueryEvent", event, status, api::query_event)
}

/// `aclrtQueryEventStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEventStatus(event: aclrtEvent, status: *mut u32) -> aclError {
    query(
        "aclrtQueryEventStatus",
        event,
        status,
        api::query_event_status,
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
        api::query_event_wait_status,
    )
}

/// `aclrtSynchronizeEvent`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    guard("aclrtSynchronizeEvent", || {
        api::ensure_initialized()?;
        api::synchronize_event(event_handle(event, "aclrtSynchronizeEvent")?)
    })
}

/// `aclrtSynchronizeEventWithTimeout` (`-1` waits forever).
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEventWithTimeout(event: aclrtEvent, timeout: i32) -> aclError {
    guard("aclrtSynchronizeEventWithTimeout", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtSynchronizeEventWithTimeout")?;
        api::synchronize_event_with_timeout(ev, timeout)
    })
}

/// `aclrtEventElapsedTime`: milliseconds between the two records' completions.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    startEvent: aclrtEvent,
    endEvent: aclrtEvent,
) -> aclError {
    guard("aclrtEventElapsedTime", || {
        api::ensure_initialized()?;
        not_null(ms, "aclrtEventElapsedTime", "ms")?;
        let start = event_handle(startEvent, "aclrtEventElapsedTime")?;
        let end = event_handle(endEvent, "aclrtEventElapsedTime")?;
        let elapsed = api::event_elapsed_time(start, end)?;
        unsafe { put(ms, elapsed) };
        Ok(())
    })
}

/// `aclrtEventGetTimestamp`: microseconds since the device started.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventGetTimestamp(
    event: aclrtEvent,
    timestamp: *mut u64,
) -> aclError {
    guard("aclrtEventGetTimestamp", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtEventGetTimestamp")?;
        not_null(timestamp, "aclrtEventGetTimestamp", "timestamp")?;
        let t = api::event_get_timestamp(ev)?;
        unsafe { put(timestamp, t) };
        Ok(())
    })
}

/// `aclrtGetEventId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetEventId(event: aclrtEvent, eventId: *mut u32) -> aclError {
    guard("aclrtGetEventId", || {
        api::ensure_initialized()?;
        let ev = event_handle(event, "aclrtGetEventId")?;
        not_null(eventId, "aclrtGetEventId", "eventId")?;
        let id = api::get_event_id(ev)?;
        unsafe { put(eventId, id) };
        Ok(())
    })
}

/// `aclrtGetEventAvailNum`: SYNC event resources left on the current device.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetEventAvailNum(eventCount: *mut u32) -> aclError {
    guard("aclrtGetEventAvailNum", || {
        api::ensure_initialized()?;
        not_null(eventCount, "aclrtGetEventAvailNum", "eventCount")?;
        let n = api::get_event_avail_num()?;
        unsafe { put(eventCount, n) };
        Ok(())
    })
}
