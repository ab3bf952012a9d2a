//! CUDA driver semantics over the same core: the `cu*` calls (as Rust functions returning
//! [`CuError`] with an exact `CUresult`) and the legacy default stream.
//!
//! CUDA contexts are made with the CUDA policy (`policy.rs`): the default stream is the
//! *legacy* stream, which synchronises with blocking streams (created without
//! `CU_STREAM_NON_BLOCKING`), and any task failure is sticky, as an unrecoverable device error
//! is on real hardware.

mod api;
mod capture;
pub mod codes;
mod context;
mod device;
mod mem_op;
mod mem_pool;
mod memory;
mod module;
mod state;
mod user_object;

pub use api::*;
pub use capture::{
    graph_add_child_node, graph_add_event_node, graph_add_node, graph_child_graph, graph_clone,
    graph_create, graph_destroy, graph_destroy_node, graph_dot, graph_edges,
    graph_edit_dependencies, graph_event_node_set_event, graph_exec_child_set, graph_exec_destroy,
    graph_exec_get_flags, graph_exec_node_params, graph_exec_node_set_params, graph_exec_update,
    graph_instantiate, graph_instantiate_with_result, graph_launch, graph_node_dependencies,
    graph_node_dependents, graph_node_find_in_clone, graph_node_get_enabled, graph_node_params,
    graph_node_set_enabled, graph_node_set_params, graph_node_type, graph_nodes, graph_root_nodes,
    graph_shape, graph_upload, stream_begin_capture, stream_capture_info, stream_end_capture,
    stream_update_capture_dependencies, thread_exchange_capture_mode, CaptureInfo, NodeKind,
    NodeParams, CUDA_GRAPH_INSTANTIATE_ERROR, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD,
    CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE,
    CU_STREAM_ADD_CAPTURE_DEPENDENCIES, CU_STREAM_CAPTURE_MODE_GLOBAL,
    CU_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    CU_STREAM_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
    CU_STREAM_CAPTURE_STATUS_NONE, CU_STREAM_SET_CAPTURE_DEPENDENCIES,
};
pub use codes::{CuError, CuResult, CuResultOf};
pub use context::*;
pub use device::*;
pub use mem_op::*;
pub use mem_pool::*;
pub use memory::*;
pub use module::*;
pub use user_object::{
    graph_release_user_object, graph_retain_user_object, user_object_create, user_object_release,
    user_object_retain, CU_GRAPH_USER_OBJECT_MOVE, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC,
};

use crate::handle::StreamHandle;

/// `CU_STREAM_DEFAULT`.
pub const CU_STREAM_DEFAULT: u32 = 0;
/// `CU_STREAM_NON_BLOCKING`: no implicit synchronisation with the legacy stream.
pub const CU_STREAM_NON_BLOCKING: u32 = 1;

/// `CU_EVENT_DEFAULT`.
pub const CU_EVENT_DEFAULT: u32 = 0;
/// `CU_EVENT_BLOCKING_SYNC`: synchronise sleeps instead of spinning.
pub const CU_EVENT_BLOCKING_SYNC: u32 = 0x1;
/// `CU_EVENT_DISABLE_TIMING`: no timestamps (elapsed time refuses the event).
pub const CU_EVENT_DISABLE_TIMING: u32 = 0x2;
/// `CU_EVENT_INTERPROCESS`: only together with `CU_EVENT_DISABLE_TIMING`.
pub const CU_EVENT_INTERPROCESS: u32 = 0x4;
/// `CU_EVENT_RECORD_DEFAULT`.
pub const CU_EVENT_RECORD_DEFAULT: u32 = 0;
/// `CU_EVENT_RECORD_EXTERNAL`: valid only while the stream is being captured (an event record
/// node).
pub const CU_EVENT_RECORD_EXTERNAL: u32 = 0x1;
/// `CU_EVENT_WAIT_DEFAULT`.
pub const CU_EVENT_WAIT_DEFAULT: u32 = 0;
/// `CU_EVENT_WAIT_EXTERNAL`: valid only while the stream is being captured.
pub const CU_EVENT_WAIT_EXTERNAL: u32 = 0x1;

/// `CU_STREAM_LEGACY`: the legacy default stream of the current context (as NULL).
pub const CU_STREAM_LEGACY: StreamHandle = StreamHandle::from_raw(0x1);
/// `CU_STREAM_PER_THREAD`: the calling thread's own stream in the current context; it
/// synchronises with the legacy stream only.
pub const CU_STREAM_PER_THREAD: StreamHandle = StreamHandle::from_raw(0x2);
