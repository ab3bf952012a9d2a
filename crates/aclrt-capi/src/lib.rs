//! The ACL C ABI (`libascendcl`): every ACL runtime call of the aclrt core, with the vendor's C
//! prototypes, plus the `aclx*` extensions of `include/acl/acl_ext.h`.
//!
//! Every entry point runs inside [`guard`]: the core's `Result` becomes the `aclError` return
//! value, and a Rust panic becomes `ACL_ERROR_INTERNAL_ERROR` with a message instead of
//! unwinding into C. Argument checks follow the contract's order: not initialised (100001),
//! NULL pointers (100000), then whatever the core checks (handles, context, rules).
//!
//! The functions are also usable from Rust through the rlib (the tests do so); they are
//! `unsafe` wherever they read or write through caller-supplied pointers.

// The exported names are the C names; the safety contract of each function is the C one
// (pointers are NULL or valid for the access), documented once in the headers.
#![allow(non_snake_case, non_camel_case_types, clippy::missing_safety_doc)]

mod allocator;
mod base;
mod callback;
mod config;
mod device;
mod device_ext;
mod event;
mod exception_ext;
mod ext;
mod kernel;
mod managed;
mod mem_pool;
mod memory;
mod memory_ext;
mod not_supported;
mod notify;
mod overflow;
mod process;
mod random;
mod res_limit;
mod stream;
mod stream_ext;
mod vmm;

pub use allocator::*;
pub use base::*;
pub use callback::*;
pub use config::*;
pub use device::*;
pub use device_ext::*;
pub use event::*;
pub use exception_ext::*;
pub use ext::*;
pub use managed::*;
pub use mem_pool::*;
pub use memory::*;
pub use memory_ext::*;
pub use not_supported::*;
pub use notify::*;
pub use process::*;
pub use res_limit::*;
pub use stream::*;
pub use stream_ext::*;

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use aclrt::codes::{ACL_ERROR_INTERNAL_ERROR, ACL_ERROR_INVALID_PARAM, ACL_SUCCESS};
use aclrt::{api, ContextHandle, EventHandle, Runtime, StreamHandle};

/// `aclError`.
pub type aclError = i32;
/// `aclrtStream`: a validated stream token (NULL = the default stream).
pub type aclrtStream = *mut c_void;
/// `aclrtEvent`: a validated event token.
pub type aclrtEvent = *mut c_void;
/// `aclrtContext`: a validated context token.
pub type aclrtContext = *mut c_void;

type Result<T = ()> = aclrt::Result<T>;

/// Runs an entry point that needs no runtime (`aclInit`, error queries): its error becomes the
/// return code and is noted for the thread; a panic becomes `ACL_ERROR_INTERNAL_ERROR`.
pub fn guard(name: &str, body: impl FnOnce() -> Result) -> aclError {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ACL_SUCCESS,
        Ok(Err(e)) => {
            api::note_failure(&e);
            e.code()
        }
        Err(panic) => internal_error(name, &panic).code(),
    }
}

/// Runs an entry point on the process's runtime: `ACL_ERROR_UNINITIALIZE` when there is none,
/// then `body`, which makes the face's NULL checks and calls the core. The check order of the
/// contract (not initialised → NULL → handles → …) holds with each check made once; a failure
/// is noted for the calling thread by the core, and a panic becomes
/// `ACL_ERROR_INTERNAL_ERROR`.
pub fn entry(name: &str, body: impl FnOnce(&Runtime) -> Result) -> aclError {
    match catch_unwind(AssertUnwindSafe(|| api::acl(body))) {
        Ok(Ok(())) => ACL_SUCCESS,
        Ok(Err(e)) => e.code(),
        Err(panic) => internal_error(name, &panic).code(),
    }
}

/// Like [`guard`] for entry points that return a value rather than a code.
fn guard_value<T>(name: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        internal_error(name, &panic);
        fallback
    })
}

fn internal_error(name: &str, panic: &Box<dyn std::any::Any + Send>) -> aclrt::Error {
    let text = aclrt::panic_text(panic);
    api::fail(
        ACL_ERROR_INTERNAL_ERROR,
        format!("{name}: internal error in the runtime library: {text}"),
    )
}

/// Refuses a NULL pointer argument with `ACL_ERROR_INVALID_PARAM` (noted by the caller,
/// [`entry`] or [`guard`]).
fn not_null<T>(ptr: *const T, call: &str, what: &str) -> Result {
    if ptr.is_null() {
        Err(aclrt::Error::new(
            ACL_ERROR_INVALID_PARAM,
            format!("{call}: {what} is NULL"),
        ))
    } else {
        Ok(())
    }
}

/// An entry point that hands one value back through an out-pointer: not initialised → NULL
/// out-pointer (`ACL_ERROR_INVALID_PARAM`) → `make`, the core call; the value is stored only
/// when the call succeeds.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
unsafe fn produce<T>(
    name: &str,
    out: *mut T,
    what: &str,
    make: impl FnOnce(&Runtime) -> Result<T>,
) -> aclError {
    entry(name, |rt| {
        not_null(out, name, what)?;
        let value = make(rt)?;
        // SAFETY: non-NULL (checked above) and valid for a write (the caller's contract).
        unsafe { out.write(value) };
        Ok(())
    })
}

/// Stores `value` through an out-pointer the caller promised is valid (checked non-NULL).
unsafe fn put<T>(ptr: *mut T, value: T) {
    // SAFETY: checked non-NULL by the caller; validity is the C caller's contract.
    unsafe { ptr.write(value) }
}

fn stream_handle(stream: aclrtStream) -> StreamHandle {
    StreamHandle::from_raw(stream as u64)
}

/// An event token (the core refuses NULL and validates the rest).
fn event_handle(event: aclrtEvent) -> EventHandle {
    EventHandle::from_raw(event as u64)
}

fn context_handle(context: aclrtContext, call: &str) -> Result<ContextHandle> {
    not_null(context, call, "the context")?;
    Ok(ContextHandle::from_raw(context as u64))
}

/// A C pointer carried into a task that runs on another thread. The C caller owns what it
/// points to and promised it stays valid until the task has run.
#[derive(Clone, Copy)]
struct SendPtr(*mut c_void);

// SAFETY: the pointer is only handed back to the C function it was registered with; C code
// passes such user data between threads by design.
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

impl SendPtr {
    /// Read through a method so closures capture the whole wrapper (edition-2021 closures
    /// would otherwise capture the raw field, which is not `Send`).
    fn get(self) -> *mut c_void {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_internal_error_with_a_message() {
        let code = guard("aclxTest", || panic!("boom {}", 42));
        assert_eq!(code, ACL_ERROR_INTERNAL_ERROR);
        assert_eq!(api::peek_at_last_error(), ACL_ERROR_INTERNAL_ERROR);
        let msg = api::get_recent_err_msg().unwrap();
        assert!(msg.contains("aclxTest") && msg.contains("boom 42"), "{msg}");
    }

    #[test]
    fn value_entry_points_fall_back_on_panic() {
        let v = guard_value("aclxTest", 7u32, || panic!("static text"));
        assert_eq!(v, 7);
        let msg = api::get_recent_err_msg().unwrap();
        assert!(msg.contains("static text"), "{msg}");
    }

    #[test]
    fn errors_pass_through_unchanged() {
        let code = guard("aclxTest", || Err(api::fail(107017, "x")));
        assert_eq!(code, 107017);
        assert_eq!(guard("aclxTest", || Ok(())), 0);
    }
}
