//! The native part of the `acl` Python package: pyACL's functions over the aclrt core.
//!
//! Conventions (pyACL's): calls that produce a value return `(value, ret)`, actions return
//! `ret`; handles and pointers are ints, 0 being the default stream; blocking calls release the
//! GIL. The package's Python side (`acl/__init__.py`) exposes the submodules built here as
//! `acl.rt`, `acl.util`, `acl.media`, `acl.ext` and `acl.constants`, and adds the Stream/Event
//! layer.

mod allocator;
mod args;
mod base;
mod callbacks;
mod ext;
mod host_memory;
mod media;
mod rt;
mod rt_config;
mod rt_device_misc;
mod rt_ext;
mod rt_host;
mod rt_kernel;
mod rt_more;
mod rt_vmm;
mod site;
mod util;

use rt_device_misc::finalize_reference;

use aclrt::api;
use pyo3::prelude::*;
use pyo3::types::PyModule;

/// `acl.init(config_path=None)`: the configuration path rule is the core's.
#[pyfunction]
#[pyo3(signature = (config_path = None))]
fn init(py: Python<'_>, config_path: Option<&str>) -> i32 {
    args::ret(crate::site::detach(py, || {
        api::init_with_config_file(config_path)
    }))
}

#[pyfunction]
fn finalize(py: Python<'_>) -> i32 {
    args::ret(crate::site::detach(py, api::finalize))
}

#[pyfunction]
fn get_recent_err_msg() -> Option<String> {
    api::get_recent_err_msg()
}

/// Run at interpreter exit: stops the runtime's threads while Python can still serve them.
#[pyfunction]
fn _shutdown(py: Python<'_>) {
    if api::ensure_initialized().is_ok() {
        let _ = crate::site::detach(py, api::finalize);
    }
    api::get_last_error();
    api::get_recent_err_msg();
}

fn submodule<'py>(
    parent: &Bound<'py, PyModule>,
    name: &str,
    fill: impl FnOnce(&Bound<'py, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let m = PyModule::new(parent.py(), &format!("acl.{name}"))?;
    fill(&m)?;
    parent.add(name, m)
}

fn constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for info in aclrt::codes::ALL {
        m.add(info.name, info.code)?;
    }
    for (name, value) in aclrt::consts::ALL {
        m.add(*name, *value)?;
    }
    for (name, value) in aclrt::vendor_consts::ALL {
        m.add(*name, *value)?;
    }
    Ok(())
}

#[pymodule]
#[pyo3(name = "_acl")]
fn acl_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    args::add_checked!(
        m,
        "acl",
        [init, finalize, finalize_reference, get_recent_err_msg]
    );
    m.add_function(wrap_pyfunction!(_shutdown, m)?)?;
    base::register(m)?;
    host_memory::init_from_env();
    site::install();
    submodule(m, "rt", |m| {
        rt::register(m)?;
        rt_ext::register(m)?;
        rt_config::register(m)?;
        rt_host::register(m)?;
        rt_device_misc::register(m)?;
        rt_kernel::register(m)?;
        allocator::register(m)?;
        rt_more::register(m)?;
        rt_vmm::register(m)
    })?;
    submodule(m, "util", util::register)?;
    submodule(m, "media", media::register)?;
    submodule(m, "ext", ext::register)?;
    submodule(m, "constants", constants)?;
    Ok(())
}
