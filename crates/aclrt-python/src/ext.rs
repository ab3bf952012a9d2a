//! `acl.ext`: what aclrt offers beyond pyACL. Host kernels give Python programs real work to
//! put on a stream (the emulated device has no compiled operators).

use aclrt::api::{self, KernelAccess};
use aclrt::codes::ACL_ERROR_RT_AICORE_EXCEPTION;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt};

use crate::args::*;
use crate::callbacks::format_exception;

type Any<'py> = Bound<'py, PyAny>;

enum KernelError {
    Code(i32),
    Raised(String),
}

/// Queues `fn(args)` as a kernel on `stream`; returns `(task_id, ret)`.
///
/// The function runs on the stream's worker thread, holding the GIL. Returning a non-zero int
/// fails the task with that code; raising fails it with `ACL_ERROR_RT_AICORE_EXCEPTION`, the
/// traceback becoming the failure's message and going to `sys.stderr`.
///
/// `reads` and `writes` declare the memory the kernel touches, as `(ptr, size)` pairs (as
/// `aclxLaunchHostKernelWithAccess` does in C): traces and the checker (`ACLRT_CHECK`) see
/// them. Pairs with a zero pointer or size declare nothing.
#[pyfunction]
#[pyo3(signature = (fn_, args, stream, name = "", *, reads = None, writes = None))]
fn launch_host_kernel(
    fn_: &Any,
    args: &Any,
    stream: &Any,
    name: &str,
    reads: Option<&Any>,
    writes: Option<&Any>,
) -> PyResult<(u64, i32)> {
    let f = callable_arg(fn_, "fn")?.unbind();
    let data = args.clone().unbind();
    let s = stream_arg(stream)?;
    let access = KernelAccess {
        reads: ranges_arg(reads, "reads")?,
        writes: ranges_arg(writes, "writes")?,
    };
    let label = if name.is_empty() {
        f.bind(fn_.py())
            .getattr("__qualname__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "python kernel".to_owned())
    } else {
        name.to_owned()
    };
    let task_label = label.clone();
    let kernel = Box::new(move || {
        let outcome = Python::attach(|py| {
            let outcome = match f.call1(py, (data,)) {
                Ok(v) => kernel_return(v.bind(py)),
                Err(err) => {
                    let text = format_exception(py, &err);
                    let header = format!("Python exception in host kernel '{task_label}':\n");
                    if let Ok(stderr) = py.import("sys").and_then(|s| s.getattr("stderr")) {
                        let _ = stderr.call_method1("write", (format!("{header}{text}"),));
                        let _ = stderr.call_method0("flush");
                    }
                    Err(KernelError::Raised(format!("{header}{text}")))
                }
            };
            drop(f);
            outcome
        });
        match outcome {
            Ok(()) => Ok(()),
            Err(KernelError::Code(code)) => Err(code),
            Err(KernelError::Raised(text)) => {
                api::fail_kernel(aclrt::Error::new(ACL_ERROR_RT_AICORE_EXCEPTION, text))
            }
        }
    });
    Ok(value(api::launch_kernel(s, &label, access, kernel), 0))
}

/// A `reads=` / `writes=` argument: `None`, or an iterable of `(ptr, size)` pairs of ints.
fn ranges_arg(ranges: Option<&Any>, what: &str) -> PyResult<Vec<aclrt::MemRange>> {
    let Some(ranges) = ranges.filter(|r| !r.is_none()) else {
        return Ok(Vec::new());
    };
    let not_pairs = || {
        PyTypeError::new_err(format!(
            "{what} must be a list of (ptr, size) pairs of ints"
        ))
    };
    let mut out = Vec::new();
    for (i, item) in ranges.try_iter().map_err(|_| not_pairs())?.enumerate() {
        let item = item?;
        let pair: Vec<Any> = item
            .try_iter()
            .and_then(|it| it.collect::<PyResult<Vec<_>>>())
            .map_err(|_| not_pairs())?;
        let [ptr, size] = pair.as_slice() else {
            return Err(not_pairs());
        };
        let start = usize_arg(ptr, &format!("{what}[{i}][0] (ptr)"))?;
        let len = usize_arg(size, &format!("{what}[{i}][1] (size)"))?;
        if start != 0 && len != 0 {
            out.push(aclrt::MemRange { start, len });
        }
    }
    Ok(out)
}

fn kernel_return(v: &Bound<'_, PyAny>) -> Result<(), KernelError> {
    if v.is_none() || v.is_instance_of::<PyBool>() || !v.is_instance_of::<PyInt>() {
        return Ok(());
    }
    match int_bits(v, "return value") {
        Ok(0) => Ok(()),
        Ok(bits) => Err(KernelError::Code(bits as i32)),
        Err(_) => Ok(()),
    }
}

/// Names `stream` (0: the default stream) in traces; an empty name removes it. Returns `ret`.
#[pyfunction]
fn set_stream_name(stream: &Any, name: &str) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(api::set_stream_name(s, name)))
}

/// The name of an `aclError` value (the primary one where several share the number).
#[pyfunction]
fn error_name(code: &Any) -> PyResult<Option<&'static str>> {
    Ok(aclrt::codes::name_of(i32_arg(code, "code")?))
}

/// A one-line description of an `aclError` value.
#[pyfunction]
fn error_description(code: &Any) -> PyResult<Option<&'static str>> {
    Ok(aclrt::codes::describe(i32_arg(code, "code")?))
}

/// Counts of live runtime objects, of host buffers whose addresses are known and of the
/// registrations (`acl.rt.host_register`) that hold one (for leak checks).
#[pyfunction]
fn live_objects(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let live = api::live_objects();
    let d = PyDict::new(py);
    d.set_item("contexts", live.contexts)?;
    d.set_item("streams", live.streams)?;
    d.set_item("events", live.events)?;
    d.set_item("allocations", live.allocations)?;
    d.set_item("callback_threads", live.callback_threads)?;
    d.set_item("host_buffers", crate::host_memory::known_count())?;
    d.set_item("host_registrations", crate::rt_host::registered_count())?;
    Ok(d)
}

/// Whether copies, sets and `acl.util.ptr_to_bytes` trust addresses that are neither runtime
/// memory nor a live buffer from `bytes_to_ptr` / `numpy_to_ptr`, as pyACL does (a wrong one is
/// then a crash). Off unless `ACLRT_PYTHON_RAW_POINTERS=1`. Returns the previous setting.
#[pyfunction]
fn set_raw_pointers(enabled: bool) -> bool {
    crate::host_memory::set_raw_pointers(enabled)
}

/// The calling thread's `pthread_self()` (equal to `threading.get_ident()` on Linux).
#[pyfunction]
fn pthread_self() -> u64 {
    aclrt::pthread_id()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.ext",
        [
            launch_host_kernel,
            set_stream_name,
            error_name,
            error_description,
            live_objects,
            pthread_self,
            set_raw_pointers
        ]
    );
    Ok(())
}
