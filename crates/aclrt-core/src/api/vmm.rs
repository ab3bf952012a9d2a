//! Virtual memory calls (`aclrtReserveMemAddress`, `aclrtMallocPhysical`, `aclrtMapMem`, …):
//! the checks the vendor's ACL layer makes (`100000`) come first, then those of its runtime and
//! driver (`107000`, `107001`, `107017`, `207001`); the state lives in `memory::vmm`.

use super::not_in_callback;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::memory::vmm::{granularity_of, map_call, Released};
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::vendor_consts as vc;

pub use crate::memory::vmm::{MemAccess, PhysicalMemProp};

/// Whether a V2 shareable handle of `share_type` is a `uint64_t` value: only of the default
/// type, the one share type taken. A face reads the caller's handle only then; every other
/// type is refused by the call itself, whatever the handle.
pub fn share_handle_is_u64(share_type: u32) -> bool {
    location_is(share_type, vc::ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
}

/// The `aclrtMemAttr` values that name host (DDR) memory only.
fn host_only_attr(attr: u32) -> bool {
    use crate::consts::*;
    matches!(
        attr,
        ACL_DDR_MEM_HUGE | ACL_DDR_MEM_NORMAL | ACL_DDR_MEM_P2P_HUGE | ACL_DDR_MEM_P2P_NORMAL
    )
}

fn location_is(t: u32, c: i64) -> bool {
    i64::from(t) == c
}

impl Runtime {
    /// Gives a released physical allocation's device memory back to its device.
    fn give_back(&self, released: Released) {
        if let Some((Place::Device(id), size)) = released {
            if let Some(device) = self.device(id) {
                device.unreserve_memory(size as u64);
            }
        }
    }

    /// `aclrtReserveMemAddress`: `size` bytes of address space, rounded up to 2 MiB, starting on
    /// a multiple of 2 MiB.
    pub fn reserve_mem_address(
        &self,
        size: usize,
        alignment: usize,
        expect: usize,
        flags: u64,
    ) -> Result<usize> {
        not_in_callback("aclrtReserveMemAddress")?;
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtReserveMemAddress: size is 0");
        }
        if flags > 1 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtReserveMemAddress: flags is {flags:#x}; expected 0"
            );
        }
        if alignment != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtReserveMemAddress: alignment is {alignment}; it is reserved and must be 0"
            );
        }
        if expect != 0 {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "aclrtReserveMemAddress: an expected address ({expect:#x}) is not supported; \
                 pass NULL and the runtime picks the range"
            );
        }
        let _creating = self.creating()?;
        self.vmm.reserve(&self.memory, size)
    }

    /// `aclrtReleaseMemAddress`.
    pub fn release_mem_address(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtReleaseMemAddress: virPtr is NULL"
            );
        }
        not_in_callback("aclrtReleaseMemAddress")?;
        self.vmm.release(&self.memory, ptr)
    }

    /// `aclrtMallocPhysical`: `size` bytes rounded up to the attribute's granularity, counted
    /// against the device (host locations count nothing).
    pub fn malloc_physical(&self, size: usize, prop: &PhysicalMemProp, flags: u64) -> Result<u64> {
        not_in_callback("aclrtMallocPhysical")?;
        let _creating = self.creating()?;
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtMallocPhysical: size is 0");
        }
        if flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: flags is {flags:#x}; it is reserved and must be 0"
            );
        }
        if !location_is(prop.handle_type, vc::ACL_MEM_HANDLE_TYPE_NONE) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: prop->handleType is {}; expected ACL_MEM_HANDLE_TYPE_NONE",
                prop.handle_type
            );
        }
        if !location_is(prop.allocation_type, vc::ACL_MEM_ALLOCATION_TYPE_PINNED) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: prop->allocationType is {}; expected \
                 ACL_MEM_ALLOCATION_TYPE_PINNED",
                prop.allocation_type
            );
        }
        let t = prop.location_type;
        let device = location_is(t, vc::ACL_MEM_LOCATION_TYPE_DEVICE);
        let host = location_is(t, vc::ACL_MEM_LOCATION_TYPE_HOST)
            || location_is(t, vc::ACL_MEM_LOCATION_TYPE_HOST_NUMA);
        if !device && !host {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: prop->location.type {t} is not supported (device, host or \
                 host NUMA)"
            );
        }
        if device && host_only_attr(prop.mem_attr) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: memAttr {} is host memory; it needs a host location",
                prop.mem_attr
            );
        }
        if prop.mem_attr > crate::consts::ACL_MEM_P2P_HUGE1G {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocPhysical: memAttr {} is not an aclrtMemAttr",
                prop.mem_attr
            );
        }
        let granularity = granularity_of(prop.mem_attr);
        let Some(len) = size.checked_next_multiple_of(granularity) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtMallocPhysical: cannot allocate {size} bytes"
            );
        };
        let place = if device {
            let id = prop.location_id as i32;
            let Some(dev) = self.device(id).filter(|_| id >= 0) else {
                bail!(
                    ACL_ERROR_RT_INVALID_DEVICEID,
                    "aclrtMallocPhysical: device {} does not exist",
                    prop.location_id
                );
            };
            super::memory::reserve_device_memory(&dev, len, "aclrtMallocPhysical: ")?;
            Place::Device(id)
        } else {
            Place::Host
        };
        self.vmm
            .create(len, place, *prop)
            .inspect_err(|_| self.give_back(Some((place, len))))
    }

    /// `aclrtFreePhysical`: the memory goes once no mapping uses it any more.
    pub fn free_physical(&self, handle: u64) -> Result<()> {
        if handle == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtFreePhysical: handle is NULL");
        }
        not_in_callback("aclrtFreePhysical")?;
        let released = self.vmm.free(handle)?;
        self.give_back(released);
        Ok(())
    }

    /// `aclrtMapMem`: maps all of `handle` at `ptr`, inside a reserved range.
    pub fn map_mem(
        &self,
        ptr: usize,
        size: usize,
        offset: usize,
        handle: u64,
        flags: u64,
    ) -> Result<()> {
        self.map_checked(ptr, size, offset, handle, flags, false)
    }

    /// `aclrtMemMapNoAccess`: as `aclrtMapMem`, with no location's access set until
    /// `aclrtMemSetAccess` sets it (recorded and reported, not enforced, as all access flags).
    pub fn mem_map_no_access(
        &self,
        ptr: usize,
        size: usize,
        offset: usize,
        handle: u64,
        flags: u64,
    ) -> Result<()> {
        self.map_checked(ptr, size, offset, handle, flags, true)
    }

    fn map_checked(
        &self,
        ptr: usize,
        size: usize,
        offset: usize,
        handle: u64,
        flags: u64,
        no_access: bool,
    ) -> Result<()> {
        let call = map_call(no_access);
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: virPtr is NULL");
        }
        if handle == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: handle is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: size is 0");
        }
        if flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: flags is {flags:#x}; it is reserved and must be 0"
            );
        }
        not_in_callback(call)?;
        self.vmm
            .map(&self.memory, ptr, size, offset, handle, no_access)
    }

    /// `aclrtUnmapMem`.
    pub fn unmap_mem(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtUnmapMem: virPtr is NULL");
        }
        not_in_callback("aclrtUnmapMem")?;
        let released = self.vmm.unmap(&self.memory, ptr)?;
        self.give_back(released);
        Ok(())
    }

    /// Checks one access location: the host, or a device that exists.
    fn check_access_location(
        &self,
        location_type: u32,
        location_id: u32,
        call: &str,
    ) -> Result<()> {
        if location_is(location_type, vc::ACL_MEM_LOCATION_TYPE_HOST) {
            return Ok(());
        }
        if !location_is(location_type, vc::ACL_MEM_LOCATION_TYPE_DEVICE) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: location type {location_type} is not ACL_MEM_LOCATION_TYPE_HOST or \
                 ACL_MEM_LOCATION_TYPE_DEVICE"
            );
        }
        if self.device(location_id as i32).is_none() || location_id > i32::MAX as u32 {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{call}: device {location_id} does not exist"
            );
        }
        Ok(())
    }

    /// `aclrtMemSetAccess`: records the access of each location to the mapping at `ptr`. The
    /// emulated device reaches its memory through the host, so access is recorded and
    /// reported, not enforced.
    /// `descs` is `None` for a NULL array.
    pub fn mem_set_access(
        &self,
        ptr: usize,
        size: usize,
        descs: Option<&[MemAccess]>,
    ) -> Result<()> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemSetAccess: virPtr is NULL"
            );
        }
        let Some(descs) = descs else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemSetAccess: desc is NULL"
            );
        };
        if descs.is_empty() {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemSetAccess: count is 0");
        }
        for d in descs {
            if !matches!(
                i64::from(d.flags),
                vc::ACL_RT_MEM_ACCESS_FLAGS_NONE
                    | vc::ACL_RT_MEM_ACCESS_FLAGS_READ
                    | vc::ACL_RT_MEM_ACCESS_FLAGS_READWRITE
            ) {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "aclrtMemSetAccess: flags {} is not an aclrtMemAccessFlags",
                    d.flags
                );
            }
            self.check_access_location(d.location_type, d.location_id, "aclrtMemSetAccess")?;
        }
        // A host location has no id: store it as 0.
        let descs: Vec<MemAccess> = descs
            .iter()
            .map(|d| MemAccess {
                location_id: if location_is(d.location_type, vc::ACL_MEM_LOCATION_TYPE_HOST) {
                    0
                } else {
                    d.location_id
                },
                ..*d
            })
            .collect();
        self.vmm.set_access(ptr, size, &descs)
    }

    /// `aclrtMemGetAccess`: the access flags of a location on the mapping at `ptr`.
    pub fn mem_get_access(&self, ptr: usize, location_type: u32, location_id: u32) -> Result<u64> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtMemGetAccess: virPtr is NULL");
        }
        self.check_access_location(location_type, location_id, "aclrtMemGetAccess")?;
        let id = if location_is(location_type, vc::ACL_MEM_LOCATION_TYPE_HOST) {
            0
        } else {
            location_id
        };
        self.vmm.get_access(ptr, location_type, id).map(u64::from)
    }

    /// `aclrtMemRetainAllocationHandle`: the handle of the allocation mapped at `ptr`, with one
    /// more reference (each needs its own `aclrtFreePhysical`).
    pub fn mem_retain_allocation_handle(&self, ptr: usize) -> Result<u64> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMemRetainAllocationHandle: virPtr is NULL"
            );
        }
        self.vmm.retain(ptr)
    }

    /// `aclrtMemGetAllocationPropertiesFromHandle`: the properties the allocation was made with.
    pub fn mem_get_allocation_properties(&self, handle: u64) -> Result<PhysicalMemProp> {
        if handle == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMemGetAllocationPropertiesFromHandle: handle is NULL"
            );
        }
        self.vmm.properties(handle)
    }

    /// `aclrtMemExportToShareableHandle`: a handle another process imports the allocation by.
    /// `flags` 1 lets any process import it; 0 only those `aclrtMemSetPidToShareableHandle`
    /// names.
    pub fn mem_export_to_shareable_handle(
        &self,
        handle: u64,
        handle_type: u32,
        flags: u64,
    ) -> Result<u64> {
        const CALL: &str = "aclrtMemExportToShareableHandle";
        if handle == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: handle is NULL");
        }
        if !location_is(handle_type, vc::ACL_MEM_HANDLE_TYPE_NONE) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: handleType is {handle_type}; expected ACL_MEM_HANDLE_TYPE_NONE"
            );
        }
        self.export_physical(handle, flags, CALL)
    }

    fn export_physical(&self, handle: u64, flags: u64, call: &str) -> Result<u64> {
        if flags > vc::ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION as u64 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: flags is {flags:#x}; expected 0 or \
                 ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION"
            );
        }
        self.vmm.export(handle, flags != 0, call)
    }

    /// Checks a V2 share type: the default one is taken; a fabric handle (between servers) is
    /// `207000`, anything else `107000`.
    fn check_share_type(share_type: u32, call: &str) -> Result<()> {
        if share_handle_is_u64(share_type) {
            return Ok(());
        }
        if location_is(share_type, vc::ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{call}: fabric handles share memory between servers; the emulated machine is \
                 one server (use ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)"
            );
        }
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: shareType {share_type} is not an aclrtMemSharedHandleType"
        )
    }

    /// `aclrtMemExportToShareableHandleV2` with the default share type (a `uint64_t` handle).
    pub fn mem_export_to_shareable_handle_v2(
        &self,
        handle: u64,
        flags: u64,
        share_type: u32,
    ) -> Result<u64> {
        const CALL: &str = "aclrtMemExportToShareableHandleV2";
        if handle == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: handle is NULL");
        }
        Self::check_share_type(share_type, CALL)?;
        self.export_physical(handle, flags, CALL)
    }

    /// `aclrtMemSetPidToShareableHandle`: adds processes to the export's whitelist.
    pub fn mem_set_pid_to_shareable_handle(&self, shareable: u64, pids: &[i32]) -> Result<()> {
        self.set_pids(shareable, pids, "aclrtMemSetPidToShareableHandle")
    }

    /// `aclrtMemSetPidToShareableHandleV2`.
    pub fn mem_set_pid_to_shareable_handle_v2(
        &self,
        shareable: u64,
        share_type: u32,
        pids: &[i32],
    ) -> Result<()> {
        const CALL: &str = "aclrtMemSetPidToShareableHandleV2";
        if pids.is_empty() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: pidNum is 0");
        }
        Self::check_share_type(share_type, CALL)?;
        self.set_pids(shareable, pids, CALL)
    }

    fn set_pids(&self, shareable: u64, pids: &[i32], call: &str) -> Result<()> {
        if pids.is_empty() {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: pidNum is 0");
        }
        self.vmm.set_pids(shareable, pids, call)
    }

    /// `aclrtMemImportFromShareableHandle`: the memory another process exported, as a physical
    /// handle of `device` here (not counted against it: the exporter's device holds it).
    pub fn mem_import_from_shareable_handle(&self, shareable: u64, device: i32) -> Result<u64> {
        const CALL: &str = "aclrtMemImportFromShareableHandle";
        not_in_callback(CALL)?;
        if self.device(device).is_none() || device < 0 {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{CALL}: device {device} does not exist"
            );
        }
        self.current_context()?;
        self.vmm.import(shareable, device, CALL)
    }

    /// `aclrtMemImportFromShareableHandleV2`: as V1, on the current device.
    pub fn mem_import_from_shareable_handle_v2(
        &self,
        shareable: u64,
        share_type: u32,
        flags: u64,
    ) -> Result<u64> {
        const CALL: &str = "aclrtMemImportFromShareableHandleV2";
        not_in_callback(CALL)?;
        if flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: flags is {flags:#x}; it is reserved and must be 0"
            );
        }
        let device = self.current_context()?.device.id;
        Self::check_share_type(share_type, CALL)?;
        self.vmm.import(shareable, device, CALL)
    }

    /// Ends every mapping, physical allocation and reservation (finalize).
    pub(crate) fn clear_vmm(&self) {
        for released in self.vmm.clear(&self.memory) {
            self.give_back(Some(released));
        }
    }
}
