//! What the checker knows of the run, and what it concludes from each observed event.

use std::collections::{BTreeMap, VecDeque};

use super::{FastMap, FastSet};
use std::sync::Arc;

use super::hb::{Hb, Vc, View};
use super::report::{Access, AccessKind, Finding, Kind, Object, Site};
use super::shadow::{Acc, AccInfo, Shadow};
use super::site::{SiteId, Sites, Stack};
use super::waits::{self, Look};
use super::Parts;
use crate::observe::{EdgeKind, Observed, Point, TaskRef};
use crate::task_info::{MemRange, TaskKind};

/// Frees remembered, to name the free a later access comes after.
const FREES_KEPT: usize = 4096;
/// Records remembered per stream, to name the record a wait stopped at.
const RECORDS_KEPT: usize = 64;

/// A task between its submission and its end.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) id: u64,
    pub(crate) seq: u64,
    pub(crate) kind: TaskKind,
    pub(crate) op: Arc<str>,
    pub(crate) reads: Vec<MemRange>,
    pub(crate) writes: Vec<MemRange>,
    pub(crate) submitter: u32,
    pub(crate) base: Arc<Vc>,
    pub(crate) site: SiteId,
    pub(crate) event: Option<u64>,
    /// A snapshot wait: the record it waits for.
    pub(crate) record: Option<TaskRef>,
    /// A callback: whether it holds its stream until it returned.
    pub(crate) blocking: bool,
    /// Already reported as freed while in use: not again as a use after free.
    pub(crate) freed_under: bool,
    /// The thread running it, once started.
    pub(crate) worker: u32,
}

pub(crate) struct StreamState {
    pub(crate) task: TaskRef,
    pub(crate) queue: VecDeque<Pending>,
    pub(crate) running: Option<Pending>,
    /// Tasks below this id have finished (or were discarded).
    pub(crate) finished_upto: u64,
    /// Created by the program (not a default stream), and where.
    pub(crate) created: Option<SiteId>,
    pub(crate) destroyed: bool,
    /// (task id, event id, site) of recent records.
    records: VecDeque<(u64, u32, SiteId)>,
}

pub(crate) struct EventState {
    pub(crate) id: u32,
    pub(crate) legacy_flag: bool,
    pub(crate) latest: Option<TaskRef>,
    pub(crate) flag_set: bool,
    pub(crate) destroyed: bool,
    pub(crate) created: Option<SiteId>,
}

struct Alloc {
    size: usize,
    device: Option<i32>,
    site: SiteId,
}

struct Freed {
    start: usize,
    size: usize,
    info: Arc<AccInfo>,
}

/// A host thread blocked in a call.
pub(crate) struct Blocked {
    pub(crate) call: &'static str,
    pub(crate) waits_for: Vec<TaskRef>,
    pub(crate) since_ns: u64,
    pub(crate) pthread: u64,
    pub(crate) site: SiteId,
}

/// Context the observer captured on the calling thread before taking the state.
pub(crate) struct Caller {
    pub(crate) stack: Option<Stack>,
    pub(crate) pthread: u64,
}

impl Caller {
    /// For events processed away from their thread (they need no context).
    pub(crate) fn none() -> Caller {
        Caller {
            stack: None,
            pthread: 0,
        }
    }
}

/// The checker's state.
pub(crate) struct State {
    pub(crate) parts: Parts,
    hb: Hb,
    pub(crate) sites: Sites,
    op_names: OpNames,
    shadow: Shadow,
    seq: u64,
    pub(crate) streams: FastMap<u64, StreamState>,
    /// Worker threads running a task that may touch memory through the host API.
    running_on: FastMap<u32, TaskRef>,
    pub(crate) events: FastMap<u64, EventState>,
    allocs: BTreeMap<usize, Alloc>,
    frees: VecDeque<Freed>,
    pub(crate) blocked: FastMap<u32, Blocked>,
    /// stream → subscribed thread (`pthread_self()`).
    pub(crate) subscriptions: FastMap<u64, u64>,
    reported: FastSet<(Kind, Vec<SiteId>)>,
    pub(crate) findings: Vec<Finding>,
    /// When a task or callback last started or ended.
    pub(crate) last_progress_ns: u64,
    /// User code running now (kernels, copies, host functions, callbacks).
    pub(crate) user_code_running: usize,
    pub(crate) device_of_thread: FastMap<u32, i32>,
    /// Threads that ran callbacks.
    callback_threads: FastSet<u32>,
}

/// The name a task's accesses are reported under, shared: one allocation per name and run,
/// not one per task.
#[derive(Default)]
struct OpNames(FastMap<&'static str, Arc<str>>);

impl OpNames {
    fn of(&mut self, kind: TaskKind, name: Option<&Arc<str>>) -> Arc<str> {
        let fixed = match kind {
            TaskKind::Kernel => match name {
                Some(name) => return name.clone(),
                None => "kernel",
            },
            TaskKind::Memcpy => "aclrtMemcpyAsync",
            TaskKind::Memset => "aclrtMemsetAsync",
            TaskKind::Record => "aclrtRecordEvent",
            TaskKind::Wait => "aclrtStreamWaitEvent",
            TaskKind::Reset => "aclrtResetEvent",
            TaskKind::Callback => "aclrtLaunchCallback",
            TaskKind::HostFunc => "aclrtLaunchHostFunc",
            TaskKind::StreamWait => "legacy stream wait",
        };
        self.0
            .entry(fixed)
            .or_insert_with(|| Arc::from(fixed))
            .clone()
    }
}

fn runs_user_code(kind: TaskKind) -> bool {
    matches!(
        kind,
        TaskKind::Kernel | TaskKind::Memcpy | TaskKind::Memset | TaskKind::HostFunc
    )
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1)
}

impl State {
    pub(crate) fn new(parts: Parts) -> State {
        State {
            parts,
            hb: Hb::default(),
            sites: Sites::default(),
            op_names: OpNames::default(),
            shadow: Shadow::default(),
            seq: 0,
            streams: FastMap::default(),
            running_on: FastMap::default(),
            events: FastMap::default(),
            allocs: BTreeMap::new(),
            frees: VecDeque::new(),
            blocked: FastMap::default(),
            subscriptions: FastMap::default(),
            reported: FastSet::default(),
            findings: Vec::new(),
            last_progress_ns: crate::clock::now_ns(),
            user_code_running: 0,
            device_of_thread: FastMap::default(),
            callback_threads: FastSet::default(),
        }
    }

    fn site(&mut self, caller: &mut Caller) -> SiteId {
        let stack = caller.stack.take().unwrap_or_else(super::site::capture);
        self.sites.intern(stack)
    }

    fn stream(&mut self, task: TaskRef) -> &mut StreamState {
        self.streams
            .entry(task.stream)
            .or_insert_with(|| StreamState {
                task: TaskRef { task_id: 0, ..task },
                queue: VecDeque::new(),
                running: None,
                finished_upto: 0,
                created: None,
                destroyed: false,
                records: VecDeque::new(),
            })
    }

    /// One observed event. Returns whether a deadlock was found (the caller ends the process).
    pub(crate) fn observe(&mut self, event: &Observed<'_>, mut caller: Caller) -> bool {
        let host_thread = match *event {
            Observed::Submitted { thread_id, .. }
            | Observed::Freeing { thread_id, .. }
            | Observed::Edge {
                after: Point::Host(thread_id),
                ..
            } => Some(thread_id),
            Observed::HostAccess { thread_id, .. } if !self.running_on.contains_key(&thread_id) => {
                Some(thread_id)
            }
            Observed::HostWaitBegin {
                call, thread_id, ..
            } if call != "aclrtProcessReport" => Some(thread_id),
            _ => None,
        };
        if let Some(tid) = host_thread {
            if !self.hb.knows_thread(tid) {
                self.hb.adopt_thread(tid);
            }
        }
        match *event {
            Observed::Submitted {
                task,
                kind,
                meta,
                thread_id,
                ..
            } => {
                self.seq += 1;
                // Unwinding is the checker's largest cost: only tasks whose site a finding can
                // name pay for it (accesses, callbacks; legacy SYNC waits, for deadlocks).
                let legacy_wait = kind == TaskKind::Wait
                    && meta
                        .event
                        .is_none_or(|e| self.events.get(&e).is_none_or(|ev| ev.legacy_flag));
                let site = if legacy_wait {
                    self.site(&mut caller)
                } else {
                    let stack = caller.stack.take().unwrap_or_default();
                    self.sites.intern(stack)
                };
                let base = self.hb.submit(thread_id);
                self.device_of_thread.insert(thread_id, task.device_id);
                let mut record = None;
                if let Some(ev) = meta.event.and_then(|e| self.events.get_mut(&e)) {
                    match kind {
                        TaskKind::Record => ev.latest = Some(task),
                        TaskKind::Wait if !ev.legacy_flag => record = ev.latest,
                        TaskKind::Reset if !ev.legacy_flag => ev.latest = None,
                        _ => {}
                    }
                }
                let event_id = meta.event.and_then(|e| self.events.get(&e)).map(|e| e.id);
                let pending = Pending {
                    id: task.task_id,
                    seq: self.seq,
                    kind,
                    op: self.op_names.of(kind, meta.name.as_ref()),
                    reads: meta.reads.clone(),
                    writes: meta.writes.clone(),
                    submitter: thread_id,
                    base,
                    site,
                    event: meta.event,
                    record,
                    blocking: false,
                    freed_under: false,
                    worker: 0,
                };
                let s = self.stream(task);
                if kind == TaskKind::Record {
                    if let Some(id) = event_id {
                        if s.records.len() == RECORDS_KEPT {
                            s.records.pop_front();
                        }
                        s.records.push_back((task.task_id, id, site));
                    }
                }
                s.queue.push_back(pending);
                false
            }
            Observed::Started {
                task,
                kind,
                thread_id,
                at_ns,
            } => {
                self.last_progress_ns = at_ns;
                let Some(mut p) = self.take_pending(task) else {
                    return false;
                };
                p.worker = thread_id;
                let view = self.hb.start(task.stream, task.task_id, &p.base);
                if runs_user_code(kind) {
                    self.user_code_running += 1;
                    self.running_on.insert(thread_id, task);
                }
                if !p.freed_under && (self.parts.race || self.parts.free) {
                    let reads = std::mem::take(&mut p.reads);
                    let writes = std::mem::take(&mut p.writes);
                    for (ranges, access) in [(reads, AccessKind::Read), (writes, AccessKind::Write)]
                    {
                        for r in ranges {
                            let info = AccInfo {
                                kind: access,
                                op: p.op.clone(),
                                device: task.device_id,
                                task: Some((task.stream_id, task.stream, task.task_id)),
                                thread: p.submitter,
                                start: r.start,
                                len: r.len,
                                site: p.site,
                                seq: p.seq,
                            };
                            self.check_access(info, &view);
                        }
                    }
                } else {
                    p.reads = Vec::new();
                    p.writes = Vec::new();
                }
                // Only a legacy SYNC wait or a blocking callback can block a stream for good.
                let look = match kind {
                    TaskKind::Wait if p.record.is_none() => Some(Look::Head(task.stream)),
                    TaskKind::Callback if p.blocking => Some(Look::Subscriber(task.stream)),
                    _ => None,
                };
                let s = self.stream(task);
                s.running = Some(p);
                match look {
                    Some(look) if self.parts.hang => self.look_for_deadlock(look),
                    _ => false,
                }
            }
            Observed::Finished {
                task, kind, at_ns, ..
            } => {
                self.last_progress_ns = at_ns;
                if runs_user_code(kind) {
                    self.user_code_running = self.user_code_running.saturating_sub(1);
                    let worker = self
                        .streams
                        .get(&task.stream)
                        .and_then(|s| s.running.as_ref())
                        .filter(|p| p.id == task.task_id)
                        .map(|p| p.worker);
                    if let Some(tid) = worker {
                        self.running_on.remove(&tid);
                    }
                }
                self.task_ended(task, kind);
                false
            }
            Observed::Discarded {
                task, kind, at_ns, ..
            } => {
                self.last_progress_ns = at_ns;
                if let Some(p) = self.take_pending(task) {
                    self.hb.start(task.stream, task.task_id, &p.base);
                }
                self.task_ended(task, kind);
                false
            }
            Observed::Edge {
                kind,
                before,
                after,
                ..
            } => {
                match (kind, before, after) {
                    (
                        EdgeKind::EventWait
                        | EdgeKind::LegacyStream
                        | EdgeKind::Notify
                        | EdgeKind::ValueWrite,
                        Point::Task(b),
                        Point::Task(a),
                    ) => self.hb.edge(b.stream, b.task_id, a.stream, a.task_id),
                    (_, Point::Task(b), Point::Host(tid)) => {
                        self.hb.host_sync(tid, b.stream, b.task_id)
                    }
                    _ => {}
                }
                false
            }
            Observed::HostAccess {
                call,
                reads,
                writes,
                thread_id,
                ..
            } => {
                if !(self.parts.race || self.parts.free) {
                    return false;
                }
                self.seq += 1;
                let site = self.site(&mut caller);
                let (view, task) = match self.running_on.get(&thread_id) {
                    Some(t) => {
                        let t = *t;
                        (
                            self.hb.task_view(t.stream, t.task_id),
                            Some((t.stream_id, t.stream, t.task_id)),
                        )
                    }
                    None => (self.hb.host_step(thread_id), None),
                };
                let device = self.device_of_thread.get(&thread_id).copied().unwrap_or(0);
                for (ranges, access) in [(reads, AccessKind::Read), (writes, AccessKind::Write)] {
                    for r in ranges {
                        let info = AccInfo {
                            kind: access,
                            op: Arc::from(call),
                            device,
                            task,
                            thread: thread_id,
                            start: r.start,
                            len: r.len,
                            site,
                            seq: self.seq,
                        };
                        self.check_access(info, &view);
                    }
                }
                false
            }
            Observed::CallbackStarting {
                task,
                blocking,
                thread_id,
            } => {
                // The thread that runs the callback says whether it blocks its stream: the
                // submitter's CallbackLaunched may arrive only after the callback has run.
                let s = self.stream(task);
                if let Some(p) = s
                    .queue
                    .iter_mut()
                    .chain(s.running.as_mut())
                    .find(|p| p.id == task.task_id)
                {
                    p.blocking = blocking;
                }
                self.callback_threads.insert(thread_id);
                self.last_progress_ns = crate::clock::now_ns();
                self.user_code_running += 1;
                self.hb.host_sync(thread_id, task.stream, task.task_id);
                false
            }
            Observed::CallbackRan {
                task,
                thread_id,
                end_ns,
                ..
            } => {
                self.last_progress_ns = end_ns;
                self.user_code_running = self.user_code_running.saturating_sub(1);
                let blocking = self
                    .streams
                    .get(&task.stream)
                    .and_then(|s| s.running.as_ref())
                    .is_some_and(|p| p.id == task.task_id && p.blocking);
                if blocking {
                    self.hb
                        .callback_returned(thread_id, task.stream, task.task_id);
                }
                false
            }
            Observed::CallbackLaunched { task, blocking } => {
                let s = self.stream(task);
                let p = s
                    .queue
                    .iter_mut()
                    .chain(s.running.as_mut())
                    .find(|p| p.id == task.task_id);
                if let Some(p) = p {
                    p.blocking = blocking;
                }
                blocking && self.parts.hang && self.look_for_deadlock(Look::Subscriber(task.stream))
            }
            Observed::HostWaitBegin {
                call,
                waits_for,
                thread_id,
                at_ns,
            } => {
                if !self.parts.hang {
                    return false;
                }
                let site = self.site(&mut caller);
                self.blocked.insert(
                    thread_id,
                    Blocked {
                        call,
                        waits_for: waits_for.to_vec(),
                        since_ns: at_ns,
                        pthread: caller.pthread,
                        site,
                    },
                );
                self.look_for_deadlock(Look::Thread(thread_id))
            }
            Observed::HostWait { thread_id, .. } => {
                self.blocked.remove(&thread_id);
                false
            }
            Observed::Allocated {
                address,
                size,
                device_id,
                thread_id,
            } => {
                if let Some(d) = device_id {
                    self.device_of_thread.insert(thread_id, d);
                }
                let site = self.site(&mut caller);
                self.allocs.insert(
                    address,
                    Alloc {
                        size,
                        device: device_id,
                        site,
                    },
                );
                self.shadow.clear(address, size);
                self.frees
                    .retain(|f| !overlaps((f.start, f.size), (address, size)));
                false
            }
            Observed::Freeing {
                call,
                address,
                thread_id,
            } => {
                let device_call = call == "aclrtFree";
                let matches = self
                    .allocs
                    .get(&address)
                    .is_some_and(|a| a.device.is_some() == device_call);
                if matches {
                    let site = self.site(&mut caller);
                    self.free(call, address, thread_id, site);
                }
                false
            }
            Observed::StreamCreated { stream, .. } => {
                let site = self.site(&mut caller);
                let s = self.stream(stream);
                s.created = Some(site);
                false
            }
            Observed::StreamDestroyed { stream } => {
                if let Some(s) = self.streams.get_mut(&stream) {
                    s.destroyed = true;
                }
                self.subscriptions.remove(&stream);
                self.forget_stream_if_idle(stream);
                false
            }
            Observed::EventCreated {
                event,
                id,
                legacy_flag,
                ..
            } => {
                let site = self.site(&mut caller);
                self.events.insert(
                    event,
                    EventState {
                        id,
                        legacy_flag,
                        latest: None,
                        flag_set: false,
                        destroyed: false,
                        created: Some(site),
                    },
                );
                false
            }
            Observed::EventDestroyed { event, .. } => {
                if let Some(e) = self.events.get_mut(&event) {
                    e.destroyed = true;
                }
                let used = self.streams.values().any(|s| {
                    s.queue
                        .iter()
                        .chain(s.running.as_ref())
                        .any(|p| p.event == Some(event))
                });
                if !used {
                    self.events.remove(&event);
                }
                self.parts.hang && self.look_for_deadlock(Look::Event(event))
            }
            Observed::Subscription {
                stream,
                pthread,
                subscribed,
            } => {
                if subscribed {
                    self.subscriptions.insert(stream, pthread);
                } else {
                    self.subscriptions.remove(&stream);
                }
                false
            }
            Observed::ThreadExited { thread_id } => {
                self.hb.thread_exited(thread_id);
                self.device_of_thread.remove(&thread_id);
                false
            }
            _ => false,
        }
    }

    /// Takes `task` off its stream's queue of tasks not yet started, with any older ones (a
    /// task older than one that starts can no longer start); `None` when it is not queued (it
    /// started already, as a wait the pooled scheduler suspended and then discarded does),
    /// leaving the younger tasks queued.
    fn take_pending(&mut self, task: TaskRef) -> Option<Pending> {
        let s = self.streams.get_mut(&task.stream)?;
        while s.queue.front().is_some_and(|p| p.id <= task.task_id) {
            let p = s.queue.pop_front().expect("front is some");
            if p.id == task.task_id {
                return Some(p);
            }
        }
        None
    }

    fn task_ended(&mut self, task: TaskRef, kind: TaskKind) {
        let Some(s) = self.streams.get_mut(&task.stream) else {
            return;
        };
        let p = match s.running.take() {
            Some(p) if p.id == task.task_id => Some(p),
            other => {
                s.running = other;
                None
            }
        };
        s.finished_upto = s.finished_upto.max(task.task_id + 1);
        if let Some(ev) = p.as_ref().and_then(|p| p.event) {
            if let Some(e) = self.events.get_mut(&ev) {
                match kind {
                    TaskKind::Record => e.flag_set = true,
                    TaskKind::Reset => e.flag_set = false,
                    _ => {}
                }
                if e.destroyed {
                    let still_used = self.streams.values().any(|s| {
                        s.queue
                            .iter()
                            .chain(s.running.as_ref())
                            .any(|p| p.event == Some(ev))
                    });
                    if !still_used {
                        self.events.remove(&ev);
                    }
                }
            }
        }
        if self.streams.get(&task.stream).is_some_and(|s| s.destroyed) {
            self.forget_stream_if_idle(task.stream);
        }
    }

    fn forget_stream_if_idle(&mut self, stream: u64) {
        let idle = self
            .streams
            .get(&stream)
            .is_some_and(|s| s.destroyed && s.queue.is_empty() && s.running.is_none());
        if idle {
            self.streams.remove(&stream);
            self.hb.forget_stream(stream);
        }
    }

    /// The freed allocation an access at `[start, start + len)` falls into, unless it reached a
    /// live allocation again.
    fn freed_under(&self, start: usize, len: usize) -> Option<&Freed> {
        let live = self
            .allocs
            .range(..start.saturating_add(len))
            .next_back()
            .is_some_and(|(a, al)| overlaps((*a, al.size), (start, len)));
        if live {
            return None;
        }
        self.frees
            .iter()
            .rev()
            .find(|f| overlaps((f.start, f.size), (start, len)))
    }

    fn check_access(&mut self, info: AccInfo, view: &View) {
        if info.len == 0 {
            return;
        }
        if self.parts.free {
            if let Some(f) = self.freed_under(info.start, info.len) {
                let freed = f.info.clone();
                let key = (Kind::UseAfterFree, vec![freed.site, info.site]);
                let info = Arc::new(info);
                self.report_memory(key, Kind::UseAfterFree, &freed, &info);
                return;
            }
        }
        if !self.parts.race {
            return;
        }
        let acc = Acc {
            epoch: view.own,
            info: Arc::new(info),
        };
        let conflicts = self.shadow.access(&acc, view);
        for c in conflicts {
            // Host threads order themselves in ways the runtime does not see (joins, locks).
            if c.info.task.is_none() && acc.info.task.is_none() {
                continue;
            }
            // Device work first, then host calls; each in submission (or call) order.
            let order = |i: &AccInfo| (i.task.is_none(), i.seq);
            let (first, second) = if order(&c.info) <= order(&acc.info) {
                (&c.info, &acc.info)
            } else {
                (&acc.info, &c.info)
            };
            let key = (Kind::Race, vec![first.site, second.site]);
            let (first, second) = (first.clone(), second.clone());
            self.report_memory(key, Kind::Race, &first, &second);
        }
    }

    fn free(&mut self, call: &'static str, address: usize, tid: u32, site: SiteId) {
        let Some(alloc) = self.allocs.remove(&address) else {
            return;
        };
        self.seq += 1;
        let view = self.hb.host_step(tid);
        let info = Arc::new(AccInfo {
            kind: AccessKind::Free,
            op: Arc::from(call),
            device: alloc.device.unwrap_or(0),
            task: None,
            thread: tid,
            start: address,
            len: alloc.size,
            site,
            seq: self.seq,
        });
        if self.parts.free {
            // Tasks that touched the memory and are not known to have finished before the free
            // (host threads order themselves in ways the runtime does not see).
            let unordered = self.shadow.unordered_in(address, alloc.size, &view);
            for other in unordered.into_iter().filter(|a| a.info.task.is_some()) {
                let key = (Kind::FreeWhileInUse, vec![other.info.site, site]);
                self.report_memory(key, Kind::FreeWhileInUse, &other.info, &info);
            }
            // Tasks queued that will touch it.
            let mut in_use = Vec::new();
            for s in self.streams.values_mut() {
                let task = s.task;
                for p in s.queue.iter_mut() {
                    let touches: Vec<(AccessKind, MemRange)> = p
                        .reads
                        .iter()
                        .map(|r| (AccessKind::Read, *r))
                        .chain(p.writes.iter().map(|r| (AccessKind::Write, *r)))
                        .filter(|(_, r)| overlaps((r.start, r.len), (address, alloc.size)))
                        .collect();
                    if let Some((kind, r)) = touches.first() {
                        p.freed_under = true;
                        in_use.push(Arc::new(AccInfo {
                            kind: *kind,
                            op: p.op.clone(),
                            device: task.device_id,
                            task: Some((task.stream_id, task.stream, p.id)),
                            thread: p.submitter,
                            start: r.start,
                            len: r.len,
                            site: p.site,
                            seq: p.seq,
                        }));
                    }
                }
            }
            for other in in_use {
                let key = (Kind::FreeWhileInUse, vec![other.site, site]);
                self.report_memory(key, Kind::FreeWhileInUse, &other, &info);
            }
        }
        self.shadow.clear(address, alloc.size);
        if self.frees.len() == FREES_KEPT {
            self.frees.pop_front();
        }
        self.frees.push_back(Freed {
            start: address,
            size: alloc.size,
            info,
        });
    }

    fn access_report(&mut self, info: &AccInfo) -> Access {
        let (site, entry) = self.sites.resolve(info.site);
        // A C program's entry point names the call better than the task kind does.
        let op = match (info.kind, &entry) {
            (_, Some(e))
                if !info.op.starts_with("acl") || e.starts_with("acl") || e.starts_with("cu") =>
            {
                if info.task.is_some() && !info.op.starts_with("acl") {
                    info.op.to_string()
                } else {
                    e.clone()
                }
            }
            _ => info.op.to_string(),
        };
        Access {
            access: info.kind,
            op,
            device: info.device,
            stream: info.task.map(|t| t.0),
            task: info.task.map(|t| t.2),
            thread: info.thread,
            address: info.start,
            size: info.len,
            site,
        }
    }

    fn report_memory(
        &mut self,
        key: (Kind, Vec<SiteId>),
        kind: Kind,
        first: &Arc<AccInfo>,
        second: &Arc<AccInfo>,
    ) {
        if !self.reported.insert(key) {
            return;
        }
        let a = self.access_report(first);
        let b = self.access_report(second);
        let (message, fix) = match kind {
            Kind::Race => (
                format!(
                    "{} and {} touch overlapping bytes at {:#x} and are not ordered",
                    who(&a),
                    who(&b),
                    a.address.max(b.address)
                ),
                self.race_fix(first, second, &a, &b),
            ),
            Kind::UseAfterFree => (
                format!(
                    "{} touches memory at {:#x} that {} freed",
                    who(&b),
                    b.address,
                    a.op
                ),
                format!(
                    "free the allocation ({}) only after its last use ({})",
                    a.site.short(),
                    b.site.short()
                ),
            ),
            _ => (
                format!(
                    "{} freed memory at {:#x} that {} still touches",
                    b.op,
                    b.address,
                    who(&a)
                ),
                match (a.stream, a.task) {
                    (Some(s), Some(_)) => format!(
                        "call aclrtSynchronizeStream on stream {s} (or aclrtSynchronizeEvent on an event recorded after {} at {}) before {} at {}",
                        a.op,
                        a.site.short(),
                        b.op,
                        b.site.short()
                    ),
                    _ => format!(
                        "make the thread that calls {} wait for thread {} before freeing",
                        b.op, a.thread
                    ),
                },
            ),
        };
        self.findings.push(Finding {
            kind,
            message,
            accesses: vec![a, b],
            waits: Vec::new(),
            objects: Vec::new(),
            fix,
            involved: vec![point_of(first), point_of(second)],
        });
    }

    /// What orders `first` before `second`.
    fn race_fix(&mut self, first: &AccInfo, second: &AccInfo, a: &Access, b: &Access) -> String {
        match (first.task, second.task) {
            (Some((s1, h1, t1)), Some((s2, h2, _))) if h1 != h2 => {
                // Did stream 2 wait for a record of stream 1 made before the first access?
                let early = self
                    .streams
                    .get(&h1)
                    .and_then(|s| s.records.iter().rev().find(|r| r.0 < t1).copied());
                let hint = match early {
                    Some((_, ev, _)) => format!(
                        " (the last record of event {ev} on stream {s1} that stream {s2} waited for comes before {}: record after it)",
                        a.op
                    ),
                    None => String::new(),
                };
                format!(
                    "record an event on stream {s1} after {} ({}) and call aclrtStreamWaitEvent(stream {s2}, that event) before {} ({}){hint}",
                    a.op,
                    a.site.short(),
                    b.op,
                    b.site.short()
                )
            }
            (Some((s1, _, _)), None) if self.callback_threads.contains(&second.thread) => format!(
                "{} in a callback (thread {}, {}) and {} on stream {s1} ({}) are not ordered: launch the callback with ACL_CALLBACK_BLOCK so its stream's later tasks wait for it, or record an event after the callback and make stream {s1} wait for it",
                b.op,
                b.thread,
                b.site.short(),
                a.op,
                a.site.short()
            ),
            (Some((s1, _, _)), None) => format!(
                "call aclrtSynchronizeStream on stream {s1} (or aclrtSynchronizeEvent on an event recorded after {} at {}) on thread {} before {} ({})",
                a.op,
                a.site.short(),
                b.thread,
                b.op,
                b.site.short()
            ),
            _ => format!(
                "order thread {}'s {} ({}) before thread {}'s {} ({}): join the threads, or use a lock or condition variable",
                a.thread,
                a.op,
                a.site.short(),
                b.thread,
                b.op,
                b.site.short()
            ),
        }
    }

    /// A blocked wait that can never end: reports it (once) and says so.
    fn look_for_deadlock(&mut self, look: Look) -> bool {
        if let Some(f) = waits::find_deadlock(self, look) {
            let key = (Kind::Deadlock, Vec::new());
            if self.reported.insert(key) {
                self.findings.push(f);
                return true;
            }
        }
        false
    }

    /// A wait that made no progress for `hang_ns`, at `now_ns`.
    pub(crate) fn look_for_hang(&mut self, now_ns: u64, hang_ns: u64) -> bool {
        if self.user_code_running > 0 || now_ns.saturating_sub(self.last_progress_ns) < hang_ns {
            return false;
        }
        let stuck = self.blocked.values().any(|b| {
            b.call != "aclrtProcessReport" && now_ns.saturating_sub(b.since_ns) >= hang_ns
        });
        if !stuck {
            return false;
        }
        let f = waits::hang_finding(self, now_ns);
        if self.reported.insert((Kind::Hang, Vec::new())) {
            self.findings.push(f);
            return true;
        }
        false
    }

    /// Streams, events and allocations still alive.
    pub(crate) fn leaks(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut streams: Vec<(u32, SiteId)> = self
            .streams
            .values()
            .filter(|s| !s.destroyed)
            .filter_map(|s| s.created.map(|c| (s.task.stream_id, c)))
            .collect();
        streams.sort();
        for (id, site) in streams {
            let (site, _) = self.sites.resolve(site);
            out.push(leak(
                "stream",
                id as u64,
                None,
                site,
                format!("stream {id} was never destroyed"),
                format!("call aclrtDestroyStream on stream {id} before aclFinalize"),
            ));
        }
        let mut events: Vec<(u32, SiteId)> = self
            .events
            .values()
            .filter(|e| !e.destroyed)
            .filter_map(|e| e.created.map(|c| (e.id, c)))
            .collect();
        events.sort();
        for (id, site) in events {
            let (site, _) = self.sites.resolve(site);
            out.push(leak(
                "event",
                id as u64,
                None,
                site,
                format!("event {id} was never destroyed"),
                format!("call aclrtDestroyEvent on event {id} before aclFinalize"),
            ));
        }
        let allocs: Vec<(usize, usize, Option<i32>, SiteId)> = self
            .allocs
            .iter()
            .map(|(a, al)| (*a, al.size, al.device, al.site))
            .collect();
        for (address, size, device, site) in allocs {
            let (site, _) = self.sites.resolve(site);
            let free = if device.is_some() {
                "aclrtFree"
            } else {
                "aclrtFreeHost"
            };
            out.push(leak(
                "allocation",
                address as u64,
                Some(size),
                site,
                format!("{size} bytes at {address:#x} were never freed"),
                format!("call {free}({address:#x}) before aclFinalize"),
            ));
        }
        // Reported once.
        for s in self.streams.values_mut() {
            s.created = None;
        }
        for e in self.events.values_mut() {
            e.created = None;
        }
        self.allocs.clear();
        out
    }
}

fn leak(
    object: &'static str,
    id: u64,
    size: Option<usize>,
    site: Site,
    message: String,
    fix: String,
) -> Finding {
    Finding {
        kind: Kind::Leak,
        message,
        accesses: Vec::new(),
        waits: Vec::new(),
        objects: vec![Object {
            object,
            id,
            size,
            site,
        }],
        fix,
        involved: Vec::new(),
    }
}

/// The task that made an access, or the host thread.
fn point_of(info: &AccInfo) -> Point {
    match info.task {
        Some((stream_id, stream, task_id)) => Point::Task(TaskRef {
            device_id: info.device,
            stream_id,
            stream,
            task_id,
        }),
        None => Point::Host(info.thread),
    }
}

/// `aclrtMemcpyAsync on stream 1 (task 3)` / `aclrtMemcpy on thread 77`.
fn who(a: &Access) -> String {
    match (a.stream, a.task) {
        (Some(s), Some(t)) => format!("{} {} on stream {s} (task {t})", a.access.as_str(), a.op),
        _ => format!("{} {} on thread {}", a.access.as_str(), a.op, a.thread),
    }
}
