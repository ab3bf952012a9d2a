//! Call sites for the checker: the Python file and line that called `acl`, instead of the
//! interpreter's C frames (which are the same for every line of a program).
//!
//! Every `acl` function counts, on its thread, the calls into it under way (`add_one`'s
//! wrapper); a blocking call that lets the GIL go ([`detach`]) sets the count aside meanwhile,
//! and, with the checker on, keeps the Python line it looked up before letting go.
//! So a non-zero count means the thread is running Python code's call into `acl` and holds
//! the GIL: only then does [`python_site`] look at the Python stack, never waiting for the GIL.

use std::cell::Cell;
use std::sync::OnceLock;

use aclrt::check::Site;
use pyo3::prelude::*;

thread_local! {
    /// Calls into `acl` under way on this thread, holding the GIL.
    static IN_CALL: Cell<u32> = const { Cell::new(0) };
    /// The Python site of the call under way that let the GIL go ([`detach`]).
    static DETACHED_AT: std::cell::RefCell<Option<Site>> = const { std::cell::RefCell::new(None) };
}

/// Counts a call into `acl` for as long as it lives.
pub struct InCall(());

impl InCall {
    pub fn enter() -> InCall {
        let _ = IN_CALL.try_with(|c| c.set(c.get() + 1));
        InCall(())
    }
}

impl Drop for InCall {
    fn drop(&mut self) {
        let _ = IN_CALL.try_with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// `crate::site::detach(py, f)`, with the thread's count of calls set aside while the GIL is let go.
/// With the checker on, the Python line making the call is looked up first and stands for
/// the call's site meanwhile (the Python stack cannot be read without the GIL).
pub fn detach<T: Send, F: Send + FnOnce() -> T>(py: Python<'_>, f: F) -> T {
    let site = if aclrt::check::is_enabled() {
        python_site()
    } else {
        None
    };
    let held = IN_CALL.try_with(|c| c.replace(0)).unwrap_or(0);
    let outer = DETACHED_AT.try_with(|d| d.replace(site)).ok().flatten();
    let out = py.detach(f);
    let _ = DETACHED_AT.try_with(|d| d.replace(outer));
    let _ = IN_CALL.try_with(|c| c.set(held));
    out
}

/// The folder of the `acl` package: frames in it (the Stream/Event layer) are the runtime's.
fn package_dir(py: Python<'_>) -> Option<&'static str> {
    static DIR: OnceLock<Option<String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let file: String = py
            .import("acl")
            .ok()?
            .getattr("__file__")
            .ok()?
            .extract()
            .ok()?;
        let dir = std::path::Path::new(&file).parent()?;
        Some(format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR))
    })
    .as_deref()
}

/// The innermost Python frame outside the `acl` package, on a thread inside a call into `acl`.
fn python_site() -> Option<Site> {
    if IN_CALL.try_with(Cell::get).unwrap_or(0) == 0 {
        // In a call that let the GIL go: the line [`detach`] looked up, if any.
        return DETACHED_AT.try_with(|d| d.borrow().clone()).ok().flatten();
    }
    // The thread holds the GIL (see the module's comment): attaching does not wait.
    Python::attach(|py| {
        let skip = package_dir(py);
        let mut frame = py
            .import("sys")
            .ok()?
            .getattr("_getframe")
            .ok()?
            .call0()
            .ok()?;
        while !frame.is_none() {
            let code = frame.getattr("f_code").ok()?;
            let file: String = code.getattr("co_filename").ok()?.extract().ok()?;
            if skip.is_none_or(|dir| !file.starts_with(dir)) {
                return Some(Site {
                    function: code.getattr("co_name").ok()?.extract().ok()?,
                    file: Some(file),
                    line: frame.getattr("f_lineno").ok()?.extract().ok(),
                });
            }
            frame = frame.getattr("f_back").ok()?;
        }
        None
    })
}

/// Makes the checker name Python call sites.
pub fn install() {
    aclrt::check::set_site_source(python_site);
}
