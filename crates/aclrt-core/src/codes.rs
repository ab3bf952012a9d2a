//! The public `aclError` values, by name and number.
//!
//! Each entry becomes a `pub const NAME: i32`, a row of [`ALL`] (kept in
//! declaration order), and is reachable through [`name_of`] and [`describe`].
//! The numbers follow the vendor headers: the general codes of `acl_base.h`
//! (`acl_base_rt.h` in `hicann/runtime`), the runtime codes of
//! `error_codes/rt_error_codes.h` and the graph engine codes of
//! `error_codes/ge_error_codes.h`. Some numbers carry more than one name
//! (0 is `ACL_SUCCESS`, `ACL_ERROR_NONE` and `ACL_RT_SUCCESS`); the first
//! declared name is the primary one, and that is what [`name_of`] reports.
//! Most of these codes are never produced by this emulated runtime; they exist
//! so that callers can name every value a real runtime could hand back.

/// One row of the error code table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The C name of the constant, e.g. `"ACL_ERROR_RT_PARAM_INVALID"`.
    pub name: &'static str,
    /// The numeric `aclError` value.
    pub code: i32,
    /// A one-line description of the condition.
    pub description: &'static str,
}

/// Declares the code constants and the [`ALL`] table from one list.
///
/// Each entry reads `NAME = VALUE => "description",`; the description is
/// also the constant's doc comment.
macro_rules! define_codes {
    ($($name:ident = $value:literal => $desc:literal,)*) => {
        $(
            #[doc = $desc]
            #[allow(clippy::unreadable_literal)] // kept as the vendor writes them
            pub const $name: i32 = $value;
        )*

        /// Every code, in declaration order (primary names before aliases).
        #[allow(clippy::unreadable_literal)]
        pub static ALL: &[CodeInfo] = &[
            $(
                CodeInfo {
                    name: stringify!($name),
                    code: $value,
                    description: $desc,
                },
            )*
        ];
    };
}

define_codes! {
    // ---- General codes (acl_base.h) -------------------------------------
    ACL_SUCCESS = 0 => "Success.",
    ACL_ERROR_NONE = 0 => "Success (older name for 0).",

    // 1000xx: parameter and usage errors.
    ACL_ERROR_INVALID_PARAM = 100000 => "A parameter is invalid (for example a NULL output pointer).",
    ACL_ERROR_UNINITIALIZE = 100001 => "ACL has not been initialised.",
    ACL_ERROR_REPEAT_INITIALIZE = 100002 => "ACL was initialised a second time.",
    ACL_ERROR_INVALID_FILE = 100003 => "A file is invalid.",
    ACL_ERROR_WRITE_FILE = 100004 => "Writing a file failed.",
    ACL_ERROR_INVALID_FILE_SIZE = 100005 => "A file has an invalid size.",
    ACL_ERROR_PARSE_FILE = 100006 => "A file could not be parsed.",
    ACL_ERROR_FILE_MISSING_ATTR = 100007 => "A file lacks a required attribute.",
    ACL_ERROR_FILE_ATTR_INVALID = 100008 => "A file attribute has an invalid value.",
    ACL_ERROR_INVALID_DUMP_CONFIG = 100009 => "The dump configuration is invalid.",
    ACL_ERROR_INVALID_PROFILING_CONFIG = 100010 => "The profiling configuration is invalid.",
    ACL_ERROR_INVALID_MODEL_ID = 100011 => "The model id is invalid.",
    ACL_ERROR_DESERIALIZE_MODEL = 100012 => "A model could not be deserialised.",
    ACL_ERROR_PARSE_MODEL = 100013 => "A model could not be parsed.",
    ACL_ERROR_READ_MODEL_FAILURE = 100014 => "A model could not be read.",
    ACL_ERROR_MODEL_SIZE_INVALID = 100015 => "The model size is invalid.",
    ACL_ERROR_MODEL_MISSING_ATTR = 100016 => "A model lacks a required attribute.",
    ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017 => "Model inputs do not match the model.",
    ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018 => "Model outputs do not match the model.",
    ACL_ERROR_MODEL_NOT_DYNAMIC = 100019 => "The model is not a dynamic-shape model.",
    ACL_ERROR_OP_TYPE_NOT_MATCH = 100020 => "The operator type does not match.",
    ACL_ERROR_OP_INPUT_NOT_MATCH = 100021 => "Operator inputs do not match.",
    ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022 => "Operator outputs do not match.",
    ACL_ERROR_OP_ATTR_NOT_MATCH = 100023 => "Operator attributes do not match.",
    ACL_ERROR_OP_NOT_FOUND = 100024 => "The operator was not found.",
    ACL_ERROR_OP_LOAD_FAILED = 100025 => "The operator could not be loaded.",
    ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026 => "The data type is not supported.",
    ACL_ERROR_FORMAT_NOT_MATCH = 100027 => "The data format does not match.",
    ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED = 100028 => "No binary selector is registered for the operator.",
    ACL_ERROR_KERNEL_NOT_FOUND = 100029 => "The kernel was not found.",
    ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED = 100030 => "A binary selector is already registered.",
    ACL_ERROR_KERNEL_ALREADY_REGISTERED = 100031 => "The kernel is already registered.",
    ACL_ERROR_INVALID_QUEUE_ID = 100032 => "The queue id is invalid.",
    ACL_ERROR_REPEAT_SUBSCRIBE = 100033 => "The subscription was made twice.",
    ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034 => "The stream is not subscribed.",
    ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035 => "The thread is not subscribed.",
    ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036 => "Waiting for a callback timed out.",
    ACL_ERROR_REPEAT_FINALIZE = 100037 => "ACL was finalised a second time.",
    ACL_ERROR_NOT_STATIC_AIPP = 100038 => "The AIPP configuration is not static.",
    ACL_ERROR_COMPILING_STUB_MODE = 100039 => "The dynamic library is a compile-time stub.",
    ACL_ERROR_GROUP_NOT_SET = 100040 => "No group has been set.",
    ACL_ERROR_GROUP_NOT_CREATE = 100041 => "The group has not been created.",
    ACL_ERROR_PROF_ALREADY_RUN = 100042 => "Profiling is already running.",
    ACL_ERROR_PROF_NOT_RUN = 100043 => "Profiling is not running.",
    ACL_ERROR_DUMP_ALREADY_RUN = 100044 => "Dumping is already running.",
    ACL_ERROR_DUMP_NOT_RUN = 100045 => "Dumping is not running.",

    // 1480xx: further parameter and usage errors.
    ACL_ERROR_PROF_REPEAT_SUBSCRIBE = 148046 => "The profiling subscription was made twice.",
    ACL_ERROR_PROF_API_CONFLICT = 148047 => "Two profiling interfaces were used together that must not be.",
    ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG = 148048 => "The configured maximum operator queue count is invalid.",
    ACL_ERROR_INVALID_OPP_PATH = 148049 => "The operator package path is invalid.",
    ACL_ERROR_OP_UNSUPPORTED_DYNAMIC = 148050 => "The operator does not support dynamic shapes.",
    ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED = 148051 => "Related resources have not been released yet.",
    ACL_ERROR_UNSUPPORTED_JPEG = 148052 => "The JPEG input is not supported.",
    ACL_ERROR_INVALID_BUNDLE_MODEL_ID = 148053 => "The bundle model id is invalid.",

    // 2000xx: resource and support errors.
    ACL_ERROR_BAD_ALLOC = 200000 => "Memory allocation failed.",
    ACL_ERROR_API_NOT_SUPPORT = 200001 => "The interface is not supported.",
    ACL_ERROR_INVALID_DEVICE = 200002 => "The device is invalid.",
    ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003 => "A memory address is not aligned.",
    ACL_ERROR_RESOURCE_NOT_MATCH = 200004 => "Resources do not match each other.",
    ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005 => "A resource handle is invalid.",
    ACL_ERROR_FEATURE_UNSUPPORTED = 200006 => "The feature is not supported.",
    ACL_ERROR_PROF_MODULES_UNSUPPORTED = 200007 => "The requested profiling modules are not supported.",

    // 300000: storage.
    ACL_ERROR_STORAGE_OVER_LIMIT = 300000 => "A storage limit was exceeded.",

    // 5000xx: internal errors.
    ACL_ERROR_INTERNAL_ERROR = 500000 => "Unknown internal error.",
    ACL_ERROR_FAILURE = 500001 => "Internal ACL failure.",
    ACL_ERROR_GE_FAILURE = 500002 => "Internal graph engine failure.",
    ACL_ERROR_RT_FAILURE = 500003 => "Internal runtime failure.",
    ACL_ERROR_DRV_FAILURE = 500004 => "Internal driver failure.",
    ACL_ERROR_PROFILING_FAILURE = 500005 => "Internal profiling failure.",

    // ---- Runtime codes (error_codes/rt_error_codes.h) -------------------
    ACL_RT_SUCCESS = 0 => "Success (the runtime header's name for 0).",

    // 1070xx: runtime parameter and state errors.
    ACL_ERROR_RT_PARAM_INVALID = 107000 => "A value passed to the runtime is invalid.",
    ACL_ERROR_RT_INVALID_DEVICEID = 107001 => "The device id is invalid.",
    ACL_ERROR_RT_CONTEXT_NULL = 107002 => "There is no current context.",
    ACL_ERROR_RT_STREAM_CONTEXT = 107003 => "The stream does not belong to the current context.",
    ACL_ERROR_RT_MODEL_CONTEXT = 107004 => "The model does not belong to the current context.",
    ACL_ERROR_RT_STREAM_MODEL = 107005 => "The stream is not bound to the model.",
    ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006 => "The event has no valid timestamp.",
    ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL = 107007 => "The end event's timestamp is earlier than the start event's.",
    ACL_ERROR_RT_ADDR_UNALIGNED = 107008 => "A memory address is not aligned.",
    ACL_ERROR_RT_FILE_OPEN = 107009 => "A file could not be opened.",
    ACL_ERROR_RT_FILE_WRITE = 107010 => "A file could not be written.",
    ACL_ERROR_RT_STREAM_SUBSCRIBE = 107011 => "The stream is already subscribed, or is not subscribed.",
    ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012 => "The thread is not subscribed, or is subscribed elsewhere.",
    ACL_ERROR_RT_GROUP_NOT_SET = 107013 => "No group has been set.",
    ACL_ERROR_RT_GROUP_NOT_CREATE = 107014 => "The group has not been created.",
    ACL_ERROR_RT_STREAM_NO_CB_REG = 107015 => "No callback thread is registered for the stream.",
    ACL_ERROR_RT_INVALID_MEMORY_TYPE = 107016 => "The memory type is invalid.",
    ACL_ERROR_RT_INVALID_HANDLE = 107017 => "The handle is invalid, destroyed or of the wrong kind.",
    ACL_ERROR_RT_INVALID_MALLOC_TYPE = 107018 => "The allocation type is invalid.",
    ACL_ERROR_RT_WAIT_TIMEOUT = 107019 => "A wait timed out.",
    ACL_ERROR_RT_TASK_TIMEOUT = 107020 => "A task timed out on the device.",
    ACL_ERROR_RT_SYSPARAMOPT_NOT_SET = 107021 => "The system parameter option has not been set.",
    ACL_ERROR_RT_DEVICE_TASK_ABORT = 107022 => "Device tasks are being aborted.",
    ACL_ERROR_RT_STREAM_ABORT = 107023 => "The stream is being aborted.",
    ACL_ERROR_RT_CAPTURE_DEPENDENCY = 107024 => "A capture depends on work that was not captured.",
    ACL_ERROR_RT_STREAM_UNJOINED = 107025 => "A captured stream was never joined back to the origin stream.",
    ACL_ERROR_RT_MODEL_CAPTURED = 107026 => "The model is being captured.",
    ACL_ERROR_RT_STREAM_CAPTURED = 107027 => "The stream is being captured.",
    ACL_ERROR_RT_EVENT_CAPTURED = 107028 => "The event is being captured.",
    ACL_ERROR_RT_STREAM_NOT_CAPTURED = 107029 => "The stream is not being captured.",
    ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT = 107030 => "The operation is not allowed in the current capture mode.",
    ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT = 107031 => "A capture would create an implicit dependency on the default stream.",
    ACL_ERROR_STREAM_CAPTURE_CONFLICT = 107032 => "Mutually dependent streams cannot start capturing together.",
    ACL_ERROR_STREAM_TASK_GROUP_STATUS = 107033 => "The task group is in the wrong state.",
    ACL_ERROR_STREAM_TASK_GROUP_INTR = 107034 => "The task group was interrupted.",
    ACL_ERROR_RT_TASK_ABORT_STOP = 107035 => "A device task abort stopped before its post-processing.",
    ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED = 107036 => "The capture was not started on this stream.",
    ACL_ERROR_RT_MODEL_RUNNING = 107037 => "The model is still running.",
    ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD = 107038 => "The capture is being ended from a different thread than began it.",
    ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY = 107039 => "The array supplied is too small.",
    ACL_ERROR_RT_MODEL_UPDATE_FAILED = 107040 => "Updating the model failed.",
    ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC = 107041 => "An asynchronous call turned synchronous is not allowed while capturing.",
    ACL_ERROR_RT_SYMBOL_NOT_FOUND = 107042 => "The global symbol was not found.",
    ACL_ERROR_RT_INVALID_SYMBOL = 107043 => "The device symbol is invalid.",
    ACL_ERROR_RT_INVALID_DEVICE_FUNCTION = 107044 => "The device function is invalid.",
    ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING = 107045 => "A sub-graph is still being captured.",

    // 2070xx: runtime resource and support errors.
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000 => "The feature is not supported.",
    ACL_ERROR_RT_MEMORY_ALLOCATION = 207001 => "Out of memory.",
    ACL_ERROR_RT_MEMORY_FREE = 207002 => "Freeing memory failed.",
    ACL_ERROR_RT_AICORE_OVER_FLOW = 207003 => "An AI Core computation overflowed.",
    ACL_ERROR_RT_NO_DEVICE = 207004 => "No device is available.",
    ACL_ERROR_RT_RESOURCE_ALLOC_FAIL = 207005 => "A resource could not be allocated.",
    ACL_ERROR_RT_NO_PERMISSION = 207006 => "The operation is not permitted.",
    ACL_ERROR_RT_NO_EVENT_RESOURCE = 207007 => "No event resources are left.",
    ACL_ERROR_RT_NO_STREAM_RESOURCE = 207008 => "No stream resources are left.",
    ACL_ERROR_RT_NO_NOTIFY_RESOURCE = 207009 => "No notify resources are left.",
    ACL_ERROR_RT_NO_MODEL_RESOURCE = 207010 => "No model resources are left.",
    ACL_ERROR_RT_NO_CDQ_RESOURCE = 207011 => "No CDQ resources are left.",
    ACL_ERROR_RT_OVER_LIMIT = 207012 => "A limit was exceeded.",
    ACL_ERROR_RT_QUEUE_EMPTY = 207013 => "The queue is empty.",
    ACL_ERROR_RT_QUEUE_FULL = 207014 => "The queue is full.",
    ACL_ERROR_RT_REPEATED_INIT = 207015 => "Initialisation was repeated.",
    ACL_ERROR_RT_AIVEC_OVER_FLOW = 207016 => "A vector core computation overflowed.",
    ACL_ERROR_RT_OVER_FLOW = 207017 => "A computation overflowed.",
    ACL_ERROR_RT_DEVICE_OOM = 207018 => "The device ran out of memory.",
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP = 207019 => "Updating this operator is not supported by the driver.",
    ACL_ERROR_RT_TIMEOUT = 207020 => "The driver timed out.",
    ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED = 207021 => "The link type is not supported.",

    // 5070xx: runtime internal and device errors.
    ACL_ERROR_RT_INTERNAL_ERROR = 507000 => "Internal runtime error.",
    ACL_ERROR_RT_TS_ERROR = 507001 => "Internal task scheduler error.",
    ACL_ERROR_RT_STREAM_TASK_FULL = 507002 => "The stream's task queue is full.",
    ACL_ERROR_RT_STREAM_TASK_EMPTY = 507003 => "The stream's task queue is empty.",
    ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004 => "The stream has not finished.",
    ACL_ERROR_RT_END_OF_SEQUENCE = 507005 => "The end of the sequence was reached.",
    ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006 => "The event has not completed.",
    ACL_ERROR_RT_CONTEXT_RELEASE_ERROR = 507007 => "Releasing the context failed.",
    ACL_ERROR_RT_SOC_VERSION = 507008 => "The chip version is wrong.",
    ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT = 507009 => "The task type is not supported.",
    ACL_ERROR_RT_LOST_HEARTBEAT = 507010 => "The task scheduler stopped answering heartbeats.",
    ACL_ERROR_RT_MODEL_EXECUTE = 507011 => "Model execution failed.",
    ACL_ERROR_RT_REPORT_TIMEOUT = 507012 => "No report arrived before the timeout.",
    ACL_ERROR_RT_SYS_DMA = 507013 => "System DMA error.",
    ACL_ERROR_RT_AICORE_TIMEOUT = 507014 => "An AI Core kernel timed out.",
    ACL_ERROR_RT_AICORE_EXCEPTION = 507015 => "An AI Core kernel raised an exception.",
    ACL_ERROR_RT_AICORE_TRAP_EXCEPTION = 507016 => "An AI Core kernel hit a trap.",
    ACL_ERROR_RT_AICPU_TIMEOUT = 507017 => "An AI CPU kernel timed out.",
    ACL_ERROR_RT_AICPU_EXCEPTION = 507018 => "An AI CPU kernel raised an exception.",
    ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR = 507019 => "The AI CPU answered a data-dump request with an error.",
    ACL_ERROR_RT_AICPU_MODEL_RSP_ERR = 507020 => "The AI CPU answered a model operation with an error.",
    ACL_ERROR_RT_PROFILING_ERROR = 507021 => "Profiling error.",
    ACL_ERROR_RT_IPC_ERROR = 507022 => "Inter-process communication error.",
    ACL_ERROR_RT_MODEL_ABORT_NORMAL = 507023 => "The model was aborted normally.",
    ACL_ERROR_RT_KERNEL_UNREGISTERING = 507024 => "The kernel is being unregistered.",
    ACL_ERROR_RT_RINGBUFFER_NOT_INIT = 507025 => "The ring buffer has not been initialised.",
    ACL_ERROR_RT_RINGBUFFER_NO_DATA = 507026 => "The ring buffer holds no data.",
    ACL_ERROR_RT_KERNEL_LOOKUP = 507027 => "Looking up the kernel failed.",
    ACL_ERROR_RT_KERNEL_DUPLICATE = 507028 => "The kernel was registered twice.",
    ACL_ERROR_RT_DEBUG_REGISTER_FAIL = 507029 => "Registering for debugging failed.",
    ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL = 507030 => "Unregistering from debugging failed.",
    ACL_ERROR_RT_LABEL_CONTEXT = 507031 => "The label does not belong to the current context.",
    ACL_ERROR_RT_PROGRAM_USE_OUT = 507032 => "No more programs can be registered.",
    ACL_ERROR_RT_DEV_SETUP_ERROR = 507033 => "Setting up the device failed.",
    ACL_ERROR_RT_VECTOR_CORE_TIMEOUT = 507034 => "A vector core kernel timed out.",
    ACL_ERROR_RT_VECTOR_CORE_EXCEPTION = 507035 => "A vector core kernel raised an exception.",
    ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION = 507036 => "A vector core kernel hit a trap.",
    ACL_ERROR_RT_CDQ_BATCH_ABNORMAL = 507037 => "Allocating a CDQ batch went wrong.",
    ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR = 507038 => "The die mode cannot be changed.",
    ACL_ERROR_RT_DIE_SET_ERROR = 507039 => "A die cannot be chosen in single-die mode.",
    ACL_ERROR_RT_INVALID_DIEID = 507040 => "The die id is invalid.",
    ACL_ERROR_RT_DIE_MODE_NOT_SET = 507041 => "The die mode has not been set.",
    ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW = 507042 => "An AI Core kernel read out of bounds.",
    ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW = 507043 => "An AI Core kernel wrote out of bounds.",
    ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW = 507044 => "A vector core kernel read out of bounds.",
    ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW = 507045 => "A vector core kernel wrote out of bounds.",
    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046 => "Synchronising a stream timed out.",
    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT = 507047 => "Synchronising an event timed out.",
    ACL_ERROR_RT_FFTS_PLUS_TIMEOUT = 507048 => "An FFTS+ task timed out.",
    ACL_ERROR_RT_FFTS_PLUS_EXCEPTION = 507049 => "An FFTS+ task raised an exception.",
    ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION = 507050 => "An FFTS+ task hit a trap.",
    ACL_ERROR_RT_SEND_MSG = 507051 => "Sending a message over HDC failed.",
    ACL_ERROR_RT_COPY_DATA = 507052 => "Copying data failed.",
    ACL_ERROR_RT_DEVICE_MEM_ERROR = 507053 => "Device memory error.",
    ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR = 507054 => "Multi-bit ECC error in HBM.",
    ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR = 507055 => "Suspected device memory error.",
    ACL_ERROR_RT_LINK_ERROR = 507056 => "Device link error.",
    ACL_ERROR_RT_SUSPECT_REMOTE_ERROR = 507057 => "Suspected error on the remote side.",

    // 5079xx: runtime internal errors from lower layers and newer features.
    ACL_ERROR_RT_DRV_INTERNAL_ERROR = 507899 => "Internal driver error.",
    ACL_ERROR_RT_AICPU_INTERNAL_ERROR = 507900 => "Internal AI CPU error.",
    ACL_ERROR_RT_SOCKET_CLOSE = 507901 => "The host-device connection was closed.",
    ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR = 507902 => "The AI CPU answered an info-load request with an error.",
    ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED = 507903 => "The stream capture was invalidated by an earlier error.",
    ACL_ERROR_RT_COMM_OP_RETRY_FAIL = 507904 => "Retrying a collective communication operation failed.",
    ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT = 507905 => "Taking the snapshot lock timed out.",
    ACL_ERROR_SNAPSHOT_LOCK_FAILED = 507906 => "Taking the snapshot lock failed.",
    ACL_ERROR_SNAPSHOT_UNLOCK_FAILED = 507907 => "Releasing the snapshot lock failed.",
    ACL_ERROR_SNAPSHOT_BACKUP_FAILED = 507908 => "Backing up the snapshot failed.",
    ACL_ERROR_SNAPSHOT_RESTORE_FAILED = 507909 => "Restoring the snapshot failed.",
    ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 507910 => "The host memory range is already registered.",
    ACL_ERROR_HOST_MEMORY_NOT_REGISTERED = 507911 => "The host memory has not been registered.",
    ACL_ERROR_SNAPSHOT_CALLBACK_FAILED = 507912 => "A snapshot callback failed.",
    ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED = 507913 => "Registering a snapshot callback failed.",
    ACL_ERROR_RT_L3_PORT_ERROR = 507914 => "Unified-bus memory (L3 port) error.",
    ACL_ERROR_RT_CCU_TIMEOUT = 507915 => "A CCU task timed out.",
    ACL_ERROR_RT_CCU_EXCEPTION = 507916 => "A CCU task raised an exception.",

    // ---- Graph engine codes (error_codes/ge_error_codes.h) --------------
    // The header declares them `uint32_t`; every value fits an `aclError`.

    // 1450xx: graph engine parameter errors.
    ACL_ERROR_GE_PARAM_INVALID = 145000 => "A parameter passed to the graph engine is invalid.",
    ACL_ERROR_GE_EXEC_NOT_INIT = 145001 => "The graph executor has not been initialised.",
    ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID = 145002 => "The model path is invalid.",
    ACL_ERROR_GE_EXEC_MODEL_ID_INVALID = 145003 => "The model id is invalid.",
    ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID = 145006 => "The model data size is invalid.",
    ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID = 145007 => "The model address is invalid.",
    ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID = 145008 => "The model queue id is invalid.",
    ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED = 145009 => "The model was loaded twice.",
    ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID = 145011 => "The dynamic input address is invalid.",
    ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID = 145012 => "The dynamic input length is invalid.",
    ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID = 145013 => "The dynamic batch size is invalid.",
    ACL_ERROR_GE_AIPP_BATCH_EMPTY = 145014 => "The AIPP batch parameters are empty.",
    ACL_ERROR_GE_AIPP_NOT_EXIST = 145015 => "No AIPP configuration exists.",
    ACL_ERROR_GE_AIPP_MODE_INVALID = 145016 => "The AIPP mode is invalid.",
    ACL_ERROR_GE_OP_TASK_TYPE_INVALID = 145017 => "The operator task type is invalid.",
    ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID = 145018 => "The operator kernel type is invalid.",
    ACL_ERROR_GE_PLGMGR_PATH_INVALID = 145019 => "The plugin path is invalid.",
    ACL_ERROR_GE_FORMAT_INVALID = 145020 => "The data format is invalid.",
    ACL_ERROR_GE_SHAPE_INVALID = 145021 => "The shape is invalid.",
    ACL_ERROR_GE_DATATYPE_INVALID = 145022 => "The data type is invalid.",

    // 2450xx: graph engine resource errors.
    ACL_ERROR_GE_MEMORY_ALLOCATION = 245000 => "The graph engine could not allocate memory.",
    ACL_ERROR_GE_MEMORY_OPERATE_FAILED = 245001 => "A host memory operation of the graph engine failed.",
    ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED = 245002 => "A device memory operation of the graph engine failed.",

    // 3451xx: graph engine device and data state.
    ACL_ERROR_GE_SUBHEALTHY = 345102 => "The device is sub-healthy.",
    ACL_ERROR_GE_USER_RAISE_EXCEPTION = 345103 => "User code raised an exception.",
    ACL_ERROR_GE_DATA_NOT_ALIGNED = 345104 => "The data is not aligned.",

    // 545xxx: graph engine internal errors.
    ACL_ERROR_GE_INTERNAL_ERROR = 545000 => "Internal graph engine error.",
    ACL_ERROR_GE_LOAD_MODEL = 545001 => "Loading the model failed.",
    ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED = 545002 => "Loading the model partition failed.",
    ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED = 545003 => "Loading the weight partition failed.",
    ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED = 545004 => "Loading the task partition failed.",
    ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED = 545005 => "Loading the kernel partition failed.",
    ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA = 545006 => "Releasing the model data failed.",
    ACL_ERROR_GE_COMMAND_HANDLE = 545007 => "Handling the command failed.",
    ACL_ERROR_GE_GET_TENSOR_INFO = 545008 => "Getting tensor information failed.",
    ACL_ERROR_GE_UNLOAD_MODEL = 545009 => "Unloading the model failed.",
    ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT = 545601 => "Model execution timed out.",
    ACL_ERROR_GE_REDEPLOYING = 545602 => "The model is being redeployed.",
}

/// The primary name of `code`, or `None` for a number that is not in the table.
///
/// Where several names share a number, the first declared one is returned
/// (`name_of(0)` is `Some("ACL_SUCCESS")`).
#[must_use]
pub fn name_of(code: i32) -> Option<&'static str> {
    lookup(code).map(|info| info.name)
}

/// The one-line description of `code`, or `None` for an unknown number.
#[must_use]
pub fn describe(code: i32) -> Option<&'static str> {
    lookup(code).map(|info| info.description)
}

/// The first (primary) table row for `code`.
fn lookup(code: i32) -> Option<&'static CodeInfo> {
    ALL.iter().find(|info| info.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique() {
        let mut seen = HashSet::new();
        for info in ALL {
            assert!(seen.insert(info.name), "duplicate name {}", info.name);
        }
    }

    #[test]
    fn table_size() {
        assert_eq!(ALL.len(), 254);
        let in_range =
            |lo: i32, hi: i32| ALL.iter().filter(|c| (lo..=hi).contains(&c.code)).count();
        // General codes (acl_base.h).
        assert_eq!(in_range(100_000, 100_999), 46);
        assert_eq!(in_range(148_000, 148_999), 8);
        assert_eq!(in_range(200_000, 200_999), 8);
        assert_eq!(in_range(300_000, 300_999), 1);
        assert_eq!(in_range(500_000, 500_999), 6);
        // Runtime codes.
        assert_eq!(in_range(107_000, 107_999), 46);
        assert_eq!(in_range(207_000, 207_999), 22);
        assert_eq!(in_range(507_000, 507_999), 76);
        // Graph engine codes.
        assert_eq!(in_range(145_000, 145_999), 20);
        assert_eq!(in_range(245_000, 245_999), 3);
        assert_eq!(in_range(345_000, 345_999), 3);
        assert_eq!(in_range(545_000, 545_999), 12);
        // The three names of 0; nothing is negative.
        assert_eq!(in_range(i32::MIN, 0), 3);
    }

    #[test]
    fn blocks_are_contiguous() {
        // Inside each numeric block the vendor numbering has no gaps.
        for (lo, hi) in [
            (100_000, 100_045),
            (148_046, 148_053),
            (200_000, 200_007),
            (500_000, 500_005),
            (107_000, 107_045),
            (207_000, 207_021),
            (507_000, 507_057),
            (507_899, 507_916),
            (145_011, 145_022),
            (545_000, 545_009),
        ] {
            for code in lo..=hi {
                assert!(name_of(code).is_some(), "missing {code}");
            }
        }
    }

    #[test]
    fn aliases_resolve_to_primary() {
        assert_eq!(ACL_SUCCESS, 0);
        assert_eq!(ACL_ERROR_NONE, 0);
        assert_eq!(ACL_RT_SUCCESS, 0);
        assert_eq!(name_of(0), Some("ACL_SUCCESS"));
        assert_eq!(describe(0), Some("Success."));
        // Only 0 carries more than one name.
        let mut numbers = HashSet::new();
        let dups: Vec<_> = ALL
            .iter()
            .filter(|c| !numbers.insert(c.code))
            .map(|c| c.name)
            .collect();
        assert_eq!(dups, ["ACL_ERROR_NONE", "ACL_RT_SUCCESS"]);
    }

    #[test]
    fn unknown_codes() {
        assert_eq!(name_of(1), None);
        assert_eq!(describe(107_999), None);
        assert_eq!(name_of(i32::MAX), None);
    }

    #[test]
    fn table_rows() {
        for info in ALL {
            assert!(info.description.ends_with('.'), "{}", info.name);
            assert!(info.name.starts_with("ACL_"), "{}", info.name);
        }
        assert_eq!(ALL[1].code, ACL_ERROR_NONE);
        assert_eq!(
            describe(ACL_ERROR_RT_CCU_EXCEPTION),
            Some(ALL[215].description)
        );
        assert_eq!(
            ALL[0],
            CodeInfo {
                name: "ACL_SUCCESS",
                code: 0,
                description: "Success."
            }
        );
        assert_eq!(ALL.last().unwrap().name, "ACL_ERROR_GE_REDEPLOYING");
    }

    #[test]
    fn newest_runtime_and_graph_engine_codes() {
        for (name, constant, number) in [
            (
                "ACL_ERROR_RT_SYMBOL_NOT_FOUND",
                ACL_ERROR_RT_SYMBOL_NOT_FOUND,
                107_042,
            ),
            (
                "ACL_ERROR_RT_INVALID_SYMBOL",
                ACL_ERROR_RT_INVALID_SYMBOL,
                107_043,
            ),
            (
                "ACL_ERROR_RT_INVALID_DEVICE_FUNCTION",
                ACL_ERROR_RT_INVALID_DEVICE_FUNCTION,
                107_044,
            ),
            (
                "ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING",
                ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                107_045,
            ),
            (
                "ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED",
                ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED,
                207_021,
            ),
            (
                "ACL_ERROR_RT_CCU_TIMEOUT",
                ACL_ERROR_RT_CCU_TIMEOUT,
                507_915,
            ),
            (
                "ACL_ERROR_RT_CCU_EXCEPTION",
                ACL_ERROR_RT_CCU_EXCEPTION,
                507_916,
            ),
            (
                "ACL_ERROR_GE_PARAM_INVALID",
                ACL_ERROR_GE_PARAM_INVALID,
                145_000,
            ),
            (
                "ACL_ERROR_GE_REDEPLOYING",
                ACL_ERROR_GE_REDEPLOYING,
                545_602,
            ),
        ] {
            assert_eq!(constant, number, "{name}");
            assert_eq!(name_of(number), Some(name), "{number}");
        }
        assert_eq!(name_of(-1), None);
    }

    #[test]
    fn spec_section_2_values() {
        let expected: &[(&str, i32, i32)] = &[
            ("ACL_SUCCESS", ACL_SUCCESS, 0),
            ("ACL_ERROR_INVALID_PARAM", ACL_ERROR_INVALID_PARAM, 100_000),
            ("ACL_ERROR_UNINITIALIZE", ACL_ERROR_UNINITIALIZE, 100_001),
            (
                "ACL_ERROR_REPEAT_INITIALIZE",
                ACL_ERROR_REPEAT_INITIALIZE,
                100_002,
            ),
            (
                "ACL_ERROR_REPEAT_FINALIZE",
                ACL_ERROR_REPEAT_FINALIZE,
                100_037,
            ),
            ("ACL_ERROR_BAD_ALLOC", ACL_ERROR_BAD_ALLOC, 200_000),
            (
                "ACL_ERROR_API_NOT_SUPPORT",
                ACL_ERROR_API_NOT_SUPPORT,
                200_001,
            ),
            (
                "ACL_ERROR_INTERNAL_ERROR",
                ACL_ERROR_INTERNAL_ERROR,
                500_000,
            ),
            (
                "ACL_ERROR_RT_PARAM_INVALID",
                ACL_ERROR_RT_PARAM_INVALID,
                107_000,
            ),
            (
                "ACL_ERROR_RT_INVALID_DEVICEID",
                ACL_ERROR_RT_INVALID_DEVICEID,
                107_001,
            ),
            (
                "ACL_ERROR_RT_CONTEXT_NULL",
                ACL_ERROR_RT_CONTEXT_NULL,
                107_002,
            ),
            (
                "ACL_ERROR_RT_STREAM_CONTEXT",
                ACL_ERROR_RT_STREAM_CONTEXT,
                107_003,
            ),
            (
                "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID",
                ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                107_006,
            ),
            (
                "ACL_ERROR_RT_STREAM_SUBSCRIBE",
                ACL_ERROR_RT_STREAM_SUBSCRIBE,
                107_011,
            ),
            (
                "ACL_ERROR_RT_THREAD_SUBSCRIBE",
                ACL_ERROR_RT_THREAD_SUBSCRIBE,
                107_012,
            ),
            (
                "ACL_ERROR_RT_STREAM_NO_CB_REG",
                ACL_ERROR_RT_STREAM_NO_CB_REG,
                107_015,
            ),
            (
                "ACL_ERROR_RT_INVALID_HANDLE",
                ACL_ERROR_RT_INVALID_HANDLE,
                107_017,
            ),
            (
                "ACL_ERROR_RT_WAIT_TIMEOUT",
                ACL_ERROR_RT_WAIT_TIMEOUT,
                107_019,
            ),
            (
                "ACL_ERROR_RT_TASK_TIMEOUT",
                ACL_ERROR_RT_TASK_TIMEOUT,
                107_020,
            ),
            (
                "ACL_ERROR_RT_DEVICE_TASK_ABORT",
                ACL_ERROR_RT_DEVICE_TASK_ABORT,
                107_022,
            ),
            (
                "ACL_ERROR_RT_STREAM_ABORT",
                ACL_ERROR_RT_STREAM_ABORT,
                107_023,
            ),
            (
                "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                207_000,
            ),
            (
                "ACL_ERROR_RT_MEMORY_ALLOCATION",
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                207_001,
            ),
            ("ACL_ERROR_RT_NO_DEVICE", ACL_ERROR_RT_NO_DEVICE, 207_004),
            (
                "ACL_ERROR_RT_NO_EVENT_RESOURCE",
                ACL_ERROR_RT_NO_EVENT_RESOURCE,
                207_007,
            ),
            (
                "ACL_ERROR_RT_NO_STREAM_RESOURCE",
                ACL_ERROR_RT_NO_STREAM_RESOURCE,
                207_008,
            ),
            (
                "ACL_ERROR_RT_INTERNAL_ERROR",
                ACL_ERROR_RT_INTERNAL_ERROR,
                507_000,
            ),
            (
                "ACL_ERROR_RT_STREAM_NOT_COMPLETE",
                ACL_ERROR_RT_STREAM_NOT_COMPLETE,
                507_004,
            ),
            (
                "ACL_ERROR_RT_EVENT_NOT_COMPLETE",
                ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                507_006,
            ),
            (
                "ACL_ERROR_RT_CONTEXT_RELEASE_ERROR",
                ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                507_007,
            ),
            (
                "ACL_ERROR_RT_REPORT_TIMEOUT",
                ACL_ERROR_RT_REPORT_TIMEOUT,
                507_012,
            ),
            (
                "ACL_ERROR_RT_AICORE_TIMEOUT",
                ACL_ERROR_RT_AICORE_TIMEOUT,
                507_014,
            ),
            (
                "ACL_ERROR_RT_AICORE_EXCEPTION",
                ACL_ERROR_RT_AICORE_EXCEPTION,
                507_015,
            ),
            (
                "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
                ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                507_046,
            ),
            (
                "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT",
                ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                507_047,
            ),
        ];
        for &(name, constant, number) in expected {
            assert_eq!(constant, number, "{name}");
            assert_eq!(name_of(number), Some(name), "{number}");
            assert!(describe(number).is_some());
        }
    }
}
