//! Stream memory operations: `cuStreamWaitValue32/64`, `cuStreamWriteValue32/64` and
//! `cuStreamBatchMemOp`, over the core's value tasks (the ones `aclrtValueWait` and
//! `aclrtValueWrite` queue).
//!
//! Invariants: every operation of a call is checked before any is queued, so a refused call
//! queues nothing; the operations of one call are queued in their order, each a task of its
//! own (a wait holds back everything after it); on a capturing stream the call records one
//! batch memory operation node that queues the same tasks at every launch. A word is 4 bytes
//! (the `32` operations) or 8 bytes, aligned to its size, in device memory or in pinned or
//! registered host memory (the device can reach both); managed memory is refused, as CUDA
//! documents. Writes are atomic and sequentially consistent, so the memory barrier a write
//! implies by default, and the barrier and flush operations, hold; a wait reads the word
//! atomically, so the flush a wait may ask for holds too. A batch memory operation node checks
//! each word again when a launch queues it: one no longer valid queues, in place of that
//! operation and the node's later ones, a task that fails with `CUDA_ERROR_ILLEGAL_ADDRESS`
//! (sticky on the context, as a device fault), so no operation ever touches memory that is
//! gone.

use std::sync::Arc;

use super::api::{cu, current, fail, resolve, sticky, stream_of};
use super::capture::{self, NodeKind, NodeParams, Recipe};
use super::codes::*;
use super::memory::{classify, MemKind};
use super::state::with_state;
use super::CuResultOf;
use crate::api::notify::{ValueTest, ValueWidth};
use crate::handle::StreamHandle;
use crate::runtime::Runtime;

/// `CU_STREAM_WAIT_VALUE_GEQ`: `(intN_t)(*addr - value) >= 0` (the default).
pub const CU_STREAM_WAIT_VALUE_GEQ: u32 = 0x0;
/// `CU_STREAM_WAIT_VALUE_EQ`: `*addr == value`.
pub const CU_STREAM_WAIT_VALUE_EQ: u32 = 0x1;
/// `CU_STREAM_WAIT_VALUE_AND`: `(*addr & value) != 0`.
pub const CU_STREAM_WAIT_VALUE_AND: u32 = 0x2;
/// `CU_STREAM_WAIT_VALUE_NOR`: `~(*addr | value) != 0`.
pub const CU_STREAM_WAIT_VALUE_NOR: u32 = 0x3;
/// `CU_STREAM_WAIT_VALUE_FLUSH`: flush remote writes after the wait (combined with one of the
/// above).
pub const CU_STREAM_WAIT_VALUE_FLUSH: u32 = 1 << 30;
/// `CU_STREAM_WRITE_VALUE_DEFAULT`: the write follows a system-wide memory barrier.
pub const CU_STREAM_WRITE_VALUE_DEFAULT: u32 = 0x0;
/// `CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER`: no barrier is required before the write.
pub const CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER: u32 = 0x1;

/// `CU_STREAM_MEM_OP_WAIT_VALUE_32`.
pub const CU_STREAM_MEM_OP_WAIT_VALUE_32: u32 = 1;
/// `CU_STREAM_MEM_OP_WRITE_VALUE_32`.
pub const CU_STREAM_MEM_OP_WRITE_VALUE_32: u32 = 2;
/// `CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES`.
pub const CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES: u32 = 3;
/// `CU_STREAM_MEM_OP_WAIT_VALUE_64`.
pub const CU_STREAM_MEM_OP_WAIT_VALUE_64: u32 = 4;
/// `CU_STREAM_MEM_OP_WRITE_VALUE_64`.
pub const CU_STREAM_MEM_OP_WRITE_VALUE_64: u32 = 5;
/// `CU_STREAM_MEM_OP_BARRIER`: only in the `_v2` batch call.
pub const CU_STREAM_MEM_OP_BARRIER: u32 = 6;
/// `CU_STREAM_MEMORY_BARRIER_TYPE_SYS`.
pub const CU_STREAM_MEMORY_BARRIER_TYPE_SYS: u32 = 0x0;
/// `CU_STREAM_MEMORY_BARRIER_TYPE_GPU`.
pub const CU_STREAM_MEMORY_BARRIER_TYPE_GPU: u32 = 0x1;

/// The most operations one `cuStreamBatchMemOp` takes ("must be less than 256").
pub const MAX_BATCH_MEM_OPS: usize = 255;

/// One element of a `CUstreamBatchMemOpParams` array, as the face read it: `address` and
/// `value` are 0 for the operations without them; `value` holds the 32-bit operand in its low
/// half for the `32` operations (the rest is ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemOp {
    /// `CUstreamBatchMemOpType`.
    pub operation: u32,
    /// The word's device address.
    pub address: u64,
    /// The operand.
    pub value: u64,
    /// The operation's flags.
    pub flags: u32,
}

/// Which API a batch came through: the `_v2` one also takes `CU_STREAM_MEM_OP_BARRIER`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchAbi {
    /// `cuStreamBatchMemOp` (and the single-operation calls of the first ABI).
    V1,
    /// `cuStreamBatchMemOp_v2`.
    V2,
}

/// A checked operation.
#[derive(Debug, Clone, Copy)]
enum Checked {
    Wait {
        addr: usize,
        value: u64,
        width: ValueWidth,
        test: ValueTest,
    },
    Write {
        addr: usize,
        value: u64,
        width: ValueWidth,
    },
    Fence,
}

fn invalid<T>(call: &str, what: String) -> CuResultOf<T> {
    fail(CUDA_ERROR_INVALID_VALUE, format!("{call}: {what}"))
}

/// The word of an operation: non-NULL, aligned to its width, and device-accessible memory that
/// is not managed.
fn word(rt: &Runtime, addr: u64, width: ValueWidth, call: &str) -> CuResultOf<usize> {
    let size = width.bytes();
    let addr = addr as usize;
    if addr == 0 {
        return invalid(call, "the address is NULL".into());
    }
    if !addr.is_multiple_of(size) {
        return invalid(
            call,
            format!("the address {addr:#x} is not {size}-byte aligned"),
        );
    }
    match classify(rt, addr, size, "the address")? {
        MemKind::Pageable => {
            return invalid(
                call,
                format!("{addr:#x} is not device memory nor pinned or registered host memory"),
            )
        }
        MemKind::Device | MemKind::Pinned => {}
    }
    let base = rt.memory.allocation_at(addr).map(|(b, _)| b);
    if base.is_some_and(|b| with_state(rt, |s| s.managed.contains_key(&b))) {
        return invalid(
            call,
            format!("{addr:#x} is managed memory (cuMemAllocManaged), which stream memory operations cannot use"),
        );
    }
    Ok(addr)
}

fn check(rt: &Runtime, op: &MemOp, abi: BatchAbi, call: &str) -> CuResultOf<Checked> {
    let width = match op.operation {
        CU_STREAM_MEM_OP_WAIT_VALUE_32 | CU_STREAM_MEM_OP_WRITE_VALUE_32 => ValueWidth::Bits32,
        _ => ValueWidth::Bits64,
    };
    match op.operation {
        CU_STREAM_MEM_OP_WAIT_VALUE_32 | CU_STREAM_MEM_OP_WAIT_VALUE_64 => {
            let test = match op.flags & !CU_STREAM_WAIT_VALUE_FLUSH {
                CU_STREAM_WAIT_VALUE_GEQ => ValueTest::Geq,
                CU_STREAM_WAIT_VALUE_EQ => ValueTest::Eq,
                CU_STREAM_WAIT_VALUE_AND => ValueTest::And,
                CU_STREAM_WAIT_VALUE_NOR => ValueTest::Nor,
                _ => {
                    return invalid(
                        call,
                        format!("wait flags {:#x} are not a CU_STREAM_WAIT_VALUE_* condition (optionally with CU_STREAM_WAIT_VALUE_FLUSH)", op.flags),
                    )
                }
            };
            let addr = word(rt, op.address, width, call)?;
            Ok(Checked::Wait {
                addr,
                value: op.value,
                width,
                test,
            })
        }
        CU_STREAM_MEM_OP_WRITE_VALUE_32 | CU_STREAM_MEM_OP_WRITE_VALUE_64 => {
            if op.flags & !CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER != 0 {
                return invalid(
                    call,
                    format!(
                        "write flags {:#x} are not CU_STREAM_WRITE_VALUE_DEFAULT or _NO_MEMORY_BARRIER",
                        op.flags
                    ),
                );
            }
            let addr = word(rt, op.address, width, call)?;
            Ok(Checked::Write {
                addr,
                value: op.value,
                width,
            })
        }
        CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES => {
            if op.flags != 0 {
                return invalid(call, format!("flush flags {:#x} must be 0", op.flags));
            }
            Ok(Checked::Fence)
        }
        CU_STREAM_MEM_OP_BARRIER if abi == BatchAbi::V2 => {
            if op.flags > CU_STREAM_MEMORY_BARRIER_TYPE_GPU {
                return invalid(
                    call,
                    format!(
                        "barrier flags {:#x} are not a CU_STREAM_MEMORY_BARRIER_TYPE_*",
                        op.flags
                    ),
                );
            }
            Ok(Checked::Fence)
        }
        CU_STREAM_MEM_OP_BARRIER => invalid(
            call,
            "CU_STREAM_MEM_OP_BARRIER is only taken by cuStreamBatchMemOp_v2".into(),
        ),
        other => invalid(call, format!("{other} is not a CUstreamBatchMemOpType")),
    }
}

/// Checks a batch (count, flags, every operation) and makes the work that queues it.
fn recipe(
    rt: &Runtime,
    ops: &[MemOp],
    flags: u32,
    abi: BatchAbi,
    call: &'static str,
) -> CuResultOf<Recipe> {
    if ops.len() > MAX_BATCH_MEM_OPS {
        return invalid(
            call,
            format!("more than {MAX_BATCH_MEM_OPS} operations; a batch takes fewer than 256"),
        );
    }
    if flags != 0 {
        return invalid(call, format!("flags {flags:#x} are reserved and must be 0"));
    }
    let checked = ops
        .iter()
        .map(|op| check(rt, op, abi, call))
        .collect::<CuResultOf<Vec<_>>>()?;
    Ok(Arc::new(move |rt, ls| {
        for op in &checked {
            // A graph node's words were checked when it was made; the memory may have been
            // freed or unregistered since. A word no longer valid when the node is queued
            // faults like a device access to it would: a failed task, sticky on the context.
            if let Checked::Wait { addr, width, .. } | Checked::Write { addr, width, .. } = *op {
                if word(rt, addr as u64, width, call).is_err() {
                    rt.launch_on(
                        ls,
                        call,
                        Default::default(),
                        Box::new(|| Err(to_acl_task_code(CUDA_ERROR_ILLEGAL_ADDRESS))),
                    )?;
                    return Ok(());
                }
            }
            match *op {
                Checked::Wait {
                    addr,
                    value,
                    width,
                    test,
                } => rt.submit_value_wait(ls, addr, value, width, test, call)?,
                Checked::Write { addr, value, width } => {
                    rt.submit_value_write(ls, addr, value, width, call)?
                }
                Checked::Fence => rt.submit_memory_fence(ls, call)?,
            }
        }
        Ok(())
    }))
}

/// `cuStreamBatchMemOp` (`abi` tells which version): queues `ops` on `stream` in their order,
/// or records them as one batch memory operation node while it captures. No operations queue
/// nothing. More than [`MAX_BATCH_MEM_OPS`] operations, flags other than 0, an unknown
/// operation, bad operation flags or a bad word are `CUDA_ERROR_INVALID_VALUE`, and then nothing
/// is queued. The single calls (`cuStreamWaitValue32` …) are a batch of one, under their names.
pub fn stream_batch_mem_op(
    stream: StreamHandle,
    ops: &[MemOp],
    flags: u32,
    abi: BatchAbi,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| {
        let s = stream_of(rt, resolve(rt, stream)?)?;
        current(rt)?;
        sticky(&s.context)?;
        let s = rt.stream_for_work(Some(s), call)?;
        let run = recipe(rt, ops, flags, abi, call)?;
        if ops.is_empty() {
            return Ok(());
        }
        let params = BatchNodeParams {
            ops: ops.to_vec(),
            face: None,
        };
        capture::submit_with(
            rt,
            &s,
            NodeKind::BatchMemOp,
            call,
            run,
            Some(Arc::new(params)),
        )?;
        Ok(())
    })
}

/// Whether an executable graph's batch memory operation node may take `new` in place of `old`
/// (`cuGraphExecBatchMemOpNodeSetParams`): the same number of operations, each of the same
/// type; a wait may change its address, operand and condition but not its flush flag, a write
/// its address and operand; barriers and flushes cannot change. Anything else is
/// `CUDA_ERROR_INVALID_VALUE`. The operations themselves are checked when the new work is made.
pub fn batch_mem_op_update_allowed(old: &[MemOp], new: &[MemOp], call: &str) -> CuResultOf<()> {
    if old.len() != new.len() {
        return invalid(
            call,
            format!(
                "the node has {} operations; an executable graph's node keeps its count ({} given)",
                old.len(),
                new.len()
            ),
        );
    }
    for (i, (o, n)) in old.iter().zip(new).enumerate() {
        if o.operation != n.operation {
            return invalid(
                call,
                format!(
                    "operation {i} is of type {}, which an executable graph's node keeps ({} given)",
                    o.operation, n.operation
                ),
            );
        }
        let fixed = match o.operation {
            CU_STREAM_MEM_OP_WAIT_VALUE_32 | CU_STREAM_MEM_OP_WAIT_VALUE_64 => {
                CU_STREAM_WAIT_VALUE_FLUSH
            }
            _ => u32::MAX,
        };
        if o.flags & fixed != n.flags & fixed {
            return invalid(
                call,
                format!(
                    "operation {i}: flags {:#x} cannot become {:#x} in an executable graph",
                    o.flags, n.flags
                ),
            );
        }
    }
    Ok(())
}

/// What a batch memory operation node keeps: its operations, for the rules of what an
/// executable graph may change, and what the face keeps with them (`None` for a node made by
/// stream capture).
pub struct BatchNodeParams {
    /// The node's operations.
    pub ops: Vec<MemOp>,
    /// The face's own copy of the parameters, if it made the node.
    pub face: Option<NodeParams>,
}

/// [`batch_mem_op_update_allowed`] between two batch nodes' parameters (`cuGraphExecUpdate`).
pub(super) fn batch_params_update_allowed(
    old: Option<&NodeParams>,
    new: Option<&NodeParams>,
    call: &str,
) -> CuResultOf<()> {
    fn ops(p: Option<&NodeParams>) -> Option<&[MemOp]> {
        p.and_then(|p| p.downcast_ref::<BatchNodeParams>())
            .map(|b| b.ops.as_slice())
    }
    match (ops(old), ops(new)) {
        (Some(old), Some(new)) => batch_mem_op_update_allowed(old, new, call),
        _ => Ok(()),
    }
}
