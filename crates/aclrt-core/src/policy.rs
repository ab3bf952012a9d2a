//! Stream semantics that differ between the faces, as policies of contexts and streams.
//!
//! ACL streams are independent: the default stream synchronises with nothing, and a task
//! failure stops other work only on streams that asked for it (`ACL_STOP_ON_FAILURE`). CUDA
//! contexts have a *legacy* default stream, which waits for every blocking stream and which
//! blocking streams wait for, and every task failure is sticky (it stops the context, as a
//! device fault does). The model reads these policies; it never asks which face made an object.

use std::sync::Arc;

use crate::error::Result;
use crate::stream::Stream;
use crate::task::{TaskKind, TaskMeta, Work};

/// How a context's streams behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContextPolicy {
    /// The default stream is a legacy stream (see [`add_implicit_waits`]).
    pub(crate) legacy_default_stream: bool,
    /// Every task failure stops the whole context; its streams are born in stop-on-failure
    /// mode.
    pub(crate) failures_stop_the_context: bool,
}

impl ContextPolicy {
    /// ACL contexts.
    pub(crate) const ACL: Self = Self {
        legacy_default_stream: false,
        failures_stop_the_context: false,
    };
    /// CUDA contexts.
    pub(crate) const CUDA: Self = Self {
        legacy_default_stream: true,
        failures_stop_the_context: true,
    };
}

/// Whether a stream synchronises with its context's legacy default stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LegacySync {
    /// No implicit synchronisation (every ACL stream; `CU_STREAM_NON_BLOCKING`).
    Independent,
    /// A blocking stream: it waits for the legacy stream, and the legacy stream for it.
    Blocking,
}

/// Queues the implicit waits a legacy default stream needs before new work on `stream`: work
/// on the legacy stream first waits for every busy blocking stream, work on a blocking stream
/// first waits for a busy legacy stream. Expressed as `StreamWait` tasks queued just before.
pub(crate) fn add_implicit_waits(stream: &Arc<Stream>) -> Result<()> {
    let ctx = &stream.context;
    if !ctx.policy.legacy_default_stream {
        return Ok(());
    }
    let waits: Vec<Arc<Stream>> = if stream.is_default {
        ctx.streams_where(|s| {
            s.legacy_sync == LegacySync::Blocking && !s.is_default && !s.is_idle()
        })
    } else if stream.legacy_sync == LegacySync::Blocking {
        ctx.default_stream()
            .filter(|legacy| !legacy.is_idle())
            .into_iter()
            .collect()
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
