//! `acl.rt`: the runtime calls, named after the C functions in snake case.

use std::sync::Arc;

use aclrt::api;
use aclrt::consts::{ACL_DEVICE, ACL_HOST, ACL_RT_THREAD_LEVEL};
use aclrt::vendor_consts::ACL_RT_DEVICE_STATUS_END;
use aclrt::{Runtime, StreamHandle};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};

use crate::args::*;
use crate::callbacks;
use crate::host_memory::vet;

type Any<'py> = Bound<'py, PyAny>;

#[pyfunction]
fn set_device(device_id: &Any) -> PyResult<i32> {
    Ok(ret(api::set_device(i32_arg(device_id, "device_id")?)))
}

#[pyfunction]
fn reset_device(py: Python<'_>, device_id: &Any) -> PyResult<i32> {
    let id = i32_arg(device_id, "device_id")?;
    Ok(ret(crate::site::detach(py, || api::reset_device(id))))
}

/// `acl.rt.reset_device_force(device_id)`: releases the device whatever its set count, by
/// resetting it until the count is zero (the last reset waits for pending work and destroys
/// the default context). A device whose count is already zero: `507007`, as for `reset_device`.
#[pyfunction]
fn reset_device_force(py: Python<'_>, device_id: &Any) -> PyResult<i32> {
    let id = i32_arg(device_id, "device_id")?;
    Ok(ret(crate::site::detach(py, || {
        api::acl(|rt| rt.reset_device_force(id))
    })))
}

/// `acl.rt.get_run_mode()`: the program runs on the host side of the (emulated) device.
#[pyfunction]
fn get_run_mode() -> (u32, i32) {
    value(api::acl(|_| Ok(ACL_HOST)), ACL_DEVICE)
}

/// `acl.rt.query_device_status(device_id)`: an emulated device is always normal
/// (`ACL_RT_DEVICE_STATUS_NORMAL`); on failure the status is `ACL_RT_DEVICE_STATUS_END`.
#[pyfunction]
fn query_device_status(device_id: &Any) -> PyResult<(u32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    Ok(value(
        api::acl(|rt| rt.query_device_status(id)),
        ACL_RT_DEVICE_STATUS_END as u32,
    ))
}

/// `acl.rt.get_device_utilization_rate(device_id)`: a dict of `aclrtUtilizationInfo`. The
/// emulated device has no Cube, Vector or AI CPU units: they read 0; memory utilization is a
/// reserved field the vendor reports as -1. On failure every field is 0.
#[pyfunction]
fn get_device_utilization_rate<'py>(
    py: Python<'py>,
    device_id: &Any,
) -> PyResult<(Bound<'py, PyDict>, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let result = api::acl(|rt| rt.get_device_utilization_rate(id));
    let u = result.as_ref().ok();
    let info = PyDict::new(py);
    info.set_item("cube_utilization", u.map_or(0, |u| u.cube))?;
    info.set_item("vector_utilization", u.map_or(0, |u| u.vector))?;
    info.set_item("aicpu_utilization", u.map_or(0, |u| u.aicpu))?;
    info.set_item("memory_utilization", u.map_or(0, |u| u.memory))?;
    info.set_item("utilization_extend", 0)?;
    Ok((info, ret(result.map(|_| ()))))
}

#[pyfunction]
fn get_device() -> (i32, i32) {
    value(api::get_device(), 0)
}

#[pyfunction]
fn get_device_count() -> (u32, i32) {
    value(api::get_device_count(), 0)
}

#[pyfunction]
fn create_context(device_id: &Any) -> PyResult<(u64, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    Ok(value(api::create_context(id).map(|c| c.as_raw()), 0))
}

#[pyfunction]
fn destroy_context(py: Python<'_>, context: &Any) -> PyResult<i32> {
    let ctx = context_arg(context)?;
    Ok(ret(crate::site::detach(py, || api::destroy_context(ctx))))
}

#[pyfunction]
fn set_context(context: &Any) -> PyResult<i32> {
    Ok(ret(api::set_current_context(context_arg(context)?)))
}

#[pyfunction]
fn get_context() -> (u64, i32) {
    value(api::get_current_context().map(|c| c.as_raw()), 0)
}

#[pyfunction]
fn create_stream() -> (u64, i32) {
    value(api::create_stream().map(StreamHandle::as_raw), 0)
}

#[pyfunction]
fn create_stream_with_config(priority: &Any, flag: &Any) -> PyResult<(u64, i32)> {
    let priority = u32_arg(priority, "priority")?;
    let flag = u32_arg(flag, "flag")?;
    Ok(value(
        api::create_stream_with_config(priority, flag).map(StreamHandle::as_raw),
        0,
    ))
}

#[pyfunction]
fn destroy_stream(py: Python<'_>, stream: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(crate::site::detach(py, || api::destroy_stream(s))))
}

#[pyfunction]
fn destroy_stream_force(py: Python<'_>, stream: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(crate::site::detach(py, || {
        api::destroy_stream_force(s)
    })))
}

#[pyfunction]
fn synchronize_stream(py: Python<'_>, stream: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(crate::site::detach(py, || api::synchronize_stream(s))))
}

#[pyfunction]
fn synchronize_stream_with_timeout(py: Python<'_>, stream: &Any, timeout: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let ms = i32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || {
        api::synchronize_stream_with_timeout(s, ms)
    })))
}

#[pyfunction]
fn stream_query(stream: &Any) -> PyResult<(u32, i32)> {
    Ok(value(api::stream_query(stream_arg(stream)?), 0))
}

#[pyfunction]
fn stream_get_id(stream: &Any) -> PyResult<(i32, i32)> {
    Ok(value(api::stream_get_id(stream_arg(stream)?), 0))
}

#[pyfunction]
fn set_stream_failure_mode(stream: &Any, mode: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let mode = int_bits(mode, "mode")?;
    Ok(ret(api::set_stream_failure_mode(s, mode)))
}

#[pyfunction]
fn synchronize_device(py: Python<'_>) -> i32 {
    ret(crate::site::detach(py, api::synchronize_device))
}

#[pyfunction]
fn synchronize_device_with_timeout(py: Python<'_>, timeout: &Any) -> PyResult<i32> {
    let ms = i32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || {
        api::synchronize_device_with_timeout(ms)
    })))
}

#[pyfunction]
fn create_event() -> (u64, i32) {
    value(api::create_event().map(|e| e.as_raw()), 0)
}

#[pyfunction]
fn create_event_with_flag(flag: &Any) -> PyResult<(u64, i32)> {
    let flag = u32_arg(flag, "flag")?;
    Ok(value(
        api::create_event_with_flag(flag).map(|e| e.as_raw()),
        0,
    ))
}

#[pyfunction]
fn create_event_ex_with_flag(flag: &Any) -> PyResult<(u64, i32)> {
    let flag = u32_arg(flag, "flag")?;
    Ok(value(
        api::create_event_ex_with_flag(flag).map(|e| e.as_raw()),
        0,
    ))
}

#[pyfunction]
fn destroy_event(event: &Any) -> PyResult<i32> {
    Ok(ret(api::destroy_event(event_arg(event, "event")?)))
}

#[pyfunction]
fn record_event(event: &Any, stream: &Any) -> PyResult<i32> {
    let e = event_arg(event, "event")?;
    Ok(ret(api::record_event(e, stream_arg(stream)?)))
}

#[pyfunction]
fn reset_event(event: &Any, stream: &Any) -> PyResult<i32> {
    let e = event_arg(event, "event")?;
    Ok(ret(api::reset_event(e, stream_arg(stream)?)))
}

#[pyfunction]
fn query_event(event: &Any) -> PyResult<(u32, i32)> {
    Ok(value(api::query_event(event_arg(event, "event")?), 0))
}

#[pyfunction]
fn query_event_status(event: &Any) -> PyResult<(u32, i32)> {
    Ok(value(
        api::query_event_status(event_arg(event, "event")?),
        0,
    ))
}

#[pyfunction]
fn query_event_wait_status(event: &Any) -> PyResult<(u32, i32)> {
    Ok(value(
        api::query_event_wait_status(event_arg(event, "event")?),
        0,
    ))
}

#[pyfunction]
fn synchronize_event(py: Python<'_>, event: &Any) -> PyResult<i32> {
    let e = event_arg(event, "event")?;
    Ok(ret(crate::site::detach(py, || api::synchronize_event(e))))
}

#[pyfunction]
fn synchronize_event_with_timeout(py: Python<'_>, event: &Any, timeout: &Any) -> PyResult<i32> {
    let e = event_arg(event, "event")?;
    let ms = i32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || {
        api::synchronize_event_with_timeout(e, ms)
    })))
}

#[pyfunction]
fn event_elapsed_time(start: &Any, end: &Any) -> PyResult<(f64, i32)> {
    let s = event_arg(start, "start")?;
    let e = event_arg(end, "end")?;
    Ok(value(api::event_elapsed_time(s, e).map(f64::from), 0.0))
}

#[pyfunction]
fn event_get_timestamp(event: &Any) -> PyResult<(u64, i32)> {
    Ok(value(
        api::event_get_timestamp(event_arg(event, "event")?),
        0,
    ))
}

#[pyfunction]
fn stream_wait_event(py: Python<'_>, stream: &Any, event: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let e = event_arg(event, "event")?;
    Ok(ret(crate::site::detach(py, || {
        api::stream_wait_event(s, e)
    })))
}

#[pyfunction]
fn stream_wait_event_with_timeout(
    py: Python<'_>,
    stream: &Any,
    event: &Any,
    timeout: &Any,
) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let e = event_arg(event, "event")?;
    let ms = i32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || {
        api::stream_wait_event_with_timeout(s, e, ms)
    })))
}

/// `event_id, ret = acl.rt.get_event_id(event)`. pyACL hands this call's parse failure no text
/// of its own, so it raises Python's: `function takes exactly 1 argument (N given)`,
/// `argument 1 must be int, not str`.
#[pyfunction]
#[pyo3(signature = (*args))]
fn get_event_id(py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<(u32, i32)> {
    if args.len() != 1 {
        return Err(final_type_error(
            py,
            format!("function takes exactly 1 argument ({} given)", args.len()),
        ));
    }
    let event = args.get_item(0)?;
    if !event.is_instance_of::<PyInt>() {
        let type_name = if event.is_none() {
            "None".to_owned()
        } else {
            event.get_type().name()?.to_string()
        };
        return Err(final_type_error(
            py,
            format!("argument 1 must be int, not {type_name}"),
        ));
    }
    Ok(value(api::get_event_id(event_arg(&event, "event")?), 0))
}

#[pyfunction]
fn get_event_avail_num() -> (u32, i32) {
    value(api::get_event_avail_num(), 0)
}

#[pyfunction]
fn subscribe_report(thread_id: &Any, stream: &Any) -> PyResult<i32> {
    let tid = int_bits(thread_id, "thread_id")?;
    Ok(ret(api::subscribe_report(tid, stream_arg(stream)?)))
}

#[pyfunction]
fn unsubscribe_report(thread_id: &Any, stream: &Any) -> PyResult<i32> {
    let tid = int_bits(thread_id, "thread_id")?;
    Ok(ret(api::unsubscribe_report(tid, stream_arg(stream)?)))
}

#[pyfunction]
fn malloc(size: &Any, policy: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let policy = u32_arg(policy, "policy")?;
    Ok(value(api::malloc(size, policy), 0))
}

#[pyfunction]
fn malloc_host(size: &Any) -> PyResult<(usize, i32)> {
    Ok(value(api::malloc_host(usize_arg(size, "size")?), 0))
}

#[pyfunction(name = "free")]
fn free_(ptr: &Any) -> PyResult<i32> {
    Ok(ret(api::free(usize_arg(ptr, "dev_ptr")?)))
}

#[pyfunction]
fn free_host(ptr: &Any) -> PyResult<i32> {
    Ok(ret(api::free_host(usize_arg(ptr, "host_ptr")?)))
}

// Pointers are plain ints, as in pyACL, but a copy or set touches only memory the runtime or
// this module knows (see `host_memory`), unless raw pointers are allowed. A range is vetted
// only when the core would go on to touch it (it refuses NULL and count > max itself).

/// Host buffers an asynchronous task uses, kept alive until the task has run.
pub(crate) type KeepAlive = Vec<Py<PyAny>>;

/// Queues, behind the task just submitted on `stream`, the release of the buffers it uses.
/// If that cannot be queued the buffers are never released: leaking is safe, freeing early is
/// not.
pub(crate) fn release_after(rt: &Runtime, stream: StreamHandle, keep: KeepAlive) {
    if keep.is_empty() {
        return;
    }
    let keep = Arc::new(keep);
    let held = Arc::clone(&keep);
    if rt
        .launch_host_func(stream, Box::new(move || drop(held)))
        .is_err()
    {
        std::mem::forget(keep);
    }
}

/// The two ranges of a copy, vetted (see `host_memory`); nothing when `count > max`, which the
/// core refuses before touching anything.
pub(crate) fn vet_copy(
    py: Python<'_>,
    rt: &Runtime,
    (dst, max, src, count): (usize, usize, usize, usize),
    call: &str,
) -> aclrt::Result<KeepAlive> {
    if count > max {
        return Ok(Vec::new());
    }
    let d = vet(
        py,
        rt,
        dst,
        count,
        true,
        &format!("{call}: the destination"),
    )?;
    let s = vet(py, rt, src, count, false, &format!("{call}: the source"))?;
    Ok(d.into_iter().chain(s).collect())
}

fn vet_set(
    py: Python<'_>,
    rt: &Runtime,
    (ptr, max, count): (usize, usize, usize),
    call: &str,
) -> aclrt::Result<KeepAlive> {
    if count > max {
        return Ok(Vec::new());
    }
    Ok(vet(py, rt, ptr, count, true, call)?.into_iter().collect())
}

#[pyfunction]
fn memcpy(
    py: Python<'_>,
    dst: &Any,
    dest_max: &Any,
    src: &Any,
    count: &Any,
    kind: &Any,
) -> PyResult<i32> {
    let (dst, max) = (usize_arg(dst, "dst")?, usize_arg(dest_max, "dest_max")?);
    let (src, count) = (usize_arg(src, "src")?, usize_arg(count, "count")?);
    let kind = u32_arg(kind, "kind")?;
    Ok(ret(api::acl(|rt| {
        let _keep = vet_copy(py, rt, (dst, max, src, count), "aclrtMemcpy")?;
        // Without the interpreter lock: the copy may wait for an export's move, which waits
        // for running host kernels, which may be Python code.
        // SAFETY: a range outside runtime memory is a live host buffer held by `_keep` for the
        // copy (an exported buffer cannot be resized meanwhile), or raw pointers were allowed
        // and the caller vouches for it; runtime memory is bounds-checked by the core.
        crate::site::detach(py, || unsafe { rt.memcpy(dst, max, src, count, kind) })
    })))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn memcpy_async(
    py: Python<'_>,
    dst: &Any,
    dest_max: &Any,
    src: &Any,
    count: &Any,
    kind: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let (dst, max) = (usize_arg(dst, "dst")?, usize_arg(dest_max, "dest_max")?);
    let (src, count) = (usize_arg(src, "src")?, usize_arg(count, "count")?);
    let kind = u32_arg(kind, "kind")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| {
        let keep = vet_copy(py, rt, (dst, max, src, count), "aclrtMemcpyAsync")?;
        // SAFETY: as for `memcpy`; host buffers stay alive until the copy has run, through
        // `release_after` (runtime memory is never unmapped).
        unsafe { rt.memcpy_async(dst, max, src, count, kind, s) }?;
        release_after(rt, s, keep);
        Ok(())
    })))
}

#[pyfunction]
fn memset(
    py: Python<'_>,
    dev_ptr: &Any,
    max_count: &Any,
    value: &Any,
    count: &Any,
) -> PyResult<i32> {
    let (ptr, max) = (
        usize_arg(dev_ptr, "dev_ptr")?,
        usize_arg(max_count, "max_count")?,
    );
    let v = i32_arg(value, "value")?;
    let count = usize_arg(count, "count")?;
    Ok(ret(api::acl(|rt| {
        let _keep = vet_set(py, rt, (ptr, max, count), "aclrtMemset")?;
        // SAFETY: as for `memcpy` (and without the interpreter lock for the same reason).
        crate::site::detach(py, || unsafe { rt.memset(ptr, max, v, count) })
    })))
}

#[pyfunction]
fn memset_async(
    py: Python<'_>,
    dev_ptr: &Any,
    max_count: &Any,
    value: &Any,
    count: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let (ptr, max) = (
        usize_arg(dev_ptr, "dev_ptr")?,
        usize_arg(max_count, "max_count")?,
    );
    let v = i32_arg(value, "value")?;
    let count = usize_arg(count, "count")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| {
        let keep = vet_set(py, rt, (ptr, max, count), "aclrtMemsetAsync")?;
        // SAFETY: as for `memcpy_async`.
        unsafe { rt.memset_async(ptr, max, v, count, s) }?;
        release_after(rt, s, keep);
        Ok(())
    })))
}

#[pyfunction]
fn get_mem_info(attr: &Any) -> PyResult<(usize, usize, i32)> {
    let attr = u32_arg(attr, "attr")?;
    Ok(match api::get_mem_info(attr) {
        Ok((free, total)) => (free, total, 0),
        Err(e) => (0, 0, e.code()),
    })
}

/// The level defaults to the thread level, the only one (the core's rule decides the rest).
fn last_error_level(level: Option<&Any>) -> PyResult<u32> {
    level.map_or(Ok(ACL_RT_THREAD_LEVEL), |level| u32_arg(level, "level"))
}

#[pyfunction]
#[pyo3(signature = (level = None))]
fn peek_at_last_error(level: Option<&Any>) -> PyResult<i32> {
    Ok(api::last_error_at(last_error_level(level)?, false))
}

#[pyfunction]
#[pyo3(signature = (level = None))]
fn get_last_error(level: Option<&Any>) -> PyResult<i32> {
    Ok(api::last_error_at(last_error_level(level)?, true))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            set_device,
            reset_device,
            reset_device_force,
            get_run_mode,
            query_device_status,
            get_device_utilization_rate,
            get_device,
            get_device_count,
            create_context,
            destroy_context,
            set_context,
            get_context,
            create_stream,
            create_stream_with_config,
            destroy_stream,
            destroy_stream_force,
            synchronize_stream,
            synchronize_stream_with_timeout,
            stream_query,
            stream_get_id,
            set_stream_failure_mode,
            synchronize_device,
            synchronize_device_with_timeout,
            create_event,
            create_event_with_flag,
            create_event_ex_with_flag,
            destroy_event,
            record_event,
            reset_event,
            query_event,
            query_event_status,
            query_event_wait_status,
            synchronize_event,
            synchronize_event_with_timeout,
            event_elapsed_time,
            event_get_timestamp,
            stream_wait_event,
            stream_wait_event_with_timeout,
            get_event_id,
            get_event_avail_num,
            subscribe_report,
            unsubscribe_report,
            malloc,
            malloc_host,
            free_,
            free_host,
            memcpy,
            memcpy_async,
            memset,
            memset_async,
            get_mem_info,
            peek_at_last_error,
            get_last_error,
        ]
    );
    callbacks::register_rt(m)
}
