//! Devices as CUDA describes them: ordinals, name, memory, UUID, PCI location and the
//! `CUdevice_attribute` values of the emulated device.
//!
//! The compute capability and multiprocessor count come from the runtime's [`Config`]
//! (`ACLRT_CUDA_COMPUTE_CAPABILITY`, `ACLRT_CUDA_SM_COUNT`), the memory size from its device
//! memory. Other attributes describe a device of that capability with host-backed memory: unified
//! addressing, mapped and managed memory, host-native atomics and pageable access are all
//! true (device memory *is* host memory); textures, surfaces, memory pools, virtual memory
//! management, IPC and interop are not there (0).
//!
//! [`Config`]: crate::Config

use super::api::{cu, fail, CuDevice};
use super::codes::*;
use super::CuResultOf;
use crate::runtime::Runtime;

/// The driver version `cuDriverGetVersion` reports: CUDA 12.9.
pub const DRIVER_VERSION: i32 = 12090;

/// The name every emulated device reports.
pub const DEVICE_NAME: &str = "aclrt emulated device";

/// `CU_DEVICE_ATTRIBUTE_MAX` of the CUDA 12 headers: attributes are 1 to this, exclusive.
pub const CU_DEVICE_ATTRIBUTE_MAX: i32 = 144;

/// Dynamic shared memory a block may opt in to (`..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
pub const MAX_SHARED_PER_BLOCK_OPTIN: i32 = 166_912;
/// Shared memory per block without opting in.
pub const MAX_SHARED_PER_BLOCK: i32 = 49_152;
/// Shared memory per multiprocessor.
pub const MAX_SHARED_PER_SM: i32 = 167_936;
/// Threads per block.
pub const MAX_THREADS_PER_BLOCK: i32 = 1024;
/// Resident threads per multiprocessor.
pub const MAX_THREADS_PER_SM: i32 = 2048;
/// Resident blocks per multiprocessor.
pub const MAX_BLOCKS_PER_SM: i32 = 32;
/// Block dimensions.
pub const MAX_BLOCK_DIM: [i32; 3] = [1024, 1024, 64];
/// Grid dimensions.
pub const MAX_GRID_DIM: [i32; 3] = [i32::MAX, 65_535, 65_535];

fn check_device(rt: &Runtime, dev: CuDevice, call: &str) -> CuResultOf<()> {
    if rt.device(dev).is_none() {
        return fail(
            CUDA_ERROR_INVALID_DEVICE,
            format!(
                "{call}: device {dev} does not exist ({} device(s))",
                rt.device_count()
            ),
        );
    }
    Ok(())
}

/// `cuDriverGetVersion`: [`DRIVER_VERSION`]; needs no initialisation.
pub fn driver_get_version() -> i32 {
    DRIVER_VERSION
}

/// `cuDeviceGet`.
pub fn device_get(ordinal: i32) -> CuResultOf<CuDevice> {
    cu(|rt| {
        check_device(rt, ordinal, "cuDeviceGet")?;
        Ok(ordinal)
    })
}

/// `cuDeviceGetCount`.
pub fn device_get_count() -> CuResultOf<i32> {
    cu(|rt| Ok(rt.device_count() as i32))
}

/// `cuDeviceGetName`.
pub fn device_get_name(dev: CuDevice) -> CuResultOf<&'static str> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceGetName")?;
        Ok(DEVICE_NAME)
    })
}

/// `cuDeviceTotalMem`: the device's memory capacity in bytes.
pub fn device_total_mem(dev: CuDevice) -> CuResultOf<usize> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceTotalMem")?;
        Ok(rt.device(dev).map_or(0, |d| d.memory_capacity as usize))
    })
}

/// `cuDeviceGetUuid`: 16 bytes, stable per ordinal (a version 4 UUID layout whose last bytes
/// spell the ordinal).
pub fn device_get_uuid(dev: CuDevice) -> CuResultOf<[u8; 16]> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceGetUuid")?;
        let mut uuid = *b"aclrt-emu\x40\x00\x80\x00\x00\x00\x00";
        uuid[12..16].copy_from_slice(&(dev as u32).to_be_bytes());
        Ok(uuid)
    })
}

/// The PCI bus of a device: ordinal + 1 on domain 0, device 0, function 0.
fn pci_bus(dev: CuDevice) -> i32 {
    dev + 1
}

/// `cuDeviceGetPCIBusId`: `"0000:BB:00.0"`.
pub fn device_get_pci_bus_id(dev: CuDevice) -> CuResultOf<String> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceGetPCIBusId")?;
        Ok(format!("0000:{:02x}:00.0", pci_bus(dev)))
    })
}

/// `cuDeviceGetByPCIBusId`: accepts `[domain:]bus:device.function` in hex, as CUDA does.
pub fn device_get_by_pci_bus_id(id: &str) -> CuResultOf<CuDevice> {
    cu(|rt| {
        let parsed = parse_pci(id);
        match parsed {
            Some((0, bus, 0, 0)) if bus >= 1 && rt.device(bus - 1).is_some() => Ok(bus - 1),
            Some(_) => fail(
                CUDA_ERROR_INVALID_DEVICE,
                format!("cuDeviceGetByPCIBusId: no device at {id:?}"),
            ),
            None => fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuDeviceGetByPCIBusId: {id:?} is not a PCI bus id"),
            ),
        }
    })
}

fn parse_pci(id: &str) -> Option<(i32, i32, i32, i32)> {
    let (head, function) = id.rsplit_once('.')?;
    let parts: Vec<&str> = head.split(':').collect();
    let (domain, bus, device) = match parts.as_slice() {
        [d, b, v] => (*d, *b, *v),
        [b, v] => ("0", *b, *v),
        _ => return None,
    };
    let hex = |s: &str| i32::from_str_radix(s.trim(), 16).ok();
    Some((hex(domain)?, hex(bus)?, hex(device)?, hex(function)?))
}

/// `cuDeviceComputeCapability`: (major, minor) from the configuration.
pub fn device_compute_capability(dev: CuDevice) -> CuResultOf<(i32, i32)> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceComputeCapability")?;
        let (major, minor) = rt.config.compute_capability;
        Ok((major as i32, minor as i32))
    })
}

/// `cuDeviceGetAttribute`: the value of a `CUdevice_attribute`; `CUDA_ERROR_INVALID_VALUE` for
/// a number that is not one.
pub fn device_get_attribute(attribute: i32, dev: CuDevice) -> CuResultOf<i32> {
    cu(|rt| {
        check_device(rt, dev, "cuDeviceGetAttribute")?;
        match attribute_value(rt, attribute, dev) {
            Some(v) => Ok(v),
            None => fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuDeviceGetAttribute: {attribute} is not a CUdevice_attribute"),
            ),
        }
    })
}

fn attribute_value(rt: &Runtime, attribute: i32, dev: CuDevice) -> Option<i32> {
    let (major, minor) = rt.config.compute_capability;
    let sms = rt.config.multiprocessor_count.min(i32::MAX as u32) as i32;
    Some(match attribute {
        1 => MAX_THREADS_PER_BLOCK,
        2..=4 => MAX_BLOCK_DIM[(attribute - 2) as usize],
        5..=7 => MAX_GRID_DIM[(attribute - 5) as usize],
        8 => MAX_SHARED_PER_BLOCK,
        9 => 65_536,        // TOTAL_CONSTANT_MEMORY
        10 => 32,           // WARP_SIZE
        11 => i32::MAX,     // MAX_PITCH
        12 => 65_536,       // MAX_REGISTERS_PER_BLOCK
        13 => 1_410_000,    // CLOCK_RATE (kHz)
        14 => 512,          // TEXTURE_ALIGNMENT
        15 => 1,            // GPU_OVERLAP
        16 => sms,          // MULTIPROCESSOR_COUNT
        17 => 0,            // KERNEL_EXEC_TIMEOUT
        18 => 0,            // INTEGRATED
        19 => 1,            // CAN_MAP_HOST_MEMORY
        20 => 0,            // COMPUTE_MODE: default
        21..=29 => 0,       // textures
        30 => 512,          // SURFACE_ALIGNMENT
        31 => 1,            // CONCURRENT_KERNELS
        32 => 0,            // ECC_ENABLED
        33 => pci_bus(dev), // PCI_BUS_ID
        34 => 0,            // PCI_DEVICE_ID
        35 => 0,            // TCC_DRIVER
        36 => 1_215_000,    // MEMORY_CLOCK_RATE (kHz)
        37 => 5120,         // GLOBAL_MEMORY_BUS_WIDTH
        38 => 40 << 20,     // L2_CACHE_SIZE
        39 => MAX_THREADS_PER_SM,
        40 => 2,      // ASYNC_ENGINE_COUNT
        41 => 1,      // UNIFIED_ADDRESSING
        42..=49 => 0, // textures
        50 => 0,      // PCI_DOMAIN_ID
        51 => 32,     // TEXTURE_PITCH_ALIGNMENT
        52..=74 => 0, // textures and surfaces
        75 => major as i32,
        76 => minor as i32,
        77 => 0,      // MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH
        78 => 1,      // STREAM_PRIORITIES_SUPPORTED
        79 | 80 => 1, // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
        81 => MAX_SHARED_PER_SM,
        82 => 65_536, // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 1,      // MANAGED_MEMORY
        84 | 85 => 0, // MULTI_GPU_BOARD(_GROUP_ID)
        86 => 1,      // HOST_NATIVE_ATOMIC_SUPPORTED
        87 => 2,      // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        88 => 1,      // PAGEABLE_MEMORY_ACCESS
        89 => 1,      // CONCURRENT_MANAGED_ACCESS
        90 => 1,      // COMPUTE_PREEMPTION_SUPPORTED
        91 => 1,      // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        92..=94 => 1, // stream memory operations (cuStreamWaitValue32 …), 64-bit ones, NOR
        95 => 1,      // COOPERATIVE_LAUNCH
        96 => 0,      // COOPERATIVE_MULTI_DEVICE_LAUNCH
        97 => MAX_SHARED_PER_BLOCK_OPTIN,
        98 => 1,        // CAN_FLUSH_REMOTE_WRITES: memory is coherent (see mem_op.rs)
        99 => 1,        // HOST_REGISTER_SUPPORTED
        100 => 1,       // PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
        101 => 1,       // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
        102..=105 => 0, // virtual memory management, shareable handles
        106 => MAX_BLOCKS_PER_SM,
        107 => 0,       // GENERIC_COMPRESSION_SUPPORTED
        108 | 109 => 0, // persisting L2, access policy window
        110 => 0,       // GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
        111 => 0,       // RESERVED_SHARED_MEMORY_PER_BLOCK
        112 => 0,       // SPARSE_CUDA_ARRAY_SUPPORTED
        113 => 1,       // READ_ONLY_HOST_REGISTER_SUPPORTED
        114 => 0,       // TIMELINE_SEMAPHORE_INTEROP_SUPPORTED
        115 => 1,       // MEMORY_POOLS_SUPPORTED
        116..=119 => 0, // RDMA, pool handle types
        120 => 0,       // CLUSTER_LAUNCH
        121 => 0,       // DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED
        122 | 123 => 1, // 64-bit stream memory operations, wait value NOR
        124 => 0,       // DMA_BUF_SUPPORTED
        125 => 0,       // IPC_EVENT_SUPPORTED
        126 => 0,       // MEM_SYNC_DOMAIN_COUNT
        127 => 0,       // TENSOR_MAP_ACCESS_SUPPORTED
        128 => 0,       // HANDLE_TYPE_FABRIC_SUPPORTED
        129 => 0,       // UNIFIED_FUNCTION_POINTERS
        130 => -1,      // NUMA_CONFIG: none
        131 => -1,      // NUMA_ID
        132 => 0,       // MULTICAST_SUPPORTED
        133 => 0,       // MPS_ENABLED
        134 => -1,      // HOST_NUMA_ID
        135 => 0,       // D3D12_CIG_SUPPORTED
        136..=143 => 0, // decompression, Vulkan CIG, PCI ids of the GPU, host NUMA
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_ids_parse_with_or_without_domain() {
        assert_eq!(parse_pci("0000:01:00.0"), Some((0, 1, 0, 0)));
        assert_eq!(parse_pci("0a:00.0"), Some((0, 10, 0, 0)));
        assert_eq!(parse_pci("nonsense"), None);
        assert_eq!(parse_pci("1:2:3:4.0"), None);
    }
}
