//! Notifies and stream memory operations (`aclrtValueWrite`, `aclrtValueWait`).

use std::ffi::{c_char, c_void, CStr};

use aclrt::{CntNotifyHandle, NotifyHandle};

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

/// `aclrtNotifyGetExportKey`: writes the key, NUL-terminated, into `key` (`len` bytes).
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifyGetExportKey(
    notify: aclrtNotify,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    entry("aclrtNotifyGetExportKey", |rt| {
        not_null(key, "aclrtNotifyGetExportKey", "key")?;
        let text = rt.notify_get_export_key(notify_handle(notify), len, flags)?;
        // SAFETY: non-NULL and writable for `len` bytes, the C caller's contract; the core
        // checked the key and its NUL fit in `len`.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), key, text.len());
            key.add(text.len()).write(0);
        }
        Ok(())
    })
}

/// `aclrtNotifyImportByKey`.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifyImportByKey(
    notify: *mut aclrtNotify,
    key: *const c_char,
    flags: u64,
) -> aclError {
    // SAFETY: `notify` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtNotifyImportByKey", notify, "notify", |rt| {
            not_null(key, "aclrtNotifyImportByKey", "key")?;
            // SAFETY: non-NULL, a C string by the C contract.
            let key = CStr::from_ptr(key).to_string_lossy();
            Ok(rt.notify_import_by_key(&key, flags)?.as_raw() as aclrtNotify)
        })
    }
}

/// `aclrtNotifySetImportPid`.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifySetImportPid(
    notify: aclrtNotify,
    pid: *mut i32,
    num: usize,
) -> aclError {
    entry("aclrtNotifySetImportPid", |rt| {
        not_null(pid, "aclrtNotifySetImportPid", "pid")?;
        // SAFETY: non-NULL and valid for `num` reads, the C caller's contract.
        let pids = unsafe { std::slice::from_raw_parts(pid, num) };
        rt.notify_set_import_pid(notify_handle(notify), pids)
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

/// `aclrtCntNotify`: a validated counting-notify token.
pub type aclrtCntNotify = *mut c_void;

/// `aclrtCntNotifyRecordInfo`.
#[repr(C)]
pub struct aclrtCntNotifyRecordInfo {
    /// `aclrtCntNotifyRecordMode`.
    pub mode: u32,
    pub value: u32,
}

/// `aclrtCntNotifyWaitInfo`.
#[repr(C)]
pub struct aclrtCntNotifyWaitInfo {
    /// `aclrtCntNotifyWaitMode`.
    pub mode: u32,
    pub value: u32,
    /// Seconds; 0 waits without limit.
    pub timeout: u32,
    /// Non-zero: clear the count when the wait is released.
    pub isClear: u8,
    pub rsv: [u8; 3],
}

fn cnt_notify_handle(notify: aclrtCntNotify) -> CntNotifyHandle {
    CntNotifyHandle::from_raw(notify as u64)
}

/// `aclrtCntNotifyCreate`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCntNotifyCreate(
    cntNotify: *mut aclrtCntNotify,
    flag: u64,
) -> aclError {
    // SAFETY: `cntNotify` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCntNotifyCreate", cntNotify, "cntNotify", |rt| {
            Ok(rt.cnt_notify_create(flag)?.as_raw() as aclrtCntNotify)
        })
    }
}

/// `aclrtCntNotifyDestroy`.
#[no_mangle]
pub extern "C" fn aclrtCntNotifyDestroy(cntNotify: aclrtCntNotify) -> aclError {
    entry("aclrtCntNotifyDestroy", |rt| {
        rt.cnt_notify_destroy(cnt_notify_handle(cntNotify))
    })
}

/// `aclrtCntNotifyRecord`: `info` is checked first, as the vendor does.
#[no_mangle]
pub unsafe extern "C" fn aclrtCntNotifyRecord(
    cntNotify: aclrtCntNotify,
    stream: aclrtStream,
    info: *mut aclrtCntNotifyRecordInfo,
) -> aclError {
    entry("aclrtCntNotifyRecord", |rt| {
        not_null(info, "aclrtCntNotifyRecord", "info")?;
        // SAFETY: non-NULL (checked above) and readable, the C caller's contract.
        let info = unsafe { &*info };
        rt.cnt_notify_record(
            cnt_notify_handle(cntNotify),
            stream_handle(stream),
            info.mode,
            info.value,
        )
    })
}

/// `aclrtCntNotifyWaitWithTimeout`: `info` is checked first, as the vendor does.
#[no_mangle]
pub unsafe extern "C" fn aclrtCntNotifyWaitWithTimeout(
    cntNotify: aclrtCntNotify,
    stream: aclrtStream,
    info: *mut aclrtCntNotifyWaitInfo,
) -> aclError {
    entry("aclrtCntNotifyWaitWithTimeout", |rt| {
        not_null(info, "aclrtCntNotifyWaitWithTimeout", "info")?;
        // SAFETY: non-NULL (checked above) and readable, the C caller's contract.
        let info = unsafe { &*info };
        rt.cnt_notify_wait_with_timeout(
            cnt_notify_handle(cntNotify),
            stream_handle(stream),
            info.mode,
            info.value,
            info.timeout,
            info.isClear != 0,
        )
    })
}

/// `aclrtCntNotifyReset`.
#[no_mangle]
pub extern "C" fn aclrtCntNotifyReset(cntNotify: aclrtCntNotify, stream: aclrtStream) -> aclError {
    entry("aclrtCntNotifyReset", |rt| {
        rt.cnt_notify_reset(cnt_notify_handle(cntNotify), stream_handle(stream))
    })
}

/// `aclrtCntNotifyGetId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCntNotifyGetId(
    cntNotify: aclrtCntNotify,
    notifyId: *mut u32,
) -> aclError {
    // SAFETY: `notifyId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtCntNotifyGetId", notifyId, "notifyId", |rt| {
            rt.cnt_notify_get_id(cnt_notify_handle(cntNotify))
        })
    }
}
