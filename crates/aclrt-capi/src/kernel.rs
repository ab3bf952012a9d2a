//! The vendor kernel API (`aclrtBinary*`, `aclrtKernelArgs*`, `aclrtLaunchKernel*`): C types
//! to the core's (`Runtime::binary_load_from_file`, …), which keeps the objects and makes every
//! check. Handles are the core's tokens; an args handle placed in the caller's memory
//! (`aclrtKernelArgsInitByUserMem`) is named by its address. Parameter handles are the core's
//! parameter numbers (never 0).

use std::ffi::{c_char, c_void, CStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use aclrt::{api, ArgsHandle, BinHandle, BinaryImageHandle, FuncHandle};

use crate::{aclError, aclrtStream, entry, guard_value, not_null, produce, put, stream_handle};

fn bin(h: *const c_void) -> BinHandle {
    BinHandle::from_raw(h as u64)
}

fn func(h: *const c_void) -> FuncHandle {
    FuncHandle::from_raw(h as u64)
}

fn args(h: *const c_void) -> ArgsHandle {
    ArgsHandle::from_raw(h as u64)
}

fn image(h: *const c_void) -> BinaryImageHandle {
    BinaryImageHandle::from_raw(h as u64)
}

fn as_ptr(raw: u64) -> *mut c_void {
    raw as usize as *mut c_void
}

/// # Safety
/// `ptr` is NULL or a C string.
unsafe fn c_str<'a>(ptr: *const c_char, call: &str, what: &str) -> aclrt::Result<&'a CStr> {
    not_null(ptr, call, what)?;
    // SAFETY: non-NULL, a C string by the C contract.
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// # Safety
/// `data` is NULL or holds `len` readable bytes.
unsafe fn bytes<'a>(data: *const c_void, len: usize) -> &'a [u8] {
    if data.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }
    }
}

/// `aclrtBinaryLoadFromFile`: opens the host library at `binPath`; options are ignored.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoadFromFile(
    binPath: *const c_char,
    _options: *mut c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryLoadFromFile";
    entry(CALL, |rt| {
        // SAFETY: a C string (C contract).
        let path = unsafe { c_str(binPath, CALL, "the path") }?;
        not_null(binHandle, CALL, "binHandle")?;
        let h =
            rt.binary_load_from_file(Path::new(std::ffi::OsStr::from_bytes(path.to_bytes())))?;
        // SAFETY: checked non-NULL.
        unsafe { put(binHandle, as_ptr(h.as_raw())) };
        Ok(())
    })
}

/// `aclrtBinaryLoadFromData`: a host library image in memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoadFromData(
    data: *const c_void,
    length: usize,
    _options: *const c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryLoadFromData";
    entry(CALL, |rt| {
        not_null(data, CALL, "data")?;
        not_null(binHandle, CALL, "binHandle")?;
        // SAFETY: the caller passes `length` readable bytes.
        let h = rt.binary_load_from_data(unsafe { bytes(data, length) })?;
        // SAFETY: checked non-NULL.
        unsafe { put(binHandle, as_ptr(h.as_raw())) };
        Ok(())
    })
}

/// `aclrtCreateBinary`: keeps a copy of the image for `aclrtBinaryLoad`; NULL on failure.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateBinary(data: *const c_void, dataLen: usize) -> *mut c_void {
    guard_value("aclrtCreateBinary", std::ptr::null_mut(), || {
        // SAFETY: the caller passes `dataLen` readable bytes.
        let data = unsafe { bytes(data, dataLen) };
        api::acl(|rt| rt.create_binary(data)).map_or(std::ptr::null_mut(), |h| as_ptr(h.as_raw()))
    })
}

/// `aclrtDestroyBinary`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyBinary(binary: *mut c_void) -> aclError {
    entry("aclrtDestroyBinary", |rt| rt.destroy_binary(image(binary)))
}

/// `aclrtBinaryLoad`: loads an `aclrtCreateBinary` image.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoad(
    binary: *const c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtBinaryLoad", binHandle, "binHandle", |rt| {
            rt.binary_load(image(binary)).map(|h| as_ptr(h.as_raw()))
        })
    }
}

/// `aclrtBinaryUnLoad`.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryUnLoad(binHandle: *mut c_void) -> aclError {
    entry("aclrtBinaryUnLoad", |rt| rt.binary_unload(bin(binHandle)))
}

/// `aclrtBinaryGetFunction`: the kernel exported as `kernelName`.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryGetFunction(
    binHandle: *const c_void,
    kernelName: *const c_char,
    funcHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryGetFunction";
    entry(CALL, |rt| {
        // SAFETY: a C string (C contract).
        let name = unsafe { c_str(kernelName, CALL, "the kernel name") }?;
        not_null(funcHandle, CALL, "funcHandle")?;
        let h = rt.binary_get_function(bin(binHandle), &name.to_string_lossy())?;
        // SAFETY: checked non-NULL.
        unsafe { put(funcHandle, as_ptr(h.as_raw())) };
        Ok(())
    })
}

/// `aclrtGetFunctionName`: the kernel's name, NUL-terminated, if `maxLen` bytes hold it.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFunctionName(
    funcHandle: *mut c_void,
    maxLen: u32,
    name: *mut c_char,
) -> aclError {
    const CALL: &str = "aclrtGetFunctionName";
    entry(CALL, |rt| {
        not_null(name, CALL, "name")?;
        let text = rt.function_name(func(funcHandle), maxLen)?;
        // SAFETY: `name` holds maxLen bytes (C contract), more than the text (checked).
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr().cast(), name, text.len());
            name.add(text.len()).write(0);
        }
        Ok(())
    })
}

/// `aclrtKernelArgsGetHandleMemSize`: bytes of an args handle in the caller's memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetHandleMemSize(
    funcHandle: *mut c_void,
    memSize: *mut usize,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce(
            "aclrtKernelArgsGetHandleMemSize",
            memSize,
            "memSize",
            |rt| rt.kernel_args_handle_mem_size(func(funcHandle)),
        )
    }
}

/// `aclrtKernelArgsGetMemSize`: the argument bytes take what the caller asks for.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetMemSize(
    funcHandle: *mut c_void,
    userArgsSize: usize,
    actualArgsSize: *mut usize,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce(
            "aclrtKernelArgsGetMemSize",
            actualArgsSize,
            "actualArgsSize",
            |rt| rt.kernel_args_mem_size(func(funcHandle), userArgsSize),
        )
    }
}

/// `aclrtKernelArgsInit`: an empty args handle for the kernel.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsInit(
    funcHandle: *mut c_void,
    argsHandle: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtKernelArgsInit", argsHandle, "argsHandle", |rt| {
            rt.kernel_args_init(func(funcHandle))
                .map(|h| as_ptr(h.as_raw()))
        })
    }
}

/// `aclrtKernelArgsInitByUserMem`: an empty args handle named by the caller's memory at
/// `argsHandle`; the user host memory is not used.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsInitByUserMem(
    funcHandle: *mut c_void,
    argsHandle: *mut c_void,
    _userHostMem: *mut c_void,
    _actualArgsSize: usize,
) -> aclError {
    entry("aclrtKernelArgsInitByUserMem", |rt| {
        rt.kernel_args_init_by_user_mem(func(funcHandle), argsHandle as u64)
    })
}

/// `aclrtKernelArgsAppend`: copies `paramSize` bytes to the end of the arguments.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppend(
    argsHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
    paramHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsAppend";
    entry(CALL, |rt| {
        if paramSize != 0 {
            not_null(param, CALL, "param")?;
        }
        not_null(paramHandle, CALL, "paramHandle")?;
        // SAFETY: `param` holds paramSize bytes (C contract).
        let p = rt.kernel_args_append(args(argsHandle), unsafe { bytes(param, paramSize) })?;
        // SAFETY: checked non-NULL.
        unsafe { put(paramHandle, p as *mut c_void) };
        Ok(())
    })
}

/// `aclrtKernelArgsAppendPlaceHolder`: a pointer slot at the end of the arguments.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppendPlaceHolder(
    argsHandle: *mut c_void,
    paramHandle: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce(
            "aclrtKernelArgsAppendPlaceHolder",
            paramHandle,
            "paramHandle",
            |rt| {
                rt.kernel_args_append_placeholder(args(argsHandle))
                    .map(|p| p as *mut c_void)
            },
        )
    }
}

/// `aclrtKernelArgsGetPlaceHolderBuffer`: a zeroed host buffer owned by the args handle.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetPlaceHolderBuffer(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    dataSize: usize,
    bufferAddr: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce(
            "aclrtKernelArgsGetPlaceHolderBuffer",
            bufferAddr,
            "bufferAddr",
            |rt| {
                rt.kernel_args_get_placeholder_buffer(
                    args(argsHandle),
                    paramHandle as usize,
                    dataSize,
                )
                .map(|a| a as *mut c_void)
            },
        )
    }
}

/// `aclrtKernelArgsParaUpdate`: replaces an appended parameter's bytes (same size).
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsParaUpdate(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsParaUpdate";
    entry(CALL, |rt| {
        not_null(param, CALL, "param")?;
        // SAFETY: `param` holds paramSize bytes (C contract).
        let data = unsafe { bytes(param, paramSize) };
        rt.kernel_args_para_update(args(argsHandle), paramHandle as usize, data)
    })
}

/// `aclrtKernelArgsFinalize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsFinalize(argsHandle: *mut c_void) -> aclError {
    entry("aclrtKernelArgsFinalize", |rt| {
        rt.kernel_args_finalize(args(argsHandle))
    })
}

/// `aclrtLaunchKernelWithConfig`: launches with the args handle's arguments; the
/// configuration's attributes are ignored.
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernelWithConfig(
    funcHandle: *mut c_void,
    numBlocks: u32,
    stream: aclrtStream,
    _cfg: *mut c_void,
    argsHandle: *mut c_void,
    _reserve: *mut c_void,
) -> aclError {
    entry("aclrtLaunchKernelWithConfig", |rt| {
        rt.launch_kernel_with_config(
            func(funcHandle),
            numBlocks,
            stream_handle(stream),
            args(argsHandle),
        )
    })
}

/// `aclrtLaunchKernel`: runs the kernel on the stream with the `argsSize` bytes at `argsData`
/// as they are when it runs.
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernel(
    funcHandle: *mut c_void,
    numBlocks: u32,
    argsData: *const c_void,
    argsSize: usize,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtLaunchKernel", |rt| {
        // SAFETY: C contract: argsData holds argsSize bytes until the kernel ran.
        unsafe {
            rt.launch_kernel_from(
                func(funcHandle),
                numBlocks,
                argsData as usize,
                argsSize,
                stream_handle(stream),
            )
        }
    })
}

/// `aclrtLaunchKernelV2`: [`aclrtLaunchKernel`] with a launch configuration (its attributes
/// are ignored).
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernelV2(
    funcHandle: *mut c_void,
    numBlocks: u32,
    argsData: *const c_void,
    argsSize: usize,
    _cfg: *mut c_void,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtLaunchKernelV2", |rt| {
        // SAFETY: C contract: argsData holds argsSize bytes until the kernel ran.
        unsafe {
            rt.launch_kernel_v2_from(
                func(funcHandle),
                numBlocks,
                argsData as usize,
                argsSize,
                stream_handle(stream),
            )
        }
    })
}

/// `aclrtLaunchKernelWithHostArgs`: runs the kernel with a copy of the host arguments taken
/// now, each placeholder slot pointing into that copy; the configuration's attributes are
/// ignored.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtLaunchKernelWithHostArgs(
    funcHandle: *mut c_void,
    numBlocks: u32,
    stream: aclrtStream,
    _cfg: *mut c_void,
    hostArgs: *mut c_void,
    argsSize: usize,
    placeHolderArray: *mut aclrt::PlaceHolder,
    placeHolderNum: usize,
) -> aclError {
    entry("aclrtLaunchKernelWithHostArgs", |rt| {
        // SAFETY: C contract: hostArgs holds argsSize bytes, placeHolderArray placeHolderNum
        // entries (`aclrtPlaceHolderInfo` has `PlaceHolder`'s layout).
        unsafe {
            rt.launch_kernel_with_host_args(
                func(funcHandle),
                numBlocks,
                stream_handle(stream),
                hostArgs.cast_const().cast(),
                argsSize,
                placeHolderArray.cast_const(),
                placeHolderNum,
            )
        }
    })
}

/// `aclrtLaunchKernelWithArgsArray`: runs the kernel (a function handle) with its declared
/// parameters copied now from `args`; the configuration's attributes are ignored.
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernelWithArgsArray(
    func_: *mut c_void,
    numBlocks: u32,
    stream: aclrtStream,
    _cfg: *mut c_void,
    args: *mut *mut c_void,
) -> aclError {
    entry("aclrtLaunchKernelWithArgsArray", |rt| {
        // SAFETY: C contract: args holds one pointer per parameter of the kernel, each to
        // that parameter's bytes.
        unsafe {
            rt.launch_kernel_with_args_array(
                func(func_),
                numBlocks,
                stream_handle(stream),
                args.cast_const().cast(),
            )
        }
    })
}

/// `aclrtFunctionGetBinary`: the binary the kernel was looked up in.
#[no_mangle]
pub unsafe extern "C" fn aclrtFunctionGetBinary(
    funcHandle: *const c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtFunctionGetBinary", binHandle, "binHandle", |rt| {
            rt.function_get_binary(func(funcHandle))
                .map(|h| as_ptr(h.as_raw()))
        })
    }
}

/// `aclrtGetFunctionAddr`: the kernel's entry address (AI Core), NULL for the vector core.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFunctionAddr(
    funcHandle: *mut c_void,
    aicAddr: *mut *mut c_void,
    aivAddr: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtGetFunctionAddr";
    entry(CALL, |rt| {
        not_null(aicAddr, CALL, "aicAddr")?;
        not_null(aivAddr, CALL, "aivAddr")?;
        let (aic, aiv) = rt.function_addr(func(funcHandle))?;
        // SAFETY: checked non-NULL.
        unsafe {
            put(aicAddr, aic as *mut c_void);
            put(aivAddr, aiv as *mut c_void);
        }
        Ok(())
    })
}

/// `aclrtGetFunctionSize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFunctionSize(
    funcHandle: *mut c_void,
    aicSize: *mut usize,
    aivSize: *mut usize,
) -> aclError {
    const CALL: &str = "aclrtGetFunctionSize";
    entry(CALL, |rt| {
        not_null(aicSize, CALL, "aicSize")?;
        not_null(aivSize, CALL, "aivSize")?;
        let (aic, aiv) = rt.function_size(func(funcHandle))?;
        // SAFETY: checked non-NULL.
        unsafe {
            put(aicSize, aic);
            put(aivSize, aiv);
        }
        Ok(())
    })
}

/// `aclrtBinaryGetGlobal`: either output may be NULL, not both.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryGetGlobal(
    binHandle: *mut c_void,
    name: *const c_char,
    dptr: *mut *mut c_void,
    size: *mut usize,
) -> aclError {
    const CALL: &str = "aclrtBinaryGetGlobal";
    entry(CALL, |rt| {
        // SAFETY: NULL or a C string (C contract).
        let name = (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_string_lossy());
        let outputs = !dptr.is_null() || !size.is_null();
        let (address, bytes) = rt.binary_get_global(bin(binHandle), name.as_deref(), outputs)?;
        // SAFETY: each is NULL or valid for a write (C contract).
        unsafe {
            if !dptr.is_null() {
                put(dptr, address as *mut c_void);
            }
            if !size.is_null() {
                put(size, bytes);
            }
        }
        Ok(())
    })
}

/// `aclrtGetFunctionAttribute`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFunctionAttribute(
    funcHandle: *mut c_void,
    attrType: u32,
    attrValue: *mut i64,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtGetFunctionAttribute", attrValue, "attrValue", |rt| {
            rt.function_attribute(func(funcHandle), attrType)
        })
    }
}

/// `aclrtFunctionGetParamCount`: from the kernel's parameter declaration.
#[no_mangle]
pub unsafe extern "C" fn aclrtFunctionGetParamCount(
    func_: *const c_void,
    paramCount: *mut usize,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce(
            "aclrtFunctionGetParamCount",
            paramCount,
            "paramCount",
            |rt| rt.function_param_count(func(func_)),
        )
    }
}

/// `aclrtFunctionGetParamInfo`: either output may be NULL, not both.
#[no_mangle]
pub unsafe extern "C" fn aclrtFunctionGetParamInfo(
    func_: *const c_void,
    paramIndex: usize,
    paramOffset: *mut usize,
    paramSize: *mut usize,
) -> aclError {
    const CALL: &str = "aclrtFunctionGetParamInfo";
    entry(CALL, |rt| {
        let outputs = !paramOffset.is_null() || !paramSize.is_null();
        let (offset, size) = rt.function_param_info(func(func_), paramIndex, outputs)?;
        // SAFETY: each is NULL or valid for a write (C contract).
        unsafe {
            if !paramOffset.is_null() {
                put(paramOffset, offset);
            }
            if !paramSize.is_null() {
                put(paramSize, size);
            }
        }
        Ok(())
    })
}

// ---- Device variables of kernel binaries (exported data objects of a loaded binary).

/// `aclrtGetSymbolAddress`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetSymbolAddress(
    symbol: *const c_void,
    devPtr: *mut *mut c_void,
) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtGetSymbolAddress", devPtr, "devPtr", |rt| {
            rt.get_symbol_address(symbol as usize)
                .map(|a| a as *mut c_void)
        })
    }
}

/// `aclrtGetSymbolSize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetSymbolSize(symbol: *const c_void, size: *mut usize) -> aclError {
    // SAFETY: forwarded C contract.
    unsafe {
        produce("aclrtGetSymbolSize", size, "size", |rt| {
            rt.get_symbol_size(symbol as usize)
        })
    }
}

/// `aclrtMemcpyFromSymbol`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyFromSymbol(
    dst: *mut c_void,
    dstMax: usize,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: u32,
) -> aclError {
    entry("aclrtMemcpyFromSymbol", |rt| {
        // SAFETY: C contract: dst is writable for count bytes.
        unsafe { rt.memcpy_from_symbol(dst as usize, dstMax, symbol as usize, count, offset, kind) }
    })
}

/// `aclrtMemcpyFromSymbolAsync`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyFromSymbolAsync(
    dst: *mut c_void,
    dstMax: usize,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemcpyFromSymbolAsync", |rt| {
        // SAFETY: C contract: dst is writable for count bytes until the copy ran.
        unsafe {
            rt.memcpy_from_symbol_async(
                dst as usize,
                dstMax,
                symbol as usize,
                count,
                offset,
                kind,
                stream_handle(stream),
            )
        }
    })
}

/// `aclrtMemcpyToSymbol`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: u32,
) -> aclError {
    entry("aclrtMemcpyToSymbol", |rt| {
        // SAFETY: C contract: src is readable for count bytes.
        unsafe { rt.memcpy_to_symbol(symbol as usize, src as usize, count, offset, kind) }
    })
}

/// `aclrtMemcpyToSymbolAsync`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemcpyToSymbolAsync", |rt| {
        // SAFETY: C contract: src is readable for count bytes until the copy ran.
        unsafe {
            rt.memcpy_to_symbol_async(
                symbol as usize,
                src as usize,
                count,
                offset,
                kind,
                stream_handle(stream),
            )
        }
    })
}
