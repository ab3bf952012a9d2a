//! Exception handling beside `aclrtSetExceptionInfoCallback`: process-level exception
//! callbacks, detailed error information, and the host-function subscriptions of chapter 12.

use crate::codes::*;
use crate::error::{bail, Result};
use crate::exception::ExceptionCallback;
use crate::exec::Channel;
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::vendor_consts as vc;

/// What `aclrtGetErrorVerbose` reports (`aclrtErrorInfo` without its detail: the emulated
/// device has no detail to give, so `hasDetail` is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorVerbose {
    /// `tryRepair`: 0, nothing on an emulated device can be repaired.
    pub try_repair: u8,
    /// `aclrtErrorType`: `ACL_RT_NO_ERROR` until a task of the device fails, then
    /// `ACL_RT_ERROR_OTHERS` (the emulated memory has no uncorrectable errors).
    pub error_type: u32,
}

impl Runtime {
    /// `aclrtGetThreadLastTaskId`: the id of the last task the calling thread queued, on any
    /// stream (the id exception information and failures name); 0 before its first.
    pub fn get_thread_last_task_id(&self) -> Result<u32> {
        Ok(crate::thread_state::last_task_id())
    }

    /// `aclrtExceptionInfoCallbackRegister`: adds a process-level exception callback under
    /// `key` (the C face uses the function's address); registering a key again keeps only the
    /// latest callback. Callbacks registered here and the one set by
    /// `aclrtSetExceptionInfoCallback` are all told about each failed task, that one first.
    pub fn exception_info_callback_register(
        &self,
        key: usize,
        callback: ExceptionCallback,
    ) -> Result<()> {
        self.exceptions.register(key, callback);
        Ok(())
    }

    /// `aclrtExceptionInfoCallbackUnregister`: removes the callback registered under `key`;
    /// an unknown key is not an error. A callback already being told about a failure finishes.
    pub fn exception_info_callback_unregister(&self, key: usize) -> Result<()> {
        self.exceptions.unregister(key);
        Ok(())
    }

    /// `aclrtGetErrorVerbose` (see [`ErrorVerbose`]).
    pub fn get_error_verbose(&self, device_id: i32) -> Result<ErrorVerbose> {
        self.device_checked(device_id)?;
        let error_type = if self.exceptions.device_failed(device_id) {
            vc::ACL_RT_ERROR_OTHERS
        } else {
            vc::ACL_RT_NO_ERROR
        };
        Ok(ErrorVerbose {
            try_repair: 0,
            error_type: error_type as u32,
        })
    }

    /// `aclrtSubscribeHostFunc`: the thread `thread_id` (a `pthread_self()` value) runs the
    /// stream's host functions (`aclrtLaunchHostFunc`) in `aclrtProcessHostFunc`. It is a
    /// subscription of its own beside `aclrtSubscribeReport`'s (a stream may have one thread
    /// for each, as the vendor's callback sample has). The stream must not be NULL (`100000`).
    pub fn subscribe_host_func(&self, thread_id: u64, stream: StreamHandle) -> Result<()> {
        refuse_null_stream(stream, "aclrtSubscribeHostFunc")?;
        self.subscribe(Channel::HostFunc, thread_id, stream)
    }

    /// `aclrtProcessHostFunc`: waits up to `timeout_ms` (-1 forever) for due host functions
    /// of the calling thread's streams and runs them here.
    pub fn process_host_func(&self, timeout_ms: i32) -> Result<()> {
        self.process(Channel::HostFunc, timeout_ms, "aclrtProcessHostFunc")
    }

    /// `aclrtUnSubscribeHostFunc`: as `aclrtUnSubscribeReport`; the stream must not be NULL.
    pub fn unsubscribe_host_func(&self, thread_id: u64, stream: StreamHandle) -> Result<()> {
        refuse_null_stream(stream, "aclrtUnSubscribeHostFunc")?;
        self.unsubscribe(Channel::HostFunc, thread_id, stream)
    }
}

fn refuse_null_stream(stream: StreamHandle, call: &str) -> Result<()> {
    if stream.is_null() {
        bail!(ACL_ERROR_INVALID_PARAM, "{call}: the stream is NULL");
    }
    Ok(())
}
