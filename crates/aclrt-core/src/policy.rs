//! Stream semantics that differ between the faces, as policies of contexts and streams.
//!
//! ACL streams are independent: the default stream synchronises with nothing, and a task
//! failure stops other work only on streams that asked for it (`ACL_STOP_ON_FAILURE`). CUDA
//! contexts have a *legacy* default stream, which waits for every blocking stream and which
//! blocking streams wait for, and every task failure is sticky (it stops the context, as a
//! device fault does). The model reads these policies; it never asks which face made an object.

/// How a context's streams behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContextPolicy {
    /// The default stream is a legacy stream (see `Stream::add_implicit_waits`).
    pub(crate) legacy_default_stream: bool,
    /// Every task failure stops the whole context; its streams are born in stop-on-failure
    /// mode.
    pub(crate) failures_stop_the_context: bool,
    /// A copy between two devices' memory needs peer access enabled (ACL); without it the
    /// copy goes through the host, as CUDA's unified addressing lets it.
    pub(crate) copies_need_peer_access: bool,
}

impl ContextPolicy {
    /// ACL contexts.
    pub(crate) const ACL: Self = Self {
        legacy_default_stream: false,
        failures_stop_the_context: false,
        copies_need_peer_access: true,
    };
    /// CUDA contexts.
    pub(crate) const CUDA: Self = Self {
        legacy_default_stream: true,
        failures_stop_the_context: true,
        copies_need_peer_access: false,
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
