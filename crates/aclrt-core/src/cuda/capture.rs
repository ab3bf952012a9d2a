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
//! A graph is immutable once made. Instantiating it gives an executable graph sharing its
//! nodes; launching one submits every node's work on the launch stream in node order, which
//! is a dependency order (a node only depends on earlier ones), so each launch is the captured
//! work submitted again, the branches of a fork running one after the other.
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

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;

use super::api::{cu, current, current_any, fail, resolve, sticky, stream_of};
use super::codes::*;
use super::state::{with_state, State};
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
    /// `CU_GRAPH_NODE_TYPE_WAIT_EVENT`.
    WaitEvent = 6,
    /// `CU_GRAPH_NODE_TYPE_EVENT_RECORD`.
    EventRecord = 7,
}

#[derive(Clone)]
struct Node {
    kind: NodeKind,
    deps: Vec<usize>,
    run: Recipe,
}

/// A graph's nodes, in a dependency order.
struct Graph {
    /// The capture sequence it came from (0 for `cuGraphCreate`): names its nodes.
    sequence: u64,
    nodes: Vec<Node>,
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
    graphs: HashMap<u64, Arc<Graph>>,
    execs: HashMap<u64, Arc<Graph>>,
}

/// Sequences plus captured events of the installed table: 0 lets calls skip the lock.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// `cuThreadExchangeStreamCaptureMode`: this thread's interaction mode.
    static THREAD_MODE: Cell<u32> = const { Cell::new(CU_STREAM_CAPTURE_MODE_GLOBAL) };
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

    fn add_node(&mut self, stream: u64, kind: NodeKind, run: Recipe) -> bool {
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
    if !quiet() {
        let captured = with_captures(rt, |c| {
            c.legacy_use(s, call)?;
            Ok::<_, CuError>(c.add_node(s.handle.as_raw(), kind, run.clone()))
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
            c.add_node(s.handle.as_raw(), NodeKind::EventRecord, run);
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
                c.add_node(stream, NodeKind::WaitEvent, run);
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
                Arc::new(Graph {
                    sequence: q,
                    nodes: seq.nodes,
                }),
            );
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

fn graph(c: &Captures, handle: u64, call: &str) -> CuResultOf<Arc<Graph>> {
    c.graphs.get(&handle).cloned().ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a live graph"),
        )
    })
}

fn exec(c: &Captures, handle: u64, call: &str) -> CuResultOf<Arc<Graph>> {
    c.execs.get(&handle).cloned().ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: {handle:#x} is not a live executable graph"),
        )
    })
}

/// `cuGraphCreate(flags)`: an empty graph; `flags` must be 0. (No call adds nodes to it:
/// graphs are built by capture.)
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
            st.captures.graphs.insert(
                id,
                Arc::new(Graph {
                    sequence: 0,
                    nodes: Vec::new(),
                }),
            );
            Ok(id)
        })
    })
}

/// `cuGraphDestroy`: executable graphs made from it live on.
pub fn graph_destroy(handle: u64) -> CuResultOf<()> {
    cu(|rt| {
        with_captures(rt, |c| {
            graph(c, handle, "cuGraphDestroy")?;
            c.graphs.remove(&handle);
            Ok(())
        })
    })
}

/// `cuGraphGetNodes`: the graph's node handles, in its order.
pub fn graph_nodes(handle: u64) -> CuResultOf<Vec<u64>> {
    cu(|rt| {
        let g = with_captures(rt, |c| graph(c, handle, "cuGraphGetNodes"))?;
        Ok((0..g.nodes.len())
            .map(|i| node_handle(g.sequence, i))
            .collect())
    })
}

/// The kinds of a graph's nodes, and each node's dependencies (indices), in its order.
pub fn graph_shape(handle: u64) -> CuResultOf<Vec<(NodeKind, Vec<usize>)>> {
    cu(|rt| {
        let g = with_captures(rt, |c| graph(c, handle, "cuGraphGetNodes"))?;
        Ok(g.nodes.iter().map(|n| (n.kind, n.deps.clone())).collect())
    })
}

/// `cuGraphInstantiateWithFlags`: an executable graph of the graph as it is. Unknown flags and
/// `DEVICE_LAUNCH` with `AUTO_FREE_ON_LAUNCH` are `CUDA_ERROR_INVALID_VALUE`; `DEVICE_LAUNCH`
/// otherwise is `CUDA_ERROR_NOT_SUPPORTED` (nothing launches from the device). The other flags
/// have nothing to act on: graphs here allocate no memory, have no priorities, and need no
/// upload.
pub fn graph_instantiate(handle: u64, flags: u64) -> CuResultOf<u64> {
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
            let id = st.new_id(b'X');
            st.captures.execs.insert(id, g);
            Ok(id)
        })
    })
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

/// `cuGraphLaunch`: submits every node's work on the stream in the graph's order; later work
/// on the stream runs after all of it. On a capturing stream the launch is itself captured.
pub fn graph_launch(handle: u64, stream: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        let g = with_captures(rt, |c| exec(c, handle, "cuGraphLaunch"))?;
        let s = launch_stream(rt, stream, "cuGraphLaunch")?;
        let run: Recipe = Arc::new(move |rt, ls| {
            for node in &g.nodes {
                (node.run)(rt, ls)?;
            }
            Ok(())
        });
        submit(rt, &s, NodeKind::Graph, "cuGraphLaunch", run)?;
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
