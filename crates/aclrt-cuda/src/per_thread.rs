//! The per-thread default stream variants: `_ptsz` for calls that take a stream, `_ptds` for
//! synchronous calls that use the implicit stream. A program built with
//! `CUDA_API_PER_THREAD_DEFAULT_STREAM` links these names, and `cuGetProcAddress` with
//! `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` returns them.
//!
//! Invariant: each variant is its plain function with one translation, made here and nowhere
//! else. In a `_ptsz` variant a NULL stream argument becomes `CU_STREAM_PER_THREAD` (the
//! calling thread's stream in the current context, which synchronises with the legacy stream
//! and with no other stream); `CU_STREAM_LEGACY` and real handles pass unchanged. A `_ptds`
//! variant runs the plain function with the thread's implicit stream set to its per-thread
//! stream, which the synchronous calls read through [`sync_mode`].

use std::cell::Cell;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use aclrt::cuda::Mode;

use crate::graph::*;
use crate::mem_op::*;
use crate::memory::*;
use crate::module::*;
use crate::stream::*;
use crate::unsupported::*;
use crate::*;

thread_local! {
    /// Set while a `_ptds` variant runs on this thread.
    static PER_THREAD_IMPLICIT: Cell<bool> = const { Cell::new(false) };
}

/// `CU_STREAM_PER_THREAD`.
const PER_THREAD_STREAM: CUstream = aclrt::cuda::CU_STREAM_PER_THREAD.as_raw() as CUstream;

/// The stream a `_ptsz` variant passes on: NULL is the per-thread default stream.
fn per_thread(h: CUstream) -> CUstream {
    if h.is_null() {
        PER_THREAD_STREAM
    } else {
        h
    }
}

/// Runs a plain synchronous call with this thread's implicit stream set to its per-thread
/// stream; the previous setting comes back afterwards, panic or not.
fn with_per_thread_implicit<T>(body: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            PER_THREAD_IMPLICIT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(PER_THREAD_IMPLICIT.with(|c| c.replace(true)));
    body()
}

/// The mode of a synchronous copy or set: on the legacy stream, or inside a `_ptds` variant on
/// the thread's per-thread stream.
pub(crate) fn sync_mode() -> Mode {
    if PER_THREAD_IMPLICIT.with(Cell::get) {
        Mode::PerThreadSync
    } else {
        Mode::Sync
    }
}

macro_rules! per_thread_variants {
    (
        ptsz { $($(#[$sdoc:meta])* $svar:ident => $splain:ident($($sarg:ident: $sty:ty),*) stream $s:ident;)* }
        ptds { $($ddoc:literal $dvar:ident => $dplain:ident($($darg:ident: $dty:ty),*);)* }
        forwarded { $($fvar:ident => $fplain:ident($($farg:ident: $fty:ty),*);)* }
    ) => {
        $(
            #[doc = concat!("`", stringify!($svar), "`: `", stringify!($splain), "` with NULL meaning the per-thread default stream.")]
            ///
            /// # Safety
            /// As the plain function.
            #[no_mangle]
            #[allow(unused_unsafe)]
            pub unsafe extern "C" fn $svar($($sarg: $sty),*) -> CUresult {
                let $s = per_thread($s);
                // SAFETY: forwarded; same contract.
                unsafe { $splain($($sarg),*) }
            }
        )*
        $(
            #[doc = concat!("`", stringify!($dvar), "`: `", $ddoc, "` ordered on the per-thread default stream.")]
            ///
            /// # Safety
            /// As the plain function.
            #[no_mangle]
            #[allow(unused_unsafe)]
            pub unsafe extern "C" fn $dvar($($darg: $dty),*) -> CUresult {
                // SAFETY: forwarded; same contract.
                with_per_thread_implicit(|| unsafe { $dplain($($darg),*) })
            }
        )*
        $(
            #[doc = concat!("`", stringify!($fvar), "`: as `", stringify!($fplain), "` (its stream is part of its parameters).")]
            ///
            /// # Safety
            /// As the plain function.
            #[no_mangle]
            #[allow(unused_unsafe)]
            pub unsafe extern "C" fn $fvar($($farg: $fty),*) -> CUresult {
                // SAFETY: forwarded; same contract.
                unsafe { $fplain($($farg),*) }
            }
        )*

        /// (plain function, its per-thread variant) for `cuGetProcAddress`.
        pub(crate) fn variants() -> &'static [(usize, usize)] {
            static TABLE: std::sync::OnceLock<Vec<(usize, usize)>> = std::sync::OnceLock::new();
            TABLE.get_or_init(|| vec![
                $(($splain as *const c_void as usize, $svar as *const c_void as usize),)*
                $(($dplain as *const c_void as usize, $dvar as *const c_void as usize),)*
                $(($fplain as *const c_void as usize, $fvar as *const c_void as usize),)*
            ])
        }

        /// Every variant's exported name.
        #[cfg(test)]
        pub(crate) const NAMES: &[&str] = &[
            $(stringify!($svar),)* $(stringify!($dvar),)* $(stringify!($fvar),)*
        ];
    };
}

per_thread_variants! {
    ptsz {
        cuMemcpyAsync_ptsz => cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, ByteCount: usize, hStream: CUstream) stream hStream;
        cuMemcpyHtoDAsync_v2_ptsz => cuMemcpyHtoDAsync_v2(dstDevice: CUdeviceptr, srcHost: *const c_void, ByteCount: usize, hStream: CUstream) stream hStream;
        cuMemcpyDtoHAsync_v2_ptsz => cuMemcpyDtoHAsync_v2(dstHost: *mut c_void, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) stream hStream;
        cuMemcpyDtoDAsync_v2_ptsz => cuMemcpyDtoDAsync_v2(dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) stream hStream;
        cuMemcpy2DAsync_v2_ptsz => cuMemcpy2DAsync_v2(pCopy: *const CUDA_MEMCPY2D, hStream: CUstream) stream hStream;
        cuMemcpy3DAsync_v2_ptsz => cuMemcpy3DAsync_v2(pCopy: *const CUDA_MEMCPY3D, hStream: CUstream) stream hStream;
        cuMemcpyPeerAsync_ptsz => cuMemcpyPeerAsync(dstDevice: CUdeviceptr, dstContext: CUcontext, srcDevice: CUdeviceptr, srcContext: CUcontext, ByteCount: usize, hStream: CUstream) stream hStream;
        cuMemPrefetchAsync_ptsz => cuMemPrefetchAsync(devPtr: CUdeviceptr, count: usize, dstDevice: CUdevice, hStream: CUstream) stream hStream;
        cuMemPrefetchAsync_v2_ptsz => cuMemPrefetchAsync_v2(devPtr: CUdeviceptr, count: usize, location: CUmemLocation, flags: c_uint, hStream: CUstream) stream hStream;
        cuMemsetD8Async_ptsz => cuMemsetD8Async(dstDevice: CUdeviceptr, uc: u8, N: usize, hStream: CUstream) stream hStream;
        cuMemsetD16Async_ptsz => cuMemsetD16Async(dstDevice: CUdeviceptr, us: u16, N: usize, hStream: CUstream) stream hStream;
        cuMemsetD32Async_ptsz => cuMemsetD32Async(dstDevice: CUdeviceptr, ui: u32, N: usize, hStream: CUstream) stream hStream;
        cuMemsetD2D8Async_ptsz => cuMemsetD2D8Async(dstDevice: CUdeviceptr, dstPitch: usize, uc: u8, Width: usize, Height: usize, hStream: CUstream) stream hStream;
        cuMemsetD2D16Async_ptsz => cuMemsetD2D16Async(dstDevice: CUdeviceptr, dstPitch: usize, us: u16, Width: usize, Height: usize, hStream: CUstream) stream hStream;
        cuMemsetD2D32Async_ptsz => cuMemsetD2D32Async(dstDevice: CUdeviceptr, dstPitch: usize, ui: u32, Width: usize, Height: usize, hStream: CUstream) stream hStream;
        cuStreamGetPriority_ptsz => cuStreamGetPriority(hStream: CUstream, priority: *mut c_int) stream hStream;
        cuStreamGetFlags_ptsz => cuStreamGetFlags(hStream: CUstream, flags: *mut c_uint) stream hStream;
        cuStreamGetCtx_ptsz => cuStreamGetCtx(hStream: CUstream, pctx: *mut CUcontext) stream hStream;
        cuStreamGetCtx_v2_ptsz => cuStreamGetCtx_v2(hStream: CUstream, pCtx: *mut CUcontext, pGreenCtx: *mut *mut c_void) stream hStream;
        cuStreamGetId_ptsz => cuStreamGetId(hStream: CUstream, streamId: *mut c_ulonglong) stream hStream;
        cuStreamWaitEvent_ptsz => cuStreamWaitEvent(hStream: CUstream, hEvent: CUevent, Flags: c_uint) stream hStream;
        cuStreamAddCallback_ptsz => cuStreamAddCallback(hStream: CUstream, callback: CUstreamCallback, userData: *mut c_void, flags: c_uint) stream hStream;
        cuStreamAttachMemAsync_ptsz => cuStreamAttachMemAsync(hStream: CUstream, dptr: CUdeviceptr, length: usize, flags: c_uint) stream hStream;
        cuStreamQuery_ptsz => cuStreamQuery(hStream: CUstream) stream hStream;
        cuStreamSynchronize_ptsz => cuStreamSynchronize(hStream: CUstream) stream hStream;
        cuStreamBeginCapture_ptsz => cuStreamBeginCapture(hStream: CUstream) stream hStream;
        cuStreamBeginCapture_v2_ptsz => cuStreamBeginCapture_v2(hStream: CUstream, mode: c_int) stream hStream;
        cuStreamEndCapture_ptsz => cuStreamEndCapture(hStream: CUstream, phGraph: *mut CUgraph) stream hStream;
        cuStreamIsCapturing_ptsz => cuStreamIsCapturing(hStream: CUstream, captureStatus: *mut c_int) stream hStream;
        cuStreamGetCaptureInfo_ptsz => cuStreamGetCaptureInfo(hStream: CUstream, captureStatus: *mut c_int, id: *mut u64) stream hStream;
        cuStreamGetCaptureInfo_v2_ptsz => cuStreamGetCaptureInfo_v2(hStream: CUstream, captureStatus_out: *mut c_int, id_out: *mut u64, graph_out: *mut CUgraph, dependencies_out: *mut *const CUgraphNode, numDependencies_out: *mut usize) stream hStream;
        cuStreamGetCaptureInfo_v3_ptsz => cuStreamGetCaptureInfo_v3(hStream: CUstream, captureStatus_out: *mut c_int, id_out: *mut u64, graph_out: *mut CUgraph, dependencies_out: *mut *const CUgraphNode, edgeData_out: *mut *const c_void, numDependencies_out: *mut usize) stream hStream;
        cuEventRecord_ptsz => cuEventRecord(hEvent: CUevent, hStream: CUstream) stream hStream;
        cuEventRecordWithFlags_ptsz => cuEventRecordWithFlags(hEvent: CUevent, hStream: CUstream, flags: c_uint) stream hStream;
        cuLaunchKernel_ptsz => cuLaunchKernel(f: CUfunction, gridDimX: c_uint, gridDimY: c_uint, gridDimZ: c_uint, blockDimX: c_uint, blockDimY: c_uint, blockDimZ: c_uint, sharedMemBytes: c_uint, hStream: CUstream, kernelParams: *mut *mut c_void, extra: *mut *mut c_void) stream hStream;
        cuLaunchCooperativeKernel_ptsz => cuLaunchCooperativeKernel(f: CUfunction, gridDimX: c_uint, gridDimY: c_uint, gridDimZ: c_uint, blockDimX: c_uint, blockDimY: c_uint, blockDimZ: c_uint, sharedMemBytes: c_uint, hStream: CUstream, kernelParams: *mut *mut c_void) stream hStream;
        cuLaunchHostFunc_ptsz => cuLaunchHostFunc(hStream: CUstream, f: CUhostFn, userData: *mut c_void) stream hStream;
        cuGraphLaunch_ptsz => cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) stream hStream;
        cuGraphUpload_ptsz => cuGraphUpload(hGraphExec: CUgraphExec, hStream: CUstream) stream hStream;
        cuStreamBeginCaptureToGraph_ptsz => cuStreamBeginCaptureToGraph(hStream: CUstream, hGraph: CUgraph, dependencies: *const CUgraphNode, dependencyData: *const c_void, numDependencies: usize, mode: c_int) stream hStream;
        cuStreamUpdateCaptureDependencies_ptsz => cuStreamUpdateCaptureDependencies(hStream: CUstream, dependencies: *mut CUgraphNode, numDependencies: usize, flags: c_uint) stream hStream;
        cuStreamUpdateCaptureDependencies_v2_ptsz => cuStreamUpdateCaptureDependencies_v2(hStream: CUstream, dependencies: *mut CUgraphNode, dependencyData: *const CUgraphEdgeData, numDependencies: usize, flags: c_uint) stream hStream;
        cuStreamWaitValue32_ptsz => cuStreamWaitValue32(hStream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint) stream hStream;
        cuStreamWaitValue32_v2_ptsz => cuStreamWaitValue32_v2(hStream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint) stream hStream;
        cuStreamWaitValue64_ptsz => cuStreamWaitValue64(hStream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint) stream hStream;
        cuStreamWaitValue64_v2_ptsz => cuStreamWaitValue64_v2(hStream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint) stream hStream;
        cuStreamWriteValue32_ptsz => cuStreamWriteValue32(hStream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint) stream hStream;
        cuStreamWriteValue32_v2_ptsz => cuStreamWriteValue32_v2(hStream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint) stream hStream;
        cuStreamWriteValue64_ptsz => cuStreamWriteValue64(hStream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint) stream hStream;
        cuStreamWriteValue64_v2_ptsz => cuStreamWriteValue64_v2(hStream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint) stream hStream;
        cuStreamBatchMemOp_ptsz => cuStreamBatchMemOp(hStream: CUstream, count: c_uint, paramArray: *mut CUstreamBatchMemOpParams, flags: c_uint) stream hStream;
        cuStreamBatchMemOp_v2_ptsz => cuStreamBatchMemOp_v2(hStream: CUstream, count: c_uint, paramArray: *mut CUstreamBatchMemOpParams, flags: c_uint) stream hStream;
    }
    ptds {
        "cuMemcpy" cuMemcpy_ptds => cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, ByteCount: usize);
        "cuMemcpyHtoD_v2" cuMemcpyHtoD_v2_ptds => cuMemcpyHtoD_v2(dstDevice: CUdeviceptr, srcHost: *const c_void, ByteCount: usize);
        "cuMemcpyDtoH_v2" cuMemcpyDtoH_v2_ptds => cuMemcpyDtoH_v2(dstHost: *mut c_void, srcDevice: CUdeviceptr, ByteCount: usize);
        "cuMemcpyDtoD_v2" cuMemcpyDtoD_v2_ptds => cuMemcpyDtoD_v2(dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize);
        "cuMemcpy2D_v2" cuMemcpy2D_v2_ptds => cuMemcpy2D_v2(pCopy: *const CUDA_MEMCPY2D);
        "cuMemcpy2DUnaligned_v2" cuMemcpy2DUnaligned_v2_ptds => cuMemcpy2DUnaligned_v2(pCopy: *const CUDA_MEMCPY2D);
        "cuMemcpy3D_v2" cuMemcpy3D_v2_ptds => cuMemcpy3D_v2(pCopy: *const CUDA_MEMCPY3D);
        "cuMemcpyPeer" cuMemcpyPeer_ptds => cuMemcpyPeer(dstDevice: CUdeviceptr, dstContext: CUcontext, srcDevice: CUdeviceptr, srcContext: CUcontext, ByteCount: usize);
        "cuMemsetD8_v2" cuMemsetD8_v2_ptds => cuMemsetD8_v2(dstDevice: CUdeviceptr, uc: u8, N: usize);
        "cuMemsetD16_v2" cuMemsetD16_v2_ptds => cuMemsetD16_v2(dstDevice: CUdeviceptr, us: u16, N: usize);
        "cuMemsetD32_v2" cuMemsetD32_v2_ptds => cuMemsetD32_v2(dstDevice: CUdeviceptr, ui: u32, N: usize);
        "cuMemsetD2D8_v2" cuMemsetD2D8_v2_ptds => cuMemsetD2D8_v2(dstDevice: CUdeviceptr, dstPitch: usize, uc: u8, Width: usize, Height: usize);
        "cuMemsetD2D16_v2" cuMemsetD2D16_v2_ptds => cuMemsetD2D16_v2(dstDevice: CUdeviceptr, dstPitch: usize, us: u16, Width: usize, Height: usize);
        "cuMemsetD2D32_v2" cuMemsetD2D32_v2_ptds => cuMemsetD2D32_v2(dstDevice: CUdeviceptr, dstPitch: usize, ui: u32, Width: usize, Height: usize);
    }
    forwarded {
        cuLaunchKernelEx_ptsz => cuLaunchKernelEx(config: *const c_void, f: CUfunction, kernelParams: *mut *mut c_void, extra: *mut *mut c_void);
        cuGraphInstantiateWithParams_ptsz => cuGraphInstantiateWithParams(phGraphExec: *mut CUgraphExec, hGraph: CUgraph, instantiateParams: *mut CUDA_GRAPH_INSTANTIATE_PARAMS);
    }
}

/// The per-thread variant of an exported function, if it has one.
pub(crate) fn variant_of(f: *const c_void) -> Option<*const c_void> {
    variants()
        .iter()
        .find(|(plain, _)| *plain == f as usize)
        .map(|&(_, v)| v as *const c_void)
}
