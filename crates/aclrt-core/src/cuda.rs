//! CUDA stream semantics over the same core: the legacy default stream.
//!
//! In a CUDA context the default stream is the *legacy* stream: work on it first waits for all
//! blocking streams (created without `CU_STREAM_NON_BLOCKING`) and blocking streams wait for it.
//! Both are expressed as implicit `StreamWait` tasks queued just before the new work.

use std::sync::Arc;

use crate::error::Result;
use crate::stream::Stream;
use crate::task::{TaskKind, TaskMeta, Work};

/// `CU_STREAM_DEFAULT`.
pub const CU_STREAM_DEFAULT: u32 = 0;
/// `CU_STREAM_NON_BLOCKING`: no implicit synchronisation with the legacy stream.
pub const CU_STREAM_NON_BLOCKING: u32 = 1;

/// Queues the implicit waits the legacy default stream needs before new work on `stream`.
pub(crate) fn add_implicit_waits(stream: &Arc<Stream>) -> Result<()> {
    let ctx = &stream.context;
    let waits: Vec<Arc<Stream>> = if stream.is_default {
        ctx.streams()
            .into_iter()
            .filter(|s| s.cuda_blocking && !s.is_default && !s.is_idle())
            .collect()
    } else if stream.cuda_blocking {
        let legacy = ctx.default_stream();
        if legacy.is_idle() {
            Vec::new()
        } else {
            vec![legacy.clone()]
        }
    } else {
        Vec::new()
    };
    for other in waits {
        let until = other.submitted();
        stream.submit(
            TaskKind::StreamWait,
            Work::StreamWait {
                stream: other,
                until,
            },
            TaskMeta::default(),
        )?;
    }
    Ok(())
}
