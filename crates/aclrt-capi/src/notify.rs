//! Notifies and stream memory operations (`aclrtValueWrite`, `aclrtValueWait`).

use std::ffi::c_void;

use aclrt::NotifyHandle;

use crate::{aclError, aclrtStream, entry, not_null, produce, stream_handle};

/// `aclrtNotify`: a validated notify token.
pub type aclrtNotify = *mut c_void;

fn notify_handle(notify: aclrtNotify) -> NotifyHandle {
    NotifyHandle::from_raw(notify as u64)
}

/// `aclrtCreateNotify`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateNotify(notify: *mut aclrtNotify, flag: u64) -> aclError {
    // SAFETY: `notify` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCreateNotify", notify, "notify", |rt| {
            Ok(rt.create_notify(flag)?.as_raw() as aclrtNotify)
        })
    }
}

/// `aclrtDestroyNotify`.
#[no_mangle]
pub extern "C" fn aclrtDestroyNotify(notify: aclrtNotify) -> aclError {
    entry("aclrtDestroyNotify", |rt| {
        rt.destroy_notify(notify_handle(notify))
    })
}

/// `aclrtRecordNotify`.
#[no_mangle]
pub extern "C" fn aclrtRecordNotify(notify: aclrtNotify, stream: aclrtStream) -> aclError {
    entry("aclrtRecordNotify", |rt| {
        rt.record_notify(notify_handle(notify), stream_handle(stream))
    })
}

/// `aclrtWaitAndResetNotify` (`timeout` in seconds, 0 without limit).
#[no_mangle]
pub extern "C" fn aclrtWaitAndResetNotify(
    notify: aclrtNotify,
    stream: aclrtStream,
    timeout: u32,
) -> aclError {
    entry("aclrtWaitAndResetNotify", |rt| {
        rt.wait_and_reset_notify(notify_handle(notify), stream_handle(stream), timeout)
    })
}

/// `aclrtGetNotifyId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetNotifyId(notify: aclrtNotify, notifyId: *mut u32) -> aclError {
    // SAFETY: `notifyId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetNotifyId", notifyId, "notifyId", |rt| {
            rt.get_notify_id(notify_handle(notify))
        })
    }
}

/// `aclrtNotifyBatchReset`.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifyBatchReset(notifies: *mut aclrtNotify, num: usize) -> aclError {
    entry("aclrtNotifyBatchReset", |rt| {
        not_null(notifies, "aclrtNotifyBatchReset", "notifies")?;
        // SAFETY: non-NULL and valid for `num` reads, the C caller's contract.
        let array = unsafe { std::slice::from_raw_parts(notifies, num) };
        let handles: Vec<NotifyHandle> = array.iter().map(|&n| notify_handle(n)).collect();
        rt.notify_batch_reset(&handles)
    })
}

/// `aclrtValueWrite`.
#[no_mangle]
pub extern "C" fn aclrtValueWrite(
    devAddr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtValueWrite", |rt| {
        rt.value_write(devAddr as usize, value, flag, stream_handle(stream))
    })
}

/// `aclrtValueWait`.
#[no_mangle]
pub extern "C" fn aclrtValueWait(
    devAddr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtValueWait", |rt| {
        rt.value_wait(devAddr as usize, value, flag, stream_handle(stream))
    })
}
