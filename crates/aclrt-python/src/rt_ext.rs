//! `acl.rt`: device attributes and peer access, stream abort and counts, notifies, value writes
//! and waits, and the allocation variants, with pyACL's names, argument orders and results.
//! Every rule is the core's; this module only converts arguments and results.

use aclrt::{api, NotifyHandle, StreamHandle};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList};

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// `value, ret = acl.rt.get_device_info(device_id, attr)` (`aclrtGetDeviceInfo`).
#[pyfunction]
fn get_device_info(device_id: &Any, attr: &Any) -> PyResult<(i64, i32)> {
    let id = u32_arg(device_id, "device_id")?;
    let attr = u32_arg(attr, "attr")?;
    Ok(value(api::acl(|rt| rt.get_device_info(id, attr)), 0))
}

/// `value, ret = acl.rt.get_device_capability(device_id, dev_feature_type)`
/// (`aclrtGetDeviceCapability`).
#[pyfunction]
fn get_device_capability(device_id: &Any, dev_feature_type: &Any) -> PyResult<(i32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let feature = u32_arg(dev_feature_type, "dev_feature_type")?;
    Ok(value(api::acl(|rt| rt.get_device_feature(id, feature)), 0))
}

/// `least, greatest, ret = acl.rt.device_get_stream_priority_range()`.
#[pyfunction]
fn device_get_stream_priority_range() -> (i32, i32, i32) {
    match api::acl(|rt| rt.device_get_stream_priority_range()) {
        Ok((least, greatest)) => (least, greatest, 0),
        Err(e) => (0, 0, e.code()),
    }
}

/// `uuid, ret = acl.rt.device_get_uuid(device_id)`: `uuid` is `{"bytes": [16 ints]}`, zeros on
/// failure.
#[pyfunction]
fn device_get_uuid<'py>(py: Python<'py>, device_id: &Any) -> PyResult<(Bound<'py, PyDict>, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let (bytes, code) = value(api::acl(|rt| rt.device_get_uuid(id)), [0u8; 16]);
    let d = PyDict::new(py);
    d.set_item(
        "bytes",
        bytes.iter().map(|&b| u32::from(b)).collect::<Vec<_>>(),
    )?;
    Ok((d, code))
}

/// `can_access_peer, ret = acl.rt.device_can_access_peer(device_id, peer_device_id)`.
#[pyfunction]
fn device_can_access_peer(device_id: &Any, peer_device_id: &Any) -> PyResult<(i32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let peer = i32_arg(peer_device_id, "peer_device_id")?;
    Ok(value(api::acl(|rt| rt.device_can_access_peer(id, peer)), 0))
}

/// `ret = acl.rt.device_enable_peer_access(peer_device_id, flags)`.
#[pyfunction]
fn device_enable_peer_access(peer_device_id: &Any, flags: &Any) -> PyResult<i32> {
    let peer = i32_arg(peer_device_id, "peer_device_id")?;
    let flags = u32_arg(flags, "flags")?;
    Ok(ret(api::acl(|rt| {
        rt.device_enable_peer_access(peer, flags)
    })))
}

/// `ret = acl.rt.device_disable_peer_access(peer_device_id)`.
#[pyfunction]
fn device_disable_peer_access(peer_device_id: &Any) -> PyResult<i32> {
    let peer = i32_arg(peer_device_id, "peer_device_id")?;
    Ok(ret(api::acl(|rt| rt.device_disable_peer_access(peer))))
}

/// `status, ret = acl.rt.device_peer_access_status(device_id, peer_device_id)`.
#[pyfunction]
fn device_peer_access_status(device_id: &Any, peer_device_id: &Any) -> PyResult<(i32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let peer = i32_arg(peer_device_id, "peer_device_id")?;
    Ok(value(
        api::acl(|rt| rt.device_peer_access_status(id, peer)),
        0,
    ))
}

/// `stream, ret = acl.rt.ctx_get_current_default_stream()`.
#[pyfunction]
fn ctx_get_current_default_stream() -> (u64, i32) {
    value(
        api::acl(|rt| rt.ctx_get_current_default_stream()).map(StreamHandle::as_raw),
        0,
    )
}

/// `count, ret = acl.rt.get_stream_available_num()`.
#[pyfunction]
fn get_stream_available_num() -> (u32, i32) {
    value(api::acl(|rt| rt.get_stream_available_num()), 0)
}

/// `ret = acl.rt.stream_abort(stream)`.
#[pyfunction]
fn stream_abort(py: Python<'_>, stream: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(crate::site::detach(py, || {
        api::acl(|rt| rt.stream_abort(s))
    })))
}

/// `ret = acl.rt.device_task_abort(device_id, timeout)`.
#[pyfunction]
fn device_task_abort(py: Python<'_>, device_id: &Any, timeout: &Any) -> PyResult<i32> {
    let id = i32_arg(device_id, "device_id")?;
    let timeout = u32_arg(timeout, "timeout")?;
    Ok(ret(crate::site::detach(py, || {
        api::acl(|rt| rt.device_task_abort(id, timeout))
    })))
}

/// `value, ret = acl.rt.get_devices_topo(device_id, other_device_id)`.
#[pyfunction]
fn get_devices_topo(device_id: &Any, other_device_id: &Any) -> PyResult<(u64, i32)> {
    let id = u32_arg(device_id, "device_id")?;
    let other = u32_arg(other_device_id, "other_device_id")?;
    Ok(value(api::acl(|rt| rt.get_devices_topo(id, other)), 0))
}

/// `ret = acl.rt.set_ts_device(ts_id)`.
#[pyfunction]
fn set_ts_device(ts_id: &Any) -> PyResult<i32> {
    let ts = u32_arg(ts_id, "ts_id")?;
    Ok(ret(api::acl(|rt| rt.set_ts_device(ts))))
}

/// `ret = acl.rt.cmo_async(src, size, cmo_type, stream)`: the range is checked, not read.
#[pyfunction]
fn cmo_async(src: &Any, size: &Any, cmo_type: &Any, stream: &Any) -> PyResult<i32> {
    let src = usize_arg(src, "src")?;
    let size = usize_arg(size, "size")?;
    let kind = u32_arg(cmo_type, "cmo_type")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.cmo_async(src, size, kind, s))))
}

fn notify_arg(obj: &Any) -> PyResult<NotifyHandle> {
    Ok(NotifyHandle::from_raw(int_bits(obj, "notify")?))
}

/// `notify, ret = acl.rt.create_notify(flag)`.
#[pyfunction]
fn create_notify(flag: &Any) -> PyResult<(u64, i32)> {
    let flag = int_bits(flag, "flag")?;
    Ok(value(
        api::acl(|rt| rt.create_notify(flag)).map(NotifyHandle::as_raw),
        0,
    ))
}

/// `ret = acl.rt.destroy_notify(notify)`.
#[pyfunction]
fn destroy_notify(py: Python<'_>, notify: &Any) -> PyResult<i32> {
    let n = notify_arg(notify)?;
    Ok(ret(crate::site::detach(py, || {
        api::acl(|rt| rt.destroy_notify(n))
    })))
}

/// `ret = acl.rt.record_notify(notify, stream)`.
#[pyfunction]
fn record_notify(notify: &Any, stream: &Any) -> PyResult<i32> {
    let n = notify_arg(notify)?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.record_notify(n, s))))
}

/// The largest timeout `wait_and_reset_notify` takes, plus one.
const TIMEOUT_LIMIT: i128 = 1 << 32;

/// `ret = acl.rt.wait_and_reset_notify(notify, stream, timeout)`: `timeout` in seconds. As in
/// pyACL, a negative timeout or one of 2**32 or more raises `TypeError` with pyACL's texts.
#[pyfunction]
fn wait_and_reset_notify(
    py: Python<'_>,
    notify: &Any,
    stream: &Any,
    timeout: &Any,
) -> PyResult<i32> {
    let n = notify_arg(notify)?;
    let s = stream_arg(stream)?;
    int_bits(timeout, "timeout")?;
    let t: i128 = timeout.extract()?;
    if t < 0 {
        return Err(final_type_error(py, "timeout can't be a negative number!"));
    }
    if t >= TIMEOUT_LIMIT {
        return Err(final_type_error(py, "timeout should be less than 2**32!"));
    }
    Ok(ret(api::acl(|rt| rt.wait_and_reset_notify(n, s, t as u32))))
}

/// `notify_id, ret = acl.rt.get_notify_id(notify)`.
#[pyfunction]
fn get_notify_id(notify: &Any) -> PyResult<(u32, i32)> {
    let n = notify_arg(notify)?;
    Ok(value(api::acl(|rt| rt.get_notify_id(n)), 0))
}

/// `ret = acl.rt.notify_batch_reset(notifies)`: `notifies` is a list of ints; anything else
/// raises `ValueError` with pyACL's texts.
#[pyfunction]
fn notify_batch_reset(notifies: &Any) -> PyResult<i32> {
    let list = notifies
        .cast::<PyList>()
        .map_err(|_| PyValueError::new_err("argument only support the format of list"))?;
    let mut handles = Vec::with_capacity(list.len());
    for item in list.iter() {
        let raw = item
            .is_instance_of::<PyInt>()
            .then(|| item.extract::<u64>().ok())
            .flatten()
            .ok_or_else(|| PyValueError::new_err("get notify pointers from PyList failed"))?;
        handles.push(NotifyHandle::from_raw(raw));
    }
    Ok(ret(api::acl(|rt| rt.notify_batch_reset(&handles))))
}

/// `handle, ret = acl.rt.ipc_get_event_handle(event)`: `handle` is the 64 bytes of an
/// `aclrtIpcEventHandle` (empty on failure).
#[pyfunction]
fn ipc_get_event_handle<'py>(py: Python<'py>, event: &Any) -> PyResult<(Bound<'py, PyBytes>, i32)> {
    let e = event_arg(event, "event")?;
    Ok(match api::acl(|rt| rt.ipc_get_event_handle(e)) {
        Ok(bytes) => (PyBytes::new(py, &bytes), 0),
        Err(err) => (PyBytes::new(py, &[]), err.code()),
    })
}

/// `event, ret = acl.rt.ipc_open_event_handle(handle)`: `handle` is the 64 bytes
/// `ipc_get_event_handle` returned (bytes or bytearray; another length raises `ValueError`).
#[pyfunction]
fn ipc_open_event_handle(handle: &Any) -> PyResult<(u64, i32)> {
    let raw: Vec<u8> = handle.extract()?;
    let bytes: [u8; aclrt::ipc::HANDLE_SIZE] = raw.try_into().map_err(|_| {
        PyValueError::new_err(format!("handle must be {} bytes", aclrt::ipc::HANDLE_SIZE))
    })?;
    Ok(value(
        api::acl(|rt| rt.ipc_open_event_handle(&bytes)).map(aclrt::EventHandle::as_raw),
        0,
    ))
}

/// `key, ret = acl.rt.notify_get_export_key(notify, flags)`: the key as a string (empty on
/// failure), read into a buffer of the documented minimum length.
#[pyfunction]
fn notify_get_export_key(notify: &Any, flags: &Any) -> PyResult<(String, i32)> {
    let n = notify_arg(notify)?;
    let flags = int_bits(flags, "flags")?;
    let len = aclrt::api::NOTIFY_KEY_MIN_LEN;
    Ok(value(
        api::acl(|rt| rt.notify_get_export_key(n, len, flags)),
        String::new(),
    ))
}

/// `notify, ret = acl.rt.notify_import_by_key(key, flags)`.
#[pyfunction]
fn notify_import_by_key(key: &Any, flags: &Any) -> PyResult<(u64, i32)> {
    let key: String = key.extract()?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(
        api::acl(|rt| rt.notify_import_by_key(&key, flags)).map(NotifyHandle::as_raw),
        0,
    ))
}

/// `ret = acl.rt.notify_set_import_pid(notify, pids)`: `pids` is a list of ints.
#[pyfunction]
fn notify_set_import_pid(notify: &Any, pids: &Any) -> PyResult<i32> {
    let n = notify_arg(notify)?;
    let list = pids
        .cast::<PyList>()
        .map_err(|_| PyValueError::new_err("argument only support the format of list"))?;
    let pids = list
        .iter()
        .map(|p| p.extract::<i32>())
        .collect::<PyResult<Vec<i32>>>()?;
    Ok(ret(api::acl(|rt| rt.notify_set_import_pid(n, &pids))))
}

/// `ret = acl.rt.value_write(dev_addr, value, flag, stream)`.
#[pyfunction]
fn value_write(dev_addr: &Any, value: &Any, flag: &Any, stream: &Any) -> PyResult<i32> {
    let addr = usize_arg(dev_addr, "dev_addr")?;
    let v = int_bits(value, "value")?;
    let flag = u32_arg(flag, "flag")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.value_write(addr, v, flag, s))))
}

/// `ret = acl.rt.value_wait(dev_addr, value, flag, stream)`.
#[pyfunction]
fn value_wait(dev_addr: &Any, value: &Any, flag: &Any, stream: &Any) -> PyResult<i32> {
    let addr = usize_arg(dev_addr, "dev_addr")?;
    let v = int_bits(value, "value")?;
    let flag = u32_arg(flag, "flag")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.value_wait(addr, v, flag, s))))
}

/// `dev_ptr, ret = acl.rt.malloc_align32(size, policy)`.
#[pyfunction]
fn malloc_align32(size: &Any, policy: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let policy = u32_arg(policy, "policy")?;
    Ok(value(api::acl(|rt| rt.malloc_align32(size, policy)), 0))
}

/// `dev_ptr, ret = acl.rt.malloc_cached(size, policy)`.
#[pyfunction]
fn malloc_cached(size: &Any, policy: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let policy = u32_arg(policy, "policy")?;
    Ok(value(api::acl(|rt| rt.malloc_cached(size, policy)), 0))
}

/// `ret = acl.rt.mem_flush(dev_ptr, size)`.
#[pyfunction]
fn mem_flush(dev_ptr: &Any, size: &Any) -> PyResult<i32> {
    let ptr = usize_arg(dev_ptr, "dev_ptr")?;
    let size = usize_arg(size, "size")?;
    Ok(ret(api::acl(|rt| rt.mem_flush(ptr, size))))
}

/// `ret = acl.rt.mem_invalidate(dev_ptr, size)`.
#[pyfunction]
fn mem_invalidate(dev_ptr: &Any, size: &Any) -> PyResult<i32> {
    let ptr = usize_arg(dev_ptr, "dev_ptr")?;
    let size = usize_arg(size, "size")?;
    Ok(ret(api::acl(|rt| rt.mem_invalidate(ptr, size))))
}

/// `attributes, ret = acl.rt.pointer_get_attributes(ptr)`: an `aclrtPtrAttributes` dict,
/// `{"location": {"id", "type"}, "page_size", "rsv": [0, 0, 0, 0]}`, zeros on failure.
#[pyfunction]
fn pointer_get_attributes<'py>(py: Python<'py>, ptr: &Any) -> PyResult<(Bound<'py, PyDict>, i32)> {
    let ptr = usize_arg(ptr, "ptr")?;
    let result = api::acl(|rt| rt.pointer_get_attributes(ptr));
    let a = result.as_ref().ok();
    let location = PyDict::new(py);
    location.set_item("id", a.map_or(0, |a| a.location_id))?;
    location.set_item("type", a.map_or(0, |a| a.location_type))?;
    let d = PyDict::new(py);
    d.set_item("location", location)?;
    d.set_item("page_size", a.map_or(0, |a| a.page_size))?;
    d.set_item("rsv", vec![0u32; 4])?;
    Ok((d, ret(result.map(|_| ()))))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            get_device_info,
            get_device_capability,
            device_get_stream_priority_range,
            device_get_uuid,
            device_can_access_peer,
            device_enable_peer_access,
            device_disable_peer_access,
            device_peer_access_status,
            ctx_get_current_default_stream,
            get_stream_available_num,
            stream_abort,
            device_task_abort,
            get_devices_topo,
            set_ts_device,
            cmo_async,
            create_notify,
            destroy_notify,
            record_notify,
            wait_and_reset_notify,
            get_notify_id,
            notify_batch_reset,
            notify_get_export_key,
            notify_import_by_key,
            notify_set_import_pid,
            ipc_get_event_handle,
            ipc_open_event_handle,
            value_write,
            value_wait,
            malloc_align32,
            malloc_cached,
            mem_flush,
            mem_invalidate,
            pointer_get_attributes,
        ]
    );
    Ok(())
}
