//! `CUresult` values, their names and descriptions, and the translation of core errors.

use crate::codes::*;
use crate::error::Error;

/// `CUresult`: an `enum` (so `int`-sized) in C.
pub type CuResult = u32;

macro_rules! cu_codes {
    ($($name:ident = $value:expr => $text:expr,)*) => {
        $(
            #[doc = $text]
            pub const $name: CuResult = $value;
        )*

        /// Every `CUresult` this runtime knows: value, name (`cuGetErrorName`) and description
        /// (`cuGetErrorString`).
        pub const ALL: &[(CuResult, &str, &str)] = &[$(($value, stringify!($name), $text),)*];
    };
}

cu_codes! {
    CUDA_SUCCESS = 0 => "no error",
    CUDA_ERROR_INVALID_VALUE = 1 => "invalid argument",
    CUDA_ERROR_OUT_OF_MEMORY = 2 => "out of memory",
    CUDA_ERROR_NOT_INITIALIZED = 3 => "initialization error: cuInit has not been called",
    CUDA_ERROR_DEINITIALIZED = 4 => "driver shutting down: the runtime was finalized",
    CUDA_ERROR_PROFILER_DISABLED = 5 => "profiler disabled for this run",
    CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6 => "profiler not initialized",
    CUDA_ERROR_PROFILER_ALREADY_STARTED = 7 => "profiler already started",
    CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8 => "profiler already stopped",
    CUDA_ERROR_STUB_LIBRARY = 34 => "a stub driver library was loaded instead of a driver",
    CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36 => "the call needs a newer driver",
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46 => "the device is unavailable",
    CUDA_ERROR_NO_DEVICE = 100 => "no CUDA-capable device is detected",
    CUDA_ERROR_INVALID_DEVICE = 101 => "invalid device ordinal",
    CUDA_ERROR_DEVICE_NOT_LICENSED = 102 => "device not licensed for this use",
    CUDA_ERROR_INVALID_IMAGE = 200 => "the module image is not valid",
    CUDA_ERROR_INVALID_CONTEXT = 201 => "invalid device context",
    CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202 => "the context is already current",
    CUDA_ERROR_MAP_FAILED = 205 => "mapping failed",
    CUDA_ERROR_UNMAP_FAILED = 206 => "unmapping failed",
    CUDA_ERROR_ARRAY_IS_MAPPED = 207 => "the array is mapped",
    CUDA_ERROR_ALREADY_MAPPED = 208 => "the resource is already mapped",
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209 => "no kernel image for the device",
    CUDA_ERROR_ALREADY_ACQUIRED = 210 => "the resource was already acquired",
    CUDA_ERROR_NOT_MAPPED = 211 => "the resource is not mapped",
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212 => "the resource is not mapped as an array",
    CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213 => "the resource is not mapped as a pointer",
    CUDA_ERROR_ECC_UNCORRECTABLE = 214 => "uncorrectable ECC error",
    CUDA_ERROR_UNSUPPORTED_LIMIT = 215 => "limit not supported by the device",
    CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216 => "the context is already in use by another thread",
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217 => "peer access is not supported between these devices",
    CUDA_ERROR_INVALID_PTX = 218 => "PTX compilation failed",
    CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219 => "invalid graphics context",
    CUDA_ERROR_NVLINK_UNCORRECTABLE = 220 => "uncorrectable NVLink error",
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221 => "the PTX JIT compiler library was not found",
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222 => "unsupported PTX version",
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223 => "PTX JIT compilation is disabled",
    CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224 => "execution affinity not supported",
    CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225 => "device-side synchronization not supported",
    CUDA_ERROR_CONTAINED = 226 => "a contained error stopped the work",
    CUDA_ERROR_INVALID_SOURCE = 300 => "invalid source",
    CUDA_ERROR_FILE_NOT_FOUND = 301 => "file not found",
    CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302 => "a shared object symbol was not resolved",
    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303 => "shared object initialization failed",
    CUDA_ERROR_OPERATING_SYSTEM = 304 => "an operating system call failed",
    CUDA_ERROR_INVALID_HANDLE = 400 => "invalid resource handle",
    CUDA_ERROR_ILLEGAL_STATE = 401 => "the operation is not valid in the resource's current state",
    CUDA_ERROR_LOSSY_QUERY = 402 => "the query cannot be answered without loss",
    CUDA_ERROR_NOT_FOUND = 500 => "named symbol not found",
    CUDA_ERROR_NOT_READY = 600 => "device not ready",
    CUDA_ERROR_ILLEGAL_ADDRESS = 700 => "an illegal memory access was encountered",
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701 => "too many resources requested for launch",
    CUDA_ERROR_LAUNCH_TIMEOUT = 702 => "the launch timed out and was terminated",
    CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703 => "launch with incompatible texturing",
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704 => "peer access is already enabled",
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705 => "peer access has not been enabled",
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708 => "the primary context is active",
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709 => "the context has been destroyed",
    CUDA_ERROR_ASSERT = 710 => "device-side assert triggered",
    CUDA_ERROR_TOO_MANY_PEERS = 711 => "too many peers",
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712 => "the host memory is already registered",
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713 => "the host memory is not registered",
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714 => "hardware stack error",
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715 => "an illegal instruction was encountered",
    CUDA_ERROR_MISALIGNED_ADDRESS = 716 => "misaligned address",
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717 => "operation not supported on the address space",
    CUDA_ERROR_INVALID_PC = 718 => "invalid program counter",
    CUDA_ERROR_LAUNCH_FAILED = 719 => "unspecified launch failure",
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720 => "too many blocks in a cooperative launch",
    CUDA_ERROR_TENSOR_MEMORY_LEAK = 721 => "tensor memory was not freed",
    CUDA_ERROR_NOT_PERMITTED = 800 => "operation not permitted",
    CUDA_ERROR_NOT_SUPPORTED = 801 => "operation not supported",
    CUDA_ERROR_SYSTEM_NOT_READY = 802 => "the system is not ready",
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803 => "driver and kernel module versions differ",
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804 => "forward compatibility is not supported on the device",
    CUDA_ERROR_MPS_CONNECTION_FAILED = 805 => "MPS client failed to connect",
    CUDA_ERROR_MPS_RPC_FAILURE = 806 => "MPS remote procedure call failed",
    CUDA_ERROR_MPS_SERVER_NOT_READY = 807 => "MPS server not ready",
    CUDA_ERROR_MPS_MAX_CLIENTS_REACHED = 808 => "MPS client limit reached",
    CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED = 809 => "MPS connection limit reached",
    CUDA_ERROR_MPS_CLIENT_TERMINATED = 810 => "the MPS client was terminated",
    CUDA_ERROR_CDP_NOT_SUPPORTED = 811 => "dynamic parallelism is not supported",
    CUDA_ERROR_CDP_VERSION_MISMATCH = 812 => "dynamic parallelism version mismatch",
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900 => "operation not permitted while the stream is capturing",
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901 => "the stream capture was invalidated",
    CUDA_ERROR_STREAM_CAPTURE_MERGE = 902 => "stream captures cannot be merged",
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903 => "the capture was not begun on this stream",
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904 => "the capture forked but did not join",
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905 => "a dependency would cross the capture boundary",
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906 => "implicit dependency on a capturing stream",
    CUDA_ERROR_CAPTURED_EVENT = 907 => "operation not permitted on an event last recorded in a capture",
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908 => "the capture was begun on another thread",
    CUDA_ERROR_TIMEOUT = 909 => "the wait timed out",
    CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910 => "the graph update was not performed",
    CUDA_ERROR_EXTERNAL_DEVICE = 911 => "an external device reported an error",
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912 => "invalid cluster size",
    CUDA_ERROR_FUNCTION_NOT_LOADED = 913 => "the function is not loaded",
    CUDA_ERROR_INVALID_RESOURCE_TYPE = 914 => "invalid resource type",
    CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915 => "invalid resource configuration",
    CUDA_ERROR_KEY_ROTATION = 916 => "an error occurred during key rotation",
    CUDA_ERROR_STREAM_DETACHED = 917 => "the stream is detached",
    CUDA_ERROR_GRAPH_RECAPTURE_FAILURE = 918 => "graph recapture failed",
    CUDA_ERROR_UNKNOWN = 999 => "unknown error",
}

/// `cuGetErrorName`: `None` for a value that is not a `CUresult`.
pub fn name_of(code: CuResult) -> Option<&'static str> {
    ALL.iter().find(|(v, _, _)| *v == code).map(|(_, n, _)| *n)
}

/// `cuGetErrorString`: `None` for a value that is not a `CUresult`.
pub fn description_of(code: CuResult) -> Option<&'static str> {
    ALL.iter().find(|(v, _, _)| *v == code).map(|(_, _, d)| *d)
}

/// A failed CUDA call: the exact `CUresult` and a message for humans.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} [{}={code}]", name_of(*.code).unwrap_or("unknown CUresult"))]
pub struct CuError {
    code: CuResult,
    message: String,
}

impl CuError {
    /// An error with `code` and a message.
    pub fn new(code: CuResult, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The `CUresult` value (never `CUDA_SUCCESS`).
    pub fn code(&self) -> CuResult {
        self.code
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<Error> for CuError {
    fn from(e: Error) -> Self {
        CuError::new(from_acl(e.code()), e.message())
    }
}

/// Result of every CUDA call.
pub type CuResultOf<T> = std::result::Result<T, CuError>;

/// The one translation from `aclError` (what the shared machinery reports) to `CUresult`.
///
/// Task failures are `aclError`s too: a failing CUDA host kernel is recorded as
/// `ACL_ERROR_RT_AICORE_EXCEPTION` (launch failure) or `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION`
/// (illegal address), see [`to_acl_task_code`], so it maps back to the code the kernel gave.
pub fn from_acl(code: i32) -> CuResult {
    match code {
        ACL_SUCCESS => CUDA_SUCCESS,
        ACL_ERROR_UNINITIALIZE => {
            if super::api::was_initialized() {
                CUDA_ERROR_DEINITIALIZED
            } else {
                CUDA_ERROR_NOT_INITIALIZED
            }
        }
        ACL_ERROR_INVALID_PARAM | ACL_ERROR_RT_PARAM_INVALID | ACL_ERROR_RT_MEMORY_FREE => {
            CUDA_ERROR_INVALID_VALUE
        }
        ACL_ERROR_RT_INVALID_DEVICEID => CUDA_ERROR_INVALID_DEVICE,
        ACL_ERROR_RT_CONTEXT_NULL | ACL_ERROR_RT_STREAM_CONTEXT => CUDA_ERROR_INVALID_CONTEXT,
        ACL_ERROR_RT_INVALID_HANDLE | ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID => {
            CUDA_ERROR_INVALID_HANDLE
        }
        ACL_ERROR_BAD_ALLOC
        | ACL_ERROR_RT_MEMORY_ALLOCATION
        | ACL_ERROR_RT_DEVICE_OOM
        | ACL_ERROR_RT_NO_EVENT_RESOURCE
        | ACL_ERROR_RT_NO_STREAM_RESOURCE => CUDA_ERROR_OUT_OF_MEMORY,
        ACL_ERROR_RT_NO_DEVICE => CUDA_ERROR_NO_DEVICE,
        ACL_ERROR_API_NOT_SUPPORT | ACL_ERROR_RT_FEATURE_NOT_SUPPORT => CUDA_ERROR_NOT_SUPPORTED,
        ACL_ERROR_RT_STREAM_NOT_COMPLETE | ACL_ERROR_RT_EVENT_NOT_COMPLETE => CUDA_ERROR_NOT_READY,
        ACL_ERROR_RT_AICORE_TRAP_EXCEPTION => CUDA_ERROR_ILLEGAL_ADDRESS,
        // A stopped context refuses new work with STREAM_ABORT; in CUDA terms that is the
        // sticky launch failure that stopped it.
        ACL_ERROR_RT_AICORE_EXCEPTION
        | ACL_ERROR_RT_AICORE_TIMEOUT
        | ACL_ERROR_RT_STREAM_ABORT
        | ACL_ERROR_RT_DEVICE_TASK_ABORT => CUDA_ERROR_LAUNCH_FAILED,
        _ => CUDA_ERROR_UNKNOWN,
    }
}

/// The `aclError` a task failure is recorded with when a CUDA host kernel returns `code`.
pub fn to_acl_task_code(code: CuResult) -> i32 {
    match code {
        CUDA_ERROR_ILLEGAL_ADDRESS => ACL_ERROR_RT_AICORE_TRAP_EXCEPTION,
        _ => ACL_ERROR_RT_AICORE_EXCEPTION,
    }
}
