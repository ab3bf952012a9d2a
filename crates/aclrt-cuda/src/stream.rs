//! More stream and event calls: priorities, queries, callbacks, the `_v2` names, stream
//! capture and the graphs it makes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

use aclrt::cuda::{self, codes::*};

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
            move |status| {
                let (data, handle) = (&data, &handle);
                // SAFETY: the caller's callback with its own arguments, as CUDA calls it.
                unsafe { f(handle.0, status, data.0) }
            },
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

/// `CUgraph`: opaque.
pub type CUgraph = *mut c_void;
/// `CUgraphNode`: opaque.
pub type CUgraphNode = *mut c_void;

/// `cuStreamBeginCapture` (first version: global mode).
#[no_mangle]
pub extern "C" fn cuStreamBeginCapture(hStream: CUstream) -> CUresult {
    guard(|| cuda::stream_begin_capture(stream(hStream), cuda::CU_STREAM_CAPTURE_MODE_GLOBAL))
}

/// `cuStreamBeginCapture_v2(hStream, mode)`.
#[no_mangle]
pub extern "C" fn cuStreamBeginCapture_v2(hStream: CUstream, mode: c_int) -> CUresult {
    guard(|| cuda::stream_begin_capture(stream(hStream), mode as u32))
}

/// `cuThreadExchangeStreamCaptureMode(mode)`: sets the thread's mode, hands back the old one.
#[no_mangle]
pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(mode, "mode")?;
        // SAFETY: checked non-NULL; the caller passes a readable CUstreamCaptureMode.
        let new = unsafe { mode.read() };
        put(
            mode,
            cuda::thread_exchange_capture_mode(new as u32)? as c_int,
        );
        Ok(())
    })
}

/// `cuStreamIsCapturing`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(
    hStream: CUstream,
    captureStatus: *mut c_int,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus, "captureStatus")?;
        put(
            captureStatus,
            cuda::stream_capture_info(stream(hStream))?.status as c_int,
        );
        Ok(())
    })
}

/// `cuStreamEndCapture`: the captured graph; NULL with the error when the capture was
/// invalidated or not joined.
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(hStream: CUstream, phGraph: *mut CUgraph) -> CUresult {
    guard(|| {
        out_ptr(phGraph, "phGraph")?;
        match cuda::stream_end_capture(stream(hStream)) {
            Ok(g) => {
                put(phGraph, g as CUgraph);
                Ok(())
            }
            Err(e) => {
                if matches!(
                    e.code(),
                    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED | CUDA_ERROR_STREAM_CAPTURE_UNJOINED
                ) {
                    put(phGraph, std::ptr::null_mut());
                }
                Err(e)
            }
        }
    })
}

/// `cuStreamGetCaptureInfo` (first version): status and, if `id` is not NULL, the capture's id.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo(
    hStream: CUstream,
    captureStatus: *mut c_int,
    id: *mut u64,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus, "captureStatus")?;
        let info = cuda::stream_capture_info(stream(hStream))?;
        put(captureStatus, info.status as c_int);
        if !id.is_null() && info.status != cuda::CU_STREAM_CAPTURE_STATUS_NONE {
            put(id, info.id);
        }
        Ok(())
    })
}

thread_local! {
    /// The dependency arrays `cuStreamGetCaptureInfo` handed out, by stream: each stays valid
    /// until the next such call for its stream on this thread.
    static DEPENDENCIES: RefCell<HashMap<u64, Vec<CUgraphNode>>> = RefCell::new(HashMap::new());
}

/// `cuStreamGetCaptureInfo_v2`: status, and while capturing (each output optional) the
/// capture's id, its graph, and the nodes the stream's next node will depend on. For a stream
/// that is not capturing only the status is written.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    hStream: CUstream,
    captureStatus_out: *mut c_int,
    id_out: *mut u64,
    graph_out: *mut CUgraph,
    dependencies_out: *mut *const CUgraphNode,
    numDependencies_out: *mut usize,
) -> CUresult {
    guard(|| {
        out_ptr(captureStatus_out, "captureStatus_out")?;
        let info = cuda::stream_capture_info(stream(hStream))?;
        put(captureStatus_out, info.status as c_int);
        if info.status == cuda::CU_STREAM_CAPTURE_STATUS_NONE {
            return Ok(());
        }
        if !id_out.is_null() {
            put(id_out, info.id);
        }
        if !graph_out.is_null() {
            put(graph_out, info.graph as CUgraph);
        }
        if !numDependencies_out.is_null() {
            put(numDependencies_out, info.dependencies.len());
        }
        if !dependencies_out.is_null() {
            let nodes: Vec<CUgraphNode> = info
                .dependencies
                .iter()
                .map(|&n| n as CUgraphNode)
                .collect();
            let at = DEPENDENCIES.with(|d| {
                let mut d = d.borrow_mut();
                let slot = d.entry(hStream as u64).or_default();
                *slot = nodes;
                slot.as_ptr()
            });
            put(dependencies_out, at);
        }
        Ok(())
    })
}

/// `cuStreamGetCaptureInfo_v3`: as `_v2`; every edge is a default edge, so `*edgeData_out` is
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    hStream: CUstream,
    captureStatus_out: *mut c_int,
    id_out: *mut u64,
    graph_out: *mut CUgraph,
    dependencies_out: *mut *const CUgraphNode,
    edgeData_out: *mut *const c_void,
    numDependencies_out: *mut usize,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    let code = unsafe {
        cuStreamGetCaptureInfo_v2(
            hStream,
            captureStatus_out,
            id_out,
            graph_out,
            dependencies_out,
            numDependencies_out,
        )
    };
    if code == CUDA_SUCCESS && !edgeData_out.is_null() {
        put(edgeData_out, std::ptr::null());
    }
    code
}

// ---- graphs ------------------------------------------------------------------------------------

/// `CUgraphExec`: opaque.
pub type CUgraphExec = *mut c_void;

fn graph_handle(g: CUgraph) -> u64 {
    g as u64
}

/// `cuGraphCreate`: an empty graph, to build with the `cuGraphAdd*Node` calls (`graph.rs`).
#[no_mangle]
pub unsafe extern "C" fn cuGraphCreate(phGraph: *mut CUgraph, flags: c_uint) -> CUresult {
    guard(|| {
        out_ptr(phGraph, "phGraph")?;
        put(phGraph, cuda::graph_create(flags)? as CUgraph);
        Ok(())
    })
}

/// `cuGraphDestroy`.
#[no_mangle]
pub extern "C" fn cuGraphDestroy(hGraph: CUgraph) -> CUresult {
    guard(|| cuda::graph_destroy(graph_handle(hGraph)))
}

/// `cuGraphGetNodes(hGraph, nodes, numNodes)`: with `nodes` NULL, the count; otherwise up to
/// `*numNodes` handles, the rest of the array NULL, and `*numNodes` set to the number written.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    hGraph: CUgraph,
    nodes: *mut CUgraphNode,
    numNodes: *mut usize,
) -> CUresult {
    guard(|| {
        out_ptr(numNodes, "numNodes")?;
        let all = cuda::graph_nodes(graph_handle(hGraph))?;
        if nodes.is_null() {
            put(numNodes, all.len());
            return Ok(());
        }
        // SAFETY: checked non-NULL above.
        let room = unsafe { numNodes.read() };
        for i in 0..room {
            let v = all
                .get(i)
                .map_or(std::ptr::null_mut(), |&n| n as CUgraphNode);
            // SAFETY: the caller provides room for `*numNodes` handles.
            unsafe { nodes.add(i).write(v) };
        }
        put(numNodes, all.len().min(room));
        Ok(())
    })
}

/// `cuGraphInstantiateWithFlags`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    flags: c_ulonglong,
) -> CUresult {
    guard(|| {
        out_ptr(phGraphExec, "phGraphExec")?;
        put(
            phGraphExec,
            cuda::graph_instantiate(graph_handle(hGraph), flags)? as CUgraphExec,
        );
        Ok(())
    })
}

/// `cuGraphInstantiate` (first versions: error node and log buffer). Instantiation has no
/// node-specific failures here, so `*phErrorNode` is NULL and the log an empty string.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate(
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    phErrorNode: *mut CUgraphNode,
    logBuffer: *mut c_char,
    bufferSize: usize,
) -> CUresult {
    if !phErrorNode.is_null() {
        put(phErrorNode, std::ptr::null_mut());
    }
    if !logBuffer.is_null() && bufferSize > 0 {
        put(logBuffer, 0);
    }
    // SAFETY: forwarded; same contract.
    unsafe { cuGraphInstantiateWithFlags(phGraphExec, hGraph, 0) }
}

/// `cuGraphInstantiate_v2`: as `cuGraphInstantiate`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate_v2(
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    phErrorNode: *mut CUgraphNode,
    logBuffer: *mut c_char,
    bufferSize: usize,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe { cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize) }
}

/// `cuGraphLaunch`: the graph's work, in dependency order, on the stream.
#[no_mangle]
pub extern "C" fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult {
    guard(|| cuda::graph_launch(hGraphExec as u64, stream(hStream)))
}

/// `cuGraphUpload`: checked; nothing to upload.
#[no_mangle]
pub extern "C" fn cuGraphUpload(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult {
    guard(|| cuda::graph_upload(hGraphExec as u64, stream(hStream)))
}

/// `cuGraphExecDestroy`.
#[no_mangle]
pub extern "C" fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult {
    guard(|| cuda::graph_exec_destroy(hGraphExec as u64))
}

/// `cuStreamUpdateCaptureDependencies`: adds (`flags` 0) or sets (1) the nodes the capturing
/// stream's next node will depend on; they must be nodes of its capture.
#[no_mangle]
pub unsafe extern "C" fn cuStreamUpdateCaptureDependencies(
    hStream: CUstream,
    dependencies: *mut CUgraphNode,
    numDependencies: usize,
    flags: c_uint,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let nodes: Vec<u64> = if numDependencies == 0 {
            Vec::new()
        } else if dependencies.is_null() {
            return Err(aclrt::cuda::CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                "cuStreamUpdateCaptureDependencies: dependencies is NULL but its count is not 0",
            ));
        } else {
            // SAFETY: the caller provides `numDependencies` handles.
            unsafe { std::slice::from_raw_parts(dependencies, numDependencies) }
                .iter()
                .map(|&n| n as u64)
                .collect()
        };
        cuda::stream_update_capture_dependencies(stream(hStream), &nodes, flags)
    })
}

/// `cuStreamUpdateCaptureDependencies_v2`: as the first version; only default edges
/// (`dependencyData` NULL or zeroed; other edge data is `CUDA_ERROR_NOT_SUPPORTED`).
#[no_mangle]
pub unsafe extern "C" fn cuStreamUpdateCaptureDependencies_v2(
    hStream: CUstream,
    dependencies: *mut CUgraphNode,
    dependencyData: *const crate::graph::CUgraphEdgeData,
    numDependencies: usize,
    flags: c_uint,
) -> CUresult {
    // SAFETY: the caller provides `numDependencies` entries where `dependencyData` is not NULL.
    let code = guard(|| unsafe { crate::graph::default_edges(dependencyData, numDependencies) });
    if code != CUDA_SUCCESS {
        return code;
    }
    // SAFETY: forwarded; same contract.
    unsafe { cuStreamUpdateCaptureDependencies(hStream, dependencies, numDependencies, flags) }
}
