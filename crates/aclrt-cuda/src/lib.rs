//! The CUDA driver API as a C library (`libaclrt_cuda`), over the aclrt core; loadable as
//! `libcuda.so` by clients that load the driver at run time (cudarc, cuda-python).
//!
//! Every function has the driver's name and C signature (`include/aclrt/cuda.h`). Handles are
//! the core's validated tokens passed as opaque pointers, so a destroyed or garbage handle is
//! refused with `CUDA_ERROR_INVALID_HANDLE` (`CUDA_ERROR_INVALID_CONTEXT` for contexts) instead
//! of being dereferenced. NULL out-pointers give `CUDA_ERROR_INVALID_VALUE`, checked after
//! initialisation. A Rust panic never crosses the boundary: it becomes `CUDA_ERROR_UNKNOWN`.
//!
//! Extension: `aclrtxCuLaunchHostKernel` puts a host function that returns a `CUresult` on a
//! stream as a kernel; a non-zero result fails it like a device fault (sticky on the context).

#![allow(non_snake_case, non_camel_case_types, clippy::missing_safety_doc)]

mod context;
mod device;
mod graph;
mod graph_node;
mod legacy;
mod mem_op;
mod mem_pool;
mod memory;
mod module;
mod per_thread;
mod proc_address;
mod stream;
mod unsupported;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use aclrt::cuda::codes::{self, *};
use aclrt::cuda::{self, CuError};
use aclrt::{ContextHandle, EventHandle, StreamHandle};

/// `CUresult` (a C enum).
pub type CUresult = c_uint;
/// `CUdevice`.
pub type CUdevice = c_int;
/// `CUdeviceptr`.
pub type CUdeviceptr = u64;
/// `CUcontext`: opaque.
pub type CUcontext = *mut c_void;
/// `CUstream`: opaque; NULL, `CU_STREAM_LEGACY` (1) and `CU_STREAM_PER_THREAD` (2) are special.
pub type CUstream = *mut c_void;
/// `CUevent`: opaque.
pub type CUevent = *mut c_void;
/// `CUmodule`: opaque.
pub type CUmodule = *mut c_void;
/// `CUfunction`: opaque.
pub type CUfunction = *mut c_void;
/// `CUhostFn`.
pub type CUhostFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
/// The kernel type of `aclrtxCuLaunchHostKernel`.
pub type aclrtxCuHostKernel = Option<unsafe extern "C" fn(user_data: *mut c_void) -> CUresult>;

pub(crate) type Outcome = Result<(), CuError>;

/// Runs a call body: its error code, or `CUDA_ERROR_UNKNOWN` if it panicked.
pub(crate) fn guard(body: impl FnOnce() -> Outcome) -> CUresult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CUDA_SUCCESS,
        Ok(Err(e)) => e.code(),
        Err(_) => CUDA_ERROR_UNKNOWN,
    }
}

/// Initialisation first, then the out-pointer.
pub(crate) fn out_ptr<T>(p: *mut T, what: &str) -> Outcome {
    cuda::ensure_initialized()?;
    if p.is_null() {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what} is NULL"),
        ));
    }
    Ok(())
}

/// Writes a value through an out-pointer checked by [`out_ptr`].
pub(crate) fn put<T>(p: *mut T, value: T) {
    // SAFETY: `p` was checked non-NULL; the caller provides writable storage, as the C API
    // requires.
    unsafe { p.write(value) };
}

pub(crate) fn stream(h: CUstream) -> StreamHandle {
    StreamHandle::from_raw(h as u64)
}

pub(crate) fn event(h: CUevent) -> EventHandle {
    EventHandle::from_raw(h as u64)
}

pub(crate) fn context(h: CUcontext) -> ContextHandle {
    ContextHandle::from_raw(h as u64)
}

/// A C pointer moved into a task; the C caller keeps it valid until the task has run.
pub(crate) struct UserData(pub(crate) *mut c_void);
// SAFETY: the pointer is only handed back to the caller's own function.
unsafe impl Send for UserData {}
// SAFETY: as for `Send`: the runtime never dereferences it; a captured host function may be
// called from more than one stream worker, as CUDA may call a graph's host node.
unsafe impl Sync for UserData {}

// ---- errors --------------------------------------------------------------------------------

fn error_text(
    error: CUresult,
    p_str: *mut *const c_char,
    pick: fn(CUresult) -> Option<&'static CStr>,
) -> CUresult {
    guard(|| {
        if p_str.is_null() {
            return Err(CuError::new(CUDA_ERROR_INVALID_VALUE, "pStr is NULL"));
        }
        match pick(error) {
            Some(s) => {
                put(p_str, s.as_ptr());
                Ok(())
            }
            None => {
                put(p_str, std::ptr::null());
                Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{error} is not a CUresult"),
                ))
            }
        }
    })
}

/// C strings of the code table, built once.
fn c_table() -> &'static [(CUresult, std::ffi::CString, std::ffi::CString)] {
    static TABLE: std::sync::OnceLock<Vec<(CUresult, std::ffi::CString, std::ffi::CString)>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        codes::ALL
            .iter()
            .map(|&(v, n, d)| {
                (
                    v,
                    std::ffi::CString::new(n).expect("no NUL in names"),
                    std::ffi::CString::new(d).expect("no NUL in descriptions"),
                )
            })
            .collect()
    })
}

/// `cuGetErrorName`: needs no initialisation; an unknown value gives `*pStr = NULL` and
/// `CUDA_ERROR_INVALID_VALUE`.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    error_text(error, pStr, |e| {
        c_table()
            .iter()
            .find(|(v, _, _)| *v == e)
            .map(|(_, n, _)| n.as_c_str())
    })
}

/// `cuGetErrorString`.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    error_text(error, pStr, |e| {
        c_table()
            .iter()
            .find(|(v, _, _)| *v == e)
            .map(|(_, _, d)| d.as_c_str())
    })
}

// ---- initialisation and version --------------------------------------------------------

/// `cuInit`.
#[no_mangle]
pub extern "C" fn cuInit(Flags: c_uint) -> CUresult {
    guard(|| cuda::init(Flags))
}

/// `cuDriverGetVersion`: needs no initialisation.
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult {
    guard(|| {
        if driverVersion.is_null() {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                "driverVersion is NULL",
            ));
        }
        put(driverVersion, cuda::driver_get_version());
        Ok(())
    })
}

// ---- streams and host work -------------------------------------------------------------------

/// `cuStreamCreate`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(phStream: *mut CUstream, Flags: c_uint) -> CUresult {
    guard(|| {
        out_ptr(phStream, "phStream")?;
        put(phStream, cuda::stream_create(Flags)?.as_raw() as CUstream);
        Ok(())
    })
}

/// `cuStreamDestroy`.
#[no_mangle]
pub extern "C" fn cuStreamDestroy(hStream: CUstream) -> CUresult {
    guard(|| cuda::stream_destroy(stream(hStream)))
}

/// `cuStreamQuery`.
#[no_mangle]
pub extern "C" fn cuStreamQuery(hStream: CUstream) -> CUresult {
    guard(|| cuda::stream_query(stream(hStream)))
}

/// `cuStreamSynchronize`.
#[no_mangle]
pub extern "C" fn cuStreamSynchronize(hStream: CUstream) -> CUresult {
    guard(|| cuda::stream_synchronize(stream(hStream)))
}

/// `cuStreamWaitEvent`.
#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(hStream: CUstream, hEvent: CUevent, Flags: c_uint) -> CUresult {
    guard(|| cuda::stream_wait_event(stream(hStream), event(hEvent), Flags))
}

pub(crate) fn null_fn() -> CuError {
    CuError::new(CUDA_ERROR_INVALID_VALUE, "the function pointer is NULL")
}

/// `cuLaunchHostFunc`.
///
/// # Safety
/// The function pointer is NULL or a function of the declared type that stays callable, with
/// its user data, until the runtime has called it (or discarded the work that would have).
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    hStream: CUstream,
    f: CUhostFn,
    userData: *mut c_void,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let f = f.ok_or_else(null_fn)?;
        let data = UserData(userData);
        cuda::launch_host_func(stream(hStream), move || {
            let data = &data;
            // SAFETY: the caller's function with the caller's argument, as CUDA runs it.
            unsafe { f(data.0) }
        })
    })
}

/// `aclrtxCuLaunchHostKernel(stream, fn, userData)`: `fn` runs as a kernel on the stream; a
/// non-zero `CUresult` fails it (`CUDA_ERROR_ILLEGAL_ADDRESS` stays itself, anything else is
/// `CUDA_ERROR_LAUNCH_FAILED`), sticky on the context and reported by the next synchronise.
///
/// # Safety
/// The function pointer is NULL or a function of the declared type that stays callable, with
/// its user data, until the runtime has called it (or discarded the work that would have).
#[no_mangle]
pub unsafe extern "C" fn aclrtxCuLaunchHostKernel(
    hStream: CUstream,
    f: aclrtxCuHostKernel,
    userData: *mut c_void,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let f = f.ok_or_else(null_fn)?;
        let data = UserData(userData);
        cuda::launch_host_kernel(stream(hStream), "host kernel", move || {
            let data = &data;
            // SAFETY: as for cuLaunchHostFunc.
            match unsafe { f(data.0) } {
                CUDA_SUCCESS => Ok(()),
                code => Err(code),
            }
        })
    })
}

// ---- events ----------------------------------------------------------------------------------

/// `cuEventCreate`.
#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(phEvent: *mut CUevent, Flags: c_uint) -> CUresult {
    guard(|| {
        out_ptr(phEvent, "phEvent")?;
        put(phEvent, cuda::event_create(Flags)?.as_raw() as CUevent);
        Ok(())
    })
}

/// `cuEventDestroy`.
#[no_mangle]
pub extern "C" fn cuEventDestroy(hEvent: CUevent) -> CUresult {
    guard(|| cuda::event_destroy(event(hEvent)))
}

/// `cuEventRecord`.
#[no_mangle]
pub extern "C" fn cuEventRecord(hEvent: CUevent, hStream: CUstream) -> CUresult {
    guard(|| cuda::event_record(event(hEvent), stream(hStream)))
}

/// `cuEventRecordWithFlags`.
#[no_mangle]
pub extern "C" fn cuEventRecordWithFlags(
    hEvent: CUevent,
    hStream: CUstream,
    flags: c_uint,
) -> CUresult {
    guard(|| cuda::event_record_with_flags(event(hEvent), stream(hStream), flags))
}

/// `cuEventQuery`.
#[no_mangle]
pub extern "C" fn cuEventQuery(hEvent: CUevent) -> CUresult {
    guard(|| cuda::event_query(event(hEvent)))
}

/// `cuEventSynchronize`.
#[no_mangle]
pub extern "C" fn cuEventSynchronize(hEvent: CUevent) -> CUresult {
    guard(|| cuda::event_synchronize(event(hEvent)))
}

/// `cuEventElapsedTime`.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(
    pMilliseconds: *mut f32,
    hStart: CUevent,
    hEnd: CUevent,
) -> CUresult {
    guard(|| {
        out_ptr(pMilliseconds, "pMilliseconds")?;
        put(
            pMilliseconds,
            cuda::event_elapsed_time(event(hStart), event(hEnd))?,
        );
        Ok(())
    })
}

/// `cuEventElapsedTime_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    pMilliseconds: *mut f32,
    hStart: CUevent,
    hEnd: CUevent,
) -> CUresult {
    guard(|| {
        out_ptr(pMilliseconds, "pMilliseconds")?;
        put(
            pMilliseconds,
            cuda::event_elapsed_time_v2(event(hStart), event(hEnd))?,
        );
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_unknown() {
        assert_eq!(guard(|| panic!("boom")), CUDA_ERROR_UNKNOWN);
    }

    #[test]
    fn error_names_and_strings() {
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: the out-pointer is a live local; the library returns static C strings.
        assert_eq!(unsafe { cuGetErrorName(CUDA_ERROR_NOT_READY, &mut s) }, 0);
        assert_eq!(
            // SAFETY: the out-pointer is a live local; the library returns static C strings.
            unsafe { CStr::from_ptr(s) }.to_str().unwrap(),
            "CUDA_ERROR_NOT_READY"
        );
        // SAFETY: the out-pointer is a live local; the library returns static C strings.
        assert_eq!(unsafe { cuGetErrorString(CUDA_SUCCESS, &mut s) }, 0);
        // SAFETY: the out-pointer is a live local; the library returns static C strings.
        assert!(!unsafe { CStr::from_ptr(s) }.to_bytes().is_empty());
        assert_eq!(
            // SAFETY: forwarded; this entry point has the same contract as the one it calls.
            unsafe { cuGetErrorName(12345, &mut s) },
            CUDA_ERROR_INVALID_VALUE
        );
        assert!(s.is_null());
        assert_eq!(
            // SAFETY: forwarded; this entry point has the same contract as the one it calls.
            unsafe { cuGetErrorString(0, std::ptr::null_mut()) },
            CUDA_ERROR_INVALID_VALUE
        );
    }
}
