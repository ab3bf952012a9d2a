//! `cuGetProcAddress`: every function the library exports, by its CUDA name and the CUDA
//! version asked for.
//!
//! A name has one entry per ABI version, with the CUDA version that introduced it; a request
//! for version V gets the newest entry introduced at or before V (`cuMemAlloc` at 3020 or later
//! is `cuMemAlloc_v2`; `cuCtxCreate` at 12050 or later is `cuCtxCreate_v4`). A name the library
//! does not export gives `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`, a version older than every
//! entry `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`, and `*pfn` is then NULL. The call itself
//! succeeds in the CUDA 12 form (`_v2`, whose status says what happened; the driver does so)
//! and fails with `CUDA_ERROR_NOT_FOUND` in the CUDA 11.3 form, which has no status.
//!
//! With `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` the entry found is replaced by its
//! per-thread default stream variant (`_ptsz`, `_ptds`, see `per_thread.rs`) where it has one;
//! with `CU_GET_PROC_ADDRESS_DEFAULT` or `_LEGACY_STREAM` the plain function is returned, for
//! which a NULL stream is the legacy stream.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use aclrt::cuda::{codes::*, CuError};

use crate::context::*;
use crate::device::*;
use crate::graph::*;
use crate::graph_node::*;
use crate::legacy::*;
use crate::mem_op::*;
use crate::mem_pool::*;
use crate::memory::*;
use crate::module::*;
use crate::stream::*;
use crate::unsupported::*;
use crate::*;

/// `CU_GET_PROC_ADDRESS_SUCCESS`.
pub const CU_GET_PROC_ADDRESS_SUCCESS: c_int = 0;
/// `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`.
pub const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: c_int = 1;
/// `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`.
pub const CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: c_int = 2;
/// `CU_GET_PROC_ADDRESS_DEFAULT | _LEGACY_STREAM | _PER_THREAD_DEFAULT_STREAM`.
const FLAGS: u64 = 0x3;
/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const PER_THREAD_DEFAULT_STREAM: u64 = 0x2;

/// (CUDA name, version that introduced this ABI, function).
struct Entry(&'static str, c_int, *const c_void);
// SAFETY: the pointers are addresses of this library's functions, immutable and shareable.
unsafe impl Send for Entry {}
// SAFETY: as above.
unsafe impl Sync for Entry {}

/// Every exported function, by CUDA name and version, sorted by name then version.
fn table() -> &'static [Entry] {
    static TABLE: OnceLock<Vec<Entry>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rows: Vec<(&'static str, c_int, *const c_void)> = vec![
            ("cuCtxCreate", 2000, cuCtxCreate as *const c_void),
            ("cuCtxCreate", 3020, cuCtxCreate_v2 as *const c_void),
            ("cuCtxCreate", 11040, cuCtxCreate_v3 as *const c_void),
            ("cuCtxCreate", 12050, cuCtxCreate_v4 as *const c_void),
            ("cuCtxDestroy", 2000, cuCtxDestroy as *const c_void),
            ("cuCtxDestroy", 4000, cuCtxDestroy_v2 as *const c_void),
            (
                "cuCtxGetApiVersion",
                3020,
                cuCtxGetApiVersion as *const c_void,
            ),
            (
                "cuCtxGetCacheConfig",
                3020,
                cuCtxGetCacheConfig as *const c_void,
            ),
            ("cuCtxGetCurrent", 4000, cuCtxGetCurrent as *const c_void),
            ("cuCtxGetDevice", 2000, cuCtxGetDevice as *const c_void),
            ("cuCtxGetFlags", 7000, cuCtxGetFlags as *const c_void),
            ("cuCtxGetId", 12000, cuCtxGetId as *const c_void),
            ("cuCtxGetLimit", 3010, cuCtxGetLimit as *const c_void),
            (
                "cuCtxGetSharedMemConfig",
                4020,
                cuCtxGetSharedMemConfig as *const c_void,
            ),
            (
                "cuCtxGetStreamPriorityRange",
                5050,
                cuCtxGetStreamPriorityRange as *const c_void,
            ),
            ("cuCtxPopCurrent", 2000, cuCtxPopCurrent as *const c_void),
            ("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2 as *const c_void),
            ("cuCtxPushCurrent", 2000, cuCtxPushCurrent as *const c_void),
            (
                "cuCtxPushCurrent",
                4000,
                cuCtxPushCurrent_v2 as *const c_void,
            ),
            (
                "cuCtxSetCacheConfig",
                3020,
                cuCtxSetCacheConfig as *const c_void,
            ),
            ("cuCtxSetCurrent", 4000, cuCtxSetCurrent as *const c_void),
            ("cuCtxSetFlags", 12010, cuCtxSetFlags as *const c_void),
            ("cuCtxSetLimit", 3010, cuCtxSetLimit as *const c_void),
            (
                "cuCtxSetSharedMemConfig",
                4020,
                cuCtxSetSharedMemConfig as *const c_void,
            ),
            ("cuCtxSynchronize", 2000, cuCtxSynchronize as *const c_void),
            (
                "cuDestroyExternalMemory",
                10000,
                cuDestroyExternalMemory as *const c_void,
            ),
            (
                "cuDeviceCanAccessPeer",
                4000,
                cuDeviceCanAccessPeer as *const c_void,
            ),
            (
                "cuDeviceComputeCapability",
                2000,
                cuDeviceComputeCapability as *const c_void,
            ),
            ("cuDeviceGet", 2000, cuDeviceGet as *const c_void),
            (
                "cuDeviceGetAttribute",
                2000,
                cuDeviceGetAttribute as *const c_void,
            ),
            (
                "cuDeviceGetByPCIBusId",
                4010,
                cuDeviceGetByPCIBusId as *const c_void,
            ),
            ("cuDeviceGetCount", 2000, cuDeviceGetCount as *const c_void),
            (
                "cuDeviceGetDefaultMemPool",
                11020,
                cuDeviceGetDefaultMemPool as *const c_void,
            ),
            ("cuDeviceGetLuid", 10000, cuDeviceGetLuid as *const c_void),
            (
                "cuDeviceGetMemPool",
                11020,
                cuDeviceGetMemPool as *const c_void,
            ),
            ("cuDeviceGetName", 2000, cuDeviceGetName as *const c_void),
            (
                "cuDeviceGetPCIBusId",
                4010,
                cuDeviceGetPCIBusId as *const c_void,
            ),
            (
                "cuDeviceGetProperties",
                2000,
                cuDeviceGetProperties as *const c_void,
            ),
            ("cuDeviceGetUuid", 9020, cuDeviceGetUuid as *const c_void),
            (
                "cuDeviceGetUuid",
                11040,
                cuDeviceGetUuid_v2 as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxGetState",
                7000,
                cuDevicePrimaryCtxGetState as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxRelease",
                7000,
                cuDevicePrimaryCtxRelease as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxRelease",
                11000,
                cuDevicePrimaryCtxRelease_v2 as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxReset",
                7000,
                cuDevicePrimaryCtxReset as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxReset",
                11000,
                cuDevicePrimaryCtxReset_v2 as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxRetain",
                7000,
                cuDevicePrimaryCtxRetain as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxSetFlags",
                7000,
                cuDevicePrimaryCtxSetFlags as *const c_void,
            ),
            (
                "cuDevicePrimaryCtxSetFlags",
                11000,
                cuDevicePrimaryCtxSetFlags_v2 as *const c_void,
            ),
            (
                "cuDeviceSetMemPool",
                11020,
                cuDeviceSetMemPool as *const c_void,
            ),
            ("cuDeviceTotalMem", 2000, cuDeviceTotalMem as *const c_void),
            (
                "cuDeviceTotalMem",
                3020,
                cuDeviceTotalMem_v2 as *const c_void,
            ),
            (
                "cuDriverGetVersion",
                2020,
                cuDriverGetVersion as *const c_void,
            ),
            ("cuEventCreate", 2000, cuEventCreate as *const c_void),
            ("cuEventDestroy", 2000, cuEventDestroy as *const c_void),
            ("cuEventDestroy", 4000, cuEventDestroy_v2 as *const c_void),
            (
                "cuEventElapsedTime",
                2000,
                cuEventElapsedTime as *const c_void,
            ),
            (
                "cuEventElapsedTime",
                12080,
                cuEventElapsedTime_v2 as *const c_void,
            ),
            ("cuEventQuery", 2000, cuEventQuery as *const c_void),
            ("cuEventRecord", 2000, cuEventRecord as *const c_void),
            (
                "cuEventRecordWithFlags",
                11010,
                cuEventRecordWithFlags as *const c_void,
            ),
            (
                "cuEventSynchronize",
                2000,
                cuEventSynchronize as *const c_void,
            ),
            (
                "cuExternalMemoryGetMappedBuffer",
                10000,
                cuExternalMemoryGetMappedBuffer as *const c_void,
            ),
            (
                "cuFuncGetAttribute",
                2020,
                cuFuncGetAttribute as *const c_void,
            ),
            ("cuFuncGetName", 12030, cuFuncGetName as *const c_void),
            (
                "cuFuncSetAttribute",
                9000,
                cuFuncSetAttribute as *const c_void,
            ),
            (
                "cuFuncSetCacheConfig",
                3000,
                cuFuncSetCacheConfig as *const c_void,
            ),
            ("cuGetErrorName", 6000, cuGetErrorName as *const c_void),
            ("cuGetErrorString", 6000, cuGetErrorString as *const c_void),
            ("cuGetProcAddress", 11030, cuGetProcAddress as *const c_void),
            (
                "cuGetProcAddress",
                12000,
                cuGetProcAddress_v2 as *const c_void,
            ),
            (
                "cuGraphAddDependencies",
                10000,
                cuGraphAddDependencies as *const c_void,
            ),
            (
                "cuGraphAddDependencies",
                12030,
                cuGraphAddDependencies_v2 as *const c_void,
            ),
            (
                "cuGraphAddEmptyNode",
                10000,
                cuGraphAddEmptyNode as *const c_void,
            ),
            (
                "cuGraphAddEventRecordNode",
                11010,
                cuGraphAddEventRecordNode as *const c_void,
            ),
            (
                "cuGraphAddEventWaitNode",
                11010,
                cuGraphAddEventWaitNode as *const c_void,
            ),
            (
                "cuGraphAddHostNode",
                10000,
                cuGraphAddHostNode as *const c_void,
            ),
            (
                "cuGraphAddKernelNode",
                10000,
                cuGraphAddKernelNode as *const c_void,
            ),
            (
                "cuGraphAddKernelNode",
                12000,
                cuGraphAddKernelNode_v2 as *const c_void,
            ),
            (
                "cuGraphAddMemcpyNode",
                10000,
                cuGraphAddMemcpyNode as *const c_void,
            ),
            (
                "cuGraphAddMemsetNode",
                10000,
                cuGraphAddMemsetNode as *const c_void,
            ),
            ("cuGraphClone", 10000, cuGraphClone as *const c_void),
            (
                "cuGraphDestroyNode",
                10000,
                cuGraphDestroyNode as *const c_void,
            ),
            (
                "cuGraphEventRecordNodeGetEvent",
                11010,
                cuGraphEventRecordNodeGetEvent as *const c_void,
            ),
            (
                "cuGraphEventWaitNodeGetEvent",
                11010,
                cuGraphEventWaitNodeGetEvent as *const c_void,
            ),
            (
                "cuGraphExecHostNodeSetParams",
                10020,
                cuGraphExecHostNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecKernelNodeSetParams",
                10010,
                cuGraphExecKernelNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecKernelNodeSetParams",
                12000,
                cuGraphExecKernelNodeSetParams_v2 as *const c_void,
            ),
            (
                "cuGraphExecUpdate",
                10020,
                cuGraphExecUpdate as *const c_void,
            ),
            (
                "cuGraphExecUpdate",
                12000,
                cuGraphExecUpdate_v2 as *const c_void,
            ),
            ("cuGraphGetEdges", 10000, cuGraphGetEdges as *const c_void),
            (
                "cuGraphGetEdges",
                12030,
                cuGraphGetEdges_v2 as *const c_void,
            ),
            (
                "cuGraphGetRootNodes",
                10000,
                cuGraphGetRootNodes as *const c_void,
            ),
            (
                "cuGraphHostNodeGetParams",
                10000,
                cuGraphHostNodeGetParams as *const c_void,
            ),
            (
                "cuGraphHostNodeSetParams",
                10000,
                cuGraphHostNodeSetParams as *const c_void,
            ),
            (
                "cuGraphKernelNodeGetParams",
                10000,
                cuGraphKernelNodeGetParams as *const c_void,
            ),
            (
                "cuGraphKernelNodeGetParams",
                12000,
                cuGraphKernelNodeGetParams_v2 as *const c_void,
            ),
            (
                "cuGraphKernelNodeSetParams",
                10000,
                cuGraphKernelNodeSetParams as *const c_void,
            ),
            (
                "cuGraphKernelNodeSetParams",
                12000,
                cuGraphKernelNodeSetParams_v2 as *const c_void,
            ),
            (
                "cuGraphMemcpyNodeGetParams",
                10000,
                cuGraphMemcpyNodeGetParams as *const c_void,
            ),
            (
                "cuGraphMemsetNodeGetParams",
                10000,
                cuGraphMemsetNodeGetParams as *const c_void,
            ),
            (
                "cuGraphNodeFindInClone",
                10000,
                cuGraphNodeFindInClone as *const c_void,
            ),
            (
                "cuGraphNodeGetDependencies",
                10000,
                cuGraphNodeGetDependencies as *const c_void,
            ),
            (
                "cuGraphNodeGetDependencies",
                12030,
                cuGraphNodeGetDependencies_v2 as *const c_void,
            ),
            (
                "cuGraphNodeGetDependentNodes",
                10000,
                cuGraphNodeGetDependentNodes as *const c_void,
            ),
            (
                "cuGraphNodeGetDependentNodes",
                12030,
                cuGraphNodeGetDependentNodes_v2 as *const c_void,
            ),
            (
                "cuGraphNodeGetType",
                10000,
                cuGraphNodeGetType as *const c_void,
            ),
            (
                "cuGraphRemoveDependencies",
                10000,
                cuGraphRemoveDependencies as *const c_void,
            ),
            (
                "cuGraphRemoveDependencies",
                12030,
                cuGraphRemoveDependencies_v2 as *const c_void,
            ),
            (
                "cuGraphMemsetNodeSetParams",
                10000,
                cuGraphMemsetNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecMemsetNodeSetParams",
                10020,
                cuGraphExecMemsetNodeSetParams as *const c_void,
            ),
            (
                "cuGraphMemcpyNodeSetParams",
                10000,
                cuGraphMemcpyNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecMemcpyNodeSetParams",
                10020,
                cuGraphExecMemcpyNodeSetParams as *const c_void,
            ),
            (
                "cuGraphEventRecordNodeSetEvent",
                11010,
                cuGraphEventRecordNodeSetEvent as *const c_void,
            ),
            (
                "cuGraphEventWaitNodeSetEvent",
                11010,
                cuGraphEventWaitNodeSetEvent as *const c_void,
            ),
            (
                "cuGraphExecEventRecordNodeSetEvent",
                11010,
                cuGraphExecEventRecordNodeSetEvent as *const c_void,
            ),
            (
                "cuGraphExecEventWaitNodeSetEvent",
                11010,
                cuGraphExecEventWaitNodeSetEvent as *const c_void,
            ),
            (
                "cuGraphNodeSetEnabled",
                11060,
                cuGraphNodeSetEnabled as *const c_void,
            ),
            (
                "cuGraphNodeGetEnabled",
                11060,
                cuGraphNodeGetEnabled as *const c_void,
            ),
            (
                "cuGraphExecGetFlags",
                12000,
                cuGraphExecGetFlags as *const c_void,
            ),
            (
                "cuGraphInstantiateWithParams",
                12000,
                cuGraphInstantiateWithParams as *const c_void,
            ),
            (
                "cuGraphAddBatchMemOpNode",
                11070,
                cuGraphAddBatchMemOpNode as *const c_void,
            ),
            (
                "cuGraphBatchMemOpNodeGetParams",
                11070,
                cuGraphBatchMemOpNodeGetParams as *const c_void,
            ),
            (
                "cuGraphBatchMemOpNodeSetParams",
                11070,
                cuGraphBatchMemOpNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecBatchMemOpNodeSetParams",
                11070,
                cuGraphExecBatchMemOpNodeSetParams as *const c_void,
            ),
            (
                "cuGraphAddChildGraphNode",
                10000,
                cuGraphAddChildGraphNode as *const c_void,
            ),
            (
                "cuGraphChildGraphNodeGetGraph",
                10000,
                cuGraphChildGraphNodeGetGraph as *const c_void,
            ),
            (
                "cuGraphExecChildGraphNodeSetParams",
                11010,
                cuGraphExecChildGraphNodeSetParams as *const c_void,
            ),
            (
                "cuGraphAddMemAllocNode",
                11040,
                cuGraphAddMemAllocNode as *const c_void,
            ),
            (
                "cuGraphAddMemFreeNode",
                11040,
                cuGraphAddMemFreeNode as *const c_void,
            ),
            (
                "cuGraphMemAllocNodeGetParams",
                11040,
                cuGraphMemAllocNodeGetParams as *const c_void,
            ),
            (
                "cuGraphMemFreeNodeGetParams",
                11040,
                cuGraphMemFreeNodeGetParams as *const c_void,
            ),
            (
                "cuDeviceGraphMemTrim",
                11040,
                cuDeviceGraphMemTrim as *const c_void,
            ),
            (
                "cuDeviceGetGraphMemAttribute",
                11040,
                cuDeviceGetGraphMemAttribute as *const c_void,
            ),
            (
                "cuDeviceSetGraphMemAttribute",
                11040,
                cuDeviceSetGraphMemAttribute as *const c_void,
            ),
            ("cuGraphAddNode", 12020, cuGraphAddNode as *const c_void),
            ("cuGraphAddNode", 12030, cuGraphAddNode_v2 as *const c_void),
            (
                "cuGraphNodeSetParams",
                12020,
                cuGraphNodeSetParams as *const c_void,
            ),
            (
                "cuGraphExecNodeSetParams",
                12020,
                cuGraphExecNodeSetParams as *const c_void,
            ),
            (
                "cuGraphConditionalHandleCreate",
                12030,
                cuGraphConditionalHandleCreate as *const c_void,
            ),
            (
                "cuGraphKernelNodeGetAttribute",
                11000,
                cuGraphKernelNodeGetAttribute as *const c_void,
            ),
            (
                "cuGraphKernelNodeSetAttribute",
                11000,
                cuGraphKernelNodeSetAttribute as *const c_void,
            ),
            (
                "cuGraphKernelNodeCopyAttributes",
                11000,
                cuGraphKernelNodeCopyAttributes as *const c_void,
            ),
            (
                "cuGraphDebugDotPrint",
                11030,
                cuGraphDebugDotPrint as *const c_void,
            ),
            (
                "cuUserObjectCreate",
                11030,
                cuUserObjectCreate as *const c_void,
            ),
            (
                "cuUserObjectRetain",
                11030,
                cuUserObjectRetain as *const c_void,
            ),
            (
                "cuUserObjectRelease",
                11030,
                cuUserObjectRelease as *const c_void,
            ),
            (
                "cuGraphRetainUserObject",
                11030,
                cuGraphRetainUserObject as *const c_void,
            ),
            (
                "cuGraphReleaseUserObject",
                11030,
                cuGraphReleaseUserObject as *const c_void,
            ),
            (
                "cuStreamBeginCaptureToGraph",
                12030,
                cuStreamBeginCaptureToGraph as *const c_void,
            ),
            (
                "cuStreamUpdateCaptureDependencies",
                11030,
                cuStreamUpdateCaptureDependencies as *const c_void,
            ),
            (
                "cuStreamUpdateCaptureDependencies",
                12030,
                cuStreamUpdateCaptureDependencies_v2 as *const c_void,
            ),
            ("cuGraphCreate", 10000, cuGraphCreate as *const c_void),
            ("cuGraphDestroy", 10000, cuGraphDestroy as *const c_void),
            (
                "cuGraphExecDestroy",
                10000,
                cuGraphExecDestroy as *const c_void,
            ),
            (
                "cuGraphInstantiateWithFlags",
                11040,
                cuGraphInstantiateWithFlags as *const c_void,
            ),
            ("cuGraphGetNodes", 10000, cuGraphGetNodes as *const c_void),
            (
                "cuGraphInstantiate",
                10000,
                cuGraphInstantiate as *const c_void,
            ),
            (
                "cuGraphInstantiate",
                11000,
                cuGraphInstantiate_v2 as *const c_void,
            ),
            (
                "cuGraphInstantiate",
                12000,
                cuGraphInstantiateWithFlags as *const c_void,
            ),
            (
                "cuThreadExchangeStreamCaptureMode",
                10010,
                cuThreadExchangeStreamCaptureMode as *const c_void,
            ),
            ("cuGraphLaunch", 10000, cuGraphLaunch as *const c_void),
            ("cuGraphUpload", 11010, cuGraphUpload as *const c_void),
            (
                "cuImportExternalMemory",
                10000,
                cuImportExternalMemory as *const c_void,
            ),
            ("cuInit", 2000, cuInit as *const c_void),
            (
                "cuLaunchCooperativeKernel",
                9000,
                cuLaunchCooperativeKernel as *const c_void,
            ),
            ("cuLaunchHostFunc", 10000, cuLaunchHostFunc as *const c_void),
            ("cuLaunchKernel", 4000, cuLaunchKernel as *const c_void),
            ("cuLaunchKernelEx", 11060, cuLaunchKernelEx as *const c_void),
            ("cuMemAdvise", 8000, cuMemAdvise as *const c_void),
            ("cuMemAdvise", 12020, cuMemAdvise_v2 as *const c_void),
            ("cuMemAlloc", 2000, cuMemAlloc as *const c_void),
            ("cuMemAlloc", 3020, cuMemAlloc_v2 as *const c_void),
            ("cuMemAllocAsync", 11020, cuMemAllocAsync as *const c_void),
            (
                "cuMemAllocFromPoolAsync",
                11020,
                cuMemAllocFromPoolAsync as *const c_void,
            ),
            ("cuMemAllocHost", 2000, cuMemAllocHost as *const c_void),
            ("cuMemAllocHost", 3020, cuMemAllocHost_v2 as *const c_void),
            (
                "cuMemAllocManaged",
                6000,
                cuMemAllocManaged as *const c_void,
            ),
            ("cuMemAllocPitch", 2000, cuMemAllocPitch as *const c_void),
            ("cuMemAllocPitch", 3020, cuMemAllocPitch_v2 as *const c_void),
            ("cuMemFree", 2000, cuMemFree as *const c_void),
            ("cuMemFree", 3020, cuMemFree_v2 as *const c_void),
            ("cuMemFreeAsync", 11020, cuMemFreeAsync as *const c_void),
            ("cuMemFreeHost", 2000, cuMemFreeHost as *const c_void),
            (
                "cuMemGetAddressRange",
                2000,
                cuMemGetAddressRange as *const c_void,
            ),
            (
                "cuMemGetAddressRange",
                3020,
                cuMemGetAddressRange_v2 as *const c_void,
            ),
            ("cuMemGetInfo", 2000, cuMemGetInfo as *const c_void),
            ("cuMemGetInfo", 3020, cuMemGetInfo_v2 as *const c_void),
            ("cuMemHostAlloc", 2020, cuMemHostAlloc as *const c_void),
            (
                "cuMemHostGetDevicePointer",
                2020,
                cuMemHostGetDevicePointer as *const c_void,
            ),
            (
                "cuMemHostGetDevicePointer",
                3020,
                cuMemHostGetDevicePointer_v2 as *const c_void,
            ),
            (
                "cuMemHostGetFlags",
                2030,
                cuMemHostGetFlags as *const c_void,
            ),
            (
                "cuMemHostRegister",
                4000,
                cuMemHostRegister as *const c_void,
            ),
            (
                "cuMemHostRegister",
                6050,
                cuMemHostRegister_v2 as *const c_void,
            ),
            (
                "cuMemHostUnregister",
                4000,
                cuMemHostUnregister as *const c_void,
            ),
            ("cuMemPoolCreate", 11020, cuMemPoolCreate as *const c_void),
            ("cuMemPoolDestroy", 11020, cuMemPoolDestroy as *const c_void),
            (
                "cuMemPoolGetAttribute",
                11020,
                cuMemPoolGetAttribute as *const c_void,
            ),
            (
                "cuMemPoolSetAttribute",
                11020,
                cuMemPoolSetAttribute as *const c_void,
            ),
            ("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo as *const c_void),
            (
                "cuMemPrefetchAsync",
                8000,
                cuMemPrefetchAsync as *const c_void,
            ),
            (
                "cuMemPrefetchAsync",
                12020,
                cuMemPrefetchAsync_v2 as *const c_void,
            ),
            ("cuMemcpy", 4000, cuMemcpy as *const c_void),
            ("cuMemcpy2D", 2000, cuMemcpy2D as *const c_void),
            ("cuMemcpy2D", 3020, cuMemcpy2D_v2 as *const c_void),
            ("cuMemcpy2DAsync", 2000, cuMemcpy2DAsync as *const c_void),
            ("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2 as *const c_void),
            (
                "cuMemcpy2DUnaligned",
                2000,
                cuMemcpy2DUnaligned as *const c_void,
            ),
            (
                "cuMemcpy2DUnaligned",
                3020,
                cuMemcpy2DUnaligned_v2 as *const c_void,
            ),
            ("cuMemcpy3D", 2000, cuMemcpy3D as *const c_void),
            ("cuMemcpy3D", 3020, cuMemcpy3D_v2 as *const c_void),
            ("cuMemcpy3DAsync", 2000, cuMemcpy3DAsync as *const c_void),
            ("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2 as *const c_void),
            ("cuMemcpyAsync", 4000, cuMemcpyAsync as *const c_void),
            ("cuMemcpyDtoD", 2000, cuMemcpyDtoD as *const c_void),
            ("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2 as *const c_void),
            (
                "cuMemcpyDtoDAsync",
                3000,
                cuMemcpyDtoDAsync as *const c_void,
            ),
            (
                "cuMemcpyDtoDAsync",
                3020,
                cuMemcpyDtoDAsync_v2 as *const c_void,
            ),
            ("cuMemcpyDtoH", 2000, cuMemcpyDtoH as *const c_void),
            ("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2 as *const c_void),
            (
                "cuMemcpyDtoHAsync",
                2000,
                cuMemcpyDtoHAsync as *const c_void,
            ),
            (
                "cuMemcpyDtoHAsync",
                3020,
                cuMemcpyDtoHAsync_v2 as *const c_void,
            ),
            ("cuMemcpyHtoD", 2000, cuMemcpyHtoD as *const c_void),
            ("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2 as *const c_void),
            (
                "cuMemcpyHtoDAsync",
                2000,
                cuMemcpyHtoDAsync as *const c_void,
            ),
            (
                "cuMemcpyHtoDAsync",
                3020,
                cuMemcpyHtoDAsync_v2 as *const c_void,
            ),
            ("cuMemcpyPeer", 4000, cuMemcpyPeer as *const c_void),
            (
                "cuMemcpyPeerAsync",
                4000,
                cuMemcpyPeerAsync as *const c_void,
            ),
            ("cuMemsetD16", 2000, cuMemsetD16 as *const c_void),
            ("cuMemsetD16", 3020, cuMemsetD16_v2 as *const c_void),
            ("cuMemsetD16Async", 3020, cuMemsetD16Async as *const c_void),
            ("cuMemsetD2D16", 2000, cuMemsetD2D16 as *const c_void),
            ("cuMemsetD2D16", 3020, cuMemsetD2D16_v2 as *const c_void),
            (
                "cuMemsetD2D16Async",
                3020,
                cuMemsetD2D16Async as *const c_void,
            ),
            ("cuMemsetD2D32", 2000, cuMemsetD2D32 as *const c_void),
            ("cuMemsetD2D32", 3020, cuMemsetD2D32_v2 as *const c_void),
            (
                "cuMemsetD2D32Async",
                3020,
                cuMemsetD2D32Async as *const c_void,
            ),
            ("cuMemsetD2D8", 2000, cuMemsetD2D8 as *const c_void),
            ("cuMemsetD2D8", 3020, cuMemsetD2D8_v2 as *const c_void),
            (
                "cuMemsetD2D8Async",
                3020,
                cuMemsetD2D8Async as *const c_void,
            ),
            ("cuMemsetD32", 2000, cuMemsetD32 as *const c_void),
            ("cuMemsetD32", 3020, cuMemsetD32_v2 as *const c_void),
            ("cuMemsetD32Async", 3020, cuMemsetD32Async as *const c_void),
            ("cuMemsetD8", 2000, cuMemsetD8 as *const c_void),
            ("cuMemsetD8", 3020, cuMemsetD8_v2 as *const c_void),
            ("cuMemsetD8Async", 3020, cuMemsetD8Async as *const c_void),
            (
                "cuModuleGetFunction",
                2000,
                cuModuleGetFunction as *const c_void,
            ),
            (
                "cuModuleGetGlobal",
                2000,
                cuModuleGetGlobal as *const c_void,
            ),
            (
                "cuModuleGetGlobal",
                3020,
                cuModuleGetGlobal_v2 as *const c_void,
            ),
            ("cuModuleLoad", 2000, cuModuleLoad as *const c_void),
            ("cuModuleLoadData", 2000, cuModuleLoadData as *const c_void),
            (
                "cuModuleLoadDataEx",
                2010,
                cuModuleLoadDataEx as *const c_void,
            ),
            (
                "cuModuleLoadFatBinary",
                2000,
                cuModuleLoadFatBinary as *const c_void,
            ),
            ("cuModuleUnload", 2000, cuModuleUnload as *const c_void),
            (
                "cuOccupancyAvailableDynamicSMemPerBlock",
                10020,
                cuOccupancyAvailableDynamicSMemPerBlock as *const c_void,
            ),
            (
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                6050,
                cuOccupancyMaxActiveBlocksPerMultiprocessor as *const c_void,
            ),
            (
                "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                7000,
                cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags as *const c_void,
            ),
            (
                "cuOccupancyMaxActiveClusters",
                11070,
                cuOccupancyMaxActiveClusters as *const c_void,
            ),
            (
                "cuOccupancyMaxPotentialBlockSize",
                6050,
                cuOccupancyMaxPotentialBlockSize as *const c_void,
            ),
            (
                "cuOccupancyMaxPotentialBlockSizeWithFlags",
                7000,
                cuOccupancyMaxPotentialBlockSizeWithFlags as *const c_void,
            ),
            (
                "cuOccupancyMaxPotentialClusterSize",
                11070,
                cuOccupancyMaxPotentialClusterSize as *const c_void,
            ),
            (
                "cuPointerGetAttribute",
                4000,
                cuPointerGetAttribute as *const c_void,
            ),
            (
                "cuPointerGetAttributes",
                7000,
                cuPointerGetAttributes as *const c_void,
            ),
            ("cuProfilerStart", 4000, cuProfilerStart as *const c_void),
            ("cuProfilerStop", 4000, cuProfilerStop as *const c_void),
            (
                "cuStreamAddCallback",
                5000,
                cuStreamAddCallback as *const c_void,
            ),
            (
                "cuStreamAttachMemAsync",
                6000,
                cuStreamAttachMemAsync as *const c_void,
            ),
            (
                "cuStreamBeginCapture",
                10000,
                cuStreamBeginCapture as *const c_void,
            ),
            (
                "cuStreamBeginCapture",
                10010,
                cuStreamBeginCapture_v2 as *const c_void,
            ),
            ("cuStreamCreate", 2000, cuStreamCreate as *const c_void),
            (
                "cuStreamCreateWithPriority",
                5050,
                cuStreamCreateWithPriority as *const c_void,
            ),
            ("cuStreamDestroy", 2000, cuStreamDestroy as *const c_void),
            ("cuStreamDestroy", 4000, cuStreamDestroy_v2 as *const c_void),
            (
                "cuStreamEndCapture",
                10000,
                cuStreamEndCapture as *const c_void,
            ),
            (
                "cuStreamGetCaptureInfo",
                10010,
                cuStreamGetCaptureInfo as *const c_void,
            ),
            (
                "cuStreamGetCaptureInfo",
                11030,
                cuStreamGetCaptureInfo_v2 as *const c_void,
            ),
            (
                "cuStreamGetCaptureInfo",
                12030,
                cuStreamGetCaptureInfo_v3 as *const c_void,
            ),
            (
                "cuStreamBatchMemOp",
                8000,
                cuStreamBatchMemOp as *const c_void,
            ),
            (
                "cuStreamBatchMemOp",
                11070,
                cuStreamBatchMemOp_v2 as *const c_void,
            ),
            (
                "cuStreamWaitValue32",
                8000,
                cuStreamWaitValue32 as *const c_void,
            ),
            (
                "cuStreamWaitValue32",
                11070,
                cuStreamWaitValue32_v2 as *const c_void,
            ),
            (
                "cuStreamWaitValue64",
                9000,
                cuStreamWaitValue64 as *const c_void,
            ),
            (
                "cuStreamWaitValue64",
                11070,
                cuStreamWaitValue64_v2 as *const c_void,
            ),
            (
                "cuStreamWriteValue32",
                8000,
                cuStreamWriteValue32 as *const c_void,
            ),
            (
                "cuStreamWriteValue32",
                11070,
                cuStreamWriteValue32_v2 as *const c_void,
            ),
            (
                "cuStreamWriteValue64",
                9000,
                cuStreamWriteValue64 as *const c_void,
            ),
            (
                "cuStreamWriteValue64",
                11070,
                cuStreamWriteValue64_v2 as *const c_void,
            ),
            ("cuStreamGetCtx", 9020, cuStreamGetCtx as *const c_void),
            ("cuStreamGetCtx", 12050, cuStreamGetCtx_v2 as *const c_void),
            ("cuStreamGetFlags", 5050, cuStreamGetFlags as *const c_void),
            ("cuStreamGetId", 12000, cuStreamGetId as *const c_void),
            (
                "cuStreamGetPriority",
                5050,
                cuStreamGetPriority as *const c_void,
            ),
            (
                "cuStreamIsCapturing",
                10000,
                cuStreamIsCapturing as *const c_void,
            ),
            ("cuStreamQuery", 2000, cuStreamQuery as *const c_void),
            (
                "cuStreamSynchronize",
                2000,
                cuStreamSynchronize as *const c_void,
            ),
            (
                "cuStreamWaitEvent",
                3020,
                cuStreamWaitEvent as *const c_void,
            ),
        ];
        rows.into_iter().map(|(n, v, f)| Entry(n, v, f)).collect()
    })
}

/// The function for `name` at `version`, or the symbol status saying why there is none.
pub(crate) fn lookup(name: &str, version: c_int) -> Result<*const c_void, c_int> {
    let mut found = None;
    let mut named = false;
    for Entry(n, v, f) in table() {
        if *n == name {
            named = true;
            if *v <= version {
                found = Some(*f);
            }
        }
    }
    match (found, named) {
        (Some(f), _) => Ok(f),
        (None, true) => Err(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT),
        (None, false) => Err(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND),
    }
}

/// Every (CUDA name, version, symbol address) the table holds.
#[cfg(test)]
fn entries() -> Vec<(&'static str, c_int, usize)> {
    table()
        .iter()
        .map(|Entry(n, v, f)| (*n, *v, *f as usize))
        .collect()
}

unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
    not_found_is_an_error: bool,
) -> CUresult {
    guard(|| {
        if symbol.is_null() || pfn.is_null() {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                "cuGetProcAddress: symbol or pfn is NULL",
            ));
        }
        if flags & !FLAGS != 0 || flags == FLAGS {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "cuGetProcAddress: flags {flags:#x} are not one CU_GET_PROC_ADDRESS_* value"
                ),
            ));
        }
        // SAFETY: a NUL-terminated name, as the C API requires.
        let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
        let (found, status) = match lookup(&name, cudaVersion) {
            Ok(f) if flags == PER_THREAD_DEFAULT_STREAM => (
                crate::per_thread::variant_of(f).unwrap_or(f),
                CU_GET_PROC_ADDRESS_SUCCESS,
            ),
            Ok(f) => (f, CU_GET_PROC_ADDRESS_SUCCESS),
            Err(status) => (std::ptr::null(), status),
        };
        put(pfn, found as *mut c_void);
        if !symbolStatus.is_null() {
            put(symbolStatus, status);
        }
        if found.is_null() && not_found_is_an_error {
            return Err(CuError::new(
                CUDA_ERROR_NOT_FOUND,
                format!("cuGetProcAddress: no {name} for CUDA version {cudaVersion}"),
            ));
        }
        Ok(())
    })
}

/// `cuGetProcAddress` (CUDA 11.3 form): needs no initialisation.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe { get_proc_address(symbol, pfn, cudaVersion, flags, std::ptr::null_mut(), true) }
}

/// `cuGetProcAddress_v2`: `symbolStatus` may be NULL; a name not found is a status, not an
/// error.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe { get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus, false) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_pick_the_newest_abi_introduced_by_then() {
        assert_eq!(lookup("cuMemAlloc", 2000), Ok(cuMemAlloc as *const c_void));
        assert_eq!(
            lookup("cuMemAlloc", 3020),
            Ok(cuMemAlloc_v2 as *const c_void)
        );
        assert_eq!(
            lookup("cuCtxCreate", 11040),
            Ok(cuCtxCreate_v3 as *const c_void)
        );
        assert_eq!(
            lookup("cuCtxCreate", 12090),
            Ok(cuCtxCreate_v4 as *const c_void)
        );
        assert_eq!(
            lookup("cuNoSuchCall", 12090),
            Err(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
        );
        assert_eq!(
            lookup("cuLaunchHostFunc", 9020),
            Err(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
        );
    }

    #[test]
    fn entries_are_unique() {
        let mut names = std::collections::HashSet::new();
        let mut functions = std::collections::HashSet::new();
        for (name, version, f) in entries() {
            assert!(names.insert((name, version)), "{name} {version} twice");
            // One function may serve two names (CUDA 12's cuGraphInstantiate is
            // cuGraphInstantiateWithFlags), never two versions of one name.
            assert!(
                functions.insert((name, f)),
                "{name} {version}: a function listed twice"
            );
        }
    }

    #[test]
    fn every_per_thread_variant_is_reachable() {
        let plain: std::collections::HashSet<usize> =
            entries().into_iter().map(|(_, _, f)| f).collect();
        let variants = crate::per_thread::variants();
        assert_eq!(variants.len(), crate::per_thread::NAMES.len());
        for (i, (f, v)) in variants.iter().enumerate() {
            let name = crate::per_thread::NAMES[i];
            assert!(
                plain.contains(f),
                "{name}: its plain function is not in the table"
            );
            assert_ne!(f, v, "{name}");
        }
        let mut f: *mut c_void = std::ptr::null_mut();
        let mut status = -1;
        // SAFETY: a NUL-terminated name and live out-pointers.
        let code = unsafe {
            cuGetProcAddress_v2(
                c"cuStreamBeginCapture".as_ptr(),
                &mut f,
                10000,
                PER_THREAD_DEFAULT_STREAM,
                &mut status,
            )
        };
        assert_eq!((code, status), (CUDA_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS));
        assert_eq!(
            f as usize,
            crate::per_thread::cuStreamBeginCapture_ptsz as *const c_void as usize
        );
        // SAFETY: as above.
        let code =
            unsafe { cuGetProcAddress_v2(c"cuMemcpyHtoD".as_ptr(), &mut f, 12090, 1, &mut status) };
        assert_eq!(code, CUDA_SUCCESS);
        assert_eq!(f as usize, cuMemcpyHtoD_v2 as *const c_void as usize);
        // SAFETY: as above.
        let code =
            unsafe { cuGetProcAddress_v2(c"cuMemcpyHtoD".as_ptr(), &mut f, 12090, 2, &mut status) };
        assert_eq!(code, CUDA_SUCCESS);
        assert_eq!(
            f as usize,
            crate::per_thread::cuMemcpyHtoD_v2_ptds as *const c_void as usize
        );
    }
}
