//! The `aclx*` extensions (`include/acl/acl_ext.h`).

use std::ffi::{c_char, c_void, CStr};

use aclrt::api;
use aclrt::codes::{ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID};
use aclrt::consts::{ACLX_ACCESS_READ, ACLX_ACCESS_WRITE};
use aclrt::Config;

use crate::{aclError, aclrtStream, entry, guard, not_null, put, stream_handle, SendPtr};

/// `aclxHostKernel`: returns 0 or the code the task fails with.
pub type aclxHostKernel = Option<unsafe extern "C" fn(args: *mut c_void) -> aclError>;

/// `aclxLaunchHostKernel`: queues `fn(args)` as a device task on the stream.
#[no_mangle]
pub unsafe extern "C" fn aclxLaunchHostKernel(
    stream: aclrtStream,
    r#fn: aclxHostKernel,
    args: *mut c_void,
    name: *const c_char,
) -> aclError {
    // SAFETY: forwarded C contract (no accesses declared).
    unsafe {
        launch(
            "aclxLaunchHostKernel",
            stream,
            r#fn,
            args,
            name,
            std::ptr::null(),
            0,
        )
    }
}

/// `aclxMemAccess`: one byte range a host kernel touches.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclxMemAccess {
    /// First byte.
    pub ptr: *const c_void,
    /// Bytes.
    pub size: usize,
    /// `ACLX_ACCESS_READ` | `ACLX_ACCESS_WRITE`.
    pub mode: u32,
}

/// `aclxLaunchHostKernelWithAccess`: [`aclxLaunchHostKernel`] declaring the memory the kernel
/// reads and writes (for traces and the checker).
#[no_mangle]
pub unsafe extern "C" fn aclxLaunchHostKernelWithAccess(
    stream: aclrtStream,
    r#fn: aclxHostKernel,
    args: *mut c_void,
    name: *const c_char,
    accesses: *const aclxMemAccess,
    count: usize,
) -> aclError {
    // SAFETY: forwarded C contract: `accesses` holds `count` entries.
    unsafe {
        launch(
            "aclxLaunchHostKernelWithAccess",
            stream,
            r#fn,
            args,
            name,
            accesses,
            count,
        )
    }
}

/// The host kernel launches.
///
/// # Safety
/// `name` is NULL or a C string; `accesses` is NULL or holds `count` entries; `fn(args)` may be
/// called on another thread.
unsafe fn launch(
    call: &'static str,
    stream: aclrtStream,
    r#fn: aclxHostKernel,
    args: *mut c_void,
    name: *const c_char,
    accesses: *const aclxMemAccess,
    count: usize,
) -> aclError {
    entry(call, |rt| {
        let Some(f) = r#fn else {
            return Err(api::fail(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("{call}: the kernel function pointer is NULL"),
            ));
        };
        let name = if name.is_null() {
            String::new()
        } else {
            // SAFETY: a non-NULL name is a C string by the C contract.
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        };
        let mut access = api::KernelAccess::default();
        if count > 0 {
            not_null(accesses, call, "accesses")?;
            // SAFETY: non-NULL, and the caller passes `count` entries.
            let entries = unsafe { std::slice::from_raw_parts(accesses, count) };
            for (i, a) in entries.iter().enumerate() {
                if a.mode & !(ACLX_ACCESS_READ | ACLX_ACCESS_WRITE) != 0 {
                    return Err(api::fail(
                        ACL_ERROR_INVALID_PARAM,
                        format!("{call}: accesses[{i}].mode {:#x} has bits other than ACLX_ACCESS_READ and ACLX_ACCESS_WRITE", a.mode),
                    ));
                }
                if a.ptr.is_null() || a.size == 0 {
                    continue;
                }
                let range = aclrt::MemRange {
                    start: a.ptr as usize,
                    len: a.size,
                };
                if a.mode & ACLX_ACCESS_READ != 0 {
                    access.reads.push(range);
                }
                if a.mode & ACLX_ACCESS_WRITE != 0 {
                    access.writes.push(range);
                }
            }
        }
        let data = SendPtr(args);
        let kernel = Box::new(move || {
            // SAFETY: the C caller provides a callable function and args valid until it runs.
            match unsafe { f(data.get()) } {
                0 => Ok(()),
                code => Err(code),
            }
        });
        rt.launch_kernel(stream_handle(stream), &name, access, kernel)
            .map(|_| ())
    })
}

/// `aclxSetStreamName`: names the stream's track in traces (NULL stream: the default stream of
/// the current context; an empty name removes the name).
#[no_mangle]
pub unsafe extern "C" fn aclxSetStreamName(stream: aclrtStream, name: *const c_char) -> aclError {
    guard("aclxSetStreamName", || {
        api::ensure_initialized()?;
        not_null(name, "aclxSetStreamName", "the name")?;
        // SAFETY: a non-NULL name is a C string by the C contract.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        api::set_stream_name(stream_handle(stream), &name)
    })
}

/// `aclxConfigureDevices`: device count and per-device memory, before `aclInit`.
#[no_mangle]
pub extern "C" fn aclxConfigureDevices(deviceCount: u32, memoryBytes: u64) -> aclError {
    guard("aclxConfigureDevices", || {
        if deviceCount == 0 || memoryBytes == 0 {
            return Err(api::fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "aclxConfigureDevices: device count ({deviceCount}) and memory ({memoryBytes} bytes) \
                     must both be non-zero"
                ),
            ));
        }
        let config = Config {
            device_count: deviceCount,
            device_memory: memoryBytes,
            ..Config::from_env()
        };
        api::configure(config)
    })
}

/// `aclxLiveObjects`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct aclxLiveObjects {
    /// Contexts, default ones included.
    pub contexts: u64,
    /// Streams, default ones included.
    pub streams: u64,
    /// Events.
    pub events: u64,
    /// Memory blocks from `aclrtMalloc` / `aclrtMallocHost`.
    pub allocations: u64,
    /// Threads subscribed with `aclrtSubscribeReport`.
    pub callbackThreads: u64,
}

/// `aclxGetLiveObjects`: counts for leak checks; needs no `aclInit`.
#[no_mangle]
pub unsafe extern "C" fn aclxGetLiveObjects(objects: *mut aclxLiveObjects) -> aclError {
    guard("aclxGetLiveObjects", || {
        not_null(objects, "aclxGetLiveObjects", "objects")?;
        let live = api::live_objects();
        let counts = aclxLiveObjects {
            contexts: live.contexts as u64,
            streams: live.streams as u64,
            events: live.events as u64,
            allocations: live.allocations as u64,
            callbackThreads: live.callback_threads as u64,
        };
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe { put(objects, counts) };
        Ok(())
    })
}
