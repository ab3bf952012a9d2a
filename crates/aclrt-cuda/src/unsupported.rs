//! Calls with no meaning on the emulated device, or not provided by it: exported with CUDA's
//! signatures, they check initialisation and return `CUDA_ERROR_NOT_SUPPORTED` (external
//! memory, clusters, the extended launch, Windows LUIDs, the graph features listed below). The
//! profiler calls succeed and do nothing.

use std::ffi::{c_char, c_int, c_uint, c_void};

use aclrt::cuda::{self, codes::*, CuError};

use crate::{guard, CUdevice, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};

type Opaque = *mut c_void;

fn not_supported(call: &str, what: &str) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: {what} are not supported by the emulated device"),
        ))
    })
}

macro_rules! unsupported {
    ($what:literal: $($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: `CUDA_ERROR_NOT_SUPPORTED` (", $what, ").")]
        #[no_mangle]
        #[allow(unused_variables)]
        pub extern "C" fn $name($($arg: $ty),*) -> CUresult {
            not_supported(stringify!($name), $what)
        }
    )*};
}

unsupported! { "external memory imports":
    cuImportExternalMemory(extMem_out: *mut Opaque, memHandleDesc: *const c_void);
    cuExternalMemoryGetMappedBuffer(devPtr: *mut CUdeviceptr, extMem: Opaque, bufferDesc: *const c_void);
    cuDestroyExternalMemory(extMem: Opaque);
}

unsupported! { "thread block clusters and the extended launch":
    cuOccupancyMaxActiveClusters(numClusters: *mut c_int, func: CUfunction, config: *const c_void);
    cuOccupancyMaxPotentialClusterSize(clusterSize: *mut c_int, func: CUfunction, config: *const c_void);
    cuLaunchKernelEx(config: *const c_void, f: CUfunction, kernelParams: *mut *mut c_void, extra: *mut *mut c_void);
}

unsupported! { "memory, conditional and attribute graph nodes and graph memory":
    cuGraphAddMemAllocNode(phGraphNode: *mut Opaque, hGraph: Opaque, dependencies: *const Opaque, numDependencies: usize, nodeParams: *mut c_void);
    cuGraphAddMemFreeNode(phGraphNode: *mut Opaque, hGraph: Opaque, dependencies: *const Opaque, numDependencies: usize, dptr: CUdeviceptr);
    cuGraphMemAllocNodeGetParams(hNode: Opaque, params_out: *mut c_void);
    cuGraphMemFreeNodeGetParams(hNode: Opaque, dptr_out: *mut CUdeviceptr);
    cuDeviceGraphMemTrim(device: CUdevice);
    cuDeviceGetGraphMemAttribute(device: CUdevice, attr: c_int, value: *mut c_void);
    cuDeviceSetGraphMemAttribute(device: CUdevice, attr: c_int, value: *mut c_void);
    cuGraphConditionalHandleCreate(pHandle_out: *mut u64, hGraph: Opaque, ctx: Opaque, defaultLaunchValue: c_uint, flags: c_uint);
    cuGraphKernelNodeGetAttribute(hNode: Opaque, attr: c_int, value_out: *mut c_void);
    cuGraphKernelNodeSetAttribute(hNode: Opaque, attr: c_int, value: *const c_void);
    cuGraphKernelNodeCopyAttributes(dst: Opaque, src: Opaque);
}

unsupported! { "captures into an existing graph":
    cuStreamBeginCaptureToGraph(hStream: CUstream, hGraph: Opaque, dependencies: *const Opaque, dependencyData: *const c_void, numDependencies: usize, mode: c_int);
}

unsupported! { "GPU binaries":
    cuModuleLoadFatBinary(module: *mut CUmodule, fatCubin: *const c_void);
}

unsupported! { "Windows device LUIDs":
    cuDeviceGetLuid(luid: *mut c_char, deviceNodeMask: *mut c_uint, dev: CUdevice);
}

/// `cuProfilerStart`: succeeds; there is no profiler to start.
#[no_mangle]
pub extern "C" fn cuProfilerStart() -> CUresult {
    guard(cuda::ensure_initialized)
}

/// `cuProfilerStop`: succeeds; there is no profiler to stop.
#[no_mangle]
pub extern "C" fn cuProfilerStop() -> CUresult {
    guard(cuda::ensure_initialized)
}
