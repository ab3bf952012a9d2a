//! Vendor runtime functions without an emulated implementation yet.
//!
//! Every function the vendor headers declare is exported, so programs written against them
//! link unchanged. The ones below have no emulated implementation: each fails through
//! [`aclrt::api::not_supported`], which notes `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` and a message
//! naming the function for the calling thread, and returns that code, or NULL / 0 where the C
//! function returns a pointer or a number (nothing for `void`). They never read or write through
//! their pointer arguments and never call the functions they are given.
//!
//! The table is the C prototypes spelled in Rust, one row per function, grouped as the headers
//! group them; [`not_supported!`] turns each row into an exported function. Implementing a
//! function means deleting its row here and adding it to the module of its topic.

use std::ffi::{c_char, c_int, c_void};

use aclrt::Error;

use crate::{aclError, aclrtStream};

/// What a function without an implementation returns, by C return type.
trait Fallback {
    fn from_error(error: &Error) -> Self;
}

/// `aclError`: the code itself. (No vendor function returns a plain `int32_t` value.)
impl Fallback for aclError {
    fn from_error(error: &Error) -> Self {
        error.code()
    }
}

macro_rules! zero_fallback {
    ($($t:ty),*) => {
        $(impl Fallback for $t {
            fn from_error(_: &Error) -> Self {
                0 as $t
            }
        })*
    };
}
zero_fallback!(u16, u32, usize, f32);

impl<T> Fallback for *const T {
    fn from_error(_: &Error) -> Self {
        std::ptr::null()
    }
}

impl<T> Fallback for *mut T {
    fn from_error(_: &Error) -> Self {
        std::ptr::null_mut()
    }
}

/// One exported function for one row; a row without `-> T` is a `void` function.
macro_rules! stub {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn $name($($arg: $ty),*) -> $ret {
            $(let _ = $arg;)*
            <$ret as Fallback>::from_error(&aclrt::api::not_supported(stringify!($name)))
        }
    };
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),*)) => {
        $(#[$meta])*
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) {
            $(let _ = $arg;)*
            let _ = aclrt::api::not_supported(stringify!($name));
        }
    };
}

/// Exports one function per row (`fn name(arg: Type, ...) -> Ret;`) and lists their names in
/// [`NOT_SUPPORTED`].
macro_rules! not_supported {
    ($( $(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        $( stub! { $(#[$meta])* fn $name($($arg: $ty),*) $(-> $ret)? } )*

        /// The exported functions that have no emulated implementation, in table order.
        pub static NOT_SUPPORTED: &[&str] = &[$(stringify!($name)),*];
    };
}

// ---- C types of the rows (by-value structs below). Handles are pointers, enums are 32-bit
// integers, callbacks are nullable C function pointers, and a struct passed only by pointer is
// opaque here because no row ever looks inside it.
type aclmdlRI = *mut c_void;
type aclmdlRICaptureMode = u32;
type aclmdlRICaptureStatus = u32;
type aclmdlRICondHandle = *mut c_void;
type aclmdlRICondHandleFlag = u32;
type aclmdlRITask = *mut c_void;
type aclmdlRITaskParams = c_void;
type aclmdlRITaskType = u32;
type aclrtBarrierTaskInfo = c_void;
type aclrtBinHandle = *mut c_void;
type aclrtCallback = Option<unsafe extern "C" fn(*mut c_void)>;
type aclrtCmoType = u32;
type aclrtCompareDataType = u32;
type aclrtCondition = u32;
type aclrtDrvMemHandle = *mut c_void;
type aclrtErrorInfo = c_void;
type aclrtExceptionInfo = c_void;
type aclrtFuncHandle = *mut c_void;
type aclrtGroupAttr = u32;
type aclrtGroupInfo = c_void;
type aclrtIpcMemAttrType = u32;
type aclrtLabel = *mut c_void;
type aclrtLabelList = *mut c_void;
type aclrtLaunchKernelAttrId = u32;
type aclrtLaunchKernelAttrValue = c_void;
type aclrtLaunchKernelCfg = c_void;
type aclrtMbuf = *mut c_void;
type aclrtMemLinkType = u32;
type aclrtMemUceInfo = c_void;
type aclrtNotify = *mut c_void;
type aclrtOpExceptionCallback = Option<unsafe extern "C" fn(*mut aclrtExceptionInfo, *mut c_void)>;
type aclrtPlaceHolderInfo = c_void;
type aclrtServerPid = c_void;
type aclrtSnapShotBackupArgs = c_void;
type aclrtSnapShotCallBack = Option<unsafe extern "C" fn(i32, *mut c_void) -> u32>;
type aclrtSnapShotRestoreArgs = c_void;
type aclrtSnapShotStage = u32;
type aclrtTaskGrp = *mut c_void;
type aclrtTaskUpdateInfo = c_void;

/// `dim3`, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dim3 {
    /// Extent in x.
    pub x: u32,
    /// Extent in y.
    pub y: u32,
    /// Extent in z.
    pub z: u32,
}

/// `aclmdlRICondTaskParams`, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclmdlRICondTaskParams {
    /// `aclmdlRICondHandle`.
    pub handle: *mut c_void,
    /// `aclmdlRICondTaskType`.
    pub r#type: u32,
    /// Number of entries in `modelRIArray`.
    pub size: u32,
    /// `aclmdlRI *`.
    pub modelRIArray: *mut aclmdlRI,
}

not_supported! {
    // ---- Versions, attributes and other queries
    fn aclrtProfTrace(userdata: *mut c_void, length: i32, stream: aclrtStream) -> aclError;
    fn aclrtCacheLastTaskOpInfo(infoPtr: *const c_void, infoSize: usize) -> aclError;
    fn aclrtCacheLastTaskExtendInfo(extendInfoPtr: *const c_char, infoSize: usize) -> aclError;

    // ---- Errors and exceptions
    fn aclrtGetMemUceInfo(
        deviceId: i32,
        memUceInfoArray: *mut aclrtMemUceInfo,
        arraySize: usize,
        retSize: *mut usize,
    ) -> aclError;
    fn aclrtMemUceRepair(
        deviceId: i32,
        memUceInfoArray: *mut aclrtMemUceInfo,
        arraySize: usize,
    ) -> aclError;
    fn aclrtRepairError(deviceId: i32, errorInfo: *const aclrtErrorInfo) -> aclError;

    // ---- Runtime configuration

    // ---- Devices
    fn aclrtDeviceGetPCIBusId(deviceId: i32, pciBusId: *mut c_char, len: i32) -> aclError;
    fn aclrtDeviceGetByPCIBusId(pciBusId: *const c_char, deviceId: *mut i32) -> aclError;

    // ---- Contexts
    fn aclrtCtxGetFloatOverflowAddr(overflowAddr: *mut *mut c_void) -> aclError;

    // ---- Streams
    fn aclrtActiveStream(activeStream: aclrtStream, stream: aclrtStream) -> aclError;
    fn aclrtSwitchStream(
        leftValue: *mut c_void,
        cond: aclrtCondition,
        rightValue: *mut c_void,
        dataType: aclrtCompareDataType,
        trueStream: aclrtStream,
        falseStream: aclrtStream,
        stream: aclrtStream,
    ) -> aclError;
    fn aclrtPersistentTaskClean(stream: aclrtStream) -> aclError;

    // ---- Events

    // ---- Execution control: host callbacks, host functions, timeouts
    fn aclrtTaskUpdateAsync(
        taskStream: aclrtStream,
        taskId: u32,
        info: *mut aclrtTaskUpdateInfo,
        execStream: aclrtStream,
    ) -> aclError;

    // ---- Notifies
    fn aclrtNotifySetImportPidInterServer(
        notify: aclrtNotify,
        serverPids: *mut aclrtServerPid,
        num: usize,
    ) -> aclError;

    // ---- Labels
    fn aclrtCreateLabel(label: *mut aclrtLabel) -> aclError;
    fn aclrtSetLabel(label: aclrtLabel, stream: aclrtStream) -> aclError;
    fn aclrtDestroyLabel(label: aclrtLabel) -> aclError;
    fn aclrtCreateLabelList(
        labels: *mut aclrtLabel,
        num: usize,
        labelList: *mut aclrtLabelList,
    ) -> aclError;
    fn aclrtDestroyLabelList(labelList: aclrtLabelList) -> aclError;
    fn aclrtSwitchLabelByIndex(
        ptr: *mut c_void,
        maxValue: u32,
        labelList: aclrtLabelList,
        stream: aclrtStream,
    ) -> aclError;

    // ---- Device memory

    // ---- Host memory

    // ---- Memory copy and set

    // ---- Virtual memory
    fn aclrtReserveMemAddressNoUCMemory(
        virPtr: *mut *mut c_void,
        size: usize,
        alignment: usize,
        expectPtr: *mut c_void,
        flags: u64,
    ) -> aclError;
    fn aclrtMemMapSelectedLink(
        virPtrDst: *mut c_void,
        size: usize,
        virPtrSrc: *mut c_void,
        linkIdx: u32,
    ) -> aclError;

    // ---- Unified addressing

    // ---- Cache maintenance operations
    fn aclrtCmoAsyncWithBarrier(
        src: *mut c_void,
        size: usize,
        cmoType: aclrtCmoType,
        barrierId: u32,
        stream: aclrtStream,
    ) -> aclError;
    fn aclrtCmoWaitBarrier(
        taskInfo: *mut aclrtBarrierTaskInfo,
        stream: aclrtStream,
        flag: u32,
    ) -> aclError;

    // ---- Memory shared between processes
    fn aclrtIpcMemSetAttr(key: *const c_char, r#type: aclrtIpcMemAttrType, attr: u64) -> aclError;
    fn aclrtIpcMemImportPidInterServer(
        key: *const c_char,
        serverPids: *mut aclrtServerPid,
        num: usize,
    ) -> aclError;

    // ---- Stream memory operations

    // ---- Kernel binaries, arguments and launches
    fn aclrtBinarySetExceptionCallback(
        binHandle: aclrtBinHandle,
        callback: aclrtOpExceptionCallback,
        userData: *mut c_void,
    ) -> aclError;
    fn aclrtBinaryGetDevAddress(
        binHandle: aclrtBinHandle,
        binAddr: *mut *mut c_void,
        binSize: *mut usize,
    ) -> aclError;
    fn aclrtBinaryGetFunctionByEntry(
        binHandle: aclrtBinHandle,
        funcEntry: u64,
        funcHandle: *mut aclrtFuncHandle,
    ) -> aclError;
    fn aclrtGetFuncBySymbol(symbol: *const c_void, funcHandle: *mut aclrtFuncHandle) -> aclError;
    fn aclrtRegisterCpuFunc(
        handle: aclrtBinHandle,
        funcName: *const c_char,
        kernelName: *const c_char,
        funcHandle: *mut aclrtFuncHandle,
    ) -> aclError;
    fn aclrtLaunchSIMTKernelWithArgsArray(
        func: *mut c_void,
        gridDim: dim3,
        blockDim: dim3,
        dynUbufSize: usize,
        stream: aclrtStream,
        cfg: *mut aclrtLaunchKernelCfg,
        args: *mut *mut c_void,
    ) -> aclError;
    fn aclrtLaunchSIMTKernelWithHostArgs(
        func: *mut c_void,
        gridDim: dim3,
        blockDim: dim3,
        dynUbufSize: usize,
        stream: aclrtStream,
        cfg: *mut aclrtLaunchKernelCfg,
        hostArgs: *mut c_void,
        argsSize: usize,
        placeHolderArray: *mut aclrtPlaceHolderInfo,
        placeHolderNum: usize,
    ) -> aclError;
    fn aclrtGetHardwareSyncAddr(addr: *mut *mut c_void) -> aclError;
    fn aclrtFunctionGetAvailDynUbufPerBlock(
        func: *mut c_void,
        flags: u32,
        dynamicUbufSize: *mut usize,
    ) -> aclError;

    // ---- Model run instances (aclmdlRI) and stream capture
    fn aclmdlRITaskGetParams(task: aclmdlRITask, params: *mut aclmdlRITaskParams) -> aclError;
    fn aclmdlRITaskSetParams(task: aclmdlRITask, params: *mut aclmdlRITaskParams) -> aclError;
    fn aclmdlRIKernelTaskGetAttribute(
        task: aclmdlRITask,
        attrId: aclrtLaunchKernelAttrId,
        attrValue: *mut aclrtLaunchKernelAttrValue,
    ) -> aclError;
    fn aclmdlRIUpdate(modelRI: aclmdlRI) -> aclError;
    fn aclmdlRITaskDisable(task: aclmdlRITask) -> aclError;
    fn aclmdlRICaptureBegin(stream: aclrtStream, mode: aclmdlRICaptureMode) -> aclError;
    fn aclmdlRICaptureGetInfo(
        stream: aclrtStream,
        status: *mut aclmdlRICaptureStatus,
        modelRI: *mut aclmdlRI,
    ) -> aclError;
    fn aclmdlRICaptureEnd(stream: aclrtStream, modelRI: *mut aclmdlRI) -> aclError;
    fn aclmdlRIDebugPrint(modelRI: aclmdlRI) -> aclError;
    fn aclmdlRIDebugJsonPrint(modelRI: aclmdlRI, path: *const c_char, flags: u32) -> aclError;
    fn aclmdlRICaptureThreadExchangeMode(mode: *mut aclmdlRICaptureMode) -> aclError;
    fn aclmdlRIExecuteAsync(modelRI: aclmdlRI, stream: aclrtStream) -> aclError;
    fn aclmdlRIExecute(modelRI: aclmdlRI, timeout: i32) -> aclError;
    fn aclmdlRIDestroy(modelRI: aclmdlRI) -> aclError;
    fn aclmdlRICaptureTaskGrpBegin(stream: aclrtStream) -> aclError;
    fn aclmdlRICaptureTaskGrpEnd(stream: aclrtStream, handle: *mut aclrtTaskGrp) -> aclError;
    fn aclmdlRICaptureTaskUpdateBegin(stream: aclrtStream, handle: aclrtTaskGrp) -> aclError;
    fn aclmdlRICaptureTaskUpdateEnd(stream: aclrtStream) -> aclError;
    fn aclmdlRIBuildBegin(modelRI: *mut aclmdlRI, flag: u32) -> aclError;
    fn aclmdlRIBindStream(modelRI: aclmdlRI, stream: aclrtStream, flag: u32) -> aclError;
    fn aclmdlRIEndTask(modelRI: aclmdlRI, stream: aclrtStream) -> aclError;
    fn aclmdlRIBuildEnd(modelRI: aclmdlRI, reserve: *mut c_void) -> aclError;
    fn aclmdlRIUnbindStream(modelRI: aclmdlRI, stream: aclrtStream) -> aclError;
    fn aclmdlRISetName(modelRI: aclmdlRI, name: *const c_char) -> aclError;
    fn aclmdlRIGetName(modelRI: aclmdlRI, maxLen: u32, name: *mut c_char) -> aclError;
    fn aclmdlRIGetId(modelRI: aclmdlRI, modelRIId: *mut u32) -> aclError;
    fn aclmdlRIDestroyRegisterCallback(
        modelRI: aclmdlRI,
        func: aclrtCallback,
        userData: *mut c_void,
    ) -> aclError;
    fn aclmdlRIDestroyUnregisterCallback(modelRI: aclmdlRI, func: aclrtCallback) -> aclError;
    fn aclmdlRIGetStreams(
        modelRI: aclmdlRI,
        streams: *mut aclrtStream,
        numStreams: *mut u32,
    ) -> aclError;
    fn aclmdlRIGetTasksByStream(
        stream: aclrtStream,
        tasks: *mut aclmdlRITask,
        numTasks: *mut u32,
    ) -> aclError;
    fn aclmdlRITaskGetType(task: aclmdlRITask, r#type: *mut aclmdlRITaskType) -> aclError;
    fn aclmdlRITaskGetSeqId(task: aclmdlRITask, id: *mut u32) -> aclError;
    fn aclmdlRIAbort(modelRI: aclmdlRI) -> aclError;
    fn aclmdlRICondHandleCreate(
        modelRI: aclmdlRI,
        defaultLaunchValue: u32,
        flag: aclmdlRICondHandleFlag,
        handle: *mut aclmdlRICondHandle,
    ) -> aclError;
    fn aclmdlRICondHandleGetCondPtr(handle: aclmdlRICondHandle, ptr: *mut *mut u64) -> aclError;
    fn aclmdlRIAddCondTask(
        params: aclmdlRICondTaskParams,
        stream: aclrtStream,
        flags: u32,
    ) -> aclError;
    fn aclmdlRICaptureToModelRIBegin(
        stream: aclrtStream,
        modelRI: aclmdlRI,
        mode: aclmdlRICaptureMode,
    ) -> aclError;

    // ---- Compute groups
    fn aclrtSetGroup(groupId: i32) -> aclError;
    fn aclrtGetGroupCount(count: *mut u32) -> aclError;
    fn aclrtCreateGroupInfo() -> *mut aclrtGroupInfo;
    fn aclrtDestroyGroupInfo(groupInfo: *mut aclrtGroupInfo) -> aclError;
    fn aclrtGetAllGroupInfo(groupInfo: *mut aclrtGroupInfo) -> aclError;
    fn aclrtGetGroupInfoDetail(
        groupInfo: *const aclrtGroupInfo,
        groupIndex: i32,
        attr: aclrtGroupAttr,
        attrValue: *mut c_void,
        valueLen: usize,
        paramRetSize: *mut usize,
    ) -> aclError;

    // ---- Dump configuration
    fn aclmdlInitDump() -> aclError;
    fn aclmdlSetDump(dumpCfgPath: *const c_char) -> aclError;
    fn aclmdlFinalizeDump() -> aclError;

    // ---- Shared buffers (mbuf)
    fn aclrtGetBufFromChain(headBuf: aclrtMbuf, index: u32, buf: *mut aclrtMbuf) -> aclError;
    fn aclrtGetBufChainNum(headBuf: aclrtMbuf, num: *mut u32) -> aclError;
    fn aclrtAppendBufChain(headBuf: aclrtMbuf, buf: aclrtMbuf) -> aclError;
    fn aclrtCopyBufRef(buf: aclrtMbuf, newBuf: *mut aclrtMbuf) -> aclError;
    fn aclrtGetBufUserData(
        buf: aclrtMbuf,
        dataPtr: *mut c_void,
        size: usize,
        offset: usize,
    ) -> aclError;
    fn aclrtSetBufUserData(
        buf: aclrtMbuf,
        dataPtr: *const c_void,
        size: usize,
        offset: usize,
    ) -> aclError;
    fn aclrtGetBufData(buf: aclrtMbuf, dataPtr: *mut *mut c_void, size: *mut usize) -> aclError;
    fn aclrtGetBufDataLen(buf: aclrtMbuf, len: *mut usize) -> aclError;
    fn aclrtSetBufDataLen(buf: aclrtMbuf, len: usize) -> aclError;
    fn aclrtFreeBuf(buf: aclrtMbuf) -> aclError;
    fn aclrtAllocBuf(buf: *mut aclrtMbuf, size: usize) -> aclError;

    // ---- Process snapshots
    fn aclrtSnapShotProcessLock(pid: c_int, reserve: *mut c_void) -> aclError;
    fn aclrtSnapShotProcessUnlock(pid: c_int, reserve: *mut c_void) -> aclError;
    fn aclrtSnapShotProcessBackup(pid: c_int, args: *mut aclrtSnapShotBackupArgs) -> aclError;
    fn aclrtSnapShotProcessRestore(pid: c_int, args: *mut aclrtSnapShotRestoreArgs) -> aclError;
    fn aclrtSnapShotCallbackRegister(
        stage: aclrtSnapShotStage,
        callback: aclrtSnapShotCallBack,
        args: *mut c_void,
    ) -> aclError;
    fn aclrtSnapShotCallbackUnregister(
        stage: aclrtSnapShotStage,
        callback: aclrtSnapShotCallBack,
    ) -> aclError;

    // ---- Configuration objects

    // ---- Floating-point overflow status and other device controls
    fn aclrtGetFloatOverflowStatus(
        outputAddr: *mut c_void,
        outputSize: u64,
        stream: aclrtStream,
    ) -> aclError;
    fn aclrtResetFloatOverflowStatus(stream: aclrtStream) -> aclError;
    fn aclrtNpuGetFloatOverFlowStatus(
        outputAddr: *mut c_void,
        outputSize: u64,
        checkMode: u32,
        stream: aclrtStream,
    ) -> aclError;
    fn aclrtNpuClearFloatOverFlowStatus(checkMode: u32, stream: aclrtStream) -> aclError;
    fn aclrtDeviceL2CacheFlush(rsv: *mut c_void) -> aclError;
    fn aclrtMemMapSetLink(handle: aclrtDrvMemHandle, adviceLink: aclrtMemLinkType) -> aclError;
}

#[cfg(test)]
mod tests {
    use super::*;
    use aclrt::api;
    use aclrt::codes::ACL_ERROR_RT_FEATURE_NOT_SUPPORT;

    #[test]
    fn by_value_structs_have_the_c_layout() {
        assert_eq!(std::mem::size_of::<dim3>(), 12);
        assert_eq!(std::mem::size_of::<aclmdlRICondTaskParams>(), 24);
        assert_eq!(
            std::mem::offset_of!(aclmdlRICondTaskParams, modelRIArray),
            16
        );
    }

    #[test]
    fn a_stub_fails_with_its_name() {
        let bogus = 0x10 as *mut c_void;
        assert_eq!(
            aclrtCreateLabel(bogus.cast()),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(api::get_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        let msg = api::get_recent_err_msg().unwrap();
        assert!(msg.contains("aclrtCreateLabel"), "{msg}");
        assert!(aclrtCreateGroupInfo().is_null());
        assert!(api::get_recent_err_msg()
            .unwrap()
            .contains("aclrtCreateGroupInfo"));
        assert_eq!(NOT_SUPPORTED.len(), 104);
    }
}
