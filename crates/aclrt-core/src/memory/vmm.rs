//! Virtual memory management: address ranges reserved by `aclrtReserveMemAddress`, physical
//! memory from `aclrtMallocPhysical`, and the mappings `aclrtMapMem` makes between them.
//!
//! # Model
//!
//! - A *reservation* is a region of the runtime's segments ([`MemoryMap::reserve_region`]),
//!   aligned to [`GRANULARITY`] and a multiple of it, tagged with a serial that has
//!   [`VMM_SERIAL`] set (pool regions never do). Its addresses are runtime memory that is not
//!   allocated: a copy or set there is refused (`100000`) until a mapping covers them.
//! - A *physical allocation* is a memory file (`memfd`) of its size rounded up to its
//!   granularity, plus one leading page ([`data_offset`]) kept for what sharing it with another
//!   process needs. Device memory is counted against its device from `aclrtMallocPhysical`
//!   until the allocation is really released.
//! - A *mapping* maps the whole of one physical allocation, shared, over part of one
//!   reservation ([`MemoryMap::map_object`]) and marks that range live, so copies, sets and
//!   kernels take it as device memory of the allocation's device. Unmapping puts the segment's
//!   private zero pages back ([`MemoryMap::unmap_object`]), so work still queued on the range
//!   touches mapped memory and never faults (the memory map's invariant 1).
//!
//! # Invariants
//!
//! 1. Mappings never overlap, each lies inside one reservation, starts on a multiple of its
//!    allocation's granularity and is exactly as long as that allocation.
//! 2. One reservation maps allocations of one place (one device, or the host) only, and either
//!    only allocations of this process or only imported ones (the vendor's rule for a range the
//!    program divides itself).
//! 3. A physical allocation stays while it has references (its creation and each
//!    `aclrtMemRetainAllocationHandle`) or mappings; `aclrtFreePhysical` drops a reference, and
//!    the memory goes (file closed, device memory given back) when the last reference and the
//!    last mapping are gone. A handle without references is refused even while still mapped.
//! 4. A reservation is released only when no mapping is left in it.
//!
//! All state sits behind one lock, taken for whole operations; the memory map's own lock is
//! taken inside it (never the other way round), so a map or unmap is atomic to every other
//! virtual memory call.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::{pages, share, MemoryMap, Place};
use crate::codes::*;
use crate::error::{bail, Error, Result};
use crate::sync::lock;

/// Set in the memory-map serial of every reservation (pool serials are small counters).
pub(crate) const VMM_SERIAL: u64 = 1 << 63;

/// The granularity of normal and 2 MiB huge-page physical memory, and of reservations.
pub(crate) const GRANULARITY: usize = 2 << 20;

/// The granularity of 1 GiB huge-page physical memory.
pub(crate) const GRANULARITY_1G: usize = 1 << 30;

/// Tag in the top byte of a physical allocation's handle (as the runtime's handle tokens).
const PHYSICAL_TAG: u64 = 0x5A;

/// Where a physical allocation's bytes start in its memory file: the first page is kept for
/// the description another process reads when it imports the allocation.
pub(crate) fn data_offset() -> usize {
    pages::page_size()
}

/// One access descriptor (`aclrtMemAccessDesc`), or a location asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemAccess {
    /// `aclrtMemAccessFlags`.
    pub flags: u32,
    /// `aclrtMemLocationType`.
    pub location_type: u32,
    /// The device id for a device location.
    pub location_id: u32,
}

/// The properties of a physical allocation (`aclrtPhysicalMemProp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PhysicalMemProp {
    /// `aclrtMemHandleType`.
    pub handle_type: u32,
    /// `aclrtMemAllocationType`.
    pub allocation_type: u32,
    /// `aclrtMemAttr`.
    pub mem_attr: u32,
    /// `aclrtMemLocationType`.
    pub location_type: u32,
    /// The device id for a device location.
    pub location_id: u32,
    /// Reserved.
    pub reserve: u64,
}

pub(crate) struct Physical {
    pub(crate) file: OwnedFd,
    /// Bytes of memory (a multiple of the granularity).
    pub(crate) size: usize,
    pub(crate) place: Place,
    pub(crate) prop: PhysicalMemProp,
    /// The creation plus each retain, less each free.
    pub(crate) refs: u32,
    /// Mappings of it in this process.
    pub(crate) mapped: u32,
    /// Imported from another process (its memory is counted there): the shareable handle.
    pub(crate) imported: Option<u64>,
    /// Exported by this process: the shareable handle and how many pids its whitelist holds.
    pub(crate) exported: Option<(u64, usize)>,
}

struct Reservation {
    len: usize,
    serial: u64,
}

struct Mapping {
    len: usize,
    handle: u64,
    /// Access set by `aclrtMemSetAccess`: (location type, id) → flags.
    access: BTreeMap<(u32, u32), u32>,
    /// Made by `aclrtMemMapNoAccess`: no location has access until it is set.
    no_access: bool,
}

#[derive(Default)]
pub(crate) struct VmmState {
    reservations: BTreeMap<usize, Reservation>,
    pub(crate) physicals: HashMap<u64, Physical>,
    mappings: BTreeMap<usize, Mapping>,
    /// Shareable handles this process exported → the physical handle.
    exports: HashMap<u64, u64>,
    /// Shareable handles this process imported → the physical handle.
    imports: HashMap<u64, u64>,
}

/// Virtual memory state of one runtime.
#[derive(Default)]
pub(crate) struct Vmm {
    pub(crate) state: Mutex<VmmState>,
    next: AtomicU64,
}

/// What the runtime gives back when a physical allocation really ends: its place and size, for
/// the device's count (none for imported memory).
pub(crate) type Released = Option<(Place, usize)>;

fn released(p: &Physical) -> Released {
    p.imported.is_none().then_some((p.place, p.size))
}

impl VmmState {
    /// Takes a physical allocation out for good: its export closes (new imports fail), its
    /// import is forgotten, its file is closed when the returned value is dropped.
    fn end(&mut self, handle: u64) -> Physical {
        let p = self.physicals.remove(&handle).expect("the caller found it");
        if let Some((shareable, _)) = p.exported {
            self.exports.remove(&shareable);
        }
        if let Some(shareable) = p.imported {
            self.imports.remove(&shareable);
        }
        p
    }
}

impl Vmm {
    /// A fresh handle token for a physical allocation (never reused in this runtime).
    fn token(&self) -> u64 {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        (PHYSICAL_TAG << 56) | (n & ((1 << 56) - 1))
    }

    /// Reserves `size` bytes (rounded up to [`GRANULARITY`]) of address space.
    pub(crate) fn reserve(&self, map: &MemoryMap, size: usize) -> Result<usize> {
        let Some(len) = size
            .checked_next_multiple_of(GRANULARITY)
            .filter(|&l| l <= isize::MAX as usize / 2)
        else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtReserveMemAddress: cannot reserve {size} bytes of address space"
            );
        };
        let serial = self.region_serial();
        let start = map.reserve_region(len, GRANULARITY, serial)?;
        lock(&self.state)
            .reservations
            .insert(start, Reservation { len, serial });
        Ok(start)
    }

    /// Whether `addr` lies in a range reserved by `aclrtReserveMemAddress`.
    pub(crate) fn reserved(&self, addr: usize) -> bool {
        lock(&self.state)
            .reservations
            .range(..=addr)
            .next_back()
            .is_some_and(|(&s, r)| addr < s + r.len)
    }

    /// Releases the reservation that starts at `start`.
    pub(crate) fn release(&self, map: &MemoryMap, start: usize) -> Result<()> {
        let mut st = lock(&self.state);
        let Some(r) = st.reservations.get(&start) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtReleaseMemAddress: {start:#x} is not the start of an address range \
                 reserved by aclrtReserveMemAddress"
            );
        };
        if let Some((&at, _)) = st.mappings.range(start..start + r.len).next() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtReleaseMemAddress: the range at {start:#x} still has a mapping at {at:#x}: \
                 unmap it with aclrtUnmapMem first"
            );
        }
        st.reservations.remove(&start);
        let left = map.release_region(start);
        debug_assert!(left.is_empty(), "no mapping was left in the region");
        Ok(())
    }

    /// Creates a physical allocation of `size` bytes (a multiple of its granularity) backed by a
    /// fresh memory file; returns its handle.
    pub(crate) fn create(&self, size: usize, place: Place, prop: PhysicalMemProp) -> Result<u64> {
        let file = memory_file("aclrtMallocPhysical", size)?;
        let handle = self.token();
        lock(&self.state).physicals.insert(
            handle,
            Physical {
                file,
                size,
                place,
                prop,
                refs: 1,
                mapped: 0,
                imported: None,
                exported: None,
            },
        );
        Ok(handle)
    }

    /// Exports `handle` (`aclrtMemExportToShareableHandle`): writes the description another
    /// process reads into the allocation's file and returns the shareable handle.
    pub(crate) fn export(&self, handle: u64, no_pid_check: bool, call: &str) -> Result<u64> {
        let mut st = lock(&self.state);
        let p = live_physical(&mut st, handle, call)?;
        if p.imported.is_some() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {handle:#x} was imported from another process; only memory allocated \
                 here can be exported"
            );
        }
        let Place::Device(device) = p.place else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {handle:#x} is host memory; only device memory can be exported"
            );
        };
        if p.exported.is_some() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {handle:#x} is already exported (one shareable handle per allocation)"
            );
        }
        let name = share::Name {
            pid: std::process::id(),
            fd: p.file.as_raw_fd() as u32,
            serial: share::next_serial(),
        };
        let Some(shareable) = share::handle(name) else {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{call}: this process's id or descriptor is too large for a shareable handle"
            );
        };
        share::write_header(
            &p.file,
            &share::Header {
                kind: share::Kind::Physical,
                flags: if no_pid_check { share::NO_PID_CHECK } else { 0 },
                pid: name.pid,
                closed: false,
                serial: name.serial,
                len: p.size,
                offset: 0,
                size: p.size,
                device,
                mem_attr: p.prop.mem_attr,
                pids: Vec::new(),
            },
        )?;
        p.exported = Some((shareable, 0));
        st.exports.insert(shareable, handle);
        Ok(shareable)
    }

    /// Adds `pids` to the whitelist of the export `shareable` of this process.
    pub(crate) fn set_pids(&self, shareable: u64, pids: &[i32], call: &str) -> Result<()> {
        let mut st = lock(&self.state);
        let Some(&handle) = st.exports.get(&shareable) else {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "{call}: {shareable:#x} is not a shareable handle this process exported"
            );
        };
        let p = st
            .physicals
            .get_mut(&handle)
            .expect("exports are of live allocations");
        let (_, have) = p.exported.expect("listed as exported");
        if have + pids.len() > share::MAX_PIDS {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: the whitelist holds at most {} pids ({have} set, {} more asked)",
                share::MAX_PIDS,
                pids.len()
            );
        }
        share::add_pids(&p.file, have, pids)?;
        p.exported = Some((shareable, have + pids.len()));
        Ok(())
    }

    /// Imports the export `shareable` of another process as memory of `device`
    /// (`aclrtMemImportFromShareableHandle`); returns the new physical handle.
    pub(crate) fn import(&self, shareable: u64, device: i32, call: &str) -> Result<u64> {
        let mut st = lock(&self.state);
        if st.imports.contains_key(&shareable) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {shareable:#x} is already imported by this process (one handle per \
                 shareable handle)"
            );
        }
        let (file, h) = share::open(
            share::from_handle(shareable),
            share::Kind::Physical,
            share::HANDLE_SERIAL_MASK,
            &format!("{call}: shareable handle {shareable:#x}"),
        )?;
        let handle = self.token();
        st.physicals.insert(
            handle,
            Physical {
                file,
                size: h.size,
                place: Place::Device(device),
                prop: PhysicalMemProp {
                    mem_attr: h.mem_attr,
                    location_type: crate::vendor_consts::ACL_MEM_LOCATION_TYPE_DEVICE as u32,
                    location_id: device as u32,
                    ..PhysicalMemProp::default()
                },
                refs: 1,
                mapped: 0,
                imported: Some(shareable),
                exported: None,
            },
        );
        st.imports.insert(shareable, handle);
        Ok(handle)
    }

    /// A fresh serial for an address range reserved in the memory map.
    pub(crate) fn region_serial(&self) -> u64 {
        VMM_SERIAL | self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Drops a reference to `handle` (`aclrtFreePhysical`).
    pub(crate) fn free(&self, handle: u64) -> Result<Released> {
        let mut st = lock(&self.state);
        let p = live_physical(&mut st, handle, "aclrtFreePhysical")?;
        p.refs -= 1;
        if p.refs > 0 {
            return Ok(None);
        }
        // The handle is gone: so is its export, for new imports (the memory stays while mapped).
        if let Some((shareable, _)) = p.exported {
            // Writing one word into our own memory file does not fail in practice; were it to,
            // the closed descriptor (below, or at the last unmap) still ends the export.
            let _ = share::close(&p.file);
            st.exports.remove(&shareable);
        }
        if st.physicals[&handle].mapped > 0 {
            return Ok(None);
        }
        let p = st.end(handle);
        Ok(released(&p))
    }

    /// Maps all of `handle` at `start` (`aclrtMapMem`); `size` must be the allocation's size.
    pub(crate) fn map(
        &self,
        mem: &MemoryMap,
        start: usize,
        size: usize,
        offset: usize,
        handle: u64,
        no_access: bool,
    ) -> Result<()> {
        let call = map_call(no_access);
        let mut st = lock(&self.state);
        let (p_size, p_place, p_imported, fd, granularity) = {
            let p = live_physical(&mut st, handle, call)?;
            (
                p.size,
                p.place,
                p.imported.is_some(),
                p.file.as_raw_fd(),
                granularity_of(p.prop.mem_attr),
            )
        };
        if offset != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: offset is {offset}; only 0 is supported"
            );
        }
        if size != p_size {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: size {size} is not the physical allocation's size {p_size}"
            );
        }
        if !start.is_multiple_of(granularity) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {start:#x} is not a multiple of the allocation granularity \
                 {granularity:#x}"
            );
        }
        let Some((&r_start, r)) = st.reservations.range(..=start).next_back() else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {start:#x} is not in an address range reserved by \
                 aclrtReserveMemAddress"
            );
        };
        let (r_len, serial) = (r.len, r.serial);
        if start >= r_start + r_len {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {start:#x} is not in an address range reserved by \
                 aclrtReserveMemAddress"
            );
        }
        if start + size > r_start + r_len {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {size} bytes at {start:#x} run past the end of the {r_len}-byte \
                 reserved range at {r_start:#x}"
            );
        }
        for (&at, m) in st.mappings.range(r_start..r_start + r_len) {
            if at < start + size && start < at + m.len {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{call}: {size} bytes at {start:#x} overlap the mapping at {at:#x} \
                     ({} bytes)",
                    m.len
                );
            }
            let other = &st.physicals[&m.handle];
            if other.place != p_place {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{call}: the reserved range at {r_start:#x} already maps {} at {at:#x}; \
                     one range maps the memory of one place only",
                    other.place
                );
            }
            if other.imported.is_some() != p_imported {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{call}: the reserved range at {r_start:#x} already maps {} memory at \
                     {at:#x}; one range maps either allocated or imported memory",
                    if other.imported.is_some() {
                        "imported"
                    } else {
                        "allocated"
                    }
                );
            }
        }
        if !mem.map_object(start, size, fd, data_offset(), (0, size), p_place, serial) {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "{call}: the host refused to map {size} bytes at {start:#x}"
            );
        }
        st.physicals.get_mut(&handle).expect("found above").mapped += 1;
        st.mappings.insert(
            start,
            Mapping {
                len: size,
                handle,
                access: BTreeMap::new(),
                no_access,
            },
        );
        Ok(())
    }

    /// Ends the mapping at `start` (`aclrtUnmapMem`).
    pub(crate) fn unmap(&self, mem: &MemoryMap, start: usize) -> Result<Released> {
        let mut st = lock(&self.state);
        let Some(m) = st.mappings.remove(&start) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtUnmapMem: {start:#x} is not the start of a mapping made by aclrtMapMem"
            );
        };
        let (_, r) = st
            .reservations
            .range(..=start)
            .next_back()
            .expect("a mapping lies in a reservation");
        mem.unmap_object(start, m.len, r.serial);
        let p = st
            .physicals
            .get_mut(&m.handle)
            .expect("mapped physicals stay");
        p.mapped -= 1;
        if p.refs == 0 && p.mapped == 0 {
            let p = st.end(m.handle);
            return Ok(released(&p));
        }
        Ok(None)
    }

    /// The mapping that starts at `start`: its length and handle.
    fn mapping<'a>(st: &'a mut VmmState, start: usize, call: &str) -> Result<&'a mut Mapping> {
        match st.mappings.get_mut(&start) {
            Some(m) => Ok(m),
            None => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {start:#x} is not the start of a mapping made by aclrtMapMem"
            ),
        }
    }

    /// Records access descriptors for the mapping at `start` (`aclrtMemSetAccess`); the caller
    /// has checked each descriptor.
    pub(crate) fn set_access(&self, start: usize, size: usize, descs: &[MemAccess]) -> Result<()> {
        let mut st = lock(&self.state);
        let m = Self::mapping(&mut st, start, "aclrtMemSetAccess")?;
        if size != m.len {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemSetAccess: size {size} is not the {}-byte mapping's size",
                m.len
            );
        }
        for d in descs {
            m.access.insert((d.location_type, d.location_id), d.flags);
        }
        Ok(())
    }

    /// The access flags of `location` on the mapping at `start` (`aclrtMemGetAccess`): as last
    /// set; unset, read-write for the place of the mapped memory and none elsewhere (none
    /// everywhere for a mapping made by `aclrtMemMapNoAccess`).
    pub(crate) fn get_access(
        &self,
        start: usize,
        location_type: u32,
        location_id: u32,
    ) -> Result<u32> {
        let mut st = lock(&self.state);
        let m = Self::mapping(&mut st, start, "aclrtMemGetAccess")?;
        if let Some(&f) = m.access.get(&(location_type, location_id)) {
            return Ok(f);
        }
        if m.no_access {
            return Ok(crate::vendor_consts::ACL_RT_MEM_ACCESS_FLAGS_NONE as u32);
        }
        let place = st.physicals[&st.mappings[&start].handle].place;
        let own = match place {
            Place::Device(id) => {
                i64::from(location_type) == crate::vendor_consts::ACL_MEM_LOCATION_TYPE_DEVICE
                    && i64::from(location_id) == i64::from(id)
            }
            Place::Host => {
                i64::from(location_type) == crate::vendor_consts::ACL_MEM_LOCATION_TYPE_HOST
            }
        };
        Ok(if own {
            crate::vendor_consts::ACL_RT_MEM_ACCESS_FLAGS_READWRITE as u32
        } else {
            crate::vendor_consts::ACL_RT_MEM_ACCESS_FLAGS_NONE as u32
        })
    }

    /// Adds a reference to the allocation mapped at `start`; returns its handle
    /// (`aclrtMemRetainAllocationHandle`).
    pub(crate) fn retain(&self, start: usize) -> Result<u64> {
        let mut st = lock(&self.state);
        let handle = Self::mapping(&mut st, start, "aclrtMemRetainAllocationHandle")?.handle;
        let p = st
            .physicals
            .get_mut(&handle)
            .expect("mapped physicals stay");
        p.refs += 1;
        Ok(handle)
    }

    /// The properties `handle` was made with.
    pub(crate) fn properties(&self, handle: u64) -> Result<PhysicalMemProp> {
        let mut st = lock(&self.state);
        Ok(live_physical(&mut st, handle, "aclrtMemGetAllocationPropertiesFromHandle")?.prop)
    }

    /// Ends everything (finalize): mappings, allocations, reservations. Returns what the devices
    /// must be given back.
    pub(crate) fn clear(&self, mem: &MemoryMap) -> Vec<(Place, usize)> {
        let mut st = lock(&self.state);
        let mappings = std::mem::take(&mut st.mappings);
        for (start, m) in mappings {
            if let Some((_, r)) = st.reservations.range(..=start).next_back() {
                mem.unmap_object(start, m.len, r.serial);
            }
        }
        st.reservations.clear();
        st.physicals
            .drain()
            .filter_map(|(_, p)| released(&p))
            .collect()
    }
}

/// The live physical allocation `handle` (with references), or `107017`.
fn live_physical<'a>(st: &'a mut VmmState, handle: u64, call: &str) -> Result<&'a mut Physical> {
    match st.physicals.get_mut(&handle) {
        Some(p) if p.refs > 0 => Ok(p),
        Some(_) => bail!(
            ACL_ERROR_RT_INVALID_HANDLE,
            "{call}: the physical memory handle {handle:#x} was freed (aclrtFreePhysical); its \
             memory stays only while mapped"
        ),
        None => bail!(
            ACL_ERROR_RT_INVALID_HANDLE,
            "{call}: {handle:#x} is not a live physical memory handle (aclrtMallocPhysical, \
             aclrtMemImportFromShareableHandle)"
        ),
    }
}

/// The granularity of physical memory with attribute `mem_attr`.
pub(crate) fn granularity_of(mem_attr: u32) -> usize {
    use crate::consts::*;
    match mem_attr {
        ACL_HBM_MEM_HUGE1G | ACL_HBM_MEM_P2P_HUGE1G | ACL_MEM_HUGE1G | ACL_MEM_P2P_HUGE1G => {
            GRANULARITY_1G
        }
        _ => GRANULARITY,
    }
}

/// The call that maps: `aclrtMemMapNoAccess` when the mapping starts without access,
/// `aclrtMapMem` otherwise.
pub(crate) fn map_call(no_access: bool) -> &'static str {
    if no_access {
        "aclrtMemMapNoAccess"
    } else {
        "aclrtMapMem"
    }
}

/// A fresh memory file holding [`data_offset`] + `size` bytes, all reading as zero and backed
/// only where written; `call` names the API call in the error messages.
pub(crate) fn memory_file(call: &str, size: usize) -> Result<OwnedFd> {
    let total = size
        .checked_add(data_offset())
        .and_then(|t| libc::off_t::try_from(t).ok());
    let Some(total) = total else {
        bail!(
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            "{call}: cannot allocate {size} bytes"
        );
    };
    pages::memory_file(c"aclrt-physical", total).map_err(|e| {
        let what = if e.sizing {
            format!("size a memory file to {size} bytes")
        } else {
            "create a memory file".to_owned()
        };
        Error::new(
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("{call}: the host could not {what}: {}", e.os),
        )
    })
}
