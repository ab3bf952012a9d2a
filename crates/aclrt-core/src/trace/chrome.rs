//! Chrome Trace Event JSON (serialised with serde_json).
//!
//! Layout: one process per device (pid = device id) with one track per stream (tid = stream
//! id), and one `host` process whose tracks are the host threads (tid = OS thread id). Task
//! executions are complete (`X`) slices on stream tracks; launch calls, callbacks and
//! synchronise calls are slices on host tracks. Flows (`s`/`f`, binding to the enclosing
//! slice) join each launch to its task, each event record to every wait it released, and each
//! callback task to the host thread that ran its body. Every task slice carries `args.uid`, a
//! trace-wide task number, so tools need not rebuild identities from stream ids (which the
//! runtime reuses). A finding of the checker (when it runs beside the collector) is marked on
//! every track it involves, in category `finding`: a slice over each task involved, nested in
//! the task's own slice, and an instant on each host thread; each mark's `args` hold the
//! finding's number, kind, message, the sites of its accesses or waits, and its fix.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use super::{TaskRef, Trace, TraceRecord};
use crate::error::AclError;
use crate::observe::Point;
use crate::task_info::TaskKind;

/// The `process_name` of the host process.
pub const HOST_PROCESS_NAME: &str = "host";

/// The category of the slices and instants that mark a finding of the checker.
pub const FINDING_CATEGORY: &str = "finding";

/// The name a kind goes by in the trace (`args.kind`, the slice category).
pub(crate) fn kind_name(kind: TaskKind) -> &'static str {
    match kind {
        TaskKind::Kernel => "kernel",
        TaskKind::Memcpy => "memcpy",
        TaskKind::Memset => "memset",
        TaskKind::Record => "record",
        TaskKind::Wait => "wait",
        TaskKind::Reset => "reset",
        TaskKind::Callback => "callback",
        TaskKind::HostFunc => "host_func",
        TaskKind::StreamWait => "stream_wait",
    }
}

#[derive(Default)]
struct Span {
    uid: u64,
    kind: Option<TaskKind>,
    name: Option<std::sync::Arc<str>>,
    event: Option<u64>,
    /// Submitting thread, start, end.
    submit: Option<(u32, u64, u64)>,
    /// Start, worker thread.
    start: Option<(u64, u32)>,
    end: Option<u64>,
    error: Option<AclError>,
    message: Option<std::sync::Arc<str>>,
    discarded: Option<(u64, AclError)>,
    released_by: Option<TaskRef>,
    released_at: Option<u64>,
}

impl Span {
    fn label(&self) -> String {
        match (&self.name, self.kind) {
            (Some(n), _) => n.to_string(),
            (None, Some(k)) => kind_name(k).to_owned(),
            (None, None) => "task".to_owned(),
        }
    }
}

/// One output event with its sort key: time, then slices before instants before flows, then
/// longer slices first so parents precede their children.
struct Out {
    ts: u64,
    order: u8,
    dur: u64,
    event: Value,
}

/// Nanoseconds as the file's microseconds (three decimals: nanosecond resolution).
fn us(ns: u64) -> Value {
    json!(ns as f64 / 1000.0)
}

/// An `args` object from its pairs, in order.
fn args(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Map<String, Value>>(),
    )
}

struct Writer {
    out: Vec<Out>,
    next_flow: u64,
}

impl Writer {
    #[allow(clippy::too_many_arguments)]
    fn slice(&mut self, pid: u64, tid: u64, name: &str, cat: &str, ts: u64, end: u64, a: Value) {
        let dur = end.saturating_sub(ts);
        self.out.push(Out {
            ts,
            order: 0,
            dur,
            event: json!({
                "ph": "X", "pid": pid, "tid": tid, "name": name, "cat": cat,
                "ts": us(ts), "dur": us(dur), "args": a,
            }),
        });
    }

    fn instant(&mut self, pid: u64, tid: u64, name: &str, cat: &str, ts: u64, a: Value) {
        self.out.push(Out {
            ts,
            order: 1,
            dur: 0,
            event: json!({
                "ph": "i", "s": "t", "pid": pid, "tid": tid, "name": name, "cat": cat,
                "ts": us(ts), "args": a,
            }),
        });
    }

    /// A finding's slice (category `finding`, drawn in the viewer's alarm colour).
    fn marked_slice(&mut self, pid: u64, tid: u64, name: &str, ts: u64, end: u64, a: Value) {
        let dur = end.saturating_sub(ts);
        self.out.push(Out {
            ts,
            order: 0,
            dur,
            event: json!({
                "ph": "X", "pid": pid, "tid": tid, "name": name, "cat": FINDING_CATEGORY,
                "cname": "terrible", "ts": us(ts), "dur": us(dur), "args": a,
            }),
        });
    }

    /// A finding's instant on a track.
    fn marked_instant(&mut self, pid: u64, tid: u64, name: &str, ts: u64, a: Value) {
        self.out.push(Out {
            ts,
            order: 1,
            dur: 0,
            event: json!({
                "ph": "i", "s": "t", "pid": pid, "tid": tid, "name": name,
                "cat": FINDING_CATEGORY, "cname": "terrible", "ts": us(ts), "args": a,
            }),
        });
    }

    /// A flow from the slice enclosing `from` to the slice enclosing `to`.
    fn flow(&mut self, name: &str, cat: &str, from: (u64, u64, u64), to: (u64, u64, u64)) {
        let id = self.next_flow;
        self.next_flow += 1;
        let (pid, tid, ts) = from;
        self.out.push(Out {
            ts,
            order: 2,
            dur: 0,
            event: json!({
                "ph": "s", "id": id, "pid": pid, "tid": tid, "name": name, "cat": cat,
                "ts": us(ts),
            }),
        });
        let (pid, tid, ts) = to;
        self.out.push(Out {
            ts,
            order: 2,
            dur: 0,
            event: json!({
                "ph": "f", "bp": "e", "id": id, "pid": pid, "tid": tid, "name": name,
                "cat": cat, "ts": us(ts),
            }),
        });
    }
}

fn metadata(kind: &str, pid: u64, tid: Option<u64>, key: &str, value: Value) -> Value {
    let mut m = Map::new();
    m.insert("ph".into(), json!("M"));
    m.insert("pid".into(), json!(pid));
    if let Some(t) = tid {
        m.insert("tid".into(), json!(t));
    }
    m.insert("name".into(), json!(kind));
    m.insert("args".into(), json!({ key: value }));
    Value::Object(m)
}

fn add_handle(tracks: &mut BTreeMap<(i32, u32), Vec<u64>>, task: &TaskRef) {
    let handles = tracks.entry((task.device_id, task.stream_id)).or_default();
    if !handles.contains(&task.stream) {
        handles.push(task.stream);
    }
}

/// `stream 3`, or with names `load (stream 3)`; several streams that had the same id in turn
/// show all their names (`load / store (stream 3)`).
fn track_name(stream_id: u32, handles: &[u64], names: &HashMap<u64, &str>) -> String {
    let mut shown: Vec<&str> = Vec::new();
    for n in handles.iter().filter_map(|h| names.get(h)) {
        if !shown.contains(n) {
            shown.push(n);
        }
    }
    if shown.is_empty() {
        format!("stream {stream_id}")
    } else {
        format!("{} (stream {stream_id})", shown.join(" / "))
    }
}

fn span_of<'a>(
    spans: &'a mut HashMap<TaskRef, Span>,
    next_uid: &mut u64,
    task: TaskRef,
) -> &'a mut Span {
    spans.entry(task).or_insert_with(|| {
        *next_uid += 1;
        Span {
            uid: *next_uid,
            ..Span::default()
        }
    })
}

pub(crate) fn to_json(trace: &Trace) -> String {
    let mut spans: HashMap<TaskRef, Span> = HashMap::new();
    let mut next_uid = 0u64;
    let mut trace_end = 0u64;
    let mut devices = BTreeSet::new();
    for r in &trace.records {
        trace_end = trace_end.max(r.at_ns());
        match r {
            TraceRecord::Submitted {
                task,
                kind,
                name,
                event,
                thread_id,
                start_ns,
                end_ns,
            } => {
                trace_end = trace_end.max(*end_ns);
                devices.insert(task.device_id);
                let s = span_of(&mut spans, &mut next_uid, *task);
                s.kind = Some(*kind);
                s.name = name.clone();
                s.event = *event;
                s.submit = Some((*thread_id, *start_ns, *end_ns));
            }
            TraceRecord::Started {
                task,
                kind,
                thread_id,
                at_ns,
            } => {
                devices.insert(task.device_id);
                let s = span_of(&mut spans, &mut next_uid, *task);
                s.kind = Some(*kind);
                s.start = Some((*at_ns, *thread_id));
            }
            TraceRecord::Finished {
                task,
                kind,
                error,
                message,
                at_ns,
            } => {
                let s = span_of(&mut spans, &mut next_uid, *task);
                s.kind = Some(*kind);
                s.end = Some(*at_ns);
                s.error = *error;
                s.message = message.clone();
            }
            TraceRecord::Discarded {
                task,
                kind,
                error,
                at_ns,
            } => {
                devices.insert(task.device_id);
                let s = span_of(&mut spans, &mut next_uid, *task);
                s.kind = Some(*kind);
                s.discarded = Some((*at_ns, *error));
            }
            TraceRecord::WaitReleased { task, by, at_ns } => {
                let s = span_of(&mut spans, &mut next_uid, *task);
                s.released_by = *by;
                s.released_at = Some(*at_ns);
            }
            TraceRecord::CallbackRan { end_ns, .. } | TraceRecord::HostWait { end_ns, .. } => {
                trace_end = trace_end.max(*end_ns);
            }
            TraceRecord::ApiFailed { .. } | TraceRecord::Finding { .. } => {}
        }
    }

    let mut host_pid = u64::from(std::process::id());
    if devices.iter().any(|&d| d as u64 == host_pid) {
        host_pid |= 1 << 30;
    }
    let mut w = Writer {
        out: Vec::new(),
        next_flow: 1,
    };
    // Each track's stream handles (ids are reused, so one track may show several streams).
    let mut stream_tracks: BTreeMap<(i32, u32), Vec<u64>> = BTreeMap::new();
    let mut host_threads: BTreeSet<u32> = BTreeSet::new();

    // Deterministic output: tasks in uid order.
    let mut ordered: Vec<(&TaskRef, &Span)> = spans.iter().collect();
    ordered.sort_by_key(|(_, s)| s.uid);
    let uid_of = |t: &TaskRef| spans.get(t).map(|s| s.uid);
    let start_of = |t: &TaskRef| spans.get(t).and_then(|s| s.start.map(|(ns, _)| ns));

    for (task, s) in &ordered {
        let pid = task.device_id as u64;
        let tid = u64::from(task.stream_id);
        let kind = s.kind.map_or("task", kind_name);
        let label = s.label();
        if let Some((start, worker)) = s.start {
            add_handle(&mut stream_tracks, task);
            let end = s.end.unwrap_or(trace_end).max(start);
            let mut a = vec![
                ("uid", json!(s.uid)),
                ("task", json!(task.task_id)),
                ("stream", json!(task.stream_id)),
                ("device", json!(task.device_id)),
                ("stream_handle", json!(task.stream)),
                ("kind", json!(kind)),
                ("worker_thread", json!(worker)),
            ];
            if let Some(n) = &s.name {
                a.push(("name", json!(&**n)));
            }
            if let Some(e) = s.event {
                a.push(("event", json!(e)));
            }
            if let Some((thread, _, submitted)) = s.submit {
                a.push(("submit_thread", json!(thread)));
                a.push(("submitted_us", us(submitted)));
            }
            if let Some(by) = s.released_by.as_ref().and_then(uid_of) {
                a.push(("released_by", json!(by)));
            }
            if let Some(at) = s.released_at {
                a.push(("released_us", us(at)));
            }
            if s.end.is_none() {
                a.push(("unfinished", json!(true)));
            }
            if let Some(code) = s.error {
                a.push(("error", json!(code)));
            }
            if let Some(m) = &s.message {
                a.push(("message", json!(&**m)));
            }
            w.slice(pid, tid, &label, kind, start, end, args(a));
            if let Some(code) = s.error {
                w.instant(
                    pid,
                    tid,
                    &format!("failed {code}"),
                    "failure",
                    end,
                    args(vec![("uid", json!(s.uid)), ("error", json!(code))]),
                );
            }
        }
        if let Some((thread, start, end)) = s.submit {
            host_threads.insert(thread);
            let a = args(vec![("uid", json!(s.uid)), ("kind", json!(kind))]);
            w.slice(
                host_pid,
                u64::from(thread),
                &format!("launch {label}"),
                "launch",
                start,
                end,
                a,
            );
            if let Some((task_start, _)) = s.start {
                w.flow(
                    "launch",
                    "launch",
                    (host_pid, u64::from(thread), start),
                    (pid, tid, task_start),
                );
            }
        }
        if let Some((at, code)) = s.discarded {
            add_handle(&mut stream_tracks, task);
            w.instant(
                pid,
                tid,
                &format!("discarded {label}"),
                "failure",
                at,
                args(vec![
                    ("uid", json!(s.uid)),
                    ("task", json!(task.task_id)),
                    ("kind", json!(kind)),
                    ("error", json!(code)),
                ]),
            );
        }
        if let (Some(by), Some((wait_start, _))) = (s.released_by, s.start) {
            if let Some(record_start) = start_of(&by) {
                // The arrow lands where the wait was released, so it never points back in time.
                let wait_end = s.end.unwrap_or(trace_end).max(wait_start);
                let landed = s
                    .released_at
                    .unwrap_or(wait_start)
                    .clamp(wait_start, wait_end);
                w.flow(
                    "event",
                    "dependency",
                    (by.device_id as u64, u64::from(by.stream_id), record_start),
                    (pid, tid, landed),
                );
            }
        }
    }

    for r in &trace.records {
        match r {
            TraceRecord::CallbackRan {
                task,
                thread_id,
                start_ns,
                end_ns,
            } => {
                host_threads.insert(*thread_id);
                let uid = uid_of(task).unwrap_or(0);
                let label = spans.get(task).map_or("callback".to_owned(), |s| {
                    s.kind
                        .map_or("callback".to_owned(), |k| kind_name(k).to_owned())
                });
                w.slice(
                    host_pid,
                    u64::from(*thread_id),
                    &label,
                    "callback",
                    *start_ns,
                    *end_ns,
                    args(vec![
                        ("uid", json!(uid)),
                        ("stream", json!(task.stream_id)),
                        ("task", json!(task.task_id)),
                    ]),
                );
                if let Some(task_start) = start_of(task) {
                    w.flow(
                        "callback",
                        "callback",
                        (task.device_id as u64, u64::from(task.stream_id), task_start),
                        (host_pid, u64::from(*thread_id), *start_ns),
                    );
                }
            }
            TraceRecord::HostWait {
                call,
                thread_id,
                start_ns,
                end_ns,
            } => {
                host_threads.insert(*thread_id);
                w.slice(
                    host_pid,
                    u64::from(*thread_id),
                    call,
                    "sync",
                    *start_ns,
                    *end_ns,
                    args(vec![("blocked_us", us(end_ns.saturating_sub(*start_ns)))]),
                );
            }
            TraceRecord::ApiFailed {
                code,
                message,
                thread_id,
                at_ns,
            } => {
                host_threads.insert(*thread_id);
                w.instant(
                    host_pid,
                    u64::from(*thread_id),
                    &format!("error {code}"),
                    "failure",
                    *at_ns,
                    args(vec![("error", json!(code)), ("message", json!(&**message))]),
                );
            }
            _ => {}
        }
    }

    // Findings: a marked slice over each task involved (an instant where the task never ran),
    // an instant on each host thread involved (the finding's own thread when none is named).
    let mut number = 0u64;
    for r in &trace.records {
        let TraceRecord::Finding {
            finding,
            thread_id,
            at_ns,
        } = r
        else {
            continue;
        };
        number += 1;
        let name = format!("finding: {}", finding.kind);
        let mark_args = |extra: Vec<(&'static str, Value)>| {
            let mut a = vec![
                ("finding", json!(number)),
                ("kind", json!(finding.kind)),
                ("message", json!(finding.message)),
                ("sites", json!(finding.sites)),
                ("fix", json!(finding.fix)),
            ];
            a.extend(extra);
            args(a)
        };
        let host = [Point::Host(*thread_id)];
        let involved = if finding.involved.is_empty() {
            &host[..]
        } else {
            &finding.involved[..]
        };
        for point in involved {
            match point {
                Point::Task(task) => {
                    add_handle(&mut stream_tracks, task);
                    let (pid, tid) = (task.device_id as u64, u64::from(task.stream_id));
                    let span = spans.get(task);
                    let a = mark_args(vec![
                        ("uid", json!(span.map(|s| s.uid))),
                        ("task", json!(task.task_id)),
                    ]);
                    match span.and_then(|s| s.start.map(|(start, _)| (start, s.end))) {
                        Some((start, end)) => {
                            let end = end.unwrap_or(trace_end).max(start);
                            w.marked_slice(pid, tid, &name, start, end, a);
                        }
                        None => w.marked_instant(pid, tid, &name, *at_ns, a),
                    }
                }
                Point::Host(t) => {
                    host_threads.insert(*t);
                    w.marked_instant(host_pid, u64::from(*t), &name, *at_ns, mark_args(vec![]));
                }
            }
        }
    }

    let mut meta = Vec::new();
    let mut per_device: BTreeMap<i32, Vec<u32>> = BTreeMap::new();
    for (d, s) in stream_tracks.keys() {
        per_device.entry(*d).or_default().push(*s);
    }
    // The latest name of each stream handle.
    let mut stream_names: HashMap<u64, &str> = HashMap::new();
    for info in &trace.streams {
        match &info.name {
            Some(n) => stream_names.insert(info.stream, n),
            None => stream_names.remove(&info.stream),
        };
    }
    for (d, streams) in &per_device {
        let pid = *d as u64;
        meta.push(metadata(
            "process_name",
            pid,
            None,
            "name",
            json!(format!("device {d}")),
        ));
        meta.push(metadata(
            "process_sort_index",
            pid,
            None,
            "sort_index",
            json!(d),
        ));
        for s in streams {
            let tid = u64::from(*s);
            meta.push(metadata(
                "thread_name",
                pid,
                Some(tid),
                "name",
                json!(track_name(*s, &stream_tracks[&(*d, *s)], &stream_names)),
            ));
            meta.push(metadata(
                "thread_sort_index",
                pid,
                Some(tid),
                "sort_index",
                json!(s),
            ));
        }
    }
    if !host_threads.is_empty() {
        meta.push(metadata(
            "process_name",
            host_pid,
            None,
            "name",
            json!(HOST_PROCESS_NAME),
        ));
        meta.push(metadata(
            "process_sort_index",
            host_pid,
            None,
            "sort_index",
            json!(1_000_000),
        ));
        let names: HashMap<u32, &str> = trace
            .threads
            .iter()
            .filter_map(|t| t.name.as_deref().map(|n| (t.thread_id, n)))
            .collect();
        for t in &host_threads {
            let name = match names.get(t) {
                Some(n) => format!("{n} ({t})"),
                None => format!("thread {t}"),
            };
            meta.push(metadata(
                "thread_name",
                host_pid,
                Some(u64::from(*t)),
                "name",
                json!(name),
            ));
        }
    }

    w.out.sort_by(|a, b| {
        (a.ts, a.order, std::cmp::Reverse(a.dur)).cmp(&(b.ts, b.order, std::cmp::Reverse(b.dur)))
    });
    // One event per line, so the file reads and diffs well.
    let mut json = String::with_capacity(64 + w.out.len() * 200);
    json.push_str("{\"traceEvents\":[\n");
    let all = meta.iter().chain(w.out.iter().map(|o| &o.event));
    for (i, e) in all.enumerate() {
        if i > 0 {
            json.push_str(",\n");
        }
        json.push_str(&e.to_string());
    }
    let other = json!({
        "producer": "aclrt",
        "version": env!("CARGO_PKG_VERSION"),
        "host_pid": host_pid,
        "clock": "microseconds since the first aclrtSetDevice",
    });
    json.push_str("\n],\"displayTimeUnit\":\"ms\",\"otherData\":");
    json.push_str(&other.to_string());
    json.push('}');
    json.push('\n');
    json
}
