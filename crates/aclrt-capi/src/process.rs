//! Process-level calls: init/finalize, error reporting, version.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

use aclrt::api;
use aclrt::consts::{ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION};

use crate::{aclError, guard, guard_value, not_null, put};

/// `aclInit`: the configuration path rule is the core's ([`api::init_with_config_file`]).
#[no_mangle]
pub unsafe extern "C" fn aclInit(configPath: *const c_char) -> aclError {
    guard("aclInit", || {
        let path = (!configPath.is_null()).then(|| {
            // SAFETY: a non-NULL configPath is a C string by the C contract.
            unsafe { CStr::from_ptr(configPath) }.to_string_lossy()
        });
        api::init_with_config_file(path.as_deref())
    })
}

/// `aclFinalize`.
#[no_mangle]
pub extern "C" fn aclFinalize() -> aclError {
    guard("aclFinalize", api::finalize)
}

/// `aclFinalizeReference`: `refCount` (may be NULL) receives the count left, also when the
/// call fails.
#[no_mangle]
pub unsafe extern "C" fn aclFinalizeReference(refCount: *mut u64) -> aclError {
    guard("aclFinalizeReference", || {
        let (left, result) = api::finalize_reference();
        if !refCount.is_null() {
            // SAFETY: a non-NULL refCount is writable, the C caller's contract.
            unsafe { put(refCount, left) };
        }
        result
    })
}

thread_local! {
    /// Backs the pointer `aclGetRecentErrMsg` returns until the thread's next call.
    static RECENT_MESSAGE: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// `aclGetRecentErrMsg`: the calling thread's latest message (cleared by reading), or NULL.
#[no_mangle]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    guard_value("aclGetRecentErrMsg", std::ptr::null(), || {
        let message = api::get_recent_err_msg()
            .map(|m| CString::new(m.replace('\0', " ")).expect("interior NULs were replaced"));
        RECENT_MESSAGE.with(|slot| {
            let mut slot = slot.borrow_mut();
            *slot = message;
            slot.as_ref().map_or(std::ptr::null(), |m| m.as_ptr())
        })
    })
}

/// `aclrtPeekAtLastError`.
#[no_mangle]
pub extern "C" fn aclrtPeekAtLastError(level: u32) -> aclError {
    guard_value(
        "aclrtPeekAtLastError",
        aclrt::codes::ACL_ERROR_INTERNAL_ERROR,
        || api::last_error_at(level, false),
    )
}

/// `aclrtGetLastError`.
#[no_mangle]
pub extern "C" fn aclrtGetLastError(level: u32) -> aclError {
    guard_value(
        "aclrtGetLastError",
        aclrt::codes::ACL_ERROR_INTERNAL_ERROR,
        || api::last_error_at(level, true),
    )
}

/// `aclrtGetVersion`: the interface version the headers declare. Needs no `aclInit`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetVersion(
    majorVersion: *mut i32,
    minorVersion: *mut i32,
    patchVersion: *mut i32,
) -> aclError {
    guard("aclrtGetVersion", || {
        not_null(majorVersion, "aclrtGetVersion", "majorVersion")?;
        not_null(minorVersion, "aclrtGetVersion", "minorVersion")?;
        not_null(patchVersion, "aclrtGetVersion", "patchVersion")?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe {
            put(majorVersion, ACL_MAJOR_VERSION as i32);
            put(minorVersion, ACL_MINOR_VERSION as i32);
            put(patchVersion, ACL_PATCH_VERSION as i32);
        }
        Ok(())
    })
}
