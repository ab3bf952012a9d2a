//! Stream memory operations: `cuStreamWaitValue32/64`, `cuStreamWriteValue32/64` and
//! `cuStreamBatchMemOp`, each under its first ABI name and its `_v2` name (the same call here:
//! the second ABI only dropped the opt-in the first needed and added the barrier operation to
//! the batch). The rules and checks are the core's (`aclrt::cuda::stream_batch_mem_op`); this
//! file reads `CUstreamBatchMemOpParams` arrays.

use std::ffi::c_uint;

use aclrt::cuda::{self, codes::*, BatchAbi, CuError, MemOp};

use crate::{guard, stream, CUdeviceptr, CUresult, CUstream};

/// The operand of a wait or write: 32 or 64 bits in the same 8 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUstreamMemOpValue {
    /// The `32` operations' operand.
    pub value: u32,
    /// The `64` operations' operand.
    pub value64: u64,
}

/// `CUstreamMemOpWaitValueParams_st` / `CUstreamMemOpWriteValueParams_st` (the same layout).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUstreamMemOpValueParams {
    /// `CUstreamBatchMemOpType`.
    pub operation: c_uint,
    /// The word.
    pub address: CUdeviceptr,
    /// The operand.
    pub value: CUstreamMemOpValue,
    /// `CUstreamWaitValue_flags` or `CUstreamWriteValue_flags`.
    pub flags: c_uint,
    /// For the driver's own use; ignored.
    pub alias: CUdeviceptr,
}

/// `CUstreamMemOpFlushRemoteWritesParams_st` / `CUstreamMemOpMemoryBarrierParams_st`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUstreamMemOpFlagsParams {
    /// `CUstreamBatchMemOpType`.
    pub operation: c_uint,
    /// The operation's flags.
    pub flags: c_uint,
}

/// `CUstreamBatchMemOpParams` (`_v1`): 48 bytes, the operation first in every member.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUstreamBatchMemOpParams {
    /// `CUstreamBatchMemOpType`.
    pub operation: c_uint,
    /// `waitValue`.
    pub waitValue: CUstreamMemOpValueParams,
    /// `writeValue`.
    pub writeValue: CUstreamMemOpValueParams,
    /// `flushRemoteWrites`.
    pub flushRemoteWrites: CUstreamMemOpFlagsParams,
    /// `memoryBarrier`.
    pub memoryBarrier: CUstreamMemOpFlagsParams,
    /// `pad`.
    pub pad: [u64; 6],
}

const _: () = assert!(std::mem::size_of::<CUstreamBatchMemOpParams>() == 48);

/// One element as the core takes it: the member its operation names is read; an unknown
/// operation is passed on with nothing else, for the core to refuse.
pub(crate) fn read(p: &CUstreamBatchMemOpParams) -> MemOp {
    // SAFETY: every member starts with the operation, so it is always initialised.
    let operation = unsafe { p.operation };
    // SAFETY: the member read is the one the operation names, which the caller filled.
    unsafe {
        match operation {
            cuda::CU_STREAM_MEM_OP_WAIT_VALUE_32 | cuda::CU_STREAM_MEM_OP_WRITE_VALUE_32 => MemOp {
                operation,
                address: p.waitValue.address,
                value: u64::from(p.waitValue.value.value),
                flags: p.waitValue.flags,
            },
            cuda::CU_STREAM_MEM_OP_WAIT_VALUE_64 | cuda::CU_STREAM_MEM_OP_WRITE_VALUE_64 => MemOp {
                operation,
                address: p.waitValue.address,
                value: p.waitValue.value.value64,
                flags: p.waitValue.flags,
            },
            cuda::CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES | cuda::CU_STREAM_MEM_OP_BARRIER => MemOp {
                operation,
                address: 0,
                value: 0,
                flags: p.memoryBarrier.flags,
            },
            _ => MemOp {
                operation,
                address: 0,
                value: 0,
                flags: 0,
            },
        }
    }
}

/// The elements of a `count`-element array the core is to see: one more than it takes at most
/// (enough for it to refuse a longer batch by its length, without reading a huge count's
/// worth); none when `count` is 0.
///
/// # Safety
/// `array` is non-NULL and points to `count` elements when `count` is not 0.
pub(crate) unsafe fn elements<'a>(
    array: *const CUstreamBatchMemOpParams,
    count: c_uint,
) -> &'a [CUstreamBatchMemOpParams] {
    if count == 0 {
        return &[];
    }
    let n = (count as usize).min(cuda::MAX_BATCH_MEM_OPS + 1);
    // SAFETY: forwarded to the caller.
    unsafe { std::slice::from_raw_parts(array, n) }
}

fn single(
    hStream: CUstream,
    operation: c_uint,
    addr: CUdeviceptr,
    value: u64,
    flags: c_uint,
    call: &'static str,
) -> CUresult {
    guard(|| {
        let op = MemOp {
            operation,
            address: addr,
            value,
            flags,
        };
        cuda::stream_batch_mem_op(stream(hStream), &[op], 0, BatchAbi::V1, call)
    })
}

/// # Safety
/// `paramArray` points to `count` elements when `count` is not 0.
unsafe fn batch(
    hStream: CUstream,
    count: c_uint,
    paramArray: *const CUstreamBatchMemOpParams,
    flags: c_uint,
    abi: BatchAbi,
    call: &'static str,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        if count > 0 && paramArray.is_null() {
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: paramArray is NULL"),
            ));
        }
        // SAFETY: forwarded; the caller provides `count` elements.
        let ops: Vec<MemOp> = unsafe { elements(paramArray, count) }
            .iter()
            .map(read)
            .collect();
        cuda::stream_batch_mem_op(stream(hStream), &ops, flags, abi, call)
    })
}

macro_rules! value_calls {
    ($($name:ident, $v2:ident, $ty:ty, $op:ident, $what:literal;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: ", $what, " (see `aclrt::cuda::stream_batch_mem_op`).")]
        #[no_mangle]
        pub extern "C" fn $name(hStream: CUstream, addr: CUdeviceptr, value: $ty, flags: c_uint) -> CUresult {
            single(hStream, cuda::$op, addr, u64::from(value), flags, stringify!($name))
        }

        #[doc = concat!("`", stringify!($v2), "`: as `", stringify!($name), "`.")]
        #[no_mangle]
        pub extern "C" fn $v2(hStream: CUstream, addr: CUdeviceptr, value: $ty, flags: c_uint) -> CUresult {
            single(hStream, cuda::$op, addr, u64::from(value), flags, stringify!($v2))
        }
    )*};
}

value_calls! {
    cuStreamWaitValue32, cuStreamWaitValue32_v2, u32, CU_STREAM_MEM_OP_WAIT_VALUE_32,
        "later work on the stream waits until the 32-bit word at `addr` meets the condition";
    cuStreamWaitValue64, cuStreamWaitValue64_v2, u64, CU_STREAM_MEM_OP_WAIT_VALUE_64,
        "later work on the stream waits until the 64-bit word at `addr` meets the condition";
    cuStreamWriteValue32, cuStreamWriteValue32_v2, u32, CU_STREAM_MEM_OP_WRITE_VALUE_32,
        "stores a 32-bit value at `addr` in stream order";
    cuStreamWriteValue64, cuStreamWriteValue64_v2, u64, CU_STREAM_MEM_OP_WRITE_VALUE_64,
        "stores a 64-bit value at `addr` in stream order";
}

/// `cuStreamBatchMemOp`: the operations in their order; `CU_STREAM_MEM_OP_BARRIER` is
/// `CUDA_ERROR_INVALID_VALUE` in this first ABI.
///
/// # Safety
/// `paramArray` points to `count` elements.
#[no_mangle]
pub unsafe extern "C" fn cuStreamBatchMemOp(
    hStream: CUstream,
    count: c_uint,
    paramArray: *mut CUstreamBatchMemOpParams,
    flags: c_uint,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe {
        batch(
            hStream,
            count,
            paramArray,
            flags,
            BatchAbi::V1,
            "cuStreamBatchMemOp",
        )
    }
}

/// `cuStreamBatchMemOp_v2`: as `cuStreamBatchMemOp`, barriers included.
///
/// # Safety
/// As `cuStreamBatchMemOp`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamBatchMemOp_v2(
    hStream: CUstream,
    count: c_uint,
    paramArray: *mut CUstreamBatchMemOpParams,
    flags: c_uint,
) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe {
        batch(
            hStream,
            count,
            paramArray,
            flags,
            BatchAbi::V2,
            "cuStreamBatchMemOp_v2",
        )
    }
}
