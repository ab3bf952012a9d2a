//! Process-level calls: init/finalize, error reporting, version.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::Arc;

use aclrt::api;
use aclrt::consts::{ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION};

use crate::{aclError, guard, guard_value, not_null, put, SendPtr};

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

/// `aclInitCallbackFunc`.
type aclInitCallbackFunc =
    Option<unsafe extern "C" fn(*const c_char, usize, *mut c_void) -> aclError>;
/// `aclFinalizeCallbackFunc`.
type aclFinalizeCallbackFunc = Option<unsafe extern "C" fn(*mut c_void) -> aclError>;

/// `aclInitCallbackRegister`: the callback gets the configuration text NUL-terminated, with
/// its length.
///
/// # Safety
/// `cbFunc` is NULL or a function of the declared type that stays callable, with `userData`,
/// until it is unregistered.
#[no_mangle]
pub unsafe extern "C" fn aclInitCallbackRegister(
    r#type: u32,
    cbFunc: aclInitCallbackFunc,
    userData: *mut c_void,
) -> aclError {
    guard("aclInitCallbackRegister", || {
        let data = SendPtr(userData);
        let key = cbFunc.map_or(0, |f| f as usize);
        let wrapped = cbFunc.map(|f| {
            Arc::new(move |text: &[u8]| {
                let mut terminated = Vec::with_capacity(text.len() + 1);
                terminated.extend_from_slice(text);
                terminated.push(0);
                // SAFETY: the function and its argument the program registered; the text is
                // NUL-terminated and lives for the call.
                unsafe { f(terminated.as_ptr().cast(), text.len(), data.get()) }
            }) as api::InitCallback
        });
        api::init_callback_register(r#type, key, wrapped)
    })
}

/// `aclInitCallbackUnRegister`.
#[no_mangle]
pub extern "C" fn aclInitCallbackUnRegister(r#type: u32, cbFunc: aclInitCallbackFunc) -> aclError {
    guard("aclInitCallbackUnRegister", || {
        api::init_callback_unregister(r#type, cbFunc.map_or(0, |f| f as usize))
    })
}

/// `aclFinalizeCallbackRegister`.
///
/// # Safety
/// As [`aclInitCallbackRegister`].
#[no_mangle]
pub unsafe extern "C" fn aclFinalizeCallbackRegister(
    r#type: u32,
    cbFunc: aclFinalizeCallbackFunc,
    userData: *mut c_void,
) -> aclError {
    guard("aclFinalizeCallbackRegister", || {
        let data = SendPtr(userData);
        let key = cbFunc.map_or(0, |f| f as usize);
        let wrapped = cbFunc.map(|f| {
            Arc::new(move || {
                // SAFETY: the function and its argument the program registered.
                unsafe { f(data.get()) }
            }) as api::FinalizeCallback
        });
        api::finalize_callback_register(r#type, key, wrapped)
    })
}

/// `aclFinalizeCallbackUnRegister`.
#[no_mangle]
pub extern "C" fn aclFinalizeCallbackUnRegister(
    r#type: u32,
    cbFunc: aclFinalizeCallbackFunc,
) -> aclError {
    guard("aclFinalizeCallbackUnRegister", || {
        api::finalize_callback_unregister(r#type, cbFunc.map_or(0, |f| f as usize))
    })
}
