//! The generic node calls (`cuGraphAddNode`, `cuGraphAddNode_v2`, `cuGraphNodeSetParams`,
//! `cuGraphExecNodeSetParams`): a `CUgraphNodeParams` names the node type and holds that
//! type's parameters; each call is the typed call of that node type (`cuGraphAddMemsetNode`,
//! `cuGraphExecHostNodeSetParams` …) with the same parameters, so it checks and does exactly
//! what that call does. Types with no typed call here (external semaphores, memory allocation
//! and free, conditional nodes) are `CUDA_ERROR_NOT_SUPPORTED`, as their typed calls are; child
//! graphs moved into their node (`CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE`) too, since a child
//! graph node here always holds a copy. Setting the parameters of a graph's child graph node
//! (CUDA has no typed call for it) is `CUDA_ERROR_NOT_SUPPORTED`; an empty node has none to set.

use std::ffi::{c_int, c_uint, c_void};

use aclrt::cuda::{codes::*, CuError};

use crate::graph::*;
use crate::stream::{CUgraph, CUgraphExec, CUgraphNode};
use crate::{guard, CUcontext, CUdeviceptr, CUevent, CUhostFn, CUresult};

/// `CUDA_MEMCPY_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMCPY_NODE_PARAMS {
    pub flags: c_int,
    pub reserved: c_int,
    pub copyCtx: CUcontext,
    pub copyParams: CUDA_MEMCPY3D,
}

/// `CUDA_MEMSET_NODE_PARAMS_v2`: the first version and a context.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_MEMSET_NODE_PARAMS_v2 {
    pub dst: CUdeviceptr,
    pub pitch: usize,
    pub value: c_uint,
    pub elementSize: c_uint,
    pub width: usize,
    pub height: usize,
    pub ctx: CUcontext,
}

/// `CUDA_HOST_NODE_PARAMS_v2`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_HOST_NODE_PARAMS_v2 {
    pub fn_: CUhostFn,
    pub userData: *mut c_void,
}

/// `CUDA_CHILD_GRAPH_NODE_PARAMS` (CUDA 12.9: with the ownership).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_CHILD_GRAPH_NODE_PARAMS {
    pub graph: CUgraph,
    pub ownership: c_int,
}

/// `CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE`: the node holds a copy of the graph.
pub const CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE: c_int = 0;

/// The union of `CUgraphNodeParams`, by the members read here.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUgraphNodeParamsUnion {
    pub reserved1: [i64; 29],
    pub kernel: CUDA_KERNEL_NODE_PARAMS_v2,
    pub memcpy: CUDA_MEMCPY_NODE_PARAMS,
    pub memset: CUDA_MEMSET_NODE_PARAMS_v2,
    pub host: CUDA_HOST_NODE_PARAMS_v2,
    pub graph: CUDA_CHILD_GRAPH_NODE_PARAMS,
    pub event: CUevent,
    pub memOp: CUDA_BATCH_MEM_OP_NODE_PARAMS,
}

/// `CUgraphNodeParams`: 256 bytes, the type first.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUgraphNodeParams {
    pub type_: c_int,
    pub reserved0: [c_int; 3],
    pub params: CUgraphNodeParamsUnion,
    pub reserved2: i64,
}

const _: () = assert!(std::mem::size_of::<CUgraphNodeParams>() == 256);

/// `CUgraphNodeType` values.
const KERNEL: c_int = 0;
const MEMCPY: c_int = 1;
const MEMSET: c_int = 2;
const HOST: c_int = 3;
const GRAPH: c_int = 4;
const EMPTY: c_int = 5;
const WAIT_EVENT: c_int = 6;
const EVENT_RECORD: c_int = 7;
const BATCH_MEM_OP: c_int = 12;
/// External semaphores (8, 9), memory allocation and free (10, 11), conditional (13).
const NOT_HERE: [c_int; 5] = [8, 9, 10, 11, 13];

/// The caller's parameters, after the checks every form makes: initialised, non-NULL, a known
/// type this library has nodes of (and for a copy, `flags` and `reserved` 0).
unsafe fn read(p: *const CUgraphNodeParams, call: &str) -> Result<CUgraphNodeParams, CUresult> {
    let mut out = None;
    let code = guard(|| {
        aclrt::cuda::ensure_initialized()?;
        if p.is_null() {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: nodeParams is NULL"),
            ));
        }
        // SAFETY: non-NULL: the caller's struct.
        let params = unsafe { p.read() };
        match params.type_ {
            KERNEL | MEMCPY | MEMSET | HOST | GRAPH | EMPTY | WAIT_EVENT | EVENT_RECORD
            | BATCH_MEM_OP => {}
            t if NOT_HERE.contains(&t) => {
                return Err(CuError::new(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                        "{call}: graph nodes of type {t} are not supported by the emulated device"
                    ),
                ))
            }
            t => {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: {t} is not a CUgraphNodeType"),
                ))
            }
        }
        if params.type_ == GRAPH {
            // SAFETY: the member the type names.
            let ownership = unsafe { params.params.graph.ownership };
            if ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE {
                return Err(CuError::new(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!("{call}: a child graph node holds a copy of its graph here (ownership {ownership} is not CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)"),
                ));
            }
        }
        if params.type_ == MEMCPY {
            // SAFETY: the member the type names.
            let (flags, reserved) =
                unsafe { (params.params.memcpy.flags, params.params.memcpy.reserved) };
            if flags != 0 || reserved != 0 {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: CUDA_MEMCPY_NODE_PARAMS flags ({flags:#x}) and reserved ({reserved:#x}) must be 0"),
                ));
            }
        }
        out = Some(params);
        Ok(())
    });
    out.ok_or(code)
}

fn not_settable(call: &str, what: &str) -> CUresult {
    guard(|| {
        Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: {what}"),
        ))
    })
}

/// `cuGraphAddNode`: the typed add call of `nodeParams->type`.
///
/// # Safety
/// As the typed call.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    // SAFETY: the caller's struct.
    let p = match unsafe { read(nodeParams, "cuGraphAddNode") } {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (ph, g, deps, n) = (phGraphNode, hGraph, dependencies, numDependencies);
    // SAFETY: the member the type names, passed to that type's call with the caller's
    // arguments.
    unsafe {
        let u = &p.params;
        match p.type_ {
            KERNEL => cuGraphAddKernelNode_v2(ph, g, deps, n, &u.kernel),
            MEMCPY => cuGraphAddMemcpyNode(ph, g, deps, n, &u.memcpy.copyParams, u.memcpy.copyCtx),
            MEMSET => {
                let (v1, ctx) = memset_v1(&u.memset);
                cuGraphAddMemsetNode(ph, g, deps, n, &v1, ctx)
            }
            HOST => cuGraphAddHostNode(ph, g, deps, n, &host_v1(&u.host)),
            GRAPH => cuGraphAddChildGraphNode(ph, g, deps, n, u.graph.graph),
            EMPTY => cuGraphAddEmptyNode(ph, g, deps, n),
            WAIT_EVENT => cuGraphAddEventWaitNode(ph, g, deps, n, u.event),
            EVENT_RECORD => cuGraphAddEventRecordNode(ph, g, deps, n, u.event),
            _ => cuGraphAddBatchMemOpNode(ph, g, deps, n, &u.memOp),
        }
    }
}

/// `cuGraphAddNode_v2`: `cuGraphAddNode` with edge data (default edges only).
///
/// # Safety
/// As `cuGraphAddNode`; `dependencyData` is NULL or has `numDependencies` entries.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode_v2(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    // SAFETY: forwarded; the caller provides the entries.
    let edges = guard(|| unsafe { default_edges(dependencyData, numDependencies) });
    if edges != CUDA_SUCCESS {
        return edges;
    }
    // SAFETY: forwarded.
    unsafe {
        cuGraphAddNode(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            nodeParams,
        )
    }
}

/// `cuGraphNodeSetParams`: the typed set call of `nodeParams->type` (the node must be of that
/// type).
///
/// # Safety
/// As the typed call.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeSetParams(
    hNode: CUgraphNode,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    const CALL: &str = "cuGraphNodeSetParams";
    // SAFETY: the caller's struct.
    let p = match unsafe { read(nodeParams, CALL) } {
        Ok(p) => p,
        Err(code) => return code,
    };
    // SAFETY: as in `cuGraphAddNode`.
    unsafe {
        let u = &p.params;
        match p.type_ {
            KERNEL => cuGraphKernelNodeSetParams_v2(hNode, &u.kernel),
            MEMCPY => cuGraphMemcpyNodeSetParams(hNode, &u.memcpy.copyParams),
            MEMSET => cuGraphMemsetNodeSetParams(hNode, &memset_v1(&u.memset).0),
            HOST => cuGraphHostNodeSetParams(hNode, &host_v1(&u.host)),
            GRAPH => not_settable(
                CALL,
                "a graph's child graph node keeps the graph it was given",
            ),
            EMPTY => empty_node(hNode, CALL),
            WAIT_EVENT => cuGraphEventWaitNodeSetEvent(hNode, u.event),
            EVENT_RECORD => cuGraphEventRecordNodeSetEvent(hNode, u.event),
            _ => cuGraphBatchMemOpNodeSetParams(hNode, &u.memOp),
        }
    }
}

/// `cuGraphExecNodeSetParams`: the typed executable-graph set call of `nodeParams->type`.
///
/// # Safety
/// As the typed call.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    const CALL: &str = "cuGraphExecNodeSetParams";
    // SAFETY: the caller's struct.
    let p = match unsafe { read(nodeParams, CALL) } {
        Ok(p) => p,
        Err(code) => return code,
    };
    let x = hGraphExec;
    // SAFETY: as in `cuGraphAddNode`.
    unsafe {
        let u = &p.params;
        match p.type_ {
            KERNEL => cuGraphExecKernelNodeSetParams_v2(x, hNode, &u.kernel),
            MEMCPY => {
                cuGraphExecMemcpyNodeSetParams(x, hNode, &u.memcpy.copyParams, u.memcpy.copyCtx)
            }
            MEMSET => {
                let (v1, ctx) = memset_v1(&u.memset);
                cuGraphExecMemsetNodeSetParams(x, hNode, &v1, ctx)
            }
            HOST => cuGraphExecHostNodeSetParams(x, hNode, &host_v1(&u.host)),
            GRAPH => cuGraphExecChildGraphNodeSetParams(x, hNode, u.graph.graph),
            EMPTY => empty_exec_node(x, hNode, CALL),
            WAIT_EVENT => cuGraphExecEventWaitNodeSetEvent(x, hNode, u.event),
            EVENT_RECORD => cuGraphExecEventRecordNodeSetEvent(x, hNode, u.event),
            _ => cuGraphExecBatchMemOpNodeSetParams(x, hNode, &u.memOp),
        }
    }
}

fn memset_v1(p: &CUDA_MEMSET_NODE_PARAMS_v2) -> (CUDA_MEMSET_NODE_PARAMS, CUcontext) {
    (
        CUDA_MEMSET_NODE_PARAMS {
            dst: p.dst,
            pitch: p.pitch,
            value: p.value,
            elementSize: p.elementSize,
            width: p.width,
            height: p.height,
        },
        p.ctx,
    )
}

fn host_v1(p: &CUDA_HOST_NODE_PARAMS_v2) -> CUDA_HOST_NODE_PARAMS {
    CUDA_HOST_NODE_PARAMS {
        fn_: p.fn_,
        userData: p.userData,
    }
}

/// Setting an empty node's (absent) parameters: the node must be an empty node.
fn empty_node(hNode: CUgraphNode, call: &str) -> CUresult {
    guard(|| empty_kind(aclrt::cuda::graph_node_type(hNode as u64)?, call))
}

/// [`empty_node`] for an executable graph's node: the executable graph and its node are
/// looked up first, as every other type's call does.
fn empty_exec_node(hGraphExec: CUgraphExec, hNode: CUgraphNode, call: &str) -> CUresult {
    guard(|| {
        let (kind, _) = aclrt::cuda::graph_exec_node_params(hGraphExec as u64, hNode as u64, call)?;
        empty_kind(kind, call)
    })
}

fn empty_kind(kind: aclrt::cuda::NodeKind, call: &str) -> Result<(), CuError> {
    if kind != aclrt::cuda::NodeKind::Empty {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: the node is a {kind:?} node, not an empty node"),
        ));
    }
    Ok(())
}
