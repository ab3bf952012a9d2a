//! The exception callback (`aclrtSetExceptionInfoCallback`) and what it is told.

use std::sync::{Arc, RwLock};

use crate::error::{AclError, Failure};

/// What the vendor's exception-info getters return for a NULL or stale info
/// (`0xFFFFFFFF`), and `aclrtGetArgsFromExceptionInfo` for the info of a task that was not a
/// kernel.
pub const ACL_ERROR_INVALID_EXCEPTION_INFO: AclError = -1;

/// What the exception callback learns about a failed task (`aclrtExceptionInfo`).
///
/// `repr(C)` so a C face can hand out a pointer to it as the opaque `aclrtExceptionInfo*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct ExceptionInfo {
    /// Task id within its stream.
    pub task_id: u32,
    /// Stream id.
    pub stream_id: u32,
    /// Low 32 bits of the submitting thread's `gettid()`.
    pub thread_id: u32,
    /// Logical device id.
    pub device_id: u32,
    /// The `aclError` the task failed with.
    pub error_code: u32,
    /// The raw function handle of a kernel launched through the kernel API; 0 for other tasks.
    pub func: u64,
    /// Where that kernel's arguments are (see [`crate::kernel::FailedKernel`]); 0 for other
    /// tasks.
    pub args: usize,
    /// Bytes of those arguments.
    pub args_len: u32,
}

impl From<&Failure> for ExceptionInfo {
    fn from(f: &Failure) -> Self {
        Self {
            task_id: f.task_id as u32,
            stream_id: f.stream_id,
            thread_id: f.thread_id,
            device_id: f.device_id as u32,
            error_code: f.code as u32,
            func: f.kernel.map_or(0, |k| k.func),
            args: f.kernel.map_or(0, |k| k.args),
            args_len: f.kernel.map_or(0, |k| k.args_len),
        }
    }
}

/// The callback type.
pub type ExceptionCallback = Arc<dyn Fn(&ExceptionInfo) + Send + Sync>;

/// The runtime's exception callback slot (`aclrtSetExceptionInfoCallback`), shared by its
/// devices so a failing stream reaches it without going through the runtime.
#[derive(Default)]
pub(crate) struct ExceptionSlot {
    callback: RwLock<Option<ExceptionCallback>>,
    /// Callbacks of `aclrtExceptionInfoCallbackRegister`, by key (the C function's address),
    /// in registration order; told after the one above.
    registered: RwLock<Vec<(usize, ExceptionCallback)>>,
    /// Logical ids of the devices on which a task has failed (`aclrtGetErrorVerbose`).
    failed_devices: std::sync::Mutex<std::collections::BTreeSet<i32>>,
}

impl ExceptionSlot {
    /// Installs (or with `None` clears) the callback; the last call wins.
    pub(crate) fn set(&self, callback: Option<ExceptionCallback>) {
        *self.callback.write().unwrap_or_else(|e| e.into_inner()) = callback;
    }

    /// Tells the callback, if any, about a failed task. Runs on the thread that ran the task,
    /// as user code: inside a callback scope (so a synchronising call from it is refused at
    /// once instead of waiting for the very stream that runs it) and under `catch_unwind`.
    pub(crate) fn report(&self, failure: &Failure) {
        crate::sync::lock(&self.failed_devices).insert(failure.device_id);
        let mut callbacks: Vec<ExceptionCallback> = self
            .callback
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        callbacks.extend(
            self.registered
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(_, cb)| cb.clone()),
        );
        for callback in callbacks {
            let info = ExceptionInfo::from(failure);
            let address = &info as *const ExceptionInfo as usize;
            crate::sync::lock(&LIVE_INFOS).push(address);
            // A failing exception callback has nobody to report to.
            let _ = crate::user_code::run(&"the exception callback", || callback(&info));
            let mut live = crate::sync::lock(&LIVE_INFOS);
            if let Some(i) = live.iter().position(|&p| p == address) {
                live.swap_remove(i);
            }
        }
    }

    /// Registers `callback` under `key`; registering a key again replaces its callback.
    pub(crate) fn register(&self, key: usize, callback: ExceptionCallback) {
        let mut list = self.registered.write().unwrap_or_else(|e| e.into_inner());
        match list.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = callback,
            None => list.push((key, callback)),
        }
    }

    /// Removes the callback registered under `key`, if any.
    pub(crate) fn unregister(&self, key: usize) {
        self.registered
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(k, _)| *k != key);
    }

    /// Whether a task of device `id` has failed.
    pub(crate) fn device_failed(&self, id: i32) -> bool {
        crate::sync::lock(&self.failed_devices).contains(&id)
    }
}

/// Addresses of the infos being handed to an exception callback right now, whatever runtime
/// instance reports them (a finalize still reports the work it discards): the getters of the
/// faces (`aclrtGetTaskIdFromExceptionInfo`, …) read an info only while it is listed here, so a
/// stale or made-up pointer reads nothing.
static LIVE_INFOS: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

/// The info at `address`, if it is being handed to an exception callback right now.
pub(crate) fn live_info(address: usize) -> Option<ExceptionInfo> {
    let live = crate::sync::lock(&LIVE_INFOS);
    live.contains(&address).then(|| {
        // SAFETY: a listed address is that of an info on the reporting thread's stack, which
        // stays alive until it is unlisted, and unlisting takes this lock.
        unsafe { *(address as *const ExceptionInfo) }
    })
}
