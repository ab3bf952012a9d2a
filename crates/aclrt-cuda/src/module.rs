//! Modules, kernels and launches: `cuModule*`, `cuFunc*`, `cuLaunchKernel`, `cuOccupancy*`.
//! The kernel ABI is in `include/aclrt/cuda.h` and `aclrt::cuda`'s module docs.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use aclrt::cuda::{self, codes::*, CuError, LaunchDims};

use crate::{guard, out_ptr, put, stream, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};

/// `CUoccupancyB2DSize`: dynamic shared memory for a block size.
pub type CUoccupancyB2DSize = Option<unsafe extern "C" fn(blockSize: c_int) -> usize>;

fn name_arg(name: *const c_char, what: &str) -> Result<String, CuError> {
    if name.is_null() {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what} is NULL"),
        ));
    }
    // SAFETY: a NUL-terminated string, as the C API requires.
    Ok(unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned())
}

/// `cuModuleLoad`: `fname` names a host shared library.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut CUmodule, fname: *const c_char) -> CUresult {
    guard(|| {
        out_ptr(module, "module")?;
        let path = name_arg(fname, "fname")?;
        put(module, cuda::module_load(&path)? as CUmodule);
        Ok(())
    })
}

/// `cuModuleLoadData`: an in-memory host shared library.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult {
    guard(|| {
        out_ptr(module, "module")?;
        // SAFETY: the caller provides a complete image.
        put(module, unsafe { cuda::module_load_data(image.cast()) }?
            as CUmodule);
        Ok(())
    })
}

/// `cuModuleLoadDataEx`: as `cuModuleLoadData`; the JIT options mean nothing here.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut CUmodule,
    image: *const c_void,
    _numOptions: c_uint,
    _options: *mut c_int,
    _optionValues: *mut *mut c_void,
) -> CUresult {
    // SAFETY: same contract.
    unsafe { cuModuleLoadData(module, image) }
}

/// `cuModuleUnload`.
#[no_mangle]
pub extern "C" fn cuModuleUnload(hmod: CUmodule) -> CUresult {
    guard(|| cuda::module_unload(hmod as u64))
}

/// `cuModuleGetFunction`: `CUDA_ERROR_NOT_FOUND` when the library exports no such function.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    hfunc: *mut CUfunction,
    hmod: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        out_ptr(hfunc, "hfunc")?;
        let name = name_arg(name, "name")?;
        put(
            hfunc,
            cuda::module_get_function(hmod as u64, &name)? as CUfunction,
        );
        Ok(())
    })
}

/// `cuModuleGetGlobal_v2`: either output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    hmod: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let name = name_arg(name, "name")?;
        let (p, size) = cuda::module_get_global(hmod as u64, &name)?;
        if !dptr.is_null() {
            put(dptr, p);
        }
        if !bytes.is_null() {
            put(bytes, size);
        }
        Ok(())
    })
}

/// `cuFuncGetAttribute`.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(
    pi: *mut c_int,
    attrib: c_int,
    hfunc: CUfunction,
) -> CUresult {
    guard(|| {
        out_ptr(pi, "pi")?;
        put(pi, cuda::func_get_attribute(attrib, hfunc as u64)?);
        Ok(())
    })
}

/// `cuFuncSetAttribute`.
#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(hfunc: CUfunction, attrib: c_int, value: c_int) -> CUresult {
    guard(|| cuda::func_set_attribute(hfunc as u64, attrib, value))
}

/// `cuFuncSetCacheConfig`.
#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(hfunc: CUfunction, config: c_int) -> CUresult {
    guard(|| cuda::func_set_cache_config(hfunc as u64, config as u32))
}

/// `cuFuncGetName`: the name, valid while the module is loaded.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, hfunc: CUfunction) -> CUresult {
    guard(|| {
        out_ptr(name, "name")?;
        let text = cuda::func_get_name(hfunc as u64)?;
        // Interned: one C string per distinct name, kept for the process.
        static NAMES: std::sync::Mutex<Vec<std::ffi::CString>> = std::sync::Mutex::new(Vec::new());
        let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let c = std::ffi::CString::new(text).expect("symbol names hold no NUL");
        let p = match names.iter().find(|n| **n == c) {
            Some(n) => n.as_ptr(),
            None => {
                names.push(c);
                names.last().expect("just pushed").as_ptr()
            }
        };
        put(name, p);
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
unsafe fn launch(
    f: CUfunction,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
    call: &'static str,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        if !extra.is_null() {
            if !kernelParams.is_null() {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: kernelParams and extra are both given"),
                ));
            }
            return Err(CuError::new(
                CUDA_ERROR_NOT_SUPPORTED,
                format!("{call}: arguments through `extra` are not supported; use kernelParams"),
            ));
        }
        let dims = LaunchDims {
            grid,
            block,
            shared_mem_bytes: sharedMemBytes,
        };
        // SAFETY: the caller promises kernelParams as CUDA defines it.
        unsafe {
            cuda::launch_kernel(
                f as u64,
                dims,
                stream(hStream),
                kernelParams as *const *const c_void,
                call,
            )
        }
    })
}

/// `cuLaunchKernel`: runs the host kernel once on the stream (see `aclrt/cuda.h`).
///
/// # Safety
/// `kernelParams` is NULL or holds a pointer to each of the kernel's arguments.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    f: CUfunction,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe {
        launch(
            f,
            [gridDimX, gridDimY, gridDimZ],
            [blockDimX, blockDimY, blockDimZ],
            sharedMemBytes,
            hStream,
            kernelParams,
            extra,
            "cuLaunchKernel",
        )
    }
}

/// `cuLaunchCooperativeKernel`: as `cuLaunchKernel` (the whole grid is one host call, so its
/// blocks are co-resident by construction).
#[no_mangle]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: CUfunction,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe {
        launch(
            f,
            [gridDimX, gridDimY, gridDimZ],
            [blockDimX, blockDimY, blockDimZ],
            sharedMemBytes,
            hStream,
            kernelParams,
            std::ptr::null_mut(),
            "cuLaunchCooperativeKernel",
        )
    }
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    numBlocks: *mut c_int,
    func: CUfunction,
    blockSize: c_int,
    dynamicSMemSize: usize,
) -> CUresult {
    guard(|| {
        out_ptr(numBlocks, "numBlocks")?;
        put(
            numBlocks,
            cuda::occupancy_max_active_blocks(func as u64, blockSize, dynamicSMemSize)?,
        );
        Ok(())
    })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: the flags change nothing here.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    numBlocks: *mut c_int,
    func: CUfunction,
    blockSize: c_int,
    dynamicSMemSize: usize,
    _flags: c_uint,
) -> CUresult {
    // SAFETY: same contract.
    unsafe {
        cuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize)
    }
}

/// `cuOccupancyMaxPotentialBlockSize`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: CUfunction,
    blockSizeToDynamicSMemSize: CUoccupancyB2DSize,
    dynamicSMemSize: usize,
    blockSizeLimit: c_int,
) -> CUresult {
    guard(|| {
        out_ptr(minGridSize, "minGridSize")?;
        out_ptr(blockSize, "blockSize")?;
        let smem_for = |size: c_int| match blockSizeToDynamicSMemSize {
            // SAFETY: the caller's function, called as CUDA calls it.
            Some(f) => unsafe { f(size) },
            None => dynamicSMemSize,
        };
        let (grid, block) =
            cuda::occupancy_max_potential_block_size(func as u64, &smem_for, blockSizeLimit)?;
        put(minGridSize, grid);
        put(blockSize, block);
        Ok(())
    })
}

/// `cuOccupancyMaxPotentialBlockSizeWithFlags`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: CUfunction,
    blockSizeToDynamicSMemSize: CUoccupancyB2DSize,
    dynamicSMemSize: usize,
    blockSizeLimit: c_int,
    _flags: c_uint,
) -> CUresult {
    // SAFETY: same contract.
    unsafe {
        cuOccupancyMaxPotentialBlockSize(
            minGridSize,
            blockSize,
            func,
            blockSizeToDynamicSMemSize,
            dynamicSMemSize,
            blockSizeLimit,
        )
    }
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    dynamicSmemSize: *mut usize,
    func: CUfunction,
    numBlocks: c_int,
    blockSize: c_int,
) -> CUresult {
    guard(|| {
        out_ptr(dynamicSmemSize, "dynamicSmemSize")?;
        put(
            dynamicSmemSize,
            cuda::occupancy_available_dynamic_smem(func as u64, numBlocks, blockSize)?,
        );
        Ok(())
    })
}
