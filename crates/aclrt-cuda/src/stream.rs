//! More stream and event calls: priorities, queries, callbacks, the `_v2` names, and stream
//! capture (which the runtime does not have).

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use aclrt::cuda::{self, codes::*, CuError};

use crate::{
    cuEventDestroy, cuStreamDestroy, guard, null_fn, out_ptr, put, stream, CUcontext, CUevent,
    CUresult, CUstream, UserData,
};

/// `CUstreamCallback`.
pub type CUstreamCallback =
    Option<unsafe extern "C" fn(hStream: CUstream, status: CUresult, userData: *mut c_void)>;

/// `cuStreamCreateWithPriority`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    phStream: *mut CUstream,
    flags: c_uint,
    priority: c_int,
) -> CUresult {
    guard(|| {
        out_ptr(phStream, "phStream")?;
        put(
            phStream,
            cuda::stream_create_with_priority(flags, priority)?.as_raw() as CUstream,
        );
        Ok(())
    })
}

/// `cuStreamGetPriority`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetPriority(hStream: CUstream, priority: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(priority, "priority")?;
        put(priority, cuda::stream_get_priority(stream(hStream))?);
        Ok(())
    })
}

/// `cuStreamGetFlags`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetFlags(hStream: CUstream, flags: *mut c_uint) -> CUresult {
    guard(|| {
        out_ptr(flags, "flags")?;
        put(flags, cuda::stream_get_flags(stream(hStream))?);
        Ok(())
    })
}

/// `cuStreamGetCtx`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(hStream: CUstream, pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        put(
            pctx,
            cuda::stream_get_ctx(stream(hStream))?.as_raw() as CUcontext,
        );
        Ok(())
    })
}

/// `cuStreamGetCtx_v2(hStream, pCtx, pGreenCtx)`: there are no green contexts, so
/// `*pGreenCtx` is NULL.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx_v2(
    hStream: CUstream,
    pCtx: *mut CUcontext,
    pGreenCtx: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        out_ptr(pCtx, "pCtx")?;
        out_ptr(pGreenCtx, "pGreenCtx")?;
        put(
            pCtx,
            cuda::stream_get_ctx(stream(hStream))?.as_raw() as CUcontext,
        );
        put(pGreenCtx, std::ptr::null_mut());
        Ok(())
    })
}

/// `cuStreamGetId`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetId(hStream: CUstream, streamId: *mut c_ulonglong) -> CUresult {
    guard(|| {
        out_ptr(streamId, "streamId")?;
        put(streamId, cuda::stream_get_id(stream(hStream))?);
        Ok(())
    })
}

/// `cuStreamAddCallback`: `callback(hStream, status, userData)` runs in stream order; `flags`
/// must be 0.
///
/// # Safety
/// As `cuLaunchHostFunc`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(
    hStream: CUstream,
    callback: CUstreamCallback,
    userData: *mut c_void,
    flags: c_uint,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let f = callback.ok_or_else(null_fn)?;
        let data = UserData(userData);
        let handle = UserData(hStream);
        cuda::stream_add_callback(
            stream(hStream),
            Box::new(move |status| {
                let (data, handle) = (data, handle);
                // SAFETY: the caller's callback with its own arguments, as CUDA calls it.
                unsafe { f(handle.0, status, data.0) }
            }),
            flags,
        )
    })
}

/// `cuStreamDestroy_v2`.
#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(hStream: CUstream) -> CUresult {
    cuStreamDestroy(hStream)
}

/// `cuEventDestroy_v2`.
#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(hEvent: CUevent) -> CUresult {
    cuEventDestroy(hEvent)
}

// ---- stream capture ------------------------------------------------------------------------

/// `CUstreamCaptureStatus`: `CU_STREAM_CAPTURE_STATUS_NONE`.
pub const CU_STREAM_CAPTURE_STATUS_NONE: c_int = 0;

fn no_capture(hStream: CUstream, call: &str) -> CUresult {
    guard(|| {
        cuda::stream_get_flags(stream(hStream))?;
        Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: stream capture (CUDA graphs) is not supported by the emulated device"),
        ))
    })
}

/// `cuStreamBeginCapture` (first version: no mode).
#[no_mangle]
pub extern "C" fn cuStreamBeginCapture(hStream: CUstream) -> CUresult {
    no_capture(hStream, "cuStreamBeginCapture")
}

/// `cuStreamBeginCapture_v2`.
#[no_mangle]
pub extern "C" fn cuStreamBeginCapture_v2(hStream: CUstream, _mode: c_int) -> CUresult {
    no_capture(hStream, "cuStreamBeginCapture")
}

/// `cuStreamIsCapturing`: never capturing.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(
    hStream: CUstream,
    captureStatus: *mut c_int,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus, "captureStatus")?;
        cuda::stream_get_flags(stream(hStream))?;
        put(captureStatus, CU_STREAM_CAPTURE_STATUS_NONE);
        Ok(())
    })
}

/// `cuStreamEndCapture`: no capture is ever in progress, so `CUDA_ERROR_ILLEGAL_STATE`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(
    hStream: CUstream,
    phGraph: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        out_ptr(phGraph, "phGraph")?;
        cuda::stream_get_flags(stream(hStream))?;
        Err(CuError::new(
            CUDA_ERROR_ILLEGAL_STATE,
            "cuStreamEndCapture: the stream is not capturing",
        ))
    })
}

/// `cuStreamGetCaptureInfo` (first version): status NONE, id 0.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo(
    hStream: CUstream,
    captureStatus: *mut c_int,
    id: *mut u64,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus, "captureStatus")?;
        cuda::stream_get_flags(stream(hStream))?;
        put(captureStatus, CU_STREAM_CAPTURE_STATUS_NONE);
        if !id.is_null() {
            put(id, 0);
        }
        Ok(())
    })
}

/// `cuStreamGetCaptureInfo_v2`: status NONE; the other outputs are left as they are, as CUDA
/// does for a stream that is not capturing.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    hStream: CUstream,
    captureStatus_out: *mut c_int,
    _id_out: *mut u64,
    _graph_out: *mut *mut c_void,
    _dependencies_out: *mut *const *mut c_void,
    _numDependencies_out: *mut usize,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus_out, "captureStatus_out")?;
        cuda::stream_get_flags(stream(hStream))?;
        put(captureStatus_out, CU_STREAM_CAPTURE_STATUS_NONE);
        Ok(())
    })
}

/// `cuStreamGetCaptureInfo_v3`: as `_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    hStream: CUstream,
    captureStatus_out: *mut c_int,
    id_out: *mut u64,
    graph_out: *mut *mut c_void,
    dependencies_out: *mut *const *mut c_void,
    _edgeData_out: *mut *const c_void,
    numDependencies_out: *mut usize,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe {
        cuStreamGetCaptureInfo_v2(
            hStream,
            captureStatus_out,
            id_out,
            graph_out,
            dependencies_out,
            numDependencies_out,
        )
    }
}
