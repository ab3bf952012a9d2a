//! The observer interface: one program, and what an installed observer learns of it — tasks
//! with the memory they touch, record → wait edges, host synchronisation edges, synchronous
//! host copies.

mod common;

use std::sync::{Arc, Mutex};

use aclrt::api;
use aclrt::consts::*;
use aclrt::observe::{self, EdgeKind, Observed, Observer, Point, TaskRef};
use aclrt::{MemRange, TaskKind};
use common::*;

#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Submitted(TaskRef, TaskKind, Vec<MemRange>, Vec<MemRange>),
    Edge(EdgeKind, Point, Point),
    HostAccess(&'static str, Vec<MemRange>, Vec<MemRange>),
}

#[derive(Default)]
struct Log(Mutex<Vec<Seen>>);

impl Observer for Log {
    fn observe(&self, event: &Observed<'_>) {
        let seen = match *event {
            Observed::Submitted {
                task, kind, meta, ..
            } => Seen::Submitted(task, kind, meta.reads.clone(), meta.writes.clone()),
            Observed::Edge {
                kind,
                before,
                after,
                ..
            } => Seen::Edge(kind, before, after),
            Observed::HostAccess {
                call,
                reads,
                writes,
                ..
            } => Seen::HostAccess(call, reads.to_vec(), writes.to_vec()),
            _ => return,
        };
        self.0.lock().unwrap().push(seen);
    }
}

fn range(start: usize, len: usize) -> MemRange {
    MemRange { start, len }
}

#[test]
fn an_observer_sees_accesses_and_happens_before_edges() {
    let _serial = common::exclusive();
    setup();
    let log = Arc::new(Log::default());
    let id = observe::install(log.clone());
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let dev = api::malloc(256, 0).unwrap();
    let host = vec![7u8; 256];
    let mut back = vec![0u8; 256];
    let ev = api::create_event().unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy_async(
            dev,
            256,
            host.as_ptr() as usize,
            256,
            ACL_MEMCPY_HOST_TO_DEVICE,
            a,
        )
        .unwrap();
    }
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe {
        api::memcpy_async(
            back.as_mut_ptr() as usize,
            256,
            dev,
            256,
            ACL_MEMCPY_DEVICE_TO_HOST,
            b,
        )
        .unwrap();
    }
    api::synchronize_stream(b).unwrap();
    // SAFETY: every host pointer is a live local or runtime buffer of at least the accessed size, kept alive until the copies have run (the test synchronises first).
    unsafe { api::memset(dev, 256, 0, 16).unwrap() };
    assert!(observe::remove(id));
    assert_eq!(back, host);

    let seen = log.0.lock().unwrap().clone();
    let submitted: Vec<_> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Submitted(t, k, r, w) => Some((*t, *k, r.clone(), w.clone())),
            _ => None,
        })
        .collect();
    let id_a = api::stream_get_id(a).unwrap() as u32;
    let id_b = api::stream_get_id(b).unwrap() as u32;
    let on = |stream_id: u32, kind: TaskKind| {
        submitted
            .iter()
            .find(|(t, k, _, _)| t.stream_id == stream_id && *k == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind:?} on stream {stream_id}: {submitted:?}"))
    };
    let upload = on(id_a, TaskKind::Memcpy);
    assert_eq!(upload.2, vec![range(host.as_ptr() as usize, 256)]);
    assert_eq!(upload.3, vec![range(dev, 256)]);
    let record = on(id_a, TaskKind::Record).0;
    let wait = on(id_b, TaskKind::Wait).0;
    let download = on(id_b, TaskKind::Memcpy);
    assert_eq!(download.2, vec![range(dev, 256)]);
    assert!(
        seen.contains(&Seen::Edge(
            EdgeKind::EventWait,
            Point::Task(record),
            Point::Task(wait)
        )),
        "record → wait edge: {seen:?}"
    );
    let me = aclrt::os_thread_id();
    assert!(
        seen.contains(&Seen::Edge(
            EdgeKind::HostSync,
            Point::Task(download.0),
            Point::Host(me)
        )),
        "synchronise → host edge: {seen:?}"
    );
    assert_eq!(
        seen.last(),
        Some(&Seen::HostAccess(
            "aclrtMemset",
            vec![],
            vec![range(dev, 16)]
        ))
    );
    api::free(dev).unwrap();
}
