//! Device calls beyond set and reset: a forced reset, what the emulated device reports about
//! itself (SoC name, attributes, capabilities, status, utilisation, UUID) and peer access
//! between emulated devices.
//!
//! The emulated device presents itself as one chip (see [`EMULATED_SOC_NAME`]); the values it
//! reports per attribute are the constants below, listed in `docs/SEMANTICS.md`.

use std::sync::Arc;

use super::not_in_callback;
use super::stream::LOWEST_STREAM_PRIORITY;
use crate::codes::*;
use crate::device::Device;
use crate::error::{bail, Error, Result};
use crate::runtime::Runtime;
use crate::sync::lock;
use crate::vendor_consts as vc;

/// The SoC name the emulated device reports by default (`aclrtGetSocName`).
pub const EMULATED_SOC_NAME: &str = "Ascend910B3";
/// Environment variable: the SoC name to report instead of [`EMULATED_SOC_NAME`] (read by each
/// `aclrtGetSocName`; empty means the default).
pub const ENV_SOC_NAME: &str = "ACLRT_SOC_NAME";
/// The NPU architecture version of the default emulated chip (`ACL_DEV_ATTR_NPU_ARCH`): the
/// vendor's value for its A2 training and inference products. With `ACLRT_SOC_NAME` set, the
/// architecture of that SoC (the vendor's platform table), where known.
pub const EMULATED_NPU_ARCH: i64 = 2201;
pub use crate::device::{EMULATED_AICORE_NUM, EMULATED_VECTOR_CORE_NUM};
/// AI CPU count (`ACL_DEV_ATTR_AICPU_CORE_NUM`).
pub const EMULATED_AICPU_NUM: i64 = 6;
/// L2 cache size in bytes (`ACL_DEV_ATTR_L2_CACHE_SIZE`, `ACL_DEVICE_INFO_L2_SIZE`).
pub const EMULATED_L2_SIZE: i64 = 192 << 20;
/// The highest stream priority (`aclrtDeviceGetStreamPriorityRange`'s greatest priority).
pub const GREATEST_STREAM_PRIORITY: i32 = 0;

/// What `aclrtGetDeviceUtilizationRate` reports (`aclrtUtilizationInfo`, in percent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utilization {
    /// Cube units: 100 while any stream of the device has work queued or running, else 0.
    pub cube: i32,
    /// Vector units: as `cube`.
    pub vector: i32,
    /// AI CPU: 0 (the emulated device has no AI CPU work).
    pub aicpu: i32,
    /// Memory: -1, as the vendor reports it (not supported).
    pub memory: i32,
}

impl Runtime {
    /// A device by logical id (`107001` out of range).
    pub(crate) fn device_checked(&self, id: i32) -> Result<Arc<Device>> {
        self.device(id).ok_or_else(|| {
            Error::new(
                ACL_ERROR_RT_INVALID_DEVICEID,
                format!(
                    "device id {id} is out of range: {} device(s) visible",
                    self.device_count()
                ),
            )
        })
    }

    fn device_checked_u32(&self, id: u32) -> Result<Arc<Device>> {
        self.device_checked(i32::try_from(id).unwrap_or(i32::MAX))
    }

    /// `aclrtResetDeviceForce`: releases the device's default context (its streams, after their
    /// work has finished) whatever the number of `aclrtSetDevice` calls. After the device has
    /// been released (by this or by `aclrtResetDevice` bringing the count to zero), a reset of
    /// either kind is `507007` until the device is set again.
    pub fn reset_device_force(&self, id: i32) -> Result<()> {
        let device = self.device_checked(id)?;
        not_in_callback("aclrtResetDeviceForce")?;
        // The first reset reports a device that is not set; the others bring the count down.
        self.reset_device(id)?;
        while lock(self.binding(&device)).set_count > 0 {
            if self.reset_device(id).is_err() {
                break;
            }
        }
        Ok(())
    }

    /// `aclrtGetSocName`: `ACLRT_SOC_NAME` when set and not empty, else
    /// [`EMULATED_SOC_NAME`]; the same for every device. It needs no `aclInit` (see
    /// [`get_soc_name`](super::get_soc_name)).
    pub fn get_soc_name(&self) -> Result<String> {
        Ok(soc_name())
    }

    /// `aclrtGetDeviceInfo`: the emulated chip's value for `attr` (an `aclrtDevAttr`).
    /// Attributes the vendor reports only on other products are 0 (the SIMT limits) or
    /// `207000` (`ACL_DEV_ATTR_HD_CONNECT_TYPE`, `ACL_DEV_ATTR_DEVICE_FORM_FACTOR`); any other
    /// value is `107000`.
    pub fn get_device_info(&self, device_id: u32, attr: u32) -> Result<i64> {
        let device = self.device_checked_u32(device_id)?;
        let attr = i64::from(attr);
        Ok(match attr {
            vc::ACL_DEV_ATTR_AICPU_CORE_NUM => EMULATED_AICPU_NUM,
            vc::ACL_DEV_ATTR_AICORE_CORE_NUM | vc::ACL_DEV_ATTR_CUBE_CORE_NUM => {
                EMULATED_AICORE_NUM
            }
            vc::ACL_DEV_ATTR_VECTOR_CORE_NUM => EMULATED_VECTOR_CORE_NUM,
            vc::ACL_DEV_ATTR_WARP_SIZE..=vc::ACL_DEV_ATTR_MAX_BLOCK_DIM_Z => 0,
            vc::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE => device.memory_capacity as i64,
            vc::ACL_DEV_ATTR_L2_CACHE_SIZE => EMULATED_L2_SIZE,
            vc::ACL_DEV_ATTR_PHY_CHIP_ID => i64::from(device.id),
            vc::ACL_DEV_ATTR_SMP_ID
            | vc::ACL_DEV_ATTR_SUPER_POD_DEVICE_ID
            | vc::ACL_DEV_ATTR_SUPER_POD_SERVER_ID
            | vc::ACL_DEV_ATTR_SUPER_POD_ID
            | vc::ACL_DEV_ATTR_CUST_OP_PRIVILEGE
            | vc::ACL_DEV_ATTR_MAINBOARD_ID
            | vc::ACL_DEV_ATTR_IS_VIRTUAL => 0,
            vc::ACL_DEV_ATTR_HD_CONNECT_TYPE | vc::ACL_DEV_ATTR_DEVICE_FORM_FACTOR => bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "aclrtGetDeviceInfo: attribute {attr} is reported only by other products than \
                 the emulated {EMULATED_SOC_NAME}"
            ),
            vc::ACL_DEV_ATTR_NPU_ARCH => npu_arch_of_soc(),
            other => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtGetDeviceInfo: {other} is not an aclrtDevAttr"
            ),
        })
    }

    /// `aclGetDeviceCapability`: AI Core count, vector core count or L2 size (an
    /// `aclDeviceInfo`); any other value is `100000`.
    pub fn get_device_capability(&self, device_id: u32, info: i32) -> Result<i64> {
        self.device_checked_u32(device_id)?;
        Ok(match i64::from(info) {
            vc::ACL_DEVICE_INFO_AI_CORE_NUM => EMULATED_AICORE_NUM,
            vc::ACL_DEVICE_INFO_VECTOR_CORE_NUM => EMULATED_VECTOR_CORE_NUM,
            vc::ACL_DEVICE_INFO_L2_SIZE => EMULATED_L2_SIZE,
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclGetDeviceCapability: {other} is not an aclDeviceInfo"
            ),
        })
    }

    /// `aclrtGetDeviceCapability`: whether a feature (an `aclrtDevFeatureType`) is supported;
    /// the emulated device supports neither (`ACL_DEV_FEATURE_NOT_SUPPORT`). Another value is
    /// `107000`.
    pub fn get_device_feature(&self, device_id: i32, feature: u32) -> Result<i32> {
        self.device_checked(device_id)?;
        match i64::from(feature) {
            vc::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV
            | vc::ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV => {
                Ok(vc::ACL_DEV_FEATURE_NOT_SUPPORT as i32)
            }
            other => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtGetDeviceCapability: {other} is not an aclrtDevFeatureType"
            ),
        }
    }

    /// `aclrtQueryDeviceStatus`: an emulated device is always `ACL_RT_DEVICE_STATUS_NORMAL`
    /// (task failures are the tasks', not the device's).
    pub fn query_device_status(&self, device_id: i32) -> Result<u32> {
        self.device_checked(device_id)?;
        Ok(vc::ACL_RT_DEVICE_STATUS_NORMAL as u32)
    }

    /// `aclrtGetDeviceUtilizationRate` (see [`Utilization`]).
    pub fn get_device_utilization_rate(&self, device_id: i32) -> Result<Utilization> {
        let device = self.device_checked(device_id)?;
        let busy = self.contexts.values().iter().any(|(_, ctx)| {
            Arc::ptr_eq(&ctx.device, &device) && ctx.streams().iter().any(|s| !s.is_idle())
        });
        let percent = if busy { 100 } else { 0 };
        Ok(Utilization {
            cube: percent,
            vector: percent,
            aicpu: 0,
            memory: -1,
        })
    }

    /// `aclrtDeviceGetStreamPriorityRange`: `(least, greatest)` = `(7, 0)`.
    pub fn device_get_stream_priority_range(&self) -> Result<(i32, i32)> {
        Ok((LOWEST_STREAM_PRIORITY as i32, GREATEST_STREAM_PRIORITY))
    }

    /// `aclrtDeviceGetUuid`: 16 bytes, stable for a device id within a process: `"aclrt-emu"`,
    /// then a zero byte, then the logical id as 6 big-endian bytes.
    pub fn device_get_uuid(&self, device_id: i32) -> Result<[u8; 16]> {
        self.device_checked(device_id)?;
        let mut uuid = [0u8; 16];
        uuid[..9].copy_from_slice(b"aclrt-emu");
        uuid[10..].copy_from_slice(&(device_id as u64).to_be_bytes()[2..]);
        Ok(uuid)
    }

    /// `aclrtDeviceCanAccessPeer`: any two different emulated devices can (1); the same id
    /// twice is `107000`.
    pub fn device_can_access_peer(&self, device_id: i32, peer_id: i32) -> Result<i32> {
        self.device_checked(device_id)?;
        self.device_checked(peer_id)?;
        if device_id == peer_id {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtDeviceCanAccessPeer: device {device_id} and its peer must differ"
            );
        }
        Ok(1)
    }

    /// `aclrtSetTsDevice`: picks the task scheduler for the thread's work. The emulated chip,
    /// as the vendor's single-scheduler chips, has only the AI Core one, so a valid choice
    /// (`ACL_TS_ID_AICORE` or `ACL_TS_ID_AIVECTOR`) has no effect, as the vendor documents;
    /// another value is `100000`. It needs no device or context.
    pub fn set_ts_device(&self, ts_id: u32) -> Result<()> {
        match i64::from(ts_id) {
            vc::ACL_TS_ID_AICORE | vc::ACL_TS_ID_AIVECTOR => Ok(()),
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtSetTsDevice: tsId {other} is not ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR"
            ),
        }
    }

    /// `aclrtGetDevicesTopo`: how two devices are connected, one `ACL_RT_DEVS_TOPOLOGY_*` bit.
    /// The emulated devices share the host's coherent memory, so every pair (a device with
    /// itself too, as the vendor's runtime reports it) is `ACL_RT_DEVS_TOPOLOGY_HCCS`. An id out
    /// of range is `107001`.
    pub fn get_devices_topo(&self, device_id: u32, other_id: u32) -> Result<u64> {
        self.device_checked_u32(device_id)?;
        self.device_checked_u32(other_id)?;
        Ok(vc::ACL_RT_DEVS_TOPOLOGY_HCCS as u64)
    }

    /// `aclrtDeviceGetHostAtomicCapabilities`: the emulated chip is an A2, whose host link is
    /// PCIe, not the UB link the vendor's runtime needs for atomic operations between a device
    /// and the host, so every capability is 0.
    ///
    /// # Safety
    /// `capabilities` and `operations` are NULL or hold `count` entries.
    pub unsafe fn device_get_host_atomic_capabilities(
        &self,
        capabilities: *mut u32,
        operations: *const u32,
        count: u32,
        device_id: i32,
    ) -> Result<()> {
        const CALL: &str = "aclrtDeviceGetHostAtomicCapabilities";
        // SAFETY: the caller's promise.
        let ops = unsafe { atomic_query(capabilities, operations, count, CALL) }?;
        self.device_checked(device_id)?;
        // SAFETY: as above.
        unsafe { answer_atomic_query(capabilities, &ops, CALL, |_| 0) }
    }

    /// `aclrtDeviceGetP2PAtomicCapabilities`: between two emulated devices (linked by HCCS, see
    /// [`Runtime::get_devices_topo`]) the A2's table: `ACL_RT_ATOMIC_OPERATION_DMA_ADD`,
    /// `..._DMA_MIN` and `..._DMA_MAX` on signed 8-, 16- and 32-bit scalars; every other
    /// operation 0. The same device twice is `107001`, as the vendor's.
    ///
    /// # Safety
    /// As [`Runtime::device_get_host_atomic_capabilities`].
    pub unsafe fn device_get_p2p_atomic_capabilities(
        &self,
        capabilities: *mut u32,
        operations: *const u32,
        count: u32,
        src_device_id: i32,
        dst_device_id: i32,
    ) -> Result<()> {
        const CALL: &str = "aclrtDeviceGetP2PAtomicCapabilities";
        // SAFETY: the caller's promise.
        let ops = unsafe { atomic_query(capabilities, operations, count, CALL) }?;
        if src_device_id == dst_device_id {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{CALL}: srcDeviceId must be different from dstDeviceId ({src_device_id})"
            );
        }
        self.device_checked(src_device_id)?;
        self.device_checked(dst_device_id)?;
        let dma = (vc::ACL_RT_ATOMIC_CAPABILITY_SIGNED
            | vc::ACL_RT_ATOMIC_CAPABILITY_SCALAR8
            | vc::ACL_RT_ATOMIC_CAPABILITY_SCALAR16
            | vc::ACL_RT_ATOMIC_CAPABILITY_SCALAR32) as u32;
        // SAFETY: as above.
        unsafe {
            answer_atomic_query(capabilities, &ops, CALL, |op| match i64::from(op) {
                vc::ACL_RT_ATOMIC_OPERATION_DMA_ADD
                | vc::ACL_RT_ATOMIC_OPERATION_DMA_MIN
                | vc::ACL_RT_ATOMIC_OPERATION_DMA_MAX => dma,
                _ => 0,
            })
        }
    }

    /// `aclrtDeviceEnablePeerAccess`: lets the current device access `peer_id`'s memory (one
    /// direction). `flags` must be 0; the peer must be another device; enabling twice is fine.
    pub fn device_enable_peer_access(&self, peer_id: i32, flags: u32) -> Result<()> {
        let from = self.peer_of_current(peer_id, "aclrtDeviceEnablePeerAccess")?;
        if flags != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtDeviceEnablePeerAccess: flags must be 0, not {flags:#x}"
            );
        }
        lock(&self.extras.peers).insert((from, peer_id));
        Ok(())
    }

    /// `aclrtDeviceDisablePeerAccess`: `107000` when it was not enabled.
    pub fn device_disable_peer_access(&self, peer_id: i32) -> Result<()> {
        let from = self.peer_of_current(peer_id, "aclrtDeviceDisablePeerAccess")?;
        if !lock(&self.extras.peers).remove(&(from, peer_id)) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtDeviceDisablePeerAccess: peer access from device {from} to device \
                 {peer_id} is not enabled"
            );
        }
        Ok(())
    }

    /// `aclrtDevicePeerAccessStatus`: 1 when `device_id` has enabled access to `peer_id`.
    /// Ids out of range are `107000`, as the vendor documents.
    pub fn device_peer_access_status(&self, device_id: i32, peer_id: i32) -> Result<i32> {
        for id in [device_id, peer_id] {
            if self.device(id).is_none() {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "aclrtDevicePeerAccessStatus: device id {id} is out of range: {} device(s) \
                     visible",
                    self.device_count()
                );
            }
        }
        Ok(i32::from(
            device_id != peer_id && self.extras.peer_enabled(device_id, peer_id),
        ))
    }

    /// The current device, checked against a peer id for the enable and disable calls.
    /// `aclrtMemP2PMap`: the devices share the host's coherent memory, so once device
    /// `dst_dev_id` may access the memory's device (`aclrtDeviceEnablePeerAccess` from it, as
    /// the vendor's reference requires first) there is no page table to fill and the call
    /// changes nothing. NULL `dev_ptr`, size 0 and non-zero `flags` are `100000`; an id out of
    /// range `107001`; a range that is not live device memory `107000` (overrunning its
    /// allocation or freed: `100000`, as a copy's check); without that peer access `207006`.
    /// It needs a current context.
    pub fn mem_p2p_map(
        &self,
        dev_ptr: usize,
        size: usize,
        dst_dev_id: i32,
        flags: u64,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemP2PMap";
        if dev_ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: devPtr is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: size is 0");
        }
        if flags != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: flags is reserved and must be 0, not {flags:#x}"
            );
        }
        self.device_checked(dst_dev_id)?;
        self.current_context()?;
        let owner = match self.memory.place_of(dev_ptr, "the mapped memory")? {
            Some(crate::memory::Place::Device(id)) => id,
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: devPtr {dev_ptr:#x} is not device memory"
            ),
        };
        self.memory
            .check_access(dev_ptr, size, "the mapped memory")?;
        if !self.extras.peer_enabled(dst_dev_id, owner) {
            bail!(
                ACL_ERROR_RT_NO_PERMISSION,
                "{CALL}: device {dst_dev_id} has no peer access to device {owner}, whose memory \
                 devPtr is (aclrtDeviceEnablePeerAccess first)"
            );
        }
        Ok(())
    }

    fn peer_of_current(&self, peer_id: i32, call: &str) -> Result<i32> {
        let from = self.current_context()?.device.id;
        self.device_checked(peer_id)?;
        if from == peer_id {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: device {peer_id} is the current device, not a peer"
            );
        }
        Ok(from)
    }
}

/// The SoC name now (see [`Runtime::get_soc_name`]).
pub(crate) fn soc_name() -> String {
    std::env::var(ENV_SOC_NAME)
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| EMULATED_SOC_NAME.to_owned())
}

/// The NPU architecture of the SoC the emulated device presents itself as.
fn npu_arch_of_soc() -> i64 {
    crate::soc_arch::npu_arch(&soc_name()).unwrap_or(EMULATED_NPU_ARCH)
}

impl Runtime {
    /// `aclrtCheckArchCompatibility`: whether operators built for `soc_version` run on the
    /// emulated chip — 1 when the two SoCs share an NPU architecture, else 0. An empty name or
    /// one the vendor's platform table does not know is `107000`.
    pub fn check_arch_compatibility(&self, soc_version: &str) -> Result<i32> {
        let Some(theirs) = crate::soc_arch::npu_arch(soc_version) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtCheckArchCompatibility: SoC version {soc_version:?} is invalid"
            );
        };
        Ok(i32::from(theirs == npu_arch_of_soc()))
    }
}

/// How the emulated machine numbers its devices: logical, user and physical ids coincide
/// (no `ASCEND_RT_VISIBLE_DEVICES` remapping, no containers).
impl Runtime {
    /// The id every mapping call answers for `id` (`from` names it in messages): itself when
    /// it names an emulated device; negative or out of range is `107001`.
    fn mapped_device_id(&self, id: i32, from: &str) -> Result<i32> {
        if id < 0 {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{from} device id {id} must be greater than or equal to 0"
            );
        }
        self.device_checked(id)?;
        Ok(id)
    }

    /// `aclrtGetUserDevIdByLogicDevId`.
    pub fn get_user_dev_id_by_logic_dev_id(&self, logic_id: i32) -> Result<i32> {
        self.mapped_device_id(logic_id, "logical")
    }

    /// `aclrtGetLogicDevIdByUserDevId`.
    pub fn get_logic_dev_id_by_user_dev_id(&self, user_id: i32) -> Result<i32> {
        self.mapped_device_id(user_id, "user")
    }

    /// `aclrtGetLogicDevIdByPhyDevId`.
    pub fn get_logic_dev_id_by_phy_dev_id(&self, phy_id: i32) -> Result<i32> {
        self.mapped_device_id(phy_id, "physical")
    }

    /// `aclrtGetPhyDevIdByLogicDevId`.
    pub fn get_phy_dev_id_by_logic_dev_id(&self, logic_id: i32) -> Result<i32> {
        self.mapped_device_id(logic_id, "logical")
    }

    /// `aclrtGetUserDevIdByPhyDevId`: as `aclrtGetLogicDevIdByPhyDevId`, which the vendor's
    /// runtime answers it with.
    pub fn get_user_dev_id_by_phy_dev_id(&self, phy_id: i32) -> Result<i32> {
        self.mapped_device_id(phy_id, "physical")
    }

    /// `aclrtGetPhyDevIdByUserDevId`: as `aclrtGetPhyDevIdByLogicDevId`, which the vendor's
    /// runtime answers it with.
    pub fn get_phy_dev_id_by_user_dev_id(&self, user_id: i32) -> Result<i32> {
        self.mapped_device_id(user_id, "user")
    }

    /// `aclrtGetPrimaryCtxState`: whether the device's default (primary) context exists — from
    /// its first `aclrtSetDevice` until the reset that releases it: 1 or 0. `flags` is a
    /// reserved output the caller must not pass (`with_flags`: `100000`).
    pub fn get_primary_ctx_state(&self, device_id: i32, with_flags: bool) -> Result<i32> {
        if with_flags {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtGetPrimaryCtxState: flags is a reserved parameter and must be NULL"
            );
        }
        let device = self.device_checked(device_id)?;
        let active = lock(self.binding(&device)).default_context.is_some();
        Ok(i32::from(active))
    }

    /// `aclrtDeviceGetBareTgid`: the process id the device knows the process by (its own,
    /// on the emulated device: no container namespace in between).
    pub fn device_get_bare_tgid(&self) -> Result<i32> {
        Ok(std::process::id() as i32)
    }
}

/// The checks of an atomic capability query that come before the devices' (NULL arrays and a
/// count of 0 are `107000`, as the vendor's); the operations asked about.
///
/// # Safety
/// `operations` is NULL or holds `count` entries.
unsafe fn atomic_query(
    capabilities: *mut u32,
    operations: *const u32,
    count: u32,
    call: &str,
) -> Result<Vec<u32>> {
    if capabilities.is_null() || operations.is_null() {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: {} is NULL",
            if capabilities.is_null() {
                "capabilities"
            } else {
                "operations"
            }
        );
    }
    if count == 0 {
        bail!(ACL_ERROR_RT_PARAM_INVALID, "{call}: count is 0");
    }
    // SAFETY: non-NULL, `count` entries (the caller's promise).
    Ok(unsafe { std::slice::from_raw_parts(operations, count as usize) }.to_vec())
}

/// Checks every operation (an `aclrtAtomicOperation` from `ACL_RT_ATOMIC_OPERATION_INTEGER_ADD`
/// to `..._SIMD_SCALAR_EXCH`, else `107000` with nothing written), then writes each one's
/// capability mask.
///
/// # Safety
/// `capabilities` holds `ops.len()` writable entries.
unsafe fn answer_atomic_query(
    capabilities: *mut u32,
    ops: &[u32],
    call: &str,
    mask: impl Fn(u32) -> u32,
) -> Result<()> {
    let last = vc::ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH as u32;
    if let Some((i, op)) = ops.iter().enumerate().find(|(_, &op)| op > last) {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: operations[{i}] is {}, not in [0, {last}]",
            *op as i32
        );
    }
    for (i, &op) in ops.iter().enumerate() {
        // SAFETY: `capabilities` holds `ops.len()` entries (the caller's promise).
        unsafe { capabilities.add(i).write(mask(op)) };
    }
    Ok(())
}
