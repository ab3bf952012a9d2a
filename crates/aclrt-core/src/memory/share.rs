//! Memory shared between processes: what an exporting process writes into the first page of a
//! memory file, how a shareable handle or an IPC key names that file, and how an importing
//! process opens it.
//!
//! # Protocol
//!
//! Exported memory is a memory file (`memfd`) of the exporting process: a physical allocation's
//! own file (`aclrtMemExportToShareableHandle`), or the file an `aclrtMalloc` allocation's pages
//! were moved into (`aclrtIpcMemGetExportKey`, [`super::MemoryMap::share_allocation`]). Its
//! first page holds a [`Header`]; the bytes follow at [`super::vmm::data_offset`].
//!
//! A shareable handle packs the exporter's pid (22 bits, the kernel's largest pid), the file's
//! descriptor number there (20 bits) and the low 22 bits of the export's serial; an IPC key
//! spells pid, descriptor and full serial as text. The importer opens
//! `/proc/<pid>/fd/<fd>` (allowed between processes of one user), then checks the header: the
//! magic, the kind, the pid and the serial must match, and the export must not be closed, so a
//! reused descriptor number or pid is never taken for the export. The whitelist is checked
//! against the importer's pid unless the export disabled it.
//!
//! # Invariants
//!
//! 1. The exporter writes the header before the handle or key exists, and later changes only
//!    the whitelist (pids first, then their count) and the closed flag (set once); a reader that
//!    sees a count sees the pids it covers.
//! 2. Once the exporter closes the export (or frees the memory, or ends), an import fails: the
//!    header says closed, or the descriptor is gone. Mappings already made in importers keep
//!    the memory alive (the file lives while mapped) and stay usable.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::codes::*;
use crate::error::{bail, Result};

const MAGIC: u64 = u64::from_le_bytes(*b"ACLRTSHM");

/// What an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A physical allocation (`aclrtMemExportToShareableHandle`).
    Physical = 1,
    /// An `aclrtMalloc` allocation (`aclrtIpcMemGetExportKey`).
    Ipc = 2,
}

// Header layout (native byte order), offsets in bytes.
const AT_MAGIC: usize = 0;
const AT_KIND: usize = 8;
const AT_FLAGS: usize = 12;
const AT_PID: usize = 16;
const AT_CLOSED: usize = 20;
const AT_SERIAL: usize = 24;
const AT_LEN: usize = 32;
const AT_OFFSET: usize = 40;
const AT_SIZE: usize = 48;
const AT_DEVICE: usize = 56;
const AT_ATTR: usize = 60;
const AT_COUNT: usize = 64;
const AT_PIDS: usize = 72;
const HEADER_LEN: usize = 4096;

/// The most pids one export's whitelist holds.
pub(crate) const MAX_PIDS: usize = (HEADER_LEN - AT_PIDS) / 4;

/// `flags` bit: no whitelist check.
pub(crate) const NO_PID_CHECK: u32 = 1;

/// What an export's first page says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) kind: Kind,
    pub(crate) flags: u32,
    pub(crate) pid: u32,
    pub(crate) closed: bool,
    pub(crate) serial: u64,
    /// Bytes of the file after the header that an importer maps.
    pub(crate) len: usize,
    /// Where the exported memory starts in them.
    pub(crate) offset: usize,
    /// Bytes of exported memory.
    pub(crate) size: usize,
    /// The exporter's device (-1: the host).
    pub(crate) device: i32,
    /// `aclrtMemAttr` of a physical allocation.
    pub(crate) mem_attr: u32,
    pub(crate) pids: Vec<i32>,
}

/// A fresh serial for an export of this process (never 0).
pub(crate) fn next_serial() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn put(page: &mut [u8], at: usize, bytes: &[u8]) {
    page[at..at + bytes.len()].copy_from_slice(bytes);
}

fn u32_at(page: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(page[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(page: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(page[at..at + 8].try_into().expect("8 bytes"))
}

/// The most bytes one `pwrite` is asked for (the kernel moves at most about 2 GiB per call).
const WRITE_CHUNK: usize = 1 << 30;

/// Writes `len` bytes from `src` into `file` at `at`, `chunk` bytes at most per call, going on
/// after short writes and interruptions.
///
/// # Safety
/// `src` must be readable for `len` bytes.
unsafe fn write_chunked(
    file: &OwnedFd,
    src: *const u8,
    len: usize,
    at: usize,
    chunk: usize,
) -> std::io::Result<()> {
    let mut done = 0;
    while done < len {
        let ask = (len - done).min(chunk);
        let offset = libc::off_t::try_from(at + done)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // SAFETY: `src + done` is readable for `ask` bytes (the caller's contract); the file
        // is ours.
        let n = unsafe { libc::pwrite(file.as_raw_fd(), src.add(done).cast(), ask, offset) };
        match n {
            n if n > 0 => done += n as usize,
            0 => return Err(std::io::ErrorKind::WriteZero.into()),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// Writes `len` bytes from `src` into `file` at `at`, whatever their size.
///
/// # Safety
/// `src` must be readable for `len` bytes.
pub(crate) unsafe fn write_all_at(
    file: &OwnedFd,
    src: *const u8,
    len: usize,
    at: usize,
) -> std::io::Result<()> {
    // SAFETY: forwarded under this function's contract.
    unsafe { write_chunked(file, src, len, at, WRITE_CHUNK) }
}

fn pwrite_all(file: &OwnedFd, bytes: &[u8], at: usize) -> Result<()> {
    // SAFETY: `bytes` is readable for its length.
    if let Err(e) = unsafe { write_all_at(file, bytes.as_ptr(), bytes.len(), at) } {
        bail!(
            ACL_ERROR_RT_INTERNAL_ERROR,
            "could not write an export's description: {e}"
        );
    }
    Ok(())
}

/// Writes a new export's header (invariant 1: before anyone can name it).
pub(crate) fn write_header(file: &OwnedFd, h: &Header) -> Result<()> {
    let mut page = vec![0u8; AT_PIDS];
    put(&mut page, AT_MAGIC, &MAGIC.to_ne_bytes());
    put(&mut page, AT_KIND, &(h.kind as u32).to_ne_bytes());
    put(&mut page, AT_FLAGS, &h.flags.to_ne_bytes());
    put(&mut page, AT_PID, &h.pid.to_ne_bytes());
    put(&mut page, AT_CLOSED, &u32::from(h.closed).to_ne_bytes());
    put(&mut page, AT_SERIAL, &h.serial.to_ne_bytes());
    put(&mut page, AT_LEN, &(h.len as u64).to_ne_bytes());
    put(&mut page, AT_OFFSET, &(h.offset as u64).to_ne_bytes());
    put(&mut page, AT_SIZE, &(h.size as u64).to_ne_bytes());
    put(&mut page, AT_DEVICE, &h.device.to_ne_bytes());
    put(&mut page, AT_ATTR, &h.mem_attr.to_ne_bytes());
    put(&mut page, AT_COUNT, &0u32.to_ne_bytes());
    pwrite_all(file, &page, 0)
}

/// Adds `pids` to an export's whitelist, which already holds `have` of them: the pids first,
/// then the new count (invariant 1).
pub(crate) fn add_pids(file: &OwnedFd, have: usize, pids: &[i32]) -> Result<()> {
    let bytes: Vec<u8> = pids.iter().flat_map(|p| p.to_ne_bytes()).collect();
    pwrite_all(file, &bytes, AT_PIDS + 4 * have)?;
    pwrite_all(file, &((have + pids.len()) as u32).to_ne_bytes(), AT_COUNT)
}

/// Marks an export closed: no import succeeds any more (invariant 2).
pub(crate) fn close(file: &OwnedFd) -> Result<()> {
    pwrite_all(file, &1u32.to_ne_bytes(), AT_CLOSED)
}

/// Reads an export's header.
fn read_header(file: &OwnedFd) -> Option<Header> {
    let mut page = vec![0u8; HEADER_LEN];
    // SAFETY: reads into our own buffer of HEADER_LEN bytes.
    let n = unsafe { libc::pread(file.as_raw_fd(), page.as_mut_ptr().cast(), HEADER_LEN, 0) };
    if n != HEADER_LEN as isize || u64_at(&page, AT_MAGIC) != MAGIC {
        return None;
    }
    let kind = match u32_at(&page, AT_KIND) {
        1 => Kind::Physical,
        2 => Kind::Ipc,
        _ => return None,
    };
    let count = (u32_at(&page, AT_COUNT) as usize).min(MAX_PIDS);
    Some(Header {
        kind,
        flags: u32_at(&page, AT_FLAGS),
        pid: u32_at(&page, AT_PID),
        closed: u32_at(&page, AT_CLOSED) != 0,
        serial: u64_at(&page, AT_SERIAL),
        len: u64_at(&page, AT_LEN) as usize,
        offset: u64_at(&page, AT_OFFSET) as usize,
        size: u64_at(&page, AT_SIZE) as usize,
        device: u32_at(&page, AT_DEVICE) as i32,
        mem_attr: u32_at(&page, AT_ATTR),
        pids: (0..count)
            .map(|i| u32_at(&page, AT_PIDS + 4 * i) as i32)
            .collect(),
    })
}

/// Where an export lives: the exporter's pid, the descriptor there, its serial (all of it, or
/// the low 22 bits for a shareable handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) pid: u32,
    pub(crate) fd: u32,
    pub(crate) serial: u64,
}

const PID_BITS: u32 = 22;
const FD_BITS: u32 = 20;
const SERIAL_BITS: u32 = 22;

/// The shareable handle of an export, or `None` when pid or descriptor do not fit.
pub(crate) fn handle(name: Name) -> Option<u64> {
    if name.pid >= 1 << PID_BITS || name.fd >= 1 << FD_BITS {
        return None;
    }
    Some(
        (u64::from(name.pid) << (FD_BITS + SERIAL_BITS))
            | (u64::from(name.fd) << SERIAL_BITS)
            | (name.serial & ((1 << SERIAL_BITS) - 1)),
    )
}

/// The parts of a shareable handle (serial: its low 22 bits).
pub(crate) fn from_handle(h: u64) -> Name {
    Name {
        pid: (h >> (FD_BITS + SERIAL_BITS)) as u32,
        fd: ((h >> SERIAL_BITS) & ((1 << FD_BITS) - 1)) as u32,
        serial: h & ((1 << SERIAL_BITS) - 1),
    }
}

/// The IPC key of an export (at most 64 bytes, ASCII).
pub(crate) fn key(name: Name) -> String {
    format!("aclrt-ipc-{}-{}-{}", name.pid, name.fd, name.serial)
}

/// The parts of an IPC key, or `None` for a string that is not one.
pub(crate) fn from_key(key: &str) -> Option<Name> {
    let mut parts = key.strip_prefix("aclrt-ipc-")?.split('-');
    let name = Name {
        pid: parts.next()?.parse().ok()?,
        fd: parts.next()?.parse().ok()?,
        serial: parts.next()?.parse().ok()?,
    };
    parts.next().is_none().then_some(name)
}

/// Opens the export `name` of another process for `kind`, checks its header and the
/// whitelist; `serial_mask` says how much of the serial the name carries. `what` names the
/// export in messages.
pub(crate) fn open(
    name: Name,
    kind: Kind,
    serial_mask: u64,
    what: &str,
) -> Result<(OwnedFd, Header)> {
    let me = std::process::id();
    if name.pid == me {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{what} was exported by this process; it can be imported only by another one"
        );
    }
    let gone = || -> Result<(OwnedFd, Header)> {
        if name.pid == 0 || !std::path::Path::new(&format!("/proc/{}", name.pid)).exists() {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{what}: the process {} that exported it has ended",
                name.pid
            );
        }
        bail!(
            ACL_ERROR_RT_INVALID_HANDLE,
            "{what} is not exported (any more) by process {}: closed, freed, or never exported",
            name.pid
        )
    };
    let path = CString::new(format!("/proc/{}/fd/{}", name.pid, name.fd)).expect("no NUL");
    // SAFETY: opens a path we own as a C string; returns a new descriptor or -1.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EACCES) || err.raw_os_error() == Some(libc::EPERM) {
            bail!(
                ACL_ERROR_RT_NO_PERMISSION,
                "{what}: the host does not let this process open process {}'s memory: {err}",
                name.pid
            );
        }
        return gone();
    }
    // SAFETY: `fd` was just returned to us.
    let file = unsafe { OwnedFd::from_raw_fd(fd) };
    let Some(h) = read_header(&file) else {
        return gone();
    };
    if h.kind != kind || h.pid != name.pid || h.serial & serial_mask != name.serial || h.closed {
        return gone();
    }
    if h.flags & NO_PID_CHECK == 0 && !h.pids.contains(&(me as i32)) {
        bail!(
            ACL_ERROR_RT_NO_PERMISSION,
            "{what}: this process ({me}) is not on the export's whitelist (the exporter adds it \
             with {}, or exports without pid validation)",
            match kind {
                Kind::Physical => "aclrtMemSetPidToShareableHandle",
                Kind::Ipc => "aclrtIpcMemSetImportPid",
            }
        );
    }
    Ok((file, h))
}

/// The mask of the serial a shareable handle carries.
pub(crate) const HANDLE_SERIAL_MASK: u64 = (1 << SERIAL_BITS) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let n = Name {
            pid: (1 << 22) - 1,
            fd: 1023,
            serial: 5,
        };
        assert_eq!(from_handle(handle(n).unwrap()), n);
        assert_eq!(handle(Name { pid: 1 << 22, ..n }), None);
        let k = key(Name {
            serial: u64::MAX,
            ..n
        });
        assert!(k.len() < 65, "{k}");
        assert_eq!(
            from_key(&k),
            Some(Name {
                serial: u64::MAX,
                ..n
            })
        );
        assert_eq!(from_key("aclrt-ipc-1-2"), None);
        assert_eq!(from_key("aclrt-ipc-1-2-3-4"), None);
        assert_eq!(from_key("name"), None);
    }

    #[test]
    fn writes_go_on_in_chunks_until_every_byte_is_written() {
        let file = super::super::vmm::memory_file("aclrtMallocPhysical", 4096).unwrap();
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        // Chunks smaller than the data, and a size that is no multiple of them.
        // SAFETY: `bytes` is readable for its length.
        unsafe { write_chunked(&file, bytes.as_ptr(), bytes.len(), 100, 4096) }.unwrap();
        let mut back = vec![0u8; bytes.len()];
        // SAFETY: reads into our own buffer of its length.
        let n = unsafe { libc::pread(file.as_raw_fd(), back.as_mut_ptr().cast(), back.len(), 100) };
        assert_eq!(n, bytes.len() as isize);
        assert_eq!(back, bytes);
    }

    #[test]
    fn headers_round_trip_and_grow_their_whitelist() {
        let file = super::super::vmm::memory_file("aclrtMallocPhysical", 4096).unwrap();
        let h = Header {
            kind: Kind::Ipc,
            flags: 0,
            pid: 42,
            closed: false,
            serial: 7,
            len: 8192,
            offset: 64,
            size: 100,
            device: 1,
            mem_attr: 0,
            pids: vec![],
        };
        write_header(&file, &h).unwrap();
        assert_eq!(read_header(&file).unwrap(), h);
        add_pids(&file, 0, &[5, 6]).unwrap();
        add_pids(&file, 2, &[9]).unwrap();
        assert_eq!(read_header(&file).unwrap().pids, vec![5, 6, 9]);
        close(&file).unwrap();
        assert!(read_header(&file).unwrap().closed);
    }
}
