//! Argument and result conventions shared by every pyACL function.
//!
//! pyACL takes plain Python ints for handles, pointers, flags and sizes and converts them the
//! way a C call would: a negative number handed to an unsigned parameter wraps, an oversized one
//! is truncated, and the runtime then answers with an error code. So ints are read here as raw
//! bits instead of through PyO3's checked conversions (which would raise `OverflowError`).
//! `None` and non-int objects are refused with `TypeError`, as pyACL does.

use aclrt::{ContextHandle, EventHandle, StreamHandle};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// A Python int as C would receive it in a 64-bit parameter (two's complement for negative
/// values); narrower parameters then truncate as C does.
pub fn int_bits(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if obj.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not None"
        )));
    }
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not {}",
            obj.get_type().name()?
        )));
    }
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(v as u64);
    }
    Ok(obj.extract::<u64>().unwrap_or(OUT_OF_RANGE))
}

/// Stands in for an int that does not fit in 64 bits: invalid in every reading (handle tag
/// 0x80 is never issued; as `i32` it is `i32::MIN`, as `u32` an undefined flag bit), so the
/// runtime refuses it instead of a truncation landing on a valid value such as 0.
const OUT_OF_RANGE: u64 = 0x8000_0000_8000_0000;

pub fn i32_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i32> {
    Ok(int_bits(obj, what)? as i32)
}

pub fn u32_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    Ok(int_bits(obj, what)? as u32)
}

pub fn usize_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    Ok(int_bits(obj, what)? as usize)
}

pub fn stream_arg(obj: &Bound<'_, PyAny>) -> PyResult<StreamHandle> {
    Ok(StreamHandle::from_raw(int_bits(obj, "stream")?))
}

pub fn event_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<EventHandle> {
    Ok(EventHandle::from_raw(int_bits(obj, what)?))
}

pub fn context_arg(obj: &Bound<'_, PyAny>) -> PyResult<ContextHandle> {
    Ok(ContextHandle::from_raw(int_bits(obj, "context")?))
}

/// Requires a callable (functions handed to the runtime).
pub fn callable_arg<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    if obj.is_callable() {
        Ok(obj.clone())
    } else if obj.is_none() {
        Err(PyTypeError::new_err(format!(
            "{what} must be callable, not None"
        )))
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be callable, not {}",
            obj.get_type().name()?
        )))
    }
}

/// `ret` of an action: 0 or the `aclError`.
pub fn ret(result: aclrt::Result<()>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

/// `(value, ret)` of a call that produces a value; `fallback` stands in for the value on failure.
pub fn value<T>(result: aclrt::Result<T>, fallback: T) -> (T, i32) {
    match result {
        Ok(v) => (v, 0),
        Err(e) => (fallback, e.code()),
    }
}

// --- Argument errors, pyACL's way ---------------------------------------------------------
//
// pyACL parses every call's arguments in one step and, when that fails (a missing or extra
// argument, a value of the wrong type, an int outside a C `int`), replaces whatever Python said
// with one `TypeError` naming the call: `acl.rt.set_device args parse failed`. A few calls word
// it with a trailing `!`. Calls without parameters ignore any arguments they are given. The
// functions here are registered through [`add_one`], which applies that rule to all of
// them; a `TypeError` a function raises on purpose with pyACL's own text is marked
// [`final_type_error`] and passes through unchanged.

/// Calls whose parse failure pyACL words with a trailing `!`.
const WITH_BANG: &[&str] = &[
    "acl.rt.set_stream_failure_mode",
    "acl.rt.stream_query",
    "acl.rt.synchronize_event_with_timeout",
    "acl.rt.synchronize_device_with_timeout",
    "acl.rt.peek_at_last_error",
    "acl.rt.get_last_error",
    "acl.rt.malloc_with_cfg",
    "acl.rt.set_op_wait_timeout",
    "acl.rt.set_op_execute_time_out",
    "acl.rt.set_op_execute_timeout_v2",
    "acl.media.dvpp_malloc",
    "acl.rt.binary_load_from_file",
    "acl.rt.binary_load_from_data",
    "acl.rt.get_function_name",
];

/// Calls whose parse failure pyACL spells `faild`: `acl.rt.set_sys_param_opt args parse faild`.
const SPELT_FAILD: &[&str] = &["acl.rt.set_sys_param_opt", "acl.rt.get_sys_param_opt"];

/// Calls whose parse failure pyACL words under another name (the C function's spelling).
const NAMED_OTHERWISE: &[(&str, &str)] = &[(
    "acl.rt.set_op_execute_time_out",
    "acl.rt.set_op_execute_timeout",
)];

/// Calls whose parse failure pyACL words without `args`: `acl.rt.reset_stream_res_limit parse
/// failed`.
const WITHOUT_ARGS: &[&str] = &[
    "acl.rt.get_stream_res_limit",
    "acl.rt.set_stream_res_limit",
    "acl.rt.reset_stream_res_limit",
    "acl.rt.use_stream_res_in_current_thread",
    "acl.rt.unuse_stream_res_in_current_thread",
    "acl.rt.get_res_in_current_thread",
    "acl.rt.host_get_device_pointer",
];

/// The text pyACL raises when it cannot parse the arguments of `qualname` (`acl.rt.malloc`).
pub fn parse_failure(qualname: &str) -> String {
    let bang = if WITH_BANG.contains(&qualname) {
        "!"
    } else {
        ""
    };
    let args = if WITHOUT_ARGS.contains(&qualname) {
        ""
    } else {
        "args "
    };
    let failed = if SPELT_FAILD.contains(&qualname) {
        "faild"
    } else {
        "failed"
    };
    let name = NAMED_OTHERWISE
        .iter()
        .find(|(q, _)| *q == qualname)
        .map_or(qualname, |(_, n)| n);
    format!("{name} {args}parse {failed}{bang}")
}

/// Marks an exception as carrying pyACL's own wording, so [`add_one`] keeps it as it is.
const FINAL_MARK: &str = "_acl_final";

/// A `TypeError` with exactly `msg` (pyACL's text for this case), kept as it is.
pub fn final_type_error(py: Python<'_>, msg: impl Into<String>) -> PyErr {
    let err = PyTypeError::new_err(msg.into());
    let _ = err.value(py).setattr(FINAL_MARK, true);
    err
}

/// Leaks `s` as a C string: names and docs of module functions live as long as the process.
fn leak_cstr(s: String) -> &'static std::ffi::CStr {
    let c = std::ffi::CString::new(s.replace('\0', "")).unwrap_or_default();
    Box::leak(c.into_boxed_c_str())
}

/// Adds `inner` (a `wrap_pyfunction!` of this module) to `m` as `qualname`'s last component,
/// behind pyACL's argument-error rule (above). The added function keeps the inner one's name,
/// documentation and signature.
pub fn add_one(
    m: &Bound<'_, PyModule>,
    module: &str,
    inner: Bound<'_, pyo3::types::PyCFunction>,
) -> PyResult<()> {
    let py = m.py();
    let name: String = inner.getattr("__name__")?.extract()?;
    let doc: Option<String> = inner.getattr("__doc__")?.extract()?;
    let sig: Option<String> = inner.getattr("__text_signature__")?.extract()?;
    let takes_args = sig.as_deref() != Some("()");
    let full_doc = match &sig {
        Some(sig) => format!("{name}{sig}\n--\n\n{}", doc.unwrap_or_default()),
        None => doc.unwrap_or_default(),
    };
    let qualname = format!("{module}.{name}");
    let inner = inner.unbind();
    let f = pyo3::types::PyCFunction::new_closure(
        py,
        Some(leak_cstr(name.clone())),
        Some(leak_cstr(full_doc)),
        move |args: &Bound<'_, pyo3::types::PyTuple>,
              kwargs: Option<&Bound<'_, pyo3::types::PyDict>>|
              -> PyResult<Py<PyAny>> {
            let py = args.py();
            let _in_call = crate::site::InCall::enter();
            let called = if takes_args {
                inner.bind(py).call(args, kwargs)
            } else {
                inner.bind(py).call0()
            };
            called.map(Bound::unbind).map_err(|err| {
                let value = err.value(py);
                if err.is_instance_of::<PyTypeError>(py)
                    && !value.hasattr(FINAL_MARK).unwrap_or(false)
                {
                    PyTypeError::new_err(parse_failure(&qualname))
                } else {
                    err
                }
            })
        },
    )?;
    f.setattr("__module__", module)?;
    f.setattr("__qualname__", &name).ok();
    m.add(name.as_str(), f)
}

/// Registers each function with [`add_one`] under `module` (`"acl.rt"`).
macro_rules! add_checked {
    ($m:expr, $module:expr, [$($f:ident),* $(,)?]) => {
        $( $crate::args::add_one($m, $module, pyo3::wrap_pyfunction!($f, $m)?)?; )*
    };
}
pub(crate) use add_checked;
