//! `acl.rt`: the kernel API (binaries, functions, args handles, launches) and what a failed
//! kernel tells the exception callback, with pyACL's names and results. Every rule is the
//! core's; this module converts arguments and vets the host memory the core reads (argument
//! bytes), as `acl.rt.memcpy` vets its ranges.

use aclrt::{api, ArgsHandle, BinHandle, BinaryImageHandle, FuncHandle, Runtime};
use pyo3::prelude::*;

use crate::args::*;
use crate::host_memory::vet;
use crate::rt::{release_after, KeepAlive};

type Any<'py> = Bound<'py, PyAny>;

fn bin_arg(obj: &Any, what: &str) -> PyResult<BinHandle> {
    Ok(BinHandle::from_raw(int_bits(obj, what)?))
}

fn func_arg(obj: &Any) -> PyResult<FuncHandle> {
    Ok(FuncHandle::from_raw(int_bits(obj, "func_handle")?))
}

fn args_arg(obj: &Any) -> PyResult<ArgsHandle> {
    Ok(ArgsHandle::from_raw(int_bits(obj, "args_handle")?))
}

fn image_arg(obj: &Any) -> PyResult<BinaryImageHandle> {
    Ok(BinaryImageHandle::from_raw(int_bits(obj, "binary")?))
}

/// A block count: an int a C `uint32_t` holds. Any other (negative, or 2**32 and above) is
/// refused with `100000` when the call runs, rather than wrapped or truncated to a count the
/// caller did not ask for.
fn blocks_arg(obj: &Any, call: &'static str) -> PyResult<aclrt::Result<u32>> {
    let bits = int_bits(obj, "num_blocks")?;
    Ok(u32::try_from(bits).map_err(|_| {
        aclrt::Error::new(
            aclrt::codes::ACL_ERROR_INVALID_PARAM,
            format!(
                "{call}: num_blocks {} is not a block count (0 to 2**32 - 1)",
                obj.str().map_or_else(|_| "?".into(), |s| s.to_string())
            ),
        )
    }))
}

/// The `len` bytes at `ptr` the core is about to read, once vetted (NULL or empty reads
/// nothing): a vetted range is runtime memory the core bounds-checks, a live known buffer
/// (kept alive by the GIL, held for the whole call), or raw pointers were allowed and the
/// caller vouches for it.
fn read_host<'a>(
    py: Python<'_>,
    rt: &Runtime,
    ptr: usize,
    len: usize,
    what: &str,
) -> aclrt::Result<&'a [u8]> {
    if ptr == 0 || len == 0 {
        return Ok(&[]);
    }
    vet(py, rt, ptr, len, false, what)?;
    rt.classify_memory(ptr, len, what)?;
    // SAFETY: vetted above (see the function's doc); read before the GIL is released.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const u8, len) })
}

/// `bin_handle, ret = acl.rt.binary_load_from_file(bin_path, options=None)`
/// (`aclrtBinaryLoadFromFile`; the options are ignored).
#[pyfunction]
#[pyo3(signature = (bin_path, options = None))]
fn binary_load_from_file(bin_path: &str, options: Option<&Any>) -> (u64, i32) {
    let _ = options;
    value(
        api::acl(|rt| rt.binary_load_from_file(std::path::Path::new(bin_path))).map(|h| h.as_raw()),
        0,
    )
}

/// `bin_handle, ret = acl.rt.binary_load_from_data(data, length, options=None)`
/// (`aclrtBinaryLoadFromData`): `data` is the address of the library image.
#[pyfunction]
#[pyo3(signature = (data, length, options = None))]
fn binary_load_from_data(
    py: Python<'_>,
    data: &Any,
    length: &Any,
    options: Option<&Any>,
) -> PyResult<(u64, i32)> {
    let _ = options;
    let (ptr, len) = (usize_arg(data, "data")?, usize_arg(length, "length")?);
    Ok(value(
        api::acl(|rt| {
            if ptr == 0 {
                return Err(aclrt::Error::new(
                    aclrt::codes::ACL_ERROR_INVALID_PARAM,
                    "aclrtBinaryLoadFromData: data is NULL",
                ));
            }
            let bytes = read_host(py, rt, ptr, len, "aclrtBinaryLoadFromData: data")?;
            rt.binary_load_from_data(bytes).map(|h| h.as_raw())
        }),
        0,
    ))
}

/// `binary = acl.rt.create_binary(data, data_len)` (`aclrtCreateBinary`): 0 on failure (the
/// reason in `acl.get_recent_err_msg()`).
#[pyfunction]
fn create_binary(py: Python<'_>, data: &Any, data_len: &Any) -> PyResult<u64> {
    let (ptr, len) = (usize_arg(data, "data")?, usize_arg(data_len, "data_len")?);
    Ok(api::acl(|rt| {
        let bytes = read_host(py, rt, ptr, len, "aclrtCreateBinary: data")?;
        rt.create_binary(bytes)
    })
    .map_or(0, |h| h.as_raw()))
}

/// `ret = acl.rt.destroy_binary(binary)` (`aclrtDestroyBinary`).
#[pyfunction]
fn destroy_binary(binary: &Any) -> PyResult<i32> {
    let h = image_arg(binary)?;
    Ok(ret(api::acl(|rt| rt.destroy_binary(h))))
}

/// `bin_handle, ret = acl.rt.binary_load(binary)` (`aclrtBinaryLoad`).
#[pyfunction]
fn binary_load(binary: &Any) -> PyResult<(u64, i32)> {
    let h = image_arg(binary)?;
    Ok(value(
        api::acl(|rt| rt.binary_load(h)).map(|b| b.as_raw()),
        0,
    ))
}

/// `ret = acl.rt.binary_unload(bin_handle)` (`aclrtBinaryUnLoad`).
#[pyfunction]
fn binary_unload(bin_handle: &Any) -> PyResult<i32> {
    let h = bin_arg(bin_handle, "bin_handle")?;
    Ok(ret(api::acl(|rt| rt.binary_unload(h))))
}

/// `func_handle, ret = acl.rt.binary_get_function(bin_handle, kernel_name)`
/// (`aclrtBinaryGetFunction`).
#[pyfunction]
fn binary_get_function(bin_handle: &Any, kernel_name: &str) -> PyResult<(u64, i32)> {
    let h = bin_arg(bin_handle, "bin_handle")?;
    Ok(value(
        api::acl(|rt| rt.binary_get_function(h, kernel_name)).map(|f| f.as_raw()),
        0,
    ))
}

/// `name, ret = acl.rt.get_function_name(func_handle)` (`aclrtGetFunctionName`; the name
/// needs no buffer here). `""` on failure.
#[pyfunction]
fn get_function_name(func_handle: &Any) -> PyResult<(String, i32)> {
    let f = func_arg(func_handle)?;
    Ok(value(api::acl(|rt| rt.function_name(f)), String::new()))
}

/// `mem_size, ret = acl.rt.kernel_args_get_handle_mem_size(func_handle)`
/// (`aclrtKernelArgsGetHandleMemSize`).
#[pyfunction]
fn kernel_args_get_handle_mem_size(func_handle: &Any) -> PyResult<(usize, i32)> {
    let f = func_arg(func_handle)?;
    Ok(value(api::acl(|rt| rt.kernel_args_handle_mem_size(f)), 0))
}

/// `actual_args_size, ret = acl.rt.kernel_args_get_mem_size(func_handle, user_args_size)`
/// (`aclrtKernelArgsGetMemSize`).
#[pyfunction]
fn kernel_args_get_mem_size(func_handle: &Any, user_args_size: &Any) -> PyResult<(usize, i32)> {
    let f = func_arg(func_handle)?;
    let size = usize_arg(user_args_size, "user_args_size")?;
    Ok(value(api::acl(|rt| rt.kernel_args_mem_size(f, size)), 0))
}

/// `args_handle, ret = acl.rt.kernel_args_init(func_handle)` (`aclrtKernelArgsInit`).
#[pyfunction]
fn kernel_args_init(func_handle: &Any) -> PyResult<(u64, i32)> {
    let f = func_arg(func_handle)?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_init(f)).map(|a| a.as_raw()),
        0,
    ))
}

/// `ret = acl.rt.kernel_args_init_by_user_mem(func_handle, args_handle, user_host_mem,
/// actual_args_size)` (`aclrtKernelArgsInitByUserMem`): `args_handle` is the address that
/// names the handle from then on; nothing is written there, and the user host memory is not
/// used.
#[pyfunction]
fn kernel_args_init_by_user_mem(
    func_handle: &Any,
    args_handle: &Any,
    user_host_mem: &Any,
    actual_args_size: &Any,
) -> PyResult<i32> {
    let f = func_arg(func_handle)?;
    let address = int_bits(args_handle, "args_handle")?;
    usize_arg(user_host_mem, "user_host_mem")?;
    usize_arg(actual_args_size, "actual_args_size")?;
    Ok(ret(api::acl(|rt| {
        rt.kernel_args_init_by_user_mem(f, address)
    })))
}

/// `param_handle, ret = acl.rt.kernel_args_append(args_handle, param, param_size)`
/// (`aclrtKernelArgsAppend`): copies `param_size` bytes at address `param`.
#[pyfunction]
fn kernel_args_append(
    py: Python<'_>,
    args_handle: &Any,
    param: &Any,
    param_size: &Any,
) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    let (ptr, size) = (
        usize_arg(param, "param")?,
        usize_arg(param_size, "param_size")?,
    );
    Ok(value(
        api::acl(|rt| {
            if ptr == 0 && size != 0 {
                return Err(aclrt::Error::new(
                    aclrt::codes::ACL_ERROR_INVALID_PARAM,
                    "aclrtKernelArgsAppend: param is NULL",
                ));
            }
            let bytes = read_host(py, rt, ptr, size, "aclrtKernelArgsAppend: param")?;
            rt.kernel_args_append(a, bytes)
        }),
        0,
    ))
}

/// `param_handle, ret = acl.rt.kernel_args_append_place_holder(args_handle)`
/// (`aclrtKernelArgsAppendPlaceHolder`).
#[pyfunction]
fn kernel_args_append_place_holder(args_handle: &Any) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_append_placeholder(a)),
        0,
    ))
}

/// `buffer_addr, ret = acl.rt.kernel_args_get_place_holder_buffer(args_handle, param_handle,
/// data_size)` (`aclrtKernelArgsGetPlaceHolderBuffer`): the address of a zeroed host buffer
/// the args handle owns.
#[pyfunction]
fn kernel_args_get_place_holder_buffer(
    args_handle: &Any,
    param_handle: &Any,
    data_size: &Any,
) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    let p = usize_arg(param_handle, "param_handle")?;
    let size = usize_arg(data_size, "data_size")?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_get_placeholder_buffer(a, p, size)),
        0,
    ))
}

/// `ret = acl.rt.kernel_args_para_update(args_handle, param_handle, param, param_size)`
/// (`aclrtKernelArgsParaUpdate`).
#[pyfunction]
fn kernel_args_para_update(
    py: Python<'_>,
    args_handle: &Any,
    param_handle: &Any,
    param: &Any,
    param_size: &Any,
) -> PyResult<i32> {
    let a = args_arg(args_handle)?;
    let p = usize_arg(param_handle, "param_handle")?;
    let (ptr, size) = (
        usize_arg(param, "param")?,
        usize_arg(param_size, "param_size")?,
    );
    Ok(ret(api::acl(|rt| {
        if ptr == 0 {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_INVALID_PARAM,
                "aclrtKernelArgsParaUpdate: param is NULL",
            ));
        }
        let bytes = read_host(py, rt, ptr, size, "aclrtKernelArgsParaUpdate: param")?;
        rt.kernel_args_para_update(a, p, bytes)
    })))
}

/// `ret = acl.rt.kernel_args_finalize(args_handle)` (`aclrtKernelArgsFinalize`).
#[pyfunction]
fn kernel_args_finalize(args_handle: &Any) -> PyResult<i32> {
    let a = args_arg(args_handle)?;
    Ok(ret(api::acl(|rt| rt.kernel_args_finalize(a))))
}

/// `ret = acl.rt.launch_kernel_with_config(func_handle, num_blocks, stream, cfg, args_handle,
/// reserve)` (`aclrtLaunchKernelWithConfig`; the configuration is ignored).
#[pyfunction]
#[pyo3(signature = (func_handle, num_blocks, stream, cfg, args_handle, reserve = None))]
fn launch_kernel_with_config(
    func_handle: &Any,
    num_blocks: &Any,
    stream: &Any,
    cfg: &Any,
    args_handle: &Any,
    reserve: Option<&Any>,
) -> PyResult<i32> {
    let _ = (cfg, reserve);
    let f = func_arg(func_handle)?;
    let blocks = blocks_arg(num_blocks, "aclrtLaunchKernelWithConfig")?;
    let s = stream_arg(stream)?;
    let a = args_arg(args_handle)?;
    Ok(ret(api::acl(|rt| {
        rt.launch_kernel_with_config(f, blocks?, s, a)
    })))
}

/// The launches from an address: the kernel reads the bytes when it runs, so a known host
/// buffer is held until then.
fn launch_from(
    py: Python<'_>,
    (f, blocks, data, size, s): (
        FuncHandle,
        aclrt::Result<u32>,
        usize,
        usize,
        aclrt::StreamHandle,
    ),
    v2: bool,
) -> i32 {
    let call = if v2 {
        "aclrtLaunchKernelV2"
    } else {
        "aclrtLaunchKernel"
    };
    ret(api::acl(|rt| {
        let blocks = blocks?;
        let mut keep: KeepAlive = Vec::new();
        if data != 0 && size != 0 {
            keep.extend(vet(
                py,
                rt,
                data,
                size,
                false,
                &format!("{call}: args_data"),
            )?);
        }
        // SAFETY: a vetted range is runtime memory, a known host buffer held by `keep` until
        // the kernel ran (`release_after`), or raw pointers were allowed and the caller
        // vouches for it; the core refuses NULL and ranges it knows to be bad.
        unsafe {
            if v2 {
                rt.launch_kernel_v2_from(f, blocks, data, size, s)
            } else {
                rt.launch_kernel_from(f, blocks, data, size, s)
            }
        }?;
        release_after(rt, s, keep);
        Ok(())
    }))
}

/// `ret = acl.rt.launch_kernel(func_handle, num_blocks, args_data, args_size, stream)`
/// (`aclrtLaunchKernel`): the `args_size` bytes at address `args_data`, as they are when the
/// kernel runs.
#[pyfunction]
fn launch_kernel(
    py: Python<'_>,
    func_handle: &Any,
    num_blocks: &Any,
    args_data: &Any,
    args_size: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let f = func_arg(func_handle)?;
    let blocks = blocks_arg(num_blocks, "aclrtLaunchKernel")?;
    let data = usize_arg(args_data, "args_data")?;
    let size = usize_arg(args_size, "args_size")?;
    let s = stream_arg(stream)?;
    Ok(launch_from(py, (f, blocks, data, size, s), false))
}

/// `ret = acl.rt.launch_kernel_v2(func_handle, num_blocks, args_data, args_size, cfg, stream)`
/// (`aclrtLaunchKernelV2`; the configuration is ignored).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn launch_kernel_v2(
    py: Python<'_>,
    func_handle: &Any,
    num_blocks: &Any,
    args_data: &Any,
    args_size: &Any,
    cfg: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let _ = cfg;
    let f = func_arg(func_handle)?;
    let blocks = blocks_arg(num_blocks, "aclrtLaunchKernelV2")?;
    let data = usize_arg(args_data, "args_data")?;
    let size = usize_arg(args_size, "args_size")?;
    let s = stream_arg(stream)?;
    Ok(launch_from(py, (f, blocks, data, size, s), true))
}

/// `func_handle, ret = acl.rt.get_func_handle_from_exception_info(info)`
/// (`aclrtGetFuncHandleFromExceptionInfo`).
#[pyfunction]
fn get_func_handle_from_exception_info(info: &Any) -> PyResult<(u64, i32)> {
    let addr = usize_arg(info, "info")?;
    Ok(value(
        api::exception_info_func_handle(addr).map(|f| f.as_raw()),
        0,
    ))
}

/// `dev_args_ptr, dev_args_len, ret = acl.rt.get_args_from_exception_info(info)`
/// (`aclrtGetArgsFromExceptionInfo`).
#[pyfunction]
fn get_args_from_exception_info(info: &Any) -> PyResult<(usize, u32, i32)> {
    let addr = usize_arg(info, "info")?;
    Ok(match api::exception_info_args(addr) {
        Ok((ptr, len)) => (ptr, len, 0),
        Err(e) => (0, 0, e.code()),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            binary_load_from_file,
            binary_load_from_data,
            create_binary,
            destroy_binary,
            binary_load,
            binary_unload,
            binary_get_function,
            get_function_name,
            kernel_args_get_handle_mem_size,
            kernel_args_get_mem_size,
            kernel_args_init,
            kernel_args_init_by_user_mem,
            kernel_args_append,
            kernel_args_append_place_holder,
            kernel_args_get_place_holder_buffer,
            kernel_args_para_update,
            kernel_args_finalize,
            launch_kernel_with_config,
            launch_kernel,
            launch_kernel_v2,
            get_func_handle_from_exception_info,
            get_args_from_exception_info
        ]
    );
    Ok(())
}
