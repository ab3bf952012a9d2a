//! The vendor kernel API: binaries (host libraries), their functions, args handles and
//! launches. The objects and their invariants are in `crate::kernel`.

use std::ffi::{c_void, CString};
use std::path::Path;
use std::sync::Arc;

use super::KernelAccess;
use crate::codes::*;
use crate::consts::{ACLX_ACCESS_READ, ACLX_ACCESS_WRITE};
use crate::error::{bail, err, Result};
use crate::handle::{ArgsHandle, BinHandle, BinaryImageHandle, FuncHandle, StreamHandle};
use crate::hostlib::{
    is_host_shared_object, read_file_head, HeadError, HostLibrary, OpenError, ELF_HEADER_BYTES,
};
use crate::kernel::*;
use crate::runtime::Runtime;
use crate::sync::lock;
use crate::task_info::MemRange;

fn null_check(raw: u64, call: &str, what: &str) -> Result<()> {
    if raw == 0 {
        bail!(ACL_ERROR_INVALID_PARAM, "{call}: {what} is NULL");
    }
    Ok(())
}

fn stale(call: &str, what: &str, raw: u64, kind: &str) -> crate::error::Error {
    crate::error::Error::new(
        ACL_ERROR_RT_INVALID_HANDLE,
        format!("{call}: {what} {raw:#x} is not a live {kind} handle (never made, or freed)"),
    )
}

fn opened(
    result: std::result::Result<HostLibrary, OpenError>,
    call: &str,
    what: &str,
) -> Result<Binary> {
    match result {
        Ok(lib) => Ok(Binary {
            library: Arc::new(lib),
            functions: Default::default(),
        }),
        Err(OpenError::Loader(e)) => err(
            ACL_ERROR_INVALID_FILE,
            format!("{call}: cannot load {what}: {e}"),
        ),
        Err(OpenError::System(e)) => err(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("{call}: cannot load {what} from memory: {e}"),
        ),
    }
}

fn not_a_library(call: &str, what: &str) -> crate::error::Error {
    crate::error::Error::new(
        ACL_ERROR_INVALID_FILE,
        format!(
            "{call}: {what} is not a host shared library; the emulated device runs kernels \
             built into one (see acl/acl_host_kernel.h)"
        ),
    )
}

fn load_image(bytes: &[u8], call: &str) -> Result<Binary> {
    if !is_host_shared_object(bytes) {
        return Err(not_a_library(call, "the data"));
    }
    opened(
        HostLibrary::open_image(bytes, c"aclrt-kernel-binary"),
        call,
        "the data",
    )
}

fn refuse_if_finalized(a: &ArgsState, call: &str) -> Result<()> {
    if a.finalized {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{call}: the args handle is finalized; no parameter can be appended"
        );
    }
    Ok(())
}

fn param_index(a: &ArgsState, param: usize, call: &str) -> Result<usize> {
    let i = param.wrapping_sub(1);
    if i >= a.params.len() {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{call}: {param:#x} is not a parameter of this args handle"
        );
    }
    Ok(i)
}

impl Runtime {
    fn binary(&self, h: BinHandle, call: &str) -> Result<Arc<Binary>> {
        null_check(h.as_raw(), call, "binHandle")?;
        self.kernels
            .binaries
            .get(h.as_raw())
            .ok_or_else(|| stale(call, "binHandle", h.as_raw(), "binary"))
    }

    fn function(&self, h: FuncHandle, call: &str) -> Result<Arc<Function>> {
        null_check(h.as_raw(), call, "funcHandle")?;
        self.kernels
            .functions
            .get(h.as_raw())
            .ok_or_else(|| stale(call, "funcHandle", h.as_raw(), "function"))
    }

    /// An args handle: a token of `aclrtKernelArgsInit`, or the address of one placed in the
    /// caller's memory.
    fn args(&self, h: ArgsHandle, call: &str) -> Result<Arc<Args>> {
        null_check(h.as_raw(), call, "argsHandle")?;
        if let Some(a) = self.kernels.args.get(h.as_raw()) {
            return Ok(a);
        }
        let placed = lock(&self.kernels.user_args)
            .by_address
            .get(&h.as_raw())
            .copied();
        placed
            .and_then(|t| self.kernels.args.get(t.as_raw()))
            .ok_or_else(|| stale(call, "argsHandle", h.as_raw(), "args"))
    }

    fn hand_out(&self, binary: Binary) -> BinHandle {
        BinHandle::from_raw(self.kernels.binaries.insert(Arc::new(binary)))
    }

    /// `aclrtBinaryLoadFromFile`: opens the host library at `path` (load options are ignored).
    pub fn binary_load_from_file(&self, path: &Path) -> Result<BinHandle> {
        const CALL: &str = "aclrtBinaryLoadFromFile";
        let head = read_file_head(path, ELF_HEADER_BYTES).map_err(|e| match e {
            HeadError::Io(e) => crate::error::Error::new(
                ACL_ERROR_INVALID_FILE,
                format!("{CALL}: cannot read {path:?}: {e}"),
            ),
            HeadError::NotRegular => crate::error::Error::new(
                ACL_ERROR_INVALID_FILE,
                format!("{CALL}: {path:?} is not a regular file"),
            ),
        })?;
        if !is_host_shared_object(&head) {
            return Err(not_a_library(CALL, &format!("{path:?}")));
        }
        use std::os::unix::ffi::OsStrExt;
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
            bail!(
                ACL_ERROR_INVALID_FILE,
                "{CALL}: {path:?} contains a NUL byte"
            );
        };
        let binary = opened(HostLibrary::open(&c_path), CALL, &format!("{path:?}"))?;
        Ok(self.hand_out(binary))
    }

    /// `aclrtBinaryLoadFromData`: a host library image in memory, opened through an anonymous
    /// file.
    pub fn binary_load_from_data(&self, data: &[u8]) -> Result<BinHandle> {
        Ok(self.hand_out(load_image(data, "aclrtBinaryLoadFromData")?))
    }

    /// `aclrtCreateBinary`: keeps a copy of the image for `aclrtBinaryLoad`; empty data is
    /// `100000`.
    pub fn create_binary(&self, data: &[u8]) -> Result<BinaryImageHandle> {
        if data.is_empty() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtCreateBinary: the data is NULL or empty"
            );
        }
        let raw = self.kernels.images.insert(Arc::new(Image(data.to_vec())));
        Ok(BinaryImageHandle::from_raw(raw))
    }

    /// `aclrtDestroyBinary`: binaries loaded from the image stay loaded.
    pub fn destroy_binary(&self, image: BinaryImageHandle) -> Result<()> {
        const CALL: &str = "aclrtDestroyBinary";
        null_check(image.as_raw(), CALL, "the binary")?;
        self.kernels
            .images
            .remove(image.as_raw())
            .map(drop)
            .ok_or_else(|| stale(CALL, "the binary", image.as_raw(), "aclrtBinary"))
    }

    /// `aclrtBinaryLoad`: loads an `aclrtCreateBinary` image.
    pub fn binary_load(&self, image: BinaryImageHandle) -> Result<BinHandle> {
        const CALL: &str = "aclrtBinaryLoad";
        null_check(image.as_raw(), CALL, "the binary")?;
        let Some(bytes) = self.kernels.images.get(image.as_raw()) else {
            return Err(stale(CALL, "the binary", image.as_raw(), "aclrtBinary"));
        };
        Ok(self.hand_out(load_image(&bytes.0, CALL)?))
    }

    /// `aclrtBinaryUnLoad`: the binary's function and args handles become invalid; launches
    /// already queued still run (they hold the library).
    pub fn binary_unload(&self, bin: BinHandle) -> Result<()> {
        const CALL: &str = "aclrtBinaryUnLoad";
        null_check(bin.as_raw(), CALL, "binHandle")?;
        let Some(binary) = self.kernels.binaries.remove(bin.as_raw()) else {
            return Err(stale(CALL, "binHandle", bin.as_raw(), "binary"));
        };
        let functions: Vec<FuncHandle> = {
            let mut functions = lock(&binary.functions);
            functions.closed = true;
            std::mem::take(&mut functions.by_name)
                .into_values()
                .collect()
        };
        for h in functions {
            let Some(f) = self.kernels.functions.remove(h.as_raw()) else {
                continue;
            };
            let (handles, addresses) = {
                let mut args = lock(&f.args);
                args.closed = true;
                (
                    std::mem::take(&mut args.handles),
                    std::mem::take(&mut args.user_addresses),
                )
            };
            for a in &handles {
                self.kernels.args.remove(a.as_raw());
            }
            // An address may name another function's handle by now (the caller's memory was
            // reused for it): only entries naming one of these handles go.
            let mut user = lock(&self.kernels.user_args);
            for address in addresses {
                if user
                    .by_address
                    .get(&address)
                    .is_some_and(|h| handles.contains(h))
                {
                    user.by_address.remove(&address);
                }
            }
        }
        Ok(())
    }

    /// `aclrtBinaryGetFunction`: the kernel exported as `name`; the same name gives the same
    /// handle, a name the library does not export is `107042`.
    pub fn binary_get_function(&self, bin: BinHandle, name: &str) -> Result<FuncHandle> {
        const CALL: &str = "aclrtBinaryGetFunction";
        let binary = self.binary(bin, CALL)?;
        self.function_of(bin, &binary, name, CALL)
    }

    /// The function `name` of `binary` (the binary `bin` names, or named before an unload
    /// that raced the lookup: then it is `107017` and nothing is added).
    fn function_of(
        &self,
        bin: BinHandle,
        binary: &Binary,
        name: &str,
        call: &str,
    ) -> Result<FuncHandle> {
        {
            let functions = lock(&binary.functions);
            if functions.closed {
                return Err(stale(call, "binHandle", bin.as_raw(), "binary"));
            }
            if let Some(&f) = functions.by_name.get(name) {
                return Ok(f);
            }
        }
        // Resolved with no lock held: a lookup may run the library's own code (IFUNC
        // resolvers).
        let Some(address) = binary.library.symbol(name) else {
            bail!(
                ACL_ERROR_RT_SYMBOL_NOT_FOUND,
                "{call}: the binary exports no kernel {name:?}"
            );
        };
        // SAFETY: only a cast; that `name` is a kernel of the signature acl_host_kernel.h
        // declares is the caller's contract (a symbol's type cannot be checked), as a device
        // binary's kernel signature is on the vendor's runtime.
        let entry = unsafe { std::mem::transmute::<*mut c_void, HostKernel>(address) };
        let accesses = binary
            .library
            .symbol(&format!("{ACCESSES_PREFIX}{name}"))
            // SAFETY: only a cast; the declaration's signature is the caller's contract, as
            // the kernel's is.
            .map(|p| unsafe { std::mem::transmute::<*mut c_void, AccessDeclaration>(p) });
        let params = match binary.library.symbol(&format!("{PARAMS_PREFIX}{name}")) {
            // SAFETY: the library is open (`binary` holds it); that the symbol is a parameter
            // declaration of the shape acl_host_kernel.h gives is the caller's contract.
            Some(p) => unsafe { read_params(p.cast_const().cast()) },
            None => Err(format!(
                "it has no parameter declaration (ACL_HOST_KERNEL_PARAMS({name}, ...))"
            )),
        };
        // Made before the lock is taken (the handle table's lock is never taken under it),
        // then listed, or taken back if the binary was unloaded or the name listed meanwhile.
        let function = self.kernels.functions.insert_with(|raw| {
            Arc::new(Function {
                handle: FuncHandle::from_raw(raw),
                binary: bin,
                library: binary.library.clone(),
                entry,
                accesses,
                name: name.to_owned(),
                params,
                args: Default::default(),
            })
        });
        let handle = function.handle;
        let mut functions = lock(&binary.functions);
        let result = if functions.closed {
            Err(stale(call, "binHandle", bin.as_raw(), "binary"))
        } else if let Some(&first) = functions.by_name.get(name) {
            Ok(first)
        } else {
            functions.by_name.insert(name.to_owned(), handle);
            return Ok(handle);
        };
        drop(functions);
        // Dropped with no lock held: the last reference to the library closes it, which runs
        // its destructors.
        drop(self.kernels.functions.remove(handle.as_raw()));
        drop(function);
        result
    }

    /// `aclrtGetFunctionName`: the kernel's name, if `max_len` bytes hold it with its NUL.
    pub fn function_name(&self, func: FuncHandle, max_len: u32) -> Result<String> {
        const CALL: &str = "aclrtGetFunctionName";
        let name = self.function(func, CALL)?.name.clone();
        let needed = name.len() + 1;
        if needed > max_len as usize {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: the name needs {needed} bytes, maxLen is {max_len}"
            );
        }
        Ok(name)
    }

    /// `aclrtKernelArgsGetHandleMemSize`: bytes of an args handle placed in the caller's memory
    /// (the function handle must be live).
    pub fn kernel_args_handle_mem_size(&self, func: FuncHandle) -> Result<usize> {
        self.function(func, "aclrtKernelArgsGetHandleMemSize")?;
        Ok(ARGS_HANDLE_MEM_SIZE)
    }

    /// `aclrtKernelArgsGetMemSize`: the argument bytes take what the caller asks for (the
    /// function handle must be live).
    pub fn kernel_args_mem_size(&self, func: FuncHandle, user_args_size: usize) -> Result<usize> {
        self.function(func, "aclrtKernelArgsGetMemSize")?;
        Ok(user_args_size)
    }

    /// A new args handle of `f`, listed with it (refused once its binary is unloaded).
    fn new_args(
        &self,
        func: FuncHandle,
        f: &Function,
        user: Option<u64>,
        call: &str,
    ) -> Result<ArgsHandle> {
        let args = Arc::new(Args {
            function: func,
            state: Default::default(),
        });
        let handle = ArgsHandle::from_raw(self.kernels.args.insert(args));
        {
            let mut list = lock(&f.args);
            if list.closed {
                drop(list);
                self.kernels.args.remove(handle.as_raw());
                return Err(stale(call, "funcHandle", func.as_raw(), "function"));
            }
            list.handles.push(handle);
            list.user_addresses.extend(user);
        }
        Ok(handle)
    }

    /// Names `handle`, a new args handle of `f`, by `address`; returns the handle the address
    /// named before. Refused once the binary is unloaded (which removed `handle` already): the
    /// closed flag is checked and the address entered under the function's list lock, so the
    /// unload's cleanup of addresses either sees the entry or comes before the check.
    fn place_args(
        &self,
        func: FuncHandle,
        f: &Function,
        handle: ArgsHandle,
        address: u64,
        call: &str,
    ) -> Result<Option<ArgsHandle>> {
        let list = lock(&f.args);
        if list.closed {
            return Err(stale(call, "funcHandle", func.as_raw(), "function"));
        }
        let replaced = lock(&self.kernels.user_args)
            .by_address
            .insert(address, handle);
        drop(list);
        Ok(replaced)
    }

    /// `aclrtKernelArgsInit`: an empty args handle for the kernel, valid until its binary is
    /// unloaded.
    pub fn kernel_args_init(&self, func: FuncHandle) -> Result<ArgsHandle> {
        const CALL: &str = "aclrtKernelArgsInit";
        let f = self.function(func, CALL)?;
        self.new_args(func, &f, None, CALL)
    }

    /// `aclrtKernelArgsInitByUserMem`: an empty args handle named by `address`, the caller's
    /// `aclrtKernelArgsGetHandleMemSize` bytes (aligned to that size); the runtime keeps the
    /// argument bytes itself and writes nothing there.
    pub fn kernel_args_init_by_user_mem(&self, func: FuncHandle, address: u64) -> Result<()> {
        const CALL: &str = "aclrtKernelArgsInitByUserMem";
        let f = self.function(func, CALL)?;
        null_check(address, CALL, "argsHandle")?;
        if !address.is_multiple_of(ARGS_HANDLE_MEM_SIZE as u64) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: argsHandle {address:#x} is not pointer-aligned"
            );
        }
        let handle = self.new_args(func, &f, Some(address), CALL)?;
        let replaced = self.place_args(func, &f, handle, address, CALL)?;
        // The caller's memory now holds another handle: the one it held is gone, from its
        // function's lists too (re-initialising one address does not grow them).
        let Some(old) = replaced else {
            return Ok(());
        };
        let Some(old_args) = self.kernels.args.remove(old.as_raw()) else {
            return Ok(());
        };
        if let Some(owner) = self.kernels.functions.get(old_args.function.as_raw()) {
            let mut list = lock(&owner.args);
            list.handles.retain(|&h| h != old);
            if let Some(i) = list.user_addresses.iter().position(|&a| a == address) {
                list.user_addresses.swap_remove(i);
            }
        }
        Ok(())
    }

    /// `aclrtKernelArgsAppend`: copies `param` to the end of the arguments (no padding);
    /// returns the parameter's handle.
    pub fn kernel_args_append(&self, args: ArgsHandle, param: &[u8]) -> Result<usize> {
        const CALL: &str = "aclrtKernelArgsAppend";
        let a = self.args(args, CALL)?;
        let mut state = lock(&a.state);
        refuse_if_finalized(&state, CALL)?;
        if param.is_empty() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: paramSize is 0");
        }
        let offset = state.bytes.len();
        state.bytes.extend_from_slice(param);
        state.params.push(Param {
            offset,
            size: param.len(),
            kind: ParamKind::Value,
        });
        Ok(param_handle(state.params.len() - 1))
    }

    /// `aclrtKernelArgsAppendPlaceHolder`: a pointer slot at the end of the arguments, to point
    /// to the buffer `aclrtKernelArgsGetPlaceHolderBuffer` gives; returns its handle.
    pub fn kernel_args_append_placeholder(&self, args: ArgsHandle) -> Result<usize> {
        const CALL: &str = "aclrtKernelArgsAppendPlaceHolder";
        let a = self.args(args, CALL)?;
        let mut state = lock(&a.state);
        refuse_if_finalized(&state, CALL)?;
        let offset = state.bytes.len();
        let size = std::mem::size_of::<usize>();
        state
            .bytes
            .extend_from_slice(&[0; std::mem::size_of::<usize>()]);
        state.params.push(Param {
            offset,
            size,
            kind: ParamKind::PlaceHolder(None),
        });
        Ok(param_handle(state.params.len() - 1))
    }

    /// `aclrtKernelArgsGetPlaceHolderBuffer`: the address of a zeroed host buffer of `size`
    /// bytes, owned by the args handle, for the placeholder's data (replacing any earlier one);
    /// the kernel sees a copy taken at launch.
    pub fn kernel_args_get_placeholder_buffer(
        &self,
        args: ArgsHandle,
        param: usize,
        size: usize,
    ) -> Result<usize> {
        const CALL: &str = "aclrtKernelArgsGetPlaceHolderBuffer";
        let a = self.args(args, CALL)?;
        let mut state = lock(&a.state);
        let i = param_index(&state, param, CALL)?;
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: dataSize is 0");
        }
        if size > MAX_PLACEHOLDER_BYTES {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: dataSize {size} is more than the {MAX_PLACEHOLDER_BYTES} bytes an args \
                 handle holds"
            );
        }
        let ParamKind::PlaceHolder(buffer) = &mut state.params[i].kind else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: parameter {param:#x} is not a placeholder"
            );
        };
        let fresh = Words::zeroed(size);
        let address = fresh.addr() as usize;
        // The earlier buffer (if any) is freed: its address is no longer the placeholder's.
        *buffer = Some(fresh);
        Ok(address)
    }

    /// `aclrtKernelArgsParaUpdate`: replaces an appended parameter's bytes (same size).
    pub fn kernel_args_para_update(
        &self,
        args: ArgsHandle,
        param: usize,
        bytes: &[u8],
    ) -> Result<()> {
        const CALL: &str = "aclrtKernelArgsParaUpdate";
        let a = self.args(args, CALL)?;
        let mut state = lock(&a.state);
        let i = param_index(&state, param, CALL)?;
        let p = &state.params[i];
        let is_value = matches!(p.kind, ParamKind::Value);
        if !is_value || p.size != bytes.len() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: parameter {param:#x} is {} of {} bytes, not {} bytes",
                if is_value { "a value" } else { "a placeholder" },
                p.size,
                bytes.len()
            );
        }
        let (offset, size) = (p.offset, p.size);
        state.bytes[offset..offset + size].copy_from_slice(bytes);
        Ok(())
    }

    /// `aclrtKernelArgsFinalize`: the parameters are complete; appending more is refused. The
    /// handle stays usable for launches and updates.
    pub fn kernel_args_finalize(&self, args: ArgsHandle) -> Result<()> {
        let a = self.args(args, "aclrtKernelArgsFinalize")?;
        lock(&a.state).finalized = true;
        Ok(())
    }

    /// `aclrtLaunchKernelWithConfig`: launches with the handle's arguments; placeholder slots
    /// point to copies of their buffers taken now. The configuration's attributes are ignored.
    pub fn launch_kernel_with_config(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        stream: StreamHandle,
        args: ArgsHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtLaunchKernelWithConfig";
        let f = self.function(func, CALL)?;
        let a = self.args(args, CALL)?;
        if a.function != func {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: the args handle was made for another function"
            );
        }
        let (bytes, copies) = lock(&a.state).launch_bytes();
        self.launch_function(&f, num_blocks, bytes, stream, copies, None)
    }

    /// `aclrtLaunchKernel`: runs the kernel on the stream with the `size` bytes at `data` as
    /// they are when it runs (device memory, as on the vendor's device, or host memory).
    ///
    /// # Safety
    /// `data` holds `size` readable bytes until the kernel ran.
    pub unsafe fn launch_kernel_from(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        data: usize,
        size: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        unsafe { self.launch_from(func, num_blocks, data, size, stream, "aclrtLaunchKernel") }
    }

    /// `aclrtLaunchKernelV2`: [`Runtime::launch_kernel_from`]; the launch configuration's
    /// attributes are ignored.
    ///
    /// # Safety
    /// As for [`Runtime::launch_kernel_from`].
    pub unsafe fn launch_kernel_v2_from(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        data: usize,
        size: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        unsafe { self.launch_from(func, num_blocks, data, size, stream, "aclrtLaunchKernelV2") }
    }

    /// The launches whose arguments are read from an address when the kernel runs, so work
    /// queued before it on the stream (an asynchronous copy of the arguments, say) is seen.
    /// The bytes there at launch choose the memory accesses the checker sees.
    ///
    /// # Safety
    /// `data` holds `size` readable bytes until the kernel ran.
    unsafe fn launch_from(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        data: usize,
        size: usize,
        stream: StreamHandle,
        call: &str,
    ) -> Result<()> {
        let f = self.function(func, call)?;
        if size == 0 {
            return self.launch_function(&f, num_blocks, Vec::new(), stream, Vec::new(), None);
        }
        null_check(data as u64, call, "argsData")?;
        // Refuses a range that overruns an allocation or runs into freed memory.
        self.classify_memory(data, size, &format!("{call}: argsData"))?;
        // SAFETY: the caller's promise.
        let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, size) }.to_vec();
        self.launch_function(&f, num_blocks, bytes, stream, Vec::new(), Some(data))
    }

    /// Queues `f` on `stream` with a copy of `bytes` as its arguments (re-read from `from` when
    /// it runs, if given), keeping `extra` alive until the kernel ran.
    fn launch_function(
        &self,
        f: &Function,
        num_blocks: u32,
        bytes: Vec<u8>,
        stream: StreamHandle,
        extra: Vec<Words>,
        from: Option<usize>,
    ) -> Result<()> {
        self.launch_relocated(f, num_blocks, bytes, &[], stream, extra, from)
    }

    /// [`Runtime::launch_function`], with each `(slot, data)` of `relocations` writing the
    /// address of the copy's byte `data` into the pointer-sized slot at byte `slot` of the
    /// copy (both checked in range by the caller).
    #[allow(clippy::too_many_arguments)]
    fn launch_relocated(
        &self,
        f: &Function,
        num_blocks: u32,
        bytes: Vec<u8>,
        relocations: &[(usize, usize)],
        stream: StreamHandle,
        extra: Vec<Words>,
        from: Option<usize>,
    ) -> Result<()> {
        // Keep the copy 8-byte aligned: kernels read packed arguments in place.
        let len = bytes.len();
        // SAFETY: `bytes` holds `len` bytes.
        let words = unsafe { Words::copy_of(bytes.as_ptr(), len) };
        for &(slot, data) in relocations {
            let address = words.addr() as usize + data;
            debug_assert!(slot + std::mem::size_of::<usize>() <= len && data < len);
            // SAFETY: the slot lies within the copy's `len` bytes (checked by the caller); the
            // copy is only read through its address, as here.
            unsafe {
                words
                    .addr()
                    .add(slot)
                    .cast::<usize>()
                    .write_unaligned(address)
            };
        }
        let mut access = match f.accesses {
            Some(declare) => declared_accesses(declare, &words)?,
            None => self.pointer_accesses(&bytes),
        };
        if let Some(start) = from.filter(|_| len > 0) {
            access.reads.push(MemRange { start, len });
        }
        let library = f.library.clone();
        let entry = f.entry;
        let func = f.handle.as_raw();
        let kernel = Box::new(move || {
            let _held = (library, extra);
            if let Some(from) = from {
                // SAFETY: the launch's argsData holds `len` bytes, and stays valid until the
                // task ran (the caller's contract, as on the device); `words` holds `len`.
                unsafe { std::ptr::copy_nonoverlapping(from as *const u8, words.addr(), len) };
            }
            let args: *mut c_void = if len == 0 {
                std::ptr::null_mut()
            } else {
                words.addr().cast()
            };
            // SAFETY: the library stays open (held above); that the symbol is a kernel of the
            // signature acl_host_kernel.h declares is the caller's contract (it cannot be
            // checked); `args` holds `len` bytes.
            match unsafe { entry(num_blocks, args, len) } {
                0 => Ok(()),
                code => {
                    let failed = FailedKernel {
                        func,
                        args: from.unwrap_or(args as usize),
                        args_len: u32::try_from(len).unwrap_or(u32::MAX),
                    };
                    crate::kernel::note_failed(failed, words);
                    Err(code as crate::error::AclError)
                }
            }
        });
        self.launch_kernel(stream, &f.name, access, kernel)
            .map(|_| ())
    }

    /// `aclrtLaunchKernelWithHostArgs`: runs the kernel with a copy of the `args_size` bytes at
    /// `host_args` taken now; each placeholder's pointer slot (`addrOffset`) gets the address
    /// of the copy's byte `dataOffset`, as the vendor's runtime points it at the device copy
    /// of the data area. The configuration's attributes are ignored.
    ///
    /// # Safety
    /// `host_args` is NULL or holds `args_size` readable bytes; `placeholders` is NULL or holds
    /// `count` entries.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn launch_kernel_with_host_args(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        stream: StreamHandle,
        host_args: *const u8,
        args_size: usize,
        placeholders: *const PlaceHolder,
        count: usize,
    ) -> Result<()> {
        const CALL: &str = "aclrtLaunchKernelWithHostArgs";
        null_check(func.as_raw(), CALL, "funcHandle")?;
        null_check(host_args as u64, CALL, "hostArgs")?;
        let f = self.function(func, CALL)?;
        if args_size == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: argsSize is 0");
        }
        if count != 0 && placeholders.is_null() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: placeHolderArray is NULL with placeHolderNum {count}"
            );
        }
        let word = std::mem::size_of::<usize>();
        let mut relocations = Vec::new();
        for i in 0..count {
            // SAFETY: `placeholders` holds `count` entries (the caller's promise).
            let p = unsafe { placeholders.add(i).read_unaligned() };
            let (slot, data) = (p.addr_offset as usize, p.data_offset as usize);
            if slot + word > args_size {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: placeHolderArray[{i}].addrOffset {slot} leaves no room for a \
                     pointer in argsSize {args_size}"
                );
            }
            if data >= args_size {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: placeHolderArray[{i}].dataOffset {data} is not less than argsSize \
                     {args_size}"
                );
            }
            relocations.push((slot, data));
        }
        // After the arguments' checks, as the vendor's runtime checks the block count (its
        // ACL layer does not, unlike aclrtLaunchKernelWithArgsArray's).
        if num_blocks == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: numBlocks is 0");
        }
        // SAFETY: the caller's promise.
        let bytes = unsafe { std::slice::from_raw_parts(host_args, args_size) }.to_vec();
        self.launch_relocated(
            &f,
            num_blocks,
            bytes,
            &relocations,
            stream,
            Vec::new(),
            None,
        )
    }

    /// `aclrtLaunchKernelWithArgsArray`: runs the kernel with its parameters copied now from
    /// `args[i]`, each of the size the kernel's parameter declaration gives, packed back to
    /// back. The configuration's attributes are ignored.
    ///
    /// # Safety
    /// `args` is NULL or holds one pointer per declared parameter, each NULL or readable for
    /// that parameter's size.
    pub unsafe fn launch_kernel_with_args_array(
        &self,
        func: FuncHandle,
        num_blocks: u32,
        stream: StreamHandle,
        args: *const *const u8,
    ) -> Result<()> {
        const CALL: &str = "aclrtLaunchKernelWithArgsArray";
        null_check(func.as_raw(), CALL, "func")?;
        if num_blocks == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: numBlocks is 0");
        }
        let f = self.function(func, CALL)?;
        let sizes = declared_params(&f, CALL)?;
        if !sizes.is_empty() && args.is_null() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: args is NULL for a kernel of {} parameters",
                sizes.len()
            );
        }
        let mut bytes = Vec::with_capacity(sizes.iter().sum());
        for (i, &size) in sizes.iter().enumerate() {
            // SAFETY: `args` holds one pointer per parameter (the caller's promise).
            let p = unsafe { args.add(i).read() };
            if p.is_null() {
                bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: args[{i}] is NULL");
            }
            // SAFETY: `p` is readable for the parameter's size (the caller's promise).
            bytes.extend_from_slice(unsafe { std::slice::from_raw_parts(p, size) });
        }
        self.launch_function(&f, num_blocks, bytes, stream, Vec::new(), None)
    }

    /// `aclrtFunctionGetBinary`: the binary the kernel was looked up in.
    pub fn function_get_binary(&self, func: FuncHandle) -> Result<BinHandle> {
        Ok(self.function(func, "aclrtFunctionGetBinary")?.binary)
    }

    /// `aclrtGetFunctionAddr`: the kernel's entry address as the AI Core address; no vector
    /// core address (NULL: the kernel does not run on a vector core).
    pub fn function_addr(&self, func: FuncHandle) -> Result<(usize, usize)> {
        let f = self.function(func, "aclrtGetFunctionAddr")?;
        Ok((f.entry as usize, 0))
    }

    /// `aclrtGetFunctionSize`: the size of the kernel's code, the ELF size of its exported
    /// symbol (0 when the library does not record one), as the AI Core size; the vector core
    /// size is 0 (the kernel does not run there).
    pub fn function_size(&self, func: FuncHandle) -> Result<(usize, usize)> {
        let f = self.function(func, "aclrtGetFunctionSize")?;
        Ok((crate::hostlib::symbol_size(f.entry as usize), 0))
    }

    /// `aclrtBinaryGetGlobal`: the address and size of the binary's exported data object
    /// `name` (a device variable, see `api/symbol.rs`). In the vendor's order: a NULL handle,
    /// a NULL name (`None`) and no output asked for (`outputs` false) are `100000`; a stale
    /// handle `107017`; without a current context `107002`; a name the library does not
    /// export as a data object `107042`.
    pub fn binary_get_global(
        &self,
        bin: BinHandle,
        name: Option<&str>,
        outputs: bool,
    ) -> Result<(usize, usize)> {
        const CALL: &str = "aclrtBinaryGetGlobal";
        null_check(bin.as_raw(), CALL, "binHandle")?;
        let Some(name) = name else {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: name is NULL");
        };
        if !outputs {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: dptr and size are both NULL"
            );
        }
        let binary = self.binary(bin, CALL)?;
        self.current_context()?;
        // Looked up with no lock held: a lookup may run the library's own code.
        let found = binary
            .library
            .symbol(name)
            .map(|p| p as usize)
            .and_then(|address| Some((address, binary.library.object_at(address)?)));
        found.ok_or_else(|| {
            crate::error::Error::new(
                ACL_ERROR_RT_SYMBOL_NOT_FOUND,
                format!("{CALL}: the binary exports no global variable {name:?}"),
            )
        })
    }

    /// `aclrtGetFunctionAttribute`: a host kernel is an AI Core kernel
    /// (`ACL_KERNEL_TYPE_AICORE`) of the normal schedule mode (0); it has no cube/vector ratio
    /// (`207000`, as the vendor answers on chips without mixed kernels). Other attributes are
    /// `107000`.
    pub fn function_attribute(&self, func: FuncHandle, attr: u32) -> Result<i64> {
        const CALL: &str = "aclrtGetFunctionAttribute";
        use crate::vendor_consts::{
            ACL_FUNC_ATTR_KERNEL_RATIO, ACL_FUNC_ATTR_KERNEL_SCHED_MODE, ACL_FUNC_ATTR_KERNEL_TYPE,
            ACL_KERNEL_TYPE_AICORE,
        };
        self.function(func, CALL)?;
        match i64::from(attr) {
            ACL_FUNC_ATTR_KERNEL_TYPE => Ok(ACL_KERNEL_TYPE_AICORE),
            ACL_FUNC_ATTR_KERNEL_SCHED_MODE => Ok(0),
            ACL_FUNC_ATTR_KERNEL_RATIO => err(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!(
                    "{CALL}: ACL_FUNC_ATTR_KERNEL_RATIO: a host kernel has no cube/vector ratio"
                ),
            ),
            _ => err(
                ACL_ERROR_RT_PARAM_INVALID,
                format!("{CALL}: attrType {attr} is not in [1, 4)"),
            ),
        }
    }

    /// `aclrtFunctionGetParamCount`: how many parameters the kernel's declaration gives.
    pub fn function_param_count(&self, func: FuncHandle) -> Result<usize> {
        const CALL: &str = "aclrtFunctionGetParamCount";
        null_check(func.as_raw(), CALL, "func")?;
        let f = self.function(func, CALL)?;
        Ok(declared_params(&f, CALL)?.len())
    }

    /// `aclrtFunctionGetParamInfo`: (offset, size) of parameter `index`, the parameters packed
    /// back to back in declaration order.
    /// `outputs`: whether the caller gave either output (both NULL is `100000`).
    pub fn function_param_info(
        &self,
        func: FuncHandle,
        index: usize,
        outputs: bool,
    ) -> Result<(usize, usize)> {
        const CALL: &str = "aclrtFunctionGetParamInfo";
        if !outputs {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: paramOffset and paramSize are both NULL"
            );
        }
        null_check(func.as_raw(), CALL, "func")?;
        let f = self.function(func, CALL)?;
        let sizes = declared_params(&f, CALL)?;
        let Some(&size) = sizes.get(index) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: paramIndex {index} is not in [0, {})",
                sizes.len()
            );
        };
        Ok((sizes[..index].iter().sum(), size))
    }

    /// The default declared accesses: each pointer-aligned word of the arguments that points
    /// into a live allocation reads and writes that whole allocation.
    fn pointer_accesses(&self, bytes: &[u8]) -> KernelAccess {
        let mut ranges: Vec<MemRange> = Vec::new();
        let word = std::mem::size_of::<usize>();
        for chunk in bytes.chunks_exact(word) {
            let value = usize::from_ne_bytes(chunk.try_into().expect("a word"));
            if value == 0 {
                continue;
            }
            if let Some(range) = self.allocation_containing(value) {
                if !ranges.contains(&range) {
                    ranges.push(range);
                }
            }
        }
        KernelAccess {
            reads: ranges.clone(),
            writes: ranges,
        }
    }
}

/// The kernel's declared parameter sizes, or `107000` (as the vendor's runtime for a kernel
/// without parameter information).
fn declared_params<'a>(f: &'a Function, call: &str) -> Result<&'a [usize]> {
    f.params.as_deref().map_err(|why| {
        crate::error::Error::new(
            ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "{call}: kernel {:?} has no parameter information: {why}",
                f.name
            ),
        )
    })
}

/// The accesses the kernel's declaration gives for the arguments `words`. The
/// declaration is user code: it runs on the launching thread with no runtime lock held.
fn declared_accesses(declare: AccessDeclaration, words: &Words) -> Result<KernelAccess> {
    let len = words.len();
    let args: *const c_void = if len == 0 {
        std::ptr::null()
    } else {
        words.addr().cast_const().cast()
    };
    let empty = DeclaredAccess {
        ptr: std::ptr::null(),
        size: 0,
        mode: 0,
    };
    let mut entries = vec![empty; 16];
    // Asked once with room for 16 ranges, then at most once more with room for all it said it
    // needs: a declaration that asks for more again, or for more than the limit, is refused.
    for attempt in 0..2 {
        // SAFETY: that the declaration has the signature acl_host_kernel.h declares and writes
        // at most `capacity` entries is the caller's contract (it cannot be checked); `args`
        // holds `len` bytes.
        let count = unsafe { declare(args, len, entries.as_mut_ptr(), entries.len()) };
        if count <= entries.len() {
            entries.truncate(count);
            break;
        }
        if count > MAX_DECLARED_ACCESSES {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "the kernel's access declaration gives {count} ranges, more than the \
                 {MAX_DECLARED_ACCESSES} a launch may declare"
            );
        }
        if attempt == 1 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "the kernel's access declaration asked for room for {count} ranges after being \
                 given room for the {} it asked for",
                entries.len()
            );
        }
        entries = vec![empty; count];
    }
    let mut access = KernelAccess::default();
    for (i, a) in entries.iter().enumerate() {
        if a.mode & !(ACLX_ACCESS_READ | ACLX_ACCESS_WRITE) != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "the kernel's access declaration gives mode {:#x} for range {i}, with bits \
                 other than ACLX_ACCESS_READ and ACLX_ACCESS_WRITE",
                a.mode
            );
        }
        if a.ptr.is_null() || a.size == 0 {
            continue;
        }
        let range = MemRange {
            start: a.ptr as usize,
            len: a.size,
        };
        if a.mode & ACLX_ACCESS_READ != 0 {
            access.reads.push(range);
        }
        if a.mode & ACLX_ACCESS_WRITE != 0 {
            access.writes.push(range);
        }
    }
    Ok(access)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host shared library every test process has loaded: the C library.
    fn libc_path() -> std::path::PathBuf {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let line = maps
            .lines()
            .find(|l| l.contains("/libc.so") || l.contains("/libc-"))
            .expect("libc is mapped");
        line[line.find('/').unwrap()..].trim().into()
    }

    #[test]
    fn handles_of_an_unloaded_binary_are_gone_with_it() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        assert_eq!(rt.binary_get_function(bin, "getpid"), Ok(f));
        let function = rt.function(f, "test").unwrap();
        let a = rt.kernel_args_init(f).unwrap();
        // Two handles placed at one address: the second replaces the first.
        let mut slot = [0u64; 1];
        let address = slot.as_mut_ptr() as u64;
        rt.kernel_args_init_by_user_mem(f, address).unwrap();
        rt.kernel_args_init_by_user_mem(f, address).unwrap();
        assert_eq!(rt.kernels.args.live(), 2);
        assert_eq!(
            rt.kernel_args_append(ArgsHandle::from_raw(address), &[7]),
            Ok(1)
        );
        assert_eq!(slot, [0], "nothing is written in the caller's memory");
        rt.binary_unload(bin).unwrap();
        assert_eq!(rt.kernels.binaries.live(), 0);
        assert_eq!(rt.kernels.functions.live(), 0);
        assert_eq!(rt.kernels.args.live(), 0);
        assert!(crate::sync::lock(&rt.kernels.user_args)
            .by_address
            .is_empty());
        let code = |r: Result<usize>| r.unwrap_err().code();
        assert_eq!(
            code(rt.kernel_args_append(a, &[1])),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            code(rt.kernel_args_append(ArgsHandle::from_raw(address), &[1])),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        // A function looked up before the unload makes no args handle after it.
        let late = rt.new_args(f, &function, None, "aclrtKernelArgsInit");
        assert_eq!(late.unwrap_err().code(), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(rt.kernels.args.live(), 0);
    }

    #[test]
    fn handles_are_the_runtimes_own() {
        let rt = Runtime::new(&crate::Config::default());
        let other = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let foreign = other.binary_get_function(bin, "getpid").unwrap_err();
        assert_eq!(foreign.code(), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(
            other.function_name(f, 64).unwrap_err().code(),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(rt.function_name(f, 7).as_deref(), Ok("getpid"));
        let short = rt.function_name(f, 6).unwrap_err();
        assert_eq!(short.code(), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            short.message(),
            "aclrtGetFunctionName: the name needs 7 bytes, maxLen is 6"
        );
        // Wrong kinds: a function handle is no binary, a binary no args handle.
        let wrong = rt
            .binary_unload(BinHandle::from_raw(f.as_raw()))
            .unwrap_err();
        assert_eq!(wrong.code(), ACL_ERROR_RT_INVALID_HANDLE);
        let wrong = rt.kernel_args_finalize(ArgsHandle::from_raw(bin.as_raw()));
        assert_eq!(wrong.unwrap_err().code(), ACL_ERROR_RT_INVALID_HANDLE);
        let null = rt.kernel_args_init(FuncHandle::NULL).unwrap_err();
        assert_eq!(null.code(), ACL_ERROR_INVALID_PARAM);
        rt.binary_unload(bin).unwrap();
    }

    #[test]
    fn placeholder_buffers_are_bounded() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let a = rt.kernel_args_init(f).unwrap();
        let p = rt.kernel_args_append_placeholder(a).unwrap();
        for size in [MAX_PLACEHOLDER_BYTES + 1, 1 << 45, usize::MAX] {
            let e = rt
                .kernel_args_get_placeholder_buffer(a, p, size)
                .unwrap_err();
            assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID, "dataSize {size}");
            assert!(e.message().contains("65536"), "{}", e.message());
        }
        let address = rt
            .kernel_args_get_placeholder_buffer(a, p, MAX_PLACEHOLDER_BYTES)
            .unwrap();
        // SAFETY: the buffer holds MAX_PLACEHOLDER_BYTES zeroed bytes owned by the handle.
        let last = unsafe { *((address + MAX_PLACEHOLDER_BYTES - 1) as *const u8) };
        assert_eq!(last, 0);
        rt.binary_unload(bin).unwrap();
    }

    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// Always asks for one range more than it was given room for.
    unsafe extern "C" fn greedy(
        _: *const c_void,
        _: usize,
        _: *mut DeclaredAccess,
        capacity: usize,
    ) -> usize {
        CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        capacity + 1
    }

    /// Asks for more ranges than anyone could hold.
    unsafe extern "C" fn huge(
        _: *const c_void,
        _: usize,
        _: *mut DeclaredAccess,
        _: usize,
    ) -> usize {
        usize::MAX
    }

    /// Declares 20 one-byte reads of the argument word's address onwards.
    unsafe extern "C" fn twenty(
        args: *const c_void,
        _: usize,
        accesses: *mut DeclaredAccess,
        capacity: usize,
    ) -> usize {
        for i in 0..capacity.min(20) {
            // SAFETY: the runtime gives room for `capacity` entries.
            unsafe {
                *accesses.add(i) = DeclaredAccess {
                    ptr: args.cast::<u8>().add(i).cast(),
                    size: 1,
                    mode: ACLX_ACCESS_READ,
                }
            };
        }
        20
    }

    #[test]
    fn access_declarations_are_asked_at_most_twice_and_bounded() {
        let words = Words::zeroed(32);
        let e = declared_accesses(greedy, &words).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
        assert!(
            e.message().contains("after being given room"),
            "{}",
            e.message()
        );
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::SeqCst), 2);
        let e = declared_accesses(huge, &words).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
        assert!(e.message().contains("4096"), "{}", e.message());
        let access = declared_accesses(twenty, &words).unwrap();
        assert_eq!(access.reads.len(), 20);
        assert!(access.writes.is_empty());
        assert_eq!(access.reads[19].start, words.addr() as usize + 19);
    }

    #[test]
    fn only_regular_files_are_read_and_only_their_header() {
        let rt = Runtime::new(&crate::Config::default());
        let dir = std::env::temp_dir().join(format!("aclrt-kernel-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for path in [Path::new("/dev/zero"), fifo.as_path(), dir.as_path()] {
            let e = rt.binary_load_from_file(path).unwrap_err();
            assert_eq!(e.code(), ACL_ERROR_INVALID_FILE, "{path:?}");
            assert!(
                e.message().contains("not a regular file"),
                "{}",
                e.message()
            );
        }
        // A large regular file that is no library: only its header is read.
        let big = dir.join("big");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(1 << 40).unwrap();
        let e = rt.binary_load_from_file(&big).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_FILE);
        assert!(
            e.message().contains("not a host shared library"),
            "{}",
            e.message()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unloading_keeps_another_binarys_handle_at_a_reused_address() {
        let rt = Runtime::new(&crate::Config::default());
        let bin1 = rt.binary_load_from_file(&libc_path()).unwrap();
        let bin2 = rt.binary_load_from_file(&libc_path()).unwrap();
        let f1 = rt.binary_get_function(bin1, "getpid").unwrap();
        let f2 = rt.binary_get_function(bin2, "getpid").unwrap();
        let mut slot = [0u64; 1];
        let address = slot.as_mut_ptr() as u64;
        let placed = ArgsHandle::from_raw(address);
        rt.kernel_args_init_by_user_mem(f1, address).unwrap();
        // The same memory now holds an args handle of the other binary's function.
        rt.kernel_args_init_by_user_mem(f2, address).unwrap();
        rt.binary_unload(bin1).unwrap();
        assert_eq!(rt.kernel_args_append(placed, &[1, 2]), Ok(1));
        assert_eq!(rt.kernels.args.live(), 1);
        rt.binary_unload(bin2).unwrap();
        assert_eq!(
            rt.kernel_args_append(placed, &[1]).unwrap_err().code(),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(rt.kernels.args.live(), 0);
        assert!(lock(&rt.kernels.user_args).by_address.is_empty());
        assert_eq!(slot, [0]);
    }

    #[test]
    fn a_lookup_racing_an_unload_adds_nothing() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        // The lookup found the binary, then the unload ran before it listed the function.
        let binary = rt.binary(bin, "test").unwrap();
        rt.binary_unload(bin).unwrap();
        let e = rt.function_of(bin, &binary, "getpid", "aclrtBinaryGetFunction");
        assert_eq!(e.unwrap_err().code(), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(rt.kernels.functions.live(), 0);
        assert!(lock(&binary.functions).by_name.is_empty());
        // Nothing but this reference keeps the library open.
        assert_eq!(Arc::strong_count(&binary.library), 1);
    }

    #[test]
    fn mem_sizes_need_a_live_function() {
        let rt = Runtime::new(&crate::Config::default());
        let other = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        assert_eq!(rt.kernel_args_handle_mem_size(f), Ok(8));
        assert_eq!(rt.kernel_args_mem_size(f, 40), Ok(40));
        let code = |r: Result<usize>| r.unwrap_err().code();
        // Foreign, garbage and wrong-kind handles.
        assert_eq!(
            code(other.kernel_args_handle_mem_size(f)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            code(other.kernel_args_mem_size(f, 4)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let garbage = FuncHandle::from_raw(0x1000);
        assert_eq!(
            code(rt.kernel_args_handle_mem_size(garbage)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        let wrong = FuncHandle::from_raw(bin.as_raw());
        assert_eq!(
            code(rt.kernel_args_mem_size(wrong, 4)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            code(rt.kernel_args_mem_size(FuncHandle::NULL, 4)),
            ACL_ERROR_INVALID_PARAM
        );
        // Stale after the unload.
        rt.binary_unload(bin).unwrap();
        assert_eq!(
            code(rt.kernel_args_handle_mem_size(f)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            code(rt.kernel_args_mem_size(f, 4)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }

    #[test]
    fn reinitialising_one_address_does_not_grow_the_lists() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let g = rt.binary_get_function(bin, "getppid").unwrap();
        let (function, other) = (
            rt.function(f, "test").unwrap(),
            rt.function(g, "test").unwrap(),
        );
        let mut slots = [0u64; 2];
        let (a, b) = (slots.as_mut_ptr() as u64, slots.as_mut_ptr() as u64 + 8);
        for _ in 0..100 {
            rt.kernel_args_init_by_user_mem(f, a).unwrap();
        }
        rt.kernel_args_init_by_user_mem(f, b).unwrap();
        let lens = |f: &Function| {
            let list = lock(&f.args);
            (list.handles.len(), list.user_addresses.len())
        };
        assert_eq!(lens(&function), (2, 2));
        assert_eq!(rt.kernels.args.live(), 2);
        // The address moves to another function's handle: the first forgets it.
        rt.kernel_args_init_by_user_mem(g, a).unwrap();
        assert_eq!(lens(&function), (1, 1));
        assert_eq!(lock(&function.args).user_addresses, [b]);
        assert_eq!(lens(&other), (1, 1));
        assert_eq!(rt.kernels.args.live(), 2);
        assert_eq!(rt.kernel_args_append(ArgsHandle::from_raw(a), &[1]), Ok(1));
        rt.binary_unload(bin).unwrap();
        assert_eq!(rt.kernels.args.live(), 0);
        assert!(lock(&rt.kernels.user_args).by_address.is_empty());
    }

    #[test]
    fn an_address_placed_after_the_unload_is_not_entered() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let function = rt.function(f, "test").unwrap();
        let mut slot = [0u64; 1];
        let address = slot.as_mut_ptr() as u64;
        // The handle is made and listed, then the unload runs before the address is entered.
        let handle = rt.new_args(f, &function, Some(address), "test").unwrap();
        rt.binary_unload(bin).unwrap();
        let placed = rt.place_args(
            f,
            &function,
            handle,
            address,
            "aclrtKernelArgsInitByUserMem",
        );
        assert_eq!(placed.unwrap_err().code(), ACL_ERROR_RT_INVALID_HANDLE);
        assert!(lock(&rt.kernels.user_args).by_address.is_empty());
        assert_eq!(rt.kernels.args.live(), 0);
        assert_eq!(slot, [0]);
    }

    #[test]
    fn parameter_declarations_end_at_a_zero_and_are_bounded() {
        static DECLARED: [usize; 5] = [8, 3, 8, 2, 0];
        // SAFETY: a terminated array.
        assert_eq!(
            unsafe { read_params(DECLARED.as_ptr()) },
            Ok(vec![8, 3, 8, 2])
        );
        // No terminator among the first MAX_PARAMS + 1 entries (no symbol bounds it here).
        let endless = vec![1usize; MAX_PARAMS + 8];
        // SAFETY: the vector holds more than MAX_PARAMS + 1 entries.
        let e = unsafe { read_params(endless.as_ptr()) }.unwrap_err();
        assert!(e.contains("1025 entries"), "{e}");
        assert!(e.contains("at most 1024 parameters"), "{e}");
    }

    #[test]
    fn function_queries_answer_from_the_function() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let function = rt.function(f, "test").unwrap();
        assert_eq!(rt.function_get_binary(f), Ok(bin));
        let entry = function.library.symbol("getpid").unwrap() as usize;
        assert_eq!(rt.function_addr(f), Ok((entry, 0)));
        assert_eq!(rt.function_attribute(f, 1), Ok(0));
        assert_eq!(rt.function_attribute(f, 3), Ok(0));
        let code = |r: Result<i64>| r.unwrap_err().code();
        assert_eq!(
            code(rt.function_attribute(f, 2)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(
            code(rt.function_attribute(f, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            code(rt.function_attribute(f, 4)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // libc declares no parameters.
        let e = rt.function_param_count(f).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            e.message(),
            "aclrtFunctionGetParamCount: kernel \"getpid\" has no parameter information: it \
             has no parameter declaration (ACL_HOST_KERNEL_PARAMS(getpid, ...))"
        );
        // A function with declared parameters, packed back to back.
        let declared = rt.kernels.functions.insert_with(|raw| {
            Arc::new(Function {
                handle: FuncHandle::from_raw(raw),
                binary: bin,
                library: function.library.clone(),
                entry: function.entry,
                accesses: None,
                name: "declared".into(),
                params: Ok(vec![8, 3, 8, 2]),
                args: Default::default(),
            })
        });
        let d = declared.handle;
        assert_eq!(rt.function_param_count(d), Ok(4));
        assert_eq!(rt.function_param_info(d, 0, true), Ok((0, 8)));
        assert_eq!(rt.function_param_info(d, 2, true), Ok((11, 8)));
        assert_eq!(rt.function_param_info(d, 3, true), Ok((19, 2)));
        assert_eq!(
            rt.function_param_info(d, 0, false).unwrap_err().code(),
            ACL_ERROR_INVALID_PARAM
        );
        let e = rt.function_param_info(d, 4, true).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            e.message(),
            "aclrtFunctionGetParamInfo: paramIndex 4 is not in [0, 4)"
        );
        let null = rt.function_param_count(FuncHandle::NULL).unwrap_err();
        assert_eq!(null.code(), ACL_ERROR_INVALID_PARAM);
        rt.kernels.functions.remove(d.as_raw());
        drop(declared);
        rt.binary_unload(bin).unwrap();
        assert_eq!(
            rt.function_get_binary(f).unwrap_err().code(),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(
            code(rt.function_attribute(f, 1)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
    }

    #[test]
    fn host_args_are_checked_before_anything_is_queued() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let bytes = [0u8; 24];
        let launch = |size: usize, ph: &[PlaceHolder], count: usize| {
            let array = if ph.is_empty() {
                std::ptr::null()
            } else {
                ph.as_ptr()
            };
            // SAFETY: `bytes` holds 24 bytes, `ph` its entries.
            unsafe {
                rt.launch_kernel_with_host_args(
                    f,
                    1,
                    StreamHandle::NULL,
                    bytes.as_ptr(),
                    size,
                    array,
                    count,
                )
            }
            .unwrap_err()
        };
        assert_eq!(launch(0, &[], 0).code(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(launch(24, &[], 1).code(), ACL_ERROR_RT_PARAM_INVALID);
        let slot_overruns = [PlaceHolder {
            addr_offset: 17,
            data_offset: 0,
        }];
        let e = launch(24, &slot_overruns, 1);
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert!(e.message().contains("addrOffset 17"), "{}", e.message());
        let data_outside = [PlaceHolder {
            addr_offset: 16,
            data_offset: 24,
        }];
        let e = launch(24, &data_outside, 1);
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert!(e.message().contains("dataOffset 24"), "{}", e.message());
        // SAFETY: a NULL hostArgs is refused before it is read.
        let null = unsafe {
            rt.launch_kernel_with_host_args(
                f,
                1,
                StreamHandle::NULL,
                std::ptr::null(),
                8,
                std::ptr::null(),
                0,
            )
        };
        assert_eq!(null.unwrap_err().code(), ACL_ERROR_INVALID_PARAM);
        // No parameter information: the args array is refused before it is read.
        // SAFETY: as above.
        let array =
            unsafe { rt.launch_kernel_with_args_array(f, 1, StreamHandle::NULL, std::ptr::null()) };
        assert_eq!(array.unwrap_err().code(), ACL_ERROR_RT_PARAM_INVALID);
        // SAFETY: as above.
        let zero =
            unsafe { rt.launch_kernel_with_args_array(f, 0, StreamHandle::NULL, std::ptr::null()) };
        assert_eq!(zero.unwrap_err().code(), ACL_ERROR_INVALID_PARAM);
        rt.binary_unload(bin).unwrap();
    }

    #[test]
    fn globals_and_code_sizes_come_from_the_symbol_table() {
        let rt = Runtime::new(&crate::Config::default());
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        let f = rt.binary_get_function(bin, "getpid").unwrap();
        let (code, vector) = rt.function_size(f).unwrap();
        assert!(
            code > 0,
            "getpid has a size in the C library's symbol table"
        );
        assert_eq!(vector, 0);
        let code_of = |r: Result<(usize, usize)>| r.unwrap_err().code();
        assert_eq!(
            code_of(rt.binary_get_global(BinHandle::NULL, None, false)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            code_of(rt.binary_get_global(bin, None, true)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            code_of(rt.binary_get_global(bin, Some("stdout"), false)),
            ACL_ERROR_INVALID_PARAM
        );
        // No current context yet.
        assert_eq!(
            code_of(rt.binary_get_global(bin, Some("stdout"), true)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        rt.set_device(0).unwrap();
        let (address, size) = rt.binary_get_global(bin, Some("stdout"), true).unwrap();
        assert_eq!(size, std::mem::size_of::<usize>());
        let function = rt.function(f, "test").unwrap();
        assert_eq!(
            function.library.symbol("stdout"),
            Some(address as *mut c_void)
        );
        assert_eq!(
            code_of(rt.binary_get_global(bin, Some("getpid"), true)),
            ACL_ERROR_RT_SYMBOL_NOT_FOUND
        );
        drop(function);
        rt.binary_unload(bin).unwrap();
        assert_eq!(code_of(rt.function_size(f)), ACL_ERROR_RT_INVALID_HANDLE);
        rt.reset_device(0).unwrap();
    }
}
