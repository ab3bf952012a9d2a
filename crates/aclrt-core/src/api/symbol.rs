//! Device variables (`aclrtGetSymbolAddress`, `aclrtGetSymbolSize`, `aclrtMemcpyToSymbol*`,
//! `aclrtMemcpyFromSymbol*`) of kernel binaries.
//!
//! A binary is a host library and its kernels run on the host, reading the library's own data
//! where it is: so a device variable is an exported data object of a loaded binary (an ELF
//! `STT_OBJECT` of non-zero size), its device address is its address, and its size is the ELF
//! symbol's. The `symbol` the calls take is that address (what `&variable` gives a program
//! linked against the library, or `dlsym`); any other address, one inside an object, or an
//! object of a binary already unloaded, is `107043` (`ACL_ERROR_RT_INVALID_SYMBOL`). Copies go
//! through the runtime's copy paths with the variable as the device side.

use crate::codes::*;
use crate::consts::{ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE};
use crate::error::{bail, Result};
use crate::handle::StreamHandle;
use crate::hostlib::HostLibrary;
use crate::runtime::Runtime;
use std::sync::Arc;

/// A device variable found: its address, its size, and its library, held open while a copy
/// uses it (an unload meanwhile closes the library only when the copy let it go).
struct Variable {
    address: usize,
    size: usize,
    library: Arc<HostLibrary>,
}

/// Which way a symbol copy goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    ToSymbol,
    FromSymbol,
}

impl Runtime {
    /// The device variable at `symbol`. Needs a current context, as the vendor's lookup does
    /// (the address is the current device's).
    fn symbol_lookup(&self, symbol: usize, call: &str) -> Result<Variable> {
        if symbol == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: symbol is NULL");
        }
        self.current_context()?;
        // The library's symbol table is read with no lock held (the table hands out copies).
        for (_, binary) in self.kernels.binaries.values() {
            if let Some(size) = binary.library.object_at(symbol) {
                return Ok(Variable {
                    address: symbol,
                    size,
                    library: Arc::clone(&binary.library),
                });
            }
        }
        bail!(
            ACL_ERROR_RT_INVALID_SYMBOL,
            "{call}: symbol {symbol:#x} is not the address of an exported data object of a \
             loaded binary"
        )
    }

    /// `aclrtGetSymbolAddress`: the variable's device address (its address).
    pub fn get_symbol_address(&self, symbol: usize) -> Result<usize> {
        Ok(self.symbol_lookup(symbol, "aclrtGetSymbolAddress")?.address)
    }

    /// `aclrtGetSymbolSize`: the variable's size in bytes.
    pub fn get_symbol_size(&self, symbol: usize) -> Result<usize> {
        Ok(self.symbol_lookup(symbol, "aclrtGetSymbolSize")?.size)
    }

    /// The checks of a symbol copy, in the vendor's order, and the variable's address plus
    /// `offset` with the bytes from there to its end, and the library holding it. A copy to a
    /// variable the library cannot write (a constant, or one the loader made read-only after
    /// relocating it) is `107043`. `host` is the other side, `host_max` its
    /// room (a copy to a symbol has none to check).
    #[allow(clippy::too_many_arguments)]
    fn symbol_copy(
        &self,
        way: Way,
        symbol: usize,
        host: usize,
        host_max: usize,
        count: usize,
        offset: usize,
        kind: u32,
        call: &str,
    ) -> Result<(usize, usize, Arc<HostLibrary>)> {
        if symbol == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: symbol is NULL");
        }
        let (side, wanted, wanted_name) = match way {
            Way::FromSymbol => (
                "dst",
                ACL_MEMCPY_DEVICE_TO_HOST,
                "ACL_MEMCPY_DEVICE_TO_HOST",
            ),
            Way::ToSymbol => (
                "src",
                ACL_MEMCPY_HOST_TO_DEVICE,
                "ACL_MEMCPY_HOST_TO_DEVICE",
            ),
        };
        if host == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: {side} is NULL");
        }
        if way == Way::FromSymbol && count > host_max {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: count {count} is greater than dstMax {host_max}"
            );
        }
        if kind != wanted && kind != ACL_MEMCPY_DEFAULT {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: kind {kind} is not {wanted_name} or ACL_MEMCPY_DEFAULT"
            );
        }
        let Variable {
            address,
            size,
            library,
        } = self.symbol_lookup(symbol, call)?;
        if way == Way::ToSymbol && !crate::hostlib::is_writable(address, size) {
            bail!(
                ACL_ERROR_RT_INVALID_SYMBOL,
                "{call}: symbol {symbol:#x} is a read-only data object of its binary (a constant \
                 or relocated read-only data): it cannot be written"
            );
        }
        match offset.checked_add(count) {
            Some(end) if end <= size => Ok((address + offset, size - offset, library)),
            _ => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: offset {offset} + count {count} is more than the symbol's {size} bytes"
            ),
        }
    }

    /// `aclrtMemcpyFromSymbol`: copies `count` bytes of the variable from `offset` to `dst`
    /// (`ACL_MEMCPY_DEVICE_TO_HOST` or `ACL_MEMCPY_DEFAULT`); a count of 0 succeeds before
    /// anything is checked, as in the vendor's runtime.
    ///
    /// # Safety
    /// `dst` is writable for `count` bytes.
    pub unsafe fn memcpy_from_symbol(
        &self,
        dst: usize,
        dst_max: usize,
        symbol: usize,
        count: usize,
        offset: usize,
        kind: u32,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyFromSymbol";
        if count == 0 {
            return Ok(());
        }
        let (src, _, library) = self.symbol_copy(
            Way::FromSymbol,
            symbol,
            dst,
            dst_max,
            count,
            offset,
            kind,
            CALL,
        )?;
        // SAFETY: the variable holds `count` bytes from `src` (checked), its library held open
        // until the copy is done; `dst` is the caller's.
        let copied =
            unsafe { self.memcpy_named(dst, dst_max, src, count, ACL_MEMCPY_DEVICE_TO_HOST, CALL) };
        drop(library);
        copied
    }

    /// `aclrtMemcpyToSymbol`: copies `count` bytes from `src` into the variable at `offset`
    /// (`ACL_MEMCPY_HOST_TO_DEVICE` or `ACL_MEMCPY_DEFAULT`); a count of 0 succeeds at once.
    ///
    /// # Safety
    /// `src` is readable for `count` bytes.
    pub unsafe fn memcpy_to_symbol(
        &self,
        symbol: usize,
        src: usize,
        count: usize,
        offset: usize,
        kind: u32,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyToSymbol";
        if count == 0 {
            return Ok(());
        }
        let (dst, room, library) =
            self.symbol_copy(Way::ToSymbol, symbol, src, 0, count, offset, kind, CALL)?;
        // SAFETY: the variable holds `room` >= `count` writable bytes from `dst` (checked), its
        // library held open until the copy is done.
        let copied =
            unsafe { self.memcpy_named(dst, room, src, count, ACL_MEMCPY_HOST_TO_DEVICE, CALL) };
        drop(library);
        copied
    }

    /// `aclrtMemcpyFromSymbolAsync`: [`Runtime::memcpy_from_symbol`] as a copy task on the
    /// stream; with host memory the runtime neither allocated nor registered (not page-locked)
    /// the call returns once the copy has run, as the vendor documents (it synchronises the
    /// stream).
    ///
    /// # Safety
    /// `dst` is writable for `count` bytes until the copy has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn memcpy_from_symbol_async(
        &self,
        dst: usize,
        dst_max: usize,
        symbol: usize,
        count: usize,
        offset: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyFromSymbolAsync";
        if count == 0 {
            return Ok(());
        }
        let (src, _, library) = self.symbol_copy(
            Way::FromSymbol,
            symbol,
            dst,
            dst_max,
            count,
            offset,
            kind,
            CALL,
        )?;
        // SAFETY: the variable holds `count` bytes from `src`; the task holds its library open
        // until it ran, so an unload meanwhile leaves it mapped; `dst` is the caller's.
        unsafe {
            self.queue_copy(
                dst,
                dst_max,
                src,
                count,
                ACL_MEMCPY_DEVICE_TO_HOST,
                stream,
                CALL,
                Some(library),
            )?
        };
        self.finish_if_pageable(dst, stream)
    }

    /// `aclrtMemcpyToSymbolAsync`: [`Runtime::memcpy_to_symbol`] as a copy task on the stream,
    /// returning once it has run when `src` is not page-locked.
    ///
    /// # Safety
    /// `src` is readable for `count` bytes until the copy has run.
    pub unsafe fn memcpy_to_symbol_async(
        &self,
        symbol: usize,
        src: usize,
        count: usize,
        offset: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyToSymbolAsync";
        if count == 0 {
            return Ok(());
        }
        let (dst, room, library) =
            self.symbol_copy(Way::ToSymbol, symbol, src, 0, count, offset, kind, CALL)?;
        // SAFETY: as for `memcpy_from_symbol_async`, the other way.
        unsafe {
            self.queue_copy(
                dst,
                room,
                src,
                count,
                ACL_MEMCPY_HOST_TO_DEVICE,
                stream,
                CALL,
                Some(library),
            )?
        };
        self.finish_if_pageable(src, stream)
    }

    /// Waits for the stream when the host side of a copy is not page-locked.
    fn finish_if_pageable(&self, host: usize, stream: StreamHandle) -> Result<()> {
        if self.is_pageable(host, "copy host side")? {
            self.synchronize_stream(stream)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn libc_path() -> std::path::PathBuf {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let line = maps
            .lines()
            .find(|l| l.contains("/libc.so") || l.contains("/libc-"))
            .expect("libc is mapped");
        line[line.find('/').unwrap()..].trim().into()
    }

    extern "C" {
        /// An exported data object of the C library (`FILE *stdout`).
        static stdout: *mut libc::FILE;
    }

    #[test]
    fn a_symbol_is_an_exported_object_of_a_loaded_binary() {
        let rt = Runtime::new(&crate::Config::default());
        // Only the address is taken (no read of the static).
        let object = std::ptr::addr_of!(stdout) as usize;
        let code = |r: Result<usize>| r.unwrap_err().code();
        assert_eq!(code(rt.get_symbol_size(0)), ACL_ERROR_INVALID_PARAM);
        // No current context yet.
        assert_eq!(code(rt.get_symbol_size(object)), ACL_ERROR_RT_CONTEXT_NULL);
        rt.set_device(0).unwrap();
        assert_eq!(
            code(rt.get_symbol_size(object)),
            ACL_ERROR_RT_INVALID_SYMBOL
        );
        let bin = rt.binary_load_from_file(&libc_path()).unwrap();
        assert_eq!(rt.get_symbol_address(object), Ok(object));
        assert_eq!(rt.get_symbol_size(object), Ok(std::mem::size_of::<usize>()));
        // Inside the object, and a function (not a data object).
        assert_eq!(
            code(rt.get_symbol_size(object + 1)),
            ACL_ERROR_RT_INVALID_SYMBOL
        );
        let function = libc::getpid as *const () as usize;
        assert_eq!(
            code(rt.get_symbol_size(function)),
            ACL_ERROR_RT_INVALID_SYMBOL
        );
        let mut word = [0u8; 8];
        // SAFETY: `word` holds 8 bytes.
        unsafe {
            rt.memcpy_from_symbol(word.as_mut_ptr() as usize, 8, object, 8, 0, 4)
                .unwrap()
        };
        // SAFETY: as above.
        assert_eq!(usize::from_ne_bytes(word), unsafe { stdout } as usize);
        // SAFETY: nothing is copied: the offset check fails first.
        let past = unsafe { rt.memcpy_from_symbol(word.as_mut_ptr() as usize, 8, object, 1, 8, 4) };
        assert_eq!(past.unwrap_err().code(), ACL_ERROR_INVALID_PARAM);
        rt.binary_unload(bin).unwrap();
        assert_eq!(
            code(rt.get_symbol_size(object)),
            ACL_ERROR_RT_INVALID_SYMBOL
        );
        rt.reset_device(0).unwrap();
    }
}
