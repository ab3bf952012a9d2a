//! # aclrt: the AscendCL runtime model on an emulated device
//!
//! Streams, events, host callbacks and synchronisation with the exact semantics and error codes
//! of the AscendCL runtime (and the CUDA driver's event API), executed by host threads.
//!
//! Layers, from the outside in:
//! - [`api`]: one validated function per ACL call, returning [`Result`] with the exact
//!   `aclError` code; the C and Python faces are thin wrappers over it.
//! - runtime objects (`context`, `stream`, `event`, `callback`, `memory`): the model itself.
//! - [`sync`]: the wait/wake protocol every blocking path uses (model-checked with loom).
//!
//! ```
//! use aclrt::{api, StreamHandle};
//! api::init().ok();
//! api::set_device(0).unwrap();
//! let stream = api::create_stream().unwrap();
//! let start = api::create_event().unwrap();
//! let end = api::create_event().unwrap();
//! api::record_event(start, stream).unwrap();
//! api::launch_kernel(stream, "sleep", Default::default(), Box::new(|| {
//!     std::thread::sleep(std::time::Duration::from_millis(5));
//!     Ok(())
//! }))
//! .unwrap();
//! api::record_event(end, stream).unwrap();
//! api::synchronize_stream(stream).unwrap();
//! assert!(api::event_elapsed_time(start, end).unwrap() >= 5.0);
//! ```

#![warn(missing_docs)]

pub mod api;
pub mod base;
mod callback;
pub mod check;
mod clock;
pub mod codes;
pub mod config;
pub mod consts;
mod context;
pub mod cuda;
mod device;
mod error;
mod event;
mod exception;
mod exec;
mod extras;
mod fork;
mod handle;
pub mod hostlib;
pub mod ipc;
mod kernel;
mod memory;
mod notify;
pub mod observe;
mod policy;
pub mod res_limit;
pub mod runtime;
pub mod settings;
mod soc_arch;
mod stream;
pub mod sync;
mod task_info;
mod thread_state;
pub mod threads;
pub mod trace;
mod user_code;
pub mod vendor_consts;

pub use callback::MAX_CALLBACK_THREADS;
pub use clock::now_ns;
pub use config::Config;
pub use device::{MAX_STREAMS_PER_DEVICE, MAX_SYNC_EVENTS_PER_DEVICE};
pub use error::Failure;
pub use error::{AclError, Error, Result};
pub use exception::{ExceptionCallback, ExceptionInfo, ACL_ERROR_INVALID_EXCEPTION_INFO};
pub use extras::{DeviceStateCallback, DeviceTaskAbortCallback, StreamStateCallback};
pub use handle::{
    ArgsHandle, BinHandle, BinaryImageHandle, CntNotifyHandle, ContextHandle, EventHandle,
    FuncHandle, MemPoolHandle, NotifyHandle, StreamHandle,
};
pub use kernel::{FailedKernel, PlaceHolder};
pub use memory::ALIGNMENT;
pub use runtime::Runtime;
pub use task_info::{HostFn, KernelFn, MemRange, TaskKind, TaskMeta};
pub use thread_state::{os_thread_id, pthread_id};
pub use user_code::{fail_user_code, panic_text};
