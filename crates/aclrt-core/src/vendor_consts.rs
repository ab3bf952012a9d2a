//! Every other named value of the vendor's runtime headers: the enumerators and `#define`
//! values of `acl_base_rt.h` and `acl_rt.h` that [`consts`](crate::consts) does not carry
//! (that module holds the ones this runtime acts on).
//!
//! Most name features the emulated device does not have (counting notifies, virtual memory,
//! kernel binaries, model run instances, ...); they are here so Rust code can name every value a C
//! program can, and so the C headers can be checked against them. Each is a `pub const` of
//! type `i64` (the C types vary: `int` enumerators, `unsigned` and `unsigned long` macros);
//! [`ALL`] lists them once and [`GROUPS`] per C enum type or `#define` family, in header order.

/// How a group is spelled in the C header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Enumerators of an enum type (the C name is the type, or `enum tag` when untypedef'd).
    Enum,
    /// A family of object-like `#define`s (the C name is only a label).
    Define,
}

/// One C enum type or `#define` family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The header that declares it (under `include/acl/`).
    pub header: &'static str,
    /// Whether the header spells the group as an enum or as macros.
    pub kind: Kind,
    /// The C enum type name, or a label for a `#define` family.
    pub c_name: &'static str,
    /// `(name, value)` of every member, in header order.
    pub members: &'static [(&'static str, i64)],
}

/// Declares the constants, [`ALL`] and [`GROUPS`] from one list.
macro_rules! vendor_consts {
    ($( $header:literal $kind:ident $cname:literal { $($name:ident = $value:literal,)* } )*) => {
        $($(
            #[doc = concat!("`", stringify!($name), "`: ", $cname, " in `", $header, "`.")]
            pub const $name: i64 = $value;
        )*)*

        /// Every constant of this module as `(C name, value)`, in header order.
        pub static ALL: &[(&str, i64)] = &[ $($( (stringify!($name), $name), )*)* ];

        /// The constants per C enum type or `#define` family, in header order.
        pub static GROUPS: &[Group] = &[
            $(
                Group {
                    header: $header,
                    kind: Kind::$kind,
                    c_name: $cname,
                    members: &[ $( (stringify!($name), $name), )* ],
                },
            )*
        ];
    };
}

vendor_consts! {
    "acl_base_rt.h" Enum "aclDataType" {
        ACL_DT_UNDEFINED = -1,
        ACL_FLOAT = 0,
        ACL_FLOAT16 = 1,
        ACL_INT8 = 2,
        ACL_INT32 = 3,
        ACL_UINT8 = 4,
        ACL_INT16 = 6,
        ACL_UINT16 = 7,
        ACL_UINT32 = 8,
        ACL_INT64 = 9,
        ACL_UINT64 = 10,
        ACL_DOUBLE = 11,
        ACL_BOOL = 12,
        ACL_STRING = 13,
        ACL_COMPLEX64 = 16,
        ACL_COMPLEX128 = 17,
        ACL_BF16 = 27,
        ACL_INT4 = 29,
        ACL_UINT1 = 30,
        ACL_COMPLEX32 = 33,
        ACL_HIFLOAT8 = 34,
        ACL_FLOAT8_E5M2 = 35,
        ACL_FLOAT8_E4M3FN = 36,
        ACL_FLOAT8_E8M0 = 37,
        ACL_FLOAT6_E3M2 = 38,
        ACL_FLOAT6_E2M3 = 39,
        ACL_FLOAT4_E2M1 = 40,
        ACL_FLOAT4_E1M2 = 41,
    }

    "acl_base_rt.h" Enum "aclFormat" {
        ACL_FORMAT_UNDEFINED = -1,
        ACL_FORMAT_NCHW = 0,
        ACL_FORMAT_NHWC = 1,
        ACL_FORMAT_ND = 2,
        ACL_FORMAT_NC1HWC0 = 3,
        ACL_FORMAT_FRACTAL_Z = 4,
        ACL_FORMAT_NC1HWC0_C04 = 12,
        ACL_FORMAT_HWCN = 16,
        ACL_FORMAT_NDHWC = 27,
        ACL_FORMAT_FRACTAL_NZ = 29,
        ACL_FORMAT_NCDHW = 30,
        ACL_FORMAT_NDC1HWC0 = 32,
        ACL_FRACTAL_Z_3D = 33,
        ACL_FORMAT_NC = 35,
        ACL_FORMAT_NCL = 47,
        ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
        ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
        ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
        ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
        ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
    }

    "acl_base_rt.h" Enum "aclLogLevel" {
        ACL_DEBUG = 0,
        ACL_INFO = 1,
        ACL_WARNING = 2,
        ACL_ERROR = 3,
    }

    "acl_base_rt.h" Enum "aclMemType" {
        ACL_MEMTYPE_DEVICE = 0,
        ACL_MEMTYPE_HOST = 1,
        ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2,
    }

    "acl_base_rt.h" Enum "aclSysParamOpt" {
        ACL_OPT_DETERMINISTIC = 0,
        ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
        ACL_OPT_STRONG_CONSISTENCY = 2,
        ACL_OPT_ENABLE_KERNEL_EARLY_START = 3,
    }

    "acl_base_rt.h" Enum "aclCannAttr" {
        ACL_CANN_ATTR_UNDEFINED = -1,
        ACL_CANN_ATTR_INF_NAN = 0,
        ACL_CANN_ATTR_BF16 = 1,
        ACL_CANN_ATTR_JIT_COMPILE = 2,
    }

    "acl_base_rt.h" Enum "aclDeviceInfo" {
        ACL_DEVICE_INFO_UNDEFINED = -1,
        ACL_DEVICE_INFO_AI_CORE_NUM = 0,
        ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
        ACL_DEVICE_INFO_L2_SIZE = 2,
    }

    "acl_rt.h" Define "ACL_STREAM_WAIT_VALUE_*" {
        ACL_STREAM_WAIT_VALUE_GEQ = 0,
        ACL_STREAM_WAIT_VALUE_EQ = 1,
        ACL_STREAM_WAIT_VALUE_AND = 2,
        ACL_STREAM_WAIT_VALUE_NOR = 3,
    }

    "acl_rt.h" Define "ACL_NOTIFY_*" {
        ACL_NOTIFY_DEFAULT = 0,
        ACL_NOTIFY_DEVICE_USE_ONLY = 1,
    }

    "acl_rt.h" Define "ACL_DEV_FEATURE_*" {
        ACL_DEV_FEATURE_SUPPORT = 1,
        ACL_DEV_FEATURE_NOT_SUPPORT = 0,
    }

    "acl_rt.h" Define "ACL_RT_NOTIFY_EXPORT_FLAG_*" {
        ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT = 0,
        ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION = 2,
    }

    "acl_rt.h" Define "ACL_RT_NOTIFY_IMPORT_FLAG_*" {
        ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT = 0,
        ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS = 2,
    }

    "acl_rt.h" Define "ACL_RT_IPC_MEM_EXPORT_FLAG_*" {
        ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT = 0,
        ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 1,
    }

    "acl_rt.h" Define "ACL_RT_IPC_MEM_IMPORT_FLAG_*" {
        ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT = 0,
        ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS = 1,
    }

    "acl_rt.h" Define "ACL_RT_VMM_EXPORT_FLAG_*" {
        ACL_RT_VMM_EXPORT_FLAG_DEFAULT = 0,
        ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 1,
    }

    "acl_rt.h" Define "ACL_HOST_REG_*" {
        ACL_HOST_REG_MAPPED = 2,
        ACL_HOST_REG_IOMEMORY = 4,
        ACL_HOST_REG_READONLY = 8,
        ACL_HOST_REG_PINNED = 268435456,
    }

    "acl_rt.h" Define "ACL_MDLRI_DEBUG_JSON_PRINT_*" {
        ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY = 0,
        ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE = 1,
    }

    "acl_rt.h" Define "ACL_RT_MAX_RECORD_PA_NUM_PER_DEV" {
        ACL_RT_MAX_RECORD_PA_NUM_PER_DEV = 20,
    }

    "acl_rt.h" Define "ACL_IPC_EVENT_HANDLE_SIZE" {
        ACL_IPC_EVENT_HANDLE_SIZE = 64,
    }

    "acl_rt.h" Define "ACL_RT_MEM_ATTACH_GLOBAL" {
        ACL_RT_MEM_ATTACH_GLOBAL = 1,
    }

    "acl_rt.h" Define "ACL_RT_MEM_LINK_IDX_*" {
        ACL_RT_MEM_LINK_IDX_0 = 0,
        ACL_RT_MEM_LINK_IDX_1 = 1,
    }

    "acl_rt.h" Define "ACL_HOST_DEVICE_CONNECT_TYPE_*" {
        ACL_HOST_DEVICE_CONNECT_TYPE_PCIE = 0,
        ACL_HOST_DEVICE_CONNECT_TYPE_HCCS = 1,
        ACL_HOST_DEVICE_CONNECT_TYPE_UB = 2,
    }

    "acl_rt.h" Define "ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_*" {
        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO = 0,
        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS = 1,
        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_ONE_PORT_PATH = 2,
        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH = 3,
    }

    "acl_rt.h" Define "MAX_MEM_UCE_INFO_ARRAY_SIZE, UCE_INFO_RESERVED_SIZE" {
        MAX_MEM_UCE_INFO_ARRAY_SIZE = 128,
        UCE_INFO_RESERVED_SIZE = 14,
    }

    "acl_rt.h" Define "ACL_RT_MEM_UCE_INFO_MAX_NUM" {
        ACL_RT_MEM_UCE_INFO_MAX_NUM = 20,
    }

    "acl_rt.h" Define "ACL_RT_BINARY_MAGIC_ELF_*" {
        ACL_RT_BINARY_MAGIC_ELF_AICORE = 1129660997,
        ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE = 1094799942,
        ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE = 1095320387,
    }

    "acl_rt.h" Define "ACL_DEVICE_FORM_FACTOR_*" {
        ACL_DEVICE_FORM_FACTOR_POD = 0,
        ACL_DEVICE_FORM_FACTOR_A_K = 1,
        ACL_DEVICE_FORM_FACTOR_A_X = 2,
        ACL_DEVICE_FORM_FACTOR_PCIE_CARD = 3,
    }

    "acl_rt.h" Define "ACL_RT_CMO_MAX_BARRIER_NUM" {
        ACL_RT_CMO_MAX_BARRIER_NUM = 6,
    }

    "acl_rt.h" Define "ACL_RT_DEVS_TOPOLOGY_*" {
        ACL_RT_DEVS_TOPOLOGY_HCCS = 1,
        ACL_RT_DEVS_TOPOLOGY_PIX = 2,
        ACL_RT_DEVS_TOPOLOGY_PIB = 4,
        ACL_RT_DEVS_TOPOLOGY_PHB = 8,
        ACL_RT_DEVS_TOPOLOGY_SYS = 16,
        ACL_RT_DEVS_TOPOLOGY_SIO = 32,
        ACL_RT_DEVS_TOPOLOGY_HCCS_SW = 64,
    }

    "acl_rt.h" Define "ACL_RT_MEM_TYPE_*" {
        ACL_RT_MEM_TYPE_DEV = 2,
        ACL_RT_MEM_TYPE_DVPP = 8,
        ACL_RT_MEM_TYPE_RSVD = 16,
    }

    "acl_rt.h" Define "ACL_PKG_VERSION_*" {
        ACL_PKG_VERSION_MAX_SIZE = 128,
        ACL_PKG_VERSION_PARTS_MAX_SIZE = 64,
    }

    "acl_rt.h" Enum "aclrtTsId" {
        ACL_TS_ID_AICORE = 0,
        ACL_TS_ID_AIVECTOR = 1,
        ACL_TS_ID_RESERVED = 2,
    }

    "acl_rt.h" Enum "aclrtMemManagedAdviseType" {
        ACL_MEM_ADVISE_SET_READ_MOSTLY = 0,
        ACL_MEM_ADVISE_UNSET_READ_MOSTLY = 1,
        ACL_MEM_ADVISE_SET_PREFERRED_LOCATION = 2,
        ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 3,
        ACL_MEM_ADVISE_SET_ACCESSED_BY = 4,
        ACL_MEM_ADVISE_UNSET_ACCESSED_BY = 5,
    }

    "acl_rt.h" Enum "aclrtMemManagedLocationType" {
        ACL_MEM_LOCATIONTYPE_INVALID = 0,
        ACL_MEM_LOCATIONTYPE_DEVICE = 1,
        ACL_MEM_LOCATIONTYPE_HOST = 2,
        ACL_MEM_LOCATIONTYPE_HOST_NUMA = 3,
        ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT = 4,
    }

    "acl_rt.h" Enum "aclrtHostRegisterType" {
        ACL_HOST_REGISTER_MAPPED = 0,
        ACL_HOST_REGISTER_IOMEMORY = 4,
        ACL_HOST_REGISTER_READONLY = 8,
    }

    "acl_rt.h" Enum "aclrtMallocAttrType" {
        ACL_RT_MEM_ATTR_RSV = 0,
        ACL_RT_MEM_ATTR_MODULE_ID = 1,
        ACL_RT_MEM_ATTR_DEVICE_ID = 2,
        ACL_RT_MEM_ATTR_VA_FLAG = 3,
    }

    "acl_rt.h" Enum "enum aclrtMemPgType" {
        NORMAL_PAGE_TYPE = 0,
        HUGE_PAGE_TYPE = 1,
        HUGE1G_PAGE_TYPE = 2,
    }

    "acl_rt.h" Enum "enum aclrtMemType" {
        HBM_TYPE = 0,
        DDR_TYPE = 1,
        P2P_HBM_TYPE = 2,
        P2P_DDR_TYPE = 3,
    }

    "acl_rt.h" Enum "aclrtIpcMemAttrType" {
        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK = 0,
    }

    "acl_rt.h" Enum "aclrtGroupAttr" {
        ACL_GROUP_AICORE_INT = 0,
        ACL_GROUP_AIV_INT = 1,
        ACL_GROUP_AIC_INT = 2,
        ACL_GROUP_SDMANUM_INT = 3,
        ACL_GROUP_ASQNUM_INT = 4,
        ACL_GROUP_GROUPID_INT = 5,
    }

    "acl_rt.h" Enum "aclrtFloatOverflowMode" {
        ACL_RT_OVERFLOW_MODE_SATURATION = 0,
        ACL_RT_OVERFLOW_MODE_INFNAN = 1,
        ACL_RT_OVERFLOW_MODE_UNDEF = 2,
    }

    "acl_rt.h" Enum "aclrtStreamConfigAttr" {
        ACL_RT_STREAM_WORK_ADDR_PTR = 0,
        ACL_RT_STREAM_WORK_SIZE = 1,
        ACL_RT_STREAM_FLAG = 2,
        ACL_RT_STREAM_PRIORITY = 3,
    }

    "acl_rt.h" Enum "aclrtMemLocationType" {
        ACL_MEM_LOCATION_TYPE_HOST = 0,
        ACL_MEM_LOCATION_TYPE_DEVICE = 1,
        ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
        ACL_MEM_LOCATION_TYPE_MANAGED = 3,
        ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
    }

    "acl_rt.h" Enum "aclrtMemManagedRangeAttribute" {
        ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
        ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE = 4,
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID = 5,
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 6,
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8,
    }

    "acl_rt.h" Enum "aclrtMemAllocationType" {
        ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
    }

    "acl_rt.h" Enum "aclrtMemHandleType" {
        ACL_MEM_HANDLE_TYPE_NONE = 0,
        ACL_MEM_HANDLE_TYPE_POSIX = 2,
    }

    "acl_rt_memory_soma.h" Enum "aclrtMemPoolAttr" {
        ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
        ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC = 2,
        ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
        ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD = 4,
        ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT = 5,
        ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH = 6,
        ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT = 7,
        ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH = 8,
    }

    "acl_rt.h" Enum "aclrtMemSharedHandleType" {
        ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 1,
        ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 2,
    }

    "acl_rt.h" Enum "aclrtMemGranularityOptions" {
        ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
        ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
        ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 65535,
    }

    "acl_rt.h" Enum "aclrtDeviceStatus" {
        ACL_RT_DEVICE_STATUS_NORMAL = 0,
        ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
        ACL_RT_DEVICE_STATUS_END = 65535,
    }

    "acl_rt.h" Enum "aclmdlRICaptureMode" {
        ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
        ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,
        ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2,
    }

    "acl_rt.h" Enum "aclmdlRICaptureStatus" {
        ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
        ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
        ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2,
    }

    "acl_rt.h" Enum "aclrtErrorType" {
        ACL_RT_NO_ERROR = 0,
        ACL_RT_ERROR_MEMORY = 1,
        ACL_RT_ERROR_L2 = 2,
        ACL_RT_ERROR_AICORE = 3,
        ACL_RT_ERROR_LINK = 4,
        ACL_RT_ERROR_L3_PORT = 5,
        ACL_RT_ERROR_OTHERS = 65535,
    }

    "acl_rt.h" Enum "aclrtAicoreErrorType" {
        ACL_RT_AICORE_ERROR_UNKNOWN = 0,
        ACL_RT_AICORE_ERROR_SW = 1,
        ACL_RT_AICORE_ERROR_HW_LOCAL = 2,
    }

    "acl_rt.h" Enum "aclrtCmoType" {
        ACL_RT_CMO_TYPE_PREFETCH = 0,
        ACL_RT_CMO_TYPE_WRITEBACK = 1,
        ACL_RT_CMO_TYPE_INVALID = 2,
        ACL_RT_CMO_TYPE_FLUSH = 3,
    }

    "acl_rt.h" Enum "aclrtBinaryLoadOptionType" {
        ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
        ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
        ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
        ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,
    }

    "acl_rt.h" Enum "aclrtEngineType" {
        ACL_RT_ENGINE_TYPE_AIC = 0,
        ACL_RT_ENGINE_TYPE_AIV = 1,
    }

    "acl_rt.h" Enum "aclrtLaunchKernelAttrId" {
        ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,
        ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE = 2,
        ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,
        ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,
        ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,
        ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,
        ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,
        ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,
        ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,
        ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9,
    }

    "acl_rt.h" Enum "aclrtStreamAttr" {
        ACL_STREAM_ATTR_FAILURE_MODE = 1,
        ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
        ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3,
        ACL_STREAM_ATTR_CACHE_OP_INFO = 4,
        ACL_STREAM_ATTR_PRIORITY = 5,
    }

    "acl_rt.h" Enum "aclmdlRITaskType" {
        ACL_MODEL_RI_TASK_DEFAULT = 0,
        ACL_MODEL_RI_TASK_KERNEL = 1,
        ACL_MODEL_RI_TASK_EVENT_RECORD = 2,
        ACL_MODEL_RI_TASK_EVENT_WAIT = 3,
        ACL_MODEL_RI_TASK_EVENT_RESET = 4,
        ACL_MODEL_RI_TASK_VALUE_WRITE = 5,
        ACL_MODEL_RI_TASK_VALUE_WAIT = 6,
    }

    "acl_rt.h" Enum "aclrtDevAttr" {
        ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
        ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
        ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
        ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
        ACL_DEV_ATTR_WARP_SIZE = 202,
        ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
        ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE = 204,
        ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
        ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
        ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
        ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
        ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
        ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
        ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
        ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
        ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
        ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
        ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
        ACL_DEV_ATTR_SMP_ID = 401,
        ACL_DEV_ATTR_PHY_CHIP_ID = 402,
        ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403,
        ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403,
        ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404,
        ACL_DEV_ATTR_SUPER_POD_ID = 405,
        ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406,
        ACL_DEV_ATTR_MAINBOARD_ID = 407,
        ACL_DEV_ATTR_HD_CONNECT_TYPE = 408,
        ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409,
        ACL_DEV_ATTR_IS_VIRTUAL = 501,
        ACL_DEV_ATTR_NPU_ARCH = 601,
    }

    "acl_rt.h" Enum "aclrtDevFeatureType" {
        ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
        ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
    }

    "acl_rt.h" Enum "aclrtReduceKind" {
        ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
        ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
        ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
        ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
    }

    "acl_rt.h" Enum "aclrtDevResLimitType" {
        ACL_RT_DEV_RES_CUBE_CORE = 0,
        ACL_RT_DEV_RES_VECTOR_CORE = 1,
    }

    "acl_rt.h" Enum "aclrtCondition" {
        ACL_RT_EQUAL = 0,
        ACL_RT_NOT_EQUAL = 1,
        ACL_RT_GREATER = 2,
        ACL_RT_GREATER_OR_EQUAL = 3,
        ACL_RT_LESS = 4,
        ACL_RT_LESS_OR_EQUAL = 5,
    }

    "acl_rt.h" Enum "aclrtCompareDataType" {
        ACL_RT_SWITCH_INT32 = 0,
        ACL_RT_SWITCH_INT64 = 1,
    }

    "acl_rt.h" Enum "aclrtRandomNumFuncType" {
        ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
        ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS = 1,
        ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS = 2,
        ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS = 3,
    }

    "acl_rt.h" Enum "aclrtDeviceTaskAbortStage" {
        ACL_RT_DEVICE_TASK_ABORT_PRE = 0,
        ACL_RT_DEVICE_TASK_ABORT_POST = 1,
    }

    "acl_rt.h" Enum "aclrtUpdateTaskAttrId" {
        ACL_RT_UPDATE_RANDOM_TASK = 1,
        ACL_RT_UPDATE_AIC_AIV_TASK = 2,
    }

    "acl_rt.h" Enum "aclrtDeviceState" {
        ACL_RT_DEVICE_STATE_SET_PRE = 0,
        ACL_RT_DEVICE_STATE_SET_POST = 1,
        ACL_RT_DEVICE_STATE_RESET_PRE = 2,
        ACL_RT_DEVICE_STATE_RESET_POST = 3,
    }

    "acl_rt.h" Enum "aclrtSnapShotStage" {
        ACL_RT_SNAPSHOT_LOCK_PRE = 0,
        ACL_RT_SNAPSHOT_BACKUP_PRE = 1,
        ACL_RT_SNAPSHOT_BACKUP_POST = 2,
        ACL_RT_SNAPSHOT_RESTORE_PRE = 3,
        ACL_RT_SNAPSHOT_RESTORE_POST = 4,
        ACL_RT_SNAPSHOT_UNLOCK_POST = 5,
    }

    "acl_rt.h" Enum "aclrtStreamState" {
        ACL_RT_STREAM_STATE_CREATE_POST = 1,
        ACL_RT_STREAM_STATE_DESTROY_PRE = 2,
    }

    "acl_rt.h" Enum "aclrtFuncAttribute" {
        ACL_FUNC_ATTR_KERNEL_TYPE = 1,
        ACL_FUNC_ATTR_KERNEL_RATIO = 2,
        ACL_FUNC_ATTR_KERNEL_SCHED_MODE = 3,
    }

    "acl_rt.h" Enum "aclrtKernelType" {
        ACL_KERNEL_TYPE_AICORE = 0,
        ACL_KERNEL_TYPE_CUBE = 1,
        ACL_KERNEL_TYPE_VECTOR = 2,
        ACL_KERNEL_TYPE_MIX = 3,
        ACL_KERNEL_TYPE_AICPU = 100,
    }

    "acl_rt.h" Enum "aclrtCntNotifyRecordMode" {
        ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE = 0,
        ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE = 1,
        ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE = 2,
        ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE = 4,
    }

    "acl_rt.h" Enum "aclrtCntNotifyWaitMode" {
        ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE = 0,
        ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE = 1,
        ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE = 2,
        ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE = 3,
        ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE = 4,
    }

    "acl_rt.h" Enum "aclrtMemAccessFlags" {
        ACL_RT_MEM_ACCESS_FLAGS_NONE = 0,
        ACL_RT_MEM_ACCESS_FLAGS_READ = 1,
        ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 3,
    }

    "acl_rt.h" Enum "aclCANNPackageName" {
        ACL_PKG_NAME_CANN = 0,
        ACL_PKG_NAME_RUNTIME = 1,
        ACL_PKG_NAME_COMPILER = 2,
        ACL_PKG_NAME_HCCL = 3,
        ACL_PKG_NAME_TOOLKIT = 4,
        ACL_PKG_NAME_OPP = 5,
        ACL_PKG_NAME_OPP_KERNEL = 6,
        ACL_PKG_NAME_DRIVER = 7,
    }

    "acl_rt.h" Enum "aclrtHacType" {
        ACL_RT_HAC_TYPE_STARS = 0,
        ACL_RT_HAC_TYPE_AICPU = 1,
        ACL_RT_HAC_TYPE_AIC = 2,
        ACL_RT_HAC_TYPE_AIV = 3,
        ACL_RT_HAC_TYPE_PCIEDMA = 4,
        ACL_RT_HAC_TYPE_RDMA = 5,
        ACL_RT_HAC_TYPE_SDMA = 6,
        ACL_RT_HAC_TYPE_DVPP = 7,
        ACL_RT_HAC_TYPE_UDMA = 8,
        ACL_RT_HAC_TYPE_CCU = 9,
    }

    "acl_rt.h" Enum "aclrtHostMemMapCapability" {
        ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED = 0,
        ACL_RT_HOST_MEM_MAP_SUPPORTED = 1,
    }

    "acl_rt.h" Enum "aclrtMemLinkType" {
        ACL_RT_MEM_ACCESS_LINK_SIO = 0,
        ACL_RT_MEM_ACCESS_LINK_HCCS = 1,
        ACL_RT_MEM_ACCESS_UB_ONE_PORT_PATH = 2,
        ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH = 3,
    }

    "acl_rt.h" Enum "aclrtAtomicOperationCapability" {
        ACL_RT_ATOMIC_CAPABILITY_SIGNED = 1,
        ACL_RT_ATOMIC_CAPABILITY_UNSIGNED = 2,
        ACL_RT_ATOMIC_CAPABILITY_REDUCATION = 4,
        ACL_RT_ATOMIC_CAPABILITY_REDUCTION = 4,
        ACL_RT_ATOMIC_CAPABILITY_SCALAR8 = 8,
        ACL_RT_ATOMIC_CAPABILITY_SCALAR16 = 16,
        ACL_RT_ATOMIC_CAPABILITY_SCALAR32 = 32,
        ACL_RT_ATOMIC_CAPABILITY_SCALAR64 = 64,
        ACL_RT_ATOMIC_CAPABILITY_SCALAR128 = 128,
        ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 = 256,
    }

    "acl_rt.h" Enum "aclrtAtomicOperation" {
        ACL_RT_ATOMIC_OPERATION_INTEGER_ADD = 0,
        ACL_RT_ATOMIC_OPERATION_INTEGER_MIN = 1,
        ACL_RT_ATOMIC_OPERATION_INTEGER_MAX = 2,
        ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT = 3,
        ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT = 4,
        ACL_RT_ATOMIC_OPERATION_AND = 5,
        ACL_RT_ATOMIC_OPERATION_OR = 6,
        ACL_RT_ATOMIC_OPERATION_XOR = 7,
        ACL_RT_ATOMIC_OPERATION_EXCHANGE = 8,
        ACL_RT_ATOMIC_OPERATION_CAS = 9,
        ACL_RT_ATOMIC_OPERATION_FLOAT_ADD = 10,
        ACL_RT_ATOMIC_OPERATION_FLOAT_MIN = 11,
        ACL_RT_ATOMIC_OPERATION_FLOAT_MAX = 12,
        ACL_RT_ATOMIC_OPERATION_DMA_ADD = 30,
        ACL_RT_ATOMIC_OPERATION_DMA_MIN = 31,
        ACL_RT_ATOMIC_OPERATION_DMA_MAX = 32,
        ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD = 40,
        ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN = 41,
        ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX = 42,
        ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS = 43,
        ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH = 44,
    }

    "acl_rt.h" Enum "aclmdlRICondHandleFlag" {
        ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT = 1,
    }

    "acl_rt.h" Enum "aclmdlRICondTaskType" {
        ACL_MODEL_RI_COND_TYPE_IF = 0,
        ACL_MODEL_RI_COND_TYPE_WHILE = 1,
        ACL_MODEL_RI_COND_TYPE_SWITCH = 2,
    }

    "acl_rt.h" Enum "aclrtDeviceLimit" {
        ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE = 0,
        ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE = 1,
        ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE = 2,
        ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE = 3,
        ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE = 4,
    }

    "acl_rt.h" Enum "aclRegisterCallbackType" {
        ACL_REG_TYPE_ACL_MODEL = 0,
        ACL_REG_TYPE_ACL_OP_EXECUTOR = 1,
        ACL_REG_TYPE_ACL_OP_CBLAS = 2,
        ACL_REG_TYPE_ACL_OP_COMPILER = 3,
        ACL_REG_TYPE_ACL_TDT_CHANNEL = 4,
        ACL_REG_TYPE_ACL_TDT_QUEUE = 5,
        ACL_REG_TYPE_ACL_DVPP = 6,
        ACL_REG_TYPE_ACL_RETR = 7,
        ACL_REG_TYPE_OTHER = 65535,
    }

    "acl_rt.h" Enum "aclrtProcessState" {
        ACL_RT_PROCESS_STATE_RUNNING = 0,
        ACL_RT_PROCESS_STATE_LOCKED = 1,
    }
}

/// The value of the constant called `name`, if this module has it.
#[must_use]
pub fn value_of(name: &str) -> Option<i64> {
    ALL.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_not_in_the_other_tables() {
        let mut seen = HashSet::new();
        for (name, _) in ALL {
            assert!(seen.insert(*name), "duplicate {name}");
        }
        for (name, _) in crate::consts::ALL {
            assert!(!seen.contains(name), "{name} is also in consts");
        }
        for info in crate::codes::ALL {
            assert!(!seen.contains(info.name), "{} is also in codes", info.name);
        }
    }

    #[test]
    fn groups_cover_all() {
        let flat: Vec<_> = GROUPS
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .collect();
        assert_eq!(flat, ALL);
        assert_eq!(ALL.len(), 409);
        assert_eq!(GROUPS.len(), 88);
        assert!(GROUPS.iter().all(|g| !g.members.is_empty()));
    }

    #[test]
    fn values() {
        assert_eq!(ACL_DT_UNDEFINED, -1);
        assert_eq!(ACL_FLOAT4_E1M2, 41);
        assert_eq!(ACL_FORMAT_FRACTAL_NZ_C0_8, 54);
        assert_eq!(ACL_CANN_ATTR_JIT_COMPILE, 2);
        assert_eq!(ACL_HOST_REG_PINNED, 0x1000_0000);
        assert_eq!(ACL_PKG_VERSION_MAX_SIZE, 128);
        assert_eq!(ACL_PKG_VERSION_PARTS_MAX_SIZE, 64);
        assert_eq!(ACL_IPC_EVENT_HANDLE_SIZE, 64);
        assert_eq!(ACL_RT_DEVS_TOPOLOGY_HCCS_SW, 0x40);
        assert_eq!(ACL_RT_BINARY_MAGIC_ELF_AICORE, 0x4355_4245);
        assert_eq!(ACL_DEV_ATTR_NPU_ARCH, 601);
        assert_eq!(ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4, 1 << 8);
        assert_eq!(ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH, 44);
        assert_eq!(
            ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC,
            ACL_RT_BINARY_LOAD_OPT_MAGIC
        );
        assert_eq!(ACL_RT_DEVICE_STATUS_END, 0xFFFF);
        assert_eq!(ACL_PKG_NAME_DRIVER, 7);
        assert_eq!(HUGE1G_PAGE_TYPE, 2);
        assert_eq!(P2P_DDR_TYPE, 3);
        assert_eq!(MAX_MEM_UCE_INFO_ARRAY_SIZE, 128);
        assert_eq!(value_of("ACL_BF16"), Some(27));
        assert_eq!(value_of("ACL_EVENT_SYNC"), None);
    }
}
