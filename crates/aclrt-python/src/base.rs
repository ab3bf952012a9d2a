//! pyACL's top-level calls that need no runtime: `acl.app_log`, data buffers, element sizes,
//! float16 conversion, versions and CANN attributes. The values come from the core
//! (`aclrt::base`), as for C.

use aclrt::base::{self, DataBuffer};
use aclrt::consts::{ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// `acl.app_log(log_level, message)`: the core's application log line
/// (`[LEVEL] APP(pid,process):timestamp message`) on `sys.stderr`, when `log_level` (0 debug …
/// 3 error) is written (`aclrt::base::app_log_line`). Returns `None`, as pyACL does.
#[pyfunction]
fn app_log(py: Python<'_>, log_level: &Any, message: &str) -> PyResult<()> {
    let level = i64::from(i32_arg(log_level, "log_level")?);
    let Some(line) = base::app_log_line(level, message) else {
        return Ok(());
    };
    let stderr = py.import("sys")?.getattr("stderr")?;
    if stderr.is_none() {
        eprint!("{line}");
        return Ok(());
    }
    stderr.call_method1("write", (line,))?;
    stderr.call_method0("flush")?;
    Ok(())
}

/// `acl.data_type_size(data_type)`: bytes per element, the vendor's table.
#[pyfunction]
fn data_type_size(data_type: &Any) -> PyResult<usize> {
    Ok(base::data_type_size(i32_arg(data_type, "data_type")?))
}

/// `acl.float16_to_float(value)`: the half whose bits are `value` (truncated to 16 bits, as
/// pyACL's `H` conversion does) as a float.
#[pyfunction]
fn float16_to_float(value: &Any) -> PyResult<f64> {
    let bits = int_bits(value, "value")? as u16;
    Ok(f64::from(base::float16_to_float(bits)))
}

/// `acl.float_to_float16(value)`: the bits of the nearest half (ties to even, saturating).
#[pyfunction]
fn float_to_float16(value: &Any) -> PyResult<u16> {
    if value.is_none() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "value must be a float, not None",
        ));
    }
    // Any real number, as pyACL's `f` conversion accepts; narrowed to a C float.
    let v: f64 = value.extract()?;
    Ok(base::float_to_float16(v as f32))
}

fn buffer(obj: &Any, what: &str) -> PyResult<DataBuffer> {
    Ok(DataBuffer::from_raw(int_bits(obj, what)?))
}

/// `data_buffer = acl.create_data_buffer(data, size)`.
#[pyfunction]
fn create_data_buffer(data: &Any, size: &Any) -> PyResult<u64> {
    let addr = usize_arg(data, "data")?;
    let size = usize_arg(size, "size")?;
    Ok(base::create_data_buffer(addr, size).as_raw())
}

/// `ret = acl.destroy_data_buffer(data_buffer)`.
#[pyfunction]
fn destroy_data_buffer(data_buffer: &Any) -> PyResult<i32> {
    Ok(ret(base::destroy_data_buffer(buffer(
        data_buffer,
        "data_buffer",
    )?)))
}

/// `ret = acl.update_data_buffer(data_buffer, data, size)`.
#[pyfunction]
fn update_data_buffer(data_buffer: &Any, data: &Any, size: &Any) -> PyResult<i32> {
    let b = buffer(data_buffer, "data_buffer")?;
    let addr = usize_arg(data, "data")?;
    let size = usize_arg(size, "size")?;
    Ok(ret(base::update_data_buffer(b, addr, size)))
}

/// `addr = acl.get_data_buffer_addr(data_buffer)`: 0 for 0 (silently) or a dead buffer.
#[pyfunction]
fn get_data_buffer_addr(data_buffer: &Any) -> PyResult<usize> {
    let b = buffer(data_buffer, "data_buffer")?;
    if b.is_null() {
        return Ok(0);
    }
    Ok(base::data_buffer_addr(b).unwrap_or(0))
}

/// `size = acl.get_data_buffer_size_v2(data_buffer)`: 0 for 0 (silently) or a dead buffer.
#[pyfunction]
fn get_data_buffer_size_v2(data_buffer: &Any) -> PyResult<usize> {
    let b = buffer(data_buffer, "data_buffer")?;
    if b.is_null() {
        return Ok(0);
    }
    Ok(base::data_buffer_size(b).unwrap_or(0))
}

/// `size = acl.get_data_buffer_size(data_buffer)` (deprecated): the size truncated to 32 bits.
#[pyfunction]
fn get_data_buffer_size(data_buffer: &Any) -> PyResult<u32> {
    Ok(get_data_buffer_size_v2(data_buffer)? as u32)
}

/// `major, minor, patch, ret = acl.get_version()` (deprecated): the interface version of the
/// headers. Needs no `acl.init()`.
#[pyfunction]
fn get_version() -> (u32, u32, u32, i32) {
    (ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION, 0)
}

/// `version, ret = acl.get_version_str(pkg_name)`: `""` with the code when the package is not
/// installed (only `"runtime"` is).
#[pyfunction]
fn get_version_str(pkg_name: &str) -> (&'static str, i32) {
    value(base::version_str(pkg_name), "")
}

/// `version, ret = acl.get_cann_version(name)`: an `aclCANNPackageVersion` dict; its strings are
/// empty on failure.
#[pyfunction]
fn get_cann_version<'py>(py: Python<'py>, name: &Any) -> PyResult<(Bound<'py, PyDict>, i32)> {
    let name = u32_arg(name, "name")? as i32;
    let (version, code) = match base::cann_version(name) {
        Ok(v) => (v, 0),
        Err(e) => (
            base::PackageVersion {
                version: String::new(),
                major: String::new(),
                minor: String::new(),
                release: String::new(),
                patch: String::new(),
            },
            e.code(),
        ),
    };
    let d = PyDict::new(py);
    d.set_item("version", version.version)?;
    d.set_item("major_version", version.major)?;
    d.set_item("minor_version", version.minor)?;
    d.set_item("release_version", version.release)?;
    d.set_item("patch_version", version.patch)?;
    d.set_item("reserved", "")?;
    Ok((d, code))
}

/// `value, ret = acl.get_cann_attribute(attr)`: 1 when the attribute is available, else 0.
#[pyfunction]
fn get_cann_attribute(attr: &Any) -> PyResult<(i32, i32)> {
    Ok(value(base::cann_attribute(i32_arg(attr, "attr")?), 0))
}

/// `attrs, num, ret = acl.get_cann_attribute_list()`.
#[pyfunction]
fn get_cann_attribute_list() -> (Vec<i32>, usize, i32) {
    let list = base::cann_attribute_list();
    (list.to_vec(), list.len(), 0)
}

/// `name = acl.get_soc_name()` (`aclrtGetSocName`): `None` when the runtime cannot say (before
/// `acl.init()`).
#[pyfunction]
fn get_soc_name() -> Option<String> {
    aclrt::api::acl(|rt| rt.get_soc_name()).ok()
}

/// `value, ret = acl.get_device_capability(device_id, device_info)` (`aclGetDeviceCapability`).
#[pyfunction]
fn get_device_capability(device_id: &Any, device_info: &Any) -> PyResult<(i64, i32)> {
    let id = u32_arg(device_id, "device_id")?;
    let info = i32_arg(device_info, "device_info")?;
    Ok(value(
        aclrt::api::acl(|rt| rt.get_device_capability(id, info)),
        0,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl",
        [
            get_soc_name,
            get_device_capability,
            get_version,
            get_version_str,
            get_cann_version,
            get_cann_attribute,
            get_cann_attribute_list,
            app_log,
            data_type_size,
            float16_to_float,
            float_to_float16,
            create_data_buffer,
            destroy_data_buffer,
            update_data_buffer,
            get_data_buffer_addr,
            get_data_buffer_size,
            get_data_buffer_size_v2
        ]
    );
    Ok(())
}
