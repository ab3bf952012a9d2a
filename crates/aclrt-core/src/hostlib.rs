//! Host shared libraries standing in for device binaries, shared by the faces that load
//! kernels from them (the CUDA modules and the ACL kernel API).
//!
//! A library is opened with `RTLD_NOW | RTLD_LOCAL`, so its symbols stay private to it, and is
//! closed when the last [`HostLibrary`] owning it drops: whoever queues work running its code
//! keeps an `Arc` of it until that work ran.

use std::ffi::{c_void, CStr, CString};

/// The dynamic loader's last error on this thread, as text.
pub fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a C string valid until the next dl call on this thread.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown dynamic loader error".into()
    } else {
        // SAFETY: non-NULL, NUL-terminated (above).
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// Bytes of a file's start [`is_host_shared_object`] looks at.
pub const ELF_HEADER_BYTES: usize = 20;

/// Whether `bytes` starts an ELF shared object for this host (not a GPU cubin, which is ELF
/// too, nor an executable).
pub fn is_host_shared_object(bytes: &[u8]) -> bool {
    const ET_DYN: u16 = 3;
    if bytes.len() < ELF_HEADER_BYTES || !bytes.starts_with(b"\x7fELF") {
        return false;
    }
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    let e_machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    let host_machine: u16 = if cfg!(target_arch = "x86_64") {
        62
    } else if cfg!(target_arch = "aarch64") {
        183
    } else {
        0
    };
    e_type == ET_DYN && e_machine == host_machine
}

/// Why [`read_file_head`] read nothing.
#[derive(Debug)]
pub enum HeadError {
    /// Opening, inspecting or reading the file failed.
    Io(std::io::Error),
    /// The path is not a regular file (a directory, device, FIFO or socket).
    NotRegular,
}

/// The first `len` bytes of the regular file at `path` (all of it if shorter): what a loader
/// looks at to tell what a file holds before handing the path to the dynamic loader, which maps
/// the file itself. Only a regular file is read, and only its head: a device such as
/// `/dev/zero` would never end and a FIFO never start. Nothing but a regular file is opened
/// either (opening a device can act on it: a tape rewinds, a FIFO's blocked writer goes on): the
/// path is looked at first; the open file is looked at again, as the path may have been
/// replaced in between. Opening does not block (a FIFO put in place in between would wait in
/// `open`); reads of a regular file ignore the flag.
pub fn read_file_head(path: &std::path::Path, len: usize) -> Result<Vec<u8>, HeadError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::metadata(path).map_err(HeadError::Io)?.is_file() {
        return Err(HeadError::NotRegular);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(HeadError::Io)?;
    if !file.metadata().map_err(HeadError::Io)?.is_file() {
        return Err(HeadError::NotRegular);
    }
    let mut head = Vec::with_capacity(len);
    file.take(len as u64)
        .read_to_end(&mut head)
        .map_err(HeadError::Io)?;
    Ok(head)
}

/// An open host shared library; closed on drop.
#[derive(Debug)]
pub struct HostLibrary {
    handle: *mut c_void,
}

// SAFETY: a dlopen handle may be used and closed from any thread.
unsafe impl Send for HostLibrary {}
// SAFETY: dlsym on a live handle is thread-safe.
unsafe impl Sync for HostLibrary {}

/// Why a library could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The loader refused it (the loader's message).
    Loader(String),
    /// The anonymous file for an in-memory image could not be made or written.
    System(String),
}

impl HostLibrary {
    /// Opens the library at `path`; its initialisers run.
    pub fn open(path: &CStr) -> Result<Self, OpenError> {
        // SAFETY: a NUL-terminated path; the library's initialisers run, as loading a device
        // binary would set it up.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            Err(OpenError::Loader(dl_error()))
        } else {
            Ok(Self { handle })
        }
    }

    /// Opens an in-memory library image by writing it to an anonymous file (`memfd`) and
    /// opening that.
    pub fn open_image(bytes: &[u8], name: &CStr) -> Result<Self, OpenError> {
        use std::io::Write;
        use std::os::fd::FromRawFd;
        // SAFETY: memfd_create with a valid name.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(OpenError::System(format!(
                "memfd_create failed: {}",
                std::io::Error::last_os_error()
            )));
        }
        // SAFETY: a fresh descriptor we own; the File closes it (the loader keeps its own
        // mapping).
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        if let Err(e) = file.write_all(bytes) {
            return Err(OpenError::System(format!("cannot write the image: {e}")));
        }
        let path = CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL");
        let opened = Self::open(&path);
        drop(file);
        opened
    }

    /// The address of the exported symbol `name`, if the library has it.
    pub fn symbol(&self, name: &str) -> Option<*mut c_void> {
        let c = CString::new(name).ok()?;
        // SAFETY: a live dlopen handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        (!p.is_null()).then_some(p)
    }

    /// The size of the exported data object (an ELF `STT_OBJECT` of non-zero size) of this
    /// library that starts at `address`, if there is one.
    pub fn object_at(&self, address: usize) -> Option<usize> {
        const RTLD_DL_SYMENT: libc::c_int = 1;
        const RTLD_DL_LINKMAP: libc::c_int = 2;
        const STT_OBJECT: u8 = 1;
        // SAFETY: dlinfo writes the library's link map pointer for a live handle; dladdr1
        // fills the zeroed info and writes the link map (or symbol table entry) of the object
        // containing `address`, or fails; the entry is read only when one was given.
        unsafe {
            let mut own: *mut c_void = std::ptr::null_mut();
            if libc::dlinfo(
                self.handle,
                libc::RTLD_DI_LINKMAP,
                (&mut own as *mut *mut c_void).cast(),
            ) != 0
            {
                return None;
            }
            let mut info: libc::Dl_info = std::mem::zeroed();
            let mut map: *mut c_void = std::ptr::null_mut();
            if libc::dladdr1(
                address as *const c_void,
                &mut info,
                &mut map,
                RTLD_DL_LINKMAP,
            ) == 0
                || map.is_null()
                || map != own
            {
                return None;
            }
            let mut sym: *mut c_void = std::ptr::null_mut();
            if libc::dladdr1(
                address as *const c_void,
                &mut info,
                &mut sym,
                RTLD_DL_SYMENT,
            ) == 0
                || sym.is_null()
                || info.dli_saddr as usize != address
            {
                return None;
            }
            let entry = &*(sym as *const libc::Elf64_Sym);
            let size = entry.st_size as usize;
            (entry.st_info & 0xf == STT_OBJECT && size > 0).then_some(size)
        }
    }

    /// Gives up ownership: the caller closes the returned handle with `dlclose`.
    pub fn into_raw(self) -> *mut c_void {
        let handle = self.handle;
        std::mem::forget(self);
        handle
    }
}

/// The size of the ELF symbol at `address` of a loaded library (0 when the loader does not
/// know it, or no symbol starts there).
pub fn symbol_size(address: usize) -> usize {
    const RTLD_DL_SYMENT: libc::c_int = 1;
    // SAFETY: dladdr1 fills the zeroed info and, with RTLD_DL_SYMENT, points `sym` at the
    // symbol table entry of the library it found (or leaves it NULL).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let mut sym: *mut c_void = std::ptr::null_mut();
        if libc::dladdr1(
            address as *const c_void,
            &mut info,
            &mut sym,
            RTLD_DL_SYMENT,
        ) == 0
            || sym.is_null()
            || info.dli_saddr as usize != address
        {
            return 0;
        }
        (*(sym as *const libc::Elf64_Sym)).st_size as usize
    }
}

/// Whether the `len` bytes at `address`, inside a loaded library, lie in one of its segments
/// the program may write: a `PT_LOAD` segment with `PF_W`, outside the `PT_GNU_RELRO` range the
/// loader makes read-only after relocating (constants and `.data.rel.ro`). False when no loaded
/// segment holds them.
pub fn is_writable(address: usize, len: usize) -> bool {
    struct Query {
        start: usize,
        end: usize,
        writable: Option<bool>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: `data` is the `Query` handed to dl_iterate_phdr below, used by this thread
        // only; `info` and its program headers are the loader's, valid during the call.
        unsafe {
            let query = &mut *(data as *mut Query);
            let info = &*info;
            let headers = std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize);
            let range = |h: &libc::Elf64_Phdr| {
                let start = (info.dlpi_addr as usize).wrapping_add(h.p_vaddr as usize);
                (start, start.wrapping_add(h.p_memsz as usize))
            };
            let Some(load) = headers.iter().find(|h| {
                let (start, end) = range(h);
                h.p_type == libc::PT_LOAD && start <= query.start && query.start < end
            }) else {
                return 0;
            };
            let (_, load_end) = range(load);
            let relro = headers.iter().any(|h| {
                let (start, end) = range(h);
                h.p_type == libc::PT_GNU_RELRO && start < query.end && query.start < end
            });
            query.writable =
                Some(load.p_flags & libc::PF_W != 0 && query.end <= load_end && !relro);
            1
        }
    }
    let mut query = Query {
        start: address,
        end: address.saturating_add(len),
        writable: None,
    };
    // SAFETY: `visit` only reads the loader's headers and writes `query`, which outlives the
    // call.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&mut query as *mut Query).cast()) };
    query.writable == Some(true)
}

impl Drop for HostLibrary {
    fn drop(&mut self) {
        // SAFETY: a handle dlopen returned, closed once (here).
        unsafe { libc::dlclose(self.handle) };
    }
}
