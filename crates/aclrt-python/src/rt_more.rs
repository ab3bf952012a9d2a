//! `acl.rt`: resource limits, 2D copies, the conditional copy, copies through descriptors,
//! `malloc_with_cfg`, `malloc_for_task_scheduler` and the allocation granularity, with pyACL's
//! names, argument orders and results. Every rule is the core's; this module converts
//! arguments (the dicts of `aclrtMallocConfig` and `aclrtPhysicalMemProp`) and results, and
//! vets host ranges of 2D and conditional copies as `acl.rt.memcpy` vets its own. Copies
//! through descriptors take device memory only, which the core checks, so they have no host
//! range to vet.

use aclrt::api::{self, MallocAttribute};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::args::*;
use crate::host_memory::vet;
use crate::rt::{release_after, vet_copy, KeepAlive};

type Any<'py> = Bound<'py, PyAny>;

// --- Resource limits --------------------------------------------------------------------

/// `value, ret = acl.rt.get_device_res_limit(device_id, type)` (`aclrtGetDeviceResLimit`).
#[pyfunction]
#[pyo3(signature = (device_id, r#type))]
fn get_device_res_limit(device_id: &Any, r#type: &Any) -> PyResult<(u32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let kind = u32_arg(r#type, "type")?;
    Ok(value(api::get_device_res_limit(id, kind), 0))
}

/// `ret = acl.rt.set_device_res_limit(device_id, type, value)` (`aclrtSetDeviceResLimit`).
#[pyfunction]
#[pyo3(signature = (device_id, r#type, value))]
fn set_device_res_limit(device_id: &Any, r#type: &Any, value: &Any) -> PyResult<i32> {
    let id = i32_arg(device_id, "device_id")?;
    let kind = u32_arg(r#type, "type")?;
    let v = u32_arg(value, "value")?;
    Ok(ret(api::set_device_res_limit(id, kind, v)))
}

/// `ret = acl.rt.reset_device_res_limit(device_id)` (`aclrtResetDeviceResLimit`).
#[pyfunction]
fn reset_device_res_limit(device_id: &Any) -> PyResult<i32> {
    Ok(ret(api::reset_device_res_limit(i32_arg(
        device_id,
        "device_id",
    )?)))
}

/// `value, ret = acl.rt.get_stream_res_limit(stream, type)` (`aclrtGetStreamResLimit`).
#[pyfunction]
#[pyo3(signature = (stream, r#type))]
fn get_stream_res_limit(stream: &Any, r#type: &Any) -> PyResult<(u32, i32)> {
    let s = stream_arg(stream)?;
    let kind = u32_arg(r#type, "type")?;
    Ok(value(api::get_stream_res_limit(s, kind), 0))
}

/// `ret = acl.rt.set_stream_res_limit(stream, type, value)` (`aclrtSetStreamResLimit`).
#[pyfunction]
#[pyo3(signature = (stream, r#type, value))]
fn set_stream_res_limit(stream: &Any, r#type: &Any, value: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let kind = u32_arg(r#type, "type")?;
    let v = u32_arg(value, "value")?;
    Ok(ret(api::set_stream_res_limit(s, kind, v)))
}

/// `ret = acl.rt.reset_stream_res_limit(stream)` (`aclrtResetStreamResLimit`).
#[pyfunction]
fn reset_stream_res_limit(stream: &Any) -> PyResult<i32> {
    Ok(ret(api::reset_stream_res_limit(stream_arg(stream)?)))
}

/// `ret = acl.rt.use_stream_res_in_current_thread(stream)`
/// (`aclrtUseStreamResInCurrentThread`).
#[pyfunction]
fn use_stream_res_in_current_thread(stream: &Any) -> PyResult<i32> {
    Ok(ret(api::use_stream_res_in_current_thread(stream_arg(
        stream,
    )?)))
}

/// `ret = acl.rt.unuse_stream_res_in_current_thread(stream)`
/// (`aclrtUnuseStreamResInCurrentThread`).
#[pyfunction]
fn unuse_stream_res_in_current_thread(stream: &Any) -> PyResult<i32> {
    Ok(ret(api::unuse_stream_res_in_current_thread(stream_arg(
        stream,
    )?)))
}

/// `value, ret = acl.rt.get_res_in_current_thread(type)` (`aclrtGetResInCurrentThread`).
#[pyfunction]
#[pyo3(signature = (r#type))]
fn get_res_in_current_thread(r#type: &Any) -> PyResult<(u32, i32)> {
    let kind = u32_arg(r#type, "type")?;
    Ok(value(api::get_res_in_current_thread(kind), 0))
}

// --- 2D copies --------------------------------------------------------------------------

/// A 2D copy's `(dst, dpitch, src, spitch, width, height)`.
type Plane2d = (usize, usize, usize, usize, usize, usize);

/// The host buffers a 2D copy touches, vetted as `acl.rt.memcpy` vets its ranges: each side's
/// whole span (first row's start to last row's end). A span that does not fit in an address
/// is left to the core, which refuses it.
fn vet_2d(
    py: Python<'_>,
    rt: &aclrt::Runtime,
    (dst, dpitch, src, spitch, width, height): Plane2d,
    call: &str,
) -> aclrt::Result<KeepAlive> {
    let (Some(dst_span), Some(src_span)) = (
        api::span_2d(dpitch, width, height),
        api::span_2d(spitch, width, height),
    ) else {
        return Ok(Vec::new());
    };
    let d = vet(
        py,
        rt,
        dst,
        dst_span,
        true,
        &format!("{call}: the destination"),
    )?;
    let s = vet(py, rt, src, src_span, false, &format!("{call}: the source"))?;
    Ok(d.into_iter().chain(s).collect())
}

fn plane_args(
    dst: &Any,
    dpitch: &Any,
    src: &Any,
    spitch: &Any,
    width: &Any,
    height: &Any,
) -> PyResult<Plane2d> {
    Ok((
        usize_arg(dst, "dst")?,
        usize_arg(dpitch, "dpitch")?,
        usize_arg(src, "src")?,
        usize_arg(spitch, "spitch")?,
        usize_arg(width, "width")?,
        usize_arg(height, "height")?,
    ))
}

/// `ret = acl.rt.memcpy2d(dst, dpitch, src, spitch, width, height, kind)` (`aclrtMemcpy2d`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn memcpy2d(
    py: Python<'_>,
    dst: &Any,
    dpitch: &Any,
    src: &Any,
    spitch: &Any,
    width: &Any,
    height: &Any,
    kind: &Any,
) -> PyResult<i32> {
    let plane = plane_args(dst, dpitch, src, spitch, width, height)?;
    let kind = u32_arg(kind, "kind")?;
    let (d, dp, s, sp, w, h) = plane;
    Ok(ret(api::acl(|rt| {
        let _keep = vet_2d(py, rt, plane, "aclrtMemcpy2d")?;
        // SAFETY: each span outside runtime memory lies in a live host buffer held by `_keep`
        // for the copy (without the interpreter lock, as `acl.rt.memcpy`), or raw pointers
        // were allowed and the caller vouches for it; runtime memory and the spans' arithmetic
        // are checked by the core.
        crate::site::detach(py, || unsafe { rt.memcpy_2d(d, dp, s, sp, w, h, kind) })
    })))
}

/// `ret = acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream)`
/// (`aclrtMemcpy2dAsync`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn memcpy2d_async(
    py: Python<'_>,
    dst: &Any,
    dpitch: &Any,
    src: &Any,
    spitch: &Any,
    width: &Any,
    height: &Any,
    kind: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let plane = plane_args(dst, dpitch, src, spitch, width, height)?;
    let kind = u32_arg(kind, "kind")?;
    let stream = stream_arg(stream)?;
    let (d, dp, s, sp, w, h) = plane;
    Ok(ret(api::acl(|rt| {
        let keep = vet_2d(py, rt, plane, "aclrtMemcpy2dAsync")?;
        // SAFETY: as for `memcpy2d`; host buffers stay alive until the copy has run, through
        // `release_after` (runtime memory is never unmapped).
        unsafe { rt.memcpy_2d_async(d, dp, s, sp, w, h, kind, stream) }?;
        release_after(rt, stream, keep);
        Ok(())
    })))
}

// --- The conditional copy, copies through descriptors ------------------------------------

/// `ret = acl.rt.memcpy_async_with_condition(dst, dest_max, src, count, kind, stream)`
/// (`aclrtMemcpyAsyncWithCondition`): `memcpy_async`, except that with pageable host memory
/// (a buffer from `bytes_to_ptr` / `numpy_to_ptr`, not registered) it returns once the copy
/// has run, letting the GIL go while it waits.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn memcpy_async_with_condition(
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
        let keep = vet_copy(
            py,
            rt,
            (dst, max, src, count),
            "aclrtMemcpyAsyncWithCondition",
        )?;
        // The call may wait for the stream, whose earlier tasks may run Python code: the GIL
        // goes meanwhile, as in `synchronize_stream`. The vetted buffers stay valid without
        // it: `keep` holds their owners, so the known-buffer registry keeps them (and a
        // bytearray's export, which stops a resize) until they are let go below.
        let result = crate::site::detach(py, || {
            // SAFETY: as for `memcpy_async`: a range outside runtime memory is a live host
            // buffer held by `keep` until the copy has run, or raw pointers were allowed and
            // the caller vouches for it; runtime memory is checked by the core.
            unsafe { rt.memcpy_async_with_condition(dst, max, src, count, kind, s) }
        });
        // A copy the call waited for has run: its buffers go now, leaving the stream idle as
        // the caller expects. Otherwise the copy may be queued, also when the call failed
        // after queueing it (a wait refused inside a callback): the buffers are held until
        // the stream gets there.
        match result {
            Ok(true) => drop(keep),
            _ => release_after(rt, s, keep),
        }
        result.map(|_waited| ())
    })))
}

/// `desc_size, ret = acl.rt.get_memcpy_desc_size(kind)` (`aclrtGetMemcpyDescSize`).
#[pyfunction]
fn get_memcpy_desc_size(kind: &Any) -> PyResult<(usize, i32)> {
    let kind = u32_arg(kind, "kind")?;
    Ok(value(api::acl(|rt| rt.get_memcpy_desc_size(kind)), 0))
}

/// `desc, ret = acl.rt.set_memcpy_desc(desc, kind, src_addr, dst_addr, count, config)`
/// (`aclrtSetMemcpyDesc`): `desc` comes back as given, whatever `ret`; `config` is reserved,
/// 0 (NULL) being the only accepted value.
#[pyfunction]
fn set_memcpy_desc(
    desc: &Any,
    kind: &Any,
    src_addr: &Any,
    dst_addr: &Any,
    count: &Any,
    config: &Any,
) -> PyResult<(usize, i32)> {
    let desc = usize_arg(desc, "desc")?;
    let kind = u32_arg(kind, "kind")?;
    let (src, dst) = (
        usize_arg(src_addr, "src_addr")?,
        usize_arg(dst_addr, "dst_addr")?,
    );
    let count = usize_arg(count, "count")?;
    let config_set = usize_arg(config, "config")? != 0;
    let result = api::acl(|rt| rt.set_memcpy_desc(desc, kind, src, dst, count, config_set));
    Ok((desc, ret(result)))
}

/// `ret = acl.rt.memcpy_async_with_desc(desc, kind, stream)` (`aclrtMemcpyAsyncWithDesc`).
#[pyfunction]
fn memcpy_async_with_desc(desc: &Any, kind: &Any, stream: &Any) -> PyResult<i32> {
    let desc = usize_arg(desc, "desc")?;
    let kind = u32_arg(kind, "kind")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.memcpy_async_with_desc(desc, kind, s))))
}

// --- Allocation with a configuration, granularity ----------------------------------------

/// An unsigned int read as pyACL reads one with `PyLong_AsUnsignedLong` (`ValueError`
/// otherwise), truncated to the field's width by the caller.
fn unsigned(obj: &Any) -> PyResult<u64> {
    obj.extract::<u64>()
        .map_err(|_| PyValueError::new_err("PyLong_AsUnsignedLong failed"))
}

/// An int field of a struct dict: absent is 0, as pyACL leaves an absent field zeroed.
pub(crate) fn int_field(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<u64> {
    match dict.get_item(key)? {
        Some(v) => int_bits(&v, key),
        None => Ok(0),
    }
}

/// A nested struct dict: `None` when absent; not a dict is pyACL's `TypeError`.
fn dict_field<'py>(
    py: Python<'py>,
    dict: &Bound<'py, PyDict>,
    key: &str,
    not_dict: &str,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    match dict.get_item(key)? {
        None => Ok(None),
        Some(v) => v
            .cast_into::<PyDict>()
            .map(Some)
            .map_err(|_| final_type_error(py, not_dict)),
    }
}

/// The union `aclrtMallocAttrValue` from `{"moduleId": n}`, `{"deviceId": n}` or
/// `{"rsv": [up to 8 ints]}`, as its eight bytes.
fn attr_value(value: &Bound<'_, PyDict>) -> PyResult<[u8; 8]> {
    let mut bytes = [0u8; 8];
    if let Some(id) = value.get_item("moduleId")? {
        bytes[..2].copy_from_slice(&(unsigned(&id)? as u16).to_ne_bytes());
    } else if let Some(id) = value.get_item("deviceId")? {
        bytes[..4].copy_from_slice(&(unsigned(&id)? as u32).to_ne_bytes());
    } else if let Some(rsv) = value.get_item("rsv")? {
        let rsv = rsv
            .cast_into::<PyList>()
            .map_err(|_| PyValueError::new_err("rsv must be a list"))?;
        for (slot, item) in bytes.iter_mut().zip(rsv.iter()) {
            *slot = unsigned(&item)? as u8;
        }
    } else {
        return Err(PyKeyError::new_err(
            "No valid key found in aclrtMallocAttrValue",
        ));
    }
    Ok(bytes)
}

/// The attributes of an `aclrtMallocConfig` dict: `{"numAttrs": n, "attrs": [{"attr": type,
/// "value": {...}}, ...]}`; `numAttrs` must count `attrs` (`KeyError` otherwise).
fn malloc_config(py: Python<'_>, cfg: &Bound<'_, PyDict>) -> PyResult<Vec<MallocAttribute>> {
    let not_dict = "the aclrtMallocAttrValue argument is not dict";
    let attrs = cfg
        .get_item("attrs")?
        .ok_or_else(|| final_type_error(py, not_dict))?;
    let attrs = attrs
        .cast_into::<PyList>()
        .map_err(|_| final_type_error(py, "attrs must be a list"))?;
    let num = int_field(cfg, "numAttrs")?;
    if num != attrs.len() as u64 {
        return Err(PyKeyError::new_err(
            "The numAttrs inputed does not match the expected numAttrs",
        ));
    }
    let mut out = Vec::with_capacity(attrs.len());
    for item in attrs.iter() {
        let item = item
            .cast_into::<PyDict>()
            .map_err(|_| final_type_error(py, "the aclrtMallocWithCfg argument is not dict"))?;
        let attr = int_field(&item, "attr")? as u32;
        let value = match dict_field(py, &item, "value", not_dict)? {
            Some(v) => attr_value(&v)?,
            None => [0u8; 8],
        };
        out.push(MallocAttribute { attr, value });
    }
    Ok(out)
}

/// The `cfg` argument of the with-config mallocs: a dict, `{}` for no configuration
/// (pyACL's `TypeError` for anything else).
pub(crate) fn malloc_cfg_arg(py: Python<'_>, cfg: &Any) -> PyResult<Vec<MallocAttribute>> {
    let cfg = cfg
        .cast::<PyDict>()
        .map_err(|_| final_type_error(py, "pyCfg is not dict!"))?;
    if cfg.is_empty() {
        Ok(Vec::new())
    } else {
        malloc_config(py, cfg)
    }
}

/// `dev_ptr, ret = acl.rt.malloc_with_cfg(size, policy, cfg)` (`aclrtMallocWithCfg`): `cfg`
/// is a dict, `{}` for no configuration.
#[pyfunction]
fn malloc_with_cfg(py: Python<'_>, size: &Any, policy: &Any, cfg: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let policy = u32_arg(policy, "policy")?;
    let attrs = malloc_cfg_arg(py, cfg)?;
    Ok(value(api::malloc_with_cfg(size, policy, &attrs), 0))
}

/// `dev_ptr, ret = acl.rt.malloc_for_task_scheduler(size, policy, cfg)`
/// (`aclrtMallocForTaskScheduler`): `cfg` as for `malloc_with_cfg`.
#[pyfunction]
fn malloc_for_task_scheduler(
    py: Python<'_>,
    size: &Any,
    policy: &Any,
    cfg: &Any,
) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let policy = u32_arg(policy, "policy")?;
    let attrs = malloc_cfg_arg(py, cfg)?;
    Ok(value(
        api::malloc_for_task_scheduler(size, policy, &attrs),
        0,
    ))
}

/// `granularity, ret = acl.rt.mem_get_allocation_granularity(prop, option)`
/// (`aclrtMemGetAllocationGranularity`): `prop` is an `aclrtPhysicalMemProp` dict
/// (`handleType`, `allocationType`, `memAttr`, `location` `{"id", "type"}`, `reserve`); an
/// absent field is 0.
#[pyfunction]
fn mem_get_allocation_granularity(
    py: Python<'_>,
    prop: &Any,
    option: &Any,
) -> PyResult<(usize, i32)> {
    let mem_attr = physical_prop(py, prop)?.mem_attr;
    let option = u32_arg(option, "option")?;
    Ok(value(
        api::mem_get_allocation_granularity(mem_attr, option),
        0,
    ))
}

/// An `aclrtPhysicalMemProp` dict (`handleType`, `allocationType`, `memAttr`, `location`
/// `{"id", "type"}`, `reserve`); an absent field is 0, as pyACL leaves it zeroed.
pub(crate) fn physical_prop(py: Python<'_>, prop: &Any) -> PyResult<api::PhysicalMemProp> {
    let prop = prop
        .cast::<PyDict>()
        .map_err(|_| final_type_error(py, "the aclrtPhysicalMemProp argument is not dict"))?;
    let mut out = api::PhysicalMemProp {
        handle_type: int_field(prop, "handleType")? as u32,
        allocation_type: int_field(prop, "allocationType")? as u32,
        mem_attr: int_field(prop, "memAttr")? as u32,
        reserve: int_field(prop, "reserve")?,
        ..Default::default()
    };
    if let Some(location) = dict_field(
        py,
        prop,
        "location",
        "the aclrtMemLocation argument is not dict",
    )? {
        out.location_id = int_field(&location, "id")? as u32;
        out.location_type = int_field(&location, "type")? as u32;
    }
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            get_device_res_limit,
            set_device_res_limit,
            reset_device_res_limit,
            get_stream_res_limit,
            set_stream_res_limit,
            reset_stream_res_limit,
            use_stream_res_in_current_thread,
            unuse_stream_res_in_current_thread,
            get_res_in_current_thread,
            memcpy2d,
            memcpy2d_async,
            memcpy_async_with_condition,
            get_memcpy_desc_size,
            set_memcpy_desc,
            memcpy_async_with_desc,
            malloc_with_cfg,
            malloc_for_task_scheduler,
            mem_get_allocation_granularity,
        ]
    );
    Ok(())
}
