//! IPC memory (`aclrtIpcMemGetExportKey`, `aclrtIpcMemSetImportPid`, `aclrtIpcMemImportByKey`,
//! `aclrtIpcMemClose`): an `aclrtMalloc` allocation shared with other processes by a key. The
//! exporter's allocation moves into a memory file ([`crate::memory::MemoryMap::share_allocation`]);
//! an importer maps that file into a range of its own address space. The protocol is
//! `memory::share`'s.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;

use super::not_in_callback;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::memory::ipc::{Export, Import, IpcState, Quarantined, Retired, RETIRED_LIMIT};
use crate::memory::share;
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::sync::lock;

/// The length of the key buffer the vendor documents (64 characters and a NUL).
pub const IPC_KEY_LEN: usize = 65;

impl Runtime {
    /// `aclrtIpcMemGetExportKey`: exports the `aclrtMalloc` allocation that starts at `ptr`
    /// (`size` bytes of it) and returns its key. `flags` 1 lets any process import it.
    pub fn ipc_mem_get_export_key(
        &self,
        ptr: usize,
        size: usize,
        len: usize,
        flags: u64,
    ) -> Result<String> {
        const CALL: &str = "aclrtIpcMemGetExportKey";
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: devPtr is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: size is 0");
        }
        if len < IPC_KEY_LEN {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: len is {len}; the key needs {IPC_KEY_LEN} bytes"
            );
        }
        if flags > 1 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: flags is {flags:#x}; expected 0 or \
                 ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION"
            );
        }
        not_in_callback(CALL)?;
        let device = match self.memory.allocation_at(ptr) {
            Some((base, a)) if base == ptr && a.pool == 0 => match a.place {
                Place::Device(id) if size <= a.size => id,
                Place::Device(_) => bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: size {size} is larger than the {}-byte allocation at {ptr:#x}",
                    a.size
                ),
                Place::Host => bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: {ptr:#x} is host memory; only device memory can be exported"
                ),
            },
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: {ptr:#x} is not the start of an aclrtMalloc allocation"
            ),
        };
        if lock(&self.ipc.state)
            .exports
            .values()
            .any(|e| e.base == ptr)
        {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: the allocation at {ptr:#x} is already exported"
            );
        }
        // No lock held: the move waits for running tasks, which may call the runtime. A
        // concurrent second export of the allocation is refused by the move itself.
        let (file, lo, hi) = self.memory.share_allocation(ptr)?;
        let name = share::Name {
            pid: std::process::id(),
            fd: file.as_raw_fd() as u32,
            serial: share::next_serial(),
        };
        share::write_header(
            &file,
            &share::Header {
                kind: share::Kind::Ipc,
                flags: if flags != 0 { share::NO_PID_CHECK } else { 0 },
                pid: name.pid,
                closed: false,
                serial: name.serial,
                len: hi - lo,
                offset: ptr - lo,
                size,
                device,
                mem_attr: 0,
                pids: Vec::new(),
            },
        )?;
        let key = share::key(name);
        let mut st = lock(&self.ipc.state);
        // Freed by another thread since the move (and maybe made again at the same place, in
        // private pages): nothing is left to export.
        if !self.memory.is_shared_as(ptr, lo, hi) {
            let _ = share::close(&file);
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: the allocation at {ptr:#x} was freed while it was being exported"
            );
        }
        st.exports.insert(
            key.clone(),
            Export {
                base: ptr,
                file,
                pids: 0,
            },
        );
        Ok(key)
    }

    /// `aclrtIpcMemSetImportPid`: adds processes to the whitelist of a key this process
    /// exported.
    pub fn ipc_mem_set_import_pid(&self, key: &str, pids: &[i32]) -> Result<()> {
        const CALL: &str = "aclrtIpcMemSetImportPid";
        if pids.is_empty() {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: num is 0");
        }
        let mut st = lock(&self.ipc.state);
        let Some(e) = st.exports.get_mut(key) else {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{CALL}: {key:?} is not a key this process exported"
            );
        };
        if e.pids + pids.len() > share::MAX_PIDS {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: the whitelist holds at most {} pids",
                share::MAX_PIDS
            );
        }
        share::add_pids(&e.file, e.pids, pids)?;
        e.pids += pids.len();
        Ok(())
    }

    /// `aclrtIpcMemImportByKey`: maps the memory another process exported under `key` and
    /// returns its address here: device memory of the current device, `size` bytes as the
    /// exporter gave.
    pub fn ipc_mem_import_by_key(&self, key: &str, flags: u64) -> Result<usize> {
        const CALL: &str = "aclrtIpcMemImportByKey";
        if flags > 1 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: flags is {flags:#x}; expected 0 or \
                 ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS"
            );
        }
        not_in_callback(CALL)?;
        let device = self.current_context()?.device.id;
        let _creating = self.creating()?;
        let mut st = lock(&self.ipc.state);
        self.sweep_retired(&mut st);
        if st.imports.contains_key(key) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: {key:?} is already imported by this process"
            );
        }
        let Some(name) = share::from_key(key) else {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{CALL}: {key:?} is not a key from aclrtIpcMemGetExportKey"
            );
        };
        let (file, h) = share::open(
            name,
            share::Kind::Ipc,
            u64::MAX,
            &format!("{CALL}: key {key:?}"),
        )?;
        let page = crate::memory::page_size();
        if h.len == 0 || h.len % page != 0 || h.offset + h.size > h.len || h.size == 0 {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{CALL}: key {key:?} describes no usable memory"
            );
        }
        let serial = self.vmm.region_serial();
        let start = self.memory.reserve_region(h.len, page, serial)?;
        if !self.memory.map_object(
            start,
            h.len,
            file.as_raw_fd(),
            crate::memory::vmm::data_offset(),
            (h.offset, h.size),
            Place::Device(device),
            serial,
        ) {
            self.memory.release_region(start);
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "{CALL}: the host refused to map {} bytes",
                h.len
            );
        }
        st.imports.insert(
            key.to_owned(),
            Import {
                start,
                len: h.len,
                serial,
                _file: file,
            },
        );
        Ok(start + h.offset)
    }

    /// `aclrtIpcMemClose`: in an importer, unmaps the memory; in the exporter, ends the export
    /// (no import succeeds any more; the allocation stays the exporter's until `aclrtFree`).
    pub fn ipc_mem_close(&self, key: &str) -> Result<()> {
        const CALL: &str = "aclrtIpcMemClose";
        not_in_callback(CALL)?;
        let mut st = lock(&self.ipc.state);
        if let Some(i) = st.imports.remove(key) {
            self.memory.retire_object(i.start, i.len, i.serial);
            let marks = self
                .streams
                .values()
                .into_iter()
                .filter(|(_, s)| !s.is_idle())
                .map(|(_, s)| (s.progress.clone(), s.progress.submitted()))
                .collect();
            st.retired.push_back(Retired { import: i, marks });
            self.sweep_retired(&mut st);
            return Ok(());
        }
        if let Some(e) = st.exports.remove(key) {
            return share::close(&e.file);
        }
        bail!(
            ACL_ERROR_RT_INVALID_HANDLE,
            "{CALL}: {key:?} is neither exported nor imported by this process"
        )
    }

    /// Releases the retired imports whose queued work has run, and the oldest ones beyond
    /// [`RETIRED_LIMIT`] (the invariants of `memory::ipc`).
    fn sweep_retired(&self, st: &mut IpcState) {
        let mut keep = VecDeque::with_capacity(st.retired.len());
        for r in st.retired.drain(..) {
            if r.work_done() {
                self.release_import(&r.import);
            } else {
                keep.push_back(r);
            }
        }
        while keep.len() > RETIRED_LIMIT {
            let oldest = keep.pop_front().expect("over the limit");
            // Unmapped and its file closed now; its range waits for the work (invariant 2).
            self.memory
                .restore_object(oldest.import.start, oldest.import.len);
            st.quarantined.push(Quarantined {
                start: oldest.import.start,
                marks: oldest.marks,
            });
        }
        st.retired = keep;
        st.quarantined.retain(|q| {
            let done = q.work_done();
            if done {
                self.memory.release_region(q.start);
            }
            !done
        });
    }

    /// Private zero pages replace a retired import's shared ones and its range goes back; the
    /// exporter's file is closed here when the caller drops the import.
    fn release_import(&self, i: &Import) {
        self.memory.restore_object(i.start, i.len);
        self.memory.release_region(i.start);
    }

    /// Ends the export of the allocation at `base`, if any (it is being freed).
    pub(crate) fn end_ipc_export(&self, base: usize) {
        let mut st = lock(&self.ipc.state);
        st.exports.retain(|_, e| {
            if e.base == base {
                let _ = share::close(&e.file);
                false
            } else {
                true
            }
        });
    }

    /// Ends every import and export (finalize).
    pub(crate) fn clear_ipc(&self) {
        let mut st = lock(&self.ipc.state);
        for (_, e) in st.exports.drain() {
            let _ = share::close(&e.file);
        }
        let imports: Vec<Import> = st.imports.drain().map(|(_, i)| i).collect();
        let retired = st.retired.drain(..).map(|r| r.import);
        for i in imports.into_iter().chain(retired) {
            self.memory.unmap_object(i.start, i.len, i.serial);
            self.memory.release_region(i.start);
        }
        for q in std::mem::take(&mut st.quarantined) {
            self.memory.release_region(q.start);
        }
    }
}
