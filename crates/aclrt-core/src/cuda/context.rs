//! Contexts: created ones, the devices' primary contexts, the thread's context stack, and the
//! settings a context carries (flags, limits, cache preference).
//!
//! Every context the CUDA face makes has the CUDA policy (legacy default stream, sticky
//! failures). A primary context is created by the first `cuDevicePrimaryCtxRetain` and
//! destroyed when the last retain is released (or by a reset); it is never made current by
//! retaining it.

use std::sync::Arc;

use super::api::{cu, current, current_any, fail, lookup_context, CuDevice};
use super::codes::*;
use super::state::{stack_pop, stack_push, with_state, CtxInfo, Primary};
use super::{CuError, CuResultOf};
use crate::device::Device;
use crate::handle::ContextHandle;
use crate::policy::ContextPolicy;
use crate::runtime::Runtime;
use crate::stream::Context;
use crate::thread_state;

/// `CU_CTX_SCHED_MASK`.
pub const CU_CTX_SCHED_MASK: u32 = 0x07;
/// `CU_CTX_SCHED_BLOCKING_SYNC`.
pub const CU_CTX_SCHED_BLOCKING_SYNC: u32 = 0x04;
/// `CU_CTX_MAP_HOST`.
pub const CU_CTX_MAP_HOST: u32 = 0x08;
/// `CU_CTX_FLAGS_MASK`: every context flag.
pub const CU_CTX_FLAGS_MASK: u32 = 0xFF;
/// The API version `cuCtxGetApiVersion` reports: that of contexts made by `cuCtxCreate_v2` and
/// later.
pub const CONTEXT_API_VERSION: u32 = 3020;
/// `CU_FUNC_CACHE_PREFER_EQUAL`, the largest `CUfunc_cache` value.
pub const CU_FUNC_CACHE_PREFER_EQUAL: u32 = 3;

/// Checks context flags: known bits only, and at most one scheduling policy.
pub fn check_ctx_flags(flags: u32, call: &str) -> CuResultOf<()> {
    if flags & !CU_CTX_FLAGS_MASK != 0 {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{call}: unknown context flags {:#x}",
                flags & !CU_CTX_FLAGS_MASK
            ),
        );
    }
    match flags & CU_CTX_SCHED_MASK {
        0 | 1 | 2 | 4 => Ok(()),
        sched => fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: more than one scheduling flag ({sched:#x}): choose one of SPIN, YIELD, BLOCKING_SYNC"),
        ),
    }
}

fn device_of(rt: &Runtime, dev: CuDevice, call: &str) -> CuResultOf<Arc<Device>> {
    rt.device(dev).ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_DEVICE,
            format!(
                "{call}: device {dev} does not exist ({} device(s))",
                rt.device_count()
            ),
        )
    })
}

/// Makes `ctx` current, keeping the previous current context under it on the thread's stack.
fn push(rt: &Runtime, ctx: ContextHandle) {
    if let Some(prev) = thread_state::current_context(rt.serial) {
        stack_push(rt.serial, prev);
    }
    thread_state::set_current_context(rt.serial, Some(ctx));
}

/// What `cuCtxCreate_v3`/`_v4` were given besides the flags and the device.
#[derive(Debug, Default, Clone, Copy)]
pub struct CreateParams {
    /// Execution affinity parameters given (none is supported: the device has no SM partitions).
    pub exec_affinity: usize,
    /// CUDA-in-graphics parameters, if given: whether they carry shared data (no graphics API
    /// here, so with data they are not supported and without they are invalid).
    pub cig: Option<bool>,
}

/// `cuCtxCreate(flags, dev)`: a new context with CUDA stream semantics, pushed on the thread's
/// context stack (so made current).
pub fn ctx_create(flags: u32, dev: CuDevice) -> CuResultOf<ContextHandle> {
    ctx_create_with(flags, dev, CreateParams::default())
}

/// `cuCtxCreate_v3`/`_v4`: as [`ctx_create`]; execution affinity gives
/// `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY` and CUDA-in-graphics parameters
/// `CUDA_ERROR_NOT_SUPPORTED` (`CUDA_ERROR_INVALID_VALUE` without shared data).
pub fn ctx_create_with(
    flags: u32,
    dev: CuDevice,
    params: CreateParams,
) -> CuResultOf<ContextHandle> {
    cu(|rt| {
        let device = device_of(rt, dev, "cuCtxCreate")?;
        check_ctx_flags(flags, "cuCtxCreate")?;
        if params.exec_affinity > 0 {
            return fail(
                CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
                "cuCtxCreate: the emulated device has no execution affinity (SM partitions)",
            );
        }
        if params.cig == Some(false) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                "cuCtxCreate: CUDA-in-graphics parameters without shared data",
            );
        }
        if params.cig == Some(true) {
            return fail(
                CUDA_ERROR_NOT_SUPPORTED,
                "cuCtxCreate: CUDA-in-graphics contexts need a graphics API, which the emulated device has not",
            );
        }
        let ctx = rt.new_context(&device, false, ContextPolicy::CUDA)?;
        rt.default_stream_created(&ctx);
        with_state(rt, |s| {
            s.contexts
                .insert(ctx.handle.as_raw(), CtxInfo::new(flags, None))
        });
        crate::clock::start();
        push(rt, ctx.handle);
        Ok(ctx.handle)
    })
}

/// Destroys a context's streams and events (waiting for their work) and forgets its settings.
fn destroy(rt: &Runtime, ctx: &Arc<Context>) -> CuResultOf<()> {
    let was_current = thread_state::current_context(rt.serial) == Some(ctx.handle);
    rt.destroy_context(ctx.handle)?;
    for (raw, ev) in rt.events.values() {
        if Arc::ptr_eq(&ev.context, ctx) {
            rt.events.remove(raw);
        }
    }
    with_state(rt, |s| {
        if let Some(info) = s.contexts.remove(&ctx.handle.as_raw()) {
            if let Some(p) = info.primary_of.and_then(|d| s.primary.get_mut(&d)) {
                p.context = None;
            }
        }
    });
    if was_current {
        thread_state::set_current_context(rt.serial, stack_pop(rt.serial));
    }
    Ok(())
}

/// `cuCtxDestroy`: waits for the context's work, then destroys its streams and events; popped
/// from the calling thread's stack if current there. Works after a sticky error (that is how a
/// program recovers). Threads that still have it current get `CUDA_ERROR_CONTEXT_IS_DESTROYED`.
pub fn ctx_destroy(handle: ContextHandle) -> CuResultOf<()> {
    cu(|rt| {
        let ctx = lookup_context(rt, handle)?;
        crate::api::not_in_callback("cuCtxDestroy")?;
        destroy(rt, &ctx)
    })
}

/// `cuCtxSetCurrent`: replaces the top of the thread's context stack; NULL pops it.
pub fn ctx_set_current(handle: ContextHandle) -> CuResultOf<()> {
    cu(|rt| {
        if handle.is_null() {
            thread_state::set_current_context(rt.serial, stack_pop(rt.serial));
            return Ok(());
        }
        let ctx = lookup_context(rt, handle)?;
        thread_state::set_current_context(rt.serial, Some(ctx.handle));
        Ok(())
    })
}

/// `cuCtxGetCurrent`: NULL when the thread has no (live) current context.
pub fn ctx_get_current() -> CuResultOf<ContextHandle> {
    cu(|rt| {
        Ok(rt
            .current_context()
            .map(|c| c.handle)
            .unwrap_or(ContextHandle::NULL))
    })
}

/// `cuCtxPushCurrent`: makes `ctx` current above the thread's current context.
pub fn ctx_push_current(handle: ContextHandle) -> CuResultOf<()> {
    cu(|rt| {
        let ctx = lookup_context(rt, handle)?;
        push(rt, ctx.handle);
        Ok(())
    })
}

/// `cuCtxPopCurrent`: takes the current context off the thread's stack and returns it; the one
/// under it (if any) becomes current. `CUDA_ERROR_INVALID_CONTEXT` with an empty stack.
pub fn ctx_pop_current() -> CuResultOf<ContextHandle> {
    cu(|rt| {
        let Some(top) = thread_state::current_context(rt.serial) else {
            return fail(
                CUDA_ERROR_INVALID_CONTEXT,
                "cuCtxPopCurrent: the thread's context stack is empty",
            );
        };
        thread_state::set_current_context(rt.serial, stack_pop(rt.serial));
        Ok(top)
    })
}

/// `cuCtxGetDevice`: the current context's device.
pub fn ctx_get_device() -> CuResultOf<CuDevice> {
    cu(|rt| Ok(current_any(rt)?.device.id))
}

fn info_of(rt: &Runtime, ctx: &Context) -> CtxInfo {
    with_state(rt, |s| {
        s.contexts
            .entry(ctx.handle.as_raw())
            .or_insert_with(|| CtxInfo::new(0, None))
            .clone()
    })
}

fn update_info(rt: &Runtime, ctx: &Context, change: impl FnOnce(&mut CtxInfo)) {
    with_state(rt, |s| {
        change(
            s.contexts
                .entry(ctx.handle.as_raw())
                .or_insert_with(|| CtxInfo::new(0, None)),
        )
    })
}

/// `cuCtxGetFlags`: the current context's flags.
pub fn ctx_get_flags() -> CuResultOf<u32> {
    cu(|rt| {
        let ctx = current_any(rt)?;
        Ok(info_of(rt, &ctx).flags)
    })
}

/// `cuCtxSetFlags`: replaces the current context's flags.
pub fn ctx_set_flags(flags: u32) -> CuResultOf<()> {
    cu(|rt| {
        let ctx = current(rt)?;
        check_ctx_flags(flags, "cuCtxSetFlags")?;
        update_info(rt, &ctx, |i| i.flags = flags);
        Ok(())
    })
}

/// `cuCtxGetApiVersion(ctx)`: [`CONTEXT_API_VERSION`]; NULL means the current context.
pub fn ctx_get_api_version(handle: ContextHandle) -> CuResultOf<u32> {
    cu(|rt| {
        if handle.is_null() {
            current_any(rt)?;
        } else {
            lookup_context(rt, handle)?;
        }
        Ok(CONTEXT_API_VERSION)
    })
}

/// `cuCtxGetId(ctx)`: an id unique among the process's contexts; NULL means the current one.
pub fn ctx_get_id(handle: ContextHandle) -> CuResultOf<u64> {
    cu(|rt| {
        let ctx = if handle.is_null() {
            current_any(rt)?
        } else {
            lookup_context(rt, handle)?
        };
        Ok(ctx.handle.as_raw())
    })
}

/// `cuCtxGetStreamPriorityRange`: (least, greatest).
pub fn ctx_get_stream_priority_range() -> CuResultOf<(i32, i32)> {
    cu(|rt| {
        current_any(rt)?;
        Ok((
            super::api::STREAM_PRIORITY_LEAST,
            super::api::STREAM_PRIORITY_GREATEST,
        ))
    })
}

/// `cuCtxSynchronize`: waits for every stream of the current context; reports a failure.
pub fn ctx_synchronize() -> CuResultOf<()> {
    cu(|rt| {
        let ctx = current(rt)?;
        crate::api::not_in_callback("cuCtxSynchronize")?;
        super::capture::check_context_sync(rt, ctx.handle.as_raw())?;
        rt.synchronize_device()?;
        super::mem_pool::release_at_sync(rt, ctx.device.id);
        Ok(())
    })
}

/// `CU_LIMIT_*` values a context holds; others give `CUDA_ERROR_UNSUPPORTED_LIMIT`.
fn limit_index(limit: u32, call: &str) -> CuResultOf<usize> {
    let i = limit as usize;
    if i < super::state::LIMIT_DEFAULTS.len() {
        Ok(i)
    } else {
        fail(
            CUDA_ERROR_UNSUPPORTED_LIMIT,
            format!("{call}: limit {limit} is not supported by the emulated device"),
        )
    }
}

/// `cuCtxGetLimit`.
pub fn ctx_get_limit(limit: u32) -> CuResultOf<usize> {
    cu(|rt| {
        let ctx = current_any(rt)?;
        let i = limit_index(limit, "cuCtxGetLimit")?;
        Ok(info_of(rt, &ctx).limits[i])
    })
}

/// `cuCtxSetLimit`: stored as given (the L2 fetch granularity must be 0 to 128 bytes and is
/// kept; the emulated device has nothing these limits constrain).
pub fn ctx_set_limit(limit: u32, value: usize) -> CuResultOf<()> {
    cu(|rt| {
        let ctx = current(rt)?;
        let i = limit_index(limit, "cuCtxSetLimit")?;
        if i == 5 && value > 128 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuCtxSetLimit: an L2 fetch granularity of {value} bytes is above 128"),
            );
        }
        update_info(rt, &ctx, |info| info.limits[i] = value);
        Ok(())
    })
}

/// `cuCtxGetCacheConfig`.
pub fn ctx_get_cache_config() -> CuResultOf<u32> {
    cu(|rt| {
        let ctx = current_any(rt)?;
        Ok(info_of(rt, &ctx).cache_config)
    })
}

/// `cuCtxSetCacheConfig`: a `CUfunc_cache` preference, kept (the emulated device has no L1 to
/// split).
pub fn ctx_set_cache_config(config: u32) -> CuResultOf<()> {
    cu(|rt| {
        let ctx = current(rt)?;
        if config > CU_FUNC_CACHE_PREFER_EQUAL {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuCtxSetCacheConfig: {config} is not a CUfunc_cache"),
            );
        }
        update_info(rt, &ctx, |i| i.cache_config = config);
        Ok(())
    })
}

// ---- primary contexts --------------------------------------------------------------------

/// `cuDevicePrimaryCtxRetain`: the device's primary context, created on the first retain with
/// the flags set by `cuDevicePrimaryCtxSetFlags`. Does not change the current context.
pub fn primary_ctx_retain(dev: CuDevice) -> CuResultOf<ContextHandle> {
    cu(|rt| {
        let device = device_of(rt, dev, "cuDevicePrimaryCtxRetain")?;
        let p = with_state(rt, |s| s.primary.entry(dev).or_default().clone());
        let live = p
            .context
            .and_then(|h| rt.contexts.get(h.as_raw()))
            .filter(|c| !c.is_destroyed());
        let handle = match live {
            Some(ctx) => ctx.handle,
            None => {
                let ctx = rt.new_context(&device, false, ContextPolicy::CUDA)?;
                rt.default_stream_created(&ctx);
                crate::clock::start();
                with_state(rt, |s| {
                    s.contexts
                        .insert(ctx.handle.as_raw(), CtxInfo::new(p.flags, Some(dev)));
                });
                ctx.handle
            }
        };
        with_state(rt, |s| {
            let p = s.primary.entry(dev).or_default();
            p.context = Some(handle);
            p.retained += 1;
        });
        Ok(handle)
    })
}

/// `cuDevicePrimaryCtxRelease`: drops one retain; the last one destroys the context.
/// `CUDA_ERROR_INVALID_CONTEXT` when the device's primary context is not retained.
pub fn primary_ctx_release(dev: CuDevice) -> CuResultOf<()> {
    cu(|rt| {
        device_of(rt, dev, "cuDevicePrimaryCtxRelease")?;
        let last = with_state(rt, |s| {
            let p = s.primary.entry(dev).or_default();
            if p.retained == 0 {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_CONTEXT,
                    format!("cuDevicePrimaryCtxRelease: the primary context of device {dev} is not retained"),
                ));
            }
            p.retained -= 1;
            Ok((p.retained == 0).then_some(p.context).flatten())
        })?;
        if let Some(ctx) = last.and_then(|h| rt.contexts.get(h.as_raw())) {
            destroy(rt, &ctx)?;
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxReset`: destroys the primary context now (its streams and events; the
/// retain count is kept, so the next retain makes a new one).
pub fn primary_ctx_reset(dev: CuDevice) -> CuResultOf<()> {
    cu(|rt| {
        device_of(rt, dev, "cuDevicePrimaryCtxReset")?;
        let handle = with_state(rt, |s| s.primary.get(&dev).and_then(|p| p.context));
        if let Some(ctx) = handle.and_then(|h| rt.contexts.get(h.as_raw())) {
            destroy(rt, &ctx)?;
        }
        with_state(rt, |s| s.primary.entry(dev).or_default().context = None);
        Ok(())
    })
}

/// `cuDevicePrimaryCtxGetState`: (flags, active).
pub fn primary_ctx_get_state(dev: CuDevice) -> CuResultOf<(u32, bool)> {
    cu(|rt| {
        device_of(rt, dev, "cuDevicePrimaryCtxGetState")?;
        let p: Primary = with_state(rt, |s| s.primary.get(&dev).cloned().unwrap_or_default());
        let active = p
            .context
            .and_then(|h| rt.contexts.get(h.as_raw()))
            .is_some_and(|c| !c.is_destroyed());
        let flags = match p.context {
            Some(h) if active => with_state(rt, |s| s.contexts.get(&h.as_raw()).map(|i| i.flags)),
            _ => None,
        };
        Ok((flags.unwrap_or(p.flags), active))
    })
}

/// `cuDevicePrimaryCtxSetFlags`: the flags of the primary context (applied to an active one
/// too). `while_active_ok` false is the first version's rule: refused with
/// `CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE` while the context is active.
pub fn primary_ctx_set_flags(dev: CuDevice, flags: u32, while_active_ok: bool) -> CuResultOf<()> {
    let (_, active) = primary_ctx_get_state(dev)?;
    cu(|rt| {
        check_ctx_flags(flags, "cuDevicePrimaryCtxSetFlags")?;
        if active && !while_active_ok {
            return fail(
                CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
                format!(
                    "cuDevicePrimaryCtxSetFlags: the primary context of device {dev} is active"
                ),
            );
        }
        with_state(rt, |s| {
            let p = s.primary.entry(dev).or_default();
            p.flags = flags;
            if let Some(info) = p.context.and_then(|h| s.contexts.get_mut(&h.as_raw())) {
                info.flags = flags;
            }
        });
        Ok(())
    })
}
