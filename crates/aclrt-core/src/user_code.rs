//! Running user code (kernels, host functions, callbacks, the exception callback): inside a
//! callback scope, so a synchronising call from it is refused instead of deadlocking, and under
//! `catch_unwind`, so a panic fails the work instead of killing a runtime thread.
//!
//! How user code fails, for every face alike:
//! - a kernel returns `Err(code)`: that code;
//! - a face fails it with a code and a message ([`fail_user_code`], e.g. Python turning a
//!   raised exception into `ACL_ERROR_RT_AICORE_EXCEPTION` with the traceback): that code and
//!   message;
//! - it panics: `ACL_ERROR_RT_AICORE_EXCEPTION` with the panic's text.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::codes::ACL_ERROR_RT_AICORE_EXCEPTION;
use crate::error::{AclError, Error};
use crate::thread_state::CallbackScope;

/// Fails the user code running on the calling thread (a kernel, host function or callback)
/// with `error`'s code and message. Must be called from inside that code. Does not return.
pub fn fail_user_code(error: Error) -> ! {
    std::panic::resume_unwind(Box::new(error))
}

/// Runs `body` as user code; `what` names it in messages ("host kernel (task 3)"), formatted
/// only when the code fails: running user code is on every task's path.
pub(crate) fn run<T>(
    what: &dyn std::fmt::Display,
    body: impl FnOnce() -> T,
) -> Result<T, (AclError, String)> {
    let _scope = CallbackScope::enter();
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| match payload.downcast::<Error>() {
        Ok(error) => (error.code(), format!("{what} failed: {}", error.message())),
        Err(panic) => (
            ACL_ERROR_RT_AICORE_EXCEPTION,
            format!("{what} panicked: {}", panic_text(&panic)),
        ),
    })
}

/// The message a panic carried (`panic!` with a literal or a formatted string).
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
