//! Building and editing graphs node by node (`cuGraphAdd*Node`, edges, node queries, clones,
//! parameters, executable graph updates).
//!
//! A node's work is made by the core from the same call a stream would get (a set, a copy, a
//! kernel launch, a host function), checked as that call is; this module only reads the C
//! parameter structs. Each node made here keeps a copy of its parameters (for kernels, of the
//! argument values) so the `Get*Params` calls can hand them back; nodes made by stream capture
//! keep none, and their parameter queries are `CUDA_ERROR_NOT_SUPPORTED`.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use aclrt::cuda::{
    self, codes::*, BatchAbi, BatchNodeParams, CuError, LaunchDims, MemOp, Mode, NodeKind,
    NodeParams, Pattern, Side2D,
};
use aclrt::{EventHandle, StreamHandle};

use crate::mem_op::{elements, CUstreamBatchMemOpParams};
use crate::memory::side;
use crate::stream::{CUgraph, CUgraphExec, CUgraphNode};
use crate::{
    event, guard, null_fn, out_ptr, put, CUcontext, CUdeviceptr, CUevent, CUfunction, CUhostFn,
    CUresult, Outcome, UserData,
};

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_HOST_NODE_PARAMS {
    pub fn_: CUhostFn,
    pub userData: *mut c_void,
}

/// `CUDA_KERNEL_NODE_PARAMS` (the first version).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_KERNEL_NODE_PARAMS {
    pub func: CUfunction,
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// `CUDA_KERNEL_NODE_PARAMS_v2`: the first version plus a `CUkernel` and a context.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_KERNEL_NODE_PARAMS_v2 {
    pub base: CUDA_KERNEL_NODE_PARAMS,
    pub kern: *mut c_void,
    pub ctx: CUcontext,
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMSET_NODE_PARAMS {
    pub dst: CUdeviceptr,
    pub pitch: usize,
    pub value: c_uint,
    pub elementSize: c_uint,
    pub width: usize,
    pub height: usize,
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: c_uint,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: *mut c_void,
    pub reserved0: *mut c_void,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: c_uint,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: *mut c_void,
    pub reserved1: *mut c_void,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

/// `CUgraphEdgeData`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUgraphEdgeData {
    pub from_port: u8,
    pub to_port: u8,
    pub type_: u8,
    pub reserved: [u8; 5],
}

/// `CUgraphExecUpdateResultInfo`.
#[repr(C)]
pub struct CUgraphExecUpdateResultInfo {
    pub result: c_int,
    pub errorNode: CUgraphNode,
    pub errorFromNode: CUgraphNode,
}

/// A C parameter struct kept with its node. Its pointers are only handed back to the caller.
#[derive(Clone, Copy)]
struct Kept<T>(T);
// SAFETY: the runtime never dereferences the pointers inside; it returns them as given.
unsafe impl<T> Send for Kept<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for Kept<T> {}

/// A kernel node's parameters with copies of its argument values.
struct KernelKept {
    params: Kept<CUDA_KERNEL_NODE_PARAMS>,
    /// 16-byte aligned storage for each argument.
    _values: Vec<Box<[u128]>>,
    /// Their addresses: the `kernelParams` array handed back.
    pointers: Vec<usize>,
}

fn invalid(message: impl Into<String>) -> CuError {
    CuError::new(CUDA_ERROR_INVALID_VALUE, message)
}

fn graph(g: CUgraph) -> u64 {
    g as u64
}

fn node(n: CUgraphNode) -> u64 {
    n as u64
}

/// The `count` handles of a C array (NULL only when `count` is 0).
unsafe fn handles(list: *const CUgraphNode, count: usize, what: &str) -> Result<Vec<u64>, CuError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if list.is_null() {
        return Err(invalid(format!("{what} is NULL but its count is {count}")));
    }
    // SAFETY: the caller provides `count` readable handles.
    Ok(unsafe { std::slice::from_raw_parts(list, count) }
        .iter()
        .map(|&n| node(n))
        .collect())
}

/// With `out` NULL, the count; otherwise up to `*count` handles, the rest NULL, and `*count`
/// set to the number written.
fn fill(list: &[u64], out: *mut CUgraphNode, count: *mut usize) {
    if out.is_null() {
        put(count, list.len());
        return;
    }
    // SAFETY: `count` was checked non-NULL by the caller.
    let room = unsafe { count.read() };
    for i in 0..room {
        let v = list
            .get(i)
            .map_or(std::ptr::null_mut(), |&n| n as CUgraphNode);
        // SAFETY: the caller provides room for `*count` handles.
        unsafe { out.add(i).write(v) };
    }
    put(count, list.len().min(room));
}

/// Zeroed edge data for the `_v2` queries (every edge is a default edge).
fn zero_edges(edge_data: *mut CUgraphEdgeData, count: usize) {
    if edge_data.is_null() {
        return;
    }
    for i in 0..count {
        // SAFETY: the caller provides room for as many entries as handles.
        unsafe {
            edge_data.add(i).write(CUgraphEdgeData {
                from_port: 0,
                to_port: 0,
                type_: 0,
                reserved: [0; 5],
            })
        };
    }
}

/// Edge data given to the `_v2` edits: only default edges exist here.
pub(crate) unsafe fn default_edges(edge_data: *const CUgraphEdgeData, count: usize) -> Outcome {
    for i in 0..count {
        if edge_data.is_null() {
            break;
        }
        // SAFETY: the caller provides `count` entries.
        let e = unsafe { edge_data.add(i).read() };
        if e.from_port != 0 || e.to_port != 0 || e.type_ != 0 {
            return Err(CuError::new(
                CUDA_ERROR_NOT_SUPPORTED,
                "only default graph edges (ports 0, type default) are supported",
            ));
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
unsafe fn add_node(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    kind: NodeKind,
    params: Option<NodeParams>,
    call: &'static str,
    work: impl FnOnce() -> Outcome,
) -> Outcome {
    out_ptr(phGraphNode, "phGraphNode")?;
    // SAFETY: forwarded; the caller provides the array.
    let deps = unsafe { handles(dependencies, numDependencies, "dependencies")? };
    let n = cuda::graph_add_node(graph(hGraph), &deps, kind, params, call, work)?;
    put(phGraphNode, n as CUgraphNode);
    Ok(())
}

/// `cuGraphAddEmptyNode`: a node with no work, for ordering.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEmptyNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
) -> CUresult {
    guard(|| {
        // SAFETY: forwarded.
        unsafe {
            add_node(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                NodeKind::Empty,
                None,
                "cuGraphAddEmptyNode",
                || Ok(()),
            )
        }
    })
}

// ---- host nodes ----------------------------------------------------------------------------

unsafe fn read<T: Copy>(p: *const T, what: &str) -> Result<T, CuError> {
    cuda::ensure_initialized()?;
    if p.is_null() {
        return Err(invalid(format!("{what} is NULL")));
    }
    // SAFETY: non-NULL: the caller's struct.
    Ok(unsafe { p.read() })
}

/// The host function's work, for [`cuda::graph_add_node`] and the parameter setters.
fn host_work(p: CUDA_HOST_NODE_PARAMS) -> Result<impl FnOnce() -> Outcome, CuError> {
    let f = p.fn_.ok_or_else(null_fn)?;
    let data = UserData(p.userData);
    Ok(move || {
        cuda::launch_host_func(StreamHandle::NULL, move || {
            let data = &data;
            // SAFETY: the caller's function with the caller's argument, as CUDA runs it.
            unsafe { f(data.0) }
        })
    })
}

/// `cuGraphAddHostNode`: the function runs with its argument at each launch.
///
/// # Safety
/// As `cuLaunchHostFunc`, for every launch of the graph.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddHostNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_HOST_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct.
        let p = unsafe { read(nodeParams, "nodeParams")? };
        let work = host_work(p)?;
        // SAFETY: forwarded.
        unsafe {
            add_node(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                NodeKind::Host,
                Some(Arc::new(Kept(p))),
                "cuGraphAddHostNode",
                work,
            )
        }
    })
}

fn kept<T: 'static + Copy>(params: Option<NodeParams>, call: &str) -> Result<T, CuError> {
    match params {
        None => Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: the parameters of a node made by stream capture are not kept"),
        )),
        Some(p) => p
            .downcast_ref::<Kept<T>>()
            .map(|k| k.0)
            .ok_or_else(|| invalid(format!("{call}: the node holds other parameters"))),
    }
}

fn node_params(
    hNode: CUgraphNode,
    kind: NodeKind,
    call: &str,
) -> Result<Option<NodeParams>, CuError> {
    let (have, params) = cuda::graph_node_params(node(hNode))?;
    if have != kind {
        return Err(invalid(format!(
            "{call}: the node is a {have:?} node, not a {kind:?} node"
        )));
    }
    Ok(params)
}

/// `cuGraphHostNodeGetParams`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphHostNodeGetParams(
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_HOST_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams, "nodeParams")?;
        let call = "cuGraphHostNodeGetParams";
        let p = kept::<CUDA_HOST_NODE_PARAMS>(node_params(hNode, NodeKind::Host, call)?, call)?;
        put(nodeParams, p);
        Ok(())
    })
}

/// `cuGraphHostNodeSetParams`.
///
/// # Safety
/// As `cuGraphAddHostNode`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphHostNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_HOST_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct.
        let p = unsafe { read(nodeParams, "nodeParams")? };
        let work = host_work(p)?;
        cuda::graph_node_set_params(
            node(hNode),
            NodeKind::Host,
            Arc::new(Kept(p)),
            "cuGraphHostNodeSetParams",
            work,
        )
    })
}

/// `cuGraphExecHostNodeSetParams`: later launches of the executable graph call the new function.
///
/// # Safety
/// As `cuGraphAddHostNode`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecHostNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_HOST_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct.
        let p = unsafe { read(nodeParams, "nodeParams")? };
        let work = host_work(p)?;
        cuda::graph_exec_node_set_params(
            hGraphExec as u64,
            node(hNode),
            NodeKind::Host,
            Arc::new(Kept(p)),
            "cuGraphExecHostNodeSetParams",
            work,
        )
    })
}

// ---- kernel nodes --------------------------------------------------------------------------

/// The kernel launch's work and the parameters to keep (with copies of the argument values).
unsafe fn kernel_work(
    p: CUDA_KERNEL_NODE_PARAMS,
    kern: *mut c_void,
    call: &'static str,
) -> Result<(impl FnOnce() -> Outcome, NodeParams), CuError> {
    if !kern.is_null() && p.func.is_null() {
        return Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: CUkernel handles (the library API) are not supported; give func"),
        ));
    }
    if !p.extra.is_null() {
        if !p.kernelParams.is_null() {
            return Err(invalid(format!(
                "{call}: kernelParams and extra are both given"
            )));
        }
        return Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: arguments through `extra` are not supported; use kernelParams"),
        ));
    }
    let f = p.func as u64;
    let sizes = cuda::func_arg_sizes(f)?;
    if !sizes.is_empty() && p.kernelParams.is_null() {
        return Err(invalid(format!(
            "{call}: the kernel takes {} argument(s) but kernelParams is NULL",
            sizes.len()
        )));
    }
    let mut values = Vec::with_capacity(sizes.len());
    for (i, &size) in sizes.iter().enumerate() {
        // SAFETY: the caller provides one pointer per declared argument.
        let arg = unsafe { *p.kernelParams.add(i) };
        if arg.is_null() {
            return Err(invalid(format!("{call}: kernelParams[{i}] is NULL")));
        }
        let mut v = vec![0u128; size.div_ceil(16).max(1)].into_boxed_slice();
        // SAFETY: `arg` points to `size` readable bytes; the storage holds at least that many.
        unsafe { std::ptr::copy_nonoverlapping(arg as *const u8, v.as_mut_ptr().cast(), size) };
        values.push(v);
    }
    let pointers: Vec<usize> = values.iter().map(|v| v.as_ptr() as usize).collect();
    let mut stored = p;
    stored.kernelParams = if pointers.is_empty() {
        std::ptr::null_mut()
    } else {
        pointers.as_ptr() as *mut *mut c_void
    };
    let dims = LaunchDims {
        grid: [p.gridDimX, p.gridDimY, p.gridDimZ],
        block: [p.blockDimX, p.blockDimY, p.blockDimZ],
        shared_mem_bytes: p.sharedMemBytes,
    };
    let args = UserData(stored.kernelParams as *mut c_void);
    let kept: NodeParams = Arc::new(KernelKept {
        params: Kept(stored),
        _values: values,
        pointers,
    });
    let work = move || {
        let args = &args;
        // SAFETY: one pointer per declared argument, into the kept copies (alive: `kept`
        // is held by the caller until the node is made).
        unsafe {
            cuda::launch_kernel(
                f,
                dims,
                StreamHandle::NULL,
                args.0 as *const *const c_void,
                call,
            )
        }
    };
    Ok((work, kept))
}

unsafe fn add_kernel(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    p: CUDA_KERNEL_NODE_PARAMS,
    kern: *mut c_void,
    call: &'static str,
) -> Outcome {
    // SAFETY: forwarded.
    let (work, kept) = unsafe { kernel_work(p, kern, call)? };
    // SAFETY: forwarded.
    unsafe {
        add_node(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            NodeKind::Kernel,
            Some(kept),
            call,
            work,
        )
    }
}

/// `cuGraphAddKernelNode` (first version): the kernel with copies of its arguments.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            let call = "cuGraphAddKernelNode";
            add_kernel(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                p,
                std::ptr::null_mut(),
                call,
            )
        }
    })
}

/// `cuGraphAddKernelNode_v2`: `kern` (a `CUkernel`) is not supported; `ctx` is not used.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS_v2,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            let call = "cuGraphAddKernelNode";
            add_kernel(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                p.base,
                p.kern,
                call,
            )
        }
    })
}

fn kernel_kept(hNode: CUgraphNode, call: &str) -> Result<CUDA_KERNEL_NODE_PARAMS, CuError> {
    match node_params(hNode, NodeKind::Kernel, call)? {
        None => Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: the parameters of a node made by stream capture are not kept"),
        )),
        Some(p) => p
            .downcast_ref::<KernelKept>()
            .map(|k| {
                debug_assert_eq!(
                    k.params.0.kernelParams as usize,
                    if k.pointers.is_empty() {
                        0
                    } else {
                        k.pointers.as_ptr() as usize
                    }
                );
                k.params.0
            })
            .ok_or_else(|| invalid(format!("{call}: the node holds other parameters"))),
    }
}

/// `cuGraphKernelNodeGetParams` (first version): `kernelParams` points to the node's own
/// copies of the arguments, valid until its parameters change or it is destroyed.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams(
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams, "nodeParams")?;
        put(
            nodeParams,
            kernel_kept(hNode, "cuGraphKernelNodeGetParams")?,
        );
        Ok(())
    })
}

/// `cuGraphKernelNodeGetParams_v2`: as the first version; `kern` and `ctx` are NULL.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams_v2(
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_KERNEL_NODE_PARAMS_v2,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams, "nodeParams")?;
        let base = kernel_kept(hNode, "cuGraphKernelNodeGetParams")?;
        put(
            nodeParams,
            CUDA_KERNEL_NODE_PARAMS_v2 {
                base,
                kern: std::ptr::null_mut(),
                ctx: std::ptr::null_mut(),
            },
        );
        Ok(())
    })
}

unsafe fn set_kernel(
    exec: Option<CUgraphExec>,
    hNode: CUgraphNode,
    p: CUDA_KERNEL_NODE_PARAMS,
    kern: *mut c_void,
    call: &'static str,
) -> Outcome {
    // SAFETY: forwarded.
    let (work, kept) = unsafe { kernel_work(p, kern, call)? };
    match exec {
        None => cuda::graph_node_set_params(node(hNode), NodeKind::Kernel, kept, call, work),
        Some(x) => cuda::graph_exec_node_set_params(
            x as u64,
            node(hNode),
            NodeKind::Kernel,
            kept,
            call,
            work,
        ),
    }
}

/// `cuGraphKernelNodeSetParams` (first version).
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            set_kernel(
                None,
                hNode,
                p,
                std::ptr::null_mut(),
                "cuGraphKernelNodeSetParams",
            )
        }
    })
}

/// `cuGraphKernelNodeSetParams_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS_v2,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            set_kernel(None, hNode, p.base, p.kern, "cuGraphKernelNodeSetParams")
        }
    })
}

/// `cuGraphExecKernelNodeSetParams` (first version): later launches use the new parameters.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            let call = "cuGraphExecKernelNodeSetParams";
            set_kernel(Some(hGraphExec), hNode, p, std::ptr::null_mut(), call)
        }
    })
}

/// `cuGraphExecKernelNodeSetParams_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS_v2,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's struct; forwarded.
        unsafe {
            let p = read(nodeParams, "nodeParams")?;
            let call = "cuGraphExecKernelNodeSetParams";
            set_kernel(Some(hGraphExec), hNode, p.base, p.kern, call)
        }
    })
}

// ---- memset and memcpy nodes ---------------------------------------------------------------

/// A memset node's work: the set `cuMemsetD2D*Async` would submit.
fn memset_work(
    p: CUDA_MEMSET_NODE_PARAMS,
    call: &'static str,
) -> Result<impl FnOnce() -> Outcome, CuError> {
    let pattern = match p.elementSize {
        1 => Pattern::U8(p.value as u8),
        2 => Pattern::U16(p.value as u16),
        4 => Pattern::U32(p.value),
        other => {
            return Err(invalid(format!(
                "{call}: elementSize must be 1, 2 or 4, not {other}"
            )))
        }
    };
    let pitch = if p.height > 1 {
        p.pitch
    } else {
        p.width.wrapping_mul(p.elementSize as usize)
    };
    Ok(move || {
        // SAFETY: the caller keeps the destination valid for every launch, as CUDA requires
        // of graph memory.
        unsafe {
            cuda::memset(
                p.dst,
                pattern,
                pitch,
                p.width,
                p.height,
                Mode::Async(StreamHandle::NULL),
                call,
            )
        }
    })
}

/// `cuGraphAddMemsetNode`: `elementSize` 1, 2 or 4; `ctx` is not used.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemsetNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| {
        let call = "cuGraphAddMemsetNode";
        // SAFETY: the caller's struct.
        let p = unsafe { read(memsetParams, "memsetParams")? };
        let work = memset_work(p, call)?;
        // SAFETY: forwarded.
        unsafe {
            add_node(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                NodeKind::Memset,
                Some(Arc::new(Kept(p))),
                call,
                work,
            )
        }
    })
}

/// `cuGraphMemsetNodeSetParams`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphMemsetNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        let call = "cuGraphMemsetNodeSetParams";
        // SAFETY: the caller's struct.
        let p = unsafe { read(nodeParams, "nodeParams")? };
        let work = memset_work(p, call)?;
        cuda::graph_node_set_params(node(hNode), NodeKind::Memset, Arc::new(Kept(p)), call, work)
    })
}

/// `cuGraphExecMemsetNodeSetParams`: later launches of the executable graph use the new set.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecMemsetNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| {
        let call = "cuGraphExecMemsetNodeSetParams";
        // SAFETY: the caller's struct.
        let p = unsafe { read(memsetParams, "memsetParams")? };
        let work = memset_work(p, call)?;
        cuda::graph_exec_node_set_params(
            hGraphExec as u64,
            node(hNode),
            NodeKind::Memset,
            Arc::new(Kept(p)),
            call,
            work,
        )
    })
}

/// `cuGraphMemsetNodeGetParams`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphMemsetNodeGetParams(
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams, "nodeParams")?;
        let call = "cuGraphMemsetNodeGetParams";
        let p = kept::<CUDA_MEMSET_NODE_PARAMS>(node_params(hNode, NodeKind::Memset, call)?, call)?;
        put(nodeParams, p);
        Ok(())
    })
}

/// The two sides of slice `z` of a 3D copy, as a 2D copy's: the slice starts `srcZ + z` (or
/// `dstZ + z`) slices of `srcHeight` (`dstHeight`) rows in.
pub(crate) fn slice_sides(p: &CUDA_MEMCPY3D, z: usize) -> (Side2D, Side2D) {
    let src_y = p
        .srcY
        .wrapping_add(p.srcZ.wrapping_add(z).wrapping_mul(p.srcHeight));
    let dst_y = p
        .dstY
        .wrapping_add(p.dstZ.wrapping_add(z).wrapping_mul(p.dstHeight));
    let src = side(
        p.srcMemoryType,
        p.srcHost as usize,
        p.srcDevice,
        p.srcXInBytes,
        src_y,
        p.srcPitch,
    );
    let dst = side(
        p.dstMemoryType,
        p.dstHost as usize,
        p.dstDevice,
        p.dstXInBytes,
        dst_y,
        p.dstPitch,
    );
    (src, dst)
}

/// A memcpy node's work: the 2D copies `cuMemcpy3DAsync` would submit, one per slice, every
/// slice checked first. Mipmap levels are `CUDA_ERROR_INVALID_VALUE` (arrays are refused by
/// the copy's own checks: no array exists here).
fn memcpy_work(p: CUDA_MEMCPY3D, call: &'static str) -> Result<impl FnOnce() -> Outcome, CuError> {
    if p.srcLOD != 0 || p.dstLOD != 0 {
        return Err(invalid(format!(
            "{call}: mipmap levels need CUDA arrays, which the emulated device has none of"
        )));
    }
    Ok(move || {
        // SAFETY: the caller keeps both sides valid for every launch, as CUDA requires of
        // graph memory.
        unsafe { crate::memory::copy_3d_checked(&p, Mode::Async(StreamHandle::NULL), call) }
    })
}

/// `cuGraphAddMemcpyNode`: a 3D copy (one 2D copy per slice, as `cuMemcpy3D`). `ctx` is not
/// used.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemcpyNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    copyParams: *const CUDA_MEMCPY3D,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| {
        let call = "cuGraphAddMemcpyNode";
        // SAFETY: the caller's struct.
        let p = unsafe { read(copyParams, "copyParams")? };
        let work = memcpy_work(p, call)?;
        // SAFETY: forwarded.
        unsafe {
            add_node(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                NodeKind::Memcpy,
                Some(Arc::new(Kept(p))),
                call,
                work,
            )
        }
    })
}

/// `cuGraphMemcpyNodeSetParams`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphMemcpyNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMCPY3D,
) -> CUresult {
    guard(|| {
        let call = "cuGraphMemcpyNodeSetParams";
        // SAFETY: the caller's struct.
        let p = unsafe { read(nodeParams, "nodeParams")? };
        let work = memcpy_work(p, call)?;
        cuda::graph_node_set_params(node(hNode), NodeKind::Memcpy, Arc::new(Kept(p)), call, work)
    })
}

/// `cuGraphExecMemcpyNodeSetParams`: later launches of the executable graph use the new copy.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecMemcpyNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    copyParams: *const CUDA_MEMCPY3D,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| {
        let call = "cuGraphExecMemcpyNodeSetParams";
        // SAFETY: the caller's struct.
        let p = unsafe { read(copyParams, "copyParams")? };
        let work = memcpy_work(p, call)?;
        cuda::graph_exec_node_set_params(
            hGraphExec as u64,
            node(hNode),
            NodeKind::Memcpy,
            Arc::new(Kept(p)),
            call,
            work,
        )
    })
}

/// `cuGraphMemcpyNodeGetParams`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphMemcpyNodeGetParams(
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMCPY3D,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams, "nodeParams")?;
        let call = "cuGraphMemcpyNodeGetParams";
        let p = kept::<CUDA_MEMCPY3D>(node_params(hNode, NodeKind::Memcpy, call)?, call)?;
        put(nodeParams, p);
        Ok(())
    })
}

// ---- event nodes ---------------------------------------------------------------------------

unsafe fn add_event(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    hEvent: CUevent,
    wait: bool,
) -> CUresult {
    guard(|| {
        out_ptr(phGraphNode, "phGraphNode")?;
        // SAFETY: the caller provides the array.
        let deps = unsafe { handles(dependencies, numDependencies, "dependencies")? };
        let n = cuda::graph_add_event_node(graph(hGraph), &deps, event(hEvent), wait)?;
        put(phGraphNode, n as CUgraphNode);
        Ok(())
    })
}

/// `cuGraphAddEventRecordNode`: records the event on the launch stream at each launch.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventRecordNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    event: CUevent,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe {
        add_event(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            event,
            false,
        )
    }
}

/// `cuGraphAddEventWaitNode`: the launch stream waits for the event at each launch.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventWaitNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    event: CUevent,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe {
        add_event(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            event,
            true,
        )
    }
}

fn event_of_node(
    hNode: CUgraphNode,
    kind: NodeKind,
    event_out: *mut CUevent,
    call: &str,
) -> Outcome {
    out_ptr(event_out, "event_out")?;
    let p = node_params(hNode, kind, call)?;
    let e = p
        .and_then(|p| p.downcast_ref::<EventHandle>().copied())
        .ok_or_else(|| {
            CuError::new(
                CUDA_ERROR_NOT_SUPPORTED,
                format!("{call}: the event of a node made by stream capture is not kept"),
            )
        })?;
    put(event_out, e.as_raw() as CUevent);
    Ok(())
}

/// `cuGraphEventRecordNodeGetEvent`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphEventRecordNodeGetEvent(
    hNode: CUgraphNode,
    event_out: *mut CUevent,
) -> CUresult {
    guard(|| {
        event_of_node(
            hNode,
            NodeKind::EventRecord,
            event_out,
            "cuGraphEventRecordNodeGetEvent",
        )
    })
}

/// `cuGraphEventWaitNodeGetEvent`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphEventWaitNodeGetEvent(
    hNode: CUgraphNode,
    event_out: *mut CUevent,
) -> CUresult {
    guard(|| {
        event_of_node(
            hNode,
            NodeKind::WaitEvent,
            event_out,
            "cuGraphEventWaitNodeGetEvent",
        )
    })
}

/// `cuGraphEventRecordNodeSetEvent`.
#[no_mangle]
pub extern "C" fn cuGraphEventRecordNodeSetEvent(hNode: CUgraphNode, event: CUevent) -> CUresult {
    guard(|| {
        let call = "cuGraphEventRecordNodeSetEvent";
        cuda::graph_event_node_set_event(None, node(hNode), crate::event(event), false, call)
    })
}

/// `cuGraphEventWaitNodeSetEvent`.
#[no_mangle]
pub extern "C" fn cuGraphEventWaitNodeSetEvent(hNode: CUgraphNode, event: CUevent) -> CUresult {
    guard(|| {
        let call = "cuGraphEventWaitNodeSetEvent";
        cuda::graph_event_node_set_event(None, node(hNode), crate::event(event), true, call)
    })
}

/// `cuGraphExecEventRecordNodeSetEvent`.
#[no_mangle]
pub extern "C" fn cuGraphExecEventRecordNodeSetEvent(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    event: CUevent,
) -> CUresult {
    guard(|| {
        let call = "cuGraphExecEventRecordNodeSetEvent";
        let x = Some(hGraphExec as u64);
        cuda::graph_event_node_set_event(x, node(hNode), crate::event(event), false, call)
    })
}

/// `cuGraphExecEventWaitNodeSetEvent`.
#[no_mangle]
pub extern "C" fn cuGraphExecEventWaitNodeSetEvent(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    event: CUevent,
) -> CUresult {
    guard(|| {
        let call = "cuGraphExecEventWaitNodeSetEvent";
        let x = Some(hGraphExec as u64);
        cuda::graph_event_node_set_event(x, node(hNode), crate::event(event), true, call)
    })
}

// ---- executable graphs: enabling nodes, flags, instantiation with parameters ----------------

/// `cuGraphNodeSetEnabled`: kernel, memcpy and memset nodes of an executable graph; a
/// disabled node does nothing at later launches.
#[no_mangle]
pub extern "C" fn cuGraphNodeSetEnabled(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    isEnabled: c_uint,
) -> CUresult {
    guard(|| cuda::graph_node_set_enabled(hGraphExec as u64, node(hNode), isEnabled != 0))
}

/// `cuGraphNodeGetEnabled`: 1 or 0.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetEnabled(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    isEnabled: *mut c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(isEnabled, "isEnabled")?;
        let on = cuda::graph_node_get_enabled(hGraphExec as u64, node(hNode))?;
        put(isEnabled, c_uint::from(on));
        Ok(())
    })
}

/// `cuGraphExecGetFlags`: the flags given at instantiation.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecGetFlags(hGraphExec: CUgraphExec, flags: *mut u64) -> CUresult {
    guard(|| {
        out_ptr(flags, "flags")?;
        put(flags, cuda::graph_exec_get_flags(hGraphExec as u64)?);
        Ok(())
    })
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
pub struct CUDA_GRAPH_INSTANTIATE_PARAMS {
    pub flags: u64,
    pub hUploadStream: crate::CUstream,
    pub hErrNode_out: CUgraphNode,
    pub result_out: c_int,
}

/// `cuGraphInstantiateWithParams`: as `cuGraphInstantiateWithFlags`, with the outcome in
/// `result_out` (`CUDA_GRAPH_INSTANTIATE_SUCCESS`, `_INVALID_STRUCTURE` for a cycle, `_ERROR`
/// otherwise) and `hErrNode_out` NULL (no failure here concerns one node). The upload stream
/// is not used: there is nothing to upload.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    instantiateParams: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CUresult {
    guard(|| {
        out_ptr(phGraphExec, "phGraphExec")?;
        out_ptr(instantiateParams, "instantiateParams")?;
        // SAFETY: checked non-NULL; the caller's struct.
        let p = unsafe { &mut *instantiateParams };
        p.hErrNode_out = std::ptr::null_mut();
        match cuda::graph_instantiate_with_result(graph(hGraph), p.flags) {
            Ok(x) => {
                p.result_out = 0;
                put(phGraphExec, x as CUgraphExec);
                Ok(())
            }
            Err((e, result)) => {
                p.result_out = result as c_int;
                Err(e)
            }
        }
    })
}

/// `cuGraphAddChildGraphNode`: runs a copy of `childGraph`, taken now, at each launch.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddChildGraphNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    childGraph: CUgraph,
) -> CUresult {
    guard(|| {
        out_ptr(phGraphNode, "phGraphNode")?;
        // SAFETY: the caller provides the array.
        let deps = unsafe { handles(dependencies, numDependencies, "dependencies")? };
        let n = cuda::graph_add_child_node(graph(hGraph), &deps, graph(childGraph))?;
        put(phGraphNode, n as CUgraphNode);
        Ok(())
    })
}

/// `cuGraphChildGraphNodeGetGraph`: the node's own graph (not a copy; not for
/// `cuGraphDestroy`).
#[no_mangle]
pub unsafe extern "C" fn cuGraphChildGraphNodeGetGraph(
    hNode: CUgraphNode,
    phGraph: *mut CUgraph,
) -> CUresult {
    guard(|| {
        out_ptr(phGraph, "phGraph")?;
        put(phGraph, cuda::graph_child_graph(node(hNode))? as CUgraph);
        Ok(())
    })
}

/// `cuGraphExecChildGraphNodeSetParams`: later launches run a copy of `childGraph`, which must
/// match the node's graph in nodes and edges.
#[no_mangle]
pub extern "C" fn cuGraphExecChildGraphNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    childGraph: CUgraph,
) -> CUresult {
    guard(|| cuda::graph_exec_child_set(hGraphExec as u64, node(hNode), graph(childGraph)))
}

/// `cuGraphDebugDotPrint`: writes the graph to `path` in Graphviz DOT (the verbosity flags
/// are accepted; every vertex carries its index and kind). A file that cannot be written is
/// `CUDA_ERROR_OPERATING_SYSTEM`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphDebugDotPrint(
    hGraph: CUgraph,
    path: *const std::ffi::c_char,
    _flags: c_uint,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        if path.is_null() {
            return Err(invalid("cuGraphDebugDotPrint: path is NULL"));
        }
        let text = cuda::graph_dot(graph(hGraph))?;
        // SAFETY: a NUL-terminated path, as the C API requires.
        let path = unsafe { std::ffi::CStr::from_ptr(path) }
            .to_string_lossy()
            .into_owned();
        std::fs::write(&path, text).map_err(|e| {
            CuError::new(
                CUDA_ERROR_OPERATING_SYSTEM,
                format!("cuGraphDebugDotPrint: cannot write {path}: {e}"),
            )
        })
    })
}

// ---- edges and queries ---------------------------------------------------------------------

unsafe fn edit_edges(
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
    remove: bool,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        // SAFETY: the caller provides the arrays.
        let (f, t) = unsafe {
            default_edges(edgeData, numDependencies)?;
            (
                handles(from, numDependencies, "from")?,
                handles(to, numDependencies, "to")?,
            )
        };
        cuda::graph_edit_dependencies(graph(hGraph), &f, &t, remove)
    })
}

/// `cuGraphAddDependencies`: `from[i]` → `to[i]`, all or none.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies(
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { edit_edges(hGraph, from, to, std::ptr::null(), numDependencies, false) }
}

/// `cuGraphAddDependencies_v2`: only default edges (`edgeData` NULL or zeroed).
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies_v2(
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { edit_edges(hGraph, from, to, edgeData, numDependencies, false) }
}

/// `cuGraphRemoveDependencies`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies(
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { edit_edges(hGraph, from, to, std::ptr::null(), numDependencies, true) }
}

/// `cuGraphRemoveDependencies_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies_v2(
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { edit_edges(hGraph, from, to, edgeData, numDependencies, true) }
}

unsafe fn get_edges(
    hGraph: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numEdges: *mut usize,
) -> CUresult {
    guard(|| {
        out_ptr(numEdges, "numEdges")?;
        if from.is_null() != to.is_null() {
            return Err(invalid(
                "cuGraphGetEdges: from and to must both be NULL or both given",
            ));
        }
        let edges = cuda::graph_edges(graph(hGraph))?;
        let (f, t): (Vec<u64>, Vec<u64>) = edges.into_iter().unzip();
        if !from.is_null() {
            // SAFETY: checked non-NULL.
            let room = unsafe { numEdges.read() };
            fill(&f, from, numEdges);
            put(numEdges, room);
            fill(&t, to, numEdges);
            // SAFETY: checked non-NULL.
            zero_edges(edgeData, unsafe { numEdges.read() });
        } else {
            put(numEdges, f.len());
        }
        Ok(())
    })
}

/// `cuGraphGetEdges`: with `from` and `to` NULL, the count; otherwise up to `*numEdges` edges,
/// the rest NULL, and `*numEdges` set to the number written.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges(
    hGraph: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    numEdges: *mut usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { get_edges(hGraph, from, to, std::ptr::null_mut(), numEdges) }
}

/// `cuGraphGetEdges_v2`: edge data, if asked for, is zeroed (default edges).
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges_v2(
    hGraph: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numEdges: *mut usize,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { get_edges(hGraph, from, to, edgeData, numEdges) }
}

fn list_query(
    list: impl FnOnce() -> Result<Vec<u64>, CuError>,
    out: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    count: *mut usize,
    count_name: &str,
) -> CUresult {
    guard(|| {
        out_ptr(count, count_name)?;
        let list = list()?;
        fill(&list, out, count);
        if !out.is_null() {
            // SAFETY: checked non-NULL.
            zero_edges(edgeData, unsafe { count.read() });
        }
        Ok(())
    })
}

/// `cuGraphGetRootNodes`: as `cuGraphGetNodes`, for the nodes without dependencies.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetRootNodes(
    hGraph: CUgraph,
    rootNodes: *mut CUgraphNode,
    numRootNodes: *mut usize,
) -> CUresult {
    list_query(
        || cuda::graph_root_nodes(graph(hGraph)),
        rootNodes,
        std::ptr::null_mut(),
        numRootNodes,
        "numRootNodes",
    )
}

/// `cuGraphNodeGetDependencies`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies(
    hNode: CUgraphNode,
    dependencies: *mut CUgraphNode,
    numDependencies: *mut usize,
) -> CUresult {
    list_query(
        || cuda::graph_node_dependencies(node(hNode)),
        dependencies,
        std::ptr::null_mut(),
        numDependencies,
        "numDependencies",
    )
}

/// `cuGraphNodeGetDependencies_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies_v2(
    hNode: CUgraphNode,
    dependencies: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependencies: *mut usize,
) -> CUresult {
    list_query(
        || cuda::graph_node_dependencies(node(hNode)),
        dependencies,
        edgeData,
        numDependencies,
        "numDependencies",
    )
}

/// `cuGraphNodeGetDependentNodes`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes(
    hNode: CUgraphNode,
    dependentNodes: *mut CUgraphNode,
    numDependentNodes: *mut usize,
) -> CUresult {
    list_query(
        || cuda::graph_node_dependents(node(hNode)),
        dependentNodes,
        std::ptr::null_mut(),
        numDependentNodes,
        "numDependentNodes",
    )
}

/// `cuGraphNodeGetDependentNodes_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes_v2(
    hNode: CUgraphNode,
    dependentNodes: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependentNodes: *mut usize,
) -> CUresult {
    list_query(
        || cuda::graph_node_dependents(node(hNode)),
        dependentNodes,
        edgeData,
        numDependentNodes,
        "numDependentNodes",
    )
}

/// `cuGraphNodeGetType`: a `CUgraphNodeType`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetType(hNode: CUgraphNode, type_: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(type_, "type")?;
        put(type_, cuda::graph_node_type(node(hNode))? as c_int);
        Ok(())
    })
}

/// `cuGraphDestroyNode`: the node and its edges.
#[no_mangle]
pub extern "C" fn cuGraphDestroyNode(hNode: CUgraphNode) -> CUresult {
    guard(|| cuda::graph_destroy_node(node(hNode)))
}

/// `cuGraphClone`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphClone(
    phGraphClone: *mut CUgraph,
    originalGraph: CUgraph,
) -> CUresult {
    guard(|| {
        out_ptr(phGraphClone, "phGraphClone")?;
        put(
            phGraphClone,
            cuda::graph_clone(graph(originalGraph))? as CUgraph,
        );
        Ok(())
    })
}

/// `cuGraphNodeFindInClone`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeFindInClone(
    phNode: *mut CUgraphNode,
    hOriginalNode: CUgraphNode,
    hClonedGraph: CUgraph,
) -> CUresult {
    guard(|| {
        out_ptr(phNode, "phNode")?;
        let n = cuda::graph_node_find_in_clone(node(hOriginalNode), graph(hClonedGraph))?;
        put(phNode, n as CUgraphNode);
        Ok(())
    })
}

// ---- executable graph update -----------------------------------------------------------------

/// `CU_GRAPH_EXEC_UPDATE_SUCCESS`.
const UPDATE_SUCCESS: c_int = 0;

fn exec_update(hGraphExec: CUgraphExec, hGraph: CUgraph) -> (CUresult, c_int, CUgraphNode) {
    match cuda::graph_exec_update(hGraphExec as u64, graph(hGraph)) {
        Ok(()) => (CUDA_SUCCESS, UPDATE_SUCCESS, std::ptr::null_mut()),
        Err((e, result, node)) => (e.code(), result as c_int, node as CUgraphNode),
    }
}

/// `cuGraphExecUpdate` (CUDA 10.2 form): see `cuGraphExecUpdate_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate(
    hGraphExec: CUgraphExec,
    hGraph: CUgraph,
    hErrorNode_out: *mut CUgraphNode,
    updateResult_out: *mut c_int,
) -> CUresult {
    let mut out = (CUDA_SUCCESS, UPDATE_SUCCESS, std::ptr::null_mut());
    let code = guard(|| {
        out_ptr(hErrorNode_out, "hErrorNode_out")?;
        out_ptr(updateResult_out, "updateResult_out")?;
        out = exec_update(hGraphExec, hGraph);
        put(hErrorNode_out, out.2);
        put(updateResult_out, out.1);
        Ok(())
    });
    if code == CUDA_SUCCESS {
        out.0
    } else {
        code
    }
}

/// `cuGraphExecUpdate_v2`: the executable graph takes the graph's node parameters when both
/// have the same nodes, kinds and edges; otherwise `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` with
/// the reason in `resultInfo`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate_v2(
    hGraphExec: CUgraphExec,
    hGraph: CUgraph,
    resultInfo: *mut CUgraphExecUpdateResultInfo,
) -> CUresult {
    let mut out = (CUDA_SUCCESS, UPDATE_SUCCESS, std::ptr::null_mut());
    let code = guard(|| {
        out_ptr(resultInfo, "resultInfo")?;
        out = exec_update(hGraphExec, hGraph);
        put(
            resultInfo,
            CUgraphExecUpdateResultInfo {
                result: out.1,
                errorNode: out.2,
                errorFromNode: std::ptr::null_mut(),
            },
        );
        Ok(())
    });
    if code == CUDA_SUCCESS {
        out.0
    } else {
        code
    }
}

// ---- batch memory operation nodes -----------------------------------------------------------

/// `CUDA_BATCH_MEM_OP_NODE_PARAMS` (`_v1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_BATCH_MEM_OP_NODE_PARAMS {
    pub ctx: CUcontext,
    pub count: c_uint,
    pub paramArray: *mut CUstreamBatchMemOpParams,
    pub flags: c_uint,
}

/// A batch node's parameters: its own copy of the operations, which `GetParams` hands out (the
/// array stays where it is while the node keeps these parameters, as CUDA promises).
struct BatchKept {
    ctx: usize,
    flags: c_uint,
    ops: Box<[CUstreamBatchMemOpParams]>,
}

impl BatchKept {
    fn mem_ops(&self) -> Vec<MemOp> {
        self.ops.iter().map(crate::mem_op::read).collect()
    }
}

/// Reads a node's parameters: what the node keeps (the operations for the core, this copy for
/// `GetParams`) and the work (`CUDA_ERROR_INVALID_VALUE` for a NULL struct, or a NULL array with
/// a count; the operations are checked as `cuStreamBatchMemOp_v2` checks them).
unsafe fn batch_params(
    p: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
    what: &str,
    call: &'static str,
) -> Result<(Arc<BatchNodeParams>, impl FnOnce() -> Outcome), CuError> {
    // SAFETY: the caller's struct.
    let p = unsafe { read(p, what)? };
    if p.count > 0 && p.paramArray.is_null() {
        return Err(invalid(format!(
            "{call}: paramArray is NULL but count is {}",
            p.count
        )));
    }
    // SAFETY: non-NULL when counted; the caller provides `count` elements.
    let ops: Box<[CUstreamBatchMemOpParams]> = unsafe { elements(p.paramArray, p.count) }.into();
    let kept = BatchKept {
        ctx: p.ctx as usize,
        flags: p.flags,
        ops,
    };
    let (mem_ops, flags) = (kept.mem_ops(), p.flags);
    let params = Arc::new(BatchNodeParams {
        ops: mem_ops.clone(),
        face: Some(Arc::new(kept)),
    });
    Ok((params, move || {
        cuda::stream_batch_mem_op(StreamHandle::NULL, &mem_ops, flags, BatchAbi::V2, call)
    }))
}

/// `cuGraphAddBatchMemOpNode`: the operations run in their order at each launch; `ctx` is kept
/// for `cuGraphBatchMemOpNodeGetParams`, the work is the current context's.
///
/// # Safety
/// The words stay valid for every launch, as CUDA requires of graph memory.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddBatchMemOpNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        let call = "cuGraphAddBatchMemOpNode";
        // SAFETY: the caller's struct and array.
        let (kept, work) = unsafe { batch_params(nodeParams, "nodeParams", call)? };
        // SAFETY: forwarded.
        unsafe {
            add_node(
                phGraphNode,
                hGraph,
                dependencies,
                numDependencies,
                NodeKind::BatchMemOp,
                Some(kept),
                call,
                work,
            )
        }
    })
}

/// A batch node's parameters as the core keeps them.
fn batch_node_params(
    params: Option<NodeParams>,
    call: &str,
) -> Result<Arc<BatchNodeParams>, CuError> {
    params
        .and_then(|p| p.downcast::<BatchNodeParams>().ok())
        .ok_or_else(|| invalid(format!("{call}: the node holds no batch parameters")))
}

/// The copy this face kept of a batch node's parameters (none for a captured node).
fn batch_kept(params: Option<NodeParams>, call: &str) -> Result<Arc<BatchKept>, CuError> {
    match batch_node_params(params, call)?.face.clone() {
        None => Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: the parameters of a node made by stream capture are not kept"),
        )),
        Some(p) => p
            .downcast::<BatchKept>()
            .map_err(|_| invalid(format!("{call}: the node holds other parameters"))),
    }
}

/// `cuGraphBatchMemOpNodeGetParams`: `paramArray` is the node's own copy, valid until the node
/// is destroyed or its parameters are set.
#[no_mangle]
pub unsafe extern "C" fn cuGraphBatchMemOpNodeGetParams(
    hNode: CUgraphNode,
    nodeParams_out: *mut CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        out_ptr(nodeParams_out, "nodeParams_out")?;
        let call = "cuGraphBatchMemOpNodeGetParams";
        let k = batch_kept(node_params(hNode, NodeKind::BatchMemOp, call)?, call)?;
        put(
            nodeParams_out,
            CUDA_BATCH_MEM_OP_NODE_PARAMS {
                ctx: k.ctx as CUcontext,
                count: k.ops.len() as c_uint,
                paramArray: k.ops.as_ptr() as *mut CUstreamBatchMemOpParams,
                flags: k.flags,
            },
        );
        Ok(())
    })
}

/// `cuGraphBatchMemOpNodeSetParams`.
///
/// # Safety
/// As `cuGraphAddBatchMemOpNode`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphBatchMemOpNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        let call = "cuGraphBatchMemOpNodeSetParams";
        // SAFETY: the caller's struct and array.
        let (kept, work) = unsafe { batch_params(nodeParams, "nodeParams", call)? };
        cuda::graph_node_set_params(node(hNode), NodeKind::BatchMemOp, kept, call, work)
    })
}

/// `cuGraphExecBatchMemOpNodeSetParams`: later launches use the new operations, which must
/// keep the node's count, types and fixed flags (`aclrt::cuda::batch_mem_op_update_allowed`).
///
/// # Safety
/// As `cuGraphAddBatchMemOpNode`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecBatchMemOpNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    guard(|| {
        let call = "cuGraphExecBatchMemOpNodeSetParams";
        // SAFETY: the caller's struct and array.
        let (kept, work) = unsafe { batch_params(nodeParams, "nodeParams", call)? };
        let (have, old) = cuda::graph_exec_node_params(hGraphExec as u64, node(hNode), call)?;
        if have != NodeKind::BatchMemOp {
            return Err(invalid(format!(
                "{call}: the node is a {have:?} node, not a BatchMemOp node"
            )));
        }
        let old = batch_node_params(old, call)?;
        cuda::batch_mem_op_update_allowed(&old.ops, &kept.ops, call)?;
        cuda::graph_exec_node_set_params(
            hGraphExec as u64,
            node(hNode),
            NodeKind::BatchMemOp,
            kept,
            call,
            work,
        )
    })
}

// ---- user objects ---------------------------------------------------------------------------

/// `CUuserObject`: opaque.
pub type CUuserObject = *mut c_void;

/// `cuUserObjectCreate`: `destroy(ptr)` runs on a thread of its own once the last reference is
/// released.
///
/// # Safety
/// `destroy` may be called with `ptr` from another thread at any time after the last release;
/// it must not call the driver.
#[no_mangle]
pub unsafe extern "C" fn cuUserObjectCreate(
    object_out: *mut CUuserObject,
    ptr: *mut c_void,
    destroy: CUhostFn,
    initialRefcount: c_uint,
    flags: c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(object_out, "object_out")?;
        let f = destroy.ok_or_else(null_fn)?;
        let data = UserData(ptr);
        let h = cuda::user_object_create(
            Box::new(move || {
                let data = &data;
                // SAFETY: the caller's destructor with the caller's pointer, as CUDA calls it.
                unsafe { f(data.0) }
            }),
            initialRefcount,
            flags,
        )?;
        put(object_out, h as CUuserObject);
        Ok(())
    })
}

/// `cuUserObjectRetain`.
#[no_mangle]
pub extern "C" fn cuUserObjectRetain(object: CUuserObject, count: c_uint) -> CUresult {
    guard(|| cuda::user_object_retain(object as u64, count))
}

/// `cuUserObjectRelease`.
#[no_mangle]
pub extern "C" fn cuUserObjectRelease(object: CUuserObject, count: c_uint) -> CUresult {
    guard(|| cuda::user_object_release(object as u64, count))
}

/// `cuGraphRetainUserObject`.
#[no_mangle]
pub extern "C" fn cuGraphRetainUserObject(
    graph_: CUgraph,
    object: CUuserObject,
    count: c_uint,
    flags: c_uint,
) -> CUresult {
    guard(|| cuda::graph_retain_user_object(graph(graph_), object as u64, count, flags))
}

/// `cuGraphReleaseUserObject`.
#[no_mangle]
pub extern "C" fn cuGraphReleaseUserObject(
    graph_: CUgraph,
    object: CUuserObject,
    count: c_uint,
) -> CUresult {
    guard(|| cuda::graph_release_user_object(graph(graph_), object as u64, count))
}
