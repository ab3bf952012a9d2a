//! Contexts and primary contexts: `cuCtx*`, `cuDevicePrimaryCtx*`.

use std::ffi::{c_int, c_uint, c_void};

use aclrt::cuda::{self, codes::*, CreateParams, CuError};

use crate::{context, guard, out_ptr, put, CUcontext, CUdevice, CUresult};

/// `CUexecAffinityParam`: a type and a union of one `unsigned int`.
#[repr(C)]
pub struct CUexecAffinityParam {
    pub type_: c_int,
    pub param: c_uint,
}

/// `CUctxCigParam` (CUDA 12.5+).
#[repr(C)]
pub struct CUctxCigParam {
    pub sharedDataType: c_int,
    pub sharedData: *mut c_void,
}

/// `CUctxCreateParams` (CUDA 12.5+).
#[repr(C)]
pub struct CUctxCreateParams {
    pub execAffinityParams: *mut CUexecAffinityParam,
    pub numExecAffinityParams: c_int,
    pub cigParams: *mut c_void,
}

fn ctx_out(p: *mut CUcontext, h: aclrt::ContextHandle) {
    put(p, h.as_raw() as CUcontext);
}

/// `cuCtxCreate` (the first version has the same signature as `_v2`).
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate(
    pctx: *mut CUcontext,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    // SAFETY: same contract.
    unsafe { cuCtxCreate_v2(pctx, flags, dev) }
}

/// `cuCtxCreate_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut CUcontext,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        ctx_out(pctx, cuda::ctx_create(flags, dev)?);
        Ok(())
    })
}

/// `cuCtxCreate_v3(pctx, paramsArray, numParams, flags, dev)`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut CUcontext,
    paramsArray: *mut CUexecAffinityParam,
    numParams: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        // Without an array the count is not read (the driver accepts any).
        let exec_affinity = if paramsArray.is_null() {
            0
        } else {
            usize::try_from(numParams).map_err(|_| {
                CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "cuCtxCreate_v3: numParams is negative",
                )
            })?
        };
        let params = CreateParams {
            exec_affinity,
            cig: None,
        };
        ctx_out(pctx, cuda::ctx_create_with(flags, dev, params)?);
        Ok(())
    })
}

/// `cuCtxCreate_v4(pctx, ctxCreateParams, flags, dev)`: `ctxCreateParams` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut CUcontext,
    ctxCreateParams: *mut CUctxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        let params = if ctxCreateParams.is_null() {
            CreateParams::default()
        } else {
            // SAFETY: non-NULL: a CUctxCreateParams the caller provides.
            let p = unsafe { &*ctxCreateParams };
            if p.numExecAffinityParams < 0
                || (p.numExecAffinityParams > 0 && p.execAffinityParams.is_null())
            {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    "cuCtxCreate_v4: numExecAffinityParams is negative, or positive with NULL params",
                ));
            }
            let cig = (!p.cigParams.is_null()).then(|| {
                // SAFETY: non-NULL: a CUctxCigParam the caller provides.
                let cig = unsafe { &*p.cigParams.cast::<CUctxCigParam>() };
                !cig.sharedData.is_null()
            });
            CreateParams {
                exec_affinity: p.numExecAffinityParams as usize,
                cig,
            }
        };
        ctx_out(pctx, cuda::ctx_create_with(flags, dev, params)?);
        Ok(())
    })
}

/// `cuCtxDestroy`.
#[no_mangle]
pub extern "C" fn cuCtxDestroy(ctx: CUcontext) -> CUresult {
    cuCtxDestroy_v2(ctx)
}

/// `cuCtxDestroy_v2`.
#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    guard(|| cuda::ctx_destroy(context(ctx)))
}

/// `cuCtxSetCurrent`.
#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    guard(|| cuda::ctx_set_current(context(ctx)))
}

/// `cuCtxGetCurrent`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        ctx_out(pctx, cuda::ctx_get_current()?);
        Ok(())
    })
}

/// `cuCtxPushCurrent`.
#[no_mangle]
pub extern "C" fn cuCtxPushCurrent(ctx: CUcontext) -> CUresult {
    cuCtxPushCurrent_v2(ctx)
}

/// `cuCtxPushCurrent_v2`.
#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult {
    guard(|| cuda::ctx_push_current(context(ctx)))
}

/// `cuCtxPopCurrent`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent(pctx: *mut CUcontext) -> CUresult {
    // SAFETY: same contract.
    unsafe { cuCtxPopCurrent_v2(pctx) }
}

/// `cuCtxPopCurrent_v2`: `pctx` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        let top = cuda::ctx_pop_current()?;
        if !pctx.is_null() {
            ctx_out(pctx, top);
        }
        Ok(())
    })
}

/// `cuCtxGetDevice`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(device: *mut CUdevice) -> CUresult {
    guard(|| {
        out_ptr(device, "device")?;
        put(device, cuda::ctx_get_device()?);
        Ok(())
    })
}

/// `cuCtxGetFlags`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    guard(|| {
        out_ptr(flags, "flags")?;
        put(flags, cuda::ctx_get_flags()?);
        Ok(())
    })
}

/// `cuCtxSetFlags`.
#[no_mangle]
pub extern "C" fn cuCtxSetFlags(flags: c_uint) -> CUresult {
    guard(|| cuda::ctx_set_flags(flags))
}

/// `cuCtxGetApiVersion`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut c_uint) -> CUresult {
    guard(|| {
        out_ptr(version, "version")?;
        put(version, cuda::ctx_get_api_version(context(ctx))?);
        Ok(())
    })
}

/// `cuCtxGetId`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetId(ctx: CUcontext, ctxId: *mut u64) -> CUresult {
    guard(|| {
        out_ptr(ctxId, "ctxId")?;
        put(ctxId, cuda::ctx_get_id(context(ctx))?);
        Ok(())
    })
}

/// `cuCtxGetStreamPriorityRange`: either pointer may be NULL.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    leastPriority: *mut c_int,
    greatestPriority: *mut c_int,
) -> CUresult {
    guard(|| {
        let (least, greatest) = cuda::ctx_get_stream_priority_range()?;
        if !leastPriority.is_null() {
            put(leastPriority, least);
        }
        if !greatestPriority.is_null() {
            put(greatestPriority, greatest);
        }
        Ok(())
    })
}

/// `cuCtxSynchronize`.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    guard(cuda::ctx_synchronize)
}

/// `cuCtxGetLimit`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(pvalue: *mut usize, limit: c_int) -> CUresult {
    guard(|| {
        out_ptr(pvalue, "pvalue")?;
        put(pvalue, cuda::ctx_get_limit(limit as u32)?);
        Ok(())
    })
}

/// `cuCtxSetLimit`.
#[no_mangle]
pub extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    guard(|| cuda::ctx_set_limit(limit as u32, value))
}

/// `cuCtxGetCacheConfig`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(pconfig: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(pconfig, "pconfig")?;
        put(pconfig, cuda::ctx_get_cache_config()? as c_int);
        Ok(())
    })
}

/// `cuCtxSetCacheConfig`.
#[no_mangle]
pub extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    guard(|| cuda::ctx_set_cache_config(config as u32))
}

/// `cuCtxGetSharedMemConfig` (deprecated by CUDA): four-byte banks.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(pConfig: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(pConfig, "pConfig")?;
        cuda::ctx_get_device()?;
        put(pConfig, 1);
        Ok(())
    })
}

/// `cuCtxSetSharedMemConfig` (deprecated by CUDA): a `CUsharedconfig` (0 to 2), accepted.
#[no_mangle]
pub extern "C" fn cuCtxSetSharedMemConfig(config: c_int) -> CUresult {
    guard(|| {
        cuda::ctx_get_device()?;
        if !(0..=2).contains(&config) {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuCtxSetSharedMemConfig: {config} is not a CUsharedconfig"),
            ));
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxRetain`.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    guard(|| {
        out_ptr(pctx, "pctx")?;
        ctx_out(pctx, cuda::primary_ctx_retain(dev)?);
        Ok(())
    })
}

/// `cuDevicePrimaryCtxRelease`.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxRelease_v2(dev)
}

/// `cuDevicePrimaryCtxRelease_v2`.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    guard(|| cuda::primary_ctx_release(dev))
}

/// `cuDevicePrimaryCtxReset`.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    cuDevicePrimaryCtxReset_v2(dev)
}

/// `cuDevicePrimaryCtxReset_v2`.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    guard(|| cuda::primary_ctx_reset(dev))
}

/// `cuDevicePrimaryCtxGetState`.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    guard(|| {
        out_ptr(flags, "flags")?;
        out_ptr(active, "active")?;
        let (f, a) = cuda::primary_ctx_get_state(dev)?;
        put(flags, f);
        put(active, c_int::from(a));
        Ok(())
    })
}

/// `cuDevicePrimaryCtxSetFlags`: refused while the primary context is active.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint) -> CUresult {
    guard(|| cuda::primary_ctx_set_flags(dev, flags, false))
}

/// `cuDevicePrimaryCtxSetFlags_v2`: applies to an active primary context too.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    guard(|| cuda::primary_ctx_set_flags(dev, flags, true))
}
