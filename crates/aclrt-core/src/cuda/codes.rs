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
    CUDA_ERROR_NO_DEVICE = 100 => "no CUDA-capable device is detected",
    CUDA_ERROR_INVALID_DEVICE = 101 => "invalid device ordinal",
    CUDA_ERROR_INVALID_CONTEXT = 201 => "invalid device context",
    CUDA_ERROR_INVALID_HANDLE = 400 => "invalid resource handle",
    CUDA_ERROR_NOT_READY = 600 => "device not ready",
    CUDA_ERROR_ILLEGAL_ADDRESS = 700 => "an illegal memory access was encountered",
    CUDA_ERROR_LAUNCH_FAILED = 719 => "unspecified launch failure",
    CUDA_ERROR_NOT_PERMITTED = 800 => "operation not permitted",
    CUDA_ERROR_NOT_SUPPORTED = 801 => "operation not supported",
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
