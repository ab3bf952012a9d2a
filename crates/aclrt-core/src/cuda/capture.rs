//! Stream capture and graphs.
//!
//! While a stream captures, the work submitted to it is not run: each call leaves a *node* in
//! the capture sequence's graph, holding what is needed to submit that work again (a
//! [`Recipe`]) and the nodes it depends on. A node depends on the nodes the stream's
//! *frontier* names (at first empty; after each node, that node), so one stream's nodes form a
//! chain. Another stream joins the sequence by waiting on an event recorded in it, taking the
//! event's frontier as its own; the origin stream takes a forked stream's work back the same
//! way. `cuStreamEndCapture` on the origin stream ends the sequence and makes the graph.
//!
//! Graphs are also made empty (`cuGraphCreate`) and edited: nodes are added with the work a
//! call would submit, made by running that call with its submission diverted into the node
//! ([`graph_add_node`]), so it is checked exactly as on a stream. A node handle names its
//! graph's sequence number and its index; indices never move (a destroyed node leaves a hole),
//! so handles stay valid while their node lives. Instantiating copies the graph's nodes into
//! an executable graph with an order in which each node follows its dependencies (the lowest
//! index first among the ready ones, which for a captured graph is capture order); launching
//! one submits every node's work on the launch stream in that order, so each launch is the
//! work submitted again, independent branches running one after the other. Editing a graph
//! never changes an executable graph made from it; setting an executable graph's node
//! parameters changes later launches only.
//!
//! Calls that cannot be recorded fail with the reference's codes and invalidate the sequence
//! they concern: synchronising or querying a capturing stream or its context
//! (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`), using the legacy stream while a blocking stream of
//! its context captures (`CUDA_ERROR_STREAM_CAPTURE_IMPLICIT`), querying or synchronising an
//! event last recorded in a capture (`CUDA_ERROR_CAPTURED_EVENT`), waiting in a capture on an
//! event recorded outside it (`CUDA_ERROR_STREAM_CAPTURE_ISOLATION`) or in another capture
//! (`CUDA_ERROR_STREAM_CAPTURE_MERGE`), and the potentially unsafe calls (allocations and
//! frees) made where the capture modes prohibit them (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`).
//!
//! Everything lives in the CUDA face's table (`state.rs`); a process-wide count of sequences
//! and captured events lets calls skip that lock while nothing captures.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;

use super::api::{cu, current, current_any, fail, resolve, sticky, stream_of};
use super::codes::*;
use super::state::{with_state, State};
use super::user_object::Refs;
use super::{CuError, CuResultOf};
use crate::event::Event;
use crate::handle::{EventHandle, StreamHandle};
use crate::runtime::Runtime;
use crate::stream::Stream;

/// Submits one node's work on a stream: the first time when nothing captures, again at every
/// launch of a graph holding it.
pub(crate) type Recipe = Arc<dyn Fn(&Runtime, &Arc<Stream>) -> CuResultOf<()> + Send + Sync>;

/// `CUstreamCaptureStatus`: `CU_STREAM_CAPTURE_STATUS_NONE`.
pub const CU_STREAM_CAPTURE_STATUS_NONE: u32 = 0;
/// `CU_STREAM_CAPTURE_STATUS_ACTIVE`.
pub const CU_STREAM_CAPTURE_STATUS_ACTIVE: u32 = 1;
/// `CU_STREAM_CAPTURE_STATUS_INVALIDATED`.
pub const CU_STREAM_CAPTURE_STATUS_INVALIDATED: u32 = 2;

/// `CU_STREAM_CAPTURE_MODE_GLOBAL`: the default thread interaction mode.
pub const CU_STREAM_CAPTURE_MODE_GLOBAL: u32 = 0;
/// `CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`.
pub const CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: u32 = 1;
/// `CU_STREAM_CAPTURE_MODE_RELAXED`.
pub const CU_STREAM_CAPTURE_MODE_RELAXED: u32 = 2;

/// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH: u64 = 1;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD`.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: u64 = 2;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: u64 = 4;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`.
pub const CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY: u64 = 8;

/// `CUgraphNodeType` of the nodes a capture makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum NodeKind {
    /// `CU_GRAPH_NODE_TYPE_KERNEL`.
    Kernel = 0,
    /// `CU_GRAPH_NODE_TYPE_MEMCPY`.
    Memcpy = 1,
    /// `CU_GRAPH_NODE_TYPE_MEMSET`.
    Memset = 2,
    /// `CU_GRAPH_NODE_TYPE_HOST`.
    Host = 3,
    /// `CU_GRAPH_NODE_TYPE_GRAPH`: a graph launched while capturing.
    Graph = 4,
    /// `CU_GRAPH_NODE_TYPE_EMPTY`.
    Empty = 5,
    /// `CU_GRAPH_NODE_TYPE_WAIT_EVENT`.
    WaitEvent = 6,
    /// `CU_GRAPH_NODE_TYPE_EVENT_RECORD`.
    EventRecord = 7,
    /// `CU_GRAPH_NODE_TYPE_BATCH_MEM_OP`: stream memory operations (value waits and writes,
    /// barriers) in their order.
    BatchMemOp = 12,
}

/// What a face keeps with a node it made, to answer parameter queries; opaque to the core.
pub type NodeParams = Arc<dyn Any + Send + Sync>;

#[derive(Clone)]
struct Node {
    kind: NodeKind,
    deps: Vec<usize>,
    run: Recipe,
    params: Option<NodeParams>,
    /// A child graph node's graph (owned by the node); its work is made at instantiation.
    child: Option<u64>,
}

/// A graph's nodes by index; a destroyed node leaves `None`, so handles stay put.
#[derive(Clone)]
struct Graph {
    /// Names its nodes: the capture sequence it came from, or a fresh sequence number.
    sequence: u64,
    nodes: Vec<Option<Node>>,
    /// Owned by a child graph node: not for `cuGraphDestroy`.
    embedded: bool,
    /// The sequence number of the graph this one was cloned from.
    cloned_from: Option<u64>,
    /// The references it owns on user objects (copied with it, released with it).
    refs: Refs,
}

/// An executable graph: a copy of its graph's nodes and an order to submit them in.
#[derive(Clone)]
struct Exec {
    graph: Graph,
    order: Vec<usize>,
    /// The instantiation flags.
    flags: u64,
    /// Nodes disabled by `cuGraphNodeSetEnabled`.
    disabled: HashSet<usize>,
    /// The shape of each child graph node's graph at instantiation, by node index.
    children: HashMap<usize, Vec<(usize, NodeKind, Vec<usize>)>>,
}

struct Sequence {
    graph: u64,
    origin: u64,
    mode: u32,
    thread: ThreadId,
    invalidated: bool,
    nodes: Vec<Node>,
}

/// A stream taking part in a capture sequence.
struct Member {
    sequence: u64,
    context: u64,
    blocking: bool,
    frontier: Vec<usize>,
}

/// Captures, graphs and executable graphs of one runtime.
#[derive(Default)]
pub(crate) struct Captures {
    next_sequence: u64,
    sequences: HashMap<u64, Sequence>,
    /// By raw stream handle.
    members: HashMap<u64, Member>,
    /// Events last recorded in a capture, by raw handle: the sequence and its frontier then.
    events: HashMap<u64, (u64, Vec<usize>)>,
    graphs: HashMap<u64, Graph>,
    execs: HashMap<u64, Arc<Exec>>,
    /// The graph whose nodes a sequence number names.
    names: HashMap<u64, u64>,
}

/// Sequences plus captured events of the installed table: 0 lets calls skip the lock.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// `cuThreadExchangeStreamCaptureMode`: this thread's interaction mode.
    static THREAD_MODE: Cell<u32> = const { Cell::new(CU_STREAM_CAPTURE_MODE_GLOBAL) };
    /// Set while a call's work is made into a graph node (`cuGraphAdd*Node`): the submissions
    /// land here, in order, instead of on a stream or in a capture.
    static RECORDING: RefCell<Option<Vec<(NodeKind, Recipe)>>> = const { RefCell::new(None) };
}

fn recording() -> bool {
    RECORDING.with(|r| r.borrow().is_some())
}

/// Keeps a submission while a node is being made; `false` when none is.
fn record_here(kind: NodeKind, run: &Recipe) -> bool {
    RECORDING.with(|r| match r.borrow_mut().as_mut() {
        Some(slot) => {
            slot.push((kind, run.clone()));
            true
        }
        None => false,
    })
}

/// Runs `body`, a call that submits work, with its submissions diverted: the work it would
/// have submitted (checked as that call checks it; several submissions become one piece of
/// work running them in order), or `None` if it had nothing to do.
fn record_work(body: impl FnOnce() -> CuResultOf<()>) -> CuResultOf<Option<(NodeKind, Recipe)>> {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            RECORDING.with(|r| *r.borrow_mut() = None);
        }
    }
    RECORDING.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let _reset = Reset;
    body()?;
    let mut parts = RECORDING
        .with(|r| r.borrow_mut().take())
        .unwrap_or_default();
    Ok(match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => {
            let kind = parts[0].0;
            let runs: Vec<Recipe> = parts.into_iter().map(|(_, run)| run).collect();
            let run: Recipe = Arc::new(move |rt, ls| {
                for run in &runs {
                    run(rt, ls)?;
                }
                Ok(())
            });
            Some((kind, run))
        }
    })
}

fn quiet() -> bool {
    ACTIVE.load(Ordering::Acquire) == 0
}

fn note(c: &Captures) {
    ACTIVE.store(c.sequences.len() + c.events.len(), Ordering::Release);
}

fn with_captures<T>(rt: &Runtime, body: impl FnOnce(&mut Captures) -> T) -> T {
    with_state(rt, |s: &mut State| {
        let out = body(&mut s.captures);
        note(&s.captures);
        out
    })
}

/// A graph node's opaque handle: the sequence that made it and its index.
fn node_handle(sequence: u64, index: usize) -> u64 {
    (u64::from(b'N') << 56) | (sequence << 24) | (index as u64 + 1)
}

impl Captures {
    fn invalidate(&mut self, sequence: u64) {
        if let Some(seq) = self.sequences.get_mut(&sequence) {
            seq.invalidated = true;
        }
    }

    /// Fails with `code` and invalidates `sequence`.
    fn refuse<T>(&mut self, sequence: u64, code: CuResult, message: String) -> CuResultOf<T> {
        self.invalidate(sequence);
        fail(code, message)
    }

    /// The sequences of blocking streams of `context` that capture.
    fn blocking_in(&self, context: u64) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .members
            .values()
            .filter(|m| m.blocking && m.context == context)
            .map(|m| m.sequence)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The legacy stream of `context` may not be used while a blocking stream of it captures:
    /// its work would implicitly wait for work that is not running.
    fn legacy_use(&mut self, s: &Stream, call: &str) -> CuResultOf<()> {
        if !s.is_default {
            return Ok(());
        }
        let blocking = self.blocking_in(s.context.handle.as_raw());
        if blocking.is_empty() {
            return Ok(());
        }
        for &q in &blocking {
            self.invalidate(q);
        }
        fail(
            CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
            format!("{call}: the legacy stream is used while a blocking stream of its context is capturing"),
        )
    }

    fn add_node(
        &mut self,
        stream: u64,
        kind: NodeKind,
        run: Recipe,
        params: Option<NodeParams>,
    ) -> bool {
        let Some(member) = self.members.get_mut(&stream) else {
            return false;
        };
        let Some(seq) = self.sequences.get_mut(&member.sequence) else {
            return false;
        };
        if !seq.invalidated {
            seq.nodes.push(Node {
                kind,
                deps: std::mem::take(&mut member.frontier),
                run,
                params,
                child: None,
            });
            member.frontier = vec![seq.nodes.len() - 1];
        }
        true
    }

    fn end_sequence(&mut self, sequence: u64) -> Option<Sequence> {
        self.members.retain(|_, m| m.sequence != sequence);
        self.sequences.remove(&sequence)
    }
}

// ---- hooks for the calls that submit work ---------------------------------------------------

/// Submits `run`'s work on `s`, or records it as a node if `s` is capturing. Returns `true`
/// when it was captured (the work has not run and must not be waited for).
pub(super) fn submit(
    rt: &Runtime,
    s: &Arc<Stream>,
    kind: NodeKind,
    call: &str,
    run: Recipe,
) -> CuResultOf<bool> {
    submit_with(rt, s, kind, call, run, None)
}

/// [`submit`], with the parameters a captured node keeps (a node added to a graph gets its
/// parameters from the call that adds it instead).
pub(super) fn submit_with(
    rt: &Runtime,
    s: &Arc<Stream>,
    kind: NodeKind,
    call: &str,
    run: Recipe,
    params: Option<NodeParams>,
) -> CuResultOf<bool> {
    if record_here(kind, &run) {
        return Ok(true);
    }
    if !quiet() {
        let captured = with_captures(rt, |c| {
            c.legacy_use(s, call)?;
            Ok::<_, CuError>(c.add_node(s.handle.as_raw(), kind, run.clone(), params.clone()))
        })?;
        if captured {
            return Ok(true);
        }
    }
    run(rt, s)?;
    Ok(false)
}

/// Whether `s` is capturing (after the legacy-stream rule): the caller then records a node
/// through [`submit`] rather than taking its immediate path.
pub(super) fn capturing(rt: &Runtime, s: &Stream, call: &str) -> CuResultOf<bool> {
    if recording() {
        return Ok(true);
    }
    if quiet() {
        return Ok(false);
    }
    with_captures(rt, |c| {
        c.legacy_use(s, call)?;
        Ok(c.members.contains_key(&s.handle.as_raw()))
    })
}

/// Synchronising or querying `s`: refused while it captures, or, for the legacy stream, while
/// a blocking stream of its context does.
pub(super) fn check_observe(rt: &Runtime, s: &Stream, call: &str) -> CuResultOf<()> {
    if quiet() {
        return Ok(());
    }
    with_captures(rt, |c| {
        if let Some(m) = c.members.get(&s.handle.as_raw()) {
            let q = m.sequence;
            return c.refuse(
                q,
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!("{call}: stream {} is capturing", s.id),
            );
        }
        c.legacy_use(s, call)
    })
}

/// `cuCtxSynchronize`: refused while a stream of the context captures.
pub(super) fn check_context_sync(rt: &Runtime, context: u64) -> CuResultOf<()> {
    if quiet() {
        return Ok(());
    }
    with_captures(rt, |c| {
        let mut hit: Vec<u64> = c
            .members
            .values()
            .filter(|m| m.context == context)
            .map(|m| m.sequence)
            .collect();
        hit.dedup();
        if hit.is_empty() {
            return Ok(());
        }
        for q in hit {
            c.invalidate(q);
        }
        fail(
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            "cuCtxSynchronize: a stream of the context is capturing",
        )
    })
}

/// Querying, synchronising or timing an event: refused if it was last recorded in a capture.
pub(super) fn check_event(rt: &Runtime, ev: &Event, call: &str) -> CuResultOf<()> {
    if quiet() {
        return Ok(());
    }
    with_captures(rt, |c| match c.events.get(&ev.handle.as_raw()) {
        Some(&(q, _)) => c.refuse(
            q,
            CUDA_ERROR_CAPTURED_EVENT,
            format!(
                "{call}: event {} was last recorded in a stream capture",
                ev.id
            ),
        ),
        None => Ok(()),
    })
}

/// A potentially unsafe call (one that is not stream-ordered: allocations, frees): unless this
/// thread's interaction mode is relaxed, refused while this thread has a capture not begun in
/// relaxed mode, or (thread mode global) while any thread has one begun in global mode. The
/// captures concerned are invalidated.
pub(super) fn check_unsafe(rt: &Runtime, call: &str) -> CuResultOf<()> {
    if quiet() {
        return Ok(());
    }
    let me = std::thread::current().id();
    let mine = THREAD_MODE.with(Cell::get);
    with_captures(rt, |c| {
        let hit: Vec<u64> = c
            .sequences
            .iter()
            .filter(|(_, q)| {
                mine != CU_STREAM_CAPTURE_MODE_RELAXED
                    && q.mode != CU_STREAM_CAPTURE_MODE_RELAXED
                    && (q.thread == me
                        || (q.mode == CU_STREAM_CAPTURE_MODE_GLOBAL
                            && mine == CU_STREAM_CAPTURE_MODE_GLOBAL))
            })
            .map(|(&id, _)| id)
            .collect();
        if hit.is_empty() {
            return Ok(());
        }
        for q in hit {
            c.invalidate(q);
        }
        fail(
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!("{call}: not permitted while a stream capture is under way (capture mode)"),
        )
    })
}

/// `cuEventRecord[WithFlags]` on `s`: in a capture, the event takes the stream's frontier (or,
/// with `CU_EVENT_RECORD_EXTERNAL`, becomes an event record node); outside one, a record
/// forgets an earlier capture. Returns `true` when the record was captured.
pub(super) fn record(
    rt: &Runtime,
    ev: &Arc<Event>,
    s: &Arc<Stream>,
    external: bool,
) -> CuResultOf<bool> {
    if quiet() {
        return Ok(false);
    }
    let handle = ev.handle.as_raw();
    let event = ev.clone();
    with_captures(rt, |c| {
        c.legacy_use(s, "cuEventRecord")?;
        let Some(m) = c.members.get(&s.handle.as_raw()) else {
            c.events.remove(&handle);
            return Ok(false);
        };
        if external {
            let run: Recipe = Arc::new(move |rt, ls| Ok(rt.record_on(&event, ls)?));
            c.add_node(s.handle.as_raw(), NodeKind::EventRecord, run, None);
        } else {
            c.events.insert(handle, (m.sequence, m.frontier.clone()));
        }
        Ok(true)
    })
}

/// `cuStreamWaitEvent(s, ev)`: an event recorded in a capture makes `s` depend on what it
/// captured (joining the capture if `s` is not in one); in a capture, an event recorded
/// outside needs `CU_EVENT_WAIT_EXTERNAL` (an event wait node). Returns `true` when handled.
pub(super) fn wait(
    rt: &Runtime,
    s: &Arc<Stream>,
    ev: &Arc<Event>,
    external: bool,
) -> CuResultOf<bool> {
    if quiet() {
        return Ok(false);
    }
    let stream = s.handle.as_raw();
    let event = ev.clone();
    with_captures(rt, |c| {
        c.legacy_use(s, "cuStreamWaitEvent")?;
        let recorded = c
            .events
            .get(&ev.handle.as_raw())
            .filter(|(q, _)| c.sequences.contains_key(q))
            .cloned();
        let member = c.members.get(&stream).map(|m| m.sequence);
        match (recorded, member) {
            (Some((q, deps)), Some(mine)) if q == mine => {
                let m = c.members.get_mut(&stream).expect("a member");
                for d in deps {
                    if !m.frontier.contains(&d) {
                        m.frontier.push(d);
                    }
                }
                Ok(true)
            }
            (Some((q, _)), Some(mine)) => {
                c.invalidate(q);
                c.refuse(
                    mine,
                    CUDA_ERROR_STREAM_CAPTURE_MERGE,
                    format!("cuStreamWaitEvent: stream {} and event {} belong to different captures", s.id, ev.id),
                )
            }
            (Some((q, deps)), None) => {
                c.members.insert(
                    stream,
                    Member {
                        sequence: q,
                        context: s.context.handle.as_raw(),
                        blocking: !s.is_default && s.flags & super::CU_STREAM_NON_BLOCKING == 0,
                        frontier: deps,
                    },
                );
                Ok(true)
            }
            (None, Some(mine)) if external => {
                let run: Recipe = Arc::new(move |rt, ls| Ok(rt.wait_on(ls, &event, None)?));
                c.add_node(stream, NodeKind::WaitEvent, run, None);
                let _ = mine;
                Ok(true)
            }
            (None, Some(mine)) => c.refuse(
                mine,
                CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                format!("cuStreamWaitEvent: stream {} is capturing and event {} was not recorded in its capture", s.id, ev.id),
            ),
            (None, None) => Ok(false),
        }
    })
}

/// A stream being destroyed leaves its capture, which is invalidated (the whole sequence ends
/// with its origin).
pub(super) fn forget_stream(rt: &Runtime, stream: StreamHandle) {
    if quiet() {
        return;
    }
    with_captures(rt, |c| {
        if let Some(m) = c.members.remove(&stream.as_raw()) {
            c.invalidate(m.sequence);
            if c.sequences
                .get(&m.sequence)
                .is_some_and(|q| q.origin == stream.as_raw())
            {
                c.end_sequence(m.sequence);
            }
        }
    })
}

/// An event being destroyed is no longer a captured event.
pub(super) fn forget_event(rt: &Runtime, event: EventHandle) {
    if quiet() {
        return;
    }
    with_captures(rt, |c| {
        c.events.remove(&event.as_raw());
    })
}

// ---- stream capture ---------------------------------------------------------------------------

fn capture_stream(rt: &Runtime, handle: StreamHandle) -> CuResultOf<Arc<Stream>> {
    let s = stream_of(rt, resolve(rt, handle)?)?;
    current_any(rt)?;
    Ok(s)
}

/// `cuStreamBeginCapture_v2(stream, mode)`: the stream starts a capture sequence. The legacy
/// stream cannot capture (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`), nor can a stream already
/// capturing (`CUDA_ERROR_ILLEGAL_STATE`).
pub fn stream_begin_capture(handle: StreamHandle, mode: u32) -> CuResultOf<()> {
    cu(|rt| {
        let s = capture_stream(rt, handle)?;
        current(rt)?;
        sticky(&s.context)?;
        if mode > CU_STREAM_CAPTURE_MODE_RELAXED {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuStreamBeginCapture: {mode} is not a CUstreamCaptureMode"),
            );
        }
        if s.is_default {
            return fail(
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "cuStreamBeginCapture: the legacy stream cannot be captured",
            );
        }
        let s = rt.stream_for_work(Some(s), "cuStreamBeginCapture")?;
        with_state(rt, |st| {
            let graph = st.new_id(b'G');
            let c = &mut st.captures;
            if c.members.contains_key(&s.handle.as_raw()) {
                return fail(
                    CUDA_ERROR_ILLEGAL_STATE,
                    format!("cuStreamBeginCapture: stream {} is already capturing", s.id),
                );
            }
            c.next_sequence += 1;
            let id = c.next_sequence;
            c.sequences.insert(
                id,
                Sequence {
                    graph,
                    origin: s.handle.as_raw(),
                    mode,
                    thread: std::thread::current().id(),
                    invalidated: false,
                    nodes: Vec::new(),
                },
            );
            c.members.insert(
                s.handle.as_raw(),
                Member {
                    sequence: id,
                    context: s.context.handle.as_raw(),
                    blocking: s.flags & super::CU_STREAM_NON_BLOCKING == 0,
                    frontier: Vec::new(),
                },
            );
            note(c);
            Ok(())
        })
    })
}

/// `cuStreamEndCapture`: ends the sequence begun on this stream and returns its graph. Not
/// capturing: `CUDA_ERROR_ILLEGAL_STATE`; capturing but not the origin:
/// `CUDA_ERROR_STREAM_CAPTURE_UNMATCHED`; another thread, unless relaxed:
/// `CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD` (the capture goes on). An invalidated sequence
/// (`CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`) or one with a fork not joined back
/// (`CUDA_ERROR_STREAM_CAPTURE_UNJOINED`) ends without a graph.
pub fn stream_end_capture(handle: StreamHandle) -> CuResultOf<u64> {
    cu(|rt| {
        let s = capture_stream(rt, handle)?;
        let raw = s.handle.as_raw();
        with_captures(rt, |c| {
            let Some(m) = c.members.get(&raw) else {
                return fail(
                    CUDA_ERROR_ILLEGAL_STATE,
                    format!("cuStreamEndCapture: stream {} is not capturing", s.id),
                );
            };
            let q = m.sequence;
            let seq = &c.sequences[&q];
            if seq.origin != raw {
                return fail(
                    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                    format!(
                        "cuStreamEndCapture: the capture was not begun on stream {}",
                        s.id
                    ),
                );
            }
            if seq.mode != CU_STREAM_CAPTURE_MODE_RELAXED
                && seq.thread != std::thread::current().id()
            {
                return fail(
                    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                    "cuStreamEndCapture: the capture was begun on another thread",
                );
            }
            let joined = joined(c, q, raw);
            let seq = c.end_sequence(q).expect("the sequence is live");
            if seq.invalidated {
                return fail(
                    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                    "cuStreamEndCapture: the capture was invalidated by an earlier error",
                );
            }
            if !joined {
                return fail(
                    CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
                    "cuStreamEndCapture: a stream forked from the capture was not joined back",
                );
            }
            c.graphs.insert(
                seq.graph,
                Graph {
                    sequence: q,
                    nodes: seq.nodes.into_iter().map(Some).collect(),
                    embedded: false,
                    cloned_from: None,
                    refs: Refs::default(),
                },
            );
            c.names.insert(q, seq.graph);
            Ok(seq.graph)
        })
    })
}

/// Whether every node of sequence `q` comes before the origin's frontier: each forked stream's
/// work was joined back.
fn joined(c: &Captures, q: u64, origin: u64) -> bool {
    let nodes = &c.sequences[&q].nodes;
    let mut before: HashSet<usize> = HashSet::new();
    let mut todo: Vec<usize> = c.members[&origin].frontier.clone();
    while let Some(n) = todo.pop() {
        if before.insert(n) {
            todo.extend(nodes[n].deps.iter().copied());
        }
    }
    before.len() == nodes.len()
}

/// `CU_STREAM_ADD_CAPTURE_DEPENDENCIES`.
pub const CU_STREAM_ADD_CAPTURE_DEPENDENCIES: u32 = 0;
/// `CU_STREAM_SET_CAPTURE_DEPENDENCIES`.
pub const CU_STREAM_SET_CAPTURE_DEPENDENCIES: u32 = 1;

/// `cuStreamUpdateCaptureDependencies`: adds `nodes` to the nodes the capturing stream's next
/// node will depend on, or (`SET`) makes them those nodes. The stream must be capturing
/// (`CUDA_ERROR_ILLEGAL_STATE`); each node must be one this capture made
/// (`CUDA_ERROR_INVALID_VALUE`).
pub fn stream_update_capture_dependencies(
    handle: StreamHandle,
    nodes: &[u64],
    flags: u32,
) -> CuResultOf<()> {
    let call = "cuStreamUpdateCaptureDependencies";
    cu(|rt| {
        let s = capture_stream(rt, handle)?;
        if flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{call}: flags {flags:#x} are not a CUstreamUpdateCaptureDependencies_flags"
                ),
            );
        }
        with_captures(rt, |c| {
            let Some(m) = c.members.get(&s.handle.as_raw()) else {
                return fail(
                    CUDA_ERROR_ILLEGAL_STATE,
                    format!("{call}: stream {} is not capturing", s.id),
                );
            };
            let q = m.sequence;
            let made = c.sequences[&q].nodes.len();
            let mut indices = Vec::with_capacity(nodes.len());
            for &n in nodes {
                match split_node(n) {
                    Some((seq, i)) if seq == q && i < made => indices.push(i),
                    _ => {
                        return fail(
                            CUDA_ERROR_INVALID_VALUE,
                            format!("{call}: {n:#x} is not a node of the stream's capture"),
                        )
                    }
                }
            }
            let m = c.members.get_mut(&s.handle.as_raw()).expect("a member");
            if flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES {
                m.frontier.clear();
            }
            for i in indices {
                if !m.frontier.contains(&i) {
                    m.frontier.push(i);
                }
            }
            Ok(())
        })
    })
}

/// What `cuStreamGetCaptureInfo` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureInfo {
    /// `CUstreamCaptureStatus`.
    pub status: u32,
    /// The sequence's id (unique in the process), 0 when not capturing.
    pub id: u64,
    /// The graph being built (a handle valid once the capture ends successfully).
    pub graph: u64,
    /// The nodes the stream's next node will depend on.
    pub dependencies: Vec<u64>,
}

/// `cuStreamIsCapturing` / `cuStreamGetCaptureInfo`: the legacy stream while a blocking stream
/// of its context captures is `CUDA_ERROR_STREAM_CAPTURE_IMPLICIT`.
pub fn stream_capture_info(handle: StreamHandle) -> CuResultOf<CaptureInfo> {
    cu(|rt| {
        let s = capture_stream(rt, handle)?;
        let none = CaptureInfo {
            status: CU_STREAM_CAPTURE_STATUS_NONE,
            id: 0,
            graph: 0,
            dependencies: Vec::new(),
        };
        if quiet() {
            return Ok(none);
        }
        with_captures(rt, |c| {
            if s.is_default && !c.blocking_in(s.context.handle.as_raw()).is_empty() {
                return fail(
                    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                    "cuStreamIsCapturing: the legacy stream while a blocking stream of its context is capturing",
                );
            }
            let Some(m) = c.members.get(&s.handle.as_raw()) else {
                return Ok(none);
            };
            let seq = &c.sequences[&m.sequence];
            Ok(CaptureInfo {
                status: if seq.invalidated {
                    CU_STREAM_CAPTURE_STATUS_INVALIDATED
                } else {
                    CU_STREAM_CAPTURE_STATUS_ACTIVE
                },
                id: m.sequence,
                graph: seq.graph,
                dependencies: m
                    .frontier
                    .iter()
                    .map(|&n| node_handle(m.sequence, n))
                    .collect(),
            })
        })
    })
}

/// `cuThreadExchangeStreamCaptureMode`: sets this thread's interaction mode, returns the old.
pub fn thread_exchange_capture_mode(mode: u32) -> CuResultOf<u32> {
    cu(|_| {
        if mode > CU_STREAM_CAPTURE_MODE_RELAXED {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuThreadExchangeStreamCaptureMode: {mode} is not a CUstreamCaptureMode"),
            );
        }
        Ok(THREAD_MODE.with(|m| m.replace(mode)))
    })
}

// ---- graphs ------------------------------------------------------------------------------------

fn graph<'a>(c: &'a Captures, handle: u64, call: &str) -> CuResultOf<&'a Graph> {
    c.graphs.get(&handle).ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a live graph"),
        )
    })
}

fn graph_mut<'a>(c: &'a mut Captures, handle: u64, call: &str) -> CuResultOf<&'a mut Graph> {
    c.graphs.get_mut(&handle).ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a live graph"),
        )
    })
}

fn exec(c: &Captures, handle: u64, call: &str) -> CuResultOf<Arc<Exec>> {
    c.execs.get(&handle).cloned().ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a live executable graph"),
        )
    })
}

/// The sequence and index a node handle names (any handle: it may name nothing).
fn split_node(handle: u64) -> Option<(u64, usize)> {
    if handle >> 56 != u64::from(b'N') || handle & 0xFF_FFFF == 0 {
        return None;
    }
    Some((
        (handle >> 24) & 0xFFFF_FFFF,
        (handle & 0xFF_FFFF) as usize - 1,
    ))
}

fn bad_node<T>(call: &str, handle: u64) -> CuResultOf<T> {
    fail(
        CUDA_ERROR_INVALID_VALUE,
        format!("{call}: {handle:#x} is not a live graph node"),
    )
}

/// The graph holding node `handle` and the node's index.
fn locate(c: &Captures, handle: u64, call: &str) -> CuResultOf<(u64, usize)> {
    let Some((sequence, index)) = split_node(handle) else {
        return bad_node(call, handle);
    };
    let Some(&g) = c.names.get(&sequence) else {
        return bad_node(call, handle);
    };
    match c.graphs.get(&g).and_then(|g| g.nodes.get(index)) {
        Some(Some(_)) => Ok((g, index)),
        _ => bad_node(call, handle),
    }
}

/// The index of node `handle` in `g`: `CUDA_ERROR_INVALID_VALUE` if it is not a live node of it.
fn index_in(g: &Graph, handle: u64, call: &str) -> CuResultOf<usize> {
    match split_node(handle) {
        Some((q, i)) if q == g.sequence && matches!(g.nodes.get(i), Some(Some(_))) => Ok(i),
        _ => fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a node of the graph"),
        ),
    }
}

impl Graph {
    fn live(&self) -> impl Iterator<Item = (usize, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.as_ref().map(|n| (i, n)))
    }

    fn node(&self, i: usize) -> &Node {
        self.nodes[i].as_ref().expect("a live node")
    }

    fn handle(&self, i: usize) -> u64 {
        node_handle(self.sequence, i)
    }

    /// Node indices in an order where each node comes after its dependencies (lowest index
    /// first among the ready ones); `None` if the dependencies form a cycle.
    fn order(&self) -> Option<Vec<usize>> {
        let mut waiting: HashMap<usize, usize> =
            self.live().map(|(i, n)| (i, n.deps.len())).collect();
        let mut dependents: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, n) in self.live() {
            for &d in &n.deps {
                dependents.entry(d).or_default().push(i);
            }
        }
        let mut ready: std::collections::BTreeSet<usize> = waiting
            .iter()
            .filter(|(_, &w)| w == 0)
            .map(|(&i, _)| i)
            .collect();
        let mut out = Vec::with_capacity(waiting.len());
        while let Some(i) = ready.pop_first() {
            out.push(i);
            for &j in dependents.get(&i).map_or(&[][..], |v| &v[..]) {
                let w = waiting.get_mut(&j).expect("a live node");
                *w -= 1;
                if *w == 0 {
                    ready.insert(j);
                }
            }
        }
        (out.len() == waiting.len()).then_some(out)
    }
}

/// `cuGraphCreate(flags)`: an empty graph; `flags` must be 0.
pub fn graph_create(flags: u32) -> CuResultOf<u64> {
    cu(|rt| {
        current(rt)?;
        if flags != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuGraphCreate: flags must be 0, not {flags:#x}"),
            );
        }
        with_state(rt, |st| {
            let id = st.new_id(b'G');
            let c = &mut st.captures;
            c.next_sequence += 1;
            let sequence = c.next_sequence;
            c.graphs.insert(
                id,
                Graph {
                    sequence,
                    nodes: Vec::new(),
                    embedded: false,
                    cloned_from: None,
                    refs: Refs::default(),
                },
            );
            c.names.insert(sequence, id);
            Ok(id)
        })
    })
}

/// `cuGraphDestroy`: its nodes go with it; executable graphs made from it live on.
pub fn graph_destroy(handle: u64) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            if graph(c, handle, "cuGraphDestroy")?.embedded {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("cuGraphDestroy: graph {handle:#x} belongs to a child graph node"),
                );
            }
            drop_graph(c, handle);
            Ok(())
        })
    })
}

/// Removes graph `handle` and the child graphs its nodes own.
fn drop_graph(c: &mut Captures, handle: u64) {
    if let Some(g) = c.graphs.remove(&handle) {
        c.names.remove(&g.sequence);
        for child in g.nodes.into_iter().flatten().filter_map(|n| n.child) {
            drop_graph(c, child);
        }
    }
}

/// A copy of graph `src` under a fresh handle and sequence number; the child graphs its nodes
/// own are copied too.
fn deep_clone(st: &mut State, src: u64, embedded: bool, call: &str) -> CuResultOf<u64> {
    let mut copy = graph(&st.captures, src, call)?.clone();
    for n in copy.nodes.iter_mut().flatten() {
        if let Some(child) = n.child {
            n.child = Some(deep_clone(st, child, true, call)?);
        }
    }
    let id = st.new_id(b'G');
    let c = &mut st.captures;
    c.next_sequence += 1;
    copy.cloned_from = Some(copy.sequence);
    copy.sequence = c.next_sequence;
    copy.embedded = embedded;
    c.names.insert(copy.sequence, id);
    c.graphs.insert(id, copy);
    Ok(id)
}

/// `cuGraphGetNodes`: the graph's node handles, in creation order.
pub fn graph_nodes(handle: u64) -> CuResultOf<Vec<u64>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph(c, handle, "cuGraphGetNodes")?;
            Ok(g.live().map(|(i, _)| g.handle(i)).collect())
        })
    })
}

/// `cuGraphGetRootNodes`: the nodes without dependencies, in creation order.
pub fn graph_root_nodes(handle: u64) -> CuResultOf<Vec<u64>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph(c, handle, "cuGraphGetRootNodes")?;
            Ok(g.live()
                .filter(|(_, n)| n.deps.is_empty())
                .map(|(i, _)| g.handle(i))
                .collect())
        })
    })
}

/// `cuGraphGetEdges`: every dependency as (from, to), ordered by `to` then by when it was made.
pub fn graph_edges(handle: u64) -> CuResultOf<Vec<(u64, u64)>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph(c, handle, "cuGraphGetEdges")?;
            Ok(g.live()
                .flat_map(|(i, n)| n.deps.iter().map(move |&d| (g.handle(d), g.handle(i))))
                .collect())
        })
    })
}

/// The kinds of a graph's nodes, and each node's dependencies (indices), in creation order.
pub fn graph_shape(handle: u64) -> CuResultOf<Vec<(NodeKind, Vec<usize>)>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph(c, handle, "cuGraphGetNodes")?;
            Ok(g.live().map(|(_, n)| (n.kind, n.deps.clone())).collect())
        })
    })
}

/// Dependencies given for a new node: live nodes of `g`, none twice.
fn dependency_indices(g: &Graph, deps: &[u64], call: &str) -> CuResultOf<Vec<usize>> {
    let mut out = Vec::with_capacity(deps.len());
    for &d in deps {
        let i = index_in(g, d, call)?;
        if out.contains(&i) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: dependency {d:#x} is given twice"),
            );
        }
        out.push(i);
    }
    Ok(out)
}

/// Adds a node to graph `handle`, after `deps`, whose work is what `work` submits (checked as
/// that call checks it; `None` work is an empty node of kind `kind`). `params` is kept for the
/// face. Returns the node's handle.
pub fn graph_add_node(
    handle: u64,
    deps: &[u64],
    kind: NodeKind,
    params: Option<NodeParams>,
    call: &str,
    work: impl FnOnce() -> CuResultOf<()>,
) -> CuResultOf<u64> {
    cu(|rt| {
        current(rt)?;
        with_captures(rt, |c| {
            dependency_indices(graph(c, handle, call)?, deps, call)
        })?;
        Ok(())
    })?;
    let recorded = record_work(work)?;
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph_mut(c, handle, call)?;
            let deps = dependency_indices(g, deps, call)?;
            room_for_a_node(g, call)?;
            g.nodes.push(Some(make_node(kind, deps, recorded, params)));
            Ok(g.handle(g.nodes.len() - 1))
        })
    })
}

/// Node handles hold an index of 24 bits: a graph holds fewer than 2^24 nodes.
const MAX_NODES: usize = 0xFF_FFFF;

fn room_for_a_node(g: &Graph, call: &str) -> CuResultOf<()> {
    room_after(g.nodes.len(), call)
}

/// Whether a node can follow `len` (destroyed ones included, as their indices stay taken).
fn room_after(len: usize, call: &str) -> CuResultOf<()> {
    if len >= MAX_NODES {
        return fail(
            CUDA_ERROR_OUT_OF_MEMORY,
            format!("{call}: a graph holds at most {MAX_NODES} nodes"),
        );
    }
    Ok(())
}

fn make_node(
    kind: NodeKind,
    deps: Vec<usize>,
    recorded: Option<(NodeKind, Recipe)>,
    params: Option<NodeParams>,
) -> Node {
    let run: Recipe = match recorded {
        Some((_, run)) => run,
        None => Arc::new(|_, _| Ok(())),
    };
    Node {
        kind,
        deps,
        run,
        params,
        child: None,
    }
}

/// `cuGraphAddEventRecordNode` / `cuGraphAddEventWaitNode`: a node recording `event` on the
/// launch stream, or making the launch stream wait for it.
pub fn graph_add_event_node(
    handle: u64,
    deps: &[u64],
    event: EventHandle,
    wait: bool,
) -> CuResultOf<u64> {
    let call = if wait {
        "cuGraphAddEventWaitNode"
    } else {
        "cuGraphAddEventRecordNode"
    };
    cu(|rt| {
        current(rt)?;
        with_captures(rt, |c| {
            dependency_indices(graph(c, handle, call)?, deps, call)
        })?;
        let ev = super::api::cuda_event(rt, event)?;
        let (kind, run) = event_work(ev, wait);
        let params: NodeParams = Arc::new(event);
        with_captures(rt, |c| {
            let g = graph_mut(c, handle, call)?;
            let deps = dependency_indices(g, deps, call)?;
            room_for_a_node(g, call)?;
            g.nodes
                .push(Some(make_node(kind, deps, Some((kind, run)), Some(params))));
            Ok(g.handle(g.nodes.len() - 1))
        })
    })
}

/// `cuGraphAddDependencies` (`remove` false) / `cuGraphRemoveDependencies`: `from[i]` → `to[i]`
/// for each i, all or none. Adding an existing edge or one from a node to itself, or removing
/// one that does not exist, is `CUDA_ERROR_INVALID_VALUE`.
pub fn graph_edit_dependencies(
    handle: u64,
    from: &[u64],
    to: &[u64],
    remove: bool,
) -> CuResultOf<()> {
    let call = if remove {
        "cuGraphRemoveDependencies"
    } else {
        "cuGraphAddDependencies"
    };
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph_mut(c, handle, call)?;
            let mut edited = g.clone();
            for (&f, &t) in from.iter().zip(to) {
                let (fi, ti) = (index_in(g, f, call)?, index_in(g, t, call)?);
                let deps = &mut edited.nodes[ti].as_mut().expect("a live node").deps;
                let at = deps.iter().position(|&d| d == fi);
                match (remove, at) {
                    (false, None) if fi != ti => deps.push(fi),
                    (false, _) => {
                        return fail(
                            CUDA_ERROR_INVALID_VALUE,
                            format!(
                                "{call}: the edge {f:#x} -> {t:#x} exists already or is a loop"
                            ),
                        )
                    }
                    (true, Some(k)) => {
                        deps.remove(k);
                    }
                    (true, None) => {
                        return fail(
                            CUDA_ERROR_INVALID_VALUE,
                            format!("{call}: there is no edge {f:#x} -> {t:#x}"),
                        )
                    }
                }
            }
            *g = edited;
            Ok(())
        })
    })
}

/// `cuGraphNodeGetType`.
pub fn graph_node_type(node: u64) -> CuResultOf<NodeKind> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, "cuGraphNodeGetType")?;
            Ok(c.graphs[&g].node(i).kind)
        })
    })
}

/// `cuGraphNodeGetDependencies`: the nodes `node` depends on, in the order the edges were made.
pub fn graph_node_dependencies(node: u64) -> CuResultOf<Vec<u64>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, "cuGraphNodeGetDependencies")?;
            let g = &c.graphs[&g];
            Ok(g.node(i).deps.iter().map(|&d| g.handle(d)).collect())
        })
    })
}

/// `cuGraphNodeGetDependentNodes`: the nodes that depend on `node`, in creation order.
pub fn graph_node_dependents(node: u64) -> CuResultOf<Vec<u64>> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, "cuGraphNodeGetDependentNodes")?;
            let g = &c.graphs[&g];
            Ok(g.live()
                .filter(|(_, n)| n.deps.contains(&i))
                .map(|(j, _)| g.handle(j))
                .collect())
        })
    })
}

/// `cuGraphDestroyNode`: the node and its edges go.
pub fn graph_destroy_node(node: u64) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, "cuGraphDestroyNode")?;
            let g = c.graphs.get_mut(&g).expect("located");
            let gone = g.nodes[i].take().expect("a live node");
            for n in g.nodes.iter_mut().flatten() {
                n.deps.retain(|&d| d != i);
            }
            if let Some(child) = gone.child {
                drop_graph(c, child);
            }
            Ok(())
        })
    })
}

/// `cuGraphClone`: a new graph with the same nodes, edges and parameters (child graphs
/// copied too).
pub fn graph_clone(handle: u64) -> CuResultOf<u64> {
    cu(|rt| with_state(rt, |st| deep_clone(st, handle, false, "cuGraphClone")))
}

/// `cuGraphAddChildGraphNode`: a node running a copy of graph `child` (taken now) at each
/// launch, after `deps`.
pub fn graph_add_child_node(handle: u64, deps: &[u64], child: u64) -> CuResultOf<u64> {
    let call = "cuGraphAddChildGraphNode";
    cu(|rt| {
        current(rt)?;
        with_state(rt, |st| {
            let g = graph(&st.captures, handle, call)?;
            let deps = dependency_indices(g, deps, call)?;
            room_for_a_node(g, call)?;
            let copy = deep_clone(st, child, true, call)?;
            let g = graph_mut(&mut st.captures, handle, call)?;
            let mut node = make_node(NodeKind::Graph, deps, None, None);
            node.child = Some(copy);
            g.nodes.push(Some(node));
            Ok(g.handle(g.nodes.len() - 1))
        })
    })
}

/// `cuGraphChildGraphNodeGetGraph`: the graph a child graph node owns (edits to it show in
/// executable graphs instantiated later). A graph launch recorded by capture has none:
/// `CUDA_ERROR_NOT_SUPPORTED`.
pub fn graph_child_graph(node: u64) -> CuResultOf<u64> {
    let call = "cuGraphChildGraphNodeGetGraph";
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, call)?;
            let n = c.graphs[&g].node(i);
            kind_check(n.kind, NodeKind::Graph, call)?;
            n.child.ok_or_else(|| {
                CuError::new(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!("{call}: a graph launch recorded by stream capture keeps no graph"),
                )
            })
        })
    })
}

/// `cuGraphExecChildGraphNodeSetParams`: later launches run a copy of `child`, which must have
/// the nodes (in order), kinds and edges the node's graph had at instantiation
/// (`CUDA_ERROR_INVALID_VALUE` otherwise).
pub fn graph_exec_child_set(exec_handle: u64, node: u64, child: u64) -> CuResultOf<()> {
    let call = "cuGraphExecChildGraphNodeSetParams";
    cu(|rt| {
        with_captures(rt, |c| {
            let (_, i) = target_index(c, Target::Exec(exec_handle), node, NodeKind::Graph, call)?;
            let x = exec(c, exec_handle, call)?;
            let Some(before) = x.children.get(&i) else {
                return fail(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!("{call}: a graph launch recorded by stream capture keeps no graph"),
                );
            };
            let g = graph(c, child, call)?;
            if shape(g) != *before {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{call}: graph {child:#x} differs in nodes or edges from the node's graph"
                    ),
                );
            }
            let Some(fresh) = build_exec(c, g, 0) else {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: a child graph's dependencies form a cycle"),
                );
            };
            let x = Arc::make_mut(c.execs.get_mut(&exec_handle).expect("checked"));
            x.graph.nodes[i].as_mut().expect("a live node").run = exec_recipe(Arc::new(fresh));
            Ok(())
        })
    })
}

/// `cuGraphDebugDotPrint`'s text: the graph in Graphviz DOT, one vertex per node (labelled with
/// its index and kind), one arrow per edge, each child graph node's graph as a cluster.
pub fn graph_dot(handle: u64) -> CuResultOf<String> {
    cu(|rt| {
        with_captures(rt, |c| {
            let g = graph(c, handle, "cuGraphDebugDotPrint")?;
            let mut out = format!("digraph \"graph_{handle:#x}\" {{\n");
            dot_body(c, g, &mut out, "  ");
            out.push_str("}\n");
            Ok(out)
        })
    })
}

fn dot_body(c: &Captures, g: &Graph, out: &mut String, indent: &str) {
    use std::fmt::Write;
    for (i, n) in g.live() {
        let h = g.handle(i);
        let _ = writeln!(out, "{indent}\"{h:#x}\" [label=\"{i}: {:?}\"];", n.kind);
        if let Some(child) = n.child.and_then(|h| c.graphs.get(&h)) {
            let _ = writeln!(out, "{indent}subgraph \"cluster_{h:#x}\" {{");
            dot_body(c, child, out, &format!("{indent}  "));
            let _ = writeln!(out, "{indent}}}");
        }
    }
    for (i, n) in g.live() {
        for &d in &n.deps {
            let _ = writeln!(
                out,
                "{indent}\"{:#x}\" -> \"{:#x}\";",
                g.handle(d),
                g.handle(i)
            );
        }
    }
}

fn shape(g: &Graph) -> Vec<(usize, NodeKind, Vec<usize>)> {
    g.live().map(|(i, n)| (i, n.kind, n.deps.clone())).collect()
}

/// An executable copy of `g`: its order, and each child graph node's work made from its
/// graph as it is now. `None` if the dependencies of `g` or of a child graph form a cycle.
fn build_exec(c: &Captures, g: &Graph, flags: u64) -> Option<Exec> {
    let mut copy = g.clone();
    let order = copy.order()?;
    let mut children = HashMap::new();
    for (i, slot) in copy.nodes.iter_mut().enumerate() {
        let Some(n) = slot else { continue };
        if let Some(child) = n.child.and_then(|h| c.graphs.get(&h)) {
            n.run = exec_recipe(Arc::new(build_exec(c, child, 0)?));
            children.insert(i, shape(child));
        }
    }
    Some(Exec {
        graph: copy,
        order,
        flags,
        disabled: HashSet::new(),
        children,
    })
}

/// Submits an executable graph's nodes, in its order, skipping disabled ones.
/// An executable graph that owns user object references keeps them until each launch has
/// run: the launch ends with a task holding the executable graph.
fn exec_recipe(x: Arc<Exec>) -> Recipe {
    Arc::new(move |rt, ls| {
        for &i in &x.order {
            if !x.disabled.contains(&i) {
                (x.graph.node(i).run)(rt, ls)?;
            }
        }
        if !x.graph.refs.is_empty() {
            let hold = x.clone();
            rt.launch_on(
                ls,
                "cuGraphLaunch (user object references)",
                Default::default(),
                Box::new(move || {
                    drop(hold);
                    Ok(())
                }),
            )?;
        }
        Ok(())
    })
}

/// `cuGraphNodeFindInClone`: the node of clone `handle` made from `original`.
pub fn graph_node_find_in_clone(original: u64, handle: u64) -> CuResultOf<u64> {
    cu(|rt| {
        with_captures(rt, |c| {
            let call = "cuGraphNodeFindInClone";
            let (from, i) = locate(c, original, call)?;
            let g = graph(c, handle, call)?;
            let from = &c.graphs[&from];
            // A clone keeps its original's indices.
            if g.cloned_from != Some(from.sequence) || !matches!(g.nodes.get(i), Some(Some(_))) {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: {original:#x} has no counterpart in graph {handle:#x}"),
                );
            }
            Ok(g.handle(i))
        })
    })
}

/// A node's kind and the parameters its face kept (`None` for captured nodes).
pub fn graph_node_params(node: u64) -> CuResultOf<(NodeKind, Option<NodeParams>)> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (g, i) = locate(c, node, "cuGraphNodeGetParams")?;
            let n = c.graphs[&g].node(i);
            Ok((n.kind, n.params.clone()))
        })
    })
}

/// Runs `body` on the user object references graph `graph` owns.
pub(super) fn with_graph_refs<T>(
    graph: u64,
    call: &str,
    body: impl FnOnce(&mut Refs) -> CuResultOf<T>,
) -> CuResultOf<T> {
    cu(|rt| with_captures(rt, |c| body(&mut graph_mut(c, graph, call)?.refs)))
}

/// The kind and parameters of the node of executable graph `exec_handle` made from `node`
/// (which `cuGraphExec*NodeSetParams` may have changed since instantiation).
pub fn graph_exec_node_params(
    exec_handle: u64,
    node: u64,
    call: &str,
) -> CuResultOf<(NodeKind, Option<NodeParams>)> {
    cu(|rt| {
        with_captures(rt, |c| {
            let x = exec(c, exec_handle, call)?;
            match split_node(node) {
                Some((q, i)) if q == x.graph.sequence => match x.graph.nodes.get(i) {
                    Some(Some(n)) => Ok((n.kind, n.params.clone())),
                    _ => bad_node(call, node),
                },
                _ => bad_node(call, node),
            }
        })
    })
}

fn kind_check(have: NodeKind, want: NodeKind, call: &str) -> CuResultOf<()> {
    if have != want {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: the node is a {have:?} node, not a {want:?} node"),
        );
    }
    Ok(())
}

/// Where a node's parameters are set: a graph's node, or an executable graph's copy of it.
#[derive(Clone, Copy)]
enum Target {
    Graph,
    Exec(u64),
}

/// The index of node `node` in the target, checked to be a live node of kind `kind`.
fn target_index(
    c: &Captures,
    target: Target,
    node: u64,
    kind: NodeKind,
    call: &str,
) -> CuResultOf<(u64, usize)> {
    let (owner, i, have) = match target {
        Target::Graph => {
            let (g, i) = locate(c, node, call)?;
            (g, i, c.graphs[&g].node(i).kind)
        }
        Target::Exec(x_handle) => {
            let x = exec(c, x_handle, call)?;
            match split_node(node) {
                Some((q, i)) if q == x.graph.sequence => match x.graph.nodes.get(i) {
                    Some(Some(n)) => (x_handle, i, n.kind),
                    _ => return bad_node(call, node),
                },
                _ => return bad_node(call, node),
            }
        }
    };
    kind_check(have, kind, call)?;
    Ok((owner, i))
}

/// Replaces a node's work and parameters, keeping its edges.
fn set_node(
    target: Target,
    node: u64,
    kind: NodeKind,
    params: NodeParams,
    recorded: Option<(NodeKind, Recipe)>,
    call: &str,
) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            let (owner, i) = target_index(c, target, node, kind, call)?;
            let slot = match target {
                Target::Graph => &mut c.graphs.get_mut(&owner).expect("located").nodes[i],
                Target::Exec(_) => {
                    &mut Arc::make_mut(c.execs.get_mut(&owner).expect("checked"))
                        .graph
                        .nodes[i]
                }
            };
            let n = slot.as_mut().expect("a live node");
            *n = make_node(kind, std::mem::take(&mut n.deps), recorded, Some(params));
            Ok(())
        })
    })
}

fn set_params(
    target: Target,
    node: u64,
    kind: NodeKind,
    params: NodeParams,
    call: &str,
    work: impl FnOnce() -> CuResultOf<()>,
) -> CuResultOf<()> {
    cu(|rt| {
        current(rt)?;
        with_captures(rt, |c| {
            target_index(c, target, node, kind, call).map(|_| ())
        })
    })?;
    let recorded = record_work(work)?;
    set_node(target, node, kind, params, recorded, call)
}

/// Sets the parameters of node `node` (of kind `kind`) of a graph: its work becomes what
/// `work` submits, checked as that call checks it.
pub fn graph_node_set_params(
    node: u64,
    kind: NodeKind,
    params: NodeParams,
    call: &str,
    work: impl FnOnce() -> CuResultOf<()>,
) -> CuResultOf<()> {
    set_params(Target::Graph, node, kind, params, call, work)
}

/// Sets the parameters of the node of executable graph `exec` made from `node`: later launches
/// run the new work; launches already submitted keep the old.
pub fn graph_exec_node_set_params(
    exec_handle: u64,
    node: u64,
    kind: NodeKind,
    params: NodeParams,
    call: &str,
    work: impl FnOnce() -> CuResultOf<()>,
) -> CuResultOf<()> {
    set_params(Target::Exec(exec_handle), node, kind, params, call, work)
}

fn event_work(ev: Arc<Event>, wait: bool) -> (NodeKind, Recipe) {
    if wait {
        (
            NodeKind::WaitEvent,
            Arc::new(move |rt, ls| Ok(rt.wait_on(ls, &ev, None)?)),
        )
    } else {
        (
            NodeKind::EventRecord,
            Arc::new(move |rt, ls| Ok(rt.record_on(&ev, ls)?)),
        )
    }
}

/// `cuGraph{EventRecord,EventWait}NodeSetEvent` (`exec` `None`) and their
/// `cuGraphExec*NodeSetEvent` forms: the node records, or waits for, `event` from then on.
pub fn graph_event_node_set_event(
    exec_handle: Option<u64>,
    node: u64,
    event: EventHandle,
    wait: bool,
    call: &str,
) -> CuResultOf<()> {
    let target = exec_handle.map_or(Target::Graph, Target::Exec);
    let kind = if wait {
        NodeKind::WaitEvent
    } else {
        NodeKind::EventRecord
    };
    let ev = cu(|rt| {
        current(rt)?;
        with_captures(rt, |c| target_index(c, target, node, kind, call))?;
        super::api::cuda_event(rt, event)
    })?;
    set_node(
        target,
        node,
        kind,
        Arc::new(event),
        Some(event_work(ev, wait)),
        call,
    )
}

/// `cuGraphNodeSetEnabled`: a disabled kernel, memcpy or memset node of an executable graph
/// does nothing at later launches (its edges still order the others). Other kinds are
/// `CUDA_ERROR_INVALID_VALUE`.
pub fn graph_node_set_enabled(exec_handle: u64, node: u64, enabled: bool) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            let i = enable_index(c, exec_handle, node, "cuGraphNodeSetEnabled")?;
            let x = Arc::make_mut(c.execs.get_mut(&exec_handle).expect("checked"));
            if enabled {
                x.disabled.remove(&i);
            } else {
                x.disabled.insert(i);
            }
            Ok(())
        })
    })
}

/// `cuGraphNodeGetEnabled`.
pub fn graph_node_get_enabled(exec_handle: u64, node: u64) -> CuResultOf<bool> {
    cu(|rt| {
        with_captures(rt, |c| {
            let i = enable_index(c, exec_handle, node, "cuGraphNodeGetEnabled")?;
            Ok(!c.execs[&exec_handle].disabled.contains(&i))
        })
    })
}

fn enable_index(c: &Captures, exec_handle: u64, node: u64, call: &str) -> CuResultOf<usize> {
    let x = exec(c, exec_handle, call)?;
    let i = match split_node(node) {
        Some((q, i)) if q == x.graph.sequence && matches!(x.graph.nodes.get(i), Some(Some(_))) => i,
        _ => return bad_node(call, node),
    };
    match x.graph.node(i).kind {
        NodeKind::Kernel | NodeKind::Memcpy | NodeKind::Memset => Ok(i),
        other => fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: only kernel, memcpy and memset nodes can be disabled, not a {other:?} node"),
        ),
    }
}

/// `cuGraphExecGetFlags`: the flags the executable graph was instantiated with.
pub fn graph_exec_get_flags(exec_handle: u64) -> CuResultOf<u64> {
    cu(|rt| {
        with_captures(rt, |c| {
            Ok(exec(c, exec_handle, "cuGraphExecGetFlags")?.flags)
        })
    })
}

/// `cuGraphExecUpdate`: the executable graph takes `graph`'s node parameters when the two have
/// the same nodes (by index), of the same kinds, with the same edges. Otherwise nothing changes
/// and the error is `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` with the `CUgraphExecUpdateResult`
/// (`2` topology changed, `3` a node's type changed) and the first node concerned (0 if none).
pub fn graph_exec_update(exec_handle: u64, handle: u64) -> Result<(), (CuError, u32, u64)> {
    let plain = |e: CuError| (e, 1, 0);
    cu(|rt| {
        with_captures(rt, |c| {
            let call = "cuGraphExecUpdate";
            let x = exec(c, exec_handle, call)?;
            let g = graph(c, handle, call)?;
            let fail_with = |result: u32, node: u64, what: &str| {
                Ok(Err((
                    CuError::new(
                        CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                        format!("{call}: {what}"),
                    ),
                    result,
                    node,
                )))
            };
            if x.graph.nodes.len() != g.nodes.len() {
                return fail_with(2, 0, "the graphs have different nodes");
            }
            for (i, (a, b)) in x.graph.nodes.iter().zip(&g.nodes).enumerate() {
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) if a.kind != b.kind => {
                        return fail_with(3, g.handle(i), "a node's type changed")
                    }
                    (Some(a), Some(b)) if a.kind == NodeKind::BatchMemOp => {
                        if let Err(e) = super::mem_op::batch_params_update_allowed(
                            a.params.as_ref(),
                            b.params.as_ref(),
                            call,
                        ) {
                            return fail_with(5, g.handle(i), e.message());
                        }
                        if !(a.deps.len() == b.deps.len()
                            && a.deps.iter().all(|d| b.deps.contains(d)))
                        {
                            return fail_with(2, 0, "the graphs' nodes or edges differ");
                        }
                    }
                    (Some(a), Some(b))
                        if a.deps.len() == b.deps.len()
                            && a.deps.iter().all(|d| b.deps.contains(d)) => {}
                    _ => return fail_with(2, 0, "the graphs' nodes or edges differ"),
                }
            }
            for (&i, before) in &x.children {
                let now = g.node(i).child.and_then(|h| c.graphs.get(&h)).map(shape);
                if now.as_ref() != Some(before) {
                    return fail_with(2, g.handle(i), "a child graph's nodes or edges differ");
                }
            }
            let Some(mut fresh) = build_exec(c, g, 0) else {
                return fail_with(2, 0, "a child graph's dependencies form a cycle");
            };
            let x = Arc::make_mut(c.execs.get_mut(&exec_handle).expect("checked"));
            // The source graph's user object references replace the executable graph's.
            x.graph.refs = std::mem::take(&mut fresh.graph.refs);
            for (mine, theirs) in x.graph.nodes.iter_mut().zip(fresh.graph.nodes) {
                if let (Some(mine), Some(theirs)) = (mine.as_mut(), theirs) {
                    mine.run = theirs.run;
                    mine.params = theirs.params;
                }
            }
            Ok(Ok(()))
        })
    })
    .map_err(plain)?
}

/// `CUDA_GRAPH_INSTANTIATE_ERROR`: a `CUgraphInstantiateResult`.
pub const CUDA_GRAPH_INSTANTIATE_ERROR: u32 = 1;
/// `CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE`.
pub const CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE: u32 = 2;

/// `cuGraphInstantiateWithFlags`: an executable graph of the graph as it is. Unknown flags and
/// `DEVICE_LAUNCH` with `AUTO_FREE_ON_LAUNCH` are `CUDA_ERROR_INVALID_VALUE`; `DEVICE_LAUNCH`
/// otherwise is `CUDA_ERROR_NOT_SUPPORTED` (nothing launches from the device). The other flags
/// have nothing to act on: graphs here allocate no memory, have no priorities, and need no
/// upload. Dependencies forming a cycle are `CUDA_ERROR_INVALID_VALUE`.
pub fn graph_instantiate(handle: u64, flags: u64) -> CuResultOf<u64> {
    graph_instantiate_with_result(handle, flags).map_err(|(e, _)| e)
}

/// As [`graph_instantiate`]; a failure also gives its `CUgraphInstantiateResult`
/// (`CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE` for a cycle, `CUDA_GRAPH_INSTANTIATE_ERROR`
/// otherwise).
pub fn graph_instantiate_with_result(handle: u64, flags: u64) -> Result<u64, (CuError, u32)> {
    let error = |e: CuError| (e, CUDA_GRAPH_INSTANTIATE_ERROR);
    cu(|rt| {
        current(rt)?;
        let known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
            | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD
            | CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH
            | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
        with_state(rt, |st| {
            let g = graph(&st.captures, handle, "cuGraphInstantiate")?;
            if flags & !known != 0 {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("cuGraphInstantiate: unknown flags {flags:#x}"),
                );
            }
            if flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH != 0 {
                if flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH != 0 {
                    return fail(
                        CUDA_ERROR_INVALID_VALUE,
                        "cuGraphInstantiate: DEVICE_LAUNCH cannot be combined with AUTO_FREE_ON_LAUNCH",
                    );
                }
                return fail(
                    CUDA_ERROR_NOT_SUPPORTED,
                    "cuGraphInstantiate: the emulated device does not launch graphs from the device",
                );
            }
            let Some(x) = build_exec(&st.captures, g, flags) else {
                return Ok(Err((
                    CuError::new(
                        CUDA_ERROR_INVALID_VALUE,
                        "cuGraphInstantiate: the graph's dependencies form a cycle",
                    ),
                    CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE,
                )));
            };
            let id = st.new_id(b'X');
            st.captures.execs.insert(id, Arc::new(x));
            Ok(Ok(id))
        })
    })
    .map_err(error)?
}

/// `cuGraphExecDestroy`.
pub fn graph_exec_destroy(handle: u64) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            exec(c, handle, "cuGraphExecDestroy")?;
            c.execs.remove(&handle);
            Ok(())
        })
    })
}

fn launch_stream(rt: &Runtime, handle: StreamHandle, call: &str) -> CuResultOf<Arc<Stream>> {
    let s = stream_of(rt, resolve(rt, handle)?)?;
    current(rt)?;
    sticky(&s.context)?;
    Ok(rt.stream_for_work(Some(s), call)?)
}

/// `cuGraphLaunch`: submits every node's work on the stream in the executable graph's order
/// (each node after its dependencies); later work on the stream runs after all of it. On a
/// capturing stream the launch is itself captured.
pub fn graph_launch(handle: u64, stream: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        let x = with_captures(rt, |c| exec(c, handle, "cuGraphLaunch"))?;
        let s = launch_stream(rt, stream, "cuGraphLaunch")?;
        submit(rt, &s, NodeKind::Graph, "cuGraphLaunch", exec_recipe(x))?;
        Ok(())
    })
}

/// `cuGraphUpload`: checked; there is nothing to upload ahead of a launch.
pub fn graph_upload(handle: u64, stream: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| exec(c, handle, "cuGraphUpload"))?;
        launch_stream(rt, stream, "cuGraphUpload")?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_handles_round_trip_and_graphs_are_bounded() {
        for (sequence, index) in [(1, 0), (77, 12345), (0xFFFF_FFFF, MAX_NODES - 1)] {
            assert_eq!(
                split_node(node_handle(sequence, index)),
                Some((sequence, index))
            );
        }
        assert_eq!(split_node(0), None);
        assert_eq!(split_node(u64::from(b'N') << 56), None);
        assert!(room_after(MAX_NODES - 1, "t").is_ok());
        assert_eq!(
            room_after(MAX_NODES, "t").unwrap_err().code(),
            CUDA_ERROR_OUT_OF_MEMORY
        );
    }
}
