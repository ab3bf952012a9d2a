//! `acl.util`: threads for callback loops, and moving bytes between Python and raw memory.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread::JoinHandle;

use aclrt::api;
use aclrt::codes::{ACL_ERROR_INTERNAL_ERROR, ACL_ERROR_INVALID_PARAM, ACL_ERROR_UNINITIALIZE};
use aclrt::consts::ACL_MEMCPY_HOST_TO_HOST;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

use crate::args::*;
use crate::callbacks::report_unraisable;

type Any<'py> = Bound<'py, PyAny>;

/// What a thread from `start_thread` ends with: the type name of the exception its function
/// raised, if it raised.
type ThreadOutcome = Option<String>;

/// Threads started by `start_thread` and not yet stopped, by `pthread_self()` value.
static THREADS: Mutex<Option<HashMap<u64, JoinHandle<ThreadOutcome>>>> = Mutex::new(None);

fn threads() -> std::sync::MutexGuard<'static, Option<HashMap<u64, JoinHandle<ThreadOutcome>>>> {
    THREADS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `tid, ret = acl.util.start_thread(fn, args)`: calls `fn(args)` on a new OS thread (`fn()`
/// when `args` is None, as pyACL does); `tid` is its `pthread_self()`, the id
/// `acl.rt.subscribe_report` expects. The arguments are checked as pyACL checks them, with its
/// messages.
#[pyfunction]
#[pyo3(signature = (*args))]
fn start_thread(py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<(u64, i32)> {
    if args.len() != 2 {
        return Err(PyTypeError::new_err(format!(
            "function takes exactly 2 arguments ({} given)",
            args.len()
        )));
    }
    let fn_ = args.get_item(0)?;
    if !fn_.is_callable() {
        return Err(PyTypeError::new_err("parameter must be callable"));
    }
    let f = fn_.unbind();
    let data = args.get_item(1)?;
    let data = (!data.is_none()).then(|| data.unbind());
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("acl-util".into())
        .spawn(move || {
            let _ = tx.send(aclrt::pthread_id());
            Python::attach(|py| {
                let called = match &data {
                    Some(d) => f.call1(py, (d,)),
                    None => f.call0(py),
                };
                let outcome = called.err().map(|err| {
                    let name = err
                        .get_type(py)
                        .name()
                        .map_or_else(|_| "Exception".to_owned(), |n| n.to_string());
                    report_unraisable(py, err, f.bind(py));
                    name
                });
                drop(f);
                drop(data);
                outcome
            })
        });
    let handle = match spawned {
        Ok(h) => h,
        Err(e) => {
            let e = api::fail(
                ACL_ERROR_INTERNAL_ERROR,
                format!("cannot start a thread: {e}"),
            );
            return Ok((0, e.code()));
        }
    };
    let tid = py
        .detach(move || rx.recv())
        .map_err(|_| PyValueError::new_err("the new thread ended before reporting its id"))?;
    threads()
        .get_or_insert_with(HashMap::new)
        .insert(tid, handle);
    Ok((tid, 0))
}

/// `ret = acl.util.stop_thread(tid)`: waits for a thread from `start_thread` to return (the GIL
/// is released meanwhile). If its function raised, raises `RuntimeError`
/// (`exception=<type>,msg=thread call failed;`), as pyACL does.
#[pyfunction]
fn stop_thread(py: Python<'_>, thread_id: &Any) -> PyResult<i32> {
    let tid = int_bits(thread_id, "thread_id")?;
    if tid == aclrt::pthread_id() {
        return Ok(api::fail(
            ACL_ERROR_INVALID_PARAM,
            "acl.util.stop_thread: a thread cannot stop (join) itself",
        )
        .code());
    }
    let Some(handle) = threads().as_mut().and_then(|t| t.remove(&tid)) else {
        return Ok(api::fail(
            ACL_ERROR_INVALID_PARAM,
            format!("acl.util.stop_thread: {tid:#x} is not a running thread from start_thread"),
        )
        .code());
    };
    match py.detach(|| handle.join()) {
        Ok(None) => Ok(0),
        Ok(Some(name)) => Err(PyRuntimeError::new_err(format!(
            "exception={name},msg=thread call failed;"
        ))),
        Err(_) => Ok(api::fail(
            ACL_ERROR_INTERNAL_ERROR,
            format!("acl.util.stop_thread: thread {tid:#x} ended abnormally"),
        )
        .code()),
    }
}

/// The address of the buffer of a `bytes` (read only!) or `bytearray` object; valid while the
/// object lives and, for a bytearray, is not resized.
#[pyfunction]
fn bytes_to_ptr(data: &Any) -> PyResult<usize> {
    if let Ok(b) = data.cast::<PyBytes>() {
        Ok(b.as_bytes().as_ptr() as usize)
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        Ok(b.data() as usize)
    } else {
        Err(PyTypeError::new_err(format!(
            "bytes_to_ptr expects bytes or bytearray, not {}",
            data.get_type().name()?
        )))
    }
}

/// The data address of a NumPy array (or anything with `__array_interface__`).
#[pyfunction]
fn numpy_to_ptr(array: &Any) -> PyResult<usize> {
    let interface = array.getattr("__array_interface__").map_err(|_| {
        PyTypeError::new_err("numpy_to_ptr expects an object with __array_interface__")
    })?;
    let data = interface.get_item("data")?;
    usize_arg(&data.get_item(0)?, "__array_interface__['data'][0]")
}

/// A copy of `size` bytes at `ptr`. Runtime allocations are bounds-checked (ValueError when
/// the range runs past one); any other address is trusted, as in pyACL.
#[pyfunction]
fn ptr_to_bytes<'py>(py: Python<'py>, ptr: &Any, size: &Any) -> PyResult<Bound<'py, PyBytes>> {
    let addr = usize_arg(ptr, "ptr")?;
    let size = usize_arg(size, "size")?;
    if size == 0 {
        return Ok(PyBytes::new(py, &[]));
    }
    if addr == 0 {
        return Err(PyValueError::new_err("ptr_to_bytes: ptr is NULL (0)"));
    }
    if size > isize::MAX as usize {
        return Err(PyValueError::new_err(format!(
            "ptr_to_bytes: size {size} is too large"
        )));
    }
    let mut out = vec![0u8; size];
    // SAFETY: the destination is ours; the source is vouched for by the caller and, when it
    // is a runtime allocation, bounds-checked by the core first.
    let copied = unsafe {
        api::memcpy(
            out.as_mut_ptr() as usize,
            size,
            addr,
            size,
            ACL_MEMCPY_HOST_TO_HOST,
        )
    };
    match copied {
        Ok(()) => {}
        Err(e) if e.code() == ACL_ERROR_UNINITIALIZE => {
            // SAFETY: as above; without a runtime there are no allocations to check.
            unsafe { std::ptr::copy(addr as *const u8, out.as_mut_ptr(), size) };
        }
        Err(e) => return Err(PyValueError::new_err(format!("ptr_to_bytes: {e}"))),
    }
    Ok(PyBytes::new(py, &out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(start_thread, m)?)?;
    m.add_function(wrap_pyfunction!(stop_thread, m)?)?;
    m.add_function(wrap_pyfunction!(bytes_to_ptr, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_to_ptr, m)?)?;
    m.add_function(wrap_pyfunction!(ptr_to_bytes, m)?)?;
    Ok(())
}
