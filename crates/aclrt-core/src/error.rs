//! Errors: an `aclError` code plus the message `aclGetRecentErrMsg` returns.

use crate::codes;

/// The ACL error type: `int` in C.
pub type AclError = i32;

/// A failed call: the exact `aclError` code and a message for humans.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} [{}={code}]", codes::name_of(*.code).unwrap_or("unknown code"))]
pub struct Error {
    code: AclError,
    message: String,
}

impl Error {
    /// An error with `code` and a message.
    pub fn new(code: AclError, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The `aclError` value.
    pub fn code(&self) -> AclError {
        self.code
    }

    /// The human-readable message (without the code).
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Result of every runtime call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns early with an [`Error`] built from a code and a `format!` message.
macro_rules! bail {
    ($code:expr, $($arg:tt)*) => {
        return Err($crate::error::Error::new($code, format!($($arg)*)))
    };
}
pub(crate) use bail;

/// Shorthand for an `Err` value.
pub(crate) fn err<T>(code: AclError, message: impl Into<String>) -> Result<T> {
    Err(Error::new(code, message))
}

/// A failed task, as reported to synchronise calls and the exception callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The `aclError` the task failed with.
    pub code: AclError,
    /// What went wrong.
    pub message: String,
    /// Task id within its stream.
    pub task_id: u64,
    /// Stream id.
    pub stream_id: u32,
    /// Logical device id.
    pub device_id: i32,
    /// OS thread id of the thread that submitted the task.
    pub thread_id: u32,
    /// The kernel, for a task launched through the kernel API that failed.
    pub kernel: Option<crate::kernel::FailedKernel>,
}
