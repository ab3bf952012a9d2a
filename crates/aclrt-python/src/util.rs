//! `acl.util`: threads for callback loops, and moving bytes between Python and raw memory.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread::JoinHandle;

use aclrt::api::{self, MemoryRange};
use aclrt::codes::{ACL_ERROR_INTERNAL_ERROR, ACL_ERROR_INVALID_PARAM};
use aclrt::consts::ACL_MEMCPY_HOST_TO_HOST;
use pyo3::exceptions::{PyImportError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

use crate::args::*;
use crate::callbacks::report_unraisable;
use crate::host_memory;

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
        return Err(final_type_error(
            py,
            format!("function takes exactly 2 arguments ({} given)", args.len()),
        ));
    }
    let fn_ = args.get_item(0)?;
    if !fn_.is_callable() {
        return Err(final_type_error(py, "parameter must be callable"));
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
    let tid = crate::site::detach(py, move || rx.recv())
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
    match crate::site::detach(py, || handle.join()) {
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

/// `ptr = acl.util.bytes_to_ptr(data)`: the address of the buffer of a `bytes` or `bytearray`.
/// The object is kept alive (a bytearray also kept from resizing) while the program holds it,
/// and copies may then read and write the range (see `host_memory`).
#[pyfunction]
fn bytes_to_ptr(data: &Any) -> PyResult<usize> {
    if let Ok(b) = data.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        let addr = bytes.as_ptr() as usize;
        host_memory::register(data, addr, bytes.len(), true, false)?;
        Ok(addr)
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        let addr = b.data() as usize;
        host_memory::register(data, addr, b.len(), true, true)?;
        Ok(addr)
    } else {
        Err(PyValueError::new_err(format!(
            "needs an byte as argument (bytes or bytearray), not {}",
            data.get_type().name()?
        )))
    }
}

/// The extent `[lo, hi)` of a NumPy array's elements, whatever its strides.
fn array_extent(array: &Any, data: usize) -> PyResult<Option<(usize, usize)>> {
    let size: usize = array.getattr("size")?.extract()?;
    if size == 0 {
        return Ok(None);
    }
    let itemsize: i128 = array.getattr("itemsize")?.extract()?;
    let shape: Vec<i128> = array.getattr("shape")?.extract()?;
    let strides: Vec<i128> = array.getattr("strides")?.extract()?;
    let (mut lo, mut hi) = (data as i128, data as i128 + itemsize);
    for (n, stride) in shape.iter().zip(&strides) {
        let span = (n - 1) * stride;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    match (usize::try_from(lo), usize::try_from(hi)) {
        (Ok(lo), Ok(hi)) if lo < hi => Ok(Some((lo, hi))),
        _ => Ok(None),
    }
}

/// Whether `obj` is a NumPy array (NumPy is never imported here: an object can only be an
/// array if the program imported it).
fn is_ndarray(obj: &Any) -> PyResult<bool> {
    let py = obj.py();
    let modules = py.import("sys")?.getattr("modules")?;
    match modules.get_item("numpy") {
        Ok(np) if !np.is_none() => obj.is_instance(&np.getattr("ndarray")?),
        _ => Ok(false),
    }
}

/// `ptr = acl.util.numpy_to_ptr(array)`: the data address of a NumPy array (or of anything with
/// `__array_interface__`). A NumPy array's elements are then known memory for copies (read-only
/// for a read-only array), as for `bytes_to_ptr`; other objects' addresses are returned as
/// they claim, unchecked, and not made known.
#[pyfunction]
fn numpy_to_ptr(array: &Any) -> PyResult<usize> {
    let interface = array
        .getattr("__array_interface__")
        .map_err(|_| PyValueError::new_err("needs an ndarray as argument"))?;
    let data = interface.get_item("data")?;
    let addr = usize_arg(&data.get_item(0)?, "__array_interface__['data'][0]")?;
    if is_ndarray(array)? {
        if let Some((lo, hi)) = array_extent(array, addr)? {
            let writable: bool = array.getattr("flags")?.getattr("writeable")?.extract()?;
            host_memory::register(array, lo, hi - lo, writable, false)?;
        }
    }
    Ok(addr)
}

/// `data = acl.util.ptr_to_bytes(ptr, size)`: a copy of `size` bytes at `ptr`. The range must
/// be runtime memory (bounds-checked) or inside a known host buffer, or raw pointers must be
/// allowed; it is checked before anything is allocated. `ValueError` otherwise, and for NULL;
/// `MemoryError` when Python cannot allocate the result.
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
    if size > isize::MAX as usize || addr.checked_add(size).is_none() {
        return Err(PyValueError::new_err(format!(
            "ptr_to_bytes: {size} bytes at {addr:#x} run past the end of the address space"
        )));
    }
    let what = "ptr_to_bytes: the source";
    let refused = |e: aclrt::Error| PyValueError::new_err(e.message().to_owned());
    // A known host buffer: alive while `_owner` (and the GIL) is held.
    let _owner = host_memory::known_owner(py, addr, size);
    let runtime = if _owner.is_some() {
        None
    } else {
        match api::runtime() {
            Ok(rt) => match rt.classify_memory(addr, size, what) {
                Ok(MemoryRange::Runtime) => Some(rt),
                Ok(_) if host_memory::raw_pointers() => None,
                Ok(_) => return Err(refused(host_memory::unknown(what, addr, size))),
                Err(e) => return Err(refused(e)),
            },
            Err(_) if host_memory::raw_pointers() => None,
            Err(_) => return Err(refused(host_memory::unknown(what, addr, size))),
        }
    };
    PyBytes::new_with(py, size, |out| {
        match &runtime {
            // SAFETY: `out` is ours; the source is runtime memory, checked again by the core
            // (a free since the classification is refused, never a fault: runtime memory stays
            // mapped).
            Some(rt) => unsafe {
                rt.memcpy(
                    out.as_mut_ptr() as usize,
                    size,
                    addr,
                    size,
                    ACL_MEMCPY_HOST_TO_HOST,
                )
            }
            .map_err(refused),
            None => {
                // SAFETY: the source is a live known buffer containing the range, or raw
                // pointers are allowed and the caller vouches for it; `out` is ours.
                unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), size) };
                Ok(())
            }
        }
    })
}

/// NumPy, imported when a call needs it: `ImportError` naming it when it cannot be imported.
fn numpy<'py>(py: Python<'py>, call: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import("numpy").map_err(|e| {
        PyImportError::new_err(format!(
            "acl.util.{call} needs NumPy, and numpy cannot be imported ({e})"
        ))
    })
}

/// `ptr, array = acl.util.numpy_contiguous_to_ptr(array)`: the data address of a C-contiguous
/// version of a NumPy array (the array itself when it is one, a copy otherwise), and that
/// array, which the program holds while it uses the address. Its elements are then known
/// memory for copies, as for `numpy_to_ptr`.
#[pyfunction]
fn numpy_contiguous_to_ptr<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
) -> PyResult<(usize, Bound<'py, PyAny>)> {
    let np = numpy(py, "numpy_contiguous_to_ptr")?;
    if !array.is_instance(&np.getattr("ndarray")?)? {
        return Err(PyValueError::new_err("needs an ndarray as argument"));
    }
    let contiguous: bool = array.getattr("flags")?.getattr("c_contiguous")?.extract()?;
    let array = if contiguous {
        array.clone()
    } else {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("order", "C")?;
        array.call_method("copy", (), Some(&kwargs))?
    };
    Ok((numpy_to_ptr(&array)?, array))
}

/// The NumPy dtype of type number `num` (`NPY_FLOAT` is 11): only types with a fixed, nonzero
/// size and no Python objects in them can view raw memory.
fn dtype_of<'py>(np: &Bound<'py, PyModule>, num: i32) -> PyResult<Bound<'py, PyAny>> {
    let codes: String = np.getattr("typecodes")?.get_item("All")?.extract()?;
    let dtype = np.getattr("dtype")?;
    for code in codes.chars() {
        let d = dtype.call1((code.to_string(),))?;
        if d.getattr("num")?.extract::<i32>()? != num {
            continue;
        }
        let itemsize: usize = d.getattr("itemsize")?.extract()?;
        if itemsize > 0 && !d.getattr("hasobject")?.extract::<bool>()? {
            return Ok(d);
        }
        break;
    }
    Err(PyValueError::new_err(format!(
        "{num} is not the number of a NumPy type with a fixed size and no objects"
    )))
}

/// `array = acl.util.ptr_to_numpy(ptr, shape, npy_type)`: a NumPy array of type number
/// `npy_type` and the given shape (a tuple of ints) over the memory at `ptr`, not a copy. The
/// range must be runtime memory (bounds-checked now; the memory stays mapped, so a view kept
/// after a free reads stale bytes, never faults) or inside a known host buffer, which the
/// array keeps alive (read-only for a read-only buffer), or raw pointers must be allowed.
/// `ValueError` otherwise, as for `ptr_to_bytes`.
#[pyfunction]
fn ptr_to_numpy<'py>(
    py: Python<'py>,
    ptr: &Any,
    shape: &Bound<'py, PyAny>,
    npy_type: &Any,
) -> PyResult<Bound<'py, PyAny>> {
    let addr = usize_arg(ptr, "ptr")?;
    let num = i32_arg(npy_type, "npy_type")?;
    let np = numpy(py, "ptr_to_numpy")?;
    let shape = shape
        .cast::<PyTuple>()
        .map_err(|_| PyValueError::new_err("shape is empty"))?;
    let mut dims = Vec::with_capacity(shape.len());
    for item in shape.iter() {
        if !item.is_instance_of::<pyo3::types::PyInt>() {
            return Err(final_type_error(
                py,
                "the second argument is not list of int",
            ));
        }
        let dim = item
            .extract::<i64>()
            .ok()
            .and_then(|d| usize::try_from(d).ok())
            .ok_or_else(|| {
                PyValueError::new_err(format!("shape {shape} has a negative or huge dimension"))
            })?;
        dims.push(dim);
    }
    let dtype = dtype_of(&np, num)?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    let size = dims
        .iter()
        .try_fold(itemsize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize && addr.checked_add(n).is_some())
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "ptr_to_numpy: shape {shape} of {itemsize}-byte items at {addr:#x} runs past the \
                 end of the address space"
            ))
        })?;
    if size == 0 {
        return np.call_method1("zeros", (shape, dtype));
    }
    if addr == 0 {
        return Err(PyValueError::new_err("ptr_to_numpy: ptr is NULL (0)"));
    }
    let what = "ptr_to_numpy: the memory";
    let refused = |e: aclrt::Error| PyValueError::new_err(e.message().to_owned());
    let owner = host_memory::known_owner(py, addr, size);
    let writable = match &owner {
        Some(_) => host_memory::known_writable(py, addr, size),
        None => {
            match api::runtime() {
                Ok(rt) => match rt.classify_memory(addr, size, what) {
                    Ok(MemoryRange::Runtime) => {}
                    Ok(_) if host_memory::raw_pointers() => {}
                    Ok(_) => return Err(refused(host_memory::unknown(what, addr, size))),
                    Err(e) => return Err(refused(e)),
                },
                Err(_) if host_memory::raw_pointers() => {}
                Err(_) => return Err(refused(host_memory::unknown(what, addr, size))),
            }
            true
        }
    };
    let ctypes = py.import("ctypes")?;
    let raw = ctypes
        .getattr("c_char")?
        .mul(size)?
        .call_method1("from_address", (addr,))?;
    if let Some(owner) = owner {
        // The view's buffer holds the owner: the memory lives as long as the array.
        raw.setattr("_acl_owner", owner)?;
    }
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", &dtype)?;
    let array = np
        .call_method("frombuffer", (raw,), Some(&kwargs))?
        .call_method1("reshape", (shape,))?;
    if !writable {
        array.getattr("flags")?.setattr("writeable", false)?;
    }
    Ok(array)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.util",
        [
            start_thread,
            stop_thread,
            bytes_to_ptr,
            numpy_to_ptr,
            numpy_contiguous_to_ptr,
            ptr_to_bytes,
            ptr_to_numpy,
        ]
    );
    Ok(())
}
