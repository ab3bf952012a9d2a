//! Python code the runtime calls back: host callbacks, host functions and the exception
//! callback.
//!
//! Every entry into Python takes the GIL (the runtime's threads never hold it otherwise), and
//! every blocking call releases it, so a callback can always run while its host thread waits.
//! A Python exception raised by a callback is never dropped: it goes to `sys.unraisablehook`
//! (printed by default) and is also returned to whoever can see it.

use std::sync::Arc;

use aclrt::codes::ACL_ERROR_RT_AICORE_EXCEPTION;
use aclrt::{api, ExceptionInfo};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// The text Python's own traceback printer would produce for `err`.
pub fn format_exception(py: Python<'_>, err: &PyErr) -> String {
    let formatted = (|| -> PyResult<String> {
        let lines = py.import("traceback")?.call_method1(
            "format_exception",
            (err.get_type(py), err.value(py), err.traceback(py)),
        )?;
        PyString::new(py, "")
            .call_method1("join", (lines,))?
            .extract()
    })();
    formatted.unwrap_or_else(|_| err.to_string())
}

/// Reports an exception nobody can catch, the way CPython does for `__del__` and threads.
pub fn report_unraisable(py: Python<'_>, err: PyErr, origin: &Bound<'_, PyAny>) {
    err.write_unraisable(py, Some(origin));
}

#[pyfunction]
fn process_report(py: Python<'_>, timeout: &Any) -> PyResult<i32> {
    let ms = i32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || api::process_report(ms))))
}

#[pyfunction]
fn launch_callback(
    py: Python<'_>,
    fn_: &Any,
    user_data: &Any,
    block_type: &Any,
    stream: &Any,
) -> PyResult<i32> {
    // pyACL parses all four arguments first, then requires a callable, in its own words.
    let block = u32_arg(block_type, "block_type")?;
    let s = stream_arg(stream)?;
    if !fn_.is_callable() {
        return Err(final_type_error(py, "parameter must be callable"));
    }
    let f = fn_.clone().unbind();
    let data = user_data.clone().unbind();
    let body = Box::new(move || {
        let failure = Python::attach(|py| {
            let failure = f.call1(py, (data,)).err().map(|err| {
                let text = format_exception(py, &err);
                report_unraisable(py, err, f.bind(py));
                text
            });
            drop(f);
            failure
        });
        // The core fails the callback: aclrtProcessReport reports it, as for every face.
        if let Some(text) = failure {
            aclrt::fail_user_code(aclrt::Error::new(
                ACL_ERROR_RT_AICORE_EXCEPTION,
                format!("it raised an exception:\n{text}"),
            ));
        }
    });
    Ok(ret(api::launch_callback(body, block, s)))
}

#[pyfunction]
fn launch_host_func(stream: &Any, fn_: &Any, args: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let f = callable_arg(fn_, "fn")?.unbind();
    let data = args.clone().unbind();
    let body = Box::new(move || {
        Python::attach(|py| {
            if let Err(err) = f.call1(py, (data,)) {
                report_unraisable(py, err, f.bind(py));
            }
            drop(f);
        });
    });
    Ok(ret(api::launch_host_func(s, body)))
}

#[pyfunction]
fn set_exception_info_callback(callback: &Any) -> PyResult<i32> {
    if callback.is_none() {
        return Ok(ret(api::set_exception_info_callback(None)));
    }
    let f = callable_arg(callback, "callback")?.unbind();
    let hook: aclrt::ExceptionCallback = Arc::new(move |info: &ExceptionInfo| {
        let addr = info as *const ExceptionInfo as usize;
        Python::attach(|py| {
            // The core accepts the address in the getters only while this call runs.
            if let Err(err) = f.call1(py, (addr,)) {
                report_unraisable(py, err, f.bind(py));
            }
        });
    });
    Ok(ret(api::set_exception_info_callback(Some(hook))))
}

const INVALID_INFO: u32 = 0xFFFF_FFFF;

fn read_info(info: &Any, field: impl Fn(&ExceptionInfo) -> u32) -> PyResult<u32> {
    let addr = usize_arg(info, "info")?;
    Ok(api::exception_info(addr).map_or(INVALID_INFO, |info| field(&info)))
}

#[pyfunction]
fn get_task_id_from_exception_info(info: &Any) -> PyResult<u32> {
    read_info(info, |i| i.task_id)
}

#[pyfunction]
fn get_stream_id_from_exception_info(info: &Any) -> PyResult<u32> {
    read_info(info, |i| i.stream_id)
}

#[pyfunction]
fn get_thread_id_from_exception_info(info: &Any) -> PyResult<u32> {
    read_info(info, |i| i.thread_id)
}

#[pyfunction]
fn get_device_id_from_exception_info(info: &Any) -> PyResult<u32> {
    read_info(info, |i| i.device_id)
}

#[pyfunction]
fn get_error_code_from_exception_info(info: &Any) -> PyResult<u32> {
    read_info(info, |i| i.error_code)
}

pub fn register_rt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            process_report,
            launch_callback,
            launch_host_func,
            set_exception_info_callback,
            get_task_id_from_exception_info,
            get_stream_id_from_exception_info,
            get_thread_id_from_exception_info,
            get_device_id_from_exception_info,
            get_error_code_from_exception_info
        ]
    );
    Ok(())
}
